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


def value_text(v) -> str:
    if isinstance(v, dict) and v.get("hidden"):
        if v.get("top"):  # the face-up first elements of a hidden list
            return f"(hidden, {v['size']}; top: {'; '.join(value_text(x) for x in v['top'])})"
        if "occupied" in v:  # a hidden grid whose shape is seen: `?` holds something
            return "(hidden)" + "".join(
                f"\n      row {i}: " + " | ".join("?" if c else "-" for c in row)
                for i, row in enumerate(v["occupied"], 1))
        if "keys" in v:
            return f"(hidden, keys: {', '.join(value_text(k) for k in v['keys']) or 'none'})"
        if "present" in v:
            return "(hidden, present)" if v["present"] else "(hidden, none)"
        return f"(hidden, {v['size']})" if "size" in v else "(hidden)"
    if isinstance(v, dict) and "text" in v:
        return str(v["text"])  # how the record says a component or structure reads
    if isinstance(v, dict) and "item" in v:
        # a component reads by its name; `v` at the prompt shows every printed field
        name = v.get("name") or v.get("label")
        if name is not None:
            return str(name)
        fields = ", ".join(f"{k} {x}" for k, x in v.items() if k != "item" and x is not None)
        # a named row reads by its name (`cards.guard#2` is a `guard`), then its fields
        row = v["item"].split(".", 1)[1].split("#")[0] if "." in v["item"] else None
        if row is not None:
            return f"{row} [{fields}]" if fields else row
        return f"[{fields}]" if fields else v["item"]
    if isinstance(v, dict) and "player" in v:
        return f"player {v['player']}"
    if isinstance(v, dict) and "map" in v:
        return "{" + ", ".join(f"{value_text(k)}: {value_text(x)}" for k, x in v["map"]) + "}"
    if isinstance(v, dict) and "record" in v:
        inner = ", ".join(f"{k}: {value_text(x)}" for k, x in v.items() if k != "record")
        return f"{v['record']}({inner})"
    if isinstance(v, list):
        if v and isinstance(v[0], list):  # a grid: each column as wide as its widest cell
            # (a list of lists may be ragged, rows of different lengths: a column is as wide
            # as its widest cell among the rows that reach it)
            rows = [[value_text(c) for c in row] for row in v]
            widths = [max(len(row[k]) for row in rows if k < len(row))
                      for k in range(max(len(row) for row in rows))]
            if sum(widths) + 3 * len(widths) + 14 <= 100:
                return "".join(f"\n      row {i}: " + (" | ".join(
                    c.ljust(w) for c, w in zip(row, widths)).rstrip() or "-")
                    for i, row in enumerate(rows, 1))
            return "".join(f"\n      row {i}, column {k}: {c}"  # too wide: a cell a line
                           for i, row in enumerate(rows, 1) for k, c in enumerate(row, 1))
        return "[" + "; ".join(value_text(x) for x in v) + "]"
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def is_listed(name: str, v, view: dict) -> bool:
    """The table lists a value while it holds something, or always when marked `shown`:
    empty lists, zeros and `none` of bookkeeping stay out of the way."""
    if name in view.get("shown", ()):
        return True
    if name in view.get("internal", ()):
        return False
    if isinstance(v, dict) and v.get("hidden"):
        return v.get("size", 1) != 0 and v.get("present", True)
    if isinstance(v, list) and v and all(isinstance(row, list) for row in v):
        return any(cell is not None for row in v for cell in row)  # a grid with nothing in it
    return v not in (None, 0, False, [], "") and v != {"map": []}


def ordered(name: str, v, view: dict):
    """A list marked `sorted` is shown in the order its elements read."""
    if name in view.get("sorted", ()) and isinstance(v, list):
        return sorted(v, key=_sort_key)
    return v


def _sort_key(v):
    """Numbers by their value (4 before 35), anything else by how it reads."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, value_text(v))


def heading(view: dict) -> str:
    me = view["viewer"]
    where = []
    if view.get("round"):
        where.append(f"round {view['round']}")
    elif view.get("turn"):
        where.append(f"turn {view['turn']}")
    if view.get("phase"):
        where.append(f"phase {view['phase']}")
    if view.get("over"):
        where.append("game over")
    who = f"you are player {me}" if me is not None else "watching"
    return f"== {view['title']}" + (f" - {', '.join(where)}" if where else "") + f" - {who} =="


def render_view(view: dict, log_lines: int = 8) -> str:
    me = view["viewer"]
    out = [heading(view)]
    table = {k: v for k, v in view["globals"].items() if is_listed(k, v, view)}
    if table:
        out.append("Table:")
        for k, v in table.items():
            out.append(f"  {k}: {value_text(ordered(k, v, view))}")
    out.append("Players:")
    for p in view["players"]:
        who = f"player {p['seat']}" + (" (you)" if p["seat"] == me else "")
        if p.get("automaton"):
            who += f" [{p['automaton']}]"
        out.append(f"  {who}")
        fields = [f"{k} {value_text(ordered(k, v, view))}" for k, v in p["vars"].items()
                  if is_listed(k, v, view)]
        line = "     "
        for f in fields:
            if len(line) + len(f) > 100 and line.strip():
                out.append(line.rstrip(" ·"))
                line = "     "
            line += f + " · "
        if line.strip():
            out.append(line.rstrip(" ·"))
    if view["log"]:
        out.append("Recent events:")
        out.extend("  " + line for line in view["log"][-log_lines:])
    return "\n".join(out)


def grouped(options: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """Identical options (two copies of a card: the same label, and ids told apart only by
    `~2`) once, with how many there are: (the first one's id, label, count)."""
    out: dict[tuple, list] = {}
    for oid, label in options:
        out.setdefault((label, oid.split("~")[0]), [oid, label, 0])[2] += 1
    return [tuple(x) for x in out.values()]


def option_lines(options: list[tuple[str, str]], width: int = 100) -> list[str]:
    """Numbered options, one per line; many short ones (a number from 1 to 99) in columns.
    Options that read the same are listed once, with their number (`x2`)."""
    items = [f"{i:>3}) {label}" + (f" (x{n})" if n > 1 else "")
             for i, (_, label, n) in enumerate(grouped(options), 1)]
    widest = max((len(x) for x in items), default=0)
    if len(items) <= 15 or widest > 30:
        return ["  " + x for x in items]
    per_row = max(1, (width - 2) // (widest + 2))
    return ["  " + "  ".join(x.ljust(widest) for x in items[i:i + per_row]).rstrip()
            for i in range(0, len(items), per_row)]


def preview_lines(showing) -> list[str]:
    """What a decision shows (a `compose`'s `showing`): each value under the prompt; a list of
    rows as a grid with its row and column numbers, a list of texts a line each."""
    if isinstance(showing, dict):  # the preview failed: say where, not why
        return [f"  (the preview cannot be shown: {showing.get('error')})"]
    out: list[str] = []
    for value in showing or ():
        if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
            out.extend(_numbered_grid(value))
        elif isinstance(value, list) and all(isinstance(x, str) for x in value):
            out.extend("  " + x for x in value)
        else:
            out.append("  " + value_text(value).lstrip("\n"))
    return out


def _numbered_grid(rows: list[list]) -> list[str]:
    """Rows of cells under a line of column numbers, each row headed by its number (the
    numbers the options' labels use)."""
    cells = [[value_text(c) for c in row] for row in rows]
    columns = max(len(row) for row in cells)
    widths = [max([len(str(k + 1))] + [len(row[k]) for row in cells if k < len(row)])
              for k in range(columns)]
    head = "      " + " ".join(str(k + 1).ljust(w) for k, w in enumerate(widths))
    lines = [head.rstrip()]
    for i, row in enumerate(cells, 1):
        lines.append((f"  {i:>3} " + " ".join(c.ljust(w) for c, w in zip(row, widths))).rstrip())
    return lines


class HumanAgent:
    person = True  # shown every option, `start_over` included (bots are not: agents.py)

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        self.read, self.write = read, write
        self.notices: list[str] = []  # what the driver has to say, shown just above the prompt

    def tell(self, message: str) -> None:
        self.notices.append(message)

    def flush(self) -> None:
        """Say what is still to be said (the game ended before the next question)."""
        for message in self.notices:
            self.write(message)
        self.notices.clear()

    def decide(self, view: dict, options: list[tuple[str, str]]) -> str:
        self.write(render_view(view))
        pending = view["pending"] or {}
        self.write(f"\nYour decision: {pending.get('prompt') or 'Choose'}")
        for line in preview_lines(pending.get("showing")):
            self.write(line)
        for line in option_lines(options):
            self.write(line)
        self.write("  type a number (or an option id)  [u] undo last decision  [s] save  "
                   "[q] save and quit  [l] log  [v] view")
        self.flush()
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
            listed = grouped(options)
            if answer.isdigit() and 1 <= int(answer) <= len(listed):
                return listed[int(answer) - 1][0]
            ids = [o for o, _ in options]
            if raw in ids:
                return raw
            self.write(f"Type a number from 1 to {len(listed)}, or u, s, q, l, v.")


__all__ = ["HumanAgent", "render_view", "show"]
