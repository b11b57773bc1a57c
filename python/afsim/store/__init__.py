"""The results store: every finished run of every sweep, kept so that nothing is computed twice
and nothing is lost when a sweep is stopped.

Read this first. A store is a directory::

    STORE/
      catalog.sqlite          runs (one row per finished run), scalars (run key, name, value),
                              meta (store format, afsim version that made it)
      runs/<key>/run.parquet     one row: key, scenario, seed, afsim version, params as
                                 ``param.<name>`` columns, every scalar metric as a column
      runs/<key>/flows.parquet   the run's per-flow table, with a ``key`` column
      runs/<key>/queues.parquet  per-queue table, likewise
      runs/<key>/traces.parquet  TCP sender time series (flow, time_s, cwnd, ...), if any
      runs/<key>/alpha.parquet   α of each CSA over time (csa, time_s, alpha), if any

and the catalog's ``sweeps`` and ``sweep_runs`` say which sweep made (or reused) which run
(``afsim.store.sweeps``: ``Store.sweeps()``, ``Store.runs(sweep=...)``, ``Store.delete_sweep``).

A run's **key** is the SHA-256 (first 24 hex digits) of the fully resolved scenario
(``Scenario.resolved()``: parameters and ``--set`` substituted, groups expanded, units
parsed), its seed and afsim's version (``run_key``). Two runs with the same key give the same
results byte for byte, so a stored key is never run again.

**One writer at a time** (``afsim.store.lock``): a writable ``Store.open`` takes an exclusive
``flock`` on ``STORE/lock`` and writes its pid there; a second writer gets a ``StoreError``
naming the holder at once (``afsim sweep`` exits 2). The kernel drops the lock when its holder
ends in any way, SIGKILL included, so a lock is never stale. Readers take no lock.

**Writes are atomic, one run at a time** (``Store.put``): the run's Parquet files are written
into ``runs/.tmp-<key>-<pid>/``, flushed, and renamed to ``runs/<key>/`` (a rename is atomic on
POSIX file systems); then its catalog row and scalars are inserted in one SQLite transaction
(WAL journal). So there is never a catalog row without its files; a writer killed at any
instant leaves either the whole run or none of it in the catalog, plus perhaps a directory with
no row, which the next writable open removes (``recovered`` says what it mended). An exception
or signal inside ``put`` (Ctrl-C, SIGTERM) removes the run's files before it propagates.
``check()`` is the integrity check and ``repair()`` mends what it finds
(``afsim.store.integrity``; ``afsim results STORE --check`` / ``--repair``).
``KILL_AT_ENV`` is a test hook that makes a writer SIGKILL itself at a chosen step of ``put``.

**Reading it** without afsim (docs/sweeps.md has the full examples)::

    import pandas as pd, sqlite3
    runs = pd.read_sql("SELECT * FROM runs", sqlite3.connect("STORE/catalog.sqlite"))
    import duckdb
    duckdb.sql("SELECT * FROM read_parquet('STORE/runs/*/flows.parquet')")
    import polars as pl
    pl.concat([pl.read_parquet(f) for f in glob.glob("STORE/runs/*/run.parquet")],
              how="diagonal_relaxed")  # runs may have different metric columns

**Compatibility**: ``meta`` holds the store's format (``FORMAT``) and the afsim version that
created it. A store of another format cannot be opened; one made by another afsim version can
be read (``afsim results``, ``afsim report``) but not added to (``afsim sweep``), since its
run keys would never match this version's: ``StoreError`` says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

#: The build a run was made by: the version and a hash of the simulator's Rust sources that
#: compute ("0.1.0+3f2a…"; tests and comments left out: crates/afsim-py/build.rs).
from afsim._core import __build__ as AFSIM_VERSION
from afsim.codehash import fingerprint
from afsim.store.lock import LOCK, StoreBusy, WriterLock
from afsim.store.metrics import default_metrics

if TYPE_CHECKING:
    import pandas as pd

#: What a stored run's numbers come from: the Rust build and the Python code that computes
#: the scalars every stored run gets (``store.metrics.default_metrics`` and what it calls),
#: "0.1.0+3f2a….py5c1e…". It is in every run key and is the version a store is made by: an
#: edit of either makes new keys (a store of the old code is read, never added to).
CODE_VERSION = f"{AFSIM_VERSION}.py{fingerprint([default_metrics])}"

#: Layout version of the store; a store of another format is refused.
FORMAT = 1
CATALOG = "catalog.sqlite"
RUNS = "runs"
#: The per-run tables a store may hold, as Parquet files in the run's directory.
TABLES = ("flows", "queues", "traces", "alpha", "monitor", "monitor_levels",
          "monitor_code_points", "monitor_flows", "monitor_conditioners", "queue_events",
          "queue_delay_hist")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    scenario TEXT NOT NULL,
    source TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    afsim_version TEXT NOT NULL,
    end_time_s REAL,
    stop_reason TEXT,
    events INTEGER,
    packet_hops INTEGER,
    wall_s REAL,
    tables TEXT NOT NULL,
    summary_json TEXT NOT NULL,
    stored_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS scalars (
    key TEXT NOT NULL REFERENCES runs(key),
    name TEXT NOT NULL,
    value REAL,
    PRIMARY KEY (key, name)
);
"""


class StoreError(Exception):
    """A store that cannot be used: not a store, another format, another afsim version (for
    writing), or a path that cannot hold one."""


def run_key(resolved: str, seed: int, version: str = CODE_VERSION) -> str:
    """The key of a run: a hash of the resolved scenario text, the seed and the code's version
    (``CODE_VERSION``; a sweep with its own reducer adds that reducer's hash)."""
    h = hashlib.sha256()
    for part in (resolved, str(seed), version):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


@dataclass
class RunRecord:
    """One finished run as a sweep hands it to the store: who it is (key, scenario, params,
    seed), its report and engine counts, its scalar metrics and its tables (column dicts:
    name → numpy array or list, all of one length)."""

    key: str
    scenario: str
    source: str
    params: dict[str, str]
    seed: int
    summary_json: str
    metrics: dict[str, float]
    end_time_s: float
    stop_reason: str
    events: int
    packet_hops: int
    wall_s: float
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: True when the record was read from the store rather than computed now.
    cached: bool = False


class Store:
    """An open store. ``Store.open(path)`` creates it if needed; use as a context manager."""

    def __init__(self, path: Path, db: sqlite3.Connection, writable: bool,
                 lock: WriterLock | None = None) -> None:
        self.path = path
        self.db = db
        self.writable = writable
        #: The writer lock, held while the store is open for writing (or for repair).
        self.lock = lock
        #: What a writable open mended (a killed writer's leftovers), one line each.
        self.recovered: list[str] = []

    # ------------------------------------------------------------------------- open / close

    @classmethod
    def open(cls, path: str | Path, *, write: bool = True, lock: bool | None = None) -> Store:
        """Opens (for writing: creates if absent) the store at ``path``. Raises StoreError for
        a path that is not a store (or cannot become one), another store format, when writing
        a store another afsim version made, and when locking (``lock``, default: ``write``) a
        store whose writer lock another process holds (``StoreBusy`` is the cause).

        A writable open takes the writer lock, then mends what a killed writer left
        (``recovered`` lists it). ``write=False, lock=True`` is for ``check`` and ``repair``
        of a store of any afsim version: it holds the lock but creates nothing."""
        path = Path(path)
        lock = write if lock is None else lock
        catalog = path / CATALOG
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path}: not a directory, so not a results store")
        if not catalog.is_file():
            if not write:
                raise StoreError(f"{path}: no results store here (no {CATALOG})")
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"{path}: cannot create the store: {e.strerror or e}") from None
        held = None
        if lock:
            try:
                held = WriterLock.acquire(path)
            except StoreBusy as e:
                raise StoreError(str(e)) from e
            except OSError as e:
                raise StoreError(f"{path}: cannot lock the store for writing: "
                                 f"{e.strerror or e}") from None
        try:
            store = cls._open_locked(path, write, held)
        except BaseException:
            if held is not None:
                held.release()
            raise
        if write:
            store.recovered = store._recover()
        return store

    @classmethod
    def _open_locked(cls, path: Path, write: bool, held: WriterLock | None) -> Store:
        catalog = path / CATALOG
        if not catalog.is_file():
            # a new store; a directory holding only what a writer killed while creating it left
            # (the lock file, an empty runs/) is one too
            stray = [p.name for p in path.iterdir()
                     if p.name != LOCK and not (p.name == RUNS and p.is_dir()
                                                and not any(p.iterdir()))]
            if stray:
                raise StoreError(f"{path}: a directory with other files in it is not a results "
                                 "store; give an empty or new directory")
            try:
                (path / RUNS).mkdir(exist_ok=True)
            except OSError as e:
                raise StoreError(f"{path}: cannot create the store: {e.strerror or e}") from None
        try:
            db = sqlite3.connect(catalog, timeout=30.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if write:
                from afsim.store.sweeps import SCHEMA

                db.executescript(_SCHEMA + SCHEMA)
            meta = dict(db.execute("SELECT name, value FROM meta").fetchall())
        except sqlite3.Error as e:
            raise StoreError(f"{catalog}: not a readable results catalog ({e})") from None
        if not meta and write:
            with db:
                db.execute("BEGIN")
                db.executemany("INSERT INTO meta VALUES (?, ?)",
                               [("format", str(FORMAT)), ("afsim_version", CODE_VERSION),
                                ("created_at", repr(time.time()))])
            meta = {"format": str(FORMAT), "afsim_version": CODE_VERSION}
        if meta.get("format") != str(FORMAT):
            db.close()
            raise StoreError(f"{path}: store format {meta.get('format')!r}, this afsim reads "
                             f"format {FORMAT}")
        made_by = meta.get("afsim_version")
        if write and made_by != CODE_VERSION:
            db.close()
            raise StoreError(
                f"{path}: this store holds runs of afsim {made_by}, and this is afsim "
                f"{CODE_VERSION}: its runs would never be reused. Sweep into a new --store, or "
                f"use afsim {made_by} (afsim results and afsim report still read it)")
        return cls(path, db, write, held)

    def close(self) -> None:
        self.db.close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def made_by(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE name = 'afsim_version'").fetchone()
        return str(row[0]) if row else "?"

    # ------------------------------------------------------------------------------ writing

    def keys(self) -> set[str]:
        return {k for (k,) in self.db.execute("SELECT key FROM runs")}

    def __contains__(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM runs").fetchone()[0])

    def put(self, rec: RunRecord, sweep: tuple[str, Mapping[str, Any]] | None = None) -> bool:
        """Stores one finished run atomically (see the module header), tagged as the run of
        ``sweep`` (its name and definition, ``afsim.store.sweeps``) in the same transaction.
        Returns False, and changes nothing, if its key is already stored. Interrupted at any point (an exception,
        Ctrl-C, SIGTERM) it leaves nothing of the run behind; killed, it leaves at most files
        with no catalog row, which the next writable open removes."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        if rec.key in self:
            return False
        runs = self.path / RUNS
        final = runs / rec.key
        tmp = runs / f".tmp-{rec.key}-{os.getpid()}"
        published = False
        try:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            _test_kill_point(1)
            run_row: dict[str, list[Any]] = {
                "key": [rec.key], "scenario": [rec.scenario], "seed": [rec.seed],
                "afsim_version": [CODE_VERSION],
                **{f"param.{k}": [v] for k, v in rec.params.items()},
                **{k: [float(v)] for k, v in rec.metrics.items()},
            }
            pq.write_table(pa.table(run_row), tmp / "run.parquet")
            _test_kill_point(2)
            written = []
            for name, cols in rec.tables.items():
                n = len(next(iter(cols.values()))) if cols else 0
                table = pa.table({"key": [rec.key] * n, **cols})
                pq.write_table(table, tmp / f"{name}.parquet")
                written.append(name)
            _test_kill_point(3)
            _fsync_dir(tmp)
            _test_kill_point(4)
            if final.exists():  # debris of a run whose catalog row was lost: replace it
                shutil.rmtree(final)
            os.rename(tmp, final)
            published = True
            _fsync(runs)
            _test_kill_point(5)
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (rec.key, rec.scenario, rec.source, json.dumps(rec.params, sort_keys=True),
                 rec.seed, CODE_VERSION, rec.end_time_s, rec.stop_reason, rec.events,
                 rec.packet_hops, rec.wall_s, json.dumps(written), rec.summary_json,
                 time.time()))
            self.db.executemany("INSERT INTO scalars VALUES (?, ?, ?)",
                                [(rec.key, k, _finite(v)) for k, v in rec.metrics.items()])
            if sweep is not None:
                from afsim.store import sweeps

                sweeps.register(self.db, sweep[0], sweep[1])
                self.db.execute("INSERT OR IGNORE INTO sweep_runs VALUES (?, ?)",
                                (sweep[0], rec.key))
            _test_kill_point(6)
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            shutil.rmtree(tmp, ignore_errors=True)
            if published:
                shutil.rmtree(final, ignore_errors=True)
            raise
        _test_kill_point(7)
        return True

    def check(self) -> list[str]:
        """The integrity check: a list of problems, empty when the store is sound (see
        ``afsim.store.integrity``)."""
        from afsim.store import integrity

        return [str(p) for p in integrity.problems(self)]

    def repair(self) -> list[str]:
        """Mends what ``check`` finds and can be mended (needs the writer lock): a run with a
        missing or unreadable file loses its catalog row and files, so that the next sweep runs
        it again; a directory with no catalog row, and scalars of no run, are removed. Returns
        what it did, one line each."""
        from afsim.store import integrity

        if self.lock is None:
            raise StoreError(f"{self.path}: repair needs the writer lock (open it with "
                             "lock=True)")
        return integrity.repair(self, integrity.problems(self))

    def _recover(self) -> list[str]:
        """What a writable open mends: every problem a cheap look finds (files present, not
        read), so that a store a killed writer or an older afsim left is whole again."""
        from afsim.store import integrity

        return integrity.repair(self, integrity.problems(self, deep=False))

    def damaged(self) -> set[str]:
        """Keys of catalog rows whose files are missing (a cheap look: files present, not read);
        readers leave them out and say so."""
        from afsim.store import integrity

        return {p.key for p in integrity.problems(self, deep=False)
                if p.kind == "missing" and p.key}

    # ------------------------------------------------------------------------------ reading

    def record(self, key: str) -> RunRecord | None:
        """A stored run's record (without its tables), or None."""
        row = self.db.execute(
            "SELECT key, scenario, source, params, seed, summary_json, end_time_s, stop_reason, "
            "events, packet_hops, wall_s FROM runs WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        metrics = {n: (v if v is not None else float("nan")) for n, v in self.db.execute(
            "SELECT name, value FROM scalars WHERE key = ? ORDER BY rowid", (key,))}
        return RunRecord(key=row[0], scenario=row[1], source=row[2], params=json.loads(row[3]),
                         seed=row[4], summary_json=row[5], metrics=metrics, end_time_s=row[6],
                         stop_reason=row[7], events=row[8], packet_hops=row[9], wall_s=row[10],
                         cached=True)

    def sweeps(self) -> pd.DataFrame:
        """One row per sweep that stored or reused runs here (``afsim.store.sweeps``)."""
        from afsim.store import sweeps

        return sweeps.sweeps(self)

    def delete_sweep(self, name: str) -> tuple[int, int]:
        """Deletes sweep ``name`` and its runs no other sweep holds: (removed, kept)."""
        from afsim.store import sweeps

        return sweeps.delete(self, name)

    def runs(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per stored run (of ``sweep`` only, when given: a KeyError names the sweeps
        for an unknown one): key, scenario, seed, one ``param.<name>`` column per parameter
        (numbers where every value is one), engine counts, and one column per scalar metric.
        In the order the runs were stored."""
        import pandas as pd

        base = pd.read_sql(
            "SELECT key, scenario, source, params, seed, end_time_s, stop_reason, events, "
            "packet_hops, wall_s, stored_at FROM runs ORDER BY rowid", self.db)
        if sweep is not None:
            from afsim.store import sweeps

            base = base[base["key"].isin(sweeps.only(self, sweep))].reset_index(drop=True)
        params = pd.DataFrame([json.loads(p) for p in base.pop("params")], index=base.index)
        params = params.rename(columns=lambda c: f"param.{c}").apply(_numeric)
        long = pd.read_sql("SELECT key, name, value FROM scalars ORDER BY rowid", self.db)
        if sweep is not None:
            long = long[long["key"].isin(base["key"])]
        order = list(dict.fromkeys(long["name"]))
        wide = long.pivot(index="key", columns="name", values="value").reindex(columns=order)
        out = pd.concat([base, params], axis=1).merge(wide, left_on="key", right_index=True,
                                                      how="left")
        return out.reset_index(drop=True)

    def scalars(self) -> pd.DataFrame:
        """Every scalar of every run, long: key, name, value."""
        import pandas as pd

        return pd.read_sql("SELECT key, name, value FROM scalars ORDER BY rowid", self.db)

    def table(self, name: str, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """One per-run table (``TABLES``: ``flows``, ``queues``, ``traces``, ``alpha`` and the
        ``[[monitor]]`` series ``monitor``, ``monitor_levels``, ``monitor_code_points``,
        ``monitor_flows``, ``monitor_conditioners``, the queueing-delay histogram
        ``queue_delay_hist`` and the event record ``queue_events``, as ``Results`` names them) of every stored run (or of
        ``keys``), concatenated, with its ``key`` column."""
        import pandas as pd
        import pyarrow.parquet as pq

        if name not in TABLES:
            raise ValueError(f"no table {name!r}; the tables are: {', '.join(TABLES)}")
        wanted = list(keys) if keys is not None else [
            k for (k,) in self.db.execute("SELECT key FROM runs ORDER BY rowid")]
        frames = [pq.read_table(p).to_pandas() for k in wanted
                  if (p := self.path / RUNS / k / f"{name}.parquet").is_file()]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def params_text(params: Mapping[str, str]) -> str:
    """``n=2, rate=1Mbps``: a run's parameters for messages."""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _finite(x: float) -> float | None:
    x = float(x)
    return x if x == x and abs(x) != float("inf") else None


def _numeric(col: pd.Series) -> pd.Series:
    """A column as numbers when every value reads as one, else as it is."""
    import pandas as pd

    try:
        return pd.to_numeric(col)
    except (ValueError, TypeError):
        return col


def _fsync_dir(d: Path) -> None:
    """Flushes a directory's files, and the directory, to disk before the rename publishes
    them."""
    for f in d.iterdir():
        _fsync(f)
    _fsync(d)


def _fsync(p: Path) -> None:
    fd = os.open(p, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: Test hook (fault injection): ``AFSIM_TEST_STORE_KILL_AT=STEP[@N]`` makes the writing process
#: SIGKILL itself at step STEP (1 to 7) of its N-th ``put`` (default: the first), so that tests
#: can stop a writer at every point of the write path. Steps: 1 temporary directory made,
#: 2 run.parquet written, 3 every table written, 4 files flushed, 5 renamed into runs/<key>,
#: 6 catalog row inserted but not committed, 7 committed. Not for use outside tests.
KILL_AT_ENV = "AFSIM_TEST_STORE_KILL_AT"
_puts_started = 0


def _test_kill_point(step: int) -> None:
    global _puts_started
    spec = os.environ.get(KILL_AT_ENV)
    if not spec:
        return
    if step == 1:
        _puts_started += 1
    at, _, nth = spec.partition("@")
    if int(at) == step and _puts_started == int(nth or 1):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


__all__ = [
    "AFSIM_VERSION",
    "CODE_VERSION",
    "FORMAT",
    "KILL_AT_ENV",
    "TABLES",
    "RunRecord",
    "Store",
    "StoreBusy",
    "StoreError",
    "params_text",
    "run_key",
]
