"""Semantic checks: for each, a minimal program and the exact diagnostic it gets.

Programs are written after a three-line game header; lines in the expectations count from the
first line after it.
"""
from __future__ import annotations

import re

from rulebook.grammar.parser import parse_text
from rulebook.validator.semantic import CODES, check_program

HEADER = 'game "T" {\n    players 2 to 4\n}\n'
HEADER_LINES = 3


def diagnostics(body: str, *, warnings: bool = False):
    program = parse_text(HEADER + body, "t.rules")
    found = check_program(program)
    assert all(d.file == "t.rules" for d in found)
    return [d for d in found if warnings or d.is_error]


def brief(body: str, **kw) -> list[tuple[str, int, int, str]]:
    """(code, line after the header, column, message) of each diagnostic."""
    return [where(d) for d in diagnostics(body, **kw)]


def where(d) -> tuple[str, int, int, str]:
    return (d.code, d.line - HEADER_LINES, d.column, d.message)


def only(body: str, **kw):
    found = diagnostics(body, **kw)
    assert len(found) == 1, [(d.code, d.message) for d in found]
    return found[0]


def test_codes_are_stable_e02xx_or_w02xx_and_described():
    assert all(re.fullmatch(r"[EW]02\d\d", code) for code in CODES)
    assert all(CODES.values())


# ---------------------------------------------------------------------------------- names
def test_unknown_name_with_a_suggestion():
    d = only("global score: int = 0\nsetup {\n    set score = scroe + 1\n}\n")
    assert where(d) == ("E0201", 3, 17, "unknown name `scroe`")
    assert d.hint == "did you mean `score`?"


def test_a_define_used_without_a_call_is_explained():
    d = only("define double(x) = x * 2\nconst y = double\n")
    assert (d.code, d.message) == ("E0201", "unknown name `double`")
    assert d.hint == "`double` is a define: call it, `double(...)`"


def test_a_player_variable_used_as_a_name_is_explained():
    d = only("player coins: int = 0\nconst y = coins\n")
    assert d.hint == "`coins` is a player variable: write `p.coins` for a player `p`"


def test_unknown_function_suggests_a_builtin():
    d = only("const n = sise([1, 2])\n")
    assert where(d) == ("E0202", 1, 11, "unknown function `sise`")
    assert d.hint == "did you mean `size`?"


def test_a_procedure_called_as_a_function_is_explained():
    d = only("procedure pay(p) {\n}\nconst y = pay(1)\n")
    assert (d.code, d.hint) == ("E0202", "`pay` is a procedure: run it with `do pay(...)`")


def test_unknown_procedure():
    d = only("procedure pay(p) {\n}\nsetup {\n    do payy(1)\n}\n")
    assert where(d) == ("E0203", 4, 5, "unknown procedure `payy`")
    assert d.hint == "did you mean `pay`?"


def test_trigger_without_a_handler():
    d = only("when scored(p) {\n}\nsetup {\n    trigger scord(1)\n}\n")
    assert (d.code, d.line - HEADER_LINES, d.message) == (
        "E0204", 4, "no `when scord(...)` handler for this trigger")
    assert d.hint == "did you mean `scored`?"


def test_unknown_type_and_unknown_record():
    assert brief("record Card { cost: int }\nglobal top_card: Crad? = none\n"
                 "const c = new Cart { cost: 1 }\n") == [
        ("E0205", 2, 18, "unknown type `Crad`"),
        ("E0205", 3, 11, "unknown record `Cart`"),
    ]


def test_table_of_an_unknown_record():
    d = only("table cards of Crad {\n    cost\n    1\n}\n")
    assert (d.code, d.message, d.hint) == ("E0205", "unknown record `Crad`",
                                           "declare it with `record`")


def test_unknown_record_field_and_player_variable():
    body = ("record Card { cost: int, colour: text }\n"
            "table cards of Card {\n    cost | colour\n    1 | \"red\"\n}\n"
            "player coins: int = 0\n"
            "setup {\n"
            "    for c in cards {\n"
            "        log \"{c.price}\"\n"
            "    }\n"
            "    set players[1].coin = 2\n"
            "}\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0206", 9, "a Card has no field `price`"),
        ("E0206", 11, "players have no variable `coin`"),
    ]
    assert found[0].hint == "fields of Card: cost, colour"
    assert found[1].hint == "did you mean `coins`?"


def test_field_of_a_number_and_of_an_unknown_value():
    assert brief("const n = 3\nconst m = n.size\ndefine f(x) = x.colour\n") == [
        ("E0206", 2, 11, "an int has no fields, so `.size` cannot be read"),
        ("E0206", 3, 15, "no player variable or record field is named `colour`"),
    ]


def test_automaton_prefers_an_unknown_option():
    body = ("player n: int = 0\n"
            "play {\n    choose players[1] {\n"
            "        option take for k in 1..3 { set players[1].n = k }\n"
            "    }\n}\n"
            "automaton bot {\n"
            "    prefer tkae by k descending\n    prefer take by k descending\n}\n")
    d = only(body)
    assert (d.code, d.line - HEADER_LINES, d.message) == (
        "E0207", 8, "no decision offers an option `tkae`")
    assert d.hint == "did you mean `take`?"


# ----------------------------------------------------------------------------- duplicates
def test_duplicate_declarations():
    body = ("const a = 1\nconst a = 2\n"
            "enum Colour { red, blue }\nenum Team { red, green }\n"
            "player n: int = 0\nplayer n: int = 1\n"
            "define size(x) = 1\n"
            "setup {\n}\nsetup {\n}\n"
            "record R { x: int, x: int }\n"
            "global round: int = 0\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0208", 2, "name `a` is declared twice"),
        ("E0208", 4, "name `red` is declared twice"),
        ("E0208", 6, "player variable `n` is declared twice"),
        ("E0208", 7, "`size` is a built-in function"),
        ("E0208", 10, "`setup` is declared twice"),
        ("E0208", 12, "field `x` is declared twice in `R`"),
        ("E0208", 13, "`round` is a built-in value"),
    ]
    first = found[0].related[0]
    assert (first.message, first.line) == ("first declared here", 4)


def test_repeated_parameter_and_table_column():
    body = "define f(a, a) = 1\nrecord R { x: int }\ntable t of R {\n    x | x\n    1 | 2\n}\n"
    assert brief(body) == [
        ("E0208", 1, 1, "parameter `a` is listed twice"),
        ("E0208", 3, 1, "column `x` appears twice in table `t`"),
    ]


# ------------------------------------------------------------------------ argument counts
def test_wrong_argument_counts():
    body = ("define f(a, b) = a + b\n"
            "procedure pay(p) {\n}\n"
            "when scored(p, n) {\n}\n"
            "setup {\n"
            "    log \"{f(1)}\"\n"
            "    do pay(1, 2)\n"
            "    trigger scored(1)\n"
            "    log \"{size(1, 2)}\"\n"
            "    log \"{random_int(1)}\"\n"
            "}\n")
    assert [(c, line, m) for c, line, _, m in brief(body)] == [
        ("E0209", 7, "`f` takes 2 values, got 1"),
        ("E0209", 8, "`pay` takes 1 value, got 2"),
        ("E0209", 9, "`scored` takes 2 values, got 1"),
        ("E0209", 10, "`size` takes 1 value, got 2"),
        ("E0209", 11, "`random_int` takes 2 values, got 1"),
    ]


def test_event_handlers_must_agree_and_modifiers_must_match_their_define():
    body = ("when scored(p) {\n}\nwhen scored(p, n) {\n}\n"
            "define income(p) = 1\n"
            "modifier boom: income(p, q) += 1\n"
            "modifier bust: incme(p) += 1\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0209", 3, "`when scored` takes 2 values here but 1 in its first handler"),
        ("E0209", 6, "`income` takes 1 value but the modifier lists 2"),
        ("E0219", 7, "`incme` is not a define, so a modifier cannot change it"),
    ]
    assert found[2].hint == "did you mean `income`?"


# ---------------------------------------------------------------------------------- types
def test_adding_text_and_a_number():
    d = only('const x = "a" + 1\n')
    assert where(d) == (
        "E0210", 1, 11, "`+` cannot join a text and an int")


def test_arithmetic_and_counts_need_numbers():
    body = ("global label: text = \"x\"\n"
            "setup {\n"
            "    increase label by 1\n"
            "    repeat label times {\n    }\n"
            "    log \"{label * 2}\"\n"
            "}\n")
    assert brief(body) == [
        ("E0210", 3, 14, "`increase` needs an int, but this is a text"),
        ("E0210", 4, 12, "`repeat` needs an int, but this is a text"),
        ("E0210", 6, 9, "`*` needs an int, but this is a text"),  # located at the string
    ]


def test_loops_and_indexes_need_lists():
    body = ("const n = 3\nconst xs = [1, 2]\nconst a = [k for k in n]\nconst b = n[1]\n"
            "const c = xs[1, 2]\n")
    assert [(c, line, m) for c, line, _, m in brief(body)] == [
        ("E0210", 3, "`k in ...` needs a list, but this is an int"),
        ("E0210", 4, "an int cannot be indexed with `[...]`"),
        ("E0210", 5, "a list element is written `list[n]` with one number"),
    ]


def test_conditions_must_be_yes_or_no():
    body = ("global n: int = 0\n"
            "setup {\n"
            "    if 3 {\n    }\n"
            "    while n {\n    }\n"
            "    require n + 1 \"positive\"\n"
            "    log \"{not n}\"\n"
            "    log \"{n > 0 and n}\"\n"
            "}\n")
    assert [(c, line, m) for c, line, _, m in brief(body)] == [
        ("E0211", 3, "`if` needs a yes/no condition, but this is an int"),
        ("E0211", 5, "`while` needs a yes/no condition, but this is an int"),
        ("E0211", 7, "`require` needs a yes/no condition, but this is an int"),
        ("E0211", 8, "`not` needs a yes/no value, but this is an int"),
        ("E0211", 9, "`and` needs a yes/no condition, but this is an int"),
    ]
    assert diagnostics("setup {\n    if 3 {\n    }\n}\n")[0].hint == \
        "compare it, for example `x > 0` or `x != none`"


def test_enum_compared_with_a_number_or_text():
    body = ("enum Colour { red, blue }\nenum Team { north, south }\n"
            "player colour: Colour = red\n"
            "define a(p) = p.colour == 1\n"
            "define b(p) = p.colour == \"red\"\n"
            "define c(p) = p.colour != north\n"
            "define d(p) = p.colour < 2\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0212", 4, "a Colour is compared with an int: they are never equal"),
        ("E0212", 5, "a Colour is compared with a text: they are never equal"),
        ("E0212", 6, "a Colour is compared with a Team: they are never equal"),
        ("E0212", 7, "a Colour is compared with an int"),
    ]
    assert found[0].hint == "enum members are names, not numbers: compare with a member of the enum"
    assert found[1].hint == "enum members are written without quotes"


def test_membership_and_match_cases_compare_types():
    body = ("enum Colour { red, blue }\n"
            "define a(p) = 3 in [red, blue]\n"
            "define b(c) = match red { 1: 10, else: 0 }\n")
    assert brief(body) == [
        ("E0212", 2, 15, "an int is looked for in a list of Colour: it is never there"),
        ("E0212", 3, 27, "this case is an int but the value matched is a Colour"),
    ]


def test_audiences_are_players():
    body = "global n: int = 0\nsetup {\n    log \"hi\" to 3\n    reveal n to [1]\n}\n"
    assert brief(body) == [
        ("E0210", 3, 17, "`to` needs a player, but this is an int"),
        ("E0210", 4, 17, "`to` needs a player, but this is an int"),
    ]


def test_values_must_fit_declared_types():
    body = ("record Card { cost: int }\n"
            "global total: int = \"none yet\"\n"
            "global names: list of text = []\n"
            "setup {\n"
            "    set total = true\n"
            "    add 3 to names\n"
            "    let card = new Card { cost: \"x\" }\n"
            "    log \"{total}\"\n"
            "}\n")
    assert [(c, line, m) for c, line, _, m in brief(body)] == [
        ("E0220", 2, "`total` holds int but starts as text"),
        ("E0220", 5, "cannot set int to bool"),
        ("E0220", 6, "an int cannot be added to a list of text"),
        ("E0220", 7, "field `cost` of Card holds int, not text"),
    ]


def test_constants_and_enum_members_cannot_be_set():
    d = only("enum Colour { red }\nconst limit = 3\nsetup {\n    set limit = 4\n}\n")
    assert (d.code, d.line - HEADER_LINES, d.column) == ("E0218", 4, 9)
    assert d.message == ("`limit` cannot be changed: only state variables, fields and `let` "
                         "names can")


# --------------------------------------------------------------------------------- tables
TABLE_RECORD = ("enum Colour { red, blue }\n"
                "record Card { cost: int, colour: Colour, rare: bool, title: text }\n")


def test_table_columns_must_be_fields_or_count():
    d = only(TABLE_RECORD + "table cards of Card {\n    cost | colur | count\n    1 | 2 | 2\n}\n")
    assert (d.code, d.line - HEADER_LINES, d.message) == (
        "E0213", 3, "`colur` is not a field of `Card`")
    assert d.hint == "did you mean `colour`?"


def test_table_values_must_fit_their_fields():
    body = TABLE_RECORD + ("table cards of Card {\n"
                           "    cost | rare | title | count\n"
                           "    \"one\" | 1 | 3 | \"two\"\n"
                           "    2 | true | \"ok\" | none\n"
                           "}\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0214", 5, '`"one"` does not fit column `cost` of type int'),
        ("E0214", 5, "`1` does not fit column `rare` of type bool"),
        ("E0214", 5, "`3` does not fit column `title` of type text"),
        ("E0214", 5, '`"two"` does not fit column `count` of type int'),
    ]
    assert found[1].hint == "write true or false here"


def test_enum_values_in_tables_must_be_members():
    d = only(TABLE_RECORD + "table cards of Card {\n    colour\n    \"red\"\n    \"bleu\"\n}\n")
    assert where(d) == (
        "E0215", 6, 5, "`bleu` is not a member of `Colour` (column `colour`)")
    assert d.hint == "did you mean `blue`?"


# --------------------------------------------------------------------------- stop and pass
def test_stop_outside_a_loop():
    d = only("setup {\n    if true {\n        stop\n    }\n}\n")
    assert where(d) == ("E0216", 3, 9, "`stop` is not inside a loop")


def test_pass_outside_turns():
    d = only("play {\n    for p in players {\n        pass\n    }\n}\n")
    assert where(d) == ("E0217", 3, 9, "`pass` is not inside `turns`")


def test_stop_and_pass_where_they_belong():
    body = ("player done: bool = false\n"
            "procedure act(p) {\n    pass\n}\n"
            "when hop(p) {\n    stop\n}\n"
            "play {\n"
            "    turns p in players until all passed {\n"
            "        choose p {\n"
            "            option rest { pass }\n"
            "            option act { do act(p) }\n"
            "        }\n"
            "    }\n"
            "    while true {\n"
            "        choose players[1] {\n"
            "            option done { stop }\n"
            "            option go { set players[1].done = players[1].done }\n"
            "        }\n"
            "    }\n"
            "    trigger hop(1)\n"
            "}\n")
    assert brief(body) == []


# ------------------------------------------------------------------------------ scenarios
def test_scenario_agent_and_player_count():
    body = ("scenario \"s\" {\n    players 5\n    play to end with randm\n"
            "    expect 3\n}\n")
    found = diagnostics(body)
    assert [(d.code, d.line - HEADER_LINES, d.message) for d in found] == [
        ("E0222", 2, "the game is for 2 to 4 players, not 5"),
        ("E0221", 3, "unknown agent `randm`"),
        ("E0211", 4, "`expect` needs a yes/no condition, but this is an int"),
    ]
    assert found[1].hint == "did you mean `random`?"


# ------------------------------------------------------------------------------- warnings
def test_state_that_is_never_read():
    body = ("global written: int = 0\nglobal shown: int = 0\nplayer tally: int = 0\n"
            "player coins: int = 0\n"
            "setup {\n    set written = 1\n    increase players[1].tally by 1\n"
            "    log \"{shown}\"\n}\n"
            "winner p in players by p.coins descending\n")
    found = diagnostics(body, warnings=True)
    assert [(d.code, d.severity, d.line - HEADER_LINES, d.message) for d in found] == [
        ("W0201", "warning", 1, "state `written` is never read"),
        ("W0201", "warning", 3, "state `p.tally` is never read"),
    ]


# ------------------------------------------------------------------- no false positives
def test_legitimate_constructs_are_not_reported():
    body = '''enum Colour { red "Red", blue "Blue" }
record Card { cost: int, colour: Colour?, row: int, column: int }
table cards of Card {
    cost | colour | count
    1 | "red" | 2
    2 | blue | 1
    3 | none | 1
}
const sizes = [1, 2, 3]
global market: grid 2 by 2 of Card? = none
global deck: deck of Card = cards
global words: text = "a" + "b"
player limit: int = 5
player cash: int = 0 at least 0 at most me.limit
player hand: list of Card = []
player pick: Colour? = none owner
define cheap(c) = c.cost <= 1 and c.colour != none
define best(p) = max(c.cost for c in p.hand)
modifier sale: best(p) -= 1 when p.cash > 3
procedure refill(r, c) {
    move top 1 from deck to market[r, c]
}
when bought(p, card) {
    increase p.cash by card.cost
}
reaction rich for p in players as soon as p.cash >= 5 {
    log "{p} is rich"
}
invariant cash_ok "cash stays small": all(p in players where p.cash < 100)
setup {
    shuffle deck
    for r in 1..2 {
        for c in 1..2 {
            do refill(r, c)
        }
    }
    set words = words + text(size(words))
}
play {
    rounds 2 {
        phase buy when round > 0 {
            for p in sort(q in players by q.cash descending, random) {
                turn p {
                    choose p "Buy" optional {
                        option take for r in 1..2, c in 1..2 where market[r, c] != none \\
                                label "{r},{c}" {
                            let card = market[r, c]
                            move card from market[r, c] to p.hand
                            trigger bought(p, card)
                            set p.pick = card.colour
                            log "you took {card.cost}" to p
                        }
                        otherwise { log "nothing" }
                    }
                }
            }
        }
        simultaneously for p in players {
            choose p {
                option colour for k in [red, blue] { set p.pick = k }
            }
        }
        reveal players[1].pick to players
        hide players[1].pick
        if any(p in players where p.pick == red and p.pick < blue and p.pick.name == "red") {
            end game
        }
    }
}
scoring {
    award [3, 1] among p in players where size(p.hand) > 0 by p.cash descending ties share {
        increase p.cash by amount + largest_group(p.hand) + changed_at(p.cash)
    }
}
winner p in players by p.cash descending, seat(p)
automaton bot {
    prefer take by c descending, r ascending, cheap(market[r, c])
    prefer skip
}
scenario "plays" {
    players 2
    seed 3
    given { set players[1].cash = 2 }
    expect players[1].cash == 2 "given"
    expect hidden players[1].pick to players[2]
    expect visible players[1].cash to players[2]
    expect size(players[1].hand) == 0
    expect pending_player != none and phase == "buy" and first(x in cards where x.cost == 2) != none
    play to end with first
    expect game_over and size(winners) > 0
}
'''
    assert brief(body, warnings=True) == []


def test_the_deepest_trees_the_parser_accepts_are_checked():
    from rulebook.validator.diagnostics import DiagnosticError

    shapes = [(lambda n: "const x = " + " + ".join(["1"] * n) + "\n", []),
              (lambda n: "const x = " + "not " * n + "true\n", []),
              (lambda n: "setup {\n" + "if true {\n" * n + "stop\n" + "}\n" * n + "}\n",
               ["E0216"])]
    for make, expected in shapes:
        deepest = None
        for n in range(1, 200):
            try:
                deepest = parse_text(HEADER + make(n), "t.rules")
            except DiagnosticError:
                break
        assert n > 30
        assert [d.code for d in check_program(deepest)] == expected


def test_the_builtin_table_is_what_the_engine_implements():
    from rulebook.interpreter.evaluator import Evaluator
    from rulebook.validator.builtins import BUILTIN_FUNCTIONS

    # `changed_at` reads where a variable is, not a value: the compiler gives it its own path
    implemented = {name[3:] for name in dir(Evaluator) if name.startswith("bi_")} | {"changed_at"}
    assert implemented == set(BUILTIN_FUNCTIONS)


def test_a_list_of_positions_is_a_valid_index():
    from rulebook.grammar.parser import parse_text
    from rulebook.validator.semantic import check_program

    program = parse_text('game "T" {\n    players 2\n}\nglobal picked: list of int\n'
                         'play { set picked = [10, 20, 30][2..3] }\n'
                         'winner p in players by size(picked)\n', "t.rules")
    assert [d.code for d in check_program(program)] == []


def test_maps_are_typed_by_their_values():
    from rulebook.grammar.parser import parse_text
    from rulebook.validator.semantic import check_program

    def codes(body):
        program = parse_text('game "T" {\n    players 2\n}\nenum Space { a, b }\n'
                             'global m: map of Space to int\nglobal t: text\n' + body +
                             'winner p in players by m[a] + size(t)\n', "t.rules")
        return [d.code for d in check_program(program) if d.is_error]

    assert codes("play { increase m[a] by 1 }\n") == []
    assert codes("play { set t = m[a] }\n") == ["E0220"]
    assert codes("play { set t = text(m[a, b]) }\n") == ["E0210"]
    assert codes("global n: map of Spcae to int\nplay { }\n") == ["E0205"]
