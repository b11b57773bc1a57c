"""Which sweep made which run: a store's runs tagged by sweep, listed, filtered and deleted.

Read this first. A run is stored once, under a key hashed from what it computes
(``afsim.store.run_key``), so one run may belong to several sweeps: a sweep that meets a run
another sweep already stored reuses it and tags it too. Two catalog tables hold the tags::

    sweeps      name (PRIMARY KEY), scenario, definition (JSON: scenario, --set, grid,
                replications, first seed), created_at
    sweep_runs  sweep, key                (one row per run of a sweep)

A sweep's name is given (``afsim sweep --name``) or made from its definition
(``default_name``: the scenario's stem and a hash of the definition), so the same sweep run
again (to resume it, or to add nothing) has the same name, and a sweep with another ``--set``
has another one. A run's tag is written in the transaction that stores the run
(``Store.put(rec, sweep=...)``), and runs found in the store are tagged in one transaction
before any is computed, so a sweep stopped at any point has tagged exactly its stored runs.

``delete(store, name)`` removes a sweep: its tags, and every run of it that no other sweep
holds — in one SQLite transaction, then their directories. A writer killed after
the commit leaves directories with no catalog row, which the next writable open removes
(``afsim.store.integrity``); killed before it, nothing changed. Runs stored before sweeps were
tagged (or by ``execute`` without a sweep name) are "untagged": listed as such and never
deleted by name.

Stores made before these tables existed get them at their next writable open; a reader of
such a store sees no sweeps.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from afsim.store import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps (
    name TEXT PRIMARY KEY,
    scenario TEXT NOT NULL,
    definition TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep TEXT NOT NULL REFERENCES sweeps(name),
    key TEXT NOT NULL,
    PRIMARY KEY (sweep, key)
);
"""

#: What ``sweeps()`` calls the runs no sweep tagged.
UNTAGGED = "(untagged)"


def definition(scenario: str | Path, overrides: Mapping[str, str],
               grid: Mapping[str, Sequence[str]], replications: int,
               base_seed: int) -> dict[str, Any]:
    """What a sweep is: the scenario, its ``--set``s, its grid, replications and first seed."""
    return {"scenario": str(scenario), "set": dict(sorted(overrides.items())),
            "grid": {k: list(v) for k, v in grid.items()}, "replications": replications,
            "base_seed": base_seed}


def default_name(defn: Mapping[str, Any]) -> str:
    """``three-customers-3f2a9c1b``: the scenario's stem and 8 hex digits of the definition."""
    stem = Path(str(defn["scenario"])).name.removesuffix(".toml") or "sweep"
    digest = hashlib.sha256(json.dumps(defn, sort_keys=True).encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


def _has_tables(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sweeps'"
                      ).fetchone() is not None


def register(db: sqlite3.Connection, name: str, defn: Mapping[str, Any]) -> None:
    """Records sweep ``name`` (inside the caller's transaction); an existing one is kept."""
    db.execute("INSERT OR IGNORE INTO sweeps VALUES (?, ?, ?, ?)",
               (name, str(defn.get("scenario", "")), json.dumps(defn, sort_keys=True),
                time.time()))


def tag(store: Store, name: str, defn: Mapping[str, Any], keys: Iterable[str]) -> None:
    """Tags stored runs ``keys`` as sweep ``name``'s, in one transaction."""
    db = store.db
    db.execute("BEGIN IMMEDIATE")
    try:
        register(db, name, defn)
        db.executemany("INSERT OR IGNORE INTO sweep_runs VALUES (?, ?)",
                       [(name, k) for k in keys])
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def keys_of(store: Store, name: str) -> list[str]:
    """The stored runs of sweep ``name``, in the order they were stored."""
    if not _has_tables(store.db):
        return []
    return [k for (k,) in store.db.execute(
        "SELECT runs.key FROM runs JOIN sweep_runs ON sweep_runs.key = runs.key "
        "WHERE sweep_runs.sweep = ? ORDER BY runs.rowid", (name,))]


def names(store: Store) -> list[str]:
    if not _has_tables(store.db):
        return []
    return [n for (n,) in store.db.execute("SELECT name FROM sweeps ORDER BY created_at")]


def sweeps(store: Store) -> pd.DataFrame:
    """One row per sweep: name, scenario, runs (stored now), shared (of them, runs another
    sweep also holds), set, grid, replications, created_at; then the untagged runs, if any."""
    import pandas as pd

    rows = []
    if _has_tables(store.db):
        for name, scenario, defn, created in store.db.execute(
                "SELECT name, scenario, definition, created_at FROM sweeps ORDER BY created_at"):
            d = json.loads(defn)
            keys = keys_of(store, name)
            shared = store.db.execute(
                "SELECT count(DISTINCT key) FROM sweep_runs WHERE sweep != ? AND key IN "
                "(SELECT key FROM sweep_runs WHERE sweep = ?)", (name, name)).fetchone()[0]
            rows.append({"sweep": name, "scenario": scenario, "runs": len(keys),
                         "shared": int(shared),
                         "set": " ".join(f"{k}={v}" for k, v in d.get("set", {}).items()),
                         "grid": " ".join(f"{k}={','.join(v)}"
                                          for k, v in d.get("grid", {}).items()),
                         "replications": d.get("replications"), "created_at": created})
        untagged = store.db.execute(
            "SELECT count(*) FROM runs WHERE key NOT IN (SELECT key FROM sweep_runs)"
        ).fetchone()[0]
    else:
        untagged = len(store)
    if untagged:
        rows.append({"sweep": UNTAGGED, "scenario": "", "runs": int(untagged), "shared": 0,
                     "set": "", "grid": "", "replications": None, "created_at": None})
    return pd.DataFrame(rows, columns=["sweep", "scenario", "runs", "shared", "set", "grid",
                                       "replications", "created_at"])


def only(store: Store, name: str) -> set[str]:
    """The keys of sweep ``name`` (``UNTAGGED``: of no sweep); a KeyError listing the sweeps
    for an unknown name."""
    if name == UNTAGGED:
        if not _has_tables(store.db):
            return {k for (k,) in store.db.execute("SELECT key FROM runs")}
        return {k for (k,) in store.db.execute(
            "SELECT key FROM runs WHERE key NOT IN (SELECT key FROM sweep_runs)")}
    known = names(store)
    if name not in known:
        raise KeyError(f"no sweep {name!r} in {store.path}; the sweeps are: "
                       + (", ".join(known) if known else "none"))
    return set(keys_of(store, name))


def delete(store: Store, name: str) -> tuple[int, int]:
    """Deletes sweep ``name`` (needs the writer lock): its tags, and the runs no other sweep
    holds. Returns (runs removed, runs kept because another sweep holds them). KeyError for an
    unknown sweep (``UNTAGGED`` cannot be deleted by name)."""
    from afsim.store import RUNS, StoreError

    if store.lock is None:
        raise StoreError(f"{store.path}: deleting a sweep needs the writer lock")
    mine = only(store, name) if name != UNTAGGED else None
    if mine is None:
        raise KeyError(f"{UNTAGGED} names the runs of no sweep; it cannot be deleted by name")
    db = store.db
    db.execute("BEGIN IMMEDIATE")
    try:
        others = {k for (k,) in db.execute(
            "SELECT DISTINCT key FROM sweep_runs WHERE sweep != ?", (name,))}
        gone = sorted(mine - others)
        db.execute("DELETE FROM sweep_runs WHERE sweep = ?", (name,))
        db.execute("DELETE FROM sweeps WHERE name = ?", (name,))
        for k in gone:
            db.execute("DELETE FROM scalars WHERE key = ?", (k,))
            db.execute("DELETE FROM runs WHERE key = ?", (k,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    for k in gone:
        shutil.rmtree(store.path / RUNS / k, ignore_errors=True)
    return len(gone), len(mine) - len(gone)
