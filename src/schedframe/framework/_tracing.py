"""OpenTelemetry spans of the scheduling and binding cycles (the optional ``otel`` extra).

A :class:`Tracing` holds the tracer of one :class:`~schedframe.Scheduler`; the scheduler keeps
``None`` instead when tracing is off (no ``tracer_provider`` given and no global provider
configured, or ``opentelemetry-api`` not installed), and each call site checks that once, so a
scheduler without tracing pays one attribute test per extension point and cycle. This module
imports ``opentelemetry`` only inside :func:`tracing_for` and :class:`Tracing`, never at import.

The spans (``docs/tracing.rst``), named as kube-scheduler names its cycles (``schedulingCycle``,
``bindingCycle``, ``scheduleOnePodGroup``) and its extension points (the ``extension_point``
label of its metrics):

* ``scheduling cycle`` (and ``pod group cycle`` for a PodGroup's members): pop to Permit;
* ``binding cycle``: the wait on Permit to PostBind, a child of the scheduling cycle that
  reserved the node (the same trace, although it ends later);
* one child per extension point run: ``PreFilter``, ``Filter`` (the whole search for feasible
  nodes, nominated node and extenders included), ``PostFilter``, ``PreScore``, ``Score``
  (NormalizeScore and the weights included), ``Reserve``, ``Permit``, ``Unreserve``,
  ``PreBind``, ``Bind``, ``PostBind``;
* with ``plugin_spans``, one ``"<point> <plugin>"`` span per plugin call (per node for Filter
  and Score), a child of whatever span is current.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar, final

from ..api.objects import Pod
from ..errors import ArgumentTypeError, SchedulerError
from .clock import Clock
from .diagnosis import FitError
from .status import Code, Status

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

_P = ParamSpec("_P")

__all__ = [
    "ATTR_CLOCK_END",
    "ATTR_CLOCK_START",
    "ATTR_EXTENSION_POINT",
    "ATTR_NAMESPACE",
    "ATTR_NODE",
    "ATTR_NODES",
    "ATTR_NODES_FEASIBLE",
    "ATTR_PLUGIN",
    "ATTR_POD",
    "ATTR_POD_GROUP",
    "ATTR_POD_GROUP_MEMBERS",
    "ATTR_POD_UID",
    "ATTR_PROFILE",
    "ATTR_SCORE",
    "ATTR_STATUS_CODE",
    "ATTR_STATUS_MESSAGE",
    "ATTR_UNSCHEDULABLE_PLUGINS",
    "BINDING_CYCLE",
    "POD_GROUP_CYCLE",
    "SCHEDULING_CYCLE",
    "TRACER_NAME",
    "Tracing",
    "tracing_for",
]

_R = TypeVar("_R")

#: The instrumentation scope of schedframe's tracer.
TRACER_NAME: Final = "schedframe"
#: Span names of the cycles.
SCHEDULING_CYCLE: Final = "scheduling cycle"
BINDING_CYCLE: Final = "binding cycle"
POD_GROUP_CYCLE: Final = "pod group cycle"

# Attribute keys: OpenTelemetry's Kubernetes semantic conventions where they have one.
ATTR_POD: Final = "k8s.pod.name"
ATTR_NAMESPACE: Final = "k8s.namespace.name"
ATTR_POD_UID: Final = "k8s.pod.uid"
ATTR_NODE: Final = "k8s.node.name"
ATTR_PROFILE: Final = "schedframe.profile"
ATTR_EXTENSION_POINT: Final = "schedframe.extension_point"
ATTR_PLUGIN: Final = "schedframe.plugin"
#: ``str(Code)``: kube-scheduler's spelling (``Success``, ``Unschedulable``, ...)
ATTR_STATUS_CODE: Final = "schedframe.status.code"
ATTR_STATUS_MESSAGE: Final = "schedframe.status.message"
#: the plugins that rejected the pod (upstream's "unschedulable plugins"), sorted
ATTR_UNSCHEDULABLE_PLUGINS: Final = "schedframe.unschedulable_plugins"
ATTR_SCORE: Final = "schedframe.score"
#: how many nodes a point ran over; for Filter, how many it visited
ATTR_NODES: Final = "schedframe.nodes"
ATTR_NODES_FEASIBLE: Final = "schedframe.nodes.feasible"
ATTR_POD_GROUP: Final = "schedframe.pod_group"
ATTR_POD_GROUP_MEMBERS: Final = "schedframe.pod_group.members"
#: the scheduler's clock (simulated time in a simulation), seconds since the epoch
ATTR_CLOCK_START: Final = "schedframe.clock.start"
ATTR_CLOCK_END: Final = "schedframe.clock.end"

#: the plugin methods that get a span each with ``plugin_spans``, and their extension point
_POINT_OF_METHOD: Final = {
    "pre_filter": "PreFilter", "filter": "Filter", "filter_nodes": "Filter", "post_filter": "PostFilter",
    "pre_score": "PreScore", "score": "Score", "score_nodes": "Score", "reserve": "Reserve",
    "unreserve": "Unreserve", "permit": "Permit", "pre_bind": "PreBind", "bind": "Bind",
    "post_bind": "PostBind",
}


def tracing_for(tracer_provider: object, clock: Clock, *, plugin_spans: bool = False,
                owner: str = "Scheduler") -> Tracing | None:
    """The :class:`Tracing` for *tracer_provider*, or ``None`` when tracing is off.

    Without a provider, OpenTelemetry's global one (which the SDK's ``OTEL_*`` environment
    variables configure) if one is set, else off; off too without ``opentelemetry-api``. A
    global provider is looked for only once ``opentelemetry.trace`` has been imported (setting
    one imports it) or ``OTEL_PYTHON_TRACER_PROVIDER`` names one, so a program that does
    neither never imports ``opentelemetry``.

    Raises:
        ArgumentTypeError: *tracer_provider* is not a tracer provider (no ``get_tracer``), or
            *plugin_spans* is not a bool.
        SchedulerError: a provider was given but ``opentelemetry-api`` is not installed.
    """
    if not isinstance(plugin_spans, bool):
        raise ArgumentTypeError(f"{owner}: trace_plugins must be a bool, got {type(plugin_spans).__name__}")
    if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer", None)):
        raise ArgumentTypeError(
            f"{owner}: tracer_provider must be an OpenTelemetry TracerProvider (an object with a "
            f"get_tracer() method), got {type(tracer_provider).__name__}")
    if (tracer_provider is None and "opentelemetry.trace" not in sys.modules
            and not os.environ.get("OTEL_PYTHON_TRACER_PROVIDER")):
        return None  # nothing can have set a global provider: not even worth the import
    try:
        from opentelemetry import trace
    except ImportError:
        if tracer_provider is None:
            return None
        raise SchedulerError(f"{owner}: tracer_provider needs opentelemetry-api: "
                             "pip install 'schedframe[otel]'") from None
    if tracer_provider is None:
        tracer_provider = trace.get_tracer_provider()
        # the proxy stands in until an application sets a provider: none is configured
        if isinstance(tracer_provider, trace.ProxyTracerProvider):
            return None
    if isinstance(tracer_provider, trace.NoOpTracerProvider):
        return None
    from .._version import __version__

    tracer = tracer_provider.get_tracer(TRACER_NAME, __version__)  # type: ignore[attr-defined]
    return Tracing(tracer, clock, plugin_spans=plugin_spans)


def _status_in(result: object) -> Status | None:
    """The Status a run method returned: the result itself or the first Status of a tuple."""
    if isinstance(result, Status):
        return result
    if isinstance(result, tuple):
        for item in result:
            if isinstance(item, Status):
                return item
    return None


def _pod_attributes(pod: Pod) -> dict[str, Any]:
    return {ATTR_NAMESPACE: pod.namespace, ATTR_POD: pod.name, ATTR_POD_UID: pod.uid}


@final
class Tracing:
    """The spans of one scheduler (internal: see the module docstring).

    Args:
        tracer: an OpenTelemetry ``Tracer``.
        clock: the scheduler's clock, whose time goes on the cycle and extension-point spans.
        plugin_spans: whether the frameworks wrap every plugin call in a span.
    """

    def __init__(self, tracer: Tracer, clock: Clock, *, plugin_spans: bool = False) -> None:
        from opentelemetry import trace

        self._tracer = tracer
        self._clock = clock
        self._trace = trace
        self.plugin_spans = plugin_spans

    # -- cycles ----------------------------------------------------------------------------------
    @contextmanager
    def cycle(self, name: str, pod: Pod, profile: str, **attributes: Any) -> Iterator[Span]:
        """A cycle's span for *pod*, current while the block runs; the clock's time at its start
        and end go on it."""
        attrs = _pod_attributes(pod)
        attrs[ATTR_PROFILE] = profile
        attrs[ATTR_CLOCK_START] = self._clock.now()
        attrs.update(attributes)
        with self._tracer.start_as_current_span(name, attributes=attrs) as span:
            try:
                yield span
            finally:
                span.set_attribute(ATTR_CLOCK_END, self._clock.now())

    def start_binding(self, pod: Pod, node: str, profile: str, parent: Span | None) -> Span:
        """The binding cycle's span, started now (when the Permit wait begins) as a child of
        *parent*, ended by :meth:`resume` once the cycle has run."""
        attrs = _pod_attributes(pod)
        attrs[ATTR_PROFILE] = profile
        attrs[ATTR_NODE] = node
        attrs[ATTR_CLOCK_START] = self._clock.now()
        context = None if parent is None else self._trace.set_span_in_context(parent)
        return self._tracer.start_span(BINDING_CYCLE, context=context, attributes=attrs)

    @contextmanager
    def resume(self, span: Span) -> Iterator[Span]:
        """*span* current while the block runs, then ended (with the clock's time)."""
        with self._trace.use_span(span, end_on_exit=True):
            try:
                yield span
            finally:
                span.set_attribute(ATTR_CLOCK_END, self._clock.now())

    def current(self) -> Span:
        """The current span (a non-recording one outside any)."""
        return self._trace.get_current_span()

    # -- extension points ------------------------------------------------------------------------
    def point(self, name: str, node: str = "") -> Any:
        """An extension point's span, current while the block runs (a context manager)."""
        attrs: dict[str, Any] = {ATTR_EXTENSION_POINT: name, ATTR_CLOCK_START: self._clock.now()}
        if node:
            attrs[ATTR_NODE] = node
        return self._tracer.start_as_current_span(name, attributes=attrs)

    def call(self, name: str, node: str, fn: Callable[_P, _R], /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        """``fn(*args, **kwargs)`` in the span of extension point *name* (on *node*, unless
        ``""``), which records the Status it returns (see :meth:`outcome`)."""
        with self.point(name, node) as span:
            result = fn(*args, **kwargs)
            status = Status.OK if result is None else _status_in(result)  # None: cannot fail
            if status is not None:
                self.outcome(span, status)
            return result

    def outcome(self, span: Span, status: Status, node: str = "") -> None:
        """Record *status* on *span*: its code, and unless a success its plugin and message; an
        ERROR also sets the span's status to error. *node*, when given, is the chosen node."""
        code = status.code
        span.set_attribute(ATTR_STATUS_CODE, str(code))
        if node:
            span.set_attribute(ATTR_NODE, node)
        if code is Code.SUCCESS:
            return
        if status.plugin:
            span.set_attribute(ATTR_PLUGIN, status.plugin)
        fit = status.error
        if isinstance(fit, FitError) and fit.diagnosis.unschedulable_plugins:
            span.set_attribute(ATTR_UNSCHEDULABLE_PLUGINS, sorted(fit.diagnosis.unschedulable_plugins))
        message = status.message
        if message:
            span.set_attribute(ATTR_STATUS_MESSAGE, message)
        if code is Code.ERROR:
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, message))

    # -- plugins ---------------------------------------------------------------------------------
    def plugin_wrapper(self) -> Callable[[str, str, Any], Any] | None:
        """What the frameworks wrap each plugin method with (``(method, plugin, fn) -> fn``), or
        ``None`` without ``plugin_spans``."""
        return self._wrap if self.plugin_spans else None

    def _wrap(self, method: str, plugin: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        point = _POINT_OF_METHOD.get(method)
        if point is None:
            return fn
        name = f"{point} {plugin}"
        start = self._tracer.start_as_current_span
        is_score = point == "Score"

        def traced(*args: Any) -> Any:
            attrs: dict[str, Any] = {ATTR_EXTENSION_POINT: point, ATTR_PLUGIN: plugin}
            target = args[2] if len(args) > 2 else None
            if isinstance(target, str):
                attrs[ATTR_NODE] = target
            elif isinstance(target, Sequence):
                attrs[ATTR_NODES] = len(target)
            elif target is not None:
                node_name = getattr(target, "name", None)
                if isinstance(node_name, str):
                    attrs[ATTR_NODE] = node_name
            with start(name, attributes=attrs) as span:
                result = fn(*args)
                status = _status_in(result)
                if status is not None:
                    span.set_attribute(ATTR_STATUS_CODE, str(status.code))
                    if status.code is not Code.SUCCESS and status.message:
                        span.set_attribute(ATTR_STATUS_MESSAGE, status.message)
                elif result is None or isinstance(result, tuple):  # not a batch call's list
                    span.set_attribute(ATTR_STATUS_CODE, str(Code.SUCCESS))
                if is_score and isinstance(result, tuple) and isinstance(result[0], int):
                    span.set_attribute(ATTR_SCORE, result[0])
                return result

        return traced
