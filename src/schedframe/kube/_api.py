"""A thin JSON layer over the official client's ``ApiClient``: requests with
``_preload_content=False`` (no model deserialisation: the objects go to schedframe's own manifest
reader), errors as :class:`KubeApiError`, and watch streams split into events."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final, final

from ..errors import SchedframeError

__all__ = ["ApiSession", "KubeApiError", "KubeError"]

#: content types of the PATCH strategies
STRATEGIC_MERGE: Final = "application/strategic-merge-patch+json"
MERGE: Final = "application/merge-patch+json"


class KubeError(SchedframeError, RuntimeError):
    """A live-cluster operation of :mod:`schedframe.kube` failed (configuration, connection).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"


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
        self.reason = reason
        self.detail = message
        shown = f"HTTP {status}" if status else "no answer"
        super().__init__(f"{method} {path}: {shown}{f' {reason}' if reason else ''}: {message}")


def _decode_error(method: str, path: str, status: int, body: bytes | str | None,
                  fallback: str) -> KubeApiError:
    reason, message = "", fallback
    if body:
        try:
            data = json.loads(body)
        except ValueError:
            message = (body.decode("utf-8", "replace") if isinstance(body, bytes) else body)[:300]
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
            try:
                payload = resp.data
            except Exception:
                payload = None
            finally:
                resp.release_conn()
            raise _decode_error(method, path, status, payload, str(getattr(resp, "reason", "") or "error"))
        return resp

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                body: Any = None, content_type: str | None = None,
                timeout: float | tuple[float, float] | None = 30.0) -> Any:
        """Send one request and return the decoded JSON answer (``None`` when empty).

        Raises:
            KubeApiError: an error status or no answer.
        """
        resp = self._call(method, path, query, body, content_type, timeout)
        try:
            data = resp.data
        except Exception as exc:
            raise KubeApiError(method, path, 0, "", f"reading the answer: {exc}") from exc
        finally:
            resp.release_conn()
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError as exc:
            raise KubeApiError(method, path, int(getattr(resp, "status", 0) or 0), "",
                               f"the answer is not JSON: {exc}") from None

    def watch(self, path: str, query: Mapping[str, Any], *, timeout: float | None = None
              ) -> Iterator[dict[str, Any]]:
        """The events of a watch request (``watch=true`` is added), decoded, as they arrive;
        ends when the server closes the stream.

        Raises:
            KubeApiError: an error status, no answer, or a broken stream.
        """
        q = dict(query)
        q["watch"] = "true"
        resp = self._call("GET", path, q, None, None, (10.0, timeout) if timeout else None)
        buf = b""
        try:
            for chunk in resp.stream(amt=None, decode_content=False):
                buf += chunk
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        break
                    line, buf = buf[:nl], buf[nl + 1:]
                    if line.strip():
                        try:
                            yield json.loads(line)
                        except ValueError as exc:
                            raise KubeApiError("GET", path, 200, "", f"a watch event is not JSON: {exc}") \
                                from None
            if buf.strip():
                yield json.loads(buf)
        except KubeApiError:
            raise
        except Exception as exc:
            raise KubeApiError("GET", path, 0, "", f"the watch stream broke: {exc}") from exc
        finally:
            resp.release_conn()
