"""Leader election on a ``coordination.k8s.io/v1`` Lease, as client-go's ``leaderelection`` with
a ``LeaseLock`` does it for kube-scheduler: acquire when the lease is free or its holder has not
renewed it for ``leaseDurationSeconds`` (measured on the local clock, from when the record was
last seen to change), renew every ``retryPeriod``, give up leadership when a renewal has not
succeeded for ``renewDeadline``, and release the lease on a clean stop."""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, final

from ._api import ApiSession, KubeApiError

__all__ = ["LeaderElector", "micro_time"]

logger = logging.getLogger("schedframe.kube")

#: kube-scheduler's defaults (component-base LeaderElectionConfiguration)
LEASE_DURATION: Final = 15.0
RENEW_DEADLINE: Final = 10.0
RETRY_PERIOD: Final = 2.0


def micro_time(t: float | None = None) -> str:
    """A ``metav1.MicroTime`` string (RFC 3339 with microseconds, UTC)."""
    when = dt.datetime.fromtimestamp(time.time() if t is None else t, tz=dt.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@final
class LeaderElector:
    """Holds (or waits for) one Lease. ``is_leader`` tells whether this process may schedule;
    *on_change(bool)* is called when that changes."""

    def __init__(self, session: ApiSession, namespace: str, name: str, identity: str, *,
                 lease_duration: float = LEASE_DURATION, renew_deadline: float = RENEW_DEADLINE,
                 retry_period: float = RETRY_PERIOD,
                 on_change: Callable[[bool], None] | None = None) -> None:
        self.session = session
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.on_change = on_change
        self._leader = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._observed: tuple[str, str] | None = None  # (holder, renewTime) last seen
        self._observed_at = 0.0  # monotonic time it was first seen
        self._last_renew = 0.0
        self.transitions = 0

    @property
    def path(self) -> str:
        """The Lease's path."""
        return f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases/{self.name}"

    @property
    def is_leader(self) -> bool:
        """This process holds the lease."""
        return self._leader.is_set()

    def wait_for_leadership(self, timeout: float | None = None) -> bool:
        """Block until this process leads (or *timeout*)."""
        return self._leader.wait(timeout)

    def start(self) -> None:
        """Start trying to acquire, then renewing, in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="schedframe-leader-election", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop, and release the lease if held (``ReleaseOnCancel``)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.is_leader:
            try:
                self._release()
            except KubeApiError as exc:
                logger.warning("releasing the lease %s/%s failed: %s", self.namespace, self.name, exc)
            self._set_leader(False)

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            ok = False
            try:
                ok = self._try_acquire_or_renew()
            except KubeApiError as exc:
                logger.warning("lease %s/%s: %s", self.namespace, self.name, exc)
            now = time.monotonic()
            if ok:
                self._last_renew = now
                self._set_leader(True)
            elif self.is_leader and now - self._last_renew > self.renew_deadline:
                logger.error("lease %s/%s: not renewed for %.0f s, leadership lost",
                             self.namespace, self.name, self.renew_deadline)
                self._set_leader(False)
            if self._stop.wait(self.retry_period):
                return

    def _set_leader(self, leader: bool) -> None:
        if leader == self.is_leader:
            return
        if leader:
            self._leader.set()
            logger.info("lease %s/%s: acquired by %s", self.namespace, self.name, self.identity)
        else:
            self._leader.clear()
        if self.on_change is not None:
            try:
                self.on_change(leader)
            except Exception:
                logger.exception("leader-election callback failed")

    def _spec(self, transitions: int, acquire_time: str | None) -> dict[str, Any]:
        now = micro_time()
        return {"holderIdentity": self.identity, "leaseDurationSeconds": int(self.lease_duration),
                "acquireTime": acquire_time or now, "renewTime": now, "leaseTransitions": transitions}

    def _try_acquire_or_renew(self) -> bool:
        try:
            lease = self.session.request("GET", self.path, timeout=self.renew_deadline)
        except KubeApiError as exc:
            if exc.status != 404:
                raise
            body: dict[str, Any] = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": self.name, "namespace": self.namespace},
                    "spec": self._spec(0, None)}
            try:
                self.session.request("POST", self.path.rsplit("/", 1)[0], body=body,
                                     timeout=self.renew_deadline)
            except KubeApiError as err:
                if err.status == 409:  # someone else created it first
                    return False
                raise
            self._observed = (self.identity, body["spec"]["renewTime"])
            self._observed_at = time.monotonic()
            return True
        spec: Mapping[str, Any] = (lease or {}).get("spec") or {}
        holder = str(spec.get("holderIdentity") or "")
        record = (holder, str(spec.get("renewTime") or ""))
        now = time.monotonic()
        if record != self._observed:
            self._observed = record
            self._observed_at = now
        duration = float(spec.get("leaseDurationSeconds") or self.lease_duration)
        if holder and holder != self.identity and now - self._observed_at < duration:
            return False  # held by someone else, not expired
        transitions = int(spec.get("leaseTransitions") or 0)
        ours = holder == self.identity
        if not ours:
            transitions += 1
        new = dict(lease)
        new["spec"] = self._spec(transitions, str(spec.get("acquireTime")) if ours and spec.get("acquireTime")
                                 else None)
        try:
            self.session.request("PUT", self.path, body=new, timeout=self.renew_deadline)
        except KubeApiError as exc:
            if exc.status == 409:  # changed since we read it: try again next period
                return False
            raise
        self._observed = (self.identity, new["spec"]["renewTime"])
        self._observed_at = time.monotonic()
        if not ours:
            self.transitions += 1
        return True

    def _release(self) -> None:
        lease = self.session.request("GET", self.path, timeout=self.renew_deadline)
        spec = (lease or {}).get("spec") or {}
        if spec.get("holderIdentity") != self.identity:
            return
        new = dict(lease)
        now = micro_time()
        new["spec"] = {"leaseDurationSeconds": 1, "acquireTime": now, "renewTime": now,
                       "leaseTransitions": int(spec.get("leaseTransitions") or 0)}
        self.session.request("PUT", self.path, body=new, timeout=self.renew_deadline)
