"""Scheduler extenders: HTTP(S) services called at fixed points of the scheduling cycle
(upstream ``pkg/scheduler/extender.go`` and the wire format of ``k8s.io/kube-scheduler/extender/v1``).

:class:`~schedframe.framework.extender.HTTPExtender` is upstream's ``HTTPExtender``; the scheduler builds one
from each
``extenders[]`` entry of the configuration (:class:`schedframe.ExtenderConfig`). The
:class:`~schedframe.framework.extender.Extender` Protocol is upstream's ``framework.Extender`` interface:
anything implementing
it can be handed to the scheduler, and plugins reach the extenders through
``Handle.extenders()``.

Wire format (JSON, field names as in ``extender/v1``), one ``POST <urlPrefix>/<verb>`` each:

* filter and prioritize send ``ExtenderArgs``: ``{"pod": <pod manifest>, "nodes": {"items":
  [<node manifests>]}}``, or ``{"pod": ..., "nodenames": [...]}`` when ``nodeCacheCapable``.
  Filter answers ``ExtenderFilterResult`` (``nodes`` or ``nodenames``, ``failedNodes``,
  ``failedAndUnresolvableNodes``, ``error``); prioritize answers ``HostPriorityList``
  (``[{"host": ..., "score": 0..10}]``).
* bind sends ``ExtenderBindingArgs`` (``podName``, ``podNamespace``, ``podUID``, ``node``) and
  answers ``ExtenderBindingResult`` (``error``).
* preempt sends ``ExtenderPreemptionArgs``: ``{"pod": ..., "nodeNameToVictims": {node: {"pods":
  [<pod manifests>], "numPDBViolations": n}}}``, or ``nodeNameToMetaVictims`` (``{"pods":
  [{"uid": ...}], ...}``) when ``nodeCacheCapable``; it answers ``ExtenderPreemptionResult``
  (``nodeNameToMetaVictims``: the nodes and victims it accepts).

The transport is pluggable: a callable ``(url, payload, timeout) -> decoded JSON`` that raises on
failure. The default, :func:`urllib_transport`, uses the standard library (``urllib.request``);
tests and simulations can pass an in-process function instead. Differences from upstream:

* The timeout bounds the whole call (connecting, TLS, sending, the status, headers and body) as
  Go's ``http.Client.Timeout`` does, except the DNS lookup of the host.
* Only ``http`` and ``https`` URLs without credentials (``user:password@``) are called; an
  answer is at most :data:`DEFAULT_MAX_RESPONSE_BYTES` (or twice the request) and may not list
  more nodes than it was sent; extender-provided text in messages is cut to
  :data:`MAX_EXTENDER_MESSAGE` characters (upstream has none of these limits).
* TLS: ``caFile``/``caData``, ``certFile``/``keyFile`` and ``insecure`` are supported;
  ``serverName``, ``certData`` and ``keyData`` are refused with a clear error when the extender
  is built.
* Filter answers listing full ``nodes`` are matched to the input nodes by name (a node not sent
  is an error, as for ``nodenames``); the node objects the extender sends back are not used.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol, final, runtime_checkable

import attrs

from ..api.objects import Pod
from ..cache.listers import NodeInfoLister
from ..cache.nodeinfo import NodeInfo
from ..errors import ExtenderError, bounded_repr, bounded_text
from .diagnosis import Diagnosis
from .interfaces import MAX_NODE_SCORE
from .status import Code, Status

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "EXTENDER_NAME",
    "MAX_EXTENDER_MESSAGE",
    "MAX_EXTENDER_PRIORITY",
    "MAX_EXTENDER_TIMEOUT",
    "Extender",
    "ExtenderTransport",
    "FilterOutcome",
    "HTTPExtender",
    "build_extenders",
    "extenders_filter",
    "extenders_prioritize",
    "shown_url",
    "url_prefix_problem",
    "urllib_transport",
]

#: The highest score an extender's prioritize verb may give (upstream ``MaxExtenderPriority``).
MAX_EXTENDER_PRIORITY: Final = 10
#: The pseudo plugin name recorded among a pod's rejecting plugins when extenders filtered out
#: nodes (upstream ``framework.ExtenderName``).
EXTENDER_NAME: Final = "Extender"
_DEFAULT_TIMEOUT: Final = 5.0
#: The largest answer (bytes) the default transport reads from an extender, unless the request
#: was larger: an answer may then be twice the request's size (a filter answer with full node
#: manifests echoes the nodes sent). Raise it with ``urllib_transport(max_response_bytes=...)``.
DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
#: The longest ``httpTimeout`` an extender may have, in seconds (24 hours).
MAX_EXTENDER_TIMEOUT: Final = 24 * 3600.0
#: The most characters of an extender-provided text (its ``error``, a failed node's reason, a
#: transport failure) that reach an error or a pending message; longer ones are cut, saying how
#: long they were.
MAX_EXTENDER_MESSAGE: Final = 1024
_CHUNK: Final = 64 * 1024
_URL_SCHEMES: Final = ("http", "https")

#: ``(url, payload, timeout seconds) -> the decoded JSON answer``; raises on failure.
ExtenderTransport = Callable[[str, Mapping[str, Any], float], Any]


@runtime_checkable
class Extender(Protocol):
    """A scheduler extender (upstream ``framework.Extender``).

    ``filter`` returns the nodes that pass and two maps ``node name -> reason`` (failed, failed
    and unresolvable); ``prioritize`` returns ``[(node name, score 0..10)]`` and the weight;
    every call raises :class:`~schedframe.errors.ExtenderError` on failure.
    """

    @property
    def name(self) -> str: ...

    def is_ignorable(self) -> bool: ...

    def is_interested(self, pod: Pod) -> bool: ...

    def is_binder(self) -> bool: ...

    def is_filter(self) -> bool: ...

    def is_prioritizer(self) -> bool: ...

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]: ...

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]: ...

    def bind(self, pod: Pod, node_name: str) -> None: ...

    def supports_preemption(self) -> bool: ...

    def process_preemption(self, pod: Pod, victims: Mapping[str, tuple[Sequence[Pod], int]],
                           node_infos: NodeInfoLister) -> dict[str, tuple[list[Pod], int]]: ...


class _ConfigLike(Protocol):
    """The fields of :class:`schedframe.ExtenderConfig`
    :meth:`schedframe.framework.extender.HTTPExtender.from_config` reads."""

    @property
    def url_prefix(self) -> str: ...
    @property
    def filter_verb(self) -> str: ...
    @property
    def preempt_verb(self) -> str: ...
    @property
    def prioritize_verb(self) -> str: ...
    @property
    def bind_verb(self) -> str: ...
    @property
    def weight(self) -> int: ...
    @property
    def enable_https(self) -> bool: ...
    @property
    def tls_config(self) -> Any: ...
    @property
    def http_timeout(self) -> float: ...
    @property
    def node_cache_capable(self) -> bool: ...
    @property
    def managed_resources(self) -> Iterable[Any]: ...
    @property
    def ignorable(self) -> bool: ...


# --------------------------------------------------------------------------------------------
# transport


def _ssl_context(enable_https: bool, tls: Any) -> ssl.SSLContext | None:
    """Upstream ``makeTransport``: TLS from ``tlsConfig``; with ``enableHTTPS`` and no CA the
    server is not verified."""
    if tls is None and not enable_https:
        return None
    ca_file = getattr(tls, "ca_file", "") if tls is not None else ""
    ca_data = getattr(tls, "ca_data", b"") if tls is not None else b""
    insecure = bool(getattr(tls, "insecure", False)) if tls is not None else False
    if enable_https and not ca_file and not ca_data:
        insecure = True
    for field, shown in (("server_name", "serverName"), ("cert_data", "certData"), ("key_data", "keyData")):
        if tls is not None and getattr(tls, field, None):
            raise ExtenderError(f"tlsConfig.{shown} is not supported by schedframe's standard-library "
                                "transport; use certFile/keyFile, or pass a transport")
    ctx = ssl.create_default_context()
    try:
        if ca_file:
            ctx.load_verify_locations(cafile=ca_file)
        if ca_data:
            ctx.load_verify_locations(cadata=bytes(ca_data).decode("ascii"))
        cert_file = getattr(tls, "cert_file", "") if tls is not None else ""
        key_file = getattr(tls, "key_file", "") if tls is not None else ""
        if cert_file or key_file:
            ctx.load_cert_chain(cert_file, key_file or None)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise ExtenderError(f"cannot set up TLS for the extender: {exc}") from None
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _strip_userinfo(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    cut = len(rest)
    for stop in "/?#":
        at = rest.find(stop)
        if at != -1:
            cut = min(cut, at)
    netloc = rest[:cut]
    if "@" in netloc:
        rest = netloc.rsplit("@", 1)[1] + rest[cut:]
    return f"{scheme}{sep}{rest}"


def shown_url(url: str) -> str:
    """An extender's URL as messages and logs show it: without credentials (``user:password@``)
    and cut to about 200 characters. Every message naming an extender's URL goes through it.

    .. versionadded:: 0.1.0
    """
    return bounded_text(_strip_userinfo(url), 200)


def url_prefix_problem(url: str) -> str | None:
    """Why *url* cannot be an extender's ``urlPrefix`` (not an ``http``/``https`` URL with a
    host, or carrying credentials), or ``None`` when it can.

    .. versionadded:: 0.1.0
    """
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - validates the port
    except ValueError as exc:
        return f"must be an http:// or https:// URL ({bounded_text(str(exc))})"
    if parts.scheme.lower() not in _URL_SCHEMES:
        return "must be an http:// or https:// URL"
    if "@" in parts.netloc:
        return ("must not carry credentials (user:password@): schedframe does not send them, and "
                "they would appear in error messages, pending messages and logs")
    if not parts.hostname:
        return "must name a host"
    return None


def _deadline(url: str, timeout: float) -> str:
    return f'Post "{shown_url(url)}": context deadline exceeded (Client.Timeout {timeout:g}s exceeded)'


class _Watchdog:
    """Bounds one call by a wall-clock deadline, as Go's ``http.Client.Timeout``: the
    connections of the call are made through :meth:`connect`, and at the deadline a timer shuts
    their sockets down, which wakes any read or write still blocked on them (a server
    trickling its answer byte by byte). :meth:`finish` must be called before the connections
    are closed."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        self.fired = False
        self._done = False
        self._lock = threading.Lock()
        # duplicates of the call's sockets: shutting one down shuts the connection down, even
        # after TLS has taken the original socket over; ours to close, so never reused meanwhile
        self._socks: list[socket.socket] = []
        self._timer = threading.Timer(timeout, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.fired:
            raise TimeoutError("the extender call's deadline passed")
        return left

    def _fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
            for sock in self._socks:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        with self._lock:
            self._done = True
            self._timer.cancel()
            for sock in self._socks:
                sock.close()
            self._socks.clear()

    def connect(self, address: tuple[str, int], timeout: object = None,
                source_address: tuple[str, int] | None = None) -> socket.socket:
        """``socket.create_connection`` within the deadline (DNS resolution excepted)."""
        host, port = address
        last: OSError | None = None
        for family, kind, proto, _, sockaddr in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
            sock = socket.socket(family, kind, proto)
            try:
                with self._lock:
                    if self._done or self.fired:
                        raise TimeoutError("the extender call's deadline passed")
                    self._socks.append(sock.dup())
                sock.settimeout(self.remaining())
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
                return sock
            except OSError as exc:
                sock.close()
                if isinstance(exc, TimeoutError):
                    raise
                last = exc
        raise last if last is not None else OSError(f"cannot resolve {host!r}")


def _connection_factory(base: type[http.client.HTTPConnection], watchdog: _Watchdog
                        ) -> Callable[..., http.client.HTTPConnection]:
    def make(host: str, timeout: float | None = None, **kwargs: Any) -> http.client.HTTPConnection:
        conn = base(host, timeout=watchdog.remaining(), **kwargs)
        conn._create_connection = watchdog.connect  # type: ignore[attr-defined]
        return conn

    return make


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_connection_factory(http.client.HTTPConnection, self._watchdog), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog, context: ssl.SSLContext | None) -> None:
        super().__init__(context=context)
        self._watchdog = watchdog
        self._ssl_context = context

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_connection_factory(http.client.HTTPSConnection, self._watchdog), req,
                            context=self._ssl_context)


def _opener(watchdog: _Watchdog, context: ssl.SSLContext | None) -> urllib.request.OpenerDirector:
    """HTTP and HTTPS only (a redirect to ``file:``, ``ftp:`` or ``data:`` has no handler),
    with proxies from the environment as Go's transport, every connection under *watchdog*."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(),
                    _HTTPHandler(watchdog), _HTTPSHandler(watchdog, context),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPRedirectHandler(),
                    urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def urllib_transport(context: ssl.SSLContext | None = None, *,
                     max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> ExtenderTransport:
    """The default transport: ``POST`` the payload as JSON with ``urllib.request``.

    A status other than 200 raises :class:`~schedframe.errors.ExtenderError` with upstream's message
    (``failed <verb> with extender at URL <url>, code <status>``); so do connection errors,
    answers that are not JSON and answers larger than *max_response_bytes* (default
    :data:`DEFAULT_MAX_RESPONSE_BYTES`) or twice the request, whichever is larger. The timeout
    bounds the whole call, as Go's ``http.Client.Timeout`` (a server trickling its answer is cut
    off at the deadline), DNS resolution excepted. Only ``http`` and ``https`` URLs without
    credentials are called, redirects included.
    """
    if (isinstance(max_response_bytes, bool) or not isinstance(max_response_bytes, int)
            or max_response_bytes <= 0):
        raise ExtenderError(
            f"max_response_bytes must be a positive integer, got {bounded_repr(max_response_bytes)}")

    def transport(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        problem = url_prefix_problem(url)
        if problem is not None:
            raise ExtenderError(f'Post "{shown_url(url)}": the URL {problem}')
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout)
                and 0 < timeout <= MAX_EXTENDER_TIMEOUT):
            raise ExtenderError(f"the timeout of extender at URL {shown_url(url)} must be more than 0 "
                                f"and at most {MAX_EXTENDER_TIMEOUT:g} seconds, got {bounded_repr(timeout)}")
        body = json.dumps(payload).encode("utf-8")
        limit = max(max_response_bytes, 2 * len(body))
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        verb = url.rstrip("/").rsplit("/", 1)[-1]
        shown = shown_url(url)
        watchdog = _Watchdog(timeout)
        chunks: list[bytes] = []
        size = 0
        try:
            with _opener(watchdog, context).open(request, timeout=timeout) as response:
                status = response.status
                while status == 200 and size <= limit:
                    watchdog.remaining()
                    chunk = response.read1(_CHUNK)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                if watchdog.fired:
                    raise TimeoutError
        except urllib.error.HTTPError as exc:
            exc.close()
            if watchdog.fired:
                raise ExtenderError(_deadline(url, timeout)) from None
            raise ExtenderError(f"failed {bounded_text(verb)} with extender at URL {shown}, "
                                f"code {exc.code}") from None
        except urllib.error.URLError as exc:
            if watchdog.fired or isinstance(exc.reason, TimeoutError):
                raise ExtenderError(_deadline(url, timeout)) from None
            reason = bounded_text(str(exc.reason), MAX_EXTENDER_MESSAGE)
            raise ExtenderError(f'Post "{shown}": {reason}') from None
        except TimeoutError:
            raise ExtenderError(_deadline(url, timeout)) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:
            if watchdog.fired:
                raise ExtenderError(_deadline(url, timeout)) from None
            raise ExtenderError(f'Post "{shown}": {bounded_text(str(exc), MAX_EXTENDER_MESSAGE)}') from None
        finally:
            watchdog.finish()
        if status != 200:
            raise ExtenderError(f"failed {bounded_text(verb)} with extender at URL {shown}, code {status}")
        if size > limit:
            raise ExtenderError(f"the answer of extender at URL {shown} is larger than {limit} bytes")
        try:
            return json.loads(b"".join(chunks))
        except (ValueError, RecursionError) as exc:
            raise ExtenderError(f"the answer of extender at URL {shown} is not JSON: "
                                f"{bounded_text(str(exc))}") from None

    return transport


# --------------------------------------------------------------------------------------------
# the extender


@final
class HTTPExtender:
    """An extender reached over HTTP(S) (upstream ``HTTPExtender``).

    Args:
        url_prefix: the extender's URL; ``<url_prefix>/<verb>`` is called (trailing ``/``
            stripped).
        filter_verb, preempt_verb, prioritize_verb, bind_verb: the verbs (empty: not called).
        weight: multiplies prioritize scores.
        enable_https, tls_config: TLS, as in the configuration (used by the default transport).
        http_timeout: seconds a call may take, connection and answer included (``0``: 5
            seconds, upstream's default; at most ``MAX_EXTENDER_TIMEOUT``, 24 hours, of
            ``schedframe.framework.extender``).
        node_cache_capable: send node names instead of node manifests.
        managed_resources: resource names; when non-empty, only pods requesting or limiting one
            of them (in a container or init container) are sent.
        ignorable: failures of filter and bind skip this extender instead of failing the pod.
        transport: ``(url, payload, timeout) -> decoded JSON``; default: HTTP(S) with
            ``urllib.request``.

    Raises:
        ExtenderError: *url_prefix* is not an ``http``/``https`` URL or carries credentials,
            *http_timeout* is negative, not finite or above ``MAX_EXTENDER_TIMEOUT`` (24 hours), or
            the TLS settings cannot be used.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.framework.extender"

    def __init__(self, url_prefix: str, *, filter_verb: str = "", preempt_verb: str = "",
                 prioritize_verb: str = "", bind_verb: str = "", weight: int = 0,
                 enable_https: bool = False, tls_config: Any = None, http_timeout: float = 0.0,
                 node_cache_capable: bool = False, managed_resources: Iterable[str] = (),
                 ignorable: bool = False, transport: ExtenderTransport | None = None) -> None:
        problem = url_prefix_problem(url_prefix) if isinstance(url_prefix, str) else "must be a string"
        if problem is not None:
            raise ExtenderError(f"url_prefix {shown_url(url_prefix) if isinstance(url_prefix, str) else ''}"
                                f"{' ' if isinstance(url_prefix, str) else ''}{problem}")
        if (isinstance(http_timeout, bool) or not isinstance(http_timeout, (int, float))
                or not 0 <= http_timeout <= MAX_EXTENDER_TIMEOUT):  # NaN fails too
            raise ExtenderError(f"http_timeout must be a number of seconds from 0 to "
                                f"{MAX_EXTENDER_TIMEOUT:g}, got {bounded_repr(http_timeout)}")
        self.url_prefix = url_prefix
        self.filter_verb = filter_verb
        self.preempt_verb = preempt_verb
        self.prioritize_verb = prioritize_verb
        self.bind_verb = bind_verb
        self.weight = weight
        self.http_timeout = http_timeout or _DEFAULT_TIMEOUT
        self.node_cache_capable = node_cache_capable
        self.managed_resources = frozenset(managed_resources)
        self.ignorable = ignorable
        if transport is None:
            transport = urllib_transport(_ssl_context(enable_https, tls_config))
        elif not callable(transport):
            raise ExtenderError(f"transport must be callable, got {type(transport).__name__}")
        self.transport: ExtenderTransport = transport

    @classmethod
    def from_config(cls, config: _ConfigLike, *, transport: ExtenderTransport | None = None) -> HTTPExtender:
        """Build from an :class:`~schedframe.ExtenderConfig` (upstream ``NewHTTPExtender``)."""
        return cls(
            config.url_prefix, filter_verb=config.filter_verb, preempt_verb=config.preempt_verb,
            prioritize_verb=config.prioritize_verb, bind_verb=config.bind_verb, weight=config.weight,
            enable_https=config.enable_https, tls_config=config.tls_config,
            http_timeout=config.http_timeout, node_cache_capable=config.node_cache_capable,
            managed_resources=[r.name for r in config.managed_resources], ignorable=config.ignorable,
            transport=transport)

    # -- what it does -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The URL prefix, which names the extender (upstream ``Name``)."""
        return self.url_prefix

    def is_ignorable(self) -> bool:
        """Whether failures skip this extender instead of failing the pod."""
        return self.ignorable

    def is_binder(self) -> bool:
        """Whether it has a bind verb."""
        return bool(self.bind_verb)

    def is_filter(self) -> bool:
        """Whether it has a filter verb."""
        return bool(self.filter_verb)

    def is_prioritizer(self) -> bool:
        """Whether it has a prioritize verb."""
        return bool(self.prioritize_verb)

    def supports_preemption(self) -> bool:
        """Whether it has a preempt verb."""
        return bool(self.preempt_verb)

    def is_interested(self, pod: Pod) -> bool:
        """Whether *pod* is sent to this extender: it manages no resources, or a container or
        init container of the pod requests or limits one it manages (upstream ``IsInterested``)."""
        managed = self.managed_resources
        if not managed:
            return True
        for container in (*pod.containers, *pod.init_containers):
            if not managed.isdisjoint(container.requests) or not managed.isdisjoint(container.limits):
                return True
        return False

    # -- the calls --------------------------------------------------------------------------
    def _args(self, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, Any]:
        if self.node_cache_capable:
            return {"pod": pod.to_manifest(), "nodenames": [ni.name for ni in nodes]}
        return {"pod": pod.to_manifest(),
                "nodes": {"items": [ni.node.to_manifest() for ni in nodes if ni.node is not None]}}

    @property
    def _shown(self) -> str:
        return shown_url(self.url_prefix)

    def _send(self, verb: str, payload: Mapping[str, Any]) -> Any:
        url = self.url_prefix.rstrip("/") + "/" + verb
        try:
            return self.transport(url, payload, self.http_timeout)
        except ExtenderError as exc:  # a transport's own: bounded here too
            text = str(exc)
            if len(text) <= MAX_EXTENDER_MESSAGE:
                raise
            raise ExtenderError(bounded_text(text, MAX_EXTENDER_MESSAGE)) from exc
        except Exception as exc:  # an in-process transport's own failure
            raise ExtenderError(f"extender at URL {shown_url(url)}: {type(exc).__name__}: "
                                f"{bounded_text(str(exc), MAX_EXTENDER_MESSAGE)}") from exc

    def _error(self, error: Any) -> ExtenderError:
        """The extender's own ``error`` (upstream returns it as the error), bounded."""
        return ExtenderError(bounded_text(str(error), MAX_EXTENDER_MESSAGE))

    def _too_many(self, what: str, got: int, sent: int, *, slack: int = 1) -> None:
        """Refuse an answer listing more than *slack* times the items it was sent (the decoded
        answer is bounded by the request, not only by its size in bytes)."""
        if got > sent * slack:
            most = "" if slack == 1 else f" (at most {slack} times as many may be answered)"
            raise ExtenderError(f"extender {self._shown!r} answered {got} {what} but was sent {sent}{most}")

    def _mapping(self, answer: Any, what: str) -> Mapping[str, Any]:
        if not isinstance(answer, Mapping):
            raise ExtenderError(f"extender {self._shown!r} answered {bounded_repr(answer, 100)} where "
                                f"an {what} object was expected")
        return answer

    def _failed_map(self, answer: Mapping[str, Any], key: str, sent: int) -> dict[str, str]:
        value = answer.get(key)
        if value is None:
            return {}
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ExtenderError(f"extender {self._shown!r}: {key} must map node names to messages")
        # upstream records failures of nodes it did not send too: allow some
        self._too_many(f"{key}", len(value), sent, slack=2)
        return {k: bounded_text(v, MAX_EXTENDER_MESSAGE) for k, v in value.items()}

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """Call the filter verb (upstream ``Filter``): the nodes that pass, in the extender's
        order, and the failed and failed-and-unresolvable nodes with their reasons. Without a
        filter verb every node passes."""
        if not self.filter_verb:
            return list(nodes), {}, {}
        answer = self._mapping(self._send(self.filter_verb, self._args(pod, nodes)), "ExtenderFilterResult")
        error = answer.get("error")
        if error:
            raise self._error(error)
        by_name = {ni.name: ni for ni in nodes}
        names: list[Any] | None = None
        if self.node_cache_capable and answer.get("nodenames") is not None:
            names = answer["nodenames"]
            if not isinstance(names, list):
                raise ExtenderError(f"extender {self._shown!r}: nodenames must be a list")
        elif answer.get("nodes") is not None:
            node_list = answer["nodes"]
            items = node_list.get("items") if isinstance(node_list, Mapping) else None
            if items is None:
                items = []
            if not isinstance(items, list):
                raise ExtenderError(f"extender {self._shown!r}: nodes.items must be a list")
            names = [item.get("metadata", {}).get("name") if isinstance(item, Mapping) else None
                     for item in items]
        self._too_many("nodes", len(names or ()), len(nodes))
        passed: list[NodeInfo] = []
        for node_name in names or ():
            ni = by_name.get(node_name) if isinstance(node_name, str) else None
            if ni is None:
                raise ExtenderError(
                    f"extender {self._shown!r} claims a filtered node {bounded_repr(node_name, 100)} "
                    "which is not found in the input node list")
            passed.append(ni)
        return (passed, self._failed_map(answer, "failedNodes", len(nodes)),
                self._failed_map(answer, "failedAndUnresolvableNodes", len(nodes)))

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """Call the prioritize verb (upstream ``Prioritize``): ``[(host, score)]`` and the weight.
        Without a prioritize verb every node scores 0 with weight 0."""
        if not self.prioritize_verb:
            return [(ni.name, 0) for ni in nodes], 0
        answer = self._send(self.prioritize_verb, self._args(pod, nodes))
        if answer is None:
            return [], self.weight
        if not isinstance(answer, list):
            raise ExtenderError(f"extender {self._shown!r} answered {bounded_repr(answer, 100)} where a "
                                "HostPriorityList was expected")
        # hosts not sent are ignored, as upstream; some are allowed
        self._too_many("host priorities", len(answer), len(nodes), slack=2)
        out: list[tuple[str, int]] = []
        for item in answer:
            host = item.get("host") if isinstance(item, Mapping) else None
            score = item.get("score", 0) if isinstance(item, Mapping) else None
            if not isinstance(host, str) or not isinstance(score, int) or isinstance(score, bool):
                raise ExtenderError(
                    f'extender {self._shown!r}: a HostPriority must be {{"host": <string>, "score": '
                    f"<integer>}}, got {bounded_repr(item, 100)}")
            out.append((host, score))
        return out, self.weight

    def bind(self, pod: Pod, node_name: str) -> None:
        """Call the bind verb (upstream ``Bind``); raises when the extender refuses."""
        if not self.bind_verb:
            raise ExtenderError("unexpected empty bindVerb in extender")
        answer = self._send(self.bind_verb, {
            "podName": pod.name, "podNamespace": pod.namespace, "podUID": pod.uid, "node": node_name})
        answer = self._mapping(answer, "ExtenderBindingResult")
        error = answer.get("error")
        if error:
            raise self._error(error)

    def process_preemption(self, pod: Pod, victims: Mapping[str, tuple[Sequence[Pod], int]],
                           node_infos: NodeInfoLister) -> dict[str, tuple[list[Pod], int]]:
        """Call the preempt verb (upstream ``ProcessPreemption``) with the candidate nodes'
        victims (``node -> (pods, PDB violations)``); returns the nodes and victims the extender
        accepts, its victims looked up by UID on each node."""
        if not self.preempt_verb:
            raise ExtenderError(
                f"preempt verb is not defined for extender {self._shown} but run into ProcessPreemption")
        payload: dict[str, Any] = {"pod": pod.to_manifest()}
        if self.node_cache_capable:
            payload["nodeNameToMetaVictims"] = {
                node: {"pods": [{"uid": p.uid} for p in pods], "numPDBViolations": n}
                for node, (pods, n) in victims.items()}
        else:
            payload["nodeNameToVictims"] = {
                node: {"pods": [p.to_manifest() for p in pods], "numPDBViolations": n}
                for node, (pods, n) in victims.items()}
        answer = self._mapping(self._send(self.preempt_verb, payload), "ExtenderPreemptionResult")
        meta = answer.get("nodeNameToMetaVictims") or {}
        if not isinstance(meta, Mapping):
            raise ExtenderError(f"extender {self._shown!r}: nodeNameToMetaVictims must be a mapping")
        self._too_many("candidate nodes", len(meta), len(victims))
        out: dict[str, tuple[list[Pod], int]] = {}
        for node_name, meta_victims in meta.items():
            node_info = node_infos.get(node_name) if isinstance(node_name, str) else None
            if node_info is None:
                raise ExtenderError(f"nodeinfo not found for node name {bounded_repr(node_name, 100)}")
            if meta_victims is None:
                out[node_name] = ([], 0)
                continue
            if not isinstance(meta_victims, Mapping):
                raise ExtenderError(f"extender {self._shown!r}: the victims of node "
                                    f"{bounded_repr(node_name)} must be a mapping")
            by_uid = {pi.pod.uid: pi.pod for pi in node_info.pods}
            pods: list[Pod] = []
            meta_pods = meta_victims.get("pods") or ()
            if not isinstance(meta_pods, (list, tuple)):
                raise ExtenderError(f"extender {self._shown!r}: the victims of node "
                                    f"{bounded_repr(node_name)} must list pods")
            self._too_many(f"victims on node {bounded_repr(node_name)}", len(meta_pods),
                           len(victims[node_name][0]) if node_name in victims else len(by_uid))
            for meta_pod in meta_pods:
                uid = meta_pod.get("uid") if isinstance(meta_pod, Mapping) else None
                found = by_uid.get(uid) if isinstance(uid, str) else None
                if found is None:
                    raise ExtenderError(
                        f"extender: {self._shown} claims to preempt pod (UID: {bounded_repr(uid, 100)}) "
                        f"on node: {bounded_text(node_name)}, but the pod is not found on that node")
                pods.append(found)
            violations = meta_victims.get("numPDBViolations", 0)
            out[node_name] = (pods, violations if isinstance(violations, int) else 0)
        return out

    def __repr__(self) -> str:
        verbs = ", ".join(f"{k}={v!r}" for k, v in (
            ("filter", self.filter_verb), ("prioritize", self.prioritize_verb),
            ("bind", self.bind_verb), ("preempt", self.preempt_verb)) if v)
        return f"HTTPExtender({self._shown!r}{', ' if verbs else ''}{verbs})"



# --------------------------------------------------------------------------------------------
# calling the extenders in a scheduling cycle (upstream findNodesThatPassExtenders and the
# extenders' part of prioritizeNodes); the scheduler and ``explain`` both go through these


@final
@attrs.frozen
class FilterOutcome:
    """One extender's filter answer, as :func:`extenders_filter` hands it to ``on_filtered``."""

    #: the nodes the extender was given
    nodes: list[NodeInfo]
    #: the nodes that passed, in the extender's order
    passed: list[NodeInfo]
    #: node name -> reason, failed
    failed: dict[str, str]
    #: node name -> reason, failed and unresolvable
    unresolvable: dict[str, str]


def build_extenders(configs: Iterable[_ConfigLike], transport: ExtenderTransport | None = None
                    ) -> tuple[Extender, ...]:
    """Upstream ``buildExtenders``: one :class:`~schedframe.framework.extender.HTTPExtender` per configured
    extender, the
    ignorable ones moved to the end (the order they are called in)."""
    built = [HTTPExtender.from_config(ext, transport=transport) for ext in configs]
    return (*[e for e in built if not e.is_ignorable()], *[e for e in built if e.is_ignorable()])


def extenders_filter(extenders: Iterable[Extender], pod: Pod, feasible: list[NodeInfo],
                     diagnosis: Diagnosis, *,
                     on_skipped: Callable[[Extender, ExtenderError], None] | None = None,
                     on_filtered: Callable[[Extender, FilterOutcome], None] | None = None,
                     ) -> tuple[list[NodeInfo], Status | None]:
    """Run the interested extenders' filter verbs in turn on the *feasible* nodes (upstream
    ``findNodesThatPassExtenders``): the nodes left, and ``None`` or the ERROR status of a
    non-ignorable extender that failed (then no node is left).

    The nodes an extender fails get its reasons as statuses in *diagnosis* (failed-and-unresolvable
    wins), and :data:`EXTENDER_NAME` joins its rejecting plugins when any node was filtered out.
    *on_skipped* is told of an ignorable extender that failed (skipped); *on_filtered* of each
    extender's answer: the nodes it was given, those that passed, the failed and the
    failed-and-unresolvable ones with their reasons.
    """
    before = len(feasible)
    statuses = diagnosis.node_to_status
    for extender in extenders:
        if not feasible:
            break
        if not extender.is_interested(pod):
            continue
        try:
            passed, failed, unresolvable = extender.filter(pod, feasible)
        except ExtenderError as exc:
            if extender.is_ignorable():
                if on_skipped is not None:
                    on_skipped(extender, exc)
                continue
            return [], Status.from_error(exc)
        for node_name, message in unresolvable.items():
            statuses.set(node_name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,)))
        for node_name, message in failed.items():
            if node_name not in unresolvable:
                statuses.set(node_name, Status(Code.UNSCHEDULABLE, (message,)))
        passed = list(passed)
        if on_filtered is not None:
            on_filtered(extender, FilterOutcome(feasible, passed, failed, unresolvable))
        feasible = passed
    if len(feasible) != before:
        diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
    return feasible, None


def extenders_prioritize(extenders: Iterable[Extender], pod: Pod, nodes: Sequence[NodeInfo], *,
                         on_error: Callable[[Extender, ExtenderError], None] | None = None,
                         ) -> list[tuple[Extender, int, list[tuple[int, int]]]]:
    """Call each interested extender's prioritize verb on *nodes* (upstream ``prioritizeNodes``):
    per extender, its weight scaled from 0..MAX_EXTENDER_PRIORITY to 0..MAX_NODE_SCORE and its
    ``(node index, raw score)`` pairs (hosts not among *nodes* dropped). An extender whose call
    fails gives no scores; *on_error* is told."""
    index = {ni.name: i for i, ni in enumerate(nodes)}
    scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
    out: list[tuple[Extender, int, list[tuple[int, int]]]] = []
    for extender in extenders:
        if not extender.is_interested(pod):
            continue
        try:
            scores, weight = extender.prioritize(pod, nodes)
        except ExtenderError as exc:
            if on_error is not None:
                on_error(extender, exc)
            continue
        pairs = [(i, score) for host, score in scores if (i := index.get(host)) is not None]
        out.append((extender, weight * scale, pairs))
    return out
