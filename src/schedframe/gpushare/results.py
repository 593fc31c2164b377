"""Results of many openb runs: the table at 100 % arrived beside the paper's figures, and the
allocation-against-arrival plot (matplotlib, the ``plot`` extra, imported lazily).

The rows are :meth:`RunResult.to_dict <schedframe.gpushare.RunResult.to_dict>` mappings, one
per run, e.g. the JSON lines ``schedframe gpushare run --json`` prints or
``benchmarks/gpushare_sweep.py`` appends.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from .._textio import parse_json, read_text
from ..errors import GpuShareError
from .openb import file_error

__all__ = [
    "PAPER_ALLOC_AT_100",
    "POLICY_ORDER",
    "PolicySummary",
    "mean_curves",
    "plot_alloc",
    "read_results",
    "summarise",
    "trace_name",
]

#: The six policies in the paper's order (worst to best on the default trace).
POLICY_ORDER: Final = ("Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD")

#: The authors' published GPU allocation (% of capacity) when the arrived GPU request reaches
#: 100 % of capacity, mean over seeds 42-51, per trace and policy: the FGD artefact
#: (hkust-adsl/kubernetes-scheduler-simulator), ``experiments/analysis/expected_results/
#: analysis_allo_discrete.csv``, column ``100``.
PAPER_ALLOC_AT_100: Final[Mapping[str, Mapping[str, float]]] = {
    "default": {"Random": 86.30, "DotProd": 90.62, "GpuClustering": 91.65, "GpuPacking": 91.78,
                "BestFit": 92.86, "FGD": 95.23},
    "cpu050": {"Random": 89.02, "DotProd": 93.03, "GpuClustering": 93.52, "GpuPacking": 93.46,
               "BestFit": 93.56, "FGD": 95.00},
    "cpu200": {"Random": 83.03, "DotProd": 87.46, "GpuClustering": 89.67, "GpuPacking": 89.98,
               "BestFit": 92.15, "FGD": 94.82},
    "gpushare40": {"Random": 84.86, "DotProd": 89.30, "GpuClustering": 89.76, "GpuPacking": 89.77,
                   "BestFit": 91.44, "FGD": 93.96},
    "gpushare100": {"Random": 78.90, "DotProd": 81.98, "GpuClustering": 82.22, "GpuPacking": 82.13,
                    "BestFit": 84.62, "FGD": 86.64},
    "multigpu20": {"Random": 86.92, "DotProd": 91.85, "GpuClustering": 93.34, "GpuPacking": 93.50,
                   "BestFit": 93.73, "FGD": 95.53},
    "multigpu50": {"Random": 81.28, "DotProd": 94.73, "GpuClustering": 95.69, "GpuPacking": 96.06,
                   "BestFit": 95.62, "FGD": 97.09},
    "gpuspec20": {"Random": 85.90, "DotProd": 88.29, "GpuClustering": 89.11, "GpuPacking": 89.28,
                  "BestFit": 88.46, "FGD": 94.66},
    "gpuspec33": {"Random": 83.87, "DotProd": 79.82, "GpuClustering": 81.09, "GpuPacking": 82.22,
                  "BestFit": 80.40, "FGD": 87.84},
}

_PREFIX: Final = "openb_pod_list_"
#: The largest results file read (one JSON line of about 3 KB per run).
MAX_RESULTS_BYTES: Final = 256 * 1024 * 1024


def trace_name(trace: str) -> str:
    """``openb_pod_list_default`` (a file's stem) or ``default`` -> ``default``."""
    return trace[len(_PREFIX):] if trace.startswith(_PREFIX) else trace


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The runs in a JSON Lines file, the last one kept when a (trace, seed, policy) repeats.

    Raises:
        GpuShareError: the file cannot be read, or a line is not a run (``runs.jsonl:3: ...``).
    """
    where = os.fspath(path)
    text = read_text(where, max_bytes=MAX_RESULTS_BYTES, what="the results file",
                     error=file_error(where))
    lines = text.splitlines()
    rows: dict[tuple[str, int, str], dict[str, Any]] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row = parse_json(line, error=_line_error(f"{where}:{n}"))
        _check_row(row, f"{where}:{n}")
        rows[(trace_name(row["trace"]), row["seed"], row["policy"])] = row
    return list(rows.values())


def _line_error(where: str) -> Callable[[str], GpuShareError]:
    return lambda message: GpuShareError(where, message)


def _check_row(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise GpuShareError(where, "expected a JSON object (one run)")
    for key, kind in (("trace", str), ("seed", int), ("policy", str), ("alloc_pct", list)):
        if not isinstance(row.get(key), kind) or isinstance(row.get(key), bool):
            raise GpuShareError(f"{where}: {key}", f"expected a {kind.__name__}, got {row.get(key)!r:.40}")


@attrs.frozen
class PolicySummary:
    """One policy on one trace over its seeds: the allocation (% of GPU capacity) when the
    arrived request reached *at* % of capacity.

    .. versionadded:: 0.1.0
    """

    trace: str
    policy: str
    seeds: tuple[int, ...]
    mean: float
    low: float
    high: float
    #: the paper's mean over seeds 42-51 (:data:`PAPER_ALLOC_AT_100`), when *at* is 100
    paper: float | None

    @property
    def diff(self) -> float | None:
        """``mean - paper`` in percentage points (``None`` without a paper figure)."""
        return None if self.paper is None else self.mean - self.paper

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (``diff`` included)."""
        out = attrs.asdict(self)
        out["seeds"] = list(self.seeds)
        out["diff"] = self.diff
        return out


def _order(policy: str) -> tuple[int, str]:
    return (POLICY_ORDER.index(policy) if policy in POLICY_ORDER else len(POLICY_ORDER), policy)


def summarise(rows: Iterable[Mapping[str, Any]], at: int = 100) -> list[PolicySummary]:
    """Per trace and policy, the mean, min and max over seeds of ``alloc_pct[at]`` (runs with no
    value there are left out), in trace then paper order."""
    if not 0 <= at <= 130:
        raise GpuShareError("at", f"expected 0..130 (% of capacity arrived), got {at}")
    by: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for row in rows:
        curve = row["alloc_pct"]
        value = curve[at] if at < len(curve) else None
        if value is None:
            continue
        by.setdefault((trace_name(row["trace"]), row["policy"]), []).append((row["seed"], float(value)))
    out = []
    for (trace, policy), runs in sorted(by.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        values = [v for _, v in runs]
        paper = PAPER_ALLOC_AT_100.get(trace, {}).get(policy) if at == 100 else None
        out.append(PolicySummary(trace, policy, tuple(sorted(s for s, _ in runs)),
                                 math.fsum(values) / len(values), min(values), max(values), paper))
    return out


def mean_curves(rows: Iterable[Mapping[str, Any]], trace: str) -> dict[str, list[float | None]]:
    """Per policy of *trace*, the mean over seeds of ``alloc_pct`` at each point (``None`` where
    no run has a value)."""
    curves: dict[str, list[Sequence[float | None]]] = {}
    for row in rows:
        if trace_name(row["trace"]) == trace_name(trace):
            curves.setdefault(row["policy"], []).append(row["alloc_pct"])
    out: dict[str, list[float | None]] = {}
    for policy in sorted(curves, key=_order):
        runs = curves[policy]
        width = max(len(c) for c in runs)
        mean: list[float | None] = []
        for k in range(width):
            values = [c[k] for c in runs if k < len(c) and c[k] is not None]
            mean.append(math.fsum(v for v in values if v is not None) / len(values) if values else None)
        out[policy] = mean
    return out


def plot_alloc(rows: Iterable[Mapping[str, Any]], trace: str, path: str | os.PathLike[str], *,
               start: int = 50) -> None:
    """Save the allocation-against-arrival plot of *trace* to *path*: per policy, the mean over
    seeds of the GPU allocation (% of capacity) against the arrived GPU request (% of capacity),
    from *start* % to 130 %, with the ideal (allocation = arrival) for reference.

    Raises:
        GpuShareError: matplotlib is not installed (the ``plot`` extra), or no runs of *trace*.
    """
    curves = mean_curves(rows, trace)
    if not curves:
        raise GpuShareError("trace", f"no runs of trace {trace!r}")
    try:
        import matplotlib
    except ImportError:
        raise GpuShareError("plot", "plots need matplotlib: pip install 'schedframe[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    ax.plot([start, 100, 130], [start, 100, 100], color="0.6", linestyle=":", label="ideal")
    for policy, mean in curves.items():
        points = [(k, v) for k in range(start, len(mean)) if (v := mean[k]) is not None]
        ax.plot([k for k, _ in points], [v for _, v in points], label=policy)
    ax.set_xlabel("arrived GPU request (% of cluster GPU capacity)")
    ax.set_ylabel("GPU allocation (% of capacity)")
    ax.set_title(f"openb {trace_name(trace)}: mean over seeds")
    ax.set_xlim(start, 130)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.savefig(os.fspath(path), dpi=110)
    plt.close(fig)
