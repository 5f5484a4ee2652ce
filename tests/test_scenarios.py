"""Every scenario written in the rules files under rulesets/ runs as a pytest test."""
from pathlib import Path

import pytest

from rulebook.grammar.parser import parse_file
from rulebook.scenarios import run_file

ROOT = Path(__file__).resolve().parents[1] / "rulesets"


def _files_with_scenarios():
    for path in sorted(ROOT.rglob("*.rules")):
        try:
            if parse_file(path).scenarios:
                yield path
        except Exception:  # a broken file is reported by test_all_rulesets_check
            continue


FILES = list(_files_with_scenarios())


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenarios_pass(path):
    outcome = run_file(str(path))
    results, problems = outcome.results, outcome.diagnostics
    assert not problems, [d.message for d in problems]
    assert results, "the file has scenarios, so there must be results"
    failures = [f"{r.name}: {d.located()}: {d.message} ({d.hint})"
                for r in results for d in r.failures]
    assert not failures, "\n".join(failures)


def test_there_are_scenarios_for_every_bundled_game():
    games = {p.relative_to(ROOT).parts[0] for p in FILES}
    assert {"examples", "liqueur", "beverage"} <= games
