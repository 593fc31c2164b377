"""``schedframe.sweep``: many runs in parallel -- simulations, GPU-sharing experiments, plans or
any importable function -- on any :class:`concurrent.futures.Executor` (a local process pool by
default, Dask through :func:`dask_executor`), with rows streamed to CSV, JSON lines or Parquet as
runs finish and ``resume`` skipping the runs already written.

What lives here: the spec and its grid (``SweepSpec``, ``grid``, ``load_sweep_spec``), the runner
(``sweep``, ``_runner``), the output files (``_files``) and the interrupt handling of a pool
(``_interrupts``).

It may import ``schedframe.sim`` and the layers below it; never ``plan``, ``gpushare``, ``bench``
or ``cli`` (their tasks are named by import path and loaded when a run needs them).
"""

from __future__ import annotations

from ._files import SweepError
from ._runner import (
    BUILTIN_TASKS,
    PATH_PARAMS,
    Run,
    RunOutcome,
    SweepResult,
    SweepSpec,
    dask_executor,
    grid,
    load_sweep_spec,
    read_table,
    simulate_task,
    sweep,
)

__all__ = [
    "BUILTIN_TASKS",
    "PATH_PARAMS",
    "Run",
    "RunOutcome",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "dask_executor",
    "grid",
    "load_sweep_spec",
    "read_table",
    "simulate_task",
    "sweep",
]
