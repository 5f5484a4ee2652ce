"""Reading rules text safely: size, binary and encoding checks, bracket nesting, comments.

These run before the parser, so that no input can make it (or a recursive walk) fail badly.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..validator.diagnostics import Diagnostic, DiagnosticError

MAX_FILE_BYTES = 1_000_000
MAX_NESTING = 64
MAX_STATEMENT_TOKENS = 20_000  # words and symbols in one statement, declaration or table row


class StatementTooLong(Exception):
    """Raised by the parser at the token past MAX_STATEMENT_TOKENS."""

    def __init__(self, tok):
        self.tok = tok


def path_kind(path: str | Path) -> str | None:
    """"file", "folder" or "other" (a device, a pipe, ...) for what `path` names, or None when
    nothing can be found there (missing, unreadable, a name too long). Never raises."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    return "other"


def read_regular(path: str | Path, limit: int) -> bytes:
    """At most `limit + 1` bytes of a regular file, or DiagnosticError saying why not.

    The file is opened without blocking and checked once open, so a pipe, a device or a folder
    put in a file's place is refused rather than read (or waited on) forever."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise DiagnosticError([Diagnostic("E0001", f"no such file: {_short(name)}", file=name,
                                          hint="check the path, or list files with `ls`")])
    except IsADirectoryError:
        raise _folder(name)
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or str(e)
        raise DiagnosticError([Diagnostic("E0003", f"cannot read {_short(name)}: {why}",
                                          file=name, hint="name a `.rules` text file")])
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _folder(name)
        if not stat.S_ISREG(mode):
            raise DiagnosticError([Diagnostic("E0003", f"{_short(name)} is not a regular file",
                                              file=name, hint="name a `.rules` text file")])
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise DiagnosticError([Diagnostic("E0003", f"cannot read {_short(name)}: {e.strerror}",
                                          file=name)])
    finally:
        os.close(fd)


def _folder(name: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic("E0002", f"{_short(name)} is a folder, not a rules file",
                                       file=name, hint="name a `.rules` file inside it")])


def _short(name: str) -> str:
    """A path as messages show it: very long names are cut in the middle."""
    return name if len(name) <= 160 else name[:80] + "..." + name[-60:]


def read_source(path: str | Path) -> str:
    """Read a rules file as text, or raise DiagnosticError saying why it cannot be read."""
    return decode_source(read_regular(path, MAX_FILE_BYTES), str(path))


def decode_source(data: bytes, name: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise DiagnosticError([Diagnostic(
            "E0004", f"file is larger than the limit of {MAX_FILE_BYTES:,} bytes", file=name,
            line=1, column=1, hint="split the ruleset into a game file and variant files")])
    if b"\x00" in data:
        raise DiagnosticError([Diagnostic("E0005", "this is a binary file, not rules text",
                                          file=name, line=1, column=1,
                                          hint="rules files are plain UTF-8 text")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise DiagnosticError([Diagnostic(
            "E0006", f"byte 0x{data[e.start]:02x} is not valid UTF-8", file=name, line=line,
            column=col, hint="save the file as UTF-8")])
    return text.removeprefix("\ufeff")


# A string, whose `{holes}` may hold strings of their own (as rules.lark's STRING), or a comment.
STRING_PATTERN = r'"(\\.|[^"\\\n{]|\{([^"{}\n\\]|\\(u\{[0-9a-fA-F]*\}|.)|"(\\.|[^"\\\n])*")*(\}|(?=")))*"'
_STRING_OR_COMMENT = re.compile(STRING_PATTERN + r'|#[^\n]*')


def _check_nesting(text: str, name: str) -> None:
    """Refuse absurd nesting before the parser or any recursive walk can trip over it."""
    depth = 0
    for mo in _BRACKET_OUTSIDE_STRINGS.finditer(text):  # strings and comments are matched whole
        ch = mo.group()
        if ch == "(" or ch == "[" or ch == "{":
            depth += 1
            if depth > MAX_NESTING:
                at = mo.start()
                raise DiagnosticError([Diagnostic(
                    "E0007", f"brackets are nested more than {MAX_NESTING} deep", file=name,
                    line=text.count("\n", 0, at) + 1, column=at - text.rfind("\n", 0, at),
                    hint="split the expression with `let` or a `define`")])
        elif ch == ")" or ch == "]" or ch == "}":
            depth = max(0, depth - 1)


_BRACKET_OUTSIDE_STRINGS = re.compile(STRING_PATTERN + r"|#[^\n]*|[(\[{)\]}]")


def comments_of(text: str) -> list[tuple[int, int, str]]:
    """(line, column, text) of every comment, for the formatter."""
    out = []
    for mo in _STRING_OR_COMMENT.finditer(text):
        s = mo.group(0)
        if s.startswith("#"):
            line = text.count("\n", 0, mo.start()) + 1
            col = mo.start() - (text.rfind("\n", 0, mo.start()) + 1) + 1
            out.append((line, col, s))
    return out
