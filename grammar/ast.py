"""The typed AST of the rules language: one pydantic class per construct.

Every node carries a required ``kind`` tag (so the JSON Schema lists it as required and unions
discriminate on it) and an optional ``span``. Spans are left out of the document that is checked
against the JSON Schema (they are large and carry no meaning for validity).
"""
from __future__ import annotations

import re
import sys

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


def _restore(cls, fields: dict, fields_set: set, extra=None, private=None):
    """A node as pickled by `_Pickled`: the object it was, without pydantic's own route."""
    node = object.__new__(cls)
    object.__setattr__(node, "__dict__", fields)
    object.__setattr__(node, "__pydantic_fields_set__", fields_set)
    object.__setattr__(node, "__pydantic_extra__", extra)
    object.__setattr__(node, "__pydantic_private__", private)
    return node


class _Pickled:
    """Pickled as one call with the node's fields: parsed files are cached on disk (grammar/
    cache.py), and a file's tree is tens of thousands of nodes."""

    def __reduce__(self):
        extra, private = self.__pydantic_extra__, self.__pydantic_private__
        if extra is None and private is None:
            return (_restore, (type(self), self.__dict__, self.__pydantic_fields_set__))
        return (_restore, (type(self), self.__dict__, self.__pydantic_fields_set__, extra,
                           private))


_SPAN_FIELDS = ["line", "column", "end_line", "end_column", "file"]
# The fields set of the spans the parser makes, every one: one set for all of them. A span is
# frozen, so pydantic never adds to it (a copy of a span copies the set before changing it).
SPAN_FIELDS_SET = set(_SPAN_FIELDS)


def _restore_span(line, column, end_line, end_column, file):
    """A span as pickled by `Span.__reduce__` (every field set, as the parser makes them)."""
    span = object.__new__(Span)
    object.__setattr__(span, "__dict__", {"line": line, "column": column, "end_line": end_line,
                                          "end_column": end_column, "file": file})
    object.__setattr__(span, "__pydantic_fields_set__", SPAN_FIELDS_SET)
    object.__setattr__(span, "__pydantic_extra__", None)
    object.__setattr__(span, "__pydantic_private__", None)
    return span


class Span(_Pickled, BaseModel):
    """Where a node was written: its file, 1-based line and column, end exclusive. The file
    travels with the node, so a node merged from a variant still says where it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    line: int
    column: int
    end_line: int
    end_column: int
    # Not written out by `rulebook parse` (the file parsed is the file of every span there).
    file: str | None = Field(default=None, exclude=True)

    def __reduce__(self):
        fields = self.__dict__
        if len(self.__pydantic_fields_set__) == 5 and list(fields) == _SPAN_FIELDS \
                and self.__pydantic_extra__ is None and self.__pydantic_private__ is None:
            return (_restore_span, tuple(fields.values()))  # one tuple: a file has ~60,000
        return super().__reduce__()


def file_of(node) -> str | None:
    """The file a node was written in (None for nodes made by the tools, not read)."""
    span = getattr(node, "span", None)
    return span.file if span is not None else None


class Node(_Pickled, BaseModel):
    # Schemas are built on first use, not at import: ~100 mutually recursive classes would
    # otherwise cost seconds at every start of the command.
    model_config = ConfigDict(extra="forbid", defer_build=True)
    span: Span | None = None


class Meta(_Pickled, BaseModel):
    """Citations of the rulebook and the assumption, if any, that a declaration rests on."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    cite: list[str] = []
    assumed: str | None = None


# ------------------------------------------------------------------------------------ types
class NamedType(Node):
    kind: Literal["named_type"]
    name: str


class OptionalType(Node):
    kind: Literal["optional_type"]
    name: str


class ListType(Node):
    kind: Literal["list_type"]
    element: TypeExpr


class DeckType(Node):
    kind: Literal["deck_type"]
    element: TypeExpr


class GridType(Node):
    """``grid R by C of T``: the sizes are numbers or expressions of constants, known when the
    game starts (``grid frame_rows by frame_columns of Cell?``)."""

    kind: Literal["grid_type"]
    rows: Expr
    columns: Expr
    element: TypeExpr


class MapType(Node):
    """``map of K to V``: a value for each key."""

    kind: Literal["map_type"]
    key: TypeExpr
    value: TypeExpr


TypeExpr = Annotated[
    Union[NamedType, OptionalType, ListType, DeckType, GridType, MapType],
    Field(discriminator="kind"),
]
"""A type written in a declaration: ``int``, ``Card?``, ``list of Card``, ``grid 3 by 5 of Card?``."""


# ------------------------------------------------------------------------------ expressions
class IntLit(Node):
    kind: Literal["int"]
    value: int


class StrLit(Node):
    kind: Literal["str"]
    value: str


class TextPart(Node):
    kind: Literal["text_part"]
    text: str


class ExprPart(Node):
    kind: Literal["expr_part"]
    expr: Expr


class Template(Node):
    """A string with ``{expression}`` holes, used by labels and log lines."""

    kind: Literal["template"]
    parts: list[Annotated[Union[TextPart, ExprPart], Field(discriminator="kind")]]


class BoolLit(Node):
    kind: Literal["bool"]
    value: bool


class NoneLit(Node):
    kind: Literal["none"]


class Name(Node):
    kind: Literal["name"]
    id: str


class FieldAccess(Node):
    kind: Literal["field"]
    obj: Expr
    name: str


class Index(Node):
    kind: Literal["index"]
    obj: Expr
    indices: list[Expr]


class Call(Node):
    kind: Literal["call"]
    func: str
    args: list[Expr]


class Unary(Node):
    kind: Literal["unary"]
    op: Literal["-", "not"]
    operand: Expr


BinaryOp = Literal[
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "and", "or", ".."
]


class Binary(Node):
    kind: Literal["binary"]
    op: BinaryOp
    left: Expr
    right: Expr


class Conditional(Node):
    kind: Literal["conditional"]
    test: Expr
    then: Expr
    otherwise: Expr


class ListLit(Node):
    kind: Literal["list"]
    items: list[Expr]


class Binding(Node):
    """``NAME in EXPR``: a name that takes each value of a list in turn."""

    kind: Literal["binding"]
    name: str
    source: Expr


class ListComp(Node):
    """``[e for x in xs, y in ys where c]``: one element per combination of the bindings."""

    kind: Literal["list_comp"]
    element: Expr
    binding: Binding
    more: list[Binding] = []
    where: Expr | None = None


class Aggregate(Node):
    """``sum(e for x in xs where c)``, also ``max`` and ``min``."""

    kind: Literal["aggregate"]
    func: Literal["sum", "max", "min"]
    element: Expr
    binding: Binding
    more: list[Binding] = []
    where: Expr | None = None


class Quantifier(Node):
    """``count(x in xs where c)``, also ``any``, ``all``, ``first``, ``filter``."""

    kind: Literal["quantifier"]
    func: Literal["count", "any", "all", "first", "filter"]
    binding: Binding
    where: Expr | None = None


class Sole(Node):
    """``sole_max(x in xs where c by k)``: the one element with the greatest ``k`` (``sole_min``:
    the least), later keys deciding between equal earlier ones; ``none`` when no element qualifies
    or several share the best keys."""

    kind: Literal["sole"]
    func: Literal["sole_max", "sole_min"]
    binding: Binding
    where: Expr | None = None
    keys: list[Expr]


class SortKey(Node):
    kind: Literal["sort_key"]
    expr: Expr
    descending: bool = False
    ascending: bool = False  # `ascending` written out (the default): kept by the formatter


class RandomKey(Node):
    kind: Literal["random_key"]


AnySortKey = Annotated[Union[SortKey, RandomKey], Field(discriminator="kind")]


class Sort(Node):
    kind: Literal["sort"]
    binding: Binding
    keys: list[AnySortKey]


class MatchCase(Node):
    kind: Literal["case"]
    value: Expr | None  # None: the ``else`` case
    result: Expr


class Match(Node):
    kind: Literal["match"]
    subject: Expr
    cases: list[MatchCase]


class FieldInit(Node):
    kind: Literal["field_init"]
    name: str
    value: Expr


class RecordLit(Node):
    kind: Literal["record_lit"]
    record: str
    fields: list[FieldInit]


class MapEntry(Node):
    kind: Literal["map_entry"]
    key: Expr
    value: Expr


class MapLit(Node):
    """``map { rich: 1, sweet: 0 }``."""

    kind: Literal["map_lit"]
    entries: list[MapEntry]


Expr = Annotated[
    Union[
        IntLit, StrLit, Template, BoolLit, NoneLit, Name, FieldAccess, Index, Call, Unary,
        Binary, Conditional, ListLit, ListComp, Aggregate, Quantifier, Sole, Sort, Match,
        RecordLit, MapLit,
    ],
    Field(discriminator="kind"),
]
"""Any expression: it computes a value and changes nothing."""


# ------------------------------------------------------------------------------- statements
class Let(Node):
    kind: Literal["let"]
    name: str
    value: Expr
    meta: Meta = Meta()


class Set(Node):
    kind: Literal["set"]
    target: Expr
    value: Expr
    meta: Meta = Meta()


class Change(Node):
    kind: Literal["change"]
    op: Literal["increase", "decrease"]
    target: Expr
    amount: Expr
    meta: Meta = Meta()


class Move(Node):
    kind: Literal["move"]
    what: Literal["one", "all", "top"]
    item: Expr | None = None  # the item (one) or how many (top)
    source: Expr | None = None  # None: a component taken from whichever zone holds it
    dest: Expr
    place: Literal["top", "bottom"] | None = None  # None: at the end (bottom)
    meta: Meta = Meta()


class MovePieces(Node):
    """``move n K from A to B``: pieces of kind K counted in holdings; ``up_to`` moves as many as
    A holds when it holds fewer than n, ``all`` everything A holds."""

    kind: Literal["move_pieces"]
    amount: Literal["exactly", "up_to", "all"]
    count: Expr | None = None  # None with `all`
    pieces: str
    source: Expr
    dest: Expr
    meta: Meta = Meta()


class Add(Node):
    """``add x to xs``: put a value into a list (at the end unless ``at top``)."""

    kind: Literal["add"]
    value: Expr
    dest: Expr
    place: Literal["top", "bottom"] | None = None
    meta: Meta = Meta()


class Remove(Node):
    """``remove x from xs``: take one value out of a list (it must be there)."""

    kind: Literal["remove"]
    value: Expr
    source: Expr
    meta: Meta = Meta()


class Shuffle(Node):
    kind: Literal["shuffle"]
    target: Expr
    meta: Meta = Meta()


class Slide(Node):
    """``slide g up``: the elements of each column (down: toward the last row; left, right:
    each row's) move toward that side over the empty cells, keeping their order."""

    kind: Literal["slide"]
    target: Expr
    toward: Literal["up", "down", "left", "right"]
    meta: Meta = Meta()


class Branch(Node):
    kind: Literal["branch"]
    test: Expr
    body: list[Stmt]
    meta: Meta = Meta()  # an `else if`'s own citations (the first branch's are the `if`'s)


class If(Node):
    kind: Literal["if"]
    branches: list[Branch]
    otherwise: list[Stmt] | None = None
    meta: Meta = Meta()


class For(Node):
    kind: Literal["for"]
    binding: Binding
    where: Expr | None = None
    body: list[Stmt]
    meta: Meta = Meta()


class Repeat(Node):
    kind: Literal["repeat"]
    count: Expr
    body: list[Stmt]
    meta: Meta = Meta()


class While(Node):
    kind: Literal["while"]
    test: Expr
    body: list[Stmt]
    meta: Meta = Meta()


class Option(Node):
    kind: Literal["option"]
    name: str
    bindings: list[Binding] = []
    where: Expr | None = None
    label: Template | None = None
    body: list[Stmt]
    meta: Meta = Meta()


class Choose(Node):
    """A decision point: the player picks one legal option; ``optional`` adds "skip";
    ``confirm``: a person is asked even when one option is legal; ``repeat choose`` asks again
    until the player picks the "done" it adds (or nothing else is legal)."""

    kind: Literal["choose"]
    player: Expr
    prompt: Template | None = None
    optional: bool = False
    confirm: bool = False
    repeat: bool = False
    options: list[Option]
    otherwise: list[Stmt] | None = None
    meta: Meta = Meta()


COMPOSE_DONE = "done"  # the option that confirms a composed decision
COMPOSE_START_OVER = "start_over"  # the option that starts it over


class ComposeStep(Node):
    """One step of a composed decision: asked (its options) until its condition holds."""

    kind: Literal["compose_step"]
    name: str
    prompt: Template | None = None
    until: Expr
    options: list[Option]
    meta: Meta = Meta()


class Compose(Node):
    """A decision built in steps: the first step whose `until` does not hold yet is asked, with
    the `showing` values (a preview, to the decider only); once every step holds, the player
    confirms (`done`) or starts over (`start_over` runs the `start over` block)."""

    kind: Literal["compose"]
    player: Expr
    prompt: Template | None = None
    showing: list[Expr] = []
    steps: list[ComposeStep]
    start_over: list[Stmt] | None = None
    meta: Meta = Meta()

    @property
    def options(self) -> list[Option]:
        """Every step's options, in order (what automata and checks look through)."""
        return [o for step in self.steps for o in step.options]


class Simultaneously(Node):
    kind: Literal["simultaneously"]
    binding: Binding
    body: list[Stmt]
    meta: Meta = Meta()


class Turns(Node):
    """Players act one at a time in the given order, skipping those who passed, until all passed."""

    kind: Literal["turns"]
    binding: Binding
    body: list[Stmt]
    meta: Meta = Meta()


class TurnsFrom(Node):
    """``turns p from a then e until c``: turns whose order the rules compute: p starts as a;
    after each turn the next player is e (read after the turn), until c holds."""

    kind: Literal["turns_from"]
    name: str
    start: Expr
    then: Expr
    until: Expr
    body: list[Stmt]
    meta: Meta = Meta()


class Phase(Node):
    kind: Literal["phase"]
    name: str
    when: Expr | None = None
    body: list[Stmt]
    meta: Meta = Meta()


class Step(Node):
    """A named part of a block that a variant can replace or extend."""

    kind: Literal["step"]
    name: str
    body: list[Stmt]
    meta: Meta = Meta()


class Rounds(Node):
    kind: Literal["rounds"]
    mode: Literal["forever", "until", "count"]
    expr: Expr | None = None
    body: list[Stmt]
    meta: Meta = Meta()


class Turn(Node):
    kind: Literal["turn"]
    player: Expr
    body: list[Stmt]
    meta: Meta = Meta()


class EndGame(Node):
    kind: Literal["end_game"]
    meta: Meta = Meta()


class Stop(Node):
    kind: Literal["stop"]


class Pass(Node):
    kind: Literal["pass"]


class Log(Node):
    """A line in the game log: public, or only for the players named after ``to``."""

    kind: Literal["log"]
    message: Template
    to: Expr | None = None
    meta: Meta = Meta()


class Reveal(Node):
    """``reveal x [to p] [until changed]``: lasting until ``hide x``, or only for the value x
    holds now."""

    kind: Literal["reveal"]
    target: Expr
    to: Expr | None = None
    until_changed: bool = False
    meta: Meta = Meta()


class Hide(Node):
    kind: Literal["hide"]
    target: Expr
    meta: Meta = Meta()


class Trigger(Node):
    kind: Literal["trigger"]
    event: str
    args: list[Expr]
    meta: Meta = Meta()


class Award(Node):
    """Rank players by keys and give the amounts in order; ``ties`` says how equal ranks share."""

    kind: Literal["award"]
    amounts: Expr
    binding: Binding
    where: Expr | None = None
    keys: list[AnySortKey]
    ties: Literal["share", "split", "none", "all"]
    body: list[Stmt]
    meta: Meta = Meta()


class CallProcedure(Node):
    kind: Literal["do"]
    name: str
    args: list[Expr]
    meta: Meta = Meta()


class Require(Node):
    kind: Literal["require"]
    test: Expr
    message: Template
    meta: Meta = Meta()


class MatchArm(Node):
    """One arm of a `match` statement; no value: `else`."""

    kind: Literal["match_arm"]
    value: Expr | None = None
    body: list[Stmt]


class MatchStmt(Node):
    """``match e { v: { ... }  else: { ... } }``: the first arm whose value equals e runs."""

    kind: Literal["match_stmt"]
    subject: Expr
    arms: list[MatchArm]
    meta: Meta = Meta()


class Rotate(Node):
    """``rotate hand among players``: each player's value goes to the next player of the list."""

    kind: Literal["rotate"]
    name: str
    among: Expr
    meta: Meta = Meta()


class Cited(Node):
    """``cite "Section" { ... }``: statements that all encode the cited section."""

    kind: Literal["cited"]
    body: list[Stmt]
    meta: Meta = Meta()


Stmt = Annotated[
    Union[
        Let, Set, Change, Move, Add, Remove, Shuffle, If, For, Repeat, While, Choose, Compose,
        Simultaneously, Turns,
        TurnsFrom, Phase, Step, Rounds, Turn, EndGame, Stop, Pass, Log, Reveal, Hide, Trigger, Award,
        CallProcedure, Require, MatchStmt, Rotate, Cited, Slide, MovePieces,
    ],
    Field(discriminator="kind"),
]
"""Any statement: something the game does."""


# ----------------------------------------------------------------------------- declarations
class GameHeader(Node):
    kind: Literal["game"]
    title: str
    min_players: int
    max_players: int
    source: str | None = None
    meta: Meta = Meta()


class VariantHeader(Node):
    kind: Literal["variant"]
    title: str
    extends: str
    min_players: int | None = None
    max_players: int | None = None
    source: str | None = None
    meta: Meta = Meta()


class EnumMember(Node):
    kind: Literal["enum_member"]
    name: str
    label: str | None = None


class EnumDecl(Node):
    kind: Literal["enum"]
    name: str
    members: list[EnumMember]
    meta: Meta = Meta()


class FieldDecl(Node):
    kind: Literal["field_decl"]
    name: str
    type: TypeExpr


class RecordDecl(Node):
    """A kind of component; ``show "..."`` is how one reads in lists, labels and holes."""

    kind: Literal["record"]
    name: str
    show: Template | None = None
    fields: list[FieldDecl]
    meta: Meta = Meta()


Literal_ = Union[int, str, bool, None]


class TableRow(Node):
    kind: Literal["row"]
    values: list[Literal_]


class TableDecl(Node):
    """A catalogue: the actual components, one row per kind, with an optional ``count`` column."""

    kind: Literal["table"]
    name: str
    record: str
    columns: list[str]
    rows: list[TableRow]
    meta: Meta = Meta()


ROW_KEY = "id"  # a table column that names its rows (`cards.guard`); not a field


def row_keys(table: TableDecl) -> list[str | None]:
    """Each row's name: its `id` cell, else its `name` field written as a word (`"gold leaf"` is
    `gold_leaf`, a second `gin` is `gin_2`); None when the rows have neither."""
    if ROW_KEY in table.columns:
        at = table.columns.index(ROW_KEY)
        return [str(row.values[at]) if row.values[at] is not None else None for row in table.rows]
    if "name" not in table.columns:
        return [None] * len(table.rows)
    at = table.columns.index("name")
    keys, seen = [], {}
    for row in table.rows:
        value = row.values[at]
        if not isinstance(value, str) or not value.strip():
            keys.append(None)
            continue
        word = re.sub(r"\W+", "_", value.strip().lower()).strip("_") or "row"
        seen[word] = seen.get(word, 0) + 1
        keys.append(word if seen[word] == 1 else f"{word}_{seen[word]}")
    return keys


class ConstDecl(Node):
    kind: Literal["const"]
    name: str
    value: Expr
    meta: Meta = Meta()


class StateOptions(Node):
    """What a declared value is and how it is kept and shown (the fields of ``StateDecl`` and
    ``ComponentStateDecl``; the checker says which options fit each)."""

    name: str
    type: TypeExpr
    initial: Expr | None = None
    visibility: Literal["public", "owner", "secret"] = "public"
    # `top N public`: who may not see the list still sees its first N elements (a face-up top)
    public_top: int | None = None
    # `shape public` / `shape secret`: whether who may not see the value sees where it holds
    # something (a list's size, a grid's occupied cells, a map's keys, whether it is none);
    # None: the default (shown for a list or deck, hidden for anything else)
    shape: Literal["public", "secret"] | None = None
    at_least: Expr | None = None
    at_most: Expr | None = None
    stacked: bool = False
    shown: bool = False   # kept to be shown: listed at the table even when empty or zero
    sorted: bool = False  # a list shown at the table in order of how its elements read
    internal: bool = False  # bookkeeping: never listed at the table, whatever it holds
    meta: Meta = Meta()


class StateDecl(StateOptions):
    kind: Literal["state"]
    scope: Literal["global", "player"]


class ComponentStateDecl(StateOptions):
    """``on Record name: type``: a value that every component of that record carries with it,
    kept through `move`."""

    kind: Literal["component_state"]
    record: str

    @property
    def key(self) -> str:
        """Where the engine keeps it among the globals: never a name a rule can write."""
        return f"{self.record}.{self.name}"


class DefineDecl(Node):
    kind: Literal["define"]
    name: str
    params: list[str]
    body: Expr
    meta: Meta = Meta()


class ProcedureDecl(Node):
    kind: Literal["procedure"]
    name: str
    params: list[str]
    body: list[Stmt]
    meta: Meta = Meta()


class SetupDecl(Node):
    kind: Literal["setup"]
    body: list[Stmt]
    meta: Meta = Meta()


class PlayDecl(Node):
    kind: Literal["play"]
    body: list[Stmt]
    meta: Meta = Meta()


class ScoringDecl(Node):
    kind: Literal["scoring"]
    body: list[Stmt]
    meta: Meta = Meta()


class WinnerDecl(Node):
    kind: Literal["winner"]
    binding: Binding
    keys: list[AnySortKey]
    meta: Meta = Meta()


class ReactionDecl(Node):
    kind: Literal["reaction"]
    name: str
    bindings: list[Binding]
    condition: Expr
    body: list[Stmt]
    meta: Meta = Meta()


class EventDecl(Node):
    kind: Literal["event"]
    name: str
    params: list[str]
    body: list[Stmt]
    meta: Meta = Meta()


class ModifierDecl(Node):
    kind: Literal["modifier"]
    name: str
    target: str
    params: list[str]
    op: Literal["+=", "-=", "*=", ":="]
    value: Expr
    when: Expr | None = None
    meta: Meta = Meta()


class Policy(Node):
    """``prefer OPTION [in NAME] [by keys]``: with ``in``, only for the decisions written inside
    the procedure, event, reaction, phase or step of that name."""

    kind: Literal["policy"]
    option: str
    within: str | None = None
    keys: list[AnySortKey] = []


class AutomatonOtherwise(Node):
    """``otherwise first|random|error``: an automaton's decision that no ``prefer`` line covers
    takes the first legal option, a random one, or stops the game with an error."""

    kind: Literal["automaton_otherwise"]
    mode: Literal["first", "random", "error"]
    meta: Meta = Meta()


class AutomatonDecl(Node):
    kind: Literal["automaton"]
    name: str
    policies: list[Policy]
    meta: Meta = Meta()
    otherwise: AutomatonOtherwise | None = None  # None: the first legal option, unsaid


class InvariantDecl(Node):
    kind: Literal["invariant"]
    name: str
    description: str
    test: Expr
    when: Expr | None = None  # checked only at moments when this holds (None: always)
    meta: Meta = Meta()


class PiecesDecl(Node):
    """``pieces K: n [per player] in H``: n pieces of kind K (n of each player's), all starting
    in the holding H; holdings are state variables of type K, changed only by moving pieces."""

    kind: Literal["pieces"]
    name: str
    total: Expr
    per_player: bool = False
    start: str
    meta: Meta = Meta()


Declaration = Annotated[
    Union[
        EnumDecl, RecordDecl, TableDecl, ConstDecl, StateDecl, DefineDecl, ProcedureDecl,
        SetupDecl, PlayDecl, ScoringDecl, WinnerDecl, ReactionDecl, EventDecl, ModifierDecl,
        AutomatonDecl, InvariantDecl, ComponentStateDecl, PiecesDecl,
    ],
    Field(discriminator="kind"),
]
"""Anything declared at the top level of a rules file."""


class Override(Node):
    """``override <declaration>``: a variant replaces the base game's declaration of that name."""

    kind: Literal["override"]
    declaration: Declaration


class StepPatch(Node):
    """``override/before/after step NAME [when c] {...}``: a variant changes one named step;
    with ``when``, only where ``c`` holds (an override falls through to the step otherwise)."""

    kind: Literal["step_patch"]
    mode: Literal["override", "before", "after"]
    step: str
    when: Expr | None = None
    body: list[Stmt]
    meta: Meta = Meta()


# -------------------------------------------------------------------------------- scenarios
class ScRuleset(Node):
    kind: Literal["sc_ruleset"]
    path: str


class ScVariant(Node):
    """``variant "name"``: a variant of the scenario's game chosen on top of it."""

    kind: Literal["sc_variant"]
    name: str


class ScPlayers(Node):
    kind: Literal["sc_players"]
    count: int


class ScSeed(Node):
    kind: Literal["sc_seed"]
    seed: int


class ScSeeds(Node):
    """``seeds 1..50``: the scenario runs once per seed; its expectations hold for all of them
    (or as often as they say)."""

    kind: Literal["sc_seeds"]
    first: int
    last: int


class ScLet(Node):
    """``let x = e``: a name for a value, from here to the end of the scenario."""

    kind: Literal["sc_let"]
    name: str
    value: Expr


class ScGiven(Node):
    kind: Literal["sc_given"]
    body: list[Stmt]


class ScChoose(Node):
    """``choose p "id"`` (``choose pending "id"``: whoever is to decide; player is then none).
    The option is a text with ``{holes}``: an id or an exact label."""

    kind: Literal["sc_choose"]
    player: Expr | None = None
    option: Expr


class ScRefuse(Node):
    kind: Literal["sc_refuse"]
    player: Expr | None = None
    option: Expr
    message: str | None = None


class ScExpect(Node):
    """``expect e``; with ``seeds``, ``expect sometimes e`` or ``expect e on at least N seeds``
    (``at_least``/``at_most`` count the seeds where e holds; none: every seed)."""

    kind: Literal["sc_expect"]
    test: Expr
    message: str | None = None
    at_least: int | None = None
    at_most: int | None = None


class ScExpectOption(Node):
    kind: Literal["sc_expect_option"]
    player: Expr
    option: Expr
    present: bool
    message: str | None = None


class ScExpectOptions(Node):
    """``expect options p == ["a", "b"]`` (the ids, in any order) or ``expect options p >= 2``
    (how many there are)."""

    kind: Literal["sc_expect_options"]
    player: Expr
    op: str
    value: Expr
    message: str | None = None


class ScExpectLog(Node):
    """``expect [no] log "text" [to p]``: a log line contains the text (one that p may read);
    with ``no``, none does."""

    kind: Literal["sc_expect_log"]
    text: Expr
    to: Expr | None = None
    present: bool = True
    message: str | None = None


class ScExpectError(Node):
    kind: Literal["sc_expect_error"]
    text: str


class ScExpectVisibility(Node):
    """``expect hidden p.x to q`` / ``expect visible p.x to q``: what one player may see."""

    kind: Literal["sc_expect_visibility"]
    target: Expr
    viewer: Expr
    visible: bool
    message: str | None = None
    shape: bool = False  # `expect visible shape x to q`: its shape only, not what it holds


class ScPlayToEnd(Node):
    kind: Literal["sc_play_to_end"]
    agent: str


class ScPlayUntil(Node):
    """``play until e with random``: the agent decides for everyone until e holds."""

    kind: Literal["sc_play_until"]
    test: Expr
    agent: str


ScenarioItem = Annotated[
    Union[
        ScRuleset, ScVariant, ScPlayers, ScSeed, ScSeeds, ScLet, ScGiven, ScChoose, ScRefuse,
        ScExpect, ScExpectOption, ScExpectOptions, ScExpectLog, ScExpectError,
        ScExpectVisibility, ScPlayToEnd, ScPlayUntil,
    ],
    Field(discriminator="kind"),
]


class Scenario(Node):
    """A test written in the language: set up a game, make decisions, check expectations."""

    kind: Literal["scenario"]
    name: str
    items: list[ScenarioItem]
    meta: Meta = Meta()


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
# What a walk does with a value of each class: 1 walk a node's fields, 2 a list's items, 0 nothing.
_WALKED: dict[type, int] = {}


def _walked(cls: type) -> int:
    how = _WALKED[cls] = 1 if issubclass(cls, Node) else 2 if issubclass(cls, list) else 0
    if how == 1:
        _CHILD_FIELDS[cls] = tuple(f for f in cls.model_fields if f not in ("span", "kind"))
    return how


def intern_names(node) -> None:
    """Every name under ``node`` (a text that reads as an identifier, alone or in a list) made
    Python's interned copy, in place: the engine keys its dicts (variables, fields, names) by
    them and its generated code looks them up by its own constants, which Python interns, so
    each lookup finds its key by identity rather than comparing the characters. (A parse makes
    new texts, and so does a tree read back from the cache.)"""
    for n in walk(node):
        d = n.__dict__
        for k, v in d.items():
            if type(v) is str:
                if v.isidentifier():
                    d[k] = sys.intern(v)
            elif type(v) is list and v and type(v[0]) is str:
                d[k] = [sys.intern(x) if type(x) is str and x.isidentifier() else x for x in v]


def walk(node):
    """Every AST node under ``node`` (itself included), in no particular order. Each class's
    fields are listed once and read from the node's dict, and what a value is (node, list or
    neither) is looked up by its class: walks run over whole programs often (the checks, the
    lint rules, the language server)."""
    stack = [node]
    pop, push = stack.pop, stack.append
    walked, child_fields = _WALKED, _CHILD_FIELDS
    while stack:
        n = pop()
        cls = n.__class__
        how = walked.get(cls)
        if how is None:
            how = _walked(cls)
        if how == 1:
            yield n
            values = n.__dict__
            for name in child_fields[cls]:
                value = values.get(name)
                kind = walked.get(value.__class__)
                if kind is None:
                    kind = _walked(value.__class__)
                if kind:
                    push(value)
        elif how == 2:
            stack.extend(n)


def nesting_depth(node) -> int:
    """How deep the deepest node with a span lies: the root at 1, a node's field (a node or a
    list) one level below it, a list's items at the list's level. Counted level by level, not
    recursively: a tree may be very deep."""
    level, here, deepest = [node], 0, 0
    walked = _WALKED
    while level:
        here += 1
        below = []
        for n in level:  # (the items of a list join the level as it is gone through)
            how = walked.get(n.__class__)
            if how is None:
                how = _walked(n.__class__)
            if how == 1:
                values = n.__dict__
                if values.get("span") is not None:
                    deepest = here
                for value in values.values():
                    kind = walked.get(value.__class__)
                    if kind is None:
                        kind = _walked(value.__class__)
                    if kind:
                        below.append(value)
            elif how == 2:
                level.extend(n)
        level = below
    return deepest


# Declarations and statements whose name can scope an automaton's `prefer` line.
_SCOPING = ("procedure", "event", "reaction", "phase", "step")


def decision_scopes(declarations) -> dict[int, tuple[Choose | Compose, frozenset[str]]]:
    """For each `choose` (by id), the node and the names of the procedures, events, reactions,
    phases and steps it is written inside."""
    out: dict[int, tuple[Choose | Compose, frozenset[str]]] = {}
    stack = [(d, frozenset()) for d in declarations]
    while stack:
        node, names = stack.pop()
        if isinstance(node, list):
            stack.extend((x, names) for x in node)
            continue
        if not isinstance(node, Node):
            continue
        if node.kind in _SCOPING:
            names = names | {node.name}
        if isinstance(node, (Choose, Compose)):
            out[id(node)] = (node, names)
        for field in type(node).model_fields:
            value = getattr(node, field)
            if isinstance(value, (Node, list)):
                stack.append((value, names))
    return out


class Program(Node):
    """One rules file."""

    kind: Literal["program"]
    header: Annotated[Union[GameHeader, VariantHeader], Field(discriminator="kind")] | None = None
    declarations: list[Declaration] = []
    overrides: list[Annotated[Union[Override, StepPatch], Field(discriminator="kind")]] = []
    scenarios: list[Scenario] = []


