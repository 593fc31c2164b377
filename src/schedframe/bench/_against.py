"""Side by side with Go kube-scheduler: ``python -m schedframe.bench --against kube-scheduler``.

Each workload runs twice on the same work:

* through schedframe, as the bench always runs it (its own process; the initial pods placed,
  then the measured pods scheduled until the queue is idle);
* through the oracle program of the release (``oracle/``: the real kube-scheduler of that
  ``k8s.io/kubernetes`` tag, built with Go) in its timing mode, ``oracle bench``: the cluster
  exactly as schedframe had it once its initial pods were placed (the same nodes, bound pods
  and objects), the same measured pods created before the clock starts, then
  ``Scheduler.Run`` until every measured pod is bound or nothing moves any more. Go runs with
  ``parallelism: 1`` and ``GOMAXPROCS=1`` (per CPU, the fair comparison), and again with the
  default ``parallelism`` (16) on this machine's cores.

Both sides report pods bound per CPU second of the measured phase, the latency of a cycle and the
peak RSS of the process, and the placements are compared (ties are broken at random on both
sides, so equal placements are not expected; equal counts are). What each side counts:

* schedframe's CPU is the process time of the measured loop; a cycle's latency is one
  ``schedule_one`` (scheduling and binding cycle).
* Go's CPU is the process time from ``Run`` to the last bind or failure: the scheduler, its
  informers and the in-process fake API server (much cheaper than a real API server and etcd;
  scheduler_perf runs both). Its latency is one ``SchedulePod`` (Filter and Score), without the
  binding cycle, which runs in its own goroutine. Its peak RSS holds the fake API server's copy
  of every object too.

A workload whose pods arrive during the measured phase (upstream's churn) gets them with the
measured pods on both sides instead. The oracle lives in the repository (``oracle/``), not in
the package: this needs a checkout of schedframe and Go.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final, final

import attrs

from ..framework.releases import NEWEST_RELEASE, SUPPORTED_RELEASES
from ._case import write_case, write_placements
from ._model import BenchmarkError, BenchWorkload
from ._report import fixed_width
from ._runner import BenchOptions, WorkloadResult, _isolated, run_named, summarize
from ._workloads import get_workload

__all__ = [
    "GO_DEFAULT_PARALLELISM",
    "Agreement",
    "GoRun",
    "SideBySide",
    "against_line",
    "format_against",
    "parse_against",
    "run_against",
    "write_case",
    "write_placements",
]

#: kube-scheduler's default ``parallelism``
GO_DEFAULT_PARALLELISM: Final = 16
#: the ``schema`` of the ``--json`` record of a side-by-side run
AGAINST_SCHEMA: Final = "schedframe-bench-against/1"
_TARGET: Final = "kube-scheduler"


def parse_against(value: str) -> str:
    """The release of ``kube-scheduler`` or ``kube-scheduler=1.36`` (default: the newest).

    Raises:
        BenchmarkError: anything else, or a release schedframe does not emulate.
    """
    target, _, release = value.partition("=")
    if target != _TARGET:
        raise BenchmarkError(f"--against: only {_TARGET}[=RELEASE] can be compared with, got {value!r}")
    release = release.strip().removeprefix("v") or NEWEST_RELEASE
    minor = ".".join(release.split(".")[:2])
    if minor not in SUPPORTED_RELEASES:
        raise BenchmarkError(f"--against: Kubernetes {release!r} is not emulated "
                             f"(releases: {', '.join(SUPPORTED_RELEASES)})")
    return minor


# --------------------------------------------------------------------------------------------
# results


def _r(value: Any, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)


@final
@attrs.frozen(kw_only=True)
class GoRun:
    """What one timing run of Go kube-scheduler measured (times in s, latency in ms, MiB)."""

    release: str
    parallelism: int
    gomaxprocs: int
    pods: int
    bound: int
    unschedulable: int
    attempts: int
    cpu_seconds: float
    wall_seconds: float
    pods_per_cpu_second: float | None
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    peak_rss_mb: float | None
    #: the time of the SchedulePod calls (Filter and Score) in all: the rest of ``cpu_seconds``
    #: is the binding cycles, the queue, the informers and the fake API server
    algorithm_seconds: float | None = None
    runs: int = 1

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> GoRun:
        """From the JSON object ``oracle bench`` prints."""
        try:
            return cls(release=str(rec["release"]), parallelism=int(rec["parallelism"]),
                       gomaxprocs=int(rec["gomaxprocs"]), pods=int(rec["pods"]), bound=int(rec["bound"]),
                       unschedulable=int(rec["unschedulable"]), attempts=int(rec["attempts"]),
                       cpu_seconds=float(rec["cpuSeconds"]), wall_seconds=float(rec["wallSeconds"]),
                       pods_per_cpu_second=_r(rec.get("podsPerCpuSecond"), 1),
                       latency_p50_ms=_r(rec.get("latencyP50Ms")), latency_p99_ms=_r(rec.get("latencyP99Ms")),
                       peak_rss_mb=_r(rec.get("peakRssMb"), 1),
                       algorithm_seconds=_r(rec.get("algorithmSeconds")))
        except (KeyError, TypeError, ValueError) as exc:
            raise BenchmarkError(f"the oracle's timing record is not what this schedframe reads: {exc!r}"
                                 ) from exc

    @staticmethod
    def median(runs: Sequence[GoRun]) -> GoRun:
        """Several runs as one: medians of the measurements, the fewest pods bound."""
        if len(runs) == 1:
            return runs[0]

        def med(field: str) -> float | None:
            values = [getattr(r, field) for r in runs if getattr(r, field) is not None]
            return _r(statistics.median(values)) if values else None

        return attrs.evolve(
            runs[0], bound=min(r.bound for r in runs), unschedulable=max(r.unschedulable for r in runs),
            attempts=round(statistics.median(r.attempts for r in runs)),
            cpu_seconds=med("cpu_seconds") or 0.0, wall_seconds=med("wall_seconds") or 0.0,
            pods_per_cpu_second=med("pods_per_cpu_second"), latency_p50_ms=med("latency_p50_ms"),
            latency_p99_ms=med("latency_p99_ms"), peak_rss_mb=med("peak_rss_mb"),
            algorithm_seconds=med("algorithm_seconds"), runs=len(runs))


@final
@attrs.frozen(kw_only=True)
class Agreement:
    """How the two sides' placements of the measured pods compare.

    Attributes:
        bound: measured pods each side bound (schedframe, Go).
        same_node: the fraction of the pods both bound that went to the same node.
        same_counts: whether the numbers of measured pods per node are the same multiset (ties
            broken differently move pods between equal nodes, not the counts).
    """

    bound: tuple[int, int]
    same_node: float
    same_counts: bool

    @property
    def verdict(self) -> str:
        """``identical`` (every pod on the same node), ``up to ties`` (the same counts per
        node), ``same bound`` (only as many pods bound) or ``DIFFER``."""
        if self.bound[0] != self.bound[1]:
            return "DIFFER"
        if self.same_node == 1.0:
            return "identical"
        return "up to ties" if self.same_counts else "same bound"

    @classmethod
    def of(cls, ours: Mapping[str, str], theirs: Mapping[str, str]) -> Agreement:
        """Compare two ``{pod: node}`` placements."""
        both = ours.keys() & theirs.keys()
        same = sum(1 for k in both if ours[k] == theirs[k])
        counts = sorted(Counter(ours.values()).values()) == sorted(Counter(theirs.values()).values())
        return cls(bound=(len(ours), len(theirs)), same_node=round(same / len(both), 4) if both else 1.0,
                   same_counts=counts)


@final
@attrs.frozen(kw_only=True)
class SideBySide:
    """One workload on both schedulers.

    Attributes:
        workload: the workload's name.
        schedframe: schedframe's result (medians of the runs).
        go: Go kube-scheduler with ``parallelism: 1`` and ``GOMAXPROCS=1``.
        go_parallel: Go with its default parallelism on this machine's cores (``None``: not run).
        agreement: the placements compared (schedframe's first run, Go's first serial run).
        skipped: why the workload was not compared (then the other fields are ``None``).
    """

    workload: str
    schedframe: WorkloadResult | None = None
    go: GoRun | None = None
    go_parallel: GoRun | None = None
    agreement: Agreement | None = None
    skipped: str | None = None

    @property
    def ratio(self) -> float | None:
        """schedframe's pods per CPU second over Go's at parallelism 1 (1.0: as fast)."""
        if self.schedframe is None or self.go is None:
            return None
        ours, theirs = self.schedframe.pods_per_cpu_second, self.go.pods_per_cpu_second
        return round(ours / theirs, 3) if ours and theirs else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (``ratio`` and the agreement's verdict included)."""
        return {
            "workload": self.workload,
            "skipped": self.skipped,
            "ratio": self.ratio,
            "schedframe": None if self.schedframe is None else self.schedframe.to_dict(),
            "go": None if self.go is None else attrs.asdict(self.go),
            "go_parallel": None if self.go_parallel is None else attrs.asdict(self.go_parallel),
            "agreement": None if self.agreement is None else {
                **attrs.asdict(self.agreement), "verdict": self.agreement.verdict},
        }


# --------------------------------------------------------------------------------------------
# running


def _oracle_module() -> ModuleType:
    """``schedframe_oracle.binary``, from the path or from the checkout this package runs from
    (``SCHEDFRAME_ORACLE_DIR`` names another ``oracle/`` directory)."""
    try:
        return importlib.import_module("schedframe_oracle.binary")
    except ImportError:
        pass
    given = os.environ.get("SCHEDFRAME_ORACLE_DIR")
    root = Path(given) if given else Path(__file__).resolve().parents[3] / "oracle"
    if not (root / "schedframe_oracle" / "binary.py").is_file():
        raise BenchmarkError(
            f"--against {_TARGET} runs the oracle program of schedframe's repository, and there is "
            f"none at {root}: run it from a checkout (its oracle/ directory), or set SCHEDFRAME_ORACLE_DIR")
    sys.path.insert(0, str(root))
    return importlib.import_module("schedframe_oracle.binary")


def _binary(release: str, say: Callable[[str], None]) -> Path:
    oracle = _oracle_module()
    try:
        path, seconds = oracle.build(release, log=say)
    except oracle.OracleError as exc:  # OracleUnavailable included: no Go here
        raise BenchmarkError(f"--against {_TARGET}: {exc}") from exc
    if seconds:
        say(f"built the oracle of Kubernetes {release} in {seconds:.0f} s")
    return Path(path)


def not_comparable(workload: BenchWorkload, options: BenchOptions) -> str | None:
    """Why *workload* cannot be run the same on both sides, or ``None``."""
    if workload.skip_reason() is not None:
        return workload.skip_reason()
    if not workload.measured_count:
        return "no measured pods (a memory workload)"
    if options.plugins:
        return "plugins from outside the in-tree registry (--plugin): Go runs its own"
    return None


def _case_for_go(case_path: Path, config_path: str | None) -> None:
    """Finish schedframe's case for the API server's validation and the configuration."""
    _oracle_module()  # puts the checkout's oracle on the path when it is not
    sources = importlib.import_module("schedframe_oracle.sources")
    case = json.loads(case_path.read_text(encoding="utf-8"))
    case["items"] = [sources._with_template(item) for item in case["items"]]
    if config_path is not None:
        from .._textio import parse_data, read_text

        doc = parse_data(read_text(config_path, max_bytes=1 << 20, what="configuration"), source=config_path)
        case["items"].append(doc)
    case_path.write_text(json.dumps(case, separators=(",", ":")), encoding="utf-8")


def _go(binary: Path, case: Path, *, parallelism: int, gomaxprocs: int | None
        ) -> tuple[GoRun, dict[str, str]]:
    env = dict(os.environ)
    if gomaxprocs is None:
        env.pop("GOMAXPROCS", None)
    else:
        env["GOMAXPROCS"] = str(gomaxprocs)
    proc = subprocess.run([str(binary), "bench", "--parallelism", str(parallelism), str(case)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise BenchmarkError(f"Go kube-scheduler failed on the case: {proc.stderr.strip()[-2000:]}")
    try:
        rec = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"the oracle printed something else than its timing record: {exc}") from exc
    return GoRun.from_record(rec), {str(k): str(v) for k, v in (rec.get("placements") or {}).items()}


def run_against(names: Sequence[str], *, release: str = NEWEST_RELEASE, scale: float = 1.0,
                options: BenchOptions | None = None, repeat: int = 1, parallel: bool = True,
                isolate: bool = True, progress: Callable[[str], None] | None = None,
                on_result: Callable[[SideBySide], None] | None = None) -> list[SideBySide]:
    """Run each built-in workload *names* on schedframe and on Go kube-scheduler of *release*,
    *repeat* times each (medians reported); with *parallel*, Go once more at its default
    parallelism.

    Raises:
        BenchmarkError: no oracle here (no checkout or no Go), a workload unknown.
    """
    if repeat < 1:
        raise BenchmarkError(f"repeat must be >= 1, got {repeat}")
    say = progress or (lambda _msg: None)
    opts = options if options is not None else BenchOptions()
    workloads = [get_workload(n).scaled(scale) for n in names]
    binary = _binary(release, say)
    out: list[SideBySide] = []
    for w in workloads:
        reason = not_comparable(w, opts)
        if reason is not None:
            result = SideBySide(workload=w.name, skipped=reason)
        else:
            try:
                result = _one(w.name, scale, opts, release, binary, repeat, parallel, isolate, say)
            except BenchmarkError as exc:  # Go refused the case or its configuration: the others go on
                result = SideBySide(workload=w.name, skipped=str(exc))
        if on_result is not None:
            on_result(result)
        out.append(result)
    return out


def _one(name: str, scale: float, opts: BenchOptions, release: str, binary: Path, repeat: int,
         parallel: bool, isolate: bool, say: Callable[[str], None]) -> SideBySide:
    with tempfile.TemporaryDirectory(prefix="schedframe-against-") as tmp:
        runs = []
        for i in range(repeat):
            o = attrs.evolve(opts, kubernetes_version=release, churn_upfront=True,
                             export_dir=tmp if i == 0 else None)
            say(f"{name}: schedframe, run {i + 1}/{repeat}")
            runs.append(_isolated(name, scale, o) if isolate else run_named(name, scale, o, progress=say))
        case = Path(tmp) / "case.json"
        ours: dict[str, str] = json.loads((Path(tmp) / "placements.json").read_text(encoding="utf-8"))
        _case_for_go(case, opts.config_path)
        serial: list[GoRun] = []
        theirs: dict[str, str] = {}
        for i in range(repeat):
            say(f"{name}: Go kube-scheduler {release}, parallelism 1, GOMAXPROCS=1, run {i + 1}/{repeat}")
            run, placed = _go(binary, case, parallelism=1, gomaxprocs=1)
            serial.append(run)
            theirs = theirs or placed
        wide: list[GoRun] = []
        if parallel:
            for i in range(repeat):
                say(f"{name}: Go kube-scheduler {release}, parallelism {GO_DEFAULT_PARALLELISM}, "
                    f"run {i + 1}/{repeat}")
                wide.append(_go(binary, case, parallelism=GO_DEFAULT_PARALLELISM, gomaxprocs=None)[0])
    return SideBySide(workload=name, schedframe=summarize(runs), go=GoRun.median(serial),
                      go_parallel=GoRun.median(wide) if wide else None, agreement=Agreement.of(ours, theirs))


# --------------------------------------------------------------------------------------------
# reporting


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


_COLUMNS: Final = (
    ("workload", "<"), ("sf pods/cpu-s", ">"), ("Go p=1", ">"), ("ratio", ">"), ("Go p=16", ">"),
    ("p50 ms sf/Go", ">"), ("p99 ms sf/Go", ">"), ("MiB sf/Go", ">"), ("placements", "<"),
)


def format_against(results: Sequence[SideBySide]) -> str:
    """The side-by-side table: one row per workload (skipped ones with their reason)."""
    rows = []
    for r in results:
        sf, go, wide, agree = r.schedframe, r.go, r.go_parallel, r.agreement
        if sf is None or go is None:
            rows.append((r.workload, "-", "-", "-", "-", "-", "-", "-", f"skipped: {r.skipped}"))
            continue
        rows.append((
            r.workload, _num(sf.pods_per_cpu_second, ".1f"), _num(go.pods_per_cpu_second, ".1f"),
            _num(r.ratio, ".2f"), _num(wide.pods_per_cpu_second if wide else None, ".1f"),
            f"{_num(sf.latency_p50_ms, '.2f')}/{_num(go.latency_p50_ms, '.2f')}",
            f"{_num(sf.latency_p99_ms, '.2f')}/{_num(go.latency_p99_ms, '.2f')}",
            f"{_num(sf.peak_rss_mb, '.0f')}/{_num(go.peak_rss_mb, '.0f')}",
            agree.verdict if agree is not None else "-",
        ))
    return fixed_width(_COLUMNS, rows)


def against_line(results: Sequence[SideBySide], release: str) -> str:
    """``against kube-scheduler R: K of W workloads at or above Go (parallelism 1); lowest
    ratio X on WORKLOAD``."""
    compared = [r for r in results if r.ratio is not None]
    patch = next((r.go.release for r in compared if r.go is not None), release)
    if not compared:
        return f"against {_TARGET} {patch}: no workload compared"
    at_or_above = sum(1 for r in compared if r.ratio is not None and r.ratio >= 1.0)
    lowest = min(compared, key=lambda r: r.ratio if r.ratio is not None else float("inf"))
    return (f"against {_TARGET} {patch}: {at_or_above} of {len(compared)} workloads at or above Go "
            f"(parallelism 1); lowest ratio {lowest.ratio:.2f} on {lowest.workload}")


def against_record(results: Sequence[SideBySide], release: str, options: Mapping[str, Any],
                   machine: Mapping[str, Any]) -> dict[str, Any]:
    """The ``--json`` record of a side-by-side run."""
    import datetime

    return {
        "schema": AGAINST_SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": dict(machine),
        "release": release,
        "options": dict(options),
        "summary": against_line(results, release),
        "results": [r.to_dict() for r in results],
    }
