"""The case file of a side-by-side run with Go kube-scheduler (:mod:`schedframe.bench._against`),
written by the schedframe run in its own process."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..api._dump import object_to_manifest
from ..api.objects import Pod
from ..scheduler.scheduler import Scheduler
from ._model import BenchWorkload

__all__ = ["write_case", "write_placements"]




def write_case(sched: Scheduler, workload: BenchWorkload, measured: Sequence[Pod], path: str) -> None:
    """The oracle's case of *workload* as *sched* holds it now (its initial pods placed): the
    objects, the nodes, the bound pods, then *measured* pending, as a ``List`` JSON file."""
    items: list[dict[str, Any]] = [object_to_manifest(o) for o in workload.build_objects()]  # type: ignore[arg-type]
    items += [object_to_manifest(n) for n in sched.nodes()]
    items += [object_to_manifest(p) for p in sched.pods() if p.node_name]
    for pod in measured:
        manifest = object_to_manifest(pod)
        manifest.get("spec", {}).pop("nodeName", None)
        manifest.pop("status", None)
        items.append(manifest)
    case = {"apiVersion": "v1", "kind": "List",
            "metadata": {"annotations": {"oracle.schedframe.io/source": f"bench {workload.name}"}},
            "items": items}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(case, f, separators=(",", ":"))


def write_placements(sched: Scheduler, measured: Sequence[Pod], path: str) -> None:
    """``{pod key: node}`` of the measured pods *sched* bound, as JSON."""
    bindings = sched.bindings()
    keys = {p.key for p in measured}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in bindings.items() if k in keys}, f)
