"""W0205: a decision that can only ever offer one option.

A `choose` with one `option` whose values are each fixed to one (no `for`, or `for` over a range
or list of one element) never lets the player choose: the engine makes it for them. `repeat
choose` (which adds `done`), `optional` (which adds `skip`) and `confirm` (asked on purpose) offer
more, or ask on purpose, and are left alone.
"""
from __future__ import annotations

from ..grammar import ast as A
from .diagnostics import Diagnostic, span_fields
from .lint_where import constant

CODE = "W0205"


def single_option_decisions(program: A.Program, nodes: list) -> list[Diagnostic]:
    consts = {d.name: d.value for d in program.declarations if isinstance(d, A.ConstDecl)}
    out = []
    for node in nodes:
        if not isinstance(node, A.Choose) or node.repeat or node.optional or node.confirm:
            continue
        if len(node.options) == 1 and all(_one_value(b.source, consts)
                                          for b in node.options[0].bindings):
            option = node.options[0]
            out.append(Diagnostic(
                CODE, f"this decision can only ever offer option `{option.name}`",
                severity="warning", file=A.file_of(node) or A.file_of(program),
                hint="write the option's block without `choose`, add the options the rule "
                     "allows, or write `confirm` if the player must see the step",
                **span_fields(node.span)))
    return out


def _one_value(source, consts: dict) -> bool:
    """Whether a binding's source certainly holds exactly one value."""
    if isinstance(source, A.ListLit):
        return len(source.items) == 1
    if isinstance(source, A.Binary) and source.op == "..":
        low, high = constant(source.left, consts), constant(source.right, consts)
        return type(low) is int and type(high) is int and low == high
    return False
