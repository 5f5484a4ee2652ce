"""Where things are written: an anchor and a readable name for every declaration, phase, step,
option and decision, and a walk of the AST in source order that says which of them holds a node.

Anchors are made from names the grammar already restricts to identifiers, and are slugged again
here so that no text of a rules file can reach an HTML attribute unescaped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..grammar import ast as A

# Nodes a reader can be pointed at: they get an anchor of their own.
_PLACE_KINDS = {"phase", "step", "choose", "compose"}
_SINGLETONS = {"setup", "play", "scoring", "winner"}
# The ids of the page's own sections: never handed out to a declaration.
RESERVED = {"overview", "components", "component-tables", "component-records",
            "component-enums", "component-constants", "component-pieces", "component-state",
            "setup-and-play", "decisions", "scoring-and-winners", "rules", "variants",
            "assumptions", "readings", "citations"} | {
            f"rules-{kind}" for kind in ("procedure", "define", "event", "reaction", "modifier",
                                         "invariant", "automaton")}


@dataclass(frozen=True)
class Place:
    anchor: str
    title: str   # "phase planning › step enter_bids"


def slug(text: str) -> str:
    """An HTML id made of letters, digits, `-` and `_` only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower() or "x"


def declaration_title(decl) -> str:
    """How a declaration is named to a reader: `table cards`, `setup`, `when scored`."""
    if decl.kind in _SINGLETONS:
        return decl.kind
    if decl.kind == "component_state":
        return f"state {decl.record}.{decl.name}"
    if decl.kind == "event":
        return f"when {decl.name}"
    if decl.kind == "state":
        return f"{decl.scope} {decl.name}"
    return f"{decl.kind} {getattr(decl, 'name', '')}".strip()


class Anchors:
    """Hands out one unique anchor per node (by identity), in the order nodes are met."""

    def __init__(self):
        self._by_node: dict[int, Place] = {}
        self._used: set[str] = set(RESERVED)
        self.decisions = 0

    def place(self, node, title: str, base: str) -> Place:
        found = self._by_node.get(id(node))
        if found is not None:
            return found
        anchor = base = slug(base)
        n = 1
        while anchor in self._used:
            n += 1
            anchor = f"{base}-{n}"
        self._used.add(anchor)
        place = Place(anchor, title)
        self._by_node[id(node)] = place
        return place

    def all_places(self) -> list[Place]:
        return list(self._by_node.values())

    def of_declaration(self, decl) -> Place:
        title = declaration_title(decl)
        return self.place(decl, title, title.replace(" ", "-"))

    def of_statement(self, node) -> Place:
        if node.kind in ("choose", "compose"):
            found = self._by_node.get(id(node))
            if found is None:
                self.decisions += 1
                found = self.place(node, f"decision {self.decisions}", f"decision-{self.decisions}")
            return found
        return self.place(node, f"{node.kind} {node.name}", f"{node.kind}-{node.name}")


def in_order(declarations, anchors: Anchors) -> list[tuple[object, tuple[Place, ...]]]:
    """(node, places holding it, itself included) for every node of the declarations, in the
    order it was written.

    Fields are visited in the order the AST declares them, which is the order of the text for
    every construct (a header before its body, a body's statements in turn)."""
    out = []
    stack = [(d, (anchors.of_declaration(d),)) for d in reversed(declarations)]
    while stack:
        current, places = stack.pop()
        if isinstance(current, list):
            stack.extend((item, places) for item in reversed(current))
            continue
        if not isinstance(current, A.Node):
            continue
        if getattr(current, "kind", None) in _PLACE_KINDS:
            places = (*places, anchors.of_statement(current))
        out.append((current, places))
        children = [getattr(current, name) for name in type(current).model_fields]
        stack.extend((child, places) for child in reversed(children)
                     if isinstance(child, (A.Node, list)))
    return out


def where(places: tuple[Place, ...]) -> Place:
    """The innermost place, titled with the whole path (`play › phase planning › decision 3`)."""
    return Place(places[-1].anchor, " › ".join(p.title for p in places))
