"""``explain``: a structured record of one scheduling attempt.

kube-scheduler tells you *that* a pod fits nowhere (``0/5 nodes are available: ...``) and, once it
is bound, *where* it went -- never the per-node, per-plugin detail in between. :func:`~schedframe.explain`
runs the scheduling cycle of one pod against a cluster and keeps everything:

* PreEnqueue: the gate that would keep the pod out of the queue, if any;
* PreFilter: each plugin's status, reasons and :class:`~schedframe.PreFilterResult` node set, the
  plugins that returned Skip, and the intersected result;
* Filter: for every node, the status of **every** filter plugin in run order (kube-scheduler stops
  at the first failure; the record goes on, and marks that first failure as the point where
  upstream stopped). A node's verdict is exactly what :meth:`Framework.run_filter_plugins
  <schedframe.Framework.run_filter_plugins>` returns; nodes outside the PreFilterResult are
  recorded as excluded, with the status kube-scheduler gives them;
* PreScore / Score: the plugins skipped at PreScore and, for every feasible node, every score
  plugin's raw score, normalized score, weight and weighted score, and the total;
* the verdict: the selected node (highest total; ties broken with a seeded RNG exactly as
  :class:`~schedframe.Scheduler` breaks them), or kube-scheduler's failure message.

Each step runs through the framework's own runtime, not a copy of it: PreFilter and PreScore
through the *trace* of :meth:`Framework.run_pre_filter_plugins
<schedframe.Framework.run_pre_filter_plugins>` and :meth:`Framework.run_pre_score_plugins
<schedframe.Framework.run_pre_score_plugins>`, Filter through :meth:`Framework.run_filter_plugins_each
<schedframe.Framework.run_filter_plugins_each>` (whose first failure is ``run_filter_plugins``'
verdict by construction), Score through :meth:`Framework.run_score_plugins_detailed
<schedframe.Framework.run_score_plugins_detailed>`. Every status and message -- a plugin raising,
returning the wrong type or an invalid score, batch scoring -- is the scheduler's.

:func:`~schedframe.explain_with` does the same with an existing framework and snapshot (what
``Scheduler.explain`` builds on). Nothing is reserved, permitted or bound, and PostFilter
(preemption) is not run: explaining has no side effects on the cluster.

Where the record may differ from a real scheduling cycle (documented, by design):

* every node is evaluated; kube-scheduler stops filtering once it has found
  ``percentageOfNodesToScore`` feasible nodes (clusters of 100 nodes or more) and starts each
  cycle at a rotating node index, so it may score a subset;
* filters run without pods nominated to the node (``run_filter_plugins``, not
  ``run_filter_plugins_with_nominated_pods``);
* the tie-break draws from ``random.Random(seed)`` (or the RNG passed in); a scheduler that has
  already drawn from its RNG, or that scores nodes in another order, can choose another node among
  the tied ones;
* the failure message has no PostFilter part (preemption is not attempted).

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from .. import _html
from ..api.objects import Node, Pod
from ..cache.nodeinfo import NodeInfo
from ..cache.store import ObjectStore
from ..errors import ArgumentTypeError, ExtenderError, SchedulerError, did_you_mean
from ..framework.clock import FakeClock
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import (
    ERR_NO_NODES_AVAILABLE,
    Diagnosis,
    FitError,
    outside_pre_filter_result,
)
from ..framework.extender import (
    EXTENDER_NAME,
    Extender,
    ExtenderTransport,
    FilterOutcome,
    build_extenders,
    extenders_filter,
    extenders_prioritize,
)
from ..framework.handle import SharedLister
from ..framework.interfaces import PreFilterResult
from ..framework.registry import Registry
from ..framework.runtime import Framework, ProfileLike
from ..framework.status import Code, Status
from ._eventhandlers import _as_node, _as_pod

if TYPE_CHECKING:
    from ..config.configuration import SchedulerConfiguration

__all__ = [
    "Explanation",
    "NodeScores",
    "NodeVerdict",
    "PluginNodeScore",
    "PluginVerdict",
    "explain",
    "explain_with",
]

_SUCCESS: Final = Code.SUCCESS

#: filter matrix cells
_PASS: Final = "pass"
_STOP: Final = "FAIL*"
_FAIL: Final = "fail"
_STOP_ERROR: Final = "ERROR*"
_ERROR: Final = "error"
_SKIP: Final = "skip"
_NOT_RUN: Final = "-"


# -- records ------------------------------------------------------------------------------------

def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _sorted_names(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(sorted(value))


def _sorted_tuple(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(value))


@final
@attrs.frozen
class PluginVerdict:
    """One plugin's status at one extension point (or a node's overall verdict).

    Attributes:
        plugin: the plugin's name (``""`` for an overall success).
        code: the :class:`~schedframe.Code`; ``SKIP`` in a Filter row means the plugin returned
            Skip at PreFilter, so its Filter was not run.
        reasons: the status reasons.
        node_names: PreFilter only: the node names of the plugin's
            :class:`~schedframe.PreFilterResult` (sorted), ``None`` for all nodes.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.scheduler"

    plugin: str
    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    node_names: tuple[str, ...] | None = attrs.field(default=None, converter=_sorted_names)

    @classmethod
    def of(cls, plugin: str, status: Status | None, node_names: Iterable[str] | None = None) -> PluginVerdict:
        """The record of *status* (``None`` is success) returned by *plugin*."""
        if status is None:
            return cls(plugin, _SUCCESS, (), node_names)
        return cls(plugin, status.code, status.reasons, node_names)

    @property
    def passed(self) -> bool:
        """True for ``SUCCESS``."""
        return self.code is _SUCCESS

    @property
    def message(self) -> str:
        """The reasons joined with ``", "``."""
        return ", ".join(self.reasons)

    def to_dict(self) -> dict[str, Any]:
        """``{"plugin", "code", "reasons"}`` (plus ``"node_names"`` when set); ``code`` is the
        upstream name (``"Unschedulable"``)."""
        out: dict[str, Any] = {"plugin": self.plugin, "code": str(self.code), "reasons": list(self.reasons)}
        if self.node_names is not None:
            out["node_names"] = list(self.node_names)
        return out


@final
@attrs.frozen
class NodeVerdict:
    """Filter on one node.

    Attributes:
        node: the node's name.
        verdict: the node's status as the framework reports it: success (plugin ``""``) or the
            first rejection / error, attributed to its plugin; for a node not evaluated, the
            status kube-scheduler records for it (the PreFilter rejection, or
            ``node(s) didn't satisfy plugin(s) [...]`` for nodes outside the PreFilterResult).
        checks: every Filter plugin's status, in run order (``SKIP`` for plugins skipped at
            PreFilter); empty when the node was not evaluated.
        stopped_at: the plugin at which kube-scheduler stopped (the first failing one), or
            ``None`` when the node passed or was not evaluated.
        evaluated: False when PreFilter rejected the pod or its result excluded the node.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.scheduler"

    node: str
    verdict: PluginVerdict
    checks: tuple[PluginVerdict, ...] = attrs.field(default=(), converter=_tuple)
    stopped_at: str | None = None
    evaluated: bool = True

    @property
    def feasible(self) -> bool:
        """True when the pod passed every filter on this node."""
        return self.evaluated and self.verdict.code is _SUCCESS

    def check(self, plugin: str) -> PluginVerdict | None:
        """The status of Filter plugin *plugin* on this node, or ``None``."""
        for c in self.checks:
            if c.plugin == plugin:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "node": self.node,
            "verdict": self.verdict.to_dict(),
            "checks": [c.to_dict() for c in self.checks],
            "stopped_at": self.stopped_at,
            "evaluated": self.evaluated,
        }


@final
@attrs.frozen
class PluginNodeScore:
    """One score plugin on one node: ``weighted == normalized * weight``.

    ``raw`` is what Score returned; ``normalized`` what NormalizeScore made of it (equal to
    ``raw`` for plugins without NormalizeScore).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.scheduler"

    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {"plugin": self.plugin, "raw": self.raw, "normalized": self.normalized,
                "weight": self.weight, "weighted": self.weighted}


@final
@attrs.frozen
class NodeScores:
    """Every active score plugin on one feasible node, and the total weighted score.

    Without any Score plugin enabled kube-scheduler gives every feasible node the total 1;
    ``scores`` is then empty.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.scheduler"

    node: str
    scores: tuple[PluginNodeScore, ...] = attrs.field(converter=_tuple)
    total: int

    def score(self, plugin: str) -> PluginNodeScore | None:
        """The score of *plugin* on this node, or ``None``."""
        for s in self.scores:
            if s.plugin == plugin:
                return s
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {"node": self.node, "scores": [s.to_dict() for s in self.scores], "total": self.total}


@final
@attrs.frozen(kw_only=True)
class Explanation:
    """The record of one scheduling attempt of :attr:`pod` (see :func:`~schedframe.explain`).

    Attributes:
        pod: the pod.
        profile: the scheduler name of the profile that ran.
        num_nodes: nodes in the snapshot.
        code: the outcome: ``SUCCESS`` (a node was selected), ``UNSCHEDULABLE`` (no node fits:
            :attr:`message` is kube-scheduler's ``0/N nodes are available: ...``),
            ``UNSCHEDULABLE_AND_UNRESOLVABLE`` (no nodes at all, or gated), ``PENDING`` (gated at
            PreEnqueue), or ``ERROR`` (a plugin failed; :attr:`message` says which).
        message: the failure message; ``""`` on success.
        selected_node: the node the pod would be bound to, or ``None``.
        pre_enqueue: the PreEnqueue status when it keeps the pod out of the queue (then nothing
            else ran), else ``None``.
        pre_filter: each PreFilter plugin that ran, in order.
        pre_filter_status: PreFilter's overall status (success, the rejection, or the error).
        pre_filter_result: the intersected PreFilterResult node names (sorted), ``None`` for all.
        filter_plugins: the enabled Filter plugins, in run order.
        filter_skipped: Filter plugins skipped because their PreFilter returned Skip (sorted).
        nodes: one :class:`~schedframe.scheduler.NodeVerdict` per node, in snapshot order (empty when
            PreFilter
            failed with an error, or before PreFilter).
        pre_score: each PreScore plugin that ran, in order (empty when scoring was not needed).
        score_plugins: the enabled Score plugins, in order.
        score_skipped: Score plugins skipped because their PreScore returned Skip (sorted).
        scores: one :class:`~schedframe.scheduler.NodeScores` per feasible node, in node order (empty when
            fewer than
            two nodes were feasible: kube-scheduler does not score a single node).
        tied_nodes: the nodes sharing the highest total (a tie-break chose among them).
        seed: the seed of the tie-breaking RNG (``None`` when an RNG was passed in).
        notes: remarks on how the outcome was reached (single feasible node, nominated node...).

    ``to_dict()`` / ``to_json()`` give JSON; ``render()`` (and ``str()``) a text report.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    pod: Pod
    profile: str
    num_nodes: int
    code: Code
    message: str = ""
    selected_node: str | None = None
    pre_enqueue: PluginVerdict | None = None
    pre_filter: tuple[PluginVerdict, ...] = attrs.field(default=(), converter=_tuple)
    pre_filter_status: PluginVerdict = PluginVerdict("")
    pre_filter_result: tuple[str, ...] | None = attrs.field(default=None, converter=_sorted_names)
    filter_plugins: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    filter_skipped: tuple[str, ...] = attrs.field(default=(), converter=_sorted_tuple)
    nodes: tuple[NodeVerdict, ...] = attrs.field(default=(), converter=_tuple)
    pre_score: tuple[PluginVerdict, ...] = attrs.field(default=(), converter=_tuple)
    score_plugins: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    score_skipped: tuple[str, ...] = attrs.field(default=(), converter=_sorted_tuple)
    scores: tuple[NodeScores, ...] = attrs.field(default=(), converter=_tuple)
    tied_nodes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    seed: int | None = 0
    notes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)

    # -- queries --------------------------------------------------------------------------------
    @property
    def scheduled(self) -> bool:
        """True when a node was selected."""
        return self.selected_node is not None

    @property
    def feasible_nodes(self) -> tuple[str, ...]:
        """Names of the nodes that passed every filter, in node order."""
        return tuple(n.node for n in self.nodes if n.feasible)

    def node(self, name: str) -> NodeVerdict:
        """The Filter record of node *name*.

        Raises:
            KeyError: no node of that name was recorded.
        """
        for n in self.nodes:
            if n.node == name:
                return n
        raise KeyError(f"no node named {name!r} in the explanation{did_you_mean(name, self._names())}")

    def node_scores(self, name: str) -> NodeScores | None:
        """The scores of node *name*, or ``None`` when it was not scored."""
        for s in self.scores:
            if s.node == name:
                return s
        return None

    def _names(self) -> list[str]:
        return [n.node for n in self.nodes]

    # -- JSON -----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping with the attribute names as keys (the pod as
        ``{"namespace", "name", "uid"}``, codes as upstream names such as ``"Unschedulable"``)."""
        return {
            "pod": {"namespace": self.pod.namespace, "name": self.pod.name, "uid": self.pod.uid},
            "profile": self.profile,
            "num_nodes": self.num_nodes,
            "code": str(self.code),
            "message": self.message,
            "selected_node": self.selected_node,
            "pre_enqueue": None if self.pre_enqueue is None else self.pre_enqueue.to_dict(),
            "pre_filter": [v.to_dict() for v in self.pre_filter],
            "pre_filter_status": self.pre_filter_status.to_dict(),
            "pre_filter_result": None if self.pre_filter_result is None else list(self.pre_filter_result),
            "filter_plugins": list(self.filter_plugins),
            "filter_skipped": list(self.filter_skipped),
            "nodes": [n.to_dict() for n in self.nodes],
            "pre_score": [v.to_dict() for v in self.pre_score],
            "score_plugins": list(self.score_plugins),
            "score_skipped": list(self.score_skipped),
            "scores": [s.to_dict() for s in self.scores],
            "tied_nodes": list(self.tied_nodes),
            "seed": self.seed,
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    # -- text -----------------------------------------------------------------------------------
    def render(self) -> str:
        """A text report: the outcome, PreFilter, the Filter matrix (nodes x plugins), the
        reasons, the score table (raw/normalized/weighted per plugin, totals) and notes."""
        return "\n".join(_render(self)) + "\n"

    def __str__(self) -> str:
        return self.render()

    def _repr_html_(self) -> str:
        """In a notebook: the outcome, the Filter matrix and the scores, as escaped HTML tables
        of at most :data:`schedframe._html.MAX_ROWS` rows each."""
        return _render_html(self)


# -- rendering ------------------------------------------------------------------------------------

def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Iterable[int] = (),
           indent: str = "  ") -> list[str]:
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    right_cols = set(right)

    def fmt(row: Sequence[str]) -> str:
        cells = [c.rjust(w) if i in right_cols else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        return (indent + "  ".join(cells)).rstrip()

    return [fmt(header), *(fmt(r) for r in rows)]


def _outcome_line(e: Explanation) -> str:
    if e.selected_node is not None:
        return f"Result: scheduled to {e.selected_node}"
    return f"Result: {e.code}: {e.message}"


def _filter_cell(check: PluginVerdict, stopped_at: str | None) -> str:
    code = check.code
    if code is _SUCCESS:
        return _PASS
    if code is Code.SKIP:
        return _SKIP
    first = check.plugin == stopped_at
    if code is Code.ERROR:
        return _STOP_ERROR if first else _ERROR
    return _STOP if first else _FAIL


def _node_result(n: NodeVerdict, pre_filter_rejected: bool) -> str:
    if not n.evaluated:
        return "rejected at PreFilter" if pre_filter_rejected else "excluded by PreFilterResult"
    if n.verdict.code is _SUCCESS:
        return "feasible"
    return f"{n.verdict.code} ({n.verdict.plugin})" if n.verdict.plugin else str(n.verdict.code)


def _pre_filter_nodes(v: PluginVerdict) -> str:
    if not v.passed:
        return ""
    return "all" if v.node_names is None else ", ".join(v.node_names) or "(none)"


def _render(e: Explanation) -> list[str]:
    pod = e.pod
    out = [f"Pod {pod.key} (profile {e.profile}, {e.num_nodes} node(s))", _outcome_line(e)]
    if e.pre_enqueue is not None:
        out.append(f"PreEnqueue: {e.pre_enqueue.plugin}: {e.pre_enqueue.code}: {e.pre_enqueue.message}")
    if e.pre_filter:
        out += ["", "PreFilter:"]
        rows = [[v.plugin, str(v.code), _pre_filter_nodes(v), v.message] for v in e.pre_filter]
        out += _table(["PLUGIN", "STATUS", "NODES", "REASONS"], rows)
        result = "all nodes" if e.pre_filter_result is None else ", ".join(e.pre_filter_result) or "(none)"
        out.append(f"  PreFilterResult: {result}")
        if e.filter_skipped:
            out.append(f"  Filter skipped for: {', '.join(e.filter_skipped)}")
    pre_filter_rejected = not e.pre_filter_status.passed
    if e.nodes:
        out += ["", "Filter:"]
        header = ["NODE", *e.filter_plugins, "VERDICT"]
        rows = []
        for n in e.nodes:
            if n.evaluated:
                cells = [_filter_cell(c, n.stopped_at) for c in n.checks]
            else:
                cells = [_NOT_RUN] * len(e.filter_plugins)
            rows.append([n.node, *cells, _node_result(n, pre_filter_rejected)])
        out += _table(header, rows)
        if any(n.stopped_at for n in e.nodes):
            out.append("  * = where kube-scheduler stops (first failure); later plugins ran for this record")
        reasons: list[str] = []
        width = max(len(n.node) for n in e.nodes)
        for n in e.nodes:
            if n.feasible:
                continue
            if n.evaluated:
                lines = [f"{c.plugin}{'*' if c.plugin == n.stopped_at else ''}: {c.message or c.code}"
                         for c in n.checks if c.code not in (_SUCCESS, Code.SKIP)]
            else:
                lines = [n.verdict.message or str(n.verdict.code)]
            for i, line in enumerate(lines):
                reasons.append(f"  {(n.node if i == 0 else '').ljust(width)}  {line}")
        if reasons:
            out += ["", "Reasons:", *reasons]
    if e.pre_score:
        out += ["", "PreScore:"]
        rows = [[v.plugin, str(v.code), v.message] for v in e.pre_score]
        out += _table(["PLUGIN", "STATUS", "REASONS"], rows)
    if e.scores:
        active = [s.plugin for s in e.scores[0].scores]
        weights = {s.plugin: s.weight for s in e.scores[0].scores}
        out += ["", "Score (raw/normalized/weighted):"]
        header = ["NODE", *(f"{p} x{weights[p]}" for p in active), "TOTAL", ""]
        rows = []
        for ns in e.scores:
            cells = [f"{s.raw}/{s.normalized}/{s.weighted}" for s in ns.scores]
            mark = "<- selected" if ns.node == e.selected_node else ""
            rows.append([ns.node, *cells, str(ns.total), mark])
        out += _table(header, rows, right=range(1, len(active) + 2))
        if e.score_skipped:
            out.append(f"  skipped at PreScore: {', '.join(e.score_skipped)}")
    if e.notes:
        out += ["", "Notes:", *(f"  - {note}" for note in e.notes)]
    return out


def _render_html(e: Explanation) -> str:
    parts = [_html.paragraph(f"Pod {e.pod.key} (profile {e.profile}, {e.num_nodes} node(s))", bold=True),
             _html.paragraph(_outcome_line(e))]
    if e.pre_enqueue is not None:
        parts.append(_html.paragraph(f"PreEnqueue: {e.pre_enqueue.plugin}: {e.pre_enqueue.message}"))
    rejected = not e.pre_filter_status.passed
    if e.nodes:
        rows: list[list[Any]] = [[n.node, *([_filter_cell(c, n.stopped_at) for c in n.checks] if n.evaluated
                           else [_NOT_RUN] * len(e.filter_plugins)),
                 _node_result(n, rejected),
                 "" if n.feasible else (n.verdict.message or str(n.verdict.code))] for n in e.nodes]
        parts.append(_html.paragraph("Filter", bold=True))
        parts.append(_html.table(["node", *e.filter_plugins, "verdict", "reason"], rows, total=len(rows)))
    if e.scores:
        active = [f"{s.plugin} x{s.weight}" for s in e.scores[0].scores]
        ranked = sorted(e.scores, key=lambda ns: (-ns.total, ns.node != e.selected_node))
        scored: list[list[Any]] = [[ns.node, *(s.weighted for s in ns.scores), ns.total,
                 "selected" if ns.node == e.selected_node else ""] for ns in ranked]
        parts.append(_html.paragraph("Score (weighted; best first)", bold=True))
        parts.append(_html.table(["node", *active, "total", ""], scored, total=len(scored)))
    if e.notes:
        parts.append("<ul>" + "".join(f"<li>{_html.cell(n)}</li>" for n in e.notes) + "</ul>")
    return "<div>" + "".join(parts) + "</div>"


# -- the attempt ----------------------------------------------------------------------------------

def _iterable(value: object, where: str) -> Iterable[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ArgumentTypeError(f"{where} must be an iterable of objects or manifests, got "
                                f"{type(value).__name__}")
    return value


@final
class _Attempt:
    """Runs one scheduling cycle with the framework's semantics, recording every step."""

    def __init__(self, framework: Framework, snapshot: SharedLister, pod: Pod, state: CycleState,
                 rng: random.Random, seed: int | None) -> None:
        self.fw = framework
        self.snapshot = snapshot
        self.pod = pod
        self.state = state
        self.rng = rng
        self.fields: dict[str, Any] = {
            "pod": pod, "profile": framework.profile_name, "seed": seed,
            "filter_plugins": framework.plugins_at("filter"),
            "score_plugins": framework.plugins_at("score"),
        }
        self.notes: list[str] = []

    def done(self, code: Code, message: str = "", selected: str | None = None) -> Explanation:
        if code is Code.UNSCHEDULABLE and self.fw.has_post_filter_plugins():
            self.notes.append(f"PostFilter ({', '.join(self.fw.plugins_at('postFilter'))}) was not run: "
                              "kube-scheduler would try preemption now and append its outcome to the "
                              "message")
        return Explanation(code=code, message=message, selected_node=selected, notes=self.notes,
                           **self.fields)

    def run(self) -> Explanation:
        fw, pod = self.fw, self.pod
        all_nodes = list(self.snapshot.node_infos().list())
        self.fields["num_nodes"] = len(all_nodes)

        gate = fw.run_pre_enqueue_plugins(pod)
        if gate.code is not _SUCCESS:
            self.fields["pre_enqueue"] = PluginVerdict.of(gate.plugin, gate)
            self.notes.append("PreEnqueue keeps the pod out of the scheduling queue: no cycle runs")
            return self.done(gate.code, gate.message)
        if not all_nodes:
            return self.done(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_NODES_AVAILABLE)

        result, pf_status, rejectors = self.pre_filter()
        diagnosis = Diagnosis()
        diagnosis.unschedulable_plugins = set(rejectors)
        if pf_status.code is not _SUCCESS:
            if not pf_status.is_rejected():
                return self.done(Code.ERROR, pf_status.message)
            verdict = PluginVerdict.of(pf_status.plugin, pf_status)
            self.fields["nodes"] = [NodeVerdict(ni.name, verdict, evaluated=False) for ni in all_nodes]
            diagnosis.reject_all(pf_status)
            return self.done(Code.UNSCHEDULABLE, FitError(pod, len(all_nodes), diagnosis).message)

        allowed = None if result is None else result.node_names
        self.fields["pre_filter_result"] = allowed
        absent = outside_pre_filter_result(rejectors)
        if allowed is not None:
            diagnosis.node_to_status.absent_nodes_status = absent
        records: list[NodeVerdict] = []
        feasible: list[NodeInfo] = []
        error: Status | None = None
        for ni in all_nodes:
            if allowed is not None and ni.name not in allowed:
                records.append(NodeVerdict(ni.name, PluginVerdict.of("", absent), evaluated=False))
                continue
            record, status = self.filter_node(ni)
            records.append(record)
            if status.code is _SUCCESS:
                feasible.append(ni)
            elif status.code is Code.ERROR:
                error = error or status
            else:
                diagnosis.node_to_status.set(ni.name, status)
        if error is None and feasible and self.extenders:
            feasible, ext_error = self.extender_filter(feasible, records, diagnosis)
            if ext_error is not None:
                return self.done(Code.ERROR, ext_error.message)
        self.fields["nodes"] = records

        nominated = self.nominated_shortcut(pod, records, allowed)
        if nominated is not None:
            return self.done(_SUCCESS, selected=nominated)
        if error is not None:
            return self.done(Code.ERROR, error.message)
        if not feasible:
            return self.done(Code.UNSCHEDULABLE, FitError(pod, len(all_nodes), diagnosis).message)
        if len(feasible) == 1:
            self.notes.append("only one node is feasible: kube-scheduler selects it without scoring")
            return self.done(_SUCCESS, selected=feasible[0].name)
        return self.score_and_select(feasible)

    # -- PreFilter --------------------------------------------------------------------------------
    def pre_filter(self) -> tuple[PreFilterResult | None, Status, set[str]]:
        """``Framework.run_pre_filter_plugins``, recording each plugin through its trace."""
        steps: list[PluginVerdict] = []

        def record(name: str, status: Status | None, result: PreFilterResult | None) -> None:
            steps.append(PluginVerdict.of(name, status, None if result is None else result.node_names))

        final = self.fw.run_pre_filter_plugins(self.state, self.pod, trace=record)
        self.fields["pre_filter"] = steps
        self.fields["pre_filter_status"] = PluginVerdict.of(final[1].plugin, final[1])
        self.fields["filter_skipped"] = self.state.skip_filter_plugins
        return final

    # -- Filter -------------------------------------------------------------------------------------
    def filter_node(self, node_info: NodeInfo) -> tuple[NodeVerdict, Status]:
        """Every Filter plugin on one node (``Framework.run_filter_plugins_each``); the verdict,
        the first failure, is ``Framework.run_filter_plugins``'s."""
        skip = self.state.skip_filter_plugins
        ran = dict(self.fw.run_filter_plugins_each(self.state, self.pod, node_info))
        checks: list[PluginVerdict] = []
        verdict: Status | None = None
        for name in self.fields["filter_plugins"]:
            if name in skip:
                checks.append(PluginVerdict(name, Code.SKIP))
                continue
            s = ran[name]
            if s.code is _SUCCESS:
                checks.append(PluginVerdict(name))
                continue
            checks.append(PluginVerdict.of(name, s))
            if verdict is None:
                verdict = s
        if verdict is None:
            return NodeVerdict(node_info.name, PluginVerdict(""), checks), Status.OK
        return NodeVerdict(node_info.name, PluginVerdict.of(verdict.plugin, verdict), checks,
                           verdict.plugin), verdict

    def nominated_shortcut(self, pod: Pod, records: list[NodeVerdict], allowed: frozenset[str] | None
                           ) -> str | None:
        """kube-scheduler tries the pod's nominated node first and takes it when it passes."""
        name = pod.nominated_node_name
        if not name:
            return None
        info = self.snapshot.node_infos().get(name)
        if info is None:
            self.notes.append(f"nominated node {name} is not in the cluster")
            return None
        if allowed is None or name in allowed:
            record = next(r for r in records if r.node == name)
        else:
            record, _ = self.filter_node(info)  # upstream filters it before narrowing
        if not record.feasible:
            self.notes.append(f"nominated node {name} does not pass Filter: all nodes were evaluated")
            return None
        self.notes.append(f"nominated node {name} passes Filter: kube-scheduler selects it without "
                          "evaluating other nodes")
        return name

    # -- PreScore / Score -------------------------------------------------------------------------
    # -- extenders (upstream findNodesThatPassExtenders and prioritizeNodes) -----------------------
    @property
    def extenders(self) -> Sequence[Extender]:
        return tuple(self.fw.extenders())

    def extender_filter(self, feasible: list[NodeInfo], records: list[NodeVerdict], diagnosis: Diagnosis
                        ) -> tuple[list[NodeInfo], Status | None]:
        """The interested extenders' filter verbs on the feasible nodes, in turn, as the scheduler
        calls them (:func:`~schedframe.framework.extender.extenders_filter`); each node's record
        gets an ``Extender <url>`` check (the verdict of a node an extender rejects is that
        check). An ignorable extender that fails is skipped (noted)."""
        by_name = {r.node: i for i, r in enumerate(records)}

        def skipped(extender: Extender, exc: ExtenderError) -> None:
            self.notes.append(f"{EXTENDER_NAME} {extender.name} failed and is ignorable, so it was "
                              f"skipped: {exc}")

        def filtered(extender: Extender, outcome: FilterOutcome) -> None:
            label = f"{EXTENDER_NAME} {extender.name}"
            kept = {ni.name for ni in outcome.passed}
            unresolvable = outcome.unresolvable
            for ni in outcome.nodes:
                i = by_name[ni.name]
                record = records[i]
                if ni.name in kept:
                    check = PluginVerdict(label)
                    records[i] = attrs.evolve(record, checks=(*record.checks, check))
                    continue
                if ni.name in unresolvable:
                    status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (unresolvable[ni.name],))
                else:
                    status = Status(Code.UNSCHEDULABLE,
                                    (outcome.failed.get(ni.name, "rejected by the extender"),))
                check = PluginVerdict.of(label, status)
                records[i] = attrs.evolve(record, verdict=check, checks=(*record.checks, check),
                                          stopped_at=label)

        return extenders_filter(self.extenders, self.pod, feasible, diagnosis,
                                on_skipped=skipped, on_filtered=filtered)

    def extender_scores(self, scores: list[NodeScores], feasible: Sequence[NodeInfo]) -> list[NodeScores]:
        """Each interested extender's prioritize scores, times its weight, scaled from
        0..MAX_EXTENDER_PRIORITY to 0..MAX_NODE_SCORE
        (:func:`~schedframe.framework.extender.extenders_prioritize`), as ``Extender <url>``
        entries; a failing extender gives no scores (noted)."""
        extra: list[list[PluginNodeScore]] = [[] for _ in scores]

        def failed(extender: Extender, exc: ExtenderError) -> None:
            self.notes.append(f"{EXTENDER_NAME} {extender.name}: prioritize failed, no score given "
                              f"by it: {exc}")

        for extender, weight, pairs in extenders_prioritize(self.extenders, self.pod, feasible,
                                                            on_error=failed):
            label = f"{EXTENDER_NAME} {extender.name}"
            for i, score in pairs:
                extra[i].append(PluginNodeScore(label, score, score, weight, score * weight))
        return [NodeScores(s.node, (*s.scores, *e), s.total + sum(x.weighted for x in e))
                for s, e in zip(scores, extra)]

    def score_and_select(self, feasible: list[NodeInfo]) -> Explanation:
        fw = self.fw
        extenders = self.extenders
        if not fw.has_score_plugins() and not extenders:
            self.notes.append("no Score plugin is enabled: every feasible node scores 1")
            scores = [NodeScores(ni.name, (), 1) for ni in feasible]
        elif not fw.has_score_plugins():
            scores = self.extender_scores([NodeScores(ni.name, (), 0) for ni in feasible], feasible)
        else:
            status = self.pre_score(feasible)
            if status.code is not _SUCCESS:
                return self.done(Code.ERROR, status.message)
            scored = self.score(feasible)
            if isinstance(scored, Status):
                return self.done(Code.ERROR, scored.message)
            scores = self.extender_scores(scored, feasible) if extenders else scored
        self.fields["scores"] = scores
        totals = [s.total for s in scores]
        best = max(totals)
        ties = [i for i, t in enumerate(totals) if t == best]
        pick = ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]
        if len(ties) > 1:
            self.fields["tied_nodes"] = [scores[i].node for i in ties]
            self.notes.append(f"{len(ties)} nodes share the highest total {best}; the tie was broken at "
                              "random (seeded), as kube-scheduler does")
        return self.done(_SUCCESS, selected=scores[pick].node)

    def pre_score(self, nodes: Sequence[NodeInfo]) -> Status:
        """``Framework.run_pre_score_plugins``, recording each plugin through its trace."""
        steps: list[PluginVerdict] = []

        def record(name: str, status: Status | None) -> None:
            steps.append(PluginVerdict.of(name, status))

        status = self.fw.run_pre_score_plugins(self.state, self.pod, nodes, trace=record)
        self.fields["pre_score"] = steps
        self.fields["score_skipped"] = self.state.skip_score_plugins
        return status

    def score(self, nodes: Sequence[NodeInfo]) -> list[NodeScores] | Status:
        """``Framework.run_score_plugins_detailed``: raw, normalized, weighted scores and totals."""
        detailed = self.fw.run_score_plugins_detailed(self.state, self.pod, nodes)
        names, raw, normalized, weights, status = detailed
        if status.code is not _SUCCESS:
            return status
        out: list[NodeScores] = []
        for i, ni in enumerate(nodes):
            per = tuple(PluginNodeScore(name, raw[j][i], normalized[j][i], weights[j],
                                        normalized[j][i] * weights[j])
                        for j, name in enumerate(names))
            out.append(NodeScores(ni.name, per, sum(p.weighted for p in per)))
        return out


# -- entry points -----------------------------------------------------------------------------------

def explain_with(framework: Framework, snapshot: SharedLister, pod: Pod | Mapping[str, Any],
                 state: CycleState | None = None, *, seed: int = 0,
                 rng: random.Random | None = None) -> Explanation:
    """Explain one scheduling attempt of *pod* with an existing framework and snapshot.

    Runs PreEnqueue, PreFilter, Filter (every plugin on every node), PreScore and Score with the
    framework's plugins and semantics, and selects a node as the scheduler does. The framework's
    snapshot is set to *snapshot* for the attempt and restored afterwards; nothing is reserved or
    bound and PostFilter is not run.

    Args:
        framework: the profile's framework (e.g. one of ``Scheduler.frameworks``).
        snapshot: the cluster view (a :class:`~schedframe.cache.Snapshot`, up to date).
        pod: the pod, or its v1 manifest.
        state: the :class:`~schedframe.CycleState` to use (default: a fresh one); the plugins
            write to it as in a real cycle.
        seed: seeds ``random.Random`` for the tie-break when *rng* is not given.
        rng: the RNG for the tie-break, used as is (a draw advances it; pass a copy to keep
            yours untouched).

    Returns:
        The :class:`~schedframe.Explanation`.

    Raises:
        ArgumentTypeError: *pod* is neither a Pod nor a mapping, *state* not a CycleState.
        ManifestError: *pod* is a malformed manifest.

    .. versionadded:: 0.1.0
    """
    p = _as_pod(pod, "explain_with: pod")
    if state is not None and not isinstance(state, CycleState):
        raise ArgumentTypeError(f"explain_with: state must be a CycleState or None, got "
                                f"{type(state).__name__}")
    cycle_state = state if state is not None else CycleState()
    previous = framework.snapshot_shared_lister()
    framework.set_snapshot(snapshot)
    try:
        attempt = _Attempt(framework, snapshot, p, cycle_state,
                           rng if rng is not None else random.Random(seed),
                           None if rng is not None else seed)
        return attempt.run()
    finally:
        framework.set_snapshot(previous)


def _configuration(config: Any, registry: Registry) -> SchedulerConfiguration:
    from ..config.configuration import SchedulerConfiguration

    return SchedulerConfiguration.coerce(config, registry=registry, error=SchedulerError)


def _profile(config: SchedulerConfiguration, profile: Any, pod: Pod) -> ProfileLike:
    if profile is not None and not isinstance(profile, str):
        return profile  # type: ignore[no-any-return]
    name = profile if profile is not None else pod.scheduler_name
    found = config.profile(name)
    if found is None:
        names = [p.scheduler_name for p in config.profiles]
        whose = "" if profile is not None else f"pod {pod.key} names schedulerName {name!r} but "
        raise SchedulerError(f"{whose}no profile named {name!r} in the configuration (profiles: {names})"
                             f"{did_you_mean(name, names)}; pass profile= to choose one")
    return found


def explain(pod: Pod | Mapping[str, Any], *, nodes: Iterable[Node | Mapping[str, Any]] = (),
            pods: Iterable[Pod | Mapping[str, Any]] = (), objects: Iterable[Any] = (),
            config: SchedulerConfiguration | Mapping[str, Any] | None = None,
            registry: Registry | None = None, profile: str | ProfileLike | None = None,
            seed: int = 0, extender_transport: ExtenderTransport | None = None,
            pending: Iterable[Pod] = ()) -> Explanation:
    """Explain how kube-scheduler would schedule *pod* on a cluster::

        e = explain(pod, nodes=nodes, pods=running_pods)
        e.selected_node          # "node-2", or None
        e.message                # "0/3 nodes are available: 1 Insufficient cpu, ..."
        print(e)                 # filter matrix, score table, verdict
        e.to_json()

    Builds a :class:`~schedframe.Framework` for the pod's profile over
    ``Snapshot.from_objects(nodes, pods)`` and calls :func:`~schedframe.explain_with`.

    Args:
        pod: the pod to place (object or v1 manifest).
        nodes: the nodes (objects or manifests), in the order the cluster added them.
        pods: the pods already bound to those nodes (``spec.nodeName`` set); others are ignored.
        objects: other cluster objects (Namespaces, Services, ReplicaSets, PDBs... as objects or
            manifests). Nodes and Pods among them join *nodes* and *pods*, so
            ``objects=load_manifests(path)`` works.
        config: a :class:`~schedframe.SchedulerConfiguration` or ``KubeSchedulerConfiguration``
            mapping; default upstream's default configuration.
        registry: the plugins; default the in-tree registry.
        profile: the profile's scheduler name, or a profile object; default the pod's
            ``schedulerName``.
        seed: seeds the RNG breaking ties between equally scored nodes (a fresh
            ``Scheduler(seed=seed)`` breaks its first tie the same way).
        extender_transport: how the configuration's extenders are called (see
            :class:`~schedframe.Scheduler`); their filter and prioritize results appear as
            ``Extender <urlPrefix>`` checks and scores beside the plugins'.
        pending: pending pods the scheduler's pod lister also lists (the other members of a
            gang, which GangScheduling counts at PreEnqueue and Permit); they take no room.

    Returns:
        The :class:`~schedframe.Explanation`.

    Raises:
        SchedulerError: no such profile.
        ArgumentTypeError: an argument of the wrong type (naming it).
        ConfigurationError: an invalid configuration.
        ManifestError: a malformed manifest.

    .. versionadded:: 0.1.0
    """
    from ..cache.snapshot import Snapshot

    if registry is None:
        from ..plugins import in_tree_registry

        registry = in_tree_registry()
    p = _as_pod(pod, "explain: pod")
    cfg = _configuration(config, registry)
    prof = _profile(cfg, profile, p)
    node_list = [_as_node(n, f"explain: nodes[{i}]")
                 for i, n in enumerate(_iterable(nodes, "explain: nodes"))]
    pod_list = [_as_pod(x, f"explain: pods[{i}]")
                for i, x in enumerate(_iterable(pods, "explain: pods"))]
    store = ObjectStore()
    for obj in _iterable(objects, "explain: objects"):
        if isinstance(obj, Mapping):
            from ..api.manifests import object_from_manifest

            obj = object_from_manifest(obj)
        if isinstance(obj, Node):
            node_list.append(obj)
        elif isinstance(obj, Pod):
            pod_list.append(obj)
        else:
            store.add(obj)
    snapshot = Snapshot.from_objects(node_list, pod_list)
    listed = [x for x in pod_list if x.node_name and x.phase not in ("Succeeded", "Failed")]
    listed += [x for x in _iterable(pending, "explain: pending") if isinstance(x, Pod) and x.uid != p.uid]
    listed.append(p)

    def list_pods(namespace: str | None = None) -> list[Pod]:
        return [x for x in listed if namespace is None or x.namespace == namespace]

    framework = Framework(registry, prof, objects=store, clock=FakeClock(), snapshot=snapshot,
                          parallelism=cfg.parallelism, pod_lister=list_pods)
    if cfg.extenders:  # ignorable ones last, as the scheduler (upstream buildExtenders) orders them
        framework.set_extenders(build_extenders(cfg.extenders, extender_transport))
    return explain_with(framework, snapshot, p, seed=seed)
