"""Which state variables an expression can read, found from the AST once when rules load.

An invariant needs checking again only when a variable it reads has changed: its reads are the
names it mentions and, through the `define`s it calls (and their modifiers), the names they
mention. Mentioning more than it reads is harmless (a check too many); the one unsafe thing would
be to miss a read, so anything whose value can change without a named variable changing (`round`,
`phase`, ...) makes the answer None: check every time.
"""
from __future__ import annotations

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_VALUES

# Built-in values that never change during a game: the seats themselves (their variables are
# reads by name, `p.x`), and how many there are.
_STEADY_VALUES = frozenset({"players", "player_count"})


def variables_read(expr, rules) -> frozenset[str] | None:
    """The global and player variable names `expr` may read, or None when it may read
    something that changes without a variable changing."""
    names: set[str] = set()
    seen: set[str] = set()
    pending = [expr]
    variables = rules.global_vars.keys() | rules.player_vars.keys()
    carried: dict[str, set[str]] = {}  # `.name` of state on components -> where it is kept
    for (_, name), decl in rules.component_vars.items():
        carried.setdefault(name, set()).add(decl.key)
    while pending:
        for node in A.walk(pending.pop()):
            kind = node.kind
            if kind == "name":
                if node.id in variables:
                    names.add(node.id)
                elif node.id in BUILTIN_VALUES and node.id not in _STEADY_VALUES:
                    return None
            elif kind == "field":
                if node.name in rules.player_vars:
                    names.add(node.name)
                names.update(carried.get(node.name, ()))
            elif kind == "call" and node.func == "moved_at":
                return None  # a move changes it, whichever variables it went between
            elif kind == "call" and node.func in rules.defines and node.func not in seen:
                seen.add(node.func)
                pending.append(rules.defines[node.func].body)
                for mod in rules.modifiers.get(node.func, ()):
                    pending.extend(x for x in (mod.when, mod.value) if x is not None)
    return frozenset(names)
