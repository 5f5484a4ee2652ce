"""Why a condition does not hold: the values of its parts, for failed expectations and broken
invariants. Reading values changes nothing, so the parts can be evaluated again afterwards."""
from __future__ import annotations

from .errors import RuleError
from .values import show

MAX_PARTS = 8        # parts named in one explanation
MAX_SHOWN = 120      # characters of one value shown


def explain(machine, expr, env: dict) -> str:
    """`: left side is ..., right side is ...` for a comparison; `: `a` is yes, `b` is no` for
    `and`/`or`/`not`; the elements that decide a quantifier; "" when nothing more can be said."""
    state = machine.state
    rng, steps = state.rng.state, state.steps  # explaining is not playing: nothing is spent
    try:
        parts = _parts(machine, expr, env)
    finally:
        state.rng.state, state.steps = rng, steps
    return (": " + "; ".join(parts[:MAX_PARTS])) if parts else ""


def _value(machine, expr, env):
    try:
        return True, machine.eval(expr, env)
    except RuleError as e:
        return False, e.message


def _shown(value) -> str:
    text = show(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."


def _source(expr) -> str:
    from ..grammar.formatter import format_expression

    try:
        return format_expression(expr)
    except Exception:  # noqa: BLE001 - a part that cannot be printed is named by its kind
        return expr.kind


def _parts(machine, expr, env) -> list[str]:
    kind = getattr(expr, "kind", None)
    if kind == "binary" and expr.op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in"):
        ok_l, left = _value(machine, expr.left, env)
        ok_r, right = _value(machine, expr.right, env)
        if ok_l and ok_r:
            return [f"left side is `{_shown(left)}`, right side is `{_shown(right)}`"]
        return []
    if kind == "binary" and expr.op in ("and", "or"):
        out = []
        for side in (expr.left, expr.right):
            ok, value = _value(machine, side, env)
            out.append(f"`{_source(side)}` is {_shown(value) if ok else 'an error: ' + value}")
        return out
    if kind == "unary" and expr.op == "not":
        ok, value = _value(machine, expr.operand, env)
        return [f"`{_source(expr.operand)}` is {_shown(value)}"] if ok else []
    if kind == "quantifier" and expr.func in ("all", "any") and expr.where is not None:
        return _quantifier(machine, expr, env)
    return []


def _quantifier(machine, expr, env) -> list[str]:
    """For `all`: the elements where the condition fails; for `any`: that none passes."""
    ok, source = _value(machine, expr.binding.source, env)
    if not ok or not isinstance(source, list):
        return []
    failing, passing = [], []
    for v in source[:1000]:
        held, result = _value(machine, expr.where, {**env, expr.binding.name: v})
        (passing if held and result is True else failing).append(v)
    if expr.func == "all":
        return [f"`{_source(expr.where)}` fails for {expr.binding.name} = "
                + ", ".join(_shown(v) for v in failing[:MAX_PARTS])]
    return [f"`{_source(expr.where)}` holds for none of {_shown(source)}"]
