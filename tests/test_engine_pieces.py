"""Pieces counted in holdings (`pieces`, `move n K from A to B`) and invariants checked `when` a
condition holds: parsing, formatting, the engine, saves and copies, what other players see."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header
from hypothesis import given, settings
from hypothesis import strategies as st
from rulebook.grammar.formatter import format_source
from rulebook.grammar.parser import parse_text
from rulebook.interpreter.game import Game
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError

# Each player's 3 Goods start in the organizer; 5 shared tokens start in the pile.
PIECES = """
pieces Goods: 3 per player, starting in organizer cite "Components"
pieces Token: 5, starting in pile
player organizer: Goods shown
player available: Goods owner shown
player sold: Goods shown
global pile: Token shown
player tokens: Token shown
"""


def play_of(body: str, players: int = 2, extra: str = "") -> Game:
    return game_of(header(str(players)) + PIECES + extra + "play {\n" + body + "}\n", players)


def holdings(g: Game) -> list[dict]:
    return [dict(s.vars) for s in g.state.seats]


# ------------------------------------------------------------------------------ parsing
def test_the_three_amounts_and_the_declaration_parse():
    program = parse_text(header() + PIECES + """
play {
    move 2 Goods from players[1].organizer to players[1].available cite "Production"
    move up to n + 1 Token from pile to players[1].tokens
    move all Goods from players[1].available to players[1].organizer
}
""")
    goods, token = program.declarations[:2]
    assert (goods.kind, goods.name, goods.per_player, goods.start) == ("pieces", "Goods", True,
                                                                       "organizer")
    assert goods.meta.cite == ["Components"] and not token.per_player
    exact, up_to, every = program.declarations[-1].body
    assert (exact.kind, exact.amount, exact.count.value, exact.pieces) == (
        "move_pieces", "exactly", 2, "Goods")
    assert exact.meta.cite == ["Production"]
    assert (up_to.amount, up_to.count.kind, up_to.pieces) == ("up_to", "binary", "Token")
    assert (every.amount, every.count) == ("all", None)


def test_a_name_up_still_moves_a_component_or_a_count():
    program = parse_text(header() + "play {\n    move up from a to b\n    move up Token from a to b\n}\n")
    plain, pieces = program.declarations[-1].body
    assert (plain.kind, plain.item.id) == ("move", "up")
    assert (pieces.kind, pieces.amount, pieces.count.id) == ("move_pieces", "exactly", "up")


def test_an_invariant_when_parses():
    (inv,) = parse_text(header() + 'invariant ok "fine" when round > 1: true\n').declarations
    assert inv.when.kind == "binary" and inv.test.kind == "bool"


def test_the_formatter_keeps_pieces_and_when_canonical():
    text = header() + PIECES + """invariant counted "the tokens are all there" \\
    when round > 1: pile + sum(p.tokens for p in players) == 5

play {
    move up to 2 Goods from players[1].organizer to players[1].available
    move (all(p in players where p.tokens == 0)) Token from pile to players[1].tokens
    move all Goods from players[1].available to players[1].organizer cite "Selling"
}
"""
    assert format_source(text) == text
    assert format_source(text.replace("move up to 2", "move   up   to 2")) == text


# ------------------------------------------------------------------------------ the engine
def test_each_kind_starts_in_its_holding_and_the_rest_start_empty():
    g = play_of("")
    assert holdings(g) == [{"organizer": 3, "available": 0, "sold": 0, "tokens": 0}] * 2
    assert g.state.globals["pile"] == 5


def test_move_up_to_takes_what_there_is_and_all_empties():
    g = play_of("""
    let p = players[1]
    move up to 2 Goods from p.organizer to p.available
    move up to 2 Goods from p.organizer to p.available
    move 1 Goods from p.available to p.sold
    move all Goods from p.available to p.organizer
    move up to 4 Token from pile to p.tokens
    move up to 4 Token from pile to players[2].tokens
""")
    one, two = holdings(g)
    assert (one["organizer"], one["available"], one["sold"]) == (2, 0, 1)
    assert (one["tokens"], two["tokens"], g.state.globals["pile"]) == (4, 1, 0)
    assert two["organizer"] == 3


def test_moving_more_than_a_holding_holds_stops_the_game():
    with pytest.raises(DiagnosticError) as err:
        play_of("    move 4 Goods from players[1].organizer to players[1].available\n")
    d = err.value.diagnostics[0]
    assert d.code == "E0308" and "holds fewer Goods than the 4 to move" in d.message
    assert "move up to 4 Goods" in d.hint
    assert "3" not in d.message  # what it does hold is not told


def test_a_players_pieces_stay_their_own():
    with pytest.raises(DiagnosticError) as err:
        play_of("    move 1 Goods from players[1].organizer to players[2].available\n")
    assert err.value.diagnostics[0].code == "E0308"
    assert "each player's Goods are their own" in err.value.diagnostics[0].message


def test_a_negative_count_is_refused():
    with pytest.raises(DiagnosticError) as err:
        play_of("    move up to 0 - 1 Token from pile to players[1].tokens\n")
    assert err.value.diagnostics[0].code == "E0306"


def test_a_total_that_is_not_a_count_is_refused_when_the_game_starts():
    with pytest.raises(DiagnosticError) as err:
        game_of(header() + "pieces Token: 0 - 2, starting in pile\nglobal pile: Token shown\n")
    assert err.value.diagnostics[0].code == "E0306"


def test_a_move_costs_one_step_however_many_it_moves():
    few = play_of("    move 1 Token from pile to players[1].tokens\n")
    many = play_of("    move 5 Token from pile to players[1].tokens\n")
    assert few.state.steps == many.state.steps


def test_a_holding_from_and_to_itself_keeps_its_pieces():
    g = play_of("    move up to 9 Token from pile to pile\n")
    assert g.state.globals["pile"] == 5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["organizer", "available", "sold"]),
                          st.sampled_from(["organizer", "available", "sold"]),
                          st.integers(0, 4), st.sampled_from(["up to ", "all", ""])),
                max_size=12))
def test_pieces_are_never_made_or_lost(moves):
    lines = []
    for source, dest, n, how in moves:
        amount = "all" if how == "all" else f"{how}{n}"
        if how == "":  # an exact move only of what is there
            lines.append(f"    if players[1].{source} >= {n} {{\n"
                         f"        move {n} Goods from players[1].{source} to players[1].{dest}\n"
                         "    }\n")
        else:
            lines.append(f"    move {amount} Goods from players[1].{source} to players[1].{dest}\n")
    one = holdings(play_of("".join(lines)))[0]
    assert min(one["organizer"], one["available"], one["sold"]) >= 0
    assert one["organizer"] + one["available"] + one["sold"] == 3


def test_what_others_may_not_see_stays_hidden():
    g = play_of("""
    move up to 2 Goods from players[1].organizer to players[1].available
    choose players[1] "Go on?" {
        option go {
        }
    }
""")
    other, own = view(g, 2)["players"][0]["vars"], view(g, 1)["players"][0]["vars"]
    assert own["available"] == 2 and other["available"] != 2
    assert other["organizer"] == 1  # a public holding tells what was taken from it


def test_holdings_survive_a_save_a_load_and_a_copy():
    g = play_of("""
    move up to 2 Goods from players[1].organizer to players[1].available
    choose players[1] "Go on?" {
        option go {
            move 1 Token from pile to players[1].tokens
        }
    }
""")
    loaded = Game.load(g.save(), g.rules)
    copy = g.clone()
    for game in (g, loaded, copy):
        game.apply("go")
        assert holdings(game)[0] == {"organizer": 1, "available": 2, "sold": 0, "tokens": 1}
        assert game.state.globals["pile"] == 4


# ------------------------------------------------------------------------- invariants when
WATCHED = """
global tally: int
global open: bool = true
invariant below_three "the tally stays below 3 while open" when open: tally < 3
"""


def test_an_invariant_is_not_checked_while_its_when_does_not_hold():
    g = game_of(header("1") + WATCHED + """
play {
    set open = false
    set tally = 5
    choose players[1] "Go on?" {
        option go {
            set tally = 0
        }
    }
    set open = true
}
""", 1)
    g.apply("go")
    assert g.error is None and g.state.globals["tally"] == 0


def test_a_change_made_while_not_checked_is_caught_when_the_when_holds_again():
    g = game_of(header("1") + WATCHED + """
play {
    set open = false
    set tally = 5
    choose players[1] "First" {
        option go {
        }
    }
    set open = true
    choose players[1] "Second" {
        option go {
        }
    }
}
""", 1)
    assert g.error is None  # closed: not checked at the first decision
    with pytest.raises(DiagnosticError) as err:
        g.apply("go")  # open again, and nothing the test reads changed since: still owed
    assert err.value.diagnostics[0].code == "E0313"
    assert "below_three" in err.value.diagnostics[0].message


def test_a_move_into_something_that_is_not_a_holding_stops_with_a_diagnostic():
    # `rulebook check` reports it (E0240); unchecked rules still end with a diagnostic
    with pytest.raises(DiagnosticError) as err:
        play_of("    move 1 Token from pile to players[1].hand\n",
                extra="player hand: list of int\n")
    assert err.value.diagnostics[0].code == "E0306"
