"""Which of Giacomazzi et al.'s claims move under each named variant (reading), against the
default, from a reproduction's results.json (docs/reproductions/giacomazzi/README.md,
"Claims that move under each reading"; docs/assumptions.md, the named variants).

    python validation/giacomazzi/claims_moved.py [RESULTS_JSON]

Prints a markdown table: per variant, the claims it can evaluate that hold under it and under
the default, and the claims that start or stop holding under it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "docs/reproductions/giacomazzi/results.json"


def main(argv: list[str]) -> int:
    r = json.loads(Path(argv[0] if argv else DEFAULT).read_text())
    claims = [s for s in r["statements"] if s["class"] == "claim"]
    print("| variant | claims it evaluates | hold under it | hold under the default | start holding | stop holding |")
    print("|---|---:|---:|---:|---|---|")
    for v in r["variants"]:
        vid = v["id"]
        ev = [c for c in claims if (c.get("variants") or {}).get(vid, {}).get("holds") is not None
              and c.get("afsim", {}).get("holds") is not None]
        held = [c for c in ev if c["variants"][vid]["holds"]]
        base = [c for c in ev if c["afsim"]["holds"]]
        start = [c["id"] for c in ev if c["variants"][vid]["holds"] and not c["afsim"]["holds"]]
        stop = [c["id"] for c in ev if not c["variants"][vid]["holds"] and c["afsim"]["holds"]]
        print(f"| `{vid}` | {len(ev)} | {len(held)} | {len(base)} | "
              f"{', '.join(f'`{x}`' for x in start) or '–'} | {', '.join(f'`{x}`' for x in stop) or '–'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
