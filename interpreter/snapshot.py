"""A game in progress as data: copied in memory, or written to JSON and read back.

The state and the flow (the machine's stack of frames) are one graph of values: a list held by
a player may also be named by a `let` of a waiting block. Both are copied (or written) together,
so that what was shared stays shared and nothing else is. Components, enum members and compiled
rules are never copied: they do not change. Reading a saved graph checks every name it meets
against the rules, so a save cannot bring in anything the rules do not have.
"""
from __future__ import annotations

from .flow import (
    FRAMES, KEPT, Decision, OptionInstance, ReactFrame, RoutineFrame, RunFrame, SimFrame, new_option,
)
from .rng import Rng
from .rules import holds_numbers
from .state import GameState
from .values import Grid, Item, Seat, Struct, Sym, show, type_name

_ATOMS = (int, str, bool, type(None), Item, Sym)


class BadSnapshot(Exception):
    """Saved data that is not a game of these rules."""


# ------------------------------------------------------------------------------------- copy
class Copier:
    """Copies values, keeping what was shared shared; players become the copy's players."""

    def __init__(self, seats: dict[int, Seat]):
        self.seats = seats  # id(old seat) -> new seat
        self.memo: dict[int, object] = {}
        self.machine = None  # the copy's machine, once made: it works out unread labels

    def value(self, v):
        t = type(v)
        if t in _ATOM_TYPES:
            return v
        if t is Seat:
            return self.seats[id(v)]
        done = self.memo.get(id(v))
        if done is not None:
            return done
        if t is list:
            if all(type(x) in _ATOM_TYPES for x in v):
                new = v.copy()
                self.memo[id(v)] = new
                return new
            new = []
            self.memo[id(v)] = new
            new.extend(self.value(x) for x in v)
            return new
        if t is dict:
            new = {}
            self.memo[id(v)] = new
            for k, x in v.items():
                new[self.value(k)] = self.value(x)
            return new
        if t is Grid:
            new = Grid(v.rows, v.columns)
            self.memo[id(v)] = new
            new.cells = [self.value(x) for x in v.cells]
            return new
        if t is Struct:
            new = Struct(v.record, {}, v.uid)
            self.memo[id(v)] = new
            new.fields.update((k, self.value(x)) for k, x in v.fields.items())
            return new
        if t is tuple:
            return tuple(self.value(x) for x in v)
        if t is set:
            return {self.value(x) for x in v}
        if t is frozenset:
            return v  # names (a block's known names): never changed
        raise TypeError(f"cannot copy a {t.__name__}")

    def decision(self, d: Decision | None) -> Decision | None:
        if d is None:
            return None
        if d._options is None:  # as the rules listed it: no option was read
            return Decision.of_listed(
                self.value(d.player), d.prompt,
                [(oid, option, self.value(values)) for oid, option, values in d._listed],
                self.value(d._base), self.machine, d.secret, d.node, d.clock, d.composed)
        return Decision(self.value(d.player), d.prompt,
                        [self.option(o) for o in d.options], d.secret, d.node, d.clock)

    def option(self, o: OptionInstance) -> OptionInstance:
        """An option of a waiting decision; a label not read yet stays unread, to be worked out
        by the copy's machine over the copy's state (a copy costs no label)."""
        if o.option is None:
            return OptionInstance(o.id, o.label, None, self.value(o.env))
        copy = new_option(o.id, o.option, self.value(o.base), self.value(o.values), self.machine)
        if isinstance(o._label, str):
            copy._label = o._label
        return copy

    def frame(self, f):
        new = object.__new__(type(f))
        for name in _slots(type(f)):
            v = getattr(f, name)
            if name == "decision":
                v = self.decision(v)
            elif name == "branches":
                v = [[self.frame(x) for x in branch] for branch in v]
            elif name in _SHARED:
                pass  # compiled rules: never copied
            else:
                v = self.value(v)
            setattr(new, name, v)
        return new


_ATOM_TYPES = frozenset(_ATOMS)
_SHARED = frozenset({"routine"})


def _slots(cls) -> list[str]:
    out = []
    for klass in cls.__mro__:
        out.extend(getattr(klass, "__slots__", ()))
    return out


def copy_state(state: GameState) -> tuple[GameState, Copier]:
    """A copy of a game's state, and the copier that made it (to copy the flow with it)."""
    seats = [Seat(s.seat, s.automaton) for s in state.seats]
    c = Copier({id(old): new for old, new in zip(state.seats, seats)})
    for old, new in zip(state.seats, seats):
        new.vars = {k: c.value(v) for k, v in old.vars.items()}
    rng = Rng(0)
    rng.state = state.rng.state
    new = GameState(seats=seats, rng=rng)
    new.globals = {k: c.value(v) for k, v in state.globals.items()}
    new.consts = {k: c.value(v) for k, v in state.consts.items()}
    new.log = list(state.log)  # lines are never changed once written: they are shared
    for name in ("round", "phase", "over", "steps", "clock", "decisions", "struct_ids",
                 "log_chars", "turns"):
        setattr(new, name, getattr(state, name))
    new.current = c.value(state.current)
    new.winners = [c.value(p) for p in state.winners]
    new.changed_at = dict(state.changed_at)
    new.reveals = {k: v if v == "all" else set(v) for k, v in state.reveals.items()}
    new.reveals_until_changed = set(state.reveals_until_changed)
    new.reaction_flags = dict(state.reaction_flags)
    return new, c


def copy_machine(machine, rules, limits):
    """A machine over a copy of `machine`'s state, standing where it stands."""
    from .machine import Machine

    state, c = copy_state(machine.state)
    new = c.machine = Machine(rules, state, limits)
    new.set_up, new.dirty, new.keeps_log = machine.set_up, machine.dirty, machine.keeps_log
    new.touched = None if machine.touched is None else set(machine.touched)
    new.stack = [c.frame(f) for f in machine.stack]
    new.pending_player = c.value(machine.pending_player)
    return new


# ------------------------------------------------------------------------------------ write
class Writer:
    """Values and frames as JSON-ready data; a container met twice is written once and then
    named by its number (`{"@": n}`)."""

    def __init__(self):
        self.refs: dict[int, int] = {}
        self.keep: list = []  # keeps the written containers alive, so their ids stay theirs

    def value(self, v):
        t = type(v)
        if t is int or t is str or t is bool or v is None:
            return v
        if t is Sym:
            return {"m": v.name}
        if t is Item:
            return {"i": v.id}
        if t is Seat:
            return {"p": v.seat}
        ref = self.refs.get(id(v))
        if ref is not None:
            return {"@": ref}
        n = self.refs[id(v)] = len(self.refs)
        self.keep.append(v)
        if t is list:
            return {"l": [self.value(x) for x in v], "r": n}
        if t is dict:
            return {"d": [[self.value(k), self.value(x)] for k, x in v.items()], "r": n}
        if t is Grid:
            return {"g": [v.rows, v.columns, [self.value(x) for x in v.cells]], "r": n}
        if t is Struct:
            return {"s": v.record, "u": v.uid,
                    "f": {k: self.value(x) for k, x in v.fields.items()}, "r": n}
        if t is set:
            return {"set": [self.value(x) for x in sorted(v, key=repr)], "r": n}
        if t is tuple:
            return {"t": [self.value(x) for x in v], "r": n}
        raise TypeError(f"cannot write a {t.__name__}")

    def env(self, env: dict):
        ref = self.refs.get(id(env))
        if ref is not None:
            return {"@": ref}
        n = self.refs[id(env)] = len(self.refs)
        self.keep.append(env)
        return {"e": {k: self.value(x) for k, x in env.items()}, "r": n}

    def decision(self, d: Decision | None):
        if d is None:
            return None
        return {"player": d.player.seat, "prompt": d.prompt, "secret": d.secret,
                "clock": d.clock,
                "options": [[o.id, o.label, _option_ref(o.option), self.env(o.env)]
                            for o in d.options]}

    def frame(self, f) -> dict:
        out = {"frame": type(f).__name__}
        for name in _slots(type(f)):
            v = getattr(f, name)
            if name == "env":
                out[name] = self.env(v)
            elif name == "routine":
                out[name] = v.id
            elif name == "decision":
                out[name] = self.decision(v)
            elif name == "branches":
                out[name] = [[self.frame(x) for x in branch] for branch in v]
            elif name == "pending" and v is not None:
                out[name] = [self.env(e) for e in v]
            else:
                out[name] = self.value(v)
        return out


def _option_ref(option) -> list | None:
    """An option of a compiled `choose`: [the choose's statement number, its position]."""
    if option is None:
        return None
    return [option.op_id, option.index]


def write_state(state: GameState, w: Writer) -> dict:
    return {
        "seats": [{"seat": s.seat, "automaton": s.automaton,
                   "vars": {k: w.value(v) for k, v in s.vars.items()}} for s in state.seats],
        "globals": {k: w.value(v) for k, v in state.globals.items()},
        "consts": {k: w.value(v) for k, v in state.consts.items()},
        "log": state.log, "rng": state.rng.state, "round": state.round, "phase": state.phase,
        "current": w.value(state.current), "over": state.over,
        "winners": [p.seat for p in state.winners], "steps": state.steps, "clock": state.clock,
        "changed_at": [[k[0], k[1], v] for k, v in sorted(state.changed_at.items())],
        "reveals": [[k[0], k[1], v if v == "all" else sorted(v)]
                    for k, v in sorted(state.reveals.items())],
        "reveals_until_changed": sorted([list(k) for k in state.reveals_until_changed]),
        "reaction_flags": [[list(k), v] for k, v in state.reaction_flags.items()],
        "decisions": state.decisions, "struct_ids": state.struct_ids,
        "log_chars": state.log_chars, "turns": state.turns,
    }


def write_game(machine) -> dict:
    """The state and the flow of a game, as JSON-ready data."""
    w = Writer()
    return {"state": write_state(machine.state, w),
            "flow": {"set_up": machine.set_up, "dirty": machine.dirty,
                     "stack": [w.frame(f) for f in machine.stack]}}


# ------------------------------------------------------------------------------------- read
class Reader:
    """The inverse of Writer, checking each name against the rules."""

    def __init__(self, rules, seats: list[Seat]):
        self.rules = rules
        self.seats = {s.seat: s for s in seats}
        self.refs: dict[int, object] = {}

    def _ref(self, data):
        if "@" in data:
            try:
                return self.refs[data["@"]]
            except (KeyError, TypeError):
                raise BadSnapshot("a reference to nothing written before")
        return _MISSING

    def value(self, data):
        if data is None or type(data) in (int, str, bool):
            return data
        if not isinstance(data, dict):
            raise BadSnapshot(f"a value of an unknown kind: {str(data)[:40]}")
        found = self._ref(data)
        if found is not _MISSING:
            return found
        if "m" in data:
            return self._lookup(self.rules.members, data["m"], "enum member")
        if "i" in data:
            return self._lookup(self.rules.items_by_id, data["i"], "component")
        if "p" in data:
            return self._lookup(self.seats, data["p"], "player")
        n = data.get("r")
        if "l" in data:
            out = self.refs[n] = []
            out.extend(self.value(x) for x in _list(data["l"]))
            return out
        if "d" in data:
            out = self.refs[n] = {}
            for pair in _list(data["d"]):
                k, v = _list(pair)
                out[self.value(k)] = self.value(v)
            return out
        if "g" in data:
            rows, columns, cells = _list(data["g"])
            grid = self.refs[n] = Grid(int(rows), int(columns))
            grid.cells = [self.value(x) for x in _list(cells)]
            if len(grid.cells) != grid.rows * grid.columns:
                raise BadSnapshot("a grid whose cells do not fill it")
            return grid
        if "s" in data:
            if data["s"] not in self.rules.records:
                raise BadSnapshot(f"a structure of an unknown record `{data['s']}`")
            if data["s"] not in self.rules.code.gen.built_records:
                raise BadSnapshot(f"a structure of `{data['s']}`, which the rules never make")
            struct = self.refs[n] = Struct(data["s"], {}, int(data.get("u", 0)))
            struct.fields.update((str(k), self.value(v)) for k, v in dict(data["f"]).items())
            if set(struct.fields) != {f.name for f in self.rules.records[data["s"]].fields}:
                raise BadSnapshot(f"a structure of `{data['s']}` without the record's fields")
            return struct
        if "set" in data:
            out = self.refs[n] = set()
            out.update(self.value(x) for x in _list(data["set"]))
            return out
        if "t" in data:
            out = tuple(self.value(x) for x in _list(data["t"]))
            self.refs[n] = out
            return out
        raise BadSnapshot(f"a value of an unknown kind: {str(data)[:40]}")

    def env(self, data) -> dict:
        found = self._ref(data)
        if found is not _MISSING:
            return found
        out = self.refs[data["r"]] = {}
        for k, v in dict(data["e"]).items():
            out[str(k)] = self.value(v)
        return out

    def _lookup(self, table, key, what):
        try:
            return table[key]
        except (KeyError, TypeError):
            raise BadSnapshot(f"an unknown {what} `{str(key)[:40]}`")

    def decision(self, data, wait) -> Decision | None:
        if data is None:
            return None
        if wait is None or wait.code is None:
            raise BadSnapshot("a decision where the rules ask none")
        options = []
        for oid, label, ref, env in _list(data["options"]):
            option = None
            if ref is not None:
                op_id, index = _list(ref)
                option = self._options_of(op_id)[int(index)]
            options.append(OptionInstance(str(oid), str(label), option, self.env(env)))
        return Decision(self._lookup(self.seats, data["player"], "player"), str(data["prompt"]),
                        options, bool(data["secret"]), wait.code.node, int(data["clock"]))

    def _options_of(self, n) -> list:
        decisions = self.rules.code.decisions
        if type(n) is not int or not 0 <= n < len(decisions):
            raise BadSnapshot("a decision the rules do not have")
        return decisions[n].options

    def _routine(self, n):
        routines = self.rules.code.routines
        if type(n) is not int or not 0 <= n < len(routines):
            raise BadSnapshot("a block the rules do not have")
        return routines[n]

    def frame(self, data):
        cls = FRAMES.get(data.get("frame")) if isinstance(data, dict) else None
        if cls is None:
            raise BadSnapshot("a frame of an unknown kind")
        f = object.__new__(cls)
        for name in _slots(cls):
            raw = data.get(name)
            if name == "env":
                v = self.env(raw)
            elif name == "routine":
                v = self._routine(raw)
            elif name == "decision":
                v = self.decision(raw, f.routine.waits.get(f.at))
            elif name == "branches":
                v = [[self.frame(x) for x in _list(branch)] for branch in _list(raw)]
            elif name == "pending" and raw is not None:
                v = [self.env(e) for e in _list(raw)]
            else:
                v = self.value(raw)
            setattr(f, name, v)
        _CHECKS[cls](f)
        return f


_MISSING = object()


def _list(v) -> list:
    if not isinstance(v, list):
        raise BadSnapshot("a list was expected")
    return v


def _numbers_kept(values: dict, decls: dict, whose: str) -> None:
    """Refuse a variable declared `int` that holds anything but a number (the generated code
    reads one untested); state carried by components, a number for each, as well."""
    for name, decl in decls.items():
        if not holds_numbers(decl):
            continue
        held = values[name]
        if decl.kind == "component_state":
            if not isinstance(held, dict) or any(type(v) is not int for v in held.values()):
                raise BadSnapshot(f"`{decl.name}` of the components holds something but numbers")
        elif type(held) is not int:
            raise BadSnapshot(f"{whose}`{name}` is declared `int` but holds " + (
                "none" if held is None else f"{type_name(held)} `{show(held)}`"))


def read_game(data, rules, limits, seats: list[Seat]):
    """A machine standing where a written game stood (see `write_game`)."""
    from .machine import Machine

    r = Reader(rules, seats)
    raw = data["state"]
    state = GameState(seats=seats, rng=Rng(0))
    saved = {s["seat"]: s for s in _list(raw["seats"])}
    for seat in seats:
        vars_ = dict(saved.get(seat.seat, {}).get("vars", {}))
        seat.vars = {str(k): r.value(v) for k, v in vars_.items()}
        if set(seat.vars) != set(rules.player_vars):
            raise BadSnapshot(f"player {seat.seat} does not hold the rules' player values")
        _numbers_kept(seat.vars, rules.player_vars, f"player {seat.seat}'s ")
    state.globals = {str(k): r.value(v) for k, v in dict(raw["globals"]).items()}
    if set(state.globals) != set(rules.global_vars):
        raise BadSnapshot("the globals are not the rules' globals")
    _numbers_kept(state.globals, rules.global_vars, "")
    state.consts = {str(k): r.value(v) for k, v in dict(raw["consts"]).items()}
    written = rules.code.gen.literal_consts  # the generated code holds these as they are
    if set(state.consts) != {d.name for d in rules.consts} or any(
            type(state.consts[k]) is not type(v) or state.consts[k] != v
            for k, v in written.items()):
        raise BadSnapshot("the constants are not the rules' constants")
    state.log = [{"kind": str(e["kind"]), "text": str(e["text"]),
                  "to": None if e.get("to") is None else [int(x) for x in _list(e["to"])]}
                 for e in _list(raw["log"])]
    state.rng.state = int(raw["rng"]) & ((1 << 64) - 1)
    for name in ("round", "steps", "clock", "decisions", "struct_ids", "log_chars", "turns"):
        setattr(state, name, int(raw[name]))
    state.phase = None if raw["phase"] is None else str(raw["phase"])
    state.over = bool(raw["over"])
    state.current = r.value(raw["current"])
    state.winners = [r._lookup(r.seats, p, "player") for p in _list(raw["winners"])]
    state.changed_at = {(int(o), str(n)): int(v) for o, n, v in _list(raw["changed_at"])}
    state.reveals = {(int(o), str(n)): ("all" if v == "all" else {int(x) for x in _list(v)})
                     for o, n, v in _list(raw["reveals"])}
    state.reveals_until_changed = {(int(o), str(n))
                                   for o, n in _list(raw["reveals_until_changed"])}
    state.reaction_flags = {tuple(_list(k)): bool(v) for k, v in _list(raw["reaction_flags"])}
    machine = Machine(rules, state, limits)
    flow = data["flow"]
    machine.set_up, machine.dirty = bool(flow["set_up"]), bool(flow["dirty"])
    machine.stack = [r.frame(f) for f in _list(flow["stack"])]
    return machine


def _check_waiting(f: RoutineFrame) -> None:
    """A routine's frame read from a save waits where its routine can, keeping what the
    routine keeps there (so that running it again cannot meet anything else)."""
    if type(f.at) is not int or type(f.depth) is not int or not isinstance(f.env, dict):
        raise BadSnapshot("a routine's frame that does not say where it stands")
    if f.chosen is not None or f.signal is not None:
        raise BadSnapshot("a routine's frame in the middle of a step")
    if f.at == 0:
        if f.v != () or f.decision is not None:
            raise BadSnapshot("a routine's frame that has not started yet keeps something")
        return
    wait = f.routine.waits.get(f.at)
    if wait is None:
        raise BadSnapshot("a routine's frame waiting where its rules never wait")
    if type(f.v) is not tuple or len(f.v) != len(wait.shape) or not all(
            KEPT[kind](x) for kind, x in zip(wait.shape, f.v)):
        raise BadSnapshot("a routine's frame keeping what its rules do not keep there")
    if not wait.names <= f.env.keys():
        raise BadSnapshot("a routine's frame without the names its rules bind where it waits")
    if (wait.code is not None) != (f.decision is not None):
        raise BadSnapshot("a routine's frame whose decision is not where it waits")


def _check_parts(f: SimFrame) -> None:
    """The parts of `simultaneously` read from a save: each a stack of frames, the waiting ones
    waiting for a decision, the answers and the part asked next within them."""
    if type(f.branches) is not list or not all(type(b) is list for b in f.branches):
        raise BadSnapshot("parts of `simultaneously` that are not stacks of frames")
    waiting, n = f.waiting, len(f.branches)

    def asks(i) -> bool:  # part i waits for a decision (or for its own parts' decisions)
        top = f.branches[i][-1] if type(i) is int and 0 <= i < n and f.branches[i] else None
        return type(top) is SimFrame or type(top) is RoutineFrame and top.decision is not None

    if type(waiting) is not list or not waiting or len(set(waiting)) != len(waiting) \
            or not all(asks(i) for i in waiting):
        raise BadSnapshot("parts of `simultaneously` waiting where they cannot")
    if type(f.k) is not int or not 0 <= f.k < len(waiting) or type(f.answers) is not list \
            or len(f.answers) != f.k or not all(type(a) is str for a in f.answers):
        raise BadSnapshot("answers to `simultaneously` that do not match its parts")
    for i, answer in zip(waiting, f.answers):
        if not f.branches[i][-1].waiting_frame().decision.has(answer):
            raise BadSnapshot("an answer to `simultaneously` that is not one of its options")


def _check_game(f: RunFrame) -> None:
    if type(f.stage) is not int or not 0 <= f.stage <= 3:
        raise BadSnapshot("a game at a stage that does not exist")


def _check_reactions(f: ReactFrame) -> None:
    if type(f.r) is not int or f.r < 0 or type(f.depth) is not int \
            or not (f.pending is None or type(f.pending) is list):
        raise BadSnapshot("reactions that do not say where they stand")


# What a frame of each kind read from a save is checked for: every kind flow.py has.
_CHECKS = {RoutineFrame: _check_waiting, SimFrame: _check_parts, RunFrame: _check_game,
           ReactFrame: _check_reactions}
if set(_CHECKS) != set(FRAMES.values()):  # a kind of frame added without its check
    raise ImportError("snapshot.py checks other kinds of frames than flow.py has")

__all__ = ["copy_machine", "copy_state", "write_game", "read_game", "BadSnapshot"]
