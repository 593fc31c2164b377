"""One self-contained HTML page of one or more simulation runs (``schedframe simulate --report
FILE.html``): the summary per configuration, utilisation over time, a per-node heat map, the
pending pods by FitError reason with each one's Filter verdicts and scores, the wait-time
distribution, and the node-by-node placement diff of two configurations.

The page needs no network: its data is one JSON document, and its script, its stylesheet and
the charting library (uPlot, MIT, vendored in ``_vendor/`` by ``scripts/vendor-uplot.sh``) are
inlined. The HTML is built here with the standard library (every text escaped, the JSON made
safe inside ``<script>``); the page's own script (``_page.js``) draws from the data.

The matrix of a pending pod comes from the run's decision tables (:mod:`schedframe.sim.decisions`)
of its last attempt: each node's Filter verdict, grouped by rejecting plugin and reason, and the
best-scoring nodes with each Score plugin's share. The report needs them recorded: each pod's
last failed attempt is enough (``RecordDecisions(last_failed_only=True)``, what ``--report``
asks for; ``last_failed_verdicts=True`` or ``filter_verdicts=True`` do too); without them the
pending pods are listed without a matrix.

A sweep's page (``schedframe sweep --report FILE.html``, :func:`write_sweep_report`) is a
summary of its points, from the sweep's rows: a table of the runs and a chart of a metric over
the parameters.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

from ._build import (
    MAX_EXPLAINED_PODS,
    MAX_MOVED_ROWS,
    MAX_SERIES_POINTS,
    ReportError,
    build_report,
    check_report_path,
    node_labels,
    write_report,
)
from ._sweep import MAX_SWEEP_POINTS, MAX_SWEEP_ROWS, build_sweep_report, write_sweep_report

__all__ = [
    "MAX_EXPLAINED_PODS",
    "MAX_MOVED_ROWS",
    "MAX_SERIES_POINTS",
    "MAX_SWEEP_POINTS",
    "MAX_SWEEP_ROWS",
    "ReportError",
    "build_report",
    "build_sweep_report",
    "check_report_path",
    "node_labels",
    "write_report",
    "write_sweep_report",
]
