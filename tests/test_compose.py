"""Decisions built in steps (`compose`): parsing, formatting, checks, and how the engine asks
the steps, shows the preview to the decider only, confirms or starts over, and lets bots,
automata, scenarios, copies and saves through."""
from __future__ import annotations

import json

import pytest
from engine_helpers import game_of, header, rules_of
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.grammar.formatter import format_source
from rulebook.grammar.parser import parse_text
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.game import Game
from rulebook.interpreter.human import preview_lines
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program

# A company's plan: which of two sides is up, then where its token goes (a cell of a 2 by 3
# board), then each of its tiles one after the other; the preview is the board and a summary.
PLAN = header("2") + """
record Plan {
    side: int?
    row: int?
    column: int?
    tiles_done: int
}
player plan: Plan? = none owner
player tiles: int = 2 owner
player board: grid 2 by 3 of text? owner
player confirmed: int = 0
define done_with_tiles(p) = p.plan.tiles_done == p.tiles
define board_rows(p) = [[if p.plan.row == r and p.plan.column == c then "X" else "." \
    for c in 1..3] for r in 1..2]
procedure clear(p) {
    set p.plan = new Plan { tiles_done: 0 }
}
setup {
    for p in players {
        do clear(p)
    }
}
play {
    simultaneously for p in players {
        compose p "Plan your round" showing board_rows(p), "side {p.plan.side}" \
            cite "Planning" {
            step side "Which side is up?" until p.plan.side != none {
                option side for s in [1, 2] label "side {s}" {
                    set p.plan.side = s
                }
            }
            step token "Where does the token go?" until p.plan.row != none {
                option token for r in 1..2, c in 1..3 where r + c > s_min(p) {
                    set p.plan.row = r
                    set p.plan.column = c
                }
            }
            step tiles until done_with_tiles(p) {
                option tile label "lay tile {p.plan.tiles_done + 1}" {
                    increase p.plan.tiles_done by 1
                }
                option move_token label "move the token again" {
                    set p.plan.row = none
                    set p.plan.column = none
                }
            }
            start over {
                do clear(p)
            }
        }
    }
    for p in players {
        increase p.confirmed by 1
    }
}
define s_min(p) = p.plan.side
"""


def problems(text: str) -> list[str]:
    return [d.code for d in check_program(parse_text(text, "t")) if d.is_error]


# ---------------------------------------------------------------------------------- reading
def test_compose_parses_into_steps_a_preview_and_a_start_over():
    (stmt,) = [d for d in parse_text(PLAN, "t").declarations if d.kind == "play"][0].body[0].body
    assert stmt.kind == "compose"
    assert [s.name for s in stmt.steps] == ["side", "token", "tiles"]
    assert [o.name for o in stmt.options] == ["side", "token", "tile", "move_token"]
    assert len(stmt.showing) == 2 and stmt.start_over[0].kind == "do"
    assert stmt.steps[2].prompt is None and stmt.meta.cite == ["Planning"]


def test_compose_formats_to_itself():
    once = format_source(PLAN)
    assert format_source(once) == once
    assert "        compose p \"Plan your round\" showing board_rows(p), \"side {p.plan.side}\"" \
        in once
    assert "            start over {" in once


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True),
       st.booleans(), st.booleans())
def test_any_compose_round_trips_through_the_formatter(names, prompted, restart):
    steps = ""
    for k, n in enumerate(names):
        prompt = f' "Step {n}"' if prompted else ""
        steps += (f"        step {n}{prompt} until players[1].n > {k} {{\n"
                  "            option go {\n                increase players[1].n by 1\n"
                  "            }\n        }\n")
    after = "        start over {\n            set players[1].n = 0\n        }\n" if restart else ""
    text = (header("1") + "\nplayer n: int = 0 shown\n\nplay {\n    compose players[1] \"Plan\" "
            "showing players[1].n {\n" + steps + after + "    }\n}\n")
    assert problems(text) == []
    assert format_source(text) == text


def test_checks_name_steps_and_options_and_want_conditions():
    base = header("2") + "player n: int = 0 shown\nplay {\n    compose players[1] {\n"
    twice = base + ("        step a until players[1].n > 0 {\n            option x {\n"
                    "                set players[1].n = 1\n            }\n        }\n"
                    "        step a until players[1].n > 1 {\n            option y {\n"
                    "                set players[1].n = 2\n            }\n        }\n    }\n}\n")
    assert problems(twice) == ["E0235"]
    reserved = base + ("        step a until players[1].n > 0 {\n            option done {\n"
                       "                set players[1].n = 1\n            }\n        }\n    }\n}\n")
    assert problems(reserved) == ["E0235"]
    not_a_condition = base + ("        step a until players[1].n {\n            option x {\n"
                              "                set players[1].n = 1\n            }\n        }\n"
                              "    }\n}\n")
    assert problems(not_a_condition) == ["E0211"]
    assert problems(PLAN) == []


# ---------------------------------------------------------------------------------- playing
def test_the_first_step_not_finished_is_asked_then_confirm_or_start_over():
    g = Game(rules_of(PLAN), 2, 0)
    assert g.pending.prompt == "Which side is up?"
    assert g.legal_options() == [("side:1", "side 1"), ("side:2", "side 2")]
    g.apply("side:2")
    g.apply("side:1")
    assert g.pending.prompt == "Where does the token go?"
    assert "token:1:1" not in dict(g.legal_options())  # where: r + c > side
    g.apply("token:1:2")
    g.apply("token:1:1")
    assert g.pending.prompt == "Plan your round"  # a step without its own prompt
    assert [o for o, _ in g.legal_options()] == ["tile", "move_token"]
    g.apply("move_token")  # back to the token step, for player 1 only
    g.apply("tile")
    assert g.pending_seat() == 1 and g.pending.prompt == "Where does the token go?"
    g.apply("token:2:3")
    g.apply("tile")
    assert g.legal_options() == [("tile", "lay tile 1"), ("move_token", "move the token again")]
    g.apply("tile")
    assert g.pending_seat() == 2
    assert g.pending.prompt == "Plan your round: confirm, or start over"
    assert g.legal_options() == [("done", "Confirm"), ("start_over", "Start over")]
    g.apply("done")
    g.apply("tile")  # player 2 has confirmed: only player 1 is asked
    assert g.pending_seat() == 1 and [o for o, _ in g.legal_options()] == ["done", "start_over"]
    g.apply("start_over")
    assert g.state.seats[0].vars["plan"].fields["side"] is None
    assert g.pending_seat() == 1 and g.pending.prompt == "Which side is up?"


def test_a_given_that_fills_the_steps_moves_the_decision_on():
    g = Game(rules_of(PLAN), 2, 0)
    g.given(parse_text(header("2") + "setup {\n    set players[1].plan.side = 1\n"
                       "    set players[1].plan.row = 2\n    set players[1].plan.column = 2\n"
                       "    set players[1].plan.tiles_done = 2\n}\n").declarations[0].body)
    assert g.pending_seat() == 1
    assert [o for o, _ in g.legal_options()] == ["done", "start_over"]


def test_without_start_over_the_decision_ends_when_its_steps_hold():
    g = game_of(header("1") + """
player n: int = 0
player after: bool = false
play {
    compose players[1] "Pick" {
        step pick until players[1].n > 0 {
            option pick for k in 1..2 {
                set players[1].n = k
            }
        }
    }
    set players[1].after = true
}
""", players=1)
    g.apply("pick:2")
    assert g.over and g.state.seats[0].vars["after"] is True


def test_a_step_that_cannot_go_on_is_an_error_where_it_is_written():
    g = game_of(header("1") + """
player n: int = 0
play {
    compose players[1] "Pick" {
        step pick until players[1].n > 5 {
            option pick where players[1].n < 2 {
                increase players[1].n by 1
            }
        }
    }
}
""", players=1)
    g.apply("pick")
    with pytest.raises(DiagnosticError) as e:
        g.apply("pick")
    (d,) = e.value.diagnostics
    assert d.code == "E0325" and d.line == 8 and "`pick`" in d.message


# --------------------------------------------------------------------------- the preview
def test_the_preview_is_for_the_decider_only_and_costs_nothing():
    g = Game(rules_of(PLAN), 2, 0)
    g.apply("side:1")
    g.apply("side:2")
    steps, rng = g.state.steps, g.state.rng.state
    mine = view(g, 1)["pending"]
    assert mine["showing"] == [[[".", ".", "."], [".", ".", "."]], "side 1"]
    assert view(g, 2)["pending"]["showing"] is None  # the other player sees nothing of it
    assert view(g, 2)["pending"]["prompt"] is None and view(g, None)["pending"]["showing"] is None
    assert (g.state.steps, g.state.rng.state) == (steps, rng)
    g.apply("token:1:3")
    assert view(g, 2)["pending"]["showing"][1] == "side 2"  # player 2's own, against the
    assert view(g, 1)["pending"]["showing"] is None          # state before the round's choices
    g.apply("token:2:1")
    assert view(g, 1)["pending"]["showing"][0] == [[".", ".", "X"], [".", ".", "."]]
    assert not any("token 1 3" in line for line in view(g, 2)["log"])  # the steps are secret
    assert any("token 1 3" in line for line in view(g, 1)["log"])


def test_the_terminal_prints_a_grid_preview_with_its_numbers():
    lines = preview_lines([[[".", "X"], ["ab", "."]], ["first", "second"], "side 1"])
    assert lines == ["      1  2", "    1 .  X", "    2 ab .", "  first", "  second", "  side 1"]
    assert "E0301" in preview_lines({"error": "E0301 at t:3:4"})[0]


# ------------------------------------------------------------------------------ bots and copies
def test_random_bots_always_finish_and_never_start_over():
    for seed in range(8):
        g = Game(rules_of(PLAN), 2, seed)
        agents = {1: RandomAgent(seed), 2: RandomAgent(seed + 100)}
        play_out(g, agents)
        assert g.over
        assert not any("Start over" in e["text"] for e in g.state.log)
    g = Game(rules_of(PLAN), 2, 0)
    for option in ["side:1", "side:1", "token:1:2", "token:1:2"] + ["tile"] * 4:
        g.apply(option)
    assert g.legal_options(bots=True) == [("done", "Confirm")]
    assert len(g.legal_options()) == 2


def test_an_automaton_confirms_rather_than_starting_over():
    g = Game(rules_of(PLAN), 2, 0)
    g.given(parse_text(header("2") + "setup {\n    set players[1].plan.side = 1\n"
                       "    set players[1].plan.row = 2\n    set players[1].plan.column = 2\n"
                       "    set players[1].plan.tiles_done = 2\n}\n").declarations[0].body)
    assert [o for o, _ in g.legal_options()] == ["done", "start_over"]
    assert g.machine.automaton_choice(g.pending) == "done"


SCRIPT = ["side:1", "side:2", "token:1:2", "token:2:2", "move_token", "tile", "token:2:3", "tile",
          "tile", "done", "tile", "start_over", "side:2", "token:1:2", "tile", "tile", "done"]


def test_the_script_plays_a_whole_game():
    g = Game(rules_of(PLAN), 2, 0)
    for option in SCRIPT:
        g.apply(option)
    assert g.over and [s.vars["confirmed"] for s in g.state.seats] == [1, 1]


@pytest.mark.parametrize("moves", [0, 3, 6, 9, 11, 12])
def test_copies_and_saves_keep_a_composed_decision_where_it_stands(moves):
    g = Game(rules_of(PLAN), 2, 0)
    for option in SCRIPT[:moves]:
        g.apply(option)
    copy = g.clone()
    loaded = Game.load(json.loads(json.dumps(g.save())), g.rules)
    for other in (copy, loaded):
        assert other.legal_options() == g.legal_options()
        assert view(other, 1)["pending"] == view(g, 1)["pending"]
    for option in SCRIPT[moves:]:
        for each in (g, copy, loaded):
            each.apply(option)
    assert view(copy, 1) == view(g, 1) == view(loaded, 1)
