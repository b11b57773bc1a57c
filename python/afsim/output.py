"""Writing an output whole, or failing loudly: stdout and files that can be larger than 2 GiB.

Read this first. A single ``write`` system call on Linux moves at most 0x7ffff000 bytes
(2,147,479,552; write(2), NOTES), and a write to a pipe, a socket or a raw stream may move fewer
bytes than asked. Python's own ``sys.stdout.write(text)`` of a > 2 GiB string (CPython 3.11,
stdout redirected to a file) returned the full length yet left the file cut at exactly
2,147,479,552 bytes, with exit status 0: a million-flow ``afsim run --format json`` lost the end
of its report so. ``write_text`` and ``write_file`` instead write in pieces of ``CHUNK_BYTES``,
count the bytes each write call reports moved, write the rest again until none is left, and
raise ``OutputError`` (naming the output and how many bytes of how many went out) when a call
moves nothing or fails; ``afsim`` reports it on stderr and exits with status 5. A reader that
went away (``BrokenPipeError``) is left to the caller (``afsim`` stops quietly, as a filter).
``write_chunks`` does the same for an output made piece by piece (the JSON report, which
``RunResult.write_summary`` hands over a megabyte at a time instead of one string of more than
2 GiB at a million flows) to a stream, ``write_file_chunks`` to a file (``--out``'s
summary.json).
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO

#: The most a single write call is asked to move: far below the kernel's 0x7ffff000 bytes, and
#: small enough that a piece's encoded copy costs little memory beside the text.
CHUNK_BYTES = 1 << 24


class OutputError(Exception):
    """An output could not be written whole (a full disk, a write that moved nothing)."""


def write_text(stream: IO[str], text: str, name: str = "stdout") -> int:
    """Writes all of ``text`` (UTF-8) to the text stream ``stream``; returns the bytes written.

    A stream with a file descriptor (stdout, an open file) is flushed and then written with
    ``os.write`` on the descriptor; one with a binary ``buffer`` (a ``TextIOWrapper``) through
    that buffer; any other text stream (``io.StringIO``) piece by piece, each write checked."""
    try:
        fd: int | None = stream.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        fd = None
    stream.flush()
    if fd is not None:
        return _write_pieces(lambda b: os.write(fd, b), text, name)
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        written = _write_pieces(buffer.write, text, name)
        buffer.flush()
        return written
    total = 0
    for start in range(0, len(text), CHUNK_BYTES):
        piece = text[start:start + CHUNK_BYTES]
        n = stream.write(piece)
        if n != len(piece):
            raise OutputError(f"{name}: a write took {n} of {len(piece)} characters; "
                              f"{total} characters of {len(text)} were written")
        total += n
    stream.flush()
    return total


def write_chunks(stream: IO[str], produce: Callable[[Callable[[bytes], None]], None],
                 name: str = "stdout") -> int:
    """Writes the UTF-8 bytes that ``produce`` hands, piece by piece, to the function it is
    given, to the text stream ``stream``, each piece whole as ``write_text`` writes text
    (``OutputError`` naming the bytes written so far, ``BrokenPipeError`` left to the caller);
    returns the bytes written (characters, for a stream without a descriptor or a buffer)."""
    try:
        fd: int | None = stream.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        fd = None
    stream.flush()
    total = 0
    if fd is not None or getattr(stream, "buffer", None) is not None:
        write: Callable[[memoryview], int | None] = (
            (lambda b: os.write(fd, b)) if fd is not None else stream.buffer.write)  # type: ignore[union-attr]

        def sink(data: bytes) -> None:
            nonlocal total
            total += _write_all(write, memoryview(data), name, total)

        produce(sink)
        if fd is None:
            stream.buffer.flush()  # type: ignore[union-attr]
        return total
    # a stream of text only (io.StringIO): the pieces decoded, a character cut between two
    # pieces decoded with the second
    decoder = codecs.getincrementaldecoder("utf-8")()

    def text_sink(data: bytes) -> None:
        nonlocal total
        piece = decoder.decode(data)
        n = stream.write(piece)
        if n != len(piece):
            raise OutputError(f"{name}: a write took {n} of {len(piece)} characters; "
                              f"{total} characters were written, the rest is lost")
        total += n

    produce(text_sink)
    decoder.decode(b"", final=True)  # UnicodeDecodeError if the bytes ended inside a character
    stream.flush()
    return total


def write_file(path: Path, text: str) -> int:
    """Writes ``text`` (UTF-8) to the file ``path`` whole, replacing it; returns the bytes
    written. ``OutputError`` (naming the path) when it cannot."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as e:
        raise OutputError(f"{path}: cannot open it for writing: {e.strerror or e}") from None
    try:
        return _write_pieces(lambda b: os.write(fd, b), text, str(path))
    finally:
        os.close(fd)


def write_file_chunks(path: Path, produce: Callable[[Callable[[bytes], None]], None]) -> int:
    """Writes the UTF-8 bytes that ``produce`` hands, piece by piece, to the function it is
    given, to the file ``path`` (replaced), each piece whole as ``write_file`` writes text;
    returns the bytes written. ``OutputError`` (naming the path and the bytes written so far)
    when it cannot; an exception of ``produce`` stops the writing and is left to the caller."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as e:
        raise OutputError(f"{path}: cannot open it for writing: {e.strerror or e}") from None
    total = 0

    def sink(data: bytes) -> None:
        nonlocal total
        total += _write_all(lambda b: os.write(fd, b), memoryview(data), str(path), total)

    try:
        produce(sink)
    finally:
        os.close(fd)
    return total


def _write_pieces(write: Callable[[memoryview], int | None], text: str, name: str) -> int:
    """Encodes ``text`` a piece at a time and hands each piece to ``write`` until every byte
    is taken; the total of bytes written."""
    total = 0
    # a piece of CHUNK_BYTES characters encodes to at most 4 x CHUNK_BYTES bytes
    step = CHUNK_BYTES // 4 if not text.isascii() else CHUNK_BYTES
    for start in range(0, len(text), step):
        total += _write_all(write, memoryview(text[start:start + step].encode("utf-8")), name,
                            total)
    return total


def _write_all(write: Callable[[memoryview], int | None], data: memoryview, name: str,
               before: int) -> int:
    """Hands ``data`` to ``write`` until every byte is taken, at most ``CHUNK_BYTES`` a call;
    ``len(data)``. ``before``: the bytes of the output written before, for the error."""
    done = 0
    while done < len(data):
        try:
            n = write(data[done:done + CHUNK_BYTES])
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(f"{name}: {e.strerror or e}; {before + done:,} bytes of the "
                              "output were written, the rest is lost") from None
        if not n:  # None: a non-blocking stream took nothing; 0: nothing moved
            raise OutputError(f"{name}: a write moved no bytes; {before + done:,} bytes of "
                              "the output were written, the rest is lost")
        done += n
    return done
