"""`rulebook check` remembers what it found in unchanged files (validator/check_cache.py), and
forgets it when the file, a file its check read, the files beside them or rulebook change."""
import os

import pytest

from rulebook.validator import check_cache
from rulebook.validator.check import check_path

GAME = 'game "Warned" {\n    players 2\n}\nglobal n: int = 0\nplay {\n    increase n by 1\n}\n'
VARIANT = 'variant "More" extends "game.rules" {\n}\nglobal m: int = 0 shown\n'


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEBOOK_NO_CACHE", raising=False)
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "game.rules").write_text(GAME)
    (rules / "more.rules").write_text(VARIANT)
    return rules


def codes(result):
    return sorted((d.code, d.line) for d in result.diagnostics)


def write(path, text):
    """Write, and move the modification time on: the in-process parse cache compares times."""
    path.write_text(text)
    stamp = os.stat(path).st_mtime_ns + 10_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_a_second_check_gives_the_same_findings_from_the_cache(folder):
    first = check_path(folder / "game.rules")
    assert codes(first) == [("W0201", 4)]
    known = check_cache.lookup(str(folder / "game.rules"))
    assert known is not None
    diagnostics, sources = known
    assert diagnostics == first.diagnostics
    assert sources == {str(folder / "game.rules"): GAME}  # for quoting the warned lines
    again = check_path(folder / "game.rules")
    assert again.diagnostics == first.diagnostics and again.sources == first.sources


def test_a_changed_file_is_checked_again(folder):
    check_path(folder / "game.rules")
    write(folder / "game.rules", GAME.replace("global n: int = 0\n", "global n: int = 0 shown\n"))
    assert check_cache.lookup(str(folder / "game.rules")) is None
    assert codes(check_path(folder / "game.rules")) == []


def test_a_variant_is_checked_again_when_the_game_it_extends_changes(folder):
    check_path(folder / "more.rules")
    assert check_cache.lookup(str(folder / "more.rules")) is not None
    write(folder / "game.rules", GAME.replace("increase n by 1", "increase nowhere by 1"))
    assert check_cache.lookup(str(folder / "more.rules")) is None
    assert "E0201" in {d.code for d in check_path(folder / "more.rules").diagnostics}


def test_a_new_rules_file_beside_a_dependency_is_a_change(folder):
    check_path(folder / "more.rules")
    (folder / "other.rules").write_text('variant "Other" extends "game.rules" {\n}\n')
    assert check_cache.lookup(str(folder / "more.rules")) is None


def test_findings_with_an_error_are_not_remembered(folder):
    write(folder / "game.rules", GAME.replace("increase n by 1", "increase nowhere by 1"))
    assert check_path(folder / "game.rules").diagnostics
    assert check_cache.lookup(str(folder / "game.rules")) is None


def test_nothing_is_remembered_when_the_cache_is_off(folder, monkeypatch):
    monkeypatch.setenv("RULEBOOK_NO_CACHE", "1")
    check_path(folder / "game.rules")
    monkeypatch.delenv("RULEBOOK_NO_CACHE")
    assert check_cache.lookup(str(folder / "game.rules")) is None


def test_a_damaged_entry_is_a_miss(folder):
    check_path(folder / "game.rules")
    for entry in (folder.parent / "cache" / "rulebook").glob("*.pickle"):
        entry.write_bytes(b"damaged")
    assert check_cache.lookup(str(folder / "game.rules")) is None
    assert codes(check_path(folder / "game.rules")) == [("W0201", 4)]
