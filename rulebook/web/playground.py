"""The playground: edit one rules file in the browser, see `rulebook check`'s diagnostics as you
type, run the file's scenarios, and play the edited rules at a hot-seat table.

Every request carries the playground's secret (its link), so no other web page a person visits
can write the file or run rules through it. The file is the one named on the command line: no
request names a path.
"""
from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from ..files import write_atomically
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .tables import Tables

MAX_TEXT = 1 << 20  # a rules file larger than 1 MiB is not edited in a browser
MAX_GAMES = 1000  # a simulation from the page stays a matter of seconds
DEFAULT_GAMES = 200


def _diagnostic(d: Diagnostic, file: str) -> dict:
    return {"code": d.code, "message": d.message, "severity": d.severity, "hint": d.hint,
            "line": d.line, "column": d.column, "end_line": d.end_line,
            "end_column": d.end_column,
            # another file of the chain (the game a variant extends): named, not quoted
            "file": None if d.file in (None, file) else Path(d.file).name}


class Playground:
    def __init__(self, path: str | Path, token: str, tables: Tables, static: Path):
        self.path = Path(path).resolve()
        self.token, self.tables, self.static = token, tables, static
        self.lock = asyncio.Lock()  # one check or run at a time: the file is shared
        self.simulating = asyncio.Lock()

    def routes(self) -> list[Route]:
        p = "/p/{token}"
        return [Route(p, self.page), Route(p + "/file", self.read),
                Route(p + "/save", self.save, methods=["POST"]),
                Route(p + "/scenarios", self.scenarios, methods=["POST"]),
                Route(p + "/play", self.play, methods=["POST"]),
                Route(p + "/simulate", self.simulate, methods=["POST"])]

    def _allowed(self, request: Request) -> bool:
        return secrets.compare_digest(request.path_params["token"].encode(), self.token.encode())

    async def page(self, request: Request):
        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        return FileResponse(str(self.static / "playground.html"), media_type="text/html")

    async def read(self, request: Request):
        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        return JSONResponse({"name": self.path.name, "text": self.path.read_text("utf-8"),
                             **self._checked()})

    async def save(self, request: Request):
        """Write the text to the file, then check it as `rulebook check` does."""
        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        body = await request.body()
        if len(body) > MAX_TEXT:
            return JSONResponse({"error": "the text is longer than 1 MiB"}, status_code=413)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return JSONResponse({"error": "the text is not UTF-8"}, status_code=400)
        async with self.lock:
            try:
                write_atomically(self.path, text)
            except DiagnosticError as e:
                return JSONResponse({"error": e.diagnostics[0].message}, status_code=500)
            return JSONResponse(self._checked())

    def _checked(self) -> dict:
        from ..validator.check import check_path, list_assumptions

        file = str(self.path)
        result = check_path(file)
        found = sorted(result.diagnostics, key=lambda d: d.sort_key())
        try:
            assumed = list_assumptions([file])
        except DiagnosticError:
            assumed = []
        return {"diagnostics": [_diagnostic(d, file) for d in found],
                "assumptions": [{"line": a["line"], "name": a["name"], "reason": a["reason"]}
                                for a in assumed]}

    async def scenarios(self, request: Request):
        """Run the file's scenarios (the file as last saved)."""
        from ..scenarios import run_file

        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        file = str(self.path)
        async with self.lock:
            outcome = run_file(file, self.tables.limits)
        return JSONResponse({
            "held": outcome.held,
            "diagnostics": [_diagnostic(d, file) for d in outcome.diagnostics],
            "results": [{"name": r.name, "line": r.line, "passed": r.passed,
                         "failures": [_diagnostic(d, file) for d in r.failures]}
                        for r in outcome.results]})

    async def play(self, request: Request):
        """A hot-seat table of the saved rules: one link whose page is always the view of
        the seat that decides now (pass the screen around, as at the terminal)."""
        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        try:
            wanted = (await request.json()).get("players")
        except ValueError:
            wanted = None
        players = wanted if isinstance(wanted, int) and 1 <= wanted <= 100 else None
        try:
            table = self.tables.create(str(self.path), (), players, hot_seat=True)
        except DiagnosticError as e:
            return JSONResponse({"error": "the rules cannot be played: " + "; ".join(
                f"{d.code} {d.message}" for d in e.diagnostics[:3])}, status_code=400)
        return JSONResponse({"link": f"/t/{table.link(0)}"})

    async def simulate(self, request: Request):
        """Bots play the saved rules a few hundred times through the balance report's own
        simulation; its figures (win rates with intervals, the balance test) and its plots."""
        if not self._allowed(request):
            return JSONResponse({"error": "no playground has this link"}, status_code=404)
        try:
            import matplotlib  # noqa: F401  (the report's plots and tests: its extra)
            import scipy  # noqa: F401
        except ImportError as e:
            return JSONResponse({"error": f"the simulation panel needs {e.name}, which is not "
                                          "installed: pip install 'rulebook[report]'"},
                                status_code=501)
        from .. import api
        from . import simulation

        try:
            games, players = simulation_asked(await request.json())
        except ValueError:
            games, players = simulation_asked(None)
        try:
            rules = api.load(str(self.path))
            if players is not None and not rules.min_players <= players <= rules.max_players:
                return JSONResponse({"error": f"{rules.title} is for {rules.min_players} to "
                                              f"{rules.max_players} players"}, status_code=400)
            async with self.simulating:  # one at a time: more clicks wait, not share the cores
                found = await asyncio.to_thread(simulation.run, self.path, games, players,
                                                self.tables.limits)
        except DiagnosticError as e:
            return JSONResponse({"error": "the rules cannot be played: " + "; ".join(
                f"{d.code} {d.message}" for d in e.diagnostics[:3])}, status_code=400)
        return JSONResponse(found)


def simulation_asked(asked) -> tuple[int, int | None]:
    """The games (capped) and players a page asks for; anything else means the defaults."""
    asked = asked if isinstance(asked, dict) else {}
    games, players = asked.get("games"), asked.get("players")
    whole = (lambda v: isinstance(v, int) and not isinstance(v, bool))
    return (games if whole(games) and 1 <= games <= MAX_GAMES else DEFAULT_GAMES,
            players if whole(players) and 1 <= players <= 100 else None)
