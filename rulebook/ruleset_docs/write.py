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
    pages = []
    if fmt in ("html", "both"):
        pages.append((folder / f"{reference.name}.html", render_html(reference)))
    if fmt in ("markdown", "both"):
        pages.append((folder / f"{reference.name}.md", render_markdown(reference)))
    for path, text in pages:
        new = not path.exists()
        write_atomically(path, text)
        if new:  # a page is for anyone to read (a new temporary file is private)
            _readable(path)
    return [path for path, _ in pages]


def _readable(path: Path) -> None:
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.chmod(path, 0o666 & ~mask)
    except OSError:
        pass
