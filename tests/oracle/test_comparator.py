"""The differential comparator itself (no Go needed): it finds a difference in every field it
compares, accepts a tie, reports a case it cannot run, and the generated cases are valid."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from schedframe_oracle.cases import FAMILIES, generate
from schedframe_oracle.diff import (
    DEVIATIONS,
    RELEASES_ANNOTATION,
    Difference,
    case_applies,
    diff_case,
    schedframe_record,
)

CASE = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
         "value": 1000},
        *[{"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n, "topology.kubernetes.io/zone": z}},
           "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]} if n == "n3" else {},
           "status": {"allocatable": {"cpu": c, "memory": "8Gi", "pods": "110"},
                      "capacity": {"cpu": c, "memory": "8Gi", "pods": "110"}}}
          for n, z, c in (("n1", "a", "4"), ("n2", "b", "2"), ("n3", "a", "8"))],
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "old", "namespace": "default"},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]},
         "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "6"}}}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "urgent", "namespace": "default"},
         "spec": {"priorityClassName": "high",
                  "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]}},
    ],
}


@pytest.fixture
def case(tmp_path: Path) -> Path:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(CASE))
    return path


def _fields(diffs: tuple[Difference, ...]) -> list[tuple[str, str | None, str | None]]:
    return [(d.field, d.node, d.plugin) for d in diffs]


def test_schedframe_agrees_with_itself(case: Path) -> None:
    """A record made by schedframe alone shows no difference: the comparator's baseline."""
    record = schedframe_record(case, release="1.37")
    assert [(c["pod"], c["attempt"], c["outcome"]) for c in record["cycles"]] == [
        ("default/web", 1, "bound"), ("default/big", 1, "unschedulable"),
        ("default/urgent", 1, "unschedulable"), ("default/urgent", 2, "bound")]
    report = diff_case(case, record, release="1.37")
    assert report.ok, report.differences
    assert report.cycles == 4


@pytest.mark.parametrize(("mutate", "want"), [
    pytest.param(lambda c: c[0].update(node="n9", top=["n9"]), [("node", None, None)], id="selected node"),
    pytest.param(lambda c: c[1].update(message="0/3 nodes are available: nope."), [("message", None, None)],
                 id="failure message"),
    pytest.param(lambda c: c[2].update(victims=["default/web"]), [("victims", None, None)], id="victims"),
    pytest.param(lambda c: c[2].update(nominatedNode="n2"), [("nominatedNode", None, None)],
                 id="nominated node"),
    pytest.param(lambda c: c[0].update(nextStartIndex=2), [("nextStartIndex", None, None)],
                 id="round-robin start"),
    pytest.param(lambda c: c[0]["filter"][2].update(reasons=["something else"]), [("filter", "n3", None)],
                 id="a node's filter reasons"),
    pytest.param(lambda c: c[0]["scores"][0]["scores"][0].update(score=-7),
                 [("score", "n1", "TaintToleration")], id="a plugin's score"),
    pytest.param(lambda c: c[0]["scores"][0].update(total=-7), [("total", "n1", None)], id="a node's total"),
    pytest.param(lambda c: c[0].update(outcome="unschedulable"), [("outcome", None, None)], id="outcome"),
])
def test_every_field_is_compared(case: Path, mutate: Any,
                                 want: list[tuple[str, str | None, str | None]]) -> None:
    """Each field the oracle writes is compared: changing it in the record is reported, naming
    the pod, node, plugin and field."""
    record = schedframe_record(case, release="1.37")
    mutated = copy.deepcopy(record)
    mutate(mutated["cycles"])
    report = diff_case(case, mutated, release="1.37")
    # the first difference is the one made; later cycles may differ because of it (schedframe is
    # brought to the record's state, as it would be to the oracle's)
    assert _fields(report.differences)[: len(want)] == want
    line = report.differences[0].line()
    assert str(case) in line
    assert mutated["cycles"][0]["pod"].split("/")[0] in line


def test_a_tie_is_accepted(case: Path) -> None:
    """Upstream breaks ties at random: schedframe's node agrees when it is among the top ones."""
    record = schedframe_record(case, release="1.37")
    first = record["cycles"][0]
    other = "n1" if first["node"] != "n1" else "n2"
    first["top"] = sorted({first["node"], other})
    first["node"] = other
    assert diff_case(case, record, release="1.37").ok


def test_config_difference_is_found(case: Path) -> None:
    """The plugins of each extension point are compared with the oracle's expansion."""
    record = schedframe_record(case, release="1.37")
    record["plugins"]["default-scheduler"]["Filter"]["Enabled"].reverse()
    report = diff_case(case, record, release="1.37")
    assert [d.field for d in report.differences] == ["config.profiles[default-scheduler].plugins.filter"]


def test_documented_deviation_is_reported_apart(case: Path) -> None:
    """A difference a documented deviation covers (the PodGroup points of 1.36+) does not count
    as differing, and is listed as met."""
    record = schedframe_record(case, release="1.37")
    record["plugins"]["default-scheduler"]["PlacementScore"] = {"Enabled": [{"Name": "NodeResourcesFit",
                                                                              "Weight": 0}]}
    report = diff_case(case, record, release="1.37")
    assert report.ok
    assert [k for k, _ in report.deviations] == ["pod-group-extension-points"]
    assert {d.key for d in DEVIATIONS} == {"pod-group-extension-points", "group-preemption-placement-order"}


_RUN = "pod group is unschedulable, 0/2 placements are available, first placement status: "


@pytest.mark.parametrize(
    ("oracle", "schedframe", "covered"),
    [
        pytest.param(f"x, pod group preemption: {_RUN}a", f"x, pod group preemption: {_RUN}b", True,
                     id="another placement first in the preemption's run"),
        pytest.param(f"x, pod group preemption: {_RUN}a", f"y, pod group preemption: {_RUN}b", False,
                     id="the cycle's own status differs"),
        pytest.param(f"x, pod group preemption: {_RUN}a", "x, pod group preemption: no victims", False,
                     id="the preemption's outcome differs"),
        pytest.param(f"{_RUN}a", f"{_RUN}b", False, id="no preemption: the order is the oracle's"),
        pytest.param({"status": "False", "message": f"x, pod group preemption: {_RUN}a"},
                     {"status": "False", "message": f"x, pod group preemption: {_RUN}b"}, True,
                     id="the PodGroup's condition"),
        pytest.param({"status": "False", "message": f"x, pod group preemption: {_RUN}a"},
                     {"status": "True", "message": f"x, pod group preemption: {_RUN}b"}, False,
                     id="the condition's status differs"),
    ],
)
def test_group_preemption_placement_order_deviation(oracle: Any, schedframe: Any, covered: bool) -> None:
    """Only a message that differs in the first placement of the group preemption's own run of
    the algorithm (Go's map order upstream, not recorded) is covered."""
    field = "podGroupCondition" if isinstance(oracle, dict) else "message"
    diff = Difference("c", "default/p", 2, field, oracle, schedframe)
    dev = next(d for d in DEVIATIONS if d.key == "group-preemption-placement-order")
    assert dev.covers("1.37", diff) is covered
    assert not dev.covers("1.35", diff)


def test_an_oracle_error_is_a_failed_case(case: Path) -> None:
    """A case the oracle could not run is reported, never passed."""
    report = diff_case(case, {"error": "boom"}, release="1.37")
    assert not report.ok
    assert "boom" in (report.error or "")


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_cases_are_deterministic_and_valid(family: str, tmp_path: Path) -> None:
    """A seed names a case; each family's cases load into schedframe and run through the
    comparator's own record (no crash, no difference with itself)."""
    assert generate(7, family=family) == generate(7, family=family)
    assert generate(7, family=family) != generate(8, family=family)
    path = tmp_path / f"{family}.json"
    path.write_text(json.dumps(generate(3, family=family, release="1.37")))
    record = schedframe_record(path, release="1.37")
    assert record["cycles"]
    assert diff_case(path, record, release="1.37").ok


HAND_WRITTEN = Path(__file__).resolve().parent / "cases"


def test_devices_family_draws_dra_objects_where_the_release_has_them() -> None:
    """The devices family gives clusters DeviceClasses, ResourceSlices and claims, and pods that
    use them, from 1.34 (resource.k8s.io/v1); before, none."""
    def kinds(release: str) -> set[str]:
        out: set[str] = set()
        for seed in range(20):
            for item in generate(seed, family="devices", release=release)["items"]:
                out.add(item["kind"])
                if item["kind"] == "Pod" and item["spec"].get("resourceClaims"):
                    out.add("pod with claims")
        return out

    assert {"DeviceClass", "ResourceSlice", "ResourceClaim", "pod with claims"} <= kinds("1.34")
    assert not {"DeviceClass", "ResourceSlice", "ResourceClaim"} & kinds("1.33")


def test_a_case_can_name_its_releases(tmp_path: Path) -> None:
    """A List annotated ``oracle.schedframe.io/releases: ">=1.34"`` is left out for older
    releases (the DRA case: resource.k8s.io/v1 is not served before 1.34)."""
    dra = HAND_WRITTEN / "dra-claims.yaml"
    assert case_applies(dra, "1.34")
    assert case_applies(dra, "1.37")
    assert not case_applies(dra, "1.33")
    bounded = tmp_path / "old.json"
    bounded.write_text(json.dumps({**CASE, "metadata": {"annotations": {RELEASES_ANNOTATION: "<=1.35"}}}))
    assert case_applies(bounded, "1.32")
    assert not case_applies(bounded, "1.36")
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(CASE))
    assert case_applies(plain, "1.32")


def test_claim_written_differently_is_found() -> None:
    """A ResourceClaim the oracle's scheduler allocated other devices for is a difference named
    after the claim; pods without the oracle's uid get it as the API server gives one."""
    pytest.importorskip("celpy", reason="DynamicResources needs the dra extra (cel-python)")
    dra = HAND_WRITTEN / "dra-claims.yaml"
    record = schedframe_record(dra, release="1.37")
    assert diff_case(dra, record, release="1.37").ok
    first = next(c for c in record["cycles"] if c["pod"] == "default/train-big")
    assert first["outcome"] == "bound"
    first["storage"] = [{
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "big", "namespace": "default"},
        "status": {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": first["node"], "device": "gpu-9"}]}},
            "reservedFor": [{"resource": "pods", "name": "train-big", "uid": "uid-default-train-big"}]},
    }]
    report = diff_case(dra, record, release="1.37")
    assert "claim default/big" in [d.field for d in report.differences]


def test_benchmark_and_scenario_cases_load(tmp_path: Path) -> None:
    """The cases made of benchmark workloads and built-in scenarios are Lists schedframe reads
    back and schedules (every pod pending, the cluster as the workload builds it)."""
    from schedframe_oracle.cli import source_cases

    paths = source_cases(tmp_path)
    assert {p.name.split("-")[0] for p in paths} == {"bench", "scenario"}
    for path in (p for p in paths if p.name.startswith(("bench-PreemptionBasic", "scenario-three-zones"))):
        record = schedframe_record(path, release="1.37")
        assert len(record["cycles"]) >= 20
        assert diff_case(path, record, release="1.37").ok
