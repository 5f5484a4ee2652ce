"""What each grammar rule matched to the typed AST: one method per rule (found by its name),
called as grammar/lalr.py reduces the rule.

Nodes are built without pydantic validation (`_new`): the builder gives every field its type, and
the whole tree is checked against the JSON Schema right after parsing.
"""
from __future__ import annotations

import bisect
import copy
import re
from contextvars import ContextVar

from lark import Token
from lark.exceptions import UnexpectedInput
from pydantic import BaseModel

from . import ast as A
from .source import MAX_STATEMENT_TOKENS, StatementTooLong


# The file being read: every span names it (set by the parser around one file's build).
READING: ContextVar[str | None] = ContextVar("rulebook_reading", default=None)


def _span(where) -> A.Span | None:
    """The span of what a rule matched: `where` is (start, end, line starts) of its text, the
    offsets -1 when it matched nothing."""
    start, end, lines = where
    if start < 0:
        return None
    line = _line_of(lines, start)
    end_line = _line_of(lines, end)
    return _span_at(line, start - lines[line - 1] + 1, end_line, end - lines[end_line - 1] + 1)


_line_of = bisect.bisect_right  # the 1-based line of an offset, given where each line starts


def _tok_span(tok: Token) -> A.Span:
    return _span_at(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column)


def _span_at(line, column, end_line, end_column) -> A.Span:
    """`_new(A.Span, ...)` with every field given (one per node: made directly)."""
    span = _make(_Span)
    _set_dict(span, {"line": line, "column": column, "end_line": end_line,
                     "end_column": end_column, "file": READING.get()})
    _set_fields_set(span, A.SPAN_FIELDS_SET)  # (shared: see there)
    _set_extra(span, None)
    _set_private(span, None)
    return span


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "{": "\\{", "}": "\\}"}


def _new(cls, **fields):
    """Build a node without pydantic validation: the builder already produces the right types,
    and the whole tree is checked against the JSON Schema right after parsing.

    The same object as ``cls.model_construct(**fields)`` (fields in declaration order, defaults
    for those not given, only the given ones marked as set), made without its per-call look-ups:
    a file builds tens of thousands of nodes."""
    template, names, special, filled = _PLANS.get(cls) or _plan_of(cls)
    values = template.copy()  # every field in its declared order, its default if shared
    values.update(fields)
    if len(values) == len(template):
        given = set(fields)
    else:  # a name that is no field: model_construct ignores it
        values = {name: value for name, value in values.items() if name in names}
        given = fields.keys() & names
    if not filled <= given:
        for name, how, default in special:
            if name not in given:
                if how is _REQUIRED:
                    del values[name]  # left out, as model_construct leaves it
                else:
                    values[name] = how(default, values)
    node = _make(cls)
    _set_dict(node, values)
    _set_fields_set(node, given)
    _set_extra(node, None)
    _set_private(node, None)
    return node


_make = object.__new__
# What `object.__setattr__` finds for pydantic's slots, found once.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_Span = A.Span


def _set_field(node, name: str, value) -> None:
    """`node.name = value` as pydantic does it (the node is not frozen, validates no assignment),
    without its per-call look-ups."""
    node.__dict__[name] = value
    node.__pydantic_fields_set__.add(name)


def _empty_list(default, values):
    return []


def _fresh_model(default, values):
    """A copy of a default that is a model of plain values and empty lists (`Meta()`), as
    pydantic's deep copy of the default makes it."""
    fields = {name: [] if value.__class__ is list else value
              for name, value in default.__dict__.items()}
    copy_ = _make(default.__class__)
    _set_dict(copy_, fields)
    _set_fields_set(copy_, set(default.__pydantic_fields_set__))
    _set_extra(copy_, None)
    _set_private(copy_, None)
    return copy_


def _plain_model(value) -> bool:
    """Whether `_fresh_model` copies `value` as a deep copy would."""
    return (isinstance(value, BaseModel) and value.__pydantic_extra__ is None
            and value.__pydantic_private__ is None
            and all(v is None or type(v) in (bool, int, str, float)
                    or (type(v) is list and not v) for v in value.__dict__.values()))


_REQUIRED = object()
_PLANS: dict[type, tuple] = {}


def _plan_of(cls) -> tuple:
    """How `_new` fills the fields of `cls`: (every field with its shared default or a
    placeholder, in order; the field names; (name, how, default) of those without one, `how`
    _REQUIRED or a function of (default, values) that gives a fresh default; their names)."""
    if cls.__pydantic_post_init__ or cls.__pydantic_root_model__ \
            or cls.model_config.get("extra") == "allow":
        raise TypeError(f"{cls.__name__} needs pydantic's own model_construct")
    template, special = {}, []
    for name, field in cls.__pydantic_fields__.items():
        if field.alias is not None or field.validation_alias is not None \
                or getattr(field, "default_factory_takes_data", False):
            raise TypeError(f"{cls.__name__}.{name} needs pydantic's own model_construct")
        default = field.default
        template[name] = None
        if field.is_required():
            special.append((name, _REQUIRED, None))
        elif field.default_factory is None and (default is None or type(default) in (
                bool, int, str, float, tuple, frozenset)):
            template[name] = default
        elif field.default_factory is None and type(default) is list and not default:
            special.append((name, _empty_list, default))
        elif field.default_factory is None and _plain_model(default):
            special.append((name, _fresh_model, default))
        else:
            special.append((name, _asked(field), None))
    plan = _PLANS[cls] = (template, frozenset(template), tuple(special),
                          frozenset(name for name, _, _ in special))
    return plan


def _asked(field):
    def default(_, values):
        return field.get_default(call_default_factory=True, validated_data=values)
    return default


class _Block(list):
    """A list of statements (distinguishable from other children)."""


class _Bindings(list):
    pass


class _MetaItem(tuple):
    pass


class _Keys(list):
    pass


def unescape(tok: Token) -> str:
    """The text of a string read without holes (a title, a cite, an id): escapes resolved,
    `\\{` and `\\}` included."""
    return _plain(_unescape(str(tok)[1:-1], tok))


def _unescape(body: str, tok: Token) -> str:
    if "\\" not in body:  # nothing to resolve: the text is the body (most strings)
        return _without_control(body, tok)
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and i + 2 < len(body) and body[i + 2] == "{":
                end = body.find("}", i + 3)
                if end != -1:
                    code = body[i + 3 : end]
                    try:
                        if not 1 <= len(code) <= 6:
                            raise ValueError(code)
                        char = chr(int(code, 16))
                    except (ValueError, OverflowError):
                        raise _BuildError("E0104", f"invalid unicode escape `\\u{{{code[:12]}}}`",
                                          tok, "write \\u{XXXX} with 1 to 6 hexadecimal digits")
                    if 0xD800 <= ord(char) <= 0xDFFF:
                        raise _BuildError("E0104", f"`\\u{{{code}}}` is half of a UTF-16 pair, "
                                          "not a character", tok,
                                          "write the character's own code point, like \\u{1F600}")
                    out.append(char)
                    i = end + 1
                    continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            raise _BuildError("E0104", f"unknown escape `\\{nxt}` in a string", tok,
                              'use \\n, \\t, \\", \\\\, \\{, \\} or \\u{XXXX}')
        out.append(ch)
        i += 1
    return _without_control("".join(out), tok)


def _without_control(text: str, tok: Token) -> str:
    control = _CONTROL.search(text)
    if control:
        raise _BuildError("E0104", f"a string holds the control character "
                          f"U+{ord(control.group()):04X}", tok,
                          "strings may hold \\n and \\t but no other control characters: "
                          "they would act on the terminal that shows them")
    return text


# Control characters other than newline and tab: shown on a terminal they move the cursor,
# clear the screen or change colours, so rules cannot put them in texts.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ESCAPE_OR_HOLE = re.compile(r"[\\{]")

MAX_LITERAL = 2 ** 53  # the engine's largest number (interpreter Limits.max_number)


def integer(tok: Token) -> int:
    """A whole number as written; longer than any number the engine can hold is an error."""
    text = str(tok)
    if len(text) > 16 or int(text) > MAX_LITERAL:
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise _BuildError("E0122", f"the number {shown} is too large (limit {MAX_LITERAL:,})",
                          tok, "numbers in rules stay below 2^53, about 9 million billion")
    return int(text)


class _BuildError(Exception):
    def __init__(self, code, message, tok, hint=None):
        self.code, self.message, self.tok, self.hint = code, message, tok, hint


def _plain(s: str) -> str:
    return s.replace("\\{", "{").replace("\\}", "}")


def make_template(tok: Token) -> A.Template:
    """Split a string into text and ``{expression}`` parts. A hole may hold strings of its own
    (`"{if won then "won" else "lost"}"`); braces inside those do not end it."""
    body = str(tok)[1:-1]
    parts: list = []
    text_start = i = 0

    def text_part(end: int) -> None:
        if end > text_start:
            text = _plain(_unescape(body[text_start:end], tok))
            parts.append(_new(A.TextPart, kind="text_part", text=text, span=_tok_span(tok)))

    while True:
        found = _ESCAPE_OR_HOLE.search(body, i)
        if found is None:
            break
        i = found.start()
        if body[i] == "\\":  # an escape belongs to the text, `\\u{...}` with its braces
            close = body.find("}", i) if body.startswith("u{", i + 1) else -1
            i = close + 1 if close != -1 else i + 2
            continue
        end = _hole_end(body, i)
        if end == -1:
            raise _BuildError("E0105", "a `{` in this string is never closed", tok,
                              "close the hole with `}` or write `\\{` for a literal brace")
        text_part(i)
        expr = _hole(body[i + 1 : end], tok)
        parts.append(_new(A.ExprPart, kind="expr_part", expr=expr, span=_tok_span(tok)))
        i = text_start = end + 1
    text_part(len(body))
    if not parts:
        parts.append(_new(A.TextPart, kind="text_part", text="", span=_tok_span(tok)))
    return _new(A.Template, kind="template", parts=parts, span=_tok_span(tok))


def _hole_end(body: str, start: int) -> int:
    """Where the hole opened at `start` closes (-1: never), skipping the strings inside it."""
    j = start + 1
    while j < len(body):
        c = body[j]
        if c == '"':
            j += 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
        elif c == "}":
            return j
        j += 1
    return -1


# Hole text -> its expression as first built. Strings repeat the same holes (`{p}`, `{n}`), and
# parsing even a one-word expression costs a parser's start-up; each use gets its own copy.
_HOLES: dict[str, A.Node] = {}
MAX_HOLES = 20_000


def _hole(source: str, tok: Token) -> A.Node:
    """The expression in a `{hole}` of a string, located at the string itself."""
    expr = _HOLES.get(source)
    if expr is None:
        from .parser import _parse  # import late

        try:
            expr = _parse(source, "expr")
        except UnexpectedInput:
            raise _BuildError("E0105", f"`{{{source}}}` in this string is not an expression",
                              tok, "write a valid expression between the braces")
        except StatementTooLong:
            raise _BuildError("E0007", f"an expression in this string is longer than "
                              f"{MAX_STATEMENT_TOKENS:,} words and symbols", tok,
                              "compute it with `let` or a `define` and put the name in the hole")
        if len(_HOLES) >= MAX_HOLES:
            _HOLES.clear()
        _HOLES[source] = expr
    return _respanned(expr, tok)


def _respanned(value, tok):
    """A copy of an expression whose every node is located at `tok` (each with its own span),
    as setting each node's span would leave it; the original is left as it was."""
    if isinstance(value, A.Node):
        values = {name: _respanned(v, tok) if name != "span" else None
                  for name, v in value.__dict__.items()}
        values["span"] = _tok_span(tok)
        node = _make(type(value))
        _set_dict(node, values)
        _set_fields_set(node, value.__pydantic_fields_set__ | {"span"})
        _set_extra(node, value.__pydantic_extra__)
        _set_private(node, value.__pydantic_private__)
        return node
    if isinstance(value, list):
        return type(value)(_respanned(v, tok) for v in value)
    if isinstance(value, BaseModel):
        return copy.deepcopy(value)
    return value


def _split_meta(children):
    cite, assumed, rest = [], None, []
    for c in children:
        if isinstance(c, _MetaItem):
            if c[0] == "cite":
                cite.append(c[1])
            else:
                assumed = c[1]
        else:
            rest.append(c)
    return _new(A.Meta, cite=cite, assumed=assumed), rest


def _name(tok) -> str:
    return str(tok)


def _lit_value(node):
    if isinstance(node, A.IntLit):
        return node.value
    if isinstance(node, A.StrLit):
        return node.value
    if isinstance(node, A.Template):
        return "".join(p.text for p in node.parts if isinstance(p, A.TextPart))
    if isinstance(node, A.BoolLit):
        return node.value
    return None


class _Builder:
    """Builds AST nodes from what a grammar rule matched: one method per rule, called with the
    rule's children (built values and tokens, as Lark's parse tree would hold them) and where
    its text is (`(start, end, line starts)`, which `_span` reads as the tree's `meta`)."""

    def __default__(self, data, children, meta):
        raise _BuildError("E0199", f"internal: no builder for `{data}`", None)

    # One-line statements that may end with `cite "..."` (and `assumed "..."`).
    _CITABLE = frozenset({
        "add_stmt", "call_stmt", "change_stmt", "end_stmt", "hide_stmt", "let_stmt", "log_stmt",
        "move_stmt", "move_pieces_stmt", "remove_stmt", "require_stmt", "reveal_stmt", "set_stmt",
        "shuffle_stmt", "trigger_stmt", "rotate_stmt", "slide_stmt",
    })

    def method(self, data: str):
        """The function that builds rule `data`'s value from (children, meta)."""
        f = getattr(self, data, None)
        if f is None:
            return lambda children, meta: self.__default__(data, children, meta)
        if data in self._CITABLE:
            def cited(children, meta):
                citations, children = _split_meta(children)
                node = f(children, meta)
                _set_field(node, "meta", citations)
                return node
            return cited
        return f

    # --- top level
    def start(self, c, m):
        prog = _new(A.Program, kind="program", span=_span(m))
        for item in c:
            if item is None:
                continue
            if isinstance(item, (A.GameHeader, A.VariantHeader)):
                if prog.header is not None:
                    raise _BuildError("E0110", "a file has only one `game` or `variant` header",
                                      _NodeLoc(item), "remove the second header")
                prog.header = item
            elif isinstance(item, (A.Override, A.StepPatch)):
                prog.overrides.append(item)
            elif isinstance(item, A.Scenario):
                prog.scenarios.append(item)
            else:
                prog.declarations.append(item)
        return prog

    def header(self, c, m):
        return c[0]

    def _header_fields(self, fields):
        out = {}
        for f in fields:
            out[f[0]] = f[1]
        return out

    def game_header(self, c, m):
        meta, rest = _split_meta(c)
        title = unescape(rest[0])
        f = self._header_fields(rest[1:])
        lo, hi = f.get("players", (None, None))
        if lo is None:
            raise _BuildError("E0111", "the game header must say how many players: `players 3 to 5`",
                              rest[0], "add a line `players N` or `players N to M` in the header")
        return _new(A.GameHeader, kind="game", title=title, min_players=lo, max_players=hi,
                    source=f.get("source"), meta=meta, span=_span(m))

    def variant_header(self, c, m):
        meta, rest = _split_meta(c)
        f = self._header_fields(rest[2:])
        lo, hi = f.get("players", (None, None))
        return _new(A.VariantHeader, kind="variant", title=unescape(rest[0]), extends=unescape(rest[1]),
                    min_players=lo, max_players=hi, source=f.get("source"), meta=meta,
                    span=_span(m))

    def players_field(self, c, m):
        lo = integer(c[0])
        hi = integer(c[1]) if c[1] is not None else lo
        return ("players", (lo, hi))

    def source_field(self, c, m):
        return ("source", unescape(c[0]))

    def cite_clause(self, c, m):
        return _MetaItem(("cite", unescape(c[0])))

    def assumed_clause(self, c, m):
        return _MetaItem(("assumed", unescape(c[0])))

    # --- declarations
    def enum_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.EnumDecl, kind="enum", name=_name(rest[0]), members=rest[1:], meta=meta,
                    span=_span(m))

    def enum_member(self, c, m):
        return _new(A.EnumMember, kind="enum_member", name=_name(c[0]),
                    label=unescape(c[1]) if c[1] is not None else None, span=_span(m))

    def record_decl(self, c, m):
        meta, rest = _split_meta(c)
        show = make_template(rest[1]) if rest[1] is not None else None
        return _new(A.RecordDecl, kind="record", name=_name(rest[0]), show=show,
                    fields=[f for f in rest[2:] if f is not None], meta=meta,
                    span=_span(m))

    def field_decl(self, c, m):
        return _new(A.FieldDecl, kind="field_decl", name=_name(c[0]), type=c[1], span=_span(m))

    def table_decl(self, c, m):
        meta, rest = _split_meta(c)
        name, record, header, *rows = rest
        for row in rows:
            if len(row.values) != len(header):
                raise _BuildError(
                    "E0120",
                    f"this row has {len(row.values)} values but the table has {len(header)} columns",
                    _NodeLoc(row), f"give one value for each column: {' | '.join(header)}")
        return _new(A.TableDecl, kind="table", name=_name(name), record=_name(record), columns=header,
                    rows=rows, meta=meta, span=_span(m))

    def table_header(self, c, m):
        return [_name(t) for t in c]

    def table_row(self, c, m):
        for v in c:
            if isinstance(v, A.Template):
                raise _BuildError("E0121", "a table cell is a plain value; `{...}` holes are not "
                                  "allowed in it", _NodeLoc(v), "write `\\{` for a brace")
        return _new(A.TableRow, kind="row", values=[_lit_value(v) for v in c], span=_span(m))

    def const_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.ConstDecl, kind="const", name=_name(rest[0]), value=rest[1], meta=meta,
                    span=_span(m))

    def state_decl(self, c, m):
        meta, rest = _split_meta(c)
        scope, name, typ, initial, *opts = rest
        kw = {}
        for o in opts:
            kw[o[0]] = o[1]
        return _new(A.StateDecl, kind="state", scope=str(scope), name=_name(name), type=typ,
                    initial=initial, meta=meta, span=_span(m), **kw)

    def component_state_decl(self, c, m):
        meta, rest = _split_meta(c)
        record, name, typ, initial, *opts = rest
        return _new(A.ComponentStateDecl, kind="component_state", record=_name(record),
                    name=_name(name), type=typ, initial=initial, meta=meta, span=_span(m),
                    **dict(opts))

    def visibility_option(self, c, m):
        return ("visibility", str(c[0]))

    def public_top_option(self, c, m):
        return ("public_top", integer(c[0]))

    def shape_option(self, c, m):
        if str(c[0]) == "owner":
            raise _BuildError("E0229", "a value's shape is `public` or `secret`, not `owner`",
                              c[0], "its owner sees the whole value: write `shape public` or "
                              "`shape secret`")
        return ("shape", str(c[0]))

    def min_option(self, c, m):
        return ("at_least", c[0])

    def max_option(self, c, m):
        return ("at_most", c[0])

    def stacked_option(self, c, m):
        return ("stacked", True)

    def shown_option(self, c, m):
        return ("shown", True)

    def sorted_option(self, c, m):
        return ("sorted", True)

    def internal_option(self, c, m):
        return ("internal", True)

    def params(self, c, m):
        return [_name(t) for t in c]

    def define_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.DefineDecl, kind="define", name=_name(rest[0]), params=rest[1] or [],
                    body=rest[2], meta=meta, span=_span(m))

    def procedure_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.ProcedureDecl, kind="procedure", name=_name(rest[0]), params=rest[1] or [],
                    body=rest[2], meta=meta, span=_span(m))

    def setup_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.SetupDecl, kind="setup", body=rest[0], meta=meta, span=_span(m))

    def play_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.PlayDecl, kind="play", body=rest[0], meta=meta, span=_span(m))

    def scoring_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.ScoringDecl, kind="scoring", body=rest[0], meta=meta, span=_span(m))

    def winner_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.WinnerDecl, kind="winner", binding=rest[0], keys=rest[1:], meta=meta,
                    span=_span(m))

    def reaction_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.ReactionDecl, kind="reaction", name=_name(rest[0]), bindings=rest[1],
                    condition=rest[2], body=rest[3], meta=meta, span=_span(m))

    def event_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.EventDecl, kind="event", name=_name(rest[0]), params=rest[1] or [], body=rest[2],
                    meta=meta, span=_span(m))

    def modifier_decl(self, c, m):
        meta, rest = _split_meta(c)
        name, target, params, op, value, when = rest
        return _new(A.ModifierDecl, kind="modifier", name=_name(name), target=_name(target),
                    params=params or [], op=str(op), value=value, when=when,
                    meta=meta, span=_span(m))

    def automaton_decl(self, c, m):
        meta, rest = _split_meta(c)
        otherwise = rest.pop() if rest and (rest[-1] is None
                                            or isinstance(rest[-1], A.AutomatonOtherwise)) else None
        return _new(A.AutomatonDecl, kind="automaton", name=_name(rest[0]), policies=rest[1:],
                    otherwise=otherwise, meta=meta, span=_span(m))

    def _otherwise(self, c, m, mode: str):
        meta, _ = _split_meta(c)
        return _new(A.AutomatonOtherwise, kind="automaton_otherwise", mode=mode, meta=meta,
                    span=_span(m))

    def otherwise_first(self, c, m):
        return self._otherwise(c, m, "first")

    def otherwise_random(self, c, m):
        return self._otherwise(c, m, "random")

    def otherwise_error(self, c, m):
        return self._otherwise(c, m, "error")

    def policy(self, c, m):
        within = _name(c[1]) if c[1] is not None else None
        return _new(A.Policy, kind="policy", option=_name(c[0]), within=within,
                    keys=[k for k in c[2:] if k is not None], span=_span(m))

    def invariant_decl(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.InvariantDecl, kind="invariant", name=_name(rest[0]),
                    description=unescape(rest[1]), when=rest[2], test=rest[3], meta=meta,
                    span=_span(m))

    def pieces_decl(self, c, m):
        meta, rest = _split_meta(c)
        name, total, per_player, start = rest
        return _new(A.PiecesDecl, kind="pieces", name=_name(name), total=total,
                    per_player=per_player is not None, start=_name(start), meta=meta,
                    span=_span(m))

    def override_decl(self, c, m):
        return _new(A.Override, kind="override", declaration=c[0], span=_span(m))

    def _step_patch(self, mode, c, m):
        meta, rest = _split_meta(c)
        return _new(A.StepPatch, kind="step_patch", mode=mode, step=_name(rest[0]), when=rest[1],
                    body=rest[2], meta=meta, span=_span(m))

    def override_step(self, c, m):
        return self._step_patch("override", c, m)

    def before_step(self, c, m):
        return self._step_patch("before", c, m)

    def after_step(self, c, m):
        return self._step_patch("after", c, m)

    # --- types
    def named_type(self, c, m):
        return _new(A.NamedType, kind="named_type", name=_name(c[0]), span=_span(m))

    def optional_type(self, c, m):
        return _new(A.OptionalType, kind="optional_type", name=_name(c[0]), span=_span(m))

    def list_type(self, c, m):
        return _new(A.ListType, kind="list_type", element=c[0], span=_span(m))

    def deck_type(self, c, m):
        return _new(A.DeckType, kind="deck_type", element=c[0], span=_span(m))

    def map_type(self, c, m):
        return _new(A.MapType, kind="map_type", key=c[0], value=c[1], span=_span(m))

    def map_lit(self, c, m):
        return _new(A.MapLit, kind="map_lit", entries=[e for e in c if e is not None],
                    span=_span(m))

    def map_entry(self, c, m):
        return _new(A.MapEntry, kind="map_entry", key=c[0], value=c[1], span=_span(m))

    def grid_type(self, c, m):
        return _new(A.GridType, kind="grid_type", rows=c[0], columns=c[1],
                    element=c[2], span=_span(m))

    # --- statements
    def block(self, c, m):
        return _Block(x for x in c if x is not None)

    def let_stmt(self, c, m):
        return _new(A.Let, kind="let", name=_name(c[0]), value=c[1], span=_span(m))

    def set_stmt(self, c, m):
        return _new(A.Set, kind="set", target=c[0], value=c[1], span=_span(m))

    def change_stmt(self, c, m):
        return _new(A.Change, kind="change", op=str(c[0]), target=c[1], amount=c[2], span=_span(m))

    def move_stmt(self, c, m):
        what, item = c[0]
        place = str(c[3]) if c[3] is not None else None
        return _new(A.Move, kind="move", what=what, item=item, source=c[1], dest=c[2], place=place,
                    span=_span(m))

    def move_all(self, c, m):
        return ("all", None)

    def move_one(self, c, m):
        return ("one", c[0])

    def move_top(self, c, m):
        return ("top", c[0])

    def move_pieces_stmt(self, c, m):
        amount, count = c[0]
        return _new(A.MovePieces, kind="move_pieces", amount=amount, count=count,
                    pieces=_name(c[1]), source=c[2], dest=c[3], span=_span(m))

    def exact_pieces(self, c, m):
        return ("exactly", c[0])

    def up_to_pieces(self, c, m):
        return ("up_to", c[1])

    def all_pieces(self, c, m):
        return ("all", None)

    def add_stmt(self, c, m):
        return _new(A.Add, kind="add", value=c[0], dest=c[1], place=str(c[2]) if c[2] is not None else None,
                    span=_span(m))

    def remove_stmt(self, c, m):
        return _new(A.Remove, kind="remove", value=c[0], source=c[1], span=_span(m))

    def shuffle_stmt(self, c, m):
        return _new(A.Shuffle, kind="shuffle", target=c[0], span=_span(m))

    def slide_stmt(self, c, m):
        return _new(A.Slide, kind="slide", target=c[0], toward=str(c[1]), span=_span(m))

    def if_stmt(self, c, m):
        # children: test, metas, block, then per `else if`: test, metas, block; then a block
        parts: list[tuple] = []  # (test, meta items, block)
        otherwise = None
        i = 0
        while i < len(c):
            if isinstance(c[i], _Block):
                otherwise = c[i]
                i += 1
                continue
            test, i = c[i], i + 1
            metas = []
            while isinstance(c[i], _MetaItem):
                metas.append(c[i])
                i += 1
            parts.append((test, metas, c[i]))
            i += 1
        meta, _ = _split_meta(parts[0][1])
        branches = [_new(A.Branch, kind="branch", test=parts[0][0], body=parts[0][2],
                         span=_span(m))]
        for test, metas, body in parts[1:]:
            branches.append(_new(A.Branch, kind="branch", test=test, body=body,
                                 meta=_split_meta(metas)[0], span=test.span))
        return _new(A.If, kind="if", branches=branches, otherwise=otherwise, meta=meta, span=_span(m))

    def for_stmt(self, c, m):
        meta, (binding, where, body) = _split_meta(c)
        return _new(A.For, kind="for", binding=binding, where=where, body=body, meta=meta,
                    span=_span(m))

    def repeat_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Repeat, kind="repeat", count=rest[0], body=rest[1], meta=meta,
                    span=_span(m))

    def while_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.While, kind="while", test=rest[0], body=rest[1], meta=meta, span=_span(m))

    def choose_stmt(self, c, m):
        meta, rest = _split_meta(c)
        player = rest[0]
        prompt, optional, confirm, options, otherwise = None, False, False, [], None
        for x in rest[1:]:
            if isinstance(x, Token) and x.type == "STRING":
                prompt = make_template(x)
            elif isinstance(x, Token) and x.type == "OPTIONAL":
                optional = True
            elif isinstance(x, Token) and x.type == "CONFIRM":
                confirm = True
            elif isinstance(x, A.Option):
                options.append(x)
            elif isinstance(x, tuple) and x and x[0] == "otherwise":
                otherwise = x[1]
        return _new(A.Choose, kind="choose", player=player, prompt=prompt, optional=optional,
                    confirm=confirm, options=options, otherwise=otherwise, meta=meta,
                    span=_span(m))

    def repeat_choose_stmt(self, c, m):
        choose = c[0]
        choose.repeat = True
        choose.span = _span(m)
        return choose

    def option(self, c, m):
        meta, (name, bindings, where, label, body) = _split_meta(c)
        return _new(A.Option, kind="option", name=_name(name), bindings=list(bindings or []),
                    where=where, label=make_template(label) if label is not None else None,
                    body=body, meta=meta, span=_span(m))

    def otherwise(self, c, m):
        return ("otherwise", c[0])

    def compose_stmt(self, c, m):
        meta, rest = _split_meta(c)
        player, prompt, showing, steps, start_over = rest[0], None, [], [], None
        for x in rest[1:]:
            if isinstance(x, Token) and x.type == "STRING":
                prompt = make_template(x)
            elif isinstance(x, A.ComposeStep):
                steps.append(x)
            elif isinstance(x, tuple) and x and x[0] == "start_over":
                start_over = x[1]
            elif isinstance(x, list):
                showing = x
        return _new(A.Compose, kind="compose", player=player, prompt=prompt, showing=showing,
                    steps=steps, start_over=start_over, meta=meta, span=_span(m))

    def compose_step(self, c, m):
        meta, rest = _split_meta(c)
        name, prompt, until = rest[0], rest[1], rest[2]
        return _new(A.ComposeStep, kind="compose_step", name=_name(name),
                    prompt=make_template(prompt) if prompt is not None else None, until=until,
                    options=[x for x in rest[3:] if isinstance(x, A.Option)], meta=meta,
                    span=_span(m))

    def start_over(self, c, m):
        return ("start_over", c[0])

    def simultaneous_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Simultaneously, kind="simultaneously", binding=rest[0], body=rest[1], meta=meta,
                    span=_span(m))

    def turns_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Turns, kind="turns", binding=rest[0], body=rest[1], meta=meta, span=_span(m))

    def turns_from_stmt(self, c, m):
        meta, (name, start, then, until, body) = _split_meta(c)
        return _new(A.TurnsFrom, kind="turns_from", name=_name(name), start=start, then=then,
                    until=until, body=body, meta=meta, span=_span(m))

    def phase_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Phase, kind="phase", name=_name(rest[0]), when=rest[1], body=rest[2], meta=meta,
                    span=_span(m))

    def step_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Step, kind="step", name=_name(rest[0]), body=rest[1], meta=meta, span=_span(m))

    def rounds_forever(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Rounds, kind="rounds", mode="forever", body=rest[0], meta=meta, span=_span(m))

    def rounds_until(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Rounds, kind="rounds", mode="until", expr=rest[0], body=rest[1], meta=meta,
                    span=_span(m))

    def rounds_count(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Rounds, kind="rounds", mode="count", expr=rest[0], body=rest[1], meta=meta,
                    span=_span(m))

    def turn_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Turn, kind="turn", player=rest[0], body=rest[1], meta=meta, span=_span(m))

    def end_stmt(self, c, m):
        return _new(A.EndGame, kind="end_game", span=_span(m))

    def stop_stmt(self, c, m):
        return _new(A.Stop, kind="stop", span=_span(m))

    def pass_stmt(self, c, m):
        return _new(A.Pass, kind="pass", span=_span(m))

    def log_stmt(self, c, m):
        return _new(A.Log, kind="log", message=make_template(c[0]), to=c[1], span=_span(m))

    def reveal_stmt(self, c, m):
        return _new(A.Reveal, kind="reveal", target=c[0], to=c[1],
                    until_changed=c[2] is not None, span=_span(m))

    def hide_stmt(self, c, m):
        return _new(A.Hide, kind="hide", target=c[0], span=_span(m))

    def trigger_stmt(self, c, m):
        return _new(A.Trigger, kind="trigger", event=_name(c[0]), args=c[1] or [], span=_span(m))

    def award_stmt(self, c, m):
        meta, rest = _split_meta(c)
        amounts, binding, where, *tail = rest
        keys = [k for k in tail if isinstance(k, (A.SortKey, A.RandomKey))]
        ties = next(str(t) for t in tail if isinstance(t, Token))
        body = tail[-1]
        return _new(A.Award, kind="award", amounts=amounts, binding=binding, where=where, keys=keys,
                    ties=ties, body=body, meta=meta, span=_span(m))

    def call_stmt(self, c, m):
        return _new(A.CallProcedure, kind="do", name=_name(c[0]), args=c[1] or [], span=_span(m))

    def require_stmt(self, c, m):
        return _new(A.Require, kind="require", test=c[0], message=make_template(c[1]), span=_span(m))

    def match_stmt(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.MatchStmt, kind="match_stmt", subject=rest[0], arms=rest[1:], meta=meta,
                    span=_span(m))

    def match_arm(self, c, m):
        return _new(A.MatchArm, kind="match_arm", value=c[0], body=c[1], span=_span(m))

    def else_arm(self, c, m):
        return _new(A.MatchArm, kind="match_arm", value=None, body=c[0], span=_span(m))

    def rotate_stmt(self, c, m):
        return _new(A.Rotate, kind="rotate", name=_name(c[0]), among=c[1], span=_span(m))

    def cited_block(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Cited, kind="cited", body=rest[0], meta=meta, span=_span(m))

    def bindings(self, c, m):
        return _Bindings(c)

    def binding(self, c, m):
        return _new(A.Binding, kind="binding", name=_name(c[0]), source=c[1], span=_span(m))

    # --- expressions
    def cond_expr(self, c, m):
        return _new(A.Conditional, kind="conditional", test=c[0], then=c[1], otherwise=c[2],
                    span=_span(m))

    def _bin(self, op, left, right, m):
        return _new(A.Binary, kind="binary", op=op, left=left, right=right, span=_span(m))

    def or_(self, c, m):
        return self._bin("or", c[0], c[1], m)

    def and_(self, c, m):
        return self._bin("and", c[0], c[1], m)

    def not_(self, c, m):
        return _new(A.Unary, kind="unary", op="not", operand=c[0], span=_span(m))

    def compare_(self, c, m):
        return self._bin(str(c[1]), c[0], c[2], m)

    def not_in(self, c, m):
        return self._bin("not in", c[0], c[1], m)

    def range_(self, c, m):
        return self._bin("..", c[0], c[1], m)

    def arith(self, c, m):
        return self._bin(str(c[1]), c[0], c[2], m)

    def neg(self, c, m):
        if isinstance(c[0], A.IntLit):
            return _new(A.IntLit, kind="int", value=-c[0].value, span=_span(m))
        return _new(A.Unary, kind="unary", op="-", operand=c[0], span=_span(m))

    def field(self, c, m):
        return _new(A.FieldAccess, kind="field", obj=c[0], name=_name(c[1]), span=_span(m))

    def index(self, c, m):
        return _new(A.Index, kind="index", obj=c[0], indices=[x for x in c[1:] if x is not None],
                    span=_span(m))

    def call(self, c, m):
        return _new(A.Call, kind="call", func=_name(c[0]), args=c[1] or [], span=_span(m))

    def aggregate_call(self, c, m):
        return _new(A.Call, kind="call", func=str(c[0]), args=c[1] or [], span=_span(m))

    def name(self, c, m):
        return _new(A.Name, kind="name", id=_name(c[0]), span=_span(m))

    def list_lit(self, c, m):
        return _new(A.ListLit, kind="list", items=[x for x in c if x is not None], span=_span(m))

    def list_comp(self, c, m):
        first, *more = c[1]
        return _new(A.ListComp, kind="list_comp", element=c[0], binding=first, more=more,
                    where=c[2], span=_span(m))

    def aggregate(self, c, m):
        first, *more = c[2]
        return _new(A.Aggregate, kind="aggregate", func=str(c[0]), element=c[1], binding=first,
                    more=more, where=c[3], span=_span(m))

    def quantifier(self, c, m):
        return _new(A.Quantifier, kind="quantifier", func=str(c[0]), binding=c[1], where=c[2],
                    span=_span(m))

    def sole(self, c, m):
        return _new(A.Sole, kind="sole", func=str(c[0]), binding=c[1], where=c[2], keys=c[3:],
                    span=_span(m))

    def sort(self, c, m):
        return _new(A.Sort, kind="sort", binding=c[0], keys=c[1:], span=_span(m))

    def match(self, c, m):
        return _new(A.Match, kind="match", subject=c[0], cases=c[1:], span=_span(m))

    def case(self, c, m):
        if len(c) == 1:
            return _new(A.MatchCase, kind="case", value=None, result=c[0], span=_span(m))
        return _new(A.MatchCase, kind="case", value=c[0], result=c[1], span=_span(m))

    def field_init(self, c, m):
        return _new(A.FieldInit, kind="field_init", name=_name(c[0]), value=c[1], span=_span(m))

    def record_lit(self, c, m):
        return _new(A.RecordLit, kind="record_lit", record=_name(c[0]),
                    fields=[f for f in c[1:] if f is not None], span=_span(m))

    def args(self, c, m):
        return list(c)

    def key(self, c, m):
        direction = str(c[1]) if c[1] is not None else None
        return _new(A.SortKey, kind="sort_key", expr=c[0], descending=direction == "descending",
                    ascending=direction == "ascending", span=_span(m))

    def random_key(self, c, m):
        return _new(A.RandomKey, kind="random_key", span=_span(m))

    def int_lit(self, c, m):
        return _new(A.IntLit, kind="int", value=integer(c[0]), span=_span(m))

    def str_lit(self, c, m):
        t = make_template(c[0])
        if len(t.parts) == 1 and isinstance(t.parts[0], A.TextPart):
            return _new(A.StrLit, kind="str", value=t.parts[0].text, span=_span(m))
        return t

    def true_lit(self, c, m):
        return _new(A.BoolLit, kind="bool", value=True, span=_span(m))

    def false_lit(self, c, m):
        return _new(A.BoolLit, kind="bool", value=False, span=_span(m))

    def none_lit(self, c, m):
        return _new(A.NoneLit, kind="none", span=_span(m))

    # --- scenarios
    def scenario(self, c, m):
        meta, rest = _split_meta(c)
        return _new(A.Scenario, kind="scenario", name=unescape(rest[0]), items=rest[1:], meta=meta,
                    span=_span(m))

    def sc_ruleset(self, c, m):
        return _new(A.ScRuleset, kind="sc_ruleset", path=unescape(c[0]), span=_span(m))

    def sc_variant(self, c, m):
        return _new(A.ScVariant, kind="sc_variant", name=unescape(c[0]), span=_span(m))

    def sc_players(self, c, m):
        return _new(A.ScPlayers, kind="sc_players", count=integer(c[0]), span=_span(m))

    def sc_seed(self, c, m):
        return _new(A.ScSeed, kind="sc_seed", seed=integer(c[0]), span=_span(m))

    def sc_seeds(self, c, m):
        return _new(A.ScSeeds, kind="sc_seeds", first=integer(c[0]), last=integer(c[1]),
                    span=_span(m))

    def sc_let(self, c, m):
        return _new(A.ScLet, kind="sc_let", name=_name(c[0]), value=c[1], span=_span(m))

    def sc_given(self, c, m):
        return _new(A.ScGiven, kind="sc_given", body=c[0], span=_span(m))

    def sc_choose(self, c, m):
        return _new(A.ScChoose, kind="sc_choose", player=_decider(c[0]), option=_text(c[1]),
                    span=_span(m))

    def sc_refuse(self, c, m):
        return _new(A.ScRefuse, kind="sc_refuse", player=_decider(c[0]), option=_text(c[1]),
                    message=_message(c[2]), span=_span(m))

    def sc_expect(self, c, m):
        return _new(A.ScExpect, kind="sc_expect", test=c[0], message=_message(c[1]),
                    span=_span(m))

    def sc_expect_sometimes(self, c, m):
        return _new(A.ScExpect, kind="sc_expect", test=c[1], message=_message(c[2]), at_least=1,
                    span=_span(m))

    def sc_expect_often(self, c, m):
        low, high = c[1]
        return _new(A.ScExpect, kind="sc_expect", test=c[0], message=_message(c[2]),
                    at_least=low, at_most=high, span=_span(m))

    def at_least_seeds(self, c, m):
        return (integer(c[0]), None)

    def at_most_seeds(self, c, m):
        return (None, integer(c[0]))

    def between_seeds(self, c, m):
        return (integer(c[0]), integer(c[1]))

    def sc_expect_option(self, c, m):
        return _new(A.ScExpectOption, kind="sc_expect_option", player=c[0], option=_text(c[1]),
                    present=True, message=_message(c[2]), span=_span(m))

    def sc_expect_no_option(self, c, m):
        return _new(A.ScExpectOption, kind="sc_expect_option", player=c[0], option=_text(c[1]),
                    present=False, message=_message(c[2]), span=_span(m))

    def sc_expect_options(self, c, m):
        return _new(A.ScExpectOptions, kind="sc_expect_options", player=c[0], op=str(c[1]),
                    value=c[2], message=_message(c[3]), span=_span(m))

    def sc_expect_log(self, c, m):
        return _new(A.ScExpectLog, kind="sc_expect_log", text=_text(c[0]), to=c[1],
                    message=_message(c[2]), span=_span(m))

    def sc_expect_no_log(self, c, m):
        return _new(A.ScExpectLog, kind="sc_expect_log", text=_text(c[0]), to=c[1],
                    present=False, message=_message(c[2]), span=_span(m))

    def sc_expect_error(self, c, m):
        return _new(A.ScExpectError, kind="sc_expect_error", text=unescape(c[0]), span=_span(m))

    def sc_expect_hidden(self, c, m):
        return self._visibility(c, m, False)

    def sc_expect_visible(self, c, m):
        return self._visibility(c, m, True)

    def sc_expect_hidden_shape(self, c, m):
        return self._visibility(c, m, False, shape=True)

    def sc_expect_visible_shape(self, c, m):
        return self._visibility(c, m, True, shape=True)

    def _visibility(self, c, m, visible: bool, shape: bool = False):
        return _new(A.ScExpectVisibility, kind="sc_expect_visibility", target=c[0], viewer=c[1],
                    visible=visible, message=unescape(c[2]) if c[2] is not None else None,
                    shape=shape, span=_span(m))

    def negative_cell(self, c, m):
        return _new(A.IntLit, kind="int", value=-integer(c[0]), span=_span(m))

    def name_cell(self, c, m):
        return _new(A.StrLit, kind="str", value=str(c[0]), span=_span(m))

    def sc_play_to_end(self, c, m):
        return _new(A.ScPlayToEnd, kind="sc_play_to_end", agent=_name(c[0]), span=_span(m))

    def sc_play_until(self, c, m):
        return _new(A.ScPlayUntil, kind="sc_play_until", test=c[0], agent=_name(c[1]),
                    span=_span(m))


def _message(tok) -> str | None:
    return unescape(tok) if tok is not None else None


def _text(tok) -> A.Node:
    """A scenario's option id or log text: a string that may hold ``{holes}``."""
    t = make_template(tok)
    if len(t.parts) == 1 and isinstance(t.parts[0], A.TextPart):
        return _new(A.StrLit, kind="str", value=t.parts[0].text, span=t.span)
    if not t.parts:
        return _new(A.StrLit, kind="str", value="", span=t.span)
    return t


def _decider(expr) -> A.Node | None:
    """`choose pending "id"`: whoever is to decide (none); any other expression is a player."""
    if isinstance(expr, A.Name) and expr.id == "pending":
        return None
    return expr


class _NodeLoc:
    """Adapter so a node can be reported like a token."""

    def __init__(self, node):
        s = node.span
        self.line, self.column = (s.line, s.column) if s else (None, None)
        self.end_line, self.end_column = (s.end_line, s.end_column) if s else (None, None)


# ------------------------------------------------------------------------------- entry points
_PLACEHOLDER = (None, -1, -1)  # the entry of a missing `[optional]` part


class InlineBuild:
    """The reductions of grammar/lalr.py's parser: each builds what the builder's method for the
    rule makes of its children, so no parse tree is built and walked again.

    Each does what Lark's own tree building does for the rule (positions as
    `propagate_positions`, anonymous tokens left out, `None` for missing `[optional]` parts,
    `_rules` inlined, `?rules` passing a single child on) and then calls the builder's method.
    The first error a method raises is kept and raised once the whole text has parsed, so a
    syntax error anywhere in the file is still the one reported, as when building followed
    parsing; after it the parse only checks syntax."""

    def __init__(self):
        self.builder = _Builder()
        self.failure: BaseException | None = None
        self.lines: list[int] = [0]  # where each line of the text being parsed starts
        self._ready = None

    def _parser(self):
        if self._ready is None:
            from .lalr import Lexers, load_tables  # (Lark's own parse, `parse_tree`, needs none)

            tables = load_tables()
            reducers = [self._reducer(shape, size) for shape, size in zip(tables.shapes,
                                                                          tables.sizes)]
            self._ready = (tables, Lexers(tables), reducers)
        return self._ready

    def parse(self, text: str, start: str):
        """Parse and build `text`; raises the parse's error, else the first build error."""
        from .lalr import run

        tables, lexers, reducers = self._parser()
        # A string's holes are parsed inside a parse: the outer one's state is put back after.
        outer = self.failure, self.lines
        self.failure, self.lines = None, [0]
        try:
            entry = run(tables, lexers, text, start, reducers, self.lines)
            failure = self.failure
        finally:
            self.failure, self.lines = outer
        if failure is not None:
            raise failure
        return entry[0]

    def _reducer(self, shape, size):
        name, inlined, expand_single, include, trailing = shape
        plain = not trailing and len(include) == size and not any(
            expand or nones for _, expand, nones in include)
        if expand_single and plain and size == 1:
            return None  # `?expr: if_expr`: the child as it is, its text the same
        method = None if inlined else self.builder.method(name)
        if not inlined and not expand_single and not trailing and not any(
                expand or nones for _, expand, nones in include):
            return self._picked(method, tuple(i for i, _, _ in include), size)
        placeholder = _PLACEHOLDER
        # `_rule*` is reduced as a list that grows by one item at a time: the list of the rule
        # reduced before is taken over (nothing else holds it), not copied.
        grows = bool(include) and include[0][1] and not include[0][2]
        rest = include[1:] if grows else include
        first_kid = include[0][0] if grows else None

        def reduce(kids):
            first, last = _covered(kids)
            if plain:
                children = kids
            else:
                children = kids[first_kid][0] if grows else []
                for i, expand, nones in rest:
                    if nones:
                        children += [placeholder] * nones
                    if expand:
                        children += kids[i][0]
                    else:
                        children.append(kids[i])
                if trailing:
                    children += [placeholder] * trailing
            if expand_single and len(children) == 1:
                child = children[0]
                if first < 0 or child is placeholder or len(child) == 4:  # nothing, or a token
                    return child
                return (child[0], first, last)  # its text now covers this rule's
            if inlined:
                return (children, first, last)
            return self._built(method, [c[0] for c in children], first, last)

        return reduce

    def _picked(self, method, picks: tuple, size: int):
        """The reduction of a rule that builds a node of some of its children as they are
        (`set_stmt: "set" target "=" expr`, `name: NAME`): the commonest kind."""
        every = picks == tuple(range(size))

        def reduce(kids):
            first, last = (kids[0][1], kids[-1][2]) if kids and kids[0][1] >= 0 \
                and kids[-1][1] >= 0 else _covered(kids)
            if self.failure is not None:
                return (None, first, last)
            try:  # (as _built does, written out: this is the commonest reduction)
                return (method([k[0] for k in kids] if every else [kids[i][0] for i in picks],
                               (first, last, self.lines)), first, last)
            except Exception as e:  # noqa: BLE001 - raised after the parse (see the class)
                self.failure = e
                return (None, first, last)

        return reduce

    def _built(self, method, values: list, first: int, last: int) -> tuple:
        """The entry of a node built by `method` (None once a build has failed: see the class)."""
        if self.failure is not None:
            return (None, first, last)
        try:
            value = method(values, (first, last, self.lines))
        except Exception as e:  # noqa: BLE001 - raised after the parse (see the class)
            self.failure = e
            value = None
        return (value, first, last)


def _covered(kids) -> tuple[int, int]:
    """Where the text of a rule's children starts and ends (-1, -1: they matched nothing)."""
    for k in kids:
        if k[1] >= 0:
            i = len(kids) - 1
            while kids[i][1] < 0:
                i -= 1
            return k[1], kids[i][2]
    return -1, -1
