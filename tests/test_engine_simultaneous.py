"""`simultaneously` means it: every player decides against the same state, and what the choices
do takes effect once all have chosen, a round of decisions at a time."""
from __future__ import annotations

from engine_helpers import game_of, header
from rulebook.interpreter.errors import IllegalDecision
from rulebook.interpreter.game import Game
from rulebook.interpreter.view import view

PICKS = header("3") + """
player hand: list of int
player picked: int? = none owner
global table: list of int
global highest: int = 0
setup {
    for p in players {
        set p.hand = [seat(p), seat(p) + 3, seat(p) + 6]
    }
}
play {
    simultaneously for p in players {
        choose p "Play a card" {
            option play for c in p.hand where c > highest {
                set p.picked = c
                move c from p.hand to table
                set highest = max(highest, c)
            }
        }
    }
    end game
}
"""


def test_a_choice_does_nothing_until_every_player_has_chosen():
    g = game_of(PICKS, players=3)
    g.apply("play:7", 1)  # player 1's highest card would leave nothing above it for the others
    assert g.state.globals["table"] == [] and g.state.globals["highest"] == 0
    v2 = view(g, 2)
    assert v2["globals"]["table"] == []  # not shown to the next player
    assert v2["players"][0]["vars"]["picked"] == {"hidden": True}
    # the next player's options are not cut by what player 1 chose
    assert [o for o, _ in g.legal_options()] == ["play:2", "play:5", "play:8"]
    g.apply("play:2", 2)
    g.apply("play:3", 3)
    assert g.over
    assert g.state.globals["table"] == [7, 2, 3] and g.state.globals["highest"] == 7


def test_each_player_reads_their_own_choice_at_once_and_nobody_else_does():
    g = game_of(PICKS, players=3)
    g.apply("play:7", 1)
    assert any("play 7" in line for line in view(g, 1)["log"])
    assert not any("play 7" in line for line in view(g, 2)["log"])


SEVERAL = header("2") + """
player placed: list of int owner
global seen: list of int
play {
    simultaneously for p in players {
        repeat 2 times {
            choose p "Place a worker" {
                option place for n in 1..3 where n not in p.placed {
                    add n to p.placed
                    add size(seen) to seen
                }
            }
        }
    }
    end game
}
"""


def test_several_decisions_each_are_asked_in_rounds():
    g = game_of(SEVERAL, players=2)
    g.apply("place:1", 1)
    g.apply("place:1", 2)  # round 1 done: both carried out
    assert [p.vars["placed"] for p in g.state.seats] == [[1], [1]]
    assert g.state.globals["seen"] == [0, 1]
    assert g.pending_seat() == 1 and [o for o, _ in g.legal_options()] == ["place:2", "place:3"]
    g.apply("place:3", 1)
    assert g.state.globals["seen"] == [0, 1]  # round 2 waits for player 2
    g.apply("place:2", 2)
    assert g.over and [p.vars["placed"] for p in g.state.seats] == [[1, 3], [1, 2]]


def test_a_clone_and_a_replay_of_a_half_made_round_agree():
    g = game_of(PICKS, players=3)
    g.apply("play:7", 1)
    copy = g.clone()
    assert copy.pending_seat() == 2 and copy.state.globals["table"] == []
    copy.apply("play:5", 2)
    g.apply("play:5", 2)
    assert copy.digest() == g.digest()


STOP_FROM_A_PART = header("3") + """
global rounds_done: int = 0
global took: list of int
play {
    rounds 2 {
        simultaneously for p in players {
            choose p "Go on?" {
                option halt where p == players[1] {
                    stop
                }
                option go {
                    add seat(p) to took
                }
            }
        }
        increase rounds_done by 1
    }
    log "{rounds_done} {took}"
}
"""


def test_a_stop_in_a_part_ends_the_loop_around_the_simultaneous_decisions():
    """Found by the mutation fuzzer: the parts after the one that stopped were run on although
    the `simultaneously` had been unwound (an IndexError)."""
    g = game_of(STOP_FROM_A_PART, players=3)
    g.apply("halt", 1)
    g.apply("go", 2)
    g.apply("go", 3)
    assert g.over
    assert g.state.globals["rounds_done"] == 0
    assert g.state.globals["took"] == []  # the later parts were not carried out


# ------------------------------------------------------------------ answering in any order
def _played_in(order: list[tuple[int, str]]):
    g = game_of(PICKS, players=3)
    for seat, option in order:
        g.apply(option, seat)
    return g


def test_players_deciding_at_once_may_answer_in_any_order_with_the_same_result():
    in_order = _played_in([(1, "play:7"), (2, "play:2"), (3, "play:3")])
    backwards = _played_in([(3, "play:3"), (1, "play:7"), (2, "play:2")])
    assert backwards.over and backwards.state.globals == in_order.state.globals
    assert backwards.state.globals["table"] == [7, 2, 3]  # carried out in the order of players
    assert [s.vars for s in backwards.state.seats] == [s.vars for s in in_order.state.seats]


def test_who_may_decide_now_and_what_a_later_player_is_offered():
    g = game_of(PICKS, players=3)
    assert g.waiting_seats() == [1, 2, 3]
    asked = g.asking(3)
    assert asked.pending_seat() == 3 and g.pending_seat() == 1  # the copy asks, not the game
    assert [o for o, _ in asked.legal_options()] == ["play:3", "play:6", "play:9"]
    g.apply("play:9", 3)
    assert g.waiting_seats() == [1, 2]


def test_a_refused_answer_out_of_turn_changes_nothing():
    g = game_of(PICKS, players=3)
    g.apply("play:1", 1)
    before, pending = g.digest(), g.pending_seat()
    for seat, bad in [(3, "play:2"), (1, "play:4"), (4, "play:3")]:
        try:
            g.apply(bad, seat)
        except IllegalDecision:
            pass
        else:
            raise AssertionError(f"{bad} by {seat} was accepted")
        assert g.digest() == before and g.pending_seat() == pending


def test_a_game_answered_out_of_order_replays_from_its_save():
    g = game_of(PICKS, players=3)
    g.apply("play:6", 3)
    g.apply("play:2", 2)
    data = g.save()
    again = Game.load(data, g.rules, verify=True)
    assert again.digest() == g.digest() and again.pending_seat() == 1


def test_a_turn_of_one_player_still_refuses_another():
    g = game_of(header("2") + """
player n: int = 0
play {
    for p in players {
        choose p "Pick" {
            option one { set p.n = 1 }
        }
    }
}
""", players=2)
    try:
        g.apply("one", 2)
    except IllegalDecision as e:
        assert "player 1's decision" in e.message
    else:
        raise AssertionError("player 2 answered player 1's decision")


def test_a_scenario_may_answer_simultaneous_decisions_in_any_order():
    from rulebook.grammar.parser import parse_text
    from rulebook.interpreter.rules import compile_rules
    from rulebook.interpreter.scenario import run_scenarios

    text = PICKS + '''
scenario "the last player answers first" {
    players 3
    expect options players[3] == ["play:3", "play:6", "play:9"]
    expect option players[2] "play:8"
    choose players[3] "play:9"
    expect options players[3] == [] "player 3 has answered"
    choose players[2] "play:8"
    refuse players[1] "play:2" "not in player 1's hand"
    choose players[1] "play:7"
    expect table == [7, 8, 9] "carried out in the order of the players"
}
'''
    program = parse_text(text, "t.rules")
    rules = compile_rules(program)
    (result,) = run_scenarios(program, "t.rules", lambda ref, node=None, variants=(): rules)
    assert [d.message for d in result.failures] == []
