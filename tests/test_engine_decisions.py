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
