"""Constructs designers asked for: match, rotate, a cite over a block, turns the rules hand on,
repeated choices, reveals of a value, split ties, named table rows, how a component reads, enum
lists, join, state that owns its lists, and the checks that go with them."""
from __future__ import annotations

import pytest
from engine_helpers import game_of, header
from rulebook.grammar.parser import parse_text
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.semantic import check_program


def problems(text: str) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in check_program(parse_text(text, "t"))
            if d.is_error]


def test_match_statement_runs_the_first_arm_that_fits():
    g = game_of(header("1") + """
global said: list of text
play {
    for n in [1, 2, 7] {
        match n {
            1: { add "one" to said }
            2: { add "two" to said }
            else: { add "many" to said }
        }
    }
}
""", players=1)
    assert g.state.globals["said"] == ["one", "two", "many"]


def test_rotate_passes_each_hand_to_the_next_player():
    g = game_of(header("3") + """
player hand: list of int
setup {
    for p in players {
        set p.hand = [seat(p)]
    }
    rotate hand among players
}
""", players=3)
    assert [s.vars["hand"] for s in g.state.seats] == [[3], [1], [2]]


def test_a_cite_over_a_block_runs_the_block():
    g = game_of(header("1") + """
global n: int
setup {
    cite "Setup 1" cite "Setup 2" {
        increase n by 2
    }
}
""", players=1)
    assert g.state.globals["n"] == 2
    (block,) = parse_text(header("1") + 'setup {\n    cite "A" {\n        log "x"\n    }\n}\n'
                          ).declarations[0].body
    assert block.kind == "cited" and block.meta.cite == ["A"]


NO_THANKS = header("3") + """
global card: int = 5
global took: bool = false
player taken: list of int
player chips: int = 2
play {
    turns p from players[1] then (if took then p else next(p)) until card == 0 {
        choose p "Take it or pay" {
            option take {
                add card to p.taken
                decrease card by 1
                set took = true
            }
            option pay where p.chips > 0 {
                decrease p.chips by 1
                set took = false
            }
        }
    }
}
"""


def test_turns_from_hand_the_turn_to_whoever_the_rules_say():
    g = game_of(NO_THANKS, players=3)
    g.apply("pay", 1)
    assert g.pending_seat() == 2 and g.state.turns == 2
    g.apply("take", 2)
    assert g.pending_seat() == 2  # whoever took the card goes next
    g.apply("pay", 2)
    assert g.pending_seat() == 3
    assert view(g, 3)["current_player"] == 3


def test_repeat_choose_asks_until_done():
    g = game_of(header("1") + """
player placed: list of int
play {
    repeat choose players[1] "Place a worker" {
        option place for n in 1..3 where n not in players[1].placed {
            add n to players[1].placed
        }
    }
}
""", players=1)
    assert [o for o, _ in g.legal_options()] == ["place:1", "place:2", "place:3", "done"]
    g.apply("place:2")
    assert [o for o, _ in g.legal_options()] == ["place:1", "place:3", "done"]
    g.apply("place:1")
    g.apply("done")
    assert g.over and g.state.seats[0].vars["placed"] == [2, 1]


def test_repeat_choose_ends_when_nothing_else_is_legal():
    g = game_of(header("1") + """
player placed: int
play {
    repeat choose players[1] "Place" {
        option place where players[1].placed < 2 { increase players[1].placed by 1 }
    }
}
""", players=1)
    g.apply("place")
    g.apply("place")
    assert g.over


def test_reveal_until_changed_shows_only_the_value_of_now():
    g = game_of(header("2") + """
player pick: int owner
play {
    rounds 2 {
        simultaneously for p in players {
            choose p "Pick" {
                option pick for n in 1..3 { set p.pick = n }
            }
        }
        for p in players {
            reveal p.pick until changed
        }
    }
}
""", players=2)
    g.apply("pick:3", 1)
    g.apply("pick:2", 2)
    assert view(g, 2)["players"][0]["vars"]["pick"] == 3  # revealed with the round's picks
    g.apply("pick:1", 1)
    g.apply("pick:1", 2)
    assert g.over
    assert view(g, 2)["players"][0]["vars"]["pick"] == 1
    g2 = game_of(header("2") + """
player pick: int owner
play {
    set players[1].pick = 2
    reveal players[1].pick until changed
    set players[1].pick = 3
    choose players[2] "Look" { option look { } }
}
""", players=2)
    assert view(g2, 2)["players"][0]["vars"]["pick"] == {"hidden": True}


def test_ties_split_share_the_place_and_void_the_next():
    g = game_of(header("3") + """
player maki: int
player points: int
setup {
    set players[1].maki = 3
    set players[2].maki = 3
    set players[3].maki = 1
    award [6, 3] among p in players by p.maki descending ties split {
        increase p.points by amount
    }
}
""", players=3)
    assert [s.vars["points"] for s in g.state.seats] == [3, 3, 0]


ROLES = header("2") + """
record Role show "{text} ({value})" {
    value: int
    text: text
}
table roles of Role {
    id       | value | text       | count
    guard    | 1     | "Guard"    | 2
    princess | 8     | "Princess" | 1
}
global deck: list of Role = roles
player hand: list of Role
setup {
    move roles.princess from deck to players[1].hand
}
play {
    choose players[1] "Play a card" {
        option play for c in players[1].hand + deck { log "played {c}" }
    }
}
"""


def test_named_rows_read_by_name_in_expressions_and_option_ids():
    g = game_of(ROLES)
    assert [o for o, _ in g.legal_options()] == ["play:princess", "play:guard", "play:guard~2"]
    assert [label for _, label in g.legal_options()][0] == "play Princess (8)"
    assert g.rules.rows["roles"]["guard"].id == "roles.guard#1"
    g.apply("play:princess")
    assert "played Princess (8)" in g.state.log[-2]["text"]


def test_a_table_is_not_a_zone_and_row_names_are_checked():
    assert problems(ROLES.replace("from deck to", "from roles to")) == [("E0218", 17)]
    assert problems(ROLES.replace("roles.princess", "roles.queen"))[0][0] == "E0206"
    twice = ROLES.replace("    princess | 8", "    guard    | 8")
    assert ("E0227", 9) in problems(twice)


def test_an_enum_name_is_the_list_of_its_members_and_join_reads_a_list():
    g = game_of(header("1") + """
enum Color { red "Red", green "Green" }
global all_colors: text
setup {
    set all_colors = join([c for c in Color], " and ")
}
""", players=1)
    assert g.state.globals["all_colors"] == "Red and Green"


def test_setting_a_list_copies_it():
    g = game_of(header("1") + """
const every = [1, 2, 3]
global xs: list of int
global ys: list of int
setup {
    set xs = every
    remove 2 from xs
    set ys = xs
    add 9 to ys
}
""", players=1)
    assert g.state.consts["every"] == [1, 2, 3]
    assert g.state.globals["xs"] == [1, 3] and g.state.globals["ys"] == [1, 3, 9]


def test_words_of_the_language_cannot_name_values():
    assert problems(header() + "const first = 1\n") == [("E0208", 4)]
    assert problems(header() + "play {\n    let count = 2\n}\n") == [("E0208", 5)]
    assert problems(header() + "define f(all) = 1\n") == [("E0208", 4)]


def test_reveal_of_part_of_a_variable_is_refused_by_check():
    assert problems(header() + "player hand: list of int\nplay {\n    reveal players[1].hand[1]\n}\n"
                    ) == [("E0226", 6)]


def test_state_kept_to_be_shown_is_not_reported_unread():
    text = header() + "player score: int shown\nplay {\n    increase players[1].score by 1\n}\n"
    warnings = [d.code for d in check_program(parse_text(text, "t"))]
    assert "W0201" not in warnings
    assert "W0201" in [d.code for d in check_program(
        parse_text(text.replace(" shown", ""), "t"))]


def test_comprehensions_take_several_bindings_and_tables_are_read_by_row_name():
    g = game_of(header("1") + """
enum Region { north, south }
record Data { region: Region, size: int }
table regions of Data {
    id    | region | size
    north | north  | 3
    south | south  | 5
}
define firstn(xs, n) = xs[1..min(n, size(xs))]
global s: int
global pairs: list of int
global t: list of int
setup {
    set s = sum(regions[r].size for r in Region)
    set pairs = [r * 10 + c for r in 1..2, c in 1..3 where r != c]
    set t = firstn([4, 5, 6], 2)
}
""", players=1)
    assert g.state.globals["s"] == 8
    assert g.state.globals["pairs"] == [12, 13, 21, 23]
    assert g.state.globals["t"] == [4, 5]


def test_invariants_hold_from_the_end_of_setup_on():
    text = header("1") + """
global dealt: int
invariant all_dealt "every card is dealt": dealt == 3
setup {
    choose players[1] "Ready?" { option yes { } option no { } }
    set dealt = 3
}
play {
    choose players[1] "Go" { option go { set dealt = 2 } option stay { } }
}
"""
    g = game_of(text, 1)  # asked midway through setup: the invariant is not looked at yet
    g.apply("yes")
    g.apply("stay")
    g = game_of(text, 1)
    g.apply("yes")
    import pytest
    from rulebook.validator.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as e:
        g.apply("go")
    assert "left side is `2`, right side is `3`" in e.value.diagnostics[0].message


def test_grid_sizes_are_worked_out_from_constants_when_the_game_starts():
    g = game_of(header("2 to 4") + """
record Cell { symbol: text }
const pad_rows = 2
const frame_rows = pad_rows + 2 * 3
player layout: grid frame_rows by pad_rows + 1 of Cell? shown
global seats: grid 1 by player_count of int = 7 shown
""", players=3)
    layout = g.state.seats[0].vars["layout"]
    assert (layout.rows, layout.columns) == (8, 3)
    seats = g.state.globals["seats"]
    assert (seats.rows, seats.columns) == (1, 3) and set(seats.cells) == {7}
    assert problems(header("2") + "global n: int = 2 shown\n"
                    "global g: grid n by 2 of int shown\n") == [("E0228", 5)]


def test_a_field_is_chosen_by_an_enum_member_for_reading_and_for_structures_writing():
    g = game_of(header("2") + """
enum Characteristic { aroma, color, taste }
record Tile { aroma: int, color: int, taste: int }
table tiles of Tile {
    id     | aroma | color | taste
    hops   | 2     | 0     | -1
    barrel | 1     | 0     | 1
}
record Beer { aroma: int, color: int, taste: int }
global beer: Beer = new Beer { aroma: 0, color: 0, taste: 0 } shown
define effect(t, k) = t[k]
setup {
    for k in Characteristic {
        set beer[k] = sum(effect(t, k) for t in tiles)
    }
    increase beer[taste] by 5
}
""", players=2)
    assert g.state.globals["beer"].fields == {"aroma": 3, "color": 0, "taste": 5}


def test_a_component_chosen_field_cannot_be_changed_nor_missing_at_run_time():
    text = header("2") + """
enum Characteristic { aroma, color }
enum Other { sweetness }
record Tile { aroma: int, color: int }
table tiles of Tile {
    id   | aroma | color
    hops | 2     | 0
}
global n: int shown
define pick(t, k) = t[k]
setup {
    WHAT
}
"""
    def failure(what: str):
        with pytest.raises(DiagnosticError) as err:
            game_of(text.replace("WHAT", what), players=2)
        (d,) = err.value.diagnostics
        return d.code, d.message

    assert game_of(text.replace("WHAT", "set n = pick(tiles.hops, color)"),
                   players=2).state.globals["n"] == 0
    assert failure("set n = pick(tiles.hops, sweetness)") == (
        "E0311", "a Tile has no field `sweetness`")
    code, message = failure("let t = tiles.hops\n    set t[aroma] = 1")
    assert code == "E0306" and "cannot be changed" in message


def test_sole_max_and_sole_min_give_the_one_best_or_none_on_a_tie():
    g = game_of(header("4") + """
player shares: int shown
player caps: int shown
global results: list of int shown
define seat_of(p) = if p == none then 0 else seat(p)
setup {
    for p in players {
        set p.shares = [2, 3, 3, 0][seat(p)]
        set p.caps = [5, 1, 2, 9][seat(p)]
    }
    add seat_of(sole_max(p in players by p.shares)) to results
    add seat_of(sole_max(p in players by p.shares, p.caps)) to results
    add seat_of(sole_min(p in players by p.shares)) to results
    add seat_of(sole_min(p in players where p.shares > 0 by p.shares)) to results
    add seat_of(sole_max(p in players where p.shares > 3 by p.shares)) to results
    add seat_of(sole_max(p in players where seat(p) == 2 by p.shares)) to results
}
""", players=4)
    # tie on 3 shares; the caps break it; the only 0; the only 2; nobody; the only candidate
    assert g.state.globals["results"] == [0, 3, 4, 1, 0, 2]


def test_sole_max_of_keys_that_cannot_be_ordered_is_an_error_while_the_game_runs():
    with pytest.raises(DiagnosticError) as err:
        game_of(header("2") + """
global best: list of int shown
define key(xs) = xs
setup {
    set best = sole_max(xs in [[1], [2]] by key(xs))
}
""", players=2)
    (d,) = err.value.diagnostics
    assert d.code == "E0306" and "cannot order by list" in d.message


SCOPED_AUTOMATON = """
player picks: list of int shown
procedure first_pick(p) {
    choose p "First pick" {
        option take for n in [1, 2, 3] {
            add n to p.picks
        }
    }
}
procedure second_pick(p) {
    phase second {
        step pick_again {
            choose p "Second pick" {
                option take for n in [1, 2, 3] {
                    add n to p.picks
                }
            }
        }
    }
}
automaton Greedy {
    prefer take in SCOPE by n descending
}
play {
    for p in players {
        do first_pick(p)
        do second_pick(p)
    }
}
"""


def test_a_prefer_line_in_a_procedure_phase_or_step_ranks_only_the_decisions_written_there():
    for scope in ("second_pick", "second", "pick_again"):
        g = game_of(header("1") + SCOPED_AUTOMATON.replace("SCOPE", scope), players=1)
        while not g.over:
            g.apply(g.legal_options()[0][0])
        steve = g.state.seats[-1]
        assert steve.automaton == "Greedy"
        # the first pick is no line's: the first legal option; the second is the line's
        assert steve.vars["picks"] == [1, 3], scope
    assert problems(header("1") + SCOPED_AUTOMATON.replace("SCOPE", "first_pik")) == [("E0207", 25)]
    assert problems(header("1") + SCOPED_AUTOMATON.replace("take in SCOPE", "give in first_pick")
                    ) == [("E0207", 25)]


def test_the_top_of_a_hidden_pile_is_seen_by_everyone_and_the_rest_by_nobody():
    g = game_of(header("2") + """
record Tile { name: text }
table tiles of Tile {
    name
    "Pub"
    "Restaurant"
    "Bar"
}
global pile: deck of Tile = tiles secret top 1 public
player hand: list of Tile owner top 2 public shown
setup {
    move top 1 from pile to players[1].hand
}
play {
    choose players[1] "Go" {
        option go {
            pass
        }
    }
}
""", players=2)
    seen = view(g, 2)
    pile = seen["globals"]["pile"]
    assert pile["hidden"] and pile["size"] == 2
    assert [t["name"] for t in pile["top"]] == ["Restaurant"]
    hand = seen["players"][0]["vars"]["hand"]
    assert hand["size"] == 1 and [t["name"] for t in hand["top"]] == ["Pub"]
    assert view(g, 1)["players"][0]["vars"]["hand"][0]["name"] == "Pub"  # its owner sees it all
    from rulebook.interpreter.human import value_text
    assert value_text(pile) == "(hidden, 2; top: Restaurant)"
    assert problems(header("2") + "global n: int = 0 secret top 1 public shown\n") == [("E0210", 4)]


def test_a_component_reads_its_row_name_as_id():
    g = game_of(ROLES.replace('log "played {c}"', 'log "played the {c.id} ({c.value})"'))
    g.apply("play:guard")
    assert "played the guard (1)" in g.state.log[-2]["text"]
    unnamed = header("1") + """
record Token {
    value: int
}
table tokens of Token {
    value
    1
}
global pile: list of Token = tokens
global first_id: text
setup {
    set first_id = pile[1].id
}
"""
    assert problems(unnamed) == [("E0206", 15)]  # rows without names have no `id` to read


ZONES = header("2") + """
record Chip {
    value: int
}
table chips of Chip {
    id    | value
    red   | 1
    blue  | 2
    green | 3
}
global bag: list of Chip = chips
global board: grid 1 by 2 of Chip?
player hand: list of Chip
setup {
    move chips.red to players[2].hand
    move chips.blue to board[1, 2]
    move chips.blue to players[1].hand at top
}
play {
    choose players[1] "Give a chip back" {
        option back for c in players[1].hand + players[2].hand { move c to bag }
    }
}
"""


def test_a_component_is_moved_from_whichever_zone_holds_it():
    g = game_of(ZONES)
    st = g.state
    assert [c.id for c in st.seats[1].vars["hand"]] == ["chips.red"]
    assert [c.id for c in st.seats[0].vars["hand"]] == ["chips.blue"]
    assert st.globals["board"].cells == [None, None] and len(st.globals["bag"]) == 1
    g.apply("back:red")
    assert [c.id for c in st.globals["bag"]] == ["chips.green", "chips.red"]


def test_a_move_without_from_is_checked_and_a_component_in_no_zone_is_an_error():
    with pytest.raises(DiagnosticError) as err:
        game_of(ZONES.replace("global bag: list of Chip = chips", "global bag: list of Chip"))
    (d,) = err.value.diagnostics
    assert d.code == "E0308" and "`red` is in no zone" in d.message and d.line == 18
    assert problems(ZONES.replace("move chips.red to", "move 3 to")) == [("E0210", 18)]
    assert problems(ZONES.replace("move chips.red to", "move top 1 to")) == [("E0210", 18)]


def test_a_record_show_may_read_the_row_name():
    g = game_of(ROLES.replace('record Role show "{text} ({value})"',
                              'record Role show "{id}: {text} ({value})"'))
    assert [label for _, label in g.legal_options()][0] == "play princess: Princess (8)"


REVEAL_UNTIL_CHANGED = header("2") + """
record Cell {
    n: int
}
player table: list of Cell owner
player other: list of Cell owner
setup {
    for p in players {
        add new Cell { n: 0 } to p.table
        add new Cell { n: 0 } to p.other
        reveal p.table until changed
        reveal p.other until changed
    }
    let c = players[2].table[1]
    set c.n = 7
}
play {
    choose players[1] "Go" {
        option go {
        }
    }
}
"""


def test_a_reveal_until_changed_ends_when_a_structure_inside_is_changed_in_place():
    seen_by_1 = view(game_of(REVEAL_UNTIL_CHANGED), 1)["players"][1]["vars"]
    assert seen_by_1["table"] == {"hidden": True, "size": 1}  # its cell changed through `c`
    assert seen_by_1["other"] == [{"record": "Cell", "n": 0}]  # untouched: still revealed


ZONE_CHANGES = header("2") + """
record Box {
    hand: list of int
}
player hand: list of int owner
player kept: list of int owner
global pile: list of int
global boxes: list of Box
setup {
    set pile = [5, 6, 7]
    for p in players {
        add 1 to p.hand
        add 2 to p.hand
        add 1 to p.kept
        reveal p.hand until changed
        reveal p.kept until changed
    }
    add new Box { hand: [] } to boxes
    let b = boxes[1]
    let q = players[2]
    CHANGE
}
play {
    choose players[1] "Go" {
        option go {
        }
    }
}
"""


@pytest.mark.parametrize("change", [
    "add 9 to q.hand", "remove 1 from q.hand", "move top 1 from pile to q.hand",
    "move all from q.hand to pile", "move top 1 from q.hand to pile", "set q.hand[1] = 4",
    "move 7 from pile to q.hand"])
def test_a_change_of_a_players_zone_ends_its_reveal_alone(change):
    # each statement that changes a zone notes it as the runtime does (written out for a
    # player's variable): the changed zone's reveal ends, the other zone's stands
    seen = view(game_of(ZONE_CHANGES.replace("CHANGE", change)), 1)["players"][1]["vars"]
    assert isinstance(seen["hand"], dict) and seen["hand"]["hidden"] is True
    assert seen["kept"] == [1]


@pytest.mark.parametrize("change", [
    "add 9 to b.hand", "move top 1 from pile to b.hand", "set b.hand = [3]"])
def test_a_structures_field_named_as_a_players_variable_ends_no_reveal(change):
    g = game_of(ZONE_CHANGES.replace("CHANGE", change))
    seen = view(g, 1)["players"][1]["vars"]
    assert seen["hand"] == [1, 2] and seen["kept"] == [1]
    assert g.state.globals["boxes"][0].fields["hand"] != []
