"""schedframe on a live cluster: a secondary scheduler fed by informers (the ``kube`` extra, the
official ``kubernetes`` client).

Layer: above ``scheduler`` and ``sim``, below ``cli``. Importing it needs the ``kubernetes``
package only for the client you pass in; ``import schedframe`` never imports it.
"""

from __future__ import annotations

from ._api import MAX_EVENT_BYTES, ApiSession, KubeApiError, KubeError, KubeLimitError
from ._import import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ITEMS_PER_KIND,
    DEFAULT_MAX_PAGE_BYTES,
    DEFAULT_MAX_PAGES,
    IMPORT_RESOURCES,
    ClusterImport,
    import_cluster,
)
from ._informer import EVENT_DEADLINE, SCHEDULER_RESOURCES, Informer, Resource, scheduler_resources
from ._leader import LeaderElector
from ._scheduler import KubeBinder, KubeScheduler, truncate_message

__all__ = [
    "DEFAULT_MAX_ITEMS",
    "DEFAULT_MAX_ITEMS_PER_KIND",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_PAGE_BYTES",
    "EVENT_DEADLINE",
    "IMPORT_RESOURCES",
    "MAX_EVENT_BYTES",
    "SCHEDULER_RESOURCES",
    "scheduler_resources",
    "ApiSession",
    "ClusterImport",
    "Informer",
    "KubeApiError",
    "KubeBinder",
    "KubeError",
    "KubeLimitError",
    "KubeScheduler",
    "LeaderElector",
    "Resource",
    "import_cluster",
    "truncate_message",
]
