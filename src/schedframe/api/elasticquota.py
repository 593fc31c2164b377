"""``ElasticQuota`` (kubernetes-sigs/scheduler-plugins ``scheduling.x-k8s.io/v1alpha1``): the
per-namespace quota the CapacityScheduling plugin enforces.

``spec.min`` is what the namespace is guaranteed, ``spec.max`` the most it may use (borrowing
what other quotas leave unused between the two); ``status.used`` is what its pods use, as
scheduler-plugins' ElasticQuota controller writes it. Upstream supports one ElasticQuota per
namespace (the plugin reads the first one listed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import (
    _meta_out,
    _name,
    _namespace,
    _opt_time_out,
    _quantities,
    _quantities_out,
    _time,
    _top_parts,
)
from .frozendict import FrozenDict
from .objects import _quantity_map
from .quantity import Quantity

__all__ = [
    "ELASTIC_QUOTA_API_VERSION",
    "ElasticQuota",
    "elastic_quota_from_manifest",
    "elastic_quota_to_manifest",
]

#: The API group and version of :class:`~schedframe.api.ElasticQuota`.
ELASTIC_QUOTA_API_VERSION: Final = "scheduling.x-k8s.io/v1alpha1"
#: The groups scheduler-plugins has published ElasticQuota under (as for PodGroup).
_API_VERSIONS: Final = (ELASTIC_QUOTA_API_VERSION, "scheduling.sigs.k8s.io/v1alpha1")


@final
@attrs.frozen
class ElasticQuota:
    """A ``scheduling.x-k8s.io/v1alpha1`` ElasticQuota.

    Attributes:
        name: the quota's name.
        namespace: the namespace whose pods it governs.
        min: ``spec.min``, the guaranteed amounts (a resource missing here is guaranteed 0).
        max: ``spec.max``, the upper bounds (a resource missing here is unbounded).
        used: ``status.used``, as last written (the scheduler computes usage from the pods it
            knows; this field is only carried through).
        creation_timestamp: ``metadata.creationTimestamp``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    min: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    max: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    used: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    creation_timestamp: float | None = None

    @property
    def full_name(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> ElasticQuota:
        """Read an ElasticQuota manifest; raises :class:`~schedframe.ManifestError` naming the
        field path."""
        return elastic_quota_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This ElasticQuota as a manifest (:meth:`from_manifest` reads it back equal)."""
        return elastic_quota_to_manifest(self)


def elastic_quota_from_manifest(manifest: Any) -> ElasticQuota:
    """Read a ``scheduling.x-k8s.io/v1alpha1`` (or ``scheduling.sigs.k8s.io/v1alpha1``)
    ElasticQuota manifest.

    .. versionadded:: 0.1.0
    """
    meta, spec, status = _top_parts(manifest, "ElasticQuota", _API_VERSIONS)
    return ElasticQuota(
        name=_name(meta),
        namespace=_namespace(meta),
        min=_quantities(spec.get("min"), "spec.min"),
        max=_quantities(spec.get("max"), "spec.max"),
        used=_quantities(status.get("used"), "status.used"),
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def elastic_quota_to_manifest(quota: ElasticQuota) -> dict[str, Any]:
    """An ElasticQuota as a manifest.

    .. versionadded:: 0.1.0
    """
    created = _opt_time_out(quota.creation_timestamp, "metadata.creationTimestamp")
    spec: dict[str, Any] = {}
    if quota.min:
        spec["min"] = _quantities_out(quota.min)
    if quota.max:
        spec["max"] = _quantities_out(quota.max)
    out: dict[str, Any] = {"apiVersion": ELASTIC_QUOTA_API_VERSION, "kind": "ElasticQuota",
                           "metadata": _meta_out(quota.name, quota.namespace, creationTimestamp=created),
                           "spec": spec}
    if quota.used:
        out["status"] = {"used": _quantities_out(quota.used)}
    return out
