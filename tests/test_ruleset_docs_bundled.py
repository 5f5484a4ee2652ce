"""`rulebook docs` of every bundled ruleset, and of each of its variants applied, renders both
pages; every page has what a reader looks for (its tables, its assumptions)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.loader import first_word, rules_files_in
from rulebook.ruleset_docs.reference import build_reference
from rulebook.ruleset_docs.render import render_html, render_markdown

RULESETS = Path(__file__).resolve().parents[1] / "rulesets"


def _bundled() -> list[tuple[str, tuple[str, ...]]]:
    """(ruleset, variants) for each game of rulesets/ and each variant beside it."""
    out = []
    for folder in sorted(p for p in RULESETS.iterdir() if p.is_dir()):
        files = rules_files_in(folder)
        games = [p for p in files if first_word(p) == "game"]
        for game in games:
            ref = folder.name if len(games) == 1 else f"{folder.name}/{game.stem}"
            out.append((ref, ()))
            if len(games) == 1:
                out += [(ref, (p.stem,)) for p in files if first_word(p) == "variant"]
    return out


BUNDLED = _bundled()


def test_every_bundled_game_and_variant_is_documented():
    games = {ref for ref, variants in BUNDLED if not variants}
    assert {"liqueur", "beverage", "smartphone_inc", "beer_empire",
            "examples/tictactoe"} <= games
    assert ("beverage", ("open_market",)) in BUNDLED


@pytest.mark.parametrize("ref, variants", BUNDLED,
                         ids=["+".join((ref, *variants)) for ref, variants in BUNDLED])
def test_the_reference_of_a_bundled_ruleset_renders(ref, variants):
    reference = build_reference(ref, variants)
    page = render_html(reference)
    text = render_markdown(reference)
    for table in reference.components.tables:
        assert f'<h4 id="{table.place.anchor}">' in page
        assert f'<a id="{table.place.anchor}"></a>' in text
    assert page.count('<tr><td><code>') >= len(reference.assumptions)
    for assumption in reference.assumptions:
        assert assumption.reason.replace("&", "&amp;").replace("<", "&lt;") \
            .replace(">", "&gt;").replace('"', "&#34;").replace("'", "&#39;") in page
    for variant in variants:
        assert next(v for v in reference.variants if v.name == variant).applied
    # every link on the page leads to an anchor on the page
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "an id given twice"
    anchors = set(ids)
    targets = set(re.findall(r' href="#([^"]+)"', page))
    assert targets <= anchors, sorted(targets - anchors)[:5]


def test_the_books_have_assumptions_notes_and_contradictions():
    reference = build_reference("smartphone_inc")
    assert reference.assumptions and reference.components.tables
    contradictions = [n for n in reference.notes if n.contradiction]
    assert len(contradictions) >= 2
    assert all(n.where is not None for n in reference.notes)
