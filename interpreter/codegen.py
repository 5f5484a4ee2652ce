"""Expressions compiled once into Python functions generated from the validated syntax tree.

Each expression a ruleset evaluates (a statement's value, a `where`, a label, a `define`'s
body) becomes a Python function written from its AST when the rules load, never from the text
of a rules file: a name or a text of the rules reaches the source only as ``repr`` of a Python
string (an escaped literal), and every other value (a node, an enum member, a component, a
table) as a constant of the module the functions live in (``k12``). Identifiers in the source
are the generator's own (``t3``, ``v2``, ``d5``), never names from the rules.

Names are resolved here, once (as starlark-go's resolver binds each identifier): a value bound
inside the expression (a comprehension's binding, a define's parameter) is a Python local, a
name bound in the enclosing block reads the block's names (``env``), anything else is a global,
a constant, an enum member, a table, an enum or a built-in value, decided now. Expressions
compiled without a known scope (a scenario's `expect`) look at ``env`` first, then the rest.

The common cases are written out in the source (numbers, comparisons, grid cells, fields,
loops over bindings, calls of defines); everything else, and every error, goes through the
runtime (``evaluator.Evaluator``), the one place where each construct's work is done.

Functions are generated per ruleset and compiled in one batch (``Generator.flush``): until
then a compiled expression is a stub whose code is filled in by the flush.
"""
from __future__ import annotations

import re
import types
import warnings
from contextlib import ExitStack, contextmanager

from ..grammar import ast as A
from ..validator.builtins import BUILTIN_FUNCTIONS
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .errors import RuleError
from .flow import ReactFrame, RoutineFrame, Signal, SimFrame
from .rules import holds_numbers
from .state import DEFINE_CALL_STEPS, MIN_COLLECTION
from . import statements
from .statements import Statements
from .values import Grid, Item, Seat, Struct, Sym

_MISSING = object()
_READ_HERE = "\x00read "  # a line that marks where a state variable may be read (`Function.read`)

# The scope of an expression given by its caller: the names of the enclosing block (read from
# `env`), or None when unknown (look at `env` first, whatever it holds).
Scope = frozenset | None

# What generated code may call by name: no other built-in of Python is reachable from it.
_SAFE_BUILTINS = {"type": type, "len": len, "range": range, "list": list, "dict": dict,
                  "int": int, "str": str, "bool": bool, "enumerate": enumerate,
                  "ValueError": ValueError, "TypeError": TypeError, "KeyError": KeyError,
                  "AttributeError": AttributeError, "set": set, "zip": zip, "max": max,
                  "min": min}

# The options of a loop over a range written as numbers, with no `where`, are one constant of
# the module appended at once (tests turn it off to compare with the loop), up to this many
WRITE_LISTED = True
_LISTED_AT_ONCE = 1024

# A structure `new` makes is made where it is written, when it can be (tests turn it off to
# compare with `Evaluator.new_struct`)
WRITE_RECORDS = True

# `max` and `min` of numbers are written out (tests turn it off to compare with
# `Evaluator.aggregate`, which works out every other value)
WRITE_EXTREMES = True

# Values equal when Python's `==` says so (of one type); compared element by element by the
# runtime; any other value is equal only to itself.
_BY_VALUE = frozenset({int, str, bool})
_DEEP = frozenset({list, dict, Grid})
_COMPARED = _BY_VALUE | _DEEP
_RECORDS = frozenset({Item, Struct})  # values with fields: components and structures
_ALONE = frozenset({Sym, Item})  # constants equal to themselves alone (members, components)
# Values stored as they are (no list, map, grid or structure, which are copied and checked).
_PLAIN = frozenset({int, str, bool, type(None), Sym, Item, Seat})

# Element types for which Python's `list.index` finds what `Evaluator.contains` finds.
_INDEXABLE = frozenset({str, Sym, Seat, Item, Struct, type(None)})


def _placeholder(m, env):
    raise RuntimeError("a generated function was called before its ruleset was compiled")


class Names:
    """Where each name visible in generated code lives: `py` maps names bound in the function
    itself to its Python locals; `env` is the set of names read from the block's names (None:
    unknown, look there first)."""

    __slots__ = ("py", "env")

    def __init__(self, py: dict, env: Scope):
        self.py, self.env = py, env

    def bind(self, name: str, var: str) -> "Names":
        return Names({**self.py, name: var}, self.env)


class Function:
    """The source of one generated function being written."""

    def __init__(self, gen: "Generator", name: str, params: str, env: str):
        self.gen, self.name, self.params, self.env = gen, name, params, env
        self.lines: list[str] = []
        self.depth = 1   # indentation
        self.blocks = 0  # loops and `try`s around the line being written (Python allows 20)
        self.n = 0
        self.hoists: dict[str, str] = {}
        self.watched = True  # reads are told to the audited seat (``Generator.unwatched``)
        # The depth of calls where its code runs, the same from its first line to its last:
        # `m.depth` read once at its start; a define is given its own (`D`), a statement knows
        # its block's (`depth`). `DEEP` is whether a call made there goes too deep.
        self.calls = "DEPTH"
        # Variables read once at the start (the state stands still while an expression is
        # worked out): (dict, name) -> the local holding `dict.get(name, _M)`.
        self.reads: dict[tuple[str, str], str] = {}
        self.hoist_as: dict[str, str] = {}  # a hoist worked out otherwise in this function
        # Locals (and literals) whose values are known from the code that set them, so their
        # types need no test: numbers (a literal, a count, a size, a difference, a number of a
        # range), players (an element of the players), the list of the players.
        self.ints: set[str] = set()
        # Of those, numbers known to be 0 or more (a size, a count, sums and products of such):
        # only the upper bound on numbers can be passed.
        self.naturals: set[str] = set()
        self.seats: set[str] = set()
        # Locals holding a list made where they are set, that nothing else holds (a list
        # written out, joined or built by a loop): stored in a variable as it is, no copy.
        self.lists: set[str] = set()
        self.routine = None  # a routine being written (``routines.RoutineCode``)
        # Runs only once the state is set up: every state variable of the rules is there
        # (the code of starting values, and the defines they call, may meet one not set yet).
        self.settled = True
        self.seat_lists: set[str] = set()
        # In a listing of options: (define, arguments) -> the locals keeping its value and the
        # steps it cost (`Generator._kept_while_listing`), set to nothing at the start.
        self.kept_calls: dict[tuple, tuple[str, str]] = {}
        self.kept_numbers: set[tuple] = set()  # ... those that keep numbers alone
        # Locals that should hold players, as the rules declare them (a list of players read
        # from a state variable, an element of one): not known, so their reads stay guarded,
        # but a variable players have is read as a player's first.
        self.likely_seat_lists: set[str] = set()
        self.likely_seats: set[str] = set()
        self.items: dict[str, str] = {}  # a row of a table (an element of its list): the table
        self.item_lists: dict[str, str] = {}  # a table's list: the table
        self.sizes: dict[str, int] = {}  # ranges whose length is known as written
        self.starts: dict[str, int] = {}  # ... and where they start
        self.bounds: dict[str, tuple[int, int]] = {}  # numbers of such a range, its bounds
        # A read of a state variable that may hold a grid (`r4`): its rows, columns and cells,
        # taken once where it is read (-1 rows and columns when it holds no grid).
        self.grids: dict[str, tuple[str, str, str]] = {}
        self.copies: dict[str, str] = {}  # a local holding what a read holds (t7 = r4)
        # A grid read whose cells are read at indices known from 1 up: the most row and column
        # read (`r4_in` then says, once, that every such cell is inside it).
        self.reaches: dict[str, tuple[int, int]] = {}
        # The number of a loop over a range (a grid's row, as it may be): where its turn
        # starts, to work out there where a row of a grid read before the loop begins
        # (`row_bases`, by grid and number), once for every cell the inner loops index.
        self.row_marks: dict[str, tuple[tuple[int, int], list[str]]] = {}
        self.row_bases: dict[tuple[str, str], str] = {}
        self.fold: Fold | None = None  # the body of a loop being written (its first charge)
        # The last checked constant charge written: (the lines holding it, its place, its two
        # lines, the `constant` lines after it), for a charge that may join it (`charge`).
        self.last_charge: tuple[list[str], int, list[str], list[str]] | None = None
        # The `where` of the loop whose turn is being written (or the body of the define it
        # calls, written out), and the locals the loop binds: the first operands of an `and` it
        # is made of that read none of them are worked out before the loop
        # (`Generator.worked_before_loop`).
        self.turn_test: tuple | None = None
        # Locals no line of the function sets (a define's parameters), and for those compared
        # with `==`, the flag worked out once at its start: the value is equal to itself alone.
        self.fixed: set[str] = set()
        # lists options: a call of a looping define with constant arguments is looked up (the
        # state stands still, and the options' loop would work it out again for each)
        self.listing = False
        self.alone: dict[str, str] = {}
        # With `lazy` (a define's function: its body is one expression, often `a and b and
        # ...`), a state variable read first outside any loop is read there, where it is first
        # needed, when no line after the block holding that place uses it: a test that fails
        # early reads nothing more. The place is marked (`_READ_HERE`) and settled in `source`.
        self.lazy = False

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def tmp(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def placeholder(self) -> tuple[int, int]:
        """A line written later (`fill`), when what it says is known (the labels a statement
        of a routine holds are numbered as its code is written)."""
        self.lines.append("")
        return len(self.lines) - 1, self.depth

    def fill(self, where: tuple[int, int], lines: list[str]) -> None:
        index, depth = where
        self.lines[index] = "\n".join("    " * depth + line for line in lines)

    @contextmanager
    def indent(self, block: bool = False):
        """Lines inside an `if` (or, with `block`, a loop or `try`)."""
        self.depth += 1
        self.blocks += block
        try:
            yield
        finally:
            self.depth -= 1
            self.blocks -= block

    @contextmanager
    def expression(self):
        """The code of one expression of a statement: its reads of state variables are made
        once, before it (the state stands still while an expression is worked out, not from
        one statement to the next)."""
        lines, reads = self.lines, self.reads
        self.lines, self.reads = [], {}
        try:
            yield
        finally:
            body, mine = self.lines, self.reads
            self.lines, self.reads = lines, reads
            for (where, name), local in mine.items():
                for line in self.read_lines(where, name, local):
                    self.emit(line)
            self.lines.extend(body)

    def use(self, name: str) -> str:
        """A value read once at the start of the function (the state, its globals, ...)."""
        self.hoists[name] = code = self.hoist_as.get(name) or _HOISTS[name]
        if "DEPTH" in code:  # read from the depth read first
            self.use("DEPTH")
        return name

    def made_list(self, t: str) -> None:
        """Local `t` holds a list made where it is set, or the runtime's error (``lists``)."""
        if statements.WRITE_LISTS:
            self.lists.add(t)

    def grid_cell(self, grid: str, r: str, c: str) -> tuple[str, str]:
        """Cell [r, c] of `grid` in generated code: the test that `grid` is a grid and the cell
        is inside it, and the cell's position in its cells (as `Grid.at` works it out; anything
        else is the runtime's)."""
        numbers = "".join(f" and type({x}) is int" for x in (r, c) if x not in self.ints)
        return (f"type({grid}) is Grid{numbers} and 1 <= {r} <= {grid}.rows and "
                f"1 <= {c} <= {grid}.columns", f"({r} - 1) * {grid}.columns + {c} - 1")

    def numbers_within(self, t: str) -> str:
        """The test that number `t` is known within the bounds on numbers at once: within
        `Evaluator.safe_number`, which Python compares without its generic path (a number past
        it, rare, is left to the runtime, which holds it to `Limits.max_number`)."""
        if self.natural(t):
            return f"{t} <= {self.use('SAFE')}"
        return f"{self.use('MINS')} <= {t} <= {self.use('SAFE')}"

    def natural(self, x: str) -> bool:
        """Whether `x` holds a number known to be 0 or more (`naturals`, a literal, a number of
        a range from 0 up)."""
        if x in self.naturals:
            return True
        low = _literal_int(x)
        if low is None:
            low = self.bounds.get(x, (None,))[0]
        return low is not None and low >= 0

    def read_lines(self, where: str, name: str, local: str) -> list[str]:
        lines = [f"{local} = {where}[{name!r}]" if self.settled or where == "env"
                 else f"{local} = {where}.get({name!r}, _M)"]
        facts = self.grids.get(local)
        if facts is not None:
            rows, columns, cells = facts
            lines += [f"if type({local}) is Grid: {rows}, {columns}, {cells} = {local}.rows, "
                      f"{local}.columns, {local}.cells",
                      f"else: {rows} = {columns} = -1"]
            reach = self.reaches.get(local)
            if reach is not None:  # every index known, from 1 up to at most these
                lines.append(f"{local}_in = {rows} >= {reach[0]} and {columns} >= {reach[1]}")
        return lines

    def grid_facts(self, local: str) -> tuple[str, str, str]:
        """The rows, columns and cells of the grid read into `local`, taken where it is read."""
        facts = self.grids.get(local)
        if facts is None:
            facts = self.grids[local] = (f"{local}_r", f"{local}_c", f"{local}_x")
        return facts

    def read(self, where: str, name: str) -> str:
        """A local holding `where.get(name, _M)` (`where`: a hoisted dict, or `env` where it
        does not change: a listing of options), read at the start."""
        local = self.reads.get((where, name))
        if local is None:
            if where != "env":
                self.use(where)
            self.n += 1
            local = self.reads[(where, name)] = f"r{self.n}"
            if self.markable():
                self.lines.append(f"{_READ_HERE}{self.depth} {where} {name} {local}")
        return local

    def steps(self, n: str, node: str, check: bool = True) -> None:
        """Charge `n` steps (`Evaluator.tick`, written out). The first charges of a loop's
        body, made on every turn of the loop before anything but guards (`Fold`), are added
        to the loop's own charge instead. Without `check`, the budget is not looked at here:
        code that can neither loop nor call (a statement run once, a define written out) is
        charged, and the next turn of a loop, call or decision looks."""
        fold = self.fold
        if fold is not None:
            if n.isdigit() and fold.at_start(self):
                fold.owed += int(n)
                return
            self.fold = None  # the body's first charges are behind it
        self.charge(n, node, check)

    def charge(self, n: str, node: str, check: bool = True) -> None:
        """Charge `n` steps here. A constant charge that comes right after a checked constant
        charge, with only `constant` lines between, is added to that one (its check looks at
        both; the steps at every line that can fail are the same), as a loop's charge for its
        turn and the charge of the first statement of its body."""
        last = self.last_charge
        if last is not None and n.isdigit() and self._after(last):
            _, where, old, constants = last
            total = str(int(old[0].split("+= ")[1]) + int(n))
            self.lines[where] = old[0] = old[0].split("+= ")[0] + "+= " + total
            return
        lines = self.charge_lines(n, node, check)
        for line in lines:
            self.emit(line)
        self.last_charge = None
        if check and n.isdigit():  # (lines as written: a later line must find them unchanged)
            self.last_charge = (self.lines, len(self.lines) - 2, self.lines[-2:], [])

    def _after(self, last) -> bool:
        """Whether the lines end with the charge `last` then its `constant` lines alone."""
        lines, where, charge, constants = last
        return lines is self.lines and lines[where:] == [*charge, *constants]

    def charge_lines(self, n: str, node: str, check: bool = True) -> list[str]:
        st = self.use("st")
        if not check:
            return [f"{st}.steps += {n}"]
        return [f"{st}.steps += {n}", f"if {st}.steps >= m.next_check: m.steps_checked({node})"]

    def guard(self, line: str) -> None:
        """A line that only checks, and raises (a call too deep), or sets a local to a
        constant: a charge after it is still at the start of a loop's body (`Fold`)."""
        self.emit(line)
        if self.fold is not None and self.fold.lines is self.lines:
            self.fold.guards += 1

    def constant(self, line: str) -> None:
        """A line that sets a local to a constant (`at = k7`): it cannot fail nor look at the
        steps, so a constant charge after it joins the checked charge just before it
        (`charge`), and a loop's first charges still fold over it (`guard`)."""
        self.guard(line)
        if self.last_charge is not None:
            self.last_charge[3].append(self.lines[-1])

    def source(self) -> str:
        lines, placed = self.placed_reads()
        head = ["    " + f"{k} = {v}" for k, v in sorted(self.hoists.items(),
                                                      key=lambda kv: _HOIST_ORDER[kv[0]])]
        head += ["    " + line for (where, name), local in self.reads.items()
                 if local not in placed for line in self.read_lines(where, name, local)]
        head += [f"    {flag} = type({v}) not in _COMPARED" for v, flag in self.alone.items()]
        head += [f"    {value} = _M" for value, _ in self.kept_calls.values()]
        return "\n".join([f"def {self.name}({self.params}):", *head, *_tested_at_once(lines)])

    def markable(self) -> bool:
        """Whether a read may be marked here (`lazy`): outside any loop, and not between a
        line that opens a block at this depth and its body written with its own indentation
        (`else:` then `    x = ...`)."""
        if not self.lazy or self.blocks:
            return False
        last = next((x for x in reversed(self.lines) if x and not x.startswith(_READ_HERE)), "")
        return not (last.endswith(":") and len(last) - len(last.lstrip(" ")) >= 4 * self.depth)

    def placed_reads(self) -> tuple[list[str], set[str]]:
        """The lines with each marked read written where it was marked, when no line after the
        block holding the mark (the first less indented) names its local; the locals so read.
        Other marks are dropped: those reads are made at the start."""
        lines, placed = list(self.lines), set()
        for i, line in enumerate(lines):
            if not line.startswith(_READ_HERE):
                continue
            depth, where, name, local = line[len(_READ_HERE):].split(" ", 3)
            indent = "    " * int(depth)
            end = next((j for j in range(i + 1, len(lines)) if lines[j]
                        and not lines[j].startswith(_READ_HERE)
                        and not lines[j].startswith(indent)), len(lines))
            named = re.compile(rf"\b{local}(_[rcx]|_in)?\b")
            if any(named.search(later) for later in lines[end:]):
                lines[i] = indent + "pass"  # (the only line of its block, maybe)
                continue
            lines[i] = "\n".join(indent + x for x in self.read_lines(where, name, local))
            placed.add(local)
        return lines, placed


_SET_TEMP = re.compile(r"( *)(t\d+) = (?!\w+ = )(.+)")  # (not `t1 = t2 = 0`)
_TEMP = re.compile(r"\bt\d+\b")


def _tested_at_once(lines: list[str]) -> list[str]:
    """`t = X` followed by `if not t:` (or `if t:`, `if t is False:`), where nothing else names
    `t`, becomes `if not (X):`: the test of a `where` or a quantifier, made without the local
    (its store and load, on every turn of the loops around it)."""
    uses: dict[str, int] = {}
    for line in lines:
        for name in _TEMP.findall(line):
            uses[name] = uses.get(name, 0) + 1
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _SET_TEMP.fullmatch(line)
        if m is not None and i + 1 < len(lines) and uses.get(m.group(2)) == 2:
            indent, t, value = m.groups()
            test = lines[i + 1]
            for head, made in ((f"{indent}if not {t}:", f"{indent}if not ({value}):"),
                               (f"{indent}if {t}:", f"{indent}if ({value}):"),
                               (f"{indent}if {t} is False:", f"{indent}if ({value}) is False:")):
                if test == head or test.startswith(head + " "):
                    out.append(made + test[len(head):])
                    i += 2
                    break
            else:
                out.append(line)
                i += 1
            continue
        out.append(line)
        i += 1
    return out


class Fold:
    """The body of a loop being written (``Generator.loops``): the constant charges made first
    on every turn (`owed`: an inlined define's call, ...) are added to what the loop charges for
    each element it visits, which comes to the same steps with fewer checks per turn."""

    def __init__(self, fn: Function):
        self.lines, self.start, self.depth = fn.lines, len(fn.lines), fn.depth
        self.guards = 0  # lines written by `Function.guard` since the body started
        self.owed = 0
        # [a placeholder line before the innermost loop (its header the next line), what the
        # loop walks, its position's local (None: none), its element's local]: where the
        # operands of its `where` that are the same on every turn are worked out once
        self.before: list | None = None

    def at_start(self, fn: Function) -> bool:
        """Whether only guards have been written since the body started, at its own depth."""
        return fn.lines is self.lines and fn.depth == self.depth \
            and len(fn.lines) - self.start == self.guards


# (DEEP: a call made here would go deeper than calls may: the depth does not change while an
# expression is worked out, whatever it calls; a define's `D` is given, one deeper than its
# caller's)
_HOISTS = {"st": "m.state", "G": "m.state.globals", "C": "m.state.consts", "W": "m.watcher",
           "MAXN": "m.limits.max_number", "MINN": "-m.limits.max_number",
           "SAFE": "m.safe_number", "MINS": "m.safe_low",
           "LIMIT": "m.limits.max_options", "MAXC": "m.limits.max_collection",
           "DEPTH": "m.depth",
           "DEEP": "DEPTH >= m.limits.max_depth"}
_HOIST_ORDER = {name: i for i, name in enumerate(_HOISTS)}


class Generator(Statements):
    """Writes and compiles the functions of one ruleset (and of expressions met later, such as
    a scenario's, which may call its defines): one module namespace for all of them."""

    def __init__(self, rules):
        self.rules = rules
        self.ns: dict = {"__builtins__": _SAFE_BUILTINS, "_M": _MISSING, "_E": {},
                         "Grid": Grid, "Seat": Seat, "Item": Item, "Struct": Struct, "Sym": Sym,
                         "RuleError": RuleError, "Signal": Signal, "RuntimeError": RuntimeError,
                         "RoutineFrame": RoutineFrame, "SimFrame": SimFrame,
                         "ReactFrame": ReactFrame, "_PLAIN": _PLAIN, "_BY_VALUE": _BY_VALUE,
                         "_COMPARED": _COMPARED, "_RECORDS": _RECORDS}
        self._procedures: dict = {}  # procedure or handler -> the name of its function
        self._routine_keys: dict = {}  # procedure or handler that may wait -> its routine
        self.routines: list = []  # every routine, by number (saved frames name them)
        self.decisions: list = []  # every `choose` and `compose`, by number (saved options)
        self._const_names: dict[int, str] = {}
        self._ranges: dict[tuple[int, int], str] = {}  # `const_range`
        self._table_places: dict[str, str] = {}  # `_in_table`: table -> {row: position}
        self._kept: list = []  # the constants, kept alive so that their ids stay theirs
        self._pending: list[tuple[str, str, object]] = []  # (name, source, stub or None)
        self._count = 0
        self.size = 0  # characters of source written
        self.sources: list[str] = []
        self._defines: dict[str, str] = {}  # define -> the name of its function
        self._bodies: dict = {}  # define -> its body alone (called with its modifiers)
        self._leaves: dict[str, bool] = {}  # define -> whether it is written where called
        from .dependencies import defines_called_early, repeatable_defines

        self.repeatable = repeatable_defines(rules)  # remembered while the state stands still
        self._early = defines_called_early(rules)
        self._const_names_of_rules = {d.name for d in rules.consts}
        self.literal_consts = literal_consts(rules)  # written in the code as their values
        self._table_columns: dict[str, dict] = {}
        self._row_groups: dict[tuple, str] = {}  # (table, column, with positions) -> constant
        # names a component's or a structure's fields may have (records, tables' columns)
        self._field_names = {f.name for r in rules.records.values() for f in r.fields} | {
            c for d in rules.program.declarations if d.kind == "table" for c in d.columns}
        self._builtins = None
        # field names that other values answer too (a player's variable, a name's `name`, a
        # table row's name, state carried by components): read by testing the value's type
        self._component_state_names = {name for _, name in rules.component_vars}
        self._shared_names = set(rules.player_vars) | {"name", A.ROW_KEY} | \
            self._component_state_names
        # State variables declared `int`, which hold numbers alone (``rules.holds_numbers``):
        # a global's read, and `o.name` read from a player when nothing else has a `name`
        self._number_globals = {name for name, d in rules.global_vars.items()
                                if d.kind != "component_state" and holds_numbers(d)}
        self.built_records = {n.record for n in A.walk(rules.program) if n.kind == "record_lit"}
        from .evaluator import struct_plan  # (the evaluator imports this module)

        # how a structure of each record starts (`Code.struct_plans`, `Evaluator.new_struct`)
        self.struct_plans = {name: struct_plan(r) for name, r in rules.records.items()}
        self._number_fields = {name for name, d in rules.player_vars.items()
                               if holds_numbers(d) and self._numbers_alone(name)}
        from .statements import Inlining

        self.inlining = Inlining(rules)

    def _numbers_alone(self, name: str) -> bool:
        """Whether whatever else has a field `name` holds a number in it (so that `o.name`, read
        from a player or else by the runtime, is a number): the state components carry under
        that name is declared `int`, and the records with such a field are never made with `new`
        (a structure's fields hold what they are set to) and their rows hold numbers there."""
        if name in ("name", A.ROW_KEY):
            return False
        if any(n == name and not holds_numbers(d) for (_, n), d in self.rules.component_vars.items()):
            return False
        records = {r for r, decl in self.rules.records.items()
                   if any(f.name == name for f in decl.fields)}
        if records & self.built_records:
            return False
        return all(type(item.fields.get(name)) is int for items in self.rules.tables.values()
                   for item in items if item.record in records)

    def number(self, code) -> None:
        """Number a compiled `choose` or `compose` among the ruleset's decisions."""
        code.id = len(self.decisions)
        self.decisions.append(code)

    # ------------------------------------------------------------------------ the module
    def const(self, value) -> str:
        """A module constant holding `value` (a node, a member, a component, ...)."""
        name = self._const_names.get(id(value))
        if name is None:
            name = self._const_names[id(value)] = f"k{len(self._kept)}"
            self._kept.append(value)
            self.ns[name] = value
        return name

    def const_range(self, start: int, stop: int) -> str:
        """A module constant holding `range(start, stop)` (made once, not on every turn)."""
        name = self._ranges.get((start, stop))
        if name is None:
            name = self._ranges[(start, stop)] = self.const(range(start, stop))
        return name

    def _fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def flush(self) -> None:
        """Compile every function written since the last flush, and fill in their stubs. The
        source is compiled a part at a time, so that what compiling holds stays small."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        for part in _parts(pending):
            source = "\n\n".join(src for _, src, _ in part) + "\n"
            self.sources.append(source)  # what `rulebook` developers read when debugging
            with warnings.catch_warnings():  # `(1) is True`: a literal tested as rules allow it
                warnings.simplefilter("ignore", SyntaxWarning)
                code = compile(source, "<rules, generated>", "exec")
            exec(code, self.ns)  # noqa: S102 - generated from the validated AST, not rule text
        for name, _, stub in pending:
            if stub is not None:
                stub.__code__ = self.ns[name].__code__

    def _function(self, fn: Function, stub: bool = True):
        stub_fn = types.FunctionType(_placeholder.__code__, self.ns, fn.name) if stub else None
        source = fn.source()
        self.size += len(source)
        if self.size > MAX_GENERATED:
            raise DiagnosticError([Diagnostic(
                "E0319", f"the rules make more than {MAX_GENERATED // 1_000_000} million "
                "characters of code for the engine to run", file=self.rules_file(),
                hint="write repeated rules once, as a `define` or `procedure` called with "
                     "arguments, rather than many copies")])
        self._pending.append((fn.name, source, stub_fn))
        return stub_fn

    def rules_file(self) -> str | None:
        return A.file_of(self.rules.program)

    # --------------------------------------------------------------------------- entries
    def expr(self, node, scope: Scope = None, early: bool = False):
        """A function `f(machine, env)` computing `node`, where `scope` is the set of names of
        the enclosing block (None: unknown); `early`: worked out while the state is set up."""
        if node is None:
            return None
        fn = Function(self, self._fresh("e"), "m, env", "env")
        fn.settled = not early
        result = self.ex(node, fn, Names({}, scope))
        fn.emit(f"return {result}")
        return self._function(fn)

    def invariants(self, checked: list):
        """A function `f(machine, touched, owed)` checking the invariants `checked` (the
        declaration, the variables it reads or None) due now, in order: one whose reads meet
        `touched` (the variables changed since the last check; None: unknown), or owed. Each
        checked is a step; one with a `when` that does not hold is owed (`owed`), not tested.
        Gives (its position, its value) for the first whose value is not yes, else None."""
        fn = Function(self, self._fresh("c"), "m, touched, owed", "_E")
        fn.watched = False  # checks show nobody anything (`Game._check_invariants`)
        none = Names({}, frozenset())
        for i, (inv, reads) in enumerate(checked):
            due = ["True"] if reads is None else \
                ["touched is None", f"not touched.isdisjoint({self.const(reads)})"]
            if inv.when is not None and reads is not None:
                due.append(f"{inv.name!r} in owed")
            fn.emit(f"if {' or '.join(due)}:")
            with fn.indent():
                fn.charge("1", self.const(inv))
                if inv.when is None:
                    self._tested(inv, i, fn, none)
                    continue
                with fn.expression():
                    when = self.ex(inv.when, fn, none)
                fn.emit(f"if {when} is not True:")
                with fn.indent():
                    if not self.yes_no(inv.when):
                        fn.emit(f"if {when} is not False: m.truth({when}, "
                                f"{self.const(inv.when)})")
                    fn.emit(f"owed.add({inv.name!r})  # not now: at its next moment")
                fn.emit("else:")
                with fn.indent():
                    fn.emit(f"owed.discard({inv.name!r})")
                    self._tested(inv, i, fn, none)
        fn.emit("return None")
        return self._function(fn)

    def _tested(self, inv, i: int, fn, none) -> None:
        with fn.expression():
            value = self.ex(inv.test, fn, none)
        fn.emit(f"if {value} is not True: return {i}, {value}")

    def text(self, node, scope: Scope):
        """A prompt: the text itself when it has no holes and costs no step, else a function
        `f(machine, env)` working it out (None: no prompt)."""
        if node is not None and node.kind == "template" and \
                all(p.kind == "text_part" for p in node.parts):
            text = "".join(p.text for p in node.parts)
            if len(text) < _TEXT_STEP:
                return text
        return self.expr(node, scope)

    def keys(self, keys, scope: Scope) -> list:
        """Sort keys of an automaton's `prefer` line: (function or None for `random`,
        descending)."""
        return [(None, False) if k.kind == "random_key" else (self.expr(k.expr, scope),
                                                               k.descending) for k in keys]

    def ranking(self, binding, where, keys, scope: Scope):
        """A function `f(machine, env)` giving (element, key values) for each element of
        `binding` that meets `where`, unordered (``Evaluator.order`` orders them): `award`,
        `winner`."""
        fn = Function(self, self._fresh("r"), "m, env", "env")
        rows = self._rows(fn, Names({}, scope), binding, where, sort_keys_of(keys))
        fn.emit(f"return {rows}")
        return self._function(fn)

    def options(self, codes: list, choose, scope: Scope):
        """A function `f(machine, env, out, seen)` listing the options `codes` (a `choose`'s,
        or a `compose` step's; OptionCodes) in order, each as ``_option_listing`` writes it:
        one function for them all, whose reads of the decision's names and the state are made
        once."""
        fn = Function(self, self._fresh("o"), "m, env, out, seen", "env")
        fn.listing = True
        for option in codes:
            self._option_listing(fn, option, option.node, choose, scope)
        if not codes:
            fn.emit("pass")
        return self._function(fn)

    def _option_listing(self, fn, option, node, choose, scope: Scope) -> None:
        """Append to `out` each legal combination of the bindings of `node` (an option of
        statement `choose`; `option` its OptionCode) as ``flow.Decision`` lists them: its id
        (`name:token:token`, made unique among `seen`; None for an option whose ids cannot
        meet another's, made when read), `option` and the values."""
        from .flow import option_token

        positions: list = []
        code, limit = self.const(option), self.const(choose)
        self.ns.setdefault("option_token", option_token)
        sizes = [self._range_size(b.source, scope) for b in node.bindings]
        # Ids that cannot meet another: numbers of ranges (distinct tokens, whatever their
        # number) under a name no other option asked with this one has.
        siblings = choose.options if choose.kind == "choose" else next(
            st.options for st in choose.steps if any(o is node for o in st.options))
        unique = all(_is_range(b.source) for b in node.bindings) \
            and [o.name for o in siblings].count(node.name) == 1
        product = 1
        for size in sizes:
            product = product * size if size is not None else _FEW_OPTIONS + 1

        # The bound on options is looked at once, after the loops, when they add at most a
        # known number of options or one for each element of a list (which is bounded); after
        # each option added when they walk several lists, whose combinations may be many.
        each_one = product > _FEW_OPTIONS and len(node.bindings) > 1

        def body(inner):
            values = "".join(inner.py[b.name] + ", " for b in node.bindings)
            oid = "None"  # its id made when read (``flow.OptionCode.id_of``)
            if not unique:
                parts, text = [], node.name
                for b, k in zip(node.bindings, positions):
                    v = inner.py[b.name]
                    # (a component reads as `option_token` has it, with no call: most are)
                    parts += [repr(text + ":"), f"f'{{{v}}}'" if k is None
                              else f"({v}.key or {v}.id if type({v}) is Item "
                                   f"else option_token({v}, {k}))"]
                    text = ""
                if text:
                    parts.append(repr(text))
                oid = fn.tmp()
                # literals and f-strings side by side are one text; a call's result is added
                joined = " " if all(k is None for k in positions) else " + "
                fn.emit(f"{oid} = {joined.join(parts)}")
                fn.emit(f"if {oid} in seen: {oid} = m.unique_option_id({oid}, seen)")
                fn.emit(f"seen.add({oid})")
            fn.emit(f"out.append(({oid}, {code}, ({values})))")
            appended.append((len(fn.lines) - 1, values))
            if each_one:
                fn.emit(f"if len(out) > {fn.use('LIMIT')}: m.too_many_options({limit})")
        appended: list = []
        self.loops(fn, Names({}, scope), node.bindings, node.where, body, positions=positions)
        ends = self._range_ends(node.bindings[0].source, scope) if unique \
            and len(node.bindings) == 1 and node.where is None and WRITE_LISTED else None
        if ends is not None and 1 <= ends[1] - ends[0] + 1 <= _LISTED_AT_ONCE:
            self._listed_at_once(fn, *appended[0], code, ends)
        if not each_one:
            fn.emit(f"if len(out) > {fn.use('LIMIT')}: m.too_many_options({limit})")

    def _range_size(self, src, scope: Scope) -> int | None:
        """The number of numbers of a range whose ends are written as numbers (or constants
        written so), when it holds from 1 to 64 of them; else None."""
        ends = self._range_ends(src, scope)
        size = None if ends is None else ends[1] - ends[0] + 1
        return size if size is not None and 1 <= size <= 64 else None

    def _range_ends(self, src, scope: Scope) -> tuple[int, int] | None:
        """The ends of a range written as numbers (or constants written so), else None."""
        if not _is_range(src):
            return None
        ends = []
        for side in (src.left, src.right):
            if side.kind == "int":
                ends.append(side.value)
            elif side.kind == "name" and type(self.literal_consts.get(side.id)) is int \
                    and scope is not None and side.id not in scope:
                ends.append(self.literal_consts[side.id])
            else:
                return None
        return ends[0], ends[1]

    def _listed_at_once(self, fn, line: int, values: str, code: str, ends) -> None:
        """The loop over a range written as numbers whose turns only append an option (the
        line `line`, of the number `values`): its options are the same on every listing, so
        they are a constant of the module, appended in one call. The range is still made as
        written (its steps, and the limit on a list's elements). Left as it is when the loop
        is not `for v in ...:` then that line alone (with empty lines where nothing was worked
        out)."""
        lines, v = fn.lines, values.rstrip(", ")
        body = lines[line]
        indent = body[:len(body) - len(body.lstrip())][4:]
        head = next((i for i in range(line - 1, -1, -1) if lines[i]), None)
        if head is None or any(lines[line + 1:]) or not (
                lines[head].startswith(f"{indent}for {v} in ") and lines[head].endswith(":")):
            return
        option = self.ns[code]
        listed = self.const(tuple((None, option, (n,)) for n in range(ends[0], ends[1] + 1)))
        lines[head] = f"{indent}out.extend({listed})"
        lines[line] = ""

    def option_label(self, option, scope: Scope):
        """A function `f(machine, env, values)` giving how an instance of `option` reads: its
        label, worked out with the decision's names and the values its bindings took (as
        Python locals, with no names made for them)."""
        if option.label is None:
            return None
        fn = Function(self, self._fresh("l"), "m, env, vals", "env")
        names = [b.name for b in option.bindings]
        local = {n: fn.tmp() for n in dict.fromkeys(names)}
        if names:
            fn.emit(f"{''.join(local[n] + ', ' for n in names)}= vals")
        result = self.ex(option.label, fn, Names(local, scope))
        fn.emit(f"return {result}")
        return self._function(fn)

    def combinations(self, nodes, scope: Scope):
        """A function `f(machine, env)` giving, for each combination of the bindings `nodes`,
        the names they bind (a reaction's bindings)."""
        fn = Function(self, self._fresh("c"), "m, env", "env")
        out = fn.tmp()
        fn.emit(f"{out} = []")
        self.loops(fn, Names({}, scope), nodes, None, lambda inner: fn.emit(
            f"{out}.append({{{', '.join(f'{b.name!r}: {inner.py[b.name]}' for b in nodes)}}})"))
        fn.emit(f"return {out}")
        return self._function(fn)

    def define(self, name: str) -> str:
        """The name of the function computing define `name` (written on first use)."""
        fname = self._defines.get(name)
        if fname is None:
            fname = self._defines[name] = self._fresh("d")
            decl = self.rules.defines[name]
            params = [f"a{i}" for i in range(len(decl.params))]
            # `D`: the depth of this call (its caller's, one deeper), given by the caller
            fn = Function(self, fname, ", ".join(["m", "node", "D", *params]), "_E")
            fn.settled = name not in self._early
            fn.calls = "D"
            fn.fixed.update(params)
            fn.lazy = True
            fn.hoist_as["DEEP"] = "D >= m.limits.max_depth"
            fn.emit(f"if D > m.limits.max_depth: m.too_deep({self.const(decl)}, node)")
            fn.steps(str(DEFINE_CALL_STEPS), "node")
            result = self.ex(decl.body, fn, Names(dict(zip(decl.params, params)), frozenset()))
            fn.emit(f"return {result}")
            self._function(fn, stub=False)
        return fname

    @staticmethod
    def depth_of_calls(fn) -> str:
        """The depth of calls where `fn`'s code runs."""
        return fn.use("DEPTH") if fn.calls == "DEPTH" else fn.calls

    def yes_no(self, node) -> bool:
        return yes_no(node, self.rules)

    def _leaf(self, name: str) -> bool:
        """Whether define `name` is small and calls no define but leaves (nor shows a structure,
        whose record's text might): its body is then written where it is called, which can
        tell nothing apart but the time it takes."""
        leaf = self._leaves.get(name)
        if leaf is None:
            self._leaves[name] = False  # a define that calls itself is no leaf
            nodes = list(A.walk(self.rules.defines[name].body))
            leaf = self._leaves[name] = len(nodes) <= _INLINE_NODES and not any(
                n.kind in ("template", "record_lit") or n.kind == "call"
                and n.func in self.rules.defines and not self._inner_leaf(n.func)
                for n in nodes)
        return leaf

    def _same_while_listing(self, fn, a: str) -> bool:
        """Whether argument `a` of a call in a listing of options holds the same value through
        the whole listing: a number as written, a module constant, or a name or state variable
        read once at the start (the state stands still while options are listed)."""
        return _literal_int(a) is not None or (a.startswith("k") and a in self.ns) \
            or a in fn.reads.values()

    def _kept_while_listing(self, name, decl, args, at, deeper, fn, sc, t: str) -> str:
        """`name(args)`, a looping define called in a listing of options with arguments that
        do not change while it lists: worked out once (written out, or its function called),
        then its value given again with the steps it cost charged again, as
        `Evaluator.remembered` gives it. Not while a seat's knowledge is audited (`m.memo` is
        None then): each read must be seen."""
        key = (name, tuple(args))
        kept = fn.kept_calls.get(key)
        first = kept is None
        if first:
            kept = fn.kept_calls[key] = (fn.tmp(), fn.tmp())
        value, cost = kept
        st = fn.use("st")
        fn.emit(f"if {value} is not _M:")
        with fn.indent():
            # (a value given again neither loops nor calls: the next turn, call or decision
            # looks at the budget, as after any charge made without a look)
            fn.charge(cost, at, check=False)
            fn.emit(f"{t} = {value}")
        fn.emit("else:")
        with fn.indent():
            start = fn.tmp()
            fn.emit(f"{start} = {st}.steps")
            if self._leaf(name):
                v = self._inlined(decl, args, at, fn, sc)
            else:
                v = fn.tmp()
                fn.emit(f"{v} = {self.define(name)}(m, {at}, {deeper}"
                        f"{''.join(', ' + a for a in args)})")
            fn.emit(f"{t} = {v}")
            # A value kept where it is first worked out as a number is a number wherever it is
            # kept (anything else is not kept there: worked out again, the same value and
            # steps), so it is given again as one.
            if first and v in fn.ints:
                fn.kept_numbers.add(key)
            number = key in fn.kept_numbers
            keeps = "m.memo is not None" if not number or v in fn.ints \
                else f"m.memo is not None and type({t}) is int"
            fn.emit(f"if {keeps}: {value}, {cost} = {t}, {st}.steps - {start}")
        if number and v in fn.ints:
            fn.ints.add(t)
        return t

    def _inner_leaf(self, name: str) -> bool:
        """Whether a call of define `name` may be written out inside a leaf."""
        return name not in self.rules.modifiers and self._leaf(name)

    def _loops(self, name: str) -> bool:
        """Whether define `name` can be remembered and loops over values: a call of it with
        constant arguments in a define of parameters (`holders(first)` in `can_take(p, x)`, a
        `where` of options) is then looked up while the state stands still, so that a listing
        of options loops once."""
        return name in self.repeatable and any(
            n.kind in _LOOPING for n in A.walk(self.rules.defines[name].body))

    def _written(self, node, sc: Names):
        """The value of `node` when it is written in the rules (a literal, a member, a
        constant written as a literal), else `_MISSING`."""
        if node.kind in ("int", "str", "bool"):
            return node.value
        if node.kind == "none":
            return None
        if node.kind != "name" or node.id in sc.py or sc.env is None or node.id in sc.env:
            return _MISSING
        if node.id in self.rules.members:
            return self.rules.members[node.id]
        return self.literal_consts.get(node.id, _MISSING)

    def _inlined(self, decl, args: list[str], at: str, fn: Function, sc: Names) -> str:
        """A call of a leaf define, written out: one call deeper (its depth checked), its
        steps charged, its parameters the arguments' values."""
        fn.guard(f"if {fn.use('DEEP')}: m.too_deep({self.const(decl)}, {at})")
        fn.steps(str(DEFINE_CALL_STEPS), at, check=False)  # written out: it cannot call itself
        inner = Names(dict(zip(decl.params, args)), frozenset())
        return self.ex(decl.body, fn, inner)

    def body(self, name: str):
        """Define `name`'s body alone, `f(machine, *arguments)`: what `Evaluator.call_define`
        runs before the define's modifiers."""
        stub = self._bodies.get(name)
        if stub is None:
            decl = self.rules.defines[name]
            params = [f"a{i}" for i in range(len(decl.params))]
            fn = Function(self, self._fresh("b"), ", ".join(["m", *params]), "_E")
            fn.settled = name not in self._early
            result = self.ex(decl.body, fn, Names(dict(zip(decl.params, params)), frozenset()))
            fn.emit(f"return {result}")
            stub = self._bodies[name] = self._function(fn)
            self.flush()
        return stub

    @contextmanager
    def unwatched(self, fn: Function):
        """Code whose reads show the audited seat nothing (``Machine.watch``): where a value
        goes, as a target or a destination, is not a look at it."""
        w = fn.tmp()
        start = len(fn.lines)
        fn.emit(f"{w} = m.watcher")
        fn.emit("m.watcher = None")
        fn.emit("try:")
        was, fn.watched = fn.watched, False
        before = len(fn.lines)
        try:
            with fn.indent(block=True):
                yield
                if len(fn.lines) == before:
                    fn.emit("pass")
        finally:
            fn.watched = was
        inside = fn.lines[before:]
        if all(line and "(" not in line and not line.startswith("\x00") for line in inside):
            # plain reads (`x = G['moves']`), which call nothing that could look: as they are
            # (no line left to fill later: the lines after them move up)
            fn.lines[start:] = [line[4:] for line in inside if line.strip() != "pass"]
            return
        fn.emit("finally:")
        fn.emit(f"    m.watcher = {w}")

    # ----------------------------------------------------------------------- expressions
    def ex_int(self, node, fn, sc):
        literal = f"({node.value!r})"
        fn.ints.add(literal)  # a number, as any local known to hold one
        return literal

    def ex_str(self, node, fn, sc):
        return f"({node.value!r})"

    ex_bool = ex_str

    def ex_none(self, node, fn, sc):
        return "None"

    def ex_template(self, node, fn, sc):
        if all(p.kind == "text_part" for p in node.parts):
            text = "".join(p.text for p in node.parts)
            if len(text) < _TEXT_STEP:  # a short text without holes costs no step: itself
                return repr(text)
        pieces = []
        for p in node.parts:
            if p.kind == "text_part":
                pieces.append(repr(p.text))
                continue
            v = self.ex(p.expr, fn, sc)
            t = fn.tmp()
            fn.emit(f"{t} = {v} if type({v}) is str else str({v}) if type({v}) is int else "
                    f"{v}.text if type({v}) is Seat else m.shown({v}, {self.const(node)})")
            pieces.append(t)
        t = fn.tmp()
        # a short text is itself (no step); a longer one is charged and bounded by `joined`
        fn.emit(f"{t} = {' + '.join(pieces)}")
        fn.emit(f"if len({t}) >= {_TEXT_STEP}: {t} = m.joined(({', '.join(pieces)},), "
                f"{self.const(node)})")
        return t

    # names
    def ex_name(self, node, fn, sc, borrow: bool = False):
        name = node.id
        if name in sc.py:
            return sc.py[name]
        if name in self.literal_consts and sc.env is not None and name not in sc.env:
            literal = f"({self.literal_consts[name]!r})"
            if type(self.literal_consts[name]) is int:
                fn.ints.add(literal)
            return literal
        t = fn.tmp()
        if sc.env is not None:
            if name in sc.env:
                if fn.listing:  # the names do not change while options are listed: read once
                    return fn.read("env", name)
                fn.emit(f"{t} = env[{name!r}]")
                return t
            return self._named(node, fn, t, borrow)
        fn.emit(f"{t} = {fn.env}.get({name!r}, _M)")
        fn.emit(f"if {t} is _M:")
        with fn.indent():
            held = self._named(node, fn, t, borrow)
            if held != t:
                fn.emit(f"{t} = {held}")
        fn.copies.pop(t, None)  # it may hold the block's value of the name, not the read
        return t

    def _named(self, node, fn, t: str, borrow: bool) -> str:
        """The local holding the value of a name that no enclosing block binds: `t`, or the
        local a state variable is read into, with no copy of it (`borrow`: a table, an enum
        or the players may be given as the list itself, for a reader that keeps none)."""
        rules, name, at = self.rules, node.id, self.const(node)
        if name in rules.global_vars:
            read = fn.read('G', name)
            fn.copies[read] = read
            if fn.settled:
                t = read
            else:
                fn.emit(f"{t} = {read}")
                fn.copies[t] = read
            if _of_players(rules.global_vars[name].type):
                fn.likely_seat_lists.add(t)
            elif fn.settled and name in self._number_globals:
                fn.ints.add(t)
            branch = "if"
            if not fn.settled:
                fn.emit(f"if {t} is _M: {t} = m.named_value({name!r}, {at}, {fn.env})")
                branch = "elif"
            if fn.watched and self.hidden(rules.global_vars[name]):
                fn.emit(f"{branch} {fn.use('W')} is not None: m.note_read(0, {name!r}, {t})")
        elif name in self.literal_consts:  # with the scope unknown: the block's names first
            fn.emit(f"{t} = {self.literal_consts[name]!r}")
        elif name in self._const_names_of_rules:
            fn.emit(f"{t} = {fn.read('C', name)}")
            if not fn.settled:
                fn.emit(f"if {t} is _M: {t} = m.named_value({name!r}, {at}, {fn.env})")
        elif name in rules.members:  # the module constant itself
            t = self.const(rules.members[name])
        elif name in rules.tables or name in rules.enums:
            shared = self.const(rules.tables[name] if name in rules.tables else rules.enums[name])
            fn.emit(f"{t} = {shared}" if borrow else f"{t} = list({shared})")
            if name in rules.tables:
                fn.item_lists[t] = name
            if not borrow:
                fn.made_list(t)
        elif name == "players":
            fn.emit(f"{t} = {fn.use('st')}.seats" if borrow else f"{t} = list({fn.use('st')}.seats)")
            fn.seat_lists.add(t)
            if not borrow:
                fn.made_list(t)
        elif name in _STATE_VALUES:
            fn.emit(f"{t} = {_STATE_VALUES[name].format(st=fn.use('st'))}")
        else:
            fn.emit(f"{t} = m.named_value({name!r}, {at}, {fn.env})")  # raises: unknown
        return t

    def _columns(self, table: str) -> dict:
        """The columns every row of `table` has: (least, most) for a column of numbers only,
        else True (the rows of a table never change)."""
        known = self._table_columns.get(table)
        if known is None:
            rows = self.rules.tables[table]
            names = set.intersection(*(set(r.fields) for r in rows)) if rows else set()
            known = {}
            for name in names:
                values = [r.fields[name] for r in rows]
                known[name] = (min(values), max(values)) \
                    if all(type(v) is int for v in values) else True
            self._table_columns[table] = known
        return known

    def _is_row_table(self, node, sc) -> str | None:
        """The table `node` names, when it is a name no block binds that means a table."""
        if node.kind != "name" or node.id in sc.py or (sc.env is not None and node.id in sc.env):
            return None
        name = node.id
        if name in self.rules.global_vars or name in self._const_names_of_rules \
                or name in self.rules.members or name not in self.rules.tables:
            return None
        return name if sc.env is not None and name in self.rules.rows else None

    def ex_field(self, node, fn, sc):
        name, at = node.name, self.const(node)
        table = self._is_row_table(node.obj, sc)
        t = fn.tmp()
        if table is not None:  # `cards.guard`: a row of a table by its name
            item = self.rules.rows[table].get(name)
            fn.emit(f"{t} = {self.const(item)}" if item is not None
                    else f"{t} = m.row({table!r}, {name!r}, {at})")
            return t
        o = self.ex(node.obj, fn, sc, True) if node.obj.kind == "name" else self.ex(node.obj, fn, sc)
        branch = "if"
        if node.obj.kind == "name" and sc.env is None and node.obj.id not in sc.py \
                and node.obj.id in self.rules.rows:
            # scope unknown: `cards.guard` when `cards` turns out to be a list
            fn.emit(f"if type({o}) is list:")
            with fn.indent():
                fn.emit(f"{t} = m.row({node.obj.id!r}, {name!r}, {at})")
            branch = "elif"
        # the common cases first: a field of a component or structure, a player's variable
        # (whichever the name can be; anything else, and every error, `get_field` tells)
        if o in fn.seats and branch == "if":  # a player: only a player's variable can be
            if name in self.rules.player_vars:
                self._seat_var(fn, o, name, t, at)
                if fn.settled and holds_numbers(self.rules.player_vars[name]):
                    fn.ints.add(t)  # read from the player alone
            else:
                fn.emit(f"{t} = m.get_field({o}, {name!r}, {at})")
            return t
        if o in fn.items and branch == "if" and name in self._field_names:  # a table's row
            column = self._columns(fn.items[o]).get(name)
            if column is not None:  # a column of the table: every row has it, never changed
                fn.emit(f"{t} = {o}.fields[{name!r}]")
                if column is not True:  # numbers, from the least to the most
                    fn.ints.add(t)
                    fn.bounds[t] = column
                return t
            fn.emit(f"{t} = {o}.fields.get({name!r}, _M)")
            fn.emit(f"if {t} is _M: {t} = m.get_field({o}, {name!r}, {at})")
            return t
        if branch == "if" and name in self._field_names and name not in self._shared_names:
            # only a component or a structure can have it: read, and anything else (a value
            # without fields, a field it lacks) is the runtime's to tell
            fn.emit("try:")
            fn.emit(f"    {t} = {o}.fields[{name!r}]")
            fn.emit("except (AttributeError, KeyError):")
            fn.emit(f"    {t} = m.get_field({o}, {name!r}, {at})")
            return t
        if branch == "if" and name in self.rules.player_vars and name != "name" and (
                name not in self._field_names or o in fn.likely_seats):
            # only a player can have it (or the value should be a player, as the rules
            # declare it): read, and anything else is the runtime's to tell
            fn.emit("try:")
            fn.emit(f"    {t} = {o}.vars[{name!r}]")
            fn.emit("except (AttributeError, KeyError):")
            fn.emit(f"    {t} = m.get_field({o}, {name!r}, {at})")
            if fn.watched and self.hidden(self.rules.player_vars[name]):
                fn.emit("else:")
                fn.emit(f"    if {fn.use('W')} is not None: m.note_read({o}.seat, {name!r}, {t})")
            if name in self._number_fields:  # what else has it has no such field: it raises
                fn.ints.add(t)
            return t
        # numbers alone, from whatever has the name (not a row of a table named as written)
        if branch == "if" and fn.settled and name in self._number_fields:
            fn.ints.add(t)
        if name in self._field_names:
            fn.emit(f"{branch} type({o}) in _RECORDS:")
            with fn.indent():
                fn.emit(f"{t} = {o}.fields.get({name!r}, _M)")
                fn.emit(f"if {t} is _M: {t} = m.get_field({o}, {name!r}, {at})")
            branch = "elif"
        if name in self.rules.player_vars:
            fn.emit(f"{branch} type({o}) is Seat:")
            with fn.indent():
                self._seat_var(fn, o, name, t, at)
            branch = "elif"
        if branch == "if":
            fn.emit(f"{t} = m.get_field({o}, {name!r}, {at})")
            return t
        fn.emit("else:")
        with fn.indent():
            fn.emit(f"{t} = m.get_field({o}, {name!r}, {at})")
        return t

    @staticmethod
    def hidden(decl) -> bool:
        """Whether a state variable may be hidden from someone: its reads are told to the
        audited seat (``Evaluator.note_read``); a public one is seen by all, whatever its
        reveals (``visibility.can_see``)."""
        return decl.visibility != "public"

    def _seat_var(self, fn, o: str, name: str, t: str, at: str) -> None:
        """`t = ` player `o`'s variable `name`, a read the audited seat is told of."""
        branch = "if"
        if fn.settled:  # every player has every player variable
            fn.emit(f"{t} = {o}.vars[{name!r}]")
        else:
            fn.emit(f"{t} = {o}.vars.get({name!r}, _M)")
            fn.emit(f"if {t} is _M: {t} = m.get_field({o}, {name!r}, {at})")
            branch = "elif"
        if fn.watched and self.hidden(self.rules.player_vars[name]):
            fn.emit(f"{branch} {fn.use('W')} is not None: m.note_read({o}.seat, {name!r}, {t})")

    def _table_named(self, node, sc) -> bool:
        """Whether `node` names a table (no block binds the name, nor is it a global or a
        constant)."""
        return node.kind == "name" and node.id in self.rules.tables and self._of_rules(node, sc)

    def _global_grid(self, node, sc) -> bool:
        """Whether `node` names a state variable declared as a grid (not a local name)."""
        if node.kind != "name" or node.id in sc.py or (sc.env is not None and node.id in sc.env):
            return False
        decl = self.rules.global_vars.get(node.id)
        return decl is not None and decl.type.kind == "grid_type"

    def ex_index(self, node, fn, sc):
        at = self.const(node)
        table = None
        if node.obj.kind == "name" and node.obj.id not in sc.py and (
                sc.env is None or node.obj.id not in sc.env):
            table = node.obj.id
        o = self.ex(node.obj, fn, sc, True) if node.obj.kind == "name" else self.ex(node.obj, fn, sc)
        idx = [self.ex(i, fn, sc) for i in node.indices]
        t = fn.tmp()
        if len(idx) == 2:
            r, c = idx
            read = fn.copies.get(o)
            decl = self.rules.global_vars.get(node.obj.id) if table is not None else None
            if read is not None and decl is not None and decl.type.kind == "grid_type":
                rows, columns, cells = fn.grid_facts(read)  # taken where the grid was read
                numbers = [f"type({x}) is int" for x in idx if x not in fn.ints]
                known = [self._known_range(fn, x) for x in idx]
                if None not in known:  # inside the grid when the grid reaches that far
                    have = fn.reaches.get(read, (0, 0))
                    fn.reaches[read] = (max(have[0], known[0][1]), max(have[1], known[1][1]))
                    within = [f"{read}_in"]
                else:
                    within = [f"{self._from_one(fn, r)}{r} <= {rows}",
                              f"{self._from_one(fn, c)}{c} <= {columns}"]
                fn.emit(f"if {' and '.join(numbers + within)}:")
                with fn.indent():
                    fn.emit(f"{t} = {cells}[{self._cell_position(fn, read, r, c)}]")
            else:
                inside, position = fn.grid_cell(o, r, c)
                fn.emit(f"if {inside}:")
                with fn.indent():
                    fn.emit(f"{t} = {o}.cells[{position}]")
        elif len(idx) == 1:
            i = idx[0]
            number = "" if i in fn.ints else f" and type({i}) is int"
            listed = "True" if o in fn.seat_lists else f"type({o}) is list"
            fn.emit(f"if {listed}{number} and 1 <= {i} <= len({o}):")
            with fn.indent():
                fn.emit(f"{t} = {o}[{i} - 1]")
            fn.emit(f"elif type({o}) is dict:")
            with fn.indent():
                fn.emit(f"{t} = {o}.get({i})")
        else:
            fn.emit("if False:")
            with fn.indent():
                fn.emit("pass")
        fn.emit("else:")
        with fn.indent():
            fn.emit(f"{t} = m.index({o}, [{', '.join(idx)}], {at}, {table!r})")
        return t

    @staticmethod
    def _cell_position(fn, read: str, r: str, c: str) -> str:
        """Where cell [r, c] of the grid read into `read` is in its cells: from the start of
        row `r` worked out once per turn of its loop when `r` and `c` are the numbers of two
        loops over ranges, the loop of `c` inside that of `r`."""
        rows, columns, cells = fn.grid_facts(read)
        mark, inner = fn.row_marks.get(r), fn.row_marks.get(c)
        if mark is None or inner is None or inner[0][0] <= mark[0][0]:
            return f"({r} - 1) * {columns} + {c} - 1"
        base = fn.row_bases.get((read, r))
        if base is None:
            base = fn.row_bases[(read, r)] = fn.tmp()
            place, lines = mark
            lines.append(f"{base} = ({r} - 1) * {columns} - 1")
            fn.fill(place, lines)
        return f"{base} + {c}"

    @staticmethod
    def _known_range(fn, x: str) -> tuple[int, int] | None:
        """(least, most) of an index known as written or from a range so written, from 1 up."""
        low = _literal_int(x)
        known = (low, low) if low is not None else fn.bounds.get(x)
        return known if known is not None and known[0] >= 1 else None

    @staticmethod
    def _from_one(fn, x: str) -> str:
        """`1 <= ` before an index, unless it is known to be a number of a range from 1 up."""
        low = _literal_int(x)
        if low is None:
            low = fn.bounds.get(x, (None,))[0]
        return "" if low is not None and low >= 1 else "1 <= "

    # operators
    def ex_unary(self, node, fn, sc):
        v = self.ex(node.operand, fn, sc)
        t = fn.tmp()
        at = self.const(node)
        if node.op == "not":
            if not self.yes_no(node.operand):
                fn.emit(f"if type({v}) is not bool: m.truth({v}, {at})")
            fn.emit(f"{t} = not {v}")
        else:
            fn.emit(f"{t} = -{v}" if v in fn.ints else
                    f"{t} = -{v} if type({v}) is int else m.cannot_negate({v}, {at})")
            fn.ints.add(t)  # or an error
        return t

    def ex_binary(self, node, fn, sc):
        op, at = node.op, self.const(node)
        t = fn.tmp()
        if op in ("and", "or"):
            return self._chain(node, fn, sc, t)
        if op in ("in", "not in"):
            a = self.ex(node.left, fn, sc)
            if self._table_named(node.right, sc):
                return self._in_table(node, a, t, fn)
            b = (self.ex(node.right, fn, sc, True) if node.right.kind == "name"
                 else self.ex(node.right, fn, sc))
            i = fn.tmp()
            fn.emit(f"if type({b}) is list and type({a}) in _INDEXABLE:")
            with fn.indent():
                fn.emit("try:")
                fn.emit(f"    {i} = {b}.index({a}) + 1")
                fn.emit("except ValueError:")
                fn.emit(f"    {i} = 0")
                fn.steps(f"({i} or len({b}))", at)
                fn.emit(f"{t} = {i} {'>' if op == 'in' else '=='} 0")
            fn.emit("else:")
            with fn.indent():
                fn.emit(f"{t} = m.binary_values({at}, {a}, {b})")
            self.ns.setdefault("_INDEXABLE", _INDEXABLE)
            return t
        once = self._worked_before_turns(node, fn, sc) \
            if fn.turn_test is not None and fn.turn_test[0] is node else None
        a = once[1] if once is not None and once[0] is node.left else self.ex(node.left, fn, sc)
        b = once[1] if once is not None and once[0] is node.right else self.ex(node.right, fn, sc)
        slow = f"m.binary_values({at}, {a}, {b})"
        ints = self._ints(fn, a, b)
        known = _literal_int(a), _literal_int(b)
        if op in ("+", "-", "*") and None not in known:  # numbers as written: worked out now
            value = known[0] + known[1] if op == "+" else known[0] - known[1] if op == "-" \
                else known[0] * known[1]
            fn.emit(f"if {abs(value)} > {fn.use('MAXN')}: m.num({value}, {at})")  # raises
            literal = f"({value!r})"
            fn.ints.add(literal)
            return literal
        if op == "+" and (a in fn.lists or b in fn.lists):  # lists joined (as `sized` joins)
            tests = [f"type({x}) is list" for x in (a, b) if x not in fn.lists]
            tests.append(f"len({a}) + len({b}) <= {fn.use('MAXC')}")
            fn.emit(f"if {' and '.join(tests)}:")
            with fn.indent():
                fn.emit(f"{t} = {a} + {b}")
                fn.steps(f"len({t})", at)
            fn.emit("else:")
            fn.emit(f"    {t} = {slow}")  # raises, or joins what is no list
            fn.made_list(t)
            return t
        if op in ("+", "-", "*"):
            if ints == "True" and op != "-" and fn.natural(a) and fn.natural(b):
                fn.naturals.add(t)
            if ints == "True":
                fn.emit(f"{t} = {a} {op} {b}")
                fn.emit(f"if not {fn.numbers_within(t)}: {t} = {slow}")  # raises
            else:
                fn.emit(f"if {ints}:")
                with fn.indent():
                    fn.emit(f"{t} = {a} {op} {b}")
                    fn.emit(f"if not {fn.numbers_within(t)}: {t} = {slow}")
                fn.emit("else:")
                with fn.indent():
                    fn.emit(f"{t} = {slow}")
            if op != "+" or ints == "True":  # `-` and `*` take numbers only (`+` joins lists)
                fn.ints.add(t)
        elif op in ("/", "%"):  # numbers only, and never past the bound
            py = "//" if op == "/" else "%"
            if ints != "True":
                fn.emit(f"{t} = {a} {py} {b} if {ints} and {b} != 0 else {slow}")
            elif node.right.kind == "int" and node.right.value != 0:
                fn.emit(f"{t} = {a} {py} {b}")
            else:
                fn.emit(f"{t} = {a} {py} {b} if {b} != 0 else {slow}")
            fn.ints.add(t)
        elif op in ("<", "<=", ">", ">="):
            fn.emit(f"{t} = {a} {op} {b}" if ints == "True" else
                    f"{t} = {a} {op} {b} if {ints} else {slow}")
        elif op in ("==", "!="):
            fn.emit(f"{t} = {self._equal(node, fn, sc, a, b, slow)}")
        elif op == "..":
            # (as long as the runtime's, which refuses a range of more than the limit)
            fn.emit(f"if {ints} and 0 <= {b} - {a} < {fn.use('MAXC')}:")
            with fn.indent():
                fn.steps(f"{b} - {a} + 1", at)
                fn.emit(f"{t} = list(range({a}, {b} + 1))")
            fn.emit("else:")
            with fn.indent():
                fn.emit(f"{t} = {slow}")
        else:
            fn.emit(f"{t} = {slow}")
        return t

    def _chain(self, node, fn, sc, t: str) -> str:
        """`a and b and c` (or `or`s): each operand worked out only while none has decided
        the whole (False for `and`, True for `or`), the first that does ending the chain at
        once; each must be yes or no (E0306 names the operand that is not)."""
        op, whole = node.op, node
        decided, other = ("True", "False") if op == "or" else ("False", "True")
        operands = [node.right]
        while node.left.kind == "binary" and node.left.op == op:
            node = node.left
            operands.append(node.right)
        operands.append(node.left)
        operands.reverse()
        if op == "and":
            operands = self.worked_before_loop(whole, operands, fn, sc)
        fn.guard(f"{t} = {decided}")  # (a local set to a constant: as a guard to `Fold`)
        with ExitStack() as inside:
            for o in operands[:-1]:
                a = self.ex(o, fn, sc)
                if self.yes_no(o):  # a truth: tested as one
                    fn.emit(f"if {a}:" if op == "and" else f"if not {a}:")
                else:
                    fn.emit(f"if {a} is not {decided}:")
                inside.enter_context(fn.indent())
                if not self.yes_no(o):
                    fn.emit(f"if {a} is not {other}: m.truth({a}, {self.const(o)})")
            last = operands[-1]
            b = self.ex(last, fn, sc)
            fn.emit(f"{t} = {b}" if self.yes_no(last) else
                    f"{t} = {b} if type({b}) is bool else m.truth({b}, {self.const(last)})")
        return t

    def worked_before_loop(self, whole, operands: list, fn, sc) -> list:
        """The operands of `whole` (an `and`) left to write, when `whole` is the `where` of the
        loop being written (``Function.turn_test``), met first in its turn: each of its first
        operands that reads no local the loop binds and charges no step (numbers compared and
        worked out, fields, names) is the same on every turn, so once false no turn can meet
        the `where`. They are worked out once, before the loop and only when it has a turn to
        make, after the checks its turn makes first (`Fold.guards`, a call too deep); when one
        is false the loop walks nothing. Then an operand `row.column == v` over the rows of a
        table, `v` the same on every turn, makes the loop walk only the rows whose column
        holds `v` (the rows are grouped by it as the code is written). Nothing in the loop
        changes what these read, and a turn that fails them charges nothing the loop did not
        charge as it began: the same values, the same steps."""
        test, fn.turn_test = fn.turn_test, None
        fold = fn.fold
        if test is None or test[0] is not whole or fold is None or not fold.at_start(fn) \
                or fold.before is None:
            return operands
        place, it, position, element = fold.before
        n = 0
        while n + 1 < len(operands) and self._same_each_turn(operands[n], test[1], sc):
            n += 1
        rows = self._rows_holding(operands[n], element, position is not None, test[1], fn,
                                  sc) if n + 1 < len(operands) else None
        if not n and rows is None:
            return operands
        stoppers, operands = operands[:n], operands[n + (rows is not None):]
        walks, mark, opened = fn.tmp(), len(fn.lines), 0
        for o in stoppers:
            a = self.ex(o, fn, sc)
            if not self.yes_no(o):
                fn.emit(f"if {a} is not True and {a} is not False: m.truth({a}, {self.const(o)})")
            fn.emit(f"if {a}:")  # the next is worked out only while the others hold
            fn.depth += 1
            opened += 1
        if rows is None:
            fn.emit(f"{walks} = {it}")
        else:
            groups, kind, other = rows
            v = self.ex(other, fn, sc)
            fn.emit(f"{walks} = {groups}.get({v}, ()) if type({v}) is {kind} else ()")
        fn.depth -= opened
        self._moved_before_loop(fn, fold, mark, [f"{walks} = ()"])
        header = place[0] + 1
        if rows is not None and position is not None:  # the groups hold (position, row)
            walked = f"for {position}, {element} in {walks}:"
        elif position is not None:
            walked = f"for {position}, {element} in enumerate({walks}, 1):"
        else:
            walked = f"for {element} in {walks}:"
        fn.lines[header] = "    " * place[1] + walked  # (the loop's own depth: the place's)
        # The turns made now are those of the rows walked while the first operands hold: a
        # charge written after this is made by the turns that are, not added to the loop's.
        fn.fold = None
        return operands

    def _in_table(self, node, a: str, t: str, fn) -> str:
        """`a in table` (`not in`): the position of its row looked up in a module constant
        (rows never change; each is its own identity), charged as the list's search charges it
        (the rows visited up to it, or all of them)."""
        rows = self.rules.tables[node.right.id]
        places = self._table_places.get(node.right.id)
        if places is None:
            places = self._table_places[node.right.id] = self.const(
                {row: i for i, row in reversed(list(enumerate(rows, 1)))})
        i = fn.tmp()
        self.ns.setdefault("_INDEXABLE", _INDEXABLE)
        fn.emit(f"if type({a}) in _INDEXABLE:")
        with fn.indent():
            fn.emit(f"{i} = {places}.get({a}, 0)")
            fn.steps(f"({i} or {len(rows)})", self.const(node))
            fn.emit(f"{t} = {i} {'>' if node.op == 'in' else '=='} 0")
        fn.emit(f"else: {t} = m.binary_values({self.const(node)}, {a}, "
                f"{self.const(rows)})")
        return t

    def _worked_before_turns(self, node, fn, sc):
        """When the comparison `node` is the whole `where` of the loop being written
        (``Function.turn_test``), met first in its turn, and one operand reads no local the loop
        binds and charges no step (`p.score` in `r.level <= p.score`): that
        operand worked out once, before the loop and only when it has a turn to make, after
        the checks its turn makes first (as `worked_before_loop` works out an `and`'s first
        operands). The right one only when the left cannot fail (a literal, a local, a column
        of the table the loop walks), so that the first error is still the first. Nothing in
        the loop changes what it reads: the same values, steps and errors. (operand, local)
        or None."""
        test, fn.turn_test = fn.turn_test, None
        fold = fn.fold
        if fold is None or not fold.at_start(fn) or fold.before is None \
                or node.op not in _COMPARISONS:
            return None
        element = fold.before[3]
        if self._same_each_turn(node.left, test[1], sc):
            side = node.left
        elif self._same_each_turn(node.right, test[1], sc) \
                and self._read_safely(node.left, element, fn, sc):
            side = node.right
        else:
            return None
        if side.kind in _LEAVES:
            return None  # nothing to work out
        mark = len(fn.lines)
        v = self.ex(side, fn, sc)
        self._moved_before_loop(fn, fold, mark, [])
        return side, v

    @staticmethod
    def _moved_before_loop(fn, fold, mark: int, first: list[str]) -> None:
        """The lines written into the loop's turn since `mark` moved to the place before the
        loop (`Fold.before`), after `first`: run only when the loop has a turn to make, after
        the checks its turn makes first (`Fold.guards`, kept in the turn too)."""
        place, it = fold.before[0], fold.before[1]
        guards, worked = fn.lines[fold.start:mark], fn.lines[mark:]
        del fn.lines[mark:]
        cut = 4 * fn.depth  # the lines as they read inside the loop's turn, moved before it
        fn.fill(place, [*first, f"if {it}:", *("    " + line[cut:] for line in guards + worked)])

    def _read_safely(self, node, element: str, fn, sc) -> bool:
        """Whether working out `node` cannot fail: a literal, a local name, a column every row
        of the table walked by `element` has."""
        if node.kind in ("int", "str", "bool", "none"):
            return True
        if node.kind == "name":
            return node.id in sc.py
        if node.kind != "field" or node.obj.kind != "name" \
                or sc.py.get(node.obj.id) != element or element not in fn.items:
            return False
        return all(node.name in row.fields for row in self.rules.tables[fn.items[element]])

    def _rows_holding(self, node, element: str, numbered: bool, walked: frozenset, fn, sc):
        """When `node` is `row.column == v` (or `v == row.column`), `row` the element of a
        loop over a table's rows whose `column` holds numbers alone (or texts alone), and `v`
        the same on every turn: (a module constant grouping the rows by that column, as the
        loop walks them (with their positions when `numbered`), the type they hold, `v`);
        else None."""
        if node.kind != "binary" or node.op != "==" or element not in fn.items:
            return None
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if side.kind != "field" or side.obj.kind != "name" \
                    or sc.py.get(side.obj.id) != element \
                    or not self._same_each_turn(other, walked, sc):
                continue
            table = fn.items[element]
            held = [row.fields.get(side.name, _MISSING) for row in self.rules.tables[table]]
            kind = next((k for k in (int, str) if all(type(x) is k for x in held)), None)
            if kind is None:
                continue
            key = (table, side.name, numbered)
            groups = self._row_groups.get(key)
            if groups is None:
                by: dict = {}
                for i, row in enumerate(self.rules.tables[table], 1):
                    by.setdefault(row.fields[side.name], []).append((i, row) if numbered else row)
                groups = self._row_groups[key] = self.const(by)
            return groups, kind.__name__, other
        return None

    @staticmethod
    def _same_each_turn(node, walked: frozenset, sc) -> bool:
        """Whether `node` charges no step and reads no local of `walked` (through the names of
        `sc`): its value is the same on every turn of the loops binding them."""
        for n in A.walk(node):
            if n.kind not in _STEP_FREE or n.kind == "binary" and n.op not in _STEP_FREE_OPS:
                return False
            if n.kind == "name" and sc.py.get(n.id) in walked:
                return False
        return True

    @staticmethod
    def _ints(fn, a: str, b: str) -> str:
        """The test that both operands are numbers (a literal number, or a local known to hold
        one, needs none)."""
        return " and ".join(f"type({v}) is int" for v in (a, b) if v not in fn.ints) or "True"

    def _equal(self, node, fn, sc, a: str, b: str, slow: str) -> str:
        """`a == b` (or `!=`) as the runtime's `_same` decides it, with the slow path for
        lists, maps, grids and structures."""
        neg = node.op == "!="
        for side, other, v, w in ((node.right, node.left, b, a), (node.left, node.right, a, b)):
            if side.kind == "none":  # nothing else equals none
                return f"{w} is not None" if neg else f"{w} is None"
            if _literal_int(v) is not None and side.kind not in ("int", "str"):
                same = f"{w} == {v}" if not neg else f"{w} != {v}"  # a number worked out now
                return same if w in fn.ints else f"({same}) if type({w}) is int else {slow}"
            if side.kind in ("int", "str"):
                same = f"{w} == {v}" if not neg else f"{w} != {v}"
                if side.kind == "int" and w in fn.ints:
                    return same
                want = "int" if side.kind == "int" else "str"
                return f"({same}) if type({w}) is {want} else {slow}"
            if side.kind == "name" and self._is_member(side, sc) or v in fn.seats \
                    or v in fn.items or self._alone(v):  # a member, a player, a row: equal to
                return f"{w} is not {v}" if neg else f"{w} is {v}"  # itself alone
        yes, no = ("False", "True") if neg else ("True", "False")
        same = f"{a} == {b}" if not neg else f"{a} != {b}"
        known = a if a in fn.ints else b if b in fn.ints else None
        if known is not None:  # a number equals a number alone (not a truth: `true` is not 1)
            w = b if known == a else a
            if w in fn.ints:
                return same
            return f"(type({w}) is not int or {same})" if neg else f"(type({w}) is int and {same})"
        # identical values are equal; other values are equal only when compared by what
        # they hold (numbers, texts, truths; lists, maps and grids by the runtime, element by
        # element, charged), and only to one of their type: members, players, components and
        # structures (the most common, tested first) are equal to themselves alone
        kind = fn.tmp()
        general = (f"{yes} if {a} is {b} else {no} if ({kind} := type({a})) not in _COMPARED "
                   f"or {kind} is not type({b}) else ({same}) if {kind} in _BY_VALUE else {slow}")
        fixed = a if a in fn.fixed else b if b in fn.fixed else None
        if fixed is None:
            return general
        # a value the same from the function's first line to its last (a define's parameter)
        # equal to itself alone, as most are (a player, a member, a component), is compared by
        # identity
        flag = fn.alone.setdefault(fixed, f"{fixed}_alone")
        return f"({a} {'is not' if neg else 'is'} {b}) if {flag} else ({general})"

    def _alone(self, v: str) -> bool:
        """Whether `v` is a module constant equal to itself alone (a member, a component: a
        name a define's parameter was given, written where the define is called)."""
        value = self.ns.get(v) if v.startswith("k") else None
        return type(value) in _ALONE

    def _is_member(self, node, sc) -> bool:
        """Whether a name means an enum member (no block binds it, nor is it a global or a
        constant)."""
        return node.id in self.rules.members and self._of_rules(node, sc)

    def _of_rules(self, node, sc) -> bool:
        """Whether name `node` means what the rules declare, known as the code is written: no
        block binds it (the block's names known), nor is it a global or a constant."""
        name = node.id
        return (name not in sc.py and sc.env is not None and name not in sc.env
                and name not in self.rules.global_vars and name not in self._const_names_of_rules)

    def ex_conditional(self, node, fn, sc):
        c = self.ex(node.test, fn, sc)
        t = fn.tmp()
        known = self.yes_no(node.test)
        fn.emit(f"if {c}:" if known else f"if {c} is True:")
        with fn.indent():
            a = self.ex(node.then, fn, sc)
            fn.emit(f"{t} = {a}")
        fn.emit("else:" if known else f"elif {c} is False:")
        with fn.indent():
            b = self.ex(node.otherwise, fn, sc)
            fn.emit(f"{t} = {b}")
        if a in fn.ints and b in fn.ints:
            fn.ints.add(t)  # a number either way
            if fn.natural(a) and fn.natural(b):
                fn.naturals.add(t)
        if not known:
            fn.emit("else:")
            with fn.indent():
                fn.emit(f"{t} = m.truth({c}, {self.const(node.test)})")  # raises: no yes/no
        return t

    def ex_list(self, node, fn, sc):
        if node.items:
            fn.steps(str(len(node.items)), self.const(node))
        items = [self.ex(x, fn, sc) for x in node.items]
        t = fn.tmp()
        fn.emit(f"{t} = [{', '.join(items)}]")
        fn.made_list(t)
        return t

    def ex_map_lit(self, node, fn, sc):
        if node.entries:
            fn.steps(str(len(node.entries)), self.const(node))
        pairs = [f"{self.ex(e.key, fn, sc)}: {self.ex(e.value, fn, sc)}" for e in node.entries]
        t = fn.tmp()
        fn.emit(f"{t} = {{{', '.join(pairs)}}}")
        return t

    def ex_record_lit(self, node, fn, sc):
        values = [(f, self.ex(f.value, fn, sc)) for f in node.fields]
        t = fn.tmp()
        plan = self._struct_written(node)
        if plan is None:
            fields = [f"({f.name!r}, {v}, {self.const(f)})" for f, v in values]
            fn.emit(f"{t} = m.new_struct({self.const(node)}, [{', '.join(fields)}])")
            return t
        # `Evaluator.new_struct` written out: a step per field, then the structure's number
        given = {f.name: v for f, v in values}
        fn.steps(str(len(plan)), self.const(node))
        st = fn.use("st")
        fn.emit(f"{st}.struct_ids += 1")
        fields = ", ".join(f"{name!r}: {given[name] if name in given else start}"
                           for name, start in plan)
        fn.emit(f"{t} = Struct({node.record!r}, {{{fields}}}, {st}.struct_ids)")
        return t

    def _struct_written(self, node) -> list | None:
        """(field, the code of its starting value) of each field of the record `new` makes
        (`node`), in order, when the structure can be made where it is written: its record is
        known, each field given is one of its fields and given once, every other field starts
        with a new empty list or a value written as it is, and no field is a grid or a map
        (`Evaluator.default_for` makes one for it, given or not, and charges its steps). Else
        None: `Evaluator.new_struct` makes it."""
        from .evaluator import FRESH_LIST, MADE

        plan = self.struct_plans.get(node.record)
        if not WRITE_RECORDS or not plan:
            return None
        names = [f.name for f in node.fields]
        if len(set(names)) != len(names) or not set(names) <= {p[0] for p in plan}:
            return None
        written = []
        for name, start, _, _ in plan:
            if start is MADE:  # (made and charged for even when given)
                return None
            if name in names:
                written.append((name, None))
            elif start is FRESH_LIST:
                written.append((name, "[]"))
            elif start is None or type(start) in (int, bool, str):
                written.append((name, repr(start)))
            else:
                return None
        return written

    def ex_match(self, node, fn, sc):
        v = self.ex(node.subject, fn, sc)
        t = fn.tmp()
        opened = 0
        for case in node.cases:
            if case.value is None:
                fn.emit(f"{t} = {self.ex(case.result, fn, sc)}")
                break
            c = self.ex(case.value, fn, sc)
            fn.emit(f"if {v} is {c} or m.same({v}, {c}):")
            with fn.indent():
                fn.emit(f"{t} = {self.ex(case.result, fn, sc)}")
            fn.emit("else:")
            fn.depth += 1
            opened += 1
        else:
            fn.emit(f"{t} = m.no_case({v}, {self.const(node)})")
        fn.depth -= opened
        return t

    # comprehensions
    def loops(self, fn, sc, binds, where, body, stops: bool = False,
              positions: list | None = None) -> None:
        """Loops over `binds` (each source read once per combination of the bindings before
        it, each element visited a step), skipping what fails `where`; `body(scope)` writes
        the innermost code. With `stops`, the body may `break` (one binding: the loop ends).
        With `positions`, each binding's 1-based position in its list is appended to it (None
        for a range, whose values are numbers). A loop that visits every element (not `stops`)
        is charged for all of them as it starts: the same steps, one check. The first charges
        of the body, made on every turn, are charged with the loop's (`Fold`). Returns what a
        loop over one binding walked (its list, cells or range), else None."""
        if stops and len(binds) > 1:  # a fault of this generator: `break` ends one loop only
            raise RuntimeError("a loop that stops early has one binding")
        inner = sc
        marked: list[str] = []  # the numbers of loops over ranges (`row_marks`)
        later: list = []  # per loop: (its number, where its range starts) charged after it
        last = len(binds) - 1
        each = None  # the innermost loop's charge, written once its body is (`Fold`)
        before = None  # the place before the innermost loop, and what it walks (`Fold.before`)
        walked: list[str] = []  # the locals the loops bind
        for depth, b in enumerate(binds):
            it, ranged = self._items(b, fn, inner)
            size = fn.sizes.get(it)  # a range known as written: making it costs its size too
            if not stops:
                if depth < last:
                    fn.charge(str(2 * size) if size else f"len({it})", self.const(b))
                else:  # per element: 2 for a range known as written (made and walked), or 1
                    each = (fn.placeholder(), self.const(b), size, 2 if size else 1, it)
            v = fn.tmp()
            walked.append(v)
            # a range known as written, in a loop that may stop early: its steps are charged
            # once it has ended, from the number it stopped at (the same steps)
            counted = stops and size
            later.append((v, fn.starts[it], size, self.const(b)) if counted else None)
            if it in fn.sizes:
                fn.bounds[v] = (fn.starts[it], fn.starts[it] + fn.sizes[it] - 1)
            if ranged:
                fn.ints.add(v)
            elif it in fn.seat_lists:
                fn.seats.add(v)
            elif it in fn.likely_seat_lists:
                fn.likely_seats.add(v)
            elif it in fn.item_lists:
                fn.items[v] = fn.item_lists[it]
            if depth == last and where is not None and not stops:
                # where the operands of `where` that are the same on every turn are worked
                # out, once, before the loop (`worked_before_loop`)
                before = [fn.placeholder(), it, None, v]
            if positions is not None and not ranged:
                k = fn.tmp()
                positions.append(k)
                fn.emit(f"for {k}, {v} in enumerate({it}, 1):")
                if before is not None:  # (set for the innermost loop alone)
                    before[2] = k
            else:
                if positions is not None:
                    positions.append(None)
                fn.emit(f"for {v} in {it}:")
            fn.depth += 1
            fn.blocks += 1
            if stops and later[-1] is None:
                if depth < last:
                    fn.charge("1", self.const(b))
                else:  # charged as each element is visited
                    each = (fn.placeholder(), self.const(b), None, 1, None)
            if ranged:
                fn.row_marks[v] = (fn.placeholder(), [])
                marked.append(v)
            inner = inner.bind(b.name, v)
        outer, fold = fn.fold, Fold(fn) if binds else None
        if fold is not None and before is not None:
            fold.before = before
        fn.fold = fold
        opened = 0
        turn = len(fn.lines)  # where the innermost loop's turn starts
        if where is not None:
            if binds and not stops:
                fn.turn_test = (where, frozenset(walked))
            w = self.ex(where, fn, inner)
            fn.turn_test = None
            if binds and self.yes_no(where):
                fn.emit(f"if not {w}: continue")
            elif binds:
                fn.emit(f"if {w} is not True:")
                with fn.indent():
                    fn.emit(f"if {w} is not False: m.truth({w}, {self.const(where)})")
                    fn.emit("continue")
            else:  # no loop to continue: the body runs only when `where` holds
                if not self.yes_no(where):
                    fn.emit(f"if {w} is not True and {w} is not False: "
                            f"m.truth({w}, {self.const(where)})")
                fn.emit(f"if {w}:")
                fn.depth += 1
                opened = 1
        body(inner)  # (a place before the loop where nothing was worked out stays empty)
        fn.fold = outer
        owed = fold.owed if fold is not None else 0  # steps made first on every turn
        # The innermost loop over a range written as numbers (at most 64 turns) with no loop
        # in its turn charges its steps without looking at the budget: the loop or call
        # around it looks (each turn is straight code, or calls that look themselves).
        short = bool(binds) and fn.sizes.get(it) is not None and not any(
            line.lstrip().startswith(("for ", "while ")) for line in fn.lines[turn:])
        if each is not None:
            place, at, size, per, it = each
            per += owed
            if size:  # a range known as written, charged as it starts
                n = str(size * per)
            elif it is None:  # charged as each element is visited
                n = str(per)
            else:  # a list, charged as it starts
                n = f"len({it})" if per == 1 else f"len({it}) * {per}"
            fn.fill(place, fn.charge_lines(n, at, check=not short))
        for v in marked:
            del fn.row_marks[v]
        fn.depth -= opened
        for depth in range(len(binds) - 1, -1, -1):
            fn.depth -= 1
            fn.blocks -= 1
            if later[depth] is not None:  # making the range, and each element visited
                v, start, size, at = later[depth]
                per = 1 + owed if depth == last else 1
                check = not (short and depth == last)
                if per == 1:  # size + (v - start + 1), as one subtraction
                    k = start - size - 1
                    fn.charge(f"{v} - {k}" if k else v, at, check)
                else:
                    fn.charge(f"{size} + ({v} - {start - 1}) * {per}", at, check)
        return it if len(binds) == 1 else None  # what a single loop walked

    def _items(self, b, fn, sc) -> tuple[str, bool]:
        """What binding `b` walks: a list's elements, a grid's cells, a map's keys, a range;
        and whether it is a range of numbers."""
        src = b.source
        it = fn.tmp()
        at = self.const(b)
        if _is_range(src):
            lo, hi = self.ex(src.left, fn, sc), self.ex(src.right, fn, sc)
            bounds = _literal_int(lo), _literal_int(hi)
            if None not in bounds and 0 <= bounds[1] - bounds[0] < MIN_COLLECTION:  # as written
                # the steps of making it are charged with those of walking it (`loops`); the
                # loop walks the module's constant itself
                it = self.const_range(bounds[0], bounds[1] + 1)
                fn.sizes[it] = bounds[1] - bounds[0] + 1
                fn.starts[it] = bounds[0]
                return it, True
            fn.emit(f"if {self._ints(fn, lo, hi)} and 0 <= {hi} - {lo} < {fn.use('MAXC')}:")
            with fn.indent():
                fn.steps(f"{hi} - {lo} + 1", self.const(src))
                fn.emit(f"{it} = range({lo}, {hi} + 1)")
            fn.emit("else:")
            with fn.indent():
                fn.emit(f"{it} = m.binary_values({self.const(src)}, {lo}, {hi})")
            return it, True
        s = self.ex(src, fn, sc, True) if src.kind == "name" else self.ex(src, fn, sc)
        if s in fn.seat_lists or s in fn.item_lists:  # a list as it is: walked itself
            return s, False
        fn.emit(f"if type({s}) is list: {it} = {s}")
        fn.emit(f"elif type({s}) is Grid: {it} = {s}.cells")
        fn.emit(f"else: {it} = m.items_of({s}, {f'`{b.name} in ...`'!r}, {at})")
        if s in fn.likely_seat_lists:
            fn.likely_seat_lists.add(it)
        return it, False

    def ex_list_comp(self, node, fn, sc):
        acc = fn.tmp()
        fn.emit(f"{acc} = []")
        self.loops(fn, sc, [node.binding, *node.more], node.where,
                   lambda inner: fn.emit(f"{acc}.append({self.ex(node.element, fn, inner)})"))
        t = fn.tmp()
        fn.emit(f"{t} = m.sized({acc}, {self.const(node)})")
        fn.made_list(t)
        return t

    def ex_aggregate(self, node, fn, sc):
        if node.func == "sum":
            return self._sum(node, fn, sc)
        acc, odd, at = fn.tmp(), None, self.const(node)
        fn.emit(f"{acc} = []")
        start = len(fn.lines)

        def add(inner):
            nonlocal odd
            v = self.ex(node.element, fn, inner)
            fn.emit(f"{acc}.append({v})")
            if v not in fn.ints and WRITE_EXTREMES:
                odd = odd or fn.tmp()
                fn.emit(f"if type({v}) is not int: {odd} = True")

        self.loops(fn, sc, [node.binding, *node.more], node.where, add)
        t = fn.tmp()
        if not WRITE_EXTREMES:
            fn.emit(f"{t} = m.aggregate({node.func!r}, {acc}, {at})")
            return t
        if odd is None:  # numbers alone
            self._extreme_of_ints(node.func, acc, t, at, fn)
            return t
        fn.lines.insert(start, "    " * fn.depth + f"{odd} = False")
        fn.emit(f"if {odd}: {t} = m.aggregate({node.func!r}, {acc}, {at})")
        fn.emit("else:")
        with fn.indent():
            self._extreme_of_ints(node.func, acc, t, at, fn)
        return t

    @staticmethod
    def _extreme_of_ints(func: str, values: str, t: str, at: str, fn) -> None:
        """`max` or `min` of a list of numbers alone: `Evaluator.aggregate` with nothing to
        refuse (its steps, none of an empty list)."""
        fn.steps(f"len({values})", at)
        fn.emit(f"{t} = {func}({values}) if {values} else None")

    def _sum(self, node, fn, sc):
        """`sum(...)` added up as its loop runs, with no list: the steps, the first value that is
        no number (E0306) and the bound on numbers as `Evaluator.aggregate` has them, after the
        loop."""
        total, n, bad, at = fn.tmp(), fn.tmp(), None, self.const(node)
        # the elements added are counted, for their steps; over one list with no `where`,
        # they are all of its elements
        counted = node.where is not None or bool(node.more)
        fn.emit(f"{total} = {n} = 0" if counted else f"{total} = 0")
        start = len(fn.lines)
        natural = True  # every value added is 0 or more: so is the total

        def add(inner):
            nonlocal bad, natural
            v = self.ex(node.element, fn, inner)
            if counted:
                fn.emit(f"{n} += 1")
            natural = natural and fn.natural(v)
            if v in fn.ints:
                fn.emit(f"{total} += {v}")
                return
            bad = bad or fn.tmp()
            fn.emit(f"if type({v}) is int: {total} += {v}")
            fn.emit(f"elif {bad} is _M: {bad} = {v}")

        walked = self.loops(fn, sc, [node.binding, *node.more], node.where, add)
        if bad is not None:  # the first value that is no number, kept from before the loop
            fn.lines.insert(start, "    " * fn.depth + f"{bad} = _M")
        fn.steps(n if counted else f"len({walked})", at)
        if bad is not None:
            fn.emit(f"if {bad} is not _M: m.not_numbers('sum', {bad}, {at})")
        if natural and bad is None:
            fn.naturals.add(total)
        fn.emit(f"if not {fn.numbers_within(total)}: m.num({total}, {at})")
        fn.ints.add(total)
        return total

    def ex_quantifier(self, node, fn, sc):
        func, t = node.func, fn.tmp()
        binds = [node.binding]
        if func == "count":
            equal = self._counted_equal(node, sc)
            if equal is not None:  # the elements equal to a value that is its own identity
                s, v = (self.ex(x, fn, sc, True) for x in equal)
                self.ns.setdefault("_INDEXABLE", _INDEXABLE)
                fn.emit(f"if type({v}) in _INDEXABLE and (type({s}) is list or type({s}) is Grid):")
                with fn.indent():
                    it = fn.tmp()
                    fn.emit(f"{it} = {s} if type({s}) is list else {s}.cells")
                    fn.charge(f"len({it})", self.const(node.binding))  # as the loop would
                    fn.emit(f"{t} = {it}.count({v})")  # (`==` is `is` for these: no steps)
                fn.emit("else:")
                fn.depth += 1
            fn.emit(f"{t} = 0")
            self.loops(fn, sc, binds, node.where, lambda inner: fn.emit(f"{t} += 1"))
            if equal is not None:
                fn.depth -= 1
            fn.ints.add(t)
            fn.naturals.add(t)
            return t
        if func == "filter":
            fn.emit(f"{t} = []")
            self.loops(fn, sc, binds, node.where,
                       lambda inner: fn.emit(f"{t}.append({inner.py[node.binding.name]})"))
            return t
        if func == "any":
            fn.emit(f"{t} = False")

            def body(inner):
                fn.emit(f"{t} = True")
                fn.emit("break")
            self.loops(fn, sc, binds, node.where, body, stops=True)
        elif func == "first":
            fn.emit(f"{t} = None")

            def body(inner):
                fn.emit(f"{t} = {inner.py[node.binding.name]}")
                fn.emit("break")
            self.loops(fn, sc, binds, node.where, body, stops=True)
        else:  # all: every element meets `where`
            fn.emit(f"{t} = True")

            def body(inner):
                if node.where is None:
                    fn.emit("pass")
                    return
                w = self.ex(node.where, fn, inner)
                fn.emit(f"if not {w}:" if self.yes_no(node.where) else f"if {w} is not True:")
                with fn.indent():
                    if not self.yes_no(node.where):
                        fn.emit(f"if {w} is not False: m.truth({w}, {self.const(node.where)})")
                    fn.emit(f"{t} = False")
                    fn.emit("break")
            self.loops(fn, sc, binds, None, body, stops=True)
        return t

    def _counted_equal(self, node, sc):
        """(source, value) of `count(x in S where x == v)` (or `v == x`), S a name of the rules
        and v a local one: when v holds a value equal only to itself (`_INDEXABLE`), the count
        is Python's `list.count`, made at once."""
        b, w = node.binding, node.where
        if w is None or w.kind != "binary" or w.op != "==" or b.source.kind != "name" \
                or b.source.id == b.name:
            return None
        for x, v in ((w.left, w.right), (w.right, w.left)):
            if x.kind == "name" and x.id == b.name and v.kind == "name" and v.id != b.name \
                    and (v.id in sc.py or (sc.env is not None and v.id in sc.env)):
                return b.source, v
        return None

    def _rows(self, fn, sc, binding, where, keys) -> str:
        """(element, key values) for each element of `binding` meeting `where`, as
        ``Evaluator.order`` reads them; `keys` are (expression or None for `random`,
        descending)."""
        rows = fn.tmp()
        fn.emit(f"{rows} = []")
        self.ns.setdefault("key_pair", key_pair)

        def pair(expr, desc: bool, inner) -> str:
            if expr is None:
                return "('random', None)"
            v = self.ex(expr, fn, inner)
            # (a number is its own key: `key_pair` of it, with no call)
            return f"({desc!r}, {v})" if v in fn.ints else f"key_pair({v}, {desc!r})"

        def body(inner):
            pairs = [pair(expr, desc, inner) for expr, desc in keys]
            fn.emit(f"{rows}.append(({inner.py[binding.name]}, [{', '.join(pairs)}]))")
        self.loops(fn, sc, [binding], where, body)
        return rows

    def ex_sole(self, node, fn, sc):
        desc = node.func == "sole_max"
        rows = self._rows(fn, sc, node.binding, node.where, [(k, desc) for k in node.keys])
        t = fn.tmp()
        fn.emit(f"{t} = m.sole_of(m.order({rows}, {self.const(node)}))")
        return t

    def ex_sort(self, node, fn, sc):
        rows = self._rows(fn, sc, node.binding, None, sort_keys_of(node.keys))
        t = fn.tmp()
        fn.emit(f"{t} = [row[0] for row in m.order({rows}, {self.const(node)})]")
        fn.made_list(t)
        return t

    # calls
    def ex_call(self, node, fn, sc):
        name, at = node.func, self.const(node)
        t = fn.tmp()
        if name == "changed_at":  # where a variable is, not its value
            target = node.args[0]
            if target.kind == "field":
                o = self.ex(target.obj, fn, sc)
                key = fn.tmp()
                fn.emit(f"{key} = {self.field_var_key(fn, o, target)}")
                fn.emit(f"{t} = {fn.use('st')}.changed_at.get({key}, 0)")  # (as `changed_at`)
            else:
                fn.emit(f"{t} = m.changed_at({self.const(target)}, {fn.env}, {at})")
            return t
        if name == "size" and len(node.args) == 1 and self._table_named(node.args[0], sc):
            return f"({len(self.rules.tables[node.args[0].id])})"  # its rows never change
        # `size` keeps nothing it is given: a table or the players are read as they are
        args = [self.ex(a, fn, sc, name == "size" and a.kind == "name") for a in node.args]
        rules = self.rules
        if name in rules.defines:
            decl = rules.defines[name]
            deeper = f"{self.depth_of_calls(fn)} + 1"  # the depth of the call
            if name in rules.modifiers or len(args) != len(decl.params):
                fn.emit(f"{t} = m.call_define({self.const(decl)}, [{', '.join(args)}], {at}, "
                        f"{deeper})")
            elif fn.listing and name in self.repeatable and self._loops(name) \
                    and all(self._same_while_listing(fn, a) for a in args) \
                    and not (fn.turn_test is not None and fn.turn_test[0] is node):
                return self._kept_while_listing(name, decl, args, at, deeper, fn, sc, t)
            elif self._leaf(name):
                written = [self._written(a, sc) for a in node.args] \
                    if (fn.fixed or fn.listing) and self._loops(name) else [_MISSING]
                if _MISSING in written:
                    if fn.turn_test is not None and fn.turn_test[0] is node:
                        fn.turn_test = (decl.body, fn.turn_test[1])  # the `where`, written out
                    return self._inlined(decl, args, at, fn, sc)
                # in a define of parameters (called for many values of them), a call whose
                # value does not depend on them: looked up while the state stands still (a
                # listing of options; its key known as written, `Evaluator.remembered`'s),
                # written out otherwise
                site = self.const([0, 0, True, name])
                key = self.const((name, *written))
                hit = fn.tmp()
                fn.emit("if m.memo is not None:")
                with fn.indent():
                    fn.emit(f"{hit} = m.memo.get({key})")
                    fn.emit(f"if {hit} is not None:")
                    with fn.indent():
                        fn.charge(f"{hit}[1]", at, check=False)  # (as a value kept)
                        fn.emit(f"{t} = {hit}[0]")
                    fn.emit("else:")
                    fn.emit(f"    {t} = m.remembered({site}, {self.define(name)}, {deeper}, "
                            f"({''.join(a + ', ' for a in args)}), {at})")
                fn.emit("else:")
                with fn.indent():
                    fn.emit(f"{t} = {self._inlined(decl, args, at, fn, sc)}")
                return t
            else:
                call = f"{self.define(name)}(m, {at}, {deeper}{''.join(', ' + a for a in args)})"
                if name in self.repeatable:  # remembered while the state stands still
                    site = self.const([0, 0, True, name])
                    fn.emit(f"if m.memo is not None and {site}[2]:")
                    fn.emit(f"    {t} = m.remembered({site}, {self.define(name)}, {deeper}, "
                            f"({''.join(a + ', ' for a in args)}), {at})")
                    fn.emit("else:")
                    fn.emit(f"    {t} = {call}")
                else:
                    fn.emit(f"{t} = {call}")
            return t
        arity = BUILTIN_FUNCTIONS.get(name)
        if arity is None or len(args) < arity[0] or (arity[1] is not None and len(args) > arity[1]):
            fn.emit(f"{t} = m.call_builtin({name!r}, [{', '.join(args)}], {at})")  # raises
            return t
        call = f"m.bi_{name}({at}{''.join(', ' + a for a in args)})"
        if name in ("max", "min") and len(args) == 2 and WRITE_EXTREMES:  # of two numbers
            # (`Evaluator.aggregate` of the two: their steps, the first kept on a tie)
            a, b = args
            pick = f"{t} = {a} if {a} {'>=' if name == 'max' else '<='} {b} else {b}"
            unknown = [x for x in args if x not in fn.ints]
            if not unknown:
                fn.steps("2", at)
                fn.emit(pick)
                fn.ints.add(t)
                return t
            fn.emit(f"if {' and '.join(f'type({x}) is int' for x in unknown)}:")
            with fn.indent():
                fn.steps("2", at)
                fn.emit(pick)
            fn.emit(f"else: {t} = {call}")
            return t
        if name == "size":  # a number, whatever it is given (or an error)
            # a list, text or map has the length it gives; a grid (its cells that hold
            # something) and values with no size are the runtime's, at once for a state
            # variable declared as a grid
            if self._global_grid(node.args[0], sc):  # its cells that hold something
                g = args[0]
                fn.emit(f"if type({g}) is Grid:")
                with fn.indent():
                    fn.steps(f"len({g}.cells)", at)  # (`Evaluator.bi_size`'s, written out)
                    fn.emit(f"{t} = len({g}.cells) - {g}.cells.count(None)")
                fn.emit(f"else: {t} = {call}")
            else:
                fn.emit("try:")
                fn.emit(f"    {t} = len({args[0]})")
                fn.emit("except TypeError:")
                fn.emit(f"    {t} = {call}")
            fn.ints.add(t)
            fn.naturals.add(t)  # a size is never less than 0
        else:
            fn.emit(f"{t} = {call}")
        return t

    def ex(self, node, fn: Function, sc: Names, borrow: bool = False) -> str:
        """Write the code computing `node` into `fn`; the Python expression (a local or a
        literal) holding its value. `borrow`: a name may give a shared list (its reader
        keeps and changes nothing)."""
        if node.kind == "name":
            return self.ex_name(node, fn, sc, borrow)
        if (fn.blocks > _SPILL_BLOCKS or fn.depth > _SPILL_INDENT) and node.kind not in _LEAVES:
            return self._spilled(node, fn, sc, borrow)
        return getattr(self, "ex_" + node.kind)(node, fn, sc)

    def _spilled(self, node, fn, sc, borrow):
        """`node` worked out by a function of its own, given the Python locals in scope: code
        nested too deeply for one Python function (an expression only reads them)."""
        given = list(dict.fromkeys(sc.py.values()))  # the caller's locals, each once
        param = {v: f"q{i}" for i, v in enumerate(given)}
        sub = Function(self, self._fresh("x"), ", ".join(["m", "env", "D", *param.values()]),
                       "env")
        sub.watched, sub.settled, sub.calls = fn.watched, fn.settled, "D"
        sub.hoist_as["DEEP"] = "D >= m.limits.max_depth"
        inner = Names({name: param[v] for name, v in sc.py.items()}, sc.env)
        result = self.ex(node, sub, inner, borrow)
        sub.emit(f"return {result}")
        self._function(sub, stub=False)
        t = fn.tmp()
        fn.emit(f"{t} = {sub.name}(m, {fn.env}, {self.depth_of_calls(fn)}"
                f"{''.join(', ' + v for v in given)})")
        return t


# Options of one `option` known to be this few at most have their number bounded once listed.
_FEW_OPTIONS = 4096


def _of_players(declared) -> bool:
    """Whether a declared type is a list of players."""
    return declared is not None and declared.kind == "list_type" \
        and getattr(declared.element, "kind", None) == "named_type" \
        and declared.element.name == "player"


def _is_range(src) -> bool:
    """Whether `src` is written as a range (`a..b`): distinct numbers, whatever its ends."""
    return src.kind == "binary" and src.op == ".."


# The most source a ruleset's functions may take (the bundled games take at most half a million
# characters): rules that would make more are refused (E0319), so that compiling stays bounded.
MAX_GENERATED = 20_000_000
_PART = 300_000  # characters compiled at a time


def _parts(pending: list) -> list[list]:
    """The functions to compile, in parts of about `_PART` characters of source each."""
    parts, part, size = [], [], 0
    for entry in pending:
        part.append(entry)
        size += len(entry[1])
        if size >= _PART:
            parts.append(part)
            part, size = [], 0
    if part:
        parts.append(part)
    return parts


# Code nested deeper than this (loops and `try`s, indentation) goes into a function of its own:
# Python refuses more than 20 nested blocks and 100 levels of indentation.
_SPILL_BLOCKS = 14
_SPILL_INDENT = 60
_LEAVES = frozenset({"int", "str", "bool", "none", "name"})
# What is worked out charging no step, whatever values it meets (`Generator._same_each_turn`):
# `==` and `+` are not among the operators (lists compared or joined are charged)
_STEP_FREE = _LEAVES | {"field", "unary", "binary"}
_STEP_FREE_OPS = frozenset({"<", "<=", ">", ">=", "-", "*", "/", "%", "and", "or"})
_TEXT_STEP = 64  # characters of a text charged one step (``Evaluator.text``)
_INLINE_NODES = 60  # a define this small (in syntax nodes) is written where it is called
_LOOPING = ("list_comp", "aggregate", "quantifier", "sole", "sort")  # expressions over values

# Built-in values read from the state: name -> code (with `{st}` the state).
_STATE_VALUES = {
    "player_count": "len({st}.seats)", "round": "{st}.round", "game_over": "{st}.over",
    "winners": "list({st}.winners)", "current_player": "{st}.current", "phase": "{st}.phase",
    "pending_player": "m.pending_player",
}


_YES_NO_OPS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "not in", "and", "or"})
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})  # (`_worked_before_turns`)


def yes_no(node, rules=None) -> bool:
    """Whether `node` is always worked out to yes or no (or fails): a comparison, `and`, `or`,
    `not`, `any`, `all`, a literal, a call of a define (of `rules`, without modifiers) whose
    body is one of these. Its code need not refuse another kind of value."""
    kind = node.kind
    if kind == "call" and rules is not None:
        decl = rules.defines.get(node.func)
        return decl is not None and node.func not in rules.modifiers \
            and len(node.args) == len(decl.params) and yes_no(decl.body)
    return (kind == "bool" or kind == "binary" and node.op in _YES_NO_OPS
            or kind == "unary" and node.op == "not"
            or kind == "quantifier" and node.func in ("any", "all"))


def _literal_int(code: str) -> int | None:
    """The number a literal of the generated code (`(3)`, `(-2)`) writes, or None."""
    if code.startswith("(") and code.endswith(")"):
        try:
            value = int(code[1:-1])
        except ValueError:
            return None
        return value
    return None


def literal_consts(rules) -> dict:
    """The constants whose value is written as a number, a text or yes/no: their values,
    which the generated code holds as literals (and a save must hold as they are)."""
    return {d.name: d.value.value for d in rules.consts
            if d.value.kind in ("int", "str", "bool")}


def sort_keys_of(keys) -> list:
    """SortKey and RandomKey nodes as (expression or None for `random`, descending)."""
    return [(None, False) if k.kind == "random_key" else (k.expr, k.descending) for k in keys]


def key_pair(v, descending: bool):
    """A sort key's value as ``Evaluator.order`` compares it: members by their order, yes/no
    as 1/0, players by seat, none last."""
    if type(v) is Sym:
        v = v.order
    elif type(v) is bool:
        v = int(v)
    elif v is None:
        v = float("-inf") if descending else float("inf")
    elif type(v) is Seat:
        v = v.seat
    return (descending, v)


__all__ = ["Generator", "Function", "Names", "Scope", "key_pair", "sort_keys_of", "yes_no"]
