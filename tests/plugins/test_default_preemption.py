"""Tests for DefaultPreemption, ported from upstream ``default_preemption_test.go`` (TestPostFilter,
TestDryRunPreemption, TestSelectBestCandidate, TestCustomSelection, TestCustomOrdering,
TestPodEligibleToPreemptOthers, TestPreempt) and ``validation_pluginargs_test.go``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe.api.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodCondition,
    PodDisruptionBudget,
)
from schedframe.cache.nodeinfo import NodeInfo, PodInfo
from schedframe.cache.snapshot import Snapshot
from schedframe.cache.store import ObjectStore
from schedframe.errors import PluginArgsError
from schedframe.framework.args import decode_args, encode_args, validate_args
from schedframe.framework.clock import FakeClock
from schedframe.framework.cycle_state import CycleState
from schedframe.framework.interfaces import (
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
)
from schedframe.framework.preemption import (
    PREEMPTION_NOT_HELPFUL,
    Candidate,
    Victims,
    aggregate_message,
    earliest_pod_start_time,
    fit_error_message,
    more_important_pod,
    pick_one_node_for_preemption,
)
from schedframe.framework.registry import Registry
from schedframe.framework.runtime import Framework, InMemoryEventRecorder
from schedframe.framework.status import Code, Status
from schedframe.framework.waiting_pods import WaitingPodEntry, WaitingPods
from schedframe.plugins import default_preemption as dp
from schedframe.plugins import in_tree_registry
from schedframe.plugins.node_resources_fit import ERR_REASON_INSUFFICIENT_CPU
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import (
    FakeFilter,
    FalseFilter,
    TrueFilter,
    make_framework,
    make_node,
    make_pod,
    selector,
)

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
NODE_RES = {"cpu": "200m", "memory": "400"}
FIT = "NodeResourcesFit"
VIOLATING_KEY = "test.kubernetes.io/is-violating-pdb"
NOW = 1000.0


# -- helpers ------------------------------------------------------------------------------------


def pod(
    name: str,
    node: str = "",
    prio: int | None = None,
    req: Mapping[str, str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    start: float | None = None,
    nominated: str = "",
    policy: str | None = None,
    ns: str = "default",
) -> Pod:
    b = make_pod(name, ns).uid(name)
    if node:
        b.node(node)
    if prio is not None:
        b.priority(prio)
    if req is not None:
        b.req(**req)
    if labels:
        b.labels(labels)
    if start is not None:
        b.start_time(start)
    if nominated:
        b.nominated_node_name(nominated)
    if policy is not None:
        b.preemption_policy(policy)
    return b.obj()


def node(spec: str, cap: Mapping[str, str] = VERY_LARGE, pods: str = "32", **labels: str) -> Node:
    """``"name/zone/region"`` -> a node labelled hostname/zone/region like the upstream tests."""
    parts = spec.split("/")
    b = make_node(parts[0]).capacity(cap.get("cpu"), cap.get("memory"), pods=pods)
    for key, value in zip(("hostname", "zone", "region"), parts):
        b.label(key, value)
    for key, value in labels.items():
        b.label(key, value)
    return b.obj()


def pdb(
    name: str,
    labels: Mapping[str, str] | None,
    allowed: int = 0,
    *,
    ns: str = "default",
    disrupted: Iterable[str] = (),
    sel: LabelSelector | None = None,
) -> PodDisruptionBudget:
    if sel is None and labels is not None:
        sel = LabelSelector(match_labels=labels)
    return PodDisruptionBudget(
        name, ns, selector=sel, disruptions_allowed=allowed, disrupted_pods=frozenset(disrupted)
    )


class RecordingClient:
    """A fake API client recording deletions and nominations; *fail* makes delete_pod raise."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.deleted: list[str] = []
        self.nominations: list[tuple[str, str]] = []
        self.bound: list[tuple[str, str]] = []
        self.fail = fail

    def bind(self, p: Pod, node_name: str) -> None:
        self.bound.append((p.name, node_name))

    def delete_pod(self, p: Pod) -> None:
        if self.fail is not None:
            raise self.fail
        self.deleted.append(p.name)

    def set_nominated_node_name(self, p: Pod, node_name: str) -> None:
        self.nominations.append((p.name, node_name))


class ListNominator:
    """A nominator holding fixed nominations."""

    def __init__(self, by_node: Mapping[str, Sequence[Pod]] | None = None) -> None:
        self.by_node = {k: [PodInfo.of(p) for p in v] for k, v in (by_node or {}).items()}

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.by_node.get(node_name, ()))


class ExtensionErrorPlugin:
    """Upstream's TestPlugin: AddPod/RemovePod fail on nodes labelled ``error=true``."""

    name = "test-plugin"

    def pre_filter(
        self, state: CycleState, p: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def pre_filter_extensions(self) -> ExtensionErrorPlugin:
        return self

    def add_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> Status | None:
        if node_info.node is not None and node_info.node.labels.get("error") == "true":
            return Status.from_error(RuntimeError(f"failed to add pod: {p.name}"))
        return None

    def remove_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> Status | None:
        if node_info.node is not None and node_info.node.labels.get("error") == "true":
            return Status.from_error(RuntimeError(f"failed to remove pod: {p.name}"))
        return None

    def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status | None:
        return None


class MatchFilter:
    """Upstream's MatchFilterPlugin: only the node named like the pod passes."""

    name = "MatchFilter"

    def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status | None:
        return None if p.name == node_info.name else Status.unschedulable("match")


class Env:
    """A framework with in-tree and fake plugins, DefaultPreemption at PostFilter, fakes around."""

    def __init__(
        self,
        nodes: Sequence[Node],
        pods: Sequence[Pod] = (),
        *,
        plugins: Sequence[Any] = (FIT,),
        pre_filter: Sequence[Any] | None = None,
        pdbs: Sequence[PodDisruptionBudget] = (),
        args: Any = None,
        nominator: Any = None,
        client: RecordingClient | None = None,
    ) -> None:
        self.client = client or RecordingClient()
        self.recorder = InMemoryEventRecorder()
        self.waiting = WaitingPods()
        self.clock = FakeClock(NOW)
        self.snapshot = Snapshot.from_objects(nodes, pods)
        if pre_filter is None:
            pre_filter = [
                p
                for p in plugins
                if p == FIT
                or getattr(p, "pre_filter", None) is not None
                or p in ("PodTopologySpread", "InterPodAffinity")
            ]
        kwargs: dict[str, Any] = {
            "snapshot": self.snapshot,
            "client": self.client,
            "event_recorder": self.recorder,
            "objects": ObjectStore(pdbs),
            "clock": self.clock,
            "waiting_pods": self.waiting,
        }
        if nominator is not None:
            kwargs["nominator"] = nominator
        self.fw: Framework = make_framework(
            registry=in_tree_registry(),
            pre_filter=list(pre_filter),
            filter=list(plugins),
            post_filter=[dp.NAME],
            plugin_args={dp.NAME: args} if args is not None else None,
            framework_kwargs=kwargs,
        )
        plugin = self.fw.get_plugin(dp.NAME)
        assert isinstance(plugin, dp.DefaultPreemption)
        self.plugin = plugin

    def pre_filter(self, p: Pod) -> CycleState:
        state = CycleState()
        _, status, _ = self.fw.run_pre_filter_plugins(state, p)
        assert status.is_success(), status
        return state

    def node_infos(self) -> list[NodeInfo]:
        return sorted(self.snapshot.list(), key=lambda ni: ni.name)

    def dry_run(self, p: Pod, offset: int = 0, pdbs: Sequence[PodDisruptionBudget] = ()) -> list[Candidate]:
        infos = self.node_infos()
        num = self.plugin.calculate_num_candidates(len(infos))
        cands, _, _ = self.plugin.evaluator.dry_run_preemption(
            self.pre_filter(p), p, infos, pdbs, offset, num
        )
        return cands


class Override:
    """The plugin as PreemptionInterface, with some methods replaced."""

    def __init__(self, plugin: dp.DefaultPreemption, **methods: Any) -> None:
        self._plugin = plugin
        self._methods = methods

    def __getattr__(self, name: str) -> Any:
        return self._methods.get(name) or getattr(self._plugin, name)


def all_unschedulable(nodes: Iterable[str]) -> NodeToStatus:
    return NodeToStatus({n: Status(Code.UNSCHEDULABLE) for n in nodes})


def summary(cands: Sequence[Candidate]) -> dict[str, tuple[list[str], int]]:
    """Node -> (sorted victim names, PDB violations)."""
    return {c.name: (sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations) for c in cands}


def prefixed(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE, (dp.MESSAGE_PREFIX + msg,))


def nominate(name: str) -> PostFilterResult:
    return PostFilterResult(NominatingInfo(name, NominatingMode.OVERRIDE))


def placed(node: str, victims: int) -> Status:
    """A successful preemption's status from Kubernetes 1.37 on (before: no message)."""
    return Status(Code.SUCCESS, (f"{dp.MESSAGE_PREFIX}found a potential placement for pod on node {node}, "
                                 f"preempting {victims} victims",))


def one_pod_node(name: str, **labels: str) -> Node:
    return make_node(name).capacity(pods="1").labels(labels).obj()


# -- PostFilter ---------------------------------------------------------------------------------

NO_VICTIMS = dp.ERR_NO_VICTIMS
VIOLATING_PDBS = (
    pdb("violating-pdb", {VIOLATING_KEY: "violating"}, 0),
    pdb("non-violating-pdb", {VIOLATING_KEY: "non-violating"}, 2**31 - 1),
)


@pytest.mark.parametrize(
    ("preemptor", "pods", "nodes", "statuses", "pdbs", "want_result", "want_status"),
    [
        pytest.param(
            pod("p", prio=HIGH),
            [pod("p1", "node1")],
            [one_pod_node("node1")],
            all_unschedulable(["node1"]),
            (),
            nominate("node1"),
            placed("node1", 1),
            id="higher priority pod made schedulable",
        ),
        pytest.param(
            pod("p"),
            [pod("p1", "node1")],
            [one_pod_node("node1")],
            all_unschedulable(["node1"]),
            (),
            nominate(""),
            prefixed(f"0/1 nodes are available: 1 {NO_VICTIMS}."),
            id="tied priority stays unschedulable",
        ),
        pytest.param(
            pod("p", prio=HIGH),
            [pod("p1", "node1")],
            [one_pod_node("node1")],
            NodeToStatus({"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)}),
            (),
            nominate(""),
            prefixed(f"0/1 nodes are available: 1 {PREEMPTION_NOT_HELPFUL}."),
            id="unresolvable node not considered",
        ),
        pytest.param(
            pod("p", prio=HIGH),
            [pod("p1", "node1")],
            [one_pod_node("node1")],
            NodeToStatus(),
            (),
            nominate(""),
            prefixed(f"0/1 nodes are available: 1 {PREEMPTION_NOT_HELPFUL}."),
            id="absent node means unresolvable",
        ),
        pytest.param(
            pod("p", prio=MID),
            [pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
            [one_pod_node("node1"), one_pod_node("node2")],
            all_unschedulable(["node1", "node2"]),
            (),
            nominate("node2"),
            placed("node2", 1),
            id="schedulable on the node with a lower priority pod",
        ),
        pytest.param(
            pod("p", prio=VERY_HIGH),
            [
                pod("p1", "node1", HIGH, labels={VIOLATING_KEY: "non-violating"}),
                pod("p2", "node1", LOW, labels={VIOLATING_KEY: "violating"}),
                pod("p3", "node2", MID, labels={VIOLATING_KEY: "violating"}),
            ],
            [one_pod_node("node1"), one_pod_node("node2")],
            all_unschedulable(["node1", "node2"]),
            VIOLATING_PDBS,
            nominate("node2"),
            placed("node2", 1),
            id="min highest priority node despite pdb",
        ),
        pytest.param(
            pod("p", prio=HIGH, req=LARGE),
            [pod("p1", "node1"), pod("p2", "node2")],
            [node("node1", NODE_RES), node("node2", NODE_RES)],
            all_unschedulable(["node1", "node2"]),
            (),
            nominate(""),
            prefixed(f"0/2 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}."),
            id="not enough cpu even after removing victims",
        ),
        pytest.param(
            pod("p", prio=HIGH, req=LARGE),
            [pod("p1", "node1", HIGH), pod("p2", "node2"), pod("p3", "node3", HIGH)],
            [one_pod_node("node1"), node("node2", NODE_RES), one_pod_node("node3")],
            all_unschedulable(["node1", "node2", "node3"]),
            (),
            nominate(""),
            prefixed(f"0/3 nodes are available: 1 {ERR_REASON_INSUFFICIENT_CPU}, 2 {NO_VICTIMS}."),
            id="mixed reasons no victims and not enough cpu",
        ),
        pytest.param(
            pod("p", prio=HIGH, req=LARGE),
            [pod("p1", "node1"), pod("p2", "node2")],
            [node(f"node{i}", NODE_RES) for i in range(1, 5)],
            NodeToStatus(
                {
                    "node1": Status(Code.UNSCHEDULABLE),
                    "node2": Status(Code.UNSCHEDULABLE),
                    "node4": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                }
            ),
            (),
            nominate(""),
            prefixed(
                f"0/4 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}, 2 {PREEMPTION_NOT_HELPFUL}."
            ),
            id="mixed reasons with unresolvable and absent nodes",
        ),
    ],
)
def test_post_filter(preemptor, pods, nodes, statuses, pdbs, want_result, want_status):
    """PostFilter nominates the best node or explains, per node, why preemption cannot help."""
    env = Env(nodes, pods, plugins=(FIT, ExtensionErrorPlugin()), pdbs=pdbs)
    result, status = env.plugin.post_filter(env.pre_filter(preemptor), preemptor, statuses)
    assert (result, status) == (want_result, want_status)


@pytest.mark.parametrize(
    ("pods", "nodes", "want_result", "want_code", "want_message"),
    [
        pytest.param(
            [pod("p1", "node1")],
            [node("node1", LARGE, error="true")],
            None,
            Code.ERROR,
            'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p',
            id="only node fails in RemovePod",
        ),
        pytest.param(
            [pod("p1", "node1"), pod("p2", "node2", req=MEDIUM)],
            [node("node1", LARGE, error="true"), node("node2", LARGE)],
            nominate("node2"),
            Code.SUCCESS,
            placed("node2", 1).message,
            id="failing node ignored when another works",
        ),
        pytest.param(
            [pod("p1", "node1"), pod("p2", "node2")],
            [node("node1", LARGE, error="true"), node("node2", LARGE, error="true")],
            None,
            Code.ERROR,
            'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p',
            id="identical errors aggregate to one",
        ),
    ],
)
def test_post_filter_errors(pods, nodes, want_result, want_code, want_message):
    """Errors of a dry run surface only when no node yields a candidate."""
    preemptor = pod("p", prio=HIGH, req=LARGE)
    env = Env(nodes, pods, plugins=(FIT, ExtensionErrorPlugin()))
    result, status = env.plugin.post_filter(
        env.pre_filter(preemptor), preemptor, all_unschedulable(n.name for n in nodes)
    )
    assert (result, status.code, status.message) == (want_result, want_code, want_message)


def test_post_filter_through_framework():
    """The framework attributes the plugin, keeps the clearing result and the errors' messages."""
    env = Env([one_pod_node("node1")], [pod("p1", "node1")])
    preemptor = pod("p")
    result, status = env.fw.run_post_filter_plugins(
        env.pre_filter(preemptor), preemptor, all_unschedulable(["node1"])
    )
    assert result == nominate("")
    assert status == Status(
        Code.UNSCHEDULABLE, (f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}.",), dp.NAME
    )
    env = Env(
        [node("node1", LARGE, error="true")], [pod("p1", "node1")], plugins=(FIT, ExtensionErrorPlugin())
    )
    preemptor = pod("p", prio=HIGH)
    result, status = env.fw.run_post_filter_plugins(
        env.pre_filter(preemptor), preemptor, all_unschedulable(["node1"])
    )
    assert result is None
    assert status.code is Code.ERROR
    # upstream keeps the plugin's own message (AsStatus(s.AsError())) and names the plugin
    assert status.message == (
        'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'
    )
    assert status.plugin == dp.NAME


def test_post_filter_not_eligible_and_no_nodes():
    """A Never pod is refused with upstream's message; an empty cluster is an error."""
    env = Env([one_pod_node("node1")], [pod("p1", "node1")])
    never = pod("p", prio=HIGH, policy="Never")
    assert env.plugin.post_filter(CycleState(), never, all_unschedulable(["node1"])) == (
        None,
        prefixed(dp.ERR_NOT_ELIGIBLE_PREEMPT_NEVER),
    )
    empty = Env([])
    assert empty.plugin.post_filter(CycleState(), pod("p", prio=HIGH), NodeToStatus()) == (
        None,
        Status(Code.ERROR, ("preemption: no nodes available",)),
    )


# -- DryRunPreemption ---------------------------------------------------------------------------

P1_L = pod("p1", "node1", MID, LARGE)
P2_L = pod("p2", "node2", MID, LARGE)
FOO_SEL = selector(None, ("foo", "Exists", ()))
FIVE = [f"node{i}" for i in range(1, 6)]


def _five(prios: Sequence[int], labels: Sequence[bool] = (False,) * 5) -> list[Pod]:
    return [
        pod(f"p{i}", f"node{i}", prio, LARGE, labels={"app": "foo"} if lab else None)
        for i, (prio, lab) in enumerate(zip(prios, labels), start=1)
    ]


@pytest.mark.parametrize(
    (
        "plugins",
        "node_specs",
        "preemptor",
        "pods",
        "pdbs",
        "fake_code",
        "args",
        "offset",
        "want",
        "want_calls",
    ),
    [
        pytest.param(
            [FalseFilter()],
            ["node1", "node2"],
            pod("p", prio=HIGH),
            [pod("p1", "node1", MID), pod("p2", "node2", MID)],
            (),
            None,
            None,
            0,
            {},
            2,
            id="fits no node",
        ),
        pytest.param(
            [TrueFilter()],
            ["node1", "node2"],
            pod("p", prio=HIGH),
            [pod("p1", "node1", MID), pod("p2", "node2", MID)],
            (),
            Code.UNSCHEDULABLE,
            None,
            0,
            {},
            2,
            id="fake filter fails every node",
        ),
        pytest.param(
            [MatchFilter()],
            ["node1", "node2"],
            pod("node1", prio=HIGH),
            [pod("p1", "node1", MID), pod("p2", "node2", MID)],
            (),
            Code.UNSCHEDULABLE,
            None,
            0,
            {},
            2,
            id="fits one node without preemption but fake filter fails",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=LARGE),
            [P1_L, P2_L],
            (),
            None,
            None,
            0,
            {"node1": (["p1"], 0), "node2": (["p2"], 0)},
            4,
            id="both nodes after preempting lower priority",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=LOW, req=LARGE),
            [P1_L, P2_L],
            (),
            None,
            None,
            0,
            {},
            0,
            id="running pods have higher priority",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=LARGE),
            [pod("p1.1", "node1", LOW, SMALL), pod("p1.2", "node1", MID, LARGE), P2_L],
            (),
            None,
            None,
            0,
            {"node1": (["p1.2"], 0), "node2": (["p2"], 0)},
            5,
            id="medium victim preempted small low one stays",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=LARGE),
            [
                pod("p1.1", "node1", MID, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p1.3", "node1", MID, MEDIUM),
                pod("p1.4", "node1", HIGH, SMALL),
                pod("p2", "node2", HIGH, LARGE),
            ],
            (),
            None,
            None,
            0,
            {"node1": (["p1.2", "p1.3"], 0)},
            4,
            id="mixed priorities preempted",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=LARGE),
            [
                pod("p1.1", "node1", LOW, SMALL, start=5e-9),
                pod("p1.2", "node1", LOW, SMALL, start=4e-9),
                pod("p1.3", "node1", MID, MEDIUM, start=3e-9),
                pod("p1.4", "node1", HIGH, SMALL, start=2e-9),
                pod("p2", "node2", HIGH, LARGE, start=1e-9),
            ],
            (),
            None,
            None,
            0,
            {"node1": (["p1.1", "p1.3"], 0)},
            4,
            id="equal priorities preempt the later start",
        ),
        pytest.param(
            [FIT, "InterPodAffinity"],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=SMALL, labels={"foo": ""}),
            [
                make_pod("p1.1")
                .uid("p1.1")
                .node("node1")
                .label("foo", "")
                .priority(LOW)
                .req(**SMALL)
                .pod_affinity_exists("foo", "hostname", anti=True)
                .obj(),
                pod("p1.2", "node1", MID, SMALL),
                pod("p1.3", "node1", HIGH, SMALL),
                pod("p2", "node2", HIGH, SMALL),
            ],
            (),
            None,
            None,
            0,
            {"node1": (["p1.1"], 0)},
            3,
            id="pod with anti-affinity preempted",
        ),
        pytest.param(
            ["PodTopologySpread"],
            ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
            make_pod("p")
            .uid("p")
            .label("foo", "")
            .priority(HIGH)
            .spread_constraint(1, "zone", label_selector=FOO_SEL)
            .spread_constraint(1, "hostname", label_selector=FOO_SEL)
            .obj(),
            [
                pod("pod-a1", "node-a", MID, labels={"foo": ""}),
                pod("pod-a2", "node-a", LOW, labels={"foo": ""}),
                pod("pod-b1", "node-b", LOW, labels={"foo": ""}),
                pod("pod-x1", "node-x", HIGH, labels={"foo": ""}),
                pod("pod-x2", "node-x", HIGH, labels={"foo": ""}),
            ],
            (),
            None,
            None,
            0,
            {"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)},
            5,
            id="preemption resolves topology spread",
        ),
        pytest.param(
            [FIT],
            ["node1", "node2"],
            pod("p", prio=HIGH, req=LARGE),
            [P1_L, P2_L],
            (),
            Code.UNSCHEDULABLE,
            None,
            0,
            {},
            2,
            id="filter still fails after removing victims",
        ),
        pytest.param(
            [FIT],
            ["node1"],
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
                pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
            ],
            [pdb("pdb", {"app": "foo"}, 1)],
            None,
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 1)},
            3,
            id="violating the same pdb",
        ),
        pytest.param(
            [FIT],
            ["node1"],
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
                pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
            ],
            [pdb("pdb", {"app": "foo"}, 1, disrupted=["p2"])],
            None,
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 1)},
            3,
            id="disrupted pods list another pod",
        ),
        pytest.param(
            [FIT],
            ["node1"],
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
                pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
            ],
            [pdb("pdb", {"app": "foo"}, 1, disrupted=["p1.2"])],
            None,
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 0)},
            3,
            id="victim already in disrupted pods",
        ),
        pytest.param(
            [FIT],
            ["node1"],
            pod("p", prio=HIGH, req=VERY_LARGE),
            [pod(f"p1.{i}", "node1", MID, MEDIUM, labels={"app": "foo"}) for i in (1, 2, 3)],
            [pdb("pdb", {"app": "foo"}, 1, disrupted=["p1.3"])],
            None,
            None,
            0,
            {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
            4,
            id="disrupted victim counts as non violating",
        ),
        pytest.param(
            [FIT],
            FIVE,
            pod("p", prio=HIGH, req=LARGE),
            _five([MID] * 5),
            (),
            None,
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            4,
            {"node1": (["p1"], 0), "node5": (["p5"], 0)},
            4,
            id="args limit candidates to two from the offset",
        ),
        pytest.param(
            [FIT],
            FIVE,
            pod("p", prio=HIGH, req=LARGE),
            _five([MID, VERY_HIGH, MID, MID, VERY_HIGH]),
            (),
            None,
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            4,
            {"node1": (["p1"], 0), "node3": (["p3"], 0)},
            4,
            id="nodes without candidates are passed over",
        ),
        pytest.param(
            [FIT],
            FIVE,
            pod("p", prio=HIGH, req=LARGE),
            _five([MID] * 5),
            (),
            None,
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            1,
            {"node2": (["p2"], 0), "node3": (["p3"], 0)},
            4,
            id="offset one",
        ),
        pytest.param(
            [FIT],
            FIVE,
            pod("p", prio=HIGH, req=LARGE),
            _five([MID] * 5),
            (),
            None,
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            3,
            {"node4": (["p4"], 0), "node5": (["p5"], 0)},
            4,
            id="offset three",
        ),
        pytest.param(
            [FIT],
            FIVE,
            pod("p", prio=HIGH, req=LARGE),
            _five([MID] * 5, [True, True, False, False, True]),
            [pdb("pdb", {"app": "foo"}, 0)],
            None,
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
            4,
            {"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)},
            8,
            id="looks past the count until a non violating node",
        ),
    ],
)
def test_dry_run_preemption(
    plugins, node_specs, preemptor, pods, pdbs, fake_code, args, offset, want, want_calls
):
    """Dry runs find the same candidates and victims, with the same number of Filter calls."""
    nodes = [node(spec) for spec in node_specs]
    fake = FakeFilter({n.name: fake_code for n in nodes} if fake_code is not None else None)
    env = Env(nodes, pods, plugins=(fake, *plugins), args=args)
    cands = env.dry_run(preemptor, offset, pdbs)
    assert summary(cands) == want
    assert len(fake.calls) == want_calls


def test_dry_run_orders_non_violating_first_and_reports_statuses():
    """Candidates without PDB violations come first; failed nodes get their status."""
    nodes = [node(n) for n in FIVE]
    pods = _five([MID, VERY_HIGH, MID, MID, MID], [True, False, False, False, False])
    env = Env(nodes, pods)
    p = pod("p", prio=HIGH, req=LARGE)
    cands, statuses, errors = env.plugin.evaluator.dry_run_preemption(
        env.pre_filter(p), p, env.node_infos(), [pdb("pdb", {"app": "foo"}, 0)], 0, 5
    )
    assert [c.name for c in cands] == ["node3", "node4", "node5", "node1"]
    assert statuses.items() == [("node2", Status.unresolvable(NO_VICTIMS))]
    assert errors == []


def test_dry_run_success_without_victims_is_an_error():
    """A plugin selecting no victim with success gets upstream's error for that node."""
    env = Env([node("node1")], [pod("p1", "node1")])

    def select(state: CycleState, p: Pod, ni: NodeInfo, pdbs: Any) -> tuple[list[Pod], int, Status]:
        return [], 0, Status.OK

    env.plugin.evaluator.interface = Override(env.plugin, select_victims_on_node=select)
    p = pod("p", prio=HIGH)
    cands, statuses, errors = env.plugin.evaluator.dry_run_preemption(
        CycleState(), p, env.node_infos(), [], 0, 1
    )
    want = Status(Code.ERROR, ('expected at least one victim pod on node "node1"',))
    assert (cands, statuses.items(), errors) == ([], [("node1", want)], [want])


# -- SelectCandidate ----------------------------------------------------------------------------


def _grid(spec: Sequence[tuple[str, int, Mapping[str, str], float]]) -> list[Pod]:
    return [pod(name, f"node{name[1]}", prio, req, start=start) for name, prio, req, start in spec]


@pytest.mark.parametrize(
    ("node_count", "pods", "want"),
    [
        pytest.param(
            2, _grid([("p1", MID, LARGE, 0), ("p2", MID, LARGE, 0)]), {"node1", "node2"}, id="either node"
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, MEDIUM, 0),
                    ("p1.2", MID, LARGE, 0),
                    ("p2.1", MID, MEDIUM, 0),
                    ("p2.2", LOW, MEDIUM, 0),
                    ("p3.1", LOW, MEDIUM, 0),
                    ("p3.2", LOW, MEDIUM, 0),
                ]
            ),
            {"node3"},
            id="min highest priority",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, MEDIUM, 0),
                    ("p1.2", MID, LARGE, 0),
                    ("p2.1", MID, LARGE, 0),
                    ("p2.2", LOW, MEDIUM, 0),
                    ("p3.1", MID, MEDIUM, 0),
                    ("p3.2", MID, MEDIUM, 0),
                ]
            ),
            {"node2"},
            id="min sum of priorities",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, SMALL, 0),
                    ("p1.2", NEG, SMALL, 0),
                    ("p1.3", MID, SMALL, 0),
                    ("p1.4", NEG, SMALL, 0),
                    ("p2.1", MID, LARGE, 0),
                    ("p2.2", NEG, MEDIUM, 0),
                    ("p3.1", MID, MEDIUM, 0),
                    ("p3.2", NEG, SMALL, 0),
                    ("p3.3", LOW, SMALL, 0),
                ]
            ),
            {"node2"},
            id="min number of pods",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, SMALL, 0),
                    ("p1.2", NEG, SMALL, 0),
                    ("p1.3", NEG, SMALL, 0),
                    ("p2.1", MID, LARGE, 0),
                    ("p2.2", NEG, MEDIUM, 0),
                    ("p3.1", MID, MEDIUM, 0),
                    ("p3.2", NEG, SMALL, 0),
                    ("p3.3", LOW, SMALL, 0),
                ]
            ),
            {"node2"},
            id="sum of offset priorities",
        ),
        pytest.param(
            4,
            _grid(
                [
                    ("p1.1", MID, SMALL, 0),
                    ("p1.2", LOW, SMALL, 0),
                    ("p1.3", LOW, SMALL, 0),
                    ("p2.1", HIGH, LARGE, 0),
                    ("p3.1", MID, MEDIUM, 0),
                    ("p3.2", LOW, SMALL, 0),
                    ("p3.3", LOW, SMALL, 0),
                    ("p3.4", LOW, MEDIUM, 0),
                    ("p4.1", MID, MEDIUM, 0),
                    ("p4.2", MID, SMALL, 0),
                    ("p4.3", MID, SMALL, 0),
                    ("p4.4", NEG, SMALL, 0),
                ]
            ),
            {"node1"},
            id="non overlapping criteria",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, MEDIUM, 2e-9),
                    ("p1.2", MID, MEDIUM, 2e-9),
                    ("p2.1", MID, MEDIUM, 3e-9),
                    ("p2.2", MID, MEDIUM, 3e-9),
                    ("p3.1", MID, MEDIUM, 1e-9),
                    ("p3.2", MID, MEDIUM, 1e-9),
                ]
            ),
            {"node2"},
            id="latest start time per node",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", MID, MEDIUM, 4e-9),
                    ("p1.2", MID, MEDIUM, 2e-9),
                    ("p2.1", MID, MEDIUM, 5e-9),
                    ("p2.2", MID, MEDIUM, 1e-9),
                    ("p3.1", MID, MEDIUM, 3e-9),
                    ("p3.2", MID, MEDIUM, 6e-9),
                ]
            ),
            {"node3"},
            id="latest earliest start time",
        ),
        pytest.param(
            3,
            _grid(
                [
                    ("p1.1", LOW, MEDIUM, 4e-9),
                    ("p1.2", MID, MEDIUM, 2e-9),
                    ("p2.1", MID, MEDIUM, 6e-9),
                    ("p2.2", LOW, MEDIUM, 1e-9),
                    ("p3.1", LOW, MEDIUM, 3e-9),
                    ("p3.2", MID, MEDIUM, 5e-9),
                ]
            ),
            {"node2"},
            id="start time of the highest priority victims",
        ),
    ],
)
def test_select_best_candidate(node_count, pods, want):
    """The best candidate follows upstream's criteria in order."""
    env = Env([node(f"node{i}") for i in range(1, node_count + 1)], pods)
    p = pod("p", prio=VERY_HIGH if node_count == 4 else HIGH, req=VERY_LARGE if node_count > 2 else LARGE)
    best = env.plugin.evaluator.select_candidate(env.dry_run(p))
    assert best is not None
    assert best.name in want


def test_select_candidate_edge_cases():
    """No candidates gives None; one candidate is returned as is."""
    env = Env([node("node1")])
    c = Candidate("node1", Victims((pod("v", "node1"),)))
    assert env.plugin.evaluator.select_candidate([]) is None
    assert env.plugin.evaluator.select_candidate([c]) is c


def test_custom_score_funcs():
    """Score functions from ordered_score_funcs replace the defaults."""
    env = Env([node("node1")])
    env.plugin.evaluator.interface = Override(env.plugin, ordered_score_funcs=lambda m: [len])
    cands = [
        Candidate("n1", Victims((pod("a", prio=LOW),))),
        Candidate("node2", Victims((pod("b", prio=HIGH),))),
    ]
    best = env.plugin.evaluator.select_candidate(cands)
    assert best == cands[1]


V = pod("v", prio=MID, start=5.0)


@pytest.mark.parametrize(
    ("victims", "want"),
    [
        pytest.param({}, "", id="no nodes"),
        pytest.param({"a": Victims((V,), 1), "b": Victims((V, V), 0)}, "b", id="pdb violations first"),
        pytest.param(
            {"a": Victims((pod("x", prio=-(2**31)),) * 3), "b": Victims((pod("y", prio=-(2**31)),) * 2)},
            "b",
            id="offset makes fewer lowest priority victims win",
        ),
        pytest.param(
            {
                "a": Victims((pod("x", prio=MID, start=1.0), pod("y", prio=LOW, start=9.0))),
                "b": Victims((pod("z", prio=MID, start=2.0), pod("w", prio=LOW, start=0.5))),
            },
            "b",
            id="start time of highest priority victims only",
        ),
        pytest.param(
            {"a": Victims((pod("x", prio=MID),)), "b": Victims((pod("y", prio=MID, start=NOW - 1),))},
            "a",
            id="no start time counts as now",
        ),
        pytest.param({"a": Victims((V,)), "b": Victims((V,))}, "a", id="ties go to the first"),
    ],
)
def test_pick_one_node_for_preemption(victims, want):
    """pickOneNodeForPreemption with the default criteria."""
    assert pick_one_node_for_preemption(victims, now=NOW) == want


def test_helpers():
    """Start times, importance, earliest start and error aggregation behave as upstream."""
    a, b = pod("a", prio=MID, start=1.0), pod("b", prio=MID)
    assert more_important_pod(a, b, NOW)
    assert not more_important_pod(b, a, NOW)
    assert more_important_pod(pod("c", prio=HIGH), a, NOW)
    assert earliest_pod_start_time(Victims(()), NOW) is None
    assert earliest_pod_start_time(Victims((pod("d", prio=LOW, start=0.0), a, b)), NOW) == 1.0
    assert earliest_pod_start_time(Victims((b, pod("e", prio=MID, start=2.0), a)), NOW) == 1.0
    assert aggregate_message(["x"]) == "x"
    assert aggregate_message(["x", "x"]) == "x"
    assert aggregate_message(["x", "y", "x"]) == "[x, y]"
    assert fit_error_message(2, NodeToStatus()) == "0/2 nodes are available:"
    assert (
        fit_error_message(3, NodeToStatus({"a": Status.unschedulable("x", "y")}, Status.unresolvable("z")))
        == "0/3 nodes are available: 1 x, 1 y, 2 z."
    )


# -- custom eligibility and ordering ------------------------------------------------------------


def _label_is(key: str, value: str) -> dp.IsEligiblePodFunc:
    return lambda ni, victim, preemptor: victim.pod.labels.get(key) == value


def _on_node(name: str) -> dp.IsEligiblePodFunc:
    return lambda ni, victim, preemptor: ni.name == name


def _preemptor_at_least(prio: int) -> dp.IsEligiblePodFunc:
    return lambda ni, victim, preemptor: preemptor.effective_priority >= prio


def _victim_at_most(prio: int) -> dp.IsEligiblePodFunc:
    return lambda ni, victim, preemptor: victim.pod.effective_priority <= prio


LABELLED = [
    pod("v1", "node1", MID, LARGE, labels={"preemptible": "no"}),
    pod("v2", "node2", MID, LARGE, labels={"preemptible": "yes"}),
    pod("v3", "node3", LOW, LARGE, labels={"preemptible": "yes"}),
    pod("v4", "node4", LOW, LARGE),
]
ON_NODE1 = [
    pod("v1", "node1", HIGH, MEDIUM),
    pod("v2", "node1", MID, SMALL),
    pod("v3", "node1", LOW, SMALL),
    pod("v4", "node2", MID, LARGE),
    pod("v5", "node3", LOW, LARGE),
]
ONE_EACH = [pod("v1", "node1", HIGH, LARGE), pod("v2", "node2", MID, LARGE), pod("v3", "node3", LOW, LARGE)]


@pytest.mark.parametrize(
    ("rule", "node_count", "preemptor_prio", "pods", "want"),
    [
        pytest.param(
            _label_is("preemptible", "yes"),
            4,
            HIGH,
            LABELLED,
            {"node2": ["v2"], "node3": ["v3"]},
            id="label rule high priority",
        ),
        pytest.param(
            _label_is("preemptible", "yes"), 4, MID, LABELLED, {"node3": ["v3"]}, id="label rule mid priority"
        ),
        pytest.param(_label_is("preemptible", "yes"), 4, LOW, LABELLED, {}, id="label rule low priority"),
        pytest.param(
            _on_node("node1"), 3, HIGH, ON_NODE1, {"node1": ["v2", "v3"]}, id="node rule high priority"
        ),
        pytest.param(
            _on_node("node1"),
            3,
            MID,
            [pod("v1", "node1", HIGH, SMALL), *ON_NODE1[1:]],
            {"node1": ["v3"]},
            id="node rule mid priority",
        ),
        pytest.param(_on_node("node1"), 3, LOW, ON_NODE1, {}, id="node rule low priority"),
        pytest.param(
            _preemptor_at_least(HIGH),
            3,
            HIGH,
            ONE_EACH,
            {"node2": ["v2"], "node3": ["v3"]},
            id="only high priority preemptors",
        ),
        pytest.param(_preemptor_at_least(HIGH), 3, MID, ONE_EACH, {}, id="mid priority preemptor refused"),
        pytest.param(
            _victim_at_most(MID),
            3,
            HIGH,
            ONE_EACH,
            {"node2": ["v2"], "node3": ["v3"]},
            id="only victims up to mid priority",
        ),
    ],
)
def test_custom_selection(rule, node_count, preemptor_prio, pods, want):
    """is_eligible_pod narrows the victims, on top of the priority rule."""
    env = Env([node(f"node{i}") for i in range(1, node_count + 1)], pods)
    env.plugin.is_eligible_pod = rule
    cands = env.dry_run(pod("p", prio=preemptor_prio, req=LARGE))
    assert {c.name: [v.name for v in c.victims.pods] for c in cands} == want


@pytest.mark.parametrize(
    ("order", "pods", "want"),
    [
        pytest.param(
            lambda a, b: (a.start_time or 0) < (b.start_time or 0),
            [
                pod("v1", "node1", LOW, MEDIUM, start=2e-9),
                pod("v2", "node1", LOW, MEDIUM, start=0.0),
                pod("v3", "node1", MID, MEDIUM, start=1e-9),
            ],
            ["v3", "v1"],
            id="newest pods first",
        ),
        pytest.param(
            lambda a, b: a.name < b.name,
            [
                make_pod("foo").uid("v1").node("node1").priority(LOW).req(**MEDIUM).obj(),
                make_pod("bar").uid("v2").node("node1").priority(LOW).req(**MEDIUM).obj(),
                make_pod("baz").uid("v3").node("node1").priority(MID).req(**MEDIUM).obj(),
            ],
            ["baz", "foo"],
            id="alphabetically last pods",
        ),
    ],
)
def test_custom_ordering(order, pods, want):
    """more_important_pod decides which victims are reprieved first."""
    env = Env([node("node1")], pods)
    env.plugin.more_important_pod = order
    [cand] = env.dry_run(pod("p2", prio=HIGH, req=LARGE))
    assert [v.name for v in cand.victims.pods] == want


def test_custom_ordering_ties_keep_node_order():
    """A custom order calling every pod equal keeps the NodeInfo order."""
    pods = [pod("v1", "node1", LOW, MEDIUM), pod("v2", "node1", MID, MEDIUM), pod("v3", "node1", LOW, MEDIUM)]
    env = Env([node("node1")], pods)
    env.plugin.more_important_pod = lambda a, b: False
    [cand] = env.dry_run(pod("p", prio=HIGH, req=LARGE))
    assert [v.name for v in cand.victims.pods] == ["v2", "v3"]


def test_custom_ordering_resorts_mixed_victims():
    """With PDB-violating and other victims, the victims end sorted by the custom order."""
    pods = [
        pod("a", "node1", LOW, MEDIUM, labels={"app": "x"}),
        pod("b", "node1", LOW, MEDIUM),
        pod("c", "node1", LOW, SMALL),
    ]
    env = Env([node("node1")], pods)
    env.plugin.more_important_pod = lambda x, y: x.name > y.name
    p = pod("p", prio=HIGH, req=VERY_LARGE)
    victims, violations, status = env.plugin.select_victims_on_node(
        env.pre_filter(p), p, env.node_infos()[0].clone(), [pdb("pdb", {"app": "x"}, 0)]
    )
    assert ([v.name for v in victims], violations, status) == (["c", "b", "a"], 1, Status.OK)


# -- PodEligibleToPreemptOthers -----------------------------------------------------------------

TERMINATING = make_pod("p1").uid("p1").priority(LOW).node("node1").terminating().obj()
PREEMPTED = TERMINATING.evolve(
    conditions=(PodCondition("DisruptionTarget", "True", "PreemptionByScheduler"),)
)


@pytest.mark.parametrize(
    ("preemptor", "pods", "nominated_status", "want"),
    [
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [TERMINATING],
            Status.unresolvable("node(s) had untolerated taint(s)"),
            (True, ""),
            id="nominated node unresolvable",
        ),
        pytest.param(pod("p", prio=HIGH), [], None, (True, ""), id="no nominated node"),
        pytest.param(
            pod("p", prio=HIGH, policy="Never"),
            [],
            None,
            (False, dp.ERR_NOT_ELIGIBLE_PREEMPT_NEVER),
            id="preemption policy never",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [PREEMPTED],
            None,
            (False, dp.ERR_NOT_ELIGIBLE_TERMINATING),
            id="victim terminating by preemption",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [TERMINATING],
            None,
            (True, ""),
            id="non victim pod terminating",
        ),
        pytest.param(
            pod("p", prio=LOW, nominated="node1"),
            [PREEMPTED],
            Status(Code.UNSCHEDULABLE),
            (True, ""),
            id="terminating pod of equal priority",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="gone"),
            [PREEMPTED],
            None,
            (True, ""),
            id="nominated node not in snapshot",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [
                PREEMPTED.evolve(
                    conditions=(PodCondition("DisruptionTarget", "False", "PreemptionByScheduler"),)
                )
            ],
            None,
            (True, ""),
            id="disruption condition false",
        ),
        pytest.param(
            pod("p", prio=HIGH, policy="PreemptLowerPriority"),
            [],
            None,
            (True, ""),
            id="preempt lower priority policy",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [TERMINATING.evolve(conditions=(PodCondition("Ready", "True"),))],
            None,
            (True, ""),
            id="terminating without disruption condition",
        ),
        pytest.param(
            pod("p", prio=HIGH, nominated="node1"),
            [pod("r", "node1", LOW)],
            None,
            (True, ""),
            id="running pod on nominated node",
        ),
    ],
)
def test_pod_eligible_to_preempt_others(preemptor, pods, nominated_status, want):
    """Eligibility as upstream PodEligibleToPreemptOthers."""
    env = Env([node("node1")], pods)
    assert env.plugin.pod_eligible_to_preempt_others(preemptor, nominated_status) == want


# -- Preempt ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preemptor", "pods", "node_specs", "plugins", "want", "want_deleted"),
    [
        pytest.param(
            pod("p", prio=HIGH, req=VERY_LARGE, policy="PreemptLowerPriority"),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            ["node1", "node2", "node3"],
            (FIT,),
            nominate("node1"),
            ["p1.1", "p1.2"],
            id="basic preemption",
        ),
        pytest.param(
            make_pod("p")
            .uid("p")
            .label("foo", "")
            .priority(HIGH)
            .spread_constraint(1, "zone", label_selector=FOO_SEL)
            .spread_constraint(1, "hostname", label_selector=FOO_SEL)
            .obj(),
            [
                pod("p-a1", "node-a", HIGH, labels={"foo": ""}),
                pod("p-a2", "node-a", HIGH, labels={"foo": ""}),
                pod("p-b1", "node-b", LOW, labels={"foo": ""}),
                pod("p-x1", "node-x", HIGH, labels={"foo": ""}),
                pod("p-x2", "node-x", HIGH, labels={"foo": ""}),
            ],
            ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
            ("PodTopologySpread",),
            nominate("node-b"),
            ["p-b1"],
            id="topology spread constraints",
        ),
        pytest.param(
            pod("p", prio=HIGH, req=VERY_LARGE, policy="Never"),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            ["node1", "node2", "node3"],
            (FIT,),
            None,
            [],
            id="preemption policy never",
        ),
        pytest.param(
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            ["node1", "node2", "node3"],
            (FIT,),
            nominate("node1"),
            ["p1.1", "p1.2"],
            id="no preemption policy",
        ),
    ],
)
def test_preempt(preemptor, pods, node_specs, plugins, want, want_deleted):
    """Preempt evicts the chosen victims, records events, and does not preempt again while the
    victims terminate."""
    nodes = [node(s) for s in node_specs]
    env = Env(nodes, pods, plugins=plugins)
    state = env.pre_filter(preemptor)
    result, status = env.plugin.evaluator.preempt(state, preemptor, all_unschedulable(n.name for n in nodes))
    assert status.is_success() or status.is_rejected()
    assert result == want
    assert sorted(env.client.deleted) == want_deleted
    assert [(e.reason, e.obj.name) for e in env.recorder.events] == [
        ("Preempted", n) for n in env.client.deleted
    ]
    assert all(
        e.message == f"Preempted by pod {preemptor.uid} on node {want.nominating_info.nominated_node_name}"
        for e in env.recorder.events
        if want is not None and want.nominating_info is not None
    )
    if not want_deleted:
        return
    # Victims now terminate because of the preemption: the pod must wait.
    gone = set(want_deleted)
    cond = (PodCondition("DisruptionTarget", "True", "PreemptionByScheduler"),)
    terminating = [p.evolve(deletion_timestamp=1.0, conditions=cond) if p.name in gone else p for p in pods]
    again = Env(nodes, terminating, plugins=plugins)
    assert result is not None
    assert result.nominating_info is not None
    nominated = preemptor.evolve(nominated_node_name=result.nominating_info.nominated_node_name)
    result, status = again.plugin.evaluator.preempt(
        again.pre_filter(nominated),
        nominated,
        NodeToStatus({n.name: Status(Code.UNSCHEDULABLE) for n in nodes}),
    )
    assert (result, status) == (None, Status(Code.UNSCHEDULABLE, (dp.ERR_NOT_ELIGIBLE_TERMINATING,)))
    assert again.client.deleted == []


def test_prepare_candidate_side_effects():
    """Waiting victims are rejected, terminating ones skipped, lower nominations cleared."""
    lower = pod("lower", prio=LOW, nominated="node1")
    higher = pod("higher", prio=VERY_HIGH, nominated="node1")
    env = Env([node("node1")], nominator=ListNominator({"node1": [lower, higher]}))
    waiting = pod("w", "node1", LOW)
    env.waiting.add(WaitingPodEntry(waiting, "node1", {"Gate": 10.0}, env.clock))
    dying = pod("d", "node1", LOW).evolve(deletion_timestamp=1.0)
    plain = pod("v", "node1", LOW)
    preemptor = pod("p", prio=HIGH)
    cand = Candidate("node1", Victims((waiting, dying, plain)))
    assert env.plugin.evaluator.prepare_candidate(cand, preemptor) == Status.OK
    assert env.client.deleted == ["v"]
    decision = env.waiting.get(waiting.uid).check_timeouts(NOW)  # type: ignore[union-attr]
    assert decision is not None
    assert decision.code is Code.UNSCHEDULABLE
    assert decision.message == "preempted"
    assert decision.plugin == dp.NAME
    assert env.client.nominations == [("lower", "")]
    assert [e.obj.name for e in env.recorder.events] == ["w", "v"]


def test_prepare_candidate_delete_failure():
    """A failed deletion stops preemption with an ERROR status and no nomination."""
    env = Env(
        [node("node1")],
        [pod("v", "node1", LOW, SMALL)],
        client=RecordingClient(fail=RuntimeError("api down")),
    )
    p = pod("p", prio=HIGH, req=VERY_LARGE)
    result, status = env.plugin.post_filter(env.pre_filter(p), p, all_unschedulable(["node1"]))
    assert result is None
    assert (status.code, status.message) == (Code.ERROR, "preemption: api down")
    assert isinstance(status.error, RuntimeError)


def test_prepare_candidate_tolerates_nomination_errors():
    """Failures listing or clearing nominations are logged, not returned."""

    class Broken:
        def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
            raise RuntimeError("nominator down")

    class BadClient(RecordingClient):
        def set_nominated_node_name(self, p: Pod, node_name: str) -> None:
            raise RuntimeError("patch failed")

    cand = Candidate("node1", Victims((pod("v", "node1", LOW),)))
    env = Env([node("node1")], nominator=Broken())
    assert env.plugin.evaluator.prepare_candidate(cand, pod("p", prio=HIGH)) == Status.OK
    env = Env([node("node1")], nominator=ListNominator({"node1": [pod("l", prio=LOW)]}), client=BadClient())
    assert env.plugin.evaluator.prepare_candidate(cand, pod("p", prio=HIGH)) == Status.OK


# -- SelectVictimsOnNode ------------------------------------------------------------------------


def test_select_victims_add_pod_error():
    """An AddPod failure while reprieving is an ERROR for that node."""

    class AddFails(ExtensionErrorPlugin):
        def remove_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> Status | None:
            return None

    env = Env([node("node1", error="true")], [pod("v", "node1", LOW, SMALL)], plugins=(FIT, AddFails()))
    p = pod("p", prio=HIGH, req=SMALL)
    victims, n, status = env.plugin.select_victims_on_node(
        env.pre_filter(p), p, env.node_infos()[0].clone(), []
    )
    assert (victims, n, status.code) == ([], 0, Code.ERROR)
    assert status.message == 'running AddPod on PreFilter plugin "test-plugin": failed to add pod: p'


def test_select_victims_add_pod_error_for_pdb_violating_victim():
    """An AddPod failure while reprieving a PDB-violating victim is an ERROR too."""

    class AddFails(ExtensionErrorPlugin):
        def remove_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> Status | None:
            return None

    env = Env(
        [node("node1", error="true")],
        [pod("v", "node1", LOW, SMALL, labels={"app": "x"})],
        plugins=(FIT, AddFails()),
    )
    p = pod("p", prio=HIGH, req=SMALL)
    _, _, status = env.plugin.select_victims_on_node(
        env.pre_filter(p), p, env.node_infos()[0].clone(), [pdb("pdb", {"app": "x"}, 0)]
    )
    assert status.code is Code.ERROR


def test_select_victims_remove_error_while_reprieving():
    """A RemovePod failure after a failed reprieve is an ERROR for that node."""

    class SecondRemoveFails(ExtensionErrorPlugin):
        def __init__(self) -> None:
            self.removes = 0

        def remove_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> Status | None:
            self.removes += 1
            return Status.unschedulable("nope") if self.removes > 1 else None

    env = Env([node("node1")], [pod("v", "node1", LOW, LARGE)], plugins=(FIT, SecondRemoveFails()))
    p = pod("p", prio=HIGH, req=LARGE)
    victims, n, status = env.plugin.select_victims_on_node(
        env.pre_filter(p), p, env.node_infos()[0].clone(), []
    )
    assert (victims, n, status.code) == ([], 0, Code.ERROR)


def test_select_victims_pod_missing_from_node_info():
    """A victim that is not in the NodeInfo any more is an ERROR."""
    env = Env([node("node1")], [pod("v", "node1", LOW, LARGE)])

    class Vanishing(NodeInfo):  # type: ignore[misc]
        def remove_pod(self, p: Pod) -> bool:
            return False

    info = env.node_infos()[0]
    bad = Vanishing(info.node, [pi.pod for pi in info.pods])
    p = pod("p", prio=HIGH, req=LARGE)
    _, _, status = env.plugin.select_victims_on_node(env.pre_filter(p), p, bad, [])
    assert status == Status(Code.ERROR, ("no corresponding pod default/v in pods of node node1",))


# -- PDBs ---------------------------------------------------------------------------------------


def _names(infos: Sequence[PodInfo]) -> list[str]:
    return [pi.pod.name for pi in infos]


BAD_SELECTOR = LabelSelector(match_expressions=(LabelSelectorRequirement("app", "In", ()),))


@pytest.mark.parametrize(
    ("pods", "pdbs", "want_violating", "want_ok"),
    [
        pytest.param(
            [pod("a", labels={"app": "x"}), pod("b", labels={"app": "x"})],
            [pdb("p", {"app": "x"}, 1)],
            ["b"],
            ["a"],
            id="budget used up in order",
        ),
        pytest.param(
            [pod("a")], [pdb("p", {}, 0, sel=LabelSelector())], [], ["a"], id="no labels never match"
        ),
        pytest.param(
            [pod("a", labels={"app": "x"})],
            [pdb("p", {}, 0, sel=LabelSelector())],
            [],
            ["a"],
            id="empty selector matches nothing",
        ),
        pytest.param([pod("a", labels={"app": "x"})], [pdb("p", None, 0)], [], ["a"], id="no selector"),
        pytest.param(
            [pod("a", labels={"app": "x"})],
            [pdb("p", None, 0, sel=BAD_SELECTOR)],
            [],
            ["a"],
            id="invalid selector matches nothing",
        ),
        pytest.param(
            [pod("a", labels={"app": "x"})],
            [pdb("p", {"app": "x"}, 0, ns="other")],
            [],
            ["a"],
            id="other namespace",
        ),
        pytest.param(
            [pod("a", labels={"app": "x"})], [pdb("p", {"app": "y"}, 0)], [], ["a"], id="not selected"
        ),
        pytest.param(
            [pod("a", labels={"app": "x"})],
            [pdb("p", {"app": "x"}, 0, disrupted=["a"])],
            [],
            ["a"],
            id="already disrupted",
        ),
        pytest.param(
            [pod("a", labels={"app": "x", "t": "1"})],
            [pdb("p", {"app": "x"}, 5), pdb("q", {"t": "1"}, 0)],
            ["a"],
            [],
            id="any violated budget",
        ),
    ],
)
def test_filter_pods_with_pdb_violation(pods, pdbs, want_violating, want_ok):
    """Pods are split by PDB violation as upstream filterPodsWithPDBViolation."""
    violating, ok = dp.filter_pods_with_pdb_violation([PodInfo.of(p) for p in pods], pdbs)
    assert (_names(violating), _names(ok)) == (want_violating, want_ok)


# -- args ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param({}, dp.DefaultPreemptionArgs(), id="defaults"),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 5},
            dp.DefaultPreemptionArgs(min_candidate_nodes_percentage=0, min_candidate_nodes_absolute=5),
            id="explicit zero percentage kept",
        ),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "DefaultPreemptionArgs",
                "minCandidateNodesAbsolute": 0,
            },
            dp.DefaultPreemptionArgs(min_candidate_nodes_absolute=0),
            id="with kind",
        ),
    ],
)
def test_args_from_dict(data, want):
    """Missing fields get upstream's v1 defaults; to_dict round-trips."""
    args = decode_args(dp.DefaultPreemptionArgs, data)
    assert args == want
    assert decode_args(dp.DefaultPreemptionArgs, encode_args(args)) == args


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param(
            {"minCandidateNodesPercentage": -1},
            r"minCandidateNodesPercentage: Invalid value: -1: "
            r"not in valid range \[0, 100\]",
            id="negative percentage",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 900},
            r"Invalid value: 900: not in valid range \[0, 100\]",
            id="percentage over 100",
        ),
        pytest.param(
            {"minCandidateNodesAbsolute": -1},
            r"minCandidateNodesAbsolute: Invalid value: -1: "
            r"not in valid range \[0, inf\)",
            id="negative absolute",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            r"(?s)minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            r"minCandidateNodesAbsolute.*minCandidateNodesAbsolute: Invalid value: 0: cannot be zero "
            r"at the same time as minCandidateNodesPercentage",
            id="both zero",
        ),
        pytest.param({"minCandidateNodes": 1}, r"minCandidateNodes: unknown field", id="unknown field"),
        pytest.param(
            {"minCandidateNodesAbsolute": "5"},
            r"minCandidateNodesAbsolute: must be an integer, got string",
            id="string value",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": True}, r"must be an integer, got boolean", id="bool value"
        ),
        pytest.param(
            {"kind": "Other"}, r"kind: must be DefaultPreemptionArgs, got 'Other'", id="wrong kind"
        ),
    ],
)
def test_args_errors(data, match):
    """Invalid args raise PluginArgsError with upstream field errors."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(dp.DefaultPreemptionArgs, data)


def test_args_all_errors_at_once():
    """Every problem is listed."""
    with pytest.raises(PluginArgsError) as info:
        validate_args(dp.DefaultPreemptionArgs(
            min_candidate_nodes_percentage=101, min_candidate_nodes_absolute=-1
        ))
    assert len(info.value.errors) == 2


def test_args_not_a_mapping():
    """from_dict refuses non-mappings."""
    with pytest.raises(PluginArgsError, match="must be a mapping, got list"):
        decode_args(dp.DefaultPreemptionArgs, [])  # type: ignore[arg-type]


def test_new_factory():
    """new() accepts None, an args object or a mapping; anything else is refused."""
    fw = make_framework()
    assert dp.new(None, fw).args == dp.DefaultPreemptionArgs()
    assert dp.new({"minCandidateNodesAbsolute": 3}, fw).args.min_candidate_nodes_absolute == 3
    args = dp.DefaultPreemptionArgs(min_candidate_nodes_percentage=50)
    assert dp.new(args, fw).args is args
    with pytest.raises(PluginArgsError, match="want args of type DefaultPreemptionArgs, got int"):
        dp.new(5, fw)
    with pytest.raises(PluginArgsError, match="not in valid range"):
        dp.new(dp.DefaultPreemptionArgs(min_candidate_nodes_absolute=-3), fw)


def test_registered_in_tree_with_config_args():
    """The in-tree registry knows DefaultPreemption and its args type."""
    registry: Registry = in_tree_registry()
    assert registry[dp.NAME].args_type is dp.DefaultPreemptionArgs
    env = Env([node("n1")], args={"minCandidateNodesPercentage": 20})
    assert env.plugin.args.min_candidate_nodes_percentage == 20
    assert env.plugin.name == dp.NAME
    assert env.plugin.events_to_register() == ()
    assert env.plugin.ordered_score_funcs({}) is None


@pytest.mark.parametrize(
    ("pct", "absolute", "num_nodes", "want"),
    [
        pytest.param(10, 100, 0, 0, id="no nodes"),
        pytest.param(10, 100, 50, 50, id="fewer nodes than absolute"),
        pytest.param(10, 100, 500, 100, id="absolute wins"),
        pytest.param(10, 100, 5000, 500, id="percentage wins"),
        pytest.param(40, 1, 5, 2, id="percentage of five"),
        pytest.param(0, 3, 10, 3, id="zero percentage"),
        pytest.param(100, 0, 7, 7, id="all nodes"),
    ],
)
def test_calculate_num_candidates(pct, absolute, num_nodes, want):
    """calculateNumCandidates: max(n*pct/100, abs) capped at n."""
    args = dp.DefaultPreemptionArgs(min_candidate_nodes_percentage=pct, min_candidate_nodes_absolute=absolute)
    plugin = dp.DefaultPreemption(args, make_framework())
    assert plugin.calculate_num_candidates(num_nodes) == want


def test_offsets_are_seeded():
    """Offsets come from the plugin's seeded RNG: seed 0 by default, the handle's seed if any."""

    class Seeded:
        seed = 7

    plugin = dp.DefaultPreemption(dp.DefaultPreemptionArgs(), make_framework())
    offsets = [plugin.get_offset_and_num_candidates(10)[0] for _ in range(20)]
    again = dp.DefaultPreemption(dp.DefaultPreemptionArgs(), make_framework())
    assert [again.get_offset_and_num_candidates(10)[0] for _ in range(20)] == offsets
    assert all(0 <= o < 10 for o in offsets)
    seeded = dp.DefaultPreemption(dp.DefaultPreemptionArgs(), Seeded(), seed=None)  # type: ignore[arg-type]
    explicit = dp.DefaultPreemption(dp.DefaultPreemptionArgs(), make_framework(), seed=7)
    assert [seeded.get_offset_and_num_candidates(1000)[0] for _ in range(5)] == [
        explicit.get_offset_and_num_candidates(1000)[0] for _ in range(5)
    ]
    assert plugin.get_offset_and_num_candidates(0) == (0, 0)


# -- invariants ---------------------------------------------------------------------------------


@st.composite
def clusters(draw: Callable[..., Any]) -> tuple[list[Node], list[Pod], Pod]:
    n_nodes = draw(st.integers(1, 4))
    nodes = [node(f"n{i}", {"cpu": "1000m", "memory": "1000"}, pods="4") for i in range(n_nodes)]
    pods = []
    for i in range(draw(st.integers(0, 10))):
        pods.append(
            pod(
                f"v{i}",
                f"n{draw(st.integers(0, n_nodes - 1))}",
                draw(st.integers(-2, 3)) * 100,
                {"cpu": f"{draw(st.integers(1, 5)) * 100}m", "memory": "1"},
                labels={"app": draw(st.sampled_from(["a", "b"]))},
                start=float(draw(st.integers(0, 3))),
            )
        )
    preemptor = pod(
        "p",
        prio=draw(st.integers(-1, 4)) * 100,
        req={"cpu": f"{draw(st.integers(1, 10)) * 100}m", "memory": "1"},
    )
    return nodes, pods, preemptor


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.integers(0, 2))
def test_preemption_invariants(cluster, budget):
    """Victims have lower priority, live on the chosen node, and make the pod fit there; the
    chosen node has the fewest PDB violations among the candidates."""
    nodes, pods, preemptor = cluster
    env = Env(nodes, pods)
    state = env.pre_filter(preemptor)
    pdbs = [pdb("pdb", {"app": "a"}, budget)]
    infos = env.node_infos()
    statuses = NodeToStatus({ni.name: env.fw.run_filter_plugins(state, preemptor, ni) for ni in infos})
    if any(s.is_success() for _, s in statuses.items()):
        return  # the pod fits somewhere: PostFilter would not run
    cands, _, errors = env.plugin.evaluator.dry_run_preemption(state, preemptor, infos, pdbs, 0, len(infos))
    assert errors == []
    for c in cands:
        on_node = {p.uid for p in pods if p.node_name == c.name}
        assert all(v.effective_priority < preemptor.effective_priority for v in c.victims.pods)
        assert {v.uid for v in c.victims.pods} <= on_node
        info = env.snapshot.get(c.name)
        assert info is not None
        clone = info.clone()
        for v in c.victims.pods:
            clone.remove_pod(v)
        assert env.fw.run_filter_plugins(env.pre_filter(preemptor), preemptor, clone).is_success()
    best = env.plugin.evaluator.select_candidate(cands)
    if cands:
        assert best is not None
        assert best.victims.num_pdb_violations == min(c.victims.num_pdb_violations for c in cands)
    else:
        assert best is None


# -- end to end ---------------------------------------------------------------------------------


def test_scheduler_end_to_end():
    """A full cluster of low-priority pods: a high-priority pod preempts the cheapest victims
    and lands on the nominated node."""
    sched = Scheduler(clock=FakeClock(NOW))
    for n in ("n1", "n2", "n3"):
        sched.add_node(make_node(n).capacity(cpu="1", memory="1Gi", pods="10").obj())
    prios = (5, 1, 3, 6, 2, 4)
    for i, prio in enumerate(prios):
        sched.add_pod(make_pod(f"low{i}").priority(prio).req(cpu="500m").start_time(float(i)).obj())
    sched.run_until_idle()
    placed = sched.bindings()
    assert len(placed) == 6
    by_node: dict[str, list[int]] = {}
    for i, prio in enumerate(prios):
        by_node.setdefault(placed[f"default/low{i}"], []).append(prio)
    cheapest = min(by_node, key=lambda n: (max(by_node[n]), sum(by_node[n])))
    victims = {f"default/low{i}" for i in range(len(prios)) if placed[f"default/low{i}"] == cheapest}

    sched.add_pod(make_pod("high").priority(1000).req(cpu="600m").obj())
    sched.run_until_idle()
    after = sched.bindings()
    assert after["default/high"] == cheapest
    assert victims.isdisjoint(after)
    assert set(after) == (set(placed) - victims) | {"default/high"}
    preempted = [e for e in sched.events if e.reason == "Preempted"]
    assert sorted(e.obj.key for e in preempted) == sorted(victims)
    assert sched.pending() == []


@pytest.mark.parametrize(
    ("high", "pdbs", "want_node", "want_message"),
    [
        pytest.param(
            make_pod("high").priority(1000).req(cpu="600m").obj(),
            [pdb("guard", {"app": "guarded"}, 0)],
            "n2",
            None,
            id="the node without PDB violations wins",
        ),
        pytest.param(
            make_pod("high").priority(1000).req(cpu="600m").preemption_policy("Never").obj(),
            [],
            None,
            f"0/2 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}. "
            f"preemption: {dp.ERR_NOT_ELIGIBLE_PREEMPT_NEVER}",
            id="never preempts",
        ),
        pytest.param(
            make_pod("high").priority(1).req(cpu="600m").obj(),
            [],
            None,
            f"0/2 nodes are available: 2 {ERR_REASON_INSUFFICIENT_CPU}. "
            f"preemption: 0/2 nodes are available: 2 {NO_VICTIMS}.",
            id="no lower priority victims",
        ),
        pytest.param(
            make_pod("high").priority(1000).req(cpu="1500m").obj(),
            [],
            None,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: "
            "0/2 nodes are available: "
            f"2 {PREEMPTION_NOT_HELPFUL}.",
            id="bigger than any node is unresolvable",
        ),
    ],
)
def test_scheduler_outcomes(high, pdbs, want_node, want_message):
    """Through the Scheduler: PDB-aware node choice, and upstream's pending messages."""
    sched = Scheduler(clock=FakeClock(NOW), objects=pdbs)
    for n in ("n1", "n2"):
        sched.add_node(make_node(n).capacity(cpu="1", memory="1Gi", pods="10").obj())
    sched.add_pod(make_pod("a").priority(1).req(cpu="800m").label("app", "guarded").node("n1").obj())
    sched.add_pod(make_pod("b").priority(1).req(cpu="800m").node("n2").obj())
    sched.add_pod(high)
    sched.run_until_idle()
    assert sched.node_of(high) == want_node
    if want_message is None:
        assert sched.pending() == []
        assert sched.node_of("default/b") is None
        assert sched.node_of("default/a") == "n1"
    else:
        [pending] = sched.pending()
        assert pending.message == want_message
        assert sched.node_of("default/b") == "n2"


def test_dry_run_skips_nodes_without_lower_priority_pods_without_cloning(monkeypatch):
    """Nodes where no pod has a lower priority than the preemptor get upstream's "no victims"
    status without cloning the node or the state; candidates and statuses are those of the full
    victim selection, which still runs when the victim selector is replaced."""
    nodes = [node(n) for n in FIVE]
    pods = _five([MID, VERY_HIGH, MID, VERY_HIGH, MID])
    env = Env(nodes, pods)
    p = pod("p", prio=HIGH, req=LARGE)
    evaluator = env.plugin.evaluator
    cloned: list[str] = []
    real_clone = NodeInfo.clone

    def counting_clone(self: NodeInfo) -> NodeInfo:
        cloned.append(self.name)
        return real_clone(self)

    monkeypatch.setattr(NodeInfo, "clone", counting_clone)
    fast = evaluator.dry_run_preemption(env.pre_filter(p), p, env.node_infos(), [], 0, 5)
    assert cloned == ["node1", "node3", "node5"]
    selected: list[str] = []

    def spy(state: CycleState, pp: Pod, ni: NodeInfo, pdbs: Any) -> tuple[list[Pod], int, Status]:
        selected.append(ni.name)
        return env.plugin.select_victims_on_node(state, pp, ni, pdbs)

    evaluator.interface = Override(env.plugin, select_victims_on_node=spy)
    slow = evaluator.dry_run_preemption(env.pre_filter(p), p, env.node_infos(), [], 0, 5)
    assert selected == ["node1", "node2", "node3", "node4", "node5"]
    assert summary(fast[0]) == summary(slow[0])
    assert fast[1].items() == slow[1].items() == [("node2", Status.unresolvable(NO_VICTIMS)),
                                                  ("node4", Status.unresolvable(NO_VICTIMS))]
