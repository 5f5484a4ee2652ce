"""The guide's examples parse, and its scenario passes against the example game."""
import re
import shutil
from pathlib import Path

from rulebook.grammar.parser import parse_text
from rulebook.scenarios import run_file

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"
BLOCKS = re.findall(r"```rules\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_every_rules_block_of_the_guide_parses():
    assert len(BLOCKS) >= 2
    for block in BLOCKS:
        parse_text(block, "docs/guide.md")


def test_the_guides_scenario_passes(tmp_path):
    shutil.copy(ROOT / "rulesets" / "examples" / "tictactoe.rules", tmp_path / "tictactoe.rules")
    (scenario,) = [b for b in BLOCKS if b.startswith("scenario")]
    (tmp_path / "guide_test.rules").write_text(scenario, encoding="utf-8")
    outcome = run_file(str(tmp_path / "guide_test.rules"))
    results, problems = outcome.results, outcome.diagnostics
    assert not problems
    assert [(r.name, r.passed) for r in results] == [("a column of three wins", True)], \
        [d.message for r in results for d in r.failures]
