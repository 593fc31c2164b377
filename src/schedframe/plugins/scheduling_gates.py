"""SchedulingGates: keeps pods with ``spec.schedulingGates`` out of the active queue.

Upstream: ``pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

from ..api.objects import Pod
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.status import Code, Status
from . import names
from ._helpers import no_args, own_update

if TYPE_CHECKING:
    from ..framework.handle import Handle
    from ..framework.interfaces import EnqueueExtensions, PreEnqueuePlugin

__all__ = ["ARGS_TYPE", "NAME", "SchedulingGates", "new"]

NAME: Final = names.SCHEDULING_GATES
ARGS_TYPE: Final = None

#: Prefix of the PreEnqueue reason; the gate names follow as ``[a b]`` (Go's ``%v`` of a slice).
WAITING_FOR_GATES: Final = "waiting for scheduling gates"


def gates_reason(gates: Sequence[str]) -> str:
    """The PreEnqueue reason for a pod carrying *gates*: ``waiting for scheduling gates: [a b]``."""
    return f"{WAITING_FOR_GATES}: [{' '.join(gates)}]"


@final
class SchedulingGates:
    """PreEnqueue plugin: a pod with scheduling gates stays gated
    (``UNSCHEDULABLE_AND_UNRESOLVABLE``) until an update removes all of them.

    .. versionadded:: 0.1.0
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """``"SchedulingGates"``."""
        return NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Reject a pod that still carries scheduling gates."""
        if not pod.scheduling_gates:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (gates_reason(pod.scheduling_gates),))

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A pod update that removed its last scheduling gate."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                self.is_schedulable_after_gates_eliminated,
            ),
        )

    def is_schedulable_after_gates_eliminated(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the updated pod is *pod* itself."""
        if own_update(pod, old_obj, new_obj) is None:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: object, handle: Handle) -> SchedulingGates:
    """Create the plugin (it takes no args)."""
    no_args(args)
    return SchedulingGates()


if TYPE_CHECKING:
    _pre_enqueue: PreEnqueuePlugin = SchedulingGates()
    _enqueue: EnqueueExtensions = SchedulingGates()
