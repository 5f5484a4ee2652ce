"""The commands that run games: play, simulate, test, replay (registered on the `rulebook` group)."""
from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import click


def _fail(diagnostics, sources=None) -> None:
    from .validator.diagnostics import render_text

    click.echo(render_text(diagnostics, sources or _sources(diagnostics)), err=True)
    sys.exit(1)


def _sources(diagnostics) -> dict:
    out = {}
    for d in diagnostics:
        if d.file and d.file not in out:
            try:
                out[d.file] = Path(d.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                pass
    return out


def _load(ref: str):
    from .api import load
    from .validator.diagnostics import DiagnosticError

    try:
        return load(ref)
    except DiagnosticError as e:
        _fail(e.diagnostics)


def _parse_seats(specs: tuple[str, ...]) -> dict[int, str]:
    from .interpreter.agents import AGENT_KINDS

    seats = {}
    for spec in specs:
        seat, _, kind = spec.partition("=")
        if not seat.isdigit() or kind not in AGENT_KINDS:
            raise click.BadParameter(f"{spec!r}: write SEAT=KIND with KIND one of "
                                     f"{', '.join(AGENT_KINDS)}, e.g. 2=random", param_hint="--seat")
        seats[int(seat)] = kind
    return seats


@click.command()
@click.argument("ruleset")
@click.option("--players", type=int, default=None, help="Number of seats (default: the minimum).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--seat", "seats", multiple=True, metavar="K=KIND",
              help="Who plays seat K: human, random or first (default: seat 1 human, others random). "
                   "Repeat for several seats.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False), default=None,
              help="Continue a saved game.")
@click.option("--save-to", type=click.Path(dir_okay=False), default="rulebook-game.save.json",
              show_default=True, help="Where `s` and `q` save the game.")
def play(ruleset, players, seed, seats, load_path, save_to):
    """Play RULESET (a bundled game name or GAME/VARIANT, a folder or a .rules file)."""
    from .api import load_game, new_game, save
    from .interpreter.agents import make_agent
    from .interpreter.errors import IllegalDecision
    from .interpreter.human import HumanAgent, render_view
    from .interpreter.view import view
    from .validator.diagnostics import DiagnosticError

    kinds = _parse_seats(seats)
    rules = _load(ruleset)
    try:
        game = load_game(load_path, rules) if load_path else new_game(rules, players, seed)
    except DiagnosticError as e:
        _fail(e.diagnostics)
    kinds.setdefault(1, "human")  # unless told otherwise, the person sits at seat 1
    agents = {}
    for s in game.state.seats:
        kind = kinds.get(s.seat, "random")
        agents[s.seat] = HumanAgent() if kind == "human" else make_agent(kind, game.seed * 31 + s.seat)
    # Several people at one terminal: before a different person decides, the screen is cleared
    # and play waits until they say only they are looking, so no one sees another's hidden view.
    people = [s for s, a in agents.items() if isinstance(a, HumanAgent)]
    screen_owner = people[0] if len(people) == 1 else None
    while game.pending is not None:
        seat = game.pending.player.seat
        agent = agents[seat]
        human = isinstance(agent, HumanAgent)
        if human and seat != screen_owner:
            click.clear()
            click.echo("\n" * 40)
            try:
                click.prompt(f"Pass the terminal to player {seat}, then press Enter",
                             default="", show_default=False, prompt_suffix=" ")
            except click.Abort:
                return
            screen_owner = seat
        choice = agent.decide(view(game, seat) if human else None, game.legal_options())
        if choice == "!undo":
            last = game.history[-1] if game.history else None
            if last is None or last.get("player") != seat:
                click.echo("Nothing of yours to undo: your last decision is already final.")
            else:
                game = game.undo()
            continue
        if choice in ("!save", "!quit"):
            save(game, save_to)
            click.echo(f"Saved to {save_to}. Continue with: rulebook play {ruleset} --load {save_to}")
            if choice == "!quit":
                return
            continue
        try:
            game.apply(choice, seat)
        except IllegalDecision as e:
            click.echo(f"Refused: {e.message}")
        except DiagnosticError as e:
            _fail(e.diagnostics)
    final = view(game, people[0] if len(people) == 1 else None)  # several people: public view
    click.echo(render_view(final, log_lines=12))
    click.echo("Winner(s): " + (", ".join(f"player {w}" for w in final["winners"]) or "nobody"))


@click.command()
@click.argument("ruleset")
@click.option("--games", type=int, default=100, show_default=True)
@click.option("--players", type=int, default=None, help="Number of seats (default: the minimum).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of game 1 (game i uses seed+i).")
@click.option("--jobs", type=int, default=1, show_default=True, help="Worker processes.")
@click.option("--agent", type=click.Choice(["random", "first"]), default="random", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
def simulate(ruleset, games, players, seed, jobs, agent, as_json):
    """Play many games with bots; print wins and mean score per seat and game length.

    Results go to standard output and are identical for the same seed, whatever --jobs is;
    timing (decisions per second) goes to standard error."""
    from .api import load
    from .interpreter.simulate import simulate as run, summarise

    rules = _load(ruleset)
    if games < 1 or jobs < 1:
        raise click.BadParameter("--games and --jobs must be at least 1")
    if players is not None and not rules.min_players <= players <= rules.max_players:
        from .validator.diagnostics import Diagnostic

        span = f"{rules.min_players}" + (f" to {rules.max_players}"
                                         if rules.max_players != rules.min_players else "")
        _fail([Diagnostic("E0315", f"{rules.title} is for {span} players, not {players}",
                          hint="choose a player count the game allows, or one of its variants")])
    bar = None
    if sys.stderr.isatty():
        from rich.progress import Progress

        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task("games", total=games)
    records, seconds = run(rules, partial(load, ruleset), games, players, seed, jobs, agent,
                           progress=(lambda n: bar.advance(task, n)) if bar else None)
    if bar:
        bar.stop()
    seats = players or rules.min_players
    summary = summarise(records, seats + len(rules.automata))
    summary.update({"ruleset": rules.title, "players": seats, "seed": seed, "agent": agent})
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(f"{rules.title}: {summary['games']} games, {seats} players, seed {seed}, {agent} bots")
        click.echo(f"  completed {summary['completed']}, errors {summary['errors']}, "
                   f"shared victories {summary['shared_victories']}")
        for s, w in summary["wins_per_seat"].items():
            mean = summary["mean_score_per_seat"].get(s)
            click.echo(f"  seat {s}: {w} wins, mean score {mean}")
        d, r = summary["decisions_per_game"], summary["rounds_per_game"]
        click.echo(f"  decisions per game: mean {d['mean']}, min {d['min']}, max {d['max']}")
        click.echo(f"  rounds per game: mean {r['mean']}, min {r['min']}, max {r['max']}")
        for e in summary["first_errors"]:
            where = ":".join(str(e[k]) for k in ("file", "line", "column") if e.get(k))
            click.echo(f"  error in game {e['game']} (seed {e['seed']}): "
                       f"{where + ': ' if where else ''}{e['code']}: {e['message']}")
    rate = summary["total_decisions"] / seconds if seconds > 0 else 0.0
    click.echo(f"time {seconds:.2f} s, {games / seconds:.1f} games/s, {rate:.0f} decisions/s, "
               f"jobs {jobs}", err=True)
    sys.exit(1 if summary["errors"] else 0)


@click.command(name="test")
@click.argument("paths", nargs=-1, required=True)
@click.option("-v", "--verbose", is_flag=True, help="List every scenario, not only failures.")
def test_cmd(paths, verbose):
    """Run the scenario tests written in the rules files under PATHS."""
    from .scenarios import collect, run_file
    from .validator.diagnostics import render_text

    files, problems = collect(paths)
    if problems:
        _fail(problems)
    passed = failed = 0
    for f in files:
        results, diags = run_file(f)
        if diags:
            click.echo(render_text(diags, _sources(diags)))
            failed += 1
            continue
        for r in results:
            if r.passed:
                passed += 1
                if verbose:
                    click.echo(f"PASS {r.file}:{r.line}: {r.name}")
            else:
                failed += 1
                click.echo(f"FAIL {r.file}:{r.line}: {r.name}")
                click.echo(render_text(r.failures, _sources(r.failures)))
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@click.command()
@click.argument("save_file", type=click.Path(dir_okay=False))
@click.option("--seat", type=int, default=None, help="Show the log as this seat saw it.")
@click.option("--ruleset", default=None, help="Ruleset, when the save does not name one.")
def replay(save_file, seat, ruleset):
    """Replay a saved game and print its log (as a spectator, or as --seat saw it)."""
    from .api import load_game
    from .interpreter.human import render_view
    from .interpreter.view import view
    from .validator.diagnostics import DiagnosticError

    rules = _load(ruleset) if ruleset else None
    try:
        game = load_game(save_file, rules)
    except DiagnosticError as e:
        _fail(e.diagnostics)
    v = view(game, seat)
    click.echo("\n".join(v["log"]))
    click.echo(render_view(v, log_lines=0) if seat else "")
    status = "over" if game.over else f"waiting for player {game.pending_seat()}"
    click.echo(f"{len(game.history)} decisions replayed; the game is {status}.")


def register(group: click.Group) -> None:
    for cmd in (play, simulate, test_cmd, replay):
        group.add_command(cmd)
