"""Parser: awards, scoring and the winner with tie-breaks."""
from __future__ import annotations

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_text
from test_parser_helpers import span

HEADER = 'game "Scoring" {\n    players 2 to 5\n}\n'


def decls(text: str) -> list:
    return parse_text(HEADER + text).declarations


def test_award_with_keys_ties_and_body():
    (scoring,) = decls(
        "scoring {\n"
        '    award [5, 3, 1] among p in players where p.beer > 0 by p.beer descending, seat(p) ties share cite "Beerfest" {\n'
        "        increase p.points by amount\n"
        "    }\n"
        "}\n")
    assert isinstance(scoring, A.ScoringDecl)
    (award,) = scoring.body
    assert isinstance(award, A.Award)
    assert [v.value for v in award.amounts.items] == [5, 3, 1]
    assert award.binding.name == "p" and award.where.op == ">"
    assert [k.descending for k in award.keys] == [True, False]
    assert award.ties == "share"
    assert award.meta.cite == ["Beerfest"]
    assert isinstance(award.body[0], A.Change)
    assert span(award) == (5, 5, 7, 6)


def test_award_tie_rules():
    for rule in ("share", "none", "all"):
        (scoring,) = decls(f"scoring {{\n    award bonus among p in players by p.x ties {rule} {{ pass }}\n}}\n")
        assert scoring.body[0].ties == rule


def test_winner_with_tie_break_chain():
    (winner,) = decls('winner p in players by p.points descending, p.money descending, '
                      'changed_at(p.points) cite "End of the game"\n')
    assert isinstance(winner, A.WinnerDecl)
    assert winner.binding.name == "p"
    assert [k.descending for k in winner.keys] == [True, True, False]
    assert isinstance(winner.keys[2].expr, A.Call) and winner.keys[2].expr.func == "changed_at"
    assert winner.meta.cite == ["End of the game"]
    assert span(winner)[:2] == (4, 1)


def test_winner_with_random_last_key():
    (winner,) = decls("winner p in players by p.points descending, random\n")
    assert isinstance(winner.keys[1], A.RandomKey)
