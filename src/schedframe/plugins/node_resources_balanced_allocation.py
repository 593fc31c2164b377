"""NodeResourcesBalancedAllocation: favour nodes whose resource usage stays balanced.

Mirrors kube-scheduler's ``noderesources/balanced_allocation.go``: for each configured resource
the fraction ``(node's requested + pod's request) / allocatable`` (capped at 1) is computed, and
the score is ``(1 - std) * 100`` where ``std`` is the standard deviation of those fractions
(``|f1 - f2| / 2`` for two resources). Actual requests are used (not the non-zero scoring
defaults), and best-effort pods (no request of any configured resource) are skipped in PreScore.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ..errors import PluginArgsError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.handle import Handle
from ..framework.interfaces import ScoreExtensions
from ..framework.status import Status
from . import names
from ._resource_scoring import (
    DEFAULT_RESOURCES,
    ArgsDecoder,
    ResourceAllocationScorer,
    ResourceSpec,
    balanced_resource_score,
    cpu_memory_fast_path,
    cpu_memory_fast_path_columns,
    cpu_memory_fast_path_nodes,
    field_duplicate,
    field_invalid,
    go_value,
)
from ._run_memo import NodeColumns, RunMemo, columns_whole, snapshot_of

__all__ = [
    "ARGS_TYPE",
    "NAME",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesBalancedAllocationArgs",
    "ResourceSpec",
    "new",
]

NAME: Final = names.NODE_RESOURCES_BALANCED_ALLOCATION


def _specs(value: Iterable[ResourceSpec]) -> tuple[ResourceSpec, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@final
@attrs.frozen(kw_only=True)
class NodeResourcesBalancedAllocationArgs:
    """Arguments of NodeResourcesBalancedAllocation (``kubescheduler.config.k8s.io/v1``).

    ``NodeResourcesBalancedAllocationArgs()`` equals upstream's defaults: cpu and memory, weight 1.
    Weights must be 1 (upstream ignores them but validates them).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_balanced_allocation"

    resources: tuple[ResourceSpec, ...] = attrs.field(default=DEFAULT_RESOURCES, converter=_specs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NodeResourcesBalancedAllocationArgs:
        """Decode the camelCase ``pluginConfig[].args`` mapping, apply upstream's v1 defaults
        (empty resources: cpu and memory; missing or zero weight: 1) and validate.

        Raises:
            PluginArgsError: on unknown fields, wrong types or invalid values (all listed).
        """
        dec = ArgsDecoder()
        m = dec.mapping(data, "", ("apiVersion", "kind", "resources"))
        if m is None:
            raise PluginArgsError(dec.errors)
        kind = m.get("kind")
        if kind is not None and kind != "NodeResourcesBalancedAllocationArgs":
            dec.errors.append(f"kind: want {go_value('NodeResourcesBalancedAllocationArgs')}, "
                              f"got {go_value(kind)}")
        resources = dec.resources(m.get("resources"), "resources") or DEFAULT_RESOURCES
        if dec.errors:
            raise PluginArgsError(dec.errors)
        args = cls(resources=resources)
        args.validate()
        return args

    def to_dict(self) -> dict[str, Any]:
        """The effective args as a camelCase mapping."""
        return {"resources": [r.to_dict() for r in self.resources]}

    def errors(self) -> list[str]:
        """Every validation problem (upstream ``ValidateNodeResourcesBalancedAllocationArgs``)."""
        errs: list[str] = []
        seen: set[str] = set()
        for i, spec in enumerate(self.resources):
            if spec.name in seen:
                errs.append(field_duplicate(f"resources[{i}].name", spec.name))
            else:
                seen.add(spec.name)
            if spec.weight != 1:
                errs.append(field_invalid(f"resources[{i}].weight", spec.weight, "must be 1"))
        return errs

    def validate(self) -> None:
        """Raise :class:`~schedframe.PluginArgsError` listing every problem, if any."""
        errs = self.errors()
        if errs:
            raise PluginArgsError(errs)


ARGS_TYPE: Final = NodeResourcesBalancedAllocationArgs

_PRE_SCORE_KEY: Final[StateKey[tuple[int, ...]]] = StateKey("PreScore" + NAME, NAME)


def _is_best_effort(pod_requests: Sequence[int]) -> bool:
    return not any(pod_requests)


@final
class NodeResourcesBalancedAllocation:
    """The NodeResourcesBalancedAllocation plugin (PreScore, Score).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_balanced_allocation"
    __slots__ = ("_args", "_columns", "_handle", "_memo", "_score", "_score_columns", "_score_nodes",
                 "_scorer")

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None = None,
                 handle: Handle | None = None) -> None:
        args = NodeResourcesBalancedAllocationArgs() if args is None else args
        args.validate()
        self._args = args
        self._handle = handle
        self._scorer = ResourceAllocationScorer(
            args.resources, balanced_resource_score, use_requested=True,
            fast=cpu_memory_fast_path(args.resources, "Balanced", use_requested=True),
            fast_nodes=cpu_memory_fast_path_nodes(args.resources, "Balanced", use_requested=True))
        self._score = self._scorer.score
        self._score_nodes = self._scorer.score_nodes
        self._memo: RunMemo[int] = RunMemo()
        self._columns = NodeColumns()
        self._score_columns = cpu_memory_fast_path_columns(args.resources, "Balanced", use_requested=True)

    @property
    def name(self) -> str:
        """``"NodeResourcesBalancedAllocation"``."""
        return NAME

    @property
    def args(self) -> NodeResourcesBalancedAllocationArgs:
        """The args the plugin runs with."""
        return self._args

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Compute the pod's requests once; SKIP best-effort pods (kubernetes#129138)."""
        reqs = self._scorer.pod_requests(pod)
        if _is_best_effort(reqs):
            return Status.skip()
        state.write(_PRE_SCORE_KEY, reqs)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``(1 - std) * 100`` of the node's resource fractions with the pod placed."""
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
            if _is_best_effort(reqs):
                return 0, None
        return self._score(node_info, reqs), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`)."""
        if not nodes:
            return []
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
            if _is_best_effort(reqs):
                return [0] * len(nodes)
        # the score depends on the requests and the NodeInfo only: remembered per position
        lister = snapshot_of(self._handle)
        score_nodes = self._score_nodes
        return self._memo.values(reqs, lister, nodes, lambda some: score_nodes(some, reqs),
                                 columns_whole(self._columns, self._score_columns, reqs))

    def score_extensions(self) -> ScoreExtensions | None:
        """None: scores are already in [0, 100]."""
        return None


def new(args: object, handle: Handle) -> NodeResourcesBalancedAllocation:
    """The NodeResourcesBalancedAllocation factory.

    Args:
        args: ``None`` (defaults), a :class:`NodeResourcesBalancedAllocationArgs`, or the
            camelCase mapping.
        handle: the framework handle.

    Raises:
        PluginArgsError: when *args* has the wrong type or is invalid.
    """
    if args is None:
        args = NodeResourcesBalancedAllocationArgs()
    elif isinstance(args, Mapping):
        args = NodeResourcesBalancedAllocationArgs.from_dict(args)
    elif not isinstance(args, NodeResourcesBalancedAllocationArgs):
        raise PluginArgsError(
            f"want args of type NodeResourcesBalancedAllocationArgs, got {type(args).__name__}")
    return NodeResourcesBalancedAllocation(args, handle)


if TYPE_CHECKING:
    from ..framework.interfaces import BatchScorePlugin, PreScorePlugin, ScorePlugin

    _p = NodeResourcesBalancedAllocation()
    _batch_score: BatchScorePlugin = _p
    _pre_score: PreScorePlugin = _p
    _score: ScorePlugin = _p
