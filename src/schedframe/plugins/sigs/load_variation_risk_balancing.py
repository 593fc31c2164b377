"""LoadVariationRiskBalancing: balance the risk of load variation across nodes
(kubernetes-sigs/scheduler-plugins ``pkg/trimaran/loadvariationriskbalancing``).

Score (no NormalizeScore), per resource (CPU in millicores, memory in MiB, of the node's
allocatable): from the node's average ``A`` and standard deviation ``S`` utilisation (percent;
``AVG`` / ``STD`` metrics, ``Latest`` or no operator standing for the average when no ``AVG`` is
given) and the pod's request ``R``: ``mu = (A * cap / 100 + R) / cap`` and ``sigma = S / 100``,
each clamped to [0, 1]; ``sigma = sigma ** (1 / safeVarianceSensitivity) * safeVarianceMargin``
clamped to [0, 1]; the score is ``(1 - (mu + sigma) / 2) * 100``. The node scores the smaller
of its CPU and memory scores when it has both metrics (else the one it has, 0 for none), rounded
half away from zero. No metrics for the node: 0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from ...framework.registry import plugin_args
from ...framework.status import Status
from ._load import (
    CPU,
    MEMORY,
    Metric,
    TrimaranScorer,
    TrimaranSpec,
    effective_resource,
    go_round,
    resource_data,
)

if TYPE_CHECKING:
    from collections.abc import Iterable


__all__ = ["ARGS_TYPE", "NAME", "LoadVariationRiskBalancing", "LoadVariationRiskBalancingArgs", "new"]

NAME: Final = "LoadVariationRiskBalancing"
#: upstream ``DefaultSafeVarianceMargin`` and ``DefaultSafeVarianceSensitivity``.
DEFAULT_SAFE_VARIANCE_MARGIN: Final = 1.0
DEFAULT_SAFE_VARIANCE_SENSITIVITY: Final = 1.0
#: upstream ``MegaFactor``: bytes to MiB.
MEGA_FACTOR: Final = 1.0 / 1024.0 / 1024.0


@final
@attrs.frozen(kw_only=True)
class LoadVariationRiskBalancingArgs:
    """``LoadVariationRiskBalancingArgs``, defaulted as upstream: ``safeVarianceMargin`` and
    ``safeVarianceSensitivity`` 1 (also for a negative value).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    spec: TrimaranSpec = attrs.field(factory=lambda: TrimaranSpec().defaulted(), metadata={"inline": True})
    safe_variance_margin: float = DEFAULT_SAFE_VARIANCE_MARGIN
    safe_variance_sensitivity: float = DEFAULT_SAFE_VARIANCE_SENSITIVITY

    def with_defaults(self) -> LoadVariationRiskBalancingArgs:
        """Upstream's ``SetDefaults_LoadVariationRiskBalancingArgs``: the TrimaranSpec's, and 1
        for a negative margin or sensitivity."""
        return attrs.evolve(
            self, spec=self.spec.defaulted(),
            safe_variance_margin=(DEFAULT_SAFE_VARIANCE_MARGIN if self.safe_variance_margin < 0
                                  else self.safe_variance_margin),
            safe_variance_sensitivity=(DEFAULT_SAFE_VARIANCE_SENSITIVITY if self.safe_variance_sensitivity < 0
                                       else self.safe_variance_sensitivity))

    def errors(self) -> list[str]:
        """The collector's ``checkSpecs``."""
        return self.spec.errors()



ARGS_TYPE: Final = LoadVariationRiskBalancingArgs


@attrs.define
class ResourceStats:
    """upstream ``ResourceStats``: used average and standard deviation, the pod's request and the
    node's capacity, in one unit (millicores or MiB)."""

    used_avg: float
    used_stdev: float
    req: float
    capacity: float


def resource_stats(metrics: Iterable[Metric], node_info: NodeInfo, pod_cpu: int, pod_mem: int,
                   resource_type: str) -> ResourceStats | None:
    """upstream ``CreateResourceStats``: the node's stats for *resource_type* (``None`` when the
    metrics lack it); the capacity is the node's allocatable."""
    avg, std, found = resource_data(metrics, resource_type)
    if not found:
        return None
    alloc = node_info.allocatable
    if resource_type == CPU:
        cap, req = float(alloc.milli_cpu), float(pod_cpu)
    else:
        cap, req = alloc.memory * MEGA_FACTOR, pod_mem * MEGA_FACTOR
    return ResourceStats(avg * cap / 100, std * cap / 100, req, cap)


def mu_sigma(rs: ResourceStats) -> tuple[float, float]:
    """upstream ``GetMuSigma``: the utilisation fraction with the request, and the deviation
    fraction, each clamped to [0, 1]."""
    if rs.capacity <= 0:
        return 0.0, 0.0
    mu = max(min((rs.used_avg + rs.req) / rs.capacity, 1.0), 0.0)
    sigma = max(min(rs.used_stdev / rs.capacity, 1.0), 0.0)
    return mu, sigma


def compute_score(rs: ResourceStats, margin: float, sensitivity: float) -> float:
    """upstream ``computeScore``: ``(1 - risk) * 100`` with ``risk = (mu + margin * sigma **
    (1 / sensitivity)) / 2``."""
    if rs.capacity <= 0:
        return 0.0
    rs.req = max(rs.req, 0.0)
    rs.used_avg = max(min(rs.used_avg, rs.capacity), 0.0)
    rs.used_stdev = max(min(rs.used_stdev, rs.capacity), 0.0)
    mu, sigma = mu_sigma(rs)
    if sensitivity >= 0:
        sigma = math.pow(sigma, 1 / sensitivity if sensitivity else math.inf)
    sigma = max(min(sigma * margin, 1.0), 0.0)
    risk = (mu + sigma) / 2
    return (1.0 - risk) * MAX_NODE_SCORE


@final
class LoadVariationRiskBalancing(TrimaranScorer[LoadVariationRiskBalancingArgs]):
    """The LoadVariationRiskBalancing plugin (Score).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ()

    def __init__(self, args: LoadVariationRiskBalancingArgs, handle: Handle) -> None:
        super().__init__(NAME, args, handle)

    @property
    def name(self) -> str:
        """``"LoadVariationRiskBalancing"``."""
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The risk-balancing score above."""
        metrics, _ = self._collector.node_metrics(node_info.name)
        if metrics is None:
            return MIN_NODE_SCORE, None
        cpu, mem = effective_resource(pod, limits=False)
        margin, sens = self._args.safe_variance_margin, self._args.safe_variance_sensitivity
        cpu_stats = resource_stats(metrics, node_info, cpu, mem, CPU)
        mem_stats = resource_stats(metrics, node_info, cpu, mem, MEMORY)
        cpu_score = compute_score(cpu_stats, margin, sens) if cpu_stats is not None else 0.0
        mem_score = compute_score(mem_stats, margin, sens) if mem_stats is not None else 0.0
        if cpu_stats is not None and mem_stats is not None:
            total = min(cpu_score, mem_score)
        else:
            total = max(cpu_score, mem_score)
        return go_round(total), None


def new(args: object, handle: Handle) -> LoadVariationRiskBalancing:
    """Factory: *args* is ``None``, a :class:`LoadVariationRiskBalancingArgs` or a camelCase mapping."""
    parsed = plugin_args(args, LoadVariationRiskBalancingArgs)
    return LoadVariationRiskBalancing(parsed, handle)


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: LoadVariationRiskBalancing) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
