"""What statements do to a game's state, given the values the generated code worked out
(``statements.py``): assignments, moves, shuffles, reveals, awards, log readers. Every check
and every error of a statement that changes the state is here, once.
"""
from __future__ import annotations

from .errors import RuleError
from .evaluator import _same
from .flow import Signal
from .rules import holds_numbers
from .state import MOVED
from .values import Grid, Item, Seat, Struct, elements, nesting_problem, show, type_name


def own_copy(value):
    """A list, map or grid stored in a state variable is the variable's own: setting `xs = ys`
    copies ys, so later changes to one never show in the other (or in a constant)."""
    if isinstance(value, (list, dict)):
        return type(value)(value)
    if isinstance(value, Grid):
        copy = Grid(value.rows, value.columns)
        copy.cells = list(value.cells)
        return copy
    return value


_SIGNAL_WORDS = {"stop": "stop", "pass": "pass", "end_game": "end"}
_NESTING = (list, dict, Grid, Struct)  # values that hold others: stored only when they nest well


class Effects:
    """The changes statements make (a mixin of ``Machine``, which has the state and budgets)."""

    # ------------------------------------------------------------------------ assignments
    def assign_global(self, name: str, value, node) -> None:
        """`set x = v` for a global x (clamped to its bounds, stored as its own copy)."""
        decl = self.rules.global_vars.get(name)
        if decl is None:
            raise RuleError("E0311", f"`{name}` is not a variable that can be set", node,
                            f"declare it with `global {name}: ...` or `let {name} = ...`")
        self.store_global(name, decl, self.clamp(decl, value, {}), node)

    def store_global(self, name: str, decl, value, node) -> None:
        """A global's new value, already within its bounds."""
        self.set_var(self.state.globals, name, own_copy(self.kept(decl, value, node)),
                     (0, name), decl, node)

    def set_var(self, holder: dict, name, value, key, decl, node) -> None:
        """State variable `name` of `holder` (the globals, a player's variables; a component
        in the map of a state on components) given `value`, its own and one it may hold:
        refused when it nests badly, the change noted when it differs. The generated code
        gives it a list it has just made, or copied (``statements.Statements._stores``)."""
        self.storable(value, None, node)
        if not self.same(holder.get(name), value, node):
            holder[name] = value
            self.changed(key, decl)

    def assign_field(self, obj, name: str, value, node) -> None:
        """`set o.f = v`: a player's variable, a structure's field or a component's state."""
        if isinstance(obj, Seat):
            decl = self.rules.player_vars.get(name)
            if decl is None:
                raise RuleError("E0311", f"players have no variable `{name}`", node)
            value = own_copy(self.kept(decl, self.clamp(decl, value, {"me": obj}), node))
            self.set_var(obj.vars, name, value, (obj.seat, name), decl, node)
            return
        if isinstance(obj, Struct):
            if name not in obj.fields:
                raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
            self.storable(value, obj, node)
            obj.fields[name] = value
            self.changed(None, None, obj)
            return
        if isinstance(obj, Item):
            decl = self.rules.component_vars.get((obj.record, name))
            if decl is None:
                raise RuleError("E0306", f"the fields of a component ({obj.record}) cannot "
                                "be changed", node, "keep changing values in state variables, "
                                "state on the component (`on Record name: ...`) or structures "
                                "made with `new`")
            value = own_copy(self.kept(decl, self.clamp(decl, value, {}), node))
            self.set_var(self.state.globals[decl.key], obj, value, (0, decl.key), decl, node)
            return
        raise RuleError("E0306", f"cannot set `.{name}` of {type_name(obj)}", node)

    @staticmethod
    def kept(decl, value, node):
        """`value`, which state variable `decl` may hold: one declared `int` holds numbers
        alone (``rules.holds_numbers``)."""
        if type(value) is not int and holds_numbers(decl):
            held = "none" if value is None else f"{type_name(value)} `{show(value)}`"
            raise RuleError("E0306", f"`{decl.name}` is declared `int`: it holds a number, not "
                            f"{held}", node,
                            "store a number; to let it hold none as well, declare it `int?`")
        return value

    def assign_index(self, obj, idx: list, value, node) -> None:
        """`set xs[i] = v`, `g[r, c]`, `m[k]`, `s[k]` (the caller notes the change)."""
        self.storable(value, obj, node)
        if isinstance(obj, Grid):
            obj.cells[self.grid_pos(obj, idx, node)] = value
        elif isinstance(obj, dict):
            obj[self.map_key(idx, node)] = value
        elif isinstance(obj, list):
            obj[self.list_pos(obj, idx, node)] = value
        elif isinstance(obj, Struct):
            name = self.field_key(obj, idx, node)
            if name not in obj.fields:
                raise RuleError("E0311", f"a {obj.record} has no field `{name}`", node)
            obj.fields[name] = value
        elif isinstance(obj, Item):
            raise RuleError("E0306", f"the fields of a component ({obj.record}) cannot be "
                            "changed", node, "keep changing values in state variables or "
                            "structures made with `new`")
        else:
            raise RuleError("E0306", f"cannot index {type_name(obj)}", node)

    @staticmethod
    def cannot_assign(node):
        raise RuleError("E0306", "only variables, fields and list or grid cells can be set",
                        node)

    @staticmethod
    def change_error(node, cur, amount):
        raise RuleError("E0306", f"`{node.op}` needs numbers, got {type_name(cur)} and "
                        f"{type_name(amount)}", node)

    def storable(self, value, container, node) -> None:
        """Refuse a value that would contain its own container or nest too deeply."""
        if isinstance(value, _NESTING):
            st = self.state  # (`tick` of its elements, written out: values stored are many)
            st.steps += len(value) if type(value) is list else elements(value)
            if st.steps >= self.next_check:
                self.steps_checked(node)
            problem = nesting_problem(value, container, self.limits.max_nesting)
            if problem:
                raise RuleError("E0303", f"cannot store this value: {problem}", node,
                                "store a copy, or keep the values side by side")

    def changed(self, key, decl, inside=None) -> None:
        """Note a change of state variable `key`, or (key None) of a list, map or structure
        `inside` that some variables may hold."""
        st = self.state
        st.clock += 1
        if key is None:
            self.touched = None
            if inside is not None and st.reveals_until_changed:
                self.end_reveals_holding(inside)
        else:
            if self.touched is not None:
                self.touched.add(key[1])
            if decl is not None and id(decl) in self.rules.code.stacked:
                st.changed_at[key] = st.clock
            if st.reveals_until_changed:
                self.reveal_changed(key)
        self.dirty = True

    def reveal_changed(self, key) -> None:
        """`reveal x until changed` of the variable `key`, just changed: its value is gone."""
        st = self.state
        if key in st.reveals_until_changed:
            st.reveals_until_changed.discard(key)
            st.reveals.pop(key, None)

    def end_reveals_holding(self, inside) -> None:
        """`reveal x until changed` ends when a value inside x is changed in place."""
        st = self.state
        for key in list(st.reveals_until_changed):
            seat, name = key
            holder = st.globals if seat == 0 else st.seats[seat - 1].vars
            if holds(holder.get(name), inside, self):
                st.reveals_until_changed.discard(key)
                st.reveals.pop(key, None)

    def var_key_of(self, obj, name: str):
        """(seat, name) of `obj.name` when it is a player's variable, (0, key) for state on a
        component, else None (a place that is no state variable of its own)."""
        if isinstance(obj, Item):  # state on a component: `t.shares[p]`
            decl = self.rules.component_vars.get((obj.record, name))
            return None if decl is None else (0, decl.key)
        return (obj.seat, name) if isinstance(obj, Seat) and name in self.rules.player_vars \
            else None

    # ---------------------------------------------------------------------------- moving
    @staticmethod
    def place_list(value, node) -> list:
        """A list to move from or to (grid cells are found before this)."""
        if isinstance(value, list):
            return value
        raise RuleError("E0306", f"can only move from and to lists, decks or grid cells, not "
                        f"{type_name(value)}", node)

    def move_found(self, item, dst, place, node) -> None:
        """`move x to B`: from the zone that holds x."""
        src, key = self.zone_of(item, node)
        self.take(src, item, node)
        self.put(dst, [item], place, node)
        self.changed(key, None)

    @staticmethod
    def bad_top(node):
        raise RuleError("E0306", "`move top N` needs a number of 0 or more", node)

    def note_moved(self, moved) -> None:
        """Remember when each component moved (`moved_at(x)`): the clock of this move."""
        at = self.state.changed_at
        for x in moved:
            if type(x) is Item:
                at[(MOVED, x.id)] = self.state.clock

    def zone_of(self, item, node):
        """The state variable (a list, deck or grid, global or a player's) that holds the
        component `item`, as (container, key); each element looked at costs a step."""
        if not isinstance(item, (Item, Struct)):
            raise RuleError("E0306", f"`move` without `from` needs a component, not "
                            f"{type_name(item)}", node, "write `move x from A to B`")
        st = self.state
        places = [((0, name), value) for name, value in st.globals.items()]
        places += [((seat.seat, name), value) for seat in st.seats
                   for name, value in seat.vars.items()]
        found = []
        for key, value in places:
            if isinstance(value, list):
                self.tick(node, len(value))
                if any(x is item for x in value):
                    found.append((key, value))
            elif isinstance(value, Grid):
                self.tick(node, len(value.cells))
                found += [(key, (value, i)) for i, x in enumerate(value.cells) if x is item]
        if len(found) != 1:
            where = " and ".join(self._zone_name(k) for k, _ in found[:2])
            raise RuleError("E0308", f"`{show(item)}` is in {'no zone' if not found else where}"
                            ", so `move` cannot tell where to take it from", node,
                            "name the zone: `move x from A to B`")
        key, src = found[0]
        if self.watcher is not None:
            self.note_read(*key)
        return src, key

    @staticmethod
    def _zone_name(key) -> str:
        return key[1] if key[0] == 0 else f"player {key[0]}'s {key[1]}"

    def take(self, src, item, node):
        if isinstance(src, tuple):
            grid, pos = src
            if grid.cells[pos] is None or not _same(grid.cells[pos], item):
                raise RuleError("E0308", f"`{show(item)}` is not in that grid cell", node)
            grid.cells[pos] = None
            return
        i = self.contains(src, item, node)
        if i:
            del src[i - 1]
            return
        raise RuleError("E0308", f"`{show(item)}` is not in the place it is moved from", node,
                        "check where the element is before moving it")

    @staticmethod
    def take_all(src) -> list:
        if isinstance(src, tuple):
            grid, pos = src
            v = grid.cells[pos]
            grid.cells[pos] = None
            return [] if v is None else [v]
        moved = list(src)
        src.clear()
        return moved  # the caller charges each moved element

    def take_top(self, src, n) -> list:
        if isinstance(src, tuple):
            return self.take_all(src) if n > 0 else []
        moved = src[:n]
        del src[:n]
        return moved

    def move_one(self, src, dst, item, place, node, src_key, dst_key) -> None:
        """`move x from A to B`: `take`, `put`, the change of each place (their keys, as
        `changed` has them) and `note_moved`, in that order. A component from a list or a grid
        cell to a list or a grid cell, or a structure from a list to a list it may be stored
        in, with no `reveal ... until changed` standing, is moved here at once: the same
        steps, clock and errors (`take`'s, when x is not in A; `put`'s, for a grid cell or a
        structure that cannot be stored there), the budget looked at once for all, before
        anything moves."""
        st = self.state
        kind = type(item)
        if kind is not Item and (kind is not Struct or type(dst) is not list or nesting_problem(
                item, dst, self.limits.max_nesting)) or st.reveals_until_changed:
            return self._move_one_apart(src, dst, item, place, node, src_key, dst_key)
        if type(src) is list:
            try:
                i = src.index(item)  # (a component is equal to itself alone: `contains`)
            except ValueError:
                return self._move_one_apart(src, dst, item, place, node, src_key, dst_key)
            charged = i + 1
        elif type(src) is tuple and src[0].cells[src[1]] is item:  # a grid's cell
            i, charged = None, 0
        else:
            return self._move_one_apart(src, dst, item, place, node, src_key, dst_key)
        listed = type(dst) is list
        if listed or charged:  # (taken and put charged at once, before either is made)
            st.steps += charged + listed + (kind is Struct)  # (and a structure's `storable`)
            if st.steps >= self.next_check:
                self.steps_checked(node)
        if i is None:
            src[0].cells[src[1]] = None
        else:
            del src[i]
        if listed:
            if place == "top":
                dst.insert(0, item)
            else:
                dst.append(item)
            if len(dst) > self.limits.max_collection:
                raise RuleError("E0303", f"a list of {len(dst):,} elements is too large (limit "
                                f"{self.limits.max_collection:,})", node)
        else:
            self.put(dst, [item], place, node)
        st.clock += 2  # (`changed` of each place, written out)
        touched = self.touched
        if src_key is None or dst_key is None:
            self.touched = None
        elif touched is not None:
            touched.add(src_key[1])
            touched.add(dst_key[1])
        self.dirty = True
        if kind is Item:  # (`note_moved`)
            st.changed_at[(MOVED, item.id)] = st.clock

    def _move_one_apart(self, src, dst, item, place, node, src_key, dst_key) -> None:
        """`move_one` as the calls it stands for, one after the other."""
        self.take(src, item, node)
        self.put(dst, [item], place, node)
        self.changed(src_key, None)
        self.changed(dst_key, None)
        self.note_moved([item])

    def put(self, dst, moved, place, node):
        if isinstance(dst, tuple):
            grid, pos = dst
            if len(moved) > 1 or (moved and grid.cells[pos] is not None):
                raise RuleError("E0306", "a grid cell holds one element; it is already taken",
                                node)
            if moved:
                grid.cells[pos] = moved[0]
            return
        for x in moved:
            if isinstance(x, _NESTING):  # (`storable`'s own test, first: most values are not)
                self.storable(x, dst, node)
        st = self.state  # (`tick`, written out: moves are many)
        st.steps += len(moved)
        if st.steps >= self.next_check:
            self.steps_checked(node)
        if place == "top":
            dst[0:0] = moved
        else:
            dst.extend(moved)
        if len(dst) > self.limits.max_collection:
            raise RuleError("E0303", f"a list of {len(dst):,} elements is too large (limit "
                            f"{self.limits.max_collection:,})", node)

    @staticmethod
    def cannot_shuffle(target, node):
        raise RuleError("E0306", f"can only shuffle a list or deck, not {type_name(target)}",
                        node)

    def shuffle_list(self, target: list, key, node) -> None:
        if self.watcher is not None and (key is None or not self.hidden_from_watcher(*key)):
            self.saw_hidden = True  # the watcher sees the new order: a random draw shown
        self.tick(node, len(target))
        self.state.rng.shuffle(target)
        self.changed(key, None)

    def slide_grid(self, grid, toward: str, node) -> list:
        """`slide g up`: in each column (row), the elements move over the empty cells toward
        that side, keeping their order; the elements that changed cell (the caller notes the
        change and when they moved)."""
        if not isinstance(grid, Grid):
            raise RuleError("E0306", f"can only slide a grid, not {type_name(grid)}", node)
        cells, columns = grid.cells, grid.columns
        self.tick(node, len(cells))
        holes = cells.count(None)
        if not holes:
            return []
        across = toward in ("up", "down")  # each column, from the top; else each row
        step, length = (columns, grid.rows) if across else (1, columns)
        if holes == 1:  # (the most slid: the one line with the hole)
            at = cells.index(None)
            starts = (at % columns if across else at - at % columns,)
        else:
            starts = range(columns) if across else range(0, len(cells), columns)
        to_end = toward in ("down", "right")
        moved = []
        for start in starts:
            stop = start + step * length
            line = cells[start:stop:step]
            holes = line.count(None)
            if not holes:
                continue
            # The elements past the hole farthest from the side they go to move (each over
            # the holes between it and that side); the others stay.
            stay = line[::-1].index(None) if to_end else line.index(None)
            if stay == length - holes:
                continue  # the holes are on that side already: nothing moves
            held = line.copy()  # its elements, in order
            for _ in range(holes):
                held.remove(None)
            if to_end:
                moved += held[length - holes - stay - 1::-1]  # (from the end, as they land)
                cells[start:stop:step] = [None] * holes + held
            else:
                moved += held[stay:]
                cells[start:stop:step] = held + [None] * holes
        return moved

    def rotate(self, node, among):
        if not isinstance(among, list) or not all(isinstance(p, Seat) for p in among):
            raise RuleError("E0306", "`rotate ... among` needs a list of players", node.among)
        decl = self.rules.player_vars.get(node.name)
        if decl is None:
            raise RuleError("E0311", f"players have no variable `{node.name}`", node)
        self.tick(node, len(among))
        values = [p.vars[node.name] for p in among]
        for p, value in zip(among[1:] + among[:1], values):
            p.vars[node.name] = value
            self.changed((p.seat, node.name), decl)

    # --------------------------------------------------------------------- visibility
    def readers(self, who, node, to_node) -> list[int]:
        """The seats `who` (a player or a list of players) names, each once, charged a step
        each (`log ... to`, `reveal ... to`)."""
        seats = who if isinstance(who, list) else [who]
        if not all(isinstance(p, Seat) for p in seats):
            what = "log" if node.kind == "log" else "reveal"
            raise RuleError("E0306", f"`{what} ... to` needs a player or a list of players",
                            to_node)
        self.tick(node, len(seats))
        return seats

    def log_readers(self, who, node) -> list[int]:
        return sorted({p.seat for p in self.readers(who, node, node.to)})

    def reveal_key(self, key, who, node) -> None:
        """`reveal x [to who] [until changed]` of the state variable `key`."""
        seats = None
        if who is not None:
            seats = list({p.seat: p for p in self.readers(who, node, node.to)}.values())
        if self.watcher is not None and self.hidden_from_watcher(*key) and (
                seats is None or any(p.seat == self.watcher for p in seats)):
            self.saw_hidden = True  # shown to the audited seat from now on
        st = self.state
        if node.until_changed:
            st.reveals_until_changed.add(key)
        if seats is None:
            st.reveals[key] = "all"
            return
        cur = st.reveals.get(key)
        if cur != "all":
            cur = set(cur or ())
            cur.update(p.seat for p in seats)
            st.reveals[key] = cur

    def hide_key(self, key) -> None:
        self.state.reveals.pop(key, None)
        self.state.reveals_until_changed.discard(key)

    # --------------------------------------------------------------------- flow signals
    def signal(self, node):
        """`stop`, `pass` or `end game`: unwinds to the frame it ends."""
        kind = _SIGNAL_WORDS[node.kind]
        if kind == "end":
            self.log("The game ends.", kind="flow")
        raise Signal(kind, node)

    @staticmethod
    def require_failed(message: str, node):
        raise RuleError("E0309", message, node)

    @staticmethod
    def no_arm(value, node):
        raise RuleError("E0306", f"no arm of this `match` is for `{show(value)}`", node,
                        "add an `else: { }` arm")

    @staticmethod
    def repeat_error(node):
        raise RuleError("E0306", "`repeat` needs a number", node)

    @staticmethod
    def rounds_error(count, node):
        raise RuleError("E0306", f"`rounds` needs a number of rounds, not {type_name(count)} "
                        f"`{show(count)}`", node)

    @staticmethod
    def turns_error(node):
        raise RuleError("E0306", "`turns` needs a list of players", node)

    @staticmethod
    def simultaneously_error(node):
        raise RuleError("E0306", "`simultaneously` needs a list of players", node)

    @staticmethod
    def turn_without_player(value, node):
        raise RuleError("E0306", f"a turn needs a player, not {type_name(value)}", node)

    def enter_call(self, depth: int, node) -> None:
        """A procedure's, handler's or reaction's block is about to run, one call deeper."""
        if depth + 1 > self.limits.max_depth:
            raise RuleError("E0302", f"calls nest more than {self.limits.max_depth} deep", node)
        self.tick(node)

    @staticmethod
    def unknown_procedure(node):
        raise RuleError("E0311", f"unknown procedure `{node.name}`", node)

    @staticmethod
    def wrong_arity(node, what: str, wanted: int, given: int):
        raise RuleError("E0306", f"`{what}` takes {wanted} values, got {given}", node)

    # ---------------------------------------------------------------------------- awards
    def award_amounts(self, amounts, node) -> list:
        if not isinstance(amounts, list) or not all(type(a) is int for a in amounts):
            raise RuleError("E0306", "`award` needs a list of numbers, like [5, 3, 1]",
                            node.amounts)
        return amounts

    def award_groups(self, amounts: list, ordered: list, node) -> list:
        """(player, amount) for each ranked player whose rank earns something, in order."""
        drawn = any(k.kind == "random_key" for k in node.keys)  # a random key leaves no ties
        given = []
        rank = i = 0
        while i < len(ordered):
            self.tick(node)
            j = i + 1
            while not drawn and j < len(ordered) and ordered[j][1] == ordered[i][1]:
                j += 1
            group = [p for p, _ in ordered[i:j]]
            taken = amounts[rank: rank + len(group)]
            if len(group) == 1:
                share = taken[0] if taken else None
            elif node.ties == "share":
                share = sum(taken) // len(group) if taken else None
            elif node.ties == "split":  # the place they tie for, split; the ones after lapse
                share = taken[0] // len(group) if taken else None
            elif node.ties == "all":
                share = taken[0] if taken else None
            else:
                share = None
            if share is not None:
                given.extend((p, share) for p in group)
            rank += len(group)
            i = j
        return given


def holds(value, inside, m) -> bool:
    """Whether `inside` (a list, map, grid or structure) is `value` or lies within it; charged
    one step per element looked at."""
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if v is inside:
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, list):
            parts = v
        elif isinstance(v, dict):
            parts = list(v.values())
        elif isinstance(v, Grid):
            parts = v.cells
        elif isinstance(v, Struct):
            parts = list(v.fields.values())
        else:
            continue
        m.tick(None, len(parts))
        todo.extend(p for p in parts if isinstance(p, (list, dict, Grid, Struct)))
    return False


__all__ = ["Effects", "own_copy", "holds"]
