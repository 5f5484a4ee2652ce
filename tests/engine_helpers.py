"""Build games from inline rules text for engine tests (no files, no loader)."""
from __future__ import annotations

from rulebook.grammar.parser import parse_text
from rulebook.interpreter.game import Game
from rulebook.interpreter.rules import compile_rules
from rulebook.interpreter.state import Limits


def rules_of(text: str):
    return compile_rules(parse_text(text, "<test>"))


def game_of(text: str, players: int | None = None, seed: int = 0, limits: Limits | None = None):
    return Game(rules_of(text), players, seed, limits)


def header(players: str = "2") -> str:
    return f'game "Test" {{\n    players {players}\n}}\n'
