"""The language server's parts, in process: parsing piece by piece, the name index, the answers."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rulebook.grammar.parser import parse_text
from rulebook.lsp import features as F
from rulebook.lsp.chunks import PieceParser, pieces
from rulebook.lsp.documents import Documents, check_document
from rulebook.lsp.index import Index
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]
SMALL_FILES = ["rulesets/examples/tictactoe.rules", "rulesets/examples/no_thanks.rules",
               "rulesets/liqueur/two_players.rules", "rulesets/liqueur/tests/two_players.rules"]

GAME = """\
game "Shop" {
    players 2
}

enum Colour { red "Red", blue "Blue" }

record Item show "{name}" {
    name: text
    colour: Colour
    price: int
}

# What the shop sells.
table items of Item {
    id     | name     | colour | price
    "hat"  | "A hat"  | "red"  | 3
    "coat" | "A coat" | "blue" | 8
}

player money: int = 10

define cost(n) = n + items.hat.price

procedure pay(p, n) {
    let owed = cost(n)
    decrease p.money by owed
}

play {
    rounds {
        for p in players {
            do pay(p, 1)
        }
        if round == 2 {
            end game
        }
    }
}

winner p in players by p.money descending
"""


def at(text: str, needle: str, nth: int = 0, inside: int = 1) -> tuple[int, int]:
    """0-based (line, column) of the `nth` occurrence of `needle`, `inside` characters in."""
    where = -1
    for _ in range(nth + 1):
        where = text.index(needle, where + 1)
    line = text.count("\n", 0, where)
    return line, where - (text.rfind("\n", 0, where) + 1) + inside


def index_of(text: str, path: str = "shop.rules") -> Index:
    index = Index()
    index.add_file(path, text, parse_text(text, path))
    return index.build()


# ------------------------------------------------------------------------------ pieces
@pytest.mark.parametrize("name", SMALL_FILES)
def test_a_file_parsed_piece_by_piece_is_the_file_parsed_whole(name):
    text = (ROOT / name).read_text()
    assert PieceParser().parse(text, name).model_dump() == parse_text(text, name).model_dump()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(GAME.split("\n") + ["", "  # note", "x \\", "}", "{ (", '"{"']),
                max_size=30))
def test_pieces_cover_the_text_in_order(lines):
    text = "\n".join(lines)
    cut = pieces(text)
    assert "".join(piece for _, piece in cut) == text + "\n"
    firsts = [first for first, _ in cut]
    assert firsts[0] == 0 and firsts == sorted(set(firsts))
    for first, piece in cut:
        assert piece == "\n".join(text.split("\n")[first:first + piece.count("\n")]) + "\n"


def test_an_edit_parses_only_the_piece_it_touched():
    parser = PieceParser()
    before = parser.parse(GAME, "shop.rules")
    after = parser.parse(GAME.replace("money: int = 10", "money: int = 12"), "shop.rules")
    same = [a is b for a, b in zip(before.declarations, after.declarations)]
    changed = [d.kind for d, s in zip(after.declarations, same) if not s]
    assert changed == ["state"]
    assert next(d for d in after.declarations if d.kind == "state").initial.value == 12


def test_a_broken_piece_reports_where_it_is_broken():
    broken = GAME.replace("let owed = cost(n)", "let owed = cost(n")
    with pytest.raises(DiagnosticError) as caught:
        PieceParser().parse(broken, "shop.rules")
    line = caught.value.diagnostics[0].line
    assert at(broken, "let owed")[0] + 1 <= line <= at(broken, "decrease")[0] + 2


def test_a_file_opened_as_on_disk_reuses_the_loaders_parse():
    from rulebook.loader import parse_cached

    name = str(ROOT / SMALL_FILES[0])
    docs = Documents()
    text, whole = parse_cached(name)
    docs.set(name, text)
    _, program = docs.parse(name)
    assert all(a is b for a, b in zip(program.declarations, whole.declarations))


def test_the_check_of_an_open_variant_sees_its_edited_game(tmp_path):
    (tmp_path / "shop.rules").write_text(GAME)
    (tmp_path / "sale.rules").write_text('variant "Sale" extends "shop.rules" {\n}\n\n'
                                         "const discount = cost(1)\n")
    docs = Documents()
    game, sale = str(tmp_path / "shop.rules"), str(tmp_path / "sale.rules")
    docs.set(sale, (tmp_path / "sale.rules").read_text())
    assert check_document(docs, sale).diagnostics == {sale: []}
    docs.set(game, GAME.replace("define cost(n)", "define price_of(n)").replace(
        "let owed = cost(n)", "let owed = price_of(n)"))
    found = check_document(docs, sale)
    assert found.files == [game, sale]
    assert [d.message for d in found.diagnostics[sale] if "cost" in d.message]


# ------------------------------------------------------------------------------- names
def test_names_resolve_to_their_declarations_scopes_and_members():
    index = index_of(GAME)
    path = "shop.rules"
    # a parameter is its procedure's own; `p` in `play` is another name
    refs = F.references(index, path, *at(GAME, "pay(p, n)", inside=5))
    assert [(r.line, r.column) for r in refs] == [at(GAME, "p, n)", inside=0),
                                                  at(GAME, "p.money by", inside=0)]
    # `p.money` is the player variable; a field read after a dot is the record's field
    (place,) = F.definition(index, path, *at(GAME, "money by"))
    assert (place.line, place.column) == at(GAME, "money: int", inside=0)
    (place,) = F.definition(index, path, *at(GAME, "price\n"))
    assert (place.line, place.column) == at(GAME, "price: int", inside=0)
    # the table's columns are the record's fields
    refs = F.references(index, path, *at(GAME, "colour: Colour"))
    assert [(r.line, r.column) for r in refs] == [at(GAME, "colour: Colour", inside=0),
                                                  at(GAME, "colour | price", inside=0)]


def test_hover_on_a_table_row_lists_its_fields():
    index = index_of(GAME)
    text, _ = F.hover(index, "shop.rules", *at(GAME, "hat.price"))
    assert "row `hat` of table `items`" in text
    assert "| price | 3 |" in text and '| name | "A hat" |' in text
    (place,) = F.definition(index, "shop.rules", *at(GAME, "hat.price"))
    assert place.line == at(GAME, '"hat"  |')[0]


def test_hover_on_a_table_and_an_enum_member():
    index = index_of(GAME)
    text, _ = F.hover(index, "shop.rules", *at(GAME, "items.hat"))
    assert "table items of Item" in text and "2 rows of `Item`" in text
    assert "What the shop sells." in text
    text, _ = F.hover(index, "shop.rules", *at(GAME, "red "))
    assert "member of enum `Colour`" in text


def test_a_constant_named_like_a_built_in_is_the_constant():
    text = (ROOT / SMALL_FILES[0]).read_text()
    index = index_of(text, "t.rules")
    hover, _ = F.hover(index, "t.rules", *at(text, "1..size", inside=4))
    assert "const size = 3" in hover


def test_rename_refuses_built_ins_and_keywords():
    index = index_of(GAME)
    with pytest.raises(F.RenameRefused):
        F.rename(index, "shop.rules", *at(GAME, "round =="), "turn_number")
    with pytest.raises(F.RenameRefused):
        F.rename(index, "shop.rules", *at(GAME, "cost(n)"), "play")
    edits = F.rename(index, "shop.rules", *at(GAME, "cost(n)"), "price_for")
    assert len(edits["shop.rules"]) == 2


def test_completion_while_typing_after_a_table_offers_its_rows_and_after_a_dot_members():
    typing = GAME.replace("items.hat.price", "items.")
    docs = Documents()
    docs.set("shop.rules", typing)
    with pytest.raises(DiagnosticError):
        docs.parse("shop.rules")
    text, program = docs.parse_partial("shop.rules")  # the items that parse still name things
    index = Index()
    index.add_file("shop.rules", text, program)
    index.build()
    line, column = at(typing, "items.\n", inside=6)
    assert [c.label for c in F.completions(index, "shop.rules", line, column)] == ["hat", "coat"]
    line, column = at(typing, "p.money by", inside=2)
    labels = [c.label for c in F.completions(index, "shop.rules", line, column)]
    assert {"money", "price", "colour", "name"} <= set(labels) and "cost" not in labels


def test_option_ids_are_offered_in_a_scenario_not_in_a_game_prompt():
    text = (ROOT / SMALL_FILES[0]).read_text()
    index = index_of(text, "t.rules")
    line, column = at(text, '"place:1:1"')
    assert [c.label for c in F.completions(index, "t.rules", line, column)] == ["place"]
    line, column = at(text, '"Place your mark"')
    assert "place" not in [c.label for c in F.completions(index, "t.rules", line, column)]
    assert F.completions(index, "t.rules", line, column + 3) == []  # string text: nothing
    line, column = at(text, 'row {r}', inside=6)
    assert "size" in [c.label for c in F.completions(index, "t.rules", line, column)]  # a hole


def test_variants_that_extend_each_other_in_a_cycle_are_an_error(tmp_path):
    (tmp_path / "shop.rules").write_text(GAME)
    a, b = str(tmp_path / "a.rules"), str(tmp_path / "b.rules")
    docs = Documents()
    docs.set(a, 'variant "A" extends "b.rules" {\n}\n')
    for name in ("a.rules", "b.rules"):  # on disk, both extend the game
        (tmp_path / name).write_text('variant "V" extends "shop.rules" {\n}\n')
    docs.set(b, 'variant "B" extends "a.rules" {\n}\n')  # as edited, unsaved
    (found,) = check_document(docs, a).diagnostics[b]
    assert found.code == "E0504" and "cycle" in found.message


def test_definition_of_a_file_named_by_extends_or_ruleset_is_the_file():
    name = str(ROOT / "rulesets/liqueur/two_players.rules")
    text = Path(name).read_text()
    index = index_of(text, name)
    (place,) = F.definition(index, name, *at(text, '"liqueur.rules"', inside=3))
    assert Path(place.file).resolve() == ROOT / "rulesets/liqueur/liqueur.rules"
    name = str(ROOT / "rulesets/liqueur/tests/two_players.rules")
    text = Path(name).read_text()
    index = index_of(text, name)
    line, column = at(text, 'ruleset "', inside=10)
    (place,) = F.definition(index, name, line, column)
    assert Path(place.file).resolve().parent == ROOT / "rulesets/liqueur"


def test_renaming_an_enum_member_renames_the_table_cells_that_hold_it():
    index = index_of(GAME)
    edits = F.rename(index, "shop.rules", *at(GAME, "red "), "crimson")
    places = sorted((p.line, p.column) for p, _ in edits["shop.rules"])
    assert places == [at(GAME, "red ", inside=0), at(GAME, '"red"')]  # the member, the cell
    renamed = GAME
    for place, new in sorted(edits["shop.rules"], key=lambda e: (-e[0].line, -e[0].column)):
        lines = renamed.split("\n")
        lines[place.line] = lines[place.line][:place.column] + new + \
            lines[place.line][place.end_column:]
        renamed = "\n".join(lines)
    assert 'crimson "Red"' in renamed and '"crimson"' in renamed
    docs = Documents()
    docs.set("shop.rules", renamed)
    assert check_document(docs, "shop.rules").diagnostics == {"shop.rules": []}
