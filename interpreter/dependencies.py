"""Which state variables an expression can read, found from the AST once when rules load.

An invariant needs checking again only when a variable it reads has changed: its reads are the
names it mentions and, through the `define`s it calls (and their modifiers), the names they
mention. Mentioning more than it reads is harmless (a check too many); the one unsafe thing would
be to miss a read, so anything whose value can change without a named variable changing (`round`,
`phase`, ...) makes the answer None: check every time.
"""
from __future__ import annotations

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_VALUES, RANDOM_FUNCTIONS

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


def define_reads(rules, names) -> dict[str, frozenset[str] | None]:
    """What each define of `names` may read (its body, its modifiers and what they call), as
    `variables_read` says: a value of it worked out once stays true until one of these changes."""
    out = {}
    for name in names:
        parts = [rules.defines[name].body] + [x for mod in rules.modifiers.get(name, ())
                                              for x in (mod.when, mod.value) if x is not None]
        reads = [variables_read(part, rules) for part in parts]
        out[name] = None if any(r is None for r in reads) else frozenset().union(*reads)
    return out


def repeatable_defines(rules) -> frozenset[str]:
    """The `define`s whose value depends only on their arguments and the state: no draw at random
    (`random_int`, `shuffled`, a `random` sort key) and no record made with `new` (each is a new
    one), in them or in what they call. While the state stands still, two calls of one with the
    same arguments give the same value, so a value worked out once may be used again."""
    changing: set[str] = set()
    calls: dict[str, set[str]] = {}
    for name, decl in rules.defines.items():
        parts = [decl.body] + [x for mod in rules.modifiers.get(name, ())
                               for x in (mod.when, mod.value) if x is not None]
        called = calls[name] = set()
        for node in (n for part in parts for n in A.walk(part)):
            kind = node.kind
            if kind in ("random_key", "record_lit") or (kind == "call"
                                                        and node.func in RANDOM_FUNCTIONS):
                changing.add(name)
            elif kind == "call" and node.func in rules.defines:
                called.add(node.func)
    grew = True
    while grew:  # a define that calls a changing one changes too
        grew = False
        for name, called in calls.items():
            if name not in changing and not called.isdisjoint(changing):
                changing.add(name)
                grew = True
    return frozenset(rules.defines.keys() - changing)


def early_expressions(rules) -> list:
    """The expressions worked out while a game's state is being set up (or with no state at
    all): constants, starting values and their bounds, pieces' totals, how records read."""
    out = [d.value for d in rules.consts]
    for decls in (rules.global_vars, rules.player_vars):
        for d in decls.values():
            out += [x for x in (d.initial, d.at_least, d.at_most) if x is not None]
    out += [d.total for d in rules.pieces.values()]
    out += [r.show for r in rules.records.values() if r.show is not None]
    return out


def defines_called_early(rules) -> frozenset[str]:
    """The `define`s those expressions call (and what they call, their modifiers included):
    they may meet a state variable not set yet; any other code runs once every one is."""
    seen: set[str] = set()
    pending = early_expressions(rules)
    while pending:
        for node in A.walk(pending.pop()):
            if node.kind == "call" and node.func in rules.defines and node.func not in seen:
                seen.add(node.func)
                pending.append(rules.defines[node.func].body)
                for mod in rules.modifiers.get(node.func, ()):
                    pending.extend(x for x in (mod.when, mod.value) if x is not None)
    return frozenset(seen)
