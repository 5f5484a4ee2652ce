"""Statements compiled once into operations, and where the flow of a game stands kept as data.

A game's flow is a stack of frames, plain objects: the block being run and the position in it,
the loop being turned and its values, the decision being waited for, the local names. Nothing
of it is a suspended Python generator, so a game in progress can be copied, saved and loaded as
data (``snapshot.py``), whatever point it has reached.

Each statement kind compiles to an ``Op``: simple statements run at once; a statement holding a
block (if, for, choose, ...) pushes a frame that runs it. ``Machine.run`` steps the frame on top
of the stack until a player must decide (it returns the ``Decision``) or the stack is empty.
`stop`, `pass` and `end game` unwind the stack to the frame they end.
"""
from __future__ import annotations

from ..grammar import ast as A
from .errors import RuleError
from .values import Item, Seat, Sym, type_name, show

CHOOSER = "\x00chooser"  # in the names of an option's body: who chose it (never a rules name)
DONE = "done"  # the option `repeat choose` adds: the player has finished


# ------------------------------------------------------------------------------ decisions
class OptionInstance:
    """A legal option: its id, what it reads as, the option it instantiates and its names (the
    decision's, with the values its bindings took: `env`).

    The label is worked out the first time it is read (shown to a person, logged once chosen,
    saved), so that bots, who read only ids, never pay for the labels of the options they do
    not take; it may be given as a function of no arguments, or left to the machine that listed
    the option. Working it out leaves no trace in the game (``Machine.traceless``), so reading
    a label or not never changes the game. The names are made only when read: an option listed
    by the rules keeps the decision's names (`base`) and its bound values (`values`)."""

    __slots__ = ("id", "_label", "option", "_env", "base", "values", "machine")

    def __init__(self, id: str, label, option: "OptionCode | None", env: dict):
        self.id, self._label, self.option, self._env = id, label, option, env
        self.base, self.machine = env, None
        self.values = None if option is None else tuple(env[n] for n in option.names)

    @property
    def env(self) -> dict:
        if self._env is None:
            env = dict(self.base)
            env.update(zip(self.option.names, self.values))
            self._env = env
        return self._env

    @property
    def label(self) -> str:
        label = self._label
        if not isinstance(label, str):
            if label is not None:
                label = label()
            elif self.option.label is None:  # its name and values
                label = " ".join([self.option.title, *map(show, self.values)])
            else:
                label = self.machine.label_text(self.option, self.env)
            self._label = label
        return label

    def bound(self) -> dict:
        """The names the option's bindings bind, to their values."""
        return dict(zip(self.option.names, self.values))

    def __repr__(self) -> str:
        return f"OptionInstance({self.id!r})"


def new_option(id: str, option: "OptionCode", base: dict, values: tuple, machine):
    """An option the rules listed (``codegen.Generator.options``): its label and names are
    worked out when read."""
    o = _new_instance(OptionInstance)
    o.id, o._label, o.option, o._env, o.base, o.values, o.machine = \
        id, None, option, None, base, values, machine
    return o


_new_instance = object.__new__


def option_token(value, position: int) -> str:
    """How a bound value reads in an option's id (`place:2:3`): its position in the list it came
    from when it has no token of its own."""
    t = type(value)
    if t is bool:
        return "yes" if value else "no"
    if t is int:
        return str(value)
    if t is str:
        return value.replace(":", "_").replace(" ", "_")
    if t is Sym:
        return value.name
    if t is Seat:
        return f"p{value.seat}"
    if t is Item:
        return value.key or value.id  # a named row reads by its name: copies are alike
    return str(position)


class Decision:
    """A decision a player must make: the legal options, and the state's clock when they were
    listed (`clock`)."""

    __slots__ = ("player", "prompt", "options", "secret", "node", "clock", "_by_id")

    def __init__(self, player: Seat, prompt: str, options: list[OptionInstance], secret: bool,
                 node, clock: int = 0):
        self.player, self.prompt, self.options, self.secret, self.node, self.clock = \
            player, prompt, options, secret, node, clock
        self._by_id = None

    @property
    def by_id(self) -> dict:
        """The options by id (made when first looked up)."""
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {o.id: o for o in self.options}
        return by_id

    def __repr__(self) -> str:
        return f"Decision({self.player!r}, {self.prompt!r}, {len(self.options)} options)"

    def forward_options(self) -> list[OptionInstance]:
        """The options without the one that starts a composed decision over (when another is
        legal): what bots and automata choose among, so that they always finish it."""
        if self.node.kind != "compose":
            return self.options
        return [o for o in self.options
                if not (o.option is None and o.id == A.COMPOSE_START_OVER)] or self.options


class Signal(Exception):
    """`stop`, `pass` or `end game`, unwinding the stack to the frame it ends."""

    def __init__(self, kind: str, node):
        super().__init__(kind)
        self.kind, self.node = kind, node

    @property
    def words(self) -> str:
        return {"stop": "stop", "pass": "pass", "end": "end game"}[self.kind]


# ---------------------------------------------------------------------------- compilation
class Block:
    """A statement list compiled: its operations, and its number among the ruleset's blocks
    (so that a saved frame can name it); `lets`: whether it adds names of its own."""

    __slots__ = ("ops", "id", "first", "lets")

    def __init__(self, ops: list, registry: list, lets: bool = True):
        self.ops = ops
        self.id = len(registry)
        self.first = ops[0].node if ops else None
        self.lets = lets
        registry.append(self)


class Compiler:
    """Compiles the statements of a ruleset, resolving names by their scope: what runs to its
    end without a decision is written out as Python by `gen` (``codegen.Generator``,
    ``statements.py``); what may wait for a decision becomes an `Op` run in frames."""

    def __init__(self, gen):
        from .statements import Inlining

        self.gen = gen
        self.inlining = Inlining(gen.rules)
        self.blocks: list[Block] = []
        self.ops: list = []

    def block(self, stmts, scope: frozenset) -> Block:
        ops = []
        run: list = []  # statements written out together, as one segment

        def written_out():
            nonlocal scope, run
            if run:
                op = Segment(self, run, scope)
                scope = op.scope
                self._number(op, ops)
                run = []

        for s in stmts:
            if self.inlining.statement(s):
                run.append(s)
                if not self.inlining.whole:  # each statement on its own (see Inlining)
                    written_out()
                continue
            written_out()
            self._number(_OPS[s.kind](self, s, scope), ops)
        written_out()
        return Block(ops, self.blocks, any(s.kind == "let" for s in stmts))

    def _number(self, op, ops) -> None:
        op.id = len(self.ops)
        self.ops.append(op)
        ops.append(op)

    def expr(self, node, scope):
        return self.gen.expr(node, scope)


class Op:
    """One compiled statement. `run` does it; a statement that holds a block pushes a frame."""

    __slots__ = ("node", "id")

    def __init__(self, node):
        self.node = node
        self.id = -1

    def run(self, m, stack, frame):
        raise NotImplementedError


class Segment(Op):
    """Statements that run to their end without a decision, written out as one generated
    function (``statements.py``); `scope`: the block's names after them (their `let`s)."""

    __slots__ = ("fn", "scope")

    def __init__(self, c, stmts, scope):
        super().__init__(stmts[0])
        self.fn, self.scope = c.gen.segment(stmts, scope)

    def run(self, m, stack, frame):
        self.fn(m, frame)


class If(Op):
    __slots__ = ("branches", "otherwise")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.branches = [(c.expr(b.test, scope), c.block(b.body, scope), b.test)
                         for b in s.branches]
        self.otherwise = c.block(s.otherwise, scope) if s.otherwise is not None else None

    def run(self, m, stack, frame):
        env = frame.env
        for test, body, node in self.branches:
            if m.truth(test(m, env), node):
                stack.append(BlockFrame(body, env, frame.depth))
                return
        if self.otherwise is not None:
            stack.append(BlockFrame(self.otherwise, env, frame.depth))


class MatchStmt(Op):
    __slots__ = ("subject", "arms")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.subject = c.expr(s.subject, scope)
        self.arms = [(c.expr(a.value, scope), c.block(a.body, scope)) for a in s.arms]

    def run(self, m, stack, frame):
        env = frame.env
        value = self.subject(m, env)
        for test, body in self.arms:
            if test is None or m.same(value, test(m, env)):
                stack.append(BlockFrame(body, env, frame.depth))
                return
        raise RuleError("E0306", f"no arm of this `match` is for `{show(value)}`", self.node,
                        "add an `else: { }` arm")


class Nested(Op):
    """`step`, `cite ... { }`: a block run in place."""

    __slots__ = ("body",)

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.body = c.block(s.body, scope)

    def run(self, m, stack, frame):
        stack.append(BlockFrame(self.body, frame.env, frame.depth))


class Loop(Op):
    """A statement that repeats a block: its frame keeps where it is."""

    __slots__ = ("body", "name", "source", "where", "count", "test", "mode")

    def run(self, m, stack, frame):
        stack.append(LoopFrame(self, frame.env, frame.depth, m))


class For(Loop):
    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.name = s.binding.name
        self.source = c.expr(s.binding.source, scope)
        inner = scope | {self.name}
        self.where = c.expr(s.where, inner)
        self.body = c.block(s.body, inner)


class Repeat(Loop):
    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.count, self.body, self.name = c.expr(s.count, scope), c.block(s.body, scope), None


class While(Loop):
    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.test, self.body, self.name = c.expr(s.test, scope), c.block(s.body, scope), None


class Rounds(Loop):
    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.mode, self.name = s.mode, None
        self.count = c.expr(s.expr, scope) if s.mode == "count" else None
        self.test = c.expr(s.expr, scope) if s.mode == "until" else None
        self.body = c.block(s.body, scope)


class Turns(Loop):
    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.name = s.binding.name
        self.source = c.expr(s.binding.source, scope)
        self.body = c.block(s.body, scope | {self.name})


class TurnsFrom(Loop):
    __slots__ = ("start", "then")

    def __init__(self, c, s, scope):
        Op.__init__(self, s)
        self.name = s.name
        inner = scope | {s.name}
        self.start = c.expr(s.start, scope)
        self.then, self.test = c.expr(s.then, inner), c.expr(s.until, inner)
        self.body = c.block(s.body, inner)


class Phase(Op):
    __slots__ = ("when", "body")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.when, self.body = c.expr(s.when, scope), c.block(s.body, scope)

    def run(self, m, stack, frame):
        env = frame.env
        if self.when is not None and not m.truth(self.when(m, env), self.node.when):
            return
        st = m.state
        previous = st.phase
        st.phase = self.node.name
        m.log(f"Phase: {self.node.name}", kind="phase")
        stack.append(RestoreFrame(self.body, env, frame.depth, "phase",
                                  previous if previous is not None else st.phase))


class Turn(Op):
    __slots__ = ("player", "body")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.player, self.body = c.expr(s.player, scope), c.block(s.body, scope)

    def run(self, m, stack, frame):
        st = m.state
        p = self.player(m, frame.env)
        previous, st.current = st.current, p
        st.turns += 1
        stack.append(RestoreFrame(self.body, frame.env, frame.depth, "current", previous))


class Call(Op):
    """`do procedure(...)`."""

    __slots__ = ("args",)

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.args = [c.expr(a, scope) for a in s.args]

    def run(self, m, stack, frame):
        name = self.node.name
        code = m.rules.code.procedures.get(name)
        if code is None:
            raise RuleError("E0311", f"unknown procedure `{name}`", self.node)
        params, body = code
        args = [a(m, frame.env) for a in self.args]
        if len(args) != len(params):
            raise RuleError("E0306", f"`{name}` takes {len(params)} values, got {len(args)}",
                            self.node)
        m.call(stack, body, callee_env(params, args, frame.env), frame.depth, self.node)


class Trigger(Op):
    __slots__ = ("args",)

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.args = [c.expr(a, scope) for a in s.args]

    def run(self, m, stack, frame):
        args = [a(m, frame.env) for a in self.args]
        stack.append(TriggerFrame(self, frame.env, frame.depth, args))


class Award(Op):
    __slots__ = ("amounts", "rows", "body")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.amounts = c.expr(s.amounts, scope)
        self.rows = c.gen.ranking(s.binding, s.where, s.keys, scope)
        self.body = c.block(s.body, scope | {s.binding.name, "amount"})

    def run(self, m, stack, frame):
        env, node = frame.env, self.node
        amounts = m.award_amounts(self.amounts(m, env), node)
        given = m.award_groups(amounts, m.order(self.rows(m, env), node), node)
        stack.append(AwardFrame(self, env, frame.depth, given))


class OptionCode:
    """One `option` of a `choose`, compiled; `choose` and `index` say where it stands (so that
    a saved decision can name it)."""

    __slots__ = ("node", "name", "title", "names", "enumerate", "label", "body", "choose",
                 "index")

    @property
    def op_id(self) -> int:
        return self.choose.id

    def __init__(self, c, o, scope, statement):
        self.node, self.name, self.title = o, o.name, o.name.replace("_", " ")
        self.names = tuple(b.name for b in o.bindings)
        inner = scope | set(self.names)
        self.enumerate = c.gen.options(self, o, statement, scope)
        self.label = c.expr(o.label, inner)
        self.body = c.block(o.body, inner | {CHOOSER})


class Choose(Op):
    __slots__ = ("player", "prompt", "options", "otherwise")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.player, self.prompt = c.expr(s.player, scope), c.expr(s.prompt, scope)
        self.options = [OptionCode(c, o, scope, s) for o in s.options]
        for k, option in enumerate(self.options):
            option.choose, option.index = self, k
        self.otherwise = c.block(s.otherwise, scope) if s.otherwise is not None else None

    def run(self, m, stack, frame):
        stack.append(ChooseFrame(self, frame.env, frame.depth))


class StepCode:
    """One step of a `compose`, compiled: its prompt, its condition, its options."""

    __slots__ = ("node", "name", "prompt", "until", "options")

    def __init__(self, c, step, scope, options):
        self.node, self.name = step, step.name
        self.prompt, self.until = c.expr(step.prompt, scope), c.expr(step.until, scope)
        self.options = options


class Compose(Op):
    """A decision built in steps. `options` holds every step's options in order (so that a
    saved decision names an option as for `choose`: this statement and a position)."""

    __slots__ = ("player", "prompt", "showing", "steps", "options", "start_over")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.player, self.prompt = c.expr(s.player, scope), c.expr(s.prompt, scope)
        self.showing = [c.expr(e, scope) for e in s.showing]
        self.options, self.steps = [], []
        for step in s.steps:
            codes = [OptionCode(c, o, scope, s) for o in step.options]
            self.steps.append(StepCode(c, step, scope, codes))
            self.options.extend(codes)
        for k, option in enumerate(self.options):
            option.choose, option.index = self, k
        self.start_over = c.block(s.start_over, scope | {CHOOSER}) \
            if s.start_over is not None else None

    def run(self, m, stack, frame):
        stack.append(ComposeFrame(self, frame.env, frame.depth))


class Simultaneously(Op):
    __slots__ = ("source", "name", "body")

    def __init__(self, c, s, scope):
        super().__init__(s)
        self.name = s.binding.name
        self.source = c.expr(s.binding.source, scope)
        self.body = c.block(s.body, scope | {self.name})

    def run(self, m, stack, frame):
        source = self.source(m, frame.env)
        if not isinstance(source, list):
            raise RuleError("E0306", "`simultaneously` needs a list of players",
                            self.node.binding)
        branches = []
        for p in list(source):
            m.tick(self.node)
            branches.append([BlockFrame(self.body, {**frame.env, self.name: p}, frame.depth)])
        stack.append(SimFrame(self, frame.env, frame.depth, branches))


def callee_env(params, args, env) -> dict:
    """A called block's names: its parameters, and who made the decision being carried out
    (so that its log lines inside a secret decision stay private to that player)."""
    out = dict(zip(params, args))
    if CHOOSER in env:
        out[CHOOSER] = env[CHOOSER]
    return out


_OPS = {
    "if": If, "match_stmt": MatchStmt, "step": Nested, "cited": Nested, "for": For,
    "repeat": Repeat, "while": While, "rounds": Rounds, "turns": Turns, "turns_from": TurnsFrom,
    "phase": Phase, "turn": Turn, "do": Call, "trigger": Trigger, "award": Award,
    "choose": Choose, "simultaneously": Simultaneously, "compose": Compose,
}


# ---------------------------------------------------------------------------------- frames
class Frame:
    """Where one block or statement stands. `step` does the next piece of work (it may push
    or pop frames) and returns a Decision when a player must decide; `exit` undoes what the
    frame did to its surroundings (names bound, the phase, the current player) when it ends or
    is unwound."""

    __slots__ = ("env", "depth")
    ends = ()  # the signals this frame ends (and is ended by)

    def step(self, m, stack):
        raise NotImplementedError

    def exit(self, m) -> None:
        pass


class BlockFrame(Frame):
    """A block of statements: `pc` is the next one. Names bound on entry (a loop's value, an
    option's bindings) are restored when it ends; names a `let` adds are removed."""

    __slots__ = ("block", "pc", "known", "bound", "saved", "settled")

    def __init__(self, block: Block, env: dict, depth: int, bind: dict | None = None):
        self.block, self.env, self.depth, self.pc = block, env, depth, 0
        if bind:
            self.bound = tuple(bind)
            self.saved = {k: env[k] for k in bind if k in env}
            env.update(bind)
        else:
            self.bound, self.saved = (), _NOTHING
        self.known = frozenset(env) if block.lets else None
        self.settled = True  # the statement before `pc` has finished (reactions looked at)

    def step(self, m, stack):
        ops, height, reacts = self.block.ops, len(stack), m.reacts
        while True:
            if reacts and not self.settled:  # the last statement just ended: reactions first
                self.settled = True
                if m.dirty:
                    stack.append(ReactFrame(self.env, self.depth))
                    return None
            pc = self.pc
            if pc >= len(ops):
                stack.pop()
                self.exit(m)
                return None
            op = ops[pc]
            self.pc = pc + 1
            self.settled = False
            st = m.state
            st.steps += 1  # `tick`, inline: a statement is a step
            if st.steps >= m.next_check:
                m.steps_checked(op.node)
            m.depth = self.depth
            decision = op.run(m, stack, self)
            if decision is not None or len(stack) != height:
                return decision  # a frame was pushed (or the flow waits): the machine goes on

    def exit(self, m) -> None:
        env = self.env
        if self.known is not None:
            for name in [k for k in env if k not in self.known]:
                del env[name]
        for k in self.bound:
            if k in self.saved:
                env[k] = self.saved[k]
            else:
                env.pop(k, None)


_NOTHING: dict = {}  # the names a frame saved when it bound none (never written to)


class RestoreFrame(BlockFrame):
    """A block after which the phase or the current player is what it was before."""

    __slots__ = ("what", "previous")

    def __init__(self, block, env, depth, what: str, previous):
        super().__init__(block, env, depth)
        self.what, self.previous = what, previous

    def exit(self, m) -> None:
        super().exit(m)
        setattr(m.state, self.what, self.previous)


class LoopFrame(Frame):
    """`for`, `repeat`, `while`, `rounds`, `turns` and `turns ... from`: `items` and `i` say
    where the loop stands; the body runs in a block frame above it."""

    __slots__ = ("op", "items", "i", "count", "passed", "player", "previous")
    ends = ("stop",)

    def __init__(self, op: Loop, env, depth, m):
        self.op, self.env, self.depth = op, env, depth
        self.items, self.i, self.count = None, 0, None
        self.passed, self.player, self.previous = None, None, None
        kind = op.node.kind
        if kind == "for":
            self.items = m.items_of(op.source(m, env), "`for`", op.node.binding)
        elif kind == "repeat":
            n = op.count(m, env)
            if type(n) is not int:
                raise RuleError("E0306", "`repeat` needs a number", op.node)
            self.count = max(0, n)
        elif kind == "rounds" and op.mode == "count":
            count = op.count(m, env)
            if type(count) is not int:
                raise RuleError("E0306", f"`rounds` needs a number of rounds, not "
                                f"{type_name(count)} `{show(count)}`", op.node.expr)
            self.count = count
        elif kind == "turns":
            order = op.source(m, env)
            if not isinstance(order, list):
                raise RuleError("E0306", "`turns` needs a list of players", op.node.binding)
            self.items, self.passed = order, set()
        elif kind == "turns_from":
            self.player = op.start(m, env)

    def step(self, m, stack):
        op, node, env = self.op, self.op.node, self.env
        kind = node.kind
        if kind == "for":
            while self.i < len(self.items):
                v = self.items[self.i]
                self.i += 1
                m.tick(node)
                if op.where is not None and not m.truth(op.where(m, {**env, op.name: v}),
                                                         node.where):
                    continue
                stack.append(BlockFrame(op.body, env, self.depth, {op.name: v}))
                return None
        elif kind == "repeat":
            if self.i < self.count:
                self.i += 1
                m.tick(node)  # a turn of a loop is a step, even with nothing in it
                stack.append(BlockFrame(op.body, env, self.depth))
                return None
        elif kind == "while":
            if m.truth(op.test(m, env), node.test):
                m.tick(node)
                stack.append(BlockFrame(op.body, env, self.depth))
                return None
        elif kind == "rounds":
            done = (self.i >= self.count if op.mode == "count" else
                    op.mode == "until" and m.truth(op.test(m, env), node.expr))
            if not done:
                m.tick(node)
                st = m.state
                st.round += 1
                self.i += 1
                m.log(f"Round {st.round}", kind="round")
                stack.append(BlockFrame(op.body, env, self.depth))
                return None
        elif kind == "turns":
            return self._turns(m, stack)
        elif kind == "turns_from":
            return self._turns_from(m, stack)
        stack.pop()
        self.exit(m)
        return None

    def _turns(self, m, stack):
        """One action per turn, round and round, skipping those who passed, until all did."""
        st, order = m.state, self.items
        if self.previous is not None:  # a turn just ended
            st.current, self.player, self.previous = self.previous[0], None, None
        while len(self.passed) < len(order):
            if self.i >= len(order):
                self.i = 0
            i, p = self.i, order[self.i]
            self.i += 1
            if i in self.passed:
                continue
            m.tick(self.op.node)
            st.turns += 1
            self.previous, self.player = (st.current,), i
            st.current = p
            stack.append(BlockFrame(self.op.body, self.env, self.depth, {self.op.name: p}))
            return None
        stack.pop()
        self.exit(m)
        return None

    def passes(self, m) -> None:
        """`pass` in the body: the player whose turn it is has passed for the rest of the loop
        (in `turns ... from`, their turn just ends)."""
        if self.passed is not None:
            self.passed.add(self.player)

    def _turns_from(self, m, stack):
        """Turns in an order the rules compute: from `start`, then whoever `then` names after
        each turn, until `until` holds (looked at before each turn)."""
        op, st, env = self.op, m.state, self.env
        if self.previous is not None:  # a turn just ended: who is next?
            st.current = self.previous[0]
            self.previous = None
            self.player = op.then(m, {**env, op.name: self.player})
        m.tick(op.node)
        p = self.player
        if m.truth(op.test(m, {**env, op.name: p}), op.node.until):
            stack.pop()
            self.exit(m)
            return None
        if not isinstance(p, Seat):
            raise RuleError("E0306", f"a turn needs a player, not {type_name(p)}",
                            op.node.then if st.turns else op.node.start)
        st.turns += 1
        self.previous = (st.current,)
        st.current = p
        stack.append(BlockFrame(op.body, env, self.depth, {op.name: p}))
        return None

    def exit(self, m) -> None:
        if self.previous is not None:
            m.state.current = self.previous[0]
            self.previous = None


class ChooseFrame(Frame):
    """A decision: listed and asked (`decision`), then its option's block run; with `repeat
    choose`, asked again until the player is done. `answered` is 1 while an option's block
    runs, 2 when it is the rules' own `done` of a `repeat choose` (the loop ends with it)."""

    __slots__ = ("op", "decision", "answered")

    def __init__(self, op: Choose, env, depth):
        self.op, self.env, self.depth = op, env, depth
        self.decision, self.answered = None, 0

    @property
    def ends(self):
        return ("stop",) if self.op.node.repeat else ()

    def step(self, m, stack):
        node = self.op.node
        if self.answered:  # the chosen option's block has run
            ended = self.answered == 2 or not node.repeat
            self.answered = 0
            if ended:
                stack.pop()
                return None
        if self.decision is not None:  # asked again: after a copy, a load or a `given`
            return self.decision
        if node.repeat:
            m.tick(node)
        decision = m.decide(self)
        if decision is None:  # nothing to choose: `otherwise`, or the end of the loop
            stack.pop()
            if self.op.otherwise is not None and not node.repeat:
                stack.append(BlockFrame(self.op.otherwise, self.env, self.depth))
            return None
        self.decision = decision
        return decision

    def recompute(self, m):
        """The state changed while the decision waited: list its options again."""
        self.decision = None
        decision = m.decide(self)
        self.decision = decision
        return decision

    def taken(self, m, answer: str, logged: bool):
        """The waiting decision and its chosen option, counted and logged."""
        decision = self.decision
        chosen = decision.by_id[answer]
        self.decision = None
        m.state.decisions += 1
        if not logged:
            m.log_decision(decision, chosen)
        return decision, chosen

    def receive(self, m, stack, answer: str, logged: bool = False) -> None:
        decision, chosen = self.taken(m, answer, logged)
        repeat = self.op.node.repeat
        if chosen.option is None:  # `skip`, or the `done` of a `repeat choose`
            if not repeat or chosen.id == DONE:
                stack.pop()
            return
        self.answered = 2 if repeat and chosen.option.name == DONE else 1
        names = chosen.bound()
        names[CHOOSER] = decision.player
        stack.append(BlockFrame(chosen.option.body, self.env, self.depth, names))


class ComposeFrame(ChooseFrame):
    """A decision built in steps (`compose`): the step asked is the first whose `until` does
    not hold, read from the state each time (so a `given` that fills the state moves the
    decision on); when every step holds, `done` ends it and `start_over` runs the rules'
    `start over` block and asks again. `answered` is 1 while an option's block runs."""

    __slots__ = ()

    @property
    def ends(self):
        return ()

    def step(self, m, stack):
        self.answered = 0
        if self.decision is not None:  # asked again: after a copy, a load or a `given`
            return self.decision
        m.tick(self.op.node)
        decision = m.decide(self)
        if decision is None:  # every step holds and there is nothing to confirm
            stack.pop()
            return None
        self.decision = decision
        return decision

    def receive(self, m, stack, answer: str, logged: bool = False) -> None:
        decision, chosen = self.taken(m, answer, logged)
        if chosen.id == A.COMPOSE_DONE and chosen.option is None:
            stack.pop()
            return
        self.answered = 1
        names = {CHOOSER: decision.player}
        if chosen.option is None:  # `start_over`
            stack.append(BlockFrame(self.op.start_over, self.env, self.depth, names))
            return
        names.update(chosen.bound())
        stack.append(BlockFrame(chosen.option.body, self.env, self.depth, names))


class SimFrame(Frame):
    """`simultaneously`: each player's part (`branches`, a stack each) runs up to its next
    decision; the decisions are asked in turn against the same state, then carried out in
    order, and so on a round at a time."""

    __slots__ = ("op", "branches", "waiting", "answers", "k")

    def __init__(self, op, env, depth, branches):
        self.op, self.env, self.depth = op, env, depth
        self.branches = branches
        self.waiting: list | None = None   # indices of the branches waiting for a decision
        self.answers: list = []            # the answers given this round, in waiting order
        self.k = 0                         # the waiting branch asked next

    def top(self, i):
        return self.branches[i][-1]

    def step(self, m, stack):
        # A `stop` or `end game` from a part that the part does not end unwinds the stack
        # past this frame (Machine.run_branch): then nothing more of it runs.
        def gone():
            return not stack or stack[-1] is not self

        if self.waiting is None:  # start: each part runs up to its first decision
            self.waiting = []
            for i in range(len(self.branches)):
                if m.run_branch(self, i):
                    self.waiting.append(i)
                elif gone():
                    return None
        while self.waiting:
            if self.k < len(self.waiting):
                frame = self.waiting_frame()
                decision = frame.decision
                if decision is None or decision.clock != m.state.clock:  # the state of now
                    decision = m.in_branch(lambda: frame.recompute(m))
                if decision is not None:
                    return decision
                # a `given` left this part nothing to choose: it goes on without the decision
                if not m.run_branch(self, self.waiting[self.k]):
                    if gone():
                        return None
                    del self.waiting[self.k]
                continue
            # every decision of the round is made: carry them out in the order of the parts
            # (of xs), whichever order they were answered in (`ask_first`)
            went_on = []
            for i, answer in sorted(zip(self.waiting, self.answers)):
                if m.run_branch(self, i, answer):
                    went_on.append(i)
                elif gone():
                    return None
            self.waiting, self.answers, self.k = went_on, [], 0
        stack.pop()
        return None

    def receive(self, m, stack, answer: str) -> None:
        frame = self.waiting_frame()
        # The decider reads what they chose at once; it is carried out later.
        m.log_decision(frame.decision, frame.decision.by_id[answer])
        self.answers.append(answer)
        self.k += 1

    def recompute(self, m):
        frame = self.waiting_frame()
        return m.in_branch(lambda: frame.recompute(m))

    def ask_first(self, seat) -> bool:
        """Ask `seat`'s unanswered decision of this round next (False: it has none here).
        Every decision of a round is made against the same state and they are carried out in
        the order of the parts, so players may answer in any order."""
        waiting = self.waiting or []
        for j in range(self.k, len(waiting)):
            top = self.top(waiting[j])
            if isinstance(top, SimFrame):
                if not top.ask_first(seat):
                    continue
            elif getattr(top, "decision", None) is None or top.decision.player is not seat:
                continue
            waiting.insert(self.k, waiting.pop(j))
            return True
        return False

    def unanswered(self) -> list:
        """The players whose decision of this round is still to be made, the next asked first."""
        out = []
        for i in (self.waiting or [])[self.k:]:
            top = self.top(i)
            if isinstance(top, SimFrame):
                out.extend(top.unanswered())
            elif getattr(top, "decision", None) is not None:
                out.append(top.decision.player)
        return out

    def waiting_frame(self) -> "ChooseFrame":
        """The choose frame whose decision is asked now (through nested `simultaneously`)."""
        frame = self.top(self.waiting[self.k])
        return frame.waiting_frame() if isinstance(frame, SimFrame) else frame


class TriggerFrame(Frame):
    """`trigger e(...)`: each `when e` handler in turn."""

    __slots__ = ("op", "args", "i")

    def __init__(self, op, env, depth, args):
        self.op, self.env, self.depth, self.args, self.i = op, env, depth, args, 0

    def step(self, m, stack):
        handlers = m.rules.code.events.get(self.op.node.event, ())
        if self.i >= len(handlers):
            stack.pop()
            return None
        params, body = handlers[self.i]
        self.i += 1
        if len(params) != len(self.args):
            raise RuleError("E0306", f"`{self.op.node.event}` handlers take {len(params)} "
                            f"values, got {len(self.args)}", self.op.node)
        m.call(stack, body, callee_env(params, self.args, self.env), self.depth, self.op.node)
        return None


class AwardFrame(Frame):
    """`award`: each ranked player whose rank earns something, in order, with `amount`."""

    __slots__ = ("op", "given", "i")

    def __init__(self, op, env, depth, given):
        self.op, self.env, self.depth, self.given, self.i = op, env, depth, given, 0

    def step(self, m, stack):
        if self.i >= len(self.given):
            stack.pop()
            return None
        player, share = self.given[self.i]
        self.i += 1
        stack.append(BlockFrame(self.op.body, self.env, self.depth,
                                {self.op.node.binding.name: player, "amount": share}))
        return None


class ReactFrame(Frame):
    """After a statement that changed the state: each reaction whose condition has just become
    true runs, in the order they are declared (`r` and `pending` say where the look stands)."""

    __slots__ = ("r", "pending")

    def __init__(self, env, depth):
        self.env, self.depth, self.r, self.pending = env, depth, 0, None

    def step(self, m, stack):
        if self.r == 0 and self.pending is None:
            m.dirty = False
        reactions = m.rules.code.reactions
        while True:
            if self.pending:
                env = self.pending.pop(0)
                reaction = reactions[self.r - 1]
                key = (reaction[0].name,) + tuple(option_token(env[n], 0) for n in reaction[1])
                now = m.truth(reaction[2](m, env), reaction[0].condition)
                flags = m.state.reaction_flags
                before = flags.get(key, False)
                if now and not before:
                    flags[key] = True
                    m.call(stack, reaction[3], env, self.depth, reaction[0])
                    return None
                if not now and before:
                    flags[key] = False
                continue
            if self.r >= len(reactions):
                stack.pop()
                return None
            reaction = reactions[self.r]
            self.r += 1
            m.tick(reaction[0])
            self.pending = reaction[4](m, {})


class RunFrame(Frame):
    """The whole game: setup, play, scoring, then the winners."""

    __slots__ = ("stage",)
    ends = ("end", "stop", "pass")  # a stray `stop` or `pass` ends the game too

    def __init__(self):
        self.env, self.depth, self.stage = {}, 0, 0

    def step(self, m, stack):
        code = m.rules.code
        self.stage += 1
        if self.stage == 1:
            if code.setup is not None:
                stack.append(BlockFrame(code.setup, {}, 0))
        elif self.stage == 2:
            m.set_up = True
            if code.play is not None:
                stack.append(BlockFrame(code.play, {}, 0))
        elif self.stage == 3:
            self.to_scoring(m, stack)
        else:
            stack.pop()
            m.finish()
        return None

    def to_scoring(self, m, stack) -> None:
        st = m.state
        self.stage = 3
        st.over = True
        st.current = None
        if m.rules.code.scoring is not None:
            st.phase = "scoring"
            stack.append(BlockFrame(m.rules.code.scoring, {}, 0))

    def ended(self, m, stack, signal: Signal) -> None:
        """`end game` (or a stray `stop` or `pass`): on to scoring; in scoring, to the end."""
        if self.stage < 3:
            self.to_scoring(m, stack)
        else:
            self.stage = 3


FRAMES = {cls.__name__: cls for cls in (BlockFrame, RestoreFrame, LoopFrame, ChooseFrame,
                                        ComposeFrame, SimFrame, TriggerFrame, AwardFrame, ReactFrame,
                                        RunFrame)}

__all__ = ["Compiler", "Decision", "OptionInstance", "Signal", "CHOOSER", "DONE", "FRAMES",
           "RunFrame", "BlockFrame", "new_option", "option_token"]
