"""Tests for the read-only mappings inside api objects."""

from __future__ import annotations

import pickle

import pytest

from schedframe.api.frozendict import FrozenDict, freeze


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda d: d.__setitem__("b", 2), id="setitem"),
        pytest.param(lambda d: d.__delitem__("a"), id="delitem"),
        pytest.param(lambda d: d.update(b=2), id="update"),
        pytest.param(lambda d: d.pop("a"), id="pop"),
        pytest.param(lambda d: d.setdefault("c", 3), id="setdefault"),
        pytest.param(lambda d: d.clear(), id="clear"),
    ],
)
def test_refuses_mutation(mutate):
    """Every mutator raises TypeError."""
    d = freeze({"a": 1})
    with pytest.raises(TypeError, match="read-only"):
        mutate(d)
    assert d == {"a": 1}


def test_hash_by_content_and_pickle():
    """Equal contents hash equally and survive pickling."""
    a, b = freeze({"x": "1", "y": "2"}), FrozenDict({"y": "2", "x": "1"})
    assert hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a


def test_freeze_shares_empty_and_passes_through():
    """freeze(None) is the shared empty mapping; a FrozenDict passes unchanged."""
    assert freeze(None) is freeze({})
    d = freeze({"a": 1})
    assert freeze(d) is d
