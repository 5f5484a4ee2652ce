"""Random Liqueur games on a local Dask cluster of one worker, then of two: throughput, their
ratio, and each worker's resident memory over the run. Prints, never asserts.

    python benchmarks/bench_cluster.py [--games N] [--players P] [--workers 1 2]

The issue's goal is 100,000 games at 1.8x one worker's throughput with flat worker memory;
the default count is smaller so that a run takes minutes, not an hour (pass --games 100000).
"""
from __future__ import annotations

import argparse
import time

import dask
from bench_args import loadable_ruleset, players_for, positive_int
from distributed import Client, LocalCluster

from rulebook.report import Setting, simulate
from rulebook.report.cluster import PROFILE_OFF

MIB = 2 ** 20
SAMPLE_EVERY = 1.0  # seconds between two looks at the workers' memory


def worker_rss() -> int:
    import psutil

    return psutil.Process().memory_info().rss


def worker_cpu() -> float:
    """CPU seconds this worker has used: on a shared machine, what it was given."""
    import psutil

    times = psutil.Process().cpu_times()
    return times.user + times.system


def run(workers: int, setting: Setting, games: int, seed: int,
        profile: bool = False) -> tuple[float, float, dict]:
    """Seconds for `games` games on `workers` workers, the CPU seconds the workers were given,
    and each worker's memory samples."""
    with dask.config.set(PROFILE_OFF if not profile else {}):  # as `--cluster local` does
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    with cluster, Client(cluster) as client:
        simulate(setting, 2 * workers, seed, cluster=client)  # rules compiled on each worker
        samples: dict[str, list[int]] = {}
        last = [0.0]

        def sample(_done: int) -> None:
            if time.perf_counter() - last[0] >= SAMPLE_EVERY:
                last[0] = time.perf_counter()
                for address, rss in client.run(worker_rss).items():
                    samples.setdefault(address, []).append(rss)

        sample(0)
        cpu = sum(client.run(worker_cpu).values())
        start = time.perf_counter()
        results = simulate(setting, games, seed, cluster=client, progress=sample)
        seconds = time.perf_counter() - start
        cpu = sum(client.run(worker_cpu).values()) - cpu
        last[0] = 0.0
        sample(0)
        assert len(results.games) == games
        return seconds, cpu, samples


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=positive_int, default=3000)
    ap.add_argument("--players", type=positive_int, default=3)
    ap.add_argument("--ruleset", type=loadable_ruleset, default="liqueur",
                    help="another game, e.g. to run many quick ones")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=positive_int, nargs="+", default=[1, 2])
    ap.add_argument("--profile", action="store_true",
                    help="keep Dask's statistical profiler on (its history grows for an hour)")
    args = ap.parse_args()
    players_for(ap, args.ruleset, args.players)
    setting = Setting(args.ruleset, players=args.players)
    rates = {}
    print(f"{args.games:,} random games of {args.ruleset}, {args.players} players, "
          f"seed {args.seed}")
    for n in args.workers:
        seconds, cpu, samples = run(n, setting, args.games, args.seed, args.profile)
        rates[n] = args.games / seconds
        print(f"{n} worker{'s' if n > 1 else ' '}: {seconds:8.1f} s  {rates[n]:8.1f} games/s  "
              f"(workers given {cpu:.1f} CPU s: {args.games / cpu:.1f} games per CPU s)")
        for address, values in sorted(samples.items()):
            mib = [round(v / MIB) for v in values]
            step = max(1, len(mib) // 12)
            print(f"    worker {address}: memory MiB over the run {mib[::step]}, "
                  f"max {max(mib)}, last {mib[-1]}")
    if len(rates) > 1:
        low, high = min(rates), max(rates)
        print(f"throughput ratio {high} vs {low} workers: {rates[high] / rates[low]:.2f}x")


if __name__ == "__main__":
    main()
