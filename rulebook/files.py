"""Writing the files rulebook writes (formatted rules, saved games): all or nothing.

A file is written beside its final place and renamed over it once complete, so a full disk, a
crash or a kill never leaves half a file where a good one was.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .validator.diagnostics import Diagnostic, DiagnosticError

CODES = {"E0009": "a file cannot be written"}


def write_atomically(path: str | Path, text: str) -> None:
    """Replace (or create) the regular file `path` with `text`, or raise DiagnosticError."""
    name = str(path)

    def refuse(why: str, hint: str | None = None):
        raise DiagnosticError([Diagnostic("E0009", f"cannot write {_short(name)}: {why}",
                                          file=name, hint=hint)])

    try:
        st = os.stat(name)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as e:
        refuse(getattr(e, "strerror", None) or str(e))
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            refuse("it is not a regular file", "name a file to write, not a device or folder")
        if not os.access(name, os.W_OK):
            refuse("it is read-only", "make it writable, or write somewhere else")
    folder = os.path.dirname(os.path.abspath(name))
    data = text.encode("utf-8")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".rulebook-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, name)
        tmp = None
    except (OSError, ValueError) as e:
        refuse(getattr(e, "strerror", None) or str(e),
               "check that the folder exists, is writable and has space")
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _short(name: str) -> str:
    return name if len(name) <= 160 else name[:80] + "..." + name[-60:]
