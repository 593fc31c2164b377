"""The one reader of user text (schedframe._textio): files, encodings, JSON and YAML limits."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from schedframe import ConfigurationError, InputError, SchedulerConfiguration, _textio


def test_a_regular_file_is_read_as_utf8_without_bom(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"\xef\xbb\xbfkind: Pod\n")
    assert _textio.read_text(path, max_bytes=100) == "kind: Pod\n"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        pytest.param(b"", "the file is empty", id="empty"),
        pytest.param(b"  \n\t\n", "the file is empty", id="white space"),
        pytest.param(b"\x00\x01\xff\xfe binary", r"not UTF-8 text \(byte 2\)", id="binary"),
        pytest.param("caf\u00e9: 1\n".encode("latin-1"), r"not UTF-8 text \(byte 3\)", id="latin-1"),
        pytest.param(b"x" * 101, "larger than 100 bytes", id="too large"),
    ],
)
def test_unreadable_content_names_the_file(tmp_path: Path, content: bytes, match: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=match) as info:
        _textio.read_text(path, max_bytes=100, what="the scenario")
    assert str(info.value).startswith(f"cannot read the scenario {str(path)!r}: ")
    assert "\n" not in str(info.value)


def test_empty_allowed_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "e"
    path.write_bytes(b"")
    assert _textio.read_text(path, max_bytes=10, allow_empty=True) == ""


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="it is a directory; only regular files are read"):
        _textio.read_text(tmp_path, max_bytes=10)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        with pytest.raises(InputError, match=r"it is a FIFO \(named pipe\)"):
            _textio.read_text(fifo, max_bytes=10)  # would block for ever if opened for reading
    if os.path.exists("/dev/zero"):
        with pytest.raises(InputError, match="it is a character device"):
            _textio.read_text("/dev/zero", max_bytes=10)
    with pytest.raises(InputError, match="cannot read 'no/such/file'"):
        _textio.read_text("no/such/file", max_bytes=10)


def test_the_caller_chooses_the_error_type(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        _textio.read_text(tmp_path, max_bytes=10, error=ConfigurationError)


def test_json_refuses_duplicate_keys_and_deep_nesting() -> None:
    with pytest.raises(InputError, match="duplicate key 'a'"):
        _textio.parse_json('{"a": 1, "a": 2}', source="x.json")
    with pytest.raises(InputError, match=r"invalid JSON in x\.json: nested too deeply"):
        _textio.parse_json("[" * 100_000 + "]" * 100_000, source="x.json")
    with pytest.raises(InputError, match=r"invalid JSON: line 1, column 6"):
        _textio.parse_json('{"a":}')
    assert _textio.parse_json('{"a": {"a": 1}}') == {"a": {"a": 1}}


def test_yaml_limits() -> None:
    pytest.importorskip("yaml")
    with pytest.raises(InputError, match="refusing YAML in s: duplicate key 'a' at line 2"):
        _textio.parse_yaml("a: 1\na: 2\n", source="s")
    deep = "a: " + "[" * (_textio.MAX_YAML_DEPTH + 1) + "]" * (_textio.MAX_YAML_DEPTH + 1)
    with pytest.raises(InputError, match="nested more than"):
        _textio.parse_yaml(deep)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))
    with pytest.raises(InputError, match="excessive aliasing"):
        _textio.parse_yaml(bomb)
    with pytest.raises(InputError, match=r"invalid YAML at line \d+, column \d+"):
        _textio.parse_yaml("a: [\n")
    assert _textio.parse_documents("a: 1\n---\nb: 2\n") == [{"a": 1}, {"b": 2}]
    assert _textio.parse_data('{"a": [1]}') == {"a": [1]}


def test_without_pyyaml_one_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(InputError, match=r"reading YAML in s needs PyYAML: pip install 'schedframe\[yaml\]'"):
        _textio.parse_yaml("a: 1", source="s")
    assert _textio.parse_data('{"a": 1}') == {"a": 1}  # JSON needs nothing


def test_an_empty_configuration_file_is_refused(tmp_path: Path) -> None:
    """kube-scheduler refuses an empty --config file (no kind); so does from_file."""
    path = tmp_path / "empty.yaml"
    path.write_bytes(b"")
    with pytest.raises(ConfigurationError, match="the file is empty"):
        SchedulerConfiguration.from_file(path)
