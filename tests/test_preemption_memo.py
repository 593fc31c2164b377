"""Remembered per-node outcomes (``schedframe.framework.victims_memo``): DefaultPreemption's dry
runs and the scheduler's Filter runs on nodes with nominated pods give the same victims,
nominations, placements, events and pending messages as computing afresh on every node,
whatever changes between attempts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import FakeClock, Node, Pod, Scheduler
from schedframe.api import LabelSelector, PodDisruptionBudget
from schedframe.framework.victims_memo import NodeOutcomes
from schedframe.plugins.default_preemption import DefaultPreemption
from schedframe.scheduler import _schedule_one
from schedframe.testing import make_node, make_pod

T0 = 1_700_000_000.0
ZONE = "topology.kubernetes.io/zone"


def _no_memo(self: object, *args: Any) -> None:
    return None


def _count_dry_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the nodes DefaultPreemption dry-runs victim selection on, appended as it goes."""
    calls: list[str] = []
    real = DefaultPreemption.select_victims_on_node

    def counting(self: DefaultPreemption, state: Any, pod: Pod, node_info: Any, pdbs: Any) -> Any:
        calls.append(node_info.name)
        return real(self, state, pod, node_info, pdbs)

    monkeypatch.setattr(DefaultPreemption, "select_victims_on_node", counting)
    return calls


def _outcome(s: Scheduler) -> Any:
    return (s.bindings(), [(e.reason, e.message) for e in s.events],
            sorted((p.pod.key, p.message, p.pod.nominated_node_name) for p in s.pending()))


@st.composite
def _nodes(draw: st.DrawFn) -> list[Node]:
    out = []
    for i in range(draw(st.integers(2, 9))):
        b = (make_node(f"n{i}").capacity(cpu=draw(st.sampled_from(["2", "3", "4"])), memory="8Gi",
                                         pods=draw(st.sampled_from([3, 5, 110])))
             .label(ZONE, "ab"[i % 2]))
        if draw(st.integers(0, 5)) == 0:
            b = b.taint("dedicated", "x")
        out.append(b.obj())
    return out


@st.composite
def _victim(draw: st.DrawFn, name: str, node: str) -> Pod:
    b = (make_pod(name).priority(draw(st.integers(0, 3)))
         .req(cpu=draw(st.sampled_from(["300m", "500m", "900m"])), memory="256Mi")
         .label("app", draw(st.sampled_from(["a", "b"]))).node(node))
    start = draw(st.sampled_from([None, T0 - 100, T0 - 50, T0 - 10]))
    if start is not None:
        b = b.start_time(start)
    return b.obj()


@st.composite
def _preemptor(draw: st.DrawFn, name: str) -> Pod:
    b = (make_pod(name).priority(draw(st.sampled_from([5, 10, 10])))
         .req(cpu=draw(st.sampled_from(["1", "1500m"])), memory="256Mi"))
    kind = draw(st.integers(0, 15))
    if kind == 0:
        b = b.toleration("dedicated", "x", "NoSchedule")
    elif kind == 1:
        b = b.node_selector({ZONE: "a"})
    elif kind == 2:  # a plugin that looks beyond the node: no memo for this one
        b = b.label("app", "p").spread_constraint(1, ZONE, "DoNotSchedule", LabelSelector({"app": "p"}))
    elif kind == 3:
        b = b.preemption_policy("Never")
    return b.obj()


def _run(nodes: list[Node], bound: list[Pod], waves: list[list[Pod]], pdbs: list[PodDisruptionBudget],
         changes: list[int]) -> Any:
    clock = FakeClock(T0)
    s = Scheduler(clock=clock, objects=pdbs)
    for n in nodes:
        s.add_node(n)
    for p in bound:
        s.add_pod(p)
    for k, wave in enumerate(waves):
        for p in wave:
            s.add_pod(p)
        s.run_until_idle()
        clock.step(7.0)
        change = changes[k % len(changes)]
        if change == 1:  # a node gains a taint
            s.update_node(make_node(nodes[0].name).capacity(cpu="4", memory="8Gi", pods=110)
                          .label(ZONE, "a").taint("dedicated", "x").obj())
        elif change == 2 and nodes[-1].name:  # a node gets bigger
            s.update_node(make_node(nodes[-1].name).capacity(cpu="8", memory="8Gi", pods=110).obj())
    return _outcome(s)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=_nodes(), data=st.data())
def test_remembered_dry_runs_change_nothing(nodes: list[Node], data: st.DataObject) -> None:
    """Waves of preemptors (several shapes, some that turn the memo off), PDBs, node changes and
    a moving clock: the outcome with the memos (and the one batch search around nodes with
    nominated pods) is the outcome without them."""
    bound = [data.draw(_victim(f"v{i}-{k}", n.name)) for i, n in enumerate(nodes)
             for k in range(data.draw(st.integers(1, 4)))]
    waves = [[data.draw(_preemptor(f"p{w}-{k}")) for k in range(data.draw(st.integers(1, 5)))]
             for w in range(data.draw(st.integers(1, 4)))]
    pdbs = []
    if data.draw(st.booleans()):
        pdbs.append(PodDisruptionBudget("guard", selector=LabelSelector({"app": "a"}),
                                        disruptions_allowed=data.draw(st.integers(0, 2))))
    changes = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=3))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_schedule_one, "_MANY_NOMINATED", 0)  # one batch search whenever a node has some
        with_memo = _run(nodes, bound, waves, pdbs, changes)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DefaultPreemption, "victims_memo", _no_memo)
        mp.setattr(NodeOutcomes, "memo", _no_memo)
        without = _run(nodes, bound, waves, pdbs, changes)
    assert with_memo == without


def test_unchanged_nodes_are_not_dry_run_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second preemptor of the same shape does not select victims again on the nodes the first
    one left unchanged; a preemptor with a spreading constraint (a plugin looking beyond the node)
    selects them on every node."""
    calls = _count_dry_runs(monkeypatch)
    s = Scheduler(clock=FakeClock(T0))
    for i in range(4):
        s.add_node(make_node(f"n{i}").capacity(cpu="2", memory="8Gi", pods=110).label(ZONE, "a").obj())
        s.add_pod(make_pod(f"low{i}").priority(0).req(cpu="1500m").label("app", "l").node(f"n{i}").obj())
    s.add_pod(make_pod("p1").priority(10).req(cpu="1500m").obj())
    s.run_until_idle()
    assert sorted(calls) == ["n0", "n1", "n2", "n3"]
    first = s.node_of("default/p1")
    calls.clear()
    s.add_pod(make_pod("p2").priority(10).req(cpu="1500m").obj())
    s.run_until_idle()
    assert calls == []  # the other nodes did not change; p1's node has no lower-priority pod
    assert s.node_of("default/p2") not in (None, first)
    calls.clear()
    s.add_pod(make_pod("p3").priority(10).req(cpu="1500m").label("app", "p")
              .spread_constraint(3, ZONE, "DoNotSchedule", LabelSelector({"app": "p"})).obj())
    s.run_until_idle()
    assert len(calls) >= 2


def test_nominations_unchanged_serve_other_pods_unless_they_are_among_them() -> None:
    """The victims memo answers from the nominator's unchanged tuple of a node's nominated pods
    for another pod of the shape -- but not when that pod, or the one the outcome was stored
    for, is itself nominated there (each leaves itself out of what it counts)."""
    from schedframe import NodeInfo, PodInfo
    from schedframe.framework.victims_memo import VictimsMemo
    from schedframe.queue.nominator import PodNominator

    nominator = PodNominator()
    other = make_pod("other").uid("u-other").priority(10).obj().evolve(nominated_node_name="n1")
    a = make_pod("a").uid("u-a").priority(10).obj()
    b = make_pod("b").uid("u-b").priority(10).obj().evolve(nominated_node_name="n1")
    nominator.add(PodInfo(other))
    info = NodeInfo(make_node("n1").obj())
    entries: dict[str, Any] = {}

    def memo(pod: Pod) -> VictimsMemo:
        return VictimsMemo(entries, pod, None, nominator.nominated_pods_for_node,
                           nominator.has_nominated_pods, nominator._nominated_tuple)

    memo(a).put(info, "stored for a")
    assert memo(a).get(info) == "stored for a"
    assert memo(make_pod("c").uid("u-c").priority(10).obj()).get(info) == "stored for a"
    nominator.add(PodInfo(b))  # b is nominated to n1 too: a new tuple
    assert memo(a).get(info) is None
    memo(a).put(info, "a with b there")
    assert memo(b).get(info) is None  # b does not count itself: not what a counted
    assert memo(a).get(info) == "a with b there"
    nominator.delete(b)
    assert memo(a).get(info) is None


class _Local:
    """An out-of-tree Filter plugin that passes every node (its verdict is node-local)."""

    name = "LocalFilter"
    node_local_filter = True

    def filter(self, state: Any, pod: Pod, node_info: Any) -> None:
        return None


class _Global(_Local):
    """The same plugin without the declaration (a plugin may look beyond the node)."""

    name = "GlobalFilter"
    node_local_filter = False


@pytest.mark.parametrize(("plugin", "remembered"), [(_Local(), True), (_Global(), False)])
def test_only_filters_that_declare_themselves_node_local_are_remembered(
        monkeypatch: pytest.MonkeyPatch, plugin: Any, remembered: bool) -> None:
    """The framework asks each Filter plugin for the ``node_local_filter`` capability (no list of
    concrete in-tree classes): with an out-of-tree Filter that declares it, a second preemptor
    of the same shape is not dry-run again on unchanged nodes; without it, it is."""
    from schedframe import Registry, SchedulerConfiguration
    from schedframe.config import Profile
    from schedframe.framework.interfaces import NODE_LOCAL_FILTER, is_node_local_filter
    from schedframe.plugins import in_tree_registry

    assert NODE_LOCAL_FILTER == "node_local_filter"
    assert is_node_local_filter(plugin) is remembered
    calls = _count_dry_runs(monkeypatch)
    registry = Registry(in_tree_registry())
    registry.register(plugin.name, lambda args, handle: plugin)
    profile = Profile.from_plugins(plugin.name, registry=registry, implements={plugin.name: ["filter"]})
    s = Scheduler(SchedulerConfiguration.from_profiles(profile, registry=registry), registry=registry,
                  clock=FakeClock(T0))
    for i in range(4):
        s.add_node(make_node(f"n{i}").capacity(cpu="2", memory="8Gi", pods=110).label(ZONE, "a").obj())
        s.add_pod(make_pod(f"low{i}").priority(0).req(cpu="1500m").node(f"n{i}").obj())
    s.add_pod(make_pod("p1").priority(10).req(cpu="1500m").obj())
    s.run_until_idle()
    assert sorted(calls) == ["n0", "n1", "n2", "n3"]
    calls.clear()
    s.add_pod(make_pod("p2").priority(10).req(cpu="1500m").obj())
    s.run_until_idle()
    assert (calls == []) is remembered
    assert s.node_of("default/p2") is not None


def test_no_victims_follows_every_change_of_a_node() -> None:
    """"No pod of lower priority here" is remembered per NodeInfo generation: a lower-priority
    pod added makes the node a place to look for victims, removed again it is not one."""
    from schedframe.cache.nodeinfo import NodeInfo

    s = Scheduler(clock=FakeClock(T0))
    plugin: Any = s.frameworks["default-scheduler"].get_plugin("DefaultPreemption")
    info = NodeInfo(make_node("n0").capacity(cpu="4", memory="8Gi", pods=110).obj())
    high = make_pod("high").priority(10).req(cpu="1").node("n0").obj()
    info.add_pod(high)
    preemptor = make_pod("p").priority(10).req(cpu="1").obj()
    assert plugin.no_victims_status(preemptor, info) is not None
    assert plugin.no_victims_status(preemptor, info) is not None  # remembered: the same answer
    low = make_pod("low").priority(0).req(cpu="1").node("n0").obj()
    info.add_pod(low)
    assert plugin.no_victims_status(preemptor, info) is None
    clone = info.clone()
    assert plugin.no_victims_status(preemptor, clone) is None
    clone.remove_pod(low)
    assert plugin.no_victims_status(preemptor, clone) is not None
    assert plugin.no_victims_status(preemptor, info) is None  # the original still has it
    empty = NodeInfo(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).obj())
    assert plugin.no_victims_status(preemptor, empty) is not None
