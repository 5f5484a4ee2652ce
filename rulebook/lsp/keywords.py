"""The keywords of the language, read from the grammar itself (grammar/rules.lark), so that
completion and the VS Code highlighting grammar (editors/vscode) never fall behind it."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

# `"word"` literals, and the words of keyword terminals such as /(public|owner|secret)(?!\w)/
# or /per[ \t]+player(?!\w)/.
_LITERAL = re.compile(r'"([a-z_]+)"')
_TERMINAL = re.compile(r"^[A-Z_]+(?:\.\d+)?:\s*/(.*)/\s*$", re.M)


def grammar_text() -> str:
    from ..grammar import parser

    return (Path(parser.__file__).parent / "rules.lark").read_text(encoding="utf-8")


def keywords_of(grammar: str) -> tuple[str, ...]:
    """Every word the grammar spells out, sorted."""
    words = set(_LITERAL.findall(grammar))
    for pattern in _TERMINAL.findall(grammar):
        if "(?!\\w)" not in pattern:
            continue  # NAME, INT, STRING...: not keywords
        words.update(w for w in re.findall(r"[a-z_]+", pattern.replace("(?!\\w)", ""))
                     if w not in ("t",))  # the `t` of `[ \t]`
    return tuple(sorted(words))


@lru_cache(maxsize=1)
def _keywords() -> tuple[str, ...]:
    return keywords_of(grammar_text())


KEYWORDS = _keywords()
