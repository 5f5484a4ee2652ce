"""Any ruleset as a PettingZoo AEC environment: api_test and seed_test, masks that match."""
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from rulebook import api
from rulebook import pettingzoo as rz


# Every bundled ruleset (tests/test_openspiel.py checks that the list is complete).
@pytest.mark.parametrize("ruleset,players,cycles", [
    ("examples/tictactoe", 2, 20), ("examples/love_letter", 2, 20), ("examples/kuhn_poker", 2, 20),
    ("examples/no_thanks", 3, 8), ("examples/six_nimmt", 2, 8), ("examples/sushi_go", 2, 8),
    ("examples/dewdrop_garden", 2, 8), ("liqueur", 3, 8), ("beverage", 3, 8),
    ("smartphone_inc", 2, 8), ("beer_empire", 2, 8)])
def test_api_and_seed_tests_pass(ruleset, players, cycles):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a Dict observation (with its mask) is warned about
        api_test(rz.env(ruleset, players), num_cycles=cycles, verbose_progress=False)
        seed_test(lambda: rz.env(ruleset, players), num_cycles=cycles)


def test_the_mask_is_the_legal_actions_and_a_finished_game_pays_its_winner():
    env = rz.env("examples/tictactoe", 2)
    env.reset(seed=3)
    space = api.action_space(api.load("examples/tictactoe"), 2)
    for option in ("place:1:1", "place:2:1", "place:1:2", "place:2:2", "place:1:3"):
        observation, _, _, _, _ = env.last()
        assert observation["action_mask"][space.action_of(option)] == 1
        assert observation["action_mask"].sum() == len(api.action_ids(env.unwrapped.game))
        env.step(space.action_of(option))
    assert all(env.terminations.values())
    assert env.rewards == {"player_1": 1.0, "player_2": 0.0}


def test_the_same_seed_deals_the_same_observations():
    first, second = rz.env("examples/love_letter", 2), rz.env("examples/love_letter", 2)
    first.reset(seed=11)
    second.reset(seed=11)
    assert np.array_equal(first.observe("player_1")["observation"],
                          second.observe("player_1")["observation"])
    # Each seat's observation shows its own hand, not the other's.
    assert not np.array_equal(first.observe("player_1")["observation"],
                              first.observe("player_2")["observation"])


def test_a_view_too_large_to_encode_is_a_clear_error():
    with pytest.raises(ValueError, match="would hold 1,170,013 numbers, more than 1,000,000"):
        rz.env(str(Path(__file__).parent / "data" / "huge_view.rules"))
