"""`rulebook serve`: a table in the browser for each seat, over the network (docs/web.md)."""
from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

import click

from .cli_game import MEMORY_OPTION, VARIANT_OPTION, _fail, _limits, _load, _parse_seats

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _link_host(host: str) -> str:
    """The address to put in links: the machine's address on the network when the server
    listens on every interface (found by routing a packet that is never sent)."""
    if host not in ("0.0.0.0", "::", ""):
        return f"[{host}]" if ":" in host else host
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent by a UDP connect
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _print_links(tables, base: str) -> None:
    for table in tables:
        game = table.game
        click.echo(f"Table {table.id}: {game.rules.title}, {len(game.state.seats)} seats")
        for seat, kind in table.kinds.items():
            where = f"{base}/t/{table.link(seat)}" if kind == "human" else f"bot ({kind})"
            click.echo(f"  player {seat}: {where}")
        click.echo(f"  spectators: {base}/t/{table.link(None)}")


@click.command()
@click.argument("ruleset", required=False)
@click.option("--players", type=click.IntRange(1, 100), default=None,
              help="Number of players (default: the game's minimum).")
@click.option("--seat", "seats", multiple=True, metavar="K=KIND",
              help="Who plays seat K: human (the default: a link is printed), random or first "
                   "(a bot). Repeat for several seats.")
@click.option("--games", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="How many games to start, each with its own links.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets other machines of the network in "
                   "(read docs/web.md first).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--state-dir", type=click.Path(file_okay=False), default="rulebook-tables",
              show_default=True,
              help="Folder where every game is saved after each decision, with its links.")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, exists=True),
              default=None, help="Continue the games saved in this folder, with the same links.")
@click.option("--playground", is_flag=True,
              help="Edit RULESET (a .rules file) in the browser: diagnostics as you type, its "
                   "scenarios, a hot-seat table and a simulation of the edited rules. Edits are "
                   "saved to the file.")
@click.option("--bot-delay", type=click.FloatRange(0, 60), default=0.6, show_default=True,
              help="Seconds a bot waits before each decision, so people can follow it.")
@VARIANT_OPTION
@MEMORY_OPTION
def serve(ruleset, players, seats, games, host, port, state_dir, resume_dir, playground,
          bot_delay, variants, max_memory):
    """Serve RULESET's table in the browser: a private link for each person's seat, one for
    spectators; bots play the other seats.

    Each link shows only what its seat may see. Anyone with a seat's link plays that seat, and a
    saved game (in --state-dir) reveals every hidden card: keep both to yourself."""
    try:
        import uvicorn
    except ImportError:
        raise click.ClickException("`rulebook serve` needs the web extra: "
                                   "pip install -e '.[web]'") from None

    from .validator.diagnostics import DiagnosticError
    from .web.app import MAX_MESSAGE, create_app
    from .web.tables import INDEX, Tables

    limits = _limits(max_memory)
    editor = None
    if playground:
        editor, made, tables = _playground(ruleset, state_dir, limits)
    elif resume_dir:
        if ruleset or seats or players or variants:
            raise click.UsageError("--resume continues saved games: give no RULESET, --players, "
                                   "--seat or --variant")
        tables = Tables(resume_dir, limits)
        try:
            made = tables.resume()
        except DiagnosticError as e:
            _fail(e.diagnostics, e.sources)
    else:
        if not ruleset:
            raise click.UsageError("name a RULESET to play, or --resume a folder of saved games")
        if (Path(state_dir) / INDEX).exists():
            raise click.UsageError(f"{state_dir} already holds games: continue them with "
                                   f"--resume {state_dir}, or choose another --state-dir")
        kinds = _parse_seats(seats)  # the same SEAT=KIND as `play`
        rules = _load(ruleset, variants)
        tables = Tables(state_dir, limits)
        try:
            made = [tables.create(rules.source_path, variants, players, kinds)
                    for _ in range(games)]
        except DiagnosticError as e:
            _fail(e.diagnostics, e.sources)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--seat")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(256)  # browsers that come at once wait in line until the server runs
    except OSError as e:
        raise click.BadParameter(f"cannot listen on {host}:{port}: {e.strerror}",
                                 param_hint="--host/--port")
    bound = listener.getsockname()[1]
    base = f"http://{_link_host(host)}:{bound}"
    _print_links(made, base)
    if editor:
        click.echo(f"Playground for {editor.path}: {base}/p/{editor.token}")
    folder = resume_dir or state_dir
    click.echo(f"Every decision is saved in {folder}/; after a stop, `rulebook serve --resume "
               f"{folder}` continues with the same links.")
    if not _is_loopback(host):
        click.echo("Listening beyond this machine: whoever can reach it and holds a link plays "
                   "that seat, over plain HTTP (docs/web.md, 'What exposing the server means')."
                   + (" The playground's link lets its holder write the file and run rules on "
                      "this machine." if editor else ""), err=True)
    click.echo("Press Ctrl+C to stop.")
    sys.stdout.flush()
    config = uvicorn.Config(create_app(tables, bot_delay, editor), log_level="warning",
                            access_log=False,  # request paths hold the seats' secret links
                            server_header=False, ws_max_size=MAX_MESSAGE)
    uvicorn.Server(config).run(sockets=[listener])


def _playground(ruleset, state_dir, limits):
    """The playground of one rules file, and the tables its hot-seat games are dealt at."""
    import secrets

    from .web.app import STATIC
    from .web.playground import Playground
    from .web.tables import INDEX, Tables

    if not ruleset or not ruleset.endswith(".rules") or not Path(ruleset).is_file():
        raise click.UsageError("--playground edits one .rules file: name it, e.g. "
                               "`rulebook serve --playground mygame.rules`")
    tables = Tables(state_dir, limits)
    if (Path(state_dir) / INDEX).exists():  # the hot-seat games of an earlier session go on
        tables.resume()
    editor = Playground(ruleset, secrets.token_urlsafe(16), tables, Path(str(STATIC)))
    return editor, list(tables.by_id.values()), tables
