"""Rules text for a reader, printed from the AST by the formatter (never cut out of the file):
a declaration, a statement, an expression, a label template or a type as the language writes it.
"""
from __future__ import annotations

import textwrap
from collections import OrderedDict

from ..grammar import ast as A
from ..grammar.formatter import format_expression, format_program

# Parsed nodes are shared between loads of a game and of its variants (rulebook/loader.py), so
# what was printed once is kept, by node; an entry holds its node, so the id is not reused while
# the entry lives.
_PRINTED: OrderedDict[int, tuple[object, str]] = OrderedDict()
_PRINTED_MAX = 4096


def _printed(node, print_it) -> str:
    hit = _PRINTED.get(id(node))
    if hit is not None and hit[0] is node:
        _PRINTED.move_to_end(id(node))
        return hit[1]
    code = print_it(node)
    _PRINTED[id(node)] = (node, code)
    if len(_PRINTED) > _PRINTED_MAX:
        _PRINTED.popitem(last=False)
    return code


def _format_one(decl) -> str:
    program = A.Program.model_construct(kind="program", span=None, header=None,
                                        declarations=[decl], overrides=[], scenarios=[])
    return format_program(program).rstrip("\n")


def declaration_code(decl) -> str:
    """A declaration in canonical form (without the comments of its file)."""
    return _printed(decl, _format_one)


def statement_code(stmt) -> str:
    """One statement (a phase, a step...) in canonical form: printed inside a block, whose
    first and last lines the formatter always writes alone, then taken out of it."""
    def print_it(node) -> str:
        holder = A.SetupDecl.model_construct(kind="setup", span=None, body=[node],
                                             meta=A.Meta())
        lines = _format_one(holder).split("\n")
        return textwrap.dedent("\n".join(lines[1:-1])) if len(lines) > 2 else ""
    return _printed(stmt, print_it)


def expression(expr) -> str:
    return "" if expr is None else format_expression(expr)


def template(tmpl) -> str:
    """A label or prompt template as written, holes and all, without its quotes."""
    if tmpl is None:
        return ""
    return format_expression(tmpl)[1:-1]


def binding(b) -> str:
    return f"{b.name} in {expression(b.source)}"


def sort_keys(keys) -> list[tuple[str, str]]:
    """(key, order) of each sort key: `random` orders at random."""
    return [("random", "at random") if key.kind == "random_key" else
            (expression(key.expr), "highest first" if key.descending else "lowest first")
            for key in keys]


def type_text(t) -> str:
    if t.kind == "named_type":
        return t.name
    if t.kind == "optional_type":
        return t.name + "?"
    if t.kind in ("list_type", "deck_type"):
        return f"{t.kind.removesuffix('_type')} of {type_text(t.element)}"
    if t.kind == "grid_type":
        return (f"grid {expression(t.rows)} by {expression(t.columns)} of "
                f"{type_text(t.element)}")
    return f"map of {type_text(t.key)} to {type_text(t.value)}"
