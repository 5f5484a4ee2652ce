"""The report of a small simulation, opened in a real headless Chromium: its plots are drawn
and its tables filled. A screenshot is kept in artifacts/ (or $RULEBOOK_ARTIFACTS)."""
from __future__ import annotations

import os
import resource
import shutil
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import sync_playwright

from rulebook.report import Setting, simulate, write_comparison

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("RULEBOOK_ARTIFACTS", ROOT / "artifacts"))
DATA = Path(__file__).parent / "data" / "report"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextmanager
def _no_address_space_cap():
    """The commands tested in this process cap its address space (`--max-memory`); Chromium,
    which reserves terabytes of address space, would inherit the cap and crash."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _open(browser, page_path: Path):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(page_path.as_uri())
    page.wait_for_load_state("load")
    return page


def _images(page) -> list:
    return page.eval_on_selector_all(
        "img", "imgs => imgs.map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])")


def _tables(page) -> list[int]:
    return page.eval_on_selector_all("table", "ts => ts.map(t => t.tBodies[0].rows.length)")


def test_report_and_comparison_pages_in_chromium(tmp_path):
    coin = simulate(Setting(str(DATA / "coin.rules")), games=60, seed=1)
    loaded = simulate(Setting(str(DATA / "loaded.rules")), games=60, seed=1)
    comparison = write_comparison([coin, loaded], tmp_path / "comparison")
    report = comparison.parent / "run1" / "index.html"  # each run's own full report
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    with _no_address_space_cap(), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=FLAGS,
                                    env={**os.environ, "HOME": str(tmp_path)})
        try:
            page = _open(browser, report)
            images = _images(page)
            assert len(images) >= 6
            for alt, complete, width, height in images:  # every plot decoded and drawn
                assert complete and width > 200 and height > 100, alt
            assert len(_tables(page)) >= 5 and all(rows > 0 for rows in _tables(page))
            text = page.inner_text("body")
            for heading in ("Win rate per seat", "Scores per seat", "Game length",
                            "Options offered and taken", "Time per phase", "Errors"):
                assert heading in text
            assert "heads" in text and "Seat balance" in text
            page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
            page = _open(browser, comparison)
            images = _images(page)
            assert len(images) >= 3 and all(i[1] and i[2] > 200 for i in images)
            assert "seat 1 win rate" in page.inner_text("body")
            page.screenshot(path=str(ARTIFACTS / "comparison.png"), full_page=True)
        finally:
            browser.close()
    assert (ARTIFACTS / "report.png").stat().st_size > 10_000
