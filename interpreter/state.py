"""The data of a game in progress (everything but the continuation of the flow)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .rng import Rng
from .values import MAX_SHOWN_DEPTH, Seat


# A call of a `define` costs more than one step: it binds its values and evaluates a body, so
# a define that calls itself twice must not run for long on the budget of simple statements.
DEFINE_CALL_STEPS = 2


# The owner under which `changed_at` keeps when each component last moved (`moved_at(x)`):
# seats count from 1 and globals are 0, so -1 is nobody's, and saves keep it as they are.
MOVED = -1


@dataclass
class Limits:
    """Budgets that stop a runaway or malicious ruleset with a diagnostic."""

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
    # (seat or 0, var) -> clock; and (MOVED, component id) -> clock of its last `move`
    changed_at: dict = field(default_factory=dict)
    reveals: dict = field(default_factory=dict)             # (seat or 0, var) -> "all" | set
    reveals_until_changed: set = field(default_factory=set)  # reveals that end with the value
    turns: int = 0                                          # turns played (of any turn loop)
    reaction_flags: dict = field(default_factory=dict)
    decisions: int = 0
    struct_ids: int = 0
    log_chars: int = 0
