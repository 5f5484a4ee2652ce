"""Compare runs (rulesets, variants, agents): each against the first, with 95% intervals.

Win rates per seat are compared with Newcombe's interval of a difference of proportions; mean
scores and game lengths with Welch's interval of a difference of means; error rates as
proportions. An interval that leaves out 0 is a difference the games show."""
from __future__ import annotations

from collections import Counter

from . import html as H
from .results import SimulationResults
from .stats import difference_of_means, difference_of_rates, wilson


def _wins(r: SimulationResults) -> Counter:
    return Counter(w for g in r.completed() for w in g.winners)


def _scores(r: SimulationResults, seat: int) -> list[float]:
    return [g.scores[seat] for g in r.completed()
            if isinstance(g.scores.get(seat), (int, float))
            and not isinstance(g.scores.get(seat), bool)]


def _row(label: str, what: str, kind: str, base, other, ci) -> dict:
    return {"run": label, "what": what, "kind": kind, "baseline": base, "value": other,
            "difference": ci.estimate, "low": ci.low, "high": ci.high,
            "shows_a_difference": not (ci.low <= 0 <= ci.high)}


def compare(runs: list[SimulationResults]) -> dict:
    base = runs[0]
    runs_table = []
    for r in runs:
        done = r.completed()
        wins = _wins(r)
        runs_table.append({
            "run": r.setting.label(), "title": r.title, "games": len(r.games),
            "completed": len(done), "errors": len(r.errors()), "players": r.players,
            "seed": r.seed,
            "win_rate": [{"seat": s, **wilson(wins[s], len(done)).as_dict()}
                         for s in range(1, r.seats + 1)]})
    diffs = []
    b_done, b_wins = base.completed(), _wins(base)
    for r in runs[1:]:
        label, done, wins = r.setting.label(), r.completed(), _wins(r)
        for seat in range(1, min(base.seats, r.seats) + 1):
            ci = difference_of_rates(b_wins[seat], len(b_done), wins[seat], len(done))
            diffs.append(_row(label, f"seat {seat} win rate", "rate",
                              b_wins[seat] / len(b_done) if b_done else None,
                              wins[seat] / len(done) if done else None, ci))
        for seat in range(1, min(base.seats, r.seats) + 1):
            a, b = _scores(base, seat), _scores(r, seat)
            if a and b:
                ci = difference_of_means(a, b)
                diffs.append(_row(label, f"seat {seat} mean score", "mean",
                                  sum(a) / len(a), sum(b) / len(b), ci))
        for measure in ("decisions", "rounds", "turns"):
            a = [getattr(g, measure) for g in b_done]
            b = [getattr(g, measure) for g in done]
            if any(a) or any(b):
                ci = difference_of_means(a, b)
                diffs.append(_row(label, f"{measure} per game", "mean",
                                  sum(a) / len(a) if a else None,
                                  sum(b) / len(b) if b else None, ci))
        ci = difference_of_rates(len(base.errors()), len(base.games), len(r.errors()),
                                 len(r.games))
        diffs.append(_row(label, "games ending in error", "rate",
                          len(base.errors()) / len(base.games),
                          len(r.errors()) / len(r.games), ci))
    return {"baseline": base.setting.label(), "runs": runs_table, "differences": diffs}


def comparison_sections(f: dict, subfolders: list[str]) -> list[str]:
    from . import plots as P

    out = []
    series = [(run["run"], [{"seat": w["seat"], "rate": w["estimate"], "low": w["low"],
                             "high": w["high"]} for w in run["win_rate"]]) for run in f["runs"]]
    out.append(H.section(
        "Runs",
        H.table([dict(run, report=sub) for run, sub in zip(f["runs"], subfolders)], [
            ("run", lambda r: r["run"], "text"), ("game", lambda r: r["title"], "text"),
            ("players", lambda r: r["players"]), ("games", lambda r: H.number(r["games"])),
            ("errors", lambda r: H.number(r["errors"])), ("seed", lambda r: r["seed"]),
            ("full report", lambda r: r["report"], "text")]),
        H.image(P.data_uri(P.win_rates(series, None)), "win rate per seat in each run"),
        anchor="runs"))
    for kind, title, as_percent in (("rate", "Win and error rates", True),
                                    ("mean", "Scores and game length", False)):
        rows = [r for r in f["differences"] if r["kind"] == kind]
        if not rows:
            continue
        show = H.percent if as_percent else (lambda v: H.number(v, 2))
        named = [dict(r, what=f"{r['run']}: {r['what']}") for r in rows]
        out.append(H.section(
            f"{title}: differences against {f['baseline']}",
            H.image(P.data_uri(P.differences(named, "difference (95% interval)")),
                    f"{title} differences"),
            H.table(rows, [("run", lambda r: r["run"], "text"),
                           ("measure", lambda r: r["what"], "text"),
                           ("baseline", lambda r: show(r["baseline"])),
                           ("this run", lambda r: show(r["value"])),
                           ("difference", lambda r: show(r["difference"])),
                           ("95% interval", lambda r: H.interval(r, as_percent, 2)),
                           ("differs", lambda r: "yes" if r["shows_a_difference"] else "")]),
            anchor=kind))
    return out
