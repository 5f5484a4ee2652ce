"""The play, simulate, test and replay commands, end to end."""
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rulebook.cli import main

ROOT = Path(__file__).resolve().parents[1]
TTT = str(ROOT / "rulesets" / "examples" / "tictactoe.rules")


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    return result


def test_a_person_plays_tictactoe_to_the_end_at_the_terminal():
    # seat 1 is the person (typing option numbers), seat 2 always takes the first free cell
    result = run("play", TTT, "--seat", "2=first", input="1\n1\n1\n1\n")
    assert result.exit_code == 0, result.output
    assert "Your decision: Place your mark" in result.output
    assert "Winner(s): player 1" in result.output


def test_play_save_quit_and_continue(tmp_path):
    save = tmp_path / "game.save.json"
    first = run("play", TTT, "--seat", "2=first", "--save-to", str(save), input="1\nq\n")
    assert first.exit_code == 0 and save.exists()
    data = json.loads(save.read_text())
    assert [h["option"] for h in data["history"]] == ["place:1:1", "place:1:2"]
    again = run("play", TTT, "--load", str(save), "--seat", "2=first", input="1\n1\n1\n")
    assert again.exit_code == 0, again.output
    assert "Winner(s): player 1" in again.output


def test_undo_only_the_last_own_decision(tmp_path):
    rules = tmp_path / "two_steps.rules"
    rules.write_text("""game "Two steps" {
    players 2
}
player picks: list of int
play {
    for p in players {
        repeat 2 times {
            choose p "Pick a number" { option pick for n in 1..3 { add n to p.picks } }
        }
    }
}
winner p in players by sum(p.picks) descending
""")
    # undo before deciding: nothing of mine; pick 1, undo it, pick 3 then 2; player 2 is a bot
    result = run("play", str(rules), "--seat", "2=first", input="u\n1\nu\n3\n2\nu\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Nothing of yours to undo") == 1
    assert "player 1: pick 1" not in result.output.split("Winner")[1]
    final = result.output.split("Winner")[0]
    assert "picks [3; 2]" in final


def test_simulate_is_reproducible_and_independent_of_jobs():
    one = run("simulate", TTT, "--games", "40", "--seed", "3", "--json")
    two = run("simulate", TTT, "--games", "40", "--seed", "3", "--json")
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["games"] == 40 and data["errors"] == 0
    assert sum(data["wins_per_seat"].values()) + 0 >= 1
    jobs = subprocess.run([sys.executable, "-m", "rulebook", "simulate", TTT, "--games", "40",
                           "--seed", "3", "--json", "--jobs", "2"], capture_output=True, text=True)
    assert jobs.returncode == 0, jobs.stderr
    assert jobs.stdout == one.stdout


def test_test_command_runs_scenarios_and_reports_failures(tmp_path):
    ok = run("test", TTT)
    assert ok.exit_code == 0 and "1 passed, 0 failed" in ok.output
    bad = tmp_path / "bad.rules"
    bad.write_text('scenario "wrong" {\n    ruleset "examples/tictactoe"\n    players 2\n'
                   '    choose players[1] "place:1:1"\n    expect players[1].won "should not hold"\n}\n')
    result = run("test", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:5:5: error[E0400]: should not hold" in result.output


def test_a_scenario_file_that_fails_check_counts_its_scenarios_as_failed(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text(f'scenario "outside" {{\n    ruleset "{TTT}"\n    players 2\n}}\n'
                   'scenario "second" {\n    ruleset "{TTT}"\n    players 2\n}\n')
    result = run("test", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:2:5: error[E0511]: `ruleset` names an absolute path" in result.output
    assert "the file cannot be run (it holds 2 scenarios)" in result.output
    assert result.output.strip().endswith("0 passed, 2 failed")
    # a syntax error: the scenarios written in the file are counted all the same
    bad.write_text('scenario "one" {\n    expect 1 ==\n}\n  scenario "two" {\n}\n'
                   'scenario "three" {\n}\n')
    result = run("test", str(bad))
    assert "error[E0100]" in result.output
    assert "the file cannot be run (it holds 3 scenarios)" in result.output
    assert result.output.strip().endswith("0 passed, 3 failed")


def test_replay_prints_the_log_and_refuses_a_corrupt_save(tmp_path):
    save = tmp_path / "g.json"
    run("play", TTT, "--seat", "2=first", "--save-to", str(save), input="1\ns\n1\n1\n1\n")
    result = run("replay", str(save))
    assert result.exit_code == 0, result.output
    assert "player 1: row 1, column 1" in result.output
    save.write_text("{not json")
    broken = run("replay", str(save), "--ruleset", TTT)
    assert broken.exit_code == 1 and "E0314" in broken.output


def test_many_short_options_are_listed_in_columns():
    from rulebook.interpreter.human import option_lines

    lines = option_lines([(f"bid:{n}", f"Bid {n}") for n in range(1, 41)])
    assert len(lines) < 10 and "40) Bid 40" in lines[-1]
    few = option_lines([("a", "Take a card"), ("b", "Pass")])
    assert few == ["    1) Take a card", "    2) Pass"]


def test_two_people_at_one_terminal_hand_it_over_between_turns():
    result = run("play", TTT, "--seat", "1=human", "--seat", "2=human",
                 input="\n1\n" * 7)
    assert result.exit_code == 0, result.output
    assert "Winner(s): player 1" in result.output
    assert result.output.count("Pass the terminal to player") == 7
    # after each handover, only the new player's view is shown
    first_prompt = result.output.split("Pass the terminal to player 2")[1]
    assert "you are player 2" in first_prompt.split("Your decision")[0]


def test_labels_that_overrun_their_budget_end_play_with_a_located_diagnostic():
    """A person's options are listed with their labels: rules whose labels cost more than the
    budget of work that leaves no trace end the game with E0301 at the label, not a crash."""
    hostile = ROOT / "tests" / "hostile" / "rulesets" / "option_labels_holes_each.rules"
    result = run("play", str(hostile), "--seed", "1", input="1\nq\n")
    assert result.exit_code == 1
    assert "error[E0301]" in result.output and "E0999" not in result.output
    assert "option_labels_holes_each.rules:8:" in result.output


def test_a_person_at_a_terminal_sees_a_searching_bot_think(monkeypatch, capsys):
    from rulebook import cli_game

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    with cli_game._thinking(2, "ismcts:100", shown=True):
        assert capsys.readouterr().out == "player 2 (ismcts:100) is thinking..."
    assert capsys.readouterr().out == "\r\x1b[K"  # wiped once it has decided
    for seat, kind, shown in [(2, "random", True), (2, "ismcts", False)]:
        with cli_game._thinking(seat, kind, shown):
            pass
        assert capsys.readouterr().out == ""  # a quick bot, or nobody watching: nothing shown


def _play_until_asked(tmp_path, *args):
    """`rulebook play` in a process of its own, its first decision made (the move is
    option 1), waiting for its second."""
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", "from rulebook.cli import main; main()", "play", TTT, "--seed",
         "3", *args],
        cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    proc.stdin.write("1\n")
    proc.stdin.flush()
    out = ""
    deadline = time.monotonic() + 60
    while out.count("Your decision") < 2 and time.monotonic() < deadline:
        out += proc.stdout.read(1)
    return proc, out


def test_a_closed_terminal_ends_play_with_the_game_saved(tmp_path):
    import signal

    proc, out = _play_until_asked(tmp_path, "--seat", "2=first")
    assert out.count("Your decision") == 2, out
    proc.send_signal(signal.SIGHUP)  # what a closed terminal sends
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGHUP, err
    assert "Traceback" not in err and "the game is saved to rulebook-game.save.json" in rest
    saved = json.loads((tmp_path / "rulebook-game.save.json").read_text())
    assert [h["option"] for h in saved["history"]] == ["place:1:1", "place:1:2"]
    assert not list(tmp_path.glob(".rulebook-*"))  # no half-written file left behind
    again = run("play", TTT, "--load", str(tmp_path / "rulebook-game.save.json"), "--seat",
                "2=first", input="1\n1\n1\n")
    assert again.exit_code == 0 and "Winner(s): player 1" in again.output, again.output


def test_a_signal_never_writes_over_a_file_that_is_not_the_games(tmp_path):
    import signal

    (tmp_path / "rulebook-game.save.json").write_text("someone else's")
    proc, out = _play_until_asked(tmp_path, "--seat", "2=first")
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert (tmp_path / "rulebook-game.save.json").read_text() == "someone else's"
    assert "saved to rulebook-game-2.save.json" in rest
    assert json.loads((tmp_path / "rulebook-game-2.save.json").read_text())["history"]


def test_a_save_nobody_can_confirm_goes_beside_the_file_it_would_write_over(tmp_path):
    from rulebook import api
    from rulebook.cli_game import _SaveTarget

    folder = tmp_path / "my.saves"  # a dot in a folder's name is not the file's
    folder.mkdir()
    taken = folder / "game.save.json"
    taken.write_text("someone else's")
    target = _SaveTarget(str(taken), owned=False)
    assert target.write(api.new_game(api.load(TTT), 2, 1), ask=False) is None
    assert target.path == str(folder / "game-2.save.json")
    assert taken.read_text() == "someone else's"
    assert json.loads((folder / "game-2.save.json").read_text())["format"] == "rulebook-save"
