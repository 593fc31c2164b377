"""Side by side with skippy-core (PyPI ``edgerun-skippy-core``, module ``skippy``).

skippy-core 0.1.1 is the one installable pure-Python scheduler in the kube-scheduler mould (a
predicates/priorities design: no queue, Reserve, Permit or Bind). The comparison gives both the
same seeded work, in one process, back to back:

* 5,000 nodes of 32 CPU / 128 Gi; 3,000 pods with CPU in {250m, 500m, 1, 2, 4} and memory in
  {256Mi ... 8Gi} (:func:`~schedframe.bench._realistic.skippy_pod_size`);
* skippy: its resource-fit predicate and a least-allocated priority written in skippy's own
  style (skippy ships only a balanced-resource one), with the adaptive percentage of nodes to
  score (``percentage_of_nodes_to_score=0``);
* schedframe: a NodeResourcesFit-only profile (plus PrioritySort and DefaultBinder, which every
  profile needs) and the full default profile, both with the adaptive percentage.

Reported: pods/s (wall) and pods per CPU second of each, and schedframe's ratios to skippy.
skippy is an optional benchmark dependency (the ``bench`` extra); without it the comparison
is skipped with a message.
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any, Final

from ..config.configuration import Profile, SchedulerConfiguration
from ._realistic import skippy_pod_size
from ._runner import WorkloadResult, run_workload
from ._workloads import BenchmarkError, get_workload

__all__ = ["COMPARISON", "skippy_available", "run_comparison", "run_skippy", "format_comparison"]

#: the schedframe side of the comparison
COMPARISON: Final = "SkippyComparison/5000Nodes_3000Pods"
_MIB: Final = 1024 * 1024


def skippy_available() -> str | None:
    """Why skippy cannot be compared with (not installed), or ``None``."""
    try:
        importlib.import_module("skippy.core.scheduler")
    except ImportError as exc:
        return (f"skippy-core is not installed ({exc}); install it with "
                "pip install 'schedframe[bench]' or pip install edgerun-skippy-core==0.1.1")
    return None


def _skippy_parts() -> tuple[Any, Any]:
    """skippy's scheduler, cluster context and pod builder, with a least-allocated priority."""
    from collections import defaultdict

    model = importlib.import_module("skippy.core.model")
    capacity, container_cls, image_state = model.Capacity, model.Container, model.ImageState
    node_cls, pod_cls, pod_spec = model.Node, model.Pod, model.PodSpec
    requirements = model.ResourceRequirements
    cluster_context: Any = importlib.import_module("skippy.core.clustercontext").ClusterContext
    fits_pred = importlib.import_module("skippy.core.predicates").PodFitsResourcesPred
    resource_priority: Any = importlib.import_module("skippy.core.priorities").ResourcePriority
    skippy_scheduler = importlib.import_module("skippy.core.scheduler").Scheduler

    class LeastAllocatedPriority(resource_priority):  # type: ignore[misc]
        """kube-scheduler's least-allocated score, 0-100, in skippy's style (allocatable is the
        node's remaining capacity in skippy)."""

        def map_node_score(self, context: Any, pod: Any, node: Any) -> int:
            cpu = mem = 0
            for container in pod.spec.containers:
                requests = container.resources.requests
                cpu += requests.get("cpu", container.resources.default_milli_cpu_request)
                mem += requests.get("memory", container.resources.default_mem_request)
            free, cap = node.allocatable, node.capacity
            score_cpu = (free.cpu_millis - cpu) * 100 // cap.cpu_millis if free.cpu_millis >= cpu else 0
            score_mem = (free.memory - mem) * 100 // cap.memory if free.memory >= mem else 0
            return int((score_cpu + score_mem) // 2)

    class Context(cluster_context):  # type: ignore[misc]
        def __init__(self, nodes: list[Any]) -> None:
            self._nodes = nodes
            super().__init__()

        def get_init_image_states(self) -> Any:
            return defaultdict(lambda: image_state(size={"amd64": 0}))

        def get_bandwidth_graph(self) -> Any:
            return {}

        def list_nodes(self) -> list[Any]:
            return self._nodes

        def get_next_storage_node(self, node: Any) -> str:
            return ""

    def make_scheduler(node_count: int) -> Any:
        nodes = [node_cls(f"node-{i}", capacity=capacity(32000, 128 * 1024 * _MIB),
                          allocatable=capacity(32000, 128 * 1024 * _MIB)) for i in range(node_count)]
        return skippy_scheduler(Context(nodes), percentage_of_nodes_to_score=0,
                                predicates=[fits_pred()],
                                priorities=[(1.0, LeastAllocatedPriority())])

    def make_pod(i: int) -> Any:
        cpu, mem = skippy_pod_size(i)
        requests = {"cpu": cpu, "memory": mem * _MIB}
        return pod_cls(f"pod-{i}", "default",
                       pod_spec(containers=[container_cls("registry.k8s.io/pause:3.10.1",
                                                          requirements(requests))]))

    return make_scheduler, make_pod


def run_skippy(nodes: int = 5000, pods: int = 3000) -> dict[str, Any]:
    """Schedule the comparison's pods with skippy; returns what was measured."""
    reason = skippy_available()
    if reason is not None:
        raise BenchmarkError(reason)
    make_scheduler, make_pod = _skippy_parts()
    scheduler = make_scheduler(nodes)
    work = [make_pod(i) for i in range(pods)]
    placed = 0
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    for pod in work:
        if scheduler.schedule(pod).suggested_host is not None:
            placed += 1
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - cpu0
    return {"scheduler": "skippy-core", "pods": pods, "nodes": nodes, "scheduled": placed,
            "seconds": round(seconds, 4), "cpu_seconds": round(cpu_seconds, 4),
            "pods_per_second": round(placed / seconds, 1) if seconds > 0 else None,
            "pods_per_cpu_second": round(placed / cpu_seconds, 1) if cpu_seconds > 0 else None}


def fit_only_config() -> SchedulerConfiguration:
    """A profile with only NodeResourcesFit (and the queue sort and binder every profile needs)."""
    return SchedulerConfiguration.from_profiles(
        Profile.from_plugins("PrioritySort", "NodeResourcesFit", "DefaultBinder", defaults=False))


def _ours(result: WorkloadResult, label: str) -> dict[str, Any]:
    return {"scheduler": label, "pods": result.measured_pods, "nodes": result.nodes,
            "scheduled": result.scheduled, "seconds": result.seconds, "cpu_seconds": result.cpu_seconds,
            "pods_per_second": result.pods_per_second, "pods_per_cpu_second": result.pods_per_cpu_second,
            "latency_p50_ms": result.latency_p50_ms, "latency_p99_ms": result.latency_p99_ms}


def run_comparison(*, scale: float = 1.0, repeat: int = 3,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run skippy, schedframe with NodeResourcesFit only and schedframe's default profile on the
    same work, *repeat* rounds, each round the three back to back in this process.

    Returns ``{"runs": [...], "summary": {label: medians}, "ratios": {...}}``: the ratios are
    schedframe's median over skippy's median, per wall second and per CPU second.
    """
    reason = skippy_available()
    if reason is not None:
        raise BenchmarkError(reason)
    if repeat < 1:
        raise BenchmarkError(f"repeat must be >= 1, got {repeat}")
    workload = get_workload(COMPARISON).scaled(scale)
    say = progress or (lambda _msg: None)
    runs: list[dict[str, Any]] = []
    fit_only = fit_only_config()
    for k in range(repeat):
        say(f"round {k + 1}/{repeat}: skippy-core")
        runs.append(run_skippy(workload.node_count, workload.measured_count))
        say(f"round {k + 1}/{repeat}: schedframe NodeResourcesFit only")
        runs.append(_ours(run_workload(workload, config=fit_only), "schedframe NodeResourcesFit"))
        say(f"round {k + 1}/{repeat}: schedframe default profile")
        runs.append(_ours(run_workload(workload), "schedframe default profile"))
    summary: dict[str, dict[str, Any]] = {}
    for label in dict.fromkeys(r["scheduler"] for r in runs):
        mine = [r for r in runs if r["scheduler"] == label]
        summary[label] = {
            "runs": len(mine),
            "scheduled": min(r["scheduled"] for r in mine),
            **{field: round(statistics.median(r[field] for r in mine), 1)
               for field in ("pods_per_second", "pods_per_cpu_second") if all(r[field] for r in mine)},
        }
    base = summary["skippy-core"]
    ratios = {label: {field: round(s[field] / base[field], 2)
                      for field in ("pods_per_second", "pods_per_cpu_second") if field in s and field in base}
              for label, s in summary.items() if label != "skippy-core"}
    return {"workload": workload.name, "nodes": workload.node_count, "pods": workload.measured_count,
            "runs": runs, "summary": summary, "ratios": ratios}


def format_comparison(result: dict[str, Any]) -> str:
    """The comparison as a table (medians) with the ratios to skippy."""
    lines = [f"{result['nodes']} nodes, {result['pods']} pods; medians of "
             f"{next(iter(result['summary'].values()))['runs']} rounds, back to back in one process",
             f"{'scheduler':<28}  {'pods/s':>8}  {'pods/cpu-s':>10}  {'x skippy':>8}  "
             f"{'x skippy cpu':>12}  {'unsched':>7}"]
    for label, s in result["summary"].items():
        r = result["ratios"].get(label, {})
        lines.append(f"{label:<28}  {s.get('pods_per_second', '-'):>8}  "
                     f"{s.get('pods_per_cpu_second', '-'):>10}  "
                     f"{r.get('pods_per_second', '-'):>8}  {r.get('pods_per_cpu_second', '-'):>12}  "
                     f"{result['pods'] - s['scheduled']:>7}")
    return "\n".join(lines)
