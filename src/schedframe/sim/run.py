"""The library entry points: :func:`simulate`, :func:`compare` (what-if), :func:`replay`."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, Final, TypeVar, final

import attrs

from .._reader import FieldReader, expected
from .._textio import ErrorFactory, parse_json, read_text
from ..api.manifests import object_from_manifest
from ..api.objects import Node, Pod, Taint
from ..errors import ManifestError, ScenarioError, SchedframeError, bounded_repr, did_you_mean
from ..framework.registry import Registry
from ._limits import check_time
from .decisions import RecordDecisions
from .engine import LOG_VERSION, Progress, run_plan
from .results import SimResult
from .scenario import (
    MAX_SCENARIO_PODS,
    NODE_ACTIONS,
    ConfigSpec,
    NodeEvent,
    Plan,
    PlannedArrival,
    Scenario,
    WorkloadInfo,
    file_error,
)
from .usage import read_load_record

T = TypeVar("T")

__all__ = ["MAX_LOG_BYTES", "Comparison", "compare", "read_log", "replay", "resolve_configs", "simulate"]

#: The largest event log :func:`replay` reads (50,000 pods with run times log about 30 MB).
MAX_LOG_BYTES: Final = 1024 * 1024 * 1024


def _scenario(scenario: Scenario | str | os.PathLike[str] | None) -> Scenario:
    if scenario is None:
        from .builtin import builtin_scenario

        return builtin_scenario()
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, os.PathLike)):
        from .builtin import BUILTIN_SCENARIOS, builtin_scenario

        if isinstance(scenario, str) and scenario in BUILTIN_SCENARIOS:
            return builtin_scenario(scenario)
        return Scenario.from_file(scenario)
    raise ScenarioError(
        "", "", f"expected a Scenario, a scenario file or a built-in name, got {type(scenario).__name__}"
    )


def _config_spec(config: Any, scenario: Scenario, index: int = 0) -> ConfigSpec:

    if config is None:
        return scenario.configs[index] if len(scenario.configs) > index else ConfigSpec("default", None)
    if isinstance(config, ConfigSpec):
        return config
    if isinstance(config, str):
        for c in scenario.configs:
            if c.name == config:
                return c
        if os.path.exists(config):
            return _config_file(config)
        names = [c.name for c in scenario.configs] or ["(none)"]
        raise ScenarioError(
            "",
            "config",
            f"no configuration named {config!r} in scenario "
            f"{scenario.name!r} (configs: {', '.join(names)}) and no such file",
        )
    return ConfigSpec("config", config)


def for_release(config: Any, kubernetes_version: Any, feature_gates: Mapping[str, bool] | str | None,
                registry: Registry | None = None) -> Any:
    """*config* (``None``, a mapping or a :class:`~schedframe.SchedulerConfiguration`) read for
    *kubernetes_version* with *feature_gates*."""
    from ..config.configuration import SchedulerConfiguration

    return SchedulerConfiguration.coerce(config, registry=registry, kubernetes_version=kubernetes_version,
                                         feature_gates=feature_gates)


def _config_file(path: str) -> ConfigSpec:
    from ..config.configuration import SchedulerConfiguration

    name = os.path.splitext(os.path.basename(path))[0]
    return ConfigSpec(name, SchedulerConfiguration.from_file(path))


def resolve_configs(scenario: Scenario, configs: Iterable[Any] | None) -> list[ConfigSpec]:
    """The configurations to run: *configs* (specs, configurations, mappings, scenario config
    names or files), else the scenario's, else upstream's default."""
    if configs is None:
        return list(scenario.configs) or [ConfigSpec("default", None)]
    out = [_config_spec(c, scenario) for c in configs]
    names = [c.name for c in out]
    if len(set(names)) != len(names):  # unnamed configurations: number them
        out = [
            attrs.evolve(c, name=f"{c.name}-{i}") if names.count(c.name) > 1 else c for i, c in enumerate(out)
        ]
    return out


@contextlib.contextmanager
def _log_target(log: str | os.PathLike[str] | IO[str] | None) -> Iterator[IO[str] | None]:
    if log is None or not isinstance(log, (str, os.PathLike)):
        yield log
        return
    with open(log, "w", encoding="utf-8") as fh:
        yield fh


def simulate(
    scenario: Scenario | str | os.PathLike[str] | None = None,
    config: Any = None,
    *,
    seed: int = 0,
    until: float | None = None,
    registry: Registry | None = None,
    explain: Iterable[str] = (),
    log: str | os.PathLike[str] | IO[str] | None = None,
    progress: Progress | None = None,
    sample_every: float | None = None,
    kubernetes_version: str | None = None,
    feature_gates: Mapping[str, bool] | str | None = None,
    decisions: RecordDecisions | bool = False,
) -> SimResult:
    """Simulate *scenario* under one configuration.

    A pure function of ``(scenario, config, seed)``: the same arguments give an equal
    :class:`SimResult` (wall-clock measurements aside), in any process.

    Args:
        scenario: a :class:`Scenario`, a scenario file, a built-in scenario's name, or ``None``
            for the default built-in scenario.
        config: a :class:`~schedframe.SchedulerConfiguration`, a ``KubeSchedulerConfiguration``
            mapping, a :class:`ConfigSpec`, the name of one of the scenario's configurations or a
            configuration file; ``None``: the scenario's first configuration (or the default).
        seed: draws the arrivals and durations and breaks the scheduler's ties.
        until: stop at this simulated time (default: the scenario's ``until``, else when nothing
            is left to happen).
        registry: the plugins (default: in-tree).
        explain: pod keys (``namespace/name``) whose every scheduling attempt is explained
            (:class:`~schedframe.Explanation` per attempt in ``result.explanations``).
        log: write the event log (JSON Lines) to this path or text file; :func:`replay` reads it.
        progress: called now and then with ``(now, horizon, placed, pending)``.
        sample_every: seconds between cluster samples (default: 1/200 of the expected horizon).
        kubernetes_version: the kube-scheduler release to emulate (``"1.33"``; default the
            newest): the configuration is read for it (see :doc:`/releases`).
        feature_gates: kube-scheduler feature gates (a mapping or ``"Name=true,Other=false"``).
        decisions: record the decision tables (``result.decisions()``, and with
            ``RecordDecisions(filter_verdicts=True)`` ``result.filter_verdicts()``): ``True``
            for the defaults (the top 3 nodes), or a :class:`RecordDecisions`. Off by default:
            a run that does not record pays nothing for it (:doc:`/decisions`).

    Raises:
        ScenarioError: an invalid scenario or plan.
        ConfigurationError: an invalid configuration.
        DecisionsError: *decisions* is neither a bool nor a :class:`RecordDecisions`.

    .. versionadded:: 0.1.0
    """
    recording = RecordDecisions.of(decisions)
    s = _scenario(scenario)
    spec = _config_spec(config, s)
    if kubernetes_version is not None or feature_gates:
        released = for_release(spec.config, kubernetes_version, feature_gates, registry)
        spec = attrs.evolve(spec, config=released)
    plan = s.plan(seed)
    with _log_target(log) as fh:
        return run_plan(
            plan,
            spec.config,
            config_name=spec.name,
            seed=seed,
            until=until,
            registry=registry,
            explain=explain,
            log=fh,
            progress=progress,
            sample_every=sample_every,
            decisions=recording,
        )


@final
@attrs.frozen
class Comparison:
    """One scenario under several configurations (:func:`compare`).

    Attributes:
        results: one :class:`SimResult` per configuration, in order.
        moved: pods whose final node differs between configurations:
            ``{pod key: {config name: node ("" = never bound)}}``.

    .. versionadded:: 0.1.0
    """

    results: tuple[SimResult, ...]
    moved: dict[str, dict[str, str]]

    def result(self, config: str) -> SimResult:
        """The result of configuration *config*."""
        for r in self.results:
            if r.config == config:
                return r
        raise KeyError(config)

    def rows(self) -> list[dict[str, Any]]:
        """One summary row per configuration."""
        out = []
        for r in self.results:
            m = r.metrics
            out.append(
                {
                    "config": r.config,
                    "pods": m.pods,
                    "placed": m.placed,
                    "pending": m.pending,
                    "preemptions": m.preemptions,
                    "wait_p50": m.wait_p50,
                    "wait_p99": m.wait_p99,
                    "cpu_utilisation": m.utilisation_mean.get("cpu", 0.0),
                    "memory_utilisation": m.utilisation_mean.get("memory", 0.0),
                    "cpu_fragmentation": m.fragmentation_mean.get("cpu", 0.0),
                    "moved": sum(
                        1 for v in self.moved.values() if v.get(r.config) != v.get(self.results[0].config)
                    ),
                }
            )
        return out

    def to_dict(self, *, pods: bool = False) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "rows": self.rows(),
            "moved": self.moved,
            "results": [r.to_dict(pods=pods, samples=False) for r in self.results],
        }


def compare(
    scenario: Scenario | str | os.PathLike[str] | None = None,
    configs: Iterable[Any] | None = None,
    *,
    seed: int = 0,
    until: float | None = None,
    registry: Registry | None = None,
    progress: Progress | None = None,
    sample_every: float | None = None,
) -> Comparison:
    """What-if: run *scenario* under each configuration (default: the scenario's) with the same
    seed, and report which pods landed differently.

    .. versionadded:: 0.1.0
    """
    s = _scenario(scenario)
    specs = resolve_configs(s, configs)
    plan = s.plan(seed)
    results = tuple(
        run_plan(
            plan,
            c.config,
            config_name=c.name,
            seed=seed,
            until=until,
            registry=registry,
            progress=progress,
            sample_every=sample_every,
        )
        for c in specs
    )
    return Comparison(results, moved_pods(results))


def moved_pods(results: Sequence[SimResult]) -> dict[str, dict[str, str]]:
    """``{pod key: {config: node}}`` for pods not on the same node in every result."""
    keys: dict[str, None] = {}
    per = []
    for r in results:
        placed = {p.key: p.node for p in r.pods}
        keys.update(dict.fromkeys(placed))
        per.append((r.config, placed))
    out: dict[str, dict[str, str]] = {}
    for k in keys:
        nodes = {name: placed.get(k, "") for name, placed in per}
        if len(set(nodes.values())) > 1:
            out[k] = nodes
    return out


# -- replay -------------------------------------------------------------------------------------------


def _lines(log: str | os.PathLike[str] | IO[str] | Iterable[str]) -> tuple[str, Iterable[str]]:
    if isinstance(log, (str, os.PathLike)):
        path = os.fspath(log)
        text = read_text(path, max_bytes=MAX_LOG_BYTES, what="the event log", error=file_error(path))
        return path, text.splitlines()
    if isinstance(log, io.TextIOBase):
        return getattr(log, "name", "<log>"), log.read().splitlines()
    return "<log>", log


def _line_error(source: str, where: str) -> ErrorFactory:
    return lambda message: ScenarioError(source, where, message)


@final
@attrs.frozen
class _LogRun:
    plan: Plan
    config: Any
    config_name: str
    seed: int
    until: float | None
    end: dict[str, Any] | None
    sample_every: float | None


def read_log(
    log: str | os.PathLike[str] | IO[str] | Iterable[str], *, registry: Registry | None = None
) -> tuple[Plan, Any, str, int, float | None]:
    """Read an event log: ``(plan, configuration, config name, seed, until)``.

    Raises:
        ScenarioError: not an event log, or a malformed line (named by line number and field).
    """
    r = _read_log(log, registry)
    return r.plan, r.config, r.config_name, r.seed, r.until


class _Fields(FieldReader):
    """Typed reads of one log record: every malformed value is a :class:`~schedframe.ScenarioError` naming
    the log, the line and the field (``line 7.event.taint.effect``)."""

    def __init__(self, source: str, where: str) -> None:
        super().__init__(self._error)
        self.source = source
        self.where = where

    def _error(self, field: str, message: str) -> ScenarioError:
        return ScenarioError(self.source, f"{self.where}.{field}" if field else self.where, message)

    def get(self, rec: Mapping[str, Any], key: str, field: str) -> Any:
        if key not in rec:
            raise self.error(field, "missing")
        return rec[key]

    def items(self, value: Any, field: str) -> Sequence[Any]:
        return self.list(value, field)

    def integer(self, value: Any, path: str, *, minimum: int | None = 0, maximum: int | None = None) -> int:
        """A count of the log: not negative unless *minimum* says otherwise."""
        return super().integer(value, path, minimum=minimum, maximum=maximum)

    def time(self, value: Any, field: str) -> float:
        try:
            return check_time(value, f"{self.where}.{field}", self.source)
        except ScenarioError as exc:
            raise self.error(field, exc.detail) from None

    def manifest(self, build: Callable[[Any], T], value: Any, field: str) -> T:
        self.mapping(value, field)
        try:
            return build(value)
        except ManifestError as exc:
            raise self.error(f"{field}.{exc.path}" if exc.path else field, exc.detail) from None


@final
@attrs.frozen
class _Header:
    config: Any
    config_name: str
    scenario: str
    seed: int
    plan_seed: int
    until: float | None
    sample_every: float | None
    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]
    objects: tuple[Any, ...]
    workloads: tuple[WorkloadInfo, ...]
    durations: Mapping[str, float]
    load: tuple[float | None, Any] = (None, None)


def _header(rec: Mapping[str, Any], f: _Fields, registry: Registry | None) -> _Header:
    from ..config.configuration import SchedulerConfiguration

    nodes = tuple(
        f.manifest(Node.from_manifest, m, f"nodes[{i}]")
        for i, m in enumerate(f.items(f.get(rec, "nodes", "nodes"), "nodes"))
    )
    pods = tuple(
        f.manifest(Pod.from_manifest, m, f"pods[{i}]")
        for i, m in enumerate(f.items(f.get(rec, "pods", "pods"), "pods"))
    )
    objects = tuple(
        f.manifest(object_from_manifest, m, f"objects[{i}]")
        for i, m in enumerate(f.items(f.get(rec, "objects", "objects"), "objects"))
    )
    workloads = []
    for i, raw in enumerate(f.items(f.get(rec, "workloads", "workloads"), "workloads")):
        field = f"workloads[{i}]"
        w = f.mapping(raw, field)
        recreate = f.boolean(f.get(w, "recreate", f"{field}.recreate"), f"{field}.recreate")
        workloads.append(
            WorkloadInfo(
                f.string(f.get(w, "name", f"{field}.name"), f"{field}.name"),
                f.string(f.get(w, "kind", f"{field}.kind"), f"{field}.kind"),
                f.manifest(Pod.from_manifest, f.get(w, "template", f"{field}.template"), f"{field}.template"),
                recreate,
            )
        )
    durations = {
        f.string(k, "durations"): f.time(v, f"durations[{k}]")
        for k, v in f.mapping(f.get(rec, "durations", "durations"), "durations").items()
    }
    raw_config = f.mapping(f.get(rec, "config", "config"), "config")
    try:
        config = SchedulerConfiguration.from_dict(raw_config, registry=registry)
    except SchedframeError as exc:
        raise f.error("config", str(exc)) from None
    until = rec.get("until")
    every = rec.get("sample_every")
    return _Header(
        config,
        f.string(f.get(rec, "config_name", "config_name"), "config_name"),
        f.string(f.get(rec, "scenario", "scenario"), "scenario"),
        f.integer(f.get(rec, "seed", "seed"), "seed", minimum=-(2**63)),
        f.integer(rec.get("plan_seed", 0), "plan_seed", minimum=-(2**63)),
        None if until is None else f.time(until, "until"),
        None if every is None else f.time(every, "sample_every"),
        nodes,
        pods,
        objects,
        tuple(workloads),
        durations,
        read_load_record(rec, f.error),
    )


def _read_log(log: Any, registry: Registry | None) -> _LogRun:
    source, lines = _lines(log)
    header: _Header | None = None
    workloads: dict[str, WorkloadInfo] = {}
    arrived: dict[str, int] = {}
    timeline: list[PlannedArrival] = []
    end = None
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {no}"
        rec = parse_json(line, error=_line_error(source, where))
        if not isinstance(rec, dict):
            raise ScenarioError(source, where, expected("a mapping", rec))
        f = _Fields(source, where)
        op = rec.get("op")
        if header is None:
            if op != "header":
                raise ScenarioError(
                    source, f"{where}.op", f"the first line must be the header, got {bounded_repr(op)}"
                )
            if rec.get("version") != LOG_VERSION:
                raise ScenarioError(
                    source,
                    f"{where}.version",
                    f"unsupported log version {bounded_repr(rec.get('version'))} (want {LOG_VERSION})",
                )
            header = _header(rec, f, registry)
            workloads = {w.name: w for w in header.workloads}
            continue
        if op == "header":  # several runs' logs one after another (--jsonl): the first run only
            break
        if op in ("arrive", "pod", "scale", "node"):
            a = _input(rec, f, workloads)
            if a.op == "arrive":
                seen = arrived.setdefault(a.name, no)
                if seen != no:
                    raise f.error("name", f"pod {a.name!r} already arrives on line {seen}")
            timeline.append(a)
        elif op == "end":
            end = rec
        elif not isinstance(op, str):
            raise f.error("op", expected("a string", op))
    if header is None:
        raise ScenarioError(source, "", "empty event log (no header line)")
    plan = Plan(
        header.scenario,
        header.nodes,
        header.pods,
        header.objects,
        header.workloads,
        tuple(timeline),
        header.durations,
        header.until,
        header.plan_seed,
        *header.load,
    )
    return _LogRun(
        plan, header.config, header.config_name, header.seed, header.until, end, header.sample_every
    )


def _input(rec: Mapping[str, Any], f: _Fields, workloads: Mapping[str, WorkloadInfo]) -> PlannedArrival:
    op = rec["op"]
    t = f.time(f.get(rec, "t", "t"), "t")
    if op in ("arrive", "scale"):
        workload = f.string(f.get(rec, "workload", "workload"), "workload")
        if workload not in workloads:
            raise f.error(
                "workload", f"no workload {workload!r} in the header{did_you_mean(workload, workloads)}"
            )
        if op == "scale":
            return PlannedArrival(
                t, op, workload, replicas=f.integer(f.get(rec, "replicas", "replicas"), "replicas",
                                                    maximum=MAX_SCENARIO_PODS)
            )
        name = f.string(f.get(rec, "name", "name"), "name")
        base, _, index = name.rpartition("-")
        if base != workload or not index.isdigit() or int(index) >= MAX_SCENARIO_PODS:
            raise f.error("name", f"expected {workload}-N (N < {MAX_SCENARIO_PODS:,}), "
                                  f"got {bounded_repr(name)}")
        d = rec.get("duration")
        return PlannedArrival(t, op, workload, name, None if d is None else f.time(d, "duration"))
    if op == "pod":
        return PlannedArrival(t, op, pod=f.manifest(Pod.from_manifest, f.get(rec, "pod", "pod"), "pod"))
    e = f.mapping(f.get(rec, "event", "event"), "event")
    action = f.string(f.get(e, "action", "event.action"), "event.action")
    if action not in NODE_ACTIONS:
        raise f.error("event.action",
                      f"expected one of {', '.join(NODE_ACTIONS)}, got {bounded_repr(action)}")
    node = None
    if action == "add":
        node = f.manifest(Node.from_manifest, f.get(e, "node", "event.node"), "event.node")
    taint = None
    if action in ("taint", "untaint"):
        tm = f.mapping(f.get(e, "taint", "event.taint"), "event.taint")
        effect = f.string(tm.get("effect", "NoSchedule"), "event.taint.effect")
        if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise f.error(
                "event.taint.effect",
                f"expected NoSchedule, PreferNoSchedule or NoExecute, got {bounded_repr(effect)}",
            )
        taint = Taint(
            key=f.string(f.get(tm, "key", "event.taint.key"), "event.taint.key"),
            value=f.string(tm.get("value", ""), "event.taint.value"),
            effect=effect,
        )
    labels = {
        f.string(k, "event.labels"): f.string(v, f"event.labels[{k}]")
        for k, v in f.mapping(e.get("labels", {}), "event.labels").items()
    }
    return PlannedArrival(
        t,
        op,
        event=NodeEvent(
            f.time(f.get(e, "at", "event.at"), "event.at"),
            action,
            f.strings(e.get("nodes", []), "event.nodes"),
            node,
            taint,
            labels,
            f.strings(e.get("pods", []), "event.pods"),
        ),
    )


def replay(
    log: str | os.PathLike[str] | IO[str] | Iterable[str],
    *,
    registry: Registry | None = None,
    check: bool = True,
    explain: Iterable[str] = (),
    progress: Progress | None = None,
    config: Any = None,
    config_name: str | None = None,
    decisions: RecordDecisions | bool = False,
) -> SimResult:
    """Run an event log again: the plan, configuration and seed it records give the identical
    result (the log's own outcomes are not needed).

    Args:
        log: a path, an open text file, or the lines.
        registry: the plugins the configuration needs (default: in-tree).
        check: compare the run's metrics with the log's ``end`` line and raise
            :class:`~schedframe.ScenarioError` when they differ.
        explain: pods whose attempts to explain (as in :func:`simulate`).
        config: run the recorded inputs (cluster, arrivals with their run times, node events,
            seed) under this configuration instead of the recorded one -- a what-if on a
            recorded workload. The metrics are then not checked.
        config_name: the name of *config* in the result (default ``"replay"``).
        decisions: record the decision tables (as in :func:`simulate`).

    .. versionadded:: 0.1.0
    """
    recording = RecordDecisions.of(decisions)
    r = _read_log(log, registry)
    if config is not None:
        check = False
    try:
        result = run_plan(
            r.plan,
            r.config if config is None else config,
            config_name=r.config_name if config is None else (config_name or "replay"),
            seed=r.seed,
            until=r.until,
            registry=registry,
            explain=explain,
            progress=progress,
            sample_every=r.sample_every,
            decisions=recording,
        )
    except ScenarioError as exc:
        if exc.source or exc.path not in ("sample_every", "until"):
            raise
        source = os.fspath(log) if isinstance(log, (str, os.PathLike)) else "<log>"
        raise ScenarioError(source, f"line 1.{exc.path}", exc.detail) from None
    if check and r.end is not None:
        got = json.loads(json.dumps(result.metrics.to_dict()))
        if got != r.end.get("metrics"):
            raise ScenarioError(
                _lines(log)[0] if isinstance(log, (str, os.PathLike)) else "<log>",
                "end.metrics",
                "the replay's metrics differ from the logged run's (another schedframe "
                "version or plugin set?)",
            )
    return result
