"""kube-scheduler's feature gates, per release (``--feature-gates``).

The table below holds the scheduler-relevant gates of kube-scheduler with their versioned
specs, as upstream declares them (``pkg/features/kube_features.go`` and, since 1.36, the
scheduler's own ``versioned_kube_features.go``): each spec says from which release on the gate
has which default, stage and lock. The default of a gate at a release is that of its newest
spec not newer than the release; a gate whose first spec is newer does not exist there.

Each gate is *modelled* (schedframe switches what kube-scheduler switches: the default plugins,
the scheduling queue's behaviour, ...) or not. A gate that is not modelled is accepted only at
its release's default (schedframe behaves as kube-scheduler does with that default); the other
value is refused naming the gate, never ignored. Upstream's own refusals are kept: an
unrecognised gate, a gate locked to its default set to the other value, a gate that does not
exist yet at the release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import ConfigurationError, bounded_repr, did_you_mean

__all__ = [
    "FEATURE_GATES",
    "FeatureGate",
    "GateSpec",
    "parse_feature_gates",
    "resolve_feature_gates",
]

ALPHA: Final = "Alpha"
BETA: Final = "Beta"
GA: Final = "GA"

Release = tuple[int, int]


def _release(text: str) -> Release:
    major, minor = text.split(".")
    return int(major), int(minor)


@final
@attrs.frozen
class GateSpec:
    """From release ``since`` on, the gate's default, stage and lock."""

    since: Release
    default: bool
    stage: str
    locked: bool = False


@final
@attrs.frozen
class FeatureGate:
    """One gate: its versioned specs (oldest first) and what schedframe does with it.

    Attributes:
        modelled: what the gate switches in schedframe, or ``""`` when schedframe models only
            the release's default.
        note: for a gate that is not modelled, how schedframe behaves.
    """

    name: str
    specs: tuple[GateSpec, ...]
    modelled: str = ""
    note: str = ""

    def at(self, release: Release) -> GateSpec | None:
        """The spec in force at *release*, ``None`` when the gate does not exist there yet."""
        found = None
        for spec in self.specs:
            if spec.since <= release:
                found = spec
        return found


def _gate(name: str, *specs: tuple[str, bool, str] | tuple[str, bool, str, bool], modelled: str = "",
          note: str = "") -> FeatureGate:
    return FeatureGate(name, tuple(GateSpec(_release(s[0]), *s[1:]) for s in specs), modelled, note)


_NOT_MODELLED_DRA: Final = "schedframe's DynamicResources plugin behaves as with the release's default"

#: The scheduler-relevant gates, with their specs up to Kubernetes 1.36.
FEATURE_GATES: Final[Mapping[str, FeatureGate]] = FrozenDict({g.name: g for g in (
    _gate("DRAAdminAccess", ("1.32", False, ALPHA), ("1.34", True, BETA), ("1.36", True, GA, True),
          note=_NOT_MODELLED_DRA),
    _gate("DRAConsumableCapacity", ("1.34", False, ALPHA), ("1.36", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRADeviceBindingConditions", ("1.34", False, ALPHA), ("1.36", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRADeviceTaintRules", ("1.35", False, ALPHA), ("1.36", False, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRADeviceTaints", ("1.33", False, ALPHA), ("1.36", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRAExtendedResource", ("1.34", False, ALPHA), ("1.36", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRAListTypeAttributes", ("1.36", False, ALPHA), note=_NOT_MODELLED_DRA),
    _gate("DRANodeAllocatableResources", ("1.36", False, ALPHA), note=_NOT_MODELLED_DRA),
    _gate("DRAPartitionableDevices", ("1.33", False, ALPHA), ("1.36", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRAPrioritizedList", ("1.33", False, ALPHA), ("1.34", True, BETA), ("1.36", True, GA),
          note=_NOT_MODELLED_DRA),
    _gate("DRAResourceClaimDeviceStatus", ("1.32", False, ALPHA), ("1.33", True, BETA),
          note=_NOT_MODELLED_DRA),
    _gate("DRASchedulerFilterTimeout", ("1.34", True, BETA), note=_NOT_MODELLED_DRA),
    _gate("DRAWorkloadResourceClaims", ("1.36", False, ALPHA), note=_NOT_MODELLED_DRA),
    _gate("DynamicResourceAllocation", ("1.26", False, ALPHA), ("1.32", False, BETA), ("1.34", True, GA),
          ("1.35", True, GA, True),
          modelled="adds DynamicResources to the default plugins (before DefaultPreemption)"),
    _gate("GangScheduling", ("1.35", False, ALPHA),
          modelled="adds GangScheduling to the default plugins (needs GenericWorkload)"),
    _gate("GenericWorkload", ("1.35", False, ALPHA),
          modelled="the GangScheduling plugin honours Workloads and pods' workloadRef (off: it is inert)"),
    _gate("InPlacePodLevelResourcesVerticalScaling", ("1.35", False, ALPHA), ("1.36", True, BETA),
          note="pod resources are read as the pod gives them"),
    _gate("InPlacePodVerticalScaling", ("1.27", False, ALPHA), ("1.33", True, BETA), ("1.35", True, GA, True),
          note="pod resources are read as the pod gives them"),
    _gate("MatchLabelKeysInPodAffinity", ("1.29", False, ALPHA), ("1.31", True, BETA),
          ("1.33", True, GA, True),
          note="matchLabelKeys and mismatchLabelKeys are always honoured"),
    _gate("MatchLabelKeysInPodTopologySpread", ("1.25", False, ALPHA), ("1.27", True, BETA),
          note="matchLabelKeys is always honoured"),
    _gate("NodeDeclaredFeatures", ("1.35", False, ALPHA), ("1.36", True, BETA),
          modelled="adds NodeDeclaredFeatures to the default plugins, and turns that plugin on"),
    _gate("NodeInclusionPolicyInPodTopologySpread", ("1.25", False, ALPHA), ("1.26", True, BETA),
          ("1.33", True, GA, True), note="nodeAffinityPolicy and nodeTaintsPolicy are always honoured"),
    _gate("NominatedNodeNameForExpectation", ("1.34", False, ALPHA), ("1.35", True, BETA),
          note="nominated node names are set by preemption only"),
    _gate("OpportunisticBatching", ("1.35", True, BETA),
          note="every pod has its own scheduling cycle (batching does not change placements)"),
    _gate("PodLevelResources", ("1.32", False, ALPHA), ("1.34", True, BETA),
          note="pod-level resources are honoured when a pod gives them"),
    _gate("SchedulerAsyncAPICalls", ("1.34", False, BETA), note="API calls complete at once"),
    _gate("SchedulerAsyncPreemption", ("1.32", False, ALPHA), ("1.33", True, BETA),
          note="preemption deletes its victims before PostFilter returns"),
    _gate("SchedulerPopFromBackoffQ", ("1.33", True, BETA),
          modelled="an empty activeQ pops the head of backoffQ"),
    _gate("SchedulerQueueingHints", ("1.28", False, BETA), ("1.32", True, BETA), ("1.34", True, GA, True),
          modelled="plugins' queueing hints decide which events requeue a pod (off: every registered "
                   "event requeues it)"),
    _gate("StorageCapacityScoring", ("1.33", False, ALPHA), note="VolumeBinding does not score capacity"),
    _gate("TaintTolerationComparisonOperators", ("1.35", False, ALPHA),
          note="tolerations compare with Equal and Exists only"),
    _gate("TopologyAwareWorkloadScheduling", ("1.36", False, ALPHA),
          note="the Workload API is not modelled"),
    _gate("VolumeAttributesClass", ("1.29", False, ALPHA), ("1.31", False, BETA), ("1.34", True, GA),
          ("1.36", True, GA, True), note="volume attributes classes are not read"),
    _gate("VolumeLimitScaling", ("1.35", False, ALPHA), note="CSI volume limits are read as given"),
)})


def parse_feature_gates(text: str, *, path: str = "--feature-gates") -> dict[str, bool]:
    """Read ``Name=true,Other=false`` (kube-scheduler's ``--feature-gates``).

    Raises:
        ConfigurationError: a pair without ``=`` or a value that is not a boolean.
    """
    out: dict[str, bool] = {}
    errors: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            errors.append(f"{path}: missing bool value for {bounded_repr(part)}")
            continue
        low = value.lower()
        if low not in ("true", "false", "1", "0", "t", "f"):
            errors.append(f"{path}: invalid value of {name}={value}, err: strconv.ParseBool: "
                          f"parsing {bounded_repr(value)}: invalid syntax")
            continue
        out[name] = low in ("true", "1", "t")
    if errors:
        raise ConfigurationError(errors)
    return out


def resolve_feature_gates(release: Release, overrides: Mapping[str, bool] | str | None,
                          *, path: str = "feature_gates") -> FrozenDict[str, bool]:
    """Every gate known at *release* with its value: the release's default, or the override.

    Raises:
        ConfigurationError: listing every gate that is unknown, not yet in the release, locked to
            the other value, or not modelled by schedframe away from its default.
    """
    if isinstance(overrides, str):
        overrides = parse_feature_gates(overrides, path=path)
    elif overrides is not None and not isinstance(overrides, Mapping):
        raise ConfigurationError(f"{path}: must be a mapping of gate name to bool or a "
                                 f"'Name=true,Other=false' string, got {type(overrides).__name__}")
    shown = f"{release[0]}.{release[1]}"
    values = {name: spec.default for name, gate in FEATURE_GATES.items()
              if (spec := gate.at(release)) is not None}
    errors: list[str] = []
    given: Mapping[Any, Any] = overrides or {}
    for name, value in given.items():
        where = f"{path} {name}" if path.startswith("--") else f"{path}[{bounded_repr(name)}]"
        if not isinstance(value, bool):
            errors.append(f"{where}: must be a bool, got {type(value).__name__}")
            continue
        gate = FEATURE_GATES.get(name) if isinstance(name, str) else None
        if gate is None:
            hint = did_you_mean(str(name), sorted(FEATURE_GATES))
            errors.append(f"{where}: unrecognized feature gate: {bounded_repr(name)[1:-1]}{hint}")
            continue
        spec = gate.at(release)
        if spec is None:
            errors.append(f"{where}: cannot set feature gate {name} to {str(value).lower()}, feature is "
                          f"PreAlpha at emulated version {shown}")
            continue
        if value == spec.default:
            values[name] = value
            continue
        if spec.locked:
            errors.append(f"{where}: cannot set feature gate {name} to {str(value).lower()}, feature is "
                          f"locked to {str(spec.default).lower()}")
            continue
        if not gate.modelled:
            errors.append(f"{where}: feature gate {name} is not modelled by schedframe: only its "
                          f"Kubernetes {shown} default, {str(spec.default).lower()}, is accepted "
                          f"({gate.note})")
            continue
        values[name] = value
    for dependent, needs in _DEPENDENCIES.items():
        if values.get(dependent) and not values.get(needs):
            errors.append(f"{path}[{bounded_repr(dependent)}]: feature gate {dependent} depends on {needs}, "
                          f"which is off: enable {needs} too")
    if errors:
        raise ConfigurationError(errors, prefix="invalid feature gates: ")
    return FrozenDict(dict(sorted(values.items())))


#: gate -> the gate it needs on (upstream's feature dependencies).
_DEPENDENCIES: Final = {"GangScheduling": "GenericWorkload"}
