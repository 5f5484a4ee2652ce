"""A game in progress: the state, where the flow stands, and the record of every decision.

All of it is data (``flow.py``, ``snapshot.py``): a copy is a copy of the state and the flow, a
save writes them (with the decisions that led there and a digest of it all), and a load reads
them back without replaying the game. Replaying the decisions from the seed stays available, to
check a save (``load(..., verify=True)``) and for `rulebook replay`; it is deterministic because
all randomness comes from the game's own generator (interpreter/rng.py), part of the state.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

from ..validator.diagnostics import Diagnostic, DiagnosticError
from ..validator.semantic import MAX_PLAYERS
from .errors import IllegalDecision, RuleError, to_diagnostic
from .evaluator import truth
from .explain import explain
from .flow import RoutineFrame, Signal, SimFrame
from .machine import CONTROL_SIGNALS, RECOMPUTE, Decision, Machine, statement_of
from .rng import Rng
from .rules import Rules
from .snapshot import BadSnapshot, copy_machine, read_game, write_game
from .state import DEFAULT_LIMITS, GameState, Limits
from .values import Seat, show, to_data

SAVE_FORMAT = "rulebook-save"
SAVE_VERSION = 6
# 1 and 2 hold decisions only, 3 also the game as data, digested alone: all three are replayed.
# 4 and 5 hold the game as data with a digest covering the decisions, the players and the seed
# as well, but their flow is the frames of earlier engines (4: each statement on its own; 5:
# frames per block, loop and decision): they are replayed and the state reached compared with
# the saved one. 6 (the same fields, the flow as routines' frames) is read as data.
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
REPLAYED_WITH_STATE = (4, 5)
MAX_SAVED_DECISIONS = 1_000_000
MAX_OPTION_ID = 10_000       # characters in one saved option id
# When the invariants are checked (docs/engine.md): after every decision, every invariant
# ("every") or those whose variables changed ("changed"); or at the end of each turn, those whose
# variables changed during it ("turn").
INVARIANT_MODES = ("changed", "every", "turn")
UNDO_DEPTH = 32              # decisions a game can take back without replaying (`undo`)
MAX_REMEMBERED = 10_000      # define values kept from one check of the invariants to the next


class AnsweredAtOnce:
    """Bots that choose by position (`picks`: seat -> pick(count) -> position) answer each
    decision where the rules ask it (``Machine.answer_now``): the routine that asks goes on
    without waiting, as if `Game.apply` had been called with the pick, which is what happens to
    the game (the step charged for asking, `pending_player`, the invariants, the history, the
    decision counted and logged). A decision is left to wait (False) when it is not the game's
    own stack asking (a part of `simultaneously`, a `given`), when an automaton decides, or
    once `limit` decisions were answered: then `play_out` answers it as any other."""

    __slots__ = ("game", "picks", "limit", "made")

    def __init__(self, game: "Game", picks: dict, limit: int):
        self.game, self.picks, self.limit, self.made = game, picks, limit, 0

    def ask(self, op, env: dict, stack: list, frame: RoutineFrame, label: int):
        """The decision a `choose` or `compose` (compiled: `op`) asks, as `Machine.decide`
        makes it, answered at once where it can be (True: the answer is in `frame.chosen`);
        else the Decision that waits, or None when nothing is legal. A `choose` answered at once
        in a game that keeps no log is never made a ``Decision``: its listed options are
        picked from as they are (the same steps, draws and record as `__call__`)."""
        game = self.game
        machine = game.machine
        if op.composed or machine.keeps_log or machine.watcher is not None \
                or stack is not machine.stack:
            decision = machine.decide(op, env)
            if decision is not None and self(decision, stack, frame, label):
                return True
            return decision
        asked = machine.choice(op, env)
        if asked is None:
            return None
        player, listed = asked
        if player.automaton is not None or self.made >= self.limit:
            return machine.decision_of(op, env, player, machine.prompt(op.prompt, env), listed)
        frame.at = label  # where it is asked, as when it waits (`statement_of` blames it)
        st = machine.state
        st.steps += machine.limits.decision_steps  # (`Machine.charge_decision`)
        if st.steps >= machine.next_check:
            machine.steps_checked(statement_of(frame))
        machine.pending_player = player
        if game.rules.code.invariants and (game.invariants != "turn"
                                           or st.turns != game._checked_turn):
            game._check_invariants(asking=True)
        seat = player.seat
        entry = listed[self.picks[seat](len(listed))]
        oid = entry[0]
        if oid is None:
            oid = entry[1].id_of(*entry[2])
        game.history.append({"player": seat, "option": oid})  # as `apply` records it
        game.revealed.append(None)
        st.decisions += 1  # (`RoutineFrame.answered`, with no log to write)
        frame.chosen = (entry, player)
        self.made += 1
        return True

    def __call__(self, decision: Decision, stack: list, frame: RoutineFrame, label: int) -> bool:
        game = self.game
        machine = game.machine
        player = decision.player
        if stack is not machine.stack or player.automaton is not None \
                or self.made >= self.limit:
            return False
        frame.at = label  # where it is asked, as when it waits (`statement_of` blames it)
        machine.charge_decision(frame)
        machine.pending_player = player
        if game.rules.code.invariants:
            game._check_invariants(asking=True)
        seat = player.seat
        entry, oid = decision.forward_entry(self.picks[seat](decision.forward_count()))
        game.history.append({"player": seat, "option": oid})  # as `apply` records it
        game.revealed.append(None)  # (never audited: `play_out` answers none where asked then)
        frame.answered(machine, decision, entry, oid)
        self.made += 1
        return True


class Game:
    def __init__(self, rules: Rules, players: int | None = None, seed: int = 0,
                 limits: Limits | None = None, ruleset_ref: str | None = None,
                 invariants: str = "changed", log: bool = True, _start: bool = True):
        n = rules.min_players if players is None else players
        if type(n) is not int or not (rules.min_players <= n <= rules.max_players) \
                or n > MAX_PLAYERS:
            span = "" if rules.min_players == rules.max_players else f" to {rules.max_players}"
            raise DiagnosticError([Diagnostic(
                "E0315", f"{rules.title} is for {rules.min_players}{span} players, not {n}",
                hint="choose a player count the game allows, or a variant for that count")])
        self.rules = rules
        self.players = n
        self.seed = seed
        self.limits = limits or DEFAULT_LIMITS
        self.ruleset_ref = ruleset_ref
        if invariants not in INVARIANT_MODES:
            raise ValueError(f"invariants must be one of {', '.join(INVARIANT_MODES)}")
        self.invariants = invariants
        self._checked_turn = -1  # the turn the invariants were last checked in ("turn" mode)
        # Invariants passed over while their `when` did not hold, though what they read changed:
        # checked at the first moment their `when` holds again.
        self._owed: set[str] = set()
        # The values of repeatable defines worked out by the last check of the invariants
        # (`Machine.standing_still`), by (define, arguments): given again at the next check when
        # nothing they read has changed since (`Code.define_reads`). A copy starts without.
        self._remembered: dict = {}
        self.history: list[dict] = []
        # Per decision of `history`: whether what followed it showed the decider anything hidden
        # from them (a read of such state, or a random draw); None when not audited.
        self.revealed: list[bool | None] = []
        self.audit_reveals = False
        self.error: Diagnostic | None = None
        self.pending: Decision | None = None
        self._before: list["Game"] = []  # the game before each of its last decisions (undo)
        self._keeps_log = log  # False: no log (docs/engine.md, The log)
        if _start:
            self.begin()

    def begin(self, state: GameState | None = None, answer_now=None) -> None:
        """Run the flow from the start (on `state`, by default a new one) to the first decision
        that waits: done at once unless the game was made with `_start=False`. `answer_now`
        answers decisions where they are asked (``AnsweredAtOnce``, given by `play_out`, so
        that the first decisions are answered there too); it stays installed."""
        self.machine = Machine(self.rules, state if state is not None else self.new_state(),
                               self.limits)
        self.machine.keeps_log = self._keeps_log
        self.machine.answer_now = answer_now
        self._advance(self.machine.start)

    def new_state(self) -> GameState:
        seats = [Seat(i + 1) for i in range(self.players)]
        for k, auto in enumerate(self.rules.automata):
            seats.append(Seat(self.players + k + 1, automaton=auto.name))
        return GameState(seats=seats, rng=Rng(self.seed))

    @property
    def state(self) -> GameState:
        return self.machine.state

    # ---------------------------------------------------------------------------- running
    @property
    def over(self) -> bool:
        return self.pending is None and self.error is None

    def _fail(self, err: RuleError) -> None:
        self.error = to_diagnostic(err)
        if self.error.file is None:  # raised outside any statement: name the game's file
            self.error = dataclasses.replace(self.error, file=self.rules.source_path)
        self.pending = None
        failure = DiagnosticError([self.error], self.rules.sources)
        failure.steps = self.machine.state.steps  # what was spent (scenarios share a budget)
        raise failure

    def _advance(self, step, *args) -> None:
        """Run the flow (by `step(*args)`) to the next decision a person or program must
        make: automata decide at once, by their rules."""
        machine = self.machine
        try:
            decision = step(*args)
            while decision is not None and decision.player.automaton is not None:
                machine.pending_player = decision.player
                decision = machine.resume(machine.automaton_choice(decision))
            self.pending = decision
            machine.pending_player = decision.player if decision is not None else None
        except RuleError as err:
            self._fail(err)
        except RecursionError:
            self._fail(RuleError("E0302", "the rules nest too deeply", None))
        except MemoryError:
            self._fail(out_of_memory(self.limits))
        except CONTROL_SIGNALS as signal:  # `stop` or `pass` with nothing around it to end
            self._fail(RuleError("E0306", f"`{signal.words}` has no loop or turn to end here",
                                 signal.node))
        if self.rules.code.invariants:
            self._check_invariants()

    def _check_invariants(self, asking: bool = False) -> None:
        """The invariants hold from the end of setup on (a setup that asks a question midway
        has dealt only part of the game). Called only when the rules have invariants, once the
        flow has come to the game's pending decision (or the end), or to a decision `asking`
        where it is answered at once."""
        machine = self.machine
        if not machine.set_up:
            return
        if self.invariants == "turn" and (asking or self.pending is not None) \
                and machine.state.turns == self._checked_turn:
            return  # still in the turn checked last: wait for its end
        self._checked_turn = machine.state.turns
        touched, machine.touched = machine.touched, set()
        if self.invariants == "every":
            touched = None
        memo = self._still_holding(touched)
        watcher, machine.watcher = machine.watcher, None  # checks show nobody anything
        # Checking leaves no trace in the game (its steps, structures made, random draws), so
        # that how often invariants are checked never changes the game itself.
        try:
            machine.traceless(self._check_each, machine, touched, memo)
        finally:
            machine.watcher = watcher
        self._remembered = memo

    def _still_holding(self, touched: set[str] | None) -> dict:
        """The values the last check worked out whose defines read nothing of `touched` (the
        variables changed since; None: unknown which)."""
        if touched is None or not self._remembered or len(self._remembered) > MAX_REMEMBERED:
            return {}
        reads = self.rules.code.define_reads
        return {key: hit for key, hit in self._remembered.items()
                if (read := reads.get(key[0])) is not None and read.isdisjoint(touched)}

    def _check_each(self, machine, touched, memo: dict) -> None:
        """The invariants due (``Generator.invariants``), checked while the state stands still
        (`memo`: see `_still_holding`): nothing they read has changed since they last held, or
        they are owed."""
        code = self.rules.code
        try:
            failed = machine.standing_still(code.check_invariants, machine, touched, self._owed,
                                            memo=memo)
            if failed is None:
                return
            at, value = failed
            inv = code.invariants[at][0]
            truth(value, inv.test)  # (raises: not yes or no)
        except RuleError as err:
            self._fail(err)
        detail = explain(machine, inv.test, {})
        self._fail(RuleError("E0313", f"invariant `{inv.name}` does not hold: "
                             f"{inv.description}{detail}", inv))

    # -------------------------------------------------------------------------- decisions
    def legal_options(self, bots: bool = False,
                      labels: bool = True) -> list[tuple[str, str | None]]:
        """(id, label) of every legal option of the pending decision, or [] when none. With
        `bots`, without `start_over` of a composed decision while another option is legal:
        what a bot chooses among, so that it always finishes the decision. Without `labels`,
        (id, None): labels are worked out only when read."""
        pending = self.pending
        if pending is None:
            return []
        if not labels:
            return pending.id_pairs(bots)
        options = pending.forward_options() if bots else pending.options
        return list(zip([o.id for o in options], self.labels(options)))

    def labels(self, options) -> list[str]:
        """How options read, worked out now (OptionInstance): a label the rules cannot work out
        ends the game with its located error, as any rule that fails."""
        try:
            return [o.label for o in options]
        except RuleError as err:
            self._fail(err)

    def pending_seat(self) -> int | None:
        return self.pending.player.seat if self.pending else None

    def resolve(self, option: str) -> str:
        """An option id from an id or an exact label."""
        if self.pending is None:
            raise IllegalDecision("the game is over; there is nothing to decide")
        if not isinstance(option, str):
            raise IllegalDecision(f"a decision is an option id (text), not {option!r}")
        if self.pending.has(option):
            return option
        options = self.pending.options
        by_label = [o.id for o, label in zip(options, self.labels(options)) if label == option]
        if len(by_label) == 1:
            return by_label[0]
        if by_label:
            raise IllegalDecision(f"`{option}` is the label of {len(by_label)} options, so it "
                                  "does not say which one", hint="choose one by its id: "
                                  + ", ".join(by_label[:12]))
        shown = ", ".join(self.pending.ids[:12])
        more = "" if len(self.pending) <= 12 else ", ..."
        raise IllegalDecision(f"`{option}` is not a legal option now",
                              hint=f"legal options: {shown}{more}")

    def apply(self, option: str, player: int | None = None) -> None:
        """Make the pending decision. An illegal one raises IllegalDecision; nothing changes."""
        if self.error is not None:
            raise DiagnosticError([self.error], self.rules.sources)
        pending = self.pending
        if player is not None and pending is not None and player != pending.player.seat:
            self.asking(player).resolve(option)  # refused on a copy: this game stays as it is
            self._ask_first(player)
            pending = self.pending
        oid = option if pending is not None and type(option) is str and pending.has(option) \
            else self.resolve(option)
        seat = pending.player.seat
        if self.audit_reveals:  # play keeps what undo needs, without replaying
            self._before = (self._before + [self.clone()])[-UNDO_DEPTH:]
        self.history.append({"player": seat, "option": oid})
        if not self.audit_reveals:
            self.revealed.append(None)
            self._advance(self.machine.resume, oid)
            return
        machine = self.machine
        machine.watch(seat)
        try:
            self._advance(lambda: machine.resume(oid))
        finally:
            self.revealed.append(machine.saw_hidden)
            machine.watch(None)

    def waiting_seats(self) -> list[int]:
        """The players who may decide now: the pending one, and in a round of simultaneous
        decisions every player still to answer (any of them may answer first)."""
        if self.pending is None:
            return []
        frame = self.machine.stack[-1] if self.machine.stack else None
        if isinstance(frame, SimFrame):
            return [p.seat for p in frame.unanswered()]
        return [self.pending.player.seat]

    def asking(self, seat: int) -> "Game":
        """A copy of the game whose pending decision is `seat`'s (see `waiting_seats`); raises
        IllegalDecision when `seat` has nothing to decide now."""
        copy = self.clone()
        if copy.pending is not None and copy.pending.player.seat != seat:
            copy._ask_first(seat)
        return copy

    def _ask_first(self, player: int) -> None:
        """Make `player`'s decision of a simultaneous round the pending one (IllegalDecision
        when they have none now: the game may then have run on, so callers try on a copy)."""
        machine = self.machine
        frame = machine.stack[-1] if machine.stack else None
        target = next((s for s in machine.state.seats if s.seat == player), None)
        if not (isinstance(frame, SimFrame) and target and frame.ask_first(target)):
            raise IllegalDecision(f"it is player {self.pending.player.seat}'s decision, not "
                                  f"player {player}'s")
        try:
            decision = frame.run(machine, machine.stack)  # the decision now asked first
        except RuleError as err:
            self._fail(err)
        if decision is None or decision.player is not target:
            # a `given` left that part nothing to choose: it went on without its decision
            raise IllegalDecision(f"player {player} has nothing to decide now")
        self.pending, machine.pending_player = decision, decision.player

    def last_decision_revealed(self) -> bool:
        """Whether undoing the last decision would unsee something: what followed it read state
        hidden from its decider, or drew at random into what they see (or it was not audited,
        so it may have)."""
        return not self.revealed or self.revealed[-1] is not False

    def given(self, stmts: list, env: dict | None = None) -> None:
        """Change the state by statements (scenario tests), with the names of `env` (a scenario's
        `let`s); the invariants are checked at the end and the pending options recomputed."""
        if self.error is not None:
            raise DiagnosticError([self.error], self.rules.sources)
        machine = self.machine
        names = dict(env or {})
        gen = self.rules.code.gen
        routine = gen.routine(stmts, frozenset(names), None, registry=[])
        gen.flush()
        stack = [RoutineFrame(routine, names, 0)]
        try:
            decision = machine.run(stack)
            if decision is not None:
                raise RuleError("E0306", "a `given` block cannot ask for decisions",
                                decision.node)
        except RuleError as err:
            self._fail(err)
        except CONTROL_SIGNALS as signal:
            self._fail(RuleError("E0306", f"`{signal.words}` cannot be used in a `given` block: "
                                 "it sets the state, it does not play", signal.node))
        except RecursionError:
            self._fail(RuleError("E0302", "the rules nest too deeply", None))
        except MemoryError:
            self._fail(out_of_memory(self.limits))
        # Kept in memory only (saves hold decisions, copies the state itself).
        self.history.append({"given": list(stmts), "env": dict(env or {})})
        self.revealed.append(None)
        self.machine.touched = None  # a given state must still be one the rules allow
        self._checked_turn = -1
        if self.rules.code.invariants:
            self._check_invariants()
        if self.pending is not None:
            self._advance(lambda: machine.resume(RECOMPUTE))

    # --------------------------------------------------------------------- copy and save
    def clone(self) -> "Game":
        """An independent copy at the same point: a copy of the state and of the flow."""
        game = self._empty_like()
        game.machine = copy_machine(self.machine, self.rules, self.limits)
        game.history = list(self.history)
        game.revealed = list(self.revealed)
        game.audit_reveals = self.audit_reveals
        game.error = self.error
        game._before = list(self._before)
        game._checked_turn = self._checked_turn
        game._owed = set(self._owed)
        game._pending_from_flow(self.pending)
        return game

    def _empty_like(self) -> "Game":
        return Game(self.rules, self.players, self.seed, self.limits, self.ruleset_ref,
                    self.invariants, _start=False)

    def _pending_from_flow(self, was) -> None:
        """After a copy or a load: the decision the flow waits for."""
        if was is None:
            self.pending = None
            self.machine.pending_player = None
            return
        frame = self.machine.waiting_frame()
        self.pending = frame.decision if frame is not None else None
        self.machine.pending_player = self.pending.player if self.pending else None

    def undo(self) -> "Game":
        """The game as it was before the last decision (kept while play audits reveals; else
        the decisions are replayed from the seed)."""
        if not self.history:
            raise IllegalDecision("there is nothing to undo")
        if self._before and len(self._before[-1].history) == len(self.history) - 1:
            game = self._before[-1].clone()
            game._before = self._before[:-1]
            return game
        game = Game.replay(self.rules, self.players, self.seed, self.history[:-1], self.limits,
                           self.ruleset_ref)
        game.revealed = self.revealed[:-1]
        game.audit_reveals = self.audit_reveals
        return game

    @classmethod
    def replay(cls, rules: Rules, players: int, seed: int, history: list[dict],
               limits: Limits | None = None, ruleset_ref: str | None = None) -> "Game":
        game = cls(rules, players, seed, limits, ruleset_ref)
        for entry in history:
            if "given" in entry:
                game.given(entry["given"], entry.get("env"))
            else:
                game.apply(entry["option"], entry.get("player"))
        return game

    def digest(self, flow: dict | None = None) -> str:
        """A hash of the whole game as data: its state, where its flow stands (`flow`, when
        already written), and the players, seed and decisions that led there (so that no part
        of a save can be changed alone)."""
        if flow is None:
            flow = write_game(self.machine)
        return _digest({"game": flow, "history": self.history, "players": self.players,
                        "seed": self.seed})

    def state_written(self) -> dict:
        """The state alone, as a save writes it (JSON data)."""
        return json.loads(json.dumps(write_game(self.machine)["state"]))

    def game_digest(self) -> str:
        """A hash of the state and flow alone (what saves of version 3 recorded)."""
        data = json.dumps(write_game(self.machine), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    def state_digest(self) -> str:
        """A hash of the state alone (what saves of versions 1 and 2 recorded)."""
        data = json.dumps(state_data(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    def save(self) -> dict:
        """The game as data: what it is (rules, players, seed), the decisions made, the state
        and the flow they led to, and a digest of it all. A save is data, never code. It
        reveals the whole game (the seed fixes every shuffle)."""
        if any("given" in entry for entry in self.history):
            raise DiagnosticError([Diagnostic(
                "E0314", "a game whose state a scenario set with `given` cannot be saved",
                hint="saves hold the decisions of a game played from its start")])
        try:
            flow = write_game(self.machine)  # reads the waiting decision's labels
        except RuleError as err:
            self._fail(err)
        return {
            "format": SAVE_FORMAT, "version": SAVE_VERSION, "ruleset": self.ruleset_ref,
            "title": self.rules.title, "rules_fingerprint": self.rules.fingerprint,
            "declarations": dict(self.rules.declaration_prints),
            "players": self.players, "seed": self.seed, "history": self.history,
            "game": flow, "digest": self.digest(flow),
        }

    @classmethod
    def load(cls, data, rules: Rules, limits: Limits | None = None,
             accept_changed_rules: bool = False, verify: bool = False) -> "Game":
        """A game from a save: read back as data (version 6), or the decisions replayed under
        `rules` (versions 1 to 5, or `verify`, which also checks that the decisions lead to
        the saved game). Refused when the save is malformed, has no digest or a wrong one, or
        was made under other rules (unless `accept_changed_rules`, which replays the decisions
        under the new rules anyway)."""
        problem = _save_problem(data)
        if problem:
            raise DiagnosticError([Diagnostic("E0314", f"not a valid save: {problem}",
                                              hint="save files are written by `rulebook play`")])
        if data["rules_fingerprint"] != rules.fingerprint and not accept_changed_rules:
            raise DiagnosticError([Diagnostic(
                "E0317", "the rules changed since this game was saved: "
                + _changes(data.get("declarations"), rules.declaration_prints),
                hint="load it with the rules it was saved with, or pass "
                     "--accept-changed-rules to continue under the new rules")])
        if data["version"] == SAVE_VERSION and not (verify or accept_changed_rules):
            return cls._read(data, rules, limits)
        try:
            game = cls.replay(rules, data["players"], data["seed"], data["history"], limits,
                              data.get("ruleset"))
        except IllegalDecision as e:
            raise DiagnosticError([Diagnostic(
                "E0314", f"the saved decisions do not replay: {e.message}",
                hint="the save was changed, or the rules changed since it was made")])
        rules_changed = data["rules_fingerprint"] != rules.fingerprint
        if data["version"] in REPLAYED_WITH_STATE or data["version"] == SAVE_VERSION:
            # the saved game, reached again (see above): its state alone when its flow is an
            # earlier engine's; but for its count of steps, the engine's measure of its own
            # work, which engines have counted differently (a log line's work was the game's)
            whole = data["version"] == SAVE_VERSION
            reached = json.loads(json.dumps(write_game(game.machine)))
            same = _digest({"game": data["game"], "history": data["history"],
                            "players": data["players"], "seed": data["seed"]}) \
                == data["digest"] and _but_steps(reached, whole) == _but_steps(data["game"], whole)
            recorded = data["digest"] if same else None
        else:
            recorded = {3: game.game_digest}.get(data["version"], game.state_digest)()
        if data["digest"] != recorded and not (accept_changed_rules and rules_changed):
            raise DiagnosticError([Diagnostic(
                "E0314", "the save does not replay to the state it recorded",
                hint="the save was changed after it was written")])
        return game

    @classmethod
    def _read(cls, data, rules: Rules, limits: Limits | None) -> "Game":
        game = cls(rules, data["players"], data["seed"], limits, data.get("ruleset"),
                   _start=False)
        try:
            game.machine = read_game(data["game"], rules, game.limits, game.new_state().seats)
            game.history = list(data["history"])
            game.revealed = [None] * len(game.history)
            frame = game.machine.waiting_frame()
            game.pending = None
            if frame is not None and getattr(frame, "decision", None) is not None:
                game.pending = frame.decision
                game.machine.pending_player = game.pending.player
            elif game.machine.stack:
                raise BadSnapshot("a game that waits for no decision and is not over")
        except (BadSnapshot, KeyError, TypeError, ValueError, AttributeError, RecursionError) as e:
            why = str(e) if isinstance(e, BadSnapshot) else f"{type(e).__name__}: {e}"
            raise DiagnosticError([Diagnostic("E0314", f"not a valid save: {why[:200]}",
                                              hint="save files are written by `rulebook play`")])
        if data["digest"] != game.digest():
            raise DiagnosticError([Diagnostic(
                "E0314", "the save does not hold the game its digest recorded",
                hint="the save was changed after it was written")])
        return game

    # ------------------------------------------------------------------------------ results
    def scores(self) -> dict[int, object]:
        """Each seat's value of the first winner key (the score), after the game."""
        w = self.rules.code.winner
        out = {}
        if w is None or w[2] is None:  # no winner line, or its first key no score
            return out
        _, _, key, name, _ = w
        for seat in self.state.seats:
            try:
                out[seat.seat] = key(self.machine, {name: seat})
            except RuleError:
                out[seat.seat] = None
        return out


def out_of_memory(limits: Limits) -> RuleError:
    limit = f" (limit {limits.max_memory // 2 ** 20:,} MiB)" if limits.max_memory else ""
    return RuleError("E0316", f"the game ran out of memory{limit}", None,
                     "the rules build too much; `--max-memory` raises the limit")


def _digest(data) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _save_problem(data) -> str | None:
    """What makes `data` something other than a save (None when it is one)."""
    if not isinstance(data, dict):
        return "it is not a JSON object"
    if data.get("format") != SAVE_FORMAT:
        return f"its format is not {SAVE_FORMAT!r}"
    if data.get("version") not in READABLE_VERSIONS:
        return (f"version {str(data.get('version'))[:20]!r} is not one this rulebook reads "
                f"({', '.join(map(str, READABLE_VERSIONS))})")
    players, seed = data.get("players"), data.get("seed")
    if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
        return f"players must be a whole number from 1 to {MAX_PLAYERS}"
    if type(seed) is not int or not -2 ** 64 < seed < 2 ** 64:
        return "seed must be a whole number (64 bits at most)"
    digest = data.get("digest")
    if not isinstance(digest, str) or len(digest) != 64:
        return "it has no digest of its state (saves without one are not trusted)"
    if not isinstance(data.get("rules_fingerprint"), str):
        return "it does not say which rules it was made with (rules_fingerprint)"
    if data.get("version") in (3, 4, 5, 6) and not isinstance(data.get("game"), dict):
        return "it does not hold the game it saved"
    history = data.get("history")
    if not isinstance(history, list):
        return "history must be a list"
    if len(history) > MAX_SAVED_DECISIONS:
        return f"it holds more than {MAX_SAVED_DECISIONS:,} decisions"
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or set(entry) != {"player", "option"}:
            return (f"history entry {i + 1} is not a decision "
                    '(`{"player": N, "option": "id"}` and nothing else)')
        if type(entry["player"]) is not int or not isinstance(entry["option"], str) \
                or len(entry["option"]) > MAX_OPTION_ID:
            return f"history entry {i + 1} is not a decision of a player by an option id"
    return None


def _but_steps(game: dict, whole: bool) -> dict:
    """A saved game (`write_game`'s data) without its count of steps; its state alone unless
    `whole`."""
    state = game.get("state")
    state = {k: v for k, v in state.items() if k != "steps"} if isinstance(state, dict) else state
    return {**game, "state": state} if whole else {"state": state}


def _changes(saved, now: dict[str, str]) -> str:
    """The declarations that differ between a save's prints and the rules' (for messages)."""
    if not isinstance(saved, dict):
        return "the save predates per-declaration records, so what changed is not known"
    names = sorted(k for k in set(saved) | set(now) if saved.get(k) != now.get(k))
    shown = ", ".join(
        f"{k} ({'added' if k not in saved else 'removed' if k not in now else 'changed'})"
        for k in names[:8])
    more = f" and {len(names) - 8} more" if len(names) > 8 else ""
    return (shown + more) if names else "its record of the rules does not match"


def state_data(game: Game) -> dict:
    """The complete state as plain data (for digests and debugging; not a player's view)."""
    st = game.state
    return {
        "globals": {k: to_data(v) for k, v in st.globals.items()},
        "players": [{"seat": s.seat, "vars": {k: to_data(v) for k, v in s.vars.items()}}
                    for s in st.seats],
        "rng": st.rng.state, "round": st.round, "phase": st.phase, "over": st.over,
        "winners": [s.seat for s in st.winners], "log": st.log, "clock": st.clock,
    }


__all__ = ["Game", "state_data", "show", "Signal"]
