"""A structure `new` makes is made where the rules write it (`codegen.WRITE_RECORDS`), with the
runtime's values, steps and numbering (`Evaluator.new_struct`, which makes every other)."""
import pytest

from engine_helpers import game_of, games_either_way, header, rules_of
from rulebook.interpreter import codegen

BAGS = header() + """
enum Colour { red, blue }
record Bag { name: text, size: int, tags: list of int, lid: bool, colour: Colour, owner: player? }
global bags: list of Bag = []
global seen: list of int = []
play {
    for i in 1..3 {
        add new Bag { size: i, owner: players[1] } to bags
    }
    add new Bag { colour: blue, name: "x", size: 9, tags: [1], lid: true, owner: none } to bags
    add 5 to bags[1].tags
    for b in bags {
        add size(b.tags) to seen
    }
}
"""


def _made(monkeypatch, written: bool):
    monkeypatch.setattr(codegen, "WRITE_RECORDS", written)
    code = "".join(rules_of(BAGS).code.gen.sources)
    g = game_of(BAGS)
    bags = g.state.globals["bags"]
    return ("Struct('Bag'" in code, [(b.uid, repr(b.fields)) for b in bags],
            g.state.globals["seen"], g.state.steps, g.state.struct_ids)


def test_a_structure_is_made_where_it_is_written_as_the_runtime_makes_it(monkeypatch):
    written, runtime = _made(monkeypatch, True), _made(monkeypatch, False)
    assert (written[0], runtime[0]) == (True, False)
    assert written[1:] == runtime[1:]
    assert written[2] == [1, 0, 0, 1]  # each new structure has a list of its own
    assert written[4] == 4


@pytest.mark.parametrize("given", ["", "counts: map { }"])
def test_a_record_with_a_map_or_grid_is_made_by_the_runtime(given):
    """(A map or a grid field is made, and charged for, even when it is given.)"""
    text = header() + "record Tally { counts: map of player to int }\n" \
        "global t: list of Tally = []\nplay {\n    add new Tally { GIVEN } to t\n}\n"
    text = text.replace("GIVEN", given)
    assert "m.new_struct(" in "".join(rules_of(text).code.gen.sources)
    g = game_of(text)
    assert len(g.state.globals["t"][0].fields["counts"]) == (0 if given else 2)


@pytest.mark.parametrize("ruleset", ["liqueur", "smartphone_inc", "beer_empire"])
def test_the_books_play_the_same_games_with_structures_made_either_way(ruleset, monkeypatch):
    records = games_either_way(ruleset, monkeypatch, codegen, "WRITE_RECORDS")
    assert records[0] == records[1]
