"""Fault injection through the Scheduler (deterministic mode): a plugin misbehaving at one
extension point -- raising, returning the wrong type or a code the point does not accept,
out-of-range scores, Permit waits that time out, a binder that refuses -- never breaks the
scheduler. The affected pod is requeued with a message naming the plugin, every other pod still
schedules, Unreserve runs for every Reserve plugin in reverse order (upstream
``RunReservePluginsUnreserve``) whenever Reserve, Permit, PreBind or Bind fails, no node is
overcommitted and no pod is lost."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import pytest

from schedframe import Code, CycleState, FakeClock, NodeInfo, NodeScore, Pod, Status
from schedframe.config.configuration import Profile, SchedulerConfiguration
from schedframe.framework.binder import InMemoryBinder
from schedframe.framework.interfaces import NodeToStatus, PostFilterResult, PreFilterResult
from schedframe.framework.registry import Registry
from schedframe.plugins import in_tree_registry
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod

T0 = 1_700_000_000.0
VICTIM = "victim"
CHAOS = "Chaos"
OTHERS = tuple(f"ok-{i}" for i in range(5))
#: two well-behaved Reserve plugins around the faulty one, to check Unreserve order
RESERVE_BEFORE = "ReserveA"
RESERVE_AFTER = "ReserveB"
#: the Permit timeout the "timeout" fault asks for (seconds)
PERMIT_TIMEOUT = 5.0


class _Boom(RuntimeError):
    """The exception a faulty plugin raises."""


@attrs.define
class Fault:
    """Where and how :class:`Chaos` misbehaves (for the pod named :data:`VICTIM` only)."""

    point: str
    kind: str


class Chaos:
    """A plugin implementing every extension point; it behaves (accepts, scores 50, skips binding)
    except at ``fault.point`` for the victim pod, where it misbehaves as ``fault.kind`` says.
    Calls are appended to *log* as ``(method, plugin, pod name)``."""

    def __init__(self, fault: Fault, log: list[tuple[str, str, str]],
                 hit: Callable[[str, Pod], bool] | None = None) -> None:
        self.name = CHAOS
        self.fault = fault
        self.log = log
        self.hit = hit

    def _hit(self, point: str, pod: Pod) -> bool:
        if self.hit is not None:
            return self.fault.point == point and self.hit(point, pod)
        return self.fault.point == point and pod.name == VICTIM

    def _bad(self, point: str) -> Any:
        """The misbehaviour for single-Status points."""
        kind = self.fault.kind
        if kind == "raise":
            raise _Boom(f"chaos at {point}")
        if kind in _INTERRUPTS:
            raise _INTERRUPTS[kind](f"chaos at {point}")
        if kind == "str":
            return "oops"
        if kind == "int":
            return 42
        if kind == "code":
            return Status(_BAD_CODE[point], ("chaos",))
        raise AssertionError(f"unknown fault kind {kind!r} at {point}")  # pragma: no cover

    def _bad_pair(self, point: str, good_first: Any) -> Any:
        """The misbehaviour for ``(value, Status)`` points."""
        kind = self.fault.kind
        if kind == "bare-status":  # a common slip: forgetting the tuple
            return Status.unschedulable("chaos")
        if kind == "str":
            return "oops"
        if kind == "status-str":
            return good_first, "oops"
        return good_first, self._bad(point)

    # -- scheduling cycle ----------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        self.log.append(("pre_enqueue", CHAOS, pod.name))
        if self._hit("preEnqueue", pod):
            return self._bad("preEnqueue")  # type: ignore[no-any-return]
        return None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        if self._hit("preFilter", pod):
            if self.fault.kind == "result-str":
                return "all of them", None  # type: ignore[return-value]
            return self._bad_pair("preFilter", None)  # type: ignore[no-any-return]
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if self._hit("filter", pod):
            return self._bad("filter")  # type: ignore[no-any-return]
        return None

    def post_filter(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        if self._hit("postFilter", pod):
            return self._bad_pair("postFilter", None)  # type: ignore[no-any-return]
        return None, Status.unschedulable("chaos cannot help")

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self._hit("preScore", pod):
            return self._bad("preScore")  # type: ignore[no-any-return]
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self._hit("score", pod):
            kind = self.fault.kind
            if kind == "too-high":
                return 101, None
            if kind == "negative":
                return -1, None
            if kind == "score-str":
                return "high", None  # type: ignore[return-value]
            if kind == "score-none":
                return None, None  # type: ignore[return-value]
            if kind == "score-float":
                return 50.5, None  # type: ignore[return-value]
            return self._bad_pair("score", 50)  # type: ignore[no-any-return]
        return 50, None

    def score_extensions(self) -> Chaos:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        if self._hit("normalizeScore", pod):
            kind = self.fault.kind
            if kind == "too-high":
                scores[0] = NodeScore(scores[0].name, 1000)
                return None
            if kind == "drop":
                scores.pop()
                return None
            if kind == "junk":
                scores[0] = "junk"  # type: ignore[call-overload]
                return None
            return self._bad("normalizeScore")  # type: ignore[no-any-return]
        return None

    # -- reserve / permit ------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.log.append(("reserve", CHAOS, pod.name))
        if self._hit("reserve", pod):
            return self._bad("reserve")  # type: ignore[no-any-return]
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.log.append(("unreserve", CHAOS, pod.name))
        if self._hit("unreserve", pod):
            if self.fault.kind in _INTERRUPTS:
                raise _INTERRUPTS[self.fault.kind]("chaos at unreserve")
            raise _Boom("chaos at unreserve")

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        self.log.append(("permit", CHAOS, pod.name))
        if self._hit("permit", pod) or (self.fault.point == "unreserve" and pod.name == VICTIM):
            kind = self.fault.kind
            if kind == "timeout" or self.fault.point == "unreserve":
                return Status.wait("waiting for nobody"), PERMIT_TIMEOUT
            if kind == "timeout-nan":
                return Status.wait("waiting for nobody"), float("nan")
            if kind == "timeout-str":
                return Status.wait("waiting for nobody"), "5s"  # type: ignore[return-value]
            if kind == "timeout-negative":
                return Status.wait("waiting for nobody"), -3.0
            if kind == "bare-status":
                return Status.unschedulable("chaos")  # type: ignore[return-value]
            if kind == "str":
                return "oops"  # type: ignore[return-value]
            if kind == "status-str":
                return "oops", 0.0  # type: ignore[return-value]
            return self._bad("permit"), 0.0
        return None, 0.0

    # -- binding cycle ---------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.log.append(("pre_bind", CHAOS, pod.name))
        if self._hit("preBind", pod):
            return self._bad("preBind")  # type: ignore[no-any-return]
        return None

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.log.append(("bind", CHAOS, pod.name))
        if self._hit("bind", pod):
            return self._bad("bind")  # type: ignore[no-any-return]
        return Status.skip()  # let DefaultBinder bind

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.log.append(("post_bind", CHAOS, pod.name))
        if self._hit("postBind", pod):
            self._bad("postBind")


#: BaseExceptions that are not Exceptions, by fault kind
_INTERRUPTS: dict[str, type[BaseException]] = {"interrupt": KeyboardInterrupt, "exit": SystemExit}

#: a code each point does not accept
_BAD_CODE = {
    "preEnqueue": Code.ERROR,
    "preFilter": Code.WAIT,
    "filter": Code.WAIT,
    "postFilter": Code.WAIT,
    "preScore": Code.WAIT,
    "score": Code.UNSCHEDULABLE,
    "normalizeScore": Code.UNSCHEDULABLE,
    "reserve": Code.WAIT,
    "permit": Code.SKIP,
    "preBind": Code.WAIT,
    "bind": Code.WAIT,
    "postBind": Code.ERROR,
}


class Recorder:
    """A well-behaved Reserve plugin that logs its calls."""

    def __init__(self, name: str, log: list[tuple[str, str, str]]) -> None:
        self.name = name
        self.log = log

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.log.append(("reserve", self.name, pod.name))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.log.append(("unreserve", self.name, pod.name))


class RefusingBinder:
    """A binder (the API server's ``pods/binding``) that refuses the victim."""

    def __init__(self) -> None:
        self.inner = InMemoryBinder()

    def bind(self, pod: Pod, node_name: str) -> None:
        if pod.name == VICTIM:
            raise ConnectionError("apiserver unavailable")
        self.inner.bind(pod, node_name)


# --------------------------------------------------------------------------------------------
# wiring

#: where Chaos sits at each point (config spelling); "normalizeScore" is Chaos at score
_CHAOS_POINTS = ("preEnqueue", "preFilter", "filter", "postFilter", "preScore", "score", "reserve",
                 "permit", "preBind", "bind", "postBind")


def _config(registry: Registry) -> SchedulerConfiguration:
    """A profile with only explicit plugins: PrioritySort, NodeResourcesFit (PreFilter, Filter,
    Score), Chaos at every point, ReserveA/Chaos/ReserveB at Reserve, Chaos before DefaultBinder."""

    def enabled(*names: str) -> dict[str, Any]:
        return {"enabled": [{"name": n} for n in names]}

    plugins: dict[str, Any] = {
        "multiPoint": {"disabled": [{"name": "*"}]},
        "queueSort": enabled("PrioritySort"),
        "preFilter": enabled("NodeResourcesFit", CHAOS),
        "filter": enabled("NodeResourcesFit", CHAOS),
        "score": enabled("NodeResourcesFit", CHAOS),
        "reserve": enabled(RESERVE_BEFORE, CHAOS, RESERVE_AFTER),
        "bind": enabled(CHAOS, "DefaultBinder"),
    }
    for point in ("preEnqueue", "postFilter", "preScore", "permit", "preBind", "postBind"):
        plugins[point] = enabled(CHAOS)
    return SchedulerConfiguration.from_dict({"profiles": [{"plugins": plugins}]}, registry=registry)


@attrs.define
class Rig:
    """A scheduler with Chaos configured, three nodes and six pods (the victim first)."""

    scheduler: Scheduler
    log: list[tuple[str, str, str]]

    def victim_log(self, *methods: str) -> list[tuple[str, str]]:
        return [(m, p) for m, p, pod in self.log if pod == VICTIM and m in methods]


def make_rig(fault: Fault, *, binder: Any = None, victim_cpu: str = "1",
             hit: Callable[[str, Pod], bool] | None = None) -> Rig:
    """Nodes have room for twice the pods, so every attempt sees several feasible nodes (and
    runs Score)."""
    log: list[tuple[str, str, str]] = []
    registry = in_tree_registry()

    def new_chaos(args: object, handle: object) -> Chaos:
        return Chaos(fault, log, hit)

    def recorder(name: str) -> Callable[[object, object], Recorder]:
        return lambda args, handle: Recorder(name, log)

    registry.register(CHAOS, new_chaos)
    for name in (RESERVE_BEFORE, RESERVE_AFTER):
        registry.register(name, recorder(name))
    s = Scheduler(_config(registry), registry=registry, clock=FakeClock(T0), binder=binder)
    for i, cpu in enumerate(("4", "4", "4")):
        s.add_node(make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi", pods=110).obj())
    # the victim has the highest priority: it is popped first, and first again on every retry
    s.add_pod(make_pod(VICTIM).priority(100).req(cpu=victim_cpu, memory="1Gi").obj())
    for name in OTHERS:
        s.add_pod(make_pod(name).req(cpu="1", memory="1Gi").obj())
    return Rig(s, log)


def check_invariants(s: Scheduler) -> None:
    """No node overcommitted (scheduler's view and cache agree), no pod lost, nothing left
    assumed or waiting."""
    bound = s.bindings()
    pending = {p.pod.key for p in s.pending()}
    assert set(bound) | pending == {p.key for p in s.pods()}, "a pod was lost"
    assert not set(bound) & pending
    dump = s.cache.dump()
    assert dump.assumed_pods == frozenset(), "an assumed pod was left in the cache"
    assert len(s.waiting_pods) == 0
    for node in s.nodes():
        info = dump.nodes[node.name]
        on_node = [p for p in s.pods() if p.node_name == node.name]
        assert sorted(pi.pod.key for pi in info.pods) == sorted(p.key for p in on_node)
        cpu = sum(p.requests.milli_cpu for p in on_node)
        assert cpu == info.requested.milli_cpu
        assert cpu <= info.allocatable.milli_cpu, f"{node.name} overcommitted"


# --------------------------------------------------------------------------------------------
# the table: one row per (point, misbehaviour)


def _r(point: str, kind: str, message: str, *, unreserve: Sequence[str] = (), where: str = "Backoff",
       victim_cpu: str = "1") -> Any:
    return pytest.param(Fault(point, kind), message, tuple(unreserve), where, victim_cpu,
                        id=f"{point}-{kind}")


def _str(point: str) -> str:
    """The ERROR message of a plugin returning ``"oops"`` where a Status belongs."""
    return f"""running {point} plugin "Chaos": returned str 'oops', want a Status or None"""


#: Unreserve order when a point after Reserve fails: every Reserve plugin, in reverse order
_ALL_REVERSED = (RESERVE_AFTER, CHAOS, RESERVE_BEFORE)

ROWS = [
    # PreEnqueue: the pod is gated (kept out of activeQ) by the plugin
    _r("preEnqueue", "raise", 'running PreEnqueue plugin "Chaos": _Boom: chaos at preEnqueue',
       where="Gated"),
    _r("preEnqueue", "str", _str("PreEnqueue"), where="Gated"),
    _r("preEnqueue", "code", "chaos", where="Gated"),
    # PreFilter
    _r("preFilter", "raise", 'running PreFilter plugin "Chaos": _Boom: chaos at preFilter'),
    _r("preFilter", "str", 'running PreFilter plugin "Chaos": ValueError: too many values to unpack'),
    _r("preFilter", "status-str", _str("PreFilter")),
    _r("preFilter", "bare-status", 'running PreFilter plugin "Chaos"'),
    _r("preFilter", "result-str", """running PreFilter plugin "Chaos": returned str 'all of them', want a """
                                  "PreFilterResult or None"),
    _r("preFilter", "code", 'running PreFilter plugin "Chaos": chaos'),
    # Filter
    _r("filter", "raise", 'running Filter plugin "Chaos": _Boom: chaos at filter'),
    _r("filter", "str", _str("Filter")),
    _r("filter", "int", 'running Filter plugin "Chaos"'),
    _r("filter", "code", 'running Filter plugin "Chaos": chaos'),
    # PostFilter (the victim asks for more CPU than any node has, so PostFilter runs)
    _r("postFilter", "raise", 'running PostFilter plugin "Chaos": _Boom: chaos at postFilter',
       where="Unschedulable", victim_cpu="64"),
    _r("postFilter", "str", 'running PostFilter plugin "Chaos": ValueError: too many values to unpack',
       where="Unschedulable", victim_cpu="64"),
    _r("postFilter", "status-str", _str("PostFilter"), where="Unschedulable",
       victim_cpu="64"),
    _r("postFilter", "bare-status", 'running PostFilter plugin "Chaos"', where="Unschedulable",
       victim_cpu="64"),
    # a status of another code: upstream keeps its message as is (AsStatus(s.AsError()))
    _r("postFilter", "code", "Insufficient cpu. chaos", where="Unschedulable",
       victim_cpu="64"),
    # PreScore
    _r("preScore", "raise", 'running PreScore plugin "Chaos": _Boom: chaos at preScore'),
    _r("preScore", "str", _str("PreScore")),
    _r("preScore", "code", 'running PreScore plugin "Chaos": chaos'),
    # Score
    _r("score", "raise", 'running Score plugins: plugin "Chaos" failed with: _Boom: chaos at score'),
    _r("score", "str", 'running Score plugins: plugin "Chaos" failed with'),
    _r("score", "status-str", 'running Score plugins: plugin "Chaos" failed with'),
    _r("score", "bare-status", 'running Score plugins: plugin "Chaos" failed with'),
    _r("score", "code", 'running Score plugins: plugin "Chaos" failed with: chaos'),
    _r("score", "too-high", 'applying score defaultWeights on Score plugins: plugin "Chaos" returns an '
                            "invalid score 101, it should in the range of [0, 100] after normalizing"),
    _r("score", "negative", 'applying score defaultWeights on Score plugins: plugin "Chaos" returns an '
                            "invalid score -1, it should in the range of [0, 100] after normalizing"),
    _r("score", "score-str", """plugin "Chaos" returns an invalid score 'high', it should in the range"""),
    _r("score", "score-none", 'plugin "Chaos" returns an invalid score None, it should in the range'),
    _r("score", "score-float", 'plugin "Chaos" returns an invalid score 50.5, it should in the range'),
    # NormalizeScore
    _r("normalizeScore", "raise",
       'running Normalize on Score plugins: plugin "Chaos" failed with: _Boom: chaos at normalizeScore'),
    _r("normalizeScore", "str", 'running Normalize on Score plugins: plugin "Chaos" failed with'),
    _r("normalizeScore", "code", 'running Normalize on Score plugins: plugin "Chaos" failed with: chaos'),
    _r("normalizeScore", "too-high", 'applying score defaultWeights on Score plugins: plugin "Chaos" '
                                     "returns an invalid score 1000"),
    _r("normalizeScore", "drop", 'running Normalize on Score plugins: plugin "Chaos" failed with'),
    _r("normalizeScore", "junk", 'running Normalize on Score plugins: plugin "Chaos" failed with'),
    # Reserve: Unreserve of every Reserve plugin, in reverse order
    _r("reserve", "raise", 'running Reserve plugin "Chaos": _Boom: chaos at reserve',
       unreserve=_ALL_REVERSED),
    _r("reserve", "str", _str("Reserve"), unreserve=_ALL_REVERSED),
    _r("reserve", "code", 'running Reserve plugin "Chaos": chaos', unreserve=_ALL_REVERSED),
    # Unreserve raising (after a Permit timeout): logged, the other Unreserves still run
    _r("unreserve", "raise", "rejected due to timeout after waiting 5s at plugin Chaos",
       unreserve=_ALL_REVERSED, where="Unschedulable"),
    # Permit
    _r("permit", "raise", 'running Permit plugin "Chaos": _Boom: chaos at permit', unreserve=_ALL_REVERSED),
    _r("permit", "str", 'running Permit plugin "Chaos": ValueError: too many values to unpack',
       unreserve=_ALL_REVERSED),
    _r("permit", "status-str", _str("Permit"), unreserve=_ALL_REVERSED),
    _r("permit", "bare-status", 'running Permit plugin "Chaos"', unreserve=_ALL_REVERSED),
    _r("permit", "code", 'running Permit plugin "Chaos": chaos', unreserve=_ALL_REVERSED),
    _r("permit", "timeout", "rejected due to timeout after waiting 5s at plugin Chaos",
       unreserve=_ALL_REVERSED, where="Unschedulable"),
    _r("permit", "timeout-negative", "rejected due to timeout after waiting",
       unreserve=_ALL_REVERSED, where="Unschedulable"),
    _r("permit", "timeout-nan", 'running Permit plugin "Chaos": returned timeout float nan, want a number '
                                "of seconds", unreserve=_ALL_REVERSED),
    _r("permit", "timeout-str", """running Permit plugin "Chaos": returned timeout str '5s', want a number """
                                "of seconds", unreserve=_ALL_REVERSED),
    # PreBind
    _r("preBind", "raise", 'running PreBind plugin "Chaos": _Boom: chaos at preBind',
       unreserve=_ALL_REVERSED),
    _r("preBind", "str", _str("PreBind"), unreserve=_ALL_REVERSED),
    _r("preBind", "code", 'running PreBind plugin "Chaos": chaos', unreserve=_ALL_REVERSED),
    # Bind
    _r("bind", "raise", 'running Bind plugin "Chaos": _Boom: chaos at bind', unreserve=_ALL_REVERSED),
    _r("bind", "str", _str("Bind"), unreserve=_ALL_REVERSED),
    _r("bind", "code", 'running Bind plugin "Chaos": chaos', unreserve=_ALL_REVERSED),
]


@pytest.mark.parametrize(("fault", "message", "unreserve", "where", "victim_cpu"), ROWS)
def test_fault_requeues_victim_and_others_schedule(fault: Fault, message: str, unreserve: tuple[str, ...],
                                                   where: str, victim_cpu: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """A misbehaving plugin leaves the victim pending with a message naming it (or, for a status
    PostFilter returns, its own message), and nothing else."""
    rig = make_rig(fault, victim_cpu=victim_cpu)
    s = rig.scheduler
    with caplog.at_level(logging.CRITICAL, logger="schedframe"):
        summary = s.run_until_idle(max_cycles=200)
    assert summary.cycles < 200, "the scheduler kept spinning"
    [pending] = s.pending()
    assert pending.pod.name == VICTIM
    assert message in pending.message
    assert pending.where == where
    if fault.point != "preEnqueue":
        assert pending.attempts >= 1
        # a PostFilter status of a foreign code keeps its own message, as upstream's does
        if (fault.point, fault.kind) != ("postFilter", "code"):
            assert CHAOS in pending.message
    assert [n for n in OTHERS if s.node_of(f"default/{n}") is None] == []
    check_invariants(s)
    # Unreserve: all Reserve plugins, reverse order, once per failed attempt that reserved
    calls = rig.victim_log("reserve", "unreserve")
    attempts = calls.count(("reserve", RESERVE_BEFORE))
    if unreserve:
        assert attempts >= 1
        # Reserve stops at the failing plugin; Unreserve runs for all of them
        reserved = [RESERVE_BEFORE, CHAOS] if fault.point == "reserve" else [RESERVE_BEFORE, CHAOS,
                                                                                RESERVE_AFTER]
        one = [("reserve", p) for p in reserved]
        want = (one + [("unreserve", p) for p in unreserve]) * attempts
        assert calls == want
    else:
        assert [c for c in calls if c[0] == "unreserve"] == []
    # the scheduler keeps running: a new pod still schedules
    s.add_pod(make_pod("late").req(cpu="100m", memory="1Mi").obj())
    s.run_until_idle(max_cycles=50)
    assert s.node_of("default/late") is not None


def test_post_bind_raising_still_binds(caplog: pytest.LogCaptureFixture) -> None:
    """PostBind cannot fail: a raising PostBind plugin is logged and the pod stays bound."""
    rig = make_rig(Fault("postBind", "raise"))
    s = rig.scheduler
    with caplog.at_level(logging.WARNING, logger="schedframe"):
        s.run_until_idle(max_cycles=50)
    assert s.pending() == []
    assert s.node_of(f"default/{VICTIM}") is not None
    assert rig.victim_log("unreserve") == []
    assert any("PostBind plugin 'Chaos' raised" in r.getMessage() for r in caplog.records)
    check_invariants(s)


def test_refusing_binder_requeues_with_error_backoff(caplog: pytest.LogCaptureFixture) -> None:
    """A binder that raises: ERROR naming DefaultBinder, all Unreserves in reverse order, retried."""
    binder = RefusingBinder()
    rig = make_rig(Fault("none", "raise"), binder=binder)
    s = rig.scheduler
    with caplog.at_level(logging.CRITICAL, logger="schedframe"):
        s.run_until_idle(max_cycles=100)
    [pending] = s.pending()
    assert pending.pod.name == VICTIM
    assert pending.message == 'running Bind plugin "DefaultBinder": apiserver unavailable'
    assert pending.where == "Backoff"
    assert f"default/{VICTIM}" not in binder.inner.bindings
    calls = rig.victim_log("unreserve")
    assert calls, "Unreserve did not run"
    assert calls[:3] == [("unreserve", p) for p in _ALL_REVERSED]
    check_invariants(s)


@pytest.mark.parametrize("point", [*_CHAOS_POINTS, "normalizeScore"])
def test_every_point_faulting_for_every_pod_loses_nothing(point: str, caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    """A plugin raising for every pod at *point*: nothing bound (but PostBind), nothing lost."""
    rig = make_rig(Fault(point, "raise"), hit=lambda p, pod: True)
    s = rig.scheduler
    with caplog.at_level(logging.CRITICAL, logger="schedframe"):
        summary = s.run_until_idle(max_cycles=300)
    assert summary.cycles < 300
    check_invariants(s)
    if point in ("postFilter", "postBind"):  # PostFilter: every pod fits, so it never runs
        assert s.pending() == []
    else:
        assert s.bindings() == {}
        assert len(s.pending()) == 1 + len(OTHERS)
        for p in s.pending():
            if point != "preEnqueue":
                assert CHAOS in p.message


def _flaky_rows() -> Iterator[Any]:
    for point in ("filter", "reserve", "permit", "preBind", "bind"):
        yield pytest.param(point, id=point)


@pytest.mark.parametrize("point", list(_flaky_rows()))
def test_transient_fault_recovers(point: str, caplog: pytest.LogCaptureFixture) -> None:
    """A plugin failing only on the victim's first attempt: the retry binds it."""
    failures = {"left": 1}

    def once(p: str, pod: Pod) -> bool:
        if pod.name == VICTIM and failures["left"]:
            failures["left"] -= 1
            return True
        return False

    rig = make_rig(Fault(point, "raise"), hit=once)
    s = rig.scheduler
    with caplog.at_level(logging.CRITICAL, logger="schedframe"):
        s.run_until_idle(max_cycles=100)
    assert s.pending() == []
    assert s.node_of(f"default/{VICTIM}") is not None
    check_invariants(s)


class Gate:
    """Permit: the victim waits (nobody ever allows it)."""

    name = "Gate"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.name == VICTIM:
            return Status.wait("waiting for a gang"), PERMIT_TIMEOUT
        return None, 0.0


class Sleeper:
    """PreBind: sleeps on the scheduler's clock (a slow volume attach) while binding ok-0."""

    name = "Sleeper"

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.name == OTHERS[0]:
            self.clock.sleep(3 * PERMIT_TIMEOUT)
        return None


def test_plugin_sleeping_past_a_permit_deadline() -> None:
    """A plugin that takes longer than another pod's Permit timeout (on the FakeClock): the
    waiting pod times out, is unreserved and requeued; every other pod binds."""
    clock = FakeClock(T0)
    registry = in_tree_registry()
    log: list[tuple[str, str, str]] = []
    registry.register("Gate", lambda args, handle: Gate())
    registry.register("Sleeper", lambda args, handle: Sleeper(clock))
    registry.register(RESERVE_BEFORE, lambda args, handle: Recorder(RESERVE_BEFORE, log))
    profile = Profile.from_plugins("PrioritySort", "DefaultBinder", "NodeResourcesFit", RESERVE_BEFORE,
                                   "Gate", "Sleeper", defaults=False, registry=registry)
    s = Scheduler(SchedulerConfiguration.from_profiles(profile, registry=registry), registry=registry,
                  clock=clock)
    s.add_node(make_node("n0").capacity(cpu="8", memory="8Gi", pods=110).obj())
    s.add_pod(make_pod(VICTIM).priority(100).req(cpu="1").obj())
    s.add_pod(make_pod(OTHERS[0]).req(cpu="1").obj())
    assert s.schedule_one()  # the victim is reserved and parked at Permit
    assert s.pending()[0].where == "InFlight"
    assert len(s.waiting_pods) == 1
    assert s.schedule_one()  # ok-0 binds; its PreBind sleeps past the victim's deadline
    assert s.node_of(f"default/{OTHERS[0]}") == "n0"
    [pending] = s.pending()
    assert pending.pod.name == VICTIM
    assert pending.message == ("0/1 nodes are available: 1 rejected due to timeout after waiting 5s at "
                               "plugin Gate.")
    assert ("unreserve", RESERVE_BEFORE, VICTIM) in log
    check_invariants(s)


# --------------------------------------------------------------------------------------------
# BaseException (KeyboardInterrupt, SystemExit) at every extension point


def _assert_consistent_after_interrupt(s: Scheduler) -> None:
    """Right after an interruption: nothing assumed but the pods waiting at Permit, every
    pending pod queued (none left in flight), the cache equal to the bound pods."""
    dump = s.cache.dump()
    waiting = {wp.pod.uid for wp in s.waiting_pods}
    assert dump.assumed_pods == frozenset(waiting), "an interrupted cycle left a pod assumed"
    queued = {p.uid for p in s.queue.pending_pods()}
    for p in s.pending():
        assert p.pod.uid in queued or p.pod.uid in waiting, f"{p.pod.key} neither queued nor waiting"
    for node in s.nodes():
        on_node = sorted(p.key for p in s.pods() if p.node_name == node.name)
        cached = sorted(pi.pod.key for pi in dump.nodes[node.name].pods if pi.pod.uid not in waiting)
        assert cached == on_node


_INTERRUPT_POINTS = [p for p in (*_CHAOS_POINTS, "normalizeScore", "unreserve") if p != "preEnqueue"]


@pytest.mark.parametrize("kind", sorted(_INTERRUPTS))
@pytest.mark.parametrize("point", _INTERRUPT_POINTS)
def test_base_exception_at_every_point_cleans_up_then_propagates(point: str, kind: str,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    """KeyboardInterrupt/SystemExit in any plugin propagates out of run_until_idle only after the
    cycle is undone (Unreserve, forget, requeue); the next run binds every pod."""
    armed = {"left": 1}

    def once(p: str, pod: Pod) -> bool:
        if pod.name == VICTIM and armed["left"]:
            armed["left"] -= 1
            return True
        return False

    rig = make_rig(Fault(point, kind), hit=once, victim_cpu="64" if point == "postFilter" else "1")
    s = rig.scheduler
    with caplog.at_level(logging.CRITICAL, logger="schedframe"), pytest.raises(_INTERRUPTS[kind]):
        s.run_until_idle(max_cycles=200)
    assert armed["left"] == 0
    _assert_consistent_after_interrupt(s)
    victim = s.get_pod(f"default/{VICTIM}")
    assert victim is not None
    if point != "postBind":
        # Reserve and Unreserve balance: every attempt that reserved was unreserved
        calls = rig.victim_log("reserve", "unreserve")
        assert calls.count(("reserve", RESERVE_BEFORE)) == calls.count(("unreserve", RESERVE_BEFORE))
    with caplog.at_level(logging.CRITICAL, logger="schedframe"):
        s.run_until_idle(max_cycles=200)
    check_invariants(s)
    assert [n for n in OTHERS if s.node_of(f"default/{n}") is None] == []
    if point in ("postFilter", "unreserve"):
        # the victim fits nowhere / waits at Permit until its timeout on every attempt
        assert [p.pod.name for p in s.pending()] == [VICTIM]
    else:
        assert s.pending() == []


@pytest.mark.parametrize("kind", sorted(_INTERRUPTS))
def test_base_exception_at_pre_enqueue_keeps_the_pod(kind: str) -> None:
    """A PreEnqueue plugin interrupting add_pod: the exception propagates, the pod is known,
    queued (error backoff) with a message, and scheduled by the next run."""
    armed = {"left": 1}

    def once(p: str, pod: Pod) -> bool:
        if pod.name == "late" and armed["left"]:
            armed["left"] -= 1
            return True
        return False

    rig = make_rig(Fault("preEnqueue", kind), hit=once)
    s = rig.scheduler
    s.run_until_idle()
    with pytest.raises(_INTERRUPTS[kind]):
        s.add_pod(make_pod("late").req(cpu="100m", memory="1Mi").obj())
    [pending] = s.pending()
    assert pending.pod.name == "late"
    assert pending.where == "Backoff"
    assert "interrupted" in pending.message
    s.run_until_idle()
    assert s.node_of("default/late") is not None
    check_invariants(s)


@pytest.mark.parametrize("point", ["permit", "preBind", "bind", "unreserve"])
def test_base_exception_in_a_binding_thread_cleans_up(point: str, caplog: pytest.LogCaptureFixture) -> None:
    """Threaded mode: a KeyboardInterrupt in a binding thread ends that thread's cycle after
    Unreserve/forget/requeue; nothing stays assumed and the pod is bound by a later attempt."""
    armed = {"left": 1}

    def once(p: str, pod: Pod) -> bool:
        if pod.name == VICTIM and armed["left"]:
            armed["left"] -= 1
            return True
        return False

    log: list[tuple[str, str, str]] = []
    registry = in_tree_registry()
    registry.register(CHAOS, lambda args, handle: Chaos(Fault(point, "interrupt"), log, once))
    for name in (RESERVE_BEFORE, RESERVE_AFTER):
        registry.register(name, lambda args, handle, name=name: Recorder(name, log))
    with Scheduler(_config(registry), registry=registry, clock=FakeClock(T0), threaded=True,
                   workers=2) as s:
        for i in range(3):
            s.add_node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=110).obj())
        s.add_pod(make_pod(VICTIM).priority(100).req(cpu="1", memory="1Gi").obj())
        for name in OTHERS:
            s.add_pod(make_pod(name).req(cpu="1", memory="1Gi").obj())
        interrupted = 0
        with caplog.at_level(logging.CRITICAL, logger="schedframe"):
            for _ in range(3):
                try:
                    s.run_until_idle(max_cycles=200)
                except KeyboardInterrupt:  # Permit runs in the scheduling cycle, in this thread
                    interrupted += 1
        assert interrupted == (1 if point == "permit" else 0)
        assert armed["left"] == 0
        assert s.cache.dump().assumed_pods == frozenset()
        assert [n for n in OTHERS if s.node_of(f"default/{n}") is None] == []
        if point == "unreserve":
            assert [p.pod.name for p in s.pending()] == [VICTIM]
        else:
            assert s.pending() == []
        check_invariants(s)


def test_interrupting_observer_hook_undoes_the_reservation() -> None:
    """An observer hook (schedframe_pod_scheduled) raising KeyboardInterrupt after the scheduling
    cycle chose a node: the pod is unreserved, forgotten and requeued, then it propagates."""
    from schedframe.framework.hookspecs import hookimpl
    from schedframe.framework.plugin_manager import make_plugin_manager

    class Observer:
        fired = False

        @hookimpl
        def schedframe_pod_scheduled(self, pod: Pod) -> None:
            if not self.fired:
                self.fired = True
                raise KeyboardInterrupt("observer")

    pm = make_plugin_manager()
    pm.register(Observer())
    s = Scheduler(clock=FakeClock(T0), plugin_manager=pm)
    s.add_node(make_node("n1").capacity(cpu="1", memory="1Gi", pods=110).obj())
    p = s.add_pod(make_pod("p").req(cpu="1").obj())
    with pytest.raises(KeyboardInterrupt):
        s.run_until_idle()
    assert s.cache.dump().assumed_pods == frozenset()
    assert [pp.pod.name for pp in s.pending()] == ["p"]
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    check_invariants(s)
