"""Reserve / Unreserve extension point."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._api import Pod
from ._cycle_state import CycleState
from ._plugin import Plugin
from ._status import Status

__all__ = ["ReservePlugin"]


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Claims resources for the pod on the chosen node, before Permit and binding.

    ``reserve`` failing stops the cycle; then ``unreserve`` of *every* reserve plugin runs, in
    reverse order. ``unreserve`` also runs when a later phase (Permit, PreBind, Bind) fails.
    ``unreserve`` must be idempotent and must not fail.
    """

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...
