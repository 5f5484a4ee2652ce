"""The data of a game in progress (everything but the continuation of the flow)."""
from __future__ import annotations

from dataclasses import dataclass

from .rng import Rng
from .values import MAX_SHOWN_DEPTH, Seat


# A call of a `define` costs more than one step: it binds its values and evaluates a body, so
# a define that calls itself twice must not run for long on the budget of simple statements.
DEFINE_CALL_STEPS = 2


# The owner under which `changed_at` keeps when each component last moved (`moved_at(x)`):
# seats count from 1 and globals are 0, so -1 is nobody's, and saves keep it as they are.
MOVED = -1


@dataclass(frozen=True)
class Limits:
    """Budgets that stop a runaway or malicious ruleset with a diagnostic (never changed once
    made: `dataclasses.replace` makes others)."""

    max_steps: int = 3_000_000        # statements, loop turns, calls and elements visited
    max_file_steps: int = 10_000_000  # steps of all the scenarios of one file (`rulebook test`)
    max_depth: int = 60               # nested define/procedure/handler calls
    max_collection: int = 100_000     # elements in one list, map or grid
    max_text: int = 100_000           # characters in one text
    max_nesting: int = MAX_SHOWN_DEPTH  # lists (or records, maps) inside each other
    max_number: int = 2 ** 53         # absolute value of any integer
    max_options: int = 5_000          # legal options at one decision point
    decision_steps: int = 500         # what asking for one decision costs (bounds endless games)
    # Work that leaves no trace in the game (invariant checks, labels, previews) gives its steps
    # back, so it is counted apart: all of it in one run of a game, on top of `max_steps`.
    max_side_steps: int = 30_000_000
    max_log_lines: int = 100_000      # lines in a game's log
    max_log_chars: int = 10_000_000   # characters in a game's log, all lines together
    # Resident memory of the whole process, in bytes, checked as the rules run (None: no limit).
    max_memory: int | None = 2 * 1024 ** 3

    def __post_init__(self):
        # A range of up to 64 numbers written as numbers is made once, as the rules are
        # compiled, and never looked at again (``codegen.Generator._items``).
        if self.max_collection < MIN_COLLECTION:
            raise ValueError(f"max_collection must be at least {MIN_COLLECTION}, not "
                             f"{self.max_collection}")


MIN_COLLECTION = 64  # the least limit on the elements of a list (`Limits.max_collection`)
DEFAULT_LIMITS = Limits()


class GameState:
    """Every value of a game in progress (its flow is in the machine's frames). A plain class
    with slots: a game is made at the start of every simulated game and copied by searches."""

    __slots__ = ("seats", "rng", "globals", "consts", "log", "round", "phase", "current", "over",
                 "winners", "steps", "clock", "changed_at", "reveals", "reveals_until_changed",
                 "turns", "reaction_flags", "decisions", "struct_ids", "log_chars")

    def __init__(self, seats: list[Seat], rng: Rng):
        self.seats, self.rng = seats, rng
        self.globals: dict = {}
        self.consts: dict = {}
        self.log: list[dict] = []
        self.round = 0
        self.phase: str | None = None
        self.current: Seat | None = None
        self.over = False
        self.winners: list[Seat] = []
        self.steps = 0
        self.clock = 0                    # advances on every change
        # (seat or 0, var) -> clock; and (MOVED, component id) -> clock of its last `move`
        self.changed_at: dict = {}
        self.reveals: dict = {}           # (seat or 0, var) -> "all" | set
        self.reveals_until_changed: set = set()  # reveals that end with the value
        self.turns = 0                    # turns played (of any turn loop)
        self.reaction_flags: dict = {}
        self.decisions = 0
        self.struct_ids = 0
        self.log_chars = 0
