"""Binding and the API-server side effects of the scheduler.

kube-scheduler binds a pod by posting a ``pods/binding`` to the API server, deletes preemption
victims, and patches nominated node names; the informers then report those changes back. An
embedded scheduler has no API server: a :class:`~schedframe.framework.Binder` plays its part for bindings
(accept, or
raise to refuse), and :class:`SchedulerClient` routes the other side effects to the scheduler's
own event handlers, so they take the same paths as events from a cluster would.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from itertools import islice
from typing import TYPE_CHECKING, Final, Protocol, final, runtime_checkable

from ..api.objects import Pod
from ..errors import SchedulerError

if TYPE_CHECKING:
    from .handle import Client

__all__ = ["DEFAULT_MAX_BINDINGS", "Binder", "InMemoryBinder", "SchedulerClient"]

#: How many bindings an :class:`~schedframe.framework.InMemoryBinder` remembers by default.
DEFAULT_MAX_BINDINGS: Final = 10_000


@runtime_checkable
class Binder(Protocol):
    """Binds pods to nodes: the API server's ``pods/binding`` (e.g. a call to a real cluster, or
    a record in a simulator).

    ``bind`` returns normally when the binding is accepted -- the scheduler then treats the pod as
    bound, as if the API server had confirmed it (the assumed pod is confirmed in the cache and
    an ``AssignedPodAdd`` event is delivered). Raising refuses the binding: the Bind plugin fails
    with an ERROR status, the pod is unreserved, forgotten and retried after its error backoff.

    .. versionadded:: 0.1.0
    """

    def bind(self, pod: Pod, node_name: str) -> None: ...


@final
class InMemoryBinder:
    """The default :class:`~schedframe.framework.Binder`: accepts every binding and remembers the recent ones.

    Args:
        max_bindings: how many bindings to remember (``None``: all). When there are more, the
            oldest half is forgotten, so a scheduler running for days keeps a bounded record.

    Attributes:
        bindings: ``{pod key: node name}`` of the accepted bindings, oldest first (at most
            *max_bindings*).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.framework"

    def __init__(self, max_bindings: int | None = DEFAULT_MAX_BINDINGS) -> None:
        if max_bindings is not None and max_bindings < 1:
            raise SchedulerError(f"max_bindings must be >= 1 or None, got {max_bindings}")
        self.bindings: dict[str, str] = {}
        self.max_bindings = max_bindings
        self._lock = threading.Lock()

    def bind(self, pod: Pod, node_name: str) -> None:
        """Accept the binding of *pod* to *node_name*."""
        with self._lock:
            bindings = self.bindings
            bindings[pod.key] = node_name
            limit = self.max_bindings
            if limit is not None and len(bindings) > limit:
                for key in list(islice(bindings, len(bindings) - limit // 2)):
                    del bindings[key]

    def __repr__(self) -> str:
        return f"InMemoryBinder({len(self.bindings)} bindings)"


@final
class SchedulerClient:
    """The :class:`~schedframe.framework.Client` a scheduler hands its frameworks.

    Args:
        binder: performs bindings.
        delete_pod: called for :meth:`delete_pod` (the scheduler's ``remove_pod``).
        set_nominated_node_name: called for :meth:`set_nominated_node_name` (the scheduler
            updates the pod's ``nominated_node_name`` as the API server would).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"
    __slots__ = ("_binder", "_delete", "_nominate")

    def __init__(self, binder: Binder, delete_pod: Callable[[Pod], None],
                 set_nominated_node_name: Callable[[Pod, str], None]) -> None:
        self._binder = binder
        self._delete = delete_pod
        self._nominate = set_nominated_node_name

    @property
    def binder(self) -> Binder:
        """The binder bindings go to."""
        return self._binder

    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind *pod* to *node_name* through the binder (raises when refused)."""
        self._binder.bind(pod, node_name)

    def delete_pod(self, pod: Pod) -> None:
        """Delete *pod* (e.g. a preemption victim)."""
        self._delete(pod)

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Set ``status.nominatedNodeName`` of *pod* (``""`` clears it)."""
        self._nominate(pod, node_name)


if TYPE_CHECKING:
    _b: Binder = InMemoryBinder()
    _c: Client = SchedulerClient(InMemoryBinder(), lambda p: None, lambda p, n: None)
