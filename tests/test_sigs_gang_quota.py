"""A Coscheduling gang under a CapacityScheduling ElasticQuota: admitted whole within the quota's
max, or waiting whole -- no partial gang holds quota (tests/data/scheduler-plugins/gang-under-quota.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedframe import FakeClock, Scheduler
from schedframe.api import ElasticQuota, PodGroup
from schedframe.cli.main import main
from schedframe.plugins.coscheduling import POD_GROUP_LABEL
from schedframe.plugins.sigs.elastic_quota_info import UsageTracker
from schedframe.sim import Scenario, simulate
from schedframe.testing import make_node, make_pod

DATA = Path(__file__).parent / "data" / "scheduler-plugins"
SCENARIO = DATA / "gang-under-quota.yaml"
T0 = 1_000_000.0


def by_workload(result: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for p in result.pods:
        out.setdefault(p.workload, []).append(p)
    return out


def test_scenario_admits_gangs_whole_within_max() -> None:
    """"first" (3 CPUs) binds whole at once; "second" (2 more: 5 > max 4) binds whole only after
    "first" completed; "toolarge" (5 > team-b's max 4) never has a member bound."""
    result = simulate(Scenario.from_file(SCENARIO))
    pods = by_workload(result)
    first, second, toolarge = pods["first"], pods["second"], pods["toolarge"]
    assert {p.bound_at for p in first} == {0.0}
    assert all(p.state == "Succeeded" and p.ended_at == 100.0 for p in first)
    # the whole gang together, and only once the quota had room for all of it
    (bound_at,) = {p.bound_at for p in second}
    assert bound_at is not None
    assert bound_at >= 100.0
    assert all(p.state == "Running" for p in second)
    assert all(p.bound_at is None and p.state == "Pending" for p in toolarge)
    assert all("optimistic rejection in PostFilter" in p.message
               or "failed recently" in p.message for p in toolarge)
    # no pod of a waiting gang ever ran: team-a never used more than its max of 4 CPUs
    for series in result.nodes:
        assert max(series.requested["cpu"]) <= 4000
    total = [sum(s.at(t) for s in result.nodes) for t in (5.0, 50.0, 150.0, 350.0)]
    assert total == [3000, 3000, 0, 2000]


def test_scenario_in_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """`schedframe simulate` shows the gang bound together at the flush, the too-large gang
    pending; --explain of a too-large gang's member shows the quota's message."""
    assert main(["simulate", str(SCENARIO), "--plain", "--pods"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines() if line.startswith("team-")}
    assert {rows[f"team-a/second-{i}"][4] for i in range(2)} == {"310.0s"}
    assert {rows[f"team-a/second-{i}"][1] for i in range(2)} == {"Running"}
    assert {rows[f"team-b/toolarge-{i}"][1] for i in range(5)} == {"Pending"}
    assert main(["simulate", str(SCENARIO), "--json", "--explain", "team-b/toolarge-4"]) == 0
    attempts = json.loads(capsys.readouterr().out)["results"][0]["explanations"]["team-b/toolarge-4"]
    assert any("Pod team-b/toolarge-4 is rejected in PreFilter because ElasticQuota team-b is more than Max"
               in a["message"] for a in attempts)


def scheduler() -> Scheduler:
    scenario = Scenario.from_file(SCENARIO)
    cfg = scenario.configs[0].config
    s = Scheduler(cfg, clock=FakeClock(T0))
    for i in range(2):
        s.add_node(make_node(f"node-{i}").capacity(cpu="4", memory="16Gi", pods=110).obj())
    s.add_object(ElasticQuota("quota-a", "team-a", min={"cpu": "3"}, max={"cpu": "4"}))
    s.add_object(ElasticQuota("quota-b", "team-b", min={"cpu": "4"}, max={"cpu": "4"}))
    return s


def gang(s: Scheduler, name: str, ns: str, n: int) -> None:
    s.add_object(PodGroup(name, ns, min_member=n, creation_timestamp=T0))
    for i in range(n):
        s.add_pod(make_pod(f"{name}-{i}", ns).label(POD_GROUP_LABEL, name).req(cpu="1").obj())


def test_gang_over_max_holds_no_quota() -> None:
    """Once the scheduler is idle, the gang that would exceed its quota's max has no member bound,
    assumed or waiting at Permit: the quota's usage is the admitted gang's alone."""
    s = scheduler()
    gang(s, "first", "team-a", 3)
    s.run_until_idle(max_cycles=50)
    gang(s, "second", "team-a", 2)
    gang(s, "toolarge", "team-b", 5)
    s.run_until_idle(max_cycles=200)
    bound = s.bindings()
    assert sorted(bound) == ["team-a/first-0", "team-a/first-1", "team-a/first-2"]
    assert len(s.waiting_pods) == 0
    assert {p.pod.key for p in s.pending()} == {f"team-a/second-{i}" for i in range(2)} | {
        f"team-b/toolarge-{i}" for i in range(5)}
    assert s.cache.pod_count() == 3
    assert not any(s.cache.is_assumed(p) for p in s.pods())
    usage = UsageTracker().usage(s.cache.snapshot())
    assert usage["team-a"].milli_cpu == 3000
    assert "team-b" not in usage or usage["team-b"].milli_cpu == 0
