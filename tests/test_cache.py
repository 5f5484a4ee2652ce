"""The per-user cache of parsed and schema-checked files (grammar/cache.py)."""
import pickle
from pathlib import Path

from ast_helpers import without_spans
from rulebook.grammar import cache
from rulebook.grammar.parser import parse_text

from rulebook import loader
from rulebook.loader import _parse_with_disk_cache

TEXT = 'game "Cached" {\n    players 2\n}\nglobal n: int = 1\n'


def _strip(program):
    return without_spans(program.model_dump(mode="json"))


def test_a_cached_tree_equals_a_fresh_parse_and_keeps_its_spans(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _parse_with_disk_cache(TEXT, "a.rules")
    _parse_with_disk_cache(TEXT, "a.rules")  # parsed a second time: now the tree is kept
    entries = list((tmp_path / "rulebook").glob("*.pickle"))
    assert len(entries) == 1

    def no_parsing(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr(loader, "parse_text", no_parsing)
    again = _parse_with_disk_cache(TEXT, "a.rules")  # from the disk
    assert again.model_dump(mode="json") == parse_text(TEXT, "a.rules").model_dump(mode="json")
    assert again.declarations[0].span.line == 4


def test_a_tree_is_kept_from_the_second_parse_of_its_text_on(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    parses = []
    monkeypatch.setattr(loader, "parse_text", lambda *a: parses.append(a) or parse_text(*a))
    for _ in range(4):
        _parse_with_disk_cache(TEXT, "a.rules")
    assert len(parses) == 2
    edited = TEXT + "global m: int = 2\n"  # a file being edited: each version parsed once
    _parse_with_disk_cache(edited, "a.rules")
    (entry,) = [e for e in (tmp_path / "rulebook").glob("*.pickle")
                if pickle.loads(e.read_bytes()) == loader._PARSED_ONCE]
    assert entry.stat().st_size < 100


def test_other_text_or_file_name_is_another_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _parse_with_disk_cache(TEXT, "a.rules")
    _parse_with_disk_cache(TEXT, "b.rules")
    _parse_with_disk_cache(TEXT + "global m: int\n", "a.rules")
    assert len(list((tmp_path / "rulebook").glob("*.pickle"))) == 3


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _parse_with_disk_cache(TEXT, "a.rules")
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


def test_small_values_are_one_file_that_entries_link_to(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for key in ("a", "b", "c"):
        cache.store(key, "parsed once")
    cache.store("d", {"big": "x" * 500})
    folder = tmp_path / "rulebook"
    inodes = {key: (folder / f"{key}.pickle").stat().st_ino for key in "abcd"}
    assert inodes["a"] == inodes["b"] == inodes["c"] != inodes["d"]
    assert [cache.load(key) for key in "abc"] == ["parsed once"] * 3
    cache.store("b", {"big": "y" * 500})  # an entry replaced: the others keep their value
    cache.store("c", "parsed once")  # stored again over itself
    assert (cache.load("a"), cache.load("b"), cache.load("c")) == (
        "parsed once", {"big": "y" * 500}, "parsed once")
    assert not list(folder.glob("*.tmp"))
