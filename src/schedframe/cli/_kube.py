"""What ``schedframe run`` and ``schedframe import`` share: the cluster options and the API client
(the ``kube`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import os
from typing import Any, Final

from .._textio import parse_yaml, read_text, shown_path
from ..errors import SchedframeError

__all__ = ["MAX_KUBECONFIG_BYTES", "KubeSetupError", "api_client", "cluster_options"]

#: The largest kubeconfig file read.
MAX_KUBECONFIG_BYTES: Final = 16 * 1024 * 1024


class KubeSetupError(SchedframeError, RuntimeError):
    """The kube extra is missing or the cluster's configuration cannot be loaded."""


def cluster_options(p: argparse.ArgumentParser) -> None:
    """--kubeconfig and --context, as :func:`api_client` reads them."""
    p.add_argument("--kubeconfig", metavar="FILE",
                   help="kubeconfig file (default: in-cluster configuration, else $KUBECONFIG or "
                   "~/.kube/config)")
    p.add_argument("--context", metavar="NAME", help="kubeconfig context (default: the current one)")


def api_client(kubeconfig: str | None, context: str | None) -> Any:
    """A ``kubernetes.client.ApiClient``: *kubeconfig* (and *context*) when given, else the
    in-cluster configuration when running in a pod, else ``$KUBECONFIG`` / ``~/.kube/config``."""
    if kubeconfig is not None and os.path.exists(kubeconfig):  # unreadable or not YAML: one line
        parse_yaml(read_text(kubeconfig, max_bytes=MAX_KUBECONFIG_BYTES, what="the kubeconfig",
                             error=KubeSetupError),
                   source=shown_path(kubeconfig), error=KubeSetupError)
    if importlib.util.find_spec("kubernetes") is None:
        raise KubeSetupError('this command needs the kubernetes client: pip install "schedframe[kube]"')
    from kubernetes import client, config

    try:
        if kubeconfig is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
            config.load_incluster_config()  # type: ignore[no-untyped-call,unused-ignore]
            return client.ApiClient()
        if kubeconfig is not None and not os.path.isfile(kubeconfig):
            raise KubeSetupError(f"--kubeconfig {kubeconfig}: no such file")
        return config.new_client_from_config(  # type: ignore[no-untyped-call,unused-ignore]
            config_file=kubeconfig, context=context)
    except config.ConfigException as exc:
        where = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
        raise KubeSetupError(f"cannot load the cluster configuration from {where}: {exc}") from None


