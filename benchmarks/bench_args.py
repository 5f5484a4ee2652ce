"""Argument types shared by the benchmark scripts: a bad value is refused by argparse with a
one-line error (the script's usage and what is wrong), never a traceback."""
from __future__ import annotations

import argparse


def _number(kind, text: str, least, words: str):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} is not {words}")
    return value


def positive_int(text: str) -> int:
    return _number(int, text, 1, "a count of at least 1")


def count(text: str) -> int:
    return _number(int, text, 0, "a count of at least 0")


def duration(text: str) -> float:
    return _number(float, text, 0.0, "a number of seconds of at least 0")


def loadable_ruleset(ref: str) -> str:
    """A ruleset that loads (a bundled name or a path), refused with its diagnostic else."""
    from rulebook import api
    from rulebook.validator.diagnostics import DiagnosticError

    try:
        api.load(ref)
    except DiagnosticError as e:
        raise argparse.ArgumentTypeError(e.diagnostics[0].message) from None
    return ref


def players_for(parser: argparse.ArgumentParser, ref: str, players: int) -> None:
    """Refuse (with the parser's error) a player count that the ruleset does not allow."""
    from rulebook import api

    rules = api.load(ref)
    if not rules.min_players <= players <= rules.max_players:
        span = rules.min_players if rules.min_players == rules.max_players \
            else f"{rules.min_players} to {rules.max_players}"
        parser.error(f"{ref} is for {span} players, not {players}: give --players")
