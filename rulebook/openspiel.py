"""Any ruleset as an OpenSpiel game. Importing this module registers the game `rulebook`:

    import pyspiel
    import rulebook.openspiel  # noqa: F401 - registers "rulebook"
    game = pyspiel.load_game("rulebook", {"ruleset": RULESET, "players": 3})

Parameters: `ruleset` (a bundled name, folder or `.rules` file), `players` (0: the ruleset's
minimum) and `variants` (names separated by commas). Actions are the ruleset's stable action
ids (`api.action_space`); every random draw is an explicit chance node with equally likely
outcomes (interpreter/chance.py); seats 1..N are OpenSpiel players 0..N-1 (automata decide
inside the rules). Information-state and observation strings are the seat's view as JSON (with
its log for the information state). Returns: 1/k to each of k winners (docs/agents.md).
"""
from __future__ import annotations

import json

import pyspiel

from . import api
from .interpreter.actions import max_game_length
from .interpreter.chance import ChancePlay, started
from .interpreter.search import returns as shares
from .validator.semantic import MAX_PLAYERS

SHORT_NAME = "rulebook"
DEFAULTS = {"ruleset": "examples/tictactoe", "players": 0, "variants": ""}


def _game_type(information=pyspiel.GameType.Information.IMPERFECT_INFORMATION):
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="A rulebook ruleset",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=dict(DEFAULTS))


def max_chance_outcomes(rules) -> int:
    """A bound of the outcomes of one random draw: a shuffle draws among at most as many
    elements as its list holds. Lists of components hold at most the catalogue; the bound adds
    room for lists of numbers (a draw beyond it stops the game with a clear error)."""
    return max(1024, sum(len(items) for items in rules.tables.values()))


def _hidden_anywhere(rules) -> bool:
    decls = list(rules.global_vars.values()) + list(rules.player_vars.values())
    return any(getattr(d, "visibility", "public") != "public" for d in decls)


class _Shared:
    """The rules of a game and their action space, shared by its states: kept here by the
    game's parameters, so that what OpenSpiel copies or pickles holds only those."""

    loaded: dict[tuple, "_Shared"] = {}

    def __init__(self, rules, players, space):
        self.rules, self.players, self.space = rules, players, space

    @classmethod
    def of(cls, key: tuple) -> "_Shared":
        hit = cls.loaded.get(key)
        if hit is None:
            ruleset, players, variants = key
            rules = api.load(ruleset, variants)
            players = players or rules.min_players
            if not rules.min_players <= players <= rules.max_players:
                raise ValueError(f"{rules.title} is for {rules.min_players} to "
                                 f"{rules.max_players} players, not {players}")
            hit = cls.loaded[key] = cls(rules, players, api.action_space(rules, players))
        return hit


class RulebookGame(pyspiel.Game):
    def __init__(self, params=None):
        params = {**DEFAULTS, **(params or {})}
        variants = tuple(v for v in str(params["variants"]).split(",") if v)
        self.key = (str(params["ruleset"]), int(params["players"]), variants)
        shared = _Shared.of(self.key)
        rules, players, space = shared.rules, shared.players, shared.space
        hidden = _hidden_anywhere(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=space.size,
            max_chance_outcomes=max_chance_outcomes(rules),
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=max_game_length(api.Limits()))
        kind = pyspiel.GameType.Information
        super().__init__(_game_type(kind.IMPERFECT_INFORMATION if hidden
                                    else kind.PERFECT_INFORMATION), info, params)

    @property
    def shared(self) -> _Shared:
        return _Shared.of(self.key)

    def new_initial_state(self):
        return RulebookState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return ViewObserver(with_log=recall)


class RulebookState(pyspiel.State):
    def __init__(self, game: RulebookGame):
        super().__init__(game)
        self.key = game.key
        self.play = _Play(self.key)

    @property
    def shared(self) -> _Shared:
        return _Shared.of(self.key)

    # ------------------------------------------------------------------------ the flow
    @property
    def _game(self):
        return self.play.base

    def current_player(self):
        if self.play.chance_outcomes is not None:
            return pyspiel.PlayerId.CHANCE
        if self._game.pending is None:
            return pyspiel.PlayerId.TERMINAL
        return self._game.pending_seat() - 1

    def _legal_actions(self, player):
        return list(self.shared.space.legal(self._game))

    def chance_outcomes(self):
        n = self.play.chance_outcomes
        if n > self.get_game().max_chance_outcomes():
            raise ValueError(f"a random draw among {n:,} outcomes exceeds the bound "
                             f"{self.get_game().max_chance_outcomes():,}")
        return [(k, 1.0 / n) for k in range(n)]

    def _apply_action(self, action):
        if self.play.chance_outcomes is not None:
            self.play.chance(action)
        else:
            self.play.decide(self.shared.space.legal(self._game)[action])

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self.shared.space.describe(action)

    def is_terminal(self):
        return self.play.chance_outcomes is None and self._game.pending is None

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.shared.players
        won = shares(self._game)
        return [won.get(seat, 0.0) for seat in range(1, self.shared.players + 1)]

    def __str__(self):
        return _seen(self, None, with_log=True)


class _Play(ChancePlay):
    """A ChancePlay of a game's parameters, copied by `copy.deepcopy` (how OpenSpiel copies a
    Python state)."""

    def __init__(self, key: tuple):
        self.key, self.trail = key, []
        self.seen: dict = {}  # views as text, by (seat, with log), until the next step
        super().__init__(self._start)

    def _start(self, hook):
        shared = _Shared.of(self.key)
        return started(shared.rules, shared.players, hook)

    def decide(self, option_id: str) -> None:
        super().decide(option_id)
        self.trail.append(option_id)
        self.seen = {}

    def chance(self, outcome: int) -> None:
        super().chance(outcome)
        self.trail.append(outcome)
        self.seen = {}

    def __deepcopy__(self, memo):
        copy = self.clone()
        copy.__class__, copy.key, copy.trail = _Play, self.key, list(self.trail)
        copy.seen = dict(self.seen)
        copy.start = copy._start
        return copy

    def __getstate__(self):
        """Pickled as its parameters and what was played: decisions and chance outcomes."""
        return {"key": self.key, "trail": self.trail}

    def __setstate__(self, data):
        self.__init__(tuple(data["key"][:2]) + (tuple(data["key"][2]),))
        for step in data["trail"]:
            (self.chance if isinstance(step, int) else self.decide)(step)


class ViewObserver:
    """The seat's view as text: with its log (the information state) or without (what it
    observes now). No tensor: `tensor` is empty."""

    def __init__(self, with_log: bool):
        import numpy as np

        self.with_log = with_log
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        return _seen(state, player + 1, self.with_log)


def _seen(state, seat: int | None, with_log: bool) -> str:
    """What `seat` sees as text; before setup has drawn its cards, the chance outcomes drawn
    so far are known to nobody, so every seat sees the same start."""
    if state.play.base is None:
        return "setting up"
    known = state.play.seen.get((seat, with_log))
    if known is None:
        seen = api.view(state.play.base, seat)
        if not with_log:
            seen = {k: v for k, v in seen.items() if k != "log"}
        known = json.dumps(seen, sort_keys=True, separators=(",", ":"), default=str)
        state.play.seen[(seat, with_log)] = known
    return known


pyspiel.register_game(_game_type(), RulebookGame)
