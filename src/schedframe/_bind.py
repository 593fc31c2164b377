"""PreBind, Bind and PostBind extension points."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._api import Pod
from ._cycle_state import CycleState
from ._plugin import Plugin
from ._status import Status

__all__ = ["BindPlugin", "PostBindPlugin", "PreBindPlugin"]


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Runs before binding (e.g. provisioning a volume). A failure unreserves the pod and sends
    it back to the queue."""

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Binds the pod to the node. Return ``SKIP`` to let the next bind plugin do it; the first
    plugin not returning SKIP decides. A profile needs at least one bind plugin."""

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational, after a successful bind (cleanup). Cannot fail."""

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...
