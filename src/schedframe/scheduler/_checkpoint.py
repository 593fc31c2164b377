"""Checkpoints of a Scheduler at rest: open one, change anything through the event handlers or
scheduling cycles, then revert to exactly the state it was opened in, or commit (keep).

The NodeInfos and the object store are journaled (:meth:`Cache.begin
<schedframe.cache.Cache.begin>`, :meth:`ObjectStore.begin <schedframe.cache.ObjectStore.begin>`):
what a revert restores costs what changed, not the size of the cluster. The Scheduler's own
indexes of pods and nodes are copied when a checkpoint opens (C-level dict copies, about 20 ns
a pod); the RNG, the clock, the event log and the plugins implementing
:class:`~schedframe.framework.StatefulPlugin` are saved and put back with them.

A checkpoint opens only *at rest*: nothing pending in the queue, waiting at Permit, nominated
or assumed (a :class:`~schedframe.ClusterSnapshot` always leaves its scheduler so), since the
queue's and Permit's state is not journaled.
"""

from __future__ import annotations

from typing import Any, final

from ..errors import SchedulerError
from ..framework.binder import InMemoryBinder
from ..framework.clock import FakeClock
from ..framework.interfaces import StatefulPlugin
from ._state import SchedulerBase

__all__ = ["CheckpointMixin"]


@final
class _Saved:
    __slots__ = ("bindings", "by_namespace", "clock", "counts", "events", "failures", "keys", "last_pod",
                 "next_start", "nodes", "plugins", "pods", "rng", "terminal", "unbound")

    pods: dict[str, Any]
    terminal: dict[str, Any]
    keys: dict[str, str]
    by_namespace: dict[str, dict[str, None]]
    nodes: dict[str, Any]
    unbound: dict[str, None]
    failures: dict[str, Any]
    counts: dict[str, int]
    next_start: int
    last_pod: str
    rng: object
    clock: float | None
    events: list[Any]
    bindings: dict[str, str] | None
    plugins: list[tuple[StatefulPlugin, object]]


class CheckpointMixin(SchedulerBase):
    """Scheduler checkpoints (internal: :class:`~schedframe.ClusterSnapshot` is the public face)."""

    _checkpoints: list[_Saved]

    def _at_rest_problem(self) -> str:
        """Why the scheduler is not at rest ("" when it is)."""
        if self.threaded:
            return "the scheduler is threaded"
        if len(self.queue):
            return f"{len(self.queue)} pod(s) are in the scheduling queue"
        if self._parked or len(self.waiting_pods):
            return "pods are waiting at Permit"
        if len(self.nominator):
            return "pods are nominated to nodes"
        if self._unbound:
            return f"{len(self._unbound)} pod(s) are not bound"
        return ""

    def _begin_checkpoint(self) -> None:
        """Open a checkpoint (nestable)."""
        with self._lock:
            problem = self._at_rest_problem()
            if problem:
                raise SchedulerError(f"a checkpoint needs a scheduler at rest, but {problem}")
            s = _Saved()
            s.pods = dict(self._pods)
            s.terminal = dict(self._terminal)
            s.keys = dict(self._keys)
            s.by_namespace = {ns: dict(uids) for ns, uids in self._by_namespace.items()}
            s.nodes = dict(self._nodes)
            s.unbound = dict(self._unbound)
            s.failures = dict(self._failures)
            s.counts = dict(self._counts)
            s.next_start = self._next_start_node_index
            s.last_pod = self._last_cycle_pod
            s.rng = self._rng.getstate()
            s.clock = self.clock.now() if isinstance(self.clock, FakeClock) else None
            s.events = list(self.recorder.events)
            binder = self.binder
            s.bindings = dict(binder.bindings) if isinstance(binder, InMemoryBinder) else None
            seen: set[int] = set()
            s.plugins = []
            for fwk in self.frameworks.values():
                for plugin in fwk.stateful_plugins():
                    if id(plugin) not in seen:
                        seen.add(id(plugin))
                        s.plugins.append((plugin, plugin.checkpoint()))
            self.cache.begin()
            self.objects.begin()
            self._checkpoints.append(s)

    def _commit_checkpoint(self) -> None:
        """Close the innermost checkpoint, keeping what changed."""
        with self._lock:
            self._pop_checkpoint("commit")
            self.cache.commit()
            self.objects.commit()

    def _revert_checkpoint(self) -> None:
        """Close the innermost checkpoint, putting everything back."""
        with self._lock:
            problem = self._at_rest_problem()
            if problem:
                raise SchedulerError(f"a checkpoint reverts only a scheduler at rest, but {problem}")
            s = self._pop_checkpoint("revert")
            self.cache.revert()
            self.objects.revert()
            self._pods = s.pods
            self._terminal = s.terminal
            self._keys = s.keys
            self._by_namespace = s.by_namespace
            self._nodes = s.nodes
            self._unbound = s.unbound
            self._failures = s.failures
            self._counts = s.counts
            self._next_start_node_index = s.next_start
            self._last_cycle_pod = s.last_pod
            self._rng.setstate(s.rng)  # type: ignore[arg-type]
            if s.clock is not None:
                self.clock._rewind(s.clock)  # type: ignore[attr-defined]
            self.recorder.events[:] = s.events
            if s.bindings is not None and isinstance(self.binder, InMemoryBinder):
                self.binder.bindings.clear()
                self.binder.bindings.update(s.bindings)
            for plugin, state in s.plugins:
                plugin.restore(state)
            self._nominated_outcomes.clear()
            self.cache.update_snapshot(self._snapshot)

    def _pop_checkpoint(self, what: str) -> _Saved:
        if not self._checkpoints:
            raise SchedulerError(f"no checkpoint is open to {what}")
        return self._checkpoints.pop()
