"""A state variable declared `int` holds numbers alone: the engine refuses anything else where
it is stored (E0306), the checker where it sees `none` (E0220), and a save holding anything else
is refused (E0314). The generated code reads such a variable as a number, without testing it."""
import json
import re

import pytest

from engine_helpers import game_of, header, rules_of
from rulebook import api
from rulebook.interpreter.game import Game
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program
from test_save_flow_checks import refused, saved

def check_text(text: str) -> list:
    return check_program(parse_text(text, "t.rules"))


COINS = """record Coin { face: text }
table coins of Coin {
    id    | face
    heads | "Heads"
}
"""

# `echo` hides the type of what it is given from the checker: only the engine can tell
STORES = {
    "a global": ("global total: int = 0", "set total = echo(VALUE)"),
    "a player's": ("player gold: int = 1", "set players[2].gold = echo(VALUE)"),
    "a player's in a loop": ("player gold: int = 1", "for p in players { set p.gold = echo(VALUE) }"),
    "a component's": (COINS + "on Coin worth: int = 1",
                      "for c in coins { set c.worth = echo(VALUE) }"),
    "a starting value": ("global total: int = echo(VALUE)", "set total = 2"),
}


@pytest.mark.parametrize("where", STORES)
@pytest.mark.parametrize("value,shown", [('"many"', "text `many`"), ("true", "bool `yes`"),
                                         ("none", "none"), ("[1]", "list `[1]`")])
def test_a_number_variable_refuses_anything_but_a_number_where_it_is_stored(where, value, shown):
    declared, statement = STORES[where]
    text = header() + declared.replace("VALUE", value) + "\ndefine echo(x) = x\nsetup {\n    " \
        + statement.replace("VALUE", value) + "\n}\n"
    assert not [d for d in check_text(text) if d.severity == "error"]
    with pytest.raises(DiagnosticError) as err:
        game_of(text)
    d = err.value.diagnostics[0]
    assert d.code == "E0306" and "is declared `int`: it holds a number, not" in d.message
    assert d.message.endswith(f"not {shown}") and "int?" in d.hint


def test_a_number_is_stored_and_read_back_as_before_by_every_path():
    text = header() + """
player gold: int = 1 at least 0
global total: int = 3
""" + COINS + """on Coin worth: int = 1
define echo(x) = x
setup {
    set total = echo(4) + total
    set players[2].gold = echo(-5)
    for p in players { increase p.gold by echo(2) }
    for c in coins { set c.worth = echo(6) }
    set total = total + sum(p.gold for p in players) + sum(c.worth for c in coins)
}
"""
    g = game_of(text)
    assert [s.vars["gold"] for s in g.state.seats] == [3, 2]  # -5 held at 0, then + 2
    assert g.state.globals["total"] == 7 + 5 + 6


def test_an_optional_number_may_hold_none_and_the_checker_says_so_for_int():
    ok = header() + "global spare: int? = none\nsetup {\n    set spare = none\n}\n"
    assert game_of(ok).state.globals["spare"] is None
    bad = header() + ("global total: int = none\nplayer gold: int = 0\nsetup {\n"
                      "    set total = none\n    for p in players { set p.gold = none }\n}\n")
    errors = [d for d in check_text(bad) if d.code == "E0220"]
    assert [d.line for d in errors] == [4, 7, 8]
    assert all("int?" in d.hint for d in errors)


READS = header() + """
player gold: int = 5
global total: int = 0
global chosen: player? = none
record Medal { weight: int }
player weight: int = 2
define echo(x) = x
define rich(p) = p.gold > total + 1
define heavy(p) = p.weight > 1
setup {
    set chosen = players[1]
    set total = 1
}
play {
    if rich(chosen) and heavy(chosen) { set total = 9 }
    if heavy(new Medal { weight: echo(WEIGHT) }) { set total = 10 }
    end game
}
"""


def test_a_number_variable_is_read_untested_where_nothing_but_it_can_be_read():
    assert game_of(READS.replace("WEIGHT", "0")).state.globals["total"] == 9
    source = "".join(rules_of(READS.replace("WEIGHT", "0")).code.gen.sources)
    play = next(f for f in source.split("\n\ndef ") if "'gold'" in f)
    # `p.gold > total + 1`: only a player has a `gold`, `total` is a global: both numbers
    assert re.search(r"\n +t\d+ = r\d+ \+ \(1\)\n", play)
    assert re.search(r"\n +if \(t\d+ > t\d+\):\n", play)
    # `p.weight`: a medal has one too, which may hold anything: what is read is tested
    assert re.search(r"t\d+ > \(1\) if type\(t\d+\) is int else m.binary_values", play)
    with pytest.raises(DiagnosticError) as err:  # and refused as before, with no traceback
        game_of(READS.replace("WEIGHT", '"heavy"'))
    assert err.value.diagnostics[0].code == "E0306"
    assert err.value.diagnostics[0].line == 12 and "`>` needs numbers, got text" in \
        err.value.diagnostics[0].message
    # a list of players that holds a medal all the same (the checker cannot see through
    # `echo`): its `weight` is tested, though read as a player's first
    among = READS.replace("WEIGHT", "0").replace("play {", """global order: list of player
play {
    set order = echo([new Medal { weight: echo("heavy") }])
    if any(p in order where p.weight > 1) { set total = 11 }""")
    with pytest.raises(DiagnosticError) as err:
        game_of(among)
    assert "`>` needs numbers, got text `heavy`" in err.value.diagnostics[0].message


def test_a_save_holding_anything_but_a_number_in_a_number_variable_is_refused():
    data = saved("liqueur", 3, 4)
    for change, words in ((lambda st: st["seats"][0]["vars"].__setitem__("tokens", "many"),
                           "player 1's `tokens` is declared `int` but holds text `many`"),
                          (lambda st: st["globals"].__setitem__("token_area", True),
                           "`token_area` is declared `int` but holds bool `yes`"),
                          (lambda st: st["globals"].__setitem__("token_area", None),
                           "`token_area` is declared `int` but holds none")):
        bad = json.loads(json.dumps(data))
        change(bad["game"]["state"])
        assert words in refused(bad, "liqueur")
    assert Game.load(json.loads(json.dumps(data)), api.load("liqueur"))  # untouched: loads


TABLE_READS = header() + """
record Card { stage: int, gold: int }
table cards of Card {
    id | stage | gold
    a  | 1     | GOLD
    b  | 2     | 3
}
player gold: int = 5
global total: int = 0
global held: list of player = []
define rich(p) = p.gold > 4
play {
    set held = players
    if rich(held[1]) and cards.b.gold > 2 { set total = 1 }
    end game
}
"""


@pytest.mark.parametrize("gold,tested", [("1", False), ("none", True)])
def test_a_name_rows_of_a_table_share_with_a_number_variable_is_read_untested_when_numbers(
        gold, tested):
    """`gold` of a player and of a card: every card holds a number there and no structure of
    the record is made, so a value read as `.gold` is a number, whatever holds it; a card
    whose `gold` is none leaves what is read tested."""
    text = TABLE_READS.replace("GOLD", gold)
    assert game_of(text).state.globals["total"] == 1
    play = next(f for f in "".join(rules_of(text).code.gen.sources).split("\n\ndef ")
                if "'gold'" in f and "(4)" in f)
    assert bool(re.search(r"t\d+ > \(4\) if type\(t\d+\) is int", play)) == tested
    assert bool(re.search(r"\(t\d+ > \(4\)\)", play)) != tested


def test_a_save_holding_a_structure_the_rules_never_make_is_refused():
    data = saved("liqueur", 3, 4)
    seat = data["game"]["state"]["seats"][0]["vars"]
    forged = json.loads(json.dumps(data))
    forged["game"]["state"]["seats"][0]["vars"]["trends"] = {
        "l": [{"s": "Card", "u": 1, "f": {}}], "r": 0}
    assert "a structure of `Card`, which the rules never make" in refused(forged, "liqueur")
    made = next(r for r in api.load("liqueur").code.gen.built_records)
    extra = json.loads(json.dumps(data))
    extra["game"]["state"]["seats"][0]["vars"]["trends"] = {
        "l": [{"s": made, "u": 1, "f": {"tokens": "many"}}], "r": 0}
    assert f"a structure of `{made}` without the record's fields" in refused(extra, "liqueur")
    assert seat  # (the save read had player values to forge)
