"""Batches of games on a Dask cluster: a LocalCluster started here, or a running scheduler.

A batch is a pure function of its games' seeds, so a batch lost with its worker is simply run
again elsewhere (Dask reschedules it; `retries` covers a batch that failed outright), and the
results do not change. Only a few batches per worker are in flight at once, so that neither the
scheduler nor this process holds the whole run."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ..interpreter.state import Limits
from ..validator.diagnostics import Diagnostic, DiagnosticError
from .results import GameResult, Setting
from ..interpreter.simulate import batch_spans
from .runner import Progress, run_batch

RETRIES = 3
PROFILE_OFF = {"distributed.worker.profile.enabled": False}


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DiagnosticError([Diagnostic(
            "E0340", "`--cluster` needs Dask, which is not installed",
            hint="pip install 'rulebook[dask]' (or use --jobs N, which needs nothing more)")])
    return distributed


def open_client(cluster: str, workers: int):
    """A Dask client, and what to close after: `local` starts a LocalCluster of `workers`
    single-threaded worker processes (games hold the GIL); an address connects to it."""
    distributed = _distributed()
    if cluster == "local":
        import dask

        # Dask's statistical profiler keeps an hour of call trees of every task, which for a
        # game engine's deep stacks makes worker memory climb over a long run: off here.
        with dask.config.set(PROFILE_OFF):
            local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                             processes=True, dashboard_address=None)
        return distributed.Client(local), local
    if not cluster.startswith(("tcp://", "tls://", "ucx://", "inproc://")):
        raise DiagnosticError([Diagnostic(
            "E0340", f"`--cluster {cluster[:60]}` is neither `local` nor a scheduler address",
            hint="write --cluster local or --cluster tcp://HOST:PORT")])
    try:
        return distributed.Client(cluster, timeout="10s"), None
    except (OSError, TimeoutError) as e:
        raise DiagnosticError([Diagnostic(
            "E0340", f"cannot reach the Dask scheduler at {cluster[:80]}: {e}",
            hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`")])


def run_on_cluster(cluster, setting: Setting, games: int, seed: int, workers: int,
                   limits: Limits | None, progress: Progress | None
                   ) -> tuple[list[GameResult], str]:
    """Run the games on `cluster` ("local", an address, or an open `distributed.Client`);
    the results and where they ran."""
    own = isinstance(cluster, str)
    client, local = open_client(cluster, workers) if own else (cluster, None)
    try:
        return _run(client, setting, games, seed, limits, progress)
    finally:
        if own:
            client.close()
            if local is not None:
                local.close()


def _for_workers(setting: Setting) -> Setting:
    """A ruleset named by a path relative to here is named by its full path (a worker's
    current folder is its own); a bundled name stays as it is."""
    def full(ref: str) -> str:
        path = Path(ref)
        return str(path.resolve()) if path.exists() and not path.is_absolute() else ref

    return dataclasses.replace(setting, ruleset=full(setting.ruleset),
                               variants=tuple(map(full, setting.variants)))


def _run(client, setting, games, seed, limits, progress) -> tuple[list[GameResult], str]:
    distributed = _distributed()
    setting = _for_workers(setting)
    n = max(1, len(client.scheduler_info().get("workers", {})))
    ahead = 4 * n
    pending = iter(batch_spans(games, n))
    running = distributed.as_completed()

    def submit_next() -> bool:
        span = next(pending, None)
        if span is None:
            return False
        running.add(client.submit(run_batch, setting, span[0], span[1], seed, limits,
                                  retries=RETRIES, pure=False))
        return True

    for _ in range(ahead):
        if not submit_next():
            break
    found: list[GameResult] = []
    for future in running:
        batch = future.result()
        future.release()
        found.extend(batch)
        if progress:
            progress(len(batch))
        submit_next()
    return found, f"Dask cluster of {n} worker{'s' if n != 1 else ''}"
