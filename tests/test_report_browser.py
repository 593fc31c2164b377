"""The HTML report in a real browser (headless Chromium through Playwright): it renders with no
console error, has one heat-map cell per node, shows a pending pod's matrix on a click, and
reads at a desktop and a phone width. Skips without Chromium or Playwright."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from schedframe.sim import ConfigSpec, RecordDecisions, simulate
from schedframe.sim.report import node_labels, write_report, write_sweep_report

from .test_report import scenario

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = (os.environ.get("SCHEDFRAME_CHROMIUM") or shutil.which("chromium")
            or shutil.which("chromium-browser"))
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The test scenario's report under both configurations, and its results."""
    s = scenario()
    results = [simulate(s, spec.name, decisions=RecordDecisions(filter_verdicts=True)) for spec in s.configs]
    path = tmp_path_factory.mktemp("report") / "run.html"
    write_report(path, results, title=s.name, labels=node_labels(s.plan(0)))
    return path, results


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (the system's) for the module."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, path: Path, width: int, height: int = 900):
    page = browser.new_page(viewport={"width": width, "height": height})
    problems: list[str] = []
    page.on("console",
            lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request",
            lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready='1']")
    return page, problems


@pytest.mark.parametrize("width", [1280, 390])
def test_renders_without_errors_and_without_overflow(browser, report, width: int) -> None:
    """No console error or warning, no network request, charts drawn, and the body no wider
    than the viewport."""
    path, _ = report
    page, problems = _open(browser, path, width)
    assert problems == []
    charts = page.locator("#util-charts .uplot").count()
    data = "JSON.parse(document.getElementById('report-data').textContent)"
    assert charts == page.evaluate(f"Object.keys({data}.utilisation.charts).length")
    assert page.locator("#wait-chart .uplot").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
    page.close()


def test_heat_map_has_one_cell_per_node_and_filters(browser, report) -> None:
    """One cell per node of the run; the label filter shows exactly the nodes with the label."""
    path, results = report
    page, problems = _open(browser, path, 1280)
    assert page.locator("#hm-grid .cell").count() == len(results[0].nodes)
    page.select_option("#hm-label", label="pool=big")
    big = [n for n, labels in node_labels(scenario().plan(0)).items() if labels.get("pool") == "big"]
    shown = page.eval_on_selector_all("#hm-grid .cell:not(.off)", "cs => cs.map(c => c.dataset.node)")
    assert sorted(shown) == sorted(big)
    page.fill("#hm-name", big[0])
    shown = page.eval_on_selector_all("#hm-grid .cell:not(.off)", "cs => cs.map(c => c.dataset.node)")
    assert shown == [big[0]]
    assert problems == []
    page.close()


def test_clicking_a_pending_pod_shows_its_matrix(browser, report) -> None:
    """Every pending pod is listed; clicking one shows its Filter verdicts, whose node counts
    add up to the nodes of the run."""
    path, results = report
    r = results[0]
    page, problems = _open(browser, path, 390)
    listed = page.eval_on_selector_all("#pd-groups button.pod", "bs => bs.map(b => b.dataset.pod)")
    assert sorted(listed) == sorted(p.key for p in r.pending())
    pod = r.pending()[-1]
    page.evaluate("document.querySelectorAll('#pd-groups details').forEach(d => d.open = true)")
    page.click(f"#pd-groups button.pod[data-pod='{pod.key}']")
    assert page.get_attribute("#pd-matrix", "data-pod") == pod.key
    counts = page.eval_on_selector_all("#pd-matrix table tbody tr",
                                       "rs => rs.map(r => Number(r.cells[5].textContent))")
    assert sum(counts) == len(r.nodes)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
    assert problems == []
    page.close()


# -- the sweep page ---------------------------------------------------------------------------------

#: A sweep's rows as SweepResult.rows() gives them: two configurations x three sizes x two seeds,
#: one failed run.
SWEEP_ROWS = [
    {"run": f"{i:016x}", "task": "simulate", "status": "ok", "error": "", "seconds": 0.5 + i,
     "scenario": "s.yaml", "config": config, "nodes": nodes, "seed": seed,
     "placed": 10 * nodes + seed + (5 if config == "packing" else 0), "pending": 3 - seed,
     "utilisation_mean.cpu": 0.1 * seed, "wait_p99": 2.0 * nodes, "wait_lower_bound": ["p99"]}
    for i, (config, nodes, seed) in enumerate(
        (c, n, s) for c in ("default", "packing") for n in (4, 8, 16) for s in (1, 2))
]
SWEEP_ROWS[-1] = {**{k: v for k, v in SWEEP_ROWS[-1].items() if k in (
    "run", "task", "scenario", "config", "nodes", "seed")}, "status": "failed", "error": "Boom: no",
    "seconds": 0.1}


@pytest.fixture(scope="module")
def sweep_page(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "sweep.html"
    write_sweep_report(path, SWEEP_ROWS, params=["scenario", "config", "nodes", "seed"], title="grid")
    return path


def _plot(page) -> dict:
    return json.loads(page.get_attribute("#sw-chart", "data-plot"))


@pytest.mark.parametrize("width", [1280, 390])
def test_sweep_page_renders_without_errors_and_without_overflow(browser, sweep_page, width: int) -> None:
    """No console error, no network request, one chart, the body no wider than the viewport."""
    page, problems = _open(browser, sweep_page, width)
    assert problems == []
    assert page.locator("#sw-chart .uplot").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
    page.close()


def test_sweep_chart_is_the_mean_over_the_other_parameters(browser, sweep_page) -> None:
    """By default the metric is ``placed``, x the numeric parameter with the most values
    (nodes), one line per value of the one with the fewest (config), each point the mean of the
    runs sharing both (the seeds), the failed run left out; other choices redraw it."""
    page, problems = _open(browser, sweep_page, 1280)
    plot = _plot(page)
    assert plot["x"] == ["4", "8", "16"]
    assert plot["lines"] == ["default", "packing"]
    ok = [r for r in SWEEP_ROWS if r["status"] == "ok"]

    def mean(metric: str, **match) -> float:
        vs = [r[metric] for r in ok if all(str(r[k]) == v for k, v in match.items())]
        return sum(vs) / len(vs)

    assert plot["y"] == [[mean("placed", config=c, nodes=n) for n in plot["x"]] for c in plot["lines"]]
    page.select_option("#sw-metric", "utilisation_mean.cpu")
    page.select_option("#sw-x", label="seed")
    page.select_option("#sw-by", label="one line (all runs)")
    plot = _plot(page)
    assert plot["x"] == ["1", "2"]
    assert plot["lines"] == ["all runs"]
    assert plot["y"] == [[pytest.approx(100 * mean("utilisation_mean.cpu", seed=s)) for s in ("1", "2")]]
    page.select_option("#sw-x", label="config")  # a category: one tick per value
    assert _plot(page)["x"] == ["default", "packing"]
    assert "1 failed or without it left out" in page.text_content("#sw-note")
    assert page.locator("#sw-chart .uplot").count() == 1
    assert problems == []
    page.close()


# -- the placement diff of any two configurations ---------------------------------------------------

#: A third configuration: no Score plugin (the tie-break places the pods).
NO_SCORES = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
             "profiles": [{"schedulerName": "default-scheduler",
                           "plugins": {"score": {"disabled": [{"name": "*"}]}}}]}


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """The test scenario's report under three configurations, and its results."""
    s = scenario()
    results = [simulate(s, spec.name) for spec in s.configs]
    results.append(simulate(s, ConfigSpec("no-scores", NO_SCORES)))
    path = tmp_path_factory.mktemp("three") / "run.html"
    write_report(path, results, title=s.name, labels=node_labels(s.plan(0)))
    return path, {r.config: r for r in results}


def _expected(a, b) -> tuple[int, list[list[str]]]:
    """The diff of runs *a* and *b* from their pods: how many pods are not on the same node,
    and per node (a's, then b's others) the pods running in each, moved away and moved here."""
    on_a, on_b = a.placements(), b.placements()
    moved = [k for k in dict.fromkeys([*on_a, *on_b]) if on_a.get(k) != on_b.get(k)]
    rows = []
    for node in dict.fromkeys([*(n.node for n in a.nodes), *(n.node for n in b.nodes)]):
        running = [sum(1 for p in r.pods if p.node == node and p.state == "Running") for r in (a, b)]
        away = sum(1 for k in moved if on_a.get(k) == node)
        here = sum(1 for k in moved if on_b.get(k) == node)
        rows.append([node, *map(str, (*running, away, here))])
    return len(moved), rows


def _shown(page) -> tuple[str, str, int, list[list[str]]]:
    body = page.locator("#diff-body")
    rows = page.eval_on_selector_all(
        "#diff-body > .scroll table tbody tr", "rs => rs.map(r => Array.from(r.cells, c => c.textContent))")
    moved = int(body.get_attribute("data-moved"))
    return body.get_attribute("data-a"), body.get_attribute("data-b"), moved, rows


def test_the_diff_compares_any_two_configurations(browser, three) -> None:
    """With three configurations the reader picks both sides: the first against the second
    at first, then any pair (either way round), each diff the one the runs' pods give; the same
    configuration twice compares nothing."""
    path, results = three
    page, problems = _open(browser, path, 1280)
    names = list(results)
    assert page.eval_on_selector_all("#diff-a option", "os => os.map(o => o.value)") == names
    assert page.eval_on_selector_all("#diff-b option", "os => os.map(o => o.value)") == names
    seen = set()
    for a, b in [("default", "packing"), ("default", "no-scores"), ("packing", "no-scores"),
                 ("no-scores", "default")]:
        page.select_option("#diff-a", a)
        page.select_option("#diff-b", b)
        moved, rows = _expected(results[a], results[b])
        assert _shown(page) == (a, b, moved, rows), (a, b)
        assert page.text_content("#diff-body h3") == f"{a} → {b}: {moved} pod(s) on another node"
        seen.add((moved, tuple(map(tuple, rows))))
    assert len(seen) == 4  # every pair shows another diff
    page.select_option("#diff-b", "no-scores")
    page.select_option("#diff-a", "no-scores")
    assert _shown(page)[2:] == (0, [])
    assert "same configuration" in page.text_content("#diff-body")
    assert problems == []
    page.close()


def test_the_diff_starts_with_the_first_two(browser, report, three) -> None:
    """The first configuration against the second when the page opens, with two or three."""
    for path, results in (report[0], {r.config: r for r in report[1]}), three:
        page, problems = _open(browser, path, 390)
        first, second = list(results)[:2]
        assert _shown(page) == (first, second, *_expected(results[first], results[second]))
        assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
        assert problems == []
        page.close()


# -- a plan's page -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plan_page(tmp_path_factory):
    """``schedframe plan --report`` of the built-in example, and the plan."""
    from schedframe.api.manifests import object_from_manifest
    from schedframe.plan import (
        EXAMPLE_CONFIG,
        example_cluster,
        example_templates,
        plan,
        plan_runs,
        templates_from_data,
        write_plan_report,
    )

    cluster = [object_from_manifest(m) for m in example_cluster()]
    result = plan(cluster, templates_from_data(example_templates()), config=EXAMPLE_CONFIG, scale_down=True)
    path = tmp_path_factory.mktemp("plan") / "plan.html"
    write_plan_report(path, cluster, result, config=EXAMPLE_CONFIG)
    return path, result, plan_runs(cluster, result, config=EXAMPLE_CONFIG)


@pytest.mark.parametrize("width", [1280, 390])
def test_plan_page_shows_the_emptied_node_and_why_pods_wait(browser, plan_page, width: int) -> None:
    """The plan's page: no console error, one heat-map cell per node of either run, the node
    the scale-down removes emptied in the diff, and the pod the plan leaves pending listed in
    the planned run with its matrix on a click."""
    path, result, (as_is, planned) = plan_page
    page, problems = _open(browser, path, width)
    nodes = {n.node for r in (as_is, planned) for n in r.nodes}
    assert page.locator("#hm-grid .cell").count() == len(nodes)
    rows = {r[0]: r for r in _shown(page)[3]}
    for name in result.scale_down.removable:
        assert rows[name][2] == "0"  # pods running there, planned
        assert int(rows[name][3]) > 0  # moved away
    page.select_option("#pd-config", "planned")
    listed = page.eval_on_selector_all("#pd-groups button.pod", "bs => bs.map(b => b.dataset.pod)")
    assert listed == list(result.pending)
    page.evaluate("document.querySelectorAll('#pd-groups details').forEach(d => d.open = true)")
    page.click(f"#pd-groups button.pod[data-pod='{result.pending[0]}']")
    assert page.get_attribute("#pd-matrix", "data-pod") == result.pending[0]
    counts = page.eval_on_selector_all("#pd-matrix table tbody tr",
                                       "rs => rs.map(r => Number(r.cells[5].textContent))")
    assert sum(counts) == len(planned.nodes)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
    assert problems == []
    page.close()
