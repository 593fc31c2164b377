"""CompositePodGroup (1.37, alpha): a pod of a PodGroup whose parent is a CompositePodGroup is
scheduled with the whole tree of its root in one PodGroup cycle (scheduler/_composite.py;
upstream podGroupSchedulingRecursiveAlgorithm and compositePodGroupSchedulingPlacementAlgorithm)."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import ConfigurationError, Scheduler
from schedframe.api import Node, object_from_manifest
from schedframe.api.scheduling_workload import SchedulingPodGroup
from schedframe.testing import make_pod

ZONE = "example.com/zone"
RACK = "example.com/rack"
GATES = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"
WITHOUT = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
#: zone z1: racks r1 (two 2-CPU nodes) and r2 (one 2-CPU node); zone z2: rack r3 (two 4-CPU nodes)
NODES = (("a1", "z1", "r1", "2"), ("a2", "z1", "r1", "2"), ("b1", "z1", "r2", "2"),
         ("c1", "z2", "r3", "4"), ("c2", "z2", "r3", "4"))


def _composite(name: str, min_groups: int | None, key: str | None = ZONE) -> Any:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minGroupCount": min_groups}} if min_groups
                            else {"basic": {}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    return object_from_manifest({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                                 "metadata": {"name": name}, "spec": spec})


def _group(name: str, min_count: int, parent: str | None = "job", key: str | None = RACK) -> Any:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return object_from_manifest({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                                 "metadata": {"name": name}, "spec": spec})


def _pods(group: str, n: int, cpu: str) -> list[Any]:
    return [make_pod(f"{group}-{i}").req(cpu=cpu).obj().evolve(scheduling_group=group) for i in range(n)]


def _nodes() -> list[Any]:
    return [Node(name=n, labels={ZONE: z, RACK: r}, allocatable={"cpu": c, "memory": "8Gi", "pods": "110"})
            for n, z, r, c in NODES]


def _run(objs: list[Any], gates: str = GATES) -> Scheduler:
    s = Scheduler(objects=objs, kubernetes_version="1.37", feature_gates=gates, seed=0)
    s.run_until_idle()
    return s


def _zone(node: str | None) -> str | None:
    return next((z for n, z, _r, _c in NODES if n == node), None)


def _rack(node: str | None) -> str | None:
    return next((r for n, _z, r, _c in NODES if n == node), None)


def _failures(s: Scheduler, name: str) -> list[str]:
    return [e.message for e in s.events if e.reason == "FailedScheduling" and e.obj.name == name]


def test_two_level_composite_in_one_zone_each_leaf_in_one_rack() -> None:
    """Leaf "ps" (two 2-CPU pods) and leaf "wk" (two 2-CPU pods) in one zone: z1 has r1 (2+2)
    and r2 (2) so only one leaf fits a rack there; z2's r3 (4+4) holds both. Each leaf stays
    in one rack, the composite in one zone."""
    objs = [_composite("job", 2), _group("ps", 2), _group("wk", 2), *_nodes(),
            *_pods("ps", 2, "2"), *_pods("wk", 2, "2")]
    s = _run(objs)
    nodes = [s.node_of(f"default/{g}-{i}") for g in ("ps", "wk") for i in range(2)]
    assert all(nodes), nodes
    assert {_zone(n) for n in nodes} == {"z2"}
    assert len({_rack(s.node_of(f"default/ps-{i}")) for i in range(2)}) == 1
    for name in ("ps", "wk"):
        pg = s.objects.get(SchedulingPodGroup, name, "default")
        assert pg is not None
        assert [(c.type, c.status) for c in pg.conditions] == [("PodGroupInitiallyScheduled", "True")]


def test_composite_short_of_min_group_count_stays_pending() -> None:
    """minGroupCount 2 but only one child fits anywhere (wk needs 8 CPUs in one rack of 2-CPU
    pods x 5): the tree is unschedulable, nothing binds, and ps's pods say why."""
    objs = [_composite("job", 2, key=None), _group("ps", 1), _group("wk", 5), *_nodes(),
            *_pods("ps", 1, "1"), *_pods("wk", 5, "2")]
    s = _run(objs)
    assert not any(s.node_of(f"default/{p}") for p in ("ps-0", *(f"wk-{i}" for i in range(5))))
    msg = _failures(s, "ps-0")[0]
    assert "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining" in msg
    assert "pod group is unschedulable" in msg
    pg = s.objects.get(SchedulingPodGroup, "ps", "default")
    assert pg is not None
    assert pg.conditions[0].status == "False"


def test_a_failing_child_fails_the_whole_tree_all_or_nothing() -> None:
    """A gang composite of two leaves: "wk" cannot fit (20 CPUs): "ps", which fits on its own,
    is not bound either (all or nothing)."""
    objs = [_composite("job", 2), _group("ps", 1), _group("wk", 1), *_nodes(),
            *_pods("ps", 1, "1"), *_pods("wk", 1, "20")]
    s = _run(objs)
    assert s.node_of("default/ps-0") is None
    assert s.node_of("default/wk-0") is None
    assert _failures(s, "ps-0")[0] == ("pod group is unschedulable, 0/2 placements are available, first "
                                       "placement status: minCount (2) cannot be satisfied: 1 scheduled, "
                                       "0 remaining")


def test_a_basic_composite_binds_the_child_that_fits() -> None:
    """minGroupCount absent (basic: one child is enough): ps binds, wk stays pending."""
    objs = [_composite("job", None, key=None), _group("ps", 1), _group("wk", 1), *_nodes(),
            *_pods("ps", 1, "1"), *_pods("wk", 1, "20")]
    s = _run(objs)
    assert s.node_of("default/ps-0") is not None
    assert s.node_of("default/wk-0") is None


def test_a_missing_parent_holds_the_pods() -> None:
    """A leaf whose parent CompositePodGroup does not exist yet is not scheduled, until it does."""
    objs = [_group("ps", 1, parent="job"), *_nodes(), *_pods("ps", 1, "1")]
    s = _run(objs)
    assert s.node_of("default/ps-0") is None
    # the CompositePodGroup added (GangScheduling's hint for it) lets the tree in
    s.add_object(_composite("job", None, key=None))
    s.run_until_idle()
    assert s.node_of("default/ps-0") is not None


def test_gate_off_parent_is_ignored() -> None:
    """Without the gate a PodGroup with a parent is scheduled on its own, as before: the
    composite's constraint and minGroupCount are not read."""
    objs = [_composite("job", 2), _group("ps", 1), _group("wk", 1), *_nodes(),
            *_pods("ps", 1, "1"), *_pods("wk", 1, "20")]
    s = _run(objs, gates=WITHOUT)
    assert s.node_of("default/ps-0") is not None
    assert s.node_of("default/wk-0") is None


def test_gate_refused_at_1_36_and_without_its_dependencies() -> None:
    with pytest.raises(ConfigurationError, match="unrecognized feature gate: CompositePodGroup"):
        Scheduler(kubernetes_version="1.36", feature_gates="GenericWorkload=true,CompositePodGroup=true")
    with pytest.raises(ConfigurationError, match=r"depends on features that are disabled: "
                                                 r"\[TopologyAwareWorkloadScheduling\]"):
        Scheduler(kubernetes_version="1.37", feature_gates="GenericWorkload=true,CompositePodGroup=true")


def test_explain_group_names_the_failing_child() -> None:
    """explain_group of a pod of a composite's leaf explains every child group and says which
    one cannot be placed, and why."""
    from schedframe.scheduler import explain_group

    objs = [_composite("job", 2), _group("ps", 1), _group("wk", 1), *_nodes(),
            *_pods("ps", 1, "1"), *_pods("wk", 1, "20")]
    g = explain_group(objs[-2], objects=objs, config=None)
    assert not g.feasible
    assert [c.group for c in g.children] == ["default/ps", "default/wk"]
    assert [c.group for c in g.failed_children] == ["default/wk"]
    assert g.message.startswith("composite pod group default/job cannot be placed: 1 of 2 child groups fit "
                                "(minGroupCount 2); [pod group default/wk cannot be placed")
    assert "Insufficient cpu" in g.message


def test_gate_on_a_pod_group_without_parent_is_scheduled_as_before() -> None:
    """With the gate, a gang PodGroup without a parent lands where it does without the gate
    (the best placement assumed again and undone changes nothing)."""
    def place(gates: str) -> list[str | None]:
        objs = [_group("solo", 3, parent=None), *_nodes(), *_pods("solo", 3, "2")]
        s = _run(objs, gates=gates)
        return [s.node_of(f"default/solo-{i}") for i in range(3)]

    with_gate = place(GATES)
    assert with_gate == place(WITHOUT)
    assert all(with_gate)
    assert {_rack(n) for n in with_gate} == {"r3"}
