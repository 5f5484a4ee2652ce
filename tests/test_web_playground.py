"""The playground's endpoints: only its link reaches them; edits are written to the one file and
checked; scenarios run; a hot-seat table plays the edited rules; bots simulate them through the
balance report."""
from __future__ import annotations

import base64
import shutil
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from rulebook.web.app import STATIC, create_app
from rulebook.report import Setting, figures, simulate
from rulebook.web.playground import DEFAULT_GAMES, MAX_GAMES, Playground, simulation_asked
from rulebook.web.tables import Tables

GAME = Path(__file__).resolve().parents[1] / "rulesets" / "examples" / "tictactoe.rules"


@pytest.fixture
def playground(request, tmp_path):
    """A playground of a copy of tic-tac-toe, or of the example named by `indirect` params."""
    path = tmp_path / "game.rules"
    shutil.copy(GAME.with_name(getattr(request, "param", GAME.name)), path)
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


@pytest.mark.parametrize("playground", ["no_thanks.rules"], indirect=True)  # a scored game
def test_a_simulation_is_the_reports_own_with_its_figures_and_plots(playground):
    client, path, _ = playground
    assert client.post("/p/guess/simulate", json={"games": 5}).status_code == 404
    r = client.post("/p/secret-token/simulate", json={"games": 20}).json()
    assert (r["games"], r["completed"], r["errors"], r["players"]) == (20, 20, 0, 3)
    # the same games as the balance report plays from the same seed, and its figures
    results = simulate(Setting(str(path)), 20, seed=r["seed"])
    wins, scores = figures.win_rates(results), figures.scores(results)
    assert [(s["seat"], s["wins"], s["rate"], s["low"], s["high"], s["mean_score"])
            for s in r["seats"]] == [(w["seat"], w["wins"], w["rate"], w["low"], w["high"],
                                      m["mean"]) for w, m in zip(wins["rows"], scores["rows"])]
    assert sum(s["wins"] for s in r["seats"]) == 20 + r["shared_victories"]
    assert r["balance"]["p_value"] == wins["balance"]["p_value"]
    # the report's plots as PNG images, nothing that names a file on the server
    assert [p["alt"] for p in r["plots"]] == ["win rate per seat with 95% intervals",
                                             "score distribution per seat", "game length"]
    for p in r["plots"]:
        head, data = p["src"].split(",", 1)
        assert head == "data:image/png;base64" and base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(path.parent) not in str(r)


def test_a_game_without_scores_has_no_score_plot(playground):
    client, _, _ = playground
    r = client.post("/p/secret-token/simulate", json={"games": 10}).json()
    assert [s["mean_score"] for s in r["seats"]] == [None, None]
    assert [p["alt"] for p in r["plots"]] == ["win rate per seat with 95% intervals",
                                             "game length"]


def test_a_simulation_request_stays_bounded_and_refuses_what_cannot_be_played(playground):
    client, path, _ = playground
    bad = client.post("/p/secret-token/simulate", json={"games": 5, "players": 7})
    assert bad.status_code == 400 and "players" in bad.json()["error"]
    # whatever is asked beyond the cap (or is not a whole number) means the default
    assert simulation_asked({"games": MAX_GAMES, "players": 3}) == (MAX_GAMES, 3)
    for asked in ({"games": MAX_GAMES + 1}, {"games": 0}, {"games": True, "players": True},
                  {"games": "5", "players": "3"}, {"games": 5.0}, [1, 2], None):
        assert simulation_asked(asked) == (DEFAULT_GAMES, None)
    assert client.post("/p/secret-token/simulate", json={"games": 10**9}).json()["games"] \
        == DEFAULT_GAMES
    path.write_text(path.read_text().replace("players 2", "players two", 1))
    refused = client.post("/p/secret-token/simulate", json={"games": 5}).json()
    assert "cannot be played" in refused["error"] and "E0100" in refused["error"]


def test_without_the_report_extra_the_panel_says_what_to_install(playground, monkeypatch):
    client, _, _ = playground
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if it were not installed
    r = client.post("/p/secret-token/simulate", json={"games": 5})
    assert r.status_code == 501 and "pip install 'rulebook[report]'" in r.json()["error"]
