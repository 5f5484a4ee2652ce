"""Where each name of a ruleset is declared and used, across the files of the ruleset.

The AST gives what is declared and where each declaration (and each scope: a top-level
declaration or a scenario) starts and ends; a scan of the source gives every word outside comments
and plain string text (the `{holes}` of a template are read). Each word is then resolved the way
the checker does: a name declared in its scope (parameters, `let`, bindings; a record's fields
inside the record and its tables), else a global name (declarations and enum members), else a
member (`.field`: record fields, player and component variables), else a named part of the flow
(steps, phases, options), else a built-in. Hover, definition, references, rename and completion
all read this one index.

Scopes are a declaration as a whole (a `let` is known from the start of its declaration), and
fields are one namespace across records (`.name` is every record's `name`): what an editor needs
to move around, kept simple.
"""
from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from dataclasses import dataclass, field

from ..grammar import ast as A
from ..grammar.source import STRING_PATTERN
from ..validator.builtins import BUILTIN_FUNCTIONS, BUILTIN_VALUES

Key = tuple  # ("global" | "member" | "part", name) or ("local", file, scope start, name)

# Declarations whose name is a global name of the ruleset.
GLOBAL_KINDS = {"enum", "record", "table", "const", "define", "procedure", "event", "reaction",
                "modifier", "automaton", "invariant", "pieces"}
PART_KINDS = {"step", "phase", "option", "compose_step"}
LOCAL_KINDS = {"let", "binding", "sc_let"}


@dataclass(frozen=True)
class Word:
    """One identifier written in a file: 0-based line and column, as the protocol counts."""

    file: str
    line: int
    column: int
    text: str
    offset: int
    dotted: bool = False         # written after `.` (a field, a row or a member)
    before: str | None = None    # the word before the dot, when dotted

    @property
    def end_column(self) -> int:
        return self.column + len(self.text)


@dataclass
class Symbol:
    key: Key
    kind: str                       # what the declaration is: "record", "state", "let", ...
    node: object | None = None      # its AST node
    scope: object | None = None     # the top-level declaration it was found in
    definitions: list[Word] = field(default_factory=list)
    references: list[Word] = field(default_factory=list)


@dataclass
class FileIndex:
    path: str
    text: str
    program: A.Program
    words: list[Word]
    line_starts: list[int]
    scopes: list[tuple[int, int, object, dict]]  # (start, end, node, name -> key), by start
    declared: list[tuple]  # (key, kind, node, scope, the word naming it or None)

    def offset(self, line: int, column: int) -> int:
        """Offset of a 0-based line and column."""
        if line >= len(self.line_starts):
            return len(self.text)
        return min(len(self.text), self.line_starts[line] + column)

    def word_at(self, line: int, column: int) -> Word | None:
        """The word under (or just before) the cursor."""
        for w in self.words_on_line(line):
            if w.column <= column <= w.end_column:
                return w
        return None

    def words_on_line(self, line: int) -> list[Word]:
        lo = bisect.bisect_left(self.words, line, key=lambda w: w.line)
        hi = bisect.bisect_right(self.words, line, key=lambda w: w.line)
        return self.words[lo:hi]

    def scope_at(self, offset: int):
        """(node, names) of the top-level item holding `offset`, or None (items never nest)."""
        k = bisect.bisect_right(self.scopes, offset, key=lambda s: s[0]) - 1
        if k >= 0 and offset < self.scopes[k][1]:
            return self.scopes[k][2], self.scopes[k][3]
        return None


class Index:
    """Every symbol of a set of files (a ruleset: the game first, then what builds on it)."""

    def __init__(self) -> None:
        self.files: dict[str, FileIndex] = {}
        self.symbols: dict[Key, Symbol] = {}
        self.where: dict[tuple[str, int], Key] = {}  # (file, offset of a word) -> its symbol
        self.tables: dict[str, A.TableDecl] = {}
        self.records: dict[str, A.RecordDecl] = {}

    # --------------------------------------------------------------------------- queries
    def symbol_at(self, path: str, line: int, column: int) -> tuple[Word, Symbol | None] | None:
        fi = self.files.get(path)
        if fi is None:
            return None
        word = fi.word_at(line, column)
        if word is None:
            return None
        key = self.where.get((path, word.offset))
        return word, (self.symbols.get(key) if key is not None else None)

    def occurrences(self, symbol: Symbol) -> list[Word]:
        return [*symbol.definitions, *symbol.references]

    def visible_names(self, path: str, offset: int) -> dict[str, Symbol]:
        """Names a word written at `offset` could be: its scope's, then the globals."""
        out = {k[1]: s for k, s in self.symbols.items() if k[0] == "global"}
        fi = self.files.get(path)
        scope = fi.scope_at(offset) if fi else None
        if scope is not None:
            for name, key in scope[1].items():
                if key in self.symbols:
                    out[name] = self.symbols[key]
        return out

    # ---------------------------------------------------------------------------- building
    def add_file(self, path: str, text: str, program: A.Program) -> None:
        self.files[path] = file_index(path, text, program)

    def build(self) -> "Index":
        """Collect declarations from every file, then resolve every word."""
        for fi in self.files.values():
            for key, kind, node, scope, word in fi.declared:
                sym = self._symbol(key, kind, node, scope)
                if word is not None and (fi.path, word.offset) not in self.where:
                    sym.definitions.append(word)
                    self.where[(fi.path, word.offset)] = key
                if kind == "table":
                    self.tables[node.name] = node
                elif kind == "record":
                    self.records[node.name] = node
        for fi in self.files.values():
            self._resolve(fi)
            self._enum_cells(fi)
        return self

    def _enum_cells(self, fi: FileIndex) -> None:
        """A table cell holding an enum member (`"red"` in a column of enum type) uses the member:
        renaming the member renames the cell's text."""
        for table in (d for _, _, d, _ in fi.scopes if d.kind == "table"):
            record = self.records.get(table.record)
            types = {f.name: getattr(f.type, "name", None) for f in record.fields} if record else {}
            enum_columns = [k for k, c in enumerate(table.columns)
                            if self._is_enum(types.get(c))]
            for row in table.rows if enum_columns else ():
                if row.span is None:
                    continue
                line = row.span.line - 1
                start = fi.offset(line, row.span.column - 1)
                end = fi.offset(row.span.end_line - 1, row.span.end_column - 1)
                cells = list(re.finditer(STRING_PATTERN, fi.text[start:end]))
                strings = [k for k, v in enumerate(row.values) if isinstance(v, str)]
                if len(cells) != len(strings):
                    continue  # a cell written in a way this does not follow: leave the row
                for k, m in zip(strings, cells):
                    key = ("global", row.values[k])
                    if k in enum_columns and key in self.symbols \
                            and m.group() == f'"{row.values[k]}"':
                        offset = start + m.start() + 1
                        w = Word(fi.path, line, offset - fi.line_starts[line], row.values[k], offset)
                        self.symbols[key].references.append(w)
                        self.where[(fi.path, offset)] = key

    def _is_enum(self, name: str | None) -> bool:
        sym = self.symbols.get(("global", name))
        return sym is not None and sym.kind == "enum"

    def _symbol(self, key: Key, kind: str, node, scope=None) -> Symbol:
        sym = self.symbols.get(key)
        if sym is None:
            sym = self.symbols[key] = Symbol(key, kind, node, scope)
        elif sym.node is None:
            sym.node, sym.kind = node, kind
        return sym

    def _scope_fields(self, top) -> list[str]:
        """Field names written bare inside a declaration: a record's in its own `show`, a
        table's columns."""
        record = top.name if top.kind == "record" else getattr(top, "record", None)
        if top.kind not in ("record", "table") or record not in self.records:
            return []
        return [f.name for f in self.records[record].fields]

    def _resolve(self, fi: FileIndex) -> None:
        fields = {id(top): set(self._scope_fields(top)) for _, _, top, _ in fi.scopes}
        for w in fi.words:
            if (fi.path, w.offset) in self.where:
                continue
            key = self._resolve_word(fi, w, fields)
            if key is None:
                continue
            sym = self.symbols.get(key)
            if sym is None:
                sym = self._symbol(key, key[0], None)
            sym.references.append(w)
            self.where[(fi.path, w.offset)] = key

    def _resolve_word(self, fi: FileIndex, w: Word, fields: dict) -> Key | None:
        name = w.text
        if w.dotted:
            table = self.tables.get(w.before or "")
            if table is not None and name in set(A.row_keys(table)):
                return ("row", table.name, name)
            return ("member", name) if ("member", name) in self.symbols else None
        scope = fi.scope_at(w.offset)
        if scope is not None and name in scope[1]:
            return scope[1][name]
        if scope is not None and name in fields.get(id(scope[0]), ()):
            return ("member", name)
        for ns in ("global", "member", "part"):
            if (ns, name) in self.symbols:
                return (ns, name)
        if name in BUILTIN_FUNCTIONS or name in BUILTIN_VALUES:
            return ("builtin", name)
        return None


# ------------------------------------------------------------------------- one file's part
_KEPT: OrderedDict[tuple[str, str], FileIndex] = OrderedDict()
MAX_KEPT_FILES = 32


def file_index(path: str, text: str, program: A.Program) -> FileIndex:
    """A file's words, scopes and declarations (kept: an edit rebuilds only the edited file's)."""
    kept = _KEPT.get((path, text))
    if kept is not None and kept.program is program:
        _KEPT.move_to_end((path, text))
        return kept
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    fi = FileIndex(path, text, program, scan_words(path, text, starts), starts, [], [])
    _declare(fi)
    _KEPT[(path, text)] = fi
    while len(_KEPT) > MAX_KEPT_FILES:
        _KEPT.popitem(last=False)
    return fi


def _declare(fi: FileIndex) -> None:
    """Fill `fi.scopes` and `fi.declared` from the file's top-level items."""
    program = fi.program
    tops = [*program.declarations,
            *(o.declaration for o in program.overrides if isinstance(o, A.Override)),
            *(o for o in program.overrides if isinstance(o, A.StepPatch)),
            *program.scenarios]
    claimed: set[int] = set()

    def define(key: Key, kind: str, node, scope=None) -> None:
        word = _name_word(fi, key[-1], node, claimed)
        fi.declared.append((key, kind, node, scope, word))

    for top in tops:
        span = top.span
        if span is None:
            continue
        start = fi.offset(span.line - 1, span.column - 1)
        end = fi.offset(span.end_line - 1, span.end_column - 1)
        names: dict[str, Key] = {}
        fi.scopes.append((start, end, top, names))
        kind = top.kind
        if kind in GLOBAL_KINDS:
            define(("global", top.name), kind, top)
        elif kind == "state":
            define(("global" if top.scope == "global" else "member", top.name), "state", top)
        elif kind == "component_state":
            define(("member", top.name), "component_state", top)
        for param in getattr(top, "params", None) or ():
            key = ("local", fi.path, start, param)
            names[param] = key
            define(key, "parameter", top, top)
        for node in A.walk(top):
            if node is top:
                continue
            k = node.kind
            if k == "enum_member":
                define(("global", node.name), "enum_member", node)
            elif k == "field_decl":
                define(("member", node.name), "field", node)
            elif k in PART_KINDS:
                define(("part", node.name), k, node)
            elif k in LOCAL_KINDS:
                key = ("local", fi.path, start, node.name)
                names.setdefault(node.name, key)
                define(names[node.name], k, node, top)
    fi.scopes.sort(key=lambda s: s[0])


def _name_word(fi: FileIndex, name: str, node, claimed: set[int]) -> Word | None:
    """The first word spelling `name` inside a node's span, not claimed by another definition."""
    span = node.span
    if span is None or span.file not in (None, fi.path):
        return None
    start = fi.offset(span.line - 1, span.column - 1)
    end = fi.offset(span.end_line - 1, span.end_column - 1)
    lo = bisect.bisect_left(fi.words, start, key=lambda w: w.offset)
    for w in fi.words[lo:]:
        if w.offset >= end:
            return None
        if w.text == name and not w.dotted:
            if w.offset in claimed:
                return None
            claimed.add(w.offset)
            return w
    return None


# ------------------------------------------------------------------------------- scanning
_WORD = re.compile(r"(?!\d)\w+")
# A comment, a string (its holes may hold strings), a word, or a number.
_TOKEN = re.compile(r"#[^\n]*|" + STRING_PATTERN + r'|"|(?!\d)\w+|\d\w*')


def scan_words(path: str, text: str, line_starts: list[int]) -> list[Word]:
    """Every identifier outside comments and string text (a template's holes are read)."""
    out: list[Word] = []

    def add(m) -> None:
        start = m.start()
        line = bisect.bisect_right(line_starts, start) - 1
        j = start - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        dotted = j >= 0 and text[j] == "." and (j == 0 or text[j - 1] != ".")
        before = None
        if dotted:
            k = j - 1
            while k >= 0 and text[k] in " \t":
                k -= 1
            end = k + 1
            while k >= 0 and (text[k].isalnum() or text[k] == "_"):
                k -= 1
            before = text[k + 1:end] or None
        out.append(Word(path, line, start - line_starts[line], m.group(), start, dotted, before))

    for m in _TOKEN.finditer(text):
        first = m.group()[0]
        if first == '"':
            if "{" in m.group():
                _scan_string(text, m.start() + 1, add)
        elif first.isalpha() or first == "_":
            add(m)
    return out


def _scan_string(text: str, i: int, add) -> int:
    """Scan a string from just after its quote; words in its holes go to `add`. Returns the
    offset after the closing quote (or the end of the line of an unclosed string)."""
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == '"' or ch == "\n":
            return i + 1
        elif ch == "{":
            i += 1
            while i < n and text[i] not in "}\n":
                c = text[i]
                if c == '"':  # a string inside a hole: skip it
                    j = i + 1
                    while j < n and text[j] not in '"\n':
                        j += 2 if text[j] == "\\" else 1
                    i = j + 1
                elif c.isalpha() or c == "_":
                    m = _WORD.match(text, i)
                    add(m)
                    i = m.end()
                elif c.isdigit():
                    while i < n and text[i].isalnum():
                        i += 1
                else:
                    i += 1
            if i < n and text[i] == "}":
                i += 1
        else:
            i += 1
    return i
