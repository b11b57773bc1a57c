"""afsim BBR's own estimates in the four-flow dumbbell, beside Linux's (bbr_state_live.py):
each sender's bandwidth estimate (BtlBw), RTprop and cwnd at every round start, printed by a
diagnostic that is not in the tree (validation/live/bbr-diag.patch: one eprintln in
`Bbr::on_ack`, behind AFSIM_BBR_DIAG), summarised per flow (medians after 5 s).

    git apply validation/live/bbr-diag.patch
    CARGO_TARGET_DIR=target cargo build --release -p afsim-core --example run_file
    git apply -R validation/live/bbr-diag.patch
    python validation/live/bbr_diag.py target/release/examples/run_file [--out validation/live/bbr-state-sim.json]
    python validation/live/bbr_diag.py target/release/examples/run_file --af   # bbr-state-sim-af.json

Variants: draft-00, all three Linux options, and those with delayed ACKs; seeds 1–5. --af: the
AF network cc/af-mix (its three BBR senders; 40 s, after 10 s), draft-00 and delayed ACKs.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
OPTS = ["ack_aggregation = true", "quantization_budget = true", "policer_detection = true"]
VARIANTS = [("draft-00", []), ("all three Linux options", OPTS),
            ("delayed ACKs + all three Linux options", ["delayed_ack = true", *OPTS])]


def summarise(err: str, warm: float = 5.0) -> dict:
    rows: dict[str, list] = collections.defaultdict(list)
    for line in err.splitlines():
        if line.startswith("BBRDIAG"):
            _, fid, t, bw, rt, cw, _mode = line.split()
            if float(t) >= warm:
                rows[fid].append((float(bw), float(rt), float(cw)))
    flows = [{"btlbw_mbps": statistics.median(r[0] for r in v) / 1e6,
              "rtprop_ms": statistics.median(r[1] for r in v) * 1e3,
              "cwnd": statistics.median(r[2] for r in v)} for _, v in sorted(rows.items())]
    return {"flows": flows, "sum_btlbw_mbps": sum(f["btlbw_mbps"] for f in flows)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_file", type=Path, help="afsim-core's run_file example built with the patch")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--af", action="store_true", help="the AF network (cc/af-mix)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.af:
        from af_mix_variants import ack_metered

        import afsim

        # the conditioner of before issue 26's fix (ACKs metered too), as bbr-state-*-af.json
        base_text = ack_metered(Path(afsim.builtin_scenario("cc/af-mix")).read_text())
        name, warm, argv = "cc/af-mix (ACKs metered, before issue 26's fix)", 10.0, []
        variants = [("draft-00", []), ("delayed ACKs", ["delayed_ack = true"])]
    else:
        base_text, name, warm = SCEN.read_text(), str(SCEN.relative_to(ROOT)), 5.0
        argv, variants = ["cc=bbr", "n=4"], VARIANTS
    args.out = args.out or ROOT / "validation" / "live" / ("bbr-state-sim-af.json" if args.af else "bbr-state-sim.json")
    out = {"scenario": name, "units": "btlbw: payload Mb/s; rtprop ms; cwnd segments", "variants": []}
    with tempfile.TemporaryDirectory() as tmp:
        for vname, fields in variants:
            scen = Path(tmp) / "s.toml"
            base = base_text
            assert base.count("\nseed = 1\n") == 1, f"{name}: one 'seed = 1' line expected"
            if args.af:
                # delayed ACKs at every receiver, as cc_af_live.py does; nothing else appended
                for x in fields:
                    base = base.replace('start_step = "50ms"', f'start_step = "50ms"\n{x}')
                fields = []
            runs = []
            for seed in range(1, args.seeds + 1):
                # run_file has no --seed: the scenario's own seed line
                scen.write_text(base.replace("\nseed = 1\n", f"\nseed = {seed}\n")
                                + "".join(f"{x}\n" for x in fields))
                p = subprocess.run([str(args.run_file), str(scen), *argv],
                                   capture_output=True, text=True, env=dict(os.environ, AFSIM_BBR_DIAG="1"))
                if "BBRDIAG" not in p.stderr:
                    raise SystemExit("no BBRDIAG lines: build run_file with validation/live/bbr-diag.patch")
                runs.append(summarise(p.stderr, warm))
            out["variants"].append({"variant": vname, "runs": runs})
            print(vname, json.dumps([{"sum": round(r["sum_btlbw_mbps"], 2),
                                     "rtprop": [round(f["rtprop_ms"], 2) for f in r["flows"]],
                                     "cwnd": [f["cwnd"] for f in r["flows"]]} for r in runs]), flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
