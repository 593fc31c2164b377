"""Storage objects the volume plugins read: PersistentVolume, PersistentVolumeClaim (``v1``),
StorageClass, CSINode and CSIDriver (``storage.k8s.io/v1``), and their manifests in and out.

The objects follow the Kubernetes API in snake_case, flattened out of ``metadata`` / ``spec`` /
``status`` like the rest of :mod:`schedframe.api`; the fields are the ones kube-scheduler's
VolumeBinding, VolumeRestrictions, VolumeZone and NodeVolumeLimits plugins read.

Reading applies the API server's defaults (a StorageClass's ``volumeBindingMode`` is
``Immediate``, its ``reclaimPolicy`` ``Delete``; a CSIDriver requires attach) and validates the
enumerations the API validates. Two defaults stand in for the controllers schedframe does not
run: a PersistentVolume without ``status.phase`` reads as ``Available`` (the PV controller's first
step), a PersistentVolumeClaim without one as ``Pending``.

This module also reads and writes a pod's ``spec.volumes`` (:func:`volumes_from_manifest`,
:func:`volumes_to_manifest`), which the Pod reader and writer call.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias, final

import attrs

from ._fields import (
    _BOOL,
    _FROZEN,
    _INT,
    _REQUIRED_STR,
    _REQUIRED_STR_LIST,
    _STR,
    _STR_LIST,
    _STR_MAP,
    _STR_OR_DEFAULT,
    _bool,
    _check_top,
    _child,
    _Codec,
    _deep_freeze,
    _enum,
    _fail,
    _Field,
    _given_uid,
    _int,
    _items,
    _items_kind,
    _label_selector,
    _label_selector_out,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _node_selector_term,
    _node_selector_term_out,
    _opt_time_out,
    _owner_reference,
    _owner_reference_out,
    _quantities,
    _quantities_out,
    _required_str,
    _show,
    _str,
    _str_list,
    _str_map,
    _time,
    _top_parts,
)
from .frozendict import FrozenDict, freeze, thaw
from .frozendict import as_tuple as _tuple
from .objects import (
    AWSElasticBlockStoreVolumeSource,
    CSIVolumeSource,
    EphemeralVolumeSource,
    GCEPersistentDiskVolumeSource,
    ISCSIVolumeSource,
    LabelSelector,
    NodeSelector,
    OwnerReference,
    PersistentVolumeClaimVolumeSource,
    RBDVolumeSource,
    Volume,
)
from .quantity import Quantity

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_CLASS",
    "ANN_MIGRATED_PLUGINS",
    "NOT_SUPPORTED_PROVISIONER",
    "CSIDriver",
    "CSINode",
    "CSINodeDriver",
    "CSIPersistentVolumeSource",
    "ObjectReference",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "StorageObject",
    "TopologySelectorRequirement",
    "TopologySelectorTerm",
    "volumes_from_manifest",
    "volumes_to_manifest",
]

#: PVC annotation: the PV controller finished binding (``pv.kubernetes.io/bind-completed``).
ANN_BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
#: PV/PVC annotation: the binding was made by a controller, not pre-bound by the user.
ANN_BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
#: PVC annotation the scheduler sets to trigger provisioning on the chosen node.
ANN_SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
#: The beta storage-class annotation, which wins over ``storageClassName`` (as upstream).
ANN_STORAGE_CLASS: Final = "volume.beta.kubernetes.io/storage-class"
#: CSINode annotation listing the in-tree plugins migrated to CSI on the node.
ANN_MIGRATED_PLUGINS: Final = "storage.alpha.kubernetes.io/migrated-plugins"
#: A provisioner name that means "no dynamic provisioning".
NOT_SUPPORTED_PROVISIONER: Final = "kubernetes.io/no-provisioner"

_STORAGE_API: Final = "storage.k8s.io/v1"
_ACCESS_MODES: Final = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
_VOLUME_MODES: Final = ("Filesystem", "Block")
_PV_PHASES: Final = ("Pending", "Available", "Bound", "Released", "Failed")
_PVC_PHASES: Final = ("Pending", "Bound", "Lost")
_RECLAIM_POLICIES: Final = ("Retain", "Delete", "Recycle")
_BINDING_MODES: Final = ("Immediate", "WaitForFirstConsumer")
_NS_UID: Final = uuid.UUID("6f1d2e8a-3c55-4b59-9d1e-5c0de5c4ed01")


def _strs(value: Mapping[str, str] | None) -> FrozenDict[str, str]:
    return freeze(value)


def _qmap(value: Mapping[str, Quantity | str | int] | None) -> FrozenDict[str, Quantity]:
    if not value:
        return freeze(None)
    return FrozenDict({k: v if isinstance(v, Quantity) else Quantity.parse(v) for k, v in value.items()})


def _storage_of(resources: Mapping[str, Quantity]) -> int:
    q = resources.get("storage")
    return q.value() if q is not None else 0


# --------------------------------------------------------------------------------------------
# Objects


@final
@attrs.frozen
class ObjectReference:
    """A reference to another object (a PersistentVolume's ``spec.claimRef``)."""

    __module__ = "schedframe.api"

    name: str
    namespace: str = ""
    uid: str = ""
    kind: str = ""
    api_version: str = ""


@final
@attrs.frozen
class CSIPersistentVolumeSource:
    """A PersistentVolume's ``spec.csi``: the driver and the volume's handle in it."""

    __module__ = "schedframe.api"

    driver: str
    volume_handle: str
    read_only: bool = False
    fs_type: str = ""


def _pv_uid(pv: PersistentVolume) -> str:
    return str(uuid.uuid5(_NS_UID, f"persistentvolume/{pv.name}"))


@final
@attrs.frozen
class PersistentVolume:
    """A v1 PersistentVolume.

    ``storage_class_name`` is ``""`` for a PV of no class; :meth:`storage_class` also honours
    the beta annotation. ``node_affinity`` is ``spec.nodeAffinity.required``. The volume source
    the scheduler reads (``csi``, ``gce_persistent_disk``, ``aws_elastic_block_store``) is
    typed, any other kept as ``other_source`` / ``other_spec``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    uid: str = attrs.field(default=attrs.Factory(_pv_uid, takes_self=True))
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    deletion_timestamp: float | None = None
    capacity: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_qmap)
    access_modes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    storage_class_name: str = ""
    volume_mode: str | None = None
    claim_ref: ObjectReference | None = None
    node_affinity: NodeSelector | None = None
    persistent_volume_reclaim_policy: str = ""
    csi: CSIPersistentVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    other_source: str = ""
    other_spec: FrozenDict[str, Any] = attrs.field(factory=dict, converter=freeze)
    phase: str = "Available"

    @property
    def storage(self) -> int:
        """``spec.capacity.storage`` in bytes (0 when absent)."""
        return _storage_of(self.capacity)

    def storage_class(self) -> str:
        """Upstream ``GetPersistentVolumeClass``: the beta annotation, else ``storageClassName``."""
        ann = self.annotations.get(ANN_STORAGE_CLASS)
        return ann if ann is not None else self.storage_class_name

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> PersistentVolume:
        """Read a v1 PersistentVolume manifest; raises :class:`~schedframe.ManifestError`."""
        return _persistent_volume(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This PersistentVolume as a v1 manifest."""
        return _persistent_volume_out(self)

    def evolve(self, **changes: Any) -> Self:
        """A copy with *changes* applied (``attrs.evolve``)."""
        return attrs.evolve(self, **changes)


def _pvc_uid(pvc: PersistentVolumeClaim) -> str:
    return str(uuid.uuid5(_NS_UID, f"persistentvolumeclaim/{pvc.namespace}/{pvc.name}"))


@final
@attrs.frozen
class PersistentVolumeClaim:
    """A v1 PersistentVolumeClaim.

    ``storage_class_name`` ``None`` is an unset ``spec.storageClassName`` (no class, unless the
    beta annotation names one); ``volume_name`` is the PV it is bound (or pre-bound) to.
    ``requests`` is ``spec.resources.requests`` (``storage``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    uid: str = attrs.field(default=attrs.Factory(_pvc_uid, takes_self=True))
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_tuple)
    deletion_timestamp: float | None = None
    access_modes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    selector: LabelSelector | None = None
    requests: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_qmap)
    storage_class_name: str | None = None
    volume_name: str = ""
    volume_mode: str | None = None
    phase: str = "Pending"

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @property
    def storage(self) -> int:
        """``spec.resources.requests.storage`` in bytes (0 when absent)."""
        return _storage_of(self.requests)

    def storage_class(self) -> str:
        """Upstream ``GetPersistentVolumeClaimClass``: the beta annotation, else
        ``storageClassName``, else ``""``."""
        ann = self.annotations.get(ANN_STORAGE_CLASS)
        if ann is not None:
            return ann
        return self.storage_class_name or ""

    def is_fully_bound(self) -> bool:
        """Bound to a PV and marked bind-completed (upstream ``isPVCFullyBound``)."""
        return bool(self.volume_name) and ANN_BIND_COMPLETED in self.annotations

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> PersistentVolumeClaim:
        """Read a v1 PersistentVolumeClaim manifest; raises :class:`~schedframe.ManifestError`."""
        return _persistent_volume_claim(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This PersistentVolumeClaim as a v1 manifest."""
        return _persistent_volume_claim_out(self)

    def evolve(self, **changes: Any) -> Self:
        """A copy with *changes* applied (``attrs.evolve``)."""
        return attrs.evolve(self, **changes)


@final
@attrs.frozen
class TopologySelectorRequirement:
    """One ``matchLabelExpressions`` entry of an allowed topology: *key* in *values*."""

    __module__ = "schedframe.api"

    key: str
    values: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class TopologySelectorTerm:
    """An allowed-topology term: its requirements ANDed (an empty term matches nothing)."""

    __module__ = "schedframe.api"

    match_label_expressions: tuple[TopologySelectorRequirement, ...] = attrs.field(
        default=(), converter=_tuple)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Upstream ``TopologySelectorRequirementsAsSelector(...).Matches``: every key present
        with one of its values; an empty term, or a requirement without values, matches
        nothing."""
        if not self.match_label_expressions:
            return False
        for req in self.match_label_expressions:
            if not req.values:
                return False
            v = labels.get(req.key)
            if v is None or v not in req.values:
                return False
        return True


@final
@attrs.frozen
class StorageClass:
    """A storage.k8s.io/v1 StorageClass.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    provisioner: str
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    parameters: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    reclaim_policy: str = "Delete"
    volume_binding_mode: str | None = "Immediate"
    allowed_topologies: tuple[TopologySelectorTerm, ...] = attrs.field(default=(), converter=_tuple)
    allow_volume_expansion: bool | None = None

    def matches_topology(self, labels: Mapping[str, str]) -> bool:
        """Upstream ``MatchTopologySelectorTerms``: no terms match every node, otherwise one
        term must match the node's labels."""
        if not self.allowed_topologies:
            return True
        return any(term.matches(labels) for term in self.allowed_topologies)

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> StorageClass:
        """Read a storage.k8s.io/v1 StorageClass manifest."""
        return _storage_class(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This StorageClass as a manifest."""
        return _storage_class_out(self)


@final
@attrs.frozen
class CSINodeDriver:
    """One driver of a CSINode: its name, node ID, topology keys and the number of volumes
    it can attach on the node (``allocatable.count``; ``None``: unlimited)."""

    __module__ = "schedframe.api"

    name: str
    node_id: str = ""
    topology_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    allocatable_count: int | None = None


@final
@attrs.frozen
class CSINode:
    """A storage.k8s.io/v1 CSINode: the CSI drivers on the node of the same name.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_strs)
    drivers: tuple[CSINodeDriver, ...] = attrs.field(default=(), converter=_tuple)

    def migrated_plugins(self) -> frozenset[str]:
        """The in-tree plugins migrated to CSI on the node (the annotation, comma-separated)."""
        value = self.annotations.get(ANN_MIGRATED_PLUGINS, "")
        return frozenset(value.split(",")) if value else frozenset()

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> CSINode:
        """Read a storage.k8s.io/v1 CSINode manifest."""
        return _csi_node(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This CSINode as a manifest."""
        return _csi_node_out(self)


@final
@attrs.frozen
class CSIDriver:
    """A storage.k8s.io/v1 CSIDriver (what the scheduler reads of it).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    attach_required: bool = True
    storage_capacity: bool = False
    pod_info_on_mount: bool = False
    volume_lifecycle_modes: tuple[str, ...] = attrs.field(default=("Persistent",), converter=_tuple)

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> CSIDriver:
        """Read a storage.k8s.io/v1 CSIDriver manifest."""
        return _csi_driver(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This CSIDriver as a manifest."""
        return _csi_driver_out(self)


#: Any storage object this module reads.
StorageObject: TypeAlias = PersistentVolume | PersistentVolumeClaim | StorageClass | CSINode | CSIDriver


# --------------------------------------------------------------------------------------------
# Volume sources


_FS_TYPE: Final = _Field("fsType", "fs_type", _STR)
_READ_ONLY: Final = _Field("readOnly", "read_only", _BOOL)

#: The pod volume sources schedframe types, by their field in a volume: the attribute of
#: :class:`Volume` holding one and its codec, in the order the writer checks them.
_SOURCES: Final[dict[str, tuple[str, _Codec[Any]]]] = {
    "persistentVolumeClaim": ("persistent_volume_claim", _Codec(PersistentVolumeClaimVolumeSource, (
        _Field("claimName", "claim_name", _REQUIRED_STR), _READ_ONLY))),
    "ephemeral": ("ephemeral", _Codec(EphemeralVolumeSource, (
        _Field("volumeClaimTemplate", "volume_claim_template", _FROZEN),))),
    "csi": ("csi", _Codec(CSIVolumeSource, (
        _Field("driver", "driver", _REQUIRED_STR), _READ_ONLY, _FS_TYPE,
        _Field("volumeAttributes", "volume_attributes", _STR_MAP)))),
    "gcePersistentDisk": ("gce_persistent_disk", _Codec(GCEPersistentDiskVolumeSource, (
        _Field("pdName", "pd_name", _REQUIRED_STR), _FS_TYPE, _Field("partition", "partition", _INT),
        _READ_ONLY))),
    "awsElasticBlockStore": ("aws_elastic_block_store", _Codec(AWSElasticBlockStoreVolumeSource, (
        _Field("volumeID", "volume_id", _REQUIRED_STR), _FS_TYPE, _Field("partition", "partition", _INT),
        _READ_ONLY))),
    "rbd": ("rbd", _Codec(RBDVolumeSource, (
        _Field("monitors", "monitors", _REQUIRED_STR_LIST), _Field("image", "image", _REQUIRED_STR),
        _Field("pool", "pool", _STR_OR_DEFAULT, always=True), _FS_TYPE,
        _Field("user", "user", _STR_OR_DEFAULT, always=True), _READ_ONLY),
        written=("monitors", "image", "pool", "user", "fsType", "readOnly"))),
    "iscsi": ("iscsi", _Codec(ISCSIVolumeSource, (
        _Field("targetPortal", "target_portal", _REQUIRED_STR), _Field("iqn", "iqn", _REQUIRED_STR),
        _Field("lun", "lun", _INT, always=True), _FS_TYPE, _READ_ONLY))),
}

#: The sources a PersistentVolume's spec may have typed: its own CSI source, and the in-tree disks
#: of pod volumes.
_PV_SOURCES: Final[dict[str, tuple[str, _Codec[Any]]]] = {
    "csi": ("csi", _Codec(CSIPersistentVolumeSource, (
        _Field("driver", "driver", _REQUIRED_STR), _Field("volumeHandle", "volume_handle", _REQUIRED_STR),
        _READ_ONLY, _FS_TYPE))),
    "gcePersistentDisk": _SOURCES["gcePersistentDisk"],
    "awsElasticBlockStore": _SOURCES["awsElasticBlockStore"],
}


def _source(sources: Mapping[str, tuple[str, _Codec[Any]]], key: str, raw: Any, path: str) -> dict[str, Any]:
    """The keyword arguments of the volume source *key* (its value *raw* at *path*): the typed
    one of *sources*, else ``other_source`` and ``other_spec``."""
    typed = sources.get(key)
    if typed is not None:
        attr, codec = typed
        return {attr: codec.read(raw, path)}
    return {"other_source": key, "other_spec": _deep_freeze(_mapping(raw, path), path)}


def _source_out(sources: Mapping[str, tuple[str, _Codec[Any]]], obj: Volume | PersistentVolume,
                out: dict[str, Any]) -> None:
    """Write the volume source of *obj* (a typed one of *sources*, else its other source) to *out*."""
    for key, (attr, codec) in sources.items():
        s = getattr(obj, attr)
        if s is not None:
            out[key] = codec.write(s)
            return
    if obj.other_source:
        out[obj.other_source] = thaw(obj.other_spec)


def _volume(value: Any, path: str) -> Volume:
    m = _mapping(value, path)
    name = _required_str(m, "name", path)
    sources = [k for k, v in m.items() if k != "name" and v is not None]
    for k in sources:
        if not isinstance(k, str):
            _fail(path, f"keys must be strings, got {_show(k)}")
    if len(sources) > 1:
        _fail(path, f"may specify only one volume source, got {', '.join(sorted(sources))}")
    kw: dict[str, Any] = {}
    if sources:
        key = sources[0]
        kw = _source(_SOURCES, key, m[key], _child(path, key))
    return Volume(name=name, **kw)


def volumes_from_manifest(value: Any, path: str) -> tuple[Volume, ...]:
    """Read a pod's ``spec.volumes`` list (*path* names it in errors).

    Raises:
        ManifestError: for a malformed volume, or one with more than one source.
    """
    vols = _items(value, path, _volume)
    seen: set[str] = set()
    for i, v in enumerate(vols):
        if v.name in seen:
            _fail(f"{path}[{i}].name", f"Duplicate value: {v.name!r}")
        seen.add(v.name)
    return vols


def _volume_out(v: Volume) -> dict[str, Any]:
    out: dict[str, Any] = {"name": v.name}
    _source_out(_SOURCES, v, out)
    return out


def volumes_to_manifest(volumes: Iterable[Volume]) -> list[dict[str, Any]]:
    """A pod's volumes as the ``spec.volumes`` list."""
    return [_volume_out(v) for v in volumes]


# --------------------------------------------------------------------------------------------
# PersistentVolume / PersistentVolumeClaim


def _access_modes(value: Any, path: str) -> tuple[str, ...]:
    modes = _str_list(value, path)
    for i, mode in enumerate(modes):
        _enum(mode, f"{path}[{i}]", _ACCESS_MODES)
    return modes


_CLAIM_REF: Final = _Codec(ObjectReference, (
    _Field("name", "name", _STR, always=True), _Field("namespace", "namespace", _STR),
    _Field("uid", "uid", _STR), _Field("kind", "kind", _STR), _Field("apiVersion", "api_version", _STR)),
    written=("apiVersion", "kind", "namespace", "name", "uid"))


def _claim_ref(value: Any, path: str) -> ObjectReference | None:
    return None if value is None else _CLAIM_REF.read(value, path)


def _pv_node_affinity(value: Any, path: str) -> NodeSelector | None:
    if value is None:
        return None
    m = _mapping(value, path)
    required = m.get("required")
    if required is None:
        return None
    p = f"{path}.required"
    rm = _mapping(required, p)
    return NodeSelector(_items(rm.get("nodeSelectorTerms"), f"{p}.nodeSelectorTerms", _node_selector_term))


_PV_SPEC_FIELDS: Final = frozenset({
    "capacity", "accessModes", "storageClassName", "volumeMode", "claimRef", "nodeAffinity",
    "persistentVolumeReclaimPolicy", "mountOptions", "volumeAttributesClassName",
})


def _persistent_volume(manifest: Any) -> PersistentVolume:
    meta, spec, status = _top_parts(manifest, "PersistentVolume", ("v1",))
    kw: dict[str, Any] = _given_uid(meta)
    sources = [k for k, v in spec.items() if k not in _PV_SPEC_FIELDS and v is not None]
    if len(sources) > 1:
        _fail("spec", f"may specify only one persistent volume source, got {', '.join(sorted(sources))}")
    if sources:
        key = sources[0]
        kw.update(_source(_PV_SOURCES, key, spec[key], _child("spec", key)))
    return PersistentVolume(
        name=_name(meta),
        labels=_str_map(meta.get("labels"), "metadata.labels"),
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
        deletion_timestamp=_time(meta.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        capacity=_quantities(spec.get("capacity"), "spec.capacity"),
        access_modes=_access_modes(spec.get("accessModes"), "spec.accessModes"),
        storage_class_name=_str(spec.get("storageClassName"), "spec.storageClassName"),
        volume_mode=_enum(spec.get("volumeMode"), "spec.volumeMode", _VOLUME_MODES),
        claim_ref=_claim_ref(spec.get("claimRef"), "spec.claimRef"),
        node_affinity=_pv_node_affinity(spec.get("nodeAffinity"), "spec.nodeAffinity"),
        persistent_volume_reclaim_policy=_enum(spec.get("persistentVolumeReclaimPolicy"),
                                               "spec.persistentVolumeReclaimPolicy", _RECLAIM_POLICIES) or "",
        phase=_enum(status.get("phase"), "status.phase", _PV_PHASES) or "Available",
        **kw,
    )


def _persistent_volume_out(pv: PersistentVolume) -> dict[str, Any]:
    meta = _meta_out(pv.name, uid=pv.uid if pv.uid != _pv_uid(pv) else "", labels=dict(pv.labels),
                     annotations=dict(pv.annotations),
                     deletionTimestamp=_opt_time_out(pv.deletion_timestamp, "metadata.deletionTimestamp"))
    spec: dict[str, Any] = {}
    if pv.capacity:
        spec["capacity"] = _quantities_out(pv.capacity)
    if pv.access_modes:
        spec["accessModes"] = list(pv.access_modes)
    if pv.storage_class_name:
        spec["storageClassName"] = pv.storage_class_name
    if pv.volume_mode is not None:
        spec["volumeMode"] = pv.volume_mode
    if pv.claim_ref is not None:
        spec["claimRef"] = _CLAIM_REF.write(pv.claim_ref)
    if pv.node_affinity is not None:
        spec["nodeAffinity"] = {"required": {
            "nodeSelectorTerms": [_node_selector_term_out(t) for t in pv.node_affinity.terms]}}
    if pv.persistent_volume_reclaim_policy:
        spec["persistentVolumeReclaimPolicy"] = pv.persistent_volume_reclaim_policy
    _source_out(_PV_SOURCES, pv, spec)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec,
            "status": {"phase": pv.phase}}


def _persistent_volume_claim(manifest: Any) -> PersistentVolumeClaim:
    meta, spec, status = _top_parts(manifest, "PersistentVolumeClaim", ("v1",))
    resources = _mapping(spec.get("resources"), "spec.resources")
    kw: dict[str, Any] = _given_uid(meta)
    sc = spec.get("storageClassName")
    return PersistentVolumeClaim(
        name=_name(meta),
        namespace=_namespace(meta),
        labels=_str_map(meta.get("labels"), "metadata.labels"),
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
        owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences", _owner_reference),
        deletion_timestamp=_time(meta.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        access_modes=_access_modes(spec.get("accessModes"), "spec.accessModes"),
        selector=_label_selector(spec.get("selector"), "spec.selector"),
        requests=_quantities(resources.get("requests"), "spec.resources.requests"),
        storage_class_name=None if sc is None else _str(sc, "spec.storageClassName"),
        volume_name=_str(spec.get("volumeName"), "spec.volumeName"),
        volume_mode=_enum(spec.get("volumeMode"), "spec.volumeMode", _VOLUME_MODES),
        phase=_enum(status.get("phase"), "status.phase", _PVC_PHASES) or "Pending",
        **kw,
    )


def _persistent_volume_claim_out(pvc: PersistentVolumeClaim) -> dict[str, Any]:
    meta = _meta_out(pvc.name, pvc.namespace, uid=pvc.uid if pvc.uid != _pvc_uid(pvc) else "",
                     labels=dict(pvc.labels), annotations=dict(pvc.annotations),
                     ownerReferences=[_owner_reference_out(o) for o in pvc.owner_references],
                     deletionTimestamp=_opt_time_out(pvc.deletion_timestamp, "metadata.deletionTimestamp"))
    spec: dict[str, Any] = {}
    if pvc.access_modes:
        spec["accessModes"] = list(pvc.access_modes)
    if pvc.selector is not None:
        spec["selector"] = _label_selector_out(pvc.selector)
    if pvc.requests:
        spec["resources"] = {"requests": _quantities_out(pvc.requests)}
    if pvc.storage_class_name is not None:
        spec["storageClassName"] = pvc.storage_class_name
    if pvc.volume_name:
        spec["volumeName"] = pvc.volume_name
    if pvc.volume_mode is not None:
        spec["volumeMode"] = pvc.volume_mode
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": pvc.phase}}


# --------------------------------------------------------------------------------------------
# StorageClass, CSINode, CSIDriver


_TOPOLOGY_REQUIREMENT: Final = _Codec(TopologySelectorRequirement, (
    _Field("key", "key", _REQUIRED_STR), _Field("values", "values", _STR_LIST, always=True)))
_TOPOLOGY_TERM: Final = _Codec(TopologySelectorTerm, (
    _Field("matchLabelExpressions", "match_label_expressions", _items_kind(_TOPOLOGY_REQUIREMENT),
           always=True),))


def _storage_class(manifest: Any) -> StorageClass:
    m = _check_top(manifest, "StorageClass", (_STORAGE_API,))
    meta = _mapping(m.get("metadata"), "metadata")
    expansion = m.get("allowVolumeExpansion")
    return StorageClass(
        name=_name(meta),
        provisioner=_required_str(m, "provisioner", ""),
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
        parameters=_str_map(m.get("parameters"), "parameters"),
        reclaim_policy=_enum(m.get("reclaimPolicy"), "reclaimPolicy", _RECLAIM_POLICIES) or "Delete",
        volume_binding_mode=_enum(m.get("volumeBindingMode"), "volumeBindingMode", _BINDING_MODES,
                                  "Immediate"),
        allowed_topologies=_items(m.get("allowedTopologies"), "allowedTopologies", _TOPOLOGY_TERM.read),
        allow_volume_expansion=None if expansion is None else _bool(expansion, "allowVolumeExpansion"),
    )


def _storage_class_out(sc: StorageClass) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": _STORAGE_API, "kind": "StorageClass",
                           "metadata": _meta_out(sc.name, annotations=dict(sc.annotations)),
                           "provisioner": sc.provisioner}
    if sc.parameters:
        out["parameters"] = dict(sc.parameters)
    out["reclaimPolicy"] = sc.reclaim_policy
    if sc.volume_binding_mode is not None:
        out["volumeBindingMode"] = sc.volume_binding_mode
    if sc.allowed_topologies:
        out["allowedTopologies"] = [_TOPOLOGY_TERM.write(t) for t in sc.allowed_topologies]
    if sc.allow_volume_expansion is not None:
        out["allowVolumeExpansion"] = sc.allow_volume_expansion
    return out


def _csi_node_driver(value: Any, path: str) -> CSINodeDriver:
    m = _mapping(value, path)
    allocatable = _mapping(m.get("allocatable"), f"{path}.allocatable")
    count = _int(allocatable.get("count"), f"{path}.allocatable.count")
    if count is not None and count < 0:
        _fail(f"{path}.allocatable.count", f"must be greater than or equal to 0, got {count}")
    return CSINodeDriver(
        name=_required_str(m, "name", path), node_id=_str(m.get("nodeID"), f"{path}.nodeID"),
        topology_keys=_str_list(m.get("topologyKeys"), f"{path}.topologyKeys"), allocatable_count=count)


def _csi_node(manifest: Any) -> CSINode:
    m = _check_top(manifest, "CSINode", (_STORAGE_API,))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    return CSINode(name=_name(meta), annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
                   drivers=_items(spec.get("drivers"), "spec.drivers", _csi_node_driver))


def _csi_node_out(node: CSINode) -> dict[str, Any]:
    drivers = []
    for d in node.drivers:
        out: dict[str, Any] = {"name": d.name, "nodeID": d.node_id}
        if d.topology_keys:
            out["topologyKeys"] = list(d.topology_keys)
        if d.allocatable_count is not None:
            out["allocatable"] = {"count": d.allocatable_count}
        drivers.append(out)
    return {"apiVersion": _STORAGE_API, "kind": "CSINode",
            "metadata": _meta_out(node.name, annotations=dict(node.annotations)),
            "spec": {"drivers": drivers}}


def _optional_bool(m: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
    value = m.get(key)
    return default if value is None else _bool(value, _child(path, key))


def _csi_driver(manifest: Any) -> CSIDriver:
    m = _check_top(manifest, "CSIDriver", (_STORAGE_API,))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    modes = _str_list(spec.get("volumeLifecycleModes"), "spec.volumeLifecycleModes")
    for i, mode in enumerate(modes):
        _enum(mode, f"spec.volumeLifecycleModes[{i}]", ("Persistent", "Ephemeral"))
    return CSIDriver(
        name=_name(meta),
        attach_required=_optional_bool(spec, "attachRequired", "spec", True),
        storage_capacity=_optional_bool(spec, "storageCapacity", "spec", False),
        pod_info_on_mount=_optional_bool(spec, "podInfoOnMount", "spec", False),
        volume_lifecycle_modes=modes or ("Persistent",),
    )


def _csi_driver_out(d: CSIDriver) -> dict[str, Any]:
    return {"apiVersion": _STORAGE_API, "kind": "CSIDriver", "metadata": _meta_out(d.name),
            "spec": {"attachRequired": d.attach_required, "storageCapacity": d.storage_capacity,
                     "podInfoOnMount": d.pod_info_on_mount,
                     "volumeLifecycleModes": list(d.volume_lifecycle_modes)}}
