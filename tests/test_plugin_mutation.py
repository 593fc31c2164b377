"""A plugin that modifies the NodeInfo it is given (which plugins must never do) no longer goes
unnoticed: the invariant check compares the snapshot with the cache and names the node, and the
``verify_snapshots`` debug mode fails the very cycle that did it, rebuilding the snapshot."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from schedframe import CycleState, FakeClock, NodeInfo, Pod, Status
from schedframe.api import Resources
from schedframe.bench._soak import check_invariants
from schedframe.errors import CacheError
from schedframe.plugins import in_tree_registry
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod

T0 = 1_700_000_000.0

Mutation = Callable[[NodeInfo], None]

MUTATIONS: dict[str, Mutation] = {
    "remove a pod": lambda ni: ni.remove_pod(ni.pods[0].pod) if ni.pods else None,
    "clear the pod list": lambda ni: ni.pods.clear(),
    "zero the requested resources": lambda ni: setattr(ni, "requested", Resources()),
    "grow allocatable": lambda ni: setattr(ni, "allocatable", Resources(milli_cpu=64_000,
                                                                       memory=1 << 40, pods=500)),
}


class Mutator:
    """A Filter plugin that modifies the first NodeInfo it sees holding a pod, once, and
    rejects that node (so the pod goes elsewhere and the cache never refreshes that NodeInfo)."""

    name = "Mutator"

    def __init__(self, mutate: Mutation) -> None:
        self.mutate = mutate
        self.done = False

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.done and node_info.pods:
            self.done = True
            self.mutate(node_info)
            return Status.unschedulable("mutated it")
        return None


def _scheduler(mutator: Mutator, **kw: object) -> Scheduler:
    registry = in_tree_registry()
    registry.register("Mutator", lambda args, handle: mutator)
    config = {"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Mutator"}]}}}]}
    s = Scheduler(config, registry=registry, clock=FakeClock(T0), **kw)  # type: ignore[arg-type]
    s.add_node(make_node("n1").capacity(cpu="2", memory="4Gi", pods=110).obj())
    s.add_pod(make_pod("first").req(cpu="1500m", memory="1Gi").obj())
    s.run_until_idle()  # "first" is bound: n1 now holds a pod
    s.add_node(make_node("n2").capacity(cpu="200m", memory="4Gi", pods=110).obj())
    return s


@pytest.mark.parametrize("what", sorted(MUTATIONS))
def test_invariant_check_notices_a_mutated_snapshot(what: str) -> None:
    """check_invariants (and Scheduler.verify_snapshot) report the node whose snapshot NodeInfo
    no longer equals the cache's; repairing rebuilds it, after which nothing is reported."""
    s = _scheduler(Mutator(MUTATIONS[what]))
    late = s.add_pod(make_pod("late").req(cpu="100m", memory="1Mi").obj())
    s.run_until_idle()  # the Filter call for "late" mutates n1's snapshot NodeInfo
    problems = check_invariants(s, {p.uid for p in s.pods()})
    assert problems, "the mutation went unnoticed"
    assert all(p.startswith("snapshot: node n1:") for p in problems), problems
    assert s.verify_snapshot() != []  # repair=True by default
    s.add_pod(make_pod("next").req(cpu="100m", memory="1Mi").obj())
    s.run_until_idle()  # the snapshot is rebuilt from the cache
    assert s.verify_snapshot() == []
    assert check_invariants(s, {p.uid for p in s.pods()}) == []
    assert s.node_of(late) == "n2"


def test_verify_snapshots_mode_fails_the_cycle_and_prevents_overcommit() -> None:
    """With verify_snapshots=True the cycle whose plugin cleared a NodeInfo's pods raises
    CacheError naming the pod; the rebuilt snapshot keeps the next pods from overcommitting."""
    s = _scheduler(Mutator(MUTATIONS["zero the requested resources"]), verify_snapshots=True)
    s.add_pod(make_pod("small").req(cpu="100m", memory="1Mi").obj())
    with pytest.raises(CacheError, match=r"scheduling cycle of pod default/small modified the "
                                         r"snapshot: node n1: .*requested"):
        s.run_until_idle()
    # 1.5 + 0.1 CPU used of 2: a 1-CPU pod must not fit, whatever the corrupted copy said
    big = s.add_pod(make_pod("big").req(cpu="1", memory="1Mi").obj())
    s.run_until_idle()
    assert s.node_of(big) is None
    assert check_invariants(s, {p.uid for p in s.pods()}) == []


def test_unmodified_snapshot_verifies_clean() -> None:
    """A well-behaved run: verify_snapshots never fires, check_invariants stays empty."""
    s = Scheduler(clock=FakeClock(T0), verify_snapshots=True)
    for i in range(3):
        s.add_node(make_node(f"n{i}").capacity(cpu="2", memory="4Gi", pods=110).obj())
    for i in range(10):
        s.add_pod(make_pod(f"p{i}").req(cpu="500m", memory="1Mi").obj())
    s.run_until_idle()
    assert len(s.bindings()) == 10
    assert s.verify_snapshot() == []
    assert check_invariants(s, {p.uid for p in s.pods()}) == []
