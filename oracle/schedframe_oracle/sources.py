"""Cases the generator does not make: schedframe's benchmark workloads scaled down, and the
built-in simulator scenarios' clusters with their pods in arrival order (docs/fidelity.rst).

Each is a List manifest (a dict) as :func:`schedframe_oracle.cases.generate` returns. A
benchmark case holds the workload's nodes and other objects, its initial pods and then its
measured pods, all pending (both sides schedule them, in that order). A scenario case holds the
starting cluster of the scenario and every pod its workloads create, pending in arrival order,
once per configuration of the scenario; what happens in time (run times, scaling, drains) is the
simulator's and not part of the case.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["BENCH_WORKLOADS", "SCENARIOS", "bench_case", "scenario_cases"]

#: benchmark workloads with a case (one of each kind; the Series are SchedulingBasic's shapes)
BENCH_WORKLOADS: Final = (
    "SchedulingBasic/5000Nodes_10000Pods",
    "SchedulingDaemonset/15000Nodes",
    "SchedulingNodeAffinity/5000Nodes_10000Pods",
    "SchedulingPodAntiAffinity/5000Nodes_2000Pods",
    "SchedulingPodAffinity/5000Nodes_5000Pods",
    "SchedulingPreferredPodAffinity/5000Nodes_5000Pods",
    "SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods",
    "TopologySpreading/5000Nodes_5000Pods",
    "PreferredTopologySpreading/5000Nodes_5000Pods",
    "MixedSchedulingBasePod/5000Nodes_5000Pods",
    "Unschedulable/5kNodes/100Init/10kPods",
    "PreemptionBasic/1000Nodes",
    "UniformShapes/5000Nodes_5000Pods",
    "MixedShapes/5000Nodes_5000Pods",
    "DefaultSpread/5000Nodes_5000Pods",
    "SkippyComparison/5000Nodes_3000Pods",
)

#: built-in scenarios with cases (``gang`` runs Coscheduling, a plugin of scheduler-plugins that
#: the real kube-scheduler does not have)
SCENARIOS: Final = ("three-zones", "batch-burst", "drain-preemption")

_NODES: Final = 24
_PODS: Final = 60


def _list(items: list[dict[str, Any]], note: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"annotations": {"oracle.schedframe.io/source": note}},
        "items": items,
    }


def bench_case(name: str, *, nodes: int = _NODES, pods: int = _PODS) -> dict[str, Any]:
    """The benchmark workload *name* scaled to about *nodes* nodes, with its initial and
    measured pods (at most *pods* in all, in proportion) pending."""
    from schedframe.api._dump import object_to_manifest
    from schedframe.bench import get_workload

    full = get_workload(name)
    w = full.scaled(min(1.0, nodes / full.node_count))
    total = w.initial_count + w.measured_count
    keep = min(1.0, pods / total) if total else 1.0
    items = [_with_template(object_to_manifest(o)) for o in w.build_objects()]  # type: ignore[arg-type]
    items += [object_to_manifest(n) for n in w.build_nodes()]
    for groups in (w.initial, w.measured):
        for g in groups:
            for i in range(max(1, round(g.count * keep)) if g.count else 0):
                items.append(_pending(object_to_manifest(g.make(i))))
    return _list(items, f"bench {name} at {len(w.build_nodes())} nodes")


def _with_template(manifest: dict[str, Any]) -> dict[str, Any]:
    """A benchmark's ReplicaSet (only its selector matters to the scheduler) with the pod
    template a ReplicaSet manifest must have."""
    if manifest.get("kind") == "ReplicaSet" and "template" not in manifest.get("spec", {}):
        labels = ((manifest["spec"].get("selector") or {}).get("matchLabels")) or {}
        manifest["spec"]["template"] = {
            "metadata": {"labels": dict(labels)},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]},
        }
    return manifest


def _pending(manifest: dict[str, Any]) -> dict[str, Any]:
    manifest.get("spec", {}).pop("nodeName", None)
    manifest.pop("status", None)
    return manifest


def scenario_cases(name: str, *, seed: int = 0, pods: int = 150) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(configuration name, case)`` for each configuration of the built-in scenario *name*
    (upstream's default when it names none), with its first *pods* arrivals."""
    from schedframe.api._dump import object_to_manifest
    from schedframe.sim import BUILTIN_SCENARIOS, builtin_scenario
    from schedframe.sim.scenario import pod_from_template

    scenario = builtin_scenario(name)
    plan = scenario.plan(seed)
    workloads = {w.name: w for w in plan.workloads}
    items = [object_to_manifest(o) for o in plan.objects]
    items += [object_to_manifest(n) for n in plan.nodes]
    items += [object_to_manifest(p) for p in plan.pods]
    arrivals = [a for a in plan.timeline if a.op in ("arrive", "pod")][:pods]
    for a in arrivals:
        if a.op == "arrive":
            items.append(_pending(object_to_manifest(pod_from_template(workloads[a.workload], a.name, a.at))))
        elif a.op == "pod" and a.pod is not None:
            items.append(_pending(object_to_manifest(a.pod)))
    # the configurations as the scenario writes them (not as one release defaulted them)
    configs: list[Mapping[str, Any]] = list(BUILTIN_SCENARIOS[name]().get("configs") or ())
    default: Mapping[str, Any] = {"name": "default"}
    for spec in configs or (default,):
        doc: Mapping[str, Any] | None = spec.get("config")
        case = _list(list(items), f"scenario {name} ({spec['name']})")
        if doc is not None:
            case["items"].append(dict(doc))
        yield str(spec["name"]), case
