"""``storage.k8s.io/v1`` VolumeAttachment: a volume the attach/detach controller attaches to (or
is still detaching from) a node. NodeVolumeLimits counts them against the node's CSI attach
limits, as kube-scheduler does since kubernetes/kubernetes#127757, so the volume of a pod that was
just deleted keeps its slot until its attachment is gone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import _bool, _check_top, _mapping, _meta_out, _name, _required_str, _str

__all__ = ["VOLUME_ATTACHMENT_API_VERSION", "VolumeAttachment"]

#: The ``apiVersion`` of VolumeAttachment.
VOLUME_ATTACHMENT_API_VERSION: Final = "storage.k8s.io/v1"


@final
@attrs.frozen(kw_only=True)
class VolumeAttachment:
    """A storage.k8s.io/v1 VolumeAttachment (what the scheduler reads of it).

    Args:
        name: the object's name.
        attacher: ``spec.attacher``, the CSI driver attaching the volume.
        node_name: ``spec.nodeName``.
        persistent_volume_name: ``spec.source.persistentVolumeName`` (``""`` for an inline
            volume source, which the scheduler does not count).
        attached: ``status.attached``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    attacher: str
    node_name: str
    persistent_volume_name: str = ""
    attached: bool = False

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> VolumeAttachment:
        """Read a storage.k8s.io/v1 VolumeAttachment manifest."""
        return volume_attachment_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This VolumeAttachment as a manifest."""
        return volume_attachment_to_manifest(self)


def volume_attachment_from_manifest(manifest: Any) -> VolumeAttachment:
    """The reader of the kinds registry (errors name the field)."""
    m = _check_top(manifest, "VolumeAttachment", (VOLUME_ATTACHMENT_API_VERSION,))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    source = _mapping(spec.get("source"), "spec.source")
    status = _mapping(m.get("status"), "status")
    attached = status.get("attached")
    return VolumeAttachment(
        name=_name(meta),
        attacher=_required_str(spec, "attacher", "spec"),
        node_name=_required_str(spec, "nodeName", "spec"),
        persistent_volume_name=_str(source.get("persistentVolumeName"), "spec.source.persistentVolumeName"),
        attached=False if attached is None else _bool(attached, "status.attached"),
    )


def volume_attachment_to_manifest(va: VolumeAttachment) -> dict[str, Any]:
    """The writer of the kinds registry."""
    source = {"persistentVolumeName": va.persistent_volume_name} if va.persistent_volume_name else {}
    return {"apiVersion": VOLUME_ATTACHMENT_API_VERSION, "kind": "VolumeAttachment",
            "metadata": _meta_out(va.name),
            "spec": {"attacher": va.attacher, "nodeName": va.node_name, "source": source},
            "status": {"attached": va.attached}}
