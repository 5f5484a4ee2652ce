"""While options are listed and invariants checked, a repeatable define's value is worked out
once per arguments (Evaluator.standing_still); the game is the same as without it, to the step."""
from engine_helpers import game_of, header, rules_of
from rulebook.interpreter.agents import RandomAgent
from rulebook.interpreter.dependencies import repeatable_defines
from rulebook.interpreter.evaluator import Evaluator

RULES = header() + """
record Token {
    n: int
}
global pile: list of int = [1, 2, 3, 4, 5, 6]
player total: int = 0
define heavy(x) = sum(v * x for v in pile)
define uses_heavy(k) = heavy(2) + k
define coin() = random_int(0, 1)
define tossing(k) = coin() + k
define made() = new Token { n: 1 }
define shuffled_pile() = shuffled(pile)
define sorted_randomly() = sort(v in pile by random)
invariant steady "the pile is never empty": size(pile) > 0 and heavy(1) > 0
play {
    rounds 4 {
        for p in players {
            choose p "Pick" {
                option take for v in pile where uses_heavy(v) > heavy(1) and heavy(3) > 0 {
                    increase p.total by v
                }
                option lucky for k in 1..12 where tossing(k) > k { increase p.total by 1 }
            }
        }
    }
}
"""


def test_only_defines_without_draws_or_new_records_are_repeatable():
    rules = rules_of(RULES)
    assert repeatable_defines(rules) == {"heavy", "uses_heavy"}


def _played(remember: bool, monkeypatch):
    if not remember:
        monkeypatch.setattr(Evaluator, "standing_still",
                            lambda self, work, *args, **_: work(*args))
    g = game_of(RULES, seed=3)
    agent, offered = RandomAgent(5), []
    while not g.over:
        options = g.legal_options()
        offered.append([oid for oid, _ in options])
        g.apply(agent.decide(None, options))
    monkeypatch.undo()
    return g, offered


def test_remembering_changes_neither_the_game_nor_its_step_count(monkeypatch):
    remembered, offered = _played(True, monkeypatch)
    worked_out, offered_again = _played(False, monkeypatch)
    assert offered == offered_again
    assert remembered.state.steps == worked_out.state.steps
    assert remembered.state.rng.state == worked_out.state.rng.state
    assert [s.vars for s in remembered.state.seats] == [s.vars for s in worked_out.state.seats]


def test_a_define_that_draws_is_drawn_again_for_each_option(monkeypatch):
    """`tossing(k) > k` holds for about half of the twelve `lucky` options at each decision: a
    remembered draw would offer all of them or none."""
    _, offered = _played(True, monkeypatch)
    counts = [sum(o.startswith("lucky:") for o in ids) for ids in offered]
    assert any(0 < c < 12 for c in counts)


def test_the_memo_lasts_only_while_the_state_stands_still(monkeypatch):
    g, _ = _played(True, monkeypatch)
    assert g.machine.memo is None
