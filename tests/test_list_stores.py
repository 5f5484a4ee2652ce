"""A list stored in a state variable is the variable's own, whichever code stores it: the
generated code stores a list it has just made as it is and copies any other (as
`Effects.set_var`), joins lists with `+` where it is written, and makes ranges up to the limit on
a list's elements; each with the runtime's values, steps and errors."""
import dataclasses

import pytest

from engine_helpers import game_of, games_either_way, header, rules_of
from rulebook.interpreter import statements
from rulebook.interpreter.state import Limits
from rulebook.validator.diagnostics import DiagnosticError

SHARED = header() + """
global base: list of int = [1]
global a: list of int = []
global b: list of int = []
global c: list of int = []
global d: list of int = []
global e: list of int = []
global f: list of int = []
player hand: list of int = []
play {
    let l = [5]
    set a = l
    set b = l
    add 6 to a
    set c = base + [2]
    add 7 to base
    for p in players {
        set p.hand = c
        add 8 to p.hand
    }
    set base = c
    add 9 to c
    set d = [3] + [4] + c
    set d = d + []
    remove 9 from c
    if size(c) > 0 {
        let m = [0]
        set m = [5]
        set e = m
        set f = m
        add 6 to e
    }
}
"""


def _both_ways(source, monkeypatch, limits=None):
    """What a game of `source` ends with, its lists stored by the generated code and by the
    runtime: its globals, players' variables, steps and clock, or its error."""
    seen = []
    for written in (True, False):
        monkeypatch.setattr(statements, "WRITE_LISTS", written)
        code = "".join(rules_of(source).code.gen.sources)
        assert ("m.set_var(" in code) is written
        try:
            g = game_of(source, limits=limits)
            seen.append((g.state.globals, [s.vars for s in g.state.seats], g.state.steps,
                         g.state.clock))
        except DiagnosticError as err:
            d = err.diagnostics[0]
            seen.append((d.code, d.line, d.message))
    assert seen[0] == seen[1]
    return seen[0]


def test_a_list_stored_is_the_variables_own_however_it_was_made(monkeypatch):
    globals_, seats, _, _ = _both_ways(SHARED, monkeypatch)
    assert [globals_[k] for k in "abcd"] == [[5, 6], [5], [1, 2], [3, 4, 1, 2, 9]]
    assert [globals_[k] for k in "ef"] == [[5, 6], [5]]
    assert globals_["base"] == [1, 2]
    assert [s["hand"] for s in seats] == [[1, 2, 8], [1, 2, 8]]


def test_a_list_stored_twice_from_one_name_is_two_lists():
    g = game_of(SHARED)
    a, b, c, e, f = (g.state.globals[k] for k in "abcef")
    hands = [s.vars["hand"] for s in g.state.seats]
    assert a is not b and e is not f and hands[0] is not hands[1] and c is not g.state.globals["base"]


@pytest.mark.parametrize("what,error", [
    ("repeat 70 times { set xs = [xs] }", "nest more than 64 values deep"),
    ("repeat 200 times { set xs = xs + [1] }", "a list of 101 elements is too large"),
    ("repeat 200 times { set me.ys = [1] + me.ys }", "a list of 101 elements is too large"),
    ("set xs = 1 + [1]", "needs numbers"),
    ("set me.ys = [1] + \"a\"", "needs numbers"),
])
def test_a_list_that_cannot_be_stored_is_refused_the_same_way(what, error, monkeypatch):
    source = header("1") + "global xs: list of any = []\nplayer ys: list of int = []\n" \
        "global me: any = none\nplay {\n    set me = players[1]\n    " + what + "\n}\n"
    code, line, message = _both_ways(source, monkeypatch, Limits(max_collection=100))
    assert (code, line) == ("E0303" if "large" in error or "deep" in error else "E0306", 9)
    assert error in message


def test_a_list_joined_in_the_generated_code_charges_a_step_per_element(monkeypatch):
    source = header("1") + "global xs: list of int = [1, 2, 3]\nglobal n: int = 0\n" \
        "play {\n    set n = size(xs + [K])\n}\n"
    steps = [game_of(source.replace("K", k)).state.steps for k in ("4", "4, 5, 6")]
    assert steps[1] - steps[0] == 2 + 2  # two more elements written, two more joined


@pytest.mark.parametrize("ruleset", ["beverage", "liqueur", "smartphone_inc", "beer_empire"])
def test_the_books_play_the_same_games_with_lists_stored_either_way(ruleset, monkeypatch):
    records = games_either_way(ruleset, monkeypatch, statements, "WRITE_LISTS")
    assert records[0] == records[1]


@pytest.mark.parametrize("where", ["set n = size(1..k)", "for i in 1..k { increase n by 1 }",
                                   "set n = size(1..END)", "for i in 1..END { increase n by 1 }",
                                   "choose players[1] { option pick for i in 1..k { } }"])
@pytest.mark.parametrize("end", [100, 101])
def test_a_range_is_made_up_to_the_limit_on_elements_wherever_it_is_written(where, end):
    source = header("1") + f"global n: int = 0\nglobal k: int = {end}\nplay {{\n" \
        f"    {where.replace('END', str(end))}\n}}\n"
    limits = Limits(max_collection=100)
    if end == 100:
        g = game_of(source, limits=limits)
        assert g.state.globals["n"] == (0 if "choose" in where else 100)
        assert len(g.legal_options()) == (100 if "choose" in where else 0)
        return
    with pytest.raises(DiagnosticError) as err:
        game_of(source, limits=limits)
    d = err.value.diagnostics[0]
    assert (d.code, d.line, d.message) == ("E0303", 7, "the range 1..101 is too large")


def test_the_limit_on_a_lists_elements_is_at_least_64():
    with pytest.raises(ValueError, match="max_collection must be at least 64, not 63"):
        Limits(max_collection=63)
    assert dataclasses.replace(Limits(), max_collection=64).max_collection == 64
