"""schedframe.plan: DaemonSet pods on new nodes, and the thin strategies (priority, random,
min-cost against least-waste)."""

from __future__ import annotations

from typing import Any

from schedframe.api import DaemonSet
from schedframe.plan import NodeTemplate, plan
from schedframe.testing import make_node, make_pod


def _cluster(pods: int, cpu: str = "1") -> list[Any]:
    seed = make_node().name("seed").capacity(cpu="100m", memory="1Gi", pods="110").obj()
    return [seed, *(make_pod().name(f"p{i}").req(cpu=cpu, memory="256Mi").obj() for i in range(pods))]


def _template(name: str, cpu: str = "4", *, labels: dict[str, str] | None = None, taint: str = "",
              price: float | None = None, priority: int = 0) -> NodeTemplate:
    b = make_node().name(name).capacity(cpu=cpu, memory="16Gi", pods="110")
    for k, v in (labels or {}).items():
        b = b.label(k, v)
    if taint:
        b = b.taint(taint, "true", "NoSchedule")
    return NodeTemplate(name, b.obj(), price=price, priority=priority)


def _agent(selector: dict[str, str] | None = None) -> DaemonSet:
    tb = make_pod().name("agent").req(cpu="1", memory="256Mi")
    if selector:
        tb = tb.node_selector(selector)
    return DaemonSet("agent", template=tb.obj())


def test_daemonset_pods_take_room_on_new_nodes() -> None:
    """A 1-CPU DaemonSet pod on every new 4-CPU node leaves room for 3 one-CPU pods, not 4:
    8 pods need 3 nodes, and the check simulates the DaemonSet pods on them."""
    without = plan(_cluster(8), [_template("a")])
    assert without.scale_up is not None
    assert dict(without.scale_up.nodes_to_add) == {"a": 2}
    got = plan([*_cluster(8), _agent()], [_template("a")])
    up = got.scale_up
    assert up is not None
    assert got.verified, up.problems
    assert dict(up.nodes_to_add) == {"a": 3}
    assert len(up.placements) == 8
    # the placements leave room for the agent on every new node: at most 3 pods per node
    per_node: dict[str, int] = {}
    for node in up.placements.values():
        per_node[node] = per_node.get(node, 0) + 1
    assert max(per_node.values()) == 3


def test_daemonset_selector_and_taints_decide_which_templates_run_it() -> None:
    """The DaemonSet runs only where its node selector matches and its pod tolerates the
    taints: a template it does not select (or whose taint it does not tolerate) keeps its room."""
    gpu = {"pool": "gpu"}
    tolerant = make_pod().name("x").req(cpu="1", memory="256Mi").toleration("dedicated", "true",
                                                                          "NoSchedule")
    cluster = [*_cluster(8)[:1], *(tolerant.name(f"p{i}").obj() for i in range(8))]
    selected = plan([*cluster, _agent(gpu)], [_template("a", labels=gpu)])
    assert selected.scale_up is not None
    assert dict(selected.scale_up.nodes_to_add) == {"a": 3}
    other = plan([*cluster, _agent(gpu)], [_template("b", labels={"pool": "cpu"})])
    assert other.scale_up is not None
    assert dict(other.scale_up.nodes_to_add) == {"b": 2}
    tainted = plan([*cluster, _agent()], [_template("c", taint="dedicated")])
    assert tainted.scale_up is not None
    assert tainted.verified, tainted.scale_up.problems
    assert dict(tainted.scale_up.nodes_to_add) == {"c": 2}


def test_daemonset_larger_than_a_template_makes_it_unhelpful() -> None:
    """A template whose DaemonSet pods leave no room for a pod is not chosen; its reason is the
    scheduler's on a fresh node with the DaemonSet pod."""
    big = DaemonSet("agent", template=make_pod().name("agent").req(cpu="3500m").obj())
    got = plan([*_cluster(1), big], [_template("small"), _template("large", cpu="8")])
    up = got.scale_up
    assert up is not None
    assert got.verified, up.problems
    assert dict(up.nodes_to_add) == {"large": 1}
    alone = plan([*_cluster(1), big], [_template("small")])
    assert alone.scale_up is not None
    assert alone.scale_up.node_count == 0
    assert "Insufficient cpu" in alone.scale_up.unhelpable["default/p0"]["small"]


def test_priority_strategy_takes_the_highest_priority_template() -> None:
    tmpl = [_template("cheap", price=1.0, priority=1), _template("pricey", price=5.0, priority=10)]
    got = plan(_cluster(4), tmpl, strategy="priority")
    assert got.scale_up is not None
    assert got.verified
    assert dict(got.scale_up.nodes_to_add) == {"pricey": 1}
    low = [_template("cheap", price=1.0, priority=10), _template("pricey", price=5.0, priority=1)]
    again = plan(_cluster(4), low, strategy="priority")
    assert again.scale_up is not None
    assert dict(again.scale_up.nodes_to_add) == {"cheap": 1}


def test_random_strategy_is_reproducible_per_seed() -> None:
    tmpl = [_template(f"t{i}") for i in range(5)]
    picks = set()
    for seed in range(8):
        a = plan(_cluster(4), tmpl, strategy="random", seed=seed)
        b = plan(_cluster(4), tmpl, strategy="random", seed=seed)
        assert a.scale_up is not None
        assert b.scale_up is not None
        assert a.verified
        assert dict(a.scale_up.nodes_to_add) == dict(b.scale_up.nodes_to_add)
        picks.add(tuple(a.scale_up.nodes_to_add))
    assert len(picks) > 1  # the seed chooses among the templates


def test_min_cost_is_never_dearer_than_least_waste() -> None:
    """10 one-CPU pods: least-waste picks the 10-CPU template (no waste, price 10); min-cost
    picks three 4-CPU nodes (price 3 each: 9) -- cheaper, though it wastes 2 CPUs."""
    tmpl = [_template("small", cpu="4", price=3.0), _template("big", cpu="10", price=10.0)]
    lw = plan(_cluster(10), tmpl, strategy="least-waste")
    mc = plan(_cluster(10), tmpl, strategy="min-cost")
    assert lw.scale_up is not None
    assert mc.scale_up is not None
    assert lw.verified
    assert mc.verified
    assert lw.scale_up.cost is not None
    assert mc.scale_up.cost is not None
    assert dict(lw.scale_up.nodes_to_add) != dict(mc.scale_up.nodes_to_add)
    assert mc.scale_up.cost < lw.scale_up.cost


def test_pods_without_room_skip_the_first_run_but_not_the_check() -> None:
    """A pod whose requests exceed every node's free room is not tried on the cluster as it is
    (a necessary condition of NodeResourcesFit) unless it could preempt; the estimates still
    count on the room the others have, and the check simulates every pod."""
    from schedframe.config.configuration import SchedulerConfiguration
    from schedframe.plan._context import Context
    from schedframe.plan._plan import no_room_now
    from schedframe.plugins import in_tree_registry

    node = make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="110").obj()
    running = make_pod().name("r").req(cpu="1", memory="1Gi").node("n1").obj()
    small = [make_pod().name(f"s{i}").req(cpu="500m", memory="256Mi").obj() for i in range(2)]
    big = make_pod().name("big").req(cpu="1500m", memory="256Mi").obj()
    urgent = make_pod().name("urgent").req(cpu="1500m", memory="256Mi").priority(100).obj()
    reg = in_tree_registry()
    ctx = Context([node], [running], [], SchedulerConfiguration.default(registry=reg), reg)
    assert no_room_now(ctx, [*small, big, urgent]) == {"default/big"}
    got = plan([node, running, *small, big], [_template("a")])
    up = got.scale_up
    assert up is not None
    assert got.verified, up.problems
    # the small pods count on the room of n1: one new node, for the big pod
    assert dict(up.nodes_to_add) == {"a": 1}
    assert set(up.placements) == {"default/s0", "default/s1", "default/big"}
    assert up.placements["default/big"] == "a-1"


def test_daemonset_pods_get_their_priority_class() -> None:
    """A DaemonSet whose pods name a PriorityClass of the cluster: the pods of new nodes are
    admitted with it (no warning about a missing PriorityClass) and still take room."""
    import warnings

    from schedframe.api import PriorityClass

    tmpl = make_pod().name("agent").req(cpu="1", memory="256Mi").priority_class("node-critical").obj()
    objs = [*_cluster(8), PriorityClass("node-critical", 2_000_000_000), DaemonSet("agent", template=tmpl)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = plan(objs, [_template("a")])
    assert got.scale_up is not None
    assert got.verified, got.scale_up.problems
    assert dict(got.scale_up.nodes_to_add) == {"a": 3}
