"""The components of a ruleset as tables: enums, records, catalogues (`table`), constants,
pieces and the state the game keeps."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import rules_text as R
from .places import Anchors, Place


@dataclass
class Meta:
    cites: list[str]
    assumed: str | None


def meta_of(node) -> Meta:
    meta = getattr(node, "meta", None)
    return Meta(list(meta.cite), meta.assumed) if meta is not None else Meta([], None)


@dataclass
class Enum:
    place: Place
    name: str
    members: list[tuple[str, str]]  # (name, label or "")
    meta: Meta


@dataclass
class Record:
    place: Place
    name: str
    shown_as: str
    fields: list[tuple[str, str]]   # (name, type)
    meta: Meta


@dataclass
class Catalogue:
    """A `table`: its rows as the file lists them, and how many components they make."""
    place: Place
    name: str
    record: str
    record_anchor: str | None
    columns: list[str]
    rows: list[list[str]]
    components: int | None          # the sum of the `count` column (rows without one count 1)
    meta: Meta


@dataclass
class Value:
    """A constant, a piece kind or a state variable: one row of a table of values."""
    place: Place
    name: str
    cells: dict[str, str] = field(default_factory=dict)
    meta: Meta = None


@dataclass
class Components:
    enums: list[Enum] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    tables: list[Catalogue] = field(default_factory=list)
    constants: list[Value] = field(default_factory=list)
    pieces: list[Value] = field(default_factory=list)
    state: list[Value] = field(default_factory=list)

    def __bool__(self):
        return any((self.enums, self.records, self.tables, self.constants, self.pieces,
                    self.state))


STATE_COLUMNS = ["of", "type", "starts at", "seen by", "bounds", "kept"]


def cell(value) -> str:
    """A table cell as the language writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def collect_components(declarations, anchors: Anchors) -> Components:
    out = Components()
    records = {d.name: d for d in declarations if d.kind == "record"}
    for decl in declarations:
        kind = decl.kind
        if kind == "enum":
            out.enums.append(Enum(anchors.of_declaration(decl), decl.name,
                                  [(m.name, m.label or "") for m in decl.members],
                                  meta_of(decl)))
        elif kind == "record":
            out.records.append(Record(anchors.of_declaration(decl), decl.name,
                                      R.template(decl.show),
                                      [(f.name, R.type_text(f.type)) for f in decl.fields],
                                      meta_of(decl)))
        elif kind == "table":
            out.tables.append(_catalogue(decl, anchors, records))
        elif kind == "const":
            out.constants.append(Value(anchors.of_declaration(decl), decl.name,
                                       {"value": R.expression(decl.value)}, meta_of(decl)))
        elif kind == "pieces":
            out.pieces.append(Value(anchors.of_declaration(decl), decl.name, {
                "how many": R.expression(decl.total) + (" per player" if decl.per_player else ""),
                "start in": decl.start}, meta_of(decl)))
        elif kind in ("state", "component_state"):
            out.state.append(_state(decl, anchors))
    return out


def _catalogue(decl, anchors: Anchors, records) -> Catalogue:
    rows = [[cell(v) for v in row.values] for row in decl.rows]
    components = None
    if "count" in decl.columns:
        at = decl.columns.index("count")
        components = sum(v if isinstance(v, int) and not isinstance(v, bool) else 1
                         for v in (row.values[at] for row in decl.rows))
    record = records.get(decl.record)
    return Catalogue(anchors.of_declaration(decl), decl.name, decl.record,
                     anchors.of_declaration(record).anchor if record else None,
                     list(decl.columns), rows, components, meta_of(decl))


def _state(decl, anchors: Anchors) -> Value:
    seen = decl.visibility
    if decl.public_top is not None:
        seen += f", top {decl.public_top} public"
    if decl.shape is not None:
        seen += f", shape {decl.shape}"
    bounds = []
    if decl.at_least is not None:
        bounds.append(f"at least {R.expression(decl.at_least)}")
    if decl.at_most is not None:
        bounds.append(f"at most {R.expression(decl.at_most)}")
    kept = [word for word in ("stacked", "shown", "sorted", "internal") if getattr(decl, word)]
    of = decl.record if decl.kind == "component_state" else decl.scope
    return Value(anchors.of_declaration(decl), decl.name, {
        "of": of, "type": R.type_text(decl.type),
        "starts at": R.expression(decl.initial), "seen by": seen,
        "bounds": ", ".join(bounds), "kept": ", ".join(kept)}, meta_of(decl))
