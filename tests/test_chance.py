"""Randomness as chance outcomes: recorded, replayed, chosen one draw at a time; and copies of a
game that know only what a seat knows (determinize)."""
import json

from rulebook import api
from rulebook.interpreter.agents import RandomAgent
from rulebook.interpreter.chance import ChancePlay, Script, recorded, started
from rulebook.interpreter.rng import Rng

LOVE = "examples/love_letter"


def _without_rng(game) -> str:
    data = api.state_data(game)
    data.pop("rng")
    return json.dumps(data, sort_keys=True, default=str)


def _random_game(rules, seed):
    game, rec = recorded(rules, 2, seed)
    plain = api.new_game(rules, 2, seed)
    agent, moves = RandomAgent(seed), []
    while not game.over:
        option = agent.decide(None, game.legal_options(bots=True, labels=False))
        moves.append(option)
        game.apply(option)
        plain.apply(option)
    return game, plain, rec.events, moves


def test_recording_chance_changes_nothing_and_every_draw_has_its_outcomes():
    rules = api.load(LOVE)
    game, plain, events, _ = _random_game(rules, 7)
    assert game.digest() == plain.digest()          # same seed, same game, recorded or not
    assert events and all(0 <= k < n for n, k in events)
    assert events[0][0] == 16                       # the first draw of shuffling 16 cards


def test_a_game_replays_from_its_chance_outcomes_without_its_seed():
    rules = api.load(LOVE)
    game, _, events, moves = _random_game(rules, 3)
    again = started(rules, 2, Script([k for _, k in events]))
    for option in moves:
        again.apply(option)
    assert _without_rng(again) == _without_rng(game)


def test_a_chance_player_chooses_each_draw_with_its_number_of_outcomes():
    rules = api.load(LOVE)
    game, _, events, moves = _random_game(rules, 5)
    play = ChancePlay(lambda hook: started(rules, 2, hook))
    events_left, moves_left, nodes = iter(events), iter(moves), 0
    while not (play.chance_outcomes is None and play.base.over):
        if play.chance_outcomes is not None:
            n, k = next(events_left)
            assert play.chance_outcomes == n
            copy = play.clone()                     # a copy at a chance node goes its own way
            play.chance(k)
            assert copy.chance_outcomes == n
            nodes += 1
        else:
            play.decide(next(moves_left))
    assert nodes == len(events)
    assert _without_rng(play.base) == _without_rng(game)


def test_determinize_deals_anew_only_what_the_seat_cannot_see():
    rules = api.load(LOVE)
    game = api.new_game(rules, 2, 3)
    before = game.digest()
    hands = set()
    for seed in range(12):
        copy = api.determinize(game, 1, seed)
        st, real = copy.state, game.state
        assert st.seats[0].vars["hand"] == real.seats[0].vars["hand"]   # its own hand
        assert st.globals["face_up"] == real.globals["face_up"]         # what lies face up
        assert len(st.globals["deck"]) == len(real.globals["deck"])     # sizes it sees
        hidden = lambda s: sorted(c.id for c in s.globals["deck"] + s.globals["set_aside"]
                                  + s.seats[1].vars["hand"])
        assert hidden(st) == hidden(real)          # the same cards, dealt anew
        hands.add(st.seats[1].vars["hand"][0].id)
    assert len(hands) > 1                           # the other hand is not the real one each time
    assert game.digest() == before                  # the game itself is untouched


def test_a_determinized_copy_does_not_know_the_real_future():
    rules = api.load(LOVE)
    game = api.new_game(rules, 2, 3)
    copies = [api.determinize(game, 1, seed) for seed in range(2)]
    assert copies[0].state.rng.state != copies[1].state.rng.state != game.state.rng.state


def test_the_generator_draws_as_before_without_a_chance_source():
    a, b = Rng(11), Rng(11)
    assert [a.below(7) for _ in range(50)] == [b.draw(7) for _ in range(50)]


def test_a_step_whose_rules_fail_ends_the_chance_play_with_its_error():
    from engine_helpers import header, rules_of

    rules = rules_of(header("2") + """
global x: int = 0
global pile: deck of int secret
setup {
    set pile = shuffled(1..3)
}
play {
    choose players[1] "Go" {
        option boom { set x = 1 / (x - x) }
    }
}
""")
    play = ChancePlay(lambda hook: started(rules, 2, hook))
    assert play.chance_outcomes == 3
    play.chance(0)
    play.chance(1)
    assert play.chance_outcomes is None and play.base.pending_seat() == 1
    play.decide("boom")
    assert play.base.pending is None and play.base.error is not None


HIDDEN_VALUES = """
enum Color { red, green, blue }
player dial: int = 3 owner at least 1 at most 6
player flag: bool = false owner
player favourite: Color = red owner
player lights: map of Color to bool owner
player grid_marks: grid 2 by 2 of Color? = none owner shape public
player chips: int = 5 owner at least 0
play {
    turns p from players[1] then next(p) until false {
        choose p "Wait" {
            option wait {
                set p.chips = p.chips + seat(p)
            }
        }
    }
}
"""


def test_determinize_draws_hidden_values_from_their_declared_domains():
    from engine_helpers import game_of, header

    game = game_of(header("3") + HIDDEN_VALUES, 3, 1)
    game.apply("wait")  # player 1: 6 chips
    game.apply("wait")  # player 2: 7 chips
    marks = game.state.seats[1].vars["grid_marks"]
    marks.cells[0] = game.rules.enums["Color"][2]
    seen = {name: set() for name in ("dial", "flag", "favourite", "lights", "chips")}
    cells = set()
    for seed in range(40):
        copy = api.determinize(game, 1, seed)
        mine, real = copy.state.seats[0].vars, game.state.seats[0].vars
        assert {k: mine[k] for k in seen} == {k: real[k] for k in seen}  # its own, as they are
        for other in copy.state.seats[1:]:
            v = other.vars
            assert 1 <= v["dial"] <= 6
            seen["dial"].add(v["dial"])
            seen["flag"].add(v["flag"])
            seen["favourite"].add(v["favourite"].name)
            seen["lights"].add(tuple(sorted(v["lights"].values())))
            assert set(v["lights"]) == set(game.rules.enums["Color"])  # every key kept
        # The chips (no upper bound: no domain) are swapped between the two other seats.
        assert sorted(s.vars["chips"] for s in copy.state.seats[1:]) == [5, 7]
        seen["chips"].add(copy.state.seats[1].vars["chips"])
        # A grid's public shape stays: the one occupied cell is still the only one.
        grid = copy.state.seats[1].vars["grid_marks"]
        assert [c is not None for c in grid.cells] == [True, False, False, False]
        cells.add(grid.cells[0].name)
    assert seen["dial"] == set(range(1, 7)) and seen["flag"] == {False, True}
    assert seen["favourite"] == {"red", "green", "blue"} and len(seen["lights"]) > 1
    assert seen["chips"] == {5, 7} and cells == {"red", "green", "blue"}


def test_a_determinization_keeps_the_invariants():
    from engine_helpers import game_of, header

    rules = header("3") + HIDDEN_VALUES.replace(
        "play {", 'invariant few "dials add up to 9": sum(p.dial for p in players) == 9\nplay {')
    game = game_of(rules, 3, 1)
    dials = set()
    for seed in range(30):
        copy = api.determinize(game, 1, seed)
        assert sum(s.vars["dial"] for s in copy.state.seats) == 9
        dials.add(tuple(s.vars["dial"] for s in copy.state.seats))
        assert copy.state.seats[0].vars["dial"] == 3
    # Drawn anew when the draw keeps the sum (3 + a + b == 9), swapped or kept otherwise.
    assert len(dials) > 1
