"""A thin JSON layer over the official client's ``ApiClient``: requests with
``_preload_content=False`` (no model deserialisation: the objects go to schedframe's own manifest
reader), errors as :class:`KubeApiError`, and watch streams split into events."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final, final

from ..errors import SchedframeError

__all__ = ["MAX_EVENT_BYTES", "MAX_SERVER_TEXT", "ApiSession", "KubeApiError", "KubeError",
           "KubeLimitError"]

#: content types of the PATCH strategies
STRATEGIC_MERGE: Final = "application/strategic-merge-patch+json"
MERGE: Final = "application/merge-patch+json"

#: the longest server-provided text (an error message, a reason, a name) quoted in a message
MAX_SERVER_TEXT: Final = 300
#: the most of an error answer's body read (the rest is not read: the message is cut anyway)
_MAX_ERROR_BODY: Final = 16 * 1024 * 1024
#: the longest watch event line (one object: etcd keeps at most 1.5 MiB per object)
MAX_EVENT_BYTES: Final = 16 * 1024 * 1024
#: the bytes read from an answer at a time
_READ_CHUNK: Final = 64 * 1024


def bounded_text(text: str, limit: int = MAX_SERVER_TEXT, total: int | None = None,
                 more: bool = False) -> str:
    """*text* on one line, cut to about *limit* characters, saying how long it was (*total*
    when only part of it was read; *more*: longer still), so a server's 10 MB message stays
    one readable line."""
    one = " ".join(text[: limit * 4].split())  # never split a 10 MB string whole
    size = max(total or 0, len(text))
    if size <= limit and not more:
        return one
    return f"{one[: max(limit - 30, 10)]}... ({size:,}{'+' if more else ''} characters)"


class KubeError(SchedframeError, RuntimeError):
    """A live-cluster operation of :mod:`schedframe.kube` failed (configuration, connection).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"


class KubeLimitError(KubeError):
    """A limit of :mod:`schedframe.kube` was exceeded: too many objects or pages in a list, an
    answer or a watch event too large.

    Attributes:
        subject: what was being read (``listing pods (v1)``).
        limit: the limit's value.
        option: the parameter that raises it (``max_items_per_kind``, ``max_items``,
            ``max_pages``, ``max_page_bytes``, ``max_event_bytes``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"

    def __init__(self, subject: str, problem: str, limit: int, option: str) -> None:
        self.subject = subject
        self.problem = problem
        self.limit = limit
        self.option = option
        super().__init__(f"{subject}: {problem} (the limit {option}={limit:,})")


class KubeApiError(KubeError):
    """The API server answered with an error status.

    Attributes:
        status: the HTTP status (``0`` when no answer came: connection refused, timeout).
        reason: the ``Status`` object's ``reason`` (``Conflict``, ``NotFound``, ``Expired``...).
        method, path: the request.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"

    def __init__(self, method: str, path: str, status: int, reason: str, message: str) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.reason = reason = bounded_text(reason, 80)
        self.detail = message = bounded_text(message)
        shown = f"HTTP {status}" if status else "no answer"
        super().__init__(f"{method} {path}: {shown}{f' {reason}' if reason else ''}: {message}")


def _decode_error(method: str, path: str, status: int, body: bytes | str | None,
                  fallback: str, total: int | None = None, more: bool = False) -> KubeApiError:
    reason, message = "", fallback
    if body:
        try:
            data = json.loads(body)
        except ValueError:
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            message = bounded_text(text, total=total, more=more)
        else:
            if isinstance(data, Mapping):
                reason = str(data.get("reason") or "")
                message = str(data.get("message") or message)
    return KubeApiError(method, path, status, reason, message)


@final
class ApiSession:
    """JSON requests through a ``kubernetes.client.ApiClient`` (its configuration: host, TLS,
    credentials, proxy).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("api_client",)

    def __init__(self, api_client: Any) -> None:
        if not callable(getattr(api_client, "call_api", None)):
            raise KubeError(f"expected a kubernetes.client.ApiClient, got {type(api_client).__name__}")
        self.api_client = api_client

    def _call(self, method: str, path: str, query: Mapping[str, Any] | None, body: Any,
              content_type: str | None, timeout: float | tuple[float, float] | None) -> Any:
        from kubernetes.client.exceptions import ApiException

        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        client = self.api_client
        try:
            if hasattr(client, "param_serialize"):
                # kubernetes >= 33 (the newer generator): serialise, call, check the status here
                m, url, hdrs, data, post = client.param_serialize(
                    method, path, path_params={}, query_params=list((query or {}).items()),
                    header_params=headers, body=body, auth_settings=["BearerToken"])
                answer = client.call_api(m, url, header_params=hdrs, body=data, post_params=post,
                                         _request_timeout=timeout)
                resp = answer.response
            else:
                answer = client.call_api(
                    path, method, path_params={}, query_params=list((query or {}).items()),
                    header_params=headers, body=body, auth_settings=["BearerToken"],
                    _preload_content=False, _request_timeout=timeout)
                resp = answer[0] if isinstance(answer, tuple) else answer
        except ApiException as exc:
            raise _decode_error(method, path, int(exc.status or 0), exc.body,
                                str(exc.reason or "error")) from None
        except (TimeoutError, OSError) as exc:
            raise KubeApiError(method, path, 0, "", str(exc) or type(exc).__name__) from exc
        except Exception as exc:  # urllib3's errors (MaxRetryError, ProtocolError...)
            if type(exc).__module__.startswith("urllib3"):
                raise KubeApiError(method, path, 0, "", str(exc) or type(exc).__name__) from exc
            raise
        status = int(getattr(resp, "status", 0) or 0)
        if not 200 <= status <= 299:
            payload: bytes | None = None
            total: int | None = None
            more = False
            try:
                payload, complete = _read_some(resp, _MAX_ERROR_BODY)
                if not complete:
                    total = _content_length(resp)
                    more = total is None
            except Exception:
                payload = None
            finally:
                resp.release_conn()
            raise _decode_error(method, path, status, payload, str(getattr(resp, "reason", "") or "error"),
                                total, more)
        return resp

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                body: Any = None, content_type: str | None = None,
                timeout: float | tuple[float, float] | None = 30.0,
                max_bytes: int | None = None) -> Any:
        """Send one request and return the decoded JSON answer (``None`` when empty).

        Args:
            max_bytes: refuse an answer longer than this (read no further).

        Raises:
            KubeApiError: an error status, no answer, or the connection broke mid-answer.
            KubeLimitError: the answer is longer than *max_bytes*.
        """
        resp = self._call(method, path, query, body, content_type, timeout)
        try:
            if max_bytes is None:
                data = resp.data
            else:
                length = _content_length(resp)
                if length is not None and length > max_bytes:
                    raise KubeLimitError(f"{method} {path}", f"an answer of {length:,} bytes", max_bytes,
                                         "max_page_bytes")
                data, complete = _read_some(resp, max_bytes)
                if not complete:
                    raise KubeLimitError(f"{method} {path}", f"an answer longer than {max_bytes:,} bytes",
                                         max_bytes, "max_page_bytes")
        except KubeLimitError:
            raise
        except Exception as exc:
            raise KubeApiError(method, path, 0, "", f"the connection broke while reading the answer: "
                               f"{exc or type(exc).__name__}") from exc
        finally:
            resp.release_conn()
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError as exc:
            raise KubeApiError(method, path, int(getattr(resp, "status", 0) or 0), "",
                               f"the answer is not JSON: {exc}") from None

    def watch(self, path: str, query: Mapping[str, Any], *, timeout: float | None = None,
              max_event_bytes: int = MAX_EVENT_BYTES, event_deadline: float | None = None
              ) -> Iterator[dict[str, Any]]:
        """The events of a watch request (``watch=true`` is added), decoded, as they arrive;
        ends when the server closes the stream.

        Args:
            timeout: the socket read timeout (no byte for that long ends the watch).
            max_event_bytes: the longest event line read; a longer one ends the watch.
            event_deadline: seconds an event may take from its first byte to its last; a
                trickling one ends the watch (``None``: no deadline).

        Raises:
            KubeApiError: an error status, no answer, a broken stream, an event that is not
                JSON or that missed *event_deadline*.
            KubeLimitError: an event line longer than *max_event_bytes* (``option`` is
                ``max_event_bytes``).
        """
        q = dict(query)
        q["watch"] = "true"
        resp = self._call("GET", path, q, None, None, (10.0, timeout) if timeout else None)
        # the partial line: its pieces (joined once, when its newline arrives, so a long line in
        # tiny chunks costs linear time), their size, and when its first byte came
        pieces: list[bytes] = []
        size = 0
        started = 0.0
        try:
            for chunk in resp.stream(amt=None, decode_content=False):
                start = 0
                while True:
                    nl = chunk.find(b"\n", start)
                    part = chunk[start:] if nl < 0 else chunk[start:nl]
                    if part:
                        if not pieces:
                            started = time.monotonic()
                        pieces.append(part)
                        size += len(part)
                        if size > max_event_bytes:
                            raise KubeLimitError(f"watching {path}", f"a watch event longer than "
                                                 f"{max_event_bytes:,} bytes", max_event_bytes,
                                                 "max_event_bytes")
                    if nl < 0:
                        if pieces and event_deadline is not None and \
                                time.monotonic() - started > event_deadline:
                            raise KubeApiError("GET", path, 0, "Timeout",
                                               f"a watch event took more than {event_deadline:g} s to arrive "
                                               f"({size:,} bytes so far)")
                        break
                    start = nl + 1
                    line = b"".join(pieces)
                    pieces.clear()
                    size = 0
                    if line.strip():
                        yield _event(path, line)
            if pieces:
                line = b"".join(pieces)
                if line.strip():
                    yield _event(path, line)
        except KubeError:
            raise
        except Exception as exc:
            raise KubeApiError("GET", path, 0, "", f"the watch stream broke: {exc}") from exc
        finally:
            resp.release_conn()


def _event(path: str, line: bytes) -> dict[str, Any]:
    try:
        event = json.loads(line)
    except ValueError as exc:
        raise KubeApiError("GET", path, 200, "", f"a watch event is not JSON: {exc}") from None
    if not isinstance(event, dict):
        raise KubeApiError("GET", path, 200, "", f"a watch event is not an object: {type(event).__name__}")
    return event


def _content_length(resp: Any) -> int | None:
    try:
        value = int((getattr(resp, "headers", None) or {}).get("Content-Length") or -1)
    except (TypeError, ValueError):
        return None
    return value if value >= 0 else None


def _read_some(resp: Any, limit: int) -> tuple[bytes, bool]:
    """At most *limit* bytes of *resp*'s body (decoded), and whether that was all of it."""
    pieces: list[bytes] = []
    size = 0
    for chunk in resp.stream(_READ_CHUNK, decode_content=True):
        pieces.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(pieces)[:limit], False
    return b"".join(pieces), True
