"""What `rulebook check` found in a file, remembered until the file, a file its check read, or
rulebook itself changes, so that checking a folder of mostly unchanged rules (in CI, in a
pre-commit hook, in an editor) costs a read and a hash per file instead of a parse.

An entry is keyed by the file's path and text and by a fingerprint of rulebook's code. It holds the
diagnostics and, for every file the check read (the game a variant extends, the ruleset a scenario
file tests), its path, a hash of its text and the `.rules` files beside it (a new file in a ruleset
folder can change which file is its game). The entry is used only when all of these are still the
same. A check that found an error is not remembered: errors are often about files that are missing,
and a missing file leaves nothing to compare. Entries live in the parse cache's folder
(`grammar/cache.py`); `RULEBOOK_NO_CACHE=1` turns both off.
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from ..grammar import cache
from ..grammar.source import decode_source, read_regular
from .diagnostics import Diagnostic, DiagnosticError

_FORMAT = 1
_PACKAGES = ("grammar", "validator", "interpreter", "rulebook")


@lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A hash of every source file of rulebook: any change to the checker makes new entries."""
    import importlib

    h = hashlib.sha256(f"check-results {_FORMAT}".encode())
    for package in _PACKAGES:
        name = "rulebook" if package == "rulebook" else f"rulebook.{package}"
        folder = Path(importlib.import_module(name).__file__).parent
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".lark", ".json") and path.is_file():
                h.update(str(path.relative_to(folder)).encode())
                h.update(path.read_bytes())
    return h.digest()


def _text_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _neighbours(path: str) -> tuple[str, ...]:
    try:
        folder = os.path.dirname(os.path.abspath(path))
        return tuple(sorted(n for n in os.listdir(folder) if n.endswith(".rules")))
    except OSError:
        return ()


def _key(file: str, data: bytes) -> str:
    h = hashlib.sha256(code_fingerprint())
    h.update(os.path.abspath(file).encode("utf-8", "surrogateescape"))
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()


def _read(path: str) -> bytes | None:
    from ..grammar.source import MAX_FILE_BYTES

    try:
        return read_regular(path, MAX_FILE_BYTES)
    except (DiagnosticError, OSError):
        return None


def lookup(file: str) -> tuple[list[Diagnostic], dict[str, str]] | None:
    """(diagnostics, sources) remembered for `file`, if nothing it depends on changed."""
    if cache.cache_dir() is None:
        return None
    data = _read(file)
    if data is None:
        return None
    entry = cache.load(_key(file, data))
    if not isinstance(entry, dict) or entry.get("format") != _FORMAT:
        return None
    sources: dict[str, str] = {}
    for path, digest, neighbours in entry["depends"]:
        dep = data if path == file else _read(path)
        if dep is None or _text_hash(dep) != digest or _neighbours(path) != neighbours:
            return None
        try:
            sources[path] = decode_source(dep, path)
        except DiagnosticError:
            return None
    return list(entry["diagnostics"]), sources


def remember(file: str, diagnostics: list[Diagnostic], sources: dict[str, str]) -> None:
    """Keep a check's findings, unless they include an error (see the module's note)."""
    if cache.cache_dir() is None or any(d.is_error for d in diagnostics):
        return
    data = _read(file)
    if data is None or file not in sources:
        return
    depends = []
    for path in sorted(sources):
        dep = data if path == file else _read(path)
        try:
            same = dep is not None and decode_source(dep, path) == sources[path]
        except DiagnosticError:
            same = False
        if not same:
            return  # changed while it was being checked: remember nothing
        depends.append((path, _text_hash(dep), _neighbours(path)))
    cache.store(_key(file, data), {"format": _FORMAT, "depends": depends,
                                   "diagnostics": list(diagnostics)})


def remembered(kind: str, file: str, extra: str, compute) -> list[Diagnostic]:
    """`compute()`, the diagnostics of one more look at `file` that depends on its text and on
    `extra` alone (the lint's cites against the book's sections), remembered like a check."""
    data = _read(file) if cache.cache_dir() is not None else None
    if data is None:
        return compute()
    key = _key(file, b"\0".join([data, kind.encode(), extra.encode("utf-8", "surrogateescape")]))
    entry = cache.load(key)
    if isinstance(entry, dict) and entry.get("format") == _FORMAT and entry.get("kind") == kind:
        return list(entry["diagnostics"])
    found = compute()
    cache.store(key, {"format": _FORMAT, "kind": kind, "diagnostics": list(found)})
    return found
