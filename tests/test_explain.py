"""``explain`` / ``explain_with``: the record of one scheduling attempt matches what the framework
and the scheduler do (upstream ``schedule_one.go`` and ``FitError.Error()``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import (
    Code,
    CycleState,
    Node,
    NodeInfo,
    NodeScore,
    Pod,
    PreFilterResult,
    SchedulerConfiguration,
    SchedulerError,
    Status,
)
from schedframe.cache.snapshot import Snapshot
from schedframe.errors import ArgumentTypeError
from schedframe.framework.runtime import Framework
from schedframe.plugins import in_tree_registry
from schedframe.plugins.node_resources_fit import (
    ERR_REASON_INSUFFICIENT_CPU,
    ERR_REASON_TOO_MANY_PODS,
)
from schedframe.plugins.node_unschedulable import ERR_REASON_UNSCHEDULABLE
from schedframe.plugins.scheduling_gates import WAITING_FOR_GATES
from schedframe.plugins.taint_toleration import ERR_REASON_UNTOLERATED
from schedframe.scheduler.explain import (
    Explanation,
    NodeScores,
    NodeVerdict,
    PluginNodeScore,
    PluginVerdict,
    explain,
    explain_with,
)
from schedframe.scheduler.scheduler import ERR_NO_NODES_AVAILABLE, Scheduler
from schedframe.testing import (
    FAKE_REASON,
    FakeFilter,
    FakePreFilter,
    FakePreScore,
    FakeScore,
    TrueFilter,
    make_framework,
    make_node,
    make_pod,
    selector,
)

REGISTRY = in_tree_registry()
DEFAULT = SchedulerConfiguration.default(registry=REGISTRY)


def _node(name: str, cpu: str = "4", *, pods: int = 110, taint: str | None = None,
          zone: str | None = None, unschedulable: bool = False) -> Node:
    b = make_node(name).capacity(cpu=cpu, memory="8Gi", pods=pods)
    if taint is not None:
        b = b.taint(taint, "x")
    if zone is not None:
        b = b.label("zone", zone)
    if unschedulable:
        b = b.unschedulable()
    return b.obj()


def _framework(nodes: Sequence[Node], pods: Sequence[Pod] = ()) -> tuple[Framework, Snapshot]:
    snap = Snapshot.from_objects(nodes, pods)
    return Framework(REGISTRY, DEFAULT.profiles[0], snapshot=snap), snap


def _framework_scores(nodes: Sequence[Node], pods: Sequence[Pod], pod: Pod, feasible: Sequence[str]
                      ) -> dict[str, dict[str, int]]:
    """node -> plugin -> weighted score, plus "total", as the framework computes them."""
    fw, snap = _framework(nodes, pods)
    state = CycleState()
    fw.run_pre_filter_plugins(state, pod)
    infos = [ni for ni in snap.list() if ni.name in feasible]
    assert fw.run_pre_score_plugins(state, pod, infos).is_success()
    scores, status = fw.run_score_plugins(state, pod, infos)
    assert status.is_success()
    return {s.name: {**{ps.name: ps.score for ps in s.scores}, "total": s.total_score} for s in scores}


def _explained_scores(e: Explanation) -> dict[str, dict[str, int]]:
    return {ns.node: {**{s.plugin: s.weighted for s in ns.scores}, "total": ns.total} for ns in e.scores}


# -- the pod fits -------------------------------------------------------------------------------

FIT_CASES = [
    pytest.param(
        [_node("n1", "4"), _node("n2", "1"), _node("n3", "4", taint="gpu"), _node("n4", "8")],
        [make_pod("busy").node("n4").req(cpu="6").obj()],
        make_pod("web").req(cpu="2", memory="1Gi").obj(),
        ("n1", "n4"), "n1",
        id="least allocated node wins",
    ),
    pytest.param(
        [_node("a", zone="z1"), _node("b", zone="z2"), _node("c", zone="z1")],
        [],
        make_pod("sel").node_selector({"zone": "z1"}).req(cpu="1").obj(),
        ("a", "c"), None,
        id="node selector, tie between two nodes",
    ),
    pytest.param(
        [_node("a"), _node("b", taint="t"), _node("c")],
        [make_pod("x").node("c").req(cpu="3").obj()],
        make_pod("tol").toleration("t", "x", "NoSchedule").req(cpu="1").obj(),
        ("a", "b", "c"), None,
        id="tolerated taint keeps the node feasible",
    ),
    pytest.param(
        [_node("a"), _node("b")],
        [],
        make_pod("pref").preferred_node_affinity(50, "zone", ["z9"]).req(cpu="1").obj(),
        ("a", "b"), None,
        id="preferred affinity matching no node",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "pod", "feasible", "selected"), FIT_CASES)
def test_fits_some_nodes(nodes: list[Node], pods: list[Pod], pod: Pod, feasible: tuple[str, ...],
                         selected: str | None) -> None:
    """Feasible nodes, per-plugin weighted scores and totals equal the framework's; the highest
    total is selected."""
    e = explain(pod, nodes=nodes, pods=pods)
    assert e.code is Code.SUCCESS
    assert e.message == ""
    assert e.feasible_nodes == feasible
    assert _explained_scores(e) == _framework_scores(nodes, pods, pod, feasible)
    best = max(ns.total for ns in e.scores)
    assert e.node_scores(e.selected_node or "") is not None
    assert e.node_scores(e.selected_node or "").total == best  # type: ignore[union-attr]
    assert e.tied_nodes == tuple(ns.node for ns in e.scores if ns.total == best) or len(e.tied_nodes) == 0
    if selected is not None:
        assert e.selected_node == selected
    for ns in e.scores:
        for s in ns.scores:
            assert s.weighted == s.normalized * s.weight
            assert 0 <= s.normalized <= 100


def test_score_table_keeps_raw_normalized_and_weight() -> None:
    """Raw scores survive normalization in the record (TaintToleration reverses a taint count);
    weights come from the profile."""
    tainted = make_node("a").capacity(cpu="4", memory="8Gi", pods=110).taint("p", "1", "PreferNoSchedule")
    nodes = [tainted.obj(), _node("b")]
    e = explain(make_pod("p").req(cpu="1").obj(), nodes=nodes)
    a, b = (e.node_scores(n) for n in ("a", "b"))
    assert a is not None
    assert b is not None
    assert a.score("TaintToleration") == PluginNodeScore("TaintToleration", 1, 0, 3, 0)
    assert b.score("TaintToleration") == PluginNodeScore("TaintToleration", 0, 100, 3, 300)
    assert a.score("Nope") is None
    assert e.selected_node == "b"


def test_weights_from_a_configuration_mapping() -> None:
    """A KubeSchedulerConfiguration mapping sets the weights recorded in the score table."""
    config = {"profiles": [{"schedulerName": "default-scheduler", "plugins": {
        "score": {"enabled": [{"name": "TaintToleration", "weight": 7}]}}}]}
    e = explain(make_pod("p").obj(), nodes=[_node("a"), _node("b")], config=config)
    ns = e.node_scores("a")
    assert ns is not None
    tt = ns.score("TaintToleration")
    assert tt is not None
    assert (tt.weight, tt.weighted) == (7, 700)


# -- the pod fits nowhere -----------------------------------------------------------------------

NOWHERE_CASES = [
    pytest.param(
        [_node("n1", "1"), _node("n2", "1"), _node("n3", taint="a"), _node("n4", taint="b"),
         _node("n5", taint="c")],
        [], make_pod("p").req(cpu="2").obj(),
        "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s).",
        id="upstream example",
    ),
    pytest.param(
        [*(_node(f"t{i}", taint="a") for i in range(10)), _node("s1", "1"), _node("s2", "1")],
        [], make_pod("p").req(cpu="2").obj(),
        f"0/12 nodes are available: 10 {ERR_REASON_UNTOLERATED}, 2 {ERR_REASON_INSUFFICIENT_CPU}.",
        id="counts sort as strings (10 before 2)",
    ),
    pytest.param(
        [_node("full", "1", pods=1), _node("cordoned", unschedulable=True), _node("t", "1", taint="a")],
        [make_pod("x").node("full").obj()], make_pod("p").req(cpu="2").obj(),
        f"0/3 nodes are available: 1 {ERR_REASON_INSUFFICIENT_CPU}, 1 {ERR_REASON_TOO_MANY_PODS}, "
        f"1 {ERR_REASON_UNTOLERATED}, 1 {ERR_REASON_UNSCHEDULABLE}.",
        id="several reasons on one node counted once each, only the first failing plugin counts",
    ),
    pytest.param(
        [_node("a"), _node("b", "1"), _node("c"), _node("d")],
        [], make_pod("ds").node_affinity_name("b").req(cpu="2").obj(),
        f"0/4 nodes are available: 1 {ERR_REASON_INSUFFICIENT_CPU}, "
        "3 node(s) didn't satisfy plugin(s) [NodeAffinity].",
        id="PreFilterResult narrowing counts excluded nodes",
    ),
    pytest.param(
        [_node("a"), _node("b"), _node("c")],
        [], make_pod("ds").node_affinity_name("gone").obj(),
        "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity].",
        id="PreFilterResult naming a missing node",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "pod", "message"), NOWHERE_CASES)
def test_fits_nowhere(nodes: list[Node], pods: list[Pod], pod: Pod, message: str) -> None:
    """No node fits: the message is upstream's FitError text, and the scheduler reports the same
    (before its PostFilter part)."""
    e = explain(pod, nodes=nodes, pods=pods)
    assert e.code is Code.UNSCHEDULABLE
    assert e.selected_node is None
    assert not e.scheduled
    assert e.message == message
    assert e.scores == ()

    sched = Scheduler()
    for n in nodes:
        sched.add_node(n)
    for p in pods:
        sched.add_pod(p)
    sched.add_pod(pod)
    sched.run_until_idle()
    (pending,) = sched.pending()
    # 1.37: PostFilter's part is "preemption: ..." alone (DynamicResources adds nothing)
    assert pending.message.split(" preemption: ")[0] == message


def test_filter_matrix_runs_every_plugin_and_marks_the_stop() -> None:
    """Every filter plugin runs on every node for the record; the first failure is where upstream
    stopped and is the node's verdict."""
    nodes = [_node("t", "1", taint="a"), _node("ok")]
    e = explain(make_pod("p").req(cpu="2").obj(), nodes=nodes)
    t = e.node("t")
    assert t.stopped_at == "TaintToleration"
    assert t.verdict == PluginVerdict("TaintToleration", Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      (ERR_REASON_UNTOLERATED,))
    fit = t.check("NodeResourcesFit")
    assert fit is not None
    assert fit.reasons == (ERR_REASON_INSUFFICIENT_CPU,)
    assert [c.plugin for c in t.checks] == list(e.filter_plugins)
    assert e.node("ok").stopped_at is None
    assert e.node("ok").feasible
    assert t.check("Nope") is None


# -- PreFilter ----------------------------------------------------------------------------------

def _pf_framework(*pre_filters: FakePreFilter) -> Framework:
    return make_framework(pre_filter=list(pre_filters), filter=[TrueFilter()])


THREE = [_node("n1"), _node("n2"), _node("n3")]

PRE_FILTER_CASES = [
    pytest.param(
        [FakePreFilter(status=Status.unresolvable("no way"), name="A"), FakePreFilter(name="B")],
        Code.UNSCHEDULABLE, "0/3 nodes are available: no way.", ["A"],
        id="unresolvable stops PreFilter",
    ),
    pytest.param(
        [FakePreFilter(status=Status.unschedulable("not now"), name="A"),
         FakePreFilter(PreFilterResult({"n1"}), name="B")],
        Code.UNSCHEDULABLE, "0/3 nodes are available: not now.", ["A", "B"],
        id="unschedulable lets later plugins run",
    ),
    pytest.param(
        [FakePreFilter(PreFilterResult({"n1"}), name="A"), FakePreFilter(PreFilterResult({"n2"}), name="B")],
        Code.UNSCHEDULABLE,
        "0/3 nodes are available: node(s) didn't satisfy plugin(s) [A B] simultaneously.", ["A", "B"],
        id="disjoint results",
    ),
    pytest.param(
        [FakePreFilter(PreFilterResult(set()), name="A")],
        Code.UNSCHEDULABLE, "0/3 nodes are available: node(s) didn't satisfy plugin A.", ["A"],
        id="empty result",
    ),
    pytest.param(
        [FakePreFilter(raises=ValueError("boom"), name="A"), FakePreFilter(name="B")],
        Code.ERROR, 'running PreFilter plugin "A": ValueError: boom', ["A"],
        id="exception",
    ),
    pytest.param(
        [FakePreFilter(status=Status(Code.WAIT, ("huh",)), name="A")],
        Code.ERROR, 'running PreFilter plugin "A": huh', ["A"],
        id="code PreFilter may not return",
    ),
]


@pytest.mark.parametrize(("plugins", "code", "message", "ran"), PRE_FILTER_CASES)
def test_pre_filter_rejection(plugins: list[FakePreFilter], code: Code, message: str, ran: list[str]
                              ) -> None:
    """PreFilter failures: upstream's message, each plugin that ran recorded, and the overall
    status equal to the framework's."""
    fw = _pf_framework(*plugins)
    snap = Snapshot.from_objects(THREE)
    pod = make_pod("p").obj()
    e = explain_with(fw, snap, pod)
    assert (e.code, e.message) == (code, message)
    assert [v.plugin for v in e.pre_filter] == ran
    fw.set_snapshot(snap)
    _, status, _ = fw.run_pre_filter_plugins(CycleState(), pod)
    assert e.pre_filter_status == PluginVerdict.of(status.plugin, status)
    if code is Code.UNSCHEDULABLE:
        assert [n.node for n in e.nodes] == ["n1", "n2", "n3"]
        assert all(not n.evaluated and not n.feasible and n.checks == () for n in e.nodes)
        assert "rejected at PreFilter" in e.render()
    else:
        assert e.nodes == ()


def test_pre_filter_result_narrowing_daemonset_pod() -> None:
    """A DaemonSet-style pod pinned by matchFields: NodeAffinity narrows PreFilter to its node;
    the other nodes are excluded with upstream's status, the pinned one is selected unscored."""
    nodes = [_node("a"), _node("b"), _node("c")]
    e = explain(make_pod("ds").node_affinity_name("b").obj(), nodes=nodes)
    assert e.pre_filter_result == ("b",)
    step = next(v for v in e.pre_filter if v.plugin == "NodeAffinity")
    assert step == PluginVerdict("NodeAffinity", Code.SUCCESS, (), ("b",))
    excluded = PluginVerdict("", Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                             ("node(s) didn't satisfy plugin(s) [NodeAffinity]",))
    assert e.node("a") == NodeVerdict("a", excluded, (), None, evaluated=False)
    assert e.node("c").verdict == excluded
    assert e.feasible_nodes == ("b",)
    assert e.selected_node == "b"
    assert e.scores == ()
    assert any("only one node" in n for n in e.notes)
    assert "excluded by PreFilterResult" in e.render()


def test_skip_sets_match_the_framework() -> None:
    """Plugins skipped at PreFilter / PreScore are the framework's skip sets; skipped filters show
    as SKIP on every node, skipped score plugins are not scored."""
    nodes = [_node("a"), _node("b")]
    pod = make_pod("p").req(cpu="1").obj()
    e = explain(pod, nodes=nodes)
    fw, snap = _framework(nodes)
    state = CycleState()
    fw.run_pre_filter_plugins(state, pod)
    assert set(e.filter_skipped) == set(state.skip_filter_plugins)
    assert e.filter_skipped == tuple(sorted(e.filter_skipped))
    assert "NodePorts" in e.filter_skipped
    for n in e.nodes:
        for c in n.checks:
            assert (c.code is Code.SKIP) == (c.plugin in e.filter_skipped)
    fw.run_pre_score_plugins(state, pod, snap.list())
    assert set(e.score_skipped) == set(state.skip_score_plugins)
    assert "PodTopologySpread" in e.score_skipped
    scored = {s.plugin for s in e.scores[0].scores}
    assert scored == set(e.score_plugins) - set(e.score_skipped)
    assert [v.plugin for v in e.pre_score] == fw.plugins_at("preScore")
    assert "skipped at PreScore" in e.render()


# -- errors -------------------------------------------------------------------------------------

def test_filter_error_on_one_node() -> None:
    """A filter raising on one node ends the attempt with the framework's ERROR message; the rest
    of the matrix is still recorded, later plugins included."""
    boom = FakeFilter(raises={"n2": ValueError("boom")}, name="Boom")
    fw = make_framework(filter=[boom, FakeFilter({"n2": Code.UNSCHEDULABLE}, name="Later")])
    snap = Snapshot.from_objects(THREE)
    pod = make_pod("p").obj()
    e = explain_with(fw, snap, pod)
    assert e.code is Code.ERROR
    assert e.message == 'running Filter plugin "Boom": ValueError: boom'
    n2 = e.node("n2")
    assert n2.stopped_at == "Boom"
    assert n2.checks[1] == PluginVerdict("Later", Code.UNSCHEDULABLE, (FAKE_REASON,))
    assert e.node("n1").feasible
    fw.set_snapshot(snap)
    status = fw.run_filter_plugins(CycleState(), pod, snap.get("n2"))  # type: ignore[arg-type]
    assert n2.verdict == PluginVerdict.of(status.plugin, status)
    assert "ERROR*" in e.render()


def test_filter_status_a_filter_may_not_return() -> None:
    """A Filter returning WAIT becomes the framework's ERROR status."""
    fw = make_framework(filter=[FakeFilter({"n1": Code.WAIT}, name="W")])
    e = explain_with(fw, Snapshot.from_objects(THREE), make_pod("p").obj())
    assert e.code is Code.ERROR
    assert e.message == f'running Filter plugin "W": {FAKE_REASON}'


def _normalize_to(value: int) -> Any:
    def normalize(scores: list[NodeScore]) -> Status | None:
        for i, s in enumerate(scores):
            scores[i] = NodeScore(s.name, value)
        return None

    return normalize


def _drop_one(scores: list[NodeScore]) -> Status | None:
    scores.pop()
    return None


SCORE_ERROR_CASES = [
    pytest.param({"pre_score": [FakePreScore(raises=RuntimeError("x"), name="PS")]},
                 'running PreScore plugin "PS": RuntimeError: x', id="PreScore raises"),
    pytest.param({"pre_score": [FakePreScore(Status.unschedulable("no"), name="PS")]},
                 'running PreScore plugin "PS": no', id="PreScore rejects"),
    pytest.param({"score": [FakeScore(raises=KeyError("k"), name="S")]},
                 "running Score plugins: plugin \"S\" failed with: KeyError: 'k'", id="Score raises"),
    pytest.param({"score": [FakeScore(status=Status.unschedulable("bad"), name="S")]},
                 'running Score plugins: plugin "S" failed with: bad', id="Score status"),
    pytest.param({"score": [FakeScore(name="S", normalize=lambda s: Status.unschedulable("nn"))]},
                 'running Normalize on Score plugins: plugin "S" failed with: nn', id="Normalize status"),
    pytest.param({"score": [FakeScore(name="S", normalize=_drop_one)]},
                 'running Normalize on Score plugins: plugin "S" failed with: returned 2 scores for 3 nodes',
                 id="Normalize drops a score"),
    pytest.param({"score": [FakeScore({"n2": 101}, name="S")]},
                 'applying score defaultWeights on Score plugins: plugin "S" returns an invalid score 101, '
                 "it should in the range of [0, 100] after normalizing", id="out of range"),
    pytest.param({"score": [FakeScore(name="S", normalize=_normalize_to(-1))]},
                 'applying score defaultWeights on Score plugins: plugin "S" returns an invalid score -1, '
                 "it should in the range of [0, 100] after normalizing", id="normalized out of range"),
]


@pytest.mark.parametrize(("points", "message"), SCORE_ERROR_CASES)
def test_score_errors(points: dict[str, Any], message: str) -> None:
    """PreScore/Score/NormalizeScore failures end the attempt with the framework's message."""
    points.setdefault("score", [FakeScore(name="S0")])
    fw = make_framework(filter=[TrueFilter()], **points)
    snap = Snapshot.from_objects(THREE)
    pod = make_pod("p").obj()
    e = explain_with(fw, snap, pod)
    assert (e.code, e.message, e.selected_node) == (Code.ERROR, message, None)
    fw.set_snapshot(snap)
    state = CycleState()
    status = fw.run_pre_score_plugins(state, pod, snap.list())
    if status.is_success():
        _, status = fw.run_score_plugins(state, pod, snap.list())
    assert status.message == message


# -- selection ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_tie_break_matches_a_fresh_scheduler(seed: int) -> None:
    """Equal nodes tie; the seeded draw picks the node a fresh Scheduler(seed=seed) binds to."""
    nodes = [_node(f"n{i}") for i in range(5)]
    pod = make_pod("p").req(cpu="1").obj()
    e = explain(pod, nodes=nodes, seed=seed)
    assert e.tied_nodes == tuple(f"n{i}" for i in range(5))
    assert e.seed == seed
    sched = Scheduler(seed=seed)
    for n in nodes:
        sched.add_node(n)
    sched.add_pod(pod)
    sched.run_until_idle()
    assert sched.node_of(pod) == e.selected_node


def test_seed_changes_the_tie_break() -> None:
    """Different seeds reach different tied nodes; an RNG passed in is used (and advanced)."""
    import random

    nodes = [_node(f"n{i}") for i in range(5)]
    pod = make_pod("p").obj()
    picks = {explain(pod, nodes=nodes, seed=s).selected_node for s in range(20)}
    assert len(picks) > 1
    fw, snap = _framework(nodes)
    rng = random.Random(3)
    e = explain_with(fw, snap, pod, rng=rng)
    assert e.seed is None
    assert e.selected_node == explain(pod, nodes=nodes, seed=3).selected_node
    assert rng.getstate() != random.Random(3).getstate()


def test_no_score_plugins_every_node_scores_one() -> None:
    """Without Score plugins every feasible node totals 1 (upstream) and the tie-break decides."""
    fw = make_framework(filter=[TrueFilter()])
    e = explain_with(fw, Snapshot.from_objects(THREE), make_pod("p").obj())
    assert e.scores == tuple(NodeScores(n, (), 1) for n in ("n1", "n2", "n3"))
    assert e.selected_node in {"n1", "n2", "n3"}
    assert e.pre_score == ()
    assert "TOTAL" in e.render()
    assert "skipped at PreScore" not in e.render()


def test_no_nodes() -> None:
    """An empty cluster: upstream's ErrNoNodesAvailable, before PreFilter."""
    e = explain(make_pod("p").obj())
    assert (e.code, e.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_NODES_AVAILABLE)
    assert e.pre_filter == ()
    assert e.nodes == ()


def test_gated_pod() -> None:
    """A pod with scheduling gates stops at PreEnqueue: no cycle is recorded."""
    e = explain(make_pod("p").scheduling_gates("example.com/wait").obj(), nodes=THREE)
    assert e.pre_enqueue is not None
    assert e.pre_enqueue.plugin == "SchedulingGates"
    assert e.code is e.pre_enqueue.code
    assert e.message.startswith(WAITING_FOR_GATES)
    assert e.nodes == ()
    assert "PreEnqueue: SchedulingGates" in e.render()


NOMINATED_CASES = [
    pytest.param("n3", [], "n3", "passes Filter", id="feasible nominated node wins unscored"),
    pytest.param("n3", [make_pod("hog").node("n3").req(cpu="4").obj()], "n1", "does not pass",
                 id="infeasible nominated node: normal path"),
    pytest.param("zz", [], "n1", "not in the cluster", id="nominated node gone"),
]


@pytest.mark.parametrize(("nominated", "pods", "selected", "note"), NOMINATED_CASES)
def test_nominated_node(nominated: str, pods: list[Pod], selected: str, note: str) -> None:
    """kube-scheduler tries the nominated node first and takes it when it passes Filter."""
    nodes = [_node("n1", "8"), _node("n2", "4"), _node("n3", "4")]
    e = explain(make_pod("p").req(cpu="1").nominated_node_name(nominated).obj(), nodes=nodes, pods=pods)
    assert e.selected_node == selected
    assert any(note in n for n in e.notes)


def test_nominated_node_outside_pre_filter_result() -> None:
    """The nominated node is filtered even when PreFilterResult excludes it (upstream order)."""
    fw = make_framework(pre_filter=[FakePreFilter(PreFilterResult({"n1"}))], filter=[TrueFilter()])
    e = explain_with(fw, Snapshot.from_objects(THREE), make_pod("p").nominated_node_name("n2").obj())
    assert e.node("n2").evaluated is False
    assert e.selected_node == "n2"
    e = explain(make_pod("p").node_affinity_name("n1").nominated_node_name("n2").obj(), nodes=THREE)
    assert e.selected_node == "n1"
    assert any("n2 does not pass" in n for n in e.notes)


# -- inputs -------------------------------------------------------------------------------------

def test_manifests_and_objects() -> None:
    """Pods and nodes may be manifests; Nodes and Pods among objects join the cluster."""
    node_manifest = _node("m").to_manifest()
    pod_manifest = make_pod("p").req(cpu="1").obj().to_manifest()
    bound = make_pod("x").node("o").req(cpu="3").obj()
    e = explain(pod_manifest, nodes=[node_manifest], objects=[_node("o").to_manifest(), bound.to_manifest()])
    assert [n.node for n in e.nodes] == ["m", "o"]
    assert e.selected_node == "m"
    assert e.pod.name == "p"


def test_objects_reach_the_plugins() -> None:
    """Other objects go to the framework's object store (a namespace for pod affinity)."""
    from schedframe import Namespace

    e = explain(make_pod("p").obj(), nodes=[_node("a")], objects=[Namespace("default")])
    assert e.selected_node == "a"


def test_profile_by_name_and_object() -> None:
    """A profile is chosen by name, by object, or by the pod's schedulerName."""
    config = SchedulerConfiguration.from_dict(
        {"profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "other"}]}, registry=REGISTRY)
    pod = make_pod("p").scheduler_name("other").obj()
    assert explain(pod, nodes=THREE, config=config).profile == "other"
    chosen = explain(pod, nodes=THREE, config=config, profile="default-scheduler")
    assert chosen.profile == "default-scheduler"
    by_object = explain(pod, nodes=THREE, profile=DEFAULT.profiles[0], registry=REGISTRY)
    assert by_object.profile == "default-scheduler"


BAD_INPUT_CASES = [
    pytest.param({"pod": make_pod("p").scheduler_name("mine").obj()},
                 r"pod default/p names schedulerName 'mine' but no profile named 'mine'", id="pod's profile"),
    pytest.param({"profile": "default-schedulr"}, r"did you mean 'default-scheduler'\?", id="profile name"),
    pytest.param({"config": 42}, "config must be a SchedulerConfiguration", id="config type"),
    pytest.param({"pod": 42}, r"explain: pod must be a Pod or a v1 Pod manifest", id="pod type"),
    pytest.param({"nodes": [42]}, r"explain: nodes\[0\] must be a Node or a v1 Node manifest",
                 id="node type"),
]


@pytest.mark.parametrize(("kwargs", "match"), BAD_INPUT_CASES)
def test_bad_inputs(kwargs: dict[str, Any], match: str) -> None:
    """Misuse raises SchedulerError (or ArgumentTypeError for a wrong type) saying what was wrong."""
    pod = kwargs.pop("pod", make_pod("p").obj())
    with pytest.raises((SchedulerError, ArgumentTypeError), match=match):
        explain(pod, **kwargs)


def test_unknown_node_lookup() -> None:
    """Explanation.node raises KeyError naming the node and a close match."""
    e = explain(make_pod("p").obj(), nodes=THREE)
    with pytest.raises(KeyError, match=r"no node named 'n10' in the explanation; did you mean 'n1'"):
        e.node("n10")
    assert e.node_scores("n4") is None


def test_explain_with_restores_the_snapshot_and_uses_the_state() -> None:
    """The framework's own snapshot is restored; the given CycleState receives the skip sets."""
    fw, snap = _framework(THREE)
    other = Snapshot.from_objects([_node("z")])
    fw.set_snapshot(other)
    state = CycleState()
    e = explain_with(fw, snap, make_pod("p").obj(), state)
    assert fw.snapshot_shared_lister() is other
    assert set(state.skip_filter_plugins) == set(e.filter_skipped)
    assert e.num_nodes == 3


# -- output -------------------------------------------------------------------------------------

OUTPUT_CASES = [pytest.param(*c.values[:3], id=c.id) for c in FIT_CASES + NOWHERE_CASES]


@pytest.mark.parametrize(("nodes", "pods", "pod"), OUTPUT_CASES)
def test_json_round_trip(nodes: list[Node], pods: list[Pod], pod: Pod) -> None:
    """to_json() parses back to to_dict(); codes are upstream names."""
    e = explain(pod, nodes=nodes, pods=pods)
    d = e.to_dict()
    assert json.loads(e.to_json()) == d
    assert json.loads(e.to_json(indent=None)) == d
    assert d["code"] == str(e.code)
    assert d["pod"] == {"namespace": pod.namespace, "name": pod.name, "uid": pod.uid}
    assert [n["node"] for n in d["nodes"]] == [n.node for n in e.nodes]


@pytest.mark.parametrize(("nodes", "pods", "pod"), OUTPUT_CASES)
def test_render(nodes: list[Node], pods: list[Pod], pod: Pod) -> None:
    """The text report names every node, every failing reason and the verdict."""
    e = explain(pod, nodes=nodes, pods=pods)
    text = e.render()
    assert str(e) == text
    assert pod.key in text
    for n in e.nodes:
        assert n.node in text
        assert n.verdict.message in text
    for plugin in e.filter_plugins:
        assert plugin in text
    if e.scheduled:
        assert f"scheduled to {e.selected_node}" in text
        assert "<- selected" in text
        assert "raw/normalized/weighted" in text
    else:
        assert e.message in text


# -- property: the record agrees with the framework ---------------------------------------------

_TAINTS = st.sampled_from([None, "a", "b"])


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[Pod], Pod]:
    n = draw(st.integers(1, 5))
    nodes = []
    for i in range(n):
        b = make_node(f"n{i}").capacity(cpu=draw(st.sampled_from(["1", "2", "4"])),
                                        memory=draw(st.sampled_from(["1Gi", "4Gi"])),
                                        pods=draw(st.sampled_from([1, 2, 110])))
        b = b.label("zone", draw(st.sampled_from(["z1", "z2"])))
        taint = draw(_TAINTS)
        if taint is not None:
            b = b.taint(taint, "v", draw(st.sampled_from(["NoSchedule", "PreferNoSchedule"])))
        if draw(st.booleans()) and draw(st.booleans()):
            b = b.unschedulable()
        nodes.append(b.obj())
    pods = []
    for j in range(draw(st.integers(0, 4))):
        pb = make_pod(f"e{j}").node(f"n{draw(st.integers(0, n - 1))}").req(
            cpu=draw(st.sampled_from(["100m", "1", "2"]))).label("app", draw(st.sampled_from(["x", "y"])))
        if draw(st.booleans()):
            pb = pb.host_port(8080)
        pods.append(pb.obj())
    pb = make_pod("p").req(cpu=draw(st.sampled_from(["0", "500m", "1", "3"])),
                           memory=draw(st.sampled_from(["0", "512Mi", "2Gi"])))
    for key in draw(st.sets(st.sampled_from(["a", "b"]))):
        pb = pb.toleration(key, "v", "NoSchedule")
    if draw(st.booleans()):
        pb = pb.node_selector({"zone": draw(st.sampled_from(["z1", "z2"]))})
    if draw(st.booleans()):
        pb = pb.host_port(8080)
    if draw(st.booleans()):
        pb = pb.node_affinity_name(f"n{draw(st.integers(0, n))}")
    if draw(st.booleans()):
        pb = pb.label("app", "x").pod_affinity_in("app", ["x"], "zone", anti=draw(st.booleans()))
    if draw(st.booleans()):
        pb = pb.label("app", "x").spread_constraint(1, "zone", "DoNotSchedule", selector({"app": "x"}))
    return nodes, pods, pb.obj()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_verdicts_match_the_framework(cluster: tuple[list[Node], list[Pod], Pod]) -> None:
    """For random small clusters: PreFilter status and skips, every node's verdict and stop point,
    and the scores equal what the framework returns."""
    nodes, pods, pod = cluster
    e = explain(pod, nodes=nodes, pods=pods)
    fw, snap = _framework(nodes, pods)
    state = CycleState()
    result, status, _ = fw.run_pre_filter_plugins(state, pod)
    assert e.pre_filter_status == PluginVerdict.of(status.plugin, status)
    assert set(e.filter_skipped) == set(state.skip_filter_plugins)
    if not status.is_success():
        assert e.code in (Code.UNSCHEDULABLE, Code.ERROR)
        return
    allowed = None if result is None else result.node_names
    assert e.pre_filter_result == (None if allowed is None else tuple(sorted(allowed)))
    feasible: list[NodeInfo] = []
    for record, ni in zip(e.nodes, snap.list()):
        assert record.node == ni.name
        if allowed is not None and ni.name not in allowed:
            assert not record.evaluated
            continue
        verdict = fw.run_filter_plugins(state, pod, ni)
        assert record.verdict == PluginVerdict.of(verdict.plugin, verdict)
        assert record.stopped_at == (verdict.plugin or None)
        assert record.feasible == verdict.is_success()
        if verdict.is_success():
            feasible.append(ni)
    assert e.feasible_nodes == tuple(ni.name for ni in feasible)
    if not feasible:
        assert e.code is Code.UNSCHEDULABLE
        assert e.message.startswith(f"0/{len(nodes)} nodes are available:")
    elif len(feasible) == 1:
        assert e.selected_node == feasible[0].name
    else:
        assert _explained_scores(e) == _framework_scores(nodes, pods, pod, [ni.name for ni in feasible])
        totals = {ns.node: ns.total for ns in e.scores}
        assert totals[e.selected_node or ""] == max(totals.values())


# -- bad plugin returns and batch scoring: explain reports what the scheduler does ---------------
#
# explain runs PreFilter, Filter, PreScore and Score through the framework's own loops (traces,
# run_filter_plugins_each, run_score_plugins_detailed), so a plugin returning the wrong type, a
# float score or scoring in batch is reported exactly as the Scheduler reports it.

class _WrongPreFilter:
    name = "WrongPreFilter"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return None, "fine"  # a str where a Status belongs

    def pre_filter_extensions(self) -> None:
        return None


class _WrongPreFilterResult:
    name = "WrongPreFilterResult"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return ["n1"], None  # a list where a PreFilterResult belongs

    def pre_filter_extensions(self) -> None:
        return None


class _WrongFilter:
    name = "WrongFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Any:
        return "no" if node_info.name == "n2" else None


class _WrongPreScore:
    name = "WrongPreScore"

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return 0


class _FloatScore:
    name = "FloatScore"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Any:
        return 50.0, None

    def score_extensions(self) -> None:
        return None


class _Doubler:
    """Score extensions with ``normalize_score_ints`` (the runtime calls it, never
    ``normalize_score``)."""

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        raise AssertionError("normalize_score_ints is used instead")

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int]:
        for i, v in enumerate(scores):
            scores[i] = 2 * v  # in place: the record keeps the raw scores all the same
        return scores


class _BatchScore:
    """A BatchScorePlugin whose ``score_nodes`` (what the runtime calls) ranks n3 first; its
    ``score`` is not called."""

    name = "BatchScore"

    def __init__(self, result: Any = None) -> None:
        self.result = result

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        raise AssertionError("score_nodes is used instead")

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        if self.result is not None:
            return self.result
        return [40 if ni.name == "n3" else 5 * i for i, ni in enumerate(nodes)]

    def score_extensions(self) -> _Doubler:
        return _Doubler()


def _with_plugin(plugin: Any, weight: int = 1) -> tuple[SchedulerConfiguration, Any]:
    """The default profile plus *plugin* (with *weight* at Score), and its registry."""
    from schedframe.config.configuration import PluginRef, Profile

    registry = in_tree_registry()
    registry.register(plugin.name, lambda args, handle: plugin)
    profile = Profile.from_plugins(PluginRef(plugin.name, weight=weight), registry=registry)
    return SchedulerConfiguration.from_profiles(profile, registry=registry), registry


def _scheduled(config: SchedulerConfiguration, registry: Any, nodes: Sequence[Node], pod: Pod
               ) -> tuple[str | None, str]:
    """Where a fresh Scheduler binds *pod*, or its failure message."""
    sched = Scheduler(config, registry=registry, seed=0)
    for n in nodes:
        sched.add_node(n)
    sched.add_pod(pod)
    sched.schedule_one()
    node = sched.node_of(pod)
    return node, "" if node is not None else sched.pending()[0].message


WRONG_TYPE_CASES = [
    pytest.param(_WrongPreFilter(), "WrongPreFilter",
                 'running PreFilter plugin "WrongPreFilter": returned str \'fine\', want a Status or None',
                 id="PreFilter status"),
    pytest.param(_WrongPreFilterResult(), "WrongPreFilterResult",
                 "running PreFilter plugin \"WrongPreFilterResult\": returned list ['n1'], want a "
                 "PreFilterResult or None", id="PreFilter result"),
    pytest.param(_WrongFilter(), "WrongFilter",
                 'running Filter plugin "WrongFilter": returned str \'no\', want a Status or None',
                 id="Filter status"),
    pytest.param(_WrongPreScore(), "WrongPreScore",
                 'running PreScore plugin "WrongPreScore": returned int 0, want a Status or None',
                 id="PreScore status"),
    pytest.param(_FloatScore(), "FloatScore",
                 'applying score defaultWeights on Score plugins: plugin "FloatScore" returns an invalid '
                 "score 50.0, it should in the range of [0, 100] after normalizing", id="float score"),
    pytest.param(_BatchScore(["x"]), "BatchScore",
                 'running Score plugins: plugin "BatchScore" failed with: returned 1 scores for 3 nodes',
                 id="score_nodes length"),
]


@pytest.mark.parametrize(("plugin", "name", "message"), WRONG_TYPE_CASES)
def test_wrong_return_types_are_the_schedulers_errors(plugin: Any, name: str, message: str) -> None:
    """A plugin returning the wrong type (or a float score, or a malformed batch) ends the
    attempt with the ERROR the Scheduler reports for the same pod, attributed to the plugin."""
    config, registry = _with_plugin(plugin)
    pod = make_pod("p").req(cpu="1").obj()
    e = explain(pod, nodes=THREE, config=config, registry=registry)
    assert (e.code, e.message, e.selected_node) == (Code.ERROR, message, None)
    assert _scheduled(config, registry, THREE, pod) == (None, message)
    steps = {v.plugin: v for v in (*e.pre_filter, *e.pre_score)}
    if name in steps:  # PreFilter / PreScore: the plugin's own row is that ERROR
        assert steps[name] == PluginVerdict(name, Code.ERROR, (message,))
    if name == "WrongFilter":  # every other node and plugin is still recorded
        n2 = e.node("n2")
        assert (n2.stopped_at, n2.verdict) == (name, PluginVerdict(name, Code.ERROR, (message,)))
        assert e.node("n1").feasible
        assert e.node("n3").feasible
        assert all(c.passed for c in n2.checks if c.plugin != name and c.code is not Code.SKIP)


def test_batch_scoring_plugin_as_the_scheduler_scores() -> None:
    """A BatchScorePlugin: the record holds what ``score_nodes`` and ``normalize_score_ints``
    returned (its ``score`` and ``normalize_score`` are never called), weighted as the framework
    weighs it, and the node selected is the Scheduler's."""
    plugin = _BatchScore()
    config, registry = _with_plugin(plugin, weight=5)
    nodes = [_node("n1"), _node("n2"), _node("n3")]
    pod = make_pod("p").req(cpu="1").obj()
    e = explain(pod, nodes=nodes, config=config, registry=registry)
    assert e.code is Code.SUCCESS
    rows = [ns.score("BatchScore") for ns in e.scores]
    assert rows == [PluginNodeScore("BatchScore", 0, 0, 5, 0), PluginNodeScore("BatchScore", 5, 10, 5, 50),
                    PluginNodeScore("BatchScore", 40, 80, 5, 400)]
    assert e.selected_node == "n3"
    assert _scheduled(config, registry, nodes, pod) == ("n3", "")
    fw = Framework(registry, config.profiles[0], snapshot=Snapshot.from_objects(nodes))
    state = CycleState()
    fw.run_pre_filter_plugins(state, pod)
    infos = list(fw.snapshot_shared_lister().node_infos().list())
    fw.run_pre_score_plugins(state, pod, infos)
    scores, status = fw.run_score_plugins(state, pod, infos)
    assert status.is_success()
    assert _explained_scores(e) == {s.name: {**{ps.name: ps.score for ps in s.scores}, "total": s.total_score}
                                    for s in scores}


# -- the framework methods explain is built on ------------------------------------------------

class _Outcomes:
    """A Filter plugin returning, per node, what *outcomes* says (an exception is raised)."""

    def __init__(self, name: str, outcomes: dict[str, Any]) -> None:
        self.name = name
        self.outcomes = outcomes

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Any:
        out = self.outcomes.get(node_info.name)
        if isinstance(out, Exception):
            raise out
        return out


def test_run_filter_plugins_each_first_failure_is_run_filter_plugins() -> None:
    """Every non-skipped plugin is listed, in order, with its converted status; the first
    non-success is exactly what run_filter_plugins returns on that node."""
    plugins = [
        _Outcomes("A", {"n1": ValueError("boom"), "n3": Status.unschedulable("a says no")}),
        _Outcomes("B", {"n1": 7, "n2": Status(Code.WAIT, ("later",))}),
        _Outcomes("C", {"n1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("never",)),
                        "n3": Status.unschedulable("c says no")}),
        _Outcomes("Skipped", {"n1": Status.unschedulable("not run")}),
    ]
    fw = make_framework(filter=plugins)
    snap = Snapshot.from_objects(THREE)
    fw.set_snapshot(snap)
    state = CycleState()
    state.skip_filter_plugins = frozenset({"Skipped"})
    pod = make_pod("p").obj()
    codes: dict[str, list[tuple[str, Code]]] = {}
    for ni in snap.list():
        each = fw.run_filter_plugins_each(state, pod, ni)
        codes[ni.name] = [(name, s.code) for name, s in each]
        first = next((s for _, s in each if not s.is_success()), Status.OK)
        assert first == fw.run_filter_plugins(state, pod, ni)
        for name, s in each:
            assert s.is_success() or s.plugin == name
    assert codes == {
        "n1": [("A", Code.ERROR), ("B", Code.ERROR), ("C", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)],
        "n2": [("A", Code.SUCCESS), ("B", Code.ERROR), ("C", Code.SUCCESS)],
        "n3": [("A", Code.UNSCHEDULABLE), ("B", Code.SUCCESS), ("C", Code.UNSCHEDULABLE)],
    }
    [(_, s)] = [x for x in fw.run_filter_plugins_each(state, pod, snap.get("n1"))  # type: ignore[arg-type]
                if x[0] == "B"]
    assert s.message == 'running Filter plugin "B": returned int 7, want a Status or None'
    with pytest.raises(ArgumentTypeError, match="run_filter_plugins_each: node_info"):
        fw.run_filter_plugins_each(state, pod, "n1")  # type: ignore[arg-type]


def test_traces_record_each_plugin_and_change_nothing() -> None:
    """trace= is called once per plugin run with its own outcome; the results and skip sets are
    those of a run without it."""
    pre_filters = [
        FakePreFilter(status=Status(Code.SKIP), name="Skips"),
        FakePreFilter(result=PreFilterResult(frozenset({"n1", "n2"})), name="Narrows"),
        FakePreFilter(status=Status.unschedulable("nope"), name="Rejects"),
        FakePreFilter(name="Passes"),
    ]
    pre_scores = [FakePreScore(Status(Code.SKIP), name="PSkips"), FakePreScore(name="PPasses"),
                  FakePreScore(raises=RuntimeError("x"), name="PRaises"), FakePreScore(name="PNotRun")]
    fw = make_framework(pre_filter=pre_filters, filter=[TrueFilter()], pre_score=pre_scores,
                        score=[FakeScore(name="S")])
    snap = Snapshot.from_objects(THREE)
    fw.set_snapshot(snap)
    pod = make_pod("p").obj()
    seen: list[tuple[str, Code, str, Any]] = []

    def record(name: str, status: Status | None, result: PreFilterResult | None) -> None:
        seen.append((name, Code.SUCCESS, "", result) if status is None else
                    (name, status.code, status.plugin, result))

    traced_state, plain_state = CycleState(), CycleState()
    traced = fw.run_pre_filter_plugins(traced_state, pod, trace=record)
    assert traced == fw.run_pre_filter_plugins(plain_state, pod)
    assert traced_state.skip_filter_plugins == plain_state.skip_filter_plugins == {"Skips"}
    narrowed = PreFilterResult(frozenset({"n1", "n2"}))
    assert seen == [("Skips", Code.SKIP, "", None), ("Narrows", Code.SUCCESS, "", narrowed),
                    ("Rejects", Code.UNSCHEDULABLE, "Rejects", None), ("Passes", Code.SUCCESS, "", None)]
    statuses: list[tuple[str, Status | None]] = []
    status = fw.run_pre_score_plugins(traced_state, pod, snap.list(),
                                      trace=lambda n, s: statuses.append((n, s)))
    assert status == fw.run_pre_score_plugins(plain_state, pod, snap.list())
    assert status.message == 'running PreScore plugin "PRaises": RuntimeError: x'
    assert traced_state.skip_score_plugins == plain_state.skip_score_plugins == {"PSkips"}
    assert [n for n, _ in statuses] == ["PSkips", "PPasses", "PRaises"]
    assert statuses[1][1] is None
    assert statuses[2][1] == status


def test_run_score_plugins_detailed_matches_run_score_plugins() -> None:
    """Raw scores before NormalizeScore, normalized scores and weights whose products are
    run_score_plugins' weighted scores; failures are run_score_plugins' ERROR."""
    def twice(scores: list[NodeScore]) -> None:
        scores[:] = [NodeScore(s.name, 2 * s.score) for s in scores]

    double = FakeScore({"n1": 10, "n2": 20, "n3": 30}, name="Double", normalize=twice)
    fw = make_framework(filter=[TrueFilter()], score=[(double, 3), (FakeScore({"n2": 7}, name="Plain"), 1)])
    snap = Snapshot.from_objects(THREE)
    fw.set_snapshot(snap)
    pod = make_pod("p").obj()
    nodes = snap.list()
    names, raw, normalized, weights, status = fw.run_score_plugins_detailed(CycleState(), pod, nodes)
    assert status.is_success()
    assert (names, raw, normalized, weights) == (["Double", "Plain"], [[10, 20, 30], [0, 7, 0]],
                                                 [[20, 40, 60], [0, 7, 0]], [3, 1])
    scores, _ = fw.run_score_plugins(CycleState(), pod, nodes)
    assert [[ps.score for ps in s.scores] for s in scores] == [[60, 0], [120, 7], [180, 0]]
    bad = make_framework(filter=[TrueFilter()], score=[FakeScore({"n2": 101}, name="S")])
    bad.set_snapshot(snap)
    detailed = bad.run_score_plugins_detailed(CycleState(), pod, nodes)
    assert detailed[:4] == ([], [], [], [])
    assert detailed[4] == bad.run_score_plugins(CycleState(), pod, nodes)[1]
