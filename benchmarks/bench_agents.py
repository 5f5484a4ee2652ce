"""IS-MCTS against random bots: win rates with confidence intervals, and what a decision costs.

    python benchmarks/bench_agents.py --ruleset beverage --games 200 --iterations 200 --jobs 2
    python benchmarks/bench_agents.py --profile beverage --decisions 5

The searching seat moves round the table from game to game (game i: seat i mod players + 1);
the other seats are random bots. A game shared by k winners counts 1/k. Prints, per ruleset, the
searching seat's win rate with a 95% Wilson interval and the time its decisions took (mean,
median, 90th percentile, longest); `--profile` prints where the time of a decision goes. Prints
figures; asserts nothing. `--budget SECONDS` ends a long run early with the figures of the games
played so far (the first n, so the same as a run of `--games n`). Game i is played from seed
`seed + i` and its bots are seeded from `seed` and i alone, so results do not depend on `--jobs`,
and `--start K` plays games K to `--games` alone: the same games as in a run from game 1, so a
long run can be split across machines or days and its win counts added.
"""
from __future__ import annotations

import argparse
import cProfile
import math
import pstats
import time
from concurrent.futures import ProcessPoolExecutor

from bench_args import loadable_ruleset, players_for
from rulebook import api
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.search import ISMCTSAgent


def one_game(args) -> tuple[float, list[float]]:
    """(share of the win of the searching seat, seconds of each of its decisions that had a
    choice)."""
    ruleset, players, seed, index, iterations, depth = args
    rules = api.load(ruleset)
    game = api.new_game(rules, players, seed + index)
    searcher = index % players + 1
    bot = ISMCTSAgent(iterations, seed=seed + index, rollout_depth=depth)
    times: list[float] = []

    class Timed:
        reads_labels = False

        def choose(self, g, seat, options):
            start = time.perf_counter()
            try:
                return bot.choose(g, seat, options)
            finally:
                if len(options) > 1:
                    times.append(time.perf_counter() - start)

    agents = {s.seat: RandomAgent(seed * 7919 + index * 31 + s.seat) for s in game.state.seats}
    agents[searcher] = Timed()
    play_out(game, agents)
    winners = [s.seat for s in game.state.winners]
    share = 1.0 / len(winners) if searcher in winners else 0.0
    return share, times


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def win_rates(ruleset: str, players: int, games: int, iterations: int, seed: int,
              jobs: int, depth: int | None, quiet: bool = False,
              budget: float | None = None, start_at: int = 1) -> None:
    jobs_args = [(ruleset, players, seed, i, iterations, depth)
                 for i in range(start_at - 1, games)]
    start = time.perf_counter()
    results = []
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        for result in (pool.map(one_game, jobs_args) if pool else map(one_game, jobs_args)):
            results.append(result)  # in the games' order, whatever finished first
            if not quiet:
                won = sum(r[0] for r in results)
                print(f"  {ruleset} game {start_at - 1 + len(results)}: searcher's share "
                      f"{result[0]:g}; {won:g} of {len(results)} so far", flush=True)
            if budget is not None and time.perf_counter() - start > budget:
                break  # games 1..n: the figures stay those of a run of n games
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    if len(results) < len(jobs_args):
        print(f"  stopped by --budget after {len(results)} of {len(jobs_args)} games")
    games = len(results)
    played = "" if start_at == 1 else f" (games {start_at} to {start_at - 1 + games})"
    wins = sum(r[0] for r in results)
    times = sorted(t for r in results for t in r[1])
    lo, hi = wilson(wins, games)
    rollouts = "to the end" if depth is None else f"of {depth} decisions"
    print(f"{ruleset}, {players} players, IS-MCTS {iterations} iterations (rollouts {rollouts}) "
          f"vs random: won {wins:g} of {games} games{played} = {wins / games:.1%} (95% CI "
          f"{lo:.1%} to {hi:.1%}; a random seat wins {1 / players:.1%}); "
          f"{time.perf_counter() - start:.0f} s in all")
    if times:
        print(f"  time per IS-MCTS decision over {len(times)} decisions: mean "
              f"{sum(times) / len(times):.2f} s, median {_quantile(times, 0.5):.2f} s, 90th "
              f"percentile {_quantile(times, 0.9):.2f} s, longest {times[-1]:.2f} s")


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


SHARES = [
    ("copies (Game.clone)", "game.py", "clone"),
    ("determinizations (determinize, its copy included)", "chance.py", "determinize"),
    ("decisions applied (the rules run)", "game.py", "apply"),
    ("listing options", "game.py", "legal_options"),
    ("rollouts (random decisions to the end, their valuing included)", "search.py", "_rollout"),
    ("valuing positions (returns, or projected scores)", "search.py", "value"),
]


def profile(ruleset: str, players: int, decisions: int, iterations: int, seed: int,
            depth: int | None) -> None:
    """Time per IS-MCTS decision in positions of a random game, and where the time goes: each
    decision is searched twice by bots seeded alike (the same search), timed without the
    profiler and then profiled (the profiler slows it down several times)."""
    rules = api.load(ruleset)
    game = api.new_game(rules, players, seed)
    walker = RandomAgent(seed)
    timed, profiled = (ISMCTSAgent(iterations, seed=seed, rollout_depth=depth) for _ in "ab")
    prof, spent, under, made = cProfile.Profile(), 0.0, 0.0, 0
    while not game.over and made < decisions:
        options = game.legal_options(bots=True, labels=False)
        if len(options) > 1 and game.pending_seat() == 1:
            start = time.perf_counter()
            timed.choose(game, 1, options)
            spent += time.perf_counter() - start
            start = time.perf_counter()
            prof.enable()
            profiled.choose(game, 1, options)
            prof.disable()
            under += time.perf_counter() - start
            made += 1
        game.apply(walker.decide(None, options))
    stats = pstats.Stats(prof).stats
    print(f"{ruleset}: {spent / max(made, 1):.2f} s per IS-MCTS decision at {iterations} "
          f"iterations ({made} decisions of seat 1 from the start of a random game; "
          f"{under / max(made, 1):.2f} s under the profiler); shares of that time (cumulative: "
          "a determinization includes its copy, applying a decision includes listing the next "
          "options):")
    cumulative = {}
    for (file, _, func), (_, _, _, cum, _) in stats.items():
        for label, f, name in SHARES:
            if file.endswith(f) and func == name:
                cumulative[label] = cumulative.get(label, 0.0) + cum
    for label, _, _ in SHARES:
        t = cumulative.get(label, 0.0)
        print(f"  {label}: {t / max(under, 1e-9):.0%}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ruleset", type=loadable_ruleset, action="append",
                   help="liqueur and beverage when not given")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--profile", type=loadable_ruleset, metavar="RULESET",
                   help="profile IS-MCTS decisions instead")
    p.add_argument("--decisions", type=int, default=5, help="decisions to profile")
    p.add_argument("--rollout-depth", type=int, default=None, metavar="N",
                   help="random decisions per rollout before projected scores value the "
                   "position (default: rollouts play to the end of the game)")
    p.add_argument("--quiet", action="store_true", help="no line per game")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="stop starting games after this long and report the games played")
    p.add_argument("--start", type=int, default=1, metavar="K",
                   help="play games K to --games only (the same games as in a whole run)")
    a = p.parse_args()
    if a.games < 1 or a.iterations < 1 or a.jobs < 1 or a.decisions < 1 \
            or (a.rollout_depth is not None and a.rollout_depth < 0):
        p.error("--games, --iterations, --jobs and --decisions must be at least 1, "
                "--rollout-depth at least 0")
    if not 1 <= a.start <= a.games:
        p.error("--start must be between 1 and --games")
    rulesets = [a.profile] if a.profile else a.ruleset or ["liqueur", "beverage"]
    for ruleset in rulesets:  # refused before any game is played
        players_for(p, ruleset, a.players)
    if a.profile:
        profile(a.profile, a.players, a.decisions, a.iterations, a.seed, a.rollout_depth)
        return
    for ruleset in rulesets:
        win_rates(ruleset, a.players, a.games, a.iterations, a.seed, a.jobs, a.rollout_depth,
                  a.quiet, a.budget, a.start)


if __name__ == "__main__":
    main()
