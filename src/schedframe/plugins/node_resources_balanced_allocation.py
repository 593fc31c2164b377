"""NodeResourcesBalancedAllocation: favour nodes whose resource usage the pod makes more balanced.

Mirrors kube-scheduler's ``noderesources/balanced_allocation.go`` as changed by
kubernetes/kubernetes#135573 (December 2025): the score rewards the *change* in balance the pod
causes, not the balance after placement. For each configured resource the fraction
``requested / allocatable`` (capped at 1) is computed twice, with the pod
(``node's requested + pod's request``) and without it (``node's requested``); each set gives a
balance ``(1 - std) * 100`` truncated, where ``std`` is the standard deviation of the fractions
(``|f1 - f2| / 2`` for two resources, 0 for fewer). With ``B_with`` and ``B_without`` those
balances (each in [50, 100]) the score is::

    50 + (50 + B_with - B_without) / 2        (integer division)

so a pod that leaves the balance unchanged scores 75, one that turns a perfectly balanced node
into a perfectly unbalanced one 50, and the reverse 100. Actual requests are used (not the
non-zero scoring defaults), and best-effort pods (no request of any configured resource) are
skipped in PreScore.

Older releases (the release is read from the handle, see :doc:`/releases`): before 1.36 the
score is ``B_with`` itself (the balance after placement); before 1.33 (kubernetes#130260)
best-effort pods are not skipped: every node scores its own balance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, Final, final

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ..framework.args import validate_args
from ..framework.cycle_state import CycleState, StateKey
from ..framework.handle import Handle
from ..framework.interfaces import ScoreExtensions
from ..framework.registry import plugin_args
from ..framework.releases import release_of
from ..framework.status import Status
from . import names
from ._helpers import WithArgs, go_div
from ._resource_scoring import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    _MemoNodesScorer,
    balanced_resource_score,
    defaulted_resources,
    field_duplicate,
    field_invalid,
)
from ._run_memo import RunMemo, snapshot_of

__all__ = [
    "ARGS_TYPE",
    "NAME",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesBalancedAllocationArgs",
    "ResourceSpec",
    "balance_change_score",
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

    KIND: ClassVar[str] = "NodeResourcesBalancedAllocationArgs"

    def with_defaults(self) -> NodeResourcesBalancedAllocationArgs:
        """Upstream's v1 defaults: no resources is cpu and memory; a zero weight is 1."""
        return attrs.evolve(self, resources=defaulted_resources(self.resources))

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

ARGS_TYPE: Final = NodeResourcesBalancedAllocationArgs

_PRE_SCORE_KEY: Final[StateKey[tuple[int, ...]]] = StateKey("PreScore" + NAME, NAME)


def _is_best_effort(pod_requests: Sequence[int]) -> bool:
    return not any(pod_requests)


_HALF: Final = 50  # MaxNodeScore / 2


def balance_change_score(with_pod: int, without_pod: int) -> int:
    """The score of a node from its balance with and without the pod (upstream
    ``balancedResourceScorer`` since kubernetes#135573): ``50 + (50 + with - without) / 2``."""
    return _HALF + go_div(_HALF + with_pod - without_pod, 2)


def _change_from_lists(requested: Sequence[int], allocatable: Sequence[int],
                       pod_requests: Sequence[int]) -> int:
    """The change score from the per-resource amounts with the pod (``requested``, 0 where a
    resource is skipped) and the pod's own requests."""
    allocated = [r - p if a else 0 for r, p, a in zip(requested, pod_requests, allocatable)]
    return balance_change_score(balanced_resource_score(requested, allocatable),
                                balanced_resource_score(allocated, allocatable))


def _balance(fc: float, fm: float) -> int:
    if fc > 1:
        fc = 1.0
    if fm > 1:
        fm = 1.0
    return int((1 - abs((fc - fm) / 2)) * 100.0)


def _cpu_memory_balance(scorer: ResourceAllocationScorer) -> Callable[[NodeInfo, Sequence[int]], int]:
    """The score before kubernetes#135573 (Kubernetes 1.35 and older): the balance with the pod,
    ``(1 - std) * 100`` truncated; specialised for ``[cpu, memory]``."""

    def generic(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        requested, allocatable = scorer.allocatable_requested(node_info, pod_requests)
        return balanced_resource_score(requested, allocatable)

    def balance(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        alloc = node_info.allocatable
        cap_c = alloc.milli_cpu
        cap_m = alloc.memory
        if cap_c == 0 or cap_m == 0:
            return generic(node_info, pod_requests)
        used = node_info.requested
        return _balance(float(used.milli_cpu + pod_requests[0]) / float(cap_c),
                        float(used.memory + pod_requests[1]) / float(cap_m))

    is_cpu_memory = [r.name for r in scorer.resources] == ["cpu", "memory"]
    return balance if is_cpu_memory else generic


def _cpu_memory_change(scorer: ResourceAllocationScorer) -> Callable[[NodeInfo, Sequence[int]], int]:
    """The change score specialised for resources ``[cpu, memory]`` (same result as the
    generic computation)."""

    def generic(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        requested, allocatable = scorer.allocatable_requested(node_info, pod_requests)
        return _change_from_lists(requested, allocatable, pod_requests)

    def change(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        alloc = node_info.allocatable
        cap_c = alloc.milli_cpu
        cap_m = alloc.memory
        if cap_c == 0 or cap_m == 0:
            return generic(node_info, pod_requests)
        used = node_info.requested
        c, m = used.milli_cpu, used.memory
        with_pod = _balance(float(c + pod_requests[0]) / float(cap_c),
                            float(m + pod_requests[1]) / float(cap_m))
        without_pod = _balance(float(c) / float(cap_c), float(m) / float(cap_m))
        return _HALF + go_div(_HALF + with_pod - without_pod, 2)

    is_cpu_memory = [r.name for r in scorer.resources] == ["cpu", "memory"]
    return change if is_cpu_memory else generic


#: resource_row indexes (``NodeInfo.resource_row``): allocatable cpu, memory; requested cpu, memory
_ROW_ALLOC_CPU: Final = 4
_ROW_ALLOC_MEMORY: Final = 5
_ROW_REQ_CPU: Final = 8
_ROW_REQ_MEMORY: Final = 9


def _cpu_memory_change_nodes(single: Callable[[NodeInfo, Sequence[int]], int]
                             ) -> Callable[[Sequence[NodeInfo], Sequence[int]], list[int]]:
    """:func:`_cpu_memory_change`'s ``change`` over many nodes in one loop, reading each node's
    flat ``resource_row``; nodes with a zero allocatable go through *single* (the same result:
    the same float operations in the same order). Each row's balance without the pod
    (:func:`_balance_without_pod`) is remembered by the row itself (a tuple shared by the nodes
    with equal amounts, replaced whenever a node's amounts change), so every pod shape that
    scores a row after the first reuses it."""
    #: id(row) -> (row, balance without the pod); cleared when it outgrows the rows in use
    without_of: dict[int, tuple[tuple[int, ...], int]] = {}

    def change_nodes(nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        pc = pod_requests[0]
        pm = pod_requests[1]
        out: list[int] = []
        append = out.append
        get = without_of.get
        if len(without_of) > _MAX_ROWS:
            without_of.clear()
        for ni in nodes:
            row = ni.resource_row
            cap_c = row[_ROW_ALLOC_CPU]
            cap_m = row[_ROW_ALLOC_MEMORY]
            if cap_c == 0 or cap_m == 0:
                append(single(ni, pod_requests))
                continue
            c = row[_ROW_REQ_CPU]
            m = row[_ROW_REQ_MEMORY]
            fc = float(c + pc) / float(cap_c)
            fm = float(m + pm) / float(cap_m)
            with_pod = int((1 - abs(((1.0 if fc > 1 else fc) - (1.0 if fm > 1 else fm)) / 2)) * 100.0)
            known = get(id(row))
            if known is not None and known[0] is row:
                without = known[1]
            else:
                without = _balance_without_pod(row)
                without_of[id(row)] = (row, without)
            d = _HALF + with_pod - without
            append(_HALF + (d // 2 if d >= 0 else -(-d // 2)))
        return out

    return change_nodes


#: rows whose balance without the pod change_nodes remembers before starting over
_MAX_ROWS: Final = 8_192


def _balance_without_pod(row: tuple[int, ...]) -> int:
    """:func:`_cpu_memory_change`'s balance of a node without the pod, from its row alone; -1
    when an allocatable is zero (such nodes go through the per-node function)."""
    cap_c = row[_ROW_ALLOC_CPU]
    cap_m = row[_ROW_ALLOC_MEMORY]
    if cap_c == 0 or cap_m == 0:
        return -1
    fc = float(row[_ROW_REQ_CPU]) / float(cap_c)
    fm = float(row[_ROW_REQ_MEMORY]) / float(cap_m)
    return int((1 - abs(((1.0 if fc > 1 else fc) - (1.0 if fm > 1 else fm)) / 2)) * 100.0)


@final
class NodeResourcesBalancedAllocation(WithArgs[NodeResourcesBalancedAllocationArgs]):
    """The NodeResourcesBalancedAllocation plugin (PreScore, Score).

    .. versionadded:: 0.1.0
    """

    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True

    __module__ = "schedframe.plugins.node_resources_balanced_allocation"
    __slots__ = ("_args", "_handle", "_memo", "_score", "_score_nodes", "_scorer", "_skip_best_effort")

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None = None,
                 handle: Handle | None = None) -> None:
        args = NodeResourcesBalancedAllocationArgs() if args is None else args
        validate_args(args)
        self._args = args
        self._handle = handle
        self._scorer = ResourceAllocationScorer(args.resources, balanced_resource_score, use_requested=True)
        release = release_of(handle)
        self._skip_best_effort = release.has("BalancedAllocationSkipsBestEffort")
        cpu_memory = [r.name for r in args.resources] == ["cpu", "memory"]
        if release.has("BalancedAllocationScoresChange"):
            score = self._score = _cpu_memory_change(self._scorer)
            batch = _MemoNodesScorer(_cpu_memory_change_nodes(score)) if cpu_memory else None
        else:
            score = self._score = _cpu_memory_balance(self._scorer)
            batch = None
        self._score_nodes: Callable[[Sequence[NodeInfo], Sequence[int]], list[int]] = (
            batch if batch is not None else (lambda nodes, reqs: [score(ni, reqs) for ni in nodes]))
        self._memo: RunMemo[int] = RunMemo()

    @property
    def name(self) -> str:
        """``"NodeResourcesBalancedAllocation"``."""
        return NAME

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Compute the pod's requests once; SKIP best-effort pods (kubernetes#129138)."""
        reqs = self._scorer.pod_requests(pod)
        if self._skip_best_effort and _is_best_effort(reqs):
            return Status.skip()
        state.write(_PRE_SCORE_KEY, reqs)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``50 + (50 + balance with the pod - balance without it) / 2`` (see the module)."""
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
            if self._skip_best_effort and _is_best_effort(reqs):
                return 0, None
        return self._score(node_info, reqs), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`)."""
        if not nodes:
            return []
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
            if self._skip_best_effort and _is_best_effort(reqs):
                return [0] * len(nodes)
        # the score depends on the requests and the NodeInfo only: remembered per position
        lister = snapshot_of(self._handle)
        score_nodes = self._score_nodes
        return self._memo.values(reqs, lister, nodes, lambda some: score_nodes(some, reqs))

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
    parsed = plugin_args(args, NodeResourcesBalancedAllocationArgs, validate=False)
    return NodeResourcesBalancedAllocation(parsed, handle)


if TYPE_CHECKING:
    from ..framework.interfaces import BatchScorePlugin, PreScorePlugin, ScorePlugin

    _p = NodeResourcesBalancedAllocation()
    _batch_score: BatchScorePlugin = _p
    _pre_score: PreScorePlugin = _p
    _score: ScorePlugin = _p
