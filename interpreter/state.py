"""The data of a game in progress (everything but the continuation of the flow)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .rng import Rng
from .values import Seat


@dataclass
class Limits:
    """Budgets that stop a runaway or malicious ruleset with a diagnostic."""

    max_steps: int = 3_000_000        # statements, loop turns and calls in one game
    max_depth: int = 60               # nested define/procedure/handler calls
    max_collection: int = 100_000     # elements in one list
    max_number: int = 2 ** 53         # absolute value of any integer
    max_options: int = 5_000          # legal options at one decision point


@dataclass
class GameState:
    seats: list[Seat]
    rng: Rng
    globals: dict = field(default_factory=dict)
    consts: dict = field(default_factory=dict)
    log: list[dict] = field(default_factory=list)
    round: int = 0
    phase: str | None = None
    current: Seat | None = None
    over: bool = False
    winners: list[Seat] = field(default_factory=list)
    steps: int = 0
    clock: int = 0                                          # advances on every change
    changed_at: dict = field(default_factory=dict)          # (seat or 0, var) -> clock
    reveals: dict = field(default_factory=dict)             # (seat or 0, var) -> "all" | set
    reaction_flags: dict = field(default_factory=dict)
    decisions: int = 0
    struct_ids: int = 0

    def add_log(self, text: str, to: list[int] | None = None, kind: str = "rule") -> None:
        self.log.append({"kind": kind, "text": text, "to": to})
