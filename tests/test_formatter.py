"""Formatter: the canonical form of each construct family, comment placement, line filling,
idempotence and round trip on every shipped ruleset."""
from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest
from ast_helpers import without_spans
from rulebook.grammar import ast as A
from rulebook.grammar.formatter import (
    WIDTH,
    format_expression,
    format_program,
    format_source,
)
from rulebook.grammar.parser import comments_of, parse_expression, parse_text
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parent.parent
RULES_FILES = sorted((ROOT / "rulesets").rglob("*.rules"))




def ast_of(text: str):
    return without_spans(parse_text(text).model_dump())


def comment_texts(text: str) -> Counter:
    return Counter(c.rstrip() for _, _, c in comments_of(text))


def check(text: str) -> str:
    """Format; assert the AST, every comment and a second formatting are unchanged."""
    out = format_source(text)
    assert ast_of(out) == ast_of(text)
    assert comment_texts(out) == comment_texts(text)
    assert format_source(out) == out
    return out


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def assert_canonical(text: str) -> None:
    text = src(text)
    assert check(text) == text


def assert_formats(messy: str, canonical: str) -> None:
    assert check(src(messy)) == src(canonical)


# ------------------------------------------------------------------------------ declarations
def test_header_and_simple_declarations_are_canonical():
    assert_canonical('''
        game "Demo" cite "Box" {
            players 2 to 4
            source "Rulebook v2"
        }

        enum Mark { x "X", o "O" }

        const size = 3 cite "The board"
        global board: grid 3 by 3 of Mark? = none
        player hand: list of Card secret cite "Hands"
    ''')


def test_header_spacing_and_single_player_count():
    assert_formats('''
        game   "Solo"{
        players 1 to 1
        }
    ''', '''
        game "Solo" {
            players 1
        }
    ''')


def test_variant_header_and_empty_body():
    assert_canonical('''
        variant "Short" extends "base.rules" {
        }
    ''')
    assert_canonical('''
        variant "Short" extends "base.rules" {
            players 3
        }
    ''')


def test_enum_written_over_lines_keeps_one_member_a_line():
    assert_formats('''
        enum Color {
          red "Red", blue,
          green,
        }
    ''', '''
        enum Color {
            red "Red",
            blue,
            green
        }
    ''')


def test_record_fields_go_one_a_line_without_commas():
    assert_formats('''
        record Card {
            name: text,
            cost: int,
            tags: list of Color?
        }
    ''', '''
        record Card {
            name: text
            cost: int
            tags: list of Color?
        }
    ''')
    assert_canonical("record Pos { row: int, column: int }\n")


def test_types_are_printed_as_written():
    assert_canonical('''
        record Zones {
            a: int
            b: Card?
            c: list of Card?
            d: deck of Card
            e: grid 2 by 3 of list of Card
            f: grid frame_rows by pad_columns * 2 + 1 of int
        }
    ''')


def test_grid_sizes_keep_only_the_parentheses_they_need():
    assert_formats("global g: grid (rows) by (if wide then 9 else 3) of int\n",
                   "global g: grid rows by (if wide then 9 else 3) of int\n")


def test_table_columns_are_aligned():
    assert_formats('''
        table cards of Card {
            name | cost | rare
            "Alpha" | 3 | false
            "Be" | 10 | none
        }
    ''', '''
        table cards of Card {
            name    | cost | rare
            "Alpha" | 3    | false
            "Be"    | 10   | none
        }
    ''')


def test_a_face_up_top_follows_the_visibility():
    assert_formats("global pile: deck of Tile = tiles top 1 public secret shown\n",
                   "global pile: deck of Tile = tiles secret top 1 public shown\n")


def test_a_shape_option_follows_the_visibility_and_the_face_up_top():
    assert_formats("player beer: Beer? = none shape public secret shown\n",
                   "player beer: Beer? = none secret shape public shown\n")
    assert_formats("global pile: deck of Tile shape public top 1 public secret\n",
                   "global pile: deck of Tile secret top 1 public shape public\n")
    assert_canonical("player layout: grid 2 by 3 of int? owner shape secret\n")


def test_state_options_come_in_a_fixed_order_and_public_is_implied():
    assert_formats('''
        player coins: int = 0 stacked at most 9 at least 0 public assumed "b" cite "a" cite "c"
    ''', '''
        player coins: int = 0 at least 0 at most 9 stacked cite "a" cite "c" assumed "b"
    ''')
    assert_canonical("global pot: int owner\n")
    assert_formats("global box: list of int internal   secret\n",
                   "global box: list of int secret internal\n")


def test_define_procedure_event_and_invariant():
    assert_canonical('''
        define free(r, c) = board[r, c] == none
        define none_left() = size(deck) == 0

        procedure deal(p, n) cite "Deal" {
            move top n from deck to p.hand
        }

        when scored(p) {
            log "{p} scored"
        }

        invariant positive "scores stay positive": all(p in players where p.score >= 0)
    ''')


def test_top_level_declarations_are_separated_by_a_blank_line_around_blocks():
    assert_formats('''
        const a = 1
        const b = 2
        setup {
            set x = a
        }
        const c = 3
    ''', '''
        const a = 1
        const b = 2

        setup {
            set x = a
        }

        const c = 3
    ''')


def test_extra_blank_lines_collapse_to_one():
    assert_formats('''
        const a = 1



        const b = 2
    ''', '''
        const a = 1

        const b = 2
    ''')


def test_top_level_items_keep_their_order_in_the_file():
    text = src('''
        scenario "first" {
            players 2
        }

        const a = 1

        override const b = 2
    ''')
    assert check(text) == text


# ------------------------------------------------------------------------------- expressions
@pytest.mark.parametrize("messy, canonical", [
    ("1+2*3", "1 + 2 * 3"),
    ("(1+2)*3", "(1 + 2) * 3"),
    ("a-(b-c)", "a - (b - c)"),
    ("(a-b)-c", "a - b - c"),
    ("a/(b*c)", "a / (b * c)"),
    ("-(a+b)", "-(a + b)"),
    ("- 5", "-5"),
    ("a - -5", "a - -5"),
    ("(-5).x", "(-5).x"),
    ("(a+b).x[1,2]", "(a + b).x[1, 2]"),
    ("not (a and b)", "not (a and b)"),
    ("not (a == b)", "not a == b"),
    ("(not a) and b", "not a and b"),
    ("a or (b and c)", "a or b and c"),
    ("(a or b) and c", "(a or b) and c"),
    ("a and (b and c)", "a and (b and c)"),
    ("(a == b) == c", "(a == b) == c"),
    ("a not in (b)", "a not in b"),
    ("x in (1..3)", "x in 1..3"),
    ("1..(n-1)", "1..(n - 1)"),
    ("(if a then b else c) + 1", "(if a then b else c) + 1"),
    ("if (if a then b else c) then d else e", "if (if a then b else c) then d else e"),
    ("if a then b else if c then d else e", "if a then b else if c then d else e"),
    ("if a then b or c else (d and e)", "if a then (b or c) else (d and e)"),
    ("if a then (if b then c else d) else e", "if a then (if b then c else d) else e"),
    ("if a or b then c else d", "if a or b then c else d"),
    ("f( a,b )", "f(a, b)"),
    ("max(a,b)", "max(a, b)"),
    ("[ ]", "[]"),
    ("[1,2 , 3]", "[1, 2, 3]"),
    ("[c.cost for c in cards where c.cost>1]", "[c.cost for c in cards where c.cost > 1]"),
    ("sum(c.v for c in cs)", "sum(c.v for c in cs)"),
    ("count(c in cs where c.v>1)", "count(c in cs where c.v > 1)"),
    ("sort(p in players by p.score descending,p.seat ascending,random)",
     "sort(p in players by p.score descending, p.seat ascending, random)"),
    ("match n {3:30,4:40,else:50}", "match n { 3: 30, 4: 40, else: 50 }"),
    ("new Pos{row:1,column:2}", "new Pos { row: 1, column: 2 }"),
    ("new Pos{}", "new Pos {}"),
    ('"say \\"hi\\"\\n"', '"say \\"hi\\"\\n"'),
    ('"{a+b} of {n}"', '"{a + b} of {n}"'),
    ('"\\{literal\\}"', '"\\{literal\\}"'),
    ('"tab\\there"', '"tab\\there"'),
    ('"caf\\u{e9}"', '"café"'),
])
def test_expressions_print_with_minimal_parentheses(messy, canonical):
    expr = parse_expression(messy)
    printed = format_expression(expr)
    assert printed == canonical
    assert without_spans(parse_expression(printed).model_dump()) == without_spans(expr.model_dump())


def test_text_that_is_not_a_template_keeps_its_braces_unescaped():
    assert_canonical('const t = 1 cite "Box {a}" assumed "back\\\\slash"\n')


def test_a_match_broken_after_its_brace_keeps_one_case_a_line():
    assert_formats('''
        const bonus = match n {
          1: 1, 2: 3, else: 0 } cite "Scoring"
    ''', '''
        const bonus = match n {
            1: 1,
            2: 3,
            else: 0
        } cite "Scoring"
    ''')


def test_a_list_written_over_lines_keeps_one_item_a_line():
    assert_formats('''
        const prices = [1,
            2]
    ''', '''
        const prices = [1, 2]
    ''')
    assert_canonical('''
        const prices = [
            1,
            2,
            f(3)
        ]
    ''')


# -------------------------------------------------------------------------------- statements
def test_statements_are_canonical():
    assert_canonical('''
        setup {
            let x = 1
            set p.score = x + 1
            increase p.score by 2
            decrease p.score by 1
            move c from deck to p.hand
            move c from deck to p.hand at top
            move top 3 from deck to p.hand at bottom
            move all from discard to deck
            move (top(deck)) from deck to p.hand
            add c to p.hand at top
            remove c from p.hand
            shuffle deck
            log "{p} draws"
            log "you drew {c.name}" to p
            reveal p.hand to players[2]
            hide p.hand
            trigger scored(p, 1)
            do deal(p, 3)
            require size(deck) > 0 "the deck is empty"
            stop
            pass
            end game
        }
    ''')


def test_statement_spacing_is_normalized():
    assert_formats('''
        setup {
          set   x=1
              increase x by(2)
        }
    ''', '''
        setup {
            set x = 1
            increase x by 2
        }
    ''')


def test_if_else_chain_and_loops():
    assert_formats('''
        setup {
            if x > 1 cite "Rule" { set y = 1 } else if x < 0   cite "Other rule" {
              set y = 2
            } else {
            }
            for p in players where p.score > 0 { pass }
            repeat 3 times {
                stop
            }
            while x < 3 {
                increase x by 1
            }
        }
    ''', '''
        setup {
            if x > 1 cite "Rule" {
                set y = 1
            } else if x < 0 cite "Other rule" {
                set y = 2
            } else {
            }
            for p in players where p.score > 0 {
                pass
            }
            repeat 3 times {
                stop
            }
            while x < 3 {
                increase x by 1
            }
        }
    ''')


def test_blank_lines_between_statements_are_kept_but_not_at_block_edges():
    assert_formats('''
        setup {

            set x = 1


            set y = 2

        }
    ''', '''
        setup {
            set x = 1

            set y = 2
        }
    ''')


# --------------------------------------------------------------------------------- decisions
def test_choose_with_options_and_otherwise():
    assert_canonical('''
        play {
            choose p "Pick a card" optional cite "Turn" {
                option take for c in market, n in 1..3 where c.cost <= p.coins label "take {c.name}" {
                    move c from market to p.hand
                }
                option wait {
                }
                otherwise {
                    log "nothing to do"
                }
            }
        }
    ''')


def test_a_long_option_header_breaks_before_where_and_label():
    text = src('''
        play {
            choose p {
                option take_from_the_market for card in market, n in 1..maximum_take where card.cost <= p.coins and n <= p.space label "take {n} of {card.name}" {
                    pass
                }
            }
        }
    ''')
    formatted = check(text)
    assert max(len(line) for line in formatted.splitlines()) <= WIDTH
    assert src('''
        play {
            choose p {
                option take_from_the_market for card in market, n in 1..maximum_take \\
                    where card.cost <= p.coins and n <= p.space label "take {n} of {card.name}" {
                    pass
                }
            }
        }
    ''') == formatted
    assert check(formatted) == formatted


# -------------------------------------------------------------------------------------- flow
def test_flow_constructs():
    assert_canonical('''
        play cite "Play" {
            rounds until game_over {
                phase buy when round > 1 cite "Buy" {
                    simultaneously for p in players cite "Secret" {
                        pass
                    }
                    turns p in order until all passed cite "Turns" {
                        pass
                    }
                }
                step cleanup cite "Clean" {
                    turn players[1] {
                        end game
                    }
                }
                rounds 3 {
                    pass
                }
                rounds {
                    stop
                }
            }
        }
    ''')


# ------------------------------------------------------------------------------------ awards
def test_award_winner_and_scoring():
    assert_canonical('''
        scoring cite "End" {
            award [10, 5] among p in players where p.score > 0 by p.score descending, random ties share {
                increase p.points by amount
            }
        }

        winner p in players by p.points descending, p.coins cite "Winning"
    ''')


def test_a_long_award_header_breaks_before_by():
    assert_formats('''
        scoring {
            award contribution_points[s] among p in scoring_order() where cards_in_stage(p, s) > 0 by cards_in_stage(p, s) descending ties share {
                pass
            }
        }
    ''', '''
        scoring {
            award contribution_points[s] among p in scoring_order() where cards_in_stage(p, s) > 0 \\
                by cards_in_stage(p, s) descending ties share {
                pass
            }
        }
    ''')


# --------------------------------------------------------------- reactions, modifiers, automata
def test_reactions_modifiers_and_automata():
    assert_canonical('''
        reaction bust for p in players, q in players as soon as p.score > 10 cite "Bust" {
            set p.score = 0
        }

        modifier cheap: price(c) -= 1 when c.cost > 3 cite "Discount"
        modifier fixed: price(c) := 2

        automaton steve cite "Steve" {
            prefer buy by c.cost descending, random
            prefer wait
        }
    ''')


# --------------------------------------------------------- variants, overrides, step patches
def test_a_scoped_prefer_line_is_canonical():
    assert_canonical('''
        automaton Steve {
            prefer place_marker in research_turn by studying(p, t) descending, t
            prefer done in logistics_turn
        }
    ''')


def test_overrides_and_step_patches():
    assert_canonical('''
        variant "Quick" extends "base.rules" {
            players 2
        }

        override const rounds_total = 5 cite "Variant"

        override setup {
            pass
        }

        before step cleanup {
            log "before"
        }

        after step cleanup cite "Variant" {
            log "after"
        }

        override step cleanup {
            pass
        }

        override step cleanup when is_automaton(p) cite "Automaton" {
            pass
        }

        after step cleanup when p.ready and not p.done {
            pass
        }
    ''')


# --------------------------------------------------------------------------------- scenarios
def test_scenarios():
    assert_canonical('''
        scenario "a row of three wins" cite "Play" {
            ruleset "game.rules"
            players 2
            seed 7
            given {
                set players[1].score = 0
            }
            choose players[1] "place:1:1"
            refuse players[1] "place:1:1"
            expect players[1].won "the row is complete"
            expect (no == 1)
            expect option players[2] "place:2:2"
            expect no option players[2] "place:1:1"
            expect log "X completes a line"
            expect error "no such option"
            expect hidden players[1].hand to players[2]
            expect visible players[1].score to players[2]
            expect hidden shape players[1].plan to players[2]
            expect visible shape players[1].submitted to players[2] "that a beer is there"
            expect visible (shape) to players[2]
            expect (hidden == 1)
            play to end with random
        }
    ''')


# ----------------------------------------------------------------------------- long lines
def test_a_long_chain_breaks_before_its_operators_filling_each_line():
    assert_formats('''
        define line(m) = any(r in 1..size where all(c in 1..size where board[r, c] == m)) or any(c in 1..size where all(r in 1..size where board[r, c] == m)) or all(i in 1..size where board[i, i] == m) or all(i in 1..size where board[i, size + 1 - i] == m)
    ''', '''
        define line(m) = any(r in 1..size where all(c in 1..size where board[r, c] == m)) \\
            or any(c in 1..size where all(r in 1..size where board[r, c] == m)) \\
            or all(i in 1..size where board[i, i] == m) \\
            or all(i in 1..size where board[i, size + 1 - i] == m)
    ''')


def test_citations_go_on_a_continuation_line_when_they_do_not_fit():
    assert_formats('''
        const advantage_per_space = match player_count { 3: 1, 4: 1, else: 2 } cite "Setup 5" cite "(7) Clean-up Phase"
    ''', '''
        const advantage_per_space = match player_count { 3: 1, 4: 1, else: 2 } cite "Setup 5" \\
            cite "(7) Clean-up Phase"
    ''')


def test_a_chain_inside_an_operand_continues_one_indent_deeper():
    out = check(src('''
        define affordable(p) = p.on_hand >= 1 and p.pr + steps(p) <= most and (p.caps - occupied(pr_space)) / step_price + (p.on_hand - 1) + p.tokens + (if spare >= 1 then 1 else 0) >= steps(p) cite "Public Relations"
    '''))
    assert out == src('''
        define affordable(p) = p.on_hand >= 1 and p.pr + steps(p) <= most \\
            and (p.caps - occupied(pr_space)) / step_price + (p.on_hand - 1) + p.tokens \\
                + (if spare >= 1 then 1 else 0) >= steps(p) cite "Public Relations"
    ''')
    assert all(len(line) <= WIDTH for line in out.splitlines())


def test_a_long_expect_puts_its_message_on_the_next_line():
    assert_formats('''
        scenario "s" {
            expect advantage_on_shares == 1 and advantage_on_pr == 1 and advantage_on_stadium == 1 "one token per space"
        }
    ''', '''
        scenario "s" {
            expect advantage_on_shares == 1 and advantage_on_pr == 1 and advantage_on_stadium == 1 \\
                "one token per space"
        }
    ''')


def test_a_hand_broken_line_that_fits_is_joined():
    assert_formats('''
        define small(p) = p.a > 1 \\
            and p.b > 2
    ''', '''
        define small(p) = p.a > 1 and p.b > 2
    ''')


# ---------------------------------------------------------------------------------- comments
def test_comments_before_declarations_statements_and_members_stay_there():
    assert_canonical('''
        # The title comment.
        game "G" {  # the header
            # before players
            players 2
        }

        # Colors of the pieces.
        enum Color {
            red,  # warm
            # before blue
            blue
        }

        record Card {
            # before name
            name: text
            cost: int   # what it costs
            rank: int?  # how good it is
        }

        table cards of Card {
            # the columns
            name | cost
            # the first row
            "A"  | 1  # cheap
        }

        setup {
            # before the let
            let x = 1   # one
            if x > 0 {  # positive
                pass
                # at the end of the if body
            } else {
                # at the start of the else body
                pass
            }
            choose p {
                # before the option
                option a {
                }
                # before otherwise
                otherwise {
                    pass
                }
                # before the end of choose
            }
            # before the closing brace
        }

        automaton bot {
            # first choice
            prefer a
        }

        scenario "s" {
            # before players
            players 2  # two
        }
        # at the end of the file
    ''')


def test_comments_at_line_ends_are_aligned_in_consecutive_lines():
    assert_formats('''
        setup {
            let x = 1   # one
            let longer_name = 2      # two
            let y = 3
            let z = 4 # four
        }
    ''', '''
        setup {
            let x = 1            # one
            let longer_name = 2  # two
            let y = 3
            let z = 4  # four
        }
    ''')


def test_comments_inside_an_expression_that_is_joined_go_before_its_statement():
    assert_formats('''
        setup {
            let xs = f(1,   # first
                # the second
                2)
        }
    ''', '''
        setup {
            # the second
            let xs = f(1, 2)  # first
        }
    ''')


def test_several_comments_ending_lines_of_a_joined_statement_are_all_kept():
    out = check(src('''
        setup {
            let xs = f(1,   # first
                2,          # second
                3)          # third
        }
    '''))
    assert out == src('''
        setup {
            # first
            # second
            let xs = f(1, 2, 3)  # third
        }
    ''')


def test_a_comment_inside_a_multi_line_match_stays_at_its_case():
    assert_canonical('''
        const bonus = match n {
            # small
            1: 1,  # one
            2: 3,
            else: 0
            # end of cases
        }
    ''')


def test_a_comment_on_a_line_continued_with_a_backslash_moves_to_its_end():
    out = check(src('''
        define line(m) = (any(r in 1..size where all(c in 1..size where board[r, c] == m))  # rows
            or any(c in 1..size where all(r in 1..size where board[r, c] == m)))  # columns
    '''))
    assert out == src('''
        # rows
        define line(m) = any(r in 1..size where all(c in 1..size where board[r, c] == m)) \\
            or any(c in 1..size where all(r in 1..size where board[r, c] == m))  # columns
    ''')


def test_a_file_of_only_comments_and_an_empty_file():
    assert check("# just a note\n\n# another\n") == "# just a note\n\n# another\n"
    assert check("") == ""
    assert check("\n\n") == ""


def test_format_program_without_source_places_comments_by_spans():
    text = src('''
        # Title.
        const a = 1  # one

        setup {
            # first
            set x = a
        }
        # end
    ''')
    program = parse_text(text)
    assert format_program(program, comments_of(text)) == text
    assert format_program(program, comments_of(text), source=text) == text


def test_format_program_of_a_program_built_without_spans():
    program = A.Program(kind="program", declarations=[
        A.ConstDecl(kind="const", name="a", value=A.IntLit(kind="int", value=1)),
        A.ConstDecl(kind="const", name="b", value=A.Binary(
            kind="binary", op="*", left=A.Binary(kind="binary", op="+",
                                                 left=A.Name(kind="name", id="a"),
                                                 right=A.IntLit(kind="int", value=2)),
            right=A.IntLit(kind="int", value=3))),
    ])
    assert format_program(program) == "const a = 1\n\nconst b = (a + 2) * 3\n"


def test_a_syntax_error_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as caught:
        format_source("const = 3\n", "bad.rules")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.file == "bad.rules"
    assert diagnostic.line == 1


# ------------------------------------------------------------------------- shipped rulesets
def test_there_are_shipped_rulesets_to_check():
    assert any(path.name == "tictactoe.rules" for path in RULES_FILES)


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_ruleset_round_trips_and_formats_idempotently(path: Path):
    check(path.read_text(encoding="utf-8"))


def test_the_example_game_is_in_canonical_form():
    path = ROOT / "rulesets" / "examples" / "tictactoe.rules"
    text = path.read_text(encoding="utf-8")
    assert format_source(text, str(path)) == text


def test_map_types_and_literals_round_trip():
    assert_canonical('''
        enum Space { shares, pr }

        global tokens: map of Space to list of int = map { shares: [1], pr: [] }
    ''')


def test_long_lines_are_broken_within_the_width_and_wrapped_ones_are_not_joined():
    text = src('''player busted: bool
player bid: int
player reputation: int
play {
    let order = sort(p in filter(q in players where q.busted) by p.bid,
        p.reputation descending, seat(p), random)
    let best = max(players[1].bid, players[2].bid, players[1].reputation, players[2].reputation)
    let n = sum(count(c in players where c.bid > 0 and c.reputation > 0 and c.busted) for r in 1..3)
}
''')
    out = check(text)
    assert all(len(line) <= 100 for line in out.splitlines())
    assert "    let order = sort(p in filter(q in players where q.busted) \\\n" in out


def test_a_move_without_from_stays_without():
    assert_formats('''
        setup {
            move   c to   hand at top
        }
    ''', '''
        setup {
            move c to hand at top
        }
    ''')


@pytest.mark.parametrize("source", [
    "define a(x) = (match x { 1: 2, else: 3 }) + 1",
    "define b(x) = 1 + (if x > 1 then 2 else 3)",
    "define c(xs) = sort(v in xs by v ascending, v descending, random)",
])
def test_parentheses_a_reader_needs_and_a_written_ascending_are_kept(source):
    assert_canonical(source + "\n")


def test_a_turn_order_computed_by_a_conditional_keeps_its_parentheses():
    assert_formats('''
        play {
            turns p from players[1] then if took then p else next(p) until done {
                pass
            }
        }
    ''', '''
        play {
            turns p from players[1] then (if took then p else next(p)) until done {
                pass
            }
        }
    ''')


def test_the_sole_best_element_is_canonical_and_breaks_before_by():
    assert_canonical("define leader(s) = sole_max(q in players where shares_of(q, s) > 0 by shares_of(q, s))\n")
    long = ("define market_leader(space) = sole_max(candidate in players where shares_on(candidate, space) > 0 "
            "by shares_on(candidate, space), seat(candidate))\n")
    out = check(long)
    assert out.splitlines()[1].lstrip().startswith("by shares_on(candidate, space)")
