"""The simulated side of docs/validation.md's CUBIC/BBR comparison again, with the Linux
options of afsim's BBR (`ack_aggregation`, `quantization_budget`, `policer_detection`,
`tso_bursts`), RACK-TLP and PRR (`rack`, `prr`, every flow) and
CUBIC (`hystart = "linux"` beside RFC 9406's `"rfc9406"`), beside the committed live runs (issue 26's open differences).

    python validation/live/cc_linux_options.py [--seeds 5] [--out validation/live/cc-linux-options.json]

Simulator only (no root needed): cc-dumbbell (BBR and CUBIC, 1 and 4 flows) and cc/af-mix,
each with the options added to the TCP flows' tables, --seeds seeds each. The live numbers
are read from the committed validation/live/cc-compare.json and cc-af-live.json: each row's
median and range over its live runs ("live_spread"; the first run as "live").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from af_mix_variants import ack_metered
from cc_af_live import afsim, summary
from cc_compare import ack_metrics, metrics

ROOT = Path(__file__).resolve().parents[2]
DUMBBELL = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
AGGR = ["ack_aggregation = true"]
QUANT = ["quantization_budget = true"]
LT = ["policer_detection = true"]
DELACK = ["delayed_ack = true"]
TSO = ["tso_bursts = true"]
RACK = ["rack = true"]
PRR = ["prr = true"]
# (controller, flows, variant name, extra fields of the TCP flow or --set arguments)
DUMBBELL_RUNS = [
    ("bbr", 4, "draft-00", []),
    ("bbr", 4, "ack_aggregation", AGGR),
    ("bbr", 4, "quantization_budget", QUANT),
    ("bbr", 4, "ack_aggregation + quantization_budget", AGGR + QUANT),
    ("bbr", 4, "all three Linux options", AGGR + QUANT + LT),
    ("bbr", 4, "delayed ACKs", DELACK),
    ("bbr", 4, "delayed ACKs + ack_aggregation + quantization_budget", DELACK + AGGR + QUANT),
    ("bbr", 4, "delayed ACKs + all three Linux options", DELACK + AGGR + QUANT + LT),
    ("bbr", 4, "delayed ACKs + the three + tso_bursts", DELACK + AGGR + QUANT + LT + TSO),
    ("bbr", 4, "delayed ACKs + the three + tso_bursts + rack", DELACK + AGGR + QUANT + LT + TSO + RACK),
    ("bbr", 1, "draft-00", []),
    ("bbr", 1, "all three Linux options", AGGR + QUANT + LT),
    ("bbr", 1, "delayed ACKs + the three + tso_bursts", DELACK + AGGR + QUANT + LT + TSO),
    ("cubic", 1, "RFC 5681 slow start", []),
    ("cubic", 1, "hystart = rfc9406", ["--set", "hystart=rfc9406"]),
    ("cubic", 1, "hystart = linux", ["--set", "hystart=linux"]),
    ("cubic", 1, "hystart = linux + delayed ACKs", ["--set", "hystart=linux", *DELACK]),
    ("cubic", 4, "RFC 5681 slow start", []),
    ("cubic", 4, "hystart = rfc9406", ["--set", "hystart=rfc9406"]),
    ("cubic", 4, "hystart = linux", ["--set", "hystart=linux"]),
    ("cubic", 4, "hystart = linux + delayed ACKs", ["--set", "hystart=linux", *DELACK]),
]
AF_RUNS = [
    ("draft-00", []),
    ("policer_detection", LT),
    ("all three Linux options", AGGR + QUANT + LT),
    ("delayed ACKs", DELACK),
    ("delayed ACKs + policer_detection", DELACK + LT),
    ("delayed ACKs + all three Linux options", DELACK + AGGR + QUANT + LT),
    ("delayed ACKs + the three + tso_bursts", DELACK + AGGR + QUANT + LT + TSO),
    ("delayed ACKs + the three + tso_bursts + rack + prr", DELACK + AGGR + QUANT + LT + TSO + RACK + PRR),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "cc-linux-options.json")
    args = ap.parse_args()
    rows = json.loads((ROOT / "validation/live/cc-compare.json").read_text())["rows"]
    live = {(r["cc"], r["n"]): r["live"] for r in rows}
    live_spread = {(r["cc"], r["n"]): {k: v["live"] for k, v in r.get("summary", {}).items()} for r in rows}
    af = json.loads((ROOT / "validation/live/cc-af-live.json").read_text())
    af_live = af["live"]
    out: dict = {"dumbbell": [], "af_mix": {"live": af_live, "live_spread": af.get("spread", {}).get("live"),
                                            "sim": []}}
    with tempfile.TemporaryDirectory() as tmp:
        for cc, n, name, extra in DUMBBELL_RUNS:
            scen = Path(tmp) / "dumbbell.toml"
            # the flow table is the file's last: the fields go to it; "--set", "K=V" pairs are
            # scenario parameters
            sets, fields, it = [], [], iter(extra)
            for x in it:
                if x == "--set":
                    sets += [x, next(it)]
                else:
                    fields.append(x)
            scen.write_text(DUMBBELL.read_text() + "".join(f"{x}\n" for x in fields))
            sims = []
            for k in range(1, args.seeds + 1):
                # the first sender's ACKs as they reach it (validation/live/ack_timing.py)
                acap = Path(tmp) / "r1-src0.pcap"
                s = afsim("run", str(scen), "--set", f"cc={cc}", "--set", f"n={n}", *sets,
                          "--seed", str(k), "--capture", f"r1->src0={acap}")
                sims.append({**metrics(s), **ack_metrics(acap)})
            lv = {k: v for k, v in live[(cc, n)].items() if k not in ("series", "rate_t", "rate_mbps")}
            out["dumbbell"].append({"cc": cc, "n": n, "variant": name, "fields": extra, "live": lv,
                                    "live_spread": live_spread[(cc, n)], "sim": sims})
            print(cc, n, name, "| live q", round(lv["mean_queue_pkt"], 1), "rtt", round(lv["rtt_mean_ms"], 1),
                  "retx", lv["retransmissions"], "| sim",
                  ", ".join(f"q {m['mean_queue_pkt']:.1f} rtt {m['rtt_mean_ms']:.1f} retx {m['retransmissions']}"
                            f" thr {m['throughput_mbps']:.2f}" for m in sims), flush=True)
        # the conditioner of before issue 26's fix (ACKs metered too), as the live runs of
        # cc-af-live.json that these rows are compared with
        af = ack_metered(api.builtin_scenario("cc/af-mix").read_text())
        bbr_flow = 'cc = "bbr"'
        assert af.count(bbr_flow) == 1, "cc/af-mix: one BBR flow table expected"
        for name, extra in AF_RUNS:
            text = af
            for x in extra:
                if x in ("delayed_ack = true", "rack = true", "prr = true"):
                    # every receiver (as cc_af_live.py does) or every sender (Linux's all recover so)
                    text = text.replace('start_step = "50ms"', f'start_step = "50ms"\n{x}')
                else:  # the BBR senders only
                    text = text.replace(bbr_flow, f"{bbr_flow}\n{x}")
            scen = Path(tmp) / "af-mix.toml"
            scen.write_text(text)
            sims = [summary(afsim("run", str(scen), "--set", "duration=40s", "--seed", str(k)))
                    for k in range(1, args.seeds + 1)]
            out["af_mix"]["sim"].append({"variant": name, "fields": extra, "sim": sims})
            print("af-mix", name, "| live bbr ros", round(af_live["bbr"]["ros"], 3), "share",
                  round(af_live["bbr"]["share"], 3), "| sim",
                  ", ".join(f"ros {s['bbr']['ros']:.3f} share {s['bbr']['share']:.3f} retx {s['bbr']['retx']:.0f}"
                            for s in sims), flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
