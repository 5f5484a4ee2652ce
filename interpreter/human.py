"""A person at a terminal: sees only their seat's view, picks a numbered option.

Besides a number, a person may type `u` (undo their last decision while it is still the last one
made), `s` (save), `q` (save and quit), `l` (whole log) or `v` (whole view). Those come back to the
driver as commands starting with `!`.
"""
from __future__ import annotations

import json
from typing import Callable

from .values import show

COMMANDS = {"u": "!undo", "s": "!save", "q": "!quit"}


def _value(v) -> str:
    if isinstance(v, dict) and v.get("hidden"):
        return f"(hidden, {v['size']})" if "size" in v else "(hidden)"
    if isinstance(v, dict) and "item" in v:
        # a component reads by its name; `v` at the prompt shows every printed field
        name = v.get("name") or v.get("label")
        if name is not None:
            return str(name)
        fields = ", ".join(f"{k} {x}" for k, x in v.items() if k != "item" and x is not None)
        return f"[{fields}]" if fields else v["item"]
    if isinstance(v, dict) and "player" in v:
        return f"player {v['player']}"
    if isinstance(v, dict) and "map" in v:
        return "{" + ", ".join(f"{_value(k)}: {_value(x)}" for k, x in v["map"]) + "}"
    if isinstance(v, dict) and "record" in v:
        inner = ", ".join(f"{k}: {_value(x)}" for k, x in v.items() if k != "record")
        return f"{v['record']}({inner})"
    if isinstance(v, list):
        if v and isinstance(v[0], list):
            rows = [[_value(c) for c in row] for row in v]
            width = max((len(c) for row in rows for c in row), default=1)
            return "".join(f"\n      row {i}: " + " | ".join(c.ljust(width) for c in row)
                           for i, row in enumerate(rows, 1))
        return "[" + "; ".join(_value(x) for x in v) + "]"
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def render_view(view: dict, log_lines: int = 8) -> str:
    me = view["viewer"]
    out = [f"== {view['title']} - round {view['round']}"
           + (f", phase {view['phase']}" if view["phase"] else "")
           + f" - you are player {me} =="]
    if view["globals"]:
        out.append("Table:")
        for k, v in view["globals"].items():
            out.append(f"  {k}: {_value(v)}")
    out.append("Players:")
    for p in view["players"]:
        who = f"player {p['seat']}" + (" (you)" if p["seat"] == me else "")
        if p.get("automaton"):
            who += f" [{p['automaton']}]"
        out.append(f"  {who}")
        fields = [f"{k} {_value(v)}" for k, v in p["vars"].items()]
        line = "     "
        for f in fields:
            if len(line) + len(f) > 100 and line.strip():
                out.append(line.rstrip(" ·"))
                line = "     "
            line += f + " · "
        out.append(line.rstrip(" ·"))
    if view["log"]:
        out.append("Recent events:")
        out.extend("  " + line for line in view["log"][-log_lines:])
    return "\n".join(out)


def option_lines(options: list[tuple[str, str]], width: int = 100) -> list[str]:
    """Numbered options, one per line; many short ones (a number from 1 to 99) in columns."""
    items = [f"{i:>3}) {label}" for i, (_, label) in enumerate(options, 1)]
    widest = max((len(x) for x in items), default=0)
    if len(items) <= 15 or widest > 30:
        return ["  " + x for x in items]
    per_row = max(1, (width - 2) // (widest + 2))
    return ["  " + "  ".join(x.ljust(widest) for x in items[i:i + per_row]).rstrip()
            for i in range(0, len(items), per_row)]


class HumanAgent:
    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        self.read, self.write = read, write
        self.notices: list[str] = []  # what the driver has to say, shown just above the prompt

    def tell(self, message: str) -> None:
        self.notices.append(message)

    def decide(self, view: dict, options: list[tuple[str, str]]) -> str:
        self.write(render_view(view))
        pending = view["pending"] or {}
        self.write(f"\nYour decision: {pending.get('prompt') or 'Choose'}")
        for line in option_lines(options):
            self.write(line)
        self.write("  type a number (or an option id)  [u] undo last decision  [s] save  "
                   "[q] save and quit  [l] log  [v] view")
        for message in self.notices:
            self.write(message)
        self.notices.clear()
        while True:
            try:
                raw = self.read("> ").strip()
            except EOFError:
                return "!eof"  # input ended: the driver saves and stops
            answer = raw.lower()
            if answer in COMMANDS:
                return COMMANDS[answer]
            if answer == "l":
                self.write("\n".join(view["log"]) or "(no events yet)")
                continue
            if answer == "v":
                self.write(json.dumps(view, indent=1, ensure_ascii=False))
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1][0]
            ids = [o for o, _ in options]
            if raw in ids:
                return raw
            self.write(f"Type a number from 1 to {len(options)}, or u, s, q, l, v.")


__all__ = ["HumanAgent", "render_view", "show"]
