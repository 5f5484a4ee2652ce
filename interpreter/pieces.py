"""Pieces counted in holdings (`pieces K: n, starting in h`; `move n K from a to b`).

A holding is a state variable holding a number of pieces of one kind. Every piece starts in the
holding its declaration names and only `move` changes a holding, taking from one what it adds to
the other, so the pieces of a kind always add up to the number declared: conservation holds by
construction, with nothing to check afterwards.
"""
from __future__ import annotations

from .errors import RuleError
from .values import Seat, show, type_name


def fill_holdings(m) -> None:
    """At the start of a game: every holding empty but the one each kind starts in, full."""
    st, rules = m.state, m.rules
    full: dict[str, int] = {}
    for decl, total in rules.code.pieces:
        n = total(m, {})
        if type(n) is not int or n < 0:
            raise RuleError("E0306", f"`pieces {decl.name}` needs a number of pieces (0 or more), "
                            f"not {type_name(n)} `{show(n)}`", decl)
        full[decl.name] = m.num(n, decl)
    for (scope, name), kind in rules.holdings.items():
        n = full[kind] if rules.pieces[kind].start == name else 0
        if scope == "global":
            st.globals[name] = n
        else:
            for seat in st.seats:
                seat.vars[name] = n


def move_pieces(m, op, env) -> None:
    """`move n K from a to b` (exactly n), `move up to n K ...` (what a holds, at most n),
    `move all K ...`: a loses what b gains."""
    node = op.node
    kind = node.pieces
    decl = m.rules.pieces.get(kind)
    if decl is None:  # `rulebook check` reports it (E0205)
        raise RuleError("E0311", f"no pieces are named `{kind}`", node,
                        f"declare them: `pieces {kind}: n, starting in ...`")
    if decl.per_player:
        owner, receiver = _owner(m, op.source, env), _owner(m, op.dest, env)
        if _seat(owner) != _seat(receiver):
            raise RuleError("E0308", f"each player's {kind} are their own: they cannot move from "
                            f"{show(owner)}'s `{op.source.name}` to {show(receiver)}'s "
                            f"`{op.dest.name}`", node,
                            "move them between two holdings of the same player")
    held = op.source.read(m, env)  # read as seen: how many move can tell what it holds
    if type(held) is not int:
        raise RuleError("E0306", f"`move ... {kind}` takes from a holding of {kind}, not "
                        f"{type_name(held)}", node)
    if op.count is None:
        n = held
    else:
        n = op.count(m, env)
        if type(n) is not int or n < 0:
            raise RuleError("E0306", f"`move ... {kind}` needs a number of pieces (0 or more), "
                            f"not {type_name(n)} `{show(n)}`", node)
        if op.up_to:
            n = min(n, held)
        elif n > held:
            raise RuleError("E0308", f"`{op.source.name}` holds fewer {kind} than the {n} to "
                            "move", node, f"write `move up to {n} {kind}` to move what there is")
    there = m.unwatched(op.dest.read, env)
    if type(there) is not int:
        raise RuleError("E0306", f"`move ... {kind}` puts into a holding of {kind}, not "
                        f"{type_name(there)}", node)
    if n == 0:
        return
    m.assign(op.source, held - n, env)
    there = m.unwatched(op.dest.read, env)  # read again after taking: a and b may be one
    m.assign(op.dest, m.num(there + n, node), env)


def _owner(m, target, env) -> Seat | None:
    """The player whose holding `p.x` is (None for a global holding)."""
    return m.unwatched(target.obj, env) if target.kind == "field" else None


def _seat(player) -> int | None:
    return player.seat if isinstance(player, Seat) else None
