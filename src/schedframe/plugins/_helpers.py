"""Helpers shared by the in-tree plugins.

Counterparts of kube-scheduler's ``plugins/helper`` package, ``component-helpers/scheduling/corev1``
(tolerations, node affinity) and ``scheduler/util`` (``As``, ``GetHostPorts``). Written for speed:
selectors are compiled once per pod, and matching a node is a few dict lookups.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar, final

from ..api._names import label_value_errors, qualified_name_errors
from ..api._selectors import parse_int64
from ..api.objects import (
    ContainerPort,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
)
from ..errors import StateNotFoundError
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHintFn
from ..framework.interfaces import MAX_NODE_SCORE, NodeScore
from ..framework.releases import release_of
from ..framework.status import Code, Status

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..cache.nodeinfo import NodeInfo, PodInfo
    from ..framework.cycle_state import CycleState, StateKey
    from ..framework.handle import Handle
    from ..framework.interfaces import PreFilterResult, ScorePlugin

__all__ = [
    "FieldErrors",
    "PassThroughPreFilter",
    "PodCountingExtensions",
    "PreferredSchedulingTerms",
    "RequiredNodeAffinity",
    "WithArgs",
    "as_objects",
    "deferred_resize_variant",
    "default_normalize_score",
    "default_normalize_score_ints",
    "do_not_schedule_taint",
    "find_matching_untolerated_taint",
    "get_host_ports",
    "go_div",
    "label_key_errors",
    "label_value_errors",
    "LazyNodeSelector",
    "NormalizedByHighest",
    "lazy_node_selector",
    "no_args",
    "no_args_factory",
    "node_not_found",
    "nodes_of",
    "node_selector",
    "own_update",
    "preferred_scheduling_terms",
    "required_node_affinity",
    "taint_events",
    "tolerates",
    "tolerations_tolerate_taint",
]

T = TypeVar("T")
P = TypeVar("P")
A = TypeVar("A")

# --------------------------------------------------------------------------------------------
# Arithmetic and small utilities


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, like Go's ``/`` on ints."""
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """Scale *scores* in place to ``[0, max_priority]`` by the highest score (upstream
    ``helper.DefaultNormalizeScore``); with *reverse*, the highest becomes 0.

    When every score is 0 they stay 0 (or all become *max_priority* with *reverse*).
    """
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for i, s in enumerate(scores):
                scores[i] = NodeScore(s.name, max_priority)
        return
    for i, s in enumerate(scores):
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        scores[i] = NodeScore(s.name, score)


def default_normalize_score_ints(max_priority: int, reverse: bool, scores: list[int]) -> list[int]:
    """:func:`default_normalize_score` over plain int scores (for ``normalize_score_ints``):
    returns the scores it would leave in a NodeScore list holding *scores*.

    *scores* are ints, as Score plugins return them (the result may be *scores* itself).
    """
    if not scores:
        return scores
    max_count = max(scores)
    if max_count <= 0:  # the NodeScore loop finds no score above 0
        return [max_priority] * len(scores) if reverse else scores
    if min(scores) >= 0:  # then Go's truncating division is floor division
        if reverse:
            return [max_priority - max_priority * s // max_count for s in scores]
        return [max_priority * s // max_count for s in scores]
    if reverse:
        return [max_priority - go_div(max_priority * s, max_count) for s in scores]
    return [go_div(max_priority * s, max_count) for s in scores]


class NormalizedByHighest:
    """The ScoreExtensions of a plugin whose NormalizeScore is :func:`default_normalize_score`:
    the scores scaled to [0, 100] by the highest (reversed, the highest becoming 0, when
    :attr:`_reverse_scores`). Mixed in before the plugin's class."""

    __slots__ = ()

    #: NormalizeScore reverses the scale (fewest is best)
    _reverse_scores: ClassVar[bool] = False

    def score_extensions(self) -> Self:
        """This plugin normalizes its scores."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale to [0, 100] by the highest score (reversed for :attr:`_reverse_scores`)."""
        default_normalize_score(MAX_NODE_SCORE, self._reverse_scores, scores)
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status:
        """:meth:`normalize_score` on plain ints (:class:`~schedframe.BatchScoreExtensions`)."""
        return default_normalize_score_ints(MAX_NODE_SCORE, self._reverse_scores, scores)


_NODE_NOT_FOUND: Final = Status(Code.ERROR, ("node not found",))


def node_not_found() -> Status:
    """The ERROR status for a NodeInfo whose node object is gone."""
    return _NODE_NOT_FOUND


def nodes_of(infos: Sequence[NodeInfo]) -> list[Node | None]:
    """Each NodeInfo's node object (None where the node is gone), read at C speed."""
    return list(map(_NODE_OF, infos))


_NODE_OF: Final = attrgetter("node")


def node_labels(objects: Iterable[Node]) -> list[Any]:
    """Each node object's labels, read at C speed (for C-level passes such as
    ``map(dict.get, labels, repeat(key))``: the labels are dicts)."""
    return list(map(_LABELS_OF, objects))


_LABELS_OF: Final = attrgetter("labels")


class WithArgs(Generic[A]):
    """A plugin that keeps the args it runs with as ``_args`` (set by its ``__init__``) and
    shows them as :attr:`args`."""

    __slots__ = ()

    _args: A

    @property
    def args(self) -> A:
        """The args the plugin runs with."""
        return self._args


def no_args(args: object) -> None:
    """Factories of plugins without args accept and ignore whatever ``pluginConfig`` gave them,
    as kube-scheduler does (their args are an untyped ``runtime.Object``)."""
    del args


def no_args_factory(make: Callable[[Handle], P]) -> Callable[[object, Handle], P]:
    """The factory ``new(args, handle)`` of a plugin without args: ``make(handle)``, whatever
    args it is given (see :func:`no_args`)."""

    def new(args: object, handle: Handle) -> P:
        """Create the plugin (it takes no args)."""
        no_args(args)
        return make(handle)

    return new


def as_objects(kind: type[T], old_obj: Any, new_obj: Any) -> tuple[T | None, T | None]:
    """Upstream ``util.As``: check that the (non-``None``) event objects are of *kind*.

    Raises:
        TypeError: an object of another type (a queueing hint then counts as QUEUE).
    """
    if new_obj is not None and not isinstance(new_obj, kind):
        raise TypeError(f"expected {kind.__name__}, but got {type(new_obj).__name__}")
    if old_obj is not None and not isinstance(old_obj, kind):
        raise TypeError(f"expected {kind.__name__}, but got {type(old_obj).__name__}")
    return old_obj, new_obj


def own_update(pod: Pod, old_obj: Any, new_obj: Any) -> Pod | None:
    """The updated pod of a Pod update event when it is *pod* itself (the same uid), else
    ``None`` (checked as :func:`as_objects` does)."""
    _, modified = as_objects(Pod, old_obj, new_obj)
    if modified is None or modified.uid != pod.uid:
        return None
    return modified


def taint_events(node_hint: QueueingHintFn,
                 toleration_hint: QueueingHintFn) -> tuple[ClusterEventWithHint, ...]:
    """The events of the plugins that judge a node's taints by the pod's tolerations
    (TaintToleration, NodeUnschedulable): a node added or its taints changed (*node_hint*), a
    pod's tolerations changed (*toleration_hint*)."""
    return (
        ClusterEventWithHint(
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), node_hint),
        ClusterEventWithHint(
            ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION), toleration_hint),
    )


def deferred_resize_variant(handle: Handle | None, plain: type[T], with_pre_filter: type[T]) -> type[T]:
    """*with_pre_filter* (a plugin class with a PreFilter) from Kubernetes 1.37 on
    (``DeferredResizePreFilters``), *plain* before."""
    return with_pre_filter if release_of(handle).has("DeferredResizePreFilters") else plain


# --------------------------------------------------------------------------------------------
# Ports


def get_host_ports(pod: Pod) -> tuple[ContainerPort, ...]:
    """The container ports claiming a host port (upstream ``util.GetHostPorts``): those of
    restartable (sidecar) init containers first, then those of the containers. Regular init
    containers do not count: they are gone before the pod's containers start."""
    ports: list[ContainerPort] = []
    for c in pod.init_containers:
        if c.restart_policy == "Always":
            ports.extend(p for p in c.ports if p.host_port > 0)
    for c in pod.containers:
        if c.ports:
            ports.extend(p for p in c.ports if p.host_port > 0)
    return tuple(ports)


# --------------------------------------------------------------------------------------------
# Taints and tolerations


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Upstream ``Toleration.ToleratesTaint`` (see :meth:`schedframe.api.Toleration.tolerates`)."""
    return toleration.tolerates(taint)


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """True when any of *tolerations* tolerates *taint*."""
    for t in tolerations:
        if t.tolerates(taint):
            return True
    return False


def do_not_schedule_taint(taint: Taint) -> bool:
    """Taints Filter cares about: ``NoSchedule`` and ``NoExecute`` (upstream
    ``helper.DoNotScheduleTaintsFilterFunc``)."""
    return taint.effect == "NoSchedule" or taint.effect == "NoExecute"


def find_matching_untolerated_taint(
    taints: Iterable[Taint], tolerations: Sequence[Toleration],
    include: Callable[[Taint], bool] | None = None,
) -> Taint | None:
    """The first of *taints* (passing *include*) that no toleration tolerates, or ``None``."""
    for taint in taints:
        if include is not None and not include(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


# --------------------------------------------------------------------------------------------
# Kubernetes validation messages (apimachinery ``util/validation`` and ``field.Error``)

#: apimachinery ``IsQualifiedName`` for label and topology keys (:mod:`schedframe.api._names`).
label_key_errors: Final = qualified_name_errors


def _go_value(value: object) -> str:
    """How ``field.Error`` prints a bad value (``%q`` for strings, ``%#v`` for string slices)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (tuple, list)):
        if not value:
            return "[]string(nil)"
        return "[]string{" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "}"
    return str(value)


class PassThroughPreFilter:
    """The PreFilter Kubernetes 1.37 gives NodeUnschedulable and TaintToleration
    (``DeferredResizePreFilters``): upstream's skips a pod whose resize is deferred when
    ``InPlacePodVerticalScalingSchedulerPreemption`` is on (not modelled: the gate stays off);
    for every other pod it narrows nothing and lets the Filter run. Mixed in before the plugin's
    class."""

    __slots__ = ()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """All nodes, nothing skipped."""
        return None, None

    def pre_filter_extensions(self) -> None:
        """None."""
        return None


class PodCountingExtensions:
    """AddPod and RemovePod of a plugin whose PreFilter state, under :attr:`_counts_key`, counts
    other pods (InterPodAffinity, PodTopologySpread, VolumeRestrictions): both read the state
    (an ERROR status without it) and have :meth:`_count_pod` count the pod in (*delta* 1) or
    out (-1). Mixed in before the plugin's class."""

    __slots__ = ()

    #: the CycleState key of the PreFilter state the pods are counted in
    _counts_key: ClassVar[StateKey[Any]]

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        """Account for *pod_info_to_add* on *node_info*."""
        return self._recount(state, pod_to_schedule, pod_info_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        """Forget *pod_info_to_remove* on *node_info*."""
        return self._recount(state, pod_to_schedule, pod_info_to_remove, node_info, -1)

    def _recount(self, state: CycleState, pod_to_schedule: Pod, pod_info: PodInfo, node_info: NodeInfo,
                 delta: int) -> Status | None:
        try:
            s = state.read(self._counts_key)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        self._count_pod(s, pod_to_schedule, pod_info, node_info, delta)
        return None

    def _count_pod(self, s: Any, pod_to_schedule: Pod, pod_info: PodInfo, node_info: NodeInfo,
                   delta: int) -> None:
        """Count *pod_info* on *node_info* into the state *s* (*delta* 1) or out of it (-1)."""
        raise NotImplementedError


@final
class FieldErrors:
    """A list of Kubernetes-style field errors (``path: Invalid value: "x": detail``)."""

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: list[str] = []

    def invalid(self, path: str, value: object, detail: str) -> None:
        """Record an ``Invalid value`` error."""
        self.errors.append(f"{path}: Invalid value: {_go_value(value)}: {detail}")

    def not_supported(self, path: str, value: object, supported: Sequence[str]) -> None:
        """Record an ``Unsupported value`` error."""
        choices = ", ".join(json.dumps(s) for s in supported)
        self.errors.append(f"{path}: Unsupported value: {_go_value(value)}: supported values: {choices}")

    def add(self, message: str) -> None:
        """Record a preformatted error."""
        self.errors.append(message)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def message(self) -> str:
        """All errors as one message (upstream aggregate: one error alone, or ``[e1, e2]``)."""
        unique = list(dict.fromkeys(self.errors))
        return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --------------------------------------------------------------------------------------------
# Node selectors (upstream component-helpers ``nodeaffinity``)

_IN: Final = 0
_NOT_IN: Final = 1
_EXISTS: Final = 2
_DOES_NOT_EXIST: Final = 3
_GT: Final = 4
_LT: Final = 5
_OPS: Final = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST,
               "Gt": _GT, "Lt": _LT}
_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPS: Final = ("In", "NotIn")

# A compiled label requirement: (op, key, values, int value for Gt/Lt).
_LabelReq = tuple[int, str, frozenset[str], int]
# A compiled field requirement: (is In, field key, value).
_FieldReq = tuple[bool, str, str]


def _join(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


def _compile_expressions(reqs: Sequence[NodeSelectorRequirement], path: str,
                         errs: FieldErrors) -> tuple[_LabelReq, ...]:
    """``nodeSelectorRequirementsAsSelector``: label requirements, validated like
    ``labels.NewRequirement``."""
    out: list[_LabelReq] = []
    for i, r in enumerate(reqs):
        p = f"{path}[{i}]"
        op = _OPS.get(r.operator)
        if op is None:
            errs.not_supported(f"{p}.operator", r.operator, _SELECTOR_OPS)
            continue
        before = len(errs.errors)
        key_errs = label_key_errors(r.key)
        if key_errs:
            errs.invalid(f"{p}.key", r.key, "; ".join(key_errs))
        values_path = f"{p}.values"
        vals = r.values
        num = 0
        if op in (_IN, _NOT_IN):
            if not vals:
                errs.invalid(values_path, vals, "for 'in', 'notin' operators, values set can't be empty")
        elif op in (_EXISTS, _DOES_NOT_EXIST):
            if vals:
                errs.invalid(values_path, vals, "values set must be empty for exists and does not exist")
        else:
            if len(vals) != 1:
                errs.invalid(values_path, vals, "for 'Gt', 'Lt' operators, exactly one value is required")
            for j, v in enumerate(vals):
                parsed = parse_int64(v)
                if parsed is None:
                    errs.invalid(f"{values_path}[{j}]", v,
                                 "for 'Gt', 'Lt' operators, the value must be an integer")
                else:
                    num = parsed
        for j, v in enumerate(vals):
            value_errs = label_value_errors(v)
            if value_errs:
                errs.invalid(f"{values_path}[{j}][{r.key}]", v, "; ".join(value_errs))
        if len(errs.errors) == before:
            out.append((op, r.key, frozenset(vals), num))
    return tuple(out)


def _compile_fields(reqs: Sequence[NodeSelectorRequirement], path: str,
                    errs: FieldErrors) -> tuple[_FieldReq, ...]:
    """``nodeSelectorRequirementsAsFieldSelector``: In / NotIn with exactly one value."""
    out: list[_FieldReq] = []
    for i, r in enumerate(reqs):
        p = f"{path}[{i}]"
        if r.operator in _FIELD_OPS:
            if len(r.values) != 1:
                errs.invalid(f"{p}.values", r.values, "must have one element")
            else:
                out.append((r.operator == "In", r.key, r.values[0]))
        else:
            errs.not_supported(f"{p}.operator", r.operator, _FIELD_OPS)
    return tuple(out)


def _match_labels(reqs: tuple[_LabelReq, ...], labels: Mapping[str, str]) -> bool:
    for op, key, vals, num in reqs:
        v = labels.get(key)
        if op == _IN:
            if v is None or v not in vals:
                return False
        elif op == _NOT_IN:
            if v is not None and v in vals:
                return False
        elif op == _EXISTS:
            if v is None:
                return False
        elif op == _DOES_NOT_EXIST:
            if v is not None:
                return False
        else:
            if v is None:
                return False
            have = parse_int64(v)
            if have is None:
                return False
            if op == _GT:
                if have <= num:
                    return False
            elif have >= num:
                return False
    return True


@final
class _Term:
    """A parsed node-selector term: its label and field requirements, or its parse errors."""

    __slots__ = ("errors", "fields", "labels")

    def __init__(self, term: NodeSelectorTerm, path: str) -> None:
        errs = FieldErrors()
        self.labels: tuple[_LabelReq, ...] | None = None
        self.fields: tuple[_FieldReq, ...] | None = None
        if term.match_expressions:
            self.labels = _compile_expressions(term.match_expressions, _join(path, "matchExpressions"), errs)
        if term.match_fields:
            self.fields = _compile_fields(term.match_fields, _join(path, "matchFields"), errs)
        self.errors: tuple[str, ...] = tuple(errs.errors)

    def matches(self, name: str, labels: Mapping[str, str]) -> bool:
        if self.errors:
            return False
        if self.labels is not None and not _match_labels(self.labels, labels):
            return False
        if self.fields is not None and name:
            for is_in, key, value in self.fields:
                have = name if key == "metadata.name" else ""
                if (have == value) != is_in:
                    return False
        return True

    def predicate(self) -> Callable[[Node], bool]:
        """A function ``node -> bool`` equivalent to :meth:`matches`, specialized for the common
        one-requirement terms so that matching a node is a single call."""
        if self.errors:
            return _never
        if self.fields is None and self.labels is not None and len(self.labels) == 1:
            op, key, vals, _ = self.labels[0]
            if op == _IN:
                return lambda node: node.labels.get(key) in vals
            if op == _NOT_IN:
                return lambda node: node.labels.get(key) not in vals
            if op == _EXISTS:
                return lambda node: key in node.labels
            if op == _DOES_NOT_EXIST:
                return lambda node: key not in node.labels
        if self.labels is None and self.fields is not None and len(self.fields) == 1:
            is_in, key, value = self.fields[0]
            if key == "metadata.name":
                if is_in:
                    return lambda node: not node.name or node.name == value
                return lambda node: not node.name or node.name != value
        matches = self.matches
        return lambda node: matches(node.name, node.labels)


def _never(node: Node) -> bool:
    return False


def _is_empty_term(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


@final
class LazyNodeSelector:
    """A parsed ``NodeSelector`` whose terms are ORed; a term that failed to parse matches no
    node (upstream ``LazyErrorNodeSelector``). Empty terms are dropped."""

    __slots__ = ("match_node", "terms")

    def __init__(self, selector: NodeSelector, path: str = "") -> None:
        base = _join(path, "nodeSelectorTerms")
        self.terms: tuple[_Term, ...] = tuple(
            _Term(t, f"{base}[{i}]") for i, t in enumerate(selector.terms) if not _is_empty_term(t)
        )
        #: ``node -> bool`` for a node known not to be ``None`` (one call for one-term selectors).
        self.match_node: Callable[[Node], bool] = self._compile()

    def _compile(self) -> Callable[[Node], bool]:
        preds = tuple(t.predicate() for t in self.terms)
        if not preds:
            return _never
        if len(preds) == 1:
            return preds[0]
        return lambda node: any(p(node) for p in preds)

    def errors(self) -> list[str]:
        """The parse errors of all terms."""
        return [e for t in self.terms for e in t.errors]

    def matches(self, node: Node | None) -> bool:
        """True when any term matches *node*."""
        if node is None:
            return False
        return self.match_node(node)


def lazy_node_selector(selector: NodeSelector) -> LazyNodeSelector:
    """Parse *selector*, keeping parse errors to the terms that have them."""
    return LazyNodeSelector(selector)


def node_selector(selector: NodeSelector, path: str = "") -> LazyNodeSelector:
    """Parse *selector* strictly (upstream ``NewNodeSelector``).

    Raises:
        ValueError: listing every parse error with its field path.
    """
    parsed = LazyNodeSelector(selector, path)
    errs = parsed.errors()
    if errs:
        raise ValueError(_aggregate(errs))
    return parsed


def _aggregate(errs: Sequence[str]) -> str:
    unique = list(dict.fromkeys(errs))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


@final
class PreferredSchedulingTerms:
    """Parsed preferred node-affinity terms (upstream ``PreferredSchedulingTerms``): a node's
    score is the sum of the weights of the terms it matches.

    Zero-weight and empty terms are skipped. Terms that fail to parse are dropped and their
    errors kept in ``errors`` (:func:`preferred_scheduling_terms` raises on them instead).
    """

    __slots__ = ("errors", "terms")

    def __init__(self, terms: Sequence[PreferredSchedulingTerm], path: str = "") -> None:
        parsed: list[tuple[_Term, int]] = []
        errs: list[str] = []
        for i, t in enumerate(terms):
            if t.weight == 0 or _is_empty_term(t.preference):
                continue
            term = _Term(t.preference, f"{path}[{i}]")
            if term.errors:
                errs.extend(term.errors)
            else:
                parsed.append((term, t.weight))
        self.errors: list[str] = errs
        self.terms: tuple[tuple[_Term, int], ...] = tuple(parsed)

    def score(self, node: Node) -> int:
        """The sum of the weights of the terms *node* matches."""
        total = 0
        name, labels = node.name, node.labels
        for term, weight in self.terms:
            if term.matches(name, labels):
                total += weight
        return total


def preferred_scheduling_terms(terms: Sequence[PreferredSchedulingTerm],
                               path: str = "") -> PreferredSchedulingTerms:
    """Parse *terms* strictly (upstream ``NewPreferredSchedulingTerms``).

    Raises:
        ValueError: listing every parse error with its field path (``[0].matchExpressions[0].key: ...``).
    """
    parsed = PreferredSchedulingTerms(terms, path)
    if parsed.errors:
        raise ValueError(_aggregate(parsed.errors))
    return parsed


@final
class RequiredNodeAffinity:
    """A pod's ``nodeSelector`` and required node affinity, parsed once (upstream
    ``nodeaffinity.RequiredNodeAffinity``). Parse errors make the affected terms match nothing,
    for backward compatibility."""

    __slots__ = ("matches", "node_selector", "selector")

    def __init__(self, pod: Pod) -> None:
        self.selector: tuple[tuple[str, str], ...] = tuple(pod.node_selector.items())
        aff = pod.affinity
        na = aff.node_affinity if aff is not None else None
        required = na.required if na is not None else None
        self.node_selector: LazyNodeSelector | None = (
            LazyNodeSelector(required) if required is not None else None
        )
        #: ``matches(node) -> bool``: whether *node* satisfies both the node selector and the
        #: required affinity (a compiled function: matching a node is one or two calls).
        self.matches: Callable[[Node], bool] = self._compile()

    def _compile(self) -> Callable[[Node], bool]:
        affinity = self.node_selector.match_node if self.node_selector is not None else None
        selector = self.selector
        if not selector:
            return affinity if affinity is not None else _always
        if len(selector) == 1:
            ((key, value),) = selector

            def one_label(node: Node) -> bool:
                return node.labels.get(key) == value and (affinity is None or affinity(node))

            return one_label

        def labels_then_affinity(node: Node) -> bool:
            labels = node.labels
            for k, v in selector:
                if labels.get(k) != v:
                    return False
            return affinity is None or affinity(node)

        return labels_then_affinity


def _always(node: Node) -> bool:
    return True


def required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """Upstream ``nodeaffinity.GetRequiredNodeAffinity``."""
    return RequiredNodeAffinity(pod)


def score_each(plugin: ScorePlugin, state: CycleState, pod: Pod,
               nodes: Sequence[NodeInfo]) -> list[int] | Status:
    """``plugin.score`` of each node, as a ``score_nodes`` gives it: the scores, or the first
    failure's status."""
    out: list[int] = []
    score = plugin.score
    for ni in nodes:
        value, status = score(state, pod, ni)
        if status is not None and not status.is_success():
            return status
        out.append(value)
    return out
