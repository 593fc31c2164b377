"""LowRiskOverCommitment: prefer nodes where over-committing the pod's limits is least risky
(kubernetes-sigs/scheduler-plugins ``pkg/trimaran/lowriskovercommitment``).

PreScore stores the pod's requests and limits (a limit below the request counts as the request).
Score (no NormalizeScore): a best-effort pod (no CPU or memory requests or limits) scores 0; no
metrics for the node: 0. Otherwise ``round((1 - max(riskCPU, riskMemory)) * 100)`` where, per
resource, with the node's allocatable ``cap``, the summed requests ``req`` (capped at ``cap``) and
limits ``lim`` of its pods and the pod, and the same without the pod:

* ``riskLimit = (lim - cap) / (lim - req)`` when ``lim > cap``, else 0;
* ``riskLoad = 1 - P``: the node's measured load, mean ``mu`` and deviation ``sigma *
  sqrt(smoothingWindowSize)`` (capped at ``sqrt(0.99 * mu * (1 - mu))``), is fitted by a beta
  distribution, and ``P`` is the probability that the load stays below the requests without the
  pod (as a fraction of ``cap``), conditioned on staying below the limits without the pod when
  those are under the capacity;
* ``risk = w * riskLimit + (1 - w) * riskLoad`` clamped to [0, 1], with ``w`` the resource's
  ``riskLimitWeights`` entry (default 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.objects import CPU as CPU_RESOURCE
from ...api.objects import MEMORY as MEMORY_RESOURCE
from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...errors import StateNotFoundError
from ...framework.cycle_state import CycleState, StateKey
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from ...framework.registry import plugin_args
from ...framework.status import Status
from ._beta import compute_probability, max_variance
from ._load import (
    CPU,
    MEMORY,
    Metric,
    TrimaranScorer,
    TrimaranSpec,
    effective_resource,
    go_round,
)
from .load_variation_risk_balancing import mu_sigma, resource_stats

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["ARGS_TYPE", "NAME", "LowRiskOverCommitment", "LowRiskOverCommitmentArgs", "new"]

NAME: Final = "LowRiskOverCommitment"
#: upstream ``DefaultSmoothingWindowSize`` and ``DefaultRiskLimitWeight``.
DEFAULT_SMOOTHING_WINDOW_SIZE: Final = 5
DEFAULT_RISK_LIMIT_WEIGHT: Final = 0.5
#: upstream ``MaxVarianceAllowance``.
MAX_VARIANCE_ALLOWANCE: Final = 0.99


@final
@attrs.frozen(kw_only=True)
class LowRiskOverCommitmentArgs:
    """``LowRiskOverCommitmentArgs``, defaulted as upstream: ``smoothingWindowSize`` 5 (also for a
    value <= 0); ``riskLimitWeights`` cpu and memory 0.5 when empty, and a weight outside [0, 1]
    becomes 0.5.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    spec: TrimaranSpec = attrs.field(factory=lambda: TrimaranSpec().defaulted(), metadata={"inline": True})
    smoothing_window_size: int = DEFAULT_SMOOTHING_WINDOW_SIZE
    risk_limit_weights: Mapping[str, float] = attrs.field(
        factory=lambda: {CPU_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT, MEMORY_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT})

    def with_defaults(self) -> LowRiskOverCommitmentArgs:
        """Upstream's ``SetDefaults_LowRiskOverCommitmentArgs``: the TrimaranSpec's; a window of
        5 for one <= 0; weights of 0.5 for cpu and memory when none, and for one outside [0, 1]."""
        weights = {k: v if 0 <= v <= 1 else DEFAULT_RISK_LIMIT_WEIGHT
                   for k, v in self.risk_limit_weights.items()}
        return attrs.evolve(
            self, spec=self.spec.defaulted(),
            smoothing_window_size=(self.smoothing_window_size if self.smoothing_window_size > 0
                                   else DEFAULT_SMOOTHING_WINDOW_SIZE),
            risk_limit_weights=weights or {CPU_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT,
                                           MEMORY_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT})

    def errors(self) -> list[str]:
        """The collector's ``checkSpecs``."""
        return self.spec.errors()



ARGS_TYPE: Final = LowRiskOverCommitmentArgs


@final
@attrs.frozen
class PodResources:
    """What PreScore stores: the pod's CPU (millicores) and memory (bytes) requests and limits,
    each limit at least its request."""

    cpu_request: int
    memory_request: int
    cpu_limit: int
    memory_limit: int

    @classmethod
    def of(cls, pod: Pod) -> PodResources:
        """upstream ``CreatePodResourcesStateData``."""
        rc, rm = effective_resource(pod, limits=False)
        lc, lm = effective_resource(pod, limits=True)
        return cls(rc, rm, max(lc, rc), max(lm, rm))

    def clone(self) -> PodResources:
        """Immutable: itself."""
        return self


#: The CycleState key PreScore writes (upstream ``PodResourcesKey``).
POD_RESOURCES_KEY: Final[StateKey[PodResources]] = StateKey(NAME + ".PodResources", NAME)


@attrs.define
class _Totals:
    request: int = 0
    limit: int = 0
    request_minus_pod: int = 0
    limit_minus_pod: int = 0
    capacity: int = 0


def _node_totals(node_info: NodeInfo, res: PodResources) -> tuple[_Totals, _Totals]:
    """upstream ``GetNodeRequestsAndLimits`` for CPU and memory."""
    alloc = node_info.allocatable
    cpu = _Totals(capacity=alloc.milli_cpu)
    mem = _Totals(capacity=alloc.memory)
    for pi in node_info.pods:
        r = PodResources.of(pi.pod)
        cpu.request += r.cpu_request
        cpu.limit += r.cpu_limit
        mem.request += r.memory_request
        mem.limit += r.memory_limit
    for t, req, lim in ((cpu, res.cpu_request, res.cpu_limit), (mem, res.memory_request, res.memory_limit)):
        t.request_minus_pod, t.limit_minus_pod = t.request, t.limit
        t.request += req
        t.limit += lim
        t.request = min(t.request, t.capacity)
        t.request_minus_pod = min(t.request_minus_pod, t.capacity)
    return cpu, mem


@final
class LowRiskOverCommitment(TrimaranScorer[LowRiskOverCommitmentArgs]):
    """The LowRiskOverCommitment plugin (PreScore, Score).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_weights",)

    def __init__(self, args: LowRiskOverCommitmentArgs, handle: Handle) -> None:
        super().__init__(NAME, args, handle)
        self._weights = {CPU_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT, MEMORY_RESOURCE: DEFAULT_RISK_LIMIT_WEIGHT,
                         **args.risk_limit_weights}

    @property
    def name(self) -> str:
        """``"LowRiskOverCommitment"``."""
        return NAME

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Store the pod's requests and limits."""
        state.write(POD_RESOURCES_KEY, PodResources.of(pod))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The over-commitment risk score above."""
        try:
            res = state.read(POD_RESOURCES_KEY)
        except StateNotFoundError:
            res = None
        if res is None:  # upstream recalculates
            res = PodResources.of(pod)
        if not (res.cpu_request or res.memory_request or res.cpu_limit or res.memory_limit):
            return MIN_NODE_SCORE, None
        metrics, _ = self._collector.node_metrics(node_info.name)
        if metrics is None:
            return MIN_NODE_SCORE, None
        cpu, mem = _node_totals(node_info, res)
        risk_cpu = self._risk(metrics, node_info, CPU, CPU_RESOURCE, cpu)
        risk_mem = self._risk(metrics, node_info, MEMORY, MEMORY_RESOURCE, mem)
        return go_round((1 - max(risk_cpu, risk_mem)) * MAX_NODE_SCORE), None

    def _risk(self, metrics: Sequence[Metric], node_info: NodeInfo, metric_type: str, resource: str,
              t: _Totals) -> float:
        """upstream ``computeRisk``."""
        risk_limit = risk_load = 0.0
        if t.limit > t.capacity:
            risk_limit = (t.limit - t.capacity) / (t.limit - t.request)
        stats = resource_stats(metrics, node_info, 0, 0, metric_type)
        if stats is not None:
            mu, sigma = mu_sigma(stats)
            sigma *= math.sqrt(self._args.smoothing_window_size)
            sigma = min(sigma, math.sqrt(max_variance(mu) * MAX_VARIANCE_ALLOWANCE))
            threshold = min(max(t.request_minus_pod / t.capacity, 0.0), 1.0) if t.capacity else 0.0
            prob, dist = compute_probability(mu, sigma, threshold)
            if t.limit_minus_pod < t.capacity and t.request_minus_pod <= t.limit_minus_pod:
                limit_threshold = t.limit_minus_pod / t.capacity if t.capacity else 0.0
                if limit_threshold == 0:
                    prob = 1.0
                elif dist is not None:
                    limit_prob = dist.cdf(limit_threshold)
                    if limit_prob > 0:
                        prob = min(max(prob / limit_prob, 0.0), 1.0)
            risk_load = 1 - prob
        w = self._weights.get(resource, 0.0)
        return min(max(w * risk_limit + (1 - w) * risk_load, 0.0), 1.0)


def new(args: object, handle: Handle) -> LowRiskOverCommitment:
    """Factory: *args* is ``None``, a :class:`LowRiskOverCommitmentArgs` or a camelCase mapping."""
    parsed = plugin_args(args, LowRiskOverCommitmentArgs)
    return LowRiskOverCommitment(parsed, handle)


if TYPE_CHECKING:
    from ...framework.interfaces import PreScorePlugin, ScoreExtensions, ScorePlugin

    def _check(p: LowRiskOverCommitment) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
        _c: PreScorePlugin = p
