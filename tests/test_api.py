"""The api value objects: selectors, tolerations, pod requests, Resources.

Cases are ported from k8s.io/apimachinery (labels selector tests), component-helpers
(nodeaffinity_test.go, resource/helpers_test.go), k8s.io/api (toleration_test.go) and the
scheduler's non-zero request handling (PodInfo.CalculateResource).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import Pod
from schedframe.api import (
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    Quantity,
    Resources,
    Taint,
    Toleration,
)
from schedframe.api.objects import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, requests_of

MI = 1024 * 1024
GI = 1024 * MI

# --------------------------------------------------------------------------------------------
# LabelSelector


def req(key: str, op: str, *values: str) -> LabelSelectorRequirement:
    return LabelSelectorRequirement(key, op, values)


@pytest.mark.parametrize(
    ("selector", "labels", "want"),
    [
        pytest.param(LabelSelector(), {}, True, id="empty selector matches no labels"),
        pytest.param(LabelSelector(), {"a": "b"}, True, id="empty selector matches everything"),
        pytest.param(LabelSelector({"x": "y"}), {"x": "y"}, True, id="matchLabels equal"),
        pytest.param(LabelSelector({"x": "y"}), {"x": "y", "z": "w"}, True, id="matchLabels subset"),
        pytest.param(LabelSelector({"x": "y"}), {"x": "z"}, False, id="matchLabels other value"),
        pytest.param(LabelSelector({"x": "y"}), {}, False, id="matchLabels absent key"),
        pytest.param(LabelSelector({"x": ""}), {"x": ""}, True, id="matchLabels empty value"),
        pytest.param(LabelSelector({"x": ""}), {}, False, id="matchLabels empty value, absent key"),
        pytest.param(LabelSelector({"x": "y", "a": "b"}), {"x": "y"}, False, id="matchLabels all needed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "In", "foo", "bar")]), {"x": "foo"}, True,
                     id="In, value listed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "In", "foo", "bar")]), {"x": "baz"}, False,
                     id="In, value not listed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "In", "foo")]), {"y": "foo"}, False,
                     id="In, absent key"),
        pytest.param(LabelSelector(match_expressions=[req("x", "In", "")]), {"x": ""}, True,
                     id="In, empty value listed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "NotIn", "foo")]), {"x": "foo"}, False,
                     id="NotIn, value listed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "NotIn", "foo")]), {"x": "bar"}, True,
                     id="NotIn, value not listed"),
        pytest.param(LabelSelector(match_expressions=[req("x", "NotIn", "foo")]), {}, True,
                     id="NotIn, absent key matches"),
        pytest.param(LabelSelector(match_expressions=[req("x", "Exists")]), {"x": ""}, True,
                     id="Exists, empty value"),
        pytest.param(LabelSelector(match_expressions=[req("x", "Exists")]), {"y": "x"}, False,
                     id="Exists, absent key"),
        pytest.param(LabelSelector(match_expressions=[req("x", "DoesNotExist")]), {"x": "a"}, False,
                     id="DoesNotExist, present"),
        pytest.param(LabelSelector(match_expressions=[req("x", "DoesNotExist")]), {}, True,
                     id="DoesNotExist, absent key matches"),
        pytest.param(LabelSelector({"a": "b"}, [req("x", "Exists"), req("y", "NotIn", "1")]),
                     {"a": "b", "x": "", "y": "2"}, True, id="labels and expressions ANDed"),
        pytest.param(LabelSelector({"a": "b"}, [req("x", "Exists"), req("y", "NotIn", "1")]),
                     {"a": "b", "x": "", "y": "1"}, False, id="one failing expression fails all"),
    ],
)
def test_label_selector_matches(selector: LabelSelector, labels: Mapping[str, str], want: bool) -> None:
    """LabelSelector.matches follows labels.Selector semantics for every operator."""
    assert selector.matches(labels) is want


def test_label_selector_helpers() -> None:
    """is_empty() is true only for {}; from_labels() builds a matchLabels selector."""
    assert LabelSelector().is_empty()
    assert not LabelSelector({"a": "b"}).is_empty()
    assert not LabelSelector(match_expressions=[req("a", "Exists")]).is_empty()
    assert LabelSelector.from_labels({"app": "web"}) == LabelSelector({"app": "web"})


def test_label_selector_requirement_rejects_node_operators() -> None:
    """A label selector requirement accepts only In, NotIn, Exists and DoesNotExist."""
    with pytest.raises(ValueError, match="operator"):
        LabelSelectorRequirement("x", "Gt", ("1",))


# --------------------------------------------------------------------------------------------
# NodeSelector (component-helpers nodeaffinity)


def nreq(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def nf(op: str, *values: str) -> NodeSelectorRequirement:
    """A matchFields requirement on metadata.name."""
    return NodeSelectorRequirement("metadata.name", op, values)


def term(*exprs: NodeSelectorRequirement,
         fields: tuple[NodeSelectorRequirement, ...] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(exprs, fields)


@pytest.mark.parametrize(
    ("requirement", "valid"),
    [
        pytest.param(nreq("foo", "In", "bar", "baz"), True, id="In with values"),
        pytest.param(nreq("foo", "In"), False, id="In without values"),
        pytest.param(nreq("foo", "NotIn"), False, id="NotIn without values"),
        pytest.param(nreq("foo", "Exists"), True, id="Exists"),
        pytest.param(nreq("foo", "Exists", "bar", "baz"), False, id="Exists with values"),
        pytest.param(nreq("foo", "DoesNotExist", "bar"), False, id="DoesNotExist with values"),
        pytest.param(nreq("foo", "Gt", "1"), True, id="Gt 1"),
        pytest.param(nreq("bar", "Lt", "7"), True, id="Lt 7"),
        pytest.param(nreq("bar", "Lt", "0204"), True, id="Lt with leading zero"),
        pytest.param(nreq("bar", "Gt", "a"), False, id="Gt non-integer"),
        pytest.param(nreq("bar", "Gt", "1", "2"), False, id="Gt two values"),
        pytest.param(nreq("bar", "Gt"), False, id="Gt no value"),
        pytest.param(nreq("bar", "Gt", "1.5"), False, id="Gt decimal"),
        pytest.param(nreq("bar", "Gt", "9223372036854775808"), False, id="Gt beyond int64"),
        # "-1" parses as an integer but is not a valid label value, so NewRequirement fails
        pytest.param(nreq("bar", "Gt", "-1"), False, id="Gt negative is not a label value"),
        pytest.param(nreq("invalid key", "In", "v"), False, id="invalid key"),
        pytest.param(nreq("", "Exists"), False, id="empty key"),
        pytest.param(nreq("example.com/gpu", "Exists"), True, id="prefixed key"),
        pytest.param(nreq("Example.com/gpu", "Exists"), False, id="uppercase prefix"),
        pytest.param(nreq("/gpu", "Exists"), False, id="empty prefix"),
        pytest.param(nreq("a/b/c", "Exists"), False, id="two slashes"),
        pytest.param(nreq("k" * 63, "Exists"), True, id="63-character name"),
        pytest.param(nreq("k" * 64, "Exists"), False, id="64-character name"),
        pytest.param(nreq("foo", "NotIn", "invalid value: ___@#$%^"), False, id="invalid value"),
        pytest.param(nreq("foo", "In", ""), True, id="empty value is a valid label value"),
        pytest.param(nreq("foo", "In", "v" * 64), False, id="64-character value"),
    ],
)
def test_node_selector_requirement_validity(requirement: NodeSelectorRequirement, valid: bool) -> None:
    """is_valid() follows labels.NewRequirement (TestNodeSelectorRequirementsAsSelector and more)."""
    assert requirement.is_valid() is valid


@pytest.mark.parametrize(
    ("requirement", "labels", "want"),
    [
        pytest.param(nreq("kernel-version", "Gt", "0204"), {"kernel-version": "0206"}, True,
                     id="Gt with leading zeros"),
        pytest.param(nreq("x", "Gt", "1"), {"x": "1"}, False, id="Gt equal"),
        pytest.param(nreq("x", "Gt", "1"), {"x": "2"}, True, id="Gt greater"),
        pytest.param(nreq("x", "Lt", "7"), {"x": "-3"}, True, id="Lt negative label"),
        pytest.param(nreq("x", "Lt", "7"), {"x": "7"}, False, id="Lt equal"),
        pytest.param(nreq("x", "Gt", "1"), {"x": "abc"}, False, id="Gt non-integer label"),
        pytest.param(nreq("x", "Gt", "1"), {"x": "+5"}, True, id="Gt label with plus sign"),
        pytest.param(nreq("x", "Gt", "1"), {}, False, id="Gt absent key"),
        pytest.param(nreq("x", "Lt", "1"), {}, False, id="Lt absent key"),
        pytest.param(nreq("x", "Gt", "a"), {"x": "5"}, False, id="Gt non-integer value"),
        pytest.param(nreq("x", "Gt", "1", "2"), {"x": "5"}, False, id="Gt two values"),
        pytest.param(nreq("mem-type", "NotIn", "DDR", "DDR2"), {"mem-type": "DDR3"}, True, id="NotIn"),
        pytest.param(nreq("GPU", "Exists"), {"GPU": "NVIDIA-GRID-K1"}, True, id="Exists"),
        pytest.param(nreq("GPU", "DoesNotExist"), {"GPU": "x"}, False, id="DoesNotExist"),
        pytest.param(nreq("foo", "In", "value1", "value2"), {"foo": "bar"}, False, id="In other value"),
    ],
)
def test_node_selector_requirement_matches(requirement: NodeSelectorRequirement, labels: Mapping[str, str],
                                           want: bool) -> None:
    """A requirement evaluates against labels like labels.Requirement.Matches (Gt/Lt as int64)."""
    assert requirement.matches(labels) is want


@pytest.mark.parametrize(
    ("selector", "node_name", "labels", "want"),
    [
        # TestNodeSelectorMatch
        pytest.param(
            NodeSelector([term(nreq("label_1", "In", "label_1_val"),
                               fields=(nf("In", "host_1"),))]),
            "host_1", {}, False, id="node matches field selector, but not labels"),
        pytest.param(
            NodeSelector([term(nreq("label_1", "In", "label_1_val"),
                               fields=(nf("In", "host_1"),))]),
            "host_1", {"label_1": "label_1_val"}, True, id="node matches field selector and label selector"),
        pytest.param(
            NodeSelector([term(nreq("label_1", "In", "label_1_val")),
                          term(fields=(nf("In", "host_1"),))]),
            "host_1", {}, True, id="second term matches"),
        pytest.param(
            NodeSelector([term(fields=(nf("In", "host_1", "host_2"),)),
                          term(nreq("invalid key", "In", "label_value"))]),
            "host_1", {"invalid key": "label_value"}, False, id="invalid terms match nothing"),
        pytest.param(
            NodeSelector([term(fields=(nf("In", "host_1", "host_2"),)),
                          term(nreq("label_1", "In", "label_1_val"))]),
            "host_1", {"label_1": "label_1_val"}, True, id="an invalid term does not stop a valid one"),
        # TestPodMatchesNodeSelectorAndAffinityTerms (the node-affinity part)
        pytest.param(NodeSelector([term(nreq("foo", "In", "bar", "value2"))]), "", {"foo": "bar"}, True,
                     id="In matches the existing node"),
        pytest.param(NodeSelector([term(nreq("kernel-version", "Gt", "0204"))]), "",
                     {"kernel-version": "0206"}, True, id="Gt matches the existing node"),
        pytest.param(NodeSelector([term(nreq("mem-type", "NotIn", "DDR", "DDR2"))]), "",
                     {"mem-type": "DDR3"}, True, id="NotIn matches the existing node"),
        pytest.param(NodeSelector([term(nreq("GPU", "Exists"))]), "", {"GPU": "NVIDIA-GRID-K1"}, True,
                     id="Exists matches the existing node"),
        pytest.param(NodeSelector([term(nreq("foo", "In", "value1", "value2"))]), "", {"foo": "bar"}, False,
                     id="affinity that doesn't match node's labels"),
        pytest.param(NodeSelector(), "", {"foo": "bar"}, False, id="no terms match nothing"),
        pytest.param(NodeSelector([NodeSelectorTerm()]), "", {"foo": "bar"}, False,
                     id="empty term matches nothing"),
        pytest.param(NodeSelector([term(nreq("GPU", "Exists"), nreq("GPU", "NotIn", "AMD", "INTER"))]), "",
                     {"GPU": "NVIDIA-GRID-K1"}, True, id="expressions ANDed, all match"),
        pytest.param(NodeSelector([term(nreq("GPU", "Exists"), nreq("GPU", "In", "AMD", "INTER"))]), "",
                     {"GPU": "NVIDIA-GRID-K1"}, False, id="expressions ANDed, one fails"),
        pytest.param(NodeSelector([term(nreq("foo", "In", "bar", "value2")),
                                   term(nreq("diffkey", "In", "wrong", "value2"))]), "",
                     {"foo": "bar"}, True, id="terms ORed"),
        pytest.param(NodeSelector([term(nreq("foo", "NotIn", "invalid value: ___@#$%^"))]), "",
                     {"foo": "bar"}, False, id="invalid value in affinity term"),
        pytest.param(NodeSelector([term(fields=(nf("In", "node_1"),))]), "node_1", {}, True,
                     id="matchFields In matches the node"),
        pytest.param(NodeSelector([term(fields=(nf("In", "node_1"),))]), "node_2", {}, False,
                     id="matchFields In does not match another node"),
        pytest.param(NodeSelector([term(fields=(nf("In", "node_1"),)),
                                   term(nreq("foo", "In", "bar"))]), "node_2", {"foo": "bar"}, True,
                     id="two terms: fields fail, expressions match"),
        pytest.param(NodeSelector([term(nreq("foo", "In", "bar"), fields=(nf("In", "node_1"),))]),
                     "node_2", {"foo": "bar"}, False, id="one term: fields fail, expressions match"),
        pytest.param(NodeSelector([term(nreq("foo", "In", "bar"), fields=(nf("In", "node_1"),))]),
                     "node_1", {"foo": "bar"}, True, id="one term: both match"),
        pytest.param(NodeSelector([term(fields=(nf("In", "node_1"),)),
                                   term(nreq("foo", "In", "not-match-to-bar"))]),
                     "node_2", {"foo": "bar"}, False, id="two terms: neither matches"),
        # field selector details
        pytest.param(NodeSelector([term(fields=(nf("NotIn", "node_1"),))]), "node_2", {}, True,
                     id="matchFields NotIn"),
        pytest.param(NodeSelector([term(fields=(nreq("metadata.uid", "In", "x"),))]), "node_1", {}, False,
                     id="matchFields on a field nodes lack"),
        pytest.param(NodeSelector([term(fields=(nreq("metadata.uid", "NotIn", "x"),))]), "node_1", {}, True,
                     id="matchFields NotIn on a field nodes lack"),
        pytest.param(NodeSelector([term(fields=(nf("Exists"),))]), "node_1", {}, False,
                     id="matchFields Exists is not supported"),
        pytest.param(NodeSelector([term(fields=(nf("In", "node_1"),))]), "", {}, True,
                     id="matchFields skipped for a node without a name"),
    ],
)
def test_node_selector_matches(selector: NodeSelector, node_name: str, labels: Mapping[str, str],
                               want: bool) -> None:
    """NodeSelector.matches ORs terms, ANDs requirements and treats invalid terms as no match."""
    assert selector.matches(node_name, labels) is want


def test_preferred_terms_score() -> None:
    """TestPreferredSchedulingTermsScore: the weights of the matching terms add up."""
    prefs = [
        PreferredSchedulingTerm(5, term(fields=(nf("In", "host_1"),))),
        PreferredSchedulingTerm(7, term(nreq("unknown_label", "In", "unknown_label_val"))),
        PreferredSchedulingTerm(11, term(nreq("label_1", "In", "label_1_val"))),
    ]
    labels = {"label_1": "label_1_val"}
    assert sum(p.weight for p in prefs if p.preference.matches("host_1", labels)) == 16


def test_node_selector_requirement_rejects_unknown_operator() -> None:
    """A node selector requirement's operator is one of the six Kubernetes knows."""
    with pytest.raises(ValueError, match="operator"):
        NodeSelectorRequirement("x", "Equals", ("1",))


def test_node_selector_requirement_validity_survives_evolve() -> None:
    """The cached validity is recomputed for derived requirements and ignored by ==."""
    valid = nreq("x", "Gt", "1")
    invalid = attrs.evolve(valid, values=("a",))
    assert valid.is_valid()
    assert not invalid.is_valid()
    assert invalid == nreq("x", "Gt", "a")


# --------------------------------------------------------------------------------------------
# Tolerations (k8s.io/api core/v1 toleration_test.go)


@pytest.mark.parametrize(
    ("toleration", "taint", "want"),
    [
        pytest.param(Toleration("foo", "Exists", effect="NoSchedule"), Taint("foo", "NoSchedule"), True,
                     id="same key and effect, Exists, taint without value"),
        pytest.param(Toleration("foo", "Exists", effect="NoSchedule"), Taint("foo", "NoSchedule", "bar"),
                     True, id="same key and effect, Exists, taint with value"),
        pytest.param(Toleration("", "Exists", effect="NoSchedule"), Taint("foo", "NoSchedule", "bar"), True,
                     id="empty key with Exists matches every key"),
        pytest.param(Toleration("foo", "Equal", "bar", "NoSchedule"), Taint("foo", "NoSchedule", "bar"), True,
                     id="same key, effect and value, Equal"),
        pytest.param(Toleration("foo", "Equal", "value1", "NoSchedule"), Taint("foo", "NoSchedule", "value2"),
                     False, id="different values, Equal"),
        pytest.param(Toleration("foo", "Equal", "bar", "NoSchedule"), Taint("foo", "NoExecute", "bar"), False,
                     id="different effects"),
        pytest.param(Toleration("foo", "", "bar"), Taint("foo", "NoExecute", "bar"), True,
                     id="empty operator means Equal, empty effect matches all"),
        pytest.param(Toleration("foo", "", "bar"), Taint("foo", "NoExecute", "baz"), False,
                     id="empty operator means Equal"),
        pytest.param(Toleration("", "Exists"), Taint("anything", "PreferNoSchedule", "x"), True,
                     id="empty key and effect with Exists tolerates everything"),
        pytest.param(Toleration("other", "Exists"), Taint("foo", "NoSchedule"), False, id="different key"),
        pytest.param(Toleration("foo", "Gt", "950", "NoSchedule"), Taint("foo", "NoSchedule", "800"), False,
                     id="Gt, taint value less than toleration value"),
        pytest.param(Toleration("foo", "Gt", "750", "NoSchedule"), Taint("foo", "NoSchedule", "950"), True,
                     id="Gt, taint value greater than toleration value"),
        pytest.param(Toleration("foo", "Lt", "800", "NoSchedule"), Taint("foo", "NoSchedule", "950"), False,
                     id="Lt, taint value greater than toleration value"),
        pytest.param(Toleration("foo", "Lt", "950", "NoSchedule"), Taint("foo", "NoSchedule", "800"), True,
                     id="Lt, taint value less than toleration value"),
        pytest.param(Toleration("foo", "Gt", "950", "NoSchedule"), Taint("foo", "NoSchedule", "950"), False,
                     id="Gt, equal values"),
        pytest.param(Toleration("foo", "Gt", "950", "NoSchedule"), Taint("foo", "NoSchedule", "high"), False,
                     id="Gt, non-numeric taint value"),
        pytest.param(Toleration("foo", "Gt", "-100", "NoSchedule"), Taint("foo", "NoSchedule", "-200"), False,
                     id="Gt, negative values"),
        pytest.param(Toleration("foo", "Gt", "9223372036854775806", "NoSchedule"),
                     Taint("foo", "NoSchedule", "100"), False, id="Gt, large int64 threshold"),
        pytest.param(Toleration("foo", "Gt", "1"), Taint("foo", "NoSchedule", "007"), False,
                     id="Gt, value with leading zeros is not a decimal integer"),
        pytest.param(Toleration("foo", "Gt", "+1"), Taint("foo", "NoSchedule", "5"), False,
                     id="Gt, threshold with plus sign is not a decimal integer"),
        pytest.param(Toleration("foo", "Equals", "bar"), Taint("foo", "NoSchedule", "bar"), False,
                     id="unknown operator"),
    ],
)
def test_toleration_tolerates(toleration: Toleration, taint: Taint, want: bool) -> None:
    """Toleration.tolerates follows Toleration.ToleratesTaint, including Lt/Gt."""
    assert toleration.tolerates(taint) is want


@pytest.mark.parametrize(
    ("taint", "text"),
    [
        pytest.param(Taint("k", "NoSchedule"), "k:NoSchedule", id="no value"),
        pytest.param(Taint("k", "NoExecute", "v"), "k=v:NoExecute", id="with value"),
    ],
)
def test_taint_str(taint: Taint, text: str) -> None:
    """str(Taint) is kubectl's key[=value]:effect."""
    assert str(taint) == text


# --------------------------------------------------------------------------------------------
# Pod requests (component-helpers resource/helpers_test.go)


def c(requests: Mapping[str, str] | None = None, *, sidecar: bool = False,
      limits: Mapping[str, str] | None = None) -> Container:
    return Container(requests=requests or {}, limits=limits or {},
                     restart_policy="Always" if sidecar else None)


def pod(containers: tuple[Container, ...] = (), init: tuple[Container, ...] = (),
        overhead: Mapping[str, str] | None = None, resources: Mapping[str, str] | None = None) -> Pod:
    return Pod("p", containers=containers, init_containers=init, overhead=overhead or {},
               resources=resources or {})


def res(scalar: Mapping[str, int] | None = None, **values: int) -> Resources:
    return Resources(**values, scalar=scalar or {})


@pytest.mark.parametrize(
    ("the_pod", "want"),
    [
        # TestPodRequestsAndLimits (getPod puts the same resources on a container and an init container)
        pytest.param(pod((c(limits={"cpu": "9"}),), (c(limits={"cpu": "9"}),)), Resources(),
                     id="just-limit-no-overhead"),
        pytest.param(pod((c(),), (c(),), overhead={"cpu": "5", "memory": "5"}),
                     res(milli_cpu=5000, memory=5), id="just-overhead"),
        pytest.param(pod((c({"cpu": "1", "memory": "10"}),), (c({"cpu": "1", "memory": "10"}),),
                         overhead={"cpu": "5", "memory": "5"}),
                     res(milli_cpu=6000, memory=15), id="req-and-overhead"),
        # TestPodRequestsAndLimitsWithoutOverhead, with the overhead added back
        pytest.param(pod((c({"cpu": "1", "memory": "5"}), c({"cpu": "4", "memory": "12"})),
                         overhead={"cpu": "3", "memory": "8"}),
                     res(milli_cpu=8000, memory=25), id="two containers plus overhead"),
        pytest.param(pod((c({"cpu": "1", "memory": "5"}), c({"cpu": "4", "memory": "12"})),
                         (c({"cpu": "1", "memory": "5"}), c({"cpu": "40", "memory": "120"}))),
                     res(milli_cpu=40000, memory=120), id="massive init container wins"),
        # TestPodResourceRequests
        pytest.param(pod((c({"cpu": "1"}),), (c({"cpu": "4"}),)), res(milli_cpu=4000),
                     id="larger init container"),
        pytest.param(pod((c({"cpu": "2"}), c({"cpu": "3"})), (c({"cpu": "2"}),)), res(milli_cpu=5000),
                     id="larger containers"),
        pytest.param(pod((c({"cpu": "2"}), c({"cpu": "3"})), (c({"cpu": "2"}),),
                         overhead={"cpu": "1", "memory": "1Gi"}),
                     res(milli_cpu=6000, memory=GI), id="pod overhead included"),
        pytest.param(pod((c({"cpu": "1"}),), (c({"cpu": "1"}, sidecar=True),)), res(milli_cpu=2000),
                     id="restartable init container"),
        pytest.param(pod((c({"cpu": "1"}),), (c({"cpu": "5"}), c({"cpu": "1"}, sidecar=True),
                                              c({"cpu": "2"}, sidecar=True), c({"cpu": "3"}, sidecar=True))),
                     res(milli_cpu=7000), id="multiple restartable init containers"),
        pytest.param(pod((c({"cpu": "1"}),), (c({"cpu": "5"}), c({"cpu": "1"}, sidecar=True),
                                              c({"cpu": "2"}, sidecar=True), c({"cpu": "5"}),
                                              c({"cpu": "3"}, sidecar=True))),
                     res(milli_cpu=8000), id="multiple restartable and regular init containers"),
        pytest.param(pod((c({"cpu": "100"}),), (c({"cpu": "10"}, sidecar=True), c({"cpu": "200"}))),
                     res(milli_cpu=210000), id="restartable-init, init and regular"),
        # TestPodLevelResourceRequests
        pytest.param(pod(), Resources(), id="nil"),
        pytest.param(pod(resources={"memory": "2Mi"}), res(memory=2 * MI), id="pod level memory"),
        pytest.param(pod((c({"cpu": "2m"}),), resources={"memory": "2Mi"}), res(milli_cpu=2, memory=2 * MI),
                     id="pod level memory and container level cpu"),
        pytest.param(pod((c({"storage": "3Mi"}),), resources={"storage": "2Mi"}),
                     res(scalar={"storage": 3 * MI}), id="unsupported resource at both levels"),
        pytest.param(pod((c({"memory": "3Mi"}),), resources={"storage": "2Mi"}), res(memory=3 * MI),
                     id="unsupported resource at pod level"),
        pytest.param(pod((c({"memory": "3Mi", "cpu": "2m"}),), resources={"memory": "6Mi", "cpu": "8m"}),
                     res(milli_cpu=8, memory=6 * MI), id="pod level overrides containers"),
        pytest.param(pod((c({"memory": "3Mi", "cpu": "2m"}),), (c({"memory": "5Mi", "cpu": "4m"}),)),
                     res(milli_cpu=4, memory=5 * MI), id="container-level resources and init container"),
        pytest.param(pod((c({"memory": "3Mi", "cpu": "2m"}),),
                         (c({"memory": "5Mi", "cpu": "4m"}, sidecar=True),)),
                     res(milli_cpu=6, memory=8 * MI), id="container-level resources and sidecar"),
        pytest.param(pod((c({"memory": "3Mi", "cpu": "2m"}),),
                         (c({"memory": "5Mi", "cpu": "4m"}, sidecar=True),
                          c({"memory": "6Mi", "cpu": "8m"}))),
                     res(milli_cpu=12, memory=11 * MI), id="container-level resources, init and sidecar"),
        pytest.param(pod((c({"memory": "3Mi", "cpu": "2m"}),),
                         (c({"memory": "5Mi", "cpu": "4m"}, sidecar=True),
                          c({"memory": "6Mi", "cpu": "8m"})),
                         resources={"memory": "15Mi", "cpu": "18m"}),
                     res(milli_cpu=18, memory=15 * MI), id="pod-level, container-level, init and sidecar"),
        pytest.param(pod((c({"hugepages-2Mi": "4Mi"}),), resources={"hugepages-2Mi": "8Mi"}),
                     res(scalar={"hugepages-2Mi": 8 * MI}), id="pod level hugepages override containers"),
        pytest.param(pod((c({"cpu": "1"}),), resources={"cpu": "2"}, overhead={"cpu": "250m"}),
                     res(milli_cpu=2250), id="overhead on top of pod-level requests"),
        # TestAggregateContainerRequestsAndLimits
        pytest.param(pod((c({"cpu": "9"}), c({"cpu": "9"}))), res(milli_cpu=18000), id="two containers"),
        pytest.param(pod((c({"cpu": "9"}),), (c({"cpu": "9"}),)), res(milli_cpu=9000),
                     id="regular and init containers"),
        pytest.param(pod((c({"cpu": "9"}),), (c({"cpu": "8"}, sidecar=True), c({"cpu": "6"}))),
                     res(milli_cpu=17000), id="regular, init and sidecar containers"),
        # rounding happens once, on the pod's total
        pytest.param(pod((c({"cpu": "0.5m"}), c({"cpu": "0.5m"}))), res(milli_cpu=1), id="sum then round"),
        pytest.param(pod((c({"memory": "1.5"}),)), res(memory=2), id="memory rounds up"),
        pytest.param(pod((c({"nvidia.com/gpu": "1", "ephemeral-storage": "1Gi", "pods": "1"}),)),
                     res(ephemeral_storage=GI, pods=1, scalar={"nvidia.com/gpu": 1}), id="other resources"),
    ],
)
def test_pod_requests(the_pod: Pod, want: Resources) -> None:
    """Pod.requests follows resourcehelper.PodRequests (sidecars, init max, pod level, overhead)."""
    assert the_pod.requests == want


D_CPU, D_MEM = DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST


@pytest.mark.parametrize(
    ("the_pod", "cpu", "memory"),
    [
        pytest.param(pod(), 0, 0, id="no containers"),
        pytest.param(pod((c(),)), D_CPU, D_MEM, id="no requests get the defaults"),
        pytest.param(pod((c({"cpu": "0", "memory": "0"}),)), 0, 0, id="explicit zero stays zero"),
        pytest.param(pod((c({"cpu": "500m"}),)), 500, D_MEM, id="missing memory defaulted"),
        pytest.param(pod((c({"memory": "1Gi"}),)), D_CPU, GI, id="missing cpu defaulted"),
        pytest.param(pod((c(), c({"cpu": "1"}))), D_CPU + 1000, 2 * D_MEM, id="defaults per container"),
        pytest.param(pod((c({"cpu": "1", "memory": "1Gi"}),), (c(),)), 1000, GI,
                     id="defaulted init container below the containers"),
        pytest.param(pod((c({"cpu": "50m", "memory": "1Mi"}),), (c(),)), D_CPU, D_MEM,
                     id="defaulted init container above the containers"),
        pytest.param(pod((c(),), (c(sidecar=True),)), 2 * D_CPU, 2 * D_MEM, id="defaulted sidecar adds up"),
        pytest.param(pod((c(),), overhead={"cpu": "250m", "memory": "120Mi"}), D_CPU + 250, D_MEM + 120 * MI,
                     id="overhead added to the defaults"),
        # with pod-level requests, defaults only for a resource requested nowhere
        pytest.param(pod((c(),), resources={"cpu": "2", "memory": "1Gi"}), 2000, GI,
                     id="pod-level requests need no defaults"),
        pytest.param(pod((c(), c()), resources={"memory": "1Gi"}), 2 * D_CPU, GI,
                     id="pod-level memory, cpu requested nowhere"),
        pytest.param(pod((c({"cpu": "100m"}), c()), resources={"memory": "1Gi"}), 100, GI,
                     id="pod-level memory, cpu requested by one container"),
        pytest.param(pod((c(),), resources={"memory": "1Gi"}, overhead={"cpu": "10m"}), 10, GI,
                     id="pod-level memory, cpu only in the overhead"),
        pytest.param(pod((c(),), resources={"hugepages-2Mi": "2Mi"}), D_CPU, D_MEM,
                     id="pod-level hugepages only"),
        pytest.param(pod((c(),), resources={"ephemeral-storage": "1Gi"}), D_CPU, D_MEM,
                     id="pod-level unsupported resource is ignored"),
    ],
)
def test_pod_non_zero_requests(the_pod: Pod, cpu: int, memory: int) -> None:
    """Non-zero requests for scoring follow the scheduler's CalculateResource defaults."""
    assert (the_pod.non_zero_milli_cpu, the_pod.non_zero_memory) == (cpu, memory)


def test_pod_requests_memoised_pods_are_independent() -> None:
    """Pods with identical containers share a memoised result that does not leak between shapes."""
    a = pod((c({"cpu": "1"}),))
    b = pod((c({"cpu": "1"}),))
    other = pod((c({"cpu": "1"}),), overhead={"cpu": "1"})
    assert a.requests == b.requests == res(milli_cpu=1000)
    assert other.requests == res(milli_cpu=2000)


def test_pod_conveniences() -> None:
    """key, effective_priority, host_ports and is_terminating read the obvious fields."""
    from schedframe.api import ContainerPort

    p = Pod("web", "shop", containers=[Container(ports=[ContainerPort(80, 8080), ContainerPort(81)])],
            init_containers=[Container(ports=[ContainerPort(70, 7070)]),
                             Container(ports=[ContainerPort(90, 9090)], restart_policy="Always")])
    assert p.key == "shop/web"
    assert p.effective_priority == 0
    assert attrs.evolve(p, priority=7).effective_priority == 7
    # GetHostPorts: sidecars' ports first, then the containers'; regular init containers hold none
    assert [hp.host_port for hp in p.host_ports()] == [9090, 8080]
    assert not p.is_terminating()
    assert p.evolve(deletion_timestamp=1.0).is_terminating()
    assert Pod("web", "shop").uid == p.uid != Pod("web", "other").uid


# --------------------------------------------------------------------------------------------
# Resources


def test_resources_from_list() -> None:
    """TestNewResource: a ResourceList becomes milli-CPU, bytes, pods and scalar amounts."""
    got = Resources.from_list({
        "cpu": Quantity(Fraction(4, 1000)),
        "memory": 2000,
        "pods": "80",
        "ephemeral-storage": "5000",
        "scalar.test/scalar1": "1",
        "hugepages-test": "2",
    })
    assert got == Resources(milli_cpu=4, memory=2000, ephemeral_storage=5000, pods=80,
                            scalar={"scalar.test/scalar1": 1, "hugepages-test": 2})


@pytest.mark.parametrize(
    ("values", "want"),
    [
        pytest.param(None, Resources(), id="None"),
        pytest.param({}, Resources(), id="empty"),
        pytest.param({"cpu": "1.5m"}, Resources(milli_cpu=2), id="sub-milli cpu rounds up"),
        pytest.param({"memory": "0.5"}, Resources(memory=1), id="fractional bytes round up"),
        pytest.param({"cpu": "2", "memory": "1Gi"}, Resources(milli_cpu=2000, memory=GI),
                     id="cpu and memory"),
    ],
)
def test_resources_from_list_rounding(values: Mapping[str, str] | None, want: Resources) -> None:
    """from_list rounds up like MilliValue()/Value()."""
    assert Resources.from_list(values) == want


def test_resources_arithmetic() -> None:
    """+ and - combine every field; subtraction drops scalars that reach zero."""
    a = Resources(milli_cpu=1000, memory=10, ephemeral_storage=5, pods=1, scalar={"gpu": 2, "fpga": 1})
    b = Resources(milli_cpu=500, memory=3, pods=1, scalar={"gpu": 2})
    assert a + b == Resources(1500, 13, 5, 2, {"gpu": 4, "fpga": 1})
    assert a - b == Resources(500, 7, 5, 0, {"fpga": 1})
    assert (a - a).is_zero()
    assert Resources(1, 2) + Resources(3, 4) == Resources(4, 6)
    assert Resources(1, 2) - Resources(3, 4) == Resources(-2, -2)


def test_resources_accessors() -> None:
    """get(), names() and to_list() speak Kubernetes resource names."""
    r = Resources(milli_cpu=1500, memory=GI, ephemeral_storage=0, pods=3,
                  scalar={"nvidia.com/gpu": 1, "x": 0})
    assert r.get("cpu") == 1500
    assert r.get("memory") == GI
    assert r.get("ephemeral-storage") == 0
    assert r.get("pods") == 3
    assert r.get("nvidia.com/gpu") == 1
    assert r.get("unknown") == 0
    assert r.names() == ["cpu", "memory", "pods", "nvidia.com/gpu"]
    assert r.to_list() == {"cpu": "1500m", "memory": str(GI), "pods": "3", "nvidia.com/gpu": "1"}
    assert Resources.from_list(r.to_list()) == attrs.evolve(r, scalar={"nvidia.com/gpu": 1})
    assert not r.is_zero()
    assert Resources(scalar={"x": 0}).is_zero()


def test_requests_of() -> None:
    """requests_of sums containers' requests."""
    got = requests_of([c({"cpu": "1"}), c({"cpu": "500m", "memory": "1Mi"})])
    assert got == res(milli_cpu=1500, memory=MI)


amounts = st.integers(min_value=0, max_value=10**12)
resources = st.builds(Resources, amounts, amounts, amounts, amounts,
                      st.dictionaries(st.sampled_from(["gpu", "fpga", "hugepages-2Mi"]),
                                      st.integers(min_value=1, max_value=100)))


@given(resources, resources)
def test_resources_add_sub_inverse(a: Resources, b: Resources) -> None:
    """(a + b) - b == a, and addition commutes."""
    assert (a + b) - b == a
    assert a + b == b + a


requests_maps = st.dictionaries(
    st.sampled_from(["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"]),
    st.builds(lambda n, s: f"{n}{s}", st.integers(min_value=0, max_value=10**6),
              st.sampled_from(["", "m", "Mi"])),
)
containers = st.builds(lambda r, s: c(r, sidecar=s), requests_maps, st.booleans())


@given(st.lists(containers, max_size=4), st.lists(containers, max_size=3))
def test_pod_requests_invariants(regular: list[Container], init: list[Container]) -> None:
    """Requests are at least the containers' sum and each init container; non-zero values are at
    least the real requests."""
    p = pod(tuple(regular), tuple(init))
    total = requests_of(regular)
    assert p.requests.milli_cpu >= total.milli_cpu
    assert p.requests.memory >= total.memory
    for ic in init:
        assert p.requests.milli_cpu >= Resources.from_list(ic.requests).milli_cpu - 1
    assert p.non_zero_milli_cpu >= p.requests.milli_cpu
    assert p.non_zero_memory >= p.requests.memory


def test_pod_evolve_of_plain_fields_equals_attrs_evolve() -> None:
    """Pod.evolve copies fields as they are when only plain fields change; the result must be
    what attrs.evolve gives (derived requests included), and the other path still converts."""
    import attrs

    from schedframe.testing import make_pod

    pod = (make_pod("a").req(cpu="250m", memory="1Gi").init_req(cpu="1").label("app", "x")
           .pod_resources(cpu="2").obj())
    changes = {"name": "b", "uid": "u-b", "node_name": "n1", "creation_timestamp": 3.0,
               "nominated_node_name": "n2", "phase": "Running"}
    fast, slow = pod.evolve(**changes), attrs.evolve(pod, **changes)
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert (fast.requests, fast.non_zero_milli_cpu, fast.non_zero_memory) == (
        slow.requests, slow.non_zero_milli_cpu, slow.non_zero_memory)
    assert pod.node_name == ""
    assert fast.node_name == "n1"
    relabelled = pod.evolve(labels={"app": "y"}, name="c")  # a converted field: the attrs path
    assert relabelled.labels == {"app": "y"}
    assert relabelled.name == "c"
    assert relabelled.requests == pod.requests
