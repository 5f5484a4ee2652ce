"""Flow: rounds, phases, turns, turn loops with passing, simultaneous decisions, ending."""
from engine_helpers import game_of, header


def test_rounds_count_and_phases_log_in_order():
    g = game_of(header() + """
global n: int = 0
play {
    rounds 3 {
        phase income { increase n by 1 }
        phase skipped when round == 2 { increase n by 100 }
    }
}
""")
    assert g.over
    assert g.state.globals["n"] == 3 + 100
    assert g.state.round == 3
    phases = [e["text"] for e in g.state.log if e["kind"] == "phase"]
    assert phases == ["Phase: income", "Phase: income", "Phase: skipped", "Phase: income"]


def test_rounds_until_and_end_game_stops_immediately():
    g = game_of(header() + """
global n: int = 0
play {
    rounds until n >= 2 { increase n by 1 }
    rounds {
        increase n by 10
        end game
        increase n by 1000
    }
}
""")
    assert g.state.globals["n"] == 12


def test_turns_until_all_passed_skips_players_who_passed():
    g = game_of(header("3") + """
player acted: int = 0
play {
    turns p in players until all passed {
        choose p "act or pass" {
            option act where p.acted < 2 { increase p.acted by 1 }
            option done { pass }
        }
    }
}
""", players=3)
    order = []
    while not g.over:
        seat = g.pending_seat()
        order.append(seat)
        ids = [o for o, _ in g.legal_options()]
        g.apply("act" if seat == 1 and "act" in ids else "done", seat)
    # seat 1 acts twice then passes; 2 and 3 pass at once and are never asked again
    assert order == [1, 2, 3, 1, 1]
    assert [s.vars["acted"] for s in g.state.seats] == [2, 0, 0]


def test_clockwise_and_counterclockwise_orders():
    g = game_of(header("4") + """
global a: list of player
global b: list of player
play {
    set a = clockwise(players[3])
    set b = counterclockwise(players[3])
}
""", players=4)
    assert [p.seat for p in g.state.globals["a"]] == [3, 4, 1, 2]
    assert [p.seat for p in g.state.globals["b"]] == [3, 2, 1, 4]


def test_sort_with_tie_break_chain_and_random_last_resort_is_seeded():
    text = header("4") + """
player bid: int = 0
player rep: int = 0
global order: list of player
setup {
    set players[1].bid = 5
    set players[2].bid = 3
    set players[3].bid = 3
    set players[4].bid = 3
    set players[3].rep = 2
}
play { set order = sort(p in players by p.bid, p.rep descending, random) }
"""
    seen = set()
    for seed in range(12):
        order = [p.seat for p in game_of(text, 4, seed).state.globals["order"]]
        assert order[0] == 3 and order[-1] == 1
        seen.add(tuple(order))
        assert [p.seat for p in game_of(text, 4, seed).state.globals["order"]] == order
    assert {(3, 2, 4, 1), (3, 4, 2, 1)} == seen


def test_simultaneous_decisions_are_secret_until_revealed():
    from rulebook.interpreter.view import view

    g = game_of(header() + """
player bid: int = 0 owner
play {
    simultaneously for p in players {
        choose p "Your secret bid" {
            option bid for n in 1..3 { set p.bid = n }
        }
    }
    for p in players { reveal p.bid }
    end game
}
""")
    assert g.pending.secret
    g.apply("bid:3", 1)
    # player 2 decides without seeing player 1's bid, nor its log line
    v2 = view(g, 2)
    assert v2["players"][0]["vars"]["bid"] == {"hidden": True}
    assert not any("bid 3" in line for line in v2["log"])
    assert any("bid 3" in line for line in view(g, 1)["log"])
    g.apply("bid:1", 2)
    assert g.over
    assert view(g, 2)["players"][0]["vars"]["bid"] == 3


def test_a_procedure_called_by_a_secret_decision_logs_to_its_decider_alone():
    # the called block is given its parameters and who decided (its log lines stay private)
    from rulebook.interpreter.view import view

    g = game_of(header() + """
player bid: int = 0 owner
procedure place(p, n) {
    set p.bid = n
    log "{p} bid {n}"
}
play {
    simultaneously for p in players {
        choose p "Your secret bid" {
            option bid for n in 1..3 { do place(p, n) }
        }
    }
    log "all bids are in"
    choose players[1] "Go" { option ok { } }
}
""")
    g.apply("bid:3", 1)
    g.apply("bid:2", 2)
    assert g.state.seats[0].vars["bid"] == 3 and g.state.seats[1].vars["bid"] == 2
    one, two = view(g, 1)["log"], view(g, 2)["log"]
    assert any("player 1 bid 3" in line for line in one)
    assert not any("player 1 bid 3" in line for line in two)
    assert any("player 2 bid 2" in line for line in two)
    assert not any("player 2 bid 2" in line for line in one)
    assert any("all bids are in" in line for line in one + two)


def test_set_inside_loops_and_options_changes_the_outer_let():
    g = game_of(header() + """
global result: int = 0
play {
    let total = 0
    for n in [1, 2, 3] {
        let doubled = n * 2
        set total = total + doubled
    }
    choose players[1] "Add" {
        option add for k in [10, 20] { set total = total + k }
    }
    set result = total
}
""")
    g.apply("add:20")
    assert g.state.globals["result"] == 32
