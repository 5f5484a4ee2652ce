"""From text to the typed AST: read (grammar/source.py), parse with Lark's LALR tables and
contextual lexer (grammar/lalr.py) building the nodes as it goes (grammar/builder.py), and check
the depth of the result.

Every failure becomes a ``Diagnostic``; nothing a user writes can raise a Python traceback.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedInput

from ..validator.diagnostics import Diagnostic, DiagnosticError
from . import ast as A
from . import cache as _cache  # noqa: F401 - fingerprints the code now, as it is loaded
from .builder import READING, InlineBuild, _BuildError
from .source import (  # noqa: F401 - re-exported: the reading functions are part of this API
    _STRING_OR_COMMENT, MAX_FILE_BYTES, MAX_NESTING, MAX_STATEMENT_TOKENS, StatementTooLong,
    _check_nesting, comments_of, decode_source, read_source,
)
from .syntax_errors import describe_syntax_error

MAX_TREE_DEPTH = 120

GRAMMAR_FILE = Path(__file__).with_name("rules.lark")


_WORD = re.compile(r"\w+")


class _BracketNewlines:
    """Newlines end statements, except inside ( ) and [ ] where an expression may span lines.

    It also keeps keywords whole: where only keywords are expected, the lexer would read `setx`
    as `set x`; a keyword glued to the letters after it becomes one NAME, so the parser reports
    `setx` itself. `text` is the source being parsed (set before each parse).

    This is Lark's post-lexer, for Lark's own parse (`parse_tree`); `parse_text` parses with
    grammar/lalr.py, whose loop does the same (tests/test_lalr.py compares the two)."""

    always_accept = ("_NL",)
    text = ""

    def process(self, stream):
        text = self.text
        size = len(text)
        depth = 0
        skip_to = -1
        count = 0
        for tok in stream:
            count += 1
            if count > MAX_STATEMENT_TOKENS:
                raise StatementTooLong(tok)
            kind = tok.type
            end = tok.end_pos
            if tok.start_pos < skip_to:
                continue  # the rest of a word already given as one NAME
            if kind != "NAME" and (end < size and (text[end].isalnum() or text[end] == "_")
                    and tok.value[-1:].isalnum()):
                word = _WORD.match(text, tok.start_pos).group(0)
                tok = Token.new_borrow_pos("NAME", word, tok)
                tok.end_pos = tok.start_pos + len(word)
                tok.end_column = tok.column + len(word)
                skip_to = tok.end_pos
                kind = "NAME"
            if kind == "LPAR" or kind == "LSQB":
                depth += 1
            elif kind == "RPAR" or kind == "RSQB":
                depth = max(0, depth - 1)
            elif kind == "_NL":
                if depth > 0:
                    continue
                count = 0
            yield tok


def _grammar_cache() -> str | bool:
    """Where Lark keeps its analysed grammar: the user's own cache folder (never a shared
    temporary folder, where another user could plant the file Lark unpickles)."""
    from .cache import cache_dir

    folder = cache_dir()
    if folder is None:
        return False
    digest = hashlib.sha256(GRAMMAR_FILE.read_bytes()).hexdigest()[:16]
    return str(folder / f"grammar-{digest}.lark-cache")


def _lark() -> Lark:
    return Lark(
        GRAMMAR_FILE.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=_BracketNewlines(),
        start=["start", "expr"],
        cache=_grammar_cache(),
    )


@lru_cache(maxsize=1)
def tree_parser() -> Lark:
    """Lark on its own, building its parse tree: the analysis grammar/lalr.py takes its tables
    from, and what tools, tests and the benchmarks compare `parse_text` with."""
    return _lark()


_BUILD = InlineBuild()


def _parse(text: str, start: str):
    """Parse and build: the AST of `text` (raises Lark's error, else the first build error)."""
    return _BUILD.parse(text, start)


def parse_tree(text: str, start: str = "start"):
    """Lark's own parse tree of `text` (for tools and benchmarks; `parse_text` builds none)."""
    parser = tree_parser()
    parser.options.postlex.text = text
    return parser.parse(text, start=start)


# ------------------------------------------------------------------------------- helpers


def _deepest(node) -> tuple[int, A.Node]:
    """Nesting depth of the tree and its deepest node (iteratively: it may be very deep); only
    for a tree too deep, where the depth alone is `A.nesting_depth`."""
    best, where = 0, node
    stack = [(node, 1)]
    Node = A.Node
    while stack:
        n, d = stack.pop()
        if isinstance(n, Node):
            fields = n.__dict__  # the fields, in their declared order
            if d > best and fields["span"] is not None:
                best, where = d, n
            for v in fields.values():
                if isinstance(v, (Node, list)):
                    stack.append((v, d + 1))
        elif isinstance(n, list):
            for v in n:
                stack.append((v, d))
    return best, where


def parse_text(text: str, name: str = "<input>") -> A.Program:
    """Parse rules text into a Program, or raise DiagnosticError (which carries the text)."""
    try:
        return _parse_program(text, name)
    except DiagnosticError as e:
        raise DiagnosticError(e.diagnostics, {**e.sources, name: text})


def _parse_program(text: str, name: str) -> A.Program:
    _check_nesting(text, name)
    reading = READING.set(name)
    try:
        prog = _parse(text, "start")
    except UnexpectedInput as e:
        raise DiagnosticError([describe_syntax_error(e, text, name)])
    except RecursionError:
        raise DiagnosticError([Diagnostic("E0007", "the file is nested too deeply to read",
                                          file=name, hint="split deep expressions with `let`")])
    except StatementTooLong as e:
        raise DiagnosticError([Diagnostic(
            "E0007", f"a statement longer than {MAX_STATEMENT_TOKENS:,} words and symbols",
            file=name, line=e.tok.line, column=e.tok.column,
            hint="split it with `let`, a `define`, or a table")])
    except _BuildError as e:
        loc = {}
        if e.tok is not None and getattr(e.tok, "line", None) is not None:
            loc = dict(line=e.tok.line, column=e.tok.column,
                       end_line=getattr(e.tok, "end_line", None),
                       end_column=getattr(e.tok, "end_column", None))
        raise DiagnosticError([Diagnostic(e.code, e.message, file=name, hint=e.hint, **loc)])
    except Exception as e:  # noqa: BLE001 - a builder bug must still not show a traceback
        raise DiagnosticError([Diagnostic(
            "E0199", f"internal error while reading the rules ({type(e).__name__}: {e})",
            file=name, hint="please report this with the file that caused it")])
    finally:
        READING.reset(reading)
    if A.nesting_depth(prog) > MAX_TREE_DEPTH:
        depth, deepest = _deepest(prog)
        raise DiagnosticError([Diagnostic(
            "E0007", f"the rules are nested more than {MAX_TREE_DEPTH} levels deep", file=name,
            line=deepest.span.line, column=deepest.span.column,
            hint="split long expressions with `let` or a `define`")])
    return prog


def parse_file(path: str | Path) -> A.Program:
    return parse_text(read_source(path), str(path))


def parse_expression(text: str) -> A.Node:
    """Parse a single expression (used by tools and tests)."""
    try:
        return _parse(text, "expr")
    except UnexpectedInput as e:
        raise DiagnosticError([describe_syntax_error(e, text, "<expression>")])
    except _BuildError as e:
        raise DiagnosticError([Diagnostic(e.code, e.message, file="<expression>", hint=e.hint)])
