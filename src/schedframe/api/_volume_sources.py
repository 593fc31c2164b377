"""A pod's volumes: the sources the volume plugins read (PersistentVolumeClaim, generic ephemeral,
CSI, and the in-tree disks whose attach limits and zones are checked); other sources are kept
generically. Re-exported by :mod:`schedframe.api.objects`; imports only ``frozendict``."""

from __future__ import annotations

from typing import Any, final

import attrs

from .frozendict import FrozenDict, freeze, str_map
from .frozendict import as_tuple as _tuple

__all__ = [
    "AWSElasticBlockStoreVolumeSource",
    "CSIVolumeSource",
    "EphemeralVolumeSource",
    "GCEPersistentDiskVolumeSource",
    "ISCSIVolumeSource",
    "PersistentVolumeClaimVolumeSource",
    "RBDVolumeSource",
    "Volume",
]


@final
@attrs.frozen
class PersistentVolumeClaimVolumeSource:
    """A pod volume backed by a PersistentVolumeClaim of the pod's namespace."""

    __module__ = "schedframe.api"

    claim_name: str
    read_only: bool = False


@final
@attrs.frozen
class EphemeralVolumeSource:
    """A generic ephemeral volume: a PersistentVolumeClaim named ``<pod>-<volume>`` that the
    ephemeral volume controller creates from ``volumeClaimTemplate`` (kept as its manifest)."""

    __module__ = "schedframe.api"

    volume_claim_template: FrozenDict[str, Any] = attrs.field(factory=dict, converter=freeze)


@final
@attrs.frozen
class CSIVolumeSource:
    """An inline CSI volume (``csi``): attached through *driver*."""

    __module__ = "schedframe.api"

    driver: str
    read_only: bool = False
    fs_type: str = ""
    volume_attributes: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)


@final
@attrs.frozen
class GCEPersistentDiskVolumeSource:
    """A GCE persistent disk (``gcePersistentDisk``), also a PersistentVolume source."""

    __module__ = "schedframe.api"

    pd_name: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@final
@attrs.frozen
class AWSElasticBlockStoreVolumeSource:
    """An AWS EBS volume (``awsElasticBlockStore``), also a PersistentVolume source."""

    __module__ = "schedframe.api"

    volume_id: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@final
@attrs.frozen
class RBDVolumeSource:
    """A Ceph RBD image (``rbd``)."""

    __module__ = "schedframe.api"

    monitors: tuple[str, ...] = attrs.field(converter=_tuple)
    image: str
    pool: str = "rbd"
    fs_type: str = ""
    user: str = "admin"
    read_only: bool = False


@final
@attrs.frozen
class ISCSIVolumeSource:
    """An iSCSI disk (``iscsi``)."""

    __module__ = "schedframe.api"

    target_portal: str
    iqn: str
    lun: int = 0
    fs_type: str = ""
    read_only: bool = False


@final
@attrs.frozen
class Volume:
    """One ``spec.volumes`` entry of a pod: its name and source.

    The sources the scheduler reads are typed (``persistent_volume_claim``, ``ephemeral``,
    ``csi`` and the in-tree disks VolumeRestrictions compares); any other source (``hostPath``,
    ``emptyDir``, ``configMap``, ...) is kept as ``other_source`` (its field name) and
    ``other_spec`` (its manifest, deeply frozen), so manifests round-trip.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    csi: CSIVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    other_source: str = ""
    other_spec: FrozenDict[str, Any] = attrs.field(factory=dict, converter=freeze)

    def claim_name(self, pod_name: str) -> str | None:
        """The PersistentVolumeClaim this volume uses in a pod named *pod_name*: the claim of a
        ``persistentVolumeClaim`` volume, ``<pod>-<volume>`` for a generic ephemeral volume
        (upstream ``ephemeral.VolumeClaimName``), else ``None``."""
        if self.persistent_volume_claim is not None:
            return self.persistent_volume_claim.claim_name
        if self.ephemeral is not None:
            return f"{pod_name}-{self.name}"
        return None
