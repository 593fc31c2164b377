"""Plugin names and extension points: the data the layers below the plugins need about them.

* the names of the in-tree plugins (upstream ``plugins/names``; :mod:`schedframe.plugins.names`
  re-exports them);
* :data:`~schedframe.EXTENSION_POINTS`, the one table of extension points (config spelling, in the order a
  pod meets them) with, in :data:`EXTENSION_POINT_TABLE`, each point's display name, the methods
  a plugin needs there and its Protocol; the configuration, the ``Framework`` runtime and the
  version tables all read it;
* the in-tree registry's provider: the plugins layer registers :func:`in_tree_registry
  <schedframe.plugins.in_tree_registry>` with :func:`set_in_tree_registry_factory` when it is
  imported, and the configuration, which sits below the plugins, gets the registry through
  :func:`default_registry` instead of importing them.

May import the framework's own modules, :mod:`schedframe.api`, :mod:`schedframe.cache` and
:mod:`schedframe.errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import RegistryError
from .interfaces import (
    BindPlugin,
    FilterPlugin,
    PermitPlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)
from .registry import Registry

__all__ = [
    "COSCHEDULING",
    "DEFAULT_BINDER",
    "DEFAULT_PREEMPTION",
    "DYNAMIC_RESOURCES",
    "EXTENSION_POINTS",
    "EXTENSION_POINT_TABLE",
    "GANG_SCHEDULING",
    "IMAGE_LOCALITY",
    "INTER_POD_AFFINITY",
    "IN_TREE_MODULES",
    "IN_TREE_PLUGINS",
    "NODE_AFFINITY",
    "NODE_DECLARED_FEATURES",
    "NODE_NAME",
    "NODE_PORTS",
    "NODE_RESOURCES_BALANCED_ALLOCATION",
    "NODE_RESOURCES_FIT",
    "NODE_UNSCHEDULABLE",
    "NODE_VOLUME_LIMITS",
    "POD_TOPOLOGY_SPREAD",
    "PRIORITY_SORT",
    "SCHEDULING_GATES",
    "TAINT_TOLERATION",
    "UPSTREAM_NOT_PROVIDED",
    "VOLUME_BINDING",
    "VOLUME_RESTRICTIONS",
    "VOLUME_ZONE",
    "ExtensionPoint",
    "default_registry",
    "set_in_tree_registry_factory",
]

PRIORITY_SORT: Final = "PrioritySort"
SCHEDULING_GATES: Final = "SchedulingGates"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
NODE_NAME: Final = "NodeName"
NODE_DECLARED_FEATURES: Final = "NodeDeclaredFeatures"
GANG_SCHEDULING: Final = "GangScheduling"
NODE_PORTS: Final = "NodePorts"
TAINT_TOLERATION: Final = "TaintToleration"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"
NODE_RESOURCES_BALANCED_ALLOCATION: Final = "NodeResourcesBalancedAllocation"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"
INTER_POD_AFFINITY: Final = "InterPodAffinity"
IMAGE_LOCALITY: Final = "ImageLocality"
DEFAULT_PREEMPTION: Final = "DefaultPreemption"
DEFAULT_BINDER: Final = "DefaultBinder"
COSCHEDULING: Final = "Coscheduling"
DYNAMIC_RESOURCES: Final = "DynamicResources"
VOLUME_RESTRICTIONS: Final = "VolumeRestrictions"
NODE_VOLUME_LIMITS: Final = "NodeVolumeLimits"
VOLUME_BINDING: Final = "VolumeBinding"
VOLUME_ZONE: Final = "VolumeZone"

#: Every in-tree plugin, name -> its module under :mod:`schedframe.plugins`, in registration
#: order: the one list of them (the plugins layer builds the in-tree registry from it).
IN_TREE_MODULES: Final[Mapping[str, str]] = FrozenDict({
    PRIORITY_SORT: "priority_sort",
    SCHEDULING_GATES: "scheduling_gates",
    NODE_UNSCHEDULABLE: "node_unschedulable",
    NODE_NAME: "node_name",
    NODE_DECLARED_FEATURES: "node_declared_features",
    NODE_PORTS: "node_ports",
    TAINT_TOLERATION: "taint_toleration",
    NODE_AFFINITY: "node_affinity",
    NODE_RESOURCES_FIT: "node_resources_fit",
    VOLUME_RESTRICTIONS: "volume_restrictions",
    NODE_VOLUME_LIMITS: "node_volume_limits",
    VOLUME_BINDING: "volume_binding",
    VOLUME_ZONE: "volume_zone",
    NODE_RESOURCES_BALANCED_ALLOCATION: "node_resources_balanced_allocation",
    POD_TOPOLOGY_SPREAD: "pod_topology_spread",
    INTER_POD_AFFINITY: "inter_pod_affinity",
    IMAGE_LOCALITY: "image_locality",
    DYNAMIC_RESOURCES: "dynamic_resources",
    DEFAULT_PREEMPTION: "default_preemption",
    DEFAULT_BINDER: "default_binder",
    COSCHEDULING: "coscheduling",
    GANG_SCHEDULING: "gang_scheduling",
})

#: Every in-tree plugin name; the in-tree registry holds exactly these.
IN_TREE_PLUGINS: Final[frozenset[str]] = frozenset(IN_TREE_MODULES)

# kube-scheduler default plugins schedframe does not provide (none at present)
UPSTREAM_NOT_PROVIDED: Final[frozenset[str]] = frozenset()


@final
@attrs.frozen
class ExtensionPoint:
    """One extension point: its display name (``"PreFilter"``), the methods a plugin needs
    there, and the runtime-checkable Protocol of a plugin implementing it."""

    display: str
    methods: tuple[str, ...]
    protocol: type


#: extension point (config spelling) -> :class:`ExtensionPoint`, in the order a pod meets them.
EXTENSION_POINT_TABLE: Final[Mapping[str, ExtensionPoint]] = FrozenDict({
    "preEnqueue": ExtensionPoint("PreEnqueue", ("pre_enqueue",), PreEnqueuePlugin),
    "queueSort": ExtensionPoint("QueueSort", ("less",), QueueSortPlugin),
    "preFilter": ExtensionPoint("PreFilter", ("pre_filter",), PreFilterPlugin),
    "filter": ExtensionPoint("Filter", ("filter",), FilterPlugin),
    "postFilter": ExtensionPoint("PostFilter", ("post_filter",), PostFilterPlugin),
    "preScore": ExtensionPoint("PreScore", ("pre_score",), PreScorePlugin),
    "score": ExtensionPoint("Score", ("score",), ScorePlugin),
    "reserve": ExtensionPoint("Reserve", ("reserve", "unreserve"), ReservePlugin),
    "permit": ExtensionPoint("Permit", ("permit",), PermitPlugin),
    "preBind": ExtensionPoint("PreBind", ("pre_bind",), PreBindPlugin),
    "bind": ExtensionPoint("Bind", ("bind",), BindPlugin),
    "postBind": ExtensionPoint("PostBind", ("post_bind",), PostBindPlugin),
})

#: The extension points of a profile, in the order a pod meets them.
EXTENSION_POINTS: Final[tuple[str, ...]] = tuple(EXTENSION_POINT_TABLE)


_in_tree_factory: Callable[[], Registry] | None = None


def set_in_tree_registry_factory(factory: Callable[[], Registry]) -> None:
    """Register the factory of the in-tree registry (the plugins layer does, when imported)."""
    global _in_tree_factory
    _in_tree_factory = factory


def default_registry() -> Registry:
    """A new in-tree registry, from the factory the plugins layer registered; raises
    :class:`~schedframe.RegistryError` when none was (``schedframe.plugins`` not imported)."""
    if _in_tree_factory is None:
        raise RegistryError("the in-tree plugin registry is not available (schedframe.plugins was "
                            "not imported); pass registry=")
    return _in_tree_factory()
