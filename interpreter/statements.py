"""Statements written out as Python, generated from the AST like expressions (``codegen.py``).

Every statement is written here once, by its `st_<kind>` method, calling ``effects.Effects``
for every check and change of the state. A statement that holds blocks has two forms, written
by the same method:

- *whole*, when nothing in it ever waits for a decision: its blocks inline, the names they bind
  Python locals (a procedure or handler that never waits is a function of its own, ``p3``);
- *resumable*, in a routine (``routines.py``), when something in it may wait: its blocks are
  guarded by where the routine resumes, the names it binds live in the frame's names, and what
  says where it stands (a loop's items and position, what a turn restores) is saved in the
  frame when the routine waits.

Every statement costs a step and sets `at`, the statement blamed for an error raised without one
(a full log, memory).
"""
from __future__ import annotations

from ..grammar import ast as A
from .flow import CHOOSER, DONE, ChooseCode, ComposeCode
from .routines import Routines, lets_within
from .rules import holds_numbers
from .state import MOVED

# A value stored as it is (no list, map, grid or structure, which are copied and checked), and
# two such values the same (``Evaluator.same``): a change to note only when they differ.
_PLAIN_TEST = "type({v}) in _PLAIN"
_SAME = "({a} is {b} or type({a}) is type({b}) and type({b}) in _BY_VALUE and {a} == {b})"


def _plain(fn, v: str) -> str:
    """The test that `v` is a plain value, or `True` for a literal (`None`, `(3)`) or a local
    known to hold a number or a player (``codegen.Function.ints``)."""
    if v == "None" or v.startswith("(") or v in fn.ints or v in fn.seats:
        return "True"
    return _PLAIN_TEST.format(v=v)


def _storable(fn, v: str, decl) -> str:
    """The test that `v` is stored in `decl`'s variable as it is: a plain value, and a number
    in one declared `int` (anything else is the runtime's, which refuses it)."""
    if not holds_numbers(decl):
        return _plain(fn, v)
    return "True" if v in fn.ints else f"type({v}) is int"


def _both(a: str, b: str) -> str:
    """`a and b`, with no test of `True` (a test known to hold)."""
    return b if a == "True" else a if b == "True" else f"{a} and {b}"


def _same(fn, a: str, b: str) -> str:
    """`_SAME`, for a `b` known to be a number in one test fewer."""
    return f"({a} is {b} or type({a}) is int and {a} == {b})" if b in fn.ints \
        else _SAME.format(a=a, b=b)


# Simple statements after which the next one always runs (none of them raises a signal).
_GO_ON = frozenset({
    "let", "set", "change", "move", "add", "remove", "shuffle", "log", "require", "reveal",
    "hide", "rotate", "move_pieces", "slide",
})
# Statements that neither loop nor call a procedure themselves (what they work out loops and
# calls with charges of its own): their own step is charged, the budget looked at later.
_RUN_ONCE = _GO_ON | {"if", "match_stmt", "stop"}
# Statements written out whole when what they hold is too; the others are resumable.
_SIMPLE = _GO_ON | {"stop", "pass", "end_game"}
_COMPOUND = frozenset({
    "if", "match_stmt", "step", "cited", "for", "repeat", "while", "phase", "turn", "do",
    "trigger", "award",
})
# Whether statements that never wait are written out whole (turned off by tests that compare
# the two forms of the same statements: with it off, every statement that holds a block is
# written in its resumable form).
WRITE_OUT_WHOLE = True
# Whether a list is stored by the generated code as `Effects.set_var` stores it, and joined
# with `+` where it is (off in tests comparing it with the runtime's `store_global`,
# `assign_field` and `binary_values`).
WRITE_LISTS = True
# Compound statements written inside each other at most this deep (the generated code stays
# well within Python's limits on nested blocks).
_MAX_NESTED = 4
_MAX_BRANCHES = 8


def _bodies(s) -> list[list]:
    """The blocks a statement holds."""
    kind = s.kind
    if kind == "if":
        return [b.body for b in s.branches] + ([s.otherwise] if s.otherwise else [])
    if kind == "match_stmt":
        return [a.body for a in s.arms]
    if kind == "choose":
        return [o.body for o in s.options] + ([s.otherwise] if s.otherwise else [])
    if kind == "compose":
        return [o.body for st in s.steps for o in st.options] + (
            [s.start_over] if s.start_over else [])
    body = getattr(s, "body", None)
    return [body] if body is not None else []


class Inlining:
    """Which statements of a ruleset run to their end without a decision, and may be written
    out whole (procedures and event handlers included, through every call)."""

    def __init__(self, rules):
        self.rules = rules
        # With reactions, the state is looked at after every statement, where a reaction may
        # start (and wait for a decision): each statement then runs on its own.
        self.whole = WRITE_OUT_WHOLE and not rules.reactions
        self.procedures: set[str] = set()
        self.events: set[str] = set()
        if self.whole:
            self._find()

    def _find(self) -> None:
        """The procedures and events whose blocks run to their end (a greatest fixpoint: a
        procedure is taken to run through until something in it may wait)."""
        rules = self.rules
        self.procedures = set(rules.procedures)
        self.events = set(rules.events)
        changed = True
        while changed:
            changed = False
            for name in list(self.procedures):
                if not self.block(rules.procedures[name].body):
                    self.procedures.discard(name)
                    changed = True
            for name in list(self.events):
                if not all(self.block(h.body) for h in rules.events[name]):
                    self.events.discard(name)
                    changed = True

    def block(self, stmts, depth: int = 0) -> bool:
        return all(self.statement(s, depth) for s in stmts)

    def statement(self, s, depth: int = 0) -> bool:
        """Whether `s` is written out whole (it never waits for a decision)."""
        kind = s.kind
        if kind in _SIMPLE:
            return True
        if not self.whole or kind not in _COMPOUND:
            return False
        if kind == "do":
            return s.name in self.procedures or s.name not in self.rules.procedures
        if kind == "trigger":
            return s.event in self.events or s.event not in self.rules.events
        if depth >= _MAX_NESTED:
            return False
        if kind == "if" and len(s.branches) > _MAX_BRANCHES or \
                kind == "match_stmt" and len(s.arms) > _MAX_BRANCHES:
            return False
        return all(self.block(b, depth + 1) for b in _bodies(s))


class _Block:
    """Where statements are being written: the names in scope (`sc`), whether new names go
    into the frame's names (`top`: a block of a routine, whose later statements may run after
    a wait) or are Python locals, the code of the depth of calls, and whether a statement that
    holds blocks is written in its resumable form (`resumable`)."""

    __slots__ = ("sc", "top", "depth", "resumable")

    def __init__(self, sc, top: bool, depth: str, resumable: bool = False):
        self.sc, self.top, self.depth, self.resumable = sc, top, depth, resumable

    def nested(self) -> "_Block":
        """A block of a statement written out whole."""
        return _Block(self.sc, False, self.depth)

    def child(self, names=()) -> "_Block":
        """A block of a resumable statement, which binds `names` in the frame's names."""
        sc = self.sc
        return _Block(type(sc)(sc.py, sc.env | set(names)), True, self.depth, True)


class Statements(Routines):
    """The statement half of ``codegen.Generator``."""

    # --------------------------------------------------------------------------- entries
    def procedure(self, key: tuple, params, body) -> str:
        """The function running a procedure's (or an event handler's) block written out
        whole: `f(machine, depth, env)` (`key` names the declaration)."""
        from .codegen import Function, Names

        fname = self._procedures.get(key)
        if fname is None:
            fname = self._procedures[key] = self._fresh("p")
            fn = Function(self, fname, "m, depth, env", "env")
            fn.calls = "depth"  # (a parameter, the same from its first line to its last)
            fn.hoist_as["DEEP"] = "depth >= m.limits.max_depth"
            fn.emit("m.depth = depth")
            ctx = _Block(Names({}, frozenset(params)), True, "depth")
            self._guarded(fn, lambda: self.statements(body, fn, ctx))
            self._function(fn, stub=False)
        return fname

    def _guarded(self, fn, write, after=()) -> None:
        """Statements whose errors raised without a node blame the statement running (`after`:
        more lines closing the `try`)."""
        fn.emit("at = None")
        fn.emit("try:")
        fn.depth += 1
        fn.blocks += 1
        before = len(fn.lines)
        write()
        if len(fn.lines) == before:
            fn.emit("pass")
        fn.depth -= 1
        fn.blocks -= 1
        fn.emit("except RuleError as e:")
        fn.emit("    if e.node is None: e.node = at")
        fn.emit("    raise")
        for line in after:
            fn.emit(line)

    # ------------------------------------------------------------------------ statements
    def statements(self, stmts, fn, ctx: _Block) -> None:
        """Statements written out one after the other. The steps of a run of statements that
        go on to the next (no `stop`, `pass`, `end game` or call: only an error, which ends
        the game, can cut it short) are charged as the first one starts."""
        i = 0
        while i < len(stmts):
            j = i + 1
            if stmts[i].kind in _GO_ON:
                while j < len(stmts) and stmts[j].kind in _GO_ON:
                    j += 1
            self.statement(stmts[i], fn, ctx, j - i)
            for k in range(i + 1, j):
                self.statement(stmts[k], fn, ctx, 0)
            i = j

    def statement(self, s, fn, ctx: _Block, tick: int = 1) -> None:
        at = self.const(s)
        fn.constant(f"at = {at}")
        if tick:  # one that runs once and calls nothing charges without looking at the budget
            fn.steps(str(tick), "at", check=s.kind not in _RUN_ONCE)
        resumable, ctx.resumable = ctx.resumable, False  # written out whole
        try:
            getattr(self, "st_" + s.kind)(s, fn, ctx, at)
        finally:
            ctx.resumable = resumable

    def _body(self, stmts, fn, ctx: _Block) -> None:
        before = len(fn.lines)
        self.statements(stmts, fn, ctx)
        if len(fn.lines) == before:
            fn.emit("pass")

    def value(self, node, fn, ctx: _Block, borrow: bool = False) -> str:
        """Write the code of an expression of a statement (its reads of the state made once
        for it: the state stands still while it is worked out)."""
        with fn.expression():
            return self.ex(node, fn, ctx.sc, borrow)

    def unwatched_value(self, node, fn, ctx: _Block) -> str:
        """An expression whose reads show the audited seat nothing (where a value goes: a
        target, a destination; ``Machine.watch``). A name of the block shows nothing anyway."""
        if node.kind == "name" and self._is_local(node.id, ctx):
            return self.value(node, fn, ctx)
        with self.unwatched(fn):
            return self.value(node, fn, ctx)

    def _store(self, name: str, v: str, fn, ctx: _Block) -> None:
        """`name = v` for a name of the block (a `let`, a local target)."""
        sc = ctx.sc
        if name in sc.py:
            var = sc.py[name]
            fn.emit(f"{var} = {v}")
            for known in (fn.ints, fn.seats):  # what was known of it is known no more
                if v in known:
                    known.add(var)
                else:
                    known.discard(var)
            fn.lists.discard(var)  # (a name may be read again: its list is no longer new)
        elif sc.env is not None and name in sc.env or ctx.top:
            fn.emit(f"env[{name!r}] = {v}")
            if sc.env is not None and name not in sc.env:
                ctx.sc = type(sc)(sc.py, sc.env | {name})
        else:
            local = fn.tmp()
            fn.emit(f"{local} = {v}")
            ctx.sc = sc.bind(name, local)

    def _is_local(self, name: str, ctx: _Block) -> bool:
        sc = ctx.sc
        return name in sc.py or (sc.env is not None and name in sc.env)

    def st_let(self, s, fn, ctx, at):
        self._store(s.name, self.value(s.value, fn, ctx), fn, ctx)

    def st_set(self, s, fn, ctx, at):
        self._assign(s.target, self.value(s.value, fn, ctx), fn, ctx)

    def _assign(self, target, v: str, fn, ctx) -> None:
        t = self.const(target)
        kind, rules = target.kind, self.rules
        if kind == "name":
            name = target.id
            if self._is_local(name, ctx):
                self._store(name, v, fn, ctx)
            elif name in rules.global_vars and rules.global_vars[name].kind != "component_state":
                decl = rules.global_vars[name]
                v = self._clamped(decl, v, "_E", fn)
                self._stores(fn, "True", fn.use("G"), name, v, repr((0, name)), decl, t, None,
                             f"m.store_global({name!r}, {self.const(decl)}, {v}, {t})")
            else:
                fn.emit(f"m.assign_global({name!r}, {v}, {t})")
        elif kind == "field":
            o = self.value(target.obj, fn, ctx)
            name = target.name
            decl = rules.player_vars.get(name)
            if decl is not None:  # a player's variable, when `o` is a player
                seat = "True" if o in fn.seats else f"type({o}) is Seat"
                self._stores(fn, seat, f"{o}.vars", name, v, f"({o}.seat, {name!r})", decl, t,
                             lambda: self._clamped(decl, v, f"{{'me': {o}}}", fn),
                             f"m.assign_field({o}, {name!r}, {v}, {t})")
            else:
                fn.emit(f"m.assign_field({o}, {name!r}, {v}, {t})")
        elif kind == "index":
            o = self.value(target.obj, fn, ctx)
            idx = [self.value(i, fn, ctx) for i in target.indices]
            if len(idx) == 2:
                r, c = idx
                inside, position = fn.grid_cell(o, r, c)
                fn.emit(f"if {_both(inside, _plain(fn, v))}:")
                fn.emit(f"    {o}.cells[{position}] = {v}")
                fn.emit("else:")
                fn.emit(f"    m.assign_index({o}, [{r}, {c}], {v}, {t})")
            else:
                fn.emit(f"m.assign_index({o}, [{', '.join(idx)}], {v}, {t})")
            self._changed_place(target.obj, fn, ctx, inside=o)
        else:
            fn.emit(f"m.cannot_assign({t})")

    def _stored(self, fn, holder: str, name: str, v: str, key: str, decl) -> None:
        """A plain value `v` stored as state variable `name` of `holder` (the globals, a
        player's variables: statements run once every one is there), the change noted when
        it differs. One declared `int` holds a number, and is given one here (`_storable`):
        two numbers differ as Python's `!=` says."""
        old = fn.tmp()
        fn.emit(f"{old} = {holder}[{name!r}]")
        fn.emit(f"if {old} != {v}:" if holds_numbers(decl) else f"if not {_same(fn, old, v)}:")
        fn.emit(f"    {holder}[{name!r}] = {v}")
        with fn.indent():
            self.note_change(fn, key, name, decl)

    def _stores(self, fn, test: str, holder: str, name: str, v: str, key: str, decl, at: str,
                clamped, slow: str) -> None:
        """`v` stored as state variable `name` of `holder` when `test` holds (else by `slow`,
        the runtime's): a plain value as it is (`clamped()` gives it within its bounds, when
        they are the generated code's), a list as `Effects.set_var` stores it, its own copy unless
        the code has just made it (``Function.lists``). A list goes to the runtime when the
        variable is declared `int` (refused) or has bounds not yet worked out (`clamped`,
        None when they have been)."""
        lists = WRITE_LISTS and not holds_numbers(decl) and (
            clamped is None or decl.at_least is None and decl.at_most is None)
        put = f"m.set_var({holder}, {name!r}, {{}}, {key}, {self.const(decl)}, {at})"
        if lists and v in fn.lists:  # (never a plain value)
            if test == "True":
                fn.emit(put.format(v))
                return
            fn.emit(f"if {test}:")
            fn.emit("    " + put.format(v))
        else:
            # a plain value that is no list, map, grid or structure is stored as it is
            plain = _storable(fn, v, decl)
            fn.emit(f"if {_both(test, plain)}:")
            with fn.indent():
                w = v if clamped is None else clamped()
                self._stored(fn, holder, name, w, key, decl)
            if lists and plain != "True":
                fn.emit(f"elif {_both(test, f'type({v}) is list')}:")
                fn.emit("    " + put.format(f"list({v})"))
        fn.emit("else:")
        fn.emit(f"    {slow}")

    def note_change(self, fn, key: str, name: str, decl) -> None:
        """The change of state variable `name` (whose key is `key`) noted: `Effects.changed`,
        written out when the variable is not `stacked` (only then does its declaration
        matter there)."""
        if decl is not None and decl.stacked:
            fn.emit(f"m.changed({key}, {self.const(decl)})")
            return
        st = fn.use("st")
        fn.emit(f"{st}.clock += 1")
        fn.emit(f"if m.touched is not None: m.touched.add({name!r})")
        fn.emit(f"if {st}.reveals_until_changed: m.reveal_changed({key})")
        fn.emit("m.dirty = True")

    def _clamped(self, decl, v: str, env: str, fn) -> str:
        """`v` within the bounds a state variable declares (`at least`, `at most`)."""
        if decl.at_least is None and decl.at_most is None:
            return v
        w = fn.tmp()
        if all(b is None or b.kind == "int" for b in (decl.at_least, decl.at_most)):
            fn.emit(f"{w} = {v}")
            number = f"(type({w}) is int or type({w}) is bool)"
            if decl.at_least is not None:
                fn.emit(f"if {number} and {w} < {decl.at_least.value!r}: "
                        f"{w} = {decl.at_least.value!r}")
            if decl.at_most is not None:
                fn.emit(f"if {number} and {w} > {decl.at_most.value!r}: "
                        f"{w} = {decl.at_most.value!r}")
            if v in fn.ints:
                fn.ints.add(w)
            return w
        fn.emit(f"{w} = m.clamp({self.const(decl)}, {v}, {env})")
        return w

    def st_change(self, s, fn, ctx, at):
        cur = self.unwatched_value(s.target, fn, ctx)  # the value stays where it was: unseen
        amount = self.value(s.amount, fn, ctx)
        v = fn.tmp()
        op = "+" if s.op == "increase" else "-"
        tests = " and ".join(f"type({x}) is int" for x in (cur, amount) if x not in fn.ints)
        fn.emit(f"if {tests or 'True'}:")
        with fn.indent():
            fn.emit(f"{v} = {cur} {op} {amount}")
            fn.emit(f"if not {fn.numbers_within(v)}: m.num({v}, {at})")
        fn.emit("else:")
        fn.emit(f"    {v} = m.change_error({at}, {cur}, {amount})")  # raises
        fn.ints.add(v)
        self._assign(s.target, v, fn, ctx)

    # places
    def _changed_place(self, node, fn, ctx, inside: str | None = None) -> None:
        """The change of the zone `node` (or of a value `inside` it) noted, as
        `Effects.changed` does with no declaration (a zone's change has never marked a
        `stacked` variable changed). Written out where its key is known as written: a global
        variable, a player's (`p.x`, when only players have an `x`), or no variable of its
        own; else `Effects.changed` with `_place_key`."""
        while node.kind == "index":
            node = node.obj
        if node.kind == "name" and not self._is_local(node.id, ctx) \
                and node.id in self.rules.global_vars:
            self.note_change(fn, repr((0, node.id)), node.id, None)
        elif self._seat_place(node, ctx):
            o = self.value(node.obj, fn, ctx)
            fn.emit(f"if type({o}) is Seat:")
            with fn.indent():
                self.note_change(fn, f"({o}.seat, {node.name!r})", node.name, None)
            fn.emit("else:")
            fn.emit(f"    m.changed(m.var_key_of({o}, {node.name!r}), None, {inside})")
        elif (key := self._place_key(node, fn, ctx)) == "None":
            # a structure's field, a list a name holds: which variable changed is unknown
            st = fn.use("st")
            fn.emit(f"{st}.clock += 1")
            fn.emit("m.touched = None")
            if inside is not None:
                fn.emit(f"if {st}.reveals_until_changed: m.end_reveals_holding({inside})")
            fn.emit("m.dirty = True")
        else:
            fn.emit(f"m.changed({key}, None, {inside})")

    def _seat_place(self, node, ctx) -> bool:
        """Whether `node` is `p.x` of a local name `p`, `x` a player's variable and no
        component's state: its key is `(p.seat, 'x')` when `p` is a player."""
        return node.kind == "field" and node.obj.kind == "name" \
            and self._is_local(node.obj.id, ctx) and node.name in self.rules.player_vars \
            and node.name not in self._component_state_names

    def _place_key(self, node, fn, ctx) -> str:
        """(seat or 0, name) when `node` is (in) a state variable (a zone being changed), else
        None; never raises (the statement's own evaluation reports any error)."""
        if node.kind == "name" and not self._is_local(node.id, ctx):
            return repr((0, node.id)) if node.id in self.rules.global_vars else "None"
        if node.kind == "index":
            return self._place_key(node.obj, fn, ctx)
        if node.kind != "field" or (node.name not in self.rules.player_vars
                                    and node.name not in self._component_state_names):
            return "None"  # (`Effects.var_key_of` finds no variable of that name)
        if node.obj.kind == "name" and self._is_local(node.obj.id, ctx):  # cannot fail
            o = self.value(node.obj, fn, ctx)
            if self._seat_place(node, ctx):
                return f"(({o}.seat, {node.name!r}) if type({o}) is Seat " \
                       f"else m.var_key_of({o}, {node.name!r}))"
            return f"m.var_key_of({o}, {node.name!r})"
        key = fn.tmp()
        fn.emit("try:")
        with fn.indent(block=True):
            o = self.unwatched_value(node.obj, fn, ctx)
            fn.emit(f"{key} = m.var_key_of({o}, {node.name!r})")
        fn.emit("except RuleError:")
        fn.emit(f"    {key} = None")
        return key

    def _container(self, place, fn, ctx, watched: bool = True) -> str:
        """A list to move from or to, or (grid, position) for a grid cell."""
        if not watched:
            with self.unwatched(fn):
                return self._container(place, fn, ctx)
        at = self.const(place)
        c = fn.tmp()
        if place.kind == "index" and len(place.indices) == 2:
            g = self.value(place.obj, fn, ctx)
            fn.emit(f"if type({g}) is Grid:")
            with fn.indent():
                r, k = [self.value(i, fn, ctx) for i in place.indices]
                # a cell inside the grid, worked out here; the runtime says what is wrong else
                inside, position = fn.grid_cell(g, r, k)
                fn.emit(f"if {inside}: {c} = ({g}, {position})")
                fn.emit(f"else: {c} = ({g}, m.grid_pos({g}, [{r}, {k}], {at}))")
            fn.emit("else:")
            with fn.indent():
                v = self.value(place, fn, ctx)
                fn.emit(f"{c} = {v} if type({v}) is list else m.place_list({v}, {at})")
            return c
        v = self.value(place, fn, ctx)
        fn.emit(f"{c} = {v} if type({v}) is list else m.place_list({v}, {at})")
        return c

    def st_move(self, s, fn, ctx, at):
        place = repr(s.place)
        if s.source is None:  # `move x to B`: from the zone that holds x
            item = self.value(s.item, fn, ctx)
            dst = self._container(s.dest, fn, ctx, watched=False)
            fn.emit(f"m.move_found({item}, {dst}, {place}, {at})")
            self._changed_place(s.dest, fn, ctx)
            self._note_moved(fn, item, one=True)
            return
        src = self._container(s.source, fn, ctx)
        dst = self._container(s.dest, fn, ctx, watched=False)
        moved = fn.tmp()
        if s.what == "one":
            item = self.value(s.item, fn, ctx)
            fn.emit(f"m.move_one({src}, {dst}, {item}, {place}, {at}, "
                    f"{self._place_key(s.source, fn, ctx)}, {self._place_key(s.dest, fn, ctx)})")
            return
        elif s.what == "all":
            fn.emit(f"{moved} = m.take_all({src})")
        else:
            n = self.value(s.item, fn, ctx)
            fn.emit(f"if type({n}) is not int or {n} < 0: m.bad_top({at})")
            fn.emit(f"{moved} = m.take_top({src}, {n})")
        fn.emit(f"m.put({dst}, {moved}, {place}, {at})")
        self._changed_place(s.source, fn, ctx)
        self._changed_place(s.dest, fn, ctx)
        self._note_moved(fn, moved)

    def _note_moved(self, fn, moved: str, one: bool = False) -> None:
        """`Effects.note_moved`, written out (moves are many): the clock of this move kept for
        each component among `moved` (a list, or the value itself when `one`)."""
        self.ns.setdefault("MOVED", MOVED)
        st = fn.use("st")

        def note(x: str) -> None:
            fn.emit(f"if type({x}) is Item: {st}.changed_at[(MOVED, {x}.id)] = {st}.clock")
        if one:
            note(moved)
            return
        x = fn.tmp()
        fn.emit(f"for {x} in {moved}:")
        with fn.indent(block=True):
            note(x)

    def st_add(self, s, fn, ctx, at):
        dst = self._container(s.dest, fn, ctx, watched=False)
        v = self.value(s.value, fn, ctx)
        fn.emit(f"m.put({dst}, [{v}], {s.place!r}, {at})")
        self._changed_place(s.dest, fn, ctx)

    def st_remove(self, s, fn, ctx, at):
        src = self._container(s.source, fn, ctx, watched=False)
        v = self.value(s.value, fn, ctx)
        fn.emit(f"m.take({src}, {v}, {at})")
        self._changed_place(s.source, fn, ctx)

    def st_shuffle(self, s, fn, ctx, at):
        t = self.unwatched_value(s.target, fn, ctx)
        fn.emit(f"if type({t}) is not list: m.cannot_shuffle({t}, {at})")
        fn.emit(f"m.shuffle_list({t}, {self._place_key(s.target, fn, ctx)}, {at})")

    def st_slide(self, s, fn, ctx, at):
        g = self.unwatched_value(s.target, fn, ctx)
        moved = fn.tmp()
        fn.emit(f"{moved} = m.slide_grid({g}, {s.toward!r}, {at})")
        fn.emit(f"if {moved}:")
        with fn.indent():
            self._changed_place(s.target, fn, ctx)
            self._note_moved(fn, moved)

    def st_move_pieces(self, s, fn, ctx, at):
        from .pieces import check_holding, check_owners, count_to_move

        for f in (check_holding, check_owners, count_to_move):
            self.ns.setdefault(f.__name__, f)
        kind = s.pieces
        decl = self.rules.pieces.get(kind)
        if decl is None:  # `rulebook check` reports it (E0205)
            fn.emit(f"raise RuleError('E0311', {f'no pieces are named `{kind}`'!r}, {at}, "
                    f"{f'declare them: `pieces {kind}: n, starting in ...`'!r})")
            return
        if decl.per_player:
            owner, receiver = [self.unwatched_value(t.obj, fn, ctx) if t.kind == "field"
                               else "None" for t in (s.source, s.dest)]
            fn.emit(f"check_owners({kind!r}, {owner}, {receiver}, {at})")
        held = self.value(s.source, fn, ctx)  # read as seen: how many move can tell it holds
        fn.emit(f"check_holding({kind!r}, {held}, {at}, False)")
        n = held
        if s.count is not None:
            count = self.value(s.count, fn, ctx)
            n = fn.tmp()
            fn.emit(f"{n} = count_to_move({kind!r}, {count}, {held}, {at})")
        there = self.unwatched_value(s.dest, fn, ctx)
        fn.emit(f"check_holding({kind!r}, {there}, {at}, True)")
        fn.emit(f"if {n} != 0:")
        with fn.indent():
            self._assign(s.source, f"{held} - {n}", fn, ctx)
            there = self.unwatched_value(s.dest, fn, ctx)  # again after taking: a and b may be one
            total = fn.tmp()
            fn.emit(f"{total} = m.num({there} + {n}, {at})")
            self._assign(s.dest, total, fn, ctx)

    # the log and what players see
    def st_log(self, s, fn, ctx, at):
        # A log line leaves no trace in the game (`Machine.traceless`, written out): its steps
        # are counted apart and its draws and structures given back, so a game that keeps no
        # log does not work it out and is the same game, step for step.
        fn.emit("if m.keeps_log:")
        with fn.indent():
            mark = fn.tmp()
            fn.emit(f"{mark} = m.side_begun()")
            fn.emit("try:")
            with fn.indent(block=True):
                if s.to is not None:
                    to = fn.tmp()
                    who = self.value(s.to, fn, ctx)
                    fn.emit(f"{to} = m.log_readers({who}, {at})")
                else:  # the one who chose, inside `simultaneously`
                    to = (f"[env[{CHOOSER!r}].seat] if m.secret_depth and env.get({CHOOSER!r}) "
                          "is not None else None")
                fn.emit(f"m.log({self.value(s.message, fn, ctx)}, {to})")
            fn.emit("finally:")
            fn.emit(f"    m.side_ended({mark})")
            fn.emit(f"m.side_bounded({at})")

    def field_var_key(self, fn, o: str, target) -> str:
        """`Evaluator.field_var_key` of `o.name` (`target`), written out for a player's
        variable when `o` is a player."""
        call = f"m.field_var_key({o}, {target.name!r}, {self.const(target)})"
        if target.name not in self.rules.player_vars:
            return call
        if o in fn.seats:
            return f"({o}.seat, {target.name!r})"
        return f"({o}.seat, {target.name!r}) if type({o}) is Seat else {call}"

    def _target_key(self, target, fn, ctx) -> str:
        """(seat or 0, name) of the state variable `x` or `p.x` a reveal names."""
        if target.kind == "name" and target.id in self.rules.global_vars:
            return repr((0, target.id))
        key = fn.tmp()
        if target.kind == "field":
            o = self.value(target.obj, fn, ctx)
            fn.emit(f"{key} = {self.field_var_key(fn, o, target)}")
        else:
            fn.emit(f"{key} = m.var_key({self.const(target)}, env)")  # raises: not a variable
        return key

    def st_reveal(self, s, fn, ctx, at):
        key = self._target_key(s.target, fn, ctx)
        who = self.value(s.to, fn, ctx) if s.to is not None else "None"
        fn.emit(f"m.reveal_key({key}, {who}, {at})")

    def st_hide(self, s, fn, ctx, at):
        fn.emit(f"m.hide_key({self._target_key(s.target, fn, ctx)})")

    def st_rotate(self, s, fn, ctx, at):
        fn.emit(f"m.rotate({at}, {self.value(s.among, fn, ctx)})")

    def st_require(self, s, fn, ctx, at):
        t = self._test(s.test, fn, ctx)
        fn.emit(f"if not {t}:")
        with fn.indent():
            fn.emit(f"m.require_failed({self.value(s.message, fn, ctx)}, {at})")

    def st_stop(self, s, fn, ctx, at):
        fn.emit(f"m.signal({at})")

    st_pass = st_end_game = st_stop

    # ----------------------------------------------------------- statements holding blocks
    def _test(self, test, fn, ctx) -> str:
        """A condition's value, refused when it is not yes or no."""
        t = self.value(test, fn, ctx)
        if not self.yes_no(test):
            fn.emit(f"if {t} is not True and {t} is not False: m.truth({t}, "
                    f"{self.const(test)})")
        return t

    def _branches(self, fn, ctx, k: str, blocks: list) -> None:
        """Resumable: the block of `blocks` ((key, statements)) whose key `k` holds, or the one
        the routine resumes in."""
        branch = "if"
        for key, stmts in blocks:
            if not stmts:
                continue
            guard = fn.placeholder()
            lo = fn.routine.next_label
            with fn.indent():
                self._rbody(stmts, fn, ctx.child())
            fn.fill(guard, [f"{branch} {self._resuming(fn, lo, f'not rs and {k} == {key} or ')}:"])
            branch = "elif"

    def st_if(self, s, fn, ctx, at):
        if ctx.resumable:
            k = fn.tmp()
            fn.emit("if not rs:")
            with fn.indent():
                self._first_that_holds(s, fn, ctx, lambda j: fn.emit(f"{k} = {j}"))
            self._branches(fn, ctx, k, [(j, b.body) for j, b in enumerate(s.branches)]
                           + [(-1, s.otherwise)])
            return
        self._first_that_holds(s, fn, ctx, lambda j: self._body(
            s.branches[j].body if j >= 0 else s.otherwise or [], fn, ctx.nested()))

    def _first_that_holds(self, s, fn, ctx, then) -> None:
        """`then(j)` for the first branch j of an `if` whose test holds (-1: none does)."""
        self._cascade(fn, [lambda b=b: self._test(b.test, fn, ctx) for b in s.branches], then,
                      lambda: then(-1))

    @staticmethod
    def _cascade(fn, tests, then, otherwise) -> None:
        """`then(j)` under the first of `tests` that holds, else `otherwise()`: each test writes
        the code it needs (run only when the tests before it failed) and gives the condition, or
        None for one that always holds."""
        opened = 0
        for j, test in enumerate(tests):
            t = test()
            if t is None:
                then(j)
                break
            fn.emit(f"if {t}:")
            with fn.indent():
                then(j)
            fn.emit("else:")
            fn.depth += 1
            opened += 1
        else:
            otherwise()
        fn.depth -= opened

    def st_match_stmt(self, s, fn, ctx, at):
        def arm(then):
            v = self.value(s.subject, fn, ctx)

            def test(a):
                if a.value is None:  # `else`
                    return None
                c = self.value(a.value, fn, ctx)
                return f"{v} is {c} or m.same({v}, {c})"
            self._cascade(fn, [lambda a=a: test(a) for a in s.arms], then,
                          lambda: fn.emit(f"m.no_arm({v}, {at})"))

        if ctx.resumable:
            k = fn.tmp()
            fn.emit("if not rs:")
            with fn.indent():
                arm(lambda j: fn.emit(f"{k} = {j}"))
            self._branches(fn, ctx, k, [(j, a.body) for j, a in enumerate(s.arms)])
            return
        arm(lambda j: self._body(s.arms[j].body, fn, ctx.nested()))

    def st_step(self, s, fn, ctx, at):
        if ctx.resumable:
            self._rbody(s.body, fn, ctx.child())
        else:
            self._body(s.body, fn, ctx.nested())

    st_cited = st_step

    def _started(self, fn, kinds: tuple, names: list[str], kept, ctx, bound, start) -> None:
        """Resumable: the locals a statement keeps (`names`, of `kinds`, and the values its
        bindings `bound` replace, `kept`), set by `start()` when it starts, or taken back from
        the frame when the routine resumes inside it."""
        self.open(fn, kinds + tuple("value" for x in kept if x), names + [x for x in kept if x])
        fn.emit("if not rs:")
        with fn.indent():
            start()
            for n, x in zip(bound, kept):
                if x:
                    fn.emit(f"{x} = env[{n!r}]")
        fn.emit("else:")
        with fn.indent():
            self.restore(fn)

    def _until_stopped(self, fn, write) -> None:
        """A loop that `stop` ends (wherever in what it runs the `stop` is met)."""
        fn.emit("try:")
        with fn.indent(block=True):
            write()
        fn.emit("except Signal as e:")
        fn.emit("    if e.kind != 'stop': raise")

    def _loop(self, fn, ctx, names: tuple, body, head, catches: str = "stop",
              kept: list | None = None) -> None:
        """Resumable: a loop of a routine, `while True:` whose `head()` (run when the routine is
        not resuming inside the body) goes on to the next turn or `break`s, binding `names`
        in the frame's names; `catches` ends it; the names are as before once it has ended."""
        kept = kept or [None] * len(names)
        fn.emit("try:")
        with fn.indent(block=True):
            fn.emit("while True:")
            with fn.indent(block=True):
                fn.emit("if not rs:")
                with fn.indent():
                    head()
                self._rbody(body, fn, ctx.child(names))
        self.handler(fn, body, ctx.sc.env, names, kept, catches)
        self.unbind(fn, names, kept)

    def _walked(self, fn, src: str, binding) -> str:
        """What a `for` walks: a list of its own (`Evaluator.items_of`), which a list the code
        has just made already is (``Function.lists``)."""
        if src in fn.lists:
            return src
        return f"m.items_of({src}, '`for`', {self.const(binding)})"

    def st_for(self, s, fn, ctx, at):
        name = s.binding.name
        if not ctx.resumable:
            src = self.value(s.binding.source, fn, ctx, s.binding.source.kind == "name")
            items, v = fn.tmp(), fn.tmp()
            fn.emit(f"{items} = {self._walked(fn, src, s.binding)}")
            if src in fn.item_lists:  # the rows of a table
                fn.items[v] = fn.item_lists[src]
            elif src in fn.likely_seat_lists:
                fn.likely_seats.add(v)
            inner = ctx.nested()
            inner.sc = inner.sc.bind(name, v)

            def loop():
                fn.emit(f"for {v} in {items}:")
                with fn.indent(block=True):
                    fn.steps("1", at)
                    if s.where is not None:
                        w = self._test(s.where, fn, inner)
                        fn.emit(f"if not {w}: continue")
                    self._body(s.body, fn, inner)
            self._until_stopped(fn, loop)
            return
        kept = self.bind_kept(fn, ctx, [name])
        items, i = fn.tmp(), fn.tmp()

        def start():
            src = self.value(s.binding.source, fn, ctx)
            fn.emit(f"{items} = {self._walked(fn, src, s.binding)}")
            fn.emit(f"{i} = 0")
        self._started(fn, ("list", "index"), [items, i], kept, ctx, [name], start)
        inner = ctx.child([name])

        def head():
            fn.emit(f"if {i} >= len({items}): break")
            fn.emit(f"env[{name!r}] = {items}[{i}]")
            fn.emit(f"{i} += 1")
            fn.steps("1", at)
            if s.where is not None:
                w = self._test(s.where, fn, inner)
                fn.emit(f"if not {w}: continue")
        self._loop(fn, ctx, (name,), s.body, head, kept=kept)
        self.close(fn)

    def st_repeat(self, s, fn, ctx, at):
        if not ctx.resumable:
            n = self.value(s.count, fn, ctx)
            fn.emit(f"if type({n}) is not int: m.repeat_error({at})")

            def loop():
                fn.emit(f"for _ in range({n}):")
                with fn.indent(block=True):
                    fn.steps("1", at)  # a turn of a loop is a step, even with nothing in it
                    self._body(s.body, fn, ctx.nested())
            self._until_stopped(fn, loop)
            return
        n, i = fn.tmp(), fn.tmp()

        def start():
            c = self.value(s.count, fn, ctx)
            fn.emit(f"if type({c}) is not int: m.repeat_error({at})")
            fn.emit(f"{n}, {i} = {c}, 0")
        self._started(fn, ("int", "index"), [n, i], [], ctx, [], start)

        def head():
            fn.emit(f"if {i} >= {n}: break")
            fn.emit(f"{i} += 1")
            fn.steps("1", at)
        self._loop(fn, ctx, (), s.body, head)
        self.close(fn)

    def st_while(self, s, fn, ctx, at):
        def head():
            t = self._test(s.test, fn, ctx)
            fn.emit(f"if not {t}: break")
            fn.steps("1", at)
        if ctx.resumable:
            self._loop(fn, ctx, (), s.body, head)
            return

        def loop():
            fn.emit("while True:")
            with fn.indent(block=True):
                head()
                self._body(s.body, fn, ctx.nested())
        self._until_stopped(fn, loop)

    def st_rounds(self, s, fn, ctx, at):
        """`rounds` (always resumable: a game's rounds hold its decisions)."""
        counted = s.mode == "count"
        n, i = fn.tmp(), fn.tmp()

        def start():
            c = self.value(s.expr, fn, ctx)
            fn.emit(f"if type({c}) is not int: m.rounds_error({c}, {self.const(s.expr)})")
            fn.emit(f"{n}, {i} = {c}, 0")
        if counted:
            self._started(fn, ("int", "index"), [n, i], [], ctx, [], start)

        def head():
            if counted:
                fn.emit(f"if {i} >= {n}: break")
                fn.emit(f"{i} += 1")
            elif s.mode == "until":
                t = self._test(s.expr, fn, ctx)
                fn.emit(f"if {t}: break")
            fn.steps("1", at)
            st = fn.use("st")
            fn.emit(f"{st}.round += 1")
            fn.emit(f"if m.keeps_log: m.log('Round ' + str({st}.round), kind='round')")
        self._loop(fn, ctx, (), s.body, head)
        if counted:
            self.close(fn)

    def st_phase(self, s, fn, ctx, at):
        st = fn.use("st")

        def enter(prev):
            fn.emit(f"{prev} = {st}.phase")
            fn.emit(f"if {prev} is None: {prev} = {s.name!r}")
            fn.emit(f"{st}.phase = {s.name!r}")
            fn.emit(f"if m.keeps_log: m.log({'Phase: ' + s.name!r}, kind='phase')")

        if s.when is None:
            self._scoped(fn, ctx, s.body, enter, lambda prev: f"{st}.phase = {prev}", "phase")
            return
        ok = fn.tmp()  # whether it runs (resumable: it did, when the routine resumes in it)
        if ctx.resumable:
            fn.emit(f"{ok} = rs != 0")
            fn.emit("if not rs:")
            fn.depth += 1
        fn.emit(f"{ok} = {self._test(s.when, fn, ctx)}")
        if ctx.resumable:
            fn.depth -= 1
        fn.emit(f"if {ok}:")
        with fn.indent():
            self._scoped(fn, ctx, s.body, enter, lambda prev: f"{st}.phase = {prev}", "phase")

    def _scoped(self, fn, ctx, body, enter, undo, kind: str) -> None:
        """A block run with a value of the state changed for it (`enter(prev)` keeps the one
        it replaces in `prev`; `undo(prev)` the code putting it back), put back after it and
        when a signal passes through."""
        prev = fn.tmp()
        if not ctx.resumable:
            enter(prev)
            fn.emit("try:")
            with fn.indent(block=True):
                self._body(body, fn, ctx.nested())
            fn.emit("finally:")
            fn.emit("    " + undo(prev))
            return
        self._started(fn, (kind,), [prev], [], ctx, [], lambda: enter(prev))
        self._restoring(fn, ctx, body, undo(prev))
        self.close(fn)

    def _restoring(self, fn, ctx, body, undo: str) -> None:
        """Resumable: `body`, then `undo`, which a signal passing through does too."""
        fn.emit("try:")
        with fn.indent(block=True):
            self._rbody(body, fn, ctx.child())
        fn.emit("except Signal:")
        with fn.indent():
            fn.emit(undo)
            for n in sorted(lets_within(body) - set(ctx.sc.env or ())):
                fn.emit(f"env.pop({n!r}, None)")
            fn.emit("raise")
        fn.emit(undo)

    def st_turn(self, s, fn, ctx, at):
        st = fn.use("st")

        def enter(prev):
            p = self.value(s.player, fn, ctx)
            fn.emit(f"{prev} = {st}.current")
            fn.emit(f"{st}.current = {p}")
            fn.emit(f"{st}.turns += 1")
        self._scoped(fn, ctx, s.body, enter, lambda prev: f"{st}.current = {prev}", "value")

    def st_turns(self, s, fn, ctx, at):
        """`turns` (always resumable): one action per turn, round and round, skipping those who
        passed, until all did."""
        st, name = fn.use("st"), s.binding.name
        kept = self.bind_kept(fn, ctx, [name])
        order, i, passed, player, prev = [fn.tmp() for _ in range(5)]

        def start():
            src = self.value(s.binding.source, fn, ctx)
            fn.emit(f"if type({src}) is not list: m.turns_error({self.const(s.binding)})")
            fn.emit(f"{order}, {i}, {passed}, {player}, {prev} = {src}, 0, set(), None, None")
        self._started(fn, ("list", "index", "players", "value", "before"),
                      [order, i, passed, player, prev], kept, ctx, [name], start)

        def head():
            fn.emit(f"if {prev} is not None:")  # a turn just ended
            fn.emit(f"    {st}.current, {player}, {prev} = {prev}[0], None, None")
            fn.emit(f"while len({passed}) < len({order}):")
            with fn.indent(block=True):
                fn.emit(f"if {i} >= len({order}): {i} = 0")
                fn.emit(f"{i} += 1")
                fn.emit(f"if {i} - 1 in {passed}: continue")
                fn.steps("1", at)
                fn.emit(f"{st}.turns += 1")
                fn.emit(f"{prev}, {player} = ({st}.current,), {i} - 1")
                fn.emit(f"{st}.current = env[{name!r}] = {order}[{i} - 1]")
                fn.emit("break")
            fn.emit("else:")
            fn.emit("    break")
        self._turn_loop(fn, ctx, s.body, name, kept, prev, head,
                        f"{passed}.add({player})")
        self.close(fn)

    def st_turns_from(self, s, fn, ctx, at):
        """`turns p from a then e until c` (always resumable): turns in an order the rules
        compute, the next player read after each turn, until `c` holds (read before each)."""
        st, name = fn.use("st"), s.name
        kept = self.bind_kept(fn, ctx, [name])
        player, prev = fn.tmp(), fn.tmp()
        inner = ctx.child([name])

        def start():
            fn.emit(f"{player}, {prev} = {self.value(s.start, fn, ctx)}, None")
        self._started(fn, ("value", "before"), [player, prev], kept, ctx, [name], start)

        def head():
            fn.emit(f"if {prev} is not None:")  # a turn just ended: who is next?
            with fn.indent():
                fn.emit(f"{st}.current, {prev} = {prev}[0], None")
                fn.emit(f"env[{name!r}] = {player}")
                then = self.value(s.then, fn, inner)
                fn.emit(f"{player} = {then}")
            fn.steps("1", at)
            fn.emit(f"env[{name!r}] = {player}")
            t = self._test(s.until, fn, inner)
            fn.emit(f"if {t}: break")
            fn.emit(f"if type({player}) is not Seat: m.turn_without_player({player}, "
                    f"{self.const(s.then)} if {st}.turns else {self.const(s.start)})")
            fn.emit(f"{st}.turns += 1")
            fn.emit(f"{prev}, {st}.current = ({st}.current,), {player}")
        self._turn_loop(fn, ctx, s.body, name, kept, prev, head, None)
        self.close(fn)

    def _turn_loop(self, fn, ctx, body, name, kept, prev: str, head, passes) -> None:
        """Resumable: the loop of `turns`: `pass` in the body ends the turn (`passes`: what it
        does besides), `stop` the loop; the current player is restored when it ends."""
        st = fn.use("st")
        fn.emit("try:")
        with fn.indent(block=True):
            fn.emit("while True:")
            with fn.indent(block=True):
                fn.emit("if not rs:")
                with fn.indent():
                    head()
                fn.emit("try:")
                with fn.indent(block=True):
                    self._rbody(body, fn, ctx.child([name]))
                self.handler(fn, body, ctx.sc.env | {name}, (), [], "pass")
                if passes:
                    fn.emit(f"    {passes}")
        fn.emit("except Signal as e:")
        with fn.indent():
            fn.emit(f"if {prev} is not None: {st}.current = {prev}[0]")
            self.unbind(fn, [name], kept)
            fn.emit("if e.kind != 'stop': raise")
        self.unbind(fn, [name], kept)

    def st_do(self, s, fn, ctx, at):
        decl = self.rules.procedures.get(s.name)
        if decl is None:
            fn.emit(f"m.unknown_procedure({at})")
            return
        key = ("procedure", s.name)
        if ctx.resumable and s.name not in self.inlining.procedures:
            self._call_site(fn, s, ctx.sc.env, lambda: self._call(key, decl, s.args, fn, ctx, at))
            return
        self._call(key, decl, s.args, fn, ctx, at)

    def _call(self, key, decl, args, fn, ctx, at, values: list[str] | None = None) -> None:
        """Run a procedure's or handler's block one call deeper, with its parameters and who
        made the decision being carried out (for its log lines in secret decisions): a
        function when it never waits, else its routine in a frame of its own (`d` its
        decision, in a call site of a routine)."""
        if values is None:
            values = [self.value(a, fn, ctx) for a in args]
        if len(values) != len(decl.params):
            what = key[1] if key[0] == "procedure" else key[1] + " handlers"
            fn.emit(f"m.wrong_arity({at}, {what!r}, {len(decl.params)}, {len(values)})")
            if ctx.resumable:
                fn.emit("d = None")
            return
        # the called block's names: its parameters, and who made the decision being carried
        # out (so that its log lines inside a secret decision stay private to that player)
        env = fn.tmp()
        fn.emit(f"{env} = {{{', '.join(f'{p!r}: {v}' for p, v in zip(decl.params, values))}}}")
        fn.emit(f"if {CHOOSER!r} in env: {env}[{CHOOSER!r}] = env[{CHOOSER!r}]")
        # `Effects.enter_call`, written out: too deep raises there; a call is a step
        fn.guard(f"if {fn.use('DEEP')}: m.enter_call({ctx.depth}, {at})")  # (`ctx.depth`'s)
        fn.steps("1", at)
        never_waits = (key[1] in self.inlining.procedures if key[0] == "procedure"
                       else key[1] in self.inlining.events)
        if never_waits:
            fn.emit(f"{self.procedure(key, decl.params, decl.body)}(m, {ctx.depth} + 1, {env})")
            fn.emit(f"m.depth = {ctx.depth}")
            if ctx.resumable:
                fn.emit("d = None")
            return
        k = self.const(self.routine_of(key, decl.params, decl.body))
        fn.emit(f"nf = RoutineFrame({k}, {env}, {ctx.depth} + 1)")
        fn.emit("S.append(nf)")
        fn.emit(f"d = {k}.fn(m, S, nf)")

    def st_trigger(self, s, fn, ctx, at):
        handlers = self.rules.events.get(s.event, ())
        if not (ctx.resumable and s.event not in self.inlining.events):
            values = [self.value(a, fn, ctx) for a in s.args]
            for k, h in enumerate(handlers):
                self._call(("event", s.event, k), h, s.args, fn, ctx, at, values)
                if len(h.params) != len(values):
                    return
            return
        # the handlers run in turn, any of them may wait: the values they are given are kept
        values = self.open(fn, tuple("value" for _ in s.args))
        fn.emit("if not rs:")
        with fn.indent():
            for v, a in zip(values, s.args):
                fn.emit(f"{v} = {self.value(a, fn, ctx)}")
            if not s.args:
                fn.emit("pass")
        fn.emit("else:")
        with fn.indent():
            self.restore(fn)
        for k, h in enumerate(handlers):
            self._call_site(fn, s, ctx.sc.env, lambda: self._call(
                ("event", s.event, k), h, s.args, fn, ctx, at, values))
            if len(h.params) != len(values):
                break
        self.close(fn)

    def st_award(self, s, fn, ctx, at):
        from .codegen import sort_keys_of

        name, groups = s.binding.name, fn.tmp()

        def given():  # (player, amount) for each ranked player whose rank earns something
            amounts = self.value(s.amounts, fn, ctx)
            fn.emit(f"m.award_amounts({amounts}, {at})")
            with fn.expression():
                rows = self._rows(fn, ctx.sc, s.binding, s.where, sort_keys_of(s.keys))
            fn.emit(f"{groups} = m.award_groups({amounts}, m.order({rows}, {at}), {at})")

        if not ctx.resumable:
            given()
            p, amount = fn.tmp(), fn.tmp()
            inner = ctx.nested()
            inner.sc = inner.sc.bind(name, p).bind("amount", amount)
            fn.emit(f"for {p}, {amount} in {groups}:")
            with fn.indent(block=True):
                self._body(s.body, fn, inner)
            return
        names, i = (name, "amount"), fn.tmp()
        kept = self.bind_kept(fn, ctx, names)
        self._started(fn, ("list", "index"), [groups, i], kept, ctx, names,
                      lambda: (given(), fn.emit(f"{i} = 0")))

        def head():
            fn.emit(f"if {i} >= len({groups}): break")
            fn.emit(f"env[{name!r}], env['amount'] = {groups}[{i}]")
            fn.emit(f"{i} += 1")
        self._loop(fn, ctx, names, s.body, head, catches=None, kept=kept)
        self.close(fn)

    # ------------------------------------------------------------------------- decisions
    def st_choose(self, s, fn, ctx, at):
        """`choose` (always resumable): the decision is asked and the routine waits; given
        the answer, the chosen option's block runs with its names (and who chose). `repeat
        choose` asks again until the player is done; `otherwise` runs when nothing is legal."""
        code = ChooseCode(self, s, ctx.sc.env)
        blocks = [(j, o.body, o) for j, o in enumerate(s.options)]
        if s.otherwise is not None and not s.repeat:
            blocks.append((-2, s.otherwise, None))
        if s.repeat:
            self._asked_again(fn, ctx, s, lambda: self._decision(fn, ctx, s, code, blocks, at),
                              catches="stop")
        else:
            self._decision(fn, ctx, s, code, blocks, at)

    def st_compose(self, s, fn, ctx, at):
        """`compose` (always resumable): the step asked is the first whose `until` does not
        hold, read from the state each time; once every step holds the player confirms (the
        decision is made) or starts over (the `start over` block runs) and is asked again."""
        code = ComposeCode(self, s, ctx.sc.env)
        blocks = [(j, o.body, o) for j, o in enumerate(o for st in s.steps for o in st.options)]
        if s.start_over is not None:
            blocks.append((-1, s.start_over, None))
        self._asked_again(fn, ctx, s, lambda: self._decision(fn, ctx, s, code, blocks, at),
                          catches=None)

    def _asked_again(self, fn, ctx, s, decision, catches: str | None) -> None:
        """A decision asked until the player is done: `repeat choose` (which `stop` ends) and
        `compose`."""
        if catches:
            fn.emit("try:")
            fn.depth += 1
            fn.blocks += 1
        fn.emit("while True:")
        with fn.indent(block=True):
            decision()
        if catches:
            fn.depth -= 1
            fn.blocks -= 1
            self.handler(fn, [x for b in _bodies(s) for x in b], ctx.sc.env, (), [], catches)

    def _decision(self, fn, ctx, s, code, blocks: list, at) -> None:
        """A decision: asked (`m.decide`), waited for, and the block of the option taken run
        with its names and who chose (`blocks`: (key, statements, option): an option's
        position, -1 `start over`, -2 `otherwise`)."""
        again = s.kind == "compose" or s.repeat
        k, oid, who = fn.tmp(), fn.tmp(), fn.tmp()
        bound = sorted({b.name for _, _, o in blocks if o is not None for b in o.bindings})
        kept = self.bind_kept(fn, ctx, bound)
        chooser = fn.tmp()
        kc = self.const(code)
        label = fn.routine.next_label  # where it waits
        # asked again with nothing to choose (a `given` changed the state): asked anew
        fn.emit(f"if rs == {label} and F.chosen is None: rs = 0")
        fn.emit("if not rs:")
        with fn.indent():
            if again:
                fn.steps("1", at)  # each time it is asked
            # bots that pick by position answer at once, where it is asked (``Game.answer_now``)
            fn.emit(f"d = m.decide({kc}, env) if m.answer_now is None else "
                    f"m.answer_now.ask({kc}, env, S, F, {label})")
            fn.emit("if d is None:")
            if again:
                fn.emit("    break")
            else:  # `otherwise` (or nothing) runs; what an option's block keeps is nothing
                fn.emit(f"    {k} = -2")
                for x in [chooser] + [x for x in kept if x]:
                    fn.emit(f"    {x} = None")
            fn.emit("elif d is True:")
            fn.emit(f"    rs = {label}")
            fn.emit("else:")
            with fn.indent():
                fn.emit("F.decision = d")
                self.wait(fn, code, s, ctx.sc.env, label)
        fn.emit(f"if rs == {label}:")
        with fn.indent():
            fn.emit("rs = 0")
            # the option taken (``Decision.entry``): its id, its code (None: the engine's
            # own), the values its bindings took
            option, values = fn.tmp(), fn.tmp()
            fn.emit(f"({oid}, {option}, {values}), {who} = F.chosen")
            fn.emit("F.chosen = None")
            if s.kind == "compose":  # confirmed: the decision is made
                fn.emit(f"if {option} is None and {oid} == {A.COMPOSE_DONE!r}: break")
            elif again:  # the `done` the rules add ends the loop; `skip` asks again
                fn.emit(f"if {option} is None:")
                fn.emit(f"    if {oid} == {DONE!r}: break")
                fn.emit("    continue")
            # -1 starts a composed decision over; -3 is `skip`: no block runs
            fn.emit(f"{k} = {option}.index if {option} is not None else "
                    f"{-1 if s.kind == 'compose' else -3}")
            fn.emit(f"if {k} >= -1:")
            with fn.indent():
                fn.emit(f"{chooser} = env.get({CHOOSER!r})")
                for n, x in zip(bound, kept):
                    if x:
                        fn.emit(f"{x} = env[{n!r}]")
                fn.emit(f"env[{CHOOSER!r}] = {who}")
                self._bind_option(fn, k, option, values, blocks)
        # what it keeps while an option's block runs (saved at waits inside it)
        self.open(fn, ("value",) + tuple("value" for x in kept if x),
                  [chooser] + [x for x in kept if x])
        resume = fn.placeholder()  # resuming inside an option's block: which, what it kept
        ranges = []
        fn.emit("try:")
        with fn.indent(block=True):
            branch = "if"
            for key, stmts, o in blocks:
                lo = fn.routine.next_label
                fn.emit(f"{branch} {k} == {key}:")
                with fn.indent():
                    names = ([b.name for b in o.bindings] if o is not None else []) + (
                        [CHOOSER] if key >= -1 else [])
                    self._rbody(stmts, fn, ctx.child(names))
                    if s.kind == "choose" and again and o is not None and o.name == DONE:
                        fn.emit("break")  # an option the rules call `done` ends the loop
                ranges.append((key, lo, fn.routine.next_label - 1))
                branch = "elif"
            if not blocks:
                fn.emit("pass")
        inside = [x for _, b, _ in blocks for x in b]
        fn.emit("except Signal:")
        with fn.indent():
            self._unbind_option(fn, k, chooser, bound, kept)
            for n in sorted(lets_within(inside) - set(ctx.sc.env or ()) - set(bound)):
                fn.emit(f"env.pop({n!r}, None)")
            fn.emit("raise")
        self._unbind_option(fn, k, chooser, bound, kept)
        lines = [f"{'el' if i else ''}if {lo} <= rs <= {hi}: {k} = {key}"
                 for i, (key, lo, hi) in enumerate(r for r in ranges if r[2] >= r[1])]
        if lines:
            fn.fill(resume, ["elif rs:", *["    " + x for x in lines + self.restored(fn)]])
        else:
            fn.fill(resume, [])
        self.close(fn)

    @staticmethod
    def _bind_option(fn, k: str, option: str, values: str, blocks: list) -> None:
        """The names the option taken (the `k`th) binds, given the values they took: written
        name by name when few options bind any, else looked up from the option."""
        binding = [(key, [b.name for b in o.bindings]) for key, _, o in blocks
                   if o is not None and o.bindings]
        if len(binding) > 4:
            fn.emit(f"if {k} >= 0: env.update(zip({option}.names, {values}))")
            return
        for i, (key, names) in enumerate(binding):
            targets = ", ".join(f"env[{n!r}]" for n in names) + ("," if len(names) == 1 else "")
            fn.emit(f"{'el' if i else ''}if {k} == {key}: {targets} = {values}")

    def _unbind_option(self, fn, k: str, chooser: str, names, kept) -> None:
        """After an option's block (or a signal through it): the names it bound are gone, and
        who chose is who chose before (in a decision inside another's option)."""
        fn.emit(f"if {k} >= -1:")
        with fn.indent():
            fn.emit(f"if {chooser} is None: env.pop({CHOOSER!r}, None)")
            fn.emit(f"else: env[{CHOOSER!r}] = {chooser}")
            self.unbind(fn, names, kept)

    def st_simultaneously(self, s, fn, ctx, at):
        """`simultaneously` (always resumable): each player's part runs in a stack of its own
        (``flow.SimFrame``), one routine for all of them."""
        name = s.binding.name
        part = self.routine(s.body, ctx.sc.env | {name}, s)
        k = self.const(part)

        def call():
            src = self.value(s.binding.source, fn, ctx)
            fn.emit(f"if type({src}) is not list: m.simultaneously_error({self.const(s.binding)})")
            parts, p = fn.tmp(), fn.tmp()
            fn.emit(f"{parts} = []")
            fn.emit(f"for {p} in list({src}):")
            with fn.indent(block=True):
                fn.steps("1", at)
                fn.emit(f"{parts}.append([RoutineFrame({k}, {{**env, {name!r}: {p}}}, depth)])")
            fn.emit(f"S.append(SimFrame({k}, {parts}))")
            fn.emit("d = m.descend(S, len(S) - 1)")
        self._call_site(fn, s, ctx.sc.env, call)


__all__ = ["Statements", "Inlining"]
