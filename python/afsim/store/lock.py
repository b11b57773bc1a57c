"""The store's writer lock: one writing process per store at a time.

Read this first. ``STORE/lock`` is a small text file; a writer holds an exclusive ``flock`` on
it for as long as its ``Store`` is open, and writes its pid, start time and command line into
it so that a second writer can be told who holds the store. The kernel drops the lock when the
holding process ends in any way (exit, exception, SIGKILL), so a lock is never left stale: the
file's text alone means nothing, only the ``flock`` counts. A second writer does not wait: it
gets ``StoreBusy`` at once (``afsim sweep`` exits 2 with the holder's pid). Readers
(``afsim results``, ``afsim report``) take no lock: SQLite's WAL journal lets them read while the
writer commits, and the writer's publication order (files renamed into place before the
catalog row commits) means a reader never sees a row without its files.

``flock`` is POSIX (Linux, macOS, the BSDs); on a network file system it is as reliable as that
file system's locking, which NFSv4 and SMB provide and older NFS may not.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

LOCK = "lock"


class StoreBusy(Exception):
    """Another process holds the store's writer lock."""

    def __init__(self, path: Path, holder: str) -> None:
        self.path = path
        self.holder = holder
        super().__init__(
            f"{path}: the store is in use by another writer ({holder}); only one sweep writes a "
            "store at a time. Wait for it to finish, or sweep into another --store "
            "(afsim results and afsim report can read it meanwhile)")


class WriterLock:
    """An acquired writer lock; ``release()`` (or closing the process) frees it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd: int | None = fd

    @classmethod
    def acquire(cls, store: Path) -> WriterLock:
        """Takes the lock of the store directory ``store`` (which must exist), or raises
        StoreBusy naming the holder. Never blocks."""
        path = store / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise StoreBusy(store, holder) from None
        except BaseException:
            os.close(fd)
            raise
        text = (f"pid {os.getpid()}, since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime())}: {_command()}\n")
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.ftruncate(self.fd, 0)
            finally:
                os.close(self.fd)  # closing the descriptor drops the flock
                self.fd = None


def _command() -> str:
    """This process's command line as a person typed it: ``afsim sweep ...`` for the CLI."""
    argv = list(sys.argv) or ["python"]
    first = os.path.basename(argv[0])
    if first in ("__main__.py", "afsim"):
        first = "afsim"
    elif first in ("-c", ""):
        first = "python"
    return " ".join([first, *argv[1:]])[:300]


def _read_holder(fd: int) -> str:
    """What the holder wrote about itself (it may not have written it yet)."""
    for _ in range(20):
        text = os.pread(fd, 4096, 0).decode(errors="replace").strip()
        if text:
            return text
        time.sleep(0.01)
    return "a process that has not yet said which"

