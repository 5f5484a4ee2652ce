"""An automaton's `otherwise` line: what it does at a decision no `prefer` line covers (the first
legal option, a random one, or an error naming the decision)."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header

from rulebook.grammar import ast as A
from rulebook.grammar.formatter import format_source
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError

BOT = header("1") + """
player picks: list of text shown
automaton Bot {
    prefer take by n descending
OTHERWISE
}
play {
    for p in players {
        choose p "Take" {
            option take for n in 1..3 where n > 1 {
                add "take {n}" to p.picks
            }
        }
        choose p "Pass or wait" {
            option pass {
                add "pass" to p.picks
            }
            option wait {
                add "wait" to p.picks
            }
        }
    }
}
"""


def bot(otherwise: str = "", seed: int = 0):
    g = game_of(BOT.replace("OTHERWISE", otherwise), players=1, seed=seed)
    g.apply("take:2", 1)
    g.apply("pass", 1)
    return g


def test_the_otherwise_line_is_read_with_its_citations():
    (auto,) = [d for d in parse_text(BOT.replace(
        "OTHERWISE", '    otherwise error cite "Summary"')).declarations
        if isinstance(d, A.AutomatonDecl)]
    assert auto.otherwise.mode == "error" and auto.otherwise.meta.cite == ["Summary"]
    assert [p.option for p in auto.policies] == ["take"]
    (plain,) = [d for d in parse_text(BOT.replace("OTHERWISE", "")).declarations
                if isinstance(d, A.AutomatonDecl)]
    assert plain.otherwise is None


def test_a_prefer_line_after_otherwise_is_a_syntax_error():
    with pytest.raises(DiagnosticError):
        parse_text(BOT.replace("OTHERWISE", "    otherwise first\n    prefer pass"))


@pytest.mark.parametrize("mode", ["first", "random", "error"])
def test_the_otherwise_line_is_formatted_last(mode):
    text = BOT.replace("OTHERWISE", f'    otherwise {mode} cite "Steve Rules Summary"')
    formatted = format_source(text)
    assert f'    prefer take by n descending\n    otherwise {mode} cite "Steve Rules Summary"\n' \
        in formatted
    assert format_source(formatted) == formatted


def test_without_a_line_or_with_otherwise_first_the_first_legal_option_is_taken():
    for otherwise in ("", "    otherwise first"):
        steve = bot(otherwise).state.seats[1]
        assert steve.vars["picks"] == ["take 3", "pass"]  # the line, then the first option


def test_otherwise_random_draws_from_the_legal_options_with_the_game_seed():
    seen = {bot("    otherwise random", seed).state.seats[1].vars["picks"][1] for seed in range(12)}
    assert seen == {"pass", "wait"}
    again = [bot("    otherwise random", 5).state.seats[1].vars["picks"] for _ in range(2)]
    assert again[0] == again[1]  # the same seed, the same draw


def test_otherwise_error_stops_the_game_naming_the_decision():
    g = game_of(BOT.replace("OTHERWISE", "    otherwise error"), players=1)
    g.apply("take:2", 1)
    with pytest.raises(DiagnosticError) as e:
        g.apply("pass", 1)
    assert e.value.diagnostics[0] == g.error and g.error.code == "E0318"
    assert g.error.line == 17  # the decision's `choose`
    assert 'Bot has no `prefer` line for the decision "Pass or wait"' in g.error.message
    assert "pass, wait" in g.error.message and "otherwise first" in g.error.hint
    assert g.state.seats[1].vars["picks"] == ["take 3"]  # its covered decision was made
