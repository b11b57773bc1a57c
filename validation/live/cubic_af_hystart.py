"""CUBIC's slow start in the AF network's Linux-options column (issue 26): cc/af-mix (data
metered), every receiver delaying ACKs, every sender with RACK-TLP and PRR, BBR's five Linux
options on its senders (cc_af_live.py's last column), and CUBIC's `hystart` off (the column as
it is), `true` (HyStart++, RFC 9406) or `"linux"` (Linux tcp_cubic.c's HyStart, which Linux
runs by default) — docs/validation.md, "Reno and CUBIC in the AF network". Simulator only; the
live side is cc-af-live-data.json's.

    PYTHONPATH=python python validation/live/cubic_af_hystart.py [--seeds 5] [--duration 40s]

Writes validation/live/cubic-af-hystart.json (per variant, cc_af_live.summary of every seed)
and prints per variant the median and range of the Reno and CUBIC shares and retransmissions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bbr_af_options import RECOVERY, sim_seeds
from cc_af_live import linux_bbr, with_cubic

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = (("hystart off (as the column)", None), ("hystart = true (HyStart++)", "true"),
            ('hystart = "linux"', '"linux"'))


def with_hystart(text: str, value: str | None) -> str:
    """cc/af-mix's text with `hystart = value` on its CUBIC senders."""
    return text if value is None else with_cubic(text, f"hystart = {value}\n")


def cell(xs: list[float], fmt: str) -> str:
    return f"{statistics.median(xs):{fmt}} ({min(xs):{fmt}}–{max(xs):{fmt}})"


def per_controller(runs: list[dict]) -> str:
    """Each controller's share and retransmissions per sender over RUNS (median and range)."""
    return ", ".join(f"{cc} share {cell([r[cc]['share'] for r in runs], '.3f')} "
                     f"retx {cell([r[cc]['retx'] for r in runs], '.0f')}" for cc in ("reno", "cubic", "bbr"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="40s")
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "cubic-af-hystart.json")
    args = ap.parse_args()
    base = linux_bbr(api.builtin_scenario("cc/af-mix").read_text().replace('start_step = "50ms"', RECOVERY))
    out: dict = {"scenario": "cc/af-mix", "duration": args.duration,
                 "every sender": "delayed_ack, rack, prr; BBR's five Linux options", "variants": []}
    for name, value in VARIANTS:
        text = with_hystart(base, value)
        runs = sim_seeds(text, args.seeds, args.duration)
        out["variants"].append({"variant": name, "hystart": value, "sim": runs})
        print(f"{name}: {per_controller(runs)}", flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
