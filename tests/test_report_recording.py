"""What ``--report`` records (schedframe.sim.decisions): each pod's last failed attempt only
(``RecordDecisions(last_failed_only=True)``), its Filter verdicts kept compact, scored only
when it failed -- the same rows, verdicts and report as a run recording everything."""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Iterable
from typing import Any

import pytest

from schedframe import Status
from schedframe.cli.simulate import report_option
from schedframe.config.configuration import SchedulerConfiguration
from schedframe.framework.releases import release_profile
from schedframe.plugins import in_tree_registry
from schedframe.sim import DecisionsError, RecordDecisions, Scenario, builtin_scenario, simulate
from schedframe.sim.builtin import leader_workers
from schedframe.sim.report._build import report_data

from .test_report import SCENARIO

#: The report's test scenario and two pods that every node fits but a Reserve plugin refuses:
#: failed attempts with six feasible nodes, scored.
PICKY = SCENARIO.replace("configs:", """- name: picky
  replicas: 2
  arrival: {at: 7}
  template:
    metadata: {labels: {reserve: "no"}}
    spec:
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
configs:""")


class RejectAtReserve:
    """Reserve: refuses the pods labelled ``reserve=no``."""

    name = "RejectAtReserve"

    def reserve(self, state: Any, pod: Any, node_name: str) -> Status | None:
        return Status.unschedulable("reserve refused") if pod.labels.get("reserve") == "no" else None

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        return None


@pytest.fixture(scope="module")
def picky():
    """The scenario, a registry and configuration with RejectAtReserve, and the run recording
    every attempt and every verdict."""
    registry = in_tree_registry()
    registry.register("RejectAtReserve", lambda args, handle: RejectAtReserve())
    reserve = {"reserve": {"enabled": [{"name": "RejectAtReserve"}]}}
    config = SchedulerConfiguration.from_dict({"profiles": [{"plugins": reserve}]}, registry=registry)
    s = Scenario.from_text(PICKY)
    full = simulate(s, config, registry=registry, decisions=RecordDecisions(filter_verdicts=True))
    return s, registry, config, full


def _last_failed(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of each pod's last attempt, when it failed, in the order of the rows."""
    last: dict[str, dict[str, Any]] = {}
    for row in rows:
        last.pop(row["pod"], None)
        last[row["pod"]] = row
    return [r for r in last.values() if r["outcome"] in ("unschedulable", "error")]


def test_the_scenario_has_failed_attempts_with_scored_nodes(picky) -> None:
    """The fixture does what the tests below need: pending pods whose last attempt had feasible
    nodes, scored, and pods whose last attempt had none."""
    _, _, _, full = picky
    last = _last_failed(full.decisions())
    assert {r["pod"] for r in last} == {p.key for p in full.pending()}
    scored = [r for r in last if r["top1_total"] is not None]
    assert {r["pod"] for r in scored} == {"default/picky-0", "default/picky-1"}
    assert all(r["feasible"] == 6 and r["top3_node"] for r in scored)
    assert any(r["feasible"] == 0 for r in last)


def test_last_failed_only_keeps_the_last_failed_attempts_rows(picky) -> None:
    """One row per pod whose last attempt failed, equal to the full table's (scores included,
    for the attempts scored after they failed), in the same order."""
    s, registry, config, full = picky
    light = simulate(s, config, registry=registry, decisions=RecordDecisions(last_failed_only=True))
    assert light == full  # the run itself is the same
    assert light.decisions().columns == full.decisions().columns
    assert light.decisions().to_dicts() == _last_failed(full.decisions())


def test_last_failed_only_keeps_those_attempts_verdicts(picky) -> None:
    """Its Filter verdicts are the full table's rows of those attempts, in order."""
    s, registry, config, full = picky
    light = simulate(s, config, registry=registry, decisions=RecordDecisions(last_failed_only=True))
    wanted = {(r["pod"], r["attempt"]) for r in _last_failed(full.decisions())}
    want = [v for v in full.filter_verdicts() if (v["pod"], v["attempt"]) in wanted]
    assert light.filter_verdicts().to_dicts() == want
    assert len(light.filter_verdicts()) == len(want)


def test_the_report_of_either_recording_is_the_same(picky) -> None:
    """The report's data -- matrices and best nodes included -- does not depend on how much was
    recorded; the picky pods' matrices show their scored nodes."""
    s, registry, config, full = picky
    for mode in (RecordDecisions(last_failed_only=True), RecordDecisions(last_failed_verdicts=True)):
        light = simulate(s, config, registry=registry, decisions=mode)
        assert report_data([light]) == report_data([full])
    matrix = report_data([full])["pending"][full.config]["matrices"]["default/picky-0"]
    assert len(matrix["top"]) == 3
    [group] = matrix["groups"]
    assert {k: v for k, v in group.items() if k != "nodes"} == {
        "stage": "Filter", "passed": True, "plugin": "", "code": "Success", "reason": "", "count": 6}
    assert sorted(group["nodes"]) == sorted(n.node for n in full.nodes)


def _same_last_failed(full: Any, light: Any) -> list[dict[str, Any]]:
    """Check that *light* (``last_failed_only``) kept the rows and verdicts of each pod's last
    failed attempt that *full* recorded; those rows."""
    assert light == full
    assert light.placements() == full.placements()
    last = _last_failed(full.decisions())
    assert light.decisions().to_dicts() == last
    wanted = {(r["pod"], r["attempt"]) for r in last}
    assert light.filter_verdicts().to_dicts() == [
        v for v in full.filter_verdicts() if (v["pod"], v["attempt"]) in wanted]
    return last


@pytest.mark.parametrize(("name", "until"), [("drain-preemption", 400), ("gang", 400)])
def test_built_in_scenarios_record_the_same_last_failed_attempts(name: str, until: float) -> None:
    """On preemption and Coscheduling scenarios too, stopped with pods pending: the run is
    unchanged, and the rows and verdicts kept are the full tables' of each pod's last failed
    attempt."""
    s = builtin_scenario(name)
    full = simulate(s, seed=1, until=until, decisions=RecordDecisions(filter_verdicts=True))
    light = simulate(s, seed=1, until=until, decisions=RecordDecisions(last_failed_only=True))
    assert _same_last_failed(full, light)


def test_a_pod_group_member_is_scored_as_it_was_filtered() -> None:
    """kube-scheduler's own gang (a PodGroup cycle) with a leader preferring the workers' node:
    its group's cycle tries the workers on a node after the leader was filtered, and fails; the
    leader's scores are those of its filtering (the workers not there yet), as the full table
    has them -- scored after the group failed, its preferred node would score higher."""
    d = leader_workers(release_profile(None).version)
    gpu = {"cpu": "32", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "16"}
    d["nodes"][0] = {"count": 2, "name": "gpu-{i}",
                     "template": {"status": {"allocatable": gpu, "capacity": gpu}}}
    busy, leader = d["workloads"][0]["template"]["spec"], d["workloads"][1]["template"]["spec"]
    busy["nodeSelector"] = {"kubernetes.io/hostname": "gpu-1"}
    busy["containers"][0]["resources"] = {"requests": {"cpu": "8", "nvidia.com/gpu": "16"},
                                          "limits": {"nvidia.com/gpu": "16"}}
    leader["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                           "labelSelector": {"matchLabels": {"role": "worker"}}}}]}}
    s = Scenario.from_dict(d)
    runs = [simulate(s, seed=1, until=200, feature_gates="GenericWorkload=true", decisions=mode)
            for mode in (RecordDecisions(filter_verdicts=True), RecordDecisions(last_failed_only=True))]
    last = {r["pod"]: r for r in _same_last_failed(*runs)}
    assert set(last) == {p.key for p in runs[0].pending()} == {
        "default/leader-0", "default/workers-0", "default/workers-1", "default/workers-2"}
    leader_row = last["default/leader-0"]
    assert leader_row["message"].startswith("pod group is unschedulable")
    assert leader_row["feasible"] == 3
    assert leader_row["top1_total"] == leader_row["top2_total"]  # no worker anywhere yet


def test_the_verdicts_stay_compact(picky) -> None:
    """The verdicts kept are a byte per node per pod here (few distinct verdicts), the node
    names shared between the pods' attempts; building the report or pickling the result does
    not turn them into rows, and the rows built from them are the table's."""
    s, registry, config, _ = picky
    light = simulate(s, config, registry=registry, decisions=RecordDecisions(last_failed_only=True))
    table = light.recorded_verdicts
    assert table is not None
    kept = list(table._source.attempts.values())
    assert len(kept) == len(light.pending())
    assert all(v.index.itemsize == 1 and len(v.index) == len(light.nodes) for v in kept)
    assert all(v.names is kept[0].names for v in kept)
    report_data([light])
    n = len(table)
    assert table._rows is None
    again = pickle.loads(pickle.dumps(light))
    assert again.recorded_verdicts._rows is None
    assert list(again.filter_verdicts()) == list(table)
    assert len(table.rows) == n == len(again.filter_verdicts())


def test_last_failed_only_and_every_verdict_are_refused() -> None:
    """Every attempt's verdicts but only the last failed attempts: a contradiction, refused."""
    with pytest.raises(DecisionsError, match="last_failed_only"):
        RecordDecisions(last_failed_only=True, filter_verdicts=True)


@pytest.mark.parametrize(("recording", "want"), [
    (None, RecordDecisions(last_failed_only=True)),
    (RecordDecisions(top_k=5), RecordDecisions(top_k=5, last_failed_verdicts=True)),
    (RecordDecisions(top_k=2, filter_verdicts=True), RecordDecisions(top_k=2, filter_verdicts=True)),
])
def test_report_option_records_what_the_other_options_leave_out(tmp_path, recording, want) -> None:
    """``--report`` alone keeps the last failed attempts only; beside ``--decisions`` every
    attempt's row (its top-k) and the last failed verdicts; beside ``--filter-verdicts`` what
    that records."""
    args = argparse.Namespace(report=str(tmp_path / "r.html"))
    assert report_option(args, recording) == want
    assert report_option(argparse.Namespace(report=None), recording) is recording
