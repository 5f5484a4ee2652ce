"""One record for every error and warning, from every stage, and its two renderings."""
from __future__ import annotations

import json
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
    """Raised by any stage that must stop; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
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


def render_text(diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None) -> str:
    """Render like a modern compiler: location, message, the source line, a caret, help."""
    sources = sources or {}
    out: list[str] = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        out.append(f"{d.located()}: {d.severity}[{d.code}]: {d.message}")
        text = sources.get(d.file or "")
        if text is not None and d.line is not None:
            lines = text.splitlines()
            if 1 <= d.line <= len(lines):
                src = lines[d.line - 1].expandtabs(4) if "\t" not in lines[d.line - 1] else lines[d.line - 1]
                gutter = f"{d.line:>4} | "
                out.append(gutter + src)
                col = max(1, d.column or 1)
                width = 1
                if d.end_line == d.line and d.end_column and d.end_column > col:
                    width = d.end_column - col
                width = max(1, min(width, max(1, len(src) - col + 1)))
                out.append(" " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" * width)
        for r in d.related:
            loc = r.file or d.file or "<input>"
            if r.line is not None:
                loc += f":{r.line}:{r.column or 1}"
            out.append(f"  note: {r.message} ({loc})")
        if d.hint:
            out.append(f"  help: {d.hint}")
    return "\n".join(out)


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    items = [d.to_dict() for d in sorted(diagnostics, key=Diagnostic.sort_key)]
    return json.dumps({"diagnostics": items}, indent=2, ensure_ascii=False)
