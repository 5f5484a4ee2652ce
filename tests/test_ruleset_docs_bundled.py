"""`rulebook docs` of every bundled ruleset, and of each of its variants applied, renders both
pages; every page has what a reader looks for (its tables, its assumptions); the page of every
bundled game opens in a real headless Chromium, whose screenshot is kept in tests/artifacts/."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from functools import cache

from rulebook.loader import first_word, rules_files_in
from rulebook.ruleset_docs.reference import build_reference
from rulebook.ruleset_docs.render import render_html, render_markdown

RULESETS = Path(__file__).resolve().parents[1] / "rulesets"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "ruleset-docs"
CHROMIUM = "/usr/bin/chromium"  # the system's package (.ci/run installs it when missing)


@cache
def _reference(ref: str, variants: tuple[str, ...] = ()):
    """Built once for both tests that read it."""
    return build_reference(ref, variants)


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
    reference = _reference(ref, variants)
    page = render_html(reference)
    text = render_markdown(reference)
    for table in reference.components.tables:
        assert f'<h4 id="{table.place.anchor}">' in page
        assert f'<a id="{table.place.anchor}"></a>' in text
    assert page.count("</td></tr>") >= len(reference.assumptions)
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
    reference = _reference("smartphone_inc")
    assert reference.assumptions and reference.components.tables
    contradictions = [n for n in reference.notes if n.contradiction]
    assert len(contradictions) >= 2
    assert all(n.where is not None for n in reference.notes)


def test_every_bundled_game_s_page_opens_in_chromium_with_its_tables_and_assumptions():
    from playwright.sync_api import sync_playwright

    games = [ref for ref, variants in BUNDLED if not variants]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))

        def only_the_file(route):  # a self-contained page asks for nothing else
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()
        page.route("**/*", only_the_file)
        for ref in games:
            reference = _reference(ref)
            path = ARTIFACTS / f"{reference.name}.html"
            path.write_text(render_html(reference), encoding="utf-8")
            page.goto(path.resolve().as_uri())
            shown = page.evaluate(_READ_PAGE)  # what the browser laid out, in one round trip
            assert shown["title"].startswith(reference.title)
            assert shown["tables"] == [
                {"columns": t.columns, "rows": len(t.rows), "visible": True}
                for t in reference.components.tables], ref
            assert shown["reasons"] == [a.reason for a in reference.assumptions], ref
            if ref == "beverage":
                _look_at(page, reference)
        browser.close()
    assert outside == [] and errors == []


# The catalogue tables (their header cells, rows and whether they take room on the page) and the
# reasons in the table of assumptions, as rendered.
_READ_PAGE = """() => ({
    title: document.title,
    tables: [...document.querySelectorAll("table.catalogue")].map(t => ({
        columns: [...t.querySelectorAll("thead th")].map(th => th.innerText),
        rows: t.querySelectorAll("tbody tr").length,
        visible: t.getBoundingClientRect().height > 0 && t.checkVisibility()})),
    reasons: [...document.querySelectorAll("table.assumptions tbody tr")]
        .map(tr => tr.querySelector("td:last-child").innerText),
})"""


def _look_at(page, reference) -> None:
    """Follow the contents to the assumptions, open a rules text, and keep screenshots."""
    page.screenshot(path=str(ARTIFACTS / "beverage-top.png"))
    page.locator("nav.toc a[href=\"#assumptions\"]").click()
    assert page.url.endswith("#assumptions")
    heading = page.locator("h2#assumptions").bounding_box()
    assert 0 <= heading["y"] < 50  # scrolled to the top of the window
    page.screenshot(path=str(ARTIFACTS / "beverage-assumptions.png"))
    code = page.locator("details.code pre").first
    assert not code.is_visible()
    page.locator("details.code summary").first.click()
    assert code.is_visible() and "step" in code.inner_text()
    first = reference.decisions[0]
    page.goto(page.url.split("#")[0] + "#" + first.place.anchor)
    assert page.locator(f"section#{first.place.anchor} table.options tbody tr").count() == \
        len(first.options)
    page.screenshot(path=str(ARTIFACTS / "beverage-decision.png"))
