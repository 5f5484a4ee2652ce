"""A small deterministic random generator whose whole state is one integer.

Python's `random` module is not used: its algorithms for shuffling and ranges may change between
versions, and a saved game must replay identically everywhere.
"""
from __future__ import annotations

_MASK = (1 << 64) - 1
_SPAN = 1 << 64


_GOLDEN = 0x9E3779B97F4A7C15
# Every draw among at most _SMALL outcomes keeps a number below _SAFE (its incomplete last span
# is shorter than _SMALL), so most draws need not work out where that span starts.
_SMALL = 1 << 32
_SAFE = _SPAN - _SMALL


class Rng:
    """SplitMix64. ``state`` is a plain int, so it copies and saves as data.

    ``chance`` (None unless set, never copied or saved) takes over every draw: an object whose
    ``outcome(rng, n)`` gives the draw among `n` equally likely outcomes (interpreter/chance.py:
    outcomes recorded, or played from a list, one chance event per draw)."""

    __slots__ = ("state", "chance")

    def __init__(self, seed: int = 0):
        self.state = (seed - _GOLDEN) & _MASK
        self.state = self.next64()  # the seed, mixed
        self.chance = None

    def next64(self) -> int:
        """The next 64 bits: a draw among all of them (rejection never happens there)."""
        return self.draw(_SPAN)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("empty range")
        if self.chance is not None:
            return self.chance.outcome(self, n)
        return self.draw(n)

    def draw(self, n: int) -> int:
        """The generator's own uniform draw in [0, n): the next 64 bits, drawn again while they
        fall in the incomplete last span of `n` (the mixer is written here alone: every draw
        runs it, and a call less counts)."""
        while True:
            z = self.state = (self.state + _GOLDEN) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            z ^= z >> 31
            if z < _SAFE and n <= _SMALL or z < _SPAN - _SPAN % n:
                return z % n

    def between(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def shuffle(self, items: list) -> None:
        draw = self.below if self.chance is not None else self.draw  # (`below`, with no call)
        for i in range(len(items) - 1, 0, -1):
            j = draw(i + 1)
            items[i], items[j] = items[j], items[i]
