"""NodeAffinity: cases ported from upstream ``nodeaffinity/node_affinity_test.go`` and
``TestValidateNodeAffinityArgs``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import Code, CycleState, Node, NodeScore, PluginArgsError, Pod, Status
from schedframe.api.objects import (
    Affinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from schedframe.api.objects import NodeAffinity as NodeAffinitySpec
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.args import decode_args, encode_args
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.framework.interfaces import PreFilterResult
from schedframe.plugins import node_affinity
from schedframe.plugins.node_affinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeAffinityArgs,
)
from schedframe.testing import PluginHarness, make_node, make_pod

INVALID_KEY_MESSAGE = (
    '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric '
    "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
    "or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def name_in(*names: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement("metadata.name", "In", names)


def term(
    *exprs: NodeSelectorRequirement, fields: tuple[NodeSelectorRequirement, ...] = ()
) -> NodeSelectorTerm:
    return NodeSelectorTerm(exprs, fields)


def required(*terms: NodeSelectorTerm, node_selector: dict[str, str] | None = None) -> Pod:
    aff = Affinity(node_affinity=NodeAffinitySpec(required=NodeSelector(terms)))
    return Pod("pod", affinity=aff, node_selector=node_selector or {})


def preferred(*terms: tuple[int, NodeSelectorTerm]) -> NodeAffinitySpec:
    return NodeAffinitySpec(preferred=tuple(PreferredSchedulingTerm(w, t) for w, t in terms))


def added_required(*terms: NodeSelectorTerm) -> NodeAffinityArgs:
    return NodeAffinityArgs(added_affinity=NodeAffinitySpec(required=NodeSelector(terms)))


SKIP = Status.skip()
POD = Status.unresolvable(ERR_REASON_POD)
ENFORCED = Status.unresolvable(ERR_REASON_ENFORCED)
CONFLICT = Status.unresolvable(ERR_REASON_CONFLICT)

FILTER_CASES = [
    # (pod, node labels, node name, args, run prefilter, want prefilter status, want result, want filter)
    pytest.param(
        make_pod().node_selector({"foo": "bar"}).obj(),
        {},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="missing labels",
    ),
    pytest.param(
        make_pod().node_selector({"foo": "bar"}).obj(),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="same labels",
    ),
    pytest.param(
        make_pod().node_selector({"foo": "bar"}).obj(),
        {"foo": "bar", "baz": "blah"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="node labels are a superset",
    ),
    pytest.param(
        make_pod().node_selector({"foo": "bar", "baz": "blah"}).obj(),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="node labels are a subset",
    ),
    pytest.param(
        required(term(req("foo", "In", "bar", "value2"))),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="In matches",
    ),
    pytest.param(
        required(term(req("kernel-version", "Gt", "0204"))),
        {"kernel-version": "0206"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="Gt matches",
    ),
    pytest.param(
        required(term(req("mem-type", "NotIn", "DDR", "DDR2"))),
        {"mem-type": "DDR3"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="NotIn matches",
    ),
    pytest.param(
        required(term(req("GPU", "Exists"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="Exists matches",
    ),
    pytest.param(
        required(term(req("foo", "In", "value1", "value2"))),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="In does not match",
    ),
    pytest.param(
        required(term()),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="empty matchExpressions match no node",
    ),
    pytest.param(
        required(),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="empty nodeSelectorTerms match no node",
    ),
    pytest.param(
        required(term(req("foo", "DoesNotExist"))),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="DoesNotExist does not match a node with the label",
    ),
    pytest.param(
        required(term(req("foo", "DoesNotExist"))),
        {"bar": "foo"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="DoesNotExist matches a node without the label",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"),)), term(req("foo", "In", "bar"))),
        {"foo": "bar"},
        "node2",
        None,
        True,
        None,
        None,
        None,
        id="a term without a name pin keeps every node a candidate",
    ),
    pytest.param(Pod("pod"), {"foo": "bar"}, "", None, True, SKIP, None, None, id="no affinity: skip"),
    pytest.param(
        Pod("pod", affinity=Affinity(node_affinity=NodeAffinitySpec(required=None))),
        {"foo": "bar"},
        "",
        None,
        True,
        SKIP,
        None,
        None,
        id="affinity without required selector: skip",
    ),
    pytest.param(
        required(term(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="ANDed expressions match",
    ),
    pytest.param(
        required(term(req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="ANDed expressions do not match",
    ),
    pytest.param(
        required(term(req("foo", "In", "bar", "value2")), term(req("diffkey", "In", "wrong", "value2"))),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="ORed terms: one matches",
    ),
    pytest.param(
        required(term(req("foo", "Exists")), node_selector={"foo": "bar"}),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        None,
        id="affinity and nodeSelector both satisfied",
    ),
    pytest.param(
        required(term(req("foo", "Exists")), node_selector={"foo": "bar"}),
        {"foo": "barrrrrr"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="affinity satisfied, nodeSelector not",
    ),
    pytest.param(
        required(term(req("foo", "NotIn", "invalid value: ___@#$%^"))),
        {"foo": "bar"},
        "",
        None,
        True,
        None,
        None,
        POD,
        id="invalid value in a term matches no node",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"),))),
        {},
        "node1",
        None,
        True,
        None,
        PreFilterResult({"node1"}),
        None,
        id="matchFields In matches the node",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"),))),
        {},
        "node2",
        None,
        True,
        None,
        PreFilterResult({"node1"}),
        POD,
        id="matchFields In does not match the node",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"), name_in("node2"))), term(req("foo", "In", "bar"))),
        {"foo": "bar"},
        "node2",
        None,
        True,
        None,
        None,
        None,
        id="two terms: fields do not match, expressions do",
    ),
    pytest.param(
        required(term(req("foo", "In", "bar"), fields=(name_in("node1"),))),
        {"foo": "bar"},
        "node2",
        None,
        True,
        None,
        PreFilterResult({"node1"}),
        POD,
        id="one term: fields do not match, expressions do",
    ),
    pytest.param(
        required(term(req("foo", "In", "bar"), fields=(name_in("node1"),))),
        {"foo": "bar"},
        "node1",
        None,
        True,
        None,
        PreFilterResult({"node1"}),
        None,
        id="one term: fields and expressions match",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"),)), term(req("foo", "In", "not-match-to-bar"))),
        {"foo": "bar"},
        "node2",
        None,
        True,
        None,
        None,
        POD,
        id="two terms: neither matches",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"),)), term(fields=(name_in("node2"),))),
        {},
        "node2",
        None,
        True,
        None,
        PreFilterResult({"node1", "node2"}),
        None,
        id="two terms pinning names",
    ),
    pytest.param(
        required(term(fields=(name_in("node1"), name_in("node2")))),
        {"foo": "bar"},
        "node2",
        None,
        True,
        CONFLICT,
        None,
        POD,
        id="conflicting matchFields requirements",
    ),
    pytest.param(
        required(term(req("zone", "In", "foo"))),
        {"zone": "foo"},
        "node2",
        added_required(term(fields=(name_in("node2"),))),
        True,
        None,
        None,
        None,
        id="matches added affinity and the pod's",
    ),
    pytest.param(
        required(term(req("zone", "In", "bar"))),
        {"zone": "foo"},
        "node2",
        added_required(term(fields=(name_in("node2"),))),
        True,
        None,
        None,
        POD,
        id="matches added affinity, not the pod's",
    ),
    pytest.param(
        Pod("pod"),
        {"zone": "foo"},
        "node2",
        added_required(term(req("zone", "In", "bar"))),
        True,
        None,
        None,
        ENFORCED,
        id="does not match added affinity",
    ),
    pytest.param(
        make_pod().node_selector({"foo": "bar"}).obj(),
        {"foo": "bar", "baz": "blah"},
        "",
        None,
        False,
        None,
        None,
        None,
        id="node selector without PreFilter",
    ),
    pytest.param(
        required(term(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        False,
        None,
        None,
        None,
        id="affinity without PreFilter",
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "args", "run_pre_filter", "want_pre_status", "want_result", "want_status"),
    FILTER_CASES,
)
def test_filter(
    pod: Pod,
    labels: dict[str, str],
    node_name: str,
    args: NodeAffinityArgs | None,
    run_pre_filter: bool,
    want_pre_status: Status | None,
    want_result: PreFilterResult | None,
    want_status: Status | None,
) -> None:
    """PreFilter status and result, then Filter on the node, as upstream TestNodeAffinity."""
    node = Node(node_name, labels=labels)
    plugin = node_affinity.new(args, None)  # type: ignore[arg-type]
    state = CycleState()
    info = NodeInfo(node)
    if run_pre_filter:
        result, status = plugin.pre_filter(state, pod, [info])
        assert status == want_pre_status
        assert result == want_result
    assert plugin.filter(state, pod, info) == want_status


def test_filter_through_framework_narrows_to_pinned_node() -> None:
    """A DaemonSet-style pod is evaluated on its node only; others are outside the PreFilterResult."""
    nodes = [make_node(f"n{i}").obj() for i in range(3)]
    h = PluginHarness("NodeAffinity", nodes=nodes)
    pod = make_pod("ds").node_affinity_name("n1").obj()
    assert h.pre_filter(pod) == (PreFilterResult({"n1"}), Status.OK)
    outside = Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]")
    assert h.filter(pod) == {"n0": outside, "n1": Status.OK, "n2": outside}


def test_filter_through_framework_with_added_affinity_mapping() -> None:
    """camelCase args reach the plugin through the framework; the enforced reason comes first."""
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            }
        }
    }
    nodes = [make_node("n1").label("zone", "a").obj(), make_node("n2").label("zone", "b").obj()]
    h = PluginHarness("NodeAffinity", args=args, nodes=nodes)
    assert h.filter(make_pod().obj()) == {"n1": Status.OK, "n2": ENFORCED}
    assert h.filter(make_pod().node_selector({"zone": "b"}).obj()) == {"n1": POD, "n2": ENFORCED}


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, term(req("foo", "In", "bar"))))
AFFINITY2 = preferred(
    (2, term(req("foo", "In", "bar"))),
    (4, term(req("key", "In", "value"))),
    (5, term(req("foo", "In", "bar"), req("key", "In", "value"), req("az", "In", "az1"))),
)


def with_affinity(aff: NodeAffinitySpec) -> Pod:
    return Pod("pod", affinity=Affinity(node_affinity=aff))


SCORE_CASES = [
    pytest.param(
        Pod("pod"),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        {"node1": 0, "node2": 0, "node3": 0},
        id="no node affinity: all zero",
    ),
    pytest.param(
        with_affinity(AFFINITY1),
        [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        {"node1": 0, "node2": 0, "node3": 0},
        id="no node matches the preferred terms",
    ),
    pytest.param(
        with_affinity(AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        {"node1": 100, "node2": 0, "node3": 0},
        id="only node1 matches",
    ),
    pytest.param(
        with_affinity(AFFINITY2),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        None,
        {"node1": 18, "node5": 100, "node2": 36},
        id="all match with different priorities",
    ),
    pytest.param(
        Pod("pod"),
        [("node1", LABEL1), ("node2", LABEL2)],
        NodeAffinityArgs(added_affinity=AFFINITY1),
        {"node1": 100, "node2": 0},
        id="added affinity",
    ),
    pytest.param(
        with_affinity(AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
        NodeAffinityArgs(added_affinity=preferred((3, term(req("key", "In", "value"))))),
        {"node1": 40, "node2": 60, "node3": 100},
        id="added affinity and the pod's",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "args", "want"), SCORE_CASES)
def test_score(
    pod: Pod, nodes: list[tuple[str, dict[str, str]]], args: NodeAffinityArgs | None, want: dict[str, int]
) -> None:
    """PreScore, Score and NormalizeScore, as upstream TestNodeAffinityPriority."""
    h = PluginHarness("NodeAffinity", args=args, nodes=[Node(n, labels=labels) for n, labels in nodes])
    assert h.score(pod) == want


def test_score_without_pre_score() -> None:
    """Score computes the pod's preferred terms itself when PreScore did not run."""
    plugin = NodeAffinity()
    pod = with_affinity(AFFINITY2)
    state = CycleState()
    nodes = [Node("node1", labels=LABEL1), Node("node5", labels=LABEL5), Node("node2", labels=LABEL2)]
    scores = []
    for n in nodes:
        score, status = plugin.score(state, pod, NodeInfo(n))
        assert status is None
        scores.append(NodeScore(n.name, score))
    assert plugin.normalize_score(state, pod, scores) is None
    assert scores == [NodeScore("node1", 18), NodeScore("node5", 100), NodeScore("node2", 36)]


def test_pre_score_skips_without_preferred_terms() -> None:
    """PreScore returns SKIP when neither the pod nor the args have preferred terms."""
    h = PluginHarness("NodeAffinity", nodes=[Node("node1", labels=LABEL1)])
    assert h.pre_score(Pod("pod")) == Status.skip()


def test_pre_score_error_on_broken_affinity() -> None:
    """An invalid preferred term is an ERROR naming the field, as upstream's parse error."""
    pod = with_affinity(preferred((2, term(req("invalid key", "In", "bar")))))
    status = NodeAffinity().pre_score(CycleState(), pod, [])
    assert status is not None
    assert status.code is Code.ERROR
    assert status.message == INVALID_KEY_MESSAGE
    h = PluginHarness("NodeAffinity", nodes=[Node("node1", labels=LABEL1)])
    assert h.pre_score(pod).message == f'running PreScore plugin "NodeAffinity": {INVALID_KEY_MESSAGE}'


def test_score_error_on_broken_affinity_without_pre_score() -> None:
    """Score reports the same parse error when it has to parse the terms itself."""
    pod = with_affinity(preferred((2, term(req("invalid key", "In", "bar")))))
    score, status = NodeAffinity().score(CycleState(), pod, NodeInfo(Node("n")))
    assert score == 0
    assert status is not None
    assert status.message == INVALID_KEY_MESSAGE


def test_zero_weight_and_empty_preferred_terms_are_ignored() -> None:
    """Terms of weight 0 or without requirements never count (and never fail to parse)."""
    aff = preferred((0, term(req("invalid key", "In", "x"))), (3, term()), (1, term(req("foo", "Exists"))))
    h = PluginHarness("NodeAffinity", nodes=[Node("a", labels=LABEL1), Node("b", labels=LABEL2)])
    assert h.score(with_affinity(aff)) == {"a": 100, "b": 0}


def test_missing_node_is_an_error() -> None:
    """A NodeInfo without its node object is an ERROR for Filter and Score."""
    plugin = NodeAffinity()
    status = plugin.filter(CycleState(), Pod("p"), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR
    _, status = plugin.score(CycleState(), Pod("p"), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR


ADDED_FOO_BAR = NodeAffinityArgs(
    added_affinity=NodeAffinitySpec(required=NodeSelector((term(req("foo", "In", "bar")),)))
)
POD_FOO_BAR = make_pod().node_affinity_in("foo", ["bar"]).obj()

HINT_CASES = [
    pytest.param(None, None, make_node().obj(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-add"),
    pytest.param(None, None, make_node().label("foo", "bar").obj(), QueueingHint.QUEUE, id="queue-on-add"),
    pytest.param(
        None,
        make_node().obj(),
        make_node().capacity(cpu="1").obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-changes",
    ),
    pytest.param(
        None,
        make_node().obj(),
        make_node().label("k", "v").obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-changes-on-labels",
    ),
    pytest.param(
        None,
        make_node().label("foo", "bar").obj(),
        make_node().label("foo", "bar").label("k", "v").obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-labels-changes-on-suitable-node",
    ),
    pytest.param(
        None,
        make_node().label("foo", "bar").obj(),
        make_node().label("k", "v").obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-labels-changes-on-node-from-suitable-to-unsuitable",
    ),
    pytest.param(
        None,
        make_node().obj(),
        make_node().label("foo", "bar").obj(),
        QueueingHint.QUEUE,
        id="queue-on-labels-change-makes-pod-schedulable",
    ),
    pytest.param(
        ADDED_FOO_BAR,
        None,
        make_node().obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-add-scheduler-enforced-node-affinity",
    ),
    pytest.param(
        ADDED_FOO_BAR,
        None,
        make_node().label("foo", "bar").obj(),
        QueueingHint.QUEUE,
        id="queue-on-add-scheduler-enforced-node-affinity",
    ),
]


@pytest.mark.parametrize(("args", "old", "new", "want"), HINT_CASES)
def test_is_schedulable_after_node_change(
    args: NodeAffinityArgs | None, old: Node | None, new: Node, want: QueueingHint
) -> None:
    """The node hint requeues only on a change from not matching to matching."""
    plugin = NodeAffinity(args)
    assert plugin.is_schedulable_after_node_change(POD_FOO_BAR, old, new) == want


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="wrong new object"),
        pytest.param("not-a-node", make_node().obj(), id="wrong old object"),
    ],
)
def test_hint_rejects_wrong_objects(old: Any, new: Any) -> None:
    """Objects that are not nodes raise (which the queue treats as QUEUE)."""
    with pytest.raises(TypeError, match="expected Node, but got str"):
        NodeAffinity().is_schedulable_after_node_change(POD_FOO_BAR, old, new)


def test_events_to_register() -> None:
    """Node add and label updates, with the hint."""
    plugin = NodeAffinity()
    (event,) = plugin.events_to_register()
    assert event.event.resource is EventResource.NODE
    assert event.event.action == ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    assert event.hint == plugin.is_schedulable_after_node_change


# -- args ------------------------------------------------------------------------------------

VALID_ARGS = {
    "addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "label-1", "operator": "In", "values": ["label-1-val"]}]}
            ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 1,
                "preference": {
                    "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]
                },
            }
        ],
    },
}


def test_args_defaults() -> None:
    """No-arg construction is upstream's default: no added affinity."""
    assert NodeAffinityArgs() == NodeAffinityArgs(added_affinity=None)
    assert encode_args(NodeAffinityArgs()) == {}
    assert decode_args(NodeAffinityArgs, {}) == NodeAffinityArgs()
    assert node_affinity.ARGS_TYPE is NodeAffinityArgs


def test_args_round_trip() -> None:
    """from_dict and to_dict are inverses on a valid mapping."""
    args = decode_args(
        NodeAffinityArgs,
        {**VALID_ARGS, "kind": "NodeAffinityArgs", "apiVersion": "kubescheduler.config.k8s.io/v1"}
    )
    assert args.added_affinity is not None
    assert encode_args(args) == VALID_ARGS
    assert NodeAffinityArgs(added_affinity=VALID_ARGS["addedAffinity"]) == args


def test_args_invalid_selectors_report_every_path() -> None:
    """Invalid required and preferred terms are all reported with upstream's field paths."""
    data = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "label 1", "operator": "In", "values": ["label-1-val"]}]}
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 1,
                    "preference": {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node-1", "node-2"]}
                        ]
                    },
                }
            ],
        }
    }
    with pytest.raises(PluginArgsError, match="matchExpressions") as info:
        decode_args(NodeAffinityArgs, data)
    errors = info.value.errors
    assert len(errors) == 2
    assert errors[0].startswith(
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        '.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "label 1"'
    )
    assert errors[1] == (
        "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0]"
        '.values: Invalid value: []string{"node-1", "node-2"}: must have one element'
    )


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param({"addedAffinty": {}}, r"addedAffinty: unknown field", id="unknown top-level field"),
        pytest.param(
            {"addedAffinity": {"requiredDuringScheduling": {}}},
            r"addedAffinity.requiredDuringScheduling: unknown field",
            id="unknown affinity field",
        ),
        pytest.param(
            {"addedAffinity": []}, r"addedAffinity: must be a mapping, got list", id="affinity not a mapping"
        ),
        pytest.param({"kind": "NodeResourcesFitArgs"}, r"kind: must be NodeAffinityArgs", id="wrong kind"),
        pytest.param(
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "x", "preference": {}}]
                }
            },
            r"\[0\]\.weight: must be an integer",
            id="weight not an int",
        ),
        pytest.param(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Foo"}]}]
                    }
                }
            },
            r'operator: Unsupported value: "Foo": supported values: "In", "NotIn"',
            id="unknown operator",
        ),
        pytest.param(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}
                        ]
                    }
                }
            },
            r'matchFields\[0\]\.operator: Unsupported value: "Exists": supported values: "In", "NotIn"',
            id="unsupported field operator",
        ),
        pytest.param(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["x"]}]}
                        ]
                    }
                }
            },
            r"the value must be an integer",
            id="Gt with a non-integer",
        ),
        pytest.param(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "a", "operator": "In", "values": [1]}]}
                        ]
                    }
                }
            },
            r"values\[0\]: must be a string, got int",
            id="non-string value",
        ),
        pytest.param(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": 3, "operator": "In", "values": ["x"]}]}
                        ]
                    }
                }
            },
            r"key: must be a string, got int",
            id="non-string key",
        ),
        pytest.param(
            {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": {}}}},
            r"nodeSelectorTerms: must be a list, got dict",
            id="terms not a list",
        ),
    ],
)
def test_args_decode_errors(data: dict[str, Any], match: str) -> None:
    """Malformed args raise PluginArgsError naming the field."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(NodeAffinityArgs, data)


def test_args_from_non_mapping() -> None:
    """from_dict refuses anything but a mapping."""
    with pytest.raises(PluginArgsError, match="must be a mapping, got list"):
        decode_args(NodeAffinityArgs, [])  # type: ignore[arg-type]


def test_new_validates_args_objects() -> None:
    """new() validates an args object, refuses other types, and decodes mappings."""
    bad = NodeAffinityArgs(
        added_affinity=NodeAffinitySpec(required=NodeSelector((term(req("a b", "Exists")),)))
    )
    with pytest.raises(PluginArgsError, match=r"nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.key"):
        node_affinity.new(bad, None)  # type: ignore[arg-type]
    with pytest.raises(PluginArgsError, match="want args of type NodeAffinityArgs, got int"):
        node_affinity.new(3, None)  # type: ignore[arg-type]
    plugin = node_affinity.new(VALID_ARGS, None)  # type: ignore[arg-type]
    assert plugin.args == decode_args(NodeAffinityArgs, VALID_ARGS)
    assert plugin.name == "NodeAffinity"
    assert plugin.pre_filter_extensions() is None
    assert plugin.score_extensions() is plugin


@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=20))
def test_normalized_scores_stay_in_range(raw: list[int]) -> None:
    """NormalizeScore maps any non-negative sums into [0, 100], the highest to 100."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    NodeAffinity().normalize_score(CycleState(), Pod("p"), scores)
    assert all(0 <= s.score <= 100 for s in scores)
    if max(raw) > 0:
        assert max(s.score for s in scores) == 100
