"""Awards and ties, winners, reactions, events, modifiers, procedures and automata."""
from engine_helpers import game_of, header


def _vars(g, name):
    return [s.vars[name] for s in g.state.seats]


AWARD = """
player key: int = 0
player got: int = 0
setup {{
    set players[1].key = 5
    set players[2].key = 5
    set players[3].key = 2
    set players[4].key = 0
}}
play {{
    award [10, 7, 4] among p in players where p.key > 0 by p.key descending ties {rule} {{
        increase p.got by amount
    }}
}}
"""


def test_award_ties_share_the_summed_amounts_rounded_down():
    g = game_of(header("4") + AWARD.format(rule="share"), 4)
    # two tied for first take (10 + 7) / 2 = 8; third place gets 4; key 0 is excluded
    assert _vars(g, "got") == [8, 8, 4, 0]


def test_award_ties_give_nobody_the_award():
    g = game_of(header("4") + AWARD.format(rule="none"), 4)
    assert _vars(g, "got") == [0, 0, 4, 0]


def test_award_ties_all_take_the_best_shared_rank():
    g = game_of(header("4") + AWARD.format(rule="all"), 4)
    assert _vars(g, "got") == [10, 10, 4, 0]


def test_winner_chain_and_shared_victory():
    text = """
player score: int = 0
player tokens: int = 0
setup {{
    set players[1].score = 9
    set players[2].score = 9
    set players[3].score = 9
    set players[1].tokens = {t1}
    set players[2].tokens = 2
    set players[3].tokens = 1
}}
winner p in players by p.score descending, p.tokens descending
"""
    assert [p.seat for p in game_of(header("3") + text.format(t1=1), 3).state.winners] == [2]
    assert [p.seat for p in game_of(header("3") + text.format(t1=2), 3).state.winners] == [1, 2]


def test_reaction_fires_once_as_soon_as_its_condition_becomes_true():
    g = game_of(header() + """
player progress: int = 0
player done: int = 0
reaction finished for p in players as soon as p.progress >= 3 {
    increase p.done by 1
}
play {
    repeat 5 times { increase players[1].progress by 1 }
    set players[1].progress = 0
    set players[1].progress = 4
}
""")
    assert _vars(g, "done") == [2, 0]


def test_events_modifiers_and_procedures():
    g = game_of(header() + """
player tech: bool = false
player goods: int = 0
define production(p) = 2
modifier doubled: production(p) *= 2 when p.tech
modifier bonus: production(p) += 1 when p.tech
procedure produce(p) {
    increase p.goods by production(p)
    trigger produced(p)
}
when produced(p) { log "{p} produced" }
setup { set players[2].tech = true }
play { for p in players { do produce(p) } }
""")
    assert _vars(g, "goods") == [2, 5]
    assert any(e["text"] == "player 2 produced" for e in g.state.log)


def test_an_automaton_decides_by_its_priority_list_without_an_agent():
    g = game_of(header("1") + """
enum Region { alpha, beta, gamma }
player at: Region? = none
automaton bot {
    prefer move_to by size_of(r) descending, r
    prefer rest
}
define size_of(r) = match r { alpha: 1, beta: 3, gamma: 3 }
play {
    for p in players {
        choose p "Where to?" {
            option rest { }
            option move_to for r in [alpha, beta, gamma] { set p.at = r }
        }
    }
}
""", players=1)
    # seat 1 is a person; seat 2 is the automaton and decides by itself
    assert g.pending_seat() == 1
    g.apply("rest")
    assert g.over
    assert g.state.seats[1].automaton == "bot"
    assert g.state.seats[1].vars["at"].name == "beta"
