"""The playground's simulation panel: the balance report's own simulation, figures and plots
(rulebook.report), cut to what fits beside an editor. Nothing here computes a figure or draws a
plot itself, so the panel and `rulebook simulate --report` cannot disagree."""
from __future__ import annotations

import threading
from pathlib import Path

from ..interpreter.state import Limits
from ..report import Setting, simulate
from ..report import figures as F
from ..report.writer import json_ready

SEED = 1  # game i is played from seed 1 + i, as `rulebook simulate` does by default
# pyplot keeps global state: two simulations finishing at once must not draw into one figure
_PLOTTING = threading.Lock()


def run(path: Path, games: int, players: int | None, limits: Limits | None) -> dict:
    """Play `games` bot games of the rules file at `path` and return the panel's figures and
    plots (PNG data URIs). Raises DiagnosticError when the rules cannot be played."""
    results = simulate(Setting(str(path), players=players), games, seed=SEED, limits=limits)
    wins, scores, length = F.win_rates(results), F.scores(results), F.lengths(results)
    mean_score = {r["seat"]: r.get("mean") for r in scores["rows"]}
    return json_ready({
        "title": results.title, "games": len(results.games),
        "completed": len(results.completed()), "errors": len(results.errors()),
        "players": results.players, "seed": SEED, "seconds": round(results.seconds, 2),
        "shared_victories": wins["shared_victories"], "no_winner": wins["no_winner"],
        "fair_rate": wins["fair_rate"], "balance": wins["balance"],
        "seats": [{**{k: r[k] for k in ("seat", "automaton", "wins", "games", "rate", "low",
                                        "high")}, "mean_score": mean_score.get(r["seat"])}
                  for r in wins["rows"]],
        "plots": _plots(wins, scores, length)})


def _plots(wins: dict, scores: dict, length: dict) -> list[dict]:
    """The report's plots of win rate, scores and game length (as its page draws them)."""
    from ..report import plots as P

    scored = {f"seat {r['seat']}": scores["values"][str(r["seat"])] for r in scores["rows"]}
    wanted = [("win rate per seat with 95% intervals",
               lambda: P.win_rates([("win rate", wins["rows"])], wins["fair_rate"]))]
    if any(scored.values()):  # a game may keep no score
        wanted.append(("score distribution per seat", lambda: P.distributions(scored, "score")))
    if length["values"]:
        wanted.append(("game length", lambda: P.histograms(length["values"], "per game")))
    with _PLOTTING:
        return [{"alt": alt, "src": P.data_uri(draw())} for alt, draw in wanted]
