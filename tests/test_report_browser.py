"""The HTML report in a real browser (headless Chromium through Playwright): it renders with no
console error, has one heat-map cell per node, shows a pending pod's matrix on a click, and
reads at a desktop and a phone width. Skips without Chromium or Playwright."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from schedframe.sim import RecordDecisions, simulate
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
