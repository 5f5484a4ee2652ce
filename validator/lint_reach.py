"""W0203: a procedure or step that the game never reaches.

A procedure is reached when a `do` calls it from something that runs (setup, play, scoring, a
handler, a reaction, a scenario, a step patch) or from a procedure that is itself reached. A step,
or any statement, is never reached when it follows `end game`, `stop` or `pass` in the same
block (these leave the block at once), or when it stands in a phase whose `when` is always false.
"""
from __future__ import annotations

from ..grammar import ast as A
from .diagnostics import Diagnostic, span_fields
from .lint_walk import all_nodes
from .lint_where import constant

CODE = "W0203"
_LEAVES = (A.EndGame, A.Stop, A.Pass)


def unreached(program: A.Program, nodes: list, by_root: list[tuple[object, list]]) \
        -> list[Diagnostic]:
    """``by_root``: each top-level item of the program with its nodes (lint_walk)."""
    return [*_unreached_procedures(program, by_root), *_unreached_statements(program, nodes)]


def _warn(node, message: str, hint: str, program: A.Program) -> Diagnostic:
    return Diagnostic(CODE, message, severity="warning",
                      file=A.file_of(node) or A.file_of(program), hint=hint,
                      **span_fields(node.span))


# ---------------------------------------------------------------------------- procedures
def _calls(nodes: list) -> set[str]:
    return {n.name for n in nodes if isinstance(n, A.CallProcedure)}


def _unreached_procedures(program: A.Program, by_root) -> list[Diagnostic]:
    procedures = {d.name: d for d in program.declarations if isinstance(d, A.ProcedureDecl)}
    if not procedures:
        return []
    roots: set[str] = set()
    calls: dict[str, set[str]] = {}
    for root, nodes in by_root:
        if isinstance(root, A.ProcedureDecl):
            calls[root.name] = _calls(nodes)
        else:
            roots |= _calls(nodes)
    reached = procedure_calls(procedures, roots, calls)
    return [_warn(d, f"procedure `{d.name}` is never called by anything that runs",
                  "call it with `do` where the rule applies, or remove it", program)
            for name, d in procedures.items() if name not in reached]


def procedure_calls(procedures: dict, roots: set[str], calls: dict | None = None) -> set[str]:
    """The procedures reached from calls of ``roots``, directly or through one another
    (``calls``: the procedures each one calls, when known)."""
    reached: set[str] = set()
    todo = [n for n in roots if n in procedures]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        called = calls[name] if calls and name in calls \
            else _calls(all_nodes(procedures[name].body))
        todo.extend(n for n in called if n in procedures)
    return reached


# ---------------------------------------------------------------------------- statements
def _unreached_statements(program: A.Program, nodes: list) -> list[Diagnostic]:
    consts = {d.name: d.value for d in program.declarations if isinstance(d, A.ConstDecl)}
    out: list[Diagnostic] = []
    for node in nodes:
        for block in _blocks(node):
            for before, after in zip(block, block[1:]):
                if isinstance(before, _LEAVES):
                    out.append(_warn(after, f"{_what(after)} is never reached: it follows "
                                     f"`{_word(before)}` in the same block",
                                     f"move it before `{_word(before)}`, or remove it",
                                     program))
                    break
        if isinstance(node, A.Phase) and node.when is not None \
                and constant(node.when, consts) is False:
            for stmt in node.body:
                if isinstance(stmt, A.Step):
                    out.append(_warn(stmt, f"step `{stmt.name}` is never reached: the `when` "
                                     f"of phase `{node.name}` is always false",
                                     "correct the phase's `when`, or remove the phase", program))
    return out


def _blocks(node) -> list[list]:
    """The statement lists directly inside ``node``."""
    names = _BLOCK_FIELDS.get(node.__class__)
    if names is None:
        names = _BLOCK_FIELDS[node.__class__] = tuple(
            name for name in ("body", "otherwise", "start_over")
            if name in getattr(node.__class__, "model_fields", {}))
    if not names:  # (most nodes: expressions)
        return []
    values = node.__dict__
    return [values[name] for name in names if isinstance(values.get(name), list) and values[name]]


_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}  # a class -> its fields that may hold a block


def _what(stmt) -> str:
    if isinstance(stmt, A.Step):
        return f"step `{stmt.name}`"
    return f"this `{_word(stmt)}`"


def _word(stmt) -> str:
    """The word a statement starts with."""
    if isinstance(stmt, A.Change):
        return stmt.op
    return {"end_game": "end game", "cited": "cite", "match_stmt": "match",
            "move_pieces": "move", "turns_from": "turns"}.get(stmt.kind, stmt.kind)
