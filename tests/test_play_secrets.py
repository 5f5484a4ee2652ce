"""Playing at the terminal never shows a hidden card: not through undo, not through a seed every
game shares, not in the scrollback a person hands over, not through a replay as a made-up seat."""
from __future__ import annotations

import random
import re

from click.testing import CliRunner

from rulebook import api
from rulebook.cli import main

SECRET_DECK = '''game "Deck" {
    players 2
}
global deck: list of int = [1, 2, 3, 4, 5, 6, 7, 8, 9] secret
global row: list of int
global pool: int = 9 secret
player score: int
setup {
    shuffle deck
}
play {
    rounds 2 {
        for p in players {
            choose p "Draw or wait" {
                option draw { move top 1 from deck to row }
                option feed { increase pool by 1 }
                option wait { }
            }
            choose p "Score" confirm {
                option score { increase p.score by 1 }
            }
        }
    }
}
winner p in players by p.score descending
'''


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    return result


def game_of(text: str, tmp_path, seed=1):
    path = tmp_path / "deck.rules"
    path.write_text(text, encoding="utf-8")
    game = api.new_game(api.load(str(path)), 2, seed)
    game.audit_reveals = True
    return game


def test_undo_is_refused_once_a_decision_showed_a_card_from_a_secret_deck(tmp_path):
    game = game_of(SECRET_DECK, tmp_path)
    game.apply("draw")
    assert game.state.globals["row"]  # the top card of the secret deck is now face up
    assert game.last_decision_revealed()
    game.apply("score")
    game.apply("wait")
    assert not game.last_decision_revealed()  # nothing was shown: undo is fine
    assert game.undo().pending.prompt == "Draw or wait"


def test_feeding_a_secret_count_shows_nothing_of_it(tmp_path):
    game = game_of(SECRET_DECK, tmp_path)
    game.apply("feed")
    assert not game.last_decision_revealed()


def test_a_reveal_that_follows_a_decision_counts_as_shown(tmp_path):
    text = SECRET_DECK.replace("option wait { }", "option wait { reveal deck }")
    game = game_of(text, tmp_path)
    game.apply("wait")
    assert game.last_decision_revealed()


def test_at_the_terminal_undo_after_a_draw_is_refused_and_the_card_stays_drawn(tmp_path):
    path = tmp_path / "deck.rules"
    path.write_text(SECRET_DECK, encoding="utf-8")
    result = run("play", str(path), "--seed", "3", "--seat", "2=first", input="1\nu\n1\n" * 4)
    assert "Undo refused: that decision showed you something that was hidden" in result.output
    assert result.exit_code == 0


def test_liqueur_undo_after_taking_a_market_card_is_refused():
    """Taking a card refills the Market from the secret deck: the new card cannot be unseen."""
    rules = api.load("liqueur")
    rng = random.Random(0)
    refused = allowed = 0
    for seed in range(3):
        game = api.new_game(rules, 3, seed)
        game.audit_reveals = True
        while game.pending is not None:
            seat = game.pending_seat()
            oid = rng.choice(game.legal_options())[0]
            market_before = [c.id for c in game.state.globals["market"].cells if c]
            game.apply(oid, seat)
            if game.pending is None or game.pending_seat() != seat:
                continue
            market_after = [c.id for c in game.state.globals["market"].cells if c]
            if game.last_decision_revealed():
                refused += 1
            else:
                allowed += 1
                # a decision that may be undone put no new card in view
                assert set(market_after) <= set(market_before)
    assert refused > 0 and allowed > 0


def test_beverage_undo_after_researching_the_market_is_refused():
    rules = api.load("beverage")
    rng = random.Random(5)
    found = False
    for seed in range(6):
        game = api.new_game(rules, 3, seed)
        game.audit_reveals = True
        while game.pending is not None and not found:
            seat = game.pending_seat()
            ids = [o for o, _ in game.legal_options()]
            oid = "research" if "research" in ids and seat == 3 else rng.choice(ids)
            game.apply(oid, seat)
            if oid == "research" and game.pending is not None and game.pending_seat() == seat \
                    and game.pending.prompt.startswith("You have seen the market"):
                assert game.last_decision_revealed()
                found = True
        if found:
            break
    assert found, "no game reached a market research decision by the last seat"


def test_every_new_game_gets_a_fresh_seed_that_is_printed_at_the_end():
    ttt = "examples/tictactoe"
    outputs = [run("play", ttt, "--seat", "1=random", "--seat", "2=random").output
               for _ in range(4)]
    seeds = [re.search(r"Seed (\d+): `--seed \1` deals this game again", o).group(1)
             for o in outputs]
    assert len(set(seeds)) > 1
    again = run("play", ttt, "--seat", "1=random", "--seat", "2=random", "--seed", seeds[0])
    assert again.output.split("Winner")[0][-300:] == outputs[0].split("Winner")[0][-300:]


def test_liqueur_games_without_a_seed_deal_different_markets():
    views = set()
    for _ in range(3):
        out = run("play", "liqueur", "--players", "3", "--seat", "1=first",
                  input="").output
        views.add(out.split("Players:")[0])
    assert len(views) > 1


def test_the_hand_over_clears_the_scrollback_too():
    result = run("play", "examples/tictactoe", "--seat", "1=human", "--seat", "2=human",
                 input="\n1\n" * 7)
    assert result.output.count("\x1b[3J") >= 7  # erase the saved lines, not only the screen
    before_first_prompt = result.output.split("Pass the terminal to player 2")[1]
    assert "you are player 1" not in before_first_prompt.split("Your decision")[0]


def test_replay_refuses_a_seat_that_does_not_exist(tmp_path):
    save = tmp_path / "g.json"
    run("play", "examples/tictactoe", "--seat", "2=first", "--save-to", str(save),
        input="1\nq\n")
    assert run("replay", str(save), "--seat", "2").exit_code == 0
    for seat in ("3", "99"):
        result = run("replay", str(save), "--seat", seat)
        assert result.exit_code == 2 and f"seat {seat} does not exist" in result.output
    assert run("replay", str(save), "--seat", "0").exit_code == 2


def test_play_refuses_a_seat_that_does_not_exist():
    result = run("play", "examples/tictactoe", "--seat", "5=random")
    assert result.exit_code == 2 and "seat 5 does not exist" in result.output


def test_the_docs_say_that_a_save_or_a_seed_reveals_the_whole_game():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    api_doc = (root / "docs" / "api.md").read_text(encoding="utf-8")
    guide = (root / "docs" / "guide.md").read_text(encoding="utf-8")
    for text in (api_doc, guide):
        assert "reveals the whole game" in text
    assert "reveal the whole game" in " ".join(run("play", "--help").output.split())


def test_a_decision_with_one_legal_option_is_made_for_the_person_unless_confirmed(tmp_path):
    path = tmp_path / "deck.rules"
    path.write_text(SECRET_DECK.replace('"Score" confirm', '"Score"'), encoding="utf-8")
    result = run("play", str(path), "--seed", "3", "--seat", "2=first", input="3\n" * 4)
    assert result.exit_code == 0
    assert result.output.count("Only one choice was possible, so it was made for you: score") == 2
    assert "Your decision: Score" not in result.output
    confirmed = tmp_path / "confirmed.rules"
    confirmed.write_text(SECRET_DECK, encoding="utf-8")
    result = run("play", str(confirmed), "--seed", "3", "--seat", "2=first", input="3\n1\n" * 2)
    assert "Your decision: Score" in result.output and "made for you" not in result.output
