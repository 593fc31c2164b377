"""Issue #50, reliability round 3: Python entry points checked like files, every message and
number bounded, ambiguity an error. Each test failed before its fix."""

from __future__ import annotations

import argparse
import io
import json
import math
import time
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import (
    ConfigurationError,
    ManifestError,
    PluginArgsError,
    SchedframeError,
    Scheduler,
    SchedulerConfiguration,
)
from schedframe.api import PodGroup
from schedframe.api.manifests import object_from_manifest
from schedframe.cli.main import main
from schedframe.framework.args import decode_args, validate_args
from schedframe.framework.releases import SUPPORTED_RELEASES
from schedframe.plan import (
    NodeTemplate,
    TemplateError,
    example_cluster,
    example_templates,
    plan,
    templates_from_data,
)
from schedframe.plan._templates import MAX_PRICE, MAX_TEMPLATES

_FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cluster() -> list[Any]:
    return [object_from_manifest(m) for m in example_cluster()]


def _template(**kw: Any) -> NodeTemplate:
    base = templates_from_data(example_templates())[0]
    return attrs.evolve(base, **kw)


# -- 1. plan() with templates built in Python -----------------------------------------------------

def test_plan_caps_python_templates_before_any_work() -> None:
    t = _template()
    many = [attrs.evolve(t, name=f"t-{i}") for i in range(MAX_TEMPLATES + 1)]
    t0 = time.perf_counter()
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), iter([*many, *(t for _ in range(10**6))]))
    assert info.value.path == "templates"
    assert f"at most {MAX_TEMPLATES}" in str(info.value)
    assert time.perf_counter() - t0 < 30


def test_plan_duplicate_template_names_are_found_linearly() -> None:
    t = _template()
    names = [attrs.evolve(t, name=f"t-{i}") for i in range(MAX_TEMPLATES - 1)]
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), [*names, attrs.evolve(t, name="t-3")])
    assert info.value.path == f"templates[{MAX_TEMPLATES - 1}].name"
    assert "'t-3'" in str(info.value)


@pytest.mark.parametrize(("field", "value"), [
    ("node", None), ("price", float("nan")), ("price", -1.0), ("price", math.inf), ("price", "0.5"),
    ("price", 1e308), ("price", 10**400), ("max_count", "5"), ("max_count", -1), ("max_count", 1.5),
    ("priority", 2**31), ("priority", None), ("name", None), ("name", ""),
])
def test_bad_node_template_fields_are_template_errors(field: str, value: Any) -> None:
    with pytest.raises(TemplateError) as info:
        _template(**{field: value})
    assert info.value.path == field
    assert len(str(info.value)) < 300
    # a template built around its validators is refused by plan(), naming its index
    t = _template(name="zz")
    object.__setattr__(t, field, value)
    good = templates_from_data(example_templates())
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), [*good, t])
    assert info.value.path == f"templates[{len(good)}].{field}"


@_FAST
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text(max_size=20),
                 st.none(), st.booleans()))
def test_node_template_price_is_finite_and_bounded_or_refused(price: Any) -> None:
    ok = price is None or (not isinstance(price, (bool, str)) and 0 <= price <= MAX_PRICE)
    if ok:
        assert _template(price=price).price == price
    else:
        with pytest.raises(TemplateError) as info:
            _template(price=price)
        assert info.value.path == "price"


@pytest.mark.parametrize("name", ["Upper", "a_b", "x" * 100_000, "-a", "é"])
def test_plan_template_names_are_dns_subdomains_as_in_a_file(name: str) -> None:
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), [_template(name=name)])
    assert info.value.path == "templates[0].name"
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("strategy", [None, 3, ["price"], "x" * 100_000])
def test_plan_strategy_of_the_wrong_type_is_a_template_error(strategy: Any) -> None:
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), templates_from_data(example_templates()), strategy=strategy)
    assert info.value.path == "strategy"
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("templates", [None, 5, b"x", {"a": 1}])
def test_plan_templates_not_an_iterable_is_a_template_error(templates: Any) -> None:
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), templates)
    assert info.value.path == "templates"


def test_template_price_read_from_a_file_is_capped() -> None:
    doc = example_templates()
    doc["templates"][0]["price"] = 1e308
    with pytest.raises(TemplateError) as info:
        templates_from_data(doc)
    assert info.value.path == "templates[0].price"


# -- 2. one release parser ------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["", 0, False, [], 1.33, "1" * 5000 + ".33", "1." + "3" * 5000])
def test_scheduler_and_with_release_refuse_what_every_entry_point_refuses(version: Any) -> None:
    config = SchedulerConfiguration.default()
    for call in (lambda: Scheduler(config, kubernetes_version=version),
                 lambda: config.with_release(version),
                 lambda: SchedulerConfiguration.default(kubernetes_version=version),
                 lambda: Scheduler(kubernetes_version=version)):
        with pytest.raises(ConfigurationError) as info:
            call()
        assert str(info.value).startswith("kubernetes_version: ")
        assert len(str(info.value)) < 300


def test_with_release_none_keeps_the_release() -> None:
    config = SchedulerConfiguration.default(kubernetes_version="1.33")
    assert config.with_release(None) is config
    assert Scheduler(config).config.release.version == "1.33"


@_FAST
@given(st.text(alphabet="v0123456789.-+", max_size=40) | st.text(min_size=4000, max_size=6000,
                                                                  alphabet="0123456789."))
def test_any_version_string_is_a_release_or_a_configuration_error(text: str) -> None:
    errors: list[str] = []
    try:
        got = SchedulerConfiguration.default().with_release(text)
    except ConfigurationError as exc:
        errors.append(str(exc))
    else:
        assert got.release.version in SUPPORTED_RELEASES
    assert all(len(e) < 300 for e in errors)


# -- 3. feature-gate errors and explain's echoes bounded ------------------------------------------

@pytest.mark.parametrize("gates", [
    {"x" * 100_000: True},
    {f"Gate{i}": True for i in range(20_000)},
    ",".join(f"G{i}=maybe" for i in range(20_000)),
    "A" * 100_000 + "=" + "B" * 100_000,
    ",".join(["SchedulerQueueingHints"] * 20_000),
])
def test_feature_gate_errors_are_bounded(gates: Any) -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.default(feature_gates=gates)
    text = str(info.value)
    assert len(text) < 4000
    if len(info.value.errors) > 1:
        assert len(info.value.errors) <= 11
    from schedframe.cli._common import release_option

    with pytest.raises(ConfigurationError) as info:
        release_option(argparse.Namespace(kubernetes_version=None, feature_gates=gates))
    assert len(str(info.value)) < 4000


def test_feature_gate_errors_say_how_many_were_cut() -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.default(feature_gates={f"Gate{i}": True for i in range(100)})
    assert info.value.errors[-1] == "... and 90 more feature-gate problems"


_DUMP = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""


def test_explain_echoes_a_long_key_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(_DUMP)
    key = "a" * 100_000
    assert main(["explain", key, "--cluster", str(dump)], stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "no such file" in err
    assert len(err) < 1000
    assert main(["explain", "pod.yaml", "--cluster", "c" * 100_000], stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "no such file (--cluster)" in err
    assert len(err) < 1000


# -- 10. two pods with one key: explain refuses as simulate does ----------------------------------

def test_explain_refuses_a_dump_with_two_pods_of_one_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(_DUMP + "---\n" + _DUMP.split("---\n")[1].replace('cpu: "1"', 'cpu: "100"'))
    pod = tmp_path / "pod.yaml"
    pod.write_text(_DUMP.split("---\n")[1].replace("name: a,", "name: other,"))
    for target in ("default/a", str(pod)):
        assert main(["explain", target, "--cluster", str(dump)], stdout=io.StringIO()) == 2
        err = capsys.readouterr().err
        assert "pods[default/a]: a pod with this name or uid already exists" in err
        assert len(err.strip().splitlines()) == 1
    assert main(["simulate", "--cluster", str(dump)], stdout=io.StringIO()) != 0
    assert "pods[default/a]: a pod with this name or uid already exists" in capsys.readouterr().err


# -- 4. scheduleTimeoutSeconds is an int32 ---------------------------------------------------------

def _pod_group(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"}, "spec": spec}


@_FAST
@given(st.integers(min_value=-(10**400), max_value=10**400))
def test_pod_group_times_are_int32_or_a_manifest_error(value: int) -> None:
    for field in ("scheduleTimeoutSeconds", "minMember"):
        if 0 <= value <= 2**31 - 1:
            PodGroup.from_manifest(_pod_group(**{field: value}))
            continue
        with pytest.raises(ManifestError) as info:
            PodGroup.from_manifest(_pod_group(**{field: value}))
        assert info.value.path == f"spec.{field}"
        assert len(str(info.value)) < 300


@_FAST
@given(st.integers(min_value=-(10**400), max_value=10**400) | st.floats() | st.booleans()
       | st.text(max_size=5))
def test_pod_group_numbers_built_in_python_get_the_errors_of_a_manifest(value: Any) -> None:
    """A PodGroup built in Python refuses what its manifest would: the same error type and
    wording, at the attribute instead of the field path (a 400-digit timeout used to be
    accepted, then made every member fail Permit with OverflowError)."""
    for field, attr in (("scheduleTimeoutSeconds", "schedule_timeout_seconds"), ("minMember", "min_member")):
        file_error: ManifestError | None = None
        try:
            from_file = PodGroup.from_manifest(_pod_group(**{field: value}))
        except ManifestError as exc:
            file_error = exc
        if file_error is None:
            if isinstance(value, int):
                assert getattr(PodGroup("g", "default", **{attr: value}), attr) == getattr(from_file, attr)
            continue
        with pytest.raises(ManifestError) as info:
            PodGroup("g", "default", **{attr: value})
        assert info.value.path == attr
        if isinstance(value, int) and not isinstance(value, bool):
            # (a bad type is shown as the file spells it, ``false``, or as Python does)
            assert info.value.detail == file_error.detail
        assert len(str(info.value)) < 300


@pytest.mark.parametrize("key", ["permitWaitingTimeSeconds", "podGroupBackoffSeconds"])
def test_coscheduling_durations_fit_a_go_duration(key: str) -> None:
    from schedframe.plugins.coscheduling import CoschedulingArgs

    with pytest.raises(PluginArgsError) as info:
        validate_args(decode_args(CoschedulingArgs, {key: 10**400}))
    assert str(info.value).startswith(f"{key}: must be at most")
    assert len(str(info.value)) < 300


# -- 5. load-watcher metrics are finite -----------------------------------------------------------

def _metrics(value: Any = 42.5, start: Any = 0, end: Any = 900, timestamp: Any = 900) -> str:
    metric = f'{{"type": "CPU", "operator": "AVG", "value": {value}}}'
    return (f'{{"timestamp": {timestamp}, "window": {{"duration": "15m", "start": {start}, '
            f'"end": {end}}}, "data": {{"NodeMetricsMap": {{"n1": {{"metrics": [{metric}]}}}}}}}}')


@pytest.mark.parametrize(("field", "text"), [
    ("window.start", _metrics(start="NaN")), ("window.end", _metrics(end="Infinity")),
    ("window.end", _metrics(end="1e300")), ("timestamp", _metrics(timestamp="-Infinity")),
    ("timestamp", _metrics(timestamp="1" * 400)),
    ("data.NodeMetricsMap.n1.metrics[0].value", _metrics(value="NaN")),
    ("data.NodeMetricsMap.n1.metrics[0].value", _metrics(value="-Infinity")),
    ("data.NodeMetricsMap.n1.metrics[0].value", _metrics(value="1" * 400)),
])
def test_non_finite_load_metrics_are_refused_at_read(tmp_path: Path, field: str, text: str) -> None:
    from schedframe.plugins.sigs import LoadMetricsError, load_metrics_file

    f = tmp_path / "m.json"
    f.write_text(text)
    with pytest.raises(LoadMetricsError) as info:
        load_metrics_file(str(f))
    assert f"{field}: want " in str(info.value)
    assert len(str(info.value)) < 300


@_FAST
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_metric_value_is_finite_or_refused(value: float) -> None:
    from schedframe.plugins.sigs import LoadMetricsError, WatcherMetrics

    data = json.loads(_metrics(value=json.dumps(value)))
    if math.isfinite(value):
        assert WatcherMetrics.from_dict(data).nodes["n1"][0].value == value
    else:
        with pytest.raises(LoadMetricsError):
            WatcherMetrics.from_dict(data)


def _after_field(message: str, field: str) -> str:
    return message.split(f"{field}: ", 1)[1]


@_FAST
@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**30), 10**30)
       | st.text(max_size=3) | st.none() | st.booleans())
def test_metrics_built_in_python_get_the_errors_of_a_file(value: Any) -> None:
    """A Metric or WatcherMetrics built in Python refuses what the metrics file would (a NaN
    metric used to be accepted in Python, then failed every Trimaran Score of the node)."""
    from schedframe.plugins.sigs import LoadMetricsError, Metric, WatcherMetrics

    for file_field, build, attr in (
        ("value", lambda v: Metric("CPU", "AVG", v), "value"),
        ("timestamp", lambda v: WatcherMetrics(timestamp=v), "timestamp"),
        ("window.end", lambda v: WatcherMetrics(window_end=v), "window_end"),
    ):
        data = json.loads(_metrics(**{file_field.split(".")[-1]: json.dumps(value)}))
        file_error: LoadMetricsError | None = None
        try:
            WatcherMetrics.from_dict(data)
        except LoadMetricsError as exc:
            file_error = exc
        if file_error is None:
            build(value)
            continue
        with pytest.raises(LoadMetricsError) as info:
            build(value)
        assert _after_field(str(info.value), attr) == _after_field(str(file_error), file_field)


@pytest.mark.parametrize("nodes", [{"n1": [1]}, {"n1": "CPU"}, {3: []}, [("n1", [])], {"n1": None}])
def test_watcher_metrics_nodes_built_in_python_are_checked(nodes: Any) -> None:
    from schedframe.plugins.sigs import LoadMetricsError, WatcherMetrics

    with pytest.raises(LoadMetricsError) as info:
        WatcherMetrics(nodes)
    assert str(info.value).startswith("WatcherMetrics: nodes")


# -- 6. prices capped, JSON output strict -----------------------------------------------------------

def test_plan_json_never_writes_infinity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(example_cluster()))
    doc = example_templates()
    templates = tmp_path / "t.yaml"
    templates.write_text(yaml.safe_dump(doc))
    out = io.StringIO()
    assert main(["plan", "--cluster", str(cluster), "--templates", str(templates), "--json"],
                stdout=out) in (0, 1)
    json.loads(out.getvalue(), parse_constant=lambda c: pytest.fail(f"{c} in plan --json"))
    capsys.readouterr()
    for t in doc["templates"]:
        t["price"] = 1e308
    templates.write_text(yaml.safe_dump(doc))
    out = io.StringIO()
    assert main(["plan", "--cluster", str(cluster), "--templates", str(templates), "--json"],
                stdout=out) == 2
    assert "templates[0].price: want a number in [0, 1e+12]" in capsys.readouterr().err
    assert out.getvalue() == ""


@pytest.mark.parametrize(("data", "where"), [
    ({"a": {"b": [1.0, math.inf]}}, "a.b[1]"), ([math.nan], "[0]"), (-math.inf, "(top level)"),
])
def test_cli_json_output_refuses_non_finite_numbers(data: Any, where: str) -> None:
    from schedframe.cli._common import CliInputError, dump_json

    out = io.StringIO()
    with pytest.raises(CliInputError) as info:
        dump_json(data, out)
    assert f" at {where}, which JSON cannot hold" in str(info.value)
    assert out.getvalue() == ""


def test_the_event_log_is_strict_json(tmp_path: Path) -> None:
    from schedframe.sim import simulate

    log = io.StringIO()
    simulate("drain-preemption", log=log)
    lines = log.getvalue().splitlines()
    assert len(lines) > 10
    for line in lines:
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the event log"))


@pytest.mark.parametrize(("data", "where"), [
    ({"a": {"b": [1.0, math.inf]}}, "a.b[1]"), ([math.nan], "[0]"), (-math.inf, "(top level)"),
    ((1, {"x": (math.nan,)}), "[1].x[0]"),
])
def test_one_json_writer_refuses_or_nulls_non_finite_numbers(data: Any, where: str) -> None:
    from schedframe._jsonout import NonFiniteJSONError, dumps, finite_or_null

    with pytest.raises(NonFiniteJSONError) as info:
        dumps(data)
    assert info.value.path == where
    assert isinstance(info.value, SchedframeError)
    nulled = json.loads(dumps(finite_or_null(data)))
    assert "null" in json.dumps(nulled)


# -- 7. ports are ports ------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["99999", "65536", "-1", "1" * 5000, "x", "", "8080.0", "٣"])
def test_run_health_port_out_of_range_is_a_usage_error(
        value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--health-port", value]) == 2
    err = capsys.readouterr().err
    assert "argument --health-port: want a port from 0 to 65535" in err
    assert "Traceback" not in err
    assert len(err) < 2000


@_FAST
@given(st.integers(min_value=0, max_value=65535))
def test_every_port_is_read(value: int) -> None:
    from schedframe.cli._args import port

    assert port(str(value)) == value


@pytest.mark.parametrize("value", [99999, -1, True, "80", 10**400])
def test_kube_scheduler_health_port_is_checked_first(value: Any) -> None:
    from schedframe.kube import KubeError, KubeScheduler

    with pytest.raises(KubeError) as info:
        KubeScheduler(object(), health_port=value)
    assert str(info.value).startswith("health_port: want a port from 0 to 65535")


# -- 8. the object cap is checked against the replica count first ----------------------------------

_WORKLOADS = {
    "Deployment": {"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "big", "namespace": "default"},
                   "spec": {"replicas": 10**9, "selector": {"matchLabels": {"app": "big"}},
                            "template": {"metadata": {"labels": {"app": "big"}},
                                         "spec": {"containers": [{"name": "c"}]}}}},
    "StatefulSet": {"apiVersion": "apps/v1", "kind": "StatefulSet",
                    "metadata": {"name": "big", "namespace": "default"},
                    "spec": {"replicas": 10**9, "serviceName": "big",
                             "selector": {"matchLabels": {"app": "big"}},
                             "template": {"metadata": {"labels": {"app": "big"}},
                                          "spec": {"containers": [{"name": "c"}]}}}},
    "Job": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "big", "namespace": "default"},
            "spec": {"parallelism": 10**9, "completions": 10**9,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c"}]}}}},
    "IndexedJob": {"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": "big", "namespace": "default"},
                   "spec": {"parallelism": 10**9, "completions": 10**9, "completionMode": "Indexed",
                            "template": {"spec": {"restartPolicy": "Never",
                                                  "containers": [{"name": "c"}]}}}},
}


@pytest.mark.parametrize("kind", sorted(_WORKLOADS))
def test_a_billion_replicas_are_refused_before_any_pod_is_made(kind: str) -> None:
    from schedframe import load_manifests

    t0 = time.perf_counter()
    with pytest.raises(ManifestError) as info:
        load_manifests(json.dumps(_WORKLOADS[kind]))
    assert time.perf_counter() - t0 < 5
    assert "asks for" in str(info.value)
    assert "more than 1000000 objects" in str(info.value)


@_FAST
@given(st.integers(min_value=0, max_value=40))
def test_the_object_cap_is_exact_for_small_workloads(replicas: int) -> None:
    from schedframe import load_manifests

    doc = json.loads(json.dumps(_WORKLOADS["Deployment"]))
    doc["spec"]["replicas"] = replicas
    # the Deployment, its ReplicaSet and its pods
    if replicas + 2 <= 20:
        assert len(load_manifests(json.dumps(doc), max_objects=20)) == replicas + 2
    else:
        with pytest.raises(ManifestError):
            load_manifests(json.dumps(doc), max_objects=20)


# -- 9. LeastNUMANodes examines a bounded number of zone combinations -------------------------------

def _zones(n: int) -> list[Any]:
    from fractions import Fraction

    from schedframe.plugins.sigs._nrt_numa import NUMANode

    return [NUMANode(i, {"cpu": Fraction(4), "memory": Fraction(2**30)},
                     {j: 10 if i == j else 20 for j in range(n)}) for i in range(n)]


@pytest.mark.parametrize("cpus", [8, 150, 10**6])
def test_least_numa_nodes_on_40_zones_ends(cpus: int) -> None:
    from fractions import Fraction

    from schedframe.plugins.sigs._nrt_numa import numa_nodes_required

    t0 = time.perf_counter()
    got, is_min = numa_nodes_required("Guaranteed", _zones(40), {"cpu": Fraction(cpus)})
    assert time.perf_counter() - t0 < 5
    # two zones are within the budget (40 + 780 combinations), more are not
    assert got == ([0, 1] if cpus == 8 else None)
    assert is_min is (cpus == 8)


def test_least_numa_nodes_is_complete_up_to_12_zones() -> None:
    from fractions import Fraction

    from schedframe.plugins.sigs._nrt_numa import MAX_NUMA_COMBINATIONS, numa_nodes_required

    assert MAX_NUMA_COMBINATIONS >= 2**12 - 1
    got, is_min = numa_nodes_required("Guaranteed", _zones(12), {"cpu": Fraction(46)})
    assert got == list(range(12))
    assert is_min


@pytest.mark.parametrize("version", ["1" * 5000, "1." + "3" * 5000, ""])
def test_cli_kubernetes_version_of_5000_digits_is_one_bounded_line(
        version: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["config", "default", "--kubernetes-version", version],
                    ["simulate", "--kubernetes-version", version]):
        assert main(command, stdout=io.StringIO()) == 2
        err = capsys.readouterr().err
        assert "--kubernetes-version: " in err
        assert "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
        assert len(err) < 400


@_FAST
@given(st.dictionaries(st.text(max_size=300), st.booleans(), max_size=40))
def test_any_feature_gate_mapping_is_applied_or_refused_in_a_bounded_message(gates: dict[str, bool]) -> None:
    errors: list[ConfigurationError] = []
    try:
        SchedulerConfiguration.default(feature_gates=gates)
    except ConfigurationError as exc:
        errors.append(exc)
    for exc in errors:
        assert len(exc.errors) <= 11
        assert all(len(e) < 600 for e in exc.errors)
