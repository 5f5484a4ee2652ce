"""Shared by the parser tests (no tests here): where a node was written, as a plain tuple."""
from __future__ import annotations


def span(node) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) of an AST node; the end is exclusive."""
    s = node.span
    return (s.line, s.column, s.end_line, s.end_column)
