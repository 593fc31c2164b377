"""The Pod manifest: reading (with the API server's defaulting and validation), writing, and
:func:`validate_pod` for pods built in code. Workload templates are read with the same code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from ..errors import bounded_repr
from . import storage as _storage
from ._fields import (
    _INT,
    _LABEL_SELECTOR,
    _OPT_INT,
    _OPT_STR,
    _REQUIRED_INT,
    _REQUIRED_STR,
    _STR,
    _STR_LIST,
    _bool,
    _check_non_negative,
    _child,
    _Codec,
    _enum,
    _enum_kind,
    _fail,
    _Field,
    _format_time,
    _given,
    _given_uid,
    _int,
    _items,
    _list,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _node_selector_term,
    _node_selector_term_out,
    _opt_time_out,
    _owner_reference,
    _owner_reference_out,
    _quantities,
    _quantities_out,
    _required_enum_kind,
    _required_int,
    _required_str,
    _str,
    _str_map,
    _time,
    _top_parts,
)
from ._names import _check_label, _check_subdomain
from .objects import (
    DEFAULT_SCHEDULER_NAME,
    Affinity,
    Container,
    ContainerPort,
    ContainerResourceClaim,
    ContainerRestartRule,
    NodeAffinity,
    NodeSelector,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodResourceClaim,
    PodResourceClaimStatus,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    _pod_uid,
)
from .quantity import Quantity
from .scheduling_workload import workload_reference_from_manifest, workload_reference_to_manifest

_TOLERATION_OPS: Final = ("", "Equal", "Exists", "Lt", "Gt")

_TOLERATION_EFFECTS: Final = ("", "NoSchedule", "PreferNoSchedule", "NoExecute")

_WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")

_INCLUSION_POLICIES: Final = ("Honor", "Ignore")

_PREEMPTION_POLICIES: Final = ("PreemptLowerPriority", "Never")

_CONTAINER_RESTART_POLICIES: Final = ("Always", "Never", "OnFailure")

_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")


_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"

_PREFERRED: Final = "preferredDuringSchedulingIgnoredDuringExecution"


def _node_affinity(value: Any, path: str) -> NodeAffinity:
    m = _mapping(value, path)
    required = None
    raw_required = m.get(_REQUIRED)
    if raw_required is not None:
        p = f"{path}.{_REQUIRED}"
        sel = _mapping(raw_required, p)
        p_terms = f"{p}.nodeSelectorTerms"
        required = NodeSelector(tuple(
            _node_selector_term(t, f"{p_terms}[{i}]")
            for i, t in enumerate(_list(sel.get("nodeSelectorTerms"), p_terms))
        ))
    preferred = []
    p_pref = f"{path}.{_PREFERRED}"
    for i, raw in enumerate(_list(m.get(_PREFERRED), p_pref)):
        p = f"{p_pref}[{i}]"
        e = _mapping(raw, p)
        preferred.append(PreferredSchedulingTerm(
            weight=_required_int(e, "weight", p),
            preference=_node_selector_term(e.get("preference"), f"{p}.preference"),
        ))
    return NodeAffinity(required, tuple(preferred))


def _node_affinity_out(na: NodeAffinity) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if na.required is not None:
        out[_REQUIRED] = {"nodeSelectorTerms": [_node_selector_term_out(t) for t in na.required.terms]}
    if na.preferred:
        out[_PREFERRED] = [{"weight": p.weight, "preference": _node_selector_term_out(p.preference)}
                           for p in na.preferred]
    return out


_POD_AFFINITY_TERM: Final = _Codec(PodAffinityTerm, (
    _Field("topologyKey", "topology_key", _REQUIRED_STR),
    _Field("labelSelector", "label_selector", _LABEL_SELECTOR), _Field("namespaces", "namespaces", _STR_LIST),
    _Field("namespaceSelector", "namespace_selector", _LABEL_SELECTOR),
    _Field("matchLabelKeys", "match_label_keys", _STR_LIST),
    _Field("mismatchLabelKeys", "mismatch_label_keys", _STR_LIST)),
    written=("labelSelector", "namespaces", "topologyKey", "namespaceSelector", "matchLabelKeys",
             "mismatchLabelKeys"))
_pod_affinity_term: Final = _POD_AFFINITY_TERM.read
_pod_affinity_term_out: Final = _POD_AFFINITY_TERM.write


def _pod_affinity_terms(value: Any, path: str) -> tuple[
        tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]]:
    m = _mapping(value, path)
    p_req = f"{path}.{_REQUIRED}"
    required = tuple(_pod_affinity_term(t, f"{p_req}[{i}]")
                     for i, t in enumerate(_list(m.get(_REQUIRED), p_req)))
    preferred = []
    p_pref = f"{path}.{_PREFERRED}"
    for i, raw in enumerate(_list(m.get(_PREFERRED), p_pref)):
        p = f"{p_pref}[{i}]"
        e = _mapping(raw, p)
        term = e.get("podAffinityTerm")
        if term is None:
            _fail(f"{p}.podAffinityTerm", "required")
        preferred.append(WeightedPodAffinityTerm(
            weight=_required_int(e, "weight", p),
            term=_pod_affinity_term(term, f"{p}.podAffinityTerm"),
        ))
    return required, tuple(preferred)


def _pod_affinity_out(a: PodAffinity | PodAntiAffinity) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.required:
        out[_REQUIRED] = [_pod_affinity_term_out(t) for t in a.required]
    if a.preferred:
        out[_PREFERRED] = [{"weight": w.weight, "podAffinityTerm": _pod_affinity_term_out(w.term)}
                           for w in a.preferred]
    return out


def _affinity(value: Any, path: str) -> Affinity | None:
    if value is None:
        return None
    m = _mapping(value, path)
    na = m.get("nodeAffinity")
    pa = m.get("podAffinity")
    paa = m.get("podAntiAffinity")
    return Affinity(
        node_affinity=None if na is None else _node_affinity(na, f"{path}.nodeAffinity"),
        pod_affinity=None if pa is None else PodAffinity(*_pod_affinity_terms(pa, f"{path}.podAffinity")),
        pod_anti_affinity=None if paa is None else PodAntiAffinity(
            *_pod_affinity_terms(paa, f"{path}.podAntiAffinity")),
    )


def _affinity_out(a: Affinity) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.node_affinity is not None:
        out["nodeAffinity"] = _node_affinity_out(a.node_affinity)
    if a.pod_affinity is not None:
        out["podAffinity"] = _pod_affinity_out(a.pod_affinity)
    if a.pod_anti_affinity is not None:
        out["podAntiAffinity"] = _pod_affinity_out(a.pod_anti_affinity)
    return out


_TOLERATION: Final = _Codec(Toleration, (
    _Field("tolerationSeconds", "toleration_seconds", _OPT_INT), _Field("key", "key", _STR),
    # always written: an absent operator reads as "Equal"
    _Field("operator", "operator", _enum_kind(_TOLERATION_OPS), always=True), _Field("value", "value", _STR),
    _Field("effect", "effect", _enum_kind(_TOLERATION_EFFECTS))),
    written=("key", "operator", "value", "effect", "tolerationSeconds"))
_toleration: Final = _TOLERATION.read
_toleration_out: Final = _TOLERATION.write

_SPREAD_CONSTRAINT: Final = _Codec(TopologySpreadConstraint, (
    _Field("maxSkew", "max_skew", _REQUIRED_INT), _Field("topologyKey", "topology_key", _REQUIRED_STR),
    _Field("whenUnsatisfiable", "when_unsatisfiable", _required_enum_kind(_WHEN_UNSATISFIABLE)),
    _Field("labelSelector", "label_selector", _LABEL_SELECTOR), _Field("minDomains", "min_domains", _OPT_INT),
    _Field("nodeAffinityPolicy", "node_affinity_policy", _enum_kind(_INCLUSION_POLICIES, when=_given)),
    _Field("nodeTaintsPolicy", "node_taints_policy", _enum_kind(_INCLUSION_POLICIES, when=_given)),
    _Field("matchLabelKeys", "match_label_keys", _STR_LIST)))
_spread_constraint: Final = _SPREAD_CONSTRAINT.read
_spread_constraint_out: Final = _SPREAD_CONSTRAINT.write

#: The manifest encoding of a topology spread constraint, for other layers (plugin args).
spread_constraint_to_manifest = _spread_constraint_out


_PORT: Final = _Codec(ContainerPort, (
    _Field("containerPort", "container_port", _REQUIRED_INT), _Field("hostPort", "host_port", _INT),
    _Field("hostIP", "host_ip", _STR),
    _Field("protocol", "protocol", _enum_kind((*_PROTOCOLS, ""), empty_is_default=True), always=True),
    _Field("name", "name", _STR)),
    written=("name", "containerPort", "hostPort", "hostIP", "protocol"))
_port: Final = _PORT.read
_port_out: Final = _PORT.write


def _container(value: Any, path: str) -> Container:
    m = _mapping(value, path)
    p_res = f"{path}.resources"
    res = _mapping(m.get("resources"), p_res)
    p_ports = f"{path}.ports"
    limits = _quantities(res.get("limits"), f"{p_res}.limits")
    return Container(
        name=_str(m.get("name"), f"{path}.name"),
        image=_str(m.get("image"), f"{path}.image"),
        requests=_default_requests(_quantities(res.get("requests"), f"{p_res}.requests"), limits),
        limits=limits,
        ports=tuple(_port(p, f"{p_ports}[{i}]") for i, p in enumerate(_list(m.get("ports"), p_ports))),
        restart_policy=_enum(m.get("restartPolicy"), f"{path}.restartPolicy", _CONTAINER_RESTART_POLICIES),
        claims=_items(res.get("claims"), f"{p_res}.claims", _container_claim),
        restart_policy_rules=_items(m.get("restartPolicyRules"), f"{path}.restartPolicyRules", _restart_rule),
    )


_RESTART_RULE_ACTIONS: Final = ("Restart", "RestartAllContainers")
_EXIT_CODE_OPERATORS: Final = ("In", "NotIn")


def _restart_rule(value: Any, path: str) -> ContainerRestartRule:
    m = _mapping(value, path)
    action = _enum(m.get("action"), f"{path}.action", _RESTART_RULE_ACTIONS)
    if action is None:
        _fail(f"{path}.action", "required")
    codes = _mapping(m.get("exitCodes"), f"{path}.exitCodes")
    values = _list(codes.get("values"), f"{path}.exitCodes.values")
    return ContainerRestartRule(
        action=action,
        exit_codes_operator=_enum(codes.get("operator"), f"{path}.exitCodes.operator", _EXIT_CODE_OPERATORS)
        or "",
        exit_codes_values=tuple(_int(v, f"{path}.exitCodes.values[{i}]") or 0 for i, v in enumerate(values)),
    )


def _restart_rule_out(r: ContainerRestartRule) -> dict[str, Any]:
    out: dict[str, Any] = {"action": r.action}
    if r.exit_codes_operator or r.exit_codes_values:
        out["exitCodes"] = {"operator": r.exit_codes_operator, "values": list(r.exit_codes_values)}
    return out


_CONTAINER_CLAIM: Final = _Codec(ContainerResourceClaim, (
    _Field("name", "name", _REQUIRED_STR), _Field("request", "request", _STR)))
_container_claim: Final = _CONTAINER_CLAIM.read

_POD_RESOURCE_CLAIM: Final = _Codec(PodResourceClaim, (
    _Field("name", "name", _REQUIRED_STR), _Field("resourceClaimName", "resource_claim_name", _OPT_STR),
    _Field("resourceClaimTemplateName", "resource_claim_template_name", _OPT_STR)))
_pod_resource_claim: Final = _POD_RESOURCE_CLAIM.read
_pod_resource_claim_out: Final = _POD_RESOURCE_CLAIM.write

_POD_RESOURCE_CLAIM_STATUS: Final = _Codec(PodResourceClaimStatus, (
    _Field("name", "name", _REQUIRED_STR), _Field("resourceClaimName", "resource_claim_name", _OPT_STR)))
_pod_resource_claim_status: Final = _POD_RESOURCE_CLAIM_STATUS.read
_pod_resource_claim_status_out: Final = _POD_RESOURCE_CLAIM_STATUS.write


def _resources_out(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if requests:
        out["requests"] = _quantities_out(requests)
    if limits:
        out["limits"] = _quantities_out(limits)
    return out


def _container_out(c: Container) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if c.name:
        out["name"] = c.name
    if c.image:
        out["image"] = c.image
    if c.ports:
        out["ports"] = [_port_out(p) for p in c.ports]
    resources = _resources_out(c.requests, c.limits)
    if c.claims:
        resources["claims"] = [_CONTAINER_CLAIM.write(x) for x in c.claims]
    if resources:
        out["resources"] = resources
    if c.restart_policy is not None:
        out["restartPolicy"] = c.restart_policy
    if c.restart_policy_rules:
        out["restartPolicyRules"] = [_restart_rule_out(r) for r in c.restart_policy_rules]
    return out


def _pod_condition(value: Any, path: str) -> PodCondition:
    m = _mapping(value, path)
    return PodCondition(
        type=_required_str(m, "type", path),
        status=_str(m.get("status"), f"{path}.status", "True"),
        reason=_str(m.get("reason"), f"{path}.reason"),
        message=_str(m.get("message"), f"{path}.message"),
        last_probe_time=_time(m.get("lastProbeTime"), f"{path}.lastProbeTime"),
        last_transition_time=_time(m.get("lastTransitionTime"), f"{path}.lastTransitionTime"),
    )


def _scheduling_gate(value: Any, path: str) -> str:
    return _required_str(_mapping(value, path), "name", path)


def _default_requests(requests: Mapping[str, Quantity],
                      limits: Mapping[str, Quantity]) -> Mapping[str, Quantity]:
    """The API server's defaulting (``SetDefaults_Pod``): a resource with a limit and no request
    requests its limit."""
    for name in limits:
        if name not in requests:
            return {**requests, **{k: q for k, q in limits.items() if k not in requests}}
    return requests


def _check_request_limits(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity],
                          path: str) -> None:
    """``ValidateResourceRequirements``: a request may not exceed its limit."""
    for name, q in requests.items():
        limit = limits.get(name)
        if limit is not None and q.exact > limit.exact:
            _fail(_child(f"{path}.requests", name),
                  f"must be less than or equal to the {name} limit of {limit}, got {q}")


def _host_network_ports(containers: tuple[Container, ...], path: str) -> tuple[Container, ...]:
    """A ``hostNetwork`` pod's container ports as the API server defaults and validates them: an
    unset ``hostPort`` becomes the ``containerPort`` (so NodePorts sees the port the pod really
    takes on its node), and a different one is refused. Workload templates get the same default
    here because the pods their controllers create do."""
    out = []
    for i, c in enumerate(containers):
        if not any(p.host_port != p.container_port for p in c.ports):
            out.append(c)
            continue
        ports = []
        for j, p in enumerate(c.ports):
            if p.host_port == 0:
                p = attrs.evolve(p, host_port=p.container_port)
            elif p.host_port != p.container_port:
                _fail(f"{path}[{i}].ports[{j}].hostPort",
                      f"must match containerPort ({p.container_port}) when hostNetwork is true, "
                      f"got {p.host_port}")
            ports.append(p)
        out.append(attrs.evolve(c, ports=tuple(ports)))
    return tuple(out)


def _check_containers(spec: Mapping[str, Any], containers: Sequence[Container],
                      init_containers: Sequence[Container], path: str) -> None:
    if not containers:
        _fail(f"{path}.containers", "required: a pod needs at least one container")
    seen: dict[str, str] = {}
    groups = (("containers", containers), ("initContainers", init_containers))
    for field, group in groups:
        for i, c in enumerate(group):
            p = f"{path}.{field}[{i}]"
            if not c.name:
                _fail(f"{p}.name", "required")
            _check_label(c.name, f"{p}.name")
            if c.name in seen:
                _fail(f"{p}.name", f"duplicate container name {bounded_repr(c.name)} (also {seen[c.name]})")
            seen[c.name] = p
            _check_request_limits(c.requests, c.limits, f"{p}.resources")
    p_eph = f"{path}.ephemeralContainers"
    for i, raw in enumerate(_list(spec.get("ephemeralContainers"), p_eph)):
        p = f"{p_eph}[{i}]"
        name = _required_str(_mapping(raw, p), "name", p)
        if name in seen:
            _fail(f"{p}.name", f"duplicate container name {bounded_repr(name)} (also {seen[name]})")
        seen[name] = p


def _pod(manifest: Any) -> Pod:
    meta, spec, status = _top_parts(manifest, "Pod", ("v1",))
    return _pod_parts(meta, spec, status, "metadata", "spec", "status")


def _pod_parts(meta: Mapping[str, Any], spec: Mapping[str, Any], status: Mapping[str, Any],
               p_meta: str, p_spec: str, p_status: str, *, template: bool = False) -> Pod:
    """A pod from its three parts (a Pod manifest, or a workload's pod template with
    ``template=True``: no name required, no status)."""
    p_res = f"{p_spec}.resources"
    resources = _mapping(spec.get("resources"), p_res)
    kw: dict[str, Any] = _given_uid(meta, p_meta)
    if template:
        name = _str(meta.get("name"), f"{p_meta}.name")
    else:
        name = _name(meta, p_meta)
        _check_subdomain(name, f"{p_meta}.name")
    namespace = _namespace(meta, p_meta)
    containers = _items(spec.get("containers"), f"{p_spec}.containers", _container)
    init_containers = _items(spec.get("initContainers"), f"{p_spec}.initContainers", _container)
    host_network = _bool(spec.get("hostNetwork"), f"{p_spec}.hostNetwork")
    workload_ref = workload_reference_from_manifest(spec.get("workloadRef"), f"{p_spec}.workloadRef")
    if workload_ref is not None:
        kw["workload_ref"] = workload_ref
    group = spec.get("schedulingGroup")
    if group is not None:
        g_path = f"{p_spec}.schedulingGroup"
        pod_group = _str(_mapping(group, g_path).get("podGroupName"), f"{g_path}.podGroupName")
        if pod_group:
            kw["scheduling_group"] = pod_group
    host_users = spec.get("hostUsers")
    if host_users is not None:
        kw["host_users"] = _bool(host_users, f"{p_spec}.hostUsers")
    if host_network:
        kw["host_network"] = True
        containers = _host_network_ports(containers, f"{p_spec}.containers")
        init_containers = _host_network_ports(init_containers, f"{p_spec}.initContainers")
    pod_limits = _quantities(resources.get("limits"), f"{p_res}.limits")
    pod_requests = _quantities(resources.get("requests"), f"{p_res}.requests")
    pod = Pod(
        name=name,
        namespace=namespace,
        labels=_str_map(meta.get("labels"), f"{p_meta}.labels"),
        annotations=_str_map(meta.get("annotations"), f"{p_meta}.annotations"),
        creation_timestamp=_time(meta.get("creationTimestamp"), f"{p_meta}.creationTimestamp"),
        deletion_timestamp=_time(meta.get("deletionTimestamp"), f"{p_meta}.deletionTimestamp"),
        owner_references=_items(meta.get("ownerReferences"), f"{p_meta}.ownerReferences", _owner_reference),
        priority=_int(spec.get("priority"), f"{p_spec}.priority"),
        priority_class_name=_str(spec.get("priorityClassName"), f"{p_spec}.priorityClassName"),
        scheduler_name=_str(spec.get("schedulerName"), f"{p_spec}.schedulerName") or DEFAULT_SCHEDULER_NAME,
        node_name=_str(spec.get("nodeName"), f"{p_spec}.nodeName"),
        node_selector=_str_map(spec.get("nodeSelector"), f"{p_spec}.nodeSelector"),
        affinity=_affinity(spec.get("affinity"), f"{p_spec}.affinity"),
        tolerations=_items(spec.get("tolerations"), f"{p_spec}.tolerations", _toleration),
        topology_spread_constraints=_items(spec.get("topologySpreadConstraints"),
                                           f"{p_spec}.topologySpreadConstraints", _spread_constraint),
        containers=containers,
        init_containers=init_containers,
        overhead=_quantities(spec.get("overhead"), f"{p_spec}.overhead"),
        resources=pod_requests,
        resource_limits=pod_limits,
        scheduling_gates=_items(spec.get("schedulingGates"), f"{p_spec}.schedulingGates", _scheduling_gate),
        preemption_policy=_enum(spec.get("preemptionPolicy"), f"{p_spec}.preemptionPolicy",
                                _PREEMPTION_POLICIES),
        phase=_str(status.get("phase"), f"{p_status}.phase") or "Pending",
        nominated_node_name=_str(status.get("nominatedNodeName"), f"{p_status}.nominatedNodeName"),
        start_time=_time(status.get("startTime"), f"{p_status}.startTime"),
        conditions=_items(status.get("conditions"), f"{p_status}.conditions", _pod_condition),
        volumes=_storage.volumes_from_manifest(spec.get("volumes"), f"{p_spec}.volumes"),
        resource_claims=_items(spec.get("resourceClaims"), f"{p_spec}.resourceClaims", _pod_resource_claim),
        resource_claim_statuses=_items(status.get("resourceClaimStatuses"),
                                       f"{p_status}.resourceClaimStatuses", _pod_resource_claim_status),
        **kw,
    )
    # the API server's validation, once every field has been read
    _check_containers(spec, containers, init_containers, p_spec)
    _check_request_limits(pod_requests, pod_limits, p_res)
    return pod


def _pod_condition_out(c: PodCondition, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": c.type, "status": c.status}
    if c.last_probe_time is not None:
        out["lastProbeTime"] = _format_time(c.last_probe_time, f"{path}.lastProbeTime")
    if c.last_transition_time is not None:
        out["lastTransitionTime"] = _format_time(c.last_transition_time, f"{path}.lastTransitionTime")
    if c.reason:
        out["reason"] = c.reason
    if c.message:
        out["message"] = c.message
    return out


def pod_to_manifest(pod: Pod) -> dict[str, Any]:
    """The Kubernetes v1 Pod manifest of *pod*.

    Raises:
        ManifestError: when a timestamp cannot be written as RFC 3339.
    """
    meta = _meta_out(
        pod.name, pod.namespace,
        uid=pod.uid if pod.uid != _pod_uid(pod) else "",
        labels=dict(pod.labels), annotations=dict(pod.annotations),
        creationTimestamp=_opt_time_out(pod.creation_timestamp, "metadata.creationTimestamp"),
        deletionTimestamp=_opt_time_out(pod.deletion_timestamp, "metadata.deletionTimestamp"),
        ownerReferences=[_owner_reference_out(o) for o in pod.owner_references],
    )
    spec: dict[str, Any] = {}
    if pod.node_name:
        spec["nodeName"] = pod.node_name
    spec["schedulerName"] = pod.scheduler_name
    if pod.priority is not None:
        spec["priority"] = pod.priority
    if pod.priority_class_name:
        spec["priorityClassName"] = pod.priority_class_name
    if pod.preemption_policy is not None:
        spec["preemptionPolicy"] = pod.preemption_policy
    if pod.node_selector:
        spec["nodeSelector"] = dict(pod.node_selector)
    if pod.affinity is not None:
        spec["affinity"] = _affinity_out(pod.affinity)
    if pod.tolerations:
        spec["tolerations"] = [_toleration_out(t) for t in pod.tolerations]
    if pod.topology_spread_constraints:
        spec["topologySpreadConstraints"] = [
            _spread_constraint_out(c) for c in pod.topology_spread_constraints]
    if pod.init_containers:
        spec["initContainers"] = [_container_out(c) for c in pod.init_containers]
    spec["containers"] = [_container_out(c) for c in pod.containers]
    if pod.overhead:
        spec["overhead"] = _quantities_out(pod.overhead)
    resources = _resources_out(pod.resources, pod.resource_limits)
    if resources:
        spec["resources"] = resources
    if pod.scheduling_gates:
        spec["schedulingGates"] = [{"name": g} for g in pod.scheduling_gates]
    if pod.workload_ref is not None:
        spec["workloadRef"] = workload_reference_to_manifest(pod.workload_ref)
    if pod.scheduling_group is not None:
        spec["schedulingGroup"] = {"podGroupName": pod.scheduling_group}
    if pod.host_network:
        spec["hostNetwork"] = True
    if pod.host_users is not None:
        spec["hostUsers"] = pod.host_users
    if pod.resource_claims:
        spec["resourceClaims"] = [_pod_resource_claim_out(c) for c in pod.resource_claims]
    if pod.volumes:
        spec["volumes"] = _storage.volumes_to_manifest(pod.volumes)
    status: dict[str, Any] = {"phase": pod.phase}
    if pod.nominated_node_name:
        status["nominatedNodeName"] = pod.nominated_node_name
    if pod.start_time is not None:
        status["startTime"] = _format_time(pod.start_time, "status.startTime")
    if pod.conditions:
        status["conditions"] = [_pod_condition_out(c, f"status.conditions[{i}]")
                                for i, c in enumerate(pod.conditions)]
    if pod.resource_claim_statuses:
        status["resourceClaimStatuses"] = [_pod_resource_claim_status_out(c)
                                           for c in pod.resource_claim_statuses]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def pod_from_manifest(manifest: Mapping[str, Any]) -> Pod:
    """Build a :class:`~schedframe.Pod` from a Kubernetes v1 Pod manifest.

    ``kind`` and ``apiVersion`` may be absent (as in the items of a ``PodList``).

    Raises:
        ManifestError: naming the field path, the value and what was expected.
    """
    return _pod(manifest)


def validate_pod(pod: Pod, *, require_containers: bool = True, check_names: bool = True) -> None:
    """Check *pod* as the API server validates one: a valid pod name and container names
    (unless *check_names* is false), at least one container (unless *require_containers* is
    false), unique container names, no negative quantity and no request above its limit.

    Raises:
        ManifestError: naming the field path of the first problem.

    .. versionadded:: 0.1.0
    """
    if not isinstance(pod, Pod):
        raise TypeError(f"validate_pod() argument 'pod' must be a Pod, got {type(pod).__name__}")
    if check_names:
        _check_subdomain(pod.name, "metadata.name")
    if require_containers and not pod.containers:
        _fail("spec.containers", "required: a pod needs at least one container")
    seen: dict[str, str] = {}
    for field, group in (("containers", pod.containers), ("initContainers", pod.init_containers)):
        for i, c in enumerate(group):
            p = f"spec.{field}[{i}]"
            if check_names:
                _check_label(c.name, f"{p}.name")
            if c.name in seen:
                _fail(f"{p}.name", f"duplicate container name {bounded_repr(c.name)} (also {seen[c.name]})")
            seen[c.name] = p
            _check_non_negative(c.requests, f"{p}.resources.requests")
            _check_non_negative(c.limits, f"{p}.resources.limits")
            _check_request_limits(c.requests, c.limits, f"{p}.resources")
    _check_non_negative(pod.overhead, "spec.overhead")
    _check_non_negative(pod.resources, "spec.resources.requests")
    _check_non_negative(pod.resource_limits, "spec.resources.limits")
    _check_request_limits(pod.resources, pod.resource_limits, "spec.resources")
