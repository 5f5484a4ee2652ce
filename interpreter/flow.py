"""Where the flow of a game stands, kept as data, and the decisions it waits for.

A ruleset's statements run as generated Python (``statements.py``): each block that may wait for
a decision is one *routine*, a generated function in which loops, turns, phases and decisions
are Python's own loops and branches. When a player must decide, the routine writes where it
stands into its frame (`RoutineFrame`: which decision it waits at, the positions of the loops
around it, the values they keep) and returns the ``Decision``; given the answer, it is called
again and carries on from there. A game's flow is the stack of these frames (a routine that
calls a procedure that waits is below the procedure's frame; `simultaneously` keeps a stack per
player), plain data: a game in progress can be copied, saved and loaded whatever point it has
reached (``snapshot.py``), and nothing of it is a suspended Python generator.

`stop`, `pass` and `end game` are raised as ``Signal``; the loop or turn they end catches it in
the routine, and one that leaves a routine is handed to the frame below (``Machine.unwind``).
"""
from __future__ import annotations

from itertools import repeat

from ..grammar import ast as A
from .values import Item, Seat, Sym, show

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
                # worked out with the decision's names and the bound values, leaving no trace
                option = self.option
                label = self.machine.traceless(option.label, self.machine, self.base,
                                               self.values, blame=option.node.label)
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


_FEW = 24  # options looked through in order, rather than by a table of their ids


def _id_of(entry: tuple) -> str:
    """The id of an option as ``Decision`` lists it (made now when the rules left it to be)."""
    oid = entry[0]
    return oid if oid is not None else entry[1].id_of(*entry[2])


class Decision:
    """A decision a player must make: the legal options, and the state's clock when they were
    listed (`clock`).

    The rules list their options as plain tuples (`listed`: the id, the compiled option and the
    values its bindings took; the engine's own `skip`, `done`, confirm and start over as the
    id, None and their label), over the decision's names (`base`); an ``OptionInstance`` is made
    for an option only when it is read (`options`, `chosen`), so that bots, who read ids, never
    pay for the options they do not take."""

    __slots__ = ("player", "prompt", "secret", "node", "clock", "composed", "_options", "_listed",
                 "_base", "_machine", "_ids", "_by_id", "_picked")

    def __init__(self, player: Seat, prompt: str, options: list[OptionInstance] | None,
                 secret: bool, node, clock: int = 0):
        self.player, self.prompt, self.secret, self.node, self.clock = \
            player, prompt, secret, node, clock
        self.composed = node.kind == "compose"  # (read once: a node's fields are slow to read)
        self._options, self._listed, self._ids, self._by_id = options, None, None, None
        self._picked = None

    @classmethod
    def of_listed(cls, player: Seat, prompt: str, listed: list[tuple], base: dict, machine,
                  secret: bool, node, clock: int, composed: bool) -> "Decision":
        d = _new_instance(cls)
        d.player, d.prompt, d.secret, d.node, d.clock = player, prompt, secret, node, clock
        d.composed = composed
        d._options, d._listed, d._base, d._machine, d._ids, d._by_id, d._picked = \
            None, listed, base, machine, None, None, None
        return d

    def _instance(self, entry: tuple, oid: str | None = None) -> OptionInstance:
        """The option listed as `entry` (whose id is `oid`, when known already)."""
        listed_id, option, values = entry
        if option is None:  # one the engine adds: its label is known
            return OptionInstance(listed_id, values, None, self._base)
        if oid is None:
            oid = listed_id if listed_id is not None else option.id_of(*values)
        return new_option(oid, option, self._base, values, self._machine)

    @property
    def options(self) -> list[OptionInstance]:
        options = self._options
        if options is None:
            options = self._options = [self._instance(e) for e in self._listed]
        return options

    @property
    def ids(self) -> list[str]:
        """The legal options' ids, in order."""
        ids = self._ids
        if ids is None:
            ids = self._ids = [_id_of(e) for e in self._listed] if self._options is None \
                else [o.id for o in self._options]
        return ids

    @property
    def by_id(self) -> dict[str, int]:
        """Each legal option's position, by its id (made when first looked up)."""
        by_id = self._by_id
        if by_id is None:
            ids = self.ids
            by_id = self._by_id = dict(zip(ids, range(len(ids))))
        return by_id

    def has(self, oid) -> bool:
        """Whether `oid` is the id of a legal option."""
        picked = self._picked
        if picked is not None and picked[1] == oid:
            return True
        ids = self.ids
        return oid in ids if len(ids) <= _FEW else oid in self.by_id

    def position(self, oid: str) -> int:
        """Where the option whose id is `oid` stands among the legal ones (KeyError when no
        legal option has it)."""
        picked = self._picked
        if picked is not None and picked[1] == oid:
            return picked[0]
        ids = self.ids
        if len(ids) <= _FEW:
            if oid not in ids:
                raise KeyError(oid)
            return ids.index(oid)
        return self.by_id[oid]

    def chosen(self, oid: str) -> OptionInstance:
        """The option whose id is `oid` (KeyError when no legal option has it)."""
        k = self.position(oid)
        if self._options is not None:
            return self._options[k]
        return self._instance(self._listed[k], oid)

    def entry(self, oid: str) -> tuple:
        """The option whose id is `oid` as the routine that asked is handed it, with no option
        object made: (its id, its compiled option and the values its bindings took), or for
        the engine's own (`skip`, `done`, ...) (its id, None, its label). KeyError when no legal
        option has that id."""
        k = self.position(oid)
        if self._options is None:
            return self._listed[k]
        o = self._options[k]
        return (o.id, o.option, o.values) if o.option is not None else (o.id, None, o.label)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Decision({self.player!r}, {self.prompt!r}, {len(self)} options)"

    def id_pairs(self, bots: bool) -> list[tuple[str, None]]:
        """(id, None) for each legal option (`bots`: of `forward_ids`): what bots that read no
        labels are given."""
        ids = self.forward_ids() if bots and self.composed else self.ids
        return list(zip(ids, repeat(None)))

    def forward_ids(self) -> list[str]:
        """The ids bots and automata choose among: without the one that starts a composed
        decision over (when another is legal), so that they always finish it."""
        ids = self.ids
        if not self.composed or not self.has(A.COMPOSE_START_OVER):
            return ids
        return [i for i in ids if i != A.COMPOSE_START_OVER] or ids

    def forward_count(self) -> int:
        """How many ids `forward_ids` has (made only for a composed decision)."""
        if self.composed:
            return len(self.forward_ids())
        return len(self._listed) if self._options is None else len(self._options)

    def forward_id(self, k: int) -> str:
        """The `k`th of `forward_ids` (the list made only for a composed decision), kept as
        picked: `has` and `chosen` know it without listing the ids."""
        if self.composed:
            return self.forward_ids()[k]
        oid = _id_of(self._listed[k]) if self._options is None else self._options[k].id
        self._picked = (k, oid)
        return oid

    def forward_entry(self, k: int) -> tuple[tuple, str]:
        """The `k`th of `forward_ids` as `entry` gives it, and its id: what a bot that picks by
        position takes, with nothing looked up by id."""
        if self._options is None and not self.composed:
            entry = self._listed[k]
            oid = entry[0]
            return entry, oid if oid is not None else entry[1].id_of(*entry[2])
        oid = self.forward_id(k)
        return self.entry(oid), oid

    def forward_options(self) -> list[OptionInstance]:
        """The options of `forward_ids`."""
        forward = self.forward_ids()
        if forward is self.ids:
            return self.options
        return [self.chosen(i) for i in forward]


class Signal(Exception):
    """`stop`, `pass` or `end game`, unwinding the stack to the frame it ends."""

    def __init__(self, kind: str, node):
        super().__init__(kind)
        self.kind, self.node = kind, node

    @property
    def words(self) -> str:
        return {"stop": "stop", "pass": "pass", "end": "end game"}[self.kind]


# ---------------------------------------------------------------------------- compiled rules
class OptionCode:
    """One `option` of a `choose` or of a `compose` step, compiled: how one reads; `choose` and
    `index` say where it stands, so that a saved decision can name it. Its legal instances are
    listed with its decision's (or step's) others (`listing`, generated by
    ``codegen.Generator.options``); its body is written out in the routine that holds the
    decision."""

    __slots__ = ("node", "name", "title", "names", "label", "choose", "index", "id_of")

    @property
    def op_id(self) -> int:
        return self.choose.id

    def __init__(self, gen, o, scope: frozenset, statement):
        self.node, self.name, self.title = o, o.name, o.name.replace("_", " ")
        self.names = tuple(b.name for b in o.bindings)
        self.label = gen.option_label(o, scope)
        # `id_of(*values)`: the id of the instance whose bindings took `values`, for an option
        # listed without ids (its values are numbers of ranges, whose tokens differ:
        # ``Generator.options``), each number written as `str` writes it (`option_token`):
        # `name:{}:{}`, one hole per binding (an option's name is a word: it holds no brace)
        self.id_of = ":".join([o.name, *["{}"] * len(self.names)]).format


class ChooseCode:
    """A `choose` compiled: who decides, the prompt, the options; `id` is its number among the
    ruleset's decisions (saves name an option by it and the option's position)."""

    __slots__ = ("node", "id", "player", "prompt", "options", "listing", "has_done", "optional",
                 "repeat", "composed")

    def __init__(self, gen, s, scope: frozenset):
        self.node, self.composed = s, False
        self.optional, self.repeat = s.optional, s.repeat  # (a node's fields are slow to read)
        self.player, self.prompt = gen.expr(s.player, scope), gen.text(s.prompt, scope)
        self.options = [OptionCode(gen, o, scope, s) for o in s.options]
        self.listing = gen.options(self.options, s, scope)  # every option's, in order
        self.has_done = any(o.name == DONE for o in self.options)  # no `done` to add
        numbered(gen, self)


def numbered(gen, code) -> None:
    """A compiled `choose` or `compose` numbered among the ruleset's decisions, each option
    knowing its decision and its position there (how a save names it)."""
    for k, option in enumerate(code.options):
        option.choose, option.index = code, k
    gen.number(code)


class StepCode:
    """One step of a `compose`, compiled: its prompt, its condition, its options."""

    __slots__ = ("node", "name", "prompt", "until", "options", "listing")

    def __init__(self, gen, step, scope: frozenset, options: list, compose):
        self.node, self.name = step, step.name
        self.prompt, self.until = gen.text(step.prompt, scope), gen.expr(step.until, scope)
        self.options = options
        self.listing = gen.options(options, compose, scope)  # every option's, in order


class ComposeCode:
    """A decision built in steps (`compose`), compiled. `options` holds every step's options in
    order (so that a saved decision names an option as for `choose`: this decision and a
    position); `start_over`: whether the rules say what starting over does."""

    __slots__ = ("node", "id", "player", "prompt", "showing", "steps", "options", "start_over",
                 "composed")

    def __init__(self, gen, s, scope: frozenset):
        self.node, self.composed = s, True
        self.player, self.prompt = gen.expr(s.player, scope), gen.text(s.prompt, scope)
        self.showing = [gen.expr(e, scope) for e in s.showing]
        self.options, self.steps = [], []
        for step in s.steps:
            codes = [OptionCode(gen, o, scope, s) for o in step.options]
            self.steps.append(StepCode(gen, step, scope, codes, s))
            self.options.extend(codes)
        self.start_over = s.start_over is not None
        numbered(gen, self)


class Routine:
    """A block that may wait for a decision, written out as one generated function
    ``fn(machine, stack, frame)`` (``statements.Statements.routine``): it runs `frame` until
    the block ends (it takes the frame off the stack and returns None) or a player must decide
    (it returns the ``Decision``, the frame saying where it waits). `waits` describes each place
    it can wait, by number; `id` is its number among the ruleset's routines (saved frames)."""

    __slots__ = ("id", "fn", "waits", "node")

    def __init__(self, node, registry: list):
        self.node = node
        self.fn = None
        self.waits: dict[int, Wait] = {}
        self.id = len(registry)
        registry.append(self)

    def __repr__(self) -> str:
        return f"Routine({self.id}, {getattr(self.node, 'kind', self.node)!r})"


class Wait:
    """A place where a routine can wait: for a player's decision (`code`, a ChooseCode or
    ComposeCode) or for a frame above it (a called routine, the parts of `simultaneously`, the
    reactions), at statement `node`. `shape` says what the frame keeps there (``Routine``
    writes the positions and values of the loops around it as a tuple) and `names` which of
    the frame's names are bound there, so that a save that holds something else is refused
    when read."""

    __slots__ = ("label", "code", "node", "shape", "names")

    def __init__(self, label: int, code, node, shape: tuple, names: frozenset):
        self.label, self.code, self.node, self.shape = label, code, node, shape
        self.names = names  # the names the routine's code reads from its frame there


# What a frame keeps at a wait (`Wait.shape`), checked when a save is read.
KEPT = {
    "list": lambda v: type(v) is list,                          # a loop's items
    "index": lambda v: type(v) is int and v >= 0,               # a position in them
    "int": lambda v: type(v) is int,                            # a count the rules gave
    "players": lambda v: type(v) is set and all(type(x) is int and x >= 0 for x in v),
    "before": lambda v: v is None or type(v) is tuple and len(v) == 1,  # restored at the end
    "phase": lambda v: v is None or type(v) is str,
    "value": lambda v: True,
}


# ------------------------------------------------------------------------------------- frames
class Frame:
    """Where one part of the flow stands. `run` carries it on: it returns the Decision a player
    must make, or None once it has left the stack or put another frame above itself.
    `take_signal` is given a `stop`, `pass` or `end game` that left the frame above: True when
    this frame takes it (it raises it again where it waits, or ends the game), False when it
    left the stack, handing it further down."""

    __slots__ = ()

    def run(self, m, stack):
        raise NotImplementedError

    def take_signal(self, m, stack, signal) -> bool:
        stack.pop()
        return False


class RoutineFrame(Frame):
    """A routine running a block: its names (`env`, shared with the routines of the blocks it
    holds), the depth of calls, and, while it waits, where (`at`, a `Wait` of its routine), the
    positions and values of the loops around that place (`v`), the decision asked (`decision`).
    `chosen` (the option taken and who took it) and `signal` are handed to it when it is run
    again."""

    __slots__ = ("routine", "env", "depth", "at", "v", "decision", "chosen", "signal")

    def __init__(self, routine: Routine, env: dict, depth: int):
        self.routine, self.env, self.depth = routine, env, depth
        self.at, self.v, self.decision, self.chosen, self.signal = 0, (), None, None, None

    def run(self, m, stack):
        return self.routine.fn(m, stack, self)

    def take_signal(self, m, stack, signal) -> bool:
        self.signal = signal  # raised again where it waits, in the routine's own code
        return True

    @property
    def wait(self) -> "Wait | None":
        return self.routine.waits.get(self.at)

    def waiting_frame(self):
        return self

    def receive(self, m, stack, answer: str, logged: bool = False) -> None:
        """The answer to the waiting decision: counted, logged, and handed to the routine."""
        decision = self.decision
        entry = decision.entry(answer)
        self.decision = None
        self.answered(m, decision, entry, answer, logged)

    def answered(self, m, decision: "Decision", entry: tuple, oid: str,
                 logged: bool = False) -> None:
        """`decision` answered by the option `entry` (whose id is `oid`): counted, logged, and
        handed to the routine (`chosen`), which goes on from where it asked."""
        m.state.decisions += 1
        if not logged and m.keeps_log:
            m.log_decision(decision, decision.chosen(oid))
        self.chosen = (entry, decision.player)

    def recompute(self, m):
        """The state changed while the decision waited: list its options again. None: nothing
        is left to choose, and the routine goes on as when the rules come to a choice with no
        legal option."""
        decision = m.decide(self.wait.code, self.env)
        self.decision = decision
        if decision is None:
            self.chosen = None
        return decision


class SimFrame(Frame):
    """`simultaneously`: each player's part (`branches`, a stack each) runs up to its next
    decision; the decisions are asked in turn against the same state, then carried out in
    order, and so on a round at a time."""

    __slots__ = ("routine", "branches", "waiting", "answers", "k")

    def __init__(self, routine: Routine, branches: list):
        self.routine = routine  # the parts' routine (saves name it)
        self.branches = branches
        self.waiting: list | None = None   # indices of the branches waiting for a decision
        self.answers: list = []            # the answers given this round, in waiting order
        self.k = 0                         # the waiting branch asked next

    def top(self, i):
        return self.branches[i][-1]

    def run(self, m, stack):
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

    def receive(self, m, stack, answer: str, logged: bool = False) -> None:
        """An answer to the decision asked now, kept to be carried out with the round's
        others. The decider reads what they chose at once (`logged`: an answer of a part of
        an enclosing `simultaneously`, read when it was given)."""
        frame = self.waiting_frame()
        if not logged and m.keeps_log:
            m.log_decision(frame.decision, frame.decision.chosen(answer))
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

    def waiting_frame(self) -> RoutineFrame:
        """The frame whose decision is asked now (through nested `simultaneously`)."""
        frame = self.top(self.waiting[self.k])
        return frame.waiting_frame() if isinstance(frame, SimFrame) else frame


class ReactFrame(Frame):
    """After a statement that changed the state: each reaction whose condition has just become
    true runs, in the order they are declared (`r` and `pending` say where the look stands)."""

    __slots__ = ("env", "depth", "r", "pending")

    def __init__(self, env, depth):
        self.env, self.depth, self.r, self.pending = env, depth, 0, None

    def run(self, m, stack):
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

    def __init__(self):
        self.stage = 0

    def run(self, m, stack):
        code = m.rules.code
        self.stage += 1
        if self.stage == 1:
            if code.setup is not None:
                stack.append(RoutineFrame(code.setup, {}, 0))
        elif self.stage == 2:
            m.set_up = True
            if code.play is not None:
                stack.append(RoutineFrame(code.play, {}, 0))
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
            stack.append(RoutineFrame(m.rules.code.scoring, {}, 0))

    def take_signal(self, m, stack, signal) -> bool:
        """`end game` (or a stray `stop` or `pass`): on to scoring; in scoring, to the end."""
        if self.stage < 3:
            self.to_scoring(m, stack)
        else:
            self.stage = 3
        return True


FRAMES = {cls.__name__: cls for cls in (RoutineFrame, SimFrame, ReactFrame, RunFrame)}

__all__ = ["ChooseCode", "ComposeCode", "Decision", "OptionInstance", "Routine", "Signal",
           "CHOOSER", "DONE", "FRAMES", "KEPT", "RoutineFrame", "RunFrame", "SimFrame",
           "new_option", "option_token"]
