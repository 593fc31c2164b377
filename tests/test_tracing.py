"""OpenTelemetry spans of the scheduling and binding cycles (``Scheduler(tracer_provider=...)``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="tracing needs the otel extra and the SDK")

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import schedframe
from schedframe import Code, FakeClock, Scheduler, Status, object_from_manifest
from schedframe.api import Node
from schedframe.config.configuration import Profile, SchedulerConfiguration
from schedframe.errors import ArgumentTypeError, SchedulerError
from schedframe.framework._tracing import (
    ATTR_CLOCK_END,
    ATTR_CLOCK_START,
    ATTR_NAMESPACE,
    ATTR_NODE,
    ATTR_NODES,
    ATTR_NODES_FEASIBLE,
    ATTR_PLUGIN,
    ATTR_POD,
    ATTR_POD_GROUP,
    ATTR_POD_GROUP_MEMBERS,
    ATTR_POD_UID,
    ATTR_PROFILE,
    ATTR_SCORE,
    ATTR_STATUS_CODE,
    ATTR_STATUS_MESSAGE,
    ATTR_UNSCHEDULABLE_PLUGINS,
    BINDING_CYCLE,
    POD_GROUP_CYCLE,
    SCHEDULING_CYCLE,
)
from schedframe.plugins import in_tree_registry
from schedframe.testing import FakeFilter, FakePermit, fake_registry, make_node, make_pod

T0 = 1_700_000_000.0
SCHEDULING_POINTS = ["PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit"]
BINDING_POINTS = ["PreBind", "Bind", "PostBind"]


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    return tp


def _nodes(s: Scheduler, *cpus: str) -> list[str]:
    names = []
    for i, cpu in enumerate(cpus):
        s.add_node(make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi", pods=110).obj())
        names.append(f"n{i}")
    return names


def _scheduler_with(*plugins: Any, **kw: Any) -> Scheduler:
    registry = fake_registry(*plugins, base=in_tree_registry())
    profile = Profile.from_plugins(*(p.name for p in plugins), registry=registry)
    config = SchedulerConfiguration.from_profiles(profile, registry=registry)
    return Scheduler(config, registry=registry, clock=FakeClock(T0), **kw)


def _children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """*parent*'s children, in start order."""
    assert parent.context is not None
    kids = [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]
    return sorted(kids, key=lambda s: s.start_time or 0)


def _cycle_of(spans: Sequence[ReadableSpan], name: str, pod_name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name and s.attributes and s.attributes.get(ATTR_POD) == pod_name]


def test_a_pod_that_binds(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """A bound pod: a root scheduling cycle span (pod, profile, node, Success) with one child per
    extension point in run order, and a binding cycle span, its child, with PreBind/Bind/PostBind."""
    s = Scheduler(clock=FakeClock(T0), tracer_provider=provider)
    _nodes(s, "2", "4")
    pod = s.add_pod(make_pod("web").req(cpu="1").obj())
    s.run_until_idle()
    host = s.node_of(pod)
    assert host is not None
    spans = exporter.get_finished_spans()
    [cycle] = _cycle_of(spans, SCHEDULING_CYCLE, "web")
    assert cycle.parent is None
    assert dict(cycle.attributes or {}) == {
        ATTR_NAMESPACE: pod.namespace, ATTR_POD: pod.name, ATTR_POD_UID: pod.uid,
        ATTR_PROFILE: pod.scheduler_name, ATTR_NODE: host, ATTR_STATUS_CODE: str(Code.SUCCESS),
        ATTR_CLOCK_START: T0, ATTR_CLOCK_END: T0,
    }
    kids = _children(spans, cycle)
    [binding] = [k for k in kids if k.name == BINDING_CYCLE]
    points = [k for k in kids if k is not binding]
    assert [k.name for k in points] == SCHEDULING_POINTS
    assert all((k.attributes or {})[ATTR_STATUS_CODE] == str(Code.SUCCESS) for k in points)
    by_name = {k.name: k.attributes or {} for k in points}
    assert by_name["Filter"][ATTR_NODES_FEASIBLE] == len(s.nodes())
    assert by_name["Score"][ATTR_NODES] == len(s.nodes())
    assert isinstance(by_name["Score"][ATTR_SCORE], int)
    assert by_name["Reserve"][ATTR_NODE] == by_name["Permit"][ATTR_NODE] == host
    # the binding cycle: same trace, after the scheduling cycle ended
    assert binding.context is not None
    assert cycle.context is not None
    assert binding.context.trace_id == cycle.context.trace_id
    assert (binding.start_time or 0) >= (cycle.end_time or 0)
    assert (binding.attributes or {})[ATTR_NODE] == host
    assert (binding.attributes or {})[ATTR_STATUS_CODE] == str(Code.SUCCESS)
    assert [k.name for k in _children(spans, binding)] == BINDING_POINTS
    # no per-plugin spans unless asked for
    assert not [sp for sp in spans if ATTR_PLUGIN in (sp.attributes or {})]


def test_an_unschedulable_pod(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """An unschedulable pod: its cycle span carries the code, the scheduler's message and the
    rejecting plugins; Filter found no node, PostFilter ran, no binding cycle."""
    s = Scheduler(clock=FakeClock(T0), tracer_provider=provider)
    nodes = _nodes(s, "2", "4")
    s.add_pod(make_pod("huge").req(cpu="64").obj())
    s.run_until_idle()
    [pending] = s.pending()
    spans = exporter.get_finished_spans()
    [cycle] = _cycle_of(spans, SCHEDULING_CYCLE, "huge")
    attrs = cycle.attributes or {}
    assert attrs[ATTR_STATUS_CODE] == str(Code.UNSCHEDULABLE)
    assert attrs[ATTR_STATUS_MESSAGE] == pending.message
    assert list(attrs[ATTR_UNSCHEDULABLE_PLUGINS]) == sorted(pending.plugins)  # type: ignore[arg-type]
    assert ATTR_NODE not in attrs
    kids = _children(spans, cycle)
    assert [k.name for k in kids] == ["PreFilter", "Filter", "PostFilter"]
    filter_attrs = kids[1].attributes or {}
    assert (filter_attrs[ATTR_NODES], filter_attrs[ATTR_NODES_FEASIBLE]) == (len(nodes), 0)
    assert filter_attrs[ATTR_STATUS_CODE] == str(Code.UNSCHEDULABLE)
    assert not [sp for sp in spans if sp.name == BINDING_CYCLE]
    assert cycle.status.status_code is trace.StatusCode.UNSET  # a rejection is no error


def test_per_plugin_spans(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """With trace_plugins, each plugin call is a span under its extension point's: every
    PreFilter plugin once, and a per-node Filter plugin once per node with the node and status."""
    gate = FakeFilter(failed={"n1": Code.UNSCHEDULABLE}, name="Gate")
    s = _scheduler_with(gate, tracer_provider=provider, trace_plugins=True)
    nodes = _nodes(s, "4", "4", "4")
    pod = s.add_pod(make_pod("p").req(cpu="1").obj())
    s.run_until_idle()
    assert s.node_of(pod) in set(nodes) - {"n1"}
    spans = exporter.get_finished_spans()
    [cycle] = _cycle_of(spans, SCHEDULING_CYCLE, "p")
    points = {k.name: k for k in _children(spans, cycle)}
    fwk = s.frameworks[pod.scheduler_name]
    pre_filter = _children(spans, points["PreFilter"])
    assert [k.name for k in pre_filter] == [f"PreFilter {name}" for name in fwk.plugins_at("preFilter")]
    gate_spans = [k for k in _children(spans, points["Filter"]) if k.name == "Filter Gate"]
    assert {(k.attributes or {})[ATTR_NODE]: (k.attributes or {})[ATTR_STATUS_CODE] for k in gate_spans} == {
        n: str(Code.UNSCHEDULABLE if n == "n1" else Code.SUCCESS) for n in nodes}
    assert all((k.attributes or {})[ATTR_PLUGIN] == "Gate" for k in gate_spans)


def test_an_error_marks_the_span(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """A plugin's ERROR: the cycle span's status is an error, with the plugin named."""
    boom = FakeFilter(failed={"n0": Code.ERROR}, name="Boom")
    s = _scheduler_with(boom, tracer_provider=provider)
    _nodes(s, "4")
    s.add_pod(make_pod("p").obj())
    s.run_until_idle(max_cycles=1)
    [cycle] = _cycle_of(exporter.get_finished_spans(), SCHEDULING_CYCLE, "p")
    attrs = cycle.attributes or {}
    assert (attrs[ATTR_STATUS_CODE], attrs[ATTR_PLUGIN]) == (str(Code.ERROR), "Boom")
    assert cycle.status.status_code is trace.StatusCode.ERROR
    assert cycle.status.description == s.pending()[0].message


def test_simulated_time_on_the_spans(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """The scheduler's clock goes on the spans: a Permit wait that times out shows as a binding
    cycle from the reservation to the deadline, in simulated seconds, ending unschedulable."""
    timeout = 10
    gate = FakePermit(status=Status.wait(), timeout=timeout, name="Gate")
    s = _scheduler_with(gate, tracer_provider=provider)
    _nodes(s, "4")
    s.clock.step(5)  # type: ignore[attr-defined]
    start = s.clock.now()
    s.add_pod(make_pod("p").obj())
    s.run_until_idle(max_cycles=1)
    spans = exporter.get_finished_spans()
    [cycle] = _cycle_of(spans, SCHEDULING_CYCLE, "p")
    assert (cycle.attributes or {})[ATTR_CLOCK_START] == start
    assert not _cycle_of(spans, BINDING_CYCLE, "p")  # parked at Permit: not ended yet
    s.run_until_idle()
    [binding] = _cycle_of(exporter.get_finished_spans(), BINDING_CYCLE, "p")
    attrs = binding.attributes or {}
    assert (attrs[ATTR_CLOCK_START], attrs[ATTR_CLOCK_END]) == (start, start + timeout)
    assert attrs[ATTR_STATUS_CODE] == str(Code.UNSCHEDULABLE)
    assert [k.name for k in _children(exporter.get_finished_spans(), binding)] == ["Unreserve"]


def test_threaded_binding_cycles(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """In threaded mode the binding cycle runs in a worker thread, still a child of its
    scheduling cycle."""
    with Scheduler(tracer_provider=provider, threaded=True, workers=2) as s:
        _nodes(s, "4")
        pods = [s.add_pod(make_pod(f"p{i}").req(cpu="1").obj()) for i in range(3)]
        s.run_until_idle()
    spans = exporter.get_finished_spans()
    for pod in pods:
        [cycle] = _cycle_of(spans, SCHEDULING_CYCLE, pod.name)
        [binding] = _cycle_of(spans, BINDING_CYCLE, pod.name)
        assert binding.parent is not None
        assert cycle.context is not None
        assert binding.parent.span_id == cycle.context.span_id
        assert [k.name for k in _children(spans, binding)] == BINDING_POINTS


def test_the_pod_group_cycle(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    """A PodGroup: one pod group cycle span (group, members) holding each member's trial as a
    scheduling cycle and each member's binding cycle."""
    members = 3
    objs: list[Any] = [object_from_manifest({
        "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": "g"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": members}}}})]
    objs += [Node(name=f"n{i}", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}) for i in range(2)]
    objs += [make_pod(f"w{i}").req(cpu="1").obj().evolve(scheduling_group="g") for i in range(members)]
    s = Scheduler(objects=objs, kubernetes_version="1.36",
                  feature_gates="GenericWorkload=true,GangScheduling=true", tracer_provider=provider)
    s.run_until_idle()
    assert all(s.node_of(f"default/w{i}") for i in range(members))
    spans = exporter.get_finished_spans()
    [group] = [sp for sp in spans if sp.name == POD_GROUP_CYCLE]
    attrs = group.attributes or {}
    assert (attrs[ATTR_POD_GROUP], attrs[ATTR_POD_GROUP_MEMBERS]) == ("g", members)
    assert attrs[ATTR_STATUS_CODE] == str(Code.SUCCESS)
    kids = _children(spans, group)
    assert sorted(str((k.attributes or {})[ATTR_POD]) for k in kids if k.name == SCHEDULING_CYCLE) == [
        f"w{i}" for i in range(members)]
    assert sorted(str((k.attributes or {})[ATTR_NODE]) for k in kids if k.name == BINDING_CYCLE) == sorted(
        s.bindings().values())


def test_the_global_provider(provider: TracerProvider, exporter: InMemorySpanExporter,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a tracer_provider, OpenTelemetry's global one is used when one is set."""
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    s = Scheduler(clock=FakeClock(T0))
    _nodes(s, "4")
    s.add_pod(make_pod("p").obj())
    s.run_until_idle()
    assert _cycle_of(exporter.get_finished_spans(), SCHEDULING_CYCLE, "p")


def test_no_provider_records_nothing(exporter: InMemorySpanExporter) -> None:
    """No provider given and none set globally (the proxy), or a no-op one: no tracing at all,
    and scheduling works as ever."""
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    for s in (Scheduler(clock=FakeClock(T0)),
              Scheduler(clock=FakeClock(T0), tracer_provider=trace.NoOpTracerProvider(), trace_plugins=True)):
        assert s._tracing is None
        _nodes(s, "4")
        pod = s.add_pod(make_pod("p").obj())
        s.run_until_idle()
        assert s.node_of(pod) == "n0"
    assert exporter.get_finished_spans() == ()


def test_no_import_without_a_provider() -> None:
    """A scheduler built where nothing imported opentelemetry (so no global provider can be set)
    does not import it either."""
    code = ("import sys; from schedframe import Scheduler; Scheduler(); "
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(schedframe.__file__).parent.parent),
                                         env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_opentelemetry(monkeypatch: pytest.MonkeyPatch, provider: TracerProvider) -> None:
    """Without opentelemetry-api: no tracing by default; a provider given says what to install."""
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    s = Scheduler(clock=FakeClock(T0))
    assert s._tracing is None
    _nodes(s, "4")
    pod = s.add_pod(make_pod("p").obj())
    s.run_until_idle()
    assert s.node_of(pod) == "n0"
    with pytest.raises(SchedulerError, match=r"needs opentelemetry-api: pip install 'schedframe\[otel\]'"):
        Scheduler(tracer_provider=provider)


@pytest.mark.parametrize(("kw", "match"), [
    pytest.param({"tracer_provider": "jaeger"}, r"tracer_provider must be an OpenTelemetry TracerProvider "
                 r"\(an object with a get_tracer\(\) method\), got str", id="not a provider"),
    pytest.param({"trace_plugins": 1}, "trace_plugins must be a bool, got int", id="trace_plugins not bool"),
])
def test_bad_arguments(kw: dict[str, Any], match: str) -> None:
    """A tracer_provider that is not one, or a trace_plugins that is not a bool, is refused."""
    with pytest.raises(ArgumentTypeError, match=match):
        Scheduler(**kw)
