"""Tic-tac-toe written by hand in plain Python: the yardstick for `bench_engine.py`.

The same game as rulesets/examples/tictactoe.rules, played with the same policy (each move
uniformly random among the empty cells); what a programmer would write for fast simulation.

    python benchmarks/reference_tictactoe.py [GAMES]
"""
from __future__ import annotations

import random
import sys
import time

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def play_game(rng: random.Random) -> tuple[int, int]:
    """One random game: (decisions made, winning seat or 0 for a draw)."""
    board = [0] * 9
    player = 1
    for move in range(9):
        empty = [i for i in range(9) if board[i] == 0]
        board[empty[rng.randrange(len(empty))]] = player
        if any(board[a] == board[b] == board[c] == player for a, b, c in LINES):
            return move + 1, player
        player = 3 - player
    return 9, 0


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(0)
    start = time.process_time()
    decisions = sum(play_game(rng)[0] for _ in range(games))
    seconds = time.process_time() - start
    print(f"{games / seconds:,.0f} games/s, {decisions / seconds:,.0f} decisions/s")


if __name__ == "__main__":
    main()
