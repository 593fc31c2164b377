"""``NodeResourceTopology`` (``topology.node.k8s.io/v1alpha2``, k8stopologyawareschedwg
noderesourcetopology-api): the per-NUMA-zone resources a node agent (NFD topology-updater, RTE)
publishes for each node, read by scheduler-plugins' NodeResourceTopologyMatch.

The object is cluster-scoped and named after its node. ``zones`` lists the node's topology zones
(NUMA nodes have ``type: Node`` and are named ``node-<id>``), each with per-resource
``capacity`` / ``allocatable`` / ``available`` amounts and the distances (``costs``) to the other
zones. The kubelet's Topology Manager configuration is published in the top-level ``attributes``
(``topologyManagerPolicy``, ``topologyManagerScope``, ``topologyManagerMaxNUMANodes``) or, in
the deprecated form, in ``topologyPolicies`` (``SingleNUMANodeContainerLevel``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import (
    _check_top,
    _child,
    _format_time,
    _int,
    _items,
    _mapping,
    _meta_out,
    _name,
    _quantity,
    _required_str,
    _str,
    _str_list,
    _time,
)
from .quantity import Quantity

__all__ = [
    "NODE_RESOURCE_TOPOLOGY_API_VERSION",
    "NodeResourceTopology",
    "TopologyAttribute",
    "TopologyCost",
    "TopologyResourceInfo",
    "TopologyZone",
    "node_resource_topology_from_manifest",
    "node_resource_topology_to_manifest",
]

#: The API group and version of :class:`~schedframe.api.NodeResourceTopology`.
NODE_RESOURCE_TOPOLOGY_API_VERSION: Final = "topology.node.k8s.io/v1alpha2"
#: ``Zone.type`` of a NUMA node (upstream ``helper.ZoneTypeNUMANode``).
ZONE_TYPE_NUMA_NODE: Final = "Node"

_ZERO: Final = Quantity.from_int(0)


def _tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _q(value: Quantity | str | int) -> Quantity:
    return value if isinstance(value, Quantity) else Quantity.parse(value)


@final
@attrs.frozen
class TopologyResourceInfo:
    """One ``zones[].resources[]`` entry.

    Attributes:
        name: the resource name (``cpu``, ``memory``, ``hugepages-2Mi``, a device name).
        capacity: the zone's total amount of it.
        allocatable: what the kubelet lets pods use.
        available: ``allocatable`` minus what running pods hold (what a new pod can get).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    capacity: Quantity = attrs.field(default=_ZERO, converter=_q)
    allocatable: Quantity = attrs.field(default=_ZERO, converter=_q)
    available: Quantity = attrs.field(default=_ZERO, converter=_q)


@final
@attrs.frozen
class TopologyCost:
    """One ``costs[]`` entry: the distance from the zone to the zone *name*.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    value: int


@final
@attrs.frozen
class TopologyAttribute:
    """One ``attributes[]`` entry (top-level or per zone).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    value: str


@final
@attrs.frozen
class TopologyZone:
    """One ``zones[]`` entry.

    Attributes:
        name: the zone name (NUMA nodes: ``node-<id>``).
        type: the zone type (NUMA nodes: ``"Node"``).
        parent: the enclosing zone's name, if any.
        costs: distances to other zones.
        attributes: zone attributes.
        resources: per-resource amounts.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    type: str = ZONE_TYPE_NUMA_NODE
    parent: str = ""
    costs: tuple[TopologyCost, ...] = attrs.field(default=(), converter=_tuple)
    attributes: tuple[TopologyAttribute, ...] = attrs.field(default=(), converter=_tuple)
    resources: tuple[TopologyResourceInfo, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class NodeResourceTopology:
    """A ``topology.node.k8s.io/v1alpha2`` NodeResourceTopology (cluster-scoped, named after
    its node).

    Attributes:
        name: the node's name.
        zones: the node's topology zones.
        attributes: top-level attributes (the Topology Manager policy and scope).
        topology_policies: the deprecated ``topologyPolicies`` (the first one counts).
        creation_timestamp: ``metadata.creationTimestamp``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    zones: tuple[TopologyZone, ...] = attrs.field(default=(), converter=_tuple)
    attributes: tuple[TopologyAttribute, ...] = attrs.field(default=(), converter=_tuple)
    topology_policies: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    creation_timestamp: float | None = None

    def attribute(self, name: str) -> str | None:
        """The value of the top-level attribute *name* (the last one listed), or ``None``."""
        found = None
        for a in self.attributes:
            if a.name == name:
                found = a.value
        return found

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> NodeResourceTopology:
        """Read a NodeResourceTopology manifest; raises :class:`~schedframe.ManifestError`
        naming the field path."""
        return node_resource_topology_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This object as a manifest (:meth:`from_manifest` reads it back equal)."""
        return node_resource_topology_to_manifest(self)


def _attribute(value: Any, path: str) -> TopologyAttribute:
    m = _mapping(value, path)
    return TopologyAttribute(_required_str(m, "name", path), _str(m.get("value"), _child(path, "value")))


def _cost(value: Any, path: str) -> TopologyCost:
    m = _mapping(value, path)
    return TopologyCost(_required_str(m, "name", path), _int(m.get("value"), _child(path, "value")) or 0)


def _resource_info(value: Any, path: str) -> TopologyResourceInfo:
    m = _mapping(value, path)

    def amount(key: str) -> Quantity:
        raw = m.get(key)
        return _ZERO if raw is None else _quantity(raw, _child(path, key))

    return TopologyResourceInfo(_required_str(m, "name", path), amount("capacity"), amount("allocatable"),
                                amount("available"))


def _zone(value: Any, path: str) -> TopologyZone:
    m = _mapping(value, path)
    return TopologyZone(
        name=_required_str(m, "name", path),
        type=_str(m.get("type"), _child(path, "type")),
        parent=_str(m.get("parent"), _child(path, "parent")),
        costs=_items(m.get("costs"), _child(path, "costs"), _cost),
        attributes=_items(m.get("attributes"), _child(path, "attributes"), _attribute),
        resources=_items(m.get("resources"), _child(path, "resources"), _resource_info),
    )


def node_resource_topology_from_manifest(manifest: Any) -> NodeResourceTopology:
    """Read a ``topology.node.k8s.io/v1alpha2`` NodeResourceTopology manifest.

    .. versionadded:: 0.1.0
    """
    m = _check_top(manifest, "NodeResourceTopology", (NODE_RESOURCE_TOPOLOGY_API_VERSION,))
    meta = _mapping(m.get("metadata"), "metadata")
    return NodeResourceTopology(
        name=_name(meta),
        zones=_items(m.get("zones"), "zones", _zone),
        attributes=_items(m.get("attributes"), "attributes", _attribute),
        topology_policies=_str_list(m.get("topologyPolicies"), "topologyPolicies"),
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def _attributes_out(attributes: tuple[TopologyAttribute, ...]) -> list[dict[str, str]]:
    return [{"name": a.name, "value": a.value} for a in attributes]


def _zone_out(zone: TopologyZone) -> dict[str, Any]:
    out: dict[str, Any] = {"name": zone.name, "type": zone.type}
    if zone.parent:
        out["parent"] = zone.parent
    if zone.costs:
        out["costs"] = [{"name": c.name, "value": c.value} for c in zone.costs]
    if zone.attributes:
        out["attributes"] = _attributes_out(zone.attributes)
    if zone.resources:
        out["resources"] = [{"name": r.name, "capacity": str(r.capacity), "allocatable": str(r.allocatable),
                             "available": str(r.available)} for r in zone.resources]
    return out


def node_resource_topology_to_manifest(nrt: NodeResourceTopology) -> dict[str, Any]:
    """A NodeResourceTopology as a manifest.

    .. versionadded:: 0.1.0
    """
    created = (None if nrt.creation_timestamp is None
               else _format_time(nrt.creation_timestamp, "metadata.creationTimestamp"))
    out: dict[str, Any] = {"apiVersion": NODE_RESOURCE_TOPOLOGY_API_VERSION, "kind": "NodeResourceTopology",
                           "metadata": _meta_out(nrt.name, creationTimestamp=created)}
    if nrt.topology_policies:
        out["topologyPolicies"] = list(nrt.topology_policies)
    out["zones"] = [_zone_out(z) for z in nrt.zones]
    if nrt.attributes:
        out["attributes"] = _attributes_out(nrt.attributes)
    return out
