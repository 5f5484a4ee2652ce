"""What a browser is sent: one seat's view, laid out for the page in the terminal's own words.

`present` reads nothing but the view it is given (`view(game, seat)`, which already hides what the
seat may not see), so a page never holds more than the terminal would show that seat. Values read
as at the terminal (interpreter/human.py): a component by its text or name, `(hidden, 30)`,
`player 2`, options grouped with their count.
"""
from __future__ import annotations

from ..interpreter.human import grouped, heading, is_listed, ordered, value_text

LOG_LINES = 80  # the page shows recent events; the whole log stays in the save


def shown(value) -> dict:
    """A value as the page draws it: a grid of cells, a list of items, a map as rows of key and
    value, a hidden value as what its shape shows, or one text."""
    if isinstance(value, dict) and value.get("hidden"):
        out = {"hidden": value_text({k: v for k, v in value.items() if k != "occupied"})}
        if "occupied" in value:  # which cells of a hidden grid hold something
            out["grid"] = [["?" if cell else "" for cell in row] for row in value["occupied"]]
        return out
    if isinstance(value, list) and value and all(isinstance(row, list) for row in value):
        return {"grid": [[_cell(c) for c in row] for row in value]}
    if isinstance(value, list):
        return {"list": [value_text(item) for item in value]}
    if isinstance(value, dict) and "map" in value:
        return {"map": [[value_text(k), value_text(v)] for k, v in value["map"]]}
    return {"text": value_text(value)}


def _cell(value) -> str:
    return "" if value is None else value_text(value)


def _fields(values: dict, view: dict) -> list[dict]:
    return [{"name": name, "value": shown(ordered(name, value, view))}
            for name, value in values.items() if is_listed(name, value, view)]


def present(view: dict, kinds: dict[int, str], version: int) -> dict:
    """The page of `view`'s viewer. `kinds` says who plays each seat (public at the table);
    `version` counts the decisions made, so a click on a page that is behind is refused."""
    me, pending = view["viewer"], view["pending"]
    seats = []
    for p in view["players"]:
        seat = p["seat"]
        kind = kinds.get(seat, "human")
        seats.append({
            "seat": seat, "name": f"player {seat}", "you": seat == me,
            "tags": [t for t in (p.get("automaton"), None if kind == "human" else f"bot ({kind})")
                     if t],
            "current": seat == view["current_player"],
            "deciding": bool(pending) and pending["player"] == seat,
            "fields": _fields(p["vars"], view),
        })
    decision = None
    if pending is not None:
        options = pending["options"]  # None unless the viewer is the one deciding
        showing = pending.get("showing")
        decision = {
            "player": pending["player"], "mine": pending["player"] == me,
            "prompt": pending["prompt"], "secret": pending["secret"],
            "options": None if options is None else [
                {"id": oid, "label": label, "count": count}
                for oid, label, count in grouped([(o["id"], o["label"]) for o in options])],
            "showing": ([{"error": showing["error"]}] if isinstance(showing, dict)
                        else [shown(v) for v in showing or ()]),
        }
    return {
        "version": version, "heading": heading(view).strip("= "), "title": view["title"],
        "viewer": me, "over": view["over"],
        "winners": [f"player {w}" for w in view["winners"]], "error": view["error"],
        "table": _fields(view["globals"], view), "seats": seats, "decision": decision,
        "log": view["log"][-LOG_LINES:], "log_total": len(view["log"]),
    }
