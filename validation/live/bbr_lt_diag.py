"""afsim BBR's bandwidth estimates in the AF network with Linux's loss recovery (issue 26):
per BBR sender, the share of the time (after the 10 s warm-up) it paces at the long-term
(policer) rate, the median BtlBw and the median bandwidth it uses, the share of the time in
loss recovery and at ProbeBW's pacing gain 5/4, from a diagnostic that is not in the tree (validation/live/bbr-lt-diag.patch:
one eprintln per round start in `Bbr::on_ack`, behind AFSIM_BBR_LT_DIAG).

    git apply validation/live/bbr-lt-diag.patch
    CARGO_TARGET_DIR=target cargo build --release -p afsim-core --example run_file
    git apply -R validation/live/bbr-lt-diag.patch
    PYTHONPATH=python python validation/live/bbr_lt_diag.py target/release/examples/run_file

cc/af-mix as it is, every receiver delaying ACKs and every sender with RACK-TLP and PRR, the BBR
senders with all five Linux options and with all but `policer_detection`; seeds 1–5, 40 s.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import afsim

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bbr_af_options import RECOVERY
from cc_af_live import BBR_LINUX, linux_bbr

WARM = 10.0


def summarise(err: str) -> dict:
    rows: dict[str, list] = collections.defaultdict(list)
    for line in err.splitlines():
        if line.startswith("BBRLT"):
            _, fid, t, btlbw, bw, lt, gain, _cwnd, _mode, rec = line.split()
            rows[fid].append((float(t), float(btlbw), float(bw), int(lt), int(rec), float(gain)))
    flows = []
    for v in rows.values():
        # each round start's state holds until the next one: weights by that time
        span = [(b[0] - a[0], a) for a, b in zip(v, v[1:]) if a[0] >= WARM]
        tot = sum(d for d, _ in span)
        flows.append({"lt_time": sum(d for d, r in span if r[3]) / tot,
                      "recovery_time": sum(d for d, r in span if r[4]) / tot,
                      # ProbeBW's 5/4 phase (Linux's `ss` shows pacing_gain; bbr_state_live.py)
                      "gain_1.25_time": sum(d for d, r in span if r[5] == 1.25) / tot,
                      "btlbw_mbps": statistics.median(r[1] for _, r in span) / 1e6,
                      "bw_mbps": statistics.median(r[2] for _, r in span) / 1e6})
    return {"flows": flows}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_file", type=Path, help="afsim-core's run_file example built with the patch")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "bbr-lt-diag.json")
    args = ap.parse_args()
    base = afsim.builtin_scenario("cc/af-mix").read_text().replace('start_step = "50ms"', RECOVERY)
    variants = [("all five", BBR_LINUX), ("all but policer_detection",
                                          tuple(o for o in BBR_LINUX if o != "policer_detection"))]
    out: dict = {"scenario": "cc/af-mix, every sender delayed_ack, rack, prr", "duration": "40s",
                 "units": "shares of the time after 10 s; payload Mb/s", "variants": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, opts in variants:
            text = linux_bbr(base, opts)
            assert text.count("\nseed = 1\n") == 1
            runs = []
            for seed in range(1, args.seeds + 1):
                f = Path(tmp) / "s.toml"
                f.write_text(text.replace("\nseed = 1\n", f"\nseed = {seed}\n"))
                p = subprocess.run([str(args.run_file), str(f), "duration=40s"], capture_output=True,
                                   text=True, env=dict(os.environ, AFSIM_BBR_LT_DIAG="1"), check=True)
                if "BBRLT" not in p.stderr:
                    raise SystemExit("no BBRLT lines: build run_file with validation/live/bbr-lt-diag.patch")
                runs.append(summarise(p.stderr))
            out["variants"].append({"variant": name, "runs": runs})
            print(name, json.dumps([[{k: round(v, 3) for k, v in fl.items()} for fl in r["flows"]] for r in runs]),
                  flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
