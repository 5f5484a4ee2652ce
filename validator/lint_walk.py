"""Every node of a syntax tree, listed once for all the lint rules.

`grammar.ast.walk` asks pydantic for each node's fields; this asks once per class, and reads the
values from the node's dict: the lint rules' walks cost about a third as much.
"""
from __future__ import annotations

from ..grammar import ast as A

_FIELDS: dict[type, tuple[str, ...]] = {}


def all_nodes(root) -> list:
    out = []
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(x)
            continue
        if not isinstance(x, A.Node):
            continue
        out.append(x)
        cls = type(x)
        fields = _FIELDS.get(cls)
        if fields is None:
            fields = _FIELDS[cls] = tuple(f for f in cls.model_fields if f not in ("span", "kind"))
        values = x.__dict__
        for name in fields:
            value = values[name]
            if isinstance(value, (A.Node, list)):
                stack.append(value)
    return out


def nodes_by_root(program: A.Program) -> tuple[list, list[tuple[object, list]]]:
    """Every node of ``program``, and the nodes of each top-level item (the header, each
    declaration, override and scenario), from one walk."""
    roots = [program.header, *program.declarations, *program.overrides, *program.scenarios]
    by_root = [(root, all_nodes(root)) for root in roots if root is not None]
    return [program, *(n for _, nodes in by_root for n in nodes)], by_root
