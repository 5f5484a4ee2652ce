"""The benchmark scripts refuse a bad value with argparse's one-line error, never a traceback."""
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script,args,says", [
    ("bench_engine.py", ["--seconds", "-1"], "argument --seconds: -1 is not a number of seconds"),
    ("bench_playout.py", ["--games", "0"], "argument --games: 0 is not a count of at least 1"),
    ("bench_instructions.py", ["--jobs", "x"], "argument --jobs: 'x' is not a number"),
    ("bench_agents.py", ["--ruleset", "nosuch"], "no ruleset named `nosuch`"),
    ("bench_agents.py", ["--ruleset", "examples/tictactoe"],
     "examples/tictactoe is for 2 players, not 3: give --players"),
    ("bench_report.py", ["--players", "9"], "liqueur is for 3 to 5 players, not 9"),
])
def test_a_bad_argument_is_a_one_line_error(script, args, says):
    run = subprocess.run([sys.executable, str(BENCHMARKS / script), *args],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and says in run.stderr
    assert "Traceback" not in run.stderr
