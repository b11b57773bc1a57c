#!/usr/bin/env python3
"""Instructions of a callgrind profile summed by source file, inlined code counted where it
was written (issue 28: what the event queue costs, all of it inlined into the event loop).

    valgrind --tool=callgrind --callgrind-out-file=OUT RUN_FILE SCENARIO.toml [key=value ...]
    python3 tools/callgrind_by_file.py OUT [--top N]

callgrind_annotate sums by function, and a function there is what the compiler left of it:
`World::run` holds the event queue, the dispatch and most of the packet path. Here every cost
line counts for the file its line belongs to: the `fl=` of its function, or the `fi=`/`fe=`
file of the inlined code it came from. A call's cost line (after `calls=`), the callee's
inclusive cost, is left out, so each instruction is counted once. Prints the share, the
count and the file, largest first.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys

#: `fl=(3) /path` defines file 3 (compressed names); `fl=(3)` refers to it later.
NAME = re.compile(r"\((\d+)\)(?:\s+(.*))?")


def by_file(lines: list[str]) -> collections.Counter[str]:
    names: dict[str, str] = {}

    def name(spec: str) -> str:
        m = NAME.match(spec)
        if not m:
            return spec
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), spec)

    cost: collections.Counter[str] = collections.Counter()
    fl: str | None = None
    fi: str | None = None
    after_calls = False
    for line in lines:
        if line.startswith("fl="):
            fl, fi = name(line[3:].strip()), None
        elif line.startswith(("fi=", "fe=")):
            fi = name(line[3:].strip())
        elif line.startswith("fn="):
            fi = None
        elif line.startswith(("cfl=", "cfi=")):
            name(line[4:].strip())  # (defines a compressed name the later lines may use)
        elif line.startswith("calls="):
            after_calls = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if after_calls:  # the call's inclusive cost
                after_calls = False
                continue
            parts = line.split()
            if len(parts) >= 2 and (fi or fl):
                cost[fi or fl or "?"] += int(parts[1])
    return cost


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profile", help="a callgrind.out file (callgrind's default events: Ir)")
    ap.add_argument("--top", type=int, default=40, help="files shown (default 40)")
    args = ap.parse_args(argv)
    try:
        with open(args.profile, encoding="utf-8", errors="replace") as f:
            cost = by_file(f.read().splitlines())
    except OSError as e:
        print(f"{args.profile}: {e.strerror or e}", file=sys.stderr)
        return 2
    total = sum(cost.values())
    if total == 0:
        print(f"{args.profile}: no cost lines (not a callgrind profile?)", file=sys.stderr)
        return 2
    print(f"{total:,} instructions")
    for path, n in cost.most_common(args.top):
        print(f"{100 * n / total:6.2f} % {n:>14,}  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
