"""Hostile manifests: near-valid Pod/Node/List documents (real manifests mutated at random paths:
wrong types, deleted keys, huge, negative, NaN/inf numbers, unicode, very long strings, deep
nesting), YAML bombs (billion laughs, recursive aliases, deep nesting), non-mapping roots and
invalid JSON. Only :class:`~schedframe.ManifestError` (naming a field path when the document is a
mapping) may escape, always within a bounded time; what reads back is a valid object that writes,
reads back equal and schedules."""

from __future__ import annotations

import copy
import datetime as dt
import json
import math
import pathlib
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from schedframe import (
    FakeClock,
    ManifestError,
    Namespace,
    Node,
    Pod,
    SchedframeError,
    SchedframeWarning,
    load_manifests,
)
from schedframe.api.manifests import MAX_YAML_DEPTH, object_from_manifest, object_to_manifest
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod, selector

DATA = pathlib.Path(__file__).parent / "data"
#: a hostile case must be decided within this many seconds
#: seconds a hostile case may take (a hang or an exponential blow-up takes far longer; the margin
#: absorbs a loaded machine's stalls)
BOUND = 5.0
#: seconds a bomb may take to be refused (measured: milliseconds)
FAST = 2.0
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rich_pod() -> dict[str, Any]:
    """A pod manifest using most fields schedframe reads."""
    p = (make_pod("rich", "shop").label("app", "web").annotation("a", "b").owner("ReplicaSet", "web-1")
         .creation_timestamp(1_700_000_000.5).priority(10).scheduler_name("default-scheduler")
         .node_selector({"disk": "ssd"}).container("nginx:1", cpu="500m", memory="1Gi")
         .init_req(cpu="1", memory="10Mi").overhead(cpu="10m").host_port(8080)
         .toleration("k", "v", "NoSchedule").node_affinity_in("zone", ["a", "b"])
         .preferred_node_affinity(5, "disk", ["ssd"])
         .pod_affinity_in("app", ["db"], "kubernetes.io/hostname")
         .pod_affinity_in("app", ["web"], "zone", anti=True)
         .spread_constraint(1, "zone", "DoNotSchedule", selector({"app": "web"}))
         .scheduling_gates("g").preemption_policy("Never").nominated_node_name("n1")
         .condition("PodScheduled", "False").obj())
    return p.to_manifest()


def _rich_node() -> dict[str, Any]:
    n = (make_node("rich").capacity(cpu="8", memory="32Gi", pods=110).allocatable(cpu="7500m", memory="30Gi")
         .label("zone", "a").annotation("x", "y").taint("k", "v", "NoExecute").unschedulable()
         .image("nginx:1", 1_000_000, "nginx:latest").condition("Ready").obj())
    return n.to_manifest()


def _bases() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = [_rich_pod(), _rich_node()]
    cluster = yaml.safe_load((DATA / "cluster.yaml").read_text())
    docs.extend(cluster["items"])
    docs.extend(d for d in yaml.safe_load_all((DATA / "objects.yaml").read_text()) if d)
    docs.append({"apiVersion": "v1", "kind": "List", "items": copy.deepcopy(docs[:3])})
    return docs


BASES = _bases()
#: more digits than int() / str() convert by default (kept out of Hypothesis, which prints its
#: values; see test_huge_int_at_every_path)
HUGE_INT = 10**5000

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**31, -(2**31) - 1, 2**63, -(2**63) - 1, 10**30, -1, 0, 10**4000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 5e-324]),
    st.text(max_size=12),
    st.sampled_from(["", "500m", "1Gi", "-1", "-500m", "1e309", "NaN", "Infinity", "+Inf", "0x10",
                     "1e-9", "9" * 60, "1E999999999", "\U0001d7d9\U0001d7d8", "\x00", "\u202e", "Ünïcödé ✓",
                     "2024-13-45T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
                     "a" * 100_000, "In", "Exists", "NoSchedule", "TCP", "Always"]),
    st.datetimes(timezones=st.none() | st.just(dt.timezone.utc)),
    st.dates(),
    st.binary(max_size=6),
    st.just(frozenset({"set"})),
)


def _deep(n: int, leaf: Any = "x") -> Any:
    value: Any = leaf
    for i in range(n):
        value = [value] if i % 2 else {"k": value}
    return value


_values = st.one_of(
    st.recursive(_scalars, lambda c: st.lists(c, max_size=3)
                 | st.dictionaries(st.one_of(st.text(max_size=6), st.integers(), st.none()), c, max_size=3),
                 max_leaves=6),
    st.integers(50, 150).map(_deep),  # deeper values: see test_extreme_value_at_every_path
)


def _slots(doc: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key/index) of *doc*, the root's children included."""
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
    """A real manifest with 1-3 random mutations."""
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
                target[draw(st.one_of(st.text(max_size=8), st.integers()))] = draw(_values)
            elif isinstance(target, list):
                target.append(draw(_values))
            else:
                container[key] = draw(_values)
        else:
            container[key] = [container[key]] if draw(st.booleans()) else {"wrapped": container[key]}
    return doc


def _timed(fn: Any, *args: Any, bound: float = BOUND) -> Any:
    start = time.perf_counter()
    try:
        return fn(*args)
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < bound, f"took {elapsed:.1f}s"


def _attempt(fn: Any, *args: Any) -> tuple[Any, ManifestError | None]:
    """``(fn(*args), None)``, or ``(None, error)`` when it raises ManifestError (timed)."""
    try:
        return _timed(fn, *args), None
    except ManifestError as e:
        return None, e


def _read(doc: Any) -> list[Any] | ManifestError:
    """Read *doc* as load_manifests would (Lists expanded); the ManifestError if refused."""
    try:
        if isinstance(doc, dict) and doc.get("kind") == "List":
            return [_timed(object_from_manifest, item) for item in doc["items"] if isinstance(item, dict)
                    and item.get("kind") is not None] if isinstance(doc.get("items"), list) else []
        return [_timed(object_from_manifest, doc)]
    except ManifestError as e:
        return e
    except SchedframeError as e:  # pragma: no cover - a wrong error type is a bug
        raise AssertionError(f"{type(e).__name__} instead of ManifestError: {e}") from e


def _check_objects(objects: list[Any]) -> None:
    """What was read writes a manifest that reads back equal, and the scheduler accepts it."""
    s = Scheduler(clock=FakeClock())
    s.add_node(make_node("base").capacity(cpu="4", memory="8Gi", pods=110).obj())
    for obj in objects:
        try:
            manifest = object_to_manifest(obj)
        except ManifestError:
            continue  # e.g. a timestamp outside RFC 3339's range: documented
        assert object_from_manifest(manifest) == obj
        try:
            if isinstance(obj, Pod):
                s.add_pod(obj)
            elif isinstance(obj, Node):
                s.add_node(obj) if obj.name != "base" else None
            else:
                s.add_object(obj)
        except SchedframeError:
            continue  # duplicates and the like: documented misuse errors
    s.add_pod(make_pod("probe").req(cpu="100m").obj())
    s.run_until_idle(max_cycles=20)


@FUZZ
@given(mutated())
def test_mutated_manifest_reads_or_fails_with_path(doc: dict[str, Any]) -> None:
    """A mutated manifest reads as valid objects or raises ManifestError naming a field path."""
    got = _read(doc)
    if isinstance(got, ManifestError):
        assert got.path, f"no path in {got}"
        assert str(got).startswith(got.path)
        assert got.detail
        return
    _check_objects(got)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.sampled_from(["yaml", "json"]))
def test_mutated_manifest_as_text(doc: dict[str, Any], fmt: str) -> None:
    """The same documents as YAML or JSON text through load_manifests: objects or ManifestError."""
    try:
        text = yaml.safe_dump(doc) if fmt == "yaml" else json.dumps(doc)
    except (TypeError, ValueError, yaml.YAMLError, RecursionError):
        assume(False)  # not representable in that format
        raise
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchedframeWarning)  # a mutated kind may be one schedframe skips
        objects, error = _attempt(load_manifests, text)
    if error is None:
        _check_objects(objects)
    else:
        assert str(error)


@FUZZ
@given(st.one_of(st.text(), st.text(alphabet="{}[]:,-&*!|>'\"#%@` \n\t01aZ.~?"), st.binary()))
def test_arbitrary_text(text: str | bytes) -> None:
    """Arbitrary text (YAML or JSON punctuation soup) and bytes: objects or ManifestError."""
    if isinstance(text, str):
        text += "\n"  # manifest text, never a path
    _, error = _attempt(load_manifests, text)
    assert error is None or str(error)


# --------------------------------------------------------------------------------------------
# YAML bombs and hostile documents


def _laughs(levels: int, width: int = 9, root: str = "") -> str:
    lines = [root, "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*a{i - 1}"] * width)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def _list_laughs(levels: int) -> str:
    """Lists of Lists of the same pod: every level multiplies the pods by 9."""
    lines = ["p0: &p0 {kind: Pod, metadata: {name: p}}"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*p{i - 1}"] * 9)
        lines.append(f"p{i}: &p{i} {{kind: List, items: [{refs}]}}")
    lines.append(f"kind: List\nitems: [*p{levels}]")
    return "\n".join(lines) + "\n"


# Nesting past our limit is refused either by our own scan ("nested more than 256 levels deep at
# line L, column C") or, for flow collections, by PyYAML's scanner first (newer releases cap the
# flow level themselves); either way our error type with a location, whatever PyYAML's wording.
DEEP = r"at line \d+, column \d+"

BOMBS = [
    pytest.param(_laughs(9, root="kind: Pod"), "excessive aliasing", id="billion laughs"),
    pytest.param(_laughs(30, width=2, root="kind: Pod"), "excessive aliasing", id="doubling laughs"),
    pytest.param(_list_laughs(9), "excessive aliasing", id="laughing Lists"),
    pytest.param("&a {kind: List, items: [*a]}\n", "recursive", id="recursive List"),
    pytest.param("kind: Pod\nmetadata: &m {name: p, labels: *m}\n", "recursive", id="recursive labels"),
    pytest.param("&a [*a]\n", "recursive", id="recursive root"),
    pytest.param("kind: Pod\nspec: " + "[" * 100_000 + "]" * 100_000 + "\n", DEEP,
                 id="deep flow yaml"),
    pytest.param("- " * 50_000 + "x\n", DEEP, id="deep block sequence"),
    pytest.param("[" * 100_000 + "]" * 100_000, DEEP, id="deep json array"),
    pytest.param('{"a":' * 50_000 + "1" + "}" * 50_000, DEEP, id="deep json object"),
    pytest.param("kind: Pod\nmetadata: {name: p}\nspec: {priority: " + "9" * 5000 + "}\n", "4300 digits",
                 id="huge yaml int"),
    pytest.param('{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": ' + "9" * 5000 + "}}",
                 "4300 digits", id="huge json int"),
    pytest.param("kind: Pod\nmetadata: {name: p, creationTimestamp: 2024-13-45}\n", "month must be in",
                 id="impossible yaml date"),
    pytest.param("kind: Pod\nmetadata: {name: !!int abc}\n", "invalid literal", id="bad int tag"),
    pytest.param("!!python/object/apply:os.system [echo pwned]\n", "could not determine a constructor",
                 id="python tag"),
    pytest.param("kind: Pod\nmetadata: {name: *nothing}\n", "invalid YAML", id="undefined alias"),
    pytest.param("- 1\n- 2\n", "expected a Kubernetes object", id="list root"),
    pytest.param("42\n", "expected a Kubernetes object", id="scalar root"),
    pytest.param('"just a string"\n', "expected a Kubernetes object", id="string root"),
    pytest.param('{"kind": "Pod", "metadata": {"name": "p"}', "invalid YAML", id="truncated json"),
    pytest.param('{"kind": "Pod"} trailing', "invalid YAML", id="json trailing garbage"),
    pytest.param("\ufeff{\"kind\": 1}", "kind", id="bom and wrong kind type"),
]


@pytest.mark.parametrize(("text", "match"), BOMBS)
def test_hostile_yaml_and_json_fail_fast(text: str, match: str) -> None:
    """Bombs, recursion, deep nesting, values PyYAML's constructors refuse: a prompt ManifestError."""
    with pytest.raises(ManifestError, match=match):
        _timed(load_manifests, text, bound=FAST)


def test_yaml_depth_limit_is_exact() -> None:
    """MAX_YAML_DEPTH levels of nesting load; one more is refused."""
    head = "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\nx: "
    ok = head + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1) + "\n"
    assert [o.name for o in load_manifests(ok, validate="ignore")] == ["p"]  # x: not a Pod field
    deep = head + "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH + "\n"
    with pytest.raises(ManifestError, match=f"nested more than {MAX_YAML_DEPTH} levels deep at line 4"):
        load_manifests(deep)


def test_modest_aliasing_still_loads() -> None:
    """Ordinary anchors and aliases (shared labels, YAML merge keys) are read normally."""
    text = (
        "kind: Namespace\nmetadata: {name: shop, labels: &l {app: web, tier: front}}\n"
        "---\n"
        "kind: List\n"
        "items:\n"
        + "".join(f"- {{kind: Pod, metadata: {{name: p{i}, labels: &l{i} {{app: web}}}}, "
                  "spec: {containers: [{name: c}]}}\n"
                  for i in range(50))
        + "- kind: Node\n  metadata: &nm {name: n1, labels: {zone: a}}\n"
        + "- kind: Namespace\n  metadata: {<<: *nm, name: ns1}\n"
    )
    objects = load_manifests(text)
    assert len(objects) == 53
    assert objects[-1] == Namespace("ns1", labels={"zone": "a"})


def test_large_document_with_shared_anchors_is_not_mistaken_for_a_bomb() -> None:
    """A big List whose pods all alias one labels mapping loads: aliases are a small share of the
    nodes (go-yaml's ratio rule), unlike a bomb's."""
    text = "kind: List\nitems:\n- {kind: Namespace, metadata: {name: ns, labels: &l {app: web, tier: a}}}\n"
    text += "".join(f"- {{kind: Pod, metadata: {{name: p{i}, labels: *l}}, spec: {{containers: "
                    f"[{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}}}\n" for i in range(1500))
    objects = _timed(load_manifests, text)
    assert len(objects) == 1501
    assert objects[-1].labels == {"app": "web", "tier": "a"}


@pytest.mark.parametrize("value", [HUGE_INT, -HUGE_INT, math.nan, math.inf, -math.inf, 10**30, 2**63,
                                   "a" * 1_000_000, _deep(3000), dt.date(1, 1, 1), b"\xff",
                                   frozenset({"a"})],
                         ids=["huge int", "huge negative int", "nan", "inf", "-inf", "1e30", "2^63",
                              "million chars", "3000 deep", "date", "bytes", "set"])
@pytest.mark.parametrize("path", [("metadata", "name"), ("metadata", "labels", "app"), ("spec", "priority"),
                                  ("spec", "containers", 0, "resources", "requests", "cpu"),
                                  ("spec", "tolerations", 0, "tolerationSeconds"),
                                  ("spec", "topologySpreadConstraints", 0, "maxSkew"),
                                  ("metadata", "creationTimestamp"), ("spec", "overhead")],
                         ids=lambda p: ".".join(map(str, p)))
def test_extreme_values_at_pod_paths(path: tuple[Any, ...], value: Any) -> None:
    """Extreme values (from Python callers: ints of more than 4300 digits, NaN, sets...) at Pod
    fields: a Pod or a ManifestError naming that field, quickly."""
    doc = _rich_pod()
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    pod, error = _attempt(Pod.from_manifest, doc)
    if error is None:
        _check_objects([pod])
    else:
        assert error.path.replace("[", ".").replace("]", "").startswith(".".join(map(str, path[:2])))


def test_ints_beyond_str_limit_are_shown_safely() -> None:
    """An integer too long to print still gives a readable ManifestError (not a ValueError)."""
    want = r"metadata\.name: expected a string, got an integer of 16610 bits"
    with pytest.raises(ManifestError, match=want):
        Pod.from_manifest({"metadata": {"name": HUGE_INT}})


@pytest.mark.parametrize("value", [HUGE_INT, _deep(400)], ids=["huge int", "400 deep"])
def test_extreme_value_at_every_path(value: Any) -> None:
    """Every field of every base manifest replaced by an int too long to print, or by a deeply
    nested value: objects or a ManifestError naming a path, never another exception."""
    cases = 0
    for base in BASES:
        for i in range(len(list(_slots(base)))):
            doc = copy.deepcopy(base)
            container, key = list(_slots(doc))[i]
            container[key] = value
            got = _read(doc)
            if isinstance(got, ManifestError):
                assert got.path
            cases += 1
    assert cases > 500


def test_yaml_is_read_with_a_safe_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    """load_manifests never uses PyYAML's unsafe loaders (python/object tags are refused above)."""
    used: list[Any] = []
    real = yaml.load_all

    def spy(stream: Any, Loader: Any) -> Any:
        used.append(Loader)
        return real(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "load_all", spy)
    load_manifests("kind: Namespace\nmetadata: {name: ns}\n")
    assert used
    safe = (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert all(issubclass(loader, safe) for loader in used)
