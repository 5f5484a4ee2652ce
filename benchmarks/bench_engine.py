"""The engine against hand-written Python, and what copies, saves and loads cost. Prints figures
and ratios measured in this one run; asserts nothing (tests never depend on timing).

    python benchmarks/bench_engine.py [--seconds S] [--skip-jobs]

- tic-tac-toe: random games per second, rulebook vs `reference_tictactoe.py`;
- Liqueur and Beverage: random decisions per second vs `reference_liqueur.py` (3 players);
- copies: `clone()` of a Beverage game after 10 decisions and at its end; a finished save's
  load (from data) and its verified load (replayed); a state's size in memory;
- `simulate --jobs 2` against `--jobs 1` on 400 Liqueur games (wall time).

Figures are CPU time (`time.process_time`) except where wall time is the point (jobs). Other
work on the machine slows every figure; the ratios, measured side by side in alternating slices
of the same run, move less.
"""
from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import reference_liqueur  # noqa: E402
import reference_tictactoe  # noqa: E402
from bench_args import duration  # noqa: E402

from rulebook import api  # noqa: E402
from rulebook.interpreter.agents import RandomAgent  # noqa: E402
from rulebook.interpreter.game import Game  # noqa: E402
from rulebook.interpreter.simulate import play_one, simulate  # noqa: E402


class Meter:
    """Games and decisions of one way of playing (`play(i)` plays game i and returns the
    decisions it made), counted over slices of CPU time."""

    def __init__(self, play):
        self.play, self.games, self.decisions, self.spent = play, 0, 0, 0.0

    def run(self, seconds: float) -> None:
        start = time.process_time()
        while True:
            self.decisions += self.play(self.games)
            self.games += 1
            spent = time.process_time() - start
            if spent >= seconds:
                self.spent += spent
                return

    def rates(self) -> tuple[float, float]:
        """(games, decisions) per CPU second."""
        return self.games / self.spent, self.decisions / self.spent


def alternated(meters: list[Meter], seconds: float, slices: int = 5) -> list[tuple]:
    """Each meter run for `seconds` in all, in turns of a slice each: a machine whose speed
    drifts over minutes slows all of them alike, so their ratios move less."""
    for _ in range(slices):
        for meter in meters:
            meter.run(seconds / slices)
    return [meter.rates() for meter in meters]


def engine_player(ref: str, players: int):
    rules = api.load(ref)

    def play(i: int) -> int:
        record = play_one(rules, players, i, i, "random")
        if record.error is not None:
            raise SystemExit(f"{ref}: game {i} failed: {record.error}")
        return record.decisions
    return play


def section(title: str) -> None:
    print(f"\n== {title}")


def playouts(seconds: float) -> None:
    section("random playouts (CPU time; ratio = how many times slower than hand-written)")
    rng = random.Random(0)
    ttt_ref, ttt = alternated([Meter(lambda i: reference_tictactoe.play_game(rng)[0]),
                               Meter(engine_player("examples/tictactoe", 2))], seconds)
    print(f"  tic-tac-toe   hand-written {ttt_ref[0]:>10,.0f} games/s   rulebook {ttt[0]:>8,.0f} "
          f"games/s   ratio {ttt_ref[0] / ttt[0]:6.1f}x")
    liq_ref, *engines = alternated([Meter(lambda i: reference_liqueur.play_game(i, 3)[0])]
                                   + [Meter(engine_player(ref, 3))
                                      for ref in ("liqueur", "beverage")], seconds)
    print(f"  Liqueur ref.  hand-written {liq_ref[1]:>10,.0f} decisions/s")
    for ref, (games, decisions) in zip(("liqueur", "beverage"), engines):
        print(f"  {ref:<13} rulebook {decisions:>10,.0f} decisions/s ({games:,.1f} games/s)"
              f"   ratio to the Liqueur reference {liq_ref[1] / decisions:6.1f}x")


def played(ref: str, players: int, seed: int, decisions: int | None) -> Game:
    game = api.new_game(api.load(ref), players=players, seed=seed)
    agents = {s.seat: RandomAgent(seed * 31 + s.seat) for s in game.state.seats}
    made = 0
    while not game.over and (decisions is None or made < decisions):
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options()), seat)
        made += 1
    return game


def timed(fn, repeat: int) -> float:
    """Median seconds of `fn()` over `repeat` runs."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def state_bytes(game: Game) -> int:
    """Memory a copy of the game allocates: its state and flow."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    copy = game.clone()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del copy
    return after - before


def copies() -> None:
    section("copies, saves and loads (Beverage, 3 players; median wall time)")
    early = played("beverage", 3, 1, 10)
    end = played("beverage", 3, 1, None)
    made = len(end.history)
    late = played("beverage", 3, 1, made - 1)  # waiting for its last decision
    t_early, t_late = timed(early.clone, 200), timed(late.clone, 200)
    print(f"  clone after 10 decisions          {t_early * 1e3:8.3f} ms")
    print(f"  clone before the last ({made - 1} made) {t_late * 1e3:8.3f} ms   "
          f"ratio {t_late / t_early:4.2f}x")
    data = json.loads(json.dumps(end.save()))
    rules = api.load("beverage")
    t_load = timed(lambda: Game.load(data, rules), 20)
    t_verify = timed(lambda: Game.load(data, rules, verify=True), 3)
    print(f"  load of a finished save    {t_load * 1e3:8.2f} ms  (verified by replaying: "
          f"{t_verify * 1e3:.0f} ms); save {len(json.dumps(data)) / 1024:.0f} KiB of JSON")
    print(f"  one game in memory (a clone)      {state_bytes(late) / 1024:8.1f} KiB")


def jobs(rounds: int = 3) -> None:
    section(f"simulate: 400 Liqueur games, 3 players (wall time, median of {rounds} alternating runs)")
    rules = api.load("liqueur")
    loader = lambda: api.load("liqueur")  # noqa: E731
    walls: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(rounds):  # alternating, so that a slow spell of a shared machine hits both
        for n in (1, 2):
            start = time.perf_counter()
            simulate(rules, loader, 400, 3, 0, jobs=n)
            walls[n].append(time.perf_counter() - start)
    for n in (1, 2):
        runs = ", ".join(f"{w:.2f}" for w in walls[n])
        print(f"  --jobs {n}   {statistics.median(walls[n]):7.2f} s   ({runs})")
    print(f"  speed-up of --jobs 2: {statistics.median(walls[1]) / statistics.median(walls[2]):4.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=duration, default=5.0, help="CPU time per playout figure")
    parser.add_argument("--skip-jobs", action="store_true", help="leave out the --jobs figure")
    args = parser.parse_args()
    playouts(args.seconds)
    copies()
    if not args.skip_jobs:
        jobs()


if __name__ == "__main__":
    main()
