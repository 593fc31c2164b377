"""``python -m schedframe``: schedule a built-in example cluster and show where pods went.

Until the full command line lands, this runs a small, deterministic demo: a three-zone cluster
with a tainted GPU node, and a mix of pods (plain, spread across zones, tolerating the taint,
one too large to fit) scheduled with the default profile.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(seed: int) -> int:
    from . import Scheduler
    from .testing import make_node, make_pod, selector

    sched = Scheduler(seed=seed)
    for i in range(6):
        zone = "abc"[i % 3]
        b = (make_node(f"node-{i}").capacity(cpu="4", memory="16Gi", pods=110)
             .label("topology.kubernetes.io/zone", f"zone-{zone}")
             .label("kubernetes.io/hostname", f"node-{i}"))
        if i == 5:
            b = b.taint("nvidia.com/gpu", "present", "NoSchedule").capacity(**{"nvidia.com/gpu": 2})
        sched.add_node(b.obj())
    pods = []
    for i in range(6):
        pods.append(make_pod(f"web-{i}").label("app", "web").req(cpu="500m", memory="1Gi")
                    .spread_constraint(1, "topology.kubernetes.io/zone", "DoNotSchedule",
                                       selector({"app": "web"})).obj())
    pods.append(make_pod("train-0").req(cpu="2", memory="4Gi", **{"nvidia.com/gpu": 1})
                .toleration("nvidia.com/gpu", operator="Exists", effect="NoSchedule").obj())
    pods.append(make_pod("batch-0").req(cpu="1", memory="2Gi").obj())
    pods.append(make_pod("huge-0").req(cpu="64", memory="1Ti").obj())
    for p in pods:
        sched.add_pod(p)
    summary = sched.run_until_idle()
    width = max(len(p.name) for p in pods)
    print(f"{'POD':<{width}}  NODE")
    for p in pods:
        print(f"{p.name:<{width}}  {sched.node_of(p) or '<pending>'}")
    for rec in sched.pending():
        print(f"\n{rec.pod.name}: {rec.message}")
    print(f"\nscheduled {summary.scheduled}, pending {len(sched.pending())}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m schedframe`` / ``schedframe``."""
    parser = argparse.ArgumentParser(prog="schedframe", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="schedule the built-in example cluster (the default)")
    demo.add_argument("--seed", type=int, default=0, help="tie-breaking seed (default 0)")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        return _demo(getattr(args, "seed", 0))
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
