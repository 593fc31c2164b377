"""PrioritySort: orders the scheduling queue by pod priority, then by queueing time.

Upstream: ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

from ..framework.interfaces import QueuedPodInfo
from . import names
from ._helpers import no_args

if TYPE_CHECKING:
    from ..framework.handle import Handle
    from ..framework.interfaces import QueueSortPlugin

__all__ = ["ARGS_TYPE", "NAME", "PrioritySort", "new"]

NAME: Final = names.PRIORITY_SORT
ARGS_TYPE: Final = None


@final
class PrioritySort:
    """QueueSort plugin: higher ``spec.priority`` first; equal priorities in the order the pods
    entered the queue (earlier timestamp first).

    .. versionadded:: 0.1.0
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """``"PrioritySort"``."""
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """True when *a* should be scheduled before *b*."""
        pa = a.pod_info.pod.priority or 0
        pb = b.pod_info.pod.priority or 0
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


def new(args: object, handle: Handle) -> PrioritySort:
    """Create the plugin (it takes no args)."""
    no_args(args)
    return PrioritySort()


if TYPE_CHECKING:
    _queue_sort: QueueSortPlugin = PrioritySort()
