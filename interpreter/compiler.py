"""Expressions compiled once into Python closures ``f(machine, env)``, every kind of node.

Names are resolved here, once, when the rules are loaded (as starlark-go's resolver binds each
identifier): a name bound in the enclosing scope (a `let`, a binding, a parameter) reads the
local names, anything else is a global, a constant, an enum member, a table, an enum or a
built-in value, decided now and never searched for again. Expressions compiled without a known
scope (a scenario's `expect`, an explanation) look at the local names first, then the rest.

The closures hold no game state: one compilation serves every game of a ruleset. The work each
construct does is in the runtime (``evaluator.Evaluator``), so that there is one path per
construct.
"""
from __future__ import annotations

import operator

from .errors import RuleError
from .state import DEFINE_CALL_STEPS
from .values import Grid, Item, Seat, Struct, Sym

_MISSING = object()

# The scope of an expression: the local names it may see, or None when unknown (look at the
# local names first, whatever they are).
Scope = frozenset | None


def compile_expr(node, scope: Scope = None):
    """A closure computing `node`; `scope` is the set of local names visible where it stands."""
    return _MAKERS[node.kind](node, scope)


def _const(node, scope):
    value = node.value if node.kind != "none" else None
    return lambda m, env: value


def _template(node, scope):
    parts = [(p.text, None) if p.kind == "text_part" else (None, compile_expr(p.expr, scope))
             for p in node.parts]

    def f(m, env):
        return m.render_parts(parts, node, env)
    return f


# ------------------------------------------------------------------------------------ names
def _name(node, scope):
    name = node.id
    if scope is not None and name in scope:
        def local(m, env):
            return env[name]
        return local

    def f(m, env):
        if scope is None:
            v = env.get(name, _MISSING)
            if v is not _MISSING:
                return v
        v = m.state.globals.get(name, _MISSING)
        if v is not _MISSING:
            if m.watcher is not None:
                m.note_read(0, name, v)
            return v
        return m.named_value(name, node, env)
    return f


def _field(node, scope):
    obj_f = compile_expr(node.obj, scope)
    name = node.name
    if node.obj.kind == "name" and (scope is None or node.obj.id not in scope):
        table = node.obj.id  # `cards.guard`, when `cards` is a table: a row by its name

        def row_or_field(m, env):
            obj = obj_f(m, env)
            if type(obj) is list and table in m.rules.rows:
                return m.row(table, name, node)
            return m.get_field(obj, name, node)
        return row_or_field

    def f(m, env):
        obj = obj_f(m, env)
        t = type(obj)
        if t is Seat:
            v = obj.vars.get(name, _MISSING)
            if v is not _MISSING:
                if m.watcher is not None:
                    m.note_read(obj.seat, name, v)
                return v
        elif t is Item or t is Struct:
            v = obj.fields.get(name, _MISSING)
            if v is not _MISSING:
                return v
        return m.get_field(obj, name, node)
    return f


def _index(node, scope):
    obj_f = compile_expr(node.obj, scope)
    idx_f = [compile_expr(i, scope) for i in node.indices]
    table = node.obj.id if node.obj.kind == "name" and (
        scope is None or node.obj.id not in scope) else None

    if len(idx_f) == 2:
        row_f, col_f = idx_f

        def cell(m, env):
            obj = obj_f(m, env)
            r, c = row_f(m, env), col_f(m, env)
            if type(obj) is Grid and type(r) is int and type(c) is int \
                    and 1 <= r <= obj.rows and 1 <= c <= obj.columns:
                return obj.cells[(r - 1) * obj.columns + c - 1]
            return m.index(obj, [r, c], node, table)
        return cell

    def f(m, env):
        return m.index(obj_f(m, env), [g(m, env) for g in idx_f], node, table)
    return f


# -------------------------------------------------------------------------------- operators
def _unary(node, scope):
    operand = compile_expr(node.operand, scope)
    if node.op == "not":
        def f(m, env):
            v = operand(m, env)
            if type(v) is bool:
                return not v
            return m.truth(v, node) and False  # raises: not a yes/no value
        return f

    def neg(m, env):
        v = operand(m, env)
        if type(v) is int:
            return -v
        raise RuleError("E0306", f"cannot negate {m.type_name(v)}", node)
    return neg


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _binary(node, scope):
    op = node.op
    left, right = compile_expr(node.left, scope), compile_expr(node.right, scope)
    if op in ("and", "or"):
        decided = op == "or"  # the left value that decides alone: True for `or`, False for `and`

        def logic(m, env):
            a = left(m, env)
            if a is decided:
                return decided
            if a is not (not decided):
                m.truth(a, node.left)  # not a yes/no: raises the type error with its location
            b = right(m, env)
            if type(b) is bool:
                return b
            return m.truth(b, node.right)
        return logic
    if op in _ARITH:
        fn = _ARITH[op]

        def arith(m, env):
            a, b = left(m, env), right(m, env)
            if type(a) is int and type(b) is int:
                r = fn(a, b)
                if -m.limits.max_number <= r <= m.limits.max_number:
                    return r
            return m.binary_values(node, a, b)
        return arith
    if op in _ORDER:
        fn = _ORDER[op]

        def order(m, env):
            a, b = left(m, env), right(m, env)
            if type(a) is int and type(b) is int:
                return fn(a, b)
            return m.binary_values(node, a, b)
        return order
    if op in ("==", "!="):
        want = op == "=="

        def equal(m, env):
            a, b = left(m, env), right(m, env)
            ta = type(a)
            if ta is type(b) and (ta is int or ta is str or ta is Sym or ta is Seat
                                  or ta is Item):
                return (a == b if ta is int or ta is str else a is b) is want
            if a is None or b is None:  # `x == none`: nothing else equals none
                return (a is b) is want
            return m.binary_values(node, a, b)
        return equal

    if op == "..":
        def span(m, env):
            a, b = left(m, env), right(m, env)
            if type(a) is int and type(b) is int and 0 <= b - a < 64:  # small: the common case
                m.tick(node, b - a + 1)
                return list(range(a, b + 1))
            return m.binary_values(node, a, b)
        return span

    def other(m, env):
        return m.binary_values(node, left(m, env), right(m, env))
    return other


def _conditional(node, scope):
    test, then, other = (compile_expr(node.test, scope), compile_expr(node.then, scope),
                         compile_expr(node.otherwise, scope))

    def f(m, env):
        t = test(m, env)
        if t is True:
            return then(m, env)
        if t is False:
            return other(m, env)
        return m.truth(t, node.test)
    return f


def _list(node, scope):
    items = [compile_expr(x, scope) for x in node.items]

    def f(m, env):
        m.tick(node, len(items))
        return [g(m, env) for g in items]
    return f


# ------------------------------------------------------------------------ comprehensions
class Bound:
    """A binding `x in xs` compiled: its name, its source, and the scope after it."""

    __slots__ = ("node", "name", "source", "scope")

    def __init__(self, node, scope: Scope):
        self.node, self.name = node, node.name
        self.source = compile_expr(node.source, scope)
        self.scope = None if scope is None else scope | {node.name}


def bindings(nodes, scope: Scope) -> tuple[list[Bound], Scope]:
    """Several bindings, each seeing the names of those before it."""
    out = []
    for b in nodes:
        bound = Bound(b, scope)
        out.append(bound)
        scope = bound.scope
    return out, scope


def _comprehension(node, scope):
    binds, inner = bindings([node.binding, *getattr(node, "more", [])], scope)
    where = compile_expr(node.where, inner) if node.where is not None else None
    element = compile_expr(node.element, inner) if hasattr(node, "element") else None
    return binds, where, element


def _list_comp(node, scope):
    binds, where, element = _comprehension(node, scope)

    def f(m, env):
        return m.sized([element(m, e) for e in m.iterate(binds, where, env, node)], node)
    return f


def _aggregate(node, scope):
    binds, where, element = _comprehension(node, scope)
    func = node.func

    def f(m, env):
        return m.aggregate(func, [element(m, e) for e in m.iterate(binds, where, env, node)],
                           node)
    return f


def _quantifier(node, scope):
    binds, where, _ = _comprehension(node, scope)
    func, name = node.func, node.binding.name

    def f(m, env):
        return m.quantify(func, name, binds, where, env, node)
    return f


def _sole(node, scope):
    binds, inner = bindings([node.binding], scope)
    where = compile_expr(node.where, inner) if node.where is not None else None
    keys = [(compile_expr(k, inner), node.func == "sole_max") for k in node.keys]
    name = node.binding.name

    def f(m, env):
        return m.sole(name, binds, where, keys, env, node)
    return f


def _sort(node, scope):
    binds, inner = bindings([node.binding], scope)
    keys = compile_keys(node.keys, inner)
    name = node.binding.name

    def f(m, env):
        return [v for v, _ in m.ranked(name, binds, None, keys, env, node)]
    return f


def compile_keys(keys, scope: Scope) -> list:
    """Sort keys: (compiled expression or None for `random`, descending)."""
    return [(None, False) if k.kind == "random_key" else (compile_expr(k.expr, scope),
                                                          k.descending) for k in keys]


def _match(node, scope):
    subject = compile_expr(node.subject, scope)
    cases = [(None if c.value is None else compile_expr(c.value, scope),
              compile_expr(c.result, scope)) for c in node.cases]

    def f(m, env):
        value = subject(m, env)
        for test, result in cases:
            if test is None or m.same(value, test(m, env)):
                return result(m, env)
        raise RuleError("E0306", f"no case matches `{m.show(value)}`", node,
                        "add an `else: value` case")
    return f


def _record_lit(node, scope):
    fields = [(f.name, compile_expr(f.value, scope), f) for f in node.fields]

    def f(m, env):
        return m.new_struct(node, [(name, g(m, env), at) for name, g, at in fields])
    return f


def _map_lit(node, scope):
    entries = [(compile_expr(e.key, scope), compile_expr(e.value, scope)) for e in node.entries]

    def f(m, env):
        m.tick(node, len(entries))
        return {k(m, env): v(m, env) for k, v in entries}
    return f


def _call(node, scope):
    name = node.func
    args = [compile_expr(a, scope) for a in node.args]
    if name == "changed_at":  # reads where a variable is, not its value
        def changed(m, env):
            return m.changed_at(node.args[0], env, node)
        return changed

    # What the name calls, looked up once per compiled ruleset (a closure may serve several
    # rulesets: a variant shares its game's declarations):
    # [code, body, define, plain call, remember (a repeatable define), lookups, hits].
    known: list = [None, None, None, False, False, 0, 0]

    def f(m, env):
        code = m.rules.code
        if known[0] is not code:
            body = code.defines.get(name)
            define = m.rules.defines[name] if body is not None else None
            known[:] = [code, body, define, define is not None and name not in code.modifiers
                        and len(args) == len(define.params), name in code.repeatable, 0, 0]
        body, define, plain, remember = known[1], known[2], known[3], known[4]
        values = [a(m, env) for a in args]
        if body is None:
            return m.call_builtin(name, values, node)
        memo = m.memo
        if remember and memo is not None:
            try:
                key = (name, *values)
                hit = memo.get(key)
            except TypeError:  # an argument with no identity to key by (a list, a map)
                key = hit = None
            if key is not None:
                known[5] += 1
                if hit is not None:
                    known[6] += 1
                    m.tick(node, hit[1])
                    return hit[0]
                if known[5] >= _MEMO_TRIAL and known[6] * 4 < known[5]:
                    known[4] = False  # this call rarely repeats itself: stop remembering it
                st = m.state
                before = st.steps
                value = _define_value(m, body, define, plain, values, node)
                memo[key] = (value, st.steps - before)
                return value
        return _define_value(m, body, define, plain, values, node)
    return f


# Calls of a repeatable define looked up before deciding whether remembering them pays: the
# memo changes no value and no step count, only the time taken, so a call site whose arguments
# rarely repeat (as `free(r, c)` over every cell) stops paying for the look-ups.
_MEMO_TRIAL = 256


def _define_value(m, body, define, plain: bool, values, node):
    """Run a define's body on its arguments (`plain`: no modifiers, the right number)."""
    if not plain:
        return m.call_define(define, values, node)  # the errors, and modifiers after
    m.depth += 1
    try:
        if m.depth > m.limits.max_depth:
            m.too_deep(define, node)
        st = m.state
        st.steps += DEFINE_CALL_STEPS  # `tick`, inline
        if st.steps >= m.next_check:
            m.steps_checked(node)
        return body(m, dict(zip(define.params, values)))
    finally:
        m.depth -= 1


_MAKERS = {
    "int": _const, "str": _const, "bool": _const, "none": _const, "template": _template,
    "name": _name, "field": _field, "index": _index, "unary": _unary, "binary": _binary,
    "conditional": _conditional, "list": _list, "list_comp": _list_comp,
    "aggregate": _aggregate, "quantifier": _quantifier, "sole": _sole, "sort": _sort,
    "match": _match, "record_lit": _record_lit, "map_lit": _map_lit, "call": _call,
}

__all__ = ["compile_expr", "compile_keys", "bindings", "Bound", "Scope"]
