"""Budgets and runtime errors: rule bugs stop the game with a located diagnostic."""
import pytest

from engine_helpers import game_of, header
from rulebook.interpreter.errors import RuleError
from rulebook.interpreter.state import Limits
from rulebook.validator.diagnostics import DiagnosticError


def _error(text, limits=None):
    with pytest.raises(DiagnosticError) as e:
        game_of(header("1") + text, players=1, limits=limits)
    return e.value.diagnostics[0]


def test_runaway_loop_hits_the_step_budget():
    d = _error("global n: int\nplay {\n    while true { increase n by 1 }\n}\n",
               Limits(max_steps=10_000))
    assert d.code == "E0301" and d.line == 6 and d.file == "<test>"


def test_unbounded_recursion_hits_the_depth_budget():
    d = _error("define f(x) = f(x + 1)\nglobal n: int\nplay { set n = f(1) }\n")
    assert d.code == "E0302" and d.line == 4


def test_a_procedure_calling_itself_without_end_hits_the_depth_budget_where_it_calls():
    d = _error("global n: int\nprocedure climb() {\n    increase n by 1\n    do climb()\n}\n"
               "play { do climb() }\n", Limits(max_depth=40))
    assert (d.code, d.line, d.message) == ("E0302", 7, "calls nest more than 40 deep")


def test_huge_range_is_refused():
    d = _error("global n: int\nplay { set n = size(1..100000000) }\n")
    assert d.code == "E0303"


def test_huge_numbers_are_refused():
    d = _error("global n: int = 1\nplay {\n    repeat 80 times { set n = n * 2 }\n}\n")
    assert d.code == "E0304" and d.line == 6


def test_division_by_zero_names_the_rule():
    d = _error("global n: int\nplay {\n    set n = 3 / (n - n)\n}\n")
    assert (d.code, d.line) == ("E0305", 6)
    assert "division by zero" in d.message


def test_wrong_types_and_bad_indexes_are_diagnostics():
    assert _error('global n: int\nplay { set n = 1 + "a" }\n').code == "E0306"
    assert _error("global xs: list of int\nplay { set xs[3] = 1 }\n").code == "E0307"


def test_require_failure_reports_its_message():
    d = _error('play {\n    require 1 > 2 "one is not more than two"\n}\n')
    assert (d.code, d.message, d.line) == ("E0309", "one is not more than two", 5)


def test_too_many_options_are_refused():
    d = _error('global n: int\nplay {\n    choose players[1] { option x for i in 1..9000 { } }\n}\n')
    assert d.code == "E0303"


def test_filling_memory_with_big_lists_runs_out_of_steps():
    d = _error("global big: list of list of int\nplay {\n"
               "    repeat 1000 times { add 1..90000 to big }\n}\n", Limits(max_steps=1_000_000))
    assert d.code == "E0301" and d.line == 6


def test_doubling_a_text_is_stopped_before_it_fills_memory():
    d = _error('global s: text = "ab"\nplay {\n    while true { set s = s + s }\n}\n')
    assert d.code == "E0303" and d.line == 6


def test_a_huge_grid_is_refused():
    d = _error("global board: grid 100000000 by 3 of int?\n")
    assert d.code == "E0303" and d.line == 4


def test_a_number_beyond_the_engine_is_refused_where_it_is_written():
    from rulebook.grammar.parser import parse_text

    with pytest.raises(DiagnosticError) as e:
        parse_text(header("1") + "global board: grid 100000000000000000 by 3 of int?\n", "t")
    d = e.value.diagnostics[0]
    assert (d.code, d.line, d.column) == ("E0122", 4, 20)


def test_labels_read_again_and_again_still_end():
    """A label leaves no trace (its steps are given back), so labels are counted apart: a
    decision whose labels are costly stops with E0301 once they have cost the side budget."""
    g = game_of(header() + """
play {
    choose players[1] "Pick" {
        option pick for k in 1..200 label "{k}: {sum(i for i in 1..500)}" {
            log "picked"
        }
    }
}
""", limits=Limits(max_steps=20_000, max_side_steps=50_000))
    with pytest.raises(DiagnosticError) as err:
        g.legal_options()
    (d,) = err.value.diagnostics
    assert d.code == "E0301" and "labels" in d.message


def test_a_sum_of_what_is_no_number_is_refused_once_its_loop_has_run():
    d = _error("global n: int\nglobal xs: list of int = [1, 2]\nplay {\n"
               "    set n = sum(if x == 2 then true else x for x in xs)\n}\n")
    assert (d.code, d.line) == ("E0306", 7) and "`sum` needs numbers, got bool" in d.message


def test_a_sum_past_the_largest_number_is_refused():
    d = _error("global n: int\nglobal xs: list of int = [1, 2]\nplay {\n"
               "    set n = sum(x * 1000000000 * 1000000000 * 1000 for x in xs)\n}\n")
    assert (d.code, d.line) == ("E0304", 7) and "too large" in d.message


def test_a_sum_adds_what_passes_its_filter_and_charges_a_step_for_each():
    source = "global n: int\nglobal xs: list of int = [1, 2, 3, 4]\nplay {\n" \
             "    set n = sum(x for x in xs where x > K)\n}\n"
    games = [game_of(header("1") + source.replace("K", k), players=1) for k in "02"]
    assert [g.state.globals["n"] for g in games] == [10, 7]
    # four elements visited either way; the two left out by the filter are not added (a step each)
    assert games[0].state.steps - games[1].state.steps == 2


@pytest.mark.parametrize("cell,code", [("2, 3", None), ("3, 1", "E0307"), ("0, 1", "E0307"),
                                       ('"a", 1', "E0306")])
def test_a_move_to_or_from_a_grid_cell_is_checked_where_it_is_written(cell, code):
    text = (f"global g: grid 2 by 3 of int? = none\nglobal xs: list of int = [4, 5]\n"
            f"play {{\n    move 4 from xs to g[{cell}]\n    move 5 from xs to g[1, 1]\n"
            f"    move 5 from g[1, 1] to xs\n}}\n")
    if code is None:
        g = game_of(header("1") + text, players=1)
        assert g.state.globals["g"].cells == [None, None, None, None, None, 4]
        assert g.state.globals["xs"] == [5]
        return
    d = _error(text)
    assert (d.code, d.line) == (code, 7)


def test_too_many_options_from_lists_are_refused_whether_one_list_or_combinations():
    one = _error("global xs: list of int = []\nplay {\n    set xs = 1..6000\n"
                 "    choose players[1] { option x for i in xs { } }\n}\n")
    two = _error("global xs: list of int = []\nplay {\n    set xs = 1..80\n"
                 "    choose players[1] { option x for i in xs, j in xs { } }\n}\n")
    assert (one.code, one.line) == ("E0303", 7) and (two.code, two.line) == ("E0303", 7)
    assert "more than 5000 options" in one.message


def test_recursion_that_branches_is_stopped_by_the_budget_where_it_calls():
    """A statement that neither loops nor calls is charged without the budget being looked at
    (`Function.steps(check=False)`): a call, a turn of a loop or a decision looks. A procedure
    or a define calling itself twice per call, 2^60 calls within the depth allowed, still ends."""
    d = _error("global n: int\nprocedure grow(k) {\n    increase n by 1\n    if k < 60 {\n"
               "        do grow(k + 1)\n        do grow(k + 1)\n    }\n}\nplay { do grow(1) }\n",
               Limits(max_steps=20_000))
    assert d.code == "E0301" and d.line in (9, 10)  # one of the calls
    d = _error("define fan(k) = if k >= 60 then 1 else fan(k + 1) + fan(k + 1)\n"
               "global n: int\nplay { set n = fan(1) }\n", Limits(max_steps=20_000))
    assert d.code == "E0301" and d.line == 4


def test_straight_code_is_charged_its_steps_all_the_same():
    """Each statement and each define written out where it is called costs its steps, looked
    at by the budget or not."""
    text = header("1") + ("global n: int\ndefine twice(x) = x * 2\nplay {\n"
                          + "    set n = twice(n) + 1\n" * 5 + "}\n")
    from engine_helpers import game_of as made
    g = made(text, players=1)
    plain = made(header("1") + "global n: int\nplay {\n}\n", players=1)
    assert g.state.globals["n"] == 31
    assert g.state.steps - plain.state.steps == 5 * (1 + 2)  # a statement, a define's call


def test_sums_of_sizes_and_counts_are_held_to_the_upper_bound():
    """A sum of sizes and counts (0 or more) is tested against the upper bound alone
    (`Function.naturals`); it is refused past it as any number is, and a difference still
    against both bounds."""
    lists = "global xs: list of int = [1, 2, 3, 4, 5, 6]\nglobal n: int\n"
    small = Limits(max_number=10)
    d = _error(lists + "play { set n = size(xs) + count(x in xs where x > 0) }\n", small)
    assert d.code == "E0304" and d.line == 6
    d = _error(lists + "play { set n = sum(size(xs) for x in xs) }\n", small)
    assert d.code == "E0304" and d.line == 6
    d = _error(lists + "play { set n = 0 - size(xs) - size(xs) }\n", small)
    assert d.code == "E0304" and d.line == 6
    g = game_of(header("1") + lists + "play { set n = size(xs) + count(x in xs where x > 3) }\n",
                players=1, limits=small)
    assert g.state.globals["n"] == 9


def test_numbers_past_one_digit_of_python_ints_are_held_to_the_bounds_as_any():
    """Within 2**30 a number is known within the bounds at once (`Evaluator.safe_number`);
    past it, up to `max_number` (2**53), it is still a number, and past that refused."""
    text = "global n: int = 1073741823\nglobal m: int\nplay {\n" \
        "    set n = n + 1\n    set m = 0 - n - n\n    repeat 22 times { set n = n * 2 }\n}\n"
    g = game_of(header("1") + text, players=1)
    assert (g.state.globals["n"], g.state.globals["m"]) == (2 ** 52, -(2 ** 31))
    assert game_of(header("1") + text.replace("repeat 22 times", "repeat 23 times"),
                   players=1).state.globals["n"] == 2 ** 53  # the bound itself
    d = _error(text.replace("repeat 22 times", "repeat 24 times"))
    assert (d.code, d.line) == ("E0304", 9)
    d = _error(text, Limits(max_number=2 ** 40))
    assert (d.code, d.line) == ("E0304", 9)


def test_short_loops_without_a_check_of_their_own_are_still_stopped_by_the_loop_around():
    """The innermost loop over a range written as numbers (64 turns at most), with no loop in
    it, charges its steps without looking at the budget: the loop around looks."""
    d = _error("global n: int\nplay {\n    while true {\n"
               "        set n = count(i in 1..60 where all(j in 1..60 where i + j > 1))\n"
               "    }\n}\n", Limits(max_steps=50_000))
    assert d.code == "E0301" and d.line == 6  # the `while`
    steady = game_of(header("1") + "global n: int\nplay {\n"
                     "    set n = count(i in 1..60 where all(j in 1..60 where i + j > 2))\n}\n",
                     players=1)
    assert steady.state.globals["n"] == 59  # i = 1 fails with j = 1


@pytest.mark.parametrize("test,where", [
    ("true and n and false", 22), ("true and true and n", 31), ("false or n or true", 22),
    ("(false or true) and (n or true)", 34), ("true and (false or n)", 32)])
def test_a_chain_of_ands_or_ors_names_the_operand_that_is_no_truth(test, where):
    d = _error(f"global n: int\nglobal b: bool\nplay {{\n    set b = {test}\n}}\n")
    assert (d.code, d.line, d.column) == ("E0306", 7, where)
    assert "expected yes/no (a condition) but got int `0`" in d.message


@pytest.mark.parametrize("test,value", [("false and n and true", False),
                                        ("true or n or true", True),
                                        ("true and true and not false", True),
                                        ("false or false or false", False)])
def test_a_chain_of_ands_or_ors_ends_at_the_first_operand_that_decides_it(test, value):
    game = game_of(header("1") + f"global n: int\nglobal b: bool\nplay {{\n    set b = {test}\n}}\n",
                   players=1)
    assert game.state.globals["b"] is value


@pytest.mark.parametrize("b,equal,charged", [([1, 2], True, 2), ([1, 3], False, 2),
                                             ([1], False, 0), ([1, 2, 3], False, 0)])
def test_lists_compared_are_charged_the_elements_visited_and_the_budget_looked_at(b, equal,
                                                                                 charged):
    """`Evaluator.same` of two lists: lists of other lengths differ with no element visited,
    and the budget is still looked at there, as after any charge."""
    g = game_of(header() + "play { end game }\n", limits=Limits(max_steps=10_000))
    m, st = g.machine, g.machine.state
    before = st.steps
    assert m.same([1, 2], b) is equal and st.steps - before == charged
    st.steps = m.next_check = 10_001  # past the budget, not looked at yet
    with pytest.raises(RuleError) as err:
        m.same([1, 2], b)
    assert err.value.code == "E0301"
