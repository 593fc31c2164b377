"""NodeResourcesFit: does the node have room for the pod's requests, and how full would it be?

Mirrors kube-scheduler's ``noderesources/fit.go``:

- **PreFilter** computes the pod's effective requests once (``Pod.requests``).
- **Filter** checks the pod count, cpu, memory, ephemeral-storage and every scalar resource
  (extended resources, hugepages, ``kubernetes.io/`` resources) against the node's allocatable
  minus what its pods request. All failing resources are reported; the status is
  ``UNSCHEDULABLE_AND_UNRESOLVABLE`` when some request exceeds the node's whole allocatable
  (preemption cannot help), ``UNSCHEDULABLE`` otherwise. Extended resources named in
  ``ignoredResources`` or belonging to a group in ``ignoredResourceGroups`` are not checked.
- **PreScore/Score** rank nodes with the configured strategy (LeastAllocated, MostAllocated or
  RequestedToCapacityRatio) over the configured resources, using the non-zero requests (100m CPU,
  200Mi memory for containers that request none).
- Queueing hints requeue a rejected pod when a scheduled pod is deleted or scaled down, or when a
  node is added or grows its allocatable so that the pod would fit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

import attrs

from ..api.objects import Node, Pod
from ..cache.nodeinfo import NodeInfo
from ..errors import StateNotFoundError
from ..framework.args import validate_args
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.handle import Handle
from ..framework.interfaces import PreFilterExtensions, PreFilterResult, ScoreExtensions
from ..framework.registry import plugin_args
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import WithArgs
from ._resource_scoring import (
    DEFAULT_RESOURCES,
    LEAST_ALLOCATED,
    MAX_CUSTOM_PRIORITY_SCORE,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ResourceAllocationScorer,
    ResourceSpec,
    cpu_memory_fast_path,
    cpu_memory_fast_path_nodes,
    defaulted_resources,
    field_invalid,
    field_not_supported,
    field_required,
    go_value,
    is_extended_resource_name,
    is_scalar_resource_name,
    least_allocated_scorer,
    most_allocated_scorer,
    requested_to_capacity_ratio_scorer,
    validate_label_name,
)
from ._run_memo import COLUMN_ROOM, NodeColumns, RunMemo, rejections, snapshot_of

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_INSUFFICIENT_CPU",
    "ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE",
    "ERR_REASON_INSUFFICIENT_MEMORY",
    "ERR_REASON_TOO_MANY_PODS",
    "LEAST_ALLOCATED",
    "MOST_ALLOCATED",
    "NAME",
    "REQUESTED_TO_CAPACITY_RATIO",
    "InsufficientResource",
    "NodeResourcesFit",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "fits",
    "insufficient_reason",
    "new",
]

NAME: Final = names.NODE_RESOURCES_FIT

ERR_REASON_TOO_MANY_PODS: Final = "Too many pods"
ERR_REASON_INSUFFICIENT_CPU: Final = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY: Final = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE: Final = "Insufficient ephemeral-storage"

SCORING_STRATEGY_TYPES: Final = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

_MAX_WEIGHT: Final = 100


def insufficient_reason(resource_name: str) -> str:
    """The Filter reason for a resource the node lacks: ``"Insufficient <name>"``."""
    return f"Insufficient {resource_name}"


# --------------------------------------------------------------------------------------------
# Args


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _specs(value: Iterable[ResourceSpec]) -> tuple[ResourceSpec, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@final
@attrs.frozen(kw_only=True)
class UtilizationShapePoint:
    """A point of the RequestedToCapacityRatio scoring function: at *utilization* percent the
    resource scores *score* (0-10, scaled to 0-100 when scoring).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    utilization: int
    score: int


def _points(value: Iterable[UtilizationShapePoint]) -> tuple[UtilizationShapePoint, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@final
@attrs.frozen(kw_only=True)
class RequestedToCapacityRatioParam:
    """The shape of the RequestedToCapacityRatio strategy.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    shape: tuple[UtilizationShapePoint, ...] = attrs.field(default=(), converter=_points)


@final
@attrs.frozen(kw_only=True)
class ScoringStrategy:
    """How NodeResourcesFit scores nodes (upstream ``config.ScoringStrategy``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = attrs.field(default=DEFAULT_RESOURCES, converter=_specs)
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@final
@attrs.frozen(kw_only=True)
class NodeResourcesFitArgs:
    """Arguments of NodeResourcesFit (``NodeResourcesFitArgs`` in ``kubescheduler.config.k8s.io/v1``).

    ``NodeResourcesFitArgs()`` equals upstream's defaults: nothing ignored, LeastAllocated over
    cpu and memory with weight 1.

    Attributes:
        ignored_resources: extended resources Filter does not check.
        ignored_resource_groups: extended-resource groups (the part before ``/``) Filter does not
            check.
        scoring_strategy: the Score strategy.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    ignored_resources: tuple[str, ...] = attrs.field(
        default=(), converter=_strs, metadata={"omitempty": True})
    ignored_resource_groups: tuple[str, ...] = attrs.field(
        default=(), converter=_strs, metadata={"omitempty": True})
    scoring_strategy: ScoringStrategy = attrs.field(factory=ScoringStrategy)

    KIND: ClassVar[str] = "NodeResourcesFitArgs"

    def with_defaults(self) -> NodeResourcesFitArgs:
        """Upstream's v1 defaults: the strategy's resources cpu and memory when none are given,
        and a zero weight 1."""
        ss = self.scoring_strategy
        strategy = attrs.evolve(ss, resources=defaulted_resources(ss.resources))
        return attrs.evolve(self, scoring_strategy=strategy)

    def errors(self) -> list[str]:
        """Every validation problem (upstream ``ValidateNodeResourcesFitArgs``), with field paths."""
        errs: list[str] = []
        for i, res in enumerate(self.ignored_resources):
            errs.extend(validate_label_name(res, f"ignoredResources[{i}]"))
        for i, group in enumerate(self.ignored_resource_groups):
            path = f"ignoredResourceGroups[{i}]"
            if "/" in group:
                errs.append(field_invalid(path, group, "resource group name can't contain '/'"))
            errs.extend(validate_label_name(group, path))
        ss = self.scoring_strategy
        if ss.type not in SCORING_STRATEGY_TYPES:
            errs.append(field_not_supported("scoringStrategy.type", ss.type, SCORING_STRATEGY_TYPES))
        for i, spec in enumerate(ss.resources):
            if spec.weight <= 0 or spec.weight > _MAX_WEIGHT:
                errs.append(field_invalid(f"scoringStrategy.resources[{i}].weight", spec.weight,
                                          f"resource weight of {spec.name} not in valid range (0, 100]"))
        if ss.requested_to_capacity_ratio is not None:
            errs.extend(shape_errors(ss.requested_to_capacity_ratio.shape, "scoringStrategy.shape"))
        elif ss.type == REQUESTED_TO_CAPACITY_RATIO:
            # Upstream dereferences the missing parameter and panics; schedframe reports it.
            errs.append(field_required("scoringStrategy.requestedToCapacityRatio",
                                       f"must be set when type is {go_value(REQUESTED_TO_CAPACITY_RATIO)}"))
        return errs



def shape_errors(shape: Sequence[UtilizationShapePoint], path: str) -> list[str]:
    """Upstream ``validateFunctionShape``: the errors of a RequestedToCapacityRatio shape (also
    VolumeBinding's)."""
    if not shape:
        return [field_required(path, "at least one point must be specified")]
    errs: list[str] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(field_invalid(f"{path}[{i}].utilization", shape[i].utilization,
                                      "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        if point.utilization < 0 or point.utilization > 100:
            errs.append(field_invalid(f"{path}[{i}].utilization", point.utilization,
                                      "not in valid range [0, 100]"))
        if point.score < 0 or point.score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(field_invalid(f"{path}[{i}].score", point.score,
                                      f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


ARGS_TYPE: Final = NodeResourcesFitArgs


# --------------------------------------------------------------------------------------------
# Filter


@final
@attrs.frozen
class InsufficientResource:
    """A resource the node lacks for the pod (upstream ``noderesources.InsufficientResource``).

    ``unresolvable`` is True when the request exceeds the node's whole allocatable, so evicting
    pods cannot make room.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


@final
class _PodRequest:
    """The pod's requests as Filter checks them (upstream ``preFilterState``).

    ``scalars`` holds the non-zero scalar requests that are not ignored.
    """

    __slots__ = ("ephemeral_storage", "memory", "milli_cpu", "scalars")

    def __init__(self, milli_cpu: int, memory: int, ephemeral_storage: int,
                 scalars: tuple[tuple[str, int], ...]) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalars = scalars

    def __repr__(self) -> str:
        return (f"_PodRequest(milli_cpu={self.milli_cpu}, memory={self.memory}, "
                f"ephemeral_storage={self.ephemeral_storage}, scalars={self.scalars!r})")


def _is_ignored(name: str, ignored: frozenset[str], groups: frozenset[str]) -> bool:
    if not is_extended_resource_name(name):
        return False
    return name in ignored or (bool(groups) and name.split("/", 1)[0] in groups)


def _pod_request(pod: Pod, ignored: frozenset[str] = frozenset(),
                 groups: frozenset[str] = frozenset()) -> _PodRequest:
    r = pod.requests
    scalars: tuple[tuple[str, int], ...] = ()
    if r.scalar:
        scalars = tuple((name, q) for name, q in r.scalar.items()
                        if q > 0 and is_scalar_resource_name(name) and not _is_ignored(name, ignored, groups))
    return _PodRequest(r.milli_cpu, r.memory, r.ephemeral_storage, scalars)


def _fits_request(req: _PodRequest, node_info: NodeInfo) -> list[InsufficientResource]:
    out: list[InsufficientResource] = []
    alloc = node_info.allocatable
    used = node_info.requested
    n_pods = len(node_info.pods)
    if n_pods + 1 > alloc.pods:
        out.append(InsufficientResource("pods", ERR_REASON_TOO_MANY_PODS, 1, n_pods, alloc.pods))
    cpu = req.milli_cpu
    if cpu > 0 and cpu > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource("cpu", ERR_REASON_INSUFFICIENT_CPU, cpu, used.milli_cpu,
                                        alloc.milli_cpu, cpu > alloc.milli_cpu))
    mem = req.memory
    if mem > 0 and mem > alloc.memory - used.memory:
        out.append(InsufficientResource("memory", ERR_REASON_INSUFFICIENT_MEMORY, mem, used.memory,
                                        alloc.memory, mem > alloc.memory))
    eph = req.ephemeral_storage
    if eph > 0 and eph > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(InsufficientResource("ephemeral-storage", ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE, eph,
                                        used.ephemeral_storage, alloc.ephemeral_storage,
                                        eph > alloc.ephemeral_storage))
    for name, q in req.scalars:
        cap = alloc.scalar.get(name, 0)
        in_use = used.scalar.get(name, 0)
        if q > cap - in_use:
            out.append(InsufficientResource(name, insufficient_reason(name), q, in_use, cap, q > cap))
    return out


def fits(pod: Pod, node_info: NodeInfo, *, ignored_resources: Iterable[str] = (),
         ignored_resource_groups: Iterable[str] = ()) -> list[InsufficientResource]:
    """What *node_info* lacks to host *pod* (empty when it fits); upstream ``noderesources.Fits``.

    .. versionadded:: 0.1.0
    """
    return _fits_request(_pod_request(pod, frozenset(ignored_resources), frozenset(ignored_resource_groups)),
                         node_info)


def _status(insufficient: Sequence[InsufficientResource], unresolvable: bool = True) -> Status:
    code = Code.UNSCHEDULABLE
    if unresolvable:
        for r in insufficient:
            if r.unresolvable:
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
                break
    return Status(code, tuple(r.reason for r in insufficient))


_TOO_MANY_PODS: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_TOO_MANY_PODS,))


def _rejection(bits: int) -> Status | None:
    """The status of a node lacking pods room (bit 1), CPU (2; 4: more than allocatable) and
    memory (8; 16: more than allocatable): what ``_status`` gives for the same shortfalls."""
    if not bits:
        return None
    if bits == 1:
        return _TOO_MANY_PODS
    named = ((1, ERR_REASON_TOO_MANY_PODS), (2, ERR_REASON_INSUFFICIENT_CPU),
             (8, ERR_REASON_INSUFFICIENT_MEMORY))
    reasons = tuple(reason for bit, reason in named if bits & bit)
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if bits & 20 else Code.UNSCHEDULABLE
    return Status(code, reasons)


#: ``_rejection`` of every combination of bits (an unresolvable bit always comes with its own).
_REJECTIONS: Final = tuple(_rejection(b) for b in range(32))
#: the same up to Kubernetes 1.33, which never calls a shortfall unresolvable
_REJECTIONS_RESOLVABLE: Final = tuple(_rejection(b & ~20) for b in range(32))

_PRE_FILTER_KEY: Final[StateKey[_PodRequest]] = StateKey("PreFilter" + NAME, NAME)
_PRE_SCORE_KEY: Final[StateKey[tuple[int, ...]]] = StateKey("PreScore" + NAME, NAME)


def _state_error(key: StateKey[Any]) -> Status:
    return Status.from_error(StateNotFoundError(
        f"error reading {go_value(key.name)} from cycleState: not found (did PreFilter run?)"))


# --------------------------------------------------------------------------------------------
# Queueing hints


def _as(kind: type, old_obj: object, new_obj: object) -> tuple[Any, Any]:
    for obj in (new_obj, old_obj):
        if obj is not None and not isinstance(obj, kind):
            raise TypeError(f"expected {kind.__name__}, but got {type(obj).__name__}")
    return old_obj, new_obj


def _is_fit(pod: Pod, node: Node | None) -> bool:
    if node is None:
        return False
    return not _fits_request(_pod_request(pod), NodeInfo(node))


def _have_any_requested_resources_increased(pod: Pod, original: Node, modified: Node) -> bool:
    r = pod.requests
    old, new = original.allocatable_resources, modified.allocatable_resources
    if new.pods > old.pods:
        return True
    scalars = [(n, q) for n, q in r.scalar.items() if q > 0 and is_scalar_resource_name(n)]
    if r.milli_cpu == 0 and r.memory == 0 and r.ephemeral_storage == 0 and not scalars:
        return False
    if ((r.milli_cpu > 0 and new.milli_cpu > old.milli_cpu)
            or (r.memory > 0 and new.memory > old.memory)
            or (r.ephemeral_storage > 0 and new.ephemeral_storage > old.ephemeral_storage)):
        return True
    return any(new.scalar.get(n, 0) > old.scalar.get(n, 0) for n, _ in scalars)


def _scale_down_frees_resources(target: Pod, original: Pod, modified: Pod) -> bool:
    if modified.uid == target.uid:
        return True
    if not modified.node_name:
        return False
    before, after = original.requests, modified.requests
    t = target.requests
    if t.milli_cpu and before.milli_cpu > after.milli_cpu:
        return True
    if t.memory and before.memory > after.memory:
        return True
    if t.ephemeral_storage and before.ephemeral_storage > after.ephemeral_storage:
        return True
    for name, q in t.scalar.items():
        if q and is_scalar_resource_name(name) and before.scalar.get(name, 0) > after.scalar.get(name, 0):
            return True
    return False


# --------------------------------------------------------------------------------------------
# The plugin


@final
class NodeResourcesFit(WithArgs[NodeResourcesFitArgs]):
    """The NodeResourcesFit plugin (PreFilter, Filter, PreScore, Score, EnqueueExtensions).

    Args:
        args: the plugin's args (validated here).
        handle: the framework handle (unused; kept for the factory shape).
        enable_in_place_pod_vertical_scaling: upstream feature gate ``InPlacePodVerticalScaling``
            (on by default): pod scale-down events may requeue rejected pods.
        enable_scheduling_queue_hint: upstream feature gate ``SchedulerQueueingHints`` (on by
            default): register only Add/UpdateNodeAllocatable node events.

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True
    #: filter_nodes remembers results by position: handed whole runs (see framework.runtime)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    __module__ = "schedframe.plugins.node_resources_fit"
    __slots__ = (
        "_args",
        "_columns",
        "_events",
        "_filter_memo",
        "_groups",
        "_handle",
        "_ignored",
        "_in_place_scaling",
        "_no_resources",
        "_queue_hint",
        "_rejections",
        "_score",
        "_score_memo",
        "_score_nodes",
        "_scorer",
        "_unresolvable",
    )

    def __init__(self, args: NodeResourcesFitArgs | None = None, handle: Handle | None = None, *,
                 enable_in_place_pod_vertical_scaling: bool = True,
                 enable_scheduling_queue_hint: bool = True) -> None:
        args = NodeResourcesFitArgs() if args is None else args
        validate_args(args)
        self._args = args
        self._handle = handle
        self._ignored = frozenset(args.ignored_resources)
        self._groups = frozenset(args.ignored_resource_groups)
        self._in_place_scaling = enable_in_place_pod_vertical_scaling
        self._queue_hint = enable_scheduling_queue_hint
        ss = args.scoring_strategy
        resources = ss.resources
        weights = [r.weight for r in resources]
        if ss.type == LEAST_ALLOCATED:
            strategy = least_allocated_scorer(weights)
        elif ss.type == MOST_ALLOCATED:
            strategy = most_allocated_scorer(weights)
        else:
            assert ss.requested_to_capacity_ratio is not None  # validated
            strategy = requested_to_capacity_ratio_scorer(
                weights, [(p.utilization, p.score) for p in ss.requested_to_capacity_ratio.shape])
        self._scorer = ResourceAllocationScorer(
            resources, strategy, use_requested=False,
            fast=cpu_memory_fast_path(resources, ss.type, use_requested=False),
            fast_nodes=cpu_memory_fast_path_nodes(resources, ss.type, use_requested=False))
        self._score = self._scorer.score
        self._score_nodes = self._scorer.score_nodes
        self._columns = NodeColumns()
        self._filter_memo: RunMemo[Status | None] = RunMemo()
        self._score_memo: RunMemo[int] = RunMemo()
        self._no_resources = not resources
        self._events = self._build_events()
        #: from Kubernetes 1.34 a request beyond the node's whole allocatable is unresolvable
        self._unresolvable = release_of(handle).has("FitUnresolvableBeyondAllocatable")
        self._rejections = _REJECTIONS if self._unresolvable else _REJECTIONS_RESOLVABLE

    @property
    def name(self) -> str:
        """``"NodeResourcesFit"``."""
        return NAME

    # -- PreFilter / Filter -------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Compute the pod's requests once for Filter."""
        state.write(_PRE_FILTER_KEY, _pod_request(pod, self._ignored, self._groups))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the pod's requests do not depend on other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject the node when it lacks room for the pod (all lacking resources reported)."""
        req = state.get(_PRE_FILTER_KEY)
        if req is None:
            return _state_error(_PRE_FILTER_KEY)
        row = node_info.resource_row
        # Common path: a few comparisons on the node's flat row of free amounts. Anything
        # unusual (overcommitted nodes, a miss) falls through to the exact upstream computation.
        if (len(node_info.pods) < row[3] and req.milli_cpu <= row[0] and req.memory <= row[1]
                and req.ephemeral_storage <= row[2]):
            scalars = req.scalars
            if not scalars:
                return None
            cap, in_use = node_info.allocatable.scalar, node_info.requested.scalar
            for name, q in scalars:
                if q > cap.get(name, 0) - in_use.get(name, 0):
                    break
            else:
                return None
        if not req.scalars and not (req.ephemeral_storage > 0 and req.ephemeral_storage > row[2]):
            # a rejection on pods, CPU or memory: its status from the row alone (the same reasons,
            # in the same order, and code as below), one shared Status per combination
            bits = 1 if len(node_info.pods) >= row[3] else 0
            cpu, mem = req.milli_cpu, req.memory
            if cpu > 0 and cpu > row[0]:
                bits |= 6 if cpu > row[4] else 2
            if mem > 0 and mem > row[1]:
                bits |= 24 if mem > row[5] else 8
            return self._rejections[bits]
        insufficient = _fits_request(req, node_info)
        if not insufficient:
            return None
        if len(insufficient) == 1 and insufficient[0].reason == ERR_REASON_TOO_MANY_PODS:
            return _TOO_MANY_PODS
        return _status(insufficient, self._unresolvable)

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`): the common
        case (room for every request) in one loop, anything else through :meth:`filter`."""
        req = state.get(_PRE_FILTER_KEY)
        if req is None or req.scalars:
            return [(i, s) for i, ni in enumerate(nodes) if (s := self.filter(state, pod, ni)) is not None]
        cpu, mem, eph = req.milli_cpu, req.memory, req.ephemeral_storage
        filter_one = self.filter

        def compute(some: Sequence[NodeInfo]) -> list[Status | None]:
            # each node's flat row: free cpu, memory, ephemeral storage, allocatable pods
            return [None if (cpu <= (row := ni.resource_row)[0] and mem <= row[1] and eph <= row[2]
                             and len(ni.pods) < row[3]) else filter_one(state, pod, ni)
                    for ni in some]

        columns = self._columns.columns

        def whole(base: list[NodeInfo], start: int, run: list[NodeInfo]) -> list[Status | None]:
            # a run of the snapshot: its free amounts as columns; when even the smallest is
            # enough, every node has room (no per-node check)
            free_cpu, free_mem, free_eph, room = columns(base, start, run, (0, 1, 2, COLUMN_ROOM))
            if min(free_cpu) >= cpu and min(free_mem) >= mem and min(free_eph) >= eph and min(room) > 0:
                return [None] * len(run)
            return [None if (cpu <= c and mem <= m and eph <= e and r > 0) else filter_one(state, pod, ni)
                    for c, m, e, r, ni in zip(free_cpu, free_mem, free_eph, room, run)]

        # the outcome depends on the requests and the NodeInfo only: remembered per position
        lister = snapshot_of(self._handle)
        results = self._filter_memo.values((cpu, mem, eph), lister, nodes, compute, whole)
        return rejections(results)

    # -- PreScore / Score ---------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Compute the pod's (non-zero) requests of the scored resources once."""
        state.write(_PRE_SCORE_KEY, self._scorer.pod_requests(pod))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """Score the node with the configured strategy (0-100)."""
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
        if self._no_resources:
            return 0, Status(Code.ERROR, ("resources not found",))
        return self._score(node_info, reqs), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`)."""
        if not nodes:
            return []
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._scorer.pod_requests(pod)
        if self._no_resources:
            return Status(Code.ERROR, ("resources not found",))
        # the score depends on the requests and the NodeInfo only: remembered per position
        lister = snapshot_of(self._handle)
        score_nodes = self._score_nodes
        return self._score_memo.values(reqs, lister, nodes, lambda some: score_nodes(some, reqs))

    def score_placement(self, pods: Sequence[Pod], nodes: Sequence[NodeInfo]) -> int:
        """A placement's score (upstream ``Fit.ScorePlacement``, 1.36 on, with
        TopologyAwareWorkloadScheduling): MostAllocated over the scoring strategy's resources,
        summed over the placement's *nodes*, with the requests of the group's *pods* proposed
        there added to what the nodes already hold (non-zero requests, as Score counts them)."""
        resources = self._args.scoring_strategy.resources
        scorer = ResourceAllocationScorer(resources, most_allocated_scorer([r.weight for r in resources]),
                                          use_requested=False)
        requested = [0] * len(resources)
        for pod in pods:
            for i, amount in enumerate(scorer.pod_requests(pod)):
                requested[i] += amount
        allocatable = [0] * len(resources)
        for node_info in nodes:
            # upstream passes the running total as the node's "pod requests": a scalar resource
            # none of the pods asks for is left out, as in Score
            with_group, node_allocatable = scorer.allocatable_requested(node_info, requested)
            for i, amount in enumerate(node_allocatable):
                if amount:
                    allocatable[i] += amount
                    requested[i] = with_group[i]  # the group's requests plus this node's
        return most_allocated_scorer([r.weight for r in resources])(requested, allocatable)

    def score_extensions(self) -> ScoreExtensions | None:
        """None: scores are already in [0, 100]."""
        return None

    # -- EnqueueExtensions --------------------------------------------------------------------
    def _build_events(self) -> tuple[ClusterEventWithHint, ...]:
        pod_action = ActionType.DELETE
        pod_label = "PodDelete"
        if self._in_place_scaling:
            pod_action |= ActionType.UPDATE_POD_SCALE_DOWN
            pod_label = "PodDelete|UpdatePodScaleDown"
        if self._queue_hint:
            node_action = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
            node_label = "NodeAdd|UpdateNodeAllocatable"
        else:
            # Without queueing hints upstream also registers taint/label updates (the preCheck
            # may have hidden the node's Add event; kubernetes#109437).
            node_action = (ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
                           | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL)
            node_label = "NodeAdd|UpdateNodeAllocatable|UpdateNodeTaint|UpdateNodeLabel"
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_action, pod_label),
                                 self.is_schedulable_after_pod_event),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_action, node_label),
                                 self.is_schedulable_after_node_change),
        )

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Pod deletion / scale-down and node addition / allocatable change, with hints."""
        return self._events

    def is_schedulable_after_pod_event(self, pod: Pod, old_obj: object, new_obj: object) -> QueueingHint:
        """Requeue when a scheduled (or nominated) pod is deleted, or a scheduled pod (or the pod
        itself) is scaled down in a resource the pod requests."""
        original, modified = _as(Pod, old_obj, new_obj)
        if modified is None:
            if original is None:
                raise TypeError("expected a Pod, but got None")
            if not original.node_name and not original.nominated_node_name:
                return QueueingHint.QUEUE_SKIP
            return QueueingHint.QUEUE
        if not self._in_place_scaling:
            return QueueingHint.QUEUE_SKIP
        if original is None or not _scale_down_frees_resources(pod, original, modified):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: object, new_obj: object) -> QueueingHint:
        """Requeue when a node is added on which the pod would fit, or a node's allocatable grew
        (in a resource the pod requests, or in pods) so that the pod now fits."""
        original, modified = _as(Node, old_obj, new_obj)
        if not _is_fit(pod, modified):
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if not _have_any_requested_resources_increased(pod, original, modified):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: object, handle: Handle) -> NodeResourcesFit:
    """The NodeResourcesFit factory.

    Args:
        args: ``None`` (defaults), a :class:`NodeResourcesFitArgs`, or the camelCase mapping.
        handle: the framework handle.

    Raises:
        PluginArgsError: when *args* has the wrong type or is invalid.
    """
    return NodeResourcesFit(plugin_args(args, NodeResourcesFitArgs, validate=False), handle)


if TYPE_CHECKING:
    from ..framework.interfaces import (
        BatchFilterPlugin,
        BatchScorePlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreFilterPlugin,
        PreScorePlugin,
        ScorePlugin,
    )

    _p = NodeResourcesFit()
    _batch_score: BatchScorePlugin = _p
    _pre_filter: PreFilterPlugin = _p
    _filter: FilterPlugin = _p
    _batch_filter: BatchFilterPlugin = _p
    _pre_score: PreScorePlugin = _p
    _score: ScorePlugin = _p
    _enqueue: EnqueueExtensions = _p
