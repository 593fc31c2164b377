"""``/healthz``, ``/readyz`` and ``/metrics`` (Prometheus text format) on a small HTTP server."""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Callable
from typing import Any, final

__all__ = ["HealthServer"]

logger = logging.getLogger("schedframe.kube")


@final
class HealthServer:
    """Serves *ready()* at ``/readyz``, liveness at ``/healthz`` and *metrics()* (text) at
    ``/metrics`` from a daemon thread."""

    def __init__(self, host: str, port: int, *, healthy: Callable[[], bool], ready: Callable[[], bool],
                 metrics: Callable[[], str]) -> None:
        checks = {"/healthz": healthy, "/livez": healthy, "/readyz": ready}

        class Handler(http.server.BaseHTTPRequestHandler):
            server_version = "schedframe"

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path in checks:
                    ok = checks[path]()
                    self._send(200 if ok else 503, "ok\n" if ok else "not ready\n", "text/plain")
                elif path == "/metrics":
                    self._send(200, metrics(), "text/plain; version=0.0.4")
                else:
                    self._send(404, "not found\n", "text/plain")

            def _send(self, code: int, text: str, ctype: str) -> None:
                body = text.encode()
                self.send_response(code)
                self.send_header("Content-Type", f"{ctype}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                logger.debug("health: " + format, *args)

        self._server = http.server.ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="schedframe-health",
                                        daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        """The (host, port) it listens on."""
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        """Start serving."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
