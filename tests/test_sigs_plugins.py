"""NodeResourcesAllocatable, QOSSort, PodState and PreemptionToleration: tables ported from
scheduler-plugins v0.34.7 (allocatable_test.go, queue_sort_test.go, pod_state_test.go,
preemption_toleration_policy_test.go / preemption_toleration_test.go)."""

from __future__ import annotations

import pytest

from schedframe import Scheduler, SchedulerConfiguration
from schedframe.api import PriorityClass
from schedframe.api.objects import Container
from schedframe.cache.nodeinfo import PodInfo
from schedframe.framework.interfaces import QueuedPodInfo
from schedframe.plugins.sigs import preemption_toleration as pt
from schedframe.plugins.sigs.qos import pod_qos_class
from schedframe.testing import PluginHarness, make_node, make_pod

DEFAULT = [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}]
CPU_HEAVY = [{"name": "cpu", "weight": 1 << 30}, {"name": "memory", "weight": 1}]


def node(name: str, milli_cpu: int, memory: int):  # type: ignore[no-untyped-def]
    return make_node(name).allocatable(cpu=f"{milli_cpu}m", memory=str(memory)).obj()


@pytest.mark.parametrize(
    ("nodes", "resources", "mode", "want"),
    [
        pytest.param([node("m1", 4000, 10000), node("m2", 4000, 10000)], DEFAULT, "Least", [0, 0],
                     id="nothing scheduled, nothing requested"),
        pytest.param([node("m1", 4000, 10000), node("m2", 6000, 10000)], DEFAULT, "Least", [100, 0],
                     id="differently sized machines, least mode"),
        pytest.param([node("m1", 4000, 10000), node("m2", 6000, 10000)], DEFAULT, "Most", [0, 100],
                     id="differently sized machines, most mode"),
        pytest.param([node("m1", 1000, 2000), node("m2", 1005, 1000)], CPU_HEAVY, "Least", [100, 0],
                     id="cpu weighted, least mode"),
        pytest.param([node("m1", 1000, 2000), node("m2", 1005, 1000)], CPU_HEAVY, "Most", [0, 100],
                     id="cpu weighted, most mode"),
        pytest.param([node("m1", 1000, 2000 << 20), node("m2", 1005, 1000)], DEFAULT, "Least", [0, 100],
                     id="memory weighted, least mode"),
    ],
)
def test_node_resources_allocatable(nodes, resources, mode, want) -> None:  # type: ignore[no-untyped-def]
    """Scores are the weighted allocatable, min-max normalized."""
    h = PluginHarness("NodeResourcesAllocatable", {"mode": mode, "resources": resources}, nodes=nodes)
    scores = h.score(make_pod("p").req(cpu="1", memory="1").obj())
    assert [scores[n.name] for n in nodes] == want


def q(pod, ts: float = 0.0) -> QueuedPodInfo:  # type: ignore[no-untyped-def]
    return QueuedPodInfo(PodInfo.of(pod), timestamp=ts)


GUARANTEED = make_pod("g").obj().evolve(containers=(
    Container(name="c", requests={"cpu": "1", "memory": "1Gi"}, limits={"cpu": "1", "memory": "1Gi"}),))
BURSTABLE = make_pod("b").req(cpu="1").obj()
BEST_EFFORT = make_pod("e").obj()


def test_qos_classes() -> None:
    """Kubernetes' QoS classes."""
    assert [pod_qos_class(p) for p in (GUARANTEED, BURSTABLE, BEST_EFFORT)] == [
        "Guaranteed", "Burstable", "BestEffort"]


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        pytest.param(q(BEST_EFFORT.evolve(priority=100)), q(GUARANTEED.evolve(priority=50)), True,
                     id="p1.priority greater than p2.priority"),
        pytest.param(q(GUARANTEED.evolve(priority=50)), q(BEST_EFFORT.evolve(priority=100)), False,
                     id="p1.priority less than p2.priority"),
        pytest.param(q(GUARANTEED), q(BURSTABLE), True, id="p1 Guaranteed, p2 Burstable"),
        pytest.param(q(BURSTABLE), q(BEST_EFFORT), True, id="p1 Burstable, p2 BestEffort"),
        pytest.param(q(BEST_EFFORT), q(GUARANTEED), False, id="p1 BestEffort, p2 Guaranteed"),
        pytest.param(q(BURSTABLE, 1.0), q(BURSTABLE, 2.0), True, id="same class, earlier first"),
    ],
)
def test_qos_sort(a: QueuedPodInfo, b: QueuedPodInfo, want: bool) -> None:
    """QOSSort: priority, then QoS class, then queueing time."""
    h = PluginHarness("QOSSort")
    assert h.framework.queue_sort_less()(a, b) is want


def test_pod_state_scores_terminating_and_nominated() -> None:
    """Terminating pods raise a node's score, nominated pods lower it."""
    nodes = [make_node(n).obj() for n in ("n1", "n2", "n3")]
    pods = [make_pod("t").node("n1").terminating().obj(),
            make_pod("nom").nominated_node_name("n3").obj()]
    h = PluginHarness("PodState", nodes=nodes, pods=pods)
    assert h.score(make_pod("p").obj()) == {"n1": 100, "n2": 50, "n3": 0}


def pc(value: int, **annotations: str) -> PriorityClass:
    return PriorityClass("pc", value, annotations=annotations)


MIN, SECS = pt.ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY, pt.ANNOTATION_TOLERATION_SECONDS


@pytest.mark.parametrize(
    ("klass", "want"),
    [
        pytest.param(pc(1), pt.PreemptionTolerationPolicy(2, 0), id="defaults"),
        pytest.param(pc(1, **{MIN: "100", SECS: "10"}), pt.PreemptionTolerationPolicy(100, 10),
                     id="both values"),
        pytest.param(pc(1, **{MIN: "100", SECS: "-1"}), pt.PreemptionTolerationPolicy(100, -1),
                     id="negative toleration: for ever"),
    ],
)
def test_policy(klass: PriorityClass, want: pt.PreemptionTolerationPolicy) -> None:
    """Annotations parse into the policy, with upstream's defaults."""
    assert pt.parse_preemption_toleration_policy(klass) == want


@pytest.mark.parametrize("key", [MIN, SECS])
def test_policy_parse_error(key: str) -> None:
    """An unparsable annotation gives Go's strconv message."""
    with pytest.raises(ValueError, match=r'strconv\.ParseInt: parsing "a": invalid syntax'):
        pt.parse_preemption_toleration_policy(pc(1, **{key: "a"}))


def toleration_config() -> SchedulerConfiguration:
    return SchedulerConfiguration.from_dict({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"postFilter": {"enabled": [{"name": "PreemptionToleration"}],
                                                 "disabled": [{"name": "*"}]}}}]})


@pytest.mark.parametrize(
    ("annotations", "scheduled_ago", "preempted"),
    [
        pytest.param({}, 0.0, True, id="no policy: preempted"),
        pytest.param({MIN: "10000", SECS: "-1"}, 0.0, False, id="tolerates for ever"),
        pytest.param({MIN: "10000", SECS: "30"}, 10.0, False, id="within toleration seconds"),
        pytest.param({MIN: "10000", SECS: "30"}, 60.0, True, id="toleration expired"),
        pytest.param({MIN: "500", SECS: "-1"}, 0.0, True, id="preemptor above minimum preemptable"),
    ],
)
def test_preemption_toleration(annotations: dict[str, str], scheduled_ago: float, preempted: bool) -> None:
    """A victim whose PriorityClass tolerates the preemptor is spared."""
    from schedframe.api.objects import PodCondition
    from schedframe.testing import FakeClock

    clock = FakeClock(1000.0)
    s = Scheduler(toleration_config(), clock=clock)
    s.add_object(PriorityClass("low", 100, annotations=annotations))
    s.add_node(make_node("n").capacity(cpu="1", pods=10).obj())
    victim = make_pod("victim").req(cpu="1").priority(100).priority_class("low").node("n").obj().evolve(
        conditions=(PodCondition("PodScheduled", "True", last_transition_time=1000.0 - scheduled_ago),))
    s.add_pod(victim)
    s.add_pod(make_pod("high").req(cpu="1").priority(1000).obj())
    s.run_until_idle(max_cycles=10)
    assert (s.node_of("default/victim") is None) is preempted
    assert (s.node_of("default/high") == "n") is preempted
