"""State: clamps, stacking order, moves between zones and grid cells, structures, visibility."""
import pytest

from engine_helpers import game_of, header
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError


def test_at_least_clamps_every_write_and_stacked_records_arrival_order():
    g = game_of(header("3") + """
player rep: int = 0 at least 0 stacked
global order: list of player
play {
    decrease players[1].rep by 5
    increase players[2].rep by 2
    increase players[3].rep by 2
    set order = sort(p in players by p.rep descending, changed_at(p.rep))
}
""", players=3)
    seats = g.state.seats
    assert [s.vars["rep"] for s in seats] == [0, 2, 2]
    # equal reputation: the disc that arrived first is at the bottom and ranks first
    assert [p.seat for p in g.state.globals["order"]] == [2, 3, 1]


def test_moves_between_decks_rows_and_grid_cells():
    g = game_of(header("1") + """
record Card { name: text, value: int }
table cards of Card {
    name | value | count
    "A"  | 1     | 2
    "B"  | 2     | 1
}
global box: list of Card = cards
global deck: deck of Card secret
global row: list of Card
global board: grid 2 by 2 of Card?
global discard: list of Card
setup {
    move all from box to deck
    move top 2 from deck to row
    move top 1 from deck to board[1, 2]
    move board[1, 2] from board[1, 2] to discard at top
    move row[1] from row to discard at top
}
""", players=1)
    gl = g.state.globals
    assert [c.id for c in gl["deck"]] == [] and gl["box"] == []
    assert [c.id for c in gl["row"]] == ["cards.a#2"]
    assert [c.id for c in gl["discard"]] == ["cards.a#1", "cards.b"]
    assert gl["board"].cells == [None] * 4


def test_table_rows_with_counts_make_distinct_items():
    g = game_of(header("1") + """
record Card { name: text, value: int }
table cards of Card {
    name | value | count
    "A"  | 1     | 3
}
global n: int = size(cards)
global distinct: bool = cards[1] != cards[2]
""", players=1)
    assert g.state.globals["n"] == 3
    assert g.state.globals["distinct"] is True


def test_moving_something_that_is_not_there_is_a_located_error():
    with pytest.raises(DiagnosticError) as e:
        game_of(header("1") + """
global a: list of int = [1, 2]
global b: list of int
play {
    move 3 from a to b
}
""", players=1)
    d = e.value.diagnostics[0]
    assert (d.code, d.line, d.column) == ("E0308", 8, 5)
    assert "not in the place it is moved from" in d.message


def test_structures_are_mutable_and_shared_by_reference():
    g = game_of(header("1") + """
record Set { total: int, shipped: bool }
player sets: list of Set
play {
    add new Set { total: 2, shipped: false } to players[1].sets
    for s in players[1].sets { set s.shipped = true }
    increase players[1].sets[1].total by 3
}
""", players=1)
    s = g.state.seats[0].vars["sets"][0]
    assert (s.fields["total"], s.fields["shipped"]) == (5, True)


def test_owner_and_secret_visibility_in_views_and_reveal():
    g = game_of(header() + """
player caps: int = 10 owner
player hand: list of int owner
global deck: deck of int secret
global market: int = 30 secret
setup {
    set deck = [1, 2, 3]
    set players[1].hand = [7, 8]
}
play {
    choose players[1] "Look" { option ok { reveal market to players[1] } }
    choose players[1] "Open" { option ok { reveal market } }
    choose players[1] "Close" { option ok { hide market } }
}
""")
    v1, v2, spectator = view(g, 1), view(g, 2), view(g, None)
    assert v1["players"][0]["vars"]["caps"] == 10
    assert v2["players"][0]["vars"]["caps"] == {"hidden": True}
    assert v2["players"][0]["vars"]["hand"] == {"hidden": True, "size": 2}
    assert spectator["globals"]["deck"] == {"hidden": True, "size": 3}
    assert v1["globals"]["market"] == {"hidden": True}
    g.apply("ok")
    assert view(g, 1)["globals"]["market"] == 30
    assert view(g, 2)["globals"]["market"] == {"hidden": True}
    g.apply("ok")
    assert view(g, 2)["globals"]["market"] == 30
    g.apply("ok")
    assert view(g, 2)["globals"]["market"] == {"hidden": True}
    # the pending options are shown only to the player who decides
    assert view(g, 2)["pending"] is None or view(g, 2)["pending"]["options"] is None


def test_nothing_hidden_leaks_into_another_players_view_as_text():
    import json

    g = game_of(header() + """
player secret_number: int = 0 owner
global hidden_pile: list of int = [777001, 777002] secret
setup { set players[1].secret_number = 424242 }
play {
    choose players[1] "Go" { option ok { } }
}
""")
    for seat in (2, None):
        text = json.dumps(view(g, seat))
        assert "424242" not in text
        assert "777001" not in text and "777002" not in text
    assert "424242" in json.dumps(view(g, 1))


def test_scenarios_can_state_what_each_player_sees(tmp_path):
    from rulebook.scenarios import run_file

    game = tmp_path / "g.rules"
    game.write_text(header() + """
enum Kind { small, large }
record Tile { kind: Kind, size: int }
table tiles of Tile {
    kind  | size
    small | 1
    large | 2
}
player hand: list of int owner
global pile: list of int
play { choose players[1] "Go" { option ok { } } }

scenario "visibility" {
    players 2
    expect hidden players[1].hand to players[2]
    expect visible players[1].hand to players[1]
    expect visible pile to players[2]
    expect tiles[2].kind == large
}

scenario "a wrong visibility claim fails" {
    players 2
    expect visible players[1].hand to players[2]
}
""")
    outcome = run_file(str(game))
    results, problems = outcome.results, outcome.diagnostics
    assert not problems
    assert [r.passed for r in results] == [True, False]
    assert "player 2 does not see `hand` of player 1" in results[1].failures[0].message


def test_private_log_lines_reach_only_their_players():
    g = game_of(header() + """
play {
    log "everyone sees this"
    log "only you drew card 41" to players[1]
    choose players[1] "Go" { option ok { } }
}
""")
    assert "only you drew card 41" in view(g, 1)["log"]
    assert "only you drew card 41" not in view(g, 2)["log"]
    assert "everyone sees this" in view(g, 2)["log"]


def test_scenarios_can_say_who_reads_a_log_line(tmp_path):
    from rulebook.scenarios import run_file

    game = tmp_path / "g.rules"
    game.write_text(header() + """
player hand: list of int owner
play {
    log "a secret for one" to players[1]
    choose players[1] "Go" { option ok { } }
}

scenario "private lines" {
    players 2
    expect log "a secret for one" to players[1]
}

scenario "the other player cannot read it" {
    players 2
    expect log "a secret for one" to players[2]
}

scenario "a visibility claim with its reason" {
    players 2
    expect visible players[1].hand to players[2] "hands are private"
}
""")
    outcome = run_file(str(game))
    results, problems = outcome.results, outcome.diagnostics
    assert not problems
    assert [r.passed for r in results] == [True, False, False]
    assert "no log line that player 2 may read contains" in results[1].failures[0].message
    assert results[2].failures[0].message == (
        "hands are private: player 2 does not see `hand` of player 1")


def test_a_list_of_positions_picks_several_elements():
    g = game_of(header() + """
global picked: list of int
play { set picked = [10, 20, 30, 40][2..3] + [10, 20, 30, 40][[-1, 1]] }
""")
    assert g.state.globals["picked"] == [20, 30, 40, 10]


def test_maps_keyed_by_an_enum_start_with_every_member():
    g = game_of(header() + """
enum Space { shares, pr, stadium }
global tokens: map of Space to int
player seen: map of Space to bool = map { pr: true }
global total: int
global pr_there: bool
play {
    increase tokens[pr] by 2
    set tokens[stadium] = 1
    for s in tokens { set total = total + tokens[s] }
    set total = total * 10 + size(keys(tokens)) + sum(values(tokens))
    set pr_there = pr in players[1].seen and not (shares in players[1].seen)
    set players[2].seen[shares] = false
}
""")
    gl = g.state.globals
    assert [(k.name, v) for k, v in gl["tokens"].items()] == [("shares", 0), ("pr", 2), ("stadium", 1)]
    assert gl["total"] == 36 and gl["pr_there"] is True
    # each player got their own copy of the starting map
    assert len(g.state.seats[0].vars["seen"]) == 1 and len(g.state.seats[1].vars["seen"]) == 2
    assert view(g, 1)["globals"]["tokens"] == {"map": [["shares", 0], ["pr", 2], ["stadium", 1]]}
