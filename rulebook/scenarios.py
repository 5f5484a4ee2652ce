"""Find and run the scenario tests in rules files (used by `rulebook test` and by pytest)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .interpreter.scenario import ScenarioResult, run_scenarios
from .interpreter.state import Limits
from .validator.diagnostics import Diagnostic, DiagnosticError


_SCENARIO_HEADER = re.compile(r'^[ \t]*scenario[ \t]+"', re.MULTILINE)


def collect(paths) -> tuple[list[str], list[Diagnostic]]:
    """The rules files under `paths`, found as `rulebook check` finds them."""
    from .validator.check import expand_paths

    return expand_paths(paths)


@dataclass
class FileOutcome:
    """The scenarios of one file, or why the file could not be run (it failed `check`)."""

    results: list[ScenarioResult] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    held: int = 0  # scenarios the file holds, run or not


def run_file(file: str, limits: Limits | None = None,
             variants: tuple[str, ...] = ()) -> FileOutcome:
    """Check one file, then run every scenario it holds (with `variants` added to the rules
    each scenario names, as `rulebook test --variant` asks)."""
    from .loader import parse_cached
    from .validator.check import check_path

    checked = check_path(file)
    outcome = FileOutcome(sources=dict(checked.sources))
    try:
        _, program = parse_cached(file)
        outcome.held = len(program.scenarios)
    except DiagnosticError:
        program = None
        # a file that does not parse still says how many scenarios it was meant to hold
        outcome.held = len(_SCENARIO_HEADER.findall(checked.sources.get(file, "")))
    errors = [d for d in checked.diagnostics if d.is_error]
    if errors or program is None:
        outcome.diagnostics = errors
        return outcome
    if not program.scenarios:
        return outcome
    compiled: dict[tuple, object] = {}

    def rules_for(ruleset: str | None, node=None, chosen=()):
        if ruleset is None and program.header is None:
            raise DiagnosticError([Diagnostic(
                "E0401", "this scenario needs `ruleset \"path\"`: its file is not a game",
                file=file, hint='add `ruleset "../game.rules"` at the start of the scenario')])
        key = (ruleset, tuple(chosen))
        if key not in compiled:
            compiled[key] = _rules_for(file, program, ruleset, node, (*chosen, *variants))
            outcome.sources.update(compiled[key].sources)
        return compiled[key]

    outcome.results = run_scenarios(program, file, rules_for, limits)
    return outcome


def _rules_for(file: str, program, ruleset: str | None, node, variants: tuple[str, ...]):
    """The rules a scenario runs against: its file's game, or the ruleset it names, with the
    chosen variants and the procedures, defines and constants of a file of scenarios."""
    from .api import _load_path
    from .interpreter.rules import compile_rules
    from .loader import scenario_ruleset
    from .validator.check import HELPER_KINDS

    target = file if ruleset is None else scenario_ruleset(file, ruleset, node)
    rules = _load_path(str(Path(target).resolve()), variants)
    helpers = [d for d in program.declarations if d.kind in HELPER_KINDS]
    if program.header is not None or not helpers:
        return rules
    merged = rules.program.model_copy(
        update={"declarations": [*rules.program.declarations, *helpers]})
    with_helpers = compile_rules(merged)
    for name in ("source_path", "sources", "chain", "variants"):
        setattr(with_helpers, name, getattr(rules, name))
    return with_helpers
