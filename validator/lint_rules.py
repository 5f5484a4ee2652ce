"""The lint rules run on a whole (merged) program by `rulebook check`, after the semantic checks.

Each rule is one module (`lint_*.py`) with its code, documented with a wrong and a right example
in docs/diagnostics.md and tested in tests/test_lint_rules.py. They report warnings only, and only
what is certainly a mistake; `--select`, `--ignore`, configuration and `# rulebook: ignore[...]`
choose which are shown (validator/lint.py). The rule that needs configuration (W0204, cites of
listed book sections) runs after the check, in validator/lint.py.
"""
from __future__ import annotations

from ..grammar import ast as A
from .diagnostics import Diagnostic
from .lint_assumptions import reasonless_assumptions
from .lint_decisions import single_option_decisions
from .lint_reach import unreached
from .lint_walk import nodes_by_root
from .lint_where import never_holding_options

CODES = {
    "W0202": "an option whose `where` can never hold",
    "W0203": "a procedure or step that is never reached",
    "W0205": "a decision that can only ever offer one option",
    "W0206": "an assumption without a reason",
}

RULES = (never_holding_options, single_option_decisions, reasonless_assumptions)


def lint_program(program: A.Program) -> list[Diagnostic]:
    nodes, by_root = nodes_by_root(program)  # walked once for all the rules
    out: list[Diagnostic] = []
    for rule in RULES:
        out.extend(rule(program, nodes))
    out.extend(unreached(program, nodes, by_root))
    return out
