"""Decisions: option ids and labels, illegal decisions refused, optional and otherwise."""
import pytest

from engine_helpers import game_of, header
from rulebook.interpreter.errors import IllegalDecision

RULES = header() + """
enum Color { red "Red", blue "Blue" }
player picked: Color? = none
player n: int = 0
play {
    for p in players {
        choose p "Pick" optional {
            option color for c in [red, blue] label "Take {c}" { set p.picked = c }
            option number for k in 1..3 where k != 2 { set p.n = k }
        }
    }
}
"""


def test_option_ids_labels_and_skip():
    g = game_of(RULES)
    assert g.legal_options() == [("color:red", "Take Red"), ("color:blue", "Take Blue"),
                                 ("number:1", "number 1"), ("number:3", "number 3"),
                                 ("skip", "Skip")]


def test_illegal_and_malformed_decisions_leave_the_state_unchanged():
    g = game_of(RULES)
    before = g.digest()
    for bad in ["number:2", "nonsense", 42, None]:
        with pytest.raises(IllegalDecision):
            g.apply(bad)
        assert g.digest() == before
    with pytest.raises(IllegalDecision, match="player 1's decision"):
        g.apply("skip", player=2)
    assert g.digest() == before


def test_decision_by_label_and_skip():
    g = game_of(RULES)
    g.apply("Take Blue")
    g.apply("skip")
    assert g.over
    assert g.state.seats[0].vars["picked"].name == "blue"
    assert g.state.seats[1].vars["picked"] is None


def test_obligation_offers_no_skip_and_otherwise_runs_when_nothing_is_legal():
    g = game_of(header() + """
global log_n: int = 0
play {
    choose players[1] "Must" {
        option a where false { }
        otherwise { set log_n = 7 }
    }
    choose players[1] "Forced" {
        option only { set log_n = log_n + 1 }
    }
}
""")
    assert g.legal_options() == [("only", "only")]
    g.apply("only")
    assert g.state.globals["log_n"] == 8


def test_a_loop_of_small_choices_builds_a_combination():
    g = game_of(header("1") + """
player caps: int = 3 owner
player bought: list of text
play {
    for p in players {
        while true {
            choose p "Buy with your caps" {
                option buy for x in ["worker", "token"] where p.caps >= 1 {
                    decrease p.caps by 1
                    add x to p.bought
                }
                option done { stop }
            }
        }
    }
}
""", players=1)
    g.apply("buy:worker")
    g.apply("buy:token")
    g.apply("buy:worker")
    assert [o for o, _ in g.legal_options()] == ["done"]
    g.apply("done")
    assert g.state.seats[0].vars["bought"] == ["worker", "token", "worker"]


DRAWING_LABELS = header() + """
global deck: deck of int = [1, 2, 3, 4, 5, 6] secret
player total: int = 0
player seen: list of int
setup {
    shuffle deck
}
play {
    rounds 3 {
        for p in players {
            choose p "Draw" {
                option take for k in 1..3 label "take {k} (a guess: {shuffled([1, 2, 3])})" {
                    increase p.total by k
                    add top(shuffled(deck)) to p.seen
                }
            }
        }
    }
}
"""


def _played(read_labels: bool):
    from rulebook.interpreter.agents import RandomAgent

    g = game_of(DRAWING_LABELS, seed=4)
    agent = RandomAgent(9)
    while not g.over:
        options = g.legal_options(labels=read_labels)
        if read_labels:
            assert all(label.startswith("take ") for _, label in options)
        seat = g.pending.player.seat
        g.apply(agent.decide(None, options), seat)
    return g


def test_reading_the_labels_or_not_never_changes_the_game():
    """Labels are worked out when read, and leave no trace: a label that draws at random (or
    costs steps) changes neither the draws of the game nor its step count."""
    quiet, reading = _played(False), _played(True)
    assert quiet.state.steps == reading.state.steps
    assert [s.vars for s in quiet.state.seats] == [s.vars for s in reading.state.seats]
    assert quiet.state.rng.state == reading.state.rng.state
    assert quiet.machine.state.log == reading.machine.state.log  # the chosen label is logged


def test_a_label_that_cannot_be_worked_out_is_reported_when_read():
    g = game_of(header() + """
global xs: list of int = []
play {
    choose players[1] "Pick" {
        option pick for k in 1..2 label "{k}: {top(xs) + 1}" {
            log "picked"
        }
    }
}
""")
    from rulebook.validator.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as err:
        g.legal_options()
    (d,) = err.value.diagnostics
    assert d.code == "E0306" and (d.line, d.column) == (8, 41)  # the label's hole, located
    assert g.error == d and g.pending is None  # the game ends with it, as any failing rule
