"""``schedframe.cli``: the ``schedframe`` command (``python -m schedframe`` is the same).

What lives here: the argparse command line (``main``: simulate, explain, plugins, config, bench,
and gpushare when that layer provides it), human output with rich (``_output``, the ``cli``
extra) and plots with matplotlib (``_plot``, the ``plot`` extra), both imported lazily.

It may import every layer below it (``bench``, ``gpushare``, ``sim``, ``testing``, ``scheduler`` and
down); nothing imports it. Commands stay thin: the work is a library call in a lower layer.
"""

from __future__ import annotations

from .main import EXIT_INPUT, EXIT_OK, EXIT_PENDING, build_parser, main

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_PENDING", "build_parser", "main"]
