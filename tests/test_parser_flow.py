"""Parser: setup and play, rounds, phases, steps, turns, turn loops, simultaneous decisions."""
from __future__ import annotations

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from test_parser_helpers import span

HEADER = 'game "Flow" {\n    players 2 to 4\n}\n'


def play(*lines: str) -> list:
    text = HEADER + "play {\n" + "".join(f"    {line}\n" for line in lines) + "}\n"
    (decl,) = parse_text(text).declarations
    assert isinstance(decl, A.PlayDecl)
    return decl.body


def test_setup_and_play_declarations():
    setup, play_ = parse_text(HEADER + 'setup cite "Setup" {\n    shuffle deck\n}\n'
                              "play {\n    pass\n}\n").declarations
    assert isinstance(setup, A.SetupDecl) and setup.meta.cite == ["Setup"]
    assert isinstance(setup.body[0], A.Shuffle)
    assert isinstance(play_, A.PlayDecl)
    assert span(setup) == (4, 1, 6, 2)


def test_three_forms_of_rounds():
    forever, until, count = play("rounds { end game }", "rounds until round > 5 { pass }",
                                 'rounds 5 cite "Five rounds" { pass }')
    assert (forever.mode, forever.expr) == ("forever", None)
    assert until.mode == "until" and until.expr.op == ">"
    assert count.mode == "count" and count.expr.value == 5 and count.meta.cite == ["Five rounds"]


def test_phase_with_condition_and_steps():
    (phase,) = play("phase beerfest when round % 2 == 0 {",
                    "    step payout {",
                    "        pass",
                    "    }",
                    "}")
    assert isinstance(phase, A.Phase)
    assert phase.name == "beerfest" and phase.when.op == "=="
    (step,) = phase.body
    assert isinstance(step, A.Step) and step.name == "payout"
    assert span(step) == (6, 9, 8, 10)


def test_phase_without_condition():
    (phase,) = play("phase income { pass }")
    assert phase.when is None


def test_turn_order_with_tie_break_chain():
    (loop,) = play("for p in sort(q in players by q.price, q.points descending, seat(q)) {",
                   "    turn p { pass }", "}")
    assert isinstance(loop, A.For)
    order = loop.binding.source
    assert isinstance(order, A.Sort) and len(order.keys) == 3
    assert isinstance(loop.body[0], A.Turn)


def test_counter_clockwise_turns():
    (loop,) = play("for p in counterclockwise(players[-1]) { turn p { pass } }")
    assert loop.binding.source.func == "counterclockwise"
    assert loop.binding.source.args[0].indices[0].value == -1


def test_turns_until_all_passed():
    (turns,) = play('turns p in players until all passed cite "Actions" {', "    pass", "}")
    assert isinstance(turns, A.Turns)
    assert turns.binding.name == "p" and turns.meta.cite == ["Actions"]
    assert isinstance(turns.body[0], A.Pass)


def test_simultaneous_secret_decisions():
    (sim,) = play('simultaneously for p in players cite "Bids" {',
                  '    choose p "Your bid" { option bid for n in 0..5 { set p.bid = n } }',
                  "}")
    assert isinstance(sim, A.Simultaneously)
    assert sim.binding.name == "p" and sim.meta.cite == ["Bids"]
    assert isinstance(sim.body[0], A.Choose)
