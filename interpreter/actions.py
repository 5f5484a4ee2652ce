"""A stable action space: one integer per option that means the same thing in every state.

Option ids read `name:token:token` (``machine.option_token``): the option's name, then a token
per bound value. The ids are made from the ruleset's declarations, never from where a value
stands: each option name (with its number of bound values) owns a block of integers, and each
bound value is numbered within its *domain*, known before play from the binding's source and
type: an integer range whose ends the constants bound, the components of a record (catalogue rows
are fixed at load time), the enum's members, the seats, yes/no. A domain that cannot be bounded
before play (an integer range ending at a state value without a declared bound, a text) gets a
documented cap (`INT_CAP`, positions up to `POSITION_CAP`) and is listed in `ActionSpace.capped`;
an option outside its domain raises `ActionSpaceError` when it is met.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..grammar import ast as A
from .flow import DONE

INT_CAP = 127        # an integer binding no constant bounds is numbered in 0..INT_CAP
POSITION_CAP = 64    # a binding over values with no token of their own reads by position


class ActionSpaceError(ValueError):
    """An option whose bound values lie outside the domain declared for them."""


@dataclass
class Block:
    """The integers of one option name with a given number of bound values."""

    name: str
    offset: int
    domains: list[list[str]]                 # per bound value, its tokens in order
    index: list[dict[str, int]] = field(default_factory=list)

    def __post_init__(self):
        self.index = [{t: i for i, t in enumerate(d)} for d in self.domains]

    @property
    def size(self) -> int:
        n = 1
        for d in self.domains:
            n *= len(d)
        return n


class ActionSpace:
    """The actions of a ruleset for a player count: `size` integers, from the declarations."""

    def __init__(self, rules, players: int):
        from ..validator.semantic import _Checker

        self.rules, self.players = rules, players
        checker = _Checker(rules.program)
        checker.run()
        self._types = checker.option_envs
        self._consts = _const_values(rules, players)
        self.capped: list[str] = []           # bindings that got a cap instead of a bound
        shapes: dict[tuple[str, int], list[set[str] | list[str]]] = {}
        order: list[tuple[str, int]] = []
        for name, arity, domains in self._declared():
            key = (name, arity)
            if key not in shapes:
                shapes[key] = [[] for _ in range(arity)]
                order.append(key)
            for merged, domain in zip(shapes[key], domains):
                merged.extend(t for t in domain if t not in merged)
        self.blocks: dict[tuple[str, int], Block] = {}
        offset = 0
        for key in order:
            block = Block(key[0], offset, [list(d) for d in shapes[key]])
            self.blocks[key] = block
            offset += block.size
        self.size = offset
        self._by_offset = sorted(self.blocks.values(), key=lambda b: b.offset)

    # --------------------------------------------------------------------- the declarations
    def _declared(self):
        """(option name, arity, domains) of every option of every decision, and the options
        the engine adds (skip, done, start over)."""
        yield "skip", 0, []
        yield DONE, 0, []
        yield A.COMPOSE_START_OVER, 0, []
        for decision in self.rules.code.decisions:
            for opt in decision.options:
                yield opt.name, len(opt.node.bindings), [
                    self._domain(opt.name, b) for b in opt.node.bindings]

    def _domain(self, option: str, binding: A.Binding) -> list[str]:
        src = binding.source
        where = f"`{option}` binding `{binding.name}`"
        if isinstance(src, A.Binary) and src.op == "..":
            lo, hi = _interval(src.left, self), _interval(src.right, self)
            if lo is None or hi is None:
                self.capped.append(f"{where}: integers 0..{INT_CAP} (its range is not bounded "
                                   "by constants or declared bounds)")
                return [str(v) for v in range(0, INT_CAP + 1)]
            return [str(v) for v in range(lo[0], hi[1] + 1)]
        if isinstance(src, A.ListLit) and src.items:
            parts = [_interval(item, self) for item in src.items]
            if None not in parts:
                return _unique(str(v) for p in parts for v in range(p[0], p[1] + 1))
        ty = self._type_of(option, binding.name)
        rows = [] if ty is None or ty.kind != "record" else _unique(
            item.key or item.id for items in self.rules.tables.values()
            for item in items if item.record == ty.name)
        if rows:
            return rows
        if ty is not None and ty.kind == "enum":
            return [s.name for s in self.rules.enums.get(ty.name, ())]
        if ty is not None and ty.kind == "player":
            seats = self.players + len(self.rules.automata)
            return [f"p{k}" for k in range(1, seats + 1)]
        if ty is not None and ty.kind == "bool":
            return ["yes", "no"]
        if ty is not None and ty.kind == "int":
            self.capped.append(f"{where}: integers 0..{INT_CAP} (not a range of constants)")
            return [str(v) for v in range(0, INT_CAP + 1)]
        self.capped.append(f"{where}: positions 1..{POSITION_CAP} (values of type "
                           f"{ty or 'unknown'} have no token of their own)")
        return [str(v) for v in range(1, POSITION_CAP + 1)]

    def _type_of(self, option: str, name: str):
        kinds = {env.get(name) for env in self._types.get(option, ())} - {None}
        known = [t for t in kinds if t.known]
        return known[0] if len(known) == 1 else None

    # ------------------------------------------------------------------------ ids <-> actions
    def action_of(self, option_id: str) -> int:
        """The integer of an option id (copies of one option, `id~2`, share their integer)."""
        base, tilde, suffix = option_id.rpartition("~")
        if tilde and suffix.isdigit():
            option_id = base
        name, *tokens = option_id.split(":")
        block = self.blocks.get((name, len(tokens)))
        if block is None:
            raise ActionSpaceError(f"option `{option_id}` is not declared by the rules")
        action = 0
        for index, token in zip(block.index, tokens):
            k = index.get(token)
            if k is None:
                raise ActionSpaceError(
                    f"option `{option_id}`: `{token}` is outside the values declared for it "
                    f"({len(index)} values)")
            action = action * len(index) + k
        return block.offset + action

    def describe(self, action: int) -> str:
        """The option id an integer stands for (`name:token:...`)."""
        if not 0 <= action < self.size:
            raise ActionSpaceError(f"action {action} is outside 0..{self.size - 1}")
        block = next(b for b in reversed(self._by_offset) if b.offset <= action)
        rest, tokens = action - block.offset, []
        for domain in reversed(block.domains):
            rest, k = divmod(rest, len(domain))
            tokens.append(domain[k])
        return ":".join([block.name] + tokens[::-1])

    def legal(self, game) -> dict[int, str]:
        """The legal actions of the pending decision, each with the option id it plays (the
        first of several copies of one option), in increasing order."""
        out: dict[int, str] = {}
        for oid, _ in game.legal_options(bots=True, labels=False):
            out.setdefault(self.action_of(oid), oid)
        return dict(sorted(out.items()))


def _unique(tokens) -> list[str]:
    return list(dict.fromkeys(tokens))


def _const_values(rules, players: int) -> dict:
    """The constants' values for a player count (they may depend on it), from a started game
    when one starts; constants that cannot be worked out are left out."""
    from ..validator.diagnostics import DiagnosticError
    from .game import Game

    try:
        game = Game(rules, players, 0)
    except DiagnosticError:
        return {"player_count": players}
    values = {k: v for k, v in game.state.consts.items()
              if isinstance(v, int) and not isinstance(v, bool)}
    values["player_count"] = players
    values["__tables__"] = {k: len(v) for k, v in rules.tables.items()}
    values["__machine__"] = game.machine
    return values


def _interval(e, space: ActionSpace) -> tuple[int, int] | None:
    """Bounds of an integer expression known before play: literals, constants, the player count,
    the size of a table, declared bounds of state values, and arithmetic on those."""
    consts = space._consts
    if isinstance(e, A.IntLit):
        return e.value, e.value
    if isinstance(e, A.Name):
        if e.id in consts and not e.id.startswith("__"):
            return consts[e.id], consts[e.id]
        return _declared_bounds(space.rules.global_vars.get(e.id), space)
    if isinstance(e, A.FieldAccess):
        return _declared_bounds(space.rules.player_vars.get(e.name), space)
    if isinstance(e, A.Call) and e.func == "size" and len(e.args) == 1 \
            and isinstance(e.args[0], A.Name) and e.args[0].id in consts.get("__tables__", {}):
        n = consts["__tables__"][e.args[0].id]
        return n, n
    if isinstance(e, A.Call) and e.func in ("min", "max") and e.args:
        parts = [_interval(a, space) for a in e.args]
        if e.func == "min" and any(p is not None for p in parts):
            known = [p for p in parts if p is not None]
            lows = [p[0] for p in known] if len(known) == len(parts) else None
            return (min(lows) if lows else -2 ** 53), min(p[1] for p in known)
        if None in parts:
            return None
        return max(p[0] for p in parts), max(p[1] for p in parts)
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
        a, b = _interval(e.left, space), _interval(e.right, space)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if e.op == "-":
            return a[0] - b[1], a[1] - b[0]
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    return None


def _declared_bounds(decl, space: ActionSpace) -> tuple[int, int] | None:
    """`at least L at most H` of a state declaration, when both are known before play."""
    if decl is None or getattr(decl, "at_most", None) is None:
        return None
    hi = _interval(decl.at_most, space)
    lo = _interval(decl.at_least, space) if decl.at_least is not None else (-2 ** 53, 0)
    return (lo[0], hi[1]) if hi is not None and lo is not None else None


def max_game_length(limits) -> int:
    """Decisions a game can last at most: each decision costs `decision_steps` of the game's
    `max_steps` budget, so a game that goes on longer ends with E0301 (docs/agents.md)."""
    return limits.max_steps // limits.decision_steps
