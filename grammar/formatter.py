"""The canonical layout of a rules file, printed from the AST with every comment kept.

Layout: four spaces an indent, one statement a line, `} else {` on one line, minimal parentheses
(kept around `and`/`or` branches of `if ... then ... else`, compound operands of the tight `..`,
and an `if`/`match` expression inside a larger one or between `then` and `until`; a written
`ascending` stays), a blank line around top-level blocks and where the source had one (at most
one), table columns aligned. A line longer than 100 columns is filled: it goes on after a backslash at
places marked while rendering (before `cite`/`assumed`, before an `and`/`or`/`+`/`-` of a chain,
before `then`/`else`), each continuation one indent deeper than the line its group began on.
An option header stays on one line, as it reads as the choice itself. Lists, `match` and `new`
are printed one item a line when the source broke the line right after their bracket.

Comments are woven back by source line: each printed line remembers the source lines it stands
for. A comment on its own line goes before the line it preceded (inside the block when that was
a closing `}`), a comment after code stays at the end of that line (aligned with its
neighbours), and a comment inside a construct now printed on one line goes just before it.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from . import ast as A
from .parser import _STRING_OR_COMMENT, comments_of, parse_text

# Text whose braces pair up around plain words: a string holding it lexes the same either way.
_BALANCED = re.compile(r'[^{}"\\]*(\{[^{}"\\\n]*\}[^{}"\\]*)*')

WIDTH = 100
INDENT = "    "

# Precedence levels of grammar/rules.lark, loosest first.
COND, OR, AND, NOT, CMP, RANGE, ADD, MUL, NEG, POSTFIX, ATOM = range(1, 12)
_BINARY_LEVEL = {
    "or": OR, "and": AND, "..": RANGE, "+": ADD, "-": ADD, "*": MUL, "/": MUL, "%": MUL,
    **{op: CMP for op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in")},
}
_NON_ASSOCIATIVE = {CMP, RANGE}  # `a < b < c` and `1..2..3` do not parse
_CHAINS = {OR, AND, ADD}  # a too-long line may break before these operators

# Rendered text carries two invisible marks that `_fill` lays out: a break, where a too-long
# line may go on after a `\` (a space when it does not), and the start of a break group. The
# number is the nesting of the group: 0 for clauses of the statement (`cite`, the message of
# `expect`), 1 for a chain or conditional in it, 2 for one inside that, ...
_MARK = re.compile("([\x00\x02])(\\d+)\x01")


# One-line statements that may end with `cite "..."`.
_CITABLE_LINES = frozenset(['add', 'change', 'do', 'end_game', 'hide', 'let', 'log', 'move', 'move_pieces', 'remove', 'require', 'reveal', 'set', 'shuffle', 'trigger', 'rotate', 'slide'])


def _brk(level: int) -> str:
    return f"\x00{level}\x01"


def _open(level: int) -> str:
    return f"\x02{level}\x01"


def _strip(text: str) -> str:
    return _MARK.sub(lambda mo: " " if mo.group(1) == "\x00" else "", text)


# ------------------------------------------------------------------------------ entry points
def format_source(text: str, name: str = "<input>") -> str:
    """The canonical form of rules text; raises DiagnosticError when the text does not parse."""
    program = parse_text(text, name)
    return format_program(program, comments_of(text), source=text)


def format_program(program: A.Program, comments: Iterable[tuple[int, int, str]] = (),
                   source: str | None = None) -> str:
    """Print a program in canonical form with the given ``(line, column, text)`` comments.

    Without ``source``, comments and blank lines are placed from node spans alone (a comment just
    before or after a ``} else {`` line may move to the next block); with it, placement is exact.
    """
    comments = list(comments)
    facts = (_Source(source) if source is not None
             else _SpanFacts(program, [line for line, _, _ in comments]))
    printer = _Printer(facts)
    items = _top_level_items(program)
    lines: list[_Line] = []
    starts: dict[int, bool] = {}
    previous_big = False
    for k, item in enumerate(items):
        item_lines = printer.item(item)
        big = any(line.opens for line in item_lines)
        starts[len(lines)] = k > 0 and (big or previous_big or item.span is None)
        lines.extend(item_lines)
        previous_big = big
    return _weave(lines, starts, comments, facts)


def format_expression(expr) -> str:
    """One expression in canonical form, on one line (for tools and tests)."""
    printer = _Printer(_SpanFacts(None))
    printer.inline_only = True
    return _flat(printer.expr(expr))


def _top_level_items(program: A.Program) -> list:
    items = ([program.header] if program.header else []) + list(program.declarations)
    items += list(program.overrides) + list(program.scenarios)
    if all(item.span is not None for item in items):
        items.sort(key=lambda item: (item.span.line, item.span.column))
    return items


# ----------------------------------------------------------------------------------- strings
def _escape(text: str, braces: bool = True) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif braces and ch in "{}":
            out.append("\\" + ch)
        elif not ch.isprintable():
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return "".join(out)


def _plain(text: str) -> str:
    """A string read without ``{holes}`` (a title, a cite, an id, a text with no hole). Its
    braces stay as written when each `{` is closed by a `}` with plain text between (the lexer,
    for which any brace opens a hole, then reads it back the same); otherwise they are escaped."""
    bare = _BALANCED.fullmatch(text) is not None
    return f'"{_escape(text, braces=not bare)}"'


def _text(text: str) -> str:
    """A string read as a template (a string value of an expression): braces are escaped."""
    return f'"{_escape(text)}"'


# -------------------------------------------------------------------------------- line model
@dataclass(frozen=True)
class _Line:
    """One physical output line and the source lines it stands for (None: unknown)."""

    text: str
    depth: int = 0
    first: int | None = None
    last: int | None = None
    opens: bool = False  # ends with `{` (or `[`): no blank line after it
    closes: bool = False  # starts with `}`: comments before it belong inside the block
    can_precede: bool = True  # a comment line may be put before it (not a continuation)
    can_trail: bool = True  # a comment may end it (not a line ending in `\`)


Doc = list[_Line]


def _lo(a, b):
    return b if a is None else a if b is None else min(a, b)


def _hi(a, b):
    return b if a is None else a if b is None else max(a, b)


def _glue(a: _Line, b: _Line) -> _Line:
    return _Line(a.text + b.text, a.depth, _lo(a.first, b.first), _hi(a.last, b.last), b.opens,
                 a.closes, a.can_precede, b.can_trail)


def _cat(*parts) -> Doc:
    """Concatenate text and docs: each doc's first line continues the line before it."""
    out = [_Line("")]
    for part in parts:
        if isinstance(part, str):
            out[-1] = replace(out[-1], text=out[-1].text + part)
        elif part:
            out[-1] = _glue(out[-1], part[0])
            out.extend(part[1:])
    return out


def _join(docs: list[Doc], sep: str = ", ") -> Doc:
    parts: list = []
    for i, doc in enumerate(docs):
        if i:
            parts.append(sep)
        parts.append(doc)
    return _cat(*parts)


def _flat(doc: Doc) -> str:
    return "\n".join(_strip(line.text) for line in doc)


def _fill(line: _Line, depth: int) -> Doc:
    """Break a too-long line greedily: at each break, go on to a new line when the text up to
    the next break of the same or an outer group does not fit (with room for the ` \\`). The
    lines of a group go on one indent deeper than the line where the group began."""
    tokens: list = []  # text, ("break", level) or ("open", level)
    pos = 0
    for mo in _MARK.finditer(line.text):
        tokens += [line.text[pos:mo.start()], ("break" if mo.group(1) == "\x00" else "open",
                                                int(mo.group(2)))]
        pos = mo.end()
    tokens.append(line.text[pos:])
    base = len(INDENT) * (depth + line.depth)
    out: list[tuple[int, str]] = []
    indent, text, starts = 0, "", {0: 0}
    for k, token in enumerate(tokens):
        if isinstance(token, str):
            text += token
            continue
        kind, level = token
        if kind == "open":
            starts[level] = indent
            continue
        ahead, more = _ahead(tokens, k, level)
        column = base + len(INDENT) * indent + len(text)
        continued = starts.get(level, 0) + 1
        too_long = column + 1 + ahead + (2 if more else 0) > WIDTH
        if too_long and base + len(INDENT) * continued < column:
            out.append((indent, text + " \\"))
            indent, text = continued, ""
        else:
            text += " "
    out.append((indent, text))
    doc = [replace(line, text=out[0][1], can_trail=len(out) == 1 and line.can_trail,
                   opens=len(out) == 1 and line.opens)]
    for k, (indent, text) in enumerate(out[1:], 2):
        last = k == len(out)
        doc.append(_Line(text, line.depth + indent, opens=last and line.opens,
                         can_precede=False, can_trail=last and line.can_trail))
    return doc


def _ahead(tokens: list, k: int, level: int) -> tuple[int, bool]:
    """Width of the text after break ``k`` up to the next break of the same or an outer group,
    and whether such a break follows."""
    width = 0
    for token in tokens[k + 1:]:
        if isinstance(token, str):
            width += len(token)
        elif token[0] == "break":
            if token[1] <= level:
                return width, True
            width += 1
    return width, False


def _resolve(doc: Doc, depth: int, breakable: bool = True) -> Doc:
    """Lay out the break places of a construct rendered at ``depth``: filled when it is one line
    that is too long, else each a plain space."""
    if (breakable and len(doc) == 1 and "\x00" in doc[0].text
            and len(INDENT) * (depth + doc[0].depth) + len(_strip(doc[0].text)) > WIDTH):
        return _fill(doc[0], depth)
    return [replace(line, text=_strip(line.text)) for line in doc]


def _nest(doc: Doc, depth: int) -> Doc:
    return [replace(line, depth=line.depth + depth) for line in doc]


def _anchor(doc: Doc, node, first_only_spans_all: bool = True) -> Doc:
    """Mark the source lines of a construct: its first line starts it, its last line ends it."""
    span = getattr(node, "span", None)
    if span is None or not doc:
        return doc
    doc = list(doc)
    head = doc[0]
    last = head.last
    if first_only_spans_all and all(line.first is None for line in doc[1:]):
        last = span.end_line  # a line (with continuations) that stands for the whole construct
    doc[0] = replace(head, first=span.line, last=_hi(last, span.line))
    doc[-1] = replace(doc[-1], last=_hi(doc[-1].last, span.end_line))
    return doc


# ------------------------------------------------------------------------------ source facts
class _Source:
    """Layout facts read from the source text: blank lines, own-line comments, keyword lines."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.masked = _STRING_OR_COMMENT.sub(lambda mo: " " * len(mo.group(0)), text)
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def _offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def _line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def blank(self, line: int) -> bool:
        return 1 <= line <= len(self.lines) and not self.lines[line - 1].strip()

    def own_line(self, line: int, column: int) -> bool:
        return not self.lines[line - 1][: column - 1].strip()

    def find(self, pattern: str, after, before=None) -> int | None:
        """The line of the first match of ``pattern`` between two (line, column) positions."""
        if after is None:
            return None
        start = self._offset(*after)
        end = self._offset(*before) if before is not None else len(self.masked)
        mo = re.compile(pattern).search(self.masked, start, end)
        return self._line_at(mo.start()) if mo else None

    def find_last(self, char: str, before) -> int | None:
        """The line of the last ``char`` strictly before a (line, column) position."""
        if before is None:
            return None
        index = self.masked.rfind(char, 0, self._offset(*before))
        return self._line_at(index) if index >= 0 else None



class _SpanFacts:
    """Stand-in when no source text is given: a line where no node starts or ends and no comment
    sits is taken as blank; keyword lines that carry no span are unknown."""

    def __init__(self, program, comment_lines=()):
        self.comment_lines = set(comment_lines)
        self.code_from: dict[int, int] = {}
        stack = [program] if program is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, A.Node):
                if node.span is not None:
                    s = node.span
                    self._mark(s.line, s.column)
                    self._mark(s.end_line, s.end_column - 1)
                stack.extend(getattr(node, name) for name in type(node).model_fields)

    def _mark(self, line, column):
        self.code_from[line] = min(column, self.code_from.get(line, column))

    def blank(self, line: int) -> bool:
        return line not in self.code_from and line not in self.comment_lines

    def own_line(self, line: int, column: int) -> bool:
        return self.code_from.get(line, column) >= column

    def find(self, pattern, after, before=None):
        return None

    def find_last(self, char, before):
        return None


def _start(node):
    return (node.span.line, node.span.column) if node is not None and node.span else None


def _end(node):
    return (node.span.end_line, node.span.end_column) if node is not None and node.span else None


def _closing(node):
    """Position of the closing `}` that ends a node."""
    if node is None or node.span is None:
        return None
    return (node.span.end_line, node.span.end_column - 1)


# ---------------------------------------------------------------------------------- printer
def _level(e) -> int:
    if e.kind in ("conditional", "match"):  # an operand `(match ...) + 1` keeps its parentheses
        return COND
    if e.kind == "binary":
        return _BINARY_LEVEL[e.op]
    if e.kind == "unary":
        return NOT if e.op == "not" else NEG
    if e.kind == "int" and e.value < 0:
        return NEG
    if e.kind in ("field", "index", "call"):
        return POSTFIX
    return ATOM


def _place(node) -> str:
    """`at top` / `at bottom` when the statement does not put the value where it goes anyway."""
    default = type(node).model_fields["place"].default
    return f" at {node.place}" if node.place is not None and node.place != default else ""


def _first_word(doc: Doc) -> str:
    mo = re.match(r"\w+", _strip(doc[0].text))
    return mo.group(0) if mo else ""


def _guard(doc: Doc, words: set[str]) -> Doc:
    """Parenthesize an expression whose first word would be read as a keyword of the clause."""
    return _cat("(", doc, ")") if _first_word(doc) in words else doc


_FROM_SPAN = object()


class _Printer:
    def __init__(self, facts):
        self.src = facts
        self.inline_only = False
        self._group = 0  # nesting of the break group being rendered (0: the statement)

    # ------------------------------------------------------------------ expressions
    def expr(self, e, min_level: int = 0) -> Doc:
        doc = getattr(self, "_e_" + e.kind)(e)
        return _cat("(", doc, ")") if _level(e) < min_level else doc

    def _many(self, node, items, after=None) -> bool:
        """Whether items were written one a line: the first one below the opening bracket
        (found after ``after``). A line continued with `\\` never starts that way."""
        if self.inline_only or not items or node.span is None or items[0].span is None:
            return False
        opener = self.src.find(r"[\[{]", after or _start(node))
        if opener is None:
            opener = after[0] if after else node.span.line
        return items[0].span.line > opener

    def _e_int(self, e):
        return [_Line(str(e.value))]

    def _e_str(self, e):
        return [_Line(_text(e.value))]

    def _e_template(self, e):
        return [_Line(self.template(e))]

    def template(self, t: A.Template) -> str:
        out = []
        inline, self.inline_only = self.inline_only, True
        try:
            for part in t.parts:
                if part.kind == "text_part":
                    out.append(_escape(part.text))
                else:
                    out.append("{" + _flat(self.expr(part.expr)) + "}")  # its strings as written
        finally:
            self.inline_only = inline
        return '"' + "".join(out) + '"'

    def _e_bool(self, e):
        return [_Line("true" if e.value else "false")]

    def _e_none(self, e):
        return [_Line("none")]

    def _e_name(self, e):
        return [_Line(e.id)]

    def _e_field(self, e):
        return _cat(self.expr(e.obj, POSTFIX), "." + e.name)

    def _e_index(self, e):
        return _cat(self.expr(e.obj, POSTFIX), "[", self._exprs(e.indices), "]")

    def _e_call(self, e):
        return _cat(e.func + "(", self._exprs(e.args), ")")

    def _exprs(self, exprs) -> Doc:
        """Values separated by commas, with a place to break after each comma."""
        if len(exprs) < 2:
            return _join([self.expr(x) for x in exprs])
        return self._nested(lambda group: _join([self.expr(x) for x in exprs],
                                                "," + _brk(group)))

    def _e_unary(self, e):
        if e.op == "not":
            return _cat("not ", self.expr(e.operand, NOT))
        return _cat("-", self.expr(e.operand, NEG))

    def _e_binary(self, e):
        level = _BINARY_LEVEL[e.op]
        if level in _CHAINS:
            return self._chain(e, level)
        if e.op == "..":  # written tight, so operands with operators keep their parentheses
            return _cat(self.expr(e.left, NEG), "..", self.expr(e.right, NEG))
        left = level + 1 if level in _NON_ASSOCIATIVE else level
        return _cat(self.expr(e.left, left), f" {e.op} ", self.expr(e.right, level + 1))

    def _nested(self, render: Callable[[int], Doc]) -> Doc:
        """Render a break group one level deeper than the one around it."""
        group = self._group = self._group + 1
        try:
            return _cat(_open(group), render(group))
        finally:
            self._group = group - 1

    def _chain(self, e, level) -> Doc:
        """`a or b or c`: one group whose breaks come before each operator."""
        operands, ops = [], []
        node = e
        while node.kind == "binary" and _BINARY_LEVEL[node.op] == level:
            operands.append(node.right)
            ops.append(node.op)
            node = node.left
        operands.append(node)

        def render(group):
            parts: list = [self.expr(operands[-1], level)]
            for op, operand in zip(reversed(ops), reversed(operands[:-1])):
                parts += [f"{_brk(group)}{op} ", self.expr(operand, level + 1)]
            return _cat(*parts)
        return self._nested(render)

    def _e_conditional(self, e):
        """`if a then b else if c then d else f`: one group, breaks before `then` and `else`.
        A branch that is an `and`/`or` chain keeps its parentheses, so that `else (a or b)`
        is not read as `(if ... else a) or b`."""
        def render(group):
            parts: list = []
            node = e
            while node.kind == "conditional":
                parts += ["if ", self.expr(node.test, OR), f"{_brk(group)}then ",
                          self.expr(node.then, NOT), f"{_brk(group)}else "]
                node = node.otherwise
            return _cat(*parts, self.expr(node, NOT))
        return self._nested(render)

    def binding(self, b: A.Binding) -> Doc:
        return _cat(f"{b.name} in ", self.expr(b.source))

    def _where(self, where) -> Doc:
        return _cat(_brk(self._group) + "where ", self.expr(where)) if where is not None else []

    def keys(self, keys) -> Doc:
        docs = []
        for k in keys:
            if k.kind == "random_key":
                docs.append([_Line("random")])
            else:
                direction = " descending" if k.descending else " ascending" if k.ascending else ""
                docs.append(_cat(self.expr(k.expr), direction))
        if len(docs) < 2:
            return _join(docs)
        return self._nested(lambda group: _join(docs, "," + _brk(group)))

    def _e_list(self, e):
        return self._container("[", [self.expr(x) for x in e.items], e.items, "]", e,
                               self._many(e, e.items))

    def _bindings(self, bindings) -> Doc:
        return _join([self.binding(b) for b in bindings])

    def _e_list_comp(self, e):
        return self._nested(lambda group: _cat(
            "[", self.expr(e.element), _brk(group) + "for ",
            self._bindings([e.binding, *e.more]), self._where(e.where), "]"))

    def _e_aggregate(self, e):
        return self._nested(lambda group: _cat(
            e.func + "(", self.expr(e.element), _brk(group) + "for ",
            self._bindings([e.binding, *e.more]), self._where(e.where), ")"))

    def _e_quantifier(self, e):
        return self._nested(lambda group: _cat(e.func + "(", self.binding(e.binding),
                                               self._where(e.where), ")"))

    def _e_sole(self, e):
        keys = [self.expr(k) for k in e.keys]
        return self._nested(lambda group: _cat(
            e.func + "(", self.binding(e.binding), self._where(e.where), _brk(group) + "by ",
            _join(keys, "," + _brk(group)), ")"))

    def _e_sort(self, e):
        return self._nested(lambda group: _cat("sort(", self.binding(e.binding),
                                               _brk(group) + "by ", self.keys(e.keys), ")"))

    def _e_match(self, e):
        cases = []
        for case in e.cases:
            value = [_Line("else")] if case.value is None else self.expr(case.value)
            cases.append(_cat(value, ": ", self.expr(case.result)))
        many = self._many(e, e.cases, _end(e.subject))
        return _cat("match ", self.expr(e.subject), self._container(" {", cases, e.cases, "}", e,
                                                                    many))

    def _e_map_lit(self, e):
        entries = [_cat(self.expr(x.key), ": ", self.expr(x.value)) for x in e.entries]
        many = self._many(e, e.entries)
        return _cat("map", self._container(" {", entries, e.entries, "}", e, many))

    def _e_record_lit(self, e):
        fields = [_cat(f.name + ": ", self.expr(f.value)) for f in e.fields]
        many = self._many(e, e.fields)
        return _cat("new " + e.record, self._container(" {", fields, e.fields, "}", e, many))

    def _container(self, open_, docs, nodes, close, node, many: bool) -> Doc:
        """Items between brackets: inline, or one per line when the source had them so."""
        brace = open_.strip() == "{"
        if not docs:
            return [_Line(open_ + close)]
        if not many:
            pad = " " if brace else ""
            if len(docs) < 2:
                return _cat(open_ + pad, _join(docs), pad + close)
            return self._nested(lambda group: _cat(open_ + pad, _join(docs, "," + _brk(group)),
                                                   pad + close))
        out = [_Line(open_, first=node.span.line, last=node.span.line, opens=True)]
        for i, (doc, item) in enumerate(zip(docs, nodes)):
            doc = _anchor(_cat(doc, "," if i < len(docs) - 1 else ""), item, False)
            out.extend(_nest(doc, 1))
        out.append(_Line(close, first=node.span.end_line, last=node.span.end_line, closes=True))
        return out

    # ------------------------------------------------------------------ lines and blocks
    def line(self, node, depth: int, doc: Doc) -> Doc:
        """A statement or declaration written on one line (or continued with `\\`)."""
        if node.kind in _CITABLE_LINES:
            doc = _cat(doc, self.meta(node.meta))
        return _nest(_anchor(_resolve(doc, depth), node), depth)

    def braced(self, node, depth: int, header: Doc, inner: Doc, after=None,
               closer_at=None, first=_FROM_SPAN, breakable: bool = True) -> Doc:
        """``header {`` + inner lines + ``}``; ``after`` is where to look for the `{`, ``first``
        the source line of the header when it is not where the node starts."""
        header = _resolve(_cat(header, " {"), depth, breakable)
        if first is _FROM_SPAN:
            first = node.span.line if node.span else None
        opener = self.src.find(r"\{", after or _start(node))
        if opener is None and not isinstance(self.src, _Source):
            opener = _hi(first, after[0] if after else None)
        header[0] = replace(header[0], first=_lo(first, header[0].first))
        head_first = header[0].first
        if opener is not None:
            if len(header) == 1 or all(line.first is None for line in header[1:]):
                header[0] = replace(header[0], last=opener)
            header[-1] = replace(header[-1], last=_hi(header[-1].last, opener))
        elif len(header) == 1 and head_first is not None:
            header[0] = replace(header[0], last=_hi(header[0].last, head_first))
        header[-1] = replace(header[-1], opens=True)
        end = closer_at if closer_at is not None else (node.span.end_line if node.span else None)
        closer = _Line("}", depth, end, end, closes=True)
        return _nest(header, depth) + inner + [closer]

    # ------------------------------------------------------------------ meta and types
    @staticmethod
    def meta(m: A.Meta) -> str:
        parts = [f"{_brk(0)}cite {_plain(c)}" for c in m.cite]
        if m.assumed is not None:
            parts.append(f"{_brk(0)}assumed {_plain(m.assumed)}")
        return "".join(parts)

    def type(self, t) -> str:
        if t.kind == "named_type":
            return t.name
        if t.kind == "optional_type":
            return t.name + "?"
        if t.kind == "list_type":
            return "list of " + self.type(t.element)
        if t.kind == "deck_type":
            return "deck of " + self.type(t.element)
        if t.kind == "map_type":
            return f"map of {self.type(t.key)} to {self.type(t.value)}"
        return f"grid {self.inline(t.rows, ADD)} by {self.inline(t.columns, ADD)} of " + \
            self.type(t.element)

    def inline(self, e, min_level: int = 0) -> str:
        """An expression on one line, as a type's size is written."""
        inline, self.inline_only = self.inline_only, True
        try:
            return _flat(self.expr(e, min_level))
        finally:
            self.inline_only = inline

    # ------------------------------------------------------------------ statements
    def stmts(self, body, depth: int) -> Doc:
        out: Doc = []
        for s in body:
            out.extend(getattr(self, "_s_" + s.kind)(s, depth))
        return out

    def block(self, node, depth, header: Doc, body, after=None, breakable=True) -> Doc:
        return self.braced(node, depth, header, self.stmts(body, depth + 1), after=after,
                           breakable=breakable)

    def _s_let(self, s, d):
        return self.line(s, d, _cat(f"let {s.name} = ", self.expr(s.value)))

    def _s_set(self, s, d):
        return self.line(s, d, _cat("set ", self.expr(s.target), " = ", self.expr(s.value)))

    def _s_change(self, s, d):
        return self.line(s, d, _cat(f"{s.op} ", self.expr(s.target), " by ", self.expr(s.amount)))

    def _s_move(self, s, d):
        if s.what == "all":
            what = [_Line("all")]
        elif s.what == "top":
            what = _cat("top ", self.expr(s.item))
        else:
            what = _guard(self.expr(s.item), {"top", "all"})
        source = _cat(f"{_brk(0)}from ", self.expr(s.source)) if s.source is not None else ""
        return self.line(s, d, _cat("move ", what, source,
                                    f"{_brk(0)}to ", self.expr(s.dest), _place(s)))

    def _s_move_pieces(self, s, d):
        if s.amount == "all":
            what = [_Line("all")]
        elif s.amount == "up_to":
            what = _cat("up to ", self.expr(s.count))
        else:
            what = _guard(self.expr(s.count), {"all"})
        return self.line(s, d, _cat("move ", what, f" {s.pieces}{_brk(0)}from ",
                                    self.expr(s.source), f"{_brk(0)}to ", self.expr(s.dest)))

    def _s_add(self, s, d):
        return self.line(s, d, _cat("add ", self.expr(s.value), " to ", self.expr(s.dest),
                                    _place(s)))

    def _s_remove(self, s, d):
        return self.line(s, d, _cat("remove ", self.expr(s.value), " from ",
                                    self.expr(s.source)))

    def _s_slide(self, s, d):
        return self.line(s, d, _cat("slide ", self.expr(s.target), f" {s.toward}"))

    def _s_shuffle(self, s, d):
        return self.line(s, d, _cat("shuffle ", self.expr(s.target)))

    def _s_if(self, s, d):
        first = s.branches[0]
        out = self.block(s, d, _cat("if ", self.expr(first.test), self.meta(s.meta)),
                         first.body, after=_end(first.test))
        out.pop()  # the closing `}` begins the `else` line
        previous = first
        for branch in s.branches[1:]:
            part = self.braced(branch, d, _cat("} else if ", self.expr(branch.test),
                                               self.meta(branch.meta)),
                               self.stmts(branch.body, d + 1), after=_end(branch.test),
                               first=self._else_line(previous, s, branch))
            out.extend(self._else_part(part))
            previous = branch
        if s.otherwise is not None:
            part = self.braced(s, d, [_Line("} else")], self.stmts(s.otherwise, d + 1),
                               after=self._after_body(previous),
                               first=self._else_line(previous, s, None))
            out.extend(self._else_part(part))
        end = s.span.end_line if s.span else None
        out.append(_Line("}", d, end, end, closes=True))
        return out

    @staticmethod
    def _else_part(part: Doc) -> Doc:
        part[0] = replace(part[0], closes=True)
        return part[:-1]

    @staticmethod
    def _after_body(branch):
        return _end(branch.body[-1]) if branch.body else _end(branch.test)

    def _else_line(self, branch, if_node, next_branch):
        found = self.src.find(r"(?<!\w)else(?!\w)", self._after_body(branch), _end(if_node))
        if found is not None or isinstance(self.src, _Source):
            return found
        if next_branch is not None:
            return next_branch.test.span.line if next_branch.test.span else None
        after = self._after_body(branch)
        return None if after is None else after[0] + (1 if branch.body else 0)

    def _s_for(self, s, d):
        return self.block(s, d, _cat("for ", self.binding(s.binding), self._where(s.where),
                                     self.meta(s.meta)),
                          s.body, after=_end(s.where or s.binding))

    def _s_repeat(self, s, d):
        return self.block(s, d, _cat("repeat ", self.expr(s.count), " times" + self.meta(s.meta)),
                          s.body, after=_end(s.count))

    def _s_while(self, s, d):
        return self.block(s, d, _cat("while ", self.expr(s.test), self.meta(s.meta)), s.body,
                          after=_end(s.test))

    def _s_choose(self, s, d):
        prompt = " " + self.template(s.prompt) if s.prompt is not None else ""
        flags = (" optional" if s.optional else "") + (" confirm" if s.confirm else "")
        head = _cat("repeat choose " if s.repeat else "choose ", self.expr(s.player),
                    prompt + flags + self.meta(s.meta))
        inner: Doc = []
        for option in s.options:
            inner.extend(self._option(option, d + 1))
        if s.otherwise is not None:
            after = _end(s.options[-1]) if s.options else _end(s.prompt or s.player)
            inner.extend(self._closing_block(s, d, "otherwise", s.otherwise, after))
        return self.braced(s, d, head, inner, after=_end(s.prompt or s.player))

    def _closing_block(self, s, d, word: str, body, after):
        """The last block inside a statement's braces, opened by its own word (`otherwise` of
        a `choose`, `start over` of a `compose`)."""
        line = self.src.find(rf"(?<!\w){word.split()[0]}(?!\w)", after, _end(s))
        closer = self.src.find_last("}", _closing(s))
        if not isinstance(self.src, _Source) and s.span is not None:
            line = after[0] + 1 if after else s.span.line + 1
            closer = s.span.end_line - 1
        return self.braced(s, d + 1, [_Line(word)], self.stmts(body, d + 2),
                           after=None if line is None else (line, 1), closer_at=closer,
                           first=line)

    def _s_compose(self, s, d):
        prompt = " " + self.template(s.prompt) if s.prompt is not None else ""
        parts: list = ["compose ", self.expr(s.player), prompt]
        if s.showing:
            parts += [f"{_brk(0)}showing ", _join([self.expr(e) for e in s.showing])]
        parts.append(self.meta(s.meta))
        anchor = s.showing[-1] if s.showing else (s.prompt or s.player)
        inner: Doc = []
        for step in s.steps:
            inner.extend(self._compose_step(step, d + 1))
        if s.start_over is not None:
            after = _end(s.steps[-1]) if s.steps else _end(anchor)
            inner.extend(self._closing_block(s, d, "start over", s.start_over, after))
        return self.braced(s, d, _cat(*parts), inner, after=_end(anchor))

    def _compose_step(self, step, d):
        prompt = " " + self.template(step.prompt) if step.prompt is not None else ""
        head = _cat(f"step {step.name}{prompt}{_brk(0)}until ", self.expr(step.until),
                    self.meta(step.meta))
        inner: Doc = []
        for option in step.options:
            inner.extend(self._option(option, d + 1))
        return self.braced(step, d, head, inner, after=_end(step.until))

    def _option(self, o, d):
        """An option's header breaks, when too long, before `where` and before `label`."""
        parts: list = ["option " + o.name]
        if o.bindings:
            parts += [" for ", _join([self.binding(b) for b in o.bindings])]
        if o.where is not None:
            parts += [f"{_brk(0)}where ", self.expr(o.where)]
        if o.label is not None:
            parts.append(f"{_brk(0)}label " + self.template(o.label))
        parts.append(self.meta(o.meta))
        anchor = o.label or o.where or (o.bindings[-1] if o.bindings else None)
        return self.block(o, d, _cat(*parts), o.body, after=_end(anchor))

    def _s_simultaneously(self, s, d):
        return self.block(s, d, _cat("simultaneously for ", self.binding(s.binding),
                                     self.meta(s.meta)), s.body, after=_end(s.binding))

    def _s_turns(self, s, d):
        return self.block(s, d, _cat("turns ", self.binding(s.binding),
                                     " until all passed" + self.meta(s.meta)),
                          s.body, after=_end(s.binding))

    def _s_turns_from(self, s, d):
        # an `if`/`match` between `then` and `until` keeps its parentheses: it reads as one value
        head = _cat(f"turns {s.name} from ", self.expr(s.start, COND + 1), " then ",
                    self.expr(s.then, COND + 1), " until ", self.expr(s.until), self.meta(s.meta))
        return self.block(s, d, head, s.body, after=_end(s.until))

    def _s_match_stmt(self, s, d):
        inner: Doc = []
        for arm in s.arms:
            head = _cat(self.expr(arm.value), ":") if arm.value is not None else [_Line("else:")]
            inner.extend(self.block(arm, d + 1, head, arm.body, after=_end(arm.value)))
        return self.braced(s, d, _cat("match ", self.expr(s.subject), self.meta(s.meta)), inner,
                           after=_end(s.subject))

    def _s_rotate(self, s, d):
        return self.line(s, d, _cat(f"rotate {s.name} among ", self.expr(s.among)))

    def _s_cited(self, s, d):
        return self.block(s, d, [_Line(self.meta(s.meta).lstrip())], s.body)

    def _s_phase(self, s, d):
        when = _cat(" when ", self.expr(s.when)) if s.when else []
        return self.block(s, d, _cat("phase " + s.name, when, self.meta(s.meta)), s.body,
                          after=_end(s.when))

    def _s_step(self, s, d):
        return self.block(s, d, [_Line(f"step {s.name}{self.meta(s.meta)}")], s.body)

    def _s_rounds(self, s, d):
        if s.mode == "forever":
            head = [_Line("rounds" + self.meta(s.meta))]
        elif s.mode == "until":
            head = _cat("rounds until ", self.expr(s.expr), self.meta(s.meta))
        else:
            head = _cat("rounds ", _guard(self.expr(s.expr), {"until"}), self.meta(s.meta))
        return self.block(s, d, head, s.body, after=_end(s.expr))

    def _s_turn(self, s, d):
        return self.block(s, d, _cat("turn ", self.expr(s.player), self.meta(s.meta)), s.body,
                          after=_end(s.player))

    def _s_end_game(self, s, d):
        return self.line(s, d, [_Line("end game")])

    def _s_stop(self, s, d):
        return self.line(s, d, [_Line("stop")])

    def _s_pass(self, s, d):
        return self.line(s, d, [_Line("pass")])

    def _s_log(self, s, d):
        to = _cat(" to ", self.expr(s.to)) if s.to is not None else []
        return self.line(s, d, _cat("log " + self.template(s.message), to))

    def _s_reveal(self, s, d):
        to = _cat(" to ", self.expr(s.to)) if s.to else []
        return self.line(s, d, _cat("reveal ", self.expr(s.target), to,
                                    " until changed" if s.until_changed else ""))

    def _s_hide(self, s, d):
        return self.line(s, d, _cat("hide ", self.expr(s.target)))

    def _s_trigger(self, s, d):
        return self.line(s, d, _cat(f"trigger {s.event}(", self._exprs(s.args), ")"))

    def _s_do(self, s, d):
        return self.line(s, d, _cat(f"do {s.name}(", self._exprs(s.args), ")"))

    def _s_require(self, s, d):
        return self.line(s, d, _cat("require ", self.expr(s.test),
                                    _brk(0) + self.template(s.message)))

    def _s_award(self, s, d):
        head = _cat("award ", self.expr(s.amounts), " among ", self.binding(s.binding),
                    self._where(s.where), f"{_brk(0)}by ", self.keys(s.keys),
                    f" ties {s.ties}" + self.meta(s.meta))
        return self.block(s, d, head, s.body, after=_end(s.keys[-1]))

    # ------------------------------------------------------------------ declarations
    def item(self, node) -> Doc:
        if node.kind == "override":
            doc = self.item(node.declaration)
            doc[0] = replace(doc[0], text="override " + doc[0].text)
            return doc
        return getattr(self, "_d_" + node.kind)(node)

    def _header_fields(self, h) -> Doc:
        inner: Doc = []
        opener = self._opener(h)
        after = None if opener is None else (opener, 1)
        if h.min_players is not None:
            count = str(h.min_players)
            if h.max_players is not None and h.max_players != h.min_players:
                count += f" to {h.max_players}"
            at = self._guess(self.src.find(r"(?<!\w)players(?!\w)", after, _end(h)), opener, 1)
            inner.append(_Line("players " + count, 1, at, at))
        if h.source is not None:
            at = self._guess(self.src.find(r"(?<!\w)source(?!\w)", after, _end(h)), opener,
                             1 + len(inner))
            inner.append(_Line("source " + _plain(h.source), 1, at, at))
        return inner

    def _opener(self, node) -> int | None:
        """The line of the `{` that opens a declaration's body."""
        found = self.src.find(r"\{", _start(node))
        if found is None and not isinstance(self.src, _Source) and node.span is not None:
            return node.span.line
        return found

    def _guess(self, found, opener, offset):
        """Without source text, an unspanned line is taken to sit where canonical form puts it."""
        if found is not None or isinstance(self.src, _Source) or opener is None:
            return found
        return opener + offset

    def _d_game(self, h):
        head = [_Line(f"game {_plain(h.title)}{self.meta(h.meta)}")]
        return self.braced(h, 0, head, self._header_fields(h))

    def _d_variant(self, h):
        head = [_Line(f"variant {_plain(h.title)} extends {_plain(h.extends)}{self.meta(h.meta)}")]
        return self.braced(h, 0, head, self._header_fields(h))

    def _d_enum(self, e):
        members = [m.name + (" " + _plain(m.label) if m.label is not None else "")
                   for m in e.members]
        return self._listing(e, f"enum {e.name}{self.meta(e.meta)}", members, e.members, ",")

    def _d_record(self, r):
        fields = [f"{f.name}: {self.type(f.type)}" for f in r.fields]
        show = f" show {_flat(self.expr(r.show))}" if r.show is not None else ""
        return self._listing(r, f"record {r.name}{show}{self.meta(r.meta)}", fields, r.fields, "")

    def _listing(self, node, head: str, items: list[str], nodes, line_end: str) -> Doc:
        """``head { a, b }`` when it was written on one line and fits; else one item a line."""
        inline = f"{head} {{ {', '.join(items)} }}"
        if items and not self._many(node, nodes) and len(_strip(inline)) <= WIDTH:
            return self.line(node, 0, [_Line(inline)])
        inner = [_Line(text + (line_end if i < len(items) - 1 else ""), 1,
                       item.span and item.span.line, item.span and item.span.end_line)
                 for i, (text, item) in enumerate(zip(items, nodes))]
        return self.braced(node, 0, [_Line(head)], inner)

    def _d_table(self, t):
        cells = [list(t.columns)] + [[self._cell(v, col == A.ROW_KEY)
                                      for col, v in zip(t.columns, row.values)]
                                     for row in t.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(t.columns))]
        texts = [" | ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        opener = self._opener(t)
        after = None if opener is None else (opener + 1, 1)
        at = self._guess(self.src.find(r"\w", after, _end(t)), opener, 1)
        inner = [_Line(texts[0], 1, at, at)]
        for text, row in zip(texts[1:], t.rows):
            inner.append(_Line(text, 1, row.span and row.span.line, row.span and row.span.end_line))
        head = f"table {t.name} of {t.record}{self.meta(t.meta)}"
        return self.braced(t, 0, [_Line(head)], inner)

    @staticmethod
    def _cell(value, word: bool = False) -> str:
        """A table value; a row's `id` is written as the bare word it is."""
        if word and isinstance(value, str) and value.isidentifier():
            return value
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        return _text(value)

    def _d_const(self, c):
        return self.line(c, 0, _cat(f"const {c.name} = ", self.expr(c.value), self.meta(c.meta)))

    def _d_component_state(self, s):
        return self._d_state(s, f"on {s.record} {s.name}")

    def _d_state(self, s, head=None):
        parts: list = [f"{head or f'{s.scope} {s.name}'}: {self.type(s.type)}"]
        if s.initial is not None:
            parts += [" = ", self.expr(s.initial)]
        if s.visibility != A.StateDecl.model_fields["visibility"].default:
            parts.append(" " + s.visibility)
        if s.public_top is not None:
            parts.append(f" top {s.public_top} public")
        if s.shape is not None:
            parts.append(f" shape {s.shape}")
        if s.at_least is not None:
            parts += [" at least ", self.expr(s.at_least)]
        if s.at_most is not None:
            parts += [" at most ", self.expr(s.at_most)]
        if s.stacked:
            parts.append(" stacked")
        if s.shown:
            parts.append(" shown")
        if s.sorted:
            parts.append(" sorted")
        if s.internal:
            parts.append(" internal")
        return self.line(s, 0, _cat(*parts, self.meta(s.meta)))

    def _d_define(self, f):
        return self.line(f, 0, _cat(f"define {f.name}({', '.join(f.params)}) = ",
                                    self.expr(f.body), self.meta(f.meta)))

    def _d_procedure(self, p):
        head = [_Line(f"procedure {p.name}({', '.join(p.params)}){self.meta(p.meta)}")]
        return self.block(p, 0, head, p.body)

    def _d_setup(self, s):
        return self.block(s, 0, [_Line("setup" + self.meta(s.meta))], s.body)

    def _d_play(self, s):
        return self.block(s, 0, [_Line("play" + self.meta(s.meta))], s.body)

    def _d_scoring(self, s):
        return self.block(s, 0, [_Line("scoring" + self.meta(s.meta))], s.body)

    def _d_winner(self, w):
        return self.line(w, 0, _cat("winner ", self.binding(w.binding), " by ", self.keys(w.keys),
                                    self.meta(w.meta)))

    def _d_reaction(self, r):
        head = _cat(f"reaction {r.name} for ", _join([self.binding(b) for b in r.bindings]),
                    " as soon as ", self.expr(r.condition), self.meta(r.meta))
        return self.block(r, 0, head, r.body, after=_end(r.condition))

    def _d_event(self, e):
        head = [_Line(f"when {e.name}({', '.join(e.params)}){self.meta(e.meta)}")]
        return self.block(e, 0, head, e.body)

    def _d_modifier(self, m):
        when = _cat(" when ", self.expr(m.when)) if m.when else []
        return self.line(m, 0, _cat(f"modifier {m.name}: {m.target}({', '.join(m.params)}) "
                                    f"{m.op} ", self.expr(m.value), when, self.meta(m.meta)))

    def _d_automaton(self, a):
        inner: Doc = []
        for p in a.policies:
            keys = _cat(" by ", self.keys(p.keys)) if p.keys else []
            within = f" in {p.within}" if p.within else ""
            inner.extend(self.line(p, 1, _cat("prefer " + p.option + within, keys)))
        if a.otherwise is not None:
            o = a.otherwise
            inner.extend(self.line(o, 1, _cat(f"otherwise {o.mode}", self.meta(o.meta))))
        return self.braced(a, 0, [_Line(f"automaton {a.name}{self.meta(a.meta)}")], inner)

    def _d_invariant(self, v):
        if v.when is None:
            return self.line(v, 0, _cat(f"invariant {v.name} {_plain(v.description)}:{_brk(0)}",
                                        self.expr(v.test), self.meta(v.meta)))
        # the test goes on one indent deeper than the `when` it follows
        return self.line(v, 0, _cat(f"invariant {v.name} {_plain(v.description)}{_brk(0)}"
                                    f"{_open(1)}when ", self.expr(v.when), f":{_brk(1)}",
                                    self.expr(v.test), self.meta(v.meta)))

    def _d_pieces(self, v):
        per = " per player" if v.per_player else ""
        return self.line(v, 0, _cat(f"pieces {v.name}: ", self.expr(v.total, ADD),
                                    f"{per}, starting in {v.start}", self.meta(v.meta)))

    def _d_step_patch(self, p):
        when = _cat(" when ", self.expr(p.when)) if p.when else []
        return self.block(p, 0, _cat(f"{p.mode} step {p.step}", when, self.meta(p.meta)), p.body,
                          after=_end(p.when))

    # ------------------------------------------------------------------ scenarios
    def _d_scenario(self, s):
        inner: Doc = []
        for item in s.items:
            inner.extend(getattr(self, "_sc_" + item.kind.removeprefix("sc_"))(item, 1))
        return self.braced(s, 0, [_Line(f"scenario {_plain(s.name)}{self.meta(s.meta)}")], inner)

    def _sc_ruleset(self, i, d):
        return self.line(i, d, [_Line("ruleset " + _plain(i.path))])

    def _sc_variant(self, i, d):
        return self.line(i, d, [_Line("variant " + _plain(i.name))])

    def _sc_players(self, i, d):
        return self.line(i, d, [_Line(f"players {i.count}")])

    def _sc_seed(self, i, d):
        return self.line(i, d, [_Line(f"seed {i.seed}")])

    def _sc_seeds(self, i, d):
        return self.line(i, d, [_Line(f"seeds {i.first}..{i.last}")])

    def _sc_let(self, i, d):
        return self.line(i, d, _cat(f"let {i.name} = ", self.expr(i.value)))

    def _sc_given(self, i, d):
        return self.block(i, d, [_Line("given")], i.body)

    def _decider(self, i) -> Doc:
        return [_Line("pending")] if i.player is None else self.expr(i.player)

    def _sc_choose(self, i, d):
        return self.line(i, d, _cat("choose ", self._decider(i), " ", self.expr(i.option)))

    def _sc_refuse(self, i, d):
        return self.line(i, d, _cat("refuse ", self._decider(i), " ", self.expr(i.option),
                                    _message(i.message)))

    def _sc_expect(self, i, d):
        test = _guard(self.expr(i.test), {"option", "options", "no", "log", "error", "hidden",
                                          "visible", "sometimes"})
        if i.at_least is None and i.at_most is None:
            return self.line(i, d, _cat("expect ", test, _message(i.message)))
        if i.at_least == 1 and i.at_most is None:
            return self.line(i, d, _cat("expect sometimes ", test, _message(i.message)))
        if i.at_most is None:
            count = f"at least {i.at_least}"
        elif i.at_least is None:
            count = f"at most {i.at_most}"
        else:
            count = f"{i.at_least} to {i.at_most}"
        return self.line(i, d, _cat("expect ", test, f" on {count} seeds",
                                    _message(i.message)))

    def _sc_expect_option(self, i, d):
        word = "expect option " if i.present else "expect no option "
        return self.line(i, d, _cat(word, self.expr(i.player), " ", self.expr(i.option),
                                    _message(i.message)))

    def _sc_expect_options(self, i, d):
        return self.line(i, d, _cat("expect options ", self.expr(i.player, POSTFIX), f" {i.op} ",
                                    self.expr(i.value), _message(i.message)))

    def _sc_expect_log(self, i, d):
        word = "expect log " if i.present else "expect no log "
        to = _cat(" to ", self.expr(i.to)) if i.to is not None else ""
        return self.line(i, d, _cat(word, self.expr(i.text), to, _message(i.message)))

    def _sc_expect_error(self, i, d):
        return self.line(i, d, [_Line("expect error " + _plain(i.text))])

    def _sc_expect_visibility(self, i, d):
        word = ("expect visible " if i.visible else "expect hidden ") + ("shape " if i.shape else "")
        target = _guard(self.expr(i.target), {"shape"})  # a value named `shape`, not the word
        return self.line(i, d, _cat(word, target, " to ", self.expr(i.viewer),
                                    _message(i.message)))

    def _sc_play_to_end(self, i, d):
        return self.line(i, d, [_Line("play to end with " + i.agent)])

    def _sc_play_until(self, i, d):
        return self.line(i, d, _cat("play until ", self.expr(i.test), " with " + i.agent))


def _message(message: str | None) -> Doc | str:
    """The explanation some scenario items end with."""
    return _brk(0) + _plain(message) if message is not None else ""


# ---------------------------------------------------------------------------- comment weaving
@dataclass
class _Placed:
    before: list  # own-line comments printed before the line
    after: list  # comments at the end of the line


def _weave(lines: Doc, item_starts: dict[int, bool], comments, facts) -> str:
    placed = [_Placed([], []) for _ in lines]
    tail: list = []
    for line_no, column, text in sorted(comments):
        comment = (line_no, text.rstrip())
        if facts.own_line(line_no, column):
            index = _own_line_target(lines, line_no)
            if index is None:
                tail.append(comment)
                continue
            placed[index].before.append(comment)
        else:
            index = _trailing_target(lines, line_no)
            if index is None:
                tail.append(comment)
                continue
            placed[index].after.append(comment)
    for i, p in enumerate(placed):
        if len(p.after) > 1:  # one comment fits at the end of a line; the others go before it
            j = i
            while j > 0 and not lines[j].can_precede:
                j -= 1
            placed[j].before.extend(p.after[:-1])
            placed[j].before.sort()
            p.after = p.after[-1:]
    return _render(lines, placed, tail, item_starts, facts)


def _own_line_target(lines: Doc, line_no: int) -> int | None:
    index = None
    for i, line in enumerate(lines):  # inside a construct now printed on one line
        if line.first is not None and line.last is not None and line.first < line_no <= line.last:
            index = i
            break
    if index is None:
        index = next((i for i, line in enumerate(lines)
                      if line.first is not None and line.first > line_no), None)
    if index is None:
        return None
    while index > 0 and not lines[index].can_precede:
        index -= 1
    return index


def _trailing_target(lines: Doc, line_no: int) -> int | None:
    index = None
    for i, line in enumerate(lines):
        if line.first is not None and line.first <= line_no <= _hi(line.last, line.first):
            index = i
    if index is None:
        index = max((i for i, line in enumerate(lines)
                     if line.first is not None and line.first <= line_no), default=None)
    if index is None:
        return None
    while not lines[index].can_trail and index + 1 < len(lines):
        index += 1
    return index


def _render(lines, placed, tail, item_starts, facts) -> str:
    rows: list[list] = []  # [code, comment at its end or None]; [""] is a blank line
    prev_end: int | None = None
    prev_opens = True  # nothing before the first line: no blank line

    def emit(code, comment, start, end, opens, closes, forced):
        nonlocal prev_end, prev_opens
        if rows and not prev_opens and not closes:
            gap = (prev_end is not None and start is not None
                   and any(facts.blank(n) for n in range(prev_end + 1, start)))
            if forced or gap:
                rows.append(["", None])
        rows.append([code, comment])
        prev_end, prev_opens = end, opens

    for i, (line, p) in enumerate(zip(lines, placed)):
        forced = item_starts.get(i, False)
        comment_depth = line.depth + 1 if line.closes else line.depth
        for line_no, text in p.before:
            emit(INDENT * comment_depth + text, None, line_no, line_no, False, False, forced)
            forced = False
        code = INDENT * line.depth + line.text
        comment = p.after[0][1] if p.after else None
        end = _hi(line.last, p.after[0][0] if p.after else None)
        if not line.can_precede:  # a continuation: never a blank line before it
            rows.append([code, comment])
            prev_end, prev_opens = _hi(prev_end, end), line.opens
            continue
        emit(code, comment, line.first, end, line.opens, line.closes, forced)
    for line_no, text in tail:
        emit(text, None, line_no, line_no, False, False, False)
    _align_comments(rows)
    return "".join((code + ("  " + comment if comment else "")).rstrip() + "\n"
                   for code, comment in rows)


def _align_comments(rows: list[list]) -> None:
    """Comments at the end of consecutive lines start in one column."""
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j][1] is not None:
            j += 1
        if j - i > 1:
            column = max(len(rows[k][0]) for k in range(i, j))
            for k in range(i, j):
                rows[k][0] = rows[k][0].ljust(column)
        i = j + 1
