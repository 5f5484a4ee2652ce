"""The compact summary a report prints in the terminal: tables and small bar plots (rich)."""
from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

BLOCKS = " ▏▎▍▌▋▊▉█"
SPARKS = "▁▂▃▄▅▆▇█"
BAR_WIDTH = 24
TOP_OPTIONS = 8


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of `width` cells, filled to `fraction` in eighths of a cell."""
    if fraction is None or math.isnan(fraction):
        return ""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def sparkline(values: list[float], bins: int = 24) -> str:
    """A histogram in one line of block characters."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if low == high:
        return SPARKS[-1]
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / (high - low) * bins))] += 1
    top = max(counts)
    return "".join(SPARKS[min(7, c * 8 // (top + 1))] if c else " " for c in counts)


def _pct(v) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}%"


def print_summary(figures: dict, console: Console | None = None) -> None:
    console = console or Console()
    s = figures["summary"]
    console.print(f"[bold]{s['title']}[/bold]: {s['games']:,} games ({s['completed']:,} "
                  f"completed, {s['errors']:,} errors), {s['players']} players, seed {s['seed']}, "
                  f"{s['setting']}", highlight=False)
    w = figures["win_rate"]
    table = Table(box=None, pad_edge=False)
    for heading in ("seat", "wins", "win rate", "95% interval", ""):
        table.add_column(heading, justify="left" if not heading else "right")
    for r in w["rows"]:
        table.add_row(str(r["seat"]) + (" (automaton)" if r["automaton"] else ""),
                      f"{r['wins']:,}", _pct(r["rate"]), f"{_pct(r['low'])} – {_pct(r['high'])}",
                      bar(r["rate"]))
    console.print(table)
    b = w["balance"]
    if b is not None:
        verdict = ("[green]no seat favoured[/green]" if b["balanced_at_5_percent"]
                   else "[red]seats unequal[/red]")
        console.print(f"seat balance: chi-square {b['statistic']:.2f}, p = {b['p_value']:.3g}: "
                      f"{verdict} (5% level)", highlight=False)
    for r in figures["length"]["rows"]:
        console.print(f"{r['measure']} per game: mean {r['mean']:.1f} "
                      f"({r['low']:.1f} – {r['high']:.1f}), {r['min']}–{r['max']}  "
                      f"{sparkline(figures['length']['values'][r['measure']])}", highlight=False)
    options = figures["options"]
    if options["rows"]:
        top = sorted(options["rows"], key=lambda r: -r["taken"])[:TOP_OPTIONS]
        table = Table(title="most taken options", box=None, pad_edge=False, title_justify="left")
        for heading in ("option", "taken", "take rate", "win diff"):
            table.add_column(heading, justify="left" if heading == "option" else "right")
        for r in top:
            table.add_row(r["option"], f"{r['taken']:,}", _pct(r["take_rate"]),
                          _pct(r["win_difference"]))
        console.print(table)
    for what, names in (("offered, never taken", options["never_taken"]),
                        ("never offered to a bot", options["never_offered"])):
        if names:
            console.print(f"{what}: {', '.join(names[:12])}"
                          + (f" and {len(names) - 12} more" if len(names) > 12 else ""),
                          highlight=False)
    for e in figures["errors"]["rows"][:3]:
        console.print(f"[red]error[/red] in game {e['game']}: {e['code']}: {e['message']}\n"
                      f"  replay: {e['replay']}", highlight=False)


def print_comparison(figures: dict, console: Console | None = None) -> None:
    """One table per run: its differences against the first run, with 95% intervals."""
    console = console or Console()
    for run in figures["runs"][1:]:
        rows = [r for r in figures["differences"] if r["run"] == run["run"]]
        table = Table(title=f"{run['run']} against {figures['baseline']} (95% intervals)",
                      box=None, pad_edge=False, title_justify="left")
        for heading in ("measure", "baseline", "this run", "difference", "interval", ""):
            table.add_column(heading, justify="left" if heading == "measure" else "right")
        for r in rows:
            show = _pct if r["kind"] == "rate" else (lambda v: "–" if v is None else f"{v:.2f}")
            table.add_row(r["what"], show(r["baseline"]), show(r["value"]),
                          show(r["difference"]), f"{show(r['low'])} – {show(r['high'])}",
                          "[bold]differs[/bold]" if r["shows_a_difference"] else "")
        console.print(table)
