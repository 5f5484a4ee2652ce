"""`turned(shape, k)`: a shape (rows of one length, or a grid) turned k quarter turns clockwise."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program


def turned_value(shape: str, k: str, setup: str = "") -> list:
    g = game_of(header("1") + f"""
global a: list of list of int
global b: grid 2 by 3 of int = 0
play {{
{setup}
    set a = turned({shape}, {k})
}}
""", players=1)
    return g.state.globals["a"]


def test_a_quarter_turn_clockwise_makes_columns_read_from_the_bottom_up():
    assert turned_value("[[1, 2, 3], [4, 5, 6]]", "1") == [[4, 1], [5, 2], [6, 3]]
    assert turned_value("[[1, 2, 3], [4, 5, 6]]", "2") == [[6, 5, 4], [3, 2, 1]]
    assert turned_value("[[1, 2, 3], [4, 5, 6]]", "3") == [[3, 6], [2, 5], [1, 4]]
    assert turned_value("[[1, 2, 3], [4, 5, 6]]", "-1") == [[3, 6], [2, 5], [1, 4]]
    assert turned_value("[[1, 2, 3], [4, 5, 6]]", "4") == [[1, 2, 3], [4, 5, 6]]
    assert turned_value("[]", "1") == []


def test_a_grid_is_turned_row_by_row():
    assert turned_value("b", "1", "    set b[1, 2] = 7") == [[0, 0], [0, 7], [0, 0]]


@pytest.mark.parametrize("shape", ["[1, 2]", "[[1, 2], [3]]", "3"])
def test_a_shape_that_is_not_rows_of_one_length_is_refused_while_running(shape):
    text = header("1") + f"global a: list of int shown\nplay {{\n    let x = turned({shape}, 1)\n}}\n"
    if shape == "3":
        assert [d.code for d in check_program(parse_text(text, "t")) if d.is_error] == ["E0210"]
        return
    with pytest.raises(DiagnosticError) as e:
        game_of(text, players=1)
    assert [d.code for d in e.value.diagnostics] == ["E0306"]
    assert "`turned`" in e.value.diagnostics[0].message


def test_the_checker_wants_a_number_of_quarter_turns_and_two_values():
    base = header("1") + "global a: list of list of int shown\nplay {\n    set a = "
    codes = [d.code for d in check_program(parse_text(base + 'turned([[1]], "x")\n}\n', "t"))]
    assert codes == ["E0210"]
    codes = [d.code for d in check_program(parse_text(base + "turned([[1]])\n}\n", "t"))]
    assert codes == ["E0209"]


def test_turning_costs_a_step_per_cell_and_quarter_turn():
    def steps(k):
        g = game_of(header("1") + f"global a: list of list of int\nplay {{\n"
                    f"    set a = turned([[1, 2, 3], [4, 5, 6]], {k})\n}}\n", players=1)
        return g.state.steps
    assert steps(3) - steps(1) == 2 * 6


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(lambda w: st.lists(
    st.lists(st.integers(0, 9), min_size=w, max_size=w), min_size=1, max_size=4)),
    st.integers(-6, 6))
def test_turning_back_gives_the_shape_again(rows, k):
    text = ", ".join("[" + ", ".join(map(str, r)) + "]" for r in rows)
    assert turned_value(f"turned([{text}], {k})", f"{-k}") == rows
    once = turned_value(f"[{text}]", f"{k}")
    assert (len(once), len(once[0])) == ((len(rows), len(rows[0])) if k % 2 == 0
                                          else (len(rows[0]), len(rows)))
