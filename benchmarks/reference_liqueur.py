"""Hand-written reference implementation of Liqueur (rulesets/liqueur/liqueur.rules), 3-5 players.

Used by benchmarks to compare the generic rulebook engine with plain Python. It plays the same
game as the rules file with a uniformly random policy (every decision picks uniformly among the
legal options, as the engine's RandomAgent does); the random streams differ from the engine's, so
games are not replayed one for one, but the statistics (decisions per game, mean score per seat,
win shares) agree with `rulebook simulate ... --agent random`.

Implemented, following liqueur.rules (same card tables, same "Reading:" interpretations):
  * Set up (steps 1-9): random start player; Market deck = 16 Base + 28 Flavor cards, shuffled,
    3x5 Market dealt; Order deck shuffled with its top card face up; Trend deck shuffled, one
    Trend card per player to the Trend row, the rest shuffled into the Market deck; 1 Achievement
    token each (20 in all); the Trend draft, counterclockwise from the player right of the start
    player (one decision each, the last one with a single option).
  * A) Market phase: take a bottom-row card, or pay 1 token to take a card from rows 1-2;
    a Base card comes with the face-up Order card (then the next Order card is flipped); the
    column slides down and is refilled from the Market deck while it lasts.
  * B) Blending phase: the loop of "add one Flavor card to one set / done" decisions, with rule 4
    (cost <= maximum), rule 5 (must_add: no `done` while an empty Base card can take a loose
    Flavor card, and then only additions onto empty Base cards) and otherwise additions only
    involving the card just taken (`may_add` / `can_blend` in the rules file).
  * C) Shipping phase: up to 2 "ship a set / done" decisions while a set holds a Flavor card;
    Order met -> its sales, else 1 M; exact cost -> 1 token from the Token Area if any remain.
  * End: after the turn in which the Market grid is empty. Scoring: shipped sales, Trend cards
    met (5 kinds of criteria), the 3 Awards (best shipped set in the parameter, > 0, ties: none),
    3 M per token. Winners: most sales, then most tokens; remaining ties are shared victories.

Decisions are counted exactly as the engine counts them: every `choose`, including single-option
ones (the last Trend draft pick) and each step of the blending and shipping loops with its `done`.

Simplifications that do not change the statistics: each Market column is a list from the bottom
row up (the rules keep columns packed at the bottom, so this is the same grid); the log, card
visibility, the box and the scenario helpers are left out; the Two Players Variant is not done.
"""
from __future__ import annotations

import random
import sys
import time

RICH, SWEET, AROMA = "rich", "sweet", "aroma"
PARAMETERS = (RICH, SWEET, AROMA)


class Card:
    __slots__ = ("name", "maximum", "parameter", "strength", "flavor_type", "cost",
                 "goal", "threshold", "flavor_goal", "sales", "kind")

    def __init__(self, kind, name, maximum=None, parameter=None, strength=0, flavor_type=None,
                 cost=0, goal=None, threshold=0, flavor_goal=None, sales=0):
        self.kind, self.name, self.maximum, self.parameter = kind, name, maximum, parameter
        self.strength, self.flavor_type, self.cost, self.goal = strength, flavor_type, cost, goal
        self.threshold, self.flavor_goal, self.sales = threshold, flavor_goal, sales

    def __repr__(self):
        return self.name


# name, maximum, parameter, strength, copies
BASES = [("brandy", 5, AROMA, 1, 4), ("vodka", 6, RICH, 1, 3), ("rum", 4, SWEET, 2, 3),
         ("gin", 3, AROMA, 2, 3), ("whisky", 7, RICH, 1, 3)]
# name, flavor type, cost, parameter, strength
FLAVORS = [
    ("cardamom", "plants", 2, AROMA, 1), ("mint", "plants", 1, AROMA, 1),
    ("basil", "plants", 1, RICH, 1), ("lavender", "plants", 3, AROMA, 2),
    ("rose", "plants", 3, SWEET, 2), ("cinnamon", "plants", 2, RICH, 1),
    ("vanilla", "plants", 4, SWEET, 2), ("lychee", "fruits", 3, SWEET, 2),
    ("lemon", "fruits", 1, AROMA, 1), ("orange", "fruits", 2, SWEET, 1),
    ("cherry", "fruits", 2, SWEET, 1), ("peach", "fruits", 3, AROMA, 2),
    ("apple", "fruits", 1, SWEET, 1), ("plum", "fruits", 4, RICH, 2),
    ("coffee", "specials", 3, RICH, 2), ("cocoa", "specials", 2, RICH, 1),
    ("honey", "specials", 2, SWEET, 1), ("tea", "specials", 1, AROMA, 1),
    ("saffron", "specials", 3, RICH, 2), ("caramel", "specials", 3, SWEET, 2),
    ("ginger", "specials", 1, RICH, 1), ("gold leaf", "additives", 2, RICH, 2),
    ("sugar", "additives", 1, SWEET, 1), ("cream", "additives", 2, SWEET, 1),
    ("soda", "additives", 1, AROMA, 1), ("salt", "additives", 1, RICH, 1),
    ("smoke", "additives", 3, AROMA, 2), ("oak", "additives", 2, AROMA, 1)]
# name, goal, parameter, flavor goal, threshold, sales
TRENDS = [
    ("Rich 5", "strong_set", RICH, None, 5, 4), ("Sweet 5", "strong_set", SWEET, None, 5, 4),
    ("Aroma 5", "strong_set", AROMA, None, 5, 4), ("Rich 7", "strong_set", RICH, None, 7, 6),
    ("Sweet 7", "strong_set", SWEET, None, 7, 6), ("Aroma 7", "strong_set", AROMA, None, 7, 6),
    ("Herbalist", "flavor_mix", None, "plants", 3, 3),
    ("Orchard", "flavor_mix", None, "fruits", 3, 3),
    ("Exotic", "flavor_mix", None, "specials", 3, 3),
    ("Chemist", "flavor_mix", None, "additives", 3, 3),
    ("Distributor", "shipments", None, None, 3, 3), ("Exporter", "shipments", None, None, 4, 5),
    ("Reliable", "orders_met", None, None, 2, 3), ("Trusted", "orders_met", None, None, 3, 5),
    ("Balanced", "exact_sets", None, None, 1, 3), ("Master", "exact_sets", None, None, 2, 5)]
# parameter, threshold, sales
ORDERS = [(RICH, 2, 2), (RICH, 3, 3), (RICH, 4, 5), (RICH, 5, 6), (RICH, 6, 8), (RICH, 7, 10),
          (SWEET, 2, 2), (SWEET, 3, 3), (SWEET, 4, 5), (SWEET, 5, 6), (SWEET, 6, 8),
          (AROMA, 2, 2), (AROMA, 3, 3), (AROMA, 4, 5), (AROMA, 5, 6), (AROMA, 6, 8)]
AWARD_SALES = 9
ACHIEVEMENT_TOKENS = 20
COLUMNS = 5
ROWS = 3
SHIPMENTS_PER_TURN = 2
FAILED_ORDER_SALES = 1
SALES_PER_TOKEN = 3


def make_cards():
    bases = [Card("base", n, maximum=m, parameter=k, strength=s)
             for n, m, k, s, copies in BASES for _ in range(copies)]
    flavors = [Card("flavor", n, flavor_type=t, cost=c, parameter=k, strength=s)
               for n, t, c, k, s in FLAVORS]
    trends = [Card("trend", n, goal=g, parameter=k, flavor_goal=fg, threshold=th, sales=sa)
              for n, g, k, fg, th, sa in TRENDS]
    orders = [Card("order", f"{th} or more {k}", parameter=k, threshold=th, sales=sa)
              for k, th, sa in ORDERS]
    return bases, flavors, trends, orders


class LiqueurSet:
    __slots__ = ("base", "order", "flavors", "cost", "order_met")

    def __init__(self, base, order):
        self.base, self.order, self.flavors, self.cost, self.order_met = base, order, [], 0, False

    def total(self, parameter):
        t = self.base.strength if self.base.parameter == parameter else 0
        for f in self.flavors:
            if f.parameter == parameter:
                t += f.strength
        return t

    def exact(self):
        return self.cost == self.base.maximum


class Player:
    __slots__ = ("seat", "tokens", "sets", "loose", "trends", "shipped", "shipped_sales")

    def __init__(self, seat):
        self.seat, self.tokens, self.shipped_sales = seat, 0, 0
        self.sets, self.loose, self.trends, self.shipped = [], [], [], []


def must_add(p):
    """Rule 5: an empty Base card that some loose Flavor card fits."""
    for s in p.sets:
        if not s.flavors:
            room = s.base.maximum - s.cost
            for f in p.loose:
                if f.cost <= room:
                    return True
    return False


def trend_met(p, t):
    if t.goal == "strong_set":
        return any(s.total(t.parameter) >= t.threshold for s in p.shipped)
    if t.goal == "flavor_mix":
        return sum(1 for s in p.shipped for f in s.flavors
                   if f.flavor_type == t.flavor_goal) >= t.threshold
    if t.goal == "shipments":
        return len(p.shipped) >= t.threshold
    if t.goal == "orders_met":
        return sum(1 for s in p.shipped if s.order_met) >= t.threshold
    return sum(1 for s in p.shipped if s.exact()) >= t.threshold  # exact_sets


class Game:
    def __init__(self, seed, players=3):
        self.rng = rng = random.Random(seed)
        self.decisions = 0
        self.players = [Player(i) for i in range(players)]
        self.start = rng.randrange(players)
        bases, flavors, trends, orders = make_cards()
        self.market_deck = bases + flavors
        rng.shuffle(self.market_deck)
        # columns[c] lists the column's cards from the bottom row (index 0) up to row 1
        self.columns = [[] for _ in range(COLUMNS)]
        for _ in range(ROWS):
            for col in self.columns:
                col.append(self.market_deck.pop())
        self.order_deck = orders
        rng.shuffle(self.order_deck)
        self.order_face_up = self.order_deck.pop()
        rng.shuffle(trends)
        trend_row = [trends.pop() for _ in range(players)]
        self.market_deck.extend(trends)
        rng.shuffle(self.market_deck)
        self.token_area = ACHIEVEMENT_TOKENS
        for p in self.players:
            self.token_area -= 1
            p.tokens += 1
        self.just_taken = None
        # Trend draft: counterclockwise from the player right of the start player
        for k in range(players):
            p = self.players[(self.start - 1 - k) % players]
            p.trends.append(trend_row.pop(self.choose(len(trend_row))))

    def choose(self, n):
        """One decision among n legal options: the index of the option picked."""
        self.decisions += 1
        return self.rng.randrange(n)

    def play(self):
        n = len(self.players)
        turn = self.start
        while True:
            p = self.players[turn]
            self.market_phase(p)
            self.blending_phase(p)
            self.shipping_phase(p)
            if not any(self.columns):
                break
            turn = (turn + 1) % n
        return self.decisions, self.score()

    def market_phase(self, p):
        options = [(c, 0) for c, col in enumerate(self.columns) if col]
        if p.tokens >= 1:
            options += [(c, i) for c, col in enumerate(self.columns) for i in range(1, len(col))]
        c, i = options[self.choose(len(options))]
        if i > 0:
            p.tokens -= 1
            self.token_area += 1
        col = self.columns[c]
        card = col.pop(i)  # the cards above slide down one row
        if self.market_deck:
            col.append(self.market_deck.pop())  # refill the topmost row
        self.just_taken = card
        if card.kind == "base":
            p.sets.append(LiqueurSet(card, self.order_face_up))
            self.order_face_up = self.order_deck.pop() if self.order_deck else None
        elif card.kind == "flavor":
            p.loose.append(card)
        else:
            p.trends.append(card)

    def blending_phase(self, p):
        just = self.just_taken
        while True:
            must = must_add(p)
            adds = []
            for f in p.loose:
                for s in p.sets:
                    if s.cost + f.cost > s.base.maximum:
                        continue
                    if (not s.flavors) if must else (f is just or s.base is just):
                        adds.append((f, s))
            if not adds:
                return
            k = self.choose(len(adds) if must else len(adds) + 1)
            if k == len(adds):  # done: keep the other Flavor cards alone
                return
            f, s = adds[k]
            p.loose.remove(f)
            s.flavors.append(f)
            s.cost += f.cost

    def shipping_phase(self, p):
        shipped = 0
        while shipped < SHIPMENTS_PER_TURN:
            ready = [s for s in p.sets if s.flavors]
            if not ready:
                return
            k = self.choose(len(ready) + 1)
            if k == len(ready):  # done: ship nothing more this turn
                return
            self.ship(p, ready[k])
            shipped += 1

    def ship(self, p, s):
        s.order_met = s.order is not None and s.total(s.order.parameter) >= s.order.threshold
        p.sets.remove(s)
        p.shipped.append(s)
        p.shipped_sales += s.order.sales if s.order_met else FAILED_ORDER_SALES
        if s.exact() and self.token_area > 0:
            self.token_area -= 1
            p.tokens += 1

    def score(self):
        totals = [p.shipped_sales + sum(t.sales for t in p.trends if trend_met(p, t))
                  + p.tokens * SALES_PER_TOKEN for p in self.players]
        for k in PARAMETERS:
            best = [(max(s.total(k) for s in p.shipped), p.seat)
                    for p in self.players if p.shipped]
            best = sorted((b for b in best if b[0] > 0), reverse=True)
            if best and (len(best) == 1 or best[0][0] > best[1][0]):  # a tie: no one gets it
                totals[best[0][1]] += AWARD_SALES
        return totals

    def winners(self, totals):
        keys = [(totals[p.seat], p.tokens) for p in self.players]
        top = max(keys)
        return [i for i, key in enumerate(keys) if key == top]


def play_game(seed: int, players: int = 3) -> tuple[int, list[int]]:
    """Play one random game; return (number of decisions, final scores by seat)."""
    return Game(seed, players).play()


def main(argv):
    games = int(argv[1]) if len(argv) > 1 else 2000
    players = 3
    decisions = 0
    score_sum = [0] * players
    wins = [0] * players
    shared = 0
    start = time.perf_counter()
    for seed in range(games):
        g = Game(seed, players)
        d, totals = g.play()
        decisions += d
        for i, v in enumerate(totals):
            score_sum[i] += v
        w = g.winners(totals)
        shared += len(w) > 1
        for i in w:
            wins[i] += 1
    elapsed = time.perf_counter() - start
    print(f"{games} games in {elapsed:.2f} s: {games / elapsed:.1f} games/s, "
          f"{decisions / elapsed:.0f} decisions/s")
    print(f"mean decisions per game: {decisions / games:.2f}")
    print("mean score per seat:", {i + 1: round(s / games, 3) for i, s in enumerate(score_sum)})
    print("wins per seat:", {i + 1: w for i, w in enumerate(wins)}, f"shared victories: {shared}")


if __name__ == "__main__":
    main(sys.argv)
