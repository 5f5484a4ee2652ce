"""Any ruleset as an OpenSpiel game. Importing this module registers the game `rulebook`:

    import pyspiel
    import rulebook.openspiel  # noqa: F401 - registers "rulebook"
    game = pyspiel.load_game("rulebook", {"ruleset": RULESET, "players": 3})

Parameters: `ruleset` (a bundled name, folder or `.rules` file), `players` (0: the ruleset's
minimum), `variants` (names separated by commas), `returns` (`win`: 1/k to each of k winners;
`score`: each seat's final score, the first key of `winner`, less the seats' mean) and
`history` (how many of the last decisions the information-state tensor holds). Actions are the
ruleset's stable action ids (`api.action_space`); every random draw is an explicit chance node
with equally likely outcomes (interpreter/chance.py); seats 1..N are OpenSpiel players 0..N-1
(automata decide inside the rules). Information-state and observation strings are the seat's
view as JSON (with its log for the information state); tensors are the seat's view encoded from
the declarations (interpreter/encoding.py), the information state's with the decisions the seat
saw made. docs/agents.md says more.
"""
from __future__ import annotations

import json

import numpy as np
import pyspiel

from . import api
from .grammar import ast as A
from .interpreter.actions import _declared_bounds, max_game_length
from .interpreter.chance import ChancePlay, started
from .interpreter.encoding import Encoding, EncodingTooLarge
from .interpreter.search import returns as shares
from .interpreter.search import signed_scores
from .validator.semantic import MAX_PLAYERS

SHORT_NAME = "rulebook"
DEFAULTS = {"ruleset": "examples/tictactoe", "players": 0, "variants": "", "returns": "win",
            "history": 32}
RETURNS = ("win", "score")
UNBOUNDED_SCORE = 1e9  # the utility bound of `returns=score` when the score declares no bounds
_Utility = pyspiel.GameType.Utility


def _game_type(information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
               utility=_Utility.GENERAL_SUM, tensors: bool = True):
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="A rulebook ruleset",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=tensors,
        provides_observation_string=True,
        provides_observation_tensor=tensors,
        parameter_specification=dict(DEFAULTS))


def max_chance_outcomes(rules) -> int:
    """A bound of the outcomes of one random draw: a shuffle draws among at most as many
    elements as its list holds. Lists of components hold at most the catalogue; the bound adds
    room for lists of numbers (a draw beyond it stops the game with a clear error)."""
    return max(1024, sum(len(items) for items in rules.tables.values()))


def _hidden_anywhere(rules) -> bool:
    decls = list(rules.global_vars.values()) + list(rules.player_vars.values())
    return any(getattr(d, "visibility", "public") != "public" for d in decls)


def _everyone_ranked(rules) -> bool:
    """Whether every finished game has a winner among OpenSpiel's players: `winner` ranks all
    the players and no automaton plays (an automaton is a seat, not an OpenSpiel player)."""
    w = rules.winner
    return w is not None and not rules.automata and isinstance(w.binding.source, A.Name) \
        and w.binding.source.id == "players"


def _score_bound(shared) -> float:
    """How far a seat's score can lie from the mean of the N seats' scores: (H - L)(N - 1)/N
    for a score declared `at least L at most H`, else UNBOUNDED_SCORE."""
    w, rules = shared.rules.winner, shared.rules
    expr = w.keys[0].expr if w is not None and w.keys and w.keys[0].kind == "sort_key" else None
    decl = None
    if isinstance(expr, A.FieldAccess) and isinstance(expr.obj, A.Name) \
            and expr.obj.id == w.binding.name:
        decl = rules.player_vars.get(expr.name)
    bounds = _declared_bounds(decl, shared.space) if decl is not None else None
    if bounds is None or bounds[0] <= -2 ** 53:
        return UNBOUNDED_SCORE
    n = shared.players + len(rules.automata)  # the mean is over every seat, automata included
    return (bounds[1] - bounds[0]) * (n - 1) / n


class _Shared:
    """The rules of a game, their action space and their encoding, shared by its states: kept
    here by the game's parameters, so that what OpenSpiel copies or pickles holds only those."""

    loaded: dict[tuple, "_Shared"] = {}

    def __init__(self, rules, players, space):
        self.rules, self.players, self.space = rules, players, space
        try:
            self.encoding = Encoding(rules, players)
        except EncodingTooLarge:  # too many numbers: the game has strings but no tensors
            self.encoding = None
        blocks = sorted(space.blocks.values(), key=lambda b: b.offset)
        self.block_index = {(b.name, len(b.domains)): k for k, b in enumerate(blocks)}
        self.arity = max((len(b.domains) for b in blocks), default=0)

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
        unknown = sorted(set(params) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"unknown parameter {unknown[0]!r} of the rulebook game "
                             f"(parameters: {', '.join(DEFAULTS)})")
        variants = tuple(v for v in str(params["variants"]).split(",") if v)
        self.key = (str(params["ruleset"]), int(params["players"]), variants)
        self.by_score = str(params["returns"]) == "score"
        if str(params["returns"]) not in RETURNS:
            raise ValueError(f"returns must be one of {', '.join(RETURNS)}, "
                             f"not {params['returns']!r}")
        self.history = int(params["history"])
        if self.history < 0:
            raise ValueError(f"history must be 0 or more, not {self.history}")
        shared = _Shared.of(self.key)
        rules, players, space = shared.rules, shared.players, shared.space
        if self.by_score and (rules.winner is None or not rules.winner.keys
                              or rules.winner.keys[0].kind != "sort_key"):
            raise ValueError(f"returns=score needs a score: {rules.title} declares no "
                             "`winner ... by` key")
        hidden = _hidden_anywhere(rules)
        kind = pyspiel.GameType.Information
        if self.by_score:  # zero-sum unless an automaton's score counts in the mean
            bound = _score_bound(shared)
            utility, low, high, total = (_Utility.GENERAL_SUM, -bound, bound, None) \
                if rules.automata else (_Utility.ZERO_SUM, -bound, bound, 0.0)
        elif _everyone_ranked(rules):
            utility, low, high, total = _Utility.CONSTANT_SUM, 0.0, 1.0, 1.0
        else:
            utility, low, high, total = _Utility.GENERAL_SUM, 0.0, 1.0, None
        info = pyspiel.GameInfo(
            num_distinct_actions=space.size,
            max_chance_outcomes=max_chance_outcomes(rules),
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=max_game_length(api.Limits()))
        super().__init__(_game_type(kind.IMPERFECT_INFORMATION if hidden
                                    else kind.PERFECT_INFORMATION, utility,
                                    tensors=shared.encoding is not None), info, params)
        self.perfect = not hidden

    @property
    def shared(self) -> _Shared:
        return _Shared.of(self.key)

    def new_initial_state(self):
        return RulebookState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"the rulebook game's observations take no parameters, not "
                             f"{sorted(params)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return ViewObserver(self, iig_obs_type)


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
        n = self.shared.players
        if not self.is_terminal():
            return [0.0] * n
        game = self._game
        if self.get_game().by_score:
            if game.error is not None:
                return [0.0] * n
            scores = signed_scores(game)
            if len(scores) < len(game.state.seats):
                raise ValueError(f"returns=score: the score of {game.rules.title} is not a "
                                 "number for every seat at the end of this game")
            mean = sum(scores.values()) / len(scores)
            return [scores[seat] - mean for seat in range(1, n + 1)]
        if game.error is not None:  # a broken rule stopped it: nobody won, all even
            return [1.0 / len(game.state.seats)] * n
        won = shares(game)
        return [won.get(seat, 0.0) for seat in range(1, n + 1)]

    def __str__(self):
        return _seen(self, None, with_log=True)


class _Play(ChancePlay):
    """A ChancePlay of a game's parameters, copied by `copy.deepcopy` (how OpenSpiel copies a
    Python state)."""

    def __init__(self, key: tuple):
        self.key, self.trail = key, []
        self.moves: list[tuple[int, str, bool]] = []  # (decider, option id, secret) of each
        self.seen: dict = {}  # views as text, by (seat, with log), until the next step
        super().__init__(self._start)

    def _start(self, hook):
        shared = _Shared.of(self.key)
        return started(shared.rules, shared.players, hook)

    def decide(self, option_id: str) -> None:
        pending = self.base.pending if self.base is not None else None
        move = (pending.player.seat, option_id, bool(pending.secret)) if pending else None
        super().decide(option_id)
        self.trail.append(option_id)
        if move is not None:
            self.moves.append(move)
        self.seen = {}

    def chance(self, outcome: int) -> None:
        super().chance(outcome)
        self.trail.append(outcome)
        self.seen = {}

    def __deepcopy__(self, memo):
        copy = self.clone()
        copy.__class__, copy.key, copy.trail = _Play, self.key, list(self.trail)
        copy.moves = list(self.moves)
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
    """What a seat observes, for OpenSpiel's observation types (`pyspiel.IIGObservationType`):
    its view as text and as numbers. `public_info` is what a spectator sees; `private_info` is
    what the seat (`SINGLE_PLAYER`) or any seat (`ALL_PLAYERS`) sees beyond that; with
    `perfect_recall` (the information state) the text holds the log the seat may read and the
    tensor the last `history` decisions the seat saw made: for each, who made it and, unless it
    was a secret one of another seat's, which option (its name's block and each bound value's
    position in its domain, from 1)."""

    def __init__(self, game: RulebookGame, iig_obs_type):
        shared = game.shared
        kinds = pyspiel.PrivateInfoType
        self.game, self.shared = game, shared
        self.with_log = bool(iig_obs_type.perfect_recall)
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info
        parts = (("public",) if self.public else ()) + {
            kinds.NONE: (), kinds.SINGLE_PLAYER: ("private",),
            kinds.ALL_PLAYERS: ("private", "all_private")}[self.private]
        self.parts = parts
        self.default = self.public and self.private == kinds.SINGLE_PLAYER
        enc = shared.encoding
        if enc is None:  # a ruleset whose view would be too many numbers: strings only
            self.tensor, self.dict = None, {}
            return
        seats = enc.seats
        self.entry = seats + 1 + len(shared.block_index) + shared.arity
        history = game.history if self.with_log else 0
        self.tensor = np.zeros(enc.size + history * self.entry, np.float32)
        self.dict = {p.name: self.tensor[p.offset:p.offset + p.size] for p in enc.pieces}
        if history:
            self.dict["history"] = self.tensor[enc.size:].reshape(history, self.entry)
        self._view = self.tensor[:enc.size]

    def set_from(self, state, player):
        if self.tensor is None:
            return
        seat = player + 1
        self.shared.encoding.encode(state.play.base, seat, self.parts, out=self._view)
        history = self.dict.get("history")
        if history is None:
            return
        history.fill(0.0)
        shared, space = self.shared, self.shared.space
        seats = shared.encoding.seats
        moves = state.play.moves[-len(history):] if len(history) else []
        for row, (decider, option_id, secret) in zip(history, moves):
            if self.public and 1 <= decider <= seats:
                row[decider - 1] = 1.0
            own = decider == seat
            if secret and not ("all_private" in self.parts or (own and "private" in self.parts)):
                continue
            if not secret and not self.public:
                continue
            row[seats] = 1.0  # which option is known
            base, tilde, copy = option_id.rpartition("~")  # copies of one option share it
            name, *tokens = (base if tilde and copy.isdigit() else option_id).split(":")
            block = space.blocks.get((name, len(tokens)))
            if block is None:
                continue
            row[seats + 1 + shared.block_index[(name, len(tokens))]] = 1.0
            at = seats + 1 + len(shared.block_index)
            for k, (index, token) in enumerate(zip(block.index, tokens)):
                row[at + k] = float(index.get(token, -1) + 1)

    def string_from(self, state, player):
        if self.default:
            return _seen(state, player + 1, self.with_log)
        return _parts_seen(state, player + 1, self)


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


def _parts_seen(state, seat: int, observer: ViewObserver) -> str:
    """The parts of what `seat` sees that an observation type asks for, as text: `public` (the
    spectator's view, with the public log under perfect recall) and `private` (what the seat,
    or each seat, sees beyond it, by place in the view); "" when there is nothing."""
    base = state.play.base
    out = {}
    if base is None:
        return "setting up" if observer.public else ""
    if observer.public:
        public = api.view(base, None)
        if not observer.with_log:
            public.pop("log")
        out["public"] = public
    if observer.private != pyspiel.PrivateInfoType.NONE and not observer.game.perfect:
        seats = [seat] if observer.private == pyspiel.PrivateInfoType.SINGLE_PLAYER \
            else list(range(1, len(base.state.seats) + 1))
        spectator = api.view(base, None)
        private = {}
        for s in seats:
            beyond = _beyond(api.view(base, s), spectator)
            if observer.with_log:  # the log lines written to this seat alone
                lines = [e["text"] for e in base.state.log if e["to"] is not None and s in e["to"]]
                if lines:
                    beyond["log"] = lines
            if beyond:
                private[str(s)] = beyond
        if private:
            out["private"] = private
    if not out:
        return ""
    return json.dumps(out, sort_keys=True, separators=(",", ":"), default=str)


def _beyond(mine: dict, spectator: dict) -> dict:
    """What a seat's view shows that the spectator's does not, by place ("/players/1/vars/hand");
    its legal options are left out (OpenSpiel lists them) and so is the log."""
    found: dict[str, object] = {}

    def walk(a, b, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            for k in a:
                walk(a[k], b[k], f"{path}/{k}")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for k, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{path}/{k}")
        elif a != b:
            found[path] = a

    mine = dict(mine, viewer=None, log=None)
    if isinstance(mine.get("pending"), dict):
        mine["pending"] = dict(mine["pending"], options=None)
    walk(mine, dict(spectator, log=None), "")
    return found


pyspiel.register_game(_game_type(), RulebookGame)
