"""More tables ported from scheduler-plugins v0.34.7 (our code asserting their inputs and outputs):
CapacityScheduling's ``TestReserve``, ``TestUnreserve`` and ``TestPodEligibleToPreemptOthers``
(``pkg/capacityscheduling/capacity_scheduling_test.go``) and PreemptionToleration's
``TestExemptedFromPreemption*`` (``pkg/preemptiontoleration/preemption_toleration_test.go``), the
rule by which its preemption keeps or selects each victim candidate."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Code, CycleState, Pod, Status
from schedframe.api import ElasticQuota, PriorityClass, Resources
from schedframe.api.objects import PodCondition
from schedframe.cache.cache import Cache
from schedframe.plugins.sigs import capacity_scheduling as cs
from schedframe.plugins.sigs import preemption_toleration as pt
from schedframe.plugins.sigs.elastic_quota_info import QuotaInfo, QuotaInfos
from schedframe.testing import PluginHarness, make_node, make_pod

HIGH, MID = 1000, 100


def mpod(name: str, ns: str, mem: int, node: str = "node-a") -> Pod:
    return make_pod(name, ns).req(memory=str(mem)).priority(MID).node(node).obj()


# --------------------------------------------------------------------------------------------
# CapacityScheduling Reserve / Unreserve: usage follows the pods the cache assumes and forgets


def cached_harness(existing: list[Pod]) -> tuple[PluginHarness, Cache]:
    """A harness whose snapshot is refreshed from a scheduler cache holding *existing*."""
    quota = ElasticQuota("eq-ns1", "ns1", min={"memory": 1000}, max={"memory": 2000})
    node = make_node("node-a").capacity(memory="10000", cpu="4", pods=10).obj()
    h = PluginHarness("CapacityScheduling", nodes=[node], objects=[quota])
    cache = Cache()
    cache.add_node(node)
    for p in existing:
        cache.add_pod(p)
    cache.update_snapshot(h.snapshot)  # type: ignore[arg-type]
    return h, cache


def used(h: PluginHarness) -> int:
    plugin = h.plugin
    assert isinstance(plugin, cs.CapacityScheduling)
    info = plugin.quotas().get("ns1")
    assert info is not None
    return info.used.memory


def test_reserve() -> None:
    """Upstream "Reserve pods": ns1 uses 300; reserving t1-p1 (ns1, 50) makes it 350, then
    t1-p2 (ns2, no quota) leaves it at 350. Reserve succeeds both times."""
    h, cache = cached_harness([mpod("used", "ns1", 300)])
    assert used(h) == 300
    want = [350, 350]
    for pod, after in zip([mpod("t1-p1", "ns1", 50), mpod("t1-p2", "ns2", 50)], want):
        cache.assume_pod(pod)
        status = h.framework.run_reserve_plugins_reserve(CycleState(), pod, "node-a")
        assert status.code is Code.SUCCESS
        cache.update_snapshot(h.snapshot)  # type: ignore[arg-type]
        assert used(h) == after


def test_unreserve() -> None:
    """Upstream "Unreserve pods": ns1 holds t1-p3 (50) and t1-p4 (250); unreserving t1-p1 (never
    reserved) and t1-p2 (ns2) changes nothing, unreserving t1-p3 takes ns1 to 250."""
    p3 = mpod("t1-p3", "ns1", 50)
    h, cache = cached_harness([mpod("t1-p4", "ns1", 250)])
    cache.assume_pod(p3)
    cache.update_snapshot(h.snapshot)  # type: ignore[arg-type]
    assert used(h) == 300
    for pod, after in [(mpod("t1-p1", "ns1", 50), 300), (mpod("t1-p2", "ns2", 50), 300), (p3, 250)]:
        if cache.is_assumed(pod):
            cache.forget_pod(pod)
        h.framework.run_reserve_plugins_unreserve(CycleState(), pod, "node-a")
        cache.update_snapshot(h.snapshot)  # type: ignore[arg-type]
        assert used(h) == after


# --------------------------------------------------------------------------------------------
# CapacityScheduling PodEligibleToPreemptOthers


def quota(ns: str, used_mem: int) -> QuotaInfo:
    return QuotaInfo(ns, f"eq-{ns}", Resources(memory=50), Resources(memory=150), Resources(memory=used_mem))


UNRESOLVABLE = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint",))


@pytest.mark.parametrize(
    ("pod", "existing", "nominated_status", "quotas", "want"),
    [
        pytest.param(make_pod("t1-p1").priority(HIGH).preemption_policy("Never").obj(),
                     [make_pod("t1-p0", "ns1").req(memory="50").priority(MID).node("node-a").obj()],
                     UNRESOLVABLE, [quota("ns1", 0)], False,
                     id="Pod with PreemptNever preemption policy"),
        pytest.param(make_pod("t1-p1").priority(HIGH).nominated_node_name("node-a").obj(),
                     [make_pod("t1-p0", "ns1").req(memory="50").priority(MID).node("node-a").obj()],
                     UNRESOLVABLE, [quota("ns1", 0)], True,
                     id="Pod with unschedulableAndUnresolvable nominated node"),
        pytest.param(make_pod("t1-p1", "ns1").priority(HIGH).nominated_node_name("node-a").obj(),
                     [make_pod("t1-p0", "ns1").priority(MID).node("node-a").terminating().obj()],
                     None, [quota("ns1", 0)], False,
                     id="Pod with terminating pod in the same namespace"),
        pytest.param(make_pod("t1-p1", "ns1").priority(HIGH).nominated_node_name("node-a").obj(),
                     [make_pod("t1-p0", "ns2").priority(MID).node("node-a").terminating().obj()],
                     None, [quota("ns1", 0), quota("ns2", 100)], False,
                     id="Pod with terminating pod in another namespace"),
        pytest.param(make_pod("t1-p1", "ns1").priority(HIGH).nominated_node_name("node-a").obj(),
                     [make_pod("t1-p0", "ns2").priority(MID).node("node-a").terminating().obj()],
                     None, [], False,
                     id="Pod without elasticQuotas and terminating pod exists in the same namespace"),
        pytest.param(make_pod("t1-p1", "ns1").priority(HIGH).nominated_node_name("node-a").obj(),
                     [make_pod("t1-p0", "ns2").priority(MID).node("node-a").terminating().obj()],
                     None, [quota("ns2", 100)], True,
                     id="Pod without ElasticQuotas and terminating pod exists in another namespace"),
    ],
)
def test_pod_eligible_to_preempt_others(pod: Pod, existing: list[Pod], nominated_status: Status | None,
                                        quotas: list[QuotaInfo], want: bool) -> None:
    """The quotas are the cycle's (written after PreFilter, as upstream's test does)."""
    node = make_node("node-a").capacity(memory="150").obj()
    h = PluginHarness("CapacityScheduling", nodes=[node], pods=existing)
    _, status = h.pre_filter(pod)
    assert status.is_success()
    h.state.write(cs.QUOTA_SNAPSHOT_KEY, QuotaInfos(quotas))
    plugin = h.plugin
    assert isinstance(plugin, cs.CapacityScheduling)
    preemptor = cs._Preemptor(plugin._handle, h.state)
    eligible, _ = preemptor.pod_eligible_to_preempt_others(pod, nominated_status)
    assert eligible is want


# --------------------------------------------------------------------------------------------
# PreemptionToleration: ExemptedFromPreemption

NOW = 1_700_000_000.0
MIN, SECS = pt.ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY, pt.ANNOTATION_TOLERATION_SECONDS


def victim(priority: int, scheduled_at: float | None = None) -> Pod:
    p = make_pod("victim").priority(priority).priority_class("dummy").obj()
    if scheduled_at is None:
        return p
    return p.evolve(conditions=(PodCondition("PodScheduled", "True", last_transition_time=scheduled_at),))


def preemptor(priority: int, policy: str = "") -> Pod:
    b = make_pod("preemptor").priority(priority)
    return (b.preemption_policy(policy) if policy else b).obj()


def klass(value: int, **annotations: Any) -> PriorityClass:
    return PriorityClass("dummy", value, annotations={k: str(v) for k, v in annotations.items()})


@pytest.mark.parametrize(
    ("pc", "cand", "pre", "want"),
    [
        # TestExemptedFromPreemptionWithUnparsalbePolicy
        pytest.param(klass(1, **{MIN: "a"}), victim(3), preemptor(2, "PreemptLowerPriority"), False,
                     id="MinimumPreemptablePriority not parsable"),
        pytest.param(klass(1, **{MIN: 10, SECS: "a"}), victim(3), preemptor(2, "PreemptLowerPriority"), False,
                     id="TolerationSeconds not parsable"),
        # TestExemptedFromPreemptionWithoutPolicy
        pytest.param(klass(1), victim(1), preemptor(2, "Never"), True, id="preemptor PreemptNever"),
        pytest.param(klass(1), victim(1), preemptor(2, "PreemptLowerPriority"), False,
                     id="victim priority lower than preemptor's"),
        pytest.param(klass(3), victim(3), preemptor(2, "PreemptLowerPriority"), True,
                     id="victim priority not lower than preemptor's"),
        # ...WhenPreemptorPriorityHigherOrEqualMinimumPreemptablePriority
        pytest.param(klass(100, **{MIN: 200}), victim(100, NOW), preemptor(201), False,
                     id="preemptor above MinimumPreemptablePriority"),
        pytest.param(klass(100, **{MIN: 200}), victim(100, NOW), preemptor(200), False,
                     id="preemptor equal to MinimumPreemptablePriority"),
        # ...WhenPreemptorPriorityLowerThanMinimumPreemptablePriority
        pytest.param(klass(100, **{MIN: 200, SECS: 0}), victim(100, NOW), preemptor(199), False,
                     id="TolerationSeconds 0: no toleration"),
        pytest.param(klass(100, **{MIN: 200, SECS: -1}), victim(100, -62135596800.0), preemptor(199), True,
                     id="TolerationSeconds negative: tolerates for ever"),
        pytest.param(klass(100, **{MIN: 200, SECS: 100}), victim(100, NOW - 101), preemptor(199), False,
                     id="TolerationSeconds elapsed: toleration expired"),
        pytest.param(klass(100, **{MIN: 200, SECS: 100}), victim(100, NOW - 10), preemptor(199), True,
                     id="within TolerationSeconds: tolerated"),
    ],
)
def test_exempted_from_preemption(pc: PriorityClass, cand: Pod, pre: Pod, want: bool) -> None:
    assert pt.exempted_from_preemption(cand, pre, {"dummy": pc}, NOW) is want


def test_exempted_from_preemption_without_priority_class() -> None:
    """TestExemptedFromPreemptionWithNonExitingPriorityClass: an unknown class is an error."""
    with pytest.raises(KeyError, match="dummy"):
        pt.exempted_from_preemption(victim(3), preemptor(2, "PreemptLowerPriority"), {}, NOW)
