"""Finding rulesets and merging variants onto the game they extend."""
from __future__ import annotations

from pathlib import Path

import pytest

from rulebook.grammar import ast as A
from rulebook.interpreter.game import Game
from rulebook.interpreter.rules import compile_rules
from rulebook.loader import bundled_names, load_ruleset, resolve_ruleset, walk
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]

GAME = '''game "Base" {
    players 2 to 4
}

const hand_size = 3
global pot: int = 0
player coins: int = 0

procedure income(p) {
    step collect {
        increase p.coins by 1
    }
}

when scored(p) {
    increase pot by 1
}

setup {
    step deal {
        set pot = hand_size
    }
}

play {
    rounds 2 {
        for p in players {
            choose p "Act" {
                option work {
                    step collect {
                        increase p.coins by 2
                    }
                }
            }
        }
    }
}

winner p in players by p.coins descending

scenario "base only" {
    players 2
}
'''


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def codes(excinfo) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in excinfo.value.diagnostics]


def decl(program: A.Program, kind: str, name: str | None = None):
    found = [d for d in program.declarations
             if d.kind == kind and (name is None or getattr(d, "name", None) == name)]
    assert len(found) == 1, found
    return found[0]


def steps_named(node, name: str) -> list[A.Step]:
    return [n for n in walk(node) if isinstance(n, A.Step) and n.name == name]


# ------------------------------------------------------------------------------- merging
def test_a_game_file_loads_as_itself(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    rs = load_ruleset(game)
    assert rs.chain == [game]
    assert rs.variant_titles == []
    assert rs.program.header.title == "Base"
    assert [s.name for s in rs.program.scenarios] == ["base only"]
    assert rs.files == {game: GAME}
    const = decl(rs.program, "const", "hand_size")
    assert A.file_of(const) == game
    assert A.file_of(const.value) == game


def test_variant_adds_overrides_and_sets_players_and_title(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "short.rules", '''variant "Short" extends "game.rules" {
    players 2
}
override const hand_size = 5
const bonus = 1
scenario "variant only" {
    players 2
}
''')
    rs = load_ruleset(variant)
    header = rs.program.header
    assert (header.kind, header.title, header.min_players, header.max_players) == \
        ("game", "Short", 2, 2)
    assert rs.game_title == "Base"
    assert rs.variant_titles == ["Short"]
    assert rs.chain == [game, variant]
    hand = decl(rs.program, "const", "hand_size")
    assert hand.value.value == 5
    assert A.file_of(hand) == variant
    assert A.file_of(decl(rs.program, "const", "bonus")) == variant
    assert A.file_of(decl(rs.program, "state", "pot")) == game
    # The override takes the place of the original declaration.
    names = [getattr(d, "name", d.kind) for d in rs.program.declarations]
    assert names.index("hand_size") < names.index("pot")
    assert names[-1] == "bonus"
    assert [s.name for s in rs.program.scenarios] == ["variant only"]
    assert rs.program.overrides == []


def test_variant_without_players_keeps_the_game_count(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n')
    header = load_ruleset(variant).program.header
    assert (header.min_players, header.max_players, header.title) == (2, 4, "V")


def test_variant_of_a_variant_takes_the_last_player_count(tmp_path):
    write(tmp_path, "game.rules", GAME)
    write(tmp_path, "a.rules", 'variant "A" extends "game.rules" {\n    players 3\n}\n'
          "override const hand_size = 7\n")
    b = write(tmp_path, "b.rules", 'variant "B" extends "a.rules" {\n}\n'
              "override const hand_size = 9\n")
    rs = load_ruleset(b)
    assert rs.variant_titles == ["A", "B"]
    assert (rs.program.header.min_players, rs.program.header.max_players) == (3, 3)
    assert decl(rs.program, "const", "hand_size").value.value == 9
    assert A.file_of(decl(rs.program, "const", "hand_size")) == b


def test_extends_is_relative_to_the_variant_file(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "variants/deep.rules",
                    'variant "Deep" extends "../game.rules" {\n}\n')
    assert load_ruleset(variant).chain == [game, variant]


def test_singleton_override_replaces_setup(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override setup {\n    set pot = 0\n}\n")
    rs = load_ruleset(variant)
    setup = decl(rs.program, "setup")
    assert [s.kind for s in setup.body] == ["set"]
    assert A.file_of(setup) == variant


def test_override_of_an_event_replaces_all_its_handlers(tmp_path):
    write(tmp_path, "game.rules", GAME + "when scored(p) {\n    log \"again\"\n}\n")
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override when scored(p) {\n    increase pot by 5\n}\n")
    handlers = [d for d in load_ruleset(variant).program.declarations if d.kind == "event"]
    assert len(handlers) == 1
    assert handlers[0].body[0].amount.value == 5


def test_new_event_handler_is_added_beside_the_base_ones(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "when scored(p) {\n    log \"extra\"\n}\n")
    handlers = [d for d in load_ruleset(variant).program.declarations if d.kind == "event"]
    assert len(handlers) == 2


# ---------------------------------------------------------------------------- step patches
def test_step_patches_apply_to_every_step_of_that_name(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", '''variant "V" extends "game.rules" {
}
before step collect {
    log "before"
}
after step collect {
    log "after"
}
override step deal {
    set pot = 99
}
''')
    rs = load_ruleset(variant)
    procedure = decl(rs.program, "procedure", "income")
    assert [s.kind for s in procedure.body] == ["log", "step", "log"]
    assert procedure.body[0].message.parts[0].text == "before"
    assert procedure.body[2].message.parts[0].text == "after"
    assert len(steps_named(decl(rs.program, "play"), "collect")) == 1
    (option,) = [n for n in walk(decl(rs.program, "play")) if isinstance(n, A.Option)]
    assert [s.kind for s in option.body] == ["log", "step", "log"]
    deal = steps_named(decl(rs.program, "setup"), "deal")[0]
    assert deal.body[0].value.value == 99
    assert A.file_of(deal) == game  # the step stays the game's; its new body is the variant's
    assert A.file_of(deal.body[0]) == variant
    assert A.file_of(procedure.body[0]) == variant
    assert A.file_of(procedure) == game


def test_a_guarded_step_patch_applies_only_where_its_condition_holds(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", '''variant "V" extends "game.rules" {
}
override step collect when seat(p) == 1 {
    increase p.coins by 10
}
after step collect when seat(p) == 2 {
    log "second"
}
''')
    rs = load_ruleset(variant)
    (guard, after) = decl(rs.program, "procedure", "income").body
    (step_if,) = guard.body
    assert step_if.kind == "if" and step_if.branches[0].test.kind == "binary"
    assert step_if.branches[0].body[0].amount.value == 10
    assert step_if.otherwise[0].amount.value == 1  # the game's own step, where the test fails
    assert after.kind == "if" and after.otherwise is None
    assert A.file_of(step_if) == variant and A.file_of(step_if.otherwise[0]) != variant
    game = Game(compile_rules(rs.program), 2, seed=1)
    while not game.over:
        game.apply(game.legal_options()[0][0])
    # 2 rounds of `work`: seat 1 collects 10 each time, seat 2 the game's 2
    assert [s.vars["coins"] for s in game.state.seats] == [20, 4]


def test_merging_does_not_change_the_parsed_game(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override step collect {\n    log \"patched\"\n}\n")
    first = load_ruleset(variant)
    second = load_ruleset(variant)
    plain = load_ruleset(game)
    for rs in (first, second):
        bodies = [s.body[0].kind for s in steps_named(rs.program, "collect")]
        assert bodies == ["log", "log"]
    assert [s.body[0].kind for s in steps_named(plain.program, "collect")] == ["change", "change"]


def test_step_patch_of_a_missing_step_is_an_error_with_a_suggestion(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "\nafter step colect {\n    log \"x\"\n}\n")
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    (d,) = e.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("E0507", variant, 4, 1)
    assert d.message == "no `step colect` in the game for `after step colect`"
    assert d.hint == "did you mean `collect`?"


# --------------------------------------------------------------------------------- errors
def test_override_of_nothing_is_an_error_with_a_suggestion(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override const hand_sise = 4\noverride scoring {\n}\n")
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert codes(e) == [("E0505", 3), ("E0505", 4)]
    first, second = e.value.diagnostics
    assert first.message == "nothing to override: the game has no const `hand_sise`"
    assert first.hint == "did you mean `hand_size`?"
    assert second.message == "nothing to override: the game has no `scoring`"


def test_override_must_name_the_same_kind(tmp_path):
    write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "override const pot = 4\n")
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert codes(e) == [("E0505", 3)]


def test_redeclaring_without_override_is_an_error(tmp_path):
    game = write(tmp_path, "game.rules", GAME)
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n'
                    "const hand_size = 4\nsetup {\n}\n")
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert codes(e) == [("E0506", 3), ("E0506", 4)]
    d = e.value.diagnostics[0]
    assert d.message == f"const `hand_size` is already declared in {game}"
    assert d.hint == f"write `override` before it to replace the one in {game}"


def test_extends_cycle_is_an_error(tmp_path):
    a = write(tmp_path, "a.rules", 'variant "A" extends "b.rules" {\n}\n')
    write(tmp_path, "b.rules", 'variant "B" extends "a.rules" {\n}\n')
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(a)
    (d,) = e.value.diagnostics
    assert d.code == "E0504"
    assert "cycle" in d.message and d.line == 1


def test_extends_a_missing_file_is_an_error(tmp_path):
    variant = write(tmp_path, "v.rules", 'variant "V" extends "nothere.rules" {\n}\n')
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert codes(e) == [("E0503", 1)]
    assert e.value.diagnostics[0].file == variant


def test_extending_a_file_without_a_game_header_is_an_error(tmp_path):
    write(tmp_path, "lib.rules", "const x = 1\n")
    variant = write(tmp_path, "v.rules", 'variant "V" extends "lib.rules" {\n}\n')
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert [d.code for d in e.value.diagnostics] == ["E0508"]


def test_syntax_errors_of_the_base_are_reported_in_the_base(tmp_path):
    game = write(tmp_path, "game.rules", 'game "G" {\n    players 2\n}\nconst = 3\n')
    variant = write(tmp_path, "v.rules", 'variant "V" extends "game.rules" {\n}\n')
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(variant)
    assert [(d.file, d.line) for d in e.value.diagnostics] == [(game, 4)]


# ---------------------------------------------------------------------------- resolution
def test_resolve_a_path_and_a_folder(tmp_path):
    game = write(tmp_path, "g/game.rules", GAME)
    write(tmp_path, "g/v.rules", 'variant "V" extends "game.rules" {\n}\n')
    write(tmp_path, "g/tests.rules", "# scenarios\nscenario \"s\" {\n    players 2\n}\n")
    assert resolve_ruleset(game) == Path(game)
    assert resolve_ruleset(str(tmp_path / "g")) == Path(game)


def test_folder_with_two_games_or_none_is_an_error(tmp_path):
    write(tmp_path, "two/a.rules", GAME)
    write(tmp_path, "two/b.rules", GAME)
    (tmp_path / "empty").mkdir()
    for folder, fragment in (("two", "2 game files: a.rules, b.rules"), ("empty", "no game file")):
        with pytest.raises(DiagnosticError) as e:
            resolve_ruleset(str(tmp_path / folder))
        assert e.value.diagnostics[0].code == "E0502"
        assert fragment in e.value.diagnostics[0].message


def test_bundled_names_resolve_to_the_repository_rulesets():
    rulesets = ROOT / "rulesets"
    assert resolve_ruleset("liqueur").resolve() == rulesets / "liqueur" / "liqueur.rules"
    assert resolve_ruleset("liqueur/two_players").resolve() == \
        rulesets / "liqueur" / "two_players.rules"
    assert resolve_ruleset("examples/tictactoe").resolve() == \
        rulesets / "examples" / "tictactoe.rules"
    names = bundled_names()
    assert {"liqueur", "liqueur/two_players", "beverage", "examples/tictactoe"} <= set(names)


def test_bundled_names_work_from_another_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_ruleset("liqueur").name == "liqueur.rules"


def test_unknown_name_suggests_a_bundled_one():
    with pytest.raises(DiagnosticError) as e:
        resolve_ruleset("liquer")
    (d,) = e.value.diagnostics
    assert d.code == "E0501"
    assert d.message == "no ruleset named `liquer`: not a file, a folder or a bundled name"
    assert d.hint == "did you mean `liqueur`?"


def test_bundled_variant_loads_merged():
    rs = load_ruleset(resolve_ruleset("liqueur/two_players"))
    assert (rs.program.header.min_players, rs.program.header.max_players) == (2, 2)
    assert rs.variant_titles == ["Two Players Variant"]
    assert len(rs.chain) == 2


def test_a_game_file_cannot_override(tmp_path):
    game = write(tmp_path, "game.rules", GAME + "override const hand_size = 1\n")
    with pytest.raises(DiagnosticError) as e:
        load_ruleset(game)
    assert codes(e) == [("E0510", GAME.count("\n") + 1)]


def test_the_steps_of_a_declaration_are_found_once_and_forgotten_with_it():
    import gc

    from rulebook import loader
    from rulebook.grammar.parser import parse_text

    program = parse_text('game "G" {\n    players 2\n}\nprocedure p() {\n    step a {\n'
                         '        step b {\n            pass\n        }\n    }\n}\n', "g.rules")
    decl = program.declarations[0]
    assert loader._steps_in(decl) == {"a", "b"}
    key = id(decl)
    assert loader._STEPS_IN[key][0]() is decl
    del decl, program
    gc.collect()
    assert key not in loader._STEPS_IN
