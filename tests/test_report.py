"""`rulebook simulate --report`: the results object, the files written and the terminal summary."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from rulebook.cli import main
from rulebook.report import Setting, SimulationResults, simulate
from rulebook.report.watch import option_name

DATA = Path(__file__).parent / "data" / "report"
COIN = str(DATA / "coin.rules")
FRAGILE = str(DATA / "fragile.rules")


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_option_names_are_the_names_in_the_rules():
    assert option_name("place:1:2") == "place"
    assert option_name("take~2") == "take"
    assert option_name("done") == "done"


def test_results_record_what_was_offered_and_taken_by_name():
    results = simulate(Setting(COIN), games=20, seed=3)
    assert [g.index for g in results.games] == list(range(20))
    assert [g.seed for g in results.games] == list(range(3, 23))
    g = results.games[0]
    assert len(g.winners) == 1 and g.decisions == 2 and g.turns == 2
    names = {(name, seat) for name, _, seat, offered, _ in g.options if offered}
    assert names == {("heads", 1), ("tails", 1), ("heads", 2), ("tails", 2)}
    assert sum(taken for *_, taken in g.options) == 2  # one call per seat
    assert all(place.startswith("coin.rules:") for _, place, *_ in g.options)
    assert g.widths == [(2, 2)]  # two decisions of two options each
    assert "setup" in g.phase_seconds


def test_results_do_not_depend_on_the_processes_and_round_trip_as_json():
    one = simulate(Setting(COIN), games=30, seed=5)
    two = simulate(Setting(COIN), games=30, seed=5, jobs=2)
    assert one.to_json(timing=False) == two.to_json(timing=False)
    back = SimulationResults.from_dict(json.loads(one.to_json()))
    assert back.to_json(timing=False) == one.to_json(timing=False)


def test_report_files_hold_the_figures(tmp_path):
    result = run("simulate", COIN, "--games", "60", "--seed", "2", "--report", str(tmp_path))
    assert result.exit_code == 0, result.output
    for name in ("index.html", "figures.json", "win_rate.csv", "options.csv", "games.csv",
                 "games.json", "length.csv", "phase_time.csv", "errors.csv", "scores.csv"):
        assert (tmp_path / name).is_file(), name
    figures = json.loads((tmp_path / "figures.json").read_text())
    wins = figures["win_rate"]["rows"]
    assert sum(r["wins"] for r in wins) == 60 and all(r["low"] < r["rate"] < r["high"]
                                                       for r in wins)
    options = {r["option"]: r for r in figures["options"]["rows"]}
    assert set(options) == {"heads", "tails"}
    assert options["heads"]["offered"] == 120 and options["heads"]["taken"] \
        + options["tails"]["taken"] == 120
    assert [r["measure"] for r in figures["length"]["rows"]] == ["decisions", "rounds", "turns"]
    rows = list(csv.DictReader((tmp_path / "win_rate.csv").open()))
    assert [r["seat"] for r in rows] == ["1", "2"]
    page = (tmp_path / "index.html").read_text()
    assert page.count("data:image/png;base64,") >= 5 and "Wilson" in page
    # the terminal summary: win rates with intervals, the balance test, a histogram line
    assert "95% interval" in result.output and "seat balance" in result.output
    assert "decisions per game" in result.output


def test_errors_are_listed_with_their_first_decisions_and_how_to_replay(tmp_path):
    result = run("simulate", FRAGILE, "--games", "40", "--report", str(tmp_path), "--json")
    assert result.exit_code == 1  # games ended in errors, as simulate says
    figures = json.loads((tmp_path / "figures.json").read_text())
    errors = figures["errors"]
    assert errors["count"] > 0 and set(errors["by_code"]) == {"E0305"}
    first = errors["rows"][0]
    assert first["first_decisions"][0].startswith("1:") and len(first["first_decisions"]) == 2
    assert first["replay"].endswith(f"--games 1 --seed {first['seed']}")
    again = run(*first["replay"].split()[1:])
    assert again.exit_code == 1 and "E0305" in again.output
    assert figures["options"]["never_offered"] == ["never"]
    assert "never" not in figures["options"]["never_taken"]


def test_report_without_a_writable_folder_is_a_diagnostic(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = CliRunner().invoke(main, ["simulate", COIN, "--games", "2", "--report",
                                       str(blocker / "sub")])
    assert result.exit_code == 1 and "E0009" in result.output and "Traceback" not in result.output


def test_quiet_and_piped_runs_show_no_progress_bar():
    result = CliRunner().invoke(main, ["simulate", COIN, "--games", "5"])
    assert result.exit_code == 0 and "\x1b" not in result.stderr
    result = CliRunner().invoke(main, ["test", str(DATA), "--quiet"])
    assert "\x1b" not in result.output


def _on_a_terminal(*args: str) -> tuple[str, str]:
    """What `rulebook ARGS` writes to its standard error when that is a terminal, and to its
    standard output when that is a pipe."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "rulebook", *args], stdout=subprocess.PIPE,
                               stderr=slave, env={**os.environ, "COLUMNS": "120"})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    out = process.stdout.read().decode()
    process.wait()
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace"), out


def test_a_terminal_shows_progress_with_rate_and_time_left_unless_quiet():
    shown, out = _on_a_terminal("simulate", COIN, "--games", "300")
    assert "games" in shown and "games/s" in shown and "left" in shown and "300/300" in shown
    assert "seat 1:" in out and "\x1b" not in out
    quiet, _ = _on_a_terminal("simulate", COIN, "--games", "300", "--quiet")
    assert "left" not in quiet and "time " in quiet  # the timing line stays
    shown, out = _on_a_terminal("test", str(DATA))  # three files: a bar over files
    assert "files" in shown and out == "0 passed, 0 failed\n"
