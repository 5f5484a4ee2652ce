"""State carried by components (`on Record name: type`) and when a component last moved
(`moved_at(x)`): parsed, formatted, checked, run, kept through moves, saves, copies and views,
and hidden when declared secret."""
from __future__ import annotations

import json

import pytest
from engine_helpers import game_of, header
from hypothesis import given, settings
from hypothesis import strategies as st
from rulebook.grammar import ast as A
from rulebook.grammar.formatter import format_source
from rulebook.grammar.parser import parse_text
from rulebook.interpreter.game import Game
from rulebook.interpreter.human import render_view
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program

TILES = '''record Tile { name: text, cp: int }
table tiles of Tile {
    id  | name      | cp
    pub | "Pub"     | 2
    bar | "Bar"     | 3
    inn | "Inn"     | 1
}
'''

# Two market spaces, one above the other, and a place below the board: the tile moving down
# keeps its shares; the one pushed off gives them back.
MARKET = header("2") + TILES + '''
on Tile shares: map of player to int cite "Market tile"
on Tile marks: int = 1 at least 0 secret
global upper: list of Tile = [tiles.pub]
global lower: list of Tile = [tiles.bar]
global below: list of Tile
player pile: int = 10
play {
    increase tiles.pub.shares[players[1]] by 3
    decrease players[1].pile by 3
    increase tiles.bar.shares[players[2]] by 2
    decrease players[2].pile by 2
    choose players[1] "Push?" {
        option push {
            for p in players {
                increase p.pile by tiles.bar.shares[p]
                set tiles.bar.shares[p] = 0
            }
            move tiles.bar from lower to below
            move tiles.pub from upper to lower
        }
    }
    choose players[1] "Again?" {
        option again {
            decrease tiles.inn.marks by 5
        }
    }
}
'''


def problems(text: str) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in check_program(parse_text(text, "t")) if d.is_error]


# ------------------------------------------------------------------------------ language
def test_the_declaration_parses_with_the_options_of_state():
    program = parse_text(header() + TILES + 'on Tile marks: int = 2 at least 0 secret shown '
                         'cite "x"\n', "t")
    (decl,) = [d for d in program.declarations if d.kind == "component_state"]
    assert isinstance(decl, A.ComponentStateDecl)
    assert (decl.record, decl.name, decl.key) == ("Tile", "marks", "Tile.marks")
    assert decl.visibility == "secret" and decl.shown and decl.meta.cite == ["x"]
    assert decl.initial.value == 2 and decl.at_least.value == 0


def test_the_formatter_writes_it_back_unchanged():
    text = header() + TILES + '\non Tile shares: map of player to int = map {} secret shown ' \
        'cite "Market tile"\n'
    out = format_source(text)
    assert "on Tile shares: map of player to int = map {} secret shown cite \"Market tile\"" in out
    assert format_source(out) == out


def test_the_checker_accepts_reading_and_changing_it_through_a_component():
    assert problems(MARKET) == []


@pytest.mark.parametrize("line,code", [
    ("on Lot bids: int shown", "E0231"),       # a record no table lists: no component
    ("on Tiel marks: int shown", "E0205"),
    ("on Tile cp: int shown", "E0208"),        # a printed field of the record
    ("on Tile marks: int owner shown", "E0210"),
    ("on Tile marks: int stacked shown", "E0210"),
    ("on Tile marks: int = [1] shown", "E0220"),
])
def test_the_checker_refuses_what_a_component_cannot_carry(line, code):
    text = header() + TILES + "record Lot { price: int }\n" + line + "\n"
    assert (code, 12) in problems(text)


def test_a_component_state_cannot_be_revealed_part_by_part():
    text = header() + TILES + "on Tile marks: int secret\nplay {\n    reveal tiles.pub.marks\n}\n"
    assert ("E0226", 13) in problems(text)


# ------------------------------------------------------------------------------- engine
def test_each_component_starts_with_its_own_value_and_keeps_it_through_a_move():
    g = game_of(MARKET, players=2)
    shares = g.state.globals["Tile.shares"]
    pub, bar, inn = (g.rules.items_by_id[f"tiles.{k}"] for k in ("pub", "bar", "inn"))
    seats = g.state.seats
    # `map of player to int` starts with every player at 0, one map per component
    assert shares[inn] == {seats[0]: 0, seats[1]: 0} and shares[inn] is not shares[pub]
    assert shares[pub][seats[0]] == 3 and shares[bar][seats[1]] == 2
    g.apply("push", 1)
    assert g.state.globals["lower"] == [pub] and shares[pub][seats[0]] == 3
    assert shares[bar] == {seats[0]: 0, seats[1]: 0}
    assert [s.vars["pile"] for s in seats] == [7, 10]


def test_bounds_clamp_a_component_state():
    g = game_of(MARKET, players=2)
    g.apply("push", 1)
    g.apply("again", 1)
    assert g.state.globals["Tile.marks"][g.rules.items_by_id["tiles.inn"]] == 0


def test_a_component_field_still_cannot_be_set():
    with pytest.raises(DiagnosticError) as err:
        game_of(header("1") + TILES + "play {\n    set tiles.pub.cp = 4\n}\n", players=1)
    assert "cannot be changed" in err.value.diagnostics[0].message


def test_a_secret_component_state_is_hidden_in_views_and_public_state_is_listed_when_held():
    g = game_of(MARKET, players=2)
    v = view(g, 1)
    assert v["globals"]["Tile.marks"] == {"hidden": True}
    listed = v["globals"]["Tile.shares"]["map"]
    assert [k["item"] for k, _ in listed] == ["tiles.pub", "tiles.bar"]  # the inn holds none
    table = render_view(v)
    assert "Tile.shares: {Pub: {player 1: 3, player 2: 0}, Bar: {player 1: 0, player 2: 2}}" \
        in table
    assert "Tile.marks: (hidden)" in table


def test_saves_and_copies_keep_component_state_and_moves():
    g = game_of(MARKET, players=2)
    g.apply("push", 1)
    data = json.loads(json.dumps(g.save()))
    loaded = Game.load(data, g.rules)
    copy = g.clone()
    for other in (loaded, copy):
        assert other.digest() == g.digest()
        pub = other.rules.items_by_id["tiles.pub"]
        assert other.state.globals["Tile.shares"][pub][other.state.seats[0]] == 3
        assert other.machine.bi_moved_at(None, pub) == g.machine.bi_moved_at(None, pub) > 0
    copy.state.globals["Tile.shares"][pub][copy.state.seats[0]] = 9
    assert g.state.globals["Tile.shares"][pub][g.state.seats[0]] == 3


def test_an_invariant_over_component_state_is_checked_when_it_changes():
    text = MARKET.replace("play {", 'invariant caps "every cap is somewhere": all(p in players '
                          'where p.pile + sum(t.shares[p] for t in tiles) == 10)\nplay {', 1)
    g = game_of(text, players=2)
    (_, reads) = g.rules.code.invariants[0]
    assert "Tile.shares" in reads and "pile" in reads
    broken = text.replace("decrease players[2].pile by 2\n", "")
    with pytest.raises(DiagnosticError) as err:
        game_of(broken, players=2)
    assert err.value.diagnostics[0].code == "E0313"


# ------------------------------------------------------------------------------ moved_at
MOVES = header("1") + TILES + '''
global row: list of Tile = tiles
global below: list of Tile
play {
    choose players[1] "Move" {
        option move for t in row label "{t}" {
            move t from row to below
        }
        option stop {
            end game
        }
    }
    choose players[1] "Move" {
        option move for t in row label "{t}" {
            move t to below at top
        }
    }
}
'''


def test_moved_at_tells_which_component_moved_last():
    g = game_of(MOVES, players=1)
    pub, bar, inn = (g.rules.items_by_id[f"tiles.{k}"] for k in ("pub", "bar", "inn"))
    moved = g.machine.bi_moved_at
    assert moved(None, pub) == moved(None, bar) == 0  # never moved since the game began
    g.apply("Inn", 1)
    g.apply("Pub", 1)
    assert 0 < moved(None, inn) < moved(None, pub) and moved(None, bar) == 0
    assert g.machine.eval(parse_text(header("1") + "const x = sole_max(t in below by "
                                     "moved_at(t))\n").declarations[0].value, {}) is pub


def test_moved_at_of_something_that_is_not_a_component_stops_with_a_clear_error():
    with pytest.raises(DiagnosticError) as err:
        game_of(header("1") + "global n: int\nplay {\n    set n = moved_at(none)\n}\n",
                players=1)
    assert "`moved_at` tells when a component moved" in err.value.diagnostics[0].message


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2), min_size=1, max_size=12))
def test_component_state_follows_its_component_whatever_the_moves(picks):
    """Each tile carries its own number however the tiles are shuffled between two zones."""
    text = header("1") + TILES + '''
on Tile number: int
global left: list of Tile = tiles
global right: list of Tile
setup {
    for t in left {
        set t.number = t.cp * 10
    }
}
play {
    repeat choose players[1] "Move" {
        option go for t in tiles label "{t}" {
            if t in left {
                move t from left to right at top
            } else {
                move t from right to left
            }
        }
    }
}
'''
    g = game_of(text, players=1)
    for k in picks:
        option = g.legal_options()[k][0]
        g.apply(option, 1)
    numbers = g.state.globals["Tile.number"]
    assert all(numbers[t] == t.fields["cp"] * 10 for t in g.rules.tables["tiles"])
    assert sorted(t.id for t in g.state.globals["left"] + g.state.globals["right"]) == \
        sorted(t.id for t in g.rules.tables["tiles"])


# ------------------------------------------------------------------------------ scenarios
def test_scenarios_set_check_and_see_component_state():
    from rulebook.interpreter.rules import compile_rules
    from rulebook.interpreter.scenario import run_scenarios

    text = MARKET + '''
scenario "shares on a named tile" {
    players 2
    given {
        set tiles.inn.shares[players[2]] = 4
        decrease players[2].pile by 4
    }
    expect tiles.inn.shares[players[2]] == 4 and tiles.pub.shares[players[1]] == 3
    expect visible tiles.pub.shares to players[2]
    expect hidden tiles.pub.marks to players[1] "secret state on a component"
    choose players[1] "push"
    expect tiles.pub in lower and tiles.pub.shares[players[1]] == 3 "the shares went with it"
    expect tiles.bar.shares[players[2]] == 0 and players[2].pile == 4 + 2
}
'''
    program = parse_text(text, "t.rules")
    rules = compile_rules(program)
    (result,) = run_scenarios(program, "t.rules", lambda ref, node=None, variants=(): rules)
    assert [d.message for d in result.failures] == []


def test_a_structure_of_the_record_does_not_carry_the_state():
    with pytest.raises(DiagnosticError) as err:
        game_of(header("1") + TILES + "on Tile marks: int\nglobal n: int\nplay {\n"
                "    let s = new Tile { name: \"x\", cp: 1 }\n    set n = s.marks\n}\n", players=1)
    assert "carried by the components of Tile, not by a structure" in \
        err.value.diagnostics[0].message
