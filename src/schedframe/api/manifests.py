"""Conversion between Kubernetes manifests and schedframe's api objects.

Reading (``*_from_manifest``, :func:`~schedframe.object_from_manifest`, :func:`~schedframe.load_manifests`)
accepts the
plain dicts that ``yaml.safe_load`` / ``json.load`` produce from Kubernetes v1 manifests and
``kubectl get ... -o yaml|json`` output. Every field the scheduler reads is decoded; fields
schedframe does not model are ignored by the readers, but :func:`~schedframe.load_manifests` first checks
every field against the emulated Kubernetes release's field tree (``validate="strict"`` by
default: :class:`~schedframe.errors.FieldValidationError`; see :func:`~schedframe.api.field_problems`). Bad
input
raises one :class:`~schedframe.ManifestError` naming the field path, the value found and what
was expected::

    spec.containers[0].resources.requests.cpu: '12x' is not a quantity

Like the API server, reading defaults the namespace of namespaced objects to ``"default"``,
``spec.schedulerName`` to ``"default-scheduler"``, ``status.phase`` to ``"Pending"``, a
port's ``protocol`` to ``"TCP"`` and a container's missing requests to its limits, and
validates what the API validates (selector and toleration operators, taint effects,
``whenUnsatisfiable``, names, at least one container, unique container names, requests within
limits, workload templates...). A JSON ``null`` reads as an absent field. Priorities are kept
as written (no PriorityClass resolution). :func:`~schedframe.load_manifests` takes a ``str`` as text and a
path-like as a file or directory, reads regular files only within size and object caps, and
expands workloads into pods (:mod:`schedframe.api.workloads`); see docs/manifests.rst.

Writing (``*_to_manifest``, :func:`~schedframe.object_to_manifest`) produces ``apiVersion``, ``kind``,
``metadata`` and the object's ``spec`` / ``status`` with empty fields omitted; quantities are
written as their original text and timestamps (seconds since the epoch in schedframe) as
RFC 3339 strings. ``X.from_manifest(x.to_manifest()) == x`` holds for every valid object (a
pod without containers, as the testing builders allow, is written but not read back).
:func:`~schedframe.dump_manifests` writes a ``kind: List`` document :func:`~schedframe.load_manifests` reads.
"""

# The public face of the manifest code, which lives in one module per concern: the shared field
# decoders (``_fields``), name validation (``_names``), the Pod (``_pod``), the other core kinds
# (``_core``), the workloads (``_workload_io``), the storage and DRA kinds (``storage``,
# ``resource``), the kinds registry (``kinds``), loading (``_load``) and dumping (``_dump``).

from __future__ import annotations

from . import objects as _objects
from ._core import POD_GROUP_API_VERSIONS as POD_GROUP_API_VERSIONS
from ._core import (
    namespace_from_manifest,
    node_from_manifest,
    node_to_manifest,
    pod_group_from_manifest,
    validate_node,
)
from ._dump import dump_manifests, dump_scheduler_state, object_to_manifest
from ._field_check import ValidateMode, field_problems
from ._load import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_OBJECTS,
    SUPPORTED_KINDS,
    load_manifests,
    object_from_manifest,
)
from ._load import MAX_YAML_DEPTH as MAX_YAML_DEPTH
from ._load import json_loads_strict as json_loads_strict
from ._pod import pod_from_manifest, pod_to_manifest, validate_pod
from .kinds import ApiObject

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_OBJECTS",
    "SUPPORTED_KINDS",
    "ApiObject",
    "ValidateMode",
    "dump_manifests",
    "dump_scheduler_state",
    "field_problems",
    "load_manifests",
    "namespace_from_manifest",
    "node_from_manifest",
    "node_to_manifest",
    "pod_group_from_manifest",
    "object_from_manifest",
    "object_to_manifest",
    "pod_from_manifest",
    "pod_to_manifest",
    "validate_node",
    "validate_pod",
]

_objects._manifest_codec.update(
    namespace_from_manifest=namespace_from_manifest,
    node_from_manifest=node_from_manifest,
    node_to_manifest=node_to_manifest,
    object_from_manifest=object_from_manifest,
    object_to_manifest=object_to_manifest,
    pod_from_manifest=pod_from_manifest,
    pod_group_from_manifest=pod_group_from_manifest,
    pod_to_manifest=pod_to_manifest,
)
