"""Find and run the scenario tests in rules files (used by `rulebook test` and by pytest)."""
from __future__ import annotations

from pathlib import Path

from .grammar.parser import parse_file
from .interpreter.scenario import ScenarioResult, run_scenarios
from .validator.diagnostics import Diagnostic, DiagnosticError


def collect(paths) -> tuple[list[str], list[Diagnostic]]:
    """The rules files under `paths`, found as `rulebook check` finds them."""
    from .validator.check import expand_paths

    return expand_paths(paths)


def run_file(file: str) -> tuple[list[ScenarioResult], list[Diagnostic]]:
    """Run every scenario of one file; diagnostics if the file itself cannot be read."""
    from .api import _load_path

    try:
        program = parse_file(file)
    except DiagnosticError as e:
        return [], e.diagnostics
    if not program.scenarios:
        return [], []

    def rules_for(ruleset: str | None):
        target = ruleset or file
        if ruleset is None and program.header is None:
            raise DiagnosticError([Diagnostic(
                "E0401", "this scenario needs `ruleset \"path\"`: its file is not a game",
                file=file, hint='add `ruleset "../game.rules"` at the start of the scenario')])
        return _load_path(str(Path(target).resolve()))

    return run_scenarios(program, file, rules_for), []
