"""Any ruleset as a PettingZoo AEC environment, with action masks.

    from rulebook import pettingzoo as rz
    env = rz.env(RULESET, players=3)  # a bundled name, folder or .rules file
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        env.step(None if termination or truncation else env.action_space(agent).sample(mask))

Agents `player_1`..`player_N` are the seats (automata decide inside the rules). Actions are the
ruleset's stable action ids (`api.action_space`); the observation is a dict of `observation`,
the seat's view as numbers encoded from the declarations (`api.encoding`, the OpenSpiel
adapter's observation tensor: docs/agents.md, "Tensors"), and `action_mask`. `info["view"]`
holds the view itself. Rewards come at the end: 1/k to each of k winners. `reset(seed=S)` deals game S;
without a seed, a fresh one.
"""
from __future__ import annotations

import secrets

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import api
from .interpreter.search import returns as shares


def env(ruleset: str, players: int | None = None, variants=(), render_mode: str | None = None):
    """The environment, wrapped as PettingZoo recommends (bounds and call order checked)."""
    raw = raw_env(ruleset, players, variants, render_mode)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


class raw_env(AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "rulebook_v0", "is_parallelizable": False}

    def __init__(self, ruleset: str, players: int | None = None, variants=(),
                 render_mode: str | None = None):
        super().__init__()
        self.rules = api.load(ruleset, tuple(variants))
        self.players = players or self.rules.min_players
        self.space = api.action_space(self.rules, self.players)
        self.encoding = api.encoding(self.rules, self.players)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{k}" for k in range(1, self.players + 1)]
        self._actions = {a: spaces.Discrete(self.space.size) for a in self.possible_agents}
        self._observations = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
        }) for a in self.possible_agents}
        self.game = None

    def observation_space(self, agent):
        return self._observations[agent]

    def action_space(self, agent):
        return self._actions[agent]

    # --------------------------------------------------------------------------- playing
    def reset(self, seed=None, options=None):
        game_seed = secrets.randbits(63) if seed is None else int(seed)
        self.game = api.new_game(self.rules, self.players, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._settle()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        api.apply_action(self.game, int(action))
        self._settle()
        self._accumulate_rewards()

    def _settle(self) -> None:
        """Whose turn it is now, and the rewards once the game is over."""
        if self.game.pending is None:
            won = shares(self.game) if self.game.error is None else {}
            for k, agent in enumerate(self.possible_agents, 1):
                if agent in self.agents:
                    self.rewards[agent] = won.get(k, 0.0)
                    self.terminations[agent] = True
                    if self.game.error is not None:
                        self.infos[agent]["error"] = self.game.error.message
            self.agent_selection = self.agents[0] if self.agents else None
            return
        for agent in self.agents:
            self.rewards[agent] = 0.0
        self.agent_selection = f"player_{self.game.pending_seat()}"

    def observe(self, agent):
        seat = self.possible_agents.index(agent) + 1
        seen = api.view(self.game, seat)
        self.infos[agent]["view"] = seen
        mask = np.zeros(self.space.size, np.int8)
        if self.game.pending is not None and self.game.pending_seat() == seat:
            mask[api.action_ids(self.game)] = 1
        return {"observation": self.encoding.encode(self.game, seat), "action_mask": mask}

    def render(self):
        if self.render_mode == "ansi" and self.game is not None:
            return str(api.view(self.game, None))
        return None

    def close(self):
        pass

