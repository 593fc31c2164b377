"""Label and node selectors and affinity: the value objects (with the label-key and operator
checks kube's validation applies) the filters and scorers match against. Re-exported by
:mod:`schedframe.api.objects`; imports only ``_names`` and ``frozendict``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, final

import attrs

from ._names import is_label_key as _is_label_key
from ._names import is_label_value as _is_label_value
from .frozendict import FrozenDict, str_map
from .frozendict import as_tuple as _tuple

__all__ = [
    "Affinity",
    "LabelSelector",
    "LabelSelectorRequirement",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PreferredSchedulingTerm",
    "WeightedPodAffinityTerm",
]


# --------------------------------------------------------------------------------------------
# Selectors

_LABEL_OPS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
_NODE_OPS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})


@final
@attrs.frozen
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry of a label selector (In, NotIn, Exists, DoesNotExist)."""

    __module__ = "schedframe.api"

    key: str
    operator: str = attrs.field(validator=attrs.validators.in_(_LABEL_OPS))
    values: tuple[str, ...] = attrs.field(default=(), converter=_tuple)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Kubernetes ``labels.Requirement.Matches``: NotIn and DoesNotExist match an absent key."""
        op = self.operator
        if op == "In":
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == "NotIn":
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == "Exists":
            return self.key in labels
        return self.key not in labels


@final
@attrs.frozen
class LabelSelector:
    """A Kubernetes ``metav1.LabelSelector``.

    An empty selector (no labels, no expressions) matches every object; where a field may be
    absent, schedframe uses ``None`` for "no selector", which matches nothing.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    match_labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    match_expressions: tuple[LabelSelectorRequirement, ...] = attrs.field(default=(), converter=_tuple)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when *labels* satisfy every requirement (all of them, as Kubernetes ANDs them)."""
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        return True

    def is_empty(self) -> bool:
        """True for ``{}``, which matches everything."""
        return not self.match_labels and not self.match_expressions

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> LabelSelector:
        """The selector ``matchLabels: labels`` (how Services and RCs select)."""
        return cls(match_labels=labels)


_GO_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_DECIMAL_INT_RE: Final = re.compile(r"0|-?[1-9][0-9]*")
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


def _int64_spelled(value: str, spelling: re.Pattern[str]) -> int | None:
    """*value* as an int64 when it is spelled as *spelling* allows, else ``None``."""
    if not spelling.fullmatch(value):
        return None
    n = int(value)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def parse_int64(value: str) -> int | None:
    """Go ``strconv.ParseInt(value, 10, 64)``, or ``None`` where it fails (the plugins' taint
    and node affinity helpers parse ``Gt`` / ``Lt`` values with it too)."""
    return _int64_spelled(value, _GO_INT_RE)


def _parse_decimal_int64(value: str) -> int | None:
    """A canonical decimal integer (``content.IsDecimalInteger``: no ``+``, no leading zeros)."""
    return _int64_spelled(value, _DECIMAL_INT_RE)


def _label_requirement_valid(key: str, op: str, values: tuple[str, ...]) -> bool:
    """Kubernetes ``labels.NewRequirement`` would accept (key, op, values) without error."""
    if not _is_label_key(key):
        return False
    if op in ("In", "NotIn"):
        if not values:
            return False
    elif op in ("Exists", "DoesNotExist"):
        if values:
            return False
    elif op in ("Gt", "Lt"):
        if len(values) != 1 or parse_int64(values[0]) is None:
            return False
    else:
        return False
    return all(_is_label_value(v) for v in values)


@final
@attrs.frozen
class NodeSelectorRequirement:
    """One node-selector requirement: In, NotIn, Exists, DoesNotExist, Gt, Lt."""

    __module__ = "schedframe.api"

    key: str
    operator: str = attrs.field(validator=attrs.validators.in_(_NODE_OPS))
    values: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    _valid: bool = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_valid", _label_requirement_valid(self.key, self.operator, self.values))

    def is_valid(self) -> bool:
        """Whether Kubernetes' ``labels.NewRequirement`` accepts this requirement as a label
        requirement: a valid label key, valid label values, values for In / NotIn, none for
        Exists / DoesNotExist, exactly one integer for Gt / Lt."""
        return self._valid

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Evaluate against node labels, as Kubernetes' ``labels.Requirement`` does."""
        op = self.operator
        if op == "In":
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == "NotIn":
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        v = labels.get(self.key)
        if v is None or len(self.values) != 1:
            return False
        have = parse_int64(v)
        want = parse_int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want


@final
@attrs.frozen
class NodeSelectorTerm:
    """A node-selector term: its expressions (on labels) and fields (on ``metadata.name``) ANDed.

    A term with neither matches no node.
    """

    __module__ = "schedframe.api"

    match_expressions: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_tuple)
    match_fields: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_tuple)

    def is_valid(self) -> bool:
        """Whether Kubernetes parses this term without error: every expression a valid label
        requirement, every field requirement ``In`` / ``NotIn`` with exactly one value."""
        for req in self.match_expressions:
            if not req.is_valid():
                return False
        for req in self.match_fields:
            if req.operator not in ("In", "NotIn") or len(req.values) != 1:
                return False
        return True

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Kubernetes' ``nodeaffinity`` term evaluation, including its invalid-term rules.

        An empty term and a term that fails to parse match no node. Field requirements are
        evaluated against the node's fields, of which only ``metadata.name`` exists (any other
        key reads as ``""``); like upstream they are skipped for a node without a name.
        """
        if not self.match_expressions and not self.match_fields:
            return False
        if not self.is_valid():
            return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        if node_name:
            for req in self.match_fields:
                have = node_name if req.key == "metadata.name" else ""
                if (have == req.values[0]) != (req.operator == "In"):
                    return False
        return True


@final
@attrs.frozen
class NodeSelector:
    """``requiredDuringSchedulingIgnoredDuringExecution`` of a node affinity: terms ORed."""

    __module__ = "schedframe.api"

    terms: tuple[NodeSelectorTerm, ...] = attrs.field(default=(), converter=_tuple)

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """True when any term matches."""
        for term in self.terms:
            if term.matches(node_name, labels):
                return True
        return False


@final
@attrs.frozen
class PreferredSchedulingTerm:
    """A weighted node-selector term of preferred node affinity."""

    __module__ = "schedframe.api"

    weight: int
    preference: NodeSelectorTerm


@final
@attrs.frozen
class NodeAffinity:
    """Node affinity: a required selector and weighted preferred terms."""

    __module__ = "schedframe.api"

    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class PodAffinityTerm:
    """A pod (anti-)affinity term.

    ``label_selector=None`` matches no pod. ``namespaces`` empty and ``namespace_selector=None``
    means the incoming pod's own namespace; an empty ``namespace_selector`` means all namespaces.
    """

    __module__ = "schedframe.api"

    topology_key: str
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    mismatch_label_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class WeightedPodAffinityTerm:
    """A preferred pod (anti-)affinity term with its weight (1-100)."""

    __module__ = "schedframe.api"

    weight: int
    term: PodAffinityTerm


@attrs.frozen
class _PodAffinityTerms:
    """The fields pod affinity and pod anti-affinity share: required and preferred terms."""

    required: tuple[PodAffinityTerm, ...] = attrs.field(default=(), converter=_tuple)
    preferred: tuple[WeightedPodAffinityTerm, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class PodAffinity(_PodAffinityTerms):
    """Pod affinity: required and preferred terms."""

    __module__ = "schedframe.api"


@final
@attrs.frozen
class PodAntiAffinity(_PodAffinityTerms):
    """Pod anti-affinity: required and preferred terms."""

    __module__ = "schedframe.api"


@final
@attrs.frozen
class Affinity:
    """A pod's ``spec.affinity``."""

    __module__ = "schedframe.api"

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None
