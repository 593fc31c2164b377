"""DefaultBinder: binds the pod to the node through the handle's client.

Upstream: ``pkg/scheduler/framework/plugins/defaultbinder/default_binder.go``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast, final

from ..framework.status import Status
from . import names
from ._helpers import no_args_factory

if TYPE_CHECKING:
    from ..api.objects import Pod
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import BindPlugin

__all__ = ["ARGS_TYPE", "NAME", "DefaultBinder", "new"]

NAME: Final = names.DEFAULT_BINDER
ARGS_TYPE: Final = None


@final
class DefaultBinder:
    """Bind plugin: asks ``handle.client`` to bind the pod (the API server's ``pods/binding``).

    An exception raised by the client becomes an ``ERROR`` status, which makes the scheduler
    unreserve the pod and retry it with backoff.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_handle",)

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    @property
    def name(self) -> str:
        """``"DefaultBinder"``."""
        return NAME

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Bind *pod* to *node_name*."""
        try:
            self._handle.client.bind(pod, node_name)
        except Exception as exc:
            return Status.from_error(exc)
        return None


#: The plugin's factory (it takes no args).
new = no_args_factory(DefaultBinder)


if TYPE_CHECKING:
    _bind: BindPlugin = DefaultBinder(cast("Handle", None))
