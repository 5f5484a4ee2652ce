"""What a person sees at the terminal: components as their record says, no bookkeeping, lists
in order, alike options once, a heading that is true, a grid that fits."""
from __future__ import annotations

from click.testing import CliRunner

from engine_helpers import game_of, header
from rulebook.cli import main
from rulebook.interpreter.human import option_lines, render_view
from rulebook.interpreter.view import view

TABLE = header("2") + """
record Card show "{name} (cost {cost})" {
    name: text
    cost: int
}
table cards of Card {
    name    | cost | count
    "Apple" | 1    | 2
    "Pear"  | 3    | 1
    "Fig"   | 2    | 1
}
global deck: list of Card = cards secret
global box: list of Card
global scratch: int
global score_line: int shown
player hand: list of Card sorted owner
player points: int
setup {
    shuffle deck
    move top 4 from deck to players[1].hand
}
play {
    choose players[1] "Play a card" {
        option play for c in players[1].hand { move c from players[1].hand to box }
    }
}
"""


def rendered(text: str = TABLE, seat=1) -> str:
    return render_view(view(game_of(text, 2, seed=3), seat))


def test_components_read_as_their_record_says_and_a_sorted_hand_is_in_order():
    out = rendered()
    assert "hand [Apple (cost 1); Apple (cost 1); Fig (cost 2); Pear (cost 3)]" in out


def test_bookkeeping_is_left_out_unless_marked_shown():
    out = rendered()
    assert "box" not in out and "scratch" not in out and "points" not in out
    assert "score_line: 0" in out  # marked `shown`: listed even at zero
    assert "deck: (hidden, 0)" not in out  # an empty hidden zone says nothing


def test_a_spectator_is_told_so_and_the_final_screen_has_no_phase():
    g = game_of(TABLE, 2, seed=3)
    assert "- watching ==" in render_view(view(g, None))
    g.apply(g.legal_options()[0][0])
    assert g.over
    heading = render_view(view(g, 1)).splitlines()[0]
    assert "game over" in heading and "phase" not in heading


def test_alike_options_are_listed_once_with_their_number():
    g = game_of(TABLE, 2, seed=3)
    lines = option_lines(g.legal_options())
    assert sorted(line[7:] for line in lines) == [
        "play Apple (cost 1) (x2)", "play Fig (cost 2)", "play Pear (cost 3)"]
    distinct = option_lines([("take:1", "take gin"), ("take:2", "take gin")])
    assert len(distinct) == 2  # the same words for two different options are not merged


def test_a_grid_too_wide_for_a_row_is_listed_a_cell_a_line():
    text = header("1") + """
global board: grid 2 by 3 of text = "a rather long label for a cell of the board"
play {
    choose players[1] "Go" { option go { } option stay { } }
}
"""
    out = render_view(view(game_of(text, 1), 1))
    assert "row 2, column 3: a rather long label" in out


def test_the_heading_counts_turns_when_there_are_no_rounds():
    text = header("2") + """
global left: int = 3
play {
    turns p from players[1] then next(p) until left == 0 {
        choose p "Take one" { option take { decrease left by 1 } option wait { decrease left by 1 } }
    }
}
"""
    g = game_of(text, 2)
    g.apply("take", 1)
    assert render_view(view(g, 2)).splitlines()[0].startswith("== Test - turn 2")
    result = CliRunner().invoke(main, ["simulate", "examples/tictactoe", "--games", "2"])
    assert "rounds per game" in result.output or "turns per game" in result.output


def test_a_ragged_list_of_lists_and_sorted_numbers_read_well():
    text = header("1") + """
global rows: list of list of int = [[1, 2, 13], [4], []]
player taken: list of int = [35, 4, 12] sorted
play {
    choose players[1] "Go" { option go { } option stay { } }
}
"""
    out = render_view(view(game_of(text, 1), 1))
    assert "row 1: 1 | 2 | 13\n      row 2: 4\n      row 3: -" in out
    assert "taken [4; 12; 35]" in out  # numbers in the order of their values, not as text


def test_copies_of_a_named_row_read_alike_and_are_listed_once():
    text = header("1") + """
record Coin {
    value: int
}
table coins of Coin {
    id   | value | count
    gold | 5     | 2
    iron | 1     | 1
}
global purse: list of Coin = coins
play {
    choose players[1] "Take a coin" {
        option take for c in purse { move c from purse to players[1].taken }
    }
}
player taken: list of Coin
"""
    g = game_of(text, 1)
    assert [line[7:] for line in option_lines(g.legal_options())] == [
        "take gold (x2)", "take iron"]
    assert "purse: [gold [value 5]; gold [value 5]; iron [value 1]]" in render_view(view(g, 1))


def test_internal_state_is_never_listed_and_cannot_also_be_shown():
    text = TABLE.replace("global box: list of Card", "global box: list of Card internal")
    g = game_of(text, 2, seed=3)
    g.apply(g.legal_options()[0][0])
    assert len(g.state.globals["box"]) == 1
    out = render_view(view(g, 1))
    assert "box" not in out and "hand [" in out  # holds a card, yet bookkeeping
    assert view(g, 1)["globals"]["box"] != []  # the data view still has it
    from rulebook.grammar.parser import parse_text
    from rulebook.validator.semantic import check_program
    both = TABLE.replace("global scratch: int", "global scratch: int shown internal")
    assert [d.code for d in check_program(parse_text(both, "t")) if d.is_error] == ["E0210"]


def test_a_grid_with_nothing_in_it_is_left_out_until_something_is_placed():
    g = game_of(header() + """
global bed: grid 1 by 2 of int?
global marks: grid 1 by 2 of int? shown
play {
    choose players[1] "Plant" {
        option plant {
            set bed[1, 2] = 7
        }
    }
}
""")
    before = render_view(view(g, 1))
    assert "bed" not in before
    assert "marks" in before  # marked `shown`: listed even empty
    g.apply("plant", 1)
    assert "row 1: - | 7" in render_view(view(g, 1))
