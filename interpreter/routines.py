"""Blocks that may wait for a decision, written out as resumable generated functions.

A *routine* (``flow.Routine``) is the code of one block that can wait: the body of `setup`,
`play` or `scoring`, of a procedure or event handler that asks for a decision, of a part of
`simultaneously`, of a reaction. Everything in it is written out as one Python function
``u7(m, S, F)``: loops, turns, phases and decisions are Python's own `while` loops and `if`s,
and statements that never wait are written out whole, as in any generated code. The names its
waiting statements bind (a loop's value, an option's bindings, a `let` of a block that waits)
live in the frame's names (`F.env`), so that they outlast a wait; the names of statements that
never wait are Python locals.

Where a routine may wait (a decision, or a called routine, `simultaneously` or a reaction that
may itself wait) is numbered: a *label*. There the code writes where it stands into its frame
(`F.at`, the label; `F.v`, the positions of the loops around it, as a tuple) and returns the
decision. Run again (``Machine.resume``), the routine starts with `rs = F.at`: every statement
is guarded by `not rs` (running: `rs` is 0) or by the range of labels inside it (resuming
there), so the code goes straight down to the place it waited at, each loop taking its
position back from `F.v` on the way, and carries on from there with `rs = 0`.

A routine's code nests Python blocks (`while`, `try`) as its statements nest; a block that
would nest too deeply for Python becomes a routine of its own, called with the same names.
"""
from __future__ import annotations

from ..grammar import ast as A
from .flow import Routine, Wait

# Statements that hold blocks are written in resumable form past this many nested Python
# blocks, and blocks go into a routine of their own past these (Python allows 20 nested blocks
# and 100 levels of indentation in one function; expressions spill at 14).
_SUB_BLOCKS = 10
_SUB_INDENT = 36


class Open:
    """A statement of a routine around the code being written that keeps locals (a loop's
    items and position, what a turn restores): saved in `F.v` at each wait inside it."""

    __slots__ = ("names", "kinds")

    def __init__(self, names: list[str], kinds: tuple):
        self.names, self.kinds = names, kinds


class RoutineCode:
    """What writing one routine keeps: the routine, its next label, the statements around the
    code being written that keep locals."""

    __slots__ = ("routine", "next_label", "open")

    def __init__(self, routine: Routine):
        self.routine, self.next_label, self.open = routine, 1, []


def lets_within(stmts) -> set[str]:
    """The names `let` binds anywhere inside `stmts` (not in the procedures they call)."""
    out: set[str] = set()
    for s in stmts:
        for n in A.walk(s):
            if getattr(n, "kind", None) == "let":
                out.add(n.name)
    return out


class Routines:
    """The routine half of the statement generator (``statements.Statements``)."""

    # --------------------------------------------------------------------------- entries
    def routine(self, stmts, scope: frozenset, node, registry: list | None = None) -> Routine:
        """A routine running `stmts` with the names `scope` (``flow.Routine``); numbered among
        the ruleset's routines unless `registry` is given (a scenario's `given` block)."""
        r = Routine(node, self.routines if registry is None else registry)
        self._write_routine(r, lambda fn, ctx: self._rblock(stmts, fn, ctx), scope)
        return r

    def routine_of(self, key: tuple, params, body) -> Routine:
        """The routine of a procedure or event handler that may wait (written once; a
        procedure that calls itself finds it while it is being written)."""
        r = self._routine_keys.get(key)
        if r is None:
            r = self._routine_keys[key] = Routine(key, self.routines)
            self._write_routine(r, lambda fn, ctx: self._rblock(body, fn, ctx),
                                frozenset(params))
        return r

    def _write_routine(self, r: Routine, write, scope: frozenset) -> None:
        from .codegen import Function, Names
        from .statements import _Block

        fn = Function(self, self._fresh("u"), "m, S, F", "env")
        fn.calls = "depth"  # (its frame's depth, the same from its first line to its last)
        fn.hoist_as["DEEP"] = "F.depth >= m.limits.max_depth"
        fn.routine = RoutineCode(r)
        fn.emit("env = F.env")
        fn.emit("depth = F.depth")
        fn.emit("m.depth = depth")
        fn.emit("rs = F.at")
        ctx = _Block(Names({}, scope), True, "depth", resumable=True)
        # a signal nothing in the routine ends: the routine is over
        self._guarded(fn, lambda: write(fn, ctx), ["except Signal:", "    leave(S, F)",
                                                   "    raise"])
        fn.emit("S.pop()")
        fn.emit("return None")
        self.ns.setdefault("leave", leave)
        r.fn = self._function(fn)

    # ----------------------------------------------------------------- blocks of a routine
    def _rblock(self, stmts, fn, ctx) -> None:
        """A block of a routine (`ctx`: its names, in the frame's names): a run of statements
        that never wait is written out whole under `not rs`; a statement that may wait is
        guarded by the labels inside it as well. The names its `let`s add go with it."""
        entry = ctx.sc.env
        reacts = bool(self.rules.reactions)
        run: list = []
        before = len(fn.lines)

        def written_out():
            if run:
                fn.emit("if not rs:")
                with fn.indent():
                    self.statements(run, fn, ctx)
                run.clear()

        for s in stmts:
            if self._never_waits(s, fn):
                run.append(s)
            else:
                written_out()
                self._resumable(s, fn, ctx)
            if reacts:  # the state is looked at after each statement: reactions may start
                written_out()
                self._call_site(fn, s, ctx.sc.env, lambda: self._reactions_called(fn))
        written_out()
        added = sorted(ctx.sc.env - entry) if ctx.sc.env is not None else []
        for name in added:
            fn.emit(f"env.pop({name!r}, None)")
        if len(fn.lines) == before:
            fn.emit("pass")

    def _never_waits(self, s, fn) -> bool:
        """Whether `s` is written out whole here, its names Python locals: it never waits, and
        what it nests fits in what Python allows below the blocks already open."""
        depth = max(0, (fn.blocks - 3) // 2)
        return self.inlining.statement(s, depth)

    def _resumable(self, s, fn, ctx) -> None:
        """A statement that may wait (or holds blocks written in resumable form), guarded by
        `not rs` or the labels inside it; its step is charged when it starts."""
        at = self.const(s)
        guard = fn.placeholder()
        lo = fn.routine.next_label
        with fn.indent():
            fn.emit(f"at = {at}")
            fn.emit("if not rs:")
            with fn.indent():
                fn.steps("1", "at")
            getattr(self, "st_" + s.kind)(s, fn, ctx, at)
        fn.fill(guard, [f"if {self._resuming(fn, lo, 'not rs or ')}:"])

    @staticmethod
    def _resuming(fn, lo: int, before: str = "") -> str:
        """The test that the routine runs here: `before` and the labels written since `lo`."""
        hi = fn.routine.next_label - 1
        if hi < lo:
            return before[:-4] if before.endswith(" or ") else "False"
        if lo == 1 and before == "not rs or ":  # from the start or any label: `rs` is never < 0
            return f"rs <= {hi}"
        labels = f"rs == {lo}" if hi == lo else f"{lo} <= rs <= {hi}"
        return before + labels

    def _rbody(self, stmts, fn, ctx) -> None:
        """The block a statement of a routine holds: written here, or, nested too deeply for
        one Python function, as a routine of its own run with the same names and depth."""
        if fn.blocks < _SUB_BLOCKS and fn.depth < _SUB_INDENT:
            self._rblock(stmts, fn, ctx)
            return
        sub = Routine(stmts[0] if stmts else None, self.routines)
        self._write_routine(sub, lambda f, c: self._rblock(stmts, f, c), ctx.sc.env)
        self.routine_call(fn, sub, "env", "depth", stmts[0] if stmts else None, ctx.sc.env)

    # ------------------------------------------------------------------------------ waits
    def open(self, fn, kinds: tuple, names: list[str] | None = None) -> list[str]:
        """Locals a statement keeps while the code it holds runs (saved at every wait inside
        it; new ones unless `names` are given); `kinds` say what each holds (``flow.KEPT``)."""
        names = names if names is not None else [fn.tmp() for _ in kinds]
        fn.routine.open.append(Open(names, kinds))
        return names

    def close(self, fn) -> None:
        fn.routine.open.pop()

    @staticmethod
    def restored(fn) -> list[str]:
        """The lines taking back the locals of the statement opened last from where the frame
        saved them."""
        code = fn.routine
        offset = sum(len(o.names) for o in code.open[:-1])
        return [f"{name} = F.v[{offset + k}]" for k, name in enumerate(code.open[-1].names)] \
            or ["pass"]

    def restore(self, fn) -> None:
        for line in self.restored(fn):
            fn.emit(line)

    def wait(self, fn, code, node, names: frozenset, label: int) -> None:
        """The place the routine waits at, `label` (the next one: its code tested for it before
        writing this), the decision or frame in the local `d`; `names`: the frame's names bound
        there. Where it stands is written into its frame and the decision returned."""
        rc = fn.routine
        if label != rc.next_label:  # a fault of this generator, never of the rules
            raise RuntimeError(f"label {label} written where {rc.next_label} is next")
        rc.next_label += 1
        kept = [n for o in rc.open for n in o.names]
        rc.routine.waits[label] = Wait(label, code, node, tuple(k for o in rc.open for k in o.kinds),
                                       frozenset(names))
        fn.emit(f"F.at = {label}")
        fn.emit(f"F.v = ({''.join(n + ', ' for n in kept)})")
        fn.emit("return d")
        return label

    def _call_site(self, fn, node, names: frozenset, call) -> None:
        """A frame put above this routine's and run (`call()` writes the code that sets `d` to
        its decision or None): when it waits, so does this routine, until it has left the
        stack; a signal it leaves is raised here (and only here: not where the routine passes
        on its way to resume somewhere else)."""
        label = fn.routine.next_label  # where it waits (nothing `call()` writes waits here)
        fn.emit(f"if not rs or rs == {label}:")
        with fn.indent():
            fn.emit("if not rs:")
            with fn.indent():
                call()
                fn.emit("if d is not None:")
                with fn.indent():
                    self.wait(fn, None, node, names, label)
            fn.emit("rs = 0")
            fn.emit("if F.signal is not None:")
            fn.emit("    d, F.signal = F.signal, None")
            fn.emit("    raise d")
            fn.emit("m.depth = depth")

    def _reactions_called(self, fn) -> None:
        fn.emit("if m.dirty:")
        with fn.indent():
            fn.emit("S.append(ReactFrame(env, depth))")
            fn.emit("d = m.descend(S, len(S) - 1)")
        fn.emit("else:")
        fn.emit("    d = None")

    def routine_call(self, fn, r: Routine, env: str, depth: str, node, names) -> None:
        """Run routine `r` in a frame of its own above this one."""
        k = self.const(r)
        self._call_site(fn, node, names, lambda: (
            fn.emit(f"nf = RoutineFrame({k}, {env}, {depth})"),
            fn.emit("S.append(nf)"),
            fn.emit(f"d = {k}.fn(m, S, nf)")))

    # ---------------------------------------------------------------------------- names
    def bind_kept(self, fn, ctx, names) -> list:
        """For each name a statement binds in the frame's names: the local that keeps the value
        it replaces (an enclosing statement's binding of the same name), or None."""
        scope = ctx.sc.env or frozenset()
        return [fn.tmp() if n in scope else None for n in names]

    @staticmethod
    def unbind(fn, names, kept) -> None:
        """The frame's names as they were before a statement bound `names`."""
        for n, k in zip(names, kept):
            fn.emit(f"env.pop({n!r}, None)" if k is None else f"env[{n!r}] = {k}")

    def handler(self, fn, stmts, entry, names, kept, catches: str | None = None) -> None:
        """`except Signal` for a statement of a routine: a signal passing through leaves the
        frame's names as they were (its bindings undone, the names `let`s inside added gone);
        with `catches` (`stop`, `pass`), that signal ends the statement's block here."""
        fn.emit("except Signal as e:")
        with fn.indent():
            self.unbind(fn, names, kept)
            for n in sorted(lets_within(stmts) - set(entry or ()) - set(names)):
                fn.emit(f"env.pop({n!r}, None)")
            fn.emit("raise" if catches is None else f"if e.kind != {catches!r}: raise")


def leave(stack, frame) -> None:
    """A routine left by a signal: its frame (and any above it) taken off the stack."""
    while stack:
        if stack.pop() is frame:
            return

