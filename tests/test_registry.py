"""Tests for Registry."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Registry, UnknownPluginError
from schedframe.errors import DuplicatePluginError


class _P:
    name = "P"


def _factory(args, handle):
    return _P()


def test_register_and_lookup():
    """A registered factory is found with its args type."""
    reg = Registry()
    reg.register("NodeName", _factory, args_type=dict)
    assert reg["NodeName"].factory is _factory
    assert reg["NodeName"].args_type is dict
    assert list(reg) == ["NodeName"]
    assert len(reg) == 1


def test_register_refuses_duplicates():
    """Registering a name twice is an error."""
    reg = Registry({"A": _factory})
    with pytest.raises(DuplicatePluginError, match="'A' already exists"):
        reg.register("A", _factory)


def test_unregister_refuses_unknown_and_suggests():
    """Unknown names are errors with a did-you-mean suggestion."""
    reg = Registry({"NodeName": _factory})
    with pytest.raises(UnknownPluginError, match="did you mean 'NodeName'"):
        reg.unregister("NodeNme")
    with pytest.raises(KeyError):
        reg["Nope"]


def test_unregister_removes():
    """unregister removes the entry."""
    reg = Registry({"A": _factory})
    reg.unregister("A")
    assert "A" not in reg


def test_merge_goes_through_register():
    """merge refuses duplicates like register."""
    a = Registry({"A": _factory})
    b = Registry({"B": _factory})
    a.merge(b)
    assert set(a) == {"A", "B"}
    with pytest.raises(DuplicatePluginError):
        a.merge(b)


@pytest.mark.parametrize("bad", [pytest.param("", id="empty"), pytest.param(3, id="not a string")])
def test_register_refuses_bad_names(bad):
    """Plugin names must be non-empty strings."""
    with pytest.raises(DuplicatePluginError, match="non-empty string"):
        Registry().register(bad, _factory)


def test_register_refuses_non_callable():
    """Factories must be callable."""
    with pytest.raises(TypeError, match="must be callable"):
        Registry().register("X", 3)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "candidates", "expected"), [
    ("gpu", ["cpu", "memory"], None),             # three letters: a substitution is another word
    ("arg", ["args", "name"], "args"),            # ... an added letter is a typo
    ("pod", ["Pod", "Node"], "Pod"),              # letter case
    ("memroy", ["cpu", "memory"], "memory"),      # swapped neighbours count one edit
    ("NodeResourceFit", ["NodeResourcesFit", "NodeResourcesBalancedAllocation"], "NodeResourcesFit"),
    ("Coscheduling", ["NodeResourcesFit"], None),
    ("nodeSelecter", ["nodeName", "nodeSelector"], "nodeSelector"),
    ("x" * 300, ["x" * 300], None),               # bounded work
    (3, ["3"], None),
])
def test_one_did_you_mean_for_every_name(name: Any, candidates: list[str], expected: str | None) -> None:
    """Plugin names, kinds, fields, resource names and gates share one suggestion rule."""
    from schedframe.errors import closest_name, did_you_mean
    from schedframe.framework.registry import close_plugin_name

    assert closest_name(name, candidates) == expected
    if isinstance(name, str):
        assert close_plugin_name(name, candidates) == expected
        assert did_you_mean(name, candidates) == ("" if expected is None else f"; did you mean {expected!r}?")


def test_equally_close_names_get_no_suggestion() -> None:
    from schedframe.errors import closest_name

    assert closest_name("node-9", ["node-0", "node-1", "node-2"]) is None
    assert closest_name("node-9", ["node-0", "node-19"]) is None
    assert closest_name("nod-1", ["node-0", "node-1"]) == "node-1"
