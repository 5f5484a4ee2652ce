"""No input may make rulebook print a Python traceback: broken files give located diagnostics.

The CLI is driven through click's CliRunner (and once as a real process); the front end itself is
fed arbitrary text, arbitrary bytes and mutilated copies of valid programs by Hypothesis.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook.cli import main
from rulebook.grammar.parser import decode_source, parse_text
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]
HEADER = 'game "Robust" {\n    players 2\n}\n'
LOCATED = re.compile(r"^(?P<file>\S+?):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>E\d{4})\]", re.M)


INTERNAL = ("E0199", "E0999")  # internal-error codes: a bug turned into a diagnostic is still a bug


def run_check(*args: str):
    result = CliRunner().invoke(main, ["check", *args])
    assert "Traceback" not in result.output
    assert not any(code in result.output for code in INTERNAL), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def located_errors(output: str) -> list[re.Match]:
    return list(LOCATED.finditer(output))


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# ----------------------------------------------------------------------- broken files, via CLI
BROKEN = {
    "binary": (b"\x00\x01\x02\x03game\xff\xfe", "E0005", 1),
    "latin1": ((HEADER + 'const a = "caf\xe9"\n').encode("latin-1"), "E0006", 4),
    "ten_megabytes": (HEADER.encode() + (b"# " + b"x" * 98 + b"\n") * 100_000, "E0004", 1),
    "nested_brackets": ((HEADER + "const a = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n").encode(),
                        "E0007", 4),
    "nested_lists": ((HEADER + "const a = " + "[" * 10_000 + "]" * 10_000 + "\n").encode(),
                     "E0007", 4),
    "unclosed_brackets": ((HEADER + "const a = " + "[" * 10_000 + "\n").encode(), "E0007", 4),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_file_gives_one_located_error(tmp_path: Path, kind: str):
    content, code, line = BROKEN[kind]
    path = write(tmp_path, f"{kind}.rules", content)
    result = run_check(str(path))
    assert result.exit_code == 1
    errors = located_errors(result.output)
    assert [(m["file"], int(m["line"]), m["code"]) for m in errors] == [(str(path), line, code)]
    assert "help:" in result.output


@pytest.mark.parametrize("text", [
    HEADER + "const a = " + "not " * 10_000 + "true\n",
    HEADER + "const a = " + "+".join(["1"] * 5_000) + "\n",
    HEADER + "const a = " + "-" * 10_000 + "size(players)\n",
    HEADER + "const a = " + " or ".join(["true"] * 5_000) + "\n",
], ids=["10000_nots", "5000_term_sum", "10000_minus_signs", "5000_term_or"])
def test_deep_expressions_without_brackets_are_refused_clearly(tmp_path: Path, text: str):
    path = write(tmp_path, "deep.rules", text)
    result = run_check(str(path))
    assert result.exit_code == 1
    errors = located_errors(result.output)
    assert [m["code"] for m in errors] == ["E0007"]
    assert "nested more than" in result.output


def test_empty_file_does_not_crash(tmp_path: Path):
    path = write(tmp_path, "empty.rules", "")
    result = run_check(str(path))
    assert result.exit_code in (0, 1)
    for m in located_errors(result.output):
        assert m["file"] == str(path)


def test_missing_file_names_the_path(tmp_path: Path):
    missing = tmp_path / "nowhere.rules"
    result = run_check(str(missing))
    assert result.exit_code == 1
    assert result.output.startswith(f"{missing}: error[E0001]: no such file")


def test_folder_without_rules_is_an_error(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not rules", encoding="utf-8")
    result = run_check(str(tmp_path))
    assert result.exit_code == 1
    assert result.output.startswith(f"{tmp_path}: error[")
    assert "no `.rules` files" in result.output


def test_valid_file_is_clean(tmp_path: Path):
    path = write(tmp_path, "ok.rules", HEADER + "const a = 1 + 2\n")
    result = run_check(str(path))
    assert result.exit_code == 0, result.output
    assert located_errors(result.output) == []


def test_several_broken_files_report_each_sorted(tmp_path: Path):
    b = write(tmp_path, "b.rules", HEADER + "const x = = 1\n")
    a = write(tmp_path, "a.rules", b"\x00")
    result = run_check(str(b), str(a), str(tmp_path / "c.rules"))
    assert result.exit_code == 1
    assert [m["file"] for m in located_errors(result.output)] == [str(a), str(b)]
    assert f"{tmp_path / 'c.rules'}: error[E0001]" in result.output


def test_real_process_never_prints_a_traceback(tmp_path: Path):
    """Once end to end through the installed entry point, with several kinds of bad input."""
    paths = [write(tmp_path, "bin.rules", b"\x00\xff"),
             write(tmp_path, "deep.rules", HEADER + "const a = " + "(" * 5000 + "\n"),
             write(tmp_path, "ok.rules", HEADER),
             tmp_path / "missing.rules"]
    proc = subprocess.run([sys.executable, "-m", "rulebook", "check", *map(str, paths)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert {m["code"] for m in located_errors(proc.stdout)} == {"E0005", "E0007"}
    assert "error[E0001]" in proc.stdout


# ------------------------------------------------------------------------ Hypothesis properties
QUICK = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Text that looks like rules: keywords, names, punctuation, newlines, quotes and braces.
RULES_ALPHABET = st.sampled_from(
    list('{}()[]"\\#=<>+-*/%.,:|?\n \t') + ["game", "players", "2", "set", "if", "else", "for",
    "in", "choose", "option", "x", "é", "rounds", "phase", "table", "of", "not", "and", "by"])
RULES_LIKE = st.lists(RULES_ALPHABET, max_size=60).map(" ".join)


@QUICK
@given(st.one_of(st.text(max_size=300), RULES_LIKE, RULES_LIKE.map(lambda t: HEADER + t)))
def test_arbitrary_text_only_raises_diagnostics(text: str):
    try:
        parse_text(text, "fuzz.rules")
    except DiagnosticError as e:
        assert e.diagnostics and all(d.code and d.message for d in e.diagnostics)
        assert not any(d.code in INTERNAL for d in e.diagnostics), e.diagnostics


@QUICK
@given(st.binary(max_size=300))
def test_arbitrary_bytes_only_raise_diagnostics(data: bytes):
    try:
        parse_text(decode_source(data, "fuzz.rules"), "fuzz.rules")
    except DiagnosticError as e:
        assert all(d.file == "fuzz.rules" for d in e.diagnostics)
        assert not any(d.code in INTERNAL for d in e.diagnostics), e.diagnostics


def _valid_programs() -> list[str]:
    sources = [(ROOT / "rulesets" / "examples" / "tictactoe.rules").read_text(encoding="utf-8")]
    golden = (ROOT / "tests" / "golden")
    for f in sorted(golden.glob("*.rules")):
        for chunk in f.read_text(encoding="utf-8").split("\n---\n"):
            if "###" not in chunk and "game" in chunk:
                sources.append(chunk)
    return sources


TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\w+|\s+|.')


def mutilate(data, text: str) -> str:
    """Delete, repeat or swap a few words of a valid program: near-valid input finds gaps."""
    tokens = TOKEN.findall(text)
    for _ in range(data.draw(st.integers(1, 3))):
        words = [k for k, t in enumerate(tokens) if not t.isspace()]
        i = data.draw(st.sampled_from(words))
        action = data.draw(st.sampled_from(["delete", "delete", "repeat", "swap"]))
        if action == "delete":  # one to three words, with the spaces between them
            n = data.draw(st.integers(1, 3))
            end = words[min(words.index(i) + n, len(words)) - 1] + 1
            del tokens[i:end]
        elif action == "repeat":
            tokens[i:i] = [tokens[i], " "]
        else:
            j = data.draw(st.sampled_from(words))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


@settings(QUICK, max_examples=300)
@given(st.data())
def test_mutilated_valid_programs_only_raise_diagnostics(data):
    text = mutilate(data, data.draw(st.sampled_from(_valid_programs())))
    try:
        parse_text(text, "mutant.rules")
    except DiagnosticError as e:
        assert not any(d.code in INTERNAL for d in e.diagnostics), e.diagnostics


@QUICK
@given(st.data())
def test_every_stage_survives_mutilated_programs(tmp_path_factory, data):
    """Programs that still parse go on to the schema and the semantic checks: no crash there."""
    from rulebook.validator.check import check_path

    path = tmp_path_factory.mktemp("mutant") / "mutant.rules"
    path.write_text(mutilate(data, data.draw(st.sampled_from(_valid_programs()))), encoding="utf-8")
    diagnostics = check_path(path).diagnostics
    assert not any(d.code in INTERNAL for d in diagnostics), diagnostics
    assert all(d.file for d in diagnostics)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200), RULES_LIKE.map(str.encode)))
def test_cli_never_prints_a_traceback(tmp_path_factory, data: bytes):
    path = tmp_path_factory.mktemp("fuzz") / "input.rules"
    path.write_bytes(data)
    for fmt in ("text", "json"):
        result = run_check(str(path), "--format", fmt)
        assert result.exit_code in (0, 1)
