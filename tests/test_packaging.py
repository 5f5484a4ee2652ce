"""What an installed wheel holds: every bundled ruleset file (games, variants, scenario tests,
their READMEs and lint settings), where the loader looks for them."""
import fnmatch
import tomllib
from pathlib import Path

from rulebook import loader

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_file_of_the_bundled_rulesets_is_package_data():
    setup = _config()
    assert "rulebook.rulesets" in setup["packages"]
    assert setup["package-dir"]["rulebook.rulesets"] == "rulesets"
    patterns = setup["package-data"]["rulebook.rulesets"]
    files = [p.relative_to(ROOT / "rulesets").as_posix()
             for p in (ROOT / "rulesets").rglob("*") if p.is_file()]
    assert files
    # setuptools' `**/` also matches files at the top of the folder
    missed = [f for f in files if not any(
        fnmatch.fnmatch(f, pat) or fnmatch.fnmatch(f, pat.removeprefix("**/")) for pat in patterns)]
    assert missed == []


def test_the_loader_finds_the_rulesets_a_wheel_puts_inside_the_package(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "rulebook"
    game = package / "rulesets" / "mini" / "mini.rules"
    game.parent.mkdir(parents=True)
    game.write_text((ROOT / "rulesets" / "examples" / "tictactoe.rules").read_text())
    monkeypatch.setattr(loader, "__file__", str(package / "loader.py"))
    monkeypatch.chdir(tmp_path)  # no `rulesets/` here
    assert loader.resolve_ruleset("mini") == game.resolve()
    assert "mini" in loader.bundled_names()
