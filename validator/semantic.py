"""Static checks of a (merged) program: names resolve, nothing is declared twice, types fit.

The checker is deliberately cautious: it reports a problem only when the program is certainly
wrong (the engine would stop with an error, or the rule can never do what it says). Anything it
cannot type is ``unknown`` and never reported.
"""
from __future__ import annotations

import difflib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterable

from ..grammar import ast as A
from .builtins import BUILTIN_FUNCTIONS, BUILTIN_VALUES, arity_text
from .diagnostics import Diagnostic, Related, span_fields

CODES = {
    "E0201": "unknown name",
    "E0202": "unknown function",
    "E0203": "unknown procedure",
    "E0204": "trigger of an event that has no `when` handler",
    "E0205": "unknown type or record",
    "E0206": "unknown field or player variable",
    "E0207": "automaton prefers an option that no decision offers",
    "E0208": "declared twice",
    "E0209": "wrong number of arguments",
    "E0210": "value of the wrong type for this operation",
    "E0211": "a condition that is not yes/no",
    "E0212": "values of different types compared",
    "E0213": "table column that is not a field of its record",
    "E0214": "table value that does not fit its field's type",
    "E0215": "table value that is not a member of the field's enum",
    "E0216": "`stop` outside a loop",
    "E0217": "`pass` outside `turns`",
    "E0218": "a change to something that cannot change",
    "E0219": "modifier of something that is not a `define`",
    "E0220": "value that does not fit the declared type",
    "E0221": "unknown agent in `play to end with`",
    "E0222": "a scenario's player count that the game does not allow",
    "E0223": "a player count the engine cannot seat",
    "E0225": "a scenario's seeds that cannot be run",
    "E0226": "`reveal` or `hide` of something that is not a state variable",
    "E0227": "table rows named twice, or by something that is not a word",
    "E0224": "a table of more components than a list can hold",
    "E0228": "a grid size that is not a number known when the game starts",
    "E0229": "a `shape` option that shows or hides nothing",
    "E0231": "state on a kind of component that no table makes",
    "E0235": "a `compose` step named twice, or an option named as the engine's own",
    "E0240": "pieces changed, held or declared other than by moving them between holdings",
    "W0201": "state that is never read",
}

# Words the lexer reads as the language's own wherever an expression may start.
RESERVED_WORDS = frozenset({"count", "any", "all", "first", "filter", "sum", "max", "min", "sort",
                            "sole_max", "sole_min", "match", "new", "map", "not", "true", "false",
                            "none", "if"})
MAX_PLAYERS = 100          # seats in one game
MAX_SCENARIO_SEEDS = 1_000  # runs of one scenario with `seeds`
MAX_TABLE_ITEMS = 100_000  # components of one table (a list's limit, interpreter Limits)

SCENARIO_AGENTS = ("random", "first")
PRIMITIVE_TYPES = ("int", "bool", "text", "player")


# ------------------------------------------------------------------------------------ types
@dataclass(frozen=True)
class Ty:
    """A static type: int, bool, text, player, enum, record, list, grid, none or unknown."""

    kind: str
    name: str | None = None  # the enum or record
    elem: "Ty | None" = None  # of a list or grid
    optional: bool = False

    def __str__(self) -> str:
        if self.kind in ("enum", "record"):
            text = self.name or self.kind
        elif self.kind in ("list", "grid"):
            text = f"{self.kind} of {self.elem}" if self.elem and self.elem.known else self.kind
        else:
            text = self.kind
        return text + "?" if self.optional and self.kind != "none" else text

    @property
    def known(self) -> bool:
        return self.kind != "unknown"

    def maybe(self) -> "Ty":
        return Ty(self.kind, self.name, self.elem, True) if self.known else self


INT, BOOL, TEXT, PLAYER = Ty("int"), Ty("bool"), Ty("text"), Ty("player")
NONE, UNKNOWN = Ty("none"), Ty("unknown")
SCALARS = ("int", "bool", "text", "player", "enum", "record")


def list_of(t: Ty) -> Ty:
    return Ty("list", elem=t)


def elem_of(t: Ty) -> Ty:
    return t.elem or UNKNOWN if t.kind in ("list", "grid") else UNKNOWN


def same_shape(a: Ty, b: Ty) -> bool:
    """False only when a value of type ``a`` can certainly never be a value of type ``b``."""
    if not a.known or not b.known or a.kind == "none" or b.kind == "none":
        return True
    if a.kind in SCALARS or b.kind in SCALARS:
        return a.kind == b.kind and (a.name is None or b.name is None or a.name == b.name)
    # Two collections: lists and grids mix in moves; compare what they hold.
    return same_shape(elem_of(a), elem_of(b))


def merge(a: Ty, b: Ty) -> Ty:
    """The type of a value that is either ``a`` or ``b``."""
    if a.kind == "none":
        return b.maybe()
    if b.kind == "none":
        return a.maybe()
    if a == b:
        return a
    if a.known and b.known and a.kind == b.kind and a.name == b.name and a.elem == b.elem:
        return a.maybe() if b.optional else a
    return UNKNOWN


BUILTIN_VALUE_TYPES = {
    "players": list_of(PLAYER), "player_count": INT, "round": INT, "game_over": BOOL,
    "winners": list_of(PLAYER), "pending_player": PLAYER.maybe(),
    "current_player": PLAYER.maybe(), "phase": TEXT.maybe(),
}
assert set(BUILTIN_VALUE_TYPES) == set(BUILTIN_VALUES)

# Built-ins whose arguments are all players or all numbers.
PLAYER_ARGUMENTS = ("next", "previous", "clockwise", "counterclockwise", "seat", "is_automaton")
INT_ARGUMENTS = ("abs", "random_int")


# ------------------------------------------------------------------------------- the checker
@dataclass
class _Context:
    """Where a statement sits: inside a loop, inside `turns`, or in a reusable body."""

    loop: bool = False
    turns: bool = False
    reusable: bool = False  # procedure, event or reaction body: callers may sit in a loop


def check_program(program: A.Program, scenarios_only: bool = False,
                  helpers=()) -> list[Diagnostic]:
    """Every semantic problem of a program, errors and warnings, sorted by position.

    ``scenarios_only`` checks just the scenarios (against the declarations, whose own problems
    are left to the check of the file they are in) and the `helpers`, the declarations a file of
    scenarios adds for them.
    """
    token = _SUGGESTIONS.set([SUGGESTIONS_PER_CHECK])
    try:
        checker = _Checker(program)
        checker.run(scenarios_only, helpers)
    finally:
        _SUGGESTIONS.reset(token)
    return sorted(checker.diagnostics, key=Diagnostic.sort_key)


# Looking for the closest name costs a comparison per known name: a file of thousands of
# misspelled names would take quadratic time, so one check compares at most this many names.
SUGGESTIONS_PER_CHECK = 30_000
_SUGGESTIONS: ContextVar[list[int] | None] = ContextVar("suggestions", default=None)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    pool = candidates if isinstance(candidates, (set, frozenset, dict, list, tuple)) \
        else list(candidates)
    left = _SUGGESTIONS.get()
    if left is not None:
        if left[0] < len(pool):
            return None
        left[0] -= len(pool)
    close = difflib.get_close_matches(name, sorted(set(pool)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


_EXPRESSIONS: dict[str, object] = {}  # an expression's kind -> the _Checker method for it


class _Checker:
    def __init__(self, program: A.Program):
        self.program = program
        self.file_of = A.file_of  # each node's span names its file
        self.default_file = A.file_of(program)
        self.diagnostics: list[Diagnostic] = []
        self.quiet = 0
        self.loud: set[int] = set()
        self.enums: dict[str, A.EnumDecl] = {}
        self.members: dict[str, str] = {}  # member -> enum
        self.records: dict[str, A.RecordDecl] = {}
        self.fields: dict[str, dict[str, Ty]] = {}
        self.tables: dict[str, A.TableDecl] = {}
        self.consts: dict[str, A.ConstDecl] = {}
        self.globals: dict[str, A.StateDecl] = {}
        self.player_vars: dict[str, A.StateDecl] = {}
        # `on Record name: ...`: state each component of a record carries, by (record, name)
        self.component_vars: dict[tuple[str, str], A.ComponentStateDecl] = {}
        self.state_types: dict[int, Ty] = {}
        self.defines: dict[str, A.DefineDecl] = {}
        self.procedures: dict[str, A.ProcedureDecl] = {}
        self.events: dict[str, list[A.EventDecl]] = {}
        self.const_types: dict[str, Ty] = {}
        self.define_types: dict[str, Ty] = {}
        self.in_progress: set[tuple[int, str]] = set()
        self.option_envs: dict[str, list[dict[str, Ty]]] = {}
        self._scopes: list | None = None  # (choose, names it is written in), when asked for
        self.reads: set[tuple[str, str]] = set()  # ("global" | "player", name)
        self.pieces: dict[str, A.PiecesDecl] = {}
        # The holdings: ("global" | "player", variable) -> the kind of pieces it counts.
        self.holdings: dict[tuple[str, str], str] = {}

    # ------------------------------------------------------------------------ reporting
    def report(self, code, message, node, hint=None, severity="error", related=()):
        if self.quiet and id(node) not in self.loud:
            return
        file = self.file_of(node) if node is not None else None
        self.diagnostics.append(Diagnostic(
            code, message, severity=severity, file=file or self.default_file, hint=hint,
            related=tuple(related), **span_fields(getattr(node, "span", None))))

    def _related(self, node, message="first declared here") -> Related:
        span = getattr(node, "span", None)
        return Related(message, file=self.file_of(node) or self.default_file,
                       line=span.line if span else None, column=span.column if span else None)

    # ------------------------------------------------------------------------------ run
    def run(self, scenarios_only: bool = False, helpers=()) -> None:
        decls = self.program.declarations
        self.loud = {id(d) for d in helpers}  # reported even while the game's own are not
        self.quiet += scenarios_only
        self._collect(decls)
        for d in decls:
            if isinstance(d, A.RecordDecl):
                self._record(d)
        for d in decls:
            if isinstance(d, A.StateDecl) and isinstance(d.type, A.NamedType) \
                    and d.type.name in self.pieces:
                self.holdings[(d.scope, d.name)] = d.type.name
                self.state_types[id(d)] = INT  # read as how many it holds
            elif isinstance(d, (A.StateDecl, A.ComponentStateDecl)):
                self.state_types[id(d)] = self.resolve_type(d.type)
        self.quiet -= scenarios_only
        for d in helpers:  # a file of scenarios' own procedures, defines and constants
            getattr(self, "decl_" + d.kind)(d)
        if not scenarios_only:
            self._header(self.program.header)
            for d in decls:
                getattr(self, "decl_" + d.kind)(d)
            for d in decls:
                if isinstance(d, A.AutomatonDecl):
                    self._automaton(d)
        for sc in self.program.scenarios:
            self._scenario(sc)
        if not scenarios_only:
            self._unread_state()

    # --------------------------------------------------------------- collecting names
    def _collect(self, decls) -> None:
        values: dict[str, object] = {}   # names an expression can use
        types: dict[str, object] = {}
        by_kind: dict[tuple[str, str], object] = {}

        def claim(table: dict, key, node, what: str, hint=None):
            """Record the first declaration of ``key``; report any later one."""
            first = table.get(key)
            if first is not None:
                name = key[1] if isinstance(key, tuple) else key
                self.report("E0208", f"{what} `{name}` is declared twice", node,
                            hint=hint or "rename one of them", related=[self._related(first)])
                return False
            table[key] = node
            return True

        for d in decls:
            kind = d.kind
            if kind in ("setup", "play", "scoring", "winner"):
                first = by_kind.setdefault((kind, ""), d)
                if first is not d:
                    self.report("E0208", f"`{kind}` is declared twice", d,
                                hint=f"a game has one `{kind}`; merge the two",
                                related=[self._related(first)])
                continue
            name = getattr(d, "name", None)
            if kind in ("const", "state", "table", "define", "component_state"):
                self._word_free(name, d)
            if kind == "enum":
                if name in PRIMITIVE_TYPES:
                    self.report("E0208", f"`{name}` is a built-in type", d, hint="rename the enum")
                elif claim(types, name, d, "type"):
                    self.enums[name] = d
                for m in d.members:
                    if claim(values, m.name, m, "name",
                             hint="enum members are global names: each must be unique"):
                        self.members[m.name] = name
            elif kind in ("pieces", "record"):
                if name in PRIMITIVE_TYPES:
                    self.report("E0208", f"`{name}` is a built-in type", d,
                                hint=f"rename the {kind}")
                elif claim(types, name, d, "type"):
                    (self.pieces if kind == "pieces" else self.records)[name] = d
            elif kind in ("table", "const") or (kind == "state" and d.scope == "global"):
                if name in BUILTIN_VALUES:
                    self.report("E0208", f"`{name}` is a built-in value", d,
                                hint="choose another name")
                    continue
                if claim(values, name, d, "name"):
                    {"table": self.tables, "const": self.consts,
                     "state": self.globals}[kind][name] = d
            elif kind == "state":
                if claim(by_kind, ("player", name), d, "player variable"):
                    self.player_vars[name] = d
            elif kind == "component_state":
                if claim(by_kind, (f"on {d.record}", name), d, f"state on {d.record}"):
                    self.component_vars[(d.record, name)] = d
            elif kind == "define":
                if name in BUILTIN_FUNCTIONS:
                    self.report("E0208", f"`{name}` is a built-in function", d,
                                hint="choose another name for the define")
                elif claim(by_kind, ("define", name), d, "define"):
                    self.defines[name] = d
                self._params(d.params, d)
            elif kind == "procedure":
                if claim(by_kind, ("procedure", name), d, "procedure"):
                    self.procedures[name] = d
                self._params(d.params, d)
            elif kind == "event":
                handlers = self.events.setdefault(name, [])
                if handlers and len(handlers[0].params) != len(d.params):
                    self.report("E0209", f"`when {name}` takes {_values(len(d.params))} here but "
                                f"{len(handlers[0].params)} in its first handler", d,
                                hint="every handler of an event takes the same values",
                                related=[self._related(handlers[0], "first handler")])
                handlers.append(d)
                self._params(d.params, d)
            elif kind in ("reaction", "modifier", "automaton", "invariant"):
                claim(by_kind, (kind, name), d, kind)
                if kind == "modifier":
                    self._params(d.params, d)

    def _word_free(self, name: str, node) -> None:
        """A name the language reads as one of its words (`first(...)`, `sum(...)`) cannot name
        a value: every use of it would be misread, far from here."""
        if name in RESERVED_WORDS:
            self.report("E0208", f"`{name}` is a word of the language and cannot name a value",
                        node, hint=f"choose another name, such as `the_{name}` or `{name}_one`")

    def _params(self, params: list[str], node) -> None:
        seen = set()
        for p in params:
            if p in seen:
                self.report("E0208", f"parameter `{p}` is listed twice", node)
            self._word_free(p, node)
            seen.add(p)

    # ------------------------------------------------------------------------ types
    def resolve_type(self, t) -> Ty:
        if isinstance(t, (A.NamedType, A.OptionalType)):
            name = t.name
            if name in PRIMITIVE_TYPES:
                ty = Ty(name)
            elif name in self.enums:
                ty = Ty("enum", name)
            elif name in self.records:
                ty = Ty("record", name)
            elif name in self.pieces:
                self.report("E0240", f"`{name}` are pieces, counted in a state variable of their "
                            "own, not a value to keep in a list, a field or a map", t,
                            hint=f"declare a holding, `player {name.lower()}_held: {name}`, and "
                                 f"move pieces into it with `move n {name} from A to B`")
                return UNKNOWN
            else:
                known = [*PRIMITIVE_TYPES, *self.enums, *self.records, *self.pieces]
                self.report("E0205", f"unknown type `{name}`", t,
                            hint=did_you_mean(name, known) or
                            "types are int, bool, text, player, or a declared enum or record")
                return UNKNOWN
            return ty.maybe() if isinstance(t, A.OptionalType) else ty
        if isinstance(t, (A.ListType, A.DeckType)):
            return list_of(self.resolve_type(t.element))
        if isinstance(t, A.GridType):
            self._grid_size(t.rows, "rows")
            self._grid_size(t.columns, "columns")
            return Ty("grid", elem=self.resolve_type(t.element))
        if isinstance(t, A.MapType):
            self.resolve_type(t.key)  # reports an unknown key type
            return Ty("map", elem=self.resolve_type(t.value))
        return UNKNOWN

    # Values a grid's size may not read: they change during a game, or differ between two games
    # of the same players.
    _CHANGING_VALUES = frozenset(BUILTIN_VALUES - {"player_count", "players"})
    _CHANGING_FUNCTIONS = frozenset({"random_int", "shuffled", "changed_at", "moved_at"})

    def _grid_size(self, e, what: str) -> None:
        """A grid's number of rows or columns: a number, or an expression of constants."""
        self.want(e, self.expr(e, {}), INT, f"the number of {what} of a grid")
        for n in A.walk(e):
            changing = None
            if n.kind == "name" and (n.id in self.globals or n.id in self._CHANGING_VALUES):
                changing = f"`{n.id}` changes during the game"
            elif n.kind == "field" and n.name in self.player_vars:
                changing = f"`.{n.name}` is a player's state"
            elif n.kind == "call" and n.func in self.defines:
                changing = f"`{n.func}` is a define, which may read the state"
            elif n.kind == "call" and n.func in self._CHANGING_FUNCTIONS:
                changing = f"`{n.func}(...)` differs from game to game"
            if changing:
                self.report("E0228", f"the number of {what} of a grid must be known when the game "
                            f"starts, but {changing}", n,
                            hint="write a number, a `const`, or arithmetic on them")
                return
        if e.kind == "int" or (e.kind == "unary" and e.operand.kind == "int"):
            value = e.value if e.kind == "int" else -e.operand.value
            if value < 1:
                self.report("E0228", f"a grid has at least 1 of its {what}, not {value}", e)

    def _record(self, d: A.RecordDecl) -> None:
        fields: dict[str, Ty] = {}
        for f in d.fields:
            if f.name in fields:
                self.report("E0208", f"field `{f.name}` is declared twice in `{d.name}`", f)
                continue
            fields[f.name] = self.resolve_type(f.type)
        self.fields[d.name] = fields

    def decl_record(self, d):
        if d.show is not None:  # how a component reads: its fields are the names it sees
            names = dict(self.fields.get(d.name, {}))
            if A.ROW_KEY not in names and self._names_rows(d.name):
                names[A.ROW_KEY] = TEXT  # and its row's name
            self.expr(d.show, names)

    # ------------------------------------------------------------------- declarations
    def _header(self, header) -> None:
        low = getattr(header, "min_players", None)
        high = getattr(header, "max_players", None)
        if low is None or high is None:
            return
        if not 1 <= low <= high <= MAX_PLAYERS:
            self.report("E0223", f"`players {low} to {high}` cannot be seated: a game is for 1 to "
                        f"{MAX_PLAYERS} players, the smaller number first", header,
                        hint="write `players 2 to 4`, or `players 3` for exactly three")

    def decl_enum(self, d):
        pass  # members are claimed as names by _collect

    def decl_table(self, d: A.TableDecl) -> None:
        fields = self.fields.get(d.record)
        if fields is None:
            self.report("E0205", f"unknown record `{d.record}`", d,
                        hint=did_you_mean(d.record, self.records) or "declare it with `record`")
            return
        columns: list[tuple[str, Ty | None]] = []
        for col in d.columns:
            if col in [c for c, _ in columns]:
                self.report("E0208", f"column `{col}` appears twice in table `{d.name}`", d)
            if col == "count":
                columns.append((col, INT))
            elif col == A.ROW_KEY:
                columns.append((col, None))
            elif col in fields:
                columns.append((col, fields[col]))
            else:
                self.report("E0213", f"`{col}` is not a field of `{d.record}`", d,
                            hint=did_you_mean(col, [*fields, "count", A.ROW_KEY]) or
                            f"fields of {d.record}: {', '.join(fields) or 'none'}")
                columns.append((col, None))
        keys = [k for k in A.row_keys(d) if k is not None]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            self.report("E0227", f"table `{d.name}` names two rows `{twice[0]}`", d,
                        hint="give each row its own `id`")
        bad = [k for k in keys if A.ROW_KEY in d.columns and not k.isidentifier()]
        if bad:
            self.report("E0227", f"`{bad[0]}` cannot name a row of `{d.name}`: an `id` is a "
                        "word (letters, digits and `_`)", d, hint="write `gold_leaf`, not "
                        '"gold leaf"')
        total = 0
        for row in d.rows:
            for (col, ty), value in zip(columns, row.values):
                if ty is not None:
                    self._table_value(d, row, col, ty, value)
                if col == "count" and type(value) is int:
                    total += max(0, value)
        if total > MAX_TABLE_ITEMS:
            self.report("E0224", f"table `{d.name}` makes {total:,} components (limit "
                        f"{MAX_TABLE_ITEMS:,})", d,
                        hint="a table lists the components in the box; lower the counts")

    def _names_rows(self, record: str) -> bool:
        """Whether some table of this record names its rows (an `id` column, or names)."""
        return any(t.record == record and any(k is not None for k in A.row_keys(t))
                   for t in self.tables.values())

    def _table_value(self, table, row, col, ty: Ty, value) -> None:
        if value is None:
            return  # a table may leave fields empty
        if isinstance(value, bool):
            ok = ty.kind == "bool"
        elif isinstance(value, int):
            ok = ty.kind == "int"
        elif ty.kind == "enum":
            members = [m.name for m in self.enums[ty.name].members]
            if value not in members:
                self.report("E0215", f"`{value}` is not a member of `{ty.name}` (column `{col}`)",
                            row, hint=did_you_mean(value, members) or
                            f"members of {ty.name}: {', '.join(members)}")
            return
        else:
            ok = ty.kind == "text"
        if not ok and ty.kind in ("int", "bool", "text", "enum"):
            shown = f'"{value}"' if isinstance(value, str) else str(value).lower()
            wanted = {"bool": "true or false", "int": "a whole number", "text": 'a text ("...")',
                      "enum": f"a member of {ty.name}"}[ty.kind]
            self.report("E0214", f"`{shown}` does not fit column `{col}` of type {ty}", row,
                        hint=f"write {wanted} here")

    def decl_const(self, d):
        if self.consts.get(d.name) is d:
            self.const_type(d.name)
        self.expr(d.value, {})

    def decl_state(self, d: A.StateDecl) -> None:
        declared = self.state_types[id(d)]
        env = {"me": PLAYER} if d.scope == "player" else {}
        kind = self.holdings.get((d.scope, d.name))
        if kind is not None and (d.initial is not None or d.at_least is not None
                                 or d.at_most is not None):
            self.report("E0240", f"`{d.name}` holds {kind}: it starts with none of them (or "
                        f"all, when `pieces {kind}` starts in it) and only moving pieces changes "
                        "it", d, hint="remove the starting value and the bounds; a holding "
                        "never goes below 0, and `move` takes what there is")
        if d.initial is not None:
            t = self.expr(d.initial, env)
            target = elem_of(declared) if declared.kind == "grid" and t.kind != "grid" else declared
            if not same_shape(t, target) or t.kind == "none" and declared == INT:
                self.report("E0220", f"`{d.name}` holds {declared} but starts as {t}", d.initial,
                            hint="declare it `int?` to let it hold none" if t.kind == "none"
                            else None)
        for bound in (d.at_least, d.at_most):
            if bound is not None:
                self.want(bound, self.expr(bound, env), INT, "a bound (`at least`/`at most`)")
        if d.internal and (d.shown or d.sorted):
            self.report("E0210", f"`{d.name}` is `internal`, never listed at the table, so it "
                        f"cannot also be `{'shown' if d.shown else 'sorted'}`", d,
                        hint="keep one of them")
        if d.public_top is not None:
            if declared.known and declared.kind != "list":
                self.report("E0210", f"`top {d.public_top} public` shows the first elements of a "
                            f"list, but `{d.name}` is {_a(declared)}", d,
                            hint="remove `top ... public`")
            elif d.visibility == "public":
                self.report("E0210", f"`{d.name}` is public, so `top {d.public_top} public` shows "
                            "nothing more", d, hint="write `secret top 1 public` for a face-down "
                            "pile whose top card is face up")
            elif d.public_top < 1:
                self.report("E0210", "`top 0 public` shows nothing", d,
                            hint="write `top 1 public` or remove it")
        if d.shape is not None:
            self.check_shape(d, declared)
        if d.sorted and declared.known and declared.kind != "list":
            self.report("E0210", f"`sorted` shows a list in order, but `{d.name}` is {_a(declared)}",
                        d, hint="remove `sorted`")

    def check_shape(self, d: A.StateDecl, declared: Ty) -> None:
        """`shape public|secret` says what a hidden value's shape shows: it needs a hidden value
        that has a shape (a list, deck, grid or map, or a value that may be `none`)."""
        option = f"shape {d.shape}"
        if d.visibility == "public":
            self.report("E0229", f"`{d.name}` is public: everybody sees all of it, so `{option}` "
                        "says nothing", d, hint="make it `secret` or `owner`, or remove "
                        f"`{option}`")
        elif declared.known and declared.kind not in ("list", "grid", "map") \
                and not declared.optional:
            self.report("E0229", f"`{d.name}` is {_a(declared)}: it has no shape to show or hide "
                        "(only a list, deck, grid or map, or a value that may be `none`, has one)",
                        d, hint=f"remove `{option}`")
        elif d.shape == "secret" and d.public_top is not None:
            self.report("E0229", f"`top {d.public_top} public` shows how many elements lie on "
                        f"top, so the shape of `{d.name}` cannot be secret", d,
                        hint="keep one of them")

    def decl_component_state(self, d: A.ComponentStateDecl) -> None:
        """`on Record name: type`: the record must be a kind of component (a table makes
        some), the name no field of it, and the options ones that a component's state can take
        (it has no owner and no stack)."""
        record = d.record
        if record not in self.records:
            what = ("a built-in type" if record in PRIMITIVE_TYPES else
                    "an enum" if record in self.enums else None)
            self.report("E0205", f"`{record}` is {what}, not a record of components" if what
                        else f"unknown record `{record}`", d,
                        hint=did_you_mean(record, self.records) or
                        "write `on R name: ...` with R a record that a table lists")
        elif not any(t.record == record for t in self.tables.values()):
            self.report("E0231", f"no table makes components of `{record}`, so no component "
                        f"carries `{d.name}`", d,
                        hint=f"declare a `table ... of {record}`; a structure made with `new` "
                             "keeps changing values in its own fields")
        elif d.name in self.fields.get(record, {}):
            self.report("E0208", f"`{record}` already has a field `{d.name}`", d,
                        hint="a component's printed fields never change; give its state "
                             "another name")
        for option, present in (("owner", d.visibility == "owner"), ("stacked", d.stacked),
                                (f"top {d.public_top} public", d.public_top is not None),
                                (f"shape {d.shape}", d.shape is not None)):
            if present:
                self.report("E0210", f"`{option}` does not fit state on a component", d,
                            hint="state on a component is `public` (the default) or `secret`, "
                                 "and has no stack; keep a player's own value in `player ...`")
        declared = self.state_types[id(d)]
        if d.initial is not None:
            t = self.expr(d.initial, {})
            if not same_shape(t, declared) or t.kind == "none" and declared == INT:
                self.report("E0220", f"`{d.name}` holds {declared} but starts as {t}", d.initial)
        for bound in (d.at_least, d.at_most):
            if bound is not None:
                self.want(bound, self.expr(bound, {}), INT, "a bound (`at least`/`at most`)")
        if d.internal and (d.shown or d.sorted):
            self.report("E0210", f"`{d.name}` is `internal`, never listed at the table, so it "
                        f"cannot also be `{'shown' if d.shown else 'sorted'}`", d,
                        hint="keep one of them")
        if d.sorted and declared.known and declared.kind != "list":
            self.report("E0210", f"`sorted` shows a list in order, but `{d.name}` is {_a(declared)}",
                        d, hint="remove `sorted`")

    def decl_define(self, d):
        if self.defines.get(d.name) is d:
            self.define_type(d.name)
        self.expr(d.body, {p: UNKNOWN for p in d.params})

    def decl_procedure(self, d):
        self.block(d.body, {p: UNKNOWN for p in d.params}, _Context(reusable=True))

    def decl_event(self, d):
        self.block(d.body, {p: UNKNOWN for p in d.params}, _Context(reusable=True))

    def decl_setup(self, d):
        self.block(d.body, {}, _Context())

    decl_play = decl_setup
    decl_scoring = decl_setup

    def decl_winner(self, d):
        env = self.bind(d.binding, {})
        self.keys(d.keys, env)

    def decl_reaction(self, d):
        env: dict[str, Ty] = {}
        for b in d.bindings:
            env = self.bind(b, env)
        self.condition(d.condition, env, "`as soon as`")
        self.block(d.body, env, _Context(reusable=True))

    def decl_modifier(self, d: A.ModifierDecl) -> None:
        target = self.defines.get(d.target)
        if target is None:
            self.report("E0219", f"`{d.target}` is not a define, so a modifier cannot change it",
                        d, hint=did_you_mean(d.target, self.defines) or
                        "a modifier changes what a `define` returns")
        elif len(target.params) != len(d.params):
            self.report("E0209", f"`{d.target}` takes {_values(len(target.params))} but the "
                        f"modifier lists {len(d.params)}", d,
                        related=[self._related(target, "the define")])
        env = {p: UNKNOWN for p in d.params}
        t = self.expr(d.value, env)
        if d.op != ":=":
            self.want(d.value, t, INT, f"`{d.op}`")
        if d.when is not None:
            self.condition(d.when, env, "`when`")

    def decl_automaton(self, d):
        pass  # checked after every decision's options are known

    def decl_invariant(self, d):
        if d.when is not None:
            self.condition(d.when, {}, "an invariant's `when`")
        self.condition(d.test, {}, "an invariant")

    def decl_pieces(self, d: A.PiecesDecl) -> None:
        self.want(d.total, self.expr(d.total, {}), INT, "the number of pieces")
        scope = "player" if d.per_player else "global"
        if self.holdings.get((scope, d.start)) != d.name:
            each = "each player's own" if d.per_player else "a global"
            self.report("E0240", f"the {d.name} pieces start in `{d.start}`, which is not {each} "
                        f"holding of {d.name}", d,
                        hint=f"declare `{scope} {d.start}: {d.name}`")
        if d.per_player:
            for (where, var), kind in self.holdings.items():
                if kind == d.name and where == "global":
                    self.report("E0240", f"`{var}` is global, but each player has their own "
                                f"{d.name}", self.globals.get(var, d),
                                hint=f"declare it `player {var}: {d.name}`, or remove "
                                     "`per player` if the pieces are shared")

    def _automaton(self, d: A.AutomatonDecl) -> None:
        for policy in d.policies:
            if policy.within is not None and not self._scoped_policy(policy):
                continue
            envs = self.option_envs.get(policy.option)
            if envs is None:
                self.report("E0207", f"no decision offers an option `{policy.option}`", policy,
                            hint=did_you_mean(policy.option, self.option_envs) or
                            "name an `option` of a `choose`")
                continue
            env: dict[str, Ty] = {}
            for e in envs:
                for name, t in e.items():
                    env[name] = t if env.get(name, t) == t else UNKNOWN
            self.keys(policy.keys, env)

    def _scoped_policy(self, policy: A.Policy) -> bool:
        """`prefer x in name`: some decision written inside `name` offers `x`."""
        if self._scopes is None:
            self._scopes = list(A.decision_scopes(self.program.declarations).values())
        inside = [choose for choose, names in self._scopes if policy.within in names]
        if not inside:
            known = {n for _, names in self._scopes for n in names}
            self.report("E0207", f"no decision is written inside a procedure, event, reaction, "
                        f"phase or step named `{policy.within}`", policy,
                        hint=did_you_mean(policy.within, known) or
                        "name the procedure, phase or step whose `choose` this line ranks")
            return False
        offered = sorted({o.name for choose in inside for o in choose.options})
        if policy.option not in offered:
            self.report("E0207", f"no decision in `{policy.within}` offers an option "
                        f"`{policy.option}`", policy,
                        hint=did_you_mean(policy.option, offered) or
                        f"options there: {', '.join(offered) or 'none'}")
            return False
        return True

    # --------------------------------------------------------------------- scenarios
    def _scenario(self, sc: A.Scenario) -> None:
        env: dict[str, Ty] = {}  # names a scenario's `let` gives, to its end
        seeds = next((i for i in sc.items if i.kind == "sc_seeds"), None)
        for item in sc.items:
            kind = item.kind
            if kind == "sc_let":
                self._word_free(item.name, item)
                env[item.name] = self.expr(item.value, env)
            elif kind == "sc_given":
                self.block(item.body, env, _Context())
            elif kind in ("sc_choose", "sc_refuse"):
                if item.player is not None:
                    self.want(item.player, self.expr(item.player, env), PLAYER, "a decision")
                self.expr(item.option, env)
            elif kind in ("sc_expect_option", "sc_expect_options"):
                self.want(item.player, self.expr(item.player, env), PLAYER, "a decision")
                self.expr(item.option if kind == "sc_expect_option" else item.value, env)
            elif kind == "sc_expect":
                self.condition(item.test, env, "`expect`")
                if (item.at_least is not None or item.at_most is not None) and seeds is None:
                    self.report("E0225", "`expect ... on N seeds` and `expect sometimes` count "
                                "the seeds of `seeds A..B`, which this scenario does not have",
                                item, hint="add `seeds 1..50` to the scenario")
            elif kind == "sc_expect_log":
                self.expr(item.text, env)
                if item.to is not None:
                    self.want(item.to, self.expr(item.to, env), PLAYER, "`to`")
            elif kind == "sc_expect_visibility":
                self.expr(item.target, env)
                self._audience(item.viewer, env)
            elif kind == "sc_players":
                self._scenario_players(item)
            elif kind == "sc_seeds":
                self._scenario_seeds(sc, item)
            elif kind == "sc_play_until":
                self.condition(item.test, env, "`play until`")
            if kind in ("sc_play_to_end", "sc_play_until") and item.agent not in SCENARIO_AGENTS:
                self.report("E0221", f"unknown agent `{item.agent}`", item,
                            hint=did_you_mean(item.agent, SCENARIO_AGENTS) or
                            "use `random` or `first`")

    def _scenario_seeds(self, sc: A.Scenario, item: A.ScSeeds) -> None:
        if not 0 <= item.last - item.first < MAX_SCENARIO_SEEDS:
            self.report("E0225", f"`seeds {item.first}..{item.last}` must name 1 to "
                        f"{MAX_SCENARIO_SEEDS} seeds, the smaller first", item,
                        hint="write `seeds 1..50`")
        if any(i.kind == "sc_seed" for i in sc.items):
            self.report("E0225", "a scenario has either `seed` or `seeds`, not both", item,
                        hint="keep `seeds A..B` to run the scenario once per seed")

    def _scenario_players(self, item: A.ScPlayers) -> None:
        header = self.program.header
        low = getattr(header, "min_players", None)
        high = getattr(header, "max_players", None)
        if low is not None and high is not None and not low <= item.count <= high:
            allowed = str(low) if low == high else f"{low} to {high}"
            self.report("E0222", f"the game is for {allowed} players, not {item.count}", item,
                        hint=f"write `players N` with N from {allowed}")

    # --------------------------------------------------------------------- statements
    def block(self, stmts, env: dict[str, Ty], ctx: _Context) -> None:
        env = dict(env)
        for s in stmts:
            if s.kind == "let":
                self._word_free(s.name, s)
                env[s.name] = self.expr(s.value, env)
            else:
                getattr(self, "stmt_" + s.kind)(s, env, ctx)

    def stmt_set(self, s, env, ctx):
        target = self.target(s.target, env)
        value = self.expr(s.value, env)
        if not same_shape(value, target):
            self.report("E0220", f"cannot set {target} to {value}", s.value)
        elif value.kind == "none" and self._declared_int(s.target, env):
            self.report("E0220", "a variable declared `int` holds a number, never none",
                        s.value, hint="declare it `int?` to let it hold none as well")

    def _declared_int(self, target, env) -> bool:
        """Whether `target` is a state variable declared `int` (a global `x`, a player's `p.x`),
        which holds numbers alone (the engine refuses anything else)."""
        if target.kind == "name" and target.id not in env and target.id in self.globals:
            decl = self.globals[target.id]
        elif target.kind == "field" and target.name in self.player_vars \
                and target.obj.kind == "name" and env.get(target.obj.id) == PLAYER:
            decl = self.player_vars[target.name]
        else:
            return False
        return self.state_types.get(id(decl)) == INT

    def stmt_change(self, s, env, ctx):
        self.want(s.target, self.target(s.target, env), INT, f"`{s.op}`")
        self.want(s.amount, self.expr(s.amount, env), INT, f"`{s.op}`")

    def stmt_move(self, s, env, ctx):
        t = self.expr(s.item, env) if s.item is not None else UNKNOWN
        if s.what == "top":
            self.want(s.item, t, INT, "`move top`")
        if s.source is None:  # a component is found in the zone that holds it
            if s.what != "one":
                self.report("E0210", f"`move {'all' if s.what == 'all' else 'top n'}` needs the "
                            "zone it takes from", s, hint="write `move ... from A to B`")
            elif t.kind not in ("record", "unknown"):
                self.report("E0210", f"only a component knows its zone; {_a(t)} does not", s,
                            hint="write `move x from A to B`")
        else:
            self._zone(s.source, env, "moved from")
            self.place(s.source, self.expr(s.source, env), "`move ... from`")
        self.place(s.dest, self.target(s.dest, env), "`move ... to`")

    def stmt_move_pieces(self, s: A.MovePieces, env, ctx):
        if s.count is not None:
            self.want(s.count, self.expr(s.count, env), INT, f"`move ... {s.pieces}`")
        if s.pieces not in self.pieces:
            self.report("E0205", f"unknown pieces `{s.pieces}`", s,
                        hint=did_you_mean(s.pieces, self.pieces) or
                        f"declare them: `pieces {s.pieces}: n, starting in ...`")
            return
        for node, role in ((s.source, "from"), (s.dest, "to")):
            self._holding(node, env, s.pieces, role)

    def _holding(self, node, env, kind: str, role: str) -> None:
        """`x` or `p.x`: a holding of `kind`, the place a `move ... from`/`to` names."""
        if node.kind == "field":
            self.want(node.obj, self.expr(node.obj, env), PLAYER, f"`move ... {role}`")
            key = ("player", node.name)
        elif node.kind == "name" and node.id not in env:
            key = ("global", node.id)
        else:
            key = None
        held = self.holdings.get(key) if key is not None else None
        if held == kind:
            if role == "from":
                self.reads.add(key)
            return
        if key is not None and key[1] not in (self.globals if key[0] == "global"
                                              else self.player_vars):
            self.expr(node, env)  # reports the unknown name
            return
        what = f"holds {held}" if held else "is not a holding of pieces"
        self.report("E0240", f"`move ... {kind} {role}` needs a holding of {kind}, and this "
                    f"{what}", node, hint=f"name a state variable declared `: {kind}`, like "
                    f"`p.x` or `x`")

    def stmt_add(self, s, env, ctx):
        value = self.expr(s.value, env)
        dest = self.target(s.dest, env)
        self.collection(s.dest, dest, "`add ... to`")
        if dest.kind == "list" and not same_shape(value, elem_of(dest)):
            self.report("E0220", f"{_a(value)} cannot be added to a {dest}", s.value)

    def stmt_remove(self, s, env, ctx):
        self.expr(s.value, env)
        self._zone(s.source, env, "removed from")
        self.collection(s.source, self.expr(s.source, env), "`remove ... from`")

    def _zone(self, node, env, what: str) -> None:
        """A table or a constant is what the box holds, not a place: taking from it would
        leave the component in both places."""
        if node.kind == "name" and node.id not in env and node.id not in self.globals and (
                node.id in self.tables or node.id in self.consts):
            kind = "a table" if node.id in self.tables else "a constant"
            self.report("E0218", f"`{node.id}` is {kind}, which cannot be {what}", node,
                        hint=f"declare a zone that starts with it: `global pile: list of ... = "
                             f"{node.id}`, and move from the zone")

    def stmt_slide(self, s, env, ctx):
        t = self.target(s.target, env)
        if t.known and t.kind != "grid":
            self.report("E0210", f"`slide` closes the empty cells of a grid, but this is {_a(t)}",
                        s.target, hint="a list has no holes: taking from it closes the gap; "
                        "keep places that stay empty in a grid")

    def stmt_shuffle(self, s, env, ctx):
        self.collection(s.target, self.target(s.target, env), "`shuffle`")

    def stmt_if(self, s, env, ctx):
        for b in s.branches:
            self.condition(b.test, env, "`if`")
            self.block(b.body, env, ctx)
        if s.otherwise is not None:
            self.block(s.otherwise, env, ctx)

    def stmt_for(self, s, env, ctx):
        inner = self.bind(s.binding, env)
        if s.where is not None:
            self.condition(s.where, inner, "`where`")
        self.block(s.body, inner, _Context(True, ctx.turns, ctx.reusable))

    def stmt_repeat(self, s, env, ctx):
        self.want(s.count, self.expr(s.count, env), INT, "`repeat`")
        self.block(s.body, env, _Context(True, ctx.turns, ctx.reusable))

    def stmt_while(self, s, env, ctx):
        self.condition(s.test, env, "`while`")
        self.block(s.body, env, _Context(True, ctx.turns, ctx.reusable))

    def stmt_choose(self, s: A.Choose, env, ctx):
        self.want(s.player, self.expr(s.player, env), PLAYER, "`choose`")
        if s.prompt is not None:
            self.expr(s.prompt, env)
        self.options(s.options, env, ctx)
        if s.optional:
            self.option_envs.setdefault("skip", []).append(dict(env))
        if s.otherwise is not None:
            self.block(s.otherwise, env, ctx)

    def options(self, options: list[A.Option], env, ctx) -> None:
        """The options of a `choose` or of the steps of a `compose`."""
        for opt in options:
            inner = dict(env)
            for b in opt.bindings:
                inner = self.bind(b, inner)
            if opt.where is not None:
                self.condition(opt.where, inner, "`where`")
            if opt.label is not None:
                self.expr(opt.label, inner)
            self.option_envs.setdefault(opt.name, []).append(inner)
            self.block(opt.body, inner, ctx)

    def stmt_compose(self, s: A.Compose, env, ctx):
        self.want(s.player, self.expr(s.player, env), PLAYER, "`compose`")
        if s.prompt is not None:
            self.expr(s.prompt, env)
        for e in s.showing:
            self.expr(e, env)
        seen: set[str] = set()
        for step in s.steps:
            if step.name in seen:
                self.report("E0235", f"two steps of one `compose` are named `{step.name}`", step,
                            hint="give each step its own name")
            seen.add(step.name)
            if step.prompt is not None:
                self.expr(step.prompt, env)
            self.condition(step.until, env, "a step's `until`")
            for opt in step.options:
                if opt.name in (A.COMPOSE_DONE, A.COMPOSE_START_OVER):
                    self.report("E0235", f"an option of a `compose` step is named `{opt.name}`, "
                                "the option the engine adds", opt,
                                hint=f"`{A.COMPOSE_DONE}` confirms the decision and "
                                f"`{A.COMPOSE_START_OVER}` starts it over; name this one otherwise")
        self.options(s.options, env, ctx)
        if s.start_over is not None:
            self.option_envs.setdefault(A.COMPOSE_DONE, []).append(dict(env))
            self.option_envs.setdefault(A.COMPOSE_START_OVER, []).append(dict(env))
            self.block(s.start_over, env, ctx)

    def stmt_simultaneously(self, s, env, ctx):
        self.block(s.body, self.bind(s.binding, env), ctx)

    def stmt_turns(self, s, env, ctx):
        self.block(s.body, self.bind(s.binding, env), _Context(True, True, ctx.reusable))

    def stmt_turns_from(self, s, env, ctx):
        self.want(s.start, self.expr(s.start, env), PLAYER, "`turns ... from`")
        inner = {**env, s.name: PLAYER}
        self.want(s.then, self.expr(s.then, inner), PLAYER, "`turns ... then`")
        self.condition(s.until, inner, "`turns ... until`")
        self.block(s.body, inner, _Context(True, True, ctx.reusable))

    def stmt_match_stmt(self, s, env, ctx):
        subject = self.expr(s.subject, env)
        for arm in s.arms:
            if arm.value is not None:
                value = self.expr(arm.value, env)
                if not same_shape(subject, value):
                    self.report("E0212", f"{_a(value)} never equals the {subject} matched",
                                arm.value, hint=_compare_hint(subject, value))
            self.block(arm.body, env, ctx)

    def stmt_rotate(self, s, env, ctx):
        if s.name not in self.player_vars:
            self.report("E0206", f"players have no variable `{s.name}`", s,
                        hint=did_you_mean(s.name, self.player_vars) or
                        f"declare it with `player {s.name}: ...`")
        self._audience(s.among, env)

    def stmt_cited(self, s, env, ctx):
        self.block(s.body, env, ctx)

    def stmt_phase(self, s, env, ctx):
        if s.when is not None:
            self.condition(s.when, env, "`phase ... when`")
        self.block(s.body, env, ctx)

    def stmt_step(self, s, env, ctx):
        self.block(s.body, env, ctx)

    def stmt_rounds(self, s, env, ctx):
        if s.mode == "until":
            self.condition(s.expr, env, "`rounds until`")
        elif s.mode == "count":
            self.want(s.expr, self.expr(s.expr, env), INT, "`rounds`")
        self.block(s.body, env, _Context(True, ctx.turns, ctx.reusable))

    def stmt_turn(self, s, env, ctx):
        self.want(s.player, self.expr(s.player, env), PLAYER, "`turn`")
        self.block(s.body, env, ctx)

    def stmt_end_game(self, s, env, ctx):
        pass

    def stmt_stop(self, s, env, ctx):
        if not ctx.loop and not ctx.reusable:
            self.report("E0216", "`stop` is not inside a loop", s,
                        hint="`stop` leaves the innermost `for`, `repeat`, `while`, `rounds` or "
                        "`turns`; to end the game write `end game`")

    def stmt_pass(self, s, env, ctx):
        if not ctx.turns and not ctx.reusable:
            self.report("E0217", "`pass` is not inside `turns`", s,
                        hint="`pass` ends a player's part in `turns p in ... until all passed`")

    def stmt_log(self, s, env, ctx):
        self.expr(s.message, env)
        if s.to is not None:
            self._audience(s.to, env)

    def _audience(self, node, env) -> None:
        """Who may see something: a player or a list of players."""
        t = self.expr(node, env)
        if t.kind != "list":
            self.want(node, t, PLAYER, "`to`")
        else:
            self.want(node, elem_of(t), PLAYER, "`to`")

    def stmt_reveal(self, s, env, ctx):
        self.expr(s.target, env)
        self._state_variable(s.target, env, "`reveal`")
        if s.to is not None:
            self._audience(s.to, env)

    def _state_variable(self, target, env, what: str) -> None:
        """Visibility belongs to state variables (`x`, `p.x`), not to a part of one."""
        if target.kind == "name" and (target.id in self.globals or target.id in env):
            return
        if target.kind == "field" and target.name in self.player_vars:
            return
        if target.kind == "field" and any(n == target.name for _, n in self.component_vars):
            self.report("E0226", f"{what} cannot change who sees `.{target.name}`: state on a "
                        "component keeps the visibility it is declared with", target,
                        hint="declare it `secret` or `public`; to show one component's value, "
                             "`log` it to the players who may see it")
            return
        self.report("E0226", f"{what} shows or hides a state variable such as `x` or `p.x`, "
                    "not a part of one", target,
                    hint="keep the part in a variable of its own (a zone), and reveal that")

    def stmt_hide(self, s, env, ctx):
        self.expr(s.target, env)
        self._state_variable(s.target, env, "`hide`")

    def stmt_trigger(self, s, env, ctx):
        for a in s.args:
            self.expr(a, env)
        handlers = self.events.get(s.event)
        if not handlers:
            self.report("E0204", f"no `when {s.event}(...)` handler for this trigger", s,
                        hint=did_you_mean(s.event, self.events) or
                        f"declare `when {s.event}(...) {{ ... }}` (it may be empty)")
        elif len(handlers[0].params) != len(s.args):
            self.report("E0209", f"`{s.event}` takes {_values(len(handlers[0].params))}, "
                        f"got {len(s.args)}", s, related=[self._related(handlers[0], "handler")])

    def stmt_award(self, s: A.Award, env, ctx):
        amounts = self.expr(s.amounts, env)
        self.collection(s.amounts, amounts, "`award`")
        inner = self.bind(s.binding, env)
        if s.where is not None:
            self.condition(s.where, inner, "`where`")
        self.keys(s.keys, inner)
        amount = elem_of(amounts) if elem_of(amounts).known else INT
        self.block(s.body, {**inner, "amount": amount}, ctx)

    def stmt_do(self, s, env, ctx):
        for a in s.args:
            self.expr(a, env)
        proc = self.procedures.get(s.name)
        if proc is None:
            hint = (f"`{s.name}` is a define: use it in an expression, `{s.name}(...)`"
                    if s.name in self.defines else
                    did_you_mean(s.name, self.procedures) or "declare it with `procedure`")
            self.report("E0203", f"unknown procedure `{s.name}`", s, hint=hint)
        elif len(proc.params) != len(s.args):
            self.report("E0209", f"`{s.name}` takes {_values(len(proc.params))}, got "
                        f"{len(s.args)}", s, related=[self._related(proc, "the procedure")])

    def stmt_require(self, s, env, ctx):
        self.condition(s.test, env, "`require`")
        self.expr(s.message, env)

    # ------------------------------------------------------------- expressions: helpers
    def want(self, node, t: Ty, wanted: Ty, what: str) -> None:
        """Report when ``t`` is certainly not a ``wanted`` (ignoring none)."""
        if t.known and t.kind != "none" and t.kind != wanted.kind:
            self.report("E0210", f"{what} needs {_a(wanted)}, but this is {_a(t)}", node)

    def condition(self, node, env, what: str) -> None:
        t = self.expr(node, env)
        if t.known and t.kind not in ("bool", "none"):
            self.report("E0211", f"{what} needs a yes/no condition, but this is {_a(t)}", node,
                        hint="compare it, for example `x > 0` or `x != none`")

    def collection(self, node, t: Ty, what: str) -> None:
        if t.known and t.kind in SCALARS:
            self.report("E0210", f"{what} needs a list, but this is {_a(t)}", node)

    def place(self, node, t: Ty, what: str) -> None:
        """Where a move takes from or puts to: a list, or a grid cell (which holds one value)."""
        if node.kind != "index":
            self.collection(node, t, what)

    def bind(self, b: A.Binding, env: dict[str, Ty]) -> dict[str, Ty]:
        source = self.expr(b.source, env)
        self.collection(b.source, source, f"`{b.name} in ...`")
        self._word_free(b.name, b)
        return {**env, b.name: elem_of(source)}

    def bind_all(self, bindings, env: dict[str, Ty]) -> dict[str, Ty]:
        for b in bindings:
            env = self.bind(b, env)
        return env

    def keys(self, keys, env) -> None:
        for k in keys:
            if isinstance(k, A.SortKey):
                self.expr(k.expr, env)

    # ------------------------------------------------------------------- expressions
    def expr(self, e, env: dict[str, Ty]) -> Ty:
        """The type of an expression, reporting what is certainly wrong inside it."""
        method = _EXPRESSIONS.get(e.kind)
        if method is None:  # found once per kind, not looked up for every expression
            method = _EXPRESSIONS[e.kind] = getattr(_Checker, "ex_" + e.kind)
        return method(self, e, env)

    def target(self, e, env) -> Ty:
        """The type of something being changed (a variable, field or cell); not a read."""
        if e.kind == "name":
            return self._name(e, env, write=True)
        if e.kind == "field":
            return self._field(e, self.expr(e.obj, env), write=True)
        if e.kind == "index":
            obj = self.target(e.obj, env)
            return self._index(e, obj, env)
        return self.expr(e, env)

    def ex_int(self, e, env):
        return INT

    def ex_str(self, e, env):
        return TEXT

    def ex_template(self, e, env):
        for part in e.parts:
            if part.kind == "expr_part":
                self.expr(part.expr, env)
        return TEXT

    def ex_bool(self, e, env):
        return BOOL

    def ex_none(self, e, env):
        return NONE

    def ex_name(self, e, env):
        return self._name(e, env, write=False)

    def _name(self, e: A.Name, env, write: bool) -> Ty:
        name = e.id
        if name in env:
            return env[name]
        if name in self.globals:
            if not write:
                self.reads.add(("global", name))
            else:
                self._unmoved(("global", name), e)
            return self.state_types.get(id(self.globals[name]), UNKNOWN)
        if write and (name in self.consts or name in self.members or name in self.tables
                      or name in BUILTIN_VALUES):
            self.report("E0218", f"`{name}` cannot be changed: only state variables, fields and "
                        "`let` names can", e, hint=f"declare `global {name}: ...` to change it")
            return UNKNOWN
        if name in self.consts:
            return self.const_type(name)
        if name in self.members:
            return Ty("enum", self.members[name])
        if name in self.tables:
            return list_of(Ty("record", self.tables[name].record))
        if name in self.enums:  # an enum's name is the list of its members
            return list_of(Ty("enum", name))
        if name in BUILTIN_VALUE_TYPES:
            return BUILTIN_VALUE_TYPES[name]
        self.report("E0201", f"unknown name `{name}`", e, hint=self._name_hint(name, env))
        return UNKNOWN

    def _name_hint(self, name: str, env) -> str:
        if name in self.defines:
            return f"`{name}` is a define: call it, `{name}(...)`"
        if name in self.procedures:
            return f"`{name}` is a procedure: run it with `do {name}(...)`"
        if name in self.enums:
            members = ", ".join(m.name for m in self.enums[name].members)
            return f"`{name}` is an enum; its members are values: {members}"
        if name in self.records:
            return f"`{name}` is a record; make one with `new {name} {{ ... }}`"
        if name in self.player_vars:
            return f"`{name}` is a player variable: write `p.{name}` for a player `p`"
        return did_you_mean(name, [*env, *self.globals, *self.consts, *self.members,
                                   *self.tables, *BUILTIN_VALUES]) or \
            "declare it with `let`, `const`, `global` or `player`"

    def ex_field(self, e, env):
        if e.obj.kind == "name" and e.obj.id in self.tables and e.obj.id not in env \
                and e.obj.id not in self.globals:
            return self._row(e)
        return self._field(e, self.expr(e.obj, env), write=False)

    def _row(self, e: A.FieldAccess) -> Ty:
        """`cards.guard`: the component of a table's row named `guard`."""
        table = self.tables[e.obj.id]
        keys = [k for k in A.row_keys(table) if k is not None]
        if e.name not in keys:
            self.report("E0206", f"table `{table.name}` has no row `{e.name}`", e,
                        hint=did_you_mean(e.name, keys) or
                        ("rows are named by an `id` column, or by their `name`" if not keys else
                         f"rows of {table.name}: {', '.join(keys[:12])}"))
            return UNKNOWN
        return Ty("record", table.record)

    def _field(self, e: A.FieldAccess, obj: Ty, write: bool) -> Ty:
        name = e.name
        if obj.kind == "player":
            decl = self.player_vars.get(name)
            if decl is None:
                self.report("E0206", f"players have no variable `{name}`", e,
                            hint=did_you_mean(name, self.player_vars) or
                            f"declare it with `player {name}: ...`")
                return UNKNOWN
            if not write:
                self.reads.add(("player", name))
            else:
                self._unmoved(("player", name), e)
            return self.state_types.get(id(decl), UNKNOWN)
        if obj.kind == "record" and obj.name in self.fields:
            fields = self.fields[obj.name]
            if name == A.ROW_KEY and name not in fields and self._names_rows(obj.name):
                return TEXT  # the name of the component's table row (`none` for a row without)
            carried = self.component_vars.get((obj.name, name))
            if carried is not None and name not in fields:
                if not write:
                    self.reads.add(("component", carried.key))
                return self.state_types.get(id(carried), UNKNOWN)
            if name not in fields:
                self.report("E0206", f"a {obj.name} has no field `{name}`", e,
                            hint=did_you_mean(name, fields) or
                            f"fields of {obj.name}: {', '.join(fields) or 'none'}")
                return UNKNOWN
            return fields[name]
        if obj.kind == "enum":
            if name != "name":
                self.report("E0206", f"an enum member has no field `{name}`", e,
                            hint="the only field of an enum member is `.name`")
                return UNKNOWN
            return TEXT
        if obj.kind in ("int", "bool", "text", "list", "grid"):
            self.report("E0206", f"{_a(obj)} has no fields, so `.{name}` cannot be read", e)
            return UNKNOWN
        # Unknown object: the field must at least exist somewhere.
        carried = [d for (_, n), d in self.component_vars.items() if n == name]
        every = set(self.player_vars) | {f for fs in self.fields.values() for f in fs} | {"name"} \
            | {n for _, n in self.component_vars}
        if name not in every:
            self.report("E0206", f"no player variable or record field is named `{name}`", e,
                        hint=did_you_mean(name, every) or
                        f"declare it with `player {name}: ...` or as a record field")
            return UNKNOWN
        if name in self.player_vars and not write:
            self.reads.add(("player", name))
        elif write and not any(name in fs for fs in self.fields.values()):
            self._unmoved(("player", name), e)
        if not write:
            self.reads.update(("component", d.key) for d in carried)
        candidates = {self.state_types.get(id(self.player_vars[name])) if name in
                      self.player_vars else None}
        candidates |= {self.state_types.get(id(d)) for d in carried}
        candidates |= {fs[name] for fs in self.fields.values() if name in fs}
        candidates.discard(None)
        return candidates.pop() if len(candidates) == 1 else UNKNOWN

    def ex_index(self, e, env):
        obj = self.expr(e.obj, env)
        if e.obj.kind == "name" and e.obj.id in self.tables and len(e.indices) == 1 \
                and e.obj.id not in env and e.obj.id not in self.globals:
            key = self.expr(e.indices[0], env)
            if key.kind in ("enum", "text"):  # regions[r]: the row named like r
                return Ty("record", self.tables[e.obj.id].record)
        return self._index(e, obj, env)

    def _index(self, e: A.Index, obj: Ty, env) -> Ty:
        kinds = [self.expr(i, env) for i in e.indices]
        if obj.kind == "map":  # map[key]: the value, or none when the key is absent
            if len(kinds) != 1:
                self.report("E0210", "a map value is written `map[key]` with one key", e)
            return (obj.elem or UNKNOWN).maybe()
        if len(kinds) == 1 and kinds[0].kind == "enum" and obj.kind in ("record", "unknown"):
            return self._field_by_member(e, obj, kinds[0].name)
        if obj.kind == "record" and len(kinds) == 1 and not kinds[0].known:
            return UNKNOWN  # `t[k]` with `k` a parameter: the member is known when it runs
        if obj.kind == "record":
            shown = " and ".join(_a(k) for k in kinds)
            self.report("E0210", f"a {obj.name}'s field is chosen by a member of an enum, not by "
                        f"{shown}", e, hint="write `record.field`, or `record[k]` with `k` a "
                        "member of an enum whose members name fields of the record")
            return UNKNOWN
        if obj.kind in ("list", "unknown") and len(kinds) == 1 and kinds[0].kind == "list":
            # xs[1..3]: a list of positions picks several elements
            self.want(e.indices[0], elem_of(kinds[0]), INT, "a position")
            return obj
        for i, t in zip(e.indices, kinds):
            self.want(i, t, INT, "a position")
        if obj.kind == "grid" and len(e.indices) != 2:
            self.report("E0210", "a grid cell is written `grid[row, column]`", e)
        elif obj.kind == "list" and len(e.indices) != 1:
            self.report("E0210", "a list element is written `list[n]` with one number", e)
        elif obj.kind in SCALARS:
            self.report("E0210", f"{_a(obj)} cannot be indexed with `[...]`", e)
            return UNKNOWN
        return elem_of(obj)

    def _unmoved(self, key: tuple[str, str], node) -> None:
        """A holding of pieces changes only by moving pieces: set, increase, add... would make
        or lose some."""
        kind = self.holdings.get(key)
        if kind is not None:
            self.report("E0240", f"`{key[1]}` holds {kind}, which only moving pieces changes",
                        node, hint=f"write `move n {kind} from A to B` (or `move up to n`, "
                                   f"`move all`): pieces are never made or lost")

    def _field_by_member(self, e: A.Index, obj: Ty, enum: str) -> Ty:
        """`tile[k]`, with `k` a member of an enum: the field named like `k`. The record has a
        field for every member, all of one type, so that any member reads a field."""
        if obj.kind == "unknown" or obj.name not in self.fields:
            return UNKNOWN
        fields = self.fields[obj.name]
        members = [m.name for m in self.enums[enum].members] if enum in self.enums else []
        missing = [m for m in members if m not in fields]
        if missing:
            self.report("E0206", f"a {obj.name} has no field `{missing[0]}`, so it cannot be read "
                        f"by a {enum}", e, hint=f"`record[k]` reads the field named like the "
                        f"member `k`: give {obj.name} a field for each member of {enum} "
                        f"({', '.join(members)})")
            return UNKNOWN
        types = {str(fields[m]): fields[m] for m in members}
        if len(types) > 1:
            shown = ", ".join(f"`{m}` is {fields[m]}" for m in members)
            self.report("E0210", f"the fields of {obj.name} named like the members of {enum} "
                        f"have different types ({shown})", e,
                        hint="`record[k]` needs one type for every member's field")
            return UNKNOWN
        return next(iter(types.values())) if types else UNKNOWN

    def ex_call(self, e: A.Call, env):
        args = [self.expr(a, env) for a in e.args]
        name = e.func
        define = self.defines.get(name)
        if define is not None:
            if len(define.params) != len(args):
                self.report("E0209", f"`{name}` takes {_values(len(define.params))}, got "
                            f"{len(args)}", e, related=[self._related(define, "the define")])
            return self.define_type(name)
        if name in BUILTIN_FUNCTIONS:
            low, high = BUILTIN_FUNCTIONS[name]
            if len(args) < low or (high is not None and len(args) > high):
                wanted = arity_text(name) + (" value" if arity_text(name) == "1" else " values")
                self.report("E0209", f"`{name}` takes {wanted}, got {len(args)}", e)
                return UNKNOWN
            return self._builtin(e, args)
        hint = (f"`{name}` is a procedure: run it with `do {name}(...)`"
                if name in self.procedures else
                did_you_mean(name, [*self.defines, *BUILTIN_FUNCTIONS]) or
                "declare it with `define`")
        self.report("E0202", f"unknown function `{name}`", e, hint=hint)
        return UNKNOWN

    def _builtin(self, e: A.Call, args: list[Ty]) -> Ty:
        name = e.func
        if name in PLAYER_ARGUMENTS:
            for node, t in zip(e.args, args):
                self.want(node, t, PLAYER, f"`{name}`")
        elif name in INT_ARGUMENTS:
            for node, t in zip(e.args, args):
                self.want(node, t, INT, f"`{name}`")
        elif name in ("top", "last", "shuffled", "index_of", "sum", "largest_group", "join") or (
                name == "size" and args[0].kind != "text"):
            self.collection(e.args[0], args[0], f"`{name}`")
        if name == "join" and len(args) > 1:
            self.want(e.args[1], args[1], TEXT, "`join`'s separator")
        if name == "moved_at" and args[0].known and args[0].kind not in ("record", "none"):
            self.report("E0210", f"`moved_at` tells when a component last moved, but this is "
                        f"{_a(args[0])}", e.args[0],
                        hint="give it a component: an element of a zone filled from a table")
        if name == "turned":
            self.collection(e.args[0], args[0], "`turned`")
            self.want(e.args[1], args[1], INT, "`turned`'s number of quarter turns")
            return args[0] if args[0].kind == "list" else list_of(list_of(elem_of(args[0])))
        first = args[0] if args else UNKNOWN
        if name in ("top", "last"):
            return elem_of(first).maybe()
        if name == "shuffled":
            return first
        if name in ("max", "min"):
            return elem_of(first) if len(args) == 1 else first
        if name in ("next", "previous"):
            return PLAYER
        if name in ("clockwise", "counterclockwise"):
            return list_of(PLAYER)
        if name == "is_automaton":
            return BOOL
        if name in ("text", "join"):
            return TEXT
        if name == "keys":
            return list_of(UNKNOWN)
        if name == "values":
            return list_of(args[0].elem or UNKNOWN) if args[0].kind == "map" else list_of(UNKNOWN)
        return INT  # size, abs, index_of, random_int, seat, changed_at, moved_at, ..., sum

    def ex_unary(self, e, env):
        t = self.expr(e.operand, env)
        if e.op == "not":
            if t.known and t.kind not in ("bool", "none"):
                self.report("E0211", f"`not` needs a yes/no value, but this is {_a(t)}", e.operand)
            return BOOL
        self.want(e.operand, t, INT, "`-`")
        return INT

    def ex_binary(self, e: A.Binary, env):
        op = e.op
        if op in ("and", "or"):
            self.condition(e.left, env, f"`{op}`")
            self.condition(e.right, env, f"`{op}`")
            return BOOL
        a = self.expr(e.left, env)
        b = self.expr(e.right, env)
        if op in ("==", "!="):
            if not same_shape(a, b):
                self.report("E0212", f"{_a(a)} is compared with {_a(b)}: they are never equal", e,
                            hint=_compare_hint(a, b))
            return BOOL
        if op in ("in", "not in"):
            self.collection(e.right, b, f"`{op}`")
            if b.kind in ("list", "grid") and not same_shape(a, elem_of(b)):
                self.report("E0212", f"{_a(a)} is looked for in a {b}: it is never there", e)
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if a.kind == "enum" or b.kind == "enum":
                if not same_shape(a, b):
                    self.report("E0212", f"{_a(a)} is compared with {_a(b)}", e,
                                hint=_compare_hint(a, b))
            else:
                self.want(e.left, a, INT, f"`{op}`")
                self.want(e.right, b, INT, f"`{op}`")
            return BOOL
        if op == "+" and (a.kind in ("list", "text") or b.kind in ("list", "text")):
            if a.known and b.known and a.kind != "none" and b.kind != "none" \
                    and a.kind != b.kind:
                self.report("E0210", f"`+` cannot join {_a(a)} and {_a(b)}", e,
                            hint="`+` adds two numbers, joins two lists or two texts; "
                            "use `text(x)` to turn a value into text")
                return UNKNOWN
            return merge(a, b) if a.kind == b.kind else UNKNOWN
        self.want(e.left, a, INT, f"`{op}`")
        self.want(e.right, b, INT, f"`{op}`")
        return list_of(INT) if op == ".." else INT

    def ex_conditional(self, e, env):
        self.condition(e.test, env, "`if ... then`")
        return merge(self.expr(e.then, env), self.expr(e.otherwise, env))

    def ex_list(self, e, env):
        types = [self.expr(item, env) for item in e.items]
        t = types[0] if types else UNKNOWN
        for other in types[1:]:
            t = merge(t, other)
        return list_of(t)

    def ex_list_comp(self, e, env):
        inner = self.bind_all([e.binding, *e.more], env)
        if e.where is not None:
            self.condition(e.where, inner, "`where`")
        return list_of(self.expr(e.element, inner))

    def ex_aggregate(self, e, env):
        inner = self.bind_all([e.binding, *e.more], env)
        if e.where is not None:
            self.condition(e.where, inner, "`where`")
        t = self.expr(e.element, inner)
        if e.func == "sum":
            self.want(e.element, t, INT, "`sum`")
            return INT
        return t.maybe()

    def ex_quantifier(self, e, env):
        inner = self.bind(e.binding, env)
        if e.where is not None:
            self.condition(e.where, inner, "`where`")
        element = inner[e.binding.name]
        return {"count": INT, "any": BOOL, "all": BOOL, "first": element.maybe(),
                "filter": list_of(element)}[e.func]

    def ex_sole(self, e, env):
        inner = self.bind(e.binding, env)
        if e.where is not None:
            self.condition(e.where, inner, "`where`")
        for k in e.keys:
            t = self.expr(k, inner)
            if t.known and t.kind not in ("int", "bool", "enum", "player", "none"):
                self.report("E0210", f"`{e.func}` compares numbers, enum members, yes/no or "
                            f"players, but this key is {_a(t)}", k,
                            hint="compare a number: a count, a sum, a field that holds an int")
        return inner[e.binding.name].maybe()

    def ex_sort(self, e, env):
        inner = self.bind(e.binding, env)
        self.keys(e.keys, inner)
        return list_of(inner[e.binding.name])

    def ex_match(self, e, env):
        subject = self.expr(e.subject, env)
        result = NONE
        for case in e.cases:
            if case.value is not None:
                t = self.expr(case.value, env)
                if not same_shape(subject, t):
                    self.report("E0212", f"this case is {_a(t)} but the value matched is "
                                f"{_a(subject)}", case.value)
            result = merge(result, self.expr(case.result, env))
        return result

    def ex_map_lit(self, e: A.MapLit, env):
        value = UNKNOWN
        for i, entry in enumerate(e.entries):
            self.expr(entry.key, env)
            t = self.expr(entry.value, env)
            value = t if i == 0 else merge(value, t)
        return Ty("map", elem=value)

    def ex_record_lit(self, e: A.RecordLit, env):
        fields = self.fields.get(e.record)
        values = {f.name: (f, self.expr(f.value, env)) for f in e.fields}
        if fields is None:
            self.report("E0205", f"unknown record `{e.record}`", e,
                        hint=did_you_mean(e.record, self.records) or "declare it with `record`")
            return UNKNOWN
        for name, (init, t) in values.items():
            if name not in fields:
                self.report("E0206", f"a {e.record} has no field `{name}`", init,
                            hint=did_you_mean(name, fields) or
                            f"fields of {e.record}: {', '.join(fields) or 'none'}")
            elif not same_shape(t, fields[name]):
                self.report("E0220", f"field `{name}` of {e.record} holds {fields[name]}, "
                            f"not {t}", init.value)
        return Ty("record", e.record)

    # ------------------------------------------------------------ inferred declarations
    def const_type(self, name: str) -> Ty:
        return self._inferred(name, self.const_types,
                              lambda: self.expr(self.consts[name].value, {}))

    def define_type(self, name: str) -> Ty:
        d = self.defines[name]
        return self._inferred(name, self.define_types,
                              lambda: self.expr(d.body, {p: UNKNOWN for p in d.params}))

    def _inferred(self, name, cache, compute) -> Ty:
        if name in cache:
            return cache[name]
        key = (id(cache), name)
        if key in self.in_progress:
            return UNKNOWN  # recursive: the type is whatever the base case gives
        self.in_progress.add(key)
        self.quiet += 1
        try:
            cache[name] = compute()
        finally:
            self.quiet -= 1
            self.in_progress.discard(key)
        return cache[name]

    # ------------------------------------------------------------------------ warnings
    def _unread_state(self) -> None:
        for scope, table in (("global", self.globals), ("player", self.player_vars)):
            for name, decl in table.items():
                if (scope, name) not in self.reads and not decl.shown:
                    how = f"`{name}`" if scope == "global" else f"`p.{name}`"
                    self.report("W0201", f"state {how} is never read", decl, severity="warning",
                                hint="use it in a rule, a condition or `winner`; mark it "
                                     "`shown` if it is kept only for the players to see; or "
                                     "remove it")
        for decl in self.component_vars.values():
            if ("component", decl.key) not in self.reads and not decl.shown:
                self.report("W0201", f"state `.{decl.name}` on {decl.record} is never read",
                            decl, severity="warning",
                            hint="use it in a rule, a condition or `winner`; mark it `shown` "
                                 "if it is kept only for the players to see; or remove it")


def _a(t: Ty) -> str:
    """A type with its article, for messages: "an int", "a list of Card"."""
    text = str(t)
    if t.kind == "none":
        return "none"
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def _values(n: int) -> str:
    return "1 value" if n == 1 else f"{n} values"


def _compare_hint(a: Ty, b: Ty) -> str | None:
    if {a.kind, b.kind} == {"enum", "int"}:
        return "enum members are names, not numbers: compare with a member of the enum"
    if {a.kind, b.kind} == {"enum", "text"}:
        return "enum members are written without quotes"
    return None
