"""Tests for Scheduler and the binder (behaviours of upstream schedule_one.go / eventhandlers.go)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pluggy
import pytest

from schedframe import (
    ActionType,
    ClusterEvent,
    Code,
    ConfigurationError,
    CycleState,
    EventResource,
    FakeClock,
    Namespace,
    NodeInfo,
    NominatingInfo,
    Pod,
    PostFilterResult,
    PreFilterResult,
    SchedulerError,
    Status,
)
from schedframe.config.configuration import Profile, SchedulerConfiguration
from schedframe.errors import ArgumentTypeError
from schedframe.framework.binder import InMemoryBinder, SchedulerClient
from schedframe.framework.hookspecs import hookimpl
from schedframe.framework.plugin_manager import make_plugin_manager
from schedframe.plugins import in_tree_registry
from schedframe.plugins.node_resources_fit import ERR_REASON_INSUFFICIENT_CPU
from schedframe.plugins.taint_toleration import ERR_REASON_UNTOLERATED
from schedframe.scheduler.scheduler import ERR_NO_NODES_AVAILABLE, FitError, RunSummary, Scheduler
from schedframe.testing import (
    FAKE_REASON,
    FakeFilter,
    FakePermit,
    FakePostFilter,
    FakePreFilter,
    FakeReserve,
    FalseFilter,
    fake_registry,
    make_node,
    make_pod,
)

T0 = 1_700_000_000.0
NOT_HELPFUL = (" preemption: 0/{n} nodes are available: {n} Preemption is not "
               "helpful for scheduling.")


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, **labels: str) -> Any:
    b = make_node(name).capacity(cpu=cpu, memory=memory, pods=pods)
    for k, v in labels.items():
        b = b.label(k, v)
    return b


def pod(name: str, cpu: str = "100m", memory: str = "100Mi") -> Any:
    return make_pod(name).req(cpu=cpu, memory=memory)


def scheduler_with(*plugins: Any, defaults: bool = True, clock: FakeClock | None = None,
                   pct: int | None = None, **kw: Any) -> Scheduler:
    """A scheduler whose profile adds fake plugin instances to the default plugins (or to just
    PrioritySort + DefaultBinder)."""
    registry = fake_registry(*plugins, base=in_tree_registry())
    names: list[str] = [p.name for p in plugins]
    if not defaults:
        names = ["PrioritySort", "DefaultBinder", *names]
    profile = Profile.from_plugins(*names, defaults=defaults, registry=registry,
                                   percentage_of_nodes_to_score=pct)
    config = SchedulerConfiguration.from_profiles(profile, registry=registry)
    return Scheduler(config, registry=registry, clock=clock if clock is not None else FakeClock(T0), **kw)


# --------------------------------------------------------------------------------------------
# end-to-end placement


def test_places_pods_on_fitting_nodes() -> None:
    """Pods land only on nodes that fit them; the rest stay pending with upstream's message."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("small", cpu="1").obj())
    s.add_node(node("big", cpu="4").obj())
    for i in range(3):
        s.add_pod(pod(f"p{i}", cpu="1500m").obj())
    summary = s.run_until_idle()
    assert summary == RunSummary(scheduled=2, failed=1, cycles=3, pending=1)
    assert sorted(s.bindings().values()) == ["big", "big"]
    [pending] = s.pending()
    assert pending.message == (f"0/2 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}. "
                               "preemption: 0/2 "
                               "nodes are available: 1 No preemption victims found for incoming pod, "
                               "1 Preemption is not helpful for scheduling.")
    assert (pending.plugins, pending.where, pending.attempts) == (frozenset({"NodeResourcesFit"}),
                                                                   "Unschedulable", 1)
    assert s.node_of(pending.pod) is None
    assert [e.reason for e in s.events].count("Scheduled") == 2


def test_pending_pod_scheduled_after_node_added() -> None:
    """A node addition moves an unschedulable pod (NodeResourcesFit's NodeAdd hint)."""
    s = Scheduler(clock=FakeClock(T0))
    p = s.add_pod(pod("p", cpu="2").obj())
    assert s.run_until_idle().scheduled == 0
    assert s.pending()[0].message == ERR_NO_NODES_AVAILABLE
    s.add_node(node("n1", cpu="1").obj())
    s.run_until_idle()
    assert s.node_of(p) is None
    s.add_node(node("n2", cpu="4").obj())
    s.run_until_idle()
    assert s.node_of(p) == "n2"
    assert s.pending() == []


def test_node_label_update_releases_pod() -> None:
    """update_node delivers UpdateNodeLabel; a pod waiting for that label gets scheduled."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj().evolve(node_selector={"disk": "ssd"}))
    s.run_until_idle()
    assert s.node_of(p) is None
    s.update_node(node("n1", disk="ssd").obj())
    s.run_until_idle()
    assert s.node_of("default/p") == "n1"


def test_removing_bound_pod_frees_room() -> None:
    """Deleting a bound pod (AssignedPodDelete) lets a pod rejected for resources in."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="2").obj())
    a = s.add_pod(pod("a", cpu="1500m").obj())
    b = s.add_pod(pod("b", cpu="1500m").obj())
    s.run_until_idle()
    assert (s.node_of(a), s.node_of(b)) == ("n1", None)
    s.remove_pod(a)
    s.run_until_idle()
    assert s.node_of(b) == "n1"
    assert s.node_of(a) is None


def test_manifests_are_accepted() -> None:
    """Handlers take v1 manifests as well as api objects."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "10"}}})
    s.add_pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "prod"},
               "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})
    s.add_object({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}})
    s.run_until_idle()
    assert s.node_of("prod/web") == "n1"
    assert s.objects.namespace("prod") is not None


def test_pods_of_other_schedulers_and_bound_pods() -> None:
    """Pods for other schedulers are ignored; pods added bound go to the cache only."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="1").obj())
    other = s.add_pod(pod("other").scheduler_name("someone-else").obj())
    s.add_pod(pod("running", cpu="900m").node("n1").obj())
    late = s.add_pod(pod("late", cpu="500m").obj())
    s.run_until_idle()
    assert (s.node_of(other), s.node_of("default/running"), s.node_of(late)) == (None, "n1", None)
    assert [p.pod.name for p in s.pending()] == ["late"]
    assert s.cache.pod_count() == 1


def test_multiple_profiles() -> None:
    """Each pod is scheduled by the profile named in spec.schedulerName."""
    registry = in_tree_registry()
    config = SchedulerConfiguration.from_profiles(
        Profile.from_plugins(registry=registry),
        Profile.from_plugins(scheduler_name="second", registry=registry),
        registry=registry)
    s = Scheduler(config, registry=registry, clock=FakeClock(T0))
    s.add_node(node("n1").obj())
    s.add_pod(pod("a").obj())
    s.add_pod(pod("b").scheduler_name("second").obj())
    s.run_until_idle()
    assert s.bindings() == {"default/a": "n1", "default/b": "n1"}
    assert sorted(s.frameworks) == ["default-scheduler", "second"]


def test_config_mapping_and_bad_config() -> None:
    """A KubeSchedulerConfiguration mapping is read; other types are refused."""
    s = Scheduler({"profiles": [{"schedulerName": "x"}]})
    assert list(s.frameworks) == ["x"]
    with pytest.raises(SchedulerError, match="config must be a SchedulerConfiguration"):
        Scheduler(42)


# --------------------------------------------------------------------------------------------
# FitError messages


@pytest.mark.parametrize(
    ("nodes", "pod_", "want"),
    [
        pytest.param(
            [node("a", cpu="1"), node("b", cpu="1"), node("c", cpu="8").taint("k"),
             node("d", cpu="8").taint("k"), node("e", cpu="8").taint("k", "v", "NoExecute")],
            pod("p", cpu="2"),
            f"0/5 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}, 3 {ERR_REASON_UNTOLERATED}."
            + NOT_HELPFUL.format(n=5),
            id="counted reasons sorted"),
        pytest.param(
            [node(f"n{i:02}", cpu="1") for i in range(10)] + [node("t1").taint("k"), node("t2").taint("k")],
            pod("p", cpu="2"),
            f"0/12 nodes are available: 10 {ERR_REASON_INSUFFICIENT_CPU}, 2 {ERR_REASON_UNTOLERATED}."
            + NOT_HELPFUL.format(n=12),
            id="sorted as strings like upstream"),
        pytest.param(
            [node("a"), node("b")],
            pod("p").node_affinity_name("ghost"),
            "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
            + NOT_HELPFUL.format(n=2),
            id="PreFilterResult excludes every node"),
        pytest.param([], pod("p"), ERR_NO_NODES_AVAILABLE, id="no nodes"),
    ],
)
def test_fit_error_messages(nodes: list[Any], pod_: Any, want: str) -> None:
    """Failure messages match kube-scheduler's FitError text."""
    s = Scheduler(clock=FakeClock(T0))
    for n in nodes:
        s.add_node(n.obj())
    p = s.add_pod(pod_.obj())
    s.run_until_idle()
    assert s.pending()[0].message == want
    assert s.events[-1].reason == "FailedScheduling"
    assert s.events[-1].message == want
    assert s.node_of(p) is None


def test_from_config_reads_a_file_for_a_release(tmp_path: Path) -> None:
    """``Scheduler.from_config`` takes a configuration file's path, reads it for the release
    asked, and passes the other keyword arguments to the scheduler."""
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                    "profiles:\n- schedulerName: packer\n")
    s = Scheduler.from_config(str(path), kubernetes_version="1.33", load_entry_points=False,
                              objects=[node("n1").obj()])
    assert list(s.frameworks) == ["packer"]
    assert s.config.release.version == "1.33"
    assert [n.name for n in s.nodes()] == ["n1"]
    s.add_pod(pod("a").scheduler_name("packer").obj())
    s.run_until_idle()
    assert s.bindings() == {"default/a": "n1"}


def test_from_config_errors_name_the_file(tmp_path: Path) -> None:
    """A file that cannot be read is a ConfigurationError naming it; a value of another type a
    SchedulerError; ``Scheduler(path)`` itself still refuses a path, as before."""
    path = tmp_path / "bad.yaml"
    path.write_text("profiles: 3\n")
    with pytest.raises(ConfigurationError, match=r"bad\.yaml") as info:
        Scheduler.from_config(path)
    assert "profiles" in str(info.value)
    with pytest.raises(SchedulerError, match="or a file's path, got int"):
        Scheduler.from_config(3)
    with pytest.raises(SchedulerError, match="config must be"):
        Scheduler(str(path))


def test_prefilter_rejection_message() -> None:
    """A PreFilter rejection gives only its message, for every node."""
    pf = FakePreFilter(status=Status.unresolvable("pod is not welcome"), name="Bouncer")
    s = scheduler_with(pf, defaults=False)
    for n in "abc":
        s.add_node(node(n).obj())
    s.add_pod(pod("p").obj())
    s.run_until_idle()
    [pending] = s.pending()
    assert pending.message == "0/3 nodes are available: pod is not welcome."
    assert pending.plugins == frozenset({"Bouncer"})


def test_post_filter_message_and_nomination() -> None:
    """PostFilter runs on rejection: its message is appended and its nomination recorded."""
    post = FakePostFilter(result=PostFilterResult(NominatingInfo("b")), name="Preempt")
    flt = FalseFilter(name="Nope")
    s = scheduler_with(flt, post, defaults=False)
    s.add_node(node("a").obj())
    s.add_node(node("b").obj())
    p = s.add_pod(pod("p").obj())
    s.schedule_one()
    [pending] = s.pending()
    assert pending.message == f"0/2 nodes are available: 2 {FAKE_REASON}."
    current = s.get_pod(p)
    assert current is not None
    assert current.nominated_node_name == "b"
    assert [x.pod.name for x in s.nominator.nominated_pods_for_node("b")] == ["p"]


def test_post_filter_rejection_message_is_appended() -> None:
    """A PostFilter that cannot help adds its reasons after the filter reasons."""
    post = FakePostFilter(status=Status.unschedulable("preemption: 0/2 nodes are available: "
                                                      "2 No preemption victims found for incoming pod."),
                          name="Preempt")
    s = scheduler_with(FalseFilter(name="Nope"), post, defaults=False)
    s.add_node(node("a").obj())
    s.add_node(node("b").obj())
    s.add_pod(pod("p").obj())
    s.run_until_idle()
    assert s.pending()[0].message == (
        f"0/2 nodes are available: 2 {FAKE_REASON}. preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod.")


def test_fit_error_str() -> None:
    """FitError's str() is its message."""
    from schedframe.scheduler.scheduler import Diagnosis

    d = Diagnosis()
    d.pre_filter_msg = "nope"
    assert str(FitError(pod("p").obj(), 3, d)) == "0/3 nodes are available: nope."


# --------------------------------------------------------------------------------------------
# node search


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "want"),
    [
        pytest.param(10, None, 10, id="small cluster: all"),
        pytest.param(99, 5, 99, id="below 100 ignores percentage"),
        pytest.param(100, None, 100, id="adaptive floor 100"),
        pytest.param(1000, None, 420, id="adaptive 42%"),
        pytest.param(5000, None, 500, id="adaptive 10%"),
        pytest.param(6000, None, 300, id="adaptive floor 5%"),
        pytest.param(20000, None, 1000, id="adaptive 5% of many"),
        pytest.param(1000, 10, 100, id="explicit 10%"),
        pytest.param(1000, 5, 100, id="explicit but at least 100"),
        pytest.param(1000, 50, 500, id="explicit 50%"),
        pytest.param(1000, 0, 420, id="0 is adaptive"),
    ],
)
def test_num_feasible_nodes_to_find(num_nodes: int, percentage: int | None, want: int) -> None:
    """numFeasibleNodesToFind follows upstream's adaptive formula."""
    s = Scheduler(clock=FakeClock(T0))
    assert s.num_feasible_nodes_to_find(percentage, num_nodes) == want


def test_global_percentage_applies_without_profile_value() -> None:
    """The configuration's percentageOfNodesToScore is used when the profile sets none."""
    s = Scheduler({"percentageOfNodesToScore": 20}, clock=FakeClock(T0))
    assert s.num_feasible_nodes_to_find(None, 1000) == 200
    assert s.num_feasible_nodes_to_find(30, 1000) == 300


def test_round_robin_start_without_scoring() -> None:
    """Without Score plugins one feasible node is enough and the search start rotates."""
    s = scheduler_with(FakeFilter(name="Pass"), defaults=False)
    for i in range(4):
        s.add_node(node(f"n{i}").obj())
    for i in range(6):
        s.add_pod(pod(f"p{i}").obj())
    s.run_until_idle()
    assert [s.bindings()[f"default/p{i}"] for i in range(6)] == ["n0", "n1", "n2", "n3", "n0", "n1"]


def test_search_stops_after_enough_feasible_nodes() -> None:
    """Filter runs on numFeasibleNodesToFind nodes (percentage of 200 nodes: 100) and, as
    upstream's search does, on one more feasible node, which ends it without being counted:
    the next cycle starts there."""
    flt = FakeFilter(name="Count")
    s = scheduler_with(flt, pct=10)
    for i in range(200):
        s.add_node(node(f"n{i:03}").obj())
    s.add_pod(pod("p").obj())
    s.run_until_idle()
    assert len(flt.calls) == 101
    assert s._next_start_node_index == 100


def test_search_counts_the_rejections_before_the_node_that_ends_it() -> None:
    """Nodes rejected after the last feasible node needed, before the one that ends the search,
    are visited: the round robin moves past them (upstream's processedNodes)."""
    flt = FakeFilter(name="Reject", failed={f"n{i:03}": Code.UNSCHEDULABLE for i in range(100, 105)})
    s = scheduler_with(flt, pct=10)
    for i in range(200):
        s.add_node(node(f"n{i:03}").obj())
    s.add_pod(pod("p").obj())
    s.run_until_idle()
    assert s._next_start_node_index == 105


def test_nominated_node_tried_first() -> None:
    """A pod with a nominated node is placed there if it fits, without scoring other nodes."""
    flt = FakeFilter(name="Count")
    s = scheduler_with(flt)
    for i in range(5):
        s.add_node(node(f"n{i}").obj())
    p = s.add_pod(pod("p").nominated_node_name("n3").obj())
    s.run_until_idle()
    assert s.node_of(p) == "n3"
    assert len(flt.calls) == 1


def test_nominated_pods_are_accounted() -> None:
    """Pods nominated to a node (by PostFilter) count against it for lower-priority pods."""
    post = FakePostFilter(result=PostFilterResult(NominatingInfo("n1")), name="Preempt")
    s = scheduler_with(post)
    s.add_node(node("n1", cpu="2").obj())
    blocker = s.add_pod(pod("blocker", cpu="1").priority(200).node("n1").obj())  # cannot be preempted
    hp = s.add_pod(pod("hp", cpu="1500m").priority(100).obj())
    s.run_until_idle()
    assert s.nominator.nominated_node_of(hp) == "n1"
    low = s.add_pod(pod("low", cpu="600m").obj())
    s.run_until_idle()
    assert s.node_of(low) is None  # 1 cpu free, but 1.5 cpu are promised to hp
    assert s.pending()[-1].message == f"0/1 nodes are available: 1 {ERR_REASON_INSUFFICIENT_CPU}."
    s.remove_pod(blocker)
    s.run_until_idle()
    assert (s.node_of(hp), s.node_of(low)) == ("n1", None)
    assert s.nominator.nominated_node_of(hp) is None


# --------------------------------------------------------------------------------------------
# determinism


def _placements(seed: int) -> dict[str, str]:
    s = Scheduler(clock=FakeClock(T0), seed=seed)
    for i in range(12):
        s.add_node(node(f"n{i:02}").obj())
    for i in range(30):
        s.add_pod(pod(f"p{i:02}").obj())
    s.run_until_idle()
    return s.bindings()


def test_same_seed_same_placements() -> None:
    """Same inputs and seed give the same placements; seeds break ties differently."""
    first = _placements(7)
    assert first == _placements(7)
    assert len(first) == 30
    assert any(_placements(seed) != first for seed in range(1, 5))


# --------------------------------------------------------------------------------------------
# failure paths


def test_plugin_raising_is_an_error_for_that_pod_only() -> None:
    """A plugin exception fails that pod with ERROR; the scheduler keeps placing others."""

    class Picky:
        name = "Picky"

        def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status | None:
            if p.labels.get("bad"):
                raise ValueError("boom")
            return None

    s = scheduler_with(Picky())
    s.add_node(node("n1").obj())
    bad = s.add_pod(pod("bad").label("bad", "yes").obj())
    good = s.add_pod(pod("good").obj())
    summary = s.run_until_idle()
    assert (s.node_of(good), s.node_of(bad)) == ("n1", None)
    [pending] = s.pending()
    assert pending.message == 'running Filter plugin "Picky": ValueError: boom'
    assert pending.plugins == frozenset()
    assert pending.where == "Backoff"
    info = s.queue.get(bad)
    assert info is not None
    assert info.consecutive_errors == 2  # retried once after its error backoff, then left
    assert summary.clock_advanced == 2.0


def test_bind_failure_requeues_with_error_backoff() -> None:
    """A refused binding unreserves, forgets the pod and retries it after the error backoff."""

    class Flaky:
        def __init__(self) -> None:
            self.fail = 1
            self.inner = InMemoryBinder()

        def bind(self, p: Pod, node_name: str) -> None:
            if self.fail:
                self.fail -= 1
                raise ConnectionError("apiserver unavailable")
            self.inner.bind(p, node_name)

    reserve = FakeReserve(name="Res")
    binder = Flaky()
    s = scheduler_with(reserve, binder=binder)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    s.schedule_one()
    assert s.node_of(p) is None
    assert s.cache.get_pod(p) is None
    assert ("unreserve", "p", "n1") in reserve.calls
    assert s.pending()[0].message == 'running Bind plugin "DefaultBinder": apiserver unavailable'
    assert s.pending()[0].where == "Backoff"
    summary = s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert binder.inner.bindings == {"default/p": "n1"}
    assert summary.clock_advanced == 2.0  # 1 s error backoff, flushed at the next window


@pytest.mark.parametrize(
    ("status", "want_message", "want_plugins"),
    [
        pytest.param(Status.unschedulable("no room reserved"), "0/1 nodes are available: 1 no room reserved.",
                     frozenset({"Res"}), id="rejected"),
        pytest.param(Status(Code.ERROR, ("quota service down",)),
                     'running Reserve plugin "Res": quota service down', frozenset(), id="error"),
    ],
)
def test_reserve_failure(status: Status, want_message: str, want_plugins: frozenset[str]) -> None:
    """A Reserve failure unreserves every plugin and forgets the assumed pod."""
    reserve = FakeReserve(status=status, name="Res")
    s = scheduler_with(reserve)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    s.schedule_one()
    assert ("unreserve", "p", "n1") in reserve.calls
    assert s.cache.pod_count() == 0
    [pending] = s.pending()
    assert (pending.message, pending.plugins) == (want_message, want_plugins)
    assert s.node_of(p) is None


def test_pods_being_deleted_are_skipped() -> None:
    """A pod with a deletion timestamp is not scheduled."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1").obj())
    s.add_pod(pod("p").terminating(T0).obj())
    s.run_until_idle()
    assert s.bindings() == {}
    assert s.events[-1].message == "skip schedule deleting pod: default/p"


# --------------------------------------------------------------------------------------------
# permit


def test_permit_wait_then_allow_deterministic() -> None:
    """A pod told to wait at Permit is parked; allowing it resumes its binding cycle."""
    permit = FakePermit(status=Status.wait(), timeout=30, name="Gate")
    s = scheduler_with(permit)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    summary = s.run_until_idle(max_cycles=1)
    assert (summary.cycles, summary.waiting, s.node_of(p)) == (1, 1, None)
    assert s.pending()[0].where == "InFlight"
    assert s.cache.is_assumed(p)
    wp = s.frameworks["default-scheduler"].get_waiting_pod(p.uid)
    assert wp is not None
    wp.allow("Gate")
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert s.clock.now() == T0


def test_permit_reject() -> None:
    """A rejected waiting pod is unreserved, forgotten and unschedulable with the plugin's reason."""
    permit = FakePermit(status=Status.wait(), timeout=30, name="Gate")
    s = scheduler_with(permit)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    s.run_until_idle(max_cycles=1)
    wp = s.waiting_pods.get(p.uid)
    assert wp is not None
    wp.reject("Gate", "gang incomplete")
    s.run_until_idle()
    [pending] = s.pending()
    assert (pending.message, pending.plugins) == ("0/1 nodes are available: 1 gang incomplete.",
                                                  frozenset({"Gate"}))
    assert s.cache.pod_count() == 0


def test_permit_timeout_advances_fake_clock() -> None:
    """run_until_idle moves the fake clock to the permit deadline; the pod is then rejected."""
    permit = FakePermit(status=Status.wait(), timeout=10, name="Gate")
    s = scheduler_with(permit)
    s.add_node(node("n1").obj())
    s.add_pod(pod("p").obj())
    summary = s.run_until_idle()
    assert summary.clock_advanced == 10.0
    assert summary.waiting == 0
    assert s.pending()[0].message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Gate.")


def test_deleting_a_waiting_pod() -> None:
    """Deleting a pod waiting at Permit rejects it; it is forgotten and not requeued."""
    permit = FakePermit(status=Status.wait(), timeout=30, name="Gate")
    s = scheduler_with(permit)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    s.run_until_idle(max_cycles=1)
    s.remove_pod(p)
    assert s.cache.pod_count() == 0
    assert len(s.waiting_pods) == 0
    assert s.pending() == []
    assert len(s.queue) == 0


def test_threaded_permit_allow_and_timeout() -> None:
    """Threaded mode: binding cycles wait on Permit in real time in worker threads."""

    class Gate:
        name = "Gate"

        def permit(self, state: CycleState, p: Pod, node_name: str) -> tuple[Status | None, float]:
            return Status.wait(), (0.2 if p.labels.get("short") else 60.0)

    with scheduler_with(Gate(), threaded=True, clock=None) as s:
        s.add_node(node("n1").obj())
        a = s.add_pod(pod("a").obj())
        b = s.add_pod(pod("b").label("short", "yes").obj())
        s.schedule_one()
        s.schedule_one()
        deadline = time.monotonic() + 10
        while s.waiting_pods.get(a.uid) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        wp = s.waiting_pods.get(a.uid)
        assert wp is not None
        wp.allow("Gate")
        s.run_until_idle()
        assert s.node_of(a) == "n1"
        assert s.node_of(b) is None
        assert "rejected due to timeout after waiting 200ms at plugin Gate" in s.pending()[0].message
    s.close()


def test_threaded_binding_many_pods() -> None:
    """Threaded mode binds every pod and keeps the cache consistent."""
    with Scheduler(threaded=True, workers=4) as s:
        for i in range(3):
            s.add_node(node(f"n{i}", cpu="2").obj())
        for i in range(12):
            s.add_pod(pod(f"p{i}", cpu="500m").obj())
        summary = s.run_until_idle()
        assert summary.scheduled == 12
        assert sorted(s.bindings().values()).count("n0") == 4
        assert s.cache.dump().assumed_pods == frozenset()


# --------------------------------------------------------------------------------------------
# handlers, activation, hooks, client


def test_handler_errors() -> None:
    """Misuse of the event handlers raises SchedulerError naming the object."""
    s = Scheduler(clock=FakeClock(T0))
    n1 = s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    with pytest.raises(SchedulerError, match="node 'n1' already exists"):
        s.add_node(n1)
    with pytest.raises(SchedulerError, match="node 'ghost' is unknown"):
        s.update_node(node("ghost").obj())
    with pytest.raises(SchedulerError, match="node 'ghost' is unknown, so it cannot be removed"):
        s.remove_node("ghost")
    with pytest.raises(SchedulerError, match="pod 'default/p' already exists"):
        s.add_pod(p)
    with pytest.raises(SchedulerError, match="pod 'default/q' is unknown; add it"):
        s.update_pod(pod("q").obj())
    with pytest.raises(SchedulerError, match="exists with uid"):
        s.update_pod(pod("p").uid("other-uid").obj())
    with pytest.raises(SchedulerError, match="pod 'default/q' is unknown, so it cannot be removed"):
        s.remove_pod("default/q")
    with pytest.raises(ArgumentTypeError, match="add_pod: pod must be a Pod or a v1 Pod manifest"):
        s.add_pod(42)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="add_node: node must be a Node or a v1 Node manifest"):
        s.add_node("n2")  # type: ignore[arg-type]
    with pytest.raises(SchedulerError, match="Namespace 'ns' is unknown"):
        s.remove_object(Namespace("ns"))
    with pytest.raises(ArgumentTypeError, match="expected a cluster object"):
        s.add_object(42)


def test_update_and_remove_pending_pod() -> None:
    """update_pod and remove_pod of a pending pod reach the queue."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="1").obj())
    p = s.add_pod(pod("p", cpu="2").obj())
    s.run_until_idle()
    s.update_pod(p.evolve(labels={"v": "2"}))
    queued = s.queue.get(p)
    assert queued is not None
    assert queued.pod.labels == {"v": "2"}
    s.remove_pod(p.key)
    assert len(s.queue) == 0
    assert s.pending() == []


def test_bound_pod_update_and_external_binding() -> None:
    """Updates of bound pods go to the cache; a pod bound by someone else leaves the queue."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="1").obj())
    s.add_node(node("n2").obj())
    big = s.add_pod(pod("big", cpu="2").obj())
    s.schedule_one()
    s.update_pod(big.evolve(node_name="n2"))
    assert s.node_of(big) == "n2"
    assert len(s.queue) == 0
    s.update_pod(big.evolve(node_name="n2", labels={"a": "b"}))
    cached = s.cache.get_pod(big)
    assert cached is not None
    assert cached.labels == {"a": "b"}
    s.remove_node("n1")
    assert [n.name for n in s.nodes()] == ["n2"]
    assert [p.name for p in s.pods()] == ["big"]


def test_objects_deliver_events() -> None:
    """add_object / remove_object deliver <Kind>Add/Update/Delete events."""
    seen: list[str] = []

    class Watcher:
        name = "Watcher"

        def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status | None:
            return Status.unschedulable("waiting for namespace")

        def events_to_register(self) -> Sequence[Any]:
            from schedframe import ClusterEventWithHint

            def hint(p: Pod, old: Any, new: Any) -> Any:
                from schedframe import QueueingHint

                seen.append(f"{type(old).__name__}->{type(new).__name__}")
                return QueueingHint.QUEUE_SKIP

            return [ClusterEventWithHint(ClusterEvent(EventResource.NAMESPACE, ActionType.ALL), hint)]

    s = scheduler_with(Watcher())
    s.add_node(node("n1").obj())
    s.add_pod(pod("p").obj())
    s.run_until_idle()
    ns = Namespace("team", labels={"a": "b"})
    s.add_object(ns)
    s.add_object(Namespace("team", labels={"a": "c"}))
    s.remove_object(ns)
    assert seen == ["NoneType->Namespace", "Namespace->Namespace", "Namespace->NoneType"]


def test_pods_to_activate() -> None:
    """Pods a plugin puts in CycleState.pods_to_activate move to activeQ after the cycle."""
    s_holder: list[Scheduler] = []

    class Activator:
        name = "Activator"

        def reserve(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            waiting = s_holder[0].get_pod("default/waiting")
            if waiting is not None:
                state.pods_to_activate[waiting.key] = waiting
            return None

        def unreserve(self, state: CycleState, p: Pod, node_name: str) -> None:
            return None

    s = scheduler_with(Activator())
    s_holder.append(s)
    s.add_node(node("n1").obj())
    s.add_pod(pod("waiting").node_selector({"x": "y"}).obj())
    s.run_until_idle()
    assert s.pending()[0].where == "Unschedulable"
    s.add_pod(pod("trigger").obj())
    s.schedule_one()
    assert s.queue.where(s.get_pod("default/waiting") or "") == "Active"


def test_observer_hooks() -> None:
    """pluggy observer hooks see scheduled, bound, failed and finished cycles."""
    calls: list[tuple[str, str]] = []

    class Observer:
        @hookimpl
        def schedframe_pod_scheduled(self, pod: Pod, node_name: str) -> None:
            calls.append(("scheduled", pod.name))

        @hookimpl
        def schedframe_pod_bound(self, pod: Pod, node_name: str) -> None:
            calls.append(("bound", f"{pod.name}@{node_name}"))

        @hookimpl
        def schedframe_pod_failed(self, pod: Pod, status: Status) -> None:
            calls.append(("failed", pod.name))

        @hookimpl
        def schedframe_cycle_finished(self, pod: Pod, status: Status) -> None:
            calls.append(("cycle", f"{pod.name}:{status.code.name}"))
            raise RuntimeError("observer bug")  # logged, never breaks scheduling

    pm = make_plugin_manager()
    pm.register(Observer())
    s = Scheduler(clock=FakeClock(T0), plugin_manager=pm)
    s.add_node(node("n1", cpu="1").obj())
    s.add_pod(pod("ok").obj())
    s.add_pod(pod("big", cpu="2").obj())
    s.run_until_idle()
    assert calls == [("scheduled", "ok"), ("cycle", "ok:SUCCESS"), ("bound", "ok@n1"),
                     ("failed", "big"), ("cycle", "big:UNSCHEDULABLE")]


def test_hook_without_spec_is_ignored() -> None:
    """A plugin manager lacking schedframe's hookspecs is tolerated."""
    s = Scheduler(clock=FakeClock(T0), plugin_manager=pluggy.PluginManager("other"))
    s.add_node(node("n1").obj())
    s.add_pod(pod("p").obj())
    assert s.run_until_idle().scheduled == 1


def test_client_routes_side_effects() -> None:
    """The client binds through the binder, deletes through remove_pod, and patches nominations."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p", cpu="100").obj())
    s.run_until_idle()
    s.client.set_nominated_node_name(p, "n1")
    current = s.get_pod(p)
    assert current is not None
    assert current.nominated_node_name == "n1"
    assert s.nominator.nominated_node_of(p) == "n1"
    s.client.delete_pod(p)
    assert s.get_pod(p) is None
    assert s.nominator.nominated_node_of(p) is None
    assert isinstance(s.client, SchedulerClient)
    assert isinstance(s.binder, InMemoryBinder)
    assert "0 bindings" in repr(s.binder)
    assert "deterministic" in repr(s)


def test_nominated_pod_deletion_wakes_lower_priority() -> None:
    """Deleting a nominated pod is an AssignedPodDelete for pods of lower or equal priority."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="1").obj())
    blocker = s.add_pod(pod("blocker", cpu="900m").node("n1").obj())
    low = s.add_pod(pod("low", cpu="500m").obj())
    s.run_until_idle()
    assert s.node_of(low) is None
    s.remove_pod(blocker)
    s.run_until_idle()
    assert s.node_of(low) == "n1"


def test_prefilter_result_narrows_nodes() -> None:
    """A PreFilterResult limits the nodes evaluated (and others get the absent status)."""
    pf = FakePreFilter(result=PreFilterResult({"n2", "ghost"}), name="Narrow")
    s = scheduler_with(pf)
    for n in ("n1", "n2", "n3"):
        s.add_node(node(n).obj())
    p = s.add_pod(pod("p").obj())
    s.run_until_idle()
    assert s.node_of(p) == "n2"


def test_close_is_idempotent_and_rejects_waiters() -> None:
    """close() rejects pods still waiting at Permit and can be called twice."""
    permit = FakePermit(status=Status.wait(), timeout=60, name="Gate")
    s = scheduler_with(permit, threaded=True, clock=None)
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").obj())
    s.schedule_one()
    deadline = time.monotonic() + 5
    while s.waiting_pods.get(p.uid) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    s.close()
    s.close()
    assert "scheduler closed" in s.pending()[0].message
    assert threading.active_count() >= 1


# --------------------------------------------------------------------------------------------
# preemption (DefaultPreemption through the client)


def test_preemption_evicts_victims_and_places_preemptor() -> None:
    """A high-priority pod preempts lower-priority pods through the client, is nominated, and is
    placed on the freed node once its victims are gone."""
    preempted: list[tuple[str, str, str]] = []

    class Observer:
        @hookimpl
        def schedframe_pod_preempted(self, victim: Pod, preemptor: Pod, node_name: str) -> None:
            preempted.append((victim.name, preemptor.name, node_name))

    pm = make_plugin_manager()
    pm.register(Observer())
    s = Scheduler(clock=FakeClock(T0), plugin_manager=pm)
    s.add_node(node("n1", cpu="2").obj())
    for i in range(2):
        s.add_pod(pod(f"low{i}", cpu="1").priority(0).obj())
    s.run_until_idle()
    hp = s.add_pod(pod("hp", cpu="2").priority(100).obj())
    summary = s.run_until_idle()
    assert (summary.scheduled, summary.failed) == (1, 1)
    assert s.bindings() == {"default/hp": "n1"}
    assert sorted(v for v, _, _ in preempted) == ["low0", "low1"]
    assert {(p, n) for _, p, n in preempted} == {("hp", "n1")}
    reasons = [e.reason for e in s.events]
    assert reasons.count("Preempted") == 2
    assert s.get_pod("default/low0") is None
    assert s.nominator.nominated_node_of(hp) is None


@pytest.mark.parametrize(
    ("preemptor", "want_suffix"),
    [
        pytest.param(pod("hp", cpu="2").priority(100),
                     "preemption: 0/2 nodes are available: 1 No preemption "
                     "victims found for incoming "
                     "pod, 1 Preemption is not helpful for scheduling.", id="no victims"),
        pytest.param(pod("never", cpu="2").priority(1000).preemption_policy("Never"),
                     "preemption: not eligible due to preemptionPolicy=Never.",
                     id="policy never"),
    ],
)
def test_preemption_failure_message(preemptor: Any, want_suffix: str) -> None:
    """When preemption cannot help, its message follows the filter reasons."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="2").obj())
    s.add_node(node("n2", cpu="2").taint("k").obj())
    s.add_pod(pod("same", cpu="2").priority(100).obj())
    s.run_until_idle()
    s.add_pod(preemptor.obj())
    s.run_until_idle()
    assert s.pending()[-1].message == (
        f"0/2 nodes are available: 1 {ERR_REASON_INSUFFICIENT_CPU}, 1 {ERR_REASON_UNTOLERATED}. "
        + want_suffix)


# --------------------------------------------------------------------------------------------
# gang scheduling (Coscheduling: Permit waits, pods_to_activate, list_pods)


@pytest.mark.parametrize("threaded",
                         [pytest.param(False, id="deterministic"), pytest.param(True, id="threaded")])
def test_gang_scheduling(threaded: bool) -> None:
    """A PodGroup binds only once minMember pods are assumed; until then its pods wait."""
    from schedframe.plugins.coscheduling import POD_GROUP_LABEL, PodGroup

    config = {"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                                        "queueSort": {"disabled": [{"name": "PrioritySort"}]}}}]}
    with Scheduler(config, threaded=threaded, objects=[PodGroup("g", min_member=3)]) as s:
        s.add_node(node("n1").obj())
        for i in range(2):
            s.add_pod(pod(f"g{i}").label(POD_GROUP_LABEL, "g").obj())
        s.run_until_idle()
        assert s.bindings() == {}
        assert {p.pod.name for p in s.pending()} == {"g0", "g1"}
        assert [p.name for p in s.list_pods("default")] == ["g0", "g1"]
        s.add_pod(pod("g2").label(POD_GROUP_LABEL, "g").obj())
        s.run_until_idle()
        assert s.bindings() == {"default/g0": "n1", "default/g1": "n1", "default/g2": "n1"}
        assert s.list_pods("other") == []
        assert len(s.list_pods()) == 3


def test_run_until_idle_never_spins_on_permit_timeouts() -> None:
    """Pods that keep timing out at Permit (and requeue each other through their forget events)
    are retried once per progress, then left pending: run_until_idle returns."""
    permit = FakePermit(status=Status.wait(), timeout=5, name="Gate")
    s = scheduler_with(permit)
    s.add_node(node("n1").obj())
    s.add_pod(pod("a").obj())
    s.add_pod(pod("b").obj())
    summary = s.run_until_idle()
    assert (summary.scheduled, summary.pending, summary.waiting) == (0, 2, 0)
    assert 5.0 <= summary.clock_advanced <= 30.0
    assert s.cache.pod_count() == 0
    assert all("rejected due to timeout after waiting 5s at plugin Gate" in p.message for p in s.pending())


def test_gated_pods_are_pending_with_their_gate() -> None:
    """A pod held by scheduling gates is pending, "Gated", with the PreEnqueue message."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1").obj())
    p = s.add_pod(pod("p").scheduling_gates("example.com/wait").obj())
    s.run_until_idle()
    [pending] = s.pending()
    assert (pending.where, pending.plugins) == ("Gated", frozenset({"SchedulingGates"}))
    assert "example.com/wait" in pending.message
    s.update_pod(p.evolve(scheduling_gates=()))
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert s.queue.gating_message(p) == ""


def test_closed_scheduler_refuses_to_schedule() -> None:
    """schedule_one after close() raises SchedulerError."""
    with Scheduler(clock=FakeClock(T0)) as s:
        s.add_pod(pod("p").obj())
    with pytest.raises(SchedulerError, match="the scheduler is closed"):
        s.schedule_one()


def test_identical_update_is_ignored() -> None:
    """An update carrying an identical pod changes nothing (no event, no requeue)."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(node("n1", cpu="1").obj())
    p = s.add_pod(pod("p", cpu="2").obj())
    s.run_until_idle()
    before = s.queue.get(p)
    assert s.update_pod(pod("p", cpu="2").obj()) is p
    assert s.queue.get(p) is before
    assert s.queue.where(p) == "Unschedulable"


@pytest.mark.parametrize("bad", [pytest.param("oops", id="str"), pytest.param(42, id="int")])
def test_malformed_plugin_result_fails_only_that_pod(bad: Any) -> None:
    """A plugin returning garbage (not a Status) fails its pod with an ERROR; nothing is lost or
    left reserved, and other pods still schedule."""

    class Garbage:
        name = "Garbage"

        def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status | None:
            return bad if p.name == "victim" else None

        def reserve(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            return bad if p.name == "victim2" else None

        def unreserve(self, state: CycleState, p: Pod, node_name: str) -> None:
            return None

    s = scheduler_with(Garbage())
    s.add_node(node("n1").obj())
    for name in ("victim", "victim2", "fine"):
        s.add_pod(pod(name).obj())
    s.run_until_idle()
    assert s.bindings() == {"default/fine": "n1"}
    assert {p.pod.name for p in s.pending()} == {"victim", "victim2"}
    assert all(p.message and p.where == "Backoff" for p in s.pending())
    assert s.cache.dump().assumed_pods == frozenset()
