"""The kube-scheduler release schedframe emulates: one immutable :class:`~schedframe.ReleaseProfile` per run.

A release (``kubernetes_version="1.33"``) is resolved once, with the feature gates the user sets,
into a :class:`~schedframe.ReleaseProfile`: its default plugins (upstream ``getDefaultPlugins`` with the
gates applied), its feature gates, and the behaviour switches of :data:`RELEASE_DIFFERENCES`.
The configuration reads its defaults from it; plugins read it through their handle
(:func:`release_of`); nothing is global. The default is the newest release.

The releases, their default plugins (under their default gates and with each gate that changes
them switched) and their gates come from ``_release_facts.json``, generated from each release's
own kube-scheduler (``scripts/oracle facts --write``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import ConfigurationError, bounded_repr
from ._features import FEATURE_GATES, parse_feature_gates, release_facts, resolve_feature_gates

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
SUPPORTED_RELEASES: Final = ("1.32", "1.33", "1.34", "1.35", "1.36", "1.37")
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
#: messages, keyed by the name plugins ask for (:meth:`schedframe.ReleaseProfile.has`). Default-plugin and
#: feature-gate changes are in the gate table (``schedframe.framework._features``).
RELEASE_DIFFERENCES: Final[Mapping[str, ReleaseDifference]] = FrozenDict({d.key: d for d in (
    ReleaseDifference(
        "BalancedAllocationSkipsBestEffort", "1.33", "kubernetes/kubernetes#130260",
        "NodeResourcesBalancedAllocation skips best-effort pods in PreScore (before: every node "
        "was scored by its own balance)"),
    ReleaseDifference(
        "VolumeBindingNodeAffinityReason", "1.33",
        "pkg/scheduler/framework/plugins/volumebinding/binder.go (v1.32.13 against v1.33.13)",
        "VolumeBinding's reason for a bound volume whose node affinity excludes the node is "
        "'node(s) didn't match PersistentVolume's node affinity' (before: 'node(s) had volume "
        "node affinity conflict')"),
    ReleaseDifference(
        "VolumeRestrictionsInUseReason", "1.34",
        "pkg/scheduler/framework/plugins/volumerestrictions (v1.33.13 against v1.34.4)",
        "VolumeRestrictions' reason for a ReadWriteOncePod claim another pod uses is 'node(s) "
        "unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
        "by another pod' (before: 'node has pod using PersistentVolumeClaim with the same name and "
        "ReadWriteOncePod access mode')"),
    ReleaseDifference(
        "FitUnresolvableBeyondAllocatable", "1.34",
        "pkg/scheduler/framework/plugins/noderesources/fit.go (v1.33.13 against v1.34.4)",
        "NodeResourcesFit rejects a node with UnschedulableAndUnresolvable when the pod asks for "
        "more than the node's whole allocatable of a resource, so preemption does not try it "
        "(before: Unschedulable, and preemption looks for victims there)"),
    ReleaseDifference(
        "TaintTolerationGenericReason", "1.34",
        "pkg/scheduler/framework/plugins/tainttoleration (v1.33.13 against v1.34.4)",
        "TaintToleration's Filter reason is 'node(s) had untolerated taint(s)' (before: it named "
        "the first untolerated taint, 'node(s) had untolerated taint {key: value}')"),
    ReleaseDifference(
        "DynamicResourcesScore", "1.35",
        "pkg/scheduler/framework/plugins/dynamicresources (v1.34.4 against v1.35.4)",
        "DynamicResources scores nodes (weight 2 in the default profile): a claim's firstAvailable "
        "alternative allocated earlier in its list scores more (before: no Score)"),
    ReleaseDifference(
        "DynamicResourcesBindingTimeout", "1.36",
        "pkg/scheduler/apis/config (DynamicResourcesArgs, v1.35.4 against v1.36.3)",
        "DynamicResourcesArgs has bindingTimeout (default 10m0s); before, the field is unknown"),
    ReleaseDifference(
        "DynamicResourcesQuietPostFilter", "1.37",
        "pkg/scheduler/framework/plugins/dynamicresources (v1.36.3 against v1.37.2)",
        "DynamicResources' PostFilter says nothing when it deallocates nothing (before: 'no new "
        "claims to deallocate' for a pod without claims, which every unschedulable pod's message "
        "carried, and 'still not schedulable' for a pod with claims)"),
    ReleaseDifference(
        "DeferredResizePreFilters", "1.37",
        "pkg/scheduler/framework/plugins/{nodename,nodeunschedulable,tainttoleration} "
        "(v1.36.3 against v1.37.2)",
        "NodeName, NodeUnschedulable and TaintToleration gain a PreFilter: NodeName narrows a pod "
        "that names a node to that node (an assigned pod whose resize is deferred); the other two "
        "skip such a pod with InPlacePodVerticalScalingSchedulerPreemption on. For a pending pod "
        "they change no decision; they appear at preFilter in the configuration"),
    ReleaseDifference(
        "PreemptionSuccessMessage", "1.37",
        "pkg/scheduler/framework/preemption/preemption.go (v1.36.3 against v1.37.2)",
        "a successful preemption says so in the pod's failure message: 'preemption: found a "
        "potential placement for pod on node N, preempting K victims' (before: nothing after the "
        "filter reasons)"),
    ReleaseDifference(
        "BalancedAllocationScoresChange", "1.36", "kubernetes/kubernetes#135573",
        "NodeResourcesBalancedAllocation scores the change in balance the pod causes, "
        "50 + (50 + with - without) / 2 (before: the balance with the pod, (1 - std) * 100)"),
)})

def _default_plugins(version: str, gates: Mapping[str, bool]) -> tuple[tuple[str, int], ...]:
    """upstream ``getDefaultPlugins`` with ``applyFeatureGates``: the release's default-gate list,
    then, for each gate that changes it and is set away from its default, the plugins that
    setting adds (at the place upstream puts them) and removes, as the release's own
    kube-scheduler gives them (the facts' variants)."""
    facts = release_facts()[version]
    variants: Mapping[str, list[list[Any]]] = facts["defaultPlugins"]
    known: Mapping[str, list[Any]] = facts["gates"]
    out = [(str(n), int(w)) for n, w in variants[""]]
    for label in sorted(variants):
        if not label:
            continue
        flips = dict(part.split("=") for part in label.split(","))
        if not all(gates.get(g, bool(known[g][0])) == (v == "true") for g, v in flips.items()):
            continue
        variant = [(str(n), int(w)) for n, w in variants[label]]
        base = {n for n, _ in variants[""]}
        have = {n for n, _ in variant}
        out = [p for p in out if p[0] in have or p[0] not in base]
        names = [n for n, _ in out]
        for i, (name, weight) in enumerate(variant):
            if name in names:
                continue
            before = next((variant[j][0] for j in range(i - 1, -1, -1) if variant[j][0] in names), None)
            at = names.index(before) + 1 if before is not None else 0
            out.insert(at, (name, weight))
            names.insert(at, name)
    return tuple(out)


@final
@attrs.frozen
class ReleaseProfile:
    """One kube-scheduler release as schedframe emulates it, with its feature gates resolved.

    Build it with :func:`~schedframe.release_profile`. Equal profiles emulate the same scheduler.

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
    def patch(self) -> str:
        """The patch release whose facts schedframe's emulation of this minor is generated
        from (``"1.37.2"``)."""
        return str(release_facts()[self.version]["release"])

    @property
    def minor(self) -> tuple[int, int]:
        major, minor = self.version.split(".")
        return int(major), int(minor)

    def enabled(self, gate: str) -> bool:
        """Whether feature gate *gate* is on (``False`` for a gate that does not exist yet)."""
        if gate not in FEATURE_GATES:
            raise KeyError(f"unknown feature gate {bounded_repr(gate)}")
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


_VERSION = re.compile(r"v?(\d{1,9})\.(\d{1,9})(?:\.\d{1,9})?(?:[-+].*)?")
#: The longest Kubernetes version string read (``v1.33.4-gke.1200`` is 16 characters).
MAX_VERSION_CHARS: Final = 64


def normalise_version(value: Any, *, path: str = "kubernetes_version") -> str:
    """``"1.33"`` from ``"1.33"``, ``"v1.33"`` or ``"1.33.4"``; ``None`` is the newest release.

    The one parser of a release every entry point uses (configuration readers, ``Scheduler``,
    ``with_release``, the simulator, the CLI's ``--kubernetes-version``): anything but ``None``
    or such a string -- ``""``, ``0``, ``False``, ``[]``, a string longer than
    ``MAX_VERSION_CHARS`` -- is refused.

    Raises:
        ConfigurationError: not a version, or a release schedframe does not emulate.
    """
    if value is None:
        return NEWEST_RELEASE
    supported = f"supported: {SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}"
    if not isinstance(value, str):
        raise ConfigurationError(f"{path}: must be a string such as {NEWEST_RELEASE!r}, got "
                                 f"{type(value).__name__} ({supported})")
    # longer than any version: refused before the regex and int() see it (int() refuses more
    # than 4,300 digits with a raw ValueError)
    m = _VERSION.fullmatch(value.strip()) if len(value) <= MAX_VERSION_CHARS else None
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
    return ReleaseProfile(version, gates, _default_plugins(version, gates))


def release_profile(kubernetes_version: str | ReleaseProfile | None = None,
                    feature_gates: Mapping[str, bool] | str | None = None, *,
                    paths: tuple[str, str] = ("kubernetes_version", "feature_gates")) -> ReleaseProfile:
    """The :class:`~schedframe.ReleaseProfile` of *kubernetes_version* (default the newest) with
    *feature_gates* (a mapping or ``"Name=true,Other=false"``) applied.

    Raises:
        ConfigurationError: an unsupported version, or gates it refuses (see
            ``schedframe.framework._features``); *paths* name the two arguments in its messages.

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
    return ReleaseProfile(version, gates, _default_plugins(version, gates))


def _as_mapping(feature_gates: Mapping[str, bool] | str, path: str) -> Mapping[str, bool]:
    if isinstance(feature_gates, str):
        return parse_feature_gates(feature_gates, path=path)
    return feature_gates


def release_of(handle: Any) -> ReleaseProfile:
    """The release a plugin runs under: its framework's profile's release, else the newest
    (a handle that carries none, as in a plugin's own tests)."""
    release = getattr(getattr(handle, "profile", None), "release", None)
    return release if isinstance(release, ReleaseProfile) else _defaults(NEWEST_RELEASE)
