"""Sphinx configuration for schedframe's documentation."""

from __future__ import annotations

import importlib.metadata

project = "schedframe"
author = "schedframe maintainers"
copyright = "2026, schedframe maintainers"
release = importlib.metadata.version("schedframe")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
nitpicky = False
exclude_patterns = ["_build", "examples/**/README.md"]
html_theme = "alabaster"
html_static_path: list[str] = []
# Type annotations name stdlib generics, private helpers and TypeVars that have no page here.
nitpick_ignore_regex = [
    (r"py:.*", r"(collections\.abc|typing|typing_extensions|enum|fractions|os|pluggy|attrs|threading)\..*"),
    (r"py:class", r"(Fraction|FrozenDict)"),
    (r"py:.*", r"(.*\.)?_\w+(\..*)?"),
    (r"py:(class|obj)", r"(.*\.)?[TKV]"),
    (r"py:class", r"(.*\.)?(ProfileLike|PluginRefLike|QueueingHintFn|Self|Diagnosis)"),
    (r"py:class", r"random\.Random"),
]
