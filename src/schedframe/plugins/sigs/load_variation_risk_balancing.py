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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...errors import PluginArgsError, bounded_repr
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore
from ...framework.status import Status
from .._topology import check_keys
from ._load import (
    CPU,
    MEMORY,
    TRIMARAN_KEYS,
    Collector,
    Metric,
    TrimaranSpec,
    decode_args,
    effective_resource,
    go_round,
    resource_data,
    strip_meta,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from typing_extensions import Self

__all__ = ["ARGS_TYPE", "NAME", "LoadVariationRiskBalancing", "LoadVariationRiskBalancingArgs", "new"]

NAME: Final = "LoadVariationRiskBalancing"
#: upstream ``DefaultSafeVarianceMargin`` and ``DefaultSafeVarianceSensitivity``.
DEFAULT_SAFE_VARIANCE_MARGIN: Final = 1.0
DEFAULT_SAFE_VARIANCE_SENSITIVITY: Final = 1.0
#: upstream ``MegaFactor``: bytes to MiB.
MEGA_FACTOR: Final = 1.0 / 1024.0 / 1024.0
_KEYS: Final = TRIMARAN_KEYS | {"safeVarianceMargin", "safeVarianceSensitivity"}


def _float_arg(data: Mapping[str, Any], key: str, errors: list[str]) -> float | None:
    v = data.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        errors.append(f"{key}: must be a number, got {bounded_repr(v)}")
        return None
    return float(v)


@final
@attrs.frozen(kw_only=True)
class LoadVariationRiskBalancingArgs:
    """``LoadVariationRiskBalancingArgs``, defaulted as upstream: ``safeVarianceMargin`` and
    ``safeVarianceSensitivity`` 1 (also for a negative value).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    spec: TrimaranSpec = TrimaranSpec()
    safe_variance_margin: float = DEFAULT_SAFE_VARIANCE_MARGIN
    safe_variance_sensitivity: float = DEFAULT_SAFE_VARIANCE_SENSITIVITY

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Decode the camelCase args; raises :class:`~schedframe.PluginArgsError`."""
        if not isinstance(data, Mapping):
            raise PluginArgsError(f"args: must be a mapping, got {type(data).__name__}")
        data = strip_meta(data)
        errors = check_keys(data, _KEYS, "")
        spec = TrimaranSpec.from_args(data, errors)
        margin = _float_arg(data, "safeVarianceMargin", errors)
        sensitivity = _float_arg(data, "safeVarianceSensitivity", errors)
        if errors:
            raise PluginArgsError(errors)
        if margin is None or margin < 0:
            margin = DEFAULT_SAFE_VARIANCE_MARGIN
        return cls(spec=spec, safe_variance_margin=margin,
                   safe_variance_sensitivity=(DEFAULT_SAFE_VARIANCE_SENSITIVITY
                                              if sensitivity is None or sensitivity < 0 else sensitivity))

    def to_dict(self) -> dict[str, Any]:
        """The effective args as a camelCase mapping."""
        return {**self.spec.to_args(), "safeVarianceMargin": self.safe_variance_margin,
                "safeVarianceSensitivity": self.safe_variance_sensitivity}

    def validate(self) -> None:
        """The collector's ``checkSpecs``."""
        errors = self.spec.validate()
        if errors:
            raise PluginArgsError(errors)


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
class LoadVariationRiskBalancing:
    """The LoadVariationRiskBalancing plugin (Score).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_args", "_collector")

    def __init__(self, args: LoadVariationRiskBalancingArgs, handle: Handle) -> None:
        self._args = args
        self._collector = Collector(NAME, args.spec, handle)

    @property
    def name(self) -> str:
        """``"LoadVariationRiskBalancing"``."""
        return NAME

    @property
    def args(self) -> LoadVariationRiskBalancingArgs:
        """The effective args."""
        return self._args

    @property
    def collector(self) -> Collector:
        """The metrics collector."""
        return self._collector

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

    def score_extensions(self) -> LoadVariationRiskBalancing:
        """NormalizeScore does nothing, as upstream."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Nothing to do."""
        return None


def new(args: object, handle: Handle) -> LoadVariationRiskBalancing:
    """Factory: *args* is ``None``, a :class:`LoadVariationRiskBalancingArgs` or a camelCase mapping."""
    parsed = decode_args(NAME, args, LoadVariationRiskBalancingArgs)
    return LoadVariationRiskBalancing(parsed, handle)


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: LoadVariationRiskBalancing) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
