"""Pieces counted in holdings (`pieces K: n, starting in h`; `move n K from a to b`, written out
by ``statements.py`` with the checks here).

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


def check_owners(kind: str, owner, receiver, node) -> None:
    """Each player's pieces of a kind declared `per player` are their own."""
    if _seat(owner) != _seat(receiver):
        raise RuleError("E0308", f"each player's {kind} are their own: they cannot move from "
                        f"{show(owner)}'s `{_name(node.source)}` to {show(receiver)}'s "
                        f"`{_name(node.dest)}`", node,
                        "move them between two holdings of the same player")


def check_holding(kind: str, value, node, into: bool) -> None:
    """A holding holds a number of pieces."""
    if type(value) is not int:
        where = "puts into" if into else "takes from"
        raise RuleError("E0306", f"`move ... {kind}` {where} a holding of {kind}, not "
                        f"{type_name(value)}", node)


def count_to_move(kind: str, n, held: int, node) -> int:
    """How many pieces `move n K` (`move up to n K`) takes from a holding of `held`."""
    if type(n) is not int or n < 0:
        raise RuleError("E0306", f"`move ... {kind}` needs a number of pieces (0 or more), "
                        f"not {type_name(n)} `{show(n)}`", node)
    if node.amount == "up_to":
        return min(n, held)
    if n > held:
        raise RuleError("E0308", f"`{_name(node.source)}` holds fewer {kind} than the {n} to "
                        "move", node, f"write `move up to {n} {kind}` to move what there is")
    return n


def _name(target) -> str | None:
    """The variable a holding is written as (`money` for `p.money`)."""
    return getattr(target, "id", None) or getattr(target, "name", None)


def _seat(player) -> int | None:
    return player.seat if isinstance(player, Seat) else None
