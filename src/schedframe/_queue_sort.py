"""QueueSort extension point and ``QueuedPodInfo``."""

from __future__ import annotations

from typing import Protocol, final, runtime_checkable

import attrs

from ._api import Pod
from ._nodeinfo import PodInfo
from ._plugin import Plugin

__all__ = ["QueueSortPlugin", "QueuedPodInfo"]


@final
@attrs.define(eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue, with its queueing bookkeeping.

    Attributes:
        pod_info: the pod.
        timestamp: when it was last added to the queue (PrioritySort's tie-breaker).
        attempts: scheduling attempts so far.
        initial_attempt_timestamp: when it was first popped, or ``None``.
        unschedulable_plugins: plugins that rejected it in the last attempt.
        pending_plugins: plugins that returned PENDING in the last attempt.
        gated: True while a PreEnqueue plugin keeps it out of activeQ.
        consecutive_errors: attempts that ended in an ERROR (error backoff).
        unschedulable_count: attempts that ended unschedulable (the backoff exponent, reset
            never; ``consecutive_errors`` takes over while errors repeat).
        backoff_expiration: cached end of the current backoff (``None``: not computed yet).
    """

    __module__ = "schedframe"

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    gated: bool = False
    gating_plugin: str = ""
    consecutive_errors: int = 0
    unschedulable_count: int = 0
    backoff_expiration: float | None = None

    @property
    def pod(self) -> Pod:
        """The pod."""
        return self.pod_info.pod


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders the active queue: ``less(a, b)`` is True when *a* should be scheduled first.

    Exactly one QueueSort plugin is enabled per profile, and all profiles must use the same.
    """

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...
