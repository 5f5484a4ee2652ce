"""A save's flow is data from a stranger: every frame read back must wait where its rules can
wait, keep what they keep there and bind the names they read, or the save is refused with a
diagnostic (E0314), never an exception from deep inside the engine."""
import json

import pytest

from rulebook import api
from rulebook.interpreter.agents import RandomAgent
from rulebook.interpreter.game import Game, _digest
from rulebook.validator.diagnostics import DiagnosticError


def saved(ruleset: str, seed: int, decisions: int) -> dict:
    game = api.new_game(api.load(ruleset), players=3, seed=seed)
    agents = {s.seat: RandomAgent(seed * 31 + s.seat) for s in game.state.seats}
    for _ in range(decisions):
        seat = game.pending_seat()
        game.apply(agents[seat].decide(None, game.legal_options(bots=True)), seat)
    return json.loads(json.dumps(game.save()))


def resealed(data: dict) -> dict:
    """The save with its digest made again over what was changed (anyone can)."""
    data["digest"] = _digest({"game": data["game"], "history": data["history"],
                              "players": data["players"], "seed": data["seed"]})
    return data


def refused(data: dict, ruleset: str) -> str:
    with pytest.raises(DiagnosticError) as err:
        Game.load(resealed(data), api.load(ruleset))
    diagnostic = err.value.diagnostics[0]
    assert diagnostic.code == "E0314"
    return diagnostic.message


def waiting_in_loops(data: dict) -> dict:
    """The frame of the routine that waits inside loops (it keeps their positions)."""
    return next(f for f in data["game"]["flow"]["stack"]
                if f["frame"] == "RoutineFrame" and f["v"] not in (None, {"t": [], "r": 0})
                and f["v"].get("t"))


def test_an_untouched_save_reads_back_as_the_same_game():
    data = saved("liqueur", 3, 12)
    rules = api.load("liqueur")
    assert Game.load(resealed(data), rules).digest() == data["digest"]


@pytest.mark.parametrize("change", [
    "label", "index", "short", "name", "routine", "chosen", "kind", "stage"])
def test_a_flow_changed_by_hand_is_refused(change):
    data = saved("liqueur", 3, 12)
    frame = waiting_in_loops(data)
    kept = frame["v"]["t"]
    if change == "label":
        frame["at"] = 999
    elif change == "index":  # a loop's position that is no position
        position = next(i for i, x in enumerate(kept) if type(x) is int)
        kept[position] = -5
    elif change == "short":
        del kept[-1]
    elif change == "name":  # a name the loop binds, gone
        frame["env"]["e"] = {k: v for k, v in frame["env"]["e"].items() if k != "p"}
    elif change == "routine":
        frame["routine"] = 10_000
    elif change == "chosen":
        frame["chosen"] = {"t": [1, 2], "r": 999}
    elif change == "kind":
        frame["frame"] = "BlockFrame"
    else:
        data["game"]["flow"]["stack"][0]["stage"] = 7
    assert "not a valid save" in refused(data, "liqueur")


@pytest.mark.parametrize("change", ["answer", "asked", "waiting"])
def test_parts_of_simultaneously_changed_by_hand_are_refused(change):
    data = saved("beverage", 5, 6)
    sim = next(f for f in data["game"]["flow"]["stack"] if f["frame"] == "SimFrame")
    assert sim["k"] >= 1  # some answers given, waiting to be carried out together
    if change == "answer":
        sim["answers"]["l"][0] = "no_such_option"
    elif change == "asked":
        sim["k"] = len(sim["waiting"]["l"]) + 3
    else:
        sim["waiting"]["l"] = [0, 0]
    assert "not a valid save" in refused(data, "beverage")


def test_a_constant_changed_by_hand_is_refused():
    """The generated code holds a constant written as a number as that number: a save cannot
    give it another value."""
    data = saved("liqueur", 3, 4)
    data["game"]["state"]["consts"]["market_columns"] = 9
    assert "constants" in refused(data, "liqueur")
