"""Compares two outputs of ``afsim reproduce`` (two --out folders) for identity, leaving out
what differs between any two invocations: wall and engine times (``wall_seconds``,
``engine_seconds*``, each run's ``wall_s``, the times in report.md's "runs:" lines) and the
figures' creation dates and per-process element ids.

    python3 tools/compare_reproductions.py /tmp/before-leung /tmp/after-leung

Prints one line per file (``same`` or what differs) and exits 1 if any differs. For checking
that a restructuring of afsim/reproduce changed no output: run the same reproduction before
and after (same build, same options, e.g. ``--quick --no-robustness --ns2 committed``) into two
folders and compare them.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

#: results.json keys whose values are times of this invocation, at any depth.
TIME_KEYS = {"wall_seconds", "engine_seconds", "engine_seconds_simulated", "wall_s"}


def _drop_times(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _drop_times(v) for k, v in x.items() if k not in TIME_KEYS}
    if isinstance(x, list):
        return [_drop_times(v) for v in x]
    return x


def normalised(path: Path) -> str | bytes:
    """The file's content with this invocation's times left out."""
    if path.name == "results.json":
        return json.dumps(_drop_times(json.loads(path.read_text(encoding="utf-8"))), sort_keys=True, indent=1)
    if path.suffix == ".md":
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"(in|took) [\d.,]+ (?:s|min|h) of wall time", r"\1 … of wall time", text)
        return re.sub(r"took [\d.,]+ (?:s|min|h) of engine time", "took … of engine time", text)
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        if rows and "wall_s" in rows[0]:
            k = rows[0].index("wall_s")
            rows = [r[:k] + r[k + 1:] for r in rows]
        return "\n".join(",".join(r) for r in rows)
    if path.suffix == ".svg":
        text = re.sub(r"<dc:date>[^<]*</dc:date>", "", path.read_text(encoding="utf-8"))
        # matplotlib names clip paths (p…) and markers (m…) by a hash salted per process: number them in
        # order of appearance instead
        names: dict[str, str] = {}
        return re.sub(r"\b([mp][0-9a-f]{10})\b", lambda m: names.setdefault(m.group(1), f"p{len(names)}"), text)
    return path.read_bytes()


def compare(a: Path, b: Path, *, png: bool = False) -> list[str]:
    """One line per file of either folder; a line not ending in 'same' is a difference."""
    names = sorted({p.name for p in a.iterdir() if p.is_file()} | {p.name for p in b.iterdir() if p.is_file()})
    out = []
    for name in names:
        pa, pb = a / name, b / name
        if not pa.exists() or not pb.exists():
            out.append(f"{name}: only in {a if pa.exists() else b}")
        elif name.endswith(".png") and not png:
            continue  # raster bytes carry the library's metadata; the SVGs say the same
        elif normalised(pa) != normalised(pb):
            out.append(f"{name}: DIFFERS")
        else:
            out.append(f"{name}: same")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines = compare(Path(args[0]), Path(args[1]))
    differ = [x for x in lines if not x.endswith(": same")]
    for x in lines:
        print(x)
    print(f"{len(lines) - len(differ)} of {len(lines)} files the same" + (f"; {len(differ)} differ" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
