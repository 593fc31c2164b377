"""The library entry points: :func:`simulate`, :func:`compare` (what-if), :func:`replay`."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, Final, final

import attrs

from .._textio import ErrorFactory, parse_json, read_text
from ..api.manifests import object_from_manifest
from ..api.objects import Node, Pod, Taint
from ..errors import ManifestError, ScenarioError, SchedframeError
from ..framework.registry import Registry
from .engine import LOG_VERSION, Progress, run_plan
from .results import SimResult
from .scenario import ConfigSpec, NodeEvent, Plan, PlannedArrival, Scenario, WorkloadInfo, file_error

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
        "", "", f"want a Scenario, a scenario file or a built-in name, got {type(scenario).__name__}"
    )


def _config_spec(config: Any, scenario: Scenario, index: int = 0) -> ConfigSpec:
    from ..config.configuration import SchedulerConfiguration

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
    if isinstance(config, SchedulerConfiguration):
        return ConfigSpec("config", config)
    return ConfigSpec("config", config)


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

    Raises:
        ScenarioError: an invalid scenario or plan.
        ConfigurationError: an invalid configuration.

    .. versionadded:: 0.1.0
    """
    s = _scenario(scenario)
    spec = _config_spec(config, s)
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


def _read_log(log: Any, registry: Registry | None) -> _LogRun:
    from ..config.configuration import SchedulerConfiguration

    source, lines = _lines(log)
    header: dict[str, Any] | None = None
    timeline: list[PlannedArrival] = []
    end = None
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {no}"
        rec = parse_json(line, error=_line_error(source, where))
        if not isinstance(rec, dict):
            raise ScenarioError(source, where, "want a JSON object")
        op = rec.get("op")
        try:
            if header is None:
                if op != "header":
                    raise ScenarioError(
                        source, f"{where}.op", f"the first line must be the header, got {op!r}"
                    )
                if rec.get("version") != LOG_VERSION:
                    raise ScenarioError(
                        source,
                        f"{where}.version",
                        f"unsupported log version {rec.get('version')!r} (want {LOG_VERSION})",
                    )
                header = rec
                continue
            if op == "header":  # several runs' logs one after another (--jsonl): the first run only
                break
            if op in ("arrive", "pod", "scale", "node"):
                timeline.append(_input(rec, source, where))
            elif op == "end":
                end = rec
        except ManifestError as exc:
            raise ScenarioError(source, f"{where}.{exc.path}", exc.detail) from None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SchedframeError):
                raise
            raise ScenarioError(source, where, f"malformed record: {exc!r}") from None
    if header is None:
        raise ScenarioError(source, "", "empty event log (no header line)")
    try:
        nodes = tuple(Node.from_manifest(m) for m in header["nodes"])
        pods = tuple(Pod.from_manifest(m) for m in header["pods"])
        objects = tuple(object_from_manifest(m) for m in header["objects"])
        workloads = tuple(
            WorkloadInfo(w["name"], w["kind"], Pod.from_manifest(w["template"]), bool(w["recreate"]))
            for w in header["workloads"]
        )
        config = SchedulerConfiguration.from_dict(header["config"], registry=registry)
        plan = Plan(
            str(header["scenario"]),
            nodes,
            pods,
            objects,
            workloads,
            tuple(timeline),
            {str(k): float(v) for k, v in header["durations"].items()},
            header.get("until"),
            int(header.get("plan_seed", 0)),
        )
        every = header.get("sample_every")
        return _LogRun(
            plan,
            config,
            str(header["config_name"]),
            int(header["seed"]),
            header.get("until"),
            end,
            None if every is None else float(every),
        )
    except ManifestError as exc:
        raise ScenarioError(source, f"line 1.{exc.path}", exc.detail) from None
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SchedframeError):
            raise
        raise ScenarioError(source, "line 1", f"malformed header: {exc!r}") from None


def _input(rec: dict[str, Any], source: str, where: str) -> PlannedArrival:
    op = rec["op"]
    t = float(rec["t"])
    if op == "arrive":
        d = rec.get("duration")
        return PlannedArrival(t, op, str(rec["workload"]), str(rec["name"]), None if d is None else float(d))
    if op == "pod":
        return PlannedArrival(t, op, pod=Pod.from_manifest(rec["pod"]))
    if op == "scale":
        return PlannedArrival(t, op, str(rec["workload"]), replicas=int(rec["replicas"]))
    e = rec["event"]
    taint = e.get("taint")
    return PlannedArrival(
        t,
        op,
        event=NodeEvent(
            float(e["at"]),
            str(e["action"]),
            tuple(e.get("nodes", ())),
            Node.from_manifest(e["node"]) if e.get("node") is not None else None,
            Taint(key=taint["key"], value=taint.get("value", ""), effect=taint.get("effect", "NoSchedule"))
            if taint
            else None,
            dict(e.get("labels", {})),
            tuple(e.get("pods", ())),
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

    .. versionadded:: 0.1.0
    """
    r = _read_log(log, registry)
    if config is not None:
        check = False
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
    )
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
