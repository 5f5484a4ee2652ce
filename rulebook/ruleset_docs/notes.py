"""What a reader checks against the book: every `assumed` value with its reason, every reading
note (`# Reading: ...` comments, the convention of docs/guide.md, some of them contradictions of
the book), and every citation, grouped by the section of the book it names."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..grammar.source import comments_of
from ..validator.lint_cites import cites_section
from .places import Place, slug, where

# The guide's convention: "# Reading: ..." (or "Reading (a contradiction): ...", "Reading of
# ...") states the reading taken where the book is unclear; a reading of a contradiction says so.
# A note of a contradiction may also be written without the word. Comments above a file's
# `game`/`variant` header introduce the file (and often explain this convention): not notes.
_READING = re.compile(r"\bReading\b(?=\s*(?:\(|:|of\b))")
_CONTRADICTION = re.compile(r"contradict", re.IGNORECASE)


# The kinds of a declaration (the nodes that hold everything else).
_DECLARATION_KINDS = {"enum", "record", "table", "const", "state", "define", "procedure", "setup",
                      "play", "scoring", "winner", "reaction", "event", "modifier", "automaton",
                      "invariant", "component_state", "pieces"}


@dataclass
class Assumption:
    where: Place
    what: str
    file: str
    line: int | None
    reason: str


@dataclass
class Note:
    where: Place | None
    file: str
    line: int
    text: str
    contradiction: bool


@dataclass
class Section:
    """A section of the book and the places that cite it."""
    title: str
    anchor: str
    places: list[Place] = field(default_factory=list)


@dataclass
class Coverage:
    listed: bool                  # whether the ruleset lists its book's sections
    rows: list[tuple[Section | None, str, bool]]   # (section if cited, title, cited)
    anchor_of: dict[str, str] = field(default_factory=dict)  # a cite's title -> its row


    @property
    def cited(self) -> int:
        return sum(1 for _, _, cited in self.rows if cited)


def _what(node) -> str:
    for attr in ("name", "title", "step"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            return f"{node.kind} {value}"
    return node.kind


def _short_file(path: str | None, root: str) -> str:
    if not path:
        return ""
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return path


def collect_meta(nodes, root: str) -> tuple[list[Assumption], list[Section]]:
    """Every assumption and every citation of the walk (places.in_order), in written order."""
    assumptions: list[Assumption] = []
    sections: dict[str, Section] = {}
    used: set[str] = set()
    for node, places in nodes:
        meta = getattr(node, "meta", None)
        if meta is None:
            continue
        at = where(places)
        if meta.assumed is not None:
            span = node.span
            assumptions.append(Assumption(at, _what(node), _short_file(
                span.file if span else None, root), span.line if span else None,
                meta.assumed))
        for title in meta.cite:
            section = sections.get(title)
            if section is None:
                anchor = base = "cite-" + slug(title)
                n = 1
                while anchor in used:
                    n += 1
                    anchor = f"{base}-{n}"
                used.add(anchor)
                section = sections[title] = Section(title, anchor)
            if not section.places or section.places[-1] != at:
                section.places.append(at)
    return assumptions, list(sections.values())


def coverage(sections: list[Section], listed: list[str] | None) -> Coverage:
    """Which of the book's sections are cited. `listed`: the sections the ruleset's
    configuration lists (`book-sections`, as `rulebook check` reads them; a cite names a section
    when it starts with its title), each row gathering the places of every cite naming it, and
    a cite naming none a row of its own after them; None when it lists none: the table is then
    the sections cited."""
    if listed is None:
        return Coverage(False, [(s, s.title, True) for s in natural_order(sections)],
                        {s.title: s.anchor for s in sections})
    rows, anchor_of, used = [], {}, {s.anchor for s in sections}
    for title in listed:
        citing = [s for s in natural_order(sections) if cites_section(s.title, title)]
        if not citing:
            rows.append((None, title, False))
            continue
        anchor = base = "cite-" + slug(title)
        n = 1
        while anchor in used and anchor not in {s.anchor for s in citing}:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        places = list(dict.fromkeys(p for s in citing for p in s.places))
        rows.append((Section(title, anchor, places), title, True))
        for s in citing:
            anchor_of.setdefault(s.title, anchor)
    for s in natural_order(sections):
        if s.title not in anchor_of:  # names no listed section (`rulebook check`: W0204)
            rows.append((s, s.title, True))
            anchor_of[s.title] = s.anchor
    return Coverage(True, rows, anchor_of)


def collect_notes(nodes, files: dict[str, str], header_lines: dict[str, int], root: str
                  ) -> list[Note]:
    """Reading notes of the files, each tied to the place it is written in or just before."""
    spans = _places_by_file(nodes)
    return [Note(_place_at(spans.get(path, []), line), _short_file(path, root), line, body,
                 contradiction) for path, text in files.items()
            for line, body, contradiction in reading_notes(text, header_lines.get(path, 0))]


def reading_notes(text: str, header_line: int) -> list[tuple[int, str, bool]]:
    """(line, text, whether it is about a contradiction) of each reading note of a file, after
    the file's header (`header_line`)."""
    out = []
    for line, end, body in _comment_blocks(text):
        contradiction = bool(_CONTRADICTION.search(body))
        if end > header_line and (contradiction or _READING.search(body)):
            out.append((line, body, contradiction))
    return out


def natural_order(sections: list[Section]) -> list[Section]:
    """Sections sorted as a reader looks them up: by title, numbers compared as numbers
    ("Setup 2" before "Setup 10")."""
    def key(section: Section):
        return [(0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
                for part in re.findall(r"\d+|\D+", section.title)]
    return sorted(sections, key=key)


def _comment_blocks(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each run of comments on consecutive lines."""
    blocks: list[tuple[int, list[str]]] = []
    last = -2
    for line, _, comment in comments_of(text):
        words = comment[1:].strip()
        if line == last + 1 and blocks:
            blocks[-1][1].append(words)
        else:
            blocks.append((line, [words]))
        last = line
    return [(line, line + len(words) - 1, " ".join(w for w in words if w))
            for line, words in blocks]


def _places_by_file(nodes) -> dict[str, list[tuple[int, int, Place]]]:
    """(first line, last line, place) of every declaration, phase, step and decision, by file."""
    out: dict[str, list[tuple[int, int, Place]]] = {}
    for node, places in nodes:
        span = node.span
        if span is None or span.file is None:
            continue
        declaration = len(places) == 1 and node.kind in _DECLARATION_KINDS
        if declaration or node.kind in ("choose", "compose", "phase", "step"):
            out.setdefault(span.file, []).append((span.line, span.end_line, where(places)))
    return out


def _place_at(spans: list[tuple[int, int, Place]], line: int) -> Place | None:
    """The innermost place holding the line, else the first one written after it."""
    holding = [(end - start, place) for start, end, place in spans if start <= line <= end]
    if holding:
        return min(holding, key=lambda h: h[0])[1]
    after = [(start, place) for start, _, place in spans if start > line]
    return min(after, key=lambda a: a[0])[1] if after else None
