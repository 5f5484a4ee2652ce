"""A mutation fuzzer over every bundled ruleset, for a fixed budget of mutants: each mutant goes
through the whole pipeline (read, parse, schema, check, format, compile, play, view, save, load) and
may only end in a result or a diagnostic, never a Python exception and never an internal error.

The mutants are drawn from a seeded generator, so a failure names the mutant that reproduces it.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from rulebook.grammar.formatter import format_source
from rulebook.interpreter.agents import RandomAgent, play_out
from rulebook.interpreter.errors import IllegalDecision
from rulebook.interpreter.game import Game
from rulebook.interpreter.rng import Rng
from rulebook.interpreter.state import Limits
from rulebook.interpreter.view import view
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1] / "rulesets"
MUTANTS_PER_FILE = 8
LIMITS = Limits(max_steps=200_000, max_memory=1536 * 2 ** 20)
INTERNAL = ("E0199", "E0999")

TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\w+|[^\s\w]+')
NUMBER = re.compile(r"(?<![\w.#\"])\d+(?![\w\"])")
HOSTILE_NUMBERS = ["0", "1", "-1", "2", "7", "99999", "100001", "9007199254740992",
                   "9007199254740993", "10000000000000000000000"]
HOSTILE_LINES = [
    "repeat 9007199254740992 times { }",
    "while true { }",
    "rounds { }",
    "let zz = [1, 2, 3]\nrepeat 40 times { set zz = zz + zz }",
    'let tt = "ab"\nrepeat 40 times { set tt = "{tt}{tt}" }',
    "let big = 1..99999\nrepeat 1000 times { let found = 0 in big }",
    "stop",
    "pass",
    "end game",
    'log "{players}"',
    "shuffle players",
    "let qq = [[1]]\nadd qq to qq",
]


def _bundled_files() -> list[str]:
    """Every bundled rules file: games, variants and scenario files."""
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.rules"))


def mutate(text: str, rng: Rng) -> str:
    """One to three random edits of the text: of its tokens, lines, numbers and blocks."""
    for _ in range(1 + rng.below(3)):
        kind = rng.below(8)
        lines = text.split("\n")
        if kind == 0:  # delete a token
            spots = list(TOKEN.finditer(text))
            mo = spots[rng.below(len(spots))]
            text = text[:mo.start()] + text[mo.end():]
        elif kind == 1:  # duplicate a line
            i = rng.below(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 2:  # swap two lines
            i, j = rng.below(len(lines)), rng.below(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == 3:  # a hostile number
            spots = list(NUMBER.finditer(text))
            if spots:
                mo = spots[rng.below(len(spots))]
                new = HOSTILE_NUMBERS[rng.below(len(HOSTILE_NUMBERS))]
                text = text[:mo.start()] + new + text[mo.end():]
        elif kind == 4:  # a name where another was
            words = [mo for mo in TOKEN.finditer(text) if mo.group(0)[0].isalpha()]
            a, b = words[rng.below(len(words))], words[rng.below(len(words))]
            text = text[:a.start()] + b.group(0) + text[a.end():]
        elif kind == 5:  # a hostile statement at the start of a block
            opens = [i for i, line in enumerate(lines) if line.rstrip().endswith("{")]
            if opens:
                i = opens[rng.below(len(opens))]
                indent = " " * (len(lines[i]) - len(lines[i].lstrip()) + 4)
                stmt = HOSTILE_LINES[rng.below(len(HOSTILE_LINES))]
                lines.insert(i + 1, "\n".join(indent + s for s in stmt.split("\n")))
                text = "\n".join(lines)
        elif kind == 6:  # cut the file short
            text = text[:rng.below(len(text) + 1)]
        else:  # a token repeated where another was
            spots = list(TOKEN.finditer(text))
            a, b = spots[rng.below(len(spots))], spots[rng.below(len(spots))]
            text = text[:a.start()] + b.group(0) + " " + b.group(0) + text[a.end():]
    return text


def run_pipeline(path: Path, seed: int) -> None:
    """Everything a user can do with a file; only diagnostics may come out."""
    from rulebook.api import _compile_path
    from rulebook.validator.check import check_path

    result = check_path(path)
    assert not any(d.code in INTERNAL for d in result.diagnostics), result.diagnostics
    try:
        format_source(path.read_text(encoding="utf-8"), str(path))
    except DiagnosticError as e:
        assert not any(d.code in INTERNAL for d in e.diagnostics), e.diagnostics
    if result.has_errors or not is_game_or_variant(path):
        return
    try:
        rules = _compile_path(str(path))
        game = Game(rules, None, seed, LIMITS)
        play_out(game, {s.seat: RandomAgent(seed + s.seat) for s in game.state.seats},
                 max_decisions=300)
    except (DiagnosticError, IllegalDecision) as e:
        codes = [d.code for d in getattr(e, "diagnostics", [])]
        assert not any(c in INTERNAL for c in codes), codes
        return
    for seat in [None] + [s.seat for s in game.state.seats]:
        json.dumps(view(game, seat))
    Game.load(json.loads(json.dumps(game.save())), rules, LIMITS)


def is_game_or_variant(path: Path) -> bool:
    from rulebook.loader import _FIRST_WORD

    match = _FIRST_WORD.match(path.read_text(encoding="utf-8"))
    return bool(match) and match.group(1) in ("game", "variant")


@pytest.mark.parametrize("name", _bundled_files())
def test_mutants_of_a_bundled_file_end_in_diagnostics(name, tmp_path):
    """The file is mutated inside a copy of its ruleset's folder, so variants and scenario files
    reach the game they name."""
    source = ROOT / name
    top = ROOT / Path(name).parts[0]
    copy = tmp_path / top.name
    shutil.copytree(top, copy)
    target = copy / Path(*Path(name).parts[1:])
    text = source.read_text(encoding="utf-8")
    rng = Rng(sum(map(ord, name)))
    for index in range(MUTANTS_PER_FILE):
        seed = rng.below(1 << 30)
        target.write_text(mutate(text, Rng(seed)), encoding="utf-8")
        try:
            run_pipeline(target, seed % 1000)
        except AssertionError:
            raise
        except Exception as e:  # noqa: BLE001 - any other exception is the finding
            raise AssertionError(f"mutant {index} of {name} (Rng({seed})) raised "
                                 f"{type(e).__name__}: {e}") from e
