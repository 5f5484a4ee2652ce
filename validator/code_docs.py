"""The documentation of each diagnostic code, read from docs/diagnostics.md.

One source: `rulebook explain`, the SARIF rules' descriptions and the codes `--select`/`--ignore`
know all come from the `### CODE: title` sections of that file. A wheel ships it as
`rulebook/reference/diagnostics.md` (pyproject.toml maps the package `rulebook.reference` to
docs/); a source checkout or an editable install reads docs/ itself.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

_HEADING = re.compile(r"^#{2,4} `?([EW]\d{4})`?: (.+)$")
_ANY_HEADING = re.compile(r"^#{1,4} ")
DOC_NAME = "diagnostics.md"


@dataclass(frozen=True)
class CodeDoc:
    code: str
    title: str
    body: str  # the markdown under the heading, up to the next heading

    @property
    def summary(self) -> str:
        """The first paragraph, on one line."""
        return " ".join(self.body.split("\n\n", 1)[0].split())

    def markdown(self) -> str:
        return f"## {self.code}: {self.title}\n\n{self.body}\n"


def diagnostics_file() -> Path | None:
    """Where the reference is: inside the installed package, or in the source checkout."""
    above = Path(__file__).resolve().parent.parent  # rulebook/ in a wheel, else the checkout
    for candidate in (above / "reference" / DOC_NAME, above / "docs" / DOC_NAME):
        if candidate.is_file():
            return candidate
    return None


def parse_code_docs(text: str) -> dict[str, CodeDoc]:
    """Every `### CODE: title` section of the reference, by code."""
    docs: dict[str, CodeDoc] = {}
    current: tuple[str, str] | None = None
    lines: list[str] = []
    fenced = False

    def close() -> None:
        if current is not None:
            docs[current[0]] = CodeDoc(current[0], current[1], "\n".join(lines).strip())

    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced  # a `# comment` inside an example is not a heading
        if not fenced and _ANY_HEADING.match(line):
            close()
            mo = _HEADING.match(line)
            current = (mo.group(1), mo.group(2).strip()) if mo else None
            lines = []
        elif current is not None:
            lines.append(line)
    close()
    return docs


@functools.lru_cache(maxsize=1)
def code_docs() -> dict[str, CodeDoc]:
    """The documented codes; empty when the reference is not installed (a broken install)."""
    path = diagnostics_file()
    if path is None:
        return {}
    return parse_code_docs(path.read_text(encoding="utf-8"))
