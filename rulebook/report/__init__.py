"""Balance reports: run many games, gather their results, and write what a designer reads.

    from rulebook.report import Setting, simulate, write_report
    results = simulate(Setting("mygame", players=3), games=200, seed=1, jobs=2)
    print(results.completed()[0].winners)
    write_report(results, "mygame-report")      # index.html, figures.json, *.csv

`write_comparison([results_a, results_b, ...], DIR)` writes the differences of runs against the
first with their intervals; `compare(runs)` returns them as data.
Plots need matplotlib and tests scipy: `pip install 'rulebook[report]'`; `cluster=` needs Dask
(`rulebook[dask]`).
"""
from .results import GameResult, Setting, SimulationResults
from .runner import simulate

__all__ = ["GameResult", "Setting", "SimulationResults", "simulate", "write_report",
           "write_comparison", "compare"]


def write_report(results, directory, rules=None):
    """The report of `results` in `directory` (see writer.write_report); the page's path."""
    from .writer import write_report as write

    return write(results, directory, rules)


def write_comparison(runs, directory, rules=None):
    """The comparison of `runs`, the first the baseline (see writer.write_comparison)."""
    from .writer import write_comparison as write

    return write(runs, directory, rules)


def compare(runs) -> dict:
    from .comparison import compare as figures

    return figures(runs)
