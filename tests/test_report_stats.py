"""Confidence intervals and the seat-balance test, against known distributions: exact coverage
of binomial intervals, and simulated coin-flip games whose true win rates are 1/2 and 3/5."""
from __future__ import annotations

from pathlib import Path

from math import comb

from hypothesis import given
from hypothesis import strategies as st

from rulebook.report import Setting, simulate
from rulebook.report.figures import win_rates
from rulebook.report.stats import (clopper_pearson, difference_of_means, difference_of_rates,
                                   mean_interval, seat_balance, wilson)

DATA = Path(__file__).parent / "data" / "report"


def pmf(k: int, n: int, p: float) -> float:
    """The binomial distribution: k successes in n trials of probability p."""
    return comb(n, k) * p ** k * (1 - p) ** (n - k)


def coverage(interval, n: int, p: float) -> float:
    """The exact probability that the interval of k successes in n covers p."""
    return sum(pmf(k, n, p) for k in range(n + 1) if interval(k, n).covers(p))


def test_wilson_covers_about_95_percent_of_binomial_samples():
    for n in (20, 100, 400):
        for p in (0.5, 0.6, 0.25):
            assert 0.92 <= coverage(wilson, n, p) <= 0.98, (n, p)


def test_clopper_pearson_covers_at_least_95_percent():
    for n in (20, 100):
        for p in (0.5, 0.6, 0.1):
            assert coverage(clopper_pearson, n, p) >= 0.95, (n, p)


def test_newcombe_difference_covers_about_95_percent():
    n1 = n2 = 40
    p1, p2 = 0.5, 0.6
    covered = sum(pmf(a, n1, p1) * pmf(b, n2, p2)
                  for a in range(n1 + 1) for b in range(n2 + 1)
                  if difference_of_rates(a, n1, b, n2).covers(p2 - p1))
    assert 0.93 <= covered <= 0.98


def test_known_values():
    ci = wilson(60, 100)  # a textbook value: 0.6 in 100 trials, Wilson 0.502 to 0.691
    assert round(ci.low, 3) == 0.502 and round(ci.high, 3) == 0.691
    assert mean_interval([1.0, 2.0, 3.0]).covers(2.0)
    assert not difference_of_means([1.0, 1.1, 0.9] * 10, [2.0, 2.1, 1.9] * 10).covers(0.0)
    assert seat_balance([50, 50]).p_value == 1.0
    test = seat_balance([70, 30])  # chi-square 16 with 1 degree of freedom: p = 6.334e-05
    assert test.statistic == 16 and round(test.p_value * 1e5, 2) == 6.33


@given(st.integers(0, 500), st.integers(1, 500))
def test_intervals_hold_the_estimate_inside_0_and_1(k, n):
    k = min(k, n)
    for ci in (wilson(k, n), clopper_pearson(k, n)):
        assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0


@given(st.integers(0, 60), st.integers(1, 60), st.integers(0, 60), st.integers(1, 60))
def test_difference_interval_holds_its_estimate(a, n1, b, n2):
    ci = difference_of_rates(min(a, n1), n1, min(b, n2), n2)
    assert -1.0 <= ci.low <= ci.estimate <= ci.high <= 1.0


def _rates(rules: str, games: int = 400):
    results = simulate(Setting(str(DATA / rules)), games, seed=11)
    assert not results.errors()
    return win_rates(results)


def test_a_fair_coin_flip_is_found_balanced():
    figures = _rates("coin.rules")
    for row in figures["rows"]:
        assert row["low"] <= 0.5 <= row["high"]
    assert figures["balance"]["balanced_at_5_percent"]


def test_a_60_40_coin_is_found_unbalanced():
    figures = _rates("loaded.rules")
    seat1, seat2 = figures["rows"]
    assert seat1["low"] <= 0.6 <= seat1["high"] and not seat1["low"] <= 0.5 <= seat1["high"]
    assert seat2["low"] <= 0.4 <= seat2["high"]
    assert not figures["balance"]["balanced_at_5_percent"]
    assert figures["balance"]["p_value"] < 0.01
