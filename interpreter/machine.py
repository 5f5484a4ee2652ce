"""Statements and flow. ``do_<kind>`` runs one statement; the ones that may lead to a decision are
generators that yield a ``Decision`` whenever a player must choose and receive the chosen option
id back. The engine itself never waits: the caller (``game.Game``) resumes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..grammar import ast as A
from .errors import RuleError
from .evaluator import Evaluator, _same, truth
from .rules import Rules
from .state import GameState, Limits
from .values import Grid, Item, Seat, Struct, Sym, elements, nesting_problem, show, type_name


# Control-flow signals, raised by `end game`, `stop` and `pass` and caught by what they end.
class _Signal(Exception):
    words = ""

    def __init__(self, node=None):
        super().__init__(self.words)
        self.node = node


class _EndGame(_Signal):
    """`end game`: caught by the game's run, which goes on to scoring."""
    words = "end game"


class _Stop(_Signal):
    """`stop`: caught by the innermost loop."""
    words = "stop"


class _Pass(_Signal):
    """`pass`: caught by `turns`, which marks the player as passed."""
    words = "pass"


CONTROL_SIGNALS = (_EndGame, _Stop, _Pass)


RECOMPUTE = object()  # sent back into a decision after the state was changed from outside
CHOOSER = "\x00chooser"  # in the names of an option's body: who chose it (never a rules name)
DONE = "done"  # the option `repeat choose` adds: the player has finished


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


class _Logged(str):
    """An answer whose log line was written when it was given (a simultaneous decision)."""


@dataclass
class OptionInstance:
    id: str
    label: str
    option: A.Option | None
    env: dict


@dataclass
class Decision:
    player: Seat
    prompt: str
    options: list[OptionInstance]
    secret: bool
    node: A.Choose
    clock: int = 0  # the state's clock when the options were listed
    by_id: dict = field(default_factory=dict)

    def __post_init__(self):
        self.by_id = {o.id: o for o in self.options}


def option_token(value, position: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value.replace(":", "_").replace(" ", "_")
    if isinstance(value, Sym):
        return value.name
    if isinstance(value, Seat):
        return f"p{value.seat}"
    if isinstance(value, Item):
        return value.key or value.id  # a named row reads by its name: copies are alike
    return str(position)


class Machine(Evaluator):
    def __init__(self, rules: Rules, state: GameState, limits: Limits):
        super().__init__(rules, state, limits)
        self.set_up = False  # setup has run to its end: from then on the invariants hold
        self.secret_depth = 0
        self.dirty = False

    # ------------------------------------------------------------------------- game start
    def initialise(self) -> None:
        st, rules = self.state, self.rules
        for c in rules.consts:
            st.consts[c.name] = self.eval(c.value, {})
        for name, decl in rules.global_vars.items():
            st.globals[name] = self.initial(decl, {})
        for seat in st.seats:
            for name, decl in rules.player_vars.items():
                seat.vars[name] = self.initial(decl, {"me": seat})

    def initial(self, decl: A.StateDecl, env):
        t = decl.type
        if t.kind == "grid_type":
            fill = self.eval(decl.initial, env) if decl.initial is not None else None
            return self.new_grid(t, fill, decl)
        if decl.initial is not None:
            return own_copy(self.clamp(decl, self.eval(decl.initial, env), env))
        return self.default_for(t, decl)

    def clamp(self, decl: A.StateDecl, value, env):
        if decl.at_least is not None:
            lo = self.bound_of(decl.at_least, env, "at least")
            if isinstance(value, int) and value < lo:
                value = lo
        if decl.at_most is not None:
            hi = self.bound_of(decl.at_most, env, "at most")
            if isinstance(value, int) and value > hi:
                value = hi
        return value

    def bound_of(self, expr, env, words: str) -> int:
        v = self.eval(expr, env)
        if type(v) is not int:
            raise RuleError("E0306", f"`{words}` needs a number, not {type_name(v)} `{show(v)}`",
                            expr)
        return v

    def run(self):
        """The whole game: setup, play, scoring, winner."""
        rules, st = self.rules, self.state
        self.initialise()
        try:
            if rules.setup:
                yield from self.block(rules.setup.body, {})
            self.set_up = True
            if rules.play:
                yield from self.block(rules.play.body, {})
        except _EndGame:
            pass
        except (_Stop, _Pass):
            pass
        st.over = True
        st.current = None
        try:
            if rules.scoring:
                st.phase = "scoring"
                yield from self.block(rules.scoring.body, {})
        except CONTROL_SIGNALS:
            pass
        st.winners = self.decide_winners()
        names = ", ".join(show(p) for p in st.winners) or "nobody"
        self.log(f"Game over. Winner: {names}", kind="end")

    def decide_winners(self) -> list[Seat]:
        w = self.rules.winner
        if w is None:
            return []
        rows = []
        for env in self.iterate(w.binding, None, {}):
            rows.append((env[w.binding.name], self.sort_keys(w.keys, env)))
        ordered = self.order(rows, w)
        if not ordered:
            return []
        if any(k.kind == "random_key" for k in w.keys):
            return [ordered[0][0]]  # a random key leaves no tie: `order` drew the first
        best = [k for k in ordered[0][1]]
        return [p for p, k in ordered if k == best]

    # ------------------------------------------------------------------------- statements
    def block(self, stmts, env):
        """Run statements in `env` (one dict per call frame). Names a `let` adds here are removed
        when the block ends, so `set` on an outer name from inside a loop changes that name.
        (The names known on entry are kept by the block itself, not by the machine: the branches
        of `simultaneously` run interleaved.)"""
        known = set(env)
        reactions = self.rules.reactions
        try:
            for s in stmts:
                self.tick(s)
                gen = _STATEMENTS[s.kind](self, s, env)
                if gen is not None:
                    yield from gen
                if self.dirty and reactions:
                    yield from self.react()
        finally:
            for name in [k for k in env if k not in known]:
                del env[name]

    def do_let(self, s, env):
        env[s.name] = self.eval(s.value, env)

    def bound(self, env, names: dict, body):
        """Run `body` with `names` bound in `env`, then restore what they shadowed."""
        saved = {k: env[k] for k in names if k in env}
        env.update(names)
        try:
            yield from self.block(body, env)
        finally:
            for k in names:
                if k in saved:
                    env[k] = saved[k]
                else:
                    env.pop(k, None)

    def do_set(self, s, env):
        self.assign(s.target, self.eval(s.value, env), env)

    def do_change(self, s, env):
        cur = self.unwatched(s.target, env)  # the value stays where it was: nothing is shown
        amount = self.eval(s.amount, env)
        if not (isinstance(cur, int) and isinstance(amount, int)) or isinstance(cur, bool) \
                or isinstance(amount, bool):
            raise RuleError("E0306", f"`{s.op}` needs numbers, got {type_name(cur)} and "
                            f"{type_name(amount)}", s)
        new = cur + amount if s.op == "increase" else cur - amount
        self.assign(s.target, self.num(new, s), env)

    def assign(self, target, value, env):
        st = self.state
        kind = target.kind
        if kind == "name":
            name = target.id
            if name in env:
                env[name] = value
                return
            decl = self.rules.global_vars.get(name)
            if decl is None:
                raise RuleError("E0311", f"`{name}` is not a variable that can be set", target,
                                f"declare it with `global {name}: ...` or `let {name} = ...`")
            value = own_copy(self.clamp(decl, value, env))
            self.storable(value, None, target)
            if not _same(st.globals.get(name), value):
                st.globals[name] = value
                self.changed((0, name), decl)
            return
        if kind == "field":
            obj = self.eval(target.obj, env)
            if isinstance(obj, Seat):
                decl = self.rules.player_vars.get(target.name)
                if decl is None:
                    raise RuleError("E0311", f"players have no variable `{target.name}`", target)
                value = own_copy(self.clamp(decl, value, {"me": obj}))
                self.storable(value, None, target)
                if not _same(obj.vars.get(target.name), value):
                    obj.vars[target.name] = value
                    self.changed((obj.seat, target.name), decl)
                return
            if isinstance(obj, Struct):
                if target.name not in obj.fields:
                    raise RuleError("E0311", f"a {obj.record} has no field `{target.name}`",
                                    target)
                self.storable(value, obj, target)
                obj.fields[target.name] = value
                self.changed(None, None)
                return
            if isinstance(obj, Item):
                raise RuleError("E0306", f"the fields of a component ({obj.record}) cannot be "
                                "changed", target, "keep changing values in state variables or "
                                "structures made with `new`")
            raise RuleError("E0306", f"cannot set `.{target.name}` of {type_name(obj)}", target)
        if kind == "index":
            obj = self.eval(target.obj, env)
            idx = [self.eval(i, env) for i in target.indices]
            self.storable(value, obj, target)
            if isinstance(obj, Grid):
                obj.cells[self.grid_pos(obj, idx, target)] = value
            elif isinstance(obj, dict):
                obj[self.map_key(idx, target)] = value
            elif isinstance(obj, list):
                obj[self.list_pos(obj, idx, target)] = value
            else:
                raise RuleError("E0306", f"cannot index {type_name(obj)}", target)
            self.changed(self.key_of(target.obj, env), None)
            return
        raise RuleError("E0306", "only variables, fields and list or grid cells can be set",
                        target)

    def storable(self, value, container, node) -> None:
        """Refuse a value that would contain its own container or nest too deeply."""
        if isinstance(value, (list, dict, Grid, Struct)):
            self.tick(node, elements(value))
            problem = nesting_problem(value, container, self.limits.max_nesting)
            if problem:
                raise RuleError("E0303", f"cannot store this value: {problem}", node,
                                "store a copy, or keep the values side by side")

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

    def shown_to_watcher(self, target, env) -> bool:
        """Whether the audited seat sees the variable `target` (anything else counts as seen)."""
        try:
            owner, name = self.unwatched(target, env, self.var_key)
        except RuleError:
            return True
        return not self.hidden_from_watcher(owner, name)

    def changed(self, key, decl) -> None:
        st = self.state
        st.clock += 1
        if key is not None:
            if decl is not None and decl.stacked:
                st.changed_at[key] = st.clock
            if key in st.reveals_until_changed:  # `reveal x until changed`: the value shown is gone
                st.reveals_until_changed.discard(key)
                st.reveals.pop(key, None)
        self.dirty = True

    def key_of(self, node, env):
        """(seat or 0, name) when `node` names a state variable (a zone being changed), else
        None; never raises (the statement's own evaluation reports any error)."""
        kind = node.kind
        if kind == "name" and node.id in self.rules.global_vars and node.id not in env:
            return (0, node.id)
        if kind == "field" and node.name in self.rules.player_vars:
            try:
                obj = self.unwatched(node.obj, env)
            except RuleError:
                return None
            return (obj.seat, node.name) if isinstance(obj, Seat) else None
        return None

    # ---------------------------------------------------------------------------- moving
    def container(self, node, env):
        """A list to move from/to, or (grid, position) for a grid cell."""
        if node.kind == "index":
            obj = self.eval(node.obj, env)
            if isinstance(obj, Grid):
                idx = [self.eval(i, env) for i in node.indices]
                return (obj, self.grid_pos(obj, idx, node))
        value = self.eval(node, env)
        if isinstance(value, list):
            return value
        raise RuleError("E0306", f"can only move from and to lists, decks or grid cells, not "
                        f"{type_name(value)}", node)

    def unwatched(self, node, env, read=None):
        """Evaluate where a value goes (a target, a destination) without counting it as seen:
        adding to a hidden deck or increasing a secret count shows nothing of it."""
        watcher, self.watcher = self.watcher, None
        try:
            return (read or self.eval)(node, env)
        finally:
            self.watcher = watcher

    def do_move(self, s, env):
        src = self.container(s.source, env)
        dst = self.unwatched(s.dest, env, self.container)
        if s.what == "one":
            item = self.eval(s.item, env)
            self.take(src, item, s)
            moved = [item]
        elif s.what == "all":
            moved = self.take_all(src)
        else:
            n = self.eval(s.item, env)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise RuleError("E0306", "`move top N` needs a number of 0 or more", s)
            moved = self.take_top(src, n)
        self.put(dst, moved, s.place, s)
        self.changed(self.key_of(s.source, env), None)
        self.changed(self.key_of(s.dest, env), None)

    def take(self, src, item, node):
        if isinstance(src, tuple):
            grid, pos = src
            if grid.cells[pos] is None or not _same(grid.cells[pos], item):
                raise RuleError("E0308", f"`{show(item)}` is not in that grid cell", node)
            grid.cells[pos] = None
            return
        for i, x in enumerate(src):
            if x is item or _same(x, item):
                self.tick(node, i)
                del src[i]
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

    def do_add(self, s, env):
        dst = self.unwatched(s.dest, env, self.container)
        self.put(dst, [self.eval(s.value, env)], s.place, s)
        self.changed(self.key_of(s.dest, env), None)

    def do_remove(self, s, env):
        self.take(self.unwatched(s.source, env, self.container), self.eval(s.value, env), s)
        self.changed(self.key_of(s.source, env), None)

    def do_shuffle(self, s, env):
        target = self.unwatched(s.target, env)
        if not isinstance(target, list):
            raise RuleError("E0306", f"can only shuffle a list or deck, not {type_name(target)}", s)
        if self.watcher is not None and self.shown_to_watcher(s.target, env):
            self.saw_hidden = True  # the watcher sees the new order: a random draw shown
        self.tick(s, len(target))
        self.state.rng.shuffle(target)
        self.changed(self.key_of(s.target, env), None)

    # --------------------------------------------------------------------------- control
    def do_if(self, s, env):
        for br in s.branches:
            if truth(self.eval(br.test, env), br.test):
                yield from self.block(br.body, env)
                return
        if s.otherwise is not None:
            yield from self.block(s.otherwise, env)

    def do_for(self, s, env):
        source = self.eval(s.binding.source, env)
        if isinstance(source, Grid):
            source = source.cells
        elif isinstance(source, dict):
            source = list(source)
        if not isinstance(source, list):
            raise RuleError("E0306", f"`for` needs a list, not {type_name(source)}", s.binding)
        try:
            for v in list(source):
                self.tick(s)
                if s.where is not None and not truth(
                        self.eval(s.where, {**env, s.binding.name: v}), s.where):
                    continue
                yield from self.bound(env, {s.binding.name: v}, s.body)
        except _Stop:
            pass

    def do_repeat(self, s, env):
        n = self.eval(s.count, env)
        if not isinstance(n, int) or isinstance(n, bool):
            raise RuleError("E0306", "`repeat` needs a number", s)
        try:
            for _ in range(max(0, n)):
                self.tick(s)  # a turn of a loop is a step, even with nothing in it
                yield from self.block(s.body, env)
        except _Stop:
            pass

    def do_while(self, s, env):
        try:
            while truth(self.eval(s.test, env), s.test):
                self.tick(s)
                yield from self.block(s.body, env)
        except _Stop:
            pass

    def do_stop(self, s, env):
        raise _Stop(s)

    def do_pass(self, s, env):
        raise _Pass(s)

    def do_end_game(self, s, env):
        self.log("The game ends.", kind="flow")
        raise _EndGame(s)

    def do_step(self, s, env):
        yield from self.block(s.body, env)

    def do_cited(self, s, env):
        yield from self.block(s.body, env)

    def do_match_stmt(self, s, env):
        subject = self.eval(s.subject, env)
        for arm in s.arms:
            if arm.value is None or _same(subject, self.eval(arm.value, env)):
                yield from self.block(arm.body, env)
                return
        raise RuleError("E0306", f"no arm of this `match` is for `{show(subject)}`", s,
                        "add an `else: { }` arm")

    def do_rotate(self, s, env):
        among = self.eval(s.among, env)
        if not isinstance(among, list) or not all(isinstance(p, Seat) for p in among):
            raise RuleError("E0306", "`rotate ... among` needs a list of players", s.among)
        decl = self.rules.player_vars.get(s.name)
        if decl is None:
            raise RuleError("E0311", f"players have no variable `{s.name}`", s)
        self.tick(s, len(among))
        values = [p.vars[s.name] for p in among]
        for p, value in zip(among[1:] + among[:1], values):
            p.vars[s.name] = value
            self.changed((p.seat, s.name), decl)

    def do_phase(self, s, env):
        if s.when is not None and not truth(self.eval(s.when, env), s.when):
            return
        st = self.state
        previous = st.phase
        st.phase = s.name
        self.log(f"Phase: {s.name}", kind="phase")
        yield from self.block(s.body, env)
        st.phase = previous if previous is not None else st.phase

    def do_turn(self, s, env):
        st = self.state
        p = self.eval(s.player, env)
        previous = st.current
        st.current = p
        st.turns += 1
        yield from self.block(s.body, env)
        st.current = previous

    def do_rounds(self, s, env):
        st = self.state
        count = None
        if s.mode == "count":
            count = self.eval(s.expr, env)
            if type(count) is not int:
                raise RuleError("E0306", f"`rounds` needs a number of rounds, not "
                                f"{type_name(count)} `{show(count)}`", s.expr)
        done = 0
        try:
            while True:
                if s.mode == "count" and done >= count:
                    break
                if s.mode == "until" and truth(self.eval(s.expr, env), s.expr):
                    break
                self.tick(s)
                st.round += 1
                done += 1
                self.log(f"Round {st.round}", kind="round")
                yield from self.block(s.body, env)
        except _Stop:
            pass

    def do_turns(self, s, env):
        order = self.eval(s.binding.source, env)
        if not isinstance(order, list):
            raise RuleError("E0306", "`turns` needs a list of players", s.binding)
        passed: set[int] = set()
        try:
            while len(passed) < len(order):
                for i, p in enumerate(order):
                    if i in passed:
                        continue
                    self.tick(s)
                    st = self.state
                    st.turns += 1
                    previous, st.current = st.current, p
                    try:
                        yield from self.bound(env, {s.binding.name: p}, s.body)
                    except _Pass:
                        passed.add(i)
                    finally:
                        st.current = previous
        except _Stop:
            pass

    def do_turns_from(self, s, env):
        """Turns in an order the rules compute: from `start`, then whoever `then` names after
        each turn, until `until` holds (looked at before each turn)."""
        st = self.state
        p = self.eval(s.start, env)
        try:
            while True:
                self.tick(s)
                names = {s.name: p}
                if truth(self.eval(s.until, {**env, **names}), s.until):
                    break
                if not isinstance(p, Seat):
                    raise RuleError("E0306", f"a turn needs a player, not {type_name(p)}",
                                    s.then if st.turns else s.start)
                st.turns += 1
                previous, st.current = st.current, p
                try:
                    yield from self.bound(env, names, s.body)
                finally:
                    st.current = previous
                p = self.eval(s.then, {**env, **names})
        except _Stop:
            pass

    def do_simultaneously(self, s, env):
        """Every player decides against the same state, and what the decisions do takes effect
        only once all have decided: each player's part runs up to its next decision, those
        decisions are asked one after the other (secretly), then their options are carried out
        in player order, each up to that player's next decision, and so on (a round of
        decisions at a time)."""
        self.secret_depth += 1
        branches = []
        try:
            source = self.eval(s.binding.source, env)
            if not isinstance(source, list):
                raise RuleError("E0306", "`simultaneously` needs a list of players", s.binding)
            waiting = []  # (branch, its next decision)
            for p in list(source):
                self.tick(s)
                branch = self.block(s.body, {**env, s.binding.name: p})
                branches.append(branch)
                decision = next(branch, None)
                if decision is not None:
                    waiting.append((branch, decision))
            while waiting:
                answers = []
                for branch, decision in waiting:
                    if decision.clock != self.state.clock:  # asked against the state of now
                        decision = branch.send(RECOMPUTE)
                    answer = yield decision
                    while answer is RECOMPUTE:  # the state was changed from outside (`given`)
                        decision = branch.send(RECOMPUTE)
                        answer = yield decision
                    # The decider reads what they chose at once; it is carried out later.
                    self.log_decision(decision, decision.by_id[answer])
                    answers.append(_Logged(answer))
                went_on = []
                for (branch, _), answer in zip(waiting, answers):
                    try:
                        went_on.append((branch, branch.send(answer)))
                    except StopIteration:
                        pass
                waiting = went_on
        finally:
            self.secret_depth -= 1
            for branch in branches:
                branch.close()

    def do_do(self, s, env):
        proc = self.rules.procedures.get(s.name)
        if proc is None:
            raise RuleError("E0311", f"unknown procedure `{s.name}`", s)
        args = [self.eval(a, env) for a in s.args]
        if len(args) != len(proc.params):
            raise RuleError("E0306", f"`{s.name}` takes {len(proc.params)} values, got "
                            f"{len(args)}", s)
        yield from self.nested(proc.body, self.callee_env(proc.params, args, env), s)

    @staticmethod
    def callee_env(params, args, env) -> dict:
        """A called block's names: its parameters, and who made the decision being carried out
        (so that its log lines inside a secret decision stay private to that player)."""
        out = dict(zip(params, args))
        if CHOOSER in env:
            out[CHOOSER] = env[CHOOSER]
        return out

    def nested(self, body, env, node):
        self.depth += 1
        try:
            if self.depth > self.limits.max_depth:
                raise RuleError("E0302", f"calls nest more than {self.limits.max_depth} deep",
                                node)
            yield from self.block(body, env)
        finally:
            self.depth -= 1

    def do_trigger(self, s, env):
        args = [self.eval(a, env) for a in s.args]
        for handler in self.rules.events.get(s.event, ()):
            if len(handler.params) != len(args):
                raise RuleError("E0306", f"`{s.event}` handlers take {len(handler.params)} "
                                f"values, got {len(args)}", s)
            yield from self.nested(handler.body, self.callee_env(handler.params, args, env), s)

    def do_log(self, s, env):
        if s.to is not None:
            who = self.eval(s.to, env)
            seats = who if isinstance(who, list) else [who]
            if not all(isinstance(p, Seat) for p in seats):
                raise RuleError("E0306", "`log ... to` needs a player or a list of players", s.to)
            to = [p.seat for p in seats]
        elif self.secret_depth and env.get(CHOOSER) is not None:
            to = [env[CHOOSER].seat]
        else:
            to = None
        self.log(self.render(s.message, env), to=to)


    def do_require(self, s, env):
        if not truth(self.eval(s.test, env), s.test):
            raise RuleError("E0309", self.render(s.message, env), s)

    def do_reveal(self, s, env):
        key = self.var_key(s.target, env)
        seats = None
        if s.to is not None:
            who = self.eval(s.to, env)
            seats = who if isinstance(who, list) else [who]
            if not all(isinstance(p, Seat) for p in seats):
                raise RuleError("E0306", "`reveal ... to` needs a player or a list of players",
                                s.to)
        if self.watcher is not None and self.hidden_from_watcher(*key) and (
                seats is None or any(p.seat == self.watcher for p in seats)):
            self.saw_hidden = True  # shown to the audited seat from now on
        st = self.state
        if s.until_changed:
            st.reveals_until_changed.add(key)
        if seats is None:
            st.reveals[key] = "all"
            return
        cur = st.reveals.get(key)
        if cur != "all":
            cur = set(cur or ())
            cur.update(p.seat for p in seats)
            st.reveals[key] = cur

    def do_hide(self, s, env):
        key = self.var_key(s.target, env)
        self.state.reveals.pop(key, None)
        self.state.reveals_until_changed.discard(key)

    def do_award(self, s, env):
        amounts = self.eval(s.amounts, env)
        if not isinstance(amounts, list) or not all(type(a) is int for a in amounts):
            raise RuleError("E0306", "`award` needs a list of numbers, like [5, 3, 1]", s.amounts)
        rows = []
        for e in self.iterate(s.binding, s.where, env):
            rows.append((e[s.binding.name], self.sort_keys(s.keys, e)))
        ordered = self.order(rows, s)
        drawn = any(k.kind == "random_key" for k in s.keys)  # a random key leaves no ties
        rank = 0
        i = 0
        while i < len(ordered):
            self.tick(s)
            j = i + 1
            while not drawn and j < len(ordered) and ordered[j][1] == ordered[i][1]:
                j += 1
            group = [p for p, _ in ordered[i:j]]
            taken = amounts[rank: rank + len(group)]
            if len(group) == 1:
                share = taken[0] if taken else None
            elif s.ties == "share":
                share = sum(taken) // len(group) if taken else None
            elif s.ties == "split":  # the place they tie for, split; the places after it lapse
                share = taken[0] // len(group) if taken else None
            elif s.ties == "all":
                share = taken[0] if taken else None
            else:
                share = None
            if share is not None:
                for p in group:
                    yield from self.bound(env, {s.binding.name: p, "amount": share}, s.body)
            rank += len(group)
            i = j

    # -------------------------------------------------------------------------- decisions
    def options(self, s: A.Choose, env, player) -> list[OptionInstance]:
        out: list[OptionInstance] = []
        seen: set[str] = set()
        for opt in s.options:
            for combo, positions in self._combinations(opt.bindings, dict(env), ()):
                if opt.where is not None and not truth(self.eval(opt.where, combo), opt.where):
                    continue
                tokens = [option_token(combo[b.name], pos)
                          for b, pos in zip(opt.bindings, positions)]
                oid = ":".join([opt.name] + tokens)
                base, n = oid, 2
                while oid in seen:
                    oid = f"{base}~{n}"
                    n += 1
                seen.add(oid)
                label = self.render(opt.label, combo) if opt.label else \
                    " ".join([opt.name.replace("_", " ")] + [show(combo[b.name]) for b in opt.bindings])
                out.append(OptionInstance(oid, label, opt, combo))
                if len(out) > self.limits.max_options:
                    raise RuleError("E0303", f"more than {self.limits.max_options} options at "
                                    "one decision", s, "split the choice into smaller steps")
        if s.optional and out:
            out.append(OptionInstance("skip", "Skip", None, env))
        return out

    def _combinations(self, bindings, env, positions):
        """Every combination of several bindings (options, reactions), with each value's 1-based
        position in the list it came from; each source is evaluated once per combination of the
        bindings before it, which may depend on them."""
        if not bindings:
            yield dict(env), positions
            return
        first, rest = bindings[0], bindings[1:]
        source = self.eval(first.source, env)
        if isinstance(source, Grid):
            source = source.cells
        if not isinstance(source, list):
            raise RuleError("E0306", f"`{first.name} in ...` needs a list, not "
                            f"{type_name(source)}", first)
        for k, value in enumerate(list(source), 1):
            self.tick(first)
            env[first.name] = value
            yield from self._combinations(rest, env, positions + (k,))
        env.pop(first.name, None)

    def do_choose(self, s, env):
        if not s.repeat:
            yield from self.choose_once(s, env)
            return
        try:  # `repeat choose`: until the player is done, or has nothing else to choose
            while True:
                self.tick(s)
                if (yield from self.choose_once(s, env)) is DONE:
                    return
        except _Stop:
            pass

    def choose_once(self, s, env):
        player = self.eval(s.player, env)
        if not isinstance(player, Seat):
            raise RuleError("E0306", f"`choose` needs a player, not {type_name(player)}", s.player)
        while True:
            options = self.options(s, env, player)
            if s.repeat and options and not any(o.name == DONE for o in s.options):
                options.append(OptionInstance(DONE, "Done", None, env))
            if not options:
                if s.repeat:
                    return DONE
                if s.otherwise is not None:
                    yield from self.block(s.otherwise, env)
                return
            prompt = self.render(s.prompt, env) if s.prompt else "Choose"
            decision = Decision(player, prompt, options, self.secret_depth > 0, s,
                                clock=self.state.clock)
            answer = yield decision
            if answer is RECOMPUTE:
                continue
            chosen = decision.by_id[answer]
            break
        self.state.decisions += 1
        if not isinstance(answer, _Logged):
            self.log_decision(decision, chosen)
        if chosen.id == DONE and chosen.option is None:
            return DONE
        if chosen.option is not None:
            names = {b.name: chosen.env[b.name] for b in chosen.option.bindings}
            names[CHOOSER] = player
            yield from self.bound(env, names, chosen.option.body)
            if chosen.option.name == DONE:  # a `done` of the rules' own ends the loop too
                return DONE
        return None

    def log_decision(self, decision: Decision, chosen: OptionInstance) -> None:
        who = [decision.player.seat] if decision.secret else None
        self.log(f"{show(decision.player)}: {chosen.label}", to=who, kind="decision")

    # -------------------------------------------------------------------------- reactions
    def react(self):
        self.dirty = False
        st = self.state
        for r in self.rules.reactions:
            self.tick(r)
            for env, _ in self._combinations(r.bindings, {}, ()):
                key = (r.name,) + tuple(option_token(env[b.name], 0) for b in r.bindings)
                now = truth(self.eval(r.condition, env), r.condition)
                before = st.reaction_flags.get(key, False)
                if now and not before:
                    st.reaction_flags[key] = True
                    yield from self.nested(r.body, env, r)
                elif not now and before:
                    st.reaction_flags[key] = False


# Statements by kind, bound to the class rather than to each machine: a machine holding its own
# bound methods would be a reference cycle, and a finished game would wait for the collector.
_STATEMENTS = {name[3:]: fn for name, fn in vars(Machine).items() if name.startswith("do_")}
