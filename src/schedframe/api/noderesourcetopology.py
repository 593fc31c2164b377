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
    _INT,
    _OPT_QUANTITY,
    _REQUIRED_STR,
    _STR,
    _check_top,
    _Codec,
    _Field,
    _items,
    _items_kind,
    _mapping,
    _meta_out,
    _name,
    _opt_time_out,
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


_ATTRIBUTE: Final = _Codec(TopologyAttribute, (
    _Field("name", "name", _REQUIRED_STR), _Field("value", "value", _STR, always=True)))
_COST: Final = _Codec(TopologyCost, (
    _Field("name", "name", _REQUIRED_STR), _Field("value", "value", _INT, always=True)))
_RESOURCE_INFO: Final = _Codec(TopologyResourceInfo, (
    _Field("name", "name", _REQUIRED_STR), _Field("capacity", "capacity", _OPT_QUANTITY, always=True),
    _Field("allocatable", "allocatable", _OPT_QUANTITY, always=True),
    _Field("available", "available", _OPT_QUANTITY, always=True)))
_ZONE: Final = _Codec(TopologyZone, (
    _Field("name", "name", _REQUIRED_STR), _Field("type", "type", _STR, always=True),
    _Field("parent", "parent", _STR), _Field("costs", "costs", _items_kind(_COST)),
    _Field("attributes", "attributes", _items_kind(_ATTRIBUTE)),
    _Field("resources", "resources", _items_kind(_RESOURCE_INFO))))


def node_resource_topology_from_manifest(manifest: Any) -> NodeResourceTopology:
    """Read a ``topology.node.k8s.io/v1alpha2`` NodeResourceTopology manifest.

    .. versionadded:: 0.1.0
    """
    m = _check_top(manifest, "NodeResourceTopology", (NODE_RESOURCE_TOPOLOGY_API_VERSION,))
    meta = _mapping(m.get("metadata"), "metadata")
    return NodeResourceTopology(
        name=_name(meta),
        zones=_items(m.get("zones"), "zones", _ZONE.read),
        attributes=_items(m.get("attributes"), "attributes", _ATTRIBUTE.read),
        topology_policies=_str_list(m.get("topologyPolicies"), "topologyPolicies"),
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def node_resource_topology_to_manifest(nrt: NodeResourceTopology) -> dict[str, Any]:
    """A NodeResourceTopology as a manifest.

    .. versionadded:: 0.1.0
    """
    created = _opt_time_out(nrt.creation_timestamp, "metadata.creationTimestamp")
    out: dict[str, Any] = {"apiVersion": NODE_RESOURCE_TOPOLOGY_API_VERSION, "kind": "NodeResourceTopology",
                           "metadata": _meta_out(nrt.name, creationTimestamp=created)}
    if nrt.topology_policies:
        out["topologyPolicies"] = list(nrt.topology_policies)
    out["zones"] = [_ZONE.write(z) for z in nrt.zones]
    if nrt.attributes:
        out["attributes"] = [_ATTRIBUTE.write(a) for a in nrt.attributes]
    return out
