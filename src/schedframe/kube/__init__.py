"""schedframe on a live cluster: a secondary scheduler fed by informers (the ``kube`` extra, the
official ``kubernetes`` client).

Layer: above ``scheduler`` and ``sim``, below ``cli``. Importing it needs the ``kubernetes``
package only for the client you pass in; ``import schedframe`` never imports it.
"""

from __future__ import annotations

from ._api import ApiSession, KubeApiError, KubeError
from ._import import IMPORT_RESOURCES, ClusterImport, import_cluster
from ._informer import SCHEDULER_RESOURCES, Informer, Resource
from ._leader import LeaderElector
from ._scheduler import KubeBinder, KubeScheduler, truncate_message

__all__ = [
    "IMPORT_RESOURCES",
    "SCHEDULER_RESOURCES",
    "ApiSession",
    "ClusterImport",
    "Informer",
    "KubeApiError",
    "KubeBinder",
    "KubeError",
    "KubeScheduler",
    "LeaderElector",
    "Resource",
    "import_cluster",
    "truncate_message",
]
