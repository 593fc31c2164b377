"""The one reader of user text: every file a user hands schedframe goes through here.

Configurations, manifests, scenarios, sweep specs, replay logs, CSV traces and benchmark
configurations are all read by :func:`read_text` and parsed by :func:`parse_json`,
:func:`parse_yaml`, :func:`parse_documents` or :func:`parse_data`:

* only regular files are read (a FIFO, a device, a socket or a directory is refused by name, and
  is never opened in a way that blocks); the size is capped before the bytes are held;
* text is UTF-8 (a leading BOM is dropped); bytes that are not say the file and the byte offset;
* JSON refuses a key that appears twice in one object (the API server's strict decoding), and
  nesting too deep for the parser is an error, not a ``RecursionError``;
* YAML is read with a safe loader after one pass over the parser's events that refuses duplicate
  keys, nesting deeper than :data:`MAX_YAML_DEPTH`, recursive aliases and alias expansion beyond
  go-yaml's limits ("billion laughs"); without PyYAML the error says which extra to install.

Every problem is raised through the caller's *error* factory (default :class:`~schedframe.InputError`) as
one line naming the file (or "the text") and the problem, so each layer keeps its own error type
(``ManifestError``, ``ConfigurationError``, ...) while the wording and the checks live here.
This module sits beside :mod:`schedframe.errors`, below every layer, and imports nothing else of
schedframe. It is the only module of schedframe that calls a YAML loader.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from typing import Any, Final

from .errors import InputError, SchedframeError, bounded_repr

__all__ = [
    "MAX_YAML_DEPTH",
    "YAML_HINT",
    "ErrorFactory",
    "decode_utf8",
    "dump_yaml",
    "fast_yaml_parser",
    "file_kind",
    "is_json_text",
    "json_documents",
    "parse_data",
    "parse_documents",
    "parse_json",
    "parse_yaml",
    "read_bytes",
    "read_text",
    "shown_path",
    "yaml_available",
]

#: Builds the exception raised for a problem from its one-line message.
ErrorFactory = Callable[[str], Exception]

#: The hint every "needs PyYAML" error carries.
YAML_HINT: Final = "pip install 'schedframe[yaml]'"

#: YAML nested deeper than this is refused: Kubernetes objects nest a few dozen levels, and
#: libyaml's composer recurses in C (a deep enough document crashes the interpreter).
MAX_YAML_DEPTH: Final = 256
# go-yaml's limits on alias expansion ("billion laughs"), as kubectl and the API server read YAML:
# up to 400,000 decoded nodes 99% may come from aliases, from 4,000,000 on only 10%.
_ALIAS_RATIO_LOW: Final = 400_000
_ALIAS_RATIO_HIGH: Final = 4_000_000

_FILE_KINDS: Final = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words ("a directory", "a FIFO (named pipe)", ...)."""
    for test, name in _FILE_KINDS:
        if test(mode):
            return name
    return "not a regular file"


def shown_path(path: str | os.PathLike[str]) -> str:
    """*path* as messages show it: quoted, and cut short when it is very long."""
    text = os.fsdecode(os.fspath(path))
    return repr(text) if len(text) <= 200 else bounded_repr(text, 200)


def _name(what: str, path: str | os.PathLike[str]) -> str:
    return f"{what} {shown_path(path)}" if what else shown_path(path)


def read_bytes(path: str | os.PathLike[str], limit: int, *, what: str = "",
               error: ErrorFactory = InputError) -> bytes:
    """At most ``limit + 1`` bytes of the regular file *path* (the caller tells "too large" by the
    length, so that it can word its own limit).

    The file is opened without blocking (a FIFO would block ``open``) and checked with ``fstat``
    on the open descriptor, so a special file swapped in after a ``stat`` is still refused.
    *what* names the file in messages ("the configuration file").
    """
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"expected a file path, got {type(path).__name__}")
    name = _name(what, path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as e:  # ValueError: an embedded NUL
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise error(f"cannot read {name}: {reason}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"cannot read {name}: it is {file_kind(mode)}; only regular files are read")
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            return f.read(max(limit, 0) + 1)
    except OSError as e:
        raise error(f"cannot read {name}: {e.strerror or e}") from None
    finally:
        if fd >= 0:
            os.close(fd)


def decode_utf8(data: bytes, *, name: str = "the text", error: ErrorFactory = InputError) -> str:
    """*data* as UTF-8 text (a leading BOM dropped); *name* says whose bytes they are."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"cannot read {name}: not UTF-8 text (byte {e.start})") from None


def read_text(path: str | os.PathLike[str], *, max_bytes: int, what: str = "",
              allow_empty: bool = False, error: ErrorFactory = InputError) -> str:
    """The UTF-8 text of the regular file *path*, of at most *max_bytes* bytes.

    Raises (through *error*): the path cannot be opened, is not a regular file, is larger than
    *max_bytes*, is not UTF-8, or (unless *allow_empty*) holds nothing but white space.
    """
    data = read_bytes(path, max_bytes, what=what, error=error)
    name = _name(what, path)
    if len(data) > max_bytes:
        raise error(f"cannot read {name}: larger than {max_bytes} bytes")
    text = decode_utf8(data, name=name, error=error)
    if not allow_empty and not text.strip():
        raise error(f"cannot read {name}: the file is empty")
    return text


# --------------------------------------------------------------------------------------------
# JSON


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` refusing a key that appears twice in one JSON object, as the API
    server's strict decoding does (``json`` would keep the last)."""
    out = dict(pairs)
    if len(out) != len(pairs):  # rare: find the first key seen twice
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate key {bounded_repr(key)} in a JSON object")
            seen.add(key)
    return out


class _DuplicateKey(SchedframeError, ValueError):
    """Raised inside the JSON decoder; turned into the caller's error."""


def is_json_text(text: str) -> bool:
    """Whether *text* is read as JSON: its first character after white space is ``{`` or ``[``."""
    return text.lstrip()[:1] in ("{", "[")


def _where(source: str | None) -> str:
    return f" in {source}" if source else ""


def parse_json(text: str, *, source: str | None = None, error: ErrorFactory = InputError) -> Any:
    """One JSON value; duplicate keys, syntax errors and nesting too deep raise through *error*
    (``invalid JSON in <source>: line L, column C: problem``)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as e:
        raise error(f"invalid JSON{_where(source)}: {e}") from None
    except json.JSONDecodeError as e:
        raise error(f"invalid JSON{_where(source)}: line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise error(f"invalid JSON{_where(source)}: nested too deeply") from None


def json_documents(text: str, *, flatten_lists: bool = True) -> list[Any]:
    """The JSON values written one after another in *text* (a top-level array contributes its
    items when *flatten_lists*). Raises ``ValueError`` (a duplicate key, a syntax error) or
    ``RecursionError``; :func:`parse_documents` turns them into the caller's error."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    docs: list[Any] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            return docs
        doc, pos = decoder.raw_decode(text, pos)
        if flatten_lists and isinstance(doc, list):
            docs.extend(doc)
        else:
            docs.append(doc)


# --------------------------------------------------------------------------------------------
# YAML


def yaml_available() -> bool:
    """Whether PyYAML can be imported."""
    try:
        import yaml  # noqa: F401
    except ImportError:
        return False
    return True


def _yaml(purpose: str, error: ErrorFactory, alternative: str = " (or give JSON)") -> Any:
    try:
        import yaml
    except ImportError:
        raise error(f"{purpose} needs PyYAML: {YAML_HINT}{alternative}") from None
    return yaml


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _yaml_limits(yaml: Any, text: str, loader: Any) -> str | None:
    """What makes *text* unsafe to load with *loader* (a PyYAML safe loader class), or ``None``.

    One pass over the parser's events (no recursion, no objects built): a key that appears twice
    in one mapping (the API server refuses those; PyYAML would keep the last), nesting deeper than
    :data:`MAX_YAML_DEPTH`, an alias inside the node it refers to (a recursive structure), or
    aliases expanding to more nodes than go-yaml allows (each alias counts the nodes it stands
    for, so a "billion laughs" document is refused after a few thousand events). Syntax errors
    are raised as :class:`yaml.YAMLError`.
    """
    scalar, alias = yaml.ScalarEvent, yaml.AliasEvent
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    sizes: dict[Any, int] = {}
    stack: list[tuple[Any, int]] = []
    # per open collection: None for a sequence; for a mapping, [items seen, keys seen]
    keys: list[list[Any] | None] = []
    decoded = aliased = 0
    events: Iterable[Any] = yaml.parse(text, Loader=loader)
    for event in events:
        cls = event.__class__
        if keys and (cls is scalar or cls is alias or cls in starts):
            frame = keys[-1]
            if frame is not None:
                if frame[0] % 2 == 0 and cls is scalar and event.value != "<<":
                    if event.value in frame[1]:
                        mark = event.start_mark
                        return (f"duplicate key {bounded_repr(event.value)} at line {mark.line + 1}, "
                                f"column {mark.column + 1}")
                    frame[1].add(event.value)
                frame[0] += 1
        if cls is scalar:
            decoded += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif cls in starts:
            decoded += 1
            stack.append((event.anchor, decoded))
            keys.append([0, set()] if cls is yaml.MappingStartEvent else None)
            if len(stack) > MAX_YAML_DEPTH:
                mark = event.start_mark
                return (f"nested more than {MAX_YAML_DEPTH} levels deep at line {mark.line + 1}, "
                        f"column {mark.column + 1}")
        elif cls in ends:
            anchor, start = stack.pop()
            keys.pop()
            if anchor is not None:
                sizes[anchor] = decoded - start + 1
        elif cls is alias:
            size = sizes.get(event.anchor)
            if size is None:
                if any(a == event.anchor for a, _ in stack):
                    mark = event.start_mark
                    return (f"alias *{event.anchor} at line {mark.line + 1}, column {mark.column + 1} "
                            "refers to a node that contains it (a recursive structure)")
                continue  # an undefined alias: the loader reports it
            decoded += size
            aliased += size
            if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
                return "the document contains excessive aliasing (aliases expand to too many nodes)"
        elif cls is yaml.DocumentStartEvent:
            sizes.clear()
            decoded = aliased = 0
    return None


def _yaml_error_detail(error: Exception) -> str:
    """`` at line L, column C: problem`` for a PyYAML error: our own location format, so callers
    never depend on how a PyYAML release words or places its messages."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(error, "problem", None) or str(error)
    return f"{at}: {' '.join(str(problem).split())}"


# --------------------------------------------------------------------------------------------
# The fast path: a YAML 1.2 parser in Rust (``yaml-rs``, the ``fastyaml`` extra) for the text it
# provably reads as PyYAML's safe loader does (YAML 1.1), PyYAML for everything else.
#
# The two agree on the structure of any document and on every plain scalar but those YAML 1.1
# resolves differently (``yes``/``on``/``off`` booleans, ``0755`` octal, ``1_000``, ``12:30``
# sexagesimal, exponents without a dot, timestamps, ``=``), and on everything but anchors, aliases,
# tags, merge keys, complex keys and directives. The text is searched for any of these first (a
# quoted ``"yes"`` or a block scalar line may match too: that only costs the fast path). Whatever
# yaml-rs refuses (a syntax error, a duplicate key, flow nesting beyond its own limit) is read by
# PyYAML again, so the error is PyYAML's as before.

_FAST_MODULE: Final = "yaml_rs"
#: Shorter text is always read by PyYAML (configurations, small manifests: the speed makes no
#: difference there, and one reader is simpler to reason about).
fast_yaml_min_chars = 64 * 1024
_fast: list[Any] = []  # [module or None] once looked for

# a plain scalar starts at the beginning of the text or after white space, ":", "," or a flow
# bracket (a quoted string's words match too: that only costs the fast path)...
_START: Final = r"(?:\n[ \t]*(?:[-?][ \t]+)*|[:?-][ \t]+|[\[\{,][ \t]*)"
# ... and ends at the end of a line, a comment, ": " (a key) or a flow indicator
_END: Final = r"[ \t]*(?:#|$|:(?:[ \t]|$)|[,\]\}])"
_RISKY: Final = (
    r"(?:(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=)"
    r"|[-+]?(?:0[0-9_]+|0[bBoO][0-9_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-9_]+)+(?:\.[0-9_]*)?"
    r"|(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)[eE][-+]?[0-9]+|[0-9.][0-9.]*_[0-9._]*|[0-9]{19,}"
    r"|\.(?:inf|Inf|INF|nan|NaN|NAN))"
    r"|[-+]\.[0-9][0-9_]*"  # a float to YAML 1.2 ('-.0'), a string to PyYAML's YAML 1.1
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt \t][0-9:.Zz \t+-]*)?)" + _END)
# a plain key that is not a string (an int, a null...): PyYAML's duplicate check compares keys as
# written ("1" and 1 are one key to it)
_NON_STRING: Final = (r"(?:[+.0-9~][^\s:]*|-[^\s:]+|null|Null|NULL|true|True|TRUE|false|False|FALSE)"
                      r"[ \t]*:(?:[ \t]|$)")
_TOKEN: Final = f"(?=[-+.0-9~=yYnNoOtTfF])(?:{_RISKY}|{_NON_STRING})"
# one pass per kind of start (a literal or rare first character keeps each pass fast); the
# indentation is matched atomically (the lookahead-and-backreference idiom), never backtracked
_RISKY_SCALARS: Final = (
    re.compile(r"\n(?=((?:[ \t]|[-?][ \t])*))\1" + _TOKEN, re.MULTILINE),
    re.compile(r":[ \t]+" + _TOKEN, re.MULTILINE),
    re.compile(r"[\[\{,][ \t]*" + _TOKEN, re.MULTILINE),
)
_RISKY_FIRST: Final = re.compile(r"(?=((?:[ \t]|[-?][ \t])*))\1" + _TOKEN, re.MULTILINE)
# anchors, aliases, tags, merge keys, directives, complex keys, collections as keys
_SPECIALS: Final = (
    re.compile(r"[&*!](?<=[\s\[\{,:?-][&*!])"),
    re.compile(r"<<|\n%"),
    re.compile(r"\?(?<=[\s\[\{,]\?)(?:[ \t]|$)", re.MULTILINE),
    re.compile(r"[\]\}][ \t]*:(?:[ \t]|$)", re.MULTILINE),
)
# characters PyYAML refuses or reads as line breaks (NEL, LS, PS), CR, and tabs (PyYAML refuses
# some a YAML 1.2 parser takes)
_ODD_CHARS: Final = re.compile("[^\x0A\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
# block nesting deeper than this many columns of indentation and "- " could overflow the fast
# parser's stack (it has no limit of its own for block collections)
_LONG_PREFIX: Final = re.compile(r"\n[ \t?-]{120}")
_LONG_PREFIX_FIRST: Final = re.compile(r"[ \t?-]{120}")
_FLOW_OPEN: Final = re.compile(r"[\[\{](?![ \t]*[\]\}])")
_MARKER: Final = re.compile(r"^(?:---|\.\.\.)(?=[ \t]|$)[^\n]*", re.MULTILINE)
_MAYBE_MARKER: Final = re.compile(r"\n(?:---|\.\.\.)")
_SEPARATOR: Final = re.compile(r"^---[ \t]*$", re.MULTILINE)
_BLANK: Final = re.compile(r"(?:[ \t]*(?:#[^\n]*)?(?:\n|$))*")


def fast_yaml_parser() -> str | None:
    """``"yaml-rs <version>"`` when the fast YAML parser (the ``fastyaml`` extra) is installed and
    used, else ``None``."""
    module = _fast_module()
    return None if module is None else f"yaml-rs {getattr(module, '__version__', '?')}"


def _fast_module() -> Any:
    if not _fast:
        try:
            module: Any = importlib.import_module(_FAST_MODULE)
            module.loads  # noqa: B018 - the API this module uses
            module.DuplicateKeyPolicy.Error  # noqa: B018
        except (ImportError, AttributeError):
            module = None
        _fast.append(module)
    return _fast[0]


def _needs_pyyaml(text: str) -> bool:
    """Whether *text* may hold something the fast parser reads differently from PyYAML."""
    if text[:1] in ("&", "*", "!", "%", "?") or _ODD_CHARS.search(text) or _RISKY_FIRST.match(text):
        return True
    if any(rx.search(text) for rx in _RISKY_SCALARS):
        return True
    if any(c in text for c in "&*!<%?") and any(rx.search(text) for rx in _SPECIALS[:3]):
        return True
    if _SPECIALS[3].search(text):
        return True
    return _LONG_PREFIX.search(text) is not None or _LONG_PREFIX_FIRST.match(text) is not None


def _depth_within(value: Any, limit: int) -> bool:
    """Whether *value* nests at most *limit* collections deep (without recursion)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            return False
        children = v.values() if type(v) is dict else v
        for c in children:
            if type(c) is dict or type(c) is list:
                stack.append((c, depth + 1))
    return True


def _fast_documents(text: str) -> list[Any] | None:
    """The documents of *text* read by the fast parser, or ``None`` when PyYAML must read it."""
    if len(text) < fast_yaml_min_chars:
        return None
    module = _fast_module()
    if module is None or _needs_pyyaml(text):
        return None
    chunks = [text]
    if text.startswith(("---", "...")) or _MAYBE_MARKER.search(text):
        if any(not _SEPARATOR.fullmatch(m.group(0)) for m in _MARKER.finditer(text)):
            return None  # "..." or "--- value": PyYAML
        chunks = _SEPARATOR.split(text)
    check_depth = _FLOW_OPEN.search(text) is not None
    docs: list[Any] = []
    for i, chunk in enumerate(chunks):
        if _BLANK.fullmatch(chunk):
            if i > 0:  # an explicit document with nothing in it
                docs.append(None)
            continue
        try:
            doc = module.loads(chunk, parse_datetime=False,
                               duplicate_key_policy=module.DuplicateKeyPolicy.Error)
        except Exception:  # any refusal: PyYAML reads it and words the error
            return None
        if check_depth and type(doc) in (dict, list) and not _depth_within(doc, MAX_YAML_DEPTH):
            return None
        docs.append(doc)
    return docs


def _load_yaml(text: str, source: str | None, error: ErrorFactory, *, all_documents: bool) -> Any:
    where = _where(source)
    yaml = _yaml(f"reading YAML{where}", error)
    fast = _fast_documents(text)
    if fast is not None:
        if all_documents:
            return fast
        if len(fast) <= 1:
            return fast[0] if fast else None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        problem = _yaml_limits(yaml, text, loader)
        if problem is not None:
            raise _Refused(problem)
        if all_documents:
            return list(yaml.load_all(text, Loader=loader))  # a safe loader
        return yaml.load(text, Loader=loader)  # a safe loader
    except _Refused as e:
        raise error(f"refusing YAML{where}: {e}") from None
    except yaml.YAMLError as e:
        raise error(f"invalid YAML{where}{_yaml_error_detail(e)}") from None
    except (ValueError, OverflowError, RecursionError) as e:  # a value PyYAML's constructors refuse,
        # e.g. a date such as 2024-13-45 or an integer of more than 4300 digits
        raise error(f"invalid YAML{where}: {type(e).__name__}: {e}") from None


class _Refused(Exception):
    """A document the YAML limits refuse (internal)."""


def parse_yaml(text: str, *, source: str | None = None, error: ErrorFactory = InputError) -> Any:
    """The one YAML document in *text* (``None`` for an empty one), read with the limits above."""
    return _load_yaml(text, source, error, all_documents=False)


def parse_documents(text: str, *, source: str | None = None, error: ErrorFactory = InputError) -> list[Any]:
    """Every document of *text*: JSON values one after another (a top-level array gives its
    items) when *text* starts with ``{`` or ``[``, else the documents of a YAML stream. JSON that
    does not parse is given to the YAML reader (YAML is a superset of JSON) when PyYAML is there."""
    if is_json_text(text):
        try:
            return json_documents(text)
        except (ValueError, RecursionError) as e:  # RecursionError: nested too deeply
            if not yaml_available():
                detail = "nested too deeply" if isinstance(e, RecursionError) else str(e)
                raise error(f"invalid JSON{_where(source)}: {detail}") from None
    result: list[Any] = _load_yaml(text, source, error, all_documents=True)
    return result


def parse_data(text: str, *, source: str | None = None, error: ErrorFactory = InputError) -> Any:
    """One document: JSON when *text* starts with ``{`` or ``[``, else YAML."""
    if is_json_text(text):
        return parse_json(text, source=source, error=error)
    return parse_yaml(text, source=source, error=error)


def dump_yaml(data: Any, *, error: ErrorFactory = InputError, alternative: str = "") -> str:
    """*data* as block-style YAML in key order (PyYAML's safe dumper; libyaml's when there)."""
    yaml = _yaml("writing YAML", error, alternative)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True,
                          default_flow_style=False)
    return text
