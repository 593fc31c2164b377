"""PodTopologySpread: args, PreFilter state, Filter, PreFilter extensions, Score, hints.

The tables port upstream's podtopologyspread ``filtering_test.go``, ``scoring_test.go`` and
``plugin_test.go`` (with ``validation_pluginargs_test.go`` for the args). Cases that only exist to
exercise feature gates which are now always on are ported with the gate on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import ActionType, EventResource, Node, PluginArgsError, Pod, QueueingHint, Status
from schedframe.api import (
    LabelSelector,
    LabelSelectorRequirement,
    OwnerReference,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
    Taint,
    TopologySpreadConstraint,
)
from schedframe.cache.nodeinfo import NodeInfo, PodInfo
from schedframe.framework.args import decode_args, encode_args
from schedframe.framework.cycle_state import CycleState
from schedframe.framework.interfaces import NodeScore
from schedframe.plugins import pod_topology_spread as pts
from schedframe.plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpreadArgs,
    SpreadConstraint,
)
from schedframe.testing import PluginHarness, make_node, make_pod, selector

NAME = "PodTopologySpread"
DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = selector(None, ("foo", "Exists", ()))
BAR = selector(None, ("bar", "Exists", ()))
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "NoSchedule")
LIST = {"defaultingType": "List"}
OK = Status.OK
FAIL = Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
NO_LABEL = Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
MAX_INT32 = 2**31 - 1


def sel(**labels: str) -> LabelSelector:
    """``matchLabels`` selector."""
    return LabelSelector(labels)


def nd(
    name: str, labels: Mapping[str, str] | None = None, *, taints: Sequence[Taint] = (), **kw: str
) -> Node:
    """A node with labels (mapping and/or keyword labels)."""
    b = make_node(name).labels({**(labels or {}), **kw})
    for t in taints:
        b.taint(t.key, t.value, t.effect)
    return b.obj()


def ep(
    name: str,
    node: str,
    labels: Mapping[str, str] | None = None,
    *,
    ns: str | None = None,
    terminating: bool = False,
    **kw: str,
) -> Pod:
    """An existing (bound) pod."""
    b = make_pod(name, ns).node(node).labels({**(labels or {}), **kw})
    if terminating:
        b.terminating()
    return b.obj()


def sc(
    max_skew: int,
    key: str,
    selector_: LabelSelector | None,
    *,
    min_domains: int = 1,
    affinity: str = HONOR,
    taints: str = IGNORE,
) -> SpreadConstraint:
    """An expected resolved constraint."""
    return SpreadConstraint(max_skew, key, selector_, min_domains, affinity, taints)


def merged(base: LabelSelector, **extra: str) -> LabelSelector:
    """*base* with ``key In (value)`` requirements for *extra* (how matchLabelKeys merge)."""
    reqs = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in extra.items())
    return LabelSelector(base.match_labels, reqs + base.match_expressions)


def tsc(max_skew: int, key: str, when: str = DNS) -> dict[str, Any]:
    """A default constraint as a camelCase mapping."""
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}


def harness(
    nodes: Sequence[Node] = (), pods: Sequence[Pod] = (), *, args: Any = None, objects: Sequence[Any] = ()
) -> PluginHarness:
    """A harness around PodTopologySpread."""
    return PluginHarness(NAME, args, nodes, pods, objects=objects)


# --------------------------------------------------------------------------------------------
# PreFilter state (upstream TestPreFilterState)

_AB_XY = [
    nd("node-a", zone="zone1", node="node-a"),
    nd("node-b", zone="zone1", node="node-b"),
    nd("node-x", zone="zone2", node="node-x"),
    nd("node-y", zone="zone2", node="node-y"),
]
_AB_Y = [
    nd("node-a", zone="zone1", node="node-a"),
    nd("node-b", zone="zone1", node="node-b"),
    nd("node-y", zone="zone2", node="node-y"),
]
_PODS_5 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-a2", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-y1", "node-y", foo=""),
    ep("p-y2", "node-y", foo=""),
]
_PODS_7 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-a2", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-y1", "node-y", foo=""),
    ep("p-y2", "node-y", foo=""),
    ep("p-y3", "node-y", foo=""),
    ep("p-y4", "node-y", foo=""),
]
_PODS_FOO_A = [
    ep("p-a1", "node-a", foo="a"),
    ep("p-a2", "node-a", foo="a"),
    ep("p-b1", "node-b", foo="a"),
    ep("p-y1", "node-y", foo="a"),
    ep("p-y2", "node-y", foo="a"),
]
_ABC_FOO = [
    nd("node-a", node="node-a", foo=""),
    nd("node-b", node="node-b", foo=""),
    nd("node-c", node="node-c", bar=""),
]
_ABC_TAINT = [
    nd("node-a", node="node-a"),
    nd("node-b", node="node-b"),
    nd("node-c", node="node-c", bar="", taints=[UNSCHEDULABLE_TAINT]),
]
_BAR_PODS = [
    ep("p-a", "node-a", bar=""),
    ep("p-b", "node-b", bar=""),
    ep("p-c", "node-b", bar=""),
    ep("p-d", "node-c"),
]
_SVC_FOO_BAR = [Service("svc", selector={"foo": "bar"})]

PRE_FILTER_STATE_CASES = [
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(5, "zone", DNS, sel(foo="bar")).obj(),
        _AB_XY,
        [],
        None,
        [],
        ([sc(5, "zone", sel(foo="bar"))], [{"zone1": 0, "zone2": 0}], [0]),
        id="clean cluster, one constraint",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        _AB_XY,
        _PODS_5,
        None,
        [],
        ([sc(1, "zone", FOO)], [{"zone1": 3, "zone2": 2}], [2]),
        id="one constraint",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, None).obj(),
        _AB_XY,
        _PODS_5,
        None,
        [],
        ([sc(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [0]),
        id="null label selector counts nothing",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        [*_AB_XY, nd("node-o", zone="zone3", node="node-o"), nd("node-p", zone="zone3", node="node-p")],
        _PODS_5,
        None,
        [],
        ([sc(1, "zone", FOO)], [{"zone1": 3, "zone2": 2, "zone3": 0}], [0]),
        id="one constraint, 3 zones",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        _AB_XY,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", ns="ns1", foo=""),
            ep("p-b1", "node-b", foo=""),
            ep("p-y1", "node-y", ns="ns2", foo=""),
            ep("p-y2", "node-y", foo=""),
        ],
        None,
        [],
        ([sc(1, "zone", FOO)], [{"zone1": 2, "zone2": 1}], [1]),
        id="other namespaces do not count",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _AB_XY,
        _PODS_7,
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO)],
            [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
            [3, 0],
        ),
        id="two constraints",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", SA, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _AB_Y,
        _PODS_7,
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO)],
            [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
            [3, 1],
        ),
        id="soft constraints are bypassed",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, BAR)
        .obj(),
        _AB_Y,
        [ep("p-a", "node-a", foo=""), ep("p-b", "node-b", bar="")],
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", BAR)],
            [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}],
            [0, 0],
        ),
        id="different selectors, simple",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, BAR)
        .obj(),
        _AB_Y,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", foo="", bar=""),
            ep("p-b1", "node-b", foo=""),
            ep("p-y1", "node-y", foo=""),
            ep("p-y2", "node-y", foo="", bar=""),
            ep("p-y3", "node-y", foo=""),
            ep("p-y4", "node-y", foo="", bar=""),
        ],
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", BAR)],
            [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
            [3, 0],
        ),
        id="different selectors, complex pods",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_not_in("node", ["node-x"])
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _AB_XY,
        _PODS_7,
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO)],
            [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
            [3, 1],
        ),
        id="two constraints and node affinity excluding a node",
    ),
    pytest.param(
        make_pod("p").label("foo", "bar").label("baz", "kar").obj(),
        [],
        [],
        {**LIST, "defaultConstraints": [tsc(3, "node"), tsc(2, "node", SA), tsc(5, "rack")]},
        _SVC_FOO_BAR,
        ([sc(3, "node", sel(foo="bar")), sc(5, "rack", sel(foo="bar"))], [{}, {}], [MAX_INT32, MAX_INT32]),
        id="default constraints and a service",
    ),
    pytest.param(
        make_pod("p").label("foo", "bar").obj(),
        [],
        [],
        {**LIST, "defaultConstraints": [tsc(3, "node")]},
        [Service("svc", selector={"baz": "kep"})],
        Status.skip(),
        id="default constraints and a service that does not match",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "bar")
        .label("baz", "tar")
        .spread_constraint(1, "zone", DNS, sel(baz="tar"))
        .spread_constraint(2, "planet", SA, sel(fot="rok"))
        .obj(),
        [],
        [],
        {**LIST, "defaultConstraints": [tsc(2, "node")]},
        _SVC_FOO_BAR,
        ([sc(1, "zone", sel(baz="tar"))], [{}], [MAX_INT32]),
        id="pod constraints win over default constraints",
    ),
    pytest.param(
        make_pod("p").label("foo", "bar").obj(),
        [],
        [],
        {**LIST, "defaultConstraints": [tsc(2, "node", SA)]},
        _SVC_FOO_BAR,
        Status.skip(),
        id="default soft constraints only",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _AB_XY,
        _PODS_7,
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO)],
            [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
            [3, 0],
        ),
        id="domains are counted for minDomains",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "node", DNS, BAR)
        .obj(),
        _ABC_FOO,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR)], [{"node-a": 1, "node-b": 2}], [1]),
        id="nodeSelector honored by default",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "node", DNS, BAR, node_affinity_policy=IGNORE)
        .obj(),
        _ABC_FOO,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR, affinity=IGNORE)], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
        id="nodeAffinityPolicy Ignore with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", DNS, BAR)
        .obj(),
        _ABC_FOO,
        [
            ep("p-a", "node-a", bar=""),
            ep("p-c", "node-b", bar=""),
            ep("p-d", "node-b", bar=""),
            ep("p-e", "node-c"),
        ],
        None,
        [],
        ([sc(1, "node", BAR)], [{"node-a": 1, "node-b": 2}], [1]),
        id="nodeAffinityPolicy Honor with node affinity",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", DNS, BAR, node_affinity_policy=IGNORE)
        .obj(),
        _ABC_FOO,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR, affinity=IGNORE)], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
        id="nodeAffinityPolicy Ignore with node affinity",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, BAR).obj(),
        _ABC_TAINT,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR)], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
        id="nodeTaintsPolicy Ignore by default",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "node", DNS, BAR, node_taints_policy=IGNORE)
        .obj(),
        _ABC_TAINT,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR)], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
        id="nodeTaintsPolicy Ignore",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, BAR, node_taints_policy=HONOR).obj(),
        _ABC_TAINT,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR, taints=HONOR)], [{"node-a": 1, "node-b": 2}], [1]),
        id="nodeTaintsPolicy Honor skips tainted nodes",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .toleration(UNSCHEDULABLE_TAINT.key, operator="Exists")
        .spread_constraint(1, "node", DNS, BAR, node_taints_policy=HONOR)
        .obj(),
        _ABC_TAINT,
        _BAR_PODS,
        None,
        [],
        ([sc(1, "node", BAR, taints=HONOR)], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
        id="nodeTaintsPolicy Honor keeps tolerated tainted nodes",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO, node_affinity_policy=IGNORE)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b"),
            nd("node-x", zone="zone2", node="node-x", foo=""),
        ],
        [ep("p-b1", "node-b", foo=""), ep("p-b2", "node-b", foo=""), ep("p-x1", "node-x", foo="")],
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO, affinity=IGNORE)],
            [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
            [0, 0],
        ),
        id="two constraints, zone honor/ignore, node ignore/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b", taints=[UNSCHEDULABLE_TAINT]),
            nd("node-x", zone="zone2", node="node-x", foo=""),
        ],
        [ep("p-b1", "node-b", foo=""), ep("p-b2", "node-b", foo=""), ep("p-x1", "node-x", foo="")],
        None,
        [],
        (
            [sc(1, "zone", FOO, taints=HONOR), sc(1, "node", FOO)],
            [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
            [0, 0],
        ),
        id="two constraints, zone honor/honor, node honor/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a"),
            nd("node-b", zone="zone1", node="node-b", foo="", taints=[UNSCHEDULABLE_TAINT]),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y"),
        ],
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", foo=""),
            ep("p-x1", "node-x", foo=""),
            ep("p-y1", "node-y", foo=""),
        ],
        None,
        [],
        (
            [sc(1, "zone", FOO), sc(1, "node", FOO)],
            [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
            [0, 0],
        ),
        id="two constraints, zone honor/ignore, node honor/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO, node_affinity_policy=IGNORE)
        .spread_constraint(1, "node", DNS, FOO, node_taints_policy=HONOR)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a"),
            nd("node-b", zone="zone1", node="node-b", foo="", taints=[UNSCHEDULABLE_TAINT]),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y", foo=""),
        ],
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", foo=""),
            ep("p-x1", "node-x", foo=""),
            ep("p-x2", "node-x", foo=""),
            ep("p-y1", "node-y", foo=""),
        ],
        None,
        [],
        (
            [sc(1, "zone", FOO, affinity=IGNORE), sc(1, "node", FOO, taints=HONOR)],
            [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
            [2, 1],
        ),
        id="two constraints, zone ignore/ignore, node honor/honor",
    ),
    pytest.param(
        # upstream "matchLabelKeys ignored when feature gate disabled", with the (GA) feature on
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .spread_constraint(1, "zone", DNS, FOO, match_label_keys=["bar"])
        .obj(),
        _AB_XY,
        _PODS_5,
        None,
        [],
        ([sc(1, "zone", merged(FOO, bar=""))], [{"zone1": 0, "zone2": 0}], [0]),
        id="matchLabelKeys merged (no existing pod has the key)",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .label("bar", "a")
        .spread_constraint(1, "zone", DNS, FOO, match_label_keys=["bar"])
        .obj(),
        _AB_XY,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", foo="", bar="a"),
            ep("p-b1", "node-b", foo=""),
            ep("p-y1", "node-y", foo="", bar="a"),
            ep("p-y2", "node-y", bar=""),
        ],
        None,
        [],
        ([sc(1, "zone", merged(FOO, bar="a"))], [{"zone1": 1, "zone2": 1}], [1]),
        id="matchLabelKeys ANDed with a non-empty selector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "a")
        .spread_constraint(1, "zone", DNS, LabelSelector(), match_label_keys=["foo"])
        .obj(),
        _AB_XY,
        _PODS_FOO_A,
        None,
        [],
        ([sc(1, "zone", merged(LabelSelector(), foo="a"))], [{"zone1": 3, "zone2": 2}], [2]),
        id="matchLabelKeys ANDed with an empty selector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, None, match_label_keys=["bar"])
        .obj(),
        _AB_XY,
        _PODS_FOO_A,
        None,
        [],
        ([sc(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [0]),
        id="matchLabelKeys ignored with a null selector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, None, match_label_keys=["bar"])
        .obj(),
        _AB_XY,
        _PODS_FOO_A,
        None,
        [],
        ([sc(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [0]),
        id="null selector matches no pod",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO, match_label_keys=["bar"]).obj(),
        _AB_XY,
        _PODS_FOO_A,
        None,
        [],
        ([sc(1, "zone", FOO)], [{"zone1": 3, "zone2": 2}], [2]),
        id="matchLabelKeys key missing from the pod is ignored",
    ),
    pytest.param(
        make_pod("p").label("foo", "").obj(),
        [nd("node-a", zone="zone1", node="node-a")],
        [],
        None,
        [],
        Status.skip(),
        id="skip without constraints",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "args", "objects", "want"), PRE_FILTER_STATE_CASES)
def test_pre_filter_state(
    pod: Pod, nodes: list[Node], existing: list[Pod], args: Any, objects: list[Any], want: Any
) -> None:
    """PreFilter resolves the hard constraints and counts matching pods per eligible domain."""
    h = harness(nodes, existing, args=args if args is not None else LIST, objects=objects)
    _, status = h.pre_filter(pod)
    if isinstance(want, Status):
        assert status == want
        return
    assert status == OK
    constraints, counts, mins = want
    s = h.state.read(PRE_FILTER_STATE_KEY)
    assert list(s.constraints) == constraints
    assert s.counts == counts
    assert s.min_match == mins


# --------------------------------------------------------------------------------------------
# PreFilter extensions (upstream TestPreFilterStateAddPod / TestPreFilterStateRemovePod)

_NODE_FOO = make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, FOO).obj()
_ZONE_FOO = make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj()
_ZONE_NODE_FOO = (
    make_pod("p")
    .label("foo", "")
    .spread_constraint(1, "zone", DNS, FOO)
    .spread_constraint(1, "node", DNS, FOO)
    .obj()
)
_ZONE_FOO_NODE_BAR = (
    make_pod("p")
    .label("foo", "")
    .label("bar", "")
    .spread_constraint(1, "zone", DNS, FOO)
    .spread_constraint(1, "node", DNS, BAR)
    .obj()
)
_ZONE_FOO_NOT_BAR = (
    make_pod("p")
    .label("foo", "")
    .node_affinity_not_in("foo", ["bar"])
    .spread_constraint(1, "zone", DNS, FOO)
    .obj()
)
_AB_Z1 = [nd("node-a", zone="zone1", node="node-a"), nd("node-b", zone="zone1", node="node-b")]
_AX = [nd("node-a", zone="zone1", node="node-a"), nd("node-x", zone="zone2", node="node-x")]
_ABX = [*_AB_Z1, nd("node-x", zone="zone2", node="node-x")]
_AB_FOOBAR = [
    nd("node-a", zone="zone1", node="node-a", foo="bar"),
    nd("node-b", zone="zone2", node="node-b", foo=""),
]
_AB_TAINT = [
    nd("node-a", zone="zone1", node="node-a", taints=[UNSCHEDULABLE_TAINT]),
    nd("node-b", zone="zone2", node="node-b"),
]

ADD_POD_CASES = [
    pytest.param(
        _NODE_FOO,
        ep("p-a1", "node-a", foo=""),
        [],
        _AB_Z1,
        "node-a",
        [{"node-a": 1, "node-b": 0}],
        [0],
        id="node a and b both hold the minimum",
    ),
    pytest.param(
        _NODE_FOO,
        ep("p-a1", "node-a", foo=""),
        [ep("p-b1", "node-b", foo="")],
        _AB_Z1,
        "node-a",
        [{"node-a": 1, "node-b": 1}],
        [1],
        id="only node a holds the minimum",
    ),
    pytest.param(
        _NODE_FOO,
        ep("p-a1", "node-a", ns="ns1", foo=""),
        [ep("p-b1", "node-b", foo="")],
        _AB_Z1,
        "node-a",
        [{"node-a": 0, "node-b": 1}],
        [0],
        id="pod of another namespace changes nothing",
    ),
    pytest.param(
        _NODE_FOO,
        ep("p-b2", "node-b", foo=""),
        [ep("p-b1", "node-b", foo="")],
        _AB_Z1,
        "node-b",
        [{"node-a": 0, "node-b": 2}],
        [0],
        id="pod on a non-minimal node",
    ),
    pytest.param(
        _ZONE_NODE_FOO,
        ep("p-a1", "node-a", foo=""),
        [],
        _AX,
        "node-a",
        [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
        [0, 0],
        id="zone and node, empty cluster",
    ),
    pytest.param(
        _ZONE_NODE_FOO,
        ep("p-a1", "node-a", foo=""),
        [ep("p-x1", "node-x", foo="")],
        _AX,
        "node-a",
        [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}],
        [1, 1],
        id="zone and node, minimum moves up",
    ),
    pytest.param(
        _ZONE_NODE_FOO,
        ep("p-a1", "node-a", foo=""),
        [ep("p-b1", "node-b", foo=""), ep("p-b2", "node-b", foo=""), ep("p-x1", "node-x", foo="")],
        _ABX,
        "node-a",
        [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}],
        [1, 1],
        id="node minimum moves, zone minimum stays",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR,
        ep("p-a1", "node-a", foo=""),
        [
            ep("p-b1", "node-b", foo="", bar=""),
            ep("p-x1", "node-x", foo="", bar=""),
            ep("p-x2", "node-x", bar=""),
        ],
        _ABX,
        "node-a",
        [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
        [1, 0],
        id="different selectors, only the zone constraint matches",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR,
        ep("p-a1", "node-a", foo="", bar=""),
        [ep("p-b1", "node-b", bar=""), ep("p-x1", "node-x", foo="", bar=""), ep("p-x2", "node-x", bar="")],
        _ABX,
        "node-a",
        [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}],
        [1, 1],
        id="different selectors, both constraints match",
    ),
    pytest.param(
        _ZONE_FOO_NOT_BAR,
        ep("p-a1", "node-a", foo="", zone="zone1"),
        [ep("p-a2", "node-a", foo="", zone="zone1"), ep("p-b1", "node-b", foo="", zone="zone2")],
        _AB_FOOBAR,
        "node-a",
        [{"zone2": 1}],
        [1],
        id="node excluded by the preemptor's node affinity",
    ),
    pytest.param(
        _ZONE_FOO,
        ep("p-b1", "node-b", foo="", zone="zone2"),
        [ep("p-a1", "node-a", foo="", zone="zone1"), ep("p-b2", "node-b", foo="", zone="zone2")],
        _AB_FOOBAR,
        "node-b",
        [{"zone1": 1, "zone2": 2}],
        [1],
        id="node matching the preemptor's node affinity",
    ),
    pytest.param(
        _ZONE_FOO,
        ep("p-b1", "node-b", zone="zone2"),
        [ep("p-a1", "node-a", foo="", zone="zone1"), ep("p-b2", "node-b", foo="", zone="zone2")],
        _AB_FOOBAR,
        "node-b",
        [{"zone1": 1, "zone2": 1}],
        [1],
        id="pod not matching the selector",
    ),
    pytest.param(
        _ZONE_FOO,
        ep("p-b1", "node-b", foo="", zone="zone2"),
        [ep("p-a1", "node-a", foo="", zone="zone1"), ep("p-b2", "node-b", foo="", zone="zone2")],
        _AB_TAINT,
        "node-b",
        [{"zone1": 1, "zone2": 2}],
        [1],
        id="tainted node counted (taints ignored)",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .toleration(UNSCHEDULABLE_TAINT.key, operator="Exists")
        .spread_constraint(1, "zone", DNS, FOO)
        .obj(),
        ep("p-b1", "node-b", foo="", zone="zone2"),
        [ep("p-a1", "node-a", foo="", zone="zone1"), ep("p-b2", "node-b", foo="", zone="zone2")],
        _AB_TAINT,
        "node-b",
        [{"zone1": 1, "zone2": 2}],
        [1],
        id="tainted node counted, taint tolerated",
    ),
]


@pytest.mark.parametrize(("preemptor", "added", "existing", "nodes", "node", "counts", "mins"), ADD_POD_CASES)
def test_add_pod(
    preemptor: Pod,
    added: Pod,
    existing: list[Pod],
    nodes: list[Node],
    node: str,
    counts: list[dict[str, int]],
    mins: list[int],
) -> None:
    """AddPod updates the per-domain counts and the global minimum."""
    h = harness(nodes, existing, args=LIST)
    assert h.pre_filter(preemptor)[1] == OK
    plugin = h.plugin
    assert isinstance(plugin, pts.PodTopologySpread)
    node_info = h.snapshot.node_infos().get(node)
    assert node_info is not None
    assert plugin.add_pod(h.state, preemptor, PodInfo.of(added), node_info) is None
    s = h.state.read(PRE_FILTER_STATE_KEY)
    assert s.counts == counts
    assert s.min_match == mins


_REMOVE_3 = [ep("p-a1", "node-a", foo=""), ep("p-b1", "node-b", foo=""), ep("p-x1", "node-x", foo="")]
_REMOVE_4 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-x1", "node-x", foo=""),
    ep("p-y1", "node-y", foo=""),
]
_REMOVE_5 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-a2", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-x1", "node-x", foo=""),
    ep("p-x2", "node-x", foo=""),
]
_REMOVE_A0 = [ep("p-a0", "node-a", bar=""), *_REMOVE_4]

REMOVE_POD_CASES = [
    pytest.param(
        _ZONE_FOO,
        _ABX,
        _REMOVE_3,
        _REMOVE_3[0],
        "node-a",
        [{"zone1": 1, "zone2": 1}],
        [1],
        id="zone constraint, minimum unchanged",
    ),
    pytest.param(
        _ZONE_FOO,
        _AB_XY,
        _REMOVE_4,
        _REMOVE_4[0],
        "node-a",
        [{"zone1": 1, "zone2": 2}],
        [1],
        id="zone constraint, minimum changed",
    ),
    pytest.param(
        _ZONE_FOO,
        _AB_XY,
        _REMOVE_A0,
        _REMOVE_A0[0],
        "node-a",
        [{"zone1": 2, "zone2": 2}],
        [2],
        id="removing an irrelevant pod changes nothing",
    ),
    pytest.param(
        _ZONE_FOO,
        _AB_XY,
        _REMOVE_4,
        ep("p-a0", "node-a", bar=""),
        "node-a",
        [{"zone1": 2, "zone2": 2}],
        [2],
        id="removing a non-existing pod changes nothing",
    ),
    pytest.param(
        _ZONE_NODE_FOO,
        _ABX,
        _REMOVE_5,
        _REMOVE_5[3],
        "node-x",
        [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
        [1, 1],
        id="two constraints",
    ),
    pytest.param(
        _ZONE_FOO_NOT_BAR,
        _AB_FOOBAR,
        [ep("p-a2", "node-a", foo="", zone="zone1"), ep("p-b1", "node-b", foo="", zone="zone2")],
        ep("p-a1", "node-a", foo="", zone="zone1"),
        "node-a",
        [{"zone2": 1}],
        [1],
        id="node excluded by the preemptor's node affinity",
    ),
    pytest.param(
        _ZONE_FOO,
        _AB_FOOBAR,
        [ep("p-a1", "node-a", foo="", zone="zone1"), ep("p-b2", "node-b", foo="", zone="zone2")],
        ep("p-b1", "node-b", foo="", zone="zone2"),
        "node-b",
        [{"zone1": 1, "zone2": 0}],
        [0],
        id="node matching the preemptor's node affinity",
    ),
]


@pytest.mark.parametrize(
    ("preemptor", "nodes", "existing", "removed", "node", "counts", "mins"), REMOVE_POD_CASES
)
def test_remove_pod(
    preemptor: Pod,
    nodes: list[Node],
    existing: list[Pod],
    removed: Pod,
    node: str,
    counts: list[dict[str, int]],
    mins: list[int],
) -> None:
    """RemovePod updates the per-domain counts and the global minimum."""
    h = harness(nodes, existing, args=LIST)
    assert h.pre_filter(preemptor)[1] == OK
    plugin = h.plugin
    assert isinstance(plugin, pts.PodTopologySpread)
    node_info = h.snapshot.node_infos().get(node)
    assert node_info is not None
    assert plugin.remove_pod(h.state, preemptor, PodInfo.of(removed), node_info) is None
    s = h.state.read(PRE_FILTER_STATE_KEY)
    assert s.counts == counts
    assert s.min_match == mins


# --------------------------------------------------------------------------------------------
# Filter (upstream TestSingleConstraint / TestMultipleConstraints)

_CODES = {"S": OK, "U": FAIL, "R": NO_LABEL}
_2_1_0_3 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-a2", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-y1", "node-y", foo=""),
    ep("p-y2", "node-y", foo=""),
    ep("p-y3", "node-y", foo=""),
]
_ABC = [nd("node-a", node="node-a"), nd("node-b", node="node-b"), nd("node-c", node="node-c")]
_2_2_1 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-a2", "node-a", foo=""),
    ep("p-b1", "node-b", foo=""),
    ep("p-b2", "node-b", foo=""),
    ep("p-c1", "node-c", foo=""),
]
_ABXY_FOO = [
    nd("node-a", node="node-a", foo=""),
    nd("node-b", node="node-b", foo=""),
    nd("node-x", node="node-x", foo=""),
    nd("node-y", node="node-y"),
]
_ABXY_TAINT = [
    nd("node-a", node="node-a", foo=""),
    nd("node-b", node="node-b", foo=""),
    nd("node-x", node="node-x", foo=""),
    nd("node-y", node="node-y", taints=[UNSCHEDULABLE_TAINT]),
]
_1_1_0_1 = [ep("p-b1", "node-a", foo=""), ep("p-b2", "node-b", foo=""), ep("p-y1", "node-y", foo="")]

SINGLE_CONSTRAINT_CASES = [
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        _AB_XY,
        [],
        "SSSS",
        id="no existing pods",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, BAR).obj(),
        _AB_XY,
        [],
        "SSSS",
        id="no existing pods, pod does not match itself",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        _AB_XY,
        [
            ep("p-a1", "node-a", ns="ns1", foo=""),
            ep("p-b1", "node-a", ns="ns2", foo=""),
            ep("p-x1", "node-x", foo=""),
            ep("p-y1", "node-y", foo=""),
        ],
        "SSUU",
        id="pods of other namespaces do not count",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, None).obj(),
        _AB_XY,
        [ep("p-x1", "node-x", foo=""), ep("p-y1", "node-y", foo="")],
        "SSSS",
        id="null selector matches no existing pod",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        _AB_XY,
        _2_1_0_3,
        "SSSS",
        id="zones 3/3, all nodes fit",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj(),
        [
            nd("node-a", zone="zone1", node="node-a"),
            nd("node-b", zon="zone1", node="node-b"),
            nd("node-x", zone="zone2", node="node-x"),
            nd("node-y", zone="zone2", node="node-y"),
        ],
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-b1", "node-b", foo=""),
            ep("p-x1", "node-x", foo=""),
            ep("p-y1", "node-y", foo=""),
        ],
        "SRUU",
        id="zones 1/2 as node-b lacks the zone label",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "rack", DNS, FOO).obj(),
        _AX,
        [],
        "RR",
        id="no node has the rack label",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, FOO).obj(),
        _AB_XY,
        _2_1_0_3,
        "UUSU",
        id="nodes 2/1/0/3, only node-x fits",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "node", DNS, FOO).obj(),
        _AB_XY,
        _2_1_0_3,
        "USSU",
        id="nodes 2/1/0/3, maxSkew 2",
    ),
    pytest.param(
        make_pod("p").label("bar", "").spread_constraint(1, "node", DNS, FOO).obj(),
        _AB_XY,
        _2_1_0_3,
        "USSU",
        id="nodes 2/1/0/3, pod does not match itself",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("node", ["node-a", "node-y"])
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _AB_XY,
        _2_1_0_3,
        "SSSU",
        id="node affinity restricts the domains to node-a and node-y",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, FOO).obj(),
        [nd("node-a", node="node-a"), nd("node-b", node="node-b")],
        [ep("p-a", "node-a", terminating=True, foo=""), ep("p-b", "node-b", foo="")],
        "SU",
        id="terminating pods do not count",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_not_in("node", ["node-b"])
        .spread_constraint(1, "zone", DNS, FOO)
        .obj(),
        _AB_XY,
        [ep("p-b1", "node-b", foo=""), ep("p-b2", "node-b", foo=""), ep("p-y1", "node-y", foo="")],
        "SSUU",
        id="node affinity excludes node-b's pods",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "node", DNS, FOO, min_domains=4).obj(),
        _ABC,
        _2_2_1,
        "UUS",
        id="fewer domains than minDomains, global minimum is 0",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "node", DNS, FOO, min_domains=2).obj(),
        _ABC,
        _2_2_1,
        "SSS",
        id="more domains than minDomains",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "zone", DNS, FOO, min_domains=3).obj(),
        _AB_XY,
        [ep("p-b1", "node-a", foo=""), ep("p-b2", "node-b", foo=""), ep("p-y1", "node-y", foo="")],
        "UUSS",
        id="zones 2/1, fewer domains than minDomains",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "zone", DNS, FOO, min_domains=1).obj(),
        _AB_XY,
        [ep("p-b1", "node-a", foo=""), ep("p-b2", "node-b", foo=""), ep("p-y1", "node-y", foo="")],
        "SSSS",
        id="zones 2/1, more domains than minDomains",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _ABXY_FOO,
        _1_1_0_1,
        "UUSS",
        id="nodeAffinityPolicy Honor with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "node", DNS, FOO, node_affinity_policy=IGNORE)
        .obj(),
        _ABXY_FOO,
        _1_1_0_1,
        "UUSU",
        id="nodeAffinityPolicy Ignore with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        _ABXY_FOO,
        _1_1_0_1,
        "UUSS",
        id="nodeAffinityPolicy Honor with node affinity",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", DNS, FOO, node_affinity_policy=IGNORE)
        .obj(),
        _ABXY_FOO,
        _1_1_0_1,
        "UUSU",
        id="nodeAffinityPolicy Ignore with node affinity",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, FOO, node_taints_policy=HONOR).obj(),
        _ABXY_TAINT,
        _1_1_0_1,
        "UUSS",
        id="nodeTaintsPolicy Honor",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", DNS, FOO).obj(),
        _ABXY_TAINT,
        _1_1_0_1,
        "UUSU",
        id="nodeTaintsPolicy Ignore",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "want"), SINGLE_CONSTRAINT_CASES)
def test_filter_single_constraint(pod: Pod, nodes: list[Node], existing: list[Pod], want: str) -> None:
    """Filter enforces one hard constraint: maxSkew, minDomains, missing labels, inclusion policies."""
    got = harness(nodes, existing, args=LIST).filter(pod)
    assert got == {n.name: _CODES[c] for n, c in zip(nodes, want)}


_ZONE_FOO_NODE_FOO = (
    make_pod("p")
    .label("foo", "")
    .spread_constraint(1, "zone", DNS, FOO)
    .spread_constraint(1, "node", DNS, FOO)
    .obj()
)
_ZONE_FOO_NODE_BAR_SELF_BAR = (
    make_pod("p")
    .label("bar", "")
    .spread_constraint(1, "zone", DNS, FOO)
    .spread_constraint(1, "node", DNS, BAR)
    .obj()
)
_1_1_0_1_INCL = [ep("p-a1", "node-a", foo=""), ep("p-b1", "node-b", foo=""), ep("p-y1", "node-y", foo="")]

MULTIPLE_CONSTRAINTS_CASES = [
    pytest.param(_ZONE_FOO_NODE_FOO, _AB_XY, _2_1_0_3, "UUSU", id="zone and node, spreads 3/3 and 2/1/0/3"),
    pytest.param(
        _ZONE_FOO_NODE_FOO,
        _AB_XY,
        [*_2_1_0_3, ep("p-y4", "node-y", foo="")],
        "UUUU",
        id="zone and node, spreads 3/4 and 2/1/0/4",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR,
        _AB_XY,
        [ep("p-a1", "node-a", foo=""), ep("p-y1", "node-y", bar="")],
        "UUSU",
        id="different selectors, spreads 1/0 and 1/0/0/1",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR,
        _AB_XY,
        [ep("p-a1", "node-a", foo=""), ep("p-x1", "node-x", bar=""), ep("p-y1", "node-y", bar="")],
        "UUUU",
        id="different selectors, spreads 1/0 and 0/0/1/1",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR,
        _AB_XY,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-a2", "node-a", foo="", bar=""),
            ep("p-y1", "node-y", foo=""),
            ep("p-y2", "node-y", foo="", bar=""),
            ep("p-y3", "node-y", foo=""),
        ],
        "USUU",
        id="different selectors, spreads 2/3 and 1/0/0/1",
    ),
    pytest.param(
        _ZONE_FOO_NODE_BAR_SELF_BAR,
        _AB_XY,
        [ep("p-a1", "node-a", foo=""), ep("p-x1", "node-x", bar=""), ep("p-y1", "node-y", bar="")],
        "SSUU",
        id="pod does not match itself on the zone constraint",
    ),
    pytest.param(
        _ZONE_FOO_NODE_FOO,
        [
            nd("node-a", zone="zone1", node="node-a"),
            nd("node-b", zone="zone1", node="node-b"),
            nd("node-x", zone="zone2"),
            nd("node-y", zone="zone2", node="node-y"),
        ],
        [ep("p-a1", "node-a", foo=""), ep("p-y3", "node-y", foo="")],
        "USRU",
        id="node-x lacks the node label",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO, node_affinity_policy=IGNORE)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b", foo=""),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y"),
        ],
        _1_1_0_1_INCL,
        "UUSU",
        id="zone honor/ignore, node ignore/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b", foo=""),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y", taints=[UNSCHEDULABLE_TAINT]),
        ],
        _1_1_0_1_INCL,
        "UUSU",
        id="zone honor/honor, node honor/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO)
        .spread_constraint(1, "node", DNS, FOO)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b"),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y", foo="", taints=[UNSCHEDULABLE_TAINT]),
        ],
        _1_1_0_1_INCL,
        "USSU",
        id="zone honor/ignore, node honor/ignore",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR)
        .spread_constraint(1, "node", DNS, FOO, node_affinity_policy=IGNORE)
        .obj(),
        [
            nd("node-a", zone="zone1", node="node-a", foo=""),
            nd("node-b", zone="zone1", node="node-b"),
            nd("node-x", zone="zone2", node="node-x", foo=""),
            nd("node-y", zone="zone2", node="node-y", foo="", taints=[UNSCHEDULABLE_TAINT]),
        ],
        _1_1_0_1_INCL,
        "UUSU",
        id="zone honor/honor, node ignore/ignore",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "want"), MULTIPLE_CONSTRAINTS_CASES)
def test_filter_multiple_constraints(pod: Pod, nodes: list[Node], existing: list[Pod], want: str) -> None:
    """Filter passes a node only when every hard constraint is satisfied."""
    got = harness(nodes, existing, args=LIST).filter(pod)
    assert got == {n.name: _CODES[c] for n, c in zip(nodes, want)}


def test_filter_without_pre_filter_state() -> None:
    """Filter without PreFilter's state is an error naming the missing key."""
    h = harness([nd("node-a")], args=LIST)
    plugin = h.plugin
    assert isinstance(plugin, pts.PodTopologySpread)
    node_info = h.snapshot.node_infos().get("node-a")
    assert node_info is not None
    status = plugin.filter(CycleState(), make_pod("p").obj(), node_info)
    assert status is not None
    assert status.code.name == "ERROR"
    assert "PreFilterPodTopologySpread" in status.message
    for fn in (plugin.add_pod, plugin.remove_pod):
        st_ = fn(CycleState(), make_pod("p").obj(), PodInfo.of(make_pod("q").obj()), node_info)
        assert st_ is not None
        assert st_.code.name == "ERROR"


# --------------------------------------------------------------------------------------------
# PreScore (upstream TestPreScoreSkip / TestPreScoreStateEmptyNodes)


def w(size: int) -> float:
    """The normalizing weight of a topology with *size* domains."""
    return pts.topology_normalizing_weight(size)


def rs_owned(name: str = "p", owner: str = "rs1", **labels: str) -> Pod:
    """A pod controlled by ReplicaSet *owner*."""
    return make_pod(name).labels(labels).owner("ReplicaSet", owner).obj()


_RS1_FOO = [ReplicaSet("rs1", selector=FOO)]
_ABX_HOST = [
    nd("node-a", {HOSTNAME: "node-a"}, zone="zone1"),
    nd("node-b", {HOSTNAME: "node-b"}, zone="zone1"),
    nd("node-x", {HOSTNAME: "node-x"}, zone="zone2"),
]
_ABX_HOST_FOO = [
    nd("node-a", {HOSTNAME: "node-a"}, zone="zone1", foo=""),
    nd("node-b", {HOSTNAME: "node-b"}, zone="zone1", foo=""),
    nd("node-x", {HOSTNAME: "node-x"}, zone="zone2"),
]
_ABX_HOST_TAINT = [
    nd("node-a", {HOSTNAME: "node-a"}, zone="zone1", foo=""),
    nd("node-b", {HOSTNAME: "node-b"}, zone="zone1", foo=""),
    nd("node-x", {HOSTNAME: "node-x"}, zone="zone2", taints=[UNSCHEDULABLE_TAINT]),
]

PRE_SCORE_SKIP_CASES = [
    pytest.param(
        make_pod("p").obj(),
        [nd("node-a", {HOSTNAME: "node-a"}), nd("node-b", {HOSTNAME: "node-b"})],
        LIST,
        [],
        id="pod without soft constraints",
    ),
    pytest.param(
        rs_owned(owner="rs2", foo="bar", baz="sup"),
        [nd("node-a", planet="mars")],
        {**LIST, "defaultConstraints": [tsc(2, "planet", SA)]},
        [ReplicaSet("rs1", selector=selector(None, ("tar", "Exists", ())))],
        id="default constraints and a replicaset that does not match",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "args", "objects"), PRE_SCORE_SKIP_CASES)
def test_pre_score_skip(pod: Pod, nodes: list[Node], args: Any, objects: list[Any]) -> None:
    """PreScore skips pods without soft constraints (own or defaulted)."""
    assert harness(nodes, args=args, objects=objects).pre_score(pod) == Status.skip()


PRE_SCORE_STATE_CASES = [
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, HOSTNAME, SA, FOO)
        .obj(),
        _ABX_HOST,
        LIST,
        [],
        ([sc(1, "zone", FOO), sc(1, HOSTNAME, FOO)], set(), [{"zone1": 0, "zone2": 0}, {}], [w(2), w(3)]),
        id="zone and hostname",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", SA, None).obj(),
        _ABX_HOST,
        LIST,
        [],
        ([sc(1, "zone", None)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="null selector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, HOSTNAME, SA, BAR)
        .obj(),
        [
            nd("node-a", {HOSTNAME: "node-a"}, zone="zone1"),
            nd("node-b", {HOSTNAME: "node-b"}, zone="zone1"),
            nd("node-x", {HOSTNAME: "node-x"}),
        ],
        LIST,
        [],
        ([sc(1, "zone", FOO), sc(1, HOSTNAME, BAR)], {"node-x"}, [{"zone1": 0}, {}], [w(1), w(2)]),
        id="node-x lacks the zone label and is ignored",
    ),
    pytest.param(
        rs_owned(foo="tar", baz="sup"),
        [
            nd("node-a", {HOSTNAME: "node-a", ZONE: "mars"}),
            nd("node-b", {HOSTNAME: "node-b", ZONE: "mars"}),
            nd("node-c", {HOSTNAME: "node-c"}),
            nd("node-d", {HOSTNAME: "node-d"}),
        ],
        None,
        _RS1_FOO,
        ([sc(3, HOSTNAME, FOO), sc(5, ZONE, FOO)], set(), [{}, {"mars": 0, "": 0}], [w(4), w(2)]),
        id="system default constraints and a replicaset, zoneless nodes form a zone",
    ),
    pytest.param(
        rs_owned(foo="tar", baz="sup"),
        [nd("node-a", {HOSTNAME: "node-a"}, rack="rack1", planet="mars")],
        {**LIST, "defaultConstraints": [tsc(1, HOSTNAME, SA), tsc(2, "rack"), tsc(2, "planet", SA)]},
        _RS1_FOO,
        ([sc(1, HOSTNAME, FOO), sc(2, "planet", FOO)], set(), [{}, {"mars": 0}], [w(1), w(1)]),
        id="default constraints and a replicaset",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "bar")
        .label("baz", "sup")
        .spread_constraint(1, "zone", DNS, BAR)
        .spread_constraint(2, "planet", SA, sel(baz="sup"))
        .obj(),
        [nd("node-a", planet="mars", galaxy="andromeda")],
        {**LIST, "defaultConstraints": [tsc(2, "galaxy", SA)]},
        _RS1_FOO,
        ([sc(2, "planet", sel(baz="sup"))], set(), [{"mars": 0}], [w(1)]),
        id="pod constraints win over default constraints",
    ),
    pytest.param(
        make_pod("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "zone", SA, BAR).obj(),
        _ABX_HOST_FOO,
        LIST,
        [],
        ([sc(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeAffinityPolicy Honor with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "zone", SA, BAR, node_affinity_policy=IGNORE)
        .obj(),
        _ABX_HOST_FOO,
        LIST,
        [],
        ([sc(1, "zone", BAR, affinity=IGNORE)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeAffinityPolicy Ignore with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "zone", SA, BAR)
        .obj(),
        _ABX_HOST_FOO,
        LIST,
        [],
        ([sc(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeAffinityPolicy Honor with node affinity",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "zone", SA, BAR, node_affinity_policy=IGNORE)
        .obj(),
        _ABX_HOST_FOO,
        LIST,
        [],
        ([sc(1, "zone", BAR, affinity=IGNORE)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeAffinityPolicy Ignore with node affinity",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", SA, BAR, node_taints_policy=HONOR).obj(),
        _ABX_HOST_TAINT,
        LIST,
        [],
        ([sc(1, "zone", BAR, taints=HONOR)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeTaintsPolicy Honor",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", SA, BAR).obj(),
        _ABX_HOST_TAINT,
        LIST,
        [],
        ([sc(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [w(2)]),
        id="nodeTaintsPolicy Ignore",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "args", "objects", "want"), PRE_SCORE_STATE_CASES)
def test_pre_score_state(pod: Pod, nodes: list[Node], args: Any, objects: list[Any], want: Any) -> None:
    """PreScore resolves the soft constraints, ignored nodes, domains and normalizing weights."""
    h = harness(nodes, args=args, objects=objects)
    assert h.pre_score(pod) == OK
    constraints, ignored, counts, weights = want
    s = h.state.read(PRE_SCORE_STATE_KEY)
    assert list(s.constraints) == constraints
    assert s.ignored_nodes == ignored
    assert s.counts == counts
    assert s.weights == pytest.approx(weights)


# --------------------------------------------------------------------------------------------
# Score + NormalizeScore (upstream TestPodTopologySpreadScore)


def hn(name: str, **labels: str) -> Node:
    """A node labelled with its hostname."""
    return nd(name, {HOSTNAME: name, **labels})


def foo_pods(spec: str) -> list[Pod]:
    """``"a2 b1"`` -> two ``foo`` pods on node-a and one on node-b."""
    out: list[Pod] = []
    for part in spec.split():
        node, n = part[0], int(part[1:])
        out.extend(ep(f"p-{node}{i}", f"node-{node}", foo="") for i in range(1, n + 1))
    return out


def host_foo(max_skew: int = 1, selector_: LabelSelector | None = FOO) -> Pod:
    """The incoming pod with one soft hostname constraint."""
    return make_pod("p").label("foo", "").spread_constraint(max_skew, HOSTNAME, SA, selector_).obj()


_HOST_ABCD = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
_ZONE_HOST_ABCD = [
    hn("node-a", zone="zone1"),
    hn("node-b", zone="zone1"),
    hn("node-c", zone="zone2"),
    hn("node-d", zone="zone2"),
]
_ZONE_FOO_HOST_BAR = (
    make_pod("p")
    .label("foo", "")
    .label("bar", "")
    .spread_constraint(1, "zone", SA, FOO)
    .spread_constraint(1, HOSTNAME, SA, BAR)
    .obj()
)
_NODE_ABC_FOO = [
    nd("node-a", node="node-a", foo=""),
    nd("node-b", node="node-b", foo=""),
    nd("node-c", node="node-c"),
]
_NODE_ABC_TAINT = [
    nd("node-a", node="node-a"),
    nd("node-b", node="node-b"),
    nd("node-c", node="node-c", taints=[UNSCHEDULABLE_TAINT]),
]
_MIXED_4 = [
    ep("p-a1", "node-a", foo=""),
    ep("p-b1", "node-b", foo="", bar=""),
    ep("p-y1", "node-c", foo=""),
    ep("p-y2", "node-c", bar=""),
]

SCORE_CASES = [
    pytest.param(
        host_foo(),
        [],
        [hn("node-a"), hn("node-b")],
        [],
        [],
        {"node-a": 100, "node-b": 100},
        id="hostname, no existing pods",
    ),
    pytest.param(
        host_foo(),
        foo_pods("a2 b1"),
        [hn("node-a")],
        [hn("node-b")],
        [],
        {"node-a": 100},
        id="hostname, a single candidate scores 100",
    ),
    pytest.param(
        host_foo(),
        foo_pods("a1 b1"),
        [hn("node-a"), hn("node-b")],
        [],
        [],
        {"node-a": 100, "node-b": 100},
        id="hostname, same number of matching pods",
    ),
    pytest.param(
        host_foo(),
        foo_pods("a2 b1 d3"),
        _HOST_ABCD,
        [],
        [],
        {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
        id="hostname, 2/1/0/3",
    ),
    pytest.param(
        host_foo(selector_=None),
        foo_pods("a2 b1 d3"),
        _HOST_ABCD,
        [],
        [],
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
        id="hostname, null selector",
    ),
    pytest.param(
        host_foo(2),
        foo_pods("a2 b1 d3"),
        _HOST_ABCD,
        [],
        [],
        {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
        id="hostname, 2/1/0/3, maxSkew 2",
    ),
    pytest.param(
        host_foo(3),
        foo_pods("a4 b3 c2 d1"),
        _HOST_ABCD,
        [],
        [],
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        id="hostname, 4/3/2/1, maxSkew 3",
    ),
    pytest.param(
        make_pod("p").label("foo", "").obj(),
        foo_pods("a4 b3 c2 d1"),
        _HOST_ABCD,
        [],
        [Service("svc", selector={"foo": ""})],
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        id="system defaulting, zoneless nodes, pods match a service",
    ),
    pytest.param(
        host_foo(),
        foo_pods("a4 b2 x1 y3"),
        [hn("node-a"), hn("node-b"), hn("node-x")],
        [hn("node-y")],
        [],
        {"node-a": 33, "node-b": 83, "node-x": 100},
        id="hostname, 3 of 4 nodes are candidates",
    ),
    pytest.param(
        host_foo(),
        foo_pods("a4 b2 x1 y3"),
        [hn("node-a"), nd("node-b", n="node-b"), hn("node-x")],
        [hn("node-y")],
        [],
        {"node-a": 16, "node-b": 0, "node-x": 100},
        id="hostname, a candidate lacks the topology key",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "zone", SA, FOO).obj(),
        foo_pods("a4 b2 x1 y3"),
        [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")],
        [hn("node-y", zone="zone2")],
        [],
        {"node-a": 75, "node-b": 75, "node-x": 100},
        id="zone, 3 of 4 nodes are candidates",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, HOSTNAME, SA, FOO)
        .obj(),
        foo_pods("a2 b1 x2 y4"),
        [hn("node-a", zone="zone1"), hn("node-x", zone="zone2")],
        [hn("node-b", zone="zone1"), hn("node-y", zone="zone2")],
        [],
        {"node-a": 100, "node-x": 63},
        id="zone and hostname, 2 of 4 nodes are candidates",
    ),
    pytest.param(
        _ZONE_FOO_HOST_BAR,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-b1", "node-b", foo="", bar=""),
            ep("p-y1", "node-y", foo=""),
            ep("p-y2", "node-y", bar=""),
        ],
        [
            hn("node-a", zone="zone1"),
            hn("node-b", zone="zone1"),
            hn("node-x", zone="zone2"),
            hn("node-y", zone="zone2"),
        ],
        [],
        [],
        {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
        id="zone and hostname with different selectors",
    ),
    pytest.param(
        _ZONE_FOO_HOST_BAR,
        [ep("p-b1", "node-b", bar=""), ep("p-x1", "node-x", foo=""), ep("p-y1", "node-y", foo="", bar="")],
        [
            hn("node-a", zone="zone1"),
            hn("node-b", zone="zone1"),
            hn("node-x", zone="zone2"),
            hn("node-y", zone="zone2"),
        ],
        [],
        [],
        {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
        id="different selectors, some nodes without pods",
    ),
    pytest.param(
        _ZONE_FOO_HOST_BAR,
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-b1", "node-b", foo="", bar=""),
            ep("p-y1", "node-y", foo=""),
            ep("p-y2", "node-y", bar=""),
        ],
        [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")],
        [hn("node-y", zone="zone2")],
        [],
        {"node-a": 50, "node-b": 25, "node-x": 100},
        id="different selectors, 3 of 4 nodes are candidates",
    ),
    pytest.param(
        host_foo(),
        [
            ep("p-a1", "node-a", ns="ns1", foo=""),
            ep("p-a2", "node-a", foo=""),
            ep("p-b1", "node-b", foo=""),
            ep("p-b2", "node-b", foo=""),
        ],
        [hn("node-a"), hn("node-b")],
        [],
        [],
        {"node-a": 100, "node-b": 33},
        id="pods of other namespaces do not count",
    ),
    pytest.param(
        host_foo(),
        [ep("p-a", "node-a", terminating=True, foo=""), ep("p-b", "node-b", foo="")],
        [hn("node-a"), hn("node-b")],
        [],
        [],
        {"node-a": 100, "node-b": 0},
        id="terminating pods do not count",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(2, "node", SA, FOO, min_domains=10).obj(),
        foo_pods("a2 b2 c1"),
        [nd("node-a", node="node-a"), nd("node-b", node="node-b"), nd("node-c", node="node-c")],
        [],
        [],
        {"node-a": 75, "node-b": 75, "node-c": 100},
        id="minDomains has no effect on soft constraints",
    ),
    pytest.param(
        make_pod("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "node", SA, FOO).obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_FOO,
        [],
        [],
        {"node-a": 0, "node-b": 33, "node-c": 100},
        id="nodeAffinityPolicy Honor with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread_constraint(1, "node", SA, FOO, node_affinity_policy=IGNORE)
        .obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_FOO,
        [],
        [],
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="nodeAffinityPolicy Ignore with nodeSelector",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", SA, FOO)
        .obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_FOO,
        [],
        [],
        {"node-a": 0, "node-b": 33, "node-c": 100},
        id="nodeAffinityPolicy Honor with node affinity",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", SA, FOO, node_affinity_policy=IGNORE)
        .obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_FOO,
        [],
        [],
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="nodeAffinityPolicy Ignore with node affinity",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", SA, FOO, node_taints_policy=HONOR).obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_TAINT,
        [],
        [],
        {"node-a": 0, "node-b": 33, "node-c": 100},
        id="nodeTaintsPolicy Honor",
    ),
    pytest.param(
        make_pod("p").label("foo", "").spread_constraint(1, "node", SA, FOO).obj(),
        foo_pods("a2 b1 c1"),
        _NODE_ABC_TAINT,
        [],
        [],
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="nodeTaintsPolicy Ignore",
    ),
    pytest.param(
        # upstream "matchLabelKeys ignored when feature gate disabled", with the (GA) feature on:
        # no existing pod carries baz, so nothing matches and every node scores 100
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .label("baz", "")
        .spread_constraint(1, "zone", SA, FOO, match_label_keys=["baz"])
        .spread_constraint(1, HOSTNAME, SA, BAR, match_label_keys=["baz"])
        .obj(),
        _MIXED_4,
        _ZONE_HOST_ABCD,
        [],
        [],
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
        id="matchLabelKeys merged into selectors",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .spread_constraint(1, "zone", SA, LabelSelector(), match_label_keys=["foo"])
        .spread_constraint(1, HOSTNAME, SA, LabelSelector(), match_label_keys=["bar"])
        .obj(),
        _MIXED_4,
        _ZONE_HOST_ABCD,
        [],
        [],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        id="matchLabelKeys with empty selectors",
    ),
    pytest.param(
        make_pod("p")
        .label("foo", "")
        .label("bar", "")
        .label("baz", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, HOSTNAME, SA, BAR, match_label_keys=["baz"])
        .obj(),
        [
            ep("p-a1", "node-a", foo=""),
            ep("p-b1", "node-b", foo="", bar="", baz=""),
            ep("p-c1", "node-c", foo=""),
            ep("p-c2", "node-c", bar=""),
            ep("p-d3", "node-c", bar="", baz=""),
        ],
        _ZONE_HOST_ABCD,
        [],
        [],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        id="matchLabelKeys with a non-empty selector",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "nodes", "failed", "objects", "want"), SCORE_CASES)
def test_score(
    pod: Pod,
    existing: list[Pod],
    nodes: list[Node],
    failed: list[Node],
    objects: list[Any],
    want: dict[str, int],
) -> None:
    """Soft constraints score nodes by the matching pods in their domains, reversed to [0, 100]."""
    h = harness([*nodes, *failed], existing, objects=objects)
    assert h.score(pod, [n.name for n in nodes]) == want


# --------------------------------------------------------------------------------------------
# Events and queueing hints (upstream plugin_test.go)


def _plugin(args: Any = None, objects: Sequence[Any] = ()) -> pts.PodTopologySpread:
    plugin = harness(args=args if args is not None else LIST, objects=objects).plugin
    assert isinstance(plugin, pts.PodTopologySpread)
    return plugin


def test_events_to_register() -> None:
    """Pods added / relabelled / retolerated / deleted and nodes added / deleted / relabelled /
    retainted requeue pods rejected by the plugin, each with a hint."""
    events = _plugin().events_to_register()
    assert [(e.event.resource, e.event.action) for e in events] == [
        (
            EventResource.POD,
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATION
            | ActionType.DELETE,
        ),
        (
            EventResource.NODE,
            ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
        ),
    ]
    assert all(e.hint is not None for e in events)


_ZONE = make_pod("p").spread_constraint(1, "zone", DNS, FOO).obj()
_ZONE_NODE = make_pod("p").spread_constraint(1, "zone", DNS, FOO).spread_constraint(1, "node", DNS, FOO).obj()
_TAINT_AAA = Taint("aaa", "NoSchedule", "bbb")
_TAINT_CCC = Taint("ccc", "NoSchedule", "bbb")
Q = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP

NODE_HINT_CASES = [
    pytest.param(
        _ZONE, nd("node-a", zone="zone1"), nd("node-a", zone="zone2"), Q, id="topology label value changed"
    ),
    pytest.param(
        _ZONE,
        nd("node-a", foo="bar1"),
        nd("node-a", foo="bar2"),
        SKIP,
        id="unrelated label of a non-matching node changed",
    ),
    pytest.param(
        _ZONE_NODE,
        nd("node-a", zone="zone1", node="node1", foo="bar"),
        nd("node-a", zone="zone1", node="node1"),
        SKIP,
        id="unrelated label of a matching node removed",
    ),
    pytest.param(_ZONE, None, nd("node-a", foo="bar"), SKIP, id="node without the key added"),
    pytest.param(_ZONE, None, nd("node-a", zone="zone1"), Q, id="node with the key added"),
    pytest.param(_ZONE, nd("node-a", foo="bar"), None, SKIP, id="node without the key deleted"),
    pytest.param(_ZONE, nd("node-a", zone="zone1"), None, Q, id="node with the key deleted"),
    pytest.param(
        _ZONE_NODE, None, nd("node-a", zone="zone1"), SKIP, id="added node has only one of the keys"
    ),
    pytest.param(_ZONE_NODE, None, nd("node-a", zone="zone1", node="node1"), Q, id="added node has all keys"),
    pytest.param(
        _ZONE_NODE,
        nd("node-a", zone="zone1"),
        nd("node-a", zone="zone1"),
        SKIP,
        id="updated node has only one of the keys",
    ),
    pytest.param(
        _ZONE_NODE,
        nd("node-a", zone="zone1", node="node1"),
        nd("node-a", zone="zone1", node="node2"),
        Q,
        id="updated node has all keys, one value changed",
    ),
    pytest.param(
        _ZONE_NODE,
        nd("node-a", zone="zone1", node="node1", taints=[_TAINT_AAA]),
        nd("node-a", zone="zone1", node="node1", taints=[_TAINT_CCC]),
        Q,
        id="taints changed on a node with all keys",
    ),
    pytest.param(
        _ZONE_NODE,
        nd("node-a", node="node1", taints=[_TAINT_AAA]),
        nd("node-a", node="node1", taints=[_TAINT_CCC]),
        SKIP,
        id="taints changed on a node with only one of the keys",
    ),
    pytest.param(_ZONE, nd("node-a", foo="bar"), nd("node-a", zone="zone1"), Q, id="node gains the key"),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), NODE_HINT_CASES)
def test_hint_node_change(pod: Pod, old: Node | None, new: Node | None, want: QueueingHint) -> None:
    """Node events requeue only when nodes carrying every topology key change in a relevant way."""
    assert _plugin().is_schedulable_after_node_change(pod, old, new) == want


def _p(uid: str, node: str = "", ns: str | None = None, **labels: str) -> Pod:
    b = make_pod(uid, ns).uid(uid).labels(labels)
    return b.node(node).obj() if node else b.obj()


_TARGET = make_pod("p").uid("p").label("foo", "").spread_constraint(1, "zone", DNS, FOO).obj()
_TARGET_2 = (
    make_pod("p")
    .uid("p")
    .label("foo", "")
    .spread_constraint(1, "zone", DNS, FOO)
    .spread_constraint(1, "node", DNS, BAR)
    .obj()
)
_TARGET_HONOR = (
    make_pod("p")
    .uid("p")
    .label("foo", "")
    .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR)
    .spread_constraint(1, "node", DNS, BAR)
    .obj()
)
_TARGET_IGNORE = (
    make_pod("p")
    .uid("p")
    .label("foo", "")
    .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=IGNORE)
    .spread_constraint(1, "node", DNS, BAR)
    .obj()
)
_SELF_TOLERATING = (
    make_pod("p").uid("p").label("foo", "").toleration(UNSCHEDULABLE_TAINT.key, operator="Exists").obj()
)

POD_HINT_CASES = [
    pytest.param(_TARGET, None, _p("p2", "fake-node", foo=""), Q, id="matching pod added"),
    pytest.param(_TARGET, None, _p("p2", foo=""), SKIP, id="unscheduled pod added"),
    pytest.param(_TARGET, _p("p2", bar=""), _p("p2", foo=""), SKIP, id="unscheduled pod updated"),
    pytest.param(_TARGET, _p("p2", foo=""), None, SKIP, id="unscheduled pod deleted"),
    pytest.param(
        _TARGET,
        None,
        _p("p2", "fake-node", ns="fake-namespace", foo=""),
        SKIP,
        id="pod of another namespace added",
    ),
    pytest.param(_TARGET, None, _p("p2", "fake-node", bar=""), SKIP, id="non-matching pod added"),
    pytest.param(_TARGET, _p("p2", "fake-node", foo=""), None, Q, id="matching pod deleted"),
    pytest.param(_TARGET, _p("p2", "fake-node", bar=""), None, SKIP, id="non-matching pod deleted"),
    pytest.param(
        _TARGET,
        _p("p2", "fake-node", foo="", bar="bar1"),
        _p("p2", "fake-node", foo="", bar="bar2"),
        SKIP,
        id="unrelated label updated",
    ),
    pytest.param(_TARGET, _p("p2", "fake-node"), _p("p2", "fake-node", foo=""), Q, id="matching label added"),
    pytest.param(
        _TARGET, _p("p2", "fake-node", foo=""), _p("p2", "fake-node"), Q, id="matching label removed"
    ),
    pytest.param(
        _TARGET,
        _p("p2", "fake-node", foo="foo1"),
        _p("p2", "fake-node", foo="foo2"),
        SKIP,
        id="matching label value changed",
    ),
    pytest.param(
        _TARGET,
        _p("p2", "fake-node", foo="", bar="bar1"),
        _p("p2", "fake-node", foo="", bar="bar2"),
        SKIP,
        id="non-matching label value changed",
    ),
    pytest.param(
        _TARGET_2,
        _p("p2", "fake-node", foo=""),
        _p("p2", "fake-node", foo="", bar="bar2"),
        Q,
        id="label added matching the second constraint",
    ),
    pytest.param(
        _TARGET_2,
        _p("p2", "fake-node", foo=""),
        _p("p2", "fake-node", foo="", baz=""),
        SKIP,
        id="label added matching no constraint",
    ),
    pytest.param(
        _TARGET_2,
        _p("p2", "fake-node", foo="", bar=""),
        _p("p2", "fake-node", foo="", bar="bar2"),
        SKIP,
        id="label value changed, still matching",
    ),
    pytest.param(
        _TARGET_HONOR,
        _p("p", foo=""),
        _SELF_TOLERATING,
        Q,
        id="the pod gained a toleration and a constraint honours taints",
    ),
    pytest.param(
        _TARGET_IGNORE,
        _p("p", foo=""),
        _SELF_TOLERATING,
        SKIP,
        id="the pod gained a toleration, no constraint honours taints",
    ),
    pytest.param(
        _TARGET_IGNORE, _p("p"), _p("p", foo=""), Q, id="the pod gained a label matching a selector"
    ),
    pytest.param(
        _TARGET_IGNORE, _p("p"), _p("p", unrelated=""), SKIP, id="the pod gained an unrelated label"
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), POD_HINT_CASES)
def test_hint_pod_change(pod: Pod, old: Pod | None, new: Pod | None, want: QueueingHint) -> None:
    """Pod events requeue only for assigned pods of the namespace whose match changes."""
    assert _plugin().is_schedulable_after_pod_change(pod, old, new) == want


# --------------------------------------------------------------------------------------------
# Args: decoding, defaults, validation (upstream TestValidatePodTopologySpreadArgs)


def test_args_defaults() -> None:
    """No-arg args are upstream's v1 defaults: System defaulting with no listed constraints."""
    args = PodTopologySpreadArgs()
    assert args.defaulting_type == "System"
    assert args.default_constraints == ()
    assert decode_args(PodTopologySpreadArgs, {}) == args
    assert encode_args(args) == {"defaultingType": "System"}
    assert _plugin(args={}).default_constraints == pts.SYSTEM_DEFAULT_CONSTRAINTS
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable) for c in pts.SYSTEM_DEFAULT_CONSTRAINTS] == [
        (HOSTNAME, 3, SA),
        (ZONE, 5, SA),
    ]


def test_args_round_trip() -> None:
    """from_dict / to_dict round-trip listed constraints."""
    data = {
        "defaultingType": "List",
        "defaultConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "node",
                "whenUnsatisfiable": DNS,
                "minDomains": 2,
                "nodeAffinityPolicy": IGNORE,
                "nodeTaintsPolicy": HONOR,
                "matchLabelKeys": ["app"],
            },
            tsc(2, "zone", SA),
        ],
    }
    args = decode_args(PodTopologySpreadArgs, data)
    assert args.default_constraints[0] == TopologySpreadConstraint(
        1, "node", DNS, None, 2, IGNORE, HONOR, ("app",)
    )
    assert encode_args(args) == data
    assert _plugin(args=args).default_constraints == args.default_constraints


VALIDATION_CASES = [
    pytest.param({**LIST, "defaultConstraints": [tsc(1, "node"), tsc(2, "zone", SA)]}, [], id="valid config"),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(-1, "node")]},
        ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
        id="maxSkew less than zero",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(1, "")]},
        ["defaultConstraints[0].topologyKey: Required value: can not be empty"],
        id="empty topology key",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(1, "node", "")]},
        ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
        id="whenUnsatisfiable is empty",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(1, "node", "unknown action")]},
        [
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": supported values: '
            '"DoNotSchedule", "ScheduleAnyway"'
        ],
        id="unsupported whenUnsatisfiable",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(1, "node"), tsc(2, "node")]},
        ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'],
        id="duplicated constraints",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [{**tsc(1, "key"), "labelSelector": {"matchLabels": {"a": "b"}}}]},
        [
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
            "deduced for each pod"
        ],
        id="label selector present",
    ),
    pytest.param(LIST, [], id="List defaulting without constraints"),
    pytest.param({"defaultingType": "System"}, [], id="System defaulting"),
    pytest.param(
        {"defaultingType": "unknown"},
        ['defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
        id="unknown defaulting type",
    ),
    pytest.param(
        {"defaultingType": "System", "defaultConstraints": [tsc(1, "key")]},
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="System defaulting with listed constraints",
    ),
    pytest.param(
        {"defaultConstraints": [tsc(1, "key")]},
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="defaultingType defaults to System even with listed constraints",
    ),
    pytest.param(
        {**LIST, "defaultConstraints": [tsc(0, "a/b/c", "")]},
        [
            "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
            'defaultConstraints[0].topologyKey: Invalid value: "a/b/c": a qualified name must consist of',
            "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
        ],
        id="every error is reported",
    ),
]


@pytest.mark.parametrize(("data", "want"), VALIDATION_CASES)
def test_args_validation(data: dict[str, Any], want: list[str]) -> None:
    """Validation reports every problem with its field path, in upstream's wording."""
    args = decode_args(PodTopologySpreadArgs, data, validate=False)
    errors = pts.validation_errors(args)
    assert len(errors) == len(want)
    for got, expected in zip(errors, want):
        assert got.startswith(expected)
    if want:
        with pytest.raises(PluginArgsError, match=r"defaultingType|defaultConstraints"):
            pts.new(args, harness().framework)
    else:
        assert isinstance(pts.new(args, harness().framework), pts.PodTopologySpread)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param({"defaultConstraint": []}, r"defaultConstraint: unknown field", id="unknown key"),
        pytest.param({"defaultConstraints": "zone"}, r"defaultConstraints: must be a list", id="not a list"),
        pytest.param(
            {"defaultConstraints": [1]}, r"defaultConstraints\[0\]: must be a mapping", id="not a mapping"
        ),
        pytest.param(
            {"defaultConstraints": [{**tsc(1, "zone"), "maxskew": 1}]},
            r"defaultConstraints\[0\]: unknown field\(s\) 'maxskew'",
            id="unknown constraint key",
        ),
        pytest.param(
            {"defaultConstraints": [{**tsc(1, "zone"), "maxSkew": "1"}]},
            r"defaultConstraints\[0\]\.maxSkew: must be an integer",
            id="maxSkew not an integer",
        ),
        pytest.param(
            {"defaultConstraints": [{**tsc(1, "zone"), "topologyKey": 3}]},
            r"defaultConstraints\[0\]\.topologyKey: must be a string",
            id="topologyKey not a string",
        ),
        pytest.param(
            {"defaultConstraints": [{**tsc(1, "zone"), "matchLabelKeys": "app"}]},
            r"matchLabelKeys: must be a list of strings",
            id="matchLabelKeys not a list",
        ),
        pytest.param(
            {
                "defaultConstraints": [
                    {
                        **tsc(1, "zone"),
                        "labelSelector": {
                            "matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]
                        },
                    }
                ]
            },
            r"labelSelector\.matchExpressions\[0\]\.operator: unsupported value 'Gt'",
            id="bad selector operator",
        ),
        pytest.param(
            {"defaultingType": 1}, r"defaultingType: must be a string", id="defaultingType not a string"
        ),
    ],
)
def test_args_decode_errors(data: dict[str, Any], match: str) -> None:
    """Malformed args mappings raise PluginArgsError naming the field."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(PodTopologySpreadArgs, data)


def test_new_rejects_other_args_types() -> None:
    """The factory accepts None, the args class or a mapping, and names the expected type otherwise."""
    h = harness()
    assert isinstance(pts.new(None, h.framework), pts.PodTopologySpread)
    assert isinstance(pts.new({"defaultingType": "List"}, h.framework), pts.PodTopologySpread)
    with pytest.raises(PluginArgsError, match="want args of type PodTopologySpreadArgs, got int"):
        pts.new(3, h.framework)
    with pytest.raises(PluginArgsError, match="must be a mapping, got list"):
        decode_args(PodTopologySpreadArgs, [])  # type: ignore[arg-type]
    assert _plugin().name == NAME == pts.NAME


# --------------------------------------------------------------------------------------------
# Default selector (upstream helper.DefaultSelector, exercised through PreFilter)

_HARD_DEFAULT = {**LIST, "defaultConstraints": [tsc(1, "node")]}


@pytest.mark.parametrize(
    ("pod", "objects", "want"),
    [
        pytest.param(
            make_pod("p").label("foo", "bar").label("baz", "qux").obj(),
            [
                Service("s1", selector={"foo": "bar"}),
                Service("s2", selector={"baz": "qux"}),
                Service("s3", selector={"baz": "other"}),
                Service("s4", "other-ns", selector={"foo": "bar"}),
            ],
            LabelSelector({"foo": "bar", "baz": "qux"}),
            id="matching services of the namespace merge",
        ),
        pytest.param(
            make_pod("p").label("foo", "bar").owner("ReplicationController", "rc").obj(),
            [ReplicationController("rc", selector={"rc": "x"}), Service("s", selector={"foo": "bar"})],
            LabelSelector({"foo": "bar", "rc": "x"}),
            id="replication controller",
        ),
        pytest.param(
            make_pod("p").label("foo", "bar").owner("ReplicaSet", "rs").obj(),
            [ReplicaSet("rs", selector=selector({"app": "a"}, ("tier", "In", ("web",))))],
            LabelSelector(
                {},
                (
                    LabelSelectorRequirement("app", "In", ("a",)),
                    LabelSelectorRequirement("tier", "In", ("web",)),
                ),
            ),
            id="replica set",
        ),
        pytest.param(
            make_pod("p").label("foo", "bar").owner("StatefulSet", "ss").obj(),
            [StatefulSet("ss", selector=FOO)],
            FOO,
            id="stateful set",
        ),
        pytest.param(
            make_pod("p").label("foo", "bar").owner("ReplicaSet", "rs", controller=False).obj(),
            [ReplicaSet("rs", selector=FOO)],
            None,
            id="non-controller owner is ignored",
        ),
        pytest.param(
            make_pod("p").label("foo", "bar").obj(),
            [ReplicaSet("rs", selector=FOO)],
            None,
            id="no owner, no service",
        ),
    ],
)
def test_default_selector(pod: Pod, objects: list[Any], want: LabelSelector | None) -> None:
    """Default constraints use the selectors of the objects selecting the pod; none -> Skip."""
    h = harness([nd("n1", node="n1")], args=_HARD_DEFAULT, objects=objects)
    _, status = h.pre_filter(pod)
    if want is None:
        assert status == Status.skip()
        return
    assert status == OK
    assert h.state.read(PRE_FILTER_STATE_KEY).constraints == (sc(1, "node", want),)


def test_default_selector_requires_known_api_version() -> None:
    """Owners of another API group/version are not supported controllers."""
    pod = make_pod("p").label("foo", "bar").obj()
    pod = pod.evolve(
        owner_references=(
            OwnerReference("ReplicaSet", "rs", api_version="extensions/v1beta1", controller=True),
        )
    )
    h = harness([nd("n1", node="n1")], args=_HARD_DEFAULT, objects=[ReplicaSet("rs", selector=FOO)])
    assert h.pre_filter(pod)[1] == Status.skip()
    pod = pod.evolve(
        owner_references=(OwnerReference("ReplicaSet", "rs", api_version="apps/v1", controller=True),)
    )
    assert h.pre_filter(pod)[1] == OK


# --------------------------------------------------------------------------------------------
# Invariants

_cluster = st.tuples(
    st.lists(st.tuples(st.sampled_from(["z0", "z1", "z2", None]), st.booleans()), min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.booleans()), max_size=12),
)


def _build(spec: Any) -> tuple[list[Node], list[Pod]]:
    node_spec, pod_spec = spec
    nodes = []
    for i, (zone, tainted) in enumerate(node_spec):
        labels = {HOSTNAME: f"n{i}", **({"zone": zone} if zone else {})}
        nodes.append(nd(f"n{i}", labels, taints=[UNSCHEDULABLE_TAINT] if tainted else []))
    pods = []
    for j, (idx, foo, other_ns) in enumerate(pod_spec):
        node = nodes[idx % len(nodes)].name
        pods.append(ep(f"q{j}", node, {"foo": ""} if foo else None, ns="other" if other_ns else None))
    return nodes, pods


@settings(max_examples=40, deadline=None)
@given(_cluster, st.integers(0, 5), st.booleans())
def test_add_then_remove_restores_state(spec: Any, node_idx: int, honor: bool) -> None:
    """AddPod followed by RemovePod of the same pod leaves counts and minimum unchanged."""
    nodes, pods = _build(spec)
    pod = (
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR if honor else None)
        .spread_constraint(2, HOSTNAME, DNS, FOO)
        .obj()
    )
    h = harness(nodes, pods, args=LIST)
    assert h.pre_filter(pod)[1] == OK
    before = h.state.read(PRE_FILTER_STATE_KEY)
    s = h.state.clone()
    plugin = h.plugin
    assert isinstance(plugin, pts.PodTopologySpread)
    node_info = h.snapshot.node_infos().get(nodes[node_idx % len(nodes)].name)
    assert node_info is not None
    added = PodInfo.of(ep("new", node_info.name, foo=""))
    assert plugin.add_pod(s, pod, added, node_info) is None
    assert plugin.remove_pod(s, pod, added, node_info) is None
    after = s.read(PRE_FILTER_STATE_KEY)
    assert after is not before
    assert after.counts[0] == before.counts[0]
    assert after.min_match == before.min_match


@settings(max_examples=40, deadline=None)
@given(_cluster, st.integers(1, 4), st.booleans())
def test_normalized_scores_in_range(spec: Any, max_skew: int, system: bool) -> None:
    """Normalized scores stay within [0, 100], with the best candidate at 100."""
    nodes, pods = _build(spec)
    if system:
        pod = make_pod("p").label("foo", "").obj()
        h = harness(nodes, pods, objects=[Service("s", selector={"foo": ""})])
    else:
        pod = (
            make_pod("p")
            .label("foo", "")
            .spread_constraint(max_skew, "zone", SA, FOO)
            .spread_constraint(max_skew, HOSTNAME, SA, FOO)
            .obj()
        )
        h = harness(nodes, pods, args=LIST)
    scores = h.score(pod)
    assert all(0 <= v <= 100 for v in scores.values())
    ignored = h.state.read(PRE_SCORE_STATE_KEY).ignored_nodes if PRE_SCORE_STATE_KEY in h.state else set()
    if len(ignored) < len(nodes):
        assert max(v for n, v in scores.items() if n not in ignored) == 100


def test_pre_score_skips_an_empty_cluster() -> None:
    """PreScore skips when the snapshot has no nodes."""
    pod = make_pod("p").label("foo", "").spread_constraint(1, "zone", SA, FOO).obj()
    assert harness(args=LIST).pre_score(pod) == Status.skip()


def test_score_and_normalize_without_state_are_errors() -> None:
    """Score / NormalizeScore without PreScore's state return ERROR statuses."""
    plugin = _plugin()
    info = NodeInfo(nd("n1"))
    score, status = plugin.score(CycleState(), make_pod("p").obj(), info)
    assert score == 0
    assert status is not None
    assert "PreScorePodTopologySpread" in status.message
    status = plugin.normalize_score(CycleState(), make_pod("p").obj(), [NodeScore("n1", 1)])
    assert status is not None
    assert status.code.name == "ERROR"


def test_normalize_ignored_nodes_score_zero() -> None:
    """Ignored nodes get 0 and do not take part in the min/max."""
    plugin = _plugin()
    state = CycleState()
    s = pts.PreScoreState()
    s.ignored_nodes = {"b"}
    state.write(PRE_SCORE_STATE_KEY, s)
    scores = [NodeScore("a", 4), NodeScore("b", 0), NodeScore("c", 2)]
    assert plugin.normalize_score(state, make_pod("p").obj(), scores) is None
    assert scores == [NodeScore("a", 50), NodeScore("b", 0), NodeScore("c", 100)]
    scores = [NodeScore("b", 7)]
    assert plugin.normalize_score(state, make_pod("p").obj(), scores) is None
    assert scores == [NodeScore("b", 0)]


def test_score_rounds_half_away_from_zero() -> None:
    """Scores round like Go's math.Round (2.5 -> 3), not banker's rounding."""
    assert pts.score_for_count(1, 2, 1.5) == 2.5
    plugin = _plugin()
    state = CycleState()
    s = pts.PreScoreState()
    s.constraints = (sc(2, "zone", FOO),)
    s.counts = [{"z": 1}]
    s.weights = [1.5]
    state.write(PRE_SCORE_STATE_KEY, s)
    assert plugin.score(state, make_pod("p").obj(), NodeInfo(nd("n1", zone="z"))) == (3, None)


# --------------------------------------------------------------------------------------------
# Incremental counting across cycles

_op = st.tuples(
    st.sampled_from(["add", "remove", "relabel", "add_node", "remove_node"]),
    st.integers(0, 50),
    st.booleans(),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_op, min_size=1, max_size=12), st.booleans())
def test_cached_counts_follow_cluster_changes(ops: list[Any], honor: bool) -> None:
    """Counts cached across cycles equal counts computed from scratch after every cache change."""
    from schedframe.cache.cache import Cache

    cache = Cache()
    for i in range(4):
        cache.add_node(nd(f"n{i}", {HOSTNAME: f"n{i}", "zone": f"z{i % 2}"}))
    h = harness(args=LIST)
    snapshot = cache.snapshot()
    h.framework.set_snapshot(snapshot)
    warm = h.plugin
    assert isinstance(warm, pts.PodTopologySpread)
    hard = (
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DNS, FOO, node_taints_policy=HONOR if honor else None)
        .spread_constraint(1, HOSTNAME, DNS, FOO)
        .obj()
    )
    soft = (
        make_pod("p")
        .label("foo", "")
        .spread_constraint(1, "zone", SA, FOO)
        .spread_constraint(1, HOSTNAME, SA, FOO)
        .obj()
    )
    pods: list[Pod] = []
    extra_nodes = 0
    for step, (op, n, flag) in enumerate(ops):
        nodes = cache.nodes()
        node = nodes[n % len(nodes)] if nodes else None
        if op == "add" and node is not None:
            p = ep(f"q{step}", node.name, {"foo": ""} if flag else None)
            cache.add_pod(p)
            pods.append(p)
        elif op == "remove" and pods:
            cache.remove_pod(pods.pop(n % len(pods)))
        elif op == "relabel" and node is not None:
            labels = dict(node.labels)
            if flag:
                labels["zone"] = f"z{n % 3}"
            else:
                labels.pop("zone", None)
            cache.update_node(node, node.evolve(labels=labels, taints=(UNSCHEDULABLE_TAINT,) if flag else ()))
        elif op == "add_node":
            extra_nodes += 1
            cache.add_node(nd(f"x{extra_nodes}", {HOSTNAME: f"x{extra_nodes}", "zone": "z9"}))
        elif op == "remove_node" and node is not None and len(nodes) > 1:
            for p in [p for p in pods if p.node_name == node.name]:
                cache.remove_pod(p)
                pods.remove(p)
            cache.remove_node(node)
        cache.update_snapshot(snapshot)
        infos = list(snapshot.list())
        cold = pts.new(LIST, h.framework)
        for plugin in (warm, cold):
            state = CycleState()
            plugin.pre_filter(state, hard, infos)
            plugin.pre_score(state, soft, infos)
            if plugin is warm:
                got = (state.get(PRE_FILTER_STATE_KEY), state.get(PRE_SCORE_STATE_KEY))
            else:
                want = (state.get(PRE_FILTER_STATE_KEY), state.get(PRE_SCORE_STATE_KEY))
        if want[0] is None:
            assert got[0] is None
        else:
            assert got[0] is not None
            assert got[0].counts == want[0].counts
            assert got[0].min_match == want[0].min_match
        if want[1] is not None:
            assert got[1] is not None
            assert got[1].counts == want[1].counts


# --------------------------------------------------------------------------------------------
# the batch Score's columns against Score node by node

_ZONE = "topology.kubernetes.io/zone"
_HOST = "kubernetes.io/hostname"


@settings(max_examples=60, deadline=None)
@given(nodes=st.lists(st.tuples(st.sampled_from([None, "a", "b"]), st.booleans(),
                                st.sampled_from([None, "r1", "r2"])), min_size=1, max_size=8),
       bound=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(["web", "db"]),
                                st.sampled_from(["default", "other"])), max_size=14),
       keys=st.lists(st.sampled_from([_ZONE, _HOST, "rack"]), max_size=3, unique=True),
       by_expression=st.booleans())
def test_batch_score_columns_equal_score_node_by_node(nodes: list[tuple[str | None, bool, str | None]],
                                                      bound: list[tuple[int, str, str]], keys: list[str],
                                                      by_expression: bool) -> None:
    """``score_nodes`` (a column per constraint, each distinct total rounded once) gives every
    node what ``score`` gives it: nodes without a key (counted as nothing) or ignored, hostname
    constraints counted on the node with pods of another namespace there, several constraints
    added in order, and the system default constraints (no constraint of the pod's own: zone
    and hostname, with nodes lacking them not ignored)."""
    node_objs = []
    for i, (zone, host, rack) in enumerate(nodes):
        b = make_node(f"n{i}")
        if zone is not None:
            b = b.label(_ZONE, zone)
        if host:
            b = b.label(_HOST, f"n{i}")
        if rack is not None:
            b = b.label("rack", rack)
        node_objs.append(b.obj())
    pods = [make_pod(f"b{k}", ns).labels({"app": app}).node(f"n{i % len(nodes)}").obj()
            for k, (i, app, ns) in enumerate(bound)]
    sel = selector(None, ("app", "In", ("web",))) if by_expression else selector({"app": "web"})
    incoming = make_pod("p", "default").labels({"app": "web"})
    for n, key in enumerate(keys):
        incoming = incoming.spread_constraint(n + 1, key, "ScheduleAnyway", sel)
    pod = incoming.obj()
    h = harness(node_objs, pods, objects=[Service("svc", "default", {"app": "web"})])
    if not h.pre_score(pod).is_success():
        return
    infos = h._node_infos(None)
    plugin: Any = h.plugin
    want = [plugin.score(h.state, pod, ni)[0] for ni in infos]
    assert plugin.score_nodes(h.state, pod, infos) == want
    # NodeInfos that are not the snapshot's (one more web pod on the first): counted on them
    first = infos[0].clone()
    first.add_pod(make_pod("extra", "default").labels({"app": "web"}).node(first.name).obj())
    others = [first, *infos[1:]]
    assert plugin.score_nodes(h.state, pod, others) == [plugin.score(h.state, pod, ni)[0] for ni in others]


def test_default_constraints_follow_the_objects_selecting_the_pod() -> None:
    """The default constraints are remembered per pod shape while no Service, ReplicaSet,
    StatefulSet or ReplicationController comes or goes: a Service added, replaced or removed, or
    the owner gone, is seen at the next cycle; another namespace or other labels have their own."""
    from schedframe.plugins.pod_topology_spread import SCHEDULE_ANYWAY

    owner = OwnerReference("ReplicaSet", "rs", api_version="apps/v1", controller=True)
    pod = make_pod("p", "team").labels({"app": "web", "tier": "front"}).obj()
    pod = pod.evolve(owner_references=(owner,))
    h = harness([make_node("n0").label("kubernetes.io/hostname", "n0").obj()],
                objects=[ReplicaSet("rs", "team", LabelSelector({"app": "web"}))])
    plugin: Any = h.plugin
    store = h.objects

    def selectors(p: Pod = pod) -> set[LabelSelector | None]:
        return {c.selector for c in plugin.get_constraints(p, SCHEDULE_ANYWAY)}

    by_owner = selector(None, ("app", "In", ("web",)))
    assert selectors() == {by_owner}
    assert selectors() == {by_owner}  # remembered: the same
    svc = Service("svc", "team", {"tier": "front"})
    store.add(svc)
    assert selectors() == {selector({"tier": "front"}, ("app", "In", ("web",)))}
    store.add(Service("svc", "team", {"tier": "back"}))  # replaced: no longer selects the pod
    assert selectors() == {by_owner}
    store.remove(ReplicaSet("rs", "team", LabelSelector({"app": "web"})))
    assert selectors() == set()  # nothing selects it: no default constraint
    store.add(svc)
    assert selectors() == {selector({"tier": "front"})}
    here = make_pod("q", "team").labels({"tier": "front"}).obj()
    assert selectors(here) == {selector({"tier": "front"})}
    elsewhere = make_pod("q", "other").labels({"tier": "front"}).obj()  # the same but its namespace
    assert selectors(elsewhere) == set()
    other_labels = make_pod("r", "team").labels({"tier": "back"}).obj()
    assert selectors(other_labels) == set()
