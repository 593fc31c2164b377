"""Placeholder (the sim helper's branch brings the real package)."""

from .sweep import (
    Run,
    RunOutcome,
    SweepError,
    SweepResult,
    SweepSpec,
    dask_executor,
    grid,
    load_sweep_spec,
    sweep,
)

__all__ = [
    "Run",
    "RunOutcome",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "dask_executor",
    "grid",
    "load_sweep_spec",
    "sweep",
]
