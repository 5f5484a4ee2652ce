"""Load on the table server: concurrent Liqueur games through `rulebook serve` on localhost.

Each game has one person's seat, played by a websocket client that picks the first option as soon
as it is its turn, and bots at the other seats (playing inside the server). Prints decisions per
second over all games (people's and bots') and the latency of a person's decision: from sending it
to receiving the page that shows it made. Prints, never asserts.

    python benchmarks/bench_serve.py [--games 50] [--players 3] [--bot-delay 0]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench_args import duration, positive_int
from websockets.asyncio.client import connect


def start_server(games: int, players: int, folder: str, bot_delay: float):
    bots = [f"--seat={s}=random" for s in range(2, players + 1)]
    cmd = [sys.executable, "-m", "rulebook", "serve", "liqueur", f"--players={players}", *bots,
           f"--games={games}", "--port=0", f"--state-dir={folder}", f"--bot-delay={bot_delay}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    links = []
    for line in proc.stdout:
        found = re.search(r"player 1: http://([^/]+)/t/(\S+)", line)
        if found:
            links.append((found.group(1), found.group(2)))
        if line.startswith("Press Ctrl+C"):
            return proc, links
    raise SystemExit(f"the server did not start: {proc.wait()}")


async def play(host: str, token: str, latencies: list[float]) -> int:
    """Play seat 1 to the end; the number of decisions the game took (everyone's)."""
    async with connect(f"ws://{host}/ws/{token}", max_size=2 ** 24) as ws:
        sent = None  # (version, time) of the decision on its way
        while True:
            page = json.loads(await ws.recv())["page"]
            if sent and page["version"] > sent[0]:
                latencies.append(time.perf_counter() - sent[1])
                sent = None
            if page["over"]:
                return page["version"]
            decision = page["decision"]
            if sent is None and decision and decision["mine"]:
                sent = (page["version"], time.perf_counter())
                await ws.send(json.dumps({"type": "decide", "version": page["version"],
                                          "option": decision["options"][0]["id"]}))


async def run_all(links) -> tuple[list[int], list[float], float]:
    latencies: list[float] = []
    start = time.perf_counter()
    totals = await asyncio.gather(*(play(h, t, latencies) for h, t in links))
    return totals, latencies, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive_int, default=50)
    parser.add_argument("--players", type=positive_int, default=3)
    parser.add_argument("--bot-delay", type=duration, default=0.0,
                        help="seconds each bot waits before deciding (0: as fast as it can)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        proc, links = start_server(args.games, args.players, folder, args.bot_delay)
        try:
            totals, latencies, seconds = asyncio.run(run_all(links))
        finally:
            proc.terminate()
            proc.wait()
    decisions = sum(totals)
    cuts = statistics.quantiles(latencies, n=20)
    print(f"{len(totals)} concurrent Liqueur games, {args.players} seats (1 person, "
          f"{args.players - 1} bots, bot delay {args.bot_delay} s) through `rulebook serve` on "
          "localhost")
    print(f"  {decisions} decisions in {seconds:.1f} s: {decisions / seconds:.0f} decisions/s "
          "(each saved, and sent to every watcher)")
    print(f"  a person's decision to its page: median {statistics.median(latencies) * 1000:.0f} ms,"
          f" p95 {cuts[18] * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
          f"({len(latencies)} decisions)")


if __name__ == "__main__":
    main()
