"""The `rulebook` command line: exit codes, text and JSON diagnostics, parse, schema, assumptions."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from rulebook.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "rulesets" / "examples" / "tictactoe.rules"
HEADER = 'game "Cli" {\n    players 2\n}\n'


def invoke(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ the group
def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.output.strip() == "rulebook, version 0.1.0"


def test_help_lists_the_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("check", "parse", "schema", "fmt"):
        assert f"  {command} " in result.output


def test_python_dash_m_runs_the_same_command():
    proc = subprocess.run([sys.executable, "-m", "rulebook", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0
    assert proc.stdout.startswith("Usage: rulebook ")


def test_help_does_not_import_the_heavy_libraries():
    """`rulebook --help` must answer at once: the parser stack is imported per command."""
    code = ("import sys\nfrom click.testing import CliRunner\nfrom rulebook.cli import main\n"
            "CliRunner().invoke(main, ['--help'])\n"
            "print(sorted(m for m in ('pydantic', 'jsonschema', 'lark', 'rich') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ---------------------------------------------------------------------------- exit codes
def test_check_clean_file_exits_0():
    result = invoke("check", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("checked 1 file: no problems found")


def test_check_error_exits_1(tmp_path: Path):
    path = write(tmp_path, "bad.rules", HEADER + "const a = = 1\n")
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert result.output.strip().endswith("checked 1 file: 1 error, 0 warnings")


@pytest.mark.parametrize("args", [
    ["check"],
    ["check", "--format", "yaml", "x.rules"],
    ["check", "--no-such-option", "x.rules"],
    ["parse"],
    ["fmt"],
    ["no-such-command"],
])
def test_usage_errors_exit_2(args):
    result = invoke(*args)
    assert result.exit_code == 2
    assert "Usage:" in result.output


def test_missing_file_exits_1_with_its_name(tmp_path: Path):
    missing = tmp_path / "missing.rules"
    result = invoke("check", str(missing))
    assert result.exit_code == 1
    assert result.output.startswith(f"{missing}: error[E0001]: no such file or folder: {missing}\n")


# -------------------------------------------------------------------------- text rendering
def test_text_diagnostic_is_rendered_like_a_compiler(tmp_path: Path):
    path = write(tmp_path, "else.rules", HEADER + (
        "global x: int = 0\n"
        "setup {\n"
        "    if x == 0 {\n"
        "        set x = 1\n"
        "    }\n"
        "    else {\n"
        "        set x = 2\n"
        "    }\n"
        "}\n"))
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert result.output == (
        f"{path}:9:5: error[E0103]: `else` must follow the closing `}}` on the same line\n"
        "  |\n"
        "9 |     else {\n"
        "  |     ^^^^\n"
        "  = help: write `} else {` rather than putting `else` on a new line\n"
        "\n"
        "checked 1 file: 1 error, 0 warnings\n")


def test_several_errors_are_reported_at_once_and_sorted(tmp_path: Path):
    b = write(tmp_path, "b.rules", HEADER + "const a = 1 ~ 2\n")
    a = write(tmp_path, "a.rules", HEADER + 'const s = "never closed\n')
    missing = tmp_path / "c.rules"
    result = invoke("check", str(missing), str(b), str(a))
    assert result.exit_code == 1
    firsts = [line for line in result.output.splitlines() if ": error[" in line]
    assert firsts == [
        f"{a}:4:11: error[E0109]: this string is never closed",
        f"{b}:4:13: error[E0100]: unexpected character `~`",
        f"{missing}: error[E0001]: no such file or folder: {missing}",
    ]
    assert result.output.strip().endswith("checked 2 files: 3 errors, 0 warnings")


def test_folder_is_checked_file_by_file(tmp_path: Path):
    write(tmp_path, "game/game.rules", HEADER)
    write(tmp_path, "game/broken.rules", HEADER + "setup {\n")
    result = invoke("check", str(tmp_path / "game"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'game' / 'broken.rules'}:4:8: error[E0101]" in result.output


def test_folder_without_rules_files(tmp_path: Path):
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 1
    assert result.output.startswith(f"{tmp_path}: error[")


# ---------------------------------------------------------------------------------- JSON
def test_json_output_has_diagnostics_and_summary(tmp_path: Path):
    path = write(tmp_path, "bad.rules", HEADER + "const a = 1 ~ 2\n")
    result = invoke("check", "--format", "json", str(path))
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["summary"] == {"errors": 1, "warnings": 0, "notes": 0}
    assert doc["files_checked"] == 1
    (d,) = doc["diagnostics"]
    assert d == {
        "code": "E0100", "message": "unexpected character `~`", "severity": "error",
        "file": str(path), "line": 4, "column": 13, "end_line": 4, "end_column": 14,
        "hint": d["hint"], "related": [],
    }
    assert d["hint"].startswith("expected ")


def test_json_output_of_a_clean_file():
    result = invoke("check", "--format", "json", str(EXAMPLE))
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["diagnostics"] == []
    assert doc["summary"]["errors"] == 0


# --------------------------------------------------------------------------- assumptions
ASSUMING = HEADER + (
    'const market_size = 12 assumed "the book shows the market but not its size"\n'
    "record Card {\n    value: int\n}\n"
    'table cards of Card assumed "card values are printed only on the cards" {\n'
    "    value\n    1\n}\n"
    "const plain = 3\n")


def test_assumptions_are_listed_in_text(tmp_path: Path):
    path = write(tmp_path, "assumed.rules", ASSUMING)
    result = invoke("check", "--assumptions", str(path))
    assert result.exit_code == 0, result.output
    tail = result.output.split("no problems found\n", 1)[1]
    assert tail == (
        "\n2 assumed declarations:\n"
        f"  {path}:4: market_size: the book shows the market but not its size\n"
        f"  {path}:8: cards: card values are printed only on the cards\n")


def test_assumptions_are_listed_in_json(tmp_path: Path):
    path = write(tmp_path, "assumed.rules", ASSUMING)
    result = invoke("check", "--assumptions", "--format", "json", str(path))
    doc = json.loads(result.output)
    assert [(a["file"], a["line"], a["name"]) for a in doc["assumptions"]] == [
        (str(path), 4, "market_size"), (str(path), 8, "cards")]
    assert doc["assumptions"][0]["reason"] == "the book shows the market but not its size"


# ------------------------------------------------------------------------- parse, schema
def test_schema_is_a_valid_draft_2020_12_schema():
    result = invoke("schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_parse_prints_json_with_spans_that_validates():
    schema = json.loads(invoke("schema").output)
    result = invoke("parse", str(EXAMPLE))
    assert result.exit_code == 0
    tree = json.loads(result.output)
    assert tree["kind"] == "program"
    assert tree["header"]["title"] == "Tic-tac-toe"
    assert tree["header"]["span"] == {"line": 2, "column": 1, "end_line": 5, "end_column": 2}
    jsonschema.Draft202012Validator(schema).validate(tree)


def test_parse_output_of_every_shipped_ruleset_validates():
    validator = jsonschema.Draft202012Validator(json.loads(invoke("schema").output))
    files = sorted((ROOT / "rulesets").rglob("*.rules"))
    assert files
    for path in files:
        result = invoke("parse", str(path))
        assert result.exit_code == 0, result.output
        errors = [e.message for e in validator.iter_errors(json.loads(result.stdout))]
        assert errors == [], f"{path}: {errors[:3]}"


def test_parse_error_goes_to_stderr_and_exits_1(tmp_path: Path):
    path = write(tmp_path, "bad.rules", HEADER + "const a = (1\n")
    result = invoke("parse", str(path))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{path}:4:13: error[E0101]" in result.stderr


def test_parse_of_a_folder_is_an_error(tmp_path: Path):
    result = invoke("parse", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path}: error[E0002]" in result.stderr


# ------------------------------------------------------------------------------------- fmt
MESSY = 'game "Fmt" {\n  players   2\n}\nconst   a=1+2\n'


def canonical(text: str, name: str) -> str:
    from rulebook.grammar.formatter import format_source

    return format_source(text, name)


def test_fmt_prints_the_canonical_form(tmp_path: Path):
    path = write(tmp_path, "messy.rules", MESSY)
    result = invoke("fmt", str(path))
    assert result.exit_code == 0
    assert result.stdout == canonical(MESSY, str(path))
    assert "const a = 1 + 2\n" in result.stdout
    assert path.read_text(encoding="utf-8") == MESSY


def test_fmt_of_several_files_marks_where_each_starts(tmp_path: Path):
    a = write(tmp_path, "a.rules", MESSY)
    b = write(tmp_path, "b.rules", MESSY)
    result = invoke("fmt", str(a), str(b))
    assert result.exit_code == 0
    tidy = canonical(MESSY, str(a))
    assert result.stdout == f"# ==> {a} <==\n{tidy}\n# ==> {b} <==\n{tidy}"


def test_fmt_check_lists_files_that_would_change(tmp_path: Path):
    messy = write(tmp_path, "messy.rules", MESSY)
    tidy = write(tmp_path, "tidy.rules", canonical(MESSY, "tidy.rules"))
    result = invoke("fmt", "--check", str(messy), str(tidy))
    assert result.exit_code == 1
    assert result.stdout == f"would reformat {messy}\n"
    assert "`rulebook fmt --write` rewrites them" in result.stderr
    assert messy.read_text(encoding="utf-8") == MESSY
    assert invoke("fmt", "--check", str(tidy)).exit_code == 0


def test_fmt_write_rewrites_and_then_check_passes(tmp_path: Path):
    path = write(tmp_path, "game/messy.rules", MESSY)
    result = invoke("fmt", "--write", str(tmp_path / "game"))
    assert result.exit_code == 0
    assert result.output == f"reformatted {path}\n"
    assert path.read_text(encoding="utf-8") == canonical(MESSY, str(path))
    assert invoke("fmt", "--check", str(tmp_path)).exit_code == 0


def test_fmt_check_and_write_together_is_a_usage_error(tmp_path: Path):
    path = write(tmp_path, "messy.rules", MESSY)
    assert invoke("fmt", "--check", "--write", str(path)).exit_code == 2


def test_fmt_of_a_broken_file_reports_and_exits_1(tmp_path: Path):
    path = write(tmp_path, "bad.rules", HEADER + "const a = (1\n")
    result = invoke("fmt", "--check", str(path))
    assert result.exit_code == 1
    assert f"{path}:4:13: error[E0101]" in result.output


def test_fmt_check_of_the_shipped_rulesets_passes():
    result = invoke("fmt", "--check", str(ROOT / "rulesets"))
    assert result.exit_code == 0, result.output


def test_a_reader_that_goes_away_ends_the_command_quietly():
    """`rulebook check ... | head`: the pipe is closed before the command writes; it stops
    with exit code 1 and no internal error nor traceback."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "rulebook", "check", "--assumptions",
                               str(Path(__file__).parents[1] / "rulesets" / "beer_empire")],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert "E0999" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_player_count_the_game_does_not_seat_names_the_variants_that_do():
    """Smartphone Inc. is for 2 to 5 companies; alone, a player plays against Steve."""
    result = CliRunner().invoke(main, ["simulate", "smartphone_inc", "--players", "1",
                                       "--games", "1"])
    assert result.exit_code == 1
    assert "E0315" in result.output and "with 1 player, add `--variant steve`" in result.output
    result = CliRunner().invoke(main, ["simulate", "examples/tictactoe", "--players", "3"])
    assert "choose a player count the game allows" in result.output
