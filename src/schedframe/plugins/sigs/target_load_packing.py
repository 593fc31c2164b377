"""TargetLoadPacking: best-fit packing of measured CPU load around a target utilisation
(kubernetes-sigs/scheduler-plugins ``pkg/trimaran/targetloadpacking``).

Score (no NormalizeScore): the node's CPU utilisation from its metrics (the last ``CPU`` metric
with operator ``AVG`` or ``Latest``; none, or no metrics for the node: score 0) as millicores of
the node's CPU capacity, plus the pod's predicted CPU, plus the predicted CPU of the pods assigned
to the node since the metrics were taken (:class:`~schedframe.plugins.sigs.AssignedPodsCache`),
gives the predicted utilisation ``U`` in percent. With target ``T``: ``U > 100`` scores 0;
``U > T`` scores ``round(T * (100 - U) / (100 - T))``; otherwise ``round((100 - T) * U / T + T)``
(rounding half away from zero). A container's predicted CPU is its CPU limit, else its CPU
request times ``defaultRequestsMultiplier``, else ``defaultRequests.cpu``; the pod's overhead is
added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ...api.objects import CPU, Container, Pod
from ...api.quantity import Quantity
from ...cache.nodeinfo import NodeInfo
from ...errors import PluginArgsError, QuantityError, json_type_name
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import MIN_NODE_SCORE
from ...framework.registry import plugin_args
from ...framework.status import Status
from ._load import (
    AVERAGE,
    LATEST,
    AssignedPodsCache,
    TrimaranScorer,
    TrimaranSpec,
    go_round,
    node_cpu_capacity,
)
from ._load import CPU as CPU_METRIC

if TYPE_CHECKING:
    pass

__all__ = ["ARGS_TYPE", "NAME", "TargetLoadPacking", "TargetLoadPackingArgs", "new"]

NAME: Final = "TargetLoadPacking"
#: upstream ``DefaultRequestsMilliCores``, ``DefaultRequestsMultiplier``, ``DefaultTargetUtilizationPercent``.
DEFAULT_REQUESTS_MILLI_CORES: Final = 1000
DEFAULT_REQUESTS_MULTIPLIER: Final = "1.5"
DEFAULT_TARGET_UTILIZATION: Final = 40


def _quantities(raw: Any, path: str) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise PluginArgsError(f"{path}: must be a mapping, got {json_type_name(raw)}")
    errors: list[str] = []
    for k, v in raw.items():
        try:
            Quantity.parse(v)
        except (QuantityError, TypeError, ValueError) as exc:
            errors.append(f"{path}.{k}: {exc}")
    if errors:
        raise PluginArgsError(errors)
    return {str(k): str(v) for k, v in raw.items()}


@final
@attrs.frozen(kw_only=True)
class TargetLoadPackingArgs:
    """``TargetLoadPackingArgs`` (scheduler-plugins config v1; the same field names in the
    v1beta2/v1beta3 files), defaulted as upstream: ``defaultRequests`` cpu ``1000m``,
    ``defaultRequestsMultiplier`` ``"1.5"``, ``targetUtilization`` 40 (also for a value <= 0).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    spec: TrimaranSpec = attrs.field(factory=lambda: TrimaranSpec().defaulted(), metadata={"inline": True})
    default_requests: Mapping[str, str] = attrs.field(
        factory=lambda: {CPU: f"{DEFAULT_REQUESTS_MILLI_CORES}m"}, metadata={"decode": _quantities})
    default_requests_multiplier: str = DEFAULT_REQUESTS_MULTIPLIER
    target_utilization: int = DEFAULT_TARGET_UTILIZATION

    def with_defaults(self) -> TargetLoadPackingArgs:
        """Upstream's ``SetDefaults_TargetLoadPackingArgs``: the TrimaranSpec's, and a target
        utilization of 40 for one <= 0."""
        return attrs.evolve(self, spec=self.spec.defaulted(),
                            target_utilization=(self.target_utilization if self.target_utilization > 0
                                                else DEFAULT_TARGET_UTILIZATION))


    def multiplier(self) -> float:
        """``defaultRequestsMultiplier`` as a number (Go ``strconv.ParseFloat``); raises
        :class:`~schedframe.PluginArgsError`."""
        text = self.default_requests_multiplier.strip()
        try:
            if text != self.default_requests_multiplier or "_" in text:
                raise ValueError(text)
            return float(text)
        except ValueError:
            raise PluginArgsError(f"unable to parse DefaultRequestsMultiplier: strconv.ParseFloat: parsing "
                                  f"{self.default_requests_multiplier!r}: invalid syntax") from None

    def errors(self) -> list[str]:
        """The collector's ``checkSpecs`` and the multiplier's parse, as upstream's ``New``."""
        errors = self.spec.errors()
        if errors:
            return errors
        try:
            self.multiplier()
        except PluginArgsError as exc:
            return list(exc.errors)
        return []


ARGS_TYPE: Final = TargetLoadPackingArgs


@final
class TargetLoadPacking(TrimaranScorer[TargetLoadPackingArgs]):
    """The TargetLoadPacking plugin (Score).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_assigned", "_default_milli", "_multiplier", "_target")

    def __init__(self, args: TargetLoadPackingArgs, handle: Handle) -> None:
        super().__init__(NAME, args, handle)
        self._assigned = AssignedPodsCache(handle)
        self._target = args.target_utilization
        cpu = args.default_requests.get(CPU)
        self._default_milli = Quantity.parse(cpu).milli_value() if cpu is not None else 0
        self._multiplier = args.multiplier()

    @property
    def name(self) -> str:
        """``"TargetLoadPacking"``."""
        return NAME

    def predict_container(self, c: Container) -> int:
        """upstream ``PredictUtilisation``: the container's predicted CPU in millicores."""
        if CPU in c.limits:
            return c.limits[CPU].milli_value()
        if CPU in c.requests:
            return go_round(c.requests[CPU].milli_value() * self._multiplier)
        return self._default_milli

    def predict_pod(self, pod: Pod) -> int:
        """The pod's predicted CPU: its containers' plus its CPU overhead."""
        total = sum(self.predict_container(c) for c in pod.containers)
        if CPU in pod.overhead:
            total += pod.overhead[CPU].milli_value()
        return total

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The target-load score above."""
        metrics, all_metrics = self._collector.node_metrics(node_info.name)
        if metrics is None or all_metrics is None:
            return MIN_NODE_SCORE, None
        pod_cpu = self.predict_pod(pod)
        util = 0.0
        found = False
        for m in metrics:
            if m.type == CPU_METRIC and m.operator in (AVERAGE, LATEST):
                util = m.value
                found = True
        if not found:
            return MIN_NODE_SCORE, None
        cap = float(node_cpu_capacity(node_info))
        util_millis = util / 100 * cap
        missing = sum(self.predict_pod(p) for p in self._assigned.recent(node_info, all_metrics.window_end))
        predicted = 100 * (util_millis + pod_cpu + missing) / cap if cap else 0.0
        target = float(self._target)
        if predicted > target:
            if predicted > 100:
                return MIN_NODE_SCORE, None
            return go_round(target * (100 - predicted) / (100 - target)), None
        return go_round((100 - target) * predicted / target + target), None


def new(args: object, handle: Handle) -> TargetLoadPacking:
    """Factory: *args* is ``None``, a :class:`TargetLoadPackingArgs` or a camelCase mapping."""
    parsed = plugin_args(args, TargetLoadPackingArgs)
    return TargetLoadPacking(parsed, handle)


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: TargetLoadPacking) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
