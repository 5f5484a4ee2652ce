"""Write a report folder: index.html (self-contained), figures.json, one CSV per table and the
per-game results (games.json without time, so that two runs can be compared byte for byte)."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from ..files import write_atomically
from ..validator.diagnostics import Diagnostic, DiagnosticError
from . import html as H
from .figures import all_figures, declared_options
from .results import SimulationResults

CSV_TABLES = {  # file -> where its rows are in the figures
    "win_rate.csv": ("win_rate", "rows"), "scores.csv": ("scores", "rows"),
    "length.csv": ("length", "rows"), "options.csv": ("options", "rows"),
    "phase_time.csv": ("phase_time", "rows"), "errors.csv": ("errors", "rows"),
}


def json_ready(value):
    """JSON has no NaN: an interval that does not exist is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def csv_text(rows: list[dict]) -> str:
    out = io.StringIO()
    if rows:
        columns = list(rows[0])
        writer = csv.DictWriter(out, columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: " ".join(map(str, v)) if isinstance(v, list) else v
                             for k, v in json_ready(row).items()})
    return out.getvalue()


def _write(folder: Path, name: str, text: str) -> None:
    write_atomically(folder / name, text)


def make_folder(directory) -> Path:
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DiagnosticError([Diagnostic(
            "E0009", f"cannot make the report folder {str(folder)[:120]}: "
            f"{e.strerror or type(e).__name__}", file=str(folder),
            hint="choose a folder that can be written (it is made if missing)")])
    return folder


def write_report(results: SimulationResults, directory, rules=None) -> Path:
    """Write the report of `results` into `directory` (made if missing); the page's path.
    With `rules`, the options they declare that no seat was ever offered are listed too."""
    folder = make_folder(directory)
    figures = json_ready(all_figures(results, declared_options(rules) if rules is not None else ()))
    files = ["figures.json", *CSV_TABLES, "games.csv", "games.json"]
    _write(folder, "figures.json", json.dumps(figures, indent=1, sort_keys=True))
    for name, (part, key) in CSV_TABLES.items():
        _write(folder, name, csv_text(figures[part][key]))
    _write(folder, "games.csv", results.games_csv())
    _write(folder, "games.json", results.to_json(timing=False))
    page = H.page(f"{results.title}: balance report", _subtitle(figures["summary"]),
                  report_sections(figures), files)
    _write(folder, "index.html", page)
    return folder / "index.html"


def _subtitle(s: dict) -> str:
    rate = f", {s['games_per_second']:.1f} games/s" if s.get("games_per_second") else ""
    return (f"{s['setting']} · {s['games']:,} games ({s['completed']:,} completed, "
            f"{s['errors']:,} errors) · {s['players']} players · seed {s['seed']} · "
            f"{s['agent']} bots · ran on {s['ran_on']} in {s['seconds']:.1f} s{rate}")


def report_sections(f: dict) -> list[str]:
    from . import plots as P

    out = []
    w = f["win_rate"]
    balance = w["balance"]
    if balance is None:
        verdict = H.paragraph("No test of seat balance: fewer than two players' seats, or no wins.")
    else:
        ok = balance["balanced_at_5_percent"]
        verdict = H.paragraph(
            f"Seat balance (chi-square test of equal wins over the players' seats): "
            f"χ² = {balance['statistic']:.2f}, {balance['dof']} degree"
            f"{'s' if balance['dof'] != 1 else ''} of freedom, "
            f"p = {balance['p_value']:.4g}: "
            + ("no evidence that a seat is favoured at the 5% level." if ok else
               "the seats do not win equally often (5% level)."), "ok" if ok else "bad")
    out.append(H.section(
        "Win rate per seat",
        H.image(P.data_uri(P.win_rates([("win rate", w["rows"])], w["fair_rate"])),
                "win rate per seat with 95% intervals"),
        verdict,
        H.table(w["rows"], [("seat", lambda r: r["seat"]), ("wins", lambda r: H.number(r["wins"])),
                            ("games", lambda r: H.number(r["games"])),
                            ("win rate", lambda r: H.percent(r["rate"])),
                            ("95% interval (Wilson)", H.interval),
                            ("automaton", lambda r: "yes" if r["automaton"] else "")]),
        H.paragraph(f"Shared victories: {w['shared_victories']:,} (each winner counts a win); "
                    f"games without a winner: {w['no_winner']:,}."), anchor="wins"))
    sc = f["scores"]
    scored = {f"seat {r['seat']}": sc["values"][str(r["seat"])] for r in sc["rows"]}
    if any(scored.values()):
        out.append(H.section(
            "Scores per seat",
            H.image(P.data_uri(P.distributions(scored, "score")), "score distribution per seat"),
            H.table([r for r in sc["rows"] if r["n"]], _spread_columns("seat")), anchor="scores"))
    ln = f["length"]
    if ln["values"]:
        out.append(H.section(
            "Game length",
            H.image(P.data_uri(P.histograms(ln["values"], "per game")), "game length"),
            H.table(ln["rows"], _spread_columns("measure")), anchor="length"))
    per_turn, widths = ln["decisions_per_turn"], ln["options_per_decision"]
    parts = []
    if per_turn.get("n"):
        parts += [H.image(P.data_uri(P.histograms({"decisions per turn":
                                                   ln["decisions_per_turn_values"]},
                                                  "decisions per turn (mean of each game)")),
                          "decisions per turn"),
                  H.table([{"measure": "decisions per turn", **per_turn}],
                          _spread_columns("measure"))]
    if widths["rows"]:
        parts += [H.image(P.data_uri(P.bars([str(r["options"]) for r in widths["rows"]],
                                            [r["decisions"] for r in widths["rows"]],
                                            "legal options at a decision", "decisions")),
                          "options per decision"),
                  H.paragraph(f"Mean options per decision: {H.number(widths['mean'], 2)}.")]
    if parts:
        out.append(H.section("Decisions per turn and options per decision", *parts,
                             anchor="decisions"))
    op = f["options"]
    if op["rows"]:
        out.append(H.section(
            "Options offered and taken",
            H.image(P.data_uri(P.options(op["rows"])), "options offered and taken"),
            H.paragraph("Win association: the win rate of a seat that took the option in a game, "
                        "against that of a seat offered it there that did not take it, and the "
                        "difference with its 95% interval (Newcombe). An association, not a cause:"
                        " the situations an option is offered in differ."),
            H.table(op["rows"], [
                ("option", lambda r: r["option"], "text"),
                ("decision at", lambda r: r["decision"], "text"),
                ("offered", lambda r: H.number(r["offered"])),
                ("taken", lambda r: H.number(r["taken"])),
                ("take rate", lambda r: H.percent(r["take_rate"])),
                ("wins when taken", lambda r: H.percent(r["win_rate_taken"])),
                ("when not taken", lambda r: H.percent(r["win_rate_not_taken"])),
                ("difference", lambda r: H.percent(r["win_difference"])),
                ("95% interval", H.interval)]), anchor="options"))
    never = []
    if op["never_taken"]:
        never += [H.paragraph("Offered but never taken:"), H.items(op["never_taken"])]
    if op["never_offered"]:
        never += [H.paragraph("Declared but never offered to a seat played by a bot "
                              "(automata decide by their own rules):"),
                  H.items(op["never_offered"])]
    out.append(H.section("Options never taken", *(never or [H.paragraph(
        "Every option offered was taken at least once.")]), anchor="never"))
    pt = f["phase_time"]
    if pt["rows"]:
        out.append(H.section(
            "Time per phase",
            H.image(P.data_uri(P.bars([r["phase"] for r in pt["rows"]],
                                      [r["ms_per_game"] for r in pt["rows"]], "phase",
                                      "ms per game")), "time per phase"),
            H.paragraph(f"Measured: {pt['note']} (setup: until the first decision)."),
            H.table(pt["rows"], [("phase", lambda r: r["phase"], "text"),
                                 ("seconds", lambda r: H.number(r["seconds"])),
                                 ("share", lambda r: H.percent(r["share"])),
                                 ("ms per game", lambda r: H.number(r["ms_per_game"]))]),
            anchor="time"))
    er = f["errors"]
    if er["count"]:
        body = [H.paragraph(f"{er['count']:,} games ended in an error: " + ", ".join(
                    f"{c} × {n}" for c, n in er["by_code"].items()), "bad"),
                H.table(er["rows"], [
                    ("game", lambda r: r["game"]), ("code", lambda r: r["code"], "text"),
                    ("where", lambda r: f"{r['file'] or ''}:{r['line'] or ''}", "text"),
                    ("message", lambda r: r["message"], "text"),
                    ("decisions", lambda r: r["decisions"]),
                    ("first decisions (seat:option)", lambda r: " ".join(r["first_decisions"]),
                     "text"),
                    ("replay", lambda r: r["replay"], "text")])]
    else:
        body = [H.paragraph("No game ended in an error.", "ok")]
    out.append(H.section("Errors", *body, anchor="errors"))
    return out


def _spread_columns(first: str) -> list[tuple]:
    return [(first, lambda r: r[first], "text"), ("games", lambda r: H.number(r["n"])),
            ("mean", lambda r: H.number(r.get("mean"), 2)),
            ("95% interval", lambda r: H.interval(r, False, 2)),
            ("sd", lambda r: H.number(r.get("sd"), 2)), ("min", lambda r: H.number(r.get("min"))),
            ("median", lambda r: H.number(r.get("median"))),
            ("max", lambda r: H.number(r.get("max")))]


def write_comparison(runs: list[SimulationResults], directory, rules=None) -> Path:
    """Write the comparison of `runs` (the first is the baseline) into `directory`, with each
    run's own report in a subfolder; the page's path."""
    from .comparison import compare, comparison_sections

    folder = make_folder(directory)
    figures = json_ready(compare(runs))
    subfolders = []
    for k, results in enumerate(runs, 1):
        name = f"run{k}"
        write_report(results, folder / name, rules[k - 1] if rules else None)
        subfolders.append(f"{name}/index.html")
    _write(folder, "comparison.json", json.dumps(figures, indent=1, sort_keys=True))
    _write(folder, "differences.csv", csv_text(figures["differences"]))
    title = "Comparison: " + " vs ".join(r.setting.label() for r in runs)
    page = H.page(title, f"{len(runs)} runs; differences against {runs[0].setting.label()} "
                  "with 95% intervals", comparison_sections(figures, subfolders),
                  ["comparison.json", "differences.csv", *subfolders])
    _write(folder, "index.html", page)
    return folder / "index.html"
