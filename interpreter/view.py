"""What one player may see. Every view, log excerpt and saved view goes through here."""
from __future__ import annotations

from .game import Game
from .values import Grid, holds_something, to_data
from .visibility import can_see as visible
from .visibility import shape_seen


def can_see(game: Game, viewer: int | None, owner: int, name: str) -> bool:
    return visible(game.state, game.rules, viewer, owner, name)


def _hidden(value, decl=None, describe=None) -> dict:
    """What a player who may not see a value sees of it: that it is hidden and, when its shape
    is seen (docs/language.md, Visibility), where it holds something, never what."""
    if not shape_seen(decl, value):
        return {"hidden": True}
    if isinstance(value, list):
        top = getattr(decl, "public_top", None)
        if top:  # `top N public`: the first N elements lie face up
            return {"hidden": True, "size": len(value),
                    "top": [render(v, describe) for v in value[:top]]}
        return {"hidden": True, "size": len(value)}
    if isinstance(value, Grid):  # which cells hold something, a row a list
        occupied = [[value.cells[value.at(r, c)] is not None for c in range(1, value.columns + 1)]
                    for r in range(1, value.rows + 1)]
        return {"hidden": True, "size": sum(map(sum, occupied)), "occupied": occupied}
    if isinstance(value, dict):  # the keys that hold a value
        return {"hidden": True, "size": len(value), "keys": [render(k, describe) for k in value]}
    return {"hidden": True, "present": value is not None}


def render(value, describe=None):
    """Plain data for a visible value; components show their printed fields and how they read."""
    return to_data(value, printed=True, describe=describe)


def view(game: Game, viewer: int | None) -> dict:
    """The game as seat `viewer` sees it (None: a spectator who sees only public information)."""
    st, rules = game.state, game.rules
    describe = _describer(game)
    globals_ = {}
    for name, decl in rules.global_vars.items():
        value = st.globals.get(name)
        if decl.kind == "component_state":  # each component with its state, while it holds some
            value = {item: v for item, v in value.items() if holds_something(v)}
        globals_[name] = (render(value, describe) if can_see(game, viewer, 0, name)
                          else _hidden(value, decl, describe))
    players = []
    for seat in st.seats:
        vars_ = {}
        for name, decl in rules.player_vars.items():
            value = seat.vars.get(name)
            shown = can_see(game, viewer, seat.seat, name)
            vars_[name] = render(value, describe) if shown else _hidden(value, decl, describe)
        players.append({"seat": seat.seat, "automaton": seat.automaton, "vars": vars_})
    log = [e["text"] for e in st.log if e["to"] is None or viewer in e["to"]]
    pending = None
    if game.pending is not None:
        mine = game.pending.player.seat == viewer
        pending = {
            "player": game.pending.player.seat,
            "prompt": game.pending.prompt if (mine or not game.pending.secret) else None,
            "secret": game.pending.secret,
            "options": [{"id": o.id, "label": label} for o, label in
                        zip(game.pending.options, game.labels(game.pending.options))]
            if mine else None,
            # a `compose`'s preview: what the decider's choices so far make, to them only
            "showing": _preview(game, describe) if mine else None,
        }
    decls = [*rules.global_vars.values(), *rules.player_vars.values()]
    return {
        "title": rules.title, "viewer": viewer, "round": st.round, "turn": st.turns,
        "phase": None if game.over else st.phase,
        "current_player": st.current.seat if st.current else None,
        "over": game.over, "winners": [s.seat for s in st.winners] if game.over else [],
        # where a broken rule stopped the game, not its message: messages may name hidden values
        "error": f"{game.error.code} at {game.error.located()}" if game.error else None,
        "globals": globals_, "players": players, "pending": pending, "log": log,
        # how the table lays the state out (docs/language.md, Global and player state)
        "shown": sorted({d.name for d in decls if d.shown}),
        "sorted": sorted({d.name for d in decls if d.sorted}),
        "internal": sorted({d.name for d in decls if d.internal}),
    }


def _preview(game: Game, describe) -> list | dict | None:
    """What a waiting `compose` shows its decider; a rule error reads as its code and place."""
    from .errors import RuleError, to_diagnostic

    try:
        values = game.machine.preview()
    except RuleError as err:  # its place, not its message: messages may name hidden values
        return {"error": f"{err.code} at {to_diagnostic(err).located()}"}
    return None if values is None else [render(v, describe) for v in values]


def _describer(game: Game):
    """How a structure reads (its record's `show`), or None; errors read as the record's name."""
    from .errors import RuleError

    if not any(r.show is not None for r in game.rules.records.values()):
        return None

    def describe(struct):
        steps = game.state.steps
        try:
            return game.machine.describe(struct)
        except RuleError:
            return None
        finally:
            game.state.steps = steps  # a view costs the game nothing
    return describe
