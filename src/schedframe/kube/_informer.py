"""Informers: list, then watch from the list's resourceVersion; re-list when the server says the
version is gone (410); back off on errors. Each object goes to a handler as a plain mapping."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final, final

import attrs

from ..api.kinds import KINDS, KindInfo
from ..api.objects import Pod
from ..api.scheduling_workload import served_api_versions
from ._api import MAX_EVENT_BYTES, ApiSession, KubeApiError, KubeLimitError

__all__ = ["EVENT_DEADLINE", "Informer", "Resource", "SCHEDULER_RESOURCES", "scheduler_resources"]

#: seconds a watch event may take from its first byte to its last before the watch is restarted
EVENT_DEADLINE: Final = 30.0

logger = logging.getLogger("schedframe.kube")


@final
@attrs.frozen
class Resource:
    """A resource an informer lists and watches."""

    kind: str
    api_version: str
    plural: str
    #: the scheduler cannot work without it (Nodes, Pods); optional ones not served are skipped
    required: bool = False
    #: a field selector for the list and watch
    field_selector: str = ""

    @property
    def path(self) -> str:
        """The collection's path across namespaces."""
        base = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        return f"{base}/{self.plural}"


#: the field selector of the pod informer: upstream's excludes terminal phases
_POD_FIELD_SELECTOR: Final = "status.phase!=Succeeded,status.phase!=Failed"


def _resource(info: KindInfo, api_version: str | None = None) -> Resource:
    return Resource(info.kind, api_version or info.api_versions[0], info.plural, required=info.required,
                    field_selector=_POD_FIELD_SELECTOR if info.cls is Pod else "")


#: what kube-scheduler's informers watch, as far as schedframe's plugins read it: the kinds of
#: :data:`~schedframe.api.KINDS` marked ``watched``, in their rank order (what other
#: objects refer to first). Pods exclude terminal phases, as upstream's pod informer does.
SCHEDULER_RESOURCES: Final = tuple(_resource(info) for info in KINDS.ranked() if info.watched)


def scheduler_resources(release: str) -> tuple[Resource, ...]:
    """:data:`SCHEDULER_RESOURCES` as the scheduler of *release* (``"1.36"``) watches them: the
    workload-API kinds in the first version that release serves (v1alpha2 in 1.36, v1beta1 in
    1.37), and not at all where it serves none."""
    out = []
    for info in KINDS.ranked():
        if not info.watched:
            continue
        versions = info.api_versions
        if info.group == "scheduling.k8s.io" and info.kind != "PriorityClass":
            served = [v for v in served_api_versions(info.kind, release) if v in versions]
            if not served:
                continue
            versions = (served[0],)
        out.append(_resource(info, versions[0]))
    return tuple(out)


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace") or ""
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


@final
class Informer:
    """Keeps a local copy of one resource and tells *handler* what changed.

    Runs in its own daemon thread (:meth:`start`). ``synced`` is set after the first complete
    list (or when an optional resource turned out not to be served).

    A watch event line longer than *max_event_bytes* (default :data:`MAX_EVENT_BYTES`, 16 MiB)
    ends the watch and the informer lists again (the same event would come again on resuming);
    one whose bytes take longer than *event_deadline* seconds (default :data:`EVENT_DEADLINE`)
    to arrive ends the watch, which resumes after the last event delivered. Both are logged
    and counted in ``errors``.
    """

    def __init__(self, session: ApiSession, resource: Resource,
                 handler: Callable[[str, Mapping[str, Any], Mapping[str, Any] | None], None], *,
                 backoff: tuple[float, float] = (0.5, 30.0), watch_timeout: float = 300.0,
                 max_event_bytes: int = MAX_EVENT_BYTES, event_deadline: float | None = EVENT_DEADLINE
                 ) -> None:
        self.session = session
        self.max_event_bytes = max_event_bytes
        self.event_deadline = event_deadline
        self.resource = resource
        self.handler = handler
        self.backoff = backoff
        self.watch_timeout = watch_timeout
        self.synced = threading.Event()
        #: the resource is not served by this API server (an optional one)
        self.absent = False
        self.store: dict[str, Mapping[str, Any]] = {}
        #: lists after the first (a 410, an oversized event, a handler bug)
        self.relists = 0
        #: watches the API server answered 410 Gone (the resourceVersion resumed from is older
        #: than its watch cache or etcd keeps): each is followed by a list
        self.expired = 0
        #: BOOKMARK events received (each moves :attr:`resource_version` on without an object)
        self.bookmarks = 0
        #: watches ended by the server's ``timeoutSeconds`` and resumed without a list
        self.watch_restarts = 0
        self.errors = 0
        #: the newest resourceVersion seen (the list's, then each watch event's and bookmark's):
        #: a broken watch resumes from here, so nothing delivered is delivered again
        self.resource_version: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the list/watch thread."""
        self._thread = threading.Thread(target=self._run, name=f"schedframe-informer-{self.resource.plural}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Ask the thread to stop (an open watch ends at its next event or timeout)."""
        self._stop.set()
        if self._thread is not None and timeout:
            self._thread.join(timeout)

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        delay = self.backoff[0]
        rv: str | None = None
        while not self._stop.is_set():
            try:
                if rv is None:
                    rv = self._list()
                    delay = self.backoff[0]
                    if rv is None:  # not served
                        return
                rv = self._watch(rv)
                self.watch_restarts += 1
                delay = self.backoff[0]
            except KubeLimitError as exc:  # an oversized event: resuming would send it again
                if self._stop.is_set():
                    return
                self.errors += 1
                logger.warning("%s: %s; listing again in %.1f s", self.resource.plural, exc, delay)
                rv = None
                if self._stop.wait(delay):
                    return
                delay = min(delay * 2, self.backoff[1])
            except KubeApiError as exc:
                if exc.status == 410 or exc.reason in ("Expired", "Gone"):
                    logger.info("%s: resourceVersion too old, listing again", self.resource.plural)
                    self.expired += 1
                    rv = None
                    continue
                if self._stop.is_set():
                    return
                if rv is not None:  # resume after the last event delivered
                    rv = self.resource_version or rv
                self.errors += 1
                logger.warning("%s: %s; retrying in %.1f s", self.resource.plural, exc, delay)
                if self._stop.wait(delay):
                    return
                delay = min(delay * 2, self.backoff[1])
            except Exception:  # a handler bug must not kill the informer
                self.errors += 1
                logger.exception("%s: informer error; listing again in %.1f s", self.resource.plural, delay)
                rv = None
                if self._stop.wait(delay):
                    return
                delay = min(delay * 2, self.backoff[1])

    def _list(self) -> str | None:
        query: dict[str, Any] = {}
        if self.resource.field_selector:
            query["fieldSelector"] = self.resource.field_selector
        try:
            data = self.session.request("GET", self.resource.path, query=query, timeout=60.0)
        except KubeApiError as exc:
            if exc.status == 404 and not self.resource.required:
                logger.info("%s (%s) is not served by this API server: not watched",
                            self.resource.plural, self.resource.api_version)
                self.absent = True
                self.synced.set()
                return None
            if exc.status == 403 and not self.resource.required:
                # an optional kind (a CRD of scheduler-plugins...) the scheduler's ClusterRole does
                # not grant: schedule without it rather than wait for it for ever
                logger.warning("%s (%s): listing is forbidden to this scheduler (grant list and watch "
                               "on it in its ClusterRole to use it): not watched",
                               self.resource.plural, self.resource.api_version)
                self.absent = True
                self.synced.set()
                return None
            raise
        items = (data.get("items") or []) if isinstance(data, Mapping) else []
        fresh: dict[str, Mapping[str, Any]] = {}
        for raw in items:
            obj = dict(raw)
            obj.setdefault("kind", self.resource.kind)
            obj.setdefault("apiVersion", self.resource.api_version)
            fresh[_key(obj)] = obj
        if self.synced.is_set():
            self.relists += 1
        old_store = self.store
        # deletions first (a replaced object may have moved), then additions and changes
        for key, old in list(old_store.items()):
            if key not in fresh:
                del old_store[key]
                self._deliver("DELETED", old, None)
        for key, item in fresh.items():
            prev = old_store.get(key)
            old_store[key] = item
            if prev is None:
                self._deliver("ADDED", item, None)
            elif _rv(prev) != _rv(item):
                self._deliver("MODIFIED", item, prev)
        self.synced.set()
        meta = (data.get("metadata") or {}) if isinstance(data, Mapping) else {}
        self.resource_version = str(meta.get("resourceVersion") or "")
        return self.resource_version

    def _watch(self, rv: str) -> str:
        query: dict[str, Any] = {"resourceVersion": rv, "allowWatchBookmarks": "true",
                                 "timeoutSeconds": int(self.watch_timeout)}
        if self.resource.field_selector:
            query["fieldSelector"] = self.resource.field_selector
        for event in self.session.watch(self.resource.path, query, timeout=self.watch_timeout + 30,
                                        max_event_bytes=self.max_event_bytes,
                                        event_deadline=self.event_deadline):
            if self._stop.is_set():
                break
            kind = event.get("type")
            obj = event.get("object")
            if not isinstance(obj, Mapping):
                continue
            if kind == "ERROR":
                code = int(obj.get("code") or 0)
                raise KubeApiError("GET", self.resource.path, code, str(obj.get("reason") or ""),
                                   str(obj.get("message") or "watch error"))
            new_rv = _rv(obj)
            if kind == "BOOKMARK":
                self.bookmarks += 1
                rv = self.resource_version = new_rv or rv
                continue
            o = dict(obj)
            o.setdefault("kind", self.resource.kind)
            o.setdefault("apiVersion", self.resource.api_version)
            key = _key(o)
            prev = self.store.get(key)
            if kind == "DELETED":
                self.store.pop(key, None)
                self._deliver("DELETED", o, None)
            elif kind in ("ADDED", "MODIFIED"):
                self.store[key] = o
                self._deliver("ADDED" if prev is None else "MODIFIED", o, prev)
            rv = self.resource_version = new_rv or rv
        return rv

    def _deliver(self, event: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> None:
        try:
            self.handler(event, obj, old)
        except Exception:
            logger.exception("%s %s %s: handler failed", self.resource.kind, _key(obj), event.lower())


def _rv(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")
