"""A snapshot of a live cluster in the format the simulator reads (``schedframe import``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, final

import attrs

from ..api.kinds import KINDS
from ..api.manifests import ApiObject, dump_manifests, object_from_manifest
from ..errors import SchedframeError, SchedframeWarning
from ._api import ApiSession, KubeApiError, KubeError, KubeLimitError, bounded_text
from ._informer import Resource, _key

__all__ = ["DEFAULT_MAX_ITEMS", "DEFAULT_MAX_ITEMS_PER_KIND", "DEFAULT_MAX_PAGE_BYTES", "DEFAULT_MAX_PAGES",
           "IMPORT_RESOURCES", "ClusterImport", "import_cluster"]

#: what :func:`import_cluster` lists: every kind :func:`~schedframe.load_manifests` reads
#: (:data:`~schedframe.api.KINDS`, each of its apiVersions), in the order they are written
#: (their rank: what pods refer to before the pods). Pods include terminal ones (a
#: Job's succeeded pods count towards its completions when the dump is expanded).
IMPORT_RESOURCES: Final = tuple(Resource(info.kind, version, info.plural, required=info.required)
                                for info in KINDS.ranked() for version in info.api_versions)

#: kubectl's chunk size for lists
PAGE_SIZE: Final = 500
#: how often a list is restarted when its continue token expires (410) before giving up
_RESTARTS: Final = 3
#: the most objects listed of one kind (twice upstream's scalability bound of 150,000 pods)
DEFAULT_MAX_ITEMS_PER_KIND: Final = 300_000
#: the most objects listed in all (what :func:`~schedframe.load_manifests` reads back by default)
DEFAULT_MAX_ITEMS: Final = 1_000_000
#: the most pages (list requests) of one kind, per attempt
DEFAULT_MAX_PAGES: Final = 10_000
#: the longest answer to one list request (the manifest reader's cap on what it reads)
DEFAULT_MAX_PAGE_BYTES: Final = 256 * 1024 * 1024


@final
@attrs.frozen
class ClusterImport:
    """What :func:`import_cluster` read.

    Attributes:
        objects: the api objects, in :data:`IMPORT_RESOURCES` order.
        skipped: one line per object schedframe could not read (``Kind namespace/name: field
            path: problem``); these are not in *objects*.
        unavailable: one line per resource that could not be listed (not served by this API
            server, e.g. ``resource.k8s.io/v1`` before Kubernetes 1.34, forbidden, or an optional
            kind whose list failed: a broken connection, a server error, a continue token that
            repeats), each naming the resource.
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


@attrs.define
class _Limits:
    page_size: int
    max_items_per_kind: int
    max_items: int
    max_pages: int
    max_page_bytes: int
    #: objects listed so far, every kind (skipped and left-out ones included: they were read)
    listed: int = 0


def _list_all(session: ApiSession, resource: Resource, limits: _Limits,
              on_page: Callable[[int], None] | None,
              keep: Callable[[dict[str, Any] | None], None]) -> int:
    """Every item of *resource*, in pages of ``limits.page_size`` (``limit``/``continue``),
    given to *keep* page by page; a list whose continue token expired starts again (*keep*
    gets ``None``: forget what this list gave so far). Returns the items listed.

    Raises:
        KubeLimitError: more items than a limit allows, more pages, or a page too large.
        KubeError: a continue token sent twice, a list that kept expiring.
        KubeApiError: a request failed.
    """
    subject = f"listing {resource.plural} ({resource.api_version})"
    for _attempt in range(_RESTARTS):
        count = 0
        token = ""
        seen: set[str] = set()
        pages = 0
        try:
            while True:
                if pages >= limits.max_pages:
                    raise KubeLimitError(subject, f"more than {limits.max_pages:,} pages", limits.max_pages,
                                         "max_pages")
                query: dict[str, Any] = {"limit": limits.page_size}
                if token:
                    query["continue"] = token
                data = session.request("GET", resource.path, query=query, timeout=120.0,
                                       max_bytes=limits.max_page_bytes)
                pages += 1
                if not isinstance(data, Mapping):
                    raise KubeApiError("GET", resource.path, 200, "", "the answer is not a list")
                raws = data.get("items")
                if raws is None:  # an empty list may come as null
                    raws = []
                if not isinstance(raws, list):
                    raise KubeApiError("GET", resource.path, 200, "", "the answer's items are not a list")
                n = len(raws)
                if count + n > limits.max_items_per_kind:
                    raise KubeLimitError(subject, f"more than {limits.max_items_per_kind:,} {resource.kind} "
                                         "objects", limits.max_items_per_kind, "max_items_per_kind")
                if limits.listed + count + n > limits.max_items:
                    raise KubeLimitError(subject, f"more than {limits.max_items:,} objects in all, "
                                         f"reached with this page of {n:,} {resource.kind} objects",
                                         limits.max_items, "max_items")
                count += n
                for raw in raws:
                    if isinstance(raw, Mapping):
                        obj = dict(raw)
                        obj.setdefault("kind", resource.kind)
                        obj.setdefault("apiVersion", resource.api_version)
                        keep(obj)
                if on_page is not None:
                    on_page(count)
                meta = data.get("metadata")
                token = str((meta if isinstance(meta, Mapping) else {}).get("continue") or "")
                if not token:
                    limits.listed += count
                    return count
                if token in seen:
                    raise KubeError(f"{subject}: the server sent the same continue token twice "
                                    f"(page {pages:,}): {bounded_text(token, 80)}; the list would never end")
                seen.add(token)
        except KubeApiError as exc:
            if token and (exc.status == 410 or exc.reason in ("Expired", "Gone")):
                keep(None)  # the list starts again: forget this attempt's objects
                continue
            raise
    raise KubeError(f"{subject}: the list kept expiring "
                    f"({_RESTARTS} attempts); the cluster changes faster than it can be paged")


def import_cluster(api_client: Any, *, resources: Sequence[Resource] = IMPORT_RESOURCES,
                   terminal_pods: bool = True, page_size: int = PAGE_SIZE,
                   progress: Callable[[str, int], None] | None = None,
                   max_items_per_kind: int = DEFAULT_MAX_ITEMS_PER_KIND,
                   max_items: int = DEFAULT_MAX_ITEMS, max_pages: int = DEFAULT_MAX_PAGES,
                   max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> ClusterImport:
    """List a live cluster's objects and read them as the simulator does.

    Args:
        api_client: a ``kubernetes.client.ApiClient`` (or an :class:`ApiSession`).
        resources: what to list (default :data:`IMPORT_RESOURCES`: every kind schedframe reads).
        terminal_pods: keep pods in phase ``Succeeded`` or ``Failed`` (the scheduler ignores
            them; a Job's succeeded pods tell the workload expansion its completions are done).
        page_size: objects per list request (``limit``); kubectl's 500 by default.
        progress: called with (plural, objects listed so far) after each page.
        max_items_per_kind: the most objects listed of one kind
            (:data:`DEFAULT_MAX_ITEMS_PER_KIND`, 300,000).
        max_items: the most objects listed in all (:data:`DEFAULT_MAX_ITEMS`, 1,000,000).
        max_pages: the most list requests for one kind (:data:`DEFAULT_MAX_PAGES`, 10,000): a
            server that keeps sending continue tokens ends here.
        max_page_bytes: the longest answer to one list request
            (:data:`DEFAULT_MAX_PAGE_BYTES`, 256 MiB).

    Returns:
        The objects, the ones skipped (with the field path schedframe could not read) and the
        resources not listed.

    Raises:
        KubeLimitError: a limit was exceeded (its ``subject`` names the resource, ``option``
            the parameter, ``limit`` its value); nothing is returned.
        KubeApiError: listing Nodes or Pods failed (a list of another kind that fails is
            reported in ``unavailable`` and skipped).
        KubeError: a Nodes or Pods list whose continue token kept expiring or repeated.

    .. versionadded:: 0.1.0
    """
    session = api_client if isinstance(api_client, ApiSession) else ApiSession(api_client)
    for name, value in (("page_size", page_size), ("max_items_per_kind", max_items_per_kind),
                        ("max_items", max_items), ("max_pages", max_pages),
                        ("max_page_bytes", max_page_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TypeError(f"import_cluster() argument {name!r} must be a positive int, got {value!r}")
    limits = _Limits(page_size, max_items_per_kind, max_items, max_pages, max_page_bytes)
    objects: list[ApiObject] = []
    origins: list[tuple[str, str, str]] = []  # (kind, apiVersion, key) of each object
    skipped: list[str] = []
    unavailable: list[str] = []
    counts: dict[str, int] = {}
    for resource in resources:
        on_page = (lambda n, plural=resource.plural: progress(plural, n)) if progress else None
        mark = (len(objects), len(skipped))

        def keep(raw: dict[str, Any] | None, resource: Resource = resource,
                 mark: tuple[int, int] = mark) -> None:
            if raw is None:  # the list starts again
                del objects[mark[0]:], origins[mark[0]:], skipped[mark[1]:]
                return
            if not terminal_pods and resource.kind == "Pod" and \
                    (raw.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                return
            try:
                objects.append(object_from_manifest(raw))
                origins.append((resource.kind, resource.api_version, _key(raw)))
            except SchedframeError as exc:
                skipped.append(f"{resource.kind} {bounded_text(_key(raw), 120)}: {exc}")

        what = f"{resource.plural} ({resource.api_version})"
        try:
            _list_all(session, resource, limits, on_page, keep)
        except KubeLimitError:
            raise
        except KubeApiError as exc:
            del objects[mark[0]:], origins[mark[0]:], skipped[mark[1]:]
            if resource.required:
                raise
            if exc.status == 404:
                unavailable.append(f"{what}: not served by this API server")
            elif exc.status == 403:
                unavailable.append(f"{what}: forbidden: {exc.detail}")
            else:
                unavailable.append(f"{what}: the list failed: {_failure(exc)}")
            continue
        except KubeError as exc:
            del objects[mark[0]:], origins[mark[0]:], skipped[mark[1]:]
            if resource.required:
                raise
            unavailable.append(f"{what}: the list failed: {exc}")
            continue
        n = len(objects) - mark[0]
        if n:
            counts[resource.kind] = counts.get(resource.kind, 0) + n
    objects = _one_copy_each(objects, origins, counts)
    return ClusterImport(tuple(objects), tuple(skipped), tuple(unavailable), counts)


def _one_copy_each(objects: list[ApiObject], origins: list[tuple[str, str, str]],
                   counts: dict[str, int]) -> list[ApiObject]:
    """*objects* with one copy of an object served under two apiVersions of its kind (a PodGroup
    or an ElasticQuota under ``scheduling.x-k8s.io`` and the legacy ``scheduling.sigs.k8s.io``):
    the copy of the kind's current apiVersion (the first it lists) is kept, and one warning per
    kind names both versions and the objects dropped (none when the versions are of one API
    group, such as 1.37's v1beta1 and v1alpha3 Workloads: one object served twice). *counts*
    is corrected."""
    # an object's kind is its registry record: the name PodGroup is two kinds (scheduling.x-k8s.io
    # and scheduling.k8s.io), one record reads two groups (scheduling.sigs.k8s.io, legacy)
    def record(kind: str, version: str) -> tuple[str, tuple[str, ...]]:
        info = KINDS.by_kind(kind, version)
        return (kind, info.api_versions) if info is not None else (kind, (version,))

    versions_of: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for kind, version, _ in origins:
        versions_of.setdefault(record(kind, version), set()).add(version)
    if all(len(v) < 2 for v in versions_of.values()):
        return objects

    def rank(rec: tuple[str, tuple[str, ...]], version: str) -> int:
        order = rec[1]
        return order.index(version) if version in order else len(order)

    chosen: dict[tuple[tuple[str, tuple[str, ...]], str], int] = {}
    dropped: set[int] = set()
    for i, (kind, version, key) in enumerate(origins):
        rec = record(kind, version)
        if len(versions_of[rec]) < 2:
            continue
        j = chosen.get((rec, key))
        if j is None:
            chosen[(rec, key)] = i
        elif origins[j][1] == version:
            continue  # one list never serves a name twice; kept as it was
        elif rank(rec, version) < rank(rec, origins[j][1]):
            dropped.add(j)
            chosen[(rec, key)] = i
        else:
            dropped.add(i)
    if not dropped:
        return objects
    by_record: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i in sorted(dropped):
        by_record.setdefault(record(origins[i][0], origins[i][1]), []).append(i)
    for rec, gone in by_record.items():
        kind = rec[0]
        counts[kind] -= len(gone)
        kept = chosen[(rec, origins[gone[0]][2])]
        if all(origins[i][1].rpartition("/")[0] == origins[kept][1].rpartition("/")[0] for i in gone):
            continue  # versions of one API group serve the same objects: nothing to say
        names = ", ".join(bounded_text(origins[i][2], 120) for i in gone[:3])
        more = f" and {len(gone) - 3:,} more" if len(gone) > 3 else ""
        warnings.warn(
            f"{len(gone):,} {kind}(s) served under both {origins[kept][1]} and {origins[gone[0]][1]} "
            f"({names}{more}): the {origins[kept][1]} copies are kept, the "
            f"{origins[gone[0]][1]} ones dropped", SchedframeWarning, stacklevel=3)
    return [o for i, o in enumerate(objects) if i not in dropped]


def _failure(exc: KubeApiError) -> str:
    shown = f"HTTP {exc.status}" if exc.status else "no answer"
    return f"{shown}{f' {exc.reason}' if exc.reason else ''}: {exc.detail}"
