"""W0202: an option whose `where` can never hold.

Conservative on purpose: only what is certain from the text is reported. The `where` is split at
its `and`s; each part that compares one expression with a whole number known before the game
starts (a literal, a `const`, arithmetic of those) narrows that expression's possible values, and
an option's `for n in a..b` narrows `n`. The option is reported when some expression is left with
no possible value, or when a part is `false` or compares two known numbers wrongly. Expressions
that may differ between two reads (a draw at random, a `define`, which may draw) are left alone.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from ..grammar import ast as A
from .builtins import BUILTIN_FUNCTIONS, RANDOM_FUNCTIONS
from .diagnostics import Diagnostic, span_fields

CODE = "W0202"
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_COMPARISONS = frozenset(_FLIP)
_CONST_DEPTH = 20  # constants defined by constants: a cycle (an error elsewhere) stops here


def never_holding_options(program: A.Program, nodes: list) -> list[Diagnostic]:
    consts = {d.name: d.value for d in program.declarations if isinstance(d, A.ConstDecl)}
    out = []
    for node in nodes:
        if isinstance(node, A.Option) and node.where is not None:
            reason = _why_never(node, consts)
            if reason:
                out.append(Diagnostic(
                    CODE, f"the `where` of option `{node.name}` can never hold: {reason}",
                    severity="warning", file=A.file_of(node.where) or A.file_of(program),
                    hint="correct the comparison (a `<` written for `>`, a wrong constant), "
                         "or remove the option", **span_fields(node.where.span)))
    return out


# ----------------------------------------------------------------------------- constants
def constant(e, consts: dict, depth: int = 0) -> int | bool | None:
    """The value of an expression known before the game starts (whole numbers, yes/no), or
    None when it is not known."""
    if depth > _CONST_DEPTH or e is None:
        return None
    if isinstance(e, (A.IntLit, A.BoolLit)):
        return e.value
    if isinstance(e, A.Name) and e.id in consts:
        return constant(consts[e.id], consts, depth + 1)
    if isinstance(e, A.Unary):
        v = constant(e.operand, consts, depth + 1)
        if e.op == "-" and type(v) is int:
            return -v
        if e.op == "not" and type(v) is bool:
            return not v
        return None
    if isinstance(e, A.Binary):
        a, b = constant(e.left, consts, depth + 1), constant(e.right, consts, depth + 1)
        if e.op in ("and", "or") and type(a) is bool and type(b) is bool:
            return (a and b) if e.op == "and" else (a or b)
        if type(a) is not int or type(b) is not int:
            return None
        if e.op in _COMPARISONS:
            return _compare(a, e.op, b)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
    return None


def _compare(a: int, op: str, b: int) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


# ------------------------------------------------------------------------- possible values
@dataclass
class _Values:
    """The whole numbers an expression may still have: an interval, minus some numbers."""

    low: float = -math.inf
    high: float = math.inf
    not_equal: set[int] = field(default_factory=set)
    said: list[str] = field(default_factory=list)  # the parts that narrowed it, for the message

    def narrow(self, op: str, n: int, text: str) -> None:
        self.said.append(text)
        if op in ("<", "<="):
            self.high = min(self.high, n - 1 if op == "<" else n)
        elif op in (">", ">="):
            self.low = max(self.low, n + 1 if op == ">" else n)
        elif op == "==":
            self.low, self.high = max(self.low, n), min(self.high, n)
        else:
            self.not_equal.add(n)

    def empty(self) -> bool:
        if self.low > self.high:
            return True
        if self.high - self.low < len(self.not_equal) + 1:  # a few values: all excluded?
            return all(v in self.not_equal for v in range(int(self.low), int(self.high) + 1))
        return False


def _why_never(option: A.Option, consts: dict) -> str | None:
    values: dict[str, _Values] = {}
    names: dict[str, object] = {}  # key -> the name or first term read: its words if reported
    for b in option.bindings:
        source = b.source
        if isinstance(source, A.Binary) and source.op == "..":
            key = _key(A.Name.model_construct(kind="name", id=b.name))
            names[key] = b.name
            low, high = constant(source.left, consts), constant(source.right, consts)
            v = values.setdefault(key, _Values())
            if type(low) is int:
                v.narrow(">=", low, f"at least {low}")
            if type(high) is int:
                v.narrow("<=", high, f"at most {high}")
    for part in _conjuncts(option.where):
        known = constant(part, consts)
        if known is False:
            return f"`{_show(part)}` is always false"
        if not (isinstance(part, A.Binary) and part.op in _COMPARISONS):
            continue
        left, right = constant(part.left, consts), constant(part.right, consts)
        if type(right) is int and type(left) is not int:
            term, op, n = part.left, part.op, right
        elif type(left) is int and type(right) is not int:
            term, op, n = part.right, _FLIP[part.op], left
        else:
            continue
        if not _stable(term):
            continue
        key = _key(term)
        names.setdefault(key, term)
        v = values.setdefault(key, _Values())
        v.narrow(op, n, f"{op} {n}")
        if v.empty():
            shown = names[key]
            return f"`{shown if isinstance(shown, str) else _show(shown)}` cannot be " \
                   f"{_and(v.said)} at once"
    return None


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _conjuncts(e) -> list:
    if isinstance(e, A.Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _stable(term) -> bool:
    """Whether two reads of ``term`` at one moment certainly give the same value."""
    for node in A.walk(term):
        if isinstance(node, A.Call) and (node.func not in BUILTIN_FUNCTIONS
                                         or node.func in RANDOM_FUNCTIONS):
            return False
        if isinstance(node, (A.RandomKey, A.Sort)):
            return False
    return True


def _key(term) -> str:
    """Expressions written alike compare alike: their syntax trees without positions."""
    from .schema import plain_tree

    return json.dumps(plain_tree(term), sort_keys=True)


def _show(term) -> str:
    from ..grammar.formatter import format_expression

    try:
        return format_expression(term)
    except Exception:  # only a message's wording depends on it
        return "the value"
