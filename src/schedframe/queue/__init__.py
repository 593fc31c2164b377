"""The scheduling queue: activeQ ordered by the QueueSort plugin, backoffQ, the
unschedulable pods moved by cluster events through queueing hints, PreEnqueue gating, and the
nominator for pods nominated by preemption.

May import :mod:`schedframe.framework` and the layers below it (not config or plugins).
"""

from __future__ import annotations

from .nominator import (
    PodNominator,
)
from .scheduling_queue import (
    BACKOFF_COMPLETE,
    DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
    DEFAULT_POD_MAX_BACKOFF_SECONDS,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_ASSIGNED_POD_UPDATE,
    EVENT_FORCE_ACTIVATE,
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_UPDATE,
    FORCE_ACTIVATE,
    POP_FROM_BACKOFF_Q,
    SCHEDULE_ATTEMPT_FAILURE,
    UNSCHEDULABLE_TIMEOUT,
    QueueProfile,
    SchedulingQueue,
    cluster_event,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)

__all__ = [
    "BACKOFF_COMPLETE",
    "DEFAULT_POD_INITIAL_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_NODE_ADD",
    "EVENT_NODE_DELETE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "FORCE_ACTIVATE",
    "POP_FROM_BACKOFF_Q",
    "PodNominator",
    "QueueProfile",
    "SCHEDULE_ATTEMPT_FAILURE",
    "SchedulingQueue",
    "UNSCHEDULABLE_TIMEOUT",
    "cluster_event",
    "node_scheduling_properties_change",
    "pod_scheduling_properties_change",
]
