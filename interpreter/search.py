"""Agents that look ahead: greedy (one decision), MCTS (UCT) and information-set MCTS.

They work on copies of the game (`Game.clone`, data copies) and never on the game itself. Each
copy's future random draws are new ones (`chance.fresh_future`), so no search sees the real
future; IS-MCTS also deals anew everything its seat cannot see, once per iteration
(`chance.determinize`), so it plays as well as the seat's knowledge allows and no better. MCTS
keeps the hidden present as it is: it is for games with no hidden information.

Values come from the ruleset: a finished game gives each winner an equal share of 1
(`returns`). A rollout plays random decisions to the end of the game by default; one cut short
(`rollout_depth`) is valued by the rank of each seat's projected score, the first key of the
ruleset's `winner` declaration (`score_ranks`), a cheaper estimate that can mislead: end-of-game
bonuses worked out as if the game ended now reward what the real end would not.
"""
from __future__ import annotations

import math
import time

from ..validator.diagnostics import DiagnosticError
from .chance import determinize, fresh_future
from .errors import IllegalDecision
from .rng import Rng


def returns(game) -> dict[int, float]:
    """Each seat's share of the win once the game is over: 1/k for each of k winners, else 0."""
    seats = [s.seat for s in game.state.seats]
    winners = [s.seat for s in game.state.winners]
    share = 1.0 / len(winners) if winners else 0.0
    return {s: (share if s in winners else 0.0) for s in seats}


def projected(game):
    """A copy of an unfinished game with the ruleset's `scoring` block run on it now: what each
    seat would score if the game ended here (end-of-game points count, not just the running
    score). The game itself when there is no such block or it cannot run mid-game."""
    scoring = game.rules.scoring
    if scoring is None or game.over or game.error is not None:
        return game
    copy = game.clone()
    copy.audit_reveals, copy._before = False, []
    try:
        copy.given(scoring.body)
    except (DiagnosticError, IllegalDecision):
        return game
    return copy


def signed_scores(game) -> dict[int, float]:
    """Each seat's score (the first key of `winner`, true counting 1) as if the game ended now
    (`projected`), signed so that more is better (a key written without `descending` ranks the
    lowest first); {} when the ruleset keeps no score or a seat's is not a number."""
    w = game.rules.winner
    try:
        scores = projected(game).scores()
    except DiagnosticError:
        return {}
    sign = 1 if w is not None and w.keys and getattr(w.keys[0], "descending", False) else -1
    out = {}
    for seat, v in scores.items():
        if not isinstance(v, (int, float)):
            return {}
        out[seat] = sign * float(v)
    return out


def score_ranks(game) -> dict[int, float]:
    """How each seat stands by the ruleset's score: the share of the other seats it leads (a tie
    counts half), 0.5 for all when the ruleset keeps no numeric score."""
    seats = [s.seat for s in game.state.seats]
    numbers = signed_scores(game)
    if len(numbers) < len(seats) or len(seats) < 2:
        return {s: 0.5 for s in seats}
    out = {}
    for s in seats:
        beaten = sum(1.0 if numbers[s] > numbers[o] else 0.5 if numbers[s] == numbers[o] else 0.0
                     for o in seats if o != s)
        out[s] = beaten / (len(seats) - 1)
    return out


def value(game) -> dict[int, float]:
    """Returns when the game is over, score ranks before (or when the rules failed: even)."""
    if game.error is not None:
        return {s.seat: 0.5 for s in game.state.seats}
    return returns(game) if game.over else score_ranks(game)


def _apply(game, option: str) -> bool:
    """Apply in a copy; False when the rules failed (the copy is then over, with its error)."""
    try:
        game.apply(option)
        return True
    except (DiagnosticError, IllegalDecision):
        return False


class GreedyAgent:
    """One decision ahead: the option after which its seat's score leads by most (a win counts
    above any score), in a world dealt as the seat may imagine it; ties broken at random."""

    reads_labels = False

    def __init__(self, seed: int = 0):
        self.rng = Rng(seed)

    def choose(self, game, seat: int, options) -> str:
        if len(options) == 1:
            return options[0][0]
        world = determinize(game, seat, self.rng)
        best, best_value = [], None
        for oid, _ in options:
            after = world.clone()
            v = self._worth(after, seat) if _apply(after, oid) else (-math.inf,)
            if best_value is None or v > best_value:
                best, best_value = [oid], v
            elif v == best_value:
                best.append(oid)
        return best[self.rng.below(len(best))]

    @staticmethod
    def _worth(game, seat: int) -> tuple:
        if game.over:
            return (2.0 * returns(game)[seat], 0.0)
        scores = signed_scores(game)
        if seat not in scores:
            return (0.0, 0.0)
        others = [v for s, v in scores.items() if s != seat]
        return (score_ranks(game)[seat], scores[seat] - max(others, default=0.0))


class _Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self):
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class TreeSearchAgent:
    """UCT over the decisions of all seats, one tree per decision. With `determinized`
    (IS-MCTS, single observer), each iteration plays in a new determinization of its seat's
    knowledge and counts for each option how often it was available (its UCB term uses that
    count). `iterations` and `seconds` bound each decision (whichever comes first), and the
    search stops sooner once its most visited option cannot be overtaken; a rollout
    plays random decisions to the end of the game, or `rollout_depth` of them before the
    position is valued by projected scores."""

    reads_labels = False

    def __init__(self, iterations: int = 200, seconds: float | None = None, seed: int = 0,
                 determinized: bool = True, exploration: float = 0.7,
                 rollout_depth: int | None = None):
        self.iterations, self.seconds = iterations, seconds
        self.determinized, self.exploration = determinized, exploration
        self.rollout_depth = rollout_depth
        self.rng = Rng(seed)
        self.last_iterations = 0

    def choose(self, game, seat: int, options) -> str:
        if len(options) == 1:
            return options[0][0]
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        legal = [oid for oid, _ in options]
        while done < self.iterations and (deadline is None or time.perf_counter() < deadline):
            world = determinize(game, seat, self.rng) if self.determinized \
                else fresh_future(game, self.rng)
            self._iterate(root, world)
            done += 1
            if self._decided(root, legal, self.iterations - done):
                break
        self.last_iterations = done
        return max(legal, key=lambda o: (root.children[o].visits, root.children[o].total)
                   if o in root.children else (-1, 0.0))

    @staticmethod
    def _decided(root: _Node, legal: list[str], left: int) -> bool:
        """Whether the most visited option leads the next by more than the iterations left:
        no more iterations could change the choice (the most visited option), so they are not
        run."""
        first = second = 0
        for oid in legal:
            child = root.children.get(oid)
            v = child.visits if child is not None else 0
            if v > first:
                first, second = v, first
            elif v > second:
                second = v
        return first - second > left

    def _iterate(self, root: _Node, game) -> None:
        node, path = root, []
        while not game.over and game.error is None:
            legal = [oid for oid, _ in game.legal_options(bots=True, labels=False)]
            decider = game.pending_seat()
            for oid in legal:
                node.children.setdefault(oid, _Node()).available += 1
            fresh = [o for o in legal if node.children[o].visits == 0]
            if fresh:
                oid = fresh[self.rng.below(len(fresh))]
            else:
                oid = max(legal, key=lambda o: self._ucb(node.children[o]))
            node = node.children[oid]
            path.append((node, decider))
            if not _apply(game, oid) or fresh:
                break
        rewards = self._rollout(game)
        root.visits += 1
        for child, decider in path:
            child.visits += 1
            child.total += rewards.get(decider, 0.0)

    def _ucb(self, child: _Node) -> float:
        return child.total / child.visits + self.exploration * math.sqrt(
            math.log(max(child.available, 1)) / child.visits)

    def _rollout(self, game) -> dict[int, float]:
        played = 0
        while self.rollout_depth is None or played < self.rollout_depth:
            played += 1
            if game.over or game.error is not None:
                break
            pending = game.pending  # a bot's options (`legal_options`), taken by position
            if not _apply(game, pending.forward_id(self.rng.below(pending.forward_count()))):
                break
        return value(game)


def MCTSAgent(iterations: int = 200, seconds: float | None = None, seed: int = 0,
              **kw) -> TreeSearchAgent:
    """UCT for games with no hidden information (it sees the hidden present as it is)."""
    return TreeSearchAgent(iterations, seconds, seed, determinized=False, **kw)


def ISMCTSAgent(iterations: int = 200, seconds: float | None = None, seed: int = 0,
                **kw) -> TreeSearchAgent:
    """Information-set MCTS: a new determinization of the seat's knowledge per iteration."""
    return TreeSearchAgent(iterations, seconds, seed, determinized=True, **kw)
