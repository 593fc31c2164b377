"""The framework's default collaborators: the in-memory event recorder, and the stand-ins for a
missing nominator, client and snapshot (a Framework built without them still runs)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Final, final

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..errors import SchedulerError
from .handle import NodeInfoLister

__all__ = ["DEFAULT_MAX_EVENTS", "InMemoryEventRecorder", "RecordedEvent"]

@final
@attrs.frozen
class RecordedEvent:
    """An event stored by :class:`~schedframe.framework.InMemoryEventRecorder`."""

    __module__ = "schedframe.framework"

    obj: Any
    event_type: str
    reason: str
    message: str


#: How many events an :class:`~schedframe.framework.InMemoryEventRecorder` keeps by default.
DEFAULT_MAX_EVENTS: Final = 10_000


@final
class InMemoryEventRecorder:
    """The default :class:`~schedframe.framework.EventRecorder`: keeps the recent events in ``events``.

    Args:
        max_events: how many events to keep (``None``: all). When there are more, the oldest
            half is dropped, so a scheduler running for days holds a bounded list (each event
            keeps its pod alive).
    """

    __module__ = "schedframe.framework"

    def __init__(self, max_events: int | None = DEFAULT_MAX_EVENTS) -> None:
        if max_events is not None and max_events < 1:
            raise SchedulerError(f"max_events must be >= 1 or None, got {max_events}")
        self.events: list[RecordedEvent] = []
        self.max_events = max_events
        self._lock = threading.Lock()

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
        """Store an event (dropping the oldest half when more than *max_events* are kept)."""
        with self._lock:
            events = self.events
            events.append(RecordedEvent(obj, event_type, reason, message))
            limit = self.max_events
            if limit is not None and len(events) > limit:
                del events[:len(events) - limit // 2]

    def clear(self) -> None:
        """Forget all stored events."""
        with self._lock:
            self.events.clear()


@final
class _NoNominator:
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return []


@final
class _NoClient:
    def _fail(self, what: str) -> None:
        raise SchedulerError(
            f"no client configured to {what}; pass client= to Framework (the Scheduler does this)"
        )

    def bind(self, pod: Pod, node_name: str) -> None:
        self._fail(f"bind pod {pod.key!r} to node {node_name!r}")

    def delete_pod(self, pod: Pod) -> None:
        self._fail(f"delete pod {pod.key!r}")

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        self._fail(f"nominate pod {pod.key!r} to node {node_name!r}")


@final
class _EmptyLister:
    def list(self) -> Sequence[NodeInfo]:
        return ()

    def get(self, node_name: str) -> NodeInfo | None:
        return None

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return ()

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return ()


@final
class _EmptySnapshot:
    _lister: Final = _EmptyLister()

    def node_infos(self) -> NodeInfoLister:
        return self._lister
