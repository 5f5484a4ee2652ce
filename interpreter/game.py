"""A game in progress: the state, the suspended flow, and the record of every decision.

Why replay: the flow is a chain of Python generators (one per running block), which keeps the
interpreter small and close to the rules' own structure, but a generator cannot be copied or
saved. So a game is *defined* by (rules, player count, seed, decisions): saving writes those,
loading and cloning replay them. Replay is deterministic because all randomness comes from the
game's own generator (interpreter/rng.py), whose state is part of the game state. A digest of the
final state is saved too, so a save that no longer replays the same way is refused.
"""
from __future__ import annotations

import hashlib
import json

from pydantic import TypeAdapter

from ..grammar import ast as A
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .errors import IllegalDecision, RuleError, to_diagnostic
from .evaluator import truth
from .machine import RECOMPUTE, Decision, Machine
from .rng import Rng
from .rules import Rules
from .state import GameState, Limits
from .values import Seat, show, to_data

SAVE_FORMAT = "rulebook-save"
SAVE_VERSION = 1

_STMTS = TypeAdapter(list[A.Stmt])


class Game:
    def __init__(self, rules: Rules, players: int | None = None, seed: int = 0,
                 limits: Limits | None = None, ruleset_ref: str | None = None,
                 check_invariants: bool = True):
        n = rules.min_players if players is None else players
        if not (rules.min_players <= n <= rules.max_players):
            span = "" if rules.min_players == rules.max_players else f" to {rules.max_players}"
            raise DiagnosticError([Diagnostic(
                "E0315", f"{rules.title} is for {rules.min_players}{span} players, not {n}",
                hint="choose a player count the game allows, or a variant for that count")])
        self.rules = rules
        self.players = n
        self.seed = seed
        self.limits = limits or Limits()
        self.ruleset_ref = ruleset_ref
        self.check_invariants = check_invariants
        seats = [Seat(i + 1) for i in range(n)]
        for k, auto in enumerate(rules.automata):
            seats.append(Seat(n + k + 1, automaton=auto.name))
        self.state = GameState(seats=seats, rng=Rng(seed))
        self.machine = Machine(rules, self.state, self.limits)
        self.history: list[dict] = []
        self.error: Diagnostic | None = None
        self.pending: Decision | None = None
        self._flow = self.machine.run()
        self._resume(None, first=True)

    # ---------------------------------------------------------------------------- running
    @property
    def over(self) -> bool:
        return self.pending is None and self.error is None

    def _fail(self, err: RuleError) -> None:
        self.error = to_diagnostic(err, self.rules.file_of)
        self.pending = None
        raise DiagnosticError([self.error])

    def _resume(self, answer, first: bool = False) -> None:
        try:
            req = next(self._flow) if first else self._flow.send(answer)
            while req.player.automaton is not None:
                self.machine.pending_player = req.player
                req = self._flow.send(self._automaton_choice(req))
            self.pending = req
            self.machine.pending_player = req.player
        except StopIteration:
            self.pending = None
            self.machine.pending_player = None
        except RuleError as err:
            self._fail(err)
        except RecursionError:
            self._fail(RuleError("E0302", "the rules nest too deeply", None))
        if self.check_invariants:
            self._check_invariants()

    def _check_invariants(self) -> None:
        for inv in self.rules.invariants:
            try:
                ok = truth(self.machine.eval(inv.test, {}), inv.test)
            except RuleError as err:
                self._fail(err)
            if not ok:
                self._fail(RuleError("E0313", f"invariant `{inv.name}` does not hold: "
                                     f"{inv.description}", inv))

    def _automaton_choice(self, req: Decision) -> str:
        auto = next(a for a in self.rules.automata if a.name == req.player.automaton)
        for policy in auto.policies:
            matching = [o for o in req.options if o.option is not None
                        and o.option.name == policy.option]
            if matching:
                rows = [(o, self.machine.sort_keys(policy.keys, o.env)) for o in matching]
                return self.machine.order(rows, policy)[0][0].id
        return req.options[0].id

    # -------------------------------------------------------------------------- decisions
    def legal_options(self) -> list[tuple[str, str]]:
        """(id, label) of every legal option of the pending decision, or [] when none."""
        if self.pending is None:
            return []
        return [(o.id, o.label) for o in self.pending.options]

    def pending_seat(self) -> int | None:
        return self.pending.player.seat if self.pending else None

    def resolve(self, option: str) -> str:
        """An option id from an id or an exact label."""
        if self.pending is None:
            raise IllegalDecision("the game is over; there is nothing to decide")
        if not isinstance(option, str):
            raise IllegalDecision(f"a decision is an option id (text), not {option!r}")
        if option in self.pending.by_id:
            return option
        by_label = [o.id for o in self.pending.options if o.label == option]
        if len(by_label) == 1:
            return by_label[0]
        shown = ", ".join(o.id for o in self.pending.options[:12])
        more = "" if len(self.pending.options) <= 12 else ", ..."
        raise IllegalDecision(f"`{option}` is not a legal option now",
                              hint=f"legal options: {shown}{more}")

    def apply(self, option: str, player: int | None = None) -> None:
        """Make the pending decision. An illegal one raises IllegalDecision; nothing changes."""
        if self.error is not None:
            raise DiagnosticError([self.error])
        oid = self.resolve(option)
        seat = self.pending.player.seat
        if player is not None and player != seat:
            raise IllegalDecision(f"it is player {seat}'s decision, not player {player}'s")
        self.history.append({"player": seat, "option": oid})
        self._resume(oid)

    def given(self, stmts: list) -> None:
        """Change the state by statements (scenario tests); the pending options are recomputed."""
        if self.error is not None:
            raise DiagnosticError([self.error])
        try:
            for req in self.machine.block(stmts, {}):
                raise RuleError("E0306", "a `given` block cannot ask for decisions", req.node)
        except RuleError as err:
            self._fail(err)
        self.history.append({"given": _STMTS.dump_python(list(stmts), mode="json")})
        # A `given` builds a state that play may never reach (a test's setting), so the ruleset's
        # invariants, which describe states reached by play, are no longer checked.
        self.check_invariants = False
        if self.pending is not None:
            self._resume(RECOMPUTE)

    # --------------------------------------------------------------------- copy and save
    @classmethod
    def replay(cls, rules: Rules, players: int, seed: int, history: list[dict],
               limits: Limits | None = None, ruleset_ref: str | None = None) -> "Game":
        game = cls(rules, players, seed, limits, ruleset_ref)
        for entry in history:
            if "given" in entry:
                game.given(_STMTS.validate_python(entry["given"]))
            else:
                game.apply(entry["option"], entry.get("player"))
        return game

    def clone(self) -> "Game":
        return Game.replay(self.rules, self.players, self.seed, self.history, self.limits,
                           self.ruleset_ref)

    def undo(self) -> "Game":
        """The game as it was before the last decision."""
        if not self.history:
            raise IllegalDecision("there is nothing to undo")
        return Game.replay(self.rules, self.players, self.seed, self.history[:-1], self.limits,
                           self.ruleset_ref)

    def digest(self) -> str:
        data = json.dumps(state_data(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    def save(self) -> dict:
        return {
            "format": SAVE_FORMAT, "version": SAVE_VERSION, "ruleset": self.ruleset_ref,
            "title": self.rules.title, "rules_fingerprint": self.rules.fingerprint,
            "players": self.players, "seed": self.seed, "history": self.history,
            "digest": self.digest(),
        }

    @classmethod
    def load(cls, data, rules: Rules, limits: Limits | None = None) -> "Game":
        problem = _save_problem(data)
        if problem:
            raise DiagnosticError([Diagnostic("E0314", f"not a valid save: {problem}",
                                              hint="save files are written by `rulebook play`")])
        try:
            game = cls.replay(rules, data["players"], data["seed"], data["history"], limits,
                              data.get("ruleset"))
        except IllegalDecision as e:
            raise DiagnosticError([Diagnostic(
                "E0314", f"the saved decisions do not replay: {e.message}",
                hint="the rules changed since the game was saved")])
        except Exception as e:  # noqa: BLE001 - any malformed history entry is a bad save
            if isinstance(e, DiagnosticError):
                raise
            raise DiagnosticError([Diagnostic("E0314", f"the saved decisions are malformed: {e}")])
        if data.get("digest") and data["digest"] != game.digest():
            raise DiagnosticError([Diagnostic(
                "E0314", "the save does not replay to the state it recorded",
                hint="the rules changed since the game was saved")])
        return game

    # ------------------------------------------------------------------------------ results
    def scores(self) -> dict[int, object]:
        """Each seat's value of the first winner key (the score), after the game."""
        w = self.rules.winner
        out = {}
        if w is None or not w.keys or w.keys[0].kind != "sort_key":
            return out
        for seat in self.state.seats:
            try:
                out[seat.seat] = self.machine.eval(w.keys[0].expr, {w.binding.name: seat})
            except RuleError:
                out[seat.seat] = None
        return out


def _save_problem(data) -> str | None:
    if not isinstance(data, dict):
        return "it is not a JSON object"
    if data.get("format") != SAVE_FORMAT:
        return f"its format is not {SAVE_FORMAT!r}"
    if data.get("version") != SAVE_VERSION:
        return f"version {data.get('version')!r} is not {SAVE_VERSION}"
    if not isinstance(data.get("players"), int) or not isinstance(data.get("seed"), int):
        return "players and seed must be numbers"
    history = data.get("history")
    if not isinstance(history, list):
        return "history must be a list"
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or not (
            isinstance(entry.get("option"), str) or isinstance(entry.get("given"), list)
        ):
            return f"history entry {i + 1} is neither a decision nor a given block"
    return None


def state_data(game: Game) -> dict:
    """The complete state as plain data (for digests and debugging; not a player's view)."""
    st = game.state
    return {
        "globals": {k: to_data(v) for k, v in st.globals.items()},
        "players": [{"seat": s.seat, "vars": {k: to_data(v) for k, v in s.vars.items()}}
                    for s in st.seats],
        "rng": st.rng.state, "round": st.round, "phase": st.phase, "over": st.over,
        "winners": [s.seat for s in st.winners], "log": st.log, "clock": st.clock,
    }


__all__ = ["Game", "state_data", "show"]
