"""schedframe.plan, issue #43's traps: finished pods, DaemonSets with spread, scale-down after
scale-up, overbuying, the lower bound and the exit codes."""

from __future__ import annotations

import io
from typing import Any

import pytest

import schedframe.plan
from schedframe.api import DaemonSet
from schedframe.api.objects import LabelSelector, OwnerReference
from schedframe.cli import main
from schedframe.cli.plan import EXIT_NOT_VERIFIED
from schedframe.plan import NodeTemplate, PlanResult, ScaleUp, plan
from schedframe.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
WEB = LabelSelector(match_labels={"app": "web"})


def _owned(b: Any, kind: str = "ReplicaSet", name: str = "rs") -> Any:
    pod = b.obj()
    ref = OwnerReference(kind, name, f"uid-{name}", "apps/v1", controller=True)
    return pod.evolve(owner_references=(ref,))


def _node(name: str, zone: str = "zone-a", cpu: str = "4") -> Any:
    return make_node().name(name).capacity(cpu=cpu, memory="16Gi", pods="110").label(ZONE, zone).obj()


def _template(name: str, zone: str = "zone-a", cpu: str = "4", price: float = 1.0) -> NodeTemplate:
    return NodeTemplate(name, _node("t", zone, cpu), price=price)


def test_finished_pods_hold_no_room_and_are_listed() -> None:
    """A Succeeded and a Failed pod on a node neither overcommit it nor keep it utilised: the
    pending pod takes their room (no node bought), the plan is verified, and the scale-down
    sees the node's real use."""
    done = make_pod().name("job-0").req(cpu="3", memory="8Gi").node("n0").obj().evolve(phase="Succeeded")
    failed = make_pod().name("job-1").req(cpu="3", memory="4Gi").node("n1").obj().evolve(phase="Failed")
    small = _owned(make_pod().name("small").req(cpu="100m", memory="128Mi").node("n1"))
    pending = _owned(make_pod().name("web").req(cpu="3", memory="2Gi"))
    r = plan([_node("n0"), _node("n1"), done, failed, small, pending], [_template("t")], scale_down=True)
    assert r.scale_up is not None
    assert r.scale_down is not None
    assert r.verified, (r.scale_up.problems, r.scale_down.problems)
    assert r.scale_up.node_count == 0
    assert r.scale_up.placements == {"default/web": "n0"}
    assert r.finished == ("default/job-0", "default/job-1")
    assert r.scale_down.utilisation["n1"] == pytest.approx(0.1 / 4)
    assert "n1" in r.scale_down.removable
    assert "default/job-1" not in r.scale_down.moves
    assert r.to_dict()["finished"] == ["default/job-0", "default/job-1"]


def test_daemonset_with_zone_spread_plans_without_a_duplicate_pod() -> None:
    """A DaemonSet plus pending pods with a zone spread that need new nodes in several rounds:
    each new node's DaemonSet pod has its own name (no 'already exists' error) and the plan is
    verified with every pod placed."""
    agent = DaemonSet("node-exporter", namespace="monitoring",
                      template=make_pod().name("ne").req(cpu="100m", memory="128Mi").obj())
    nodes = [_node(f"n-{z}", f"zone-{z}", cpu="2") for z in "abc"]
    pending = [_owned(make_pod().name(f"web-{i}").req(cpu="1", memory="1Gi").label("app", "web")
                      .spread_constraint(1, ZONE, "DoNotSchedule", WEB)) for i in range(15)]
    r = plan([*nodes, agent, *pending], [_template(f"t-{z}", f"zone-{z}") for z in "abc"])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert not up.unhelpable
    assert len(up.placements) == 15
    assert up.node_count >= 3


def test_scale_down_never_removes_the_node_a_pending_pod_was_placed_on() -> None:
    """Pending pods are placed before nodes are judged: the empty node the pending pod goes to
    is then utilised, so it is kept; the other node's pod moves in beside it."""
    busy = _owned(make_pod().name("busy").req(cpu="1", memory="1Gi").node("n1"))
    pending = _owned(make_pod().name("web").req(cpu="2500m", memory="1Gi"))
    r = plan([_node("n0"), _node("n1"), busy, pending], [_template("t")], scale_down=True)
    assert r.scale_up is not None
    assert r.scale_down is not None
    assert r.verified, (r.scale_up.problems, r.scale_down.problems)
    target = r.scale_up.placements["default/web"]
    assert target not in r.scale_down.removable
    assert r.scale_down.unremovable[target][0] == "NotUnderutilized"
    for node in r.scale_down.removable:  # a removed node's pods all found a place
        assert all(n != node for n in r.scale_down.moves.values())


def test_scale_down_only_places_pending_pods_first() -> None:
    """Without a scale-up the pending pods are still placed on the cluster as it is before the
    scale-down: the node they take is not removed."""
    pending = _owned(make_pod().name("web").req(cpu="3", memory="1Gi"))
    r = plan([_node("n0"), _node("n1"), pending], scale_up=False, scale_down=True)
    assert r.scale_down is not None
    assert r.verified, r.scale_down.problems
    assert len(r.scale_down.removable) == 1
    assert r.pending == ()


def test_nodes_the_plan_adds_are_never_removed() -> None:
    """A new node holding a pending pod is not a scale-down candidate (Cluster Autoscaler's
    upcoming nodes)."""
    pending = _owned(make_pod().name("big").req(cpu="3", memory="1Gi"))
    r = plan([_node("n0", cpu="1"), pending], [_template("t")], scale_down=True)
    assert r.scale_up is not None
    assert r.scale_down is not None
    assert r.verified
    assert r.scale_up.new_nodes == ("t-1",)
    assert "t-1" not in r.scale_down.removable
    assert r.scale_down.unremovable["t-1"][0] == "NotAutoscaled"


def test_pods_that_fit_existing_nodes_buy_no_nodes() -> None:
    """Two empty 4-CPU nodes hold 8 of the 10.5 CPUs asked: one new node suffices (it was two:
    the simulation let pods that fit the existing nodes take the new nodes' room)."""
    nodes = [_node("n0", "zone-a"), _node("n1", "zone-b")]
    spec = [(1500, True), (1500, False), (3000, True), (1000, False), (3000, True), (500, False)]
    pending = []
    for i, (cpu, spread) in enumerate(spec):
        b = make_pod().name(f"p{i}").req(cpu=f"{cpu}m", memory="1Gi").label("app", "web")
        if spread:
            b = b.spread_constraint(1, ZONE, "DoNotSchedule", WEB)
        pending.append(b.obj())
    r = plan([*nodes, *pending], [_template("ta", "zone-a"), _template("tb", "zone-b")])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert not up.unhelpable
    assert up.node_count == 1
    assert up.lower_bound == 1
    assert up.above_bound == 0


def test_lower_bound_is_reported_beside_the_cost() -> None:
    """Nine 1-CPU pods on 4-CPU templates whose DaemonSet pod takes 1 CPU: 3 fit a node, so at
    least 3 nodes; the plan says so in its result, its JSON and its verdict line."""
    agent = DaemonSet("agent", template=make_pod().name("a").req(cpu="1", memory="128Mi").obj())
    pending = [_owned(make_pod().name(f"p{i}").req(cpu="1", memory="1Gi")) for i in range(9)]
    cluster = [_node("seed", cpu="100m"), agent, *pending]
    r = plan(cluster, [_template("t", price=0.5)])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert (up.node_count, up.lower_bound, up.above_bound) == (3, 3, 0)
    assert up.cost == pytest.approx(1.5)
    assert up.cost_lower_bound == pytest.approx(1.5)
    d = up.to_dict()
    assert (d["node_count"], d["lower_bound"], d["above_bound"]) == (3, 3, 0)


def test_cli_verdict_line_names_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """``schedframe plan`` ends ``verified: N node(s), lower bound B (+N-B)``."""
    up = ScaleUp("least-waste", {"t": 10}, tuple(f"t-{i}" for i in range(1, 11)), {}, {}, 10.0, 1, True,
                 lower_bound=9, cost_lower_bound=9.0)
    monkeypatch.setattr(schedframe.plan, "plan", lambda *a, **k: PlanResult(up, None, (), ()))
    buf = io.StringIO()
    assert main(["plan"], stdout=buf) == 0
    assert buf.getvalue().rstrip().splitlines()[-1] == (
        "verified: 10 node(s), lower bound 9 (+1), cost 10 (lower bound 9)")


def test_not_verified_exits_3_distinct_from_other_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan that fails its check exits 3, not 1 (which a broken pipe or pending pods meant):
    2 is an input error, 130 an interrupt, 141 a broken pipe."""
    up = ScaleUp("least-waste", {}, (), {}, {}, 0.0, 1, False, ("node n0 overcommitted: cpu",))
    monkeypatch.setattr(schedframe.plan, "plan", lambda *a, **k: PlanResult(up, None, (), ()))
    buf = io.StringIO()
    assert main(["plan"], stdout=buf) == EXIT_NOT_VERIFIED == 3
    assert "NOT verified" in buf.getvalue()
    assert EXIT_NOT_VERIFIED not in (0, 1, 2, 130, 141)


def test_scale_down_of_every_empty_node_does_not_crash() -> None:
    """A cluster of empty nodes and nothing pending: every node is removable, and the check
    has no pod to move (it used to simulate a cluster without nodes and fail)."""
    r = plan([_node("n0"), _node("n1")], scale_up=False, scale_down=True)
    assert r.scale_down is not None
    assert r.verified, r.scale_down.problems
    assert set(r.scale_down.removable) == {"n0", "n1"}


def test_lower_bound_ignores_room_no_pod_may_use() -> None:
    """Free room on a node whose taint none of the pods tolerates lends the bound nothing: two
    3-CPU pods beside an empty tainted node need two new nodes, and the bound says 2."""
    tainted = make_node().name("db").capacity(cpu="8", memory="16Gi", pods="110").taint(
        "dedicated", "db", "NoSchedule").obj()
    pending = [_owned(make_pod().name(f"p{i}").req(cpu="3", memory="1Gi")) for i in range(2)]
    r = plan([tainted, *pending], [_template("t")])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert (up.node_count, up.lower_bound) == (2, 2)


def test_preempted_running_pods_are_reported() -> None:
    """A high-priority pending pod placed by preempting a running one: the plan names the
    victim (it no longer holds room in the plan) and stays verified."""
    low = _owned(make_pod().name("low").req(cpu="3", memory="1Gi").node("n0").priority(0))
    high = _owned(make_pod().name("high").req(cpu="3", memory="1Gi").priority(1000))
    r = plan([_node("n0"), low, high], [_template("t")])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert up.placements == {"default/high": "n0"}
    assert up.preempted == ("default/low",)
    assert up.to_dict()["preempted"] == ["default/low"]


def test_required_pod_affinity_elsewhere_is_unhelpable_not_a_failed_check() -> None:
    """A pod that must share a zone with a web pod, whose zone is full, cannot be helped by a
    template in another zone: it is reported with the scheduler's reason and the plan is
    verified (the spread-only relaxation of the template check does not apply to it)."""
    web = _owned(make_pod().name("web").req(cpu="2", memory="1Gi").label("app", "web").node("n0"))
    follower = _owned(make_pod().name("f").req(cpu="1", memory="1Gi").label("app", "web")
                      .pod_affinity(ZONE, WEB))
    r = plan([_node("n0", "zone-a", cpu="2"), web, follower], [_template("tb", "zone-b")])
    up = r.scale_up
    assert up is not None
    assert r.verified, up.problems
    assert up.node_count == 0
    assert list(up.unhelpable) == ["default/f"]


def test_scale_down_keeps_back_a_node_the_all_at_once_removal_needs() -> None:
    """One at a time, n2 and n4 both drain (n2's pod to n0, then n4's to n1). Removed together,
    the scheduler puts the larger moved pod on n1 (the emptier after it lands) and the smaller
    one, 4Gi, finds no node with the memory left: the plan keeps n2 back (the most free room of
    the two), says why, removes n4 alone and is verified."""
    def node(name: str, cpu: str, mem: str) -> Any:
        return make_node().name(name).capacity(cpu=cpu, memory=mem, pods="110").obj()

    def pod(name: str, on: str, cpu: str, mem: str) -> Any:
        return _owned(make_pod().name(name).req(cpu=cpu, memory=mem).node(on))

    nodes = [node("n0", "8", "8Gi"), node("n1", "10", "16Gi"), node("n2", "8", "32Gi"),
             node("n3", "4", "32Gi"), node("n4", "4", "32Gi")]
    pods = [pod("a", "n0", "3", "2Gi"), pod("b", "n0", "2", "4Gi"), pod("c", "n1", "4", "8Gi"),
            pod("d", "n1", "4", "1Gi"), pod("e", "n2", "2", "2Gi"), pod("f", "n3", "2", "4Gi"),
            pod("g", "n3", "2", "8Gi"), pod("h", "n4", "1", "4Gi")]
    down = plan([*nodes, *pods], scale_up=False, scale_down=True).scale_down
    assert down is not None
    assert down.removable == ("n4",)
    reason, detail = down.unremovable["n2"]
    assert reason == "NoPlaceToMovePods"
    assert "2 removable nodes gone at once" in detail
    assert "1 moved pod(s)" in detail
    assert down.verified
    assert not down.problems
    assert down.moves == {"default/h": "n2"}


@pytest.mark.parametrize("recheck", [False, True])
def test_scale_down_simulates_the_removal_again_only_on_recheck(monkeypatch: pytest.MonkeyPatch,
                                                                recheck: bool) -> None:
    import schedframe.plan._plan as plan_module

    calls: list[int] = []
    real = plan_module.run_cluster

    def counted(*args: Any) -> Any:
        calls.append(len(args[3]))
        return real(*args)

    monkeypatch.setattr(plan_module, "run_cluster", counted)
    nodes = [_node("a"), _node("b")]
    pods = [_owned(make_pod().name("p").req(cpu="500m").node("a")),
            _owned(make_pod().name("q").req(cpu="3").node("b"))]
    down = plan([*nodes, *pods], scale_up=False, scale_down=True, recheck=recheck).scale_down
    assert down is not None
    assert down.verified
    assert down.removable == ("a",)
    assert down.moves == {"default/p": "b"}
    # the removal simulated (its one moved pod pending), once, or twice with recheck
    assert calls == ([1, 1] if recheck else [1])


DUMP_WITH_DAEMONSET = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: w1}, status: {allocatable: {cpu: "4", pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: w2}, status: {allocatable: {cpu: "4", pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: w3}, status: {allocatable: {cpu: "4", pods: "110"}}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: a, resources: {requests: {cpu: 100m}}}]}
""".rstrip() + "".join(f"""
- apiVersion: v1
  kind: Pod
  metadata:
    name: {name}
    namespace: default
    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}}]
  spec: {{nodeName: {node}, containers: [{{name: c, resources: {{requests: {{cpu: {cpu}}}}}}}]}}"""
    for name, node, cpu in (("a", "w1", '"3"'), ("b", "w2", '"3"'), ("c", "w3", "500m"))) + "\n"


def test_scale_down_lets_the_daemonset_pod_of_a_removed_node_go_with_it(tmp_path: Any) -> None:
    """A dump with a DaemonSet but not its pods: the cluster's reader makes them pending, one
    per node, and the scale-up places each on its node; the node the scale-down removes takes
    its DaemonSet pod along (not "a pending pod placed on a removed node finds no other"), and
    the plan is verified."""
    import json

    (tmp_path / "dump.yaml").write_text(DUMP_WITH_DAEMONSET, encoding="utf-8")
    (tmp_path / "t.yaml").write_text(
        "kind: NodeTemplates\ntemplates:\n- name: t\n  node: {status: {allocatable: {cpu: '4'}}}\n",
        encoding="utf-8")
    buf = io.StringIO()
    code = main(["plan", "--cluster", str(tmp_path / "dump.yaml"), "--templates", str(tmp_path / "t.yaml"),
                 "--scale-down", "--json"], stdout=buf)
    d = json.loads(buf.getvalue())
    placed = d["scale_up"]["placements"]
    assert sorted(n for k, n in placed.items() if k.startswith("kube-system/agent-")) == ["w1", "w2", "w3"]
    down = d["scale_down"]
    assert down["removable"] == ["w3"]
    assert down["moves"]["default/c"] in ("w1", "w2")
    assert down["problems"] == []
    assert code == 0
