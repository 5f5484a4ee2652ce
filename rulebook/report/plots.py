"""The report's plots, drawn with matplotlib (Agg: no display needed) into PNG bytes."""
from __future__ import annotations

import base64
import io
from collections import Counter

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

WIDTH, HEIGHT = 6.4, 3.4
MAX_OPTIONS_PLOTTED = 30
COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def png(fig) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return out.getvalue()


def data_uri(image: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(image).decode("ascii")


def _figure(height: float = HEIGHT):
    fig, ax = plt.subplots(figsize=(WIDTH, height))
    ax.grid(axis="y", alpha=0.3)
    return fig, ax


def win_rates(series: list[tuple[str, list[dict]]], fair: float | None) -> bytes:
    """Win rate per seat with its 95% interval; one group of bars per run compared."""
    fig, ax = _figure()
    width = 0.8 / len(series)
    for k, (label, rows) in enumerate(series):
        xs = [r["seat"] + (k - (len(series) - 1) / 2) * width for r in rows]
        rates = [r["rate"] for r in rows]
        err = [[r["rate"] - r["low"] for r in rows], [r["high"] - r["rate"] for r in rows]]
        ax.bar(xs, rates, width, yerr=err, capsize=4, label=label, color=COLOURS[k % 10])
    if fair:
        ax.axhline(fair, color="black", linestyle="--", linewidth=1, label="equal chances")
    seats = sorted({r["seat"] for _, rows in series for r in rows})
    ax.set_xticks(seats, [f"seat {s}" for s in seats])
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, min(1.0, max((r["high"] for _, rows in series for r in rows), default=1) * 1.2
                       or 1.0))
    ax.legend(fontsize=8)
    return png(fig)


def distributions(groups: dict[str, list[float]], ylabel: str) -> bytes:
    """Box plots side by side (scores per seat, lengths per run)."""
    fig, ax = _figure()
    labels = [k for k, v in groups.items() if v]
    ax.boxplot([groups[k] for k in labels], showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1), labels)
    ax.set_ylabel(ylabel)
    return png(fig)


def histograms(series: dict[str, list[float]], xlabel: str) -> bytes:
    """One histogram per measure, side by side (game length: decisions, rounds, turns)."""
    fig, axes = plt.subplots(1, len(series), figsize=(WIDTH * 1.3, HEIGHT * 0.9), squeeze=False)
    for ax, (name, values) in zip(axes[0], series.items()):
        counts = Counter(values)
        if len(counts) <= 40 and all(float(v).is_integer() for v in counts):
            ax.bar(list(counts), list(counts.values()), width=0.8, color=COLOURS[0])  # exact
        else:
            ax.hist(values, bins=30, color=COLOURS[0])
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(xlabel if len(series) == 1 else f"{name} per game")
    axes[0][0].set_ylabel("games")
    return png(fig)


def bars(labels: list[str], values: list[float], xlabel: str, ylabel: str) -> bytes:
    fig, ax = _figure()
    ax.bar(range(len(labels)), values, color=COLOURS[0])
    crowded = sum(map(len, labels)) > 60  # long labels side by side would overlap
    ax.set_xticks(range(len(labels)), labels, rotation=45 if crowded else 0,
                  ha="right" if crowded else "center", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return png(fig)


def options(rows: list[dict]) -> bytes:
    """How often each option was offered and taken (the most offered first)."""
    shown = sorted(rows, key=lambda r: -r["offered"])[:MAX_OPTIONS_PLOTTED]
    fig, ax = plt.subplots(figsize=(WIDTH, max(2.0, 0.28 * len(shown) + 1)))
    ys = range(len(shown))
    ax.barh(ys, [r["offered"] for r in shown], color="#c9d7ea", label="offered")
    ax.barh(ys, [r["taken"] for r in shown], color=COLOURS[0], label="taken")
    ax.set_yticks(list(ys), [r["option"] for r in shown], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("decisions")
    ax.legend(fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def differences(rows: list[dict], xlabel: str) -> bytes:
    """Differences against the first run, each with its 95% interval (a forest plot)."""
    fig, ax = plt.subplots(figsize=(WIDTH, max(2.0, 0.32 * len(rows) + 1)))
    ys = list(range(len(rows)))
    ax.errorbar([r["difference"] for r in rows], ys, capsize=3, fmt="o", color=COLOURS[0],
                xerr=[[r["difference"] - r["low"] for r in rows],
                      [r["high"] - r["difference"] for r in rows]])
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(ys, [r["what"] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)
