"""The HTML report in a real browser (headless Chromium through Playwright): it renders with no
console error, has one heat-map cell per node, shows a pending pod's matrix on a click, and
reads at a desktop and a phone width. Skips without Chromium or Playwright."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from schedframe.sim import RecordDecisions, simulate
from schedframe.sim.report import node_labels, write_report

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
