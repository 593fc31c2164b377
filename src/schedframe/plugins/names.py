"""Names of the in-tree plugins (upstream ``plugins/names``), kept here for compatibility: the
table lives in :mod:`schedframe.framework.plugin_names`, below the configuration that reads it."""

from __future__ import annotations

from ..framework.plugin_names import (
    COSCHEDULING,
    DEFAULT_BINDER,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    IMAGE_LOCALITY,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_BALANCED_ALLOCATION,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD,
    PRIORITY_SORT,
    SCHEDULING_GATES,
    TAINT_TOLERATION,
    UPSTREAM_NOT_PROVIDED,
    VOLUME_BINDING,
    VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
)

__all__ = [
    "COSCHEDULING",
    "DEFAULT_BINDER",
    "DEFAULT_PREEMPTION",
    "DYNAMIC_RESOURCES",
    "IMAGE_LOCALITY",
    "INTER_POD_AFFINITY",
    "NODE_AFFINITY",
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
]
