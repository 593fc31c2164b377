"""Tests for CycleState and StateKey."""

from __future__ import annotations

import attrs
import pytest

from schedframe import CycleState, StateKey
from schedframe.errors import StateNotFoundError

KEY: StateKey[int] = StateKey("PreFilterFoo", writer="Foo")


@attrs.define
class Counter:
    n: int = 0

    def clone(self) -> Counter:
        return Counter(self.n)


def test_write_then_read():
    """A written value reads back under the same key."""
    state = CycleState()
    state.write(KEY, 3)
    assert state.read(KEY) == 3
    assert KEY in state


def test_missing_key_names_key_and_writer():
    """Reading an unwritten key raises StateNotFoundError naming key and writer."""
    with pytest.raises(StateNotFoundError, match=r"'PreFilterFoo' not found \(written by plugin 'Foo'"):
        CycleState().read(KEY)


def test_missing_key_is_a_key_error():
    """StateNotFoundError is catchable as KeyError."""
    with pytest.raises(KeyError):
        CycleState().read(StateKey("x"))


def test_get_and_delete():
    """get returns None when absent; delete removes."""
    state = CycleState()
    assert state.get(KEY) is None
    state.write(KEY, 1)
    state.delete(KEY)
    assert state.get(KEY) is None
    state.delete(KEY)  # deleting twice is fine


def test_clone_clones_values_with_clone_and_shares_frozen():
    """clone() clones values that have clone() and shares the others."""
    state = CycleState()
    ckey: StateKey[Counter] = StateKey("c")
    fkey: StateKey[tuple[int, ...]] = StateKey("f")
    state.write(ckey, Counter(1))
    state.write(fkey, (1, 2))
    state.skip_filter_plugins = {"A"}
    copy = state.clone()
    copy.read(ckey).n = 5
    assert state.read(ckey).n == 1
    assert copy.read(fkey) is state.read(fkey)
    assert copy.skip_filter_plugins == {"A"}
