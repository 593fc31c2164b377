"""A full default-profile run over a realistic cluster, every placement checked against the rules.

The checks below re-derive each rule from the api objects directly (not through the plugins), so a
plugin bug that places a pod where kube-scheduler's rules forbid it fails here.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from schedframe import Node, Pod, Scheduler
from schedframe.testing import make_node, make_pod, selector

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _cluster(rng: random.Random) -> list[Node]:
    nodes = []
    for i in range(24):
        zone = f"zone-{'abc'[i % 3]}"
        cpu, memory = str(rng.choice([2, 4, 8])), f"{rng.choice([8, 16])}Gi"
        b = (make_node(f"n{i:02d}").capacity(cpu=cpu, memory=memory, pods=rng.choice([10, 110]))
             .label(ZONE, zone).label(HOST, f"n{i:02d}")
             .label("disk", "ssd" if i % 4 == 0 else "hdd"))
        if i % 6 == 5:
            b = b.taint("dedicated", "gpu", "NoSchedule")
        if i % 11 == 10:
            b = b.taint("maintenance", "", "NoExecute")
        nodes.append(b.obj())
    return nodes


def _pods(rng: random.Random) -> list[Pod]:
    pods: list[Pod] = []
    for i in range(40):  # plain pods of varied sizes
        pods.append(make_pod(f"plain-{i}").req(cpu=f"{rng.choice([100, 250, 500, 1000])}m",
                                               memory=f"{rng.choice([128, 512, 1024])}Mi").obj())
    for i in range(12):  # spread evenly across zones
        pods.append(make_pod(f"web-{i}").label("app", "web").req(cpu="200m", memory="256Mi")
                    .spread_constraint(1, ZONE, "DoNotSchedule", selector({"app": "web"})).obj())
    for i in range(6):  # one per host
        pods.append(make_pod(f"db-{i}").label("app", "db").req(cpu="500m", memory="1Gi")
                    .pod_anti_affinity(HOST, selector({"app": "db"})).obj())
    for i in range(6):  # with the db pods' zone... any zone that has a db pod
        pods.append(make_pod(f"cache-{i}").label("app", "cache").req(cpu="100m", memory="128Mi")
                    .pod_affinity(ZONE, selector({"app": "db"})).obj())
    for i in range(6):  # ssd only
        pods.append(make_pod(f"ssd-{i}").req(cpu="250m").node_selector({"disk": "ssd"}).obj())
    for i in range(4):  # gpu nodes allowed
        pods.append(make_pod(f"gpu-{i}").req(cpu="500m")
                    .toleration("dedicated", "gpu", "NoSchedule").node_affinity_in("disk", ["hdd"]).obj())
    pods.append(make_pod("impossible").req(cpu="100").obj())
    rng.shuffle(pods)
    return pods


def _tolerated(pod: Pod, node: Node) -> bool:
    return all(any(t.tolerates(taint) for t in pod.tolerations)
               for taint in node.taints if taint.effect in ("NoSchedule", "NoExecute"))


def _matches_node_affinity(pod: Pod, node: Node) -> bool:
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    aff = pod.affinity.node_affinity if pod.affinity else None
    return aff is None or aff.required is None or aff.required.matches(node.name, node.labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_placement_obeys_the_rules(seed):
    """Resources, taints, node affinity, spread skew and pod (anti-)affinity hold for every pod."""
    rng = random.Random(seed)
    nodes = {n.name: n for n in _cluster(rng)}
    pods = _pods(rng)
    sched = Scheduler(seed=seed)
    for n in nodes.values():
        sched.add_node(n)
    for p in pods:
        sched.add_pod(p)
    sched.run_until_idle()

    placed = {p.name: sched.node_of(p) for p in pods}
    by_node: dict[str, list[Pod]] = defaultdict(list)
    for p in pods:
        if placed[p.name]:
            by_node[placed[p.name]].append(p)

    # resources and pod counts
    for name, on_node in by_node.items():
        alloc = nodes[name].allocatable_resources
        assert sum(p.requests.milli_cpu for p in on_node) <= alloc.milli_cpu, name
        assert sum(p.requests.memory for p in on_node) <= alloc.memory, name
        assert len(on_node) <= alloc.pods, name
    for p in pods:
        node_name = placed[p.name]
        if node_name is None:
            continue
        node = nodes[node_name]
        assert _tolerated(p, node), (p.name, node_name)
        assert _matches_node_affinity(p, node), (p.name, node_name)

    # topology spread: web pods' zone skew <= 1 among zones with eligible nodes
    web_zones = Counter(nodes[placed[p.name]].labels[ZONE] for p in pods
                        if p.name.startswith("web-") and placed[p.name])
    counts = [web_zones.get(z, 0) for z in ("zone-a", "zone-b", "zone-c")]
    assert max(counts) - min(counts) <= 1, web_zones

    # anti-affinity: at most one db pod per host
    db_hosts = [placed[p.name] for p in pods if p.name.startswith("db-") and placed[p.name]]
    assert len(db_hosts) == len(set(db_hosts))

    # affinity: every cache pod in a zone holding a db pod
    db_zones = {nodes[h].labels[ZONE] for h in db_hosts}
    for p in pods:
        if p.name.startswith("cache-") and placed[p.name]:
            assert nodes[placed[p.name]].labels[ZONE] in db_zones

    # the impossible pod stays pending with the upstream-format message
    pending = {rec.pod.name: rec for rec in sched.pending()}
    assert "impossible" in pending
    assert pending["impossible"].message.startswith(f"0/{len(nodes)} nodes are available:")
    assert "Insufficient cpu" in pending["impossible"].message
    # every pod is accounted for: bound or pending with a reason
    assert {p.name for p in pods} == {n for n, v in placed.items() if v} | set(pending)
    assert all(rec.message for rec in pending.values())


def test_same_seed_same_placements():
    """Two runs with the same inputs and seed place every pod identically."""
    def run() -> dict[str, str | None]:
        rng = random.Random(7)
        nodes, pods = _cluster(rng), _pods(rng)
        sched = Scheduler(seed=7)
        for n in nodes:
            sched.add_node(n)
        for p in pods:
            sched.add_pod(p)
        sched.run_until_idle()
        return {p.name: sched.node_of(p) for p in pods}

    assert run() == run()
