"""Parser: statements that change state (let, set, increase, move, add, shuffle, if, loops...)."""
from __future__ import annotations

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from test_parser_helpers import span

HEADER = 'game "Statements" {\n    players 2\n}\n'  # `setup {` is line 4, the body starts on line 5


def body(*lines: str) -> list:
    text = HEADER + "setup {\n" + "".join(f"    {line}\n" for line in lines) + "}\n"
    (setup,) = parse_text(text).declarations
    return setup.body


def test_let_and_set():
    let, set_ = body("let n = 3", "set players[1].coins = n")
    assert isinstance(let, A.Let) and (let.name, let.value.value) == ("n", 3)
    assert isinstance(set_, A.Set)
    assert isinstance(set_.target, A.FieldAccess) and set_.target.name == "coins"
    assert span(let) == (5, 5, 5, 14)
    assert span(set_) == (6, 5, 6, 29)


def test_increase_and_decrease():
    inc, dec = body("increase p.score by 2", "decrease p.score by cost(c)")
    assert (inc.kind, inc.op, inc.amount.value) == ("change", "increase", 2)
    assert dec.op == "decrease" and isinstance(dec.amount, A.Call)


def test_move_forms():
    one, top, all_, bottom = body("move c from p.hand to discard",
                                  "move top 2 from deck to p.hand",
                                  "move all from discard to deck",
                                  "move c from market[1, 2] to p.hand at bottom")
    assert (one.what, one.item.id, one.place) == ("one", "c", None)
    assert (top.what, top.item.value) == ("top", 2)
    assert (all_.what, all_.item) == ("all", None)
    assert bottom.place == "bottom"
    assert isinstance(bottom.source, A.Index)


def test_add_and_remove():
    add, remove = body("add c to p.hand at top", "remove c from p.hand")
    assert isinstance(add, A.Add) and add.place == "top"
    assert isinstance(remove, A.Remove) and remove.source.name == "hand"


def test_shuffle_reveal_hide():
    shuffle, reveal, reveal_to, hide = body("shuffle deck", "reveal p.bid", "reveal p.hand to q",
                                            "hide p.bid")
    assert isinstance(shuffle, A.Shuffle) and shuffle.target.id == "deck"
    assert isinstance(reveal, A.Reveal) and reveal.to is None
    assert reveal_to.to.id == "q"
    assert isinstance(hide, A.Hide)


def test_if_else_if_else():
    (stmt,) = body("if a {", "    pass", "} else if b {", "    stop", "} else {", "    end game", "}")
    assert isinstance(stmt, A.If)
    assert [b.test.id for b in stmt.branches] == ["a", "b"]
    assert isinstance(stmt.branches[1].body[0], A.Stop)
    assert isinstance(stmt.otherwise[0], A.EndGame)
    assert span(stmt) == (5, 5, 11, 6)


def test_if_with_citation_on_one_line():
    (stmt,) = body('if a cite "Bonus" { pass }')
    assert stmt.meta.cite == ["Bonus"] and stmt.otherwise is None


def test_each_else_if_may_cite_its_own_section():
    (stmt,) = body('if a cite "One" {', "    pass", '} else if b cite "Two" assumed "why" {',
                   "    stop", "} else if c {", "    stop", "}")
    assert stmt.meta.cite == ["One"] and stmt.branches[0].meta.cite == []
    assert stmt.branches[1].meta.cite == ["Two"] and stmt.branches[1].meta.assumed == "why"
    assert stmt.branches[2].meta.cite == []


def test_loops():
    for_, repeat, while_ = body("for c in hand where c.cost > 1 { pass }", "repeat 3 times { pass }",
                                "while size(deck) > 0 { stop }")
    assert isinstance(for_, A.For) and for_.binding.name == "c" and for_.where is not None
    assert isinstance(repeat, A.Repeat) and repeat.count.value == 3
    assert isinstance(while_, A.While) and isinstance(while_.body[0], A.Stop)


def test_log_require_do_trigger():
    log, req, do, trig = body('log "{p} scores {n}"', 'require n >= 0 "never negative"',
                              "do deal(p, 2)", "trigger scored(p)")
    assert isinstance(log, A.Log) and [x.kind for x in log.message.parts][:2] == ["expr_part", "text_part"]
    assert isinstance(req, A.Require) and req.message.parts[0].text == "never negative"
    assert isinstance(do, A.CallProcedure) and (do.name, len(do.args)) == ("deal", 2)
    assert isinstance(trig, A.Trigger) and trig.event == "scored"


def test_empty_block_and_blank_lines():
    text = HEADER + "setup {\n\n    # nothing yet\n\n}\n"
    (setup,) = parse_text(text).declarations
    assert setup.body == []


def test_statements_keep_order():
    kinds = [s.kind for s in body("pass", "let a = 1", "set a = 2", "stop", "end game")]
    assert kinds == ["pass", "let", "set", "stop", "end_game"]
