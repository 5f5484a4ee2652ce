"""grammar/lalr.py parses with Lark's tables and lexers in a loop of its own: on every input it must
give what Lark's own parse gives, built by the same builder methods. The reference here is the
plain way: Lark's parse tree (`parse_tree`), then one builder method per tree node, bottom-up.
Same tree (spans, fields set, list classes) on success; on failure, the same syntax error (as
diagnostics word it) or the same first build error."""
from __future__ import annotations

import pickle
import re
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Tree
from lark.exceptions import UnexpectedInput
from pydantic import BaseModel

from rulebook.grammar import lalr
from rulebook.grammar.builder import READING, _Builder, _BuildError
from rulebook.grammar.source import StatementTooLong
from rulebook.grammar.parser import _BUILD, parse_text, parse_tree, tree_parser
from rulebook.grammar.syntax_errors import describe_syntax_error

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rulesets").rglob("*.rules"))
NAME = "t.rules"


def canon(value):
    """Everything about a tree that can differ: classes, fields in order, fields set."""
    if isinstance(value, BaseModel):
        return (type(value).__name__, tuple((k, canon(v)) for k, v in value.__dict__.items()),
                tuple(sorted(value.__pydantic_fields_set__)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(canon(v) for v in value))
    return (type(value).__name__, value)


def reference(text: str):
    """('ok', tree) or ('error', what): Lark's parse tree, built node by node."""
    try:
        tree = parse_tree(text)
    except StatementTooLong as e:
        return ("error", ("E0007", e.tok.line, e.tok.column))
    except UnexpectedInput as e:
        return ("error", describe_syntax_error(e, text, NAME))
    lines = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    builder = _Builder()

    def build(node):
        if not isinstance(node, Tree):
            return node  # a token, or None for a missing `[optional]` part
        children = [build(child) for child in node.children]
        meta = node.meta
        where = (-1, -1, lines) if meta.empty else (meta.start_pos, meta.end_pos, lines)
        return builder.method(str(node.data))(children, where)

    reading = READING.set(NAME)
    try:
        return ("ok", canon(build(tree)))
    except _BuildError as e:
        return ("error", _build_error(e))
    finally:
        READING.reset(reading)


def _build_error(e: _BuildError):
    tok = e.tok
    return (e.code, e.message, e.hint, getattr(tok, "line", None), getattr(tok, "column", None))


def ours(text: str):
    reading = READING.set(NAME)
    try:
        return ("ok", canon(_BUILD.parse(text, "start")))
    except StatementTooLong as e:
        return ("error", ("E0007", e.tok.line, e.tok.column))
    except UnexpectedInput as e:
        return ("error", describe_syntax_error(e, text, NAME))
    except _BuildError as e:
        return ("error", _build_error(e))
    finally:
        READING.reset(reading)


@pytest.fixture(autouse=True)
def _deep_enough():
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, 20_000))  # the reference builds recursively
    yield
    sys.setrecursionlimit(previous)


@pytest.mark.parametrize("name", FILES)
def test_every_bundled_file_gives_lark_s_tree(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    expected = reference(text)
    assert expected[0] == "ok"
    assert ours(text) == expected


TRICKY = [
    "",
    "\n\n",
    "game",
    'game "G" {\n    players 2\n}\n',
    'game "G" {\n    players 2\n}\nsetx = 1\n',  # a keyword glued to a name
    'game "G" {\n    players 2\n}\nconst x = setper player\n',  # glued to a two-word terminal
    'game "G" {\n    players 2\n}\nconst a = (1 +\n   2) * [3,\n 4][0]\n',  # newlines in brackets
    'game "G" {\n    players 2\n}\nconst a = 1 +\n',
    'game "G" {\n    players 2\n}\nconst a = "\\q"\nconst = 1\n',  # build error, then syntax
    'game "G" {\n    players 2\n}\nconst a = "{1 +}"\n',  # a hole that does not parse
    'game "G" {\n    players 2\n}\nconst a = 99999999999999999999\n',
    'game "G" {\n    players 2\n}\nconst a = 1 ~ 2\n',  # a character no terminal starts with
    'game "G" {\n    players 2\n}\nconst a = "never closed\n',
    'game "G" {\n    players 2\n}\nsetup {\n    set x = 1 \\\n      + 2\n}\n',  # continued
    'game "G" {\n    players 2\n}\n# only a comment',
    'game "G" {\n    players 2\n}\nconst a = 1 # and a comment',
    "const a = (((((1)))))\n",
    "const a = " + "+".join(["1"] * 30_000) + "\n",  # a statement too long
    'game "G" {\n    players 2\n}\nglobal x: int = 0 public\nsetup {\n    if x == 1 {\n    }\n'
    '    else {\n    }\n}\n',
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_inputs_give_what_lark_gives(text):
    assert ours(text) == reference(text)


def _mutants(count: int, seed: int):
    rng = random.Random(seed)
    pieces = list('{}()[]"\n #=.,:+-*/<>!|?\\_\t') + [
        "set", "if ", "else", "{x}", '"{', "\\u{41}", "player", "..", "  ", "# c\n", "not in",
        "sum(", "per player", "x"]
    for _ in range(count):
        name = rng.choice(FILES)
        text = (ROOT / name).read_text(encoding="utf-8")
        for _ in range(rng.choice([1, 1, 2, 3])):
            at = rng.randrange(len(text) + 1)
            kind = rng.random()
            if kind < 0.4:
                text = text[:at] + text[at + rng.randint(1, 4):]
            elif kind < 0.85:
                text = text[:at] + rng.choice(pieces) + text[at:]
            else:
                other = rng.randrange(len(text) + 1)
                text = text[:at] + text[other:other + rng.randint(1, 30)] + text[at:]
        yield name, text


@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_give_what_lark_gives(seed):
    for name, text in _mutants(40, seed):
        assert ours(text) == reference(text), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FILES), st.lists(st.tuples(st.floats(0, 1), st.lists(st.sampled_from(
    list('{}()[]"\n #=.,:+-\\_xs0') + ["set", "else", "if ", "player"]), max_size=3).map(
    "".join)), min_size=1, max_size=3))
def test_edits_anywhere_give_what_lark_gives(name, edits):
    text = (ROOT / name).read_text(encoding="utf-8")
    for where, piece in edits:
        at = int(where * len(text))
        text = text[:at] + piece + text[at + (1 if not piece else 0):]
    assert ours(text) == reference(text)


def test_a_parse_inside_a_parse_leaves_the_outer_one_as_it_was():
    text = 'game "G" {\n    players 2\n}\nsetup {\n    log "{a.b} and {c}"\n    log "x"\n}\n'
    assert ours(text) == reference(text)
    program = parse_text(text, NAME)
    second = program.declarations[0].body[1]
    assert (second.span.line, second.span.column) == (6, 5)


def test_the_tables_hold_plain_strings():
    tables = lalr.Tables(tree_parser())
    names = {*tables.start_states, *tables.lhs, *tables.kept, *tables.ignore, *tables.newline}
    names |= {symbol for row in tables.actions for symbol in row}
    for _, _, unless, allowed in [*tables.lexers, tables.root]:
        names |= set(allowed) | set(unless)
        names |= {w for words in unless.values() for pair in words.items() for w in pair}
    assert names and all(type(n) is str for n in names)  # noqa: E721 - not a str subclass


def test_tables_from_the_cache_parse_as_fresh_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fresh = lalr.Tables(tree_parser())
    again = pickle.loads(pickle.dumps(fresh))
    assert again.__dict__ == fresh.__dict__
    monkeypatch.setattr(lalr, "_TABLES", None)
    first = lalr.load_tables()  # made and stored
    monkeypatch.setattr(lalr, "_TABLES", None)
    assert lalr.load_tables().__dict__ == first.__dict__  # read back


def test_each_state_lexes_with_the_expression_lark_builds():
    lark = tree_parser()
    tables = lalr.Tables(lark)
    contextual = lark.parser.lexer.lexer
    for state, lexer in contextual.lexers.items():
        pattern, flags, unless, allowed = tables.lexers[tables.lexer_of[state]]
        scanner = lexer.scanner
        assert [pattern] == [mre.pattern for mre in scanner._mres]
        assert re.compile(pattern, flags).flags == scanner._mres[0].flags
        assert allowed == (scanner.allowed_types - lexer.ignore_types or {"<END-OF-FILE>"})
        assert unless.keys() == lexer.callback.keys()
        for kind, words in unless.items():
            for word, keyword in words.items():
                assert lexer.callback[kind].scanner.fullmatch(word) == keyword
