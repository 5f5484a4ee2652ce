"""The committed JSON Schema of the AST: valid, fresh, strict, and met by every shipped file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from rulebook.grammar.parser import parse_file, parse_text
from rulebook.validator import schema as S

ROOT = Path(__file__).resolve().parents[1]
RULES_FILES = sorted((ROOT / "rulesets").rglob("*.rules"))
TICTACTOE = ROOT / "rulesets" / "examples" / "tictactoe.rules"


def messages(instance) -> list[str]:
    return [e.message for e in S.validate_instance(instance)]


def test_schema_is_a_valid_draft_2020_12_schema():
    schema = S.ast_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_committed_schema_is_not_stale(capsys):
    assert S.main(["--check"]) == 0, "run `python -m rulebook.validator.schema --write`"
    assert S.SCHEMA_FILE.read_text(encoding="utf-8") == S.schema_text(S.generate_schema())


def test_check_reports_a_stale_file(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "ast.schema.json"
    stale.write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(S, "SCHEMA_FILE", stale)
    assert S.main(["--check"]) == 1
    assert "is stale" in capsys.readouterr().err
    assert S.main(["--write"]) == 0
    assert S.main(["--check"]) == 0


def test_every_kind_tag_is_required():
    defs = S.ast_schema()["$defs"]
    tagged = {name: d for name, d in defs.items() if "kind" in d.get("properties", {})
              and "const" in d["properties"]["kind"]}
    assert len(tagged) > 60
    missing = [name for name, d in tagged.items() if "kind" not in d.get("required", [])]
    assert missing == []


def test_spans_are_optional_in_the_schema():
    name = S.ast_schema()["$defs"]["Name"]
    assert "span" in name["properties"]
    assert name["required"] == ["kind", "id"]


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_parse_output_of_every_shipped_file_validates(path):
    program = parse_file(path)
    # The JSON `rulebook parse` prints, spans included.
    printed = json.loads(json.dumps(program.model_dump(mode="json")))
    assert S.validate_instance(printed) == []
    assert S.validate_program(program, str(path)) == []


def test_cli_parse_output_validates():
    from click.testing import CliRunner

    from rulebook.cli import main

    result = CliRunner().invoke(main, ["parse", str(TICTACTOE)])
    assert result.exit_code == 0, result.output
    assert S.validate_instance(json.loads(result.output)) == []


def test_the_validated_instance_has_no_spans_or_defaults():
    program = parse_text('game "G" {\n    players 2\n}\nconst x = 1\n', "g")
    assert S.instance_of(program) == {
        "kind": "program",
        "header": {"kind": "game", "title": "G", "min_players": 2, "max_players": 2},
        "declarations": [{"kind": "const", "name": "x", "value": {"kind": "int", "value": 1}}],
    }


# ------------------------------------------------------------------------- tampering
def tictactoe_instance() -> dict:
    return S.instance_of(parse_file(TICTACTOE))


def test_unknown_kind_is_rejected_with_one_clear_error():
    doc = tictactoe_instance()
    doc["declarations"][0]["kind"] = "enumeration"
    (message,) = messages(doc)
    assert message.startswith("'enumeration' is not one of ['automaton', ")
    assert "'const', 'define'" in message


def test_missing_kind_is_rejected():
    doc = tictactoe_instance()
    del doc["declarations"][1]["kind"]
    assert messages(doc) == ["'kind' is a required property"]


def test_missing_field_extra_field_and_wrong_type_are_rejected():
    doc = tictactoe_instance()
    const = doc["declarations"][1]
    assert const["kind"] == "const"
    del const["value"]
    assert messages(doc) == ["'value' is a required property"]
    doc = tictactoe_instance()
    doc["declarations"][1]["colour"] = "red"
    assert messages(doc) == ["Additional properties are not allowed ('colour' was unexpected)"]
    doc = tictactoe_instance()
    doc["declarations"][1]["value"]["value"] = "three"
    assert messages(doc) == ["'three' is not of type 'integer'"]


def test_wrong_expression_kind_deep_inside_is_rejected():
    doc = tictactoe_instance()
    play = next(d for d in doc["declarations"] if d["kind"] == "play")
    play["body"][0]["body"][0]["binding"]["source"] = {"kind": "set", "target": 1}
    assert len(messages(doc)) == 1


def test_validate_program_locates_the_mismatch():
    # The parser builds nodes without pydantic validation: the schema is what catches a value
    # of the wrong type, and the dump must carry it there intact.
    program = parse_text('game "G" {\n    players 2\n}\n\nconst size = 3\n', "t.rules")
    program.declarations[0].value.value = "three"
    (d,) = S.validate_program(program, "t.rules")
    assert (d.code, d.file, d.line, d.column) == ("E0601", "t.rules", 5, 14)
    assert d.message == ("the syntax tree does not match the AST schema at "
                         "declarations/0/value/value: 'three' is not of type 'integer'")


def test_a_node_of_the_wrong_kind_is_reported_not_crashed_on():
    from rulebook.grammar import ast as A

    program = parse_text('game "G" {\n    players 2\n}\n\nconst size = 3\n', "t.rules")
    const = program.declarations[0]
    const.value = A.Pass.model_construct(kind="pass", span=const.value.span)
    (d,) = S.validate_program(program, "t.rules")
    assert (d.code, d.line) == ("E0601", 5)
    assert "declarations/0/value" in d.message


def test_every_union_dispatches_each_kind_to_its_model_and_rejects_others():
    schema = S.ast_schema()
    unions = {name: d for name, d in schema["$defs"].items() if "if" in d}
    assert {"Expr", "Stmt", "Declaration", "TypeExpr", "ScenarioItem"} <= set(unions)
    for name, union in unions.items():
        validator = Draft202012Validator({**union, "$defs": schema["$defs"]})
        tags = _kinds_of(union)
        for tag in tags:
            errors = list(validator.iter_errors({"kind": tag}))
            # Reaching the right model leaves only its missing fields to complain about.
            assert all(e.validator == "required" and e.message != "'kind' is a required property"
                       for e in errors), (name, tag, [e.message for e in errors])
        for bad in ({"kind": "no_such_kind"}, {}):
            (error,) = validator.iter_errors(bad)
            assert error.validator in ("enum", "required"), (name, error.message)


def _kinds_of(union: dict) -> set[str]:
    found, stack = set(), [union]
    while stack:
        node = stack.pop()
        if "if" in node:
            found.update(node["if"]["properties"]["kind"]["enum"])
            stack += [node["then"], node["else"]]
    return found


DEEP_SHAPES = {
    "sum": lambda n: "const x = " + " + ".join(["1"] * n) + "\n",
    "not": lambda n: "const x = " + "not " * n + "true\n",
    "conditional": lambda n: "const x = " + "if true then 1 else " * n + "2\n",
    "field": lambda n: "const x = y" + ".a" * n + "\n",
    "lists": lambda n: "const x = " + "[" * n + "1" + "]" * n + "\n",
    "ifs": lambda n: "setup {\n" + "if true {\n" * n + "log \"x\"\n" + "}\n" * n + "}\n",
}


@pytest.mark.parametrize("shape", DEEP_SHAPES)
def test_the_deepest_trees_the_parser_accepts_validate(shape):
    from rulebook.validator.diagnostics import DiagnosticError

    header = 'game "G" {\n    players 2\n}\n'
    make = DEEP_SHAPES[shape]
    deepest = None
    for n in range(1, 200):
        try:
            deepest = parse_text(header + make(n), "deep.rules")
        except DiagnosticError:
            break
    assert n > 30, "the parser's nesting limit is lower than expected"
    assert S.validate_program(deepest, "deep.rules") == []


def test_remembered_subtrees_never_hide_an_error():
    doc = tictactoe_instance()
    assert messages(doc) == []  # every subtree of the example is now remembered as valid
    const = doc["declarations"][1]
    const["value"] = {"kind": "int", "value": "three"}
    assert messages(doc) == ["'three' is not of type 'integer'"]
    assert messages(doc) == ["'three' is not of type 'integer'"]  # errors are never remembered
    const["value"] = {"kind": "name", "id": "size"}  # a subtree seen elsewhere in the file
    const["extra"] = 1
    assert messages(doc) == ["Additional properties are not allowed ('extra' was unexpected)"]
