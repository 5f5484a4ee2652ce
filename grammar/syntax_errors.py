"""Turn Lark's parse errors into diagnostics in a designer's words."""
from __future__ import annotations

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

import re

from ..validator.diagnostics import Diagnostic

# How each terminal is called in messages. Keyword terminals are named after their text.
_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": 'a string ("...")', "_NL": "the end of the line",
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`",
    "COMMA": "`,`", "COLON": "`:`", "EQUAL": "`=`", "DOT": "`.`", "VBAR": "`|`",
    "QMARK": "`?`", "MINUS": "`-`", "COMP_OP": "a comparison (`==`, `<`, ...)",
    "ADD_OP": "`+` or `-`", "MUL_OP": "`*`, `/` or `%`", "SCOPE": "`global` or `player`",
    "VISIBILITY": "`public`, `owner` or `secret`", "CHANGE": "`increase` or `decrease`",
    "AGG": "`sum`, `max` or `min`", "QUANT": "`count`, `any`, `all`, `first` or `filter`",
    "DIRECTION": "`ascending` or `descending`", "TIE_RULE": "`share`, `none` or `all`",
    "MOD_OP": "`+=`, `-=`, `*=` or `:=`", "PLACE": "`top` or `bottom`", "OPTIONAL": "`optional`",
    "$END": "the end of the file", "__ANON_0": "`..`",
}

MAX_LISTED = 8


def _word(term: str) -> str:
    if term in _WORDS:
        return _WORDS[term]
    low = term.lower()
    if term.isupper() and low.isalpha():
        return f"`{low}`"
    return f"`{term}`"


def _expected_list(expected) -> str:
    words = sorted({_word(t) for t in expected})
    if len(words) > MAX_LISTED:
        return ", ".join(words[:MAX_LISTED]) + f", or one of {len(words) - MAX_LISTED} more"
    if len(words) > 1:
        return ", ".join(words[:-1]) + " or " + words[-1]
    return words[0] if words else "something else"


STATEMENT_START = {"SET", "LET", "IF"}  # present in the expected set only where a statement may begin
ASSIGNMENT_AHEAD = re.compile(r"\s*(\.\w+|\[[^\]\n]*\])*\s*=(?!=)")


def _named_mistake(tok, expected, text: str):
    value = str(tok)
    lines = text.splitlines()
    line = lines[tok.line - 1] if tok.line and tok.line <= len(lines) else ""
    first_word = line.lstrip().split(" ", 1)[0]
    if tok.type == "ELSE" or (value == "else" and line.strip().startswith("else")):
        return ("E0103", "`else` must follow the closing `}` on the same line",
                "write `} else {` rather than putting `else` on a new line")
    if tok.type == "NAME" and STATEMENT_START <= set(expected):
        rest = line[tok.column - 1 + len(value):]
        if ASSIGNMENT_AHEAD.match(rest):
            return ("E0106", f"`{value} = ...` changes a value, so it needs `set`: write `set {value} = ...`",
                    "statements begin with a word: `set x = 1`, `increase x by 1`")
        return ("E0108", f"`{value}` cannot start a statement",
                "statements begin with a keyword such as `set`, `let`, `move`, `if`, `for`, `choose`")
    if tok.type == "EQUAL" and "EQUAL" not in expected and "NAME" not in expected:
        if first_word in ("global", "player") and "COLON" in expected:
            return ("E0115", "state needs a type before its value: `global name: int = 0`",
                    "write `: type` after the name, for example `player coins: int = 3`")
        if "MOD_OP" in expected:
            return ("E0112", "a modifier changes a value with `+=`, `-=`, `*=` or `:=`, not `=`",
                    "write for example `modifier cheaper: price(p) -= 1`")
        if "COLON" in expected:
            return ("E0113", "fields are written `name: value` (or `name: type`), not with `=`",
                    "replace `=` with `:`")
        if first_word == "procedure":
            return ("E0114", "a procedure's body is a block `{ ... }`, not `= value`",
                    "use `define name(params) = value` for a value, `procedure name(params) { ... }` for steps")
        return ("E0102", "`=` assigns; to compare two values write `==`",
                "write `a == b` in conditions, and `set a = b` to change a value")
    if tok.type == "_NL" and "LBRACE" in expected:
        return ("E0107", "expected `{` to open a block on this line",
                "put the opening `{` at the end of the line that starts the block")
    word = _WORD_BEFORE.search(line[:max(0, tok.column - 1)])
    if set(expected) == {"LPAR"} and word and word.group(1) in _reserved_words():
        name = word.group(1)  # `first == 1`: a name bound with a word of the language
        return ("E0100", f"`{name}` is a word of the language (`{name}(...)`), so it cannot name "
                         "a value here",
                f"write `{name}(...)` to use it; a value of yours named `{name}` (a `let`, a "
                f"parameter) needs another name, such as `the_{name}`")
    return None


_WORD_BEFORE = re.compile(r"(\w+)\s*$")


def _reserved_words() -> frozenset:
    from ..validator.semantic import RESERVED_WORDS  # only when a file fails to parse

    return RESERVED_WORDS


def describe_syntax_error(err: UnexpectedInput, text: str, name: str) -> Diagnostic:
    if isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    ):
        lines = text.splitlines() or [""]
        expected = getattr(err, "expected", None) or getattr(err, "accepts", None) or set()
        return Diagnostic(
            "E0101", f"the file ended unexpectedly; expected {_expected_list(expected)}",
            file=name, line=len(lines), column=len(lines[-1]) + 1,
            hint="a block or bracket is probably not closed: check every `{`, `(` and `[`")
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        if ch == '"':
            return Diagnostic("E0109", "this string is never closed", file=name, line=err.line,
                              column=err.column, end_line=err.line, end_column=err.column + 1,
                              hint='close it with `"` on the same line; write \\" for a quote inside')
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        return Diagnostic("E0100", f"unexpected character `{shown}`", file=name, line=err.line,
                          column=err.column, end_line=err.line, end_column=err.column + 1,
                          hint=f"expected {_expected_list(err.allowed or [])}")
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    expected = err.accepts or err.expected or set()
    named = _named_mistake(tok, expected, text)
    end = dict(end_line=tok.end_line or tok.line,
               end_column=tok.end_column or (tok.column + max(1, len(str(tok)))))
    if named:
        code, msg, hint = named
        return Diagnostic(code, msg, file=name, line=tok.line, column=tok.column, hint=hint, **end)
    shown = "end of line" if tok.type == "_NL" else f"`{tok}`"
    return Diagnostic("E0100", f"unexpected {shown}", file=name, line=tok.line,
                      column=tok.column, hint=f"expected {_expected_list(expected)}", **end)
