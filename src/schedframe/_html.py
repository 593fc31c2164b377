"""Small HTML tables for notebooks (``_repr_html_``): every value escaped, every table bounded.

Below every layer, beside :mod:`schedframe._jsonout`; imports nothing of schedframe.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = ["MAX_CELL_CHARS", "MAX_ROWS", "cell", "paragraph", "table"]

#: Rows a table shows before saying how many more there are.
MAX_ROWS: Final = 20
#: Characters a cell shows before cutting its text (with ``...``).
MAX_CELL_CHARS: Final = 200


def cell(value: Any) -> str:
    """*value* as escaped cell text: ``None`` is empty, long text is cut."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else (f"{value:g}" if isinstance(value, float) else str(value))
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 3] + "..."
    return html.escape(text)


def paragraph(text: str, *, bold: bool = False) -> str:
    """One escaped paragraph."""
    body = cell(text) if len(text) <= MAX_CELL_CHARS else html.escape(text[:2000])
    return f"<p><b>{body}</b></p>" if bold else f"<p>{body}</p>"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], *, total: int | None = None,
          max_rows: int = MAX_ROWS) -> str:
    """An HTML table of at most *max_rows* rows of *rows* (*total*: how many there are in all,
    when *rows* is a part), and a line saying how many were left out."""
    out = ["<table>", "<thead><tr>", *(f"<th>{cell(h)}</th>" for h in header), "</tr></thead><tbody>"]
    shown = 0
    for row in rows:
        if shown == max_rows:
            break
        out.append("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>")
        shown += 1
    out.append("</tbody></table>")
    if total is not None and total > shown:
        out.append(f"<p>... {total - shown:,} more row(s) not shown</p>")
    return "".join(out)
