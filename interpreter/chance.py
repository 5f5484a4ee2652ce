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
from .values import Grid, Item, holds_something
from .visibility import can_see, shape_seen


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
    would have made: a search that plays it ahead learns nothing of the real future. It checks
    the invariants when a turn ends (`Game(..., invariants="turn")`) and keeps no log (a search
    reads none)."""
    copy = game.clone()
    copy.state.rng.state = rng.next64()
    copy.state.rng.chance = None
    copy.audit_reveals, copy._before = False, []  # a search never undoes: keep no copies
    copy.machine.keeps_log = False
    copy.invariants = "turn"  # checked when a turn ends, as `simulate` does: checks leave no
    return copy               # trace, so this changes no game, only what a rollout costs


def hidden_places(game, seat: int | None):
    """What `seat` cannot see, as (holder, name, declaration) of each hidden state value."""
    for holder, _, name, decl in _hidden(game, seat):
        yield holder, name, decl


def determinize(game, seat: int | None, rng: Rng):
    """A copy of `game` as `seat` may imagine it; future draws are new ones. What the seat sees
    stays as it is, and the copy keeps every invariant of the rules:

    - every hidden list (others' hands, decks, but a face-up top the seat sees) and hidden
      component is dealt anew from the pool of hidden values of its kind, keeping each place's
      size;
    - every other hidden value (a number, a flag, a grid, a map, a structure) is drawn anew
      from its declared domain when the declaration gives one (`bool`, an enum, `player`, an
      `int` with both bounds declared; in a grid, each cell that holds something; in a map,
      the value at each key), else swapped at random with the values the same declaration
      holds at other places hidden from the seat that look alike (both hold something or
      both nothing, with the same public shape). If that breaks an invariant, it is tried
      again (three times), then by swapping alone, and then these values are kept as they are.

    A hidden value alone in its kind with no declared domain (a hidden number of a two-player
    game, a secret global count) is kept: docs/agents.md, "Determinization", says so."""
    copy = fresh_future(game, rng)
    slots: dict[object, list[tuple[list | dict, object]]] = {}
    pools: dict[object, list] = {}
    others: dict[tuple, list[tuple[dict, str, object]]] = {}
    for holder, owner, name, decl in list(_hidden(copy, seat)):
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
        elif decl is not None:
            alike = (owner == 0, name, holds_something(value),
                     _shape(value) if shape_seen(decl, value) else None)
            others.setdefault(alike, []).append((holder, name, decl))
    for kind, pool in pools.items():
        rng.shuffle(pool)
        for (where, key), value in zip(slots[kind], pool):
            where[key] = value
    if others:
        _redeal(copy, others, rng)
    return copy


def _hidden(game, seat: int | None):
    st, rules = game.state, game.rules
    places = [(st.globals, 0, rules.global_vars)]
    places += [(s.vars, s.seat, rules.player_vars) for s in st.seats]
    for holder, owner, decls in places:
        for name in holder:
            if not can_see(st, rules, seat, owner, name):
                yield holder, owner, name, decls.get(name)


def _redeal(copy, others: dict, rng: Rng) -> None:
    """Hidden values that are not lists nor components, drawn anew or swapped (see
    `determinize`), keeping the invariants."""
    places = [place for group in others.values() for place in group]
    kept = [holder[name] for holder, name, _ in places]
    domains = _Domains(copy)
    for attempt in range(4):
        resample = attempt < 3
        for group in others.values():
            values = [holder[name] for holder, name, _ in group]
            drawn = [domains.draw(decl, v, rng) if resample else None
                     for (_, _, decl), v in zip(group, values)]
            if resample and all(d is not None for d in drawn):
                for (holder, name, _), v in zip(group, drawn):
                    holder[name] = v[0]
            elif len(group) > 1:
                order = list(range(len(group)))
                rng.shuffle(order)
                for (holder, name, _), k in zip(group, order):
                    holder[name] = values[k]
        if _invariants_hold(copy):
            return
        for (holder, name, _), v in zip(places, kept):
            holder[name] = v
        if not resample:
            return


class _Domains:
    """The values a declared type may take, when the declarations say: `bool`, an enum,
    `player`, an `int` with both bounds known before play (at most MAX_DOMAIN values)."""

    MAX_DOMAIN = 4096

    def __init__(self, game):
        self.game = game

    def draw(self, decl, value, rng: Rng):
        """(a new value,) drawn like `value` from the declared domain, or None (no domain).
        What holds nothing (`none`, an empty cell) stays so: a value is drawn only where
        there is one."""
        t = decl.type
        if t.kind == "grid_type":
            domain = self.of(t.element)
            if domain is None or not isinstance(value, Grid):
                return None
            grid = Grid(value.rows, value.columns)
            grid.cells = [c if c is None else domain[rng.below(len(domain))]
                          for c in value.cells]
            return (grid,)
        if t.kind == "map_type":
            domain = self.of(t.value)
            if domain is None or not isinstance(value, dict):
                return None
            return ({k: v if v is None else domain[rng.below(len(domain))]
                     for k, v in value.items()},)
        domain = self.of(t, decl)
        if domain is None:
            return None
        return (value if value is None else domain[rng.below(len(domain))],)

    def of(self, t, decl=None) -> list | None:
        """The values of type `t` (of `T?`: those of `T`), or None when not declared."""
        if t.kind not in ("named_type", "optional_type"):
            return None
        rules = self.game.rules
        if t.name == "bool":
            return [False, True]
        if t.name == "player":
            return list(self.game.state.seats)
        if t.name in rules.enums:
            return list(rules.enums[t.name])
        if t.name == "int" and decl is not None and decl.kind == "state" \
                and decl.at_least is not None and decl.at_most is not None:
            bounds = _bounds(self.game, decl)
            if bounds is not None and 0 <= bounds[1] - bounds[0] < self.MAX_DOMAIN:
                return list(range(bounds[0], bounds[1] + 1))
        return None


def _bounds(game, decl) -> tuple[int, int] | None:
    """`at least L at most H` of a declaration, worked out by the game's own machine when both
    are constants of the game (not values of a player or of the state)."""
    from .errors import RuleError

    machine = game.machine
    try:
        lo = machine.traceless(lambda: machine.eval(decl.at_least, {}, frozenset()))
        hi = machine.traceless(lambda: machine.eval(decl.at_most, {}, frozenset()))
    except (RuleError, KeyError, TypeError, AttributeError):
        return None
    if type(lo) is not int or type(hi) is not int:
        return None
    return lo, hi


def _invariants_hold(game) -> bool:
    """Whether every invariant of the rules holds in `game` now (checked without a trace)."""
    from .errors import RuleError

    machine, code = game.machine, game.rules.code
    if not machine.set_up or not code.invariants:
        return True
    try:  # every one whose moment it is (none owed: the copy is looked at once)
        return machine.traceless(lambda: machine.standing_still(
            code.check_invariants, machine, None, set())) is None
    except RuleError:
        return False


def _shape(value):
    """What a value's public shape shows (docs/language.md), as something to compare."""
    if isinstance(value, Grid):
        return ("grid", value.rows, value.columns, tuple(c is not None for c in value.cells))
    if isinstance(value, dict):
        return ("map", tuple(repr(k) for k in value))
    return value is not None


def _kind(value) -> object:
    """Values that may stand in for each other when dealt anew: components of one record, or
    values of one Python type."""
    return ("item", value.record) if isinstance(value, Item) else type(value)
