"""Dynamic Resource Allocation objects of ``resource.k8s.io/v1`` (Kubernetes 1.34, where the API
went GA): ``ResourceClaim``, ``ResourceClaimTemplate``, ``DeviceClass`` and ``ResourceSlice``, as
frozen value objects, with their manifest readers and writers.

Only the fields the scheduler reads are modelled (see ``docs/dra.rst`` for what is left out);
opaque driver configuration is kept as a frozen mapping so it round-trips.

Imports only :mod:`schedframe.errors` and the rest of the ``api`` layer.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar, final

import attrs

from ._fields import (
    _OPT_BOOL,
    _OPT_STR,
    _PLAIN,
    _REQUIRED_STR,
    _STR,
    _STR_LIST,
    _bool,
    _check_top,
    _Codec,
    _fail,
    _Field,
    _given_uid,
    _int_or,
    _items,
    _list,
    _mapping,
    _meta_out,
    _node_selector_term_out,
    _opt_bool,
    _owner_reference,
    _quantity,
    _required_str,
    _show,
    _str,
    _str_list,
    _str_map,
)
from .frozendict import FrozenDict, deep_freeze, freeze
from .frozendict import as_tuple as _tuple
from .objects import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, OwnerReference
from .quantity import Quantity

__all__ = [
    "ALLOCATION_MODES",
    "FINALIZER",
    "RESOURCE_API_VERSION",
    "AllocationResult",
    "Device",
    "DeviceAllocationConfiguration",
    "DeviceAttribute",
    "DeviceClaimConfiguration",
    "DeviceClass",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSubRequest",
    "ExactDeviceRequest",
    "OpaqueDeviceConfiguration",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimTemplate",
    "ResourcePool",
    "ResourceSlice",
    "device_class_from_manifest",
    "resource_claim_from_manifest",
    "resource_claim_template_from_manifest",
    "resource_object_to_manifest",
    "resource_slice_from_manifest",
]

#: The API version of the DRA objects (GA in Kubernetes 1.34).
RESOURCE_API_VERSION: Final = "resource.k8s.io/v1"
#: The finalizer the scheduler adds to a claim it allocates (upstream ``resourceapi.Finalizer``).
FINALIZER: Final = "resource.kubernetes.io/delete-protection"
#: ``allocationMode`` values.
ALLOCATION_MODES: Final = ("ExactCount", "All")

_NS_UID: Final = uuid.UUID("0b6c1f4e-2d9a-4f0e-9a51-3e1d7c5a9b20")
_T = TypeVar("_T")


def _frozen_map(value: Mapping[Any, Any] | None) -> FrozenDict[Any, Any]:
    return freeze(value)


# --------------------------------------------------------------------------------------------
# Value objects


@final
@attrs.frozen
class DeviceAttribute:
    """A device attribute: exactly one of an integer, a boolean, a string or a semantic
    version (``version``, kept as its string)."""

    __module__ = "schedframe.api"

    int_value: int | None = None
    bool_value: bool | None = None
    string_value: str | None = None
    version: str | None = None

    @property
    def value(self) -> int | bool | str | None:
        """The attribute's value, whichever kind it is (a version as its string)."""
        for v in (self.int_value, self.bool_value, self.string_value, self.version):
            if v is not None:
                return v
        return None


@final
@attrs.frozen
class Device:
    """One device of a ResourceSlice: its name, attributes and capacity.

    Attribute and capacity names are as in the manifest: a qualified name
    (``"gpu.example.com/model"``) or a short one, which belongs to the slice's driver.
    """

    __module__ = "schedframe.api"

    name: str
    attributes: FrozenDict[str, DeviceAttribute] = attrs.field(factory=dict, converter=_frozen_map)
    capacity: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_frozen_map)


@final
@attrs.frozen
class ResourcePool:
    """``spec.pool`` of a ResourceSlice."""

    __module__ = "schedframe.api"

    name: str
    generation: int = 0
    resource_slice_count: int = 1


@final
@attrs.frozen
class ResourceSlice:
    """A ResourceSlice: devices a driver offers on one node (``node_name``), on the nodes a
    ``node_selector`` selects, or on all nodes (``all_nodes``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    driver: str
    pool: ResourcePool
    node_name: str = ""
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    devices: tuple[Device, ...] = attrs.field(default=(), converter=_tuple)

    def to_manifest(self) -> dict[str, Any]:
        """The ``resource.k8s.io/v1`` manifest."""
        return resource_object_to_manifest(self)


@final
@attrs.frozen
class OpaqueDeviceConfiguration:
    """Opaque, driver-specific configuration (``parameters`` kept as a frozen mapping)."""

    __module__ = "schedframe.api"

    driver: str
    parameters: Any = attrs.field(default=None, converter=deep_freeze)


@final
@attrs.frozen
class DeviceClaimConfiguration:
    """One entry of ``spec.devices.config`` of a claim (or ``spec.config`` of a class, where
    ``requests`` is empty)."""

    __module__ = "schedframe.api"

    opaque: OpaqueDeviceConfiguration | None = None
    requests: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class DeviceClass:
    """A DeviceClass: CEL selectors every device allocated through it must satisfy, and
    configuration for its devices.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    selectors: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    """The CEL expressions of ``spec.selectors[].cel.expression``."""
    config: tuple[DeviceClaimConfiguration, ...] = attrs.field(default=(), converter=_tuple)

    def to_manifest(self) -> dict[str, Any]:
        """The ``resource.k8s.io/v1`` manifest."""
        return resource_object_to_manifest(self)


@final
@attrs.frozen
class ExactDeviceRequest:
    """``exactly`` of a device request."""

    __module__ = "schedframe.api"

    device_class_name: str
    selectors: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    allocation_mode: str = attrs.field(default="ExactCount", validator=attrs.validators.in_(ALLOCATION_MODES))
    count: int = 1
    admin_access: bool | None = None


@final
@attrs.frozen
class DeviceSubRequest:
    """One alternative of ``firstAvailable`` (a prioritized list)."""

    __module__ = "schedframe.api"

    name: str
    device_class_name: str
    selectors: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    allocation_mode: str = attrs.field(default="ExactCount", validator=attrs.validators.in_(ALLOCATION_MODES))
    count: int = 1


@final
@attrs.frozen
class DeviceRequest:
    """One entry of ``spec.devices.requests``: either ``exactly`` or ``first_available``."""

    __module__ = "schedframe.api"

    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class DeviceConstraint:
    """One entry of ``spec.devices.constraints``: ``match_attribute`` requires every device
    allocated for ``requests`` (all requests when empty) to have the same value of it."""

    __module__ = "schedframe.api"

    requests: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    match_attribute: str | None = None


@final
@attrs.frozen
class DeviceRequestAllocationResult:
    """One allocated device: the request (``"req"`` or ``"req/subreq"``) and the device."""

    __module__ = "schedframe.api"

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None


@final
@attrs.frozen
class DeviceAllocationConfiguration:
    """Configuration copied into an allocation, from the class or the claim."""

    __module__ = "schedframe.api"

    source: str
    opaque: OpaqueDeviceConfiguration | None = None
    requests: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class AllocationResult:
    """``status.allocation``: the devices, their configuration and the nodes the claim can be
    used on (``None``: any node)."""

    __module__ = "schedframe.api"

    results: tuple[DeviceRequestAllocationResult, ...] = attrs.field(default=(), converter=_tuple)
    config: tuple[DeviceAllocationConfiguration, ...] = attrs.field(default=(), converter=_tuple)
    node_selector: NodeSelector | None = None


@final
@attrs.frozen
class ResourceClaimConsumerReference:
    """One entry of ``status.reservedFor``."""

    __module__ = "schedframe.api"

    name: str
    uid: str
    resource: str = "pods"
    api_group: str = ""


def _claim_uid(claim: ResourceClaim) -> str:
    return str(uuid.uuid5(_NS_UID, f"{claim.namespace}/{claim.name}"))


@final
@attrs.frozen
class ResourceClaim:
    """A ResourceClaim: device requests, constraints and configuration (``spec.devices``) and
    its allocation and consumers (``status``).

    ``uid`` defaults to a value derived from namespace and name.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    uid: str = attrs.field(default=attrs.Factory(_claim_uid, takes_self=True))
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_tuple)
    finalizers: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    deletion_timestamp: str | None = None
    """``metadata.deletionTimestamp`` as written (set: the claim is being deleted)."""
    requests: tuple[DeviceRequest, ...] = attrs.field(default=(), converter=_tuple)
    constraints: tuple[DeviceConstraint, ...] = attrs.field(default=(), converter=_tuple)
    config: tuple[DeviceClaimConfiguration, ...] = attrs.field(default=(), converter=_tuple)
    allocation: AllocationResult | None = None
    reserved_for: tuple[ResourceClaimConsumerReference, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def is_reserved_for(self, pod_uid: str) -> bool:
        """Whether ``status.reservedFor`` lists the pod with *pod_uid*."""
        return any(r.uid == pod_uid for r in self.reserved_for)

    def evolve(self, **changes: Any) -> ResourceClaim:
        """A copy with *changes* applied (``attrs.evolve``)."""
        return attrs.evolve(self, **changes)

    def to_manifest(self) -> dict[str, Any]:
        """The ``resource.k8s.io/v1`` manifest."""
        return resource_object_to_manifest(self)


@final
@attrs.frozen
class ResourceClaimTemplate:
    """A ResourceClaimTemplate: the spec (and labels/annotations) of the claims generated for
    pods that reference it.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    claim_labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    claim_annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    requests: tuple[DeviceRequest, ...] = attrs.field(default=(), converter=_tuple)
    constraints: tuple[DeviceConstraint, ...] = attrs.field(default=(), converter=_tuple)
    config: tuple[DeviceClaimConfiguration, ...] = attrs.field(default=(), converter=_tuple)

    def to_manifest(self) -> dict[str, Any]:
        """The ``resource.k8s.io/v1`` manifest."""
        return resource_object_to_manifest(self)


# --------------------------------------------------------------------------------------------
# Reading


def _top(manifest: Any, kind: str) -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    m = _check_top(manifest, kind, (RESOURCE_API_VERSION,))
    meta = _mapping(m.get("metadata"), "metadata")
    _required_str(meta, "name", "metadata")
    return m, meta, _mapping(m.get("spec"), "spec")


def _selectors(value: Any, path: str) -> tuple[str, ...]:
    out: list[str] = []
    for i, sel in enumerate(_list(value, path)):
        p = f"{path}[{i}]"
        cel = _mapping(_mapping(sel, p).get("cel"), f"{p}.cel")
        out.append(_required_str(cel, "expression", f"{p}.cel"))
    return tuple(out)


def _allocation_mode(value: Any, path: str) -> str:
    mode = _str(value, path) or "ExactCount"
    if mode not in ALLOCATION_MODES:
        _fail(path, f"expected one of 'ExactCount', 'All', got {_show(value)}")
    return mode


def _count(m: Mapping[str, Any], mode: str, path: str) -> int:
    count = _int_or(m.get("count"), f"{path}.count", 1)
    if mode == "ExactCount" and count < 1:
        _fail(f"{path}.count", f"must be at least 1, got {count}")
    return count


def _exact(value: Any, path: str) -> ExactDeviceRequest:
    m = _mapping(value, path)
    mode = _allocation_mode(m.get("allocationMode"), f"{path}.allocationMode")
    return ExactDeviceRequest(
        device_class_name=_required_str(m, "deviceClassName", path),
        selectors=_selectors(m.get("selectors"), f"{path}.selectors"),
        allocation_mode=mode, count=_count(m, mode, path),
        admin_access=_opt_bool(m.get("adminAccess"), f"{path}.adminAccess"))


def _sub_request(value: Any, path: str) -> DeviceSubRequest:
    m = _mapping(value, path)
    mode = _allocation_mode(m.get("allocationMode"), f"{path}.allocationMode")
    return DeviceSubRequest(
        name=_required_str(m, "name", path),
        device_class_name=_required_str(m, "deviceClassName", path),
        selectors=_selectors(m.get("selectors"), f"{path}.selectors"),
        allocation_mode=mode, count=_count(m, mode, path))


def _request(value: Any, path: str) -> DeviceRequest:
    m = _mapping(value, path)
    name = _required_str(m, "name", path)
    exactly = None if m.get("exactly") is None else _exact(m.get("exactly"), f"{path}.exactly")
    first = _items(m.get("firstAvailable"), f"{path}.firstAvailable", _sub_request)
    if (exactly is None) == (not first):
        _fail(path, "exactly one of 'exactly' or 'firstAvailable' is required")
    return DeviceRequest(name=name, exactly=exactly, first_available=first)


_CONSTRAINT: Final = _Codec(DeviceConstraint, (
    _Field("requests", "requests", _STR_LIST), _Field("matchAttribute", "match_attribute", _OPT_STR)))
_OPAQUE: Final = _Codec(OpaqueDeviceConfiguration, (
    _Field("driver", "driver", _REQUIRED_STR), _Field("parameters", "parameters", _PLAIN)))


def _opaque(value: Any, path: str) -> OpaqueDeviceConfiguration | None:
    return None if value is None else _OPAQUE.read(value, path)


def _config(value: Any, path: str) -> DeviceClaimConfiguration:
    m = _mapping(value, path)
    return DeviceClaimConfiguration(opaque=_opaque(m.get("opaque"), f"{path}.opaque"),
                                    requests=_str_list(m.get("requests"), f"{path}.requests"))


def _requirement(value: Any, path: str) -> NodeSelectorRequirement:
    m = _mapping(value, path)
    op = _required_str(m, "operator", path)
    if op not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        _fail(f"{path}.operator", f"expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, got {_show(op)}")
    return NodeSelectorRequirement(_required_str(m, "key", path), op,
                                   _str_list(m.get("values"), f"{path}.values"))


def _node_selector(value: Any, path: str) -> NodeSelector | None:
    if value is None:
        return None
    m = _mapping(value, path)
    terms = []
    for i, t in enumerate(_list(m.get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")):
        p = f"{path}.nodeSelectorTerms[{i}]"
        tm = _mapping(t, p)
        terms.append(NodeSelectorTerm(_items(tm.get("matchExpressions"), f"{p}.matchExpressions",
                                             _requirement),
                                      _items(tm.get("matchFields"), f"{p}.matchFields", _requirement)))
    return NodeSelector(tuple(terms))


def _device_spec(devices: Mapping[str, Any], path: str) -> dict[str, Any]:
    return {
        "requests": _items(devices.get("requests"), f"{path}.requests", _request),
        "constraints": _items(devices.get("constraints"), f"{path}.constraints", _CONSTRAINT.read),
        "config": _items(devices.get("config"), f"{path}.config", _config),
    }


_RESULT: Final = _Codec(DeviceRequestAllocationResult, (
    _Field("request", "request", _REQUIRED_STR), _Field("driver", "driver", _REQUIRED_STR),
    _Field("pool", "pool", _REQUIRED_STR), _Field("device", "device", _REQUIRED_STR),
    _Field("adminAccess", "admin_access", _OPT_BOOL)))


def _alloc_config(value: Any, path: str) -> DeviceAllocationConfiguration:
    m = _mapping(value, path)
    source = _required_str(m, "source", path)
    if source not in ("FromClass", "FromClaim"):
        _fail(f"{path}.source", f"expected 'FromClass' or 'FromClaim', got {_show(source)}")
    return DeviceAllocationConfiguration(source=source, opaque=_opaque(m.get("opaque"), f"{path}.opaque"),
                                         requests=_str_list(m.get("requests"), f"{path}.requests"))


def _allocation(value: Any, path: str) -> AllocationResult | None:
    if value is None:
        return None
    m = _mapping(value, path)
    devices = _mapping(m.get("devices"), f"{path}.devices")
    return AllocationResult(
        results=_items(devices.get("results"), f"{path}.devices.results", _RESULT.read),
        config=_items(devices.get("config"), f"{path}.devices.config", _alloc_config),
        node_selector=_node_selector(m.get("nodeSelector"), f"{path}.nodeSelector"))


_CONSUMER: Final = _Codec(ResourceClaimConsumerReference, (
    _Field("name", "name", _REQUIRED_STR), _Field("uid", "uid", _REQUIRED_STR),
    _Field("resource", "resource", _REQUIRED_STR), _Field("apiGroup", "api_group", _STR)),
    written=("resource", "name", "uid", "apiGroup"))


def resource_claim_from_manifest(manifest: Mapping[str, Any]) -> ResourceClaim:
    """A :class:`~schedframe.api.ResourceClaim` from its ``resource.k8s.io/v1`` manifest.

    Raises:
        ManifestError: naming the field path of anything malformed.
    """
    m, meta, spec = _top(manifest, "ResourceClaim")
    status = _mapping(m.get("status"), "status")
    kw: dict[str, Any] = _given_uid(meta)
    deletion = meta.get("deletionTimestamp")
    return ResourceClaim(
        name=meta["name"], namespace=_str(meta.get("namespace"), "metadata.namespace") or "default",
        labels=_str_map(meta.get("labels"), "metadata.labels"),
        annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
        owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences", _owner_reference),
        finalizers=_str_list(meta.get("finalizers"), "metadata.finalizers"),
        deletion_timestamp=None if deletion is None else str(deletion),
        **_device_spec(_mapping(spec.get("devices"), "spec.devices"), "spec.devices"),
        allocation=_allocation(status.get("allocation"), "status.allocation"),
        reserved_for=_items(status.get("reservedFor"), "status.reservedFor", _CONSUMER.read),
        **kw)


def resource_claim_template_from_manifest(manifest: Mapping[str, Any]) -> ResourceClaimTemplate:
    """A :class:`~schedframe.api.ResourceClaimTemplate` from its ``resource.k8s.io/v1`` manifest.

    Raises:
        ManifestError: naming the field path of anything malformed.
    """
    _, meta, spec = _top(manifest, "ResourceClaimTemplate")
    claim_meta = _mapping(spec.get("metadata"), "spec.metadata")
    claim_spec = _mapping(spec.get("spec"), "spec.spec")
    return ResourceClaimTemplate(
        name=meta["name"], namespace=_str(meta.get("namespace"), "metadata.namespace") or "default",
        claim_labels=_str_map(claim_meta.get("labels"), "spec.metadata.labels"),
        claim_annotations=_str_map(claim_meta.get("annotations"), "spec.metadata.annotations"),
        **_device_spec(_mapping(claim_spec.get("devices"), "spec.spec.devices"), "spec.spec.devices"))


def device_class_from_manifest(manifest: Mapping[str, Any]) -> DeviceClass:
    """A :class:`~schedframe.api.DeviceClass` from its ``resource.k8s.io/v1`` manifest.

    Raises:
        ManifestError: naming the field path of anything malformed.
    """
    _, meta, spec = _top(manifest, "DeviceClass")
    return DeviceClass(name=meta["name"], selectors=_selectors(spec.get("selectors"), "spec.selectors"),
                       config=_items(spec.get("config"), "spec.config", _config))


_ATTRIBUTE_KEYS: Final = {"int": "int_value", "bool": "bool_value", "string": "string_value",
                          "version": "version"}


def _attribute(value: Any, path: str) -> DeviceAttribute:
    m = _mapping(value, path)
    set_keys = [k for k in _ATTRIBUTE_KEYS if m.get(k) is not None]
    if len(set_keys) != 1:
        _fail(path, "exactly one of 'int', 'bool', 'string' or 'version' is required")
    key = set_keys[0]
    raw = m[key]
    p = f"{path}.{key}"
    if key == "int":
        return DeviceAttribute(int_value=_int_or(raw, p, 0))
    if key == "bool":
        return DeviceAttribute(bool_value=_opt_bool(raw, p))
    if key == "string":
        return DeviceAttribute(string_value=_str(raw, p))
    return DeviceAttribute(version=_str(raw, p))


def _device(value: Any, path: str) -> Device:
    m = _mapping(value, path)
    if "basic" in m:  # the v1beta1 shape, accepted for convenience
        m = {**_mapping(m["basic"], f"{path}.basic"), "name": m.get("name")}
    attrs_in = _mapping(m.get("attributes"), f"{path}.attributes")
    cap_in = _mapping(m.get("capacity"), f"{path}.capacity")
    capacity: dict[str, Quantity] = {}
    for k, v in cap_in.items():
        p = f"{path}.capacity[{k}]"
        raw = _mapping(v, p).get("value") if isinstance(v, Mapping) else v
        capacity[str(k)] = _quantity(raw, f"{p}.value" if isinstance(v, Mapping) else p)
    return Device(name=_required_str(m, "name", path),
                  attributes={str(k): _attribute(v, f"{path}.attributes[{k}]") for k, v in attrs_in.items()},
                  capacity=capacity)


def resource_slice_from_manifest(manifest: Mapping[str, Any]) -> ResourceSlice:
    """A :class:`~schedframe.api.ResourceSlice` from its ``resource.k8s.io/v1`` manifest.

    Raises:
        ManifestError: naming the field path of anything malformed, or a slice that sets not
        exactly one of ``nodeName``, ``nodeSelector`` and ``allNodes``.
    """
    _, meta, spec = _top(manifest, "ResourceSlice")
    pool = _mapping(spec.get("pool"), "spec.pool")
    node_name = _str(spec.get("nodeName"), "spec.nodeName")
    node_selector = _node_selector(spec.get("nodeSelector"), "spec.nodeSelector")
    all_nodes = _bool(spec.get("allNodes"), "spec.allNodes")
    per_device = _bool(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection")
    if per_device:
        _fail("spec.perDeviceNodeSelection", "not supported by schedframe")
    if sum((bool(node_name), node_selector is not None, all_nodes)) != 1:
        _fail("spec", "exactly one of 'nodeName', 'nodeSelector' or 'allNodes' is required")
    if node_selector is not None and len(node_selector.terms) != 1:
        _fail("spec.nodeSelector.nodeSelectorTerms",
              f"must have exactly one term, got {len(node_selector.terms)}")
    return ResourceSlice(
        name=meta["name"], driver=_required_str(spec, "driver", "spec"),
        pool=ResourcePool(name=_required_str(pool, "name", "spec.pool"),
                          generation=_int_or(pool.get("generation"), "spec.pool.generation", 0),
                          resource_slice_count=_int_or(pool.get("resourceSliceCount"),
                                                       "spec.pool.resourceSliceCount", 1)),
        node_name=node_name, node_selector=node_selector, all_nodes=all_nodes,
        devices=_items(spec.get("devices"), "spec.devices", _device))


# --------------------------------------------------------------------------------------------
# Writing


def _selectors_out(selectors: Sequence[str]) -> list[dict[str, Any]]:
    return [{"cel": {"expression": e}} for e in selectors]


def _config_out(c: DeviceClaimConfiguration | DeviceAllocationConfiguration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(c, DeviceAllocationConfiguration):
        out["source"] = c.source
    if c.requests:
        out["requests"] = list(c.requests)
    if c.opaque is not None:
        out["opaque"] = _OPAQUE.write(c.opaque)
    return out


def _mode_out(out: dict[str, Any], r: ExactDeviceRequest | DeviceSubRequest) -> dict[str, Any]:
    if r.selectors:
        out["selectors"] = _selectors_out(r.selectors)
    out["allocationMode"] = r.allocation_mode
    if r.allocation_mode == "ExactCount":
        out["count"] = r.count
    return out


def _request_out(r: DeviceRequest) -> dict[str, Any]:
    out: dict[str, Any] = {"name": r.name}
    if r.exactly is not None:
        e = _mode_out({"deviceClassName": r.exactly.device_class_name}, r.exactly)
        if r.exactly.admin_access is not None:
            e["adminAccess"] = r.exactly.admin_access
        out["exactly"] = e
    if r.first_available:
        out["firstAvailable"] = [_mode_out({"name": s.name, "deviceClassName": s.device_class_name}, s)
                                 for s in r.first_available]
    return out


def _devices_out(obj: ResourceClaim | ResourceClaimTemplate) -> dict[str, Any]:
    out: dict[str, Any] = {"requests": [_request_out(r) for r in obj.requests]}
    if obj.constraints:
        out["constraints"] = [_CONSTRAINT.write(c) for c in obj.constraints]
    if obj.config:
        out["config"] = [_config_out(c) for c in obj.config]
    return out


def _node_selector_out(ns: NodeSelector) -> dict[str, Any]:
    return {"nodeSelectorTerms": [_node_selector_term_out(t) for t in ns.terms]}


def _allocation_out(a: AllocationResult) -> dict[str, Any]:
    devices: dict[str, Any] = {"results": [_RESULT.write(r) for r in a.results]}
    if a.config:
        devices["config"] = [_config_out(c) for c in a.config]
    out: dict[str, Any] = {"devices": devices}
    if a.node_selector is not None:
        out["nodeSelector"] = _node_selector_out(a.node_selector)
    return out


def _claim_out(c: ResourceClaim) -> dict[str, Any]:
    owners = []
    for o in c.owner_references:
        ref: dict[str, Any] = {"apiVersion": o.api_version, "kind": o.kind, "name": o.name, "uid": o.uid}
        if o.controller:
            ref["controller"] = True
        owners.append(ref)
    meta = _meta_out(c.name, c.namespace, uid=c.uid if c.uid != _claim_uid(c) else "",
                 labels=dict(c.labels), annotations=dict(c.annotations), ownerReferences=owners,
                 finalizers=list(c.finalizers), deletionTimestamp=c.deletion_timestamp)
    status: dict[str, Any] = {}
    if c.allocation is not None:
        status["allocation"] = _allocation_out(c.allocation)
    if c.reserved_for:
        status["reservedFor"] = [_CONSUMER.write(r) for r in c.reserved_for]
    out: dict[str, Any] = {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceClaim", "metadata": meta,
                           "spec": {"devices": _devices_out(c)}}
    if status:
        out["status"] = status
    return out


def _template_out(t: ResourceClaimTemplate) -> dict[str, Any]:
    spec: dict[str, Any] = {"spec": {"devices": _devices_out(t)}}
    claim_meta = _meta_out("", None, labels=dict(t.claim_labels), annotations=dict(t.claim_annotations))
    del claim_meta["name"]
    if claim_meta:
        spec["metadata"] = claim_meta
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceClaimTemplate",
            "metadata": _meta_out(t.name, t.namespace), "spec": spec}


def _class_out(c: DeviceClass) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if c.selectors:
        spec["selectors"] = _selectors_out(c.selectors)
    if c.config:
        spec["config"] = [_config_out(x) for x in c.config]
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "DeviceClass", "metadata": _meta_out(c.name),
            "spec": spec}


def _attribute_out(a: DeviceAttribute) -> dict[str, Any]:
    for key, field in _ATTRIBUTE_KEYS.items():
        v = getattr(a, field)
        if v is not None:
            return {key: v}
    return {}


def _slice_out(s: ResourceSlice) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": s.driver, "pool": {
        "name": s.pool.name, "generation": s.pool.generation,
        "resourceSliceCount": s.pool.resource_slice_count}}
    if s.node_name:
        spec["nodeName"] = s.node_name
    if s.node_selector is not None:
        spec["nodeSelector"] = _node_selector_out(s.node_selector)
    if s.all_nodes:
        spec["allNodes"] = True
    devices = []
    for d in s.devices:
        dev: dict[str, Any] = {"name": d.name}
        if d.attributes:
            dev["attributes"] = {k: _attribute_out(v) for k, v in d.attributes.items()}
        if d.capacity:
            dev["capacity"] = {k: {"value": str(v)} for k, v in d.capacity.items()}
        devices.append(dev)
    if devices:
        spec["devices"] = devices
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceSlice", "metadata": _meta_out(s.name),
            "spec": spec}


_WRITERS: Final[dict[type, Callable[[Any], dict[str, Any]]]] = {
    ResourceClaim: _claim_out,
    ResourceClaimTemplate: _template_out,
    DeviceClass: _class_out,
    ResourceSlice: _slice_out,
}

def resource_object_to_manifest(obj: ResourceClaim | ResourceClaimTemplate | DeviceClass | ResourceSlice
                                ) -> dict[str, Any]:
    """The ``resource.k8s.io/v1`` manifest of a DRA object.

    Raises:
        ManifestError: for any other object.
    """
    writer = _WRITERS.get(type(obj))
    if writer is None:
        _fail("", f"cannot write a resource.k8s.io manifest for {type(obj).__name__} objects")
    return writer(obj)
