"""Machine instructions per decision, engine against hand-written Python, under callgrind.

    python benchmarks/bench_instructions.py [--jobs J]

Counts what the processor executes while games are played (loading the rules and importing
are left out: callgrind starts counting once the first game has been played), for random
playouts of tic-tac-toe, Liqueur and Beverage and for the hand-written references of
`bench_engine.py`. Unlike seconds, the counts are the same from run to run on one machine,
whatever else it is doing, so they tell a change's effect apart from the machine's drift.
They are not the time: the engine's code runs at fewer instructions per cycle than the tight
loops of the references, so its ratios in seconds (`bench_engine.py`) are larger. Needs
valgrind (`callgrind_control` on the path); asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_args import positive_int

HERE = Path(__file__).resolve().parent

# (what, ruleset or reference, players, games): enough decisions that the first game's
# start-up is small beside them
RUNS = [("engine", "examples/tictactoe", 2, 200), ("reference", "tictactoe", 2, 2000),
        ("engine", "liqueur", 3, 6), ("reference", "liqueur", 3, 200),
        ("engine", "beverage", 3, 4)]


def child(what: str, ref: str, players: int, games: int) -> None:
    """Play the games with callgrind counting (turned on once the first game is over)."""
    if what == "engine":
        from rulebook import api
        from rulebook.interpreter.simulate import play_one

        rules = api.load(ref)

        def play(i: int) -> int:
            return play_one(rules, players, i, i, "random").decisions
    else:
        sys.path.insert(0, str(HERE))
        import reference_liqueur
        import reference_tictactoe

        rng = random.Random(0)
        if ref == "tictactoe":
            def play(i: int) -> int:
                return reference_tictactoe.play_game(rng)[0]
        else:
            def play(i: int) -> int:
                return reference_liqueur.play_game(i, players)[0]
    play(0)
    control = ["callgrind_control", "-i"]
    subprocess.run(control + ["on", str(os.getpid())], capture_output=True, check=False)
    decisions = sum(play(i) for i in range(1, games + 1))
    subprocess.run(control + ["off", str(os.getpid())], capture_output=True, check=False)
    print(f"DECISIONS {decisions}")


def counted(what: str, ref: str, players: int, games: int) -> float:
    """Instructions per decision of one run."""
    env = dict(os.environ, PYTHONHASHSEED="0", RULEBOOK_NO_CACHE="1")
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null",
         sys.executable, __file__, "--child", what, ref, str(players), str(games)],
        capture_output=True, text=True, env=env, check=False)
    instructions = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    decisions = re.search(r"DECISIONS (\d+)", run.stdout)
    if not (instructions and decisions):
        raise SystemExit(f"{what} {ref}: callgrind gave no count\n{run.stderr[-2000:]}")
    return int(instructions.group(1)) / int(decisions.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=positive_int, default=2, help="runs under callgrind at once")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        what, ref, players, games = args.child
        child(what, ref, int(players), int(games))
        return
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        raise SystemExit("needs valgrind (callgrind and callgrind_control)")
    with ThreadPoolExecutor(args.jobs) as pool:
        counts = dict(zip([(w, r) for w, r, _, _ in RUNS],
                          pool.map(lambda run: counted(*run), RUNS)))
    print("instructions per decision (callgrind, games only)")
    ttt, ttt_ref = counts[("engine", "examples/tictactoe")], counts[("reference", "tictactoe")]
    liq_ref = counts[("reference", "liqueur")]
    print(f"  tic-tac-toe   hand-written {ttt_ref:>10,.0f}   rulebook {ttt:>10,.0f}   "
          f"ratio {ttt / ttt_ref:5.1f}x")
    print(f"  Liqueur ref.  hand-written {liq_ref:>10,.0f}")
    for ref in ("liqueur", "beverage"):
        n = counts[("engine", ref)]
        print(f"  {ref:<13} rulebook {n:>10,.0f}   ratio to the Liqueur reference "
              f"{n / liq_ref:5.1f}x")


if __name__ == "__main__":
    main()
