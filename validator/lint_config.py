"""Lint configuration: which warnings `rulebook check` shows, and the book's sections.

Read from a `rulebook.toml` (keys at the top level) or a `pyproject.toml` with a `[tool.rulebook]`
table, whichever is found first walking up from the checked file's folder (a `pyproject.toml`
without that table is passed over, as ruff does). Keys:

    select = ["W02"]                 # codes or code prefixes of the warnings to show (default all)
    ignore = ["W0201"]               # codes or prefixes never shown
    book-sections = ["Setup", ...]   # the book's section titles, for W0204
    book-sections-file = "book.txt"  # or: a file beside the config, one section title per line

Errors (E codes) cannot be selected away: each one means the engine would refuse or fail on the
file, so they are always shown, and naming one is a configuration error.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError

CONFIG_ERROR = "E0010"
KEYS = ("select", "ignore", "book-sections", "book-sections-file")
MAX_CONFIG_BYTES = 1_000_000


@dataclass(frozen=True)
class LintConfig:
    file: str | None = None  # where it was read; None: the defaults
    select: tuple[str, ...] | None = None  # None: every warning
    ignore: tuple[str, ...] = ()
    sections: tuple[str, ...] | None = None  # None: the book's sections are not listed

    def shows(self, code: str) -> bool:
        if code.startswith("E"):
            return True
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(s) for s in self.ignore)

    def overridden(self, select=None, ignore=None) -> "LintConfig":
        """This configuration with the command line's choices in place of its own."""
        return LintConfig(self.file, tuple(select) if select is not None else self.select,
                          tuple(ignore) if ignore is not None else self.ignore, self.sections)


def check_selectors(selectors, known: set[str], where: str) -> list[str]:
    """Why each of `selectors` (codes or prefixes) cannot be used, in words (empty: all fine)."""
    wrong = []
    for s in selectors:
        if not isinstance(s, str) or not s:
            wrong.append(f"{where}: {s!r} is not a code")
        elif s.upper() != s:
            wrong.append(f"{where}: `{s}`: codes are written in capitals (`{s.upper()}`)")
        elif s.startswith("E"):
            wrong.append(f"{where}: `{s}`: errors cannot be selected or ignored; "
                         "only warnings (W codes) can")
        elif not any(code.startswith(s) for code in known if code.startswith("W")):
            wrong.append(f"{where}: `{s}` is no warning's code nor the start of one")
    return wrong


def find_config_file(start: str) -> Path | None:
    """The nearest `rulebook.toml`, or `pyproject.toml` with `[tool.rulebook]`, from ``start``
    (a file or folder) upwards."""
    # os.path's tests answer False for any name the system refuses (too long, a bad link).
    path = Path(os.path.abspath(start))
    folder = path if os.path.isdir(path) else path.parent
    while True:
        for candidate in (folder / "rulebook.toml", folder / "pyproject.toml"):
            if os.path.isfile(candidate):
                if candidate.name == "rulebook.toml" or _has_tool_table(candidate):
                    return candidate
        if folder.parent == folder:
            return None
        folder = folder.parent


def _has_tool_table(path: Path) -> bool:
    try:
        data = tomllib.loads(_read(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, DiagnosticError):
        return False  # someone else's pyproject.toml: not ours to judge
    return isinstance(data.get("tool"), dict) and "rulebook" in data["tool"]


def _read(path: Path) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise DiagnosticError([_problem(path, "the configuration file is larger than 1 MB")])
    return data.decode("utf-8")


def _problem(path, message: str, line: int | None = None, column: int | None = None):
    return Diagnostic(CONFIG_ERROR, message, file=str(path), line=line, column=column,
                      hint="see docs/lint.md for the keys `rulebook check` reads")


def load_config(path: Path, known: frozenset[str]) -> LintConfig:
    """The configuration in ``path``; raises DiagnosticError (E0010) when it is not usable."""
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as e:
        raise DiagnosticError([_problem(path, f"not valid TOML: {e}",
                                        getattr(e, "lineno", None), getattr(e, "colno", None))])
    except (OSError, UnicodeDecodeError) as e:
        raise DiagnosticError([_problem(path, f"cannot be read: {e}")])
    table = data.get("tool", {}).get("rulebook", {}) if path.name == "pyproject.toml" else data
    if not isinstance(table, dict):
        raise DiagnosticError([_problem(path, "[tool.rulebook] must be a table")])
    wrong = [f"unknown key `{k}` (known: {', '.join(KEYS)})" for k in table if k not in KEYS]
    lists = {}
    for key in ("select", "ignore", "book-sections"):
        value = table.get(key)
        if value is not None and not (isinstance(value, list)
                                      and all(isinstance(v, str) for v in value)):
            wrong.append(f"`{key}` must be a list of strings")
            value = None
        lists[key] = value
    for key in ("select", "ignore"):
        if lists[key] is not None:
            wrong.extend(check_selectors(lists[key], known, f"`{key}`"))
    sections = lists["book-sections"]
    if "book-sections-file" in table:
        name = table["book-sections-file"]
        if not isinstance(name, str):
            wrong.append("`book-sections-file` must be a string")
        else:
            sections = [*(sections or []), *_sections_file(path.parent / name, path.parent, wrong)]
    if wrong:
        raise DiagnosticError([_problem(path, w) for w in wrong])
    return LintConfig(str(path), tuple(lists["select"]) if lists["select"] is not None else None,
                      tuple(lists["ignore"] or ()),
                      tuple(s.strip() for s in sections if s.strip()) if sections is not None
                      else None)


def _sections_file(path: Path, folder: Path, wrong: list[str]) -> list[str]:
    """One section title per line; blank lines and lines starting with `#` are skipped. The file
    must lie in the configuration's folder tree: a checkout's configuration reads nothing else."""
    base = os.path.realpath(folder)
    real = os.path.realpath(path)
    if os.path.commonpath([real, base]) != base or not os.path.isfile(real):
        wrong.append(f"`book-sections-file`: {path.name} is not a file in the configuration's "
                     "folder tree")
        return []
    try:
        text = _read(path)
    except (OSError, UnicodeDecodeError, DiagnosticError) as e:
        wrong.append(f"`book-sections-file`: {path} cannot be read ({e})")
        return []
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
