"""Rules text for a reader, printed from the AST by the formatter (never cut out of the file):
a declaration, a statement, an expression, a label template or a type as the language writes it.
"""
from __future__ import annotations

import textwrap

from ..grammar import ast as A
from ..grammar.formatter import format_expression, format_program

_INDENT = "    "


def declaration_code(decl) -> str:
    """A declaration in canonical form (without the comments of its file)."""
    program = A.Program.model_construct(kind="program", span=None, header=None,
                                        declarations=[decl], overrides=[], scenarios=[])
    return format_program(program).rstrip("\n")


def statement_code(stmt) -> str:
    """One statement (a phase, a step...) in canonical form: printed inside a block, whose
    first and last lines the formatter always writes alone, then taken out of it."""
    holder = A.SetupDecl.model_construct(kind="setup", span=None, body=[stmt], meta=A.Meta())
    lines = declaration_code(holder).split("\n")
    return textwrap.dedent("\n".join(lines[1:-1])) if len(lines) > 2 else ""


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
