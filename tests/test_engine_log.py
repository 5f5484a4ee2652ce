"""A game may keep no log (`Game(..., log=False)`, as simulations and search copies do): it is
the same game, state for state, with no log line written and no label worked out. A log line,
as a label, leaves no trace in the game: its steps are counted apart, its draws and structures
given back, so a game that keeps no log does not work it out."""
from __future__ import annotations

import textwrap

import pytest

from rulebook import api
from rulebook.interpreter.agents import agents_for, play_out
from rulebook.interpreter.chance import fresh_future, recorded
from rulebook.interpreter.game import Game
from rulebook.interpreter.rng import Rng
from rulebook.interpreter.simulate import play_one
from rulebook.interpreter.snapshot import write_game
from rulebook.interpreter.state import Limits


def played(rules, players: int, seed: int, log: bool) -> Game:
    game = Game(rules, players, seed, invariants="turn", log=log)
    play_out(game, agents_for("random", seed, game.state.seats))
    return game


@pytest.mark.parametrize("ref,players", [("liqueur", 3), ("beverage", 3),
                                         ("examples/tictactoe", 2)])
def test_a_game_without_a_log_is_the_same_game(ref, players):
    rules = api.load(ref)
    for seed in (1, 2):
        logged, silent = played(rules, players, seed, True), played(rules, players, seed, False)
        assert silent.state.log == []
        assert any(e["kind"] == "decision" for e in logged.state.log)
        assert silent.history == logged.history
        assert silent.scores() == logged.scores()
        assert [s.seat for s in silent.state.winners] == [s.seat for s in logged.state.winners]
        assert silent.state.steps == logged.state.steps
        assert silent.state.rng.state == logged.state.rng.state
        # the whole state but the log: the same
        a, b = write_game(logged.machine), write_game(silent.machine)
        a["state"].pop("log"), b["state"].pop("log")
        a["state"].pop("log_chars", None), b["state"].pop("log_chars", None)
        assert a == b


def test_a_simulated_game_keeps_no_log_and_matches_a_played_one():
    rules = api.load("liqueur")
    record = play_one(rules, 3, 0, 5, "random")
    logged = played(rules, 3, 5, True)
    assert record.decisions == len(logged.history)
    assert record.scores == logged.scores()
    assert record.winners == [s.seat for s in logged.state.winners]
    assert record.steps == logged.state.steps


def test_a_copy_of_a_game_without_a_log_keeps_none_and_a_search_copy_keeps_none():
    rules = api.load("examples/tictactoe")
    silent = Game(rules, 2, 1, log=False)
    copy = silent.clone()
    copy.apply(copy.legal_options()[0][0])
    assert copy.state.log == []
    logged = Game(rules, 2, 1)
    logged.apply(logged.legal_options()[0][0])
    lines = len(logged.state.log)
    ahead = fresh_future(logged, Rng(3))
    ahead.apply(ahead.legal_options()[0][0])
    assert len(ahead.state.log) == lines  # the copy wrote nothing more
    assert len(logged.clone().state.log) == lines


BROKEN_LABEL = textwrap.dedent("""\
    game "Broken label" {
        players 2
        source "test"
    }
    global picks: list of int = []
    play {
        rounds 2 {
            for p in players {
                turn p {
                    choose p "Pick" {
                        option pick for n in 1..2 label "pick {picks[5]}" {
                            add n to picks
                        }
                    }
                }
            }
        }
    }
    """)


def test_a_label_that_fails_stops_play_but_not_a_simulation(tmp_path):
    path = tmp_path / "broken.rules"
    path.write_text(BROKEN_LABEL)
    rules = api.load(str(path))
    record = play_one(rules, 2, 0, 1, "random")
    assert record.error is None and record.decisions == 4
    logged = Game(rules, 2, 1)
    with pytest.raises(api.DiagnosticError) as e:
        logged.apply("pick:1")
    assert e.value.diagnostics[0].line == 11  # the label's own line


TRACELESS_LOG = textwrap.dedent("""\
    game "Traceless log" {
        players 2
        source "test"
    }
    record Note {
        n: int
    }
    global roll: int = 0
    global made: list of Note = []
    define total(xs) = sum(x for x in xs)
    define note() = new Note { n: 1 }
    play {
        LINE
        add new Note { n: random_int(1, 1000) } to made
        set roll = random_int(1, 1000)
        choose players[1] "Go" {
            option go {
            }
        }
    }
    """)


def _game(tmp_path, line: str, log: bool = True, limits: Limits | None = None) -> Game:
    path = tmp_path / f"t{abs(hash(line))}.rules"
    path.write_text(TRACELESS_LOG.replace("LINE", line))
    return Game(api.load(str(path)), 2, 7, limits, log=log)


def test_a_log_line_gives_back_its_steps_draws_and_structures(tmp_path):
    quiet = _game(tmp_path, 'let nothing = 0')  # one statement, as the log line is
    for log in (True, False):
        g = _game(tmp_path, 'log "rolled {random_int(1, 6)}, {note().n}, '
                            '{total([1, 2, 3, 4, 5, 6, 7, 8])}"', log=log)
        assert len(g.state.log) == (1 if log else 0)
        assert (g.state.steps, g.state.rng.state, g.state.struct_ids) == \
            (quiet.state.steps, quiet.state.rng.state, quiet.state.struct_ids)
        assert g.state.globals["roll"] == quiet.state.globals["roll"]
        assert [(n.uid, n.fields) for n in g.state.globals["made"]] == \
            [(n.uid, n.fields) for n in quiet.state.globals["made"]]
    assert _game(tmp_path, 'log "x"').machine.side_steps < \
        _game(tmp_path, 'log "{total([1, 2, 3, 4, 5, 6, 7, 8])}"').machine.side_steps


def test_a_log_line_that_fails_stops_play_but_not_a_game_without_a_log(tmp_path):
    broken = 'log "the fifth: {made[5].n}"'
    assert not _game(tmp_path, broken, log=False).over  # waits for its decision
    with pytest.raises(api.DiagnosticError) as e:
        _game(tmp_path, broken)
    assert e.value.diagnostics[0].line == 13  # the log line's own


def test_log_lines_count_among_the_work_that_leaves_no_trace(tmp_path):
    line = 'repeat 50 times { log "{total([1, 2, 3, 4, 5, 6, 7, 8])}" }'
    assert not _game(tmp_path, line, limits=Limits(max_side_steps=10_000)).over
    with pytest.raises(api.DiagnosticError) as e:
        _game(tmp_path, line, limits=Limits(max_side_steps=300))
    assert e.value.diagnostics[0].code == "E0301"
    assert "log lines" in e.value.diagnostics[0].message


def test_a_log_lines_draws_are_no_chance_events(tmp_path):
    path = tmp_path / "t.rules"
    path.write_text(TRACELESS_LOG.replace("LINE", 'log "rolled {random_int(1, 6)}"'))
    game, recorder = recorded(api.load(str(path)), 2, 7)
    assert recorder.events == [(1000, n.fields["n"] - 1) for n in game.state.globals["made"]] \
        + [(1000, game.state.globals["roll"] - 1)]


PROMPTED = textwrap.dedent("""\
    game "Prompted" {
        players 2
        source "test"
    }
    global roll: int = 0
    global picks: list of int = []
    define total(xs) = sum(x for x in xs)
    play {
        rounds 2 {
            for p in players {
                turn p {
                    choose p "PROMPT" {
                        option pick for n in 1..2 {
                            add n to picks
                            set roll = random_int(1, 1000)
                        }
                    }
                }
            }
        }
    }
    """)


def _prompted(tmp_path, prompt: str) -> object:
    path = tmp_path / f"p{abs(hash(prompt))}.rules"
    path.write_text(PROMPTED.replace("PROMPT", prompt))
    return api.load(str(path))


def test_a_prompt_leaves_no_trace_and_a_bot_answering_where_asked_reads_none(tmp_path):
    plain = _prompted(tmp_path, "Pick")
    worked = _prompted(tmp_path, "Pick ({random_int(1, 6)}, {total([1, 2, 3, 4, 5, 6])})")
    for log in (True, False):
        a, b = played(plain, 2, 3, log), played(worked, 2, 3, log)
        assert (a.history, a.state.steps, a.state.rng.state, a.state.globals) == \
            (b.history, b.state.steps, b.state.rng.state, b.state.globals)
    waiting = Game(worked, 2, 3)
    assert waiting.pending.prompt.startswith("Pick (")  # worked out for a decision that waits
    assert waiting.state.steps == Game(plain, 2, 3).state.steps
    assert waiting.machine.side_steps > Game(plain, 2, 3).machine.side_steps


def test_a_prompt_that_fails_stops_play_but_not_a_simulation(tmp_path):
    rules = _prompted(tmp_path, "Pick after {picks[5]}")
    record = play_one(rules, 2, 0, 1, "random")
    assert record.error is None and record.decisions == 4
    with pytest.raises(api.DiagnosticError) as e:
        Game(rules, 2, 1)
    assert e.value.diagnostics[0].line == 12  # the prompt's own line
