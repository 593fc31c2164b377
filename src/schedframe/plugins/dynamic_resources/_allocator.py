"""The structured-parameters allocator (upstream
``staging/src/k8s.io/dynamic-resource-allocation/structured``, the stable variant).

For one node, the allocator picks devices for every request of every claim to allocate, from the
ResourceSlices that serve the node, such that each device matches its class's and its request's
CEL selectors, is not allocated to another claim, is used once, and the claims' ``matchAttribute``
constraints hold. It searches depth-first with backtracking, trying pools in (driver, pool) order
and devices in slice order, so the first solution found is deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, final

from ...api.objects import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from ...api.resource import (
    AllocationResult,
    Device,
    DeviceAllocationConfiguration,
    DeviceAttribute,
    DeviceClass,
    DeviceRequestAllocationResult,
    ResourceClaim,
    ResourceSlice,
)
from . import _cel

__all__ = [
    "AllocationError", "AllocationTimeout", "Allocator", "DeviceID", "allocated_devices", "gather_pools",
]

#: (driver, pool, device)
DeviceID = tuple[str, str, str]

_NODE_NAME_FIELD: Final = "metadata.name"


class AllocationError(Exception):
    """Something is wrong with a claim or a class (a CEL error, a pool being updated): the pod
    cannot be scheduled until that is fixed. ``unavailable`` marks cel-python missing."""

    def __init__(self, message: str, *, unavailable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.unavailable = unavailable


class AllocationTimeout(Exception):
    """The device search ran past its deadline."""


@final
class _Pool:
    __slots__ = ("devices", "driver", "incomplete", "invalid", "name")

    def __init__(self, driver: str, name: str) -> None:
        self.driver = driver
        self.name = name
        self.devices: list[tuple[Device, ResourceSlice]] = []
        self.incomplete = False
        self.invalid = False


def _slice_serves(s: ResourceSlice, node: Node) -> bool:
    if s.node_name:
        return s.node_name == node.name
    if s.all_nodes:
        return True
    if s.node_selector is not None:
        return s.node_selector.matches(node.name, node.labels)
    return False


def gather_pools(slices: Iterable[ResourceSlice], node: Node) -> list[_Pool]:
    """The pools of the slices serving *node*, newest generation only (upstream ``GatherPools``)."""
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        if _slice_serves(s, node):
            by_pool.setdefault((s.driver, s.pool.name), []).append(s)
    pools = []
    for (driver, name), members in sorted(by_pool.items()):
        newest = max(s.pool.generation for s in members)
        current = sorted((s for s in members if s.pool.generation == newest), key=lambda s: s.name)
        pool = _Pool(driver, name)
        pool.incomplete = len(current) < max(s.pool.resource_slice_count for s in current)
        seen: set[str] = set()
        for s in current:
            for d in s.devices:
                if d.name in seen:
                    pool.invalid = True
                seen.add(d.name)
                pool.devices.append((d, s))
        pools.append(pool)
    return pools


def allocated_devices(claims: Iterable[ResourceClaim]) -> set[DeviceID]:
    """Devices allocated to *claims*, except those allocated with admin access."""
    out: set[DeviceID] = set()
    for c in claims:
        if c.allocation is None:
            continue
        for r in c.allocation.results:
            if not r.admin_access:
                out.add((r.driver, r.pool, r.device))
    return out


def lookup_attribute(device: Device, driver: str, name: str) -> DeviceAttribute | None:
    """The attribute *name* (fully qualified) of *device*; a short name on the device counts for
    the driver's domain (upstream ``lookupAttribute``)."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, _, ident = name.rpartition("/")
    if domain == driver:
        return device.attributes.get(ident)
    return None


@final
class _Alternative:
    """A request, or one subrequest of a ``firstAvailable`` list."""

    __slots__ = ("admin_access", "class_", "count", "mode", "name", "selectors")

    def __init__(self, name: str, class_: DeviceClass, selectors: Sequence[str], mode: str, count: int,
                 admin_access: bool | None) -> None:
        self.name = name
        self.class_ = class_
        self.selectors = selectors
        self.mode = mode
        self.count = count
        self.admin_access = admin_access


@final
class _Request:
    __slots__ = ("alternatives", "claim_index", "name")

    def __init__(self, claim_index: int, name: str, alternatives: list[_Alternative]) -> None:
        self.claim_index = claim_index
        self.name = name
        self.alternatives = alternatives


@final
class _Constraint:
    __slots__ = ("attribute", "requests", "stack")

    def __init__(self, attribute: str, requests: frozenset[str]) -> None:
        self.attribute = attribute
        self.requests = requests
        self.stack: list[Any] = []

    def applies(self, request_name: str) -> bool:
        return (not self.requests or request_name.split("/")[0] in self.requests
                or request_name in self.requests)


@final
class Allocator:
    """Allocates *claims* (none allocated yet) on one node at a time.

    Args:
        claims: the claims to allocate, in the pod's order.
        allocated: devices already in use (other claims' allocations and in-flight ones).
        classes: device classes by name (every class the claims name must be present).
        slices: all ResourceSlices.
    """

    def __init__(self, claims: Sequence[ResourceClaim], allocated: set[DeviceID],
                 classes: Mapping[str, DeviceClass], slices: Sequence[ResourceSlice]) -> None:
        self.claims = tuple(claims)
        self._allocated = allocated
        self._slices = tuple(slices)
        self._requests: list[_Request] = []
        self._constraints: list[list[_Constraint]] = []
        for ci, claim in enumerate(self.claims):
            for req in claim.requests:
                alts: list[_Alternative] = []
                if req.exactly is not None:
                    e = req.exactly
                    alts.append(_Alternative(req.name, classes[e.device_class_name], e.selectors,
                                             e.allocation_mode, e.count, e.admin_access))
                for sub in req.first_available:
                    alts.append(_Alternative(f"{req.name}/{sub.name}", classes[sub.device_class_name],
                                             sub.selectors, sub.allocation_mode, sub.count, None))
                self._requests.append(_Request(ci, req.name, alts))
            self._constraints.append([_Constraint(c.match_attribute, frozenset(c.requests))
                                      for c in claim.constraints if c.match_attribute])

    # -- matching ---------------------------------------------------------------------------

    def _selectors_match(self, owner: str, selectors: Sequence[str], device: Device, driver: str,
                         cache: dict[int, dict[str, Any]]) -> bool:
        if not selectors:
            return True
        activation = cache.get(id(device))
        if activation is None:
            try:
                activation = _cel.device_activation(driver, device.attributes, device.capacity)
            except _cel.CelUnavailableError as exc:
                raise AllocationError(str(exc), unavailable=True) from exc
            cache[id(device)] = activation
        for i, expression in enumerate(selectors):
            try:
                selector = _cel.compile_selector(expression)
                if not selector.matches(activation):
                    return False
            except _cel.CelUnavailableError as exc:
                raise AllocationError(str(exc), unavailable=True) from exc
            except _cel.CelError as exc:
                raise AllocationError(f"{owner}: selector #{i}: CEL {exc.kind} error: {exc.message}") from exc
        return True

    # -- allocation -------------------------------------------------------------------------

    def allocate(self, node: Node, deadline: float | None = None) -> list[AllocationResult] | None:
        """One allocation per claim for *node*, or ``None`` when the devices do not suffice.

        *deadline* is a ``time.monotonic()`` value; past it the search stops.

        Raises:
            AllocationTimeout: the deadline passed.
            AllocationError: a CEL error, an ``All`` request over a pool being updated, or
                cel-python missing.
        """
        pools = gather_pools(self._slices, node)
        flat: list[tuple[_Pool, Device, ResourceSlice]] = [
            (p, d, s) for p in pools if not p.invalid for d, s in p.devices]
        activations: dict[int, dict[str, Any]] = {}
        match_cache: dict[tuple[int, int, int], bool] = {}

        def matches(ri: int, ai: int, di: int) -> bool:
            key = (ri, ai, di)
            hit = match_cache.get(key)
            if hit is not None:
                return hit
            req = self._requests[ri]
            alt = req.alternatives[ai]
            pool, device, _ = flat[di]
            claim = self.claims[req.claim_index]
            ok = (self._selectors_match(f"class {alt.class_.name}", alt.class_.selectors, device,
                                        pool.driver, activations)
                  and self._selectors_match(f"claim {claim.namespace}/{claim.name}", alt.selectors, device,
                                            pool.driver, activations))
            match_cache[key] = ok
            return ok

        in_use: set[DeviceID] = set()
        chosen: list[list[tuple[str, int, bool | None]]] = [[] for _ in self._requests]

        def constraints_push(ci: int, request_name: str, di: int) -> int | None:
            """Apply the claim's constraints to the device; the number pushed, or None."""
            pushed = 0
            pool, device, _ = flat[di]
            for c in self._constraints[ci]:
                if not c.applies(request_name):
                    continue
                attr = lookup_attribute(device, pool.driver, c.attribute)
                value = None if attr is None else (type(attr.value).__name__, attr.value)
                if value is None or (c.stack and c.stack[0] != value):
                    constraints_pop(ci, request_name, pushed)
                    return None
                c.stack.append(value)
                pushed += 1
            return pushed

        def constraints_pop(ci: int, request_name: str, count: int) -> None:
            for c in self._constraints[ci]:
                if count <= 0:
                    break
                if c.applies(request_name):
                    c.stack.pop()
                    count -= 1

        def device_free(di: int, admin: bool | None) -> bool:
            pool, device, _ = flat[di]
            ident = (pool.driver, pool.name, device.name)
            if ident in in_use:
                return False
            return bool(admin) or ident not in self._allocated

        def take(ri: int, name: str, di: int, admin: bool | None) -> bool:
            ci = self._requests[ri].claim_index
            if constraints_push(ci, name, di) is None:
                return False
            pool, device, _ = flat[di]
            in_use.add((pool.driver, pool.name, device.name))
            chosen[ri].append((name, di, admin))
            return True

        def release(ri: int) -> None:
            name, di, _ = chosen[ri].pop()
            pool, device, _ = flat[di]
            in_use.discard((pool.driver, pool.name, device.name))
            ci = self._requests[ri].claim_index
            constraints_pop(ci, name, sum(1 for c in self._constraints[ci] if c.applies(name)))

        steps = [0]

        def fill(ri: int, ai: int, remaining: int, start: int) -> bool:
            if remaining == 0:
                return solve(ri + 1)
            alt = self._requests[ri].alternatives[ai]
            for di in range(start, len(flat)):
                if deadline is not None:
                    steps[0] += 1
                    if steps[0] % 256 == 0 and time.monotonic() > deadline:
                        raise AllocationTimeout()
                if not device_free(di, alt.admin_access) or not matches(ri, ai, di):
                    continue
                if take(ri, alt.name, di, alt.admin_access):
                    if fill(ri, ai, remaining - 1, di + 1):
                        return True
                    release(ri)
            return False

        def fill_all(ri: int, ai: int) -> bool:
            alt = self._requests[ri].alternatives[ai]
            claim = self.claims[self._requests[ri].claim_index]
            for pool in pools:
                state = "being updated" if pool.incomplete else "invalid" if pool.invalid else ""
                if state:
                    raise AllocationError(
                        f"claim {claim.namespace}/{claim.name}, request {alt.name}: asks for all devices, "
                        f"but resource pool {pool.driver}/{pool.name} is currently {state}")
            picked = [di for di in range(len(flat)) if matches(ri, ai, di)]
            if not picked:
                return False
            taken = 0
            for di in picked:
                if not device_free(di, alt.admin_access) or not take(ri, alt.name, di, alt.admin_access):
                    break
                taken += 1
            else:
                if solve(ri + 1):
                    return True
            for _ in range(taken):
                release(ri)
            return False

        def solve(ri: int) -> bool:
            if ri == len(self._requests):
                return True
            for ai, alt in enumerate(self._requests[ri].alternatives):
                if alt.mode == "All":
                    if fill_all(ri, ai):
                        return True
                elif fill(ri, ai, alt.count, 0):
                    return True
            return False

        if not solve(0):
            return None
        return [self._result(ci, flat, chosen) for ci in range(len(self.claims))]

    def _result(self, ci: int, flat: Sequence[tuple[_Pool, Device, ResourceSlice]],
                chosen: Sequence[Sequence[tuple[str, int, bool | None]]]) -> AllocationResult:
        claim = self.claims[ci]
        results: list[DeviceRequestAllocationResult] = []
        slices: list[ResourceSlice] = []
        config: list[DeviceAllocationConfiguration] = []
        for ri, req in enumerate(self._requests):
            if req.claim_index != ci:
                continue
            used_alt = None
            for name, di, admin in chosen[ri]:
                pool, device, s = flat[di]
                results.append(DeviceRequestAllocationResult(
                    request=name, driver=pool.driver, pool=pool.name, device=device.name,
                    admin_access=True if admin else None))
                slices.append(s)
                used_alt = name
            alt = next((a for a in req.alternatives if a.name == used_alt), req.alternatives[0])
            for cfg in alt.class_.config:
                config.append(DeviceAllocationConfiguration(source="FromClass", opaque=cfg.opaque,
                                                            requests=(req.name,)))
        for cfg in claim.config:
            config.append(DeviceAllocationConfiguration(source="FromClaim", opaque=cfg.opaque,
                                                        requests=cfg.requests))
        return AllocationResult(results=tuple(results), config=tuple(config),
                                node_selector=_node_selector(slices))


def _node_selector(slices: Sequence[ResourceSlice]) -> NodeSelector | None:
    """The nodes an allocation from *slices* is usable on (upstream ``createNodeSelector``)."""
    fields: list[NodeSelectorRequirement] = []
    expressions: list[NodeSelectorRequirement] = []
    for s in slices:
        if s.node_name:
            return NodeSelector((NodeSelectorTerm(match_fields=(
                NodeSelectorRequirement(_NODE_NAME_FIELD, "In", (s.node_name,)),)),))
        if s.node_selector is not None and s.node_selector.terms:
            term = s.node_selector.terms[0]
            _add_new(fields, term.match_fields)
            _add_new(expressions, term.match_expressions)
    if fields or expressions:
        return NodeSelector((NodeSelectorTerm(match_expressions=tuple(expressions),
                                              match_fields=tuple(fields)),))
    return None


def _add_new(into: list[NodeSelectorRequirement], reqs: Iterable[NodeSelectorRequirement]) -> None:
    for r in reqs:
        if r not in into:
            into.append(r)

