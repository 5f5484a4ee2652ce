"""Formatter properties on generated programs: printing then parsing gives the same AST, printing
is idempotent, and no comment is lost.

Programs are ASTs built by the strategies below, which reach every node kind with values the
grammar can spell in only one way (the parser reads `-5` as the number -5, never as `-` applied
to 5; it never leaves two text parts of a string side by side). Generating text from the grammar
with ``hypothesis.extra.lark.from_lark`` was tried: its expressions have no size bound, so almost
every draw overran Hypothesis's buffer (7 usable examples in 8 s), and its ignored terminals put
comments in the middle of lines.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest
from ast_helpers import without_spans
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulebook.grammar import ast as A
from rulebook.grammar.formatter import format_expression, format_program, format_source
from rulebook.grammar.parser import (
    comments_of,
    tree_parser,
    parse_expression,
    parse_text,
)

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")


def examples(count: int) -> settings:
    return settings(max_examples=count, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])




def dump(node) -> dict:
    return without_spans(node.model_dump())


def _keywords() -> set[str]:
    words = set()
    for terminal in tree_parser().terminals:
        if terminal.name in ("STRING", "NAME", "INT", "COMMENT", "_NL", "WS_INLINE", "LINE_CONT"):
            continue  # texts, names and spacing: their patterns hold no keywords
        if terminal.pattern.type == "str":
            words.add(terminal.pattern.value)
        else:
            words.update(re.findall(r"[a-z]+", terminal.pattern.value))
    return {w for w in words if w.isidentifier()}


KEYWORDS = _keywords()
NAMES = ["a", "b", "xs", "p", "score", "board", "café", "n2", "zone_b"]


def test_generated_names_are_not_keywords():
    assert {"if", "count", "all", "descending", "global", "hidden"} <= KEYWORDS
    assert not set(NAMES) & KEYWORDS


# ------------------------------------------------------------------------------ AST strategies
def node(cls, **fields):
    return cls(kind=cls.model_fields["kind"].annotation.__args__[0], **fields)


names = st.sampled_from(NAMES)
# Control characters other than newline and tab are refused in strings (E0104).
any_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cc",),
                                 include_characters="\n\t"), max_size=6)
meta = st.builds(A.Meta, cite=st.lists(any_text, max_size=2), assumed=st.none() | any_text)

leaves = st.one_of(
    st.integers(-99, 99).map(lambda v: node(A.IntLit, value=v)),
    any_text.map(lambda v: node(A.StrLit, value=v)),
    st.booleans().map(lambda v: node(A.BoolLit, value=v)),
    st.just(node(A.NoneLit)),
    names.map(lambda v: node(A.Name, id=v)),
)
# Expressions inside `{...}` holes of a string: no braces or strings of their own.
hole = st.recursive(
    st.one_of(names.map(lambda v: node(A.Name, id=v)),
              st.integers(0, 9).map(lambda v: node(A.IntLit, value=v))),
    lambda inner: st.one_of(
        st.builds(lambda o, n: node(A.FieldAccess, obj=o, name=n), inner, names),
        st.builds(lambda op, l, r: node(A.Binary, op=op, left=l, right=r),
                  st.sampled_from(["+", "*", "=="]), inner, inner)),
    max_leaves=3)
text_part = st.text(st.characters(codec="utf-8", exclude_categories=("Cc",),
                                  include_characters="\n\t", exclude_characters="\\"), min_size=1,
                    max_size=5).map(lambda t: node(A.TextPart, text=t))
expr_part = hole.map(lambda e: node(A.ExprPart, expr=e))


@st.composite
def templates(draw, holes_required=True):
    """Text and holes in turn (the parser never leaves two texts side by side)."""
    parts, last_text = [], False
    for _ in range(draw(st.integers(1, 4))):
        use_text = not last_text and draw(st.booleans())
        parts.append(draw(text_part if use_text else expr_part))
        last_text = use_text
    if holes_required and all(p.kind == "text_part" for p in parts):
        parts.append(draw(expr_part))
    return node(A.Template, parts=parts)


labels = st.one_of(templates(holes_required=False),
                   st.just(node(A.Template, parts=[node(A.TextPart, text="")])))


def _negatable(e) -> bool:
    # `-5` is read as the number -5, so `-` never applies to a number (or to another `-`).
    return not (e.kind == "int" or (e.kind == "unary" and e.op == "-"))


def _compound(inner):
    binding = st.builds(lambda n, s: node(A.Binding, name=n, source=s), names, inner)
    where = st.none() | inner
    keys = st.lists(st.one_of(
        st.builds(lambda e, d: node(A.SortKey, expr=e, descending=d), inner, st.booleans()),
        st.just(node(A.RandomKey))), min_size=1, max_size=2)
    ops = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "and",
           "or", ".."]
    return st.one_of(
        st.builds(lambda op, l, r: node(A.Binary, op=op, left=l, right=r),
                  st.sampled_from(ops), inner, inner),
        inner.map(lambda e: node(A.Unary, op="not", operand=e)),
        inner.filter(_negatable).map(lambda e: node(A.Unary, op="-", operand=e)),
        st.builds(lambda t, a, b: node(A.Conditional, test=t, then=a, otherwise=b),
                  inner, inner, inner),
        st.builds(lambda o, n: node(A.FieldAccess, obj=o, name=n), inner, names),
        st.builds(lambda o, i: node(A.Index, obj=o, indices=i), inner,
                  st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda f, a: node(A.Call, func=f, args=a), names, st.lists(inner, max_size=2)),
        st.builds(lambda f, a: node(A.Call, func=f, args=a), st.sampled_from(["max", "sum"]),
                  st.lists(inner, min_size=1, max_size=2)),
        st.lists(inner, max_size=3).map(lambda i: node(A.ListLit, items=i)),
        st.builds(lambda e, b, m, w: node(A.ListComp, element=e, binding=b, more=m, where=w),
                  inner, binding, st.lists(binding, max_size=1), where),
        st.builds(lambda f, e, b, m, w: node(A.Aggregate, func=f, element=e, binding=b, more=m,
                                             where=w),
                  st.sampled_from(["sum", "max", "min"]), inner, binding,
                  st.lists(binding, max_size=1), where),
        st.builds(lambda f, b, w: node(A.Quantifier, func=f, binding=b, where=w),
                  st.sampled_from(["count", "any", "all", "first", "filter"]), binding, where),
        st.builds(lambda b, k: node(A.Sort, binding=b, keys=k), binding, keys),
        st.builds(lambda f, b, w, k: node(A.Sole, func=f, binding=b, where=w, keys=k),
                  st.sampled_from(["sole_max", "sole_min"]), binding, where,
                  st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda s, c: node(A.Match, subject=s, cases=c), inner, st.lists(
            st.builds(lambda v, r: node(A.MatchCase, value=v, result=r), st.none() | inner,
                      inner), min_size=1, max_size=3)),
        st.builds(lambda r, f: node(A.RecordLit, record=r, fields=f), names, st.lists(
            st.builds(lambda n, v: node(A.FieldInit, name=n, value=v), names, inner),
            max_size=2)),
        templates(),
    )


exprs = st.recursive(leaves, _compound, max_leaves=8)
bindings = st.builds(lambda n, s: node(A.Binding, name=n, source=s), names, exprs)
sort_keys = st.lists(st.one_of(
    st.builds(lambda e, d: node(A.SortKey, expr=e, descending=d), exprs, st.booleans()),
    st.just(node(A.RandomKey))), min_size=1, max_size=2)
maybe = st.none() | exprs
place = st.sampled_from([None, "top", "bottom"])


def _simple_statements():
    return st.one_of(
        st.builds(lambda n, v: node(A.Let, name=n, value=v), names, exprs),
        st.builds(lambda t, v: node(A.Set, target=t, value=v), exprs, exprs),
        st.builds(lambda o, t, a: node(A.Change, op=o, target=t, amount=a),
                  st.sampled_from(["increase", "decrease"]), exprs, exprs),
        st.builds(lambda w, i, s, d, p: node(A.Move, what=w, item=None if w == "all" else i,
                                             source=s, dest=d, place=p),
                  st.sampled_from(["one", "all", "top"]), exprs, exprs, exprs, place),
        st.builds(lambda v, d, p: node(A.Add, value=v, dest=d, place=p), exprs, exprs, place),
        st.builds(lambda v, s: node(A.Remove, value=v, source=s), exprs, exprs),
        exprs.map(lambda t: node(A.Shuffle, target=t)),
        st.sampled_from([node(A.EndGame), node(A.Stop), node(A.Pass)]),
        st.builds(lambda m, t: node(A.Log, message=m, to=t), labels, maybe),
        st.builds(lambda t, to, u: node(A.Reveal, target=t, to=to, until_changed=u), exprs, maybe,
                  st.booleans()),
        st.builds(lambda n, a: node(A.Rotate, name=n, among=a), names, exprs),
        exprs.map(lambda t: node(A.Hide, target=t)),
        st.builds(lambda e, a: node(A.Trigger, event=e, args=a), names,
                  st.lists(exprs, max_size=2)),
        st.builds(lambda n, a: node(A.CallProcedure, name=n, args=a), names,
                  st.lists(exprs, max_size=2)),
        st.builds(lambda t, m: node(A.Require, test=t, message=m), exprs, labels),
    )


def _block_statements(body):
    option = st.builds(lambda n, b, w, l, s: node(A.Option, name=n, bindings=b, where=w, label=l,
                                                  body=s),
                       names, st.lists(bindings, max_size=2), maybe, st.none() | labels, body)
    branch = st.builds(lambda t, b: node(A.Branch, test=t, body=b), exprs, body)
    return st.one_of(
        st.builds(lambda b, o, m: node(A.If, branches=b, otherwise=o, meta=m),
                  st.lists(branch, min_size=1, max_size=3), st.none() | body, meta),
        st.builds(lambda b, w, s: node(A.For, binding=b, where=w, body=s), bindings, maybe, body),
        st.builds(lambda c, s: node(A.Repeat, count=c, body=s), exprs, body),
        st.builds(lambda t, s: node(A.While, test=t, body=s), exprs, body),
        st.builds(lambda p, q, o, c, r, opts, other, m: node(
            A.Choose, player=p, prompt=q, optional=o, confirm=c, repeat=r, options=opts,
            otherwise=other, meta=m), exprs, st.none() | labels, st.booleans(), st.booleans(),
            st.booleans(), st.lists(option, max_size=2), st.none() | body, meta),
        st.builds(lambda s, arms, m: node(A.MatchStmt, subject=s, arms=arms, meta=m), exprs,
                  st.lists(st.builds(lambda v, b: node(A.MatchArm, value=v, body=b), maybe, body),
                           max_size=3), meta),
        st.builds(lambda b, m: node(A.Cited, body=b, meta=m), body,
                  st.lists(any_text, min_size=1, max_size=2).map(lambda c: A.Meta(cite=c))),
        st.builds(lambda n, a, t, u, b, m: node(A.TurnsFrom, name=n, start=a, then=t, until=u,
                                                body=b, meta=m),
                  names, exprs, exprs, exprs, body, meta),
        st.builds(lambda b, s, m: node(A.Simultaneously, binding=b, body=s, meta=m),
                  bindings, body, meta),
        st.builds(lambda b, s, m: node(A.Turns, binding=b, body=s, meta=m), bindings, body, meta),
        st.builds(lambda n, w, s, m: node(A.Phase, name=n, when=w, body=s, meta=m),
                  names, maybe, body, meta),
        st.builds(lambda n, s, m: node(A.Step, name=n, body=s, meta=m), names, body, meta),
        st.builds(lambda mode, e, s, m: node(A.Rounds, mode=mode,
                                             expr=None if mode == "forever" else e,
                                             body=s, meta=m),
                  st.sampled_from(["forever", "until", "count"]), exprs, body, meta),
        st.builds(lambda p, s, m: node(A.Turn, player=p, body=s, meta=m), exprs, body, meta),
        st.builds(lambda a, b, w, k, t, s, m: node(A.Award, amounts=a, binding=b, where=w,
                                                   keys=k, ties=t, body=s, meta=m),
                  exprs, bindings, maybe, sort_keys,
                  st.sampled_from(["share", "split", "none", "all"]),
                  body, meta),
    )


statements = st.recursive(
    _simple_statements(),
    lambda inner: _block_statements(st.lists(inner, max_size=2)),
    max_leaves=4)
bodies = st.lists(statements, max_size=3)
params = st.lists(names, max_size=2)
# A grid's size: a number, or any expression (the checker, not the parser, wants constants).
grid_sizes = st.one_of(st.integers(0, 9).map(lambda n: node(A.IntLit, value=n)), exprs)
types = st.recursive(
    st.one_of(names.map(lambda n: node(A.NamedType, name=n)),
              names.map(lambda n: node(A.OptionalType, name=n))),
    lambda inner: st.one_of(
        inner.map(lambda t: node(A.ListType, element=t)),
        inner.map(lambda t: node(A.DeckType, element=t)),
        st.builds(lambda r, c, t: node(A.GridType, rows=r, columns=c, element=t),
                  grid_sizes, grid_sizes, inner)),
    max_leaves=3)
cells = st.one_of(st.integers(0, 99), any_text, st.booleans(), st.none())


@st.composite
def tables(draw):
    columns = draw(st.lists(names, min_size=1, max_size=3))
    rows = draw(st.lists(st.lists(cells, min_size=len(columns), max_size=len(columns)),
                         max_size=3))
    return node(A.TableDecl, name=draw(names), record=draw(names), columns=columns,
                rows=[node(A.TableRow, values=r) for r in rows], meta=draw(meta))


declarations = st.one_of(
    st.builds(lambda n, ms, m: node(A.EnumDecl, name=n, members=ms, meta=m), names, st.lists(
        st.builds(lambda n, l: node(A.EnumMember, name=n, label=l), names, st.none() | any_text),
        min_size=1, max_size=3), meta),
    st.builds(lambda n, sh, fs, m: node(A.RecordDecl, name=n, show=sh, fields=fs, meta=m),
              names, st.none() | labels, st.lists(
        st.builds(lambda n, t: node(A.FieldDecl, name=n, type=t), names, types), max_size=3),
        meta),
    tables(),
    st.builds(lambda n, v, m: node(A.ConstDecl, name=n, value=v, meta=m), names, exprs, meta),
    st.builds(lambda s, n, t, i, v, lo, hi, k, f, m: node(
        A.StateDecl, scope=s, name=n, type=t, initial=i, visibility=v, at_least=lo, at_most=hi,
        stacked=k, shown=f[0], sorted=f[1], shape=f[2], meta=m),
        st.sampled_from(["global", "player"]),
        names, types, maybe, st.sampled_from(["public", "owner", "secret"]), maybe, maybe,
        st.booleans(), st.tuples(st.booleans(), st.booleans(),
                                 st.sampled_from([None, "public", "secret"])), meta),
    st.builds(lambda n, p, b, m: node(A.DefineDecl, name=n, params=p, body=b, meta=m),
              names, params, exprs, meta),
    st.builds(lambda n, p, b, m: node(A.ProcedureDecl, name=n, params=p, body=b, meta=m),
              names, params, bodies, meta),
    st.builds(lambda b, m: node(A.SetupDecl, body=b, meta=m), bodies, meta),
    st.builds(lambda b, m: node(A.PlayDecl, body=b, meta=m), bodies, meta),
    st.builds(lambda b, m: node(A.ScoringDecl, body=b, meta=m), bodies, meta),
    st.builds(lambda b, k, m: node(A.WinnerDecl, binding=b, keys=k, meta=m), bindings,
              sort_keys, meta),
    st.builds(lambda n, b, c, s, m: node(A.ReactionDecl, name=n, bindings=b, condition=c,
                                         body=s, meta=m),
              names, st.lists(bindings, min_size=1, max_size=2), exprs, bodies, meta),
    st.builds(lambda n, p, b, m: node(A.EventDecl, name=n, params=p, body=b, meta=m),
              names, params, bodies, meta),
    st.builds(lambda n, t, p, o, v, w, m: node(A.ModifierDecl, name=n, target=t, params=p, op=o,
                                               value=v, when=w, meta=m),
              names, names, params, st.sampled_from(["+=", "-=", "*=", ":="]), exprs, maybe,
              meta),
    st.builds(lambda n, ps, o, m: node(A.AutomatonDecl, name=n, policies=ps, otherwise=o,
                                       meta=m), names,
              st.lists(st.builds(lambda o, k: node(A.Policy, option=o, keys=k), names,
                                 st.just([]) | sort_keys), max_size=2),
              st.none() | st.builds(lambda mode, m: node(A.AutomatonOtherwise, mode=mode, meta=m),
                                    st.sampled_from(["first", "random", "error"]), meta), meta),
    st.builds(lambda n, d, t, m: node(A.InvariantDecl, name=n, description=d, test=t, meta=m),
              names, any_text, exprs, meta),
)
overrides = st.one_of(
    declarations.map(lambda d: node(A.Override, declaration=d)),
    st.builds(lambda mode, s, b, m: node(A.StepPatch, mode=mode, step=s, body=b, meta=m),
              st.sampled_from(["override", "before", "after"]), names, bodies, meta),
)
scenario_texts = st.one_of(any_text.map(lambda v: node(A.StrLit, value=v)),
                           templates(holes_required=True))
seed_counts = st.one_of(st.tuples(st.integers(1, 9), st.none()), st.tuples(st.none(),
                        st.integers(0, 9)), st.tuples(st.integers(0, 4), st.integers(5, 9)))
scenario_items = st.one_of(
    any_text.map(lambda p: node(A.ScRuleset, path=p)),
    any_text.map(lambda p: node(A.ScVariant, name=p)),
    st.integers(0, 9).map(lambda n: node(A.ScPlayers, count=n)),
    st.integers(0, 9999).map(lambda n: node(A.ScSeed, seed=n)),
    st.tuples(st.integers(0, 9), st.integers(0, 99)).map(
        lambda t: node(A.ScSeeds, first=t[0], last=t[1])),
    st.builds(lambda n, v: node(A.ScLet, name=n, value=v), names, exprs),
    bodies.map(lambda b: node(A.ScGiven, body=b)),
    st.builds(lambda p, o: node(A.ScChoose, player=p, option=o), st.none() | exprs,
              scenario_texts),
    st.builds(lambda p, o, m: node(A.ScRefuse, player=p, option=o, message=m),
              st.none() | exprs, scenario_texts, st.none() | any_text),
    st.builds(lambda t, m: node(A.ScExpect, test=t, message=m), exprs, st.none() | any_text),
    st.builds(lambda t, m, c: node(A.ScExpect, test=t, message=m, at_least=c[0], at_most=c[1]),
              exprs, st.none() | any_text, seed_counts),
    st.builds(lambda p, o, b: node(A.ScExpectOption, player=p, option=o, present=b),
              exprs, scenario_texts, st.booleans()),
    st.builds(lambda p, op, v, m: node(A.ScExpectOptions, player=p, op=op, value=v, message=m),
              exprs, st.sampled_from(["==", "!=", "<", ">=", "in"]), exprs,
              st.none() | any_text),
    st.builds(lambda t, to, b, m: node(A.ScExpectLog, text=t, to=to, present=b, message=m),
              scenario_texts, st.none() | exprs, st.booleans(), st.none() | any_text),
    any_text.map(lambda t: node(A.ScExpectError, text=t)),
    st.builds(lambda t, v, b, s: node(A.ScExpectVisibility, target=t, viewer=v, visible=b,
                                      shape=s), exprs, exprs, st.booleans(), st.booleans()),
    names.map(lambda a: node(A.ScPlayToEnd, agent=a)),
    st.builds(lambda t, a: node(A.ScPlayUntil, test=t, agent=a), exprs, names),
)


@st.composite
def headers(draw):
    low = draw(st.integers(1, 6))
    high = draw(st.integers(low, 8))
    source = draw(st.none() | any_text)
    if draw(st.booleans()):
        return node(A.GameHeader, title=draw(any_text), min_players=low, max_players=high,
                    source=source, meta=draw(meta))
    counted = draw(st.booleans())
    return node(A.VariantHeader, title=draw(any_text), extends=draw(any_text),
                min_players=low if counted else None, max_players=high if counted else None,
                source=source, meta=draw(meta))


programs = st.builds(
    lambda h, d, o, s: node(A.Program, header=h, declarations=d, overrides=o, scenarios=s),
    st.none() | headers(), st.lists(declarations, max_size=3), st.lists(overrides, max_size=2),
    st.lists(st.builds(lambda n, i, m: node(A.Scenario, name=n, items=i, meta=m), any_text,
                       st.lists(scenario_items, max_size=4), meta), max_size=2),
)


@examples(400)
@given(exprs)
def test_generated_expressions_print_and_parse_back(expr):
    printed = format_expression(expr)
    assert dump(parse_expression(printed)) == dump(expr)


@examples(250)
@given(programs)
def test_generated_programs_print_parse_back_and_stay_put(program):
    out = format_program(program)
    assert dump(parse_text(out)) == dump(program)
    assert format_source(out) == out


@examples(150)
@given(programs, st.data())
def test_comments_anywhere_a_line_allows_are_all_kept(program, data):
    """Put a comment at the end of lines and on lines of their own, then format."""
    lines = format_program(program).split("\n")
    out, count = [], 0
    for i, line in enumerate(lines):
        continued = i > 0 and lines[i - 1].endswith("\\")
        if not continued and data.draw(st.booleans(), label=f"comment before line {i}"):
            count += 1
            out.append(f"{' ' * data.draw(st.integers(0, 8))}# own {count}")
        if line.strip() and not line.endswith("\\") and data.draw(st.booleans()):
            count += 1
            line += f"{' ' * data.draw(st.integers(0, 3))}# end {count}"
        out.append(line)
    text = "\n".join(out)
    formatted = format_source(text)
    assert Counter(c for _, _, c in comments_of(formatted)) == Counter(
        c for _, _, c in comments_of(text))
    assert dump(parse_text(formatted)) == dump(parse_text(text))
    assert format_source(formatted) == formatted
