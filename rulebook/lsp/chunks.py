"""Parse a file one top-level item at a time, so that an edit re-parses only what it touched.

Parsing a whole large ruleset takes seconds; an edit changes one declaration. A file is cut
where a line starts at column 0 with a word, outside any bracket, string or line continuation:
there every top-level item (header, declaration, patch, scenario) begins. Each piece is parsed
alone, padded with blank lines so that its spans name the lines of the whole file, and kept by
its text; the program is the pieces' items in order. A file that will not cut cleanly (a header
after a declaration, a piece that reads as nothing) is parsed whole, as `rulebook check` does.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from functools import lru_cache

from ..grammar import ast as A
from ..grammar.parser import parse_text
from ..grammar.source import STRING_PATTERN
from ..validator.diagnostics import DiagnosticError

MAX_KEPT_PIECES = 4096  # parsed pieces kept, across files and edits

_BLANKED = re.compile(STRING_PATTERN + r"|#[^\n]*")
_OPEN, _CLOSE = "([{", ")]}"


@lru_cache(maxsize=8)
def pieces(text: str) -> tuple[tuple[int, str], ...]:
    """(0-based first line, text) of each top-level item, comments after it included."""
    lines = text.split("\n")
    starts: list[int] = []
    depth = 0
    continued = False
    for number, line in enumerate(lines):
        opens_item, change, continues = _line_facts(line)
        if depth <= 0 and not continued and opens_item:
            starts.append(number)
        depth += change
        continued = continues
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(lines)]
    return tuple((bounds[i], "\n".join(lines[bounds[i]:bounds[i + 1]]) + "\n")
                 for i in range(len(starts)))


@lru_cache(maxsize=1 << 16)
def _line_facts(line: str) -> tuple[bool, int, bool]:
    """(starts with a word at column 0, brackets opened less closed, ends with `\\`) of a line,
    strings and comments left out (neither runs over a line). Kept by the line's text: an edit
    changes few lines."""
    blank = _BLANKED.sub("", line)
    change = sum(map(blank.count, _OPEN)) - sum(map(blank.count, _CLOSE))
    return line[:1].isalpha(), change, blank.rstrip().endswith("\\")


class PieceParser:
    """Parses files piece by piece, keeping each piece's parse and its JSON Schema verdict."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, A.Program | DiagnosticError] = OrderedDict()
        self._schema: dict[int, tuple[A.Program, list]] = {}  # id(piece program) -> problems

    def seed(self, text: str, path: str, program: A.Program) -> None:
        """Keep the pieces of a program parsed whole (the loader's cached parse of a file on
        disk), so that the first edit parses only the piece it changes."""
        cut = pieces(text)
        firsts = [first for first, _ in cut]

        def piece_of(node) -> int:
            import bisect
            return bisect.bisect_right(firsts, node.span.line - 1) - 1

        parts = [{"header": None, "declarations": [], "overrides": [], "scenarios": []}
                 for _ in cut]
        if program.header is not None:
            parts[piece_of(program.header)]["header"] = program.header
        for name in ("declarations", "overrides", "scenarios"):
            for node in getattr(program, name):
                if node.span is None:
                    return
                parts[piece_of(node)][name].append(node)
        for (first, piece), part in zip(cut, parts):
            self._store((path, first, piece), A.Program.model_construct(kind="program", **part))

    def schema_problems(self, text: str, path: str) -> list:
        """What the JSON Schema finds in the pieces of a text that parses (kept per piece)."""
        from ..validator.schema import validate_program

        out = []
        for first, piece in pieces(text):
            program = self._piece(path, first, piece)
            kept = self._schema.get(id(program))
            if kept is None or kept[0] is not program:
                kept = self._schema[id(program)] = (program, validate_program(program, path))
            out.extend(kept[1])
        return out

    def parse(self, text: str, path: str, partial: bool = False) -> A.Program:
        """The program of `text`, as `parse_text` gives it; raises DiagnosticError. `partial`:
        the items of the pieces that parse, leaving out the others (for names while typing)."""
        header = None
        declarations, overrides, scenarios = [], [], []
        for k, (first, piece) in enumerate(pieces(text)):
            try:
                program = self._piece(path, first, piece)
            except DiagnosticError:
                if partial:
                    continue
                raise
            if program.header is not None:
                if k > 0 and (header is not None or declarations or overrides or scenarios):
                    if partial:
                        continue
                    return parse_text(text, path)  # let the whole parse word the mistake
                header = program.header
            declarations.extend(program.declarations)
            overrides.extend(program.overrides)
            scenarios.extend(program.scenarios)
        last = text.count("\n") + 1
        span = A.Span(line=1, column=1, end_line=last,
                      end_column=len(text) - (text.rfind("\n") + 1) + 1, file=path)
        return A.Program.model_construct(kind="program", span=span, header=header,
                                         declarations=declarations, overrides=overrides,
                                         scenarios=scenarios)

    def _piece(self, path: str, first: int, piece: str) -> A.Program:
        key = (path, first, piece)
        kept = self._kept.get(key)
        if kept is None:
            try:
                kept = parse_text("\n" * first + piece, path)
            except DiagnosticError as e:
                kept = DiagnosticError(e.diagnostics)
            self._store(key, kept)
        else:
            self._kept.move_to_end(key)
        if isinstance(kept, DiagnosticError):
            raise DiagnosticError(kept.diagnostics)
        return kept

    def _store(self, key: tuple, kept) -> None:
        self._kept[key] = kept
        while len(self._kept) > MAX_KEPT_PIECES:
            _, gone = self._kept.popitem(last=False)
            self._schema.pop(id(gone), None)
