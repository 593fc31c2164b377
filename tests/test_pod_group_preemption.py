"""Workload-aware preemption: a PodGroup that cannot be placed preempts lower-priority pods for
the whole group (1.36 with WorkloadAwarePreemption, 1.37)."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Scheduler, object_from_manifest
from schedframe.api import Node, PodDisruptionBudget, SchedulingPodGroup
from schedframe.testing import make_pod

GATES = {"1.36": "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true",
         "1.37": "GenericWorkload=true"}
API = {"1.36": "scheduling.k8s.io/v1alpha2", "1.37": "scheduling.k8s.io/v1beta1"}


def _group(release: str, *, min_count: int = 1, priority: int = 1000, **spec: Any) -> Any:
    return object_from_manifest({
        "apiVersion": API[release], "kind": "PodGroup", "metadata": {"name": "g"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}, "priority": priority, **spec}})


def _run(objs: list[Any], release: str, gates: str | None = None) -> Scheduler:
    s = Scheduler(objects=objs, kubernetes_version=release, feature_gates=gates or GATES[release])
    s.run_until_idle()
    return s


def _preempted(s: Scheduler) -> list[str]:
    return sorted(e.obj.name for e in s.events if e.reason == "Preempted")


def _cluster(release: str, *, members: int = 1, policy: str | None = None, **group: Any) -> list[Any]:
    """n0 (8 cpu) holds ``low`` (priority 10, 7 cpu), n1 (4 cpu) ``lower`` (priority 5, 3 cpu)."""
    objs: list[Any] = [_group(release, **group),
                       Node(name="n0", allocatable={"cpu": "8", "memory": "16Gi", "pods": "110"}),
                       Node(name="n1", allocatable={"cpu": "4", "memory": "16Gi", "pods": "110"}),
                       make_pod("low").req(cpu="7").obj().evolve(node_name="n0", priority=10, start_time=1.0),
                       make_pod("lower").req(cpu="3").obj().evolve(node_name="n1", priority=5,
                                                                   start_time=2.0)]
    priority = group.get("priority", 1000)
    objs += [make_pod(f"w{i}").req(cpu="3").obj().evolve(scheduling_group="g", priority=priority,
                                                       preemption_policy=policy)
             for i in range(members)]
    return objs


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_the_victims_are_those_the_group_needs_gone(release: str) -> None:
    """All lower-priority pods removed, the group lands on n0 (the emptier node). 1.37 puts the
    victims back, most important first, checking the members where that run placed them:
    ``low`` is in the way and ``lower`` is not, so ``low`` is preempted though its priority is
    the higher one. 1.36 runs the group's algorithm again for each victim put back: with ``low``
    back the group fits on n1, so ``lower`` goes."""
    s = _run(_cluster(release), release)
    victim, kept, node = ("low", "lower", "n0") if release == "1.37" else ("lower", "low", "n1")
    assert _preempted(s) == [victim]
    assert s.node_of("default/w0") == node
    assert s.get_pod(f"default/{kept}") is not None


def test_1_37_nominates_and_says_how_many_it_preempts() -> None:
    s = Scheduler(objects=_cluster("1.37"), kubernetes_version="1.37", feature_gates=GATES["1.37"])
    s.schedule_one()
    (cond,) = s.objects.get(SchedulingPodGroup, "g", "default").conditions
    assert cond.message.endswith("pod group preemption: found a placement for podgroup, preempting 1 victims")
    assert s.get_pod("default/w0").nominated_node_name == "n0"
    assert s.get_pod("default/low") is None


def test_1_36_preempts_for_the_group_not_for_each_member() -> None:
    s = Scheduler(objects=_cluster("1.36"), kubernetes_version="1.36", feature_gates=GATES["1.36"])
    s.schedule_one()
    failed = [e.message for e in s.events if e.reason == "FailedScheduling"]
    assert failed
    assert failed[0].endswith("preemption: not eligible due to workload aware preemption enabled")
    assert _preempted(s) == ["lower"]
    # without the gate each member preempts on its own (DefaultPreemption's PostFilter)
    s = _run(_cluster("1.36"), "1.36", "GenericWorkload=true,GangScheduling=true")
    assert s.node_of("default/w0") == "n1"
    assert _preempted(s) == ["lower"]


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_a_group_that_may_not_preempt_says_so(release: str) -> None:
    s = _run(_cluster(release, policy="Never"), release)
    assert not _preempted(s)
    (cond,) = s.objects.get(SchedulingPodGroup, "g", "default").conditions
    prefix = "pod group preemption: " if release == "1.37" else ""
    assert cond.message.endswith(prefix + "not eligible due to preemptionPolicy=Never.")


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_pods_of_the_groups_priority_or_higher_are_no_victims(release: str) -> None:
    s = _run(_cluster(release, priority=5), release)
    assert not _preempted(s)
    (cond,) = s.objects.get(SchedulingPodGroup, "g", "default").conditions
    assert "No preemption victims found for incoming preemptor" in cond.message


@pytest.mark.parametrize("release", ["1.36", "1.37"])
@pytest.mark.parametrize(("protected", "preempted"), [(None, "v1"), ("a1", "v0")])
def test_a_pod_disruption_budget_makes_a_victim_the_first_reprieved(release: str, protected: str | None,
                                                                    preempted: str) -> None:
    """Room for the group and one of two pods of the same priority: the more important one (the
    earlier started) is put back first and stays, unless a PDB protects the other."""
    objs: list[Any] = [_group(release),
                       Node(name="n0", allocatable={"cpu": "8", "memory": "8Gi", "pods": "110"})]
    objs += [make_pod(f"v{i}").req(cpu="3").labels({"app": f"a{i}"}).obj()
             .evolve(node_name="n0", priority=10, start_time=float(i)) for i in range(2)]
    objs.append(make_pod("w0").req(cpu="4").obj().evolve(scheduling_group="g", priority=1000))
    if protected:
        budget = object_from_manifest({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                       "metadata": {"name": "keep"},
                                       "spec": {"selector": {"matchLabels": {"app": protected}},
                                                "maxUnavailable": 0},
                                       "status": {"disruptionsAllowed": 0}})
        assert isinstance(budget, PodDisruptionBudget)
        objs.append(budget)
    s = _run(objs, release)
    assert _preempted(s) == [preempted]
    assert s.node_of("default/w0") == "n0"


def test_1_37_refuses_a_member_of_another_priority_than_its_group() -> None:
    objs = _cluster("1.37")
    objs[-1] = objs[-1].evolve(priority=7)
    s = _run(objs, "1.37")
    (cond,) = s.objects.get(SchedulingPodGroup, "g", "default").conditions
    assert cond.reason == "SchedulerError"
    assert cond.message == ("all pods in a single pod group should have the same priority as the pod group's "
                            "priority, got 7 and 1000")


@pytest.mark.parametrize(("release", "gates", "by_group"), [
    ("1.35", "GenericWorkload=true,GangScheduling=true", False),
    ("1.36", "GenericWorkload=true,GangScheduling=true", False),
    ("1.36", GATES["1.36"], True),
    ("1.37", GATES["1.37"], True),
])
def test_the_group_preemption_scenario_per_release(release: str, gates: str, by_group: bool) -> None:
    """The built-in gang of priority 1000 on nodes full of batch pods: every release binds it at
    33 s by preempting the eight priority-100 pods; with workload-aware preemption all of them
    for the group at once (named after its first pod), else each member its own two."""
    from schedframe.sim import builtin_scenario, simulate

    r = simulate(builtin_scenario("group-preemption", kubernetes_version=release),
                 kubernetes_version=release, feature_gates=gates)
    train = [p for p in r.pods if p.workload == "train"]
    assert {p.bound_at for p in train} == {33.0}
    gone = [p for p in r.pods if p.state == "Preempted"]
    assert sorted(p.workload for p in gone) == ["batch-low"] * 8
    preemptors = {p.preempted_by for p in gone}
    assert (preemptors == {"default/train-0"}) is by_group
