"""Names of the in-tree plugins (upstream ``plugins/names``)."""

from __future__ import annotations

from typing import Final

PRIORITY_SORT: Final = "PrioritySort"
SCHEDULING_GATES: Final = "SchedulingGates"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
NODE_NAME: Final = "NodeName"
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

# kube-scheduler default plugins schedframe does not provide (none at present)
UPSTREAM_NOT_PROVIDED: Final[frozenset[str]] = frozenset()
