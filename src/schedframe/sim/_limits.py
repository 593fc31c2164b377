"""The bounds of a scenario: the most pods and nodes it may plan, the longest time, the widest
lognormal, and the checks that hold a scenario (read or built in Python) to them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

from ..errors import ScenarioError

if TYPE_CHECKING:
    from .scenario import Distribution, Scenario

__all__ = ["MAX_LOGNORMAL_SIGMA", "MAX_SCENARIO_NODES", "MAX_SCENARIO_PODS", "MAX_SIM_SECONDS",
           "check_limits", "check_time"]

#: The most pods a scenario may plan: its starting pods plus every workload's replicas and
#: scale-ups (a ``replicas: 1000000000`` would otherwise build pods for hours).
MAX_SCENARIO_PODS: Final = 1_000_000
#: The most nodes a scenario may have at the start (``count`` of its node groups, its objects
#: and its cluster together; twenty times upstream's 5,000-node scalability bound).
MAX_SCENARIO_NODES: Final = 100_000
#: The largest time in a scenario, in seconds (about 31.7 years): ``until``, arrival times,
#: ``every``, durations, distribution parameters, scale and event times. Drawn run times and
#: inter-arrival gaps are cut to it, so every simulated time stays a finite, precise float.
MAX_SIM_SECONDS: Final = 1e9
#: The largest ``sigma`` of a lognormal distribution (``exp(10)`` is a factor of 22,026 per
#: standard deviation already).
MAX_LOGNORMAL_SIGMA: Final = 10.0



def check_time(value: Any, path: str, source: str = "") -> float:
    """*value* as a time of the simulation: a finite number of seconds in [0,
    ``MAX_SIM_SECONDS``].

    Raises:
        ScenarioError: naming *path* (and *source*).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(source, path, f"want a number of seconds, got {_kind(value)}")
    if not math.isfinite(value) or value < 0:
        raise ScenarioError(source, path, f"must be a finite number of seconds >= 0, got {value!r}")
    if value > MAX_SIM_SECONDS:
        raise ScenarioError(
            source,
            path,
            f"must be at most {MAX_SIM_SECONDS:g} seconds (about 31.7 years, MAX_SIM_SECONDS), "
            f"got {value:g}",
        )
    return float(value)


def _check_count(value: Any, path: str, limit: int, what: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ScenarioError(source, path, f"want an integer >= 0, got {value!r}")
    if value > limit:
        raise ScenarioError(source, path, f"at most {limit:,} {what}, got {value:,}")
    return value


def _check_distribution(d: Distribution, path: str, source: str) -> None:
    kind = d.kind
    if kind == "fixed":
        check_time(d.a, path, source)
    elif kind == "exponential":
        check_time(d.a, f"{path}.exponential", source)
    elif kind == "uniform":
        check_time(d.a, f"{path}.uniform[0]", source)
        check_time(d.b, f"{path}.uniform[1]", source)
        if d.b < d.a:
            raise ScenarioError(source, f"{path}.uniform", f"HIGH must be >= LOW, got [{d.a:g}, {d.b:g}]")
    elif kind == "lognormal":
        check_time(d.a, f"{path}.lognormal.median", source)
        sigma = d.b
        if not math.isfinite(sigma) or not 0 <= sigma <= MAX_LOGNORMAL_SIGMA:
            raise ScenarioError(
                source,
                f"{path}.lognormal.sigma",
                f"must be a finite number in [0, {MAX_LOGNORMAL_SIGMA:g}] (MAX_LOGNORMAL_SIGMA), "
                f"got {sigma!r}",
            )
    elif kind == "normal":
        check_time(d.a, f"{path}.normal.mean", source)
        check_time(d.b, f"{path}.normal.stddev", source)
    elif d.b >= 0:  # annotation with a default
        check_time(d.a, f"{path}.default", source)


def check_limits(s: Scenario, source: str = "") -> None:
    """Every time and rate of *s* is a finite number of seconds within ``MAX_SIM_SECONDS``, and
    it plans at most ``MAX_SCENARIO_PODS`` pods and ``MAX_SCENARIO_NODES`` starting nodes (the
    reader checks files; :meth:`Scenario.plan` checks scenarios built in Python).

    Raises:
        ScenarioError: the first value out of range, with its field path.
    """
    if s.until is not None:
        check_time(s.until, "until", source)
    if len(s.nodes) > MAX_SCENARIO_NODES:
        raise ScenarioError(
            source,
            "nodes",
            f"at most {MAX_SCENARIO_NODES:,} nodes (MAX_SCENARIO_NODES), got {len(s.nodes):,}",
        )
    total = len(s.pods)
    what = "pods (MAX_SCENARIO_PODS)"
    for i, w in enumerate(s.workloads):
        path = f"workloads[{i}]"
        n = target = _check_count(w.replicas, f"{path}.replicas", MAX_SCENARIO_PODS, what, source)
        check_time(w.arrival.at, f"{path}.arrival.at", source)
        if w.arrival.every is not None:
            _check_distribution(w.arrival.every, f"{path}.arrival.every", source)
        if w.duration is not None:
            _check_distribution(w.duration, f"{path}.duration", source)
        for j, sc in enumerate(w.scale):
            check_time(sc.at, f"{path}.scale[{j}].at", source)
            _check_count(sc.replicas, f"{path}.scale[{j}].replicas", MAX_SCENARIO_PODS, what, source)
        for sc in sorted(w.scale, key=lambda x: x.at):  # each scale-up plans new pods
            n += max(sc.replicas - target, 0)
            target = sc.replicas
        total += n
        if total > MAX_SCENARIO_PODS:
            raise ScenarioError(
                source,
                path,
                f"the scenario plans more than {MAX_SCENARIO_PODS:,} pods (MAX_SCENARIO_PODS): "
                f"{total:,} with this workload's {n:,} (replicas and scale-ups) and the ones before",
            )
    for i, e in enumerate(s.events):
        check_time(e.at, f"events[{i}].at", source)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)
