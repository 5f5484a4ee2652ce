"""The options of a loop over a range written as numbers, with no `where`, are the same on every
listing: they are one constant of the generated module, appended in one call
(`codegen.WRITE_LISTED`), with the loop's options, order, steps and errors."""
import pytest

from engine_helpers import game_of, games_either_way, header, rules_of
from rulebook.interpreter import codegen
from rulebook.interpreter.state import Limits
from rulebook.validator.diagnostics import DiagnosticError

BIDS = header("1") + """const top = TOP
global bid: int = 0
play {
    choose players[1] "Bid" {
        option pass { }
        option bid for n in 1..top label "Bid {n}" { set bid = n }
        option half for n in 1..top where n % 2 == 0 { set bid = n }
    }
}
"""


def _listing(monkeypatch, written: bool, top: int, limits=None):
    monkeypatch.setattr(codegen, "WRITE_LISTED", written)
    source = BIDS.replace("TOP", str(top))
    code = "".join(rules_of(source).code.gen.sources)
    try:
        g = game_of(source, limits=limits)
    except DiagnosticError as err:
        d = err.diagnostics[0]
        return code.count("out.extend("), (d.code, d.line, d.message)
    return code.count("out.extend("), (g.legal_options(), g.state.steps)


@pytest.mark.parametrize("top", [1, 40, 99, 1024])
def test_options_listed_at_once_are_the_loops_options(top, monkeypatch):
    (once, listed), (looped, expected) = (_listing(monkeypatch, w, top) for w in (True, False))
    assert (once, looped) == (1, 0)  # the options with a `where` are still a loop
    assert listed == expected
    options, _ = listed
    assert options[:3] == [("pass", "pass"), ("bid:1", "Bid 1"), ("bid:2", "Bid 2")][:top + 1]
    assert len(options) == 1 + top + top // 2


def test_a_range_past_the_limit_on_options_is_refused_either_way(monkeypatch):
    results = [_listing(monkeypatch, w, 1024, Limits(max_options=1000)) for w in (True, False)]
    assert results[0][1] == results[1][1]
    assert results[0][1][0] == "E0303"


def test_a_range_longer_than_the_constants_allow_is_a_loop(monkeypatch):
    once, _ = _listing(monkeypatch, True, 1025)
    assert once == 0


@pytest.mark.parametrize("ruleset", ["beverage", "smartphone_inc"])
def test_the_books_play_the_same_games_with_options_listed_either_way(ruleset, monkeypatch):
    records = games_either_way(ruleset, monkeypatch, codegen, "WRITE_LISTED")
    assert records[0] == records[1]
