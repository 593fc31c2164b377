"""Small constructors shared by the volume plugin tests (upstream's ``st.MakePod().PVC(...)``)."""

from __future__ import annotations

from collections.abc import Iterable

from schedframe import Pod
from schedframe.api import (
    CSIVolumeSource,
    EphemeralVolumeSource,
    OwnerReference,
    PersistentVolumeClaimVolumeSource,
    Volume,
)


def pvc_volume(claim: str, name: str = "") -> Volume:
    """A ``persistentVolumeClaim`` volume."""
    return Volume(name=name or claim, persistent_volume_claim=PersistentVolumeClaimVolumeSource(claim))


def ephemeral_volume(name: str) -> Volume:
    """A generic ephemeral volume (its claim is ``<pod>-<name>``)."""
    return Volume(name=name, ephemeral=EphemeralVolumeSource())


def csi_volume(name: str, driver: str) -> Volume:
    """An inline CSI volume."""
    return Volume(name=name, csi=CSIVolumeSource(driver=driver))


def pod_with(name: str, *volumes: Volume, namespace: str = "default", node: str = "") -> Pod:
    """A pod with *volumes*."""
    return Pod(name=name, namespace=namespace, node_name=node, volumes=volumes)


def pod_with_pvcs(name: str, claims: Iterable[str], *, namespace: str = "default", node: str = "") -> Pod:
    """A pod with one ``persistentVolumeClaim`` volume per claim."""
    return pod_with(name, *(pvc_volume(c) for c in claims), namespace=namespace, node=node)


def owned_by(pod: Pod) -> tuple[OwnerReference, ...]:
    """Owner references making *pod* a claim's controller."""
    return (OwnerReference(kind="Pod", name=pod.name, uid=pod.uid, api_version="v1", controller=True),)
