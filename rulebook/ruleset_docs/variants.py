"""The variants beside a game and what each changes: the declarations it adds, the ones it
replaces (`override`) and the steps it patches (`before/after/override step`), read from the
variant files' ASTs as the loader merges them (rulebook/loader.py)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..grammar import ast as A
from ..loader import first_word, parse_cached, rules_files_in
from ..validator.diagnostics import DiagnosticError
from . import rules_text as R
from .components import Meta, meta_of
from .notes import Assumption, Note, _what, reading_notes
from .places import Place, declaration_title, slug

_STEP_PATCH = {"before": "runs before step", "after": "runs after step",
               "override": "replaces step"}


@dataclass
class Change:
    action: str          # "adds", "replaces", "runs before step"...
    target: str          # "table cards", "enter_bids"
    link: str | None     # the anchor of what it changes, on this page
    condition: str       # a step patch's `when`
    meta: Meta
    code: str


@dataclass
class Variant:
    place: Place
    name: str
    title: str
    file: str
    extends: str
    players: str
    applied: bool
    meta: Meta = field(default_factory=lambda: Meta([], None))
    changes: list[Change] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    problem: str = ""    # why the file could not be read


def variant_files(game_file: str) -> list[Path]:
    """The variant files beside a game file (scenario files live in `tests/`)."""
    return [p for p in rules_files_in(Path(game_file).parent) if first_word(p) == "variant"]


def collect_variants(game_file: str, applied: set[str], links: dict[str, str], root: str
                     ) -> list[Variant]:
    """`applied`: real paths of the files merged into this page; `links`: anchors on this page
    by declaration title (`table cards`) and step (`step enter_bids`)."""
    out = []
    for path in variant_files(game_file):
        name = path.stem
        place = Place("variant-" + slug(name), f"variant {name}")
        rel = os.path.relpath(path, root)
        try:
            text, program = parse_cached(str(path))
        except DiagnosticError as e:
            out.append(Variant(place, name, name, rel, "", "", False,
                               problem=e.diagnostics[0].message))
            continue
        header = program.header
        players = (f"{header.min_players} to {header.max_players}"
                   if header.min_players is not None else "")
        variant = Variant(place, name, header.title, rel, header.extends, players,
                          os.path.realpath(path) in applied, meta_of(header))
        for decl in program.declarations:
            title = declaration_title(decl)
            variant.changes.append(Change("adds", title, links.get(title), "", meta_of(decl),
                                          R.declaration_code(decl)))
        for patch in program.overrides:
            variant.changes.append(_change(patch, links))
        for node in A.walk(program.declarations + program.overrides):
            meta = getattr(node, "meta", None)
            if meta is not None and meta.assumed is not None:
                variant.assumptions.append(Assumption(
                    place, _what(node), rel, node.span.line if node.span else None,
                    meta.assumed))
        variant.assumptions.sort(key=lambda a: a.line or 0)
        variant.notes = [Note(place, rel, line, body, contradiction)
                         for line, body, contradiction in reading_notes(text, _line(header))]
        out.append(variant)
    return out


def _change(patch, links: dict[str, str]) -> Change:
    if isinstance(patch, A.Override):
        title = declaration_title(patch.declaration)
        return Change("replaces", title, links.get(title), "", meta_of(patch.declaration),
                      R.declaration_code(patch.declaration))
    holder = A.Step.model_construct(kind="step", span=None, name=patch.step, body=patch.body,
                                    meta=patch.meta)
    return Change(_STEP_PATCH[patch.mode], patch.step, links.get(f"step {patch.step}"),
                  R.expression(patch.when), meta_of(patch), R.statement_code(holder))


def _line(node) -> int:
    return node.span.line if node is not None and node.span is not None else 0
