"""``ObjectStore``: the cluster objects other than nodes and pods, keyed by kind/namespace/name."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, final

from ..api.objects import Namespace
from ..errors import CacheError

__all__ = ["ObjectStore"]

T = TypeVar("T")


@final
class ObjectStore:
    """A small thread-safe store implementing :class:`~schedframe.framework.ObjectLister`.

    Objects are keyed by type, ``namespace`` (when they have one) and ``name``; adding an object
    with the same key replaces the old one.
    """

    __module__ = "schedframe.cache"

    def __init__(self, objects: Any = ()) -> None:
        self._by_kind: dict[type, dict[tuple[str, str], Any]] = {}
        #: the same objects per kind and namespace (name -> object), for list(kind, namespace)
        self._by_namespace: dict[type, dict[str, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._watchers: list[Callable[[Any, Any], None]] = []
        #: per kind, how many times objects of it were added or removed: what is derived from a
        #: kind's objects stays valid while its count does
        self._revisions: dict[type, int] = {}
        #: open checkpoints (begin/commit/revert): each maps (kind, key) to the object it had
        #: before its first change in the checkpoint (None: absent)
        self._journals: list[dict[tuple[type, tuple[str, str]], Any]] = []
        for obj in objects:
            self.add(obj)

    def watch(self, callback: Callable[[Any, Any], None]) -> None:
        """Call ``callback(old, new)`` after every :meth:`add` (``old`` is ``None`` for a new
        object) and ``callback(old, None)`` after every :meth:`remove` of a present object,
        unless the call passed ``notify=False``. Plugins writing objects (DynamicResources'
        claim updates) reach the scheduler's queue this way, as API writes reach informers."""
        self._watchers.append(callback)

    def _notify(self, old: Any, new: Any) -> None:
        for callback in self._watchers:
            callback(old, new)

    @staticmethod
    def _key(obj: Any) -> tuple[str, str]:
        return (getattr(obj, "namespace", "") or "", obj.name)

    def add(self, obj: Any, *, notify: bool = True) -> Any:
        """Add or replace *obj*; returns the object it replaced, or ``None``."""
        key = self._key(obj)
        with self._lock:
            kind = self._by_kind.setdefault(type(obj), {})
            old = kind.get(key)
            if self._journals:
                self._journals[-1].setdefault((type(obj), key), old)
            kind[key] = obj
            self._revisions[type(obj)] = self._revisions.get(type(obj), 0) + 1
            self._by_namespace.setdefault(type(obj), {}).setdefault(key[0], {})[key[1]] = obj
        if notify and self._watchers:
            self._notify(old, obj)
        return old

    def remove(self, obj: Any, *, notify: bool = True) -> Any:
        """Remove the object with *obj*'s key; returns it, or ``None`` if absent."""
        key = self._key(obj)
        with self._lock:
            if self._journals and key in self._by_kind.get(type(obj), {}):
                self._journals[-1].setdefault((type(obj), key), self._by_kind[type(obj)][key])
            old = self._by_kind.get(type(obj), {}).pop(key, None)
            if old is not None:
                self._revisions[type(obj)] += 1
                names = self._by_namespace[type(obj)][key[0]]
                del names[key[1]]
                if not names:
                    del self._by_namespace[type(obj)][key[0]]
        if notify and old is not None and self._watchers:
            self._notify(old, None)
        return old

    # -- checkpoints ------------------------------------------------------------------------------
    def begin(self) -> None:
        """Open a checkpoint: until the matching :meth:`commit` or :meth:`revert` the store
        remembers each object as it was before its first change (nested checkpoints each
        their own). Watchers are not called when a revert puts objects back."""
        with self._lock:
            self._journals.append({})

    def commit(self) -> None:
        """Close the innermost checkpoint, keeping its changes."""
        with self._lock:
            j = self._pop("commit")
            if self._journals:
                parent = self._journals[-1]
                for k, v in j.items():
                    parent.setdefault(k, v)

    def revert(self) -> None:
        """Close the innermost checkpoint, putting back every object it changed. The kinds
        touched get new revisions (never one seen before), so what was derived from them
        during the checkpoint is recomputed."""
        with self._lock:
            j = self._pop("revert")
            kinds: set[type] = set()
            for (kind, key), old in j.items():
                kinds.add(kind)
                objs = self._by_kind.setdefault(kind, {})
                by_ns = self._by_namespace.setdefault(kind, {})
                if old is None:
                    objs.pop(key, None)
                    names = by_ns.get(key[0])
                    if names is not None:
                        names.pop(key[1], None)
                        if not names:
                            del by_ns[key[0]]
                else:
                    objs[key] = old
                    by_ns.setdefault(key[0], {})[key[1]] = old
            for kind in kinds:
                self._revisions[kind] = self._revisions.get(kind, 0) + 1

    def _pop(self, what: str) -> dict[tuple[type, tuple[str, str]], Any]:
        if not self._journals:
            raise CacheError(f"ObjectStore.{what}: no checkpoint is open (call begin() first)")
        return self._journals.pop()

    def _revision(self, kind: type) -> int:
        """How many times objects of *kind* were added or removed (0: never)."""
        return self._revisions.get(kind, 0)

    def all(self) -> list[Any]:
        """Every object, kind by kind in the order kinds were first added."""
        with self._lock:
            return [obj for objs in self._by_kind.values() for obj in objs.values()]

    def get(self, kind: type[T], name: str, namespace: str = "") -> T | None:
        """The object of *kind* named *name* in *namespace*."""
        return self._by_kind.get(kind, {}).get((namespace, name))

    def namespace(self, name: str) -> Namespace | None:
        """The Namespace *name*, or ``None``."""
        return self._by_kind.get(Namespace, {}).get(("", name))

    def list(self, kind: type[T], namespace: str | None = None) -> list[T]:
        """Objects of *kind* (in *namespace* when given), in insertion order."""
        objs = self._by_kind.get(kind)
        if not objs:
            return []
        if namespace is None:
            return list(objs.values())
        names = self._by_namespace[kind].get(namespace)
        return list(names.values()) if names else []
