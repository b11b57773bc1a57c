"""The table of docs/reproductions/giacomazzi/readings/README.md, from that folder's results.json:
Table 2's CSA rows and Table 3's AF_PHB_1 RoS with the internal router's CSA, under the default
and every named variant (means; ✓ within the paper's precision, ✗ not).

    python validation/giacomazzi/readings_table.py [RESULTS_JSON]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "docs/reproductions/giacomazzi/readings/results.json"


def cell(x: dict | None) -> str:
    if not x or x.get("value") is None:
        return "–"
    m = x["value"]["mean"]
    mark = {"match": " ✓", "miss": " ✗"}.get(x.get("verdict"), "")
    return f"{m:,.1f}{mark}" if abs(m) >= 10 else f"{m:.2f}{mark}"


def main(argv: list[str]) -> int:
    r = json.loads(Path(argv[0] if argv else DEFAULT).read_text())
    variants = [v["id"] for v in r["variants"]]
    print("| row | column | paper | afsim | " + " | ".join(variants) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(variants))
    for v in r["values"]:
        t2 = (v["table"] == "Table 2" and v["row"].startswith("Variable")
              and v["metric"] in ("throughput_kbps", "ros_pct"))
        t3 = (v["table"] == "Table 3" and "AF_PHB_1" in v["row"] and "CSA applied" in v["row"]
              and v["metric"].endswith("ros_pct"))
        if t2 or t3:
            print(f"| {v['table']}: {v['row']} | {v['column']} | {v['paper']:,} | {cell(v['afsim'])} | "
                  + " | ".join(cell((v.get("variants") or {}).get(k)) for k in variants) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
