"""The stable action space: integers from the declarations, the same meaning in every state."""
from hypothesis import given, settings, strategies as st

from rulebook import api
from rulebook.interpreter.actions import INT_CAP, ActionSpaceError
from rulebook.interpreter.agents import RandomAgent


def _walk(rules, players, seed):
    """(game, legal action -> option id) at each decision of a random game."""
    game, agent = api.new_game(rules, players, seed), RandomAgent(seed)
    space = api.action_space(rules, players)
    while not game.over:
        legal = space.legal(game)
        yield game, legal
        actions = list(legal)
        api.apply_action(game, actions[agent.rng.below(len(actions))])


def test_tictactoe_cells_are_the_same_integers_in_every_state():
    rules = api.load("examples/tictactoe")
    space = api.action_space(rules, 2)
    place = {space.action_of(f"place:{r}:{c}") for r in (1, 2, 3) for c in (1, 2, 3)}
    assert len(place) == 9 and max(place) < space.size
    assert space.capped == []
    game = api.new_game(rules, 2)
    assert api.action_ids(game) == sorted(place)   # an empty board: every cell
    api.apply_action(game, space.action_of("place:2:2"))
    assert space.action_of("place:2:2") not in api.action_ids(game)
    assert space.describe(space.action_of("place:3:1")) == "place:3:1"


def test_liqueur_actions_close_and_are_bounded_before_play():
    rules = api.load("liqueur")
    space = api.action_space(rules, 3)
    seen = set()
    for seed in range(2):
        for game, legal in _walk(rules, 3, seed):
            for action, oid in legal.items():
                assert 0 <= action < space.size
                assert space.describe(action) == oid.split("~")[0]
            seen |= set(legal)
    assert seen and max(seen) < space.size
    # A domain the declarations do not bound is reported, not guessed silently.
    assert any("`draft`" in c for c in space.capped)


def test_an_illegal_action_is_refused_and_changes_nothing():
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2)
    api.apply_action(game, api.action_ids(game)[0])
    before = game.digest()
    taken = api.action_space(rules, 2).action_of("place:1:1")
    try:
        api.apply_action(game, taken)
    except api.IllegalDecision as e:
        assert "not legal" in e.message
    else:
        raise AssertionError("an occupied cell was accepted")
    assert game.digest() == before


def test_an_option_outside_its_domain_is_a_clear_error():
    space = api.action_space(api.load("examples/tictactoe"), 2)
    for bad in ("place:9:1", "nonsense", "place:1"):
        try:
            space.action_of(bad)
        except ActionSpaceError as e:
            assert bad.split(":")[0] in str(e) or "declared" in str(e)
        else:
            raise AssertionError(bad)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=185))
def test_describe_and_action_of_are_inverse(action):
    space = api.action_space(api.load("beverage"), 3)
    assert space.size == 186
    assert space.action_of(space.describe(action)) == action


def test_returns_and_game_length():
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2, 0)
    for r, c in ((1, 1), (2, 1), (1, 2), (2, 2), (1, 3)):
        game.apply(f"place:{r}:{c}")
    assert api.returns(game) == {1: 1.0, 2: 0.0}
    assert api.max_game_length() == api.Limits().max_steps // api.Limits().decision_steps
    assert INT_CAP >= 99
