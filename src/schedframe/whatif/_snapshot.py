"""``ClusterSnapshot``: what-if questions on a cluster held in memory, answered by the real
scheduling and binding cycles, in forks that revert at the cost of what changed."""

from __future__ import annotations

import os
import random
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, final

from ..api.objects import Node, Pod, PodDisruptionBudget
from ..errors import ArgumentTypeError, SchedulerError, SnapshotError
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import FitError
from ..framework.interfaces import StatefulPlugin
from ..framework.status import Code
from ..scheduler._eventhandlers import _as_object
from ..scheduler._schedule_one import _CycleError
from ..scheduler.explain import Explanation, _Attempt, explain_with
from ..scheduler.scheduler import Scheduler
from . import _drain_rules as rules
from ._results import DrainResult, FillResult, NodeCheck, Placement, Preemption, ScheduleResult, Verdict

__all__ = ["ClusterSnapshot", "Fork"]

_UIDS = uuid.UUID("0c5e2f5a-8a0e-4f4e-b1b6-3f6d4f1a7c21")


@final
class Fork:
    """An open fork of a :class:`~schedframe.ClusterSnapshot` (from
    :meth:`ClusterSnapshot.fork <schedframe.ClusterSnapshot.fork>`).

    A context manager: leaving the ``with`` block reverts the snapshot to the state it had when
    the fork opened, unless :meth:`commit` was called (then the changes stay, and an enclosing
    fork can still revert them). Forks nest to any depth and close innermost first.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.whatif"
    __slots__ = ("_depth", "_open", "_saved", "_snap")

    def __init__(self, snap: ClusterSnapshot, depth: int, saved: tuple[Any, ...]) -> None:
        self._snap = snap
        self._depth = depth
        self._saved = saved
        self._open = True

    @property
    def depth(self) -> int:
        """1 for a fork of the snapshot itself, 2 for a fork inside it, ..."""
        return self._depth

    @property
    def open(self) -> bool:
        """Whether the fork is still open."""
        return self._open

    def commit(self) -> None:
        """Keep the fork's changes and close it."""
        self._snap._close(self, keep=True)

    def revert(self) -> None:
        """Undo the fork's changes and close it (what leaving the ``with`` block does)."""
        self._snap._close(self, keep=False)

    def __enter__(self) -> Fork:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._open:
            self.revert()

    def __repr__(self) -> str:
        state = "open" if self._open else "closed"
        return f"Fork(depth={self._depth}, {state})"


@final
class ClusterSnapshot:
    """A cluster in memory for what-if questions, answered by kube-scheduler's own cycles.

    Args:
        nodes: the nodes (api objects or manifests).
        pods: the pods. Bound pods (``spec.nodeName`` set) run on their nodes; pending pods are
            not scheduled but kept in ``pending`` (hand them to :meth:`schedule`); finished
            pods (Succeeded, Failed) hold nothing.
        objects: the other cluster objects (Namespaces, PVCs, PDBs, ResourceClaims, PodGroups...).
        config: the scheduler configuration (as :class:`~schedframe.Scheduler` takes it).
        kubernetes_version: the release to emulate; default the newest.
        feature_gates: kube-scheduler's ``--feature-gates``.
        registry: the plugins (default: the in-tree registry and installed entry points).
        seed: seeds the tie-break between equally scored nodes.
        tie_break: as :class:`~schedframe.Scheduler`'s (a fixed node order).

    The snapshot holds a :class:`~schedframe.Scheduler` in deterministic mode, always *at
    rest* between calls: nothing pending, waiting or nominated. Every question runs its real
    cycles: PreEnqueue to PostBind, gangs and PodGroups, preemption, volume binding, DRA
    claims (allocated in the snapshot, seen by later pods).

    :meth:`fork` opens a nestable checkpoint; leaving it reverts, :meth:`Fork.commit
    <schedframe.whatif.Fork.commit>` keeps.
    Reverting costs what changed: NodeInfos and objects are journaled as they change; the pod
    indexes are copied when a fork opens (a C-level dict copy, about 20 ns per pod).

    No caller's object is ever changed (api objects are frozen; manifests are read).
    Thread-safety: one writer at a time; reading methods (:meth:`can_schedule`, :meth:`check`,
    :meth:`nodes`...) may run from other threads between writes.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, *, nodes: Iterable[Node | Mapping[str, Any]] = (),
                 pods: Iterable[Pod | Mapping[str, Any]] = (), objects: Iterable[Any] = (),
                 config: Any = None, kubernetes_version: Any = None, feature_gates: Any = None,
                 registry: Any = None, seed: int = 0, tie_break: Any = None) -> None:
        for what, value in (("nodes", nodes), ("pods", pods), ("objects", objects)):
            if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
                raise ArgumentTypeError(f"ClusterSnapshot: {what} must be an iterable of api objects "
                                        f"or manifests, got {type(value).__name__}")
        others: list[Any] = []
        node_list: list[Node] = []
        bound: list[Pod] = []
        pending: list[Pod] = []
        for where, group in (("objects", objects), ("nodes", nodes), ("pods", pods)):
            for i, raw in enumerate(group):
                obj = _as_object(raw, f"ClusterSnapshot: {where}[{i}]")
                if isinstance(obj, Node):
                    node_list.append(obj)
                elif isinstance(obj, Pod):
                    (bound if obj.node_name or obj.is_terminal else pending).append(obj)
                else:
                    others.append(obj)
        self._lock = threading.RLock()
        self._evicted: list[Pod] | None = None
        self._sched = Scheduler(config, seed=seed, registry=registry, kubernetes_version=kubernetes_version,
                                feature_gates=feature_gates, tie_break=tie_break,
                                objects=[*others, *node_list, *bound], pod_deleter=self._evict)
        #: the pending pods given, not scheduled (hand them to :meth:`schedule`)
        self.pending: tuple[Pod, ...] = tuple(pending)
        self._forks: list[Fork] = []
        self._version = 0
        # PodDisruptionBudget key -> disruptions its spec allows (recomputed after changes), and
        # the disruptions drains of this snapshot used
        self._allowed: dict[str, int] | None = None
        self._disrupted: dict[str, int] = {}
        self._undone: set[int] = set()

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def from_manifests(cls, *sources: str | bytes | os.PathLike[str], config: Any = None,
                       kubernetes_version: Any = None, **options: Any) -> ClusterSnapshot:
        """A snapshot of the objects in manifest files, directories or text (as
        :func:`~schedframe.load_manifests` reads them, for *kubernetes_version*); *options* are
        the other keyword arguments of :class:`ClusterSnapshot`. A path (``str`` or
        ``PathLike``) that names a file or directory is read; other text is parsed."""
        from ..api.manifests import load_manifests

        objs: list[Any] = []
        for src in sources:
            if isinstance(src, str) and os.path.exists(src):
                src = os.fspath(src)
                from pathlib import Path

                objs.extend(load_manifests(Path(src), kubernetes_version=_version_text(kubernetes_version)))
            else:
                objs.extend(load_manifests(src, kubernetes_version=_version_text(kubernetes_version)))
        return cls(objects=objs, config=config, kubernetes_version=kubernetes_version, **options)

    @classmethod
    def from_scheduler(cls, scheduler: Scheduler, **options: Any) -> ClusterSnapshot:
        """A snapshot of a running :class:`~schedframe.Scheduler`'s cluster: its nodes, bound
        pods and objects, with its configuration and plugins (a copy: the scheduler is not
        changed). Its pending pods become ``pending``."""
        if not isinstance(scheduler, Scheduler):
            raise ArgumentTypeError(f"ClusterSnapshot.from_scheduler: expected a Scheduler, got "
                                    f"{type(scheduler).__name__}")
        with scheduler._lock:
            pods = [p for p in scheduler.pods() if not p.is_terminal]
            objects = scheduler.objects.all()
            nodes = scheduler.nodes()
        options.setdefault("registry", scheduler.registry)
        return cls(nodes=nodes, pods=pods, objects=objects, config=scheduler.config, **options)

    # -- reading -------------------------------------------------------------------------------------
    @property
    def scheduler(self) -> Scheduler:
        """The scheduler inside, to read (its events, metrics, explain); driving it directly
        bypasses the forks' bookkeeping."""
        return self._sched

    @property
    def version(self) -> int:
        """Increases with every change (and every revert)."""
        return self._version

    @property
    def depth(self) -> int:
        """How many forks are open."""
        return len(self._forks)

    def nodes(self) -> list[Node]:
        """The nodes, in the scheduler's (zone-interleaved) order."""
        return self._sched.nodes()

    def pods(self) -> list[Pod]:
        """The running (bound, not finished) pods."""
        return [p for p in self._sched.pods() if p.node_name and not p.is_terminal]

    def pods_on(self, node: Node | str) -> list[Pod]:
        """The pods running on *node*."""
        name = _node_name(node, "ClusterSnapshot.pods_on")
        info = self._sched.cache.node_info(name)
        if info is None or info.node is None:
            raise SnapshotError(f"ClusterSnapshot.pods_on: no node {name!r} in the snapshot")
        return [pi.pod for pi in info.pods]

    def get_pod(self, pod: Pod | str) -> Pod | None:
        """The pod (by Pod, ``namespace/name`` key or uid), or ``None``."""
        return self._sched.get_pod(pod)

    def node_of(self, pod: Pod | str) -> str | None:
        """The node the pod runs on, or ``None``."""
        return self._sched.node_of(pod)

    def utilisation(self, node: Node | str) -> float:
        """Cluster Autoscaler's utilisation of *node*: the largest of its CPU, memory (and GPU)
        requests over allocatable."""
        name = _node_name(node, "ClusterSnapshot.utilisation")
        info = self._sched.cache.node_info(name)
        if info is None or info.node is None:
            raise SnapshotError(f"ClusterSnapshot.utilisation: no node {name!r} in the snapshot")
        return rules.node_utilisation(info.node, [pi.pod for pi in info.pods])

    # -- forks -----------------------------------------------------------------------------------------
    def fork(self) -> Fork:
        """Open a fork (a nestable checkpoint), to use as a context manager: leaving the
        ``with`` block reverts what happened inside, unless :meth:`Fork.commit
        <schedframe.whatif.Fork.commit>` was called (see :doc:`/whatif`)."""
        with self._lock:
            self._sched._begin_checkpoint()
            saved = (self.pending, dict(self._disrupted), set(self._undone))
            f = Fork(self, len(self._forks) + 1, saved)
            self._forks.append(f)
            return f

    def _close(self, f: Fork, *, keep: bool) -> None:
        with self._lock:
            if not f._open:
                raise SnapshotError(f"this fork (depth {f.depth}) is already closed")
            if not self._forks or self._forks[-1] is not f:
                raise SnapshotError(f"fork of depth {f.depth} closed while the fork of depth "
                                    f"{self._forks[-1].depth} inside it is open; close forks "
                                    "innermost first")
            self._forks.pop()
            f._open = False
            if keep:
                self._sched._commit_checkpoint()
                return
            self._sched._revert_checkpoint()
            self.pending, self._disrupted, self._undone = f._saved
            self._allowed = None
            self._version += 1

    # -- questions that change nothing --------------------------------------------------------------
    def can_schedule(self, pod: Pod | Mapping[str, Any]) -> Verdict:
        """The node the scheduling cycle would select for *pod*, or why there is none, without
        changing anything. Runs PreEnqueue, PreFilter, Filter (on as many nodes as
        ``percentageOfNodesToScore`` says), PreScore, Score and the tie-break, exactly as a
        cycle does; neither Reserve nor Permit nor PostFilter (preemption: see :meth:`preempt`);
        a gang or PodGroup member is asked about alone. ``Verdict.explanation`` explains the
        attempt in full when read."""
        p = self._new_pod(pod, "ClusterSnapshot.can_schedule")
        sched = self._sched
        fwk = self._framework(p, "can_schedule")
        with sched._lock:
            saved = _plugin_states(sched)
            start, rng = sched._next_start_node_index, sched._rng.getstate()
            node: str | None = None
            message = ""
            try:
                gate = fwk.run_pre_enqueue_plugins(p)
                if gate.code is not Code.SUCCESS:
                    message = gate.message
                else:
                    node = sched._schedule_pod(fwk, CycleState(), p)
            except FitError as fit:
                message = fit.message
            except _CycleError as err:
                message = err.status.message
            finally:
                sched._next_start_node_index = start
                tie = random.Random()
                tie.setstate(rng)
                sched._rng.setstate(rng)
                _restore_plugins(saved)
        version = self._version

        def explain() -> Explanation:
            if self._version != version:
                raise SnapshotError("the snapshot changed since can_schedule() was asked; ask again")
            with sched._lock:
                sched.cache.update_snapshot(sched._snapshot)
                states = _plugin_states(sched)
                try:
                    return explain_with(fwk, sched._snapshot, p, rng=tie)
                finally:
                    _restore_plugins(states)

        return Verdict(p, node, message, explain=explain)

    def check(self, pod: Pod | Mapping[str, Any], node: Node | str) -> NodeCheck:
        """Whether *pod* passes PreFilter and every Filter plugin on *node* (as a scheduling
        cycle runs them there), without changing anything."""
        p = self._new_pod(pod, "ClusterSnapshot.check")
        name = _node_name(node, "ClusterSnapshot.check")
        sched = self._sched
        fwk = self._framework(p, "check")
        with sched._lock:
            sched.cache.update_snapshot(sched._snapshot)
            snapshot = sched._snapshot
            info = snapshot.get(name)
            if info is None:
                raise SnapshotError(f"ClusterSnapshot.check: no node {name!r} in the snapshot")
            states = _plugin_states(sched)
            previous = fwk.snapshot_shared_lister()
            fwk.set_snapshot(snapshot)
            try:
                gate = fwk.run_pre_enqueue_plugins(p)
                if gate.code is not Code.SUCCESS:
                    return NodeCheck(p, name, False, gate.message, gate.plugin)
                attempt = _Attempt(fwk, snapshot, p, CycleState(), random.Random(0), 0)
                result, status, _ = attempt.pre_filter()
                if status.code is not Code.SUCCESS:
                    return NodeCheck(p, name, False, status.message, status.plugin)
                if result is not None and result.node_names is not None and name not in result.node_names:
                    return NodeCheck(p, name, False, "node(s) didn't satisfy plugin(s) PreFilter's "
                                     "result", status.plugin)
                verdict, fstatus = attempt.filter_node(info)
            finally:
                fwk.set_snapshot(previous)
                _restore_plugins(states)
        if fstatus.code is Code.SUCCESS:
            return NodeCheck(p, name, True, verdict=verdict)
        return NodeCheck(p, name, False, fstatus.message, fstatus.plugin, verdict)

    # -- questions that change the snapshot -----------------------------------------------------------
    def schedule(self, pods: Iterable[Pod | Mapping[str, Any]], *, dry_run: bool = False) -> ScheduleResult:
        """Schedule *pods* (pending pods, or manifests) as kube-scheduler would: all added at
        once, then scheduling and binding cycles in queue order until nothing more can happen
        (backoffs and Permit timeouts run out on the snapshot's clock). Placed pods stay bound;
        pods that found no node are taken out again (they never linger pending). Preemption
        evicts its victims from the snapshot (``ScheduleResult.victims``).

        With *dry_run*, the snapshot is left as it was (a fork, reverted)."""
        if isinstance(pods, (str, bytes, Mapping, Pod)) or not isinstance(pods, Iterable):
            raise ArgumentTypeError(f"ClusterSnapshot.schedule: pods must be an iterable of pods or "
                                    f"manifests, got {type(pods).__name__}")
        given = [self._new_pod(p, f"ClusterSnapshot.schedule: pods[{i}]") for i, p in enumerate(pods)]
        _unique(given, "ClusterSnapshot.schedule")
        if dry_run:
            with self.fork():
                r = self._run(given)
            return ScheduleResult(r.placements, r.victims, dry_run=True)
        return self._run(given)

    def fill(self, template: Pod | Mapping[str, Any], *, max_pods: int = 1000) -> FillResult:
        """How many copies of *template* fit, and where: copies (named ``<name>-fill-<i>``)
        are scheduled one after another, each by a real cycle, until one does not fit or
        *max_pods* are placed. The copies stay in the snapshot (fork to ask without keeping)."""
        if not isinstance(max_pods, int) or isinstance(max_pods, bool) or max_pods < 0:
            raise ArgumentTypeError(f"ClusterSnapshot.fill: max_pods must be an int >= 0, got {max_pods!r}")
        t = self._new_pod(template, "ClusterSnapshot.fill: template")
        placed: list[Pod] = []
        victims: list[Pod] = []
        stopped = ""
        with self._lock:
            i = 0
            while len(placed) < max_pods:
                name = f"{t.name}-fill-{i}"
                i += 1
                if self._sched.get_pod(f"{t.namespace}/{name}") is not None:
                    continue
                copy = t.evolve(name=name, uid=str(uuid.uuid5(_UIDS, f"{t.namespace}/{name}")))
                r = self._run([copy])
                victims.extend(r.victims)
                p = r.placements[0]
                if p.node is None:
                    stopped = p.message or "the copy found no node"
                    break
                placed.append(p.pod)
        return FillResult(t, tuple(placed), stopped, tuple(victims))

    def drain(self, nodes: Iterable[Node | str] | Node | str, *, respect_pdbs: bool = True,
              blocking_rules: bool = True) -> DrainResult:
        """Take *nodes* and their pods out, and schedule the pods that must move together on
        the nodes that stay. DaemonSet and mirror pods go with their node; finished pods hold
        nothing. With *blocking_rules*, Cluster Autoscaler's ``BlockingPodReason`` rules apply
        (a pod not owned by a controller, annotated not safe to evict, with local storage, or in
        kube-system without a PDB blocks); with *respect_pdbs*, the evictions must fit what the
        PodDisruptionBudgets allow (counting earlier drains of this snapshot).

        When every pod found a node the drain stays (the nodes are gone); otherwise the
        snapshot is left unchanged and ``DrainResult.ok`` is False with the reasons."""
        if isinstance(nodes, (Node, str)):
            nodes = [nodes]
        names = tuple(_node_name(n, "ClusterSnapshot.drain") for n in nodes)
        with self._lock:
            sched = self._sched
            here: list[Pod] = []
            for name in names:
                info = sched.cache.node_info(name)
                if info is None or info.node is None:
                    raise SnapshotError(f"ClusterSnapshot.drain: no node {name!r} in the snapshot")
                here.extend(pi.pod for pi in info.pods)
            movers = [p for p in here if not rules.goes_with_node(p)]
            stay = tuple(p for p in here if rules.goes_with_node(p))
            pdbs = sched.objects.list(PodDisruptionBudget)
            blocked: dict[str, str] = {}
            if blocking_rules:
                for p in movers:
                    why = rules.drain_blocker(p, pdbs)
                    if why:
                        blocked[p.key] = why
            need: dict[str, int] = {}
            if respect_pdbs and pdbs and not blocked:
                allowed = self._allowances(pdbs)
                for p in movers:
                    for key in rules.pdb_keys(p, pdbs):
                        need[key] = need.get(key, 0) + 1
                for key, n in need.items():
                    if n > allowed.get(key, 0):
                        who = next(p.key for p in movers if key in rules.pdb_keys(p, pdbs))
                        blocked[who] = (f"{rules.NOT_ENOUGH_PDB}: PodDisruptionBudget {key} allows "
                                        f"{allowed.get(key, 0)} disruption(s), {n} needed")
                        break
            if blocked:
                return DrainResult(names, False, blocked=blocked, evicted=tuple(movers), removed=stay)
            with self.fork() as f:
                for p in here:
                    sched.remove_pod(p)
                for name in names:
                    sched.remove_node(name)
                fresh = [p.evolve(node_name="", nominated_node_name="") for p in movers]
                r = self._run(fresh)
                if r.all_placed and not r.victims:
                    f.commit()
                    for key, n in need.items():
                        self._disrupted[key] = self._disrupted.get(key, 0) + n
                    self._version += 1
                    return DrainResult(names, True, moves=r.placed, evicted=tuple(movers), removed=stay)
                unplaced = r.unplaced
                if r.victims and not unplaced:
                    unplaced = {p.key: f"placed only by preempting {', '.join(v.key for v in r.victims)}"
                                for p in fresh}
            return DrainResult(names, False, moves=r.placed, unplaced=unplaced, evicted=tuple(movers),
                               removed=stay)

    def preempt(self, pod: Pod | Mapping[str, Any]) -> Preemption:
        """Schedule *pod* with preemption, as its cycle would: the victims PostFilter chose
        are evicted and the pod bound on the nominated node. The returned
        :class:`~schedframe.whatif.Preemption` names them, and :meth:`unpreempt` undoes it.
        A pod that fits without evicting anything is simply placed (no victims); one that does
        not fit even so leaves the snapshot unchanged."""
        p = self._new_pod(pod, "ClusterSnapshot.preempt")
        with self._lock, self.fork() as f:
            r = self._run([p])
            placement = r.placements[0]
            if placement.node is None:
                return Preemption(p, None, (), placement.message, owner=self)
            f.commit()
            self._version += 1
            return Preemption(placement.pod, placement.node, r.victims, owner=self)

    def unpreempt(self, handle: Preemption) -> None:
        """Undo :meth:`preempt`: take the preemptor out and put its victims back where they
        ran.

        Raises:
            SnapshotError: *handle* is another snapshot's, was undone already, or its victims
                no longer fit back (a node gone, a pod of the same name added since).
        """
        if not isinstance(handle, Preemption):
            raise ArgumentTypeError(f"ClusterSnapshot.unpreempt: expected a Preemption, got "
                                    f"{type(handle).__name__}")
        with self._lock:
            if handle._owner is not self:
                raise SnapshotError("ClusterSnapshot.unpreempt: this Preemption is another snapshot's")
            if id(handle) in self._undone:
                raise SnapshotError("ClusterSnapshot.unpreempt: this Preemption was undone already")
            if handle.node is None:
                self._undone.add(id(handle))
                return
            sched = self._sched
            known = {n.name for n in sched.nodes()}
            for v in handle.victims:
                if v.node_name not in known:
                    raise SnapshotError(f"ClusterSnapshot.unpreempt: victim {v.key}'s node "
                                        f"{v.node_name!r} is gone")
                if sched.get_pod(v.key) is not None:
                    raise SnapshotError(f"ClusterSnapshot.unpreempt: a pod {v.key} exists again")
            if sched.get_pod(handle.pod.uid) is not None:
                sched.remove_pod(handle.pod.uid)
            for v in handle.victims:
                sched.add_pod(v)
            self._undone.add(id(handle))
            self._changed()

    # -- forced edits -------------------------------------------------------------------------------
    def add_node(self, node: Node | Mapping[str, Any]) -> Node:
        """Add (or replace) a node."""
        with self._lock:
            n = self._sched.add_node(node)
            self._changed()
            return n

    def remove_node(self, node: Node | str) -> list[Pod]:
        """Remove a node and the pods on it (returned), without moving them anywhere."""
        name = _node_name(node, "ClusterSnapshot.remove_node")
        with self._lock:
            gone = self.pods_on(name)
            for p in gone:
                self._sched.remove_pod(p)
            self._sched.remove_node(name)
            self._changed()
            return gone

    def add_pod(self, pod: Pod | Mapping[str, Any], node: Node | str | None = None) -> Pod:
        """Put a pod on a node as it is (``spec.nodeName``, or *node*), no Filter asked: the
        forced edit (Cluster Autoscaler's ``ForceAddPod``)."""
        p = _as_object(pod, "ClusterSnapshot.add_pod: pod")
        if not isinstance(p, Pod):
            raise ArgumentTypeError(f"ClusterSnapshot.add_pod: expected a Pod, got {type(p).__name__}")
        if node is not None:
            p = p.evolve(node_name=_node_name(node, "ClusterSnapshot.add_pod"))
        if not p.node_name:
            raise SnapshotError(f"ClusterSnapshot.add_pod: pod {p.key} names no node (pass node=, or "
                                "use schedule() to have the scheduler choose)")
        with self._lock:
            if p.node_name not in {n.name for n in self._sched.nodes()}:
                raise SnapshotError(f"ClusterSnapshot.add_pod: no node {p.node_name!r} in the snapshot")
            try:
                added = self._sched.add_pod(p)
            except SchedulerError as exc:
                raise SnapshotError(f"ClusterSnapshot.add_pod: {exc}") from None
            self._changed()
            return added

    def remove_pod(self, pod: Pod | str) -> None:
        """Remove a pod (a Pod, ``namespace/name`` or uid)."""
        with self._lock:
            try:
                self._sched.remove_pod(pod)
            except SchedulerError as exc:
                raise SnapshotError(f"ClusterSnapshot.remove_pod: {exc}") from None
            self._changed()

    def add_object(self, obj: Any) -> Any:
        """Add (or replace) another cluster object (a PVC, PDB, ResourceClaim...)."""
        with self._lock:
            out = self._sched.add_object(obj)
            self._changed()
            return out

    def remove_object(self, obj: Any) -> None:
        """Remove a cluster object."""
        with self._lock:
            self._sched.remove_object(obj)
            self._changed()

    # -- internals ----------------------------------------------------------------------------------
    def _changed(self) -> None:
        self._version += 1
        self._allowed = None

    def _evict(self, pod: Pod) -> None:
        """The scheduler's pod deleter: a preemption victim leaves the snapshot at once."""
        if self._evicted is not None:
            self._evicted.append(pod)
        self._sched.remove_pod(pod)

    def _framework(self, pod: Pod, what: str) -> Any:
        fwk = self._sched.frameworks.get(pod.scheduler_name)
        if fwk is None:
            raise SnapshotError(f"ClusterSnapshot.{what}: pod {pod.key} names schedulerName "
                                f"{pod.scheduler_name!r}, which no profile has (profiles: "
                                f"{sorted(self._sched.frameworks)})")
        return fwk

    def _new_pod(self, pod: Any, where: str) -> Pod:
        p = _as_object(pod, where)
        if not isinstance(p, Pod):
            raise ArgumentTypeError(f"{where}: expected a Pod or a Pod manifest, got {type(p).__name__}")
        if p.node_name:
            raise SnapshotError(f"{where}: pod {p.key} is bound to {p.node_name!r}; only pending pods "
                                "are scheduled (add_pod puts a pod on a node as it is)")
        if p.is_terminal:
            raise SnapshotError(f"{where}: pod {p.key} is in phase {p.phase}; a finished pod is never "
                                "scheduled")
        self._framework(p, where.split(":")[0].removeprefix("ClusterSnapshot."))
        return p

    def _run(self, pods: Sequence[Pod]) -> ScheduleResult:
        """Add *pods*, run until idle, take out what found no node (lock held by the caller or
        taken here)."""
        sched = self._sched
        with self._lock:
            for p in pods:
                if sched.get_pod(p.key) is not None or sched.get_pod(p.uid) is not None:
                    raise SnapshotError(f"pod {p.key} already exists in the snapshot")
            evicted: list[Pod] = []
            self._evicted = evicted
            added: list[Pod] = []
            try:
                for p in pods:
                    added.append(sched.add_pod(p))
                sched.run_until_idle()
            finally:
                self._evicted = None
                messages = {pp.pod.uid: pp.message for pp in sched.pending()}
                for uid in list(sched._unbound):
                    sched.remove_pod(uid)
                self._changed()
            placements: list[Placement] = []
            for p in added:
                cur = sched.get_pod(p.uid)
                if cur is not None and cur.node_name:
                    placements.append(Placement(cur, cur.node_name))
                else:
                    placements.append(Placement(p, None, messages.get(p.uid, "") or "not placed"))
            mine = {p.uid for p in added}
            return ScheduleResult(tuple(placements), tuple(v for v in evicted if v.uid not in mine))

    def _allowances(self, pdbs: Sequence[PodDisruptionBudget]) -> dict[str, int]:
        """Disruptions each PDB still allows: its spec's over the running pods, less what the
        drains of this snapshot used."""
        if self._allowed is None:
            self._allowed = rules.pdb_allowances(pdbs, self.pods())
        used = self._disrupted
        return {k: v - used.get(k, 0) for k, v in self._allowed.items()}

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes())

    def __len__(self) -> int:
        return len(self._sched.nodes())

    def __repr__(self) -> str:
        return (f"ClusterSnapshot(nodes={len(self)}, pods={len(self.pods())}, forks={len(self._forks)}, "
                f"release={self._sched.config.release.version})")


def _node_name(node: object, where: str) -> str:
    if isinstance(node, Node):
        return node.name
    if isinstance(node, str):
        return node
    raise ArgumentTypeError(f"{where}: node must be a Node or a node name, got {type(node).__name__}")


def _unique(pods: Sequence[Pod], where: str) -> None:
    seen: set[str] = set()
    for p in pods:
        if p.key in seen:
            raise SnapshotError(f"{where}: pod {p.key} is given twice")
        seen.add(p.key)


def _plugin_states(sched: Scheduler) -> list[tuple[StatefulPlugin, object]]:
    out: list[tuple[StatefulPlugin, object]] = []
    seen: set[int] = set()
    for fwk in sched.frameworks.values():
        for plugin in fwk.stateful_plugins():
            if id(plugin) not in seen:
                seen.add(id(plugin))
                out.append((plugin, plugin.checkpoint()))
    return out


def _restore_plugins(states: list[tuple[StatefulPlugin, object]]) -> None:
    for plugin, state in states:
        plugin.restore(state)


def _version_text(version: Any) -> str | None:
    return None if version is None else str(version)
