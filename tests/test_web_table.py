"""The table server: each link sees its seat, decisions change the game only when they may,
games are saved after every decision and resume with the same links."""
from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from rulebook import api
from rulebook.cli import main
from rulebook.web.tables import Tables
from web_helpers import engine_page, first_page, make_server


@pytest.fixture
def server(tmp_path):
    tables, client, (table,) = make_server(tmp_path / "state", players=3, kinds={3: "first"})
    with client:
        yield tables, client, table


def decide(ws, option, version):
    ws.send_text(json.dumps({"type": "decide", "option": option, "version": version}))
    return json.loads(ws.receive_text())


def test_each_link_sees_its_own_seat_and_spectators_the_public_view(server):
    tables, client, table = server
    for seat in (1, 2, None):
        page = client.get(f"/api/{table.link(seat)}").json()
        assert page == engine_page(table, seat)
        assert page["viewer"] == seat
        mine = page["decision"]["mine"]
        assert (page["decision"]["options"] is not None) == mine
    html = client.get(f"/t/{table.link(1)}")
    assert html.status_code == 200 and "table.js" in html.text
    assert html.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'none'" in html.headers["content-security-policy"]
    assert client.get("/static/table.js").status_code == 200


def test_an_unknown_link_finds_nothing_and_names_no_table(server):
    tables, client, table = server
    for path in ("/t/nope", "/api/nope", f"/api/{table.id}"):
        r = client.get(path)
        assert r.status_code == 404 and table.id not in r.text
    assert client.post("/api/nope/decide", content=b"{}").status_code == 404
    with pytest.raises(Exception):
        with client.websocket_connect("/ws/nope") as ws:
            ws.receive_text()


def test_a_decision_reaches_every_seat_live_and_bots_play_theirs(server):
    tables, client, table = server
    sockets = {seat: client.websocket_connect(f"/ws/{table.link(seat)}") for seat in (1, 2, None)}
    pages = {seat: first_page(ws.__enter__()) for seat, ws in sockets.items()}
    try:
        for _ in range(6):
            seat = table.game.pending_seat()
            assert seat in (1, 2)  # the bot at seat 3 never leaves a decision waiting
            version = pages[seat]["version"]
            option = pages[seat]["decision"]["options"][0]["id"]
            sockets[seat].send_text(json.dumps({"type": "decide", "option": option,
                                                "version": version}))
            for s, ws in sockets.items():  # each watcher hears of every decision, bots' too
                page = json.loads(ws.receive_text())["page"]
                while page["version"] <= version or (
                        page["decision"] and page["decision"]["player"] == 3):
                    page = json.loads(ws.receive_text())["page"]
                pages[s] = page
                assert page == engine_page(table, s)
        assert any(e["player"] == 3 for e in table.game.history)
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


@pytest.mark.parametrize("message", [
    "not json", "[1, 2]", '{"type": "shout"}', '{"type": "decide"}',
    '{"type": "decide", "option": "__class__", "version": 0}',
    '{"type": "decide", "option": {"$gt": ""}, "version": 0}',
    '{"type": "decide", "option": "x", "version": 0, "seat": 2}',
    "{" * 5000, '[' * 100000,
])
def test_bad_and_forged_messages_get_an_error_and_change_nothing(server, message):
    tables, client, table = server
    seat = table.game.pending_seat()
    before = table.save_path.read_bytes()
    with client.websocket_connect(f"/ws/{table.link(seat)}") as ws:
        first_page(ws)
        ws.send_text(message)
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and reply["page"] == engine_page(table, seat)
    assert table.save_path.read_bytes() == before and table.version == 0


def test_only_the_deciding_seat_on_the_current_page_decides(server):
    tables, client, table = server
    seat = table.game.pending_seat()
    other = 1 if seat == 2 else 2
    option = table.game.legal_options()[0][0]
    for token, version, why in ((table.link(other), 0, "not your decision"),
                                (table.link(None), 0, "spectator"),
                                (table.link(seat), 5, "changed before")):
        r = client.post(f"/api/{token}/decide", json={"option": option, "version": version})
        assert r.status_code == 409 and why in r.json()["error"]
        assert option not in json.dumps(r.json()) or token == table.link(seat)
    assert table.version == 0 and not table.game.history
    r = client.post(f"/api/{table.link(seat)}/decide", json={"option": option, "version": 0})
    assert r.status_code == 200 and table.game.history[0] == {"player": seat, "option": option}


def test_every_decision_is_saved_and_a_restarted_server_resumes_with_the_same_links(tmp_path):
    tables, client, (table,) = make_server(tmp_path / "state", players=3)
    with client:
        for _ in range(5):
            seat = table.game.pending_seat()
            option = table.game.legal_options()[0][0]
            r = client.post(f"/api/{table.link(seat)}/decide",
                            json={"option": option, "version": table.version})
            assert r.status_code == 200
            assert api.load_game(table.save_path, table.game.rules).history == table.game.history
    again = Tables(tmp_path / "state")
    (resumed,) = again.resume()
    assert resumed.tokens == table.tokens and resumed.version == 5
    for seat in (1, 2, 3, None):
        assert resumed.page(seat) == table.page(seat)
    assert (tmp_path / "state").stat().st_mode & 0o077 == 0  # links and seeds: the owner's only


def test_several_games_each_with_their_own_links(tmp_path):
    tables, client, made = make_server(tmp_path / "state", games=3)
    tokens = [set(t.tokens) for t in made]
    assert len(set().union(*tokens)) == sum(map(len, tokens)) == 3 * 4
    for table in made:
        assert client.get(f"/api/{table.link(1)}").json() == engine_page(table, 1)


def test_serve_refuses_what_it_cannot_do(tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["serve"])
    assert r.exit_code == 2 and "RULESET" in r.output
    r = runner.invoke(main, ["serve", "liqueur", "--seat", "9=random",
                             "--state-dir", str(tmp_path / "a")])
    assert r.exit_code == 2 and "seat 9 does not exist" in r.output
    r = runner.invoke(main, ["serve", "liqueur", "--seat", "2=genius"])
    assert r.exit_code == 2 and "SEAT=KIND" in r.output
    Tables(tmp_path / "b").create("liqueur", (), 3)
    r = runner.invoke(main, ["serve", "liqueur", "--state-dir", str(tmp_path / "b")])
    assert r.exit_code == 2 and "--resume" in r.output
    (tmp_path / "c").mkdir()
    r = runner.invoke(main, ["serve", "--resume", str(tmp_path / "c")])
    assert r.exit_code == 1 and "E0314" in r.output
    for broken in ('{"tables": [{"id": 1}]}', '{"tables": 3}', "[]", '{"tables": [[]]}'):
        (tmp_path / "c" / "tables.json").write_text(broken)
        r = runner.invoke(main, ["serve", "--resume", str(tmp_path / "c")])
        assert r.exit_code == 1 and "E0314" in r.output and "Traceback" not in r.output


BROKEN = """game "Broken" {
    players 2
}

global moves: int = 0

play {
    rounds {
        for p in players {
            turn p {
                choose p "Pick" {
                    option a label "A" { increase moves by 1 }
                    option b label "B" { increase moves by 1 }
                }
                if moves == 2 {
                    set moves = 10 / (moves - 2)
                }
            }
        }
    }
}

winner p in players by moves
"""


def test_a_broken_rule_stops_the_table_and_says_only_where(tmp_path):
    (tmp_path / "broken.rules").write_text(BROKEN)
    tables, client, (table,) = make_server(tmp_path / "state", str(tmp_path / "broken.rules"),
                                           players=2, kinds={2: "first"})
    with client:
        r = client.post(f"/api/{table.link(1)}/decide", json={"option": "a", "version": 0})
        assert r.status_code == 200
        for _ in range(500):  # the bot moves in the server's own time; its move breaks the rule
            page = client.get(f"/api/{table.link(1)}").json()
            if page["error"]:
                break
            time.sleep(0.01)
        assert page["error"].startswith("E0305 at ") and page["decision"] is None
        assert "division" not in str(page)  # where, not why: a message may name hidden values
        again = client.post(f"/api/{table.link(1)}/decide", json={"option": "a", "version": 2})
        assert again.status_code == 409 and again.json()["error"] == "the game is over"
    assert not table.bot_to_move() and table.game.error is not None
