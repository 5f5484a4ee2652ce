"""Parser: types and global / per-player state with visibility and bounds."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from test_parser_helpers import span

HEADER = 'game "State" {\n    players 2\n}\n'


def state(line: str) -> A.StateDecl:
    (decl,) = parse_text(HEADER + line + "\n").declarations
    assert isinstance(decl, A.StateDecl)
    return decl


def test_global_state_with_initial_value():
    s = state("global round_limit: int = 5")
    assert (s.scope, s.name, s.type.kind, s.type.name) == ("global", "round_limit", "named_type", "int")
    assert s.initial.value == 5
    assert s.visibility == "public"
    assert span(s) == (4, 1, 4, 28)
    assert span(s.type) == (4, 21, 4, 24)


def test_state_without_initial_value():
    s = state("player coins: int")
    assert s.initial is None


@pytest.mark.parametrize("word", ["public", "owner", "secret"])
def test_visibility(word: str):
    assert state(f"player hand: list of Card = [] {word}").visibility == word


def test_bounds_and_stacking():
    s = state("player reputation: int = 0 at least 0 at most max_rep stacked")
    assert s.at_least.value == 0
    assert isinstance(s.at_most, A.Name) and s.at_most.id == "max_rep"
    assert s.stacked is True


def test_options_after_visibility_and_meta_at_the_end():
    s = state('player bid: int? = none secret at least 0 assumed "no limit is printed"')
    assert (s.visibility, s.at_least.value, s.meta.assumed) == ("secret", 0, "no limit is printed")
    assert isinstance(s.initial, A.NoneLit)


def test_optional_type():
    t = state("global leader: player? = none").type
    assert isinstance(t, A.OptionalType) and t.name == "player"


def test_list_and_deck_types_nest():
    t = state("global piles: list of deck of Card = []").type
    assert isinstance(t, A.ListType)
    assert isinstance(t.element, A.DeckType)
    assert isinstance(t.element.element, A.NamedType) and t.element.element.name == "Card"


def test_grid_type_has_dimensions():
    s = state("global market: grid 3 by 5 of Card? = none")
    t = s.type
    assert isinstance(t, A.GridType)
    assert (t.rows.value, t.columns.value) == (3, 5)
    assert isinstance(t.element, A.OptionalType) and t.element.name == "Card"
    assert span(t) == (4, 16, 4, 36)


def test_grid_sizes_can_be_expressions_of_constants():
    t = state("global layout: grid frame_rows by frame_columns + 1 of Cell?").type
    assert isinstance(t.rows, A.Name) and t.rows.id == "frame_rows"
    assert isinstance(t.columns, A.Binary) and t.columns.op == "+"
    assert t.columns.left.id == "frame_columns" and t.columns.right.value == 1
    assert span(t.rows) == (4, 21, 4, 31)


def test_a_grid_size_that_is_a_comparison_does_not_parse():
    with pytest.raises(DiagnosticError) as info:
        state("global layout: grid a < b by 3 of int")
    (d,) = info.value.diagnostics
    assert (d.code, d.line, d.column) == ("E0100", 4, 23)


def test_player_state_initial_can_be_an_expression():
    s = state("player money: int = 10 + seat(me)")
    assert isinstance(s.initial, A.Binary)
    assert isinstance(s.initial.right, A.Call) and s.initial.right.func == "seat"


def test_a_hidden_list_may_show_its_top():
    s = state("global market_pile: deck of MarketTile = market_tiles secret top 1 public")
    assert (s.visibility, s.public_top) == ("secret", 1)
    assert state("global pile: deck of Tile secret").public_top is None
    with pytest.raises(DiagnosticError):
        state("global pile: deck of Tile secret top 1 owner")


def test_a_hidden_value_may_say_what_its_shape_shows():
    assert state("player submitted: Beer? = none secret shape public").shape == "public"
    s = state("player layout: grid 2 by 3 of Cell? owner shape secret")
    assert (s.visibility, s.shape) == ("owner", "secret")
    assert state("player hand: list of int owner").shape is None  # the default, by kind
    with pytest.raises(DiagnosticError) as e:
        state("player hand: list of int owner shape owner")
    assert e.value.diagnostics[0].code == "E0229"
