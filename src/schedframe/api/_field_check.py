"""Field validation of manifests against the field trees of the emulated Kubernetes releases
(``_field_schema.json``, written by ``scripts/gen-field-schema`` from the OpenAPI document of
``k8s.io/kubernetes``): what the API server's strict field validation (kubectl's default)
refuses, schedframe's readers would silently drop.

A document is walked iteratively against its kind's tree; the trees are built once per release
(lazily) and shared by every document. Resource names (the keys of core/v1 resource lists:
``requests``, ``limits``, ``allocatable``, ``capacity``...) are checked too: a standard name or one
qualified with a domain (``example.com/gpu``).

Not validated: kinds the file has no tree of (the scheduler-plugins CRDs: scheduling.x-k8s.io
PodGroup and ElasticQuota, NodeResourceTopology, AppGroup, NetworkTopology; kinds registered by
other distributions), and kinds the emulated release does not serve (e.g. resource.k8s.io/v1
before 1.34): the readers handle those as before.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from importlib import resources
from itertools import repeat
from typing import Any, Final, Literal, TypeAlias

from ..errors import FieldProblem, bounded_repr, closest_name
from ._old_versions import OLD_API_VERSIONS

__all__ = ["FIELD_RELEASES", "ValidateMode", "field_problems", "normalise_release"]

ValidateMode: TypeAlias = Literal["strict", "warn", "ignore"]
VALIDATE_MODES: Final = ("strict", "warn", "ignore")

# A tree node: the fields of an object type, each mapped to a ref: None (a leaf), a dict (an
# object type's fields), _FREE (a map with free keys and leaf values), _RESOURCES (a resource
# list), or a _Map (a map with free keys whose values are objects).
Fields: TypeAlias = dict[str, Any]
_FREE: Final = "*"
_RESOURCES: Final = "$"
_ABSENT: Final = object()


class _Map:
    __slots__ = ("values",)

    def __init__(self, values: Fields) -> None:
        self.values = values


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("_field_schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _releases() -> tuple[str, ...]:
    return tuple(_data()["modules"])


#: The Kubernetes releases the field trees cover (oldest first).
FIELD_RELEASES: Final = _releases()

_VERSION: Final = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")


def normalise_release(value: object, *, name: str = "kubernetes_version") -> str:
    """``"1.34"`` from ``"1.34"``, ``"v1.34"``, ``"v1.34.2"`` or a ``ReleaseProfile``; None is
    the newest release.

    Raises:
        TypeError: not a string.
        ValueError: not a version, or a release the field trees do not cover.
    """
    if value is None:
        return FIELD_RELEASES[-1]
    if not isinstance(value, str) and isinstance(getattr(value, "version", None), str):
        value = value.version  # type: ignore[attr-defined]  # a ReleaseProfile (schedframe.config)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string such as {FIELD_RELEASES[-1]!r}, got {type(value).__name__}")
    m = _VERSION.fullmatch(value.strip())
    release = f"{int(m.group(1))}.{int(m.group(2))}" if m else None
    if release not in FIELD_RELEASES:
        raise ValueError(f"{name}: {bounded_repr(value)} is not a Kubernetes release schedframe emulates "
                         f"({FIELD_RELEASES[0]} to {FIELD_RELEASES[-1]})")
    return release


@functools.cache
def _trees(release: str) -> dict[str, Fields]:
    """apiVersion + kind (``"v1 Pod"``) -> the root fields of its tree in *release*."""
    data = _data()
    raw: dict[str, list[Any]] = data["types"]
    built: dict[str, Fields] = {}

    def fields_of(name: str) -> Fields:
        node = built.get(name)
        if node is not None:
            return node
        node = built[name] = {}
        leaves, refs = raw[name]
        for field in leaves.split():
            node[field] = None
        for field, ref in refs.items():
            if ref == _FREE:
                node[field] = _FREE
            elif ref == _RESOURCES:
                node[field] = _RESOURCES
            elif ref.startswith("*"):
                node[field] = _Map(fields_of(ref[1:]))
            else:
                node[field] = fields_of(ref)
        return node

    return {key: fields_of(per[release]) for key, per in data["kinds"].items() if release in per}


def _tree_key(manifest: Mapping[str, Any], kind: str, default_api_version: str | None) -> str | None:
    """The key of *manifest*'s tree, or None when the file has none for its apiVersion."""
    api_version = manifest.get("apiVersion", default_api_version)
    if not isinstance(api_version, str):
        return None
    key = f"{api_version} {kind}"
    kinds = _data()["kinds"]
    if key in kinds:
        return key
    old = OLD_API_VERSIONS.get((kind, api_version))
    if old is not None and f"{old[0]} {kind}" in kinds:
        return f"{old[0]} {kind}"
    return None


_STANDARD_RESOURCES: Final = ("cpu", "memory", "ephemeral-storage", "pods", "storage")
_STANDARD_SET: Final = frozenset(_STANDARD_RESOURCES)
_RESOURCE_PREFIXES: Final = ("hugepages-", "requests.", "limits.", "attachable-volumes-")


def _resource_problem(name: object) -> tuple[str, str | None] | None:
    """(message, suggestion) for a resource name that is neither standard nor qualified."""
    if not isinstance(name, str):
        return f"a resource name must be a string, got {bounded_repr(name)}", None
    if name in _STANDARD_RESOURCES or "/" in name or name.startswith(_RESOURCE_PREFIXES):
        return None
    return (f"unknown resource name {bounded_repr(name)}: neither a standard resource "
            f"({', '.join(_STANDARD_RESOURCES)}, hugepages-<size>) nor an extended resource "
            f"qualified with a domain (example.com/{name})"), closest_name(name, _STANDARD_RESOURCES)


#: (id of a type's fields, unknown key) -> suggestion: a dump of a newer cluster repeats the same
#: few unknown fields in every object (the trees live as long as the process: ids are stable).
_SUGGESTIONS: dict[tuple[int, str], str | None] = {}
_MAX_CACHED: Final = 4096


def _suggest(key: str, known: Fields) -> str | None:
    cache_key = (id(known), key)
    if cache_key in _SUGGESTIONS:
        return _SUGGESTIONS[cache_key]
    if len(_SUGGESTIONS) >= _MAX_CACHED:
        _SUGGESTIONS.clear()
    _SUGGESTIONS[cache_key] = found = _close_field(key, known)
    return found


def _close_field(key: str, known: Fields) -> str | None:
    return closest_name(key, known)


def _lookup(root: Fields, keys: tuple[str, ...]) -> bool:
    """Whether the field path *keys* (map keys included) exists in the tree *root*."""
    node: Any = root
    i = 0
    while i < len(keys):
        if not isinstance(node, dict) or keys[i] not in node:
            return False
        node = node[keys[i]]
        i += 1
        if isinstance(node, _Map):
            node = node.values
            i += 1  # the map key
        elif node is _FREE or node is _RESOURCES:
            return i >= len(keys)
    return True


@functools.lru_cache(maxsize=_MAX_CACHED)
def _releases_with(key: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(r for r in FIELD_RELEASES
                 if (root := _trees(r).get(key)) is not None and _lookup(root, keys))


def _span(releases: tuple[str, ...]) -> str:
    """``from Kubernetes 1.36 on``, ``up to Kubernetes 1.33``, ``in Kubernetes 1.33, 1.35``."""
    index = [FIELD_RELEASES.index(r) for r in releases]
    contiguous = index == list(range(index[0], index[-1] + 1))
    if contiguous and releases[-1] == FIELD_RELEASES[-1]:
        return f"from Kubernetes {releases[0]} on"
    if contiguous and releases[0] == FIELD_RELEASES[0]:
        return f"up to Kubernetes {releases[-1]}"
    return f"in Kubernetes {', '.join(releases)}"


def _field_path(keys: tuple[str, ...]) -> str:
    return ".".join(keys)


def check_document(manifest: Mapping[str, Any], kind: str, release: str, prefix: str,
                   out: list[FieldProblem], default_api_version: str | None = None) -> None:
    """Append to *out* the problems of *manifest* (of *kind*) for *release*; *prefix* starts
    every path (``"pods.yaml: documents[2]"``, or ``""``)."""
    key = _tree_key(manifest, kind, default_api_version)
    if key is None:
        return
    root = _trees(release).get(key)
    if root is None:  # the release does not serve this apiVersion: nothing to check against
        return
    if _clean(manifest, _fast_trees(release)[key]):
        return
    _walk(manifest, root, prefix, key, release, out)


# The fast walk's tree: each object type is (its fields, its non-leaf fields with their fast
# refs): a FastNode, _RESOURCES, or a _FastMap of a FastNode.
FastNode: TypeAlias = tuple[frozenset[str], dict[str, Any]]


class _FastMap:
    __slots__ = ("values",)

    def __init__(self, values: FastNode) -> None:
        self.values = values


@functools.cache
def _fast_trees(release: str) -> dict[str, FastNode]:
    """:func:`_trees` for the fast walk (built once per release, sharing the types as they do)."""
    built: dict[int, FastNode] = {}

    def fast(fields: Fields) -> FastNode:
        node = built.get(id(fields))
        if node is not None:
            return node
        nested: dict[str, Any] = {}
        node = built[id(fields)] = (frozenset(fields), nested)
        for field, ref in fields.items():
            if type(ref) is dict:
                nested[field] = fast(ref)
            elif type(ref) is _Map:
                nested[field] = _FastMap(fast(ref.values))
            elif ref is _RESOURCES:
                nested[field] = _RESOURCES
        return node

    return {key: fast(root) for key, root in _trees(release).items()}


def _clean(manifest: Mapping[str, Any], root: FastNode) -> bool:
    """Whether *manifest* has no problem: the fast walk every document gets (no paths kept, the
    key checks done by set operations); only a document with a problem is walked again by
    :func:`_walk`."""
    stack: list[tuple[Any, FastNode]] = [(manifest, root)]
    pop = stack.pop
    push = stack.append
    extend = stack.extend
    standard = _STANDARD_SET
    prefixes = _RESOURCE_PREFIXES
    while stack:
        value, (known, nested) = pop()
        if type(value) is not dict:
            if type(value) is list:
                extend(zip(value, repeat((known, nested))))
                continue
            if not isinstance(value, Mapping):
                continue  # a wrong type is the reader's to report
        if not value.keys() <= known:
            return False
        if not nested:
            continue
        for field in nested.keys() & value.keys():
            sub = value[field]
            if sub is None:
                continue
            ref = nested[field]
            if type(ref) is tuple:
                if ref[1]:
                    push((sub, ref))
                    continue
                # a type without nested fields (EnvVar, ContainerPort...): checked here, not pushed
                leaf_known = ref[0]
                if type(sub) is dict:
                    if not sub.keys() <= leaf_known:
                        return False
                elif type(sub) is list:
                    for item in sub:
                        if type(item) is dict:
                            if not item.keys() <= leaf_known:
                                return False
                        elif item is not None:
                            push((item, ref))
                else:
                    push((sub, ref))
            elif ref is _RESOURCES:
                if isinstance(sub, Mapping):
                    for name in sub:
                        if name not in standard and (type(name) is not str or (
                                "/" not in name and not name.startswith(prefixes))):
                            return False
            elif isinstance(sub, Mapping):  # a _FastMap
                extend(zip(sub.values(), repeat(ref.values)))
    return True


def _walk(manifest: Mapping[str, Any], root: Fields, prefix: str, key: str, release: str,
          out: list[FieldProblem]) -> None:
    """Append every problem of *manifest* to *out*, with its path, in document order."""
    stack: list[tuple[Any, Fields, str, tuple[str, ...]]] = [(manifest, root, prefix, ())]
    pop = stack.pop
    push = stack.append
    while stack:
        value, fields, path, keys = pop()
        if type(value) is list:
            for i in range(len(value) - 1, -1, -1):
                push((value[i], fields, f"{path}[{i}]", keys))
            continue
        if not isinstance(value, Mapping):
            continue  # a wrong type is the reader's to report
        mark = len(stack)
        for field, sub in value.items():
            ref = fields.get(field, _ABSENT)
            if ref is None or sub is None or ref is _FREE:
                continue
            if ref is _ABSENT:
                _missing(field, fields, path, keys, key, release, out)
                continue
            if type(ref) is dict:
                push((sub, ref, f"{path}.{field}" if path else field, (*keys, field)))
            elif ref is _RESOURCES:
                if isinstance(sub, Mapping):
                    for name in sub:
                        problem = _resource_problem(name)
                        if problem is not None:
                            where = f"{path}.{field}" if path else field
                            out.append(FieldProblem(f"{where}.{name}", *problem))
            elif type(ref) is _Map and isinstance(sub, Mapping):
                where = f"{path}.{field}" if path else field
                for name, item in sub.items():
                    if item is not None:
                        push((item, ref.values, f"{where}.{name}", (*keys, field, str(name))))
        if len(stack) - mark > 1:  # visit the children in document order
            stack[mark:] = stack[mark:][::-1]


def _missing(field: object, fields: Fields, path: str, keys: tuple[str, ...], key: str, release: str,
             out: list[FieldProblem]) -> None:
    """Append the problem of *field*, unknown in *release* (saying where it exists if elsewhere)."""
    shown = field if isinstance(field, str) and len(field) <= 100 else bounded_repr(field)
    where = f"{path}.{shown}" if path else str(shown)
    message = f"unknown field {shown!r}" if isinstance(field, str) else f"unknown field {shown}"
    suggestion = _suggest(field, fields) if isinstance(field, str) else None
    if isinstance(field, str):
        elsewhere = _releases_with(key, (*keys, field))
        if elsewhere:
            message = (f"{_field_path((*keys, field))} exists {_span(elsewhere)}; "
                       f"this load emulates {release}")
            suggestion = None
    out.append(FieldProblem(where, message, suggestion))


def field_problems(manifest: Mapping[str, Any], kubernetes_version: str | None = None) -> list[FieldProblem]:
    """The fields of one manifest the API server of *kubernetes_version* (default: the newest
    release schedframe emulates; ``"1.34"`` or ``"v1.34.2"``) does not know, and its resource
    names that are neither standard nor qualified with a domain. Paths are relative to the
    manifest (``spec.nodeSelecter``). A manifest of a kind without a field tree (see
    :func:`~schedframe.load_manifests`) has no problems.

    Raises:
        TypeError: *manifest* is not a mapping, or *kubernetes_version* not a string.
        ValueError: a release schedframe does not emulate.

    .. versionadded:: 0.1.0
    """
    if not isinstance(manifest, Mapping):
        raise TypeError("field_problems() argument 'manifest' must be a mapping, "
                        f"got {type(manifest).__name__}")
    release = normalise_release(kubernetes_version)
    kind = manifest.get("kind")
    out: list[FieldProblem] = []
    if isinstance(kind, str):
        from .kinds import KINDS  # kinds imports every reader

        info = KINDS.by_kind(kind, manifest.get("apiVersion"))
        check_document(manifest, kind, release, "", out, info.api_versions[0] if info else None)
    return out
