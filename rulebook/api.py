"""The public Python API: load a ruleset, start a game, list options, decide, view, copy, save.

    from rulebook import api
    rules = api.load("examples")                # bundled name, folder or .rules path
    game = api.new_game(rules, players=3, seed=7)
    while not game.over:
        seat = game.pending_seat()
        option_id, label = game.legal_options()[0]
        game.apply(option_id, seat)
    print(api.view(game, 1)["winners"])

Every problem is raised as ``DiagnosticError`` (with ``.diagnostics``); an illegal decision raises
``IllegalDecision`` and leaves the game unchanged.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .interpreter.errors import IllegalDecision
from .interpreter.game import Game, state_data
from .interpreter.rules import Rules, compile_rules
from .interpreter.state import Limits
from .interpreter.view import view
from .validator.diagnostics import Diagnostic, DiagnosticError

__all__ = [
    "load", "new_game", "view", "save", "load_game", "Game", "Rules", "Limits",
    "IllegalDecision", "DiagnosticError", "Diagnostic", "state_data",
]


def load(ref: str) -> Rules:
    """Load a ruleset by bundled name (``GAME`` or ``GAME/VARIANT``), folder or file."""
    from .loader import resolve_ruleset

    path = resolve_ruleset(ref)
    return _load_path(str(Path(path).resolve()))


@lru_cache(maxsize=32)
def _load_path(path: str) -> Rules:
    from .loader import load_ruleset
    from .validator.check import check_path

    result = check_path(path)
    errors = [d for d in result.diagnostics if d.is_error]
    if errors:
        raise DiagnosticError(errors)
    ruleset = load_ruleset(path)
    rules = compile_rules(ruleset.program, ruleset.file_of)
    rules.source_path = path
    return rules


def new_game(rules: Rules, players: int | None = None, seed: int = 0,
             limits: Limits | None = None) -> Game:
    return Game(rules, players, seed, limits, ruleset_ref=getattr(rules, "source_path", None))


def save(game: Game, path: str | Path) -> None:
    Path(path).write_text(json.dumps(game.save(), indent=1), encoding="utf-8")


def load_game(path: str | Path, rules: Rules | None = None) -> Game:
    """Load a save file written by ``save`` (the ruleset is found from the save if not given)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DiagnosticError([Diagnostic("E0314", f"no such save file: {p}", file=str(p))])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DiagnosticError([Diagnostic("E0314", f"cannot read the save file: {e}", file=str(p),
                                          hint="save files are JSON written by `rulebook play`")])
    if rules is None:
        ref = data.get("ruleset") if isinstance(data, dict) else None
        if not isinstance(ref, str):
            raise DiagnosticError([Diagnostic("E0314", "the save does not name its ruleset",
                                              file=str(p), hint="pass the ruleset explicitly")])
        rules = load(ref)
    return Game.load(data, rules)
