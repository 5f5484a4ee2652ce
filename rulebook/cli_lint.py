"""`rulebook check --format sarif|github` output and `rulebook explain CODE`."""
from __future__ import annotations

import sys

import click

from . import __version__


def report_for_ci(diagnostics, fmt: str, checked: int) -> None:
    """SARIF on stdout (nothing else: it is a file for upload), or one workflow annotation per
    diagnostic on stdout and the summary on stderr."""
    from .cli import _summary_line
    from .validator.code_docs import code_docs
    from .validator.diagnostics import summarize
    from .validator.output_formats import render_github, render_sarif

    if fmt == "sarif":
        click.echo(render_sarif(diagnostics, code_docs(), __version__))
        return
    text = render_github(diagnostics)
    if text:
        click.echo(text)
    click.echo(_summary_line(summarize(diagnostics), checked), err=True)


@click.command()
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text",
              show_default=True, help="Plain text, or the Markdown of docs/diagnostics.md.")
def explain(code: str, fmt: str) -> None:
    """Print the documentation of a diagnostic CODE (such as W0202), from docs/diagnostics.md."""
    from .validator.code_docs import code_docs
    from .validator.semantic import did_you_mean

    docs = code_docs()
    doc = docs.get(code.strip().upper())
    if doc is None:
        hint = did_you_mean(code.strip().upper(), docs) or "codes look like E0201 or W0202"
        raise click.UsageError(f"no diagnostic has the code `{code}`; {hint}")
    if fmt == "markdown":
        click.echo(doc.markdown(), nl=False)
        return
    click.echo(f"{doc.code}: {doc.title}\n\n{doc.body}")
    sys.stdout.flush()
