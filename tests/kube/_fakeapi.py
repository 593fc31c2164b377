"""A scripted fake Kubernetes API server (HTTP, in a thread) for schedframe.kube's unit tests:
lists from a mutable store, watches that play scripted actions, and recorded writes."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

COLLECTIONS = {"/api/v1/nodes": "Node", "/api/v1/pods": "Pod"}


def node(name: str, cpu: str = "4", memory: str = "8Gi", rv: int = 1) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": str(rv)},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                       "capacity": {"cpu": cpu, "memory": memory, "pods": "110"}}}


def pod(name: str, *, scheduler: str = "default-scheduler", cpu: str = "100m", node_name: str = "",
        rv: int = 1, ns: str = "default") -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": scheduler, "containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "resourceVersion": str(rv)},
            "spec": spec, "status": {"phase": "Pending"}}


class FakeApi:
    """Start with :meth:`start`; ``url`` is its address. ``store[path]`` holds the listed
    objects; ``watches[path]`` is a queue of actions for the next watch requests:
    ``("event", type, obj)``, ``("close",)``, ``("gone",)`` (a 410 ERROR event), ``("break",)``
    (the connection dies mid-chunk), ``("trickle", data, size, delay)`` (*data* in chunks of
    *size* bytes, *delay* seconds apart; it stops when the client goes or the server stops).
    ``requests`` records (method, path, query, body)."""

    def __init__(self) -> None:
        self.store: dict[str, dict[str, dict[str, Any]]] = {p: {} for p in COLLECTIONS}
        self.rv = 100
        self.watches: dict[str, queue.Queue[tuple[Any, ...]]] = {p: queue.Queue() for p in COLLECTIONS}
        self.requests: list[tuple[str, str, dict[str, list[str]], Any]] = []
        self.kinds: dict[str, str] = dict(COLLECTIONS)
        #: answers to give instead of the next list requests of a path: status codes (an error
        #: Status), ``("cut", text)`` (a 200 whose body stops after *text*: the connection
        #: closes mid-answer) or ``("body", code, data)`` (that status and body, as given)
        self.list_answers: dict[str, list[Any]] = {}
        #: list pages made by a function of the query (``limit``, ``continue``) instead of the store
        self.list_pages: dict[str, Callable[[dict[str, list[str]]], dict[str, Any]]] = {}
        #: binding answers to give, in order (status code); then 201
        self.binding_answers: list[int] = []
        self.on_binding: Callable[[str, str], None] | None = None
        #: answers to give to event POSTs, in order (status code); then 201
        self.event_answers: list[int] = []
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _body(self) -> Any:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                return json.loads(raw) if raw else None

            def _json(self, code: int, data: Any) -> None:
                body = json.dumps(data).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _status(self, code: int, reason: str, message: str) -> None:
                self._json(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                  "reason": reason, "message": message, "code": code})

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _raw_answer(self, answer: tuple[Any, ...]) -> None:
                if answer[0] == "cut":
                    text = answer[1].encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(text) * 10))
                    self.end_headers()
                    self.wfile.write(text)
                    self.wfile.flush()
                    self.close_connection = True
                    return
                _, code, data = answer
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                with api.lock:
                    api.requests.append(("GET", url.path, query, None))
                if url.path not in api.kinds:
                    self._status(404, "NotFound", "the server could not find the requested resource")
                    return
                if query.get("watch") != ["true"]:
                    with api.lock:
                        answers = api.list_answers.get(url.path)
                        code = answers.pop(0) if answers else 200
                        items = list(api.store[url.path].values())
                        rv = str(api.rv)
                        make = api.list_pages.get(url.path)
                    if isinstance(code, tuple):
                        self._raw_answer(code)
                        return
                    if code == 200 and make is not None:
                        self._json(200, make(query))
                        return
                    if code != 200:
                        reasons = {410: "Expired", 403: "Forbidden", 500: "InternalError"}
                        self._status(code, reasons.get(code, "Error"), f"list refused ({code})")
                        return
                    meta: dict[str, Any] = {"resourceVersion": rv}
                    if "limit" in query:  # pages; the continue token is the next offset
                        start = int(query.get("continue", ["0"])[0])
                        end = start + int(query["limit"][0])
                        if end < len(items):
                            meta["continue"] = str(end)
                        items = items[start:end]
                    self._json(200, {"kind": api.kinds[url.path] + "List", "apiVersion": "v1",
                                     "metadata": meta, "items": items})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                actions = api.watches[url.path]
                while True:
                    try:
                        action = actions.get(timeout=0.2)
                    except queue.Empty:
                        if api.stopping.is_set():
                            action = ("close",)
                        else:
                            continue
                    if action[0] == "event":
                        self._chunk(json.dumps({"type": action[1], "object": action[2]}).encode() + b"\n")
                    elif action[0] == "gone":
                        self._chunk(json.dumps({"type": "ERROR", "object": {
                            "kind": "Status", "code": 410, "reason": "Expired",
                            "message": "too old resource version"}}).encode() + b"\n")
                        self.wfile.write(b"0\r\n\r\n")
                        return
                    elif action[0] == "trickle":
                        data, size, delay = action[1], action[2], action[3]
                        try:
                            for at in range(0, len(data), size):
                                if api.stopping.is_set():
                                    break
                                self._chunk(data[at:at + size])
                                if delay:
                                    time.sleep(delay)
                        except OSError:  # the client went away
                            self.close_connection = True
                            return
                    elif action[0] == "break":
                        self.wfile.write(b"40\r\n{\"type\": \"ADD")  # half a chunk, then the socket dies
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    else:
                        self.wfile.write(b"0\r\n\r\n")
                        return

            def do_POST(self) -> None:
                body = self._body()
                with api.lock:
                    api.requests.append(("POST", self.path, {}, body))
                if self.path.endswith("/binding"):
                    code = api.binding_answers.pop(0) if api.binding_answers else 201
                    if code != 201:
                        reason = "Conflict" if code == 409 else "InternalError"
                        self._status(code, reason, f"binding refused ({code})")
                        return
                    if api.on_binding is not None:
                        api.on_binding(self.path.split("/")[-2], body["target"]["name"])
                    self._json(201, {"kind": "Status", "status": "Success"})
                    return
                if self.path.endswith("/events"):
                    with api.lock:
                        code = api.event_answers.pop(0) if api.event_answers else 201
                    if code != 201:
                        self._status(code, "ServiceUnavailable", f"event refused ({code})")
                        return
                self._json(201, body)

            def do_PATCH(self) -> None:
                body = self._body()
                with api.lock:
                    api.requests.append(("PATCH", self.path, {}, body))
                self._json(200, body)

            def do_DELETE(self) -> None:
                body = self._body()
                with api.lock:
                    api.requests.append(("DELETE", self.path, {}, body))
                self._json(200, {"kind": "Status", "status": "Success"})

        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # a client that hangs up mid-answer (the tests cut answers and watches on purpose) is
        # not an error of the fake: socketserver would print its traceback on stderr, which
        # the CLI tests read
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeApi:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        time.sleep(0.3)
        self.server.shutdown()
        self.server.server_close()

    def add_collection(self, path: str, kind: str) -> None:
        """Serve *path* as a list of *kind* (nothing watches it)."""
        with self.lock:
            self.kinds[path] = kind
            self.store.setdefault(path, {})
            self.watches.setdefault(path, queue.Queue())

    def put(self, path: str, obj: dict[str, Any]) -> None:
        with self.lock:
            self.rv += 1
            meta = obj["metadata"]
            key = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
            self.store[path][key] = obj

    def drop(self, path: str, name: str, ns: str = "") -> None:
        with self.lock:
            self.rv += 1
            self.store[path].pop(f"{ns}/{name}" if ns else name, None)

    def seen(self, method: str, suffix: str) -> list[tuple[str, str, dict[str, list[str]], Any]]:
        with self.lock:
            return [r for r in self.requests if r[0] == method and r[1].endswith(suffix)]


def client_for(api: FakeApi) -> Any:
    """A ``kubernetes.client.ApiClient`` talking to *api*."""
    from kubernetes import client as kclient

    cfg = kclient.Configuration()
    cfg.host = api.url
    return kclient.ApiClient(configuration=cfg)


def wait_for(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "the condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
