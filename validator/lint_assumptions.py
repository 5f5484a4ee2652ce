"""W0206: an `assumed` without a reason.

`assumed "reason"` says what the rulebook does not print and why the value was chosen; a blank
reason, or a placeholder word alone (`"TODO"`, `"?"`), tells a designer nothing about what to
replace.
"""
from __future__ import annotations

import re

from ..grammar import ast as A
from .diagnostics import Diagnostic, span_fields

CODE = "W0206"
PLACEHOLDERS = frozenset({"todo", "tbd", "tbc", "fixme", "xxx", "assumed", "assumption",
                          "unknown", "guess", "placeholder"})


def reasonless_assumptions(program: A.Program, nodes: list) -> list[Diagnostic]:
    out = []
    for node in nodes:
        meta = node.__dict__.get("meta")  # getattr of a missing field costs an exception
        if isinstance(meta, A.Meta) and meta.assumed is not None \
                and not gives_reason(meta.assumed):
            out.append(Diagnostic(
                CODE, f"`assumed {_quoted(meta.assumed)}` gives no reason",
                severity="warning", file=A.file_of(node) or A.file_of(program),
                hint="say what the book leaves out and why this value was chosen",
                **span_fields(node.span)))
    return out


def gives_reason(reason: str) -> bool:
    words = re.findall(r"\w+", reason.casefold())
    return bool(words) and not (len(words) == 1 and words[0] in PLACEHOLDERS)


def _quoted(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return '"' + shown.replace("\\", "\\\\").replace('"', '\\"') + '"'
