"""Run a simulation in this process, in worker processes or on a Dask cluster.

Game i is played from seed `seed + i` and knows nothing of the others, so the games can be
split in batches anyhow, run anywhere, lost and run again: sorted by index, the results are the
same. Workers receive a `Setting` and load the rules themselves (api.load keeps them compiled
between batches)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from ..interpreter.simulate import batch_spans, play_one, run_in_processes
from ..interpreter.state import Limits
from .results import GameResult, Setting, SimulationResults
from .watch import MAX_KEPT_DECISIONS, GameWatch

Progress = Callable[[int], None]


def play_watched(rules, setting: Setting, index: int, seed: int,
                 limits: Limits | None = None) -> GameResult:
    """One game, as `simulate` plays it, with what it offered and took recorded."""
    watch = GameWatch()
    record = play_one(rules, setting.players, index, seed, setting.agents, limits,
                      setting.invariants, watch=watch)
    watch.finish()
    game = watch.game
    history = []
    if record.error is not None and game is not None:
        history = [(h["player"], h["option"]) for h in game.history[:MAX_KEPT_DECISIONS]]
    return GameResult(
        record.index, record.seed, record.winners, record.scores, record.decisions,
        record.rounds, record.turns, record.steps, record.error,
        options=sorted((name, place, seat, n, watch.taken[name, place, seat])
                       for (name, place, seat), n in watch.offered.items()),
        widths=sorted(watch.widths.items()), history=history,
        phase_seconds=dict(watch.phase_seconds))


def load_rules(setting: Setting):
    from ..api import load

    return load(setting.ruleset, setting.variants)


def run_batch(setting: Setting, first: int, last: int, seed: int,
              limits: Limits | None = None) -> list[GameResult]:
    """Games first..last-1 (what a worker runs)."""
    rules = load_rules(setting)
    return [play_watched(rules, setting, i, seed + i, limits) for i in range(first, last)]


def simulate(setting: Setting, games: int, seed: int = 0, jobs: int = 1,
             cluster: str | None = None, limits: Limits | None = None,
             progress: Progress | None = None) -> SimulationResults:
    """Play `games` games of `setting` and gather their results (see the module's docstring).
    `cluster` is None (processes: `jobs`), "local" (a Dask LocalCluster of `jobs` workers),
    the address of a running Dask scheduler (`tcp://HOST:PORT`) or an open Dask Client."""
    rules = load_rules(setting)  # at once, so that bad rules are reported before any work
    start = time.perf_counter()
    if cluster is not None:
        from .cluster import run_on_cluster

        found, ran_on = run_on_cluster(cluster, setting, games, seed, jobs, limits, progress)
    elif jobs <= 1:
        found, ran_on = _run_here(rules, setting, games, seed, limits, progress), "1 process"
    else:
        found = _run_in_processes(setting, games, seed, jobs, limits, progress)
        ran_on = f"{jobs} processes"
    results = sorted(found, key=lambda g: g.index)
    players = setting.players or rules.min_players
    return SimulationResults(setting, rules.title, players, players + len(rules.automata),
                             seed, results, time.perf_counter() - start, ran_on)


def _run_here(rules, setting, games, seed, limits, progress) -> Iterator[GameResult]:
    for i in range(games):
        yield play_watched(rules, setting, i, seed + i, limits)
        if progress:
            progress(1)


def _run_in_processes(setting, games, seed, jobs, limits, progress) -> list[GameResult]:
    found: list[GameResult] = []
    arg_sets = [(setting, first, last, seed, limits) for first, last in batch_spans(games, jobs)]
    for batch in run_in_processes(min(jobs, games), run_batch, arg_sets):
        _take(batch, found, progress)
    return found


def _take(batch: list[GameResult], found: list[GameResult], progress: Progress | None) -> None:
    found.extend(batch)
    if progress:
        progress(len(batch))
