"""Inline suppression: `# rulebook: ignore[W0201]` (several codes: `ignore[W0201, W0205]`).

A comment after code on a line suppresses the codes named on that line. A comment on a line of its
own suppresses them in what the next line of code starts: the whole block when that line opens
one with `{` (a declaration, a phase, a step, an option...), else that statement with its
continuation lines. Codes may be prefixes (`W02`), as for `--ignore`. Comments are found in the
source text (strings and comments told apart as the formatter does, grammar/source.py), so
the grammar is unchanged.

A suppression that suppresses nothing is itself reported (W0210), as is one that names an error
(errors cannot be suppressed), a code that does not exist or no code at all (W0211).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..grammar.source import _STRING_OR_COMMENT
from .diagnostics import Diagnostic

UNUSED = "W0210"
INVALID = "W0211"
_DIRECTIVE = re.compile(r"rulebook\s*:\s*ignore\b\s*(?:\[([^\]]*)\])?")


@dataclass
class Suppression:
    line: int  # where the comment is
    column: int
    first: int  # the lines it covers
    last: int
    codes: list[str]
    width: int = 1  # of the comment, to underline it
    used: set[str] = field(default_factory=set)

    def covers(self, d: Diagnostic) -> str | None:
        """The code of this suppression that silences ``d``, if any."""
        if d.line is None or not (self.first <= d.line <= self.last):
            return None
        return next((c for c in self.codes if d.code.startswith(c)), None)


def find_suppressions(text: str, file: str, known: set[str]) -> tuple[list[Suppression],
                                                                      list[Diagnostic]]:
    """The suppressions written in ``text``, and what is wrong with any of them."""
    if "rulebook" not in text:  # most files: nothing to look for
        return [], []
    comments = [(line, col, body) for line, col, body in _comments(text) if "rulebook" in body]
    if not comments:
        return [], []
    lines = text.split("\n")  # the parser counts lines by "\n" alone
    masked = _STRING_OR_COMMENT.sub(lambda mo: " " * len(mo.group(0)), text).split("\n")
    found: list[Suppression] = []
    problems: list[Diagnostic] = []
    spans: dict[int, tuple[int, int]] = {}
    next_code: list[int] | None = None
    for line, col, body in comments:
        mo = _DIRECTIVE.search(body)
        if mo is None:
            continue
        here = {"file": file, "line": line, "column": col, "end_line": line,
                "end_column": col + len(body), "severity": "warning"}
        codes = [c.strip() for c in (mo.group(1) or "").split(",") if c.strip()]
        if not codes:
            problems.append(Diagnostic(
                INVALID, "this suppression names no code", hint="name the codes it is for: "
                "`# rulebook: ignore[W0201]`", **here))
            continue
        good = []
        for code in codes:
            why = _invalid(code, known)
            if why:
                problems.append(Diagnostic(INVALID, f"`{code}` cannot be suppressed: {why}",
                                           hint="suppress warnings (W codes) by their code; "
                                                "`rulebook explain CODE` describes one",
                                           **here))
            else:
                good.append(code)
        if not good:
            continue
        own_line = not lines[line - 1][: col - 1].strip()
        if not own_line:
            first, last = line, line
        else:
            if next_code is None:
                next_code = _next_code_lines(masked)
            start = next_code[line] if line < len(next_code) else len(masked)
            if start >= len(masked):  # no code after it: it covers its own line
                first, last = line, line
            else:
                if start not in spans:  # several comments before one block share its scan
                    spans[start] = _covered(masked, start)
                first, last = spans[start]
        found.append(Suppression(line, col, first, last, good, len(body)))
    return found, problems


def _comments(text: str):
    """(line, column, text) of each comment, in one pass (a file may hold many)."""
    line, line_start, counted = 1, 0, 0
    for mo in _STRING_OR_COMMENT.finditer(text):
        if not mo.group(0).startswith("#"):
            continue
        start = mo.start()
        line += text.count("\n", counted, start)
        counted = start
        line_start = text.rfind("\n", 0, start) + 1
        yield line, start - line_start + 1, mo.group(0)


def _invalid(code: str, known: set[str]) -> str | None:
    if code.startswith("E"):
        return "errors cannot be suppressed (the engine would refuse or fail on the file)"
    if not any(k.startswith(code) for k in known if k.startswith("W")):
        return "no warning has this code"
    return None


def _next_code_lines(masked: list[str]) -> list[int]:
    """For each line index i, the index of the first line from i on that holds code (or
    len(masked)); ``masked`` is the text with strings and comments blanked."""
    out = [len(masked)] * (len(masked) + 1)
    for i in range(len(masked) - 1, -1, -1):
        out[i] = i if masked[i].strip() else out[i + 1]
    return out


def _covered(masked: list[str], start: int) -> tuple[int, int]:
    """The lines (1-based) of what the line of index ``start`` begins: up to its block's closing
    brace when it opens one, else to the end of its continuation lines."""
    depth = 0
    for index in range(start, len(masked)):
        text = masked[index]
        for ch in text:
            if ch in "{([":
                depth += 1
            elif ch in "})]":
                depth -= 1
        if depth <= 0 and not text.rstrip().endswith("\\"):
            return start + 1, index + 1
    return start + 1, len(masked)


def _by_line(suppressions: list[Suppression]) -> dict[int, list[list[Suppression]]]:
    """The suppressions covering each line. Suppressions of one block share its lines, so the
    index grows with the lines of distinct blocks, not with the number of comments."""
    groups: dict[tuple[int, int], list[Suppression]] = {}
    for s in suppressions:
        groups.setdefault((s.first, s.last), []).append(s)
    index: dict[int, list[list[Suppression]]] = {}
    for (first, last), group in groups.items():
        for line in range(first, last + 1):
            index.setdefault(line, []).append(group)
    return index


def apply_suppressions(diagnostics: list[Diagnostic], sources: dict[str, str],
                       report_unused: set[str], known: set[str]) -> list[Diagnostic]:
    """``diagnostics`` less the warnings suppressed in their files, plus the W0210 and W0211
    warnings of the files in ``report_unused`` (the files checked: a file read only as the game
    a variant extends keeps its warnings for its own check)."""
    # Files are compared by their real paths: a result taken from the check's cache names its
    # files as the run that stored it did (`rulesets/x.rules` or `/abs/rulesets/x.rules`).
    texts = {os.path.realpath(name): (name, text) for name, text in sources.items()}
    by_file: dict[str, list[Suppression]] = {}
    names: dict[str, str] = {}
    out: list[Diagnostic] = []
    for file in report_unused:
        real = os.path.realpath(file)
        if real in texts and real not in by_file:
            names[real] = file
            by_file[real], problems = find_suppressions(texts[real][1], file, known)
            out.extend(problems)
    by_line = {real: _by_line(suppressions) for real, suppressions in by_file.items()}
    for d in diagnostics:
        index = by_line.get(os.path.realpath(d.file)) if d.file else None
        if d.is_error or not index or d.line not in index:
            out.append(d)
            continue
        hits = [(s, s.covers(d)) for group in index[d.line] for s in group]
        hits = [(s, c) for s, c in hits if c]
        for s, code in hits:
            s.used.add(code)
        if not hits:
            out.append(d)
    for real, suppressions in by_file.items():
        file = names[real]
        for s in suppressions:
            for code in s.codes:
                if code not in s.used:
                    out.append(Diagnostic(
                        UNUSED, f"`# rulebook: ignore[{code}]` suppresses nothing here",
                        severity="warning", file=file, line=s.line, column=s.column,
                        end_line=s.line, end_column=s.column + s.width,
                        hint="remove the code from the comment (or the comment), or move it "
                             "to the line it is meant for"))
    return out
