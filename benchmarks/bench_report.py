"""The time to write a balance report, as a share of the time to simulate its games (the goal:
under 5% for 10,000 games). Prints, never asserts.

    python benchmarks/bench_report.py [--games N] [--records M] [--ruleset R] [--players P]

With --records M (more than N), the N games played are repeated to M records before the report
is written, and the simulation time of M games is the measured time per game times M: the
report of 10,000 games without playing 10,000 games (an hour or more on a small machine).

Also printed: what recording the report's per-game figures costs, against a plain `simulate`.
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from functools import partial

from bench_args import count, loadable_ruleset, players_for, positive_int
from rulebook import api
from rulebook.interpreter.simulate import simulate as plain_simulate
from rulebook.report import Setting, simulate, write_report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=positive_int, default=2000)
    ap.add_argument("--ruleset", type=loadable_ruleset, default="liqueur")
    ap.add_argument("--players", type=positive_int, default=3)
    ap.add_argument("--jobs", type=positive_int, default=1)
    ap.add_argument("--records", type=count, default=0,
                    help="write the report of this many records (the games played, repeated)")
    args = ap.parse_args()
    players_for(ap, args.ruleset, args.players)
    rules = api.load(args.ruleset)
    setting = Setting(args.ruleset, players=args.players)
    _, plain = plain_simulate(rules, partial(api.load, args.ruleset), args.games, args.players,
                              0, args.jobs)
    results = simulate(setting, args.games, seed=0, jobs=args.jobs)
    simulated = results.seconds
    if args.records > args.games:
        played = results.games
        results.games = [dataclasses.replace(played[i % len(played)], index=i)
                         for i in range(args.records)]
        simulated = results.seconds * args.records / args.games
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        write_report(results, folder, rules)
        writing = time.perf_counter() - start
    print(f"{args.games:,} random games of {args.ruleset}, {args.players} players, "
          f"jobs {args.jobs}")
    print(f"plain simulate:          {plain:8.2f} s")
    print(f"simulate with recording: {results.seconds:8.2f} s "
          f"(recording costs {100 * (results.seconds / plain - 1):+.1f}%)")
    if args.records > args.games:
        print(f"{args.records:,} records (the games repeated); their simulation at the "
              f"measured rate: {simulated:8.1f} s")
    print(f"report writing ({len(results.games):,} games): {writing:8.2f} s = "
          f"{100 * writing / simulated:.2f}% of the simulation")


if __name__ == "__main__":
    main()
