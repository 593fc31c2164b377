"""The scheduler's view of the cluster: ``NodeInfo`` (a node with its pods and aggregates),
``Cache`` (add / update / remove, assume / forget), the incremental ``Snapshot`` a cycle runs
against, the listers plugins read, and ``ObjectStore`` for the other cluster objects.

May import :mod:`schedframe.api` and :mod:`schedframe.errors` only.
"""

from __future__ import annotations

from .cache import (
    Cache,
    CacheDump,
)
from .listers import (
    NodeInfoLister,
    ObjectLister,
    SharedLister,
)
from .nodeinfo import (
    AffinityTerm,
    HostPortInfo,
    ImageStateSummary,
    NodeInfo,
    PodInfo,
    WeightedAffinityTerm,
)
from .snapshot import (
    Snapshot,
    zone_key,
)
from .store import (
    ObjectStore,
)

__all__ = [
    "AffinityTerm",
    "Cache",
    "CacheDump",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "NodeInfoLister",
    "ObjectLister",
    "ObjectStore",
    "PodInfo",
    "SharedLister",
    "Snapshot",
    "WeightedAffinityTerm",
    "zone_key",
]
