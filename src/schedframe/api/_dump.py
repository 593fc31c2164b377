"""Writing manifests: :func:`~schedframe.object_to_manifest`, :func:`~schedframe.dump_manifests` (one ``kind:
List``
document) and :func:`~schedframe.api.dump_scheduler_state`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from .. import _textio
from ..errors import ManifestError, bounded_repr
from ._fields import _fail, _manifest_error
from .kinds import KINDS, ApiObject
from .objects import (
    Node,
    Pod,
)


def object_to_manifest(obj: ApiObject) -> dict[str, Any]:
    """The Kubernetes manifest of an api object (any kind :func:`~schedframe.object_from_manifest` reads).

    Raises:
        ManifestError: for an object schedframe cannot write, or an unwritable timestamp.
    """
    info = KINDS.by_class(type(obj))
    if info is None:
        _fail("", f"cannot write a manifest for {type(obj).__name__} objects")
    return info.writer(obj)


_FORMATS: Final = ("yaml", "json")


def _with_pending_condition(manifest: dict[str, Any], message: str) -> dict[str, Any]:
    status = manifest.setdefault("status", {})
    conditions = [c for c in status.get("conditions", ()) if c.get("type") != "PodScheduled"]
    conditions.append({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                       "message": message})
    status["conditions"] = conditions
    return manifest


def dump_manifests(objects: Iterable[ApiObject], format: str = "yaml", *,
                   pending: Mapping[str, str] | None = None) -> str:
    """The manifests of *objects* as one ``kind: List`` document, which :func:`~schedframe.load_manifests`
    reads back (with ``expand_workloads=False`` to get exactly these objects).

    Args:
        objects: api objects (any kind :func:`~schedframe.object_to_manifest` writes).
        format: ``"yaml"`` (needs PyYAML, the ``yaml`` extra) or ``"json"``.
        pending: pod key (``namespace/name``) to the scheduler's message for pods that could not
            be scheduled (e.g. ``{p.key: msg for p, msg in scheduler.pending()}``). Such a pod
            without a node is written with the condition ``PodScheduled=False`` reason
            ``Unschedulable`` and that message, as kube-scheduler records it. Bound pods carry
            ``spec.nodeName``.

    Raises:
        TypeError: for arguments of the wrong type.
        ManifestError: for an object schedframe cannot write, or YAML without PyYAML.

    .. versionadded:: 0.1.0
    """
    if isinstance(objects, (str, bytes, Mapping)) or not isinstance(objects, Iterable):
        raise TypeError("dump_manifests() argument 'objects' must be an iterable of api objects, "
                        f"got {type(objects).__name__}")
    if format not in _FORMATS:
        raise TypeError(f"dump_manifests() argument 'format' must be 'yaml' or 'json', "
                        f"got {bounded_repr(format)}")
    if pending is not None and not isinstance(pending, Mapping):
        raise TypeError("dump_manifests() argument 'pending' must be a mapping of pod key to message, "
                        f"got {type(pending).__name__}")
    items = []
    for i, obj in enumerate(objects):
        info = KINDS.by_class(type(obj))
        if info is None:
            raise ManifestError(f"objects[{i}]", f"cannot write a manifest for {type(obj).__name__} objects")
        manifest = info.writer(obj)
        if isinstance(obj, Pod) and not obj.node_name and pending and obj.key in pending:
            message = pending[obj.key]
            if not isinstance(message, str):
                raise TypeError(f"dump_manifests() argument 'pending' maps {obj.key!r} to "
                                f"{type(message).__name__}, not a message str")
            manifest = _with_pending_condition(manifest, message)
        items.append(manifest)
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    if format == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return _textio.dump_yaml(doc, error=_manifest_error, alternative=" (or use format='json')")


def dump_scheduler_state(scheduler: Any, format: str = "yaml") -> str:
    """:func:`~schedframe.dump_manifests` of a :class:`~schedframe.Scheduler`'s nodes, pods (bound ones with
    their node, pending ones with their last failure message) and other objects.

    .. versionadded:: 0.1.0
    """
    for attr in ("pending", "objects", "cache"):
        if not hasattr(scheduler, attr):
            raise TypeError("dump_scheduler_state() argument 'scheduler' must be a schedframe.Scheduler, "
                            f"got {type(scheduler).__name__}")
    pending: dict[str, str] = {}
    pods: list[Pod] = []
    for entry in scheduler.pending():
        pending[entry.pod.key] = entry.message or "pending: not attempted yet"
        pods.append(entry.pod)
    dump = scheduler.cache.dump()
    nodes = [info.node for info in dump.nodes.values() if info.node is not None]
    bound = [pi.pod for info in dump.nodes.values() for pi in info.pods]
    others: list[Any] = []
    for info in KINDS:
        if info.cls not in (Pod, Node):
            others.extend(scheduler.objects.list(info.cls))
    return dump_manifests([*others, *nodes, *bound, *pods], format, pending=pending)
