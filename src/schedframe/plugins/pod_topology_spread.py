"""PodTopologySpread: spread pods over topology domains (upstream ``podtopologyspread``).

Filter enforces the ``DoNotSchedule`` constraints of the pod (``matching pods in the node's
domain + 1 - global minimum <= maxSkew``); Score prefers nodes whose domains hold fewer matching
pods for the ``ScheduleAnyway`` constraints. Pods without constraints get the plugin's default
constraints, whose selector is built from the Services, ReplicationControllers, ReplicaSets and
StatefulSets selecting the pod.

PreFilter and PreScore do the per-cluster counting once per pod; Filter and Score are a few dict
lookups per node.

``matchLabelKeys``: since Kubernetes 1.34 the API server merges ``key In (<pod's value>)`` into
``labelSelector`` when a pod is created, and kube-scheduler merges again from the pod's labels
(the same requirement twice selects the same pods). schedframe does the scheduler's merge only,
from the labels the pod has when it is scheduled. The two differ only for a pod whose label
named in ``matchLabelKeys`` changed after creation (upstream documents such updates as
unsupported): upstream's selector keeps the requirement stored at creation, with the old value;
schedframe's uses the current value.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Hashable, Mapping, Sequence
from itertools import compress, repeat
from operator import add, attrgetter, is_, mul, not_
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast, final

import attrs

from ..api.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
    TopologySpreadConstraint,
)
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.snapshot import Snapshot
from ..cache.store import ObjectStore
from ..errors import PluginArgsError, StateNotFoundError, json_type_name
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.handle import Handle, ObjectLister
from ..framework.interfaces import MAX_NODE_SCORE, NodeScore
from ..framework.registry import plugin_args
from ..framework.status import Code, Status
from . import names
from ._helpers import (
    FieldErrors,
    PodCountingExtensions,
    RequiredNodeAffinity,
    do_not_schedule_taint,
    find_matching_untolerated_taint,
    label_key_errors,
    node_labels,
    nodes_of,
)
from ._run_memo import RunMemo, snapshot_of
from ._topology import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    Contribution,
    Delta,
    SumCache,
    constraint_from_dict,
    constraint_to_dict,
    following,
    label_values,
    pod_changes,
    probe_of,
    selector_probe,
)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "LIST_DEFAULTING",
    "NAME",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "new",
]

NAME: Final = names.POD_TOPOLOGY_SPREAD

#: Filter reason when placing the pod on the node would exceed a constraint's ``maxSkew``.
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
#: Filter reason when the node lacks the topology key of a constraint.
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

#: ``defaultingType``: use :data:`SYSTEM_DEFAULT_CONSTRAINTS`.
SYSTEM_DEFAULTING: Final = "System"
#: ``defaultingType``: use the args' ``defaultConstraints``.
LIST_DEFAULTING: Final = "List"

DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
HONOR: Final = "Honor"
IGNORE: Final = "Ignore"

#: The constraints used with ``defaultingType: System``.
SYSTEM_DEFAULT_CONSTRAINTS: Final = (
    TopologySpreadConstraint(3, LABEL_HOSTNAME, SCHEDULE_ANYWAY),
    TopologySpreadConstraint(5, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY),
)

_MAX_INT32: Final = 2**31 - 1


# --------------------------------------------------------------------------------------------
# Args


def _tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _decode_constraints(raw: Any, path: str) -> tuple[TopologySpreadConstraint, ...]:
    if not isinstance(raw, (list, tuple)):
        raise PluginArgsError(f"{path}: must be a list, got {json_type_name(raw)}")
    errors: list[str] = []
    found = [constraint_from_dict(item, f"{path}[{i}]", errors) for i, item in enumerate(raw)]
    if errors:
        raise PluginArgsError(errors)
    return tuple(c for c in found if c is not None)


def _encode_constraints(constraints: tuple[TopologySpreadConstraint, ...]) -> list[dict[str, Any]]:
    return [constraint_to_dict(c) for c in constraints]


@final
@attrs.frozen(kw_only=True)
class PodTopologySpreadArgs:
    """``PodTopologySpreadArgs`` (kubescheduler.config.k8s.io/v1), defaulted as upstream.

    Attributes:
        default_constraints: constraints for pods that have none (``defaultingType: List``);
            they must not set a label selector.
        defaulting_type: ``"System"`` (the default: hostname maxSkew 3 and zone maxSkew 5,
            both ``ScheduleAnyway``) or ``"List"``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.pod_topology_spread"

    default_constraints: tuple[TopologySpreadConstraint, ...] = attrs.field(
        default=(), converter=_tuple,
        metadata={"decode": _decode_constraints, "encode": _encode_constraints, "omitempty": True})
    defaulting_type: str = SYSTEM_DEFAULTING

    def with_defaults(self) -> Self:
        """Upstream's defaulting: an empty ``defaultingType`` is ``System``."""
        return self if self.defaulting_type else attrs.evolve(self, defaulting_type=SYSTEM_DEFAULTING)

    def errors(self) -> list[str]:
        """Upstream ``ValidatePodTopologySpreadArgs``: every problem, with its field path."""
        return validation_errors(self)


def validation_errors(args: PodTopologySpreadArgs) -> list[str]:
    """Every validation problem of *args* (upstream ``ValidatePodTopologySpreadArgs``), each with
    its field path, in upstream's ``field.Error`` wording."""
    errs = FieldErrors()
    dtype = args.defaulting_type
    if dtype not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.not_supported("defaultingType", dtype, (SYSTEM_DEFAULTING, LIST_DEFAULTING))
    elif dtype == SYSTEM_DEFAULTING and args.default_constraints:
        errs.invalid("defaultingType", dtype, "when .defaultConstraints are not empty")
    constraints = args.default_constraints
    for i, c in enumerate(constraints):
        p = f"defaultConstraints[{i}]"
        if c.max_skew <= 0:
            errs.invalid(f"{p}.maxSkew", c.max_skew, "not in valid range (0, inf)")
        if not c.topology_key:
            errs.add(f"{p}.topologyKey: Required value: can not be empty")
        else:
            for msg in label_key_errors(c.topology_key):
                errs.invalid(f"{p}.topologyKey", c.topology_key, msg)
        if not c.when_unsatisfiable:
            errs.add(f"{p}.whenUnsatisfiable: Required value: can not be empty")
        elif c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.not_supported(f"{p}.whenUnsatisfiable", c.when_unsatisfiable,
                               (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))
        if c.label_selector is not None:
            errs.add(f"{p}.labelSelector: Forbidden: constraint must not define a selector, as they "
                     "deduced for each pod")
        for other in constraints[:i]:
            if other.topology_key == c.topology_key and other.when_unsatisfiable == c.when_unsatisfiable:
                errs.add(f'{p}: Duplicate value: "{{{c.topology_key}, {c.when_unsatisfiable}}}"')
                break
    return errs.errors


ARGS_TYPE: Final = PodTopologySpreadArgs
_ARGS_KEYS: Final = frozenset({"defaultConstraints", "defaultingType", "apiVersion", "kind"})


# --------------------------------------------------------------------------------------------
# Internal constraint representation


@final
@attrs.frozen
class SpreadConstraint:
    """A constraint with its selector resolved for one pod (upstream ``topologySpreadConstraint``).

    ``selector`` ``None`` matches no pod (a missing label selector); an empty selector matches
    every pod but counts none (upstream ``countPodsMatchSelector`` skips empty selectors).
    """

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def selector_matches(self, labels: Mapping[str, str]) -> bool:
        """``Selector.Matches(labels)``."""
        sel = self.selector
        return sel is not None and sel.matches(labels)

    def counts_pods(self) -> bool:
        """False when the selector can never count a pod (missing or empty selector)."""
        sel = self.selector
        return sel is not None and not sel.is_empty()

    def match_node_inclusion_policies(self, pod: Pod, node: Node, required: RequiredNodeAffinity) -> bool:
        """Whether *node* counts for this constraint under its node inclusion policies."""
        if self.node_affinity_policy == HONOR and not required.matches(node):
            return False
        return not (self.node_taints_policy == HONOR and node.taints and find_matching_untolerated_taint(
            node.taints, pod.tolerations, do_not_schedule_taint) is not None)


def _merge_match_label_keys(selector: LabelSelector | None, keys: Sequence[str],
                            pod_labels: Mapping[str, str]) -> LabelSelector | None:
    """Upstream ``mergeLabelSetWithSelector``: AND ``key=<pod's value>`` for each of *keys* the pod
    has into the selector (a missing selector stays missing)."""
    if selector is None or not keys:
        return selector
    extra = tuple(LabelSelectorRequirement(k, "In", (pod_labels[k],)) for k in keys if k in pod_labels)
    if not extra:
        return selector
    return LabelSelector(selector.match_labels, extra + selector.match_expressions)


def filter_constraints(constraints: Sequence[TopologySpreadConstraint], pod_labels: Mapping[str, str],
                       action: str) -> list[SpreadConstraint]:
    """Upstream ``filterTopologySpreadConstraints``: the constraints with *action*, resolved."""
    out: list[SpreadConstraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        out.append(SpreadConstraint(
            c.max_skew,
            c.topology_key,
            _merge_match_label_keys(c.label_selector, c.match_label_keys, pod_labels),
            c.min_domains if c.min_domains is not None else 1,
            c.node_affinity_policy if c.node_affinity_policy is not None else HONOR,
            c.node_taints_policy if c.node_taints_policy is not None else IGNORE,
        ))
    return out


def default_selector(pod: Pod, objects: ObjectLister) -> LabelSelector:
    """Upstream ``helper.DefaultSelector``: the selector of the Services, ReplicationController,
    ReplicaSet or StatefulSet selecting *pod* (empty when there are none).

    Unlike upstream, an owner reference without ``apiVersion`` is accepted for the three kinds.
    """
    label_set: dict[str, str] = {}
    labels = pod.labels
    for svc in objects.list(Service, pod.namespace):
        sel = svc.selector
        if all(labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    owner = next((o for o in pod.owner_references if o.controller), None)
    if owner is None:
        return LabelSelector(label_set)
    kind, api = owner.kind, owner.api_version
    if kind == "ReplicationController" and api in ("v1", ""):
        rc = _find(objects, ReplicationController, owner.name, pod.namespace)
        if rc is not None:
            label_set.update(rc.selector)
        return LabelSelector(label_set)
    if kind in ("ReplicaSet", "StatefulSet") and api in ("apps/v1", ""):
        kind_type: type[ReplicaSet] | type[StatefulSet] = ReplicaSet if kind == "ReplicaSet" else StatefulSet
        obj = _find(objects, kind_type, owner.name, pod.namespace)
        if obj is not None and obj.selector is not None:
            other = obj.selector
            reqs = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in other.match_labels.items())
            return LabelSelector(label_set, reqs + other.match_expressions)
    return LabelSelector(label_set)


def _find(objects: ObjectLister, kind: type[Any], name: str, namespace: str) -> Any:
    """The object of *kind* named *name* in *namespace* (upstream's lister ``Get``): looked up
    by key when the lister can (:class:`~schedframe.cache.ObjectStore`), else found in its list."""
    if isinstance(objects, ObjectStore):
        return objects.get(kind, name, namespace)
    for o in objects.list(kind, namespace):
        if o.name == name:
            return o
    return None


def count_pods_match_selector(pods: Sequence[PodInfo], selector: LabelSelector | None, ns: str) -> int:
    """Upstream ``countPodsMatchSelector``: matching, non-terminating pods of namespace *ns*."""
    if selector is None or selector.is_empty():
        return 0
    n = 0
    matches = selector.matches
    for info in pods:
        p = info.pod
        if p.deletion_timestamp is None and p.namespace == ns and matches(p.labels):
            n += 1
    return n


def count_on_node(info: NodeInfo, selector: LabelSelector | None, ns: str) -> int:
    """:func:`count_pods_match_selector` over *info*'s pods; a selector of one label (the usual
    ``app: x``) is read from the node's label counts (:meth:`NodeInfo.pod_label_counts
    <schedframe.NodeInfo.pod_label_counts>`), shared by every selector that counts there, and
    any other is 0 without a pod looked at when a label it requires (of ``matchLabels``, or every
    value of an ``In``) is on none of the node's pods (the system default selectors: a Service's
    labels and ``In`` requirements from the owner's)."""
    if selector is None or not info.pods:
        return 0
    labels = selector.match_labels
    exprs = selector.match_expressions
    counts = info.pod_label_counts()
    if len(labels) == 1 and not exprs:
        (k, v), = labels.items()
        return counts.get((ns, k, v), 0)
    # a pod the selector matches carries every label of matchLabels and one value of each In:
    # where the node's pods (of the namespace, not being deleted) lack one, none matches
    for k, v in labels.items():
        if (ns, k, v) not in counts:
            return 0
    for req in exprs:
        if req.operator == "In" and not any((ns, req.key, v) in counts for v in req.values):
            return 0
    return count_pods_match_selector(info.pods, selector, ns)


def _count_delta(selector: LabelSelector | None, ns: str) -> Delta:
    """A :data:`~schedframe.plugins._topology.Delta` for contributions ``((domain, matching
    pods),)`` (or ``()`` for a node that does not count) that depend on the node object and its
    pods only: the node unchanged, the count moves by the matching pods added and removed (for
    a selector of one label, the usual ``app: x``, it is read from the node's label counts)."""

    one: tuple[str, str, str] | None = None
    if selector is not None and len(selector.match_labels) == 1 and not selector.match_expressions:
        (k, v), = selector.match_labels.items()
        one = (ns, k, v)

    def delta(old: NodeInfo, new: NodeInfo, pairs: Contribution) -> Contribution | None:
        if old.node is not new.node:
            return None  # labels, taints, ...: counted again
        if not pairs or selector is None:
            return pairs  # a node that does not count, or nothing counted: the same
        (domain, n), = pairs
        if one is not None:
            m = new.pod_label_counts().get(one, 0) if new.pods else 0
            return pairs if m == n else ((domain, m),)
        added, removed = pod_changes(old.pods, new.pods)
        if added:
            n += count_pods_match_selector(added, selector, ns)
        if removed:
            n -= count_pods_match_selector(removed, selector, ns)
        return ((domain, n),)

    return delta


def _has_required_node_affinity(pod: Pod) -> bool:
    if pod.node_selector:
        return True
    aff = pod.affinity
    return aff is not None and aff.node_affinity is not None and aff.node_affinity.required is not None


def _node_has_keys(labels: Mapping[str, str], keys: Sequence[str]) -> bool:
    for k in keys:
        if k not in labels:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Cycle state


@final
class PreFilterState:
    """What PreFilter computed for Filter (upstream ``preFilterState``).

    ``counts[i]`` maps each eligible topology value of ``constraints[i]`` to its number of
    matching pods; ``min_match[i]`` is the minimum over those domains (``2**31-1`` when there are
    none), kept exact under AddPod/RemovePod with ``domains_at_count[i]`` (how many domains hold
    exactly k matching pods).
    """

    __slots__ = ("_owned", "constraints", "counts", "domains_at_count", "min_match", "self_match")

    def __init__(self, constraints: Sequence[SpreadConstraint], counts: list[dict[str, int]],
                 self_match: Sequence[int]) -> None:
        self.constraints = tuple(constraints)
        #: per constraint: topology value -> matching pods (shared with the plugin's cache until
        #: the first update, which copies them)
        self.counts = counts
        self._owned = False
        self.self_match = tuple(self_match)
        self.min_match: list[int] = [min(c.values()) if c else _MAX_INT32 for c in counts]
        # built on the first update (AddPod/RemovePod are rare next to Filter)
        self.domains_at_count: list[dict[int, int]] | None = None

    def min_match_num(self, i: int) -> int:
        """The global minimum of constraint *i*, 0 when it has fewer domains than ``minDomains``."""
        if len(self.counts[i]) < self.constraints[i].min_domains:
            return 0
        return self.min_match[i]

    def update(self, i: int, value: str, delta: int) -> None:
        """Move the count of domain *value* of constraint *i* by *delta* (+1 or -1)."""
        if not self._owned:
            self.counts = [dict(c) for c in self.counts]
            self._owned = True
        if self.domains_at_count is None:
            self.domains_at_count = [dict(collections.Counter(c.values())) for c in self.counts]
        counts = self.counts[i]
        hist = self.domains_at_count[i]
        old = counts.get(value)
        if old is None:  # a new domain (cannot happen for nodes PreFilter saw)
            old = 0
        else:
            left = hist.get(old, 0) - 1
            if left <= 0:
                hist.pop(old, None)
            else:
                hist[old] = left
        cur = old + delta
        counts[value] = cur
        hist[cur] = hist.get(cur, 0) + 1
        lo = self.min_match[i]
        if cur < lo or (old == lo and old not in hist):
            self.min_match[i] = cur

    def clone(self) -> PreFilterState:
        """A copy whose counts can change independently."""
        new = PreFilterState.__new__(PreFilterState)
        new.constraints = self.constraints
        new.self_match = self.self_match
        new.counts = [dict(c) for c in self.counts]
        new._owned = True
        new.min_match = list(self.min_match)
        hist = self.domains_at_count
        new.domains_at_count = [dict(h) for h in hist] if hist is not None else None
        return new


#: Per constraint ``(key, counts, is hostname, weight, maxSkew - 1, constraint)``.
_ScorePlan = tuple[tuple[str, "Mapping[str, int] | None", bool, float, int, SpreadConstraint], ...]


@final
class PreScoreState:
    """What PreScore computed for Score and NormalizeScore (upstream ``preScoreState``)."""

    __slots__ = ("_plan", "constraints", "counts", "host_counts", "ignored_nodes", "weights")

    def __init__(self) -> None:
        self.constraints: tuple[SpreadConstraint, ...] = ()
        #: names of nodes lacking some constraint's topology key (scored 0)
        self.ignored_nodes: set[str] = set()
        #: per constraint: topology value -> matching pods (hostname constraints count in Score)
        self.counts: list[dict[str, int]] = []
        #: per constraint: for a hostname constraint, node name -> its matching pods where there
        #: are some (what Score counts on each node, counted ahead by a count that follows the
        #: snapshot; the cache's: not to be modified), else None
        self.host_counts: list[Mapping[str, int] | None] = []
        #: per constraint: ``log(number of domains + 2)``
        self.weights: list[float] = []
        self._plan: _ScorePlan | None = None

    def plan(self) -> _ScorePlan:
        """Per constraint ``(key, counts, is hostname, weight, maxSkew - 1, constraint)`` for Score
        (for a hostname constraint, the counts per node name of :attr:`host_counts`, or None:
        Score counts on the node)."""
        plan = self._plan
        if plan is None:
            host = self.host_counts or [None] * len(self.constraints)
            plan = self._plan = tuple(
                (c.topology_key, host[i] if c.topology_key == LABEL_HOSTNAME else self.counts[i],
                 c.topology_key == LABEL_HOSTNAME, self.weights[i], c.max_skew - 1, c)
                for i, c in enumerate(self.constraints))
        return plan

    def clone(self) -> PreScoreState:
        """Shared: the state does not change after PreScore."""
        return self


PRE_FILTER_STATE_KEY: Final = StateKey[PreFilterState]("PreFilter" + NAME, NAME)
PRE_SCORE_STATE_KEY: Final = StateKey[PreScoreState]("PreScore" + NAME, NAME)

_NODE_LABEL_NOT_MATCH: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL_NOT_MATCH,))
_CONSTRAINTS_NOT_MATCH: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS_NOT_MATCH,))


def topology_normalizing_weight(size: int) -> float:
    """``log(size + 2)``: the weight of a topology with *size* domains."""
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    """``count * weight + (maxSkew - 1)``."""
    return count * weight + (max_skew - 1)


# --------------------------------------------------------------------------------------------
# Plugin


@final
class PodTopologySpread(PodCountingExtensions):
    """The PodTopologySpread plugin: PreFilter, Filter (+ extensions), PreScore, Score,
    NormalizeScore and queueing hints.

    .. versionadded:: 0.1.0
    """

    _counts_key: ClassVar[StateKey[PreFilterState]] = PRE_FILTER_STATE_KEY

    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True
    #: filter_nodes remembers results by position: handed whole runs (see framework.runtime)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    __module__ = "schedframe.plugins.pod_topology_spread"

    def __init__(self, args: PodTopologySpreadArgs, handle: Handle) -> None:
        self._handle = handle
        self.args = args
        self.system_defaulted = args.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[TopologySpreadConstraint, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else args.default_constraints)
        self._has_hard_defaults = any(c.when_unsatisfiable == DO_NOT_SCHEDULE
                                      for c in self.default_constraints)
        self._has_soft_defaults = any(c.when_unsatisfiable == SCHEDULE_ANYWAY
                                      for c in self.default_constraints)
        self._sums = SumCache()
        #: (the selecting kinds' store revisions, action, namespace, labels, controller) -> the
        #: pod's default constraints (see :meth:`build_default_constraints`)
        self._defaults: dict[Hashable, tuple[SpreadConstraint, ...]] = {}
        #: each node's label values of the constraints' keys, by position (see filter_nodes)
        self._label_memo: RunMemo[tuple[str | None, ...] | None] = RunMemo()

    @property
    def name(self) -> str:
        """``"PodTopologySpread"``."""
        return NAME

    # -- constraints ----------------------------------------------------------------------
    def build_default_constraints(self, pod: Pod, action: str) -> list[SpreadConstraint]:
        """Upstream ``buildDefaultConstraints``: the default constraints with *action*, using the
        selector of the objects selecting the pod; none when that selector is empty."""
        if action == DO_NOT_SCHEDULE and not self._has_hard_defaults:
            return []
        if action == SCHEDULE_ANYWAY and not self._has_soft_defaults:
            return []
        constraints = filter_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        objects = self._handle.objects
        key: Hashable = None
        if objects.__class__ is ObjectStore:
            # the same while no Service, ReplicationController, ReplicaSet or StatefulSet comes
            # or goes: remembered, instead of listing the namespace's Services every cycle
            revision = objects._revision
            owner = next((o for o in pod.owner_references if o.controller), None)
            key = (revision(Service), revision(ReplicationController), revision(ReplicaSet),
                   revision(StatefulSet), action, pod.namespace, pod.labels, owner)
            known = self._defaults.get(key)
            if known is not None:
                return list(known)
        selector = default_selector(pod, objects)
        found = [] if selector.is_empty() else [attrs.evolve(c, selector=selector) for c in constraints]
        if key is not None:
            if len(self._defaults) >= _MAX_DEFAULTS:
                self._defaults.clear()
            self._defaults[key] = tuple(found)
        return found

    def get_constraints(self, pod: Pod, action: str = DO_NOT_SCHEDULE) -> list[SpreadConstraint]:
        """The pod's constraints with *action*, or the default ones when it has none."""
        if pod.topology_spread_constraints:
            return filter_constraints(pod.topology_spread_constraints, pod.labels, action)
        return self.build_default_constraints(pod, action)

    # -- PreFilter / Filter ---------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[None, Status | None]:
        """Count matching pods per topology domain of each ``DoNotSchedule`` constraint."""
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, self.compute_pre_filter_state(pod, constraints, nodes))
        return None, None

    def compute_pre_filter_state(self, pod: Pod, constraints: Sequence[SpreadConstraint],
                                 nodes: Sequence[NodeInfo]) -> PreFilterState:
        """Upstream ``calPreFilterState`` for already resolved *constraints*: a node counts for a
        constraint when it has every constraint's topology key and passes the constraint's node
        inclusion policies."""
        keys = tuple(c.topology_key for c in constraints)
        required = RequiredNodeAffinity(pod)
        counts = [self.domain_counts(nodes, pod, c, keys, required) for c in constraints]
        labels = pod.labels
        self_match = [1 if c.selector_matches(labels) else 0 for c in constraints]
        return PreFilterState(constraints, counts, self_match)

    def domain_counts(self, nodes: Sequence[NodeInfo], pod: Pod, c: SpreadConstraint,
                      required_keys: tuple[str, ...], required: RequiredNodeAffinity) -> dict[str, int]:
        """Matching pods (of *pod*'s namespace) per value of ``c.topology_key`` over the eligible
        *nodes* -- those with all *required_keys* passing *c*'s inclusion policies for *pod* --
        including domains without matching pods.

        Cached per counting signature and refreshed incrementally across cycles (only the
        NodeInfos the snapshot replaced are recounted); the returned dict is the cache's: copy it
        before modifying it.
        """
        selector = c.selector if c.counts_pods() else None
        affinity_sig: Any = None
        if c.node_affinity_policy == HONOR and _has_required_node_affinity(pod):
            aff = pod.affinity
            na = aff.node_affinity if aff is not None else None
            affinity_sig = (pod.node_selector, na.required if na is not None else None)
        taint_sig = pod.tolerations if c.node_taints_policy == HONOR else None
        ns = pod.namespace
        key = c.topology_key
        check = affinity_sig is not None or taint_sig is not None

        def contribute(info: NodeInfo) -> Contribution:
            node = info.node
            if node is None:
                return ()
            labels = node.labels
            for k in required_keys:
                if k not in labels:
                    return ()
            if check and not c.match_node_inclusion_policies(pod, node, required):
                return ()
            return ((labels.get(key, ""), count_on_node(info, selector, ns)),)

        sig = (key, selector, ns, required_keys, affinity_sig, taint_sig)
        # what a node contributes depends on its Node object and its pods the selector matches
        follow = following(snapshot_of(self._handle), nodes, probe_of(selector_probe(selector)))
        sums = self._sums.get(sig, nodes, contribute, delta=_count_delta(selector, ns), follow=follow).sums
        return cast("dict[str, int]", sums)

    def pre_filter_extensions(self) -> PodTopologySpread:
        """AddPod / RemovePod update the counts."""
        return self

    def _count_pod(self, s: PreFilterState, preemptor: Pod, pod_info: PodInfo, node_info: NodeInfo,
                   delta: int) -> None:
        updated = pod_info.pod
        node = node_info.node
        if updated.namespace != preemptor.namespace or node is None:
            return
        labels = node.labels
        if not _node_has_keys(labels, [c.topology_key for c in s.constraints]):
            return
        pod_labels = updated.labels
        required = RequiredNodeAffinity(preemptor)
        for i, c in enumerate(s.constraints):
            if not c.selector_matches(pod_labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node, required):
                continue
            s.update(i, labels[c.topology_key], delta)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject the node when it lacks a topology key or would exceed a ``maxSkew``."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        node = node_info.node
        if node is None:
            return Status.from_error(ValueError("node not found"))
        labels = node.labels
        counts = s.counts
        self_match = s.self_match
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return _NODE_LABEL_NOT_MATCH
            skew = counts[i].get(value, 0) + self_match[i] - s.min_match_num(i)
            if skew > c.max_skew:
                return _CONSTRAINTS_NOT_MATCH
        return None

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`): each
        constraint's counts and global minimum are looked up once."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return [(i, st) for i, ni in enumerate(nodes) if (st := self.filter(state, pod, ni)) is not None]
        # per constraint: key, its counts, self match minus the global minimum, maxSkew
        plan = [(c.topology_key, s.counts[i], s.self_match[i] - s.min_match_num(i), c.max_skew)
                for i, c in enumerate(s.constraints)]
        keys = tuple(key for key, _counts, _base, _skew in plan)
        # A node's verdict depends only on its values of the constraints' keys (None: no node),
        # which are remembered by position: each distinct combination is judged once.
        values = self._label_memo.values(keys, self._handle.snapshot_shared_lister(), nodes,
                                         lambda some: label_values(some, keys))
        verdicts: dict[tuple[str | None, ...] | None, Status | None] = {}
        for combo in set(values):
            if combo is None:
                verdicts[combo] = Status.from_error(ValueError("node not found"))
                continue
            verdict = None
            for (_key, counts, base, max_skew), value in zip(plan, combo):
                if value is None:
                    verdict = _NODE_LABEL_NOT_MATCH
                    break
                if counts.get(value, 0) + base > max_skew:
                    verdict = _CONSTRAINTS_NOT_MATCH
                    break
            verdicts[combo] = verdict
        if all(v is None for v in verdicts.values()):
            return []
        return [(idx, verdict) for idx, combo in enumerate(values)
                if (verdict := verdicts[combo]) is not None]

    # -- PreScore / Score -----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Count matching pods per domain of each ``ScheduleAnyway`` constraint, over all nodes."""
        all_nodes = self._handle.snapshot_shared_lister().node_infos().list()
        if not all_nodes:
            return Status.skip()
        constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return Status.skip()
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        s = PreScoreState()
        s.constraints = tuple(constraints)
        keys = [c.topology_key for c in constraints]
        counts: list[dict[str, int]] = [{} for _ in constraints]
        ignored = s.ignored_nodes
        non_host = [(i, c.topology_key) for i, c in enumerate(constraints)
                    if c.topology_key != LABEL_HOSTNAME]
        # C-level passes over the nodes still there: those lacking a key are ignored (with every
        # key required), the others' values of each key are its domains, in the order first seen
        objects = list(filter(None, nodes_of(nodes)))  # a Node is always true
        labels = node_labels(objects)
        lacking: set[int] = set()
        if require_all:
            for key in keys:
                has = map(dict.__contains__, labels, repeat(key))
                lacking.update(compress(range(len(labels)), map(not_, has)))
        if lacking:
            ignored.update(objects[i].name for i in lacking)
            labels = [lab for i, lab in enumerate(labels) if i not in lacking]
        for i, key in non_host:
            counts[i] = dict.fromkeys(map(dict.get, labels, repeat(key), repeat("")), 0)
        s.weights = [
            topology_normalizing_weight(len(nodes) - len(ignored) if c.topology_key == LABEL_HOSTNAME
                                        else len(counts[i]))
            for i, c in enumerate(constraints)
        ]
        if non_host:
            required_keys = tuple(keys) if require_all else ()
            required = RequiredNodeAffinity(pod)
            for i, _ in non_host:
                totals = self.domain_counts(all_nodes, pod, constraints[i], required_keys, required)
                per_value = counts[i]
                for value in per_value:
                    per_value[value] = totals.get(value, 0)
        s.counts = counts
        if any(c.topology_key == LABEL_HOSTNAME for c in constraints):
            s.host_counts = [self._host_counts(all_nodes, c.selector, pod.namespace)
                             if c.topology_key == LABEL_HOSTNAME else None for c in constraints]
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _host_counts(self, nodes: Sequence[NodeInfo], selector: LabelSelector | None,
                     ns: str) -> Mapping[str, int]:
        """Per node name, the pods of *nodes* that *selector* matches in namespace *ns* (only the
        nodes with some): what Score counts on each node (:func:`count_on_node`), kept across
        cycles by a count that follows the snapshot's log, so that Score reads it at C speed."""
        if selector is None:
            return {}

        def contribute(info: NodeInfo) -> Contribution:
            n = count_on_node(info, selector, ns)
            return ((info.name, n),) if n else ()

        follow = following(snapshot_of(self._handle), nodes, probe_of(selector_probe(selector)))
        return self._sums.get(("host", selector, ns), nodes, contribute, follow=follow).sums  # type: ignore[return-value]

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The weighted number of matching pods in the node's domains (lower is better)."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return 0, Status.from_error(exc)
        node = node_info.node
        if node is None:
            return 0, Status.from_error(ValueError("node not found"))
        name = node.name
        if name in s.ignored_nodes:
            return 0, None
        labels = node.labels
        total = 0.0
        for key, counts, is_host, weight, base, c in s.plan():
            value = labels.get(key)
            if value is None:
                continue
            if is_host:  # counted on the node itself, as upstream does
                cnt = count_on_node(node_info, c.selector, pod.namespace)
            else:
                cnt = counts.get(value, 0) if counts is not None else 0
            total += cnt * weight + base
        return _go_round(total), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node (:class:`~schedframe.BatchScorePlugin`). With one
        constraint whose key is not the hostname, a node's score depends only on its label
        value: computed once per value."""
        if not nodes:
            return []
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            try:
                s = state.read(PRE_SCORE_STATE_KEY)
            except StateNotFoundError as exc:
                return Status.from_error(exc)
        plan = s.plan()
        out: list[int] = []
        append = out.append
        if len(plan) == 1 and not plan[0][2]:
            key, counts, _is_host, weight, base, _c = plan[0]
            ignored = s.ignored_nodes
            by_value: dict[str, int] = {}
            for ni in nodes:
                node = ni.node
                if node is None:
                    return Status.from_error(ValueError("node not found"))
                if node.name in ignored:
                    append(0)
                    continue
                value = node.labels.get(key)
                if value is None:
                    append(0)
                    continue
                score = by_value.get(value)
                if score is None:
                    score = by_value[value] = _go_round(counts.get(value, 0) * weight + base) \
                        if counts is not None else _go_round(0 * weight + base)
                append(score)
            return out
        node_objects = nodes_of(nodes)
        if all(node_objects):  # a Node is always true
            # read once: for the hostname counts counted ahead and the ignored nodes
            names = list(map(_NAME_OF, nodes)) if s.host_counts or s.ignored_nodes else []
            if s.host_counts and not _the_snapshots(snapshot_of(self._handle), nodes, names):
                # hostname counts were counted ahead on the snapshot's NodeInfos: count these
                plan = tuple((key, None if is_host else counts, is_host, weight, base, c)
                             for key, counts, is_host, weight, base, c in plan)
            return self._score_columns(plan, s.ignored_nodes, pod.namespace, nodes,
                                       cast("list[Node]", node_objects), names)
        one = self.score  # a node gone: node by node, for the same first failure
        for ni in nodes:
            score, status = one(state, pod, ni)
            if status is not None:
                return status
            append(score)
        return out

    @staticmethod
    def _score_columns(plan: _ScorePlan, ignored: set[str], namespace: str, nodes: Sequence[NodeInfo],
                       node_objects: list[Node], names: list[str]) -> list[int]:
        """:meth:`score` of each node (every one with its Node), a column per constraint: a
        node's total adds the constraints' terms in the same order (the same float), a node
        without the key adds nothing (0.0), a hostname constraint counts on the node; each
        distinct total is rounded once and ignored nodes score 0. *names* are the nodes' names
        (needed with hostname counts or ignored nodes)."""
        labels = node_labels(node_objects)
        totals: list[float] | None = None
        for key, counts, is_host, weight, base, c in plan:
            values = list(map(dict.get, labels, repeat(key)))
            column: list[float]
            if is_host:  # counted on the node itself, as upstream does (ahead, in PreScore)
                found = (map(counts.get, names, repeat(0)) if counts is not None
                         else map(count_on_node, nodes, repeat(c.selector), repeat(namespace)))
                column = list(map(add, map(mul, found, repeat(weight)), repeat(base)))
                for i in compress(range(len(values)), map(is_, values, repeat(None))):
                    column[i] = 0.0
            else:
                term = {v: (counts.get(v, 0) if counts is not None else 0) * weight + base
                        for v in set(values) if v is not None}
                term[None] = 0.0
                column = list(map(term.__getitem__, values))
            totals = column if totals is None else list(map(add, totals, column))
        if totals is None:
            out = [0] * len(nodes)
        else:
            rounded = {t: _go_round(t) for t in set(totals)}
            out = list(map(rounded.__getitem__, totals))
        if ignored:
            for i in compress(range(len(out)), map(ignored.__contains__, names)):
                out[i] = 0
        return out

    def score_extensions(self) -> PodTopologySpread:
        """NormalizeScore reverses and scales the scores."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Map the lowest count to 100 and scale the others down; ignored nodes get 0."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        ignored = s.ignored_nodes
        min_score: int | None = None
        max_score = 0
        for ns in scores:
            if ns.name in ignored:
                continue
            v = ns.score
            if min_score is None or v < min_score:
                min_score = v
            if v > max_score:
                max_score = v
        lo = min_score if min_score is not None else 0
        for idx, ns in enumerate(scores):
            if ns.name in ignored:
                new = 0
            elif max_score == 0:
                new = MAX_NODE_SCORE
            else:
                new = MAX_NODE_SCORE * (max_score + lo - ns.score) // max_score
            if new != ns.score:
                scores[idx] = NodeScore(ns.name, new)
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status:
        """:meth:`normalize_score` on plain ints (:class:`~schedframe.BatchScoreExtensions`)."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        ignored = s.ignored_nodes
        if not scores:
            return scores
        if not ignored:
            lo = min(scores)
            max_score = max(max(scores), 0)
            if max_score == 0:
                return [MAX_NODE_SCORE] * len(scores)
            top = max_score + lo
            return [MAX_NODE_SCORE * (top - v) // max_score for v in scores]
        counted = [ni.name not in ignored for ni in nodes]
        kept = [v for v, c in zip(scores, counted) if c]
        lo = min(kept) if kept else 0
        max_score = max(max(kept), 0) if kept else 0
        top = max_score + lo
        return [0 if not c else MAX_NODE_SCORE if max_score == 0 else MAX_NODE_SCORE * (top - v) // max_score
                for v, c in zip(scores, counted)]

    # -- queueing hints -------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Assigned pods added, relabelled or deleted (and the pod's own toleration changes);
        nodes added, deleted, relabelled or retainted."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL
                             | ActionType.UPDATE_POD_TOLERATION | ActionType.DELETE),
                self.is_schedulable_after_pod_change),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.DELETE
                             | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Requeue when a pod matching the pod's hard constraints appears, disappears or changes
        match, or when the pod itself gained tolerations and a constraint honours taints."""
        old: Pod | None = old_obj
        new: Pod | None = new_obj
        if (new is not None and not _involved(new, pod)) or (old is not None and not _involved(old, pod)):
            return QueueingHint.QUEUE_SKIP
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        if new is not None and old is not None:
            if (pod.uid == new.uid and new.tolerations != old.tolerations
                    and any(c.node_taints_policy == HONOR for c in constraints)):
                return QueueingHint.QUEUE
            if new.labels == old.labels:
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.selector_matches(old.labels) != c.selector_matches(new.labels):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        changed = new if new is not None else old
        if changed is not None and any(c.selector_matches(changed.labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Requeue when a node carrying all the constraints' topology keys comes, goes, or
        changes those labels or its taints."""
        old: Node | None = old_obj
        new: Node | None = new_obj
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        keys = [c.topology_key for c in constraints]
        old_match = old is not None and _node_has_keys(old.labels, keys)
        new_match = new is not None and _node_has_keys(new.labels, keys)
        if old is not None and new is not None:
            if old_match != new_match:
                return QueueingHint.QUEUE
            if new_match and (any(old.labels.get(k) != new.labels.get(k) for k in keys)
                              or old.taints != new.taints):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if new_match else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if old_match else QueueingHint.QUEUE_SKIP


def _involved(changed: Pod, pod: Pod) -> bool:
    """Upstream ``involvedInTopologySpreading``: the pod itself, or an assigned pod of its namespace."""
    return changed.uid == pod.uid or (changed.node_name != "" and changed.namespace == pod.namespace)


def new(args: object, handle: Handle) -> PodTopologySpread:
    """Factory: *args* is ``None``, a :class:`PodTopologySpreadArgs` or a camelCase mapping."""
    return PodTopologySpread(plugin_args(args, PodTopologySpreadArgs), handle)


if TYPE_CHECKING:
    from ..framework.interfaces import (
        BatchFilterPlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreScorePlugin,
        ScoreExtensions,
        ScorePlugin,
    )

    def _check(p: PodTopologySpread) -> None:
        _a: PreFilterPlugin = p
        _b: FilterPlugin = p
        _c: PreFilterExtensions = p
        _d: PreScorePlugin = p
        _e: ScorePlugin = p
        _f: ScoreExtensions = p
        _g: EnqueueExtensions = p
        _h: BatchFilterPlugin = p


_NAME_OF: Final = attrgetter("name")


def _the_snapshots(lister: object, nodes: Sequence[NodeInfo], names: list[str]) -> bool:
    """Whether *nodes* (named *names*) are NodeInfos of *lister*, a
    :class:`~schedframe.cache.Snapshot` (the very objects, compared at C speed)."""
    if lister.__class__ is not Snapshot:
        return False
    return all(map(is_, map(lister._map.get, names), nodes))
#: at most this many pods' default constraints remembered (then forgotten at once)
_MAX_DEFAULTS: Final = 4096


def _go_round(total: float) -> int:
    """Go's ``math.Round`` of a Score total: half away from zero (totals are never negative)."""
    rounded = math.floor(total)
    if total - rounded >= 0.5:
        rounded += 1
    return int(rounded)
