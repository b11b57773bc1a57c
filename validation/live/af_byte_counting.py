"""Reno's and CUBIC's window growth in the AF network's Linux-options column (issue 26): cc/af-mix
(data metered), every receiver delaying ACKs, every sender with RACK-TLP and PRR, BBR's five
Linux options on its senders (cc_af_live.py's last column), and the Reno and CUBIC senders'
window growth counted by ACKs (RFC 5681, the column as it is) or by segments acknowledged as
Linux counts it (`byte_counting = true`, net/ipv4/tcp_cong.c), then with CUBIC's Reno-friendly
region and slow start as Linux's as well (`reno_friendly = "linux"`, `hystart = "linux"`,
net/ipv4/tcp_cubic.c) — docs/validation.md, "Reno and CUBIC in the AF network: window growth
as Linux's". Simulator only; the live side is
cc-af-live-data.json's.

    PYTHONPATH=python python validation/live/af_byte_counting.py [--seeds 5] [--duration 40s]

Writes validation/live/af-byte-counting.json (per variant, cc_af_live.summary of every seed)
and prints per variant the median and range of each controller's share and retransmissions,
beside the live runs'.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bbr_af_options import RECOVERY, sim_seeds
from cc_af_live import LINUX_CUBIC, linux_bbr, with_byte_counting, with_cubic
from cubic_af_hystart import per_controller

ROOT = Path(__file__).resolve().parents[2]
#: (name, the controllers whose senders get `byte_counting = true`)
VARIANTS = (("ACKs counted (as the column)", (), ""), ("byte_counting on Reno", ("reno",), ""),
            ("byte_counting on CUBIC", ("cubic",), ""), ("byte_counting on Reno and CUBIC", ("reno", "cubic"), ""),
            ("… and CUBIC's reno_friendly = \"linux\"", ("reno", "cubic"), 'reno_friendly = "linux"\n'),
            ("… and CUBIC's hystart = \"linux\" (all of Linux's growth)", ("reno", "cubic"),
             LINUX_CUBIC))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="40s")
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "af-byte-counting.json")
    args = ap.parse_args()
    base = linux_bbr(api.builtin_scenario("cc/af-mix").read_text().replace('start_step = "50ms"', RECOVERY))
    live = json.loads((ROOT / "validation" / "live" / "cc-af-live-data.json").read_text())["live_runs"]
    out: dict = {"scenario": "cc/af-mix", "duration": args.duration,
                 "every sender": "delayed_ack, rack, prr; BBR's five Linux options", "variants": []}
    print(f"live (Linux): {per_controller(live)}", flush=True)
    for name, ccs, cubic in VARIANTS:
        runs = sim_seeds(with_cubic(with_byte_counting(base, ccs), cubic), args.seeds, args.duration)
        out["variants"].append({"variant": name, "byte_counting": list(ccs), "cubic": cubic, "sim": runs})
        print(f"{name}: {per_controller(runs)}", flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
