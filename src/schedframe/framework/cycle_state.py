"""``CycleState``: per-scheduling-cycle storage shared by the plugins of one profile."""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar, final, runtime_checkable

import attrs

from ..errors import StateNotFoundError

__all__ = ["CycleState", "StateData", "StateKey"]

T = TypeVar("T")


@runtime_checkable
class StateData(Protocol):
    """Optional protocol for mutable values stored in a :class:`~schedframe.CycleState`.

    A value with a ``clone()`` method is cloned by :meth:`schedframe.CycleState.clone` (preemption
    simulates removing pods on a cloned state); frozen values are shared.
    """

    def clone(self) -> Any: ...


@final
@attrs.frozen
class StateKey(Generic[T]):
    """A typed :class:`~schedframe.CycleState` key: ``state.read(KEY)`` is typed as the value written.

    Args:
        name: unique key name, conventionally ``"PreFilter" + plugin name``.
        writer: the plugin expected to write it, named in :class:`~schedframe.errors.StateNotFoundError`.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    name: str
    writer: str = ""


@final
class CycleState:
    """Storage for one scheduling cycle of one pod.

    Plugins write what they computed in PreFilter/PreScore and read it in Filter/Score.
    The framework keeps its skip sets here too.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"
    __slots__ = (
        "_data",
        "pods_to_activate",
        "record_plugin_metrics",
        "skip_filter_plugins",
        "skip_pre_bind_plugins",
        "skip_score_plugins",
    )

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        #: Filter plugins whose PreFilter returned SKIP for this pod.
        self.skip_filter_plugins: frozenset[str] | set[str] = frozenset()
        #: Score plugins whose PreScore returned SKIP for this pod.
        self.skip_score_plugins: frozenset[str] | set[str] = frozenset()
        self.skip_pre_bind_plugins: frozenset[str] | set[str] = frozenset()
        #: Pods (by key) a plugin asks the queue to move to activeQ at the end of the cycle.
        self.pods_to_activate: dict[str, Any] = {}
        self.record_plugin_metrics = False

    def read(self, key: StateKey[T]) -> T:
        """Read *key*; raises :class:`~schedframe.errors.StateNotFoundError` naming the key and writer."""
        try:
            return self._data[key.name]  # type: ignore[no-any-return]
        except KeyError:
            who = (f" (written by plugin {key.writer!r} in PreFilter/PreScore; did it run?)"
                   if key.writer else "")
            raise StateNotFoundError(f"cycle state key {key.name!r} not found{who}") from None

    def get(self, key: StateKey[T]) -> T | None:
        """Read *key*, or ``None`` when absent."""
        return self._data.get(key.name)

    def write(self, key: StateKey[T], value: T) -> None:
        """Store *value* under *key*."""
        self._data[key.name] = value

    def delete(self, key: StateKey[Any]) -> None:
        """Remove *key* if present."""
        self._data.pop(key.name, None)

    def __contains__(self, key: StateKey[Any]) -> bool:
        return key.name in self._data

    def clone(self) -> CycleState:
        """A copy whose values are cloned (values with ``clone()``) or shared (frozen values)."""
        new = CycleState()
        for k, v in self._data.items():
            clone = getattr(v, "clone", None)
            new._data[k] = clone() if callable(clone) else v
        new.skip_filter_plugins = self.skip_filter_plugins
        new.skip_score_plugins = self.skip_score_plugins
        new.skip_pre_bind_plugins = self.skip_pre_bind_plugins
        new.pods_to_activate = self.pods_to_activate
        new.record_plugin_metrics = self.record_plugin_metrics
        return new
