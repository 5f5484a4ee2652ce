"""A table server for tests: real tables in a temporary folder, served in-process."""
from __future__ import annotations

import json

from starlette.testclient import TestClient

from rulebook import api
from rulebook.web.app import create_app
from rulebook.web.present import present
from rulebook.web.tables import Tables


def make_server(folder, ruleset="liqueur", players=3, kinds=None, seed=7, games=1):
    """(tables, TestClient, [table, ...]); use the client as a context manager so bots run."""
    tables = Tables(folder)
    made = [tables.create(ruleset, (), players, kinds or {}, seed=seed + i) for i in range(games)]
    return tables, TestClient(create_app(tables, bot_delay=0)), made


def engine_page(table, seat):
    """What the engine's own view of `seat` lays out as, computed apart from the server."""
    return present(api.view(table.game, seat), table.kinds, table.version)


def first_page(ws) -> dict:
    message = json.loads(ws.receive_text())
    assert message["type"] == "page"
    return message["page"]
