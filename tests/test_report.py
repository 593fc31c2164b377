"""The HTML report of a simulation (schedframe.sim.report; ``schedframe simulate --report``):
its data against the run's own figures, the page's safety, and the command line's checks."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from schedframe.cli import _common
from schedframe.cli.main import main
from schedframe.sim import RecordDecisions, Scenario, builtin_scenario, simulate
from schedframe.sim.report import (
    MAX_EXPLAINED_PODS,
    MAX_MOVED_ROWS,
    ReportError,
    build_report,
    check_report_path,
    node_labels,
    write_report,
)
from schedframe.sim.report._build import reason_group, report_data

#: Six nodes in two zones and two pools, pods that fit, pods too big to fit anywhere and pods
#: selecting a pool that has no node: pending pods of two FitError reasons, two configurations.
SCENARIO = """
name: report-test
nodes:
- count: 4
  name: "small-{i}"
  template:
    metadata:
      labels: {pool: small, topology.kubernetes.io/zone: zone-a}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- count: 2
  name: "big-{i}"
  template:
    metadata:
      labels: {pool: big, topology.kubernetes.io/zone: zone-b}
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
workloads:
- name: web
  replicas: 12
  arrival: {at: 0, every: 2}
  duration: 30
  template:
    spec:
      containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]
- name: huge
  replicas: 3
  arrival: {at: 5, every: 1}
  template:
    spec:
      containers: [{name: c, resources: {requests: {cpu: "32"}}}]
- name: gpu
  replicas: 2
  arrival: {at: 6}
  template:
    spec:
      nodeSelector: {pool: gpu}
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
configs:
- name: default
- name: packing
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: default-scheduler
      pluginConfig:
      - name: NodeResourcesFit
        args: {scoringStrategy: {type: MostAllocated}}
"""


def scenario() -> Scenario:
    """The test scenario."""
    return Scenario.from_text(SCENARIO)


@pytest.fixture(scope="module")
def runs():
    """The test scenario under both configurations, decisions and Filter verdicts recorded."""
    s = scenario()
    results = [simulate(s, spec.name, decisions=RecordDecisions(filter_verdicts=True)) for spec in s.configs]
    return s, results


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_the_scenario_leaves_pods_pending_for_two_reasons(runs) -> None:
    """The fixture does what the tests below need: pending pods, of more than one reason."""
    _, results = runs
    for r in results:
        assert {reason_group(p.message) for p in r.pending()} == {
            "Insufficient cpu", "node(s) didn't match Pod's node affinity/selector"}


def test_heat_map_has_one_entry_per_node(runs) -> None:
    """One heat-map node per node of the run, with each one's end-of-run requests."""
    s, results = runs
    data = report_data(results, node_labels(s.plan(0)))
    hm = data["heatmap"]
    assert hm["nodes"] == [n.node for n in results[0].nodes]
    for r in results:
        cfg = hm["configs"][r.config]
        for res in data["resources"]:
            assert cfg["requested"][res] == [(n.requested.get(res) or (0,))[-1] for n in r.nodes]


def test_labels_offer_zones_and_pools(runs) -> None:
    """The heat map's filter offers the nodes' labels (not the per-node hostname), and each
    node lists the labels it has."""
    s, results = runs
    labels = node_labels(s.plan(0))
    hm = report_data(results, labels)["heatmap"]
    assert "pool=big" in hm["labels"]
    assert "pool=small" in hm["labels"]
    assert not any(p.startswith("kubernetes.io/hostname=") for p in hm["labels"])
    for name, pairs in zip(hm["nodes"], hm["node_labels"], strict=True):
        assert {hm["labels"][i] for i in pairs} == {
            f"{k}={v}" for k, v in labels[name].items() if k != "kubernetes.io/hostname"}


def test_pending_pods_are_the_results_pending_pods(runs) -> None:
    """The pending pods listed and grouped are exactly the result's, with their messages."""
    _, results = runs
    data = report_data(results)
    for r in results:
        p = data["pending"][r.config]
        assert p["total"] == len(r.pending()) == r.metrics.pending
        assert [x["key"] for x in p["pods"]] == [x.key for x in r.pending()]
        assert sum(n for _, n in p["groups"]) == len(r.pending())


def test_a_pending_pods_matrix_is_its_last_attempts_verdicts(runs) -> None:
    """Each explained pod's matrix counts every node of its last attempt, as the filter
    verdicts table has them, and names the plugin that rejected them."""
    _, results = runs
    data = report_data(results)
    for r in results:
        matrices = data["pending"][r.config]["matrices"]
        assert set(matrices) == {p.key for p in r.pending()[:MAX_EXPLAINED_PODS]}
        verdicts = r.filter_verdicts()
        for p in r.pending():
            m = matrices[p.key]
            rows = [v for v in verdicts if v["pod"] == p.key and v["attempt"] == p.attempts]
            assert m["attempt"] == p.attempts
            assert sum(g["count"] for g in m["groups"]) == len(rows) == len(r.nodes)
            assert {g["plugin"] for g in m["groups"]} == {v["plugin"] for v in rows}


def test_waits_include_never_bound_pods(runs) -> None:
    """The wait distribution counts every pod of the run, the never-bound ones censored, so the
    CDF ends below 100% by their share."""
    _, results = runs
    waits = report_data(results)["waits"]
    for r in results:
        counts = waits["counts"][r.config]
        assert counts["never_bound"] == len(r.pending())
        assert counts["bound"] + counts["never_bound"] == r.metrics.pods
        assert waits["cdf"][r.config][-1] == pytest.approx(100.0)


def test_placement_data_is_each_runs_placements(runs) -> None:
    """What the page's diff of any two configurations is computed from: per configuration,
    each pod ever bound and its last node in the run's order, its nodes in order, and the pods
    running per node at the end -- and the two runs do place pods differently."""
    _, results = runs
    data = report_data(results)["placements"]
    pods, nodes = data["pods"], data["nodes"]
    for r in results:
        got = data["configs"][r.config]
        assert [(pods[i], nodes[j]) for i, j in got["placed"]] == [(p.key, p.node) for p in r.pods if p.node]
        assert [nodes[i] for i in got["nodes"]] == [n.node for n in r.nodes]
        running = {nodes[i]: n for i, n in got["running"]}
        assert running == {n.node: c for n in r.nodes
                           if (c := sum(1 for p in r.pods if p.node == n.node and p.state == "Running"))}
    a, b = results
    assert a.placements() != b.placements()
    assert data["max_moved"] == MAX_MOVED_ROWS


def test_page_is_self_contained_and_escaped(runs, tmp_path: Path) -> None:
    """No external resource (script, stylesheet, image, font), and pod text cannot end the
    data's script element."""
    _, results = runs
    page = build_report(results, title="</script><b>x</b>", description="a & b")
    assert "</script><b>" not in page
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page
    srcs: list[tuple[str, str]] = []

    class Refs(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            for k, v in attrs:
                if k in ("src", "href") and v and not v.startswith("#"):
                    srcs.append((tag, v))

    Refs().feed(page)
    assert srcs == []
    assert not re.search(r"https?://[^\s\"')]*\.(?:js|css)\b", page)
    assert _data(page)["configs"] == [r.config for r in results]
    size = write_report(tmp_path / "r.html", results, title="</script><b>x</b>", description="a & b")
    assert size == len(page.encode()) == (tmp_path / "r.html").stat().st_size


@pytest.mark.parametrize(("name", "needle"), [
    ("out.pdf", "ending in .html (got .pdf)"),
    ("out", "ending in .html (got no suffix)"),
    ("missing/out.html", "no such directory"),
])
def test_bad_paths_are_refused(tmp_path: Path, name: str, needle: str) -> None:
    """A report path that cannot work: a ReportError (a ValueError) saying why."""
    with pytest.raises(ReportError, match=re.escape(needle)):
        check_report_path(tmp_path / name)
    (tmp_path / "d.html").mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        check_report_path(tmp_path / "d.html")


def test_no_results_is_an_error() -> None:
    """A report of nothing: an error, not an empty page."""
    with pytest.raises(ReportError, match="no results"):
        build_report([])


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


@pytest.mark.parametrize(("argv", "needle"), [
    (("--report", "out.pdf"), "ending in .html"),
    (("--report", "no/such/dir/r.html"), "no such directory"),
])
def test_cli_bad_report_fails_before_the_run(tmp_path: Path, capsys, monkeypatch,
                                             argv: tuple[str, ...], needle: str) -> None:
    """A bad ``--report``: one line naming it, exit 2, nothing simulated or written."""
    monkeypatch.chdir(tmp_path)
    code, text = _run("simulate", "--plain", *argv)
    assert code == 2
    assert text == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--report" in err[0]
    assert needle in err[0]
    assert not list(tmp_path.iterdir())


def test_cli_writes_the_report_even_when_the_reader_goes_away(tmp_path: Path) -> None:
    """``simulate --report F | head``: exit 141, and F written in full all the same, with one
    heat-map node per node of the built-in scenario."""

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    path = tmp_path / "run.html"
    assert main(["simulate", "--plain", "--report", str(path)], stdout=Closed()) == _common.EXIT_BROKEN_PIPE
    data = _data(path.read_text(encoding="utf-8"))
    s = builtin_scenario()
    assert data["configs"] == [c.name for c in s.configs]
    assert len(data["heatmap"]["nodes"]) == len(simulate(s).nodes)
    assert path.read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_cli_says_where_the_report_is(tmp_path: Path) -> None:
    """The text report ends with the report's size and path."""
    path = tmp_path / "run.html"
    code, text = _run("simulate", "--plain", "--report", str(path))
    assert code == 0
    assert f"report ({path.stat().st_size:,} bytes) written to {path}" in text


def test_last_failed_verdicts_are_the_pending_pods_last_attempts(runs) -> None:
    """``RecordDecisions(last_failed_verdicts=True)`` (what ``--report`` records) keeps exactly
    the full table's rows of each pending pod's last attempt, and the report's matrices agree."""
    s, results = runs
    for full in results:
        light = simulate(s, full.config, decisions=RecordDecisions(last_failed_verdicts=True))
        last = {p.key: p.attempts for p in full.pending()}
        want = [v for v in full.filter_verdicts() if last.get(v["pod"]) == v["attempt"]]
        assert sorted(map(tuple, (d.values() for d in light.filter_verdicts()))) == sorted(
            map(tuple, (d.values() for d in want)))
        assert len(want) == len(full.nodes) * len(last)
        assert report_data([light])["pending"][full.config]["matrices"] == \
            report_data([full])["pending"][full.config]["matrices"]
