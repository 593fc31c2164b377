"""Older API versions of the kinds schedframe reads, read with a deprecation warning.

Real bundles still carry objects written for API versions the API server no longer serves
(kubernetes/examples' cockroachdb has a ``policy/v1beta1`` PodDisruptionBudget). Where the fields
schedframe reads are the same in the old and the current version, the object is read as the
current version and a :class:`~schedframe.api.DeprecatedAPIVersionWarning` names the version, its replacement
and
the release that removed it. One semantic difference is converted as the API server converts it:
a ``policy/v1beta1`` PodDisruptionBudget with an empty selector (``{}``) selects no pods, which is
a missing selector in ``policy/v1`` (where ``{}`` selects every pod of the namespace).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar, final

from ..errors import SchedframeWarning

__all__ = ["OLD_API_VERSIONS", "DeprecatedAPIVersionWarning", "reading_old_versions"]

T = TypeVar("T")


@final
class DeprecatedAPIVersionWarning(SchedframeWarning, DeprecationWarning):
    """A manifest was written in an API version Kubernetes no longer serves (``policy/v1beta1``
    PodDisruptionBudget, ``batch/v1beta1`` CronJob, ...) and was read as the current version,
    whose fields are the same.

    Attributes:
        kind: the object's kind.
        api_version: the version it was written in.
        current: the version it was read as.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    def __init__(self, message: str = "", kind: str = "", api_version: str = "", current: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.api_version = api_version
        self.current = current


def _pdb_v1beta1(manifest: Mapping[str, Any]) -> dict[str, Any]:
    spec = manifest.get("spec")
    if isinstance(spec, Mapping) and isinstance(spec.get("selector"), Mapping):
        selector = spec["selector"]
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            # v1beta1: an empty selector matches nothing; v1: a missing one does
            return {**manifest, "spec": {k: v for k, v in spec.items() if k != "selector"}}
    return dict(manifest)


def _same(manifest: Mapping[str, Any]) -> dict[str, Any]:
    return dict(manifest)


Convert = Callable[[Mapping[str, Any]], dict[str, Any]]

#: (kind, old apiVersion) -> (current apiVersion, the Kubernetes release that stopped serving the
#: old one, the conversion of the manifest).
OLD_API_VERSIONS: Final[Mapping[tuple[str, str], tuple[str, str, Convert]]] = {
    ("PodDisruptionBudget", "policy/v1beta1"): ("policy/v1", "1.25", _pdb_v1beta1),
    ("CronJob", "batch/v1beta1"): ("batch/v1", "1.25", _same),
    ("PriorityClass", "scheduling.k8s.io/v1beta1"): ("scheduling.k8s.io/v1", "1.22", _same),
    ("StorageClass", "storage.k8s.io/v1beta1"): ("storage.k8s.io/v1", "1.22", _same),
    ("CSINode", "storage.k8s.io/v1beta1"): ("storage.k8s.io/v1", "1.22", _same),
    ("CSIDriver", "storage.k8s.io/v1beta1"): ("storage.k8s.io/v1", "1.22", _same),
}


def reading_old_versions(kind: str, reader: Callable[[Any], T]) -> Callable[[Any], T]:
    """*reader* of *kind*, also reading the old versions of :data:`OLD_API_VERSIONS` (warning)."""

    def read(manifest: Any) -> T:
        if isinstance(manifest, Mapping):
            api_version = manifest.get("apiVersion")
            old = OLD_API_VERSIONS.get((kind, api_version)) if isinstance(api_version, str) else None
            if old is not None and isinstance(api_version, str):
                current, removed_in, convert = old
                meta = manifest.get("metadata")
                name = meta.get("name") if isinstance(meta, Mapping) else None
                shown = f" {name!r}" if isinstance(name, str) and len(name) <= 100 else ""
                warnings.warn(DeprecatedAPIVersionWarning(
                    f"{kind}{shown} is written in {api_version}, which Kubernetes stopped serving in "
                    f"{removed_in}; read as {current} (same fields); rewrite it as {current}",
                    kind, api_version, current), stacklevel=3)
                manifest = {**convert(manifest), "apiVersion": current}
        return reader(manifest)

    read.__name__ = getattr(reader, "__name__", "read")
    read.__doc__ = reader.__doc__
    return read
