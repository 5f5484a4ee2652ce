"""How long `rulebook check` takes on the shipped rulesets: cold and warm, in-process and as a process.

Run:  python benchmarks/bench_check.py [--repeat N]
Prints figures only; it asserts nothing (the goal, checking every shipped ruleset well under a
second, is read off the output).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_args import positive_int

ROOT = Path(__file__).resolve().parents[1]
RULESETS = ROOT / "rulesets"

# Runs in a fresh interpreter: imports and the first check, timed separately.
COLD_PROBE = """
import time
t0 = time.perf_counter()
from click.testing import CliRunner
from rulebook.cli import main
t1 = time.perf_counter()
result = CliRunner().invoke(main, ["check", {target!r}])
t2 = time.perf_counter()
result = CliRunner().invoke(main, ["check", {target!r}])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, result.exit_code)
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def spread(samples: list[float]) -> str:
    return f"min {ms(min(samples))}  median {ms(statistics.median(samples))}  max {ms(max(samples))}"


def run_process(args: list[str], env: dict | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})})
    return time.perf_counter() - start, proc.returncode


def bench_subprocess(repeat: int) -> None:
    print("== as a subprocess (interpreter start-up included)")
    check = [sys.executable, "-m", "rulebook", "check", str(RULESETS)]
    for label, args, env in [
        ("rulebook --help", [sys.executable, "-m", "rulebook", "--help"], None),
        ("check rulesets/, no disk cache", check, {"RULEBOOK_NO_CACHE": "1"}),
        ("check rulesets/, disk cache", check, None),
    ]:
        runs = [run_process(args, env) for _ in range(repeat)]
        codes = sorted({code for _, code in runs})
        print(f"  {label:<28} {spread([t for t, _ in runs])}   exit {codes}")


def bench_cold_in_process(repeat: int) -> None:
    print("== in a fresh process, timed inside it")
    samples = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", COLD_PROBE.format(target=str(RULESETS))],
                              capture_output=True, text=True, cwd=ROOT)
        fields = proc.stdout.split()
        if proc.returncode != 0 or len(fields) != 4:
            print("  probe failed:", (proc.stderr or proc.stdout).strip().splitlines()[-1:])
            return
        samples.append([float(x) for x in fields[:3]])
    for i, label in enumerate(["import rulebook.cli", "first check (cold)", "second check (warm)"]):
        print(f"  {label:<28} {spread([s[i] for s in samples])}")


def bench_warm_in_process(repeat: int) -> None:
    from click.testing import CliRunner

    from rulebook.cli import main

    runner = CliRunner()
    runner.invoke(main, ["check", str(RULESETS)])  # warm-up: imports, grammar, schema validator
    print("== in this process, after a warm-up (same files: caches may answer)")
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = runner.invoke(main, ["check", str(RULESETS)])
        samples.append(time.perf_counter() - start)
    print(f"  {'check rulesets/':<28} {spread(samples)}   exit {result.exit_code}")
    fresh = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):  # new paths each time: nothing parsed or validated is reused
            copy = Path(tmp) / f"copy{i}"
            shutil.copytree(RULESETS, copy)
            start = time.perf_counter()
            result = runner.invoke(main, ["check", str(copy)])
            fresh.append(time.perf_counter() - start)
    print(f"  {'check of a fresh copy':<28} {spread(fresh)}   exit {result.exit_code}")
    print("  per file (same files):")
    for path in sorted(RULESETS.rglob("*.rules")):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            result = runner.invoke(main, ["check", str(path)])
            times.append(time.perf_counter() - start)
        size = path.stat().st_size
        rel = path.relative_to(ROOT)
        print(f"    {str(rel):<52} {size / 1024:6.1f} KB  median {ms(statistics.median(times))}"
              f"  exit {result.exit_code}")


# In a fresh process: Lark alone (its analysed grammar cached, as `check` has it) parsing every
# file to its own parse tree (Lark's usual output, positions propagated), then a cold `check` of
# the same files (no tree cached), both in CPU seconds.
LARK_PROBE = """
import time
from pathlib import Path
t0 = time.process_time()
from rulebook.grammar.parser import parse_tree
for f in sorted(Path({target!r}).rglob("*.rules")):
    try:
        parse_tree(f.read_text(encoding="utf-8"), "start")
    except Exception:
        pass
t1 = time.process_time()
print(t1 - t0)
"""
CHECK_PROBE = """
import time
t0 = time.process_time()
from click.testing import CliRunner
from rulebook.cli import main
result = CliRunner().invoke(main, ["check", {target!r}])
print(time.process_time() - t0, result.exit_code)
"""


def bench_against_lark(repeat: int) -> None:
    print("== cold check against Lark alone (fresh processes, CPU time, imports included)")
    lark, cold, warm = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "XDG_CACHE_HOME": cache}
            run = lambda code: subprocess.run(  # noqa: E731
                [sys.executable, "-c", code.format(target=str(RULESETS))], capture_output=True,
                text=True, cwd=ROOT, env=env).stdout.split()
            run(LARK_PROBE)  # analyses the grammar once and caches it, as an install would
            lark.append(float(run(LARK_PROBE)[0]))
            cold.append(float(run(CHECK_PROBE)[0]))  # no file's tree cached yet
            warm.append(float(run(CHECK_PROBE)[0]))  # every file unchanged since
    print(f"  {'Lark parsing every file':<28} {spread(lark)}")
    print(f"  {'check, cold':<28} {spread(cold)}   ratio to Lark "
          f"{statistics.median(cold) / statistics.median(lark):.2f}x")
    print(f"  {'check, warm (unchanged)':<28} {spread(warm)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=positive_int, default=5, help="runs per measurement")
    args = parser.parse_args()
    files = sorted(RULESETS.rglob("*.rules"))
    total = sum(f.stat().st_size for f in files)
    print(f"{len(files)} rules files under rulesets/, {total / 1024:.1f} KB; "
          f"{args.repeat} runs per figure")
    bench_against_lark(args.repeat)
    bench_subprocess(args.repeat)
    bench_cold_in_process(args.repeat)
    bench_warm_in_process(args.repeat)


if __name__ == "__main__":
    main()
