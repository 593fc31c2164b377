"""The inputs of the simulating commands (``simulate``, ``explain``, ``plan``, ``run``), read from
their flags one way: the release (``--kubernetes-version``/``--feature-gates``), the
configuration(s) (``--config``), node load metrics (``--load-metrics``) and manifest files given
beside the cluster dump (``explain``'s ``POD.yaml``, ``plan``'s ``--pending``).

Each reader turns what cannot be read into one :class:`~schedframe.cli._common.CliInputError`
naming the file and its flag; a strict field-validation failure is raised as it is (every
problem, see :func:`~schedframe.cli._common.run_command`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import FieldValidationError, ManifestError
from ._common import CliInputError, load_config, manifest_input_error, release_option, validate_options

if TYPE_CHECKING:
    from ..config.configuration import SchedulerConfiguration
    from ..framework.releases import ReleaseProfile
    from ..plugins.sigs import StaticMetricsProvider

__all__ = ["Inputs", "add_config_option", "add_load_metrics_option", "read_inputs", "read_manifest_file"]


def add_config_option(p: argparse.ArgumentParser, *, many: bool = False,
                      help: str = "a KubeSchedulerConfiguration file (YAML or JSON)") -> None:
    """``--config FILE`` (with *many*, repeatable: a list in the order given), as
    :func:`read_inputs` reads it."""
    if many:
        p.add_argument("--config", action="append", default=[], metavar="FILE", help=help)
    else:
        p.add_argument("--config", metavar="FILE", help=help)


def add_load_metrics_option(p: argparse.ArgumentParser) -> None:
    """``--load-metrics FILE``, as :func:`read_inputs` reads it."""
    p.add_argument("--load-metrics", metavar="FILE",
                   help="node metrics given with the cluster (load-watcher's WatcherMetrics JSON or "
                   "YAML): the load-aware plugins (Trimaran, Peaks) read them instead of simulated ones")


@attrs.frozen
class Inputs:
    """What a simulating command reads besides its cluster.

    Attributes:
        release: the release to emulate (newest unless the flags say otherwise).
        configs: ``(name, configuration)`` per ``--config`` file, in the order given (the name is
            the file's stem); empty for none.
        config: the one configuration of a command that takes one: the first of *configs*, or,
            with release flags and no file, upstream's default for that release; ``None`` for
            upstream's default.
        load_metrics: the ``--load-metrics`` file read, or ``None``.
    """

    release: ReleaseProfile
    configs: tuple[tuple[str, SchedulerConfiguration], ...]
    config: SchedulerConfiguration | None
    load_metrics: StaticMetricsProvider | None


def read_inputs(args: argparse.Namespace) -> Inputs:
    """The release, configurations and load metrics *args* name (see :class:`Inputs`); the flags
    a command lacks count as not given."""
    release = release_option(args)
    given = getattr(args, "config", None)
    files = [given] if isinstance(given, str) else list(given or ())
    configs = tuple((os.path.splitext(os.path.basename(f))[0], load_config(f, release)) for f in files)
    config = configs[0][1] if configs else None
    if config is None and (getattr(args, "kubernetes_version", None) or getattr(args, "feature_gates", None)):
        from ..config.configuration import SchedulerConfiguration

        config = SchedulerConfiguration.default(kubernetes_version=release)
    metrics = None
    if getattr(args, "load_metrics", None):  # node metrics given with the cluster dump
        from ..plugins.sigs import LoadMetricsError, load_metrics_file

        try:
            metrics = load_metrics_file(args.load_metrics)
        except LoadMetricsError as exc:
            raise CliInputError(f"{exc} (--load-metrics)") from None
    return Inputs(release, configs, config, metrics)


def read_manifest_file(path: str, args: argparse.Namespace) -> list[Any]:
    """The objects of the manifest file *path*, read with *args*' ``--validate`` and release."""
    from ..api.manifests import load_manifests

    try:
        return load_manifests(Path(path), **validate_options(args))
    except FieldValidationError:
        raise
    except ManifestError as exc:
        raise manifest_input_error(path, exc) from None
