"""``schedframe.sim``: a discrete-event cluster simulator driving the real
:class:`~schedframe.Scheduler` on a virtual clock.

What lives here: scenarios (``scenario``: the file format and its Python classes, materialised
into a :class:`Plan` per seed), the event loop (``engine``), results as picklable data
(``results``), :func:`simulate`, :func:`compare` (what-if) and :func:`replay` of an event log
(``run``), the built-in scenarios (``builtin``), and :func:`sweep` of many runs on any
:class:`concurrent.futures.Executor` (``sweep``; Dask through :func:`dask_executor`).

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
    FAILED,
    PENDING,
    PREEMPTED,
    RUNNING,
    SUCCEEDED,
    GangBlock,
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
from .sweep import (
    Run,
    RunOutcome,
    SweepError,
    SweepResult,
    SweepSpec,
    dask_executor,
    grid,
    load_sweep_spec,
    read_table,
    sweep,
)
from .usage import USAGE_ANNOTATION, SimulatedMetricsProvider, UsageModel, UsagePoint, parse_usage

__all__ = [
    "Arrival",
    "BUILTIN_SCENARIOS",
    "Comparison",
    "ConfigSpec",
    "DEFAULT_SCENARIO",
    "DELETED",
    "DURATION_ANNOTATION",
    "Distribution",
    "EVICTED",
    "FAILED",
    "GangBlock",
    "LOG_VERSION",
    "Metrics",
    "NodeEvent",
    "NodeSeries",
    "PENDING",
    "PREEMPTED",
    "Perf",
    "Plan",
    "PlannedArrival",
    "PodResult",
    "Progress",
    "RUNNING",
    "Run",
    "RunOutcome",
    "SUCCEEDED",
    "Sample",
    "SimulatedMetricsProvider",
    "Scale",
    "Scenario",
    "SimResult",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "USAGE_ANNOTATION",
    "UsageModel",
    "UsagePoint",
    "Workload",
    "WorkloadInfo",
    "builtin_scenario",
    "compare",
    "dask_executor",
    "grid",
    "large_scenario",
    "load_sweep_spec",
    "moved_pods",
    "parse_usage",
    "percentile",
    "read_log",
    "read_table",
    "replay",
    "resolve_configs",
    "run_plan",
    "simulate",
    "sweep",
]
