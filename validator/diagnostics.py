"""One record for every error and warning, from every stage, and its two renderings."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Iterable, Literal

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True, order=False)
class Related:
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True)
class Diagnostic:
    """A problem found in a rules file or while running one.

    ``code`` is stable (documented in docs/diagnostics.md); ``line``/``column`` are 1-based;
    ``end_*`` mark the end of the span (exclusive) when known.
    """

    code: str
    message: str
    severity: Severity = "error"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    hint: str | None = None
    related: tuple[Related, ...] = field(default=())

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def sort_key(self):
        return (self.file or "", self.line or 0, self.column or 0, self.code)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["related"] = [asdict(r) for r in self.related]
        return data

    def located(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where


class DiagnosticError(Exception):
    """Raised by any stage that must stop; carries the diagnostics that explain why, and the
    text of the rules files they point into (so they can be quoted without reading any file
    again: only what was read as rules is ever shown)."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        self.sources = dict(sources or {})
        super().__init__("\n".join(d.message for d in self.diagnostics))


def span_fields(span) -> dict:
    """Diagnostic location keywords from an AST ``Span`` (or nothing when it is missing)."""
    if span is None:
        return {}
    return {
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }


_STYLES = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
_BOLD, _BLUE, _RESET = "\x1b[1m", "\x1b[1;34m", "\x1b[0m"


MAX_SHOWN = 100  # longest source excerpt quoted under a diagnostic; longer lines are cut around it
CONTEXT_BEFORE = 40


def _excerpt(src: str, d: Diagnostic) -> tuple[str, str]:
    """The quoted source line (cut to a window around the span when long) and its caret line."""
    col = max(1, d.column or 1)
    if d.end_line == d.line and d.end_column and d.end_column > col:
        width = d.end_column - col
    elif d.end_line is not None and d.line is not None and d.end_line > d.line:
        width = len(src) - col + 1  # a span running onto later lines: mark to the end of this one
    else:
        width = 1
    width = max(1, min(width, len(src) - col + 1))
    if len(src) > MAX_SHOWN:
        start = max(0, min(col - 1 - CONTEXT_BEFORE, len(src) - MAX_SHOWN))
        shown = src[start : start + MAX_SHOWN]
        lead = "..." if start > 0 else ""
        tail = "..." if start + MAX_SHOWN < len(src) else ""
        src, col = lead + shown + tail, col - start + len(lead)
        width = max(1, min(width, len(lead) + len(shown) - col + 1))
    pad = "".join("\t" if ch == "\t" else " " for ch in src[: col - 1])
    pad += " " * max(0, col - 1 - len(src))
    return src, pad + "^" * width


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with its control characters written out (`\\u{1b}`): a message may quote a save
    or a path a stranger wrote, and a terminal would obey the characters instead of showing them."""
    return _CONTROL.sub(lambda m: f"\\u{{{ord(m.group()):x}}}", text)


def render_text(
    diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None, color: bool = False
) -> str:
    """Render like a modern compiler: location, message, the source line, a caret, help.

    ``sources`` maps a file name to its text so the offending line can be quoted; ``color`` adds
    ANSI colours for terminals.
    """
    sources = sources or {}
    diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)

    def paint(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if color else text

    width = max((len(str(d.line)) for d in diagnostics if d.line is not None), default=1)
    blocks: list[str] = []
    split: dict[str, list[str]] = {}  # each file's lines, split once however many diagnostics
    for d in diagnostics:
        out = [
            paint(f"{printable(d.located())}: ", _BOLD)
            + paint(f"{d.severity}[{d.code}]", _STYLES.get(d.severity, _BOLD))
            + paint(f": {printable(d.message)}", _BOLD)
        ]
        text = sources.get(d.file or "")
        if text is not None and d.line is not None:
            key = d.file or ""
            if key not in split:
                split[key] = text.splitlines()
                if text == "" or text.endswith("\n"):
                    split[key].append("")  # an error at the end of a file ending with a newline
            lines = split[key]
            if 1 <= d.line <= len(lines):
                src, carets = _excerpt(lines[d.line - 1], d)
                bar = paint(" " * width + " |", _BLUE)
                out.append(bar)
                out.append(paint(f"{d.line:>{width}} |", _BLUE) + " " + src)
                out.append(bar + " " + paint(carets, _STYLES.get(d.severity, "")))
        for r in d.related:
            loc = r.file or d.file or "<input>"
            if r.line is not None:
                loc += f":{r.line}:{r.column or 1}"
            out.append(f"{' ' * width} = note: {printable(r.message)} ({printable(loc)})")
        if d.hint:
            out.append(f"{' ' * width} = " + paint("help", _BOLD) + f": {printable(d.hint)}")
        blocks.append("\n".join(out))
    return "\n\n".join(blocks)


def summarize(diagnostics: Iterable[Diagnostic]) -> dict:
    """Counts by severity, for the last line of text output and the JSON ``summary``."""
    counts = {"error": 0, "warning": 0, "note": 0}
    for d in diagnostics:
        counts[d.severity] = counts.get(d.severity, 0) + 1
    return {"errors": counts["error"], "warnings": counts["warning"], "notes": counts["note"]}


def render_json(diagnostics: Iterable[Diagnostic], **extra) -> str:
    """``{"diagnostics": [...], "summary": {...}}`` plus any extra top-level members given."""
    diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
    document = {"diagnostics": [d.to_dict() for d in diagnostics], "summary": summarize(diagnostics)}
    document.update(extra)
    return json.dumps(document, indent=2, ensure_ascii=False)
