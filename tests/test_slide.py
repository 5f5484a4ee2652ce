"""`slide g up|down|left|right`: the elements of a grid close its empty cells toward one side,
keeping their order (Beer Empire's warehouses at the end of the Brewery Phase, Liqueur's market
columns)."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header
from hypothesis import given, settings
from hypothesis import strategies as st
from rulebook.grammar.formatter import format_source
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program

TILES = '''record Tile { name: text }
table tiles of Tile {
    id | name
    a  | "A"
    b  | "B"
    c  | "C"
}
global pile: list of Tile = tiles
global g: grid 3 by 2 of Tile? = none
'''


def after(moves: str, toward: str):
    g = game_of(header("1") + TILES + "setup {\n" + moves + f"    slide g {toward}\n}}\n",
                players=1)
    grid = g.state.globals["g"]
    return g, [[None if c is None else c.fields["name"] for c in grid.cells[r * 2:r * 2 + 2]]
               for r in range(3)]


PLACED = ("    move tiles.a from pile to g[2, 1]\n    move tiles.b from pile to g[3, 1]\n"
          "    move tiles.c from pile to g[3, 2]\n")


def test_the_statement_parses_and_formats_back():
    program = parse_text(header("1") + TILES + 'setup {\n    slide g up cite "Ending"\n}\n', "t")
    (stmt,) = program.declarations[-1].body
    assert (stmt.kind, stmt.toward, stmt.target.id, stmt.meta.cite) == ("slide", "up", "g",
                                                                          ["Ending"])
    out = format_source(header("1") + TILES + "setup {\n    slide  g   down cite \"Ending\"\n}\n")
    assert '    slide g down cite "Ending"\n' in out and format_source(out) == out


@pytest.mark.parametrize("toward,rows", [
    ("up", [["A", "C"], ["B", None], [None, None]]),
    ("down", [[None, None], ["A", None], ["B", "C"]]),
    ("left", [[None, None], ["A", None], ["B", "C"]]),
    ("right", [[None, None], [None, "A"], ["B", "C"]]),
])
def test_each_direction_closes_the_gaps_keeping_the_order(toward, rows):
    _, grid = after(PLACED, toward)
    assert grid == rows


def test_only_the_elements_that_change_cell_count_as_moved():
    g, _ = after(PLACED, "down")
    moved = {k: g.machine.bi_moved_at(None, g.rules.items_by_id[f"tiles.{k}"])
             for k in ("a", "b", "c")}
    g2, _ = after(PLACED, "up")
    moved_up = {k: g2.machine.bi_moved_at(None, g2.rules.items_by_id[f"tiles.{k}"])
                for k in ("a", "b", "c")}
    assert 0 < moved["a"] < moved["b"] < moved["c"]  # already at the bottom: only placed
    assert moved_up["a"] == moved_up["b"] == moved_up["c"] > moved["c"]  # all three slid up


def test_the_checker_and_the_engine_refuse_what_is_not_a_grid():
    text = header("1") + "global xs: list of int shown\nsetup {\n    slide xs left\n}\n"
    assert [d.code for d in check_program(parse_text(text, "t")) if d.is_error] == ["E0210"]
    with pytest.raises(DiagnosticError) as err:
        game_of(header("1") + "define f(x) = x\nsetup {\n    slide f(3) up\n}\n", players=1)
    assert "can only slide a grid" in err.value.diagnostics[0].message


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 9)), min_size=12, max_size=12),
       st.sampled_from(["up", "down", "left", "right"]))
def test_sliding_keeps_every_element_and_its_order_along_each_line(cells, toward):
    values = ", ".join("none" if c is None else str(c) for c in cells)
    text = header("1") + f'''global g: grid 3 by 4 of int? = none
global start: list of int? = [{values}]
setup {{
    for r in 1..3 {{
        for c in 1..4 {{
            set g[r, c] = start[(r - 1) * 4 + c]
        }}
    }}
    slide g {toward}
}}
'''
    grid = game_of(text, players=1).state.globals["g"].cells
    rows = [cells[r * 4:r * 4 + 4] for r in range(3)]
    out = [grid[r * 4:r * 4 + 4] for r in range(3)]
    if toward in ("up", "down"):
        rows = [list(x) for x in zip(*rows)]
        out = [list(x) for x in zip(*out)]
    for line, got in zip(rows, out):
        held = [x for x in line if x is not None]
        gaps = [None] * (len(line) - len(held))
        assert got == (held + gaps if toward in ("up", "left") else gaps + held)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=12, max_size=12),
       st.sampled_from(["up", "down", "left", "right"]), st.sampled_from([(3, 4), (4, 3)]))
def test_what_slid_is_each_element_that_changed_cell_line_by_line_as_it_lands(full, toward,
                                                                            shape):
    """The elements `slide` reports (those whose moves are noted) are the ones that changed
    cell: line after line, from the side they go to."""
    from rulebook.interpreter.values import Grid

    rows, columns = shape
    g = game_of(header("1") + "setup { }\n", players=1)
    grid = Grid(rows, columns)
    grid.cells = [object() if f else None for f in full]
    before = list(grid.cells)
    moved = g.machine.slide_grid(grid, toward, None)
    across = toward in ("up", "down")
    lines = [[c + r * columns for r in range(rows)] for c in range(columns)] if across else \
        [[r * columns + c for c in range(columns)] for r in range(rows)]
    expected = []
    for places in lines:
        if toward in ("down", "right"):
            places = places[::-1]
        held = [before[p] for p in places if before[p] is not None]
        expected += [x for p, x in zip(places, held) if before[p] is not x]
    assert moved == expected
    assert sorted(map(id, filter(None, grid.cells))) == sorted(map(id, filter(None, before)))
