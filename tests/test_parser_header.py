"""Parser: the game header and variant headers."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from test_parser_helpers import span


def test_game_header_with_player_range_and_source():
    program = parse_text('game "Market Day" cite "Overview" {\n'
                         '    players 3 to 5\n'
                         '    source "Rulebook, 2nd edition"\n'
                         '}\n')
    header = program.header
    assert isinstance(header, A.GameHeader)
    assert (header.title, header.min_players, header.max_players) == ("Market Day", 3, 5)
    assert header.source == "Rulebook, 2nd edition"
    assert header.meta.cite == ["Overview"]
    assert span(header) == (1, 1, 4, 2)
    assert program.declarations == [] and program.scenarios == []


def test_single_player_count_means_exactly_that_many():
    header = parse_text('game "Duel" {\n    players 2\n}\n').header
    assert (header.min_players, header.max_players) == (2, 2)


def test_header_fields_in_any_order_and_blank_lines_around():
    program = parse_text('\n\n# intro\ngame "G" {\n    source "S"\n    players 1 to 4\n}\n\n')
    assert (program.header.min_players, program.header.max_players) == (1, 4)
    assert program.header.source == "S"
    assert span(program.header)[0] == 4


def test_variant_header_extends_a_file():
    program = parse_text('variant "Two players" extends "game.rules" cite "Variants" {\n'
                         '    players 2\n'
                         '}\n')
    header = program.header
    assert isinstance(header, A.VariantHeader)
    assert (header.title, header.extends) == ("Two players", "game.rules")
    assert (header.min_players, header.max_players) == (2, 2)
    assert header.meta.cite == ["Variants"]


def test_variant_may_keep_the_player_count_of_its_game():
    header = parse_text('variant "Short" extends "game.rules" {\n}\n').header
    assert header.min_players is None and header.max_players is None


def test_variant_overrides_and_step_patches():
    program = parse_text(
        'variant "Short" extends "game.rules" {\n}\n'
        "override const rounds_total = 3\n"
        "before step income {\n    pass\n}\n"
        "after step income {\n    pass\n}\n"
        'override step income cite "Variant rules" {\n    pass\n}\n')
    override, before, after, replace = program.overrides
    assert isinstance(override, A.Override)
    assert isinstance(override.declaration, A.ConstDecl)
    assert override.declaration.name == "rounds_total"
    assert span(override) == (3, 1, 3, 32)
    assert [(p.mode, p.step) for p in (before, after, replace)] == [
        ("before", "income"), ("after", "income"), ("override", "income")]
    assert replace.meta.cite == ["Variant rules"]
    assert isinstance(before.body[0], A.Pass)


def test_step_patches_may_be_guarded_by_a_condition():
    program = parse_text(
        'variant "Automaton" extends "game.rules" {\n}\n'
        'override step income when is_automaton(p) cite "Automaton" {\n    pass\n}\n'
        "after step income when p.coins > 2 {\n    pass\n}\n")
    replace, after = program.overrides
    assert (replace.mode, replace.step, replace.when.func) == ("override", "income", "is_automaton")
    assert replace.meta.cite == ["Automaton"]
    assert after.when.op == ">" and span(after.when) == (6, 24, 6, 35)
    assert parse_text('variant "V" extends "g.rules" {\n}\nbefore step x {\n    pass\n}\n'
                      ).overrides[0].when is None


def test_a_file_without_header_parses_as_declarations_only():
    program = parse_text("const a = 1\n")
    assert program.header is None
    assert [d.kind for d in program.declarations] == ["const"]


def test_empty_file_is_an_empty_program():
    program = parse_text("")
    assert program.header is None and program.declarations == []


@pytest.mark.parametrize("text, code", [
    ('game "G" {\n    source "S"\n}\n', "E0111"),
    ('game "G" {\n    players\n}\n', "E0100"),
    ('game G {\n    players 2\n}\n', "E0100"),
])
def test_bad_headers(text: str, code: str):
    with pytest.raises(DiagnosticError) as info:
        parse_text(text)
    assert [d.code for d in info.value.diagnostics] == [code]
    assert info.value.diagnostics[0].line is not None
