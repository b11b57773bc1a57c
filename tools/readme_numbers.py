"""Writes README.md's table of the committed reproductions from their results.json, so that its
numbers cannot drift from the runs they come from.

    python3 tools/readme_numbers.py          # rewrite the table between the markers
    python3 tools/readme_numbers.py --check  # exit 1 if README.md's table is not what it writes

The table sits between ``<!-- reproductions:begin -->`` and ``<!-- reproductions:end -->``;
everything else in README.md is left as it is. python/tests/test_readme.py runs ``--check``'s
comparison in the suite.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN, END = "<!-- reproductions:begin -->", "<!-- reproductions:end -->"

#: The papers, in the README's order: (folder under docs/reproductions, how the README names
#: the paper and what it is about).
PAPERS = (
    ("giacomazzi", "Giacomazzi, Musumeci, Verticale: TCP over AF, enhanced token bucket and CSA"),
    ("laatu", "Laatu, Harju, Loula: SIMA on a Linux testbed"),
    ("leung", "Leung & Muppala: ECN with RIO, OUT marking, throughput sustaining"),
    ("gtfrc", "Jourjon, Lochin, Dairaine: gTFRC"),
)


def _hours(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def row(folder: str, label: str) -> str:
    doc = json.loads((ROOT / "docs" / "reproductions" / folder / "results.json").read_text(encoding="utf-8"))
    hold = doc["claims_hold"]
    a, n = hold["afsim"], hold["null"]
    sa, sn = doc["scores"]["afsim"], doc["scores"]["null"]
    ns2 = hold.get("ns2")
    # "–" where ns-2 can decide no claim (Giacomazzi's: every row needs a mechanism ns-2 lacks)
    ns2_text = f"{ns2['hold']} of {ns2['evaluated']}" if ns2 and ns2["evaluated"] else "–"
    return (f"| [{label}](docs/reproductions/{folder}/README.md) | {a['hold']} of {a['evaluated']} "
            f"| {n['hold']} of {n['evaluated']} | {ns2_text} "
            f"| {sa['match']} of {sa['match'] + sa['miss']} | {sn['match']} of {sn['match'] + sn['miss']} "
            f"| {doc['runs_total']:,} | {_hours(doc['engine_seconds'])} |")


def table() -> str:
    lines = [
        "| paper | claims that hold: afsim | null model | ns-2 | published values matched: afsim | null model | runs | engine time (sum over runs) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *(row(folder, label) for folder, label in PAPERS),
    ]
    return "\n".join(lines)


def render(readme: str) -> str:
    """``readme`` with the table between the markers replaced by ``table()``."""
    i, j = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:i] + "\n" + table() + "\n" + readme[j:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md differs, write nothing")
    args = ap.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = render(text)
    if args.check:
        if new != text:
            print("README.md's reproductions table is not what tools/readme_numbers.py writes: "
                  "run python3 tools/readme_numbers.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
