"""A loaded ruleset arranged for the engine: declarations by name, catalogue items built once."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ..grammar import ast as A
from ..validator.diagnostics import Diagnostic, DiagnosticError, span_fields
from ..validator.semantic import MAX_TABLE_ITEMS
from .values import Item, Sym


@dataclass
class Rules:
    program: A.Program
    title: str
    min_players: int
    max_players: int
    enums: dict[str, list[Sym]] = field(default_factory=dict)
    members: dict[str, Sym] = field(default_factory=dict)
    records: dict[str, A.RecordDecl] = field(default_factory=dict)
    tables: dict[str, list[Item]] = field(default_factory=dict)
    items_by_id: dict[str, Item] = field(default_factory=dict)
    rows: dict[str, dict[str, Item]] = field(default_factory=dict)  # table -> row key -> item
    consts: list[A.ConstDecl] = field(default_factory=list)
    global_vars: dict[str, A.StateDecl] = field(default_factory=dict)
    player_vars: dict[str, A.StateDecl] = field(default_factory=dict)
    # `on Record name: ...`, by (record, name); kept among the globals under `decl.key`, as a
    # map from each component of the record to its value (global_vars lists it there too)
    component_vars: dict[tuple[str, str], A.ComponentStateDecl] = field(default_factory=dict)
    defines: dict[str, A.DefineDecl] = field(default_factory=dict)
    modifiers: dict[str, list[A.ModifierDecl]] = field(default_factory=dict)
    procedures: dict[str, A.ProcedureDecl] = field(default_factory=dict)
    events: dict[str, list[A.EventDecl]] = field(default_factory=dict)
    reactions: list[A.ReactionDecl] = field(default_factory=list)
    automata: list[A.AutomatonDecl] = field(default_factory=list)
    invariants: list[A.InvariantDecl] = field(default_factory=list)
    pieces: dict[str, A.PiecesDecl] = field(default_factory=dict)
    # ("global" | "player", state variable) -> the kind of pieces it holds (pieces.py)
    holdings: dict[tuple[str, str], str] = field(default_factory=dict)
    setup: A.SetupDecl | None = None
    play: A.PlayDecl | None = None
    scoring: A.ScoringDecl | None = None
    winner: A.WinnerDecl | None = None
    fingerprint: str = ""
    # What each declaration means, as a short hash: a save names what changed since it was made.
    declaration_prints: dict[str, str] = field(default_factory=dict)
    source_path: str | None = None
    sources: dict[str, str] = field(default_factory=dict)  # file -> text, to quote diagnostics
    chain: list[str] = field(default_factory=list)         # the files it was loaded from
    variants: list[str] = field(default_factory=list)      # variants chosen on top of the file
    compiled: dict = field(default_factory=dict)  # id(node) -> (node, function): codegen.py
    code: "Code | None" = None  # the declarations compiled once (see `compile_code`)
    record_texts: dict = field(default_factory=dict)  # record -> its `show`, compiled

    @property
    def automaton_names(self) -> list[str]:
        return [a.name for a in self.automata]


def _item_fields(record: A.RecordDecl | None, columns: list[str], row: A.TableRow,
                 members: dict[str, Sym]) -> tuple[dict, int]:
    fields = {f.name: None for f in record.fields} if record else {}
    count = 1
    for col, value in zip(columns, row.values):
        if col == "count":
            count = int(value) if isinstance(value, int) else 1
            continue
        if col == A.ROW_KEY:
            continue
        if isinstance(value, str) and value in members and _is_enum_field(record, col):
            value = members[value]
        fields[col] = value
    return fields, count


def _is_enum_field(record: A.RecordDecl | None, col: str) -> bool:
    if record is None:
        return True
    for f in record.fields:
        if f.name == col:
            t = f.type
            return isinstance(t, (A.NamedType, A.OptionalType)) and t.name not in ("int", "text", "bool")
    return False


def compile_rules(program: A.Program, source_text: str = "") -> Rules:
    """Arrange a (merged, validated) program for execution."""
    A.intern_names(program)
    header = program.header
    title = header.title if header else "untitled"
    lo = getattr(header, "min_players", None) or 1
    hi = getattr(header, "max_players", None) or lo
    rules = Rules(program=program, title=title,
                  min_players=lo, max_players=hi)
    for d in program.declarations:
        if isinstance(d, A.EnumDecl):
            syms = [Sym(d.name, m.name, m.label, i) for i, m in enumerate(d.members)]
            rules.enums[d.name] = syms
            for s in syms:
                rules.members[s.name] = s
        elif isinstance(d, A.RecordDecl):
            rules.records[d.name] = d
    for d in program.declarations:
        if isinstance(d, A.TableDecl):
            items = []
            record = rules.records.get(d.record)
            rows = rules.rows.setdefault(d.name, {})
            for row, key in zip(d.rows, A.row_keys(d)):
                fields, count = _item_fields(record, d.columns, row, rules.members)
                if len(items) + count > MAX_TABLE_ITEMS:  # `rulebook check` reports it (E0224)
                    raise DiagnosticError([Diagnostic(
                        "E0224", f"table `{d.name}` makes more than {MAX_TABLE_ITEMS:,} "
                        "components", file=A.file_of(d), **span_fields(d.span))])
                for k in range(count):
                    if key is None:
                        item_id = f"{d.name}#{len(items) + 1}"
                    else:
                        item_id = f"{d.name}.{key}" + (f"#{k + 1}" if count > 1 else "")
                    item = Item(item_id, d.name, d.record, dict(fields), key)
                    items.append(item)
                    rules.items_by_id[item.id] = item
                    if key is not None:
                        rows.setdefault(key, item)
            rules.tables[d.name] = items
        elif isinstance(d, A.ConstDecl):
            rules.consts.append(d)
        elif isinstance(d, A.StateDecl):
            (rules.global_vars if d.scope == "global" else rules.player_vars)[d.name] = d
        elif isinstance(d, A.ComponentStateDecl):
            rules.component_vars[(d.record, d.name)] = d
            rules.global_vars[d.key] = d
        elif isinstance(d, A.DefineDecl):
            rules.defines[d.name] = d
        elif isinstance(d, A.ModifierDecl):
            rules.modifiers.setdefault(d.target, []).append(d)
        elif isinstance(d, A.ProcedureDecl):
            rules.procedures[d.name] = d
        elif isinstance(d, A.EventDecl):
            rules.events.setdefault(d.name, []).append(d)
        elif isinstance(d, A.ReactionDecl):
            rules.reactions.append(d)
        elif isinstance(d, A.AutomatonDecl):
            rules.automata.append(d)
        elif isinstance(d, A.InvariantDecl):
            rules.invariants.append(d)
        elif isinstance(d, A.PiecesDecl):
            rules.pieces[d.name] = d
        elif isinstance(d, A.SetupDecl):
            rules.setup = d
        elif isinstance(d, A.PlayDecl):
            rules.play = d
        elif isinstance(d, A.ScoringDecl):
            rules.scoring = d
        elif isinstance(d, A.WinnerDecl):
            rules.winner = d
    for scope, decls in (("global", rules.global_vars), ("player", rules.player_vars)):
        for name, d in decls.items():
            if d.type.kind == "named_type" and d.type.name in rules.pieces:
                rules.holdings[(scope, name)] = d.type.name
    rules.code = compile_code(rules)
    _write_item_texts(rules)
    rules.declaration_prints = declaration_prints(program)
    whole = json.dumps(rules.declaration_prints, sort_keys=True).encode("utf-8")
    rules.fingerprint = hashlib.sha256(whole).hexdigest()[:16]
    return rules


def declaration_prints(program: A.Program) -> dict[str, str]:
    """A hash of each declaration's meaning (not of where it is written, nor of its cites), and
    of the player counts: moving or commenting a rule changes nothing, changing it does."""
    from ..validator.schema import plain_tree

    def digest(node) -> str:
        data = json.dumps(plain_tree(node, ("span", "meta")), sort_keys=True, default=str)
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]

    header = program.header
    out = {"players": f"{getattr(header, 'min_players', None)}-"
                      f"{getattr(header, 'max_players', None)}"}
    for d in program.declarations:
        name = getattr(d, "name", None) or getattr(d, "target", None)
        label = f"{d.kind} {name}" if name else d.kind
        key, n = label, 2
        while key in out:  # several `when` handlers of one event
            key, n = f"{label} #{n}", n + 1
        out[key] = digest(d)
    return out


def _write_item_texts(rules: Rules) -> None:
    """How each component reads, for records that say (`record Card show "..."`): components
    never change, so their text is written once, from their fields."""
    shown = rules.record_texts
    if not shown:
        return
    from .errors import RuleError, to_diagnostic
    from .evaluator import Evaluator
    from .rng import Rng
    from .state import GameState, Limits

    reader = Evaluator(rules, GameState(seats=[], rng=Rng(0)), Limits())
    for items in rules.tables.values():
        for item in items:
            text = shown.get(item.record)
            if text is not None:
                try:
                    item.text = text(reader, {A.ROW_KEY: item.key, **item.fields})
                except RuleError as e:
                    raise DiagnosticError([to_diagnostic(e)])


@dataclass
class Code:
    """The declarations of a ruleset compiled once (``codegen.py`` for expressions,
    ``statements.py`` and ``routines.py`` for statements), with every name resolved by the
    scope it stands in."""

    gen: object = None                                # the Generator of its functions

    consts: list = field(default_factory=list)        # (name, value)
    # name -> (declaration, its starting value compiled, that value when known as written)
    globals: dict = field(default_factory=dict)
    players: dict = field(default_factory=dict)
    bounds: dict = field(default_factory=dict)        # id(state declaration) -> (low, high)
    modifiers: dict = field(default_factory=dict)     # define -> [(modifier, when, value)]
    # (declaration, names bound, condition, routine, the combinations of its bindings)
    reactions: list = field(default_factory=list)
    # (declaration, the variables it reads or None), and the function checking those due
    # (``Generator.invariants``)
    invariants: list = field(default_factory=list)
    check_invariants: object = None
    # repeatable define -> the variables it may read (None: unknown): a value it gave while the
    # invariants were checked is given again at the next check if none of them changed since
    define_reads: dict = field(default_factory=dict)
    struct_plans: dict = field(default_factory=dict)  # record -> how a new one starts (`new`)
    # id() of each `stacked` variable's declaration (`changed` keeps when it changed)
    stacked: frozenset = frozenset()
    pieces: list = field(default_factory=list)        # (declaration, total)
    policies: dict = field(default_factory=dict)      # automaton -> [(option, within, keys)]
    otherwise: dict = field(default_factory=dict)     # automaton -> its `otherwise` line, if any
    scopes: dict = field(default_factory=dict)        # id(choose) -> (choose, names it is in)
    # (declaration, its ranking (codegen.Generator.ranking), its first key (the score) or None,
    # the name it binds, whether a key is `random`)
    winner: tuple | None = None
    setup: object = None                              # routines (flow.Routine)
    play: object = None
    scoring: object = None
    routines: list = field(default_factory=list)      # every routine, by number (saved frames)
    decisions: list = field(default_factory=list)     # every choose and compose, by number


UNKNOWN = object()  # a starting value worked out when a game starts


def holds_numbers(decl) -> bool:
    """Whether state variable `decl` is declared `int`: it holds a number and nothing else
    (never none, a truth or a text: ``Effects.kept`` refuses them, and a save holding one is
    refused), so the generated code reads it as a number without testing it."""
    return decl.type.kind == "named_type" and decl.type.name == "int"


def starting_value(decl):
    """A state variable's starting value when it is known as written and never changed in
    place (a number, a text, yes/no or none, or the default of such a type, with no bounds to
    keep it within), else UNKNOWN (worked out by ``Machine.initial``)."""
    from .evaluator import _default_for

    t, v = decl.type, decl.initial
    if decl.kind == "component_state" or t.kind in ("grid_type", "map_type", "list_type",
                                                     "deck_type") \
            or decl.at_least is not None or decl.at_most is not None:
        return UNKNOWN
    if v is None:
        return _default_for(t)
    if v.kind not in ("int", "str", "bool", "none"):
        return UNKNOWN
    return None if v.kind == "none" else v.value


def compile_code(rules: Rules) -> Code:
    from .codegen import Generator
    from .dependencies import define_reads, variables_read

    gen = Generator(rules)
    compile_expr = gen.expr

    def early(node, scope):  # worked out while the state is set up (dependencies.py)
        return gen.expr(node, scope, early=True)

    code = Code(gen=gen, routines=gen.routines, decisions=gen.decisions)
    none = frozenset()
    for d in rules.consts:
        code.consts.append((d.name, early(d.value, none)))
    for scope_name, decls, target in (("global", rules.global_vars, code.globals),
                                      ("player", rules.player_vars, code.players)):
        scope = frozenset({"me"}) if scope_name == "player" else none
        for name, d in decls.items():
            target[name] = (d, early(d.initial, scope) if d.initial is not None else None,
                            starting_value(d))
            if d.at_least is not None or d.at_most is not None:
                code.bounds[id(d)] = tuple(early(b, scope) if b is not None else None
                                           for b in (d.at_least, d.at_most))
    code.struct_plans = gen.struct_plans
    code.stacked = frozenset(id(d) for decls in (rules.global_vars, rules.player_vars,
                                                 rules.component_vars)
                             for d in decls.values() if d.stacked)
    for target, mods in rules.modifiers.items():
        code.modifiers[target] = [
            (m, compile_expr(m.when, frozenset(m.params)) if m.when is not None else None,
             compile_expr(m.value, frozenset(m.params))) for m in mods]
    # A procedure or an event whose blocks run to their end without a decision is written out
    # whole where it is called; one that may wait is a routine (statements.py).
    for name, d in rules.procedures.items():
        if name not in gen.inlining.procedures:
            gen.routine_of(("procedure", name), d.params, d.body)
    for name, handlers in rules.events.items():
        if name not in gen.inlining.events:
            for k, h in enumerate(handlers):
                gen.routine_of(("event", name, k), h.params, h.body)
    for r in rules.reactions:
        names = tuple(b.name for b in r.bindings)
        inner = frozenset(names)
        code.reactions.append((r, names, compile_expr(r.condition, inner),
                               gen.routine(r.body, inner, r),
                               gen.combinations(r.bindings, none)))
    code.invariants = [(inv, variables_read(inv.test, rules)) for inv in rules.invariants]
    code.check_invariants = gen.invariants(code.invariants)
    if rules.invariants:
        code.define_reads = define_reads(rules, gen.repeatable)
    for d in rules.pieces.values():
        code.pieces.append((d, early(d.total, none)))
    for auto in rules.automata:
        # a policy's keys read the names of whichever option they rank: no fixed scope
        code.policies[auto.name] = [(p.option, p.within, gen.keys(p.keys, None))
                                    for p in auto.policies]
        if auto.otherwise is not None:
            code.otherwise[auto.name] = auto.otherwise
    if any(p.within for auto in rules.automata for p in auto.policies):
        code.scopes = A.decision_scopes(rules.program.declarations)
    if rules.winner is not None:
        w = rules.winner
        first = w.keys[0] if w.keys else None
        score = compile_expr(first.expr, frozenset({w.binding.name})) \
            if first is not None and first.kind == "sort_key" else None
        code.winner = (w, gen.ranking(w.binding, None, w.keys, none), score, w.binding.name,
                       any(k.kind == "random_key" for k in w.keys))
    for part in ("setup", "play", "scoring"):
        decl = getattr(rules, part)
        if decl is not None:
            setattr(code, part, gen.routine(decl.body, none, decl))
    for name, record in rules.records.items():
        if record.show is not None:
            rules.record_texts[name] = early(
                record.show, frozenset(f.name for f in record.fields) | {A.ROW_KEY})
    gen.flush()
    return code
