"""How a game runs: setup, phases and steps in order, every decision with its options, scoring
and winners, and the other rules (procedures, definitions, events, reactions...)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..grammar import ast as A
from . import rules_text as R
from .components import Meta, meta_of
from .places import Anchors, Place, where

# Statements that give a game its shape: shown in the outline of setup and play.
_OUTLINE_KINDS = {"rounds", "phase", "step", "turn", "turns", "turns_from", "simultaneously",
                  "choose", "compose"}
_FLOW_DECLARATIONS = ("setup", "play")
_LOOPS = {"rounds", "turn", "turns", "turns_from", "simultaneously"}
# Declarations shown with their rules text in "Other rules", in this order.
OTHER_KINDS = ("procedure", "define", "event", "reaction", "modifier", "invariant", "automaton")


@dataclass
class OutlineItem:
    depth: int
    place: Place | None          # phases and steps: anchored here
    word: str                    # "phase", "rounds until", "turns"...
    name: str
    detail: str                  # a condition, a player, a prompt
    meta: Meta
    code: str = ""               # a phase's or step's rules text
    link: Place | None = None    # a decision or a procedure: described elsewhere on the page


@dataclass
class Outline:
    place: Place
    title: str
    meta: Meta
    items: list[OutlineItem]
    code: str


@dataclass
class OptionRow:
    name: str
    bindings: str
    condition: str
    label: str
    meta: Meta


@dataclass
class DecisionStep:
    name: str
    prompt: str
    until: str
    options: list[OptionRow]


@dataclass
class Decision:
    place: Place
    where: Place | None
    player: str
    prompt: str
    flags: list[str]
    options: list[OptionRow]
    steps: list[DecisionStep]      # a decision built in steps (`compose`)
    meta: Meta


@dataclass
class Rule:
    place: Place
    kind: str
    name: str
    code: str
    meta: Meta


@dataclass
class Scoring:
    scoring: Outline | None = None   # its steps, if any, and its rules text
    winner: Rule | None = None
    ranking: str = ""               # "p in players"
    keys: list[tuple[str, str]] = field(default_factory=list)


def outline_of(decl, anchors: Anchors, procedures: dict | None = None) -> Outline:
    """The structural statements of a declaration, depth first, in the order they run, with the
    calls of `procedures` (name: declaration), the ones that hold decisions, phases or steps."""
    procedures = procedures or {}
    items: list[OutlineItem] = []
    stack = [(decl.body, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list):
            stack.extend((x, depth) for x in reversed(node))
            continue
        if not hasattr(node, "kind"):
            continue
        inner = depth
        if node.kind in _OUTLINE_KINDS:
            items.append(_outline_item(node, depth, anchors))
            inner = depth + 1
        elif node.kind == "do" and node.name in procedures:
            items.append(OutlineItem(
                depth, None, "do", f"{node.name}({', '.join(map(R.expression, node.args))})", "",
                meta_of(node), link=anchors.of_declaration(procedures[node.name])))
        children = [getattr(node, name) for name in type(node).model_fields
                    if name not in ("span", "meta")]
        stack.extend((c, inner) for c in reversed(children) if isinstance(c, list)
                     or (hasattr(c, "kind") and _holds_statements(c)))
    return Outline(anchors.of_declaration(decl), decl.kind, meta_of(decl), items,
                   R.declaration_code(decl))


def _holds_steps(node) -> bool:
    return any(n is not node and n.kind in ("phase", "step") for n in A.walk(node))


def _holds_statements(node) -> bool:
    # Expressions never hold statements; branches, arms and options do.
    return node.kind in ("branch", "match_arm", "option", "compose_step")


def _outline_item(node, depth: int, anchors: Anchors) -> OutlineItem:
    kind = node.kind
    meta = meta_of(node)
    if kind in ("phase", "step"):
        detail = f"when {R.expression(node.when)}" if getattr(node, "when", None) else ""
        # A phase that holds steps is read in the rules text of its declaration: printing it
        # again here would print its steps twice.
        code = "" if _holds_steps(node) else R.statement_code(node)
        return OutlineItem(depth, anchors.of_statement(node), kind, node.name, detail, meta, code)
    if kind in ("choose", "compose"):
        place = anchors.of_statement(node)
        return OutlineItem(depth, None, "decision", place.title,
                           f"{R.expression(node.player)}: {R.template(node.prompt)}", meta,
                           link=place)
    if kind == "rounds":
        word = "rounds until" if node.mode == "until" else "rounds"
        return OutlineItem(depth, None, word, "", R.expression(node.expr), meta)
    if kind == "turn":
        return OutlineItem(depth, None, "turn of", "", R.expression(node.player), meta)
    if kind in ("turns", "simultaneously"):
        word = "turns of" if kind == "turns" else "simultaneously for"
        return OutlineItem(depth, None, word, "", R.binding(node.binding), meta)
    return OutlineItem(depth, None, "turns of", "",
                       f"{node.name} from {R.expression(node.start)} then "
                       f"{R.expression(node.then)} until {R.expression(node.until)}", meta)


def _options(options) -> list[OptionRow]:
    return [OptionRow(o.name, ", ".join(R.binding(b) for b in o.bindings),
                      R.expression(o.where), R.template(o.label), meta_of(o)) for o in options]


def collect_decisions(nodes) -> list[Decision]:
    """Every `choose` and `compose` of the walk (places.in_order), in the order written."""
    out = []
    for node, places in nodes:
        if node.kind not in ("choose", "compose"):
            continue
        flags = [word for word in ("optional", "confirm", "repeat") if getattr(node, word, False)]
        if node.kind == "choose":
            steps, options = [], _options(node.options)
            if node.otherwise is not None:
                flags.append("otherwise: runs its `otherwise` block when nothing is legal")
        else:
            flags.append("built in steps; then done or start over")
            steps = [DecisionStep(s.name, R.template(s.prompt), R.expression(s.until),
                                  _options(s.options)) for s in node.steps]
            options = []
        out.append(Decision(places[-1], where(places[:-1]), R.expression(node.player),
                            R.template(node.prompt), flags, options, steps, meta_of(node)))
    return out


def collect_flow(declarations, anchors: Anchors) -> tuple[list[Outline], list[Outline]]:
    """Setup and play, then the procedures, events and reactions that hold phases or steps."""
    main, more = [], []
    procedures = {d.name: d for d in declarations if d.kind == "procedure" and any(
        n.kind in _OUTLINE_KINDS - _LOOPS for n in A.walk(d.body))}
    for kind in _FLOW_DECLARATIONS:
        main += [outline_of(d, anchors, procedures) for d in declarations if d.kind == kind]
    for decl in declarations:
        if decl.kind in ("procedure", "event", "reaction"):
            outline = outline_of(decl, anchors, procedures)
            if any(item.word in ("phase", "step") for item in outline.items):
                outline.title = anchors.of_declaration(decl).title
                more.append(outline)
    return main, more


def collect_scoring(declarations, anchors: Anchors) -> Scoring:
    out = Scoring()
    for decl in declarations:
        if decl.kind == "scoring":
            out.scoring = outline_of(decl, anchors)  # (after setup and play: no new calls)
        elif decl.kind == "winner":
            out.winner = _rule(decl, anchors)
            out.ranking = R.binding(decl.binding)
            out.keys = R.sort_keys(decl.keys)
    return out


def _rule(decl, anchors: Anchors) -> Rule:
    place = anchors.of_declaration(decl)
    name = getattr(decl, "name", "")
    if decl.kind in ("procedure", "define", "event", "modifier"):
        name += "(" + ", ".join(decl.params) + ")"
    return Rule(place, decl.kind, name, R.declaration_code(decl), meta_of(decl))


def collect_other_rules(declarations, anchors: Anchors) -> dict[str, list[Rule]]:
    out: dict[str, list[Rule]] = {kind: [] for kind in OTHER_KINDS}
    for decl in declarations:
        if decl.kind in out:
            out[decl.kind].append(_rule(decl, anchors))
    return {kind: rules for kind, rules in out.items() if rules}
