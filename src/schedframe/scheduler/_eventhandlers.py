"""The Scheduler's event handlers (upstream ``pkg/scheduler/eventhandlers.go``): nodes, pods
and the other cluster objects arriving, changing and leaving, as the informers deliver them;
the pod store the listers read; and the API-server side effects plugins cause (deleting a
victim, setting a nominated node).

Part of :class:`~schedframe.Scheduler` (a mixin); imports ``_state`` and the layers below.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api.objects import Node, Pod
from ..api.scheduling_workload import unserved_version
from ..cache.cache import node_name_arg
from ..errors import ArgumentTypeError, CacheError, ManifestError, SchedulerError
from ..framework.events import ActionType, EventResource, event_resource_for
from ..queue.scheduling_queue import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    cluster_event,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from ._state import SchedulerBase

__all__ = ["EventHandlersMixin"]

logger = logging.getLogger("schedframe")

def _event_resource(obj: object) -> EventResource | None:
    """The cluster-event resource of an object kept in the object store (from the kinds registry)."""
    return event_resource_for(type(obj).__name__)



class EventHandlersMixin(SchedulerBase):
    """The event handlers of :class:`~schedframe.Scheduler` (internal)."""

    # ------------------------------------------------------------------------------------------
    # the pod store

    def _lookup(self, pod: Pod | str) -> Pod | None:
        if isinstance(pod, Pod):
            found = self._pods.get(pod.uid)
            if found is not None:
                return found
            uid = self._keys.get(pod.key)
        else:
            uid = self._keys.get(pod, pod)
        return self._pods.get(uid) if uid is not None else None

    def _lookup_terminal(self, pod: Pod | str) -> Pod | None:
        if isinstance(pod, Pod):
            found = self._terminal.get(pod.uid)
            if found is not None:
                return found
            uid = self._keys.get(pod.key)
        else:
            uid = self._keys.get(pod, pod)
        return self._terminal.get(uid) if uid is not None else None

    def _live_pod(self, pod: Pod) -> Pod | None:
        # the nominator's "pod lister" (lock-free: a dict read)
        return self._pods.get(pod.uid)

    def _responsible(self, pod: Pod) -> bool:
        return pod.scheduler_name in self.frameworks

    # ------------------------------------------------------------------------------------------
    # event handlers: nodes

    def add_node(self, node: Node | Mapping[str, Any]) -> Node:
        """A node joined the cluster (an api object or a v1 manifest); returns the Node."""
        n = _as_node(node, "Scheduler.add_node: node")
        with self._lock:
            if n.name in self._nodes:
                raise SchedulerError(f"node {n.name!r} already exists; use update_node to change it")
            self._nodes[n.name] = n
            self.cache.add_node(n)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, n)
        return n

    def update_node(self, node: Node | Mapping[str, Any]) -> Node:
        """A node changed; each change the scheduler cares about (labels, taints, allocatable,
        conditions, annotations, uncordon) is delivered as its own cluster event."""
        n = _as_node(node, "Scheduler.update_node: node")
        with self._lock:
            old = self._nodes.get(n.name)
            if old is None:
                raise SchedulerError(f"node {n.name!r} is unknown; add it with add_node first")
            self._nodes[n.name] = n
            self.cache.update_node(old, n)
            for event in node_scheduling_properties_change(n, old):
                self.queue.move_all_to_active_or_backoff_queue(event, old, n)
        return n

    def remove_node(self, node: Node | str) -> None:
        """A node left the cluster (a Node or its name). Pods bound to it stay until removed."""
        name = node_name_arg("Scheduler.remove_node", node)
        with self._lock:
            old = self._nodes.pop(name, None)
            if old is None:
                raise SchedulerError(f"node {name!r} is unknown, so it cannot be removed")
            self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_DELETE, old, None)
            self.cache.remove_node(name)

    # ------------------------------------------------------------------------------------------
    # event handlers: pods

    def _drop_disabled_fields(self, pod: Pod) -> Pod:
        """*pod* without the fields its release's gates switch off, as kube-scheduler reads it:
        with ``PodLevelResources`` off (Kubernetes 1.32 and 1.33) no pod-level resources (the
        API server drops them on create; the scheduler skips them)."""
        if (pod.resources or pod.resource_limits) and \
                not self.config.release.feature_gates.get("PodLevelResources", False):
            return pod.evolve(resources={}, resource_limits={})
        return pod

    def add_pod(self, pod: Pod | Mapping[str, Any]) -> Pod:
        """A pod was created (an api object or a v1 manifest); returns the Pod.

        A pod with ``node_name`` is bound: it goes to the cache. A pending pod goes to the queue if
        one of the profiles schedules it (``spec.schedulerName``); pods for other schedulers are
        only remembered. A pod in phase Succeeded or Failed holds nothing: it is remembered (so
        :meth:`update_pod` and :meth:`remove_pod` accept it, :meth:`get_pod` finds it) but never
        reaches the cache, the queue or the pod listers, as upstream's informers filter terminal
        pods out.
        """
        p = self._drop_disabled_fields(_as_pod(pod, "Scheduler.add_pod: pod"))
        with self._lock:
            if p.uid in self._pods or p.uid in self._terminal or p.key in self._keys:
                raise SchedulerError(f"pod {p.key!r} already exists; use update_pod to change it")
            self._keys[p.key] = p.uid
            if _is_terminal(p):
                self._terminal[p.uid] = p
                return p
            self._pods[p.uid] = p
            self._by_namespace.setdefault(p.namespace, {})[p.uid] = None
            if p.node_name:
                self.cache.add_pod(p)
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, p)
            elif self._responsible(p):
                self._unbound[p.uid] = None
                try:
                    self.queue.add(p)
                except BaseException as exc:
                    # a PreEnqueue or QueueSort plugin interrupted the add: the queue kept the pod
                    # (in backoff); say why it waits, then let the interruption through
                    self._failures[p.uid] = (f"adding the pod to the scheduling queue was "
                                             f"interrupted: {type(exc).__name__}: {exc}", frozenset())
                    raise
        return p

    def update_pod(self, pod: Pod | Mapping[str, Any]) -> Pod:
        """A pod changed (matched to the known pod by uid, else by namespace/name).

        The identity of a pod is its namespace, name and uid: an update changing the namespace
        or the name of a known uid is refused (:class:`~schedframe.SchedulerError`, nothing
        changed), as the API server refuses it. A change of ``spec.schedulerName`` moves the pod
        out of the queue when no profile schedules it any more, and into the queue when one
        does. A pod turning Succeeded or Failed is removed from the cache and the queue, releasing
        everything it held.
        """
        new = self._drop_disabled_fields(_as_pod(pod, "Scheduler.update_pod: pod"))
        with self._lock:
            old = self._pods.get(new.uid)
            if old is None:
                old = self._terminal.get(new.uid)
                if old is not None:
                    self._update_terminal(old, new)
                    return new
                uid = self._keys.get(new.key)
                if uid is not None:
                    raise SchedulerError(
                        f"pod {new.key!r} exists with uid {uid!r}, not {new.uid!r}; remove it first")
                raise SchedulerError(f"pod {new.key!r} is unknown; add it with add_pod first")
            if old == new:  # an update carrying the same object (upstream skips those too)
                return old
            if old.key != new.key:
                raise SchedulerError(
                    f"pod with uid {new.uid!r} is {old.key!r}; an update cannot rename it to "
                    f"{new.key!r} (the namespace and name of a pod are immutable: delete it and "
                    "create the new one)")
            if old.node_name and not new.node_name and not _is_terminal(new):
                # the API server refuses to clear spec.nodeName: such an update was made from a
                # copy read before the pod was bound (e.g. racing with a binding thread)
                raise SchedulerError(
                    f"pod {new.key!r} was bound to node {old.node_name!r}; an update cannot unbind "
                    "it (made from a copy read before the binding? read it again with get_pod)")
            if _is_terminal(new):
                # upstream's informers see a pod leaving the non-terminal set as deleted
                self._remove_known_pod(old)
                self._keys[new.key] = new.uid
                self._terminal[new.uid] = new
                self._resume_after_removal()
                return new
            self._apply_pod_update(old, new)
            if self._parked:
                self._resume_after_removal()  # a waiting pod may have been rejected
        return new

    def _update_terminal(self, old: Pod, new: Pod) -> None:
        if old.key != new.key:
            raise SchedulerError(
                f"pod with uid {new.uid!r} is {old.key!r}; an update cannot rename it to {new.key!r} "
                "(the namespace and name of a pod are immutable)")
        if not _is_terminal(new):
            raise SchedulerError(
                f"pod {new.key!r} is in phase {old.phase}, which is final; an update cannot move it "
                f"to phase {new.phase}")
        self._terminal[new.uid] = new

    def _apply_pod_update(self, old: Pod, new: Pod) -> None:
        self._pods[new.uid] = new
        if old.node_name:
            self.cache.update_pod(old, new)
            for event in pod_scheduling_properties_change(new, old):
                self.queue.move_all_to_active_or_backoff_queue(event, old, new)
            return
        if new.node_name:
            # bound by someone else: the binding event
            self._unbound.pop(new.uid, None)
            self._failures.pop(new.uid, None)
            self.cache.add_pod(new)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, new)
            if self._responsible(old):
                self.queue.delete(old)
            return
        was, now = self._responsible(old), self._responsible(new)
        if was and not now:
            # no profile schedules it any more: it leaves the queue (upstream's filtered informer
            # delivers a delete), and a cycle in flight for it is abandoned
            self._unbound.pop(new.uid, None)
            self._failures.pop(new.uid, None)
            self.queue.delete(old)
            if self.cache.is_assumed(old):
                self._handle_assumed_pod_deletion(old)
            return
        if now and not was:
            # it became ours: an add
            self._unbound[new.uid] = None
            self.queue.add(new)
            return
        if not now:
            return
        if self.cache.is_assumed(new):
            if new.deletion_timestamp is not None and old.deletion_timestamp is None:
                self._handle_assumed_pod_deletion(new)
            return
        self.queue.update(old, new)
        if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
            prio = old.effective_priority
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, old, None, lambda p: p.effective_priority <= prio)

    def remove_pod(self, pod: Pod | str) -> None:
        """A pod was deleted (a Pod, ``"namespace/name"`` key or uid)."""
        ref = _pod_ref_arg(pod, "Scheduler.remove_pod")
        with self._lock:
            old = self._lookup(ref)
            if old is None:
                gone = self._lookup_terminal(ref)
                if gone is not None:
                    del self._terminal[gone.uid]
                    self._keys.pop(gone.key, None)
                    return
                name = ref.key if isinstance(ref, Pod) else ref
                raise SchedulerError(f"pod {name!r} is unknown, so it cannot be removed")
            self._remove_known_pod(old)
            self._keys.pop(old.key, None)
            self._resume_after_removal()

    def _remove_known_pod(self, old: Pod) -> None:
        """Forget a (non-terminal) pod everywhere but in ``_keys`` (lock held)."""
        del self._pods[old.uid]
        members = self._by_namespace.get(old.namespace)
        if members is not None:
            members.pop(old.uid, None)
            if not members:
                del self._by_namespace[old.namespace]
        self._unbound.pop(old.uid, None)
        self._failures.pop(old.uid, None)
        if old.node_name:
            self.cache.remove_pod(old)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, old, None)
        elif self._responsible(old):
            self.queue.delete(old)
            if self.cache.is_assumed(old):
                self._handle_assumed_pod_deletion(old)
            elif old.nominated_node_name:
                prio = old.effective_priority
                self.queue.move_all_to_active_or_backoff_queue(
                    EVENT_ASSIGNED_POD_DELETE, old, None, lambda p: p.effective_priority <= prio)

    def _resume_after_removal(self) -> None:
        # a removal may decide parked Permit waits (a gang member gone); not from inside a cycle
        if not self.threaded and self._current is None:
            self._resume_parked()

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        assumed = self.cache.get_pod(pod)
        if assumed is None:
            return
        fwk = self.frameworks.get(assumed.scheduler_name)
        if fwk is None or not fwk.reject_waiting_pod(assumed.uid):
            try:
                self.cache.forget_pod(assumed)
            except CacheError as exc:  # pragma: no cover - raced with the binding cycle
                logger.warning("forgetting deleted assumed pod %s failed: %s", assumed.key, exc)
        self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None)

    # ------------------------------------------------------------------------------------------
    # other objects

    def add_object(self, obj: Any) -> Any:
        """Add or replace a cluster object (api object or manifest): a Node goes to
        :meth:`add_node` (:meth:`update_node` when known), a Pod to :meth:`add_pod`
        (:meth:`update_pod` when known); a Namespace, Service, ReplicaSet, StatefulSet,
        ReplicationController, PodDisruptionBudget, PriorityClass or a plugin's own kind (an
        object with a ``name``) to the object store, delivering ``<Kind>Add`` /
        ``<Kind>Update``. Anything else raises :class:`~schedframe.errors.ArgumentTypeError`.
        """
        o = _as_object(obj, "Scheduler.add_object")
        _check_served(o, self.config.release.version, "Scheduler.add_object")
        if isinstance(o, Node):
            with self._lock:
                return self.update_node(o) if o.name in self._nodes else self.add_node(o)
        if isinstance(o, Pod):
            with self._lock:
                known = o.uid in self._pods or o.uid in self._terminal
                return self.update_pod(o) if known else self.add_pod(o)
        with self._lock:
            old = self.objects.add(o, notify=False)
            resource = _event_resource(o)
            if resource is not None:
                action = ActionType.ADD if old is None else ActionType.UPDATE
                self.queue.move_all_to_active_or_backoff_queue(cluster_event(resource, action), old, o)
        return o

    def _object_written(self, old: Any, new: Any) -> None:
        """A plugin wrote to the object store (DynamicResources updating a claim): deliver the
        event as the informer would (the queue has its own lock)."""
        obj = new if new is not None else old
        resource = _event_resource(obj)
        if resource is None:
            return
        action = ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE
        self.queue.move_all_to_active_or_backoff_queue(cluster_event(resource, action), old, new)

    def remove_object(self, obj: Any) -> None:
        """Remove a cluster object: a Node through :meth:`remove_node`, a Pod through
        :meth:`remove_pod`, anything added with :meth:`add_object` from the object store
        (delivering ``<Kind>Delete``)."""
        o = _as_object(obj, "Scheduler.remove_object")
        if isinstance(o, Node):
            self.remove_node(o)
            return
        if isinstance(o, Pod):
            self.remove_pod(o)
            return
        with self._lock:
            old = self.objects.remove(o, notify=False)
            if old is None:
                raise SchedulerError(f"{type(o).__name__} {getattr(o, 'name', o)!r} is unknown, so it "
                                     "cannot be removed")
            resource = _event_resource(o)
            if resource is not None:
                self.queue.move_all_to_active_or_backoff_queue(
                    cluster_event(resource, ActionType.DELETE), old, None)

    # ------------------------------------------------------------------------------------------
    # client side effects

    def _client_delete_pod(self, pod: Pod) -> None:
        deferred = self._deferred_deletes
        if deferred is not None:
            deferred.append((pod, self._current))
            return
        self._delete_victim(pod, self._current)

    def _flush_deferred_deletes(self) -> None:
        """Delete the victims deferred during the cycle, each once (a later member may have
        chosen a victim an earlier one had; upstream's second delete finds it gone)."""
        deferred, self._deferred_deletes = self._deferred_deletes or [], None
        seen: set[str] = set()
        for pod, current in deferred:
            if pod.uid in seen or self._lookup(pod) is None:
                continue
            seen.add(pod.uid)
            self._delete_victim(pod, current)

    def _delete_victim(self, pod: Pod, current: tuple[Pod, str] | None) -> None:
        victim = self._lookup(pod)
        if self._pod_deleter is not None:
            self._pod_deleter(victim if victim is not None else pod)
        else:
            self.remove_pod(pod)
        if current is not None and victim is not None:
            preemptor, profile = current
            self._hook("schedframe_pod_preempted", victim=victim, preemptor=preemptor,
                       node_name=victim.node_name, profile=profile)

    def _client_set_nominated(self, pod: Pod, node_name: str) -> None:
        with self._lock:
            cur = self._lookup(pod)
            if cur is None or cur.node_name or cur.nominated_node_name == node_name:
                return
            self._apply_pod_update(cur, cur.evolve(nominated_node_name=node_name))

    def _activate_pods(self, pods: Sequence[Pod]) -> None:
        self.queue.activate(pods)


_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})


def _is_terminal(pod: Pod) -> bool:
    """Succeeded or Failed: the pod holds nothing (upstream's scheduler informers drop it)."""
    return pod.phase in _TERMINAL_PHASES


def _as_pod(obj: Pod | Mapping[str, Any], what: str) -> Pod:
    """*obj* as a Pod (a manifest is read); *what* names the argument in the error
    (``"Scheduler.add_pod: pod"``)."""
    if isinstance(obj, Pod):
        return obj
    if isinstance(obj, Mapping):
        return Pod.from_manifest(obj)
    raise ArgumentTypeError(f"{what} must be a Pod or a v1 Pod manifest (mapping), got "
                            f"{type(obj).__name__}")


def _as_node(obj: Node | Mapping[str, Any], what: str) -> Node:
    """*obj* as a Node (a manifest is read); *what* names the argument in the error."""
    if isinstance(obj, Node):
        return obj
    if isinstance(obj, Mapping):
        return Node.from_manifest(obj)
    raise ArgumentTypeError(f"{what} must be a Node or a v1 Node manifest (mapping), got "
                            f"{type(obj).__name__}")


def _pod_ref_arg(pod: Any, where: str) -> Pod | str:
    if isinstance(pod, (Pod, str)):
        return pod
    raise ArgumentTypeError(f"{where}: pod must be a Pod, a 'namespace/name' key or a uid (str), got "
                            f"{type(pod).__name__}")


def _check_served(obj: Any, release: str, where: str) -> None:
    """Refuse a workload-API object the scheduler's release does not serve (a v1alpha1
    Workload given to 1.37): its API server would never have stored it."""
    why = unserved_version(obj, release)
    if why is not None:
        raise ManifestError("apiVersion", f"{why} ({where}: {type(obj).__name__} "
                                          f"{getattr(obj, 'namespace', 'default')}/{obj.name})")


def _as_object(obj: Any, where: str) -> Any:
    if isinstance(obj, Mapping):
        from ..api.manifests import object_from_manifest

        return object_from_manifest(obj)
    if isinstance(obj, (str, bytes)) or not isinstance(getattr(obj, "name", None), str):
        raise ArgumentTypeError(f"{where}: expected a cluster object (an api object with a name, such "
                                f"as a Node, Pod or Namespace) or its manifest (mapping), got "
                                f"{type(obj).__name__}")
    return obj
