"""Issue #50 (gangs and plans, silently wrong): the planner estimates a gang as a whole on the
templates (all its members, its quorum), buys no node for a gang no template holds, and a plan
is verified only when every pod it adds nodes for is placed in its check simulation."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe.api.objects import PodGroup, WorkloadReference
from schedframe.api.scheduling_workload import Workload, WorkloadPodGroup
from schedframe.config.configuration import SchedulerConfiguration
from schedframe.plan import NodeTemplate, plan
from schedframe.plan import _plan as plan_impl
from schedframe.plan._scale_up import GANG_REASON
from schedframe.plugins.coscheduling import ERR_NOT_ENOUGH_PODS, POD_GROUP_LABEL
from schedframe.plugins.gang_scheduling import MSG_WAITING_FOR_MIN_COUNT
from schedframe.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
COSCHEDULING: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                              "queueSort": {"disabled": [{"name": "PrioritySort"}]}},
                  "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 10}}]}],
}


def node(name: str, zone: str = "zone-a", cpu: str = "4") -> Any:
    return make_node().name(name).capacity(cpu=cpu, memory="16Gi", pods="110").label(ZONE, zone).obj()


def full() -> list[Any]:
    """One node, full."""
    return [node("n0"), make_pod().name("busy").req(cpu="4", memory="1Gi").node("n0")
            .owner("ReplicaSet", "rs").obj()]


def member(name: str, cpu: str = "3", group: str = "g", **selector: str) -> Any:
    b = make_pod().name(name).req(cpu=cpu, memory="1Gi").label(POD_GROUP_LABEL, group).owner("Job", group)
    if selector:
        b = b.node_selector(selector)
    return b.obj()


def test_an_in_tree_gang_only_new_nodes_hold_gets_them() -> None:
    """GangScheduling's gang of three 3-CPU pods on 4-CPU templates: three nodes, every member
    placed. It used to get no node, the reason 'waiting for minCount pods' (its first pod
    checked alone), and a plan said verified."""
    cfg = SchedulerConfiguration.default(kubernetes_version="1.35",
                                         feature_gates="GenericWorkload=true,GangScheduling=true")
    ref = WorkloadReference("train", "workers")
    pods = [make_pod().name(f"w-{i}").req(cpu="3", memory="1Gi").owner("Job", "w").obj()
            .evolve(workload_ref=ref) for i in range(3)]
    wl = Workload(name="train", pod_groups=(WorkloadPodGroup("workers", 3),))
    r = plan([*full(), *pods, wl], [NodeTemplate("t", node("t"), price=1.0)], config=cfg)
    up = r.scale_up
    assert up is not None
    assert up.verified, up.problems
    assert dict(up.nodes_to_add) == {"t": 3}
    assert sorted(up.placements) == ["default/w-0", "default/w-1", "default/w-2"]
    assert not any(MSG_WAITING_FOR_MIN_COUNT in r for rs in up.unhelpable.values()
                   for reasons in rs.values() for r in reasons)


def test_a_gang_whose_members_need_two_templates_is_planned_on_both() -> None:
    """One member pinned to zone-a, two to zone-b: no template holds the quorum alone; both
    together do. It used to get no node (each template estimated with part of the gang, whose
    PreFilter then finds too few pods)."""
    pods = [member("g-0", **{ZONE: "zone-a"}), member("g-1", **{ZONE: "zone-b"}),
            member("g-2", **{ZONE: "zone-b"})]
    templates = [NodeTemplate("ta", node("t", "zone-a")), NodeTemplate("tb", node("t", "zone-b"))]
    r = plan([*full(), *pods, PodGroup("g", min_member=3)], templates, config=COSCHEDULING)
    up = r.scale_up
    assert up is not None
    assert up.verified, up.problems
    assert dict(up.nodes_to_add) == {"ta": 1, "tb": 2}
    assert up.placements["default/g-0"].startswith("ta-")
    assert {up.placements["default/g-1"][:3], up.placements["default/g-2"][:3]} == {"tb-"}
    assert not up.unhelpable


def test_no_node_is_bought_for_a_gang_no_template_holds() -> None:
    """The gang needs three 4-CPU nodes, the template allows two: the plan adds one node, for
    the single pod, and says why the gang stays pending. It used to add two (one the gang
    could not use)."""
    single = make_pod().name("s").req(cpu="2", memory="1Gi").owner("ReplicaSet", "web").obj()
    pods = [member(f"g-{i}") for i in range(3)]
    r = plan([*full(), *pods, single, PodGroup("g", min_member=3)],
             [NodeTemplate("t", node("t"), price=1.0, max_count=2)], config=COSCHEDULING)
    up = r.scale_up
    assert up is not None
    assert up.verified, up.problems
    assert dict(up.nodes_to_add) == {"t": 1}
    assert up.placements == {"default/s": "t-1"}
    reason = GANG_REASON.format("gang PodGroup default/g (quorum 3)", 3)
    for k in ("default/g-0", "default/g-1", "default/g-2"):
        assert up.unhelpable[k]["t"][0] == reason
    assert not any(ERR_NOT_ENOUGH_PODS.split("{")[0] in r for rs in up.unhelpable.values()
                   for reasons in rs.values() for r in reasons)


def test_a_plan_whose_promised_pods_stay_pending_is_not_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """An estimate that promises a pod the final simulation leaves pending makes the plan NOT
    verified with the reason, even when that pod's template is at its maxCount (which used to
    excuse it)."""
    pods = [member(f"g-{i}") for i in range(3)]
    real = plan_impl.repair_and_run

    def promising(*args: Any, **kwargs: Any) -> Any:
        out = list(real(*args, **kwargs))
        out[-1] = set(out[-1]) | {"default/g-0"}  # the estimate "promised" g-0
        return tuple(out)

    monkeypatch.setattr(plan_impl, "repair_and_run", promising)
    r = plan([*full(), *pods, PodGroup("g", min_member=3)],
             [NodeTemplate("t", node("t"), price=1.0, max_count=2)], config=COSCHEDULING)
    up = r.scale_up
    assert up is not None
    assert not up.verified
    assert "1 pod(s) the plan adds nodes for stay pending in its simulation (e.g. default/g-0)" in up.problems


@pytest.mark.parametrize("cpu", ["8", "100m"])
def test_a_daemon_set_pod_that_does_not_fit_its_node_stays_pending_with_a_reason(cpu: str) -> None:
    """A DaemonSet pod whose node is full (and, with ``8``, larger than any node), beside a
    node tainted against it:
    the plan does not raise, the pod that cannot fit stays pending with a reason for every
    template, and the single pod is still planned for."""
    from schedframe.api import DaemonSet
    from schedframe.api.objects import Pod
    from schedframe.api.workloads import expand_workloads

    tainted = (make_node().name("n1").capacity(cpu="4", memory="16Gi", pods="110").label(ZONE, "zone-a")
               .taint("dedicated", "x", "NoSchedule").obj())
    ds = DaemonSet("agent", namespace="monitoring",
                   template=make_pod().name("agent").req(cpu=cpu, memory="64Mi").obj())
    nodes = [*full(), tainted]
    daemons = [o for o in expand_workloads([*nodes, ds])
               if isinstance(o, Pod) and o.namespace == "monitoring"]
    assert len(daemons) == 1  # the controller makes none for the tainted node
    single = make_pod().name("s").req(cpu="2", memory="1Gi").owner("ReplicaSet", "web").obj()
    for scale_down in (False, True):
        r = plan([*nodes, ds, *daemons, single], [NodeTemplate("t", node("t"), price=1.0)],
                 scale_down=scale_down)
        up = r.scale_up
        assert up is not None
        assert up.verified, up.problems
        # its node is full (and, with "8", it is larger than any node): pending, with reasons
        assert daemons[0].key in r.pending
        assert up.unhelpable[daemons[0].key]["t"]
        if cpu == "8":  # a fresh node's own DaemonSet pod would take the single pod's room
            assert "default/s" in r.pending
        else:
            assert up.placements["default/s"].startswith("t-")
