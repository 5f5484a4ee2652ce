"""Agents choose among the legal options. The engine never calls them: a driver does."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..validator.diagnostics import Diagnostic, DiagnosticError
from .game import AnsweredAtOnce, Game
from .state import GameState
from .rng import Rng
from .view import view


class Agent(Protocol):
    """`options` are (id, label) pairs. An agent whose `reads_labels` is False gets (id, None):
    an option's label is worked out only when read, and labels can cost more than the rest
    of a decision. An agent that chooses by position alone may also have `pick(count)`, the
    position of its choice among `count` options: then `play_out` makes no list for it."""

    def decide(self, game_view: dict, options: list[tuple[str, str | None]]) -> str: ...


class RandomAgent:
    """Uniformly random legal option, from its own seeded generator (reproducible)."""

    reads_labels = False

    def __init__(self, seed: int = 0):
        self.rng = Rng(seed)

    def pick(self, count: int) -> int:
        return self.rng.below(count)

    def decide(self, game_view, options):
        return options[self.pick(len(options))][0]


class FirstAgent:
    """Always the first legal option: a deterministic baseline."""

    reads_labels = False

    def pick(self, count: int) -> int:
        return 0

    def decide(self, game_view, options):
        return options[self.pick(len(options))][0]


class ScriptedAgent:
    """Plays a fixed list of option ids (or labels), then stops with an error."""

    def __init__(self, script: list[str]):
        self.script = list(script)

    def decide(self, game_view, options):
        if not self.script:
            raise RuntimeError("the script has no decision left")
        return self.script.pop(0)


AGENT_KINDS = ("random", "first", "greedy", "mcts", "ismcts", "human")
SEARCH_KINDS = ("mcts", "ismcts")
MAX_ITERATIONS = 1_000_000


def parse_agent(spec: str) -> tuple[str, int | None]:
    """`KIND` or, for a search, `KIND:ITERATIONS` (`ismcts:400`); ValueError says what is
    wrong."""
    kind, colon, count = spec.partition(":")
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {kind!r} (one of {', '.join(AGENT_KINDS)})")
    if not colon:
        return kind, None
    if kind not in SEARCH_KINDS or not count.isdigit() \
            or not 1 <= int(count) <= MAX_ITERATIONS:
        raise ValueError(f"{spec!r}: only mcts and ismcts take a number of iterations "
                         f"(1 to {MAX_ITERATIONS:,}), e.g. ismcts:400")
    return kind, int(count)


def make_agent(kind: str, seed: int, iterations: int | None = None,
               seconds: float | None = None) -> Agent:
    """An agent by its name (`parse_agent` spelling), seeded: the same seed plays the same."""
    kind, given = parse_agent(kind)
    iterations = iterations or given or 200
    if kind == "random":
        return RandomAgent(seed)
    if kind == "first":
        return FirstAgent()
    from .search import GreedyAgent, ISMCTSAgent, MCTSAgent

    if kind == "greedy":
        return GreedyAgent(seed)
    if kind == "mcts":
        return MCTSAgent(iterations, seconds, seed)
    if kind == "ismcts":
        return ISMCTSAgent(iterations, seconds, seed)
    raise ValueError(f"agent {kind!r} is played by a person, not made here")


def agents_for(spec, seed: int, seats) -> dict[int, Agent]:
    """One agent per seat from `spec`: a kind for every seat (`"ismcts:400"`), or a dict of kinds
    by seat with `"*"` for the others; each seeded by `agent_seed(seed, seat)`."""
    kinds = {"*": spec} if isinstance(spec, str) else spec
    return {s.seat: make_agent(kinds.get(s.seat, kinds.get("*", "random")),
                               agent_seed(seed, s.seat)) for s in seats}


def agent_seed(game_seed: int, seat: int) -> int:
    return game_seed * 7919 + seat


def decide(agent, game: Game, seat: int, options) -> str:
    """Ask an agent: a search agent (with `choose`) is given the game, to copy; others its
    seat's view (when they read it) and the options."""
    if hasattr(agent, "choose"):
        return agent.choose(game, seat, options)
    return agent.decide(view(game, seat) if isinstance(agent, NeedsView) else None, options)


@dataclass
class Outcome:
    game: Game
    decisions: int


def _picker(agent):
    """The agent's `pick`, when it chooses by position alone (a bot that reads no labels), and
    no `decide` of its own overrides it (a subclass of `RandomAgent` that decides otherwise is
    asked with `decide`). Worked out once per class, unless the agent itself holds one of the
    attributes that decide it."""
    klass = type(agent)
    own = getattr(agent, "__dict__", None)
    if own and not own.keys().isdisjoint(_DECIDING):
        return agent.pick if _picks(agent, klass) else None
    picks = _PICKS.get(klass)
    if picks is None:
        picks = _PICKS[klass] = _picks(agent, klass)
    if not picks:
        return None
    if klass.pick is RandomAgent.pick:  # its pick is its generator's draw: asked at once
        return agent.rng.draw  # (`below` with no chance player: a bot's generator has none)
    return agent.pick


_DECIDING = frozenset({"person", "reads_labels", "choose", "decide", "pick"})
_PICKS: dict[type, bool] = {}


def _picks(agent, klass) -> bool:
    if getattr(agent, "person", False) or getattr(agent, "reads_labels", True) \
            or hasattr(agent, "choose") or isinstance(agent, NeedsView) \
            or "decide" in getattr(agent, "__dict__", {}):
        return False
    for k in klass.__mro__:  # the most derived of `pick` and `decide` wins
        if "pick" in vars(k):
            return True
        if "decide" in vars(k):
            return False
    return False


def _asked(agent) -> tuple:
    """How an agent that is handed the options is asked: whether it is a bot, whether it reads
    labels, and its `decide` when it needs neither the game nor a view (else None)."""
    return (not getattr(agent, "person", False), getattr(agent, "reads_labels", True),
            None if hasattr(agent, "choose") or isinstance(agent, NeedsView) else agent.decide)


def play_out(game: Game, agents: dict[int, Agent], max_decisions: int = 1_000_000,
             state: GameState | None = None) -> Outcome:
    """Drive a game to its end with agents (one per seat). Rule errors propagate as
    DiagnosticError; the game keeps its diagnostic in `game.error`. A game made with
    `_start=False` is begun here, on `state` (whose seats the agents are for)."""
    picks = {seat: _picker(agent) for seat, agent in agents.items()}  # looked up once
    asked: dict[int, tuple] = {}  # the others: how each is asked, once it is
    at_once = None
    seats = game.state.seats if state is None else state.seats
    if not game.audit_reveals and None not in picks.values() \
            and all(s.seat in picks for s in seats if s.automaton is None):
        # every seat's bot picks by position: each decision is answered where it is asked,
        # but for those that wait all the same (automata's, the first of a game begun
        # elsewhere, ...), answered below
        at_once = AnsweredAtOnce(game, picks, max_decisions)
    waited = 0
    try:
        if state is not None:
            game.begin(state, at_once)
        game.machine.answer_now = at_once
        while (pending := game.pending) is not None:
            made = waited + (at_once.made if at_once is not None else 0)
            if made >= max_decisions:
                raise DiagnosticError([Diagnostic(
                    "E0301", f"the game went on for more than {max_decisions:,} decisions",
                    hint="check that the game's end condition can be reached")])
            seat = pending.player.seat
            pick = picks[seat]
            if pick is not None:  # the options a bot chooses among (`legal_options`), by position
                choice = pending.forward_id(pick(pending.forward_count()))
            else:
                how = asked.get(seat)
                if how is None:
                    how = asked[seat] = _asked(agents[seat])
                bots, labels, plain = how
                options = game.legal_options(bots=bots, labels=labels)
                choice = plain(None, options) if plain is not None \
                    else decide(agents[seat], game, seat, options)
            waited += 1
            if at_once is not None:  # (this decision counts against the limit too)
                at_once.limit = max_decisions - waited
            game.apply(choice, seat)
    finally:
        if getattr(game, "machine", None) is not None:
            game.machine.answer_now = None
    return Outcome(game, waited + (at_once.made if at_once is not None else 0))


class NeedsView:
    """Marker for agents that read the view (building it costs time in simulations)."""
