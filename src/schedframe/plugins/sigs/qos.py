"""QOSSort: the queue ordered by priority, then QoS class
(kubernetes-sigs/scheduler-plugins ``pkg/qos``).

QueueSort: higher priority first; at equal priority Guaranteed before Burstable before
BestEffort; then the earlier queueing time. The QoS class is Kubernetes' (``GetPodQOS``): from
the CPU and memory requests and limits of the containers and init containers, or of the pod
when it sets pod-level resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, final

from ...api.objects import CPU, MEMORY, Pod
from ...api.quantity import Quantity
from ...errors import PluginArgsError
from ...framework.handle import Handle
from ...framework.interfaces import QueuedPodInfo

__all__ = ["BEST_EFFORT", "BURSTABLE", "GUARANTEED", "NAME", "QOSSort", "new", "pod_qos_class"]

NAME: Final = "QOSSort"
GUARANTEED: Final = "Guaranteed"
BURSTABLE: Final = "Burstable"
BEST_EFFORT: Final = "BestEffort"
_SUPPORTED: Final = (CPU, MEMORY)
_ORDER: Final = {BEST_EFFORT: 1, BURSTABLE: 2, GUARANTEED: 3}


def _sum(into: dict[str, int], values: Mapping[str, Quantity]) -> None:
    for name in _SUPPORTED:
        q = values.get(name)
        if q is not None and q.milli_value() != 0:
            into[name] = into.get(name, 0) + q.milli_value()


def pod_qos_class(pod: Pod) -> str:
    """The pod's QoS class: ``"Guaranteed"``, ``"Burstable"`` or ``"BestEffort"`` (Kubernetes
    ``ComputePodQOS``).

    .. versionadded:: 0.1.0
    """
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    if pod.resources or pod.resource_limits:  # pod-level resources decide
        _sum(requests, pod.resources)
        _sum(limits, pod.resource_limits)
        if len(limits) != len(_SUPPORTED):
            guaranteed = False
    else:
        for c in (*pod.containers, *pod.init_containers):
            _sum(requests, c.requests)
            own: dict[str, int] = {}
            _sum(own, c.limits)
            _sum(limits, c.limits)
            if len(own) != len(_SUPPORTED):
                guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and all(limits.get(name) == value for name, value in requests.items()) \
            and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


@final
class QOSSort:
    """The QOSSort plugin (QueueSort).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ()

    @property
    def name(self) -> str:
        """``"QOSSort"``."""
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Higher priority first, then the higher QoS class, then the earlier queueing time."""
        pa, pb = a.pod_info.pod, b.pod_info.pod
        p1, p2 = pa.priority or 0, pb.priority or 0
        if p1 != p2:
            return p1 > p2
        q1, q2 = _ORDER[pod_qos_class(pa)], _ORDER[pod_qos_class(pb)]
        if q1 != q2:
            return q1 > q2
        return a.timestamp < b.timestamp


def new(args: object, handle: Handle) -> QOSSort:
    """Factory: QOSSort takes no args."""
    if args is not None and not (isinstance(args, dict) and not args):
        raise PluginArgsError(f"QOSSort takes no args, got {type(args).__name__}")
    return QOSSort()


if TYPE_CHECKING:
    from ...framework.interfaces import QueueSortPlugin

    def _check(p: QOSSort) -> None:
        _a: QueueSortPlugin = p
