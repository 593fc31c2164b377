"""Scheduler configuration: ``KubeSchedulerConfiguration`` (``kubescheduler.config.k8s.io/v1``).

:class:`~schedframe.SchedulerConfiguration` reads the same document kube-scheduler reads (``--config``), from
a
mapping (:meth:`schedframe.SchedulerConfiguration.from_dict`), YAML text
(:meth:`schedframe.SchedulerConfiguration.from_yaml`) or a file
(:meth:`schedframe.SchedulerConfiguration.from_file`),
and applies upstream's semantics:

* **Defaults.** Every profile starts from upstream's default plugin set, declared at
  ``multiPoint`` (:data:`UPSTREAM_DEFAULT_PLUGINS`); the user's ``enabled`` / ``disabled`` lists
  (``"*"`` disables every default at that point) are merged on top exactly as kube-scheduler's
  ``mergePlugins`` does: a re-listed default plugin is replaced in place (its order kept), other
  enabled plugins are appended. Top-level defaults: ``parallelism`` 16, adaptive
  ``percentageOfNodesToScore``, ``podInitialBackoffSeconds`` 1, ``podMaxBackoffSeconds`` 10, one
  profile named ``default-scheduler``.
* **MultiPoint expansion.** A ``multiPoint`` plugin is placed at every extension point it
  implements, unless that point disables it (or ``"*"``). A plugin also enabled explicitly at a
  point keeps its explicit position there: explicitly re-configured multiPoint plugins come first
  (in their explicit order), then the remaining multiPoint plugins, then the other explicit ones.
  A Score weight given at ``score`` wins over the ``multiPoint`` weight; a weight of 0 (unset)
  means 1. ``Profile.plugins`` holds the result: the *effective* plugin list of every point.
* **Plugins schedframe does not provide.** Upstream default plugins absent from the registry
  (``DynamicResources``, ...) are dropped from the default profile and listed in
  :attr:`schedframe.SchedulerConfiguration.omitted_upstream_plugins`; enabling one explicitly is an error,
  disabling one is accepted, and their ``pluginConfig`` entries are ignored.
* **Validation.** Every problem in the document is reported at once, in one
  :class:`~schedframe.ConfigurationError` whose ``errors`` list names each field path, e.g.
  ``profiles[1].schedulerName: Duplicate value: "default-scheduler"``. ``pluginConfig[].args``
  are decoded through the registry entry's ``args_type.from_dict`` and their errors reported
  under ``profiles[i].pluginConfig[j].args.``. Unknown fields are errors at every level
  (kube-scheduler's strict decoding).
* **Older versions.** ``v1beta2`` and ``v1beta3`` documents are read with the defaults and
  fields kube-scheduler gave them and converted to v1, with a
  :class:`~schedframe.config.ConfigurationDeprecationWarning` (see :mod:`schedframe.config._versions`);
  older versions are refused naming the release that removed them.

Which extension points a plugin implements
------------------------------------------
Expansion needs to know, for every plugin name, the points its plugin implements. A registry
holds factories, not classes, so by default the configuration *probes* the registry: it builds
each referenced plugin once with the args the profile's ``pluginConfig`` gives it (else the
args type's defaults, else ``None``) and an inert :class:`~schedframe.Handle` (empty snapshot
and object store, no-op client and recorder), and checks the runtime-checkable extension-point
Protocols (:func:`~schedframe.config.extension_points_of`). Successful results are cached per factory. A
factory
that cannot be built that way (it needs a live cluster) can be described instead through the
*implements* argument: a mapping from plugin name to its points, or a callable
``name -> points``; names it does not cover are probed.

Without a *registry*, the in-tree registry (:func:`schedframe.plugins.in_tree_registry`) is used.
Pass the registry the scheduler will run with when it holds out-of-tree plugins.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, final

import attrs

from .. import _textio
from ..api.frozendict import FrozenDict, deep_freeze, freeze, thaw
from ..errors import (
    MAX_VALUE_REPR,
    ConfigurationError,
    PluginArgsError,
    RegistryError,
    SchedframeError,
    bounded_repr,
    did_you_mean,
    json_type_name,
)
from ..framework._build import multi_point_order
from ..framework.args import args_decoder, encode_args, validate_args
from ..framework.plugin_names import EXTENSION_POINTS, default_registry
from ..framework.probe import extension_points_of
from ..framework.probe import probe_plugin as _probe
from ..framework.registry import Registry, unknown_plugin_message
from ..framework.releases import ReleaseProfile, release_profile
from ._reader import MAX_CONFIG_ERROR, FieldReader, _child, _fmt, _join_args_error, _q
from ._versions import (
    LEGACY_SCORE_PLUGINS,
    REMOVED_API_VERSIONS,
    REMOVED_PLUGINS,
    VersionSpec,
    convert_legacy_score_plugins,
    v1_spec,
    version_spec,
    warn_deprecated,
)
from .extenders import ExtenderConfig, read_extenders

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "KIND",
    "MAX_CONFIG_ERROR",
    "MAX_CONFIG_FILE_BYTES",
    "MULTI_POINT",
    "NOT_PROVIDED_UPSTREAM_PLUGINS",
    "UPSTREAM_DEFAULT_PLUGINS",
    "PluginRef",
    "PointsOf",
    "Profile",
    "SchedulerConfiguration",
    "extension_points_of",
]

#: The configuration's ``apiVersion``.
API_VERSION: Final = "kubescheduler.config.k8s.io/v1"
#: The largest configuration file :meth:`schedframe.SchedulerConfiguration.from_file` reads (4 MiB; real
#: configurations are a few kilobytes).
MAX_CONFIG_FILE_BYTES: Final = 4 * 1024 * 1024
#: The configuration's ``kind``.
KIND: Final = "KubeSchedulerConfiguration"
#: The scheduler name of the default profile (``pod.spec.schedulerName`` default).
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
#: The pseudo extension point that places a plugin at every point it implements.
MULTI_POINT: Final = "multiPoint"

#: ``name -> extension points`` (``"filter"``, ``"score"``, ...) of a plugin.
PointsOf = Callable[[str], Iterable[str]]

_WILDCARD: Final = "*"



@final
@attrs.frozen
class PluginRef:
    """A plugin enabled at an extension point.

    Args:
        name: the registered plugin name.
        weight: the Score weight; ``0`` means unset (the framework uses 1). In
            ``Profile.plugins`` the ``score`` entries carry their effective weight.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.config"

    name: str
    weight: int = 0


#: kube-scheduler's default plugins (``getDefaultPlugins`` in
#: ``pkg/scheduler/apis/config/v1/default_plugins.go``, default feature gates) in the newest
#: release schedframe emulates, all at ``multiPoint``, in upstream order, with their Score
#: weights; other releases: ``ReleaseProfile.default_plugins``.
UPSTREAM_DEFAULT_PLUGINS: Final[tuple[PluginRef, ...]] = tuple(
    PluginRef(name, weight) for name, weight in release_profile().default_plugins)

#: kube-scheduler plugins that schedframe does not provide, with the reason. Enabling one
#: explicitly is a configuration error (unless the registry has a plugin of that name).
NOT_PROVIDED_UPSTREAM_PLUGINS: Final[Mapping[str, str]] = FrozenDict({
})

# Plugins removed from kube-scheduler that upstream validation rejects in a v1 configuration.
_REMOVED_UPSTREAM_PLUGINS: Final = frozenset({"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"})

_PROFILE_FIELDS: Final = frozenset({"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"})
_CONVERTED_VERSIONS: Final = '"kubescheduler.config.k8s.io/v1beta2", "kubescheduler.config.k8s.io/v1beta3"'


# --------------------------------------------------------------------------------------------
# Value objects
# --------------------------------------------------------------------------------------------


def _plugins_converter(
    value: Mapping[str, Iterable[PluginRef | str]] | None,
) -> FrozenDict[str, tuple[PluginRef, ...]]:
    value = value or {}
    for point in value:
        if point not in EXTENSION_POINTS:
            raise ConfigurationError(
                f"unknown extension point {_q(point)}{did_you_mean(str(point), EXTENSION_POINTS)}")
    return FrozenDict({
        point: tuple(PluginRef(ref) if isinstance(ref, str) else ref for ref in value.get(point, ()))
        for point in EXTENSION_POINTS
    })


def _args_converter(value: Mapping[str, Any] | None) -> FrozenDict[str, Any]:
    return freeze(dict(value or {}))


def _profiles_converter(value: Iterable[Profile]) -> tuple[Profile, ...]:
    return tuple(value)


def _names_converter(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _extenders_converter(value: Iterable[ExtenderConfig]) -> tuple[ExtenderConfig, ...]:
    return tuple(value)


def _pct_converter(value: int | None) -> int | None:
    # Globally, 0 and unset both mean "adaptive" upstream; keep a single representation.
    return None if value == 0 else value


@final
@attrs.frozen(kw_only=True)
class Profile:
    """One scheduling profile (upstream ``KubeSchedulerProfile``), fully resolved.

    Build one with :meth:`from_dict` (a v1 profile mapping) or :meth:`from_plugins`; both apply
    upstream defaults, MultiPoint expansion and validation. Constructing it directly takes the
    given lists as they are.

    Args:
        scheduler_name: pods with ``spec.schedulerName`` equal to it use this profile.
        plugins: the *effective* enabled plugins of every extension point of
            :data:`~schedframe.EXTENSION_POINTS`, in run order; ``score`` entries carry their effective
            weight. Missing points are empty; plain names become :class:`~schedframe.config.PluginRef`.
        plugin_args: plugin name to its args: an args object decoded through the registry's
            ``args_type`` (defaults filled in for every enabled plugin that has one), or the raw
            mapping for plugins without an ``args_type``.
        percentage_of_nodes_to_score: overrides the configuration-wide value; ``None`` inherits
            it, ``0`` means adaptive for this profile.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.config"

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: Mapping[str, tuple[PluginRef, ...]] = attrs.field(
        factory=dict, converter=_plugins_converter)
    plugin_args: Mapping[str, Any] = attrs.field(factory=dict, converter=_args_converter)
    percentage_of_nodes_to_score: int | None = None
    #: the kube-scheduler release the profile was read for (plugins read it through their handle)
    release: ReleaseProfile = attrs.field(factory=release_profile, eq=False, repr=False)

    def plugins_at(self, point: str) -> tuple[PluginRef, ...]:
        """The effective plugins enabled at *point* (``"filter"``, ``"score"``, ...), in order."""
        try:
            return self.plugins[point]
        except KeyError:
            raise ConfigurationError(
                f"unknown extension point {_q(point)}{did_you_mean(point, EXTENSION_POINTS)}"
            ) from None

    def plugin_names(self) -> tuple[str, ...]:
        """Every plugin enabled at some point, each once, in order of first appearance."""
        return tuple(dict.fromkeys(ref.name for point in EXTENSION_POINTS for ref in self.plugins[point]))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, registry: Registry | None = None,
                  implements: Mapping[str, Iterable[str]] | PointsOf | None = None) -> Profile:
        """Read one ``profiles[]`` entry of a v1 ``KubeSchedulerConfiguration``.

        Upstream defaults are merged in, MultiPoint is expanded and everything is validated, as
        for :meth:`schedframe.SchedulerConfiguration.from_dict`; a missing ``schedulerName`` is
        ``default-scheduler``.

        Raises:
            ConfigurationError: listing every problem, with field paths relative to the profile.
        """
        parser = _Parser(registry, implements)
        profile = parser.profile(data, "", DEFAULT_SCHEDULER_NAME)
        parser.raise_errors("invalid scheduler profile: ")
        assert profile is not None
        return profile

    @classmethod
    def from_plugins(cls, *plugins: str | PluginRef, scheduler_name: str = DEFAULT_SCHEDULER_NAME,
                     args: Mapping[str, Any] | None = None, defaults: bool = True,
                     percentage_of_nodes_to_score: int | None = None,
                     registry: Registry | None = None,
                     implements: Mapping[str, Iterable[str]] | PointsOf | None = None) -> Profile:
        """Build a profile from plugin names, each placed at every extension point it implements.

        Equivalent to a profile whose ``multiPoint.enabled`` lists *plugins* (on top of the
        upstream defaults unless ``defaults=False``, which disables them with ``"*"``)::

            Profile.from_plugins("MyFilter", PluginRef("MyScore", weight=5),
                                 args={"MyScore": {"mode": "fast"}}, registry=my_registry)

        Args:
            plugins: plugin names, or :class:`~schedframe.config.PluginRef` to give a Score weight.
            scheduler_name: the profile's scheduler name.
            args: plugin name to args, a camelCase mapping or an args object.
            defaults: keep upstream's default plugins (``False``: only *plugins*; they must then
                include a queue sort and a bind plugin).
            percentage_of_nodes_to_score: the profile's override.
            registry, implements: as for :meth:`schedframe.SchedulerConfiguration.from_dict`.

        Raises:
            ConfigurationError: listing every problem.
        """
        refs = []
        for p in plugins:
            if not isinstance(p, (str, PluginRef)):
                raise ConfigurationError(f"plugins must be names or PluginRef, got {type(p).__name__}")
            refs.append(_ref_to_dict(PluginRef(p) if isinstance(p, str) else p))
        multi: dict[str, Any] = {"enabled": refs}
        if not defaults:
            multi["disabled"] = [{"name": _WILDCARD}]
        doc: dict[str, Any] = {"schedulerName": scheduler_name, "plugins": {MULTI_POINT: multi}}
        if args:
            doc["pluginConfig"] = [{"name": name, "args": value} for name, value in args.items()]
        if percentage_of_nodes_to_score is not None:
            doc["percentageOfNodesToScore"] = percentage_of_nodes_to_score
        return cls.from_dict(doc, registry=registry, implements=implements)

    def to_dict(self) -> dict[str, Any]:
        """This profile as a v1 ``profiles[]`` entry, self-contained.

        Each point lists its effective plugins (``score`` entries with their weight) and
        ``multiPoint`` disables every default, so reading it back gives the same profile.
        """
        plugins: dict[str, Any] = {MULTI_POINT: {"disabled": [{"name": _WILDCARD}]}}
        for point in EXTENSION_POINTS:
            plugins[point] = {"enabled": [
                _ref_to_dict(PluginRef(ref.name, (ref.weight or 1) if point == "score" else 0))
                for ref in self.plugins[point]
            ]}
        out: dict[str, Any] = {"schedulerName": self.scheduler_name}
        if self.percentage_of_nodes_to_score is not None:
            out["percentageOfNodesToScore"] = self.percentage_of_nodes_to_score
        out["plugins"] = plugins
        configs = []
        for name in sorted(self.plugin_args):
            args = _args_to_dict(self.plugin_args[name])
            configs.append({"name": name} if args is None else {"name": name, "args": args})
        if configs:
            out["pluginConfig"] = configs
        return out


@final
@attrs.frozen
class SchedulerConfiguration:
    """A scheduler configuration (upstream ``KubeSchedulerConfiguration``), fully resolved.

    Args:
        profiles: the profiles; scheduler names are unique.
        percentage_of_nodes_to_score: share of feasible nodes to find before scoring (0-100);
            ``None`` (or 0) is upstream's adaptive default.
        pod_initial_backoff_seconds: first backoff of an unschedulable pod.
        pod_max_backoff_seconds: backoff cap.
        parallelism: upstream's worker count (kept for fidelity; schedframe runs one thread
            per scheduling cycle).
        omitted_upstream_plugins: upstream default plugins absent from the registry, dropped
            from the default plugin set (not part of equality).
        extenders: the scheduler extenders (HTTP webhooks), in configuration order; see
            :class:`~schedframe.ExtenderConfig`.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    profiles: tuple[Profile, ...] = attrs.field(converter=_profiles_converter)
    percentage_of_nodes_to_score: int | None = attrs.field(default=None, converter=_pct_converter)
    pod_initial_backoff_seconds: float = 1.0
    pod_max_backoff_seconds: float = 10.0
    parallelism: int = 16
    omitted_upstream_plugins: tuple[str, ...] = attrs.field(default=(), converter=_names_converter, eq=False)
    extenders: tuple[ExtenderConfig, ...] = attrs.field(default=(), converter=_extenders_converter)
    release: ReleaseProfile = attrs.field(factory=release_profile, repr=False)
    #: the document the configuration was read from (:meth:`with_release` reads it again)
    source: Mapping[str, Any] | None = attrs.field(default=None, eq=False, repr=False)

    def with_release(self, kubernetes_version: str | ReleaseProfile | None = None,
                     feature_gates: Mapping[str, bool] | str | None = None, *,
                     registry: Registry | None = None,
                     implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                     ) -> SchedulerConfiguration:
        """This configuration's document read again for another release (its defaults, gates
        and behaviour, see :doc:`/releases`); ``self`` when the release is the same. A
        configuration built without a document is read from :meth:`to_dict`.

        .. versionadded:: 0.1.0
        """
        # None keeps this release; anything else is parsed ("", 0, False are refused)
        release = release_profile(self.release.version if kubernetes_version is None else kubernetes_version,
                                  feature_gates)
        if release == self.release:
            return self
        data = self.source if self.source is not None else self.to_dict()
        return type(self).from_dict(data, registry=registry, implements=implements,
                                    kubernetes_version=release)

    @classmethod
    def coerce(cls, config: Any, *, registry: Registry | None = None,
               kubernetes_version: str | ReleaseProfile | None = None,
               feature_gates: Mapping[str, bool] | str | None = None, paths: bool = False,
               error: Callable[[str], Exception] | None = None) -> SchedulerConfiguration:
        """What every entry point (``Scheduler``, ``explain``, ``plan``, the simulator) accepts as a
        configuration, as one: ``None`` (upstream's default), a :class:`~schedframe.SchedulerConfiguration`
        (read again for *kubernetes_version*/*feature_gates* when either is given, else kept
        whole, its gates included), a ``KubeSchedulerConfiguration`` mapping, or with
        ``paths=True`` a file's path. Anything else raises ``error(message)`` (default
        :class:`~schedframe.ConfigurationError`), so each entry point keeps its error type.

        .. versionadded:: 0.1.0
        """
        if config is None:
            return cls.default(registry=registry, kubernetes_version=kubernetes_version,
                               feature_gates=feature_gates)
        if isinstance(config, Mapping):
            return cls.from_dict(config, registry=registry, kubernetes_version=kubernetes_version,
                                 feature_gates=feature_gates)
        if paths and isinstance(config, (str, os.PathLike)):
            config = cls.from_file(config, registry=registry)
        if not isinstance(config, SchedulerConfiguration):
            wanted = "a SchedulerConfiguration, a KubeSchedulerConfiguration mapping" + (
                " or a file's path" if paths else "")
            message = f"config must be {wanted}, got {type(config).__name__}"
            raise (error(message) if error is not None else ConfigurationError(message))
        if kubernetes_version is not None or feature_gates:
            # a configuration read for another release is read again for this one
            return config.with_release(kubernetes_version, feature_gates, registry=registry)
        return config

    @classmethod
    def default(cls, *, registry: Registry | None = None,
                implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                kubernetes_version: str | ReleaseProfile | None = None,
                feature_gates: Mapping[str, bool] | str | None = None) -> SchedulerConfiguration:
        """Upstream's default configuration: one ``default-scheduler`` profile with the default
        plugins the registry provides (of *kubernetes_version*, see :meth:`from_dict`)."""
        return cls.from_dict({}, registry=registry, implements=implements,
                             kubernetes_version=kubernetes_version, feature_gates=feature_gates)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, registry: Registry | None = None,
                  implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                  kubernetes_version: str | ReleaseProfile | None = None,
                  feature_gates: Mapping[str, bool] | str | None = None) -> SchedulerConfiguration:
        """Read a ``KubeSchedulerConfiguration`` (``kubescheduler.config.k8s.io/v1``) mapping.

        ``apiVersion`` and ``kind`` may be omitted. Process-level fields (``leaderElection``,
        ``clientConnection``, ``enableProfiling``, ``enableContentionProfiling``,
        ``delayCacheUntilActive``) are checked for unknown fields and otherwise ignored;
        ``extenders`` are read and validated as upstream does (see
        :doc:`/extenders`). A ``v1beta2`` or ``v1beta3`` document is converted to v1
        with the defaults kube-scheduler gave that version, warning with a
        :class:`~schedframe.config.ConfigurationDeprecationWarning`; ``v1beta1``, ``v1alpha1`` and
        ``v1alpha2`` are refused.

        Args:
            data: the document.
            registry: the plugins available; default the in-tree registry.
            implements: extension points of plugins that cannot be probed (see the module
                documentation): a mapping ``name -> points`` or a callable.
            kubernetes_version: the kube-scheduler release to read it as (``"1.33"``; default
                the newest): its default plugins and feature-gate defaults (see
                :doc:`/releases`).
            feature_gates: kube-scheduler's ``--feature-gates``: a mapping ``name -> bool`` or
                ``"Name=true,Other=false"``.

        Raises:
            ConfigurationError: listing every problem of the document, each with its field path.
        """
        parser = _Parser(registry, implements, release_profile(kubernetes_version, feature_gates))
        config = parser.configuration(data)
        parser.raise_errors("invalid KubeSchedulerConfiguration: ")
        assert config is not None
        return config

    @classmethod
    def from_yaml(cls, text: str, *, registry: Registry | None = None,
                  implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                  kubernetes_version: str | ReleaseProfile | None = None,
                  feature_gates: Mapping[str, bool] | str | None = None) -> SchedulerConfiguration:
        """Read a ``KubeSchedulerConfiguration`` from YAML (or JSON) text; needs PyYAML
        (``pip install schedframe[yaml]``). See :meth:`from_dict`."""
        given: object = text
        if isinstance(given, bytes):
            given = _textio.decode_utf8(given, name="the configuration", error=ConfigurationError)
        if not isinstance(given, str):
            raise ConfigurationError(f"from_yaml expects YAML text, got {type(given).__name__}")
        data = _textio.parse_yaml(given, source="the configuration", error=ConfigurationError)
        return cls._from_document(data, registry=registry, implements=implements,
                                  kubernetes_version=kubernetes_version, feature_gates=feature_gates)

    @classmethod
    def _from_document(cls, data: object, *, registry: Registry | None,
                       implements: Mapping[str, Iterable[str]] | PointsOf | None,
                       kubernetes_version: str | ReleaseProfile | None,
                       feature_gates: Mapping[str, bool] | str | None) -> SchedulerConfiguration:
        """A parsed document read as :meth:`from_dict` reads it; an empty one is ``{}``."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigurationError(
                f"a KubeSchedulerConfiguration must be a mapping, got {json_type_name(data)}")
        return cls.from_dict(data, registry=registry, implements=implements,
                             kubernetes_version=kubernetes_version, feature_gates=feature_gates)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, registry: Registry | None = None,
                  implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                  kubernetes_version: str | ReleaseProfile | None = None,
                  feature_gates: Mapping[str, bool] | str | None = None) -> SchedulerConfiguration:
        """Read a ``KubeSchedulerConfiguration`` file, as kube-scheduler's ``--config`` does.

        The format is told by the content: a document whose first character (after white space)
        is ``{`` is JSON (duplicate keys refused), anything else YAML (which needs PyYAML). The
        file must be a regular file of at most ``schedframe.config.MAX_CONFIG_FILE_BYTES``
        bytes, in UTF-8.
        ``v1beta2`` and ``v1beta3`` files are converted (see :meth:`from_dict`).

        Raises:
            ConfigurationError: the path is not a readable regular file, is too large, is not
                UTF-8, JSON or YAML, or the configuration is invalid; the message names the path.

        .. versionadded:: 0.1.0
        """
        if not isinstance(path, (str, os.PathLike)):
            raise ConfigurationError(f"from_file expects a path, got {type(path).__name__}")
        shown = _textio.shown_path(path)
        text = _textio.read_text(path, max_bytes=MAX_CONFIG_FILE_BYTES, what="the configuration file",
                                 error=ConfigurationError)
        try:
            data = _textio.parse_data(text, source="the configuration", error=ConfigurationError)
            return cls._from_document(data, registry=registry, implements=implements,
                                      kubernetes_version=kubernetes_version,
                                      feature_gates=feature_gates)
        except ConfigurationError as exc:
            raise ConfigurationError(exc.errors, prefix=f"{shown}: {_error_prefix(exc)}") from None

    @classmethod
    def from_profiles(cls, *profiles: Profile | Mapping[str, Any],
                      percentage_of_nodes_to_score: int | None = None,
                      pod_initial_backoff_seconds: float = 1.0, pod_max_backoff_seconds: float = 10.0,
                      parallelism: int = 16, registry: Registry | None = None,
                      implements: Mapping[str, Iterable[str]] | PointsOf | None = None,
                      kubernetes_version: str | ReleaseProfile | None = None,
                      feature_gates: Mapping[str, bool] | str | None = None,
                      ) -> SchedulerConfiguration:
        """Build a configuration from :class:`~schedframe.config.Profile` objects and/or v1 profile mappings.

        Mappings are read as in :meth:`from_dict`; Profile objects are taken as they are. The
        whole is validated (unique scheduler names, one queue sort shared by all profiles,
        top-level values)::

            SchedulerConfiguration.from_profiles(
                Profile.from_plugins("MyScore", scheduler_name="mine", registry=r), registry=r)

        Raises:
            ConfigurationError: listing every problem.
        """
        doc: dict[str, Any] = {
            "parallelism": parallelism,
            "podInitialBackoffSeconds": pod_initial_backoff_seconds,
            "podMaxBackoffSeconds": pod_max_backoff_seconds,
            "profiles": list(profiles),
        }
        if percentage_of_nodes_to_score is not None:
            doc["percentageOfNodesToScore"] = percentage_of_nodes_to_score
        return cls.from_dict(doc, registry=registry, implements=implements,
                             kubernetes_version=kubernetes_version, feature_gates=feature_gates)

    def to_dict(self) -> dict[str, Any]:
        """The effective configuration as a v1 ``KubeSchedulerConfiguration`` mapping.

        ``from_dict(config.to_dict())`` gives back an equal configuration (with the same
        registry). Every point of every profile lists its effective plugins; ``pluginConfig``
        holds the effective args of every plugin that has some.
        """
        return {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "parallelism": self.parallelism,
            "percentageOfNodesToScore": self.percentage_of_nodes_to_score or 0,
            "podInitialBackoffSeconds": _number_out(self.pod_initial_backoff_seconds),
            "podMaxBackoffSeconds": _number_out(self.pod_max_backoff_seconds),
            "profiles": [p.to_dict() for p in self.profiles],
        } | ({"extenders": [e.to_dict() for e in self.extenders]} if self.extenders else {})

    def profile(self, scheduler_name: str) -> Profile | None:
        """The profile named *scheduler_name*, or ``None``."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


# --------------------------------------------------------------------------------------------
# Serialisation helpers
# --------------------------------------------------------------------------------------------


def _ref_to_dict(ref: PluginRef) -> dict[str, Any]:
    return {"name": ref.name, "weight": ref.weight} if ref.weight else {"name": ref.name}


def _number_out(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _error_prefix(exc: ConfigurationError) -> str:
    """The text before the error list in *exc*'s message."""
    text = str(exc)
    if len(exc.errors) == 1:
        head, _, _ = text.rpartition(exc.errors[0])
        return head
    head, sep, _ = text.partition("\n  - ")
    return head if sep else ""


def _args_to_dict(args: Any) -> Any:
    if args is None:
        return None
    if isinstance(args, Mapping):
        return thaw(args)
    return encode_args(args)


def _in_tree_registry() -> Registry:
    # the plugins layer registers its factory with the framework: the configuration, below it,
    # never imports it
    try:
        return default_registry()
    except RegistryError as exc:  # pragma: no cover - schedframe.plugins not imported
        raise ConfigurationError("the in-tree plugin registry is not available; pass registry=") from exc


# --------------------------------------------------------------------------------------------
# Parsing and validation
# --------------------------------------------------------------------------------------------


@attrs.define
class _PluginSet:
    enabled: list[PluginRef] = attrs.Factory(list)
    disabled: list[str] = attrs.Factory(list)


def _merge_plugin_set(default: _PluginSet, custom: _PluginSet) -> _PluginSet:
    """Upstream ``mergePluginSet``: the user's set on top of the default one."""
    disabled = [*custom.disabled, *default.disabled]
    disabled_names = set(disabled)
    custom_by_name = {ref.name: i for i, ref in enumerate(custom.enabled)}  # last occurrence wins
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if _WILDCARD not in disabled_names:
        for ref in default.enabled:
            if ref.name in disabled_names:
                continue
            i = custom_by_name.get(ref.name)
            if i is not None:  # re-configured default: replaced in place, order kept
                ref = custom.enabled[i]
                replaced.add(i)
            enabled.append(ref)
    enabled.extend(ref for i, ref in enumerate(custom.enabled) if i not in replaced)
    return _PluginSet(enabled, disabled)


class _Parser(FieldReader):
    """Reads one document, collecting every error with its field path."""

    def __init__(self, registry: Registry | None,
                 implements: Mapping[str, Iterable[str]] | PointsOf | None,
                 release: ReleaseProfile | None = None) -> None:
        self.registry: Registry = _in_tree_registry() if registry is None else registry
        self.release = release_profile() if release is None else release
        self.spec: VersionSpec = v1_spec(self.release.default_plugins)
        # the decoded pluginConfig args of the profile being read (plugins are probed with them)
        self._profile_args: dict[str, Any] = {}
        if not isinstance(self.registry, Registry):
            raise ConfigurationError(f"registry must be a Registry, got {type(self.registry).__name__}")
        FieldReader.__init__(self)
        self._declared: Mapping[str, Iterable[str]] | None = None
        self._declared_fn: PointsOf | None = None
        if isinstance(implements, Mapping):
            self._declared = implements
        elif implements is not None:
            if not callable(implements):
                raise ConfigurationError(
                    f"implements must be a mapping or a callable, got {type(implements).__name__}")
            self._declared_fn = implements
        self._points: dict[str, frozenset[str] | None] = {}
        self.use_version(self.spec)

    def use_version(self, spec: VersionSpec) -> None:
        """Read the document as *spec*'s ``apiVersion`` (its defaults and fields)."""
        self.spec = spec
        names = [n for n, _ in spec.multi_point_defaults]
        names += [n for refs in spec.point_defaults.values() for n, _ in refs]
        self.omitted = tuple(n for n in dict.fromkeys(names) if n not in self.registry)
        self._defaults = _PluginSet(
            [PluginRef(n, w) for n, w in spec.multi_point_defaults if n in self.registry])

    def point_defaults(self, point: str, path: str) -> _PluginSet:
        """The version's default plugins at *point* (v1beta2), keeping those the registry has and
        whose plugin implements *point*."""
        refs = []
        for name, weight in self.spec.point_defaults.get(point, ()):
            if name in self.registry and point in (self.points_of(name, path) or ()):
                refs.append(PluginRef(name, weight))
        return _PluginSet(refs)

    # -- plugins ----------------------------------------------------------------------------
    def check_name(self, name: str, path: str) -> bool:
        """Whether *name* may be enabled; records why not."""
        if name in self.registry:
            return True
        if name == _WILDCARD:
            self.invalid(path, name, "'*' can only be used in a disabled list")
        elif name in self.spec.legacy_volume_plugins:
            self.error(path, f"plugin {_q(name)} was part of kube-scheduler's {self.spec.short} defaults but "
                             f"kube-scheduler has since removed it (CSI migration) and schedframe does not "
                             f"provide it (volumes are not modelled)")
        elif name in _REMOVED_UPSTREAM_PLUGINS:
            self.invalid(path, name, f"plugin {_q(name)} was removed from kube-scheduler and is "
                                     f"invalid in {API_VERSION}")
        elif name in REMOVED_PLUGINS:
            self.invalid(path, name,
                         f"plugin {_q(name)} was removed from kube-scheduler: {REMOVED_PLUGINS[name]}")
        elif name in LEGACY_SCORE_PLUGINS:
            self.invalid(path, name,
                         f"plugin {_q(name)} was merged into NodeResourcesFit (kube-scheduler 1.22): "
                         f"enable NodeResourcesFit with args scoringStrategy.type "
                         f"{LEGACY_SCORE_PLUGINS[name]} (a v1beta2 or v1beta3 document is converted so)")
        elif name in NOT_PROVIDED_UPSTREAM_PLUGINS:
            self.error(path, f"plugin {_q(name)} is part of kube-scheduler but not provided by "
                             f"schedframe ({NOT_PROVIDED_UPSTREAM_PLUGINS[name]})")
        else:
            self.error(path, unknown_plugin_message(name, self.registry) if len(name) <= MAX_VALUE_REPR
                       else f"no plugin named {_q(name)} in the registry")
        return False

    def points_of(self, name: str, path: str) -> frozenset[str] | None:
        """The extension points of plugin *name*; ``None`` (error recorded once) if unknown."""
        if name in self._points:
            return self._points[name]
        declared: Iterable[str] | None = None
        if self._declared is not None:
            declared = self._declared.get(name)
        elif self._declared_fn is not None:
            declared = self._declared_fn(name)
        points: frozenset[str] | None
        if declared is not None:
            points = frozenset([declared] if isinstance(declared, str) else declared)
            bad = sorted(p for p in points if p not in EXTENSION_POINTS)
            if bad:
                raise ConfigurationError(
                    f"implements[{_q(name)}] names unknown extension point(s) {bounded_repr(bad)}; known: "
                    f"{', '.join(EXTENSION_POINTS)}")
        else:
            entry = self.registry[name]
            args = self._profile_args.get(name)
            if args is _INVALID:
                args = None
            which = "its args"
            if args is None:
                which = "default args"
                if entry.args_type is not None:
                    try:
                        args = entry.args_type()
                    except Exception:  # mandatory fields: the factory gets None, as before
                        args = None
                    else:
                        args = self.release_defaults(args, path)
                        if args is _INVALID:
                            args = None
            try:
                points = _probe(name, entry, args, self.release)
            except Exception as exc:
                self.error(path, f"cannot tell which extension points plugin {_q(name)} implements: "
                                 f"building it with {which} failed ({type(exc).__name__}: "
                                 f"{bounded_repr(str(exc), 200)[1:-1]}); give its args in pluginConfig, "
                                 f"register it with args_type=, or describe it with "
                                 f"implements={{{_q(name)}: [...]}}")
                points = None
        self._points[name] = points
        return points

    def plugin_set(self, data: Any, path: str, point: str) -> _PluginSet:
        """A user's ``{enabled, disabled}``; keeps only valid, non-duplicate enabled entries."""
        result = _PluginSet()
        if data is None:
            return result
        mapping = self.mapping(data, path)
        if mapping is None:
            return result
        self.fields(mapping, frozenset({"enabled", "disabled"}), path)
        seen: set[str] = set()
        enabled_path = _child(path, "enabled")
        for i, item in enumerate(self.items(mapping.get("enabled"), enabled_path)):
            ref = self.plugin_ref(item, f"{enabled_path}[{i}]")
            if ref is None:
                continue
            if ref.name in seen:
                self.error(f"{enabled_path}[{i}]", f"Duplicate value: {_fmt(ref.name)}")
                continue
            seen.add(ref.name)
            if not self.check_name(ref.name, f"{enabled_path}[{i}]"):
                continue
            points = self.points_of(ref.name, f"{enabled_path}[{i}]")
            if points is None:
                continue
            if ref.weight < 0 and "score" in points and point in ("score", MULTI_POINT):
                self.invalid(f"{enabled_path}[{i}].weight", ref.weight,
                             "must not be negative (a score weight is 0 for the default 1, or positive)")
                continue
            if point != MULTI_POINT and point not in points:
                has = ", ".join(p for p in EXTENSION_POINTS if p in points) or "none"
                self.error(f"{enabled_path}[{i}]", f"plugin {_q(ref.name)} does not implement the "
                                                   f"{point} extension point (it implements: {has})")
                continue
            result.enabled.append(ref)
        disabled_path = _child(path, "disabled")
        for i, item in enumerate(self.items(mapping.get("disabled"), disabled_path)):
            ref = self.plugin_ref(item, f"{disabled_path}[{i}]", weight_allowed=False)
            if ref is not None:  # unknown names are accepted, as upstream does
                result.disabled.append(ref.name)
        return result

    def plugin_ref(self, item: Any, path: str, *, weight_allowed: bool = True) -> PluginRef | None:
        mapping = self.mapping(item, path)
        if mapping is None:
            return None
        self.fields(mapping, frozenset({"name", "weight"}), path)
        raw_name = mapping.get("name")
        if raw_name is None or raw_name == "":
            self.error(_child(path, "name"), "Required value")
            return None
        name = self.string(raw_name, _child(path, "name"))
        weight = 0
        raw_weight = mapping.get("weight")
        if raw_weight is not None:
            w = self.integer(raw_weight, _child(path, "weight"))
            if w is None:
                return None
            weight = w if weight_allowed else 0
        return None if name is None else PluginRef(name, weight)

    def plugins(self, data: Any, path: str) -> dict[str, tuple[PluginRef, ...]]:
        """Merge the user's plugins with the defaults and expand MultiPoint."""
        custom: dict[str, _PluginSet] = {}
        if data is not None:
            mapping = self.mapping(data, path)
            if mapping is not None:
                self.fields(mapping, self.spec.plugins_fields, path)
                for point in (MULTI_POINT, *EXTENSION_POINTS):
                    custom[point] = self.plugin_set(mapping.get(point), _child(path, point), point)
        merged = {MULTI_POINT: _merge_plugin_set(self._defaults, custom.get(MULTI_POINT, _PluginSet()))}
        for point in EXTENSION_POINTS:
            merged[point] = _merge_plugin_set(self.point_defaults(point, _child(path, point)),
                                              custom.get(point, _PluginSet()))
        multi_path = _child(path, MULTI_POINT)
        multi = [ref for ref in merged[MULTI_POINT].enabled
                 if self.points_of(ref.name, multi_path) is not None]
        effective: dict[str, tuple[PluginRef, ...]] = {}
        for point in EXTENSION_POINTS:
            names = self.expand(point, merged[point], multi)
            if point == "score":
                weights = self.score_weights(merged["score"].enabled + multi)
                effective[point] = tuple(PluginRef(n, weights[n]) for n in names)
            else:
                effective[point] = tuple(PluginRef(n) for n in names)
        return effective

    def expand(self, point: str, plugin_set: _PluginSet, multi: list[PluginRef]) -> list[str]:
        """Upstream ``expandMultiPointPlugins`` for one point."""
        explicit = list(dict.fromkeys(ref.name for ref in plugin_set.enabled))
        disabled = set(plugin_set.disabled)
        if _WILDCARD in disabled:
            return explicit
        # multi has no duplicates: the user's were reported and dropped
        here = [ref.name for ref in multi
                if point in (self._points.get(ref.name) or ()) and ref.name not in disabled]
        return multi_point_order(explicit, here)

    def score_weights(self, refs: Iterable[PluginRef]) -> dict[str, int]:
        """Upstream ``getScoreWeights``: the first weight seen wins (score point before
        multiPoint); 0 means 1."""
        weights: dict[str, int] = {}
        for ref in refs:
            if "score" in (self._points.get(ref.name) or frozenset()):
                weights.setdefault(ref.name, ref.weight or 1)
        return weights

    # -- plugin args ------------------------------------------------------------------------
    def plugin_config(self, data: Any, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: set[str] = set()
        for i, item in enumerate(self.items(data, path)):
            item_path = f"{path}[{i}]"
            mapping = self.mapping(item, item_path)
            if mapping is None:
                continue
            self.fields(mapping, frozenset({"name", "args"}), item_path)
            raw_name = mapping.get("name")
            if raw_name is None or raw_name == "":
                self.error(_child(item_path, "name"), "Required value")
                continue
            name = self.string(raw_name, _child(item_path, "name"))
            if name is None:
                continue
            if name in seen:
                self.error(item_path, f"Duplicate value: {_fmt(name)}")
                continue
            seen.add(name)
            if name not in self.registry and name in NOT_PROVIDED_UPSTREAM_PLUGINS:
                continue  # args of a plugin schedframe does not provide: ignored
            if not self.check_name(name, _child(item_path, "name")):
                continue
            args = self.decode_args(name, mapping.get("args"), _child(item_path, "args"))
            if args is not None:
                out[name] = args  # _INVALID (reported) keeps the plugin from default args
        return out

    def decode_args(self, name: str, raw: Any, path: str) -> Any:
        args = self._decode_args(name, raw, path)
        if args is _INVALID or args is None:
            return args
        return self.release_defaults(args, path)

    def release_defaults(self, args: Any, path: str) -> Any:
        """The args with the defaults that depend on the release and its gates applied (upstream
        ``SetDefaults_<Plugin>Args`` reading feature gates): an args type may define
        ``defaulted(release) -> args``."""
        defaulted = getattr(args, "defaulted", None)
        if not callable(defaulted):
            return args
        try:
            return defaulted(self.release)
        except PluginArgsError as exc:
            for err in exc.errors:
                self.add(_join_args_error(path, err))
            return _INVALID

    def _decode_args(self, name: str, raw: Any, path: str) -> Any:
        args_type = self.registry[name].args_type
        if raw is None:
            return self.default_args(name, args_type, path)
        if args_type is not None and isinstance(raw, args_type):
            return self.validate_args(raw, path)
        if not isinstance(raw, Mapping):
            want = f"a mapping or a {args_type.__name__}" if args_type is not None else "a mapping"
            self.wrong_type(path, raw, want)
            return _INVALID
        data = dict(raw)
        ok = True
        api_version = data.pop("apiVersion", None)
        if api_version is not None and api_version not in (API_VERSION, self.spec.api_version):
            self.error(_child(path, "apiVersion"),
                       f"Unsupported value: {_fmt(api_version)}: supported values: "
                       f"{_fmt(self.spec.api_version)}")
            ok = False
        kind = data.pop("kind", None)
        if kind is not None and kind != f"{name}Args":
            self.invalid(_child(path, "kind"), kind, f"must be {_fmt(name + 'Args')} for plugin {_q(name)}")
            ok = False
        if args_type is None:
            if not ok:
                return _INVALID
            try:
                return deep_freeze(data)
            except RecursionError:
                self.error(path, "nested too deeply")
                return _INVALID
        # fields a release does not have yet are unknown to it (upstream's strict decoding)
        since: Mapping[str, str] = getattr(args_type, "FIELDS_SINCE", {})
        for key in [k for k in data if k in since and not self.release.has(since[k])]:
            self.error(_child(path, key), f"unknown field {_fmt(key)} (Kubernetes "
                                          f"{self.release.version} has no {_fmt(key)} in "
                                          f"{args_type.__name__})")
            ok = False
        from_dict = args_decoder(args_type)
        if from_dict is None:
            self.error(path, f"the args type {args_type.__name__} of plugin {_q(name)} has no from_dict() "
                             "and is not an attrs class")
            return _INVALID
        args = self._args_call(from_dict, data, path)
        if args is _INVALID:
            return _INVALID
        return self.validate_args(args, path) if ok else _INVALID

    def validate_args(self, args: Any, path: str) -> Any:
        """Run the args object's ``validate()``, if any (upstream ``validatePluginConfig``), so an
        invalid args is reported here, with its path, not when the plugin is built."""
        if self._args_call(validate_args, args, path) is _INVALID:
            return _INVALID
        return args

    def _args_call(self, fn: Callable[[Any], Any], value: Any, path: str) -> Any:
        """``fn(value)``, or ``_INVALID`` with its errors recorded under *path*: each of a
        :class:`PluginArgsError`'s errors, or the type and text of another failure of the
        args' own code."""
        try:
            return fn(value)
        except PluginArgsError as exc:
            for err in exc.errors:
                self.add(_join_args_error(path, err))
        except (SchedframeError, TypeError, ValueError, KeyError, AttributeError, ArithmeticError,
                RecursionError) as exc:
            self.error(path, f"{type(exc).__name__}: {exc}")
        return _INVALID

    def default_args(self, name: str, args_type: type | None, path: str) -> Any:
        if args_type is None:
            return None
        try:
            return args_type()
        except Exception as exc:
            self.error(path, f"plugin {_q(name)} needs args: give them in pluginConfig (its args type "
                             f"{args_type.__name__} has no defaults: {type(exc).__name__}: "
                             f"{bounded_repr(str(exc), 200)[1:-1]})")
            return _INVALID

    # -- profile and configuration ----------------------------------------------------------
    def profile(self, data: Any, path: str, default_name: str | None) -> Profile | None:
        if isinstance(data, Profile):
            return data if data.release == self.release else attrs.evolve(data, release=self.release)
        if data is None:
            data = {}
        mapping = self.mapping(data, path)
        if mapping is None:
            return None
        self.fields(mapping, _PROFILE_FIELDS, path)
        name_path = _child(path, "schedulerName")
        raw_name = mapping.get("schedulerName")
        name: str | None
        if raw_name is None:
            name = default_name
            if name is None:
                self.error(name_path, "Required value")
        elif raw_name == "":
            self.error(name_path, "Required value")
            name = None
        else:
            name = self.string(raw_name, name_path)
        pct_path = _child(path, "percentageOfNodesToScore")
        pct = self.percentage(mapping.get("percentageOfNodesToScore"), pct_path)
        plugins_path = _child(path, "plugins")
        # The args are decoded first, so that plugins are probed with them; their errors are
        # still listed after those of the plugins.
        before = len(self.errors)
        args = self.plugin_config(mapping.get("pluginConfig"), _child(path, "pluginConfig"))
        args_errors = self.errors[before:]
        del self.errors[before:]
        self._profile_args = args
        try:
            plugins = self.plugins(mapping.get("plugins"), plugins_path)
        finally:
            self._profile_args = {}
        self.errors.extend(args_errors)
        for ref_name in dict.fromkeys(ref.name for refs in plugins.values() for ref in refs):
            if ref_name not in args:
                default = self.default_args(ref_name, self.registry[ref_name].args_type,
                                            _child(path, "pluginConfig"))
                if default is not None and default is not _INVALID:
                    args[ref_name] = self.release_defaults(default, _child(path, "pluginConfig"))
        args = {k: v for k, v in args.items() if v is not _INVALID}
        shown = bounded_repr(name) if name else "(unnamed)"
        queue_sort = plugins["queueSort"]
        if len(queue_sort) != 1:
            self.error(_child(plugins_path, "queueSort"),
                       f"exactly one queue sort plugin is required for profile {shown}, got "
                       f"{len(queue_sort)}: {[r.name for r in queue_sort]}")
        if not plugins["bind"]:
            self.error(_child(plugins_path, "bind"),
                       f"at least one bind plugin is needed for profile {shown}")
        return Profile(scheduler_name=name or "", plugins=plugins, plugin_args=args,
                       percentage_of_nodes_to_score=pct, release=self.release)

    def configuration(self, data: Any) -> SchedulerConfiguration | None:
        if not isinstance(data, Mapping):
            raise ConfigurationError(
                f"a KubeSchedulerConfiguration must be a mapping, got {json_type_name(data)}")
        source = data
        api_version = data.get("apiVersion")
        removed_in = REMOVED_API_VERSIONS.get(api_version) if isinstance(api_version, str) else None
        if removed_in is not None:
            raise ConfigurationError(
                [f"apiVersion: Unsupported value: {_fmt(api_version)}: kube-scheduler no longer supports it "
                 f"since Kubernetes {removed_in}; rewrite the file as {API_VERSION} (schedframe also "
                 f"converts {_CONVERTED_VERSIONS})"],
                prefix="invalid KubeSchedulerConfiguration: ")
        spec = version_spec(api_version)
        notes: list[str] = []
        if spec is not None:
            self.use_version(spec)
            data, errors, notes = convert_legacy_score_plugins(data)
            self.errors.extend(errors)
        self.fields(data, self.spec.top_fields, "")
        for field, known in self.spec.nested_fields.items():
            nested = data.get(field)
            if nested is not None and self.mapping(nested, field) is not None:
                self.fields(nested, known, field)
        if api_version is not None and api_version != API_VERSION and spec is None:
            self.error("apiVersion", f"Unsupported value: {_fmt(api_version)}: supported values: "
                                     f"{_fmt(API_VERSION)}, {_CONVERTED_VERSIONS}")
        kind = data.get("kind")
        if kind is not None and kind != KIND:
            self.error("kind", f"Unsupported value: {_fmt(kind)}: supported values: {_fmt(KIND)}")
        parallelism = 16
        if data.get("parallelism") is not None:
            value = self.integer(data["parallelism"], "parallelism")
            if value is not None and value <= 0:
                self.invalid("parallelism", value, "should be an integer value greater than zero")
            elif value is not None:
                parallelism = value
        pct = self.percentage(data.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
        initial = 1.0
        if data.get("podInitialBackoffSeconds") is not None:
            given = self.seconds(data["podInitialBackoffSeconds"], "podInitialBackoffSeconds")
            initial = initial if given is None else given
            if initial <= 0:
                self.invalid("podInitialBackoffSeconds", data["podInitialBackoffSeconds"],
                             "must be greater than 0")
        maximum = 10.0
        if data.get("podMaxBackoffSeconds") is not None:
            given = self.seconds(data["podMaxBackoffSeconds"], "podMaxBackoffSeconds")
            maximum = maximum if given is None else given
        if maximum < initial:
            self.invalid("podMaxBackoffSeconds", _number_out(maximum),
                         "must be greater than or equal to PodInitialBackoffSeconds")
        extenders = read_extenders(self, data.get("extenders"))
        raw_profiles = self.items(data.get("profiles"), "profiles") or [{}]
        default_name = DEFAULT_SCHEDULER_NAME if len(raw_profiles) == 1 else None
        profiles: list[Profile] = []
        seen: dict[str, int] = {}
        for i, raw in enumerate(raw_profiles):
            path = f"profiles[{i}]"
            profile = self.profile(raw, path, default_name)
            if profile is None:
                continue
            profiles.append(profile)
            name = profile.scheduler_name
            if isinstance(raw, Profile) and not name:
                self.error(_child(path, "schedulerName"), "Required value")
            if name and name in seen:
                self.error(_child(path, "schedulerName"), f"Duplicate value: {_fmt(name)}")
            elif name:
                seen[name] = i
            if isinstance(raw, Profile) and profile.percentage_of_nodes_to_score is not None:
                self.percentage(profile.percentage_of_nodes_to_score,
                                _child(path, "percentageOfNodesToScore"))
        self.common_queue_sort(profiles)
        if self.errors:
            return None
        if self.spec.deprecated:
            warn_deprecated(self.spec, notes)
        return SchedulerConfiguration(
            tuple(profiles), percentage_of_nodes_to_score=pct, pod_initial_backoff_seconds=initial,
            pod_max_backoff_seconds=maximum, parallelism=parallelism, omitted_upstream_plugins=self.omitted,
            extenders=extenders, release=self.release, source=source)

    def common_queue_sort(self, profiles: Sequence[Profile]) -> None:
        """Every profile must use the same queue sort plugin, with the same args."""
        if len(profiles) < 2:
            return
        first = profiles[0]
        names = [r.name for r in first.plugins_at("queueSort")]
        args = first.plugin_args.get(names[0]) if names else None
        for i, profile in enumerate(profiles[1:], start=1):
            other = [r.name for r in profile.plugins_at("queueSort")]
            if other != names:
                self.invalid(f"profiles[{i}].plugins.queueSort", other, "must be the same for all profiles")
            elif names and profile.plugin_args.get(names[0]) != args:
                self.error(f"profiles[{i}].pluginConfig",
                           f"the args of queue sort plugin {_q(names[0])} must be the same for all profiles")


_INVALID: Final = object()

