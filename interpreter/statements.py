"""Statements written out as Python, generated from the AST like expressions (``codegen.py``).

A statement that can run to its end without waiting for a decision is written out: a run of
such statements in a block becomes one generated function (a *segment*, ``flow.Segment``), and
`if`, `for`, `phase`, `do`, ... whose bodies never wait are written out whole, their bodies
inline, their names Python locals. A statement that may wait (a `choose`, or one holding one,
or calling a procedure that does) runs in the frames of ``flow.py``, which say where the flow
stands; its bodies are blocks, compiled in turn into segments and frames. So a game's flow is
still plain data between decisions, while what happens between two decisions runs as straight
Python.

The work of each statement is written here once, calling ``effects.Effects`` for every check
and change of the state. Every statement costs a step and sets `at`, the statement blamed for
an error raised without one (a full log, memory).
"""
from __future__ import annotations

from ..grammar import ast as A
from .flow import CHOOSER

# A value stored as it is (no list, map, grid or structure, which are copied and checked), and
# two such values the same (``Evaluator.same``): a change to note only when they differ.
_PLAIN_TEST = ("(type({v}) is int or type({v}) is str or type({v}) is bool or {v} is None or "
               "type({v}) is Sym or type({v}) is Item or type({v}) is Seat)")
_SAME = ("({a} is {b} or type({a}) is type({b}) and (type({b}) is int or type({b}) is str) "
         "and {a} == {b})")


def _plain(fn, v: str) -> str:
    """The test that `v` is a plain value, or `True` for a literal (`None`, `(3)`) or a local
    known to hold a number or a player (``codegen.Function.ints``)."""
    if v == "None" or v.startswith("(") or v in fn.ints or v in fn.seats:
        return "True"
    return _PLAIN_TEST.format(v=v)


def _same(fn, a: str, b: str) -> str:
    """`_SAME`, for a `b` known to be a number in one test fewer."""
    return f"({a} is {b} or type({a}) is int and {a} == {b})" if b in fn.ints \
        else _SAME.format(a=a, b=b)


# Statements written out whole when what they hold is too; the others run in frames.
_SIMPLE = frozenset({
    "let", "set", "change", "move", "add", "remove", "shuffle", "log", "require", "reveal",
    "hide", "rotate", "move_pieces", "slide", "stop", "pass", "end_game",
})
_COMPOUND = frozenset({
    "if", "match_stmt", "step", "cited", "for", "repeat", "while", "phase", "turn", "do",
    "trigger", "award",
})
# Whether statements that hold blocks are written out whole when they can be (turned off by
# tests that compare the two ways of running the same rules).
WRITE_OUT_WHOLE = True
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
    if kind in ("choose",):
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
    into the frame's names (`top`: a block run in a frame, whose later statements may read
    them) or are Python locals, and the code of the depth of calls."""

    __slots__ = ("sc", "top", "depth")

    def __init__(self, sc, top: bool, depth: str):
        self.sc, self.top, self.depth = sc, top, depth

    def nested(self) -> "_Block":
        return _Block(self.sc, False, self.depth)


class Statements:
    """The statement half of ``codegen.Generator``."""

    # --------------------------------------------------------------------------- entries
    def segment(self, stmts, scope: frozenset):
        """A function `f(machine, frame)` running `stmts` (each written out whole) in a
        block's frame, its first statement already charged by the frame. The scope after."""
        from .codegen import Function, Names

        fn = Function(self, self._fresh("s"), "m, F", "env")
        fn.depth_fixed = False
        fn.emit("env = F.env")
        fn.emit("depth = F.depth")
        ctx = _Block(Names({}, scope), True, "depth")
        self._guarded(fn, lambda: [self.statement(s, fn, ctx, tick=i > 0)
                                   for i, s in enumerate(stmts)])
        return self._function(fn), ctx.sc.env

    def procedure(self, key: tuple, params, body) -> str:
        """The function running a procedure's (or an event handler's) block written out
        whole: `f(machine, depth, env)` (`key` names the declaration)."""
        from .codegen import Function, Names

        fname = self._procedures.get(key)
        if fname is None:
            fname = self._procedures[key] = self._fresh("p")
            fn = Function(self, fname, "m, depth, env", "env")
            fn.depth_fixed = False
            fn.emit("m.depth = depth")
            ctx = _Block(Names({}, frozenset(params)), True, "depth")
            self._guarded(fn, lambda: [self.statement(s, fn, ctx) for s in body])
            self._function(fn, stub=False)
        return fname

    def _guarded(self, fn, write) -> None:
        """Statements whose errors raised without a node blame the statement running."""
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

    # ------------------------------------------------------------------------ statements
    def statement(self, s, fn, ctx: _Block, tick: bool = True) -> None:
        at = self.const(s)
        fn.emit(f"at = {at}")
        if tick:
            fn.steps("1", "at")
        getattr(self, "st_" + s.kind)(s, fn, ctx, at)

    def _body(self, stmts, fn, ctx: _Block) -> None:
        before = len(fn.lines)
        for s in stmts:
            self.statement(s, fn, ctx)
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
                # a plain value that is no list, map, grid or structure is stored as it is
                fn.emit(f"if {_plain(fn, v)}:")
                with fn.indent():
                    old = fn.tmp()
                    fn.emit(f"{old} = {fn.use('G')}.get({name!r})")
                    fn.emit(f"if not {_same(fn, old, v)}:")
                    fn.emit(f"    {fn.use('G')}[{name!r}] = {v}")
                    fn.emit(f"    m.changed({(0, name)!r}, {self.const(decl)})")
                fn.emit("else:")
                fn.emit(f"    m.store_global({name!r}, {self.const(decl)}, {v}, {t})")
            else:
                fn.emit(f"m.assign_global({name!r}, {v}, {t})")
        elif kind == "field":
            o = self.value(target.obj, fn, ctx)
            name = target.name
            decl = rules.player_vars.get(name)
            if decl is not None and name not in self._field_names:  # only a player's
                seat = "True" if o in fn.seats else f"type({o}) is Seat"
                fn.emit(f"if {seat} and {_plain(fn, v)}:")
                with fn.indent():
                    w = self._clamped(decl, v, f"{{'me': {o}}}", fn)
                    old = fn.tmp()
                    fn.emit(f"{old} = {o}.vars.get({name!r})")
                    fn.emit(f"if not {_same(fn, old, w)}:")
                    fn.emit(f"    {o}.vars[{name!r}] = {w}")
                    fn.emit(f"    m.changed(({o}.seat, {name!r}), {self.const(decl)})")
                fn.emit("else:")
                fn.emit(f"    m.assign_field({o}, {name!r}, {v}, {t})")
            else:
                fn.emit(f"m.assign_field({o}, {name!r}, {v}, {t})")
        elif kind == "index":
            o = self.value(target.obj, fn, ctx)
            idx = [self.value(i, fn, ctx) for i in target.indices]
            if len(idx) == 2:
                r, c = idx
                numbers = "".join(f" and type({x}) is int" for x in idx if x not in fn.ints)
                fn.emit(f"if type({o}) is Grid{numbers} and "
                        f"1 <= {r} <= {o}.rows and 1 <= {c} <= {o}.columns and "
                        f"{_plain(fn, v)}:")
                fn.emit(f"    {o}.cells[({r} - 1) * {o}.columns + {c} - 1] = {v}")
                fn.emit("else:")
                fn.emit(f"    m.assign_index({o}, [{r}, {c}], {v}, {t})")
            else:
                fn.emit(f"m.assign_index({o}, [{', '.join(idx)}], {v}, {t})")
            fn.emit(f"m.changed({self._place_key(target.obj, fn, ctx)}, None, {o})")
        else:
            fn.emit(f"m.cannot_assign({t})")

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
            maxn = fn.use("MAXN")
            fn.emit(f"if not -{maxn} <= {v} <= {maxn}: m.num({v}, {at})")
        fn.emit("else:")
        fn.emit(f"    {v} = m.change_error({at}, {cur}, {amount})")  # raises
        fn.ints.add(v)
        self._assign(s.target, v, fn, ctx)

    # places
    def _place_key(self, node, fn, ctx) -> str:
        """(seat or 0, name) when `node` is (in) a state variable (a zone being changed), else
        None; never raises (the statement's own evaluation reports any error)."""
        if node.kind == "name" and not self._is_local(node.id, ctx):
            return repr((0, node.id)) if node.id in self.rules.global_vars else "None"
        if node.kind == "index":
            return self._place_key(node.obj, fn, ctx)
        if node.kind != "field":
            return "None"
        if node.obj.kind == "name" and self._is_local(node.obj.id, ctx):  # cannot fail
            return f"m.var_key_of({self.value(node.obj, fn, ctx)}, {node.name!r})"
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
                idx = [self.value(i, fn, ctx) for i in place.indices]
                fn.emit(f"{c} = ({g}, m.grid_pos({g}, [{', '.join(idx)}], {at}))")
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
            fn.emit(f"m.changed({self._place_key(s.dest, fn, ctx)}, None)")
            fn.emit(f"m.note_moved([{item}])")
            return
        src = self._container(s.source, fn, ctx)
        dst = self._container(s.dest, fn, ctx, watched=False)
        moved = fn.tmp()
        if s.what == "one":
            item = self.value(s.item, fn, ctx)
            fn.emit(f"m.take({src}, {item}, {at})")
            fn.emit(f"{moved} = [{item}]")
        elif s.what == "all":
            fn.emit(f"{moved} = m.take_all({src})")
        else:
            n = self.value(s.item, fn, ctx)
            fn.emit(f"if type({n}) is not int or {n} < 0: m.bad_top({at})")
            fn.emit(f"{moved} = m.take_top({src}, {n})")
        fn.emit(f"m.put({dst}, {moved}, {place}, {at})")
        fn.emit(f"m.changed({self._place_key(s.source, fn, ctx)}, None)")
        fn.emit(f"m.changed({self._place_key(s.dest, fn, ctx)}, None)")
        fn.emit(f"m.note_moved({moved})")

    def st_add(self, s, fn, ctx, at):
        dst = self._container(s.dest, fn, ctx, watched=False)
        v = self.value(s.value, fn, ctx)
        fn.emit(f"m.put({dst}, [{v}], {s.place!r}, {at})")
        fn.emit(f"m.changed({self._place_key(s.dest, fn, ctx)}, None)")

    def st_remove(self, s, fn, ctx, at):
        src = self._container(s.source, fn, ctx, watched=False)
        v = self.value(s.value, fn, ctx)
        fn.emit(f"m.take({src}, {v}, {at})")
        fn.emit(f"m.changed({self._place_key(s.source, fn, ctx)}, None)")

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
            fn.emit(f"m.changed({self._place_key(s.target, fn, ctx)}, None)")
            fn.emit(f"m.note_moved({moved})")

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
        to = fn.tmp()
        if s.to is not None:
            who = self.value(s.to, fn, ctx)
            fn.emit(f"{to} = m.log_readers({who}, {at})")
        else:
            fn.emit(f"{to} = [env[{CHOOSER!r}].seat] if m.secret_depth and "
                    f"env.get({CHOOSER!r}) is not None else None")
        fn.emit(f"m.log({self.value(s.message, fn, ctx)}, {to})")

    def _target_key(self, target, fn, ctx) -> str:
        """(seat or 0, name) of the state variable `x` or `p.x` a reveal names."""
        if target.kind == "name" and target.id in self.rules.global_vars:
            return repr((0, target.id))
        key = fn.tmp()
        if target.kind == "field":
            o = self.value(target.obj, fn, ctx)
            fn.emit(f"{key} = m.field_var_key({o}, {target.name!r}, {self.const(target)})")
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

    # compound statements, written out whole
    def _test(self, test, fn, ctx) -> str:
        """A condition's value, refused when it is not yes or no."""
        t = self.value(test, fn, ctx)
        if not self.yes_no(test):
            fn.emit(f"if {t} is not True and {t} is not False: m.truth({t}, "
                    f"{self.const(test)})")
        return t

    def st_if(self, s, fn, ctx, at):
        opened = 0
        for b in s.branches:
            t = self._test(b.test, fn, ctx)
            fn.emit(f"if {t}:")
            with fn.indent():
                self._body(b.body, fn, ctx.nested())
            fn.emit("else:")
            fn.depth += 1
            opened += 1
        self._body(s.otherwise or [], fn, ctx.nested())
        fn.depth -= opened

    def st_match_stmt(self, s, fn, ctx, at):
        v = self.value(s.subject, fn, ctx)
        opened = 0
        for arm in s.arms:
            if arm.value is None:
                self._body(arm.body, fn, ctx.nested())
                break
            c = self.value(arm.value, fn, ctx)
            fn.emit(f"if {v} is {c} or m.same({v}, {c}):")
            with fn.indent():
                self._body(arm.body, fn, ctx.nested())
            fn.emit("else:")
            fn.depth += 1
            opened += 1
        else:
            fn.emit(f"m.no_arm({v}, {at})")
        fn.depth -= opened

    def st_step(self, s, fn, ctx, at):
        self._body(s.body, fn, ctx.nested())

    st_cited = st_step

    def _until_stopped(self, fn, write) -> None:
        """A loop that `stop` ends (wherever in what it runs the `stop` is met)."""
        fn.emit("try:")
        with fn.indent(block=True):
            write()
        fn.emit("except Signal as e:")
        fn.emit("    if e.kind != 'stop': raise")

    def st_for(self, s, fn, ctx, at):
        src = self.value(s.binding.source, fn, ctx)
        items, v = fn.tmp(), fn.tmp()
        fn.emit(f"{items} = m.items_of({src}, '`for`', {self.const(s.binding)})")
        inner = ctx.nested()
        inner.sc = inner.sc.bind(s.binding.name, v)

        def loop():
            fn.emit(f"for {v} in {items}:")
            with fn.indent(block=True):
                fn.steps("1", at)
                if s.where is not None:
                    w = self._test(s.where, fn, inner)
                    fn.emit(f"if not {w}: continue")
                self._body(s.body, fn, inner)
        self._until_stopped(fn, loop)

    def st_repeat(self, s, fn, ctx, at):
        n = self.value(s.count, fn, ctx)
        fn.emit(f"if type({n}) is not int: m.repeat_error({at})")

        def loop():
            fn.emit(f"for _ in range({n}):")
            with fn.indent(block=True):
                fn.steps("1", at)  # a turn of a loop is a step, even with nothing in it
                self._body(s.body, fn, ctx.nested())
        self._until_stopped(fn, loop)

    def st_while(self, s, fn, ctx, at):
        def loop():
            fn.emit("while True:")
            with fn.indent(block=True):
                t = self._test(s.test, fn, ctx)
                fn.emit(f"if not {t}: break")
                fn.steps("1", at)
                self._body(s.body, fn, ctx.nested())
        self._until_stopped(fn, loop)

    def st_phase(self, s, fn, ctx, at):
        opened = 0
        if s.when is not None:
            fn.emit(f"if {self._test(s.when, fn, ctx)}:")
            fn.depth += 1
            opened = 1
        st, prev = fn.use("st"), fn.tmp()
        fn.emit(f"{prev} = {st}.phase")
        fn.emit(f"{st}.phase = {s.name!r}")
        fn.emit(f"m.log({'Phase: ' + s.name!r}, kind='phase')")
        fn.emit("try:")
        with fn.indent(block=True):
            self._body(s.body, fn, ctx.nested())
        fn.emit("finally:")
        fn.emit(f"    {st}.phase = {prev} if {prev} is not None else {s.name!r}")
        fn.depth -= opened

    def st_turn(self, s, fn, ctx, at):
        p = self.value(s.player, fn, ctx)
        st, prev = fn.use("st"), fn.tmp()
        fn.emit(f"{prev} = {st}.current")
        fn.emit(f"{st}.current = {p}")
        fn.emit(f"{st}.turns += 1")
        fn.emit("try:")
        with fn.indent(block=True):
            self._body(s.body, fn, ctx.nested())
        fn.emit("finally:")
        fn.emit(f"    {st}.current = {prev}")

    def _call(self, fname: str, params, args: list[str], fn, ctx, at) -> None:
        """Run a procedure's or handler's function one call deeper, with its parameters and
        who made the decision being carried out (for its log lines in secret decisions)."""
        from .flow import callee_env

        self.ns.setdefault("callee_env", callee_env)
        fn.emit(f"m.enter_call({ctx.depth}, {at})")
        fn.emit(f"{fname}(m, {ctx.depth} + 1, callee_env({tuple(params)!r}, "
                f"({''.join(a + ', ' for a in args)}), env))")
        fn.emit(f"m.depth = {ctx.depth}")

    def st_do(self, s, fn, ctx, at):
        decl = self.rules.procedures.get(s.name)
        if decl is None:
            fn.emit(f"m.unknown_procedure({at})")
            return
        args = [self.value(a, fn, ctx) for a in s.args]
        if len(args) != len(decl.params):
            fn.emit(f"m.wrong_arity({at}, {s.name!r}, {len(decl.params)}, {len(args)})")
            return
        fname = self.procedure(("procedure", s.name), decl.params, decl.body)
        self._call(fname, decl.params, args, fn, ctx, at)

    def st_trigger(self, s, fn, ctx, at):
        args = [self.value(a, fn, ctx) for a in s.args]
        for k, h in enumerate(self.rules.events.get(s.event, ())):
            if len(h.params) != len(args):
                fn.emit(f"m.wrong_arity({at}, {s.event + ' handlers'!r}, {len(h.params)}, "
                        f"{len(args)})")
                return
            fname = self.procedure(("event", s.event, k), h.params, h.body)
            self._call(fname, h.params, args, fn, ctx, at)

    def st_award(self, s, fn, ctx, at):
        from .codegen import sort_keys_of

        amounts = self.value(s.amounts, fn, ctx)
        fn.emit(f"m.award_amounts({amounts}, {at})")
        with fn.expression():
            rows = self._rows(fn, ctx.sc, s.binding, s.where, sort_keys_of(s.keys))
        p, amount = fn.tmp(), fn.tmp()
        inner = ctx.nested()
        inner.sc = inner.sc.bind(s.binding.name, p).bind("amount", amount)
        fn.emit(f"for {p}, {amount} in m.award_groups({amounts}, m.order({rows}, {at}), {at}):")
        with fn.indent(block=True):
            self._body(s.body, fn, inner)


__all__ = ["Statements", "Inlining"]

_ = A  # the statement classes are those of grammar.ast
