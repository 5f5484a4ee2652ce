"""Randomness as chance outcomes, and copies of a game that know only what a seat knows.

Every random event of a ruleset (a shuffle, a random key, `random_int`, an automaton's random
choice) is made of draws `Rng.below(n)`: one chance event each, with `n` equally likely outcomes.
Played normally, the game's seeded generator draws them (same seed, same game). With a `chance`
source on the generator they are recorded (`Recorder`), or played from a list of outcomes
(`Script`), which stops the game at the first draw the list does not hold (`ChanceNeeded`) so
that a chance player can choose it (`ChancePlay`, used by explicit chance nodes).

A search must not see the future or what its seat cannot see: `fresh_future` gives a copy a new
generator state (future draws resampled), `determinize` also deals anew every hidden value.
"""
from __future__ import annotations

from ..validator.diagnostics import DiagnosticError
from .game import Game
from .rng import Rng
from .values import Item
from .visibility import can_see


class ChanceNeeded(Exception):
    """The game reached a random draw among `n` outcomes that its script does not hold."""

    def __init__(self, n: int):
        super().__init__(f"a chance event with {n} outcomes")
        self.n = n


class Recorder:
    """Draws as the generator would, and keeps each draw as (outcomes, outcome)."""

    def __init__(self):
        self.events: list[tuple[int, int]] = []

    def outcome(self, rng: Rng, n: int) -> int:
        k = rng.draw(n)
        self.events.append((n, k))
        return k


class Script:
    """Plays outcomes from a list; past its end, raises ChanceNeeded."""

    def __init__(self, outcomes: list[int]):
        self.outcomes, self.used = list(outcomes), 0

    def outcome(self, rng: Rng, n: int) -> int:
        if self.used >= len(self.outcomes):
            raise ChanceNeeded(n)
        k = self.outcomes[self.used]
        if not 0 <= k < n:
            raise ValueError(f"chance outcome {k} is not one of the {n} outcomes of this event")
        self.used += 1
        return k


class _HookedGame(Game):
    """A game whose generator has a chance source from its first draw (setup included). Its
    copies are plain games (their generator has no source until one is set)."""

    def __init__(self, rules, players, hook, limits=None):
        self._hook = hook
        super().__init__(rules, players, 0, limits)

    def new_state(self):
        state = super().new_state()
        state.rng.chance = self._hook
        return state


def started(rules, players: int | None, hook, limits=None) -> Game:
    """A new game (run to its first decision) whose random draws all go through `hook`."""
    return _HookedGame(rules, players, hook, limits)


def recorded(rules, players: int | None, seed: int, limits=None) -> tuple[Game, Recorder]:
    """A new game from `seed`, as `Game(rules, players, seed)` plays it, with a Recorder of its
    chance events (decisions applied to the game go on recording)."""
    rec = Recorder()

    class Seeded(_HookedGame):
        def new_state(self):
            state = Game.new_state(self)
            state.rng = Rng(seed)
            state.rng.chance = rec
            return state

    game = Seeded(rules, players, rec, limits)
    game.seed = seed
    return game, rec


class ChancePlay:
    """A game whose random draws are chosen by a chance player, one draw at a time.

    `base` is the game at its last settled point (a decision or the end); `step` is what is
    being done from there (starting the game, or a decision) and `outcomes` the draws chosen
    for it so far. A step that needs a draw not yet chosen is run again from a copy of `base`
    with one more outcome once the chance player chose it: each run is a copy and a replay of
    one step, never of the game."""

    def __init__(self, start):
        self.start = start           # hook -> Game: a new game whose generator uses `hook`
        self.base = None
        self.step = None             # None: settled; else the step being run
        self.outcomes: list[int] = []
        self.needed: int | None = None
        self._run(None)

    @property
    def chance_outcomes(self) -> int | None:
        """How many equally likely outcomes the pending chance event has (None: no chance
        event is pending)."""
        return self.needed

    def decide(self, option_id: str) -> None:
        if self.needed is not None:
            raise ValueError("a chance event is pending")
        self._run(option_id)

    def chance(self, outcome: int) -> None:
        if self.needed is None or not 0 <= outcome < self.needed:
            raise ValueError(f"{outcome} is not an outcome of the pending chance event")
        self.outcomes.append(outcome)
        self._run(self.step, again=True)

    def _run(self, step, again: bool = False) -> None:
        if not again:
            self.outcomes = []
        script = Script(self.outcomes)
        try:
            if self.base is None:
                game = self.start(script)
            else:
                game = self.base.clone()
                game.state.rng.chance = script
                game.apply(step)
        except ChanceNeeded as need:
            self.step, self.needed = step, need.n
            return
        except DiagnosticError:
            if self.base is None or game.error is None:
                raise
            # The rules failed during the step: the game is over, with its error.
        self.base, self.step, self.needed = game, None, None

    def clone(self) -> "ChancePlay":
        copy = ChancePlay.__new__(ChancePlay)
        copy.start, copy.step, copy.needed = self.start, self.step, self.needed
        copy.outcomes = list(self.outcomes)
        copy.base = self.base.clone() if self.base is not None else None
        if copy.base is not None:
            copy.base.state.rng.chance = Script([])
        return copy


def fresh_future(game, rng: Rng):
    """A copy of `game` whose future random draws are new ones (from `rng`), not those its seed
    would have made: a search that plays it ahead learns nothing of the real future."""
    copy = game.clone()
    copy.state.rng.state = rng.next64()
    copy.state.rng.chance = None
    copy.audit_reveals, copy._before = False, []  # a search never undoes: keep no copies
    return copy


def hidden_places(game, seat: int | None):
    """What `seat` cannot see, as (holder, name, declaration) of each hidden state value."""
    st, rules = game.state, game.rules
    places = [(st.globals, 0, rules.global_vars)]
    places += [(s.vars, s.seat, rules.player_vars) for s in st.seats]
    for holder, owner, decls in places:
        for name in holder:
            if not can_see(st, rules, seat, owner, name):
                yield holder, name, decls.get(name)


def determinize(game, seat: int | None, rng: Rng):
    """A copy of `game` as `seat` may imagine it: every hidden list (others' hands, decks, but
    a face-up top the seat sees) and hidden component is dealt anew from the pool of hidden
    values of its kind, keeping each place's size; future draws are new ones. What the seat
    sees stays as it is. Hidden values that are neither components nor in lists (a hidden
    number) are kept: docs/agents.md says so."""
    copy = fresh_future(game, rng)
    slots: dict[object, list[tuple[list | dict, object]]] = {}
    pools: dict[object, list] = {}
    for holder, name, decl in list(hidden_places(copy, seat)):
        value = holder[name]
        if isinstance(value, list):
            value = list(value)      # a value of its own: the copy may share lists it never wrote
            holder[name] = value
            top = getattr(decl, "public_top", None) or 0
            for i in range(min(top, len(value)), len(value)):
                kind = _kind(value[i])
                slots.setdefault(kind, []).append((value, i))
                pools.setdefault(kind, []).append(value[i])
        elif isinstance(value, Item):
            kind = _kind(value)
            slots.setdefault(kind, []).append((holder, name))
            pools.setdefault(kind, []).append(value)
    for kind, pool in pools.items():
        rng.shuffle(pool)
        for (where, key), value in zip(slots[kind], pool):
            where[key] = value
    return copy


def _kind(value) -> object:
    """Values that may stand in for each other when dealt anew: components of one record, or
    values of one Python type."""
    return ("item", value.record) if isinstance(value, Item) else type(value)
