"""Run scenario tests written in the rules language (``scenario "..." { ... }``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..grammar import ast as A
from ..validator.diagnostics import Diagnostic, DiagnosticError, span_fields
from .agents import FirstAgent, RandomAgent, play_out
from .errors import IllegalDecision, RuleError, to_diagnostic
from .evaluator import truth
from .game import Game
from .rules import Rules
from .state import Limits
from .values import Seat, show


@dataclass
class ScenarioResult:
    name: str
    file: str
    line: int | None
    failures: list[Diagnostic] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


class _Failed(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


class ScenarioRunner:
    def __init__(self, scenario: A.Scenario, file: str, rules_for: Callable[..., Rules],
                 limits: Limits | None = None):
        self.sc = scenario
        self.file = file
        self.rules_for = rules_for
        self.limits = limits
        self.ruleset: str | None = None
        self.ruleset_node = None
        self.players: int | None = None
        self.seed = 0
        self.game: Game | None = None
        self.last_error: Diagnostic | None = None

    # ------------------------------------------------------------------------- helpers
    def fail(self, node, message: str, hint: str | None = None):
        raise _Failed(Diagnostic("E0400", message, file=self.file, hint=hint,
                                 **span_fields(node.span)))

    def ensure_game(self, node) -> Game:
        if self.game is None:
            try:
                rules = self.rules_for(self.ruleset, self.ruleset_node)
                self.game = Game(rules, self.players, self.seed, self.limits,
                                 ruleset_ref=rules.source_path)
            except DiagnosticError as e:
                d = e.diagnostics[0]
                self.fail(node, f"the game could not start: {d.located()}: {d.message}", d.hint)
        if self.last_error is not None:
            d = self.last_error
            self.fail(node, f"the game stopped with an error: {d.located()}: {d.message}", d.hint)
        return self.game

    def evaluate(self, expr, node):
        game = self.ensure_game(node)
        try:
            return game.machine.eval(expr, {})
        except RuleError as e:
            d = to_diagnostic(e, lambda n: self.file)
            self.fail(node, f"cannot evaluate: {d.message}", d.hint)

    def seat_of(self, expr, node) -> Seat:
        p = self.evaluate(expr, node)
        if not isinstance(p, Seat):
            self.fail(node, f"expected a player, got `{show(p)}`")
        return p

    # --------------------------------------------------------------------------- items
    def run(self) -> ScenarioResult:
        result = ScenarioResult(self.sc.name, self.file, self.sc.span.line if self.sc.span else None)
        try:
            for item in self.sc.items:
                getattr(self, item.kind)(item)
            if self.last_error is not None:
                d = self.last_error
                raise _Failed(Diagnostic("E0400", f"the game stopped with an error: "
                                         f"{d.located()}: {d.message}", file=self.file,
                                         hint=d.hint, **span_fields(self.sc.span)))
        except _Failed as f:
            result.failures.append(f.diagnostic)
        return result

    def sc_ruleset(self, item):
        self.ruleset, self.ruleset_node = item.path, item

    def sc_players(self, item):
        self.players = item.count

    def sc_seed(self, item):
        self.seed = item.seed

    def sc_given(self, item):
        game = self.ensure_game(item)
        try:
            game.given(item.body)
        except DiagnosticError as e:
            d = e.diagnostics[0]
            self.fail(item, f"`given` failed: {d.message}", d.hint)

    def _decide(self, item):
        game = self.ensure_game(item)
        if game.pending is None:
            self.fail(item, "the game is over; there is no decision to make")
        seat = self.seat_of(item.player, item)
        if game.pending.player is not seat:
            self.fail(item, f"it is {show(game.pending.player)}'s decision, not {show(seat)}'s",
                      f"pending: {game.pending.prompt}")
        return game, seat

    def sc_choose(self, item):
        game, seat = self._decide(item)
        try:
            game.apply(item.option, seat.seat)
        except IllegalDecision as e:
            self.fail(item, e.message, e.hint)
        except DiagnosticError as e:
            self.last_error = e.diagnostics[0]

    def sc_refuse(self, item):
        game, seat = self._decide(item)
        before = game.digest()
        try:
            game.apply(item.option, seat.seat)
        except IllegalDecision:
            if game.digest() != before:
                self.fail(item, "the refused decision changed the state")
            return
        except DiagnosticError as e:
            d = e.diagnostics[0]
            self.fail(item, f"`{item.option}` was accepted but should be refused (the game then "
                      f"stopped: {d.located()}: {d.message})")
        self.fail(item, f"`{item.option}` was accepted but should be refused")

    def sc_expect(self, item):
        value = self.evaluate(item.test, item)
        try:
            ok = truth(value, item.test)
        except RuleError as e:
            self.fail(item, e.message)
        if not ok:
            detail = _explain(self, item.test)
            msg = item.message or "expectation failed"
            self.fail(item, f"{msg}{detail}")

    def sc_expect_option(self, item):
        game = self.ensure_game(item)
        seat = self.seat_of(item.player, item)
        ids = [o.id for o in game.pending.options] if (
            game.pending is not None and game.pending.player is seat) else []
        labels = [o.label for o in game.pending.options] if ids else []
        present = item.option in ids or item.option in labels
        if present != item.present:
            shown = ", ".join(ids[:15]) or "none"
            why = f"{item.message}: " if item.message else ""
            if item.present:
                self.fail(item, f"{why}`{item.option}` is not a legal option for {show(seat)}",
                          f"legal options: {shown}")
            self.fail(item, f"{why}`{item.option}` is a legal option for {show(seat)} but should "
                      "not be")

    def sc_expect_log(self, item):
        game = self.ensure_game(item)
        lines = game.state.log
        reader = ""
        if item.to is not None:
            seat = self.seat_of(item.to, item).seat
            lines = [e for e in lines if e["to"] is None or seat in e["to"]]
            reader = f" that player {seat} may read"
        if not any(item.text in e["text"] for e in lines):
            tail = " | ".join(e["text"] for e in lines[-5:])
            self.fail(item, f"no log line{reader} contains `{item.text}`", f"last lines: {tail}")

    def sc_expect_error(self, item):
        if self.last_error is None:
            self.fail(item, f"expected the game to stop with an error containing `{item.text}`")
        if item.text not in self.last_error.message:
            self.fail(item, f"the error was `{self.last_error.message}`, not `{item.text}`")
        self.last_error = None

    def sc_expect_visibility(self, item):
        from .view import can_see

        game = self.ensure_game(item)
        viewer = self.seat_of(item.viewer, item)
        try:
            owner, name = game.machine.var_key(item.target, {})
        except RuleError as e:
            self.fail(item, e.message, "write a state variable such as `x` or `players[1].x`")
        seen = can_see(game, viewer.seat, owner, name)
        if seen != item.visible:
            what = "sees" if seen else "does not see"
            why = f"{item.message}: " if item.message else ""
            self.fail(item, f"{why}{show(viewer)} {what} `{name}`"
                      + (f" of player {owner}" if owner else ""))

    def sc_play_to_end(self, item):
        game = self.ensure_game(item)
        if item.agent not in ("random", "first"):
            self.fail(item, f"unknown agent `{item.agent}`", "use `random` or `first`")
        agents = {s.seat: (RandomAgent(self.seed * 1000 + s.seat) if item.agent == "random"
                           else FirstAgent()) for s in game.state.seats}
        try:
            play_out(game, agents)
        except DiagnosticError as e:
            self.last_error = e.diagnostics[0]


def _explain(runner: ScenarioRunner, test) -> str:
    """For `a == b` style expectations, say what each side was."""
    if getattr(test, "kind", None) == "binary" and test.op in ("==", "!=", "<", "<=", ">", ">="):
        game = runner.game
        try:
            left = game.machine.eval(test.left, {})
            right = game.machine.eval(test.right, {})
        except RuleError:
            return ""
        return f": left side is `{show(left)}`, right side is `{show(right)}`"
    return ""


def run_scenarios(program: A.Program, file: str, rules_for: Callable[..., Rules],
                  limits: Limits | None = None) -> list[ScenarioResult]:
    """Run each scenario; `rules_for(ruleset, node)` loads the ruleset a scenario names."""
    return [ScenarioRunner(sc, file, rules_for, limits).run() for sc in program.scenarios]
