"""NodeResourceTopologyMatch's NRT caches (scheduler-plugins v0.34.7
``pkg/noderesourcetopology/cache/{passthrough,discardreserved,overreserve,store}.go``).

* :class:`Passthrough` (``cacheResyncPeriodSeconds`` 0, the default): the NRT object as listed.
* :class:`DiscardReserved` (``discardReservedNodes: true``): a node with a pod reserved on it and
  not yet bound has no usable topology data until the pod is bound or unreserved.
* :class:`OverReserve` (``cacheResyncPeriodSeconds`` > 0): the resources of the pods reserved on
  a node since its NRT object last changed are taken from the ``available`` amount of *every*
  zone of the node that has the resource (upstream cannot know which zone the kubelet will pick,
  so it over-reserves: false negatives, never false positives).

Simplified from upstream's OverReserve: the periodic resync that compares pod fingerprints with
the NRT object becomes "a node's assumed pods are dropped when its NRT object changes" (a new
object is what a resync would fetch); foreign-pod detection (pods bound by other schedulers) and
the ``resyncMethod`` / ``informerMode`` / ``resyncScope`` knobs have no effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Protocol

import attrs

from ...api.noderesourcetopology import NodeResourceTopology
from ...api.objects import Pod
from ...api.quantity import Quantity
from ._nrt_numa import Resources, pod_effective_request


def lookup_nrt(objects: Any, node_name: str) -> NodeResourceTopology | None:
    """The NRT object named *node_name* in the handle's objects."""
    get = getattr(objects, "get", None)
    if get is not None:
        found: NodeResourceTopology | None = get(NodeResourceTopology, node_name)
        return found
    for nrt in objects.list(NodeResourceTopology):
        if nrt.name == node_name:
            return nrt  # type: ignore[no-any-return]
    return None


def _pod_key(pod: Pod) -> str:
    return f"{pod.namespace}/{pod.name}"


class NRTCache(Protocol):
    """Upstream ``cache.Interface``."""

    def get_cached_nrt_copy(self, node_name: str, pod: Pod) -> tuple[NodeResourceTopology | None, bool]:
        """The node's NRT as the plugin should see it, and whether it is fresh."""

    def node_maybe_over_reserved(self, node_name: str, pod: Pod) -> None: ...

    def reserve_node_resources(self, node_name: str, pod: Pod) -> None: ...

    def unreserve_node_resources(self, node_name: str, pod: Pod) -> None: ...

    def post_bind(self, node_name: str, pod: Pod) -> None: ...


class Passthrough:
    """No caching: the listed object, always fresh."""

    def __init__(self, objects: Any) -> None:
        self._objects = objects

    def get_cached_nrt_copy(self, node_name: str, pod: Pod) -> tuple[NodeResourceTopology | None, bool]:
        return lookup_nrt(self._objects, node_name), True

    def node_maybe_over_reserved(self, node_name: str, pod: Pod) -> None:
        return None

    def reserve_node_resources(self, node_name: str, pod: Pod) -> None:
        return None

    def unreserve_node_resources(self, node_name: str, pod: Pod) -> None:
        return None

    def post_bind(self, node_name: str, pod: Pod) -> None:
        return None


class DiscardReserved:
    """A node with reservations (pods between Reserve and PostBind/Unreserve) is not fresh."""

    def __init__(self, objects: Any) -> None:
        self._objects = objects
        self.reservations: dict[str, set[str]] = {}

    def get_cached_nrt_copy(self, node_name: str, pod: Pod) -> tuple[NodeResourceTopology | None, bool]:
        if self.reservations.get(node_name):
            return None, False
        return lookup_nrt(self._objects, node_name), True

    def node_maybe_over_reserved(self, node_name: str, pod: Pod) -> None:
        return None

    def reserve_node_resources(self, node_name: str, pod: Pod) -> None:
        self.reservations.setdefault(node_name, set()).add(pod.uid or _pod_key(pod))

    def unreserve_node_resources(self, node_name: str, pod: Pod) -> None:
        self.reservations.get(node_name, set()).discard(pod.uid or _pod_key(pod))

    def post_bind(self, node_name: str, pod: Pod) -> None:
        self.unreserve_node_resources(node_name, pod)


def _minus(nrt: NodeResourceTopology, assumed: Mapping[str, Resources]) -> NodeResourceTopology:
    """*nrt* with every assumed pod's requests taken from every zone that has the resource
    (floored at 0)."""
    zones = []
    for zone in nrt.zones:
        resources = []
        for info in zone.resources:
            available = info.available.exact
            for requests in assumed.values():
                qty = requests.get(info.name)
                if qty is None:
                    continue
                available = Fraction(0) if available < qty else available - qty
            resources.append(info if available == info.available.exact
                             else attrs.evolve(info, available=Quantity(available)))
        zones.append(attrs.evolve(zone, resources=tuple(resources)))
    return attrs.evolve(nrt, zones=tuple(zones))


class OverReserve:
    """Pessimistic over-reservation of the pods assumed since the NRT object last changed."""

    def __init__(self, objects: Any) -> None:
        self._objects = objects
        #: node -> pod key -> effective request
        self.assumed: dict[str, dict[str, Resources]] = {}
        #: node -> the NRT object the assumed pods were reserved against
        self._seen: dict[str, NodeResourceTopology | None] = {}
        #: node -> how many times Filter rejected a pod on it since the last reservation
        self.maybe_over_reserved: dict[str, int] = {}
        #: bumped on every flush (upstream's cache generation)
        self.generation = 0

    def _flush_if_updated(self, node_name: str, current: NodeResourceTopology | None) -> None:
        if node_name in self._seen and self._seen[node_name] != current:
            self.assumed.pop(node_name, None)
            self._seen.pop(node_name, None)
            self.maybe_over_reserved.pop(node_name, None)
            self.generation += 1

    def get_cached_nrt_copy(self, node_name: str, pod: Pod) -> tuple[NodeResourceTopology | None, bool]:
        nrt = lookup_nrt(self._objects, node_name)
        self._flush_if_updated(node_name, nrt)
        if nrt is None:
            return None, True
        assumed = self.assumed.get(node_name)
        return (_minus(nrt, assumed) if assumed else nrt), True

    def node_maybe_over_reserved(self, node_name: str, pod: Pod) -> None:
        self.maybe_over_reserved[node_name] = self.maybe_over_reserved.get(node_name, 0) + 1

    def reserve_node_resources(self, node_name: str, pod: Pod) -> None:
        current = lookup_nrt(self._objects, node_name)
        self._flush_if_updated(node_name, current)
        self._seen.setdefault(node_name, current)
        self.assumed.setdefault(node_name, {})[_pod_key(pod)] = pod_effective_request(pod)
        self.maybe_over_reserved.pop(node_name, None)

    def unreserve_node_resources(self, node_name: str, pod: Pod) -> None:
        store = self.assumed.get(node_name)
        if store is not None:
            store.pop(_pod_key(pod), None)

    def post_bind(self, node_name: str, pod: Pod) -> None:
        return None
