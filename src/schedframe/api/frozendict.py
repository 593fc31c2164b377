"""A read-only, hashable ``dict`` used for the mappings inside frozen api objects."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")

__all__ = ["FrozenDict", "as_tuple", "deep_freeze", "freeze", "str_map", "thaw"]


class FrozenDict(dict[K, V]):
    """A ``dict`` that refuses mutation and hashes by content.

    Subclassing ``dict`` keeps lookups as fast as a plain dict's, which matters on the per-node
    paths (label lookups in selectors).
    """

    __slots__ = ("_hash",)

    def _readonly(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("FrozenDict is read-only; build a new one instead")

    __setitem__ = _readonly
    __delitem__ = _readonly
    clear = _readonly
    pop = _readonly
    popitem = _readonly
    setdefault = _readonly
    update = _readonly
    __ior__ = _readonly

    _hash: int

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            h = hash(frozenset(self.items()))
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        return f"{dict(self)!r}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict[K, V]:
        return self


_EMPTY: FrozenDict[Any, Any] = FrozenDict()


def freeze(value: Mapping[K, V] | Iterable[tuple[K, V]] | None) -> FrozenDict[K, V]:
    """Convert a mapping (or ``None``) into a :class:`FrozenDict`, sharing the empty one."""
    if isinstance(value, FrozenDict):
        return value
    if not value:
        return _EMPTY
    return FrozenDict(value)


def str_map(value: Mapping[str, str] | None) -> FrozenDict[str, str]:
    """:func:`freeze` typed for the ``str -> str`` maps (labels, selectors, attributes): an attrs
    converter whose argument type checkers can read."""
    return freeze(value)


def as_tuple(value: Iterable[Any] | None) -> tuple[Any, ...]:
    """*value* as a tuple (``()`` for ``None``; a tuple is kept as it is): the converter of the
    api objects' sequence fields."""
    if value is None:
        return ()
    return value if isinstance(value, tuple) else tuple(value)


def deep_freeze(value: Any) -> Any:
    """*value* with every mapping made a :class:`FrozenDict` and every list a tuple, all the way
    down (opaque manifest fields kept as written, hashable and immutable)."""
    if isinstance(value, Mapping):
        return freeze({k: deep_freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(deep_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain ``dict`` / ``list`` form of a :func:`deep_freeze` result (for writing it out)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
