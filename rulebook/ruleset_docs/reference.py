"""A ruleset's reference, gathered from its merged AST: the one object both pages render."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..validator.lint import book_sections
from .components import Components, Meta, collect_components, meta_of
from .flow import (Decision, Outline, Rule, Scoring, collect_decisions, collect_flow,
                   collect_other_rules, collect_scoring)
from .notes import (Assumption, Coverage, Note, Section, collect_meta, collect_notes,
                    coverage)
from .places import Anchors, in_order
from .variants import Variant, collect_variants


@dataclass
class Reference:
    name: str                       # the file name the pages are written under
    title: str
    game_title: str                 # the game's own title (`title` names the variants too)
    players: str
    source: str
    files: list[str]
    chosen_variants: list[str]
    header_meta: Meta
    components: Components
    flow: list[Outline]
    flow_elsewhere: list[Outline]
    decisions: list[Decision]
    scoring: Scoring
    other_rules: dict[str, list[Rule]]
    variants: list[Variant]
    assumptions: list[Assumption]
    notes: list[Note]
    sections: list[Section]
    coverage: Coverage
    contents: list[tuple[str, str, int | None]] = field(default_factory=list)


def build_reference(ref: str, variants=()) -> Reference:
    """The reference of a ruleset (bundled name, folder or file) with the chosen variants.
    Raises DiagnosticError, as `rulebook.api.load` does, when the rules do not check."""
    from ..api import load
    from ..loader import load_ruleset

    rules = load(ref, variants)   # checked as a game is before it is played
    ruleset = load_ruleset(rules.source_path, tuple(variants))
    program = ruleset.program
    root = str(Path(ruleset.chain[0]).parent)
    anchors = Anchors()
    decls = program.declarations
    components = collect_components(decls, anchors)
    nodes = in_order(decls, anchors)
    decisions = collect_decisions(nodes)  # numbered in the order they are written
    flow, elsewhere = collect_flow(decls, anchors)
    scoring = collect_scoring(decls, anchors)
    outlined = {o.place.anchor for o in elsewhere}  # shown in "Setup and play" already
    other = {kind: kept for kind, rules in collect_other_rules(decls, anchors).items()
             if (kept := [rule for rule in rules if rule.place.anchor not in outlined])}
    assumptions, sections = collect_meta(nodes, root)
    assumptions += _header_assumptions(program.header, ruleset.chain[0], root)
    notes = collect_notes(nodes, ruleset.files, _header_lines(ruleset), root)
    links = {p.title: p.anchor for p in anchors.all_places()}
    applied = {os.path.realpath(f) for f in ruleset.chain}
    header = program.header
    stems = [Path(f).stem for f in ruleset.chain] + [v for v in ruleset.variants]
    out = Reference(
        name="+".join(dict.fromkeys(stems)), title=header.title,
        game_title=ruleset.game_title,
        players=(f"{header.min_players}" if header.min_players == header.max_players
                 else f"{header.min_players} to {header.max_players}"),
        source=header.source or "", files=[os.path.relpath(f, root) for f in ruleset.chain],
        chosen_variants=list(ruleset.variants), header_meta=meta_of(header),
        components=components, flow=flow, flow_elsewhere=elsewhere, decisions=decisions,
        scoring=scoring, other_rules=other,
        variants=collect_variants(ruleset.chain[0], applied, links, root),
        assumptions=assumptions, notes=notes, sections=sections,
        coverage=coverage(sections, book_sections(ruleset.chain[0])))
    out.contents = _contents(out)
    return out


def _header_lines(ruleset) -> dict[str, int]:
    """The line of each file's `game`/`variant` header (comments above it introduce the file)."""
    from ..loader import parse_cached

    out = {}
    for path in ruleset.chain:
        header = parse_cached(path)[1].header
        out[path] = header.span.line if header is not None and header.span else 0
    return out


def _header_assumptions(header, file: str, root: str) -> list[Assumption]:
    from .places import Place

    if header.meta.assumed is None:
        return []
    return [Assumption(Place("overview", "game"), "game", os.path.relpath(file, root),
                       header.span.line if header.span else None, header.meta.assumed)]


def _contents(r: Reference) -> list[tuple[str, str, int | None]]:
    """The table of contents, (anchor, title, how many) of the sections this ruleset fills."""
    c = r.components
    parts = [("overview", "Overview", None, True),
             ("components", "Components", None, bool(c)),
             ("setup-and-play", "Setup and play", None, bool(r.flow or r.flow_elsewhere)),
             ("decisions", "Decisions", len(r.decisions), bool(r.decisions)),
             ("scoring-and-winners", "Scoring and winners", None,
              bool(r.scoring.scoring or r.scoring.winner)),
             ("rules", "Other rules", None, bool(r.other_rules)),
             ("variants", "Variants", len(r.variants), bool(r.variants)),
             ("assumptions", "Assumptions", len(r.assumptions), True),
             ("readings", "Readings and contradictions", len(r.notes), True),
             ("citations", "Citations", len(r.sections), True)]
    return [(anchor, title, count) for anchor, title, count, present in parts if present]
