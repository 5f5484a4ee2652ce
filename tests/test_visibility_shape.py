"""What a hidden value's shape shows (`shape public` / `shape secret`): per-seat views, logs, the
terminal and scenario checks show where a hidden value holds something, never what; by default a
list or deck shows its size and nothing else shows anything."""
from __future__ import annotations

import json

from click.testing import CliRunner
from engine_helpers import game_of, header

from rulebook.cli import main
from rulebook.interpreter.human import is_listed, value_text
from rulebook.interpreter.view import view
from rulebook.scenarios import run_file

SHAPES = header("2") + """
record Beer { name: text }
table beers of Beer {
    name
    "Stout"
    "Porter"
}
player submitted: Beer? = none secret shape public
player note: Beer? = none owner
player plan: list of int owner shape secret
player hand: list of int owner
player board: grid 2 by 2 of int? owner
player tiles: grid 2 by 2 of int? owner shape public
player bag: map of int to int secret shape public
setup {
    for p in players {
        set p.plan = [1, 2, 3]
        set p.hand = [4, 5]
        set p.board[2, 1] = 7
        set p.tiles[1, 2] = 5
        set p.bag[3] = 9
        set p.note = beers[2]
    }
}
play {
    simultaneously for p in players {
        choose p "Submit a beer?" {
            option brew for b in beers where seat(p) == 1 label "{b.name}" {
                set p.submitted = b
            }
            option skip {
            }
        }
    }
    log "the beers lie face down"
    choose players[2] "Look at the table" {
        option look {
        }
        option wait {
        }
    }
    choose players[1] "Open" {
        option open {
            reveal players[1].submitted
        }
    }
}
"""


def seen(game, viewer, seat, name):
    return view(game, viewer)["players"][seat - 1]["vars"][name]


def test_a_value_that_may_be_none_shows_only_whether_it_is_there():
    g = game_of(SHAPES, players=2)
    for viewer in (1, 2, None):  # secret: not even its owner sees the beer
        assert seen(g, viewer, 1, "submitted") == {"hidden": True, "present": False}
    g.apply("brew:stout", 1)
    g.apply("skip", 2)
    for viewer in (1, 2, None):
        assert seen(g, viewer, 1, "submitted") == {"hidden": True, "present": True}
        assert seen(g, viewer, 2, "submitted") == {"hidden": True, "present": False}
    assert g.state.seats[0].vars["submitted"] is not None


def test_what_a_shape_shows_is_never_the_value():
    g = game_of(SHAPES, players=2)
    g.apply("brew:stout", 1)
    g.apply("skip", 2)
    other = view(g, 2)
    assert "Stout" not in json.dumps(other["players"][0])
    assert not any("Stout" in line for line in other["log"])  # the decision is player 1's own
    assert "the beers lie face down" in other["log"]
    assert "Stout" not in json.dumps(view(g, None))
    g.apply("look", 2)
    g.apply("open", 1)  # revealed: now everybody sees the beer itself
    assert seen(g, 2, 1, "submitted")["name"] == "Stout"


def test_a_secret_shape_shows_nothing_and_the_defaults_are_as_before():
    g = game_of(SHAPES, players=2)
    assert seen(g, 2, 1, "plan") == {"hidden": True}  # `shape secret`: not even its size
    assert seen(g, 1, 1, "plan") == [1, 2, 3]  # its owner sees it all
    assert seen(g, 2, 1, "hand") == {"hidden": True, "size": 2}  # a hidden list: its size
    assert seen(g, 2, 1, "note") == {"hidden": True}  # a hidden `T?`: nothing
    # a hidden grid shows nothing by default: no more how many cells hold something
    assert seen(g, 2, 1, "board") == {"hidden": True}
    assert seen(g, 1, 1, "board") == [[None, None], [7, None]]


def test_a_public_shape_of_a_grid_or_map_shows_where_it_holds_something():
    g = game_of(SHAPES, players=2)
    assert seen(g, 2, 1, "tiles") == {"hidden": True, "size": 1,
                                      "occupied": [[False, True], [False, False]]}
    assert seen(g, 2, 1, "bag") == {"hidden": True, "size": 1, "keys": [3]}
    assert "5" not in json.dumps(seen(g, 2, 1, "tiles")) and "9" not in json.dumps(
        seen(g, 2, 1, "bag"))


def test_the_terminal_reads_a_shape_and_lists_a_value_only_while_it_holds_something():
    g = game_of(SHAPES, players=2)
    table = view(g, 2)
    submitted = seen(g, 2, 1, "submitted")
    assert value_text(submitted) == "(hidden, none)"
    assert not is_listed("submitted", submitted, table)
    assert value_text(seen(g, 2, 1, "plan")) == "(hidden)"
    assert value_text(seen(g, 2, 1, "board")) == "(hidden)"
    assert value_text(seen(g, 2, 1, "tiles")) == "(hidden)\n      row 1: - | ?\n      row 2: - | -"
    assert value_text(seen(g, 2, 1, "bag")) == "(hidden, keys: 3)"
    g.apply("brew:porter", 1)
    g.apply("skip", 2)
    submitted = seen(g, 2, 1, "submitted")
    assert value_text(submitted) == "(hidden, present)" and is_listed("submitted", submitted, table)


def test_at_the_terminal_the_other_player_sees_that_a_beer_was_submitted_not_which(tmp_path):
    path = tmp_path / "shapes.rules"
    path.write_text(SHAPES, encoding="utf-8")
    result = CliRunner().invoke(main, ["play", str(path), "--seed", "1", "--seat", "1=first",
                                       "--seat", "2=human"], input="1\n1\n")
    assert "Traceback" not in result.output
    before_open = result.output.split("Winner")[0]
    assert "(hidden, present)" in before_open
    # seat 2 is never offered a beer, so the name could only come from player 1's choice
    assert "Porter" not in before_open.split("(hidden, present)")[0]
    assert "Stout" not in before_open.split("(hidden, present)")[0]


SCENARIOS = """
scenario "shapes" {
    ruleset "../game.rules"
    players 2
    expect hidden players[1].submitted to players[2]
    expect visible shape players[1].submitted to players[2]
    expect hidden shape players[1].plan to players[2]
    expect visible shape players[1].plan to players[1] "the owner sees it all"
    expect visible shape players[1].hand to players[2]
    expect hidden shape players[1].board to players[2]
    expect visible shape players[1].tiles to players[2]
}

scenario "a wrong shape expectation fails" {
    ruleset "../game.rules"
    players 2
    expect hidden shape players[1].submitted to players[2]
    expect visible shape players[1].plan to players[2]
}
"""


def test_scenarios_check_what_a_shape_shows(tmp_path):
    (tmp_path / "game.rules").write_text(SHAPES, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    test = tmp_path / "tests" / "shapes.rules"
    test.write_text(SCENARIOS, encoding="utf-8")
    out = run_file(str(test))
    assert not out.diagnostics, [d.message for d in out.diagnostics]
    passed, failed = out.results
    assert not passed.failures
    assert [d.message for d in failed.failures] == [
        "player 2 sees the shape of `submitted` of player 1",
        "player 2 does not see the shape of `plan` of player 1"]


AUDITED = header("2") + """
record Beer { name: text }
table beers of Beer {
    name
    "Stout"
}
player submitted: Beer? = none secret shape public
play {
    rounds 2 {
        for p in players {
            choose p "Brew" {
                option brew label "brew{if p.submitted != none then " again" else ""}" {
                    set p.submitted = beers[1]
                }
                option wait {
                }
            }
        }
    }
}
"""


def test_reading_a_value_whose_seen_shape_shows_it_empty_reveals_nothing_so_undo_stays():
    g = game_of(AUDITED, players=2)
    g.audit_reveals = True
    g.apply("brew", 1)  # player 2's next label reads player 2's beer: none, as all can see
    assert not g.last_decision_revealed()
    g.apply("wait", 2)  # player 1's next label reads player 1's beer, which is there: hidden
    assert g.last_decision_revealed()
