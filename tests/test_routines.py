"""Blocks that wait run as generated routines: they wait inside loops, turns and calls nested as
deep as the rules nest them, take their places back when run again, and are copied, saved and
loaded at any decision as data, giving the same game as one that was never interrupted."""
import json

import pytest

from engine_helpers import game_of, header, rules_of
from rulebook import api
from rulebook.interpreter.agents import RandomAgent
from rulebook.interpreter.game import Game
from rulebook.interpreter.routines import _SUB_BLOCKS
from rulebook.validator.diagnostics import DiagnosticError

BUNDLED = [("examples/tictactoe", 2), ("examples/love_letter", 3), ("examples/sushi_go", 3),
           ("examples/six_nimmt", 3), ("examples/no_thanks", 3), ("examples/kuhn_poker", 2),
           ("examples/dewdrop_garden", 2), ("liqueur", 3), ("beverage", 3),
           ("smartphone_inc", 3), ("beer_empire", 3)]


def play(game: Game, seed: int, limit: int | None = None) -> Game:
    agents = {s.seat: RandomAgent(seed * 13 + s.seat) for s in game.state.seats}
    made = 0
    while game.pending is not None and (limit is None or made < limit):
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options(bots=True)), seat)
        made += 1
    return game


@pytest.mark.parametrize("ruleset,players", BUNDLED)
def test_every_bundled_game_copied_saved_and_loaded_midway_goes_on_as_the_original(ruleset,
                                                                                   players):
    rules = api.load(ruleset)
    whole = play(Game(rules, players, 5), 5)
    n = len(whole.history)
    for cut in sorted({1, n // 4, n // 2, (3 * n) // 4, n - 1}):
        part = Game.replay(rules, players, 5, whole.history[:cut])
        loaded = Game.load(json.loads(json.dumps(part.save())), rules)
        for copy in (loaded, part.clone(), part):
            for entry in whole.history[cut:]:
                copy.apply(entry["option"], entry["player"])
            assert copy.digest() == whole.digest(), (ruleset, cut)


def nested(depth: int) -> str:
    """Loops inside loops `depth` deep, a decision at the bottom: deeper than one Python
    function may nest blocks, so parts of it are routines of their own."""
    body = """choose players[1] "Pick" {
        option low { increase total by 1 }
        option high { increase total by 10 }
    }
    increase visits by 1"""
    for k in range(depth):
        body = f"for x{k} in 1..2 {{\n    let seen{k} = x{k}\n    {body}\n    increase total by seen{k} * 0\n}}"
    return header() + f"global total: int = 0\nglobal visits: int = 0\nplay {{\n{body}\n}}\n"


def test_decisions_nested_deeper_than_a_python_function_allows_wait_and_resume():
    depth = _SUB_BLOCKS  # each loop nests two Python blocks: this needs several routines
    rules = rules_of(nested(depth))
    assert len(rules.code.routines) > 1
    game = Game(rules, 2, 0)
    picks = []
    while game.pending is not None:
        pick = "high" if len(picks) % 3 == 0 else "low"
        picks.append(pick)
        if len(picks) % 7 == 0:  # go on from a copy read back from a save
            game = Game.load(json.loads(json.dumps(game.save())), rules)
        game.apply(pick)
    assert len(picks) == 2 ** depth
    assert game.state.globals["visits"] == 2 ** depth
    assert game.state.globals["total"] == sum(10 if p == "high" else 1 for p in picks)


RECURSIVE = header() + """
global total: int = 0
procedure climb(n) {
    if n > 0 {
        choose players[1] "Step {n}" {
            option up { increase total by n }
            option skip { }
        }
        do climb(n - 1)
    }
}
play {
    do climb(HEIGHT)
}
"""


def test_a_procedure_that_waits_may_call_itself_and_is_saved_inside_its_calls():
    rules = rules_of(RECURSIVE.replace("HEIGHT", "6"))
    game = Game(rules, 2, 0)
    for k in range(6):
        if k == 3:
            game = Game.load(json.loads(json.dumps(game.save())), rules)
        game.apply("up")
    assert game.over and game.state.globals["total"] == 6 + 5 + 4 + 3 + 2 + 1


def test_a_procedure_that_waits_calling_itself_too_deep_is_a_located_error():
    with pytest.raises(DiagnosticError) as err:
        game = game_of(RECURSIVE.replace("HEIGHT", "500"))
        while game.pending is not None:
            game.apply("up")
    assert err.value.diagnostics[0].code == "E0302"


STOPPED = header() + """
global rounds_played: int = 0
global after: int = 0
procedure ask(p) {
    choose p "Go on?" {
        option go { }
        option halt { stop }
    }
}
play {
    repeat 10 times {
        increase rounds_played by 1
        do ask(players[1])
    }
    set after = 1
}
"""


@pytest.mark.parametrize("reload", [False, True])
def test_a_stop_in_a_called_routine_ends_the_loop_of_its_caller_after_a_load(reload):
    """The loop is in the routine below the procedure's: when the game was read back from a
    save in between, the `stop` reaches it from the stack, not from a Python call."""
    rules = rules_of(STOPPED)
    game = Game(rules, 2, 0)
    game.apply("go")
    game.apply("go")
    if reload:
        game = Game.load(json.loads(json.dumps(game.save())), rules)
    game.apply("halt")
    assert game.over
    assert game.state.globals["rounds_played"] == 3 and game.state.globals["after"] == 1


PASSING = header("3") + """
player acted: int = 0
global order: list of int = []
play {
    turns p in players until all passed {
        choose p "Act or pass" {
            option act where p.acted < p.seat { increase p.acted by 1 }
            option pass_now { pass }
        }
    }
}
"""


def test_players_who_pass_are_skipped_until_all_passed_across_saves():
    rules = rules_of(PASSING.replace("p.seat", "2"))
    game = Game(rules, 3, 0)
    asked = []
    while game.pending is not None:
        seat = game.pending_seat()
        asked.append(seat)
        acted = game.state.seats[seat - 1].vars["acted"]
        game = Game.load(json.loads(json.dumps(game.save())), rules)
        game.apply("act" if acted < 2 and game.pending.has("act") else "pass_now", seat)
    assert [s.vars["acted"] for s in game.state.seats] == [2, 2, 2]
    assert asked == [1, 2, 3, 1, 2, 3, 1, 2, 3]  # two actions each, then each passes once


REACTING = header() + """
global score: int = 0
global bonus: int = 0
reaction rich for p in players as soon as p == players[1] and score >= 3 {
    choose players[2] "Reward {p}" {
        option small { increase bonus by 1 }
        option big { increase bonus by 5 }
    }
}
play {
    repeat 4 times {
        choose players[1] "Score" {
            option one { increase score by 1 }
            option two { increase score by 2 }
        }
    }
}
"""


def test_a_reaction_that_waits_is_asked_where_the_state_changed_and_saved_there():
    rules = rules_of(REACTING)
    game = Game(rules, 2, 0)
    game.apply("two")
    game.apply("one")  # score 3: the reaction asks player 2 at once
    assert game.pending_seat() == 2
    game = Game.load(json.loads(json.dumps(game.save())), rules)
    game.apply("big")
    assert game.pending_seat() == 1
    game.apply("one")
    game.apply("one")
    assert game.over
    assert game.state.globals["bonus"] == 5 and game.state.globals["score"] == 5


TWO_HANDLERS = header() + """
global firsts: int = 0
global after: int = 0
when asked() {
    choose players[1] "First" {
        option a { increase firsts by 1 }
    }
}
when asked() {
    choose players[1] "Second" {
        option go { }
        option halt { stop }
    }
}
play {
    repeat 3 times {
        trigger asked()
    }
    set after = 1
}
"""


@pytest.mark.parametrize("reload", [False, True])
def test_a_stop_from_the_second_of_two_waiting_handlers_ends_the_loop_around_the_trigger(reload):
    """The stop reaches the routine that triggered the event from the stack, at the second
    handler's place; the first handler's place is passed over, and the rest of the routine
    runs."""
    rules = rules_of(TWO_HANDLERS)
    game = Game(rules, 2, 0)
    for option in ("a", "go", "a"):
        game.apply(option)
    if reload:
        game = Game.load(json.loads(json.dumps(game.save())), rules)
    game.apply("halt")
    assert game.over
    assert game.state.globals["firsts"] == 2 and game.state.globals["after"] == 1


NESTED_PARTS = header() + """
global level: int = 0
play {
    simultaneously for q in players {
        simultaneously for r in [q] {
            choose r "Inner" {
                option up { increase level by 1 }
                option down { decrease level by 1 }
            }
        }
    }
}
"""


def test_simultaneously_inside_simultaneously_asks_each_player_once_and_logs_once():
    rules = rules_of(NESTED_PARTS)
    game = Game(rules, 2, 0)
    asked = []
    while game.pending is not None:
        asked.append(game.pending_seat())
        if len(asked) == 2:
            game = Game.load(json.loads(json.dumps(game.save())), rules)
        game.apply("up", game.pending_seat())
    assert sorted(asked) == [1, 2] and game.state.globals["level"] == 2
    decisions = [e for e in game.state.log if e["kind"] == "decision"]
    assert len(decisions) == 2
