"""The workload API of kube-scheduler's workload-aware scheduling (``scheduling.k8s.io``,
KEP-4671 and its successors), behind the ``GenericWorkload`` feature gate, in every version the
emulated releases serve:

* **1.35** -- ``v1alpha1`` :class:`~schedframe.api.Workload`: a workload lists its pod groups,
  each with a ``basic`` or ``gang`` (``minCount``) policy, and pods name their group in
  ``spec.workloadRef`` (:class:`~schedframe.api.WorkloadReference`).
* **1.36** -- ``v1alpha2``: the Workload is a template (``spec.podGroupTemplates``, with
  scheduling constraints, claims, a disruption mode and a priority); the runtime group is its own
  kind, :class:`~schedframe.api.SchedulingPodGroup` (``kind: PodGroup``), and pods name it in
  ``spec.schedulingGroup.podGroupName`` (:attr:`schedframe.api.Pod.scheduling_group`).
* **1.37** -- ``v1beta1`` Workload and PodGroup (and the same kinds in ``v1alpha3``), with a
  ``preemptionPolicy`` and the disruption mode as ``single``/``all``; ``v1alpha3`` adds
  :class:`~schedframe.api.CompositePodGroup` and composite templates in a Workload (groups of
  groups, up to four levels).

Each object keeps the ``apiVersion`` it was read in and is written in it again; which versions a
release serves is :func:`served_api_versions`. This is upstream's native gang scheduling, beside
the scheduler-plugins PodGroup CRD (``scheduling.x-k8s.io`` :class:`~schedframe.api.PodGroup`) that
the Coscheduling plugin reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

import attrs

from ._fields import (
    _REQUIRED_STR,
    _STR,
    _check_top,
    _Codec,
    _fail,
    _Field,
    _int,
    _items,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _required_str,
    _str,
    _str_map,
)
from .frozendict import FrozenDict
from .frozendict import as_tuple as _tuple
from .objects import WorkloadReference

__all__ = [
    "COMPOSITE_POD_GROUP_API_VERSIONS",
    "SCHEDULING_POD_GROUP_API_VERSIONS",
    "WORKLOAD_API_VERSION",
    "WORKLOAD_API_VERSIONS",
    "CompositePodGroup",
    "CompositePodGroupTemplate",
    "PodGroupCondition",
    "PodGroupResourceClaim",
    "SchedulingPodGroup",
    "Workload",
    "WorkloadPodGroup",
    "WorkloadReference",
    "served_api_versions",
    "unserved_version",
    "workload_reference_from_manifest",
    "workload_reference_to_manifest",
]

_GROUP: Final = "scheduling.k8s.io"
_V1ALPHA1: Final = f"{_GROUP}/v1alpha1"
_V1ALPHA2: Final = f"{_GROUP}/v1alpha2"
_V1ALPHA3: Final = f"{_GROUP}/v1alpha3"
_V1BETA1: Final = f"{_GROUP}/v1beta1"

#: The ``apiVersion`` of the 1.35 Workload (``v1alpha1``, the shape with ``spec.podGroups``).
WORKLOAD_API_VERSION: Final = _V1ALPHA1
#: Every Workload ``apiVersion`` schedframe reads, the newest first.
WORKLOAD_API_VERSIONS: Final = (_V1BETA1, _V1ALPHA3, _V1ALPHA2, _V1ALPHA1)
#: Every ``scheduling.k8s.io`` PodGroup ``apiVersion`` schedframe reads, the newest first.
SCHEDULING_POD_GROUP_API_VERSIONS: Final = (_V1BETA1, _V1ALPHA3, _V1ALPHA2)
#: Every CompositePodGroup ``apiVersion`` schedframe reads.
COMPOSITE_POD_GROUP_API_VERSIONS: Final = (_V1ALPHA3,)

#: kind -> first release -> the versions that release's API server serves (upstream's
#: pkg/registry/scheduling/rest at each tag); a release not listed serves what the nearest
#: listed one before it does, and before the first none.
_SERVED: Final[Mapping[str, tuple[tuple[int, tuple[str, ...]], ...]]] = {
    "Workload": ((35, (_V1ALPHA1,)), (36, (_V1ALPHA2,)), (37, (_V1BETA1, _V1ALPHA3))),
    "PodGroup": ((36, (_V1ALPHA2,)), (37, (_V1BETA1, _V1ALPHA3))),
    "CompositePodGroup": ((37, (_V1ALPHA3,)),),
}


def served_api_versions(kind: str, release: str) -> tuple[str, ...]:
    """The ``scheduling.k8s.io`` versions of *kind* (``"Workload"``, ``"PodGroup"``,
    ``"CompositePodGroup"``) the API server of *release* (``"1.36"``) serves; ``()`` when it has
    none of them (and for other kinds)."""
    minor = int(release.split(".")[1])
    served: tuple[str, ...] = ()
    for first, versions in _SERVED.get(kind, ()):
        if minor >= first:
            served = versions
    return served


def _labels(value: Mapping[str, str]) -> FrozenDict[str, str]:
    return value if isinstance(value, FrozenDict) else FrozenDict(dict(value))


@final
@attrs.frozen
class PodGroupResourceClaim:
    """One of a pod group's ``resourceClaims`` (``DRAWorkloadResourceClaims``): a claim the group's
    pods share, by name or made from a template.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@final
@attrs.frozen
class WorkloadPodGroup:
    """A pod group of a :class:`~schedframe.api.Workload`: one of ``spec.podGroups`` (v1alpha1) or
    ``spec.podGroupTemplates`` (v1alpha2 on), and the spec of a
    :class:`~schedframe.api.SchedulingPodGroup`.

    Args:
        name: the group's (template's) name.
        min_count: ``gang.minCount``; ``None`` for the ``basic`` policy (no gang).
        topology_keys: ``schedulingConstraints.topology[].key``: node labels whose one value
            all the group's pods must share (TopologyAwareWorkloadScheduling).
        resource_claims: ``resourceClaims``.
        disruption_mode: ``disruptionMode`` as the version writes it (``"Pod"``/``"PodGroup"``
            in v1alpha2, ``"single"``/``"all"`` from v1alpha3 and v1beta1), or ``None``.
        priority_class_name: ``priorityClassName``.
        priority: ``priority``.
        preemption_policy: ``preemptionPolicy`` (1.37), or ``None``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    min_count: int | None = None
    topology_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    resource_claims: tuple[PodGroupResourceClaim, ...] = attrs.field(default=(), converter=_tuple)
    disruption_mode: str | None = None
    priority_class_name: str = ""
    priority: int | None = None
    preemption_policy: str | None = None

    @property
    def is_gang(self) -> bool:
        """Whether the group's policy is ``gang``."""
        return self.min_count is not None


@final
@attrs.frozen(kw_only=True)
class CompositePodGroupTemplate:
    """One of a 1.37 Workload's ``compositePodGroupTemplates``: a group of pod groups (and of
    composites, four levels at most), with a ``gang`` (``minGroupCount``) or ``basic`` policy.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    min_group_count: int | None = None
    topology_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    disruption_mode: str | None = None
    priority_class_name: str = ""
    priority: int | None = None
    preemption_policy: str | None = None
    pod_groups: tuple[WorkloadPodGroup, ...] = attrs.field(default=(), converter=_tuple)
    composites: tuple[CompositePodGroupTemplate, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen(kw_only=True)
class Workload:
    """A ``scheduling.k8s.io`` Workload, in any version schedframe reads (``v1alpha1`` to ``v1beta1``).

    Attributes:
        pod_groups: ``spec.podGroups`` (v1alpha1) or ``spec.podGroupTemplates``.
        composites: ``spec.compositePodGroupTemplates`` (1.37).
        controller_ref: ``spec.controllerRef`` as ``(apiGroup, kind, name)``, or ``None``.
        api_version: the version it was read in, and is written in.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_labels)
    pod_groups: tuple[WorkloadPodGroup, ...] = attrs.field(default=(), converter=_tuple)
    controller_ref: tuple[str, str, str] | None = None
    composites: tuple[CompositePodGroupTemplate, ...] = attrs.field(default=(), converter=_tuple)
    api_version: str = WORKLOAD_API_VERSION

    def pod_group(self, name: str) -> WorkloadPodGroup | None:
        """The pod group (template) *name*, or ``None``."""
        for g in self.pod_groups:
            if g.name == name:
                return g
        return None

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> Workload:
        """Read a Workload manifest of any version schedframe reads."""
        return workload_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This Workload as a manifest of its version."""
        return workload_to_manifest(self)


@final
@attrs.frozen
class PodGroupCondition:
    """One of a PodGroup's (or CompositePodGroup's) ``status.conditions``
    (``PodGroupScheduled`` in 1.36, ``PodGroupInitiallyScheduled`` in 1.37, ``DisruptionTarget``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    type: str
    status: str
    reason: str = ""
    message: str = ""


def _conditions(value: Any, path: str) -> tuple[PodGroupCondition, ...]:
    return _items(value, path, _CONDITION.read)


@attrs.frozen(kw_only=True)
class _RuntimeGroup:
    """What a PodGroup and a CompositePodGroup share: metadata, the Workload template they were
    made from, the parent composite, the conditions."""

    name: str
    namespace: str = "default"
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_labels)
    workload_name: str = ""
    template_name: str = ""
    parent: str | None = None
    conditions: tuple[PodGroupCondition, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen(kw_only=True)
class SchedulingPodGroup(_RuntimeGroup):
    """A ``scheduling.k8s.io`` PodGroup (1.36 on, ``kind: PodGroup``): the runtime group its pods
    name in ``spec.schedulingGroup.podGroupName``, made from a Workload's template. Not the
    scheduler-plugins :class:`~schedframe.api.PodGroup` (``scheduling.x-k8s.io``), which has the
    same kind name in another API group.

    Attributes:
        spec: the group's policy and constraints (a :class:`~schedframe.api.WorkloadPodGroup`
            named after the template).
        workload_name: the Workload it was made from (``podGroupTemplateRef.workload.workloadName``
            in v1alpha2, ``workloadRef.workloadName`` from 1.37), or ``""``.
        template_name: the template's name in it, or ``""``.
        parent: ``parentCompositePodGroupName`` (1.37), or ``None``.
        conditions: ``status.conditions``.
        api_version: the version it was read in, and is written in.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    spec: WorkloadPodGroup = attrs.field(factory=lambda: WorkloadPodGroup(""))
    api_version: str = _V1BETA1

    @property
    def min_count(self) -> int | None:
        """The gang's ``minCount``, or ``None`` for the ``basic`` policy."""
        return self.spec.min_count

    @property
    def is_gang(self) -> bool:
        """Whether the group's policy is ``gang``."""
        return self.spec.min_count is not None

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> SchedulingPodGroup:
        """Read a ``scheduling.k8s.io`` PodGroup manifest."""
        return scheduling_pod_group_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This PodGroup as a manifest of its version."""
        return scheduling_pod_group_to_manifest(self)


@final
@attrs.frozen(kw_only=True)
class CompositePodGroup(_RuntimeGroup):
    """A ``scheduling.k8s.io/v1alpha3`` CompositePodGroup (1.37, ``CompositePodGroup`` gate): a
    group of PodGroups (and of composites) with a ``gang`` policy counting member groups
    (``minGroupCount``) and topology constraints of its own.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    spec: CompositePodGroupTemplate = attrs.field(factory=lambda: CompositePodGroupTemplate(name=""))
    api_version: str = _V1ALPHA3

    @property
    def min_group_count(self) -> int | None:
        """The gang's ``minGroupCount``, or ``None`` for the ``basic`` policy."""
        return self.spec.min_group_count

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> CompositePodGroup:
        """Read a CompositePodGroup manifest."""
        return composite_pod_group_from_manifest(manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This CompositePodGroup as a manifest."""
        return composite_pod_group_to_manifest(self)


# -- readers and writers ------------------------------------------------------------------------

_CONDITION: Final = _Codec(PodGroupCondition, (
    _Field("type", "type", _REQUIRED_STR), _Field("status", "status", _REQUIRED_STR),
    _Field("reason", "reason", _STR), _Field("message", "message", _STR)))

_CLAIM: Final = _Codec(PodGroupResourceClaim, (
    _Field("name", "name", _REQUIRED_STR),
    _Field("resourceClaimName", "resource_claim_name", _STR),
    _Field("resourceClaimTemplateName", "resource_claim_template_name", _STR)))


def _policy(value: Any, path: str, count_key: str) -> int | None:
    """``basic`` (None) or ``gang`` (its *count_key*, at least 1): exactly one of them."""
    policy = _mapping(value, path)
    gang, basic = policy.get("gang"), policy.get("basic")
    if (gang is None) == (basic is None):
        _fail(path, "exactly one of basic and gang is required")
    if gang is None:
        _mapping(basic, f"{path}.basic")
        return None
    g = _mapping(gang, f"{path}.gang")
    count = _int(g.get(count_key), f"{path}.gang.{count_key}")
    if count is None or count < 1:
        _fail(f"{path}.gang.{count_key}", f"must be greater than 0, got {count}")
    return count


def _policy_out(count: int | None, count_key: str) -> dict[str, Any]:
    return {"gang": {count_key: count}} if count is not None else {"basic": {}}


def _topology(value: Any, path: str) -> tuple[str, ...]:
    c = _mapping(value, path)
    return tuple(_required_str(_mapping(t, f"{path}.topology[{i}]"), "key", f"{path}.topology[{i}]")
                 for i, t in enumerate(_items(c.get("topology"), f"{path}.topology", lambda v, p: v)))


def _disruption(value: Any, path: str, structured: bool) -> str | None:
    if value is None:
        return None
    if not structured:  # v1alpha2: a string
        mode = _str(value, path)
        if mode not in ("Pod", "PodGroup"):
            _fail(path, f"must be 'Pod' or 'PodGroup', got {mode!r}")
        return mode
    m = _mapping(value, path)
    given = [k for k in ("single", "all") if m.get(k) is not None]
    if len(given) != 1:
        _fail(path, "exactly one of single and all is required")
    return given[0]


def _disruption_out(mode: str, structured: bool) -> Any:
    return {mode: {}} if structured else mode


def _structured(api_version: str) -> bool:
    """From v1alpha3 and v1beta1 on the disruption mode is ``{single: {}}``/``{all: {}}`` and a
    group has a preemption policy."""
    return api_version in (_V1ALPHA3, _V1BETA1)


def _group_fields(m: Mapping[str, Any], path: str, api_version: str, name: str) -> WorkloadPodGroup:
    structured = _structured(api_version)
    preemption = None
    if structured and m.get("preemptionPolicy") is not None:
        preemption = _str(m.get("preemptionPolicy"), f"{path}.preemptionPolicy")
        if preemption not in ("PreemptLowerPriority", "Never"):
            _fail(f"{path}.preemptionPolicy",
                  f"must be 'PreemptLowerPriority' or 'Never', got {preemption!r}")
    return WorkloadPodGroup(
        name, _policy(m.get("schedulingPolicy"), f"{path}.schedulingPolicy", "minCount"),
        _topology(m.get("schedulingConstraints"), f"{path}.schedulingConstraints"),
        _items(m.get("resourceClaims"), f"{path}.resourceClaims", _CLAIM.read),
        _disruption(m.get("disruptionMode"), f"{path}.disruptionMode", structured),
        _str(m.get("priorityClassName"), f"{path}.priorityClassName"),
        _int(m.get("priority"), f"{path}.priority"), preemption)


def _group_fields_out(g: WorkloadPodGroup, api_version: str) -> dict[str, Any]:
    out: dict[str, Any] = {"schedulingPolicy": _policy_out(g.min_count, "minCount")}
    if g.topology_keys:
        out["schedulingConstraints"] = {"topology": [{"key": k} for k in g.topology_keys]}
    if g.resource_claims:
        out["resourceClaims"] = [_CLAIM.write(c) for c in g.resource_claims]
    if g.disruption_mode is not None:
        out["disruptionMode"] = _disruption_out(g.disruption_mode, _structured(api_version))
    if g.priority_class_name:
        out["priorityClassName"] = g.priority_class_name
    if g.priority is not None:
        out["priority"] = g.priority
    if g.preemption_policy is not None:
        out["preemptionPolicy"] = g.preemption_policy
    return out


def _v1alpha1_group(value: Any, path: str) -> WorkloadPodGroup:
    m = _mapping(value, path)
    return WorkloadPodGroup(_required_str(m, "name", path),
                            _policy(m.get("policy"), f"{path}.policy", "minCount"))


def _template(api_version: str) -> Any:
    def read(value: Any, path: str) -> WorkloadPodGroup:
        m = _mapping(value, path)
        return _group_fields(m, path, api_version, _required_str(m, "name", path))
    return read


_MAX_DEPTH: Final = 4  # WorkloadMaxTreeDepth


def _composite(value: Any, path: str, api_version: str, depth: int = 1) -> CompositePodGroupTemplate:
    if depth > _MAX_DEPTH:
        _fail(path, f"composite pod group templates nest at most {_MAX_DEPTH} levels")
    m = _mapping(value, path)
    group = _group_fields({k: v for k, v in m.items() if k not in ("schedulingPolicy",)}
                          | {"schedulingPolicy": {"basic": {}}}, path, api_version, "")
    return CompositePodGroupTemplate(
        name=_required_str(m, "name", path),
        min_group_count=_policy(m.get("schedulingPolicy"), f"{path}.schedulingPolicy", "minGroupCount"),
        topology_keys=group.topology_keys, disruption_mode=group.disruption_mode,
        priority_class_name=group.priority_class_name, priority=group.priority,
        preemption_policy=group.preemption_policy,
        pod_groups=_items(m.get("podGroupTemplates"), f"{path}.podGroupTemplates", _template(api_version)),
        composites=_items(m.get("compositePodGroupTemplates"), f"{path}.compositePodGroupTemplates",
                          lambda v, p: _composite(v, p, api_version, depth + 1)))


def _composite_fields_out(c: CompositePodGroupTemplate, api_version: str) -> dict[str, Any]:
    out = _group_fields_out(WorkloadPodGroup(
        c.name, None, c.topology_keys, (), c.disruption_mode, c.priority_class_name, c.priority,
        c.preemption_policy), api_version)
    out["schedulingPolicy"] = _policy_out(c.min_group_count, "minGroupCount")
    return out


def _composite_out(c: CompositePodGroupTemplate, api_version: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, **_composite_fields_out(c, api_version)}
    if c.pod_groups:
        out["podGroupTemplates"] = [{"name": g.name, **_group_fields_out(g, api_version)}
                                    for g in c.pod_groups]
    if c.composites:
        out["compositePodGroupTemplates"] = [_composite_out(x, api_version) for x in c.composites]
    return out


def _controller_ref(value: Any) -> tuple[str, str, str] | None:
    if value is None:
        return None
    r = _mapping(value, "spec.controllerRef")
    return (_str(r.get("apiGroup"), "spec.controllerRef.apiGroup"),
            _required_str(r, "kind", "spec.controllerRef"), _required_str(r, "name", "spec.controllerRef"))


def workload_from_manifest(manifest: Any) -> Workload:
    """The reader of the kinds registry (errors name the field)."""
    m = _check_top(manifest, "Workload", WORKLOAD_API_VERSIONS)
    api_version = m.get("apiVersion") or WORKLOAD_API_VERSION
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    composites: tuple[CompositePodGroupTemplate, ...] = ()
    if api_version == _V1ALPHA1:
        groups = _items(spec.get("podGroups"), "spec.podGroups", _v1alpha1_group)
        if not groups:
            _fail("spec.podGroups", "required")
    else:
        groups = _items(spec.get("podGroupTemplates"), "spec.podGroupTemplates", _template(api_version))
        if api_version != _V1ALPHA2:
            composites = _items(spec.get("compositePodGroupTemplates"), "spec.compositePodGroupTemplates",
                                lambda v, p: _composite(v, p, api_version))
        if not groups and not composites:
            _fail("spec.podGroupTemplates", "required")
    names = [g.name for g in groups]
    for i, n in enumerate(names):
        if n in names[:i]:
            key = "podGroups" if api_version == _V1ALPHA1 else "podGroupTemplates"
            _fail(f"spec.{key}[{i}].name", f"duplicate pod group name {n!r}")
    return Workload(name=_name(meta), namespace=_namespace(meta),
                    labels=_str_map(meta.get("labels"), "metadata.labels"), pod_groups=groups,
                    controller_ref=_controller_ref(spec.get("controllerRef")), composites=composites,
                    api_version=api_version)


def workload_to_manifest(w: Workload) -> dict[str, Any]:
    """The writer of the kinds registry: the manifest in the Workload's own version."""
    spec: dict[str, Any] = {}
    if w.controller_ref is not None:
        group, kind, name = w.controller_ref
        spec["controllerRef"] = {"apiGroup": group, "kind": kind, "name": name} if group else {
            "kind": kind, "name": name}
    if w.api_version == _V1ALPHA1:
        spec["podGroups"] = [{"name": g.name, "policy": _policy_out(g.min_count, "minCount")}
                             for g in w.pod_groups]
    else:
        spec["podGroupTemplates"] = [{"name": g.name, **_group_fields_out(g, w.api_version)}
                                     for g in w.pod_groups]
        if w.composites:
            spec["compositePodGroupTemplates"] = [_composite_out(c, w.api_version) for c in w.composites]
    return {"apiVersion": w.api_version, "kind": "Workload",
            "metadata": _meta_out(w.name, w.namespace, labels=dict(w.labels)), "spec": spec}


def _workload_ref(spec: Mapping[str, Any], api_version: str) -> tuple[str, str]:
    """(workload name, template name) of a PodGroup's reference to its template."""
    if api_version == _V1ALPHA2:
        ref = _mapping(spec.get("podGroupTemplateRef"), "spec.podGroupTemplateRef")
        w = ref.get("workload")
        if w is None:
            return "", ""
        wm = _mapping(w, "spec.podGroupTemplateRef.workload")
        p = "spec.podGroupTemplateRef.workload"
        return _required_str(wm, "workloadName", p), _required_str(wm, "podGroupTemplateName", p)
    given = spec.get("workloadRef")
    if given is None:
        return "", ""
    wm = _mapping(given, "spec.workloadRef")
    return (_required_str(wm, "workloadName", "spec.workloadRef"),
            _required_str(wm, "templateName", "spec.workloadRef"))


def _workload_ref_out(workload: str, template: str, api_version: str) -> dict[str, Any]:
    if not workload:
        return {}
    if api_version == _V1ALPHA2:
        return {"podGroupTemplateRef": {"workload": {"workloadName": workload,
                                                     "podGroupTemplateName": template}}}
    return {"workloadRef": {"workloadName": workload, "templateName": template}}


def _parent(spec: Mapping[str, Any], api_version: str) -> str | None:
    if api_version == _V1ALPHA2:
        return None
    value = spec.get("parentCompositePodGroupName")
    return None if value is None else _str(value, "spec.parentCompositePodGroupName")


def _runtime_group(manifest: Any, kind: str, versions: tuple[str, ...]
                   ) -> tuple[str, Mapping[str, Any], str, dict[str, Any]]:
    """A PodGroup's or CompositePodGroup's apiVersion, spec, name, and the fields they share
    (metadata, the template reference, the parent, the conditions) as keyword arguments."""
    m = _check_top(manifest, kind, versions)
    api_version = m.get("apiVersion") or versions[0]
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    status = _mapping(m.get("status"), "status")
    workload, template = _workload_ref(spec, api_version)
    name = _name(meta)
    return api_version, spec, template or name, {
        "name": name, "namespace": _namespace(meta),
        "labels": _str_map(meta.get("labels"), "metadata.labels"),
        "workload_name": workload, "template_name": template, "parent": _parent(spec, api_version),
        "conditions": _conditions(status.get("conditions"), "status.conditions"), "api_version": api_version}


def _runtime_group_out(kind: str, g: SchedulingPodGroup | CompositePodGroup, fields: dict[str, Any]
                       ) -> dict[str, Any]:
    """The manifest of a PodGroup or CompositePodGroup whose own spec fields are *fields*."""
    spec: dict[str, Any] = {}
    if g.parent is not None:
        spec["parentCompositePodGroupName"] = g.parent
    spec.update(_workload_ref_out(g.workload_name, g.template_name, g.api_version))
    spec.update(fields)
    out = {"apiVersion": g.api_version, "kind": kind,
           "metadata": _meta_out(g.name, g.namespace, labels=dict(g.labels)), "spec": spec}
    if g.conditions:
        out["status"] = {"conditions": [_CONDITION.write(c) for c in g.conditions]}
    return out


def scheduling_pod_group_from_manifest(manifest: Any) -> SchedulingPodGroup:
    """The reader of the kinds registry for ``scheduling.k8s.io`` PodGroups."""
    api_version, spec, template, kw = _runtime_group(manifest, "PodGroup", SCHEDULING_POD_GROUP_API_VERSIONS)
    return SchedulingPodGroup(spec=_group_fields(spec, "spec", api_version, template), **kw)


def scheduling_pod_group_to_manifest(pg: SchedulingPodGroup) -> dict[str, Any]:
    """The writer of the kinds registry for ``scheduling.k8s.io`` PodGroups."""
    return _runtime_group_out("PodGroup", pg, _group_fields_out(pg.spec, pg.api_version))


def composite_pod_group_from_manifest(manifest: Any) -> CompositePodGroup:
    """The reader of the kinds registry for CompositePodGroups."""
    api_version, spec, template, kw = _runtime_group(manifest, "CompositePodGroup",
                                                     COMPOSITE_POD_GROUP_API_VERSIONS)
    return CompositePodGroup(spec=_composite({**spec, "name": template}, "spec", api_version), **kw)


def composite_pod_group_to_manifest(c: CompositePodGroup) -> dict[str, Any]:
    """The writer of the kinds registry for CompositePodGroups."""
    return _runtime_group_out("CompositePodGroup", c, _composite_fields_out(c.spec, c.api_version))


_WORKLOAD_REFERENCE: Final = _Codec(WorkloadReference, (
    _Field("name", "name", _REQUIRED_STR), _Field("podGroup", "pod_group", _REQUIRED_STR),
    _Field("podGroupReplicaKey", "pod_group_replica_key", _STR)))


def workload_reference_from_manifest(value: Any, path: str) -> WorkloadReference | None:
    """A pod's ``spec.workloadRef`` (``None`` when absent)."""
    return None if value is None else _WORKLOAD_REFERENCE.read(value, path)


def workload_reference_to_manifest(ref: WorkloadReference) -> dict[str, Any]:
    """``spec.workloadRef`` of a pod."""
    return _WORKLOAD_REFERENCE.write(ref)


_KIND_OF: Final[Mapping[type, str]] = {Workload: "Workload", SchedulingPodGroup: "PodGroup",
                                       CompositePodGroup: "CompositePodGroup"}


def unserved_version(obj: Any, release: str) -> str | None:
    """Why the API server of *release* would refuse *obj* (a Workload, ``scheduling.k8s.io``
    PodGroup or CompositePodGroup written in a version that release does not serve), naming the
    versions it does serve; ``None`` when it is served (and for every other object)."""
    kind = _KIND_OF.get(type(obj))
    if kind is None:
        return None
    served = served_api_versions(kind, release)
    if obj.api_version in served:
        return None
    serves = f"it serves {kind} in {', '.join(served)}" if served else f"it has no {kind} API"
    return f"Kubernetes {release} does not serve {obj.api_version} {kind} ({serves})"
