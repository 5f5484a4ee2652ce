"""In a real browser: three people in three browser contexts and a bot play a whole game of
Liqueur by clicking options, one of them reloading mid-game; the playground shows a diagnostic
for a broken line, clears it when fixed, runs the file's scenarios and a short simulation with the balance report's plots. Screenshots go to
$RULEBOOK_ARTIFACTS/web/ (default test-artifacts/web/) for whoever wants to look."""
from __future__ import annotations

import contextlib
import os
import resource
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from rulebook.web.app import STATIC, create_app
from rulebook.web.playground import Playground
from rulebook.web.tables import Tables

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]
ARTIFACTS = Path(os.environ.get("RULEBOOK_ARTIFACTS",
                                Path(__file__).resolve().parent.parent / "test-artifacts")) / "web"


@contextlib.contextmanager
def running(app):
    """`app` served by uvicorn on a free port of localhost; its base address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def served(tmp_path):
    """A real server with one Liqueur table: seats 1-3 people, seat 4 a bot."""
    tables = Tables(tmp_path / "state")
    table = tables.create("liqueur", (), 4, {4: "random"}, seed=3)
    with running(create_app(tables, bot_delay=0)) as base:
        yield base, table


@pytest.fixture
def browser():
    # Commands run in-process by earlier tests cap this process's address space (--max-memory);
    # a browser reserves far more address space than it uses, so it starts without that cap.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        with sync_playwright() as p:
            # (Playwright gives the browser a fresh profile of its own in a temporary folder)
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield browser
            browser.close()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_three_people_and_a_bot_play_liqueur_to_the_end_in_chromium(served, browser):
    base, table = served
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    contexts = {seat: browser.new_context(viewport={"width": 1200, "height": 900})
                for seat in (1, 2, 3)}
    pages = {seat: c.new_page() for seat, c in contexts.items()}
    for seat, page in pages.items():
        page.goto(f"{base}/t/{table.link(seat)}")
        page.wait_for_selector(".seat.you")
        assert page.inner_text(".seat.you h3").startswith(f"player {seat} (you)")
    watcher = contexts[1].new_page()
    watcher.goto(f"{base}/t/{table.link(None)}")
    pages[1].screenshot(path=ARTIFACTS / "liqueur-start-seat1.png", full_page=True)
    clicks, reloaded, deadline = 0, False, time.monotonic() + 240
    while not table.game.over:
        assert time.monotonic() < deadline, "the game did not end"
        seat, version = table.game.pending_seat(), table.version
        if table.kinds[seat] != "human":  # the bot's turn: it plays within the server
            time.sleep(0.01)
            continue
        page = pages[seat]  # the person whose turn it is clicks their first option
        try:
            page.click(f"body[data-version='{version}'] button.option:not([disabled])",
                       timeout=10_000)
        except PlaywrightTimeout:
            # a bot's decision can be read half made (its seat moved on, the version not yet):
            # then the page never shows that version; read the table again
            if table.version == version:
                raise
            continue
        while table.version == version:
            assert time.monotonic() < deadline, "a click changed nothing"
            time.sleep(0.005)
        clicks += 1
        if clicks == 25:  # a person reloads mid-game: the seat comes back
            pages[2].screenshot(path=ARTIFACTS / "liqueur-mid-seat2.png", full_page=True)
            pages[2].reload()
            pages[2].wait_for_selector(".seat.you")
            assert pages[2].inner_text(".seat.you h3").startswith("player 2 (you)")
            assert int(pages[2].get_attribute("body", "data-version")) >= 25
            reloaded = True
    for page in [*pages.values(), watcher]:
        page.wait_for_selector("body[data-over='yes']")
    assert table.game.over and reloaded
    for seat, page in pages.items():
        assert "Game over" in page.inner_text("#decision")
        page.screenshot(path=ARTIFACTS / f"liqueur-end-seat{seat}.png", full_page=True)
    watcher.screenshot(path=ARTIFACTS / "liqueur-end-spectator.png", full_page=True)
    assert "watching" in watcher.inner_text("#heading")
    people = {e["player"] for e in table.game.history}
    assert people == {1, 2, 3, 4}


def test_the_playground_shows_a_broken_line_clears_it_when_fixed_runs_scenarios_and_simulates(
        tmp_path, browser):
    path = tmp_path / "tictactoe.rules"
    shutil.copy(Path(__file__).resolve().parents[1] / "rulesets/examples/tictactoe.rules", path)
    tables = Tables(tmp_path / "state")
    editor = Playground(path, "t0ken", tables, Path(str(STATIC)))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with running(create_app(tables, 0, editor)) as base:
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(f"{base}/p/t0ken")
        page.wait_for_selector("#diagnostics li.clean")
        text = path.read_text()

        line = page.locator(".cm-line").nth(2).bounding_box()  # `    players 2`
        page.mouse.click(line["x"] + 60, line["y"] + line["height"] / 2)  # as a person would
        page.keyboard.press("End")
        page.keyboard.press("Shift+ArrowLeft")
        page.keyboard.type("two")
        page.wait_for_selector("#diagnostics li.error")
        assert "3:13" in page.inner_text("#diagnostics") and "E0100" in page.inner_text(
            "#diagnostics")
        # drawn in place: the word underlined, a marker in the gutter beside line 3
        page.wait_for_selector(".cm-lintRange-error")
        assert page.locator(".cm-lint-marker-error").count() == 1
        page.click("#diagnostics .where")  # to the broken line
        assert page.inner_text(".cm-activeLine").strip().startswith("players two")
        page.screenshot(path=ARTIFACTS / "playground-broken.png")
        assert "players two" in path.read_text()  # edits are saved to the file
        page.keyboard.press("End")
        for _ in "two":
            page.keyboard.press("Shift+ArrowLeft")
        page.keyboard.type("2")
        page.wait_for_selector("#diagnostics li.clean")
        assert not page.locator(".cm-lint-marker-error").count() and path.read_text() == text
        page.click("#run-scenarios")
        page.wait_for_selector("#scenarios li.summary")
        assert "PASS a row of three wins" in page.inner_text("#scenarios")
        assert "1 passed, 0 failed" in page.inner_text("#scenarios")
        page.screenshot(path=ARTIFACTS / "playground-scenarios.png")
        page.fill("#sim-games", "40")  # a short simulation, plotted
        page.click("#simulate")
        page.wait_for_selector("#simulation img.plot")
        assert "40 games" in page.inner_text("#simulation")
        assert "seat balance" in page.inner_text("#simulation .verdict")
        assert page.locator("#simulation table.figures tbody tr").count() == 2  # two seats
        # the balance report's own plots, decoded and drawn by the browser
        page.wait_for_function("[...document.querySelectorAll('#simulation img.plot')]"
                               ".every(i => i.complete)")
        widths = page.eval_on_selector_all("#simulation img.plot", "a => a.map(i => i.naturalWidth)")
        assert len(widths) == 2 and all(w > 0 for w in widths)  # wins, length: no score
        assert page.get_attribute("#simulation img.plot", "alt") == (
            "win rate per seat with 95% intervals")
        page.locator("#simulation").scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / "playground-simulation.png")
