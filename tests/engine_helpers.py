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


def games_either_way(ruleset: str, monkeypatch, module, flag: str, seeds: int = 2) -> list:
    """The records of a bundled game's first `seeds` random games with `module.flag` on, then
    off (what a way of writing the generated code must leave as it is)."""
    from rulebook import api
    from rulebook.interpreter.rules import compile_rules
    from rulebook.interpreter.simulate import play_one

    program = api.load(ruleset).program
    records = []
    for on in (True, False):
        monkeypatch.setattr(module, flag, on)
        rules = compile_rules(program)
        records.append([play_one(rules, None, i, i, "random") for i in range(seeds)])
    return records
