"""What may be stored where (`values.nesting_problem`): a value that would contain its own
container, or nest deeper than the limit, is refused; every other is stored. Checked against a
plain recursive reading of the rule, for values of every shape."""
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.interpreter.values import Struct, nesting_problem

TARGET = []  # the container a value is stored into


def _struct(fields):
    return Struct("R", dict(enumerate(fields)), 1)


VALUES = st.recursive(
    st.one_of(st.none(), st.integers(0, 3), st.text(max_size=2), st.just(TARGET),
              st.builds(list), st.builds(lambda: _struct([]))),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(_struct),
                            st.dictionaries(st.integers(0, 3), inner, max_size=2)),
    max_leaves=12)


def _children(v):
    if isinstance(v, Struct):
        return list(v.fields.values())
    if isinstance(v, list):
        return v
    if isinstance(v, dict):
        return list(v.values())
    return None


def _holds(v, target) -> bool:
    kids = _children(v)
    return kids is not None and (v is target or any(_holds(k, target) for k in kids))


def _depth(v) -> int:
    kids = _children(v)
    return 0 if kids is None else 1 + max((_depth(k) for k in kids), default=0)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.integers(1, 4))
def test_a_value_is_refused_when_it_would_hold_its_container_or_nest_too_deep(value, limit):
    problem = nesting_problem(value, TARGET, limit)
    if _holds(value, TARGET):
        assert problem is not None
    elif _depth(value) > limit:
        assert problem == f"it would nest more than {limit} values deep"
    else:
        assert problem is None
