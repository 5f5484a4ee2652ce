"""Runtime values: enum members, component items, structures, grids and player seats."""
from __future__ import annotations


class Sym:
    """An enum member. Interned per ruleset, so identity is equality. Members are ordered by
    `order` where the rules order them (`max`, `min`, a sort's keys), never by Python's `<`:
    a class with a comparison of its own is compared through it by `==`, `in` and
    `list.count` too, many times slower than by identity."""

    __slots__ = ("enum", "name", "label", "order")

    def __init__(self, enum: str, name: str, label: str | None, order: int):
        self.enum, self.name, self.label, self.order = enum, name, label, order

    def __repr__(self):
        return self.name


class Item:
    """A component from a catalogue table. Read-only; identity matters (it is one card).

    ``key`` names its row (`guard` for `cards.guard`; copies of a row share it), ``text`` is how
    it reads when its record says (`record Card show "..."`)."""

    __slots__ = ("id", "table", "record", "fields", "key", "text")

    def __init__(self, id: str, table: str, record: str, fields: dict, key: str | None = None):
        self.id, self.table, self.record, self.fields = id, table, record, fields
        self.key, self.text = key, None

    def __repr__(self):
        return self.id


class Struct:
    """A mutable structured value made with ``new Record {...}``."""

    __slots__ = ("record", "fields", "uid")

    def __init__(self, record: str, fields: dict, uid: int):
        self.record, self.fields, self.uid = record, fields, uid

    def __repr__(self):
        return f"{self.record}#{self.uid}"


class Grid:
    __slots__ = ("rows", "columns", "cells")

    def __init__(self, rows: int, columns: int, fill=None):
        self.rows, self.columns = rows, columns
        self.cells = [fill] * (rows * columns)

    def at(self, r: int, c: int) -> int:
        return (r - 1) * self.columns + (c - 1)


class Seat:
    """A player: seat number (1-based, clockwise) and that player's state variables."""

    __slots__ = ("seat", "vars", "automaton", "text")

    def __init__(self, seat: int, automaton: str | None = None):
        self.seat, self.vars, self.automaton = seat, {}, automaton
        # how the player reads in labels and log lines (`show`)
        self.text = f"player {seat}" if automaton is None else f"{automaton} (player {seat})"

    def __repr__(self):
        return f"p{self.seat}"


def type_name(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "text"
    if isinstance(v, Sym):
        return v.enum
    if isinstance(v, Item):
        return v.record
    if isinstance(v, Struct):
        return v.record
    if isinstance(v, Seat):
        return "player"
    if isinstance(v, list):
        return "list"
    if isinstance(v, Grid):
        return "grid"
    if isinstance(v, dict):
        return "map"
    return type(v).__name__


def holds_something(value) -> bool:
    """Not none, zero, false, empty, nor a map or grid of such values."""
    if isinstance(value, dict):
        return any(holds_something(v) for v in value.values())
    if isinstance(value, Grid):
        return any(holds_something(v) for v in value.cells)
    return value not in (None, 0, False, "", [])


MAX_SHOWN_DEPTH = 64  # a value nested deeper reads "..." and saves as a marker: never a crash


def elements(v) -> int:
    """How many elements a walk over `v` visits at its top level (what the engine charges)."""
    if isinstance(v, (list, dict, str)):
        return len(v)
    if isinstance(v, Grid):
        return len(v.cells)
    return 1


SHOWN_CHARACTERS = 100_000  # a value never reads longer than this (the rest is cut: "...")


def show(v, depth: int = 0, describe=None) -> str:
    """How a value reads in labels and log lines (`describe` reads a structure whose record
    says how it is shown), cut after SHOWN_CHARACTERS characters."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return str(v)
    if t is Seat:
        return v.text
    if isinstance(v, (list, dict)):
        text, _, whole = show_within(v, SHOWN_CHARACTERS, describe, depth)
        return text if whole else text + "..."
    return _show_one(v, depth, describe)


def show_within(v, limit: int, describe=None, depth: int = 0) -> tuple[str, int, bool]:
    """`show(v)` built piece by piece and stopped once it is longer than `limit` characters
    (values that share parts can read far longer than they are): the text, the number of
    elements visited, and whether the text is whole."""
    out: list[str] = []
    size = visited = 0

    class Full(Exception):
        pass

    def put(piece: str) -> None:
        nonlocal size
        size += len(piece)
        out.append(piece)
        if size > limit:
            raise Full

    def walk(v, depth: int) -> None:
        nonlocal visited
        visited += 1
        if isinstance(v, list) and depth < MAX_SHOWN_DEPTH:
            put("[")
            for i, x in enumerate(v):
                if i:
                    put(", ")
                walk(x, depth + 1)
            put("]")
        elif isinstance(v, dict) and depth < MAX_SHOWN_DEPTH:
            put("{")
            for i, (k, x) in enumerate(v.items()):
                if i:
                    put(", ")
                walk(k, depth + 1)
                put(": ")
                walk(x, depth + 1)
            put("}")
        else:
            put(_show_one(v, depth, describe))

    try:
        walk(v, depth)
    except Full:
        return "".join(out)[:limit], visited, False
    return "".join(out), visited, True


def _show_one(v, depth: int, describe) -> str:
    """How a value that is not a list or a map reads."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Sym):
        return v.label or v.name
    if isinstance(v, Item):
        if v.text is not None:
            return v.text
        name = v.fields.get("name") or v.fields.get("label") or v.key  # copies read alike
        return str(name) if name is not None else v.id
    if isinstance(v, Seat):
        return v.text
    if isinstance(v, (list, dict)):  # deeper than MAX_SHOWN_DEPTH
        return "..."
    if isinstance(v, Struct):
        text = describe(v) if describe is not None else None
        return text if text is not None else v.record
    return str(v)


def to_data(v, printed: bool = False, depth: int = 0, describe=None):
    """A JSON-ready rendering of a value. Components are named by id; with `printed`, their
    printed fields come along too (what a player reads on the card, for views), and how they
    read (`text`) when their record says (`describe` reads structures)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, Sym):
        return v.name
    if isinstance(v, Item):
        if printed:
            text = {"text": v.text} if v.text is not None else {}
            return {"item": v.id, **text, **{k: to_data(x, printed, depth + 1, describe)
                                             for k, x in v.fields.items()}}
        return {"item": v.id}
    if isinstance(v, Seat):
        return {"player": v.seat}
    if depth >= MAX_SHOWN_DEPTH:
        return {"nested": "too deep"}
    d = depth + 1
    if isinstance(v, list):
        return [to_data(x, printed, d, describe) for x in v]
    if isinstance(v, Grid):
        return [[to_data(v.cells[v.at(r, c)], printed, d, describe)
                 for c in range(1, v.columns + 1)] for r in range(1, v.rows + 1)]
    if isinstance(v, Struct):
        text = describe(v) if printed and describe is not None else None
        return {"record": v.record, **({"text": text} if text is not None else {}),
                **{k: to_data(x, printed, d, describe) for k, x in v.fields.items()}}
    if isinstance(v, dict):
        return {"map": [[to_data(k, printed, d, describe), to_data(x, printed, d, describe)]
                        for k, x in v.items()]}
    return repr(v)


def nesting_problem(value, target, limit: int) -> str | None:
    """Why `value` cannot be stored into the container `target` (None when it can): it would
    contain itself, or nest deeper than `limit`. Walks lists, maps, grids and structures."""
    kind = type(value)
    if (kind is list or kind is Struct) and value is not target and limit >= 2:
        for v in (value if kind is list else value.fields.values()):
            if isinstance(v, _NESTING) and (v is target or type(v) is not list or v):
                break
        else:  # plain values and empty lists (what is most stored): nothing to walk
            return None
    stack = [(value, 1)]
    seen: set[int] = set()
    while stack:
        v, d = stack.pop()
        if isinstance(v, Struct):
            children = v.fields.values()
        elif isinstance(v, list):
            children = v
        elif isinstance(v, dict):
            children = v.values()
        elif isinstance(v, Grid):
            children = v.cells
        else:
            continue
        if v is target:
            return "it would contain itself"
        if d > limit:
            return f"it would nest more than {limit} values deep"
        if id(v) in seen:
            continue
        seen.add(id(v))
        for c in children:
            if isinstance(c, _NESTING):  # (not leaves)
                stack.append((c, d + 1))
    return None


_NESTING = (Struct, list, dict, Grid)  # the values `nesting_problem` walks into
