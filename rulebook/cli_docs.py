"""`rulebook docs`: write a readable reference of a ruleset (registered on the `rulebook` group)."""
from __future__ import annotations

import click


@click.command("docs")
@click.argument("ruleset")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Folder to write the pages into (created if missing).")
@click.option("--format", "fmt", type=click.Choice(["html", "markdown", "both"]), default="both",
              show_default=True, help="Write one self-contained HTML page, Markdown, or both.")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Document the game with this variant applied (repeat to combine).")
def docs(ruleset: str, out: str, fmt: str, variants: tuple[str, ...]) -> None:
    """Write a reference of RULESET: components, setup and play, decisions, scoring, variants,
    assumptions, reading notes and citations."""
    from .cli_game import _fail
    from .ruleset_docs.render import MissingExtra
    from .ruleset_docs.write import write_docs
    from .validator.diagnostics import DiagnosticError

    try:
        written = write_docs(ruleset, out, fmt, variants)
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)
    except MissingExtra as e:
        raise click.ClickException(str(e)) from None
    for path in written:
        click.echo(f"wrote {path}")


def register(group: click.Group) -> None:
    group.add_command(docs)
