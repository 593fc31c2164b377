"""The network-aware scheduling objects of diktyo-io, read by scheduler-plugins' TopologicalSort
and NetworkOverhead plugins.

``AppGroup`` (``appgroup.diktyo.x-k8s.io/v1alpha1``) describes an application's workloads and
the dependencies between them (with a maximum network cost and a minimum bandwidth); its status
carries the topological order the AppGroup controller computed. Pods join an AppGroup with the
label ``appgroup.diktyo.x-k8s.io: <name>`` and name their workload with
``appgroup.diktyo.x-k8s.io.workload: <selector>``.

``NetworkTopology`` (``networktopology.diktyo.x-k8s.io/v1alpha1``) gives the network costs between
regions and zones (``topology.kubernetes.io/region`` / ``zone`` node labels), per weights name
(``UserDefined``, ``NetperfCosts``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import (
    _BOOL,
    _INT,
    _OPT_QUANTITY,
    _REQUIRED_STR,
    _STR,
    _Codec,
    _Field,
    _int,
    _items,
    _items_kind,
    _meta_out,
    _name,
    _namespace,
    _object_kind,
    _opt_time_out,
    _str,
    _time,
    _top_parts,
)
from .quantity import Quantity

__all__ = [
    "APP_GROUP_API_VERSION",
    "APP_GROUP_LABEL",
    "APP_GROUP_SELECTOR_LABEL",
    "NETWORK_TOPOLOGY_API_VERSION",
    "AppGroup",
    "AppGroupDependency",
    "AppGroupTopologyInfo",
    "AppGroupWorkload",
    "AppGroupWorkloadInfo",
    "NetworkCost",
    "NetworkTopology",
    "NetworkTopologyOrigin",
    "NetworkTopologyTopology",
    "NetworkTopologyWeights",
    "app_group_from_manifest",
    "app_group_to_manifest",
    "network_topology_from_manifest",
    "network_topology_to_manifest",
]

#: The API group and version of :class:`~schedframe.api.AppGroup`.
APP_GROUP_API_VERSION: Final = "appgroup.diktyo.x-k8s.io/v1alpha1"
#: The API group and version of :class:`~schedframe.api.NetworkTopology`.
NETWORK_TOPOLOGY_API_VERSION: Final = "networktopology.diktyo.x-k8s.io/v1alpha1"
#: The pod label naming the pod's AppGroup.
APP_GROUP_LABEL: Final = "appgroup.diktyo.x-k8s.io"
#: The pod label naming the pod's workload in its AppGroup.
APP_GROUP_SELECTOR_LABEL: Final = APP_GROUP_LABEL + ".workload"


def _tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _opt_q(value: Quantity | str | int | None) -> Quantity | None:
    return value if value is None or isinstance(value, Quantity) else Quantity.parse(value)


@final
@attrs.frozen
class AppGroupWorkloadInfo:
    """A workload reference (``kind``, ``name``, ``selector``, ``apiVersion``, ``namespace``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    kind: str
    name: str
    selector: str
    api_version: str = ""
    namespace: str = ""


@final
@attrs.frozen
class AppGroupDependency:
    """A workload's dependency: the workload it talks to, the minimum bandwidth and the maximum
    network cost between them.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    workload: AppGroupWorkloadInfo
    min_bandwidth: Quantity | None = attrs.field(default=None, converter=_opt_q)
    max_network_cost: int = 0


@final
@attrs.frozen
class AppGroupWorkload:
    """One ``spec.workloads[]`` entry.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    workload: AppGroupWorkloadInfo
    dependencies: tuple[AppGroupDependency, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class AppGroupTopologyInfo:
    """One ``status.topologyOrder[]`` entry: a workload and its index in the order.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    workload: AppGroupWorkloadInfo
    index: int = 0


@final
@attrs.frozen
class AppGroup:
    """An ``appgroup.diktyo.x-k8s.io/v1alpha1`` AppGroup.

    Attributes:
        name, namespace: the object's name and namespace.
        num_members: ``spec.numMembers``.
        topology_sorting_algorithm: ``spec.topologySortingAlgorithm`` (``KahnSort``, ...).
        workloads: ``spec.workloads``.
        topology_order: ``status.topologyOrder``, as the AppGroup controller wrote it.
        running_workloads: ``status.runningWorkloads``.
        creation_timestamp: ``metadata.creationTimestamp``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    num_members: int = 0
    topology_sorting_algorithm: str = ""
    workloads: tuple[AppGroupWorkload, ...] = attrs.field(default=(), converter=_tuple)
    topology_order: tuple[AppGroupTopologyInfo, ...] = attrs.field(default=(), converter=_tuple)
    running_workloads: int = 0
    creation_timestamp: float | None = None

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> AppGroup:
        """Read an AppGroup manifest; raises :class:`~schedframe.ManifestError`."""
        return app_group_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This AppGroup as a manifest (:meth:`from_manifest` reads it back equal)."""
        return app_group_to_manifest(self)


@final
@attrs.frozen
class NetworkCost:
    """One ``costList[]`` entry: the cost from an origin to *destination*.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    destination: str
    network_cost: int = 0
    is_allowed: bool = False
    bandwidth_capacity: Quantity | None = attrs.field(default=None, converter=_opt_q)
    bandwidth_allocated: Quantity | None = attrs.field(default=None, converter=_opt_q)


@final
@attrs.frozen
class NetworkTopologyOrigin:
    """One ``originList[]`` entry: a region or zone name and its costs to the others.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    origin: str
    cost_list: tuple[NetworkCost, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class NetworkTopologyTopology:
    """One ``topologyList[]`` entry: the origins of one topology key (region or zone label).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    topology_key: str
    origin_list: tuple[NetworkTopologyOrigin, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class NetworkTopologyWeights:
    """One ``spec.weights[]`` entry: the costs of one weights name (``UserDefined``, ...).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    topology_list: tuple[NetworkTopologyTopology, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class NetworkTopology:
    """A ``networktopology.diktyo.x-k8s.io/v1alpha1`` NetworkTopology.

    Attributes:
        name, namespace: the object's name and namespace.
        weights: ``spec.weights``.
        configmap_name: ``spec.configmapName``.
        node_count: ``status.nodeCount``.
        creation_timestamp: ``metadata.creationTimestamp``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    weights: tuple[NetworkTopologyWeights, ...] = attrs.field(default=(), converter=_tuple)
    configmap_name: str = ""
    node_count: int = 0
    creation_timestamp: float | None = None

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> NetworkTopology:
        """Read a NetworkTopology manifest; raises :class:`~schedframe.ManifestError`."""
        return network_topology_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This NetworkTopology as a manifest (:meth:`from_manifest` reads it back equal)."""
        return network_topology_to_manifest(self)


# ----------------------------------------------------------------------------------- readers


_WORKLOAD_INFO: Final = _Codec(AppGroupWorkloadInfo, (
    _Field("kind", "kind", _STR, always=True), _Field("name", "name", _STR, always=True),
    _Field("selector", "selector", _STR, always=True), _Field("apiVersion", "api_version", _STR),
    _Field("namespace", "namespace", _STR)))
_WORKLOAD: Final = _Field("workload", "workload", _object_kind(_WORKLOAD_INFO))
_DEPENDENCY: Final = _Codec(AppGroupDependency, (
    _WORKLOAD, _Field("minBandwidth", "min_bandwidth", _OPT_QUANTITY),
    _Field("maxNetworkCost", "max_network_cost", _INT)))
_APP_GROUP_WORKLOAD: Final = _Codec(AppGroupWorkload, (
    _WORKLOAD, _Field("dependencies", "dependencies", _items_kind(_DEPENDENCY))))
_TOPOLOGY_INFO: Final = _Codec(AppGroupTopologyInfo, (_WORKLOAD, _Field("index", "index", _INT, always=True)))

_COST: Final = _Codec(NetworkCost, (
    _Field("destination", "destination", _REQUIRED_STR),
    _Field("networkCost", "network_cost", _INT, always=True), _Field("isAllowed", "is_allowed", _BOOL),
    _Field("bandwidthCapacity", "bandwidth_capacity", _OPT_QUANTITY),
    _Field("bandwidthAllocated", "bandwidth_allocated", _OPT_QUANTITY)))
_ORIGIN: Final = _Codec(NetworkTopologyOrigin, (
    _Field("origin", "origin", _REQUIRED_STR),
    _Field("costList", "cost_list", _items_kind(_COST), always=True)))
_TOPOLOGY: Final = _Codec(NetworkTopologyTopology, (
    _Field("topologyKey", "topology_key", _REQUIRED_STR),
    _Field("originList", "origin_list", _items_kind(_ORIGIN), always=True)))
_WEIGHTS: Final = _Codec(NetworkTopologyWeights, (
    _Field("name", "name", _REQUIRED_STR),
    _Field("topologyList", "topology_list", _items_kind(_TOPOLOGY), always=True)))


def app_group_from_manifest(manifest: Any) -> AppGroup:
    """Read an ``appgroup.diktyo.x-k8s.io/v1alpha1`` AppGroup manifest.

    .. versionadded:: 0.1.0
    """
    meta, spec, status = _top_parts(manifest, "AppGroup", (APP_GROUP_API_VERSION,))
    return AppGroup(
        name=_name(meta),
        namespace=_namespace(meta),
        num_members=_int(spec.get("numMembers"), "spec.numMembers") or 0,
        topology_sorting_algorithm=_str(
            spec.get("topologySortingAlgorithm"), "spec.topologySortingAlgorithm"
        ),
        workloads=_items(spec.get("workloads"), "spec.workloads", _APP_GROUP_WORKLOAD.read),
        topology_order=_items(status.get("topologyOrder"), "status.topologyOrder", _TOPOLOGY_INFO.read),
        running_workloads=_int(status.get("runningWorkloads"), "status.runningWorkloads") or 0,
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def network_topology_from_manifest(manifest: Any) -> NetworkTopology:
    """Read a ``networktopology.diktyo.x-k8s.io/v1alpha1`` NetworkTopology manifest.

    .. versionadded:: 0.1.0
    """
    meta, spec, status = _top_parts(manifest, "NetworkTopology", (NETWORK_TOPOLOGY_API_VERSION,))
    return NetworkTopology(
        name=_name(meta),
        namespace=_namespace(meta),
        weights=_items(spec.get("weights"), "spec.weights", _WEIGHTS.read),
        configmap_name=_str(spec.get("configmapName"), "spec.configmapName"),
        node_count=_int(status.get("nodeCount"), "status.nodeCount") or 0,
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


# ----------------------------------------------------------------------------------- writers


def app_group_to_manifest(ag: AppGroup) -> dict[str, Any]:
    """An AppGroup as a manifest.

    .. versionadded:: 0.1.0
    """
    created = _opt_time_out(ag.creation_timestamp, "metadata.creationTimestamp")
    out: dict[str, Any] = {
        "apiVersion": APP_GROUP_API_VERSION,
        "kind": "AppGroup",
        "metadata": _meta_out(ag.name, ag.namespace, creationTimestamp=created),
        "spec": {
            "numMembers": ag.num_members,
            "topologySortingAlgorithm": ag.topology_sorting_algorithm,
            "workloads": [_APP_GROUP_WORKLOAD.write(w) for w in ag.workloads],
        },
    }
    status: dict[str, Any] = {}
    if ag.running_workloads:
        status["runningWorkloads"] = ag.running_workloads
    if ag.topology_order:
        status["topologyOrder"] = [_TOPOLOGY_INFO.write(t) for t in ag.topology_order]
    if status:
        out["status"] = status
    return out


def network_topology_to_manifest(nt: NetworkTopology) -> dict[str, Any]:
    """A NetworkTopology as a manifest.

    .. versionadded:: 0.1.0
    """
    created = _opt_time_out(nt.creation_timestamp, "metadata.creationTimestamp")
    out: dict[str, Any] = {
        "apiVersion": NETWORK_TOPOLOGY_API_VERSION,
        "kind": "NetworkTopology",
        "metadata": _meta_out(nt.name, nt.namespace, creationTimestamp=created),
        "spec": {"weights": [_WEIGHTS.write(w) for w in nt.weights], "configmapName": nt.configmap_name},
    }
    if nt.node_count:
        out["status"] = {"nodeCount": nt.node_count}
    return out
