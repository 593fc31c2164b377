"""Capacity planning benchmark: resource-only pending pods against node templates.

Reports, per run, the nodes planned against the LP lower bound (max over resources of the total
request over the template's allocatable, for the template mix chosen), the gap, the planning
time (CPU seconds) and whether the plan passed its simulation check; and, side by side, a
straightforward first-fit-decreasing estimator as Cluster Autoscaler's binpacking estimator
describes it (each pod, largest first, tried on every new node in order with the real Filter,
else a new node) for one template.

    python benchmarks/plan.py                   # 2,000 pods, 10 templates
    python benchmarks/plan.py --pods 20000      # the issue's size
    python benchmarks/plan.py --pods 20000 --naive-only   # only the straightforward FFD
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time

from schedframe import Node, Pod
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.cycle_state import CycleState
from schedframe.plan import NodeTemplate, plan
from schedframe.testing import make_node, make_pod


def workload(pods: int, templates: int, seed: int = 0) -> tuple[list[Node], list[Pod], list[NodeTemplate]]:
    rng = random.Random(seed)
    cluster = [make_node().name("seed-0").capacity(cpu="1", memory="1Gi", pods="110").obj()]
    sizes = [(250, 512), (500, 1024), (1000, 2048), (2000, 4096), (1500, 6144), (750, 3072)]
    out = []
    for i in range(pods):
        cpu, mem = rng.choice(sizes)
        out.append(make_pod().name(f"p{i}").req(cpu=f"{cpu}m", memory=f"{mem}Mi").obj())
    tmpl = []
    for j in range(templates):
        cpu = 4 * (1 + j % 4)
        mem = cpu * (4 if j % 2 else 8)
        node = make_node().name("t").capacity(cpu=str(cpu), memory=f"{mem}Gi", pods="110").obj()
        tmpl.append(NodeTemplate(f"t{j}", node, price=round(cpu * 0.05 + mem * 0.005, 3)))
    return cluster, out, tmpl


def lp_bound(pods: list[Pod], t: NodeTemplate) -> int:
    a = t.node.allocatable_resources
    cpu = sum(p.requests.milli_cpu for p in pods)
    mem = sum(p.requests.memory for p in pods)
    return max(math.ceil(cpu / a.milli_cpu), math.ceil(mem / a.memory), math.ceil(len(pods) / a.pods))


def naive_ffd(pods: list[Pod], t: NodeTemplate) -> int:
    """Cluster Autoscaler's estimator, straightforwardly: the real Filter of the default
    profile on every new node, first fit, pods largest first."""
    from schedframe.config.configuration import SchedulerConfiguration
    from schedframe.framework.runtime import Framework
    from schedframe.plugins import in_tree_registry

    reg = in_tree_registry()
    cfg = SchedulerConfiguration.default(registry=reg)
    fw = Framework(reg, cfg.profiles[0])
    infos: list[NodeInfo] = []
    for p in sorted(pods, key=lambda p: (-p.requests.milli_cpu, -p.requests.memory)):
        state = CycleState()
        fw.run_pre_filter_plugins(state, p)
        for info in infos:
            if fw.run_filter_plugins(state, p, info).is_success():
                info.add_pod(p.evolve(node_name=info.node.name))
                break
        else:
            info = NodeInfo(t.new_node(f"n{len(infos)}"))
            info.add_pod(p.evolve(node_name=info.node.name))
            infos.append(info)
    return len(infos)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--templates", type=int, default=10)
    ap.add_argument("--strategy", default="least-waste")
    ap.add_argument("--naive", action="store_true", help="also time the straightforward FFD (one template)")
    ap.add_argument("--naive-only", action="store_true", help="time only the straightforward FFD")
    ap.add_argument("--recheck", action="store_true", help="simulate the plan a second time as well")
    a = ap.parse_args()
    cluster, pods, tmpl = workload(a.pods, a.templates)
    if a.naive_only:
        c0 = time.process_time()
        n = naive_ffd(pods, tmpl[0])
        print(json.dumps({"pods": a.pods, "naive_ffd": {
            "template": tmpl[0].name, "nodes": n, "lp_bound": lp_bound(pods, tmpl[0]),
            "cpu_seconds": round(time.process_time() - c0, 2)}}))
        return
    c0 = time.process_time()
    r = plan([*cluster, *pods], tmpl, strategy=a.strategy, **({"recheck": True} if a.recheck else {}))
    cpu = time.process_time() - c0
    up = r.scale_up
    assert up is not None
    by_name = {t.name: t for t in tmpl}
    # the LP bound of the mix: each template's share of the pods placed on its nodes
    on: dict[str, list[Pod]] = {}
    by_key = {p.key: p for p in pods}
    for k, n in up.placements.items():
        t = n.rsplit("-", 1)[0]
        if t in by_name:
            on.setdefault(t, []).append(by_key[k])
    bound = sum(lp_bound(ps, by_name[t]) for t, ps in on.items())
    rec = {"pods": a.pods, "templates": a.templates, "strategy": a.strategy, "nodes": up.node_count,
           "lp_bound": bound, "gap": round(up.node_count / bound - 1, 4) if bound else None,
           "cpu_seconds": round(cpu, 2), "verified": r.verified, "simulations": up.simulations,
           "nodes_to_add": dict(up.nodes_to_add)}
    if a.naive:
        t = tmpl[0]
        c0 = time.process_time()
        n = naive_ffd(pods, t)
        rec["naive_ffd"] = {"template": t.name, "nodes": n, "lp_bound": lp_bound(pods, t),
                            "cpu_seconds": round(time.process_time() - c0, 2)}
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
