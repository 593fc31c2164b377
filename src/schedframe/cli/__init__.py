"""``schedframe.cli``: the ``schedframe`` command (``python -m schedframe`` is the same).

One module per command (``simulate``, ``replay``, ``explain``, ``plugins``, ``sweep``, ``config``,
``bench``, ``gpushare``, ``run``, ``import_``), each with ``add_parser(subparsers)`` and
``run(args)`` (:class:`schedframe.cli._common.Command`), listed once in
:data:`schedframe.cli.main.COMMANDS`; ``main`` assembles the parser and dispatches; ``_common``
holds the exit codes, the input helpers and the error handling every command shares. Human
output uses rich (``_output``, the ``cli`` extra) and plots matplotlib (``_plot``, the ``plot``
extra), both imported lazily.

It may import every layer below it (``bench``, ``gpushare``, ``sim``, ``testing``, ``scheduler`` and
down); nothing imports it. Commands stay thin: the work is a library call in a lower layer.
"""

from __future__ import annotations

from ._common import EXIT_INPUT, EXIT_OK, EXIT_PENDING
from .main import build_parser, main

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_PENDING", "build_parser", "main"]
