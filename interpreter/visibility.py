"""Who may see a state variable: the one rule every view, log and audit of reveals applies."""
from __future__ import annotations


def can_see(state, rules, viewer: int | None, owner: int, name: str, reveals=None) -> bool:
    """Whether seat `viewer` (None: a spectator) sees variable `name` of `owner` (0: global),
    by the state's reveals or by the `reveals` given (those of an earlier moment)."""
    reveal = (state.reveals if reveals is None else reveals).get((owner, name))
    if reveal == "all" or (reveal and viewer in reveal):
        return True
    decl = (rules.global_vars if owner == 0 else rules.player_vars).get(name)
    if decl is None or decl.visibility == "public":
        return True
    if decl.visibility == "owner":
        return owner != 0 and viewer == owner
    return False


def shape_seen(decl, value) -> bool:
    """Whether who may not see a value still sees its shape: where it holds something (a list's
    size, a grid's occupied cells, a map's keys, whether it is none), never what. `shape public`
    or `shape secret` says so; by default a list or deck shows its size and nothing else shows."""
    shape = getattr(decl, "shape", None)
    if shape is not None:
        return shape == "public"
    return isinstance(value, list)
