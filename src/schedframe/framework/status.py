"""``Code`` and ``Status``: the outcome of every plugin call.

Scheduling outcomes are values, not exceptions. Plugins return a :class:`~schedframe.Status` -- or ``None``,
which means success exactly like a ``nil`` status in kube-scheduler, and costs no allocation.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import ClassVar, Final, final

import attrs

__all__ = ["Code", "Status", "is_success"]


@final
class Code(enum.IntEnum):
    """Status codes, with kube-scheduler's values and meanings.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    SUCCESS = 0
    """The plugin ran and the pod may go on (``nil`` status upstream)."""
    ERROR = 1
    """An internal error: the pod is requeued with error backoff."""
    UNSCHEDULABLE = 2
    """The pod does not fit here now; preemption may help."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    """The pod does not fit here and preemption would not change that."""
    WAIT = 4
    """Permit only: the pod waits until allowed, rejected or timed out."""
    SKIP = 5
    """PreFilter/PreScore: skip this plugin's Filter/Score for the pod. Bind: let the next
    bind plugin decide. PreBind (pre-flight): nothing to do."""
    PENDING = 6
    """The pod waits for something outside scheduling (PreEnqueue gating, an external event)."""

    def __str__(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES: Final = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


def _reasons(value: Iterable[str] | str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@final
@attrs.frozen(repr=False)
class Status:
    """The result of running a plugin.

    Args:
        code: the :class:`~schedframe.Code`.
        reasons: human-readable reasons (``"node(s) didn't match Pod's node affinity/selector"``).
        plugin: the plugin that produced the status; the framework fills it in.
        error: the exception behind an ``ERROR`` status, if any.

    ``Status()`` is success; ``Status.OK`` is a shared success instance.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    OK: ClassVar[Status]

    code: Code = Code.SUCCESS
    _reasons: tuple[str, ...] = attrs.field(default=(), converter=_reasons, alias="reasons")
    plugin: str = ""
    error: BaseException | None = attrs.field(default=None, eq=False)

    @property
    def reasons(self) -> list[str]:
        """The reasons, as a list."""
        return list(self._reasons)

    @property
    def message(self) -> str:
        """The reasons joined with ``", "`` (upstream ``Status.Message()``)."""
        return ", ".join(self._reasons)

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        """An ``UNSCHEDULABLE`` status."""
        return cls(Code.UNSCHEDULABLE, reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        """An ``UNSCHEDULABLE_AND_UNRESOLVABLE`` status."""
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)

    @classmethod
    def from_error(cls, error: BaseException, *, plugin: str = "") -> Status:
        """An ``ERROR`` status wrapping *error* (upstream ``AsStatus``)."""
        return cls(Code.ERROR, (str(error) or type(error).__name__,), plugin, error)

    @classmethod
    def skip(cls) -> Status:
        """The shared ``SKIP`` status."""
        return _SKIP

    @classmethod
    def wait(cls, *reasons: str) -> Status:
        """A ``WAIT`` status (Permit)."""
        return cls(Code.WAIT, reasons)

    # -- predicates -----------------------------------------------------------------------
    def is_success(self) -> bool:
        """True for ``SUCCESS``."""
        return self.code is Code.SUCCESS

    def is_skip(self) -> bool:
        """True for ``SKIP``."""
        return self.code is Code.SKIP

    def is_wait(self) -> bool:
        """True for ``WAIT``."""
        return self.code is Code.WAIT

    def is_rejected(self) -> bool:
        """True for ``UNSCHEDULABLE``, ``UNSCHEDULABLE_AND_UNRESOLVABLE`` and ``PENDING``."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def with_plugin(self, plugin: str) -> Status:
        """This status attributed to *plugin*."""
        if self.plugin == plugin:
            return self
        return Status(self.code, self._reasons, plugin, self.error)

    def with_code(self, code: Code) -> Status:
        """This status with another code."""
        return Status(code, self._reasons, self.plugin, self.error)

    def __repr__(self) -> str:
        parts = [f"Code.{self.code.name}"]
        if self._reasons:
            parts.append(f"reasons={list(self._reasons)!r}")
        if self.plugin:
            parts.append(f"plugin={self.plugin!r}")
        if self.error is not None:
            parts.append(f"error={self.error!r}")
        return f"Status({', '.join(parts)})"


Status.OK = Status()
_SKIP: Final = Status(Code.SKIP)


def is_success(status: Status | None) -> bool:
    """True for ``None`` (a plugin's shorthand for success) and ``SUCCESS`` statuses."""
    return status is None or status.code is Code.SUCCESS
