"""Confidence intervals and tests for balance reports (95% unless told otherwise).

Win rates use the Wilson score interval (good coverage even near 0 and 1, for few games);
differences of win rates Newcombe's hybrid score interval built from two Wilson intervals;
means and differences of means Student's and Welch's t intervals; seat balance Pearson's
chi-square test of equal wins. The distributions come from scipy.special (scipy.stats takes
seconds to import)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import fmean, variance

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def t_quantile(p: float, dof: float) -> float:
    """Student's t distribution's p-quantile."""
    from scipy.special import stdtrit

    return float(stdtrit(dof, p))


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """Wilson's score interval of a proportion; (nan) when there were no trials."""
    if trials <= 0:
        return Interval(math.nan, math.nan, math.nan)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # In exact arithmetic the interval holds p, and reaches 0 (or 1) when k is 0 (or n).
    low = 0.0 if successes == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes == trials else max(p, min(1.0, centre + half))
    return Interval(p, low, high)


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> Interval:
    """The exact (conservative) interval of a proportion, from the beta distribution."""
    from scipy.special import betaincinv  # the beta distribution's quantiles

    if trials <= 0:
        return Interval(math.nan, math.nan, math.nan)
    a = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(betaincinv(successes, trials - successes + 1, a))
    high = 1.0 if successes == trials else float(betaincinv(successes + 1, trials - successes,
                                                            1 - a))
    return Interval(successes / trials, low, high)


def difference_of_rates(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Interval:
    """Newcombe's hybrid score interval of p2 - p1 (method 10 of Newcombe, 1998)."""
    if n1 <= 0 or n2 <= 0:
        return Interval(math.nan, math.nan, math.nan)
    a, b = wilson(k1, n1, z), wilson(k2, n2, z)
    p1, p2 = a.estimate, b.estimate
    d = p2 - p1
    low = d - math.sqrt((p2 - b.low) ** 2 + (a.high - p1) ** 2)
    high = d + math.sqrt((b.high - p2) ** 2 + (p1 - a.low) ** 2)
    return Interval(d, low, high)


def mean_interval(values: list[float], confidence: float = 0.95) -> Interval:
    """Student's t interval of a mean (a point when there is one value or no spread)."""
    if not values:
        return Interval(math.nan, math.nan, math.nan)
    m = fmean(values)
    if len(values) < 2:
        return Interval(m, m, m)
    se = math.sqrt(variance(values) / len(values))
    half = t_quantile((1 + confidence) / 2, len(values) - 1) * se
    return Interval(m, m - half, m + half)


def difference_of_means(a: list[float], b: list[float], confidence: float = 0.95) -> Interval:
    """Welch's t interval of mean(b) - mean(a)."""
    if not a or not b:
        return Interval(math.nan, math.nan, math.nan)
    d = fmean(b) - fmean(a)
    va = variance(a) / len(a) if len(a) > 1 else 0.0
    vb = variance(b) / len(b) if len(b) > 1 else 0.0
    se = math.sqrt(va + vb)
    if se == 0:
        return Interval(d, d, d)
    dof = (va + vb) ** 2 / ((va * va / (len(a) - 1) if len(a) > 1 else 0)
                            + (vb * vb / (len(b) - 1) if len(b) > 1 else 0))
    half = t_quantile((1 + confidence) / 2, dof) * se
    return Interval(d, d - half, d + half)


@dataclass(frozen=True)
class BalanceTest:
    """Pearson's chi-square test that every seat wins equally often."""
    statistic: float
    dof: int
    p_value: float

    def balanced(self, alpha: float = 0.05) -> bool:
        """True when equal chances cannot be rejected at level alpha."""
        return not self.p_value < alpha

    def as_dict(self) -> dict:
        return {"test": "chi-square, equal wins per seat", "statistic": self.statistic,
                "dof": self.dof, "p_value": self.p_value}


def seat_balance(wins: list[int]) -> BalanceTest | None:
    """The test over the seats' win counts; None with fewer than two seats or no wins."""
    from scipy.special import chdtrc  # the chi-square distribution's survival function

    if len(wins) < 2 or sum(wins) == 0:
        return None
    expected = sum(wins) / len(wins)
    statistic = sum((w - expected) ** 2 for w in wins) / expected
    return BalanceTest(statistic, len(wins) - 1, float(chdtrc(len(wins) - 1, statistic)))


def quantiles(values: list[float]) -> dict:
    """min, quartiles, max (the inclusive method: what a box plot draws)."""
    from statistics import quantiles as q

    if not values:
        return {}
    if len(values) == 1:
        v = values[0]
        return {"min": v, "q1": v, "median": v, "q3": v, "max": v}
    q1, med, q3 = q(values, n=4, method="inclusive")
    return {"min": min(values), "q1": q1, "median": med, "q3": q3, "max": max(values)}
