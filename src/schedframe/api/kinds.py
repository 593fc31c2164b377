"""The one registry of the API kinds schedframe reads.

Each kind has one :class:`~schedframe.api.KindInfo` record: its name, the ``apiVersion`` values accepted
(group
and served versions; the first is the one written), its plural (the resource name in API paths),
whether it is namespaced, its value class, and its manifest reader and writer. Everything that
needs a list of kinds derives it from :data:`~schedframe.api.KINDS`: :func:`~schedframe.object_from_manifest`
and
:func:`~schedframe.load_manifests` (readers, cluster-scoped kinds), :func:`~schedframe.object_to_manifest`
and :func:`~schedframe.api.dump_scheduler_state` (writers), the framework's cluster events
(:func:`schedframe.framework.events.event_resource_for`), the live-cluster informers and
``schedframe import`` (:mod:`schedframe.kube`).

The registry is open: a plugin family or another distribution registers the kinds it needs
(ElasticQuota, NodeResourceTopology, ...) with :meth:`schedframe.api.KindRegistry.register`, and
:func:`~schedframe.load_manifests` reads them from then on. Adding a built-in kind means a record
here and the kind's own module (its value class and converters), nothing else.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeAlias, final

import attrs

from ..errors import DuplicateKindError
from . import _core, _pod, _workload_io
from . import elasticquota as _elasticquota
from . import networkaware as _networkaware
from . import noderesourcetopology as _nrt
from . import resource as _resource
from . import scheduling_workload as _sw
from . import storage as _storage
from ._old_versions import reading_old_versions as _old
from .elasticquota import ElasticQuota
from .networkaware import AppGroup, NetworkTopology
from .noderesourcetopology import NodeResourceTopology
from .objects import (
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)
from .resource import RESOURCE_API_VERSION, DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from .scheduling_workload import CompositePodGroup, SchedulingPodGroup, Workload
from .storage import CSIDriver, CSINode, PersistentVolume, PersistentVolumeClaim, StorageClass
from .volume_attachment import VOLUME_ATTACHMENT_API_VERSION, VolumeAttachment
from .volume_attachment import volume_attachment_from_manifest as _va_in
from .volume_attachment import volume_attachment_to_manifest as _va_out
from .workloads import CronJob, DaemonSet, Deployment, Job

if TYPE_CHECKING:
    from .storage import StorageObject
else:  # for ApiObject's evaluation at run time (documentation, get_type_hints)
    StorageObject = _storage.StorageObject

__all__ = ["KINDS", "ApiObject", "KindInfo", "KindRegistry"]

#: Any api object :func:`~schedframe.object_from_manifest` returns for a built-in kind.
ApiObject: TypeAlias = ("Pod | Node | Namespace | Service | ReplicationController | ReplicaSet | StatefulSet"
                        " | Deployment | DaemonSet | Job | CronJob"
                        " | PodDisruptionBudget | PriorityClass | PodGroup | ElasticQuota | StorageObject"
                        " | NodeResourceTopology | AppGroup | NetworkTopology"
                        " | ResourceClaim | ResourceClaimTemplate | DeviceClass | ResourceSlice"
                        " | Workload | SchedulingPodGroup | CompositePodGroup")

#: The rank of a kind registered without one: after everything built in but Pods.
DEFAULT_RANK: Final = 500


def _group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _api_versions(value: Any) -> tuple[str, ...]:
    versions = (value,) if isinstance(value, str) else tuple(value)
    if not versions or not all(isinstance(v, str) and v and v.count("/") <= 1 for v in versions):
        raise ValueError(f"KindInfo.api_versions must be one or more 'group/version' or 'version' strings, "
                         f"got {value!r}")
    return versions


@final
@attrs.frozen
class KindInfo:
    """What schedframe knows about one API kind.

    Attributes:
        kind: the ``kind`` of its manifests (``"Pod"``).
        api_versions: the ``apiVersion`` values read (``"v1"``, ``"apps/v1"``,
            ``"scheduling.x-k8s.io/v1alpha1"``...); the first is the one written and listed.
        plural: the resource name in API paths (``"pods"``).
        namespaced: whether objects live in a namespace (``False``: cluster-scoped).
        cls: the value class of its objects.
        reader: manifest (a mapping) -> object; raises :class:`~schedframe.ManifestError`.
        writer: object -> manifest (a ``dict``).
        watched: kube-scheduler's informers watch it (the live adapter,
            :data:`schedframe.kube.SCHEDULER_RESOURCES`).
        required: a cluster cannot be scheduled without listing it (Nodes and Pods).
        rank: the order in which a whole cluster is listed (``schedframe import``) and watched:
            what other objects refer to comes first, Pods last.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    kind: str
    api_versions: tuple[str, ...] = attrs.field(converter=_api_versions)
    plural: str
    namespaced: bool
    cls: type
    reader: Callable[[Any], Any]
    writer: Callable[[Any], dict[str, Any]]
    watched: bool = False
    required: bool = False
    rank: int = DEFAULT_RANK

    @property
    def group(self) -> str:
        """The API group of the first apiVersion (``""`` for the core group)."""
        group, _, _ = self.api_versions[0].rpartition("/")
        return group

    @property
    def version(self) -> str:
        """The version of the first apiVersion (``"v1"``)."""
        return self.api_versions[0].rpartition("/")[2]


@final
class KindRegistry:
    """The kinds schedframe reads, in registration order; :data:`~schedframe.api.KINDS` is the one instance.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    def __init__(self, infos: tuple[KindInfo, ...] = ()) -> None:
        self._lock = threading.Lock()
        # a kind name may be registered once per API group (the scheduler-plugins PodGroup of
        # scheduling.x-k8s.io and the scheduling.k8s.io PodGroup of 1.36 on): the first
        # registered is the name's default
        self._by_kind: dict[str, tuple[KindInfo, ...]] = {}
        self._by_class: dict[type, KindInfo] = {}
        for info in infos:
            self.register(info)

    def register(self, info: KindInfo) -> KindInfo:
        """Add a kind; :func:`~schedframe.load_manifests`, :func:`~schedframe.object_from_manifest`
        and :func:`~schedframe.object_to_manifest` handle it from then on. A kind name already
        registered in another API group is added beside it (the apiVersion chooses).

        Raises:
            DuplicateKindError: the kind is already registered in the same API group, or its
                value class is already registered.
            TypeError: *info* is not a :class:`~schedframe.api.KindInfo`.
        """
        if not isinstance(info, KindInfo):
            raise TypeError(f"KindRegistry.register() argument 'info' must be a KindInfo, "
                            f"got {type(info).__name__}")
        with self._lock:
            same_name = self._by_kind.get(info.kind, ())
            groups = {_group_of(v) for v in info.api_versions}
            for old in same_name:
                if groups & {_group_of(v) for v in old.api_versions}:
                    raise DuplicateKindError(f"kind {info.kind!r} is already registered "
                                             f"({old.api_versions[0]}, {old.cls.__qualname__})")
            existing = self._by_class.get(info.cls)
            if existing is not None:
                raise DuplicateKindError(f"class {info.cls.__qualname__} is already registered "
                                         f"as kind {existing.kind!r}")
            self._by_kind[info.kind] = (*same_name, info)
            self._by_class[info.cls] = info
        return info

    def by_kind(self, kind: str, api_version: str | None = None) -> KindInfo | None:
        """The record of *kind* (``"Pod"``), or ``None``. Where the name is registered in several
        API groups, *api_version*'s group chooses (without it, or when no group matches, the
        first registered)."""
        infos = self._by_kind.get(kind)
        if not infos:
            return None
        if len(infos) > 1 and isinstance(api_version, str):
            group = _group_of(api_version)
            for info in infos:
                if any(_group_of(v) == group for v in info.api_versions):
                    return info
        return infos[0]

    def all_of_kind(self, kind: str) -> tuple[KindInfo, ...]:
        """Every record of the kind name *kind* (one per API group)."""
        return self._by_kind.get(kind, ())

    def by_class(self, cls: type) -> KindInfo | None:
        """The record whose value class is exactly *cls*, or ``None``."""
        return self._by_class.get(cls)

    def kinds(self) -> tuple[str, ...]:
        """The registered kind names, in registration order."""
        return tuple(self._by_kind)

    def cluster_scoped(self) -> frozenset[str]:
        """The kinds whose objects are not namespaced."""
        return frozenset(k for k, infos in self._by_kind.items() if not infos[0].namespaced)

    def _all(self) -> tuple[KindInfo, ...]:
        return tuple(self._by_class.values())

    def ranked(self) -> list[KindInfo]:
        """The records by :attr:`schedframe.api.KindInfo.rank` (registration order among equal ranks)."""
        return sorted(self._all(), key=lambda info: info.rank)

    def __iter__(self) -> Iterator[KindInfo]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._by_class)

    def __contains__(self, kind: object) -> bool:
        return kind in self._by_kind

    def __repr__(self) -> str:
        return f"KindRegistry({', '.join(self._by_kind)})"


#: The registry of the kinds schedframe reads (the built-in ones in the order
#: :data:`~schedframe.SUPPORTED_KINDS` lists them).
KINDS: Final = KindRegistry((
    KindInfo("Pod", "v1", "pods", True, Pod, _pod._pod, _pod.pod_to_manifest,
             watched=True, required=True, rank=1000),
    KindInfo("Node", "v1", "nodes", False, Node, _core._node, _core.node_to_manifest,
             watched=True, required=True, rank=30),
    KindInfo("Namespace", "v1", "namespaces", False, Namespace, _core._namespace_obj, _core._namespace_out,
             watched=True, rank=10),
    KindInfo("Service", "v1", "services", True, Service, _core._service, _core._service_out,
             watched=True, rank=130),
    KindInfo("ReplicationController", "v1", "replicationcontrollers", True, ReplicationController,
             _workload_io._replication_controller, _workload_io._replication_controller_out,
             watched=True, rank=220),
    KindInfo("ReplicaSet", "apps/v1", "replicasets", True, ReplicaSet,
             _workload_io._replica_set, _workload_io._replica_set_out, watched=True, rank=170),
    KindInfo("StatefulSet", "apps/v1", "statefulsets", True, StatefulSet,
             _workload_io._stateful_set, _workload_io._stateful_set_out, watched=True, rank=180),
    KindInfo("Deployment", "apps/v1", "deployments", True, Deployment,
             _workload_io._deployment, _workload_io._deployment_out, rank=160),
    KindInfo("DaemonSet", "apps/v1", "daemonsets", True, DaemonSet,
             _workload_io._daemon_set, _workload_io._daemon_set_out, rank=190),
    KindInfo("Job", "batch/v1", "jobs", True, Job, _workload_io._job, _workload_io._job_out, rank=210),
    KindInfo("CronJob", "batch/v1", "cronjobs", True, CronJob,
             _old("CronJob", _workload_io._cron_job), _workload_io._cron_job_out, rank=200),
    KindInfo("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", True, PodDisruptionBudget,
             _old("PodDisruptionBudget", _core._pdb), _core._pdb_out, watched=True, rank=140),
    KindInfo("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses", False, PriorityClass,
             _old("PriorityClass", _core._priority_class), _core._priority_class_out, rank=20),
    KindInfo("PodGroup", _core.POD_GROUP_API_VERSIONS, "podgroups", True, PodGroup,
             _core.pod_group_from_manifest, _core._pod_group_out, watched=True, rank=150),
    KindInfo("ElasticQuota", _elasticquota._API_VERSIONS, "elasticquotas", True, ElasticQuota,
             _elasticquota.elastic_quota_from_manifest, _elasticquota.elastic_quota_to_manifest,
             watched=True, rank=155),
    KindInfo("NodeResourceTopology", _nrt.NODE_RESOURCE_TOPOLOGY_API_VERSION, "noderesourcetopologies", False,
             NodeResourceTopology, _nrt.node_resource_topology_from_manifest,
             _nrt.node_resource_topology_to_manifest, watched=True, rank=35),
    KindInfo("AppGroup", _networkaware.APP_GROUP_API_VERSION, "appgroups", True, AppGroup,
             _networkaware.app_group_from_manifest, _networkaware.app_group_to_manifest,
             watched=True, rank=156),
    KindInfo("NetworkTopology", _networkaware.NETWORK_TOPOLOGY_API_VERSION, "networktopologies", True,
             NetworkTopology, _networkaware.network_topology_from_manifest,
             _networkaware.network_topology_to_manifest, watched=True, rank=157),
    KindInfo("ResourceClaim", RESOURCE_API_VERSION, "resourceclaims", True, ResourceClaim,
             _resource.resource_claim_from_manifest, _resource._claim_out, watched=True, rank=120),
    KindInfo("ResourceClaimTemplate", RESOURCE_API_VERSION, "resourceclaimtemplates", True,
             ResourceClaimTemplate, _resource.resource_claim_template_from_manifest, _resource._template_out,
             rank=110),
    KindInfo("DeviceClass", RESOURCE_API_VERSION, "deviceclasses", False, DeviceClass,
             _resource.device_class_from_manifest, _resource._class_out, watched=True, rank=90),
    KindInfo("ResourceSlice", RESOURCE_API_VERSION, "resourceslices", False, ResourceSlice,
             _resource.resource_slice_from_manifest, _resource._slice_out, watched=True, rank=100),
    KindInfo("PersistentVolume", "v1", "persistentvolumes", False, PersistentVolume,
             _storage._persistent_volume, _storage._persistent_volume_out, watched=True, rank=70),
    KindInfo("PersistentVolumeClaim", "v1", "persistentvolumeclaims", True, PersistentVolumeClaim,
             _storage._persistent_volume_claim, _storage._persistent_volume_claim_out, watched=True, rank=80),
    KindInfo("StorageClass", _storage._STORAGE_API, "storageclasses", False, StorageClass,
             _old("StorageClass", _storage._storage_class), _storage._storage_class_out, watched=True,
             rank=40),
    KindInfo("CSINode", _storage._STORAGE_API, "csinodes", False, CSINode,
             _old("CSINode", _storage._csi_node), _storage._csi_node_out, watched=True, rank=60),
    KindInfo("CSIDriver", _storage._STORAGE_API, "csidrivers", False, CSIDriver,
             _old("CSIDriver", _storage._csi_driver), _storage._csi_driver_out, watched=True, rank=50),
    KindInfo("VolumeAttachment", VOLUME_ATTACHMENT_API_VERSION, "volumeattachments", False, VolumeAttachment,
             _va_in, _va_out, watched=True, rank=75),
    KindInfo("Workload", _sw.WORKLOAD_API_VERSIONS, "workloads", True, Workload, _sw.workload_from_manifest,
             _sw.workload_to_manifest, watched=True, rank=155),
    KindInfo("CompositePodGroup", _sw.COMPOSITE_POD_GROUP_API_VERSIONS, "compositepodgroups", True,
             CompositePodGroup, _sw.composite_pod_group_from_manifest, _sw.composite_pod_group_to_manifest,
             watched=True, rank=158),
    KindInfo("PodGroup", _sw.SCHEDULING_POD_GROUP_API_VERSIONS, "podgroups", True, SchedulingPodGroup,
             _sw.scheduling_pod_group_from_manifest, _sw.scheduling_pod_group_to_manifest,
             watched=True, rank=159),
))
