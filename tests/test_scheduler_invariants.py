"""Hypothesis stateful tests of the scheduler's invariants: no node overcommitted, no pod lost, the
cache equal to one rebuilt from the event history, and deterministic replays."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from schedframe import CycleState, FakeClock, Node, NodeInfo, Pod, Status
from schedframe.cache.cache import Cache
from schedframe.config.configuration import Profile, SchedulerConfiguration
from schedframe.framework.hookspecs import hookimpl
from schedframe.framework.plugin_manager import make_plugin_manager
from schedframe.plugins import in_tree_registry
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import fake_registry, make_node, make_pod

T0 = 1_700_000_000.0
NODE_NAMES = [f"n{i}" for i in range(4)]
POD_NAMES = [f"p{i}" for i in range(12)]


class _Victims:
    def __init__(self) -> None:
        self.uids: set[str] = set()

    @hookimpl
    def schedframe_pod_preempted(self, victim: Pod) -> None:
        self.uids.add(victim.uid)


class WaitAndBoom:
    """Filter raising for pods labelled ``boom``; Permit holding pods labelled ``wait`` for 5 s;
    a ``KeyboardInterrupt`` at the point a pod's ``stop`` label names (filter, reserve, permit,
    preBind, unreserve -- the last one after a Permit wait that times out), on that pod's first
    attempt only."""

    name = "WaitAndBoom"

    def __init__(self) -> None:
        self.stopped: set[str] = set()

    def _stop(self, point: str, pod: Pod) -> None:
        if pod.labels.get("stop") == point and pod.uid not in self.stopped:
            self.stopped.add(pod.uid)
            raise KeyboardInterrupt(f"stop at {point}")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.labels.get("boom"):
            raise RuntimeError("boom")
        self._stop("filter", pod)
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self._stop("reserve", pod)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self._stop("unreserve", pod)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        self._stop("permit", pod)
        if pod.labels.get("wait") or (pod.labels.get("stop") == "unreserve"
                                      and pod.uid not in self.stopped):
            return Status.wait(), 5.0
        return None, 0.0

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self._stop("preBind", pod)
        return None


def _make_scheduler(seed: int, with_plugins: bool, pm: Any = None) -> Scheduler:
    if not with_plugins:
        return Scheduler(clock=FakeClock(T0), seed=seed, plugin_manager=pm)
    registry = fake_registry(WaitAndBoom(), base=in_tree_registry())
    config = SchedulerConfiguration.from_profiles(
        Profile.from_plugins("WaitAndBoom", registry=registry), registry=registry)
    return Scheduler(config, registry=registry, clock=FakeClock(T0), seed=seed, plugin_manager=pm)


def _replay(history: list[tuple[str, Any]], seed: int, with_plugins: bool) -> Scheduler:
    s = _make_scheduler(seed, with_plugins)
    for op, arg in history:
        _apply(s, op, arg)
    return s


def _apply(s: Scheduler, op: str, arg: Any) -> None:
    # a WaitAndBoom interruption: the scheduler cleaned up before letting it through
    with contextlib.suppress(KeyboardInterrupt):
        _apply_unguarded(s, op, arg)


def _apply_unguarded(s: Scheduler, op: str, arg: Any) -> None:
    clock = s.clock
    assert isinstance(clock, FakeClock)
    if op == "add_node":
        s.add_node(arg)
    elif op == "update_node":
        s.update_node(arg)
    elif op == "remove_node":
        s.remove_node(arg)
    elif op == "add_pod":
        s.add_pod(arg)
    elif op == "update_pod":
        s.update_pod(arg)
    elif op == "remove_pod":
        s.remove_pod(arg)
    elif op == "schedule_one":
        s.schedule_one()
    elif op == "run":
        s.run_until_idle()
    elif op == "step":
        clock.step(arg)
    elif op == "allow":
        wp = s.waiting_pods.get(arg)
        if wp is not None:
            wp.allow("WaitAndBoom")
    else:  # pragma: no cover
        raise AssertionError(op)


class SchedulerMachine(RuleBasedStateMachine):
    """Random cluster events and scheduling steps against one scheduler (default profile)."""

    with_plugins = False

    def __init__(self) -> None:
        super().__init__()
        self.seed = 3
        self.victims = _Victims()
        pm = make_plugin_manager()
        pm.register(self.victims)
        self.s = _make_scheduler(self.seed, self.with_plugins, pm)
        self.history: list[tuple[str, Any]] = []
        self.nodes: dict[str, Node] = {}
        self.added: dict[str, Pod] = {}  # uid -> pod, minus pods removed by the test
        self.removed_by_test: set[str] = set()
        # pods still assumed (e.g. waiting at Permit) on a node when the node was removed: the
        # node may come back smaller, which overcommits it through no fault of the scheduler
        self.placed_on_old_node: dict[str, set[str]] = {}

    def do(self, op: str, arg: Any = None) -> None:
        self.history.append((op, arg))
        _apply(self.s, op, arg)

    # -- nodes --------------------------------------------------------------------------------
    @rule(name=st.sampled_from(NODE_NAMES), cpu=st.sampled_from(["1", "2", "4"]),
          memory=st.sampled_from(["1Gi", "4Gi"]), pods=st.integers(1, 6), zone=st.sampled_from("ab"),
          tainted=st.booleans())
    def add_node(self, name: str, cpu: str, memory: str, pods: int, zone: str, tainted: bool) -> None:
        if name in self.nodes:
            return
        b = make_node(name).capacity(cpu=cpu, memory=memory, pods=pods).label("zone", zone)
        if tainted:
            b = b.taint("dedicated", "x")
        node = b.obj()
        self.nodes[name] = node
        self.do("add_node", node)

    @precondition(lambda self: bool(self.nodes))
    @rule(data=st.data(), zone=st.sampled_from("abc"), untaint=st.booleans(), grow=st.booleans())
    def update_node(self, data: st.DataObject, zone: str, untaint: bool, grow: bool) -> None:
        name = data.draw(st.sampled_from(sorted(self.nodes)))
        old = self.nodes[name]
        changes: dict[str, Any] = {"labels": {**old.labels, "zone": zone}}
        if untaint:
            changes["taints"] = ()
        if grow:  # capacity only grows: shrinking could overcommit through no fault of the scheduler
            changes["capacity"] = {"cpu": "8", "memory": "8Gi", "pods": old.capacity["pods"]}
        new = old.evolve(**changes)
        self.nodes[name] = new
        self.do("update_node", new)

    @precondition(lambda self: bool(self.nodes))
    @rule(data=st.data())
    def remove_node(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.nodes)))
        del self.nodes[name]
        dump = self.s.cache.dump()
        info = dump.nodes.get(name)
        if info is not None:
            self.placed_on_old_node.setdefault(name, set()).update(
                pi.pod.uid for pi in info.pods if pi.pod.uid in dump.assumed_pods)
        self.do("remove_node", name)
        # the pod garbage collector then deletes the pods bound to the node
        for p in self.s.pods():
            if p.node_name == name:
                self.added.pop(p.uid, None)
                self.do("remove_pod", p.uid)

    # -- pods ---------------------------------------------------------------------------------
    @rule(name=st.sampled_from(POD_NAMES), cpu=st.sampled_from(["100m", "500m", "1", "3"]),
          memory=st.sampled_from(["100Mi", "1Gi"]), priority=st.integers(0, 2),
          zone=st.sampled_from(["", "a", "b"]), tolerate=st.booleans(),
          special=st.sampled_from(["", "", "", "wait", "boom", "stop=filter", "stop=reserve",
                                   "stop=permit", "stop=preBind", "stop=unreserve"]))
    def add_pod(self, name: str, cpu: str, memory: str, priority: int, zone: str, tolerate: bool,
                special: str) -> None:
        if any(p.name == name for p in self.added.values()):
            return
        b = make_pod(name).req(cpu=cpu, memory=memory).priority(priority)
        if special and self.with_plugins:
            key, _, value = special.partition("=")
            b = b.label(key, value or "yes")
        if zone:
            b = b.node_selector({"zone": zone})
        if tolerate:
            b = b.toleration("dedicated", "x", "NoSchedule")
        pod = b.obj()
        self.added[pod.uid] = pod
        self.do("add_pod", pod)

    @precondition(lambda self: bool(self.added))
    @rule(data=st.data(), label=st.sampled_from(["x", "y"]))
    def update_pod(self, data: st.DataObject, label: str) -> None:
        uid = data.draw(st.sampled_from(sorted(self.added)))
        current = self.s.get_pod(uid)
        if current is None:
            return
        self.do("update_pod", current.evolve(labels={**current.labels, "v": label}))

    @precondition(lambda self: bool(self.added))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.added)))
        if self.s.get_pod(uid) is None:
            return
        del self.added[uid]
        self.removed_by_test.add(uid)
        self.do("remove_pod", uid)

    # -- scheduling ---------------------------------------------------------------------------
    @rule()
    def schedule_one(self) -> None:
        self.do("schedule_one")

    @rule()
    def run_until_idle(self) -> None:
        self.do("run")

    @precondition(lambda self: len(self.s.waiting_pods) > 0)
    @rule(data=st.data())
    def allow(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(wp.pod.uid for wp in self.s.waiting_pods)))
        self.do("allow", uid)

    @rule(seconds=st.sampled_from([0.5, 3.0, 400.0]))
    def step(self, seconds: float) -> None:
        self.do("step", seconds)

    # -- invariants ---------------------------------------------------------------------------
    @invariant()
    def no_node_overcommitted(self) -> None:
        for name, info in self.s.cache.dump().nodes.items():
            if info.node is None:
                continue
            if any(pi.pod.uid in self.placed_on_old_node.get(name, ()) for pi in info.pods):
                continue  # holds pods placed on an earlier, possibly larger, node of this name
            alloc = info.allocatable
            assert info.requested.milli_cpu <= alloc.milli_cpu, name
            assert info.requested.memory <= alloc.memory, name
            assert len(info.pods) <= alloc.pods, name

    @invariant()
    def no_pod_lost(self) -> None:
        bound = {p.uid for p in self.s.pods() if p.node_name}
        pending = [pp.pod.uid for pp in self.s.pending()]
        assert len(pending) == len(set(pending))
        assert not bound & set(pending)
        for uid in self.added:
            if uid in self.victims.uids:
                continue
            assert uid in bound or uid in pending, self.added[uid].key
        for pp in self.s.pending():
            if pp.where in ("Unschedulable", "Backoff"):
                assert pp.message, pp.pod.key
        assert len(self.s.queue) == len(pending) - sum(pp.where == "InFlight" for pp in self.s.pending())

    @invariant()
    def cache_matches_history(self) -> None:
        rebuilt = Cache()
        for node in self.s.nodes():
            rebuilt.add_node(node)
        for p in self.s.pods():
            if p.node_name:
                rebuilt.add_pod(p)
        for wp in self.s.waiting_pods:
            rebuilt.assume_pod(wp.pod)
        want = {n: (sorted(x.pod.uid for x in i.pods), i.requested, i.node)
                for n, i in rebuilt.dump().nodes.items()}
        dump = self.s.cache.dump()
        assert dump.assumed_pods == frozenset(wp.pod.uid for wp in self.s.waiting_pods)
        got = {n: (sorted(x.pod.uid for x in i.pods), i.requested, i.node) for n, i in dump.nodes.items()}
        assert got == want

    @invariant()
    def snapshot_matches_cache(self) -> None:
        assert self.s.verify_snapshot(repair=False) == []

    def teardown(self) -> None:
        replay = _replay(self.history, self.seed, self.with_plugins)
        assert replay.bindings() == self.s.bindings()
        assert [(p.pod.key, p.message) for p in replay.pending()] == [
            (p.pod.key, p.message) for p in self.s.pending()]


SchedulerMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestSchedulerInvariants = SchedulerMachine.TestCase


class PermitAndErrorMachine(SchedulerMachine):
    """The same, with pods held at Permit and a Filter plugin that raises."""

    with_plugins = True


PermitAndErrorMachine.TestCase.settings = SchedulerMachine.TestCase.settings
TestPermitAndErrorInvariants = PermitAndErrorMachine.TestCase
