"""The soak run (``python -m schedframe.bench soak``): pods flow in and out, the report has its
fields, broken invariants are reported and make the command fail. No timing assertions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from schedframe import Pod, Scheduler
from schedframe.bench import _soak, main
from schedframe.bench._soak import SoakOptions, SoakReport, check_invariants, format_soak, run_soak
from schedframe.testing import make_node, make_pod

TINY = SoakOptions(nodes=12, seconds=None, rounds=120, interval_rounds=40, lifetime=(5, 20),
                   warmup_rounds=40, arrivals=4.0, node_event_rate=0.5)


@pytest.fixture(scope="module")
def report() -> SoakReport:
    return run_soak(TINY)


def test_pods_flow_in_and_out(report: SoakReport) -> None:
    """Pods arrive, get bound and leave; nodes are cordoned and relabelled; nothing breaks."""
    t = report.totals
    assert t["arrived"] > 100
    assert t["scheduled"] > 100
    assert t["removed"] > 50
    assert t["node_events"] > 10
    assert report.ok
    assert report.violations == ()
    assert report.rounds == 120


def test_report_structure(report: SoakReport) -> None:
    """Intervals every 40 rounds; warm-up marked; first/last throughput and RSS figures filled."""
    assert [iv.round for iv in report.intervals] == [40, 80, 120]
    assert [iv.warm for iv in report.intervals] == [True, True, True]
    assert report.warmup_interval == 0
    assert sum(iv.scheduled for iv in report.intervals) == report.totals["scheduled"]
    assert report.throughput_first == report.intervals[0].pods_per_cpu_second
    assert report.throughput_last == report.intervals[-1].pods_per_cpu_second
    assert report.rss_end_mb == report.intervals[-1].rss_mb > 0
    assert report.rss_growth_mb == pytest.approx(report.rss_end_mb - report.rss_after_warmup_mb)
    for iv in report.intervals:
        assert iv.live >= iv.pending >= 0
        assert iv.traced_mb is None


def test_report_dict_and_table(report: SoakReport) -> None:
    """The JSON record round-trips through json and names the machine; the table has every
    interval and the invariant line."""
    record = json.loads(json.dumps(report.to_dict()))
    assert record["schema"] == "schedframe-soak/1"
    assert record["ok"] is True
    assert len(record["intervals"]) == 3
    assert record["options"]["lifetime"] == [5, 20]
    assert "python" in record["machine"]
    table = format_soak(report)
    assert "no pod lost, no node overcommitted" in table
    assert len([line for line in table.splitlines() if line.rstrip().endswith("warm")]) == 3


def test_same_seed_same_flow() -> None:
    """The workload is deterministic: the same seed gives the same counts."""
    options = SoakOptions(nodes=8, seconds=None, rounds=60, interval_rounds=30, lifetime=(5, 15), seed=7,
                          arrivals=3.0)
    a, b = run_soak(options), run_soak(options)
    assert a.totals == b.totals
    assert [(iv.scheduled, iv.live, iv.pending) for iv in a.intervals] == [
        (iv.scheduled, iv.live, iv.pending) for iv in b.intervals]


def test_tracemalloc_reports_growth() -> None:
    """With trace_memory, memory is traced from the warm-up on and the top growth reported."""
    options = SoakOptions(nodes=6, seconds=None, rounds=40, interval_rounds=10, lifetime=(5, 10),
                          warmup_rounds=20, arrivals=1.5, trace_memory=True)
    r = run_soak(options)
    assert [iv.traced_mb is not None for iv in r.intervals] == [False, False, True, True]
    assert r.top_growth
    assert "traced" in format_soak(r)


@pytest.mark.parametrize(("options", "match"), [
    pytest.param(SoakOptions(seconds=None, rounds=None), "a soak needs a limit", id="no limit"),
    pytest.param(SoakOptions(nodes=0, rounds=1), "nodes must be >= 1, got 0", id="no nodes"),
])
def test_bad_options(options: SoakOptions, match: str) -> None:
    """Options that cannot run raise ValueError naming the problem."""
    with pytest.raises(ValueError, match=match):
        run_soak(options)


# --------------------------------------------------------------------------------------------
# invariant checks


def _cluster() -> tuple[Scheduler, Pod]:
    s = Scheduler()
    s.add_node(make_node("n1").capacity(cpu="2", memory="2Gi", pods=4).obj())
    p = s.add_pod(make_pod("p").req(cpu="1").obj())
    s.run_until_idle()
    return s, p


def _lost(s: Scheduler, p: Pod) -> set[str]:
    return {p.uid, "ghost-uid"}


def _deleted(s: Scheduler, p: Pod) -> set[str]:
    s.remove_pod(p)
    return {p.uid}


def _extra(s: Scheduler, p: Pod) -> set[str]:
    return set()


def _overcommit(s: Scheduler, p: Pod) -> set[str]:
    # a pod the scheduler did not place (added bound) that does not fit, not declared external
    big = s.add_pod(make_pod("big").req(cpu="2").node("n1").obj())
    return {p.uid, big.uid}


def _cache_drift(s: Scheduler, p: Pod) -> set[str]:
    s.cache.add_pod(make_pod("stray").req(cpu="100m").node("n1").obj())
    return {p.uid}


@pytest.mark.parametrize(("corrupt", "want"), [
    pytest.param(_lost, "pod ghost-uid lost", id="lost pod"),
    pytest.param(_deleted, "lost: the scheduler no longer knows it", id="deleted behind our back"),
    pytest.param(_extra, "pods the scheduler holds that were deleted", id="pod not deleted"),
    pytest.param(_overcommit, "node n1 overcommitted by the scheduler: cpu 3000m/2000m", id="overcommit"),
    pytest.param(_cache_drift, "cache differs from one rebuilt", id="cache drift"),
])
def test_check_invariants_reports_broken_state(corrupt: Callable[[Scheduler, Pod], set[str]],
                                                want: str) -> None:
    """A broken state is reported in words naming the pod or node."""
    s, p = _cluster()
    assert check_invariants(s, {p.uid}) == []
    live = corrupt(s, p)
    problems = check_invariants(s, live)
    assert any(want in problem for problem in problems), problems


def test_external_pods_are_not_the_schedulers_overcommit() -> None:
    """Pods added already bound are left out of the overcommit check when declared external."""
    s, p = _cluster()
    big = s.add_pod(make_pod("big").req(cpu="2").node("n1").obj())
    assert check_invariants(s, {p.uid, big.uid}, external={big.uid}) == []


# --------------------------------------------------------------------------------------------
# command line


def test_cli_soak_writes_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``bench soak`` prints the table, writes the record and exits 0 when the invariants held."""
    out = tmp_path / "soak.json"
    code = main(["soak", "--minutes", "0.01", "--nodes", "6", "--interval", "0.2", "--arrivals", "2",
                 "--json", str(out), "-q"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "pods/cpu-s" in printed
    assert "machine: Python" in printed
    record = json.loads(out.read_text())
    assert record["ok"] is True
    assert record["options"]["nodes"] == 6
    assert record["totals"]["scheduled"] > 0


def test_cli_soak_fails_on_a_broken_invariant(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A broken invariant makes the command exit 1 and is listed."""
    monkeypatch.setattr(_soak, "check_invariants", lambda *a, **k: ["pod x lost"])
    code = main(["soak", "--minutes", "0.005", "--nodes", "4", "--interval", "0.1", "--arrivals", "1",
                 "-q"])
    assert code == 1
    printed = capsys.readouterr().out
    assert "INVARIANTS BROKEN" in printed
    assert "pod x lost" in printed


@pytest.mark.parametrize(("argv", "match"), [
    pytest.param(["--minutes", "0"], "--minutes must be > 0, got 0.0", id="minutes"),
    pytest.param(["--nodes", "0"], "--nodes must be >= 1, got 0", id="nodes"),
    pytest.param(["--interval", "-1"], "--interval must be > 0, got -1.0", id="interval"),
])
def test_cli_soak_bad_arguments(argv: list[str], match: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad arguments stop with argparse's usage error naming the value."""
    with pytest.raises(SystemExit, match="2"):
        main(["soak", *argv])
    assert match in capsys.readouterr().err
