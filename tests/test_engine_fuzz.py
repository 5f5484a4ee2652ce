"""Rules that check clean but do odd things at run time must stop with a diagnostic, never with a
Python exception: mutate the numbers and operators of real rulesets and play them."""
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook.grammar.parser import parse_text
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.errors import IllegalDecision
from rulebook.interpreter.game import Game
from rulebook.interpreter.rules import compile_rules
from rulebook.interpreter.state import Limits
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.schema import validate_program
from rulebook.validator.semantic import check_program

ROOT = Path(__file__).resolve().parents[1] / "rulesets"
SOURCES = {
    "tictactoe": (ROOT / "examples" / "tictactoe.rules").read_text(encoding="utf-8"),
    "liqueur": (ROOT / "liqueur" / "liqueur.rules").read_text(encoding="utf-8"),
}
NUMBER = re.compile(r"(?<![\w.#\"])\d+(?![\w\"])")
OPERATOR = re.compile(r" (\+|-|\*|/|<=|>=|<|>|==|!=) ")
LIMITS = Limits(max_steps=300_000)


def _mutate(text: str, data) -> str:
    for _ in range(data.draw(st.integers(1, 3))):
        if data.draw(st.booleans()):
            spots = list(NUMBER.finditer(text))
            mo = spots[data.draw(st.integers(0, len(spots) - 1))]
            new = str(data.draw(st.sampled_from([0, 1, 2, 7, 60, 5000, 10 ** 17])))
        else:
            spots = list(OPERATOR.finditer(text))
            mo = spots[data.draw(st.integers(0, len(spots) - 1))]
            new = " " + data.draw(st.sampled_from(["+", "-", "*", "/", "<", ">", "==", "!="])) + " "
        text = text[:mo.start()] + new + text[mo.end():]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SOURCES)), data=st.data(), seed=st.integers(0, 1000))
def test_mutated_rulesets_fail_with_diagnostics_only(name, data, seed):
    text = _mutate(SOURCES[name], data)
    try:
        program = parse_text(text, f"{name}.rules")
    except DiagnosticError:
        return
    if validate_program(program, name) or any(
            d.is_error for d in check_program(program)):
        return
    try:
        rules = compile_rules(program)  # a record's show is read at load
        game = Game(rules, None, seed, LIMITS)
        play_out(game, {s.seat: RandomAgent(seed + s.seat) for s in game.state.seats},
                 max_decisions=400)
    except (DiagnosticError, IllegalDecision):
        pass
    except RuntimeError as e:  # play_out's own cap on decisions: a long game is not a crash
        assert "decisions" in str(e)
