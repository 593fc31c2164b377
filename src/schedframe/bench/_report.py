"""Reports: the table, the JSON record, the machine, profiles."""

from __future__ import annotations

import datetime
import io
import os
import platform
import pstats
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._runner import WorkloadResult

__all__ = ["SCHEMA", "fixed_width", "format_profile", "format_ratios", "format_table", "machine_info",
           "make_record"]

#: The ``schema`` of the JSON record.
SCHEMA: Final = "schedframe-bench/1"


def machine_info() -> dict[str, Any]:
    """Python version, platform, CPUs, load: what a number needs beside it."""
    try:
        from importlib.metadata import version

        schedframe_version = version("schedframe")
    except Exception:  # pragma: no cover - not installed
        schedframe_version = "unknown"
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = None
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover - Windows
        load = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "load_average": load,
        "schedframe": schedframe_version,
    }


def make_record(suite: Sequence[tuple[WorkloadResult, Sequence[WorkloadResult]]],
                options: Mapping[str, Any], machine: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON record: schema, time, machine, options, and per workload the summary (medians)
    and every run."""
    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": dict(machine) if machine is not None else machine_info(),
        "options": dict(options),
        "results": [{**summary.to_dict(), "run_results": [r.to_dict() for r in runs]}
                    for summary, runs in suite],
    }


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def _check(r: WorkloadResult) -> str:
    passed = r.passed
    if passed is None:
        return "scaled" if r.scale != 1 and (r.floor or r.memory_target_mb) else "-"
    return "PASS" if passed else "FAIL"


_COLUMNS: Final = (
    ("workload", "<"), ("nodes", ">"), ("init", ">"), ("measured", ">"), ("pods/s", ">"),
    ("pods/cpu-s", ">"), ("floor", ">"), ("x floor", ">"), ("p50 ms", ">"), ("p99 ms", ">"),
    ("peak MiB", ">"), ("target MiB", ">"), ("unsched", ">"), ("check", "<"),
)


def format_table(results: Sequence[WorkloadResult]) -> str:
    """A fixed-width table: one row per workload."""
    rows = []
    for r in results:
        ratio = (r.pods_per_second / r.floor) if r.floor and r.pods_per_second is not None else None
        rows.append((
            r.workload, str(r.nodes), str(r.initial_pods), str(r.measured_pods),
            _num(r.pods_per_second, ".1f"), _num(r.pods_per_cpu_second, ".1f"), _num(r.floor, ".0f"),
            _num(ratio, ".2f"),
            _num(r.latency_p50_ms, ".2f"), _num(r.latency_p99_ms, ".2f"), _num(r.peak_rss_mb, ".1f"),
            _num(r.memory_target_mb, ".0f"), str(r.unscheduled), _check(r),
        ))
    return fixed_width(_COLUMNS, rows)


def fixed_width(columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]]) -> str:
    """*rows* under the headings of *columns* (``(heading, "<" or ">")``), each column as wide
    as its widest cell, a dashed rule under the headings."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, (h, _) in enumerate(columns)]
    lines = ["  ".join(format(h, f"{a}{w}") for (h, a), w in zip(columns, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(format(c, f"{a}{w}") for c, (_, a), w in zip(row, columns, widths)).rstrip())
    return "\n".join(lines)


def format_ratios(results: Sequence[WorkloadResult], baselines: Mapping[str, str | None]) -> str:
    """For each result whose workload names a baseline (its uniform variant) that is among
    *results*: how many times slower it is, per CPU second (empty when there is none)."""
    by_name = {r.workload: r for r in results}
    lines = []
    for r in results:
        base = by_name.get(baselines.get(r.workload) or "")
        if base is None or not r.pods_per_cpu_second or not base.pods_per_cpu_second:
            continue
        lines.append(f"{r.workload}: {base.pods_per_cpu_second / r.pods_per_cpu_second:.2f}x slower than "
                     f"{base.workload} (pods per CPU second {r.pods_per_cpu_second:.1f} vs "
                     f"{base.pods_per_cpu_second:.1f})")
    return "\n".join(lines)


def format_profile(path: str, top: int = 15) -> str:
    """The *top* functions of a pstats file by cumulative and by own time."""
    out = io.StringIO()
    stats = pstats.Stats(path, stream=out)
    stats.strip_dirs()
    out.write(f"--- {path}: top {top} by cumulative time\n")
    stats.sort_stats("cumulative").print_stats(top)
    out.write(f"--- {path}: top {top} by own time\n")
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()
