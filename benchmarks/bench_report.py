"""The time to write a balance report, as a share of the time to simulate its games (the goal:
under 5% for 10,000 games). Prints, never asserts.

    python benchmarks/bench_report.py [--games N] [--ruleset R] [--players P] [--jobs J]

Also printed: what recording the report's per-game figures costs, against a plain `simulate`.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from functools import partial

from rulebook import api
from rulebook.interpreter.simulate import simulate as plain_simulate
from rulebook.report import Setting, simulate, write_report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--ruleset", default="liqueur")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    rules = api.load(args.ruleset)
    setting = Setting(args.ruleset, players=args.players)
    _, plain = plain_simulate(rules, partial(api.load, args.ruleset), args.games, args.players,
                              0, args.jobs)
    results = simulate(setting, args.games, seed=0, jobs=args.jobs)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        write_report(results, folder, rules)
        writing = time.perf_counter() - start
    print(f"{args.games:,} random games of {args.ruleset}, {args.players} players, "
          f"jobs {args.jobs}")
    print(f"plain simulate:          {plain:8.2f} s")
    print(f"simulate with recording: {results.seconds:8.2f} s "
          f"(recording costs {100 * (results.seconds / plain - 1):+.1f}%)")
    print(f"report writing:          {writing:8.2f} s = "
          f"{100 * writing / results.seconds:.1f}% of the simulation")


if __name__ == "__main__":
    main()
