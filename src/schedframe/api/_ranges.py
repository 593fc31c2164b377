"""Range checks shared by the value objects and their manifest readers: one check, so a value
built in Python and one read from a file get the same error (imports only ``errors``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..errors import ManifestError, bounded_repr

__all__ = ["MAX_INT32", "check_int32", "int32_validator"]

#: The largest int32: upstream's PodGroup ``minMember`` and ``scheduleTimeoutSeconds`` are int32.
MAX_INT32: Final = 2**31 - 1


def check_int32(value: Any, path: str, unit: str = "") -> None:
    """*value* is None or an integer in 0..:data:`MAX_INT32` (an int32 field of the API), or a
    :class:`~schedframe.ManifestError` at *path*: the one check of a PodGroup's numbers, read
    from a manifest (``spec.minMember``) or built in Python (``min_member``)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestError(path, f"expected an integer, got {bounded_repr(value)}")
    if 0 <= value <= MAX_INT32:
        return
    shown = f"an integer of {value.bit_length()} bits" if value.bit_length() > 128 else str(value)
    if value < 0:
        raise ManifestError(path, f"must be greater than or equal to 0, got {shown}")
    raise ManifestError(path, f"must be at most {MAX_INT32}{unit} (an int32), got {shown}")


def int32_validator(unit: str = "") -> Callable[[Any, Any, Any], None]:
    """An attrs validator running :func:`check_int32` at the attribute's name."""

    def check(_: Any, attribute: Any, value: Any) -> None:
        check_int32(value, attribute.name, unit)
    return check
