"""``Registry``: plugin names to factories (upstream ``runtime.Registry``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, final

import attrs

from ..errors import DuplicatePluginError, UnknownPluginError, did_you_mean
from .handle import Handle
from .interfaces import Plugin

__all__ = ["PluginFactory", "Registry", "RegistryEntry"]

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
    ``register``; unknown names raise :class:`~schedframe.UnknownPluginError` suggesting the
    closest registered name.

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
        """Add *name*; raises :class:`~schedframe.DuplicatePluginError` if already present."""
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
        return f"no plugin named {name!r} in the registry{did_you_mean(name, self._entries)}"

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
