"""The games a server runs: each with its seats' secret links, its bots and its save.

A table's tokens and saves stay on the server (a save holds the seed, which reveals every hidden
card): the state folder is created readable by its owner only, and nothing in it is ever served.
Every decision is saved before anyone is told of it, so a server stopped at any moment resumes
(`rulebook serve --resume DIR`) with the same links where the game stood.
"""
from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from .. import api
from ..files import write_atomically
from ..interpreter.agents import make_agent
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .present import present

INDEX = "tables.json"


class Refused(Exception):
    """A decision the server does not make; its message names nothing hidden."""


@dataclass
class Table:
    id: str
    ruleset: str          # the rules file, as resolved when the table was made
    variants: list[str]
    game: api.Game
    kinds: dict[int, str]  # seat -> "human", "random" or "first"
    tokens: dict[str, int | None]  # secret -> seat (None: a spectator; 0: the hot seat)
    save_path: Path
    version: int = 0       # decisions made here; a page that is behind is refused
    agents: dict = field(default_factory=dict)

    def __post_init__(self):
        for seat, kind in self.kinds.items():
            if kind != "human":
                self.agents[seat] = make_agent(kind, secrets.randbits(31))

    def page(self, seat: int | None) -> dict:
        if seat == 0:  # the hot seat: whoever decides now (the public view once it is over)
            page = present(api.view(self.game, self.game.pending_seat()), self.kinds,
                           self.version)
            return {**page, "hot_seat": True}
        return present(api.view(self.game, seat), self.kinds, self.version)

    def link(self, seat: int | None) -> str:
        return next(t for t, s in self.tokens.items() if s == seat)

    def bot_to_move(self) -> bool:
        # (no decision waits once the game is over, or stopped by a broken rule)
        return self.game.pending is not None and self.kinds[self.game.pending_seat()] != "human"

    def decide(self, seat: int, option: object, version: object) -> None:
        """A person's decision (the caller saves the game): checked against their seat, the
        page they decided on and their options; refused with a message that names nothing
        hidden, changing nothing."""
        if self.game.pending is None:
            raise Refused("the game is over")
        if seat == 0:
            seat = self.game.pending_seat()
        if version != self.version:
            raise Refused("the table changed before your decision arrived; decide again")
        if self.game.pending_seat() != seat:
            raise Refused("it is not your decision now")
        options = self.game.legal_options(labels=False)  # ids suffice; labels cost time
        if not isinstance(option, str) or option not in {o for o, _ in options}:
            raise Refused("that is not one of your options now")
        self._apply(option, seat)

    def play_bot(self) -> None:
        """One decision of the bot whose turn it is (the caller saves the game)."""
        seat = self.game.pending_seat()
        agent = self.agents[seat]
        options = self.game.legal_options(bots=True, labels=getattr(agent, "reads_labels", True))
        self._apply(agent.decide(None, options), seat)

    def _apply(self, option: str, seat: int) -> None:
        try:
            self.game.apply(option, seat)
        except DiagnosticError:
            pass  # a broken rule ends the game; the view says where (never why: it may be hidden)
        self.version += 1

    def save_text(self) -> str:
        """The save as written after every decision: compact JSON (tables.json names the rules
        to load it with)."""
        return json.dumps(self.game.save(), separators=(",", ":"))

    def save(self) -> None:
        write_atomically(self.save_path, self.save_text())

    def record(self) -> dict:
        return {"id": self.id, "ruleset": self.ruleset, "variants": self.variants,
                "kinds": {str(s): k for s, k in self.kinds.items()},
                "tokens": self.tokens, "save": self.save_path.name}


class Tables:
    """The tables of one server and the folder that keeps them."""

    def __init__(self, folder: str | Path, limits: api.Limits | None = None):
        self.folder = Path(folder)
        self.limits = limits
        self.by_id: dict[str, Table] = {}
        self.by_token: dict[str, tuple[Table, int | None]] = {}

    def _add(self, table: Table) -> Table:
        self.by_id[table.id] = table
        for token, seat in table.tokens.items():
            self.by_token[token] = (table, seat)
        return table

    def create(self, ruleset: str, variants=(), players: int | None = None,
               kinds: dict[int, str] | None = None, seed: int | None = None,
               hot_seat: bool = False) -> Table:
        """A new game (from a fresh secret seed unless one is given) with a link per person
        and one for spectators (and with `hot_seat`, one for whoever decides now)."""
        rules = api.load(ruleset, tuple(variants))
        game = api.new_game(rules, players, secrets.randbits(31) if seed is None else seed,
                            self.limits)
        seats = [s.seat for s in game.state.seats]
        unknown = sorted(set(kinds or {}) - set(seats))
        if unknown:
            raise ValueError(f"seat {unknown[0]} does not exist: this game has seats 1 to "
                             f"{len(seats)}")
        kinds = {s: (kinds or {}).get(s, "human") for s in seats}
        tokens = {secrets.token_urlsafe(16): s for s in seats if kinds[s] == "human"}
        tokens[secrets.token_urlsafe(16)] = None
        if hot_seat:
            tokens[secrets.token_urlsafe(16)] = 0
        table_id = secrets.token_hex(4)
        table = Table(table_id, rules.source_path, list(variants), game, kinds, tokens,
                      self.folder / f"{table_id}.save.json")
        self._prepare_folder()
        table.save()
        self._add(table)
        self.write_index()
        return table

    def _prepare_folder(self) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)

    def write_index(self) -> None:
        data = {"version": 1, "tables": [t.record() for t in self.by_id.values()]}
        path = self.folder / INDEX
        write_atomically(path, json.dumps(data, indent=1))
        os.chmod(path, 0o600)  # it holds every seat's link

    def resume(self) -> list[Table]:
        """The tables saved in the folder, where their games stood, with the same links."""
        path = self.folder / INDEX
        try:
            for r in json.loads(path.read_text(encoding="utf-8"))["tables"]:
                rules = api.load(str(r["ruleset"]), tuple(map(str, r["variants"])))
                save = self.folder / Path(str(r["save"])).name
                game = api.load_game(save, rules, limits=self.limits)
                kinds = {int(s): k for s, k in r["kinds"].items()
                         if k in ("human", "random", "first")}
                tokens = {str(t): s if s is None else int(s) for t, s in r["tokens"].items()}
                self._add(Table(str(r["id"]), str(r["ruleset"]), list(r["variants"]), game,
                                kinds, tokens, save, version=len(game.history)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise DiagnosticError([Diagnostic(
                "E0314", f"cannot read the tables of {self.folder}: {str(e)[:200]}",
                file=str(path), hint="--resume takes a folder written by `rulebook serve "
                "--state-dir`")])
        return list(self.by_id.values())
