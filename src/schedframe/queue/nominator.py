"""Nominated pods per node (upstream ``backend/queue/nominator.go``).

Preemption nominates a node for the preemptor; until the victims are gone and the pod is bound,
filters evaluating that node for pods of lower or equal priority must account for the nominated
pod as if it were already running there. :class:`PodNominator` keeps that bookkeeping and
implements the :class:`~schedframe.framework.Nominator` protocol the framework reads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, final

from ..api.objects import Pod
from ..cache.nodeinfo import PodInfo
from ..framework.interfaces import NominatingInfo, NominatingMode

if TYPE_CHECKING:
    from ..framework.handle import Nominator

__all__ = ["PodNominator"]

#: ``lookup(pod) -> current pod or None``: the "pod lister" used to refuse nominating pods that
#: were deleted or already bound.
PodLookup = Callable[[Pod], "Pod | None"]


@final
class PodNominator:
    """Pods nominated to run on nodes, by node name; thread-safe.

    Args:
        pod_lookup: optional ``lookup(pod) -> Pod | None`` returning the live version of a pod;
            a pod that no longer exists, or is already bound, is not nominated (as upstream checks
            its pod lister).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"
    __slots__ = ("_by_node", "_in_flight", "_lock", "_lookup", "_node_of")

    def __init__(self, pod_lookup: PodLookup | None = None) -> None:
        self._lookup = pod_lookup
        #: node name -> its nominated pods, in nomination order: a tuple replaced (never changed)
        #: on every change, so an unchanged node hands out the very same object
        self._by_node: dict[str, tuple[PodInfo, ...]] = {}
        self._node_of: dict[str, str] = {}
        #: uid -> (the stub handed out, the pod's own PodInfo) of the pods in flight
        self._in_flight: dict[str, tuple[PodInfo, PodInfo]] = {}
        self._lock = threading.RLock()

    # -- queries ------------------------------------------------------------------------------
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to *node_name* (a copy of the list, in nomination order)."""
        return list(self._by_node.get(node_name, ()))

    def _nominated_tuple(self, node_name: str) -> tuple[PodInfo, ...]:
        """The pods nominated to *node_name*, as the tuple kept: the same object while the
        node's nominations do not change (memos compare it by identity)."""
        return self._by_node.get(node_name, ())

    def nominated_node_of(self, pod: Pod) -> str | None:
        """The node *pod* is nominated to here, or ``None``."""
        return self._node_of.get(pod.uid)

    def has_nominated_pods(self, node_name: str) -> bool:
        """True when some pod is nominated to *node_name* (a dict lookup, for hot loops)."""
        return node_name in self._by_node

    def __len__(self) -> int:
        return len(self._node_of)

    def __bool__(self) -> bool:
        return bool(self._node_of)

    # -- updates ------------------------------------------------------------------------------
    def add(self, pod_info: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        """Nominate the pod (upstream ``AddNominatedPod``).

        With *nominating_info* in OVERRIDE mode the pod is nominated to its
        ``nominated_node_name`` (an empty name removes the nomination); otherwise (``None`` or
        NOOP) to the node in the pod's own ``nominated_node_name``, if any.
        """
        with self._lock:
            self._add_unlocked(pod_info, nominating_info)

    def _add_unlocked(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        pod = pod_info.pod
        self._delete_unlocked(pod)
        if nominating_info is not None and nominating_info.mode == NominatingMode.OVERRIDE:
            node_name = nominating_info.nominated_node_name
        else:
            node_name = pod.nominated_node_name
        if not node_name:
            return
        if self._lookup is not None:
            live = self._lookup(pod)
            if live is None or live.node_name:
                return
        if self._in_flight and (flying := self._in_flight.get(pod.uid)) is not None:
            self._in_flight[pod.uid] = (flying[0], pod_info)
            pod_info = flying[0]
        self._node_of[pod.uid] = node_name
        self._by_node[node_name] = (*self._by_node.get(node_name, ()), pod_info)

    def update(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        """Replace *old_pod* by the new version (upstream ``UpdateNominatedPod``).

        When neither version carries a nominated node name but the pod is nominated here (the
        scheduler nominated it and the status update has not arrived yet), the nomination is kept.
        """
        with self._lock:
            info: NominatingInfo | None = None
            if not old_pod.nominated_node_name and not new_pod_info.pod.nominated_node_name:
                node = self._node_of.get(old_pod.uid)
                if node is not None:
                    info = NominatingInfo(node, NominatingMode.OVERRIDE)
            self._delete_unlocked(old_pod)
            self._add_unlocked(new_pod_info, info)

    def delete(self, pod: Pod) -> None:
        """Forget *pod*'s nomination, if any (upstream ``DeleteNominatedPodIfExists``)."""
        if pod.uid not in self._node_of:
            return
        with self._lock:
            self._delete_unlocked(pod)

    def _delete_unlocked(self, pod: Pod) -> None:
        node = self._node_of.pop(pod.uid, None)
        if node is None:
            return
        pods = self._by_node.get(node)
        if pods is None:  # pragma: no cover - maps kept in sync
            return
        uid = pod.uid
        rest = tuple(info for info in pods if info.pod.uid != uid)
        if rest:
            self._by_node[node] = rest
        else:
            del self._by_node[node]

    @contextmanager
    def in_flight(self, pods: Sequence[Pod], *, with_group: bool = False) -> Iterator[None]:
        """While the block runs, *pods* are out of the queue (popped together for a PodGroup
        cycle), and their nominations read as upstream reads the nomination of a pod in no
        queue: a bare pod of its name, namespace and uid (and, with *with_group*, its
        ``schedulingGroup``, as 1.37's nominator keeps it) -- no priority, no requests. So a
        fellow member's nomination does not hold room against a pod of positive priority, and
        preemption counts it among the lower-priority nominated pods (upstream
        ``nominatedPodToInfo``). Nominations added meanwhile are kept as such stubs too; on
        leaving, every nomination of these pods holds the pod's own PodInfo again."""
        with self._lock:
            for pod in pods:
                stub = PodInfo(Pod(name=pod.name, namespace=pod.namespace, uid=pod.uid,
                                   scheduling_group=pod.scheduling_group if with_group else None))
                node = self._node_of.get(pod.uid)
                own = (PodInfo.of(pod) if node is None
                       else next(i for i in self._by_node[node] if i.pod.uid == pod.uid))
                self._in_flight[pod.uid] = (stub, own)
                if node is not None:
                    self._swap(node, pod.uid, stub)
        try:
            yield
        finally:
            with self._lock:
                for pod in pods:
                    flying = self._in_flight.pop(pod.uid, None)
                    node = self._node_of.get(pod.uid)
                    if flying is not None and node is not None:
                        self._swap(node, pod.uid, flying[1])

    def _swap(self, node: str, uid: str, info: PodInfo) -> None:
        """Replace the PodInfo of pod *uid* among *node*'s nominations by *info*."""
        self._by_node[node] = tuple(info if i.pod.uid == uid else i for i in self._by_node[node])

    def __repr__(self) -> str:
        return f"PodNominator({ {n: [p.pod.key for p in ps] for n, ps in self._by_node.items()} !r})"


if TYPE_CHECKING:
    _check: Nominator = PodNominator()
