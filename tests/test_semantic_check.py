"""The check pipeline (parse, schema, merge, semantic checks), folders, scenario files and the
list of assumptions."""
from __future__ import annotations

from pathlib import Path

from rulebook.validator.check import check_path, check_paths, list_assumptions

ROOT = Path(__file__).resolve().parents[1]

GAME = '''game "G" {
    players 2
}
const goal = 3
global pot: int = 0 assumed "the book prints no starting pot"
setup {
    step start {
        set pot = goal
    }
}
winner p in players by pot
'''


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def located(result) -> list[tuple[str, str, int]]:
    return [(Path(d.file).name, d.code, d.line) for d in result.diagnostics]


def test_every_shipped_ruleset_checks_without_errors():
    result, count = check_paths([ROOT / "rulesets"])
    assert count == len(list((ROOT / "rulesets").rglob("*.rules")))
    assert [d for d in result.diagnostics if d.is_error] == []


def test_a_clean_game(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    result = check_path(game)
    assert result.diagnostics == []
    assert result.sources == {game: GAME}


def test_syntax_errors_stop_before_later_stages(tmp_path):
    bad = write(tmp_path, "bad.rules",
                'game "G" {\n    players 2\n}\nconst = 1\nconst y = nothing\n')
    result = check_path(bad)
    assert located(result) == [("bad.rules", "E0100", 4)]
    assert bad in result.sources


def test_missing_file_is_reported(tmp_path):
    result = check_path(tmp_path / "none.rules")
    assert [d.code for d in result.diagnostics] == ["E0001"]


def test_variant_errors_are_located_in_the_variant(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "after step start {\n    set pot = gaol\n}\n")
    result = check_path(variant)
    assert located(result) == [("v.rules", "E0201", 4)]
    assert set(result.sources) == {str(tmp_path / "game.rules"), variant}


def test_variant_merge_errors_are_reported(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override const gol = 4\n")
    assert located(check_path(variant)) == [("v.rules", "E0505", 3)]


def test_warnings_of_the_game_are_not_repeated_for_its_variants(tmp_path):
    game = write(tmp_path, "game.rules", GAME + "global unused: int = 0\n")
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n')
    assert located(check_path(game)) == [("game.rules", "W0201", 12)]
    assert check_path(variant).diagnostics == []


def test_errors_of_the_game_appear_once_in_a_folder_check(tmp_path):
    write(tmp_path, "game.rules", GAME + "const bad = nothing\n")
    write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n')
    result, count = check_paths([tmp_path])
    assert count == 2
    assert located(result) == [("game.rules", "E0201", 12)]


def test_scenario_file_is_checked_against_its_ruleset(tmp_path):
    write(tmp_path, "game.rules", GAME)
    tests = write(tmp_path, "tests/pot.rules", '''scenario "pot" {
    ruleset "../game.rules"
    players 2
    expect pot == goal
    expect pott == 3
}
scenario "no ruleset" {
    players 2
}
''')
    result = check_path(tests)
    assert located(result) == [("pot.rules", "E0201", 5), ("pot.rules", "E0509", 7)]


def test_scenario_file_naming_a_missing_ruleset(tmp_path):
    tests = write(tmp_path, "t.rules", 'scenario "s" {\n    ruleset "nothere.rules"\n}\n')
    result = check_path(tests)
    assert located(result) == [("t.rules", "E0501", 2)]


def test_folders_expand_to_sorted_rules_files_and_missing_paths_are_reported(tmp_path):
    write(tmp_path, "b/game.rules", GAME.replace("const goal = 3", "const goal = nope"))
    write(tmp_path, "a/game.rules", GAME.replace("const goal = 3", "const goal = nope"))
    write(tmp_path, "a/notes.txt", "not rules")
    result, count = check_paths([tmp_path, tmp_path / "missing"])
    assert count == 2
    assert [(str(Path(d.file).relative_to(tmp_path)), d.code) for d in result.diagnostics] == [
        ("a/game.rules", "E0201"), ("b/game.rules", "E0201"), ("missing", "E0001")]


def test_list_assumptions(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    assert list_assumptions([tmp_path]) == [{
        "file": game, "line": 5, "name": "pot", "kind": "state",
        "reason": "the book prints no starting pot",
    }]


def test_shipped_rulesets_list_their_assumptions():
    found = list_assumptions([ROOT / "rulesets"])
    assert found, "the shipped rulesets mark the values the rulebooks do not print"
    assert all(a["reason"] and a["line"] for a in found)


def test_overrides_outside_a_variant_are_errors(tmp_path):
    game = write(tmp_path, "game.rules", GAME + "override const goal = 4\nafter step start {\n}\n")
    assert located(check_path(game)) == [("game.rules", "E0510", 12), ("game.rules", "E0510", 13)]
