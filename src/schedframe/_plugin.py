"""The base ``Plugin`` protocol, PreEnqueue, and EnqueueExtensions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ._api import Pod
from ._events import ClusterEventWithHint
from ._status import Status

__all__ = ["EnqueueExtensions", "Plugin", "PreEnqueuePlugin"]


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a ``name``, unique within a profile."""

    @property
    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Runs before a pod enters the active queue.

    Return success (``None``) to let the pod in; any other status keeps it out of the queue
    (gated) until an event moves it. Must be cheap: it runs on every enqueue attempt.
    """

    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    """Plugins that reject pods say which cluster events may make those pods schedulable.

    The queue moves a pod rejected by this plugin back to activeQ/backoffQ only on these
    events, and only when the event's hint function (if any) returns ``QUEUE``.
    """

    def events_to_register(self) -> Sequence[ClusterEventWithHint]: ...
