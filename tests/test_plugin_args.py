"""Declared plugin args (``schedframe.framework.args``): an attrs class is decoded, checked and
written back by the framework, with field paths in every error."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import ConfigurationError, PluginArgsError, Registry, SchedulerConfiguration, plugin_args
from schedframe.framework.args import args_decoder, decode_args, encode_args, validate_args
from schedframe.plugins import in_tree_registry


@attrs.frozen(kw_only=True)
class Window:
    start_seconds: int = attrs.field(default=0, metadata={"min": 0})
    label: str | None = None


@attrs.frozen(kw_only=True)
class Args:
    max_pods: int = attrs.field(default=10, metadata={"min": 1, "max": 1000})
    ratio: float = 0.5
    enabled: bool = True
    zones: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    weights: Mapping[str, int] = attrs.field(factory=dict)
    window: Window = attrs.field(factory=Window)
    mode: str = attrs.field(default="fast", metadata={"json": "scoringMode"})

    def errors(self) -> list[str]:
        return [f"zones[{i}]: {z!r} twice" for i, z in enumerate(self.zones) if z in self.zones[:i]]


def test_fields_are_read_by_camel_case_name_and_annotation() -> None:
    args = decode_args(Args, {"maxPods": 3, "ratio": 1, "enabled": False, "zones": ["a", "b"],
                              "weights": {"a": 2}, "window": {"startSeconds": 5, "label": "x"},
                              "scoringMode": "slow", "apiVersion": "v1", "kind": "Args"})
    assert args == Args(max_pods=3, ratio=1.0, enabled=False, zones=("a", "b"), weights={"a": 2},
                        window=Window(start_seconds=5, label="x"), mode="slow")
    assert isinstance(args.ratio, float)
    assert encode_args(args) == {"maxPods": 3, "ratio": 1.0, "enabled": False, "zones": ["a", "b"],
                                 "weights": {"a": 2}, "window": {"startSeconds": 5, "label": "x"},
                                 "scoringMode": "slow"}
    assert decode_args(Args, encode_args(args)) == args


def test_every_problem_is_reported_with_its_path() -> None:
    with pytest.raises(PluginArgsError) as info:
        decode_args(Args, {"maxPods": 0, "ratio": "high", "enabled": 1, "zones": ["a", 3],
                           "weights": {"a": "x"}, "window": {"startSeconds": -1, "lable": "y"},
                           "maxPod": 2, "colour": "red"})
    assert info.value.errors == [
        "maxPods: must be at least 1, got 0",
        "ratio: must be a number, got string",
        "enabled: must be a boolean, got integer",
        "zones[1]: must be a string, got integer",
        "weights.a: must be an integer, got string",
        "window.startSeconds: must be at least 0, got -1",
        "window.lable: unknown field; did you mean 'label'?",
        "maxPod: unknown field; did you mean 'maxPods'?",
        "colour: unknown field; known fields: maxPods, ratio, enabled, zones, weights, window, scoringMode",
    ]
    with pytest.raises(PluginArgsError) as info:
        decode_args(Args, {"maxPods": 0, "zones": ["a", "b", "a"]})
    # the class's own check runs on the values that were good
    assert info.value.errors == ["maxPods: must be at least 1, got 0", "zones[2]: 'a' twice"]


@settings(max_examples=60, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**30), 10**30) | st.booleans())
def test_numbers_are_finite_bounded_and_typed(value: Any) -> None:
    ok_int = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if ok_int and 1 <= value <= 1000:
        assert decode_args(Args, {"maxPods": value}).max_pods == int(value)
    else:
        with pytest.raises(PluginArgsError) as info:
            decode_args(Args, {"maxPods": value})
        assert info.value.errors[0].startswith("maxPods: must be")
        assert len(info.value.errors[0]) < 200


def test_plugin_args_turns_what_a_factory_gets_into_checked_args() -> None:
    assert plugin_args(None, Args) == Args()
    given = Args(max_pods=4)
    assert plugin_args(given, Args) is given
    assert plugin_args({"maxPods": 4}, Args) == given
    with pytest.raises(PluginArgsError, match="want args of type Args, got int"):
        plugin_args(3, Args)
    with pytest.raises(PluginArgsError, match=r"zones\[1\]: 'a' twice"):
        plugin_args(Args(zones=("a", "a")), Args)  # an instance is checked too
    validate_args(object())  # neither validate() nor errors(): nothing to check


def test_a_hand_written_from_dict_is_kept() -> None:
    class Own:
        @classmethod
        def from_dict(cls, data: Mapping[str, Any]) -> str:
            return "mine"

    assert args_decoder(Own) is not None
    assert args_decoder(Own)({}) == "mine"  # type: ignore[misc]
    assert args_decoder(object) is None
    assert args_decoder(None) is None
    with pytest.raises(PluginArgsError, match="declared args must be an attrs class"):
        decode_args(object, {})


def test_declared_args_through_the_configuration_and_back() -> None:
    """An out-of-tree plugin with declared args: the configuration decodes them (errors with the
    document's path), the runtime hands them to the factory, and to_dict writes them back."""
    seen: list[Any] = []

    class Plugin:
        name = "Declared"

        def __init__(self, args: Args) -> None:
            self.args = args

        def filter(self, state: Any, pod: Any, node_info: Any) -> None:
            return None

    def new(args: object, handle: Any) -> Plugin:
        parsed = plugin_args(args, Args)
        seen.append(parsed)
        return Plugin(parsed)

    registry = Registry(in_tree_registry())
    registry.register("Declared", new, args_type=Args)
    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Declared"}]}},
                         "pluginConfig": [{"name": "Declared", "args": {"maxPods": 7}}]}]}
    config = SchedulerConfiguration.from_dict(doc, registry=registry)
    assert config.profiles[0].plugin_args["Declared"] == Args(max_pods=7)
    written = config.to_dict()["profiles"][0]["pluginConfig"]
    assert {"name": "Declared", "args": encode_args(Args(max_pods=7))} in written
    assert SchedulerConfiguration.from_dict(config.to_dict(), registry=registry) == config
    from schedframe import Scheduler

    Scheduler(config, registry=registry)
    assert Args(max_pods=7) in seen
    doc["profiles"][0]["pluginConfig"][0]["args"] = {"maxPods": 0}
    with pytest.raises(ConfigurationError, match=r"pluginConfig\[0\]\.args\.maxPods: must be at least 1"):
        SchedulerConfiguration.from_dict(doc, registry=registry)


def test_annotations_that_do_not_resolve_are_read_as_any() -> None:
    @attrs.frozen(kw_only=True)
    class Odd:
        spec: Unresolvable = None  # type: ignore[name-defined]  # noqa: F821

    assert decode_args(Odd, {"spec": {"a": 1}}) == Odd(spec={"a": 1})
    with pytest.raises(PluginArgsError, match="unknown field"):
        decode_args(Odd, {"spek": 1})


# -- Go's decoding rules, defaulting, inline structs, per-field codecs ----------------------------


@attrs.frozen(kw_only=True)
class Provider:
    type: str = ""
    address: str = ""


@attrs.frozen(kw_only=True)
class Common:
    provider: Provider = attrs.field(factory=Provider)
    watcher: str | None = None


def _seconds(raw: Any, path: str) -> float:
    if not isinstance(raw, str) or not raw.endswith("s"):
        raise ValueError(f"want a duration such as '10s', got {raw!r}")
    return float(raw[:-1])


@attrs.frozen(kw_only=True)
class Point:
    utilization: int
    score: int = 7


@attrs.frozen(kw_only=True)
class GoArgs:
    KIND: ClassVar[str] = "GoArgs"

    common: Common = attrs.field(factory=Common, metadata={"inline": True})
    timeout: float = attrs.field(default=10.0, metadata={"decode": _seconds, "encode": lambda s: f"{s:g}s"})
    limit: int = 5
    points: tuple[Point, ...] = ()
    ignored: tuple[str, ...] = attrs.field(default=(), metadata={"omitempty": True})
    retired: int | None = attrs.field(default=None, metadata={"omit": True})

    def with_defaults(self) -> GoArgs:
        return attrs.evolve(self, limit=self.limit if self.limit > 0 else 5)


def test_go_decoding_rules() -> None:
    """null keeps the default; a nested object's missing fields are zero values; the top level
    is defaulted by with_defaults (upstream's SetDefaults)."""
    args = decode_args(GoArgs, {"limit": None, "points": [{"utilization": 50}, {}], "kind": "GoArgs"})
    assert args.limit == 5
    assert args.points == (Point(utilization=50, score=0), Point(utilization=0, score=0))
    assert decode_args(GoArgs, {"limit": -1}).limit == 5
    with pytest.raises(PluginArgsError, match="kind: must be GoArgs, got 'OtherArgs'"):
        decode_args(GoArgs, {"kind": "OtherArgs"})


def test_inline_fields_are_read_and_written_at_the_same_level() -> None:
    args = decode_args(GoArgs, {"provider": {"type": "Prometheus"}, "watcher": "http://w", "timeout": "3s"})
    assert args.common == Common(provider=Provider(type="Prometheus"), watcher="http://w")
    assert args.timeout == 3.0
    assert encode_args(args) == {"provider": {"type": "Prometheus", "address": ""}, "watcher": "http://w",
                                 "timeout": "3s", "limit": 5, "points": []}
    assert decode_args(GoArgs, encode_args(args)) == args
    with pytest.raises(PluginArgsError) as info:
        decode_args(GoArgs, {"provider": {"typ": "x"}, "timeout": 3, "watchr": "y"})
    assert [e.split(";")[0] for e in info.value.errors] == [
        "provider.typ: unknown field", "timeout: want a duration such as '10s', got 3",
        "watchr: unknown field"]


def test_omitted_fields_are_read_but_not_written() -> None:
    args = decode_args(GoArgs, {"retired": 3, "ignored": []})
    assert args.retired == 3
    assert "retired" not in encode_args(args)
    assert "ignored" not in encode_args(args)
    assert encode_args(attrs.evolve(args, ignored=("x",)))["ignored"] == ["x"]


@attrs.frozen(kw_only=True)
class Renamed:
    """A class whose ``__module__`` names another module (as a package re-exporting it does)."""

    __module__ = "tests"

    point: Point = attrs.field(factory=lambda: Point(utilization=1))

    def errors(self) -> list[str]:
        return []


def test_annotations_resolve_where_the_class_was_written() -> None:
    args = decode_args(Renamed, {"point": {"utilization": 4}})
    assert args.point == Point(utilization=4, score=0)
