"""The reference as one self-contained HTML page and as Markdown, through Jinja2 templates.

HTML is autoescaped by Jinja. Markdown has no autoescaping of its own, so every value printed by
the Markdown template is escaped by `finalize` unless a filter made it `Verbatim` (code spans,
fenced blocks and anchors, which escape their own content): rule text is untrusted input.
"""
from __future__ import annotations

import functools
import html
import re

from .components import STATE_COLUMNS
from .places import slug

OTHER_TITLES = {"procedure": "Procedures", "define": "Definitions", "event": "Events",
                "reaction": "Reactions", "modifier": "Modifiers", "invariant": "Invariants",
                "automaton": "Automata"}
_NUMBER = re.compile(r"-?\d+\Z")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]#+!|~])")


class MissingExtra(Exception):
    """An optional dependency of `rulebook docs` is not installed."""


class Verbatim(str):
    """Markdown already escaped by the filter that made it."""


def md_text(value) -> str:
    """Text safe anywhere in Markdown, table cells included: no markup, no HTML, one line."""
    text = _MD_SPECIAL.sub(r"\\\1", str(value))
    return html.escape(text, quote=True).replace("\r", " ").replace("\n", "<br>")


def md_code(value) -> Verbatim:
    """Inline code that survives table cells: an HTML `<code>`, whose content Markdown still
    reads as Markdown, so it is escaped as any text is."""
    return Verbatim(f"<code>{md_text(str(value).replace(chr(10), ' '))}</code>")


def md_fence(value) -> Verbatim:
    """A fenced block longer than any run of backticks inside it."""
    text = str(value)
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return Verbatim(f"{fence}rules\n{text}\n{fence}")


def md_anchor(anchor) -> Verbatim:
    return Verbatim(f'<a id="{slug(str(anchor))}"></a>')


def md_link(place) -> Verbatim:
    if place is None:
        return Verbatim("file header")
    return Verbatim(f"[{md_text(place.title)}](#{slug(place.anchor)})")


def _finalize_markdown(value):
    if value is None:
        return ""
    if isinstance(value, Verbatim):
        return value
    return md_text(value)


@functools.lru_cache(maxsize=2)  # templates are compiled once per process
def _environment(markdown: bool):
    try:
        import jinja2
    except ImportError as e:  # the `docs` extra is not installed
        raise MissingExtra(f"`rulebook docs` needs Jinja2 ({e}): "
                           "install it with `pip install 'rulebook[docs]'`") from None
    loader = jinja2.PackageLoader("rulebook.ruleset_docs", "templates")
    if markdown:
        env = jinja2.Environment(loader=loader, autoescape=False, finalize=_finalize_markdown,
                                 undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                 trim_blocks=True, lstrip_blocks=True)
        env.filters.update(code=md_code, fence=md_fence, anchor=md_anchor, link=md_link,
                           verbatim=Verbatim)  # a macro's output: escaped inside the macro
    else:
        env = jinja2.Environment(loader=loader, autoescape=True,
                                 undefined=jinja2.StrictUndefined)
    env.filters["slug"] = slug
    env.filters["count_of"] = lambda items, word: (
        f"{len(items)} {word}" + ("" if len(items) == 1 else "s"))
    env.tests["number_like"] = lambda v: isinstance(v, str) and bool(_NUMBER.match(v))
    return env


def _context(reference) -> dict:
    return {"r": reference, "state_columns": STATE_COLUMNS, "other_titles": OTHER_TITLES,
            "cite_anchor": reference.coverage.anchor_of}


def render_html(reference) -> str:
    return _environment(False).get_template("reference.html.jinja").render(_context(reference))


def render_markdown(reference) -> str:
    text = _environment(True).get_template("reference.md.jinja").render(_context(reference))
    return re.sub(r"\n{3,}", "\n\n", text)
