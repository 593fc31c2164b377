"""ClusterSnapshot: forks that revert exactly, what-if answers equal to the Scheduler's."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import ClusterSnapshot, Scheduler, object_from_manifest
from schedframe.api.objects import Namespace
from schedframe.errors import ArgumentTypeError, SnapshotError
from schedframe.whatif import DrainResult, Preemption

ZONES = ("a", "b")


def node(name: str, cpu: str = "4", zone: str = "a", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone, **labels}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", node_name: str | None = None, *, owner: str = "ReplicaSet",
        priority: int | None = None, labels: dict[str, str] | None = None,
        spread: bool = False, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels or {"app": "web"}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner, "name": "o", "uid": "u",
                                    "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    if spread:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def cluster(n: int = 4) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = [node(f"n{i}", zone=ZONES[i % 2]) for i in range(n)]
    pods = [pod(f"r{i}", "1", f"n{i % n}") for i in range(n + 2)]
    return nodes, pods


def state(snap: ClusterSnapshot) -> dict[str, Any]:
    """Everything a revert must restore, read through public and cache views."""
    s = snap.scheduler
    dump = s.cache.dump()
    return {
        "nodes": list(snap.nodes()),
        "pods": sorted((p.key, p.node_name, p.uid) for p in snap.pods()),
        "infos": {name: ([pi.pod.uid for pi in info.pods], info.requested, info.non_zero_requested,
                         info.node)
                  for name, info in dump.nodes.items()},
        "assumed": dump.assumed_pods,
        "objects": sorted((type(o).__name__, getattr(o, "namespace", ""), o.name, repr(o))
                          for o in s.objects.all()),
        "queue": len(s.queue),
        "nominated": len(s.nominator),
        "waiting": len(s.waiting_pods),
        "clock": s.clock.now(),
        "rng": s._rng.getstate(),
        "pending": snap.pending,
        "bindings": s.bindings(),
        "snapshot_problems": s.verify_snapshot(repair=False),
    }


# -- forks -----------------------------------------------------------------------------------------

def test_a_fork_nested_three_deep_restores_the_snapshot_exactly() -> None:
    nodes, pods = cluster()
    snap = ClusterSnapshot(nodes=nodes, pods=pods)
    before = state(snap)
    with snap.fork() as f1:
        snap.schedule([pod("a"), pod("b", "3")])
        state(snap)
        with snap.fork() as f2:
            snap.drain("n0")
            snap.add_object(Namespace(name="extra"))
            s2 = state(snap)
            with snap.fork() as f3:
                assert f3.depth == 3
                snap.fill(pod("t", "1"), max_pods=20)
                snap.remove_node("n1")
                snap.add_node(node("n9", zone="b"))
            assert not f3.open
            assert state(snap) == s2
            f2.commit()
        assert state(snap) == s2  # committed into f1
        assert snap.depth == 1
        f1.revert()
    assert state(snap) == before
    assert before["snapshot_problems"] == []


def test_forks_close_innermost_first() -> None:
    snap = ClusterSnapshot(nodes=[node("n0")])
    outer = snap.fork()
    inner = snap.fork()
    with pytest.raises(SnapshotError, match="innermost first"):
        outer.commit()
    inner.revert()
    with pytest.raises(SnapshotError, match="already closed"):
        inner.commit()
    outer.revert()
    assert snap.depth == 0


def test_an_exception_in_a_fork_reverts_it() -> None:
    nodes, pods = cluster()
    snap = ClusterSnapshot(nodes=nodes, pods=pods)
    before = state(snap)
    def interrupted() -> None:
        with snap.fork():
            snap.schedule([pod("a")])
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        interrupted()
    assert state(snap) == before


_OPS = st.lists(st.tuples(st.sampled_from(["schedule", "drain", "fill", "add_node", "remove_node",
                                           "add_pod", "remove_pod", "preempt", "fork", "commit",
                                           "revert", "object"]),
                          st.integers(0, 7), st.integers(1, 4)), min_size=1, max_size=14)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_any_operations_inside_forks_then_reverted_leave_the_snapshot_as_it_was(ops: list[Any]) -> None:
    nodes, pods = cluster(5)
    pods.append(pod("low", "2", "n2", priority=0))
    snap = ClusterSnapshot(nodes=nodes, pods=pods)
    before = state(snap)
    forks = [snap.fork()]
    for i, (op, k, size) in enumerate(ops):
        names = [n.name for n in snap.nodes()]
        if op == "schedule":
            snap.schedule([pod(f"s{i}-{j}", str(size), spread=(k % 2 == 0)) for j in range(2)])
        elif op == "drain" and names:
            snap.drain(names[k % len(names)])
        elif op == "fill":
            snap.fill(pod(f"f{i}", str(size)), max_pods=k)
        elif op == "add_node":
            snap.add_node(node(f"x{i}", zone=ZONES[k % 2]))
        elif op == "remove_node" and len(names) > 1:
            snap.remove_node(names[k % len(names)])
        elif op == "add_pod" and names:
            snap.add_pod(pod(f"forced{i}", "1"), names[k % len(names)])
        elif op == "remove_pod" and snap.pods():
            snap.remove_pod(snap.pods()[k % len(snap.pods())].key)
        elif op == "preempt":
            snap.preempt(pod(f"hi{i}", str(size), priority=1000))
        elif op == "fork":
            forks.append(snap.fork())
        elif op == "commit" and len(forks) > 1:
            forks.pop().commit()
        elif op == "revert" and len(forks) > 1:
            forks.pop().revert()
        elif op == "object":
            snap.add_object(Namespace(name=f"ns{k}"))
    while forks:
        forks.pop().revert()
    assert state(snap) == before


# -- the answers equal the Scheduler's ----------------------------------------------------------------

def test_schedule_on_a_snapshot_gives_what_the_scheduler_gives() -> None:
    nodes, bound = cluster(6)
    pending = [pod(f"p{i}", str(1 + i % 3), spread=(i % 2 == 0)) for i in range(12)]
    s = Scheduler(objects=[*nodes, *bound, *pending], seed=7)
    s.run_until_idle()
    want = {k: v for k, v in s.bindings().items() if k.split("/")[1].startswith("p")}

    snap = ClusterSnapshot(nodes=nodes, pods=bound, seed=7)
    with snap.fork():  # a fork changes nothing in the answer
        pass
    r = snap.schedule(pending)
    assert r.placed == want
    assert set(r.unplaced) == {p.pod.key for p in s.pending()}


def test_can_schedule_changes_nothing_and_names_the_node_schedule_picks() -> None:
    nodes, bound = cluster(6)
    snap = ClusterSnapshot(nodes=nodes, pods=bound, seed=3)
    before = state(snap)
    v = snap.can_schedule(pod("q", "2"))
    assert state(snap) == before
    assert v.explanation.selected_node is not None
    assert state(snap) == before
    assert v.fits
    assert v.node == snap.schedule([pod("q", "2")]).placed["default/q"]
    with pytest.raises(SnapshotError, match="changed since"):
        v.explanation


def test_can_schedule_and_check_say_why_not() -> None:
    snap = ClusterSnapshot(nodes=[node("n0", "2"), node("n1", "2")])
    v = snap.can_schedule(pod("big", "3"))
    assert not v.fits
    assert "Insufficient cpu" in v.message
    c = snap.check(pod("big", "3"), "n0")
    assert not c.fits
    assert c.plugin == "NodeResourcesFit"
    assert c.verdict is not None
    assert snap.check(pod("small", "1"), "n1").fits
    with pytest.raises(SnapshotError, match="no node 'nx'"):
        snap.check(pod("small"), "nx")


def test_dry_run_leaves_the_snapshot_unchanged() -> None:
    nodes, bound = cluster()
    snap = ClusterSnapshot(nodes=nodes, pods=bound)
    before = state(snap)
    r = snap.schedule([pod("a"), pod("b")], dry_run=True)
    assert r.dry_run
    assert r.all_placed
    assert state(snap) == before


def test_unplaced_pods_never_linger_pending() -> None:
    snap = ClusterSnapshot(nodes=[node("n0", "2")])
    r = snap.schedule([pod("a", "1"), pod("b", "5")])
    assert r.placed == {"default/a": "n0"}
    assert "Insufficient cpu" in r.unplaced["default/b"]
    assert len(snap.scheduler.queue) == 0
    assert snap.get_pod("default/b") is None


def test_fill_counts_the_copies_that_fit() -> None:
    snap = ClusterSnapshot(nodes=[node("n0", "4"), node("n1", "4")], pods=[pod("r", "1", "n0")])
    with snap.fork():
        r = snap.fill(pod("t", "1"), max_pods=100)
        assert r.count == 7
        assert sum(r.by_node.values()) == 7
        assert "Insufficient cpu" in r.stopped
    assert snap.fill(pod("t", "1"), max_pods=3).count == 3
    assert len(snap.pods()) == 4


def test_drain_moves_pods_together_or_changes_nothing() -> None:
    nodes = [node("n0", "4"), node("n1", "4"), node("n2", "2")]
    pods = [pod("a", "2", "n0"), pod("b", "2", "n0"), pod("c", "3", "n1"),
            pod("ds", "1", "n0", owner="DaemonSet")]
    snap = ClusterSnapshot(nodes=nodes, pods=pods)
    before = state(snap)
    r = snap.drain("n0")  # a and b need 4 cpu: n1 has 1 left, n2 has 2
    assert isinstance(r, DrainResult)
    assert not r.ok
    assert r.unplaced
    assert state(snap) == before
    r = snap.drain("n2")
    assert r.ok
    assert r.moves == {}
    assert [n.name for n in snap.nodes()] == ["n0", "n1"]


def test_drain_applies_the_blocking_rules_and_pdbs() -> None:
    nodes = [node("n0"), node("n1")]
    pdb = object_from_manifest({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}})
    pods = [pod("a", "1", "n0"), pod("b", "1", "n1")]
    snap = ClusterSnapshot(nodes=nodes, pods=pods, objects=[pdb])
    r = snap.drain("n0")
    assert not r.ok
    assert "NotEnoughPdb" in r.blocked["default/a"]
    assert snap.drain("n0", respect_pdbs=False).ok

    bare = ClusterSnapshot(nodes=nodes, pods=[pod("naked", "1", "n0", owner="")])
    assert bare.drain("n0").blocked == {"default/naked": "NotReplicated"}
    assert bare.drain("n0", blocking_rules=False).ok


def test_preempt_and_unpreempt() -> None:
    snap = ClusterSnapshot(nodes=[node("n0", "2")], pods=[pod("low", "2", "n0", priority=0)])
    before = state(snap)
    h = snap.preempt(pod("high", "2", priority=100))
    assert isinstance(h, Preemption)
    assert h.node == "n0"
    assert [v.key for v in h.victims] == ["default/low"]
    assert snap.node_of("default/high") == "n0"
    assert snap.get_pod("default/low") is None
    snap.unpreempt(h)
    assert snap.node_of("default/low") == "n0"
    assert snap.get_pod("default/high") is None
    assert state(snap)["pods"] == before["pods"]
    with pytest.raises(SnapshotError, match="undone already"):
        snap.unpreempt(h)
    none = snap.preempt(pod("equal", "2", priority=0))
    assert not none.placed
    assert none.victims == ()


def test_no_caller_object_is_changed() -> None:
    nodes, pods = cluster()
    new = [pod("a"), pod("b")]
    saved = copy.deepcopy((nodes, pods, new))
    snap = ClusterSnapshot(nodes=nodes, pods=pods)
    snap.schedule(new)
    snap.drain("n0")
    assert (nodes, pods, new) == saved


def test_misuse_is_a_clear_error() -> None:
    snap = ClusterSnapshot(nodes=[node("n0")], pods=[pod("r", "1", "n0"), pod("pending")])
    assert [p.key for p in snap.pending] == ["default/pending"]
    with pytest.raises(SnapshotError, match="bound to 'n0'"):
        snap.schedule([pod("x", "1", "n0")])
    with pytest.raises(SnapshotError, match="given twice"):
        snap.schedule([pod("x"), pod("x")])
    with pytest.raises(SnapshotError, match="already exists"):
        snap.schedule([pod("r")])
    with pytest.raises(ArgumentTypeError, match="pods must be an iterable"):
        snap.schedule(pod("x"))  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match="no node 'zz'"):
        snap.drain("zz")
    with pytest.raises(SnapshotError, match="names no node"):
        snap.add_pod(pod("y"))


def test_from_scheduler_copies_the_cluster() -> None:
    nodes, bound = cluster()
    s = Scheduler(objects=[*nodes, *bound, pod("waiting", "100")])
    s.run_until_idle()
    snap = ClusterSnapshot.from_scheduler(s)
    assert sorted(p.key for p in snap.pods()) == sorted(p.key for p in s.pods() if p.node_name)
    assert [p.key for p in snap.pending] == ["default/waiting"]
    snap.drain("n0")
    assert "n0" in {n.name for n in s.nodes()}
