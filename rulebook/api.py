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

import dataclasses
import json
import os
from collections.abc import Sequence
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
    "action_space", "action_ids", "apply_action", "returns", "max_game_length",
    "determinize", "make_agent", "play_out",
]


def load(ref: str, variants: Sequence[str] = ()) -> Rules:
    """Load a ruleset by bundled name (``GAME`` or ``GAME/VARIANT``), folder or file, with the
    chosen `variants` of the same game (names such as ``"open_market"``, or paths) on top."""
    from .loader import resolve_ruleset

    path = resolve_ruleset(ref)
    return _load_path(str(Path(path).resolve()), tuple(variants))


_LOADED: dict[tuple, tuple[list, Rules]] = {}


def _load_path(path: str, variants: tuple[str, ...] = ()) -> Rules:
    """The rules of a file, compiled once for as long as none of the files it is made of change."""
    from .loader import file_stamps

    key = (path, tuple(variants))
    hit = _LOADED.get(key)
    if hit is not None and hit[0] == file_stamps(hit[1].chain):
        return hit[1]
    rules = _compile_path(path, tuple(variants))
    if len(_LOADED) >= 32:
        _LOADED.pop(next(iter(_LOADED)))
    _LOADED[key] = (file_stamps(rules.chain), rules)
    return rules


def _compile_path(path: str, variants: tuple[str, ...] = ()) -> Rules:
    from .loader import load_ruleset
    from .validator.check import check_path
    from .validator.semantic import check_program

    result = check_path(path)
    errors = [d for d in result.diagnostics if d.is_error]
    if errors:
        raise DiagnosticError(errors, result.sources)
    ruleset = load_ruleset(path, variants)
    if variants:  # each file passed its own check; the combination is checked as a whole
        errors = [d for d in check_program(ruleset.program) if d.is_error]
        if errors:
            raise DiagnosticError(errors, ruleset.files)
    rules = compile_rules(ruleset.program)
    rules.source_path = path
    rules.sources = dict(ruleset.files)
    rules.chain = list(ruleset.chain)
    rules.variants = list(ruleset.variants)
    return rules


def new_game(rules: Rules, players: int | None = None, seed: int = 0,
             limits: Limits | None = None) -> Game:
    """A game of `rules` started from `seed`, run up to its first decision."""
    return Game(rules, players, seed, limits, ruleset_ref=getattr(rules, "source_path", None))


MAX_SAVE_BYTES = 64 * 2 ** 20


def save(game: Game, path: str | Path) -> None:
    """Write a save file, atomically (a failed write leaves any earlier file as it was).

    The save names its ruleset by bundled name, or by a path relative to the save when the rules
    sit in the save's folder tree; otherwise it names none and is loaded with the rules given."""
    from .files import write_atomically

    data = game.save()
    data["ruleset"] = _reference_from(path, game.ruleset_ref)
    data["variants"] = list(game.rules.variants)
    write_atomically(path, json.dumps(data, indent=1, ensure_ascii=False))


def _reference_from(save_path: str | Path, rules_path: str | None) -> str | None:
    from .loader import bundled_roots, is_inside

    if not rules_path:
        return None
    for root in bundled_roots():
        if is_inside(rules_path, root):
            return Path(os.path.relpath(os.path.realpath(rules_path), os.path.realpath(root))
                        ).with_suffix("").as_posix()
    folder = os.path.dirname(os.path.abspath(save_path))
    if is_inside(rules_path, folder):
        return Path(os.path.relpath(os.path.realpath(rules_path), os.path.realpath(folder))
                    ).as_posix()
    return None


def load_game(path: str | Path, rules: Rules | None = None,
              accept_changed_rules: bool = False, limits: Limits | None = None) -> Game:
    """Load a save file written by ``save``. Without `rules`, the ruleset the save names is used:
    a bundled name, or a `.rules` file in the save's own folder tree (never anywhere else)."""
    from .grammar.source import read_regular

    name = str(path)
    try:
        raw = read_regular(path, MAX_SAVE_BYTES)
    except DiagnosticError as e:
        d = e.diagnostics[0]
        raise DiagnosticError([Diagnostic("E0314", f"cannot read the save file: {d.message}",
                                          file=name, hint=d.hint)])
    if len(raw) > MAX_SAVE_BYTES:
        raise DiagnosticError([Diagnostic("E0314", "the save file is larger than "
                                          f"{MAX_SAVE_BYTES // 2 ** 20} MiB", file=name)])
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        why = "it is nested too deeply" if isinstance(e, RecursionError) else str(e)[:200]
        raise DiagnosticError([Diagnostic("E0314", f"cannot read the save file: {why}", file=name,
                                          hint="save files are JSON written by `rulebook play`")])
    if rules is None:
        rules = load(_saved_ruleset(data, name), _saved_variants(data, name))
    try:
        game = Game.load(data, rules, limits, accept_changed_rules)
    except DiagnosticError as e:  # a refusal of the save is about the save file
        raise DiagnosticError([d if d.file else dataclasses.replace(d, file=name)
                               for d in e.diagnostics], e.sources) from None
    game.ruleset_ref = rules.source_path
    return game


def _saved_variants(data, save_name: str) -> list[str]:
    """The variants a save was played with: names of variant files beside its game."""
    from .loader import BUNDLED_NAME

    names = data.get("variants", []) if isinstance(data, dict) else []
    if not isinstance(names, list) or not all(
            isinstance(n, str) and BUNDLED_NAME.match(n) and "/" not in n for n in names) \
            or len(names) > 32:
        raise DiagnosticError([Diagnostic("E0314", "the save's variants are not names of "
                                          "variants", file=save_name)])
    return names


def _saved_ruleset(data, save_name: str) -> str:
    """The ruleset a save names, if it is one a save may name."""
    from .loader import BUNDLED_NAME, bundled_file, named_in_tree

    ref = data.get("ruleset") if isinstance(data, dict) else None
    if not isinstance(ref, str) or not ref:
        raise DiagnosticError([Diagnostic("E0314", "the save does not name its ruleset",
                                          file=save_name, hint="pass the ruleset explicitly")])
    if BUNDLED_NAME.match(ref) and bundled_file(ref) is not None:
        return ref
    try:
        return named_in_tree(save_name, ref, None, "the save",
                             root=os.path.dirname(os.path.realpath(save_name)))
    except DiagnosticError as e:
        raise DiagnosticError([Diagnostic(
            "E0314", f"the save names a ruleset it may not use: {e.diagnostics[0].message}",
            file=save_name, hint="saves name a bundled ruleset or a `.rules` file beside them; "
            "pass the ruleset explicitly")])


# ------------------------------------------------------------------ actions, agents, chance
_SPACES: dict[tuple, tuple[Rules, object]] = {}


def _kept(kind, rules: Rules, players: int, make):
    """What `make()` builds for a ruleset and player count, kept for the last 16 asked."""
    key = (kind, id(rules), players)
    hit = _SPACES.get(key)
    if hit is None or hit[0] is not rules:
        if len(_SPACES) >= 16:
            _SPACES.pop(next(iter(_SPACES)))
        hit = _SPACES[key] = (rules, make())
    return hit[1]


def action_space(rules: Rules, players: int):
    """The stable action space of a ruleset for a player count (docs/agents.md): `.size`
    integers, `.describe(action)`, `.action_of(option_id)`, `.capped` (the bindings whose
    domain is a cap, not a bound)."""
    from .interpreter.actions import ActionSpace

    return _kept("actions", rules, players, lambda: ActionSpace(rules, players))


def encoding(rules: Rules, players: int):
    """A seat's view as numbers (docs/agents.md, "Tensors"): `.size`, `.shapes` (each piece's
    name and shape), `.encode(game, seat)` (a float32 vector; seat None: a spectator)."""
    from .interpreter.encoding import Encoding

    return _kept("encoding", rules, players, lambda: Encoding(rules, players))


def action_ids(game: Game) -> list[int]:
    """The legal actions of the pending decision as integers of `action_space` (sorted)."""
    return list(action_space(game.rules, game.players).legal(game))


def apply_action(game: Game, action: int) -> None:
    """Make the pending decision by its integer; an illegal one raises IllegalDecision."""
    legal = action_space(game.rules, game.players).legal(game)
    if action not in legal:
        raise IllegalDecision(f"action {action} is not legal now",
                              hint="legal actions: " + ", ".join(map(str, list(legal)[:12])))
    game.apply(legal[action])


def returns(game: Game) -> dict[int, float]:
    """Each seat's share of the win once over (1/k to each of k winners, 0 to the others)."""
    from .interpreter.search import returns as shares

    return shares(game)


def max_game_length(limits: Limits | None = None) -> int:
    """The most decisions a game can last under `limits` (each decision costs
    `decision_steps` of `max_steps`; a longer game ends with E0301)."""
    from .interpreter.actions import max_game_length as longest

    return longest(limits or Limits())


def determinize(game: Game, seat: int | None, seed: int = 0) -> Game:
    """A copy of `game` in which what `seat` cannot see is dealt anew, consistently with what it
    sees, and future random draws are new ones (docs/agents.md)."""
    from .interpreter.chance import determinize as deal
    from .interpreter.rng import Rng

    return deal(game, seat, Rng(seed))


def make_agent(kind: str, seed: int = 0, iterations: int | None = None,
               seconds: float | None = None):
    """`random`, `first`, `greedy`, `mcts` or `ismcts` (`ismcts:400`: 400 iterations)."""
    from .interpreter.agents import make_agent as make

    return make(kind, seed, iterations, seconds)


def play_out(game: Game, agents: dict) -> int:
    """Play `game` to its end with one agent per seat; returns the decisions made."""
    from .interpreter.agents import play_out as drive

    return drive(game, agents).decisions
