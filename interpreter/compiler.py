"""Expression nodes compiled once into Python closures ``f(evaluator, env)``.

A tree walk pays a dispatch on every node; simulations evaluate the same few thousand nodes
millions of times. The common kinds (literals, names, fields, operators, calls) become closures
that call their children directly; the rest use the Evaluator's ``ev_<kind>`` methods. Closures
hold no game state, so one compilation serves every game of a ruleset.
"""
from __future__ import annotations

from .errors import RuleError
from .values import Item, Seat, Struct

_MISSING = object()


def compile_expr(node):
    maker = _MAKERS.get(node.kind)
    if maker is not None:
        return maker(node)
    method = "ev_" + node.kind
    return lambda ev, env: getattr(ev, method)(node, env)


def _const(node):
    value = node.value if node.kind != "none" else None
    return lambda ev, env: value


def _name(node):
    name = node.id

    def f(ev, env):
        v = env.get(name, _MISSING)
        if v is not _MISSING:
            return v
        v = ev.state.globals.get(name, _MISSING)
        if v is not _MISSING:
            if ev.watcher is not None:
                ev.note_read(0, name)
            return v
        return ev.ev_name(node, env)
    return f


def _field(node):
    obj_f = compile_expr(node.obj)
    name = node.name

    def f(ev, env):
        obj = obj_f(ev, env)
        t = type(obj)
        if t is Seat:
            v = obj.vars.get(name, _MISSING)
            if v is not _MISSING:
                if ev.watcher is not None:
                    ev.note_read(obj.seat, name)
                return v
        elif t is Item or t is Struct:
            v = obj.fields.get(name, _MISSING)
            if v is not _MISSING:
                return v
        return ev.get_field(obj, name, node)
    return f


def _int(v) -> bool:
    return type(v) is int


def _binary(node):
    op = node.op
    left, right = compile_expr(node.left), compile_expr(node.right)
    if op in ("and", "or"):
        decided = op == "or"  # the left value that decides alone: True for `or`, False for `and`

        def f(ev, env):
            a = left(ev, env)
            if a is decided:
                return decided
            if a is not (not decided):
                ev.ev_binary(node, env)  # not a yes/no: raises the type error with its location
            b = right(ev, env)
            if type(b) is bool:
                return b
            return ev.ev_binary(node, env)
        return f
    if op in ("+", "-", "*"):
        import operator

        fn = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]

        def f(ev, env):
            a, b = left(ev, env), right(ev, env)
            if type(a) is int and type(b) is int:
                r = fn(a, b)
                if -ev.limits.max_number <= r <= ev.limits.max_number:
                    return r
            return ev.binary_values(node, a, b)
        return f
    if op in ("<", "<=", ">", ">="):
        import operator

        fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def f(ev, env):
            a, b = left(ev, env), right(ev, env)
            if type(a) is int and type(b) is int:
                return fn(a, b)
            return ev.binary_values(node, a, b)
        return f
    if op in ("==", "!="):
        want = op == "=="

        def f(ev, env):
            a, b = left(ev, env), right(ev, env)
            ta, tb = type(a), type(b)
            if ta is tb and (ta is int or ta is str):
                return (a == b) is want
            return ev.binary_values(node, a, b)
        return f

    def f(ev, env):
        return ev.binary_values(node, left(ev, env), right(ev, env))
    return f


def _call(node):
    name = node.func
    args = [compile_expr(a) for a in node.args]

    def f(ev, env):
        define = ev.rules.defines.get(name)
        if define is None:
            return ev.call_builtin(node, env)
        return ev.call_define(define, [a(ev, env) for a in args], node)
    return f


def _conditional(node):
    test, then, other = (compile_expr(node.test), compile_expr(node.then),
                         compile_expr(node.otherwise))

    def f(ev, env):
        t = test(ev, env)
        if t is True:
            return then(ev, env)
        if t is False:
            return other(ev, env)
        return ev.ev_conditional(node, env)
    return f


def _unary(node):
    operand = compile_expr(node.operand)
    if node.op == "not":
        def f(ev, env):
            v = operand(ev, env)
            if type(v) is bool:
                return not v
            return ev.ev_unary(node, env)
        return f

    def f(ev, env):
        v = operand(ev, env)
        if type(v) is int:
            return -v
        return ev.ev_unary(node, env)
    return f


_MAKERS = {
    "int": _const, "str": _const, "bool": _const, "none": _const, "name": _name,
    "field": _field, "binary": _binary, "call": _call, "conditional": _conditional,
    "unary": _unary,
}

__all__ = ["compile_expr", "RuleError"]
