"""What the editor asks, answered from the index and the AST, in plain Python values.

Positions are 0-based (line, column) as the protocol counts them; `server` turns these answers
into protocol types. Nothing here knows about the protocol, so each answer is tested directly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_FUNCTIONS, BUILTIN_VALUES, arity_text
from .index import FileIndex, Index, Symbol, Word
from .keywords import KEYWORDS


@dataclass(frozen=True)
class Place:
    """A range in a file: 0-based lines and columns, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int


def word_place(w: Word) -> Place:
    return Place(w.file, w.line, w.column, w.line, w.end_column)


def span_place(span: A.Span, file: str) -> Place:
    return Place(span.file or file, span.line - 1, span.column - 1, span.end_line - 1,
                 span.end_column - 1)


# ----------------------------------------------------------------------------- definition
def definition(index: Index, path: str, line: int, column: int) -> list[Place]:
    """Where the name under the cursor is declared (several places for event handlers and
    declarations a variant overrides)."""
    found = index.symbol_at(path, line, column)
    if found is None or found[1] is None:
        return _named_file(index, path, line, column)
    word, sym = found
    if sym.key[0] == "row":
        row = _row(index, sym.key[1], sym.key[2])
        return [span_place(row.span, path)] if row is not None and row.span else []
    return [word_place(w) for w in sym.definitions]


_FILE_NAMED = re.compile(r'\b(extends|ruleset)\s+"([^"\n]+)"')


def _named_file(index: Index, path: str, line: int, column: int) -> list[Place]:
    """The file named by `extends "..."` or a scenario's `ruleset "..."` under the cursor,
    found as the loader finds it."""
    from ..loader import named_in_tree, scenario_ruleset
    from ..validator.diagnostics import DiagnosticError

    fi = index.files.get(path)
    if fi is None or line >= len(fi.line_starts):
        return []
    for m in _FILE_NAMED.finditer(fi.text.split("\n")[line]):
        if m.start(2) - 1 <= column <= m.end(2) + 1:
            try:
                target = (named_in_tree(path, m.group(2), None, "`extends`")
                          if m.group(1) == "extends" else scenario_ruleset(path, m.group(2)))
            except DiagnosticError:
                return []
            return [Place(target, 0, 0, 0, 0)]
    return []


def references(index: Index, path: str, line: int, column: int,
               include_declaration: bool = True) -> list[Place]:
    found = index.symbol_at(path, line, column)
    if found is None or found[1] is None or found[1].key[0] == "builtin":
        return []
    sym = found[1]
    words = index.occurrences(sym) if include_declaration else sym.references
    return [word_place(w) for w in words]


# --------------------------------------------------------------------------------- rename
NAME = re.compile(r"\A(?!\d)\w+\Z")


class RenameRefused(ValueError):
    """Why a name cannot be renamed (shown to the user)."""


def rename(index: Index, path: str, line: int, column: int, new_name: str) -> dict[str, list]:
    """{file: [(place, new text)]} renaming every occurrence of the name under the cursor."""
    sym = renamable(index, path, line, column)
    if not NAME.match(new_name) or new_name in KEYWORDS:
        raise RenameRefused(f"`{new_name}` is not a name (a word of letters, digits and _ that "
                            "is not a keyword)")
    out: dict[str, list] = {}
    for w in index.occurrences(sym):
        out.setdefault(w.file, []).append((word_place(w), new_name))
    return out


def renamable(index: Index, path: str, line: int, column: int) -> Symbol:
    found = index.symbol_at(path, line, column)
    if found is None or found[1] is None:
        raise RenameRefused("no declared name here")
    sym = found[1]
    if sym.key[0] in ("builtin", "row") or not sym.definitions:
        raise RenameRefused(f"`{found[0].text}` is not declared in this ruleset's files")
    return sym


# ---------------------------------------------------------------------------------- hover
def hover(index: Index, path: str, line: int, column: int) -> tuple[str, Place] | None:
    """Markdown about the name under the cursor, and the range of the name."""
    found = index.symbol_at(path, line, column)
    if found is None or found[1] is None:
        return None
    word, sym = found
    text = describe(index, sym)
    return (text, word_place(word)) if text else None


def describe(index: Index, sym: Symbol) -> str:
    kind, name = sym.key[0], sym.key[-1]
    if kind == "builtin":
        return _builtin_doc(name)
    if kind == "row":
        return _row_doc(index, sym.key[1], name)
    if not sym.definitions:
        return ""
    first = sym.definitions[0]
    node_file = sym.node.span.file if sym.node is not None and sym.node.span else None
    fi = index.files.get(node_file) or index.files[first.file]
    parts = [_fenced(_signature(fi, sym))]
    detail = _details(index, sym)
    if detail:
        parts.append(detail)
    doc = doc_comment(fi, sym.node.span.line - 1 if sym.node is not None and sym.node.span
                      else first.line)
    if doc:
        parts.append(doc)
    meta = getattr(sym.node, "meta", None)
    if meta is not None and (meta.cite or meta.assumed):
        notes = [f"cites {', '.join(repr(c) for c in meta.cite)}"] if meta.cite else []
        if meta.assumed:
            notes.append(f"assumed: {meta.assumed}")
        parts.append("*" + "; ".join(notes) + "*")
    if len(sym.definitions) > 1:
        parts.append(f"declared in {len(sym.definitions)} places")
    return "\n\n".join(parts)


def _fenced(code: str) -> str:
    return f"```rules\n{code}\n```"


def _signature(fi: FileIndex, sym: Symbol) -> str:
    """The declaration's first line, without its opening brace (its header)."""
    node = sym.node
    if node is None or node.span is None:
        return sym.key[-1]
    if node.kind in ("let", "binding", "sc_let", "parameter") or sym.kind == "parameter":
        line = fi.text.split("\n")[node.span.line - 1].strip()
        return f"({sym.kind}) {sym.key[-1]}" + (f" — in: {line}" if line else "")
    lines = fi.text.split("\n")
    first = lines[node.span.line - 1][node.span.column - 1:]
    first = re.sub(r"\s*[{\\]\s*$", "", first.rstrip())
    return first if node.span.end_line == node.span.line else first.rstrip(" {")


def _details(index: Index, sym: Symbol) -> str:
    node = sym.node
    if node is None:
        return ""
    if node.kind == "record":
        return "fields: " + ", ".join(f"`{f.name}: {_type_text(index, f)}`" for f in node.fields)
    if node.kind == "enum":
        return "members: " + ", ".join(f"`{m.name}`" for m in node.members)
    if node.kind == "table":
        return (f"{len(node.rows)} rows of `{node.record}`; columns: "
                + ", ".join(f"`{c}`" for c in node.columns))
    if node.kind == "enum_member":
        owner = next((e.name for e in _decls(index, "enum")
                      if any(m.name == node.name for m in e.members)), None)
        return f"member of enum `{owner}`" + (f": \"{node.label}\"" if node.label else "")
    if node.kind == "field_decl":
        owners = [r.name for r in _decls(index, "record")
                  if any(f.name == node.name for f in r.fields)]
        return "field of " + ", ".join(f"`{o}`" for o in owners)
    return ""


def _type_text(index: Index, field) -> str:
    span = field.type.span
    fi = index.files.get(span.file) if span is not None else None
    if fi is None:
        return "?"
    lines = fi.text.split("\n")
    if span.line != span.end_line:
        return lines[span.line - 1][span.column - 1:].strip()
    return lines[span.line - 1][span.column - 1:span.end_column - 1]


def _decls(index: Index, kind: str):
    for fi in index.files.values():
        for d in fi.program.declarations:
            if d.kind == kind:
                yield d


def doc_comment(fi: FileIndex, line: int) -> str:
    """The comment lines just above a 0-based line (a declaration's documentation)."""
    lines = fi.text.split("\n")
    out: list[str] = []
    k = line - 1
    while k >= 0 and lines[k].lstrip().startswith("#"):
        out.append(lines[k].lstrip()[1:].strip())
        k -= 1
    while out and set(out[-1]) <= set("=-# "):  # a ruler line starts a section, not a doc
        out.pop()
    return "\n".join(reversed(out)).strip()


def _builtin_doc(name: str) -> str:
    if name in BUILTIN_FUNCTIONS:
        low, high = BUILTIN_FUNCTIONS[name]
        count = arity_text(name)
        args = ", ".join(f"x{i + 1}" for i in range(low)) + (", ..." if high is None else
                                                             "".join(f"[, x{i + 1}]" for i in
                                                                     range(low, high)))
        return _fenced(f"{name}({args})") + \
            f"\n\nbuilt-in function: takes {count} argument{'s' if count != '1' else ''}"
    if name in BUILTIN_VALUES:
        return _fenced(name) + "\n\nbuilt-in value"
    return ""


def _row(index: Index, table: str, key: str):
    decl = index.tables.get(table)
    if decl is None:
        return None
    for row, k in zip(decl.rows, A.row_keys(decl)):
        if k == key:
            return row
    return None


def _row_doc(index: Index, table: str, key: str) -> str:
    decl, row = index.tables.get(table), _row(index, table, key)
    if decl is None or row is None:
        return ""
    lines = [f"row `{key}` of table `{table}` (a `{decl.record}`)", "",
             "| field | value |", "| --- | --- |"]
    for column, value in zip(decl.columns, row.values):
        shown = "none" if value is None else (f'"{value}"' if isinstance(value, str)
                                              else str(value).lower() if isinstance(value, bool)
                                              else str(value))
        shown = shown.replace("|", "\\|")
        lines.append(f"| {column} | {shown} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- completion
@dataclass(frozen=True)
class Completion:
    label: str
    kind: str     # "keyword", "function", "value", "field", "row", "option", or a symbol's kind
    detail: str = ""


_OPTION_CONTEXT = re.compile(r'\b(choose|refuse|option|options)\b[^"#]*"[^"]*$')


def completions(index: Index, path: str, line: int, column: int) -> list[Completion]:
    fi = index.files.get(path)
    if fi is None:
        return []
    text_line = fi.text.split("\n")[line] if line < len(fi.line_starts) else ""
    before = text_line[:column]
    scope = fi.scope_at(fi.offset(line, column))
    in_scenario = scope is not None and scope[0].kind == "scenario"
    if in_scenario and _OPTION_CONTEXT.search(before):  # `choose p "...`: an option's id
        return [Completion(k[1], "option", "option") for k, s in sorted(index.symbols.items())
                if k[0] == "part" and s.kind in ("option", "compose_step")]
    if _in_string_text(before):
        return []
    partial = re.search(r"(?!\d)\w*$", before).group()
    head = before[:len(before) - len(partial)].rstrip(" \t")
    if head.endswith(".") and not head.endswith(".."):
        owner = re.search(r"(\w+)\s*\.$", head)
        table = index.tables.get(owner.group(1)) if owner else None
        if table is not None:
            return [Completion(k, "row", f"row of {table.name}")
                    for k in A.row_keys(table) if k is not None]
        return [Completion(k[1], "field", s.kind) for k, s in sorted(index.symbols.items())
                if k[0] == "member"]
    out = [Completion(name, sym.kind, _short_kind(sym))
           for name, sym in sorted(index.visible_names(path, fi.offset(line, column)).items())]
    out += [Completion(n, "function", f"built-in, {arity_text(n)} argument(s)")
            for n in sorted(BUILTIN_FUNCTIONS)]
    out += [Completion(n, "value", "built-in value") for n in sorted(BUILTIN_VALUES)]
    out += [Completion(k, "keyword") for k in KEYWORDS]
    return out


def _in_string_text(before: str) -> bool:
    """Whether a line written up to here ends inside a string, outside its `{holes}`."""
    quotes = [m.start() for m in re.finditer(r'(?<!\\)"', before)]
    if len(quotes) % 2 == 0:
        return False
    rest = before[quotes[-1] + 1:]
    return rest.rfind("{") <= rest.rfind("}")


def _short_kind(sym: Symbol) -> str:
    return sym.kind.replace("_", " ")


# ------------------------------------------------------------------------- outline, folding
@dataclass
class Outline:
    name: str
    kind: str
    place: Place          # the whole item
    selection: Place      # its name
    children: list["Outline"]


NESTED_SYMBOLS = ("phase", "step", "option", "compose_step", "field_decl", "enum_member")


def outline(program: A.Program, path: str) -> list[Outline]:
    """The document's items: declarations (with their fields, members, phases, steps and
    options inside), patches and scenarios."""
    out: list[Outline] = []
    header = program.header
    if header is not None and header.span is not None:
        out.append(_item(f"{header.kind} \"{header.title}\"", header.kind, header, path))
    tops = [*program.declarations, *program.overrides, *program.scenarios]
    for node in sorted((t for t in tops if t.span is not None),
                       key=lambda t: (t.span.line, t.span.column)):
        out.append(_item(_top_name(node), node.kind, node, path))
    return out


def _top_name(node) -> str:
    if node.kind == "override":
        return "override " + _top_name(node.declaration)
    if node.kind == "step_patch":
        return f"{node.mode} step {node.step}"
    if node.kind == "scenario":
        return f"scenario \"{node.name}\""
    if node.kind == "component_state":
        return node.key
    name = getattr(node, "name", None)
    return f"{node.kind} {name}" if name else node.kind


def _item(name: str, kind: str, node, path: str) -> Outline:
    place = span_place(node.span, path)
    return Outline(name, kind, place, place, _nested(node, path))


def _nested(node, path: str) -> list[Outline]:
    out: list[Outline] = []
    for fname in type(node).model_fields:
        value = getattr(node, fname)
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, A.Node):
                continue
            if child.kind in NESTED_SYMBOLS and child.span is not None:
                out.append(Outline(child.name, child.kind, span_place(child.span, path),
                                   span_place(child.span, path), _nested(child, path)))
            else:
                out.extend(_nested(child, path))
    return out


FOLDED = {"phase", "step", "option", "compose_step", "choose", "compose", "if", "for", "repeat",
          "while", "simultaneously", "turns", "turns_from", "rounds", "turn", "match_stmt",
          "match", "override", "step_patch", "scenario"}


def folding_ranges(program: A.Program, text: str) -> list[tuple[int, int, str | None]]:
    """(first line, last line, "comment" or None), 0-based, for blocks and comment runs."""
    out: set[tuple[int, int, str | None]] = set()
    tops = [program.header, *program.declarations, *program.overrides, *program.scenarios]
    for top in tops:
        if top is None:
            continue
        for node in A.walk(top):
            span = node.span
            if span is None or span.end_line - 1 <= span.line - 1:
                continue
            if node is top or node.kind in FOLDED:
                out.add((span.line - 1, span.end_line - 1, None))
    run_start = None
    lines = text.split("\n")
    for k, line in enumerate([*lines, ""]):
        if line.lstrip().startswith("#"):
            run_start = k if run_start is None else run_start
            continue
        if run_start is not None and k - 1 > run_start:
            out.add((run_start, k - 1, "comment"))
        run_start = None
    return sorted(out)


# ------------------------------------------------------------------------------ formatting
def formatted(text: str, path: str) -> str | None:
    """The canonical form of the text (`rulebook fmt`), or None when it does not parse."""
    from ..grammar.formatter import format_source
    from ..validator.diagnostics import DiagnosticError

    try:
        return format_source(text, path)
    except DiagnosticError:
        return None
