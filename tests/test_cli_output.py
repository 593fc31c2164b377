"""Output for people: every command's table reads in full at 80 and 120 columns (and wider),
``COLUMNS`` is honoured when the output is piped, a broken pipe is exit 141 and Ctrl-C exit 130
with one line, checked with real processes.

The tables are checked by parsing what rich printed (a table, the table turned over, or stacked
``HEADER: value`` items) and comparing every header and cell with the ``--plain`` output of the
same command, never against a snapshot."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from schedframe.cli import _common, _output
from schedframe.cli.main import main

pytest.importorskip("rich", reason="rich is in the cli extra")

#: Columns whose values are timings: only checked to be there.
VOLATILE = {"WALL", "seconds"}

Table = tuple[list[str], list[list[str]]]  # headers, rows


def _run(argv: Sequence[str], monkeypatch: pytest.MonkeyPatch, width: int | None) -> tuple[int, str]:
    if width is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(width))
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


def plain_tables(text: str) -> list[Table]:
    """The tables of ``--plain`` output: a header line of tab-separated names after the title,
    then the rows, up to a blank line."""
    lines = text.splitlines()
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        if "\t" in lines[i] and (i == 0 or "\t" not in lines[i - 1]):
            headers = lines[i].split("\t")
            rows = []
            i += 1
            while i < len(lines) and lines[i]:
                rows.append(lines[i].split("\t"))
                i += 1
            tables.append((headers, rows))
        i += 1
    return tables


def _squash(text: str) -> str:
    """*text* without whitespace: a value folded or wrapped over lines compares equal."""
    return "".join(text.split())


def _boxed(lines: list[str]) -> Table:
    """Headers and rows of a rich table (``┏`` to ``└``); a row goes on until the next line whose
    first cell is not empty (the first column never wraps)."""
    head = [ln for ln in lines if ln.startswith("┃")]
    body = [ln for ln in lines if ln.startswith("│")]
    n = head[0].count("┃") - 1
    headers = [" ".join(part) for part in zip(*([c.strip() for c in ln.split("┃")[1:-1]] for ln in head))]
    headers = [" ".join(h.split()) for h in headers]
    rows: list[list[str]] = []
    for ln in body:
        cells = [c.strip() for c in ln.split("│")[1:-1]]
        assert len(cells) == n, ln
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
    return headers, rows


def _stacked(lines: list[str], columns: list[str]) -> Table:
    """Rows of stacked output: ``FIRST: key`` on a line, then indented ``HEADER: value`` items."""
    records: list[str] = []
    for ln in lines:
        if ln.startswith(f"{columns[0]}: "):
            records.append(ln)
        elif records and ln.startswith("  "):
            records[-1] += " " + ln
    rows = []
    for rec in records:
        text = " ".join(rec.split())
        marks = []
        at = 0
        for h in columns:
            at = text.index(f"{h}: ", at)
            marks.append(at)
            at += len(h) + 2
        ends = [*marks[1:], len(text)]
        rows.append([text[m + len(h) + 2:e].strip() for h, m, e in zip(columns, marks, ends)])
    return list(columns), rows


def rich_tables(text: str, expected: list[Table]) -> list[Table]:
    """The tables of rich output, in the order of *expected* (the ``--plain`` tables), each
    read back to headers and rows whatever its layout (a table turned over is turned back)."""
    lines = text.splitlines()
    found: list[Table] = []
    at = 0
    for columns, _ in expected:
        start = next(i for i in range(at, len(lines))
                     if lines[i].startswith("┏") or lines[i].startswith(f"{columns[0]}: "))
        if lines[start].startswith("┏"):
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
            headers, cells = _boxed(lines[start:end + 1])
            if [_squash(h) for h in headers] == [_squash(c) for c in columns]:
                headers = list(columns)  # headers broken over lines (``utilisation_`` / ``mean.cpu``)
            elif headers[0] == columns[0] and [c[0] for c in cells] == columns[1:]:
                # turned over: one column per row
                cells = [[headers[j], *(c[j] for c in cells)] for j in range(1, len(headers))]
                headers = list(columns)
            found.append((headers, cells))
            at = end + 1
        else:
            end = start + 1
            while end < len(lines) and lines[end].startswith(("  ", f"{columns[0]}: ")):
                end += 1
            found.append(_stacked(lines[start:end], columns))
            at = end
    return found


def _same(shown: Table, plain: Table) -> None:
    headers, rows = shown
    columns, want = plain
    assert headers == columns
    assert len(rows) == len(want), (rows, want)
    for got, row in zip(rows, want):
        for h, g, w in zip(columns, got, row):
            assert g, (h, got)  # never an empty cell
            assert "…" not in g, (h, got)
            if h in VOLATILE:
                assert re.fullmatch(r"[\d.,]+s?", _squash(g)), (h, g)
            else:
                assert _squash(g) == _squash(w or _output.EMPTY), (h, got, row)


COMMANDS = {
    "simulate": ["simulate"],
    "simulate --pods": ["simulate", "--pods"],
    "simulate --list": ["simulate", "--list"],
    "plan": ["plan"],
    "plan --scale-down": ["plan", "--scale-down"],
    "sweep": ["sweep", "--workers", "1"],
    "plugins": ["plugins"],
}


#: The --plain output of each command of COMMANDS, once read.
_PLAIN: dict[str, tuple[int, str]] = {}


@pytest.mark.parametrize("width", [80, 120, 240])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_table_shows_every_header_and_cell_in_full(
    command: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each command's tables, piped at COLUMNS=80/120/240, hold every header and every cell of
    the --plain output in full, no line is wider than COLUMNS and no cell is empty or cut."""
    argv = COMMANDS[command]
    if command not in _PLAIN:  # plain text has no width: one run per command
        _PLAIN[command] = _run([*argv, "--plain"], monkeypatch, width)
    code, plain = _PLAIN[command]
    want = plain_tables(plain)
    assert want, plain
    rich_code, text = _run(argv, monkeypatch, width)
    assert rich_code == code
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    got = rich_tables(text, want)
    for shown, expected in zip(got, want, strict=True):
        _same(shown, expected)


def test_the_readmes_first_command_keeps_its_headers_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``schedframe simulate`` at 80 columns: no header cut to ``C…`` and no empty column (the
    issue's report), every metric named in full beside its values."""
    text = _run(["simulate"], monkeypatch, 80)[1]
    assert max(len(line) for line in text.splitlines()) <= 80
    for header in ("CONFIG", "PREEMPTED", "WAIT P50", "WAIT P99", "CPU MEAN", "SIM TIME", "MOVED"):
        assert re.search(rf"[┃│] {re.escape(header)} +[┃│]", text), header


def test_scale_down_names_each_node_and_its_action_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``plan --scale-down``: each node's NODE and ACTION cells are filled (they came out empty)."""
    plain = _run(["plan", "--scale-down", "--plain"], monkeypatch, 80)[1]
    rows = next(t for t in plain_tables(plain) if t[0][0] == "NODE")[1]
    text = _run(["plan", "--scale-down"], monkeypatch, 80)[1]
    assert max(len(line) for line in text.splitlines()) <= 80
    _, shown = rich_tables(text, plain_tables(plain))[-1]
    assert [r[:2] for r in shown] == [r[:2] for r in rows]
    assert rows
    assert {r[1] for r in rows} <= {"remove", "keep"}


def test_a_table_too_wide_for_its_rows_is_stacked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many rows that do not fit are stacked as HEADER: value items, and read back whole."""
    stream = io.StringIO()
    out = _output.Out(stream)
    monkeypatch.setenv("COLUMNS", "40")
    columns = ["POD", "STATE", "NODE", "NOTE"]
    rows = [[f"default/a-very-long-pod-name-{i}", "Pending", "", "0/3 nodes are available: " * 3]
            for i in range(6)]
    out.table("pods", columns, rows)
    text = stream.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 40
    shown = rich_tables(text, [(columns, rows)])
    _same(shown[0], (columns, rows))
    assert "NODE: -" in text


@pytest.mark.parametrize(("environ", "want"), [
    pytest.param({"COLUMNS": "100"}, 100, id="COLUMNS"),
    pytest.param({}, _output.DEFAULT_WIDTH, id="unset"),
    pytest.param({"COLUMNS": "wide"}, _output.DEFAULT_WIDTH, id="not a number"),
    pytest.param({"COLUMNS": "0"}, _output.DEFAULT_WIDTH, id="zero"),
])
def test_piped_output_is_as_wide_as_columns_says(environ: dict[str, str], want: int) -> None:
    """Output that is not a terminal is COLUMNS wide, or 80 without a usable COLUMNS."""
    assert _output.output_width(io.StringIO(), environ) == want


def test_a_terminal_keeps_its_own_width() -> None:
    """On a terminal the width is rich's to find (the terminal's, or COLUMNS)."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert _output.output_width(Tty(), {"COLUMNS": "100"}) is None


def test_columns_reaches_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """The console of a piped command renders at COLUMNS (it was fixed at 200)."""
    monkeypatch.setenv("COLUMNS", "97")
    assert _output.Out(io.StringIO()).console.width == 97


def test_a_broken_pipe_in_rich_is_not_exit_1() -> None:
    """rich's console exits 1 on a broken pipe; schedframe's raises it, for exit 141."""

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    assert main(["plugins"], stdout=Closed()) == _common.EXIT_BROKEN_PIPE


# --- real processes -------------------------------------------------------------------------------


def _cli(*argv: str, columns: int = 80) -> subprocess.Popen[bytes]:
    """``schedframe ARGV`` in a new process, its stdout a pipe the test reads; SIGINT is left at
    Python's handler even when the test runner ignores it (a background job)."""
    env = {**os.environ, "COLUMNS": str(columns),
           "PYTHONPATH": os.pathsep.join(p for p in (str(Path(_output.__file__).parents[2]),
                                                     os.environ.get("PYTHONPATH", "")) if p)}
    return subprocess.Popen(
        [sys.executable, "-m", "schedframe", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize("argv", [
    pytest.param(["simulate", "batch-burst", "--jsonl"], id="--jsonl (observer hooks writing)"),
    pytest.param(["simulate", "batch-burst", "--pods"], id="a rich table"),
    pytest.param(["simulate", "batch-burst", "--pods", "--plain"], id="plain"),
])
def test_a_reader_going_away_is_exit_141_and_silence(argv: list[str]) -> None:
    """``schedframe ... | head -2``: the reader closes after two lines (the output is far larger
    than a pipe holds, so the writer must meet the closed pipe): exit 141, nothing on stderr."""
    proc = _cli(*argv)
    assert proc.stdout is not None
    assert proc.stderr is not None
    for _ in range(2):
        assert proc.stdout.readline()
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait() == _common.EXIT_BROKEN_PIPE, err
    assert err == ""


@pytest.mark.parametrize("argv", [
    pytest.param(["plugins"], id="plugins"),
    pytest.param(["simulate", "--list"], id="simulate --list"),
    pytest.param(["plan"], id="plan"),
    pytest.param(["config", "default"], id="config default"),
    pytest.param(["--help"], id="--help"),
    pytest.param(["simulate", "--help"], id="simulate --help"),
    pytest.param(["--version"], id="--version"),
])
def test_a_reader_gone_before_the_first_line_is_exit_141(argv: list[str]) -> None:
    """The reader closes the pipe before anything is written (``| true``): every command,
    argparse's help and version included (argparse drops the error and exits 0), ends 141."""
    proc = _cli(*argv)
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait() == _common.EXIT_BROKEN_PIPE, err
    assert err == ""


def test_ctrl_c_ends_a_run_with_130_and_one_line() -> None:
    """SIGINT to a run that is under way (it has written its first line and waits on the pipe):
    exit 130 and ``schedframe simulate: interrupted``, no traceback."""
    proc = _cli("simulate", "batch-burst", "--jsonl")
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(b'{"op":"header"')
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == _common.EXIT_INTERRUPTED
    assert err.decode().strip().splitlines() == ["schedframe simulate: interrupted"]


LONG_NODES = [f"ip-10-0-{i}-17.eu-west-1{'abca'[i]}.compute.internal" for i in range(4)]


@pytest.mark.parametrize("width", [80, 120])
def test_explain_and_config_validate_read_at_the_width(
    width: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``explain`` through the command line at COLUMNS=80/120: every line fits, nothing is cut,
    every node name is shown in full in its tables; ``config validate``'s line (it has no table)
    fits too and names the file in full."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- {{apiVersion: v1, kind: Node, metadata: {{name: {n}}}, status: {{allocatable: "
        f"{{cpu: '{2 + 2 * i}', memory: 8Gi, pods: '110'}}}}}}\n" for i, n in enumerate(LONG_NODES)))
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
                   "  - {name: c, image: x, resources: {requests: {cpu: '3'}}}\n")
    code, text = _run(["explain", str(pod), "--cluster", str(cluster)], monkeypatch, width)
    assert code == _common.EXIT_OK
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    table = text.split("Filter", 1)[1].split("└", 1)[0]
    for name in LONG_NODES:
        assert name in table
    config = tmp_path / ("a-configuration-file-with-a-rather-long-name-" * 2 + ".yaml")
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    code, text = _run(["config", "validate", str(config)], monkeypatch, width)
    assert code == _common.EXIT_OK
    assert max(len(line) for line in text.splitlines()) <= width
    assert _squash(str(config)) in _squash(text)
