"""NodeAffinity: ``spec.nodeSelector``, required and preferred node affinity, and the
scheduler-enforced ``addedAffinity`` of the plugin args.

Upstream: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` and
``ValidateNodeAffinityArgs`` in ``pkg/scheduler/apis/config/validation/validation_pluginargs.go``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

import attrs

from ..api.objects import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from ..api.objects import NodeAffinity as NodeAffinitySpec
from ..errors import PluginArgsError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.interfaces import PreFilterResult
from ..framework.registry import plugin_args
from ..framework.status import Code, Status
from . import names
from ._helpers import (
    FieldErrors,
    LazyNodeSelector,
    NormalizedByHighest,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    as_objects,
    node_not_found,
)
from ._run_memo import RunMemo, rejections, snapshot_of

if TYPE_CHECKING:

    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        BatchFilterPlugin,
        BatchScoreExtensions,
        BatchScorePlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreScorePlugin,
        ScoreExtensions,
        ScorePlugin,
    )

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "NodeAffinity",
    "NodeAffinityArgs",
    "new",
]

NAME: Final = names.NODE_AFFINITY

#: Filter reason: the node does not satisfy the pod's node selector / required node affinity.
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
#: Filter reason: the node does not satisfy the plugin args' ``addedAffinity``.
ERR_REASON_ENFORCED: Final = "node(s) didn't match scheduler-enforced node affinity"
#: PreFilter reason: every required term pins ``metadata.name`` and no name satisfies them all.
ERR_REASON_CONFLICT: Final = "pod affinity terms conflict"

_REQUIRED_PATH: Final = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED_PATH: Final = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"

_REJECTED_POD: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,))
_REJECTED_ENFORCED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_ENFORCED,))
_CONFLICT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))

#: CycleState key: the pod's parsed node selector and required node affinity.
PRE_FILTER_STATE_KEY: Final[StateKey[RequiredNodeAffinity]] = StateKey("PreFilter" + NAME, NAME)
#: CycleState key: the pod's parsed preferred node-affinity terms (``None``: it has none).
PRE_SCORE_STATE_KEY: Final[StateKey[PreferredSchedulingTerms | None]] = StateKey("PreScore" + NAME, NAME)


# --------------------------------------------------------------------------------------------
# Args


def _decode_added_affinity(raw: Any, path: str) -> NodeAffinitySpec | None:
    errs = FieldErrors()
    affinity = _decode_affinity(raw, path, errs)
    if errs:
        raise PluginArgsError(errs.errors)
    return affinity


def _encode_added_affinity(affinity: NodeAffinitySpec) -> dict[str, Any]:
    return _encode_affinity(affinity)


def _node_affinity(value: NodeAffinitySpec | Mapping[str, Any] | None) -> NodeAffinitySpec | None:
    if value is None or isinstance(value, NodeAffinitySpec):
        return value
    errs = FieldErrors()
    decoded = _decode_affinity(value, "addedAffinity", errs)
    if errs:
        raise PluginArgsError(errs.errors)
    return decoded


@final
@attrs.frozen(kw_only=True)
class NodeAffinityArgs:
    """Args of the NodeAffinity plugin (upstream ``NodeAffinityArgs``).

    Attributes:
        added_affinity: node affinity applied to every pod of the profile, on top of the pod's
            own: its required terms filter nodes (``ERR_REASON_ENFORCED``), its preferred terms
            add to the score. ``None`` (the default) adds nothing.

    .. versionadded:: 0.1.0
    """

    added_affinity: NodeAffinitySpec | None = attrs.field(
        default=None, converter=_node_affinity,
        metadata={"decode": _decode_added_affinity, "encode": _encode_added_affinity})

    KIND: ClassVar[str] = "NodeAffinityArgs"

    def errors(self) -> list[str]:
        """Every validation error, with field paths (upstream ``ValidateNodeAffinityArgs``)."""
        aff = self.added_affinity
        if aff is None:
            return []
        errs: list[str] = []
        if aff.required is not None:
            errs.extend(LazyNodeSelector(aff.required, _REQUIRED_PATH).errors())
        if aff.preferred:
            errs.extend(PreferredSchedulingTerms(aff.preferred, _PREFERRED_PATH).errors)
        return errs

ARGS_TYPE: Final = NodeAffinityArgs

_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _check_keys(data: Mapping[str, Any], allowed: Sequence[str], path: str, errs: FieldErrors) -> None:
    for key in data:
        if key not in allowed:
            errs.add(f"{path}.{key}: unknown field")


def _as_mapping(value: object, path: str, errs: FieldErrors) -> Mapping[str, Any] | None:
    if isinstance(value, Mapping):
        return value
    errs.add(f"{path}: must be a mapping, got {type(value).__name__}")
    return None


def _as_list(value: object, path: str, errs: FieldErrors) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    errs.add(f"{path}: must be a list, got {type(value).__name__}")
    return []


def _decode_requirements(value: object, path: str, errs: FieldErrors) -> tuple[NodeSelectorRequirement, ...]:
    out: list[NodeSelectorRequirement] = []
    for i, item in enumerate(_as_list(value, path, errs)):
        p = f"{path}[{i}]"
        m = _as_mapping(item, p, errs)
        if m is None:
            continue
        _check_keys(m, ("key", "operator", "values"), p, errs)
        key, op, values = m.get("key", ""), m.get("operator", ""), m.get("values")
        ok = True
        if not isinstance(key, str):
            errs.add(f"{p}.key: must be a string, got {type(key).__name__}")
            ok = False
        if op not in _SELECTOR_OPS:
            errs.not_supported(f"{p}.operator", op, _SELECTOR_OPS)
            ok = False
        vals = _as_list(values, f"{p}.values", errs)
        for j, v in enumerate(vals):
            if not isinstance(v, str):
                errs.add(f"{p}.values[{j}]: must be a string, got {type(v).__name__}")
                ok = False
        if ok:
            out.append(NodeSelectorRequirement(key, op, tuple(vals)))
    return tuple(out)


def _decode_term(value: object, path: str, errs: FieldErrors) -> NodeSelectorTerm:
    m = _as_mapping(value, path, errs)
    if m is None:
        return NodeSelectorTerm()
    _check_keys(m, ("matchExpressions", "matchFields"), path, errs)
    return NodeSelectorTerm(
        _decode_requirements(m.get("matchExpressions"), f"{path}.matchExpressions", errs),
        _decode_requirements(m.get("matchFields"), f"{path}.matchFields", errs),
    )


def _decode_affinity(value: object, path: str, errs: FieldErrors) -> NodeAffinitySpec | None:
    m = _as_mapping(value, path, errs)
    if m is None:
        return None
    req_key = "requiredDuringSchedulingIgnoredDuringExecution"
    pref_key = "preferredDuringSchedulingIgnoredDuringExecution"
    _check_keys(m, (req_key, pref_key), path, errs)
    required = None
    raw_req = m.get(req_key)
    if raw_req is not None:
        rp = f"{path}.{req_key}"
        rm = _as_mapping(raw_req, rp, errs)
        if rm is not None:
            _check_keys(rm, ("nodeSelectorTerms",), rp, errs)
            terms = _as_list(rm.get("nodeSelectorTerms"), f"{rp}.nodeSelectorTerms", errs)
            required = NodeSelector(tuple(
                _decode_term(t, f"{rp}.nodeSelectorTerms[{i}]", errs) for i, t in enumerate(terms)))
    preferred: list[PreferredSchedulingTerm] = []
    pp = f"{path}.{pref_key}"
    for i, item in enumerate(_as_list(m.get(pref_key), pp, errs)):
        ip = f"{pp}[{i}]"
        im = _as_mapping(item, ip, errs)
        if im is None:
            continue
        _check_keys(im, ("weight", "preference"), ip, errs)
        weight = im.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            errs.add(f"{ip}.weight: must be an integer, got {weight!r}")
            continue
        preferred.append(PreferredSchedulingTerm(weight, _decode_term(im.get("preference", {}),
                                                                      f"{ip}.preference", errs)))
    return NodeAffinitySpec(required, tuple(preferred))


def _encode_requirements(reqs: Sequence[NodeSelectorRequirement]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in reqs:
        d: dict[str, Any] = {"key": r.key, "operator": r.operator}
        if r.values:
            d["values"] = list(r.values)
        out.append(d)
    return out


def _encode_term(term: NodeSelectorTerm) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if term.match_expressions:
        d["matchExpressions"] = _encode_requirements(term.match_expressions)
    if term.match_fields:
        d["matchFields"] = _encode_requirements(term.match_fields)
    return d


def _encode_affinity(aff: NodeAffinitySpec) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if aff.required is not None:
        d["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [_encode_term(t) for t in aff.required.terms]}
    if aff.preferred:
        d["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": p.weight, "preference": _encode_term(p.preference)} for p in aff.preferred]
    return d


# --------------------------------------------------------------------------------------------
# Plugin


def _required(pod: Pod) -> NodeSelector | None:
    aff = pod.affinity
    if aff is None or aff.node_affinity is None:
        return None
    return aff.node_affinity.required


def _pod_preferred_terms(pod: Pod) -> PreferredSchedulingTerms | None:
    """The pod's parsed preferred terms, ``None`` when it has none.

    Raises:
        ValueError: a term failed to parse.
    """
    aff = pod.affinity
    if aff is None or aff.node_affinity is None or not aff.node_affinity.preferred:
        return None
    terms = PreferredSchedulingTerms(aff.node_affinity.preferred)
    if terms.errors:
        unique = list(dict.fromkeys(terms.errors))
        raise ValueError(unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]")
    return terms


@final
class NodeAffinity(NormalizedByHighest):
    """PreFilter + Filter + PreScore + Score plugin for node selection by labels and name.

    PreFilter parses the pod's ``nodeSelector`` and required node affinity once (``SKIP`` when
    there is nothing to check) and, when every required term pins ``metadata.name`` with
    ``matchFields``, narrows the candidates to those names (what makes DaemonSet pods cheap).
    Filter rejects non-matching nodes with ``UNSCHEDULABLE_AND_UNRESOLVABLE``. Score sums the
    weights of the matching preferred terms (the pod's and the args' ``addedAffinity``), then
    NormalizeScore scales the sums to [0, 100].

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True
    #: filter_nodes remembers verdicts by position: it takes whole runs (framework._filter_run)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    __slots__ = ("_added_preferred", "_added_selector", "_filter_memo", "_handle", "args")

    def __init__(self, args: NodeAffinityArgs | None = None, handle: Handle | None = None) -> None:
        self.args = args if args is not None else NodeAffinityArgs()
        self._handle = handle
        self._filter_memo: RunMemo[Status | None] = RunMemo()
        self._added_selector: LazyNodeSelector | None = None
        self._added_preferred: PreferredSchedulingTerms | None = None
        aff = self.args.added_affinity
        if aff is not None:
            if aff.required is not None:
                self._added_selector = LazyNodeSelector(aff.required, _REQUIRED_PATH)
            if aff.preferred:
                self._added_preferred = PreferredSchedulingTerms(aff.preferred, _PREFERRED_PATH)

    @property
    def name(self) -> str:
        """``"NodeAffinity"``."""
        return NAME

    # -- PreFilter / Filter ---------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Parse the pod's selector and required affinity; narrow to pinned node names."""
        required = _required(pod)
        if required is None and self._added_selector is None and not pod.node_selector:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity(pod))
        if required is None or not required.terms:
            return None, None
        node_names: frozenset[str] | None = None
        for term in required.terms:
            term_names: frozenset[str] | None = None
            for r in term.match_fields:
                if r.key == "metadata.name" and r.operator == "In":
                    values = frozenset(r.values)
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                return None, None  # this term does not pin names, and terms are ORed
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, _CONFLICT
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Check the args' added affinity, then the pod's selector and required affinity."""
        node = node_info.node
        if node is None:
            return node_not_found()
        added = self._added_selector
        if added is not None and not added.matches(node):
            return _REJECTED_ENFORCED
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None:  # PreFilter disabled: compute here
            required = RequiredNodeAffinity(pod)
        if not required.matches(node):
            return _REJECTED_POD
        return None

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`), with the
        pod's compiled selector bound once."""
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None or self._added_selector is not None:
            return [(i, s) for i, ni in enumerate(nodes) if (s := self.filter(state, pod, ni)) is not None]
        matches = required.matches

        def compute(some: Sequence[NodeInfo]) -> list[Status | None]:
            return [None if (node := ni.node) is not None and matches(node)
                    else _REJECTED_POD if node is not None else node_not_found() for ni in some]

        # the verdict depends on the node object and the pod's selector and required terms only
        key = (pod.node_selector, _required(pod))
        return rejections(self._filter_memo.values(key, snapshot_of(self._handle), nodes, compute))

    # -- PreScore / Score -----------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Parse the pod's preferred terms; skip when neither the pod nor the args have any."""
        try:
            preferred = _pod_preferred_terms(pod)
        except ValueError as exc:
            return Status.from_error(exc)
        if preferred is None and self._added_preferred is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, preferred)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The sum of the weights of the preferred terms the node matches."""
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        count = 0
        if self._added_preferred is not None:
            count += self._added_preferred.score(node)
        if PRE_SCORE_STATE_KEY in state:
            preferred = state.read(PRE_SCORE_STATE_KEY)
        else:  # PreScore disabled: compute here
            try:
                preferred = _pod_preferred_terms(pod)
            except ValueError as exc:
                return 0, Status.from_error(exc)
        if preferred is not None:
            count += preferred.score(node)
        return count, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`)."""
        added = self._added_preferred
        preferred: PreferredSchedulingTerms | None = None
        resolved = False
        out: list[int] = []
        append = out.append
        for ni in nodes:
            node = ni.node
            if node is None:
                return node_not_found()
            count = 0
            if added is not None:
                count += added.score(node)
            if not resolved:  # what score() reads (or computes) on every node
                if PRE_SCORE_STATE_KEY in state:
                    preferred = state.read(PRE_SCORE_STATE_KEY)
                else:
                    try:
                        preferred = _pod_preferred_terms(pod)
                    except ValueError as exc:
                        return Status.from_error(exc)
                resolved = True
            if preferred is not None:
                count += preferred.score(node)
            append(count)
        return out

    # -- Queueing -------------------------------------------------------------------------------
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added or its labels changed."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            ),
        )

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when an added node matches, or an updated node went from not matching to matching."""
        original, modified = as_objects(Node, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        if self._added_selector is not None and not self._added_selector.matches(modified):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity(pod)
        if not required.matches(modified):
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if required.matches(original):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: object, handle: Handle) -> NodeAffinity:
    """Create the plugin from ``None`` (defaults), a :class:`NodeAffinityArgs` or a camelCase
    mapping.

    Raises:
        PluginArgsError: args of another type, or invalid args (every error listed).
    """
    return NodeAffinity(plugin_args(args, NodeAffinityArgs), handle)


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = NodeAffinity()
    _filter: FilterPlugin = NodeAffinity()
    _batch_filter: BatchFilterPlugin = NodeAffinity()
    _pre_score: PreScorePlugin = NodeAffinity()
    _score: ScorePlugin = NodeAffinity()
    _score_ext: ScoreExtensions = NodeAffinity()
    _batch_score: BatchScorePlugin = NodeAffinity()
    _batch_score_ext: BatchScoreExtensions = NodeAffinity()
    _enqueue: EnqueueExtensions = NodeAffinity()
