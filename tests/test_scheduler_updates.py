"""Event handlers on the edges of the pod lifecycle: an update changing ``spec.schedulerName``
(the pod leaves or joins this scheduler's queue), an update renaming a pod (refused, nothing
changed), pods in phase Succeeded or Failed (ignored by the cache and the queue; a pod turning
terminal releases what it held), ``add_object`` / ``objects=`` with Nodes and Pods, and the
type checks of the public entry points."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import CycleState, FakeClock, Namespace, Pod, SchedframeError, SchedulerError, Status, explain
from schedframe.bench._soak import check_invariants
from schedframe.cache import Cache
from schedframe.errors import ArgumentTypeError
from schedframe.plugins import in_tree_registry
from schedframe.queue.scheduling_queue import SchedulingQueue
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod

T0 = 1_700_000_000.0


def _node_manifest(name: str, cpu: str = "4", zone: str = "a") -> dict[str, Any]:
    """A node as ``kubectl get node -o yaml`` shows it (trimmed)."""
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                              "topology.kubernetes.io/zone": zone}},
        "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                   "allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _pod_manifest(name: str, *, cpu: str = "1", node: str | None = None, phase: str = "Pending",
                  labels: dict[str, str] | None = None, host_port: int | None = None,
                  anti_affinity_to: dict[str, str] | None = None,
                  scheduler: str = "default-scheduler") -> dict[str, Any]:
    """A pod as ``kubectl get pod -o yaml`` shows it (trimmed): a Job's finished pod keeps its
    ``spec.nodeName`` and gets ``status.phase: Succeeded``."""
    container: dict[str, Any] = {"name": "main", "image": "busybox:1.36",
                                 "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}
    if host_port is not None:
        container["ports"] = [{"containerPort": 8080, "hostPort": host_port, "protocol": "TCP"}]
    spec: dict[str, Any] = {"containers": [container], "schedulerName": scheduler,
                            "restartPolicy": "Never"}
    if node is not None:
        spec["nodeName"] = node
    if anti_affinity_to:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": anti_affinity_to},
             "topologyKey": "kubernetes.io/hostname"}]}}
    status: dict[str, Any] = {"phase": phase}
    if phase in ("Succeeded", "Failed"):
        status["containerStatuses"] = [{"name": "main", "ready": False, "restartCount": 0,
                                        "state": {"terminated": {"exitCode": 0 if phase == "Succeeded" else 1,
                                                                 "reason": "Completed" if phase == "Succeeded"
                                                                 else "Error"}}}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "batch", "uid": f"uid-{name}",
                         "labels": labels or {}},
            "spec": spec, "status": status}


# --------------------------------------------------------------------------------------------
# spec.schedulerName changes (F5)


def test_pending_pod_handed_to_another_scheduler_leaves_the_queue() -> None:
    """A pending pod whose schedulerName no longer matches a profile is neither pending nor
    queued, and never bound by this scheduler."""
    s = Scheduler(clock=FakeClock(T0))
    p = s.add_pod(make_pod("p").req(cpu="2").obj())  # no node yet: it waits
    s.run_until_idle()
    assert [pp.pod.name for pp in s.pending()] == ["p"]
    s.update_pod(p.evolve(scheduler_name="other-scheduler"))
    assert s.pending() == []
    assert s.queue.get(p) is None
    s.add_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).obj())
    s.run_until_idle()
    assert s.node_of(p) is None
    assert s.get_pod(p.uid).scheduler_name == "other-scheduler"  # type: ignore[union-attr]
    assert check_invariants(s, {p.uid}) == []


def test_pod_that_becomes_ours_is_queued_and_scheduled() -> None:
    """A pod created for another scheduler and then switched to one of ours gets scheduled."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).obj())
    p = s.add_pod(make_pod("p").req(cpu="1").scheduler_name("other-scheduler").obj())
    s.run_until_idle()
    assert s.node_of(p) is None
    assert s.pending() == []
    s.update_pod(p.evolve(scheduler_name="default-scheduler"))
    assert [pp.pod.name for pp in s.pending()] == ["p"]
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert check_invariants(s, {p.uid}) == []


class _Hold:
    """Permit: every pod waits 30 s."""

    name = "Hold"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait("held"), 30.0


def _holding_scheduler() -> Scheduler:
    registry = in_tree_registry()
    registry.register("Hold", lambda args, handle: _Hold())
    return Scheduler({"profiles": [{"plugins": {"permit": {"enabled": [{"name": "Hold"}]}}}]},
                     registry=registry, clock=FakeClock(T0))


def test_pod_waiting_at_permit_handed_to_another_scheduler_is_released() -> None:
    """A pod assumed and waiting at Permit whose schedulerName changes: rejected, forgotten,
    not requeued; its room is free again."""
    s = _holding_scheduler()
    s.add_node(make_node("n1").capacity(cpu="1", memory="8Gi", pods=110).obj())
    p = s.add_pod(make_pod("p").req(cpu="1").obj())
    s.schedule_one()
    assert s.cache.is_assumed(p)
    s.update_pod(p.evolve(scheduler_name="other-scheduler"))
    assert not s.cache.is_assumed(p)
    assert len(s.waiting_pods) == 0
    assert s.pending() == []
    assert s.queue.get(p) is None
    s.run_until_idle()
    assert s.node_of(p) is None
    assert s.cache.dump().nodes["n1"].requested.milli_cpu == 0


# --------------------------------------------------------------------------------------------
# renames (F6)


@pytest.mark.parametrize("change", [{"name": "renamed"}, {"namespace": "elsewhere"}])
def test_update_renaming_a_pod_is_refused_and_changes_nothing(change: dict[str, str]) -> None:
    """The identity of a pod is namespace/name/uid: an update changing the name or namespace of
    a known uid raises SchedulerError and leaves every index as it was."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).obj())
    pending = s.add_pod(make_pod("p").req(cpu="8").obj())
    bound = s.add_pod(make_pod("b").req(cpu="1").node("n1").obj())
    s.run_until_idle()
    for p in (pending, bound):
        with pytest.raises(SchedulerError, match="cannot rename") as info:
            s.update_pod(p.evolve(**change))
        assert isinstance(info.value, SchedframeError)
        assert s.get_pod(p.key) == p
        assert s.get_pod(p.evolve(**change).key) is None
    assert [pp.pod.key for pp in s.pending()] == [pending.key]
    assert [pp.pod.key for pp in s.pending()] == [pending.key]
    assert check_invariants(s, {pending.uid, bound.uid}) == []
    # the indexes still work: both pods can be removed by key
    s.remove_pod(pending.key)
    s.remove_pod(bound.key)
    assert s.pods() == []
    assert s.list_pods("default") == []


# --------------------------------------------------------------------------------------------
# terminal pods (issue 14, item 2)


def test_finished_pods_in_a_dump_hold_nothing() -> None:
    """Succeeded and Failed pods that still carry spec.nodeName do not count against capacity,
    host ports or pod anti-affinity (upstream's informers filter them out)."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(_node_manifest("node-a"))
    done = s.add_pod(_pod_manifest("job-1-abcde", cpu="4", node="node-a", phase="Succeeded",
                                   labels={"app": "db"}, host_port=80))
    failed = s.add_pod(_pod_manifest("job-2-fghij", cpu="4", node="node-a", phase="Failed"))
    new = s.add_pod(_pod_manifest("web-0", cpu="3", host_port=80, anti_affinity_to={"app": "db"}))
    assert s.cache.dump().nodes["node-a"].pods == []
    s.run_until_idle()
    assert s.node_of(new) == "node-a"
    # known, but not bound, pending or listed
    assert s.get_pod(done.key) == done
    assert s.get_pod(failed.uid) == failed
    assert s.node_of(done) is None
    assert done.key not in s.bindings()
    assert [p.name for p in s.list_pods("batch")] == ["web-0"]
    assert check_invariants(s, {new.uid}) == []
    s.remove_pod(done.key)
    s.remove_pod(failed)
    assert s.get_pod(done.key) is None


def test_pod_turning_terminal_releases_its_node() -> None:
    """A running pod that turns Succeeded through update_pod leaves the cache: the pending pod
    waiting for its CPU, host port and anti-affinity gets the node."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(_node_manifest("node-a"))
    running = s.add_pod(_pod_manifest("job-1-abcde", cpu="3", node="node-a", phase="Running",
                                      labels={"app": "db"}, host_port=80))
    waiting = s.add_pod(_pod_manifest("web-0", cpu="3", host_port=80, anti_affinity_to={"app": "db"}))
    s.run_until_idle()
    assert s.node_of(waiting) is None
    finished = Pod.from_manifest(_pod_manifest("job-1-abcde", cpu="3", node="node-a", phase="Succeeded",
                                               labels={"app": "db"}, host_port=80))
    s.update_pod(finished)
    assert [pi.pod.name for pi in s.cache.dump().nodes["node-a"].pods] == []
    s.run_until_idle()
    assert s.node_of(waiting) == "node-a"
    assert s.get_pod(running.uid) == finished
    # a terminal phase is final
    with pytest.raises(SchedulerError, match="final"):
        s.update_pod(running)
    assert check_invariants(s, {waiting.uid}) == []


def test_pending_pod_turning_failed_leaves_the_queue() -> None:
    """A pending pod that fails (e.g. evicted before binding) is no longer pending."""
    s = Scheduler(clock=FakeClock(T0))
    p = s.add_pod(_pod_manifest("web-0", cpu="64"))
    s.run_until_idle()
    assert len(s.pending()) == 1
    s.update_pod(Pod.from_manifest(_pod_manifest("web-0", cpu="64", phase="Failed")))
    assert s.pending() == []
    assert s.queue.get(p) is None
    assert check_invariants(s, set()) == []


def test_terminal_pending_pod_is_never_queued() -> None:
    """A pod added already Failed is remembered but never scheduled."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(_node_manifest("node-a"))
    p = s.add_pod(_pod_manifest("web-0", phase="Failed"))
    s.run_until_idle()
    assert s.pending() == []
    assert s.node_of(p) is None
    assert s.get_pod(p) == p
    with pytest.raises(SchedulerError, match="already exists"):
        s.add_pod(p)


# --------------------------------------------------------------------------------------------
# add_object / objects= (F10)


def test_add_object_dispatches_nodes_and_pods() -> None:
    """add_object with a Node or a Pod (object or manifest) reaches add_node / add_pod (and
    update_node / update_pod when known); remove_object reaches remove_node / remove_pod."""
    s = Scheduler(clock=FakeClock(T0))
    n = s.add_object(_node_manifest("node-a", cpu="2"))
    p = s.add_object(make_pod("p").req(cpu="1").obj())
    s.run_until_idle()
    assert s.node_of(p) == "node-a"
    s.add_object(make_node("node-a").capacity(cpu="8", memory="8Gi", pods=110).obj())  # an update
    assert s.cache.dump().nodes["node-a"].allocatable.milli_cpu == 8000
    s.add_object(s.get_pod(p.uid).evolve(labels={"v": "2"}))  # type: ignore[union-attr]
    assert s.get_pod(p.uid).labels == {"v": "2"}  # type: ignore[union-attr]
    s.remove_object(p)
    s.remove_object(n)
    assert s.pods() == []
    assert s.nodes() == []


def test_objects_argument_takes_nodes_and_pods() -> None:
    """Scheduler(objects=[...]) adds Namespaces to the store and Nodes and Pods through the
    handlers, so the pods get scheduled."""
    s = Scheduler(clock=FakeClock(T0), objects=[
        Namespace("team"), _node_manifest("node-a"), make_pod("p").namespace("team").req(cpu="1").obj(),
        _pod_manifest("done", node="node-a", phase="Succeeded", cpu="4")])
    assert s.objects.namespace("team") is not None
    s.run_until_idle()
    assert s.node_of("team/p") == "node-a"


@pytest.mark.parametrize("bad", [None, 42, "node-a", 1.5, object()])
def test_add_object_refuses_what_it_cannot_use(bad: Any) -> None:
    """Anything but an api object with a name or a manifest: ArgumentTypeError, nothing added."""
    s = Scheduler(clock=FakeClock(T0))
    with pytest.raises(ArgumentTypeError, match="add_object: expected a cluster object"):
        s.add_object(bad)
    with pytest.raises(ArgumentTypeError, match=r"objects\[1\]: expected a cluster object"):
        Scheduler(clock=FakeClock(T0), objects=[Namespace("x"), bad])


# --------------------------------------------------------------------------------------------
# argument types (F13)


def _misuses(s: Scheduler) -> list[tuple[str, Any]]:
    cache = Cache()
    queue = s.queue
    fwk = s.frameworks["default-scheduler"]
    return [
        ("Scheduler.add_pod: pod", lambda: s.add_pod(None)),  # type: ignore[arg-type]
        ("Scheduler.update_pod: pod", lambda: s.update_pod(42)),  # type: ignore[arg-type]
        ("Scheduler.remove_pod: pod", lambda: s.remove_pod(None)),  # type: ignore[arg-type]
        ("Scheduler.get_pod: pod", lambda: s.get_pod(7)),  # type: ignore[arg-type]
        ("Scheduler.node_of: pod", lambda: s.node_of({"name": "p"})),  # type: ignore[arg-type]
        ("Scheduler.add_node: node", lambda: s.add_node(None)),  # type: ignore[arg-type]
        ("Scheduler.update_node: node", lambda: s.update_node(3)),  # type: ignore[arg-type]
        ("Scheduler.remove_node: node", lambda: s.remove_node(3)),  # type: ignore[arg-type]
        ("Scheduler.run_until_idle: max_cycles", lambda: s.run_until_idle("10")),  # type: ignore[arg-type]
        ("Scheduler: seed", lambda: Scheduler(seed="1")),  # type: ignore[arg-type]
        ("Scheduler: clock", lambda: Scheduler(clock=5)),  # type: ignore[arg-type]
        ("Scheduler: objects", lambda: Scheduler(objects={"kind": "Node"})),
        ("Cache.add_node: node", lambda: cache.add_node({"name": "n"})),  # type: ignore[arg-type]
        ("Cache.update_node: new", lambda: cache.update_node(None, None)),  # type: ignore[arg-type]
        ("Cache.remove_node: node", lambda: cache.remove_node(None)),  # type: ignore[arg-type]
        ("Cache.assume_pod: pod", lambda: cache.assume_pod(None)),  # type: ignore[arg-type]
        ("Cache.add_pod: pod", lambda: cache.add_pod({"name": "p"})),  # type: ignore[arg-type]
        ("Cache.update_pod: new", lambda: cache.update_pod(make_pod("p").obj(), 1)),  # type: ignore[arg-type]
        ("Cache.remove_pod: pod", lambda: cache.remove_pod("p")),  # type: ignore[arg-type]
        ("Cache.forget_pod: pod", lambda: cache.forget_pod(None)),  # type: ignore[arg-type]
        ("Cache.update_snapshot: snapshot", lambda: cache.update_snapshot(None)),  # type: ignore[arg-type]
        ("SchedulingQueue.add: pod", lambda: queue.add(None)),  # type: ignore[arg-type]
        ("SchedulingQueue.update: new", lambda: queue.update(None, {"a": 1})),  # type: ignore[arg-type]
        ("SchedulingQueue.delete: pod", lambda: queue.delete("p")),  # type: ignore[arg-type]
        ("SchedulingQueue.activate: pods", lambda: queue.activate([None])),  # type: ignore[list-item]
        ("Framework.run_filter_plugins: pod",
         lambda: fwk.run_filter_plugins(CycleState(), None, None)),  # type: ignore[arg-type]
        ("Framework.run_pre_filter_plugins: pod",
         lambda: fwk.run_pre_filter_plugins(CycleState(), {"name": "p"})),  # type: ignore[arg-type]
        ("Framework.run_pre_filter_plugins: state",
         lambda: fwk.run_pre_filter_plugins(None, make_pod("p").obj())),  # type: ignore[arg-type]
        ("explain: pod", lambda: explain(None)),  # type: ignore[arg-type]
        ("explain: nodes", lambda: explain(make_pod("p").obj(), nodes=5)),  # type: ignore[arg-type]
    ]


def test_public_entry_points_name_the_bad_argument() -> None:
    """None, a dict, an int where an object is expected: ArgumentTypeError (a TypeError) whose
    message names the entry point and the argument, never a raw error from deep inside."""
    s = Scheduler(clock=FakeClock(T0))
    s.add_node(make_node("n1").capacity(cpu="1", memory="1Gi", pods=110).obj())
    for where, call in _misuses(s):
        with pytest.raises(ArgumentTypeError, match=f"^{where} must be") as info:
            call()
        assert isinstance(info.value, TypeError)
        assert isinstance(info.value, SchedframeError)
    # nothing was changed by the refused calls
    assert [n.name for n in s.nodes()] == ["n1"]
    assert s.pods() == []
    assert isinstance(s.queue, SchedulingQueue)


def test_explain_and_snapshots_ignore_finished_pods() -> None:
    """Snapshot.from_objects (so explain and PluginHarness) leaves Succeeded/Failed pods out."""
    nodes = [_node_manifest("node-a")]
    done = _pod_manifest("job-1-abcde", cpu="4", node="node-a", phase="Succeeded", host_port=80)
    running = _pod_manifest("job-2-fghij", cpu="1", node="node-a", phase="Running")
    e = explain(_pod_manifest("web-0", cpu="3", host_port=80), nodes=nodes, pods=[done, running])
    assert e.selected_node == "node-a"
    blocked = explain(_pod_manifest("web-1", cpu="4"), nodes=nodes, pods=[done, running])
    assert blocked.selected_node is None
