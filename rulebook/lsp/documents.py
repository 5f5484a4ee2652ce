"""The texts an editor holds and the check of one of them, unsaved: the same stages as
`rulebook check` (parse, JSON Schema, merge onto the files it `extends`, semantic checks), with the
editor's open texts standing in for their files on disk, so a variant merges onto its game as
it is being edited.

Parsing is the slow stage: an open text is parsed one top-level item at a time (`chunks`), each
item's parse and JSON Schema verdict kept, so an edit parses the item it changed; a file that is
not open is read through the loader's cache (once per version on disk). The semantic checks run on
the whole program, as `rulebook check` runs them.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..grammar import ast as A
from ..grammar.parser import read_source
from ..grammar.source import decode_source
from ..validator.diagnostics import Diagnostic, DiagnosticError, span_fields
from .chunks import PieceParser



@dataclass
class Checked:
    """What the check of one open file found: its diagnostics by file (a game's errors found
    while checking its variant belong to the game's file), and the files of its ruleset."""

    path: str
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)     # the ruleset's files, the game first


class Documents:
    """Open texts by path, and their parses."""

    def __init__(self) -> None:
        self.open: dict[str, str] = {}
        self.parser = PieceParser()
        self._whole: dict[str, tuple[str, A.Program | None, list]] = {}  # path -> last parse

    def set(self, path: str, text: str) -> None:
        key = norm(path)
        if key not in self.open:
            self._seed(path, text)
        self.open[key] = text

    def close(self, path: str) -> None:
        self.open.pop(norm(path), None)
        self._whole.pop(norm(path), None)

    def text(self, path: str) -> str:
        """The open text of a file, else its text on disk (raises DiagnosticError)."""
        found = self.open.get(norm(path))
        return found if found is not None else read_source(path)

    def parse(self, path: str) -> tuple[str, A.Program]:
        """(text, program) of a file as the editor holds it; raises DiagnosticError."""
        text = self.open.get(norm(path))
        if text is None:
            from ..loader import parse_cached
            return parse_cached(path)
        kept = self._whole.get(norm(path))
        if kept is None or kept[0] != text:
            try:
                # the limits of a file on disk hold for an editor's text too (size, binary)
                decode_source(text.encode("utf-8", "surrogatepass"), path)
                kept = (text, self.parser.parse(text, path), [])
            except DiagnosticError as e:
                kept = (text, None, list(e.diagnostics))
            self._whole[norm(path)] = kept
        if kept[1] is None:
            raise DiagnosticError(kept[2], {path: text})
        return text, kept[1]

    def parse_partial(self, path: str) -> tuple[str, A.Program]:
        """(text, program) where the program leaves out the items that do not parse yet: the
        names of an open file while it is being typed. Raises DiagnosticError for a file on
        disk that does not parse."""
        text = self.open.get(norm(path))
        if text is None:
            return self.parse(path)
        try:
            return self.parse(path)
        except DiagnosticError:
            return text, self.parser.parse(text, path, partial=True)

    def schema_problems(self, path: str, text: str, program: A.Program) -> list[Diagnostic]:
        """The JSON Schema's verdict on a parsed text (kept piece by piece)."""
        if norm(path) not in self.open:
            from ..validator.schema import validate_program
            return validate_program(program, path)
        return self.parser.schema_problems(text, path)

    def _seed(self, path: str, text: str) -> None:
        """A file opened as it is on disk: take the loader's parse of it (cached on disk)."""
        from ..loader import parse_cached

        try:
            on_disk, program = parse_cached(path)
        except DiagnosticError:
            return
        if on_disk == text:
            self.parser.seed(text, path, program)


def norm(path: str) -> str:
    return os.path.normpath(path)


def check_document(docs: Documents, path: str) -> Checked:
    """Check one open file as `rulebook check` checks a file on disk."""
    from ..validator.check import _own_or_errors, _programs_to_check
    from ..validator.semantic import check_program

    out = Checked(path, files=[path])
    try:
        text, program = docs.parse(path)
    except DiagnosticError as e:
        return _grouped(out, e.diagnostics)
    problems = docs.schema_problems(path, text, program)
    if problems:
        return _grouped(out, problems)
    found: list[Diagnostic] = []
    if isinstance(program.header, A.VariantHeader):
        try:
            chain, merged = merge_chain(docs, path)
        except DiagnosticError as e:
            return _grouped(out, e.diagnostics)
        out.files = chain
        found.extend(check_program(merged))
    else:
        if program.header is None and program.scenarios:
            out.files = [*scenario_targets(docs, program, path), path]
        for checked, sources, only, helpers in _programs_to_check(program, path, found, {}):
            found.extend(check_program(checked, only, helpers))
    return _grouped(out, _own_or_errors(found, path))


def merge_chain(docs: Documents, path: str) -> tuple[list[str], A.Program]:
    """A variant's files from the game on (open texts standing in for files), merged."""
    from ..loader import MAX_CHAIN, _merge_programs, named_in_tree

    chain, programs, texts = [], [], []
    current, seen = path, set()
    while True:
        key = os.path.realpath(current)
        if key in seen or len(chain) >= MAX_CHAIN:
            code, message = (("E0504", "variants extend each other in a cycle: "
                              + " -> ".join([*chain, current])) if key in seen else
                             ("E0512", f"variants extend each other more than {MAX_CHAIN} deep"))
            raise DiagnosticError([Diagnostic(
                code, message, file=chain[-1], **span_fields(programs[-1].header.span),
                hint="one file of the chain must be the game itself (`game` header)")],
                dict(zip(chain, texts)))
        seen.add(key)
        text, program = docs.parse(current)
        chain.append(current)
        programs.append(program)
        texts.append(text)
        if not isinstance(program.header, A.VariantHeader):
            break
        try:
            current = named_in_tree(current, program.header.extends, program.header, "`extends`")
        except DiagnosticError as e:
            raise DiagnosticError(e.diagnostics, dict(zip(chain, texts)))
    chain.reverse(), programs.reverse(), texts.reverse()
    return chain, _merge_programs(chain, programs, texts).program


def scenario_targets(docs: Documents, program: A.Program, path: str) -> list[str]:
    """The files of the rulesets that the scenarios of a file of scenarios test."""
    from ..loader import scenario_ruleset

    out: list[str] = []
    for sc in program.scenarios:
        for item in sc.items:
            if isinstance(item, A.ScRuleset):
                try:
                    target = scenario_ruleset(path, item.path, item)
                except DiagnosticError:
                    continue
                out.extend(f for f in ruleset_files(docs, target) if f not in out)
    return out


def ruleset_files(docs: Documents, path: str) -> list[str]:
    """A game or variant file and the files it extends, the game first (as far as they read)."""
    from ..loader import MAX_CHAIN, named_in_tree

    chain: list[str] = []
    current: str | None = path
    while current is not None and current not in chain and len(chain) < MAX_CHAIN:
        chain.append(current)
        try:
            _, program = docs.parse(current)
            header = program.header
            current = (named_in_tree(current, header.extends, header, "`extends`")
                       if isinstance(header, A.VariantHeader) else None)
        except DiagnosticError:
            current = None
    return chain[::-1]


def _grouped(out: Checked, diagnostics) -> Checked:
    for d in diagnostics:
        out.diagnostics.setdefault(d.file or out.path, []).append(d)
    out.diagnostics.setdefault(out.path, [])
    return out
