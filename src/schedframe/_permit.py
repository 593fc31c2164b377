"""Permit extension point and waiting pods."""

from __future__ import annotations

from typing import Final, Protocol, runtime_checkable

from ._api import Pod
from ._cycle_state import CycleState
from ._plugin import Plugin
from ._status import Status

__all__ = ["MAX_PERMIT_TIMEOUT", "PermitPlugin", "WaitingPod"]

#: Permit timeouts are capped at 15 minutes, as upstream.
MAX_PERMIT_TIMEOUT: Final = 15 * 60.0


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Last gate before binding: returns ``(status, timeout_seconds)``.

    Success lets the pod bind; ``WAIT`` holds it (up to *timeout*, capped at 15 minutes) until
    some plugin calls ``WaitingPod.allow()`` for every waiting plugin or ``WaitingPod.reject()``;
    a rejection or a timeout unreserves the pod. The timeout is ignored unless the status is WAIT.
    """

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]: ...


@runtime_checkable
class WaitingPod(Protocol):
    """A pod held at Permit; plugins reach it through ``Handle.get_waiting_pod``."""

    @property
    def pod(self) -> Pod: ...

    @property
    def node_name(self) -> str: ...

    def pending_plugins(self) -> list[str]: ...

    def allow(self, plugin_name: str) -> None: ...

    def reject(self, plugin_name: str, message: str) -> None: ...
