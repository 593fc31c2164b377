"""The ``kubescheduler.config.k8s.io`` versions a configuration may be written in, and what reading
an older one as ``v1`` takes.

``v1`` is read as it is. ``v1beta2`` and ``v1beta3`` (removed from kube-scheduler in Kubernetes
1.28 and 1.29) are read with the defaults kube-scheduler applied to them in the last release that
had them (``pkg/scheduler/apis/config/{v1beta2,v1beta3}/default_plugins.go``), their own set of
fields, and the plugin renames below; a :class:`~schedframe.config.ConfigurationDeprecationWarning` names the
version.
Older versions are refused with the Kubernetes release that dropped them.
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import SchedframeWarning
from ..framework.plugin_names import EXTENSION_POINTS

__all__ = [
    "API_GROUP",
    "ConfigurationDeprecationWarning",
    "LEGACY_SCORE_PLUGINS",
    "REMOVED_API_VERSIONS",
    "REMOVED_PLUGINS",
    "VersionSpec",
    "convert_legacy_score_plugins",
    "version_spec",
    "warn_deprecated",
]

#: The API group of ``KubeSchedulerConfiguration``.
API_GROUP: Final = "kubescheduler.config.k8s.io"


@final
class ConfigurationDeprecationWarning(SchedframeWarning, DeprecationWarning):
    """A configuration was written in a deprecated ``kubescheduler.config.k8s.io`` version
    (``v1beta2``, ``v1beta3``) and was converted to ``v1``; the message names the version and
    what was converted.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.config"

    def __init__(self, message: str = "", api_version: str = "") -> None:
        super().__init__(message)
        #: The ``apiVersion`` that was converted (``kubescheduler.config.k8s.io/v1beta3``).
        self.api_version = api_version


#: Versions kube-scheduler no longer reads, with the Kubernetes release that removed them.
REMOVED_API_VERSIONS: Final[Mapping[str, str]] = FrozenDict({
    f"{API_GROUP}/v1alpha1": "1.19",
    f"{API_GROUP}/v1alpha2": "1.19",
    f"{API_GROUP}/v1beta1": "1.23",
})

#: Plugins kube-scheduler has removed, with what replaces them. Enabling one (or giving its
#: ``pluginConfig``) is an error in every version; disabling one is accepted, as upstream accepts
#: unknown names in ``disabled`` lists.
REMOVED_PLUGINS: Final[Mapping[str, str]] = FrozenDict({
    "NodeLabel": "use node affinity (NodeAffinity, or its args' addedAffinity) instead",
    "ServiceAffinity": "use inter-pod affinity (InterPodAffinity) instead",
    "NodePreferAvoidPods": "use node taints with effect PreferNoSchedule (TaintToleration) instead",
    "SelectorSpread": "PodTopologySpread's system default constraints spread pods instead",
    "DefaultPodTopologySpread": "PodTopologySpread's system default constraints spread pods instead",
})

#: The v1beta1 score plugins merged into NodeResourcesFit's ``scoringStrategy`` (kube-scheduler
#: 1.22): name -> strategy type. In a v1beta2 or v1beta3 document each is converted to
#: NodeResourcesFit with that strategy.
LEGACY_SCORE_PLUGINS: Final[Mapping[str, str]] = FrozenDict({
    "NodeResourcesLeastAllocated": "LeastAllocated",
    "NodeResourcesMostAllocated": "MostAllocated",
    "RequestedToCapacityRatio": "RequestedToCapacityRatio",
})

_FIT: Final = "NodeResourcesFit"
_VOLUME_LIMITS: Final = ("EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")

_PROCESS_FIELDS: Final = {
    # Accepted and ignored: they configure the kube-scheduler process, not scheduling.
    "leaderElection": frozenset({
        "leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
        "resourceName", "resourceNamespace"}),
    "clientConnection": frozenset({"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"}),
}
_POINTS: Final = EXTENSION_POINTS


@final
@attrs.frozen
class VersionSpec:
    """What reading one ``apiVersion`` takes."""

    api_version: str
    #: ``(name, weight)`` defaults at ``multiPoint``.
    multi_point_defaults: tuple[tuple[str, int], ...]
    #: point -> ``(name, weight)`` defaults at that point (v1beta2 has no multiPoint).
    point_defaults: Mapping[str, tuple[tuple[str, int], ...]]
    top_fields: frozenset[str]
    plugins_fields: frozenset[str]
    #: top-level field -> its known sub-fields (process-level settings, checked then ignored).
    nested_fields: Mapping[str, frozenset[str]]
    #: the Kubernetes release that removed this version from kube-scheduler, or ``""``.
    removed_in: str = ""
    #: upstream plugins of this version's defaults that are about volumes schedframe does not
    #: model and kube-scheduler has since removed.
    legacy_volume_plugins: tuple[str, ...] = ()

    @property
    def deprecated(self) -> bool:
        return bool(self.removed_in)

    @property
    def short(self) -> str:
        return self.api_version.rpartition("/")[2]


_V1_TOP: Final = frozenset({
    "apiVersion", "kind", "parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds",
    "podMaxBackoffSeconds", "profiles", "extenders", "leaderElection", "clientConnection",
    "enableProfiling", "enableContentionProfiling", "delayCacheUntilActive",
})
_BETA_TOP: Final = (_V1_TOP - {"delayCacheUntilActive"})

# kube-scheduler 1.27, the last release with v1beta2 (default feature gates: PodSchedulingReadiness
# on, VolumeCapacityPriority off): the default plugins of every extension point, with weights.
_V1BETA2_POINT_DEFAULTS: Final = FrozenDict({
    "preEnqueue": (("SchedulingGates", 0),),
    "queueSort": (("PrioritySort", 0),),
    "preFilter": tuple((n, 0) for n in (
        "NodeResourcesFit", "NodePorts", "VolumeRestrictions", "PodTopologySpread", "InterPodAffinity",
        "VolumeBinding", "VolumeZone", "NodeAffinity", "TaintToleration")),
    "filter": tuple((n, 0) for n in (
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits", "AzureDiskLimits",
        "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity")),
    "postFilter": (("DefaultPreemption", 0),),
    "preScore": tuple((n, 0) for n in (
        "InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity")),
    "score": (("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("InterPodAffinity", 1),
              ("NodeResourcesFit", 1), ("NodeAffinity", 1), ("PodTopologySpread", 2), ("TaintToleration", 1)),
    "reserve": (("VolumeBinding", 0),),
    "preBind": (("VolumeBinding", 0),),
    "bind": (("DefaultBinder", 0),),
})

# kube-scheduler 1.28, the last release with v1beta3 (PodSchedulingReadiness on).
_V1BETA3_MULTI_POINT_DEFAULTS: Final = (
    ("PrioritySort", 0), ("NodeUnschedulable", 0), ("NodeName", 0), ("TaintToleration", 3),
    ("NodeAffinity", 2), ("NodePorts", 0), ("NodeResourcesFit", 1), ("VolumeRestrictions", 0),
    ("EBSLimits", 0), ("GCEPDLimits", 0), ("NodeVolumeLimits", 0), ("AzureDiskLimits", 0),
    ("VolumeBinding", 0), ("VolumeZone", 0), ("PodTopologySpread", 2), ("InterPodAffinity", 2),
    ("DefaultPreemption", 0), ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1),
    ("DefaultBinder", 0), ("SchedulingGates", 0),
)

_V1BETA2: Final = VersionSpec(
    api_version=f"{API_GROUP}/v1beta2",
    multi_point_defaults=(),
    point_defaults=_V1BETA2_POINT_DEFAULTS,
    top_fields=_BETA_TOP | {"healthzBindAddress", "metricsBindAddress"},
    plugins_fields=frozenset(_POINTS),
    nested_fields=FrozenDict(_PROCESS_FIELDS),
    removed_in="1.28",
    legacy_volume_plugins=_VOLUME_LIMITS,
)
_V1BETA3: Final = VersionSpec(
    api_version=f"{API_GROUP}/v1beta3",
    multi_point_defaults=_V1BETA3_MULTI_POINT_DEFAULTS,
    point_defaults=FrozenDict(),
    top_fields=_BETA_TOP,
    plugins_fields=frozenset(("multiPoint", *_POINTS)),
    nested_fields=FrozenDict(_PROCESS_FIELDS),
    removed_in="1.29",
    legacy_volume_plugins=_VOLUME_LIMITS,
)


def v1_spec(multi_point_defaults: tuple[tuple[str, int], ...]) -> VersionSpec:
    """The spec of ``v1`` given the configuration module's default plugin list."""
    return VersionSpec(
        api_version=f"{API_GROUP}/v1",
        multi_point_defaults=multi_point_defaults,
        point_defaults=FrozenDict(),
        top_fields=_V1_TOP,
        plugins_fields=frozenset(("multiPoint", *_POINTS)),
        nested_fields=FrozenDict(_PROCESS_FIELDS),
    )


def version_spec(api_version: Any) -> VersionSpec | None:
    """The spec of a converted version (``v1beta2``, ``v1beta3``); ``None`` for anything else."""
    if api_version == _V1BETA2.api_version:
        return _V1BETA2
    if api_version == _V1BETA3.api_version:
        return _V1BETA3
    return None


def _stacklevel() -> int:
    """The stack level of the first frame outside schedframe, so the warning points at the
    caller's line."""
    level = 1
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("schedframe."):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn_deprecated(spec: VersionSpec, notes: list[str]) -> None:
    """Warn that *spec*'s version was converted, listing *notes* (what was renamed)."""
    detail = "".join(f"; {note}" for note in notes)
    warnings.warn(ConfigurationDeprecationWarning(
        f"apiVersion {spec.api_version} is deprecated (kube-scheduler removed it in Kubernetes "
        f"{spec.removed_in}); it was converted to {API_GROUP}/v1 with the defaults kube-scheduler "
        f"gave {spec.short}{detail}. Migrate the file: SchedulerConfiguration.to_dict() gives the "
        "effective v1 configuration", spec.api_version), stacklevel=_stacklevel())


# --------------------------------------------------------------------------------------------
# v1beta1 score plugins -> NodeResourcesFit scoringStrategy
# --------------------------------------------------------------------------------------------


def _legacy_args_to_strategy(strategy: str, args: Any, path: str, errors: list[str]) -> dict[str, Any] | None:
    """A v1beta1 ``NodeResources{Least,Most}AllocatedArgs`` / ``RequestedToCapacityRatioArgs``
    mapping as a NodeResourcesFit ``scoringStrategy``."""
    out: dict[str, Any] = {"type": strategy}
    if args is None:
        return out
    if not isinstance(args, Mapping):
        errors.append(f"{path}: Invalid value: must be a mapping")
        return None
    known = {"apiVersion", "kind", "resources"}
    if strategy == "RequestedToCapacityRatio":
        known.add("shape")
    ok = True
    for key in args:
        if key not in known:
            errors.append(f"{path}.{key}: unknown field (the args of the v1beta1 plugin converted to "
                          f"NodeResourcesFit's {strategy} strategy have: {', '.join(sorted(known))})")
            ok = False
    if not ok:
        return None
    if args.get("resources") is not None:
        out["resources"] = copy.deepcopy(args["resources"])
    if args.get("shape") is not None:
        out["requestedToCapacityRatio"] = {"shape": copy.deepcopy(args["shape"])}
    return out


def convert_legacy_score_plugins(data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str], list[str]]:
    """Rename v1beta1's NodeResources{Least,Most}Allocated and RequestedToCapacityRatio to
    NodeResourcesFit, their args becoming its ``scoringStrategy``.

    Names are replaced in place, so every other field keeps its path. Returns the converted
    document, the errors (with paths) and notes for the deprecation warning.
    """
    doc: dict[str, Any] = dict(data)
    errors: list[str] = []
    notes: list[str] = []
    profiles = doc.get("profiles")
    if not isinstance(profiles, list):
        return doc, errors, notes
    new_profiles: list[Any] = []
    for i, profile in enumerate(profiles):
        if not isinstance(profile, Mapping):
            new_profiles.append(profile)
            continue
        profile = dict(profile)
        strategies: dict[str, str] = {}  # strategy -> first path naming it
        plugins = profile.get("plugins")
        if isinstance(plugins, Mapping):
            plugins = dict(plugins)
            for point, plugin_set in plugins.items():
                if not isinstance(plugin_set, Mapping):
                    continue
                plugin_set = dict(plugin_set)
                for field in ("enabled", "disabled"):
                    items = plugin_set.get(field)
                    if not isinstance(items, list):
                        continue
                    new_items = []
                    for j, item in enumerate(items):
                        name = item.get("name") if isinstance(item, Mapping) else None
                        where = f"profiles[{i}].plugins.{point}.{field}[{j}]"
                        if isinstance(name, str) and name in LEGACY_SCORE_PLUGINS and field == "enabled":
                            item = {**item, "name": _FIT}
                            strategies.setdefault(LEGACY_SCORE_PLUGINS[name], where)
                            notes.append(f"{where}: {name} -> {_FIT} (scoringStrategy "
                                         f"{LEGACY_SCORE_PLUGINS[name]})")
                        elif isinstance(name, str) and name in LEGACY_SCORE_PLUGINS:
                            # Upstream accepts unknown names in disabled lists: NodeResourcesFit
                            # keeps scoring, as kube-scheduler of that era did.
                            notes.append(f"{where}: disabling {name} has no effect, as in kube-scheduler "
                                         f"(it was merged into {_FIT}); disable {_FIT} at {point} "
                                         "to stop resource scoring")
                        new_items.append(item)
                    plugin_set[field] = new_items
                plugins[point] = plugin_set
            profile["plugins"] = plugins
        config = profile.get("pluginConfig")
        legacy_args: dict[str, tuple[int, Any]] = {}
        if isinstance(config, list):
            for j, item in enumerate(config):
                name = item.get("name") if isinstance(item, Mapping) else None
                if isinstance(name, str) and name in LEGACY_SCORE_PLUGINS:
                    legacy_args[LEGACY_SCORE_PLUGINS[name]] = (j, item.get("args"))
                    strategies.setdefault(LEGACY_SCORE_PLUGINS[name], f"profiles[{i}].pluginConfig[{j}]")
        if len(strategies) > 1:
            paths = ", ".join(f"{path} ({kind})" for kind, path in strategies.items())
            errors.append(f"profiles[{i}].plugins: the v1beta1 score plugins {paths} all become "
                          f"{_FIT}'s scoringStrategy, which has one type: keep one of them")
        elif strategies:
            (strategy, _), = strategies.items()
            index, raw = legacy_args.get(strategy, (None, None))
            args_path = (f"profiles[{i}].pluginConfig[{index}].args" if index is not None
                         else f"profiles[{i}].pluginConfig")
            converted = _legacy_args_to_strategy(strategy, raw, args_path, errors)
            if converted is not None:
                profile["pluginConfig"] = _with_fit_strategy(
                    config if isinstance(config, list) else [], converted, index, i, errors)
        new_profiles.append(profile)
    doc["profiles"] = new_profiles
    return doc, errors, notes


def _with_fit_strategy(config: list[Any], strategy: dict[str, Any], legacy_index: int | None,
                       profile_index: int, errors: list[str]) -> list[Any]:
    """*config* with NodeResourcesFit's args holding *strategy*: merged into an existing
    NodeResourcesFit entry, else put in place of the legacy entry (or appended)."""
    fit_index = next((j for j, item in enumerate(config)
                      if isinstance(item, Mapping) and item.get("name") == _FIT), None)
    out = list(config)
    if fit_index is not None:
        entry = dict(out[fit_index])
        args = entry.get("args")
        if args is None:
            args = {}
        if isinstance(args, Mapping):
            if args.get("scoringStrategy") is not None:
                errors.append(f"profiles[{profile_index}].pluginConfig[{fit_index}].args.scoringStrategy: "
                              f"conflicts with the v1beta1 score plugin converted to a {strategy['type']} "
                              "scoringStrategy: keep one of them")
                return out
            entry["args"] = {**args, "scoringStrategy": strategy}
            out[fit_index] = entry
        if legacy_index is not None:
            del out[legacy_index]
        return out
    entry = {"name": _FIT, "args": {"scoringStrategy": strategy}}
    if legacy_index is not None:
        out[legacy_index] = entry
    else:
        out.append(entry)
    return out
