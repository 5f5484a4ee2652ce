"""Golden diagnostics: tests/golden/*.rules hold many small cases with their expected errors inline.

Format (after starlark-go's test files):
- cases are separated by a line holding only `---`;
- `### E0102 "regex"` at the end of a line expects a diagnostic with that code on that line whose
  message matches the regex; `### E0102@12 "regex"` also fixes the column;
- `### EOF E0101 "regex"` expects a diagnostic at the end of the case;
- `### E0201 "regex" help "regex"` also matches the diagnostic's hint (for "did you mean");
- a case without expectations must produce no diagnostic at all.
Each case is checked as its own file, beside a copy of golden/base/game.rules (for variants to
extend), and must give exactly the expected diagnostics.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from rulebook.validator.diagnostics import Diagnostic

GOLDEN = Path(__file__).parent / "golden"
BASE_GAME = GOLDEN / "base" / "game.rules"  # what variant cases extend, as "game.rules"
EXPECT = re.compile(r'###\s*(?P<eof>EOF\s+)?(?P<code>[EW]\d{4})(?:@(?P<col>\d+))?'
                    r'\s+"(?P<regex>(?:\\.|[^"\\])*)"(?:\s+help\s+"(?P<hint>(?:\\.|[^"\\])*)")?')


@dataclass(frozen=True)
class Expected:
    code: str
    line: int  # in the case; for EOF, the case's last line
    column: int | None
    regex: str
    eof: bool
    golden_line: int  # where the expectation is written, for failure messages
    hint: str | None = None


@dataclass
class Case:
    file: Path
    first_line: int  # line of the golden file where the case starts
    text: str  # the case with its expectation comments removed
    expected: list[Expected]

    @property
    def id(self) -> str:
        return f"{self.file.stem}:{self.first_line}"


def _unquote(regex: str) -> str:
    return regex.replace('\\"', '"')


def split_cases(path: Path) -> list[Case]:
    cases: list[Case] = []
    lines: list[str] = []
    start = 1

    def finish(end_line: int) -> None:
        if not any(line.strip() for line in lines):
            return
        expected, kept = [], []
        for i, line in enumerate(lines, start=1):
            cut = line.find("###")
            if cut == -1:
                kept.append(line)
                continue
            found = list(EXPECT.finditer(line, cut))
            assert found, f"{path.name}:{start + i - 1}: unreadable expectation {line[cut:]!r}"
            kept.append(line[:cut].rstrip())
            for m in found:
                expected.append(Expected(
                    code=m["code"], line=i, column=int(m["col"]) if m["col"] else None,
                    regex=_unquote(m["regex"]), eof=bool(m["eof"]), golden_line=start + i - 1,
                    hint=_unquote(m["hint"]) if m["hint"] is not None else None))
        text = "\n".join(kept) + "\n"
        last = len(kept)
        expected = [replace(e, line=last) if e.eof else e for e in expected]
        cases.append(Case(path, start, text, expected))

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() == "---":
            finish(number - 1)
            lines, start = [], number + 1
        else:
            lines.append(line)
    finish(start + len(lines))
    return cases


def all_cases() -> list[Case]:
    return [c for f in sorted(GOLDEN.glob("*.rules")) for c in split_cases(f)]


def diagnostics_of(case: Case, tmp_path: Path) -> list[Diagnostic]:
    """Run every stage on the case, as `rulebook check` does on a file."""
    from rulebook.validator.check import check_path

    (tmp_path / "game.rules").write_text(BASE_GAME.read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "case.rules"
    path.write_text(case.text, encoding="utf-8")
    return check_path(path).diagnostics


def _matches(e: Expected, d: Diagnostic) -> bool:
    if d.code != e.code or d.line is None:
        return False
    if (d.line < e.line) if e.eof else (d.line != e.line):
        return False
    if e.column is not None and d.column != e.column:
        return False
    if e.hint is not None and re.search(e.hint, d.hint or "") is None:
        return False
    return re.search(e.regex, d.message) is not None


def _show(d: Diagnostic) -> str:
    return f"{d.line}:{d.column} {d.code} {d.message!r} help {d.hint!r}"


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_golden_case(case: Case, tmp_path: Path):
    got = diagnostics_of(case, tmp_path)
    unmatched = list(got)
    missing = []
    for e in case.expected:
        hit = next((d for d in unmatched if _matches(e, d)), None)
        if hit is None:
            missing.append(e)
        else:
            unmatched.remove(hit)
    problems = [f"{case.file.name}:{e.golden_line}: expected {e.code} /{e.regex}/"
                f"{f' help /{e.hint}/' if e.hint else ''} not reported" for e in missing]
    problems += [f"{case.file.name}:{case.first_line + d.line - 1 if d.line else '?'}: "
                 f"unexpected {_show(d)}" for d in unmatched]
    assert not problems, "\n".join(problems + ["got: " + "; ".join(map(_show, got))])


def test_golden_files_exist_and_have_many_cases():
    cases = all_cases()
    assert len(cases) >= 40
    assert sum(1 for c in cases if c.expected) >= 30


def test_every_golden_diagnostic_is_located(tmp_path: Path):
    """Whatever a case reports names its file, line and column: never a bare message."""
    for case in all_cases():
        for d in diagnostics_of(case, tmp_path):
            assert d.file and d.line and d.column, f"{case.id}: unlocated {_show(d)}"


def test_expectation_parser_reads_columns_and_eof(tmp_path: Path):
    f = tmp_path / "x.rules"
    f.write_text('a ### E0100@3 "x"\nb\n---\nc ### EOF E0101 "y" help "z\\"q"\nd\n',
                 encoding="utf-8")
    first, second = split_cases(f)
    assert first.expected == [Expected("E0100", 1, 3, "x", False, 1)]
    assert first.text == "a\nb\n"
    assert second.first_line == 4
    assert second.expected == [Expected("E0101", 2, None, "y", True, 4, hint='z"q')]
