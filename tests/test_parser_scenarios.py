"""Parser: scenario tests written in the language."""
from __future__ import annotations

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text

HEADER = 'game "Scenarios" {\n    players 2\n}\n'

SCENARIO = '''scenario "taking from the bottom row is free" cite "Market" {
    ruleset "game.rules"
    players 3
    seed 7
    given { set players[1].tokens = 0 }
    choose players[1] "take_bottom:3"
    refuse players[1] "take_row:2:1"
    expect players[1].tokens == 0 "no token was paid"
    expect game_over
    expect option players[2] "ship:1"
    expect no option players[2] "ship:2"
    expect log "takes"
    expect error "unknown option"
    play to end with random
}
'''


def test_scenario_items_in_order():
    program = parse_text(HEADER + SCENARIO)
    (scenario,) = program.scenarios
    assert isinstance(scenario, A.Scenario)
    assert scenario.name == "taking from the bottom row is free"
    assert scenario.meta.cite == ["Market"]
    kinds = [i.kind for i in scenario.items]
    assert kinds == ["sc_ruleset", "sc_players", "sc_seed", "sc_given", "sc_choose", "sc_refuse",
                     "sc_expect", "sc_expect", "sc_expect_option", "sc_expect_option",
                     "sc_expect_log", "sc_expect_error", "sc_play_to_end"]
    items = scenario.items
    assert items[0].path == "game.rules"
    assert (items[1].count, items[2].seed) == (3, 7)
    assert isinstance(items[3].body[0], A.Set)
    assert items[4].option.value == "take_bottom:3" and isinstance(items[4].player, A.Index)
    assert items[5].option.value == "take_row:2:1"
    assert items[6].message == "no token was paid" and items[6].test.op == "=="
    assert items[7].message is None and items[7].test.id == "game_over"
    assert (items[8].present, items[9].present) == (True, False)
    assert items[10].text.value == "takes" and items[11].text == "unknown option"
    assert items[12].agent == "random"


def test_scenario_spans():
    (scenario,) = parse_text(HEADER + SCENARIO).scenarios
    s = scenario.span
    assert (s.line, s.column, s.end_line, s.end_column) == (4, 1, 18, 2)
    given = scenario.items[3].span
    assert (given.line, given.column) == (8, 5)


def test_file_of_scenarios_only():
    program = parse_text('scenario "a" {\n    ruleset "game.rules"\n}\nscenario "b" {\n}\n')
    assert program.header is None
    assert [s.name for s in program.scenarios] == ["a", "b"]
    assert program.scenarios[1].items == []


def test_scenarios_sit_beside_declarations():
    program = parse_text(HEADER + "const a = 1\n" + SCENARIO + "const b = 2\n")
    assert [d.name for d in program.declarations] == ["a", "b"]
    assert len(program.scenarios) == 1


def test_a_scenario_checks_what_a_value_or_its_shape_shows():
    (scenario,) = parse_text(HEADER + '''scenario "screens" {
    expect hidden players[1].plan to players[2]
    expect hidden shape players[1].plan to players[2] "not even its size"
    expect visible shape players[1].submitted to players[2]
    expect visible (shape) to players[2]
}
''').scenarios
    checks = [(i.visible, i.shape, i.message) for i in scenario.items]
    assert checks == [(False, False, None), (False, True, "not even its size"),
                      (True, True, None), (True, False, None)]
    assert scenario.items[3].target.id == "shape"  # a value named `shape`, in parentheses
