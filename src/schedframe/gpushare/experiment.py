"""The FGD paper's experiment on the openb trace, in a real :class:`~schedframe.Scheduler`.

As the authors' artefact runs it (``scripts/generate_config_and_run.py`` and
``pkg/simulator``): the tasks are sorted by name and shuffled with the seed; the workload is
*tuned* so that the total GPU request is ``tune`` times the cluster's GPU capacity (random tasks
removed, or random copies of tasks appended); the typical pods are taken from the untuned task
list. One profile: NodeResourcesFit's and OpenGpuShare's filters, one score plugin with weight
1000, ``percentageOfNodesToScore: 100``; equally scored best nodes are broken by a node order
drawn from the seed, as the artefact's simulator and scheduler do (``ties="order"``), or at random
as upstream (``ties="random"``). Tasks arrive one by one and never leave; a task that fits
nowhere is dropped. After each arrival the allocated GPU milli is recorded against the
arrived GPU request; ``alloc_pct[k]`` is the mean allocation (in % of GPU capacity) over the
arrivals where the arrived request, rounded, is ``k`` % of capacity (the artefact's
``merge_alloc_discrete.py``).
"""

from __future__ import annotations

import functools
import math
import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, final

import attrs

from ..config.configuration import SchedulerConfiguration
from ..errors import GpuShareError
from ..scheduler.scheduler import Scheduler
from ._frag import TypicalPod, typical_pods
from ._model import MAX_NODE_GPUS, MILLI
from .openb import TraceNode, TraceTask
from .plugins import (
    BEST_FIT_SCORE,
    DOT_PRODUCT_SCORE,
    FGD_SCORE,
    GPU_CLUSTERING_SCORE,
    GPU_PACKING_SCORE,
    OPEN_GPU_SHARE,
    RANDOM_SCORE,
    FGDScoreArgs,
    OpenGpuShareArgs,
    RandomScoreArgs,
    gpushare_registry,
)

__all__ = ["MAX_TUNE", "MAX_TUNED_TASKS", "POLICIES", "TIE_BREAKS", "RunResult", "alloc_curve", "check_tune",
           "run_experiment", "scheduler_config", "sweep_task", "tune_tasks"]

#: Policy name -> (score plugin, OpenGpuShare's GPU selection), as the artefact's run scripts.
POLICIES: Final[dict[str, tuple[str, str]]] = {
    "Random": (RANDOM_SCORE, "random"),
    "DotProd": (DOT_PRODUCT_SCORE, "best"),
    "GpuClustering": (GPU_CLUSTERING_SCORE, "best"),
    "GpuPacking": (GPU_PACKING_SCORE, "best"),
    "BestFit": (BEST_FIT_SCORE, "best"),
    "FGD": (FGD_SCORE, "FGD"),
}

#: The score plugin's weight in the artefact's runs.
SCORE_WEIGHT: Final = 1000
#: The largest ``tune``: the GPU request at most this many times the capacity (the paper: 1.3).
MAX_TUNE: Final = 100.0
#: The most tasks tuning may make (the openb traces hold about 8,000).
MAX_TUNED_TASKS: Final = 10_000_000
#: ``alloc_pct`` covers arrived GPU requests of 0..130 % of capacity.
CURVE_POINTS: Final = 131


@final
@attrs.frozen(kw_only=True)
class RunResult:
    """One run: the policy, seed, tuning, sizes, the allocation curve and the time taken.

    ``alloc_pct[k]`` is ``None`` when no arrival fell within one percent of ``k`` (the tuned
    workload stops near ``tune * 100`` %).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    policy: str
    seed: int
    tune: float
    ties: str
    nodes: int
    gpus: int
    tasks: int
    scheduled: int
    failed: int
    arrived_gpu_milli: int
    allocated_gpu_milli: int
    alloc_pct: tuple[float | None, ...]
    seconds: float
    trace: str = ""

    @property
    def final_alloc_pct(self) -> float:
        """GPU milli allocated at the end, in % of capacity."""
        return 100.0 * self.allocated_gpu_milli / (self.gpus * MILLI) if self.gpus else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        out = attrs.asdict(self)
        out["alloc_pct"] = list(self.alloc_pct)
        out["final_alloc_pct"] = round(self.final_alloc_pct, 4)
        return out


def tune_tasks(tasks: Sequence[TraceTask], capacity_milli: int, ratio: float, rng: random.Random
               ) -> list[TraceTask]:
    """The artefact's workload tuning (``SortClusterPods`` with shuffling, then
    ``TunePodsByNodeTotalResource``), drawing from *rng*.

    The tasks are sorted by name and shuffled. While their GPU request exceeds ``ratio *
    capacity_milli``, a random task is removed; when it falls short, random tasks of the
    name-sorted list are appended as ``<name>-tuned-<i>`` until the next one would pass the
    target. As in the artefact that test adds the next task's per-GPU milli, not its total
    (a multi-GPU task can end slightly above the target). ``ratio <= 0`` only shuffles.
    """
    check_tune(ratio)
    ordered = sorted(tasks, key=lambda t: t.name)
    pods = list(ordered)
    rng.shuffle(pods)
    if ratio <= 0:
        return pods
    target = ratio * capacity_milli
    total = sum(t.total_milli for t in pods)
    if total > target:
        while total > target:
            if not pods:
                raise GpuShareError("tune", f"no tasks left while the request {total} exceeds {target}")
            victim = pods.pop(rng.randrange(len(pods)))
            total -= victim.total_milli
    elif total < target:
        if not ordered:
            raise GpuShareError("tune", "no tasks to sample from")
        if not any(t.total_milli > 0 for t in ordered):
            raise GpuShareError(
                "tune",
                f"the {len(ordered):,} tasks request no GPU (a CPU-only trace?), so copies of them "
                f"can never bring the GPU request to {ratio:g} x the capacity; tune 0 runs the tasks "
                "as they are",
            )
        i = 0
        while True:
            picked = ordered[rng.randrange(len(ordered))]
            if total + picked.gpu_milli > target:
                break
            if len(pods) >= MAX_TUNED_TASKS:
                raise GpuShareError(
                    "tune",
                    f"tuning to {ratio:g} x the capacity needs more than {MAX_TUNED_TASKS:,} tasks "
                    "(MAX_TUNED_TASKS); lower tune",
                )
            total += picked.total_milli
            pods.append(picked.renamed(f"{picked.name}-tuned-{i}"))
            i += 1
    return pods


def check_tune(tune: Any) -> float:
    """*tune* as a tuning ratio: a finite number at most ``MAX_TUNE`` (``<= 0``: no tuning).

    Raises:
        GpuShareError: anything else.
    """
    if isinstance(tune, bool) or not isinstance(tune, (int, float)):
        raise GpuShareError("tune", f"want a number, got {type(tune).__name__}")
    if not math.isfinite(tune) or tune > MAX_TUNE:
        raise GpuShareError(
            "tune", f"want a finite number at most {MAX_TUNE:g} (<= 0: no tuning), got {tune!r}"
        )
    return float(tune)


def scheduler_config(policy: str, *, seed: int = 0, typical: Iterable[TypicalPod] = (),
                     weight: int = SCORE_WEIGHT, narrow: bool = True) -> SchedulerConfiguration:
    """The paper's profile for *policy* (one of :data:`POLICIES`): PrioritySort,
    NodeResourcesFit (filter only), OpenGpuShare with the policy's GPU selection, the policy's
    score plugin at *weight*, DefaultBinder; ``percentageOfNodesToScore: 100``. *narrow* is
    OpenGpuShare's PreFilter narrowing (:class:`OpenGpuShareArgs`)."""
    if policy not in POLICIES:
        raise GpuShareError("policy", f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    scorer, selection = POLICIES[policy]
    typical = tuple(typical)
    plugin_config: list[dict[str, Any]] = [
        {"name": OPEN_GPU_SHARE, "args": OpenGpuShareArgs(gpu_selection=selection, seed=seed,
                                                          typical_pods=typical, narrow=narrow)},
    ]
    if scorer == FGD_SCORE:
        plugin_config.append({"name": FGD_SCORE, "args": FGDScoreArgs(typical_pods=typical)})
    if scorer == RANDOM_SCORE:
        plugin_config.append({"name": RANDOM_SCORE, "args": RandomScoreArgs(seed=seed)})
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 100,
        "profiles": [{
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {
                    "disabled": [{"name": "*"}],
                    "enabled": [{"name": "PrioritySort"}, {"name": OPEN_GPU_SHARE},
                                {"name": "NodeResourcesFit"}, {"name": "DefaultBinder"},
                                {"name": scorer, "weight": weight}],
                },
                "preScore": {"disabled": [{"name": "NodeResourcesFit"}]},
                "score": {"disabled": [{"name": "NodeResourcesFit"}]},
            },
            "pluginConfig": plugin_config,
        }],
    }
    return SchedulerConfiguration.from_dict(doc, registry=gpushare_registry())


def alloc_curve(samples: Sequence[tuple[int, int]], gpus: int, points: int = CURVE_POINTS
                ) -> tuple[float | None, ...]:
    """The allocation curve from ``(arrived GPU milli, allocated GPU milli)`` samples, one per
    arrival (the artefact's ``merge_alloc_discrete.py``): point *k* is the mean of the
    allocation ratios (in %, rounded to 2 places) of the samples whose arrived ratio rounds to
    *k*, else of those within ``[k-1, k+1]``, rounded to 2 places; ``None`` when there are none.
    """
    if gpus <= 0:
        raise GpuShareError("gpus", f"must be > 0, got {gpus}")
    buckets: dict[int, list[float]] = {}
    for arrived, used in samples:
        k = round(arrived / gpus / 10)
        buckets.setdefault(k, []).append(round(used / gpus / 10, 2))
    out: list[float | None] = []
    for k in range(points):
        vals = buckets.get(k)
        if not vals:
            vals = [v for j in (k - 1, k, k + 1) for v in buckets.get(j, ())]
        out.append(round(sum(vals) / len(vals), 2) if vals else None)
    return tuple(out)


#: Tie-breaking between equally scored best nodes: ``order`` (the artefact's: the first node in a
#: node order drawn at random from the seed, fixed for the run) or ``random`` (upstream
#: kube-scheduler: uniformly at random in every cycle).
TIE_BREAKS: Final = ("order", "random")


def run_experiment(nodes: Sequence[TraceNode], tasks: Sequence[TraceTask], policy: str, *,
                   seed: int = 42, tune: float = 1.3, trace: str = "", ties: str = "order",
                   progress: Callable[[int, int], None] | None = None,
                   limit: int | None = None) -> RunResult:
    """Run one policy on one trace with one seed (see the module docstring).

    Args:
        nodes, tasks: the trace (:func:`~schedframe.gpushare.read_nodes`,
            :func:`~schedframe.gpushare.read_tasks`).
        policy: one of :data:`POLICIES`.
        seed: seeds the shuffle, the tuning, the tie-breaking and the random choices.
        tune: total GPU request over GPU capacity after tuning (``<= 0``: no tuning).
        trace: a label for the result.
        ties: ``order`` (default: as the artefact, whose simulator renames the nodes with a
            random permutation and whose scheduler keeps the first best node in name order) or
            ``random`` (upstream's uniform choice in every cycle; see :data:`TIE_BREAKS`).
        progress: called as ``progress(done, total)`` every 100 tasks and at the end.
        limit: schedule only the first *limit* tasks of the workload (after the shuffle and the
            tuning: the beginning of the full run); the result's ``tasks`` is then at most *limit*.

    .. versionadded:: 0.1.0
    """
    if not nodes:
        raise GpuShareError("nodes", "no nodes")
    if ties not in TIE_BREAKS:
        raise GpuShareError("ties", f"unknown tie-breaking {ties!r}; choose one of {', '.join(TIE_BREAKS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise GpuShareError("limit", f"expected a positive number of tasks, got {limit!r}")
    check_tune(tune)
    for n in nodes:
        if not 0 <= n.gpus <= MAX_NODE_GPUS:
            raise GpuShareError(
                f"node {n.name}",
                f"{n.gpus:,} GPUs; the model allows 0 to {MAX_NODE_GPUS} per node (MAX_SPEC_GPU)",
            )
    rng = random.Random(seed)
    gpus = sum(n.gpus for n in nodes)
    if gpus == 0:
        raise GpuShareError("nodes", "the nodes have no GPUs")
    typical = typical_pods(t.request for t in sorted(tasks, key=lambda t: t.name))
    workload = tune_tasks(tasks, gpus * MILLI, tune, rng)
    if limit is not None:
        workload = workload[:limit]
    config = scheduler_config(policy, seed=seed, typical=typical)
    tie_break = None
    if ties == "order":
        rank = {name: i for i, name in enumerate(rng.sample([n.name for n in nodes], len(nodes)))}
        tie_break = rank.__getitem__
    start = time.perf_counter()
    sched = Scheduler(config, seed=seed, registry=gpushare_registry(), tie_break=tie_break)
    for n in nodes:
        sched.add_node(n.to_node())
    samples: list[tuple[int, int]] = []
    arrived = used = scheduled = failed = 0
    total = len(workload)
    for i, task in enumerate(workload):
        pod = sched.add_pod(task.to_pod())
        arrived += task.total_milli
        sched.schedule_one()
        if sched.node_of(pod) is None:
            sched.remove_pod(pod)
            failed += 1
        else:
            used += task.total_milli
            scheduled += 1
        samples.append((arrived, used))
        if progress is not None and (i + 1) % 100 == 0:
            progress(i + 1, total)
    if progress is not None:
        progress(total, total)
    seconds = time.perf_counter() - start
    sched.close()
    return RunResult(policy=policy, seed=seed, tune=tune, ties=ties, nodes=len(nodes), gpus=gpus, tasks=total,
                     scheduled=scheduled, failed=failed, arrived_gpu_milli=arrived,
                     allocated_gpu_milli=used, alloc_pct=alloc_curve(samples, gpus),
                     seconds=round(seconds, 3), trace=trace)


@functools.lru_cache(maxsize=8)
def _trace_rows(path: str, mtime_ns: int, kind: str) -> tuple[Any, ...]:
    """A trace file read once per process (a sweep worker) and again only when it changes."""
    from .openb import read_nodes, read_tasks

    return tuple(read_nodes(path) if kind == "nodes" else read_tasks(path))


def _cached_trace(path: str, kind: str) -> tuple[Any, ...]:
    p = os.path.abspath(path)
    try:
        mtime = os.stat(p).st_mtime_ns
    except OSError as exc:
        raise GpuShareError(path, f"cannot read the {kind} file: {exc.strerror or exc}") from None
    return _trace_rows(p, mtime, kind)


def sweep_task(nodes: str, pods: str, policy: str, seed: int = 42, tune: float = 1.3, ties: str = "order",
               limit: int | None = None) -> dict[str, Any]:
    """The ``gpushare`` task of :func:`schedframe.sweep.sweep`: one :func:`run_experiment` on trace
    files (read once per worker process), as a flat row: sizes, the final allocation and the
    allocation at 90, 100 and 130 % arrived GPU request (the whole curve as ``alloc_pct``).
    *limit*: only the first *limit* tasks of the workload (as :func:`run_experiment`)."""
    result = run_experiment(list(_cached_trace(nodes, "nodes")), list(_cached_trace(pods, "tasks")),
                            policy, seed=seed, tune=tune, ties=ties, limit=limit,
                            trace=os.path.splitext(os.path.basename(pods))[0])
    row: dict[str, Any] = {
        "trace": result.trace, "nodes_n": result.nodes, "gpus": result.gpus, "tasks": result.tasks,
        "scheduled": result.scheduled, "failed": result.failed,
        "final_alloc_pct": round(result.final_alloc_pct, 4),
    }
    for k in (90, 100, 130):
        row[f"alloc_pct_{k}"] = result.alloc_pct[k] if k < len(result.alloc_pct) else None
    row["alloc_pct"] = list(result.alloc_pct)
    return row
