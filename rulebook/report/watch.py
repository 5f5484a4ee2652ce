"""What one game offered and took, by option name, and where its time went: the per-game
figures of a balance report, gathered through `play_one`'s `watch` hook."""
from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from ..interpreter.agents import NeedsView

SETUP = "setup"
NO_PHASE = "(no phase)"
MAX_KEPT_DECISIONS = 1000  # decisions kept of a game that ended in error, to replay it


def option_name(option_id: str) -> str:
    """The name an option has in the rules: its id up to the first bound value (`place:1:2`)
    or repeat mark (`take~2`); stable across games, unlike its position in a list."""
    return option_id.split(":", 1)[0].split("~", 1)[0]


def decision_place(node) -> str:
    """Where the `choose` that asks a decision is written (`file.rules:line`), so that two
    options of the same name in different decisions are told apart."""
    span = getattr(node, "span", None)
    if span is None:
        return ""
    return f"{Path(span.file).name if span.file else ''}:{span.line}"


class GameWatch:
    """Hooked into one game (`watch(game, agents)` returns the agents wrapped): counts, per
    seat, how often each option was offered and taken, how many options each decision had, and
    the time between decisions by the phase it started in (the first span is `setup`)."""

    def __init__(self):
        self.game = None
        self.offered: Counter = Counter()   # (name, place, seat) -> decisions offering it
        self.taken: Counter = Counter()     # (name, place, seat) -> times taken
        self.widths: Counter = Counter()    # options at a decision -> decisions
        self.phase_seconds: dict[str, float] = {}
        self._phase = SETUP
        self._mark = time.perf_counter()

    def __call__(self, game, agents: dict) -> dict:
        self.game = game
        return {seat: (_WatchedWithView if isinstance(agent, NeedsView) else _Watched)(
            agent, self, seat) for seat, agent in agents.items()}

    def _clock(self) -> None:
        now = time.perf_counter()
        self.phase_seconds[self._phase] = self.phase_seconds.get(self._phase, 0.0) \
            + now - self._mark
        self._mark = now
        phase = self.game.state.phase if self.game is not None else None
        self._phase = phase or NO_PHASE

    def seen(self, seat: int, options, choice: str) -> None:
        place = decision_place(self.game.pending.node)
        names = Counter(option_name(o[0]) for o in options)
        for name in names:
            self.offered[name, place, seat] += 1
        self.taken[option_name(choice), place, seat] += 1
        self.widths[len(options)] += 1

    def finish(self) -> None:
        """Close the last span (what followed the last decision, scoring included)."""
        self._clock()


class _Watched:
    """An agent as it was, telling the watch what it was offered and what it chose."""

    def __init__(self, agent, watch: GameWatch, seat: int):
        self.agent, self.watch, self.seat = agent, watch, seat
        self.reads_labels = getattr(agent, "reads_labels", True)
        self.person = getattr(agent, "person", False)

    def decide(self, game_view, options):
        self.watch._clock()
        choice = self.agent.decide(game_view, options)
        self.watch.seen(self.seat, options, choice)
        return choice


class _WatchedWithView(_Watched, NeedsView):
    """A watched agent that reads the view, so that the driver still builds it."""
