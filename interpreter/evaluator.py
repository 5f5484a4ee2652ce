"""The runtime of expressions: what every construct computes, called by the functions that
``codegen.py`` generates (their common cases are written out there; the rest, and every error,
is here). Nothing here changes the game's state (but its steps, the budget).
"""
from __future__ import annotations

import sys

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_FUNCTIONS, arity_text
from .codegen import Scope
from .errors import RuleError
from .memory import CHECK_EVERY, within
from .rules import Rules
from .state import DEFINE_CALL_STEPS, MOVED, GameState, Limits
from .values import (
    MAX_SHOWN_DEPTH, Grid, Item, Seat, Struct, Sym, elements, show, show_within, type_name,
)
from .codegen import key_pair
from .visibility import can_see, shape_seen

_UNREAD = object()  # a read whose value the audit is not told

_MISSING = object()


def truth(value, node) -> bool:
    if isinstance(value, bool):
        return value
    raise RuleError("E0306", f"expected yes/no (a condition) but got {type_name(value)} "
                    f"`{show(value)}`", node, "write a comparison such as `x > 0` or `x != none`")


_ONE_DIGIT = 2 ** 30 - 1  # the largest int of one digit
FRESH_LIST = object()  # (a field's plan: a new empty list each time)
MADE = object()  # (a field's plan: made by `default_for`, a grid or a map)


class Evaluator:
    """Everything an expression can do, over one game's state."""

    type_name = staticmethod(type_name)

    def __init__(self, rules: Rules, state: GameState, limits: Limits):
        self.rules = rules
        self.state = state
        self.limits = limits
        # Within these a number is within the bounds: ints of one digit, which CPython compares
        # at once (`max_number`, of more digits, is compared by the generic path).
        self.safe_number = min(limits.max_number, _ONE_DIGIT)
        self.safe_low = -self.safe_number
        self.depth = 0
        self.pending_player = None
        self._memory_check_at = CHECK_EVERY
        self.next_check = min(CHECK_EVERY, limits.max_steps + 1)  # see `steps_checked`
        # The seat whose knowledge is audited (Game.apply with audit_reveals): reading what it
        # may not see sets `saw_hidden`, so that play can refuse to undo a revealing decision.
        self.watcher: int | None = None
        self.saw_hidden = False
        self.known_reveals: dict = {}  # the reveals when the audited decision was made
        # While the state stands still (`standing_still`): the values of repeatable defines
        # already worked out, by (define, arguments), with the steps each first cost.
        self.memo: dict | None = None

    def standing_still(self, work, *args, memo: dict | None = None):
        """`work(*args)`, which changes nothing (it lists options or checks invariants): a
        repeatable define (``dependencies.repeatable_defines``) called again with the same
        arguments gives the value it gave, charging the steps it cost then, so step counts stay
        as they were. Not while a seat's knowledge is audited: each read must be seen. `memo`:
        values known to hold still (kept from an earlier check, ``Game._check_invariants``),
        and where the values worked out now are put."""
        if self.memo is not None or self.watcher is not None:
            return work(*args)
        self.memo = {} if memo is None else memo
        try:
            return work(*args)
        finally:
            self.memo = None

    def remembered(self, site: list, define, depth: int, args: tuple, node):
        """A call of a repeatable define while the state stands still (see `standing_still`):
        its value and steps given again for arguments it was called with. `site` counts the
        look-ups and hits of one call in the rules: one whose arguments rarely repeat (`f(r, c)`
        over every cell) stops looking itself up after a trial."""
        site[0] += 1
        key = (site[3], *args)
        try:
            hit = self.memo.get(key)
        except TypeError:  # an argument with no identity to key by (a list, a map)
            return define(self, node, depth, *args)
        st = self.state
        if hit is not None:
            site[1] += 1
            st.steps += hit[1]  # `tick`, written out: a hit is what remembering is for
            if st.steps >= self.next_check:
                self.steps_checked(node)
            return hit[0]
        if site[0] >= _MEMO_TRIAL and site[1] * 4 < site[0]:
            site[2] = False
        before = st.steps
        value = define(self, node, depth, *args)
        self.memo[key] = (value, st.steps - before)
        return value

    def watch(self, seat: int | None) -> None:
        """Audit what follows for what `seat` could not see until now (None: stop)."""
        self.watcher, self.saw_hidden = seat, False
        self.known_reveals = {k: v if v == "all" else set(v)
                              for k, v in self.state.reveals.items()} if seat is not None else {}

    def hidden_from_watcher(self, owner: int, name: str) -> bool:
        return not can_see(self.state, self.rules, self.watcher, owner, name, self.known_reveals)

    def note_read(self, owner: int, name: str, value=_UNREAD) -> None:
        if not self.saw_hidden and self.hidden_from_watcher(owner, name) \
                and not self.known_empty(owner, name, value):
            self.saw_hidden = True

    def known_empty(self, owner: int, name: str, value) -> bool:
        """A hidden value whose shape is seen and shows it empty (`none`, no elements, no
        occupied cell, no key) holds nothing more to learn: reading it shows nothing hidden."""
        if value is _UNREAD:
            return False
        decl = (self.rules.global_vars if owner == 0 else self.rules.player_vars).get(name)
        if not shape_seen(decl, value):
            return False
        if isinstance(value, Grid):
            return all(c is None for c in value.cells)
        return value is None or (isinstance(value, (list, dict)) and not value)

    # ----------------------------------------------------------------- budgets and numbers
    def tick(self, node, n: int = 1) -> None:
        """Charge `n` steps: a statement, a loop turn or a call is one; visiting or building
        elements costs one each, and texts one per 64 characters (docs/language.md, Limits)."""
        st = self.state
        st.steps += n
        if st.steps >= self.next_check:
            self.steps_checked(node)

    def steps_checked(self, node) -> None:
        """The checks due every so many steps: the step budget, then the memory. Hot loops
        charge steps inline (`state.steps += 1`) and call this past `next_check`."""
        st = self.state
        if st.steps > self.limits.max_steps:
            raise RuleError("E0301", f"the rules ran more than {self.limits.max_steps:,} steps "
                            "in one game; a loop probably never ends", node,
                            "check the loop's condition, or add `stop`")
        if st.steps >= self._memory_check_at:
            self._memory_check_at = st.steps + CHECK_EVERY
            self.check_memory(node)
        self.next_check = min(self._memory_check_at, self.limits.max_steps + 1)

    def check_memory(self, node) -> None:
        limit = self.limits.max_memory
        if limit is None:
            return
        used = within(limit)
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

    truth = staticmethod(truth)
    show = staticmethod(show)

    def same(self, a, b, node=None) -> bool:
        """Whether two values are equal, charging one step per element compared."""
        if not isinstance(a, (list, dict)) or not isinstance(b, (list, dict)):
            return _same(a, b)
        if type(a) is type(b) and len(a) != len(b):  # (`same_counted`: nothing visited)
            if self.state.steps >= self.next_check:
                self.steps_checked(node)
            return False
        allowance = max(0, self.limits.max_steps - self.state.steps) + 1
        try:
            result, visited = same_counted(a, b, allowance)
        except _OverAllowance:
            visited = allowance
            result = False
        self.tick(node, visited)
        return result

    def contains(self, xs: list, x, node=None) -> int:
        """The position (from 1) of the first element of `xs` equal to `x`, or 0, charging one
        step per element of `xs` visited and per element compared inside them."""
        found = 0
        if type(x) in _FOUND_BY_INDEX and type(xs) is list:  # Python's `==` agrees with `_same`
            try:
                found = xs.index(x) + 1
            except ValueError:
                pass
        elif isinstance(x, (list, dict)):
            for i, y in enumerate(xs):
                if y is x or (isinstance(y, (list, dict)) and self.same(x, y, node)):
                    found = i + 1
                    break
        else:
            for i, y in enumerate(xs):
                if y is x or _same(x, y):
                    found = i + 1
                    break
        self.tick(node, found or len(xs))
        return found

    # ----------------------------------------------------------------------------- entry
    def eval(self, node, env: dict, scope: Scope = None):
        """The value of an expression met outside the compiled rules (a scenario's `expect`, an
        explanation, a target): compiled once, its names looked up among `env` first."""
        compiled = self.rules.compiled
        entry = compiled.get(id(node))  # the entry keeps the node alive: its id stays its own
        if entry is None or entry[0] is not node:
            gen = self.rules.code.gen
            entry = compiled[id(node)] = (node, gen.expr(node, scope))
            gen.flush()
        return entry[1](self, env)

    def render(self, tmpl: A.Template | None, env) -> str:
        if tmpl is None:
            return ""
        return self.eval(tmpl, env) if tmpl.kind == "template" else tmpl.value

    def joined(self, pieces: tuple, node) -> str:
        """A text with holes, from its pieces (texts, and the holes' values as they read)."""
        size = 0
        for i, piece in enumerate(pieces):
            size += len(piece)
            if size > self.limits.max_text:
                self.text("".join(pieces[:i + 1]), node)  # raises: too long
        return self.text("".join(pieces), node)

    def shown(self, value, node) -> str:
        """`show` of a value the rules print, charged per element visited like any other walk,
        and refused once it reads longer than a text may be."""
        if not isinstance(value, (list, dict)):
            return show(value, describe=self.describe)
        text, visited, whole = show_within(value, self.limits.max_text, self.describe)
        self.tick(node, visited)
        if not whole:
            raise RuleError("E0303", f"this value reads longer than a text may be ("
                            f"{self.limits.max_text:,} characters)", node,
                            "show a part of it, or its size")
        return self.text(text, node)

    def describe(self, struct: Struct) -> str | None:
        """How a structure reads, when its record says (`record Lot show "..."`)."""
        show_text = self.rules.record_texts.get(struct.record)
        if show_text is None:
            return None
        return show_text(self, {A.ROW_KEY: None, **struct.fields})  # a structure has no row

    # ----------------------------------------------------------------------------- names
    def named_value(self, name, node, env):
        """A name that is no local nor global variable: a constant, an enum member, a table,
        an enum, a built-in value."""
        v = self.state.consts.get(name, _MISSING)
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

    def row(self, table: str, key: str, node):
        """`cards.guard`, `regions[r]`: the component of a table's row by its name."""
        item = self.rules.rows[table].get(key)
        if item is None:
            raise RuleError("E0307", f"table `{table}` has no row `{key}`", node)
        return item

    def get_field(self, obj, name, node):
        if isinstance(obj, Seat):
            v = obj.vars.get(name, _MISSING)
            if v is _MISSING:
                raise RuleError("E0311", f"players have no variable `{name}`", node,
                                f"declare it with `player {name}: ...`")
            if self.watcher is not None:
                self.note_read(obj.seat, name, v)
            return v
        if isinstance(obj, (Item, Struct)):
            v = obj.fields.get(name, _MISSING)
            if v is _MISSING:
                if name == A.ROW_KEY and isinstance(obj, Item):
                    return obj.key  # the name of its table row
                decl = self.rules.component_vars.get((obj.record, name)) \
                    if isinstance(obj, Item) else None
                if decl is not None:  # `on Record name: ...`: the state it carries
                    if self.watcher is not None:
                        self.note_read(0, decl.key)
                    return self.state.globals[decl.key][obj]
                if (obj.record, name) in self.rules.component_vars:
                    raise RuleError("E0311", f"`{name}` is carried by the components of "
                                    f"{obj.record}, not by a structure made with `new`", node,
                                    "keep a structure's changing values in its own fields")
                raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
            return v
        if isinstance(obj, Sym) and name == "name":
            return obj.name
        if obj is None:
            raise RuleError("E0306", f"cannot read `.{name}` of none", node,
                            "check that the value exists first: `x != none`")
        raise RuleError("E0306", f"cannot read `.{name}` of {type_name(obj)} `{show(obj)}`", node)

    def index(self, obj, idx, node, table: str | None = None):
        """`xs[i]`, `xs[1..3]`, `g[r, c]`, `m[k]`, and `regions[r]` when `table` names one."""
        if isinstance(obj, Grid):
            return obj.cells[self.grid_pos(obj, idx, node)]
        if isinstance(obj, dict):
            return obj.get(self.map_key(idx, node))
        if isinstance(obj, list):
            if len(idx) == 1 and isinstance(idx[0], (str, Sym)) and table in self.rules.rows:
                return self.row(table, idx[0].name if isinstance(idx[0], Sym) else idx[0], node)
            if len(idx) == 1 and isinstance(idx[0], list):  # xs[1..3]: several positions
                self.tick(node, len(idx[0]))
                return [obj[self.list_pos(obj, [i], node)] for i in idx[0]]
            return obj[self.list_pos(obj, idx, node)]
        if isinstance(obj, (Item, Struct)):
            return self.get_field(obj, self.field_key(obj, idx, node), node)
        raise RuleError("E0306", f"cannot index {type_name(obj)} `{show(obj)}`", node)

    def field_key(self, obj, idx, node) -> str:
        """`tile[k]`: the name of the field a member of an enum chooses."""
        if len(idx) != 1 or not isinstance(idx[0], Sym):
            shown = ", ".join(show(i) for i in idx)
            raise RuleError("E0306", f"a {obj.record}'s field is chosen by a member of an enum, "
                            f"not by `{shown}`", node, "write `record[k]` with `k` an enum member")
        return idx[0].name

    def map_key(self, idx, node):
        if len(idx) != 1:
            raise RuleError("E0306", "a map value is written `map[key]` with one key", node)
        return idx[0]

    def grid_pos(self, grid: Grid, idx, node) -> int:
        if len(idx) != 2 or type(idx[0]) is not int or type(idx[1]) is not int:
            raise RuleError("E0306", "a grid cell is written `grid[row, column]` with two numbers",
                            node)
        r, c = idx
        if not (1 <= r <= grid.rows and 1 <= c <= grid.columns):
            raise RuleError("E0307", f"cell [{r}, {c}] is outside the {grid.rows} by "
                            f"{grid.columns} grid", node)
        return grid.at(r, c)

    def list_pos(self, items: list, idx, node) -> int:
        if len(idx) != 1 or type(idx[0]) is not int:
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
    def binary_values(self, node, a, b):
        op = node.op
        if op == "==" or op == "!=":
            if isinstance(a, Grid) and isinstance(b, Grid):
                self.tick(node, min(elements(a), elements(b)))
            same = self.same(a, b, node)
            return same if op == "==" else not same
        if op in ("in", "not in"):
            if isinstance(b, Grid):
                b = b.cells
            elif isinstance(b, dict):
                b = list(b)
            if not isinstance(b, list):
                raise RuleError("E0306", f"`{op}` needs a list on the right, not {type_name(b)}",
                                node)
            found = self.contains(b, a, node) > 0
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

    def new_struct(self, node, values):
        """`new Record { f: v, ... }`: a structure, its other fields at their defaults."""
        kind = node.record
        plan = self.rules.code.struct_plans.get(kind)
        if plan is None:
            raise RuleError("E0311", f"unknown record `{kind}`", node)
        st = self.state  # (`tick`, written out)
        st.steps += len(plan)
        if st.steps >= self.next_check:
            self.steps_checked(node)
        fields = {}
        for name, start, t, f in plan:
            fields[name] = [] if start is FRESH_LIST else self.default_for(t, f) \
                if start is MADE else start
        for name, value, at in values:
            if name not in fields:
                raise RuleError("E0311", f"a {kind} has no field `{name}`", at)
            fields[name] = value
        st.struct_ids += 1
        return Struct(kind, fields, st.struct_ids)

    # ---------------------------------------------------------------------- comprehension
    @staticmethod
    def items_of(source, what: str, node) -> list:
        """What a loop or a binding walks, as a list of its own: a list's elements, a grid's
        cells, a map's keys."""
        t = type(source)
        if t is list or t is dict:
            return list(source)
        if t is Grid:
            return list(source.cells)
        raise RuleError("E0306", f"{what} needs a list, not {type_name(source)}", node)

    def aggregate(self, func, values, node):
        st = self.state  # (`tick`, written out)
        st.steps += len(values)
        if st.steps >= self.next_check:
            self.steps_checked(node)
        members = 0
        for v in values:
            if type(v) is not int:  # yes/no is no number
                if func != "sum" and type(v) is Sym:
                    members += 1
                    continue
                self.not_numbers(func, v, node)
        if func == "sum":
            return self.num(sum(values), node)
        if not values:
            return None
        if members:  # members by their order
            if members < len(values) or len({v.enum for v in values}) > 1:
                raise RuleError("E0306", f"`{func}` needs numbers, or members of one enum",
                                node)
            return max(values, key=_order) if func == "max" else min(values, key=_order)
        return max(values) if func == "max" else min(values)

    @staticmethod
    def not_numbers(func: str, value, node):
        raise RuleError("E0306", f"`{func}` needs numbers, got {type_name(value)}", node)

    @staticmethod
    def sole_of(ordered):
        """`sole_max`/`sole_min` of ordered rows: the element first in the order of its keys, or
        none when nothing qualifies or the next element has the same keys (a tie)."""
        if not ordered or len(ordered) > 1 and ordered[0][1] == ordered[1][1]:
            return None
        return ordered[0][0]

    def sort_keys(self, keys, env) -> list:
        """The values of compiled sort keys (``Generator.keys``) for one row (an automaton's
        `prefer` line ranking the options)."""
        return [("random", None) if key is None else key_pair(key(self, env), descending)
                for key, descending in keys]

    @staticmethod
    def no_case(value, node):
        raise RuleError("E0306", f"no case matches `{show(value)}`", node,
                        "add an `else: value` case")

    @staticmethod
    def cannot_negate(value, node):
        raise RuleError("E0306", f"cannot negate {type_name(value)}", node)

    def order(self, rows, node):
        """Stable sort of (value, keys) rows; a `random` key draws from the game's generator.
        Charged n log n steps, what sorting costs."""
        self.tick(node, len(rows) * max(1, len(rows).bit_length() - 1))
        keys, shuffled = [], False
        for row in rows:  # each row's key once, in order (the first that cannot be is refused)
            key = []
            for desc, v in row[1]:
                if type(v) is int:  # (the most met: a number, `desc` a yes or no)
                    key.append(-v if desc else v)
                elif desc == "random":
                    key.append(0)
                    shuffled = True
                elif isinstance(v, (int, float)):
                    key.append(-v if desc else v)
                else:
                    raise RuleError("E0306", f"cannot order by {type_name(v)}", node)
            keys.append(key)
        places = sorted(range(len(rows)), key=keys.__getitem__)
        if not shuffled:
            return [rows[i] for i in places]
        # Shuffle each group of rows tied on the keys before the random key.
        out, i, n = [], 0, len(places)
        while i < n:
            tied, j = keys[places[i]], i + 1
            while j < n and keys[places[j]] == tied:
                j += 1
            group = [rows[k] for k in places[i:j]]
            if len(group) > 1:
                self.state.rng.shuffle(group)
                self.saw_hidden |= self.watcher is not None
            out.extend(group)
            i = j
        return out

    # ----------------------------------------------------------------------------- calls
    def call_define(self, define: A.DefineDecl, args: list, node, depth: int):
        """A define called with its modifiers (or with the wrong number of values), `depth`
        calls deep: its body and modifiers run with `depth` as the machine's depth."""
        if len(args) != len(define.params):
            raise RuleError("E0306", f"`{define.name}` takes {len(define.params)} values, "
                            f"got {len(args)}", node)
        outer, self.depth = self.depth, depth
        try:
            if self.depth > self.limits.max_depth:
                self.too_deep(define, node)
            self.tick(node, DEFINE_CALL_STEPS)
            code = self.rules.code
            value = code.gen.body(define.name)(self, *args)
            for mod, when, amount in code.modifiers.get(define.name, ()):
                self.tick(mod)
                menv = dict(zip(mod.params, args))
                if when is not None and not truth(when(self, menv), mod.when):
                    continue
                delta = amount(self, menv)
                if mod.op == ":=":
                    value = delta
                else:
                    _ints(value, delta, mod.op, mod)
                    value = {"+=": value + delta, "-=": value - delta,
                             "*=": value * delta}[mod.op]
                    value = self.num(value, mod)
            return value
        finally:
            self.depth = outer

    def too_deep(self, define, node):
        raise RuleError("E0302", f"`{define.name}` calls itself more than "
                        f"{self.limits.max_depth} levels deep", node)

    def call_builtin(self, name, args, node):
        fn = _BUILTINS.get(name)
        if fn is None:
            raise RuleError("E0311", f"unknown function `{name}`", node,
                            "declare it with `define` or use a built-in function")
        low, high = BUILTIN_FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            raise RuleError("E0306", f"`{name}` takes {arity_text(name)} value(s), got "
                            f"{len(args)}", node)
        return fn(self, node, *args)

    def components(self, record: str, node) -> list:
        """Every component of `record`, from every table that lists it (a step each)."""
        items = [i for t in self.rules.tables.values() if t and t[0].record == record for i in t]
        self.tick(node, len(items))
        return items

    def changed_at(self, target, env, node):
        """`changed_at(x)`: when the `stacked` variable x last changed (0: never)."""
        return self.state.changed_at.get(self.var_key(target, env), 0)

    def bi_moved_at(self, node, *a):
        """`moved_at(x)`: when the component x last moved (0: never since the game began)."""
        if type(a[0]) is not Item:
            raise RuleError("E0306", f"`moved_at` tells when a component moved, not "
                            f"{type_name(a[0])} `{show(a[0])}`", node,
                            "give it a component: an element of a zone filled from a table")
        return self.state.changed_at.get((MOVED, a[0].id), 0)

    def bi_size(self, node, *a):
        v = a[0]
        if isinstance(v, Grid):
            st = self.state  # (`tick`, written out: sizes are counted often)
            st.steps += len(v.cells)
            if st.steps >= self.next_check:
                self.steps_checked(node)
            return len(v.cells) - v.cells.count(None)  # (no value of the rules equals none)
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
        return self.contains(_as_list(a[0], node), a[1], node)

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

    def bi_turned(self, node, *a):
        """A shape (a list of equally long rows, or a grid) turned k quarter turns clockwise:
        row i of the result is column i read from the bottom row up. One step per cell."""
        shape, k = a
        _ints(k, 0, "turned", node)
        rows = _rows_of(shape, node)
        self.tick(node, sum(len(r) for r in rows) * (k % 4) + 1)
        for _ in range(k % 4):
            rows = [[row[c] for row in reversed(rows)] for c in range(len(rows[0]))] \
                if rows else []
        return rows

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
        rows, columns = self.grid_size(t.rows, "rows"), self.grid_size(t.columns, "columns")
        cells = rows * columns
        if cells > self.limits.max_collection:
            raise RuleError("E0303", f"a {rows} by {columns} grid has {cells:,} cells (limit "
                            f"{self.limits.max_collection:,})", node)
        self.tick(node, cells)
        return Grid(rows, columns, fill)

    def grid_size(self, size, what: str) -> int:
        """A grid's number of rows or columns: a number, or constants the checker allowed."""
        if size.kind == "int":
            n = size.value
        else:
            n = self.eval(size, {}, frozenset())
        if type(n) is not int or n < 1:
            raise RuleError("E0303", f"a grid's number of {what} is {show(n)}, not a whole "
                            "number of at least 1", size)
        return n

    def default_for(self, t, node):
        if t is not None and t.kind == "grid_type":
            return self.new_grid(t, None, node)
        if t is not None and t.kind == "map_type":
            # keyed by an enum or by player: every member (each player) starts with the value
            # type's default
            key = getattr(t.key, "name", None)
            members = self.state.seats if key == "player" else self.rules.enums.get(key, ())
            self.tick(node, len(members))
            return {m: self.default_for(t.value, node) for m in members}
        return _default_for(t)

    # ------------------------------------------------------------------ variable references
    def var_key(self, target, env):
        """(seat number or 0, variable name) of a state variable written as `x` or `p.x`."""
        if target.kind == "name" and target.id in self.rules.global_vars:
            return (0, target.id)
        if target.kind == "field":
            return self.field_var_key(self.eval(target.obj, env), target.name, target)
        raise RuleError("E0306", "expected a state variable such as `x` or `p.x`", target)

    def field_var_key(self, obj, name: str, target):
        """(seat number or 0, variable name) of `obj.name`, a player's or a component's."""
        if isinstance(obj, Seat) and name in self.rules.player_vars:
            return (obj.seat, name)
        decl = self.rules.component_vars.get((obj.record, name)) \
            if isinstance(obj, Item) else None
        if decl is not None:  # state on a component: all of its kind share a visibility
            return (0, decl.key)
        raise RuleError("E0306", "expected a state variable such as `x` or `p.x`", target)


# Calls of a repeatable define looked up before deciding whether remembering them pays: the
# memo changes no value and no step count, only the time taken.
_MEMO_TRIAL = 256


def _order(member: Sym) -> int:
    return member.order

# Values found in a list by Python's own `list.index`: equal exactly when `_same` says so (not
# numbers, which would take a yes/no for 1 or 0).
_FOUND_BY_INDEX = frozenset({str, Sym, Seat, Item, Struct, type(None)})


class _OverAllowance(Exception):
    """A comparison visited more elements than the steps left in the budget."""


def same_counted(a, b, allowance: int) -> tuple[bool, int]:
    """`_same(a, b)` and how many elements it visited, stopping with `_OverAllowance` once it has
    visited more than `allowance` (values that share parts can hide exponential work)."""
    left = allowance

    def walk(a, b, depth):
        nonlocal left
        both = (list if isinstance(a, list) and isinstance(b, list)
                else dict if isinstance(a, dict) and isinstance(b, dict) else None)
        if both is None or a is b or depth >= MAX_SHOWN_DEPTH:  # never deeper than values show
            return _same_leaf(a, b)
        if len(a) != len(b) or (both is dict and a.keys() != b.keys()):
            return False
        left -= len(a)
        if left < 0:
            raise _OverAllowance
        if both is list:
            return all(walk(x, y, depth + 1) for x, y in zip(a, b))
        return all(walk(a[k], b[k], depth + 1) for k in a)

    result = walk(a, b, 0)
    return result, allowance - left


def _same_leaf(a, b) -> bool:
    """Equality of two values that are not both lists or both maps."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, str)) and isinstance(b, (int, str)):
        return a == b
    return a is b


def _same(a, b) -> bool:
    """Whether two values are equal, at any depth, without charging the work (the engine's own
    comparisons; what the rules compare goes through `Evaluator.same`)."""
    if isinstance(a, (list, dict)) and isinstance(b, (list, dict)):
        return same_counted(a, b, sys.maxsize)[0]
    return _same_leaf(a, b)


def _ints(a, b, op, node) -> None:
    ok = (isinstance(a, int) and not isinstance(a, bool)
          and isinstance(b, int) and not isinstance(b, bool))
    if not ok:
        raise RuleError("E0306", f"`{op}` needs numbers, got {type_name(a)} `{show(a)}` and "
                        f"{type_name(b)} `{show(b)}`", node)


def _rows_of(shape, node) -> list[list]:
    """The rows of a shape: a grid's, or a list of rows that are lists of one length."""
    if isinstance(shape, Grid):
        return [shape.cells[r * shape.columns:(r + 1) * shape.columns]
                for r in range(shape.rows)]
    if not isinstance(shape, list) or not all(isinstance(r, list) for r in shape):
        raise RuleError("E0306", f"`turned` turns a list of rows or a grid, not "
                        f"{type_name(shape)}", node, "write the shape as rows: "
                        "[[a, b, c], [d, e, f]]")
    if len({len(r) for r in shape}) > 1:
        raise RuleError("E0306", "`turned` needs rows of one length (a rectangle)", node)
    return [list(r) for r in shape]


def _as_list(v, node) -> list:
    if isinstance(v, list):
        return v
    if isinstance(v, Grid):
        return [c for c in v.cells if c is not None]
    raise RuleError("E0306", f"expected a list, got {type_name(v)}", node)


def struct_plan(record) -> tuple:
    """How a structure of `record` starts, field by field (its name, and the value it starts
    with, `FRESH_LIST` or `MADE`; the type and field `default_for` is given): worked out when
    the rules load (`Code.struct_plans`), as the fields of a declaration are slow to read."""
    plan = []
    for f in record.fields:
        t = f.type
        kind = None if t is None else t.kind
        start = MADE if kind in ("grid_type", "map_type") else FRESH_LIST \
            if kind in ("list_type", "deck_type") else _default_for(t)
        plan.append((f.name, start, t, f))
    return tuple(plan)


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


# Built-in functions by name (validator/builtins.py lists them for the checker too).
_BUILTINS = {name[3:]: fn for name, fn in vars(Evaluator).items() if name.startswith("bi_")}

__all__ = ["Evaluator", "truth", "_same"]
