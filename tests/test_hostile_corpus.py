"""The hostile corpus of `tests/hostile/` run in CI, in-process and with smaller budgets.

`tests/hostile/probe.py` runs the same attacks through the command line, each in its own process
with CPU, memory and output limits (about 26 minutes); this test runs what needs no symlinks,
fifos or generated giants in a few minutes: every rules file is checked, played by random bots and
its scenarios run; every forged save is loaded. Each must end with a result or a located
diagnostic with a stable code: no exception other than `DiagnosticError`, no internal error, no
text of a file outside the corpus, and a refusal wherever the attack must be refused.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulebook import api
from rulebook.interpreter.simulate import play_one
from rulebook.interpreter.state import Limits
from rulebook.scenarios import run_file
from rulebook.validator.check import check_path
from rulebook.validator.diagnostics import Diagnostic, DiagnosticError

CORPUS = Path(__file__).parent / "hostile"
ATTACKS = sorted(p for p in (CORPUS / "rulesets").rglob("*.rules")
                 if p.read_text(encoding="utf-8", errors="replace").startswith("# attack:"))
# The committed saves show what each forgery is; the test forges them afresh (as the probe does)
# so that a change to a bundled game's rules does not turn its control saves into refusals.
SAVES = json.loads((CORPUS / "saves" / "manifest.json").read_text())["saves"]


@pytest.fixture(scope="module")
def forged(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("saves")
    made = subprocess.run([sys.executable, str(CORPUS / "make_saves.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr[-2000:]
    return out

# A tenth of the default step budget: an attack that burns the budget costs ~0.3 s, not 4 s.
LIMITS = Limits(max_steps=300_000, max_file_steps=3_000_000)
INTERNAL = {"E0199", "E0999"}
LEAKS = re.compile(r"root:x:0:0|daemon:x:1:1|Linux version|S3CR3T[-_]0UTSIDE")


def header(path: Path) -> dict[str, str]:
    """The `# key: value` lines an attack file starts with."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"# (attack|commands|args|expect): (.*)", line)
        if not m:
            break
        out[m[1]] = m[2]
    return out


def assert_clean(diagnostics: list[Diagnostic], where: str) -> None:
    for d in diagnostics:
        assert d.code not in INTERNAL, f"{where}: internal error {d.code}: {d.message}"
        assert re.fullmatch(r"[EW]\d{4}", d.code), f"{where}: no stable code: {d}"
        text = json.dumps(d.to_dict(), ensure_ascii=False)
        assert not LEAKS.search(text), f"{where}: a diagnostic quotes a file outside: {text[:300]}"
        if d.is_error:
            assert d.file, f"{where}: an error that names no file: {d.message}"


def players_of(head: dict[str, str]) -> int | None:
    m = re.search(r"--players (\d+)", head.get("args", ""))
    return int(m[1]) if m else None


@pytest.mark.parametrize("path", ATTACKS, ids=lambda p: p.relative_to(CORPUS / "rulesets").as_posix())
def test_attack_ends_with_a_result_or_a_located_diagnostic(path: Path) -> None:
    head = header(path)
    commands = head["commands"].split()
    must_pass = head.get("expect") == "ok"
    checked = check_path(str(path))
    assert_clean(checked.diagnostics, "check")
    rejected = any(d.is_error for d in checked.diagnostics)
    assert not (must_pass and rejected), [d.message for d in checked.diagnostics]

    if "play" in commands or "simulate" in commands:
        try:
            rules = api.load(str(path))
        except DiagnosticError as e:
            assert rejected or not must_pass, e.diagnostics[0].message
            assert_clean(e.diagnostics, "play")
        else:
            assert not rejected, "play accepted a file that check rejects"
            record = play_one(rules, players_of(head), 0, 1, "random", LIMITS)
            if record.error is not None:
                assert not must_pass, record.error
                assert_clean([Diagnostic(**_fields(record.error))], "play")

    if "test" in commands:
        outcome = run_file(str(path), LIMITS)
        assert_clean(outcome.diagnostics, "test")
        if rejected:
            assert outcome.diagnostics, "test ran a file that check rejects"
        for result in outcome.results:
            assert_clean(result.failures, f"test {result.name}")
            assert result.passed or not must_pass, [d.message for d in result.failures]


def _fields(d: dict) -> dict:
    keys = ("code", "message", "file", "line", "column", "hint")
    return {k: d[k] for k in keys if k in d}


@pytest.mark.parametrize("entry", SAVES, ids=lambda e: e["file"])
def test_forged_save_is_refused_and_a_valid_one_loads(entry: dict, forged: Path) -> None:
    path = forged / entry["file"]
    for accept in (False, True):
        if accept and not entry.get("refuse_with_accept_flag"):
            continue
        try:
            game = api.load_game(path, accept_changed_rules=accept, limits=LIMITS)
        except DiagnosticError as e:
            assert entry["expect"] != "ok", e.diagnostics[0].message
            assert_clean(e.diagnostics, "load")
            for d in e.diagnostics:
                assert d.file, d.message
        else:
            assert entry["expect"] != "refuse", f"accepted: {entry['attack']}"
            game.legal_options() if game.pending is not None else None
