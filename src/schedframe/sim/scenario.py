"""Scenarios: the starting cluster, the workloads arriving over time, timed node events and the
scheduler configurations to compare; read from YAML/JSON (``docs/scenario-format.rst``) or built
in Python.

A scenario is *materialised* into a :class:`Plan` for one seed: every pod arrival with its name,
time and run duration is drawn up front (from ``random.Random(seed)``), so the simulation itself
draws nothing at random except the scheduler's tie-breaks (seeded too).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, final

import attrs

from .._textio import ErrorFactory, parse_data, read_text, shown_path
from ..api.manifests import ValidateMode, load_manifests, object_from_manifest
from ..api.objects import Node, OwnerReference, Pod, PodGroup, Taint
from ..errors import FieldValidationError, ManifestError, ScenarioError, SchedframeError
from ._limits import (
    MAX_LOGNORMAL_SIGMA,
    MAX_SCENARIO_NODES,
    MAX_SCENARIO_PODS,
    MAX_SIM_SECONDS,
    _check_count,
    _kind,
    check_limits,
)

__all__ = [
    "DURATION_ANNOTATION",
    "MAX_LOGNORMAL_SIGMA",
    "MAX_SCENARIO_NODES",
    "MAX_SCENARIO_PODS",
    "MAX_SIM_SECONDS",
    "Arrival",
    "ConfigSpec",
    "Distribution",
    "NodeEvent",
    "Plan",
    "PlannedArrival",
    "Scale",
    "Scenario",
    "Workload",
    "WorkloadInfo",
    "check_nodes",
]

#: The largest scenario file read (scenarios list workloads, not pods: a few KiB in practice).
MAX_SCENARIO_BYTES: Final = 16 * 1024 * 1024
def file_error(source: str) -> ErrorFactory:
    """A :class:`~schedframe.ScenarioError` of *source* whose message (from :mod:`schedframe._textio`)
    already names the file."""

    def make(message: str) -> ScenarioError:
        error = ScenarioError("", "", message)
        error.source = source
        return error

    return make

#: A pod annotation giving its run time in seconds (``"300"``, ``"5m"``, ``"1h30m"``), read when a
#: workload's duration is ``annotation`` and for the pending pods of a cluster dump.
DURATION_ANNOTATION: Final = "schedframe.io/duration"

#: The API version of the scenario file format.
API_VERSION: Final = "schedframe.io/v1alpha1"

_KINDS: Final = ("Deployment", "ReplicaSet", "StatefulSet", "Job", "Pod")
_OWNER_KIND: Final = {
    "Deployment": "ReplicaSet",
    "ReplicaSet": "ReplicaSet",
    "StatefulSet": "StatefulSet",
    "Job": "Job",
}
#: the API group of each owner kind (an owner reference names it, as the API server requires)
_OWNER_API_VERSION: Final = {"ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "Job": "batch/v1"}
#: The actions of a timed event.
NODE_ACTIONS: Final = (
    "add",
    "remove",
    "cordon",
    "uncordon",
    "drain",
    "taint",
    "untaint",
    "label",
    "delete-pod",
)
_DIST_KINDS: Final = ("fixed", "exponential", "uniform", "lognormal", "normal", "annotation")
_DURATION_RE: Final = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


def parse_seconds(value: Any, path: str, source: str = "") -> float:
    """A duration in seconds from a number or a Go-style string (``"90"``, ``"5m"``, ``"1h30m"``)."""
    if isinstance(value, bool):
        raise ScenarioError(source, path, f"want seconds (a number or '5m'), got {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            m = _DURATION_RE.match(text)
            if not text or m is None:
                raise ScenarioError(source, path, f"want seconds (a number or '5m'), got {value!r}") from None
            h, mi, s = (float(g) if g else 0.0 for g in m.groups())
            seconds = h * 3600 + mi * 60 + s
    else:
        raise ScenarioError(source, path, f"want seconds (a number or '5m'), got {value!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ScenarioError(source, path, f"must be a finite number >= 0, got {value!r}")
    return seconds


# -- distributions ---------------------------------------------------------------------------------


@final
@attrs.frozen
class Distribution:
    """A non-negative random quantity (an inter-arrival time or a run duration), drawn from a
    seeded ``random.Random``.

    Build with the named constructors; ``kind`` is one of ``fixed``, ``exponential``
    (``a`` = mean), ``uniform`` (``a``..``b``), ``lognormal`` (``a`` = median, ``b`` = sigma),
    ``normal`` (``a`` = mean, ``b`` = standard deviation, clipped at 0) and ``annotation`` (the
    pod's ``key`` annotation; ``a`` is the fallback when the annotation is missing, ``b < 0``
    meaning "runs for ever").

    .. versionadded:: 0.1.0
    """

    kind: str = attrs.field(validator=attrs.validators.in_(_DIST_KINDS))
    a: float = 0.0
    b: float = 0.0
    key: str = DURATION_ANNOTATION

    @classmethod
    def fixed(cls, value: float) -> Distribution:
        """Always *value*."""
        return cls("fixed", float(value))

    @classmethod
    def exponential(cls, mean: float) -> Distribution:
        """Exponentially distributed with *mean* (Poisson arrivals when used as ``every``)."""
        return cls("exponential", float(mean))

    @classmethod
    def uniform(cls, low: float, high: float) -> Distribution:
        """Uniform in [*low*, *high*]."""
        return cls("uniform", float(low), float(high))

    @classmethod
    def lognormal(cls, median: float, sigma: float) -> Distribution:
        """Log-normal with *median* and shape *sigma* (long-tailed run times)."""
        return cls("lognormal", float(median), float(sigma))

    @classmethod
    def normal(cls, mean: float, stddev: float) -> Distribution:
        """Normal, clipped at 0."""
        return cls("normal", float(mean), float(stddev))

    @classmethod
    def annotation(cls, key: str = DURATION_ANNOTATION, default: float | None = None) -> Distribution:
        """The pod's *key* annotation; *default* (``None``: runs for ever) when it has none."""
        return cls(
            "annotation", 0.0 if default is None else float(default), -1.0 if default is None else 0.0, key
        )

    def sample(self, rng: random.Random, pod: Pod | None = None) -> float | None:
        """One draw (``None`` only for an ``annotation`` without the annotation nor a default),
        at most ``MAX_SIM_SECONDS``."""
        value = self._draw(rng, pod)
        return value if value is None or value <= MAX_SIM_SECONDS else MAX_SIM_SECONDS

    def _draw(self, rng: random.Random, pod: Pod | None) -> float | None:
        kind = self.kind
        if kind == "fixed":
            return self.a
        if kind == "exponential":
            return rng.expovariate(1.0 / self.a) if self.a > 0 else 0.0
        if kind == "uniform":
            return rng.uniform(self.a, self.b)
        if kind == "lognormal":
            return rng.lognormvariate(math.log(self.a), self.b) if self.a > 0 else 0.0
        if kind == "normal":
            return max(0.0, rng.gauss(self.a, self.b))
        raw = pod.annotations.get(self.key) if pod is not None else None
        if raw is None:
            return None if self.b < 0 else self.a
        return parse_seconds(raw, f"metadata.annotations[{self.key}]", pod.key if pod is not None else "")

    def to_data(self) -> Any:
        """The scenario-file form."""
        if self.kind == "fixed":
            return self.a
        if self.kind == "exponential":
            return {"exponential": self.a}
        if self.kind == "uniform":
            return {"uniform": [self.a, self.b]}
        if self.kind == "lognormal":
            return {"lognormal": {"median": self.a, "sigma": self.b}}
        if self.kind == "normal":
            return {"normal": {"mean": self.a, "stddev": self.b}}
        out: dict[str, Any] = {"annotation": self.key}
        if self.b >= 0:
            out["default"] = self.a
        return out


@final
@attrs.frozen
class Arrival:
    """When a workload's pods are created: the first at ``at`` seconds, then one every ``every``
    (a :class:`Distribution`; ``None``: all at once).

    .. versionadded:: 0.1.0
    """

    at: float = 0.0
    every: Distribution | None = None


@final
@attrs.frozen
class Scale:
    """Scale a workload to ``replicas`` at ``at`` seconds (down: pending pods first, then the
    newest, as the ReplicaSet controller prefers).

    .. versionadded:: 0.1.0
    """

    at: float
    replicas: int


@final
@attrs.frozen
class Workload:
    """A controller creating pods from a template.

    Attributes:
        name: the workload's name; its pods are ``<name>-<n>``.
        template: the pod template (a :class:`~schedframe.Pod` whose name is ignored).
        replicas: how many pods it wants.
        kind: ``Deployment``, ``ReplicaSet``, ``StatefulSet``, ``Job`` or ``Pod`` (bare pods: not
            recreated when preempted or evicted).
        arrival: when the pods are created.
        duration: how long a pod runs once bound, then completes and is deleted (not replaced);
            ``None``: until the end.
        scale: timed replica changes.
        gang: ``minMember`` of a Coscheduling PodGroup the pods join (``None``: no gang).
        gang_timeout: the PodGroup's ``scheduleTimeoutSeconds``.

    .. versionadded:: 0.1.0
    """

    name: str
    template: Pod
    replicas: int = 1
    kind: str = "Deployment"
    arrival: Arrival = Arrival()
    duration: Distribution | None = None
    scale: tuple[Scale, ...] = attrs.field(default=(), converter=_tuple)
    gang: int | None = None
    gang_timeout: int | None = None

    @property
    def namespace(self) -> str:
        """The template's namespace."""
        return self.template.namespace


@final
@attrs.frozen
class NodeEvent:
    """A timed change to the cluster.

    ``action``: ``add`` (``node``; the cluster's DaemonSets create their pod there), ``remove``
    (its pods are evicted; DaemonSet pods go with the node), ``cordon``, ``uncordon``, ``drain``
    (cordon and evict every pod but DaemonSet pods; owned pods are recreated by their workload),
    ``taint`` / ``untaint``
    (``taint``), ``label`` (``labels``; an empty value removes the label), ``delete-pod`` (the pods
    named in ``pods``, as ``namespace/name``).

    .. versionadded:: 0.1.0
    """

    at: float
    action: str = attrs.field(validator=attrs.validators.in_(NODE_ACTIONS))
    nodes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    node: Node | None = None
    taint: Taint | None = None
    labels: Mapping[str, str] = attrs.field(factory=dict)
    pods: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class ConfigSpec:
    """A named scheduler configuration of a scenario (``config``: a
    :class:`~schedframe.SchedulerConfiguration`, a ``KubeSchedulerConfiguration`` mapping, or
    ``None`` for upstream's default).

    .. versionadded:: 0.1.0
    """

    name: str
    config: Any = None


@final
@attrs.frozen
class Scenario:
    """A simulation: starting cluster, workloads, timed events and configurations.

    Attributes:
        name: shown in reports.
        nodes: the starting nodes.
        pods: pods that exist at the start: bound pods (``spec.nodeName``) run on their node,
            pending ones arrive at time 0; both run for their :data:`DURATION_ANNOTATION`, if any.
        objects: other cluster objects (Namespaces, PriorityClasses, PodGroups, PDBs, ...).
        workloads: the controllers creating pods over time.
        events: timed node (and pod) events.
        configs: the scheduler configurations to run (empty: upstream's default).
        until: the simulation horizon in seconds (``None``: until nothing is left to happen).
        description: one line for reports.

    .. versionadded:: 0.1.0
    """

    name: str = "scenario"
    nodes: tuple[Node, ...] = attrs.field(default=(), converter=_tuple)
    pods: tuple[Pod, ...] = attrs.field(default=(), converter=_tuple)
    objects: tuple[Any, ...] = attrs.field(default=(), converter=_tuple)
    workloads: tuple[Workload, ...] = attrs.field(default=(), converter=_tuple)
    events: tuple[NodeEvent, ...] = attrs.field(default=(), converter=_tuple)
    configs: tuple[ConfigSpec, ...] = attrs.field(default=(), converter=_tuple)
    until: float | None = None
    description: str = ""
    load_window: float | None = None
    """``load.window``: the simulated node metrics' window in seconds (``None``: 5 minutes)."""
    load_metrics: Any = None
    """``load.metrics``: node metrics given with the cluster (a
    :class:`~schedframe.plugins.sigs.WatcherMetrics`) that replace the simulated ones."""
    kubelet_versions: Mapping[str, int] = attrs.field(factory=dict)
    """``{"1.34": 14}``: the kubelet minors the cluster's nodes report
    (``status.nodeInfo.kubeletVersion``), read by :meth:`with_cluster`; a run whose emulated
    release differs warns (:doc:`/simulator`)."""

    # -- reading ------------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, validate: ValidateMode = "strict",
                  kubernetes_version: str | None = None) -> Scenario:
        """Read a scenario file (YAML or JSON); relative paths in it are relative to the file.
        *validate* and *kubernetes_version* are :func:`~schedframe.load_manifests`' for the
        cluster file it names (field validation: strict by default, against the newest release).

        Raises:
            ScenarioError: unreadable file or invalid content, naming the file and field.
            FieldValidationError: the cluster file has fields the release does not know (strict).
        """
        source = os.fspath(path)
        text = read_text(source, max_bytes=MAX_SCENARIO_BYTES, what="the scenario",
                         error=file_error(source))
        return cls.from_text(text, source=source, base_dir=os.path.dirname(os.path.abspath(source)),
                             validate=validate, kubernetes_version=kubernetes_version)

    @classmethod
    def from_text(cls, text: str, *, source: str = "<scenario>", base_dir: str | None = None,
                  validate: ValidateMode = "strict", kubernetes_version: str | None = None) -> Scenario:
        """Read a scenario from YAML or JSON text (*validate*, *kubernetes_version*: as
        :meth:`from_file`)."""
        data = parse_data(text, source=shown_path(source), error=file_error(source))
        return cls.from_dict(data, source=source, base_dir=base_dir, validate=validate,
                             kubernetes_version=kubernetes_version)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<scenario>", base_dir: str | None = None,
                  validate: ValidateMode = "strict", kubernetes_version: str | None = None) -> Scenario:
        """Build from the scenario format's mapping (``docs/scenario-format.rst``;
        *validate*, *kubernetes_version*: as :meth:`from_file`)."""
        reader = _Reader(source, base_dir, validate=validate, kubernetes_version=kubernetes_version)
        return reader.scenario(data)

    def with_cluster(self, path: str | os.PathLike[str], *, validate: ValidateMode = "strict",
                     kubernetes_version: str | None = None) -> Scenario:
        """This scenario with its starting nodes, pods and objects replaced by those of a
        manifest file, a directory of manifests or a ``kubectl get -A -o yaml`` dump, read by
        :func:`~schedframe.load_manifests` with *validate* and *kubernetes_version*.

        Raises:
            ScenarioError: the path cannot be read, or holds no Node.
            FieldValidationError: fields the release does not know (under ``validate="strict"``).
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nodes, pods, objects = _read_cluster(os.fspath(path), os.fspath(path), "", validate,
                                                 kubernetes_version)
        if not nodes:
            found = f"{len(pods) + len(objects)} other object(s)" if pods or objects else "no object it reads"
            skipped = "".join(f"; {w.message}" for w in caught)
            raise ScenarioError("", "", f"the cluster {shown_path(path)} has no Node ({found}){skipped}")
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        from ._checks import kubelet_minors

        return attrs.evolve(self, nodes=nodes, pods=pods, objects=objects,
                            kubelet_versions=kubelet_minors(path))

    def with_configs(self, configs: Iterable[ConfigSpec]) -> Scenario:
        """This scenario with other configurations."""
        return attrs.evolve(self, configs=tuple(configs))

    def plan(self, seed: int = 0) -> Plan:
        """Materialise the arrivals for *seed*."""
        return _materialise(self, seed)


# -- the plan: what a run consumes ---------------------------------------------------------------


@final
@attrs.frozen
class WorkloadInfo:
    """What the simulation needs of a workload at run time (the controller's view)."""

    name: str
    kind: str
    template: Pod
    recreate: bool


@final
@attrs.frozen
class PlannedArrival:
    """One input event of a plan: ``op`` is ``arrive`` (workload pod ``name`` created, running
    ``duration`` seconds once bound), ``pod`` (a pod from the starting cluster arrives), ``scale``
    (``workload`` scaled down: ``replicas`` of its pods deleted) or ``node`` (a
    :class:`NodeEvent`)."""

    at: float
    op: str
    workload: str = ""
    name: str = ""
    duration: float | None = None
    replicas: int = 0
    pod: Pod | None = None
    event: NodeEvent | None = None


@final
@attrs.frozen
class Plan:
    """A scenario materialised for one seed: the starting cluster, the workloads' templates and
    every input event in time order. The simulation is a function of (plan, configuration,
    seed); an event log stores the plan, so a replay needs no scenario."""

    name: str
    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]
    objects: tuple[Any, ...]
    workloads: tuple[WorkloadInfo, ...]
    timeline: tuple[PlannedArrival, ...]
    durations: Mapping[str, float]
    until: float | None
    seed: int
    load_window: float | None = None
    load_metrics: Any = None
    #: the kubelet minors of the starting cluster's nodes (:attr:`Scenario.kubelet_versions`)
    kubelet_versions: Mapping[str, int] = attrs.field(factory=dict)


def pod_from_template(w: WorkloadInfo, name: str, at: float) -> Pod:
    """The pod *w*'s controller creates under *name* at time *at* (relative seconds)."""
    t = w.template
    owners = t.owner_references
    if w.recreate and not owners:
        owners = (
            OwnerReference(
                kind=_OWNER_KIND.get(w.kind, w.kind), name=w.name, uid=f"{w.kind}/{w.name}", controller=True,
                api_version=_OWNER_API_VERSION.get(_OWNER_KIND.get(w.kind, w.kind), "v1"),
            ),
        )
    labels: Mapping[str, str] = t.labels
    if "schedframe.io/workload" not in labels:
        labels = {**labels, "schedframe.io/workload": w.name}
    return t.evolve(
        name=name, uid=f"{t.namespace}/{name}", labels=labels, owner_references=owners, creation_timestamp=at
    )


def _event_nodes(e: NodeEvent) -> tuple[str, ...]:
    if e.action == "add" and e.node is not None:
        return (e.node.name,)
    return e.nodes


def check_nodes(plan: Plan) -> None:
    """A plan with no node at all, nor an event adding one, is an error: nothing could ever be
    scheduled.

    Raises:
        ScenarioError: no nodes.
    """
    if plan.nodes or any(a.event is not None and a.event.action == "add" for a in plan.timeline):
        return
    raise ScenarioError(
        "",
        "nodes",
        f"scenario {plan.name!r} has no nodes (its nodes, objects and cluster give none, and no "
        f"event adds one): nothing could ever be scheduled; add nodes to the scenario or start "
        f"from a cluster (--cluster DUMP, Scenario.with_cluster)",
    )


def _check_events(s: Scenario) -> None:
    """Every node an event names exists at the event's time (the starting nodes, plus those
    added and minus those removed by earlier events)."""
    from ..errors import did_you_mean

    known = {n.name: None for n in s.nodes}
    added: dict[str, tuple[int, float]] = {}
    for i, e in enumerate(s.events):
        if e.action == "add":
            added.setdefault(_event_nodes(e)[0], (i, e.at))
    removed: dict[str, tuple[int, float]] = {}
    pods: _PossiblePods | None = None  # computed at the first delete-pod
    for i, e in sorted(enumerate(s.events), key=lambda x: x[1].at):  # the order the run applies
        names = _event_nodes(e)
        if e.action == "add":
            known[names[0]] = None
            removed.pop(names[0], None)
            continue
        if e.action == "delete-pod":
            pods = _possible_pods(s) if pods is None else pods
            _check_pods(pods, i, e)
            continue
        first: dict[str, int] = {}
        for j, name in enumerate(names):
            path = f"events[{i}].node" if len(names) == 1 else f"events[{i}].nodes[{j}]"
            what = f"{e.action} at {e.at:g}s"
            if name in first:  # the same node twice in one event: a typo, or a second removal
                raise ScenarioError("", path, f"{what}: node {name!r} is named twice in this event "
                                    f"(first at events[{i}].nodes[{first[name]}]); name it once")
            first[name] = j
            if name in known:
                continue
            if name in removed:
                k, t = removed[name]
                why = f"node {name!r} was removed at {t:g}s (events[{k}])"
            elif name in added:
                k, t = added[name]
                why = f"node {name!r} is only added at {t:g}s (events[{k}])"
            else:
                shown = ", ".join(list(known)[:5]) + (", ..." if len(known) > 5 else "")
                why = (
                    f"no node {name!r} in the cluster{did_you_mean(name, [*known, *added])} "
                    f"({len(known)} node(s): {shown or 'none'})"
                )
            raise ScenarioError("", path, f"{what}: {why}")
        if e.action == "remove":
            for name in names:
                known.pop(name, None)
                removed[name] = (i, e.at)


#: The pods a scenario can have: the keys known up front (the starting pods, the workloads'
#: planned pods), each workload's planned count, and the ``namespace/name`` bases whose
#: ``<base>-<n>`` pods are created as replacements.
_PossiblePods = tuple[dict[str, None], dict[str, int], set[str]]


def _possible_pods(s: Scenario) -> _PossiblePods:
    known = {p.key: None for p in s.pods}
    planned: dict[str, int] = {}
    for w in s.workloads:  # the pods planned: <name>-0 .. <name>-(n-1)
        n = target = w.replicas
        for sc in sorted(w.scale, key=lambda x: x.at):  # a scale-up names pods after those so far
            n += max(sc.replicas - target, 0)
            target = sc.replicas
        planned[f"{w.namespace}/{w.name}"] = n
        known.update((f"{w.namespace}/{w.name}-{k}", None) for k in range(min(n, 1000)))
    recreating = {f"{w.namespace}/{w.name}" for w in s.workloads if w.kind != "Pod"}
    recreating.update(
        f"{p.namespace}/{o.name}" for p in s.pods for o in p.owner_references if o.controller
    )
    return known, planned, recreating


def _check_pods(pods: _PossiblePods, i: int, e: NodeEvent) -> None:
    """Every pod a ``delete-pod`` event names can exist: a pod of the starting cluster, a
    workload's ``<name>-<n>`` (any *n* for a workload that recreates its pods), or a pod a
    starting pod's controller recreates (``<owner>-<n>``)."""
    from ..errors import did_you_mean

    known, planned, recreating = pods
    for j, raw in enumerate(e.pods):
        key = raw if "/" in raw else f"default/{raw}"
        base, _, index = key.rpartition("-")
        if key in known or (index.isdigit() and (
            base in recreating or int(index) < planned.get(base, 0)
        )):
            continue
        shown = ", ".join(list(known)[:5]) + (", ..." if len(known) > 5 else "")
        raise ScenarioError(
            "",
            f"events[{i}].pods[{j}]",
            f"delete-pod at {e.at:g}s: no pod {key!r} in the cluster nor among the workloads' "
            f"pods{did_you_mean(key, known)} ({len(known)} pod(s): {shown or 'none'})",
        )


def _materialise(s: Scenario, seed: int) -> Plan:
    check_limits(s)
    rng = random.Random(seed)
    timeline: list[PlannedArrival] = []
    infos = []
    durations: dict[str, float] = {}
    for wi, w in enumerate(s.workloads):
        infos.append(WorkloadInfo(w.name, w.kind, w.template, w.kind != "Pod"))
        wrng = random.Random(f"{seed}/{w.name}")  # independent per workload: adding one changes no other
        t = w.arrival.at
        for i in range(w.replicas):
            if i and w.arrival.every is not None:
                t += w.arrival.every.sample(wrng) or 0.0
            d = w.duration.sample(wrng, w.template) if w.duration is not None else None
            if t > MAX_SIM_SECONDS:
                raise ScenarioError(
                    "",
                    f"workloads[{wi}].arrival",
                    f"pod {w.name}-{i} would arrive at {t:.6g}s (seed {seed}), after the largest "
                    f"simulated time ({MAX_SIM_SECONDS:g}s): lower arrival.at, arrival.every or "
                    f"replicas",
                )
            timeline.append(PlannedArrival(t, "arrive", w.name, f"{w.name}-{i}", d))
        target, n = w.replicas, w.replicas
        for sc in sorted(w.scale, key=lambda x: x.at):
            if sc.replicas > target:  # the new pods, named after the ones planned so far
                for _ in range(sc.replicas - target):
                    d = w.duration.sample(wrng, w.template) if w.duration is not None else None
                    timeline.append(PlannedArrival(sc.at, "arrive", w.name, f"{w.name}-{n}", d))
                    n += 1
            elif sc.replicas < target:
                timeline.append(PlannedArrival(sc.at, "scale", w.name, replicas=target - sc.replicas))
            target = sc.replicas
    dist = Distribution.annotation()
    for p in s.pods:
        if p.is_terminal:  # finished: it runs no more (the run lists it in its phase)
            continue
        d = dist.sample(rng, p)
        if d is not None:
            durations[p.key] = d
        if not p.node_name:
            timeline.append(PlannedArrival(0.0, "pod", pod=p))
    for e in s.events:
        timeline.append(PlannedArrival(e.at, "node", event=e))
    timeline.sort(key=lambda a: a.at)  # stable: same time keeps scenario order
    objects = list(s.objects)
    for w in s.workloads:
        if w.gang is not None:
            objects.append(
                PodGroup(
                    name=w.name,
                    namespace=w.namespace,
                    min_member=w.gang,
                    schedule_timeout_seconds=w.gang_timeout,
                )
            )
    plan = Plan(
        s.name, s.nodes, s.pods, tuple(objects), tuple(infos), tuple(timeline), durations, s.until, seed,
        s.load_window, s.load_metrics, dict(s.kubelet_versions),
    )
    check_nodes(plan)
    _check_events(s)
    return plan


# -- the reader ------------------------------------------------------------------------------------


def _read_cluster(
    path: str, source: str, field: str, validate: ValidateMode = "strict",
    kubernetes_version: str | None = None,
) -> tuple[tuple[Node, ...], tuple[Pod, ...], tuple[Any, ...]]:
    if not os.path.exists(path):
        raise ScenarioError(source, field, f"no such file: {path!r}")
    try:
        objs = load_manifests(Path(path), validate=validate, kubernetes_version=kubernetes_version)
    except FieldValidationError:
        raise  # every problem's path names the cluster file already
    except ManifestError as exc:
        # a read error already names the file; a field error is placed by file and field path
        named = not exc.path and repr(path) in exc.detail
        error = ScenarioError("" if named else path, exc.path, exc.detail)
        error.source = path
        raise error from None
    nodes = tuple(o for o in objs if isinstance(o, Node))
    pods = tuple(o for o in objs if isinstance(o, Pod))
    objects = tuple(o for o in objs if not isinstance(o, (Node, Pod)))
    return nodes, pods, objects


class _Reader:
    def __init__(self, source: str, base_dir: str | None, *, validate: ValidateMode = "strict",
                 kubernetes_version: str | None = None) -> None:
        self.source = source
        self.base_dir = base_dir
        self.validate: ValidateMode = validate
        self.kubernetes_version = kubernetes_version
        self.nodes = 0  # nodes read so far (the node groups' counts are bounded together)

    def fail(self, path: str, message: str) -> ScenarioError:
        return ScenarioError(self.source, path, message)

    def mapping(self, value: Any, path: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"want a mapping, got {_kind(value)}")
        return value

    def seq(self, value: Any, path: str) -> Sequence[Any]:
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.fail(path, f"want a list, got {_kind(value)}")
        return value

    def known(self, m: Mapping[str, Any], path: str, keys: Sequence[str]) -> None:
        from ..errors import did_you_mean

        for k in m:
            if k not in keys:
                raise self.fail(
                    f"{path}.{k}" if path else str(k),
                    f"unknown field{did_you_mean(str(k), keys)} (known: {', '.join(keys)})",
                )

    def number(self, value: Any, path: str, *, minimum: float = 0.0) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            if isinstance(value, str):
                return parse_seconds(value, path, self.source)
            raise self.fail(path, f"want a number, got {value!r}")
        if value < minimum:
            raise self.fail(path, f"must be >= {minimum:g}, got {value!r}")
        return float(value)

    def integer(self, value: Any, path: str, *, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"want an integer, got {value!r}")
        if value < minimum:
            raise self.fail(path, f"must be >= {minimum}, got {value!r}")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"want a non-empty string, got {value!r}")
        return value

    def path_of(self, value: Any, path: str) -> str:
        p = self.string(value, path)
        if self.base_dir is not None and not os.path.isabs(p):
            p = os.path.join(self.base_dir, p)
        return p

    # -- top level ----------------------------------------------------------------------------
    def scenario(self, data: Any) -> Scenario:
        m = self.mapping(data, "")
        self.known(
            m,
            "",
            (
                "apiVersion",
                "kind",
                "name",
                "description",
                "cluster",
                "nodes",
                "objects",
                "workloads",
                "events",
                "configs",
                "until",
                "load",
            ),
        )
        if "apiVersion" in m and m["apiVersion"] != API_VERSION:
            raise self.fail("apiVersion", f"want {API_VERSION!r}, got {m['apiVersion']!r}")
        if "kind" in m and m["kind"] != "Scenario":
            raise self.fail("kind", f"want 'Scenario', got {m['kind']!r}")
        name = self.string(m.get("name", "scenario"), "name")
        nodes: list[Node] = []
        pods: list[Pod] = []
        objects: list[Any] = []
        if m.get("cluster") is not None:
            n, p, o = _read_cluster(self.path_of(m["cluster"], "cluster"), self.source, "cluster",
                                    self.validate, self.kubernetes_version)
            nodes += n
            pods += p
            objects += o
        self.nodes = len(nodes)
        for i, spec in enumerate(self.seq(m.get("nodes"), "nodes")):
            nodes += self.node_group(spec, f"nodes[{i}]")
        for i, raw in enumerate(self.seq(m.get("objects"), "objects")):
            obj = self.manifest(raw, f"objects[{i}]")
            if isinstance(obj, Node):
                nodes.append(obj)
            elif isinstance(obj, Pod):
                pods.append(obj)
            else:
                objects.append(obj)
        names = [n.name for n in nodes]
        dup = _first_duplicate(names)
        if dup is not None:
            raise self.fail("nodes", f"node {dup!r} is defined twice")
        workloads = [
            self.workload(w, f"workloads[{i}]")
            for i, w in enumerate(self.seq(m.get("workloads"), "workloads"))
        ]
        dup = _first_duplicate([w.name for w in workloads])
        if dup is not None:
            raise self.fail("workloads", f"workload {dup!r} is defined twice")
        events = [self.event(e, f"events[{i}]") for i, e in enumerate(self.seq(m.get("events"), "events"))]
        configs = [
            self.config(c, f"configs[{i}]") for i, c in enumerate(self.seq(m.get("configs"), "configs"))
        ]
        until = None if m.get("until") is None else self.number(m["until"], "until")
        desc = m.get("description", "")
        if not isinstance(desc, str):
            raise self.fail("description", f"want a string, got {_kind(desc)}")
        window = metrics = None
        if m.get("load") is not None:
            lm = self.mapping(m["load"], "load")
            self.known(lm, "load", ("window", "metrics"))
            if lm.get("window") is not None:
                window = self.number(lm["window"], "load.window", minimum=1.0)
            if lm.get("metrics") is not None:
                from ..plugins.sigs import LoadMetricsError, load_metrics_file

                try:
                    metrics = load_metrics_file(self.path_of(lm["metrics"], "load.metrics"))
                except LoadMetricsError as exc:
                    raise self.fail("load.metrics", str(exc)) from None
        scenario = Scenario(name, nodes, pods, objects, workloads, events, configs, until, desc, window,
                            None if metrics is None else metrics.metrics)
        check_limits(scenario, self.source)
        return scenario

    def manifest(self, raw: Any, path: str) -> Any:
        self.mapping(raw, path)
        try:
            return object_from_manifest(raw)
        except ManifestError as exc:
            raise self.fail(f"{path}.{exc.path}" if exc.path else path, exc.detail) from None

    def node_group(self, spec: Any, path: str) -> list[Node]:
        m = self.mapping(spec, path)
        self.known(m, path, ("count", "name", "zones", "template"))
        count = self.integer(m.get("count", 1), f"{path}.count")
        self.nodes += count
        if self.nodes > MAX_SCENARIO_NODES:
            raise self.fail(
                f"{path}.count",
                f"at most {MAX_SCENARIO_NODES:,} nodes in a scenario (MAX_SCENARIO_NODES), got "
                f"{count:,}" + (f" after {self.nodes - count:,} before" if self.nodes > count else ""),
            )
        pattern = self.string(m.get("name", "node-{i}"), f"{path}.name")
        zones = [str(z) for z in self.seq(m.get("zones"), f"{path}.zones")]
        template = dict(self.mapping(m.get("template", {}), f"{path}.template"))
        out = []
        for i in range(count):
            try:
                name = pattern.format(i=i)
            except (KeyError, IndexError, ValueError) as exc:
                raise self.fail(f"{path}.name", f"bad pattern {pattern!r} (use {{i}}): {exc}") from None
            meta = dict(self.mapping(template.get("metadata", {}), f"{path}.template.metadata"))
            labels = dict(self.mapping(meta.get("labels", {}) or {}, f"{path}.template.metadata.labels"))
            labels.setdefault("kubernetes.io/hostname", name)
            if zones:
                labels["topology.kubernetes.io/zone"] = zones[i % len(zones)]
            meta.update(name=name, labels=labels)
            manifest = {"apiVersion": "v1", "kind": "Node", **template, "metadata": meta}
            node = self.manifest(manifest, f"{path}.template")
            out.append(node)
        return out

    def distribution(self, raw: Any, path: str) -> Distribution:
        if isinstance(raw, (int, float, str)) and not isinstance(raw, bool):
            if raw == "annotation":
                return Distribution.annotation()
            return Distribution.fixed(self.number(raw, path))
        m = self.mapping(raw, path)
        if len(m) != 1 and not ("annotation" in m and set(m) <= {"annotation", "default"}):
            raise self.fail(
                path,
                "want one of: a number, 'annotation', {exponential: MEAN}, "
                "{uniform: [LOW, HIGH]}, {lognormal: {median, sigma}}, {normal: {mean, stddev}}",
            )
        kind, value = next(iter(m.items()))
        sub = f"{path}.{kind}"
        if kind == "exponential":
            return Distribution.exponential(self.number(value, sub))
        if kind == "uniform":
            pair = self.seq(value, sub)
            if len(pair) != 2:
                raise self.fail(sub, f"want [LOW, HIGH], got {value!r}")
            lo, hi = self.number(pair[0], f"{sub}[0]"), self.number(pair[1], f"{sub}[1]")
            if hi < lo:
                raise self.fail(sub, f"HIGH must be >= LOW, got {value!r}")
            return Distribution.uniform(lo, hi)
        if kind == "lognormal":
            v = self.mapping(value, sub)
            self.known(v, sub, ("median", "sigma"))
            return Distribution.lognormal(
                self.number(v.get("median"), f"{sub}.median"),
                self.number(v.get("sigma", 1.0), f"{sub}.sigma"),
            )
        if kind == "normal":
            v = self.mapping(value, sub)
            self.known(v, sub, ("mean", "stddev"))
            return Distribution.normal(
                self.number(v.get("mean"), f"{sub}.mean"), self.number(v.get("stddev", 0.0), f"{sub}.stddev")
            )
        if kind == "annotation":
            default = m.get("default")
            return Distribution.annotation(
                self.string(value, sub), None if default is None else self.number(default, f"{path}.default")
            )
        raise self.fail(
            sub,
            f"unknown distribution (known: exponential, uniform, lognormal, normal, "
            f"annotation), got {kind!r}",
        )

    def workload(self, raw: Any, path: str) -> Workload:
        m = self.mapping(raw, path)
        self.known(
            m,
            path,
            ("name", "kind", "namespace", "replicas", "arrival", "duration", "template", "scale", "gang",
             "usage"),
        )
        name = self.string(m.get("name"), f"{path}.name")
        kind = m.get("kind", "Deployment")
        if kind not in _KINDS:
            raise self.fail(f"{path}.kind", f"want one of {', '.join(_KINDS)}, got {kind!r}")
        replicas = self.integer(m.get("replicas", 1), f"{path}.replicas")
        _check_count(replicas, f"{path}.replicas", MAX_SCENARIO_PODS, "pods (MAX_SCENARIO_PODS)", self.source)
        tpl = dict(self.mapping(m.get("template", {}), f"{path}.template"))
        self.known(tpl, f"{path}.template", ("metadata", "spec"))
        meta = dict(self.mapping(tpl.get("metadata", {}) or {}, f"{path}.template.metadata"))
        ns = m.get("namespace", meta.get("namespace", "default"))
        meta.update(name=name, namespace=self.string(ns, f"{path}.namespace"))
        if m.get("usage") is not None:  # the pods' usage model (schedframe.sim.usage), as their annotation
            from .usage import USAGE_ANNOTATION, parse_usage

            model = parse_usage(m["usage"], f"{path}.usage", self.source,
                                seconds=lambda v, p: self.number(v, p))
            notes = dict(self.mapping(meta.get("annotations", {}) or {},
                                      f"{path}.template.metadata.annotations"))
            notes[USAGE_ANNOTATION] = json.dumps(model.to_dict(), separators=(",", ":"))
            meta["annotations"] = notes
        if m.get("gang") is not None:  # the members name their PodGroup (Coscheduling)
            labels = dict(self.mapping(meta.get("labels", {}) or {}, f"{path}.template.metadata.labels"))
            labels.setdefault("scheduling.x-k8s.io/pod-group", name)
            meta["labels"] = labels
        spec = dict(self.mapping(tpl.get("spec", {}) or {}, f"{path}.template.spec"))
        spec.setdefault("containers", [{"name": "main"}])
        template = self.manifest(
            {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}, f"{path}.template"
        )
        arrival = Arrival()
        if m.get("arrival") is not None:
            a = self.mapping(m["arrival"], f"{path}.arrival")
            self.known(a, f"{path}.arrival", ("at", "every"))
            arrival = Arrival(
                self.number(a.get("at", 0), f"{path}.arrival.at"),
                None if a.get("every") is None else self.distribution(a["every"], f"{path}.arrival.every"),
            )
        duration = None if m.get("duration") is None else self.distribution(m["duration"], f"{path}.duration")
        scale = []
        for j, sc in enumerate(self.seq(m.get("scale"), f"{path}.scale")):
            sp = f"{path}.scale[{j}]"
            s = self.mapping(sc, sp)
            self.known(s, sp, ("at", "replicas"))
            scale.append(
                Scale(self.number(s.get("at"), f"{sp}.at"), self.integer(s.get("replicas"), f"{sp}.replicas"))
            )
        gang = timeout = None
        if m.get("gang") is not None:
            g = self.mapping(m["gang"], f"{path}.gang")
            self.known(g, f"{path}.gang", ("minMember", "timeoutSeconds"))
            gang = self.integer(g.get("minMember", replicas), f"{path}.gang.minMember", minimum=1)
            if g.get("timeoutSeconds") is not None:
                timeout = self.integer(g["timeoutSeconds"], f"{path}.gang.timeoutSeconds", minimum=1)
        return Workload(name, template, replicas, kind, arrival, duration, scale, gang, timeout)

    def event(self, raw: Any, path: str) -> NodeEvent:
        m = self.mapping(raw, path)
        self.known(m, path, ("at", "action", "node", "nodes", "template", "taint", "labels", "pods"))
        at = self.number(m.get("at"), f"{path}.at")
        action = m.get("action")
        if action not in NODE_ACTIONS:
            raise self.fail(f"{path}.action", f"want one of {', '.join(NODE_ACTIONS)}, got {action!r}")
        names: list[str] = []
        if m.get("node") is not None:
            names.append(self.string(m["node"], f"{path}.node"))
        names += [
            self.string(n, f"{path}.nodes[{j}]")
            for j, n in enumerate(self.seq(m.get("nodes"), f"{path}.nodes"))
        ]
        node = None
        taint = None
        labels: dict[str, str] = {}
        pods: list[str] = []
        if action == "add":
            tpl = dict(self.mapping(m.get("template"), f"{path}.template"))
            if len(names) != 1:
                raise self.fail(f"{path}.node", "add takes exactly one node name")
            meta = dict(self.mapping(tpl.get("metadata", {}) or {}, f"{path}.template.metadata"))
            meta["name"] = names[0]
            node = self.manifest(
                {"apiVersion": "v1", "kind": "Node", **tpl, "metadata": meta}, f"{path}.template"
            )
        elif action == "delete-pod":
            pods = [
                self.string(p, f"{path}.pods[{j}]")
                for j, p in enumerate(self.seq(m.get("pods"), f"{path}.pods"))
            ]
            if not pods:
                raise self.fail(f"{path}.pods", "delete-pod needs at least one 'namespace/name'")
        elif not names:
            raise self.fail(f"{path}.node", f"{action} needs a node (node: NAME or nodes: [...])")
        if action in ("taint", "untaint"):
            t = self.mapping(m.get("taint"), f"{path}.taint")
            self.known(t, f"{path}.taint", ("key", "value", "effect"))
            effect = t.get("effect", "NoSchedule")
            if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                raise self.fail(
                    f"{path}.taint.effect", f"want NoSchedule, PreferNoSchedule or NoExecute, got {effect!r}"
                )
            taint = Taint(
                key=self.string(t.get("key"), f"{path}.taint.key"),
                value=str(t.get("value", "")),
                effect=effect,
            )
        if action == "label":
            lm = self.mapping(m.get("labels"), f"{path}.labels")
            labels = {str(k): "" if v is None else str(v) for k, v in lm.items()}
        return NodeEvent(at, action, names, node, taint, labels, pods)

    def config(self, raw: Any, path: str) -> ConfigSpec:
        from ..config.configuration import SchedulerConfiguration

        m = self.mapping(raw, path)
        self.known(m, path, ("name", "config", "file"))
        name = self.string(m.get("name"), f"{path}.name")
        try:
            if m.get("file") is not None:
                fname = self.path_of(m["file"], f"{path}.file")
                try:
                    return ConfigSpec(name, SchedulerConfiguration.from_file(fname))
                except SchedframeError as exc:
                    raise self.fail(f"{path}.file", str(exc)) from None
            if m.get("config") is None:
                return ConfigSpec(name, None)
            raw = self.mapping(m["config"], f"{path}.config")
            return ConfigSpec(name, SchedulerConfiguration.from_dict(raw))
        except ScenarioError:
            raise
        except SchedframeError as exc:
            raise self.fail(f"{path}.config", str(exc)) from None


def _first_duplicate(names: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            return n
        seen.add(n)
    return None
