"""schedframe.plan over generated dumps (finished pods, a DaemonSet, zone spread, pod
(anti-)affinity, gangs, one or two templates): the plan never crashes, a verified plan never
overcommits a node, finished pods are never counted, and scale-down never strands a pod the
scale-up placed."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe.api import DaemonSet
from schedframe.api.objects import LabelSelector, Node, Pod, PodGroup
from schedframe.plan import NodeTemplate, plan
from schedframe.plugins.coscheduling import POD_GROUP_LABEL
from schedframe.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
CPU = ("250m", "500m", "1", "2")
PLANS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Coscheduling beside the default plugins, so generated gangs are gangs
CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                              "queueSort": {"disabled": [{"name": "PrioritySort"}]}},
                  "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 10}}]}],
}


@st.composite
def dumps(draw: st.DrawFn) -> tuple[list[Any], list[NodeTemplate], bool]:
    objs: list[Any] = []
    nodes = []
    for i in range(draw(st.integers(1, 3))):
        zone = draw(st.sampled_from(["zone-a", "zone-b"]))
        cpu = draw(st.sampled_from(["2", "4"]))
        nodes.append(make_node().name(f"n{i}").capacity(cpu=cpu, memory="8Gi", pods="110")
                     .label(ZONE, zone).label(HOST, f"n{i}").obj())
    objs += nodes
    free = {n.name: n.allocatable_resources.milli_cpu for n in nodes}
    for j in range(draw(st.integers(0, 5))):
        node = draw(st.sampled_from(nodes)).name
        phase = draw(st.sampled_from(["Running", "Running", "Succeeded", "Failed"]))
        kind = "Job" if phase != "Running" else "ReplicaSet"
        cpu = draw(st.sampled_from(CPU))
        if phase == "Running":  # the kubelet admitted it: running pods fit (finished ones need not)
            if make_pod().req(cpu=cpu).obj().requests.milli_cpu > free[node]:
                continue
            free[node] -= make_pod().req(cpu=cpu).obj().requests.milli_cpu
        objs.append(make_pod().name(f"b{j}").req(cpu=cpu, memory="512Mi")
                    .label("app", draw(st.sampled_from(["web", "db"]))).owner(kind, f"o{j}")
                    .node(node).phase(phase).obj())
    if draw(st.booleans()):
        tb = make_pod().name("agent").req(cpu="100m", memory="64Mi")
        if draw(st.booleans()):
            tb = tb.node_selector({ZONE: "zone-a"})
        objs.append(DaemonSet("agent", namespace="monitoring", template=tb.obj()))
    web = LabelSelector(match_labels={"app": "web"})
    gang = 0
    for k in range(draw(st.integers(1, 6))):
        b = (make_pod().name(f"p{k}").req(cpu=draw(st.sampled_from(CPU)), memory="512Mi")
             .label("app", "web").owner("ReplicaSet", "web"))
        kind = draw(st.sampled_from(["plain", "spread", "anti", "affinity", "gang"]))
        if kind == "spread":
            b = b.spread_constraint(1, ZONE, "DoNotSchedule", web)
        elif kind == "anti":
            b = b.pod_anti_affinity(HOST, web)
        elif kind == "affinity":
            b = b.pod_affinity(ZONE, web)
        elif kind == "gang":
            b = b.label(POD_GROUP_LABEL, "g")
            gang += 1
        objs.append(b.obj())
    if gang:
        objs.append(PodGroup("g", min_member=gang))
    templates = []
    for z in draw(st.lists(st.sampled_from(["zone-a", "zone-b"]), min_size=1, max_size=2, unique=True)):
        shape = make_node().name("t").capacity(cpu="4", memory="8Gi", pods="110").label(ZONE, z).obj()
        templates.append(NodeTemplate(f"t-{z[-1]}", shape, price=1.0))
    return objs, templates, draw(st.booleans())


@PLANS
@given(dumps())
def test_plans_hold_on_generated_dumps(case: tuple[list[Any], list[NodeTemplate], bool]) -> None:
    """No crash; a verified plan overcommits no node (counted here from its own placements)
    and adds no fewer nodes than its lower bound;
    finished pods are listed, never placed, moved or counted in a node's utilisation; no node
    the plan adds is removed; a pod placed on a removed node moves elsewhere."""
    objs, templates, scale_down = case
    r = plan(objs, templates, config=CONFIG, scale_down=scale_down)
    up = r.scale_up
    assert up is not None
    pods = [o for o in objs if isinstance(o, Pod)]
    finished = {p.key for p in pods if p.is_terminal}
    assert set(r.finished) == finished
    assert not finished & set(up.placements)
    assert not finished & set(r.pending)
    nodes = {n.name: n for n in objs if isinstance(n, Node)}
    new = set(up.new_nodes)
    by_template = {t.name: t for t in templates}
    for name in new:
        nodes[name] = by_template[name.rsplit("-", 1)[0]].new_node(name)
    agent = next((o for o in objs if isinstance(o, DaemonSet)), None)
    cpu: dict[str, int] = defaultdict(int)
    mem: dict[str, int] = defaultdict(int)
    for p in pods:
        if p.node_name and not p.is_terminal and p.key not in up.preempted:
            cpu[p.node_name] += p.requests.milli_cpu
            mem[p.node_name] += p.requests.memory
    by_key = {p.key: p for p in pods}
    for k, n in up.placements.items():
        cpu[n] += by_key[k].requests.milli_cpu
        mem[n] += by_key[k].requests.memory
    if agent is not None and agent.template is not None:
        sel = agent.template.node_selector
        for name in new:
            if all(nodes[name].labels.get(a) == b for a, b in sel.items()):
                cpu[name] += agent.template.requests.milli_cpu
    if up.verified:  # the bound is a bound: no verified plan goes below it
        assert up.node_count >= up.lower_bound
        assert up.cost is not None
        assert up.cost_lower_bound is not None
        assert up.cost >= up.cost_lower_bound - 1e-9
        for name, used in cpu.items():
            assert used <= nodes[name].allocatable_resources.milli_cpu, (name, used, up.placements)
    down = r.scale_down
    if down is None:
        return
    assert not new & set(down.removable)
    assert not finished & set(down.moves)
    for name, share in down.utilisation.items():
        if name in new:
            continue
        alloc = nodes[name].allocatable_resources
        want = max(cpu[name] / alloc.milli_cpu, mem[name] / alloc.memory)
        assert abs(share - want) < 1e-3, (name, share, want)
    gone = set(down.removable)
    if down.verified:
        for k, n in up.placements.items():
            if n in gone:
                assert k in down.moves, (k, n)
                assert down.moves[k] not in gone
