"""The manifests of the core kinds other than Pod: Node, Namespace, Service,
PodDisruptionBudget, PriorityClass and PodGroup (scheduler-plugins' coscheduling), and
:func:`validate_node`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from ._fields import (
    _INT,
    _STR_LIST,
    _bool,
    _check_non_negative,
    _check_top,
    _child,
    _Codec,
    _enum,
    _fail,
    _Field,
    _format_time,
    _given_uid,
    _int,
    _items,
    _label_selector,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _opt_time_out,
    _quantities,
    _quantities_out,
    _required_enum,
    _required_int,
    _required_str,
    _selector_spec,
    _show,
    _str,
    _str_list,
    _str_map,
    _time,
    _top_parts,
)
from ._names import _check_subdomain
from ._pod import _PREEMPTION_POLICIES
from ._ranges import check_int32
from .objects import (
    POD_GROUP_API_VERSION,
    TAINT_EFFECTS,
    ContainerImage,
    Namespace,
    Node,
    NodeCondition,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    Service,
    Taint,
    _node_uid,
)

_TAINT_EFFECTS: Final = tuple(sorted(TAINT_EFFECTS))


_PERCENT_RE: Final = re.compile(r"[0-9]+%")


def _taint(value: Any, path: str) -> Taint:
    m = _mapping(value, path)
    return Taint(
        key=_required_str(m, "key", path),
        effect=_required_enum(m, "effect", path, _TAINT_EFFECTS),
        value=_str(m.get("value"), f"{path}.value"),
        time_added=_time(m.get("timeAdded"), f"{path}.timeAdded"),
    )


def _taint_out(t: Taint, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": t.key}
    if t.value:
        out["value"] = t.value
    out["effect"] = t.effect
    if t.time_added is not None:
        out["timeAdded"] = _format_time(t.time_added, f"{path}.timeAdded")
    return out


_IMAGE: Final = _Codec(ContainerImage, (
    _Field("names", "names", _STR_LIST, always=True), _Field("sizeBytes", "size_bytes", _INT, always=True)))


def _node_condition(value: Any, path: str) -> NodeCondition:
    m = _mapping(value, path)
    return NodeCondition(type=_required_str(m, "type", path),
                         status=_str(m.get("status"), f"{path}.status", "True"),
                         last_heartbeat_time=_time(m.get("lastHeartbeatTime"), f"{path}.lastHeartbeatTime"),
                         last_transition_time=_time(m.get("lastTransitionTime"),
                                                    f"{path}.lastTransitionTime"))


def _node_condition_out(c: NodeCondition, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": c.type, "status": c.status}
    if c.last_heartbeat_time is not None:
        out["lastHeartbeatTime"] = _format_time(c.last_heartbeat_time, f"{path}.lastHeartbeatTime")
    if c.last_transition_time is not None:
        out["lastTransitionTime"] = _format_time(c.last_transition_time, f"{path}.lastTransitionTime")
    return out


def _node(manifest: Any) -> Node:
    meta, spec, status = _top_parts(manifest, "Node", ("v1",))
    kw: dict[str, Any] = _given_uid(meta)
    name = _name(meta)
    _check_subdomain(name, "metadata.name")
    return Node(
        name=name,
        labels=_str_map(meta.get("labels"), "metadata.labels"),
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
        taints=_items(spec.get("taints"), "spec.taints", _taint),
        unschedulable=_bool(spec.get("unschedulable"), "spec.unschedulable"),
        capacity=_quantities(status.get("capacity"), "status.capacity"),
        allocatable=_quantities(status.get("allocatable"), "status.allocatable"),
        images=_items(status.get("images"), "status.images", _IMAGE.read),
        conditions=_items(status.get("conditions"), "status.conditions", _node_condition),
        declared_features=_str_list(status.get("declaredFeatures"), "status.declaredFeatures"),
        **kw,
    )


def node_to_manifest(node: Node) -> dict[str, Any]:
    """The Kubernetes v1 Node manifest of *node*.

    Raises:
        ManifestError: when a taint's ``time_added`` cannot be written as RFC 3339.
    """
    meta = _meta_out(node.name, uid=node.uid if node.uid != _node_uid(node) else "",
                     labels=dict(node.labels), annotations=dict(node.annotations))
    spec: dict[str, Any] = {}
    if node.unschedulable:
        spec["unschedulable"] = True
    if node.taints:
        spec["taints"] = [_taint_out(t, f"spec.taints[{i}]") for i, t in enumerate(node.taints)]
    status: dict[str, Any] = {}
    if node.capacity:
        status["capacity"] = _quantities_out(node.capacity)
    if node.allocatable:
        status["allocatable"] = _quantities_out(node.allocatable)
    if node.conditions:
        status["conditions"] = [_node_condition_out(c, f"status.conditions[{i}]")
                                for i, c in enumerate(node.conditions)]
    if node.images:
        status["images"] = [_IMAGE.write(i) for i in node.images]
    if node.declared_features:
        status["declaredFeatures"] = list(node.declared_features)
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec, "status": status}


def _namespace_obj(manifest: Any) -> Namespace:
    m = _check_top(manifest, "Namespace", ("v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    return Namespace(name=_name(meta), labels=_str_map(meta.get("labels"), "metadata.labels"))


def _int_or_percent(value: Any, path: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not _PERCENT_RE.fullmatch(value):
            _fail(path, f"expected an integer or a percentage such as '50%', got {_show(value)}")
        return value
    number = _int(value, path)
    if number is not None and number < 0:
        _fail(path, f"must be greater than or equal to 0, got {number}")
    return number


def _pdb(manifest: Any) -> PodDisruptionBudget:
    meta, spec, status = _top_parts(manifest, "PodDisruptionBudget", ("policy/v1",))
    return PodDisruptionBudget(
        name=_name(meta), namespace=_namespace(meta),
        selector=_label_selector(spec.get("selector"), "spec.selector"),
        min_available=_int_or_percent(spec.get("minAvailable"), "spec.minAvailable"),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable"), "spec.maxUnavailable"),
        disruptions_allowed=_int(status.get("disruptionsAllowed"), "status.disruptionsAllowed") or 0,
        disrupted_pods=_disrupted_pods(status.get("disruptedPods"), "status.disruptedPods"),
    )


def _disrupted_pods(value: Any, path: str) -> frozenset[str]:
    """The pod names of ``status.disruptedPods`` (a map of pod name to eviction time)."""
    m = _mapping(value, path)
    for k, v in m.items():
        if not isinstance(k, str):
            _fail(path, f"keys must be pod names, got {_show(k)}")
        _time(v, _child(path, k))
    return frozenset(m)


def _priority_class(manifest: Any) -> PriorityClass:
    m = _check_top(manifest, "PriorityClass", ("scheduling.k8s.io/v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    return PriorityClass(
        name=_name(meta),
        value=_required_int(m, "value", ""),
        global_default=_bool(m.get("globalDefault"), "globalDefault"),
        preemption_policy=_enum(m.get("preemptionPolicy"), "preemptionPolicy", _PREEMPTION_POLICIES,
                                "PreemptLowerPriority") or "PreemptLowerPriority",
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
    )


def _service(manifest: Any) -> Service:
    m = _check_top(manifest, "Service", ("v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    return Service(name=_name(meta), namespace=_namespace(meta),
                   selector=_str_map(spec.get("selector"), "spec.selector"))


def _namespace_out(ns: Namespace) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta_out(ns.name, labels=dict(ns.labels))}


def _pdb_out(pdb: PodDisruptionBudget) -> dict[str, Any]:
    spec = _selector_spec(pdb.selector)
    if pdb.min_available is not None:
        spec["minAvailable"] = pdb.min_available
    if pdb.max_unavailable is not None:
        spec["maxUnavailable"] = pdb.max_unavailable
    status: dict[str, Any] = {"disruptionsAllowed": pdb.disruptions_allowed}
    if pdb.disrupted_pods:
        # schedframe keeps only the names; the eviction times are written as the epoch
        status["disruptedPods"] = dict.fromkeys(sorted(pdb.disrupted_pods), "1970-01-01T00:00:00Z")
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": _meta_out(pdb.name, pdb.namespace), "spec": spec, "status": status}


def _priority_class_out(pc: PriorityClass) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": _meta_out(pc.name, annotations=dict(pc.annotations)),
                           "value": pc.value}
    if pc.global_default:
        out["globalDefault"] = True
    out["preemptionPolicy"] = pc.preemption_policy
    return out


def _service_out(svc: Service) -> dict[str, Any]:
    spec = {"selector": dict(svc.selector)} if svc.selector else {}
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta_out(svc.name, svc.namespace),
            "spec": spec}


def node_from_manifest(manifest: Mapping[str, Any]) -> Node:
    """Build a :class:`~schedframe.Node` from a Kubernetes v1 Node manifest.

    Raises:
        ManifestError: naming the field path, the value and what was expected.
    """
    return _node(manifest)


def namespace_from_manifest(manifest: Mapping[str, Any]) -> Namespace:
    """Build a :class:`~schedframe.Namespace` from a Kubernetes v1 Namespace manifest.

    Raises:
        ManifestError: naming the field path, the value and what was expected.
    """
    return _namespace_obj(manifest)


#: The PodGroup API groups kubernetes-sigs/scheduler-plugins has published: ``scheduling.x-k8s.io``
#: (since its v0.25.7) and ``scheduling.sigs.k8s.io`` (before), with the same fields.
POD_GROUP_API_VERSIONS: Final = (POD_GROUP_API_VERSION, "scheduling.sigs.k8s.io/v1alpha1")


def pod_group_from_manifest(manifest: Any) -> PodGroup:
    """Read a ``scheduling.x-k8s.io/v1alpha1`` (or ``scheduling.sigs.k8s.io/v1alpha1``) PodGroup
    manifest."""
    m = _check_top(manifest, "PodGroup", POD_GROUP_API_VERSIONS)
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    min_member = _int(spec.get("minMember"), "spec.minMember") or 0
    check_int32(min_member, "spec.minMember")
    timeout = _int(spec.get("scheduleTimeoutSeconds"), "spec.scheduleTimeoutSeconds")
    # upstream's field is an *int32 of seconds: the API server refuses more
    check_int32(timeout, "spec.scheduleTimeoutSeconds", " seconds")
    return PodGroup(
        name=_name(meta),
        namespace=_namespace(meta),
        min_member=min_member,
        schedule_timeout_seconds=timeout,
        min_resources=_quantities(spec.get("minResources"), "spec.minResources"),
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def _pod_group_out(group: PodGroup) -> dict[str, Any]:
    created = _opt_time_out(group.creation_timestamp, "metadata.creationTimestamp")
    spec: dict[str, Any] = {}
    if group.min_member:
        spec["minMember"] = group.min_member
    if group.min_resources:
        spec["minResources"] = _quantities_out(group.min_resources)
    if group.schedule_timeout_seconds is not None:
        spec["scheduleTimeoutSeconds"] = group.schedule_timeout_seconds
    return {"apiVersion": POD_GROUP_API_VERSION, "kind": "PodGroup",
            "metadata": _meta_out(group.name, group.namespace, creationTimestamp=created),
            "spec": spec}


def validate_node(node: Node, *, check_names: bool = True) -> None:
    """Check *node* as the API server validates one: a valid name (unless *check_names* is
    false), no negative capacity or allocatable quantity.

    Raises:
        ManifestError: naming the field path of the first problem.

    .. versionadded:: 0.1.0
    """
    if not isinstance(node, Node):
        raise TypeError(f"validate_node() argument 'node' must be a Node, got {type(node).__name__}")
    if check_names:
        _check_subdomain(node.name, "metadata.name")
    _check_non_negative(node.capacity, "status.capacity")
    _check_non_negative(node.allocatable, "status.allocatable")
