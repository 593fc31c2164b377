"""The one writer of JSON: every JSON text schedframe writes (``--json`` outputs, the simulator's
event log, benchmark records) is strict JSON that any JSON reader accepts.

Python's :mod:`json` writes a NaN or an infinity as ``NaN``/``Infinity``, which is not JSON:
:func:`dumps` refuses them with :class:`NonFiniteJSONError` naming where the value is, and
:func:`finite_or_null` turns them into ``null`` where a missing measurement is what they mean.
This module sits beside :mod:`schedframe.errors`, below every layer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from .errors import NonFiniteJSONError

__all__ = ["NonFiniteJSONError", "dumps", "finite_or_null", "non_finite"]


def non_finite(data: Any, path: str = "") -> tuple[str, float] | None:
    """The path (``a.b[2]``) and value of the first NaN or infinity in *data*, or None."""
    if isinstance(data, float):
        return None if math.isfinite(data) else (path, data)
    if isinstance(data, Mapping):
        for k, v in data.items():
            found = non_finite(v, f"{path}.{k}" if path else str(k))
            if found is not None:
                return found
    elif isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            found = non_finite(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def dumps(data: Any, *, indent: int | None = None, separators: tuple[str, str] | None = None,
          default: Any = None, sort_keys: bool = False) -> str:
    """*data* as strict JSON text; a NaN or an infinity is a :class:`NonFiniteJSONError`."""
    try:
        return json.dumps(data, indent=indent, separators=separators, default=default,
                          sort_keys=sort_keys, allow_nan=False)
    except ValueError:
        where = non_finite(data)
        if where is None:
            raise
        raise NonFiniteJSONError(*where) from None


def finite_or_null(data: Any) -> Any:
    """*data* with every NaN or infinity replaced by None (``null``), containers copied."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, Mapping):
        return {k: finite_or_null(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite_or_null(v) for v in data]
    return data
