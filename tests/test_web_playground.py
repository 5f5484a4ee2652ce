"""The playground's endpoints: only its link reaches them; edits are written to the one file and
checked; scenarios run; a hot-seat table plays the edited rules."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from rulebook.web.app import STATIC, create_app
from rulebook.web.playground import Playground
from rulebook.web.tables import Tables

GAME = Path(__file__).resolve().parents[1] / "rulesets" / "examples" / "tictactoe.rules"


@pytest.fixture
def playground(tmp_path):
    path = tmp_path / "game.rules"
    shutil.copy(GAME, path)
    tables = Tables(tmp_path / "state")
    editor = Playground(path, "secret-token", tables, Path(str(STATIC)))
    with TestClient(create_app(tables, 0, editor)) as client:
        yield client, path, tables


def test_only_the_playground_link_reaches_it(playground):
    client, path, _ = playground
    before = path.read_text()
    assert client.get("/p/guess").status_code == 404
    assert client.get("/p/%C3%A9t%C3%A9").status_code == 404
    assert client.get("/p/guess/file").status_code == 404
    assert client.post("/p/guess/save", content=b"broken").status_code == 404
    assert client.post("/p/guess/scenarios").status_code == 404
    assert client.post("/p/guess/play", json={}).status_code == 404
    assert path.read_text() == before
    page = client.get("/p/secret-token")
    assert page.status_code == 200 and "playground.js" in page.text
    assert client.get("/p/secret-token/file").json()["text"] == before


def test_an_edit_is_saved_and_checked(playground):
    client, path, _ = playground
    text = path.read_text()
    broken = text.replace("players 2", "players two", 1)
    found = client.post("/p/secret-token/save", content=broken.encode()).json()
    assert path.read_text() == broken
    (d,) = [d for d in found["diagnostics"] if d["severity"] == "error"]
    assert (d["code"], d["line"], d["file"]) == ("E0100", 3, None) and "two" in d["message"]
    fixed = client.post("/p/secret-token/save", content=text.encode()).json()
    assert fixed["diagnostics"] == [] and path.read_text() == text
    assert client.post("/p/secret-token/save", content=b"\xff\xfe").status_code == 400
    assert client.post("/p/secret-token/save", content=b"#" * (2 << 20)).status_code == 413
    assert path.read_text() == text


def test_scenarios_run_and_a_hot_seat_table_plays_the_edited_rules(playground):
    client, path, tables = playground
    ran = client.post("/p/secret-token/scenarios").json()
    assert [(r["name"], r["passed"]) for r in ran["results"]] == [("a row of three wins", True)]
    link = client.post("/p/secret-token/play", json={"players": 2}).json()["link"]
    token = link.rsplit("/", 1)[1]
    for seat in (1, 2, 1):  # the one link is always the seat that decides now
        page = client.get(f"/api/{token}").json()
        assert page["viewer"] == seat and page["decision"]["mine"] and page["hot_seat"]
        r = client.post(f"/api/{token}/decide", json={
            "option": page["decision"]["options"][0]["id"], "version": page["version"]})
        assert r.status_code == 200
    path.write_text(path.read_text().replace("players 2", "players two", 1))
    refused = client.post("/p/secret-token/play", json={}).json()
    assert "cannot be played" in refused["error"] and "E0100" in refused["error"]


def test_a_simulation_summarises_bot_games_of_the_saved_rules(playground):
    client, _, _ = playground
    r = client.post("/p/secret-token/simulate", json={"games": 30}).json()
    assert r["games"] == 30 and r["completed"] == 30
    assert set(r["wins_per_seat"]) == {"1", "2"}
    # every game has a winner, or two when it is shared (a full board)
    assert sum(r["wins_per_seat"].values()) == 30 + r["shared_victories"]
    bad = client.post("/p/secret-token/simulate", json={"games": 5, "players": 7})
    assert bad.status_code == 400 and "players" in bad.json()["error"]
