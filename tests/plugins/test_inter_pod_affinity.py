"""InterPodAffinity: args, PreFilter/Filter, PreFilter extensions, PreScore/Score, hints.

The tables port upstream's interpodaffinity ``filtering_test.go``, ``scoring_test.go`` and
``plugin_test.go`` (with ``validation_pluginargs_test.go`` for the args).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import ActionType, EventResource, Namespace, Node, PluginArgsError, Pod, QueueingHint, Status
from schedframe.api import LabelSelector
from schedframe.cache.nodeinfo import NodeInfo, PodInfo
from schedframe.framework.args import decode_args, encode_args, validate_args
from schedframe.framework.cycle_state import CycleState
from schedframe.framework.interfaces import NodeScore
from schedframe.plugins import inter_pod_affinity as ipa
from schedframe.plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinityArgs,
)
from schedframe.testing import PluginHarness, PodBuilder, make_node, make_pod, selector

NAME = "InterPodAffinity"
OK = Status.OK
AFF = Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXIST = Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
SKIP = Status.skip()

NAMESPACES = [
    Namespace("subteam1.team1", {"team": "team1"}),
    Namespace("subteam2.team1", {"team": "team1"}),
    Namespace("subteam1.team2", {"team": "team2"}),
    Namespace("subteam2.team2", {"team": "team2"}),
]
TEAM1 = selector(None, ("team", "In", ("team1",)))


def nd(name: str, labels: Mapping[str, str] | None = None) -> Node:
    """A node with labels."""
    return make_node(name).labels(labels or {}).obj()


def pb(name: str = "p", node: str = "", ns: str | None = None, **labels: str) -> PodBuilder:
    """A pod builder with labels (bound to *node* when given)."""
    b = make_pod(name, ns).labels(labels)
    return b.node(node) if node else b


def pl(
    name: str = "p", node: str = "", labels: Mapping[str, str] | None = None, ns: str | None = None
) -> PodBuilder:
    """Like :func:`pb` with labels as a mapping."""
    b = make_pod(name, ns).labels(labels or {})
    return b.node(node) if node else b


def in_(key: str, *values: str) -> LabelSelector:
    """``key In (values)``."""
    return selector(None, (key, "In", values))


def not_in(key: str, *values: str) -> LabelSelector:
    """``key NotIn (values)``."""
    return selector(None, (key, "NotIn", values))


def exists(key: str) -> LabelSelector:
    """``key Exists``."""
    return selector(None, (key, "Exists", ()))


def harness(
    nodes: Sequence[Node] = (),
    pods: Sequence[Pod] = (),
    *,
    args: Any = None,
    namespaces: Sequence[Namespace] = NAMESPACES,
) -> PluginHarness:
    """A harness around InterPodAffinity."""
    return PluginHarness(NAME, args, nodes, pods, namespaces)


# --------------------------------------------------------------------------------------------
# Filter on one node (upstream TestRequiredAffinitySingleNode)

_NODE1 = nd("node1", {"region": "r1", "zone": "z11"})
_SCAN = {"service": "securityscan"}
_S1 = {"security": "S1"}
_SCAN_POD = pl("existing", "node1", _SCAN).obj()
_BAD = "{{.bad-value.}}"
_BAD_MSG = (
    f'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{_BAD}": '
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
_MULTI_OK = selector(None, ("service", "In", ("securityscan",)), ("service", "NotIn", ("WrongValue",)))
_MULTI_BAD = selector(None, ("service", "In", ("securityscan2",)), ("service", "NotIn", ("WrongValue",)))
_EXISTS_NOT_WRONG = selector(None, ("service", "Exists", ()), ("wrongkey", "DoesNotExist", ()))

SINGLE_NODE_CASES = [
    pytest.param(make_pod("p").obj(), [], SKIP, OK, id="no required terms: skip"),
    pytest.param(
        pl("p", labels=_S1).pod_affinity("region", in_("service", "securityscan", "value2")).obj(),
        [_SCAN_POD],
        OK,
        OK,
        id="affinity In matches the existing pod",
    ),
    pytest.param(
        pl("p", labels=_S1).pod_affinity("region", not_in("service", "securityscan3", "value3")).obj(),
        [_SCAN_POD],
        OK,
        OK,
        id="affinity NotIn matches the existing pod",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("", in_("service", "securityscan", "value2"), namespaces=["DiffNameSpace"])
        .obj(),
        [pl("existing", "node1", _SCAN, ns="ns").obj()],
        OK,
        AFF,
        id="affinity fails: the matching pod is in another namespace",
    ),
    pytest.param(
        pl("p", labels=_SCAN).pod_affinity("", in_("service", "antivirusscan", "value2")).obj(),
        [_SCAN_POD],
        OK,
        AFF,
        id="affinity fails: selector matches no pod",
    ),
    pytest.param(
        pl("p", labels=_S1).pod_affinity("region", _EXISTS_NOT_WRONG).pod_affinity("region", _MULTI_OK).obj(),
        [_SCAN_POD],
        OK,
        OK,
        id="several terms with various operators all match",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", _EXISTS_NOT_WRONG)
        .pod_affinity("region", _MULTI_BAD)
        .obj(),
        [_SCAN_POD],
        OK,
        AFF,
        id="requirements are ANDed: one term does not match",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", in_("service", "securityscan", "value2"))
        .pod_anti_affinity("node", in_("service", "antivirusscan", "value2"))
        .obj(),
        [_SCAN_POD],
        OK,
        OK,
        id="affinity and anti-affinity both satisfied",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", in_("service", "securityscan", "value2"))
        .pod_anti_affinity("node", in_("service", "antivirusscan", "value2"))
        .obj(),
        [
            pl("existing", "node1", _SCAN)
            .pod_anti_affinity("node", in_("service", "antivirusscan", "value2"))
            .obj()
        ],
        OK,
        OK,
        id="affinity, anti-affinity and symmetry satisfied",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", in_("service", "securityscan", "value2"))
        .pod_anti_affinity("zone", in_("service", "securityscan", "value2"))
        .obj(),
        [_SCAN_POD],
        OK,
        ANTI,
        id="affinity satisfied, anti-affinity violated",
    ),
    pytest.param(
        pl("p", labels=_SCAN)
        .pod_affinity("region", in_("service", "securityscan", "value2"))
        .pod_anti_affinity("node", in_("service", "antivirusscan", "value2"))
        .obj(),
        [
            pl("existing", "node1", _SCAN)
            .pod_anti_affinity("zone", in_("service", "securityscan", "value2"))
            .obj()
        ],
        OK,
        EXIST,
        id="existing pod's anti-affinity violated (symmetry)",
    ),
    pytest.param(
        pl("p", labels=_SCAN).pod_affinity("region", not_in("service", "securityscan", "value2")).obj(),
        [pl("existing", "node2", _SCAN).obj()],
        OK,
        AFF,
        id="affinity fails: the pod does not match its own terms",
    ),
    pytest.param(
        pl("p", labels=_SCAN).obj(),
        [
            pl("existing", "node1", _SCAN)
            .pod_anti_affinity("zone", in_("service", "securityscan", "value2"))
            .obj()
        ],
        OK,
        EXIST,
        id="existing anti-affinity applies to a pod without terms",
    ),
    pytest.param(
        pl("p", labels=_SCAN).obj(),
        [
            pl("existing", "node1", _SCAN)
            .pod_anti_affinity("zone", not_in("service", "securityscan", "value2"))
            .obj()
        ],
        SKIP,
        OK,
        id="existing anti-affinity not matching the pod: skip",
    ),
    pytest.param(
        pl("p", labels=_SCAN)
        .pod_anti_affinity("region", exists("service"))
        .pod_anti_affinity("region", exists("security"))
        .obj(),
        [pl("existing", "node1", _S1).pod_anti_affinity("zone", exists("security")).obj()],
        OK,
        ANTI,
        id="incoming anti-affinity violated, existing one satisfied",
    ),
    pytest.param(
        pl("p", labels=_SCAN)
        .pod_anti_affinity("zone", exists("service"))
        .pod_anti_affinity("zone", exists("security"))
        .obj(),
        [pl("existing", "node1", _S1).pod_anti_affinity("zone", exists("security")).obj()],
        OK,
        ANTI,
        id="symmetry a1: partial match on both sides",
    ),
    pytest.param(
        pl("p", labels=_S1).pod_anti_affinity("zone", exists("security")).obj(),
        [
            pl("existing", "node1", _SCAN)
            .pod_anti_affinity("zone", exists("service"))
            .pod_anti_affinity("zone", exists("security"))
            .obj()
        ],
        OK,
        EXIST,
        id="symmetry a2: existing pod's term matches",
    ),
    pytest.param(
        pl("p", labels={"abc": "", "xyz": ""})
        .pod_anti_affinity("zone", exists("abc"))
        .pod_anti_affinity("zone", exists("def"))
        .obj(),
        [
            pl("existing", "node1", {"def": "", "xyz": ""})
            .pod_anti_affinity("zone", exists("abc"))
            .pod_anti_affinity("zone", exists("def"))
            .obj()
        ],
        OK,
        ANTI,
        id="symmetry b1",
    ),
    pytest.param(
        pl("p", labels={"def": "", "xyz": ""})
        .pod_anti_affinity("zone", exists("abc"))
        .pod_anti_affinity("zone", exists("def"))
        .obj(),
        [
            pl("existing", "node1", {"abc": "", "xyz": ""})
            .pod_anti_affinity("zone", exists("abc"))
            .pod_anti_affinity("zone", exists("def"))
            .obj()
        ],
        OK,
        ANTI,
        id="symmetry b2",
    ),
    pytest.param(
        pl("p", labels=_SCAN)
        .pod_affinity("region", in_("service", _BAD))
        .pod_affinity("node", in_("service", "antivirusscan", "value2"))
        .obj(),
        [],
        Status.unresolvable(_BAD_MSG),
        None,
        id="invalid label value in the first affinity term",
    ),
    pytest.param(
        pl("p", labels=_SCAN)
        .pod_affinity("region", in_("service", "foo"))
        .pod_affinity("node", in_("service", _BAD))
        .obj(),
        [],
        Status.unresolvable(_BAD_MSG),
        None,
        id="invalid label value in the second affinity term",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", in_("service", "securityscan", "value2"), namespace_selector=TEAM1)
        .obj(),
        [pl("existing", "node1", _SCAN, ns="subteam1.team1").obj()],
        OK,
        OK,
        id="affinity with a matching namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1)
        .pod_affinity("region", in_("service", "securityscan", "value2"), namespace_selector=TEAM1)
        .obj(),
        [pl("existing", "node1", _SCAN, ns="subteam1.team2").obj()],
        OK,
        AFF,
        id="affinity with a non-matching namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1, ns="subteam1.team1")
        .pod_anti_affinity("zone", in_("service", "securityscan", "value2"), namespace_selector=TEAM1)
        .obj(),
        [pl("existing", "node1", _SCAN, ns="subteam2.team1").obj()],
        OK,
        ANTI,
        id="anti-affinity with a matching namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1, ns="subteam1.team1")
        .pod_anti_affinity(
            "zone", in_("service", "securityscan", "value2"), namespace_selector=LabelSelector()
        )
        .obj(),
        [pl("existing", "node1", _SCAN, ns="subteam2.team1").obj()],
        OK,
        ANTI,
        id="anti-affinity with an empty (all) namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1, ns="subteam1.team1")
        .pod_anti_affinity("zone", in_("service", "securityscan", "value2"), namespace_selector=TEAM1)
        .obj(),
        [pl("existing", "node1", _SCAN, ns="subteam1.team2").obj()],
        OK,
        OK,
        id="anti-affinity with a non-matching namespace selector",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want_pre_filter", "want_filter"), SINGLE_NODE_CASES)
def test_filter_single_node(
    pod: Pod, existing: list[Pod], want_pre_filter: Status, want_filter: Status | None
) -> None:
    """PreFilter/Filter on one node: affinity, anti-affinity, symmetry, namespaces, parse errors."""
    h = harness([_NODE1], existing)
    assert h.pre_filter(pod)[1] == want_pre_filter
    if want_filter is not None:
        assert h.filter(pod)["node1"] == want_filter


# --------------------------------------------------------------------------------------------
# Filter on several nodes (upstream TestRequiredAffinityMultipleNodes)

_CHINA = {"region": "China"}
_CHINA_AZ1 = {"region": "China", "az": "az1"}
_INDIA = {"region": "India"}
_NODES_CI = [nd("node1", _CHINA), nd("node2", _CHINA_AZ1), nd("node3", _INDIA)]
_NODES_ABC_CI = [nd("nodeA", _CHINA), nd("nodeB", _CHINA_AZ1), nd("nodeC", _INDIA)]
_AB_Z1Z1 = [
    nd("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    nd("nodeB", {"region": "r1", "zone": "z1", "hostname": "nodeB"}),
]
_AB_Z1Z2 = [
    nd("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    nd("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
]
_FOOBAR_SCAN = {"foo": "bar", "service": "securityscan"}

MULTIPLE_NODES_CASES = [
    pytest.param(
        make_pod("p").pod_affinity("region", in_("foo", "bar")).obj(),
        [pl("p1", "node1", {"foo": "bar"}).obj()],
        _NODES_CI,
        [OK, OK, AFF],
        id="affinity satisfied on every node of the matching pod's region",
    ),
    pytest.param(
        pl("p", labels=_FOOBAR_SCAN)
        .pod_affinity("zone", in_("foo", "bar"))
        .pod_affinity("zone", in_("service", "securityscan"))
        .obj(),
        [pl("p1", "nodeA", {"foo": "bar"}).obj()],
        [nd("nodeA", {"zone": "az1", "hostname": "h1"}), nd("nodeB", {"zone": "az2", "hostname": "h2"})],
        [OK, OK],
        id="first pod of a group is not blocked",
    ),
    pytest.param(
        pl("p", labels=_FOOBAR_SCAN)
        .pod_affinity("zone", in_("foo", "bar"))
        .pod_affinity("zone", in_("service", "securityscan"))
        .obj(),
        [pl("p1", "nodeA", {"foo": "bar"}).obj()],
        [
            nd("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            nd("nodeB", {"zoneLabel": "az2", "hostname": "h2"}),
        ],
        [AFF, AFF],
        id="first pod of a group still needs the topology keys",
    ),
    pytest.param(
        make_pod("p").pod_anti_affinity("region", in_("foo", "abc")).obj(),
        [pl("e", "nodeA", {"foo": "abc"}).obj()],
        [
            nd("nodeA", {"region": "r1", "hostname": "nodeA"}),
            nd("nodeB", {"region": "r1", "hostname": "nodeB"}),
        ],
        [ANTI, ANTI],
        id="anti-affinity excludes the whole region",
    ),
    pytest.param(
        make_pod("p")
        .pod_anti_affinity("region", in_("foo", "abc"))
        .pod_anti_affinity("zone", in_("service", "securityscan"))
        .obj(),
        [pl("e", "nodeA", {"foo": "abc", "service": "securityscan"}).obj()],
        [
            nd("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
            nd("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
        ],
        [ANTI, ANTI],
        id="any matching anti-affinity term excludes",
    ),
    pytest.param(
        make_pod("p").pod_anti_affinity("region", in_("foo", "abc")).obj(),
        [pl("e", "nodeA", {"foo": "abc"}).obj()],
        _NODES_ABC_CI,
        [ANTI, ANTI, OK],
        id="anti-affinity leaves the other region",
    ),
    pytest.param(
        pl("p", labels={"foo": "123"}, ns="NS1").pod_anti_affinity("region", in_("foo", "bar")).obj(),
        [
            pl("e1", "nodeA", {"foo": "bar"}, ns="NS1").obj(),
            pl("e2", "nodeC", ns="NS2").pod_anti_affinity("region", in_("foo", "123")).obj(),
        ],
        _NODES_ABC_CI,
        [ANTI, ANTI, OK],
        id="existing anti-affinity of another namespace does not apply",
    ),
    pytest.param(
        pb("p", foo="").obj(),
        [pl("e", "nodeA").pod_anti_affinity("invalid-node-label", exists("foo")).obj()],
        _AB_Z1Z1,
        [OK, OK],
        id="existing anti-affinity with a missing topology key: skip",
    ),
    pytest.param(
        pl("p", "nodeA").pod_anti_affinity("invalid-node-label", exists("foo")).obj(),
        [pb("e", "nodeA", foo="").obj()],
        _AB_Z1Z1,
        [OK, OK],
        id="incoming anti-affinity with a missing topology key",
    ),
    pytest.param(
        pb("p", foo="", bar="").obj(),
        [
            pl("e1", "nodeA").pod_anti_affinity("zone", exists("foo")).obj(),
            pl("e2", "nodeA").pod_anti_affinity("region", exists("bar")).obj(),
        ],
        _AB_Z1Z2,
        [EXIST, EXIST],
        id="existing anti-affinity terms violated on every node",
    ),
    pytest.param(
        make_pod("p")
        .pod_anti_affinity("zone", exists("foo"))
        .pod_anti_affinity("region", exists("bar"))
        .obj(),
        [pb("e1", "nodeA", foo="").obj(), pb("e2", "nodeB", bar="").obj()],
        _AB_Z1Z2,
        [ANTI, ANTI],
        id="incoming anti-affinity terms violated on every node",
    ),
    pytest.param(
        pb("p", foo="", bar="").obj(),
        [
            pl("e", "nodeA")
            .pod_anti_affinity("invalid-node-label", exists("foo"))
            .pod_anti_affinity("zone", exists("bar"))
            .obj()
        ],
        _AB_Z1Z2,
        [EXIST, OK],
        id="existing anti-affinity: only terms with the topology key count",
    ),
    pytest.param(
        make_pod("p")
        .pod_anti_affinity("invalid-node-label", exists("foo"))
        .pod_anti_affinity("zone", exists("bar"))
        .obj(),
        [pb("podA", "nodeA", foo="", bar="").obj()],
        _AB_Z1Z2,
        [ANTI, OK],
        id="incoming anti-affinity: only terms with the topology key count",
    ),
    pytest.param(
        pb("p", foo="", bar="").obj(),
        [
            pl("e", "nodeA")
            .pod_anti_affinity("region", exists("foo"))
            .pod_anti_affinity("zone", exists("bar"))
            .obj()
        ],
        _AB_Z1Z2,
        [EXIST, EXIST],
        id="existing anti-affinity, all topology keys valid",
    ),
    pytest.param(
        make_pod("p")
        .pod_anti_affinity("region", exists("foo"))
        .pod_anti_affinity("zone", exists("bar"))
        .obj(),
        [pb("e", "nodeA", foo="", bar="").obj()],
        _AB_Z1Z2,
        [ANTI, ANTI],
        id="incoming anti-affinity, all topology keys valid",
    ),
    pytest.param(
        pb("p", foo="", bar="").obj(),
        [
            pl("e1", "nodeA")
            .pod_anti_affinity("zone", exists("foo"))
            .pod_anti_affinity("zone", exists("labelA"))
            .obj(),
            pl("e2", "nodeB")
            .pod_anti_affinity("zone", exists("bar"))
            .pod_anti_affinity("zone", exists("labelB"))
            .obj(),
        ],
        [*_AB_Z1Z2, nd("nodeC", {"region": "r1", "zone": "z3", "hostname": "nodeC"})],
        [EXIST, EXIST, OK],
        id="only nodeC escapes the existing pods' anti-affinity",
    ),
    pytest.param(
        make_pod("p").pod_affinity("region", exists("foo")).pod_affinity("zone", exists("bar")).obj(),
        [pb("pod1", "nodeA", foo="", bar="").obj()],
        _AB_Z1Z1,
        [OK, OK],
        id="affinity terms all matched by one pod",
    ),
    pytest.param(
        make_pod("p").pod_affinity("region", exists("foo")).pod_affinity("zone", exists("bar")).obj(),
        [pb("pod1", "nodeA", foo="").obj(), pb("pod2", "nodeB", bar="").obj()],
        _AB_Z1Z2,
        [AFF, AFF],
        id="affinity terms must be matched by the same pod",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "nodes", "want"), MULTIPLE_NODES_CASES)
def test_filter_multiple_nodes(pod: Pod, existing: list[Pod], nodes: list[Node], want: list[Status]) -> None:
    """Filter over several nodes and topology domains."""
    got = harness(nodes, existing, namespaces=[Namespace("NS1")]).filter(pod)
    assert got == {n.name: s for n, s in zip(nodes, want)}


def test_filter_without_pre_filter_state() -> None:
    """Filter / AddPod / RemovePod without PreFilter's state are errors naming the key."""
    h = harness([_NODE1])
    plugin = h.plugin
    assert isinstance(plugin, ipa.InterPodAffinity)
    info = NodeInfo(_NODE1)
    status = plugin.filter(CycleState(), make_pod("p").obj(), info)
    assert status is not None
    assert status.code.name == "ERROR"
    assert "PreFilterInterPodAffinity" in status.message
    for fn in (plugin.add_pod, plugin.remove_pod):
        st_ = fn(CycleState(), make_pod("p").obj(), PodInfo.of(make_pod("q").obj()), info)
        assert st_ is not None
        assert st_.code.name == "ERROR"


# --------------------------------------------------------------------------------------------
# PreFilter extensions and counts (upstream TestPreFilterStateAddRemovePod,
# TestGetTPMapMatchingIncomingAffinityAntiAffinity)

_FOO_BAR = {"foo": "bar"}
_NODES_ABC = [
    nd("nodeA", {"region": "r1", "zone": "z11"}),
    nd("nodeB", {"region": "r1", "zone": "z12"}),
    nd("nodeC", {"region": "r2", "zone": "z21"}),
]


def _anti_foo_bar(b: PodBuilder) -> PodBuilder:
    return b.pod_anti_affinity("region", in_("foo", "bar"))


def _anti_complex(b: PodBuilder) -> PodBuilder:
    return b.pod_anti_affinity("region", in_("foo", "bar", "buzz")).pod_anti_affinity(
        "zone", not_in("service", "bar", "security", "test")
    )


def _aff_complex(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity("region", in_("foo", "bar", "buzz")).pod_affinity(
        "zone", not_in("service", "bar", "security", "test")
    )


ADD_REMOVE_CASES = [
    pytest.param(
        _anti_foo_bar(pl("pending", labels=_FOO_BAR)).obj(),
        [pl("p1", "nodeA", _FOO_BAR).obj(), _anti_foo_bar(pl("p2", "nodeC")).obj()],
        _anti_foo_bar(pl("addedPod", "nodeB", _FOO_BAR)).obj(),
        {("region", "r1"): 2},
        {},
        id="anti-affinity term",
    ),
    pytest.param(
        _anti_complex(pl("pending", labels=_FOO_BAR)).obj(),
        [pl("p1", "nodeA", _FOO_BAR).obj(), _anti_foo_bar(pl("p2", "nodeC")).obj()],
        _anti_complex(pl("addedPod", "nodeA", _FOO_BAR)).obj(),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        {},
        id="anti-affinity terms",
    ),
    pytest.param(
        _aff_complex(pl("pending", labels=_FOO_BAR)).obj(),
        [pl("p1", "nodeA", _FOO_BAR).obj(), _aff_complex(_anti_foo_bar(pl("p2", "nodeC"))).obj()],
        _anti_complex(pl("addedPod", "nodeA", _FOO_BAR)).obj(),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
        id="affinity terms",
    ),
]


def _counts(s: ipa.PreFilterState) -> tuple[dict[tuple[str, str], int], ...]:
    return (
        ipa._flat(s.existing_anti_affinity_counts),
        ipa._flat(s.affinity_counts),
        ipa._flat(s.anti_affinity_counts),
    )


@pytest.mark.parametrize(("pending", "existing", "added", "want_anti", "want_affinity"), ADD_REMOVE_CASES)
def test_add_remove_pod(
    pending: Pod,
    existing: list[Pod],
    added: Pod,
    want_anti: dict[tuple[str, str], int],
    want_affinity: dict[tuple[str, str], int],
) -> None:
    """AddPod gives the state PreFilter computes with the pod present; RemovePod undoes it."""
    h_all = harness(_NODES_ABC, [*existing, added])
    assert h_all.pre_filter(pending)[1] == OK
    all_state = h_all.state.read(PRE_FILTER_STATE_KEY)
    h = harness(_NODES_ABC, existing)
    assert h.pre_filter(pending)[1] == OK
    state = h.state.read(PRE_FILTER_STATE_KEY)
    original = _counts(state.clone())
    plugin = h.plugin
    assert isinstance(plugin, ipa.InterPodAffinity)
    node_info = h.snapshot.node_infos().get(added.node_name)
    assert node_info is not None
    assert plugin.add_pod(h.state, pending, PodInfo.of(added), node_info) is None
    assert ipa._flat(state.anti_affinity_counts) == want_anti
    assert ipa._flat(state.affinity_counts) == want_affinity
    assert _counts(state) == _counts(all_state)
    assert plugin.remove_pod(h.state, pending, PodInfo.of(added), node_info) is None
    assert _counts(state) == original


def test_pre_filter_state_clone() -> None:
    """clone() copies the counts and shares the immutable parts."""
    s = ipa.PreFilterState(make_pod("p").obj(), (), (), {})
    s.existing_anti_affinity_counts = {("name", "node1"): 1, ("name", "node2"): 1}
    s.affinity_counts = {("name", "nodeA"): 1, ("name", "nodeC"): 2}
    s.anti_affinity_counts = {("name", "nodeN"): 3, ("name", "nodeM"): 1}
    c = s.clone()
    assert c is not s
    assert _counts(c) == _counts(s)
    c.affinity_counts["name", "nodeA"] = 5
    assert s.affinity_counts["name", "nodeA"] == 1


_NODE_A = nd("nodeA", {"hostname": "nodeA"})
_NORMAL_A = pb("normal", "nodeA", aaa="").obj()
_NORMAL_B = pb("normal", "nodeA", bbb="").obj()
_NORMAL_AB = pb("normal", "nodeA", aaa="", bbb="").obj()


def _terms(aff: Sequence[str], anti: Sequence[str]) -> Pod:
    b = make_pod("incoming")
    for k in aff:
        b.pod_affinity("hostname", exists(k))
    for k in anti:
        b.pod_anti_affinity("hostname", exists(k))
    return b.obj()


INCOMING_COUNTS_CASES = [
    pytest.param([], make_pod("aaa-normal").obj(), None, None, id="no pods, no terms"),
    pytest.param([_NORMAL_A], make_pod("aaa-normal").obj(), None, None, id="incoming pod without terms"),
    pytest.param([_NORMAL_B], _terms(["aaa"], ["aaa"]), {}, {}, id="no pod matches the terms"),
    pytest.param(
        [_NORMAL_A],
        _terms(["aaa"], ["aaa"]),
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
        id="existing pod matches both, single term",
    ),
    pytest.param(
        [_NORMAL_AB],
        _terms(["aaa", "bbb"], ["aaa"]),
        {("hostname", "nodeA"): 2},
        {("hostname", "nodeA"): 1},
        id="existing pod matches both, one count per affinity term",
    ),
    pytest.param(
        [_NORMAL_A],
        _terms(["aaa", "bbb"], ["aaa", "bbb"]),
        {},
        {("hostname", "nodeA"): 1},
        id="affinity needs all terms, anti-affinity any",
    ),
    pytest.param(
        [_NORMAL_AB],
        _terms(["aaa", "ccc"], ["aaa", "ccc"]),
        {},
        {("hostname", "nodeA"): 1},
        id="partial anti-affinity match, case 1",
    ),
    pytest.param(
        [_NORMAL_B],
        _terms(["aaa", "bbb"], ["aaa", "bbb"]),
        {},
        {("hostname", "nodeA"): 1},
        id="partial anti-affinity match, case 2",
    ),
]


@pytest.mark.parametrize(("existing", "pod", "want_affinity", "want_anti"), INCOMING_COUNTS_CASES)
def test_incoming_counts(
    existing: list[Pod],
    pod: Pod,
    want_affinity: dict[tuple[str, str], int] | None,
    want_anti: dict[tuple[str, str], int] | None,
) -> None:
    """Existing pods are counted per domain: all affinity terms must match, any anti term counts."""
    h = harness([_NODE_A], existing)
    _, status = h.pre_filter(pod)
    if want_affinity is None:
        assert status == SKIP
        return
    assert status == OK
    s = h.state.read(PRE_FILTER_STATE_KEY)
    assert ipa._flat(s.affinity_counts) == want_affinity
    assert ipa._flat(s.anti_affinity_counts) == want_anti


# --------------------------------------------------------------------------------------------
# Score (upstream TestPreferredAffinity / TestPreferredAffinityWithHardPodAffinitySymmetricWeight)

_S2 = {"security": "S2"}
_RG_CHINA = {"region": "China"}
_RG_INDIA = {"region": "India"}
_AZ1 = {"az": "az1"}
_AZ2 = {"az": "az2"}
_RG_CHINA_AZ1 = {"region": "China", "az": "az1"}


def stay_s1_region(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity("region", in_("security", "S1"), weight=5)


def stay_s2_region(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity("region", in_("security", "S2"), weight=6)


def affinity3(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity(
        "region", selector(None, ("security", "NotIn", ("S1",)), ("security", "In", ("S2",))), weight=8
    ).pod_affinity(
        "region", selector(None, ("security", "Exists", ()), ("wrongkey", "DoesNotExist", ())), weight=2
    )


def hard_affinity(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity("region", in_("security", "S1", "value2")).pod_affinity(
        "region", selector(None, ("security", "Exists", ()), ("wrongkey", "DoesNotExist", ()))
    )


def away_s1_az(b: PodBuilder) -> PodBuilder:
    return b.pod_anti_affinity("az", in_("security", "S1"), weight=5)


def away_s2_az(b: PodBuilder) -> PodBuilder:
    return b.pod_anti_affinity("az", in_("security", "S2"), weight=5)


def stay_s1_away_s2(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity("region", in_("security", "S1"), weight=8).pod_anti_affinity(
        "az", in_("security", "S2"), weight=5
    )


def aff_ns_selector(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity(
        "region", in_("security", "S1"), namespaces=["subteam2.team2"], namespace_selector=TEAM1, weight=5
    )


def anti_ns_selector(b: PodBuilder) -> PodBuilder:
    return b.pod_anti_affinity(
        "region", in_("security", "S1"), namespaces=["subteam2.team2"], namespace_selector=TEAM1, weight=5
    )


def nodes_(*labels: Mapping[str, str]) -> list[Node]:
    """node1, node2, ... with these labels."""
    return [nd(f"node{i}", lab) for i, lab in enumerate(labels, 1)]


def on(node: str, labels: Mapping[str, str] | None = None, ns: str | None = None, terms: Any = None) -> Pod:
    """An existing pod on *node* (names are generated)."""
    on.counter += 1  # type: ignore[attr-defined]
    b = pl(f"e{on.counter}", node, labels, ns)  # type: ignore[attr-defined]
    return (terms(b) if terms else b).obj()


on.counter = 0  # type: ignore[attr-defined]

_NS_PODS = [
    on("node1", _S1, "subteam1.team1"),
    on("node1", _S1, "subteam1.team1"),
    on("node1", _S1, "subteam1.team2"),
    on("node2", _S1, "subteam2.team1"),
]
_NS_PODS_2 = [
    on("node1", _S1, "subteam1.team1"),
    on("node1", _S1, "subteam1.team1"),
    on("node1", _S1, "subteam2.team2"),
    on("node2", _S1, "subteam2.team1"),
]

SCORE_CASES = [
    pytest.param(
        pl("p", labels=_S1).obj(),
        [],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        None,
        SKIP,
        id="no affinity anywhere: skip",
    ),
    pytest.param(
        stay_s1_region(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node2", _S2), on("node3", _S1)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [100, 0, 0],
        id="affinity: matching pod and topology key score high",
    ),
    pytest.param(
        stay_s1_region(pl("p")).obj(),
        [on("node1", _S1)],
        nodes_(_RG_CHINA, _RG_CHINA_AZ1, _RG_INDIA),
        [100, 100, 0],
        id="affinity: same topology value, same score",
    ),
    pytest.param(
        stay_s2_region(pl("p", labels=_S1)).obj(),
        [
            on("node1", _S2),
            on("node1", _S2),
            on("node2", _S2),
            on("node3", _S2),
            on("node4", _S2),
            on("node5", _S2),
        ],
        nodes_(_RG_CHINA, _RG_INDIA, _RG_CHINA, _RG_CHINA, _RG_INDIA),
        [100, 0, 100, 100, 0],
        id="affinity: the region with more matches scores high",
    ),
    pytest.param(
        affinity3(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node2", _S2), on("node3", _S1)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [20, 100, 0],
        id="affinity: several terms and operators",
    ),
    pytest.param(
        pl("p", labels=_S2).obj(),
        [on("node1", _S1, terms=stay_s1_region), on("node2", _S2, terms=stay_s2_region)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [0, 100, 0],
        id="affinity symmetry: preferred terms",
    ),
    pytest.param(
        pl("p", labels=_S1, ns="subteam1.team1").obj(),
        [on("node1", _S1, terms=aff_ns_selector), on("node2", _S2, terms=stay_s2_region)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [100, 0, 0],
        id="affinity symmetry with namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1, ns="subteam1.team1").obj(),
        [on("node1", _S1, terms=anti_ns_selector), on("node2", _S2, terms=stay_s2_region)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [0, 100, 100],
        id="anti-affinity symmetry with namespace selector",
    ),
    pytest.param(
        pl("p", labels=_S1).obj(),
        [on("node1", _S1, terms=hard_affinity), on("node2", _S2, terms=hard_affinity)],
        nodes_(_RG_CHINA, _RG_INDIA, _AZ1),
        [100, 100, 0],
        id="affinity symmetry: required terms",
    ),
    pytest.param(
        away_s1_az(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node2", _S2)],
        nodes_(_AZ1, _RG_CHINA),
        [0, 100],
        id="anti-affinity: matching pod scores low",
    ),
    pytest.param(
        away_s1_az(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node2", _S1)],
        nodes_(_AZ1, _RG_CHINA),
        [0, 100],
        id="anti-affinity: node without the key scores high",
    ),
    pytest.param(
        away_s1_az(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node1", _S1), on("node2", _S2)],
        nodes_(_AZ1, _RG_INDIA),
        [0, 100],
        id="anti-affinity: more matches, lower score",
    ),
    pytest.param(
        pl("p", labels=_S2).obj(),
        [on("node1", _S1, terms=away_s2_az), on("node2", _S2, terms=away_s1_az)],
        nodes_(_AZ1, _AZ2),
        [0, 100],
        id="anti-affinity symmetry",
    ),
    pytest.param(
        stay_s1_away_s2(pl("p", labels=_S1)).obj(),
        [on("node1", _S1), on("node2", _S1)],
        nodes_(_RG_CHINA, _AZ1),
        [100, 0],
        id="affinity and anti-affinity",
    ),
    pytest.param(
        stay_s1_away_s2(pl("p", labels=_S1)).obj(),
        [
            on("node1", _S1),
            on("node1", _S1),
            on("node2", _S1),
            on("node3", _S1),
            on("node3", _S1),
            on("node4", _S1),
            on("node5", _S1),
        ],
        nodes_(_RG_CHINA_AZ1, _RG_INDIA, _RG_CHINA, _RG_CHINA, _RG_INDIA),
        [100, 0, 100, 100, 0],
        id="affinity and anti-affinity, same labels everywhere",
    ),
    pytest.param(
        stay_s1_away_s2(pl("p", labels=_S1)).obj(),
        [
            on("node1", _S1),
            on("node2", _S2),
            on("node3", terms=stay_s1_away_s2),
            on("node4", terms=away_s1_az),
        ],
        nodes_(_RG_CHINA, _AZ1, _RG_INDIA, _AZ2),
        [100, 0, 100, 0],
        id="affinity, anti-affinity and symmetry",
    ),
    pytest.param(
        pl("p", labels=_S1).obj(),
        [on("node1", _S1), on("node2", terms=stay_s1_away_s2)],
        nodes_(_RG_CHINA, _RG_CHINA),
        [0, 0],
        id="only some nodes of a topology have pods with affinity",
    ),
    pytest.param(
        pl("p").pod_affinity("region", in_("security", _BAD), weight=8).obj(),
        [],
        nodes_(_RG_CHINA, _RG_CHINA),
        None,
        f'Invalid value: "{_BAD}"',
        id="invalid preferred affinity fails PreScore",
    ),
    pytest.param(
        pl("p").pod_anti_affinity("az", in_("security", _BAD), weight=5).obj(),
        [],
        nodes_(_RG_CHINA, _RG_CHINA),
        None,
        f'Invalid value: "{_BAD}"',
        id="invalid preferred anti-affinity fails PreScore",
    ),
    pytest.param(
        aff_ns_selector(pl("p", labels=_S1, ns="subteam1.team1")).obj(),
        _NS_PODS,
        nodes_(_RG_CHINA, _RG_INDIA),
        [100, 0],
        id="affinity with pods matching the namespace selector",
    ),
    pytest.param(
        aff_ns_selector(pl("p", labels=_S1, ns="subteam1.team1")).obj(),
        _NS_PODS_2,
        nodes_(_RG_CHINA, _RG_INDIA),
        [100, 0],
        id="affinity matching namespace selector and namespaces",
    ),
    pytest.param(
        anti_ns_selector(pl("p", labels=_S1, ns="subteam1.team1")).obj(),
        _NS_PODS,
        nodes_(_RG_CHINA, _RG_INDIA),
        [0, 100],
        id="anti-affinity with pods matching the namespace selector",
    ),
    pytest.param(
        anti_ns_selector(pl("p", labels=_S1, ns="subteam1.team1")).obj(),
        _NS_PODS_2,
        nodes_(_RG_CHINA, _RG_INDIA),
        [0, 100],
        id="anti-affinity matching namespace selector and namespaces",
    ),
    pytest.param(
        pl("p", labels=_S2).obj(),
        [on("node1", _S1, terms=stay_s1_away_s2), on("node2", _S2, terms=stay_s2_region)],
        nodes_(_RG_CHINA, _RG_INDIA),
        [0, 100],
        id="preferred terms of existing pods count",
    ),
    pytest.param(pl("p", labels=_S2).obj(), [], [], None, SKIP, id="no nodes to score"),
]


@pytest.mark.parametrize(
    ("pod", "existing", "nodes", "want", "want_status"),
    [pytest.param(*p.values[:4], p.values[4] if len(p.values) > 4 else None, id=p.id) for p in SCORE_CASES],
)
def test_score(
    pod: Pod, existing: list[Pod], nodes: list[Node], want: list[int] | None, want_status: Status | str | None
) -> None:
    """Preferred terms both ways and required affinity of existing pods, min-max normalized."""
    h = harness(nodes, existing)
    if isinstance(want_status, Status):
        assert h.pre_score(pod) == want_status
        return
    scores, status = h.run_score(pod)
    if isinstance(want_status, str):
        assert status.code.name == "ERROR"
        assert want_status in status.message
        assert "failed to parse pod: preferred" in status.message
        return
    assert status == OK
    assert scores == {n.name: s for n, s in zip(nodes, want or [])}


def test_ignore_preferred_terms_of_existing_pods() -> None:
    """ignorePreferredTermsOfExistingPods skips scoring pods without preferred terms."""
    pod = pl("p", labels=_S2).obj()
    existing = [on("node1", _S1, terms=stay_s1_away_s2), on("node2", _S2, terms=stay_s2_region)]
    nodes = nodes_(_RG_CHINA, _RG_INDIA)
    h = PluginHarness(NAME, {"ignorePreferredTermsOfExistingPods": True}, nodes, existing, NAMESPACES)
    assert h.pre_score(pod) == SKIP
    assert h.score(pod) == {"node1": 0, "node2": 0}
    assert harness(nodes, existing).score(pod) == {"node1": 0, "node2": 100}
    # a pod with preferred terms of its own is still scored, existing pods' terms included
    pod = stay_s2_region(pl("p", labels=_S2)).obj()
    assert h.score(pod) == {"node1": 0, "node2": 100}


def _hard2(b: PodBuilder) -> PodBuilder:
    return b.pod_affinity(
        "region", in_("service", "S1"), namespaces=["default", "subteam2.team2"], namespace_selector=TEAM1
    )


_HARD_PODS = [on("node1", terms=_hard2), on("node2", terms=_hard2)]


@pytest.mark.parametrize(
    ("ns", "weight", "want"),
    [
        pytest.param(None, 1, [100, 100, 0], id="default weight"),
        pytest.param(None, 0, None, id="zero weight: skip"),
        pytest.param("subteam1.team2", 1, None, id="no matching namespace: skip"),
        pytest.param("subteam1.team1", 1, [100, 100, 0], id="matching namespace selector"),
        pytest.param("subteam2.team2", 1, [100, 100, 0], id="matching namespaces"),
    ],
)
def test_hard_pod_affinity_weight(ns: str | None, weight: int, want: list[int] | None) -> None:
    """Required affinity terms of existing pods score with hardPodAffinityWeight."""
    pod = pl("p", labels={"service": "S1"}, ns=ns).obj()
    nodes = nodes_(_RG_CHINA, _RG_INDIA, _AZ1)
    h = PluginHarness(NAME, {"hardPodAffinityWeight": weight}, nodes, _HARD_PODS, NAMESPACES)
    if want is None:
        assert h.pre_score(pod) == SKIP
        return
    assert h.score(pod) == {n.name: s for n, s in zip(nodes, want)}


# --------------------------------------------------------------------------------------------
# Events and queueing hints (upstream plugin_test.go)

Q = QueueingHint.QUEUE
QS = QueueingHint.QUEUE_SKIP


def _plugin(args: Any = None) -> ipa.InterPodAffinity:
    plugin = harness(args=args).plugin
    assert isinstance(plugin, ipa.InterPodAffinity)
    return plugin


def test_events_to_register() -> None:
    """Assigned pods added / relabelled / deleted and nodes added / relabelled, each with a hint."""
    events = _plugin().events_to_register()
    assert [(e.event.resource, e.event.action) for e in events] == [
        (EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
    ]
    assert all(e.hint is not None for e in events)


def _u(uid: str, node: str = "", **labels: str) -> Pod:
    b = make_pod(uid).uid(uid).labels(labels)
    return b.node(node).obj() if node else b.obj()


_AFF_SCAN = make_pod("p").uid("p").pod_affinity("region", in_("service", "securityscan", "value2")).obj()
_AFF_AAA_BBB = (
    make_pod("p")
    .uid("p")
    .pod_affinity("hostname", exists("aaa"))
    .pod_affinity("hostname", exists("bbb"))
    .obj()
)
_ANTI_SCAN = (
    make_pod("p").uid("p").pod_anti_affinity("region", in_("service", "securityscan", "value2")).obj()
)


def _anti_scan_on(**labels: str) -> Pod:
    return (
        make_pod("other")
        .node("fake-node")
        .labels(labels)
        .pod_anti_affinity("region", in_("service", "securityscan", "value2"))
        .obj()
    )


POD_HINT_CASES = [
    pytest.param(
        _AFF_SCAN,
        None,
        _u("other", "fake-node", service="securityscan"),
        Q,
        id="added pod matches the affinity",
    ),
    pytest.param(_AFF_SCAN, None, _u("other", service="securityscan"), QS, id="unscheduled pod added"),
    pytest.param(
        _AFF_SCAN, None, _u("other", "fake-node", aaa="a"), QS, id="added pod does not match the affinity"
    ),
    pytest.param(
        _AFF_SCAN,
        _u("other", "fake-node", aaa="a"),
        _u("other", "fake-node", service="securityscan"),
        Q,
        id="updated pod starts matching the affinity",
    ),
    pytest.param(
        _AFF_SCAN,
        _u("other", "fake-node", service="value2"),
        _u("other", "fake-node", service="securityscan"),
        QS,
        id="updated pod matched before and after",
    ),
    pytest.param(
        _AFF_SCAN, _u("other", aaa="a"), _u("other", service="securityscan"), QS, id="unscheduled pod updated"
    ),
    pytest.param(
        _AFF_SCAN,
        _u("other", "fake-node", service="securityscan"),
        _u("other", "fake-node", aaa="a"),
        QS,
        id="updated pod stops matching the affinity",
    ),
    pytest.param(
        _AFF_AAA_BBB,
        _u("other", "fake-node", aaa="a"),
        _u("other", "fake-node", service="securityscan"),
        QS,
        id="multiple terms, match to non-match",
    ),
    pytest.param(
        _AFF_AAA_BBB,
        _u("other", "fake-node", aaa="a"),
        _u("other", "fake-node", aaa="", bbb=""),
        Q,
        id="multiple terms, non-match to match",
    ),
    pytest.param(
        _u("p", foo="baz"), _u("p", foo="bar"), _u("p", foo="baz"), Q, id="the pod itself relabelled"
    ),
    pytest.param(
        _u("p", foo="baz"),
        _u("p", foo="baz"),
        _u("p", foo="baz"),
        QS,
        id="the pod itself updated without label change",
    ),
    pytest.param(
        _ANTI_SCAN,
        _u("other", "fake-node", service="securityscan"),
        _u("other", "fake-node", service="aaaa"),
        Q,
        id="updated pod stops matching the anti-affinity",
    ),
    pytest.param(
        _ANTI_SCAN,
        _u("other", "fake-node", service="bbb"),
        _u("other", "fake-node", service="securityscan"),
        QS,
        id="updated pod starts matching the anti-affinity",
    ),
    pytest.param(
        _ANTI_SCAN,
        _u("other", "fake-node", aaa="a"),
        None,
        QS,
        id="deleted pod does not match the anti-affinity",
    ),
    pytest.param(
        _ANTI_SCAN,
        _u("other", "fake-node", service="securityscan"),
        None,
        Q,
        id="deleted pod matches the anti-affinity",
    ),
    pytest.param(
        pb("p", service="securityscan").obj(),
        _anti_scan_on(),
        None,
        Q,
        id="deleted pod's anti-affinity matched the pod",
    ),
    pytest.param(
        pb("p", service="foo").obj(),
        _anti_scan_on(),
        None,
        QS,
        id="deleted pod's anti-affinity did not match the pod",
    ),
    pytest.param(
        pb("p", service="foo").pod_anti_affinity("region", in_("service", "securityscan", "value2")).obj(),
        _anti_scan_on(service="foo"),
        None,
        QS,
        id="neither anti-affinity matches the other pod",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), POD_HINT_CASES)
def test_hint_pod_change(pod: Pod, old: Pod | None, new: Pod | None, want: QueueingHint) -> None:
    """Pod events requeue only when they may satisfy the affinity or lift an anti-affinity."""
    assert _plugin().is_schedulable_after_pod_change(pod, old, new) == want


_AFF_ZONE = make_pod("p").pod_affinity("zone", in_("service", "securityscan", "value2")).obj()
_AFF_REGION = make_pod("p").pod_affinity("region", in_("service", "securityscan", "value2")).obj()
_ANTI_ZONE = make_pod("p").pod_anti_affinity("zone", LabelSelector({"another": "label"})).obj()

NODE_HINT_CASES = [
    pytest.param(_AFF_ZONE, None, nd("node-a", {"zone": "zone1"}), Q, id="affinity: added node has the key"),
    pytest.param(
        _AFF_REGION, None, nd("node-a", {"zone": "zone1"}), QS, id="affinity: added node lacks the key"
    ),
    pytest.param(
        _AFF_ZONE,
        nd("node-a", {"aaa": "a"}),
        nd("node-a", {"aaa": "b"}),
        QS,
        id="affinity: unrelated label of a node without the key",
    ),
    pytest.param(
        _AFF_ZONE,
        nd("node-a", {"zone": "zone1"}),
        nd("node-a", {"zone": "zone1", "unrelated": "x"}),
        QS,
        id="affinity: unrelated label added",
    ),
    pytest.param(
        _AFF_ZONE,
        nd("node-a", {"zone": "zone1"}),
        nd("node-a", {"zone": "zone2"}),
        Q,
        id="affinity: topology value changed",
    ),
    pytest.param(
        _AFF_ZONE,
        nd("node-a", {"aaa": "a"}),
        nd("node-a", {"zone": "zone1"}),
        Q,
        id="affinity: node gains the key",
    ),
    pytest.param(
        _ANTI_ZONE, None, nd("node-a", {"zone": "zone1"}), Q, id="anti-affinity: added node has the key"
    ),
    pytest.param(_ANTI_ZONE, None, nd("node-a"), Q, id="anti-affinity: added node lacks the key"),
    pytest.param(
        _ANTI_ZONE,
        nd("node-a", {"zone": "zone1"}),
        nd("node-a", {"zone": "zone1", "unrelated": "x"}),
        QS,
        id="anti-affinity: unrelated label added",
    ),
    pytest.param(
        _ANTI_ZONE,
        nd("node-a", {"zone": "zone1"}),
        nd("node-a", {"zone": "zone2"}),
        Q,
        id="anti-affinity: topology value changed",
    ),
    pytest.param(
        _ANTI_ZONE,
        nd("node-a", {"aaa": "a"}),
        nd("node-a", {"zone": "zone1"}),
        QS,
        id="anti-affinity: node gains the key",
    ),
    pytest.param(
        _ANTI_ZONE,
        nd("node-a", {"zone": "zone1"}),
        nd("node-a", {"aaa": "a"}),
        Q,
        id="anti-affinity: node loses the key",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), NODE_HINT_CASES)
def test_hint_node_change(pod: Pod, old: Node | None, new: Node | None, want: QueueingHint) -> None:
    """Node events requeue only when topology values of the pod's terms appear or change."""
    assert _plugin().is_schedulable_after_node_change(pod, old, new) == want


# --------------------------------------------------------------------------------------------
# Args (upstream TestValidateInterPodAffinityArgs) and factory


def test_args_defaults() -> None:
    """No-arg args are upstream's v1 defaults."""
    args = InterPodAffinityArgs()
    assert args.hard_pod_affinity_weight == 1
    assert args.ignore_preferred_terms_of_existing_pods is False
    assert decode_args(InterPodAffinityArgs, {}) == args
    assert encode_args(args) == {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}
    data = {"hardPodAffinityWeight": 10, "ignorePreferredTermsOfExistingPods": True}
    assert encode_args(decode_args(InterPodAffinityArgs, data)) == data


@pytest.mark.parametrize(
    ("weight", "error"),
    [
        pytest.param(10, None, id="valid args"),
        pytest.param(0, None, id="zero is valid"),
        pytest.param(100, None, id="100 is valid"),
        pytest.param(
            -1, "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]", id="less than min"
        ),
        pytest.param(
            101, "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]", id="more than max"
        ),
    ],
)
def test_args_validation(weight: int, error: str | None) -> None:
    """hardPodAffinityWeight must be in [0, 100]."""
    args = InterPodAffinityArgs(hard_pod_affinity_weight=weight)
    framework = harness().framework
    if error is None:
        validate_args(args)
        assert isinstance(ipa.new(args, framework), ipa.InterPodAffinity)
        return
    with pytest.raises(PluginArgsError, match=error.replace("[", r"\[").replace("]", r"\]")):
        ipa.new({"hardPodAffinityWeight": weight}, framework)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param(
            {"hardPodAfinityWeight": 1}, r"hardPodAfinityWeight: unknown field", id="unknown key"
        ),
        pytest.param(
            {"hardPodAffinityWeight": "1"}, r"hardPodAffinityWeight: must be an integer", id="not an int"
        ),
        pytest.param(
            {"hardPodAffinityWeight": True}, r"hardPodAffinityWeight: must be an integer", id="bool"
        ),
        pytest.param(
            {"ignorePreferredTermsOfExistingPods": "yes"},
            r"ignorePreferredTermsOfExistingPods: must be a "
            "boolean",
            id="not a bool",
        ),
    ],
)
def test_args_decode_errors(data: dict[str, Any], match: str) -> None:
    """Malformed args mappings raise PluginArgsError naming the field."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(InterPodAffinityArgs, data)


def test_new_rejects_other_args_types() -> None:
    """The factory names the expected args type."""
    framework = harness().framework
    assert isinstance(ipa.new(None, framework), ipa.InterPodAffinity)
    with pytest.raises(PluginArgsError, match="want args of type InterPodAffinityArgs, got str"):
        ipa.new("x", framework)
    with pytest.raises(PluginArgsError, match="must be a mapping, got list"):
        decode_args(InterPodAffinityArgs, [])  # type: ignore[arg-type]
    assert _plugin().name == NAME == ipa.NAME


# --------------------------------------------------------------------------------------------
# Invariants and edge cases

_zones = st.sampled_from(["z0", "z1", None])
_cluster = st.tuples(
    st.lists(_zones, min_size=1, max_size=5),
    st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["a", "b", None]), st.booleans()), max_size=10),
)


def _build(spec: Any) -> tuple[list[Node], list[Pod]]:
    zones, pod_spec = spec
    nodes = [nd(f"n{i}", {"hostname": f"n{i}", **({"zone": z} if z else {})}) for i, z in enumerate(zones)]
    pods = []
    for j, (idx, app, anti) in enumerate(pod_spec):
        b = pl(f"q{j}", nodes[idx % len(nodes)].name, {"app": app} if app else None)
        if anti:
            b.pod_anti_affinity("zone", in_("app", "a")).pod_affinity("hostname", exists("app"), weight=3)
        pods.append(b.obj())
    return nodes, pods


@settings(max_examples=40, deadline=None)
@given(_cluster, st.integers(0, 4), st.sampled_from(["a", "b"]))
def test_add_then_remove_restores_state(spec: Any, node_idx: int, app: str) -> None:
    """AddPod followed by RemovePod of the same pod restores every count."""
    nodes, pods = _build(spec)
    pod = (
        pl("p", labels={"app": app})
        .pod_affinity("zone", in_("app", "a"))
        .pod_anti_affinity("hostname", exists("app"))
        .obj()
    )
    h = harness(nodes, pods)
    assert h.pre_filter(pod)[1] == OK
    s = h.state.read(PRE_FILTER_STATE_KEY)
    before = _counts(s.clone())
    plugin = h.plugin
    assert isinstance(plugin, ipa.InterPodAffinity)
    node_info = h.snapshot.node_infos().get(nodes[node_idx % len(nodes)].name)
    assert node_info is not None
    added = PodInfo.of(
        pl("new", node_info.name, {"app": "a"}).pod_anti_affinity("zone", in_("app", app)).obj()
    )
    assert plugin.add_pod(h.state, pod, added, node_info) is None
    assert plugin.remove_pod(h.state, pod, added, node_info) is None
    assert _counts(s) == before


@settings(max_examples=40, deadline=None)
@given(_cluster)
def test_normalized_scores_in_range(spec: Any) -> None:
    """Normalized scores stay within [0, 100]."""
    nodes, pods = _build(spec)
    pod = (
        pl("p", labels={"app": "a"})
        .pod_affinity("zone", in_("app", "a"), weight=7)
        .pod_anti_affinity("hostname", exists("app"), weight=2)
        .obj()
    )
    scores = harness(nodes, pods).score(pod)
    assert all(0 <= v <= 100 for v in scores.values())


def test_score_and_normalize_without_state_are_errors() -> None:
    """Score / NormalizeScore without PreScore's state return ERROR statuses."""
    plugin = _plugin()
    score, status = plugin.score(CycleState(), make_pod("p").obj(), NodeInfo(nd("n1")))
    assert score == 0
    assert status is not None
    assert "PreScoreInterPodAffinity" in status.message
    status = plugin.normalize_score(CycleState(), make_pod("p").obj(), [NodeScore("n1", 1)])
    assert status is not None
    assert status.code.name == "ERROR"


def test_normalize_min_max() -> None:
    """Scores are min-max scaled, truncating like Go's float-to-int conversion."""
    plugin = _plugin()
    state = CycleState()
    state.write(PRE_SCORE_STATE_KEY, ipa.PreScoreState({"zone": {"z": 1}}))
    scores = [NodeScore("a", -5), NodeScore("b", 0), NodeScore("c", 7)]
    assert plugin.normalize_score(state, make_pod("p").obj(), scores) is None
    assert scores == [NodeScore("a", 0), NodeScore("b", 41), NodeScore("c", 100)]
    scores = [NodeScore("a", 3), NodeScore("b", 3)]
    assert plugin.normalize_score(state, make_pod("p").obj(), scores) is None
    assert scores == [NodeScore("a", 0), NodeScore("b", 0)]


def test_incoming_term_namespace_resolution() -> None:
    """Namespace selectors of the incoming pod's terms resolve to namespace names (an empty
    selector means every namespace)."""
    plugin = _plugin()
    pod = (
        make_pod("p")
        .pod_affinity("zone", exists("x"), namespaces=["extra"], namespace_selector=TEAM1)
        .pod_affinity("zone", exists("x"), namespace_selector=LabelSelector())
        .obj()
    )
    terms = plugin._resolve(PodInfo.of(pod).required_affinity_terms)
    assert terms[0].namespaces == {"extra", "subteam1.team1", "subteam2.team1"}
    assert not terms[0].all_namespaces
    assert terms[1].all_namespaces
    assert terms[1].matches(pb("q", ns="anywhere", x="").obj())
    assert not terms[0].matches(pb("q", ns="anywhere", x="").obj())


def test_parse_error_reports_each_group() -> None:
    """Invalid selectors are reported per group of terms, as upstream aggregates them."""
    pod = (
        make_pod("p")
        .pod_anti_affinity("zone", LabelSelector({"bad key!": "v"}))
        .pod_affinity("zone", in_("k"), weight=1)
        .obj()
    )
    err = ipa.pod_parse_error(pod)
    assert err is not None
    assert err.startswith('[requiredAntiAffinityTerms: key: Invalid value: "bad key!"')
    assert "preferredAffinityTerms: values: Invalid value: []string(nil): for 'in', 'notin' operators" in err
    status = harness([_NODE1]).pre_filter(pod)[1]
    assert status.code.name == "UNSCHEDULABLE_AND_UNRESOLVABLE"
    assert status.message == f"parsing pod: {err}"


# --------------------------------------------------------------------------------------------
# Incremental counting across cycles

_op = st.tuples(
    st.sampled_from(["add", "add_anti", "remove", "relabel", "add_node"]),
    st.integers(0, 50),
    st.sampled_from(["a", "b"]),
)


@settings(max_examples=20, deadline=None)
@given(st.lists(_op, min_size=1, max_size=10))
def test_cached_counts_follow_cluster_changes(ops: list[Any]) -> None:
    """Counts cached across cycles equal counts computed from scratch after every cache change."""
    from schedframe.cache.cache import Cache

    cache = Cache()
    for i in range(4):
        cache.add_node(nd(f"n{i}", {"hostname": f"n{i}", "zone": f"z{i % 2}"}))
    h = harness()
    snapshot = cache.snapshot()
    h.framework.set_snapshot(snapshot)
    warm = h.plugin
    assert isinstance(warm, ipa.InterPodAffinity)
    pod = (
        pl("p", labels={"app": "a"})
        .pod_affinity("zone", in_("app", "a"))
        .pod_anti_affinity("hostname", exists("app"))
        .pod_affinity("zone", in_("app", "b"), weight=4)
        .pod_anti_affinity("hostname", in_("app", "a"), weight=2)
        .obj()
    )
    pods: list[Pod] = []
    for step, (op, n, app) in enumerate(ops):
        nodes = cache.nodes()
        node = nodes[n % len(nodes)]
        if op in ("add", "add_anti"):
            b = pl(f"q{step}", node.name, {"app": app})
            if op == "add_anti":
                b.pod_anti_affinity("zone", in_("app", "a")).pod_affinity("zone", exists("app"), weight=3)
            p = b.obj()
            cache.add_pod(p)
            pods.append(p)
        elif op == "remove" and pods:
            cache.remove_pod(pods.pop(n % len(pods)))
        elif op == "relabel":
            labels = {**node.labels, "zone": f"z{n % 3}"}
            cache.update_node(node, node.evolve(labels=labels))
        elif op == "add_node":
            cache.add_node(nd(f"x{step}", {"hostname": f"x{step}", "zone": "z1"}))
        cache.update_snapshot(snapshot)
        infos = list(snapshot.list())
        results = []
        for plugin in (warm, ipa.new(None, h.framework)):
            state = CycleState()
            plugin.pre_filter(state, pod, infos)
            plugin.pre_score(state, pod, infos)
            pre_filter = state.get(PRE_FILTER_STATE_KEY)
            pre_score = state.get(PRE_SCORE_STATE_KEY)
            results.append(
                (
                    _counts(pre_filter) if pre_filter else None,
                    pre_filter.existing_keys if pre_filter else None,
                    pre_score.topology_score if pre_score else None,
                )
            )
        assert results[0] == results[1]


@pytest.mark.parametrize("existing", [
    pytest.param([], id="the first pod of its group"),
    pytest.param([pb("e", "a", app="web").obj()], id="a matching pod in z1"),
    pytest.param([pb("e", "a", app="db").obj()], id="no matching pod"),
])
def test_filter_nodes_judges_missing_labels_apart_from_values_counted_nowhere(existing: list[Pod]) -> None:
    """filter_nodes judges the label combinations no count holds once, and a node lacking a
    term's topology label on its own: the first pod of a group with affinity to itself passes on
    the nodes with the label and not on the others, as Filter says node by node."""
    nodes = [nd("a", {"zone": "z1"}), nd("b", {}), nd("c", {"zone": "z2"}), nd("d", {"zone": "z3"})]
    pod = pb("p", app="web").pod_affinity_in("app", ["web"], "zone").obj()
    h = harness(nodes, existing)
    per_node = h.filter(pod)
    plugin = h.framework.get_plugin(NAME)
    infos = [h.framework.snapshot_shared_lister().node_infos().get(n.name) for n in nodes]
    batch = dict.fromkeys((n.name for n in nodes), OK)
    for i, status in plugin.filter_nodes(h.state, pod, infos):
        batch[nodes[i].name] = status
    assert {k: (v.code, v.reasons) for k, v in batch.items()} == {
        k: (v.code, v.reasons) for k, v in per_node.items()}
    assert not per_node["b"].is_success()
