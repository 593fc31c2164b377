"""InterPodAffinity: pod affinity and anti-affinity (upstream ``interpodaffinity``).

Filter enforces the required terms: the incoming pod's affinity (some matching pod in the node's
domain, or -- for the first pod of a group -- none anywhere and the pod matching its own terms),
its anti-affinity (no matching pod in the node's domain), and the existing pods' anti-affinity
(the incoming pod must not land in the domain of an existing pod whose term it matches).
Score adds the weights of the preferred terms both ways, and ``hardPodAffinityWeight`` for the
required affinity terms of existing pods the incoming pod matches.

PreFilter and PreScore do the O(pods) work once per pod, keyed by (topology key, value); Filter
and Score are dict lookups per node.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from operator import add
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast, final

import attrs

from ..api.frozendict import freeze
from ..api.objects import LabelSelector, Namespace, Node, Pod, PodAffinityTerm
from ..cache.nodeinfo import AffinityTerm, NodeInfo, PodInfo
from ..cache.snapshot import Snapshot
from ..errors import StateNotFoundError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.handle import Handle, ObjectLister
from ..framework.interfaces import MAX_NODE_SCORE, NodeScore
from ..framework.registry import plugin_args
from ..framework.status import Code, Status
from . import names
from ._helpers import FieldErrors, PodCountingExtensions, node_labels, node_not_found, nodes_of
from ._run_memo import RunMemo, rejections, snapshot_of
from ._topology import SumCache, following, label_values, per_pod, probe_of, selector_error, selector_probe

if TYPE_CHECKING:
    pass

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "new",
]

NAME: Final = names.INTER_POD_AFFINITY

#: Filter reason: an existing pod's required anti-affinity term matches the incoming pod.
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = (
    "node(s) didn't satisfy existing pods anti-affinity rules")
#: Filter reason: the incoming pod's required affinity is not satisfied on the node.
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
#: Filter reason: the incoming pod's required anti-affinity is violated on the node.
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"

_AFFINITY_NOT_MATCH: Final = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))
_ANTI_AFFINITY_NOT_MATCH: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,))
_EXISTING_ANTI_AFFINITY_NOT_MATCH: Final = Status(
    Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,))

_NO_LABELS: Final[Mapping[str, str]] = freeze(None)


# --------------------------------------------------------------------------------------------
# Args


@final
@attrs.frozen(kw_only=True)
class InterPodAffinityArgs:
    """``InterPodAffinityArgs`` (kubescheduler.config.k8s.io/v1), defaulted as upstream.

    Attributes:
        hard_pod_affinity_weight: the score weight (0-100) of an existing pod's required affinity
            term that the incoming pod matches.
        ignore_preferred_terms_of_existing_pods: skip scoring entirely for pods without preferred
            (anti-)affinity terms, ignoring the preferred terms of existing pods.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.inter_pod_affinity"

    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False

    def errors(self) -> list[str]:
        """Upstream ``ValidateInterPodAffinityArgs``."""
        errs = FieldErrors()
        w = self.hard_pod_affinity_weight
        if w < 0 or w > 100:
            errs.invalid("hardPodAffinityWeight", w, "not in valid range [0, 100]")
        return errs.errors


ARGS_TYPE: Final = InterPodAffinityArgs
_ARGS_KEYS: Final = frozenset({"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods",
                               "apiVersion", "kind"})


# --------------------------------------------------------------------------------------------
# Terms and counts


@final
class IncomingTerm:
    """An affinity term of the incoming pod with its namespace selector resolved into namespace
    names (upstream ``mergeAffinityTermNamespacesIfNotEmpty``); an empty namespace selector
    stays "all namespaces"."""

    __slots__ = ("all_namespaces", "namespaces", "selector", "topology_key")

    def __init__(self, term: AffinityTerm, objects: ObjectLister) -> None:
        self.topology_key = term.topology_key
        self.selector: LabelSelector | None = term.selector
        ns_sel = term.namespace_selector
        namespaces = term.namespaces
        self.all_namespaces = False
        if ns_sel is not None:
            if ns_sel.is_empty():
                self.all_namespaces = True
            else:
                namespaces = namespaces | {
                    n.name for n in objects.list(Namespace) if ns_sel.matches(n.labels)}
        self.namespaces: frozenset[str] = namespaces

    @property
    def signature(self) -> tuple[Any, ...]:
        """A hashable value identifying what the term matches."""
        return (self.namespaces, self.all_namespaces, self.selector, self.topology_key)

    def matches(self, pod: Pod) -> bool:
        """Whether *pod* is selected by the term (namespace and labels)."""
        if not (self.all_namespaces or pod.namespace in self.namespaces):
            return False
        sel = self.selector
        return sel is not None and sel.matches(pod.labels)


def _all_pods(info: NodeInfo) -> Sequence[PodInfo]:
    return info.pods


def _with_affinity(info: NodeInfo) -> Sequence[PodInfo]:
    return info.pods_with_affinity


def _with_required_anti_affinity(info: NodeInfo) -> Sequence[PodInfo]:
    return info.pods_with_required_anti_affinity


def _terms_probe(terms: Iterable[IncomingTerm], affinity: bool = False) -> frozenset[object] | None:
    """The probe (:func:`~schedframe.plugins._topology.probe_of`) of a count of the existing pods
    that *terms* select on each node (with *affinity*, of the terms of the pods with affinity
    too)."""
    return probe_of(*(selector_probe(t.selector) for t in terms), affinity=affinity)


#: the probe of a count of the terms of the existing pods with pod (anti-)affinity
_TERMS_OF_PODS: Final = probe_of(affinity=True)


def _with_terms(lister: Any, listed: Callable[[], Sequence[NodeInfo]]) -> Sequence[NodeInfo]:
    """The nodes over which to count what the existing pods' (anti-)affinity terms say: *listed*
    (the lister's nodes having such pods), or, when they are more than one in
    :data:`_FOLLOW_SHARE` of a snapshot's nodes, its whole node list, which a count follows by its
    change log instead of comparing a list that grows and shrinks (a node without such pods adds
    nothing: the same counts)."""
    some = listed()
    if not some or lister.__class__ is not Snapshot:
        return some
    every: Sequence[NodeInfo] = lister.list()
    return every if len(some) * _FOLLOW_SHARE > len(every) else some


#: see :func:`_with_terms`
_FOLLOW_SHARE: Final = 16


def _matches_all(terms: Sequence[IncomingTerm], pod: Pod) -> bool:
    """Upstream ``podMatchesAllAffinityTerms`` (false for no terms)."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(pod):
            return False
    return True


#: (topology key, topology value) -> count
Counts = dict[tuple[str, str], int]


def _bump(counts: Counts, pair: tuple[str, str], delta: int) -> None:
    """Add *delta* to ``counts[pair]``, dropping entries that reach zero."""
    n = counts.get(pair, 0) + delta
    if n:
        counts[pair] = n
    else:
        counts.pop(pair, None)


def _flat(counts: Counts) -> dict[tuple[str, str], int]:
    """``{(key, value): count}``: the upstream ``topologyToMatchedTermCount`` view."""
    return dict(counts)


# --------------------------------------------------------------------------------------------
# Cycle state


@final
class PreFilterState:
    """What PreFilter computed for Filter (upstream ``preFilterState``)."""

    __slots__ = ("affinity_counts", "affinity_terms", "anti_affinity_counts", "anti_affinity_terms",
                 "existing_anti_affinity_counts", "existing_keys", "namespace_labels", "owned", "pod",
                 "pod_matches_own_affinity")

    def __init__(self, pod: Pod, affinity_terms: tuple[IncomingTerm, ...],
                 anti_affinity_terms: tuple[IncomingTerm, ...], namespace_labels: Mapping[str, str]) -> None:
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.pod_matches_own_affinity = _matches_all(affinity_terms, pod)
        #: False while the counts are the plugin cache's (copied on the first update)
        self.owned = False
        #: existing pods' required anti-affinity terms matching the incoming pod
        self.existing_anti_affinity_counts: Counts = {}
        #: the topology keys appearing in :attr:`existing_anti_affinity_counts`
        self.existing_keys: set[str] = set()
        #: existing pods matching all the incoming pod's required affinity terms
        self.affinity_counts: Counts = {}
        #: existing pods matching the incoming pod's required anti-affinity terms
        self.anti_affinity_counts: Counts = {}

    def clone(self) -> PreFilterState:
        """A copy whose counts can change independently."""
        new = PreFilterState.__new__(PreFilterState)
        new.pod = self.pod
        new.affinity_terms = self.affinity_terms
        new.anti_affinity_terms = self.anti_affinity_terms
        new.namespace_labels = self.namespace_labels
        new.pod_matches_own_affinity = self.pod_matches_own_affinity
        new.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        new.existing_keys = set(self.existing_keys)
        new.affinity_counts = dict(self.affinity_counts)
        new.anti_affinity_counts = dict(self.anti_affinity_counts)
        new.owned = True
        return new

    def update_with_pod(self, info: PodInfo, node: Node, delta: int) -> None:
        """Account for *info* appearing (+1) or disappearing (-1) on *node*."""
        if not self.owned:
            self.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
            self.existing_keys = set(self.existing_keys)
            self.affinity_counts = dict(self.affinity_counts)
            self.anti_affinity_counts = dict(self.anti_affinity_counts)
            self.owned = True
        labels = node.labels
        incoming = self.pod
        ns_labels = self.namespace_labels
        for t in info.required_anti_affinity_terms:
            if t.matches(incoming, ns_labels):
                value = labels.get(t.topology_key)
                if value is not None:
                    _bump(self.existing_anti_affinity_counts, (t.topology_key, value), delta)
                    self.existing_keys.add(t.topology_key)
        p = info.pod
        if _matches_all(self.affinity_terms, p):
            for it in self.affinity_terms:
                value = labels.get(it.topology_key)
                if value is not None:
                    _bump(self.affinity_counts, (it.topology_key, value), delta)
        for it in self.anti_affinity_terms:
            if it.matches(p):
                value = labels.get(it.topology_key)
                if value is not None:
                    _bump(self.anti_affinity_counts, (it.topology_key, value), delta)


@final
class PreScoreState:
    """What PreScore computed for Score: ``topology_score[key][value]`` is the summed weight of
    the matched terms for nodes in that domain."""

    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score

    def clone(self) -> PreScoreState:
        """Shared: the state does not change after PreScore."""
        return self


PRE_FILTER_STATE_KEY: Final = StateKey[PreFilterState]("PreFilter" + NAME, NAME)
PRE_SCORE_STATE_KEY: Final = StateKey[PreScoreState]("PreScore" + NAME, NAME)


# --------------------------------------------------------------------------------------------
# Plugin


def _verdict(s: PreFilterState, labels: Mapping[str, str]) -> Status | None:
    """Filter's verdict on a node with *labels* (only the values of :func:`_verdict_keys` are
    read)."""
    if s.affinity_terms:
        pods_exist = True
        counts = s.affinity_counts
        for t in s.affinity_terms:
            key = t.topology_key
            value = labels.get(key)
            if value is None:
                return _AFFINITY_NOT_MATCH
            if counts.get((key, value), 0) <= 0:
                pods_exist = False
        # The first pod of a group with affinity to itself: allowed when no pod anywhere
        # matches the terms and the pod matches them itself.
        if not pods_exist and (counts or not s.pod_matches_own_affinity):
            return _AFFINITY_NOT_MATCH
    anti = s.anti_affinity_counts
    if anti:
        for t in s.anti_affinity_terms:
            key = t.topology_key
            value = labels.get(key)
            if value is not None and anti.get((key, value), 0) > 0:
                return _ANTI_AFFINITY_NOT_MATCH
    existing = s.existing_anti_affinity_counts
    if existing:
        for key in s.existing_keys:
            value = labels.get(key)
            if value is not None and existing.get((key, value), 0) > 0:
                return _EXISTING_ANTI_AFFINITY_NOT_MATCH
    return None


#: a label value no count holds (NUL cannot be in a label value)
_COUNTED_NOWHERE: Final = "\x00"


def _counted_pairs(s: PreFilterState) -> set[tuple[str, str]]:
    """Every (key, value) with a positive count in one of the counts :func:`_verdict` reads
    (affinity, anti-affinity, existing pods' anti-affinity)."""
    return {pair for counts in (s.affinity_counts, s.anti_affinity_counts, s.existing_anti_affinity_counts)
            for pair, n in counts.items() if n > 0}


def _verdict_keys(s: PreFilterState) -> tuple[str, ...]:
    """The label keys :func:`_verdict` reads for *s*."""
    keys = [t.topology_key for t in s.affinity_terms]
    if s.anti_affinity_counts:
        keys.extend(t.topology_key for t in s.anti_affinity_terms)
    if s.existing_anti_affinity_counts:
        keys.extend(sorted(s.existing_keys))
    return tuple(dict.fromkeys(keys))


def _label_value(node_info: NodeInfo, key: str) -> object:
    """The node's value of *key* (None for a missing label), or :data:`_GONE` when the node is
    gone."""
    node = node_info.node
    if node is None:
        return _GONE
    return node.labels.get(key)


#: what :func:`_label_value` gives for a node that is gone
_GONE: Final = object()


def _judged(values: Sequence[Any], verdicts: Mapping[Any, Status | None],
            neutral: Status | None) -> list[tuple[int, Status]]:
    """``filter_nodes``' answer for nodes with these label *values* (or combinations of them):
    each one's own verdict where it was judged apart, *neutral* where not."""
    return rejections(list(map(verdicts.get, values, repeat(neutral))))


@final
class InterPodAffinity(PodCountingExtensions):
    """The InterPodAffinity plugin: PreFilter, Filter (+ extensions), PreScore, Score,
    NormalizeScore and queueing hints.

    .. versionadded:: 0.1.0
    """

    _counts_key: ClassVar[StateKey[PreFilterState]] = PRE_FILTER_STATE_KEY

    __module__ = "schedframe.plugins.inter_pod_affinity"
    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True
    #: filter_nodes remembers results by position: handed whole runs (see framework.runtime)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        self.args = args
        self._handle = handle
        self._sums = SumCache()
        self._label_memo: RunMemo[tuple[str | None, ...] | None] = RunMemo()
        self._value_memo: RunMemo[object] = RunMemo()  # one key's values (_filter_one_key)

    @property
    def name(self) -> str:
        """``"InterPodAffinity"``."""
        return NAME

    def _namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """The labels of *namespace* (none when it is unknown, as upstream)."""
        ns = self._handle.objects.namespace(namespace)
        return ns.labels if ns is not None else _NO_LABELS

    def _resolve(self, terms: Sequence[AffinityTerm]) -> tuple[IncomingTerm, ...]:
        objects = self._handle.objects
        return tuple(IncomingTerm(t, objects) for t in terms)

    # -- PreFilter / Filter ---------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[None, Status | None]:
        """Count, per topology domain, existing pods whose anti-affinity the pod violates and
        existing pods matching the pod's required (anti-)affinity terms."""
        parse_error = pod_parse_error(pod)
        if parse_error is not None:
            return None, Status.unresolvable(f"parsing pod: {parse_error}")
        lister = self._handle.snapshot_shared_lister().node_infos()
        info = PodInfo.of(pod)
        s = PreFilterState(pod, self._resolve(info.required_affinity_terms),
                           self._resolve(info.required_anti_affinity_terms),
                           self._namespace_labels(pod.namespace))
        existing, s.existing_keys = self._existing_anti_affinity_counts(
            pod, s.namespace_labels, _with_terms(lister, lister.have_pods_with_required_anti_affinity_list))
        s.existing_anti_affinity_counts = existing
        if not existing and not s.affinity_terms and not s.anti_affinity_terms:
            return None, Status.skip()
        if s.affinity_terms:
            s.affinity_counts = self._incoming_affinity_counts(s.affinity_terms, nodes)
        if s.anti_affinity_terms:
            s.anti_affinity_counts = self._incoming_anti_affinity_counts(s.anti_affinity_terms, nodes)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _existing_anti_affinity_counts(self, pod: Pod, ns_labels: Mapping[str, str],
                                       nodes: Sequence[NodeInfo]) -> tuple[Counts, set[str]]:
        """Upstream ``getExistingAntiAffinityCounts``: per domain, the required anti-affinity
        terms of existing pods that match *pod* (cached, refreshed incrementally; the counts
        are the cache's), and the topology keys among them."""
        if not nodes:
            return {}, set()  # no pod with required anti-affinity: nothing to count

        def pairs_of(labels: Mapping[str, str], existing: PodInfo) -> list[tuple[Hashable, int]]:
            pairs: list[tuple[Hashable, int]] = []
            for t in existing.required_anti_affinity_terms:
                if t.matches(pod, ns_labels):
                    value = labels.get(t.topology_key)
                    if value is not None:
                        pairs.append(((t.topology_key, value), 1))
            return pairs

        contribute, delta = per_pod(_with_required_anti_affinity, pairs_of)
        sig = ("existing", pod.namespace, pod.labels, ns_labels)
        follow = following(snapshot_of(self._handle), nodes, _TERMS_OF_PODS)
        entry = self._sums.get(sig, nodes, contribute, grouped=True, delta=delta, follow=follow)
        return cast("Counts", entry.sums), cast("set[str]", set(entry.heads))

    def _incoming_affinity_counts(self, terms: tuple[IncomingTerm, ...], nodes: Sequence[NodeInfo]) -> Counts:
        """Per domain of each term, the existing pods matching *all* the pod's required
        affinity terms (upstream ``getIncomingAffinityAntiAffinityCounts``)."""

        def pairs_of(labels: Mapping[str, str], existing: PodInfo) -> Sequence[tuple[Hashable, int]]:
            if not _matches_all(terms, existing.pod):
                return ()
            return [((t.topology_key, labels[t.topology_key]), 1) for t in terms if t.topology_key in labels]

        contribute, delta = per_pod(_all_pods, pairs_of)
        sig = ("affinity", tuple(t.signature for t in terms))
        follow = following(snapshot_of(self._handle), nodes, _terms_probe(terms))
        return cast("Counts", self._sums.get(sig, nodes, contribute, delta=delta, follow=follow).sums)

    def _incoming_anti_affinity_counts(self, terms: tuple[IncomingTerm, ...],
                                       nodes: Sequence[NodeInfo]) -> Counts:
        """Per domain of each term, the existing pods matching that required anti-affinity term
        of the pod (upstream ``getIncomingAffinityAntiAffinityCounts``)."""

        def pairs_of(labels: Mapping[str, str], existing: PodInfo) -> list[tuple[Hashable, int]]:
            pairs: list[tuple[Hashable, int]] = []
            for t in terms:
                if t.matches(existing.pod):
                    value = labels.get(t.topology_key)
                    if value is not None:
                        pairs.append(((t.topology_key, value), 1))
            return pairs

        contribute, delta = per_pod(_all_pods, pairs_of)
        sig = ("anti", tuple(t.signature for t in terms))
        follow = following(snapshot_of(self._handle), nodes, _terms_probe(terms))
        return cast("Counts", self._sums.get(sig, nodes, contribute, delta=delta, follow=follow).sums)

    def pre_filter_extensions(self) -> InterPodAffinity:
        """AddPod / RemovePod update the counts."""
        return self

    def _count_pod(self, s: PreFilterState, pod_to_schedule: Pod, pod_info: PodInfo, node_info: NodeInfo,
                   delta: int) -> None:
        if node_info.node is not None:
            s.update_with_pod(pod_info, node_info.node, delta)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Check the pod's affinity, its anti-affinity and the existing pods' anti-affinity."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        node = node_info.node
        if node is None:
            return node_not_found()
        return _verdict(s, node.labels)

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`): the state is
        read once, and when no term constrains the pod (no required terms of its own, no
        existing pod's anti-affinity matching it) only missing nodes are rejected. Otherwise a
        node's verdict depends only on its values of the terms' topology keys (remembered by
        position, as PodTopologySpread does): each distinct combination is judged once, and all
        the combinations holding no counted value and no missing label together once (with
        hostname terms, most nodes)."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as exc:
            return [(i, Status.from_error(exc)) for i in range(len(nodes))]
        if not s.affinity_terms and not s.anti_affinity_counts and not s.existing_anti_affinity_counts:
            return [(i, node_not_found()) for i, ni in enumerate(nodes) if ni.node is None]
        keys = _verdict_keys(s)
        # A combination holding no counted (key, value) and no missing label gets the verdict of
        # a value counted nowhere (_verdict reads only counts, and presence): judged once.
        merged = _counted_pairs(s)
        if len(keys) == 1:  # the usual: one topology key
            return self._filter_one_key(s, keys[0], nodes, merged)
        values = self._label_memo.values(keys, self._handle.snapshot_shared_lister(), nodes,
                                         lambda some: label_values(some, keys))
        counted = [{value for key, value in merged if key == k} for k in keys]
        distinct = set(values)
        special = [c for c in distinct if c is None or any(v is None or v in h for v, h in zip(c, counted))]
        verdicts: dict[tuple[str | None, ...] | None, Status | None] = {
            c: (node_not_found() if c is None
                else _verdict(s, {k: v for k, v in zip(keys, c) if v is not None}))
            for c in special
        }
        neutral = (_verdict(s, dict.fromkeys(keys, _COUNTED_NOWHERE)) if len(special) < len(distinct)
                   else None)
        return _judged(values, verdicts, neutral)

    def _filter_one_key(self, s: PreFilterState, key: str, nodes: Sequence[NodeInfo],
                        merged: set[tuple[str, str]]) -> list[tuple[int, Status]]:
        """:meth:`filter_nodes` when the verdict reads one label key: the nodes' values of it
        (remembered by position) are judged apart only when counted somewhere or missing, and
        every other value together, as one counted nowhere."""
        values = self._value_memo.values(key, self._handle.snapshot_shared_lister(), nodes,
                                         lambda some: [_label_value(ni, key) for ni in some])
        hot: set[object] = {value for k, value in merged if k == key}
        verdicts: dict[object, Status | None] = {
            value: _verdict(s, {key: cast(str, value)}) for value in hot.intersection(values)}
        verdicts[None] = _verdict(s, {})  # the label missing
        verdicts[_GONE] = node_not_found()
        return _judged(values, verdicts, _verdict(s, {key: _COUNTED_NOWHERE}))

    # -- PreScore / Score -----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Sum, per topology domain, the weights of the preferred terms (both ways) and of the
        existing pods' required affinity terms matching the pod."""
        aff = pod.affinity
        pref_aff = aff.pod_affinity.preferred if aff is not None and aff.pod_affinity is not None else ()
        pref_anti = (aff.pod_anti_affinity.preferred
                     if aff is not None and aff.pod_anti_affinity is not None else ())
        has_constraints = bool(pref_aff) or bool(pref_anti)
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        parse_error = pod_parse_error(pod)
        if parse_error is not None:
            return Status.from_error(ValueError(f"failed to parse pod: {parse_error}"))
        lister = self._handle.snapshot_shared_lister().node_infos()
        all_nodes = (lister.list() if has_constraints
                     else _with_terms(lister, lister.have_pods_with_affinity_list))
        if not all_nodes:
            return Status.skip()  # nothing to count: the sums would be empty
        objects = self._handle.objects
        info = PodInfo.of(pod)
        aff_terms = [(IncomingTerm(w.term, objects), w.weight) for w in info.preferred_affinity_terms]
        anti_terms = [(IncomingTerm(w.term, objects), -w.weight) for w in info.preferred_anti_affinity_terms]
        incoming_terms = aff_terms + anti_terms
        ns_labels = self._namespace_labels(pod.namespace)
        hard_weight = self.args.hard_pod_affinity_weight

        def pairs_of(labels: Mapping[str, str], existing: PodInfo) -> list[tuple[Hashable, int]]:
            pairs: list[tuple[Hashable, int]] = []
            if labels:
                if incoming_terms:
                    p = existing.pod
                    for it, weight in incoming_terms:
                        if it.matches(p):
                            value = labels.get(it.topology_key)
                            if value is not None:
                                pairs.append(((it.topology_key, value), weight))
                if hard_weight > 0:
                    for t in existing.required_affinity_terms:
                        if t.matches(pod, ns_labels):
                            value = labels.get(t.topology_key)
                            if value is not None:
                                pairs.append(((t.topology_key, value), hard_weight))
                for wt in existing.preferred_affinity_terms:
                    if wt.term.matches(pod, ns_labels):
                        value = labels.get(wt.term.topology_key)
                        if value is not None:
                            pairs.append(((wt.term.topology_key, value), wt.weight))
                for wt in existing.preferred_anti_affinity_terms:
                    if wt.term.matches(pod, ns_labels):
                        value = labels.get(wt.term.topology_key)
                        if value is not None:
                            pairs.append(((wt.term.topology_key, value), -wt.weight))
            return pairs

        contribute, delta = per_pod(_all_pods if has_constraints else _with_affinity, pairs_of)
        sig = ("score", tuple((it.signature, weight) for it, weight in incoming_terms), pod.namespace,
               pod.labels, ns_labels, hard_weight, has_constraints)
        # the pods the incoming terms select, and the terms of the pods with affinity, count
        follow = following(lister, all_nodes, _terms_probe([it for it, _ in incoming_terms], affinity=True))
        sums = cast("Counts", self._sums.get(sig, all_nodes, contribute, delta=delta, follow=follow).sums)
        if not sums:
            return Status.skip()
        topo: dict[str, dict[str, int]] = {}
        for (key, value), total in sums.items():
            inner = topo.get(key)
            if inner is None:
                topo[key] = {value: total}
            else:
                inner[value] = total
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topo))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The summed weights of the node's domains (negative for anti-affinity)."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return 0, Status.from_error(exc)
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        labels = node.labels
        total = 0
        for key, inner in s.topology_score.items():
            value = labels.get(key)
            if value is not None:
                total += inner.get(value, 0)
        return total, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, the state read once (:class:`~schedframe.BatchScorePlugin`)."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc) if nodes else []
        node_objects = nodes_of(nodes)
        if not all(node_objects):  # a Node is always true
            return node_not_found()
        # one C-level pass per topology key: the node's value of the key, then the domain's sum
        # (a node without the key reads None, which no domain is: 0)
        labels = node_labels(cast("list[Node]", node_objects))  # none is None (checked)
        out: list[int] | None = None
        for key, inner in s.topology_score.items():
            get: Any = inner.get  # called with None too (a node without the key)
            column: Iterator[int] = map(get, map(dict.get, labels, repeat(key)), repeat(0))
            out = list(column) if out is None else list(map(add, out, column))
        return [0] * len(nodes) if out is None else out

    def score_extensions(self) -> InterPodAffinity:
        """NormalizeScore min-max scales the scores."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Min-max normalization to [0, 100] (:meth:`normalize_score_ints` of the scores)."""
        normalized = self.normalize_score_ints(state, pod, (), [ns.score for ns in scores])
        if isinstance(normalized, Status):
            return normalized
        for i, (ns, new) in enumerate(zip(scores, normalized)):
            if new != ns.score:
                scores[i] = NodeScore(ns.name, new)
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status:
        """Min-max normalization of plain int scores to [0, 100]
        (:class:`~schedframe.BatchScoreExtensions`); they stay as they are without preferred terms."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        if not s.topology_score or not scores:
            return scores
        lo = min(scores)
        diff = max(scores) - lo
        if diff <= 0:
            return [0] * len(scores)
        return [int(MAX_NODE_SCORE * ((v - lo) / diff)) for v in scores]

    # -- queueing hints -------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Assigned pods added, relabelled or deleted; nodes added or relabelled."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD,
                             ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                self.is_schedulable_after_pod_change),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Requeue when the pod's own labels change, when an assigned pod starts matching all the
        pod's affinity terms or stops matching all its anti-affinity terms, when such a pod is
        added or deleted, or when a deleted pod's required anti-affinity matched the pod."""
        old: Pod | None = old_obj
        new: Pod | None = new_obj
        if new is not None and old is not None and new.uid == pod.uid:
            # The pod itself was relabelled: existing pods' anti-affinity and its own
            # "first pod of a group" self-match may now evaluate differently.
            return QueueingHint.QUEUE if new.labels != old.labels else QueueingHint.QUEUE_SKIP
        if (new is not None and not new.node_name) or (old is not None and not old.node_name):
            return QueueingHint.QUEUE_SKIP
        info = PodInfo.of(pod)
        terms = info.required_affinity_terms
        anti = info.required_anti_affinity_terms
        if new is not None and old is not None:
            if not _all_match(terms, old) and _all_match(terms, new):
                return QueueingHint.QUEUE
            if _all_match(anti, old) and not _all_match(anti, new):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if _all_match(terms, new) else QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        if _all_match(anti, old):
            return QueueingHint.QUEUE
        ns_labels = self._namespace_labels(pod.namespace)
        for t in PodInfo.of(old).required_anti_affinity_terms:
            if t.matches(pod, ns_labels):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Requeue when a node gains or changes a topology value of the pod's affinity terms,
        when a node is added while the pod has anti-affinity, or when a node changes or drops a
        topology value of its anti-affinity terms."""
        old: Node | None = old_obj
        new: Node | None = new_obj
        if new is None:
            return QueueingHint.QUEUE
        info = PodInfo.of(pod)
        new_labels = new.labels
        old_labels = old.labels if old is not None else None
        for t in info.required_affinity_terms:
            key = t.topology_key
            if key in new_labels and (old_labels is None or old_labels.get(key) != new_labels[key]):
                return QueueingHint.QUEUE
        for t in info.required_anti_affinity_terms:
            if old_labels is None:
                return QueueingHint.QUEUE
            key = t.topology_key
            if key in old_labels and old_labels[key] != new_labels.get(key):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def pod_parse_error(pod: Pod) -> str | None:
    """Upstream ``NewPodInfo``'s parse errors for the pod's (anti-)affinity terms: per group of
    terms, the first label selector or namespace selector that does not parse."""
    aff = pod.affinity
    if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
        return None
    pa, paa = aff.pod_affinity, aff.pod_anti_affinity
    groups: tuple[tuple[str, Sequence[PodAffinityTerm]], ...] = (
        ("requiredAffinityTerms", pa.required if pa else ()),
        ("requiredAntiAffinityTerms", paa.required if paa else ()),
        ("preferredAffinityTerms", [w.term for w in pa.preferred] if pa else ()),
        ("preferredAntiAffinityTerms", [w.term for w in paa.preferred] if paa else ()),
    )
    errs: list[str] = []
    for group, terms in groups:
        for t in terms:
            err = selector_error(t.label_selector) or selector_error(t.namespace_selector)
            if err is not None:
                errs.append(f"{group}: {err}")
                break
    if not errs:
        return None
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def _all_match(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """``podMatchesAllAffinityTerms`` for unresolved terms (namespace selectors match against
    no labels, as upstream's hints do)."""
    if not terms:
        return False
    for t in terms:
        if not _term_matches_without_labels(t, pod):
            return False
    return True


def _term_matches_without_labels(t: AffinityTerm, pod: Pod) -> bool:
    if pod.namespace in t.namespaces or (t.namespace_selector is not None
                                         and t.namespace_selector.matches(_NO_LABELS)):
        return t.selector is not None and t.selector.matches(pod.labels)
    return False


def new(args: object, handle: Handle) -> InterPodAffinity:
    """Factory: *args* is ``None``, an :class:`InterPodAffinityArgs` or a camelCase mapping."""
    return InterPodAffinity(plugin_args(args, InterPodAffinityArgs), handle)


if TYPE_CHECKING:
    from ..framework.interfaces import (
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreScorePlugin,
        ScoreExtensions,
        ScorePlugin,
    )

    def _check(p: InterPodAffinity) -> None:
        _a: PreFilterPlugin = p
        _b: FilterPlugin = p
        _c: PreFilterExtensions = p
        _d: PreScorePlugin = p
        _e: ScorePlugin = p
        _f: ScoreExtensions = p
        _g: EnqueueExtensions = p
