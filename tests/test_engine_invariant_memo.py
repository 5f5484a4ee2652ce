"""The values of repeatable defines worked out while the invariants were checked are given again
at the next check when nothing they read has changed since (`Game._remembered`), and worked out
anew when something has."""
from __future__ import annotations

import pytest

from rulebook import api
from rulebook.interpreter.game import Game
from rulebook.validator.diagnostics import DiagnosticError

RULES = '''game "Kept values" {
    players 2
}
global pile: list of int = [1, 2]
global marks: list of int = [5, 5]
global moves: int = 0
define counted(xs) = sum(x for x in xs)
define five() = size("{12345}")
# (each makes a text: it is called, not written out where it is used)
define piled() = counted(pile) * size("{1}")
define marked() = count(x in marks where x == five())
invariant small "the pile holds at most 10": piled() <= 10
invariant marked_twice "two marks": marked() == 2
play {
    rounds {
        for p in players {
            turn p {
                choose p "Move" {
                    option wait { increase moves by 1 }
                    option grow { add 3 to pile }
                    option burst { add 20 to pile }
                }
            }
        }
    }
}
'''


@pytest.fixture
def rules(tmp_path):
    path = tmp_path / "kept.rules"
    path.write_text(RULES)
    return api.load(str(path))


def kept(game) -> set[str]:
    return {key[0] for key in game._remembered}


@pytest.mark.parametrize("mode", ["changed", "turn"])
def test_a_value_whose_reads_did_not_change_is_kept_and_one_whose_reads_did_is_not(rules, mode):
    game = Game(rules, 2, 0, invariants=mode)
    game.apply("wait")
    assert {"marked", "piled"} <= kept(game)
    remembered = dict(game._remembered)
    game.apply("grow")  # the pile changed: `piled` is worked out anew, `marked` kept
    assert game._still_holding({"pile"}).keys() == {k for k in remembered
                                                    if k[0] in ("marked", "five")}
    assert game._remembered[("marked",)] == remembered[("marked",)]
    with pytest.raises(DiagnosticError) as err:
        game.apply("burst")
    assert err.value.diagnostics[0].code == "E0313" and "small" in err.value.diagnostics[0].message


def test_kept_values_change_no_game(rules):
    """The same decisions, with values kept between checks and with every check from scratch,
    give the same game."""
    a, b = Game(rules, 2, 3, invariants="changed"), Game(rules, 2, 3, invariants="changed")
    for option in ("wait", "grow", "wait", "wait", "grow"):
        a.apply(option)
        b._remembered = {}
        b.apply(option)
        assert a.state_written() == b.state_written()


def test_nothing_is_kept_in_every_mode_or_in_a_copy(rules):
    every = Game(rules, 2, 0, invariants="every")
    every.apply("wait")
    every._remembered = {("marked",): (3, 1)}  # were it given again, `marked_twice` would fail
    every.apply("wait")
    assert every.error is None and every._remembered[("marked",)][0] == 2
    changed = Game(rules, 2, 0)
    changed.apply("wait")
    assert changed._remembered and changed.clone()._remembered == {}
