"""Find and run the scenario tests in rules files (used by `rulebook test` and by pytest)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .interpreter.scenario import ScenarioResult, run_scenarios
from .interpreter.state import Limits
from .validator.diagnostics import Diagnostic, DiagnosticError


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


def run_file(file: str, limits: Limits | None = None) -> FileOutcome:
    """Check one file, then run every scenario it holds."""
    from .api import _load_path
    from .loader import parse_cached, scenario_ruleset
    from .validator.check import check_path

    checked = check_path(file)
    outcome = FileOutcome(sources=dict(checked.sources))
    try:
        _, program = parse_cached(file)
        outcome.held = len(program.scenarios)
    except DiagnosticError:
        program = None
    errors = [d for d in checked.diagnostics if d.is_error]
    if errors or program is None:
        outcome.diagnostics = errors
        return outcome
    if not program.scenarios:
        return outcome

    def rules_for(ruleset: str | None, node=None):
        if ruleset is None and program.header is None:
            raise DiagnosticError([Diagnostic(
                "E0401", "this scenario needs `ruleset \"path\"`: its file is not a game",
                file=file, hint='add `ruleset "../game.rules"` at the start of the scenario')])
        target = file if ruleset is None else scenario_ruleset(file, ruleset, node)
        rules = _load_path(str(Path(target).resolve()))
        outcome.sources.update(rules.sources)
        return rules

    outcome.results = run_scenarios(program, file, rules_for, limits)
    return outcome
