"""The VS Code extension (editors/vscode): its grammar follows the language, its grammar tests
pass, and it packages into a `.vsix` (node and npm are on CI's machines: `.ci/run` installs the
extension's locked packages with `npm ci`)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from rulebook.lsp.keywords import KEYWORDS, grammar_text, keywords_of
from rulebook.validator.builtins import BUILTIN_FUNCTIONS, BUILTIN_VALUES

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "editors" / "vscode"
GRAMMAR = EXTENSION / "syntaxes" / "rules.tmLanguage.json"


def test_the_committed_grammar_is_the_one_the_script_writes():
    done = subprocess.run([sys.executable, str(EXTENSION / "scripts" / "build_grammar.py"),
                           "--check"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_keywords_are_read_from_the_grammar_file():
    assert {"game", "variant", "choose", "option", "per", "player", "public", "ascending",
            "sole_max", "sometimes"} <= set(KEYWORDS)
    assert not {"t", "NAME", "name", "w"} & set(KEYWORDS)  # regex syntax is not a word
    assert keywords_of('x: "frobnicate" y\nZ.2: /(alpha|beta)(?!\\w)/\nN: /\\w+/\n') == (
        "alpha", "beta", "frobnicate")
    assert KEYWORDS == keywords_of(grammar_text())


def _patterns(rule: dict) -> list[tuple[str, re.Pattern]]:
    return [(p["name"], re.compile(p["match"])) for p in rule["patterns"]]


def test_every_keyword_and_built_in_is_highlighted_once():
    repository = json.loads(GRAMMAR.read_text())["repository"]
    keywords = _patterns(repository["keywords"])
    builtins = _patterns(repository["builtins"])
    for word in KEYWORDS:
        hits = [name for name, rx in keywords if rx.fullmatch(word)]
        assert len(hits) == 1, (word, hits)
    for name in BUILTIN_FUNCTIONS:
        assert any(rx.match(f"{name}(x)") for _, rx in builtins + keywords), name
    for name in BUILTIN_VALUES:
        assert any(rx.fullmatch(name) for _, rx in builtins), name


def _npm(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    npm = shutil.which("npm")
    assert npm, "node and npm are needed for the VS Code extension's tests (.ci/run installs them)"
    return subprocess.run([npm, *args], cwd=EXTENSION, capture_output=True, text=True,
                          timeout=timeout)


def test_grammar_tests_pass_and_the_extension_packages(tmp_path):
    if not (EXTENSION / "node_modules" / ".bin" / "vsce").exists():
        done = _npm("ci", "--no-audit", "--no-fund", timeout=600)
        assert done.returncode == 0, done.stderr
    done = _npm("test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("run successfuly") == len(list((EXTENSION / "tests").iterdir()))
    node = shutil.which("node")
    assert subprocess.run([node, "--check", str(EXTENSION / "extension.js")]).returncode == 0
    vsix = tmp_path / "rulebook-rules.vsix"
    done = _npm("exec", "--", "vsce", "package", "--skip-license", "--allow-missing-repository",
                "--out", str(vsix))
    assert done.returncode == 0, done.stdout + done.stderr
    names = set(zipfile.ZipFile(vsix).namelist())
    assert {"extension/package.json", "extension/extension.js",
            "extension/language-configuration.json",
            "extension/syntaxes/rules.tmLanguage.json",
            "extension/node_modules/vscode-languageclient/package.json"} <= names
    assert not any(n.startswith("extension/tests/") for n in names)
