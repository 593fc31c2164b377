"""kube-scheduler's feature gates, per release (``--feature-gates``).

Which gates a release has, with their defaults, stages, locks and dependencies, is read from
``_release_facts.json``: generated from each release's own kube-scheduler (the oracle,
``scripts/oracle facts --write``), never written by hand. That file also lists, per release,
the gates the scheduler's code reads (``features.X`` under ``pkg/scheduler``).

What schedframe does with each of those scheduler gates is the hand-written part below
(:data:`_BEHAVIOUR`): a gate is *modelled* (schedframe switches what kube-scheduler switches: the
default plugins, the scheduling queue's behaviour, ...) in the releases it names, or not. A gate
that is not modelled is accepted only at its release's default (schedframe behaves as
kube-scheduler does with that default); the other value is refused naming the gate, never
ignored. The gates the scheduler does not read (kubelet's, the API server's, ...) are accepted
at any value they can take, as kube-scheduler accepts them, and change nothing. Upstream's own
refusals are kept, worded as upstream words them: an unrecognised gate, a gate locked to its
default set to the other value, a gate enabled while a gate it depends on is off.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, final

import attrs

from ..api.frozendict import FrozenDict
from ..errors import ConfigurationError, bounded_repr, bounded_text, did_you_mean

__all__ = [
    "FEATURE_GATES",
    "FeatureGate",
    "GateSpec",
    "parse_feature_gates",
    "release_facts",
    "resolve_feature_gates",
]

ALPHA: Final = "Alpha"
BETA: Final = "Beta"
GA: Final = "GA"

Release = tuple[int, int]

_FACTS_FILE: Final = Path(__file__).with_name("_release_facts.json")


#: The most problems one feature-gate error lists; the rest are counted (``... and 9,990 more
#: feature-gate problems``).
MAX_GATE_ERRORS: Final = 10


def _gate_error(errors: list[str], **kw: str) -> ConfigurationError:
    """The error listing *errors*, at most ``MAX_GATE_ERRORS`` of them (the count of the
    others said), each already bounding the values it echoes."""
    if len(errors) > MAX_GATE_ERRORS:
        errors = [*errors[:MAX_GATE_ERRORS], f"... and {len(errors) - MAX_GATE_ERRORS:,} more "
                                             f"feature-gate problems"]
    return ConfigurationError(errors, **kw)


def _release(text: str) -> Release:
    major, minor = text.split(".")
    return int(major), int(minor)


def _text(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


@functools.cache
def release_facts() -> Mapping[str, Any]:
    """The facts of every emulated release, as the oracle generated them (read once)."""
    data: dict[str, Any] = json.loads(_FACTS_FILE.read_text(encoding="utf-8"))
    return data


@final
@attrs.frozen
class GateSpec:
    """At release ``since``, the gate's default, stage and lock."""

    since: Release
    default: bool
    stage: str
    locked: bool = False


@final
@attrs.frozen
class FeatureGate:
    """One scheduler gate: its spec at each emulated release that has it (oldest first) and
    what schedframe does with it.

    Attributes:
        modelled: what the gate switches in schedframe, or ``""`` when schedframe models only
            the release's default.
        note: for a gate that is not modelled (or not in every release), how schedframe behaves.
        modelled_in: the releases in which the gate is modelled; empty: every release that has it.
    """

    name: str
    specs: tuple[GateSpec, ...]
    modelled: str = ""
    note: str = ""
    modelled_in: frozenset[str] = frozenset()

    def at(self, release: Release) -> GateSpec | None:
        """The spec at *release*, ``None`` when that release does not have the gate."""
        for spec in self.specs:
            if spec.since == release:
                return spec
        return None

    def modelled_at(self, release: Release) -> bool:
        """Whether schedframe switches what the gate switches at *release*."""
        return bool(self.modelled) and (not self.modelled_in or _text(release) in self.modelled_in)


_NOT_MODELLED: Final = "not modelled: schedframe behaves as with the release's default"
_NOT_MODELLED_DRA: Final = "schedframe's DynamicResources plugin behaves as with the release's default"
_WORKLOAD_API: Final = ("not modelled (schedframe models the Workload and PodGroup API, the PodGroup "
                        "cycle's default algorithm of 1.36 and 1.37, its topology placements and "
                        "workload-aware preemption, and 1.37's composite groups): schedframe behaves as "
                        "with the gate off")

#: What schedframe does with each gate the scheduler reads: ``name: (modelled, note)`` or
#: ``name: (modelled, note, releases modelled in)``. Every gate of a release's
#: ``schedulerGates`` must be here (tests/test_feature_gates.py checks it).
_BEHAVIOUR: Final[Mapping[str, tuple[str, str] | tuple[str, str, frozenset[str]]]] = {
    "CSIMigrationPortworx": ("", "Portworx in-tree volumes are counted as their CSI driver's"),
    "CompositePodGroup": (
        "a pod of a PodGroup whose parent is a CompositePodGroup is scheduled with the whole tree of "
        "its root in one PodGroup cycle (placements and PlacementFeasible per composite, all or nothing; "
        "needs GenericWorkload and TopologyAwareWorkloadScheduling)", _WORKLOAD_API, frozenset({"1.37"})),
    "DRAAdminAccess": ("", _NOT_MODELLED_DRA),
    "DRAConsumableCapacity": ("", _NOT_MODELLED_DRA),
    "DRADerivedAttributes": ("", _NOT_MODELLED_DRA),
    "DRADeviceBindingConditions": ("", _NOT_MODELLED_DRA),
    "DRADeviceCompatibilityGroups": ("", _NOT_MODELLED_DRA),
    "DRADeviceTaintRules": ("", _NOT_MODELLED_DRA),
    "DRADeviceTaints": ("", _NOT_MODELLED_DRA),
    "DRAExtendedResource": ("", _NOT_MODELLED_DRA),
    "DRAFractionalCapacityRange": ("", _NOT_MODELLED_DRA),
    "DRAListTypeAttributes": ("", _NOT_MODELLED_DRA),
    "DRANodeAllocatableResources": ("", _NOT_MODELLED_DRA),
    "DRAOptionalNodeOperations": ("", _NOT_MODELLED_DRA),
    "DRAPartitionableDevices": ("", _NOT_MODELLED_DRA),
    "DRAPrioritizedList": ("", _NOT_MODELLED_DRA),
    "DRAResourceClaimDeviceStatus": ("", _NOT_MODELLED_DRA),
    "DRASchedulerFilterTimeout": ("", _NOT_MODELLED_DRA),
    "DRAWorkloadResourceClaims": ("", _NOT_MODELLED_DRA),
    "DynamicResourceAllocation": (
        "adds DynamicResources to the default plugins (before DefaultPreemption)", ""),
    "GangScheduling": (
        "adds GangScheduling to the default plugins (needs GenericWorkload)", _WORKLOAD_API,
        frozenset({"1.35", "1.36"})),
    "GenericWorkload": (
        "the GangScheduling plugin honours Workloads and pods' workloadRef (1.35), PodGroups and "
        "pods' schedulingGroup (1.36 on), whose members the PodGroup cycle schedules together "
        "(off: the plugin is inert)", _WORKLOAD_API, frozenset({"1.35", "1.36", "1.37"})),
    "InPlacePodLevelResourcesVerticalScaling": ("", "pod resources are read as the pod gives them"),
    "InPlacePodVerticalScaling": ("", "pod resources are read as the pod gives them"),
    "InPlacePodVerticalScalingSchedulerPreemption": (
        "", "pods with a deferred resize are not treated apart (no DeferredPodScheduling plugin)"),
    "InterPodAffinityHostnameFastPath": ("", "InterPodAffinity counts hostname terms as any other key"),
    "MatchLabelKeysInPodAffinity": ("", "matchLabelKeys and mismatchLabelKeys are always honoured"),
    "MatchLabelKeysInPodTopologySpread": ("", "matchLabelKeys is always honoured"),
    "NodeDeclaredFeatures": (
        "adds NodeDeclaredFeatures to the default plugins, and turns that plugin on", ""),
    "NodeInclusionPolicyInPodTopologySpread": (
        "", "nodeAffinityPolicy and nodeTaintsPolicy are always honoured"),
    "NominatedNodeNameForExpectation": ("", "nominated node names are set by preemption only"),
    "OpportunisticBatching": (
        "", "every pod has its own scheduling cycle (batching does not change placements)"),
    "PodGroupPreemptionPolicy": ("", _WORKLOAD_API),
    "PodLevelResources": (
        "pods' spec.resources are read (off: the scheduler reads the containers only, as the API "
        "server drops the field)", ""),
    "SchedulerAsyncAPICalls": ("", "API calls complete at once"),
    "SchedulerAsyncPreemption": ("", "preemption deletes its victims before PostFilter returns"),
    "SchedulerPopFromBackoffQ": ("an empty activeQ pops the head of backoffQ", ""),
    "SchedulerPreQueueingHints": ("", "every event is run through the queueing hints"),
    "SchedulerQueueingHints": (
        "plugins' queueing hints decide which events requeue a pod (off: every registered "
        "event requeues it)", ""),
    "SidecarContainers": ("", "restartable init containers are counted as sidecars"),
    "StorageCapacityScoring": (
        "VolumeBinding scores every pod, by the utilisation of the storage its claims bind (the "
        "args' shape, defaulted with the gate on)", ""),
    "TaintTolerationComparisonOperators": ("", "tolerations compare with Equal and Exists only"),
    "TopologyAwareWorkloadScheduling": (
        "a PodGroup cycle tries the group in each placement of its topology constraint (one per "
        "value of the node label) and keeps the best one (PodGroupPodsCount and NodeResourcesFit's "
        "placement scores; the placement plugins are upstream's defaults, not configurable)",
        _WORKLOAD_API, frozenset({"1.36", "1.37"})),
    "VolumeAttributesClass": ("", "volume attributes classes are not read"),
    "VolumeCapacityPriority": ("", "VolumeBinding does not score capacity"),
    "VolumeLimitScaling": ("", "CSI volume limits are read as given"),
    "WorkloadAwarePreemption": (
        "a PodGroup that cannot be placed preempts lower-priority pods for the whole group after its "
        "cycle (DefaultPreemption's PodGroupPostFilter; the group's pods no longer preempt one by "
        "one; needs GangScheduling)", _WORKLOAD_API, frozenset({"1.36"})),
    "WorkloadWithJob": ("", _WORKLOAD_API),
}


def _table() -> FrozenDict[str, FeatureGate]:
    facts = release_facts()
    names = set(_BEHAVIOUR)
    for rel in facts.values():
        names.update(rel["schedulerGates"])
    out: dict[str, FeatureGate] = {}
    for name in sorted(names):
        specs = []
        for release in sorted(facts, key=_release):
            g = facts[release]["gates"].get(name)
            if g is not None:
                specs.append(GateSpec(_release(release), bool(g[0]), str(g[1]), bool(g[2])))
        behaviour = _BEHAVIOUR.get(name, ("", _NOT_MODELLED))
        releases = behaviour[2] if len(behaviour) == 3 else frozenset()
        out[name] = FeatureGate(name, tuple(specs), behaviour[0], behaviour[1], releases)
    return FrozenDict(out)


#: The gates the scheduler reads in some emulated release, with their spec at each release.
FEATURE_GATES: Final[Mapping[str, FeatureGate]] = _table()


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
            errors.append(f"{path}: invalid value of {bounded_text(name)}={bounded_text(value)}, err: "
                          f"strconv.ParseBool: parsing {bounded_repr(value)}: invalid syntax")
            continue
        out[name] = low in ("true", "1", "t")
    if errors:
        raise _gate_error(errors)
    return out


def resolve_feature_gates(release: Release, overrides: Mapping[str, bool] | str | None,
                          *, path: str = "feature_gates") -> FrozenDict[str, bool]:
    """The scheduler gates of *release* with their values (the release's default, or the
    override), plus the other gates set in *overrides*.

    Raises:
        ConfigurationError: listing every gate that is unknown at the release, locked to the
            other value, not modelled by schedframe away from its default, or enabled while a
            gate it depends on is off.
    """
    if isinstance(overrides, str):
        overrides = parse_feature_gates(overrides, path=path)
    elif overrides is not None and not isinstance(overrides, Mapping):
        raise ConfigurationError(f"{path}: must be a mapping of gate name to bool or a "
                                 f"'Name=true,Other=false' string, got {type(overrides).__name__}")
    facts = release_facts().get(_text(release))
    if facts is None:
        raise ConfigurationError(f"{path}: no facts for Kubernetes {_text(release)}")
    known: Mapping[str, list[Any]] = facts["gates"]
    values = {name: spec.default for name, gate in FEATURE_GATES.items()
              if (spec := gate.at(release)) is not None}
    errors: list[str] = []
    given: Mapping[Any, Any] = overrides or {}
    for name, value in given.items():
        where = (f"{path} {bounded_text(str(name))}" if path.startswith("--")
                 else f"{path}[{bounded_repr(name)}]")
        if not isinstance(value, bool):
            errors.append(f"{where}: must be a bool, got {type(value).__name__}")
            continue
        spec_row = known.get(name) if isinstance(name, str) else None
        if spec_row is None:
            # past the problems listed only the count is said: no hint to compute
            hint = did_you_mean(str(name), sorted(known)) if len(errors) < MAX_GATE_ERRORS else ""
            errors.append(f"{where}: unrecognized feature gate: {bounded_repr(name)[1:-1]}{hint}")
            continue
        default, _stage, locked = bool(spec_row[0]), spec_row[1], bool(spec_row[2])
        if value == default:
            values[name] = value
            continue
        if locked:
            errors.append(f"{where}: cannot set feature gate {name} to {str(value).lower()}, feature is "
                          f"locked to {str(default).lower()}")
            continue
        gate = FEATURE_GATES.get(name)
        if gate is not None and not gate.modelled_at(release):
            errors.append(f"{where}: feature gate {name} is not modelled by schedframe: only its "
                          f"Kubernetes {_text(release)} default, {str(default).lower()}, is accepted "
                          f"({gate.note})")
            continue
        values[name] = value
    if not errors:
        def on(gate: str) -> bool:
            row = known.get(gate)
            return values.get(gate, bool(row[0]) if row is not None else False)

        for dependent, needs in sorted(facts.get("dependencies", {}).items()):
            off = [n for n in needs if not on(n)]
            if on(dependent) and off:
                errors.append(f"{path}: {dependent} is enabled, but depends on features that are "
                              f"disabled: [{' '.join(off)}]")
    if errors:
        raise _gate_error(errors, prefix="invalid feature gates: ")
    return FrozenDict(dict(sorted(values.items())))
