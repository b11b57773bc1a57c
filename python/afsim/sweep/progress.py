"""The sweep's progress bar: done / running / failed, runs found in the store, and an ETA.

Read this first: one rich bar on stderr, advanced by finished runs; the executors call
``update`` with their counts. ``NoBar`` does nothing, for scripts and tests.
"""

from __future__ import annotations

import sys
from typing import Any


class NoBar:
    def update(self, *, done: int, running: int, failed: int) -> None:
        pass

    def close(self) -> None:
        pass


class Bar(NoBar):
    def __init__(self, total: int, stored: int, label: str = "sweep") -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.stored = stored
        self.progress = Progress(
            TextColumn(label), BarColumn(),
            TextColumn("{task.completed:.0f}/{task.total:.0f} done · {task.fields[running]} "
                       "running · {task.fields[failed]} failed{task.fields[stored]}"),
            TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
            console=Console(file=sys.stderr), transient=False,
        )
        note = f" · {stored} already stored" if stored else ""
        self.task: Any = self.progress.add_task(label, total=float(total), running=0, failed=0,
                                                stored=note)
        self.progress.start()

    def update(self, *, done: int, running: int, failed: int) -> None:
        self.progress.update(self.task, completed=float(done), running=running, failed=failed)

    def close(self) -> None:
        self.progress.stop()
