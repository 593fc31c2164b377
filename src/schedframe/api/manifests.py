"""Conversion between Kubernetes manifests and schedframe's api objects.

Reading (``*_from_manifest``, :func:`object_from_manifest`, :func:`load_manifests`) accepts the
plain dicts that ``yaml.safe_load`` / ``json.load`` produce from Kubernetes v1 manifests and
``kubectl get ... -o yaml|json`` output. Every field the scheduler reads is decoded; fields
schedframe does not model are ignored. Bad input raises one :class:`~schedframe.ManifestError`
naming the field path, the value found and what was expected::

    spec.containers[0].resources.requests.cpu: '12x' is not a quantity

Like the API server, reading defaults the namespace of namespaced objects to ``"default"``,
``spec.schedulerName`` to ``"default-scheduler"``, ``status.phase`` to ``"Pending"``, a
port's ``protocol`` to ``"TCP"`` and a container's missing requests to its limits, and
validates what the API validates (selector and toleration operators, taint effects,
``whenUnsatisfiable``, names, at least one container, unique container names, requests within
limits, workload templates...). A JSON ``null`` reads as an absent field. Priorities are kept
as written (no PriorityClass resolution). :func:`load_manifests` takes a ``str`` as text and a
path-like as a file or directory, reads regular files only within size and object caps, and
expands workloads into pods (:mod:`schedframe.api.workloads`); see docs/manifests.rst.

Writing (``*_to_manifest``, :func:`object_to_manifest`) produces ``apiVersion``, ``kind``,
``metadata`` and the object's ``spec`` / ``status`` with empty fields omitted; quantities are
written as their original text and timestamps (seconds since the epoch in schedframe) as
RFC 3339 strings. ``X.from_manifest(x.to_manifest()) == x`` holds for every valid object (a
pod without containers, as the testing builders allow, is written but not read back).
:func:`dump_manifests` writes a ``kind: List`` document :func:`load_manifests` reads.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import json
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeAlias

import attrs

from .. import _textio
from ..errors import MAX_VALUE_REPR, ManifestError, QuantityError, SchedframeWarning, bounded_repr
from . import objects as _objects
from .objects import (
    DEFAULT_SCHEDULER_NAME,
    POD_GROUP_API_VERSION,
    TAINT_EFFECTS,
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    ContainerResourceClaim,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeCondition,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodDisruptionBudget,
    PodGroup,
    PodResourceClaim,
    PodResourceClaimStatus,
    PreferredSchedulingTerm,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    _node_uid,
    _pod_uid,
)
from .quantity import Quantity
from .resource import READERS as _RESOURCE_READERS
from .resource import RESOURCE_API_VERSION, DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from .resource import resource_object_to_manifest as _resource_out

if TYPE_CHECKING:
    from .storage import StorageObject
from .workloads import CronJob, DaemonSet, Deployment, Job
from .workloads import expand_workloads as _expand_workloads

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_OBJECTS",
    "SUPPORTED_KINDS",
    "ApiObject",
    "dump_manifests",
    "dump_scheduler_state",
    "load_manifests",
    "namespace_from_manifest",
    "node_from_manifest",
    "node_to_manifest",
    "pod_group_from_manifest",
    "object_from_manifest",
    "object_to_manifest",
    "pod_from_manifest",
    "pod_to_manifest",
    "validate_node",
    "validate_pod",
]

#: Any api object :func:`object_from_manifest` returns.
ApiObject: TypeAlias = ("Pod | Node | Namespace | Service | ReplicationController | ReplicaSet | StatefulSet"
                        " | Deployment | DaemonSet | Job | CronJob"
                        " | PodDisruptionBudget | PriorityClass | PodGroup | StorageObject"
                        " | ResourceClaim | ResourceClaimTemplate | DeviceClass | ResourceSlice")

# --------------------------------------------------------------------------------------------
# Enumerations the API validates

_LABEL_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist")
_NODE_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_TOLERATION_OPS: Final = ("", "Equal", "Exists", "Lt", "Gt")
_TOLERATION_EFFECTS: Final = ("", "NoSchedule", "PreferNoSchedule", "NoExecute")
_TAINT_EFFECTS: Final = tuple(sorted(TAINT_EFFECTS))
_WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")
_INCLUSION_POLICIES: Final = ("Honor", "Ignore")
_PREEMPTION_POLICIES: Final = ("PreemptLowerPriority", "Never")
_CONTAINER_RESTART_POLICIES: Final = ("Always", "Never", "OnFailure")
_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
_PERCENT_RE: Final = re.compile(r"[0-9]+%")
_SIMPLE_KEY_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

_EMPTY: Final[Mapping[str, Any]] = {}

# --------------------------------------------------------------------------------------------
# Reading primitives: each takes the raw value and its field path, and raises ManifestError


def _fail(path: str, message: str) -> NoReturn:
    raise ManifestError(path, message)


def _show(value: Any) -> str:
    """A short rendering of a bad value for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, (str, int, float)):
        try:
            text = repr(value)
        except ValueError:  # an int of more digits than Python converts (sys.get_int_max_str_digits)
            return f"an integer of {value.bit_length()} bits"  # type: ignore[union-attr]
    else:
        text = f"{type(value).__name__} {value!s}"
    return text if len(text) <= 80 else text[:77] + "..."


def _child(path: str, key: str) -> str:
    if len(key) > MAX_VALUE_REPR:  # a path names where the problem is, it never echoes 10 MB
        key = bounded_repr(key)
    elif _SIMPLE_KEY_RE.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{key}]"


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if type(value) is dict:  # the common case, without an ABC instance check
        return value
    if value is None:
        return _EMPTY
    if not isinstance(value, Mapping):
        _fail(path, f"expected a mapping, got {_show(value)}")
    return value


def _list(value: Any, path: str) -> Sequence[Any]:
    if type(value) is list:
        return value
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        _fail(path, f"expected a list, got {_show(value)}")
    return value


def _hint(value: Any) -> str:
    if isinstance(value, (bool, int, float, _dt.date)):
        return " (quote it in YAML)"
    return ""


def _str(value: Any, path: str, default: str = "") -> str:
    if type(value) is str:
        return value
    if value is None:
        return default
    if not isinstance(value, str):
        _fail(path, f"expected a string, got {_show(value)}{_hint(value)}")
    return value


def _required_str(m: Mapping[str, Any], key: str, path: str) -> str:
    p = _child(path, key)
    value = _str(m.get(key), p)
    if not value:
        _fail(p, "required")
    return value


def _int(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        _fail(path, f"expected an integer, got {_show(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    _fail(path, f"expected an integer, got {_show(value)}")


def _required_int(m: Mapping[str, Any], key: str, path: str) -> int:
    p = _child(path, key)
    value = _int(m.get(key), p)
    if value is None:
        _fail(p, "required")
    return value


def _bool(value: Any, path: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        _fail(path, f"expected true or false, got {_show(value)}")
    return value


def _enum(value: Any, path: str, allowed: Sequence[str], default: str | None = None) -> str | None:
    if value is None:
        return default
    if not isinstance(value, str) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        _fail(path, f"unsupported value {_show(value)}; supported values: {shown}")
    return value


def _required_enum(m: Mapping[str, Any], key: str, path: str, allowed: Sequence[str]) -> str:
    p = _child(path, key)
    value = _enum(m.get(key), p, allowed)
    if value is None:
        _fail(p, "required")
    return value


def _str_list(value: Any, path: str) -> tuple[str, ...]:
    items = _list(value, path)
    out = []
    for i, v in enumerate(items):
        if not isinstance(v, str):
            _fail(f"{path}[{i}]", f"expected a string, got {_show(v)}{_hint(v)}")
        out.append(v)
    return tuple(out)


def _str_map(value: Any, path: str) -> dict[str, str]:
    if not value:
        if value is None or isinstance(value, Mapping):
            return {}
        _fail(path, f"expected a mapping, got {_show(value)}")
    m = _mapping(value, path)
    for k, v in m.items():
        if not isinstance(k, str):
            _fail(path, f"keys must be strings, got {_show(k)}{_hint(k)}")
        if not isinstance(v, str):
            _fail(_child(path, k), f"expected a string, got {_show(v)}{_hint(v)}")
    return dict(m)


def _quantity(value: Any, path: str) -> Quantity:
    if isinstance(value, str):
        value = value.strip()  # as Quantity.UnmarshalJSON does
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"expected a quantity such as '500m' or '1Gi', got {_show(value)}")
    try:
        q = Quantity.parse(value)
    except QuantityError:
        _fail(path, f"{_show(value)} is not a quantity")
    if q.exact < 0:
        _fail(path, f"must be greater than or equal to 0, got {_show(value)}")
    return q


def _quantities(value: Any, path: str) -> dict[str, Quantity]:
    if not value and (value is None or isinstance(value, Mapping)):
        return {}
    m = _mapping(value, path)
    out: dict[str, Quantity] = {}
    for k, v in m.items():
        if not isinstance(k, str):
            _fail(path, f"resource names must be strings, got {_show(k)}")
        out[k] = _quantity(v, _child(path, k))
    return out


_TIME_RE: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_DECIMALS: Final = Context(prec=800)


def _time(value: Any, path: str) -> float | None:
    """An RFC 3339 timestamp (or a YAML timestamp) as seconds since the epoch."""
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        dt = value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)
        delta = dt - _EPOCH
        whole = delta.days * 86400 + delta.seconds
        if not delta.microseconds:
            return float(whole)
        return float(_DECIMALS.add(Decimal(whole), Decimal(delta.microseconds).scaleb(-6)))
    m = _TIME_RE.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        _fail(path, f"expected an RFC 3339 timestamp such as '2024-05-01T12:00:00Z', got {_show(value)}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac, zone = m.group(7), m.group(8)
    try:
        if zone in ("Z", "z"):
            tz = _dt.timezone.utc
        else:
            sign = -1 if zone[0] == "-" else 1
            tz = _dt.timezone(sign * _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        delta = _dt.datetime(year, month, day, hour, minute, second, tzinfo=tz) - _EPOCH
    except (ValueError, OverflowError):
        _fail(path, f"{_show(value)} is not a valid RFC 3339 timestamp")
    whole = delta.days * 86400 + delta.seconds
    if not frac:
        return float(whole)
    return float(_DECIMALS.add(Decimal(whole), Decimal("0" + frac)))


def _format_time(value: float, path: str) -> str:
    """Seconds since the epoch as RFC 3339 (UTC), exact enough that :func:`_time` reads back the
    same float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"expected seconds since the epoch, got {_show(value)}")
    try:
        exact = Decimal(repr(float(value)))
        whole = int(exact.to_integral_value(rounding="ROUND_FLOOR"))
        dt = _EPOCH + _dt.timedelta(seconds=whole)
    except (ValueError, OverflowError, ArithmeticError):
        _fail(path, f"{_show(value)} is outside the range of RFC 3339 timestamps")
    text = (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T"
            f"{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}")
    frac = _DECIMALS.subtract(exact, Decimal(whole))
    if frac:
        digits = format(frac, "f").split(".", 1)[1].rstrip("0")
        text += "." + digits
    return text + "Z"


# --------------------------------------------------------------------------------------------
# Metadata


def _check_top(manifest: Any, kind: str, api_versions: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(manifest, Mapping):
        _fail("", f"expected a {kind} manifest (a mapping), got {_show(manifest)}")
    got_kind = manifest.get("kind")
    if got_kind is not None and got_kind != kind:
        _fail("kind", f"expected {kind!r}, got {_show(got_kind)}")
    api_version = manifest.get("apiVersion")
    if api_version is not None and api_version not in api_versions:
        want = " or ".join(repr(v) for v in api_versions)
        _fail("apiVersion", f"expected {want} for a {kind}, got {_show(api_version)}")
    return manifest


def _name(meta: Mapping[str, Any], path: str = "metadata") -> str:
    p = f"{path}.name"
    value = _str(meta.get("name"), p)
    if not value:
        if meta.get("generateName"):
            _fail(p, "required (generateName is not supported: give the object a name)")
        _fail(p, "required")
    return value


def _namespace(meta: Mapping[str, Any], path: str = "metadata") -> str:
    p = f"{path}.namespace"
    value = _str(meta.get("namespace"), p)
    if value:
        _check_label(value, p)
    return value or "default"


def _owner_reference(value: Any, path: str) -> OwnerReference:
    m = _mapping(value, path)
    return OwnerReference(
        kind=_required_str(m, "kind", path),
        name=_required_str(m, "name", path),
        uid=_str(m.get("uid"), f"{path}.uid"),
        api_version=_str(m.get("apiVersion"), f"{path}.apiVersion"),
        controller=_bool(m.get("controller"), f"{path}.controller"),
    )


def _meta_out(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    for k, v in extra.items():
        if v:
            meta[k] = v
    return meta


# --------------------------------------------------------------------------------------------
# Selectors


def _label_selector(value: Any, path: str) -> LabelSelector | None:
    if value is None:
        return None
    m = _mapping(value, path)
    exprs = []
    p_exprs = f"{path}.matchExpressions"
    for i, raw in enumerate(_list(m.get("matchExpressions"), p_exprs)):
        p = f"{p_exprs}[{i}]"
        e = _mapping(raw, p)
        exprs.append(LabelSelectorRequirement(
            key=_str(e.get("key"), f"{p}.key"),
            operator=_required_enum(e, "operator", p, _LABEL_SELECTOR_OPS),
            values=_str_list(e.get("values"), f"{p}.values"),
        ))
    return LabelSelector(_str_map(m.get("matchLabels"), f"{path}.matchLabels"), tuple(exprs))


def _label_selector_out(sel: LabelSelector) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if sel.match_labels:
        out["matchLabels"] = dict(sel.match_labels)
    if sel.match_expressions:
        out["matchExpressions"] = [_requirement_out(r) for r in sel.match_expressions]
    return out


def _requirement_out(r: LabelSelectorRequirement | NodeSelectorRequirement) -> dict[str, Any]:
    out: dict[str, Any] = {"key": r.key, "operator": r.operator}
    if r.values:
        out["values"] = list(r.values)
    return out


def _node_requirements(value: Any, path: str) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, raw in enumerate(_list(value, path)):
        p = f"{path}[{i}]"
        e = _mapping(raw, p)
        out.append(NodeSelectorRequirement(
            key=_str(e.get("key"), f"{p}.key"),
            operator=_required_enum(e, "operator", p, _NODE_SELECTOR_OPS),
            values=_str_list(e.get("values"), f"{p}.values"),
        ))
    return tuple(out)


def _node_selector_term(value: Any, path: str) -> NodeSelectorTerm:
    m = _mapping(value, path)
    return NodeSelectorTerm(
        _node_requirements(m.get("matchExpressions"), f"{path}.matchExpressions"),
        _node_requirements(m.get("matchFields"), f"{path}.matchFields"),
    )


def _node_selector_term_out(term: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.match_expressions:
        out["matchExpressions"] = [_requirement_out(r) for r in term.match_expressions]
    if term.match_fields:
        out["matchFields"] = [_requirement_out(r) for r in term.match_fields]
    return out


# --------------------------------------------------------------------------------------------
# Affinity

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


def _pod_affinity_term(value: Any, path: str) -> PodAffinityTerm:
    m = _mapping(value, path)
    return PodAffinityTerm(
        topology_key=_required_str(m, "topologyKey", path),
        label_selector=_label_selector(m.get("labelSelector"), f"{path}.labelSelector"),
        namespaces=_str_list(m.get("namespaces"), f"{path}.namespaces"),
        namespace_selector=_label_selector(m.get("namespaceSelector"), f"{path}.namespaceSelector"),
        match_label_keys=_str_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
        mismatch_label_keys=_str_list(m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys"),
    )


def _pod_affinity_term_out(term: PodAffinityTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.label_selector is not None:
        out["labelSelector"] = _label_selector_out(term.label_selector)
    if term.namespaces:
        out["namespaces"] = list(term.namespaces)
    out["topologyKey"] = term.topology_key
    if term.namespace_selector is not None:
        out["namespaceSelector"] = _label_selector_out(term.namespace_selector)
    if term.match_label_keys:
        out["matchLabelKeys"] = list(term.match_label_keys)
    if term.mismatch_label_keys:
        out["mismatchLabelKeys"] = list(term.mismatch_label_keys)
    return out


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


# --------------------------------------------------------------------------------------------
# Tolerations, taints, topology spread


def _toleration(value: Any, path: str) -> Toleration:
    m = _mapping(value, path)
    seconds = _int(m.get("tolerationSeconds"), f"{path}.tolerationSeconds")
    return Toleration(
        key=_str(m.get("key"), f"{path}.key"),
        operator=_enum(m.get("operator"), f"{path}.operator", _TOLERATION_OPS, "Equal") or "",
        value=_str(m.get("value"), f"{path}.value"),
        effect=_enum(m.get("effect"), f"{path}.effect", _TOLERATION_EFFECTS, "") or "",
        toleration_seconds=seconds,
    )


def _toleration_out(t: Toleration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t.key:
        out["key"] = t.key
    out["operator"] = t.operator  # always written: an absent operator reads as "Equal"
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


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


def _spread_constraint(value: Any, path: str) -> TopologySpreadConstraint:
    m = _mapping(value, path)
    return TopologySpreadConstraint(
        max_skew=_required_int(m, "maxSkew", path),
        topology_key=_required_str(m, "topologyKey", path),
        when_unsatisfiable=_required_enum(m, "whenUnsatisfiable", path, _WHEN_UNSATISFIABLE),
        label_selector=_label_selector(m.get("labelSelector"), f"{path}.labelSelector"),
        min_domains=_int(m.get("minDomains"), f"{path}.minDomains"),
        node_affinity_policy=_enum(m.get("nodeAffinityPolicy"), f"{path}.nodeAffinityPolicy",
                                   _INCLUSION_POLICIES),
        node_taints_policy=_enum(m.get("nodeTaintsPolicy"), f"{path}.nodeTaintsPolicy", _INCLUSION_POLICIES),
        match_label_keys=_str_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
    )


def _spread_constraint_out(c: TopologySpreadConstraint) -> dict[str, Any]:
    out: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                           "whenUnsatisfiable": c.when_unsatisfiable}
    if c.label_selector is not None:
        out["labelSelector"] = _label_selector_out(c.label_selector)
    if c.min_domains is not None:
        out["minDomains"] = c.min_domains
    if c.node_affinity_policy is not None:
        out["nodeAffinityPolicy"] = c.node_affinity_policy
    if c.node_taints_policy is not None:
        out["nodeTaintsPolicy"] = c.node_taints_policy
    if c.match_label_keys:
        out["matchLabelKeys"] = list(c.match_label_keys)
    return out


# --------------------------------------------------------------------------------------------
# Containers


def _port(value: Any, path: str) -> ContainerPort:
    m = _mapping(value, path)
    return ContainerPort(
        container_port=_required_int(m, "containerPort", path),
        host_port=_int(m.get("hostPort"), f"{path}.hostPort") or 0,
        host_ip=_str(m.get("hostIP"), f"{path}.hostIP"),
        protocol=_enum(m.get("protocol"), f"{path}.protocol", (*_PROTOCOLS, ""), "TCP") or "TCP",
        name=_str(m.get("name"), f"{path}.name"),
    )


def _port_out(p: ContainerPort) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.name:
        out["name"] = p.name
    out["containerPort"] = p.container_port
    if p.host_port:
        out["hostPort"] = p.host_port
    if p.host_ip:
        out["hostIP"] = p.host_ip
    out["protocol"] = p.protocol
    return out


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
    )


def _container_claim(value: Any, path: str) -> ContainerResourceClaim:
    m = _mapping(value, path)
    return ContainerResourceClaim(name=_required_str(m, "name", path),
                                  request=_str(m.get("request"), f"{path}.request"))


def _pod_resource_claim(value: Any, path: str) -> PodResourceClaim:
    m = _mapping(value, path)
    claim = m.get("resourceClaimName")
    template = m.get("resourceClaimTemplateName")
    return PodResourceClaim(
        name=_required_str(m, "name", path),
        resource_claim_name=None if claim is None else _str(claim, f"{path}.resourceClaimName"),
        resource_claim_template_name=None if template is None
        else _str(template, f"{path}.resourceClaimTemplateName"))


def _pod_resource_claim_status(value: Any, path: str) -> PodResourceClaimStatus:
    m = _mapping(value, path)
    claim = m.get("resourceClaimName")
    return PodResourceClaimStatus(
        name=_required_str(m, "name", path),
        resource_claim_name=None if claim is None else _str(claim, f"{path}.resourceClaimName"))


def _pod_resource_claim_out(c: PodResourceClaim) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name}
    if c.resource_claim_name is not None:
        out["resourceClaimName"] = c.resource_claim_name
    if c.resource_claim_template_name is not None:
        out["resourceClaimTemplateName"] = c.resource_claim_template_name
    return out


def _pod_resource_claim_status_out(c: PodResourceClaimStatus) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name}
    if c.resource_claim_name is not None:
        out["resourceClaimName"] = c.resource_claim_name
    return out


def _quantities_out(q: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: str(v) for k, v in q.items()}


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
        resources["claims"] = [{"name": x.name, "request": x.request} if x.request else {"name": x.name}
                               for x in c.claims]
    if resources:
        out["resources"] = resources
    if c.restart_policy is not None:
        out["restartPolicy"] = c.restart_policy
    return out


# --------------------------------------------------------------------------------------------
# Pod


def _items(value: Any, path: str, read: Callable[[Any, str], Any]) -> tuple[Any, ...]:
    return tuple(read(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


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


_DNS1123_LABEL_RE: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN_RE: Final = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _check_subdomain(value: str, path: str) -> None:
    """The API server's ``NameIsDNSSubdomain`` (object names of pods, nodes, workloads...)."""
    if len(value) > 253 or not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        _fail(path, f"invalid name {bounded_repr(value)}: a lowercase RFC 1123 subdomain (at most 253 "
                    "characters of a-z, 0-9, '-' and '.', starting and ending with a letter or digit)")


def _check_label(value: str, path: str) -> None:
    """The API server's ``IsDNS1123Label`` (namespaces, container names)."""
    if len(value) > 63 or not _DNS1123_LABEL_RE.fullmatch(value):
        _fail(path, f"invalid name {bounded_repr(value)}: a lowercase RFC 1123 label (at most 63 "
                    "characters of a-z, 0-9 and '-', starting and ending with a letter or digit)")


def _default_requests(requests: dict[str, Quantity], limits: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """The API server's defaulting (``SetDefaults_Pod``): a resource with a limit and no request
    requests its limit."""
    for name, q in limits.items():
        if name not in requests:
            requests[name] = q
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
    m = _check_top(manifest, "Pod", ("v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    status = _mapping(m.get("status"), "status")
    return _pod_parts(meta, spec, status, "metadata", "spec", "status")


def _pod_parts(meta: Mapping[str, Any], spec: Mapping[str, Any], status: Mapping[str, Any],
               p_meta: str, p_spec: str, p_status: str, *, template: bool = False) -> Pod:
    """A pod from its three parts (a Pod manifest, or a workload's pod template with
    ``template=True``: no name required, no status)."""
    p_res = f"{p_spec}.resources"
    resources = _mapping(spec.get("resources"), p_res)
    kw: dict[str, Any] = {}
    uid = _str(meta.get("uid"), f"{p_meta}.uid")
    if uid:
        kw["uid"] = uid
    if template:
        name = _str(meta.get("name"), f"{p_meta}.name")
    else:
        name = _name(meta, p_meta)
        _check_subdomain(name, f"{p_meta}.name")
    namespace = _namespace(meta, p_meta)
    containers = _items(spec.get("containers"), f"{p_spec}.containers", _container)
    init_containers = _items(spec.get("initContainers"), f"{p_spec}.initContainers", _container)
    if _bool(spec.get("hostNetwork"), f"{p_spec}.hostNetwork"):
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


def _owner_reference_out(o: OwnerReference) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if o.api_version:
        out["apiVersion"] = o.api_version
    out["kind"] = o.kind
    out["name"] = o.name
    if o.uid:
        out["uid"] = o.uid
    if o.controller:
        out["controller"] = True
    return out


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
        creationTimestamp=None if pod.creation_timestamp is None
        else _format_time(pod.creation_timestamp, "metadata.creationTimestamp"),
        deletionTimestamp=None if pod.deletion_timestamp is None
        else _format_time(pod.deletion_timestamp, "metadata.deletionTimestamp"),
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


# --------------------------------------------------------------------------------------------
# Node


def _image(value: Any, path: str) -> ContainerImage:
    m = _mapping(value, path)
    return ContainerImage(names=_str_list(m.get("names"), f"{path}.names"),
                          size_bytes=_int(m.get("sizeBytes"), f"{path}.sizeBytes") or 0)


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
    m = _check_top(manifest, "Node", ("v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    status = _mapping(m.get("status"), "status")
    kw: dict[str, Any] = {}
    uid = _str(meta.get("uid"), "metadata.uid")
    if uid:
        kw["uid"] = uid
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
        images=_items(status.get("images"), "status.images", _image),
        conditions=_items(status.get("conditions"), "status.conditions", _node_condition),
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
        status["images"] = [{"names": list(i.names), "sizeBytes": i.size_bytes} for i in node.images]
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec, "status": status}


# --------------------------------------------------------------------------------------------
# Other kinds


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
    m = _check_top(manifest, "PodDisruptionBudget", ("policy/v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    status = _mapping(m.get("status"), "status")
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
    )


def _service(manifest: Any) -> Service:
    m = _check_top(manifest, "Service", ("v1",))
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    return Service(name=_name(meta), namespace=_namespace(meta),
                   selector=_str_map(spec.get("selector"), "spec.selector"))


def _workload_meta(m: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], dict[str, Any]]:
    """(metadata, spec, common keyword arguments) of a workload manifest."""
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    name = _name(meta)
    _check_subdomain(name, "metadata.name")
    kw: dict[str, Any] = {
        "name": name, "namespace": _namespace(meta),
        "uid": _str(meta.get("uid"), "metadata.uid"),
        "labels": _str_map(meta.get("labels"), "metadata.labels"),
    }
    return meta, spec, kw


def _template(value: Any, path: str, required: bool = True) -> Pod | None:
    """A workload's pod template (``spec.template``) as a pod without a name."""
    if value is None:
        if required:
            _fail(path, "required")
        return None
    t = _mapping(value, path)
    return _pod_parts(_mapping(t.get("metadata"), f"{path}.metadata"),
                      _mapping(t.get("spec"), f"{path}.spec"), _EMPTY,
                      f"{path}.metadata", f"{path}.spec", f"{path}.status", template=True)


def _replicas(spec: Mapping[str, Any], path: str = "spec.replicas") -> int:
    value = _int(spec.get("replicas"), path)
    if value is None:
        return 1  # SetDefaults_Deployment / ReplicaSet / StatefulSet / ReplicationController
    if value < 0:
        _fail(path, f"must be greater than or equal to 0, got {value}")
    return value


def _check_selects_template(selector: LabelSelector | None, template: Pod | None, path: str) -> None:
    """``ValidatePodTemplateSpecForReplicaSet`` and siblings: the selector must match the
    template's labels."""
    if selector is None or template is None:
        return
    if selector.is_empty():
        _fail(path, "empty selector is invalid for this workload")
    if not selector.matches(template.labels):
        _fail(path, "selector does not match the template labels (spec.template.metadata.labels)")


def _replication_controller(manifest: Any) -> ReplicationController:
    m = _check_top(manifest, "ReplicationController", ("v1",))
    _, spec, kw = _workload_meta(m)
    selector = _str_map(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    if not selector and template is not None:
        selector = dict(template.labels)  # SetDefaults_ReplicationController
    _check_selects_template(LabelSelector(selector), template, "spec.selector")
    return ReplicationController(selector=selector, replicas=_replicas(spec), template=template, **kw)


def _replica_set(manifest: Any) -> ReplicaSet:
    m = _check_top(manifest, "ReplicaSet", ("apps/v1",))
    meta, spec, kw = _workload_meta(m)
    selector = _label_selector(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    _check_selects_template(selector, template, "spec.selector")
    return ReplicaSet(selector=selector, replicas=_replicas(spec), template=template,
                      owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences",
                                              _owner_reference), **kw)


def _stateful_set(manifest: Any) -> StatefulSet:
    m = _check_top(manifest, "StatefulSet", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector = _label_selector(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    _check_selects_template(selector, template, "spec.selector")
    ordinals = _mapping(spec.get("ordinals"), "spec.ordinals")
    start = _int(ordinals.get("start"), "spec.ordinals.start") or 0
    if start < 0:
        _fail("spec.ordinals.start", f"must be greater than or equal to 0, got {start}")
    return StatefulSet(selector=selector, replicas=_replicas(spec), template=template,
                       ordinals_start=start, **kw)


def _deployment(manifest: Any) -> Deployment:
    m = _check_top(manifest, "Deployment", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector = _label_selector(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    _check_selects_template(selector, template, "spec.selector")
    return Deployment(selector=selector, replicas=_replicas(spec), template=template,
                      paused=_bool(spec.get("paused"), "spec.paused"), **kw)


def _daemon_set(manifest: Any) -> DaemonSet:
    m = _check_top(manifest, "DaemonSet", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector = _label_selector(spec.get("selector"), "spec.selector")
    raw_template = spec.get("template")
    template = _template(raw_template, "spec.template")
    _check_selects_template(selector, template, "spec.selector")
    t_spec = _mapping(_mapping(raw_template, "spec.template").get("spec"), "spec.template.spec")
    return DaemonSet(selector=selector, template=template,
                     host_network=_bool(t_spec.get("hostNetwork"), "spec.template.spec.hostNetwork"), **kw)


_COMPLETION_MODES: Final = ("NonIndexed", "Indexed")


def _job_spec(spec: Mapping[str, Any], path: str) -> dict[str, Any]:
    parallelism = _int(spec.get("parallelism"), f"{path}.parallelism")
    completions = _int(spec.get("completions"), f"{path}.completions")
    for field, value in (("parallelism", parallelism), ("completions", completions)):
        if value is not None and value < 0:
            _fail(f"{path}.{field}", f"must be greater than or equal to 0, got {value}")
    if parallelism is None and completions is None:
        parallelism = completions = 1  # SetDefaults_Job
    mode = _enum(spec.get("completionMode"), f"{path}.completionMode", _COMPLETION_MODES,
                 "NonIndexed") or "NonIndexed"
    if mode == "Indexed" and completions is None:
        _fail(f"{path}.completions", "required when completionMode is Indexed")
    template = _template(spec.get("template"), f"{path}.template")
    selector = _label_selector(spec.get("selector"), f"{path}.selector")
    return {"parallelism": parallelism, "completions": completions, "completion_mode": mode,
            "suspend": _bool(spec.get("suspend"), f"{path}.suspend"), "template": template,
            "selector": selector}


def _job(manifest: Any) -> Job:
    m = _check_top(manifest, "Job", ("batch/v1",))
    meta, spec, kw = _workload_meta(m)
    status = _mapping(m.get("status"), "status")
    finished = False
    for i, raw in enumerate(_list(status.get("conditions"), "status.conditions")):
        c = _mapping(raw, f"status.conditions[{i}]")
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            finished = True
    succeeded = _int(status.get("succeeded"), "status.succeeded") or 0
    return Job(succeeded=succeeded, finished=finished,
               owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences",
                                       _owner_reference),
               **_job_spec(spec, "spec"), **kw)


def _cron_job(manifest: Any) -> CronJob:
    m = _check_top(manifest, "CronJob", ("batch/v1",))
    _, spec, kw = _workload_meta(m)
    status = _mapping(m.get("status"), "status")
    p_jt = "spec.jobTemplate"
    jt = _mapping(spec.get("jobTemplate"), p_jt)
    if spec.get("jobTemplate") is None:
        _fail(p_jt, "required")
    jt_meta = _mapping(jt.get("metadata"), f"{p_jt}.metadata")
    job = Job(name="", namespace=kw["namespace"],
              labels=_str_map(jt_meta.get("labels"), f"{p_jt}.metadata.labels"),
              **_job_spec(_mapping(jt.get("spec"), f"{p_jt}.spec"), f"{p_jt}.spec"))
    active = []
    for i, raw in enumerate(_list(status.get("active"), "status.active")):
        active.append(_required_str(_mapping(raw, f"status.active[{i}]"), "name", f"status.active[{i}]"))
    return CronJob(schedule=_required_str(spec, "schedule", "spec"), job_template=job,
                   suspend=_bool(spec.get("suspend"), "spec.suspend"), active=tuple(active),
                   last_schedule_time=_time(status.get("lastScheduleTime"), "status.lastScheduleTime"),
                   **kw)


def _selector_spec(selector: LabelSelector | None) -> dict[str, Any]:
    return {} if selector is None else {"selector": _label_selector_out(selector)}


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
                           "metadata": _meta_out(pc.name), "value": pc.value}
    if pc.global_default:
        out["globalDefault"] = True
    out["preemptionPolicy"] = pc.preemption_policy
    return out


def _service_out(svc: Service) -> dict[str, Any]:
    spec = {"selector": dict(svc.selector)} if svc.selector else {}
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta_out(svc.name, svc.namespace),
            "spec": spec}


def _workload_meta_out(obj: Any, **extra: Any) -> dict[str, Any]:
    return _meta_out(obj.name, obj.namespace, uid=obj.uid, labels=dict(obj.labels), **extra)


def _template_out(template: Pod | None) -> dict[str, Any]:
    if template is None:
        return {}
    m = pod_to_manifest(template)
    meta = {k: v for k, v in m["metadata"].items() if k not in ("namespace", "uid") and v}
    if not template.name:
        meta.pop("name", None)
    return {"template": {"metadata": meta, "spec": m["spec"]}}


def _replication_controller_out(rc: ReplicationController) -> dict[str, Any]:
    spec: dict[str, Any] = {"replicas": rc.replicas}
    if rc.selector:
        spec["selector"] = dict(rc.selector)
    spec.update(_template_out(rc.template))
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": _workload_meta_out(rc),
            "spec": spec}


def _replica_set_out(rs: ReplicaSet) -> dict[str, Any]:
    spec = {"replicas": rs.replicas, **_selector_spec(rs.selector), **_template_out(rs.template)}
    meta = _workload_meta_out(rs, ownerReferences=[_owner_reference_out(o) for o in rs.owner_references])
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}


def _stateful_set_out(ss: StatefulSet) -> dict[str, Any]:
    spec = {"replicas": ss.replicas, **_selector_spec(ss.selector), **_template_out(ss.template)}
    if ss.ordinals_start:
        spec["ordinals"] = {"start": ss.ordinals_start}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _workload_meta_out(ss), "spec": spec}


def _deployment_out(d: Deployment) -> dict[str, Any]:
    spec = {"replicas": d.replicas, **_selector_spec(d.selector), **_template_out(d.template)}
    if d.paused:
        spec["paused"] = True
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _workload_meta_out(d), "spec": spec}


def _daemon_set_out(ds: DaemonSet) -> dict[str, Any]:
    spec = {**_selector_spec(ds.selector), **_template_out(ds.template)}
    if ds.host_network and "template" in spec:
        spec["template"]["spec"]["hostNetwork"] = True
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": _workload_meta_out(ds), "spec": spec}


def _job_spec_out(job: Job) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if job.parallelism is not None:
        spec["parallelism"] = job.parallelism
    if job.completions is not None:
        spec["completions"] = job.completions
    spec["completionMode"] = job.completion_mode
    if job.suspend:
        spec["suspend"] = True
    spec.update(_selector_spec(job.selector))
    spec.update(_template_out(job.template))
    return spec


def _job_out(job: Job) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if job.succeeded:
        status["succeeded"] = job.succeeded
    if job.finished:
        status["conditions"] = [{"type": "Complete", "status": "True"}]
    meta = _workload_meta_out(job, ownerReferences=[_owner_reference_out(o) for o in job.owner_references])
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": _job_spec_out(job),
            "status": status}


def _cron_job_out(cj: CronJob) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedule": cj.schedule}
    if cj.suspend:
        spec["suspend"] = True
    if cj.job_template is not None:
        jt: dict[str, Any] = {"spec": _job_spec_out(cj.job_template)}
        if cj.job_template.labels:
            jt["metadata"] = {"labels": dict(cj.job_template.labels)}
        spec["jobTemplate"] = jt
    status: dict[str, Any] = {}
    if cj.active:
        status["active"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": n, "namespace": cj.namespace}
                            for n in cj.active]
    if cj.last_schedule_time is not None:
        status["lastScheduleTime"] = _format_time(cj.last_schedule_time, "status.lastScheduleTime")
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": _workload_meta_out(cj), "spec": spec,
            "status": status}


# --------------------------------------------------------------------------------------------
# Public entry points


def pod_from_manifest(manifest: Mapping[str, Any]) -> Pod:
    """Build a :class:`~schedframe.Pod` from a Kubernetes v1 Pod manifest.

    ``kind`` and ``apiVersion`` may be absent (as in the items of a ``PodList``).

    Raises:
        ManifestError: naming the field path, the value and what was expected.
    """
    return _pod(manifest)


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
    if min_member < 0:
        _fail("spec.minMember", f"must be greater than or equal to 0, got {min_member}")
    timeout = _int(spec.get("scheduleTimeoutSeconds"), "spec.scheduleTimeoutSeconds")
    if timeout is not None and timeout < 0:
        _fail("spec.scheduleTimeoutSeconds", f"must be greater than or equal to 0, got {timeout}")
    return PodGroup(
        name=_name(meta),
        namespace=_namespace(meta),
        min_member=min_member,
        schedule_timeout_seconds=timeout,
        min_resources=_quantities(spec.get("minResources"), "spec.minResources"),
        creation_timestamp=_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
    )


def _pod_group_out(group: PodGroup) -> dict[str, Any]:
    created = (None if group.creation_timestamp is None
               else _format_time(group.creation_timestamp, "metadata.creationTimestamp"))
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


# The storage kinds (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver)
# live in their own module, which reads its manifests with the primitives above.
from . import storage as _storage  # noqa: E402

if not TYPE_CHECKING:  # for ApiObject's evaluation at run time (documentation, get_type_hints)
    StorageObject = _storage.StorageObject

#: kind -> (accepted apiVersions, reader)
_READERS: Final[dict[str, tuple[tuple[str, ...], Callable[[Any], ApiObject]]]] = {
    "Pod": (("v1",), _pod),
    "Node": (("v1",), _node),
    "Namespace": (("v1",), _namespace_obj),
    "Service": (("v1",), _service),
    "ReplicationController": (("v1",), _replication_controller),
    "ReplicaSet": (("apps/v1",), _replica_set),
    "StatefulSet": (("apps/v1",), _stateful_set),
    "Deployment": (("apps/v1",), _deployment),
    "DaemonSet": (("apps/v1",), _daemon_set),
    "Job": (("batch/v1",), _job),
    "CronJob": (("batch/v1",), _cron_job),
    "PodDisruptionBudget": (("policy/v1",), _pdb),
    "PriorityClass": (("scheduling.k8s.io/v1",), _priority_class),
    "PodGroup": (POD_GROUP_API_VERSIONS, pod_group_from_manifest),
    **{kind: ((RESOURCE_API_VERSION,), read) for kind, read in _RESOURCE_READERS.items()},
    **_storage.READERS,
}

#: The kinds schedframe reads, with their apiVersion.
SUPPORTED_KINDS: Final = tuple(f"{versions[0]} {kind}" for kind, (versions, _) in _READERS.items())

_WRITERS: Final[dict[type, Callable[[Any], dict[str, Any]]]] = {
    Pod: pod_to_manifest,
    Node: node_to_manifest,
    Namespace: _namespace_out,
    Service: _service_out,
    ReplicationController: _replication_controller_out,
    ReplicaSet: _replica_set_out,
    StatefulSet: _stateful_set_out,
    Deployment: _deployment_out,
    DaemonSet: _daemon_set_out,
    Job: _job_out,
    CronJob: _cron_job_out,
    PodDisruptionBudget: _pdb_out,
    PriorityClass: _priority_class_out,
    PodGroup: _pod_group_out,
    **dict.fromkeys((ResourceClaim, ResourceClaimTemplate, DeviceClass, ResourceSlice), _resource_out),
    **_storage.WRITERS,
}


def _unsupported_kind(kind: Any) -> str:
    known = ", ".join(_READERS)
    hint = ""
    if isinstance(kind, str) and len(kind) <= 256:  # longer: no match possible, and slow
        close = difflib.get_close_matches(kind, list(_READERS), n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean {close[0]!r}?"
    return f"unsupported kind {_show(kind)}{hint} (schedframe reads {known})"


def object_from_manifest(manifest: Mapping[str, Any]) -> ApiObject:
    """Build the api object a manifest describes, dispatching on ``kind`` (and checking
    ``apiVersion`` when present): v1 Pod, Node, Namespace, Service, ReplicationController;
    apps/v1 ReplicaSet, StatefulSet; policy/v1 PodDisruptionBudget; scheduling.k8s.io/v1
    PriorityClass; v1 PersistentVolume, PersistentVolumeClaim and storage.k8s.io/v1 StorageClass,
    CSINode, CSIDriver (``schedframe.api.storage``).

    Raises:
        ManifestError: for any other kind, or a malformed manifest.
    """
    if not isinstance(manifest, Mapping):
        _fail("", f"expected a Kubernetes object (a mapping), got {_show(manifest)}")
    kind = manifest.get("kind")
    if kind is None:
        _fail("kind", "required")
    entry = _READERS.get(kind) if isinstance(kind, str) else None
    if entry is None:
        _fail("kind", _unsupported_kind(kind))
    return entry[1](manifest)


def object_to_manifest(obj: ApiObject) -> dict[str, Any]:
    """The Kubernetes manifest of an api object (any kind :func:`object_from_manifest` reads).

    Raises:
        ManifestError: for an object schedframe cannot write, or an unwritable timestamp.
    """
    writer = _WRITERS.get(type(obj))
    if writer is None:
        _fail("", f"cannot write a manifest for {type(obj).__name__} objects")
    return writer(obj)


# --------------------------------------------------------------------------------------------
# load_manifests

_MANIFEST_SUFFIXES: Final = (".yaml", ".yml", ".json")
_CLUSTER_SCOPED: Final = frozenset({"Node", "Namespace", "PriorityClass", "DeviceClass", "ResourceSlice",
                                    "PersistentVolume", "StorageClass", "CSINode", "CSIDriver"})


#: The most bytes :func:`load_manifests` reads (all files and texts of one call together).
DEFAULT_MAX_BYTES: Final = 256 * 1024 * 1024
#: The most objects (documents, ``List`` items and pods created by workload expansion) one
#: :func:`load_manifests` call returns.
DEFAULT_MAX_OBJECTS: Final = 1_000_000

class _Budget:
    """What is left of one call's byte and object allowances."""

    def __init__(self, max_bytes: int, max_objects: int) -> None:
        self.max_bytes = max_bytes
        self.bytes_left = max_bytes
        self.max_objects = max_objects
        self.objects = 0

    def take_bytes(self, n: int, what: str) -> None:
        self.bytes_left -= n
        if self.bytes_left < 0:
            raise ManifestError("", f"{what} exceeds the input size limit of {self.max_bytes} bytes "
                                    "(load_manifests(..., max_bytes=N) raises it)")

    def take_objects(self, n: int = 1) -> None:
        self.objects += n
        if self.objects > self.max_objects:
            raise ManifestError("", f"more than {self.max_objects} objects "
                                    "(load_manifests(..., max_objects=N) raises the limit)")


def _manifest_error(message: str) -> ManifestError:
    return ManifestError("", message)


def _read_text(path: str, budget: _Budget) -> str:
    """The UTF-8 text of the regular file *path*, read without going past the size budget
    (through the one reader of user files, :mod:`schedframe._textio`)."""
    data = _textio.read_bytes(path, budget.bytes_left, error=_manifest_error)
    budget.take_bytes(len(data), repr(path))
    return _textio.decode_utf8(data, name=repr(path), error=_manifest_error)


def _path_sources(path: str, budget: _Budget) -> list[tuple[str, str | None]]:
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise ManifestError("", f"cannot read {path!r}: {e.strerror or e}") from e
    if not stat.S_ISDIR(mode):
        return [(_read_text(path, budget), path)]
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(_MANIFEST_SUFFIXES))
    except OSError as e:
        raise ManifestError("", f"cannot list {path!r}: {e.strerror or e}") from e
    out: list[tuple[str, str | None]] = []
    for name in names:
        full = os.path.join(path, name)
        try:
            entry_mode = os.stat(full).st_mode
        except OSError as e:
            raise ManifestError("", f"cannot read {full!r}: {e.strerror or e}") from e
        if not stat.S_ISREG(entry_mode):  # refused explicitly, never skipped silently
            raise ManifestError("", f"cannot read {full!r} in directory {path!r}: it is "
                                    f"{_textio.file_kind(entry_mode)}; only regular files are read")
        out.append((_read_text(full, budget), full))
    return out


def _sources(source: str | bytes | os.PathLike[str], budget: _Budget) -> list[tuple[str, str | None]]:
    """(text, file name or None) pairs for *source*: a path-like is a file or a directory, a
    ``str`` or ``bytes`` is always the manifest text itself."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        budget.take_bytes(len(data), "the manifest text")
        return [(_textio.decode_utf8(data, name="the manifest bytes", error=_manifest_error), None)]
    if isinstance(source, str):
        budget.take_bytes(len(source), "the manifest text")
        return [(source, None)]
    if isinstance(source, os.PathLike):
        return _path_sources(os.fsdecode(os.fspath(source)), budget)
    raise TypeError("load_manifests() argument 'source' must be manifest text (str or bytes) or a "
                    f"path (pathlib.Path or another os.PathLike), got {type(source).__name__}"
                    + ("; use object_from_manifest() for a mapping" if isinstance(source, Mapping) else ""))


def _looks_like_path(source: object) -> bool:
    """A one-line ``str`` naming an existing file or directory (checked, never read)."""
    if not isinstance(source, str) or "\n" in source or len(source) > 4096:
        return False
    text = source.strip()
    try:
        return bool(text) and os.path.exists(text)
    except (OSError, ValueError):  # e.g. an embedded NUL
        return False


MAX_YAML_DEPTH: Final = _textio.MAX_YAML_DEPTH


def json_loads_strict(text: str) -> Any:
    """:func:`json.loads` refusing duplicate keys (a :class:`ManifestError`)."""
    return _textio.parse_json(text, error=_manifest_error)


def _documents(text: str, origin: str | None) -> list[Any]:
    return _textio.parse_documents(text, source=origin, error=_manifest_error)


def _describe(doc: Mapping[str, Any], kind: str, origin: str | None) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    ns = meta.get("namespace") if isinstance(meta, Mapping) else None
    what = bounded_repr(kind) if len(kind) > MAX_VALUE_REPR else kind
    if isinstance(name, str) and len(name) > MAX_VALUE_REPR:
        name = bounded_repr(name)
    if isinstance(ns, str) and len(ns) > MAX_VALUE_REPR:
        ns = bounded_repr(ns)
    if isinstance(name, str) and name:
        if kind in _CLUSTER_SCOPED:
            what += f" {name}"
        else:
            what += f" {ns if isinstance(ns, str) and ns else 'default'}/{name}"
    if origin:
        what += f" from {origin}"
    return what


def _is_near_miss(kind: str) -> str | None:
    """A supported kind *kind* is probably a typo of (``Pods``, ``pod``), or None."""
    lower = kind.lower()
    for known in _READERS:
        if lower == known.lower():
            return known
    if len(kind) > 256:  # no match possible, and difflib is slow on long strings
        return None
    close = difflib.get_close_matches(kind, list(_READERS), n=1, cutoff=0.85)
    return close[0] if close else None


class _Collector:
    """Reads documents into objects, counting them and noting the kinds it does not use."""

    def __init__(self, budget: _Budget, strict: bool) -> None:
        self.budget = budget
        self.strict = strict
        self.out: list[ApiObject] = []
        self.unknown: dict[str, int] = {}

    def collect(self, doc: Any, path: str, origin: str | None,
                inherited: tuple[str, str] | None = None) -> None:
        if doc is None:
            return
        self.budget.take_objects()
        if not isinstance(doc, Mapping):
            _fail(path, f"expected a Kubernetes object (a mapping), got {_show(doc)}")
        kind = doc.get("kind")
        if kind is None and inherited is not None:
            kind, api_version = inherited
            doc = {**doc, "kind": kind}
            if api_version and "apiVersion" not in doc:
                doc["apiVersion"] = api_version
        if kind is None:
            _fail(f"{path}.kind", "required")
        if not isinstance(kind, str):
            _fail(f"{path}.kind", f"expected a string, got {_show(kind)}")
        if kind.endswith("List") and (kind == "List" or "items" in doc):
            item_kind = kind[:-4] if kind != "List" else None
            api_version = doc.get("apiVersion")
            inherit = (item_kind, api_version if isinstance(api_version, str) else "") if item_kind else None
            for i, item in enumerate(_list(doc.get("items"), f"{path}.items")):
                self.collect(item, f"{path}.items[{i}]", origin, inherit)
            return
        entry = _READERS.get(kind)
        if entry is None:
            near = _is_near_miss(kind)
            if near is not None:
                _fail(f"{path}.kind", f"unsupported kind {bounded_repr(kind)}; did you mean {near!r}?")
            if self.strict:
                _fail(f"{path}.kind", _unsupported_kind(kind) + " (strict=True)")
            self.unknown[kind] = self.unknown.get(kind, 0) + 1
            return
        try:
            self.out.append(entry[1](doc))
        except ManifestError as e:
            full = f"{path}.{e.path}" if e.path else path
            raise ManifestError(full, f"{e.detail} (in {_describe(doc, kind, origin)})") from None


def _check_limit(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"load_manifests() argument {name!r} must be a non-negative int, "
                        f"got {bounded_repr(value)}")
    return value


def load_manifests(source: str | bytes | os.PathLike[str], *, strict: bool = False,
                   expand_workloads: bool = True, seed: int = 0,
                   max_bytes: int = DEFAULT_MAX_BYTES, max_objects: int = DEFAULT_MAX_OBJECTS,
                   ) -> list[ApiObject]:
    """Read Kubernetes objects from manifest text, a file or a directory.

    Args:
        source: the manifest text (a ``str`` or ``bytes``, YAML or JSON), or a path
            (``pathlib.Path`` or another ``os.PathLike``) to a file or to a directory
            whose ``.yaml`` / ``.yml`` / ``.json`` files are read in name order. A ``str`` is
            always text, never a path: text from an untrusted source cannot make schedframe
            read a local file. YAML may hold several documents; JSON several concatenated
            objects; any document may be a ``List`` (``kubectl get ... -o yaml``).
        strict: raise :class:`~schedframe.ManifestError` on an object of a kind schedframe
            does not use (ConfigMaps, custom resources...) instead of warning about them.
        expand_workloads: add what the workload controllers would create (see
            :func:`~schedframe.expand_workloads`): the pods of Deployments, ReplicaSets,
            ReplicationControllers, StatefulSets, DaemonSets (one per Node of the same load),
            Jobs and CronJobs' running Jobs. The workload objects are returned either way.
        seed: makes the generated names reproducible.
        max_bytes: the most bytes read (files and text together); a file is never read past it.
        max_objects: the most objects read or created by expansion.

    Returns:
        The api objects in document order, each workload followed by what it creates.

    Raises:
        ManifestError: for unreadable input, a special file (only regular files are read), a
            limit exceeded or a malformed object; the path starts with the document index,
            e.g. ``documents[0].items[3].spec.priority``. YAML needs PyYAML
            (``pip install 'schedframe[yaml]'``); JSON does not.
        TypeError: for a *source* that is neither text nor a path.

    Warns:
        SchedframeWarning: listing the kinds it skipped (without *strict*).

    .. versionchanged:: 0.2.0
       A ``str`` is always text (pass a ``pathlib.Path`` for a file); workloads are
       expanded; unused kinds are warned about (``strict=True`` refuses them) instead of
       ``skip_unknown``; ``max_bytes`` / ``max_objects``.
    """
    max_bytes = _check_limit(max_bytes, "max_bytes")
    max_objects = _check_limit(max_objects, "max_objects")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"load_manifests() argument 'seed' must be an int, got {type(seed).__name__}")
    budget = _Budget(max_bytes, max_objects)
    collector = _Collector(budget, strict)
    try:
        for text, origin in _sources(source, budget):
            for i, doc in enumerate(_documents(text, origin)):
                collector.collect(doc, f"documents[{i}]", origin)
    except ManifestError:
        if _looks_like_path(source):
            raise ManifestError("", f"{bounded_repr(source)} is not a manifest; a str is always "
                                    f"manifest text: pass pathlib.Path({str(source).strip()!r}) to read "
                                    "a file") from None
        raise
    if collector.unknown:
        shown = [(k if len(k) <= MAX_VALUE_REPR else bounded_repr(k), n)
                 for k, n in sorted(collector.unknown.items())[:20]]
        listed = ", ".join(f"{k} ({n})" if n > 1 else k for k, n in shown)
        if len(collector.unknown) > 20:
            listed += f" and {len(collector.unknown) - 20} more kinds"
        warnings.warn(f"load_manifests skipped {sum(collector.unknown.values())} object(s) of kinds "
                      f"schedframe does not use: {listed} (strict=True makes this an error)",
                      SchedframeWarning, stacklevel=2)
    if not expand_workloads:
        return collector.out
    expanded: list[ApiObject] = _expand_workloads(collector.out, seed=seed, max_objects=max_objects)
    return expanded


# --------------------------------------------------------------------------------------------
# Validating objects built in code (the builders of schedframe.testing)


def _check_non_negative(values: Mapping[str, Quantity], path: str) -> None:
    for name, q in values.items():
        if q.exact < 0:
            _fail(_child(path, name), f"must be greater than or equal to 0, got {q}")


def validate_pod(pod: Pod, *, require_containers: bool = True, check_names: bool = True) -> None:
    """Check *pod* as the API server validates one: a valid pod name and container names
    (unless *check_names* is false), at least one container (unless *require_containers* is
    false), unique container names, no negative quantity and no request above its limit.

    Raises:
        ManifestError: naming the field path of the first problem.

    .. versionadded:: 0.2.0
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


def validate_node(node: Node, *, check_names: bool = True) -> None:
    """Check *node* as the API server validates one: a valid name (unless *check_names* is
    false), no negative capacity or allocatable quantity.

    Raises:
        ManifestError: naming the field path of the first problem.

    .. versionadded:: 0.2.0
    """
    if not isinstance(node, Node):
        raise TypeError(f"validate_node() argument 'node' must be a Node, got {type(node).__name__}")
    if check_names:
        _check_subdomain(node.name, "metadata.name")
    _check_non_negative(node.capacity, "status.capacity")
    _check_non_negative(node.allocatable, "status.allocatable")


# --------------------------------------------------------------------------------------------
# dump_manifests

_FORMATS: Final = ("yaml", "json")


def _with_pending_condition(manifest: dict[str, Any], message: str) -> dict[str, Any]:
    status = manifest.setdefault("status", {})
    conditions = [c for c in status.get("conditions", ()) if c.get("type") != "PodScheduled"]
    conditions.append({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                       "message": message})
    status["conditions"] = conditions
    return manifest


def dump_manifests(objects: Iterable[ApiObject], format: str = "yaml", *,
                   pending: Mapping[str, str] | None = None) -> str:
    """The manifests of *objects* as one ``kind: List`` document, which :func:`load_manifests`
    reads back (with ``expand_workloads=False`` to get exactly these objects).

    Args:
        objects: api objects (any kind :func:`object_to_manifest` writes).
        format: ``"yaml"`` (needs PyYAML, the ``yaml`` extra) or ``"json"``.
        pending: pod key (``namespace/name``) to the scheduler's message for pods that could not
            be scheduled (e.g. ``{p.key: msg for p, msg in scheduler.pending()}``). Such a pod
            without a node is written with the condition ``PodScheduled=False`` reason
            ``Unschedulable`` and that message, as kube-scheduler records it. Bound pods carry
            ``spec.nodeName``.

    Raises:
        TypeError: for arguments of the wrong type.
        ManifestError: for an object schedframe cannot write, or YAML without PyYAML.

    .. versionadded:: 0.2.0
    """
    if isinstance(objects, (str, bytes, Mapping)) or not isinstance(objects, Iterable):
        raise TypeError("dump_manifests() argument 'objects' must be an iterable of api objects, "
                        f"got {type(objects).__name__}")
    if format not in _FORMATS:
        raise TypeError(f"dump_manifests() argument 'format' must be 'yaml' or 'json', "
                        f"got {bounded_repr(format)}")
    if pending is not None and not isinstance(pending, Mapping):
        raise TypeError("dump_manifests() argument 'pending' must be a mapping of pod key to message, "
                        f"got {type(pending).__name__}")
    items = []
    for i, obj in enumerate(objects):
        writer = _WRITERS.get(type(obj))
        if writer is None:
            raise ManifestError(f"objects[{i}]", f"cannot write a manifest for {type(obj).__name__} objects")
        manifest = writer(obj)
        if isinstance(obj, Pod) and not obj.node_name and pending and obj.key in pending:
            message = pending[obj.key]
            if not isinstance(message, str):
                raise TypeError(f"dump_manifests() argument 'pending' maps {obj.key!r} to "
                                f"{type(message).__name__}, not a message str")
            manifest = _with_pending_condition(manifest, message)
        items.append(manifest)
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    if format == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return _textio.dump_yaml(doc, error=_manifest_error, alternative=" (or use format='json')")


def dump_scheduler_state(scheduler: Any, format: str = "yaml") -> str:
    """:func:`dump_manifests` of a :class:`~schedframe.Scheduler`'s nodes, pods (bound ones with
    their node, pending ones with their last failure message) and other objects.

    .. versionadded:: 0.2.0
    """
    for attr in ("pending", "objects", "cache"):
        if not hasattr(scheduler, attr):
            raise TypeError("dump_scheduler_state() argument 'scheduler' must be a schedframe.Scheduler, "
                            f"got {type(scheduler).__name__}")
    pending: dict[str, str] = {}
    pods: list[Pod] = []
    for entry in scheduler.pending():
        pending[entry.pod.key] = entry.message or "pending: not attempted yet"
        pods.append(entry.pod)
    dump = scheduler.cache.dump()
    nodes = [info.node for info in dump.nodes.values() if info.node is not None]
    bound = [pi.pod for info in dump.nodes.values() for pi in info.pods]
    others: list[Any] = []
    for kind in _WRITERS:
        if kind not in (Pod, Node):
            others.extend(scheduler.objects.list(kind))
    return dump_manifests([*others, *nodes, *bound, *pods], format, pending=pending)


_objects._manifest_codec.update(
    namespace_from_manifest=namespace_from_manifest,
    node_from_manifest=node_from_manifest,
    node_to_manifest=node_to_manifest,
    object_from_manifest=object_from_manifest,
    object_to_manifest=object_to_manifest,
    pod_from_manifest=pod_from_manifest,
    pod_group_from_manifest=pod_group_from_manifest,
    pod_to_manifest=pod_to_manifest,
)
