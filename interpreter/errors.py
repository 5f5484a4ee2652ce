"""Runtime problems in rules become diagnostics that name the rule's file, line and column."""
from __future__ import annotations

from ..grammar.ast import file_of
from ..validator.diagnostics import Diagnostic, DiagnosticError, span_fields


class RuleError(Exception):
    """A rule did something impossible (E03xx). Carries the node so the location can be found."""

    def __init__(self, code: str, message: str, node=None, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.node, self.hint = code, message, node, hint


class IllegalDecision(Exception):
    """A decision that is not among the legal options. The state is unchanged."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint

    def diagnostic(self) -> Diagnostic:
        return Diagnostic("E0310", self.message, hint=self.hint)


def to_diagnostic(err: RuleError) -> Diagnostic:
    node = err.node
    file = file_of(node) if node is not None else None
    return Diagnostic(err.code, err.message, file=file, hint=err.hint,
                      **span_fields(getattr(node, "span", None)))


CODES = {
    "E0301": "step budget exhausted (a rule loops too long)",
    "E0302": "call depth exceeded (a define calls itself too deeply)",
    "E0303": "collection too large",
    "E0304": "number too large",
    "E0305": "division or remainder by zero",
    "E0306": "value of the wrong type for this operation",
    "E0307": "index outside a list or grid",
    "E0308": "moved element is not in the source",
    "E0309": "a `require` in the rules failed",
    "E0310": "decision refused: not a legal option now",
    "E0311": "unknown name at run time",
    "E0312": "empty list where a value is needed",
    "E0313": "an invariant of the rules does not hold",
    "E0314": "a save file or log cannot be read",
    "E0315": "the game cannot start with this setup",
    "E0325": "a step of a composed decision that is not finished offers no legal option",
    "E0318": "an automaton's decision that no `prefer` line covers, with `otherwise error`",
    "E0319": "the rules make more code than the engine compiles",
}

__all__ = ["RuleError", "IllegalDecision", "to_diagnostic", "CODES", "DiagnosticError"]
