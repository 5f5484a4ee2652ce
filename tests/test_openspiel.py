"""Any ruleset as an OpenSpiel game: random_sim_test with serialisation, explicit chance."""
import pyspiel

import rulebook.openspiel  # noqa: F401 - registers "rulebook"


def test_tictactoe_passes_random_sim_test_and_openspiel_mcts_plays_it():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("rulebook", {"ruleset": "examples/tictactoe", "players": 2})
    assert game.num_players() == 2 and game.num_distinct_actions() == 12
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=None)
    bot = mcts.MCTSBot(game, 1.4, 30, evaluator, random_state=None, solve=False)
    state = game.new_initial_state()
    state.apply_action(bot.step(state))
    assert len(state.history()) == 1


def test_a_card_game_has_explicit_chance_and_reloads_from_its_serialisation():
    game = pyspiel.load_game("rulebook", {"ruleset": "examples/love_letter", "players": 2})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 16 and abs(sum(p for _, p in outcomes) - 1) < 1e-9  # 16 cards
    while state.is_chance_node():
        state.apply_action(0)
    seat = state.current_player()
    mine = state.information_state_string(seat)
    theirs = state.information_state_string(1 - seat)
    assert mine != theirs                          # each seat sees its own hand only
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert again.history() == state.history()
    assert again.information_state_string(seat) == mine


def test_liqueur_passes_random_sim_test_with_serialisation():
    game = pyspiel.load_game("rulebook", {"ruleset": "liqueur", "players": 3})
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
