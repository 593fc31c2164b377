"""The benchmark model: node and pod groups, churn, one benchmark workload, and the error.

The workload tables (:mod:`._workloads`, :mod:`._realistic`) and the runner build on these; this
module imports no other module of ``schedframe.bench``.

``BenchWorkload`` and ``BenchPodGroup`` are named apart from :class:`schedframe.BenchWorkload` /
:class:`schedframe.BenchPodGroup` (API objects) and :class:`schedframe.sim.BenchWorkload` (a scenario's
workload).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import final

import attrs

from ..api.objects import Namespace, Node, Pod
from ..errors import SchedframeError

__all__ = ["BenchPodGroup", "BenchWorkload", "BenchmarkError", "Churn", "NodeGroup"]


class BenchmarkError(SchedframeError, ValueError):
    """A benchmark was asked for something impossible (unknown workload, bad plugin spec...)."""

    __module__ = "schedframe.bench"


# --------------------------------------------------------------------------------------------
# building blocks


@final
@attrs.frozen(kw_only=True)
class NodeGroup:
    """*count* nodes built by ``make(i)`` (``i`` counts from 0 within the group).

    ``scales=False`` keeps the count under ``--scale`` (e.g. the one named DaemonSet node).
    """

    count: int
    make: Callable[[int], Node]
    scales: bool = True


@final
@attrs.frozen(kw_only=True)
class BenchPodGroup:
    """*count* pods built by ``make(i)``; one upstream ``createPods`` step."""

    count: int
    make: Callable[[int], Pod]
    scales: bool = True


@final
@attrs.frozen(kw_only=True)
class Churn:
    """Pods injected while the measured pods are scheduled: one ``make(i)`` pod after every
    *every* scheduling attempts (upstream's ``churn`` op, turned from a rate into a count so
    that runs are deterministic)."""

    make: Callable[[int], Pod]
    every: int


@final
@attrs.frozen(kw_only=True)
class BenchWorkload:
    """One benchmark: nodes, initial pods placed before measuring, measured pods.

    Attributes:
        name: ``"SchedulingBasic/5000Nodes_10000Pods"`` (upstream's test/workload name).
        description: one line for ``--list`` and the docs.
        nodes: the node groups, created in order.
        initial: pod groups placed before measuring, one after the other.
        measured: pod groups whose scheduling is measured (added together, then scheduled).
        churn: pods injected during the measured phase (not counted as measured).
        namespaces: Namespace objects the pods live in.
        floor: upstream's throughput threshold in pods/s (``None``: upstream has none).
        memory_target_mb: a peak-RSS target in MiB (``None``: none).
        initial_mode: force ``"bind"`` or ``"schedule"`` for the initial pods (``None``: the
            run's choice).
        group: ``"performance"``, ``"memory"``, ``"series"`` or ``"realistic"`` (``all``
            selects the first two).
        scale: the factor this workload was scaled by (1.0: upstream's size).
        baseline: the name of the workload this one is compared with (the uniform variant of
            the same size): the report gives the ratio of their pods per CPU second.
        objects: makes the other cluster objects the plugins read (Services, ReplicaSets...),
            added before the nodes (``None``: none but the namespaces).
        unavailable: returns why the workload cannot run here (data files missing), or
            ``None``; such a workload is skipped with that reason.
    """

    name: str
    description: str
    nodes: tuple[NodeGroup, ...]
    initial: tuple[BenchPodGroup, ...] = ()
    measured: tuple[BenchPodGroup, ...] = ()
    churn: Churn | None = None
    namespaces: tuple[str, ...] = ()
    floor: float | None = None
    memory_target_mb: float | None = None
    initial_mode: str | None = None
    group: str = "performance"
    scale: float = 1.0
    baseline: str | None = None
    unavailable: Callable[[], str | None] | None = None
    objects: Callable[[], Sequence[object]] | None = None

    def skip_reason(self) -> str | None:
        """Why this workload cannot run here, or ``None`` when it can."""
        return None if self.unavailable is None else self.unavailable()

    @property
    def node_count(self) -> int:
        """Nodes in the workload."""
        return sum(g.count for g in self.nodes)

    @property
    def initial_count(self) -> int:
        """Initial pods in the workload."""
        return sum(g.count for g in self.initial)

    @property
    def measured_count(self) -> int:
        """Measured pods in the workload."""
        return sum(g.count for g in self.measured)

    def scaled(self, factor: float) -> BenchWorkload:
        """This workload with every scalable count multiplied by *factor* (at least 1 where
        the count was not 0); ``scale`` records the overall factor."""
        if not factor > 0:
            raise BenchmarkError(f"scale must be > 0, got {factor}")
        if factor == 1:
            return self

        def n(count: int) -> int:
            return max(1, round(count * factor)) if count else 0

        return attrs.evolve(
            self,
            nodes=tuple(attrs.evolve(g, count=n(g.count)) if g.scales else g for g in self.nodes),
            initial=tuple(attrs.evolve(g, count=n(g.count)) if g.scales else g for g in self.initial),
            measured=tuple(attrs.evolve(g, count=n(g.count)) if g.scales else g for g in self.measured),
            scale=self.scale * factor,
        )

    def build_nodes(self) -> list[Node]:
        """Every node, in creation order."""
        return [g.make(i) for g in self.nodes for i in range(g.count)]

    def build_namespaces(self) -> list[Namespace]:
        """The Namespace objects."""
        return [Namespace(ns) for ns in self.namespaces]

    def build_objects(self) -> list[object]:
        """The Namespace objects, then the other objects (:attr:`objects`)."""
        return [*self.build_namespaces(), *(self.objects() if self.objects is not None else ())]


