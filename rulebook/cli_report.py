"""`simulate --report/--cluster` and `rulebook compare`: balance reports and scale-out.

The plain `simulate` stays in cli_game.py; it hands over to `run_for_report` when a report or a
cluster is asked for."""
from __future__ import annotations

import sys

import click

REPORT_OPTION = click.option(
    "--report", "report_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
    help="Write a balance report into DIR: index.html (plots and tables), figures.json, CSV "
         "files. Needs `pip install 'rulebook[report]'`.")
CLUSTER_OPTION = click.option(
    "--cluster", default=None, metavar="local|tcp://HOST:PORT",
    help="Run on Dask: `local` starts a local cluster of --jobs workers; an address uses a "
         "running scheduler. Same results as --jobs 1. Needs `pip install 'rulebook[dask]'`.")
QUIET_OPTION = click.option("--quiet", "-q", is_flag=True,
                            help="No progress bar (none is shown when stderr is not a terminal).")


def _fail(diagnostics, sources=None):
    from .cli_game import _fail as fail

    fail(diagnostics, sources)


def need_report_libraries() -> None:
    """matplotlib and scipy are the `report` extra: say so in one line, not a traceback."""
    from .validator.diagnostics import Diagnostic

    try:
        import matplotlib  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as e:
        _fail([Diagnostic("E0341", f"a report needs {e.name}, which is not installed",
                          hint="pip install 'rulebook[report]'")])


def run_for_report(setting, rules, games: int, seed: int, jobs: int, cluster: str | None,
                   limits, report_dir: str | None, quiet: bool):
    """Run the games (here, in processes or on a cluster) and write the report if asked; the
    records and seconds `simulate` prints from, and the report's figures (or None)."""
    from .report.progress import progress_bar
    from .report.runner import simulate
    from .validator.diagnostics import DiagnosticError

    try:
        if report_dir is not None:
            from .report.writer import make_folder

            need_report_libraries()
            make_folder(report_dir)  # before the games: a folder that cannot be made fails now
        with progress_bar(games, "games", quiet) as advance:
            results = simulate(setting, games, seed, jobs, cluster, limits, advance)
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)
    figures = None
    if report_dir is not None:
        figures = _write_report(results, rules, report_dir)
    return results, figures


def _write_report(results, rules, report_dir: str) -> dict:
    import json

    from .report.writer import write_report
    from .validator.diagnostics import DiagnosticError

    try:
        page = write_report(results, report_dir, rules)
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)
    click.echo(f"report: {page}", err=True)
    return json.loads((page.parent / "figures.json").read_text(encoding="utf-8"))


def parse_run(spec: str, players, agent: str, invariants: str):
    """A run of `compare`: RULESET[+VARIANT...][@AGENTS], AGENTS being a kind for every seat
    (`@first`) or SEAT=KIND pairs (`@1=first,3=first`)."""
    from .interpreter.agents import AGENT_KINDS
    from .report.results import Setting

    text, _, agents = spec.partition("@")
    ruleset, *variants = text.split("+")
    kinds = [k for k in AGENT_KINDS if k != "human"]
    every, seats = agent, []
    for part in filter(None, agents.split(",")):
        seat, eq, kind = part.rpartition("=")
        if kind not in kinds or (eq and not (seat.isdigit() and len(seat) <= 4)):
            raise click.BadParameter(
                f"{spec[:60]!r}: write RULESET[+VARIANT...][@KIND or @SEAT=KIND,...] with KIND "
                f"one of {', '.join(kinds)}, e.g. mygame@1=first", param_hint="RUN")
        if eq:
            seats.append((int(seat), kind))
        else:
            every = kind
    if not ruleset:
        raise click.BadParameter(f"{spec[:60]!r} names no ruleset", param_hint="RUN")
    if seats:  # seats not named play as the run's agent (random unless `@KIND` said otherwise)
        seats = sorted(dict(seats).items())
    return Setting(ruleset, tuple(variants), players, every, tuple(seats), invariants)


@click.command()
@click.argument("runs", nargs=-1, required=True, metavar="RUN RUN...")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=200, show_default=True,
              help="Games per run.")
@click.option("--players", type=click.IntRange(1, 100), default=None,
              help="Number of players in every run (default: each game's minimum).")
@click.option("--seed", type=click.IntRange(-2 ** 63, 2 ** 63 - 1), default=0, show_default=True,
              help="Seed of each run's game 1 (game i uses seed+i).")
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Worker processes (or Dask workers with --cluster local).")
@click.option("--agent", type=click.Choice(["random", "first"]), default="random",
              show_default=True, help="Who plays the seats a run does not name.")
@click.option("--invariants", type=click.Choice(["turn", "changed", "every"]), default="turn",
              show_default=True, help="When invariants are checked (as in simulate).")
@REPORT_OPTION
@CLUSTER_OPTION
@QUIET_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
@click.option("--max-memory", type=click.IntRange(64, 1 << 20), default=2048, show_default=True,
              metavar="MIB", help="Stop with a diagnostic when the run holds more memory than "
                                  "this (MiB).")
def compare(runs, games, players, seed, jobs, agent, invariants, report_dir, cluster, quiet,
            as_json, max_memory):
    """Compare rulesets, variants or agents: win rates, scores, game length and errors of each
    RUN against the first, with 95% intervals.

    A RUN is RULESET[+VARIANT...][@AGENTS]: `mygame mygame+variant` compares a variant
    with the plain game; `mygame mygame@1=first` seat 1 playing the first option with it
    playing at random. Every run plays the same seeds."""
    import json

    from .cli_game import _limits, _load
    from .report.comparison import compare as differences
    from .report.runner import simulate

    if len(runs) < 2:
        raise click.UsageError("compare needs at least two runs")
    need_report_libraries()
    settings = [parse_run(r, players, agent, invariants) for r in runs]
    if report_dir is not None:
        from .report.writer import make_folder
        from .validator.diagnostics import DiagnosticError

        try:
            make_folder(report_dir)
        except DiagnosticError as e:
            _fail(e.diagnostics)
    limits = _limits(max_memory)
    rules = [_load(s.ruleset, s.variants) for s in settings]
    results = []
    from .report.progress import progress_bar
    from .validator.diagnostics import DiagnosticError

    client = local = None
    try:
        if cluster is not None:  # one cluster for every run, started once
            from .report.cluster import open_client

            client, local = open_client(cluster, jobs)
        with progress_bar(games * len(settings), "games", quiet) as advance:
            for setting in settings:
                results.append(simulate(setting, games, seed, jobs, client, limits, advance))
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)
    finally:
        for opened in (client, local):
            if opened is not None:
                opened.close()
    figures = differences(results)
    if report_dir is not None:
        from .report.writer import write_comparison

        try:
            page = write_comparison(results, report_dir, rules)
        except DiagnosticError as e:
            _fail(e.diagnostics, e.sources)
        click.echo(f"report: {page}", err=True)
    if as_json:
        from .report.writer import json_ready

        click.echo(json.dumps(json_ready(figures), indent=1))
    else:
        from .report.terminal import print_comparison

        print_comparison(figures)
    sys.exit(0)
