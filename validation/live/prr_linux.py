"""PRR as RFC 6937 or as Linux's (`prr = "linux"`: PRR-SSRB's extra segment only on an ACK that
advances SND.UNA and marks nothing newly lost, Linux's `tcp_cwnd_reduction` and RFC 9937) in the
AF live table's seventh column (cc/af-mix, data metered; delayed ACKs with Linux's quick ACKs,
RACK-TLP and PRR at every sender, BBR's Linux options, Linux's window growth on Reno and CUBIC):
the bottleneck's drops per sender in the first 2 s (startup_split.py's start-up) and the
controllers' shares and retransmissions over 40 s, five seeds each (docs/validation.md, "Reno
and CUBIC in the AF network: Linux's quick ACKs at the start"). Simulator only; the live side
is startup-split-2s.json's and cc-af-live-data.json's.

    PYTHONPATH=python python validation/live/prr_linux.py    # validation/live/prr-linux.json
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bbr_af_options import sim_seeds
from startup_split import sim_run, sim_text

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    base = sim_text(True)
    out: dict = {"scenario": "cc/af-mix", "variants": []}
    for name, text in (("prr = true (RFC 6937)", base), ('prr = "linux"', base.replace("prr = true", 'prr = "linux"'))):
        early = [sim_run(text, "2s", seed, 2.0) for seed in range(1, 6)]
        drops: dict[str, list[int]] = {}
        for r in early:
            for f in r["flows"]:
                drops.setdefault(f["flow"], []).append(f["drops"])
        runs = sim_seeds(text.replace("trace = true\n", ""), 5, "40s")
        out["variants"].append({"variant": name, "drops_2s": drops, "bottleneck_drops_2s": [r["drops"] for r in early],
                                "runs_40s": runs})
        print(name, "first 2 s, drops per sender (median of 5 seeds):",
              {k: statistics.median(v) for k, v in sorted(drops.items())},
              "bottleneck", statistics.median(r["drops"] for r in early))
        print(name, "40 s:", {cc: {"share": round(statistics.median(r[cc]["share"] for r in runs), 3),
                                   "retx": round(statistics.median(r[cc]["retx"] for r in runs), 1)}
                              for cc in ("reno", "cubic", "bbr")})
    (ROOT / "validation" / "live" / "prr-linux.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
