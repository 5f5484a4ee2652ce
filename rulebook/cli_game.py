"""The commands that run games: play, simulate, test, replay (registered on the `rulebook` group)."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from functools import partial
from pathlib import Path

import click

from .cli_report import CLUSTER_OPTION, QUIET_OPTION, REPORT_OPTION

MAX_GAMES = 1_000_000
MAX_JOBS = 256

MEMORY_OPTION = click.option(
    "--max-memory", type=click.IntRange(64, 1 << 20), default=2048, show_default=True,
    metavar="MIB", help="Stop with a diagnostic when the run holds more memory than this (MiB).")


def _limits(max_memory: int):
    """The engine's limits for a command, and a hard ceiling on the process a little above."""
    from .interpreter.memory import cap_address_space
    from .interpreter.state import Limits

    limits = Limits(max_memory=max_memory * 2 ** 20)
    cap_address_space(limits.max_memory)
    return limits


def _fail(diagnostics, sources=None) -> None:
    """Print diagnostics (quoting only rules text that was read as rules) and exit 1."""
    from .validator.diagnostics import render_text

    click.echo(render_text(diagnostics, sources or {}), err=True)
    sys.exit(1)


VARIANT_OPTION = click.option(
    "--variant", "variants", multiple=True, metavar="NAME",
    help="Add a variant of the game (a variant file's name beside the game, or its path). "
         "Repeat to combine several; two that change the same rule are refused.")


def _count_hint(rules, variants, players: int) -> str:
    """What to do about a player count the game does not seat: the variants beside the game
    that seat that many (a game played alone against an automaton is often one)."""
    from .api import load
    from .loader import first_word, rules_files_in
    from .validator.diagnostics import DiagnosticError

    fitting = []
    game = Path(rules.source_path)
    for path in rules_files_in(game.parent):
        if path == game or path.stem in variants or first_word(path) != "variant":
            continue
        try:
            other = load(str(game), (*variants, path.stem))
        except DiagnosticError:
            continue
        if other.min_players <= players <= other.max_players:
            fitting.append(f"`--variant {path.stem}`")
    if fitting:
        return f"with {players} player{'s' if players != 1 else ''}, add {' or '.join(fitting)}"
    return "choose a player count the game allows, or one of its variants"


def _load(ref: str, variants=()):
    from .api import load
    from .validator.diagnostics import DiagnosticError

    try:
        return load(ref, variants)
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)


def _parse_seats(specs: tuple[str, ...], people: bool = True) -> dict[int, str]:
    from .interpreter.agents import AGENT_KINDS, parse_agent

    kinds = [k for k in AGENT_KINDS if people or k != "human"]
    seats = {}
    for spec in specs:
        seat, _, kind = spec.partition("=")
        try:
            ok = seat.isdigit() and len(seat) <= 4 and parse_agent(kind)[0] in kinds
        except ValueError:
            ok = False
        if not ok:
            raise click.BadParameter(f"{spec[:40]!r}: write SEAT=KIND with KIND one of "
                                     f"{', '.join(kinds)} (mcts and ismcts may add :ITERATIONS), "
                                     "e.g. 2=ismcts:400", param_hint="--seat")
        seats[int(seat)] = kind
    return seats


def _parse_agent(spec: str) -> str:
    from .interpreter.agents import parse_agent

    try:
        if parse_agent(spec)[0] == "human":
            raise ValueError("people play with `rulebook play`")
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agent")
    return spec


def _fresh_seed() -> int:
    import secrets

    return secrets.randbits(31)


def _clear_for_hand_over() -> None:
    """Clear the screen and the terminal's scrollback, so nothing of the last view stays above."""
    click.clear()
    # Erase the saved lines (scrollback), then the screen; sent even when click would strip
    # escape codes, since the person reading is at a terminal.
    click.echo("\x1b[3J\x1b[H\x1b[2J", nl=False, color=True)
    click.echo("\n" * 40)


@contextlib.contextmanager
def _thinking(seat: int, kind: str, shown: bool):
    """While a searching bot decides, a person at a terminal sees that it is thinking (the line
    is wiped once it has decided; its decision is in the next view's events). `kind` was
    checked by `parse_agent` when the seats were read."""
    from .interpreter.agents import SEARCH_KINDS, parse_agent

    shown = shown and parse_agent(kind)[0] in SEARCH_KINDS and sys.stdout.isatty()
    if shown:
        click.echo(f"player {seat} ({kind}) is thinking...", nl=False)
    try:
        yield
    finally:
        if shown:
            with contextlib.suppress(OSError):  # a terminal closed meanwhile
                click.echo("\r\x1b[K", nl=False, color=True)


class _Ended(Exception):
    """Play was told to end by a signal (SIGHUP: the terminal closed; SIGTERM)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _EndSignals:
    """While play runs, SIGHUP and SIGTERM end it with the game saved instead of lost: at once
    while it waits for a decision (a person's or a bot's, which changes nothing of the game),
    and only once it is made while a decision is being carried out, never halfway."""

    SIGNALS = ("SIGHUP", "SIGTERM")

    def __init__(self):
        self.busy, self.caught, self._old = False, None, {}

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():  # where Python handles them
            for name in self.SIGNALS:
                if hasattr(signal, name):
                    num = getattr(signal, name)
                    self._old[num] = signal.signal(num, self._handle)
        return self

    def __exit__(self, *exc):
        import signal

        for num, old in self._old.items():
            signal.signal(num, old)

    def _handle(self, signum, frame):
        if self.busy:
            self.caught = signum
            return
        raise _Ended(signum)

    @contextlib.contextmanager
    def deciding(self):
        """A decision being carried out: a signal waits for its end."""
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
        if self.caught is not None:
            raise _Ended(self.caught)


def _continue_with(ruleset: str, variants, path: str) -> str:
    again = " ".join([ruleset, *(f"--variant {v}" for v in variants)])
    return f"Continue with: rulebook play {again} --load {path}"


def _say(text: str) -> None:
    """Print, when there is still somewhere to print to (a closed terminal is not)."""
    with contextlib.suppress(OSError):
        click.echo(text)


class _SaveTarget:
    """Where `s` and `q` save. Play never writes over a file it did not load or write in this
    run without asking first."""

    def __init__(self, path: str, owned: bool):
        self.path, self.owned = path, owned

    def write(self, game, ask: bool = True) -> str | None:
        """Save; None when saved, else why not. Without `ask` (nobody is there to answer), a
        file that is not this game's is kept, and the game saved beside it under a free name."""
        from .api import save
        from .grammar.source import path_kind
        from .validator.diagnostics import DiagnosticError

        if not ask and not self.owned and path_kind(self.path) is not None:
            where = Path(self.path)
            stem, dot, ext = where.name.partition(".")  # game.save.json: game-2.save.json
            free = (str(where.with_name(f"{stem}-{n}{dot}{ext}")) for n in range(2, 1000))
            self.path = next((p for p in free if path_kind(p) is None), self.path)
            self.owned = path_kind(self.path) is None
        if not self.owned and path_kind(self.path) is not None:
            if not ask:
                return "Not saved: every free name beside it is taken."
            try:
                ok = click.confirm(f"{self.path} already exists and is not this game's save; "
                                   "write over it?", default=False)
            except click.Abort:
                ok = False
            if not ok:
                return "Not saved: choose another file with --save-to."
        try:
            save(game, self.path)
        except DiagnosticError as e:
            return f"Not saved: {e.diagnostics[0].message}"
        self.owned = True
        return None


@click.command()
@click.argument("ruleset")
@click.option("--players", type=click.IntRange(1, 100), default=None,
              help="Number of players, as the header counts them (automaton seats come on top;"
                   " default: the minimum).")
@click.option("--seed", type=click.IntRange(-2 ** 63, 2 ** 63 - 1), default=None,
              help="Random seed (default: a fresh one, printed when the game ends).")
@click.option("--seat", "seats", multiple=True, metavar="K=KIND",
              help="Who plays seat K: human, random, first, greedy, mcts or ismcts (mcts and ismcts "
                   "take :ITERATIONS, default 200; e.g. 2=ismcts:400). Default: seat 1 human, "
                   "others random. Repeat for several seats.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False), default=None,
              help="Continue a saved game.")
@click.option("--save-to", type=click.Path(dir_okay=False), default=None,
              help="Where `s` and `q` save, and a closed terminal or SIGTERM (default: the "
                   "loaded save, else rulebook-game.save.json; an existing file is never "
                   "replaced without asking).")
@click.option("--accept-changed-rules", is_flag=True,
              help="With --load: continue a save even though the rules changed since it was made.")
@VARIANT_OPTION
@MEMORY_OPTION
def play(ruleset, players, seed, seats, load_path, save_to, accept_changed_rules, variants,
         max_memory):
    """Play RULESET (a bundled game name or GAME/VARIANT, a folder or a .rules file).

    A save file and a seed each reveal the whole game (every shuffle follows from the seed):
    keep them to yourself until the game is over."""
    from .api import load_game, new_game
    from .interpreter.agents import make_agent
    from .interpreter.human import HumanAgent, render_view
    from .interpreter.view import view
    from .validator.diagnostics import DiagnosticError

    kinds = _parse_seats(seats)
    limits = _limits(max_memory)
    rules = _load(ruleset, variants)
    try:
        if load_path:
            game = load_game(load_path, rules, accept_changed_rules, limits)
        else:
            game = new_game(rules, players, _fresh_seed() if seed is None else seed, limits)
    except DiagnosticError as e:
        if players is not None and [d.code for d in e.diagnostics] == ["E0315"]:
            e.diagnostics[0] = dataclasses.replace(
                e.diagnostics[0], hint=_count_hint(rules, variants, players))
        _fail(e.diagnostics, e.sources)
    unknown = sorted(k for k in kinds if not 1 <= k <= len(game.state.seats))
    if unknown:
        raise click.BadParameter(f"seat {unknown[0]} does not exist: this game has seats 1 to "
                                 f"{len(game.state.seats)}", param_hint="--seat")
    target = _SaveTarget(save_to or load_path or "rulebook-game.save.json",
                         owned=bool(load_path) and (save_to is None or save_to == load_path))
    kinds.setdefault(1, "human")  # unless told otherwise, the person sits at seat 1
    # A person may undo: keep what undo needs, and refuse it once a decision showed something.
    game.audit_reveals = any(kinds.get(s.seat) == "human" for s in game.state.seats)
    agents = {}
    for s in game.state.seats:
        kind = kinds.get(s.seat, "random")
        agents[s.seat] = HumanAgent() if kind == "human" else make_agent(kind, game.seed * 31 + s.seat)
    # Several people at one terminal: before a different person decides, the screen and its
    # scrollback are cleared and play waits until they say only they are looking.
    people = [s for s, a in agents.items() if isinstance(a, HumanAgent)]
    screen_owner = people[0] if len(people) == 1 else None
    holder = [game]
    with _EndSignals() as signals:
        try:
            game = _play_on(holder, agents, kinds, people, screen_owner, target, ruleset,
                            variants, signals)
        except _Ended as ended:
            problem = target.write(holder[0], ask=False)
            _say(problem or f"Play was ended; the game is saved to {target.path}. "
                 + _continue_with(ruleset, variants, target.path))
            sys.exit(128 + ended.signum)
    if game is None:
        return
    for seat in people:
        agents[seat].flush()
    final = view(game, people[0] if len(people) == 1 else None)  # several people: public view
    click.echo(render_view(final, log_lines=12))
    click.echo("Winner(s): " + (", ".join(f"player {w}" for w in final["winners"]) or "nobody"))
    click.echo(f"Seed {game.seed}: `--seed {game.seed}` deals this game again.")


def _play_on(holder, agents, kinds, people, screen_owner, target, ruleset, variants, signals):
    """The decisions of `play` up to the end of the game (the game then), or until a person
    quits (None). `holder[0]` is the game as it stands (an undo makes another copy);
    `signals.deciding()` is around every change to it."""
    from .interpreter.agents import decide
    from .interpreter.errors import IllegalDecision
    from .interpreter.human import HumanAgent
    from .interpreter.view import view
    from .validator.diagnostics import DiagnosticError

    game = holder[0]
    while game.pending is not None:
        seat = game.pending.player.seat
        agent = agents[seat]
        human = isinstance(agent, HumanAgent)
        try:
            options = game.legal_options(bots=not human)  # labels the rules may fail to work out
        except DiagnosticError as e:
            _fail(e.diagnostics, e.sources)
        if human and len(options) == 1 and not getattr(game.pending.node, "confirm", False):
            # Nothing to decide: it is made for the person, and said (unless the rules want it
            # confirmed). The log line of the decision says what was done.
            try:
                with signals.deciding():
                    game.apply(options[0][0], seat)
            except DiagnosticError as e:
                _fail(e.diagnostics, e.sources)
            agent.tell(f"Only one choice was possible, so it was made for you: {options[0][1]}")
            continue
        if human and seat != screen_owner:
            _clear_for_hand_over()
            try:
                click.prompt(f"Pass the terminal to player {seat}, then press Enter",
                             default="", show_default=False, prompt_suffix=" ")
            except click.Abort:
                return None
            screen_owner = seat
        if human:
            choice = agent.decide(view(game, seat), options)
        else:
            with _thinking(seat, kinds.get(seat, "random"), shown=bool(people)):
                choice = decide(agent, game, seat, options)
        if choice == "!undo":
            last = game.history[-1] if game.history else None
            if last is None or last.get("player") != seat:
                agent.tell("Nothing of yours to undo: your last decision is already final.")
            elif game.last_decision_revealed():
                agent.tell("Undo refused: that decision showed you something that was hidden (a "
                           "card, a draw or another player's secret), so it stays made.")
            else:
                with signals.deciding():
                    game = holder[0] = game.undo()
            continue
        if choice in ("!save", "!quit", "!eof"):
            problem = target.write(game)
            message = problem or (f"Saved to {target.path}. "
                                  + _continue_with(ruleset, variants, target.path))
            if choice == "!eof" or (choice == "!quit" and not problem):
                click.echo(message)
                return None
            agent.tell(message)  # a failed save does not quit: the game would be lost
            continue
        try:
            with signals.deciding():
                game.apply(choice, seat)
        except IllegalDecision as e:
            agent.tell(f"Refused: {e.message}")
        except DiagnosticError as e:
            _fail(e.diagnostics, e.sources)
    return game


@click.command()
@click.argument("ruleset")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True)
@click.option("--players", type=click.IntRange(1, 100), default=None,
              help="Number of players, as the header counts them (automaton seats come on top;"
                   " default: the minimum).")
@click.option("--seed", type=click.IntRange(-2 ** 63, 2 ** 63 - 1), default=0, show_default=True,
              help="Seed of game 1 (game i uses seed+i).")
@click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True,
              help="Worker processes.")
@click.option("--agent", default="random", show_default=True, metavar="KIND",
              help="Agent of every seat: random, first, greedy, mcts or ismcts (mcts and ismcts "
                   "take :ITERATIONS, e.g. ismcts:400).")
@click.option("--seat", "seats", multiple=True, metavar="K=KIND",
              help="Agent of seat K instead (e.g. 1=ismcts); repeat for several seats.")
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
@click.option("--invariants", type=click.Choice(["turn", "changed", "every"]), default="turn",
              show_default=True,
              help="When invariants are checked: at the end of each turn, after every decision "
                   "those whose variables changed, or all of them after every decision.")
@VARIANT_OPTION
@MEMORY_OPTION
@REPORT_OPTION
@CLUSTER_OPTION
@QUIET_OPTION
def simulate(ruleset, games, players, seed, jobs, agent, seats, as_json, invariants, variants,
             max_memory, report_dir, cluster, quiet):
    """Play many games with bots; print wins and mean score per seat and game length.

    Results go to standard output and are identical for the same seed, whatever --jobs or
    --cluster is; timing (decisions per second) goes to standard error. --report DIR writes a
    balance report (plots, intervals, tests) a browser opens."""
    from .api import load
    from .interpreter.simulate import simulate as run, summarise

    _parse_agent(agent)
    chosen = _parse_seats(seats, people=False)
    limits = _limits(max_memory)
    rules = _load(ruleset, variants)
    if players is not None and not rules.min_players <= players <= rules.max_players:
        from .validator.diagnostics import Diagnostic

        span = f"{rules.min_players}" + (f" to {rules.max_players}"
                                         if rules.max_players != rules.min_players else "")
        _fail([Diagnostic("E0315", f"{rules.title} is for {span} players, not {players}",
                          hint=_count_hint(rules, variants, players))])
    everyone = (players or rules.min_players) + len(rules.automata)
    unknown = sorted(k for k in chosen if not 1 <= k <= everyone)
    if unknown:
        raise click.BadParameter(f"seat {unknown[0]} does not exist: this game has seats 1 to "
                                 f"{everyone}", param_hint="--seat")
    figures = None
    if report_dir is not None or cluster is not None:
        from .cli_report import run_for_report
        from .report.results import Setting

        results, figures = run_for_report(
            Setting(ruleset, tuple(variants), players, agent, tuple(sorted(chosen.items())),
                    invariants), rules, games, seed, jobs, cluster, limits, report_dir, quiet)
        records, seconds = results.games, results.seconds
    else:
        from .report.progress import progress_bar

        with progress_bar(games, "games", quiet) as advance:
            records, seconds = run(rules, partial(load, ruleset, variants), games, players, seed,
                                   jobs, {"*": agent, **chosen} if chosen else agent,
                                   progress=advance, limits=limits, invariants=invariants)
    seats = players or rules.min_players
    summary = summarise(records, seats + len(rules.automata))
    summary.update({"ruleset": rules.title, "variants": list(rules.variants), "players": seats,
                    "seed": seed, "agent": agent,
                    "seats": {str(k): v for k, v in sorted(chosen.items())}})
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif figures is not None:
        from .report.terminal import print_summary

        print_summary(figures)
    else:
        others = "".join(f", seat {k} {v}" for k, v in sorted(chosen.items()))
        click.echo(f"{rules.title}: {summary['games']} games, {seats} players, seed {seed}, "
                   f"{agent} bots{others}")
        click.echo(f"  completed {summary['completed']}, errors {summary['errors']}, "
                   f"shared victories {summary['shared_victories']}")
        for s, w in summary["wins_per_seat"].items():
            mean = summary["mean_score_per_seat"].get(s)
            click.echo(f"  seat {s}: {w} wins, mean score {mean}")
        d, r = summary["decisions_per_game"], summary["rounds_per_game"]
        t = summary["turns_per_game"]
        click.echo(f"  decisions per game: mean {d['mean']}, min {d['min']}, max {d['max']}")
        if r["max"] or not t["max"]:
            click.echo(f"  rounds per game: mean {r['mean']}, min {r['min']}, max {r['max']}")
        if t["max"]:
            click.echo(f"  turns per game: mean {t['mean']}, min {t['min']}, max {t['max']}")
        for e in summary["first_errors"]:
            where = ":".join(str(e[k]) for k in ("file", "line", "column") if e.get(k))
            click.echo(f"  error in game {e['game']} (seed {e['seed']}): "
                       f"{where + ': ' if where else ''}{e['code']}: {e['message']}")
    rate = summary["total_decisions"] / seconds if seconds > 0 else 0.0
    where = f"cluster {cluster}" if cluster else f"jobs {jobs}"
    click.echo(f"time {seconds:.2f} s, {games / seconds:.1f} games/s, {rate:.0f} decisions/s, "
               f"{where}", err=True)
    sys.exit(1 if summary["errors"] else 0)


@click.command(name="test")
@click.argument("paths", nargs=-1, required=True)
@click.option("-v", "--verbose", is_flag=True, help="List every scenario, not only failures.")
@VARIANT_OPTION
@MEMORY_OPTION
@QUIET_OPTION
def test_cmd(paths, verbose, variants, max_memory, quiet):
    """Run the scenario tests written in the rules files under PATHS.

    A file that does not pass `rulebook check` counts as failed, with its diagnostics."""
    from .scenarios import collect

    limits = _limits(max_memory)
    from .cli import _empty_folders

    files, problems = collect(paths)
    problems += _empty_folders(paths)  # a folder with no rules file is no pass
    if problems:
        _fail(problems)
    passed = failed = 0
    from .report.progress import progress_bar

    with progress_bar(len(files), "files", quiet or len(files) < 2) as advance:
        for f in files:
            counts = _test_file(f, limits, variants, verbose)
            passed, failed = passed + counts[0], failed + counts[1]
            if advance:
                advance(1)
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def _test_file(f, limits, variants, verbose) -> tuple[int, int]:
    """Run one file's scenarios, print its failures; (passed, failed)."""
    from .scenarios import run_file
    from .validator.diagnostics import render_text

    passed = failed = 0
    outcome = run_file(f, limits, tuple(variants))
    if outcome.diagnostics:
        click.echo(render_text(outcome.diagnostics, outcome.sources))
        plural = "s" if outcome.held != 1 else ""
        held = f" (it holds {outcome.held} scenario{plural})" if outcome.held else ""
        click.echo(f"FAIL {f}: the file cannot be run{held}")
        return 0, max(1, outcome.held)
    for r in outcome.results:
        if r.passed:
            passed += 1
            if verbose:
                click.echo(f"PASS {r.file}:{r.line}: {r.name}")
        else:
            failed += 1
            click.echo(f"FAIL {r.file}:{r.line}: {r.name}")
            click.echo(render_text(r.failures, outcome.sources))
    return passed, failed


@click.command()
@click.argument("save_file", type=click.Path(dir_okay=False))
@click.option("--seat", type=click.IntRange(1, 100), default=None,
              help="Show the log as this seat saw it.")
@click.option("--ruleset", default=None, help="Ruleset, when the save does not name one.")
@click.option("--accept-changed-rules", is_flag=True,
              help="Replay the saved decisions even though the rules changed since the save.")
@VARIANT_OPTION
@MEMORY_OPTION
def replay(save_file, seat, ruleset, accept_changed_rules, variants, max_memory):
    """Replay a saved game and print its log (as a spectator, or as --seat saw it).

    A save holds the seed and every decision, so it reveals the whole game to whoever has it."""
    from .api import load_game
    from .interpreter.human import render_view
    from .interpreter.view import view
    from .validator.diagnostics import DiagnosticError

    limits = _limits(max_memory)
    if variants and not ruleset:
        raise click.UsageError("--variant goes with --ruleset: a save names its own variants")
    rules = _load(ruleset, variants) if ruleset else None
    try:
        game = load_game(save_file, rules, accept_changed_rules, limits)
    except DiagnosticError as e:
        _fail(e.diagnostics, e.sources)
    if seat is not None and seat > len(game.state.seats):
        raise click.BadParameter(f"seat {seat} does not exist: this game has seats 1 to "
                                 f"{len(game.state.seats)}", param_hint="--seat")
    v = view(game, seat)
    click.echo("\n".join(v["log"]))
    click.echo(render_view(v, log_lines=0) if seat else "")
    status = "over" if game.over else f"waiting for player {game.pending_seat()}"
    click.echo(f"{len(game.history)} decisions replayed; the game is {status}.")


def register(group: click.Group) -> None:
    for cmd in (play, simulate, test_cmd, replay):
        group.add_command(cmd)
