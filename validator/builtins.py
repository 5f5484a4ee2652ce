"""The names the language provides without a declaration (docs/semantics-contract.md).

The checker and the interpreter both read these two tables, so a built-in exists in one place.
"""
from __future__ import annotations

# name -> (fewest arguments, most arguments); None means "any number from the fewest on".
BUILTIN_FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "size": (1, 1),
    "abs": (1, 1),
    "top": (1, 1),
    "last": (1, 1),
    "index_of": (2, 2),
    "shuffled": (1, 1),
    "random_int": (2, 2),
    "next": (1, 1),
    "previous": (1, 1),
    "clockwise": (1, 1),
    "counterclockwise": (1, 1),
    "seat": (1, 1),
    "changed_at": (1, 1),
    "moved_at": (1, 1),
    "largest_group": (1, 1),
    "is_automaton": (1, 1),
    "text": (1, 1),
    "join": (1, 2),
    "keys": (1, 1),
    "values": (1, 1),
    "turned": (2, 2),
    # As calls: max(a, b, ...) or max(xs); sum(xs).
    "max": (1, None),
    "min": (1, None),
    "sum": (1, 1),
}

# Built-ins that draw at random: two calls with the same arguments may differ.
RANDOM_FUNCTIONS: frozenset[str] = frozenset({"random_int", "shuffled"})

BUILTIN_VALUES: frozenset[str] = frozenset({
    "players", "player_count", "round", "game_over", "winners", "pending_player",
    "current_player", "phase",
})


def arity_text(name: str) -> str:
    """How many arguments a built-in takes, in words: "1", "2", "1 or more"."""
    low, high = BUILTIN_FUNCTIONS[name]
    if high is None:
        return f"{low} or more"
    if low == high:
        return str(low)
    return f"{low} to {high}"
