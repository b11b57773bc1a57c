"""Outputs written whole or not at all quietly (afsim/output.py): a write call may move fewer
bytes than asked (Linux moves at most 0x7ffff000 bytes a call; pipes and raw streams fewer),
and ``afsim run --format json`` once left a > 2 GiB report cut at 2,147,479,552 bytes with exit
status 0. Tested with streams that take a few bytes a call, not with a million-flow run."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
import threading
from pathlib import Path

import pytest

import afsim
from afsim import cli, output


class Trickle(io.RawIOBase):
    """A raw binary stream that takes at most ``most`` bytes a write call, as a pipe or the
    kernel's 0x7ffff000 cap does; ``fail_after`` bytes in, it raises ``error`` (or, with
    ``error=None``, moves nothing)."""

    def __init__(self, most: int, fail_after: int | None = None,
                 error: OSError | None = None) -> None:
        self.most = most
        self.fail_after = fail_after
        self.error = error
        self.data = bytearray()
        self.calls = 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:  # type: ignore[override]
        self.calls += 1
        if self.fail_after is not None and len(self.data) >= self.fail_after:
            if self.error is not None:
                raise self.error
            return 0
        piece = bytes(b[: self.most])
        self.data += piece
        return len(piece)


def _stdout_over(raw: Trickle, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8"))  # type: ignore[arg-type]


def test_run_json_reaches_a_stream_that_takes_a_few_bytes_a_call(
    monkeypatch: pytest.MonkeyPatch, tiny: Path
) -> None:
    # the old `sys.stdout.write(report)` handed the whole report to one raw write call and kept
    # only what that call took (997 bytes here), with exit status 0
    expected = afsim.run(afsim.load_scenario(tiny)).summary_json + "\n"
    raw = Trickle(most=997)
    _stdout_over(raw, monkeypatch)
    assert cli.main(["run", str(tiny), "--format", "json"]) == 0
    assert len(expected) > 3 * 997
    assert raw.data.decode("utf-8") == expected
    assert raw.calls >= len(expected.encode()) // 997


def test_run_csv_reaches_a_stream_that_takes_a_few_bytes_a_call(
    monkeypatch: pytest.MonkeyPatch, tiny: Path
) -> None:
    raw = Trickle(most=61)
    _stdout_over(raw, monkeypatch)
    assert cli.main(["run", str(tiny), "--format", "csv"]) == 0
    flows, blank, queues = raw.data.decode().partition("\n\n")
    assert blank and flows.startswith("name,") and queues.startswith("name,")
    assert queues.endswith("\n")


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), None])
def test_a_stdout_that_stops_taking_bytes_fails_loudly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tiny: Path,
    error: OSError | None,
) -> None:
    raw = Trickle(most=500, fail_after=1500, error=error)
    _stdout_over(raw, monkeypatch)
    assert cli.main(["run", str(tiny), "--format", "json"]) == 5
    err = capsys.readouterr().err
    assert "afsim: error: stdout:" in err and "1,500 bytes of the output were written" in err
    assert ("No space left" in err) == (error is not None)
    assert "the output is incomplete" in err


def test_run_json_through_a_pipe_with_a_slow_reader(tiny: Path) -> None:
    # stdout is a pipe (64 KiB of kernel buffer): the writer blocks until the reader drains it
    expected = afsim.run(afsim.load_scenario(tiny)).summary_json + "\n"
    text = expected * (1 + (1 << 18) // len(expected))  # > 256 KiB: several fills of the pipe
    r, w = os.pipe()
    got = bytearray()

    def read() -> None:
        while chunk := os.read(r, 4096):
            got.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    with os.fdopen(w, "w", encoding="utf-8") as stream:
        assert output.write_text(stream, text) == len(text.encode())
    reader.join()
    os.close(r)
    assert got.decode() == text


def test_write_text_pieces_and_non_ascii(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "CHUNK_BYTES", 8)
    text = "débit ≤ 4 KiB · " * 50
    raw = Trickle(most=3)
    stream = io.TextIOWrapper(raw, encoding="utf-8")  # type: ignore[arg-type]
    assert output.write_text(stream, text) == len(text.encode())
    assert raw.data.decode() == text
    plain = io.StringIO()
    assert output.write_text(plain, text) == len(text)
    assert plain.getvalue() == text


def test_write_file_keeps_writing_after_short_writes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = os.write
    monkeypatch.setattr(output.os, "write", lambda fd, b: real(fd, bytes(b[:5])))
    text = json.dumps({"flows": list(range(1000))})
    path = tmp_path / "summary.json"
    path.write_text("an older, longer file " * 500)
    assert output.write_file(path, text) == len(text)
    assert path.read_text() == text


def test_write_file_names_the_path_when_it_cannot(tmp_path: Path) -> None:
    with pytest.raises(output.OutputError, match=r"nowhere/summary\.json: cannot open it"):
        output.write_file(tmp_path / "nowhere" / "summary.json", "{}")


def test_the_streamed_report_is_summary_json_in_pieces(tiny: Path) -> None:
    # `afsim run --format json` writes the report as `write_summary` makes it, never as one
    # string (more than 2 GiB at a million flows); the bytes are `summary_json`'s
    raw = afsim._core.run(afsim.load_scenario(tiny))
    pieces: list[bytes] = []
    raw.write_summary(pieces.append, 100)
    assert len(pieces) > 3
    assert all(len(p) == 100 for p in pieces[:-1]) and 0 < len(pieces[-1]) <= 100
    assert b"".join(pieces).decode() == raw.summary_json()


def test_an_exception_of_the_sink_stops_the_streamed_report(tiny: Path) -> None:
    raw = afsim._core.run(afsim.load_scenario(tiny))
    calls: list[bytes] = []

    def sink(b: bytes) -> None:
        calls.append(b)
        if len(calls) == 3:
            raise output.OutputError("stdout: full")

    with pytest.raises(output.OutputError, match="full"):
        raw.write_summary(sink, 64)
    assert len(calls) == 3


def test_write_chunks_with_characters_cut_between_pieces() -> None:
    text = "débit ≤ 4 KiB · " * 50
    data = text.encode()

    def produce(sink) -> None:  # type: ignore[no-untyped-def]
        for start in range(0, len(data), 7):  # cuts the two- and three-byte characters
            sink(data[start:start + 7])

    raw = Trickle(most=3)
    stream = io.TextIOWrapper(raw, encoding="utf-8")  # type: ignore[arg-type]
    assert output.write_chunks(stream, produce) == len(data)
    assert raw.data.decode() == text
    plain = io.StringIO()
    assert output.write_chunks(plain, produce) == len(text)
    assert plain.getvalue() == text


def test_out_summary_is_streamed_whole_after_short_writes(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `afsim run --out DIR` writes summary.json from `write_summary`'s pieces (never one encoded
    # copy of the text), each piece whole although every write call moves at most 5 bytes
    raw = afsim._core.run(afsim.load_scenario(tiny))
    streamed: list[object] = []
    real_write_summary = raw.write_summary
    monkeypatch.setattr(output, "write_file", lambda *a: pytest.fail("summary.json as one string"))
    real = os.write
    monkeypatch.setattr(output.os, "write", lambda fd, b: real(fd, bytes(b[:5])))

    class Run:
        def write_summary(self, sink) -> None:  # type: ignore[no-untyped-def]
            streamed.append(sink)
            real_write_summary(sink, 100)

    from afsim.results import Results

    Results.from_run(raw).write(tmp_path, run=Run())  # type: ignore[arg-type]
    assert len(streamed) == 1
    assert (tmp_path / "summary.json").read_text() == raw.summary_json()


def test_write_file_chunks_names_the_path_and_the_bytes_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = os.write
    moved = [0]

    def full_disk(fd: int, b) -> int:  # type: ignore[no-untyped-def]
        if moved[0] >= 12:
            raise OSError(errno.ENOSPC, "No space left on device")
        moved[0] += real(fd, bytes(b[:4]))
        return min(len(b), 4)

    monkeypatch.setattr(output.os, "write", full_disk)

    def produce(sink) -> None:  # type: ignore[no-untyped-def]
        for _ in range(10):
            sink(b"0123456789")

    path = tmp_path / "summary.json"
    # 4 bytes a call: 10 of the first piece, then 4 of the second before the disk is full
    with pytest.raises(output.OutputError, match=r"summary\.json: No space left on device; 14 bytes"):
        output.write_file_chunks(path, produce)
    assert path.read_bytes() == b"0123456789" + b"0123"
    with pytest.raises(output.OutputError, match=r"nowhere/summary\.json: cannot open it"):
        output.write_file_chunks(tmp_path / "nowhere" / "summary.json", produce)
