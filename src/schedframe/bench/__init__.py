"""A scheduler_perf-style benchmark suite: ``python -m schedframe.bench``.

A top layer: may import the scheduler, testing and everything below them; nothing below imports
``bench``.

kube-scheduler's own benchmark (``test/integration/scheduler_perf``) workloads, rebuilt with
schedframe objects and run on a deterministic :class:`~schedframe.Scheduler` (seed 0): pods/s
against upstream's throughput floor, per-attempt latency percentiles, peak memory, and a check
that every measured pod was bound. Run it on your own profile (``--config``) and plugins
(``--plugin``, or installed entry points), or from Python::

    from schedframe.bench import get_workload, run_workload
    result = run_workload(get_workload("SchedulingBasic/5000Nodes_10000Pods").scaled(0.01))
    print(result.pods_per_second, result.latency_p99_ms)

``python -m schedframe.bench soak`` (or :func:`run_soak`) is the long run: pods arriving and
leaving for minutes on a few hundred nodes, with RSS, throughput and the scheduler's invariants
checked per interval.

``python -m schedframe.bench realistic`` runs workloads that look like real clusters (mixed node
and pod shapes, the openb trace's sizes) beside uniform variants of the same size, and
``python -m schedframe.bench skippy`` (or :func:`run_comparison`) compares schedframe with
skippy-core on the same work.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

from ._cli import main
from ._model import BenchmarkError, BenchPodGroup, BenchWorkload, Churn, NodeGroup
from ._realistic import openb_dir
from ._report import SCHEMA, format_profile, format_ratios, format_table, machine_info, make_record
from ._runner import (
    BenchOptions,
    WorkloadResult,
    build_registry,
    load_config,
    run_named,
    run_suite,
    run_workload,
    summarize,
)
from ._skippy import format_comparison, run_comparison, run_skippy, skippy_available
from ._soak import SoakInterval, SoakOptions, SoakReport, check_invariants, format_soak, run_soak
from ._workloads import (
    WORKLOADS,
    default_node,
    default_pod,
    get_workload,
    select_workloads,
)

__all__ = [
    "SCHEMA",
    "WORKLOADS",
    "BenchOptions",
    "BenchPodGroup",
    "BenchWorkload",
    "BenchmarkError",
    "Churn",
    "NodeGroup",
    "SoakInterval",
    "SoakOptions",
    "SoakReport",
    "WorkloadResult",
    "build_registry",
    "check_invariants",
    "default_node",
    "default_pod",
    "format_comparison",
    "format_profile",
    "format_ratios",
    "format_soak",
    "format_table",
    "get_workload",
    "load_config",
    "machine_info",
    "main",
    "make_record",
    "openb_dir",
    "run_comparison",
    "run_named",
    "run_skippy",
    "run_soak",
    "run_suite",
    "run_workload",
    "select_workloads",
    "skippy_available",
    "summarize",
]
