"""PreemptionToleration: DefaultPreemption where a victim's PriorityClass may tolerate being
preempted (kubernetes-sigs/scheduler-plugins ``pkg/preemptiontoleration``).

A PriorityClass sets, in annotations:

* ``preemption-toleration.scheduling.x-k8s.io/minimum-preemptable-priority`` -- only preemptors
  of at least this priority may evict its pods (default: the class's value + 1, i.e. any
  higher-priority pod);
* ``preemption-toleration.scheduling.x-k8s.io/toleration-seconds`` -- how long after being
  scheduled (the ``PodScheduled`` condition's transition time) its pods tolerate preemption by
  lower preemptors (default 0: not at all; negative: for ever).

A pod is exempted from preemption when its class names such a policy and the preemptor is
below the minimum preemptable priority while the toleration lasts (or the pod was never marked
scheduled); a preemptor with ``preemptionPolicy: Never`` exempts every pod of a named class.
A pod without a PriorityClass, or whose class annotations do not parse, is never exempted.
Otherwise preemption is DefaultPreemption's (args ``DefaultPreemptionArgs``), with upstream's
messages and without the ``preemption:`` prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.objects import Pod, PodDisruptionBudget, PriorityClass
from ...cache.nodeinfo import NodeInfo, PodInfo
from ...errors import SchedframeError
from ...framework.cycle_state import CycleState
from ...framework.events import ClusterEventWithHint
from ...framework.handle import Handle
from ...framework.interfaces import NodeToStatus, PostFilterResult
from ...framework.preemption import Evaluator, sort_by_importance
from ...framework.registry import plugin_args
from ...framework.status import Code, Status
from .._victims import DefaultNodePicking, NodeDryRun
from ..default_preemption import DefaultPreemption, DefaultPreemptionArgs, filter_pods_with_pdb_violation

__all__ = [
    "ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY",
    "ANNOTATION_TOLERATION_SECONDS",
    "ARGS_TYPE",
    "NAME",
    "PreemptionToleration",
    "PreemptionTolerationPolicy",
    "exempted_from_preemption",
    "new",
    "parse_preemption_toleration_policy",
]

NAME: Final = "PreemptionToleration"
_PREFIX: Final = "preemption-toleration.scheduling.x-k8s.io/"
#: PriorityClass annotation: the lowest preemptor priority its pods yield to.
ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY: Final = _PREFIX + "minimum-preemptable-priority"
#: PriorityClass annotation: how long its pods tolerate lower preemptors after being scheduled.
ANNOTATION_TOLERATION_SECONDS: Final = _PREFIX + "toleration-seconds"
ARGS_TYPE: Final = DefaultPreemptionArgs
_INT32: Final = (-(2**31), 2**31 - 1)
_INT64: Final = (-(2**63), 2**63 - 1)


class PolicyParseError(SchedframeError, ValueError):
    """An annotation of a PriorityClass does not parse (Go's ``strconv.ParseInt`` message)."""


@final
@attrs.frozen
class PreemptionTolerationPolicy:
    """A PriorityClass's toleration policy (upstream ``Policy``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    minimum_preemptable_priority: int
    toleration_seconds: int = 0


def _parse_int(text: str, bounds: tuple[int, int]) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        raise PolicyParseError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    value = int(text)
    if not bounds[0] <= value <= bounds[1]:
        raise PolicyParseError(f'strconv.ParseInt: parsing "{text}": value out of range')
    return value


def parse_preemption_toleration_policy(pc: PriorityClass) -> PreemptionTolerationPolicy:
    """The policy of *pc*'s annotations; raises ``PolicyParseError`` (a ``ValueError``) with Go's
    message when one does not parse.

    .. versionadded:: 0.1.0
    """
    raw = pc.annotations.get(ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY)
    minimum = pc.value + 1 if raw is None else _parse_int(raw, _INT32)
    raw = pc.annotations.get(ANNOTATION_TOLERATION_SECONDS)
    seconds = 0 if raw is None else _parse_int(raw, _INT64)
    return PreemptionTolerationPolicy(minimum, seconds)


def exempted_from_preemption(victim: Pod, preemptor: Pod, priority_classes: Mapping[str, PriorityClass],
                             now: float) -> bool:
    """Whether *victim* tolerates preemption by *preemptor* at *now* (upstream
    ``ExemptedFromPreemption``); raises :class:`KeyError` when its PriorityClass is unknown.

    .. versionadded:: 0.1.0
    """
    if not victim.priority_class_name:
        return False
    pc = priority_classes[victim.priority_class_name]
    if preemptor.preemption_policy == "Never":
        return True
    try:
        policy = parse_preemption_toleration_policy(pc)
    except PolicyParseError:
        return False
    if preemptor.effective_priority >= policy.minimum_preemptable_priority:
        return False
    if policy.toleration_seconds < 0:
        return True
    scheduled = next((c for c in victim.conditions if c.type == "PodScheduled"), None)
    if scheduled is None or scheduled.status != "True" or scheduled.last_transition_time is None:
        return True
    return scheduled.last_transition_time + policy.toleration_seconds > now


@final
class _ClassLookup(Mapping[str, PriorityClass]):
    __slots__ = ("_handle",)

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def __getitem__(self, name: str) -> PriorityClass:
        for pc in self._handle.objects.list(PriorityClass):
            if pc.name == name:
                return pc
        raise KeyError(name)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(pc.name for pc in self._handle.objects.list(PriorityClass))

    def __len__(self) -> int:
        return len(self._handle.objects.list(PriorityClass))


@final
class PreemptionToleration(DefaultNodePicking):
    """The PreemptionToleration plugin (PostFilter); see the module docs.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_classes", "_default", "_handle", "_now", "evaluator")

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle) -> None:
        self._handle = handle
        # the candidate count and random offset are DefaultPreemption's
        self._default = DefaultPreemption(args, handle)
        self._classes = _ClassLookup(handle)
        self._now = 0.0
        self.evaluator = Evaluator(NAME, handle, self)

    @property
    def name(self) -> str:
        """``"PreemptionToleration"``."""
        return NAME

    @property
    def args(self) -> DefaultPreemptionArgs:
        """The effective args."""
        return self._default.args

    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt for *pod*, sparing the pods that tolerate it."""
        self._now = self._handle.clock.now()
        return self.evaluator.preempt(state, pod, filtered_node_status_map)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """None (as DefaultPreemption with synchronous preemption)."""
        return ()

    # -- preemption.Interface -------------------------------------------------------------------
    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """As DefaultPreemption: a random offset and the args' candidate count."""
        return self._default.get_offset_and_num_candidates(num_nodes)

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]:
        """Not with ``preemptionPolicy: Never``; not while a lower-priority pod on the nominated
        node is terminating (unless that node is ``UNSCHEDULABLE_AND_UNRESOLVABLE``)."""
        if pod.preemption_policy == "Never":
            return False, "not eligible due to preemptionPolicy=Never."
        nominated = pod.nominated_node_name
        if nominated:
            if nominated_node_status is not None and \
                    nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self._handle.snapshot_shared_lister().node_infos().get(nominated)
            if node_info is not None:
                priority = pod.effective_priority
                for pi in node_info.pods:
                    if pi.pod.deletion_timestamp is not None and pi.pod.effective_priority < priority:
                        return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """DefaultPreemption's victim selection over the lower-priority pods that are not
        exempted."""
        fh = self._handle

        dry = NodeDryRun(fh, state, pod, node_info)
        remove = dry.remove

        priority = pod.effective_priority
        potential: list[PodInfo] = []
        for pi in list(node_info.pods):
            if pi.pod.effective_priority >= priority:
                continue
            try:
                exempted = exempted_from_preemption(pi.pod, pod, self._classes, self._now)
            except KeyError as exc:
                msg = f'priorityclass.scheduling.k8s.io "{exc.args[0]}" not found'
                return [], 0, Status(Code.ERROR, (msg,))
            if not exempted:
                potential.append(pi)
                err = remove(pi)
                if err is not None:
                    return [], 0, err
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 (f"No victims found on node {node_info.name} for preemptor pod {pod.name}",))
        status = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return [], 0, status
        now = fh.clock.now()

        def order(infos: list[PodInfo]) -> None:
            sort_by_importance(infos, None, now)

        order(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        return dry.victims(violating, non_violating, order)


def new(args: object, handle: Handle) -> PreemptionToleration:
    """Factory: *args* is ``None``, a ``DefaultPreemptionArgs`` or a camelCase mapping
    (upstream ``PreemptionTolerationArgs`` has DefaultPreemptionArgs' fields and defaults)."""
    parsed = plugin_args(args, DefaultPreemptionArgs, shown="PreemptionTolerationArgs", validate=False)
    return PreemptionToleration(parsed, handle)


if TYPE_CHECKING:
    from ...framework.interfaces import EnqueueExtensions, PostFilterPlugin
    from ...framework.preemption import PreemptionInterface

    def _check(p: PreemptionToleration) -> None:
        _a: PostFilterPlugin = p
        _b: EnqueueExtensions = p
        _c: PreemptionInterface = p
