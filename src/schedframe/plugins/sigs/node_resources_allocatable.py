"""NodeResourcesAllocatable: prefer nodes by their allocatable resources
(kubernetes-sigs/scheduler-plugins ``pkg/noderesources/allocatable.go``).

Score: the weighted mean over the configured resources of ``-allocatable`` (mode ``Least``: the
smallest nodes first, packing) or ``+allocatable`` (mode ``Most``), in the scheduler's units (CPU
in millicores, memory in bytes; a resource that is not CPU, memory, ephemeral storage or a scalar
resource counts 0), truncated as Go's integer division. NormalizeScore maps the scores min-max
onto [0, 100] (all equal: 0). What pods request does not enter the score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.objects import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from ...cache.nodeinfo import NodeInfo
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore
from ...framework.registry import plugin_args
from ...framework.status import Code, Status
from .._helpers import FieldErrors, WithArgs, go_div
from .._resource_scoring import is_scalar_resource_name

if TYPE_CHECKING:
    pass

__all__ = ["ARGS_TYPE", "LEAST", "MOST", "NAME", "NodeResourcesAllocatable", "NodeResourcesAllocatableArgs",
           "ResourceWeight", "new"]

NAME: Final = "NodeResourcesAllocatable"
#: Mode: prefer the nodes with the least allocatable resources.
LEAST: Final = "Least"
#: Mode: prefer the nodes with the most allocatable resources.
MOST: Final = "Most"
_MODES: Final = (LEAST, MOST)


@final
@attrs.frozen
class ResourceWeight:
    """One ``resources[]`` entry: a resource name and its weight.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    name: str
    weight: int


#: upstream ``defaultNodeResourcesAllocatableResourcesToWeightMap``: a millicore weighs as a MiB.
_DEFAULT_RESOURCES: Final = (ResourceWeight(CPU, 1 << 20), ResourceWeight(MEMORY, 1))
_ARGS_KEYS: Final = frozenset({"mode", "resources", "apiVersion", "kind"})


@final
@attrs.frozen(kw_only=True)
class NodeResourcesAllocatableArgs:
    """``NodeResourcesAllocatableArgs`` (scheduler-plugins ``config/v1``), defaulted as upstream:
    mode ``Least``; resources ``cpu`` weight 1<<20 and ``memory`` weight 1.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    mode: str = LEAST
    resources: tuple[ResourceWeight, ...] = _DEFAULT_RESOURCES

    def with_defaults(self) -> NodeResourcesAllocatableArgs:
        """Upstream's defaulting: mode ``Least`` and cpu/memory resources when not given."""
        return attrs.evolve(self, mode=self.mode or LEAST, resources=self.resources or _DEFAULT_RESOURCES)

    def errors(self) -> list[str]:
        """Upstream ``ValidateNodeResourcesAllocatableArgs``: positive weights, a known mode."""
        errs = FieldErrors()
        for i, r in enumerate(self.resources):
            if not r.name:
                errs.add(f"resources[{i}].name: must be a non-empty string")
            if r.weight <= 0:
                errs.invalid(f"resources[{i}].weight", r.weight,
                             f"resource weight of {r.name} should be a positive value, got :{r.weight}")
        if self.mode not in _MODES:
            errs.invalid("mode", self.mode, "invalid support ModeType")
        return errs.errors


ARGS_TYPE: Final = NodeResourcesAllocatableArgs


def _allocatable(ni: NodeInfo, resource: str) -> int:
    alloc = ni.allocatable
    if resource == CPU:
        return alloc.milli_cpu
    if resource == MEMORY:
        return alloc.memory
    if resource == EPHEMERAL_STORAGE:
        return alloc.ephemeral_storage
    if is_scalar_resource_name(resource):
        return alloc.scalar.get(resource, 0)
    return 0


@final
class NodeResourcesAllocatable(WithArgs[NodeResourcesAllocatableArgs]):
    """The NodeResourcesAllocatable plugin (Score with NormalizeScore).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_args", "_sign", "_weights")

    def __init__(self, args: NodeResourcesAllocatableArgs) -> None:
        self._args = args
        self._sign = -1 if args.mode == LEAST else 1
        weights: dict[str, int] = {}
        for r in args.resources:  # a repeated name keeps its last weight, as upstream's map
            weights[r.name] = r.weight
        self._weights = weights

    @property
    def name(self) -> str:
        """``"NodeResourcesAllocatable"``."""
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The weighted mean of the signed allocatable amounts."""
        if node_info.node is None:
            return 0, Status(Code.ERROR, ("node not found",))
        total = weight_sum = 0
        for resource, weight in self._weights.items():
            total += self._sign * _allocatable(node_info, resource) * weight
            weight_sum += weight
        return go_div(total, weight_sum), None

    def score_extensions(self) -> NodeResourcesAllocatable:
        """NormalizeScore maps the scores min-max onto [0, 100]."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Min-max normalization (all equal: every node 0)."""
        return normalize_min_max(scores)


def normalize_min_max(scores: list[NodeScore]) -> Status | None:
    """scheduler-plugins' min-max NormalizeScore: ``(s - lowest) * 100 // (highest - lowest)``;
    every node ``MIN_NODE_SCORE`` when all are equal."""
    if not scores:
        return None
    lo = min(ns.score for ns in scores)
    hi = max(ns.score for ns in scores)
    span = hi - lo
    new_range = MAX_NODE_SCORE - MIN_NODE_SCORE
    for i, ns in enumerate(scores):
        value = MIN_NODE_SCORE if span == 0 else (ns.score - lo) * new_range // span + MIN_NODE_SCORE
        if value != ns.score:
            scores[i] = NodeScore(ns.name, value)
    return None


def new(args: object, handle: Handle) -> NodeResourcesAllocatable:
    """Factory: *args* is ``None``, a :class:`NodeResourcesAllocatableArgs` or a camelCase mapping."""
    return NodeResourcesAllocatable(plugin_args(args, NodeResourcesAllocatableArgs))


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: NodeResourcesAllocatable) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p

