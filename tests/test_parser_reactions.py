"""Parser: reactions, event handlers, lasting modifiers and automaton players."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from test_parser_helpers import span

HEADER = 'game "Reactions" {\n    players 2\n}\n'


def decls(text: str) -> list:
    return parse_text(HEADER + text).declarations


def test_reaction_as_soon_as():
    (reaction,) = decls('reaction first_to_ten for p in players as soon as p.score >= 10 cite "Goal" {\n'
                        "    end game\n"
                        "}\n")
    assert isinstance(reaction, A.ReactionDecl)
    assert reaction.name == "first_to_ten"
    assert [b.name for b in reaction.bindings] == ["p"]
    assert reaction.condition.op == ">="
    assert reaction.meta.cite == ["Goal"]
    assert isinstance(reaction.body[0], A.EndGame)
    assert span(reaction) == (4, 1, 6, 2)


def test_reaction_with_two_bindings():
    (reaction,) = decls("reaction meet for p in players, q in players as soon as p.pos == q.pos { pass }\n")
    assert [b.name for b in reaction.bindings] == ["p", "q"]


def test_event_handler_whenever():
    (event,) = decls("when sold(p, n) {\n    increase p.money by n\n}\n")
    assert isinstance(event, A.EventDecl)
    assert (event.name, event.params) == ("sold", ["p", "n"])


@pytest.mark.parametrize("op", ["+=", "-=", "*=", ":="])
def test_modifier_operators(op: str):
    (_, modifier) = decls(f"define price(p, c) = c.cost\nmodifier discount: price(p, c) {op} 1 when p.has_patent\n")
    assert isinstance(modifier, A.ModifierDecl)
    assert (modifier.name, modifier.target, modifier.params, modifier.op) == (
        "discount", "price", ["p", "c"], op)
    assert modifier.value.value == 1
    assert isinstance(modifier.when, A.FieldAccess)


def test_modifier_without_condition():
    (_, modifier) = decls("define limit(p) = 3\nmodifier bigger: limit(p) += 1\n")
    assert modifier.when is None


def test_automaton_policies():
    (bot,) = decls('automaton steve cite "Solo mode" {\n'
                   "    prefer expand by size(region.neighbours) descending, random\n"
                   "    prefer produce\n"
                   "}\n")
    assert isinstance(bot, A.AutomatonDecl)
    assert bot.name == "steve" and bot.meta.cite == ["Solo mode"]
    expand, produce = bot.policies
    assert expand.option == "expand" and len(expand.keys) == 2
    assert isinstance(expand.keys[1], A.RandomKey)
    assert produce.keys == []
    assert span(expand) == (5, 5, 5, 64)


def test_automaton_policies_scoped_to_where_a_decision_is_written():
    (bot,) = decls("automaton steve {\n"
                   "    prefer place_marker in research_turn by t\n"
                   "    prefer done in logistics\n"
                   "    prefer produce\n"
                   "}\n")
    scoped, bare, everywhere = bot.policies
    assert (scoped.option, scoped.within, len(scoped.keys)) == ("place_marker", "research_turn", 1)
    assert (bare.within, bare.keys) == ("logistics", [])
    assert everywhere.within is None
