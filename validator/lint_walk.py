"""Every node of a syntax tree, listed once for all the lint rules.

While `remembering_walks` is in force (`rulebook check` of many files), the nodes of each
top-level item are listed once for the whole check: a variant's merged program shares most of
its declarations with its game, and the cites of a file are looked for in the nodes its lint
listed. Parsed trees are never changed (rulebook/loader.py copies what a patch touches), so an
item's nodes stay what they were; the lists are shared, and never changed either.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..grammar import ast as A

_WALKS: ContextVar[dict | None] = ContextVar("lint_walks", default=None)


def all_nodes(root) -> list:
    from ..grammar.ast import walk  # here: a warm check (remembering_walks only) needs no AST

    return list(walk(root))


def nodes_by_root(program: A.Program) -> tuple[list, list[tuple[object, list]]]:
    """Every node of ``program``, and the nodes of each top-level item (the header, each
    declaration, override and scenario), from one walk."""
    roots = [program.header, *program.declarations, *program.overrides, *program.scenarios]
    walks = _WALKS.get()
    if walks is None:
        by_root = [(root, all_nodes(root)) for root in roots if root is not None]
    else:
        by_root = []
        for root in roots:
            if root is not None:
                known = walks.get(id(root))
                if known is None:  # (the item is kept with its nodes: its id stays its own)
                    known = walks[id(root)] = (root, all_nodes(root))
                by_root.append(known)
    return [program, *(n for _, nodes in by_root for n in nodes)], by_root


@contextmanager
def remembering_walks():
    token = _WALKS.set({})
    try:
        yield
    finally:
        _WALKS.reset(token)
