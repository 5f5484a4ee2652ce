"""Agents over any ruleset: greedy, MCTS and IS-MCTS; seeded; IS-MCTS never clairvoyant."""
from pathlib import Path

import pytest

from rulebook import api
from rulebook.interpreter.game import Game
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.interpreter.agents import parse_agent

DATA = Path(__file__).parent / "data"


def _right_guesses(ruleset: str, kind: str, games: int) -> int:
    """How often seat 1 names the hidden card (the only winning move)."""
    rules = api.load(str(DATA / ruleset))
    right = 0
    for seed in range(games):
        game = api.new_game(rules, 2, seed)
        api.play_out(game, {1: api.make_agent(kind, seed), 2: api.make_agent("random", seed)})
        right += game.state.seats[0].vars["right"]
    return right


def test_ismcts_names_a_hidden_card_only_as_often_as_its_knowledge_allows():
    # Two cards it cannot tell apart: about half right (40 games: 12..28 is 99.8% likely).
    assert 12 <= _right_guesses("hidden_guess.rules", "ismcts:20", 40) <= 28
    # MCTS copies the game as it is and so sees the hidden card: always right.
    assert _right_guesses("hidden_guess.rules", "mcts:20", 10) == 10


def test_ismcts_uses_what_the_seat_knows():
    # Holding one of two cards, the deck's card is known by elimination: always right.
    assert _right_guesses("known_guess.rules", "ismcts:20", 10) == 10


def test_mcts_wins_tictactoe_against_random_and_never_loses():
    rules = api.load("examples/tictactoe")
    for seed in range(2):
        game = api.new_game(rules, 2, seed)
        api.play_out(game, {1: api.make_agent("mcts:150", seed), 2: api.make_agent("random", seed)})
        assert [s.seat for s in game.state.winners] in ([1], [1, 2])  # a win or a shared draw


def test_mcts_blocks_an_immediate_threat():
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2, 0)
    for option in ("place:1:1", "place:3:3", "place:1:2"):   # X threatens row 1
        game.apply(option)
    agent = api.make_agent("mcts:200", 1)
    assert agent.choose(game, 2, game.legal_options(bots=True, labels=False)) == "place:1:3"


def test_same_seed_same_search_same_game():
    rules = api.load("examples/tictactoe")

    def play(seed):
        game = api.new_game(rules, 2, 9)
        api.play_out(game, {1: api.make_agent("ismcts:10", seed), 2: api.make_agent("mcts:10", 4)})
        return game.digest()

    assert play(1) == play(1)


def test_greedy_takes_a_win_one_decision_ahead():
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2, 0)
    for option in ("place:1:1", "place:3:3", "place:1:2", "place:3:1"):  # X can complete row 1
        game.apply(option)
    for seed in range(3):
        agent = api.make_agent("greedy", seed)
        assert agent.choose(game, 1, game.legal_options(bots=True, labels=False)) == "place:1:3"


@pytest.mark.parametrize("spec", ["mcts:0", "random:5", "ismcts:x", "clever"])
def test_a_bad_agent_spelling_is_refused(spec):
    with pytest.raises(ValueError):
        parse_agent(spec)


def test_simulated_games_with_search_agents_do_not_depend_on_jobs():
    from functools import partial

    from rulebook.interpreter.simulate import simulate

    rules = api.load("examples/tictactoe")
    agents = {"*": "random", 1: "mcts:10", 2: "greedy"}
    runs = [simulate(rules, partial(api.load, "examples/tictactoe"), 4, 2, 5, jobs, agents)[0]
            for jobs in (1, 2)]
    assert [(r.winners, r.decisions) for r in runs[0]] == [(r.winners, r.decisions) for r in runs[1]]


def test_simulate_takes_an_agent_per_seat_and_refuses_bad_ones():
    import json

    from click.testing import CliRunner

    from rulebook.cli import main

    runner = CliRunner()
    done = runner.invoke(main, ["simulate", "examples/tictactoe", "--games", "3", "--seat",
                                "1=mcts:40", "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout if hasattr(done, "stdout") else done.output)
    assert summary["seats"] == {"1": "mcts:40"}
    assert summary["wins_per_seat"]["2"] == 0          # random never beats a search of 40
    for bad in (["--seat", "3=mcts"], ["--seat", "1=human"], ["--agent", "clever"]):
        refused = runner.invoke(main, ["simulate", "examples/tictactoe", "--games", "1", *bad])
        assert refused.exit_code == 2 and "Invalid value" in refused.output


def test_a_search_stops_once_its_choice_cannot_change():
    rules = api.load(str(DATA / "hidden_guess.rules"))
    game = api.new_game(rules, 2, 0)
    bot = api.make_agent("mcts:400", 0)   # it sees the card: one option always wins
    choice = bot.choose(game, 1, game.legal_options(bots=True, labels=False))
    assert bot.last_iterations < 400
    game.apply(choice)
    assert game.state.seats[0].vars["right"]


class _ByList:
    """An agent asked with the list of options only (no `pick`): the way `decide` is asked."""

    reads_labels = False

    def __init__(self, agent):
        self.agent = agent

    def decide(self, game_view, options):
        return self.agent.decide(game_view, options)


@pytest.mark.parametrize("ref,players,variants", [
    ("examples/tictactoe", 2, ()), ("smartphone_inc", 3, ()), ("examples/dewdrop_garden", 2, ()),
    ("liqueur", 3, ()), ("beverage", 4, ()), ("examples/sushi_go", 3, ()),
    ("smartphone_inc", 1, ("steve",))])
def test_bots_picking_by_position_play_the_games_they_play_when_given_the_list(ref, players,
                                                                                 variants):
    # `pick(count)` takes the position among `legal_options(bots=True)`: a composed decision's
    # start over is left out alike (Smartphone Inc. and Dewdrop Garden compose their decisions).
    # Bots that all pick by position answer each decision where the rules ask it (no waiting,
    # `AnsweredAtOnce`); one that is given the list answers it through `apply`. The games are
    # the same: decisions, state, steps, log, invariants checked, decisions counted. Sushi Go's
    # simultaneous picks and Steve, the automaton of Smartphone Inc.'s solo game, still wait.
    from rulebook.interpreter.agents import FirstAgent, RandomAgent

    # A game that keeps no log, as simulations play (`log=False`, invariants checked at the end
    # of each turn), takes the shorter way (`AnsweredAtOnce.ask`): the same game again.
    rules = api.load(ref, variants)
    for seed, log, invariants in ((0, True, "changed"), (1, True, "changed"),
                                  (0, False, "turn"), (1, False, "every")):
        games = []
        for wrap in (lambda a: a, _ByList):
            game = Game(rules, players, seed, log=log, invariants=invariants)
            agents = {s: wrap(RandomAgent(seed * 10 + s) if s != 2 else FirstAgent())
                      for s in range(1, players + 1)}
            made = api.play_out(game, agents)
            games.append((game, made))
        (picked, picked_made), (listed, listed_made) = games
        assert picked.over and picked.error is None
        assert picked.history == listed.history and len(picked.history) > 5
        assert picked_made == listed_made == len(picked.history)
        assert picked.state_written() == listed.state_written()
        assert picked.state.log == listed.state.log and picked.state.steps == listed.state.steps
        assert bool(picked.state.log) is log


def test_bots_picking_by_position_answer_where_asked_and_others_through_apply(monkeypatch):
    from rulebook.interpreter.agents import RandomAgent

    applied = []
    apply = Game.apply
    monkeypatch.setattr(Game, "apply", lambda g, o, p=None: (applied.append(o), apply(g, o, p)))
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2, 0)
    made = api.play_out(game, {1: RandomAgent(1), 2: RandomAgent(2)})
    assert made >= 5 and len(applied) == 1  # the first, asked before play_out began
    applied.clear()
    game = Game(rules, 2, 0, _start=False)
    from rulebook.interpreter.agents import play_out
    assert play_out(game, {1: RandomAgent(1), 2: RandomAgent(2)}, state=game.new_state()) \
        .decisions == made and not applied  # begun by play_out: none waits
    applied.clear()
    game = api.new_game(rules, 2, 0)
    made = api.play_out(game, {1: RandomAgent(1), 2: _ByList(RandomAgent(2))})
    assert len(applied) == made  # a bot given the list: every decision waits


@pytest.mark.parametrize("ref,players,variants", [
    ("examples/tictactoe", 2, ()), ("liqueur", 3, ()), ("beverage", 3, ()),
    ("smartphone_inc", 1, ("steve",))])
def test_a_simulated_game_begun_by_its_bots_is_the_game_begun_before_them(ref, players,
                                                                         variants):
    """`play_one` begins a game in `play_out` (`Game.begin`), so that its bots answer the first
    decisions where they are asked too; a game it must show to a watcher first is begun before.
    The records are the same, for games that end, that run out of steps before their first
    decision, and after some."""
    from rulebook.interpreter.simulate import play_one
    from rulebook.interpreter.state import Limits

    rules = api.load(ref, variants)
    steps = play_one(rules, players, 0, 0, "random").steps
    for seed, limits in ((0, None), (1, None), (0, Limits(max_steps=5)),
                         (0, Limits(max_steps=steps // 2))):
        begun_by_bots = play_one(rules, players, seed, seed, "random", limits)
        begun_before = play_one(rules, players, seed, seed, "random", limits,
                                watch=lambda game, agents: agents)
        assert begun_by_bots == begun_before
        if limits is not None:  # out of steps: before its first decision, and after some
            assert begun_by_bots.error["code"] == "E0301"
            assert (begun_by_bots.decisions > 0) is (limits.max_steps > 5)


def test_bots_answering_where_asked_stop_at_the_decision_limit():
    from rulebook.interpreter.agents import RandomAgent, play_out

    rules = api.load("liqueur")
    game = api.new_game(rules, 3, 0)
    with pytest.raises(DiagnosticError) as err:
        play_out(game, {s: RandomAgent(s) for s in (1, 2, 3)}, max_decisions=40)
    assert err.value.diagnostics[0].code == "E0301" and "40" in err.value.diagnostics[0].message
    assert len(game.history) == 40 and game.pending is not None  # stopped at the 41st, waiting
    assert game.machine.answer_now is None  # no bot is left to answer a later `apply`
    game.apply(game.legal_options()[0][0])
    assert len(game.history) == 41


def test_an_invariant_broken_between_decisions_answered_where_asked_ends_the_game(tmp_path):
    path = tmp_path / "grow.rules"
    path.write_text('''game "Grow" {
    players 2
}
global pile: int = 0
invariant small "the pile stays under 5": pile < 5
play {
    rounds {
        for p in players {
            turn p {
                choose p "Move" {
                    option grow { increase pile by 1 }
                    option more { increase pile by 1 }
                }
            }
        }
    }
}
''')
    from rulebook.interpreter.agents import RandomAgent

    for mode, log in (("changed", True), ("turn", True), ("changed", False), ("turn", False),
                      ("every", False)):  # (with no log: `AnsweredAtOnce.ask`)
        game = Game(api.load(str(path)), 2, 0, invariants=mode, log=log)
        with pytest.raises(DiagnosticError) as err:
            api.play_out(game, {1: RandomAgent(1), 2: RandomAgent(2)})
        assert err.value.diagnostics[0].code == "E0313"
        assert game.error is not None and game.pending is None
        assert game.state.globals["pile"] == 5 and len(game.history) == 5


def test_an_agent_that_overrides_decide_is_asked_with_decide_even_if_it_inherits_pick():
    from rulebook.interpreter.agents import RandomAgent

    class Recording(RandomAgent):
        def __init__(self, seed):
            super().__init__(seed)
            self.offered = []

        def decide(self, game_view, options):
            self.offered.append(len(options))
            return options[-1][0]

    game = api.new_game(api.load("examples/tictactoe"), players=2, seed=0)
    agents = {1: Recording(1), 2: RandomAgent(2)}
    api.play_out(game, agents)
    assert agents[1].offered[0] == 9 and game.history[0]["option"] == "place:3:3"
