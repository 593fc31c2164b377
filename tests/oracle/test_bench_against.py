"""``python -m schedframe.bench --against kube-scheduler``: the real scheduler's timing mode on
the cluster schedframe ran (docs/performance.rst). Skips without the newest release's oracle."""

from __future__ import annotations

import os

import pytest
from schedframe_oracle import binary

from schedframe.bench import get_workload
from schedframe.bench._against import against_line, run_against


@pytest.fixture(scope="module", autouse=True)
def _oracle() -> None:
    try:
        binary.oracle_binary("1.37")
    except binary.OracleUnavailable as exc:
        if os.environ.get("SCHEDFRAME_ORACLE_REQUIRED"):
            pytest.fail(f"{exc} (SCHEDFRAME_ORACLE_REQUIRED is set)")
        pytest.skip(str(exc))


def test_both_schedulers_bind_every_measured_pod() -> None:
    """SchedulingBasic at 1%: Go binds what schedframe binds, per CPU second at parallelism 1 and
    at its default parallelism, with the same number of pods on each node."""
    name = "SchedulingBasic/5000Nodes_10000Pods"
    measured = get_workload(name).scaled(0.01).measured_count
    (r,) = run_against([name], scale=0.01, isolate=False)
    assert r.skipped is None
    assert r.schedframe is not None
    assert r.go is not None
    assert r.go_parallel is not None
    assert r.schedframe.scheduled == r.go.bound == measured
    assert r.go.unschedulable == 0
    assert (r.go.parallelism, r.go.gomaxprocs) == (1, 1)
    assert r.go_parallel.parallelism == 16
    assert r.go.pods_per_cpu_second
    assert r.go.pods_per_cpu_second > 0
    assert r.go.attempts >= measured
    assert r.agreement is not None
    assert r.agreement.verdict in ("identical", "up to ties")
    assert r.ratio is not None
    assert against_line([r], "1.37").startswith("against kube-scheduler 1.37.")


def test_preemption_and_pods_that_never_fit_agree() -> None:
    """PreemptionBasic (every measured pod preempts) and Unschedulable (its churn pods, which
    fit nowhere, enqueued with the measured ones): both sides bind the same pods, Go's run ends
    with the unschedulable ones left pending."""
    # at 5%, 500 measured pods and 4 churn pods (one per 118 measured)
    results = [*run_against(["PreemptionBasic/1000Nodes"], scale=0.01, isolate=False, parallel=False),
               *run_against(["Unschedulable/5kNodes/100Init/10kPods"], scale=0.05, isolate=False,
                            parallel=False)]
    for r in results:
        assert r.skipped is None, r.skipped
        assert r.schedframe is not None
        assert r.go is not None
        assert r.agreement is not None
        assert r.go_parallel is None
        assert r.agreement.bound[0] == r.agreement.bound[1] == r.schedframe.scheduled, r.workload
    preemption, unschedulable = results
    assert preemption.go is not None
    assert preemption.go.bound == preemption.go.pods
    assert unschedulable.go is not None
    assert unschedulable.go.unschedulable == 4
    assert unschedulable.schedframe is not None
    assert unschedulable.go.unschedulable == unschedulable.schedframe.unscheduled


def test_a_memory_workload_is_skipped_with_its_reason() -> None:
    (r,) = run_against(["Memory/5000Nodes_55000Pods"], scale=0.001, isolate=False)
    assert r.skipped == "no measured pods (a memory workload)"
    assert r.ratio is None
