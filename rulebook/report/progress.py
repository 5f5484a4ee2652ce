"""A progress bar for long commands: done, rate and time left, on standard error.

Shown only when standard error is a terminal and `quiet` is not asked, so that pipes, files and
CI logs get no control characters."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator


def wanted(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


@contextmanager
def progress_bar(total: int, what: str, quiet: bool = False) -> Iterator:
    """Yields advance(n), or None when no bar is shown."""
    if not wanted(quiet):
        yield None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn,
                               TextColumn, TimeRemainingColumn)

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TaskProgressColumn(), TextColumn("[progress.data.speed]{task.fields[rate]}"),
               TextColumn("left"), TimeRemainingColumn()]
    # Lines printed meanwhile go above the bar, when standard output is the same screen; to
    # a file or a pipe they go straight, not through the bar's standard error.
    with Progress(*columns, console=Console(stderr=True), transient=True,
                  redirect_stdout=sys.stdout.isatty(), redirect_stderr=False) as bar:
        task = bar.add_task(what, total=total, rate="")

        def advance(n: int) -> None:
            bar.advance(task, n)
            speed = bar.tasks[task].speed
            if speed:
                bar.update(task, rate=f"{speed:,.1f} {what}/s")

        yield advance
