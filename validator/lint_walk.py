"""Every node of a syntax tree, listed once for all the lint rules."""
from __future__ import annotations

from ..grammar import ast as A


def all_nodes(root) -> list:
    return list(A.walk(root))


def nodes_by_root(program: A.Program) -> tuple[list, list[tuple[object, list]]]:
    """Every node of ``program``, and the nodes of each top-level item (the header, each
    declaration, override and scenario), from one walk."""
    roots = [program.header, *program.declarations, *program.overrides, *program.scenarios]
    by_root = [(root, all_nodes(root)) for root in roots if root is not None]
    return [program, *(n for _, nodes in by_root for n in nodes)], by_root
