"""schedframe against the real kube-scheduler of each emulated release (docs/fidelity.rst).

Needs the oracle program of the release, built from the Go module of its tag
(``scripts/oracle build --release R``; ``.ci/run`` builds the newest and the oldest). Without it
these tests skip, saying so. ``SCHEDFRAME_ORACLE_RELEASES`` (``newest,oldest`` by default, or
``all``, or minors) chooses the releases, ``SCHEDFRAME_ORACLE_CASES`` the number of generated
cases per release (300). ``.ci/run`` sets ``SCHEDFRAME_ORACLE_REQUIRED`` where it built the
oracles: a missing one is then a failure, not a skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from schedframe_oracle import binary
from schedframe_oracle.cases import generate, rotation
from schedframe_oracle.cli import run_cases, source_cases

# the cases hold YAML files and DRA objects (CEL selectors): schedframe needs both extras for them
pytest.importorskip("yaml", reason="the differential tests need the yaml extra")
pytest.importorskip("celpy", reason="the differential tests need the dra extra (cel-python)")

HERE = Path(__file__).resolve().parent
#: composite-*.yaml are for the oracle alone until schedframe schedules CompositePodGroups
HAND_WRITTEN = sorted(p for p in (HERE / "cases").glob("*.yaml") if not p.name.startswith("composite-"))
#: 1.36's PodGroup scheduling cycle (the newest, 1.37, has its podgroups cases in the rotation)
POD_GROUP_RELEASE = "1.36"
RELEASES = binary.releases(os.environ.get("SCHEDFRAME_ORACLE_RELEASES", "newest,oldest").split(","))
COUNT = int(os.environ.get("SCHEDFRAME_ORACLE_CASES", "300"))


def _oracle(release: str) -> None:
    try:
        binary.oracle_binary(release)
    except binary.OracleUnavailable as exc:
        if os.environ.get("SCHEDFRAME_ORACLE_REQUIRED"):
            pytest.fail(f"{exc} (SCHEDFRAME_ORACLE_REQUIRED is set)")
        pytest.skip(str(exc))


def _report(reports: list) -> str:
    lines = []
    for r in reports:
        if r.error:
            lines.append(f"{r.case}: {r.error}")
        lines.extend(d.line() for d in r.differences[:3])
    return "\n".join(lines[:40])


@pytest.mark.parametrize("release", RELEASES)
def test_generated_cases_agree_with_the_oracle(release: str, tmp_path: Path) -> None:
    """On generated cases of every family, schedframe decides as the release's kube-scheduler
    in every field it writes (documented deviations aside)."""
    _oracle(release)
    cases = []
    for k in range(COUNT):
        family = rotation(release)[k % len(rotation(release))]
        path = tmp_path / f"{family}-{k:05d}.json"
        path.write_text(json.dumps(generate(10_000 + k, release=release, family=family)))
        cases.append(path)
    reports = run_cases(release, cases, {})
    bad = [r for r in reports if not r.ok]
    assert not bad, f"{len(bad)} of {len(reports)} cases differ:\n{_report(bad)}"
    assert sum(r.cycles for r in reports) > COUNT  # every case scheduled something


@pytest.mark.parametrize("release", RELEASES)
def test_hand_written_cases_agree_with_the_oracle(release: str) -> None:
    """The hand-written cases (tests/oracle/cases: a cluster dump, preemption with PDBs, spread
    and affinity corner cases) agree too."""
    _oracle(release)
    assert HAND_WRITTEN
    reports = run_cases(release, HAND_WRITTEN, {})
    bad = [r for r in reports if not r.ok]
    assert not bad, _report(bad)


@pytest.mark.parametrize("release", RELEASES)
def test_benchmark_and_scenario_cases_agree_with_the_oracle(release: str, tmp_path: Path) -> None:
    """schedframe's benchmark workloads (scaled down) and built-in scenarios agree too."""
    _oracle(release)
    reports = run_cases(release, source_cases(tmp_path), {})
    bad = [r for r in reports if not r.ok]
    assert not bad, _report(bad)
    assert sum(r.cycles for r in reports) > 20 * len(reports)


def test_pod_groups_agree_with_the_oracle(tmp_path: Path) -> None:
    """Workload-aware scheduling at 1.36 (Workloads, PodGroups with gang and basic policies,
    members interleaved with single pods, gangs short of their quorum or too big to fit): every
    PodGroup cycle decides as kube-scheduler's, member by member."""
    _oracle(POD_GROUP_RELEASE)
    cases = [c for c in HAND_WRITTEN if c.name.startswith("podgroups")]
    for k in range(max(COUNT // 3, 10)):
        case = tmp_path / f"podgroups-{k:05d}.json"
        case.write_text(json.dumps(generate(20_000 + k, release=POD_GROUP_RELEASE, family="podgroups")))
        cases.append(case)
    reports = run_cases(POD_GROUP_RELEASE, cases, {})
    bad = [r for r in reports if not r.ok]
    assert not bad, f"{len(bad)} of {len(reports)} cases differ:\n{_report(bad)}"
    assert sum(r.cycles for r in reports) > len(reports)


def test_the_oracle_records_what_it_decides() -> None:
    """The oracle's record of a case: every node's filter status, the scores of the nodes it
    scored, the selected node among the top ones, its own consistency checks passing."""
    release = RELEASES[0]
    _oracle(release)
    [record] = binary.run_oracle(release, [HAND_WRITTEN[0]])
    assert record["release"] == binary.RELEASES[release]
    assert record["cycles"]
    for cycle in record["cycles"]:
        assert not cycle.get("warnings"), cycle["warnings"]
        assert len(cycle["filter"]) == cycle["numAllNodes"]
        if cycle["outcome"] == "bound" and cycle.get("top"):
            assert cycle["node"] in cycle["top"]


@pytest.mark.parametrize("release", RELEASES)
def test_release_facts_are_the_releases_own(release: str) -> None:
    """schedframe's release table (feature gates, default plugins and weights, plugin args,
    the defaulted configuration: src/schedframe/framework/_release_facts.json) is what the
    release's kube-scheduler reports now (``scripts/oracle facts --write`` regenerates it)."""
    _oracle(release)
    from schedframe_oracle import facts

    committed = json.loads(facts.FACTS_FILE.read_text())
    assert facts.collect(release) == committed[release]
