"""schedframe-eggplant: an example plugin distribution for schedframe.

Installing the distribution makes its entry point (group ``schedframe``, see ``pyproject.toml``)
visible; :func:`schedframe.load_plugins` then imports this module and calls the hook below.
"""

from __future__ import annotations

import schedframe

from .node_label import ERR_REASON, NAME, NodeLabel, NodeLabelArgs, new

__all__ = ["ERR_REASON", "NAME", "NodeLabel", "NodeLabelArgs", "new", "schedframe_register_plugins"]


@schedframe.hookimpl
def schedframe_register_plugins(registry: schedframe.Registry) -> None:
    """Add this distribution's plugins to the host's registry."""
    registry.register(NAME, new, args_type=NodeLabelArgs)
