"""The batch fast paths (``score_nodes``, ``normalize_score_ints``, ``filter_nodes``, the framework's
batch search for feasible nodes and the scheduler's use of it) against the node-by-node reference:
the same statuses, scores, totals and placements, on random clusters and pods."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import (
    Code,
    CycleState,
    FakeClock,
    Node,
    NodeInfo,
    NodeScore,
    Pod,
    Registry,
    Scheduler,
    Status,
)
from schedframe.api import Resources
from schedframe.cache.snapshot import Snapshot
from schedframe.config.configuration import SchedulerConfiguration
from schedframe.framework import NodeToStatus
from schedframe.framework.args import decode_args
from schedframe.framework.interfaces import BatchFilterPlugin, BatchScoreExtensions, BatchScorePlugin
from schedframe.framework.runtime import Framework
from schedframe.plugins import _resource_scoring, in_tree_registry
from schedframe.plugins._helpers import default_normalize_score, default_normalize_score_ints
from schedframe.plugins._resource_scoring import DEFAULT_RESOURCES, ResourceSpec, cpu_memory_fast_path
from schedframe.plugins.dynamic_resources import new as new_dynamic_resources
from schedframe.plugins.image_locality import ImageLocality
from schedframe.plugins.inter_pod_affinity import InterPodAffinity
from schedframe.plugins.node_affinity import NodeAffinity, NodeAffinityArgs
from schedframe.plugins.node_name import NodeName
from schedframe.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from schedframe.plugins.node_resources_fit import NodeResourcesFit, NodeResourcesFitArgs, ScoringStrategy
from schedframe.plugins.node_unschedulable import NodeUnschedulable
from schedframe.plugins.node_volume_limits import NodeVolumeLimits
from schedframe.plugins.taint_toleration import TaintToleration
from schedframe.plugins.volume_binding import VolumeBinding
from schedframe.plugins.volume_restrictions import VolumeRestrictions
from schedframe.plugins.volume_zone import VolumeZone
from schedframe.scheduler.scheduler import Diagnosis
from schedframe.testing import make_framework, make_node, make_pod, selector

T0 = 1_700_000_000.0
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
BATCH_METHODS = frozenset({"score_nodes", "normalize_score_ints", "filter_nodes"})
TAINTS = [("dedicated", "x", "NoSchedule"), ("spot", "", "PreferNoSchedule"),
          ("slow", "y", "PreferNoSchedule"), ("maint", "", "NoExecute")]
IMAGES = [("registry/app:v1", 300 * 1024 * 1024), ("registry/db:v2", 900 * 1024 * 1024),
          ("registry/tool", 30 * 1024 * 1024)]


# -- the node-by-node reference: plugins with their batch methods hidden ------------------------

class PerNodeOnly:
    """Wraps a plugin (or score extensions) and hides its batch methods, so the framework uses
    the per-node ones."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in BATCH_METHODS:
            raise AttributeError(name)
        return getattr(self._inner, name)

    def score_extensions(self) -> Any:
        ext = self._inner.score_extensions()
        return None if ext is None else PerNodeOnly(ext)


def per_node_registry(base: Registry | None = None) -> Registry:
    """*base* (default: the in-tree registry) with every plugin wrapped in :class:`PerNodeOnly`."""
    base = in_tree_registry() if base is None else base
    out = Registry()
    for name, entry in base.items():
        def factory(args: object, handle: Any, _f: Any = entry.factory) -> Any:
            return PerNodeOnly(_f(args, handle))
        out.register(name, factory, args_type=entry.args_type)
    return out


def status_key(status: Status | None) -> Any:
    """A comparable view of a status (ERROR statuses carry distinct exception objects)."""
    if status is None:
        return None
    err = status.error
    return (status.code, tuple(status.reasons), status.plugin,
            None if err is None else (type(err).__name__, str(err)))


# -- random clusters and pods -------------------------------------------------------------------

@st.composite
def nodes_st(draw: st.DrawFn, max_nodes: int = 10) -> list[Node]:
    out = []
    for i in range(draw(st.integers(1, max_nodes))):
        b = make_node(f"n{i}").capacity(cpu=draw(st.sampled_from(["0", "1", "2", "4"])),
                                        memory=draw(st.sampled_from(["0", "1Gi", "4Gi"])),
                                        pods=draw(st.integers(0, 5)))
        zone = draw(st.sampled_from([None, "a", "b", "c"]))
        if zone is not None:
            b = b.label(ZONE, zone)
        if draw(st.booleans()):
            b = b.label("disk", draw(st.sampled_from(["ssd", "hdd"])))
        if draw(st.integers(0, 4)):
            b = b.label(HOSTNAME, f"n{i}")
        for key, value, effect in draw(st.lists(st.sampled_from(TAINTS), max_size=2, unique=True)):
            b = b.taint(key, value, effect)
        if draw(st.integers(0, 7)) == 0:
            b = b.unschedulable()
        for image, size in draw(st.lists(st.sampled_from(IMAGES), max_size=2, unique=True)):
            b = b.image(image, size)
        out.append(b.obj())
    return out


@st.composite
def pods_st(draw: st.DrawFn, name: str, node_names: Sequence[str] = ()) -> Pod:
    b = make_pod(name).uid(f"uid-{name}")
    if draw(st.booleans()):
        b = b.label("app", "web")
    for _ in range(draw(st.integers(0, 2))):
        b = b.container(draw(st.sampled_from(["", *[i for i, _ in IMAGES]])),
                        cpu=draw(st.sampled_from([None, "100m", "500m", "1", "3"])),
                        memory=draw(st.sampled_from([None, "128Mi", "1Gi", "3Gi"])))
    if draw(st.integers(0, 2)) == 0:
        b = b.label("app", draw(st.sampled_from(["web", "db"])))
    for _ in range(draw(st.integers(0, 2))):
        # pod (anti-)affinity, required or preferred, by zone or hostname (InterPodAffinity's
        # counts: the incoming pod's terms and, on bound pods, the existing pods' terms)
        b = b.pod_affinity_in("app", draw(st.lists(st.sampled_from(["web", "db"]), min_size=1, max_size=2)),
                              draw(st.sampled_from([ZONE, HOSTNAME])), anti=draw(st.booleans()),
                              weight=draw(st.sampled_from([None, None, 1, 50])))
    if node_names:
        return b.node(draw(st.sampled_from(node_names))).obj()
    for key, value, effect in draw(st.lists(st.sampled_from(TAINTS), max_size=3, unique=True)):
        b = b.toleration(key, value, effect)
    if draw(st.integers(0, 9)) == 0:
        b = b.toleration("node.kubernetes.io/unschedulable", "", "NoSchedule", operator="Exists")
    choice = draw(st.integers(0, 5))
    if choice == 0:
        b = b.node_selector({"disk": draw(st.sampled_from(["ssd", "hdd"]))})
    elif choice == 1:
        b = b.node_affinity_in(ZONE, draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=2)))
    for _ in range(draw(st.integers(0, 2))):
        b = b.preferred_node_affinity(draw(st.integers(1, 100)), draw(st.sampled_from([ZONE, "disk"])),
                                      [draw(st.sampled_from(["a", "b", "ssd"]))])
    if draw(st.booleans()):
        for key in draw(st.lists(st.sampled_from([ZONE, HOSTNAME]), min_size=1, max_size=2, unique=True)):
            b = b.label("app", "web").spread_constraint(
                draw(st.integers(1, 2)), key, draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
                selector({"app": "web"}))
    if draw(st.integers(0, 5)) == 0:
        b = b.host_port(8080)
    return b.obj()


@st.composite
def clusters_st(draw: st.DrawFn, max_nodes: int = 10) -> tuple[list[Node], list[Pod]]:
    nodes = draw(nodes_st(max_nodes))
    names = [n.name for n in nodes]
    bound = [draw(pods_st(f"b{i}", names)) for i in range(draw(st.integers(0, 8)))]
    return nodes, bound


def _profile() -> Any:
    return SchedulerConfiguration.default().profiles[0]


def _framework(registry: Registry, nodes: Sequence[Node], bound: Sequence[Pod]) -> tuple[Framework, Snapshot]:
    snap = Snapshot.from_objects(nodes, bound)
    return Framework(registry, _profile(), snapshot=snap), snap


def _reference_filter(fw: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], k: int
                      ) -> tuple[list[str], list[tuple[str, Any]], Any]:
    """run_filter_plugins node by node, stopping after *k* feasible nodes or at an ERROR."""
    feasible: list[str] = []
    rejected: list[tuple[str, Any]] = []
    for ni in nodes:
        status = fw.run_filter_plugins(state, pod, ni)
        if status.is_success():
            feasible.append(ni.name)
            if len(feasible) == k:
                break
        elif status.code is Code.ERROR:
            return feasible, rejected, status_key(status)
        else:
            rejected.append((ni.name, status_key(status)))
    return feasible, rejected, None


def _search(fw: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], k: int, start: int = 0
            ) -> tuple[list[str], list[tuple[str, Any]], Any]:
    feasible, rejected, err = fw.run_filter_plugins_on_nodes(state, pod, nodes, k, start)
    return ([ni.name for ni in feasible], [(ni.name, status_key(s)) for ni, s in rejected],
            status_key(err))


# -- framework: the whole default profile, batch against node by node ---------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters_st(), data=st.data(), k=st.integers(0, 11), start=st.integers(0, 12))
def test_default_profile_batch_paths_match_node_by_node(cluster: tuple[list[Node], list[Pod]],
                                                       data: st.DataObject, k: int, start: int) -> None:
    """Filter search, PreScore, Score, NormalizeScore and totals of the default profile give the
    same statuses, scores and totals with the batch methods as node by node."""
    nodes, bound = cluster
    pod = data.draw(pods_st("p"))
    fast, fast_snap = _framework(in_tree_registry(), nodes, bound)
    ref, ref_snap = _framework(per_node_registry(), nodes, bound)
    s_fast, s_ref = CycleState(), CycleState()
    pre_fast = fast.run_pre_filter_plugins(s_fast, pod)
    pre_ref = ref.run_pre_filter_plugins(s_ref, pod)
    assert pre_fast[0] == pre_ref[0]
    assert status_key(pre_fast[1]) == status_key(pre_ref[1])
    assert pre_fast[2] == pre_ref[2]
    if not pre_fast[1].is_success():
        return
    infos_fast, infos_ref = list(fast_snap.list()), list(ref_snap.list())
    start %= len(infos_ref)
    want = _reference_filter(ref, s_ref, pod, infos_ref[start:] + infos_ref[:start], k)
    assert _search(fast, s_fast, pod, infos_fast, k, start) == want
    assert _search(ref, s_ref, pod, infos_ref, k, start) == want  # the inlined node-by-node search
    feasible = [ni for ni in infos_fast if ni.name in want[0]]
    feasible_ref = [ni for ni in infos_ref if ni.name in want[0]]
    pre_score = fast.run_pre_score_plugins(s_fast, pod, feasible)
    assert status_key(pre_score) == status_key(ref.run_pre_score_plugins(s_ref, pod, feasible_ref))
    assert s_fast.skip_score_plugins == s_ref.skip_score_plugins
    if not pre_score.is_success():
        return
    scores, status = fast.run_score_plugins(s_fast, pod, feasible)
    ref_scores, ref_status = ref.run_score_plugins(s_ref, pod, feasible_ref)
    assert (scores, status_key(status)) == (ref_scores, status_key(ref_status))
    totals, status = fast.run_score_plugins_totals(s_fast, pod, feasible)
    assert status_key(status) == status_key(ref_status)
    assert totals == [ns.total_score for ns in ref_scores]


# -- scheduler: same placements, events and pending pods ----------------------------------------

def _outcome(s: Scheduler) -> Any:
    return (s.bindings(), [(e.reason, e.message) for e in s.events],
            [(p.pod.key, p.message, sorted(p.plugins)) for p in s.pending()])


def _run(registry: Registry, nodes: Sequence[Node], bound: Sequence[Pod], pending: Sequence[Pod],
         seed: int, percentage: int | None = None) -> Any:
    config = None
    if percentage is not None:
        config = SchedulerConfiguration.from_dict({"percentageOfNodesToScore": percentage}, registry=registry)
    s = Scheduler(config, registry=registry, seed=seed, clock=FakeClock(T0))
    for node in nodes:
        s.add_node(node)
    for p in bound:
        s.add_pod(p)
    for p in pending:
        s.add_pod(p)
    s.run_until_idle()
    return _outcome(s)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters_st(), data=st.data(), seed=st.integers(0, 3))
def test_scheduler_places_pods_as_node_by_node(cluster: tuple[list[Node], list[Pod]], data: st.DataObject,
                                               seed: int) -> None:
    """The scheduler with the batch methods binds the same pods to the same nodes, with the same
    events and pending messages, as with the per-node methods only."""
    nodes, bound = cluster
    pending = [data.draw(pods_st(f"q{i}")) for i in range(data.draw(st.integers(1, 6)))]
    assert (_run(in_tree_registry(), nodes, bound, pending, seed)
            == _run(per_node_registry(), nodes, bound, pending, seed))


def _big_cluster(rng: random.Random, count: int) -> tuple[list[Node], list[Pod]]:
    nodes = []
    for i in range(count):
        b = (make_node(f"n{i:03d}")
             .capacity(cpu=rng.choice(["1", "2", "4"]), memory=rng.choice(["1Gi", "4Gi"]),
                       pods=rng.choice([2, 4, 110]))
             .label(ZONE, "abc"[i % 3]))
        if rng.random() < 0.2:
            b = b.taint(*rng.choice(TAINTS))
        if rng.random() < 0.05:
            b = b.unschedulable()
        nodes.append(b.obj())
    return nodes, []


def _big_pods(rng: random.Random, count: int) -> list[Pod]:
    pods = []
    for i in range(count):
        b = make_pod(f"q{i:03d}").req(cpu=rng.choice(["100m", "500m", "1500m"]),
                                      memory=rng.choice(["128Mi", "1Gi"]))
        r = rng.random()
        if r < 0.2:
            b = b.node_affinity_in(ZONE, ["a"])
        elif r < 0.4:
            b = b.label("app", "web").spread_constraint(1, ZONE, "DoNotSchedule", selector({"app": "web"}))
        elif r < 0.5:
            b = b.toleration("dedicated", "x", "NoSchedule")
        pods.append(b.obj())
    return pods


@pytest.mark.parametrize("percentage", [pytest.param(None, id="adaptive"), pytest.param(5, id="5 percent")])
def test_scheduler_with_partial_search_places_pods_as_node_by_node(percentage: int | None) -> None:
    """With more than 100 nodes the search stops early (percentageOfNodesToScore): same
    placements, events and pending pods as node by node."""
    rng = random.Random(7)
    nodes, bound = _big_cluster(rng, 260)
    pending = _big_pods(rng, 120)
    want = _run(per_node_registry(), nodes, bound, pending, 1, percentage)
    assert _run(in_tree_registry(), nodes, bound, pending, 1, percentage) == want
    assert len(want[0]) > 50


def _reference_find_nodes_that_pass_filters(self: Scheduler, fwk: Framework, state: CycleState, pod: Pod,
                                            diagnosis: Diagnosis, nodes: Sequence[NodeInfo]
                                            ) -> tuple[list[NodeInfo], Status | None]:
    """The scheduler's search as it was before the batch path: run_filter_plugins (or the
    nominated-pods variant) node by node."""
    nodes = list(nodes)
    n = len(nodes)
    if n == 0:
        return [], None
    to_find = self.num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, n)
    if not fwk.has_score_plugins():
        to_find = 1
    start = self._next_start_node_index % n
    if not fwk.has_filter_plugins():
        return [nodes[(start + i) % n] for i in range(min(to_find, n))], None
    feasible: list[NodeInfo] = []
    remaining = to_find
    for node_info in nodes[start:] + nodes[:start]:
        if self.nominator and self.nominator.has_nominated_pods(node_info.name):
            status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        else:
            status = fwk.run_filter_plugins(state, pod, node_info)
        if status.is_success():
            feasible.append(node_info)
            remaining -= 1
            if not remaining:
                break
            continue
        if status.code is Code.ERROR:
            return feasible, status
        diagnosis.node_to_status.set(node_info.name, status)
        if status.plugin:
            if status.code is Code.PENDING:
                diagnosis.pending_plugins.add(status.plugin)
            diagnosis.unschedulable_plugins.add(status.plugin)
    return feasible, None


def _preemption_workload() -> tuple[list[Node], list[Pod], list[Pod]]:
    nodes = [make_node(f"n{i}").capacity(cpu="2", memory="4Gi", pods=10).label(ZONE, "ab"[i % 2]).obj()
             for i in range(6)]
    low = [make_pod(f"low{i}").uid(f"uid-low{i}").priority(0).req(cpu="900m").node(f"n{i % 6}").obj()
           for i in range(12)]
    pending = []
    for i in range(10):
        pending.append(make_pod(f"high{i}").uid(f"uid-high{i}").priority(100).req(cpu="800m").obj())
        pending.append(make_pod(f"mid{i}").uid(f"uid-mid{i}").priority(50).req(cpu="200m").obj())
    return nodes, low, pending


@pytest.mark.parametrize("workload", [
    pytest.param(_preemption_workload, id="preemption with nominated pods"),
    pytest.param(lambda: (*_big_cluster(random.Random(3), 150), _big_pods(random.Random(4), 60)),
                 id="150 nodes"),
])
def test_scheduler_search_matches_the_node_by_node_search(monkeypatch: pytest.MonkeyPatch,
                                                          workload: Callable[[], Any]) -> None:
    """The scheduler's search (batch runs between nodes with nominated pods) against the plain
    node-by-node search it replaced: same placements, events and pending pods."""
    nodes, bound, pending = workload()
    got = _run(in_tree_registry(), nodes, bound, pending, 2)
    monkeypatch.setattr(Scheduler, "_find_nodes_that_pass_filters", _reference_find_nodes_that_pass_filters)
    assert _run(in_tree_registry(), nodes, bound, pending, 2) == got


def test_preemption_workload_nominates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The preemption workload above does exercise nominated pods (so the search runs in
    segments around them)."""
    nodes, bound, pending = _preemption_workload()
    s = Scheduler(seed=2, clock=FakeClock(T0))
    seen: list[int] = []
    original = Scheduler._find_nodes_that_pass_filters

    def spy(self: Scheduler, *args: Any) -> Any:
        seen.append(len(self.nominator))
        return original(self, *args)

    monkeypatch.setattr(Scheduler, "_find_nodes_that_pass_filters", spy)
    for node in nodes:
        s.add_node(node)
    for p in [*bound, *pending]:
        s.add_pod(p)
    s.run_until_idle()
    assert any(seen)


# -- plugins: batch methods against their per-node methods, error paths included ----------------

def _node_infos(nodes: Sequence[Node], bound: Sequence[Pod], with_missing: bool) -> list[NodeInfo]:
    infos = [ni.clone() for ni in Snapshot.from_objects(nodes, bound).list()]
    if with_missing:  # a NodeInfo whose node object is gone
        gone = NodeInfo(make_node("gone").capacity(cpu="1", memory="1Gi", pods=3).obj())
        gone.remove_node()
        infos.insert(len(infos) // 2, gone)
    return infos


def _all_plugins(handle: Framework) -> list[Any]:
    """The in-tree plugins with batch methods, in several configurations."""
    return [
        NodeResourcesFit(),
        NodeResourcesFit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(type="MostAllocated"))),
        NodeResourcesFit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
            resources=(ResourceSpec(name="cpu", weight=3), ResourceSpec(name="memory", weight=1))))),
        NodeResourcesFit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
            resources=(ResourceSpec(name="cpu", weight=1),
                       ResourceSpec(name="ephemeral-storage", weight=1))))),
        NodeResourcesBalancedAllocation(),
        TaintToleration(),
        NodeAffinity(),
        NodeAffinity(decode_args(NodeAffinityArgs, {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": {"matchExpressions": [{"key": ZONE, "operator": "In",
                                                                    "values": ["a"]}]}}]}})),
        ImageLocality(handle),
        NodeUnschedulable(),
        handle.get_plugin("PodTopologySpread"),
        handle.get_plugin("InterPodAffinity"),
        NodeName(),
        VolumeRestrictions(handle),
        VolumeZone(handle),
        NodeVolumeLimits(handle),
        VolumeBinding(None, handle),
        new_dynamic_resources(None, handle),
    ]


def _prepare(plugin: Any, state: CycleState, pod: Pod, infos: Sequence[NodeInfo], phase: str) -> bool:
    """Run the plugin's PreFilter (phase "filter") or PreScore (phase "score"); False when it
    has nothing to do for the pod."""
    method = getattr(plugin, "pre_filter" if phase == "filter" else "pre_score", None)
    if method is None:
        return True
    out = method(state, pod, infos)
    status = out[1] if isinstance(out, tuple) else out
    return status is None or status.code is Code.SUCCESS


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters_st(max_nodes=8), data=st.data(), with_state=st.booleans(), with_missing=st.booleans())
def test_plugin_batch_methods_match_per_node_methods(cluster: tuple[list[Node], list[Pod]],
                                                     data: st.DataObject, with_state: bool,
                                                     with_missing: bool) -> None:
    """Each in-tree ``score_nodes`` / ``filter_nodes`` / ``normalize_score_ints`` gives what its
    per-node method gives, also without PreFilter/PreScore state and on a NodeInfo whose node is
    gone."""
    nodes, bound = cluster
    pod = data.draw(pods_st("p"))
    handle, _snap = _framework(in_tree_registry(), nodes, bound)
    infos = _node_infos(nodes, bound, with_missing)
    for plugin in _all_plugins(handle):
        state = CycleState()
        if isinstance(plugin, BatchFilterPlugin) and (
                not with_state or _prepare(plugin, state, pod, infos, "filter")):
            want = [(i, status_key(s)) for i, ni in enumerate(infos)
                    if (s := plugin.filter(state, pod, ni)) is not None]
            got = [(i, status_key(s)) for i, s in plugin.filter_nodes(state, pod, infos)]
            assert got == want, plugin.name
        state = CycleState()
        if isinstance(plugin, BatchScorePlugin) and (
                not with_state or _prepare(plugin, state, pod, infos, "score")):
            per_node: list[int] = []
            failure: Status | None = None
            for ni in infos:
                score, s = plugin.score(state, pod, ni)
                if s is not None and not s.is_success():
                    failure = s
                    break
                per_node.append(score)
            result = plugin.score_nodes(state, pod, infos)
            if failure is not None:
                assert isinstance(result, Status), plugin.name
                assert status_key(result) == status_key(failure), plugin.name
                continue
            assert result == per_node, plugin.name
            ext = plugin.score_extensions()
            if isinstance(ext, BatchScoreExtensions):
                scores = [NodeScore(ni.name, v) for ni, v in zip(infos, per_node)]
                assert ext.normalize_score(state, pod, scores) is None
                want_normalized = [ns.score for ns in scores]
                assert ext.normalize_score_ints(state, pod, infos, list(per_node)) == want_normalized


@given(scores=st.lists(st.integers(-300, 300), max_size=12), reverse=st.booleans(),
       max_priority=st.sampled_from([10, 100]))
def test_default_normalize_score_ints_matches_node_score_version(scores: list[int], reverse: bool,
                                                                 max_priority: int) -> None:
    """default_normalize_score_ints returns what default_normalize_score leaves in a NodeScore
    list, negative scores included."""
    node_scores = [NodeScore(f"n{i}", v) for i, v in enumerate(scores)]
    default_normalize_score(max_priority, reverse, node_scores)
    want = [ns.score for ns in node_scores]
    assert default_normalize_score_ints(max_priority, reverse, list(scores)) == want


def test_empty_node_lists() -> None:
    """Batch methods given no nodes return empty results, even without their state."""
    handle = Framework(in_tree_registry(), _profile())
    pod = make_pod("p").req(cpu="1").obj()
    for plugin in _all_plugins(handle):
        if isinstance(plugin, BatchScorePlugin):
            assert plugin.score_nodes(CycleState(), pod, []) == [], plugin.name
        if isinstance(plugin, BatchFilterPlugin):
            assert plugin.filter_nodes(CycleState(), pod, []) == [], plugin.name


@pytest.mark.parametrize("gone_at", [0, 1])
def test_batch_score_without_state_fails_at_the_first_failing_node(gone_at: int) -> None:
    """Without PreScore state, a node gone first fails as that node, a node gone later after the
    state: score_nodes fails as the per-node loop's first failure."""
    nodes = [make_node("n0").capacity(cpu="4", memory="4Gi", pods=3)
             .taint("k", "v", "PreferNoSchedule").obj()]
    pod = make_pod("p").req(cpu="1").obj()
    handle, _snap = _framework(in_tree_registry(), nodes, [])
    infos = _node_infos(nodes, [], False)
    gone = NodeInfo(make_node("gone").capacity(cpu="1", memory="1Gi", pods=3).obj())
    gone.remove_node()
    infos.insert(gone_at, gone)
    for plugin in _all_plugins(handle):
        if not isinstance(plugin, BatchScorePlugin):
            continue
        want = next((s for ni in infos if (s := plugin.score(CycleState(), pod, ni)[1]) is not None
                     and not s.is_success()), None)
        got = plugin.score_nodes(CycleState(), pod, infos)
        if want is None:
            assert not isinstance(got, Status), plugin.name
        else:
            assert isinstance(got, Status), plugin.name
            assert status_key(got) == status_key(want), plugin.name


@pytest.mark.parametrize("anti", [True, False])
def test_inter_pod_affinity_one_key_filter_judges_every_kind_of_node(anti: bool) -> None:
    """InterPodAffinity's one-key batch Filter gives each node what Filter gives it: a node
    in a counted zone, one in a zone counted nowhere, one without the zone label, and one gone."""
    nodes = [make_node("n0").label(ZONE, "a").obj(), make_node("n1").label(ZONE, "b").obj(),
             make_node("n2").obj(), make_node("n3").label(ZONE, "a").obj()]
    bound = [make_pod("web").label("app", "web").node("n0").obj()]
    handle, _snap = _framework(in_tree_registry(), nodes, bound)
    infos = _node_infos(nodes, bound, False)
    gone = NodeInfo(make_node("gone").label(ZONE, "a").obj())
    gone.remove_node()
    infos.insert(2, gone)
    b = make_pod("p").label("app", "web")
    pod = (b.pod_anti_affinity(ZONE, selector({"app": "web"})) if anti
           else b.pod_affinity(ZONE, selector({"app": "web"}))).obj()
    plugin = handle.get_plugin("InterPodAffinity")
    assert isinstance(plugin, InterPodAffinity)
    state = CycleState()
    assert _prepare(plugin, state, pod, infos, "filter")
    want = [(i, status_key(st)) for i, ni in enumerate(infos)
            if (st := plugin.filter(state, pod, ni)) is not None]
    got = [(i, status_key(st)) for i, st in plugin.filter_nodes(state, pod, infos)]
    assert got == want
    assert {i for i, _ in want} == ({0, 2, 4} if anti else {1, 2, 3})


def test_no_resources_error_matches() -> None:
    """NodeResourcesFit with no scored resources fails the same way in both paths."""
    plugin = NodeResourcesFit()
    plugin._no_resources = True
    infos = _node_infos([make_node("n0").capacity(cpu="1", memory="1Gi", pods=3).obj()], [], False)
    pod = make_pod("p").req(cpu="1").obj()
    _score, want = plugin.score(CycleState(), pod, infos[0])
    got = plugin.score_nodes(CycleState(), pod, infos)
    assert isinstance(got, Status)
    assert status_key(got) == status_key(want)


# -- the resource-scoring memo --------------------------------------------------------------------

@pytest.mark.parametrize(("strategy", "use_requested"), [
    pytest.param("LeastAllocated", False, id="least allocated"),
    pytest.param("MostAllocated", False, id="most allocated"),
])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.tuples(st.sampled_from(["add", "remove", "grow", "clone", "new", "reqs", "poke",
                                               "twin"]),
                              st.integers(0, 5), st.sampled_from(["0", "100m", "1", "3"])),
                    min_size=1, max_size=25))
def test_memo_scorer_follows_node_changes(monkeypatch: pytest.MonkeyPatch, strategy: str, use_requested: bool,
                                          ops: list[tuple[str, int, str]]) -> None:
    """The memoizing batch scorer gives the per-node score after every kind of node change
    (pods added and removed, node replaced, clones, new NodeInfos, even aggregates replaced
    without a new generation and another node with the same generation), for changing pod
    requests, with memos cleared when full."""
    monkeypatch.setattr(_resource_scoring, "_MAX_MEMO_ENTRIES", 4)
    monkeypatch.setattr(_resource_scoring, "_MAX_MEMOS", 2)
    batch = _resource_scoring.cpu_memory_fast_path_nodes(DEFAULT_RESOURCES, strategy,
                                                         use_requested=use_requested)
    single = cpu_memory_fast_path(DEFAULT_RESOURCES, strategy, use_requested=use_requested)
    assert batch is not None
    assert single is not None
    infos = [NodeInfo(make_node(f"n{i}").capacity(cpu="2", memory="2Gi", pods=9).obj()) for i in range(6)]
    reqs: tuple[int, ...] = (100, 200)
    for step, (op, i, cpu) in enumerate(ops):
        ni = infos[i]
        if op == "add":
            ni.add_pod(make_pod(f"x{step}").uid(f"x{step}").req(cpu=cpu, memory="256Mi").node(ni.name).obj())
        elif op == "remove" and ni.pods:
            ni.remove_pod(ni.pods[0].pod)
        elif op == "grow" and ni.node is not None:
            ni.set_node(make_node(ni.name).capacity(cpu=cpu, memory="4Gi", pods=9).obj())
        elif op == "clone":
            infos[i] = ni.clone()
        elif op == "new":
            infos[i] = NodeInfo(make_node(ni.name).capacity(cpu=cpu, memory="1Gi", pods=9).obj())
        elif op == "reqs":
            reqs = (i * 100, i * 1024)
        elif op == "poke":  # aggregates replaced behind the generation's back
            ni.requested = Resources(milli_cpu=i * 300, memory=i << 28)
            ni.non_zero_requested = Resources(milli_cpu=i * 200, memory=i << 27)
            ni.allocatable = Resources(milli_cpu=1000 + i, memory=1 << 30, pods=9)
        elif op == "twin":  # a different node sharing the generation of node 0
            twin = NodeInfo(make_node(ni.name).capacity(cpu=cpu, memory="3Gi", pods=9).obj())
            twin.generation = infos[0].generation
            infos[i] = twin
        assert batch(infos, reqs) == [single(n, reqs) for n in infos]
        assert batch(infos, list(reqs)) == [single(n, reqs) for n in infos]


# -- framework: results and failures of batch methods map like the per-node ones ----------------

class _Scorer:
    """A Score plugin whose per-node and batch methods fail alike (*fail*: "", "raise", "status")
    at node *bad*, with optional normalization."""

    def __init__(self, fail: str = "", bad: str = "n1", normalize: str = "", name: str = "S") -> None:
        self.name = name
        self.fail = fail
        self.bad = bad
        self.normalize = normalize

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if node_info.name == self.bad:
            if self.fail == "raise":
                raise ValueError("boom")
            if self.fail == "status":
                return 0, Status(Code.UNSCHEDULABLE, ("nope",))
        return int(node_info.name[1:]) * 7, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        if any(ni.name == self.bad for ni in nodes):
            if self.fail == "raise":
                raise ValueError("boom")
            if self.fail == "status":
                return Status(Code.UNSCHEDULABLE, ("nope",))
        return [int(ni.name[1:]) * 7 for ni in nodes]

    def score_extensions(self) -> Any:
        return self if self.normalize else None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        if self.normalize == "raise":
            raise KeyError("norm")
        if self.normalize == "status":
            return Status(Code.UNSCHEDULABLE, ("bad norm",))
        default_normalize_score(100, False, scores)
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status:
        if self.normalize == "raise":
            raise KeyError("norm")
        if self.normalize == "status":
            return Status(Code.UNSCHEDULABLE, ("bad norm",))
        return default_normalize_score_ints(100, False, scores)


NODES = [make_node(f"n{i}").obj() for i in range(4)]
POD = make_pod("p").obj()


def _score_both(plugin: Any, weight: int = 2) -> tuple[Any, Any]:
    results = []
    for p in (plugin, PerNodeOnly(plugin)):
        fw = make_framework(score=[(p, weight)])
        infos = [NodeInfo(n) for n in NODES]
        scores, status = fw.run_score_plugins(CycleState(), POD, infos)
        totals, t_status = fw.run_score_plugins_totals(CycleState(), POD, infos)
        assert status_key(t_status) == status_key(status)
        assert totals == [ns.total_score for ns in scores]
        results.append((scores, status_key(status)))
    return results[0], results[1]


@pytest.mark.parametrize("plugin", [
    pytest.param(_Scorer(), id="success"),
    pytest.param(_Scorer(normalize="ok"), id="normalized"),
    pytest.param(_Scorer("raise"), id="score raises"),
    pytest.param(_Scorer("status"), id="score fails"),
    pytest.param(_Scorer(normalize="raise"), id="normalize raises"),
    pytest.param(_Scorer(normalize="status"), id="normalize fails"),
    pytest.param(_Scorer(bad="n0", fail="raise", normalize="status"), id="score error comes first"),
])
def test_batch_score_results_and_errors_match_per_node(plugin: _Scorer) -> None:
    """score_nodes / normalize_score_ints results and failures give the same scores and ERROR
    statuses as score / normalize_score."""
    fast, ref = _score_both(plugin)
    assert fast == ref


class _Junk:
    """A batch Score plugin returning *scores* from score_nodes and *normalized* from
    normalize_score_ints."""

    name = "Junk"

    def __init__(self, scores: Any = None, normalized: Any = None) -> None:
        self.scores = scores
        self.normalized = normalized

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 1, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return [1] * len(nodes) if self.scores is None else self.scores

    def score_extensions(self) -> Any:
        return self if self.normalized is not None else None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> Any:
        return self.normalized


@pytest.mark.parametrize(("plugin", "message"), [
    pytest.param(_Junk(scores=[1, 2]), 'running Score plugins: plugin "Junk" failed with: returned 2 scores '
                 "for 4 nodes", id="too few scores"),
    pytest.param(_Junk(scores=(1, 1, 1, 1)), 'running Score plugins: plugin "Junk" failed with: score_nodes '
                 "returned tuple (1, 1, 1, 1), want a list of ints or a non-success Status", id="a tuple"),
    pytest.param(_Junk(scores=Status.OK), 'running Score plugins: plugin "Junk" failed with: score_nodes '
                 "returned Status Status(Code.SUCCESS), want a list of ints or a non-success Status",
                 id="a success status"),
    pytest.param(_Junk(scores=[1, 2, 300, 4]),
                 'applying score defaultWeights on Score plugins: plugin "Junk" returns an invalid score '
                 "300, it should in the range of [0, 100] after normalizing",
                 id="out of range"),
    pytest.param(_Junk(scores=[1, "x", 3, 4]),
                 'applying score defaultWeights on Score plugins: plugin "Junk" returns an invalid score '
                 "'x', it should in the range of [0, 100] after normalizing",
                 id="not an int"),
    pytest.param(_Junk(normalized=[1]), 'running Normalize on Score plugins: plugin "Junk" failed with: '
                 "returned 1 scores for 4 nodes", id="normalize: too few"),
    pytest.param(_Junk(normalized=Status.OK),
                 'running Normalize on Score plugins: plugin "Junk" failed with: '
                 "normalize_score_ints returned Status, want a list of ints or a non-success Status",
                 id="normalize: a success status"),
    pytest.param(_Junk(normalized="nope"), 'running Normalize on Score plugins: plugin "Junk" failed with: '
                 "normalize_score_ints returned str, want a list of ints or a non-success Status",
                 id="normalize: a string"),
])
def test_malformed_batch_score_results_are_errors(plugin: _Junk, message: str) -> None:
    """A batch Score method returning the wrong thing is an ERROR naming the plugin."""
    fw = make_framework(score=[plugin])
    scores, status = fw.run_score_plugins(CycleState(), POD, [NodeInfo(n) for n in NODES])
    assert scores == []
    assert (status.code, status.message, status.plugin) == (Code.ERROR, message, "Junk")


class _Filter:
    """A Filter plugin rejecting nodes in *reject* and failing (*fail*: "raise", "status") at
    node *bad*, node by node and in batch; *batch* ("", "raise", "junk", "lie") breaks the batch
    method only."""

    def __init__(self, name: str = "F", reject: Sequence[str] = (), fail: str = "", bad: str = "",
                 batch: str = "") -> None:
        self.name = name
        self.reject = set(reject)
        self.fail = fail
        self.bad = bad
        self.batch = batch
        self.calls: list[str] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls.append(node_info.name)
        if node_info.name == self.bad:
            if self.fail == "raise":
                raise ValueError("boom")
            if self.fail == "status":
                return Status(Code.SKIP, ("odd",))
        if node_info.name in self.reject:
            return Status(Code.UNSCHEDULABLE, (f"{self.name} says no",))
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        if self.batch == "raise":
            raise RuntimeError("batch broke")
        if self.batch == "junk":
            return [(len(nodes), Status(Code.UNSCHEDULABLE))]
        if self.batch == "lie":
            return [("0", None)]
        no = Status(Code.UNSCHEDULABLE, (f"{self.name} says no",))
        if self.batch == "twice":
            return [(0, no), (1, no), (0, no)]
        if self.batch == "triple":
            return [(0, no), (1, no, "extra")]
        if self.batch == "bool":
            return [(True, no)]
        out = []
        for i, ni in enumerate(nodes):
            if ni.name == self.bad and self.fail == "raise":
                raise ValueError("boom")
            s = self.filter(state, pod, ni)
            if s is not None:
                out.append((i, s))
        return out


class _WholeRuns(_Filter):
    """A _Filter declaring, as the memoising built-in plugins do, that it takes whole runs."""

    _schedframe_filters_whole_runs = True


FILTER_NODES = [make_node(f"n{i}").obj() for i in range(12)]


@pytest.mark.parametrize("plugins", [
    pytest.param(lambda: [_Filter("A", reject=["n1", "n5"]), _Filter("B", reject=["n2", "n5", "n9"])],
                 id="rejections"),
    pytest.param(lambda: [_Filter("A", reject=["n1"]), _Filter("B", fail="raise", bad="n4")],
                 id="a filter raises"),
    pytest.param(lambda: [_Filter("A", fail="status", bad="n6"), _Filter("B", fail="status", bad="n3")],
                 id="errors: the first node wins"),
    pytest.param(lambda: [_Filter("A", batch="raise", reject=["n2"]), _Filter("B", reject=["n3"])],
                 id="filter_nodes raises"),
    pytest.param(lambda: [_Filter("A", reject=["n2"]), _Filter("B", batch="junk")], id="index out of range"),
    pytest.param(lambda: [_Filter("A", batch="lie")], id="index not an int"),
    pytest.param(lambda: [_Filter("A", reject=["n3"]), _Filter("B", batch="twice")], id="an index twice"),
    pytest.param(lambda: [_WholeRuns("A", batch="triple")], id="not a pair"),
    pytest.param(lambda: [_Filter("A", batch="bool")], id="index a bool"),
    pytest.param(lambda: [_Filter("A", reject=["n1", "n5"]), _WholeRuns("B", reject=["n2", "n5", "n9"]),
                          _Filter("C", reject=["n3", "n9"]), _WholeRuns("D", reject=["n1", "n4"])],
                 id="whole runs: the first rejection stands"),
    pytest.param(lambda: [_Filter("A", reject=["n6"]), _WholeRuns("B", fail="status", bad="n6")],
                 id="whole runs: an error on a node rejected before is not seen"),
    pytest.param(lambda: [_WholeRuns("A", reject=["n2"]), _WholeRuns("B", fail="raise", bad="n2")],
                 id="whole runs: a raise on a node rejected before is redone node by node"),
    pytest.param(lambda: [_WholeRuns("A", fail="status", bad="n7"), _Filter("B", reject=["n7", "n8"])],
                 id="whole runs: an error first"),
    # a plugin with a per-node filter only, adapted by the framework into the batch search
    pytest.param(lambda: [_Filter("A", reject=["n1"]), PerNodeOnly(_Filter("B", reject=["n2", "n9"])),
                          _WholeRuns("C", reject=["n3"])], id="adapted: rejections"),
    pytest.param(lambda: [_Filter("A", reject=["n4"]), PerNodeOnly(_Filter("B", fail="raise", bad="n6"))],
                 id="adapted: a raise"),
    pytest.param(lambda: [PerNodeOnly(_Filter("A", fail="status", bad="n8")),
                          _Filter("B", fail="raise", bad="n5")], id="adapted: an error after another's"),
    pytest.param(lambda: [PerNodeOnly(_Filter("A", fail="raise", bad="n2")), _WholeRuns("B", reject=["n1"])],
                 id="adapted: a raise before a whole-run rejection"),
])
@pytest.mark.parametrize("k", [1, 3, 5, 12, 0])
def test_batch_filter_search_matches_node_by_node(plugins: Callable[[], list[_Filter]], k: int) -> None:
    """The batch search gives run_filter_plugins' statuses node by node, whatever the plugins'
    filter_nodes do (a broken one is redone node by node)."""
    fast = make_framework(filter=plugins())
    ref = make_framework(filter=[PerNodeOnly(p) for p in plugins()])
    infos = [NodeInfo(n) for n in FILTER_NODES]
    for start in (0, 5, 11):
        order = infos[start:] + infos[:start]
        want = _reference_filter(ref, CycleState(), POD, order, k)
        assert _search(fast, CycleState(), POD, order, k) == want
        assert _search(ref, CycleState(), POD, order, k) == want
        assert _search(fast, CycleState(), POD, infos, k, start) == want
        assert _search(ref, CycleState(), POD, infos, k, start) == want


def test_whole_run_plugins_see_the_whole_run() -> None:
    """A plugin declaring whole runs is handed every node of the run (those rejected before
    included); the others only the nodes every earlier plugin passed."""
    a, b, c = _Filter("A", reject=["n1"]), _WholeRuns("B", reject=["n2"]), _Filter("C")
    fw = make_framework(filter=[a, b, c])
    infos = [NodeInfo(n) for n in FILTER_NODES]
    feasible, rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 0)
    assert [(ni.name, s.plugin) for ni, s in rejected] == [("n1", "A"), ("n2", "B")]
    assert b.calls == [ni.name for ni in infos]
    assert "n1" not in c.calls
    assert "n2" not in c.calls
    assert err is None
    assert len(feasible) == 10


def test_mixed_plugins_filter_node_by_node_in_order() -> None:
    """A Filter plugin lacking filter_nodes is adapted into the batch search (no shim of its
    own): it sees a node only after the earlier plugins passed it, and the first run holds just
    the nodes the search needs."""
    a, b = _Filter("A", reject=["n1"]), PerNodeOnly(_Filter("B", reject=["n2"]))
    fw = make_framework(filter=[a, b])
    infos = [NodeInfo(n) for n in NODES]
    feasible, rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 1)
    assert [ni.name for ni in feasible] == ["n0"]
    assert rejected == []
    assert err is None
    assert a.calls == ["n0"]
    assert b.calls == ["n0"]


def test_broken_filter_nodes_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A filter_nodes that raises is logged, naming the plugin, and the nodes are filtered one
    by one."""
    fw = make_framework(filter=[_Filter("A", batch="raise", reject=["n1"])])
    infos = [NodeInfo(n) for n in NODES]
    feasible, rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 4)
    assert [ni.name for ni in feasible] == ["n0", "n2", "n3"]
    assert [(ni.name, s.plugin) for ni, s in rejected] == [("n1", "A")]
    assert err is None
    assert "filter_nodes of Filter plugin 'A' failed" in caplog.text


def test_batch_search_skips_skipped_plugins() -> None:
    """Plugins whose PreFilter said SKIP take no part in the batch search either."""
    fw = make_framework(filter=[_Filter("A", reject=["n0", "n1"]), _Filter("B", reject=["n2"])])
    state = CycleState()
    state.skip_filter_plugins = frozenset({"A"})
    feasible, rejected, _ = fw.run_filter_plugins_on_nodes(state, POD, [NodeInfo(n) for n in NODES], 0)
    assert [ni.name for ni in feasible] == ["n0", "n1", "n3"]
    assert [(ni.name, s.plugin) for ni, s in rejected] == [("n2", "B")]


def test_batch_search_grows_its_runs() -> None:
    """When few nodes pass, later runs grow (one filter_nodes call per plugin and run): twice
    the last while none passed, then what the pass rate says the rest needs, a quarter more and
    16 nodes to spare; the search still stops at the node where a node-by-node search stops."""
    sparse = _Passing("Sparse", lambda name: name.endswith("7"))
    calls = sparse.calls
    fw = make_framework(filter=[sparse])
    infos = [NodeInfo(make_node(f"m{i:04d}").obj()) for i in range(3000)]
    feasible, rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 3)
    assert [ni.name for ni in feasible] == ["m0007", "m0017", "m0027"]
    assert err is None
    assert len(rejected) == 25
    # 3 and 6 nodes, none passing then one in 9: the 2 left need 18, and 4 + 16 to spare
    assert calls == [3, 6, 38]
    # from the end of the list: the second run wraps around, the later ones start past the end
    calls.clear()
    ref = make_framework(filter=[PerNodeOnly(_Passing("Sparse", lambda name: name.endswith("7")))])
    want = _reference_filter(ref, CycleState(), POD, infos[2995:] + infos[:2995], 3)
    assert want[0] == ["m2997", "m0007", "m0017"]
    assert _search(fw, CycleState(), POD, infos, 3, 2995) == want
    assert calls == [3, 23]  # one in 3 passed: the 2 left need 6, and 1 + 16 to spare


class _Passing:
    """A batch Filter plugin passing the nodes whose name *passes* says, recording the length of
    each list ``filter_nodes`` is handed."""

    def __init__(self, name: str, passes: Callable[[str], bool]) -> None:
        self.name = name
        self.passes = passes
        self.calls: list[int] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if self.passes(node_info.name) else Status(Code.UNSCHEDULABLE, ("no",))

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        self.calls.append(len(nodes))
        return [(i, s) for i, ni in enumerate(nodes) if (s := self.filter(state, pod, ni)) is not None]


@pytest.mark.parametrize("every", [1, 2, 3, 10])
def test_batch_search_visits_about_what_the_pass_rate_needs(every: int) -> None:
    """One node in *every* passing, a search for 200 visits runs sized by the pass rate (not runs
    that double past it): at most a quarter more than a node-by-node search, and finds the
    nodes it finds."""
    plugin = _Passing("Every", lambda name: int(name[1:]) % every == 0)
    calls = plugin.calls
    fw = make_framework(filter=[plugin])
    infos = [NodeInfo(make_node(f"m{i:05d}").obj()) for i in range(20000)]
    feasible, _rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 200)
    assert err is None
    assert [ni.name for ni in feasible] == [f"m{i:05d}" for i in range(0, 200 * every, every)]
    needed = 199 * every + 1  # up to the 200th node that passes
    assert needed <= sum(calls) <= needed + needed // 4 + 16  # runs that doubled: 600 for 399


def _reference_select_host(rng: random.Random, nodes: Sequence[NodeInfo], totals: Sequence[int]) -> str:
    """Host selection as it was: the ties listed in Python, one draw when there are several."""
    max_score = max(totals)
    ties = [i for i, t in enumerate(totals) if t == max_score]
    best = ties[0] if len(ties) == 1 else ties[rng.randrange(len(ties))]
    return nodes[best].name


@given(totals=st.lists(st.integers(0, 4), min_size=1, max_size=40), seed=st.integers(0, 2**32))
def test_select_host_matches_the_python_loop(totals: list[int], seed: int) -> None:
    """The scheduler picks the same host, and draws the same random numbers, as the plain loop."""
    nodes = [NodeInfo(make_node(f"n{i}").obj()) for i in range(len(totals))]
    s = Scheduler(seed=seed, clock=FakeClock(T0))
    want_rng = random.Random(seed)
    for _ in range(3):
        assert s._select_host(nodes, totals) == _reference_select_host(want_rng, nodes, totals)
    assert s._rng.getstate() == want_rng.getstate()


def _reference_range_verdict(names: Sequence[str], raw: Sequence[Sequence[Any]]) -> str | None:
    """The score range check as it was (min, max and sum over each whole list): the message of
    the first offender, or None."""
    try:
        lo = min(min(lst) for lst in raw)
        hi = max(max(lst) for lst in raw)
        bad = lo < 0 or hi > 100 or any(sum(lst).__class__ is not int for lst in raw)
    except TypeError:
        bad = True
    if bad:
        for i in range(len(raw[0])):
            for name, lst in zip(names, raw):
                score = lst[i]
                if score.__class__ is not int or not 0 <= score <= 100:
                    shown = score if score.__class__ is int else repr(score)
                    return (f'applying score defaultWeights on Score plugins: plugin "{name}" returns an '
                            f"invalid score {shown}, it should in the range of [0, 100] after normalizing")
    return None


_JUNK = st.one_of(st.integers(-5, 105), st.booleans(), st.sampled_from([0.5, float("nan"), 2**70, "7", None]))


@settings(max_examples=200, deadline=None)
@given(lists=st.lists(st.lists(st.integers(0, 100) | _JUNK, min_size=3, max_size=3), min_size=1, max_size=3))
def test_score_range_check_matches_the_whole_list_check(lists: list[list[Any]]) -> None:
    """The range check over each list's distinct values finds exactly what the check over the
    whole lists found (junk of every kind included)."""
    plugins = [_Junk(scores=lst) for lst in lists]
    for i, p in enumerate(plugins):
        p.name = f"J{i}"
    fw = make_framework(score=plugins)
    infos = [NodeInfo(n) for n in NODES[:3]]
    _scores, status = fw.run_score_plugins(CycleState(), POD, infos)
    want = _reference_range_verdict([p.name for p in plugins], lists)
    assert (status.message if not status.is_success() else None) == want


def test_node_to_status_set_many_is_set_in_order() -> None:
    """NodeToStatus.set_many records pairs as set() one by one would, in order."""
    a, b = Status(Code.UNSCHEDULABLE, ("a",)), Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("b",))
    one, many = NodeToStatus(), NodeToStatus()
    for name, s in [("n1", a), ("n0", b), ("n1", b)]:
        one.set(name, s)
    many.set_many([("n1", a), ("n0", b), ("n1", b)])
    assert many.items() == one.items() == [("n1", b), ("n0", b)]


def test_memo_scorer_keeps_one_entry_per_distinct_row() -> None:
    """The scorer remembers a score per distinct row of amounts: nodes with equal amounts share
    one tuple (NodeInfo interns its rows) and so one entry, and a node scored again after a
    change adds the entry of its new amounts only."""
    batch = _resource_scoring.cpu_memory_fast_path_nodes(DEFAULT_RESOURCES, "LeastAllocated",
                                                         use_requested=False)
    assert isinstance(batch, _resource_scoring._MemoNodesScorer)
    infos = [NodeInfo(make_node(f"n{i}").capacity(cpu="4", memory="4Gi", pods=99).obj()) for i in range(5)]
    assert len({id(ni.resource_row) for ni in infos}) == 1  # equal amounts: one tuple
    for step in range(40):
        ni = infos[step % 5]
        ni.add_pod(make_pod(f"x{step}").uid(f"x{step}").req(cpu="10m").node(ni.name).obj())
        snapshot = [n.clone() for n in infos]
        batch(snapshot, (100, 100))
    entries, = batch._memos.values()
    # the rows of 0..8 pods of 10m: each node passed through the same amounts
    assert len(entries) == 9
    assert set(entries) <= {n.resource_row_key for step in range(9) for n in [_with_pods(step)]}


def _with_pods(k: int) -> NodeInfo:
    ni = NodeInfo(make_node("other").capacity(cpu="4", memory="4Gi", pods=99).obj())
    for j in range(k):
        ni.add_pod(make_pod(f"y{j}").uid(f"y{j}").req(cpu="10m").node("other").obj())
    return ni


def test_row_keys_name_amounts() -> None:
    """Equal amounts share a row key and different ones do not; a NodeInfo copied or
    unpickled gets this process's key for its amounts, whatever key it carried."""
    import copy
    import pickle

    a, b, c = _with_pods(2), _with_pods(2), _with_pods(3)
    assert a.resource_row_key == b.resource_row_key != c.resource_row_key
    assert b.clone().resource_row_key == b.resource_row_key
    for twin in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert twin.resource_row == a.resource_row
        assert twin.resource_row_key == a.resource_row_key
    state: Any = a.__reduce_ex__(2)[2]  # what pickle and copy hand to __setstate__
    state[1]["resource_row_key"] = c.resource_row_key  # as from another process
    foreign = NodeInfo.__new__(NodeInfo)
    foreign.__setstate__(state)
    assert foreign.resource_row_key == a.resource_row_key


@settings(max_examples=60, deadline=None)
@given(cpus=st.lists(st.sampled_from(["0", "1", "2", "4"]), min_size=1, max_size=12),
       adds=st.lists(st.tuples(st.integers(0, 11), st.sampled_from(["0", "100m", "1", "3"])), max_size=25),
       forget=st.booleans())
def test_memo_scorers_equal_their_loops(cpus: list[str], adds: list[tuple[int, str]], forget: bool) -> None:
    """LeastAllocated's and BalancedAllocation's row memos give what their loops give, cycle
    after cycle, with nodes changing in between -- also when the shared rows are forgotten
    (equal amounts then live in different tuples)."""
    from schedframe.cache import nodeinfo as nodeinfo_module
    from schedframe.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation

    least = _resource_scoring.cpu_memory_fast_path_nodes(DEFAULT_RESOURCES, "LeastAllocated",
                                                         use_requested=False)
    assert isinstance(least, _resource_scoring._MemoNodesScorer)
    balanced = NodeResourcesBalancedAllocation()._score_nodes
    assert isinstance(balanced, _resource_scoring._MemoNodesScorer)
    infos = [NodeInfo(make_node(f"n{i}").capacity(cpu=c, memory="4Gi", pods=99).obj())
             for i, c in enumerate(cpus)]
    for step, (k, cpu) in enumerate([*adds, (0, "0")]):
        ni = infos[k % len(infos)]
        ni.add_pod(make_pod(f"x{step}").uid(f"x{step}").req(cpu=cpu, memory="64Mi").node(ni.name).obj())
        if forget and step % 3 == 0:
            nodeinfo_module._ROWS.clear()
        for reqs in ((100, 64 << 20), (1500, 1 << 30), (0, 0)):
            for scorer in (least, balanced):
                assert scorer(infos, reqs) == scorer._loop(infos, reqs)


def test_node_to_status_records_rejections_when_read() -> None:
    """Rejections the search records in batches read as set() one by one would have left them,
    interleaved with set() and set_many() in any order."""
    a, b, c = (Status(Code.UNSCHEDULABLE, (m,)) for m in "abc")
    n0, n1, n2 = (NodeInfo(make_node(name).obj()) for name in ("n0", "n1", "n2"))
    lazy, eager = NodeToStatus(), NodeToStatus()
    lazy._record_rejected([(n1, a), (n0, b)])
    lazy.set("n1", c)
    lazy._record_rejected([(n0, c), (n2, a)])
    lazy._record_rejected([])
    for name, s in [("n1", a), ("n0", b), ("n1", c), ("n0", c), ("n2", a)]:
        eager.set(name, s)
    assert lazy.items() == eager.items()
    later = NodeToStatus()
    later._record_rejected([(n2, b)])
    assert len(later) == 1
    assert "n2" in later
    assert later.get("n2") is b
    assert later.nodes_for_code(Code.UNSCHEDULABLE, ["n2", "n9"]) == ["n2"]


def test_node_to_status_counts_a_node_recorded_twice_once() -> None:
    """len(NodeToStatus) counts nodes, whether a node came in two batches (the nominated node
    tried first, then the whole search) or was set before its batch."""
    a, b = Status(Code.UNSCHEDULABLE, ("a",)), Status(Code.UNSCHEDULABLE, ("b",))
    n0, n1, n2 = (NodeInfo(make_node(name).obj()) for name in ("n0", "n1", "n2"))
    one = NodeToStatus()
    one._record_rejected([(n1, a)])
    assert len(one) == 1
    one._record_rejected([(n0, b), (n1, b), (n2, b)])
    assert len(one) == 3
    assert one.get("n1") is b
    two = NodeToStatus()
    two.set("n2", a)
    two._record_rejected([(n2, b), (n0, b)])
    assert len(two) == 2


def test_a_per_node_filter_keeps_the_others_batched() -> None:
    """One Filter plugin without filter_nodes (an out-of-tree plugin, or a volume plugin) no
    longer sends every plugin node by node: the framework adapts it, and the batch plugins are
    still handed runs of nodes."""
    sparse = _Passing("Sparse", lambda name: name.endswith("7"))
    per_node = PerNodeOnly(_Filter("B", reject=["m0017"]))
    fw = make_framework(filter=[sparse, per_node])
    infos = [NodeInfo(make_node(f"m{i:04d}").obj()) for i in range(3000)]
    feasible, _rejected, err = fw.run_filter_plugins_on_nodes(CycleState(), POD, infos, 3)
    assert [ni.name for ni in feasible] == ["m0007", "m0027", "m0037"]
    assert err is None
    assert sparse.calls  # batched, in runs
    assert sum(sparse.calls) < len(infos)
    assert set(per_node._inner.calls) <= {ni.name for ni in infos if ni.name.endswith("7")}
