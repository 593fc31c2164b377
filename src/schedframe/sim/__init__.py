"""``schedframe.sim``: a discrete-event cluster simulator driving the real
:class:`~schedframe.Scheduler` on a virtual clock.

What lives here: scenarios (``scenario``: the file format and its Python classes, materialised
into a :class:`Plan` per seed), the event loop (``engine``), results as picklable data
(``results``), :func:`simulate`, :func:`compare` (what-if) and :func:`replay` of an event log
(``run``), and the built-in scenarios (``builtin``).

It may import ``schedframe.scheduler``, ``schedframe.testing`` and the layers below them; never
``bench``, ``gpushare`` or ``cli``. A run is a pure function of (scenario, configuration, seed)
and its result pickles, so sweeps can farm runs out to any executor.
"""

from __future__ import annotations

from .builtin import BUILTIN_SCENARIOS, DEFAULT_SCENARIO, builtin_scenario, large_scenario
from .engine import LOG_VERSION, Progress, run_plan
from .results import (
    DELETED,
    EVICTED,
    PENDING,
    PREEMPTED,
    RUNNING,
    SUCCEEDED,
    Metrics,
    NodeSeries,
    Perf,
    PodResult,
    Sample,
    SimResult,
    percentile,
)
from .run import Comparison, compare, moved_pods, read_log, replay, resolve_configs, simulate
from .scenario import (
    DURATION_ANNOTATION,
    Arrival,
    ConfigSpec,
    Distribution,
    NodeEvent,
    Plan,
    PlannedArrival,
    Scale,
    Scenario,
    Workload,
    WorkloadInfo,
)

__all__ = [
    "BUILTIN_SCENARIOS",
    "DEFAULT_SCENARIO",
    "DELETED",
    "DURATION_ANNOTATION",
    "EVICTED",
    "LOG_VERSION",
    "PENDING",
    "PREEMPTED",
    "RUNNING",
    "SUCCEEDED",
    "Arrival",
    "Comparison",
    "ConfigSpec",
    "Distribution",
    "Metrics",
    "NodeEvent",
    "NodeSeries",
    "Perf",
    "Plan",
    "PlannedArrival",
    "PodResult",
    "Progress",
    "Sample",
    "Scale",
    "Scenario",
    "SimResult",
    "Workload",
    "WorkloadInfo",
    "builtin_scenario",
    "compare",
    "large_scenario",
    "moved_pods",
    "percentile",
    "read_log",
    "replay",
    "resolve_configs",
    "run_plan",
    "simulate",
]
