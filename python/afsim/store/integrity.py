"""A store's integrity check and its repair (``afsim results STORE --check`` / ``--repair``).

Read this first. ``problems(store)`` looks at everything a store promises: SQLite's own
``PRAGMA integrity_check``; every catalog row with its directory and files (``deep``: each
Parquet file also read, and holding only its own run's key); every run directory with its
catalog row; no scalars of a run that is not in the catalog. ``repair(store, problems)`` mends
what can be mended, always towards "the run is not stored", never by inventing data: a run
with a missing or unreadable file loses its row, scalars and directory, so that the next sweep
runs it again; a directory with no row (a killed writer's, or a temporary ``.tmp-*`` one) and
orphaned scalars are removed. A damaged SQLite file itself is reported, not mended.

What can leave such problems: a writer killed between publishing a run's files and committing
its row (a directory with no row; every writable open clears it), files deleted by hand, a disk
error, or two writers at once under afsim versions before the writer lock (a row whose files
another writer's clean-up removed).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from afsim.store import Store


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a store: ``kind`` is "catalog" (SQLite's own check; not mended),
    "missing" (a row whose files are not all there), "unreadable" (a file that cannot be read
    or holds another run's rows), "no-row" (a directory with no catalog row) or "scalars"
    (scalars of no run); ``key`` the run or directory it concerns."""

    kind: str
    key: str
    message: str

    def __str__(self) -> str:
        return self.message


def problems(store: Store, *, deep: bool = True) -> list[Problem]:
    """Everything wrong with ``store`` (see the module header); ``deep=False`` only looks at
    which files exist (no file is read, no SQLite check: cheap enough for every open)."""
    from afsim.store import RUNS

    found: list[Problem] = []
    if deep:
        (result,) = store.db.execute("PRAGMA integrity_check").fetchone()
        if result != "ok":
            found.append(Problem("catalog", "", f"catalog: {result}"))
    runs_dir = store.path / RUNS
    known = set()
    for key, tables in store.db.execute("SELECT key, tables FROM runs").fetchall():
        known.add(key)
        d = runs_dir / key
        for name in ("run", *json.loads(tables)):
            f = d / f"{name}.parquet"
            if not f.is_file():
                found.append(Problem("missing", key, f"run {key}: {f.name} missing"))
                break
            if not deep:
                continue
            problem = _read_problem(f, key)
            if problem:
                found.append(Problem("unreadable", key, f"run {key}: {f.name} {problem}"))
                break
    orphans = store.db.execute(
        "SELECT count(*) FROM scalars WHERE key NOT IN (SELECT key FROM runs)").fetchone()[0]
    if orphans:
        found.append(Problem("scalars", "", f"catalog: {orphans} scalars of no run"))
    if runs_dir.is_dir():
        for d in sorted(runs_dir.iterdir()):
            if d.name not in known:
                what = ("a temporary directory a writer left" if d.name.startswith(".tmp-")
                        else "a directory with no catalog row")
                found.append(Problem("no-row", d.name, f"{d.name}: {what}"))
    return found


def _read_problem(f: object, key: str) -> str:
    """Why a run's Parquet file is not sound, or "" when it is."""
    import pyarrow.parquet as pq

    try:
        keys = set(pq.read_table(f, columns=["key"]).column("key").to_pylist())
    except Exception as e:  # any unreadable file is a problem to report
        return f"unreadable ({e})"
    return "holds rows of another run" if keys - {key} else ""


def repair(store: Store, found: list[Problem]) -> list[str]:
    """Mends ``found`` (see the module header); returns what it did, one line each."""
    from afsim.store import RUNS

    done: list[str] = []
    gone = sorted({p.key for p in found if p.kind in ("missing", "unreadable")})
    if gone:
        store.db.execute("BEGIN IMMEDIATE")
        try:
            for key in gone:
                store.db.execute("DELETE FROM scalars WHERE key = ?", (key,))
                store.db.execute("DELETE FROM runs WHERE key = ?", (key,))
            store.db.execute("COMMIT")
        except BaseException:
            store.db.execute("ROLLBACK")
            raise
        for key in gone:
            shutil.rmtree(store.path / RUNS / key, ignore_errors=True)
            reason = next(p.message for p in found if p.key == key)
            done.append(f"removed run {key} ({reason.removeprefix(f'run {key}: ')}): the next "
                        "sweep runs it again")
    if any(p.kind == "scalars" for p in found):
        n = store.db.execute(
            "DELETE FROM scalars WHERE key NOT IN (SELECT key FROM runs)").rowcount
        done.append(f"removed {n} scalars of no run")
    for p in found:
        if p.kind == "no-row":
            shutil.rmtree(store.path / RUNS / p.key, ignore_errors=True)
            done.append(f"removed {p.key}: {p.message.removeprefix(f'{p.key}: ')}")
    return done
