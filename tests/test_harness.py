"""PluginHarness: one plugin in a real framework, run the way upstream plugin tests run it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import pytest

from schedframe import (
    Code,
    CycleState,
    FakeClock,
    Namespace,
    Node,
    NodeInfo,
    NodeScore,
    Pod,
    PreFilterResult,
    Registry,
    SchedulerError,
    StateKey,
    Status,
    UnknownPluginError,
)
from schedframe.api import Service
from schedframe.testing import FAKE_REASON, FakeFilter, PluginHarness, fake_registry, make_node, make_pod

NODES = [make_node(n).label("zone", z).obj() for n, z in (("n1", "a"), ("n2", "b"), ("n3", "a"))]
POD = make_pod("p").obj()


@attrs.frozen(kw_only=True)
class ZoneArgs:
    """Args of the Zone test plugin."""

    zone: str = "a"
    bonus: int = 10

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ZoneArgs:
        return cls(zone=data.get("zone", "a"), bonus=data.get("bonus", 10))


_ZONE: StateKey[str] = StateKey("PreFilterZone", "Zone")


class Zone:
    """A multi-point test plugin: PreFilter narrows to nodes of its zone, Filter rejects nodes of
    other zones, PreScore/Score favour the zone, and a pod labelled skip=yes is skipped."""

    name = "Zone"

    def __init__(self, args: ZoneArgs, handle: Any) -> None:
        self.args = args
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        if pod.labels.get("skip") == "yes":
            return None, Status.skip()
        if pod.labels.get("reject") == "yes":
            return None, Status.unresolvable("rejected by zone")
        state.write(_ZONE, self.args.zone)
        if pod.labels.get("narrow") == "yes":
            zone = self.args.zone
            return PreFilterResult(n.name for n in nodes if n.node and n.node.labels["zone"] == zone), None
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.labels["zone"] != state.read(_ZONE):
            return Status.unschedulable("wrong zone")
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if pod.labels.get("skip") == "yes":
            return Status.skip()
        state.write(_ZONE, self.args.zone)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        assert node_info.node is not None
        bonus = self.args.bonus if node_info.node.labels["zone"] == state.read(_ZONE) else 0
        return bonus + len(node_info.pods), None

    def score_extensions(self) -> Zone:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        top = max(s.score for s in scores) or 1
        for i, s in enumerate(scores):
            scores[i] = NodeScore(s.name, s.score * 100 // top)
        return None


def _new_zone(args: Any, handle: Any) -> Zone:
    if args is None:
        args = ZoneArgs()
    if not isinstance(args, ZoneArgs):
        raise TypeError(f"want args of type ZoneArgs, got {type(args).__name__}")
    return Zone(args, handle)


def _registry() -> Registry:
    registry = Registry()
    registry.register("Zone", _new_zone, args_type=ZoneArgs)
    return registry


def _harness(args: Any = None, pods: Sequence[Pod] = ()) -> PluginHarness:
    return PluginHarness("Zone", args, NODES, pods, registry=_registry())


def test_filter_runs_pre_filter_then_filter() -> None:
    """filter() gives every node's status, as the plugin returned it (no plugin attribution)."""
    h = _harness()
    assert h.filter(POD) == {"n1": Status.OK, "n2": Status.unschedulable("wrong zone"), "n3": Status.OK}
    assert h.state.read(_ZONE) == "a"


def test_pre_filter_rejection_applies_to_every_node() -> None:
    """A PreFilter rejection is every node's status."""
    h = _harness()
    pod = make_pod("p").label("reject", "yes").obj()
    want = Status.unresolvable("rejected by zone")
    assert h.pre_filter(pod) == (None, want)
    assert h.filter(pod) == {"n1": want, "n2": want, "n3": want}


def test_pre_filter_skip() -> None:
    """A PreFilter SKIP shows as Status.skip() and Filter is not run (OK everywhere)."""
    h = _harness()
    pod = make_pod("p").label("skip", "yes").obj()
    assert h.pre_filter(pod) == (None, Status.skip())
    assert h.filter(pod) == {"n1": Status.OK, "n2": Status.OK, "n3": Status.OK}


def test_pre_filter_result_excludes_nodes_as_upstream() -> None:
    """Nodes outside a PreFilterResult get UNSCHEDULABLE_AND_UNRESOLVABLE naming the plugin."""
    h = _harness(ZoneArgs(zone="b"))
    pod = make_pod("p").label("narrow", "yes").obj()
    assert h.pre_filter(pod) == (PreFilterResult(["n2"]), Status.OK)
    outside = Status.unresolvable("node(s) didn't satisfy plugin(s) [Zone]")
    assert h.filter(pod) == {"n1": outside, "n2": Status.OK, "n3": outside}


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(None, {"n1": 100, "n2": 0, "n3": 100}, id="default args"),
        pytest.param({"zone": "b"}, {"n1": 0, "n2": 100, "n3": 0}, id="mapping args decoded"),
        pytest.param(ZoneArgs(zone="b", bonus=30), {"n1": 0, "n2": 100, "n3": 0}, id="args object"),
    ],
)
def test_score(args: Any, want: dict[str, int]) -> None:
    """score() runs PreScore, Score and NormalizeScore over all nodes, unweighted."""
    assert _harness(args).score(POD) == want


def test_score_subset_of_nodes_and_existing_pods() -> None:
    """score(nodes=...) scores only the named nodes; existing pods are on their nodes."""
    pods = [make_pod(f"e{i}").node("n2").obj() for i in range(5)]
    h = _harness(ZoneArgs(bonus=5), pods)
    assert h.score(POD, nodes=["n1", "n2"]) == {"n1": 100, "n2": 100}
    assert h.score(POD) == {"n1": 100, "n2": 100, "n3": 100}
    assert len(h.snapshot.node_infos().get("n2").pods) == 5  # type: ignore[union-attr]


def test_score_skip_gives_zero() -> None:
    """A PreScore SKIP gives 0 for every node; pre_score() shows the skip."""
    h = _harness()
    pod = make_pod("p").label("skip", "yes").obj()
    assert h.pre_score(pod) == Status.skip()
    assert h.score(pod) == {"n1": 0, "n2": 0, "n3": 0}
    assert h.pre_score(POD) == Status.OK


def test_unknown_node_name() -> None:
    """Naming a node that does not exist is an error."""
    with pytest.raises(SchedulerError, match=r"no node named 'n9'"):
        _harness().score(POD, nodes=["n9"])


def test_score_failure_raises_and_run_score_reports() -> None:
    """score() raises on failure; run_score() returns the status."""

    class Bad:
        name = "Bad"

        def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
            return 101, None

        def score_extensions(self) -> None:
            return None

    registry = Registry()
    registry.register("Bad", lambda a, h: Bad())
    h = PluginHarness("Bad", nodes=NODES, registry=registry)
    scores, status = h.run_score(POD)
    assert scores == {}
    assert status.code is Code.ERROR
    assert "invalid score 101" in status.message
    with pytest.raises(SchedulerError, match=r"PluginHarness.score: Error: .*invalid score 101"):
        h.score(POD)


def test_pre_score_failure_in_run_score() -> None:
    """A PreScore failure is run_score()'s status."""

    class Bad:
        name = "Bad"

        def pre_score(self, *args: Any) -> Status:
            return Status(Code.ERROR, "nope")

    registry = Registry()
    registry.register("Bad", lambda a, h: Bad())
    h = PluginHarness("Bad", nodes=NODES, registry=registry)
    assert h.run_score(POD) == ({}, Status(Code.ERROR, 'running PreScore plugin "Bad": nope'))
    assert h.run_score(POD)[1].plugin == ""


def test_filter_only_plugin_from_fake() -> None:
    """Fakes work in the harness; plugins without Score score 0."""
    registry = fake_registry(FakeFilter(failed={"n2": Code.UNSCHEDULABLE_AND_UNRESOLVABLE}))
    h = PluginHarness("FakeFilter", nodes=NODES, registry=registry)
    assert h.filter(POD) == {"n1": Status.OK, "n2": Status.unresolvable(FAKE_REASON), "n3": Status.OK}
    assert h.pre_filter(POD) == (None, Status.OK)
    assert h.score(POD) == {"n1": 0, "n2": 0, "n3": 0}
    assert h.framework.plugins_at("bind") == ["FakeBind"]
    assert h.framework.plugins_at("queueSort") == ["FakeQueueSort"]


def test_handle_sees_cluster_objects_and_clock() -> None:
    """The plugin's handle lists namespaces and extra objects, and uses the given clock."""
    clock = FakeClock(5.0)
    svc = Service(name="web", namespace="default", selector={"app": "web"})
    h = PluginHarness("Zone", None, NODES, (), [Namespace(name="prod", labels={"env": "prod"})],
                      objects=[svc], registry=_registry(), clock=clock)
    plugin = h.plugin
    assert isinstance(plugin, Zone)
    assert plugin.handle.objects.namespace("prod").labels == {"env": "prod"}
    assert plugin.handle.objects.list(Service) == [svc]
    assert plugin.handle.clock.now() == 5.0
    assert h.clock is clock
    assert "Zone" in repr(h)


def test_manifests_accepted() -> None:
    """Nodes, pods and namespaces may be given as manifests."""
    h = PluginHarness(
        "Zone", None,
        [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "m1", "labels": {"zone": "a"}}}],
        [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "e", "namespace": "default"},
          "spec": {"nodeName": "m1", "containers": [{"name": "c", "image": "i"}]}}],
        [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}}],
        registry=_registry(),
    )
    assert [n.name for n in h.nodes] == ["m1"]
    assert isinstance(h.nodes[0], Node)
    assert h.filter({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                     "spec": {"containers": [{"name": "c", "image": "i"}]}}) == {"m1": Status.OK}


def test_unknown_plugin() -> None:
    """An unknown plugin name fails with a suggestion."""
    from schedframe import ConfigurationError

    with pytest.raises((ConfigurationError, UnknownPluginError), match=r"no plugin named 'Zon'.*'Zone'"):
        PluginHarness("Zon", registry=_registry())


def test_in_tree_registry_is_the_default() -> None:
    """Without a registry the in-tree plugins are available."""
    h = PluginHarness("NodeName", nodes=NODES)
    assert h.framework.plugins_at("filter") == ["NodeName"]
    pod = make_pod("p").node("n2").obj()
    assert h.filter(pod)["n2"] == Status.OK
    assert h.filter(pod)["n1"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_fake_helpers() -> None:
    """fake_registry copies a base registry; FakeProfile lists points; fakes have a readable repr."""
    from schedframe.testing import FakeProfile, TrueFilter, make_framework

    base = fake_registry(TrueFilter("A"))
    registry = fake_registry(TrueFilter("B"), base=base)
    assert sorted(registry) == ["A", "B"]
    profile = FakeProfile({})
    assert profile.plugins_at("filter") == ()
    assert repr(TrueFilter("A")) == "TrueFilter(name='A')"
    assert TrueFilter.__module__ == "schedframe.testing"
    fw = make_framework(multi_point=[TrueFilter(), "FakeQueueSort", "FakeBind"],
                        registry=fake_registry(*_defaults()))
    assert fw.plugins_at("filter") == ["TrueFilter"]


def _defaults() -> list[Any]:
    from schedframe.testing import FakeBind, FakeQueueSort

    return [FakeQueueSort(), FakeBind()]
