"""What-if benchmark: ClusterSnapshot queries and a consolidation (scale-down) plan on clusters of
the bench's mixed node shapes, beside the anchors.

Per cluster size: CPU time to build the snapshot; per query (``can_schedule`` of a mixed pod,
the first time and asked again, ``fill`` of a small template up to 50 copies, ``drain`` of one
node in a fork); the same one-node drain question answered the way it was before snapshots (a
Scheduler built for the cluster, the node's pods moved, everything put back); and a full
scale-down plan
(``schedframe.plan.plan(..., scale_down=True)``, simulation check included), with its removable
nodes against a lower bound (the nodes the requests need at all, by CPU and memory).

Anchors: Cluster Autoscaler takes about 30 s to simulate the scale-down of ~1,000 non-empty
nodes; Karpenter about 900 ms per scheduling simulation.

    python benchmarks/consolidation.py                    # 1,000 nodes
    python benchmarks/consolidation.py --nodes 1000 5000 10000 --json
    python benchmarks/consolidation.py --nodes 1000 --no-plan
    SCHEDFRAME_OPENB=../shared/openb python benchmarks/consolidation.py --shapes openb --nodes 10000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from schedframe import Scheduler
from schedframe.api.objects import Node, OwnerReference, Pod
from schedframe.bench._realistic import _mixed_node, _mixed_pod, _openb_node_make, _openb_pod_make
from schedframe.plan import plan


def cluster(nodes: int, seed: int = 0, shapes: str = "mixed") -> tuple[list[Node], list[Pod]]:
    """*nodes* nodes of the bench's mixed shapes (or, with *shapes* ``openb``, of the openb
    trace's node sizes, largest first), each filled first-fit to a random 5-85 % of its CPU
    with the bench's mixed pods (or the trace's pod sizes; owned by a ReplicaSet, so they may
    move), no node overcommitted."""
    rng = random.Random(seed)
    if shapes == "openb":
        ns = [_openb_node_make(i) for i in range(nodes)]
        make = _openb_pod_make
    else:
        ns = [_mixed_node(i) for i in range(nodes)]
        make = _mixed_pod("run")
    owner = (OwnerReference(kind="ReplicaSet", name="rs", uid="rs-uid", api_version="apps/v1",
                            controller=True),)
    pods: list[Pod] = []
    i = 0
    for n in ns:
        if n.taints:
            continue
        alloc = n.allocatable_resources
        target = alloc.milli_cpu * rng.uniform(0.05, 0.85)
        cpu = mem = count = 0
        for _ in range(40):
            p = make(i)
            i += 1
            r = p.requests
            if (cpu + r.milli_cpu > target or mem + r.memory > alloc.memory * 0.85
                    or count + 1 > alloc.pods):
                continue
            if p.affinity is not None or p.topology_spread_constraints or p.node_selector:
                continue  # plain pods: any node with room may take them
            cpu, mem, count = cpu + r.milli_cpu, mem + r.memory, count + 1
            pods.append(p.evolve(node_name=n.name, owner_references=owner))
    return ns, pods


def _cpu(fn: Any) -> tuple[float, Any]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def bench(n: int, *, with_plan: bool, queries: int, seed: int, shapes: str = "mixed") -> dict[str, Any]:
    from schedframe import ClusterSnapshot

    nodes, pods = cluster(n, seed, shapes)
    row: dict[str, Any] = {"nodes": n, "pods": len(pods), "shapes": shapes}
    build, snap = _cpu(lambda: ClusterSnapshot(nodes=nodes, pods=pods, seed=seed))
    row["build_s"] = round(build, 3)

    probe = (lambda i: _openb_pod_make(200_000 + i)) if shapes == "openb" else _mixed_pod("probe")
    asks = [probe(i) for i in range(queries)]
    t, _ = _cpu(lambda: [snap.can_schedule(p) for p in asks])
    row["can_schedule_ms"] = round(1000 * t / queries, 3)
    # asked again: the counts a shape's first question builds (its spread and affinity terms
    # over every node) are kept while the snapshot does not change
    t, _ = _cpu(lambda: [snap.can_schedule(p) for p in asks])
    row["can_schedule_again_ms"] = round(1000 * t / queries, 3)

    small = probe(10_000).evolve(affinity=None, topology_spread_constraints=(), node_selector={})

    def fill() -> int:
        with snap.fork():
            return snap.fill(small, max_pods=50).count

    t, copies = _cpu(fill)
    row["fill_50_ms"] = round(1000 * t, 2)
    row["fill_copies"] = copies

    by_util = sorted((snap.utilisation(x.name), x.name) for x in nodes if not x.taints)
    candidates = [name for _, name in by_util[:queries]]

    def drains() -> int:
        ok = 0
        for name in candidates:
            with snap.fork():
                ok += snap.drain(name).ok
        return ok

    t, ok = _cpu(drains)
    row["drain_ms"] = round(1000 * t / len(candidates), 2)
    row["drains_ok"] = f"{ok}/{len(candidates)}"

    def before(name: str) -> bool:
        s = Scheduler(objects=[*nodes, *pods], seed=seed)
        here = [p for p in pods if p.node_name == name]
        for p in here:
            s.remove_pod(p)
        s.remove_node(name)
        fresh = [p.evolve(node_name="") for p in here]
        for p in fresh:
            s.add_pod(p)
        s.run_until_idle()
        placed = all(s.node_of(p) for p in fresh)
        for p in fresh:
            s.remove_pod(p)
        return placed

    few = candidates[:3]
    t, _ = _cpu(lambda: [before(name) for name in few])
    row["drain_before_ms"] = round(1000 * t / len(few), 1)
    row["drain_speedup"] = round(row["drain_before_ms"] / max(row["drain_ms"], 1e-9), 1)

    if with_plan:
        t, result = _cpu(lambda: plan([*nodes, *pods], scale_up=False, scale_down=True, seed=seed))
        down = result.scale_down
        cpu_need = sum(p.requests.milli_cpu for p in pods)
        mem_need = sum(p.requests.memory for p in pods)
        # the fewest nodes, largest first, whose allocatable covers every request
        caps = sorted(((x.allocatable_resources.milli_cpu, x.allocatable_resources.memory)
                       for x in nodes if not x.taints), reverse=True)
        keep = 0
        c = m = 0
        for cc, mm in caps:
            if c >= cpu_need and m >= mem_need:
                break
            c, m, keep = c + cc, m + mm, keep + 1
        row["plan_s"] = round(t, 2)
        row["plan_removed"] = len(down.removable) if down else 0
        row["plan_removable_bound"] = len(caps) - keep
        row["plan_verified"] = bool(down and down.verified)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", default=[1000])
    ap.add_argument("--queries", type=int, default=20, help="queries averaged per kind (default 20)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-plan", action="store_true", help="skip the full scale-down plan")
    ap.add_argument("--shapes", choices=("mixed", "openb"), default="mixed",
                    help="node and pod sizes: the bench's mixed shapes (default) or the openb "
                         "trace's (read from $SCHEDFRAME_OPENB)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = [bench(n, with_plan=not args.no_plan, queries=args.queries, seed=args.seed, shapes=args.shapes)
            for n in args.nodes]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(f"{r['nodes']:,} nodes, {r['pods']:,} pods ({r['shapes']} shapes): snapshot built in "
              f"{r['build_s']} s CPU")
        print(f"  can_schedule        {r['can_schedule_ms']:>9} ms CPU per query "
              f"({r['can_schedule_again_ms']} ms asked again)")
        print(f"  fill (<= 50 copies) {r['fill_50_ms']:>9} ms CPU ({r['fill_copies']} placed)")
        print(f"  drain one node      {r['drain_ms']:>9} ms CPU in a fork ({r['drains_ok']} drainable)")
        print(f"    before snapshots  {r['drain_before_ms']:>9} ms CPU (a Scheduler built per question): "
              f"{r['drain_speedup']}x")
        if "plan_s" in r:
            print(f"  scale-down plan     {r['plan_s']:>9} s CPU: {r['plan_removed']} nodes removable "
                  f"(bound {r['plan_removable_bound']}), verified {r['plan_verified']}")
        here = (f" ({r['plan_s'] * 1000 / max(r['nodes'], 1):.1f} ms per node here)"
                if "plan_s" in r else "")
        print(f"  anchors: Cluster Autoscaler ~30 s per 1,000 nodes{here}; Karpenter ~900 ms per "
              "simulation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
