"""Shared plugin helpers: normalization, tolerations, host ports, node selectors and the
Kubernetes validation messages they report."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import Node, NodeScore, Pod
from schedframe.api import Taint, Toleration
from schedframe.api.objects import (
    Affinity,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from schedframe.plugins._helpers import (
    FieldErrors,
    RequiredNodeAffinity,
    as_objects,
    default_normalize_score,
    do_not_schedule_taint,
    find_matching_untolerated_taint,
    go_div,
    label_key_errors,
    label_value_errors,
    lazy_node_selector,
    node_selector,
    preferred_scheduling_terms,
    required_node_affinity,
)

NAME_REGEX_ERROR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        pytest.param(7, 2, 3, id="positive"),
        pytest.param(-7, 2, -3, id="negative numerator truncates toward zero"),
        pytest.param(7, -2, -3, id="negative denominator"),
        pytest.param(-7, -2, 3, id="both negative"),
    ],
)
def test_go_div(a: int, b: int, want: int) -> None:
    """Integer division truncates toward zero like Go."""
    assert go_div(a, b) == want


@pytest.mark.parametrize(
    ("raw", "reverse", "want"),
    [
        pytest.param([0, 0], False, [0, 0], id="all zero"),
        pytest.param([0, 0], True, [100, 100], id="all zero reversed"),
        pytest.param([1, 2, 3], False, [33, 66, 100], id="scaled by the maximum"),
        pytest.param([1, 2, 3], True, [67, 34, 0], id="reversed"),
    ],
)
def test_default_normalize_score(raw: list[int], reverse: bool, want: list[int]) -> None:
    """Upstream DefaultNormalizeScore arithmetic."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    default_normalize_score(100, reverse, scores)
    assert [s.score for s in scores] == want
    assert [s.name for s in scores] == [f"n{i}" for i in range(len(raw))]


@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=30), st.booleans())
def test_normalized_scores_stay_in_range(raw: list[int], reverse: bool) -> None:
    """Normalized scores of non-negative inputs stay in [0, 100]."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    default_normalize_score(100, reverse, scores)
    assert all(0 <= s.score <= 100 for s in scores)


def test_as_objects() -> None:
    """Objects of the expected type pass through; others raise TypeError naming both types."""
    node = Node("n")
    assert as_objects(Node, None, node) == (None, node)
    with pytest.raises(TypeError, match="expected Node, but got int"):
        as_objects(Node, 1, node)


def test_find_matching_untolerated_taint() -> None:
    """The first untolerated taint passing the filter is returned."""
    taints = [Taint("a", "PreferNoSchedule"), Taint("b", "NoSchedule"), Taint("c", "NoExecute")]
    assert find_matching_untolerated_taint(taints, [], do_not_schedule_taint) == taints[1]
    assert find_matching_untolerated_taint(taints, []) == taints[0]
    tolerations = [Toleration("b", "Exists"), Toleration("c", "Exists")]
    assert find_matching_untolerated_taint(taints, tolerations, do_not_schedule_taint) is None


@pytest.mark.parametrize(
    ("key", "want"),
    [
        pytest.param("foo", (), id="simple"),
        pytest.param("example.com/foo-bar_1.2", (), id="prefixed"),
        pytest.param("invalid key", (NAME_REGEX_ERROR,), id="space"),
        pytest.param("", ("name part must be non-empty", NAME_REGEX_ERROR), id="empty"),
        pytest.param("/foo", ("prefix part must be non-empty",), id="empty prefix"),
        pytest.param("a" * 64, ("name part must be no more than 63 characters",), id="too long"),
        pytest.param(
            "Example.com/foo",
            (
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                "'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            ),
            id="uppercase prefix",
        ),
    ],
)
def test_label_key_errors(key: str, want: tuple[str, ...]) -> None:
    """Label keys are validated like ``IsQualifiedName``, with its messages."""
    assert label_key_errors(key) == want


def test_label_key_errors_long_prefix_and_many_slashes() -> None:
    """Over-long prefixes and several slashes are errors too."""
    assert label_key_errors("a" * 254 + "/x") == ("prefix part must be no more than 253 characters",)
    (only,) = label_key_errors("a/b/c")
    assert only.startswith("a qualified name must consist of alphanumeric characters")
    assert only.endswith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")


@pytest.mark.parametrize(
    ("value", "want_errors"),
    [
        pytest.param("", 0, id="empty is valid"),
        pytest.param("bar-1.x_y", 0, id="valid"),
        pytest.param("invalid value: ___@#$%^", 1, id="bad characters"),
        pytest.param("a" * 64, 1, id="too long"),
    ],
)
def test_label_value_errors(value: str, want_errors: int) -> None:
    """Label values are validated like ``IsValidLabelValue``."""
    assert len(label_value_errors(value)) == want_errors


def test_field_errors_message() -> None:
    """One error alone, several as an aggregate list, duplicates dropped."""
    errs = FieldErrors()
    assert not errs
    errs.invalid("a.b", "x", "bad")
    assert errs.message() == 'a.b: Invalid value: "x": bad'
    errs.invalid("a.b", "x", "bad")
    errs.not_supported("a.op", "Foo", ["In", "NotIn"])
    errs.invalid("a.values", (), "empty")
    errs.invalid("a.n", 3, "odd")
    assert errs.message() == (
        '[a.b: Invalid value: "x": bad, a.op: Unsupported value: "Foo": supported values: "In", "NotIn", '
        "a.values: Invalid value: []string(nil): empty, a.n: Invalid value: 3: odd]"
    )


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def sel(*terms: NodeSelectorTerm) -> NodeSelector:
    return NodeSelector(terms)


NODE = Node("node-a", labels={"zone": "a", "cores": "8", "weird": "x8"})

MATCH_CASES = [
    pytest.param(sel(NodeSelectorTerm((req("zone", "In", "a", "b"),))), True, id="In"),
    pytest.param(sel(NodeSelectorTerm((req("zone", "NotIn", "a"),))), False, id="NotIn"),
    pytest.param(sel(NodeSelectorTerm((req("absent", "NotIn", "a"),))), True, id="NotIn on an absent key"),
    pytest.param(sel(NodeSelectorTerm((req("zone", "DoesNotExist"),))), False, id="DoesNotExist"),
    pytest.param(sel(NodeSelectorTerm((req("zone", "Exists"),))), True, id="Exists"),
    pytest.param(
        sel(NodeSelectorTerm((req("zone", "Exists"), req("cores", "In", "8")))), True, id="two requirements"
    ),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("metadata.name", "In", "node-b"),))), False, id="field In"
    ),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Gt", "4"),))), True, id="Gt"),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Gt", "8"),))), False, id="Gt equal"),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Lt", "9"),))), True, id="Lt"),
    pytest.param(
        sel(NodeSelectorTerm((req("cores", "Lt", "+9"),))),
        False,
        id="signed value is not a valid label value",
    ),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Lt", "8"),))), False, id="Lt equal"),
    pytest.param(sel(NodeSelectorTerm((req("absent", "Gt", "1"),))), False, id="Gt on an absent key"),
    pytest.param(sel(NodeSelectorTerm((req("weird", "Gt", "1"),))), False, id="Gt on a non-integer label"),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Gt", "x"),))), False, id="Gt with a non-integer value"),
    pytest.param(sel(NodeSelectorTerm((req("cores", "Gt", "1", "2"),))), False, id="Gt with two values"),
    pytest.param(sel(NodeSelectorTerm((req("zone", "In"),))), False, id="In without values"),
    pytest.param(sel(NodeSelectorTerm((req("zone", "Exists", "a"),))), False, id="Exists with values"),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("metadata.name", "NotIn", "node-b"),))), True, id="field NotIn"
    ),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("metadata.name", "In", "node-a", "node-b"),))),
        False,
        id="field In with two values fails to parse",
    ),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("metadata.name", "Exists"),))),
        False,
        id="field Exists is not supported",
    ),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("spec.other", "In", "node-a"),))),
        False,
        id="unknown field In compares with an empty value",
    ),
    pytest.param(
        sel(NodeSelectorTerm(match_fields=(req("spec.other", "NotIn", "node-a"),))),
        True,
        id="unknown field NotIn compares with an empty value",
    ),
    pytest.param(
        sel(NodeSelectorTerm((req("bad key", "Exists"),)), NodeSelectorTerm((req("zone", "In", "a"),))),
        True,
        id="a broken term does not stop another from matching",
    ),
    pytest.param(sel(NodeSelectorTerm()), False, id="only an empty term"),
    pytest.param(sel(), False, id="no terms"),
]


@pytest.mark.parametrize(("selector", "want"), MATCH_CASES)
def test_lazy_node_selector(selector: NodeSelector, want: bool) -> None:
    """Node selectors match as upstream's LazyErrorNodeSelector (broken terms match nothing)."""
    assert lazy_node_selector(selector).matches(NODE) is want


def test_lazy_node_selector_without_node_or_name() -> None:
    """No node never matches; a node without a name skips field requirements."""
    selector = lazy_node_selector(sel(NodeSelectorTerm(match_fields=(req("metadata.name", "In", "x"),))))
    assert not selector.matches(None)
    assert selector.matches(Node(""))


def test_node_selector_strict_parsing() -> None:
    """The strict parser reports every error with its path."""
    assert node_selector(sel(NodeSelectorTerm((req("zone", "In", "a"),)))).matches(NODE)
    broken = sel(NodeSelectorTerm((req("zone", "Gt", "x", "y"),)))
    with pytest.raises(ValueError, match=r"nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.values") as info:
        node_selector(broken, "spec")
    message = str(info.value)
    assert message.startswith("[spec.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: ")
    assert "exactly one value is required" in message
    assert "the value must be an integer" in message


def test_preferred_scheduling_terms() -> None:
    """Preferred terms sum the weights of the matching ones; parse errors raise."""
    terms = preferred_scheduling_terms(
        [
            PreferredSchedulingTerm(3, NodeSelectorTerm((req("zone", "In", "a"),))),
            PreferredSchedulingTerm(5, NodeSelectorTerm((req("zone", "In", "b"),))),
            PreferredSchedulingTerm(
                7, NodeSelectorTerm(match_fields=(req("metadata.name", "In", "node-a"),))
            ),
        ]
    )
    assert terms.score(NODE) == 10
    with pytest.raises(ValueError, match=r"^\[0\]\.matchExpressions\[0\]\.values: Invalid value"):
        preferred_scheduling_terms([PreferredSchedulingTerm(1, NodeSelectorTerm((req("a", "In"),)))])


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(Pod("p"), True, id="nothing required"),
        pytest.param(Pod("p", node_selector={"zone": "a"}), True, id="selector matches"),
        pytest.param(Pod("p", node_selector={"zone": ""}), False, id="selector with an empty value"),
        pytest.param(
            Pod("p", node_selector={"zone": "a", "cores": "8"}), True, id="two-label selector matches"
        ),
        pytest.param(
            Pod("p", node_selector={"zone": "a", "cores": "9"}), False, id="two-label selector differs"
        ),
        pytest.param(
            Pod(
                "p",
                node_selector={"zone": "a"},
                affinity=Affinity(
                    node_affinity=NodeAffinity(required=sel(NodeSelectorTerm((req("cores", "Lt", "4"),))))
                ),
            ),
            False,
            id="affinity does not match",
        ),
        pytest.param(
            Pod(
                "p",
                affinity=Affinity(
                    node_affinity=NodeAffinity(required=sel(NodeSelectorTerm((req("cores", "Gt", "4"),))))
                ),
            ),
            True,
            id="affinity matches",
        ),
    ],
)
def test_required_node_affinity(pod: Pod, want: bool) -> None:
    """nodeSelector and required affinity are ANDed."""
    assert required_node_affinity(pod).matches(NODE) is want
    assert isinstance(required_node_affinity(pod), RequiredNodeAffinity)
