"""Lark's analysed LALR(1) tables and contextual lexer, driven by a loop of our own.

Lark analyses `rules.lark` (grammar/parser.py, `tree_parser`); `Tables` takes from that
analysis what parsing needs, as plain data: each state's actions, each rule's shape (what Lark's
tree builder would keep of its children) and each state's lexer (the regular expression and the
keyword table Lark's contextual lexer compiled for it). The tables are kept in the user's cache
folder, so a process that parses builds no Lark object at all.

`run` then lexes and parses in one loop, as Lark's `ParserState.feed_token` and
`ContextualLexer.lex` do with the post-lexer of grammar/parser.py (newlines inside `( )` and
`[ ]`, keywords kept whole, the statement length limit), but with no object per token or per
reduction beyond what the builder keeps. A stack entry is `(value, start, end)`: the value built
(a node, or the entries of an inlined `_rule`), and the text it covers as offsets (-1 for an empty
rule), which is what Lark's `propagate_positions` reads; a token's entry is `(token, start, end,
type)`, its token None when no rule keeps tokens of its type. Syntax errors are raised
as the exceptions Lark raises, with the same token, expected set and `accepts`.
"""
from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from .source import MAX_STATEMENT_TOKENS, StatementTooLong

TABLES_FORMAT = 1
_WORD = re.compile(r"\w+")


class _UnexpectedToken(UnexpectedToken):
    """Lark's UnexpectedToken, with the `accepts` Lark's interactive parser would compute."""

    def __init__(self, token, expected, accepts):
        super().__init__(token, expected)
        self._found = accepts

    @property
    def accepts(self):
        return self._found


def rule_shape(rule) -> tuple:
    """What Lark's tree builder (with `maybe_placeholders`) does with a reduced rule's children:
    (name of its builder method, inlined `_rule`?, `?rule` passing one child on?, [(index,
    inline it?, Nones before it)], Nones after)."""
    expansion = rule.expansion
    empty = rule.options.empty_indices
    if empty:
        bits = "".join(str(int(b)) for b in empty)
        nones = [len(ones) for ones in bits.split("0")]
    else:
        nones = [0] * (len(expansion) + 1)
    keep_all = rule.options.keep_all_tokens
    include, pending = [], 0
    for i, sym in enumerate(expansion):
        pending += nones[i]
        if keep_all or not (sym.is_term and sym.filter_out):
            include.append((i, not sym.is_term and sym.name.startswith("_"), pending))
            pending = 0
    name = str(rule.alias or rule.options.template_source or rule.origin.name)
    return (name, rule.origin.name.startswith("_"), bool(rule.options.expand1) and not rule.alias,
            tuple(include), pending + nones[len(expansion)])


class Tables:
    """What the parse needs of Lark's analysis, as plain data (kept pickled in the cache)."""

    def __init__(self, lark):
        from lark.parsers.lalr_analysis import Shift

        parse_table = lark.parser.parser.parser.parse_table
        contextual = lark.parser.lexer.lexer
        rules: dict = {}
        # Names as plain strings: Lark's are sometimes its Tokens, whose `==` is Python code.
        self.start_states = {str(k): v for k, v in parse_table.start_states.items()}
        self.end_states = {str(k): v for k, v in parse_table.end_states.items()}
        size = max(parse_table.states) + 1
        self.actions: list[dict[str, int]] = [{} for _ in range(size)]
        for state, row in parse_table.states.items():
            out = self.actions[state]
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    out[str(symbol)] = arg
                else:
                    out[str(symbol)] = ~rules.setdefault(arg, len(rules))
        ordered = sorted(rules, key=rules.get)
        self.lhs = [str(r.origin.name) for r in ordered]
        self.sizes = [len(r.expansion) for r in ordered]
        self.shapes = [rule_shape(r) for r in ordered]
        self.kept = frozenset(
            str(sym.name) for r in ordered for sym in r.expansion
            if sym.is_term and (r.options.keep_all_tokens or not sym.filter_out))
        lexers: dict = {}
        self.lexer_of = [0] * size
        for state, lexer in contextual.lexers.items():
            self.lexer_of[state] = lexers.setdefault(id(lexer), (len(lexers), lexer))[0]
        by_index = sorted(lexers.values())
        self.lexers = [_lexer_data(lexer) for _, lexer in by_index]
        self.root = _lexer_data(contextual.root_lexer)
        root = contextual.root_lexer
        self.ignore = frozenset(map(str, root.ignore_types))
        self.newline = frozenset(map(str, root.newline_types))
        if any(lexer.newline_types - self.newline or lexer.ignore_types != self.ignore
               for _, lexer in by_index):
            raise RuntimeError("Lark's lexers disagree on which terminals are ignored")


def _lexer_data(lexer) -> tuple:
    """(regular expression, flags, {type: {text: keyword type}}, allowed types) of one of Lark's
    basic lexers: what its `next_token` matches with, and what its UnlessCallbacks do. Worked
    out as Lark's `_build_scanner` does, without compiling the expression (a parse compiles the
    lexers it needs); tests/test_lalr.py compares it with the scanner Lark builds."""
    from lark.lexer import PatternStr, UnlessCallback, _create_unless

    if lexer.user_callbacks:
        raise RuntimeError("this version of Lark lexes in a way rulebook does not follow")
    terminals, callbacks = _create_unless(lexer.terminals, lexer.g_regex_flags, lexer.re,
                                          lexer.use_bytes)
    unless = {}
    for kind, callback in callbacks.items():
        if not isinstance(callback, UnlessCallback):
            raise RuntimeError("this version of Lark lexes in a way rulebook does not follow")
        words: dict[str, str] = {}
        for term in callback.scanner.terminals:
            if not isinstance(term.pattern, PatternStr) or term.pattern.flags:
                raise RuntimeError("a keyword that is not a plain string")
            words.setdefault(str(term.pattern.value), str(term.name))  # the first one wins
        unless[str(kind)] = words
    pattern = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
    allowed = {str(t.name) for t in terminals} - set(map(str, lexer.ignore_types))
    return (pattern, lexer.g_regex_flags, unless, frozenset(allowed or {"<END-OF-FILE>"}))


class Lexers:
    """What a process parses with, made from the tables: each state's compiled lexer (compiled
    when a parse first needs it), and the runs of reductions worked out so far."""

    def __init__(self, tables: Tables):
        self.tables = tables
        self.states_of: dict[int, list[int]] = {}  # a lexer's index -> the states it lexes in
        for state, index in enumerate(tables.lexer_of):
            self.states_of.setdefault(index, []).append(state)
        self.match = [self._stub(i) for i in tables.lexer_of]
        self.unless = [tables.lexers[i][2] or None for i in tables.lexer_of]
        self.act_of = [row.get for row in tables.actions]
        self.special = {kind: (_NEWLINE if kind in tables.newline else 0)
                        | (_IGNORED if kind in tables.ignore else 0)
                        for kind in tables.newline | tables.ignore}
        self.chains: dict[tuple, int] = {}  # see _after_passing_on
        self.root = None

    def _stub(self, index: int):
        def compile_then_match(text, pos):
            match = self._compile(index)
            return match(text, pos)
        return compile_then_match

    def _compile(self, index: int):
        pattern, flags, _, _ = self.tables.lexers[index]
        match = re.compile(pattern, flags).match
        for state in self.states_of[index]:
            self.match[state] = match
        return match

    def root_match(self):
        if self.root is None:
            pattern, flags, _, _ = self.tables.root
            self.root = re.compile(pattern, flags).match
        return self.root


def _token(kind, value, start, line, column, end_line, end_column, end) -> Token:
    """Lark's Token, made without its constructor's argument handling."""
    tok = str.__new__(Token, value)
    tok.type = kind
    tok.value = value
    tok.start_pos = start
    tok.line = line
    tok.column = column
    tok.end_line = end_line
    tok.end_column = end_column
    tok.end_pos = end
    return tok


def _position(text: str, pos: int) -> tuple[int, int]:
    """(line, column) of an offset, as Lark's line counter has it."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def _token_at(text, kind, start, end) -> Token:
    line, column = _position(text, start)
    end_line, end_column = _position(text, end)
    return _token(kind, text[start:end], start, line, column, end_line, end_column, end)


def _accepts(tables: Tables, stack: list[int], end_state: int) -> set[str]:
    """The terminals that would move the parser on from `stack` (Lark's `accepts()`: a shift,
    or for the end of the text, reductions up to the end state)."""
    actions, lhs, sizes = tables.actions, tables.lhs, tables.sizes
    out = set()
    for term in actions[stack[-1]]:
        if not term.isupper():
            continue
        states = list(stack)
        while True:
            act = actions[states[-1]].get(term)
            if act is None:
                break
            if act >= 0:
                out.add(term)
                break
            r = ~act
            if sizes[r]:
                del states[-sizes[r]:]
            states.append(actions[states[-1]][lhs[r]])
            if term == "$END" and states[-1] == end_state:
                out.add(term)
                break
    return out


def _expected(tables: Tables, state: int) -> set[str]:
    return {s for s in tables.actions[state] if s.isupper()}


def run(tables: Tables, lexers: Lexers, text: str, start: str, reducers: list, lines: list):
    """Parse `text` from rule `start`; the value of the last reduction (see the module's note).

    `reducers[r](entries)` gives the entry of rule `r` reduced from its children's entries
    (None for the rules that pass their one child on unchanged); `lines` receives the offset
    where each line starts (for spans)."""
    actions = tables.actions
    act_of = lexers.act_of
    lhs = tables.lhs
    sizes = tables.sizes
    kept = tables.kept
    special = lexers.special
    brackets = _BRACKETS
    match = lexers.match
    unless = lexers.unless
    chains = lexers.chains
    state = tables.start_states[start]
    end_state = tables.end_states[start]
    states = [state]
    values: list = []
    n = len(text)
    pos = 0
    line, line_start = 1, 0
    depth = 0
    skip_to = -1
    count = 0
    entry = None  # the last token's entry
    at_end = False
    while True:
        if pos < n:
            m = match[state](text, pos)
            if m is None:
                raise _lex_error(tables, lexers, text, pos, line, line_start, states, end_state)
            kind = m.lastgroup
            end = m.end()
            value = None
            tok_line, tok_column = line, pos - line_start + 1
            how = special.get(kind)
            if how is not None:  # a terminal that may hold a newline, or one never parsed
                if how & _NEWLINE:
                    value = m.group()
                    breaks = value.count("\n")
                    if breaks:
                        line += breaks
                        line_start = pos + value.rindex("\n") + 1
                        at = text.find("\n", pos, end)
                        while at != -1:
                            lines.append(at + 1)
                            at = text.find("\n", at + 1, end)
                if how & _IGNORED:
                    pos = end
                    continue
            words = unless[state]
            if words is not None and kind in words:
                value = m.group()
                kind = words[kind].get(value, kind)
            count += 1
            if count > MAX_STATEMENT_TOKENS:
                raise StatementTooLong(_token_at(text, kind, pos, end))
            if pos < skip_to:
                pos = end  # the rest of a word already given as one NAME
                continue
            tok_end = end
            if kind != "NAME" and end < n and text[end - 1].isalnum() and (
                    text[end].isalnum() or text[end] == "_"):
                # A keyword glued to the letters after it (`setx`) is one NAME: the parser then
                # reports `setx` itself.
                value = _WORD.match(text, pos).group(0)
                kind = "NAME"
                tok_end = skip_to = pos + len(value)
            bracket = brackets.get(kind)
            if bracket is not None:
                if bracket:  # ( [ opened, ) ] closed
                    depth = depth + 1 if bracket > 0 else max(0, depth - 1)
                elif depth > 0:
                    pos = end  # a newline inside brackets: the expression goes on
                    continue
                else:
                    count = 0  # a newline: the statement ended
            if kind in kept:
                if value is None:
                    value = m.group()
                # (a glued keyword's NAME ends where its word does)
                tok = _token(kind, value, pos, tok_line, tok_column, line,
                             end - line_start + 1 if tok_end == end else tok_column + len(value),
                             tok_end)
                entry = (tok, pos, tok_end, kind)
            else:
                entry = (None, pos, tok_end, kind)
        else:  # the end of the text
            at_end = True
            kind = "$END"
        while True:
            act = act_of[state](kind)
            if act is None or (act >= 0 and at_end):
                raise _parse_error(tables, text, states, state, kind, entry, end_state)
            if act >= 0:
                states.append(act)
                values.append(entry)
                state = act
                break
            r = ~act
            reduce = reducers[r]
            if reduce is None:  # passes its one child on as it is; so may the next ones
                below = states[-2]
                key = (below, state, kind)
                top = chains.get(key)
                if top is None:
                    top = chains[key] = _after_passing_on(tables, reducers, below, state, kind)
                state = top
                states[-1] = state
            else:
                size = sizes[r]
                if size:
                    kids = values[-size:]
                    del values[-size:]
                    del states[-size:]
                else:
                    kids = []
                values.append(reduce(kids))
                state = actions[states[-1]][lhs[r]]
                states.append(state)
            if at_end and state == end_state:
                return values[-1]
        pos = end


_NEWLINE, _IGNORED = 1, 2
_BRACKETS = {"LPAR": 1, "LSQB": 1, "RPAR": -1, "RSQB": -1, "_NL": 0}


def _after_passing_on(tables: Tables, reducers: list, below: int, state: int, kind: str) -> int:
    """The state reached from `state` (above `below`) by the reductions that pass their one
    child on, one after another, before the next token `kind`: each replaces the top state by
    the goto of `below`, so the run depends on these three alone (worked out once each)."""
    actions, lhs = tables.actions, tables.lhs
    while True:
        act = actions[state].get(kind)
        if act is None or act >= 0 or reducers[~act] is not None:
            return state
        state = actions[below][lhs[~act]]


def _parse_error(tables, text, states, state, kind, entry, end_state):
    """The UnexpectedToken Lark raises for the token `kind` (its `entry`) at `state`."""
    if kind == "$END":
        if entry is None:  # an empty text
            tok = Token("$END", "", 0, 1, 1)
        else:  # where the last token was
            tok = Token.new_borrow_pos("$END", "", _as_token(text, entry))
    else:
        tok = _as_token(text, entry)
    return _UnexpectedToken(tok, _expected(tables, state), _accepts(tables, states, end_state))


def _as_token(text, entry) -> Token:
    tok, start, end, kind = entry
    if tok is not None:
        return tok
    return _token_at(text, kind, start, end)


def _lex_error(tables, lexers, text, pos, line, line_start, states, end_state):
    """What Lark's contextual lexer raises where no terminal of the state matches: the token the
    whole grammar's lexer reads there, as unexpected, else the characters."""
    allowed = set(tables.lexers[tables.lexer_of[states[-1]]][3])
    root = lexers.root_match()
    _, _, root_unless, _ = tables.root
    at = pos
    while at < len(text):
        m = root(text, at)
        if m is None:
            break
        kind = m.lastgroup
        if kind in tables.ignore:
            at = m.end()
            continue
        value = m.group()
        if kind in root_unless:
            kind = root_unless[kind].get(value, kind)
        tok = _token_at(text, kind, at, m.end())
        return _UnexpectedToken(tok, allowed, _accepts(tables, states, end_state))
    return UnexpectedCharacters(text, pos, line, pos - line_start + 1, allowed=allowed)


def load_tables() -> Tables:
    """The tables of `rules.lark`, from the cache when this code and Lark made them before."""
    global _TABLES
    if _TABLES is None:
        import lark

        from . import cache

        key = cache.key_of(f"lark {lark.__version__}, tables {TABLES_FORMAT}", "lalr-tables")
        tables = cache.load(key, ".tables")
        if not isinstance(tables, Tables):
            from .parser import tree_parser

            tables = Tables(tree_parser())
            cache.store(key, tables, ".tables")
        _TABLES = tables
    return _TABLES


_TABLES: Tables | None = None
