"""Name validation as the API server does it: DNS-1123 subdomains and labels (object names,
namespaces, container names), qualified names and label values (label keys and values), and
extended resource names.

The one place for these rules: :mod:`schedframe.api.objects` (label selectors), the manifest
readers, the plugins' args validation and the configuration's extenders use it. The
``*_errors`` functions give apimachinery's ``util/validation`` messages word for word (what a
``field.Invalid`` error carries). Imports nothing from schedframe but :mod:`schedframe.errors`.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from ..errors import ManifestError, bounded_repr

__all__ = [
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_extended_resource_name",
    "is_label_key",
    "is_label_value",
    "label_value_errors",
    "qualified_name_errors",
]

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


# apimachinery's util/validation messages
_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_ERR: Final = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                              "and end with an alphanumeric character")
_LABEL_VALUE_FMT: Final = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE_ERR: Final = ("a valid label must be an empty string or consist of alphanumeric characters, "
                           "'-', '_' or '.', and must start and end with an alphanumeric character")
_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = rf"{_DNS1123_LABEL_FMT}(\.{_DNS1123_LABEL_FMT})*"
_DNS1123_SUBDOMAIN_ERR: Final = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                 "characters, '-' or '.', and must start and end with an alphanumeric "
                                 "character")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


@functools.lru_cache(maxsize=4096)
def qualified_name_errors(value: str) -> tuple[str, ...]:
    """apimachinery ``IsQualifiedName`` (label keys, topology keys, resource names): why *value*
    is not valid, in its words; empty when it is."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errs.append("prefix part must be no more than 253 characters")
            if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
                errs.append("prefix part " + _regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT,
                                                          "example.com"))
    else:
        return ("a qualified name " + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName",
                                                   "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append("name part " + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                "123-abc"))
    return tuple(errs)


@functools.lru_cache(maxsize=4096)
def label_value_errors(value: str) -> tuple[str, ...]:
    """apimachinery ``IsValidLabelValue``: why *value* is not a valid label value, in its words."""
    errs: list[str] = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if value and not _QUALIFIED_NAME_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


@functools.lru_cache(maxsize=4096)
def is_extended_resource_name(name: str) -> bool:
    """Upstream ``v1helper.IsExtendedResourceName``: a fully-qualified name outside the
    ``kubernetes.io/`` domain, not starting with ``requests.``, valid as a quota name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)
