"""``Registry``: plugin names to factories (upstream ``runtime.Registry``)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar, final

import attrs

from ..errors import DuplicatePluginError, PluginArgsError, UnknownPluginError, closest_name
from .args import args_decoder, decode_args, validate_args
from .handle import Handle
from .interfaces import Plugin

__all__ = ["PluginFactory", "Registry", "RegistryEntry", "close_plugin_name", "plugin_args",
           "unknown_plugin_message"]


_A = TypeVar("_A")

#: ``new(args, handle) -> plugin``. *args* is ``None`` (use defaults) or the plugin's args object.
PluginFactory = Callable[[Any, Handle], Plugin]


@final
@attrs.frozen
class RegistryEntry:
    """A registered factory and the args class its ``pluginConfig`` args decode into."""

    __module__ = "schedframe"

    factory: PluginFactory
    args_type: type | None = None


@final
class Registry(Mapping[str, RegistryEntry]):
    """Maps plugin names to factories.

    ``register`` refuses duplicates, ``unregister`` refuses unknown names, ``merge`` goes through
    ``register``; unknown names raise :class:`~schedframe.UnknownPluginError` suggesting a
    registered name only when one is close (``close_plugin_name``), else saying the name is
    not registered.

    An *args_type* is a class with ``from_dict(mapping)`` (decoding the camelCase
    ``pluginConfig[].args``) whose no-argument construction gives upstream's defaults.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, entries: Mapping[str, RegistryEntry | PluginFactory] | None = None) -> None:
        self._entries: dict[str, RegistryEntry] = {}
        for name, entry in (entries or {}).items():
            if isinstance(entry, RegistryEntry):
                self.register(name, entry.factory, args_type=entry.args_type)
            else:
                self.register(name, entry)

    def register(self, name: str, factory: PluginFactory, *, args_type: type | None = None) -> None:
        """Add *name*; raises :class:`~schedframe.errors.DuplicatePluginError` if already present."""
        if not isinstance(name, str) or not name:
            raise DuplicatePluginError(f"plugin name must be a non-empty string, got {name!r}")
        if name in self._entries:
            raise DuplicatePluginError(f"a plugin named {name!r} already exists in the registry")
        if not callable(factory):
            raise TypeError(f"factory for plugin {name!r} must be callable, got {factory!r}")
        self._entries[name] = RegistryEntry(factory, args_type)

    def unregister(self, name: str) -> None:
        """Remove *name*; raises :class:`~schedframe.UnknownPluginError` if absent."""
        if name not in self._entries:
            raise UnknownPluginError(self._unknown(name))
        del self._entries[name]

    def merge(self, other: Registry) -> None:
        """Register every entry of *other* (duplicates are errors)."""
        for name, entry in other.items():
            self.register(name, entry.factory, args_type=entry.args_type)

    def _unknown(self, name: str) -> str:
        return unknown_plugin_message(name, self._entries)

    def __getitem__(self, name: str) -> RegistryEntry:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownPluginError(self._unknown(name)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({sorted(self._entries)!r})"


def close_plugin_name(name: str, candidates: Iterable[str]) -> str | None:
    """The registered name *name* is most likely a typo of, or ``None``
    (:func:`schedframe.errors.closest_name`: letter case, or one edit per five characters).

    .. versionadded:: 0.1.0
    """
    return closest_name(name, candidates)


def unknown_plugin_message(name: str, candidates: Iterable[str]) -> str:
    """``no plugin named 'X' in the registry`` with a suggestion when a registered name is close
    (:func:`close_plugin_name`), else saying the plugin is not registered."""
    close = close_plugin_name(name, candidates)
    if close is not None:
        return f"no plugin named {name!r} in the registry; did you mean {close!r}?"
    return (f"no plugin named {name!r} in the registry: it is not registered (register it in the "
            "registry passed as registry=, or install the distribution that provides it)")


def plugin_args(args: object, args_type: type[_A], *, shown: str | None = None, validate: bool = True) -> _A:
    """A plugin factory's *args* as its declared *args_type*: ``None`` gives the defaults, an
    instance is kept, a camelCase ``pluginConfig`` mapping is decoded (the type's own
    ``from_dict``, or :func:`~schedframe.framework.args.decode_args` for a plain attrs class);
    the result is checked when *validate* (``validate()`` or ``errors()``). Anything else is a
    :class:`~schedframe.PluginArgsError` naming the type (*shown*, else its name): the one
    coercion every factory with args used to write out.

    .. versionadded:: 0.1.0
    """
    decode = args_decoder(args_type)
    if args is None:
        parsed = args_type()
    elif isinstance(args, args_type):
        parsed = args
    elif isinstance(args, Mapping) and attrs.has(args_type) and not hasattr(args_type, "from_dict"):
        parsed = typing.cast(_A, decode_args(args_type, args, validate=False))
    elif isinstance(args, Mapping) and decode is not None:
        parsed = decode(args)
    else:
        raise PluginArgsError(f"want args of type {shown or args_type.__name__}, got {type(args).__name__}")
    if validate:
        validate_args(parsed)
    return parsed
