"""Parser: decisions (`choose` with options, `where`, labels, optional, otherwise)."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from test_parser_helpers import span

HEADER = 'game "Decisions" {\n    players 2\n}\n'


def choose(*lines: str) -> A.Choose:
    text = HEADER + "play {\n" + "".join(f"    {line}\n" for line in lines) + "}\n"
    (play,) = parse_text(text).declarations
    (stmt,) = play.body
    assert isinstance(stmt, A.Choose)
    return stmt


def test_choose_with_prompt_and_options():
    c = choose('choose p "Take a card or pass" {',
               '    option take for c in market where c.cost <= p.coins label "take {c}" {',
               "        move c from market to p.hand",
               "    }",
               "    option pass_turn { pass }",
               "}")
    assert isinstance(c.player, A.Name) and c.player.id == "p"
    assert c.prompt.parts[0].text == "Take a card or pass"
    assert c.optional is False and c.otherwise is None
    take, pass_turn = c.options
    assert take.name == "take"
    assert [b.name for b in take.bindings] == ["c"]
    assert isinstance(take.where, A.Binary) and take.where.op == "<="
    assert [p.kind for p in take.label.parts] == ["text_part", "expr_part"]
    assert isinstance(take.body[0], A.Move)
    assert pass_turn.bindings == [] and pass_turn.label is None
    assert span(c) == (5, 5, 10, 6)
    assert span(take) == (6, 9, 8, 10)


def test_option_with_several_bindings():
    c = choose("choose p {", "    option place for r in 1..3, col in 1..5 where free(r, col) { pass }", "}")
    assert [b.name for b in c.options[0].bindings] == ["r", "col"]


def test_optional_choice_and_otherwise():
    c = choose('choose p "Buy?" optional cite "Shop" {', "    option buy { pass }",
               "    otherwise { stop }", "}")
    assert c.optional is True
    assert c.meta.cite == ["Shop"]
    assert isinstance(c.otherwise[0], A.Stop)


def test_choose_without_prompt():
    c = choose("choose players[1] {", "    option go { pass }", "}")
    assert c.prompt is None
    assert isinstance(c.player, A.Index)


def test_large_choice_as_a_loop_of_small_ones():
    text = HEADER + ("play {\n    while true {\n        choose p {\n"
                     "            option add for c in pool { pass }\n"
                     "            option done { stop }\n        }\n    }\n}\n")
    (play,) = parse_text(text).declarations
    loop = play.body[0]
    assert isinstance(loop, A.While)
    assert [o.name for o in loop.body[0].options] == ["add", "done"]


def test_option_needs_a_block():
    with pytest.raises(DiagnosticError) as info:
        choose("choose p {", "    option go", "}")
    assert info.value.diagnostics[0].code == "E0107"
    assert info.value.diagnostics[0].line == 6
