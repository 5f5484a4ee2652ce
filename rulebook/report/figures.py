"""The figures of a balance report, as plain data (tables of rows): what the HTML page shows,
what figures.json and the CSV files hold, and what the terminal summary prints."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from statistics import pstdev

from .results import GameResult, SimulationResults
from .stats import difference_of_rates, mean_interval, quantiles, seat_balance, wilson
from .watch import decision_place

MAX_ERRORS_SHOWN = 20
FIRST_DECISIONS_SHOWN = 12


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _spread(values: list[float]) -> dict:
    """Mean with its 95% interval, standard deviation and quartiles."""
    if not values:
        return {"n": 0}
    ci = mean_interval(values)
    return {"n": len(values), "mean": ci.estimate, "low": ci.low, "high": ci.high,
            "sd": pstdev(values), **quantiles(values)}


def win_rates(results: SimulationResults) -> dict:
    done = results.completed()
    wins = Counter(w for g in done for w in g.winners)
    rows = []
    for seat in range(1, results.seats + 1):
        ci = wilson(wins[seat], len(done))
        rows.append({"seat": seat, "automaton": seat in results.automaton_seats,
                     "wins": wins[seat], "games": len(done), "rate": ci.estimate,
                     "low": ci.low, "high": ci.high})
    players = [wins[s] for s in range(1, results.players + 1)]
    test = seat_balance(players)
    return {"rows": rows, "fair_rate": 1 / results.players if results.players else None,
            "shared_victories": sum(1 for g in done if len(g.winners) > 1),
            "no_winner": sum(1 for g in done if not g.winners),
            "balance": None if test is None else {**test.as_dict(),
                                                  "balanced_at_5_percent": test.balanced()}}


def scores(results: SimulationResults) -> dict:
    per_seat: dict[int, list[float]] = defaultdict(list)
    for g in results.completed():
        for seat, v in g.scores.items():
            if _number(v):
                per_seat[int(seat)].append(v)
    return {"rows": [{"seat": s, **_spread(per_seat[s])} for s in range(1, results.seats + 1)],
            "values": {str(s): per_seat[s] for s in range(1, results.seats + 1)}}


def lengths(results: SimulationResults) -> dict:
    done = results.completed()
    measures = {"decisions": [g.decisions for g in done], "rounds": [g.rounds for g in done],
                "turns": [g.turns for g in done]}
    per_turn = [g.decisions / g.turns for g in done if g.turns]
    widths: Counter = Counter()
    for g in done:
        for k, n in g.widths:
            widths[k] += n
    total = sum(widths.values())
    return {"rows": [{"measure": m, **_spread(v)} for m, v in measures.items() if any(v)],
            "values": {m: v for m, v in measures.items() if any(v)},
            "decisions_per_turn": _spread(per_turn), "decisions_per_turn_values": per_turn,
            "options_per_decision": {
                "mean": sum(k * n for k, n in widths.items()) / total if total else None,
                "rows": [{"options": k, "decisions": widths[k]} for k in sorted(widths)]}}


def options(results: SimulationResults, declared: list[tuple[str, str]] = ()) -> dict:
    """How often each option is offered and taken, and its win association: the win rate of a
    seat that took it in a game against that of a seat offered it there that did not."""
    offered: Counter = Counter()
    taken: Counter = Counter()
    # (name, place) -> [games taken, wins then, games offered not taken, wins then]
    association: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for g in results.completed():
        winners = set(g.winners)
        for name, place, seat, n_offered, n_taken in g.options:
            offered[name, place] += n_offered
            taken[name, place] += n_taken
            a = association[name, place]
            k = 0 if n_taken else 2
            a[k] += 1
            a[k + 1] += seat in winners
    names = Counter(name for name, _ in set(offered) | set(declared))  # places per name
    rows = []
    for key in sorted(offered):
        name, place = key
        t_games, t_wins, n_games, n_wins = association[key]
        diff = difference_of_rates(n_wins, n_games, t_wins, t_games)
        rows.append({
            "option": _shown(name, place, names), "name": name, "decision": place,
            "offered": offered[key], "taken": taken[key],
            "take_rate": taken[key] / offered[key] if offered[key] else None,
            "win_rate_taken": t_wins / t_games if t_games else None,
            "win_rate_not_taken": n_wins / n_games if n_games else None,
            "win_difference": diff.estimate, "low": diff.low, "high": diff.high})
    never_taken = [r["option"] for r in rows if not r["taken"]]
    never_offered = [_shown(n, p, names) for n, p in declared if (n, p) not in offered]
    return {"rows": rows, "never_taken": never_taken, "never_offered": never_offered}


def _shown(name: str, place: str, names: Counter) -> str:
    """An option's name, with where its decision is written when another decision has an
    option of the same name."""
    return f"{name} ({place})" if names[name] > 1 and place else name


def phase_time(results: SimulationResults) -> dict:
    total: dict[str, float] = defaultdict(float)
    for g in results.games:
        for phase, seconds in g.phase_seconds.items():
            total[phase] += seconds
    whole = sum(total.values())
    n = len(results.games) or 1
    return {"rows": [{"phase": p, "seconds": s, "share": s / whole if whole else 0.0,
                      "ms_per_game": 1000 * s / n}
                     for p, s in sorted(total.items(), key=lambda kv: -kv[1])],
            "note": "time from each decision to the next, by the phase the span began in"}


def errors(results: SimulationResults) -> dict:
    failed = results.errors()
    codes = Counter(g.error.get("code", "?") for g in failed)
    return {"count": len(failed), "by_code": dict(sorted(codes.items())),
            "rows": [_error_row(results, g) for g in failed[:MAX_ERRORS_SHOWN]]}


def _error_row(results: SimulationResults, g: GameResult) -> dict:
    e = g.error
    return {"game": g.index, "seed": g.seed, "code": e.get("code"), "message": e.get("message"),
            "file": e.get("file"), "line": e.get("line"), "decisions": g.decisions,
            "first_decisions": [f"{seat}:{option}" for seat, option
                                in g.history[:FIRST_DECISIONS_SHOWN]],
            "replay": replay_command(results, g)}


def replay_command(results: SimulationResults, g: GameResult) -> str:
    """The command that plays this one game again, exactly (game i of a run is the first game
    of a run seeded with its own seed)."""
    s = results.setting
    parts = ["rulebook simulate", s.ruleset, *(f"--variant {v}" for v in s.variants),
             f"--players {results.players}", f"--agent {s.agent}", "--games 1", f"--seed {g.seed}"]
    return " ".join(parts)


def declared_options(rules) -> list[tuple[str, str]]:
    """Every option the rules declare, with where its decision is written."""
    found: list[tuple[str, str]] = []

    def walk(node) -> None:
        kind = getattr(node, "kind", None)
        if kind == "choose":
            found.extend((o.name, decision_place(node)) for o in node.options)
        elif kind == "compose":
            found.extend((o.name, decision_place(node)) for s in node.steps for o in s.options)
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif hasattr(node, "__pydantic_fields__"):
            for name in type(node).__pydantic_fields__:
                value = getattr(node, name)
                if isinstance(value, list) or hasattr(value, "__pydantic_fields__"):
                    walk(value)

    walk(rules.program)
    return sorted(set(found))


def all_figures(results: SimulationResults, declared: list[tuple[str, str]] = ()) -> dict:
    s = results.setting
    return {
        "summary": {"title": results.title, "setting": s.label(), "ruleset": s.ruleset,
                    "variants": list(s.variants), "players": results.players,
                    "seats": results.seats, "agent": s.agent,
                    "seat_agents": {str(k): v for k, v in s.seat_agents},
                    "seed": results.seed, "games": len(results.games),
                    "completed": len(results.completed()), "errors": len(results.errors()),
                    "seconds": results.seconds, "ran_on": results.ran_on,
                    "games_per_second": len(results.games) / results.seconds
                    if results.seconds else None},
        "win_rate": win_rates(results), "scores": scores(results), "length": lengths(results),
        "options": options(results, declared), "phase_time": phase_time(results),
        "errors": errors(results)}
