"""Parser: expressions, operator precedence, comprehensions, templates."""
from __future__ import annotations

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_expression, parse_text
from rulebook.validator.diagnostics import DiagnosticError
from test_parser_helpers import span


def expr(text: str):
    """The value of `const x = <text>` on line 1, so columns count from `const x = `."""
    (const,) = parse_text(f"const x = {text}\n").declarations
    return const.value


def shape(node) -> object:
    """A compact picture of an expression tree, for precedence tests."""
    if isinstance(node, A.Binary):
        return (node.op, shape(node.left), shape(node.right))
    if isinstance(node, A.Unary):
        return (node.op, shape(node.operand))
    if isinstance(node, A.IntLit):
        return node.value
    if isinstance(node, A.Name):
        return node.id
    if isinstance(node, A.BoolLit):
        return node.value
    return node.kind


@pytest.mark.parametrize("text, tree", [
    ("1 + 2 * 3", ("+", 1, ("*", 2, 3))),
    ("(1 + 2) * 3", ("*", ("+", 1, 2), 3)),
    ("1 - 2 - 3", ("-", ("-", 1, 2), 3)),
    ("a / b % c", ("%", ("/", "a", "b"), "c")),
    ("a < b and b <= c or not d", ("or", ("and", ("<", "a", "b"), ("<=", "b", "c")), ("not", "d"))),
    ("not a == b", ("not", ("==", "a", "b"))),
    ("a in xs and b not in ys", ("and", ("in", "a", "xs"), ("not in", "b", "ys"))),
    ("1..n + 1", ("..", 1, ("+", "n", 1))),
    ("-a * 2", ("*", ("-", "a"), 2)),
    ("a != b or c >= d", ("or", ("!=", "a", "b"), (">=", "c", "d"))),
])
def test_precedence(text: str, tree):
    assert shape(expr(text)) == tree


def test_negative_literal_is_folded():
    value = expr("-5")
    assert isinstance(value, A.IntLit) and value.value == -5


def test_literals():
    assert expr("true").value is True and expr("false").value is False
    assert isinstance(expr("none"), A.NoneLit)
    assert expr('"plain"').value == "plain"
    assert expr("007").value == 7


def test_string_with_a_hole_is_a_template():
    value = expr('"round {round + 1} of {total}"')
    assert isinstance(value, A.Template)
    kinds = [p.kind for p in value.parts]
    assert kinds == ["text_part", "expr_part", "text_part", "expr_part"]
    assert value.parts[0].text == "round "
    assert shape(value.parts[1].expr) == ("+", "round", 1)


def test_escaped_braces_stay_text():
    value = expr(r'"\{not a hole\}"')
    assert isinstance(value, A.StrLit) and value.value == "{not a hole}"


def test_field_index_and_call_chain():
    value = expr("players[1].hand[2, 3].cost")
    assert isinstance(value, A.FieldAccess) and value.name == "cost"
    grid = value.obj
    assert isinstance(grid, A.Index) and [i.value for i in grid.indices] == [2, 3]
    assert isinstance(grid.obj, A.FieldAccess) and grid.obj.name == "hand"
    assert span(value) == (1, 11, 1, 37)


def test_call_with_arguments():
    value = expr("max(a, b + 1)")
    assert isinstance(value, A.Call) and value.func == "max"
    assert shape(value.args[1]) == ("+", "b", 1)


def test_conditional_expression():
    value = expr("if a then 1 else 2")
    assert isinstance(value, A.Conditional)
    assert (shape(value.test), value.then.value, value.otherwise.value) == ("a", 1, 2)


def test_aggregate_with_filter():
    value = expr("sum(c.cost for c in hand where c.cost > 2)")
    assert isinstance(value, A.Aggregate)
    assert value.func == "sum"
    assert value.binding.name == "c" and shape(value.binding.source) == "hand"
    assert shape(value.where)[0] == ">"


@pytest.mark.parametrize("func", ["count", "any", "all", "first", "filter"])
def test_quantifiers(func: str):
    value = expr(f"{func}(p in players where p.ready)")
    assert isinstance(value, A.Quantifier) and value.func == func
    assert value.binding.name == "p"


@pytest.mark.parametrize("func", ["sole_max", "sole_min"])
def test_the_sole_best_element_with_filter_and_keys(func: str):
    value = expr(f"{func}(q in players where q.shares > 0 by q.shares, seat(q))")
    assert isinstance(value, A.Sole) and value.func == func
    assert value.binding.name == "q" and shape(value.where)[0] == ">"
    assert [k.kind for k in value.keys] == ["field", "call"]
    assert (value.keys[0].name, value.keys[1].func) == ("shares", "seat")
    assert expr(f"{func}(n in [1, 2] by n)").where is None


def test_the_sole_best_element_needs_a_key():
    with pytest.raises(DiagnosticError):
        expr("sole_max(q in players where q.shares > 0)")


def test_list_literal_and_comprehension():
    assert [i.value for i in expr("[1, 2, 3]").items] == [1, 2, 3]
    assert expr("[]").items == []
    comp = expr("[x * x for x in 1..4 where x > 1]")
    assert isinstance(comp, A.ListComp)
    assert shape(comp.element) == ("*", "x", "x") and comp.binding.name == "x"


def test_sort_with_keys_and_random_tie_break():
    value = expr("sort(p in players by p.bid, p.reputation descending, random)")
    assert isinstance(value, A.Sort)
    first, second, third = value.keys
    assert (first.descending, second.descending) == (False, True)
    assert isinstance(third, A.RandomKey)


def test_match_with_else():
    value = expr('match n { 3: 30, 4: 40, else: 50 }')
    assert isinstance(value, A.Match)
    assert [c.value.value if c.value else None for c in value.cases] == [3, 4, None]
    assert [c.result.value for c in value.cases] == [30, 40, 50]


def test_record_literal():
    value = expr("new Pos { row: 1, column: c }")
    assert isinstance(value, A.RecordLit) and value.record == "Pos"
    assert [f.name for f in value.fields] == ["row", "column"]


def test_expression_spanning_lines_inside_brackets():
    value = expr("(1 +\n    2)")
    assert shape(value) == ("+", 1, 2)
    assert span(value)[0] == 1 and span(value)[2] == 2


def test_line_continuation_with_backslash():
    value = expr("1 \\\n    + 2")
    assert shape(value) == ("+", 1, 2)


def test_parse_expression_entry_point():
    assert shape(parse_expression("a and b")) == ("and", "a", "b")
    with pytest.raises(DiagnosticError):
        parse_expression("a and")


def test_unicode_names():
    assert shape(expr("größe + pièce")) == ("+", "größe", "pièce")


def test_a_hole_may_hold_strings_of_its_own():
    from rulebook.grammar.formatter import format_expression

    t = parse_expression('"{p} {if won then "wins" else "loses"} the {"}"} round"')
    assert t.kind == "template"
    hole = t.parts[2].expr
    assert hole.kind == "conditional" and hole.then.value == "wins"
    assert t.parts[4].expr.value == "}"  # a brace inside an inner string does not end the hole
    assert format_expression(t) == '"{p} {if won then "wins" else "loses"} the {"\\}"} round"'


def test_the_lexer_and_the_readers_agree_on_what_a_string_is():
    from rulebook.grammar.parser import GRAMMAR_FILE
    from rulebook.grammar.source import STRING_PATTERN

    line = next(x for x in GRAMMAR_FILE.read_text().splitlines() if x.startswith("STRING:"))
    assert line == f"STRING: /{STRING_PATTERN}/"
