"""`rulebook lsp`: the language server, for editors (docs/editors.md)."""
from __future__ import annotations

import os
import sys

import click


@click.command()
@click.option("--stdio", is_flag=True,
              help="Speak over standard input and output (the default; editors pass it).")
def lsp(stdio: bool) -> None:
    """Run the language server for `.rules` files over stdin/stdout.

    Editors start it: diagnostics as you type, hover, go to definition, references, rename,
    completion, outline, formatting and folding. Needs the `lsp` extra
    (`pip install 'rulebook[lsp]'`).
    """
    try:
        from .lsp.server import main
    except ImportError as e:
        raise click.ClickException(
            f"the language server needs pygls ({e.name} is missing): "
            "install it with `pip install 'rulebook[lsp]'`")
    main()
    # The protocol's stream is closed once the editor says `exit`: nothing more goes out.
    sys.stdout = open(os.devnull, "w")
