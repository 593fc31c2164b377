"""The Workload API (``scheduling.k8s.io/v1alpha1`` ``Workload``, KEP-4671), behind the
``GenericWorkload`` feature gate: a workload lists its pod groups, each with a scheduling policy
(``basic``, or ``gang`` with a ``minCount``), and pods point at their group through
``spec.workloadRef``. The in-tree GangScheduling plugin schedules a gang's pods all or nothing.

This is upstream's native gang scheduling, beside the scheduler-plugins PodGroup CRD
(``scheduling.x-k8s.io`` :class:`~schedframe.api.PodGroup`) that the Coscheduling plugin reads; a
scenario can use either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import (
    _REQUIRED_STR,
    _STR,
    _check_top,
    _Codec,
    _fail,
    _Field,
    _int,
    _items,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _required_str,
    _str,
    _str_map,
)
from .frozendict import FrozenDict
from .frozendict import as_tuple as _tuple
from .objects import WorkloadReference

__all__ = [
    "WORKLOAD_API_VERSION",
    "Workload",
    "WorkloadPodGroup",
    "WorkloadReference",
    "workload_reference_from_manifest",
    "workload_reference_to_manifest",
]

#: The ``apiVersion`` of Workload.
WORKLOAD_API_VERSION: Final = "scheduling.k8s.io/v1alpha1"


@final
@attrs.frozen
class WorkloadPodGroup:
    """One of a :class:`~schedframe.api.Workload`'s ``spec.podGroups``: its name and policy.

    Args:
        name: the group's name (pods name it in ``workloadRef.podGroup``).
        min_count: ``policy.gang.minCount``; ``None`` for the ``basic`` policy (no gang).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    min_count: int | None = None

    @property
    def is_gang(self) -> bool:
        """Whether the group's policy is ``gang``."""
        return self.min_count is not None


def _labels(value: Mapping[str, str]) -> FrozenDict[str, str]:
    return value if isinstance(value, FrozenDict) else FrozenDict(dict(value))


@final
@attrs.frozen(kw_only=True)
class Workload:
    """A scheduling.k8s.io/v1alpha1 Workload (what the scheduler reads of it).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_labels)
    pod_groups: tuple[WorkloadPodGroup, ...] = attrs.field(default=(), converter=_tuple)
    #: ``spec.controllerRef`` as ``(apiGroup, kind, name)``, or ``None``.
    controller_ref: tuple[str, str, str] | None = None

    def pod_group(self, name: str) -> WorkloadPodGroup | None:
        """The pod group *name*, or ``None``."""
        for g in self.pod_groups:
            if g.name == name:
                return g
        return None

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> Workload:
        """Read a scheduling.k8s.io/v1alpha1 Workload manifest."""
        return workload_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This Workload as a manifest."""
        return workload_to_manifest(self)


def _pod_group(value: Any, path: str) -> WorkloadPodGroup:
    m = _mapping(value, path)
    policy = _mapping(m.get("policy"), f"{path}.policy")
    gang = policy.get("gang")
    basic = policy.get("basic")
    if (gang is None) == (basic is None):
        _fail(f"{path}.policy", "exactly one of basic and gang is required")
    min_count = None
    if gang is not None:
        g = _mapping(gang, f"{path}.policy.gang")
        min_count = _int(g.get("minCount"), f"{path}.policy.gang.minCount")
        if min_count is None or min_count < 1:
            _fail(f"{path}.policy.gang.minCount", f"must be greater than 0, got {min_count}")
    return WorkloadPodGroup(_required_str(m, "name", path), min_count)


def workload_from_manifest(manifest: Any) -> Workload:
    """The reader of the kinds registry (errors name the field)."""
    m = _check_top(manifest, "Workload", (WORKLOAD_API_VERSION,))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    groups = _items(spec.get("podGroups"), "spec.podGroups", _pod_group)
    if not groups:
        _fail("spec.podGroups", "required")
    ref = spec.get("controllerRef")
    controller_ref = None
    if ref is not None:
        r = _mapping(ref, "spec.controllerRef")
        controller_ref = (_str(r.get("apiGroup"), "spec.controllerRef.apiGroup"),
                          _required_str(r, "kind", "spec.controllerRef"),
                          _required_str(r, "name", "spec.controllerRef"))
    return Workload(name=_name(meta), namespace=_namespace(meta),
                    labels=_str_map(meta.get("labels"), "metadata.labels"),
                    pod_groups=groups, controller_ref=controller_ref)


def workload_to_manifest(w: Workload) -> dict[str, Any]:
    """The writer of the kinds registry."""
    groups: list[dict[str, Any]] = [
        {"name": g.name, "policy": {"gang": {"minCount": g.min_count}} if g.is_gang else {"basic": {}}}
        for g in w.pod_groups]
    spec: dict[str, Any] = {"podGroups": groups}
    if w.controller_ref is not None:
        group, kind, name = w.controller_ref
        spec["controllerRef"] = {"apiGroup": group, "kind": kind, "name": name} if group else {
            "kind": kind, "name": name}
    return {"apiVersion": WORKLOAD_API_VERSION, "kind": "Workload",
            "metadata": _meta_out(w.name, w.namespace, labels=dict(w.labels)), "spec": spec}


_WORKLOAD_REFERENCE: Final = _Codec(WorkloadReference, (
    _Field("name", "name", _REQUIRED_STR), _Field("podGroup", "pod_group", _REQUIRED_STR),
    _Field("podGroupReplicaKey", "pod_group_replica_key", _STR)))


def workload_reference_from_manifest(value: Any, path: str) -> WorkloadReference | None:
    """A pod's ``spec.workloadRef`` (``None`` when absent)."""
    return None if value is None else _WORKLOAD_REFERENCE.read(value, path)


def workload_reference_to_manifest(ref: WorkloadReference) -> dict[str, Any]:
    """``spec.workloadRef`` of a pod."""
    return _WORKLOAD_REFERENCE.write(ref)
