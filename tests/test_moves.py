"""`move x from A to B`: the runtime moves a component between two lists or grid cells at
once (`Effects.move_one`); what it does must be what taking, putting, noting both changes and the
move do one after the other, which is how every other move is made."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header
from hypothesis import given, settings
from hypothesis import strategies as st
from rulebook.interpreter.machine import Machine
from rulebook.interpreter.values import Grid
from rulebook.validator.diagnostics import DiagnosticError

TILES = '''record Tile { name: text }
table tiles of Tile {
    id | name
    a  | "A"
    b  | "B"
    c  | "C"
    d  | "D"
}
global pile: list of Tile = tiles
global row: list of Tile = []
player hand: list of Tile = []
global board: grid 2 by 2 of Tile? = none
'''
FILLED = "    move tiles.c from pile to board[1, 1]\n    move tiles.d from pile to board[2, 1]\n"
PLACES = ["pile", "row", "players[1].hand", "players[2].hand", "board[1, 1]", "board[2, 1]"]


def one_after_another(self, src, dst, item, place, node, src_key, dst_key) -> None:
    self.take(src, item, node)
    self.put(dst, [item], place, node)
    self.changed(src_key, None)
    self.changed(dst_key, None)
    self.note_moved([item])


def outcome(text: str):
    """What a game of `text` comes to: its state, steps, clock and moves, or its error."""
    try:
        g = game_of(text)
    except DiagnosticError as err:
        d = err.diagnostics[0]
        return ("error", d.code, d.line, d.message, getattr(err, "steps", None))
    st = g.state
    shown = {k: v.cells if isinstance(v, Grid) else v for k, v in st.globals.items()}
    return (repr(shown), repr([s.vars for s in st.seats]), st.steps, st.clock,
            sorted(st.changed_at.items(), key=repr))


def _moved_either_way(start: str, moves) -> None:
    """The game of `start` then the `moves` (what, from, to, at top) comes to the same whether
    each move is made at once or as its parts one after the other."""
    lines = "".join(f"    move {x} from {a} to {b}{' at top' if top else ''}\n"
                    for x, a, b, top in moves)
    text = header() + start + lines + "}\n"
    at_once = outcome(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Machine, "move_one", one_after_another)
        assert outcome(text) == at_once


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from(PLACES),
                          st.sampled_from(PLACES), st.booleans()), min_size=1, max_size=8))
def test_a_move_between_lists_and_cells_is_the_take_the_put_and_the_changes(moves):
    _moved_either_way(TILES + "setup {\n" + FILLED, [(f"tiles.{x}", *m) for x, *m in moves])


def test_a_component_not_in_the_list_it_is_moved_from_is_refused_where_it_is_moved():
    text = header() + TILES + "setup {\n    move tiles.a from row to pile\n}\n"
    with pytest.raises(DiagnosticError) as err:
        game_of(text)
    d = err.value.diagnostics[0]
    assert (d.code, d.line) == ("E0308", 17)
    assert "is not in the place it is moved from" in d.message


BAGS = '''record Bag { items: list of any }
global a: any = none
global b: any = none
global c: any = none
global pile: list of Bag = []
global row: list of Bag = []
player hand: list of Bag = []
global board: grid 2 by 2 of Bag? = none
'''
MADE = "".join(f"    set {x} = new Bag {{ items: [] }}\n    add {x} to pile\n" for x in "abc")
BAG_PLACES = ["pile", "row", "players[1].hand", "board[1, 1]", "a.items", "b.items"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(BAG_PLACES),
                          st.sampled_from(BAG_PLACES), st.booleans()), min_size=1, max_size=6))
def test_a_structure_moved_is_the_take_the_put_and_the_changes(moves):
    """Structures too (moved at once between lists they may be stored in): the same state,
    steps, clock and errors, a structure moved into itself refused as `put` refuses it."""
    _moved_either_way(BAGS + "setup {\n" + MADE, moves)


def test_a_structure_moved_into_what_it_holds_is_refused():
    text = header() + BAGS + "setup {\n" + MADE + "    move a from pile to a.items\n}\n"
    assert outcome(text)[:4] == ("error", "E0303", 19,
                                 "cannot store this value: it would contain itself")
