"""Building a profile's plugins: the registry's factories called with the profile's args, and
multiPoint expanded into each extension point as upstream's ``NewFramework`` does. The
:class:`ProfileLike` Protocols say what is read of a profile. Imports no other runtime module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from ..errors import ConfigurationError, RegistryError
from ._scoring import _detail
from .args import args_decoder
from .interfaces import Plugin
from .plugin_names import EXTENSION_POINT_TABLE
from .registry import Registry

__all__ = ["EXTENSION_POINT_METHODS", "PluginRefLike", "ProfileLike", "build_plugins", "multi_point_order"]

#: extension point (config spelling) -> (display name, methods a plugin needs there); from
#: :data:`~schedframe.framework.plugin_names.EXTENSION_POINT_TABLE`
EXTENSION_POINT_METHODS: Final[Mapping[str, tuple[str, tuple[str, ...]]]] = {
    point: (ep.display, ep.methods) for point, ep in EXTENSION_POINT_TABLE.items()
}
_MULTI_POINT: Final = "multiPoint"


class PluginRefLike(Protocol):
    """What the framework reads from a ``PluginRef``."""

    @property
    def name(self) -> str: ...

    @property
    def weight(self) -> int: ...


class ProfileLike(Protocol):
    """What the framework reads from a :class:`~schedframe.config.Profile` (structural, so any object
    with these attributes works)."""

    @property
    def scheduler_name(self) -> str: ...

    @property
    def plugins(self) -> Mapping[str, Sequence[PluginRefLike]]: ...

    @property
    def plugin_args(self) -> Mapping[str, Any]: ...

    @property
    def percentage_of_nodes_to_score(self) -> int | None: ...


def _implements(plugin: object, methods: Sequence[str]) -> str | None:
    """The first of *methods* that *plugin* lacks, or ``None``."""
    for m in methods:
        if not callable(getattr(plugin, m, None)):
            return m
    return None



def multi_point_order(explicit: Sequence[str], multi: Sequence[str]) -> list[str]:
    """Upstream ``expandMultiPointPlugins``' order at one extension point: the point's own
    (*explicit*) plugins that multiPoint also names first (they override its entries), then
    multiPoint's plugins for this point (*multi*, in its order), then the other explicit ones.
    The one ordering of the configuration's effective plugins and the runtime's."""
    explicit_set = set(explicit)
    overridden = {n for n in multi if n in explicit_set}
    from_multi = list(dict.fromkeys(n for n in multi if n not in explicit_set))
    return ([n for n in explicit if n in overridden] + from_multi
            + [n for n in explicit if n not in overridden])


def build_plugins(registry: Registry, profile: ProfileLike, handle: Any, fallbacks: Mapping[str, Plugin]
              ) -> tuple[dict[str, Plugin], dict[str, list[Plugin]], dict[str, int]]:
    """A profile's plugins built from *registry* (each factory given *handle*), the plugins of
    each extension point in run order (multiPoint expanded as upstream does, explicit entries
    first where they override it; *fallbacks* fill an empty point) and the Score weights;
    raises :class:`~schedframe.ConfigurationError` naming the profile."""
    plugins_by_name: dict[str, Plugin] = {}
    points: dict[str, list[Plugin]] = {}
    weights: dict[str, int] = {}
    who = f"profile {profile.scheduler_name!r}"
    refs_by_point = {p: tuple(profile.plugins.get(p, ())) for p in EXTENSION_POINT_METHODS}
    multi = tuple(profile.plugins.get(_MULTI_POINT, ()))
    unknown_points = sorted(set(profile.plugins) - set(EXTENSION_POINT_METHODS) - {_MULTI_POINT})
    if unknown_points:
        raise ConfigurationError(f"{who}: unknown extension point(s) {unknown_points}; "
                                 f"known: {[*EXTENSION_POINT_METHODS, _MULTI_POINT]}")
    needed: dict[str, None] = {}
    for refs in (*refs_by_point.values(), multi):
        for ref in refs:
            needed.setdefault(ref.name, None)

    args_by_name = profile.plugin_args
    for name in needed:
        try:
            entry = registry[name]
        except RegistryError as exc:
            raise ConfigurationError(f"{who}: {exc}") from exc
        args = args_by_name.get(name)
        try:
            if isinstance(args, Mapping) and entry.args_type is not None:
                decode = args_decoder(entry.args_type)
                if decode is not None:
                    args = decode(args)
            plugin = entry.factory(args, handle)
        except Exception as exc:
            raise ConfigurationError(f"{who}: initializing plugin {name!r}: {_detail(exc)}") from exc
        plugin_name = getattr(plugin, "name", None)
        if plugin_name != name:
            raise ConfigurationError(
                f"{who}: plugin registered as {name!r} reports name {plugin_name!r}; "
                "a plugin's name must match its registry name"
            )
        plugins_by_name[name] = plugin

    for point, (display, methods) in EXTENSION_POINT_METHODS.items():
        explicit: list[str] = []
        for ref in refs_by_point[point]:
            missing = _implements(plugins_by_name[ref.name], methods)
            if missing is not None:
                raise ConfigurationError(
                    f"plugin {ref.name!r} is enabled at {display} but has no {missing}() method"
                )
            if ref.name in explicit:
                raise ConfigurationError(f"{who}: plugin {ref.name!r} is enabled twice at {display}")
            explicit.append(ref.name)
        order = explicit
        if multi:
            here: list[str] = []
            for ref in multi:
                if _implements(plugins_by_name[ref.name], methods) is not None:
                    continue
                if ref.name in here and ref.name not in explicit:
                    raise ConfigurationError(
                        f"{who}: plugin {ref.name!r} is enabled twice at multiPoint"
                    )
                here.append(ref.name)
            order = multi_point_order(explicit, here)
        plugins = [plugins_by_name[n] for n in order]
        if not plugins and point in fallbacks:
            fb = fallbacks[point]
            plugins_by_name.setdefault(fb.name, fb)
            plugins = [fb]
        points[point] = plugins

    sorts = points["queueSort"]
    if len(sorts) != 1:
        raise ConfigurationError(
            f"{who}: exactly one QueueSort plugin is required, got {len(sorts)}"
            + (f" ({', '.join(p.name for p in sorts)})" if sorts else "")
        )
    if not points["bind"]:
        raise ConfigurationError(f"{who}: at least one Bind plugin is required")

    for ref in (*refs_by_point["score"], *multi):
        if ref.name in weights or ref.name not in plugins_by_name:
            continue
        if _implements(plugins_by_name[ref.name], EXTENSION_POINT_METHODS["score"][1]) is not None:
            continue
        if ref.weight < 0:
            raise ConfigurationError(f"{who}: score plugin {ref.name!r} has negative weight {ref.weight}")
        weights[ref.name] = ref.weight or 1
    for p in points["score"]:
        weights.setdefault(p.name, 1)
    return plugins_by_name, points, weights
