"""How Reno and CUBIC lose packets in the AF network's start-up, live and simulated (issue 26;
docs/validation.md, "Reno and CUBIC in the AF network": the start-up's retransmissions).

    sudo python validation/live/startup_split.py [--duration 11s] [--repeats 3] [--seeds 5]
        [--out validation/live/startup-split.json] [--figure validation/live/startup-split.png]
    python validation/live/startup_split.py --reuse-live      # the simulator again, no root

cc/af-mix (data metered) for DURATION: --repeats live runs (Linux's reno, cubic and bbr) and
--seeds simulated runs of the AF live table's last column (every receiver delaying ACKs, RACK-TLP
and PRR at every sender, BBR's Linux options, Linux's window growth on Reno and CUBIC:
cc_af_live.py's `sim_linux_growth`) with every sender traced. Per Reno and CUBIC sender, each
side: retransmissions (in all, and by --cut seconds: the start-up's), timeouts, fast recoveries, the largest window before the first
reduction and when it was reached; live also the host's TcpExt counters (HyStart's exits and
the window at them, fast and slow-start retransmissions, retransmissions lost again, loss
probes, undos); simulated also how the first slow start ended (a loss, or HyStart with no loss
before it). The first live run captures what reno0 and cubic0 receive (`--host-capture`) and
counts the ACKs at the start that acknowledge one segment each: Linux's quick ACKs
(cc_af_live.LINUX_QUICK_ACKS). The simulator runs twice: the column as it is, and with
`quick_acks` at every receiver. The figure: each CUBIC and Reno sender's window over the run,
live (first run) and simulated (first seed), both ways.
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
from ack_timing import acks
from bbr_af_options import RECOVERY
from cc_af_live import LINUX_CUBIC, LINUX_QUICK_ACKS, linux_bbr, with_byte_counting, with_cubic, with_quick_acks
from cc_compare import MSS_SIM, live_run

ROOT = Path(__file__).resolve().parents[2]
CCS = ("reno", "cubic")
#: every sender's row is kept (BBR's too: the start-up's drops are shared among all nine)
ALL = ("reno", "cubic", "bbr")
#: Linux's segment payload on these hosts (1500-byte MTU, TCP timestamps: 1500 − 52)
MSS_LINUX = 1448
#: the live hosts whose received packets the first run captures
CAPTURED = ("reno0", "cubic0")
#: TcpExt counters kept per live sender (Linux's names, /proc/net/netstat)
COUNTERS = ("TCPTimeouts", "TCPSackRecovery", "TCPLossProbes", "TCPLossProbeRecovery", "TCPFastRetrans",
            "TCPSlowStartRetrans", "TCPLostRetransmit", "TCPHystartTrainDetect", "TCPHystartTrainCwnd",
            "TCPHystartDelayDetect", "TCPHystartDelayCwnd", "TCPDSACKRecv", "TCPDSACKUndo", "TCPFullUndo",
            "TCPPartialUndo", "TCPLossUndo", "TCPSpuriousRTOs", "TCPSACKReorder")


def sim_text(quick_acks: bool = False) -> str:
    """cc/af-mix with the AF live table's Linux-growth column's options (and, if QUICK_ACKS,
    Linux's quick ACKs at every receiver) and a trace at every sender."""
    text = api.builtin_scenario("cc/af-mix").read_text().replace('start_step = "50ms"', RECOVERY)
    text = with_cubic(with_byte_counting(linux_bbr(text), CCS), LINUX_CUBIC)
    if quick_acks:
        text = with_quick_acks(text, LINUX_QUICK_ACKS)
    for cc in ("reno", "cubic", "bbr"):
        anchor = f'cc = "{cc}"\n'
        text = text.replace(anchor, anchor + "trace = true\n")
    return text


def quick_acks_at_start(pcap: Path) -> dict:
    """From a sender's own capture (its pure ACKs of data, oldest first): how many ACKs at the
    start acknowledge one segment each (Linux's quick ACKs; the first ACK of data counted as
    one, the capture holding no earlier ACK to measure it from) before the first that
    acknowledges anything else, and the segments each of the first 40 ACKs after the first
    acknowledged."""
    _, ack_numbers, _, _ = acks(pcap)
    per_ack = [round((b - a) / MSS_LINUX, 2) for a, b in zip(ack_numbers, ack_numbers[1:])]
    n = next((i for i, d in enumerate(per_ack) if d != 1.0), len(per_ack))
    return {"quick_acks": n + 1 if ack_numbers else None, "segments_per_ack": per_ack[:40]}


def first_peak(t: list[float], cwnd: list[float]) -> tuple[float, float]:
    """The largest window before the window first falls, and when (seconds)."""
    best = 0
    for i in range(1, len(cwnd)):
        if cwnd[i] < cwnd[i - 1]:
            break
        best = i
    return cwnd[best], t[best]


def live_rows(report: dict, cut_s: float) -> list[dict]:
    rows = []
    for f in report["flows"]:
        if f["group"] not in ALL:
            continue
        lv = f["live"]
        ser = lv.get("series", [])
        t = [s[0] for s in ser]
        w = [float(s[1]) for s in ser]
        peak, at = first_peak(t, w) if ser else (None, None)
        ns = lv.get("netstat", {})
        # retransmissions by CUT_S: the last sample at or before it (TCP_INFO every 100 ms)
        early = [s[4] for s in ser if len(s) > 4 and s[0] <= cut_s]
        rows.append({"flow": f["name"], "cc": f["group"], "retx": f["retransmitted_packets"],
                     "drops": f["packets_dropped"], "retx_early": early[-1] if early else None,
                     "timeouts": f["timeouts"], "fast_recoveries": f["fast_recoveries"],
                     "first_peak_cwnd": peak, "first_peak_s": at,
                     "netstat": {k: ns.get(k, 0) for k in COUNTERS},
                     "series": {"t": t, "cwnd": w, "retx": [s[4] if len(s) > 4 else None for s in ser]}})
    return rows


def run_length(duration: str) -> dict[str, str]:
    """The scenario's duration, and a warm-up of half of it when its own (10 s) would not fit
    (the warm-up changes only what the report measures over, not the run)."""
    secs = float(duration.removesuffix("s"))
    return {"duration": duration, **({"warmup": f"{secs / 2}s"} if secs <= 10 else {})}


def sim_run(text: str, duration: str, seed: int, cut_s: float) -> dict:
    """One simulated run: the bottleneck's drops and the Reno and CUBIC senders' rows."""
    s = api.load_scenario(text=text, name="af-mix.toml", overrides=run_length(duration))
    res = api._core.run(s, seed=seed)
    # the same run ended at CUT_S (its first CUT_S seconds are the same events)
    cut = api.load_scenario(text=text, name="af-mix.toml",
                            overrides={"duration": f"{cut_s}s", "warmup": f"{cut_s / 2}s"})
    early = {f["name"]: f["retransmitted_packets"]
             for f in json.loads(api._core.run(cut, seed=seed).summary_json())["flows"]}
    summ = json.loads(res.summary_json())
    traces = res.traces()
    rows = []
    for f in summ["flows"]:
        if f["group"] not in ALL:
            continue
        tr = traces[f["name"]]
        t = [round(float(x), 4) for x in tr["time_s"]]
        w = [float(x) / MSS_SIM for x in tr["cwnd"]]
        ss = [float(x) for x in tr["ssthresh"]]
        peak, at = first_peak(t, w)
        # how the first slow start ended: ssthresh first set (finite) while cwnd did not fall in
        # the same record is HyStart; the window falling with it is a loss
        exit_how, exit_cwnd = None, None
        for i in range(1, len(t)):
            if ss[i] != ss[i - 1]:
                exit_how = "hystart" if w[i] >= w[i - 1] else "loss"
                exit_cwnd = w[i - 1]
                break
        rows.append({"flow": f["name"], "cc": f["group"], "retx": f["retransmitted_packets"],
                     "drops": f["packets_dropped"], "retx_early": early[f["name"]],
                     "timeouts": f["timeouts"], "fast_recoveries": f["fast_recoveries"],
                     "first_peak_cwnd": round(peak, 2), "first_peak_s": at,
                     "ss_exit": exit_how, "ss_exit_cwnd": None if exit_cwnd is None else round(exit_cwnd, 2),
                     # the figure's (the first seed's) only, every record up to 2000
                     **({"series": {"t": t[::max(1, len(t) // 2000)],
                                    "cwnd": [round(x, 2) for x in w[::max(1, len(t) // 2000)]]}}
                        if seed == 1 else {})})
    drops = next(q["drops_total"] for q in summ["queues"] if q["name"] == "edge->core")
    return {"seed": seed, "drops": drops, "flows": rows}


def cell(xs: list[float]) -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "–"
    return f"{statistics.median(xs):.1f} ({min(xs):.1f}–{max(xs):.1f})"


SIMS = (("sim", "afsim, Linux growth (the AF live table's column)"),
        ("sim_quick_acks", f"afsim, and quick_acks = {LINUX_QUICK_ACKS}"))


def table(res: dict) -> str:
    caps = res["live"][0].get("captures", {}) if res["live"] else {}
    out = ["live quick ACKs at the start (sender captures, run 1): "
           + ", ".join(f"{h} {c['quick_acks']}" for h, c in caps.items()),
           f"bottleneck drops per run: live {cell([r['drops'] for r in res['live']])}, "
           + ", ".join(f"{name} {cell([r['drops'] for r in res[name]])}" for name, _ in SIMS)]
    for cc in ALL:
        lv = [r for run in res["live"] for r in run["flows"] if r["cc"] == cc]
        out.append(f"{cc}: per sender, median (min–max); live {len(lv)} senders")
        for k in ("retx", "retx_early", "drops", "timeouts", "fast_recoveries", "first_peak_cwnd"):
            out.append(f"  {k:16} live {cell([r[k] for r in lv])}")
            for name, label in SIMS:
                sm = [r for run in res[name] for r in run["flows"] if r["cc"] == cc]
                out.append(f"  {'':16} {label}: {cell([r[k] for r in sm])}")
        for flow in sorted({r["flow"] for r in lv}):
            for k in ("retx", "retx_early", "drops"):
                line = f"  {flow} {k}: live {cell([r[k] for r in lv if r['flow'] == flow])}"
                for name, _ in SIMS:
                    line += f", {name} " + cell([r[k] for run in res[name] for r in run["flows"]
                                                 if r["flow"] == flow])
                out.append(line)
        for k in COUNTERS:
            xs = [r["netstat"][k] for r in lv]
            if any(xs):
                out.append(f"  live {k:24} {cell(xs)}")
        for name, label in SIMS:
            sm = [r for run in res[name] for r in run["flows"] if r["cc"] == cc]
            exits = [r["ss_exit"] for r in sm]
            out.append(f"  {label}: slow-start exits hystart {exits.count('hystart')}, loss {exits.count('loss')}, "
                       f"none {exits.count(None)}; window at exit {cell([r['ss_exit_cwnd'] for r in sm])}")
    return "\n".join(out)


def figure(res: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sides = (("live", "Linux (live run 1)"), ("sim", "afsim (seed 1)"),
             ("sim_quick_acks", f"afsim, quick_acks = {LINUX_QUICK_ACKS} (seed 1)"))
    fig, axes = plt.subplots(2, 3, figsize=(14, 6), sharex=True, sharey="row")
    for row, cc in enumerate(CCS):
        for col, (side, label) in enumerate(sides):
            ax = axes[row][col]
            for r in res[side][0]["flows"]:
                if r["cc"] == cc:
                    ax.plot(r["series"]["t"], r["series"]["cwnd"], lw=0.8, label=r["flow"])
            ax.set_title(f"{cc}, {label}", fontsize=9)
            ax.set_ylabel("cwnd (segments)")
            ax.legend(fontsize=7)
    for ax in axes[1]:
        ax.set_xlabel("time since the run's start (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default="11s")
    ap.add_argument("--repeats", type=int, default=3, help="live runs")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "startup-split.json")
    ap.add_argument("--figure", type=Path, default=ROOT / "validation" / "live" / "startup-split.png")
    ap.add_argument("--cut", type=float, default=2.0,
                    help="seconds: retransmissions up to here are the start-up's (retx_early)")
    ap.add_argument("--reuse-live", action="store_true", help="keep --out's live runs; the simulator only")
    args = ap.parse_args()
    res: dict = {"scenario": "cc/af-mix", "duration": args.duration, "cut_s": args.cut, "live": []}
    if args.reuse_live:
        res["live"] = json.loads(args.out.read_text())["live"]
    else:
        scen = str(api.builtin_scenario("cc/af-mix"))
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.repeats):
                # the first run captures what the first Reno and CUBIC senders receive: their ACKs
                caps = [f"{h}={tmp}/{h}.pcap" for h in CAPTURED] if k == 0 else []
                s, cond = live_run(scen, *[a for k, v in run_length(args.duration).items()
                                           for a in ("--set", f"{k}={v}")],
                                   *[a for c in caps for a in ("--host-capture", c)])
                run = {"conditions": cond, "drops": next(q["drops_total"] for q in s["queues"]
                                                         if q["name"] == "edge->core"),
                       "flows": live_rows(s, args.cut)}
                if caps:
                    run["captures"] = {h: quick_acks_at_start(Path(tmp) / f"{h}.pcap") for h in CAPTURED}
                res["live"].append(run)
                print(f"live {k + 1}/{args.repeats}: load {cond['load_before'][0]} -> {cond['load_after'][0]}",
                      flush=True)
    for name, quick in (("sim", False), ("sim_quick_acks", True)):
        text = sim_text(quick)
        res[name] = [sim_run(text, args.duration, seed, args.cut) for seed in range(1, args.seeds + 1)]
    args.out.write_text(json.dumps(res) + "\n")
    figure(res, args.figure)
    print(table(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
