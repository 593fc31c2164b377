"""Human output: rich tables and progress bars when rich is installed (the ``cli`` extra), plain
text otherwise. rich is imported lazily, on first use."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any

__all__ = ["Out", "have_rich"]


def have_rich() -> bool:
    """Whether rich is importable."""
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


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
            from rich.console import Console

            self._console = Console(
                file=self.stream,
                highlight=False,
                soft_wrap=False,
                width=None if self.stream.isatty() else 200,
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
        """A table; numbers are right-aligned in columns listed in *right*."""
        if self.rich:
            from rich.table import Table

            t = Table(title=title, title_justify="left", header_style="bold")
            for i, c in enumerate(columns):
                t.add_column(c, justify="right" if i in right else "left", no_wrap=True)
            for r in rows:
                t.add_row(*(str(x) for x in r))
            self.console.print(t)
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
