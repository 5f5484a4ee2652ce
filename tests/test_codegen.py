"""The Python the engine generates from a ruleset's AST (interpreter/codegen.py, statements.py):
what a rules file writes reaches it only as escaped literals and constants, code nested deeper
than one Python function allows still runs, and what runs written out behaves as in frames."""
import ast
import re

import pytest

from engine_helpers import game_of, header, rules_of
from rulebook.interpreter import statements
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.game import Game
from rulebook.interpreter.simulate import play_one
from rulebook.validator.diagnostics import DiagnosticError


def _log(g) -> list[str]:
    return [e["text"] for e in g.state.log]


# (as written in a rules file, the text it means)
HOSTILE_TEXTS = [
    (r"'); import os; os.system('echo pwned'); ('", "'); import os; os.system('echo pwned'); ('"),
    (r'\"\"\"; raise SystemExit; \"\"\"', '"""; raise SystemExit; """'),
    (r"\\' \n\t end", "\\' \n\t end"),
    (r"\u{e9}\u{6f22} \u{1F3B2}", "\u00e9\u6f22 \U0001f3b2"),
    (r"__import__('os')", "__import__('os')"),
]


@pytest.mark.parametrize("written,text", HOSTILE_TEXTS)
def test_a_text_of_the_rules_is_a_literal_of_the_generated_code(written, text):
    g = game_of(header() + f'const word = "{written}"\n'
                f'setup {{\n    log "{written}"\n    log "{{word}}!"\n}}\n')
    assert _log(g)[:2] == [text, text + "!"]


def test_generated_sources_are_python_written_from_the_tree_alone():
    rules = rules_of(header() + 'const hostile = "x\') or __import__(\'os\') or (\'"\n'
                     'global n: int = 0\nsetup { set n = size(hostile) }\n')
    source = "".join(rules.code.gen.sources)
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "__import__" not in names and "os" not in names
    # the rules' names appear only inside string literals, never as identifiers
    assert "hostile" not in names and "n" not in names
    assert rules.code.gen.ns["__builtins__"].keys() <= {
        "type", "len", "range", "list", "dict", "int", "str", "bool", "enumerate", "ValueError",
        "TypeError", "KeyError", "AttributeError", "set", "zip", "max", "min"}


def test_comprehensions_nested_deeper_than_python_allows_still_run():
    depth = 30  # Python compiles at most 20 nested loops in one function
    inner = "i0 > 0"
    for k in range(depth):
        inner = f"any(i{k} in 1..2 where {inner})"
    g = game_of(header() + f"global ok: bool = false\nsetup {{\n    set ok = {inner}\n}}\n")
    assert g.state.globals["ok"] is True


def test_a_long_chain_of_conditions_still_runs():
    chain = "0"
    for k in range(110, 0, -1):  # more levels than Python indents in one function
        chain = f"if n == {k} then {k * 2} else {chain}"
    g = game_of(header() + f"global n: int = 105\nglobal m: int = 0\n"
                f"setup {{\n    set m = {chain}\n}}\n")
    assert g.state.globals["m"] == 210


def test_statements_nested_deeper_than_a_python_function_allows_still_run():
    body = "increase total by 1"
    for k in range(9):
        body = f"for x{k} in 1..2 {{\n if x{k} > 0 {{\n {body}\n }}\n }}"
    g = game_of(header() + f"global total: int = 0\nsetup {{\n{body}\n}}\n")
    assert g.state.globals["total"] == 2 ** 9


PLAYED = header() + """
global pile: list of int = [1, 2, 3, 4, 5, 6, 7, 8]
player score: int = 0 at least 0
procedure tally(p, v) {
    for k in 1..v where k % 2 == 0 {
        increase p.score by 1
        if p.score > 6 { stop }
    }
    log "{p} counts {v}"
}
play {
    rounds until size(pile) == 0 {
        for p in players {
            if size(pile) == 0 { stop }
            choose p "Take a card" {
                option take for v in pile where v != 7 or size(pile) == 1 {
                    remove v from pile
                    do tally(p, v)
                }
                option pass_turn where size(pile) > 1 { log "{p} waits" }
            }
        }
    }
}
winner p in players by p.score descending
"""


@pytest.mark.parametrize("seed", range(8))
def test_statements_written_out_whole_and_resumable_agree_on_a_whole_game(seed, monkeypatch):
    """The same rules run with their loops, ifs and calls written out whole, and with every
    statement that holds a block in its resumable form, every procedure a routine (as with
    reactions): the same games, to the step."""
    games = []
    for whole in (True, False):
        monkeypatch.setattr(statements, "WRITE_OUT_WHOLE", whole)
        g = game_of(PLAYED, seed=seed)
        play_out(g, {1: RandomAgent(seed), 2: RandomAgent(seed + 1)})
        games.append(g)
    a, b = games
    assert [s.vars for s in a.state.seats] == [s.vars for s in b.state.seats]
    assert _log(a) == _log(b)
    assert (a.state.steps, a.state.clock, a.history) == (b.state.steps, b.state.clock, b.history)
    assert len(a.rules.code.routines) < len(b.rules.code.routines)  # `tally` written out


@pytest.mark.parametrize("ruleset", ["examples/love_letter", "examples/sushi_go", "liqueur"])
def test_bundled_games_are_the_same_written_out_whole_or_resumable(ruleset, monkeypatch):
    from rulebook import api
    from rulebook.interpreter.rules import compile_rules

    program = api.load(ruleset).program
    records, sizes = [], []
    for whole in (True, False):
        monkeypatch.setattr(statements, "WRITE_OUT_WHOLE", whole)
        rules = compile_rules(program)
        sizes.append(sum(len(src) for src in rules.code.gen.sources))
        records.append([play_one(rules, None, i, i, "random") for i in range(3)])
    assert records[0] == records[1]
    assert sizes[0] != sizes[1]  # the two forms are two codes


DEEP = header() + """
global x: int = 0
define leaf(v) = v + 1
define down(n) = if n == 0 then leaf(n) else down(n - 1)
setup { set x = down(START) }
"""


@pytest.mark.parametrize("start,fails", [(3, False), (4, True)])
def test_a_small_define_written_where_it_is_called_is_still_one_call_deeper(start, fails):
    """`leaf` is written into `down`'s code (it is small and calls no define) and still counts
    as a call: five calls nest at most, so down(3) then leaf fit and down(4) then leaf do not."""
    from rulebook.interpreter.state import Limits
    from rulebook.validator.diagnostics import DiagnosticError

    rules = rules_of(DEEP.replace("START", str(start)))
    if not fails:
        g = game_of(DEEP.replace("START", str(start)), limits=Limits(max_depth=5))
        assert g.state.globals["x"] == 1
        return
    with pytest.raises(DiagnosticError) as err:
        game_of(DEEP.replace("START", str(start)), limits=Limits(max_depth=5))
    assert err.value.diagnostics[0].code == "E0302"
    assert "leaf" in err.value.diagnostics[0].message
    assert rules.code.gen._leaf("leaf") and not rules.code.gen._leaf("down")


def test_rules_that_would_make_too_much_code_are_refused_with_a_located_diagnostic(monkeypatch):
    from rulebook.interpreter import codegen
    from rulebook.validator.diagnostics import DiagnosticError

    monkeypatch.setattr(codegen, "MAX_GENERATED", 20_000)
    body = "sum(a * b for a in 1..3, b in 1..3 where a != b)"
    text = header() + "".join(f"define f{i}(x) = {body} + x\n" for i in range(40)) + \
        "global n: int = 0\nsetup {\n" + "".join(f"    set n = f{i}(1)\n" for i in range(40)) + "}\n"
    from rulebook.grammar.parser import parse_text
    from rulebook.interpreter.rules import compile_rules

    with pytest.raises(DiagnosticError) as err:
        compile_rules(parse_text(text, "many.rules"))
    d = err.value.diagnostics[0]
    assert (d.code, d.file) == ("E0319", "many.rules")
    monkeypatch.setattr(codegen, "MAX_GENERATED", 20_000_000)
    assert compile_rules(parse_text(text, "many.rules")).code.gen.size > 20_000


KNOWN_NUMBERS = header() + """
global xs: list of int = [5, -7, 3]
global out: list of int = []
global n: int = 0
define evens() = count(i in 1..9 where i % 2 == 0)
define spread() = evens() * size(xs) - sum(i * 2 for i in 1..3)
setup {
    set n = spread()
    for x in xs {
        set out = out + [x / 2, x % 2, x / -2, x % -2, (x - 1) / 3]
    }
    set out = out + [-7 / 2, -7 % 2, 7 / -2, 7 % -2, count(i in 1..7 where i / 2 == 1)]
}
"""


def test_numbers_known_from_the_code_that_made_them_are_not_tested_again_and_mean_the_same():
    rules = rules_of(KNOWN_NUMBERS)
    g = game_of(KNOWN_NUMBERS)
    assert g.state.globals["n"] == 4 * 3 - 12
    # `/` and `%` round towards minus infinity, with operands known to be numbers or not
    assert g.state.globals["out"] == [
        2, 1, -3, -1, 1, -4, 1, 3, -1, -3, 1, 1, -2, -1, 0, -4, 1, -4, -1, 2]
    gen = rules.code.gen
    gen.body("spread")  # the define's body alone (it is written out where it is called)
    spread = next(f for f in gen.sources[-1].split("\n\ndef ") if "'xs'" in f and "len(" in f)
    # `evens() * size(xs)`, `- sum(...)` and the sum's `i * 2`: numbers by their making
    assert "is int" not in spread and "m.not_numbers" not in spread


def test_a_division_by_zero_of_known_numbers_is_still_refused():
    from rulebook.validator.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as err:
        game_of(header() + "global n: int = 0\nsetup {\n"
                "    set n = count(i in 1..3) / (size([1]) - 1)\n}\n")
    d = err.value.diagnostics[0]
    assert (d.code, d.line) == ("E0305", 6) and "division by zero" in d.message


def test_a_field_of_a_player_met_in_a_loop_over_the_players_is_read_directly():
    text = header() + """
player gold: int = 2 owner
global total: int = 0
define wealth() = sum(p.gold + 1 for p in players)
setup {
    set players[2].gold = 5
    set total = wealth()
}
"""
    g = game_of(text)
    assert g.state.globals["total"] == 3 + 6
    source = "".join(rules_of(text).code.gen.sources)
    wealth = next(f for f in source.split("\n\ndef ") if "'gold'" in f and "for t" in f)
    loop = wealth.split("for t", 1)[1].split("st.steps +=", 1)[0]  # the loop's body
    assert "'gold'" in loop and "m.note_read(" in loop  # still told to an audited seat
    assert "is Seat" not in loop and "is Item" not in loop


SHARED_NAME = header() + """
record Medal { gold: int }
player gold: int = 2 owner
global order: list of player = []
global held: list of Medal = []
global totals: list of int = []
define wealth(xs) = sum(x.gold for x in xs)
setup {
    set order = [players[2], players[1]]
    set players[2].gold = 5
    set held = [new Medal { gold: 7 }]
    set totals = [wealth(order), wealth(held), sum(p.gold for p in order)]
    for p in order { set totals = totals + [p.gold] }
}
"""


def test_a_name_players_and_records_share_is_read_as_a_players_first_in_a_list_of_players():
    # `gold` is a player's variable and a record's field; over `order` (declared a list of
    # players) it is read as a player's, guarded: anything else is the runtime's to read
    g = game_of(SHARED_NAME)
    assert g.state.globals["totals"] == [7, 7, 7, 5, 2]
    source = "".join(rules_of(SHARED_NAME).code.gen.sources)
    guarded = re.findall(r"try:\n +t\d+ = t\d+\.vars\['gold'\]\n +except "
                         r"\(AttributeError, KeyError\):", source)
    assert len(guarded) == 3  # wealth(order), the sum over order, the `for` over order
    # over a list of anything (`held`): each value's type is tested
    assert re.search(r"if type\(t\d+\) in _RECORDS:\n +t\d+ = t\d+\.fields\.get\('gold'", source)


def test_reads_of_public_variables_are_not_told_to_an_audited_seat():
    """Everyone sees a public variable: its reads cannot reveal anything, so the generated
    code does not tell them (a hidden one's reads are told: the test above)."""
    text = header() + """
player gold: int = 2
global pot: int = 1
global total: int = 0
define wealth() = sum(p.gold + pot for p in players)
setup {
    set total = wealth()
}
"""
    g = game_of(text)
    assert g.state.globals["total"] == 6
    source = "".join(rules_of(text).code.gen.sources)
    wealth = next(f for f in source.split("\n\ndef ") if "'gold'" in f and "for t" in f)
    assert "'pot'" in wealth and "m.note_read(" not in wealth


ROWS = header() + """
record Card { cost: int }
table cards of Card {
    id    | cost
    cheap | 1
    dear  | 5
}
on Card worn: int = 0
global board: grid 2 by 2 of int? = none
global total: int = 0
global wear: int = 0
global filled: int = 0
setup {
    set cards.dear.worn = 3
    set board[2, 1] = 7
    set total = sum(c.cost for c in cards)
    set wear = sum(c.worn for c in cards)
    set filled = sum(count(k in 1..2 where board[r, k] != none) for r in 1..2)
}
"""


def test_rows_of_a_table_and_cells_at_numbered_places_are_read_without_type_tests():
    g = game_of(ROWS)
    # a field of the row and a state on it (kept apart from the row's fields) read alike
    assert [g.state.globals[k] for k in ("total", "wear", "filled")] == [6, 3, 1]
    lines = "".join(rules_of(ROWS).code.gen.sources).splitlines()
    cost = [x for x in lines if "'cost'" in x]
    cells = [x for x in lines if ".rows and" in x]
    assert cost and cells
    assert not any("is Item" in x or "is Struct" in x for x in cost)
    # the grid is still tested to be one, the numbers of a range are not
    assert all("is Grid" in x and "is int" not in x for x in cells)


def test_code_run_while_the_state_is_set_up_still_meets_variables_not_set_yet():
    """Starting values (and the defines they call) may read a variable set after them: they
    are written to look for it, and say so; code run once the state is set up is not."""
    rules = rules_of(header() + "define later_plus_one() = later + 1\n"
                     "global start: int = later_plus_one()\nglobal later: int = 3\n"
                     "define twice() = later * 2\nglobal end: int = 0\n"
                     "setup {\n    set end = twice()\n}\n")
    gen = rules.code.gen
    assert "later_plus_one" in gen._early and "twice" not in gen._early
    with pytest.raises(DiagnosticError) as err:
        Game(rules, 2, 0)
    assert err.value.diagnostics[0].code == "E0311" and "later" in err.value.diagnostics[0].message


PLAIN_READS = header() + """
enum Kind { a, b, c }
record Card { cost: int }
table cards of Card {
    id    | cost
    cheap | 1
    dear  | 5
}
global held: Card? = none
global board: grid 2 by 2 of int? = none
global counts: map of Kind to int
global n: int = 0
global sizes: list of int = []
setup {
    WHAT
}
"""


def test_fields_and_sizes_read_plainly_leave_every_other_value_to_the_runtime():
    """`x.cost` (a name only records have) and `size(x)` are written as plain Python reads;
    what they cannot read (none, a grid, a field a value lacks) still gets the runtime's
    answer or its located error."""
    g = game_of(PLAIN_READS.replace("WHAT", "set held = cards.dear\n    set n = held.cost"))
    assert g.state.globals["n"] == 5
    source = "".join(rules_of(PLAIN_READS.replace("WHAT", "set n = held.cost")).code.gen.sources)
    assert ".fields['cost']" in source and "_RECORDS" not in source
    with pytest.raises(DiagnosticError) as err:
        game_of(PLAIN_READS.replace("WHAT", "set n = held.cost"))
    d = err.value.diagnostics[0]
    assert (d.code, d.line, d.message) == ("E0306", 18, "cannot read `.cost` of none")
    # a grid counts the cells that hold something; a text, a map and a table their length
    g = game_of(PLAIN_READS.replace("WHAT", "set board[1, 2] = 4\n    set sizes = "
                                    "[size(board), size(\"four\"), size(counts), size(cards)]"))
    assert g.state.globals["sizes"] == [1, 4, 3, 2]
    # a state variable declared as a grid is counted where it is written (no `len` tried
    # first), with the runtime's steps; through a local name it is the same count
    grid_size = PLAIN_READS.replace("WHAT", "set board[2, 2] = 4\n    let g = board\n"
                                    "    set sizes = [size(board), size(g)]")
    g = game_of(grid_size)
    assert g.state.globals["sizes"] == [1, 1]
    source = "".join(rules_of(grid_size).code.gen.sources)
    assert re.search(r"\n +t\d+ = len\(r\d+\.cells\) - r\d+\.cells\.count\(None\)\n",
                     source)  # the grid
    from rulebook.interpreter import codegen
    with pytest.MonkeyPatch.context() as patch:  # every grid counted by the runtime
        patch.setattr(codegen.Generator, "_global_grid", lambda self, node, sc: False)
        assert "cells.count" not in "".join(rules_of(grid_size).code.gen.sources)
        assert game_of(grid_size).state.steps == g.state.steps
    assert re.search(r"try:\n +t\d+ = len\(t\d+\)\n +except TypeError:\n +t\d+ = "
                     r"m\.bi_size\(", source)  # the local name: whatever it holds
    # a table's rows never change: its size is written as their number, unless a local has
    # taken its name
    table_size = PLAIN_READS.replace("WHAT", "set n = size(cards)\n"
                                     "    for cards in [[1, 2, 3]] { set sizes = [size(cards)] }")
    g = game_of(table_size)
    assert (g.state.globals["n"], g.state.globals["sizes"]) == (2, [3])
    source = "".join(rules_of(table_size).code.gen.sources)
    assert "G['n'] = (2)\n" in source and "len(t" in source
    with pytest.raises(DiagnosticError) as err:
        game_of(PLAIN_READS.replace("WHAT", "set n = size(held)"))
    d = err.value.diagnostics[0]
    assert (d.code, d.line, d.message) == ("E0306", 18, "`size` needs a list, not none")


FOLDED = header() + """
record Chip { size: int }
table chips of Chip {
    id    | size
    small | 1
    mid   | 2
    big   | 3
}
global board: grid 3 by 3 of int? = none
global found: list of int = []
define odd(v) = v % 2 == 1
define big(c) = c.size >= 2
define free(r, c) = board[r, c] == none
setup {
    set board[2, 2] = 5
    set found = [count(v in 1..5 where odd(v)), count(c in chips where big(c)), \
                 if any(v in 1..5 where odd(v) and v > 2) then 1 else 0, \
                 if all(c in chips where big(c)) then 1 else 0, \
                 sum(c.size for c in chips where big(c)), \
                 sum(count(c in 1..3 where free(r, c)) for r in 1..3)]
}
play {
    rounds {
        for p in players {
            choose p "Place" {
                option place for r in 1..3, c in 1..3 where free(r, c) {
                    set board[r, c] = 1
                }
            }
            if sum(count(c in 1..3 where free(r, c)) for r in 1..3) < 4 { end game }
        }
    }
}
"""


@pytest.mark.parametrize("ruleset", [None, "examples/tictactoe", "examples/dewdrop_garden",
                                     "beverage", "liqueur", "smartphone_inc", "beer_empire"])
def test_a_loop_charges_the_first_steps_of_its_body_with_its_own_and_the_same(ruleset,
                                                                            monkeypatch):
    """A small define written where a loop calls it charges its call with the loop's own
    steps (`codegen.Fold`): the same steps as when it is called as a function, in loops that
    visit every element and in loops that stop early."""
    from rulebook import api
    from rulebook.interpreter import codegen
    from rulebook.interpreter.rules import compile_rules

    program = rules_of(FOLDED).program if ruleset is None else api.load(ruleset).program
    runs, sources = [], []
    for inline in (True, False):
        if not inline:
            monkeypatch.setattr(codegen.Generator, "_leaf", lambda self, name: False)
        rules = compile_rules(program)
        runs.append([play_one(rules, None, i, i, "random") for i in range(2)])
        sources.append("".join(rules.code.gen.sources))
    assert runs[0] == runs[1] and all(r.error is None for r in runs[0])
    folded = [line for line in sources[0].splitlines() if "st.steps +=" in line and " * " in line
              or "st.steps += 12" in line]
    assert folded  # some loop charged its body's first steps with its own
    if ruleset is None:
        g = game_of(FOLDED)
        assert g.state.globals["found"] == [3, 2, 1, 0, 5, 8]


@pytest.mark.parametrize("ruleset", ["beverage", "liqueur", "smartphone_inc", "beer_empire"])
def test_a_charge_after_a_checked_one_joins_it_with_the_same_steps(ruleset, monkeypatch):
    """A loop's charge for its turn and the first statement's of its body, with only the
    statement's marker (`at = k7`) between, are one charge (`Function.charge`): the same steps,
    decisions and ends as when each is written on its own."""
    from rulebook import api
    from rulebook.interpreter import codegen
    from rulebook.interpreter.rules import compile_rules

    program = api.load(ruleset).program
    runs, charges = [], []
    for joined in (True, False):
        if not joined:
            monkeypatch.setattr(codegen.Function, "_after", lambda self, last: False)
        rules = compile_rules(program)
        runs.append([play_one(rules, None, i, i, "random") for i in range(3)])
        charges.append("".join(rules.code.gen.sources).count("st.steps +="))
    assert runs[0] == runs[1] and all(r.error is None for r in runs[0])
    assert charges[0] < charges[1]


def test_the_options_of_a_decision_are_listed_by_one_function_in_order_with_ids_apart():
    # one generated function lists every option of a `choose` (and of each step of a
    # `compose`), in the order written, the ids of all of them kept apart
    text = header() + """
global pile: list of int = [1, 2]
play {
    choose players[1] "Take" {
        option take for n in pile where n > 0 { }
        option pass { }
        option take for n in [2, 3] { }
    }
}
"""
    g = game_of(text)
    assert [o for o, _ in g.legal_options()] == ["take:1", "take:2", "pass", "take:2~2",
                                                  "take:3"]
    code = g.machine.waiting_frame().wait.code
    assert callable(code.listing) and code.listing.__name__.startswith("o")
    assert not hasattr(code.options[0], "enumerate")
    source = "".join(rules_of(text).code.gen.sources)
    assert len(re.findall(r"^def o\d+\(m, env, out, seen\):", source, re.M)) == 1


OPTION_TOKENS = header() + """
enum Colour { red, blue }
record Card { cost: int }
table named of Card {
    id  | cost | count
    one | 1    | 2
    two | 2    | 1
}
table plain of Card {
    cost
    3
}
global texts: list of text = ["a b", "c:d"]
global pairs: list of list of int = [[1], [2]]
play {
    choose players[1] "Take" {
        option card for c in named { }
        option row for c in plain { }
        option seat for p in players { }
        option colour for k in [red, blue] { }
        option flag for f in [true, false] { }
        option word for w in texts { }
        option pair for x in pairs { }
        option number for n in [5, 6] { }
    }
}
"""


def test_an_option_reads_each_value_it_is_bound_to_as_option_token_has_it():
    """The tokens of an option's id, written where options are listed (a component's with no
    call): a named row by its name (copies alike, kept apart), a row with no name by its id,
    players, members, yes and no, texts (no `:` or space), other values by their position."""
    from rulebook.interpreter.flow import option_token

    g = game_of(OPTION_TOKENS)
    ids = [o for o, _ in g.legal_options()]
    assert ids == ["card:one", "card:one~2", "card:two", "row:plain#1", "seat:p1", "seat:p2",
                   "colour:red", "colour:blue", "flag:yes", "flag:no", "word:a_b", "word:c_d",
                   "pair:1", "pair:2", "number:5", "number:6"]
    named, plain = g.rules.tables["named"], g.rules.tables["plain"]
    assert [option_token(c, i) for i, c in enumerate(named + plain)] == \
        ["one", "one", "two", "plain#1"]


def test_options_whose_ids_cannot_meet_are_listed_without_ids_and_read_alike():
    """Options over ranges under a name of their own are listed with no id, made when read:
    what a person is shown, what a bot picks and what the history keeps are the same ids."""
    from rulebook import api

    game = api.new_game(api.load("examples/tictactoe"), players=2, seed=0)
    assert all(entry[0] is None for entry in game.pending._listed)  # none made yet
    assert [oid for oid, _ in game.legal_options()][:3] == ["place:1:1", "place:1:2", "place:1:3"]
    picker = api.new_game(api.load("examples/tictactoe"), players=2, seed=0)
    oid = picker.pending.forward_id(4)
    assert oid == "place:2:2" and picker.pending._ids is None  # picked: no list of ids made
    picker.apply(oid)
    game.apply("place:2:2")
    assert picker.history == game.history and picker.state_written() == game.state_written()
    assert picker.pending.has("place:1:1") and not picker.pending.has("place:2:2")


def test_a_member_given_to_a_small_define_is_compared_by_identity_where_it_is_written():
    text = header() + """
enum Space { bar, hall }
global placed: list of Space? = [bar, none, hall, bar]
global counted: list of int = []
define at(s) = count(x in placed where x == s)
define away(s) = count(x in placed where x != s)
setup { set counted = [at(bar), at(hall), away(bar), away(hall)] }
"""
    g = game_of(text)
    assert g.state.globals["counted"] == [2, 1, 2, 3]
    source = "".join(rules_of(text).code.gen.sources)
    assert " is k" in source and " is not k" in source and "_COMPARED" not in source


def test_a_define_compares_its_parameter_by_identity_only_when_it_is_equal_to_itself_alone():
    text = header() + """
enum Space { bar, hall }
const big = 1000
global seen: list of bool = []
global unseen: list of bool = []
define yes() = "{1}" != ""  # a text made: not written where it is called, nor are its callers
define same(a, b) = a == b and yes()
define differs(a, b) = a != b and yes()
setup {
    set seen = [same(players[1], players[1]), same(players[1], players[2]), same(bar, bar),
                same(bar, hall), same(big * 3, 3000), same("a b", "a b"), same([1, 2], [1, 2]),
                same([1, 2], [2, 1]), same(none, none), same(players[1], none), same(none, bar),
                same(3, "3")]
    set unseen = [differs(players[1], players[2]), differs(big + 1, 1001), differs([1], [1]),
                  differs(none, players[2]), differs(hall, hall)]
}
"""
    g = game_of(text)
    assert g.state.globals["seen"] == [True, False, True, False, True, True, True, False, True,
                                       False, False, False]
    assert g.state.globals["unseen"] == [True, False, False, True, False]
    source = "".join(rules_of(text).code.gen.sources)
    assert "a0_alone = type(a0) not in _COMPARED" in source
    assert "(a0 is a1) if a0_alone else" in source and "(a0 is not a1) if a0_alone" in source


def test_a_constant_call_in_a_define_of_parameters_is_looked_up_while_options_are_listed(
        monkeypatch):
    """`occupants(bar)` in `can(n)`: the same value for every option; worked out once per
    listing, the options as without remembering. Written out in the listing, it is kept in a
    local of the listing (`Generator._kept_while_listing`); else it is found by its key, known
    as written, for each option after the first (`Evaluator.remembered`)."""
    text = header() + """
enum Space { bar, hall }
global placed: list of Space = [bar, bar, hall]
global taken: int = 0
define occupants(s) = count(x in placed where x == s)
define can(n) = n >= occupants(bar)
play {
    choose players[1] "Pick" {
        option pick for n in 1..5 where can(n) { set taken = n + occupants(hall) }
    }
}
"""
    from rulebook.interpreter.codegen import Generator

    def listed(rules):
        g = Game(rules, 2, 0)
        steps = g.state.steps
        assert g.legal_options() == [(f"pick:{n}", f"pick {n}") for n in range(2, 6)]
        g.apply("pick:3")
        assert g.state.globals["taken"] == 4  # written out where the state changes
        return steps, g.state.steps

    kept = rules_of(text)
    listing = next(f for f in "".join(kept.code.gen.sources).split("\n\ndef ")
                   if f.startswith("o"))
    assert re.search(r"\n    (t\d+) = _M\n(.*\n)* +if \1 is not _M:\n", listing)
    assert "m.memo.get(k" not in listing
    # a count, so the value kept is a number wherever it is given again: compared untested
    assert re.search(r"\n +if not \(t\d+ >= t\d+\): continue\n", listing)
    monkeypatch.setattr(Generator, "_same_while_listing", lambda self, fn, a: False)
    looked_up = rules_of(text)
    assert listed(kept) == listed(looked_up)
    site = next(v for v in looked_up.code.gen.ns.values()
                if type(v) is list and len(v) == 4 and v[3] == "occupants")
    assert site[0] == 1  # worked out for the first option; the four others found it
    assert "m.memo.get(k" in "".join(looked_up.code.gen.sources)


def test_a_value_kept_while_listing_is_a_number_only_where_every_place_keeps_numbers(
        monkeypatch):
    """`occupants(bar)` kept as a number where it is first worked out: a place after it whose
    value is not known to be a number keeps it only when it is one, so what is given again is
    a number wherever it is read (the options, values and steps as without keeping)."""
    text = header() + """
enum Space { bar, hall }
global placed: list of Space = [bar, bar, hall]
global taken: int = 0
define occupants(s) = count(x in placed where x == s)
play {
    choose players[1] "Pick" {
        option pick for n in 1..5 where n >= occupants(bar) { set taken = n }
        option more for n in 1..5 where n + occupants(bar) > 5 { set taken = n }
    }
}
"""
    from rulebook.interpreter.codegen import Generator

    def listed(rules):
        g = Game(rules, 2, 0)
        return g.legal_options(), g.state.steps

    plain = rules_of(text)
    inlined = Generator._inlined
    written = []

    def unknown_after_the_first(self, decl, args, at, fn, sc):  # the second place: not known
        v = inlined(self, decl, args, at, fn, sc)
        written.append(v)
        if len(written) == 1:
            return v
        u = fn.tmp()
        fn.emit(f"{u} = {v}")
        return u
    monkeypatch.setattr(Generator, "_inlined", unknown_after_the_first)
    guarded = rules_of(text)
    listing = next(f for f in "".join(guarded.code.gen.sources).split("\n\ndef ")
                   if f.startswith("o"))
    keeps = re.findall(r"if (m\.memo is not None.*): t\d+, t\d+ = ", listing)
    assert keeps[0] == "m.memo is not None" and re.fullmatch(
        r"m\.memo is not None and type\(t\d+\) is int", keeps[1])
    assert listed(guarded) == listed(plain)
    assert [o for o, _ in listed(plain)[0]] == [
        "pick:2", "pick:3", "pick:4", "pick:5", "more:4", "more:5"]


def test_a_define_reads_a_variable_where_it_is_first_needed_when_nothing_after_needs_it():
    text = header() + """
global big: int = 7
global other: int = 3
global seen: list of int = []
define yes() = "{1}" != ""  # a text made: not written where it is called, nor are its callers
define gated(x) = x > 0 and big > x and yes()
define both(x) = (if x > 0 then other else 0) + other + (if yes() then 0 else 1)
setup {
    set seen = [if gated(1) then 1 else 0, if gated(-1) then 1 else 0,
                if gated(9) then 1 else 0, both(1), both(-1)]
}
"""
    g = game_of(text)
    assert g.state.globals["seen"] == [1, 0, 0, 6, 3]
    functions = "".join(rules_of(text).code.gen.sources).split("\ndef ")
    gated = next(f for f in functions if "G['big']" in f)
    assert gated.index("G['big']") > gated.index("if t")  # read only once `x > 0` held
    both = next(f for f in functions if "G['other']" in f)
    # used in a branch and after it: read at the start
    assert both.index("G['other']") < both.index("if ")


def test_a_row_of_a_grid_indexed_by_nested_loops_is_found_once_per_turn_of_the_outer_loop():
    """`board[r, c]` with `c`'s loop inside `r`'s: where row `r` starts is worked out once per
    turn of `r` (a grid of 3 rows by 4 columns, so that rows and columns cannot be mixed up);
    the same cells as indexed one by one, and a grid too small is still refused."""
    text = header() + """
global board: grid 3 by 4 of int? = none
global seen: list of int = []
global rows: list of int = []
setup {
    for r in 1..3 { for c in 1..4 { set board[r, c] = 10 * r + c } }
    set seen = [board[r, c] for r in 1..3, c in 1..4 where board[r, c] % 2 == 0]
    set rows = [r for r in 1..3 where any(c in 1..4 where board[r, c] == 10 * r + 4)]
}
"""
    g = game_of(text)
    assert g.state.globals["seen"] == [12, 14, 22, 24, 32, 34]
    assert g.state.globals["rows"] == [1, 2, 3]
    source = "".join(rules_of(text).code.gen.sources)
    assert " - 1) * r" in source and "_c - 1\n" in source  # a row's start, on a line of its own
    small = text.replace("for r in 1..3 where any(c in 1..4", "for r in 1..4 where any(c in 1..4")
    with pytest.raises(DiagnosticError) as err:
        game_of(small)
    assert err.value.diagnostics[0].code == "E0307"


def test_a_test_of_a_local_named_nowhere_else_is_made_on_its_value():
    from rulebook.interpreter.codegen import _tested_at_once

    lines = ["    t1 = t2 is None", "    if not t1: continue",  # folded, with its body
             "    t3 = a if b else c", "    if t3:", "        pass",  # folded, parenthesized
             "    t4 = x == 1", "    if not t4:", "        t5 = t4",  # t4 named again: kept
             "    t6 = t7 = 0", "    if t6:",  # a chained assignment: kept
             "    t8 = y", "        if t8:"]  # another block: kept
    assert _tested_at_once(lines) == [
        "    if not (t2 is None): continue",
        "    if (a if b else c):", "        pass",
        "    t4 = x == 1", "    if not t4:", "        t5 = t4",
        "    t6 = t7 = 0", "    if t6:",
        "    t8 = y", "        if t8:"]


COUNTED = header() + """
global builders: grid 2 by 3 of player? = none
global seats: list of player = []
global who: player? = none
global found: list of int = []
define by_local(p) = count(b in builders where b == p) + count(s in seats where p == s)
define by_global() = count(b in builders where b == who) + count(s in seats where who == s)
setup {
    set builders[1, 2] = players[1]
    set builders[2, 3] = players[1]
    set seats = [players[2], players[1], players[1]]
    set who = players[WHO]
    set found = [WHAT]
}
"""


@pytest.mark.parametrize("who", [1, 2])
def test_counting_the_elements_equal_to_a_local_value_is_made_at_once_with_the_same_steps(who):
    """`count(x in S where x == v)` with v a local name holding a value equal only to itself
    is Python's `list.count` (over a list or a grid's cells); it gives what the loop gives, for
    the same steps (the loop: v a state variable)."""
    text = COUNTED.replace("WHO", str(who))
    local = game_of(text.replace("WHAT", "by_local(who)"))
    loop = game_of(text.replace("WHAT", "by_global()"))
    assert local.state.globals["found"] == loop.state.globals["found"] == [[4, 1][who - 1]]
    assert local.state.steps == loop.state.steps
    source = "".join(rules_of(text.replace("WHAT", "by_local(who), by_global()")).code.gen.sources)
    assert source.count(".count(") == 2  # the local value's two counts; not the global's


def test_counting_numbers_equal_to_a_local_value_walks_the_list():
    """A number is no value equal only to itself (`true` is not 1, though Python says so):
    the loop counts it, as a comparison of the rules does."""
    text = header() + """
global nums: list of int = [1, 2, 2, 3]
global found: list of int = []
define equal(k) = count(x in nums where x == k)
setup {
    set found = [equal(2), equal(4)]
}
"""
    assert game_of(text).state.globals["found"] == [2, 0]


def test_a_number_known_as_one_is_equal_to_numbers_alone():
    """`c.size == v` with `c.size` known to be a number (a table's column of numbers) is
    compared as numbers only when v is one: `true`, none, a text or a list is never equal."""
    text = header() + """
record Chip { size: int }
table chips of Chip {
    id    | size
    small | 1
    mid   | 2
    big   | 3
}
global found: list of int = []
define matching(v) = count(c in chips where c.size == v)
define differing(v) = count(c in chips where c.size != v)
setup {
    set found = [matching(1), matching(true), matching(none), matching("1"), matching([1]),
        differing(1), differing(true), differing(none)]
}
"""
    assert game_of(text).state.globals["found"] == [1, 0, 0, 0, 0, 2, 3, 3]
    source = "".join(rules_of(text).code.gen.sources)
    assert "is int and t" in source and "is not int or t" in source


TURN_STOPPED = header() + """
global gate: int = 2
global hand: list of int = [1]
global other: list of int = [2]
global counted: int = 0
global shown: list of int = []
define open(g, x) = g >= 2 and gate * 1 > 0 and x != 3
play {
    choose players[1] "Pick" {
        option pick for x in 1..5 where open(gate, x) { set gate = gate - 1 }
        option wait for x in [7, 8] where WAIT { set gate = gate + 1 }
    }
    set counted = count(x in [1, 2, 3] where gate >= 2 and x > 1) \
        + count(x in [1, 2, 3] where x > 1 and gate >= 2)
    set shown = filter(y in [4, 5] where gate >= 1 and y > 4)
    choose players[1] "Again" {
        option pick for x in 1..5 where open(gate, x + 0) { set gate = gate - 1 }
        option wait for x in [7, 8] where WAIT { set gate = gate + 1 }
    }
}
"""


@pytest.mark.parametrize("wait", ["x > 0", "hand == other and x > 0", "gate >= 1 and x > 0"])
@pytest.mark.parametrize("moves", [["pick:1", "pick:2"], ["pick:4", "wait"], ["wait", "pick:5"]])
def test_a_where_whose_first_operands_read_nothing_the_loop_binds_ends_the_loop_once_false(
        monkeypatch, wait, moves):
    """`g >= 2` and `gate * 1 > 0` in `open(gate, x)` read no local of the loop: false on
    one turn, false on all, so the loop ends there; the options listed, the values counted and
    every step charged are those of a loop that tries each turn (the same generator with the
    ending turned off). Not after `x + 0` is worked out: the call's steps are then charged on
    each turn. `x > 1` reads the loop's `x`, and `==` (which may charge steps) is
    never one of them."""
    text = TURN_STOPPED.replace("WAIT", wait)
    stopped = rules_of(text)
    source = "".join(stopped.code.gen.sources)
    plain = "".join(rules_of(TURN_STOPPED.replace("WAIT", "x > 0")).code.gen.sources)
    # `g >= 2`, where `gate` is read (a number as declared: untested), worked out once before
    # the loop, which walks nothing when it is false
    listing = next(f for f in source.split("\n\ndef ") if "r5 >= (2)\n" in f)
    assert re.search(r"\n +(t\d+) = \(\)\n +if (k\d+):\n(.*\n)* +t\d+ = r5 >= \(2\)\n"
                     r"(.*\n)* +\1 = \2\n +for t\d+ in \1:\n", listing)
    # `gate >= 1` is worked out before its loop too; not `hand == other`: comparing lists
    # charges steps
    assert (_ahead(source) > _ahead(plain)) == (wait == "gate >= 1 and x > 0")

    def play(rules):
        g, seen = Game(rules, 2, 0), []
        for move in moves:
            listed = g.legal_options()
            seen.append((listed, g.state.steps))
            if not listed:  # nothing was legal: the game went on to its end
                break
            g.apply(next((o for o, _ in listed if o.startswith(move)), listed[0][0]))
        return seen, g.state.steps, g.state.globals, g.over

    from rulebook.interpreter.codegen import Generator
    monkeypatch.setattr(Generator, "worked_before_loop", lambda self, whole, operands, fn, sc: (
        setattr(fn, "turn_test", None), operands)[1])
    every_turn = rules_of(text)
    assert _ahead("".join(every_turn.code.gen.sources)) == 0
    assert play(stopped) == play(every_turn)


def _ahead(source: str) -> int:
    """How many loops have operands of their `where` worked out before them (what they walk
    set to nothing, then to their list when those operands hold)."""
    return len(re.findall(r"\n +t\d+ = \(\)\n +if \w+:\n", source))


ROWS_HELD = header() + """
record Card {
    stage: int
    color: text
    cost: int
}
table cards of Card {
    id    | stage | color | cost
    a     | 1     | "red"  | 1
    b     | 2     | "blue" | 2
    c     | 1     | "blue" | 3
    d     | 3     | "red"  | 4
    e     | 1     | "red"  | 5
}
global stage: int = 1
global hue: text = "red"
global odd: bool = true
global seen: list of int = []
define open(c) = c.stage == stage and c.cost > 1
play {
    set seen = [count(c in cards where stage == c.stage and c.cost > 0), \
                sum(c.cost for c in cards where c.color == hue and c.cost > 1), \
                count(c in cards where c.stage == odd and c.cost > 0), \
                count(c in cards where c.stage == hue and c.cost > 0)]
    repeat 3 times {
        choose players[1] "Take" {
            option take for c in cards where open(c) { set stage = stage + 1 }
            option skip { set stage = 1 }
        }
    }
}
"""


@pytest.mark.parametrize("moves", [["take:c", "take:b", "skip"], ["skip", "take:e", "skip"]])
def test_a_loop_over_a_tables_rows_where_a_column_holds_a_value_walks_only_those_rows(
        monkeypatch, moves):
    """`c.stage == stage` over the rows of `cards` (a column of numbers alone, or of texts
    alone) walks the rows grouped by that column: the same options, values and steps as the
    loop that tests every row. A truth is not a number (`true` is not 1), and a text is no
    number: nothing matches, and nothing is refused."""
    from rulebook.interpreter.codegen import Generator

    def play(rules):
        g, seen = Game(rules, 2, 0), []
        for move in moves:
            listed = g.legal_options()
            seen.append((listed, g.state.steps))
            g.apply(next(o for o, _ in listed if o.startswith(move)))
        return seen, g.state.steps, g.state.globals["seen"], g.over

    grouped = rules_of(ROWS_HELD)
    source = "".join(grouped.code.gen.sources)
    assert len(re.findall(r"= k\d+\.get\(r\d+, \(\)\) if type\(r\d+\) is (int|str) else", source)) \
        == 5  # the four counts and sums, and the options
    monkeypatch.setattr(Generator, "_rows_holding", lambda self, *a: None)
    every_row = rules_of(ROWS_HELD)
    assert ".get(r" not in "".join(every_row.code.gen.sources)
    assert play(grouped) == play(every_row)
    assert play(grouped)[2] == [3, 9, 0, 0]


@pytest.mark.parametrize("ruleset", ["liqueur", "beverage"])
def test_a_looping_define_called_with_the_same_arguments_while_options_are_listed_is_kept(
        monkeypatch, ruleset):
    """`must_add(p)` in Liqueur's blending options, `occupants(stadium_space)` in Beverage's:
    worked out once while a decision's options are listed, then given again with its steps
    charged again. Whole games come out the same as with each call worked out anew: the same
    decisions, state and steps."""
    from rulebook import api
    from rulebook.interpreter.codegen import Generator
    from rulebook.interpreter.rules import compile_rules

    program = api.load(ruleset).program
    kept = compile_rules(program)
    assert "_M\n" in "".join(kept.code.gen.sources) and any(
        re.search(r"\n    t\d+ = _M\n", part) for part in kept.code.gen.sources)
    monkeypatch.setattr(Generator, "_same_while_listing", lambda self, fn, a: False)
    anew = compile_rules(program)
    for seed in range(3):
        games = [play_one(rules, 3, seed, seed, "random") for rules in (kept, anew)]
        assert games[0] == games[1] and games[0].error is None


def test_an_operand_that_ends_the_loop_is_still_worked_out_only_when_a_turn_is_made():
    """Not a number: an error where the loop turns (E0306 naming the operand), none where the
    list it walks is empty."""
    text = header() + """
global word: text = "w"
global walked: list of int = WALKED
global n: int = 0
play { set n = count(x in walked where word >= 2 and x > 0) }
"""
    assert game_of(text.replace("WALKED", "[]")).state.globals["n"] == 0
    with pytest.raises(DiagnosticError) as err:
        game_of(text.replace("WALKED", "[1, 2]"))
    d = err.value.diagnostics[0]
    assert (d.code, d.line) == ("E0306", 8) and "text" in d.message


EXTREMES = header() + """
enum Size { small, large }
global xs: list of int = [4, 9, 2]
global sizes: list of Size = [large, small]
global n: int? = none
global out: list of int? = []
global picked: Size? = none
setup {
    set out = [max(3, 7), min(3, 7), max(xs[1], xs[2]), min(5, xs[3]), max(x for x in xs), \
               min(x * 2 for x in xs where x > 2), max(x for x in xs where x > 100), \
               max(p.score + 1 for p in players), min(-4, -4)]
    set picked = max(s for s in sizes)
    WHAT
}
player score: int = 0
play { end game }
"""


@pytest.mark.parametrize("what,error", [
    ("", None),
    ("set n = max(1, n)", "`max` needs numbers, got none"),
    ("set n = min(n, 1)", "`min` needs numbers, got none"),
    ("set n = max(x for x in [1, n])", "`max` needs numbers, got none"),
    ("set n = max(1, xs)", "`max` needs numbers, got list"),
    ("set n = max(1, large)", "`max` needs numbers, or members of one enum"),
    ("set picked = min(s for s in [large, 2])", "`min` needs numbers, or members of one enum"),
])
def test_max_and_min_of_numbers_written_out_are_the_runtimes_to_the_step(what, error,
                                                                         monkeypatch):
    """`max` and `min` of two numbers or of numbers a loop makes are written where they are
    called: the same values (none of nothing, a member by its order), steps and errors as
    `Evaluator.aggregate`, which has every other value."""
    from rulebook.interpreter import codegen

    seen = []
    for written in (True, False):
        monkeypatch.setattr(codegen, "WRITE_EXTREMES", written)
        source = EXTREMES.replace("WHAT", what)
        code = "".join(rules_of(source).code.gen.sources)
        assert (" = max(t" in code and "(3) if (3) >= (7) else (7)" in code) is written
        try:
            g = game_of(source)
            seen.append((g.state.globals["out"], g.state.globals["picked"].name, g.state.steps))
        except DiagnosticError as err:
            d = err.diagnostics[0]
            seen.append((d.code, d.line, d.message))
    assert seen[0] == seen[1]
    if error is None:
        assert seen[0][:2] == ([7, 3, 9, 2, 9, 8, None, 1, -4], "large")
    else:
        assert seen[0] == ("E0306", 14, error)


IN_TABLE = header() + """
record Card { cost: int }
table cards of Card {
    id | cost
    a  | 1
    b  | 2
    c  | 3
}
table others of Card {
    id | cost
    z  | 9
}
global found: list of bool = []
global held: Card? = none
setup {
    set found = [cards.a in cards, cards.c in cards, cards.b not in cards, \\
                 others.z in cards, others.z not in cards, held in cards, held not in cards]
}
play { end game }
"""


def test_a_value_in_a_table_is_found_by_its_row_with_the_steps_of_a_search(monkeypatch):
    """`x in table` looks the row up (rows never change) and charges what searching the list
    charges: the rows up to it, or all of them (`none` and a row of another table)."""
    from rulebook.interpreter import codegen

    seen = []
    for looked_up in (True, False):
        if not looked_up:  # the table as any list, searched by the runtime
            monkeypatch.setattr(codegen.Generator, "_table_named", lambda self, node, sc: False)
        code = "".join(rules_of(IN_TABLE).code.gen.sources)
        assert (".get(" in code and ".index(" not in code) is looked_up
        g = game_of(IN_TABLE)
        seen.append((g.state.globals["found"], g.state.steps))
    assert seen[0] == seen[1]
    assert seen[0][0] == [True, True, False, False, True, False, True]


ONCE_A_LOOP = header() + """
record Box { threshold: int
    tax: int }
table boxes of Box {
    threshold | tax
    0         | 0
    5         | 1
    10        | 2
}
player rep: int = 7
global out: list of int? = []
global nobody: player? = none
global no_boxes: list of Box = []
global holes: list of Box? = [none]
define base(p) = max(b.tax for b in boxes where b.threshold <= p.rep)
define flipped(p) = count(b in boxes where p.rep >= b.threshold)
setup {
    set out = [base(players[1]), flipped(players[2]), count(b in no_boxes where b.threshold <= nobody.rep)]
    WHAT
}
play { end game }
"""


@pytest.mark.parametrize("what,error", [
    ("", None),
    ("set out = [count(b in boxes where b.threshold <= nobody.rep)]", "cannot read `.rep` of none"),
    ("set out = [count(b in boxes where nobody.rep >= b.threshold)]", "cannot read `.rep` of none"),
    # the left operand fails first: the right one is not worked out before it
    ("set out = [count(b in holes where b.threshold <= nobody.rep)]",
     "cannot read `.threshold` of none"),
])
def test_an_operand_of_a_where_the_same_on_every_turn_is_worked_out_once(what, error,
                                                                        monkeypatch):
    """`b.threshold <= p.rep` as a loop's `where`: `p.rep` is read once, before the loop and
    only when it has a turn to make (a loop over nothing reads nothing), with the same values,
    steps and errors as when it is read on every turn."""
    from rulebook.interpreter import codegen

    source = ONCE_A_LOOP.replace("WHAT", what)
    seen = []
    for once in (True, False):
        if not once:
            monkeypatch.setattr(codegen.Generator, "_worked_before_turns",
                                lambda self, node, fn, sc: None)
        code = "".join(rules_of(source).code.gen.sources)
        assert bool(re.search(r"\n( +)if t\d+:\n\1    try:\n\1        t\d+ = t\d+\.vars\['rep'\]",
                              code)) is once
        try:
            g = game_of(source)
            seen.append((g.state.globals["out"], g.state.steps))
        except DiagnosticError as err:
            d = err.diagnostics[0]
            seen.append((d.code, d.line, d.message))
    assert seen[0] == seen[1]
    if error is None:
        assert seen[0][0] == [1, 2, 0]
    else:
        assert seen[0] == ("E0306", 22, error)
