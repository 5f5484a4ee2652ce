"""`rulebook check` as a linter: the check, then what depends on configuration and comments.

check (cached per file) -> W0204 (cites of the book's listed sections) -> drop W0203 for a
procedure that another file of the ruleset calls (a variant, a file of scenarios) -> inline
suppressions (W0210, W0211) -> the selection (`--select`/`--ignore`, then each file's
configuration). These steps read configuration files and comments, which the check's cache does
not key on, so they run after it, on every run.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .check import CheckResult, check_paths, expand_paths, rules_files_under
from .diagnostics import Diagnostic, DiagnosticError
from .lint_config import LintConfig, check_selectors, find_config_file, load_config

CODES = {
    "E0010": "a configuration file that cannot be used",
    "W0204": "a cite that names no section of the book",
    "W0210": "a suppression that suppresses nothing",
    "W0211": "a suppression that cannot apply",
}


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    checked: int = 0
    config_problems: list[Diagnostic] = field(default_factory=list)  # usage errors: exit 2


def known_codes() -> set[str]:
    """Every documented code (docs/diagnostics.md is the one list)."""
    from .code_docs import code_docs

    return set(code_docs())


def book_sections(file: str) -> tuple[str, ...] | None:
    """The book's sections listed by the configuration that applies to ``file`` (None: none
    listed, or the configuration cannot be read; `rulebook check` reports that)."""
    path = find_config_file(file)
    if path is None:
        return None
    try:
        return load_config(path, frozenset(known_codes())).sections
    except DiagnosticError:
        return None


def bad_selectors(select, ignore) -> list[str]:
    """What is wrong with the command line's `--select` and `--ignore`, in words."""
    known = known_codes()
    return [*check_selectors(select or (), known, "--select"),
            *check_selectors(ignore or (), known, "--ignore")]


def lint_paths(paths, select=None, ignore=None) -> LintResult:
    """Check ``paths`` and apply the lint configuration; ``select``/``ignore`` (from the command
    line) replace the configuration's own lists when given."""
    from .lint_walk import remembering_walks
    from .suppress import apply_suppressions

    files, _ = expand_paths(paths)
    with remembering_walks():
        checked, count = check_paths(paths)
        out = LintResult(sources=dict(checked.sources), checked=count)
        known = known_codes()
        configs = _Configs(known, out.config_problems)
        diagnostics = list(checked.diagnostics)
        diagnostics.extend(_cite_warnings(files, checked, configs, out.sources))
    diagnostics = _called_elsewhere_dropped(diagnostics)
    diagnostics = apply_suppressions(diagnostics, out.sources, set(files), known)
    out.diagnostics = sorted(
        (d for d in diagnostics
         if configs.for_file(d.file).overridden(select, ignore).shows(d.code)),
        key=Diagnostic.sort_key)
    return out


class _Configs:
    """Each file's configuration, read once per configuration file."""

    def __init__(self, known: set[str], problems: list[Diagnostic]):
        self.known = frozenset(known)
        self.problems = problems
        self.by_folder: dict[str, LintConfig] = {}
        self.by_path: dict[str, LintConfig] = {}

    def for_file(self, file: str | None) -> LintConfig:
        folder = os.path.dirname(os.path.abspath(file or "x"))
        if folder not in self.by_folder:
            self.by_folder[folder] = self._read(find_config_file(file or "."))
        return self.by_folder[folder]

    def _read(self, path) -> LintConfig:
        if path is None:
            return LintConfig()
        if str(path) not in self.by_path:
            try:
                self.by_path[str(path)] = load_config(path, self.known)
            except DiagnosticError as e:
                self.problems.extend(e.diagnostics)
                self.by_path[str(path)] = LintConfig()
        return self.by_path[str(path)]


def _cite_warnings(files, checked: CheckResult, configs: _Configs,
                   sources: dict[str, str]) -> list[Diagnostic]:
    from .check_cache import remembered

    broken = {d.file for d in checked.diagnostics if d.is_error}
    out: list[Diagnostic] = []
    for file in files:
        sections = configs.for_file(file).sections
        if sections is None or file in broken:
            continue

        def cites(file=file, sections=sections) -> list[Diagnostic]:
            from ..loader import parse_cached  # imported only when not remembered
            from .lint_cites import unlisted_cites

            try:
                text, program = parse_cached(file)
            except DiagnosticError:
                return []  # the check said why
            sources.setdefault(file, text)
            return unlisted_cites(program, sections, file, text)

        found = remembered("cites", file, "\n".join(sections), cites)
        if found and file not in sources:  # remembered: the text, to show where
            from ..grammar.parser import read_source

            try:
                sources[file] = read_source(file)
            except DiagnosticError:
                pass
        out.extend(found)
    return out


_UNCALLED = re.compile(r"^procedure `(\w+)` is never called")


def _called_elsewhere_dropped(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A game's procedure may be there for its variants or its scenario files: one that a file
    of the same ruleset's folder tree calls is reached (when that file is used), and so are the
    procedures it calls."""
    uncalled: dict[str, list[tuple[Diagnostic, str]]] = {}
    kept = []
    for d in diagnostics:
        mo = _UNCALLED.match(d.message) if d.code == "W0203" and d.file else None
        if mo is None:
            kept.append(d)
        else:
            uncalled.setdefault(d.file, []).append((d, mo.group(1)))
    for file, found in uncalled.items():
        reached = _reached_remembered(file)
        kept.extend(d for d, name in found if name not in reached)
    return kept


def _reached_remembered(file: str) -> set[str]:
    """`_reached_from_other_files`, remembered until a `.rules` file of the ruleset changes."""
    import hashlib

    from .check_cache import remembered

    folder = rules_files_under(_ruleset_folder(file))
    texts = []
    for other in sorted(folder):
        try:
            with open(other, "rb") as f:
                texts.append(f"{other}:{hashlib.sha256(f.read()).hexdigest()}")
        except OSError:
            texts.append(f"{other}:-")
    return set(remembered("reached", file, "\n".join(texts),
                          lambda: sorted(_reached_from_other_files(file))))


def _reached_from_other_files(file: str) -> set[str]:
    from ..grammar import ast as A
    from ..loader import parse_cached
    from .lint_reach import procedure_calls

    same = os.path.realpath(file)
    roots: set[str] = set()
    for other in rules_files_under(_ruleset_folder(file)):
        if os.path.realpath(other) != same:
            roots |= _procedures_called(other)
    try:
        _, program = parse_cached(file)
    except DiagnosticError:
        return roots
    procedures = {d.name: d for d in program.declarations if isinstance(d, A.ProcedureDecl)}
    return procedure_calls(procedures, roots)


def _ruleset_folder(file: str) -> str:
    from ..loader import ruleset_root

    return str(ruleset_root(file))


_DO = re.compile(r"\bdo\s+(\w+)\s*\(")


def _procedures_called(file: str) -> set[str]:
    from ..grammar.parser import read_source
    from ..grammar.source import _STRING_OR_COMMENT

    try:
        text = read_source(file)
    except DiagnosticError:
        return set()
    code = _STRING_OR_COMMENT.sub(" ", text)
    return set(_DO.findall(code))

