"""Issue #43, property: over generated dumps holding finished pods, a DaemonSet and zone-spread
pending pods, with node removals, drains and additions, ``simulate`` never crashes, never
overcommits a node, never counts a finished pod as running (nor on a node), and leaves no
DaemonSet pod pending for a node that is gone."""

from __future__ import annotations

import re
import warnings
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import Node, Pod, SchedframeWarning, load_manifests
from schedframe.sim import FAILED, PENDING, RUNNING, SUCCEEDED, NodeEvent, Scenario, simulate
from schedframe.testing import make_node

_ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: str, cpu: int) -> dict[str, Any]:
    alloc = {"cpu": str(cpu), "memory": f"{cpu * 2}Gi", "pods": "20"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, _ZONE: zone}},
            "status": {"allocatable": alloc, "capacity": alloc}}


def _pod(name: str, milli: int, *, node: str = "", phase: str = "", owner: tuple[str, str] | None = None,
         labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels or {}}
    if owner is not None:
        kind, owner_name = owner
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name,
                                    "uid": f"{owner_name}-uid", "controller": True}]
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {
        "requests": {"cpu": f"{milli}m", "memory": f"{milli}Mi"}}}], **spec}
    if node:
        body["nodeName"] = node
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
    if phase:
        out["status"] = {"phase": phase}
    return out


@st.composite
def dumps(draw: st.DrawFn) -> tuple[Scenario, frozenset[str]]:
    """A dump and events; also the keys of the dump's finished pods."""
    n = draw(st.integers(2, 5))
    zones = draw(st.integers(1, 3))
    cpus = [draw(st.integers(2, 6)) for _ in range(n)]
    names = [f"n{i}" for i in range(n)]
    items = [_node(nm, f"z{i % zones}", c) for i, (nm, c) in enumerate(zip(names, cpus, strict=True))]
    free = {nm: c * 1000 for nm, c in zip(names, cpus)}
    ds_nodes = draw(st.lists(st.sampled_from(names), unique=True))
    items.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                  "metadata": {"name": "ds", "namespace": "default", "uid": "ds-uid"},
                  "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": {
                      "metadata": {"labels": {"app": "ds"}},
                      "spec": {"containers": [{"name": "c", "image": "x",
                                               "resources": {"requests": {"cpu": "100m"}}}]}}}})
    for i, nm in enumerate(ds_nodes):
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [nm]}]}]}}}
        items.append(_pod(f"ds-{i:05d}", 100, node=nm, phase="Running", owner=("DaemonSet", "ds"),
                          labels={"app": "ds"}, affinity=affinity))
        free[nm] -= 100
    finished: set[str] = set()
    for i in range(draw(st.integers(0, 4))):  # finished pods, as large as their node
        nm = draw(st.sampled_from(names))
        phase = draw(st.sampled_from(["Succeeded", "Failed"]))
        items.append(_pod(f"done-{i}", cpus[names.index(nm)] * 1000, node=nm, phase=phase,
                          owner=("Job", f"job-{i}")))
        finished.add(f"default/done-{i}")
    for i in range(draw(st.integers(0, 4))):  # running pods that fit where they are
        nm = draw(st.sampled_from(names))
        milli = draw(st.integers(100, 1500))
        if milli <= free[nm] - 100:
            free[nm] -= milli
            items.append(_pod(f"run-{i}", milli, node=nm, phase="Running", owner=("ReplicaSet", "run")))
    spread = [{"maxSkew": 1, "topologyKey": _ZONE,
               "whenUnsatisfiable": draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    for i in range(draw(st.integers(0, 6))):  # pending pods spread over the zones
        items.append(_pod(f"web-{i}", draw(st.integers(100, 2000)), owner=("ReplicaSet", "web"),
                          labels={"app": "web"}, topologySpreadConstraints=spread))
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchedframeWarning)
        objs = load_manifests(text)
    nodes = [o for o in objs if isinstance(o, Node)]
    pods = [o for o in objs if isinstance(o, Pod)]
    others = [o for o in objs if not isinstance(o, (Node, Pod))]
    events: list[NodeEvent] = []
    alive = list(names)
    t = 0.0
    for _ in range(draw(st.integers(0, 3))):
        t += draw(st.integers(1, 20))
        action = draw(st.sampled_from(["remove", "drain", "add"]))
        if action == "add":
            new = f"x{len(events)}"
            events.append(NodeEvent(t, "add", node=make_node(new).capacity(cpu="4", memory="8Gi", pods=20)
                                    .label("kubernetes.io/hostname", new).label(_ZONE, "z0").obj()))
            alive.append(new)
        elif len(alive) > 1:
            victim = draw(st.sampled_from(alive))
            events.append(NodeEvent(t, action, (victim,)))
            if action == "remove":
                alive.remove(victim)
    scenario = Scenario("gen", nodes=nodes, pods=pods, objects=others, events=events, until=t + 30)
    return scenario, frozenset(finished)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dumps())
def test_simulate_keeps_its_books_on_generated_dumps(case: tuple[Scenario, frozenset[str]]) -> None:
    """No crash, no overcommitted node, finished pods never running nor on a node's requests,
    and no DaemonSet pod left pending (a removed node's DaemonSet pod is not recreated)."""
    scenario, finished = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchedframeWarning)
        r = simulate(scenario)
    nodes = {n.name: n for n in scenario.nodes}
    nodes.update((e.node.name, e.node) for e in scenario.events if e.node is not None)
    for series in r.nodes:  # a removed node's series has no allocatable any more: take the node's
        alloc = nodes[series.node].allocatable_resources
        caps = {"cpu": alloc.milli_cpu, "memory": alloc.memory, "pods": alloc.pods}
        for res, cap in caps.items():
            assert max(series.requested.get(res, (0,)), default=0) <= cap, (series.node, res)
    states = {p.key: p.state for p in r.pods}
    for key in finished:
        assert states[key] in (SUCCEEDED, FAILED)
    assert r.metrics.running == sum(1 for p in r.pods if p.state == RUNNING)
    assert all(s.running <= r.metrics.pods + len(scenario.pods) - len(finished) for s in r.samples)
    # a node's series starts with the node (nothing requested), then one step per starting pod
    # bound to it, before anything is scheduled: the finished pods take no step
    started: dict[str, list[Pod]] = {}
    for p in scenario.pods:
        if p.node_name and not p.is_terminal:
            started.setdefault(p.node_name, []).append(p)
    for series in r.nodes:
        mine = started.get(series.node, [])
        assert series.requested["pods"][len(mine)] == len(mine), series.node
        assert series.requested["cpu"][len(mine)] == sum(p.requests.milli_cpu for p in mine), series.node
    # a DaemonSet pod may wait for room on its node, never for a node that is gone (every node
    # then fails its NodeAffinity)
    stuck = [p.key for p in r.pods if p.state == PENDING and p.key.startswith("default/ds-")
             and _for_no_node(p.message)]
    assert not stuck, [(k, r.pod(k).message) for k in stuck]


def _for_no_node(message: str) -> bool:
    m = re.match(r"0/(\d+) nodes are available: (\d+) node\(s\) didn't satisfy plugin\(s\) \[NodeAffinity\]",
                 message)
    return m is not None and m.group(1) == m.group(2)
