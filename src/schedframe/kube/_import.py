"""A snapshot of a live cluster in the format the simulator reads (``schedframe import``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, final

import attrs

from ..api.kinds import KINDS
from ..api.manifests import ApiObject, dump_manifests, object_from_manifest
from ..errors import SchedframeError
from ._api import ApiSession, KubeApiError, KubeError
from ._informer import Resource, _key

__all__ = ["IMPORT_RESOURCES", "ClusterImport", "import_cluster"]

#: what :func:`import_cluster` lists: every kind :func:`~schedframe.load_manifests` reads
#: (:data:`~schedframe.KINDS`, each of its apiVersions), in the order they are written
#: (their rank: what pods refer to before the pods). Pods include terminal ones (a
#: Job's succeeded pods count towards its completions when the dump is expanded).
IMPORT_RESOURCES: Final = tuple(Resource(info.kind, version, info.plural, required=info.required)
                                for info in KINDS.ranked() for version in info.api_versions)

#: kubectl's chunk size for lists
PAGE_SIZE: Final = 500
#: how often a list is restarted when its continue token expires (410) before giving up
_RESTARTS: Final = 3


@final
@attrs.frozen
class ClusterImport:
    """What :func:`import_cluster` read.

    Attributes:
        objects: the api objects, in :data:`IMPORT_RESOURCES` order.
        skipped: one line per object schedframe could not read (``Kind namespace/name: field
            path: problem``); these are not in *objects*.
        unavailable: one line per resource that could not be listed (not served by this API
            server, e.g. ``resource.k8s.io/v1`` before Kubernetes 1.34, or forbidden).
        counts: objects read per kind.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"

    objects: tuple[ApiObject, ...]
    skipped: tuple[str, ...] = ()
    unavailable: tuple[str, ...] = ()
    counts: Mapping[str, int] = attrs.field(factory=dict)

    def dump(self, format: str = "yaml") -> str:
        """:func:`~schedframe.dump_manifests` of the objects: one ``kind: List`` document that
        ``schedframe simulate --cluster`` and :func:`~schedframe.load_manifests` read."""
        return dump_manifests(self.objects, format)


def _list_all(session: ApiSession, resource: Resource, page_size: int,
              on_page: Callable[[int], None] | None) -> list[dict[str, Any]]:
    """Every item of *resource*, in pages of *page_size* (``limit``/``continue``); a list whose
    continue token expired starts again."""
    for _attempt in range(_RESTARTS):
        items: list[dict[str, Any]] = []
        token = ""
        try:
            while True:
                query: dict[str, Any] = {"limit": page_size}
                if token:
                    query["continue"] = token
                data = session.request("GET", resource.path, query=query, timeout=120.0)
                if not isinstance(data, Mapping):
                    raise KubeApiError("GET", resource.path, 200, "", "the answer is not a list")
                for raw in data.get("items") or ():
                    if isinstance(raw, Mapping):
                        obj = dict(raw)
                        obj.setdefault("kind", resource.kind)
                        obj.setdefault("apiVersion", resource.api_version)
                        items.append(obj)
                if on_page is not None:
                    on_page(len(items))
                token = str((data.get("metadata") or {}).get("continue") or "")
                if not token:
                    return items
        except KubeApiError as exc:
            if token and (exc.status == 410 or exc.reason in ("Expired", "Gone")):
                continue  # the continue token expired: list again from the start
            raise
    raise KubeError(f"listing {resource.plural} ({resource.api_version}): the list kept expiring "
                    f"({_RESTARTS} attempts); the cluster changes faster than it can be paged")


def import_cluster(api_client: Any, *, resources: Sequence[Resource] = IMPORT_RESOURCES,
                   terminal_pods: bool = True, page_size: int = PAGE_SIZE,
                   progress: Callable[[str, int], None] | None = None) -> ClusterImport:
    """List a live cluster's objects and read them as the simulator does.

    Args:
        api_client: a ``kubernetes.client.ApiClient`` (or an :class:`ApiSession`).
        resources: what to list (default :data:`IMPORT_RESOURCES`: every kind schedframe reads).
        terminal_pods: keep pods in phase ``Succeeded`` or ``Failed`` (the scheduler ignores
            them; a Job's succeeded pods tell the workload expansion its completions are done).
        page_size: objects per list request (``limit``); kubectl's 500 by default.
        progress: called with (plural, objects listed so far) after each page.

    Returns:
        The objects, the ones skipped (with the field path schedframe could not read) and the
        resources not listed.

    Raises:
        KubeApiError: listing Nodes or Pods failed, or another list failed with an error other
            than 404 Not Found / 403 Forbidden (those are reported in ``unavailable``).
        KubeError: a list whose continue token kept expiring.

    .. versionadded:: 0.1.0
    """
    session = api_client if isinstance(api_client, ApiSession) else ApiSession(api_client)
    if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
        raise TypeError(f"import_cluster() argument 'page_size' must be a positive int, got {page_size!r}")
    objects: list[ApiObject] = []
    skipped: list[str] = []
    unavailable: list[str] = []
    counts: dict[str, int] = {}
    for resource in resources:
        on_page = (lambda n, plural=resource.plural: progress(plural, n)) if progress else None
        try:
            raws = _list_all(session, resource, page_size, on_page)
        except KubeApiError as exc:
            if not resource.required and exc.status in (403, 404):
                why = "not served by this API server" if exc.status == 404 else f"forbidden: {exc.detail}"
                unavailable.append(f"{resource.plural} ({resource.api_version}): {why}")
                continue
            raise
        for raw in raws:
            if not terminal_pods and resource.kind == "Pod" and \
                    (raw.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            try:
                obj = object_from_manifest(raw)
            except SchedframeError as exc:
                skipped.append(f"{resource.kind} {_key(raw)}: {exc}")
                continue
            objects.append(obj)
            counts[resource.kind] = counts.get(resource.kind, 0) + 1
    return ClusterImport(tuple(objects), tuple(skipped), tuple(unavailable), counts)
