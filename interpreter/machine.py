"""The machine: runs the compiled flow (``flow.py``) over a game's state, and does what
statements do to it. It never waits: it returns the ``Decision`` a player must make, and
``resume`` takes the answer. Where it stands is its stack of frames, which is plain data.
"""
from __future__ import annotations

from ..grammar import ast as A
from .errors import RuleError
from .effects import Effects, own_copy
from .evaluator import Evaluator, truth
from .flow import (
    CHOOSER, DONE, Decision, OptionInstance, RoutineFrame, RunFrame, Signal, SimFrame, option_token,
)
from .pieces import fill_holdings
from .rules import UNKNOWN, Rules
from .state import GameState, Limits
from .values import Seat, show, type_name

RECOMPUTE = object()  # sent to a waiting decision after the state was changed from outside
CONTROL_SIGNALS = (Signal,)


class Machine(Evaluator, Effects):
    def __init__(self, rules: Rules, state: GameState, limits: Limits):
        super().__init__(rules, state, limits)
        self.set_up = False  # setup has run to its end: from then on the invariants hold
        self.secret_depth = 0  # inside the parts of `simultaneously`: decisions are secret
        self.dirty = False  # the state changed since the reactions were last looked at
        # The variables changed since the invariants were last checked; None: unknown which
        # (a structure's field, a list reached through a local name), so check them all.
        self.touched: set[str] | None = None
        self.stack: list = [RunFrame()]
        self.side_steps = 0  # the steps of work that left no trace (see `traceless`)
        # False: the game keeps no log (simulations, search rollouts): no line is written, and
        # the label of a decision taken is not worked out (docs/engine.md, The log).
        self.keeps_log = True
        # Bots that pick by position, answering each decision where the rules ask it, so that
        # the routine asking goes on without waiting (``game.AnsweredAtOnce``); None: every
        # decision waits, to be answered by `resume`.
        self.answer_now = None

    # --------------------------------------------------------------------------- running
    def start(self) -> Decision | None:
        """Set the state up and run to the first decision (None: the game is over)."""
        self.initialise()
        return self.run(self.stack)

    def resume(self, answer) -> Decision | None:
        """Give the waiting decision its answer (or RECOMPUTE it) and run to the next one."""
        frame = self.stack[-1]
        if answer is RECOMPUTE:
            decision = frame.recompute(self)
            if decision is not None:
                return decision
            # a `given` left nothing to choose: the decision is passed over, as when the
            # rules come to a choice with no legal option (`otherwise`, or on)
            return self.run(self.stack)
        frame.receive(self, self.stack, answer)
        return self.run(self.stack)

    def run(self, stack) -> Decision | None:
        """Carry the flow on, the frame on top of the stack first, to the next decision (None:
        the stack is empty)."""
        while stack:
            frame = stack[-1]
            try:  # a routine's frame runs its routine (`RoutineFrame.run`), called here at once
                decision = frame.routine.fn(self, stack, frame) if type(frame) is RoutineFrame \
                    else frame.run(self, stack)
            except Signal as signal:
                self.unwind(stack, signal)
                continue
            except RuleError as err:
                if err.node is None:  # a limit reached deep inside: blame the statement running
                    err.node = statement_of(stack[-1]) if stack else None
                raise
            if decision is not None:
                self.charge_decision(stack[-1])
                return decision
        return None

    def charge_decision(self, frame) -> None:
        """Asking for a decision costs steps (`tick`, inline), blamed on where `frame` waits:
        whether the decision then waits or a bot answers it where it is asked."""
        st = self.state
        st.steps += self.limits.decision_steps
        if st.steps >= self.next_check:
            self.steps_checked(statement_of(frame))

    def descend(self, stack, height: int) -> Decision | None:
        """Run the frames above `height` (just put there by a routine) until they have left the
        stack (None) or one waits (its Decision). A signal none of them takes is raised again,
        in the routine below."""
        while len(stack) > height:
            try:
                decision = stack[-1].run(self, stack)
            except Signal as signal:
                while len(stack) > height:
                    if stack[-1].take_signal(self, stack, signal):
                        break
                else:
                    raise
                continue
            if decision is not None:
                return decision
        return None

    def unwind(self, stack, signal: Signal) -> None:
        """`stop`, `pass` or `end game` that left the frame on top (its routine did not end
        it): the frames below are given it in turn, until one takes it."""
        while stack:
            if stack[-1].take_signal(self, stack, signal):
                return
        raise signal  # out of a part of `simultaneously`: the frame around it goes on

    def run_branch(self, sim, i: int, answer=None) -> bool:
        """Run part `i` of a `simultaneously` (giving its waiting decision `answer` first);
        True when it waits for a decision, False when it has ended."""
        branch = sim.branches[i]

        def go():
            if answer is not None:
                branch[-1].receive(self, branch, answer, logged=True)
            return self.run(branch)

        try:
            return self.in_branch(go) is not None
        except Signal as signal:  # a `stop` or `end game` that the part does not end itself
            sim.branches = [b for b in sim.branches if b is not branch]
            self.unwind(self.stack_of(sim), signal)
            return False

    def in_branch(self, fn):
        self.secret_depth += 1
        try:
            return fn()
        finally:
            self.secret_depth -= 1

    def stack_of(self, frame) -> list:
        """The stack that holds `frame` (the game's, or a part's of a `simultaneously`)."""
        def find(stack):
            if any(f is frame for f in stack):
                return stack
            for f in stack:
                for branch in getattr(f, "branches", ()):
                    found = find(branch)
                    if found is not None:
                        return found
            return None
        return find(self.stack)

    def call(self, stack, routine, env, depth, node) -> None:
        """Run a reaction's block, one call deeper (put on the stack: the machine runs it)."""
        self.enter_call(depth, node)
        stack.append(RoutineFrame(routine, env, depth + 1))

    def finish(self) -> None:
        st = self.state
        st.winners = self.decide_winners()
        if self.keeps_log:  # (a game that keeps no log writes no line: docs/engine.md, The log)
            names = ", ".join(show(p) for p in st.winners) or "nobody"
            self.log(f"Game over. Winner: {names}", kind="end")

    # ------------------------------------------------------------------------- game start
    def initialise(self) -> None:
        st, code = self.state, self.rules.code
        for name, value in code.consts:
            st.consts[name] = value(self, {})
        for name, (decl, value, known) in code.globals.items():
            if known is not UNKNOWN:  # as written: nothing to work out
                st.globals[name] = self.kept(decl, known, decl)
            elif decl.kind == "component_state":  # each component of the record has its own
                st.globals[name] = {item: self.initial(decl, value, {})
                                    for item in self.components(decl.record, decl)}
            else:
                st.globals[name] = self.initial(decl, value, {})
        for seat in st.seats:
            for name, (decl, value, known) in code.players.items():
                seat.vars[name] = self.kept(decl, known, decl) if known is not UNKNOWN \
                    else self.initial(decl, value, {"me": seat})
        fill_holdings(self)

    def initial(self, decl, value, env):
        t = decl.type
        if t.kind == "grid_type":
            fill = value(self, env) if value is not None else None
            return self.new_grid(t, fill, decl)
        if value is not None:
            return own_copy(self.kept(decl, self.clamp(decl, value(self, env), env),
                                      decl.initial))
        return self.default_for(t, decl)

    def clamp(self, decl, value, env):
        bounds = self.rules.code.bounds.get(id(decl))
        if bounds is None:
            return value
        low, high = bounds
        if low is not None:
            lo = self.bound_of(low, decl.at_least, env, "at least")
            if isinstance(value, int) and value < lo:
                value = lo
        if high is not None:
            hi = self.bound_of(high, decl.at_most, env, "at most")
            if isinstance(value, int) and value > hi:
                value = hi
        return value

    def bound_of(self, compiled, expr, env, words: str) -> int:
        v = compiled(self, env)
        if type(v) is not int:
            raise RuleError("E0306", f"`{words}` needs a number, not {type_name(v)} `{show(v)}`",
                            expr)
        return v

    def decide_winners(self) -> list[Seat]:
        w = self.rules.code.winner
        if w is None:
            return []
        node, rows, _, _, random = w
        ordered = self.order(rows(self, {}), node)
        if not ordered:
            return []
        if random:
            return [ordered[0][0]]  # a random key leaves no tie: `order` drew the first
        best = ordered[0][1]
        return [p for p, k in ordered if k == best]

    # ------------------------------------------------------------------------- decisions
    def decide(self, op, env) -> Decision | None:
        """The decision a `choose` or `compose` (compiled: `op`) asks now with the names `env`,
        or None when nothing is legal (or, composed, nothing is left to confirm)."""
        if op.composed:
            player = op.player(self, env)
            if type(player) is not Seat:
                raise self.not_a_player(op, player)
            step = self.decide_composed(op, env)
            if step is None:
                return None
            prompt, listed = step
        else:
            asked = self.choice(op, env)
            if asked is None:
                return None
            player, listed = asked
            prompt = self.prompt(op.prompt, env)
        return self.decision_of(op, env, player, prompt, listed)

    def choice(self, op, env) -> tuple[Seat, list] | None:
        """What a `choose` (not composed) asks now: who decides and the options listed, with
        the engine's own `skip` and `done` where it adds them (None: nothing is legal). Its
        prompt is worked out apart (`prompt`), for a decision that waits: a bot answering it
        where it is asked reads none."""
        player = op.player(self, env)
        if type(player) is not Seat:
            raise self.not_a_player(op, player)
        listed = self.options(env, op.listing)
        if not listed:
            return None
        if op.optional:
            listed.append(("skip", None, "Skip"))
        if op.repeat and not op.has_done:
            listed.append((DONE, None, "Done"))
        return player, listed

    def decision_of(self, op, env, player: Seat, prompt: str, listed: list) -> Decision:
        """The decision that waits for `player`'s answer among the options `listed`."""
        decision = Decision.of_listed(player, prompt, listed, env, self, self.secret_depth > 0,
                                      op.node, self.state.clock, op.composed)
        if self.watcher is not None:  # an audited decision reads its labels at once: seen now
            for o in decision.options:
                o.label
        return decision

    @staticmethod
    def not_a_player(op, value) -> RuleError:
        """The error of a `choose` or `compose` (compiled: `op`) asked of `value`, no player."""
        return RuleError("E0306", f"`choose` needs a player, not {type_name(value)}",
                         op.node.player)

    def prompt(self, prompt, env) -> str:
        """What a decision (or a step of one) asks: written as a text, or worked out leaving no
        trace in the game (as a label: so whether it is read never changes the game), or
        `Choose`."""
        if type(prompt) is str:
            return prompt
        return "Choose" if prompt is None else self.traceless(prompt, self, env)

    def decide_composed(self, op, env) -> tuple[str, list] | None:
        """The step of a `compose` asked now, as its prompt and options: the first whose `until`
        does not hold; once all hold, confirm or start over (None: nothing to confirm, the
        decision is made)."""
        prompt = self.prompt(op.prompt, env)
        for step in op.steps:
            if truth(step.until(self, env), step.node.until):
                continue
            listed = self.options(env, step.listing)
            if not listed:
                raise RuleError("E0325", f"step `{step.name}` is not finished (its `until` "
                                "does not hold) and none of its options is legal", step.node,
                                "let the step offer an option while it is not finished, or "
                                "make its `until` hold")
            if step.prompt is not None:
                prompt = self.prompt(step.prompt, env)
            break
        else:
            if not op.start_over:
                return None
            listed = [(A.COMPOSE_DONE, None, "Confirm"),
                      (A.COMPOSE_START_OVER, None, "Start over")]
            prompt = f"{prompt}: confirm, or start over"
        return prompt, listed

    def preview(self) -> list | None:
        """The values a waiting `compose` shows (`showing`), computed for its decider when
        they look, never for bots; it leaves no trace (steps, random draws, new structures)."""
        frame = self.waiting_frame()
        wait = getattr(frame, "wait", None)
        showing = getattr(getattr(wait, "code", None), "showing", None)
        if not showing or getattr(frame, "decision", None) is None:
            return None
        return self.traceless(lambda: [e(self, frame.env) for e in showing])

    def traceless(self, work, *args, blame=None):
        """`work(*args)`, leaving no trace in the game: the steps it took, the structures it made
        and its random draws are undone. Its steps are bounded by what is left of the game's budget
        and counted apart (`Limits.max_side_steps`), so that work given back again and again
        (labels and prompts read, invariants checked, log lines written) still ends. An error raised without
        a node of its own (a budget spent) blames `blame`. (Generated code writes this out
        around a log line: `side_begun`, `side_ended`, `side_bounded`.)"""
        mark = self.side_begun()
        try:
            result = work(*args)
        except RuleError as err:
            if err.node is None:
                err.node = blame
            raise
        finally:
            self.side_ended(mark)
        self.side_bounded(blame)
        return result

    def side_begun(self) -> tuple:
        """What work that leaves no trace gives back: the steps, structures and draws so far.
        Its draws are the generator's own, never a chance player's (`chance.py`): they are
        given back, no event of the game."""
        st = self.state
        rng = st.rng
        mark = st.steps, st.struct_ids, rng.state, rng.chance
        rng.chance = None
        return mark

    def side_ended(self, mark: tuple) -> None:
        """Work that leaves no trace undone (`mark`: from `side_begun`), its steps counted apart."""
        st = self.state
        steps, made, drawn, chance = mark
        self.side_steps += st.steps - steps
        st.steps, st.struct_ids, st.rng.state, st.rng.chance = steps, made, drawn, chance

    def side_bounded(self, blame) -> None:
        if self.side_steps > self.limits.max_side_steps:
            raise RuleError("E0301", f"checks, labels, prompts, previews and log lines ran more "
                            f"than {self.limits.max_side_steps:,} steps in one game", blame,
                            "make invariants, labels, prompts and log lines cheaper: they are "
                            "worked out often")

    def options(self, env, listing) -> list[tuple]:
        """The legal options a `choose` (or a `compose` step) lists (`listing`, generated),
        as the rules make them (``flow.Decision``), while the state stands still
        (`standing_still`)."""
        out: list[tuple] = []
        self.standing_still(listing, self, env, out, set())
        return out

    @staticmethod
    def unique_option_id(oid: str, seen: set) -> str:
        """`oid~2`, `oid~3`, ...: the id of another option that reads as one already listed."""
        n = 2
        while f"{oid}~{n}" in seen:
            n += 1
        return f"{oid}~{n}"

    def too_many_options(self, node):
        raise RuleError("E0303", f"more than {self.limits.max_options} options at one decision",
                        node, "split the choice into smaller steps")

    def log_decision(self, decision: Decision, chosen: OptionInstance) -> None:
        who = [decision.player.seat] if decision.secret else None
        self.log(show(decision.player) + ": " + chosen.label, who, "decision")

    def waiting_frame(self):
        """The choose frame whose decision the game waits for."""
        frame = self.stack[-1] if self.stack else None
        return frame.waiting_frame() if hasattr(frame, "waiting_frame") else frame

    # ------------------------------------------------------------------------- the log
    def log(self, text: str, to: list[int] | None = None, kind: str = "rule") -> None:
        """Add a log line, within the limits on the number of lines and their total size."""
        if not self.keeps_log:
            return
        st, limits = self.state, self.limits
        st.log_chars += len(text)
        log = st.log
        if len(log) >= limits.max_log_lines or st.log_chars > limits.max_log_chars:
            raise RuleError("E0303", f"the log is full ({len(st.log):,} lines, "
                            f"{st.log_chars:,} characters; limits {limits.max_log_lines:,} "
                            f"and {limits.max_log_chars:,})", None,
                            "log less, or log once per round rather than per step")
        log.append({"kind": kind, "text": text, "to": to})

    # ------------------------------------------------------------------------ automata
    def automaton_choice(self, decision: Decision) -> str:
        code = self.rules.code
        for option, within, keys in code.policies.get(decision.player.automaton, ()):
            if within is not None and within not in code.scopes.get(
                    id(decision.node), (None, ()))[1]:
                continue  # a line for the decisions of another procedure, phase or step
            matching = [o for o in decision.options if o.option is not None
                        and o.option.name == option]
            if matching:
                node = decision.node
                rows = [(o, self.sort_keys(keys, o.env)) for o in matching]
                return self.order(rows, node)[0][0].id
        return self.automaton_otherwise(decision, code.otherwise.get(decision.player.automaton))

    def automaton_otherwise(self, decision: Decision, line) -> str:
        """A decision no `prefer` line covers: what the automaton's `otherwise` line says (the
        first legal option when it has none)."""
        mode = line.mode if line is not None else "first"
        options = decision.forward_options()  # a composed decision is not started over
        if mode == "random":
            self.saw_hidden |= self.watcher is not None  # a random draw, as for `random` keys
            return options[self.state.rng.below(len(options))].id
        if mode == "error":
            shown = ", ".join(o.id for o in options[:6])
            more = ", ..." if len(options) > 6 else ""
            raise RuleError("E0318", f"{decision.player.automaton} has no `prefer` line for the "
                            f"decision \"{decision.prompt}\" (legal options: {shown}{more})",
                            decision.node, "add a `prefer` line for one of its options, or "
                            "write `otherwise first` in the automaton")
        return options[0].id


__all__ = ["Machine", "Decision", "OptionInstance", "RECOMPUTE", "CONTROL_SIGNALS", "CHOOSER",
           "option_token", "own_copy"]


def statement_of(frame):
    """The statement a frame waits at (for an error raised without a node of its own)."""
    if isinstance(frame, SimFrame):
        return frame.routine.node
    wait = getattr(frame, "wait", None)
    return wait.node if wait is not None else None
