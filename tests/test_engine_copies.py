"""The flow is data: a game copies, saves, loads and undoes from its state, never by replaying its
history; old saves still load (by replay) or are refused with a clear error; invariants are
checked by the inputs they read; and the constructs that had two implementations have one."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulebook import api
from rulebook.cli import main
from rulebook.interpreter.agents import RandomAgent
from rulebook.interpreter.game import Game
from rulebook.interpreter.machine import Machine
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"


def played(ref: str, players: int, seed: int, decisions: int) -> Game:
    game = api.new_game(api.load(ref), players=players, seed=seed)
    agents = {s.seat: RandomAgent(seed * 10 + s.seat) for s in game.state.seats}
    for _ in range(decisions):
        if game.over:
            break
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options()), seat)
    return game


def finish(game: Game, seed: int) -> list[str]:
    """Play to the end with seeded bots; the ids chosen."""
    agents = {s.seat: RandomAgent(seed + s.seat) for s in game.state.seats}
    chosen = []
    while not game.over:
        seat = game.pending_seat()
        option = agents[seat].decide(None, game.legal_options())
        chosen.append(option)
        game.apply(option, seat)
    return chosen


@pytest.fixture
def no_running(monkeypatch):
    """Make running the rules an error: what follows must work from data alone."""
    def refuse(*args, **kwargs):
        raise AssertionError("the rules ran: this should have been a copy of data")
    monkeypatch.setattr(Machine, "resume", refuse)
    monkeypatch.setattr(Machine, "start", refuse)
    monkeypatch.setattr(Machine, "run", refuse)
    return refuse


# --------------------------------------------------------------------------- clone
@pytest.mark.parametrize("ref,players", [("beverage", 3), ("liqueur", 3),
                                         ("examples/tictactoe", 2)])
def test_clone_copies_state_and_flow_without_running_the_rules(ref, players, monkeypatch):
    game = played(ref, players, seed=3, decisions=25)
    digest = game.digest()
    with monkeypatch.context() as m:
        m.setattr(Machine, "resume", lambda *a, **k: pytest.fail("clone ran the rules"))
        m.setattr(Machine, "run", lambda *a, **k: pytest.fail("clone ran the rules"))
        copy = game.clone()
    assert copy.digest() == digest
    assert copy.legal_options() == game.legal_options()
    # Both go on identically, and independently: playing one leaves the other as it was.
    assert finish(copy, 11) == finish(game.clone(), 11)
    assert game.digest() == digest


def test_a_clone_does_not_share_state_with_its_original():
    game = played("liqueur", 3, seed=4, decisions=10)
    copy = game.clone()
    before = game.state_digest()
    finish(copy, 5)
    assert copy.over
    assert game.state_digest() == before
    assert not game.over


# ----------------------------------------------------------------------------- save/load
def test_a_save_loads_without_replaying_and_goes_on_identically(no_running, monkeypatch):
    monkeypatch.undo()  # play first, with the rules running
    game = played("beverage", 3, seed=6, decisions=30)
    data = json.loads(json.dumps(game.save()))
    rules = api.load("beverage")
    with monkeypatch.context() as m:
        m.setattr(Machine, "resume", no_running)
        m.setattr(Machine, "start", no_running)
        m.setattr(Machine, "run", no_running)
        loaded = Game.load(data, rules)
    assert loaded.digest() == game.digest()
    assert loaded.history == game.history
    assert finish(loaded, 21) == finish(game, 21)
    assert loaded.digest() == game.digest()


def test_verify_replays_the_decisions_and_agrees():
    game = played("liqueur", 3, seed=8, decisions=20)
    data = json.loads(json.dumps(game.save()))
    assert Game.load(data, api.load("liqueur"), verify=True).digest() == game.digest()


def test_a_verified_save_whose_steps_alone_were_changed_is_refused():
    # verifying compares the replayed game with the saved one but for the count of steps
    # (engines count their work differently); the digest still covers it
    game = played("liqueur", 3, seed=8, decisions=20)
    data = json.loads(json.dumps(game.save()))
    data["game"]["state"]["steps"] += 1
    for verify in (True, False):
        with pytest.raises(DiagnosticError, match="does not (replay to the state it recorded|hold the game its digest recorded)"):
            Game.load(data, api.load("liqueur"), verify=verify)


def test_a_save_whose_game_data_was_changed_is_refused():
    game = played("examples/tictactoe", 2, seed=2, decisions=3)
    data = json.loads(json.dumps(game.save()))
    data["game"]["state"]["globals"]["moves"] = 1
    with pytest.raises(DiagnosticError) as err:
        Game.load(data, api.load("examples/tictactoe"))
    d = err.value.diagnostics[0]
    assert d.code == "E0314" and "digest" in d.message


@pytest.mark.parametrize("change", ["history", "players", "seed"])
def test_a_save_whose_decisions_players_or_seed_were_changed_alone_is_refused(change):
    game = played("examples/tictactoe", 2, seed=2, decisions=3)
    data = json.loads(json.dumps(game.save()))
    if change == "history":  # the same decisions, said to be made by the other seat
        data["history"][0]["player"] = 3 - data["history"][0]["player"]
    else:
        data[change] += 1
    with pytest.raises(DiagnosticError) as err:
        Game.load(data, api.load("examples/tictactoe"))
    # three players cannot even sit at tic-tac-toe (E0315); the others fail the digest (E0314)
    assert err.value.diagnostics[0].code == ("E0315" if change == "players" else "E0314")


def test_a_version_3_save_loads_by_replaying_and_its_changed_decisions_are_refused():
    game = played("examples/tictactoe", 2, seed=2, decisions=3)
    data = json.loads(json.dumps(game.save()))
    data["version"], data["digest"] = 3, game.game_digest()  # what version 3 wrote
    assert Game.load(data, api.load("examples/tictactoe")).digest() == game.digest()
    data["history"] = data["history"][:2]
    with pytest.raises(DiagnosticError) as err:
        Game.load(data, api.load("examples/tictactoe"))
    assert err.value.diagnostics[0].code == "E0314"


@pytest.mark.parametrize("name,over", [("tictactoe_v2_midgame.json", False),
                                       ("tictactoe_v2_finished.json", True)])
def test_saves_of_the_previous_version_load_by_replaying_them(name, over):
    data = json.loads((DATA / name).read_text())
    assert data["version"] == 2
    game = Game.load(data, api.load("examples/tictactoe"))
    assert game.over is over
    assert game.state_digest() == data["digest"]
    assert len(game.history) == len(data["history"])


# Liqueur's and Beverage's saves were written with their rules as they stood then (kept in
# tests/data): the bundled rules have changed since, and refuse them
# (`test_a_save_of_rules_since_changed_is_refused_naming_what_changed`).
LIQUEUR_AS_SAVED = str(DATA / "liqueur_as_saved.rules")
BEVERAGE_AS_SAVED = str(DATA / "beverage_as_saved.rules")
V4_SAVES = [("beverage_v4_midgame.json", BEVERAGE_AS_SAVED),
            ("liqueur_v4_midgame.json", LIQUEUR_AS_SAVED)]
# Written by the engine whose flow was frames per block, loop and decision (before routines),
# one of them waiting inside `simultaneously`.
V5_SAVES = [("liqueur_v5_midgame.json", LIQUEUR_AS_SAVED),
            ("beverage_v5_simultaneous.json", BEVERAGE_AS_SAVED),
            ("smartphone_inc_v5_midgame.json", "smartphone_inc")]


@pytest.mark.parametrize("name,ruleset", V4_SAVES + V5_SAVES)
def test_saves_of_earlier_engines_load_by_replaying_to_their_recorded_state(name, ruleset):
    """Written by earlier engines (4: each statement on its own; 5: frames per block, loop and
    decision; their flows name code this engine does not have): replayed, and the state
    reached compared with the saved one, but for the count of steps (those engines charged a
    log line's work to the game); the game then goes on as a game replayed from its decisions
    does."""
    data = json.loads((DATA / name).read_text())
    assert data["version"] == int(name.split("_v")[1][0])
    rules = api.load(ruleset)
    game = Game.load(data, rules)
    reached, saved = game.state_written(), data["game"]["state"]
    assert reached.pop("steps") <= saved.pop("steps")  # fewer: log lines leave no trace now
    assert reached == saved
    fresh = Game.replay(rules, data["players"], data["seed"], data["history"])
    for g in (game, fresh):
        agents = {s.seat: RandomAgent(s.seat) for s in g.state.seats}
        for _ in range(15):
            g.apply(agents[g.pending_seat()].decide(None, g.legal_options(bots=True)))
    assert game.digest() == fresh.digest()
    again = game.save()
    assert again["version"] == 6
    assert Game.load(again, rules).digest() == game.digest()


@pytest.mark.parametrize("name", ["liqueur_v4_midgame.json", "liqueur_v5_midgame.json"])
@pytest.mark.parametrize("part", ["state", "digest", "history"])
def test_a_changed_save_of_an_earlier_engine_is_refused(part, name):
    data = json.loads((DATA / name).read_text())
    if part == "state":
        data["game"]["state"]["round"] += 1
    elif part == "digest":
        data["digest"] = "f" * 64
    else:
        data["history"] = data["history"][:-1]
    with pytest.raises(DiagnosticError) as err:
        Game.load(data, api.load(LIQUEUR_AS_SAVED))
    assert err.value.diagnostics[0].code == "E0314"


@pytest.mark.parametrize("name,ruleset,change", [
    ("liqueur_v4_midgame.json", "liqueur", "procedure take (changed)"),
    ("liqueur_v5_midgame.json", "liqueur", "procedure refill_column (added)"),
    ("beverage_v5_simultaneous.json", "beverage", "define cards_built (changed)")])
def test_a_save_of_rules_since_changed_is_refused_naming_what_changed(name, ruleset, change):
    data = json.loads((DATA / name).read_text())
    with pytest.raises(DiagnosticError) as err:
        Game.load(data, api.load(ruleset))
    d = err.value.diagnostics[0]
    assert d.code == "E0317"
    assert d.message.startswith("the rules changed since this game was saved: ")
    assert change in d.message


def test_a_changed_save_of_the_previous_version_is_refused_even_when_accepting_changes():
    data = json.loads((DATA / "tictactoe_v2_midgame.json").read_text())
    data["digest"] = "0" * len(data["digest"])
    for accept in (False, True):  # the rules did not change: the digest must still match
        with pytest.raises(DiagnosticError) as err:
            Game.load(data, api.load("examples/tictactoe"), accept_changed_rules=accept)
        assert err.value.diagnostics[0].code == "E0314"


# ----------------------------------------------------------------------------------- undo
def test_undo_steps_back_without_replaying(monkeypatch):
    game = played("beverage", 3, seed=9, decisions=12)
    game.audit_reveals = True  # as at the table: undo keeps the games before each decision
    digests = []
    agents = {s.seat: RandomAgent(s.seat) for s in game.state.seats}
    for _ in range(4):
        digests.append(game.digest())
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options()), seat)
    with monkeypatch.context() as m:
        m.setattr(Machine, "resume", lambda *a, **k: pytest.fail("undo ran the rules"))
        m.setattr(Machine, "start", lambda *a, **k: pytest.fail("undo ran the rules"))
        m.setattr(Machine, "run", lambda *a, **k: pytest.fail("undo ran the rules"))
        for expected in reversed(digests):
            game = game.undo()
            assert game.digest() == expected


# ----------------------------------------------------------------------------- invariants
BROKEN = '''game "Counting" {
    players 2
}
global total: int = 0
global other: int = 0
player mine: int = 0
invariant sums "the total is what the players hold": total == sum(p.mine for p in players)
play {
    rounds {
        for p in players {
            turn p {
                choose p "Act" {
                    option take {
                        increase p.mine by 1
                        increase total by 1
                    }
                    option cheat {
                        increase p.mine by 1
                    }
                    option other {
                        increase other by 1
                    }
                }
                if round == 3 {
                    end game
                }
            }
        }
    }
}
'''


def _counting(tmp_path, invariants, log=True):
    path = tmp_path / "counting.rules"
    path.write_text(BROKEN)
    return Game(api.load(str(path)), 2, 0, invariants=invariants, log=log)


@pytest.mark.parametrize("mode", ["changed", "every"])
def test_an_invariant_is_checked_after_the_decision_that_breaks_it(tmp_path, mode):
    game = _counting(tmp_path, mode)
    game.apply("take", 1)
    assert game.error is None
    with pytest.raises(DiagnosticError) as err:
        game.apply("cheat", 2)
    assert err.value.diagnostics[0].code == "E0313"
    assert "sums" in err.value.diagnostics[0].message and game.error is not None


def test_an_invariant_is_not_evaluated_when_nothing_it_reads_changed(tmp_path):
    """An invariant checked is a step, counted apart from the game's (a game with no log has
    no other work that leaves no trace)."""
    game = _counting(tmp_path, "changed", log=False)
    inv, reads = game.rules.code.invariants[0]
    assert reads == {"total", "mine"}
    checked = game.machine.side_steps
    game.apply("other", 1)
    assert game.machine.side_steps == checked
    game.apply("take", 2)
    assert game.machine.side_steps > checked


def test_in_turn_mode_a_break_is_caught_at_the_end_of_the_turn(tmp_path):
    game = _counting(tmp_path, "turn")
    with pytest.raises(DiagnosticError) as err:
        game.apply("cheat", 1)  # the turn ends with the decision: the next turn checks
    assert err.value.diagnostics[0].code == "E0313"


def test_simulate_says_how_invariants_are_checked():
    result = CliRunner().invoke(main, ["simulate", "--help"])
    assert "--invariants" in result.output
    result = CliRunner().invoke(main, ["simulate", "examples/tictactoe", "--games", "3",
                                       "--invariants", "every"])
    assert result.exit_code == 0, result.output


# ------------------------------------------------------- one implementation per construct
MAP_OPTIONS = '''game "Map options" {
    players 1
}
global stock: map of text to int = map { "apple": 2, "pear": 3 }
global picked: text = ""
play {
    choose players[1] "Pick" {
        option pick for k in stock label "{k}" {
            set picked = k
        }
    }
}
scenario "a map's keys are options" {
    players 1
    expect options players[1] == ["pick:apple", "pick:pear"]
    choose players[1] "pick:pear"
    expect picked == "pear"
}
'''


def test_an_option_over_a_map_checks_and_runs(tmp_path):
    path = tmp_path / "map_options.rules"
    path.write_text(MAP_OPTIONS)
    checked = CliRunner().invoke(main, ["check", str(path)])
    assert checked.exit_code == 0, checked.output
    tested = CliRunner().invoke(main, ["test", str(path)])
    assert tested.exit_code == 0, tested.output
    assert "1 passed" in tested.output


def test_a_scenario_naming_a_bundled_ruleset_checks_and_runs(tmp_path):
    path = tmp_path / "tests" / "bundled.rules"
    path.parent.mkdir()
    path.write_text('scenario "bundled by name" {\n    ruleset "examples/tictactoe"\n'
                    '    players 2\n    choose players[1] "place:1:1"\n'
                    '    expect board[1, 1] == x\n}\n')
    checked = CliRunner().invoke(main, ["check", str(path)])
    assert checked.exit_code == 0, checked.output
    tested = CliRunner().invoke(main, ["test", str(path)])
    assert tested.exit_code == 0, tested.output
    assert "1 passed" in tested.output


def test_a_copy_works_out_unread_labels_over_its_own_state():
    """A copy costs no label: labels not read yet stay unread, and read on the copy they are
    worked out by the copy's machine (so they agree with the original's)."""
    rules = api.load("beverage")
    game = Game(rules, 3, 5)
    for _ in range(12):
        game.apply(game.legal_options(labels=False)[0][0])
    copy = game.clone()
    unread = [o for o in copy.pending.options if not isinstance(o._label, str)]
    assert unread, "the copy was made before any label was read"
    assert copy.legal_options() == game.legal_options()
    game.apply(game.legal_options()[0][0])  # the original moves on; the copy's labels stay
    assert copy.legal_options()[0][1] == copy.pending.options[0].label
