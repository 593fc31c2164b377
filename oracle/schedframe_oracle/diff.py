"""Lock-step comparison of schedframe with the oracle's record of a case.

Both sides start from the same cluster: the case's objects, nodes and bound pods added in
namespace/name order (as an informer lists them from the API server). Then, for each attempt
the oracle recorded, in order:

* schedframe schedules the same pod (its first attempt: the pod is created; its second, after a
  preemption: it is put back into activeQ, as the victims' deletion would);
* every field the oracle wrote is compared: the outcome, the node (schedframe's choice must be
  among the oracle's top-scoring nodes: upstream breaks ties at random), the failure message,
  the round-robin start before and after the cycle, the nodes scored, every node's filter
  status (code, plugin, reasons; each node judged on its own with the pods nominated to it, by
  the framework's own runtime on both sides), every scored node's weighted score per plugin and
  total, the nominated node and the victims;
* schedframe is brought to the oracle's state where it went elsewhere (a pod moved to the
  oracle's node, victims removed or put back, the round-robin start set), so a difference is
  reported once and later cycles are compared from the same cluster.

A pod left unscheduled is deleted on both sides after its last attempt (the oracle marks that
attempt ``deleted``; a pod of a PodGroup held at PreEnqueue stays). A case's List may set
feature gates for itself (``oracle.schedframe.io/feature-gates``): the oracle runs with those
the release has, and schedframe with the same.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

__all__ = [
    "DEVIATIONS",
    "RELEASES_ANNOTATION",
    "CaseReport",
    "Deviation",
    "Difference",
    "case_applies",
    "case_gates",
    "diff_case",
    "read_case",
]

_CODES: Final = {
    "SUCCESS": "Success",
    "ERROR": "Error",
    "UNSCHEDULABLE": "Unschedulable",
    "UNSCHEDULABLE_AND_UNRESOLVABLE": "UnschedulableAndUnresolvable",
    "WAIT": "Wait",
    "SKIP": "Skip",
    "PENDING": "Pending",
}

#: gates the oracle sets for its own running (never passed to schedframe)
_ORACLE_GATES: Final = frozenset({"SchedulerAsyncPreemption"})


@attrs.frozen
class Difference:
    """One field on which schedframe and the oracle disagree."""

    case: str
    pod: str
    attempt: int
    field: str
    oracle: Any
    schedframe: Any
    node: str | None = None
    plugin: str | None = None

    def line(self) -> str:
        where = self.pod + (f"#{self.attempt}" if self.attempt > 1 else "")
        if self.node:
            where += f" node {self.node}"
        if self.plugin:
            where += f" plugin {self.plugin}"
        return (
            f"{self.case}: {where}: {self.field}: oracle {_short(self.oracle)}, "
            f"schedframe {_short(self.schedframe)}"
        )

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


@attrs.frozen
class Deviation:
    """A difference schedframe makes on purpose (or has not closed yet), with the reason; listed
    in docs/fidelity.rst. A difference it covers is reported apart, not as differing."""

    key: str
    reason: str
    releases: frozenset[str]
    fields: tuple[str, ...]
    #: when given, only the differences of those fields it accepts
    matches: Callable[[Difference], bool] | None = None

    def covers(self, release: str, diff: Difference) -> bool:
        return (release in self.releases and any(diff.field.endswith(f) for f in self.fields)
                and (self.matches is None or self.matches(diff)))


_PREEMPTION_RUN: Final = "pod group preemption: "
_FIRST_PLACEMENT: Final = "first placement status: "


def _without_preemption_first_placement(message: Any) -> Any:
    """*message* with the "first placement status" of its group preemption's run cut off."""
    if not isinstance(message, str) or _PREEMPTION_RUN not in message:
        return None
    head, _, run = message.partition(_PREEMPTION_RUN)
    at = run.find(_FIRST_PLACEMENT)
    return None if at < 0 else head + _PREEMPTION_RUN + run[:at]


def _only_preemption_first_placement(diff: Difference) -> bool:
    """The two messages (or PodGroup conditions) differ only in which placement's status the
    group preemption's run of the algorithm reports first."""
    want, got = diff.oracle, diff.schedframe
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        rest = {k: v for k, v in want.items() if k != "message"}
        if rest != {k: v for k, v in got.items() if k != "message"}:
            return False
        want, got = want.get("message"), got.get("message")
    cut = _without_preemption_first_placement(want)
    return cut is not None and cut == _without_preemption_first_placement(got)


#: The documented deviations (docs/fidelity.rst, "Deliberate deviations").
DEVIATIONS: Final = (
    Deviation(
        "pod-group-extension-points",
        "the extension points of the PodGroup scheduling cycle (placementGenerate, placementScore, "
        "podGroupPostFilter) that 1.36 and 1.37 add are not modelled yet: schedframe's profiles "
        "do not list them (they run only for PodGroups, issue 45)",
        frozenset({"1.36", "1.37"}),
        (".plugins.placementgenerate", ".plugins.placementscore", ".plugins.podgrouppostfilter"),
    ),
    Deviation(
        "group-preemption-placement-order",
        "a PodGroup cycle that cannot be placed in any of its placements reports the status of "
        "the first it tried; upstream tries them in Go's map order, and the run of the algorithm "
        "inside workload-aware preemption is not recorded, so which placement's status ends the "
        "message after 'pod group preemption:' varies from run to run upstream",
        frozenset({"1.36", "1.37"}),
        ("message", "podGroupCondition"),
        _only_preemption_first_placement,
    ),
)


@attrs.frozen
class CaseReport:
    """The comparison of one case."""

    case: str
    release: str
    cycles: int
    differences: tuple[Difference, ...]
    warnings: tuple[str, ...] = ()
    error: str | None = None
    #: differences covered by a documented deviation: (deviation key, difference)
    deviations: tuple[tuple[str, Difference], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.differences and self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "release": self.release,
            "cycles": self.cycles,
            "differences": [d.to_dict() for d in self.differences],
            "deviations": [{"deviation": k, **d.to_dict()} for k, d in self.deviations],
            "warnings": list(self.warnings),
            "error": self.error,
        }


def _split_deviations(
    release: str, diffs: Sequence[Difference]
) -> tuple[tuple[Difference, ...], tuple[tuple[str, Difference], ...]]:
    kept: list[Difference] = []
    covered: list[tuple[str, Difference]] = []
    for d in diffs:
        dev = next((x for x in DEVIATIONS if x.covers(release, d)), None)
        if dev is None:
            kept.append(d)
        else:
            covered.append((dev.key, d))
    return tuple(kept), tuple(covered)


# -- reading a case ----------------------------------------------------------------------------


def _read_list(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if path.suffix == ".json":
        doc = json.loads(text)
    else:
        import yaml

        doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or not str(doc.get("kind", "")).endswith("List"):
        raise ValueError(f"{path}: want a List")
    return doc


#: a case's annotation restricting the releases it is for: ``">=1.34"`` (or ``"<=1.35"``)
RELEASES_ANNOTATION: Final = "oracle.schedframe.io/releases"


def case_applies(path: Path, release: str) -> bool:
    """Whether the case file at *path* is for *release* (its List's ``releases`` annotation;
    none: every release)."""
    annotations = (_read_list(path).get("metadata") or {}).get("annotations") or {}
    want = str(annotations.get(RELEASES_ANNOTATION, "")).strip()
    if not want:
        return True

    def minor(text: str) -> int:
        return int(text.strip().split(".")[1])

    for part in want.split(","):
        part = part.strip()
        if part.startswith(">=") and minor(release) < minor(part[2:]):
            return False
        if part.startswith("<=") and minor(release) > minor(part[2:]):
            return False
    return True


#: a case's annotation setting feature gates for it: ``"GenericWorkload=true,GangScheduling=true"``
GATES_ANNOTATION: Final = "oracle.schedframe.io/feature-gates"


def case_gates(path: Path) -> dict[str, bool]:
    """The feature gates the case file at *path* sets for itself (its List's annotation)."""
    annotations = (_read_list(path).get("metadata") or {}).get("annotations") or {}
    out: dict[str, bool] = {}
    for part in str(annotations.get(GATES_ANNOTATION, "")).split(","):
        name, _, value = part.partition("=")
        if name.strip():
            out[name.strip()] = value.strip().lower() in ("true", "1", "t")
    return out


def _effective_gates(
    path: Path, record: Mapping[str, Any], given: Mapping[str, bool] | None
) -> dict[str, bool]:
    """The gates schedframe runs a case with: those given (the command line's), and those of the
    case's annotation that the oracle applied (the release has them; its record lists the gates
    it ran with that differ from the defaults)."""
    out = {k: v for k, v in (given or {}).items() if k not in _ORACLE_GATES}
    applied = record.get("gates") or {}
    for name, value in case_gates(path).items():
        if name not in out and applied.get(name) == value:
            out[name] = value
    return out


def read_case(path: Path) -> list[dict[str, Any]]:
    """The items of a case file (a List, YAML or JSON), each object with the uid the oracle's
    API server gives one it was created without."""
    items = _read_list(path).get("items") or []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ValueError(f"{path}: items must be a list of objects")
    for item in items:
        meta = item.get("metadata")
        if isinstance(meta, dict) and not meta.get("uid") and item.get("kind") and meta.get("name"):
            ns = str(meta.get("namespace") or "")
            if item["kind"] == "Pod":
                meta["uid"] = f"uid-{ns or 'default'}-{meta['name']}"
            elif not str(item.get("apiVersion", "")).startswith("kubescheduler.config.k8s.io/"):
                meta["uid"] = f"uid-{str(item['kind']).lower()}-{ns}-{meta['name']}"
    return items


def _key(m: Mapping[str, Any]) -> tuple[str, str]:
    meta = m.get("metadata") or {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def _pod_key(m: Mapping[str, Any]) -> str:
    ns, name = _key(m)
    return f"{ns or 'default'}/{name}"


def _is_pending_pod(m: Mapping[str, Any]) -> bool:
    return m.get("kind") == "Pod" and not (m.get("spec") or {}).get("nodeName")


# -- the schedframe side ----------------------------------------------------------------------


def _code(status: Any) -> str:
    return _CODES[status.code.name]


def _status_record(status: Any) -> dict[str, Any]:
    if status.code.name == "SUCCESS":
        return {"code": "Success"}
    out: dict[str, Any] = {"code": _code(status)}
    if status.plugin:
        out["plugin"] = status.plugin
    if status.reasons:
        out["reasons"] = list(status.reasons)
    return out


class _Probe:
    """What schedframe's cycle did, captured at the end of its filtering."""

    def __init__(self) -> None:
        self.phase: Any = None
        self.filter: list[dict[str, Any]] = []
        self.pre_filter: dict[str, Any] = {}
        self.scores: list[dict[str, Any]] = []
        self.errors: list[str] = []

    def __call__(self, phase: Any, only: Sequence[str] | None = None) -> None:
        """Record *phase*; *only*: the nodes of the placement the cycle is trying (the oracle
        records a placement's trial over its nodes, in the snapshot's order)."""
        from schedframe import CycleState

        self.phase = phase
        fwk, snapshot, pod = phase.framework, phase.snapshot, phase.pod
        try:
            state = CycleState()
            pre_res, pstatus, _rejectors = fwk.run_pre_filter_plugins(state, pod)
            self.pre_filter = _status_record(pstatus)
            allowed = None
            if pstatus.is_success() and pre_res is not None and pre_res.node_names is not None:
                allowed = set(pre_res.node_names)
            self.filter = []
            nodes = snapshot.list() if only is None else [snapshot.get(name) for name in only]
            for ni in nodes:
                if not pstatus.is_success():
                    rec = _status_record(pstatus)
                elif allowed is not None and ni.name not in allowed:
                    rec = {"code": "UnschedulableAndUnresolvable", "reasons": ["(outside PreFilterResult)"]}
                else:
                    rec = _status_record(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni))
                self.filter.append({"node": ni.name, **rec})
            window = [snapshot.get(name) for name in phase.feasible]
            if len(window) >= 2 and pstatus.is_success():
                ps = fwk.run_pre_score_plugins(state, pod, window)
                if not ps.is_success():
                    self.errors.append(f"PreScore: {ps.message}")
                    return
                names, _raw, normalized, weights, st = fwk.run_score_plugins_detailed(state, pod, window)
                if not st.is_success():
                    self.errors.append(f"Score: {st.message}")
                    return
                for i, ni in enumerate(window):
                    per = [{"plugin": n, "score": normalized[k][i] * weights[k]} for k, n in enumerate(names)]
                    self.scores.append(
                        {"node": ni.name, "scores": per, "total": sum(p["score"] for p in per)}
                    )
        except Exception as exc:  # a bug in schedframe: reported as the record's error
            self.errors.append(f"{type(exc).__name__}: {exc}")


@attrs.define
class _World:
    """The cluster as the oracle has it between cycles (what schedframe is brought back to)."""

    others: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    bound: dict[str, dict[str, Any]]  # pod key -> manifest with nodeName


def _manifests_text(items: Iterable[Mapping[str, Any]]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


class _Side:
    """schedframe's scheduler for one case, rebuilt from the world when it drifted."""

    def __init__(
        self, config: Mapping[str, Any] | None, release: str, gates: Mapping[str, bool] | None, world: _World
    ) -> None:
        self.config = config
        self.release = release
        self.gates = dict(gates) if gates else None
        self.sched: Any = None
        self.rebuild(world, start_index=0)

    def rebuild(self, world: _World, *, start_index: int, pending: Sequence[Mapping[str, Any]] = ()) -> None:
        from schedframe import FakeClock, Pod, Scheduler, load_manifests
        from schedframe.api.workloads import admit_priority, priority_classes

        ordered = (
            sorted(world.others, key=_key)
            + sorted(world.nodes, key=_key)
            + sorted(world.bound.values(), key=_key)
        )
        objects = load_manifests(_manifests_text(ordered), expand_workloads=False,
                                 kubernetes_version=self.release) if ordered else []
        # the API server's Priority admission, as the simulator applies it
        self.classes = priority_classes(objects)
        objects = [admit_priority(o, self.classes) if isinstance(o, Pod) else o for o in objects]
        # the oracle's scheduler runs on the wall clock: a pod that has not started counts as
        # started now, after every start time of the case
        sched = Scheduler(
            dict(self.config) if self.config is not None else None,
            seed=0,
            kubernetes_version=self.release,
            feature_gates=self.gates,
            objects=objects,
            load_entry_points=False,
            clock=FakeClock(time.time()),
        )
        sched._next_start_node_index = start_index
        for m in pending:
            self.add_pending(m, sched)
        self.sched = sched

    def add_pending(self, manifest: Mapping[str, Any], sched: Any = None) -> None:
        from schedframe import Pod
        from schedframe.api.workloads import admit_priority

        (sched or self.sched).add_pod(admit_priority(Pod.from_manifest(manifest), self.classes))


def _profile_plugins(sched: Any) -> dict[str, dict[str, list[list[Any]]]]:
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for name, fwk in sched.frameworks.items():
        points: dict[str, list[list[Any]]] = {}
        for point, plugins in fwk.list_plugins().items():
            if plugins:
                points[point.lower()] = [
                    [p, fwk.score_weight(p) if point.lower() == "score" else 0] for p in plugins
                ]
        out[name] = points
    return out


def _oracle_plugins(record: Mapping[str, Any]) -> dict[str, dict[str, list[list[Any]]]]:
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for profile, points in (record.get("plugins") or {}).items():
        got: dict[str, list[list[Any]]] = {}
        for point, plugin_set in points.items():
            enabled = (plugin_set or {}).get("Enabled") or []
            if enabled and point != "MultiPoint":
                got[point.lower()] = [[p["Name"], p["Weight"] if point == "Score" else 0] for p in enabled]
        out[profile] = got
    return out


def _compare_config(case: str, record: Mapping[str, Any], sched: Any) -> list[Difference]:
    diffs: list[Difference] = []
    want, got = _oracle_plugins(record), _profile_plugins(sched)
    for profile in sorted(set(want) | set(got)):
        w, g = want.get(profile, {}), got.get(profile, {})
        for point in sorted(set(w) | set(g)):
            if w.get(point) != g.get(point):
                diffs.append(
                    Difference(
                        case,
                        "-",
                        0,
                        f"config.profiles[{profile}].plugins.{point}",
                        w.get(point),
                        g.get(point),
                    )
                )
    # plugin args as defaulted, per profile
    theirs = {p.get("schedulerName"): p for p in (record.get("config") or {}).get("profiles") or []}
    ours = {p.get("schedulerName"): p for p in sched.config.to_dict().get("profiles") or []}
    for profile in sorted(set(theirs) | set(ours)):
        wa = {
            pc["name"]: _strip_meta(pc.get("args"))
            for pc in (theirs.get(profile) or {}).get("pluginConfig") or []
        }
        ga = {
            pc["name"]: _strip_meta(pc.get("args"))
            for pc in (ours.get(profile) or {}).get("pluginConfig") or []
        }
        for plugin in sorted(set(wa) | set(ga)):
            if plugin in wa and plugin in ga and wa[plugin] != ga[plugin]:
                diffs.append(
                    Difference(
                        case,
                        "-",
                        0,
                        f"config.profiles[{profile}].pluginConfig.args",
                        wa[plugin],
                        ga[plugin],
                        plugin=plugin,
                    )
                )
            elif plugin in wa and plugin not in ga and _enabled_anywhere(want.get(profile, {}), plugin):
                diffs.append(
                    Difference(
                        case,
                        "-",
                        0,
                        f"config.profiles[{profile}].pluginConfig",
                        wa[plugin],
                        None,
                        plugin=plugin,
                    )
                )
    return diffs


def _enabled_anywhere(points: Mapping[str, list[list[Any]]], plugin: str) -> bool:
    return any(p[0] == plugin for plugins in points.values() for p in plugins)


def _strip_meta(args: Any) -> Any:
    if isinstance(args, dict):
        return {k: v for k, v in args.items() if k not in ("apiVersion", "kind")}
    return args


# -- comparing ---------------------------------------------------------------------------------


def _compare_cycle(case: str, want: Mapping[str, Any], got: Mapping[str, Any]) -> list[Difference]:
    pod, attempt = want["pod"], want["attempt"]

    def diff(field: str, w: Any, g: Any, node: str | None = None, plugin: str | None = None) -> None:
        out.append(Difference(case, pod, attempt, field, w, g, node, plugin))

    out: list[Difference] = []
    if want["outcome"] != got["outcome"]:
        diff("outcome", want["outcome"], got["outcome"])
    if want["outcome"] == "gated" or got["outcome"] == "gated":
        return out
    w_nodes = [f["node"] for f in want.get("filter") or []]
    g_nodes = [f["node"] for f in got.get("filter") or []]
    if w_nodes != g_nodes:
        diff("nodeOrder", w_nodes, g_nodes)
    if want.get("preFilter") != got.get("preFilter"):
        diff("preFilter", want.get("preFilter"), got.get("preFilter"))
    g_filter = {f["node"]: f for f in got.get("filter") or []}
    for f in want.get("filter") or []:
        g = g_filter.get(f["node"])
        # reasons compared as a multiset: upstream lists a pod's extended resources in Go's
        # (random) map order
        if g is None or _unordered(g) != _unordered(f):
            diff("filter", _without_node(f), _without_node(g), node=f["node"])
    if want["outcome"] == "bound" and got["outcome"] == "bound":
        top = want.get("top")
        if top:
            if got["node"] not in top:
                diff("node", f"one of {top}", got["node"])
        elif want["node"] != got["node"]:
            diff("node", want["node"], got["node"])
    if want.get("message", "") != got.get("message", ""):
        diff("message", want.get("message", ""), got.get("message", ""))
    if want.get("podGroup") and want.get("podGroupCondition") != got.get("podGroupCondition"):
        diff("podGroupCondition", want.get("podGroupCondition"), got.get("podGroupCondition"))
    path = want.get("path")
    if path == "search" and want["outcome"] in ("bound", "unschedulable"):
        for field in ("startIndex", "nextStartIndex"):
            if want.get(field) != got.get(field):
                diff(field, want.get(field), got.get(field))
    if (want.get("scored") or []) != (got.get("scored") or []) and path == "search":
        diff("scored", want.get("scored"), got.get("scored"))
    g_scores = {s["node"]: s for s in got.get("scores") or []}
    for s in want.get("scores") or []:
        g = g_scores.get(s["node"])
        if g is None:
            continue  # reported as "scored"
        ws = {p["plugin"]: p["score"] for p in s["scores"]}
        gs = {p["plugin"]: p["score"] for p in g["scores"]}
        for plugin in sorted(set(ws) | set(gs)):
            if ws.get(plugin) != gs.get(plugin):
                diff("score", ws.get(plugin), gs.get(plugin), node=s["node"], plugin=plugin)
        if s["total"] != g["total"]:
            diff("total", s["total"], g["total"], node=s["node"])
    if want.get("nominatedNode", "") != got.get("nominatedNode", ""):
        diff("nominatedNode", want.get("nominatedNode", ""), got.get("nominatedNode", ""))
    if sorted(want.get("victims") or []) != sorted(got.get("victims") or []):
        diff("victims", sorted(want.get("victims") or []), sorted(got.get("victims") or []))
    return out


def _unordered(rec: Mapping[str, Any]) -> dict[str, Any]:
    return {**rec, "reasons": sorted(rec.get("reasons") or [])}


def _without_node(rec: Mapping[str, Any] | None) -> Any:
    if rec is None:
        return None
    return {k: v for k, v in rec.items() if k != "node"}


def diff_case(
    case: Path, record: Mapping[str, Any], *, release: str, feature_gates: Mapping[str, bool] | None = None
) -> CaseReport:
    """Replay *case* through schedframe against the oracle's *record* of it."""
    name = str(case)
    if record.get("error"):
        return CaseReport(name, release, 0, (), error=f"the oracle could not run the case: {record['error']}")
    items = read_case(case)
    config = next(
        (i for i in items if str(i.get("apiVersion", "")).startswith("kubescheduler.config.k8s.io/")), None
    )
    user_gates = _effective_gates(case, record, feature_gates)
    if record.get("configError"):
        from schedframe import SchedulerConfiguration

        try:
            SchedulerConfiguration.from_dict(
                config or {}, kubernetes_version=release, feature_gates=user_gates or None
            )
        except ValueError:
            return CaseReport(name, release, 0, ())
        return CaseReport(
            name, release, 0, (Difference(name, "-", 0, "configError", record["configError"], "accepted"),)
        )
    objects = [i for i in items if i is not config]
    pending = [i for i in objects if _is_pending_pod(i)]
    world = _World(
        others=[i for i in objects if i.get("kind") not in ("Node", "Pod")],
        nodes=[i for i in objects if i.get("kind") == "Node"],
        bound={_pod_key(i): i for i in objects if i.get("kind") == "Pod" and not _is_pending_pod(i)},
    )
    try:
        side = _Side(config, release, user_gates or None, world)
    except Exception as exc:
        return CaseReport(
            name, release, 0, (), error=f"schedframe refused the case: {type(exc).__name__}: {exc}"
        )
    diffs = _compare_config(name, record, side.sched)
    warnings: list[str] = []
    by_key = {_pod_key(p): p for p in pending}
    cycles = record.get("cycles") or []
    group_got: dict[str, dict[str, Any]] = {}
    for index, want in enumerate(cycles):
        for w in want.get("warnings") or []:
            warnings.append(f"{name}: {want['pod']}#{want['attempt']}: the oracle's own check: {w}")
        key = want["pod"]
        manifest = by_key[key]
        sched = side.sched
        if key in group_got:  # replayed with the first member of its PodGroup cycle
            got = group_got.pop(key)
        else:
            members = _group_cycle(cycles, index)
            for m in members:
                if m["attempt"] == 1 and sched.get_pod(m["pod"]) is None:
                    side.add_pending(by_key[m["pod"]])
                elif m["attempt"] > 1:
                    current = sched.get_pod(m["pod"])
                    if current is not None:
                        sched.queue.activate([current])
            if len(members) > 1 or members[0].get("placements") or (
                    members[0].get("podGroup") and members[0].get("cycle") is not None):
                group_got = _attempt_group(sched, members)
                got = group_got.pop(key)
            else:
                got = _attempt(sched, key)
        found = _compare_cycle(name, want, got) + _compare_claims(name, want, got, sched)
        diffs.extend(found)
        last = index + 1 == len(cycles) or cycles[index + 1]["pod"] != key
        # bring schedframe to the oracle's state
        _carry_group_condition(world, want)
        for victim in want.get("victims") or []:
            world.bound.pop(victim, None)
        for obj in want.get("storage") or []:
            # what the storage controllers wrote: the claims bound, the volumes provisioned
            world.others = [
                o for o in world.others if (o.get("kind"), _key(o)) != (obj.get("kind"), _key(obj))
            ]
            world.others.append(obj)
        if want["outcome"] == "bound":
            bound = json.loads(json.dumps(manifest))
            bound.setdefault("spec", {})["nodeName"] = want["node"]
            if want.get("startTime"):
                # the oracle's kubelet started the pod: the same start time here
                bound.setdefault("status", {}).update(startTime=want["startTime"], phase="Running")
            world.bound[key] = bound
        drifted = (
            bool(found)
            or got["outcome"] != want["outcome"]
            or (want["outcome"] == "bound" and got.get("node") != want.get("node"))
        )
        if drifted:
            retry: list[Mapping[str, Any]] = []
            if want["outcome"] == "unschedulable" and not last and want.get("nominatedNode"):
                nominated = json.loads(json.dumps(manifest))
                nominated.setdefault("status", {})["nominatedNodeName"] = want["nominatedNode"]
                retry.append(nominated)
            # the members of a PodGroup still held (gated, or waiting for their group's next
            # cycle) stay pending through the rebuild, as they do in the oracle
            retry.extend(by_key[p.pod.key] for p in sched.pending()
                         if p.pod.key != key and p.pod.scheduling_group is not None and p.pod.key in by_key)
            side.rebuild(world, start_index=_next_start(want, 0), pending=retry)
        elif want.get("deleted") or (last and want["outcome"] != "bound" and not want.get("podGroup")):
            sched.remove_pod(key)
        elif want["outcome"] == "bound" and want.get("startTime"):
            current = sched.get_pod(key)
            if current is not None:  # (gone in a rebuild after an earlier pod of its cycle drifted)
                sched.update_pod(current.evolve(start_time=_epoch(want["startTime"]), phase="Running"))
        elif want.get("path") == "search":
            sched._next_start_node_index = _next_start(want, sched._next_start_node_index)
    kept, covered = _split_deviations(release, diffs)
    return CaseReport(name, release, len(cycles), kept, tuple(warnings), deviations=covered)


def _group_condition(sched: Any, key: str) -> dict[str, str] | None:
    """The condition schedframe's PodGroup cycle left on pod *key*'s PodGroup, in the oracle's
    record format (``None``: no PodGroup, or no condition yet)."""
    from schedframe.api import SchedulingPodGroup

    pod = sched.get_pod(key)
    if pod is None or pod.scheduling_group is None:
        return None
    pg = sched.objects.get(SchedulingPodGroup, pod.scheduling_group, pod.namespace)
    cond = next((c for c in pg.conditions if c.type.startswith("PodGroup")), None) if pg is not None else None
    if cond is None:
        return None
    out = {"type": cond.type, "status": cond.status}
    out.update({k: v for k, v in (("reason", cond.reason), ("message", cond.message)) if v})
    return out


def _carry_group_condition(world: _World, want: Mapping[str, Any]) -> None:
    """Write the oracle's PodGroup condition after *want*'s cycle into the world, so that a
    rebuilt schedframe starts from the same PodGroup status."""
    cond, group = want.get("podGroupCondition"), want.get("podGroup")
    if not cond or not group:
        return
    ns, _, name = str(group).partition("/")
    for obj in world.others:
        meta = obj.get("metadata") or {}
        if obj.get("kind") == "PodGroup" and str(obj.get("apiVersion", "")).startswith("scheduling.k8s.io/") \
                and meta.get("name") == name and (meta.get("namespace") or "default") == ns:
            obj["status"] = {"conditions": [dict(cond)]}


def _next_start(want: Mapping[str, Any], default: int) -> int:
    """Where the oracle's round robin starts after *want*'s cycle: a PodGroup cycle with
    placements records it apart (each member's ``nextStartIndex`` is its own trial's)."""
    return int(want.get("cycleNextStartIndex", want.get("nextStartIndex", default)))


def _claim_view(allocation: Any, reserved: Any) -> dict[str, Any]:
    return {"allocation": allocation, "reservedFor": sorted(reserved)}


def _compare_claims(
    name: str, want: Mapping[str, Any], got: Mapping[str, Any], sched: Any
) -> list[Difference]:
    """The ResourceClaims the oracle's scheduler wrote in the cycle against schedframe's: the
    devices allocated (request, driver, pool, device) and the pods reserving the claim. When
    schedframe bound the pod to another of the top-scoring nodes (a tie), its devices are that
    node's: nothing to compare (the oracle's claims replace schedframe's)."""
    from schedframe.api import ResourceClaim

    if want.get("outcome") == "bound" and got.get("node") != want.get("node"):
        return []

    written: dict[tuple[str, str], Mapping[str, Any]] = {}
    for obj in want.get("storage") or []:
        if obj.get("kind") == "ResourceClaim":
            written[_key(obj)] = obj  # the last write wins
    out: list[Difference] = []
    for (ns, claim_name), obj in sorted(written.items()):
        status = obj.get("status") or {}
        results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or []
        oracle = _claim_view(
            [[r.get("request"), r.get("driver"), r.get("pool"), r.get("device")] for r in results] or None,
            [c.get("name") for c in status.get("reservedFor") or []],
        )
        claim = sched.objects.get(ResourceClaim, claim_name, ns)
        mine = None
        if claim is not None:
            alloc = claim.allocation
            mine = _claim_view(
                [[r.request, r.driver, r.pool, r.device] for r in alloc.results] if alloc else None,
                [c.name for c in claim.reserved_for],
            )
        if mine != oracle:
            out.append(
                Difference(name, want["pod"], want["attempt"], f"claim {ns}/{claim_name}", oracle, mine)
            )
    return out


def _epoch(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _group_cycle(cycles: Sequence[Mapping[str, Any]], index: int) -> list[Mapping[str, Any]]:
    """The records of the PodGroup cycle that starts at *index* (one record unless the oracle
    placed several pods in one cycle: they share ``cycle``)."""
    first = cycles[index]
    if first.get("cycle") is None or not first.get("podGroup"):
        return [first]
    out = [first]
    for later in cycles[index + 1:]:
        if later.get("cycle") != first.get("cycle"):
            break
        out.append(later)
    return out


class _Probes:
    """One :class:`_Probe` per pod of a PodGroup cycle and placement it was tried in (the
    placement's sorted node names; ``None`` for every node)."""

    def __init__(self, sched: Any) -> None:
        self.sched = sched
        self.by_pod: dict[tuple[str, tuple[str, ...] | None], _Probe] = {}

    def __call__(self, phase: Any) -> None:
        placement = self.sched._placement
        key = None if placement is None else tuple(sorted(placement.nodes))
        probe = self.by_pod.setdefault((phase.pod.key, key), _Probe())
        if probe.phase is not None:
            # the same trial again (workload-aware preemption's runs): as the oracle, the pod's
            # record is its first trial
            return
        probe(phase, None if placement is None else placement.nodes)


def _force_placements(sched: Any, records: Sequence[Mapping[str, Any]]) -> None:
    """Make schedframe try the placements in the order the oracle's cycle tried them (Go's map
    order), and prefer among equally scored ones the placement the oracle bound the group in."""
    tried = [tuple(p) for p in (records[0].get("placements") or [])] if records else []
    chosen = next((tuple(r["placement"]) for r in records
                   if r.get("outcome") == "bound" and r.get("placement")), None)
    rank = {p: i for i, p in enumerate(tried)}

    def order(placements: list[Any]) -> list[Any]:
        return sorted(placements, key=lambda pl: rank.get(tuple(sorted(pl.nodes)), len(rank)))

    def prefer(placement: Any) -> int:
        return 0 if tuple(sorted(placement.nodes)) == chosen else 1

    sched._placement_order = order if tried else None
    sched._placement_tie_break = prefer if chosen is not None else None


def _attempt_group(sched: Any, records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """One PodGroup cycle of schedframe for the pods *keys*, in the oracle's order: the members
    are tried in the order the oracle's cycle took them (upstream 1.36 orders them by a
    timestamp set in Go's map order), each recorded as the oracle records it. A tie between
    top-scoring nodes goes to the node the oracle chose (*nodes*), as the rebuild after a tie
    does between cycles: the members after it see the same cluster. With
    TopologyAwareWorkloadScheduling the placements are tried in the oracle's order and a member's
    record is its trial in the placement the oracle recorded (``placement``)."""
    keys = [m["pod"] for m in records]
    nodes = {m["pod"]: m.get("node") or m.get("nominatedNode") for m in records}
    want_placement = {m["pod"]: tuple(m["placement"]) if m.get("placement") else None for m in records}
    probes = _Probes(sched)
    _force_placements(sched, records)

    def prefer_oracle(node: str) -> int:
        current = sched._current
        return 0 if current is not None and nodes.get(current[0].key) == node else 1

    saved_tie_break = sched._tie_break
    sched._tie_break = prefer_oracle
    queued = [sched.queue.get(p) if (p := sched.get_pod(k)) is not None else None for k in keys]
    for i, pinfo in enumerate(queued):
        if pinfo is not None:
            pinfo.initial_attempt_timestamp = float(i)  # the comparator forces the oracle's order
    before = {p.key for p in sched.pods() if p.node_name}
    sched._on_filtered = probes
    try:
        sched.schedule_one()
    finally:
        sched._on_filtered = None
        sched._tie_break = saved_tie_break
        sched._placement_order = sched._placement_tie_break = None
    after = {p.key for p in sched.pods() if p.node_name}
    out: dict[str, dict[str, Any]] = {}
    victims = sorted(before - after)
    # as the oracle records them: on each pod the cycle nominated a node, else on the first
    nominated = {k for k in keys if (p := sched.get_pod(k)) is not None and not p.node_name
                 and p.nominated_node_name}
    for k in keys:
        probe = probes.by_pod.get((k, want_placement[k]), _Probe())
        pod = sched.get_pod(k)
        mine = k in nominated or (not nominated and not out) or len(keys) == 1
        rec: dict[str, Any] = {"victims": victims if mine else [],
                               "filter": probe.filter, "preFilter": probe.pre_filter,
                               "scores": probe.scores, "errors": probe.errors}
        if probe.phase is not None:
            rec["startIndex"] = probe.phase.start_index
            rec["nextStartIndex"] = probe.phase.next_start_index
            rec["scored"] = list(probe.phase.feasible) if len(probe.phase.feasible) >= 2 else []
        else:  # a member the cycle did not reach (1.37 stops once the quorum cannot be met)
            rec["preFilter"] = {"code": ""}
        if pod is not None and pod.node_name:
            rec.update(outcome="bound", node=pod.node_name)
        else:
            failure = next((p for p in sched.pending() if p.pod.key == k), None)
            rec.update(outcome="unschedulable", message=failure.message if failure is not None else "",
                       nominatedNode=pod.nominated_node_name if pod is not None else "")
        rec["podGroupCondition"] = _group_condition(sched, k)
        out[k] = rec
    return out


def _attempt(sched: Any, key: str) -> dict[str, Any]:
    """One scheduling cycle of schedframe for pod *key*, as the oracle records it."""
    probe = _Probe()
    sched._on_filtered = probe
    before = {p.key for p in sched.pods() if p.node_name}
    gated = next((p for p in sched.pending() if p.pod.key == key and p.where == "Gated"), None)
    if gated is not None:
        return {"outcome": "gated", "message": gated.message}
    try:
        sched.schedule_one()
    finally:
        sched._on_filtered = None
    pod = sched.get_pod(key)
    after = {p.key for p in sched.pods() if p.node_name}
    victims = sorted(before - after)
    out: dict[str, Any] = {
        "victims": victims,
        "filter": probe.filter,
        "preFilter": probe.pre_filter,
        "scores": probe.scores,
        "errors": probe.errors,
    }
    phase = probe.phase
    if phase is not None:
        out["startIndex"] = phase.start_index
        out["nextStartIndex"] = phase.next_start_index
        out["scored"] = list(phase.feasible) if len(phase.feasible) >= 2 else []
    if pod is not None and pod.node_name:
        out["outcome"] = "bound"
        out["node"] = pod.node_name
    else:
        failure = next((p for p in sched.pending() if p.pod.key == key), None)
        out["outcome"] = "unschedulable"
        out["message"] = failure.message if failure is not None else ""
        out["nominatedNode"] = pod.nominated_node_name if pod is not None else ""
    out["podGroupCondition"] = _group_condition(sched, key)
    return out


def schedframe_record(
    case: Path, *, release: str, feature_gates: Mapping[str, bool] | None = None
) -> dict[str, Any]:
    """What schedframe alone makes of *case*, in the oracle's record format (the same protocol:
    one attempt per pending pod, a second after a preemption, a pod left unscheduled deleted).
    ``diff_case(case, schedframe_record(case))`` finds nothing; the comparator's own tests
    change a field of it and check that the difference is found."""
    items = read_case(case)
    config = next(
        (i for i in items if str(i.get("apiVersion", "")).startswith("kubescheduler.config.k8s.io/")), None
    )
    objects = [i for i in items if i is not config]
    pending = [i for i in objects if _is_pending_pod(i)]
    world = _World(
        others=[i for i in objects if i.get("kind") not in ("Node", "Pod")],
        nodes=[i for i in objects if i.get("kind") == "Node"],
        bound={_pod_key(i): i for i in objects if i.get("kind") == "Pod" and not _is_pending_pod(i)},
    )
    side = _Side(config, release, dict(feature_gates) if feature_gates else None, world)
    sched = side.sched
    cycles: list[dict[str, Any]] = []
    for manifest in pending:
        key = _pod_key(manifest)
        side.add_pending(manifest)
        for attempt in (1, 2):
            got = _attempt(sched, key)
            got.pop("errors", None)
            scores = got.get("scores") or []
            top = max((s["total"] for s in scores), default=None)
            rec = {"pod": key, "attempt": attempt, "path": "search", **got}
            if top is not None:
                rec["top"] = sorted(s["node"] for s in scores if s["total"] == top)
                rec["topScore"] = top
            cycles.append(rec)
            if got["outcome"] == "unschedulable" and got.get("nominatedNode") and attempt == 1:
                sched.queue.activate([sched.get_pod(key)])
                continue
            break
        if not (sched.get_pod(key) and sched.get_pod(key).node_name):
            sched.remove_pod(key)
            cycles[-1]["deleted"] = True
    plugins = {
        profile: {
            point: {"Enabled": [{"Name": n, "Weight": w} for n, w in refs]} for point, refs in points.items()
        }
        for profile, points in _profile_plugins(sched).items()
    }
    return {
        "release": release,
        "config": sched.config.to_dict(),
        "plugins": _oracle_point_names(plugins),
        "cycles": cycles,
    }


def _oracle_point_names(plugins: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The oracle spells extension points as Go fields (``PreFilter``); schedframe's are
    lowerCamel (``preFilter``) and lower-cased by :func:`_profile_plugins`."""
    from schedframe.config import EXTENSION_POINTS

    go = {p.lower(): p[0].upper() + p[1:] for p in EXTENSION_POINTS}
    return {profile: {go.get(k, k): v for k, v in points.items()} for profile, points in plugins.items()}
