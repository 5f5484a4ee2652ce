"""Random playouts per bundled ruleset: games/second and decisions/second. Prints, never asserts.

    python benchmarks/bench_playout.py [--games N] [--seconds S]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench_args import duration, positive_int
from rulebook import api
from rulebook.interpreter.simulate import play_one

ROOT = Path(__file__).resolve().parents[1] / "rulesets"


def bundled() -> list[tuple[str, int]]:
    """(ruleset path, players) for every game and variant file under rulesets/."""
    from rulebook.grammar.parser import parse_file

    out = []
    for path in sorted(ROOT.rglob("*.rules")):
        if "tests" in path.parts:
            continue
        header = parse_file(path).header
        if header is None:
            continue
        rules = api.load(str(path))
        for n in sorted({rules.min_players, rules.max_players}):
            out.append((str(path), n))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=positive_int, default=50)
    ap.add_argument("--seconds", type=duration, default=10.0, help="time cap per ruleset")
    args = ap.parse_args()
    print(f"{'ruleset':50} {'players':>7} {'games':>6} {'games/s':>9} {'decisions/s':>12} {'errors':>6}")
    for path, players in bundled():
        rules = api.load(path)
        start = time.perf_counter()
        games = decisions = errors = 0
        while games < args.games and time.perf_counter() - start < args.seconds:
            rec = play_one(rules, players, games, games, "random")
            games += 1
            decisions += rec.decisions
            errors += rec.error is not None
        secs = time.perf_counter() - start
        name = str(Path(path).relative_to(ROOT))
        print(f"{name:50} {players:>7} {games:>6} {games / secs:>9.1f} {decisions / secs:>12.0f} {errors:>6}")


if __name__ == "__main__":
    main()
