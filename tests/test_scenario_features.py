"""What scenario writers asked for: names, every failure reported with its values, helpers in test
files, texts with holes, option lists, `pending`, seeds, invariants after `given`, variants."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rulebook.cli import main
from rulebook.scenarios import run_file

GAME = '''game "Cards" {
    players 2 to 3
}
global deck: list of int = [1, 2, 3, 4, 5, 6] secret
global row: list of int
global total: int = 21
player hand: list of int
player points: int
setup {
    shuffle deck
}
invariant cards_kept "the six cards are somewhere": size(deck) + size(row) + sum(size(p.hand) for p in players) == 6
play {
    rounds 2 {
        for p in players {
            choose p "Take a card" {
                option take for c in row label "take {c}" { move c from row to p.hand }
                option draw where size(deck) > 0 { move top 1 from deck to p.hand }
                option pass label "pass" { }
            }
        }
    }
}
scoring {
    for p in players {
        set p.points = sum(p.hand)
    }
}
winner p in players by p.points descending, random
'''


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    return result


def outcome_of(tmp_path: Path, scenarios: str, helpers: str = ""):
    (tmp_path / "game.rules").write_text(GAME, encoding="utf-8")
    (tmp_path / "tests").mkdir(exist_ok=True)
    test = tmp_path / "tests" / "t.rules"
    test.write_text(helpers + scenarios, encoding="utf-8")
    return run_file(str(test))


def failures(outcome) -> list[str]:
    assert not outcome.diagnostics, [d.message for d in outcome.diagnostics]
    return [d.message for r in outcome.results for d in r.failures]


def test_let_names_a_value_for_the_rest_of_the_scenario(tmp_path):
    out = outcome_of(tmp_path, '''scenario "names" {
    ruleset "../game.rules"
    players 2
    let opener = players[1]
    let top_card = deck[1]
    choose opener "draw"
    expect top_card in opener.hand
    expect size(opener.hand) == 1 "one card drawn"
}
''')
    assert failures(out) == []


def test_every_failed_expectation_is_reported_with_its_values(tmp_path):
    out = outcome_of(tmp_path, '''scenario "several failures" {
    ruleset "../game.rules"
    players 2
    expect total == 20 "the total"
    expect total > 0 and size(row) > 0 "both"
    expect not (total > 0) "negated"
    expect all(p in players where size(p.hand) > 0) "everyone holds a card"
    expect total == 21
}
''')
    messages = failures(out)
    assert len(messages) == 4
    assert messages[0] == "the total: left side is `21`, right side is `20`"
    assert messages[1] == "both: `total > 0` is yes; `size(row) > 0` is no"
    assert messages[2] == "negated: `total > 0` is yes"
    assert messages[3].startswith("everyone holds a card: `size(p.hand) > 0` fails for p = ")


def test_procedures_and_defines_of_a_test_file_serve_its_scenarios(tmp_path):
    helpers = '''const wanted = 2

define hand_size(p) = size(p.hand)

procedure arrange(p) {
    move top wanted from deck to p.hand
}

'''
    out = outcome_of(tmp_path, '''scenario "arranged" {
    ruleset "../game.rules"
    players 2
    given {
        do arrange(players[2])
    }
    expect hand_size(players[2]) == wanted
}
''', helpers)
    assert failures(out) == []


def test_a_test_file_may_not_declare_state(tmp_path):
    out = outcome_of(tmp_path, 'scenario "s" {\n    ruleset "../game.rules"\n}\n',
                     "global extra: int\n\n")
    assert [(d.code, d.line) for d in out.diagnostics] == [("E0515", 1)]


def test_texts_hold_holes_and_logs_can_be_absent(tmp_path):
    out = outcome_of(tmp_path, '''scenario "holes" {
    ruleset "../game.rules"
    players 2
    given {
        move top 1 from deck to row
    }
    let card = row[1]
    expect option players[1] "take:{card}"
    choose players[1] "take {card}"
    expect log "player 1: take {card}" "the decision is logged"
    expect no log "player 2:" to players[1]
    expect no log "player 1: take" "a wrong expectation"
}
''')
    messages = failures(out)
    assert len(messages) == 1 and messages[0].startswith("a wrong expectation: a log line")


def test_expect_options_lists_or_counts_the_legal_options(tmp_path):
    out = outcome_of(tmp_path, '''scenario "options" {
    ruleset "../game.rules"
    players 2
    expect options players[1] == ["draw", "pass"]
    expect options players[1] == 2
    expect options players[2] == 0 "not their turn"
    expect options players[1] == ["pass"] "wrong on purpose"
}
''')
    messages = failures(out)
    assert messages == ["wrong on purpose: the legal options of player 1 are [draw, pass] "
                        "(not expected: draw)"]


def test_choose_pending_and_a_refuse_with_its_reason(tmp_path):
    out = outcome_of(tmp_path, '''scenario "pending" {
    ruleset "../game.rules"
    players 2
    choose pending "pass"
    expect pending_player == players[2]
    refuse pending "take:9" "there is no such card"
    choose pending "draw"
}
''')
    assert failures(out) == []


def test_a_label_that_two_options_share_is_ambiguous(tmp_path):
    text = GAME.replace('option pass label "pass" { }',
                        'option pass label "skip" { }\n                option wait label "skip" { }')
    (tmp_path / "game.rules").write_text(text, encoding="utf-8")
    test = tmp_path / "t.rules"
    test.write_text('scenario "labels" {\n    ruleset "game.rules"\n    players 2\n'
                    '    choose players[1] "skip"\n}\n', encoding="utf-8")
    (message,) = [d for r in run_file(str(test)).results for d in r.failures]
    assert "`skip` is the label of 2 options" in message.message
    assert "pass, wait" in message.hint


def test_seeds_run_a_scenario_many_times_and_count_how_often(tmp_path):
    out = outcome_of(tmp_path, '''scenario "random ties" {
    ruleset "../game.rules"
    players 2
    seeds 1..30
    play to end with first
    expect game_over
    expect sometimes players[1] in winners
    expect sometimes players[2] in winners
    expect players[1] in winners on 5 to 25 seeds
    expect size(winners) == 1 on at least 30 seeds
}
''')
    assert failures(out) == []
    out = outcome_of(tmp_path, '''scenario "too strict" {
    ruleset "../game.rules"
    players 2
    seeds 1..10
    play to end with first
    expect players[1] in winners on at least 10 seeds "always the first"
    expect players[1] in winners "plain"
}
''')
    messages = failures(out)
    assert any(m.startswith("always the first: it held on ") and m.endswith(
        "of 10 seeds, wanted on at least 10 seeds") for m in messages)
    assert any(m.startswith("seed ") and "(and on " in m for m in messages)


def test_a_counted_expectation_that_no_seed_reached_says_so(tmp_path):
    out = outcome_of(tmp_path, '''scenario "stops early" {
    ruleset "../game.rules"
    players 2
    seeds 1..3
    choose players[2] "pass"
    expect sometimes total == 21
}
''')
    messages = failures(out)
    assert len(messages) == 2 and "not player 2's (and on 2 more seeds)" in messages[0]
    assert messages[1] == ("expectation failed: no seed came this far (each stopped at an "
                           "earlier failure), wanted at least once")


def test_a_given_that_breaks_an_invariant_is_reported_at_its_end(tmp_path):
    out = outcome_of(tmp_path, '''scenario "broken" {
    ruleset "../game.rules"
    players 2
    given {
        add 7 to row
    }
    expect true
}
''')
    (d,) = [d for r in out.results for d in r.failures]
    assert d.line == 6 and "breaks an invariant" in d.message  # the end of the `given` block
    assert "cards_kept" in d.message and "left side is `7`, right side is `6`" in d.message


def test_an_error_inside_given_points_at_the_statement(tmp_path):
    out = outcome_of(tmp_path, '''scenario "error" {
    ruleset "../game.rules"
    players 2
    given {
        set total = 1
        set total = total / 0
    }
}
''')
    (d,) = [d for r in out.results for d in r.failures]
    assert d.line == 6 and "division by zero" in d.message  # the statement, not `given {`


def test_play_until_stops_where_the_condition_holds(tmp_path):
    out = outcome_of(tmp_path, '''scenario "until round 2" {
    ruleset "../game.rules"
    players 2
    play until round == 2 with first
    expect round == 2 and not game_over
    expect pending_player == players[1]
}
''')
    assert failures(out) == []


VARIANT_A = '''variant "Bigger total" extends "game.rules" {
}
override const bonus = 5
'''


def test_variants_combine_and_conflicts_name_both_places(tmp_path):
    game = GAME.replace("global total: int = 21", "const bonus = 0\nglobal total: int = 21 + bonus")
    (tmp_path / "game.rules").write_text(game, encoding="utf-8")
    (tmp_path / "bigger.rules").write_text(VARIANT_A, encoding="utf-8")
    (tmp_path / "smaller.rules").write_text(VARIANT_A.replace("Bigger", "Smaller")
                                            .replace("= 5", "= -5"), encoding="utf-8")
    (tmp_path / "three.rules").write_text('variant "Three" extends "game.rules" {\n'
                                          '    players 3\n}\n', encoding="utf-8")
    test = tmp_path / "t.rules"
    test.write_text('''scenario "combined" {
    ruleset "game.rules"
    variant "bigger"
    variant "three"
    players 3
    expect total == 26
}
scenario "conflict" {
    ruleset "game.rules"
    variant "bigger"
    variant "smaller"
}
''', encoding="utf-8")
    result = run("check", str(test))
    assert result.exit_code == 1
    assert f"{test}:9:5: error[E0513]: const `bonus` is changed by two chosen variants" \
        in result.output
    assert "also changed here" in result.output
    test.write_text(test.read_text().split('scenario "conflict"')[0], encoding="utf-8")
    assert run("test", str(test)).output.strip().endswith("1 passed, 0 failed")
    sim = run("simulate", str(tmp_path / "game.rules"), "--variant", "bigger", "--variant",
              "three", "--players", "3", "--games", "3", "--json")
    assert sim.exit_code == 0 and '"variants": [\n    "bigger",\n    "three"\n  ]' in sim.output
    bad = run("simulate", str(tmp_path / "game.rules"), "--variant", "bigger", "--variant",
              "smaller", "--games", "1")
    assert bad.exit_code == 1 and "E0513" in bad.output
    missing = run("play", str(tmp_path / "game.rules"), "--variant", "bigr")
    assert missing.exit_code == 1 and "E0514" in missing.output and "bigger" in missing.output


def test_a_save_remembers_its_variants(tmp_path):
    from rulebook import api

    rules = api.load("beverage", ["open_market", "handicaps"])
    assert rules.variants == ["open_market", "handicaps"]
    game = api.new_game(rules, 3, seed=2)
    game.apply(game.legal_options()[0][0])
    api.save(game, tmp_path / "s.json")
    again = api.load_game(tmp_path / "s.json")
    assert again.rules.variants == ["open_market", "handicaps"] and len(again.history) == 1


def test_beverage_keeps_one_file_per_alternative_rule():
    root = Path(__file__).resolve().parents[1] / "rulesets" / "beverage"
    assert sorted(p.stem for p in root.glob("*.rules")) == [
        "beverage", "first_game", "handicaps", "open_market", "recession_free"]


SECRET_PICKS = '''game "Picks" {
    players 3
}
player hand: list of int = [1, 2, 3] owner
player pick: int = 0 owner
play {
    repeat 2 times {
        simultaneously for p in players {
            choose p "Pick a card" {
                option play for c in p.hand label "play {c}" {
                    remove c from p.hand
                    set p.pick = c
                }
            }
        }
    }
    for p in players {
        choose p "Keep or give" {
            option keep where size(p.hand) > 0 { }
            otherwise {
                log "{p} has nothing left"
            }
        }
    }
}
winner p in players by p.pick
'''


def test_a_given_that_leaves_a_decision_no_option_passes_it_over(tmp_path):
    # in `simultaneously`, the emptied part goes on without its decision, the others are asked
    game = tmp_path / "picks.rules"
    game.write_text(SECRET_PICKS + '''
scenario "a hand emptied while the others pick" {
    players 3
    given {
        set players[2].hand = []
    }
    expect options players[2] == []
    choose players[1] "play:1"
    choose players[3] "play:3"
    expect players[1].pick == 1 and players[3].pick == 3 and players[2].pick == 0
    choose players[1] "play:2"
    expect pending_player == players[3] "the next round skips the empty hand"
    choose players[3] "play:2"
    given {
        set players[1].hand = []
    }
    expect log "player 1 has nothing left" "the emptied decision runs its `otherwise`"
    expect pending_player == players[3]
    expect not game_over
}
''', encoding="utf-8")
    out = run_file(str(game))
    assert failures(out) == []
    assert [r.passed for r in out.results] == [True]
def test_an_element_of_a_pile_with_a_face_up_top_is_expected_visible_or_hidden(tmp_path):
    game = tmp_path / "pile.rules"
    game.write_text('''game "Pile" {
    players 2
}
global pile: deck of int = [7, 8, 9] secret top 1 public
play {
    choose players[1] "Draw" {
        option draw {
            move top 1 from pile to pile at bottom
        }
    }
}
scenario "the top is face up" {
    expect visible pile[1] to players[2] "the top card is face up"
    expect hidden pile[2] to players[2]
    expect hidden pile to players[2] "the pile as a whole stays face down"
    expect visible pile[2] to players[1] "a wrong expectation, reported"
}
''', encoding="utf-8")
    out = run_file(str(game))
    assert failures(out) == [
        "a wrong expectation, reported: player 1 does not see `pile[2]`"]


def test_expect_error_first_catches_an_error_while_the_game_starts(tmp_path):
    game = tmp_path / "broken.rules"
    game.write_text('''game "Broken setup" {
    players 2
}
global xs: list of int
setup {
    log "{top(xs) + 1}"
}
''')
    tests = tmp_path / "tests"
    tests.mkdir()
    scenarios = tests / "t.rules"
    scenarios.write_text('''scenario "the setup stops" {
    ruleset "../broken.rules"
    players 2
    expect error "needs numbers"
}
scenario "another text" {
    ruleset "../broken.rules"
    players 2
    expect error "garden"
}
scenario "played to its end" {
    ruleset "../broken.rules"
    players 2
    play to end with random
    expect error "needs numbers"
}
scenario "played, and the error not expected" {
    ruleset "../broken.rules"
    players 2
    play to end with random
}
''')
    failed = failures(run_file(str(scenarios)))
    assert len(failed) == 2, failed
    assert "not `garden`" in failed[0]
    assert "the game stopped with an error" in failed[1] and "needs numbers" in failed[1]
