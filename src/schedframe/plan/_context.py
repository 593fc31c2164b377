"""What every planning step shares: the cluster, the configuration, the plugins, and one way to
simulate a cluster (the simulator, so a plan is checked exactly as ``schedframe simulate`` would
run it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..api.objects import Node, Pod
from ..config.configuration import SchedulerConfiguration
from ..framework.registry import Registry
from ..sim.results import RUNNING, SimResult
from ..sim.run import simulate
from ..sim.scenario import Scenario
from ..whatif import ClusterSnapshot
from ._daemons import daemon_pods, daemon_sets

__all__ = ["DAEMON_PREFIX", "HORIZON", "Context", "outcome", "run_cluster"]

#: Simulated seconds a plan's simulation runs at most: pods that cannot be placed (a gang
#: that never fits cycles through Permit timeouts and backoff) would otherwise run for ever.
HORIZON = 600.0
#: Put before the names of the DaemonSet pods of new nodes (never a pod of the cluster).
DAEMON_PREFIX = "plan-"


@attrs.define
class Context:
    """The inputs of one plan."""

    nodes: list[Node]
    bound: list[Pod]
    objects: list[Any]
    config: SchedulerConfiguration
    registry: Registry
    seed: int = 0
    _snapshot: ClusterSnapshot | None = attrs.field(default=None, init=False, repr=False, eq=False)

    @property
    def node_names(self) -> set[str]:
        return {n.name for n in self.nodes}

    def snapshot(self) -> ClusterSnapshot:
        """A :class:`~schedframe.ClusterSnapshot` of the cluster (built once; ask in forks)."""
        if self._snapshot is None:
            self._snapshot = ClusterSnapshot(nodes=self.nodes, pods=self.bound, objects=self.objects,
                                             config=self.config, registry=self.registry, seed=self.seed)
        return self._snapshot

    def new_daemon_pods(self, new: Sequence[Node]) -> list[Pod]:
        """The DaemonSet pods the *new* nodes would run, bound to them."""
        return daemon_pods(daemon_sets(self.objects), new, self.seed, prefix=DAEMON_PREFIX)


def run_cluster(ctx: Context, nodes: Sequence[Node], bound: Sequence[Pod], pending: Sequence[Pod]
                ) -> SimResult:
    """Simulate *nodes* with *bound* pods running and *pending* pods arriving at time 0 (in
    that order) until nothing more happens."""
    scenario = Scenario("plan", nodes=tuple(nodes), pods=(*bound, *pending), objects=tuple(ctx.objects))
    return simulate(scenario, ctx.config, seed=ctx.seed, registry=ctx.registry, until=HORIZON)


def outcome(result: SimResult, keys: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """``({pod key: node}, [pending keys])`` of *keys* in *result* (a pod preempted or evicted
    in the run counts as pending)."""
    by_key: Mapping[str, Any] = {p.key: p for p in result.pods}
    placed: dict[str, str] = {}
    pending: list[str] = []
    for k in keys:
        rec = by_key.get(k)
        if rec is not None and rec.state == RUNNING and rec.node:
            placed[k] = rec.node
        else:
            pending.append(k)
    return placed, pending
