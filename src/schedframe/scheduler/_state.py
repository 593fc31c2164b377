"""What the parts of :class:`~schedframe.Scheduler` share: the attributes ``Scheduler.__init__``
sets, declared for the type checker, the methods one part calls on another, the in-flight
binding record and the observer-hook call.

The parts (``_eventhandlers``, ``_schedule_one``, ``_extenders``) are mixins on
:class:`SchedulerBase`; ``scheduler.py`` composes them into ``Scheduler``. They import this
module and the layers below, never each other or ``scheduler.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..api.objects import Node, Pod
from ..framework.cycle_state import CycleState
from ..framework.interfaces import QueuedPodInfo
from ..framework.runtime import Framework

if TYPE_CHECKING:
    import concurrent.futures
    import random

    from ..cache.cache import Cache
    from ..cache.nodeinfo import NodeInfo
    from ..cache.snapshot import Snapshot
    from ..cache.store import ObjectStore
    from ..config.configuration import SchedulerConfiguration
    from ..framework._tracing import Tracing
    from ..framework.binder import Binder
    from ..framework.clock import Clock
    from ..framework.diagnosis import Diagnosis
    from ..framework.extender import Extender
    from ..framework.runtime import InMemoryEventRecorder
    from ..framework.status import Status
    from ..framework.victims_memo import NodeOutcomes
    from ..framework.waiting_pods import WaitingPods
    from ..queue.nominator import PodNominator
    from ..queue.scheduling_queue import SchedulingQueue
    from ._placements import Placement

__all__ = ["FilterPhase", "SchedulerBase"]

logger = logging.getLogger("schedframe")


@attrs.define(slots=True)
class _Binding:
    fwk: Framework
    state: CycleState
    pinfo: QueuedPodInfo
    host: str
    start: float
    original: Pod
    #: the binding was confirmed (nothing to undo any more)
    bound: bool = False
    #: the failure path (Unreserve, forget, requeue) ran
    undone: bool = False
    #: the binding cycle's OpenTelemetry span (tracing on), ended when the cycle has run
    span: Any = None


@attrs.frozen
class FilterPhase:
    """The end of a scheduling cycle's filtering (internal; the oracle harness reads it).

    Attributes:
        pod: the pod being scheduled.
        framework: its profile's framework.
        snapshot: the snapshot the cycle reads.
        start_index: the round-robin start before the cycle.
        next_start_index: the round-robin start after it.
        feasible: the feasible nodes found (the nodes to score), in visiting order.
        diagnosis: the rejections recorded.
        state: the cycle's :class:`~schedframe.CycleState` after filtering (read it, or score
            on a ``clone()``: the cycle goes on with it).
    """

    pod: Pod
    framework: Framework
    snapshot: Snapshot
    start_index: int
    next_start_index: int
    feasible: tuple[str, ...]
    diagnosis: Diagnosis
    state: CycleState | None = None


class SchedulerBase:
    """The base of the Scheduler's parts (internal)."""

    if TYPE_CHECKING:
        # set by Scheduler.__init__
        config: SchedulerConfiguration
        clock: Clock
        threaded: bool
        verify_snapshots: bool
        objects: ObjectStore
        cache: Cache
        queue: SchedulingQueue
        nominator: PodNominator
        waiting_pods: WaitingPods
        recorder: InMemoryEventRecorder
        binder: Binder
        frameworks: dict[str, Framework]
        extenders: tuple[Extender, ...]
        on_pop: Callable[[QueuedPodInfo], None] | None
        _on_filtered: Callable[[FilterPhase], None] | None
        _lock: threading.RLock
        _pm: Any
        _rng: random.Random
        _tie_break: Callable[[str], Any] | None
        #: the placement a PodGroup cycle is trying (TopologyAwareWorkloadScheduling), or None
        _placement: Placement | None
        _placements_on: bool
        #: CompositePodGroup (1.37): a PodGroup with a parent is scheduled with its whole tree
        _composites_on: bool
        _placement_order: Callable[[list[Placement]], list[Placement]] | None
        _placement_tie_break: Callable[[Placement], Any] | None
        _pod_deleter: Callable[[Pod], None] | None
        _snapshot: Snapshot
        _pods: dict[str, Pod]
        _terminal: dict[str, Pod]
        _keys: dict[str, str]
        _by_namespace: dict[str, dict[str, None]]
        _nodes: dict[str, Node]
        _unbound: dict[str, None]
        _failures: dict[str, tuple[str, frozenset[str]]]
        _parked: dict[str, _Binding]
        _pod_group_cycles: bool
        _next_start_node_index: int
        _current: tuple[Pod, str] | None
        _last_cycle_pod: str
        _counts: dict[str, int]
        _nominated_outcomes: NodeOutcomes
        _tracing: Tracing | None
        _executor: concurrent.futures.ThreadPoolExecutor | None
        _futures: set[concurrent.futures.Future[None]]
        _closed: bool
        #: the victims deleted while a 1.36 PodGroup cycle runs (EventHandlersMixin), or None
        _deferred_deletes: list[tuple[Pod, tuple[Pod, str] | None]] | None

        # one part calling another
        def _resume_parked(self) -> bool: ...
        def _flush_deferred_deletes(self) -> None: ...
        def _apply_pod_update(self, old: Pod, new: Pod) -> None: ...
        def _responsible(self, pod: Pod) -> bool: ...
        @property
        def _extenders_filter_or_score(self) -> bool: ...
        def _find_nodes_that_pass_extenders(self, pod: Pod, feasible: list[NodeInfo],
                                            diagnosis: Diagnosis
                                            ) -> tuple[list[NodeInfo], Status | None]: ...
        def _add_extender_scores(self, pod: Pod, nodes: Sequence[NodeInfo], totals: list[int]
                                 ) -> list[int]: ...
        def _extenders_binding(self, pod: Pod, host: str) -> Status | None: ...

    def _hook(self, name: str, **kwargs: Any) -> None:
        """Call the observer hook *name* of the plugin manager, if any; a raising observer is
        logged, never let through."""
        pm = self._pm
        if pm is None:
            return
        hook = getattr(pm.hook, name, None)
        if hook is None:
            return
        try:
            hook(**kwargs)
        except Exception as exc:
            logger.warning("observer hook %s raised: %s", name, exc, exc_info=exc)
