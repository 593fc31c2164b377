"""Hostile ``KubeSchedulerConfiguration`` documents: real configurations mutated at random paths
(wrong types, deleted keys, unknown fields, huge / negative / NaN numbers and weights, bad plugin
args, deep nesting), YAML bombs and non-mapping roots. Only
:class:`~schedframe.ConfigurationError` escapes, every error names a field path, every case is
decided in bounded time, and what validates builds a working scheduler and round-trips."""

from __future__ import annotations

import copy
import math
import pathlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import ConfigurationError, FakeClock, SchedframeError, SchedulerConfiguration
from schedframe.api.manifests import MAX_YAML_DEPTH
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod

DATA = pathlib.Path(__file__).parent / "data" / "config"
#: seconds a hostile case may take (a hang or an exponential blow-up takes far longer; the margin
#: absorbs a loaded machine's stalls)
BOUND = 5.0
#: seconds a bomb may take to be refused (measured: milliseconds)
FAST = 2.0
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HUGE_INT = 10**5000  # more digits than str() converts: kept out of Hypothesis, which prints values

RICH: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "parallelism": 8,
    "percentageOfNodesToScore": 40,
    "podInitialBackoffSeconds": 2,
    "podMaxBackoffSeconds": 20,
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "percentageOfNodesToScore": 70,
            "plugins": {
                "multiPoint": {"enabled": [{"name": "NodeAffinity", "weight": 3}]},
                "score": {"enabled": [{"name": "ImageLocality", "weight": 7}],
                          "disabled": [{"name": "NodeResourcesBalancedAllocation"}]},
                "filter": {"disabled": [{"name": "NodePorts"}]},
                "postBind": {"disabled": [{"name": "*"}]},
            },
            "pluginConfig": [
                {"name": "NodeResourcesFit", "args": {
                    "ignoredResources": ["example.com/foo"],
                    "ignoredResourceGroups": ["example.org"],
                    "scoringStrategy": {
                        "type": "RequestedToCapacityRatio",
                        "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
                        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10},
                                                               {"utilization": 100, "score": 0}]}}}},
                {"name": "PodTopologySpread", "args": {
                    "defaultingType": "List",
                    "defaultConstraints": [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
                                            "whenUnsatisfiable": "ScheduleAnyway"}]}},
                {"name": "NodeAffinity", "args": {"addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 5, "preference": {"matchExpressions": [
                            {"key": "disk", "operator": "Exists"}]}}]}}},
                {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 5,
                                                      "ignorePreferredTermsOfExistingPods": True}},
                {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 20,
                                                       "minCandidateNodesAbsolute": 50}},
                {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
                    {"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]}},
            ],
        },
        {
            "schedulerName": "gangs",
            "plugins": {point: {"enabled": [{"name": "Coscheduling"}]}
                        for point in ("preEnqueue", "preFilter", "postFilter", "reserve", "permit")},
            "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 30}}],
        },
    ],
}


def _bases() -> list[dict[str, Any]]:
    docs = [RICH, SchedulerConfiguration.default().to_dict()]
    for name in ("minimal.yaml", "two-profiles.yaml", "written-by-kube-scheduler.yaml", "invalid.yaml"):
        docs.append(yaml.safe_load((DATA / name).read_text()))
    return docs


BASES = _bases()

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 1, 100, 101, 2**31 - 1, 2**31, -(2**31) - 1, 2**63, 10**30, -(10**30), 10**4000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, 0.5, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["", "*", "default-scheduler", "NodeResourcesFit", "NodeNme", "LeastAllocated",
                     "MostAllocated", "RequestedToCapacityRatio", "List", "System", "In", "Exists",
                     "cpu", "memory", "10s", "kubescheduler.config.k8s.io/v1", "v1beta3",
                     "KubeSchedulerConfiguration", "NodeResourcesFitArgs", "\x00", "\u202e", "x" * 50_000]),
    st.binary(max_size=4),
    st.dates(),
)


def _deep(n: int) -> Any:
    value: Any = "x"
    for i in range(n):
        value = [value] if i % 2 else {"k": value}
    return value


_values = st.one_of(
    st.recursive(_scalars, lambda c: st.lists(c, max_size=3)
                 | st.dictionaries(st.one_of(st.text(max_size=8), st.integers(), st.none()), c, max_size=3),
                 max_leaves=6),
    st.integers(50, 150).map(_deep),  # deeper values: see test_extreme_value_at_every_path
)


def _slots(doc: Any) -> Iterator[tuple[Any, Any]]:
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                yield node, k
                stack.append(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield node, i
                stack.append(v)


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A real configuration with 1-3 random mutations (replace, delete, add an unknown field or
    item, wrap in a list or mapping)."""
    doc: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        slots = list(_slots(doc))
        if not slots:  # everything was deleted
            doc[draw(st.text(max_size=8))] = draw(_values)
            continue
        container, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add", "wrap"]))
        if op == "replace":
            container[key] = draw(_values)
        elif op == "delete":
            if isinstance(container, dict):
                del container[key]
            else:
                container.pop(key)
        elif op == "add":
            target = container[key]
            if isinstance(target, dict):
                target[draw(st.one_of(st.text(max_size=8), st.sampled_from(["weight", "args", "name"])))] = (
                    draw(_values))
            elif isinstance(target, list):
                target.append(draw(_values))
            else:
                container[key] = draw(_values)
        else:
            container[key] = [container[key]] if draw(st.booleans()) else {"enabled": container[key]}
    return doc


def _timed(fn: Any, *args: Any, bound: float = BOUND) -> Any:
    start = time.perf_counter()
    try:
        return fn(*args)
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < bound, f"took {elapsed:.1f}s"


def _attempt(fn: Any, *args: Any) -> tuple[Any, ConfigurationError | None]:
    """``(fn(*args), None)`` or ``(None, error)`` for a ConfigurationError; anything else raised
    (another SchedframeError included) fails the test."""
    try:
        return _timed(fn, *args), None
    except ConfigurationError as e:
        return None, e
    except SchedframeError as e:  # pragma: no cover - a wrong error type is a bug
        raise AssertionError(f"{type(e).__name__} instead of ConfigurationError: {e}") from e


def _check_errors(error: ConfigurationError) -> None:
    assert error.errors
    for e in error.errors:  # "<field path>: <message>", e.g. "profiles[0].pluginConfig[2].args.x: ..."
        path, sep, message = e.partition(": ")
        assert sep, f"error without a field path: {e!r}"
        assert path, f"error without a field path: {e!r}"
        assert message, f"error without a message: {e!r}"
        assert " " not in path, f"error without a field path: {e!r}"


def _check_valid(config: SchedulerConfiguration) -> None:
    """A configuration that validated builds a scheduler that schedules, and round-trips."""
    again = SchedulerConfiguration.from_dict(config.to_dict())
    assert again == config
    s = Scheduler(config, clock=FakeClock())
    s.add_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).label("zone", "a").obj())
    for profile in config.profiles:
        s.add_pod(make_pod(f"p-{len(s.pods())}").scheduler_name(profile.scheduler_name)
                  .req(cpu="100m").obj())
    s.run_until_idle(max_cycles=20)


@FUZZ
@given(mutated())
def test_mutated_configuration(doc: dict[str, Any]) -> None:
    """A mutated configuration validates (and works) or raises ConfigurationError, every error
    with its field path."""
    config, error = _attempt(SchedulerConfiguration.from_dict, doc)
    if error is not None:
        _check_errors(error)
    else:
        _check_valid(config)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_configuration_as_yaml(doc: dict[str, Any]) -> None:
    """Through from_yaml the outcome is the same as through from_dict."""
    text = yaml.safe_dump(doc)
    config, error = _attempt(SchedulerConfiguration.from_yaml, text)
    if error is not None and re.search(r"nested more than|invalid YAML in the configuration at line"
                                            r"|duplicate key",
                                            str(error)):
        return  # refused as YAML only (a mapping that deep, or keys None and 'null' written
        # as one duplicate key, which from_dict sees as distinct)
    want, want_error = _attempt(SchedulerConfiguration.from_dict, yaml.safe_load(text))
    assert (error is None) == (want_error is None)
    if error is not None and want_error is not None:
        assert error.errors == want_error.errors
    else:
        assert config == want


@FUZZ
@given(st.one_of(st.text(), st.text(alphabet="{}[]:,-&*!|>'\"#%@` \n\t01aZ.~?")))
def test_arbitrary_text(text: str) -> None:
    """Arbitrary text: a configuration or a ConfigurationError."""
    config, error = _attempt(SchedulerConfiguration.from_yaml, text)
    assert error is not None or isinstance(config, SchedulerConfiguration)


@pytest.mark.parametrize("weight", [0, -1, 100, 101, 2**31 - 1, 2**31, -(2**31) - 1, 10**30, HUGE_INT,
                                    -HUGE_INT, 1.5, 2.0, math.nan, math.inf, "3", True, None, [1]],
                         ids=lambda w: "huge" if w in (HUGE_INT, -HUGE_INT) else repr(w))
@pytest.mark.parametrize("point", ["score", "multiPoint"])
def test_score_weights(point: str, weight: Any) -> None:
    """Any weight at score or multiPoint: a working configuration or a ConfigurationError naming
    the weight's path."""
    doc = {"profiles": [{"plugins": {point: {"enabled": [{"name": "ImageLocality", "weight": weight}]}}}]}
    config, error = _attempt(SchedulerConfiguration.from_dict, doc)
    if error is None:
        _check_valid(config)
    else:
        _check_errors(error)
        assert any(f"plugins.{point}.enabled[0].weight" in e for e in error.errors), error.errors


BAD_ARGS = [
    ("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu", "weight": HUGE_INT}]}}),
    ("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu", "weight": math.inf}]}}),
    ("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 1e300}]}}),
    ("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio":
                                              {"shape": [{"utilization": HUGE_INT, "score": -HUGE_INT}]}}}),
    ("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio":
                                              {"shape": [{"utilization": math.nan, "score": 1e300}]}}}),
    ("NodeResourcesFit", {"ignoredResources": _deep(2000)}),
    ("NodeResourcesBalancedAllocation", {"resources": [{"name": HUGE_INT, "weight": 1}]}),
    ("NodeResourcesBalancedAllocation", {"resources": {"name": "cpu"}}),
    ("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [{"maxSkew": HUGE_INT}]}),
    ("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1e300,
                                                                             "topologyKey": "z"}]}),
    ("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": _deep(2000)}),
    ("InterPodAffinity", {"hardPodAffinityWeight": HUGE_INT}),
    ("InterPodAffinity", {"hardPodAffinityWeight": math.nan}),
    ("DefaultPreemption", {"minCandidateNodesPercentage": 1e300, "minCandidateNodesAbsolute": -HUGE_INT}),
    ("NodeAffinity", {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": _deep(2000)}}),
    ("NodeAffinity", {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": HUGE_INT, "preference": {}}]}}),
    ("Coscheduling", {"permitWaitingTimeSeconds": HUGE_INT}),
    ("Coscheduling", {"permitWaitingTimeSeconds": math.nan}),
    ("Coscheduling", {"permitWaitingTimeSeconds": -math.inf}),
    ("ImageLocality", {"anything": _deep(2000)}),
    ("NodeResourcesFit", {HUGE_INT: 1, None: 2, ("a",): 3}),
]


@pytest.mark.parametrize(("plugin", "args"), BAD_ARGS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(BAD_ARGS)])
def test_extreme_plugin_args(plugin: str, args: Any) -> None:
    """Extreme plugin args (ints too long to print, NaN, deep nesting, odd keys): a working
    configuration or a ConfigurationError under that pluginConfig entry."""
    plugins = {"multiPoint": {"enabled": [{"name": plugin}]}}
    if plugin == "Coscheduling":  # it sorts the queue too: only one QueueSort per profile
        plugins["queueSort"] = {"disabled": [{"name": "PrioritySort"}]}
    doc = {"profiles": [{"plugins": plugins, "pluginConfig": [{"name": plugin, "args": args}]}]}
    config, error = _attempt(SchedulerConfiguration.from_dict, doc)
    if error is None:
        _check_valid(config)
    else:
        _check_errors(error)
        assert any(e.startswith("profiles[0].pluginConfig[0]") for e in error.errors), error.errors


@pytest.mark.parametrize("value", [HUGE_INT, -HUGE_INT, 10**30, math.nan, math.inf, -math.inf, 1e300,
                                   _deep(3000), "x" * 100_000],
                         ids=["huge int", "huge negative", "1e30 int", "nan", "inf", "-inf", "1e300",
                              "3000 deep", "100k chars"])
def test_extreme_value_at_every_path(value: Any) -> None:
    """Every field of the rich, two-profile and kube-scheduler-written configurations replaced by
    an extreme value: a configuration or a ConfigurationError whose errors all name a path."""
    cases = 0
    for base in (BASES[0], BASES[3], BASES[4]):
        for i in range(len(list(_slots(base)))):
            doc = copy.deepcopy(base)
            container, key = list(_slots(doc))[i]
            container[key] = value
            _, error = _attempt(SchedulerConfiguration.from_dict, doc)
            if error is not None:
                _check_errors(error)
            cases += 1
    assert cases > 150


# --------------------------------------------------------------------------------------------
# YAML bombs and hostile documents


def _laughs(levels: int, key: str = "profiles") -> str:
    lines = ["a0: &a0 [{schedulerName: x}, {schedulerName: x}, {schedulerName: x}, {schedulerName: x}]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"{key}: *a{levels}")
    return "\n".join(lines) + "\n"


# Nesting past our limit is refused either by our own scan ("nested more than 256 levels deep at
# line L, column C") or, for flow collections, by PyYAML's scanner first (newer releases cap the
# flow level themselves); either way our error type with a location, whatever PyYAML's wording.
DEEP = r"at line \d+, column \d+"

HOSTILE = [
    pytest.param(_laughs(9), "excessive aliasing", id="billion laughs"),
    pytest.param(_laughs(8, key="parallelism"), "excessive aliasing", id="laughs in a scalar field"),
    pytest.param("&a {profiles: [*a]}\n", "recursive", id="recursive profiles"),
    pytest.param("profiles:\n- pluginConfig:\n  - &c {name: ImageLocality, args: {x: *c}}\n", "recursive",
                 id="recursive args"),
    pytest.param("profiles: " + "[" * 100_000 + "]" * 100_000 + "\n", DEEP, id="deep flow"),
    pytest.param("- " * 50_000 + "x\n", DEEP, id="deep block"),
    pytest.param("[" * 100_000 + "]" * 100_000, DEEP, id="deep json"),
    pytest.param("parallelism: " + "9" * 5000 + "\n", "4300 digits", id="huge int"),
    pytest.param("parallelism: 2024-13-45\n", "month must be in", id="impossible date"),
    pytest.param("parallelism: !!int abc\n", "invalid literal", id="bad int tag"),
    pytest.param("!!python/object/apply:os.system [echo pwned]\n", "could not determine a constructor",
                 id="python tag"),
    pytest.param("profiles: *nothing\n", "invalid YAML", id="undefined alias"),
    pytest.param("- a\n- b\n", "must be a mapping, got list", id="list root"),
    pytest.param("42\n", "must be a mapping, got int", id="int root"),
    pytest.param("just text\n", "must be a mapping, got str", id="string root"),
    pytest.param('{"profiles": [}', "invalid YAML", id="invalid json"),
    pytest.param("a: 1\n---\nb: 2\n", "invalid YAML", id="two documents"),
]


@pytest.mark.parametrize(("text", "match"), HOSTILE)
def test_hostile_yaml_fails_fast(text: str, match: str) -> None:
    """Bombs, recursion, deep nesting, refused scalars, non-mapping roots: a prompt ConfigurationError."""
    with pytest.raises(ConfigurationError, match=match):
        _timed(SchedulerConfiguration.from_yaml, text, bound=FAST)


def test_yaml_depth_limit() -> None:
    """Nesting up to MAX_YAML_DEPTH is read (and validated); deeper is refused."""
    ok = "profiles: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1) + "\n"
    with pytest.raises(ConfigurationError, match=r"profiles\[0\]: Invalid value"):
        SchedulerConfiguration.from_yaml(ok)
    with pytest.raises(ConfigurationError, match=f"nested more than {MAX_YAML_DEPTH} levels"):
        SchedulerConfiguration.from_yaml("profiles: " + "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH + "\n")


def test_yaml_is_read_with_a_safe_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    """from_yaml never uses PyYAML's unsafe loaders (python/object tags are refused above)."""
    used: list[Any] = []
    real = yaml.load

    def spy(stream: Any, Loader: Any) -> Any:
        used.append(Loader)
        return real(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "load", spy)
    SchedulerConfiguration.from_yaml("parallelism: 4\n")
    assert used
    safe = (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert all(issubclass(loader, safe) for loader in used)


def test_duplicate_keys_in_configuration_yaml_are_refused() -> None:
    """The API server's strict decoding refuses a key given twice; so do we, with its line."""
    text = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles: []\nprofiles: []\n")
    with pytest.raises(ConfigurationError, match=r"duplicate key 'profiles' at line 4"):
        SchedulerConfiguration.from_yaml(text)


def test_odd_field_names_keep_one_token_paths() -> None:
    """A field named " " or "a: b" (found by the fuzzer) is quoted in the path, which stays one
    token before the message."""
    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "x", " ": 1, "a: b": 2}]}
    error, = [e for e in [_attempt(SchedulerConfiguration.from_dict, doc)[1]] if e is not None]
    _check_errors(error)
    assert sorted(e.partition(": ")[0] for e in error.errors) == [
        'profiles[0]["\\u0020"]', 'profiles[0]["a\\u003a\\u0020b"]']
