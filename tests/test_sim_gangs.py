"""Issue #50 (gangs, silently wrong), the simulator: a gang that can never reach its quorum
does not starve a pod that fits (Coscheduling at one instant of the virtual clock; the in-tree
GangScheduling through its Permit timeouts), and the end of the run says which pods wait for a
gang's quorum instead of a bare "no progress"."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from schedframe.cli import EXIT_OK, main
from schedframe.sim import (
    PENDING,
    RUNNING,
    Arrival,
    GangBlock,
    Scenario,
    Workload,
    builtin_scenario,
    simulate,
)
from schedframe.testing import make_node, make_pod

GROUP = "scheduling.x-k8s.io/pod-group"


def node(name: str, cpu: str = "4") -> Any:
    return (make_node(name).capacity(cpu=cpu, memory="16Gi", pods=110)
            .label("kubernetes.io/hostname", name).label("topology.kubernetes.io/zone", "a").obj())


def cosched_scenario(gang_cpu: str = "3", single: str = "s", at: float = 0.0) -> Scenario:
    """One 4-CPU node; a gang of three 3-CPU members (never fits: one member at a time does)
    and a 1-CPU pod whose key sorts after the gang's."""
    cfg = builtin_scenario("gang").configs[0]  # Coscheduling
    gang = make_pod("t").req(cpu=gang_cpu).label(GROUP, "g").obj()
    return Scenario(
        "starve",
        nodes=[node("n1")],
        workloads=[Workload("g", gang, replicas=3, kind="Job", gang=3, gang_timeout=10),
                   Workload(single, make_pod("s").req(cpu="1").obj(), kind="Job", arrival=Arrival(at=at))],
        configs=[cfg],
    )


@pytest.mark.parametrize("at", [0.0, 5.0])
def test_a_gang_that_never_fits_does_not_starve_a_pod_that_fits(at: float) -> None:
    """The gang's members fail and requeue each other at the same instant; its last rejection
    sorts it after the pods already queued then (in wall time the clock has moved on), so the
    1-CPU pod is attempted and placed. It used to get 0 attempts."""
    r = simulate(cosched_scenario(at=at), until=100)
    s = r.pod("s-0")
    assert s.attempts >= 1
    assert s.state == RUNNING
    assert s.node == "n1"
    assert s.bound_at == at
    assert {p.state for p in r.pods if p.workload == "g"} == {PENDING}


def test_the_end_of_the_run_names_the_gang_short_of_its_quorum() -> None:
    r = simulate(cosched_scenario(), until=100)
    assert r.end_reason == "no-progress"
    assert r.gang_blocked == (
        GangBlock("default/g", "PodGroup", 3, 0, ("default/g-0", "default/g-1", "default/g-2")),
    )
    assert r.to_dict()["gang_blocked"] == [
        {"group": "default/g", "kind": "PodGroup", "min_member": 3, "placed": 0,
         "pending": ["default/g-0", "default/g-1", "default/g-2"]}
    ]


def test_a_pod_that_fits_nowhere_is_not_blamed_on_a_gang() -> None:
    """Plain no progress: a pod too large for every node, no gang."""
    big = Scenario("big", nodes=[node("n1")],
                   workloads=[Workload("w", make_pod("w").req(cpu="8").obj(), kind="Job")])
    r = simulate(big, until=100)
    assert r.end_reason == "no-progress"
    assert r.gang_blocked == ()


def test_a_gang_that_completes_is_not_blocked() -> None:
    r = simulate(cosched_scenario(gang_cpu="1"), until=100)
    assert all(p.state == RUNNING for p in r.pods)
    assert r.gang_blocked == ()


def test_without_coscheduling_a_pod_group_label_is_no_gang() -> None:
    s = cosched_scenario()
    r = simulate(Scenario(s.name, nodes=s.nodes, workloads=s.workloads), until=100)
    assert r.gang_blocked == ()  # the default profile: each pod on its own, one fits
    assert sum(p.state == RUNNING for p in r.pods) == 2


WORKLOAD_GANG = """\
name: wl
nodes:
- count: 1
  name: "n{i}"
  template: {status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
objects:
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: training, namespace: default}
  spec:
    podGroups:
    - name: workers
      policy: {gang: {minCount: 3}}
workloads:
- name: g
  kind: Pod
  replicas: 3
  template:
    spec:
      workloadRef: {name: training, podGroup: workers}
      containers: [{name: w, resources: {requests: {cpu: "3"}}}]
- name: s
  kind: Pod
  template:
    spec:
      containers: [{name: w, resources: {requests: {cpu: "1"}}}]
"""
GATES = "GenericWorkload=true,GangScheduling=true"


def test_an_in_tree_gang_short_of_its_quorum_ends_the_run() -> None:
    """GangScheduling: a member waits at Permit (5 minutes), times out, the next one waits...
    for ever. Without ``until`` the run used to never end; it stops after two Permit timeouts
    with no change of the cluster, naming the gang, and the 1-CPU pod is placed."""
    r = simulate(Scenario.from_text(WORKLOAD_GANG), kubernetes_version="1.35", feature_gates=GATES)
    assert r.end_reason == "no-progress"
    assert r.stopped_at == 600.0
    assert r.pod("s-0").state == RUNNING
    assert r.gang_blocked == (
        GangBlock("default/training/workers", "Workload", 3, 0,
                  ("default/g-0", "default/g-1", "default/g-2")),
    )
    assert r.metrics.attempts < 50


def test_an_in_tree_gang_waits_for_a_node_event() -> None:
    """The detection does not stop a gang that an event ahead completes."""
    text = WORKLOAD_GANG + """\
events:
- {at: 900, action: add, node: n9, template: {status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}}}
"""
    r = simulate(Scenario.from_text(text), kubernetes_version="1.35", feature_gates=GATES)
    assert r.end_reason == "done"
    assert all(p.state == RUNNING for p in r.pods)
    assert r.gang_blocked == ()


def test_the_cli_says_which_gang_blocks(tmp_path: Path) -> None:
    path = tmp_path / "wl.yaml"
    path.write_text(WORKLOAD_GANG)
    out = io.StringIO()
    code = main(["simulate", str(path), "--plain", "--kubernetes-version", "1.35",
                 "--feature-gates", GATES], stdout=out)
    text = out.getvalue()
    assert code == EXIT_OK
    assert ("default: stopped at 600.0s: no progress possible (no arrival, completion or node "
            "event ahead, and the 3 pending pod(s) cannot be placed, 3 of them blocked by a gang "
            "quorum)") in text
    assert ("default: blocked by a gang quorum: Workload default/training/workers (0 of minCount 3 "
            "placed): 3 pending pod(s) wait for the quorum (default/g-0, default/g-1, default/g-2)") in text
