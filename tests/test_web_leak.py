"""A whole game of Beverage through the server: every message each seat's browser receives is
what the engine's view of that seat lays out, and holds nothing that seat may not see (the other
players' caps and secret bids, the bank, the market holder, the decks)."""
from __future__ import annotations

import json
import random

from rulebook.interpreter.view import can_see, render
from rulebook.web.present import shown
from web_helpers import engine_page, first_page, make_server

SEATS = (1, 2, 3, None)
SAVE_KEYS = {"seed", "digest", "history", "rng", "frames"}


def leaves(data) -> set[str]:
    """Every string value in a page or a laid-out value (not the keys that name its parts)."""
    if isinstance(data, dict):
        return set().union(*map(leaves, data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*map(leaves, data)) if data else set()
    return {data} if isinstance(data, str) else set()


def keys(data) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*map(keys, data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*map(keys, data)) if data else set()
    return set()


def laid_out(table) -> list[tuple[int, str, set[str]]]:
    """(owner, name, texts) of every variable as the page would draw it if it were seen."""
    game, rules = table.game, table.game.rules
    owners = [(0, game.state.globals, rules.global_vars)] + [
        (p.seat, p.vars, rules.player_vars) for p in game.state.seats]
    return [(owner, name, leaves(shown(render(values.get(name)))))
            for owner, values, decls in owners for name in decls]


def check(message: dict, table, seat, values) -> None:
    page = message["page"]
    assert page == engine_page(table, seat)  # exactly the engine's view of this seat, laid out
    assert not SAVE_KEYS & keys(page)
    # What the seat may not see, by the visibility rules alone (not the view's code): each such
    # value is drawn as hidden, and no text of it that the seat sees nowhere else is sent.
    secret, seen = set(), set()
    for owner, name, drawn in values:
        if can_see(table.game, seat, owner, name):
            seen |= drawn
            continue
        secret |= drawn
        fields = page["table"] if owner == 0 else page["seats"][owner - 1]["fields"]
        assert all("hidden" in f["value"] for f in fields if f["name"] == name), (seat, name)
    leaked = (secret - seen) & leaves(page)
    assert not leaked, (seat, leaked)
    decision = page["decision"]
    if decision and decision["player"] != seat:
        assert decision["options"] is None and decision["showing"] == []
        if decision["secret"]:
            assert decision["prompt"] is None


def test_beverage_through_the_server_shows_each_seat_only_what_it_may_see(tmp_path):
    tables, client, (table,) = make_server(tmp_path / "state", ruleset="beverage", players=3,
                                           seed=11)
    rng = random.Random(5)
    with client:
        sockets = {s: client.websocket_connect(f"/ws/{table.link(s)}") for s in SEATS}
        try:
            for s, ws in sockets.items():
                check({"page": first_page(ws.__enter__())}, table, s, laid_out(table))
            decisions = refusals = 0
            while not table.game.over and decisions < 600:
                seat = table.game.pending_seat()
                options = table.game.legal_options()
                if decisions % 15 == 0:  # another seat tries the decider's own option
                    other = seat % 3 + 1
                    sockets[other].send_text(json.dumps(
                        {"type": "decide", "option": options[0][0], "version": table.version}))
                    reply = json.loads(sockets[other].receive_text())
                    assert reply["type"] == "error"
                    assert options[0][0] not in reply["message"]
                    check(reply, table, other, laid_out(table))
                    refusals += 1
                option = rng.choice(options)[0]
                sockets[seat].send_text(json.dumps(
                    {"type": "decide", "option": option, "version": table.version}))
                values = None
                for s, ws in sockets.items():
                    message = json.loads(ws.receive_text())
                    assert message["type"] == "page"
                    values = values or laid_out(table)
                    check(message, table, s, values)
                decisions += 1
        finally:
            for ws in sockets.values():
                ws.__exit__(None, None, None)
    assert table.game.over and refusals > 5
    assert [e["option"] for e in table.game.history][-1] is not None
