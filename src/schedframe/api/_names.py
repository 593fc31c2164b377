"""Name validation as the API server does it: DNS-1123 subdomains and labels (object names,
namespaces, container names), qualified names and label values (label keys and values).

The one place for these rules; :mod:`schedframe.api.objects` (label selectors) and the manifest
readers use it. Imports nothing from schedframe but :mod:`schedframe.errors`.
"""

from __future__ import annotations

import re
from typing import Final

from ..errors import ManifestError, bounded_repr

__all__: list[str] = []

_DNS1123_LABEL_RE: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN_RE: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_QUALIFIED_NAME_RE: Final = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")


def is_dns1123_subdomain(value: str) -> bool:
    """Kubernetes ``validation.IsDNS1123Subdomain``."""
    return len(value) <= 253 and _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None


def is_dns1123_label(value: str) -> bool:
    """Kubernetes ``validation.IsDNS1123Label``."""
    return len(value) <= 63 and _DNS1123_LABEL_RE.fullmatch(value) is not None


def is_label_key(key: str) -> bool:
    """Kubernetes ``validation.IsQualifiedName``."""
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253 or "/" in prefix
                or not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME_RE.fullmatch(name) is not None


def is_label_value(value: str) -> bool:
    """Kubernetes ``validation.IsValidLabelValue``."""
    return value == "" or (len(value) <= 63 and _QUALIFIED_NAME_RE.fullmatch(value) is not None)


def _check_subdomain(value: str, path: str) -> None:
    """The API server's ``NameIsDNSSubdomain`` (object names of pods, nodes, workloads...)."""
    if not is_dns1123_subdomain(value):
        raise ManifestError(path, f"invalid name {bounded_repr(value)}: a lowercase RFC 1123 subdomain "
                                  "(at most 253 characters of a-z, 0-9, '-' and '.', starting and ending "
                                  "with a letter or digit)")


def _check_label(value: str, path: str) -> None:
    """The API server's ``IsDNS1123Label`` (namespaces, container names)."""
    if not is_dns1123_label(value):
        raise ManifestError(path, f"invalid name {bounded_repr(value)}: a lowercase RFC 1123 label "
                                  "(at most 63 characters of a-z, 0-9 and '-', starting and ending with a "
                                  "letter or digit)")
