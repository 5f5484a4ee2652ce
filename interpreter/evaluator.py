"""Expressions: compute values from the state. Nothing here changes the state.

Dispatch is by the node's ``kind`` tag, to a method named ``ev_<kind>`` (one walk, generic).
"""
from __future__ import annotations

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_FUNCTIONS, arity_text
from .compiler import compile_expr
from .errors import RuleError
from .memory import CHECK_EVERY, resident_bytes
from .rules import Rules
from .state import GameState, Limits
from .visibility import can_see
from .values import MAX_SHOWN_DEPTH, Grid, Item, Seat, Struct, Sym, elements, show, type_name

_MISSING = object()


def truth(value, node) -> bool:
    if isinstance(value, bool):
        return value
    raise RuleError("E0306", f"expected yes/no (a condition) but got {type_name(value)} "
                    f"`{show(value)}`", node, "write a comparison such as `x > 0` or `x != none`")


class Evaluator:
    def __init__(self, rules: Rules, state: GameState, limits: Limits):
        self.rules = rules
        self.state = state
        self.limits = limits
        self.depth = 0
        self.pending_player = None
        self._compiled = rules.compiled
        self._memory_check_at = CHECK_EVERY
        # The seat whose knowledge is audited (Game.apply with audit_reveals): reading what it
        # may not see sets `saw_hidden`, so that play can refuse to undo a revealing decision.
        self.watcher: int | None = None
        self.saw_hidden = False
        self.known_reveals: dict = {}  # the reveals when the audited decision was made

    def watch(self, seat: int | None) -> None:
        """Audit what follows for what `seat` could not see until now (None: stop)."""
        self.watcher, self.saw_hidden = seat, False
        self.known_reveals = {k: v if v == "all" else set(v)
                              for k, v in self.state.reveals.items()} if seat is not None else {}

    def hidden_from_watcher(self, owner: int, name: str) -> bool:
        return not can_see(self.state, self.rules, self.watcher, owner, name, self.known_reveals)

    def note_read(self, owner: int, name: str) -> None:
        if not self.saw_hidden and self.hidden_from_watcher(owner, name):
            self.saw_hidden = True

    # ----------------------------------------------------------------- budgets and numbers
    def tick(self, node, n: int = 1) -> None:
        """Charge `n` steps: a statement, a loop turn or a call is one; visiting or building
        elements costs one each, and texts one per 64 characters (docs/language.md, Limits)."""
        st = self.state
        st.steps += n
        if st.steps > self.limits.max_steps:
            raise RuleError("E0301", f"the rules ran more than {self.limits.max_steps:,} steps "
                            "in one game; a loop probably never ends", node,
                            "check the loop's condition, or add `stop`")
        if st.steps >= self._memory_check_at:
            self._memory_check_at = st.steps + CHECK_EVERY
            self.check_memory(node)

    def check_memory(self, node) -> None:
        limit = self.limits.max_memory
        if limit is None:
            return
        used = resident_bytes()
        if used is not None and used > limit:
            raise RuleError("E0316", f"the game uses {used // 2 ** 20:,} MiB of memory (limit "
                            f"{limit // 2 ** 20:,} MiB)", node,
                            "the rules build too much; `--max-memory` raises the limit")

    def text(self, value: str, node) -> str:
        """A text the rules built: bounded, and charged by its length."""
        if len(value) > self.limits.max_text:
            raise RuleError("E0303", f"a text of {len(value):,} characters is too long (limit "
                            f"{self.limits.max_text:,})", node)
        self.tick(node, len(value) // 64)
        return value

    def num(self, value: int, node) -> int:
        if -self.limits.max_number <= value <= self.limits.max_number:
            return value
        raise RuleError("E0304", f"the number {value} is too large (limit "
                        f"{self.limits.max_number:,})", node)

    def sized(self, items: list, node) -> list:
        # Building a collection costs a step per element, so the step budget also bounds how
        # much memory a ruleset can fill, not only how long it runs.
        self.tick(node, len(items))
        if len(items) > self.limits.max_collection:
            raise RuleError("E0303", f"a list of {len(items):,} elements is too large (limit "
                            f"{self.limits.max_collection:,})", node)
        return items

    # ----------------------------------------------------------------------------- entry
    def eval(self, node, env: dict):
        # The cache keeps the node itself alive, so its id can never be reused by another node.
        entry = self._compiled.get(id(node))
        if entry is None or entry[0] is not node:
            entry = self._compiled[id(node)] = (node, compile_expr(node))
        return entry[1](self, env)

    def ev_int(self, node, env):
        return node.value

    def ev_str(self, node, env):
        return node.value

    def ev_bool(self, node, env):
        return node.value

    def ev_none(self, node, env):
        return None

    def ev_template(self, node, env):
        return self.render(node, env)

    def render(self, tmpl: A.Template | None, env) -> str:
        if tmpl is None:
            return ""
        out = []
        size = 0
        for part in tmpl.parts:
            piece = part.text if part.kind == "text_part" else self.shown(
                self.eval(part.expr, env), part)
            size += len(piece)
            if size > self.limits.max_text:
                self.text("".join(out) + piece, tmpl)  # raises: too long
            out.append(piece)
        return self.text("".join(out), tmpl)

    def shown(self, value, node) -> str:
        """`show` of a value the rules print, charged per element like any other walk."""
        self.tick(node, elements(value))
        return show(value, describe=self.describe)

    def describe(self, struct: Struct) -> str | None:
        """How a structure reads, when its record says (`record Lot show "..."`)."""
        record = self.rules.records.get(struct.record)
        if record is None or record.show is None:
            return None
        return self.render(record.show, dict(struct.fields))

    # ----------------------------------------------------------------------------- names
    def ev_name(self, node, env):
        name = node.id
        v = env.get(name, _MISSING)
        if v is not _MISSING:
            return v
        st = self.state
        v = st.globals.get(name, _MISSING)
        if v is not _MISSING:
            if self.watcher is not None:
                self.note_read(0, name)
            return v
        v = st.consts.get(name, _MISSING)
        if v is not _MISSING:
            return v
        rules = self.rules
        if name in rules.members:
            return rules.members[name]
        if name in rules.tables:
            return list(rules.tables[name])
        if name in rules.enums:  # an enum's name is the list of its members
            return list(rules.enums[name])
        return self.builtin_value(name, node)

    def builtin_value(self, name, node):
        st = self.state
        if name == "players":
            return list(st.seats)
        if name == "player_count":
            return len(st.seats)
        if name == "round":
            return st.round
        if name == "game_over":
            return st.over
        if name == "winners":
            return list(st.winners)
        if name == "current_player":
            return st.current
        if name == "phase":
            return st.phase
        if name == "pending_player":
            return self.pending_player
        raise RuleError("E0311", f"unknown name `{name}`", node,
                        "declare it with `let`, `const`, `global` or `player`")

    def ev_field(self, node, env):
        obj = self.eval(node.obj, env)
        return self.get_field(obj, node.name, node)

    def get_field(self, obj, name, node):
        if isinstance(obj, Seat):
            v = obj.vars.get(name, _MISSING)
            if v is _MISSING:
                raise RuleError("E0311", f"players have no variable `{name}`", node,
                                f"declare it with `player {name}: ...`")
            if self.watcher is not None:
                self.note_read(obj.seat, name)
            return v
        if isinstance(obj, (Item, Struct)):
            v = obj.fields.get(name, _MISSING)
            if v is _MISSING:
                raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
            return v
        if isinstance(obj, Sym) and name == "name":
            return obj.name
        if isinstance(obj, list) and node.obj.kind == "name" and node.obj.id in self.rules.rows:
            item = self.rules.rows[node.obj.id].get(name)  # `cards.guard`: a row by its name
            if item is None:
                raise RuleError("E0311", f"table `{node.obj.id}` has no row `{name}`", node)
            return item
        if obj is None:
            raise RuleError("E0306", f"cannot read `.{name}` of none", node,
                            "check that the value exists first: `x != none`")
        raise RuleError("E0306", f"cannot read `.{name}` of {type_name(obj)} `{show(obj)}`", node)

    def ev_index(self, node, env):
        obj = self.eval(node.obj, env)
        idx = [self.eval(i, env) for i in node.indices]
        if isinstance(obj, Grid):
            return obj.cells[self.grid_pos(obj, idx, node)]
        if isinstance(obj, dict):
            return obj.get(self.map_key(idx, node))
        if isinstance(obj, list):
            if len(idx) == 1 and isinstance(idx[0], (str, Sym)) and node.obj.kind == "name" \
                    and node.obj.id in self.rules.rows:
                key = idx[0].name if isinstance(idx[0], Sym) else idx[0]
                item = self.rules.rows[node.obj.id].get(key)  # regions[r]: the row named r
                if item is None:
                    raise RuleError("E0307", f"table `{node.obj.id}` has no row `{key}`", node)
                return item
            if len(idx) == 1 and isinstance(idx[0], list):  # xs[1..3]: several positions
                self.tick(node, len(idx[0]))
                return [obj[self.list_pos(obj, [i], node)] for i in idx[0]]
            return obj[self.list_pos(obj, idx, node)]
        raise RuleError("E0306", f"cannot index {type_name(obj)} `{show(obj)}`", node)

    def map_key(self, idx, node):
        if len(idx) != 1:
            raise RuleError("E0306", "a map value is written `map[key]` with one key", node)
        return idx[0]

    def grid_pos(self, grid: Grid, idx, node) -> int:
        if len(idx) != 2 or not all(isinstance(i, int) and not isinstance(i, bool) for i in idx):
            raise RuleError("E0306", "a grid cell is written `grid[row, column]` with two numbers",
                            node)
        r, c = idx
        if not (1 <= r <= grid.rows and 1 <= c <= grid.columns):
            raise RuleError("E0307", f"cell [{r}, {c}] is outside the {grid.rows} by "
                            f"{grid.columns} grid", node)
        return grid.at(r, c)

    def list_pos(self, items: list, idx, node) -> int:
        if len(idx) != 1 or not isinstance(idx[0], int) or isinstance(idx[0], bool):
            raise RuleError("E0306", "a list element is written `list[n]` with one number", node)
        i = idx[0]
        n = len(items)
        if 1 <= i <= n:
            return i - 1
        if -n <= i <= -1:
            return n + i
        raise RuleError("E0307", f"position {i} is outside a list of {n}", node,
                        "lists count from 1; `xs[-1]` is the last")

    # ------------------------------------------------------------------------- operators
    def ev_unary(self, node, env):
        v = self.eval(node.operand, env)
        if node.op == "not":
            return not truth(v, node)
        if isinstance(v, int) and not isinstance(v, bool):
            return -v
        raise RuleError("E0306", f"cannot negate {type_name(v)}", node)

    def ev_binary(self, node, env):
        op = node.op
        if op == "and":
            return truth(self.eval(node.left, env), node.left) and truth(
                self.eval(node.right, env), node.right)
        if op == "or":
            return truth(self.eval(node.left, env), node.left) or truth(
                self.eval(node.right, env), node.right)
        return self.binary_values(node, self.eval(node.left, env), self.eval(node.right, env))

    def binary_values(self, node, a, b):
        op = node.op
        if op == "==" or op == "!=":
            if isinstance(a, (list, dict, Grid)) and isinstance(b, (list, dict, Grid)):
                self.tick(node, min(elements(a), elements(b)))
            return _same(a, b) if op == "==" else not _same(a, b)
        if op in ("in", "not in"):
            if isinstance(b, Grid):
                b = b.cells
            elif isinstance(b, dict):
                b = list(b)
            if not isinstance(b, list):
                raise RuleError("E0306", f"`{op}` needs a list on the right, not {type_name(b)}",
                                node)
            self.tick(node, len(b))
            found = any(_same(a, x) for x in b)
            return found if op == "in" else not found
        if op == "+" and isinstance(a, list) and isinstance(b, list):
            return self.sized(a + b, node)
        if op == "+" and isinstance(a, str) and isinstance(b, str):
            if len(a) + len(b) > self.limits.max_text:
                self.text(a + b[: self.limits.max_text], node)  # raises: too long
            return self.text(a + b, node)
        if op in ("<", "<=", ">", ">="):
            if isinstance(a, Sym) and isinstance(b, Sym) and a.enum == b.enum:
                a, b = a.order, b.order
            _ints(a, b, op, node)
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        _ints(a, b, op, node)
        if op == "+":
            return self.num(a + b, node)
        if op == "-":
            return self.num(a - b, node)
        if op == "*":
            return self.num(a * b, node)
        if op in ("/", "%"):
            if b == 0:
                raise RuleError("E0305", "division by zero", node,
                                "guard the division: `if d > 0 then n / d else 0`")
            return a // b if op == "/" else a % b
        if op == "..":
            if b - a + 1 > self.limits.max_collection:
                raise RuleError("E0303", f"the range {a}..{b} is too large", node)
            return self.sized(list(range(a, b + 1)), node)
        raise RuleError("E0306", f"unknown operator {op}", node)

    def ev_conditional(self, node, env):
        if truth(self.eval(node.test, env), node.test):
            return self.eval(node.then, env)
        return self.eval(node.otherwise, env)

    def ev_list(self, node, env):
        self.tick(node, len(node.items))
        return [self.eval(x, env) for x in node.items]

    def ev_match(self, node, env):
        subject = self.eval(node.subject, env)
        for case in node.cases:
            if case.value is None or _same(subject, self.eval(case.value, env)):
                return self.eval(case.result, env)
        raise RuleError("E0306", f"no case matches `{show(subject)}`", node,
                        "add an `else: value` case")

    def ev_record_lit(self, node, env):
        record = self.rules.records.get(node.record)
        if record is None:
            raise RuleError("E0311", f"unknown record `{node.record}`", node)
        self.tick(node, len(record.fields))
        fields = {f.name: self.default_for(f.type, f) for f in record.fields}
        for f in node.fields:
            if f.name not in fields:
                raise RuleError("E0311", f"a {node.record} has no field `{f.name}`", f)
            fields[f.name] = self.eval(f.value, env)
        self.state.struct_ids += 1
        return Struct(node.record, fields, self.state.struct_ids)

    # ---------------------------------------------------------------------- comprehension
    def iterate(self, binding: A.Binding, where, env):
        """Yield a child environment for each value of the binding that meets `where`."""
        source = self.eval(binding.source, env)
        if isinstance(source, Grid):
            source = source.cells
        elif isinstance(source, dict):
            source = list(source)
        if not isinstance(source, list):
            raise RuleError("E0306", f"`{binding.name} in ...` needs a list, not "
                            f"{type_name(source)}", binding)
        child = dict(env)
        for v in list(source):
            self.tick(binding)
            child[binding.name] = v
            if where is None or truth(self.eval(where, child), where):
                yield child

    def ev_list_comp(self, node, env):
        return self.sized([self.eval(node.element, e) for e in
                           self.iterate_all(node.binding, node.more, node.where, env)], node)

    def ev_aggregate(self, node, env):
        values = [self.eval(node.element, e)
                  for e in self.iterate_all(node.binding, node.more, node.where, env)]
        return self.aggregate(node.func, values, node)

    def iterate_all(self, first: A.Binding, more, where, env):
        """`iterate` over several bindings: every combination, later ones inside earlier ones
        (each source read once per combination of the bindings before it)."""
        if not more:
            yield from self.iterate(first, where, env)
            return
        for inner in self.iterate(first, None, env):
            yield from self.iterate_all(more[0], more[1:], where, inner)

    def aggregate(self, func, values, node):
        self.tick(node, len(values))
        for v in values:
            if not (isinstance(v, int) and not isinstance(v, bool)):
                if func != "sum" and isinstance(v, Sym):
                    continue
                raise RuleError("E0306", f"`{func}` needs numbers, got {type_name(v)}", node)
        if func == "sum":
            return self.num(sum(values), node)
        if not values:
            return None
        return max(values) if func == "max" else min(values)

    def ev_quantifier(self, node, env):
        func = node.func
        if func == "count":
            return sum(1 for _ in self.iterate(node.binding, node.where, env))
        if func == "any":
            return any(True for _ in self.iterate(node.binding, node.where, env))
        if func == "all":
            for e in self.iterate(node.binding, None, env):
                if node.where is not None and not truth(self.eval(node.where, e), node.where):
                    return False
            return True
        if func == "first":
            for e in self.iterate(node.binding, node.where, env):
                return e[node.binding.name]
            return None
        return [e[node.binding.name] for e in self.iterate(node.binding, node.where, env)]

    def ev_sort(self, node, env):
        rows = []
        for e in self.iterate(node.binding, None, env):
            rows.append((e[node.binding.name], self.sort_keys(node.keys, e)))
        return [v for v, _ in self.order(rows, node)]

    def sort_keys(self, keys, env) -> list:
        out = []
        for k in keys:
            if k.kind == "random_key":
                out.append(("random", None))
            else:
                v = self.eval(k.expr, env)
                if isinstance(v, Sym):
                    v = v.order
                if isinstance(v, bool):
                    v = int(v)
                if v is None:
                    v = float("-inf") if k.descending else float("inf")
                if isinstance(v, Seat):
                    v = v.seat
                out.append((k.descending, v))
        return out

    def order(self, rows, node):
        """Stable sort of (value, keys) rows; a `random` key draws from the game's generator."""
        def key(row):
            out = []
            for desc, v in row[1]:
                if desc == "random":
                    out.append(0)
                    continue
                if not isinstance(v, (int, float)):
                    raise RuleError("E0306", f"cannot order by {type_name(v)}", node)
                out.append(-v if desc else v)
            return out
        ordered = sorted(rows, key=key)
        if any(desc == "random" for r in rows for desc, _ in r[1]):
            # Shuffle each group of rows tied on the keys before the random key.
            out, i = [], 0
            while i < len(ordered):
                j = i
                while j < len(ordered) and key(ordered[j]) == key(ordered[i]):
                    j += 1
                group = ordered[i:j]
                if len(group) > 1:
                    self.state.rng.shuffle(group)
                    self.saw_hidden |= self.watcher is not None
                out.extend(group)
                i = j
            ordered = out
        return ordered

    # ----------------------------------------------------------------------------- calls
    def ev_call(self, node, env):
        define = self.rules.defines.get(node.func)
        if define is not None:
            args = [self.eval(a, env) for a in node.args]
            return self.call_define(define, args, node)
        return self.call_builtin(node, env)

    def call_define(self, define: A.DefineDecl, args: list, node):
        if len(args) != len(define.params):
            raise RuleError("E0306", f"`{define.name}` takes {len(define.params)} values, "
                            f"got {len(args)}", node)
        self.depth += 1
        try:
            if self.depth > self.limits.max_depth:
                raise RuleError("E0302", f"`{define.name}` calls itself more than "
                                f"{self.limits.max_depth} levels deep", node)
            self.tick(node)
            local = dict(zip(define.params, args))
            value = self.eval(define.body, local)
            for mod in self.rules.modifiers.get(define.name, ()):
                self.tick(mod)
                menv = dict(zip(mod.params, args))
                if mod.when is not None and not truth(self.eval(mod.when, menv), mod.when):
                    continue
                delta = self.eval(mod.value, menv)
                if mod.op == ":=":
                    value = delta
                else:
                    _ints(value, delta, mod.op, mod)
                    value = {"+=": value + delta, "-=": value - delta,
                             "*=": value * delta}[mod.op]
                    value = self.num(value, mod)
            return value
        finally:
            self.depth -= 1

    def call_builtin(self, node, env):
        name = node.func
        fn = getattr(self, "bi_" + name, None)
        if fn is None:
            raise RuleError("E0311", f"unknown function `{name}`", node,
                            "declare it with `define` or use a built-in function")
        low, high = BUILTIN_FUNCTIONS[name]
        if len(node.args) < low or (high is not None and len(node.args) > high):
            raise RuleError("E0306", f"`{name}` takes {arity_text(name)} value(s), got "
                            f"{len(node.args)}", node)
        if name == "changed_at":
            return fn(node, env)
        args = [self.eval(a, env) for a in node.args]
        return fn(node, *args)

    def bi_size(self, node, *a):
        v = a[0]
        if isinstance(v, Grid):
            self.tick(node, len(v.cells))
            return sum(1 for c in v.cells if c is not None)
        if isinstance(v, (list, str, dict)):
            return len(v)
        raise RuleError("E0306", f"`size` needs a list, not {type_name(v)}", node)

    def bi_keys(self, node, *a):
        return self.sized(list(self._map(node, a[0])), node)

    def bi_values(self, node, *a):
        return self.sized(list(self._map(node, a[0]).values()), node)

    def _map(self, node, v) -> dict:
        if not isinstance(v, dict):
            raise RuleError("E0306", f"`{node.func}` needs a map, not {type_name(v)}", node)
        return v

    def bi_abs(self, node, *a):
        _ints(a[0], 0, "abs", node)
        return abs(a[0])

    def bi_max(self, node, *a):
        values = list(a[0]) if len(a) == 1 and isinstance(a[0], list) else list(a)
        return self.aggregate("max", values, node)

    def bi_min(self, node, *a):
        values = list(a[0]) if len(a) == 1 and isinstance(a[0], list) else list(a)
        return self.aggregate("min", values, node)

    def bi_sum(self, node, *a):
        values = list(a[0]) if len(a) == 1 and isinstance(a[0], list) else list(a)
        return self.aggregate("sum", values, node)

    def bi_top(self, node, *a):
        xs = _as_list(a[0], node)
        return xs[0] if xs else None

    def bi_last(self, node, *a):
        xs = _as_list(a[0], node)
        return xs[-1] if xs else None

    def bi_index_of(self, node, *a):
        xs = _as_list(a[0], node)
        self.tick(node, len(xs))
        for i, x in enumerate(xs):
            if _same(x, a[1]):
                return i + 1
        return 0

    def bi_shuffled(self, node, *a):
        xs = self.sized(list(_as_list(a[0], node)), node)
        self.saw_hidden |= self.watcher is not None  # a random order, shown to whoever uses it
        self.state.rng.shuffle(xs)
        return xs

    def bi_random_int(self, node, *a):
        _ints(a[0], a[1], "random_int", node)
        if a[1] < a[0]:
            raise RuleError("E0312", f"random_int({a[0]}, {a[1]}) has no values", node)
        self.saw_hidden |= self.watcher is not None
        return self.state.rng.between(a[0], a[1])

    def _seat(self, node, v) -> Seat:
        if not isinstance(v, Seat):
            raise RuleError("E0306", f"`{node.func}` needs a player, not {type_name(v)}", node)
        return v

    def bi_next(self, node, *a):
        p = self._seat(node, a[0])
        seats = self.state.seats
        return seats[p.seat % len(seats)]

    def bi_previous(self, node, *a):
        p = self._seat(node, a[0])
        seats = self.state.seats
        return seats[(p.seat - 2) % len(seats)]

    def bi_clockwise(self, node, *a):
        p = self._seat(node, a[0])
        seats = self.state.seats
        i = p.seat - 1
        return seats[i:] + seats[:i]

    def bi_counterclockwise(self, node, *a):
        p = self._seat(node, a[0])
        seats = self.state.seats
        i = p.seat - 1
        return [seats[(i - k) % len(seats)] for k in range(len(seats))]

    def bi_seat(self, node, *a):
        return self._seat(node, a[0]).seat

    def bi_is_automaton(self, node, *a):
        return self._seat(node, a[0]).automaton is not None

    def bi_join(self, node, *a):
        xs = _as_list(a[0], node)
        sep = a[1] if len(a) > 1 else ", "
        if not isinstance(sep, str):
            raise RuleError("E0306", f"`join` puts a text between the elements, not "
                            f"{type_name(sep)}", node)
        self.tick(node, len(xs))
        return self.text(sep.join(x if isinstance(x, str) else self.shown(x, node) for x in xs),
                         node)

    def bi_text(self, node, *a):
        return self.text(self.shown(a[0], node), node)

    def bi_changed_at(self, node, env):
        key = self.var_key(node.args[0], env)
        return self.state.changed_at.get(key, 0)

    def bi_largest_group(self, node, *a):
        """Largest total weight of an orthogonally connected group (row/column fields)."""
        cells = {}
        xs = _as_list(a[0], node)
        self.tick(node, 2 * len(xs))
        for x in xs:
            if not isinstance(x, (Item, Struct)):
                raise RuleError("E0306", "`largest_group` needs items with `row` and `column`",
                                node)
            r, c = x.fields.get("row"), x.fields.get("column")
            w = x.fields.get("weight")
            cells[(r, c)] = cells.get((r, c), 0) + (w if isinstance(w, int) else 1)
        best, seen = 0, set()
        for start in cells:
            if start in seen:
                continue
            total, stack = 0, [start]
            seen.add(start)
            while stack:
                r, c = stack.pop()
                total += cells[(r, c)]
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nb in cells and nb not in seen:
                        seen.add(nb)
                        stack.append(nb)
            best = max(best, total)
        return best

    # ------------------------------------------------------------------------ new values
    def new_grid(self, t, fill, node) -> Grid:
        cells = t.rows * t.columns
        if cells > self.limits.max_collection:
            raise RuleError("E0303", f"a {t.rows} by {t.columns} grid has {cells:,} cells (limit "
                            f"{self.limits.max_collection:,})", node)
        self.tick(node, cells)
        return Grid(t.rows, t.columns, fill)

    def default_for(self, t, node):
        if t is not None and t.kind == "grid_type":
            return self.new_grid(t, None, node)
        if t is not None and t.kind == "map_type":
            # keyed by an enum: every member starts with the value type's default
            members = self.rules.enums.get(getattr(t.key, "name", None), ())
            self.tick(node, len(members))
            return {m: self.default_for(t.value, node) for m in members}
        return _default_for(t)

    def ev_map_lit(self, node, env):
        self.tick(node, len(node.entries))
        return {self.eval(e.key, env): self.eval(e.value, env) for e in node.entries}

    # ------------------------------------------------------------------ variable references
    def var_key(self, target, env):
        """(seat number or 0, variable name) of a state variable written as `x` or `p.x`."""
        if target.kind == "name" and target.id in self.rules.global_vars:
            return (0, target.id)
        if target.kind == "field":
            obj = self.eval(target.obj, env)
            if isinstance(obj, Seat) and target.name in self.rules.player_vars:
                return (obj.seat, target.name)
        raise RuleError("E0306", "expected a state variable such as `x` or `p.x`", target)


def _same(a, b, depth: int = 0) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, str)) and isinstance(b, (int, str)):
        return a == b
    if a is b or depth >= MAX_SHOWN_DEPTH:  # values are never compared deeper than they show
        return a is b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], depth + 1) for k in a)
    return False


def _ints(a, b, op, node) -> None:
    ok = (isinstance(a, int) and not isinstance(a, bool)
          and isinstance(b, int) and not isinstance(b, bool))
    if not ok:
        raise RuleError("E0306", f"`{op}` needs numbers, got {type_name(a)} `{show(a)}` and "
                        f"{type_name(b)} `{show(b)}`", node)


def _as_list(v, node) -> list:
    if isinstance(v, list):
        return v
    if isinstance(v, Grid):
        return [c for c in v.cells if c is not None]
    raise RuleError("E0306", f"expected a list, got {type_name(v)}", node)


def _default_for(t) -> object:
    """The value a variable or field of type `t` starts with (grids: see Evaluator.new_grid)."""
    if t is None:
        return None
    kind = t.kind
    if kind in ("list_type", "deck_type"):
        return []
    if kind == "named_type":
        return {"int": 0, "bool": False, "text": ""}.get(t.name)
    return None


__all__ = ["Evaluator", "truth", "_same"]
