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


# ------------------------------------------------------------------ each rule's limits
def game(body: str) -> str:
    return "player caps: int = 3 shown\nconst most = 4\n" + body


def codes_of(tmp_path: Path, text: str) -> list[str]:
    diagnostics = lint(tmp_path, text)
    assert not [d for d in diagnostics if d.is_error], diagnostics
    return [d.code for d in diagnostics]


def one_choice(option: str, header: str = "choose p \"Go\"") -> str:
    return game("play {\n    for p in players {\n        " + header + " {\n            "
                + option + " {\n                increase p.caps by 1\n            }\n"
                "            option other {\n            }\n        }\n    }\n}\n")


@pytest.mark.parametrize("option", [
    "option a where p.caps > 3 and p.caps < 4",
    "option a where 2 > most",
    "option a where false",
    "option a for n in 2..most where n < 2 or false",  # `or`: the whole of it is false
    "option a for n in 1..1 where n != 1",
    "option a for n in most..10 where p.caps > 0 and n * 1 <= 3 and n < most",
    "option a where -p.caps >= 0 and -p.caps < -most",
])
def test_where_that_never_holds(tmp_path, option):
    expected = ["W0202"] if "or false" not in option else []
    assert [c for c in codes_of(tmp_path, one_choice(option)) if c == "W0202"] == expected


@pytest.mark.parametrize("option", [
    "option a where p.caps >= 2 and p.caps <= 2",
    "option a where random_int(1, 6) > 3 and random_int(1, 6) < 2",  # two draws
    "option a where twice(p.caps) > 3 and twice(p.caps) < 2",  # a define may draw
    "option a for n in 1..p.caps where n > most",
    "option a where p.caps != 1 and p.caps != 2 and p.caps != 3",
])
def test_where_that_may_hold_is_left_alone(tmp_path, option):
    text = one_choice(option) + "define twice(x) = x * 2\n"
    assert "W0202" not in codes_of(tmp_path, text)


@pytest.mark.parametrize("header, fires", [
    ('choose p "Go"', True),
    ('repeat choose p "Go"', False),
    ('choose p "Go" optional', False),
    ('choose p "Go" confirm', False),
])
def test_a_single_option_decision(tmp_path, header, fires):
    text = game("play {\n    for p in players {\n        " + header + " {\n"
                "            option a for n in most..4 {\n                increase p.caps by n\n"
                "            }\n        }\n    }\n}\n")
    assert ("W0205" in codes_of(tmp_path, text)) is fires


def test_a_decision_over_a_collection_is_not_single(tmp_path):
    text = game("play {\n    for p in players {\n        choose p \"Go\" {\n"
                "            option a for q in players {\n                increase q.caps by 1\n"
                "            }\n        }\n    }\n}\n")
    assert "W0205" not in codes_of(tmp_path, text)


def test_unreached_statements_and_phases(tmp_path):
    text = game("const never = false\nplay {\n    rounds {\n"
                "        phase dusk when never {\n            step nap {\n"
                "                increase players[1].caps by 1\n            }\n        }\n"
                "        phase day {\n            for p in players {\n"
                "                stop\n                increase p.caps by 1\n            }\n"
                "            end game\n        }\n    }\n}\n")
    diagnostics = [d for d in lint(tmp_path, text) if d.code == "W0203"]
    assert [(d.line, d.message.split(":")[0]) for d in diagnostics] == [
        (11, "step `nap` is never reached"), (18, "this `increase` is never reached")]


def test_a_procedure_called_only_by_an_uncalled_one_is_unreached(tmp_path):
    text = game("procedure a() {\n    do b()\n}\nprocedure b() {\n}\n"
                "procedure c() {\n}\nplay {\n    do c()\n}\n")
    messages = [d.message for d in lint(tmp_path, text) if d.code == "W0203"]
    assert messages == ["procedure `a` is never called by anything that runs",
                        "procedure `b` is never called by anything that runs"]


def test_a_procedure_a_variant_or_a_scenario_file_calls_is_reached(tmp_path):
    text = game("procedure for_variant() {\n    do helper()\n}\nprocedure helper() {\n}\n"
                "procedure for_tests() {\n}\nplay {\n}\n")
    folder = tmp_path / "game"
    assert codes_of(tmp_path, text).count("W0203") == 3
    (folder / "variant.rules").write_text(
        'variant "V" extends "game.rules" {\n}\n\noverride play {\n    do for_variant()\n}\n')
    (folder / "tests").mkdir()
    (folder / "tests" / "t.rules").write_text(
        'scenario "s" {\n    ruleset "../game.rules"\n    players 2\n'
        '    given {\n        do for_tests()\n    }\n}\n')
    result = lint_paths([str(folder)])
    assert [d for d in result.diagnostics if d.code == "W0203"] == [], result.diagnostics


def test_assumption_reasons(tmp_path):
    for reason, fires in (("", True), ("  ?  ", True), ("TBD", True),
                          ("the book prints no number; 4 fits the board", False)):
        text = game(f'const guess = 4 assumed "{reason}"\nplay {{\n    log "{{guess}}"\n}}\n')
        assert ("W0206" in codes_of(tmp_path, text)) is fires, reason


def test_cites_of_a_bundled_ruleset_name_its_listed_sections(tmp_path):
    """Dewdrop Garden lists its rules text's sections in its opening comment: with them as the
    book's sections, every cite names one; a misspelled cite is found."""
    source = (ROOT / "rulesets" / "examples" / "dewdrop_garden.rules").read_text()
    sections = ["Setup", "Your turn", "Paying for tiles", "No room", "Seed packet", "Bees",
                "Weeds", "The crow", "End"]
    folder = tmp_path / "garden"
    folder.mkdir()
    (folder / "book.txt").write_text("# Dewdrop Garden\n\n" + "\n".join(sections) + "\n")
    (folder / "rulebook.toml").write_text('book-sections-file = "book.txt"\n')
    (folder / "garden.rules").write_text(source)
    assert lint_paths([str(folder)]).diagnostics == []
    (folder / "garden.rules").write_text(source.replace('cite "The crow"', 'cite "The crows"', 1))
    found = lint_paths([str(folder)]).diagnostics
    assert [(d.code, d.message, d.hint) for d in found] == [
        ("W0204", 'cite "The crows" names no section of the book', 'did you mean "The crow"?')]
    line = source.splitlines()[found[0].line - 1]
    assert line[found[0].column - 1:].startswith('cite "The crow')


def test_liqueur_lists_its_books_sections_and_cites_only_them():
    """rulesets/liqueur/rulebook.toml lists the book's sections: the bundled check is clean with
    them (above); without one of them, the cites of that section are found."""
    from rulebook.loader import parse_cached
    from rulebook.validator.lint_cites import unlisted_cites
    from rulebook.validator.lint_config import load_config

    bundled = ROOT / "rulesets" / "liqueur"
    sections = load_config(bundled / "rulebook.toml", frozenset(code_docs())).sections
    assert "Components" in sections and len(sections) > 8
    text, program = parse_cached(str(bundled / "liqueur.rules"))
    fewer = [s for s in sections if s != "Components"]
    found = unlisted_cites(program, fewer, str(bundled / "liqueur.rules"), text)
    assert len(found) == text.count('cite "Components"')
    assert {d.message for d in found} == {'cite "Components" names no section of the book'}
