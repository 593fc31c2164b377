"""What a simulation produces, as plain picklable data (attrs classes of numbers, strings, tuples
and dicts): per pod, per node over time, cluster samples over time, and run metrics.

Equality compares everything the simulation decides (placements, times, attempts, metrics); the
wall-clock measurements (:class:`Perf`) are kept out of it, so a replay compares equal to its run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, final

import attrs

__all__ = [
    "PENDING",
    "PREEMPTED",
    "RUNNING",
    "SUCCEEDED",
    "DELETED",
    "EVICTED",
    "Metrics",
    "NodeSeries",
    "Perf",
    "PodResult",
    "Sample",
    "SimResult",
    "percentile",
]

#: Final states of a pod.
PENDING: Final = "Pending"
RUNNING: Final = "Running"
SUCCEEDED: Final = "Succeeded"
PREEMPTED: Final = "Preempted"
EVICTED: Final = "Evicted"
DELETED: Final = "Deleted"


def percentile(values: Sequence[float], q: float) -> float | None:
    """The *q*-th percentile (0..100) of *values* by linear interpolation; ``None`` when empty."""
    if not values:
        return None
    xs = sorted(values)
    k = (len(xs) - 1) * q / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


@final
@attrs.frozen
class PodResult:
    """One pod's life in a simulation (times in simulated seconds from the start).

    Attributes:
        key: ``namespace/name``.
        workload: the scenario workload that created it (``""`` for the starting cluster's pods).
        arrival: when it was created.
        attempts: scheduling attempts.
        first_attempt / last_attempt: when the first and last attempt ran (``None``: never).
        bound_at: when it was bound (``None``: never).
        node: where it was bound (``""``: never).
        wait: ``bound_at - arrival`` (``None`` when never bound).
        state: ``Running``, ``Succeeded`` (ran its duration), ``Pending``, ``Preempted``,
            ``Evicted`` (drained or its node removed) or ``Deleted`` (scaled down or deleted).
        ended_at: when it completed or was deleted.
        preempted_by: the preemptor's key, when preempted.
        replaced_by: the key of the pod its controller created in its place.
        message: the last scheduling failure message (for pods still pending: why).

    .. versionadded:: 0.1.0
    """

    key: str
    workload: str
    arrival: float
    attempts: int = 0
    first_attempt: float | None = None
    last_attempt: float | None = None
    bound_at: float | None = None
    node: str = ""
    wait: float | None = None
    state: str = PENDING
    ended_at: float | None = None
    preempted_by: str = ""
    replaced_by: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return attrs.asdict(self)


@final
@attrs.frozen
class NodeSeries:
    """A node's requested resources over time (a step function: ``requested[r][i]`` holds from
    ``times[i]`` until the next time), beside its allocatable. CPU is in millicores, memory in
    bytes, ``pods`` a count, extended resources in their units.

    .. versionadded:: 0.1.0
    """

    node: str
    allocatable: Mapping[str, int]
    times: tuple[float, ...]
    requested: Mapping[str, tuple[int, ...]]

    def at(self, t: float, resource: str = "cpu") -> int:
        """Requested *resource* at time *t*."""
        values = self.requested.get(resource, ())
        out = 0
        for i, ti in enumerate(self.times):
            if ti > t:
                break
            out = values[i]
        return out


@final
@attrs.frozen
class Sample:
    """The cluster at one time: pods pending and running, requested and allocatable per resource
    (schedulable and cordoned nodes alike), and fragmentation per resource: the share of the free
    amount that sits on nodes where the scenario's typical pod (the median request of its
    workloads' pods) no longer fits.

    .. versionadded:: 0.1.0
    """

    t: float
    pending: int
    running: int
    nodes: int
    requested: Mapping[str, int]
    allocatable: Mapping[str, int]
    fragmentation: Mapping[str, float]

    def utilisation(self, resource: str = "cpu") -> float:
        """requested / allocatable for *resource* (0 without capacity)."""
        alloc = self.allocatable.get(resource, 0)
        return self.requested.get(resource, 0) / alloc if alloc else 0.0


@final
@attrs.frozen
class Metrics:
    """Run metrics.

    Attributes:
        pods: pods created (workload pods, recreations and the starting cluster's pending pods).
        placed: pods bound (counting those that later completed or were preempted).
        pending: pods still pending at the end.
        running: pods running at the end.
        completed: pods that ran their duration.
        preemptions: pods preempted.
        recreated: pods created by controllers in place of preempted or evicted ones.
        attempts: scheduling attempts (cycles).
        wait_p50 / wait_p90 / wait_p99 / wait_max: scheduling latency (arrival to binding, in
            simulated seconds) over the bound pods.
        utilisation_mean / utilisation_peak: requested / allocatable per resource over the
            samples (time-weighted mean).
        fragmentation_mean: mean fragmentation per resource over the samples.
        end: simulated seconds at the end of the run.

    .. versionadded:: 0.1.0
    """

    pods: int
    placed: int
    pending: int
    running: int
    completed: int
    preemptions: int
    recreated: int
    attempts: int
    wait_p50: float | None
    wait_p90: float | None
    wait_p99: float | None
    wait_max: float | None
    utilisation_mean: Mapping[str, float]
    utilisation_peak: Mapping[str, float]
    fragmentation_mean: Mapping[str, float]
    end: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return attrs.asdict(self)


@final
@attrs.frozen
class Perf:
    """Wall-clock measurements of a run (not part of the result's equality).

    Attributes:
        wall_seconds: the whole run.
        schedule_seconds: inside ``Scheduler.schedule_one``.
        cycles_per_second: attempts / ``schedule_seconds``.
    """

    wall_seconds: float = 0.0
    schedule_seconds: float = 0.0
    cycles_per_second: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return attrs.asdict(self)


@final
@attrs.frozen
class SimResult:
    """The outcome of one simulation run: ``(scenario, config, seed)`` gives the same result.

    Attributes:
        scenario: the scenario's name.
        config: the configuration's name.
        seed: the seed.
        pods: every pod, in creation order.
        nodes: every node's requested resources over time.
        samples: the cluster over time.
        metrics: the run metrics.
        stalled: times at which scheduling was cut short because pods kept cycling without
            progress (e.g. a gang that can never fit); time then moved on.
        explanations: ``{pod key: (Explanation per explained attempt)}`` for the pods asked for.
        perf: wall-clock measurements (excluded from equality).

    .. versionadded:: 0.1.0
    """

    scenario: str
    config: str
    seed: int
    pods: tuple[PodResult, ...]
    nodes: tuple[NodeSeries, ...]
    samples: tuple[Sample, ...]
    metrics: Metrics
    stalled: tuple[float, ...] = ()
    explanations: Mapping[str, tuple[Any, ...]] = attrs.field(factory=dict)
    perf: Perf = attrs.field(factory=Perf, eq=False)

    def pod(self, key: str) -> PodResult:
        """The record of pod *key* (``namespace/name``; ``name`` alone means namespace default).

        Raises:
            KeyError: no such pod.
        """
        if "/" not in key:
            key = f"default/{key}"
        for p in self.pods:
            if p.key == key:
                return p
        raise KeyError(key)

    def placements(self) -> dict[str, str]:
        """``{pod key: node}`` of every pod ever bound (its last node)."""
        return {p.key: p.node for p in self.pods if p.node}

    def pending(self) -> list[PodResult]:
        """The pods pending at the end."""
        return [p for p in self.pods if p.state == PENDING]

    def to_dict(self, *, pods: bool = True, nodes: bool = False, samples: bool = True) -> dict[str, Any]:
        """A JSON-ready mapping (per-node series only when *nodes*)."""
        out: dict[str, Any] = {
            "scenario": self.scenario,
            "config": self.config,
            "seed": self.seed,
            "metrics": self.metrics.to_dict(),
            "perf": self.perf.to_dict(),
            "stalled": list(self.stalled),
        }
        if pods:
            out["pods"] = [p.to_dict() for p in self.pods]
        if samples:
            out["samples"] = [attrs.asdict(s) for s in self.samples]
        if nodes:
            out["nodes"] = [
                {
                    "node": n.node,
                    "allocatable": dict(n.allocatable),
                    "times": list(n.times),
                    "requested": {k: list(v) for k, v in n.requested.items()},
                }
                for n in self.nodes
            ]
        if self.explanations:
            out["explanations"] = {k: [e.to_dict() for e in v] for k, v in self.explanations.items()}
        return out
