"""A per-user cache of work that depends only on a file's text: its syntax tree (kept once the
same text is parsed a second time, rulebook/loader.py), and the fact that the tree passed the
JSON Schema; also the parser's tables (grammar/lalr.py, `.tables`). Unchanged files are then not
parsed or validated again, so checking a folder of rules that mostly did not change is quick.

Entries are keyed by a hash of the text and of the code that produced them (grammar, AST classes,
parser, schema), so any change to either makes a new entry. Only successes are stored. The folder is
the user's own (mode 0700); `RULEBOOK_NO_CACHE=1` turns the cache off.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import secrets
import tempfile
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).parent
_CODE = ("rules.lark", "ast.py", "source.py", "parser.py", "lalr.py", "builder.py",
         "syntax_errors.py")


def cache_dir() -> Path | None:
    if os.environ.get("RULEBOOK_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "rulebook"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


@lru_cache(maxsize=1)
def _code_fingerprint() -> bytes:
    h = hashlib.sha256()
    for name in _CODE:
        h.update((_HERE / name).read_bytes())
    schema = _HERE.parent / "validator" / "ast.schema.json"
    if schema.exists():
        h.update(schema.read_bytes())
    return h.digest()


# Taken when the parser is imported, with the code it runs: a process that keeps running while the
# grammar's files are edited must not store its old trees under the new code's key.
_code_fingerprint()


def key_of(text: str, purpose: str) -> str:
    h = hashlib.sha256(_code_fingerprint())
    h.update(purpose.encode())
    h.update(text.encode("utf-8"))
    return h.hexdigest()


def load(key: str, suffix: str = ".pickle"):
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(folder / f"{key}{suffix}", "rb") as f:
            return pickle.load(f)
    except Exception:  # noqa: BLE001 - a missing, partial or stale entry is simply a miss
        return None


def store(key: str, value, suffix: str = ".pickle") -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        target = folder / f"{key}{suffix}"
        if len(data) <= SHARED_MAX_BYTES and _linked(folder, data, target):
            return
        _write(folder, data, target)
    except Exception:  # noqa: BLE001 - a cache that cannot be written only costs speed
        pass


# Small values repeat (a text parsed once, a file whose cites are all fine): each is written
# once, in a file named by its hash, and the entries holding it are hard links to that file.
# Making a file costs the filesystem far more than a link; a cold check of rulesets/ made 209.
SHARED_MAX_BYTES = 128


def _write(folder: Path, data: bytes, target: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, target)  # atomic: readers never see half an entry


def _linked(folder: Path, data: bytes, target: Path) -> bool:
    """Make `target` a link to the shared file of `data` (False: the filesystem would not)."""
    shared = folder / f"shared-{hashlib.sha256(data).hexdigest()[:32]}.value"
    try:
        if not shared.is_file():
            _write(folder, data, shared)
        try:
            os.link(shared, target)
        except FileExistsError:  # an entry to replace (unless it is this value already)
            if not os.path.samefile(shared, target):
                beside = folder / f"{secrets.token_hex(8)}.tmp"
                os.link(shared, beside)
                os.replace(beside, target)
        return True
    except OSError:  # no hard links here, or too many to one file
        return False
