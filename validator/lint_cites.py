"""W0204: a `cite` that names no section of the ruleset's book.

Runs only where the configuration lists the book's sections (`book-sections` or
`book-sections-file`, validator/lint_config.py). A cite names a section when it is the section's
title, or starts with it and goes on with something other than a letter or digit ("Setup, 3",
"Setup 3" and "Setup: bidding" all name "Setup"); case and runs of spaces do not matter.
"""
from __future__ import annotations

import difflib
import re

from ..grammar import ast as A
from .diagnostics import Diagnostic, span_fields
from .lint_walk import nodes_by_root

CODE = "W0204"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def names_a_section(cite: str, sections: list[str]) -> bool:
    """Whether ``cite`` names one of ``sections`` (normalised titles): it is the title, or
    starts with it ("Set Up step 5" names "Set Up")."""
    c = _norm(cite)
    for s in sections:
        if c == s or (c.startswith(s) and s and not c[len(s)].isalnum()):
            return True
    return False


def cites_section(cite: str, title: str) -> bool:
    """Whether ``cite`` names the book's section ``title`` (as the configuration lists it)."""
    return names_a_section(cite, [_norm(title)])


def unlisted_cites(program: A.Program, sections, file: str, text: str = "") -> list[Diagnostic]:
    """Every cite of ``program`` (one file, not merged, read from ``text``) that names none of
    ``sections``."""
    lines = text.split("\n")  # the parser counts lines by "\n" alone
    normal = [_norm(s) for s in sections]
    by_norm = {_norm(s): s for s in sections}
    out = []
    for node in nodes_by_root(program)[0]:
        meta = node.__dict__.get("meta")  # (getattr asks pydantic for a node without one)
        if not isinstance(meta, A.Meta):
            continue
        for cite in meta.cite:
            if names_a_section(cite, normal):
                continue
            close = difflib.get_close_matches(_norm(cite), normal, n=1, cutoff=0.6)
            hint = (f"did you mean \"{by_norm[close[0]]}\"?" if close else
                    "cite a section title as the book prints it (see `book-sections` in the "
                    "configuration)")
            out.append(Diagnostic(CODE, f"cite \"{cite}\" names no section of the book",
                                  severity="warning", file=A.file_of(node) or file, hint=hint,
                                  **_where(node, cite, lines)))
    return out


def _where(node, cite: str, lines: list[str]) -> dict:
    """The `cite "..."` itself when it can be found in the node's lines, else the node."""
    span = node.span
    if span is None:
        return {}
    pattern = re.compile(r'\bcite\s+"' + re.escape(cite[:40]))
    for number in range(span.line, min(span.end_line, len(lines)) + 1):
        mo = pattern.search(lines[number - 1])
        if mo:
            return {"line": number, "column": mo.start() + 1, "end_line": number,
                    "end_column": mo.start() + 1 + len("cite ") + len(cite) + 2}
    return span_fields(span)
