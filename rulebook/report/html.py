"""One self-contained HTML page: inline style, plots as PNG data URIs, every text escaped
(option names, messages and titles come from rules files, which anyone may write)."""
from __future__ import annotations

import math
from html import escape

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 64em; color: #1d2430;
       padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccd; }
.meta { color: #556; } .ok { color: #1d7a35; } .bad { color: #b3261e; }
table { border-collapse: collapse; margin: .8em 0; font-size: .9em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #e2e5ea; text-align: right; }
th { background: #f3f5f8; } td.text, th.text { text-align: left; }
img { max-width: 100%; display: block; margin: .5em 0; }
code { background: #f3f5f8; padding: 0 .2em; }
"""


def number(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return str(v)


def percent(v) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}%"


def interval(row: dict, as_percent: bool = True, digits: int = 3) -> str:
    show = percent if as_percent else (lambda v: number(v, digits))
    low, high = show(row.get("low")), show(row.get("high"))
    return "–" if low == high == "–" else f"{low} – {high}"


def table(rows: list[dict], columns: list[tuple], caption: str = "") -> str:
    """`columns`: (heading, how to show a row) pairs; a third item "text" aligns left."""
    head = "".join(f"<th class='{c[2] if len(c) > 2 else ''}'>{escape(c[0])}</th>"
                   for c in columns)
    body = "".join("<tr>" + "".join(
        f"<td class='{c[2] if len(c) > 2 else ''}'>{escape(str(c[1](r)))}</td>" for c in columns)
        + "</tr>" for r in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def image(uri: str, alt: str) -> str:
    return f"<img src='{uri}' alt='{escape(alt)}'>"


def paragraph(text: str, cls: str = "") -> str:
    return f"<p class='{cls}'>{escape(text)}</p>"


def items(values: list[str]) -> str:
    return "<ul>" + "".join(f"<li><code>{escape(v)}</code></li>" for v in values) + "</ul>"


def section(title: str, *parts: str, anchor: str = "") -> str:
    return f"<section id='{escape(anchor)}'><h2>{escape(title)}</h2>{''.join(parts)}</section>"


def page(title: str, subtitle: str, sections: list[str], files: list[str]) -> str:
    links = " · ".join(f"<a href='{escape(f)}'>{escape(f)}</a>" for f in files)
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>"
            f"<p class='meta'>{escape(subtitle)}</p>{''.join(sections)}"
            f"<footer><h2>Files</h2><p>{links}</p></footer></body></html>")
