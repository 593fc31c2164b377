"""GPU sharing and the FGD paper's scorers (Weng et al., USENIX ATC '23), on the framework's
public surface.

Layer: above ``scheduler``, ``plugins``, ``config`` and below ``bench`` and ``cli``; it registers
its plugins in a :class:`~schedframe.Registry` and runs them in a real
:class:`~schedframe.Scheduler`. Optional extras (rich for progress) are imported lazily.
"""

from __future__ import annotations

from ._frag import FragModel, TypicalPod, fgd_score, sigmoid, typical_pods
from ._model import (
    ANNOTATION_GPU_COUNT,
    ANNOTATION_GPU_INDEX,
    ANNOTATION_GPU_MILLI,
    ANNOTATION_GPU_MODEL,
    LABEL_GPU_MODEL,
    MILLI,
    RESOURCE_GPU_COUNT,
    GpuLedger,
    GpuRequest,
    NodeGpu,
    gpu_request,
)
from .experiment import (
    POLICIES,
    TIE_BREAKS,
    RunResult,
    alloc_curve,
    run_experiment,
    scheduler_config,
    tune_tasks,
)
from .openb import TraceNode, TraceTask, load_nodes, load_tasks, read_nodes, read_tasks
from .plugins import (
    BestFitScore,
    DotProductScore,
    FGDScore,
    FGDScoreArgs,
    GpuClusteringScore,
    GpuPackingScore,
    OpenGpuShare,
    OpenGpuShareArgs,
    RandomScore,
    RandomScoreArgs,
    gpushare_registry,
    ledger_of,
    register_gpushare_plugins,
)
from .results import (
    PAPER_ALLOC_AT_100,
    POLICY_ORDER,
    PolicySummary,
    mean_curves,
    plot_alloc,
    read_results,
    summarise,
    trace_name,
)

__all__ = [
    "ANNOTATION_GPU_COUNT",
    "ANNOTATION_GPU_INDEX",
    "ANNOTATION_GPU_MILLI",
    "ANNOTATION_GPU_MODEL",
    "LABEL_GPU_MODEL",
    "MILLI",
    "PAPER_ALLOC_AT_100",
    "POLICIES",
    "POLICY_ORDER",
    "RESOURCE_GPU_COUNT",
    "TIE_BREAKS",
    "BestFitScore",
    "DotProductScore",
    "FGDScore",
    "FGDScoreArgs",
    "FragModel",
    "GpuClusteringScore",
    "GpuLedger",
    "GpuPackingScore",
    "GpuRequest",
    "NodeGpu",
    "OpenGpuShare",
    "OpenGpuShareArgs",
    "PolicySummary",
    "RandomScore",
    "RandomScoreArgs",
    "RunResult",
    "TraceNode",
    "TraceTask",
    "TypicalPod",
    "alloc_curve",
    "fgd_score",
    "gpu_request",
    "gpushare_registry",
    "ledger_of",
    "load_nodes",
    "load_tasks",
    "mean_curves",
    "plot_alloc",
    "read_nodes",
    "read_results",
    "read_tasks",
    "register_gpushare_plugins",
    "run_experiment",
    "scheduler_config",
    "sigmoid",
    "summarise",
    "trace_name",
    "tune_tasks",
    "typical_pods",
]
