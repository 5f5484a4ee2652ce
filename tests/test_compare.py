"""`rulebook compare`: runs of rulesets, variants and agents, with the differences against the
first and their 95% intervals."""
from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from rulebook.cli import main
from rulebook.cli_report import parse_run
from rulebook.report import Setting, compare, simulate

DATA = Path(__file__).parent / "data" / "report"
COIN, LOADED = str(DATA / "coin.rules"), str(DATA / "loaded.rules")


def test_runs_name_rulesets_variants_and_agents():
    assert parse_run("beverage", None, "random", "turn") == Setting("beverage")
    run = parse_run("beverage+open_market+handicaps", 3, "random", "turn")
    assert run.variants == ("open_market", "handicaps") and run.players == 3
    run = parse_run("liqueur@3=first,1=first", None, "random", "turn")
    assert run.seat_agents == ((1, "first"), (3, "first")) and run.agent == "random"
    assert run.label() == "liqueur@1=first,3=first"
    assert parse_run("liqueur@first", None, "random", "turn").agents == "first"
    for bad in ("liqueur@1=human", "liqueur@x=first", "@first", "liqueur@wise"):
        with pytest.raises(click.BadParameter):
            parse_run(bad, None, "random", "turn")


def test_a_loaded_coin_differs_from_a_fair_one():
    fair = simulate(Setting(COIN), 300, seed=2)
    loaded = simulate(Setting(LOADED), 300, seed=2)
    rows = {r["what"]: r for r in compare([fair, loaded])["differences"]}
    seat1 = rows["seat 1 win rate"]
    assert seat1["low"] <= 0.1 <= seat1["high"] and seat1["shows_a_difference"]
    assert rows["seat 2 win rate"]["difference"] == pytest.approx(-seat1["difference"])
    assert not rows["decisions per game"]["shows_a_difference"]  # both games are 2 decisions
    assert rows["games ending in error"]["difference"] == 0


def test_compare_command_prints_differences_and_agents_change_what_is_taken():
    result = CliRunner().invoke(main, ["compare", COIN, f"{COIN}@first", "--games", "40",
                                       "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["baseline"] == COIN
    assert [r["run"] for r in figures["runs"]] == [COIN, f"{COIN}@first"]
    # the same seeds: the coin falls the same way whoever calls it
    assert {r["difference"] for r in figures["differences"]} == {0}
    text = CliRunner().invoke(main, ["compare", COIN, LOADED, "--games", "40"])
    assert text.exit_code == 0 and "seat 1 win rate" in text.output
    assert "seat 2 mean score" in text.output and "interval" in text.output


def test_compare_needs_two_runs_and_known_rulesets():
    assert CliRunner().invoke(main, ["compare", COIN]).exit_code == 2
    result = CliRunner().invoke(main, ["compare", COIN, "no_such_game"])
    assert result.exit_code == 1 and "E0501" in result.output
