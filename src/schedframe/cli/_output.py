"""Human output: rich tables and progress bars when rich is installed (the ``cli`` extra), plain
text otherwise. rich is imported lazily, on first use.

Width: a terminal's own width (rich reads it, and ``COLUMNS`` when set); when the output is not
a terminal (a pipe, a file), ``COLUMNS`` when it is a positive number, else
:data:`DEFAULT_WIDTH`.

Tables (:meth:`Out.table`) take the first layout that fits the width without cutting anything:

1. a table: the first column (a row's key), numbers and names (cells without a space) never
   wrap, text wraps at spaces (a word longer than its column is folded, never cut), headers
   wrap at their spaces and after ``_``, ``.`` and ``/``;
2. with few rows (at most :data:`TRANSPOSE_ROWS`), the same table turned over: one column per
   row, one row per header;
3. stacked: each row as ``HEADER: value`` items, the first on a line of its own and the others
   flowing under it (rich's ``Columns``).

An empty cell shows as ``-``. Nothing is ever ellipsised.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any, Final, Literal

__all__ = ["DEFAULT_WIDTH", "EMPTY", "TRANSPOSE_ROWS", "Out", "have_rich", "output_width", "rich_table"]

#: The width of output that is not a terminal when ``COLUMNS`` is unset (or not a number).
DEFAULT_WIDTH: Final = 80
#: A table with at most this many rows that does not fit is shown turned over before stacking.
TRANSPOSE_ROWS: Final = 4
#: What an empty cell shows.
EMPTY: Final = "-"


def have_rich() -> bool:
    """Whether rich is importable."""
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


def output_width(stream: IO[str], environ: Any = None) -> int | None:
    """The width to render for on *stream*: ``None`` (the terminal's) on a terminal; else
    ``COLUMNS`` when it is a positive whole number, else :data:`DEFAULT_WIDTH`."""
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or file-like stream: not a terminal
        pass
    text = (os.environ if environ is None else environ).get("COLUMNS", "").strip()
    if text.isdigit() and int(text) > 0:
        return int(text)
    return DEFAULT_WIDTH


def _console_class() -> Any:
    from rich.console import Console

    class _Console(Console):
        """rich's console, except that a broken pipe is raised (``run_command`` turns it into
        exit 141) instead of rich's ``SystemExit(1)``."""

        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(32, "Broken pipe")

    return _Console


class Out:
    """Where a command writes: tables, lines, a progress bar."""

    def __init__(self, stream: IO[str] | None = None, *, plain: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.rich = not plain and have_rich()
        self._console: Any = None
        self._hinted = plain  # the hint is for a missing rich, not for --plain asked for

    @property
    def console(self) -> Any:
        if self._console is None:
            self._console = _console_class()(
                file=self.stream,
                highlight=False,
                soft_wrap=False,
                width=output_width(self.stream),
            )
        return self._console

    def line(self, text: str = "", style: str | None = None) -> None:
        """One line of text."""
        if self.rich:
            self.console.print(text, style=style, markup=False)
        else:
            print(text, file=self.stream)

    def table(
        self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, right: Sequence[int] = ()
    ) -> None:
        """A table; numbers are right-aligned in columns listed in *right*. With rich, the first
        layout of the module docstring that fits the console's width."""
        if self.rich:
            cells = [[str(x) if str(x) else EMPTY for x in r] for r in rows]
            self.console.print(rich_table(self.console, title, list(columns), cells, right=right))
            return
        if not self._hinted:
            self._hinted = True
            print(  # a notice, not output: stdout stays the tables alone
                "(plain output; pip install 'schedframe[cli]' for tables and progress bars)", file=sys.stderr
            )
        if title:
            print(title, file=self.stream)
        print("\t".join(columns), file=self.stream)
        for r in rows:
            print("\t".join(str(x) for x in r), file=self.stream)
        print(file=self.stream)

    @contextlib.contextmanager
    def progress(self, description: str, enabled: bool = True) -> Iterator[Any]:
        """A progress bar over simulated time; yields ``update(now, horizon, placed, pending)``."""
        if not (enabled and self.rich and self.stream.isatty()):
            yield None
            return
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        ) as bar:
            task = bar.add_task(description, total=1.0, status="")

            def update(now: float, horizon: float, placed: int, pending: int) -> None:
                bar.update(
                    task,
                    completed=min(now / horizon, 1.0) if horizon > 0 else 1.0,
                    status=f"t={now:,.0f}s placed {placed:,} pending {pending:,}",
                )

            yield update


def rich_table(
    console: Any, title: str, columns: list[str], rows: list[list[str]], *, right: Sequence[int] = ()
) -> Any:
    """The rich renderable of a table for *console*: the first layout of the module docstring
    that fits its width."""
    from rich.console import Group
    from rich.text import Text

    def titled(table: Any) -> Any:  # the title as wide as the console, not as the table
        return Group(Text(title, style="italic"), table) if title else table

    table = _grid_table(columns, rows, right=set(right), break_headers=True)
    if _fits(console, table):
        return titled(table)
    if 0 < len(rows) <= TRANSPOSE_ROWS:
        turned = _grid_table(
            [columns[0], *(r[0] for r in rows)],
            [[h, *(r[i] for r in rows)] for i, h in enumerate(columns) if i],
            right=set(range(1, len(rows) + 1)) if set(right) >= set(range(1, len(columns))) else set(),
        )
        if _fits(console, turned):
            return titled(turned)
    return _stacked(title, columns, rows)


def _fits(console: Any, renderable: Any) -> bool:
    from rich.measure import Measurement

    unbounded = console.options.update_width(1 << 20)  # measured as is, not capped at the width
    return bool(Measurement.get(console, unbounded, renderable).minimum <= console.width)


#: Where a header breaks: after ``_``, ``.``, ``/`` (``utilisation_`` / ``mean.cpu``); spaces are
#: rich's own breaks.
_HEADER_PIECE: Final = re.compile(r"[^_./]*[_./]+|[^_./]+")


def _header_lines(header: str, width: int) -> str:
    """*header* broken into lines of at most *width* at spaces and after ``_``, ``.``, ``/``
    (a piece longer than *width* stays whole)."""
    lines: list[str] = []
    for w, word in enumerate(header.split() or [header]):
        for p, piece in enumerate(_HEADER_PIECE.findall(word)):
            sep = " " if w and not p else ""
            if lines and len(lines[-1]) + len(sep) + len(piece) <= width:
                lines[-1] += sep + piece
            else:
                lines.append(piece)
    return "\n".join(lines)


def _grid_table(
    columns: Sequence[str], rows: Sequence[Sequence[str]], *, right: set[int], break_headers: bool = False
) -> Any:
    """A rich table: the first column (a row's key) and a column whose cells have no space
    (numbers, names) are as wide as their widest cell and never wrap (their headers wrap at
    spaces and, with *break_headers*, after ``_``, ``.`` and ``/``); other columns wrap at
    spaces and fold a word longer than the column."""
    from rich.table import Table
    from rich.text import Text

    t = Table(header_style="bold")
    for i, header in enumerate(columns):
        values = [r[i] for r in rows if i < len(r)]
        justify: Literal["left", "right"] = "right" if i in right else "left"
        if i and any(" " in v for v in values):  # the first column, a row's key, never wraps
            t.add_column(Text(header, overflow="fold"), justify=justify, overflow="fold")
            continue
        pieces = [q for word in header.split() for q in (_HEADER_PIECE.findall(word) if break_headers
                                                          else [word])] or [header]
        width = max([len(v) for v in values] + [len(q) for q in pieces])
        shown = _header_lines(header, width) if break_headers else header
        t.add_column(Text(shown, overflow="fold", no_wrap=False), justify=justify, width=width,
                     no_wrap=True)
    for r in rows:
        t.add_row(*(Text(c) for c in r))
    return t


def _stacked(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Any:
    """Each row as ``HEADER: value`` items: the first alone on a line, the others flowing under
    it, indented."""
    from rich.columns import Columns
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    parts: list[Any] = [Text(title, style="italic")] if title else []
    for r in rows:
        parts.append(Text.assemble((f"{columns[0]}: ", "bold"), (r[0], "bold"), overflow="fold"))
        items = [Text.assemble((f"{h}: ", "bold"), v, overflow="fold") for h, v in zip(columns[1:], r[1:])]
        if items:
            parts.append(Padding(Columns(items, padding=(0, 3)), (0, 0, 0, 2)))
    return Group(*parts)
