"""Writing a reference's pages into a folder."""
from __future__ import annotations

import os
from pathlib import Path

from ..files import write_atomically
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .reference import build_reference
from .render import render_html, render_markdown

FORMATS = ("html", "markdown", "both")


def write_docs(ref: str, out: str | Path, fmt: str = "both", variants=()) -> list[Path]:
    """Write the reference of a ruleset into `out` (created if missing); the paths written."""
    reference = build_reference(ref, variants)
    folder = Path(out)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise DiagnosticError([Diagnostic("E0009", f"cannot create the folder {out}: "
                                          f"{e.strerror or e}", file=str(out),
                                          hint="name a folder that can be written")]) from None
    written = []
    if fmt in ("html", "both"):
        written.append(folder / f"{reference.name}.html")
        write_atomically(written[-1], render_html(reference))
    if fmt in ("markdown", "both"):
        written.append(folder / f"{reference.name}.md")
        write_atomically(written[-1], render_markdown(reference))
    return written
