"""TopologyAwareWorkloadScheduling (1.36, 1.37): a PodGroup with a topology constraint is tried
in each placement (one per value of the node label) and bound in the best one
(scheduler/_placements.py; upstream podGroupSchedulingPlacementAlgorithm)."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Code, ConfigurationError, Scheduler
from schedframe.api import Node, object_from_manifest
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.plugins.node_resources_fit import NodeResourcesFit
from schedframe.scheduler._placements import Placement, generate_placements, pods_count_scores
from schedframe.testing import make_pod

RACK = "example.com/rack"
RELEASES = {
    "1.37": ("scheduling.k8s.io/v1beta1", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"),
    "1.36": ("scheduling.k8s.io/v1alpha2",
             "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true"),
}
#: two racks: "a" of two 2-CPU nodes, "b" of two 4-CPU nodes, and a big node in no rack
NODES = (("n0", "a", "2"), ("n1", "a", "2"), ("n2", "b", "4"), ("n3", "b", "4"), ("big", None, "16"))


def _cluster(release: str, members: int, cpu: str, *, min_count: int | None = None,
             topology: bool = True, nodes: tuple[tuple[str, str | None, str], ...] = NODES,
             extra: tuple[Any, ...] = ()) -> list[Any]:
    api = RELEASES[release][0]
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count or members}}}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": RACK}]}
    objs: list[Any] = [object_from_manifest({"apiVersion": api, "kind": "PodGroup",
                                             "metadata": {"name": "train"}, "spec": spec})]
    objs += [Node(name=name, labels={RACK: rack} if rack else {},
                  allocatable={"cpu": c, "memory": "8Gi", "pods": "110"}) for name, rack, c in nodes]
    objs += [make_pod(f"w{i}").req(cpu=cpu).obj().evolve(scheduling_group="train") for i in range(members)]
    return objs + list(extra)


def _run(release: str, objs: list[Any], *, gates: str | None = None, seed: int = 0) -> Scheduler:
    s = Scheduler(objects=objs, kubernetes_version=release, feature_gates=gates or RELEASES[release][1],
                  seed=seed)
    s.run_until_idle()
    return s


def _racks(s: Scheduler, members: int) -> list[str | None]:
    rack_of = {name: rack for name, rack, _ in NODES}
    return [rack_of.get(node) if (node := s.node_of(f"default/w{i}")) else None for i in range(members)]


def _failures(s: Scheduler, name: str) -> list[str]:
    return [e.message for e in s.events if e.reason == "FailedScheduling" and e.obj.name == name]


@pytest.mark.parametrize("release", RELEASES)
def test_a_gang_lands_in_the_one_rack_that_holds_it(release: str) -> None:
    """Three members of 2 CPUs: rack a (2 + 2 CPUs) holds two, rack b (4 + 4) all three."""
    s = _run(release, _cluster(release, 3, "2"))
    assert _racks(s, 3) == ["b", "b", "b"]


@pytest.mark.parametrize("release", RELEASES)
def test_without_the_gate_the_constraint_is_not_read(release: str) -> None:
    """Five members of 2 CPUs fit no rack (a: 2, b: 4) but do fit the cluster with the big node:
    without TopologyAwareWorkloadScheduling the group spreads over racks and binds."""
    gates = RELEASES[release][1].replace(",TopologyAwareWorkloadScheduling=true", "")
    s = _run(release, _cluster(release, 5, "2"), gates=gates)
    assert all(_racks(s, 5)[i] is not None or s.node_of(f"default/w{i}") == "big" for i in range(5))
    assert all(s.node_of(f"default/w{i}") for i in range(5))
    with_gate = _run(release, _cluster(release, 5, "2"))
    assert not any(with_gate.node_of(f"default/w{i}") for i in range(5))


@pytest.mark.parametrize("release", RELEASES)
def test_of_two_feasible_racks_the_fuller_one_wins(release: str) -> None:
    """Two members of 1 CPU fit either rack, so PodGroupPodsCount ties (2 pods each: 100); the
    NodeResourcesFit placement score is MostAllocated over the rack: 2 of 4 CPUs in rack a
    against 2 of 8 in rack b, so rack a."""
    s = _run(release, _cluster(release, 2, "1"))
    assert _racks(s, 2) == ["a", "a"]


def test_none_feasible_reports_the_first_placement() -> None:
    """1.37: five members of 2 CPUs fit no rack. The feasible members report the group's status:
    no placement is available, quoting the first one tried (rack a: schedframe tries them by
    name) as upstream's AsError renders it; PodGroupPostFilter's reason follows."""
    s = _run("1.37", _cluster("1.37", 5, "2"))
    assert not any(s.node_of(f"default/w{i}") for i in range(5))
    first = "minCount (5) cannot be satisfied: 2 scheduled, 2 remaining"
    assert _failures(s, "w0")[0] == (
        f"pod group is unschedulable, pod group is unschedulable, 0/2 placements are available, first "
        f"placement status: {first}, pod group preemption: No preemption victims found for incoming "
        f"preemptor")
    assert _failures(s, "w2")[0] == "0/2 nodes are available: 2 Insufficient cpu."  # rack a's two nodes
    assert _failures(s, "w4")[0] == f"pod group is unschedulable, 0/2 placements are available, first " \
                                    f"placement status: {first}"
    assert s.cache.pod_count() == 0  # every trial undone


@pytest.mark.parametrize("release", RELEASES)
def test_no_node_in_any_rack_is_no_placement(release: str) -> None:
    nodes = (("n0", None, "4"), ("n1", None, "4"))
    s = _run(release, _cluster(release, 2, "1", nodes=nodes))
    assert not any(s.node_of(f"default/w{i}") for i in range(2))
    assert {m for i in range(2) for m in _failures(s, f"w{i}")} == {"no feasible placements found"}


@pytest.mark.parametrize("release", RELEASES)
def test_members_already_placed_pin_the_rack(release: str) -> None:
    """A member bound in rack a (n0) before: only rack a is generated, and the two members left
    (minCount 3 counts the bound one) share n1 and the room left on n0."""
    bound = make_pod("w9").req(cpu="1").obj().evolve(scheduling_group="train", node_name="n0")
    s = _run(release, _cluster(release, 2, "1", min_count=3, extra=(bound,)))
    assert _racks(s, 2) == ["a", "a"]


@pytest.mark.parametrize("release", RELEASES)
def test_equal_racks_are_a_coin_toss_and_the_group_stays_in_one(release: str) -> None:
    """Two identical racks tie on every score: the seeded RNG picks one, different seeds both;
    the members always share one rack."""
    nodes = (("n0", "a", "4"), ("n1", "a", "4"), ("n2", "b", "4"), ("n3", "b", "4"))
    seen = set()
    for seed in range(12):
        racks = _racks(_run(release, _cluster(release, 2, "1", nodes=nodes), seed=seed), 2)
        assert len(set(racks)) == 1
        assert racks[0] is not None
        seen.add(racks[0])
    assert seen == {"a", "b"}


def test_the_gate_is_refused_where_the_release_lacks_it() -> None:
    with pytest.raises(ConfigurationError, match="TopologyAwareWorkloadScheduling"):
        Scheduler(kubernetes_version="1.35", feature_gates="TopologyAwareWorkloadScheduling=true")


def test_generate_placements_groups_nodes_by_the_label_in_snapshot_order() -> None:
    spec = {"schedulingPolicy": {"basic": {}}, "schedulingConstraints": {"topology": [{"key": RACK}]}}
    pg = object_from_manifest({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                               "metadata": {"name": "g"}, "spec": spec})
    infos = [NodeInfo(Node(name=n, labels={RACK: r} if r else {})) for n, r in
             (("x1", "b"), ("x2", "a"), ("x3", None), ("x4", "b"))]
    by_name = {ni.name: ni for ni in infos}
    got = generate_placements(pg, infos, [], by_name.get)
    assert got == [Placement("a", ("x2",)), Placement("b", ("x1", "x4"))]
    pinned = generate_placements(pg, infos, [(make_pod("p").obj(), "x4")], by_name.get)
    assert pinned == [Placement("b", ("x1", "x4"))]
    split = generate_placements(pg, infos, [(make_pod("p").obj(), "x1"), (make_pod("q").obj(), "x2")],
                                by_name.get)
    assert not isinstance(split, list)
    assert split.code is Code.ERROR
    assert "more than 1 domain found for pod group: b, a" in split.message


def test_pods_count_scores_normalise_by_the_best() -> None:
    assert pods_count_scores(1, [3, 1, 0]) == [100, 50, 25]
    failed = pods_count_scores(0, [0, 0])
    assert not isinstance(failed, list)
    assert failed.code is Code.ERROR
    assert "no pods from pod group are assigned" in failed.message


def test_the_fit_placement_score_is_most_allocated_over_the_placement() -> None:
    """cpu and memory weight 1 each: (1 + 2 CPUs requested of 4) and (0 + 1 GiB of 16 GiB)."""
    nodes = [NodeInfo(Node(name=f"n{i}", allocatable={"cpu": "2", "memory": "8Gi", "pods": "110"}))
             for i in range(2)]
    nodes[0].add_pod(make_pod("there").req(cpu="1").obj().evolve(node_name="n0"))
    pods = [make_pod(f"p{i}").req(cpu="1", memory="512Mi").obj() for i in range(2)]
    cpu = 3 * 1000 * 100 // 4000
    mib = 1024 * 1024
    memory = (200 * mib + 1024 * mib) * 100 // (16 * 1024 * mib)  # "there" counts 200Mi (non-zero)
    assert NodeResourcesFit().score_placement(pods, nodes) == (cpu + memory) // 2
