"""The AF experiment's network (scenario cc/af-mix: Reno, CUBIC and BBR senders, a token
bucket each, RIO-C) live and simulated, per controller (docs/validation.md, "CUBIC and BBR:
afsim against Linux").

    sudo python validation/live/cc_af_live.py [--duration 40s] [--repeats 5] [--seeds 5]
        [--out validation/live/cc-af-live-data.json]
    sudo python validation/live/cc_af_live.py --ack-metered    # validation/live/cc-af-live.json

The scenario as it is (each token bucket on its sender's input line: data only), or with
--ack-metered its conditioner of before issue 26's fix, which metered the receivers' ACKs too
(af_mix_variants.py; cc-af-live.json was made so).

--repeats live runs (Linux's reno, cubic and bbr, as the scenario's `cc` fields say; each with
the load average before and after it and whether the forwarder ran under SCHED_FIFO), --seeds
simulator seeds, the simulator once more with delayed ACKs at every receiver (Linux's
receivers delay ACKs; the scenario's do not), and once more with RACK-TLP and PRR at every
sender as well (`rack`, `prr`: Linux's loss recovery), and once more with BBR's Linux options on
the BBR senders as well (`linux_bbr`: the five options that model Linux's tcp_bbr.c), and once more
with Linux's window growth on the Reno and CUBIC senders as well (`byte_counting`, Linux's
tcp_cong.c; CUBIC's `reno_friendly = "linux"` and `hystart = "linux"`, tcp_cubic.c;
af_byte_counting.py), and once more with every receiver's quick ACKs at the start as well
(`quick_acks`, tcp_input.c's quick-ACK mode; startup_split.py). --reuse-live
keeps --out's live runs and
runs only the simulator. Per controller: its share of the bottleneck,
its senders' mean Respect of Service and retransmissions; the bottleneck's mean queue, drops
and total throughput; "spread" gives each one's median, minimum and maximum per side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from af_mix_variants import ack_metered
from cc_compare import afsim

ROOT = Path(__file__).resolve().parents[2]


#: afsim BBR's options that model Linux's tcp_bbr.c (docs/scenario-format.md)
BBR_LINUX = ("ack_aggregation", "quantization_budget", "policer_detection", "tso_bursts", "recovery_losses")


def linux_bbr(text: str, options: tuple[str, ...] = BBR_LINUX) -> str:
    """cc/af-mix's text with `options` on its BBR senders (the [[flow]] with cc = "bbr")."""
    anchor = 'cc = "bbr"\n'
    assert text.count(anchor) == 1, "cc/af-mix: one BBR flow table expected"
    return text.replace(anchor, anchor + "".join(f"{o} = true\n" for o in options))


def with_byte_counting(text: str, ccs: tuple[str, ...]) -> str:
    """cc/af-mix's text with `byte_counting = true` on the senders of the controllers CCS."""
    for cc in ccs:
        anchor = f'cc = "{cc}"\n'
        assert text.count(anchor) == 1, f"cc/af-mix: one {cc} flow table expected"
        text = text.replace(anchor, anchor + "byte_counting = true\n")
    return text


#: CUBIC's Reno-friendly region and slow start as Linux's tcp_cubic.c (docs/scenario-format.md)
LINUX_CUBIC = 'reno_friendly = "linux"\nhystart = "linux"\n'


#: Linux's quick ACKs at a connection's start on this project's hosts (Linux 6.18, tcp_rmem's
#: default 131072): every receiver's first 22 ACKs of data acknowledge one segment each
#: (startup_split.py measures it from the senders' own captures; docs/assumptions.md)
LINUX_QUICK_ACKS = 22


def with_quick_acks(text: str, n: int = LINUX_QUICK_ACKS) -> str:
    """The text with `quick_acks = n` wherever a flow table delays ACKs."""
    anchor = "delayed_ack = true\n"
    assert anchor in text, "quick ACKs need delayed ACKs"
    return text.replace(anchor, anchor + f"quick_acks = {n}\n")


def with_cubic(text: str, lines: str) -> str:
    """cc/af-mix's text with LINES added to its CUBIC flow table."""
    anchor = 'cc = "cubic"\n'
    assert text.count(anchor) == 1, "cc/af-mix: one CUBIC flow table expected"
    return text.replace(anchor, anchor + lines)


def summary(s: dict) -> dict:
    tot = sum(f["throughput_kbps"] for f in s["flows"])
    q = next(q for q in s["queues"] if q["name"] == "edge->core")
    out: dict = {"throughput_mbps": tot / 1e3, "mean_queue_pkt": q["mean_len_packets"],
                 "drops": q["drops_total"]}
    # the green packets' mean size: 1500 B when the buckets meter data alone, less with ACKs
    green = sum(c["green_packets"] for c in s["conditioners"])
    if green:
        out["green_packet_bytes"] = sum(c["green_bytes"] for c in s["conditioners"]) / green
    for cc in ("reno", "cubic", "bbr"):
        fl = [f for f in s["flows"] if f["group"] == cc]
        out[cc] = {"share": sum(f["throughput_kbps"] for f in fl) / tot,
                   "ros": sum(f["respect_of_service"] for f in fl) / len(fl),
                   "retx": sum(f["retransmitted_packets"] or 0 for f in fl) / len(fl)}
    return out


def flat(s: dict) -> dict:
    """A summary's numbers as one level: "bbr.ros", "mean_queue_pkt", ..."""
    out = {}
    for k, v in s.items():
        if isinstance(v, dict):
            out.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        elif isinstance(v, (int, float)):
            out[k] = v
    return out


def spread(runs: list[dict]) -> dict:
    """Per number of the summaries: median, minimum and maximum over the runs."""
    fl = [flat(r) for r in runs]
    return {k: {"median": statistics.median(f[k] for f in fl), "min": min(f[k] for f in fl),
                "max": max(f[k] for f in fl)} for k in fl[0]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default="40s")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5, help="live runs")
    ap.add_argument("--ack-metered", action="store_true",
                    help="the conditioner of before issue 26's fix (ACKs metered too)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--reuse-live", action="store_true",
                    help="keep --out's live runs (no root needed) and run the simulator again")
    args = ap.parse_args()
    args.out = args.out or ROOT / "validation" / "live" / (
        "cc-af-live.json" if args.ack_metered else "cc-af-live-data.json")
    tmpdir = tempfile.TemporaryDirectory()
    scen = api.builtin_scenario("cc/af-mix")
    if args.ack_metered:
        text = ack_metered(scen.read_text())
        scen = Path(tmpdir.name) / "af-mix-ack-metered.toml"
        scen.write_text(text)
    sets = ["--set", f"duration={args.duration}"]
    from cc_compare import live_run

    res: dict = {"scenario": "cc/af-mix", "duration": args.duration,
                 "conditioner": "ACKs metered too (before issue 26's fix)" if args.ack_metered
                 else "each sender's input line (data only)", "live_runs": []}
    if args.reuse_live:
        res["live_runs"] = json.loads(args.out.read_text())["live_runs"]
    for k in range(0 if args.reuse_live else args.repeats):
        s, cond = live_run(str(scen), *sets)
        res["live_runs"].append({**summary(s), **cond})
        print(f"live {k + 1}/{args.repeats}:", json.dumps(summary(s)), "load", cond["load_before"][0],
              "->", cond["load_after"][0], flush=True)
    # the first run's, as before (validation/live/cc_linux_options.py reads it)
    res["live"] = res["live_runs"][0]
    # the simulated columns, each the one before with more of Linux's behaviour
    delack = scen.read_text().replace('start_step = "50ms"', 'start_step = "50ms"\ndelayed_ack = true')
    # Linux's loss recovery at every sender as well (RACK-TLP and PRR)
    recovery = delack.replace("delayed_ack = true", "delayed_ack = true\nrack = true\nprr = true")
    # BBR as Linux's: its Linux options on the BBR senders (bbr_af_options.py separates them)
    bbr = linux_bbr(recovery)
    # Linux's window growth on the Reno and CUBIC senders: counted by segments, CUBIC's
    # Reno-friendly region and HyStart as Linux's (af_byte_counting.py separates them)
    growth = with_cubic(with_byte_counting(bbr, ("reno", "cubic")), LINUX_CUBIC)
    columns = {"sim": scen.read_text(), "sim_delayed_ack": delack, "sim_linux_recovery": recovery,
               "sim_linux_bbr": bbr, "sim_linux_growth": growth,
               # Linux's receivers' quick ACKs at the start (startup_split.py)
               "sim_linux_quick_acks": with_quick_acks(growth)}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in columns.items():
            f = Path(tmp) / f"af-mix-{name}.toml"
            f.write_text(text)
            res[name] = [summary(afsim("run", str(f), *sets, "--seed", str(k))) for k in range(1, args.seeds + 1)]
    res["spread"] = {"live": spread([{k: v for k, v in r.items() if k in ("throughput_mbps", "mean_queue_pkt", "drops",
                                                                          "green_packet_bytes", "reno", "cubic", "bbr")}
                                      for r in res["live_runs"]]),
                     **{name: spread(res[name]) for name in columns}}
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    for name in columns:
        for r in res[name]:
            print(name, json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
