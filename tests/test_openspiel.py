"""Any ruleset as an OpenSpiel game: OpenSpiel's own API tests (integration_tests/api_test.py
and python/tests/games_sim_test.py, shipped in the wheel) and random_sim_test with
serialisation on every bundled ruleset;
observation and information-state tensors of the declared shapes that show a seat only what it
sees; CFR on Kuhn poker reaching the game's known value; OpenSpiel's MCTS on tic-tac-toe."""
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.integration_tests import api_test
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, mcts
from open_spiel.python.algorithms import sample_some_states
from open_spiel.python.tests import games_sim_test

import rulebook.openspiel  # noqa: F401 - registers "rulebook"
from rulebook import api

# Every bundled ruleset at its smallest player count, and how many random games
# random_sim_test plays and how many states OpenSpiel's API tests look at (fewer on the big
# rulesets: a game of Smartphone Inc. takes about 13 s here with serialisation at every state).
BUNDLED = [
    ("examples/tictactoe", 3, 4), ("examples/kuhn_poker", 3, 4),
    ("examples/love_letter", 2, 3), ("examples/no_thanks", 2, 3),
    ("examples/six_nimmt", 2, 3), ("examples/sushi_go", 2, 3),
    ("examples/dewdrop_garden", 2, 3),
    ("liqueur", 1, 2), ("beverage", 1, 2), ("smartphone_inc", 1, 1), ("beer_empire", 1, 1),
]
KUHN = {"ruleset": "examples/kuhn_poker", "returns": "score"}
NO_WINNER = str(Path(__file__).parent / "data" / "no_winner.rules")


def load(ruleset, **params):
    return pyspiel.load_game("rulebook", {"ruleset": ruleset, **params})


def dealt(game, outcomes=()):
    """A state past its chance nodes: the given outcomes first, then the first outcome."""
    state = game.new_initial_state()
    outcomes = list(outcomes)
    while state.is_chance_node():
        state.apply_action(outcomes.pop(0) if outcomes else state.chance_outcomes()[0][0])
    return state


def test_every_bundled_ruleset_is_tested():
    from test_pettingzoo import test_api_and_seed_tests_pass as pettingzoo_tests

    from rulebook.loader import bundled_names

    games = {n for n in bundled_names() if n != "examples" and (
        "/" not in n or n.startswith("examples/"))}
    assert games == {name for name, _, _ in BUNDLED}
    marks = pettingzoo_tests.pytestmark[0]
    assert games == {ruleset for ruleset, _, _ in marks.args[1]}


@pytest.mark.parametrize("ruleset,sims,_", BUNDLED, ids=[b[0] for b in BUNDLED])
def test_random_sim_test_with_serialisation(ruleset, sims, _):
    game = load(ruleset)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize("ruleset", [b[0] for b in BUNDLED])
def test_openspiel_games_sim_test(ruleset):
    """OpenSpiel's own simulation test of a game (python/tests/games_sim_test.py): a random
    game with the game and its states pickled, serialised and cloned along the way, returns
    within the utility bounds."""
    np.random.seed(1)
    games_sim_test.GamesSimTest("sim_game").sim_game(load(ruleset))


# ----------------------------------------------------------------- OpenSpiel's API tests
def some_states(game, games: int, seed: int = 1, keep: int = 120):
    """OpenSpiel's sampler (which, in a game that starts by shuffling, stays among the chance
    nodes of the shuffle) and `keep` states spread along `games` random games, their ends
    included: every part of a game is looked at."""
    random.seed(seed)
    states = sample_some_states.sample_some_states(game, max_states=40)
    rng = random.Random(seed)
    for _ in range(games):
        state, trail = game.new_initial_state(), []
        while not state.is_terminal():
            options = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() \
                else state.legal_actions()
            trail.append(rng.choice(options))
            state.apply_action(trail[-1])
        kept = set(range(0, len(trail) + 1, max(1, len(trail) // keep))) | {len(trail)}
        state = game.new_initial_state()
        for k, action in enumerate(trail + [None]):
            if k in kept:
                states.append(state.clone())
            if action is not None:
                state.apply_action(action)
    return states


def _partial_tree_case(ruleset, games):
    class Case(api_test.EnforceAPIOnPartialTreeBase):
        game_name = ruleset

        @classmethod
        def setUpClass(cls):
            cls.game = load(ruleset)
            cls.some_states = some_states(cls.game, games)
            cls.game_type = cls.game.get_type()

    Case.__name__ = Case.__qualname__ = "TestOpenSpielAPI_" + ruleset.replace("/", "_")
    return Case


for _ruleset, _, _games in BUNDLED:
    _case = _partial_tree_case(_ruleset, _games)
    globals()[_case.__name__] = _case
del _case


def _full_tree_case(params, name):
    """OpenSpiel's full-tree API tests, with the numbers it expects of its own Kuhn poker:
    4 chance nodes, 24 decisions, 30 ends and 12 information states."""

    class Case(api_test.EnforceAPIOnFullTreeBase):
        game_name = "kuhn_poker"
        game = load(**params)

    Case.__name__ = Case.__qualname__ = name
    return Case


TestOpenSpielFullTreeKuhnByScore = _full_tree_case(KUHN, "TestOpenSpielFullTreeKuhnByScore")
TestOpenSpielFullTreeKuhnByWins = _full_tree_case(
    {"ruleset": "examples/kuhn_poker"}, "TestOpenSpielFullTreeKuhnByWins")


# ------------------------------------------------------------------------------- tensors
def test_tensors_have_the_declared_shapes_and_are_stable():
    for ruleset, players in (("examples/tictactoe", 2), ("examples/love_letter", 3),
                             ("beverage", 3)):
        game = load(ruleset, players=players)
        assert game.get_type().provides_observation_tensor
        assert game.get_type().provides_information_state_tensor
        obs, info = game.observation_tensor_size(), game.information_state_tensor_size()
        assert game.observation_tensor_shape() == [obs]
        assert info == obs + 32 * (players + 1 + len(rulebook.openspiel._Shared.of(
            (ruleset, players, ())).block_index) + rulebook.openspiel._Shared.of(
                (ruleset, players, ())).arity)
        state = game.new_initial_state()
        rng = random.Random(5)
        for _ in range(60):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            for p in range(players):
                o = state.observation_tensor(p)
                assert len(o) == obs and len(state.information_state_tensor(p)) == info
                assert o == state.observation_tensor(p)          # stable
                assert o == state.clone().observation_tensor(p)  # and the same in a copy
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_hidden_card_changes_only_the_tensors_of_who_sees_it():
    game = load("examples/kuhn_poker")
    hand = lambda s, seat: s.play.base.state.seats[seat - 1].vars["hand"][0].key  # noqa: E731
    deals = {(hand(s, 1), hand(s, 2)): s for s in (dealt(game, [a, b])
                                                   for a in range(3) for b in range(2))}
    assert len(deals) == 6  # the six deals of three cards to two players
    first, second, third = deals["queen", "king"], deals["queen", "jack"], deals["king", "jack"]
    views = lambda s, p: (s.observation_tensor(p), s.information_state_tensor(p),  # noqa: E731
                          s.information_state_string(p))
    assert views(first, 0) == views(second, 0)   # player 1 holds the queen in both
    assert views(first, 1) != views(second, 1)   # player 2 sees its own card
    assert views(second, 1) == views(third, 1)   # player 2 holds the jack in both
    assert views(second, 0) != views(third, 0)
    # The same after the same public decisions, and again at the end when cards are shown.
    for s in (first, second):
        s.apply_action(s.legal_actions()[0])  # check
    assert views(first, 0) == views(second, 0) and views(first, 1) != views(second, 1)
    for s in (first, second):
        s.apply_action(s.legal_actions()[1])  # bet
    assert views(first, 0) == views(second, 0)


def test_the_information_state_tensor_holds_the_decisions_seen_and_hides_secret_ones():
    game = load("examples/kuhn_poker")
    checked, bet = dealt(game), dealt(game)
    checked.apply_action(checked.legal_actions()[0])
    bet.apply_action(bet.legal_actions()[1])
    assert checked.information_state_tensor(1) != bet.information_state_tensor(1)
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(bet, 1)
    row = observer.dict["history"][0]
    assert row[0] == 1 and row[2] == 1    # made by seat 1, and which option is known
    # Each piece of the tensor is named after what it encodes.
    assert {"game", "global.deck", "player1.hand", "player2.stake", "history"} <= set(observer.dict)


def test_private_and_public_observations_split_what_the_seat_sees():
    game = load("examples/kuhn_poker")
    state = dealt(game)
    kinds = pyspiel.PrivateInfoType
    private = game.make_py_observer(pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=kinds.SINGLE_PLAYER))
    public = game.make_py_observer(pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=kinds.NONE))
    card = state.play.base.state.seats[0].vars["hand"][0].fields["name"]
    mine = private.string_from(state, 0)
    assert card in mine and card not in public.string_from(state, 0)
    assert '"title"' not in mine and '"title"' in public.string_from(state, 0)
    assert public.string_from(state, 0) == public.string_from(state, 1)
    private.set_from(state, 0)
    assert private.dict["player1.hand"].any() and not private.dict["player2.hand"].any()
    assert not private.dict["game"].any()       # whose turn it is is public
    public.set_from(state, 0)
    # hidden, one card (a hand shows its size), not which: the card itself is private
    assert public.dict["player1.hand"].tolist() == [1, 1, 0, 0, 0, 0]
    tictactoe = load("examples/tictactoe")
    assert tictactoe.make_py_observer(pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=kinds.SINGLE_PLAYER)) \
        .string_from(dealt(tictactoe), 0) == ""


def test_bad_parameters_are_clear_errors():
    with pytest.raises(ValueError, match="returns must be one of win, score"):
        load("examples/kuhn_poker", returns="chips")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'seats'"):
        load("examples/kuhn_poker", seats=2)
    with pytest.raises(ValueError, match="history must be 0 or more"):
        load("examples/kuhn_poker", history=-1)
    with pytest.raises(ValueError, match="returns=score needs a score"):
        load(NO_WINNER, returns="score")


def test_a_view_too_large_to_encode_leaves_the_game_without_tensors():
    game = load(str(Path(__file__).parent / "data" / "huge_view.rules"))
    assert not game.get_type().provides_observation_tensor
    assert not game.get_type().provides_information_state_tensor
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_utilities_say_whether_every_game_is_won():
    assert load("examples/tictactoe").get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    game = load(NO_WINNER)  # no `winner`: nobody ever wins
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    with pytest.raises(ValueError, match="take no parameters"):
        load("examples/kuhn_poker").make_py_observer(None, {"x": 1})


# ------------------------------------------------------------------------------ algorithms
def test_cfr_on_kuhn_poker_finds_the_game_value_of_minus_one_eighteenth():
    game = load(**KUHN)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game.min_utility(), game.max_utility()) == (-2.0, 2.0)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(60):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [policy] * 2)
    assert abs(value[0] + 1 / 18) < 2e-3 and abs(value[0] + value[1]) < 1e-9
    assert exploitability.exploitability(game, policy) < 5e-3


def test_cfr_gives_the_same_numbers_as_on_openspiel_s_own_kuhn_poker():
    ours, theirs = load(**KUHN), pyspiel.load_game("kuhn_poker")
    results = []
    for game in (ours, theirs):
        solver = cfr.CFRSolver(game)
        for _ in range(10):
            solver.evaluate_and_update_policy()
        results.append(exploitability.exploitability(game, solver.average_policy()))
    assert results[0] == pytest.approx(results[1], abs=1e-9)


def test_openspiel_mcts_plays_tictactoe_and_wins_against_random():
    game = load("examples/tictactoe", players=2)
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=2, random_state=np.random.RandomState(3))
    bot = mcts.MCTSBot(game, 1.4, 200, evaluator, random_state=np.random.RandomState(4),
                       solve=True)
    rng = random.Random(7)
    total = 0.0
    for k in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            mover = state.current_player()
            if mover == k % 2:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        total += state.returns()[k % 2]
    assert total >= 3.5  # a draw at most once in four games


def test_a_card_game_has_explicit_chance_and_reloads_from_its_serialisation():
    game = load("examples/love_letter", players=2)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 16 and abs(sum(p for _, p in outcomes) - 1) < 1e-9  # 16 cards
    while state.is_chance_node():
        state.apply_action(0)
    seat = state.current_player()
    mine = state.information_state_string(seat)
    assert mine != state.information_state_string(1 - seat)  # each seat sees its own hand
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert again.history() == state.history()
    assert again.information_state_string(seat) == mine
    assert again.information_state_tensor(seat) == state.information_state_tensor(seat)


@pytest.mark.parametrize("ruleset,players", [
    ("examples/love_letter", 3), ("examples/no_thanks", 3), ("examples/six_nimmt", 3),
    ("liqueur", 3), ("beverage", 3), ("smartphone_inc", 2), ("beer_empire", 3)])
def test_what_a_seat_cannot_see_never_reaches_its_tensor(ruleset, players):
    # A determinization deals anew all that the seat cannot see and keeps what it sees: the
    # seat's encoding of both games is the same, along a random game.
    rules = api.load(ruleset)
    encoding = api.encoding(rules, players)
    game = api.new_game(rules, players, 5)
    rng = random.Random(5)
    differed = 0
    for step in range(80):
        if game.over:
            break
        if step % 8 == 0:
            for seat in range(1, players + 1):
                world = api.determinize(game, seat, step)
                mine = encoding.encode(game, seat)
                assert np.array_equal(mine, encoding.encode(world, seat))
                differed += any(not np.array_equal(encoding.encode(game, s),
                                                   encoding.encode(world, s))
                                for s in range(1, players + 1) if s != seat)
        options = game.legal_options(bots=True, labels=False)
        game.apply(rng.choice(options)[0])
    assert differed  # the others' tensors show what was dealt anew
