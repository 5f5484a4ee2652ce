"""The names of a ruleset are Python's interned texts once its rules are compiled, whether its
tree was just parsed or read back from the cache: the state's dicts are keyed by them and the
generated code finds them by identity (`ast.intern_names`)."""
import pickle
import sys

from engine_helpers import header
from rulebook.grammar.parser import parse_text
from rulebook.interpreter.game import Game
from rulebook.interpreter.rules import compile_rules

TEXT = header() + """record Bag { weight: int }
table bags of Bag {
    id | weight
    a  | 1
}
global total_weight: int = 0
player carried_bags: list of Bag = []
play {
    for p in players {
        let heavy_one = bags.a
        add heavy_one to p.carried_bags
        increase total_weight by heavy_one.weight
    }
}
"""


def _keys(game) -> list[str]:
    st = game.state
    item = game.rules.items_by_id["bags.a"]
    return [*st.globals, *(k for s in st.seats for k in s.vars), *item.fields]


def test_the_names_the_state_is_keyed_by_are_interned_parsed_or_read_back():
    parsed = parse_text(TEXT, "t.rules")
    for program in (parsed, pickle.loads(pickle.dumps(parse_text(TEXT, "t.rules")))):
        game = Game(compile_rules(program), 2, 0)
        keys = _keys(game)
        assert {"total_weight", "carried_bags", "weight"} <= set(keys)
        assert all(sys.intern(k) is k for k in keys)
        assert game.state.globals["total_weight"] == 2
