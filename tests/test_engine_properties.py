"""Engine invariants, checked by Hypothesis over seeds and decision sequences of real rulesets."""
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook import api
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.errors import IllegalDecision
from rulebook.interpreter.game import Game

ROOT = Path(__file__).resolve().parents[1] / "rulesets"
LIQUEUR = api.load(str(ROOT / "liqueur" / "liqueur.rules"))
TICTACTOE = api.load(str(ROOT / "examples" / "tictactoe.rules"))

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _played(rules, players, seed, agent_seed, limit=None):
    game = Game(rules, players, seed)
    agents = {s.seat: RandomAgent(agent_seed + s.seat) for s in game.state.seats}
    made = 0
    while game.pending is not None and (limit is None or made < limit):
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options()), seat)
        made += 1
    return game


@SETTINGS
@given(seed=st.integers(0, 10_000), agent_seed=st.integers(0, 10_000),
       players=st.integers(3, 5))
def test_a_seed_and_the_decisions_replay_bit_for_bit(seed, agent_seed, players):
    game = _played(LIQUEUR, players, seed, agent_seed)
    again = Game.replay(LIQUEUR, players, seed, game.history)
    assert again.digest() == game.digest()
    assert again.over and [p.seat for p in again.state.winners] == \
        [p.seat for p in game.state.winners]


@SETTINGS
@given(seed=st.integers(0, 10_000), agent_seed=st.integers(0, 10_000),
       cut=st.integers(0, 60))
def test_save_load_and_clone_anywhere_continue_identically(seed, agent_seed, cut):
    full = _played(LIQUEUR, 3, seed, agent_seed)
    cut = min(cut, len(full.history))
    partial = Game.replay(LIQUEUR, 3, seed, full.history[:cut])
    for copy in (Game.load(partial.save(), LIQUEUR), partial.clone()):
        for entry in full.history[cut:]:
            copy.apply(entry["option"], entry["player"])
        assert copy.digest() == full.digest()


@SETTINGS
@given(seed=st.integers(0, 10_000), agent_seed=st.integers(0, 10_000),
       steps=st.integers(0, 40), bad=st.text(max_size=12))
def test_an_illegal_decision_never_changes_the_state(seed, agent_seed, steps, bad):
    game = _played(LIQUEUR, 4, seed, agent_seed, limit=steps)
    if game.pending is None:
        return
    legal = {o for o, _ in game.legal_options()} | {l for _, l in game.legal_options()}
    before = game.digest()
    if bad not in legal:
        try:
            game.apply(bad)
        except IllegalDecision:
            pass
        assert game.digest() == before
    wrong_seat = game.pending_seat() % len(game.state.seats) + 1
    try:
        game.apply(game.legal_options()[0][0], wrong_seat)
    except IllegalDecision:
        pass
    assert game.digest() == before


@SETTINGS
@given(seed=st.integers(0, 10_000), agent_seed=st.integers(0, 10_000))
def test_every_game_ends_with_the_rulesets_invariants_holding(seed, agent_seed):
    # Liqueur declares that every card stays in exactly one zone; the engine checks it after
    # every decision and would raise if a card were created or lost.
    game = _played(LIQUEUR, 5, seed, agent_seed)
    assert game.over and game.error is None
    game = Game(TICTACTOE, 2, seed)
    play_out(game, {1: RandomAgent(agent_seed), 2: RandomAgent(agent_seed + 1)})
    assert game.over
