"""The parser builds the AST as it parses (grammar/lalr.py, grammar/builder.py InlineBuild):
what it must keep from building after a whole parse tree: the order of errors, the positions Lark
would give a node, and string holes that share nothing; and what the builder's helpers keep of
their first, slower forms (walks, depth, strings)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text, parse_tree
from rulebook.validator.diagnostics import DiagnosticError

HEADER = 'game "G" {\n    players 2\n}\n'


def codes(text: str) -> list[str]:
    with pytest.raises(DiagnosticError) as e:
        parse_text(text, "t.rules")
    return [(d.code, d.line) for d in e.value.diagnostics]


def test_a_syntax_error_after_a_build_error_is_the_one_reported():
    bad_number = "const big = 99999999999999999999\n"  # E0122 when the node is built
    assert codes(HEADER + bad_number) == [("E0122", 4)]
    assert codes(HEADER + bad_number + "const = 1\n") == [("E0100", 5)]


def test_the_first_of_two_build_errors_is_reported():
    text = HEADER + 'const a = "\\q"\nconst b = 99999999999999999999\n'
    assert codes(text) == [("E0104", 4)]


def test_a_node_spans_the_text_lark_gives_its_rule():
    text = HEADER + "const x = (1 + 2) * 3\n"
    product = parse_text(text, "t.rules").declarations[0].value
    tree = parse_tree(text).children[1]  # const_decl: NAME, expr
    lark_meta = tree.children[1].meta
    assert (product.span.line, product.span.column, product.span.end_line,
            product.span.end_column) == (lark_meta.line, lark_meta.column, lark_meta.end_line,
                                         lark_meta.end_column)
    assert product.span.column == 11  # from the opening parenthesis


def test_a_repeated_hole_gives_each_string_its_own_nodes_at_its_own_place():
    text = HEADER + 'setup {\n    log "{a.b}"\n    log "x {a.b}"\n}\n'
    first, second = parse_text(text, "t.rules").declarations[0].body
    one, two = first.message.parts[0].expr, second.message.parts[1].expr
    assert isinstance(one, A.FieldAccess) and (one.obj.id, one.name) == (two.obj.id, two.name)
    assert one is not two and one.obj is not two.obj
    assert (one.span.line, one.obj.span.line, two.span.line, two.obj.span.line) == (5, 5, 6, 6)
    assert one.span.file == "t.rules"


# ------------------------------------------------------------------ walking a whole tree
def _walk_by_isinstance(node):
    """`A.walk` as first written (isinstance on every value): the order `walk` keeps."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Node):
            yield n
            for name in type(n).model_fields:
                value = n.__dict__.get(name)
                if name not in ("span", "kind") and isinstance(value, (A.Node, list)):
                    stack.append(value)
        elif isinstance(n, list):
            stack.extend(n)


def _trees():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "rulesets"
    for path in sorted(root.rglob("*.rules")):
        yield parse_text(path.read_text(encoding="utf-8"), str(path))
    deep = "(" * 40 + "1" + ")" * 40
    yield parse_text(HEADER + f"const x = not not not {deep} + 1 + 2 + 3\n", "t.rules")
    yield parse_text(HEADER + "setup {\n" + "    if true {\n" * 30 + "    }\n" * 30 + "}\n",
                     "t.rules")


def test_walk_and_depth_see_the_tree_as_before():
    from rulebook.grammar.parser import _deepest

    for tree in _trees():
        assert [id(n) for n in A.walk(tree)] == [id(n) for n in _walk_by_isinstance(tree)]
        assert A.nesting_depth(tree) == _deepest(tree)[0]
        lists = tree.declarations + tree.scenarios  # a walk may start at a list
        assert [id(n) for n in A.walk(lists)] == [id(n) for n in _walk_by_isinstance(lists)]


def test_a_tree_too_deep_is_reported_at_its_deepest_node():
    chain = " + ".join(["1"] * 130)
    assert codes(HEADER + f"const x = {chain}\n") == [("E0007", 4)]


# ---------------------------------------------------- strings: looked through, not stepped
def _split_stepping(body: str):
    """Where a string's body splits into text and holes, found a character at a time (as the
    builder first did): [("text" or "hole", piece)], ending with ("open", ...) where a `{` is
    never closed."""
    from rulebook.grammar.builder import _hole_end

    out, start, i = [], 0, 0
    while i < len(body):
        if body[i] == "\\":
            close = body.find("}", i) if body.startswith("u{", i + 1) else -1
            i = close + 1 if close != -1 else i + 2
        elif body[i] == "{":
            end = _hole_end(body, i)
            if end == -1:
                return out + [("open", body[i:])]
            out += [("text", body[start:i])] * (i > start) + [("hole", body[i + 1:end])]
            i = start = end + 1
        else:
            i += 1
    return out + [("text", body[start:])] * (len(body) > start)


def _parts_of(body: str, tok):
    """What make_template gives, or its error's code."""
    from rulebook.grammar.builder import _BuildError, make_template

    try:
        return [("text", p.text) if isinstance(p, A.TextPart)
                else ("hole", p.expr.model_dump(exclude={"span"})) for p in make_template(tok).parts]
    except _BuildError as e:
        return e.code


@given(st.lists(st.sampled_from(list('ab {}"\\u0\x01') + ["\\u{41}", "\\u{D800}", "\\{",
                                                             "\\n", "{x}", "{a.b}"]),
                max_size=12).map("".join))
@settings(max_examples=400, deadline=None)
def test_a_string_splits_as_when_read_a_character_at_a_time(body):
    from lark import Token

    from rulebook.grammar.builder import _BuildError, _hole, _plain, _unescape

    tok = Token("STRING", f'"{body}"', 0, 1, 1, 1, len(body) + 3)
    expected = []
    for kind, piece in _split_stepping(body):  # in order: the first error is the one raised
        try:
            if kind == "open":
                raise _BuildError("E0105", "", tok)
            expected.append((kind, _plain(_unescape(piece, tok)) if kind == "text"
                             else _hole(piece, tok).model_dump(exclude={"span"})))
        except _BuildError as e:
            expected = e.code
            break
    assert _parts_of(body, tok) == (expected or [("text", "")])


def test_spans_share_one_set_of_field_names_that_nothing_changes():
    program = parse_text(HEADER + "const x = 1 + 2\n", "t.rules")
    spans = [n.span for n in A.walk(program) if n.span is not None]
    assert len(spans) > 3
    assert all(s.__pydantic_fields_set__ is A.SPAN_FIELDS_SET for s in spans)
    moved = spans[1].model_copy(update={"line": 40})
    assert (moved.line, spans[1].line) == (40, spans[1].line)
    assert moved.model_fields_set == A.SPAN_FIELDS_SET == {"line", "column", "end_line",
                                                           "end_column", "file"}
    with pytest.raises(Exception):
        spans[0].line = 3  # frozen
    assert A.SPAN_FIELDS_SET == {"line", "column", "end_line", "end_column", "file"}
