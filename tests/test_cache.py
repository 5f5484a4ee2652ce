"""The per-user cache of parsed and schema-checked files (grammar/cache.py)."""
from pathlib import Path

from ast_helpers import without_spans
from rulebook.grammar import cache
from rulebook.grammar.parser import parse_text

from rulebook.loader import _parse_with_disk_cache

TEXT = 'game "Cached" {\n    players 2\n}\nglobal n: int = 1\n'


def _strip(program):
    return without_spans(program.model_dump(mode="json"))


def test_a_cached_tree_equals_a_fresh_parse_and_keeps_its_spans(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = _parse_with_disk_cache(TEXT, "a.rules")
    entries = list((tmp_path / "rulebook").glob("*.pickle"))
    assert len(entries) == 1
    again = _parse_with_disk_cache(TEXT, "a.rules")
    assert again is not first  # it came from the disk
    assert again.model_dump(mode="json") == parse_text(TEXT, "a.rules").model_dump(mode="json")
    assert again.declarations[0].span.line == 4


def test_other_text_or_file_name_is_another_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _parse_with_disk_cache(TEXT, "a.rules")
    _parse_with_disk_cache(TEXT, "b.rules")
    _parse_with_disk_cache(TEXT + "global m: int\n", "a.rules")
    assert len(list((tmp_path / "rulebook").glob("*.pickle"))) == 3


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _parse_with_disk_cache(TEXT, "a.rules")
    (entry,) = (tmp_path / "rulebook").glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    program = _parse_with_disk_cache(TEXT, "a.rules")
    assert _strip(program) == _strip(parse_text(TEXT, "a.rules"))


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("RULEBOOK_NO_CACHE", "1")
    _parse_with_disk_cache(TEXT, "a.rules")
    assert cache.cache_dir() is None
    assert not Path(tmp_path / "rulebook").exists()
