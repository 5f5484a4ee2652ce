"""The web server: pages, a JSON endpoint and live updates for each secret link.

Routes (TOKEN is a seat's or a spectator's secret):
  GET  /t/TOKEN            the table page (the same static page for every link)
  GET  /api/TOKEN          that viewer's page as JSON
  POST /api/TOKEN/decide   {"option": ID, "version": N} -> the new page, or {"error": ...}
  WS   /ws/TOKEN           the page at once and after every decision; send
                           {"type": "decide", "option": ID, "version": N}
An unknown token is a 404 that says nothing about which tables exist.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from importlib.resources import files

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..files import write_atomically
from ..validator.diagnostics import DiagnosticError
from .tables import Refused, Table, Tables

STATIC = files("rulebook.web") / "static"
MAX_MESSAGE = 4096  # a decision is a few dozen bytes; anything longer is refused unread

SECURITY_HEADERS = {
    # the page loads nothing from elsewhere and talks only to this server
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",  # a link holds a seat's secret: never pass it on
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}


class TableServer:
    """Tables, who is watching each, and the bots that play between people's decisions."""

    def __init__(self, tables: Tables, bot_delay: float = 0.0):
        self.tables = tables
        self.bot_delay = bot_delay
        self.watchers: dict[str, set[tuple[WebSocket, int | None]]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.bots: dict[str, asyncio.Task] = {}

    def lookup(self, token: str) -> tuple[Table, int | None] | None:
        return self.tables.by_token.get(token) if isinstance(token, str) else None

    def lock(self, table: Table) -> asyncio.Lock:
        return self.locks.setdefault(table.id, asyncio.Lock())

    async def decide(self, table: Table, seat: int | None, message) -> None:
        """Apply a person's decision (Refused: nothing changed), tell everyone, let bots play."""
        if seat is None:
            raise Refused("a spectator makes no decisions")
        if not isinstance(message, dict):
            raise Refused("a decision is a JSON object with an option and a version")
        async with self.lock(table):
            table.decide(seat, message.get("option"), message.get("version"))
            await self.save(table)
        await self.broadcast(table)
        self.start_bots(table)

    def start_bots(self, table: Table) -> None:
        running = self.bots.get(table.id)
        if table.bot_to_move() and (running is None or running.done()):
            self.bots[table.id] = asyncio.get_running_loop().create_task(self._bots(table))

    async def _bots(self, table: Table) -> None:
        while table.bot_to_move():
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)  # so people see each bot move
            async with self.lock(table):
                if not table.bot_to_move():
                    break
                try:
                    table.play_bot()
                except Exception as e:  # a bug, not the rules (those stop the game): say so
                    print(f"table {table.id}: a bot could not decide ({type(e).__name__})",
                          file=sys.stderr)
                    return
                await self.save(table)
            await self.broadcast(table)

    async def save(self, table: Table) -> None:
        """Save before anyone hears of the decision; the disk is waited for in a thread, so
        other tables play on meanwhile (the table's lock keeps its saves in order)."""
        try:
            await asyncio.to_thread(write_atomically, table.save_path, table.save_text())
        except DiagnosticError as e:  # a full disk: play goes on, and the host is told
            print(f"table {table.id}: not saved: {e.diagnostics[0].message}", file=sys.stderr)

    async def broadcast(self, table: Table) -> None:
        pages: dict[int | None, str] = {}
        for ws, seat in list(self.watchers.get(table.id, ())):
            if seat not in pages:
                pages[seat] = json.dumps({"type": "page", "page": table.page(seat)})
            try:
                await ws.send_text(pages[seat])
            except Exception:  # a browser that went away: it gets the page when it comes back
                self.watchers[table.id].discard((ws, seat))

    # ----------------------------------------------------------------------- endpoints
    async def page(self, request: Request):
        if self.lookup(request.path_params["token"]) is None:
            return _not_found()
        return FileResponse(str(STATIC / "table.html"), media_type="text/html")

    async def api_page(self, request: Request):
        found = self.lookup(request.path_params["token"])
        if found is None:
            return _not_found()
        table, seat = found
        return JSONResponse(table.page(seat))

    async def api_decide(self, request: Request):
        found = self.lookup(request.path_params["token"])
        if found is None:
            return _not_found()
        table, seat = found
        body = await request.body()
        try:
            if len(body) > MAX_MESSAGE:
                raise Refused("the message is too long")
            await self.decide(table, seat, _json(body))
        except Refused as e:
            return JSONResponse({"error": str(e), "page": table.page(seat)}, status_code=409)
        return JSONResponse(table.page(seat))

    async def socket(self, ws: WebSocket):
        found = self.lookup(ws.path_params["token"])
        if found is None:
            await ws.close(code=4404)
            return
        table, seat = found
        await ws.accept()
        entry = (ws, seat)
        self.watchers.setdefault(table.id, set()).add(entry)
        try:
            await ws.send_text(json.dumps({"type": "page", "page": table.page(seat)}))
            self.start_bots(table)  # a table resumed with a bot to move goes on
            while True:
                text = await ws.receive_text()
                try:
                    if len(text) > MAX_MESSAGE:
                        raise Refused("the message is too long")
                    message = _json(text)
                    if not isinstance(message, dict) or message.get("type") != "decide":
                        raise Refused('send {"type": "decide", "option": ID, "version": N}')
                    await self.decide(table, seat, message)
                except Refused as e:
                    await ws.send_text(json.dumps({"type": "error", "message": str(e),
                                                   "page": table.page(seat)}))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.watchers.get(table.id, set()).discard(entry)


def _json(text):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise Refused("the message is not JSON") from None


def _not_found():
    return PlainTextResponse("No table has this link. Ask whoever started the game for yours.",
                             status_code=404)


async def _home(request: Request):
    return PlainTextResponse("A rulebook table server: open the link you were given.")


class _SecurityHeaders:
    """Adds SECURITY_HEADERS to every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        headers = dict(SECURITY_HEADERS)
        if scope["path"].startswith("/p/"):  # the playground's editor styles itself inline
            headers["content-security-policy"] = headers["content-security-policy"].replace(
                "style-src 'self'", "style-src 'self' 'unsafe-inline'")

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *(
                    (k.encode(), v.encode()) for k, v in headers.items())]
            await send(message)
        await self.app(scope, receive, send_with_headers)


def create_app(tables: Tables, bot_delay: float = 0.0, playground=None) -> Starlette:
    """The server of `tables`; with a `playground` (web/playground.py), its routes too."""
    server = TableServer(tables, bot_delay)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        for table in tables.by_id.values():  # a bot that moves first, or a resumed table
            server.start_bots(table)
        yield

    app = Starlette(lifespan=lifespan, routes=[
        Route("/", _home),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/t/{token}", server.page),
        Route("/api/{token}", server.api_page),
        Route("/api/{token}/decide", server.api_decide, methods=["POST"]),
        WebSocketRoute("/ws/{token}", server.socket),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        *(playground.routes() if playground else ()),
    ], middleware=[Middleware(_SecurityHeaders)])
    app.state.server = server
    return app
