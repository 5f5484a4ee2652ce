"""`rulebook check`: every stage in order, stopping after the first one that fails.

read + parse -> JSON Schema -> merge variants (or load the ruleset a scenario file tests) ->
semantic checks. Diagnostics of other files (the game a variant extends) are kept only when they
are errors: their warnings belong to the check of those files themselves.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, DiagnosticError, span_fields

if TYPE_CHECKING:
    from ..grammar import ast as A

CODES = {
    "E0509": "a scenario in a file without a game header does not name its ruleset",
    "E0515": "a file of scenarios declares something other than helpers",
}

RULES_SUFFIX = ".rules"


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # path -> text, for rendering

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)


def check_path(path: str | Path) -> CheckResult:
    """Check one rules file (or take what an earlier check of the same files found)."""
    from . import check_cache

    file = str(path)
    known = check_cache.lookup(file)
    if known is not None:
        return CheckResult(*known)
    result = _check_path(file)
    check_cache.remember(file, result.diagnostics, result.sources)
    return result


def _check_path(file: str) -> CheckResult:
    from ..loader import parse_cached
    from .schema import validate_program
    from .semantic import check_program

    result = CheckResult()
    try:
        text, program = parse_cached(file)
    except DiagnosticError as e:
        result.diagnostics = list(e.diagnostics)
        result.sources.update(e.sources)
        return result
    result.sources[file] = text
    from ..grammar import cache

    valid_key = cache.key_of(text + "\0" + file, "schema-valid")
    if cache.load(valid_key) is not True:
        problems = validate_program(program, file)
        if problems:
            result.diagnostics = problems
            return result
        cache.store(valid_key, True)
    found: list[Diagnostic] = []
    for checked, sources, scenarios_only, helpers in _programs_to_check(
            program, file, found, result.sources):
        result.sources.update(sources)
        found.extend(check_program(checked, scenarios_only, helpers))
        if not scenarios_only and not any(d.is_error for d in found):
            from .lint_rules import lint_program  # lint a program that is certainly sound

            found.extend(lint_program(checked))
    result.diagnostics = _own_or_errors(found, file)
    return result


def check_paths(paths) -> tuple[CheckResult, int]:
    """Check files and folders (recursively, `*.rules` in sorted order).

    Returns the combined result and how many files were checked.
    """
    total = CheckResult()
    seen: set[tuple] = set()
    files, missing = expand_paths(paths)
    total.diagnostics.extend(missing)
    for f in files:
        one = check_path(f)
        total.sources.update(one.sources)
        for d in one.diagnostics:
            key = (d.file, d.line, d.column, d.code, d.message)
            if key not in seen:  # a game's errors also show up when its variants are checked
                seen.add(key)
                total.diagnostics.append(d)
    total.diagnostics.sort(key=Diagnostic.sort_key)
    return total, len(files)


def expand_paths(paths) -> tuple[list[str], list[Diagnostic]]:
    """The rules files named by ``paths`` and what is missing. Folders are searched recursively
    for regular `.rules` files; links are not followed out of the folder named."""
    from ..grammar.source import path_kind

    files: list[str] = []
    problems: list[Diagnostic] = []
    for p in map(str, paths):
        kind = path_kind(p)
        if kind == "folder":
            files.extend(rules_files_under(p))
        elif kind is not None or os.path.lexists(p):
            files.append(str(p))  # named by the user: reading it says what is wrong, if anything
        else:
            shown = p if len(p) <= 160 else p[:80] + "..." + p[-60:]
            problems.append(Diagnostic("E0001", f"no such file or folder: {shown}", file=str(p),
                                       hint="check the path, or list files with `ls`"))
    # A file named twice (or found in two folders named) is checked once.
    return list(dict.fromkeys(files)), list({(d.file, d.code): d for d in problems}.values())


def rules_files_under(folder: str) -> list[str]:
    """Regular `.rules` files anywhere under `folder`, sorted, without leaving it by a link."""
    out: list[str] = []
    base = os.path.realpath(folder)
    for here, dirs, names in os.walk(folder, onerror=lambda e: None):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(here, d)))
        for name in sorted(names):
            path = os.path.join(here, name)
            if not name.endswith(RULES_SUFFIX):
                continue
            try:
                real = os.path.realpath(path)
                if os.path.commonpath([real, base]) == base and os.path.isfile(real):
                    out.append(path)
            except (OSError, ValueError):
                continue
    return sorted(out)


def list_assumptions(paths) -> list[dict]:
    """Every `assumed "reason"` in the files: what the rulebook does not print, and why."""
    from ..loader import parse_cached, walk

    out: list[dict] = []
    files, _ = expand_paths(paths)
    for f in files:
        try:
            _, program = parse_cached(f)
        except DiagnosticError:
            continue  # `check` reports why the file cannot be read
        for node in walk(program):
            meta = node.__dict__.get("meta")  # (getattr asks pydantic for a node without one)
            if meta is None or meta.assumed is None:
                continue
            out.append({"file": f, "line": node.span.line if node.span else None,
                        "name": _assumption_name(node), "kind": node.kind,
                        "reason": meta.assumed})
    out.sort(key=lambda a: (a["file"], a["line"] or 0))
    return out


# ---------------------------------------------------------------------------------- helpers
def _assumption_name(node) -> str:
    for attr in ("name", "title", "step"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            return value
    return node.kind


def _programs_to_check(program: A.Program, file: str, problems: list[Diagnostic],
                       sources: dict[str, str]):
    """(program, sources, scenarios only?, helpers) for each whole program this file is in."""
    from ..grammar import ast as A  # here, not above: a check answered by check_cache needs no AST
    from ..loader import load_ruleset, misplaced_overrides, scenario_ruleset

    if isinstance(program.header, A.VariantHeader):
        try:
            ruleset = load_ruleset(file)
        except DiagnosticError as e:
            problems.extend(e.diagnostics)
            sources.update(e.sources)
            return
        yield ruleset.program, ruleset.files, False, ()
        return
    problems.extend(misplaced_overrides(program, file))
    if program.header is not None or not program.scenarios:
        yield program, {}, False, ()
        return
    # A file of scenarios only: check each against the ruleset (and variants) it names, with the
    # helpers (procedures, defines, constants) the file declares for its scenarios.
    helpers = scenario_helpers(program, file, problems)
    groups: dict[tuple, list[A.Scenario]] = {}
    where: dict[tuple, A.ScRuleset] = {}
    for sc in program.scenarios:
        item = next((i for i in sc.items if isinstance(i, A.ScRuleset)), None)
        if item is None:
            problems.append(Diagnostic(
                "E0509", f"scenario \"{sc.name}\" does not say which ruleset it tests", file=file,
                hint='add `ruleset "path/to/game.rules"` (relative to this file) to the scenario',
                **span_fields(sc.span)))
            continue
        key = (item.path, tuple(i.name for i in sc.items if isinstance(i, A.ScVariant)))
        groups.setdefault(key, []).append(sc)
        where.setdefault(key, item)
    for (ref, variants), scenarios in groups.items():
        here = span_fields(where[(ref, variants)].span)
        try:
            target = scenario_ruleset(file, ref, where[(ref, variants)])
        except DiagnosticError as e:  # the scenario's own `ruleset` line is at fault
            problems.extend(Diagnostic(d.code, d.message, file=file, hint=d.hint, **here)
                            for d in e.diagnostics)
            continue
        try:
            ruleset = load_ruleset(target, variants)
        except DiagnosticError as e:
            problems.extend(Diagnostic(d.code, d.message, file=file, hint=d.hint,
                                       related=d.related, **here)
                            if d.code in ("E0513", "E0514") and d.file != file else d
                            for d in e.diagnostics)
            sources.update(e.sources)
            continue
        base = ruleset.program
        merged = base.model_copy(update={"declarations": [*base.declarations, *helpers],
                                         "scenarios": scenarios})

        yield merged, ruleset.files, True, helpers


HELPER_KINDS = ("define", "procedure", "const")


def scenario_helpers(program: A.Program, file: str, problems: list[Diagnostic]) -> list:
    """The declarations a file of scenarios gives its scenarios: procedures, defines and
    constants (anything else would change the game under test)."""
    helpers = []
    for d in program.declarations:
        if d.kind in HELPER_KINDS:
            helpers.append(d)
        else:
            problems.append(Diagnostic(
                "E0515", f"a file of scenarios declares a {d.kind}: it may declare only "
                "procedures, defines and constants for its scenarios", file=file,
                hint="declare it in the game, or in a variant the scenarios choose with "
                     "`variant \"...\"`", **span_fields(d.span)))
    return helpers


def _own_or_errors(found: list[Diagnostic], file: str) -> list[Diagnostic]:
    return sorted((d for d in found if d.file == file or d.is_error), key=Diagnostic.sort_key)
