"""A seat's view as a fixed-size vector of numbers, derived from the ruleset's declarations.

`Encoding(rules, players)` lays out, once per ruleset and player count, one *piece* per part of
the game: the flow (`game`: whose turn, whose decision, the phase, the round), then every global
state value (`global.NAME`) and every seat's values (`player3.NAME`), each as a flat run of
numbers whose size comes from the value's declared type:

| declared type | numbers |
|---|---|
| `int`, a pieces holding | the value |
| `bool` | 1 or 0 |
| an enum, `player`, a record with catalogue rows | one-hot over the members, seats or rows (copies of a row share one), and one for anything else |
| a record made with `new` | its fields, each by its own type (nested records: whether one is there) |
| `text` | one-hot over `TEXT_SLOTS` slots the text hashes to |
| `T?` | 1 when a value is there, then `T` |
| `list of T`, `deck of T` | how many elements, then the sum of the elements' encodings (a bag: how many of each card, for components); integers also count into a histogram 0..`INT_CAP` with a slot below and one above |
| `grid R by C of T` | each cell, row by row: 1 when it holds something, then `T` |
| `map of K to V`, K an enum, `player` or catalogue record | each key: 1 when the map holds it, then `V`; other keys: how many, then the sum of the values' encodings |
| `on Record name: T` | each component of the record, in catalogue order, `T` |

Every state value's piece starts with one number, 1 when the seat may not see the value. What a
seat may not see is never written: a hidden value writes only its *shape* when its declaration
says whoever cannot see it sees that (a list's size, a grid's occupied cells, a map's keys,
whether a value is there: interpreter/visibility.py), and a face-up top (`top N public`) has
its own piece (`...top`), the N first elements in order. So two games that differ only in what
a seat cannot see encode alike for it.

`parts` selects what is written, for OpenSpiel's observation types: `public` (what a spectator
sees: public values, shapes, face-up tops, the flow), `private` (what the seat sees that a
spectator does not), `all_private` (what any seat sees that a spectator does not); the default
writes both of the first two. The sizes never depend on the state: they are known before play
(grid sizes from the constants, as the game works them out when it starts).
"""
from __future__ import annotations

import zlib

from ..grammar import ast as A
from .values import Grid, Item, Seat, Struct, Sym
from .visibility import can_see, shape_seen

INT_CAP = 127       # a list of integers counts each value 0..INT_CAP in its own slot
TEXT_SLOTS = 8      # a text is one-hot over the slot its characters hash to
RECORD_DEPTH = 2    # a record inside a record inside a record is encoded by its presence only
MAX_SIZE = 1_000_000  # numbers in one encoded view, at most


class EncodingTooLarge(ValueError):
    """The declarations would make a view of more than MAX_SIZE numbers."""


# --------------------------------------------------------------------------------- codecs
class _Codec:
    """How values of one declared type become `size` numbers, from `out[at]` on."""

    size = 0

    def write(self, out, at: int, value) -> None:
        raise NotImplementedError

    def shape(self, out, at: int, value) -> None:
        """What the value's shape shows (nothing, for values that have none)."""

    def add(self, out, at: int, value) -> None:
        """Add (not set) the value's numbers: lists sum their elements' encodings."""
        self.write(out, at, value)


class _Number(_Codec):
    size = 1

    def write(self, out, at, value):
        if isinstance(value, (int, float)):
            out[at] += float(value)

    add = write


class _Bool(_Codec):
    size = 1

    def write(self, out, at, value):
        if value is True:
            out[at] += 1.0

    add = write


class _OneHot(_Codec):
    """One slot per known key (`key(value)`), and a last one for any other value."""

    def __init__(self, keys: list, key):
        self.index = {k: i for i, k in enumerate(keys)}
        self.key = key
        self.size = len(keys) + 1

    def write(self, out, at, value):
        if value is None:
            return
        out[at + self.index.get(self.key(value), self.size - 1)] += 1.0

    add = write


class _Text(_Codec):
    size = TEXT_SLOTS

    def write(self, out, at, value):
        if isinstance(value, str):
            out[at + zlib.crc32(value.encode("utf-8")) % TEXT_SLOTS] += 1.0

    add = write


class _Record(_Codec):
    """A component (one-hot over its record's catalogue rows) or a structure made with `new`
    (its fields)."""

    def __init__(self, rows: _OneHot | None, fields: list[tuple[str, _Codec]]):
        self.rows, self.fields = rows, fields
        self.size = (rows.size if rows else 0) + sum(c.size for _, c in fields)

    def write(self, out, at, value):
        if isinstance(value, Item) and self.rows is not None:
            self.rows.write(out, at, value)
        elif isinstance(value, Struct):
            at += self.rows.size if self.rows else 0
            for name, codec in self.fields:
                codec.add(out, at, value.fields.get(name))
                at += codec.size

    add = write


class _Presence(_Codec):
    """Whether a value is there (not none, not empty): what is left of a value nested deeper
    than RECORD_DEPTH."""

    size = 1

    def write(self, out, at, value):
        if value not in (None, [], {}):
            out[at] += 1.0

    add = write


class _Optional(_Codec):
    def __init__(self, inner: _Codec):
        self.inner = inner
        self.size = 1 + inner.size

    def write(self, out, at, value):
        if value is not None:
            out[at] += 1.0
            self.inner.write(out, at + 1, value)

    def shape(self, out, at, value):
        if value is not None:
            out[at] += 1.0

    add = write


class _List(_Codec):
    """How many elements, then the sum of their encodings (and, for integers, a histogram)."""

    def __init__(self, element: _Codec):
        self.element = element
        self.histogram = isinstance(element, _Number)
        self.size = 1 + element.size + (INT_CAP + 3 if self.histogram else 0)

    def write(self, out, at, value):
        if not isinstance(value, list):
            return
        out[at] += len(value)
        for v in value:
            self.element.add(out, at + 1, v)
        if self.histogram:
            base = at + 1 + self.element.size
            for v in value:
                if isinstance(v, int):
                    slot = 0 if v < 0 else INT_CAP + 2 if v > INT_CAP else v + 1
                    out[base + slot] += 1.0

    def shape(self, out, at, value):
        if isinstance(value, list):
            out[at] += len(value)

    add = write


class _Grid(_Codec):
    def __init__(self, rows: int, columns: int, cell: _Codec):
        self.rows, self.columns, self.cell = rows, columns, cell
        self.size = rows * columns * (1 + cell.size)

    def _cells(self, value):
        if not isinstance(value, Grid) or (value.rows, value.columns) != (self.rows, self.columns):
            return ()
        return enumerate(value.cells)

    def write(self, out, at, value):
        step = 1 + self.cell.size
        for k, v in self._cells(value):
            if v is not None:
                out[at + k * step] += 1.0
                self.cell.write(out, at + k * step + 1, v)

    def shape(self, out, at, value):
        step = 1 + self.cell.size
        for k, v in self._cells(value):
            if v is not None:
                out[at + k * step] += 1.0

    add = write


class _KeyedMap(_Codec):
    """A map whose keys are known before play: each key has its place."""

    def __init__(self, keys: _OneHot, value: _Codec):
        self.keys, self.value = keys, value
        self.size = (keys.size - 1) * (1 + value.size)

    def _entries(self, value):
        if not isinstance(value, dict):
            return ()
        step = 1 + self.value.size
        out = []
        for k, v in value.items():
            i = self.keys.index.get(self.keys.key(k)) if k is not None else None
            if i is not None:
                out.append((i * step, v))
        return out

    def write(self, out, at, value):
        for offset, v in self._entries(value):
            out[at + offset] += 1.0
            self.value.write(out, at + offset + 1, v)

    def shape(self, out, at, value):
        for offset, _ in self._entries(value):
            out[at + offset] += 1.0

    add = write


class _BagMap(_Codec):
    """A map whose keys are not known before play: how many keys, and the sum of the values."""

    def __init__(self, value: _Codec):
        self.value = value
        self.size = 1 + value.size

    def write(self, out, at, value):
        if isinstance(value, dict):
            out[at] += len(value)
            for v in value.values():
                self.value.add(out, at + 1, v)

    def shape(self, out, at, value):
        if isinstance(value, dict):
            out[at] += len(value)

    add = write


class _Components(_Codec):
    """`on Record name: T`: the value each component of the record carries, in catalogue order."""

    def __init__(self, items: list[Item], value: _Codec):
        self.items = {item.id: i for i, item in enumerate(items)}
        self.value = value
        self.size = len(items) * value.size

    def write(self, out, at, value):
        if isinstance(value, dict):
            for item, v in value.items():
                i = self.items.get(getattr(item, "id", None))
                if i is not None:
                    self.value.write(out, at + i * self.value.size, v)

    add = write


# ------------------------------------------------------------------------------ the layout
class Piece:
    """One named run of numbers of the encoding: `size` numbers from `offset`."""

    __slots__ = ("name", "offset", "size", "owner", "var", "decl", "codec", "top")

    def __init__(self, name, offset, size, owner=None, var=None, decl=None, codec=None, top=0):
        self.name, self.offset, self.size = name, offset, size
        self.owner, self.var, self.decl, self.codec, self.top = owner, var, decl, codec, top


PARTS = ("public", "private", "all_private")


class Encoding:
    """The layout of a ruleset's numeric views for a player count (see the module's text)."""

    def __init__(self, rules, players: int):
        from ..validator.diagnostics import DiagnosticError
        from .errors import RuleError, to_diagnostic
        from .game import Game
        from .machine import Machine

        self.rules, self.players = rules, players
        # The constants (grid sizes read them) and the seats, as a game starts with them.
        reference = Game(rules, players, 0, _start=False)
        self._machine = Machine(rules, reference.new_state(), reference.limits)
        try:
            self._machine.initialise()
        except RuleError as err:
            raise DiagnosticError([to_diagnostic(err)], rules.sources) from None
        self.seats = len(self._machine.state.seats)
        self.phases = _phase_names(rules)
        self.pieces: list[Piece] = []
        self.size = 0
        self._made = {n.record for n in A.walk(rules.program) if isinstance(n, A.RecordLit)}
        # over; the viewer; whose turn; whose decision and whether it is secret; round and
        # turns; the phase (its names, then one for any other)
        self._piece("game", 1 + 3 * self.seats + 1 + 2 + len(self.phases) + 1)
        for name, decl in rules.global_vars.items():
            self._state_piece(f"global.{name}", 0, name, decl)
        for seat in range(1, self.seats + 1):
            for name, decl in rules.player_vars.items():
                self._state_piece(f"player{seat}.{name}", seat, name, decl)
        if self.size > MAX_SIZE:
            big = max(self.pieces, key=lambda p: p.size)
            raise EncodingTooLarge(
                f"{rules.title}: a view encoded as numbers would hold {self.size:,} numbers, "
                f"more than {MAX_SIZE:,} (the largest piece, `{big.name}`, holds {big.size:,})")

    @property
    def shapes(self) -> dict[str, tuple[int]]:
        """Each piece's name and shape (all flat), in order."""
        return {p.name: (p.size,) for p in self.pieces}

    def _piece(self, name: str, size: int, **kw) -> Piece:
        piece = Piece(name, self.size, size, **kw)
        self.pieces.append(piece)
        self.size += size
        return piece

    def _state_piece(self, name: str, owner: int, var: str, decl) -> None:
        if decl.kind == "component_state":
            items = [i for items in self.rules.tables.values() for i in items
                     if i.record == decl.record]
            codec = _Components(items, self.codec(decl.type))
        elif (("global" if owner == 0 else "player"), var) in self.rules.holdings:
            codec = _Number()
        else:
            codec = self.codec(decl.type)
        self._piece(name, 1 + codec.size, owner=owner, var=var, decl=decl, codec=codec)
        top = getattr(decl, "public_top", None) or 0
        if top and isinstance(codec, _List):
            self._piece(f"{name}.top", top * codec.element.size, owner=owner, var=var,
                        decl=decl, codec=codec.element, top=top)

    # ---------------------------------------------------------------------- type -> codec
    def codec(self, t, depth: int = 0) -> _Codec:
        kind = t.kind
        if kind == "list_type" or kind == "deck_type":
            return _List(self.codec(t.element, depth))
        if kind == "optional_type":
            return _Optional(self._named(t.name, depth))
        if kind == "grid_type":
            rows = self._machine.grid_size(t.rows, "rows")
            columns = self._machine.grid_size(t.columns, "columns")
            return _Grid(rows, columns, self.codec(t.element, depth))
        if kind == "map_type":
            keys = self._keys(t.key)
            value = self.codec(t.value, depth)
            return _KeyedMap(keys, value) if keys is not None else _BagMap(value)
        return self._named(t.name, depth)

    def _keys(self, t) -> _OneHot | None:
        """The keys of a map known before play (an enum, the seats, catalogue rows), or None."""
        if t.kind != "named_type":
            return None
        codec = self._named(t.name, RECORD_DEPTH)
        if isinstance(codec, _OneHot):
            return codec
        if isinstance(codec, _Record) and codec.rows is not None and not codec.fields:
            return codec.rows
        return None

    def _named(self, name: str, depth: int) -> _Codec:
        rules = self.rules
        if name in ("int",) or name in rules.pieces:
            return _Number()
        if name == "bool":
            return _Bool()
        if name == "text":
            return _Text()
        if name == "player":
            return _OneHot(list(range(1, self.seats + 1)),
                           lambda v: v.seat if isinstance(v, Seat) else None)
        if name in rules.enums:
            return _OneHot([s.name for s in rules.enums[name]],
                           lambda v: v.name if isinstance(v, Sym) and v.enum == name else None)
        if name in rules.records:
            if depth >= RECORD_DEPTH:
                return _Presence()
            rows = list(dict.fromkeys(item.key or item.id for items in rules.tables.values()
                                      for item in items if item.record == name))
            hot = _OneHot(rows, lambda v: (v.key or v.id) if isinstance(v, Item) else None) \
                if rows else None
            fields = [] if name not in self._made else [
                (f.name, self.codec(f.type, depth + 1)) for f in rules.records[name].fields]
            return _Record(hot, fields)
        return _Presence()

    # --------------------------------------------------------------------------- encoding
    def encode(self, game, seat: int | None, parts: tuple[str, ...] = ("public", "private"),
               out=None) -> "numpy.ndarray":
        """The numbers `seat` sees of `game` (None: a spectator), as a numpy float32 vector
        (`out`, when given, is filled in place)."""
        if out is None:
            try:
                import numpy as np
            except ImportError:
                raise ImportError("a view as numbers needs numpy: pip install -e "
                                  "'.[openspiel]' or '.[pettingzoo]'") from None
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0.0)
        if game is None:
            return out
        st, rules = game.state, game.rules
        public = "public" in parts
        mine = "private" in parts
        anyone = "all_private" in parts
        if public:
            self._flow(out, game, seat)
        for piece in self.pieces[1:]:
            holder = st.globals if piece.owner == 0 else st.seats[piece.owner - 1].vars
            value = holder.get(piece.var)
            at = piece.offset
            for_all = can_see(st, rules, None, piece.owner, piece.var)
            if for_all:
                seen = public
            elif mine and can_see(st, rules, seat, piece.owner, piece.var):
                seen = True
            else:
                seen = anyone and any(can_see(st, rules, s, piece.owner, piece.var)
                                      for s in range(1, self.seats + 1))
            if piece.top:  # a face-up top: seen by everybody
                if (public or seen) and isinstance(value, list):
                    codec = piece.codec
                    for k, v in enumerate(value[:piece.top]):
                        codec.write(out, at + k * codec.size, v)
                continue
            if seen:
                piece.codec.write(out, at + 1, value)
            elif public:
                out[at] = 1.0  # hidden from this seat
                if shape_seen(piece.decl, value):
                    piece.codec.shape(out, at + 1, value)
        return out

    def _flow(self, out, game, seat: int | None) -> None:
        st, n = game.state, self.seats
        at = self.pieces[0].offset
        out[at] = 1.0 if game.over else 0.0
        at += 1
        if seat is not None and 1 <= seat <= n:
            out[at + seat - 1] = 1.0
        at += n
        if st.current is not None and 1 <= st.current.seat <= n:
            out[at + st.current.seat - 1] = 1.0
        at += n
        pending = game.pending
        if pending is not None and 1 <= pending.player.seat <= n:
            out[at + pending.player.seat - 1] = 1.0
            out[at + n] = 1.0 if pending.secret else 0.0
        at += n + 1
        out[at], out[at + 1] = float(st.round), float(st.turns)
        at += 2
        if st.phase is not None:
            k = self.phases.index(st.phase) if st.phase in self.phases else len(self.phases)
            out[at + k] = 1.0


def _phase_names(rules) -> list[str]:
    names = []
    if rules.play is not None:
        for node in A.walk(rules.play):
            if isinstance(node, A.Phase) and node.name not in names:
                names.append(node.name)
    return sorted(names) + ["scoring"]
