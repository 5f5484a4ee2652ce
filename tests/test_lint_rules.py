"""One lint rule = code + documentation + test: every lint entry of docs/diagnostics.md gives a
wrong and a right example, and the rule fires on the wrong one and not on the right one. The
bundled rulesets give no lint warning at all."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.validator.code_docs import code_docs
from rulebook.validator.lint import lint_paths

ROOT = Path(__file__).resolve().parents[1]
HEADER = 'game "Example" {\n    players 2 to 4\n}\n\n'
LINT_CODES = ["W0202", "W0203", "W0204", "W0205", "W0206", "W0210", "W0211"]
_BLOCK = re.compile(r"^(Wrong|Right)[^\n]*:\n\n```rules\n(.*?)^```", re.M | re.S)


def examples(code: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"Wrong": [], "Right": []}
    for kind, text in _BLOCK.findall(code_docs()[code].body):
        found[kind].append(text)
    return found


def lint(tmp_path: Path, text: str, config: str = "") -> list:
    folder = tmp_path / "game"
    folder.mkdir(exist_ok=True)
    (folder / "game.rules").write_text(HEADER + text, encoding="utf-8")
    if config:
        (folder / "rulebook.toml").write_text(config, encoding="utf-8")
    result = lint_paths([str(folder / "game.rules")])
    assert not result.config_problems
    return result.diagnostics


def config_of(code: str) -> str:
    mo = re.search(r"\(with `(book-sections = \[.*?\])`\)", code_docs()[code].body)
    return mo.group(1) + "\n" if mo else ""


@pytest.mark.parametrize("code", LINT_CODES)
def test_the_rule_fires_on_its_wrong_example_and_not_on_its_right_one(code, tmp_path):
    found = examples(code)
    assert found["Wrong"] and found["Right"], f"{code} needs a wrong and a right example"
    for text in found["Wrong"]:
        diagnostics = lint(tmp_path, text, config_of(code))
        assert not [d for d in diagnostics if d.is_error], diagnostics
        assert code in {d.code for d in diagnostics}, (text, diagnostics)
    for text in found["Right"]:
        diagnostics = lint(tmp_path, text, config_of(code))
        assert not [d for d in diagnostics if d.is_error], diagnostics
        assert code not in {d.code for d in diagnostics}, (text, diagnostics)


def test_the_bundled_rulesets_give_no_warning():
    result = lint_paths([str(ROOT / "rulesets")])
    assert result.checked > 40
    assert result.diagnostics == []
