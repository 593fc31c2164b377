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

from .. import _html
from .decisions import DecisionsError, DecisionTable

__all__ = [
    "PENDING",
    "PREEMPTED",
    "RUNNING",
    "SUCCEEDED",
    "DELETED",
    "EVICTED",
    "FAILED",
    "GangBlock",
    "Metrics",
    "NodeSeries",
    "Perf",
    "PodResult",
    "Sample",
    "SimResult",
    "censored_percentile",
    "percentile",
]

#: Final states of a pod.
PENDING: Final = "Pending"
RUNNING: Final = "Running"
SUCCEEDED: Final = "Succeeded"
#: A pod of the starting cluster that had failed (``status.phase: Failed``): it holds nothing.
FAILED: Final = "Failed"
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


def censored_percentile(
    exact: Sequence[float], censored: Sequence[float], q: float
) -> tuple[float | None, bool]:
    """The *q*-th percentile of *exact* and *censored* values together (as :func:`percentile`),
    and whether it is only a lower bound: a censored value is "at least this much", so the
    percentile is exact only when every value up to its position is exact and smaller than the
    smallest censored one."""
    value = percentile([*exact, *censored], q)
    if value is None or not censored:
        return value, False
    n = len(exact) + len(censored)
    hi = min(math.floor((n - 1) * q / 100.0) + 1, n - 1)
    xs = sorted(exact)
    low = min(censored)
    # exact iff the values at positions 0..hi are all exact values below every censored one
    return value, not (hi < len(xs) and xs[hi] < low)


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
        state: ``Running``, ``Succeeded`` (ran its duration, or had finished in the starting
            cluster), ``Failed`` (had failed in the starting cluster), ``Pending``,
            ``Preempted``, ``Evicted`` (drained or its node removed) or ``Deleted`` (scaled
            down or deleted). A pod of the starting cluster in phase ``Succeeded`` or
            ``Failed`` keeps that state for the whole run and holds nothing on its node.
        ended_at: when it completed or was deleted.
        preempted_by: the preemptor's key, when preempted.
        replaced_by: the key of the pod its controller created in its place.
        message: the last scheduling failure message (for pods still pending: why).
        initial: the pod was bound (or had finished) in the starting cluster: the run never
            scheduled it, and it counts in no wait figure.

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
    initial: bool = False

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
    used: Mapping[str, float] = attrs.field(factory=dict)
    """What the running pods use by their usage models (:doc:`/load-aware`), when the scenario
    models usage (empty otherwise): ``cpu`` and ``memory`` (used over allocatable, all nodes),
    and over the nodes running at least one pod (``busy_nodes``), the CPU used over capacity:
    ``cpu_busy_mean``, ``cpu_busy_min``, ``cpu_busy_max`` (fractions)."""

    def utilisation(self, resource: str = "cpu") -> float:
        """requested / allocatable for *resource* (0 without capacity)."""
        alloc = self.allocatable.get(resource, 0)
        return self.requested.get(resource, 0) / alloc if alloc else 0.0


@final
@attrs.frozen
class Metrics:
    """Run metrics.

    Attributes:
        pods: pods created during the run: workload pods, the starting cluster's pending pods and
            the pods controllers recreated (``recreated``); the starting cluster's bound pods are
            not counted. ``pods == original + recreated``.
        placed: pods bound (counting those that later completed or were preempted).
        pending: pods still pending at the end.
        running: pods running at the end.
        completed: pods that ran their duration.
        preemptions: pods preempted.
        recreated: pods created by controllers in place of preempted or evicted ones.
        attempts: scheduling attempts (cycles).
        wait_p50 / wait_p90 / wait_p99 / wait_max: scheduling latency (arrival to binding, in
            simulated seconds) over the pods created during the run that a profile of the
            configuration schedules. A pod never bound counts with a *censored* wait: from its
            arrival to the end of the run (or to its deletion), so while pods are pending these
            figures are lower bounds (``wait_lower_bound`` says which).
        utilisation_mean / utilisation_peak: requested / allocatable per resource over the
            samples (time-weighted mean).
        fragmentation_mean: mean fragmentation per resource over the samples.
        end: simulated seconds at the end of the run.
        original: ``pods`` minus ``recreated``: pods the scenario (or the cluster) created.
        wait_censored: how many of the waits are censored (pods never bound).
        wait_lower_bound: the wait statistics (``"p50"``, ``"p90"``, ``"p99"``, ``"max"``) that
            censored waits reach: the true latency is at least the figure given.

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
    original: int = 0
    wait_censored: int = 0
    wait_lower_bound: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        out = attrs.asdict(self)
        out["wait_lower_bound"] = list(self.wait_lower_bound)
        return out


@final
@attrs.frozen
class Perf:
    """Time measurements of a run (not part of the result's equality).

    Attributes:
        wall_seconds: the whole run.
        schedule_seconds: inside ``Scheduler.schedule_one``.
        cycles_per_second: attempts / ``schedule_seconds``.
        cpu_seconds: the whole run, CPU time of the process.
        schedule_cpu_seconds: CPU time inside ``Scheduler.schedule_one``; ``cpu_seconds`` minus
            it is what the simulator itself costs (events, pod creation, informer calls,
            bookkeeping, samples, the log), a fair measure on a busy machine where wall time is
            not. Estimated as ``schedule_seconds`` times the run's CPU-to-wall ratio: reading
            the process CPU clock (a system call) around every call cost 4 % of a run.
    """

    wall_seconds: float = 0.0
    schedule_seconds: float = 0.0
    cycles_per_second: float = 0.0
    cpu_seconds: float = 0.0
    schedule_cpu_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return attrs.asdict(self)


@final
@attrs.frozen
class GangBlock:
    """A gang short of its quorum at the end of a run: its pending members wait for it.

    Attributes:
        group: ``namespace/name`` of a Coscheduling PodGroup or of a ``scheduling.k8s.io``
            PodGroup (GangScheduling, 1.36 on), or ``namespace/workload/podGroup`` (``/replica
            key`` when set) of a 1.35 Workload's gang pod group (GangScheduling).
        kind: ``"PodGroup"`` (Coscheduling), ``"scheduling.k8s.io PodGroup"`` or ``"Workload"``.
        min_member: the quorum: the PodGroup's ``minMember`` or the gang's ``minCount``.
        placed: members running at the end (fewer than ``min_member``).
        pending: the keys of its members pending at the end.

    .. versionadded:: 0.1.0
    """

    group: str
    kind: str
    min_member: int
    placed: int
    pending: tuple[str, ...]

    def describe(self) -> str:
        """One line: the group, its quorum and its pending members (the first five)."""
        shown = ", ".join(self.pending[:5]) + (", ..." if len(self.pending) > 5 else "")
        quorum = "minMember" if self.kind == "PodGroup" else "minCount"
        return (f"{self.kind} {self.group} ({self.placed} of {quorum} {self.min_member} placed): "
                f"{len(self.pending)} pending pod(s) wait for the quorum ({shown})")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {"group": self.group, "kind": self.kind, "min_member": self.min_member,
                "placed": self.placed, "pending": list(self.pending)}


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
        end_reason: why the run ended: ``"done"`` (nothing left to happen and no pod pending),
            ``"until"`` (the horizon was reached while something could still happen) or
            ``"no-progress"`` (nothing left to happen -- no arrival, completion or node event
            ahead -- while pods are pending that can never be placed: they wait in the
            unschedulable pool, or every one of them failed again since the last change).
        stopped_at: when the run found that no progress was possible (``end_reason ==
            "no-progress"``; the state then holds until ``metrics.end``); else ``None``.
        unhandled: pods created during the run whose ``spec.schedulerName`` no profile of the
            configuration has, by scheduler name: ``{schedulerName: (pod keys)}``. Nobody
            schedules them: they stay pending (kube-scheduler ignores pods of other schedulers).
        profiles: the scheduler names of the configuration's profiles.
        gang_blocked: the gangs (Coscheduling PodGroups, Workload gangs of GangScheduling, when
            the pods' profile enables the plugin) with fewer members running than their quorum
            and members pending at the end: those pods are blocked by the gang's quorum, not
            (only) by room. A ``"no-progress"`` end with gangs here is a gang that cannot
            complete, not a pod that fits nowhere.
        perf: wall-clock measurements (excluded from equality).
        recorded_decisions / recorded_verdicts: the decision tables, when recorded
            (``simulate(..., decisions=...)``; read them with :meth:`decisions` and
            :meth:`filter_verdicts`); excluded from equality, so a run compares equal whether
            it recorded them or not.

    In a notebook a result shows its metrics, its pending pods and its decisions (when
    recorded) as HTML.

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
    end_reason: str = "done"
    stopped_at: float | None = None
    unhandled: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    profiles: tuple[str, ...] = ()
    gang_blocked: tuple[GangBlock, ...] = ()
    recorded_decisions: DecisionTable | None = attrs.field(default=None, eq=False, repr=False)
    recorded_verdicts: DecisionTable | None = attrs.field(default=None, eq=False, repr=False)

    def decisions(self) -> DecisionTable:
        """One row per scheduling attempt (:doc:`/decisions` lists the columns).

        Raises:
            DecisionsError: the run did not record them: pass ``decisions=True`` to
                :func:`~schedframe.sim.simulate` (``--decisions FILE`` on the command line).

        .. versionadded:: 0.1.0
        """
        if self.recorded_decisions is None:
            raise DecisionsError(
                f"{self.scenario}/{self.config}: decisions were not recorded; pass decisions=True "
                "to simulate() (or --decisions FILE to schedframe simulate)")
        return self.recorded_decisions

    def filter_verdicts(self) -> DecisionTable:
        """One row per (attempt, node) Filter verdict (:doc:`/decisions` lists the columns).

        Raises:
            DecisionsError: the run did not record them: pass
                ``decisions=RecordDecisions(filter_verdicts=True)`` to
                :func:`~schedframe.sim.simulate` (``--filter-verdicts FILE``).

        .. versionadded:: 0.1.0
        """
        if self.recorded_verdicts is None:
            raise DecisionsError(
                f"{self.scenario}/{self.config}: filter verdicts were not recorded; pass "
                "decisions=RecordDecisions(filter_verdicts=True) to simulate() (or "
                "--filter-verdicts FILE to schedframe simulate)")
        return self.recorded_verdicts

    def _repr_html_(self) -> str:
        m = self.metrics
        parts = [_html.paragraph(f"{self.scenario} / {self.config} (seed {self.seed}): {m.placed:,} of "
                                 f"{m.pods:,} pod(s) placed, {m.pending:,} pending; ended: "
                                 f"{self.end_reason} at {m.end:g}s", bold=True)]
        waits = (m.wait_p50, m.wait_p90, m.wait_p99, m.wait_max)
        parts.append(_html.table(
            ["pods", "placed", "pending", "running", "completed", "preemptions", "attempts",
             "wait p50", "wait p90", "wait p99", "wait max", "cpu mean"],
            [[m.pods, m.placed, m.pending, m.running, m.completed, m.preemptions, m.attempts,
              *waits, f"{m.utilisation_mean.get('cpu', 0.0):.1%}"]]))
        pending = self.pending()
        if pending:
            parts.append(_html.paragraph("pending at the end", bold=True))
            parts.append(_html.table(["pod", "attempts", "message"],
                                     ([p.key, p.attempts, p.message] for p in pending), total=len(pending)))
        if self.recorded_decisions is not None:
            parts.append(self.recorded_decisions._repr_html_())
        return "<div>" + "".join(parts) + "</div>"

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
            "end_reason": self.end_reason,
            "stopped_at": self.stopped_at,
            "profiles": list(self.profiles),
            "gang_blocked": [g.to_dict() for g in self.gang_blocked],
            "unhandled": {
                name: {"pods": len(keys), "examples": list(keys[:10])}
                for name, keys in self.unhandled.items()
            },
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
