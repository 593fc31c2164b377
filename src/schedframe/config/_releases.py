"""The kube-scheduler release schedframe emulates: one immutable :class:`ReleaseProfile` per run.

A release (``kubernetes_version="1.33"``) is resolved once, with the feature gates the user sets,
into a :class:`ReleaseProfile`: its default plugins (upstream ``getDefaultPlugins`` with the
gates applied), its feature gates, and the behaviour switches of :data:`RELEASE_DIFFERENCES`.
The configuration reads its defaults from it; plugins read it through their handle
(:func:`release_of`); nothing is global. The default is the newest release.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import ConfigurationError, bounded_repr
from ._features import FEATURE_GATES, parse_feature_gates, resolve_feature_gates

__all__ = [
    "NEWEST_RELEASE",
    "RELEASE_DIFFERENCES",
    "SUPPORTED_RELEASES",
    "ReleaseDifference",
    "ReleaseProfile",
    "release_of",
    "release_profile",
]

#: The Kubernetes minors schedframe emulates, oldest first.
SUPPORTED_RELEASES: Final = ("1.32", "1.33", "1.34", "1.35", "1.36")
#: The default release.
NEWEST_RELEASE: Final = SUPPORTED_RELEASES[-1]


@final
@attrs.frozen
class ReleaseDifference:
    """A behaviour of kube-scheduler that changed at release ``since`` (upstream ``reference``)."""

    key: str
    since: str
    reference: str
    summary: str


#: The behaviour changes between 1.32 and the newest release that change placements or
#: messages, keyed by the name plugins ask for (:meth:`ReleaseProfile.has`). Default-plugin and
#: feature-gate changes are in the gate table (``schedframe.config._features``).
RELEASE_DIFFERENCES: Final[Mapping[str, ReleaseDifference]] = FrozenDict({d.key: d for d in (
    ReleaseDifference(
        "BalancedAllocationSkipsBestEffort", "1.33", "kubernetes/kubernetes#130260",
        "NodeResourcesBalancedAllocation skips best-effort pods in PreScore (before: every node "
        "was scored by its own balance)"),
    ReleaseDifference(
        "BalancedAllocationScoresChange", "1.36", "kubernetes/kubernetes#135573",
        "NodeResourcesBalancedAllocation scores the change in balance the pod causes, "
        "50 + (50 + with - without) / 2 (before: the balance with the pod, (1 - std) * 100)"),
)})

# upstream getDefaultPlugins before applyFeatureGates: (name, weight), same in 1.32-1.36
_BASE_PLUGINS: Final = (
    ("SchedulingGates", 0), ("PrioritySort", 0), ("NodeUnschedulable", 0), ("NodeName", 0),
    ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", 0), ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0), ("NodeVolumeLimits", 0), ("VolumeBinding", 0), ("VolumeZone", 0),
    ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("DefaultBinder", 0),
)


def _default_plugins(gates: Mapping[str, bool]) -> tuple[tuple[str, int], ...]:
    """upstream ``applyFeatureGates``: DynamicResources before DefaultPreemption; NodeDeclaredFeatures
    (after NodeName: schedframe's choice, the upstream position is not verified) and GangScheduling
    (appended) with their gates."""
    out: list[tuple[str, int]] = []
    for name, weight in _BASE_PLUGINS:
        if name == "DefaultPreemption" and gates.get("DynamicResourceAllocation"):
            out.append(("DynamicResources", 0))
        out.append((name, weight))
    if gates.get("NodeDeclaredFeatures"):
        out.insert(out.index(("NodeName", 0)) + 1, ("NodeDeclaredFeatures", 0))
    if gates.get("GangScheduling"):
        out.append(("GangScheduling", 0))
    return tuple(out)


@final
@attrs.frozen
class ReleaseProfile:
    """One kube-scheduler release as schedframe emulates it, with its feature gates resolved.

    Build it with :func:`release_profile`. Equal profiles emulate the same scheduler.

    Attributes:
        version: the minor, ``"1.36"``.
        feature_gates: every scheduler gate known at that release, with its value.
        default_plugins: upstream's default ``multiPoint`` plugins, ``(name, weight)``, in order.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    version: str
    feature_gates: FrozenDict[str, bool]
    default_plugins: tuple[tuple[str, int], ...] = attrs.field(eq=False)

    @property
    def minor(self) -> tuple[int, int]:
        major, minor = self.version.split(".")
        return int(major), int(minor)

    def enabled(self, gate: str) -> bool:
        """Whether feature gate *gate* is on (``False`` for a gate that does not exist yet)."""
        if gate not in FEATURE_GATES:
            raise KeyError(f"unknown feature gate {gate!r}")
        return self.feature_gates.get(gate, False)

    def has(self, difference: str) -> bool:
        """Whether the behaviour *difference* (a key of ``schedframe.config.RELEASE_DIFFERENCES``)
        applies in this release."""
        d = RELEASE_DIFFERENCES[difference]
        return self.minor >= _minor(d.since)

    def overrides(self) -> dict[str, bool]:
        """The gates whose value differs from the release's default."""
        defaults = release_profile(self.version).feature_gates
        return {k: v for k, v in self.feature_gates.items() if defaults.get(k) != v}


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")


def normalise_version(value: Any, *, path: str = "kubernetes_version") -> str:
    """``"1.33"`` from ``"1.33"``, ``"v1.33"`` or ``"1.33.4"``; ``None`` is the newest release.

    Raises:
        ConfigurationError: not a version, or a release schedframe does not emulate.
    """
    if value is None:
        return NEWEST_RELEASE
    supported = f"supported: {SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}"
    if not isinstance(value, str):
        raise ConfigurationError(f"{path}: must be a string such as {NEWEST_RELEASE!r}, got "
                                 f"{type(value).__name__} ({supported})")
    m = _VERSION.fullmatch(value.strip())
    if m is None:
        raise ConfigurationError(f"{path}: Invalid value: {bounded_repr(value)}: not a Kubernetes version "
                                 f"(MAJOR.MINOR, e.g. {NEWEST_RELEASE!r}; {supported})")
    version = f"{int(m.group(1))}.{int(m.group(2))}"
    if version not in SUPPORTED_RELEASES:
        raise ConfigurationError(f"{path}: Unsupported value: {bounded_repr(value)}: schedframe emulates "
                                 f"kube-scheduler {SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}")
    return version


@functools.cache
def _defaults(version: str) -> ReleaseProfile:
    gates = resolve_feature_gates(_minor(version), None)
    return ReleaseProfile(version, gates, _default_plugins(gates))


def release_profile(kubernetes_version: str | ReleaseProfile | None = None,
                    feature_gates: Mapping[str, bool] | str | None = None, *,
                    paths: tuple[str, str] = ("kubernetes_version", "feature_gates")) -> ReleaseProfile:
    """The :class:`ReleaseProfile` of *kubernetes_version* (default the newest) with
    *feature_gates* (a mapping or ``"Name=true,Other=false"``) applied.

    Raises:
        ConfigurationError: an unsupported version, or gates it refuses (see
            ``schedframe.config._features``); *paths* name the two arguments in its messages.

    .. versionadded:: 0.1.0
    """
    if isinstance(kubernetes_version, ReleaseProfile):
        if not feature_gates:
            return kubernetes_version
        merged = {**kubernetes_version.overrides(), **_as_mapping(feature_gates, paths[1])}
        return release_profile(kubernetes_version.version, merged, paths=paths)
    version = normalise_version(kubernetes_version, path=paths[0])
    if not feature_gates:
        return _defaults(version)
    gates = resolve_feature_gates(_minor(version), feature_gates, path=paths[1])
    return ReleaseProfile(version, gates, _default_plugins(gates))


def _as_mapping(feature_gates: Mapping[str, bool] | str, path: str) -> Mapping[str, bool]:
    if isinstance(feature_gates, str):
        return parse_feature_gates(feature_gates, path=path)
    return feature_gates


def release_of(handle: Any) -> ReleaseProfile:
    """The release a plugin runs under: its framework's profile's release, else the newest
    (a handle that carries none, as in a plugin's own tests)."""
    release = getattr(getattr(handle, "profile", None), "release", None)
    return release if isinstance(release, ReleaseProfile) else _defaults(NEWEST_RELEASE)
