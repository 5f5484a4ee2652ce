"""Many games with bots, in one or several processes, with results independent of the split."""
from __future__ import annotations

import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ..validator.diagnostics import DiagnosticError
from .agents import agent_seed, agents_for, play_out  # noqa: F401 - agent_seed: kept importable here
from .game import Game
from .rules import Rules
from .state import Limits


@dataclass
class GameRecord:
    index: int
    seed: int
    winners: list[int]
    scores: dict
    decisions: int
    rounds: int
    turns: int
    steps: int
    error: dict | None


def play_one(rules: Rules, players: int | None, index: int, seed: int, agent: str | dict,
             limits: Limits | None = None, invariants: str = "turn",
             watch: Callable[[Game, dict], dict] | None = None) -> GameRecord:
    """One game. `agent` is a kind for every seat, or {seat: kind} with "*" for the others
    (random where not given; see `agents.agents_for`). `watch(game, agents)`, when given, sees
    the game before its first decision and returns the agents to play with (the same ones,
    wrapped to record what they are offered and take)."""
    state = None  # without a watcher, the game is begun by `play_out`: its bots answer the
    # first decisions where they are asked too
    try:
        game = Game(rules, players, seed, limits, invariants=invariants, log=False,
                    _start=watch is not None)
    except DiagnosticError as e:
        return _failed_before_deciding(index, seed, e)
    if watch is None:
        state = game.new_state()
        agents = agents_for(agent, seed, state.seats)
    else:
        agents = watch(game, agents_for(agent, seed, game.state.seats))
    error = None
    decisions = 0
    try:
        decisions = play_out(game, agents, state=state).decisions
    except DiagnosticError as e:
        if not game.history:  # as a game that fails before its first decision is recorded
            return _failed_before_deciding(index, seed, e)
        error = e.diagnostics[0].to_dict()
        decisions = len(game.history)
    scores = game.scores() if error is None else {}
    return GameRecord(index, seed, [s.seat for s in game.state.winners], scores, decisions,
                      game.state.round, game.state.turns, game.state.steps, error)


def _failed_before_deciding(index: int, seed: int, failure: DiagnosticError) -> GameRecord:
    return GameRecord(index, seed, [], {}, 0, 0, 0, 0, failure.diagnostics[0].to_dict())


_worker_rules: Rules | None = None
_worker_limits: Limits | None = None


def _init_worker(loader: Callable[[], Rules], limits: Limits | None) -> None:
    global _worker_rules, _worker_limits
    _worker_rules, _worker_limits = loader(), limits


def _work(args) -> list[GameRecord]:
    players, first, last, base_seed, agent, invariants = args
    return [play_one(_worker_rules, players, i, base_seed + i, agent, _worker_limits, invariants)
            for i in range(first, last)]


def batch_spans(games: int, workers: int) -> list[tuple[int, int]]:
    """Games 0..games-1 as (first, last) batches: small enough to share out evenly among
    `workers` and show progress, large enough that sending one costs little next to playing it."""
    size = max(1, min(50, games // (workers * 8) or 1))
    return [(s, min(games, s + size)) for s in range(0, games, size)]


def run_in_processes(jobs: int, work: Callable, arg_sets: Iterable[tuple],
                     initializer: Callable | None = None, initargs: tuple = ()) -> Iterator:
    """`work(*args)` for each of `arg_sets` in `jobs` worker processes, yielded in the order
    given. Only a few per worker are submitted ahead, never all of them at once, so that a long
    run holds little in memory."""
    with ProcessPoolExecutor(max_workers=jobs, initializer=initializer,
                             initargs=initargs) as pool:
        waiting: deque = deque()
        for args in arg_sets:
            waiting.append(pool.submit(work, *args))
            while len(waiting) > 4 * jobs or (waiting and waiting[0].done()):
                yield waiting.popleft().result()
        while waiting:
            yield waiting.popleft().result()


def simulate(rules: Rules, loader: Callable[[], Rules], games: int, players: int | None,
             seed: int, jobs: int = 1, agent: str = "random",
             progress: Callable[[int], None] | None = None,
             limits: Limits | None = None,
             invariants: str = "turn") -> tuple[list[GameRecord], float]:
    """Play `games` games; game i uses seed `seed + i`, so results do not depend on `jobs`."""
    start = time.perf_counter()
    records: list[GameRecord] = []
    if jobs <= 1:
        for i in range(games):
            records.append(play_one(rules, players, i, seed + i, agent, limits, invariants))
            if progress:
                progress(1)
    else:
        spans = batch_spans(games, jobs)
        arg_sets = [((players, first, last, seed, agent, invariants),) for first, last in spans]
        for batch in run_in_processes(min(jobs, len(spans)), _work, arg_sets,
                                      _init_worker, (loader, limits)):
            records.extend(batch)
            if progress:
                progress(len(batch))
    records.sort(key=lambda r: r.index)
    return records, time.perf_counter() - start


def summarise(records: list[GameRecord], seats: int) -> dict:
    ok = [r for r in records if r.error is None]
    wins = {s: 0 for s in range(1, seats + 1)}
    shared = 0
    score_sum = {s: 0 for s in range(1, seats + 1)}
    score_n = {s: 0 for s in range(1, seats + 1)}
    for r in ok:
        if len(r.winners) > 1:
            shared += 1
        for w in r.winners:
            wins[w] = wins.get(w, 0) + 1
        for s, v in r.scores.items():
            if isinstance(v, int) and not isinstance(v, bool):
                score_sum[int(s)] = score_sum.get(int(s), 0) + v
                score_n[int(s)] = score_n.get(int(s), 0) + 1
    lengths = [r.decisions for r in ok]
    rounds = [r.rounds for r in ok]
    turns = [r.turns for r in ok]
    return {
        "games": len(records),
        "completed": len(ok),
        "errors": len(records) - len(ok),
        "wins_per_seat": {str(s): wins[s] for s in sorted(wins)},
        "shared_victories": shared,
        "mean_score_per_seat": {str(s): round(score_sum[s] / score_n[s], 3) if score_n.get(s)
                                else None for s in sorted(score_sum)},
        "decisions_per_game": {"mean": round(sum(lengths) / len(lengths), 2) if lengths else 0,
                               "min": min(lengths, default=0), "max": max(lengths, default=0)},
        "rounds_per_game": {"mean": round(sum(rounds) / len(rounds), 2) if rounds else 0,
                            "min": min(rounds, default=0), "max": max(rounds, default=0)},
        "turns_per_game": {"mean": round(sum(turns) / len(turns), 2) if turns else 0,
                           "min": min(turns, default=0), "max": max(turns, default=0)},
        "total_decisions": sum(r.decisions for r in records),
        "first_errors": [dict(r.error, game=r.index, seed=r.seed)
                         for r in records if r.error][:5],
    }
