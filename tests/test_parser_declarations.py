"""Parser: enums, records, catalogue tables, constants, functions and procedures."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from rulebook.validator.diagnostics import DiagnosticError
from test_parser_helpers import span

HEADER = 'game "Declarations" {\n    players 2\n}\n'  # three lines: declarations start on line 4


def decls(text: str) -> list:
    return parse_text(HEADER + text).declarations


def test_enum_members_with_and_without_labels():
    (enum,) = decls('enum Parameter cite "Cards" { rich "Rich", sweet, aroma "Aroma" }\n')
    assert isinstance(enum, A.EnumDecl)
    assert enum.name == "Parameter"
    assert [(m.name, m.label) for m in enum.members] == [
        ("rich", "Rich"), ("sweet", None), ("aroma", "Aroma")]
    assert enum.meta.cite == ["Cards"]
    assert span(enum) == (4, 1, 4, 66)
    assert span(enum.members[1]) == (4, 44, 4, 49)


def test_enum_over_several_lines_with_trailing_comma():
    (enum,) = decls("enum Phase {\n    income,\n    actions,\n}\n")
    assert [m.name for m in enum.members] == ["income", "actions"]
    assert span(enum) == (4, 1, 7, 2)


def test_record_fields_with_types():
    (record,) = decls("record Card {\n    name: text\n    cost: int?\n    tags: list of Tag\n}\n")
    assert isinstance(record, A.RecordDecl)
    assert [(f.name, f.type.kind) for f in record.fields] == [
        ("name", "named_type"), ("cost", "optional_type"), ("tags", "list_type")]
    assert span(record.fields[1]) == (6, 5, 6, 15)


def test_record_on_one_line():
    (record,) = decls("record Pair { a: int, b: int }\n")
    assert [f.name for f in record.fields] == ["a", "b"]


def test_table_rows_keep_literal_values_in_column_order():
    (_, table) = decls(
        "record Card {\n    name: text\n    cost: int\n    rare: bool\n    note: text?\n}\n"
        'table cards of Card assumed "values are printed only on the cards" {\n'
        "    name    | cost | rare  | note   | count\n"
        '    "Ace"   | 1    | true  | none   | 2\n'
        '    "King"  | 13   | false | "last" | 1\n'
        "}\n")
    assert isinstance(table, A.TableDecl)
    assert (table.name, table.record) == ("cards", "Card")
    assert table.columns == ["name", "cost", "rare", "note", "count"]
    assert [r.values for r in table.rows] == [["Ace", 1, True, None, 2],
                                              ["King", 13, False, "last", 1]]
    assert table.meta.assumed == "values are printed only on the cards"
    assert span(table.rows[0]) == (12, 5, 12, 40)


def test_table_without_rows():
    (_, table) = decls("record Card {\n    cost: int\n}\ntable none_yet of Card {\n    cost\n}\n")
    assert table.rows == []


def test_table_row_with_wrong_width_is_located_at_the_row():
    with pytest.raises(DiagnosticError) as info:
        decls("record Card {\n    a: int\n    b: int\n}\n"
              "table cards of Card {\n    a | b\n    1 | 2 | 3\n}\n")
    (d,) = info.value.diagnostics
    assert (d.code, d.line, d.column) == ("E0120", 10, 5)
    assert "a | b" in d.hint


def test_const_with_cite_and_assumption():
    (const,) = decls('const market_size = 5 * 3 cite "Setup" assumed "inferred from the picture"\n')
    assert isinstance(const, A.ConstDecl)
    assert const.name == "market_size"
    assert isinstance(const.value, A.Binary) and const.value.op == "*"
    assert const.meta.cite == ["Setup"]
    assert const.meta.assumed == "inferred from the picture"


def test_several_citations_are_kept_in_order():
    (const,) = decls('const a = 1 cite "Setup" cite "Appendix"\n')
    assert const.meta.cite == ["Setup", "Appendix"]


def test_define_with_and_without_parameters():
    double, answer = decls("define double(x) = x * 2\ndefine answer() = 42\n")
    assert isinstance(double, A.DefineDecl)
    assert (double.name, double.params) == ("double", ["x"])
    assert isinstance(double.body, A.Binary)
    assert (answer.params, answer.body.value) == ([], 42)


def test_procedure_with_a_block():
    (proc,) = decls("procedure deal(p, n) {\n    repeat n times {\n        pass\n    }\n}\n")
    assert isinstance(proc, A.ProcedureDecl)
    assert proc.params == ["p", "n"]
    assert isinstance(proc.body[0], A.Repeat)
    assert span(proc) == (4, 1, 8, 2)


def test_invariant_declaration():
    (inv,) = decls('invariant positive "scores never drop below zero": all(p in players where p.score >= 0)\n')
    assert isinstance(inv, A.InvariantDecl)
    assert (inv.name, inv.description) == ("positive", "scores never drop below zero")
    assert isinstance(inv.test, A.Quantifier)


def test_declarations_keep_file_order():
    kinds = [d.kind for d in decls("const a = 1\nenum E { x }\nrecord R { f: int }\nconst b = 2\n")]
    assert kinds == ["const", "enum", "record", "const"]
