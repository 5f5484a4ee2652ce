"""Run scenario tests written in the rules language (``scenario "..." { ... }``).

A scenario runs its items in order. An expectation that fails is reported and the scenario goes
on, so every failed expectation is reported; a step that cannot be taken (a decision that is not
legal, a `given` that breaks the rules, a game that stopped with an error) ends the run. With
`seeds A..B` the scenario runs once per seed: plain expectations must hold for every seed,
`expect sometimes e` for one at least, `expect e on N to M seeds` for that many.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable

from ..grammar import ast as A
from ..validator.diagnostics import Diagnostic, DiagnosticError, span_fields
from .agents import FirstAgent, RandomAgent
from .errors import IllegalDecision, RuleError
from .evaluator import truth
from .explain import explain
from .game import Game
from .rules import Rules
from .state import Limits
from .values import Seat, show
from .visibility import can_see, shape_seen

AGENTS = ("random", "first")


@dataclass
class ScenarioResult:
    name: str
    file: str
    line: int | None
    failures: list[Diagnostic] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


class _Stop(Exception):
    """A step of the scenario could not be taken: the run ends here."""


class _Run:
    """One run of a scenario with one seed."""

    def __init__(self, runner: "ScenarioRunner", seed: int, tag: str):
        self.runner = runner
        self.file = runner.file
        self.seed = seed
        self.tag = tag  # "seed N: " when the scenario runs over several seeds
        self.players: int | None = None
        self.game: Game | None = None
        self.env: dict = {}
        self.last_error: Diagnostic | None = None
        self.failures: list[Diagnostic] = []
        self.held: dict[int, bool] = {}  # counted expectations: id(item) -> held in this run

    # ------------------------------------------------------------------------- helpers
    def diagnostic(self, node, message: str, hint: str | None = None, at=None) -> Diagnostic:
        where = span_fields(node.span) if at is None else at
        return Diagnostic("E0400", self.tag + message, file=self.file, hint=hint, **where)

    def fail(self, node, message: str, hint: str | None = None) -> None:
        """An expectation failed: report it and go on."""
        self.failures.append(self.diagnostic(node, message, hint))

    def stop(self, node, message: str, hint: str | None = None, at=None):
        """A step could not be taken: report it and end the run."""
        self.failures.append(self.diagnostic(node, message, hint, at))
        raise _Stop()

    def start(self) -> Diagnostic | None:
        """Start the game; the error that kept it from starting, if any."""
        try:
            rules = self.runner.rules()
            self.game = Game(rules, self.players, self.seed, self.runner.game_limits(),
                             ruleset_ref=rules.source_path)
        except DiagnosticError as e:
            self.runner.pool[0] -= getattr(e, "steps", 0)
            return e.diagnostics[0]
        return None

    def ensure_game(self, node) -> Game:
        if self.game is None:
            d = self.start()
            if d is not None:
                self.stop(node, f"the game could not start: {d.located()}: {d.message}", d.hint)
        if self.last_error is not None:
            d = self.last_error
            self.stop(node, f"the game stopped with an error: {d.located()}: {d.message}", d.hint)
        return self.game

    def evaluate(self, expr, node):
        game = self.ensure_game(node)
        try:
            return game.machine.eval(expr, self.env)
        except RuleError as e:
            self.stop(node, f"cannot evaluate: {e.message}", e.hint)

    def text(self, expr, node) -> str:
        """An option id or a log text: a string whose `{holes}` are filled now."""
        if expr.kind == "str":
            return expr.value
        game = self.ensure_game(node)
        try:
            return game.machine.render(expr, self.env)
        except RuleError as e:
            self.stop(node, f"cannot fill the text: {e.message}", e.hint)

    def seat_of(self, expr, node) -> Seat:
        p = self.evaluate(expr, node)
        if not isinstance(p, Seat):
            self.stop(node, f"expected a player, got `{show(p)}`")
        return p

    def decider(self, item) -> tuple[Game, Seat]:
        """The game and the player who decides now (`pending`, or the one named)."""
        game = self.ensure_game(item)
        if game.pending is None:
            self.stop(item, "the game is over; there is no decision to make")
        if item.player is None:
            return game, game.pending.player
        seat = self.seat_of(item.player, item)
        if seat.seat not in game.waiting_seats():
            self.stop(item, f"it is {show(game.pending.player)}'s decision, not {show(seat)}'s",
                      f"pending: {game.pending.prompt}")
        return game, seat

    def asking(self, seat: Seat):
        """The game as it asks `seat` (a copy when another of the players deciding at once is
        asked first), or None when `seat` has nothing to decide now."""
        game = self.game
        if game.pending is None or seat.seat not in game.waiting_seats():
            return None
        if game.pending.player is seat:
            return game
        try:
            return game.asking(seat.seat)
        except IllegalDecision:  # its part was left nothing to choose (a `given`)
            return None

    def legal_ids(self, seat: Seat) -> list[str]:
        game = self.asking(seat)
        return [] if game is None else [o.id for o in game.pending.options]

    # --------------------------------------------------------------------------- items
    def run(self, items) -> None:
        try:
            for item in items:
                getattr(self, item.kind)(item)
            if self.last_error is not None:
                d = self.last_error
                self.stop(self.runner.sc, f"the game stopped with an error: {d.located()}: "
                          f"{d.message}", d.hint)
        except _Stop:
            pass

    def sc_ruleset(self, item):
        pass  # read once by the runner

    def sc_variant(self, item):
        pass  # read once by the runner

    def sc_seeds(self, item):
        pass  # read once by the runner

    def sc_players(self, item):
        self.players = item.count

    def sc_seed(self, item):
        self.seed = item.seed

    def sc_let(self, item):
        self.env[item.name] = self.evaluate(item.value, item)

    def sc_given(self, item):
        game = self.ensure_game(item)
        try:
            game.given(item.body, self.env)
        except DiagnosticError as e:
            d = e.diagnostics[0]
            here = item.span.end_line if item.span else None
            at = ({"line": d.line, "column": d.column, "end_line": d.end_line,
                   "end_column": d.end_column} if d.line is not None and d.code != "E0313"
                  else {"line": here, "column": 1} if here else None)
            what = "breaks an invariant" if d.code == "E0313" else "failed"
            self.stop(item, f"`given` {what}: {d.message}", d.hint, at)

    def sc_choose(self, item):
        game, seat = self.decider(item)
        option = self.text(item.option, item)
        try:
            game.apply(option, seat.seat)
        except IllegalDecision as e:
            self.stop(item, e.message, e.hint)
        except DiagnosticError as e:
            self.last_error = e.diagnostics[0]

    def sc_refuse(self, item):
        game, seat = self.decider(item)
        option = self.text(item.option, item)
        before = game.game_digest()
        why = f"{item.message}: " if item.message else ""
        try:
            game.apply(option, seat.seat)
        except IllegalDecision:
            if game.game_digest() != before:
                self.stop(item, "the refused decision changed the state")
            return
        except DiagnosticError as e:
            d = e.diagnostics[0]
            self.stop(item, f"{why}`{option}` was accepted but should be refused (the game then "
                      f"stopped: {d.located()}: {d.message})")
        self.stop(item, f"{why}`{option}` was accepted but should be refused")

    def sc_expect(self, item):
        value = self.evaluate(item.test, item)
        try:
            ok = truth(value, item.test)
        except RuleError as e:
            self.stop(item, e.message)
        if item.at_least is not None or item.at_most is not None:
            self.held[id(item)] = ok
            return
        if not ok:
            detail = explain(self.game.machine, item.test, self.env)
            self.fail(item, f"{item.message or 'expectation failed'}{detail}")

    def sc_expect_option(self, item):
        self.ensure_game(item)
        seat = self.seat_of(item.player, item)
        option = self.text(item.option, item)
        asked = self.asking(seat)
        ids = [] if asked is None else [o.id for o in asked.pending.options]
        labels = asked.labels(asked.pending.options) if ids else []
        present = option in ids or option in labels
        if present != item.present:
            why = f"{item.message}: " if item.message else ""
            if item.present:
                self.fail(item, f"{why}`{option}` is not a legal option for {show(seat)}",
                          f"legal options: {', '.join(ids[:15]) or 'none'}")
            else:
                self.fail(item, f"{why}`{option}` is a legal option for {show(seat)} but "
                          "should not be")

    def sc_expect_options(self, item):
        self.ensure_game(item)
        seat = self.seat_of(item.player, item)
        ids = self.legal_ids(seat)
        wanted = self.evaluate(item.value, item)
        why = f"{item.message}: " if item.message else ""
        if isinstance(wanted, list) and item.op in ("==", "!="):
            if not all(isinstance(w, str) for w in wanted):
                self.stop(item, "`expect options p == [...]` compares option ids (texts)")
            same = sorted(ids) == sorted(wanted)
            if same != (item.op == "=="):
                missing = [w for w in wanted if w not in ids]
                extra = [i for i in ids if i not in wanted]
                detail = "; ".join(x for x in (
                    f"missing: {', '.join(missing)}" if missing else "",
                    f"not expected: {', '.join(extra[:15])}" if extra else "") if x)
                self.fail(item, f"{why}the legal options of {show(seat)} are "
                          f"[{', '.join(ids[:15])}]" + (f" ({detail})" if detail else ""))
            return
        if type(wanted) is not int:
            self.stop(item, "`expect options p` compares with a list of option ids or a number")
        count = len(ids)
        holds = {"==": count == wanted, "!=": count != wanted, "<": count < wanted,
                 "<=": count <= wanted, ">": count > wanted, ">=": count >= wanted}.get(item.op)
        if holds is None:
            self.stop(item, f"`{item.op}` cannot compare a number of options")
        if not holds:
            self.fail(item, f"{why}{show(seat)} has {count} legal options, not {item.op} "
                      f"{wanted}", f"legal options: {', '.join(ids[:15]) or 'none'}")

    def sc_expect_log(self, item):
        game = self.ensure_game(item)
        text = self.text(item.text, item)
        lines = game.state.log
        reader = ""
        if item.to is not None:
            seat = self.seat_of(item.to, item).seat
            lines = [e for e in lines if e["to"] is None or seat in e["to"]]
            reader = f" that player {seat} may read"
        found = [e["text"] for e in lines if text in e["text"]]
        why = f"{item.message}: " if item.message else ""
        if item.present and not found:
            tail = " | ".join(e["text"] for e in lines[-5:])
            self.fail(item, f"{why}no log line{reader} contains `{text}`", f"last lines: {tail}")
        elif not item.present and found:
            self.fail(item, f"{why}a log line{reader} contains `{text}`: {found[0]}")

    def sc_expect_error(self, item):
        if self.game is None and self.last_error is None:  # an error while the game starts
            self.last_error = self.start()
        if self.last_error is None:
            self.fail(item, f"expected the game to stop with an error containing `{item.text}`")
            return
        if item.text not in self.last_error.message:
            self.fail(item, f"the error was `{self.last_error.message}`, not `{item.text}`")
        self.last_error = None

    def sc_expect_visibility(self, item):
        game = self.ensure_game(item)
        viewer = self.seat_of(item.viewer, item)
        target, position = item.target, None
        if target.kind == "index" and len(target.indices) == 1:  # `pile[1]`: one element
            target = target.obj
            position = self.evaluate(item.target.indices[0], item)
        try:
            owner, name = game.machine.var_key(target, self.env)
        except RuleError as e:
            self.stop(item, e.message, "write a state variable such as `x` or `players[1].x`")
        seen = can_see(game.state, game.rules, viewer.seat, owner, name)
        decl = (game.rules.global_vars if owner == 0 else game.rules.player_vars)[name]
        if not seen and position is not None and decl.public_top:  # a face-up first element
            seen = type(position) is int and 1 <= position <= decl.public_top
        if item.shape:  # where it holds something: seen with the value, or by its own option
            if position is not None:
                self.stop(item, "`expect ... shape` checks a whole state variable, not an element",
                          "write `expect visible shape pile to p`")
            seen = seen or shape_seen(decl, self.evaluate(target, item))
        if seen != item.visible:
            what = "sees" if seen else "does not see"
            why = f"{item.message}: " if item.message else ""
            part = f"[{show(position)}]" if position is not None else ""
            shape = "the shape of " if item.shape else ""
            self.fail(item, f"{why}{show(viewer)} {what} {shape}`{name}{part}`"
                      + (f" of player {owner}" if owner else ""))

    def sc_play_to_end(self, item):
        self._play(item, None)

    def sc_play_until(self, item):
        self._play(item, item.test)
        if self.game.pending is None and self.last_error is None and not self._holds(item.test):
            self.stop(item, "the game ended before the condition of `play until` held")

    def _holds(self, test) -> bool:
        try:
            return truth(self.game.machine.eval(test, self.env), test)
        except RuleError as e:
            self.stop(test, f"cannot evaluate: {e.message}", e.hint)

    def _play(self, item, until) -> None:
        if self.game is None and self.last_error is None:
            self.last_error = self.start()  # a game that cannot start stopped with its error
            if self.last_error is not None:
                return
        game = self.ensure_game(item)
        if item.agent not in AGENTS:
            self.stop(item, f"unknown agent `{item.agent}`", "use `random` or `first`")
        agents = {s.seat: (RandomAgent(self.seed * 1000 + s.seat) if item.agent == "random"
                           else FirstAgent()) for s in game.state.seats}
        try:
            while game.pending is not None and not (until is not None and self._holds(until)):
                seat = game.pending.player.seat
                game.apply(agents[seat].decide(None, game.legal_options(bots=True, labels=False)),
                           seat)
        except DiagnosticError as e:
            self.last_error = e.diagnostics[0]


class ScenarioRunner:
    def __init__(self, scenario: A.Scenario, file: str, rules_for: Callable[..., Rules],
                 limits: Limits | None = None, pool: list[int] | None = None):
        self.sc = scenario
        self.file = file
        self.rules_for = rules_for
        self.limits = limits or Limits()
        # Steps left to all the scenarios of the file: each game may use what is left of them.
        self.pool = pool if pool is not None else [self.limits.max_file_steps]
        self._rules: Rules | None = None

    def game_limits(self) -> Limits:
        if self.pool[0] >= self.limits.max_steps:
            return self.limits
        return dataclasses.replace(self.limits, max_steps=max(0, self.pool[0]))

    def spent(self, run: "_Run") -> None:
        if run.game is not None:
            self.pool[0] -= run.game.state.steps

    def out_of_steps(self) -> Diagnostic | None:
        if self.pool[0] > 0:
            return None
        return Diagnostic(
            "E0301", f"the scenarios of this file ran more than {self.limits.max_file_steps:,} "
            "steps in all; this one was not run", file=self.file, **span_fields(self.sc.span),
            hint="split the file, or run fewer seeds")

    def rules(self) -> Rules:
        if self._rules is None:
            item = next((i for i in self.sc.items if i.kind == "sc_ruleset"), None)
            variants = [i.name for i in self.sc.items if i.kind == "sc_variant"]
            self._rules = self.rules_for(item.path if item else None, item, variants)
        return self._rules

    def run(self) -> ScenarioResult:
        result = ScenarioResult(self.sc.name, self.file, self.sc.span.line if self.sc.span else None)
        seeds = next((i for i in self.sc.items if i.kind == "sc_seeds"), None)
        counted = [i for i in self.sc.items if i.kind == "sc_expect"
                   and (i.at_least is not None or i.at_most is not None)]
        if self.out_of_steps():
            result.failures.append(self.out_of_steps())
            return result
        if seeds is None:
            run = _Run(self, 0, "")
            run.run(self.sc.items)
            self.spent(run)
            result.failures.extend(run.failures)
            runs = [run]
        else:
            runs = []
            for seed in range(seeds.first, seeds.last + 1):
                if self.out_of_steps():
                    result.failures.append(self.out_of_steps())
                    break
                run = _Run(self, seed, f"seed {seed}: ")
                run.run(self.sc.items)
                self.spent(run)
                runs.append(run)
            result.failures.extend(_first_per_place(runs))
        for item in counted:
            held = sum(1 for r in runs if r.held.get(id(item)))
            looked = sum(1 for r in runs if id(item) in r.held)
            low = item.at_least if item.at_least is not None else 0
            high = item.at_most if item.at_most is not None else looked
            if not low <= held <= high:
                wanted = ("at least once" if item.at_least == 1 and item.at_most is None else
                          f"on {low} to {high} seeds" if item.at_least is not None
                          and item.at_most is not None else
                          f"on at least {low} seeds" if item.at_most is None else
                          f"on at most {high} seeds")
                message = item.message or "expectation failed"
                how = (f"it held on {held} of {looked} seeds" if looked else
                       "no seed came this far (each stopped at an earlier failure)")
                result.failures.append(Diagnostic(
                    "E0400", f"{message}: {how}, wanted {wanted}",
                    file=self.file, **span_fields(item.span)))
        return result


def _first_per_place(runs: list[_Run]) -> list[Diagnostic]:
    """Over several seeds, each failing place once: its first failure, and on how many seeds."""
    by_place: dict[tuple, list[Diagnostic]] = {}
    for run in runs:
        for d in run.failures:
            by_place.setdefault((d.line, d.column), []).append(d)
    out = []
    for failures in by_place.values():
        first = failures[0]
        if len(failures) > 1:
            first = Diagnostic(first.code, f"{first.message} (and on {len(failures) - 1} more "
                               "seeds)", file=first.file, line=first.line, column=first.column,
                               end_line=first.end_line, end_column=first.end_column,
                               hint=first.hint)
        out.append(first)
    return out


def run_scenarios(program: A.Program, file: str, rules_for: Callable[..., Rules],
                  limits: Limits | None = None) -> list[ScenarioResult]:
    """Run each scenario; `rules_for(ruleset, node, variants)` loads the rules it tests."""
    pool = [(limits or Limits()).max_file_steps]
    return [ScenarioRunner(sc, file, rules_for, limits, pool).run() for sc in program.scenarios]
