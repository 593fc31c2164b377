"""``schedframe.sim``: a discrete-event cluster simulator driving the real
:class:`~schedframe.Scheduler` on a virtual clock.

What lives here: scenarios (``scenario``: the file format and its Python classes, materialised
into a :class:`Plan` per seed), the event loop (``engine``), results as picklable data
(``results``), :func:`simulate`, :func:`compare` (what-if) and :func:`replay` of an event log
(``run``) and the built-in scenarios (``builtin``). Sweeps of many runs are
:mod:`schedframe.sweep`, the layer above.

It may import ``schedframe.scheduler``, ``schedframe.testing`` and the layers below them; never
``bench``, ``gpushare`` or ``cli``. A run is a pure function of (scenario, configuration, seed)
and its result pickles, so a sweep can farm runs out to any executor.
"""

from __future__ import annotations

from typing import Any, Final

from .builtin import BUILTIN_SCENARIOS, DEFAULT_SCENARIO, builtin_scenario, large_scenario
from .decisions import (
    DECISION_COLUMNS,
    VERDICT_COLUMNS,
    DecisionsError,
    DecisionTable,
    MissingPackageError,
    RecordDecisions,
)
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
from .usage import USAGE_ANNOTATION, SimulatedMetricsProvider, UsageModel, UsagePoint, parse_usage

__all__ = [
    "Arrival",
    "BUILTIN_SCENARIOS",
    "Comparison",
    "ConfigSpec",
    "DECISION_COLUMNS",
    "DEFAULT_SCENARIO",
    "DELETED",
    "DURATION_ANNOTATION",
    "DecisionTable",
    "DecisionsError",
    "Distribution",
    "EVICTED",
    "FAILED",
    "GangBlock",
    "LOG_VERSION",
    "Metrics",
    "MissingPackageError",
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
    "RecordDecisions",
    "SUCCEEDED",
    "Sample",
    "SimulatedMetricsProvider",
    "Scale",
    "Scenario",
    "SimResult",
    "USAGE_ANNOTATION",
    "UsageModel",
    "UsagePoint",
    "VERDICT_COLUMNS",
    "Workload",
    "WorkloadInfo",
    "builtin_scenario",
    "compare",
    "large_scenario",
    "moved_pods",
    "parse_usage",
    "percentile",
    "read_log",
    "replay",
    "resolve_configs",
    "run_plan",
    "simulate",
]


#: Names that moved to :mod:`schedframe.sweep`, the layer above this one.
_MOVED_TO_SWEEP: Final = frozenset({"Run", "RunOutcome", "SweepError", "SweepResult", "SweepSpec",
                                    "dask_executor", "grid", "load_sweep_spec", "read_table", "sweep"})


def __getattr__(name: str) -> Any:
    if name in _MOVED_TO_SWEEP:
        import importlib
        import warnings

        warnings.warn(f"schedframe.sim.{name} has moved: import it from schedframe.sweep",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("schedframe.sweep"), name)
    raise AttributeError(f"module 'schedframe.sim' has no attribute {name!r}")
