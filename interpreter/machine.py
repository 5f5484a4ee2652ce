"""The machine: runs the compiled flow (``flow.py``) over a game's state, and does what
statements do to it. It never waits: it returns the ``Decision`` a player must make, and
``resume`` takes the answer. Where it stands is its stack of frames, which is plain data.
"""
from __future__ import annotations

from ..grammar import ast as A
from .errors import RuleError
from .evaluator import Evaluator, _same, truth
from .flow import CHOOSER, DONE, BlockFrame, Decision, OptionInstance, RunFrame, Signal, option_token
from .pieces import fill_holdings
from .rules import Rules
from .state import MOVED, GameState, Limits
from .values import Grid, Item, Seat, Struct, Sym, elements, nesting_problem, show, type_name

RECOMPUTE = object()  # sent to a waiting decision after the state was changed from outside
CONTROL_SIGNALS = (Signal,)


def own_copy(value):
    """A list, map or grid stored in a state variable is the variable's own: setting `xs = ys`
    copies ys, so later changes to one never show in the other (or in a constant)."""
    if isinstance(value, (list, dict)):
        return type(value)(value)
    if isinstance(value, Grid):
        copy = Grid(value.rows, value.columns)
        copy.cells = list(value.cells)
        return copy
    return value


class Machine(Evaluator):
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
        while stack:
            try:
                decision = stack[-1].step(self, stack)
            except Signal as signal:
                self.unwind(stack, signal)
                continue
            except RuleError as err:
                if err.node is None:  # a limit reached deep inside: blame the statement running
                    err.node = statement_of(stack[-1])
                raise
            if decision is not None:
                self.tick(statement_of(stack[-1]), self.limits.decision_steps)
                return decision
        return None

    def unwind(self, stack, signal: Signal) -> None:
        """`stop`, `pass`, `end game`: pop frames up to the one the signal ends."""
        while stack:
            frame = stack[-1]
            if signal.kind in frame.ends:
                if isinstance(frame, RunFrame):
                    frame.ended(self, stack, signal)
                else:
                    stack.pop()
                    frame.exit(self)
                return
            if signal.kind == "pass" and getattr(frame, "passes", None) is not None \
                    and frame.op.node.kind in ("turns", "turns_from"):
                frame.passes(self)
                return
            stack.pop()
            frame.exit(self)
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

    def call(self, stack, body, env, depth, node) -> None:
        """Run a procedure's, handler's or reaction's block, one call deeper."""
        from .flow import BlockFrame

        if depth + 1 > self.limits.max_depth:
            raise RuleError("E0302", f"calls nest more than {self.limits.max_depth} deep", node)
        self.tick(node)
        stack.append(BlockFrame(body, env, depth + 1))

    def finish(self) -> None:
        st = self.state
        st.winners = self.decide_winners()
        names = ", ".join(show(p) for p in st.winners) or "nobody"
        self.log(f"Game over. Winner: {names}", kind="end")

    # ------------------------------------------------------------------------- game start
    def initialise(self) -> None:
        st, code = self.state, self.rules.code
        for name, value in code.consts:
            st.consts[name] = value(self, {})
        for name, (decl, value) in code.globals.items():
            if decl.kind == "component_state":  # each component of the record has its own
                st.globals[name] = {item: self.initial(decl, value, {})
                                    for item in self.components(decl.record, decl)}
                continue
            st.globals[name] = self.initial(decl, value, {})
        for seat in st.seats:
            for name, (decl, value) in code.players.items():
                seat.vars[name] = self.initial(decl, value, {"me": seat})
        fill_holdings(self)

    def initial(self, decl, value, env):
        t = decl.type
        if t.kind == "grid_type":
            fill = value(self, env) if value is not None else None
            return self.new_grid(t, fill, decl)
        if value is not None:
            return own_copy(self.clamp(decl, value(self, env), env))
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
        node, rows, _ = w
        ordered = self.order(rows(self, {}), node)
        if not ordered:
            return []
        if any(k.kind == "random_key" for k in node.keys):
            return [ordered[0][0]]  # a random key leaves no tie: `order` drew the first
        best = ordered[0][1]
        return [p for p, k in ordered if k == best]

    # ------------------------------------------------------------------------- decisions
    def decide(self, frame) -> Decision | None:
        """The decision a choose frame asks now, or None when nothing is legal."""
        op, env = frame.op, frame.env
        node = op.node
        player = op.player(self, env)
        if not isinstance(player, Seat):
            raise RuleError("E0306", f"`choose` needs a player, not {type_name(player)}",
                            node.player)
        if node.kind == "compose":
            return self.decide_composed(frame, player)
        options = self.options(op, env)
        if node.repeat and options and not any(o.name == DONE for o in op.options):
            options.append(OptionInstance(DONE, "Done", None, env))
        if not options:
            return None
        prompt = op.prompt(self, env) if op.prompt is not None else "Choose"
        return Decision(player, prompt, options, self.secret_depth > 0, node,
                        clock=self.state.clock)

    def decide_composed(self, frame, player: Seat) -> Decision | None:
        """The step of a `compose` asked now: the first whose `until` does not hold; once all
        hold, confirm or start over (None: nothing to confirm, the decision is made)."""
        op, env = frame.op, frame.env
        node = op.node
        prompt = op.prompt(self, env) if op.prompt is not None else "Choose"
        for step in op.steps:
            if truth(step.until(self, env), step.node.until):
                continue
            options = self.options(op, env, step.options)
            if not options:
                raise RuleError("E0325", f"step `{step.name}` is not finished (its `until` "
                                "does not hold) and none of its options is legal", step.node,
                                "let the step offer an option while it is not finished, or "
                                "make its `until` hold")
            if step.prompt is not None:
                prompt = step.prompt(self, env)
            break
        else:
            if op.start_over is None:
                return None
            options = [OptionInstance(A.COMPOSE_DONE, "Confirm", None, env),
                       OptionInstance(A.COMPOSE_START_OVER, "Start over", None, env)]
            prompt = f"{prompt}: confirm, or start over"
        return Decision(player, prompt, options, self.secret_depth > 0, node,
                        clock=self.state.clock)

    def preview(self) -> list | None:
        """The values a waiting `compose` shows (`showing`), computed for its decider when
        they look, never for bots; it leaves no trace (steps, random draws, new structures)."""
        frame = self.waiting_frame()
        showing = getattr(getattr(frame, "op", None), "showing", None)
        if not showing or getattr(frame, "decision", None) is None:
            return None
        return self.traceless(lambda: [e(self, frame.env) for e in showing])

    def traceless(self, work):
        """`work()`, leaving no trace in the game: the steps it took, the structures it made and
        its random draws are undone. Its steps are bounded by what is left of the game's budget
        and counted apart (`Limits.max_side_steps`), so that work given back again and again
        (labels read, invariants checked) still ends."""
        st = self.state
        kept = st.steps, st.struct_ids, st.rng.state
        try:
            result = work()
        finally:
            self.side_steps += st.steps - kept[0]
            st.steps, st.struct_ids, st.rng.state = kept
        if self.side_steps > self.limits.max_side_steps:
            raise RuleError("E0301", f"checks, labels and previews ran more than "
                            f"{self.limits.max_side_steps:,} steps in one game", None,
                            "make invariants and labels cheaper: they are worked out often")
        return result

    def options(self, op, env, codes=None) -> list[OptionInstance]:
        """The legal options of a `choose` (or `codes`, the options of a `compose` step)."""
        return self.standing_still(lambda: self._options(op, env, codes))

    def _options(self, op, env, codes) -> list[OptionInstance]:
        out: list[OptionInstance] = []
        seen: set[str] = set()
        for opt in op.options if codes is None else codes:
            opt.enumerate(self, env, out, seen)
        if self.watcher is not None:  # an audited decision reads them at once: seen now
            for o in out:
                o.label
        if codes is None and op.node.optional and out:
            out.append(OptionInstance("skip", "Skip", None, env))
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

    def label_text(self, opt, env) -> str:
        """How an option reads (see OptionInstance): its label, or its name and values."""
        if opt.label is None:
            return " ".join([opt.name.replace("_", " ")] + [show(env[n]) for n in opt.names])
        return self.traceless(lambda: opt.label(self, env))

    def log_decision(self, decision: Decision, chosen: OptionInstance) -> None:
        who = [decision.player.seat] if decision.secret else None
        self.log(f"{show(decision.player)}: {chosen.label}", to=who, kind="decision")

    def waiting_frame(self):
        """The choose frame whose decision the game waits for."""
        frame = self.stack[-1] if self.stack else None
        return frame.waiting_frame() if hasattr(frame, "waiting_frame") else frame

    # ------------------------------------------------------------------------- the log
    def log(self, text: str, to: list[int] | None = None, kind: str = "rule") -> None:
        """Add a log line, within the limits on the number of lines and their total size."""
        st = self.state
        st.log_chars += len(text)
        if len(st.log) >= self.limits.max_log_lines or st.log_chars > self.limits.max_log_chars:
            raise RuleError("E0303", f"the log is full ({len(st.log):,} lines, "
                            f"{st.log_chars:,} characters; limits {self.limits.max_log_lines:,} "
                            f"and {self.limits.max_log_chars:,})", None,
                            "log less, or log once per round rather than per step")
        st.add_log(text, to, kind)

    # ------------------------------------------------------------------------- changes
    def unwatched(self, read, env, how=None):
        """Evaluate where a value goes (a target, a destination) without counting it as seen:
        adding to a hidden deck or increasing a secret count shows nothing of it."""
        watcher, self.watcher = self.watcher, None
        try:
            return how(read, env) if how is not None else read(self, env)
        finally:
            self.watcher = watcher

    def assign(self, target, value, env):
        st = self.state
        node = target.node
        kind = target.kind
        if kind == "name":
            name = target.name
            if target.local:
                env[name] = value
                return
            decl = self.rules.global_vars.get(name)
            if decl is None:
                raise RuleError("E0311", f"`{name}` is not a variable that can be set", node,
                                f"declare it with `global {name}: ...` or `let {name} = ...`")
            value = own_copy(self.clamp(decl, value, env))
            self.storable(value, None, node)
            if not self.same(st.globals.get(name), value, node):
                st.globals[name] = value
                self.changed((0, name), decl)
            return
        if kind == "field":
            obj = target.obj(self, env)
            name = node.name
            if isinstance(obj, Seat):
                decl = self.rules.player_vars.get(name)
                if decl is None:
                    raise RuleError("E0311", f"players have no variable `{name}`", node)
                value = own_copy(self.clamp(decl, value, {"me": obj}))
                self.storable(value, None, node)
                if not self.same(obj.vars.get(name), value, node):
                    obj.vars[name] = value
                    self.changed((obj.seat, name), decl)
                return
            if isinstance(obj, Struct):
                if name not in obj.fields:
                    raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
                self.storable(value, obj, node)
                obj.fields[name] = value
                self.changed(None, None, obj)
                return
            if isinstance(obj, Item):
                decl = self.rules.component_vars.get((obj.record, name))
                if decl is None:
                    raise RuleError("E0306", f"the fields of a component ({obj.record}) cannot "
                                    "be changed", node, "keep changing values in state variables, "
                                    "state on the component (`on Record name: ...`) or structures "
                                    "made with `new`")
                carried = st.globals[decl.key]
                value = own_copy(self.clamp(decl, value, {}))
                self.storable(value, None, node)
                if not self.same(carried.get(obj), value, node):
                    carried[obj] = value
                    self.changed((0, decl.key), decl)
                return
            raise RuleError("E0306", f"cannot set `.{name}` of {type_name(obj)}", node)
        if kind == "index":
            obj = target.obj(self, env)
            idx = [i(self, env) for i in target.indices]
            self.storable(value, obj, node)
            if isinstance(obj, Grid):
                obj.cells[self.grid_pos(obj, idx, node)] = value
            elif isinstance(obj, dict):
                obj[self.map_key(idx, node)] = value
            elif isinstance(obj, list):
                obj[self.list_pos(obj, idx, node)] = value
            elif isinstance(obj, Struct):
                name = self.field_key(obj, idx, node)
                if name not in obj.fields:
                    raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
                obj.fields[name] = value
            elif isinstance(obj, Item):
                raise RuleError("E0306", f"the fields of a component ({obj.record}) cannot be "
                                "changed", node, "keep changing values in state variables or "
                                "structures made with `new`")
            else:
                raise RuleError("E0306", f"cannot index {type_name(obj)}", node)
            self.changed(self.variable_key(node.obj, target.var, env), None, obj)
            return
        raise RuleError("E0306", "only variables, fields and list or grid cells can be set",
                        node)

    def storable(self, value, container, node) -> None:
        """Refuse a value that would contain its own container or nest too deeply."""
        if isinstance(value, (list, dict, Grid, Struct)):
            self.tick(node, elements(value))
            problem = nesting_problem(value, container, self.limits.max_nesting)
            if problem:
                raise RuleError("E0303", f"cannot store this value: {problem}", node,
                                "store a copy, or keep the values side by side")

    def changed(self, key, decl, inside=None) -> None:
        """Note a change of state variable `key`, or (key None) of a list, map or structure
        `inside` that some variables may hold."""
        st = self.state
        st.clock += 1
        if key is None:
            self.touched = None
            if inside is not None and st.reveals_until_changed:
                self.end_reveals_holding(inside)
        else:
            if self.touched is not None:
                self.touched.add(key[1])
            if decl is not None and decl.stacked:
                st.changed_at[key] = st.clock
            if key in st.reveals_until_changed:  # `reveal x until changed`: its value is gone
                st.reveals_until_changed.discard(key)
                st.reveals.pop(key, None)
        self.dirty = True

    def end_reveals_holding(self, inside) -> None:
        """`reveal x until changed` ends when a value inside x is changed in place."""
        st = self.state
        for key in list(st.reveals_until_changed):
            seat, name = key
            holder = st.globals if seat == 0 else st.seats[seat - 1].vars
            if holds(holder.get(name), inside, self):
                st.reveals_until_changed.discard(key)
                st.reveals.pop(key, None)

    def key_of(self, place, env):
        """(seat or 0, name) when `place` names a state variable (a zone being changed), else
        None; never raises (the statement's own evaluation reports any error)."""
        return self.variable_key(place.node, place.var, env)

    def variable_key(self, node, var, env):
        if var is None:
            return None
        if var[0] == "global":
            name = var[1]
            return (0, name) if name in self.rules.global_vars and name not in env else None
        try:
            obj = self.unwatched(var[1], env)
        except RuleError:
            return None
        if isinstance(obj, Item):  # state on a component: `t.shares[p]`
            decl = self.rules.component_vars.get((obj.record, var[2]))
            return None if decl is None else (0, decl.key)
        return (obj.seat, var[2]) if isinstance(obj, Seat) and var[2] in self.rules.player_vars \
            else None

    # ---------------------------------------------------------------------------- moving
    def container(self, place, env):
        """A list to move from/to, or (grid, position) for a grid cell."""
        if place.grid is not None:
            obj = place.grid(self, env)
            if isinstance(obj, Grid):
                return (obj, self.grid_pos(obj, [i(self, env) for i in place.cell], place.node))
        value = place.value(self, env)
        if isinstance(value, list):
            return value
        raise RuleError("E0306", f"can only move from and to lists, decks or grid cells, not "
                        f"{type_name(value)}", place.node)

    def move(self, op, env):
        node = op.node
        if op.source is None:  # `move x to B`: from the zone that holds x
            item = op.item(self, env)
            dst = self.unwatched(op.dest, env, self.container)
            src, key = self.zone_of(item, node)
            self.take(src, item, node)
            self.put(dst, [item], op.place, node)
            self.changed(key, None)
            self.changed(self.key_of(op.dest, env), None)
            self.note_moved([item])
            return
        src = self.container(op.source, env)
        dst = self.unwatched(op.dest, env, self.container)
        if op.what == "one":
            item = op.item(self, env)
            self.take(src, item, node)
            moved = [item]
        elif op.what == "all":
            moved = self.take_all(src)
        else:
            n = op.item(self, env)
            if type(n) is not int or n < 0:
                raise RuleError("E0306", "`move top N` needs a number of 0 or more", node)
            moved = self.take_top(src, n)
        self.put(dst, moved, op.place, node)
        self.changed(self.key_of(op.source, env), None)
        self.changed(self.key_of(op.dest, env), None)
        self.note_moved(moved)

    def note_moved(self, moved) -> None:
        """Remember when each component moved (`moved_at(x)`): the clock of this move."""
        at = self.state.changed_at
        for x in moved:
            if type(x) is Item:
                at[(MOVED, x.id)] = self.state.clock

    def zone_of(self, item, node):
        """The state variable (a list, deck or grid, global or a player's) that holds the
        component `item`, as (container, key); each element looked at costs a step."""
        if not isinstance(item, (Item, Struct)):
            raise RuleError("E0306", f"`move` without `from` needs a component, not "
                            f"{type_name(item)}", node, "write `move x from A to B`")
        st = self.state
        places = [((0, name), value) for name, value in st.globals.items()]
        places += [((seat.seat, name), value) for seat in st.seats
                   for name, value in seat.vars.items()]
        found = []
        for key, value in places:
            if isinstance(value, list):
                self.tick(node, len(value))
                if any(x is item for x in value):
                    found.append((key, value))
            elif isinstance(value, Grid):
                self.tick(node, len(value.cells))
                found += [(key, (value, i)) for i, x in enumerate(value.cells) if x is item]
        if len(found) != 1:
            where = " and ".join(self._zone_name(k) for k, _ in found[:2])
            raise RuleError("E0308", f"`{show(item)}` is in {'no zone' if not found else where}"
                            ", so `move` cannot tell where to take it from", node,
                            "name the zone: `move x from A to B`")
        key, src = found[0]
        if self.watcher is not None:
            self.note_read(*key)
        return src, key

    @staticmethod
    def _zone_name(key) -> str:
        return key[1] if key[0] == 0 else f"player {key[0]}'s {key[1]}"

    def take(self, src, item, node):
        if isinstance(src, tuple):
            grid, pos = src
            if grid.cells[pos] is None or not _same(grid.cells[pos], item):
                raise RuleError("E0308", f"`{show(item)}` is not in that grid cell", node)
            grid.cells[pos] = None
            return
        i = self.contains(src, item, node)
        if i:
            del src[i - 1]
            return
        raise RuleError("E0308", f"`{show(item)}` is not in the place it is moved from", node,
                        "check where the element is before moving it")

    def take_all(self, src) -> list:
        if isinstance(src, tuple):
            grid, pos = src
            v = grid.cells[pos]
            grid.cells[pos] = None
            return [] if v is None else [v]
        moved = list(src)
        src.clear()
        return moved  # the caller charges each moved element

    def take_top(self, src, n) -> list:
        if isinstance(src, tuple):
            return self.take_all(src) if n > 0 else []
        moved = src[:n]
        del src[:n]
        return moved

    def put(self, dst, moved, place, node):
        if isinstance(dst, tuple):
            grid, pos = dst
            if len(moved) > 1 or (moved and grid.cells[pos] is not None):
                raise RuleError("E0306", "a grid cell holds one element; it is already taken",
                                node)
            if moved:
                grid.cells[pos] = moved[0]
            return
        for x in moved:
            self.storable(x, dst, node)
        self.tick(node, len(moved))
        if place == "top":
            dst[0:0] = moved
        else:
            dst.extend(moved)
        if len(dst) > self.limits.max_collection:
            raise RuleError("E0303", f"a list of {len(dst):,} elements is too large (limit "
                            f"{self.limits.max_collection:,})", node)

    def shuffle(self, op, env):
        target = self.unwatched(op.target.value, env)
        if not isinstance(target, list):
            raise RuleError("E0306", f"can only shuffle a list or deck, not {type_name(target)}",
                            op.node)
        key = self.key_of(op.target, env)
        if self.watcher is not None and (key is None or not self.hidden_from_watcher(*key)):
            self.saw_hidden = True  # the watcher sees the new order: a random draw shown
        self.tick(op.node, len(target))
        self.state.rng.shuffle(target)
        self.changed(key, None)

    def slide(self, op, env):
        """`slide g up`: in each column (row), the elements move over the empty cells toward
        that side, keeping their order; each element that changes cell moves (`moved_at`)."""
        grid = self.unwatched(op.target.value, env)
        if not isinstance(grid, Grid):
            raise RuleError("E0306", f"can only slide a grid, not {type_name(grid)}", op.node)
        self.tick(op.node, len(grid.cells))
        vertical = op.toward in ("up", "down")
        lines, length = (grid.columns, grid.rows) if vertical else (grid.rows, grid.columns)
        moved = []
        for line in range(1, lines + 1):
            cells = [grid.at(k, line) if vertical else grid.at(line, k)
                     for k in range(1, length + 1)]
            if op.toward in ("down", "right"):
                cells.reverse()
            held = [grid.cells[i] for i in cells if grid.cells[i] is not None]
            for i, place in enumerate(cells):
                value = held[i] if i < len(held) else None
                if grid.cells[place] is not value:
                    if value is not None:
                        moved.append(value)
                    grid.cells[place] = value
        if moved:
            self.changed(self.key_of(op.target, env), None)
            self.note_moved(moved)

    def rotate(self, node, among):
        if not isinstance(among, list) or not all(isinstance(p, Seat) for p in among):
            raise RuleError("E0306", "`rotate ... among` needs a list of players", node.among)
        decl = self.rules.player_vars.get(node.name)
        if decl is None:
            raise RuleError("E0311", f"players have no variable `{node.name}`", node)
        self.tick(node, len(among))
        values = [p.vars[node.name] for p in among]
        for p, value in zip(among[1:] + among[:1], values):
            p.vars[node.name] = value
            self.changed((p.seat, node.name), decl)

    # --------------------------------------------------------------------- visibility
    def reveal(self, op, env):
        node = op.node
        key = self.var_key(node.target, env)
        seats = None
        if op.to is not None:
            who = op.to(self, env)
            seats = who if isinstance(who, list) else [who]
            if not all(isinstance(p, Seat) for p in seats):
                raise RuleError("E0306", "`reveal ... to` needs a player or a list of players",
                                node.to)
            self.tick(node, len(seats))
            seats = list({p.seat: p for p in seats}.values())  # each reader once
        if self.watcher is not None and self.hidden_from_watcher(*key) and (
                seats is None or any(p.seat == self.watcher for p in seats)):
            self.saw_hidden = True  # shown to the audited seat from now on
        st = self.state
        if node.until_changed:
            st.reveals_until_changed.add(key)
        if seats is None:
            st.reveals[key] = "all"
            return
        cur = st.reveals.get(key)
        if cur != "all":
            cur = set(cur or ())
            cur.update(p.seat for p in seats)
            st.reveals[key] = cur

    def hide(self, target, env):
        key = self.var_key(target, env)
        self.state.reveals.pop(key, None)
        self.state.reveals_until_changed.discard(key)

    # ---------------------------------------------------------------------------- awards
    def award_groups(self, op, env) -> list:
        """(player, amount) for each ranked player whose rank earns something, in order."""
        node = op.node
        amounts = op.amounts(self, env)
        if not isinstance(amounts, list) or not all(type(a) is int for a in amounts):
            raise RuleError("E0306", "`award` needs a list of numbers, like [5, 3, 1]",
                            node.amounts)
        ordered = self.order(op.rows(self, env), node)
        drawn = any(k.kind == "random_key" for k in node.keys)  # a random key leaves no ties
        given = []
        rank = i = 0
        while i < len(ordered):
            self.tick(node)
            j = i + 1
            while not drawn and j < len(ordered) and ordered[j][1] == ordered[i][1]:
                j += 1
            group = [p for p, _ in ordered[i:j]]
            taken = amounts[rank: rank + len(group)]
            if len(group) == 1:
                share = taken[0] if taken else None
            elif node.ties == "share":
                share = sum(taken) // len(group) if taken else None
            elif node.ties == "split":  # the place they tie for, split; the ones after lapse
                share = taken[0] // len(group) if taken else None
            elif node.ties == "all":
                share = taken[0] if taken else None
            else:
                share = None
            if share is not None:
                given.extend((p, share) for p in group)
            rank += len(group)
            i = j
        return given

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
    """The statement a frame is running (for an error raised without a node of its own)."""
    if isinstance(frame, BlockFrame) and frame.pc:
        return frame.block.ops[frame.pc - 1].node
    op = getattr(frame, "op", None)
    return getattr(op, "node", None)


def holds(value, inside, m) -> bool:
    """Whether `inside` (a list, map, grid or structure) is `value` or lies within it; charged
    one step per element looked at."""
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if v is inside:
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, list):
            parts = v
        elif isinstance(v, dict):
            parts = list(v.values())
        elif isinstance(v, Grid):
            parts = v.cells
        elif isinstance(v, Struct):
            parts = list(v.fields.values())
        else:
            continue
        m.tick(None, len(parts))
        todo.extend(p for p in parts if isinstance(p, (list, dict, Grid, Struct)))
    return False
