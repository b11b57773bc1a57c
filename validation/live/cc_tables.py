"""The markdown tables of docs/validation.md's CUBIC/BBR sections from the committed JSON:
validation/live/cc-compare.json, cc-af-live.json (the AF network with the conditioner of before
issue 26's fix), cc-af-live-data.json (with the scenario's data-only one), bbr-af-options.json
and cc-linux-options.json (no runs).

    python validation/live/cc_tables.py

Each cell is "median (min–max)" over the live runs or the simulator's seeds; a difference
counts as a gap only where the two ranges do not overlap, by more than 1 % of the live median
(marked "≠").
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "validation" / "live"


def cell(s: dict | None, fmt: str) -> str:
    if s is None:
        return "–"
    if s["min"] == s["max"]:
        return format(s["median"], fmt)
    return f"{format(s['median'], fmt)} ({format(s['min'], fmt)}–{format(s['max'], fmt)})"


def apart(a: dict | None, b: dict | None) -> bool:
    """The two ranges are apart by more than 1 % of the first's median (rounding aside)."""
    if a is None or b is None:
        return False
    return max(b["min"] - a["max"], a["min"] - b["max"]) > 0.01 * abs(a["median"])


def spread(values: list) -> dict | None:
    v = [x for x in values if x is not None]
    return {"median": statistics.median(v), "min": min(v), "max": max(v)} if v else None


def pair(summary: dict, key: str, fmt: str) -> list[str]:
    s = summary[key]
    mark = " ≠" if apart(s["live"], s["sim"]) else ""
    return [cell(s["live"], fmt), cell(s["sim"], fmt) + mark]


def compare() -> None:
    rows = json.loads((LIVE / "cc-compare.json").read_text())["rows"]
    print("| cc | N | throughput (Mb/s) live | afsim | retransmissions live | afsim | drops live | afsim "
          "| mean RTT (ms) live | afsim | mean queue (pkt) live | afsim | Jain live | afsim "
          "| 1-min load during the live runs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        s = r["summary"]
        loads = [x for run in r["live_runs"] for x in (run["load_before"][0], run["load_after"][0])]
        print("| " + " | ".join([r["cc"], str(r["n"]), *pair(s, "throughput_mbps", ".2f"),
                                 *pair(s, "retransmissions", ".0f"), *pair(s, "drops", ".0f"),
                                 *pair(s, "rtt_mean_ms", ".1f"),
                                 *pair(s, "mean_queue_pkt", ".1f"), *pair(s, "jain", ".3f"),
                                 f"{min(loads):.1f}–{max(loads):.1f}"]) + " |")
    print()
    print("| cc | N | ACK gap, median (µs) live | afsim | ACKs < 50 µs apart live | afsim | bytes per ACK "
          "(median) live | afsim | lateness p50 / p99 (µs) live | forwarder SCHED_FIFO |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        s = r["summary"]
        rt = all(run["forwarder_realtime"] for run in r["live_runs"])
        print("| " + " | ".join([r["cc"], str(r["n"]), *pair(s, "ack_gap_median_us", ".0f"),
                                 *pair(s, "ack_bunched_share", ".4f"), *pair(s, "ack_acked_bytes_median", ".0f"),
                                 f"{cell(s['ack_lateness_p50_us']['live'], '.0f')} / "
                                 f"{cell(s['ack_lateness_p99_us']['live'], '.0f')}",
                                 "all runs" if rt else "not all"]) + " |")


def af(name: str = "cc-af-live.json") -> None:
    """The AF network's table: cc-af-live.json was made with the conditioner of before issue
    26's fix (ACKs metered too), cc-af-live-data.json with the scenario's data-only one."""
    p = LIVE / name
    if not p.exists():
        return
    d = json.loads(p.read_text())
    sp = d["spread"]
    loads = [x for run in d["live_runs"] for x in (run["load_before"][0], run["load_after"][0])]
    which = d.get("conditioner", "ACKs metered too (before issue 26's fix)")
    print(f"\ncc/af-mix ({name}; conditioner: {which}): {len(d['live_runs'])} live runs "
          f"(1-min load {min(loads):.1f}–{max(loads):.1f}), {len(d['sim'])} seeds\n")
    extra = [(k, h) for k, h in (("sim_linux_recovery", "afsim, delayed ACKs, rack, prr"),
                                 ("sim_linux_bbr", "afsim, delayed ACKs, rack, prr, BBR's Linux options"),
                                 ("sim_linux_growth", "… and Reno's and CUBIC's window growth as Linux's"),
                                 ("sim_linux_quick_acks", "… and Linux's quick ACKs at the start"))
             if k in sp]
    print("| per controller | live | afsim | afsim, delayed ACKs |" + "".join(f" {h} |" for _, h in extra))
    print("|---|---|---|---|" + "---|" * len(extra))

    def more(a: dict, k: str, fmt: str) -> str:
        return "".join(f" {cell(sp[c][k], fmt)}{' ≠' if apart(a, sp[c][k]) else ''} |" for c, _ in extra)

    for label, key, fmt in (("share of the bottleneck", "share", ".3f"), ("mean Respect of Service", "ros", ".3f"),
                            ("retransmissions per sender", "retx", ".0f")):
        for cc in ("reno", "cubic", "bbr"):
            k = f"{cc}.{key}"
            a, b, c = sp["live"][k], sp["sim"][k], sp["sim_delayed_ack"][k]
            print(f"| {label}: {cc} | {cell(a, fmt)} | {cell(b, fmt)}{' ≠' if apart(a, b) else ''} | "
                  f"{cell(c, fmt)}{' ≠' if apart(a, c) else ''} |" + more(a, k, fmt))
    for label, k, fmt in (("total throughput (Mb/s)", "throughput_mbps", ".2f"),
                          ("mean queue (pkt)", "mean_queue_pkt", ".1f"),
                          ("drops at the bottleneck", "drops", ".0f"),
                          ("green packets' mean size (B)", "green_packet_bytes", ".0f")):
        if k not in sp["live"]:
            continue
        a, b, c = sp["live"][k], sp["sim"][k], sp["sim_delayed_ack"][k]
        print(f"| {label} | {cell(a, fmt)} | {cell(b, fmt)}{' ≠' if apart(a, b) else ''} | "
              f"{cell(c, fmt)}{' ≠' if apart(a, c) else ''} |" + more(a, k, fmt))


def af_options() -> None:
    """bbr-af-options.json: BBR's Linux options one by one in the AF network (RACK, PRR and
    delayed ACKs everywhere), against the live runs of cc-af-live-data.json."""
    p = LIVE / "bbr-af-options.json"
    if not p.exists():
        return
    d = json.loads(p.read_text())
    lsp = json.loads((LIVE / "cc-af-live-data.json").read_text())["spread"]["live"]
    print(f"\ncc/af-mix (data metered), every sender {d['every sender']}; BBR's options "
          f"({len(d['variants'][0]['sim'])} seeds, {d['duration']}):\n")
    keys = (("bbr", "share", ".3f"), ("bbr", "retx", ".0f"), ("reno", "share", ".3f"), ("cubic", "share", ".3f"))
    print("| BBR's Linux options | BBR share | BBR retransmissions per sender | Reno share | CUBIC share |")
    print("|---|---|---|---|---|")
    print("| **Linux live** | " + " | ".join(cell(lsp[f"{c}.{k}"], f) for c, k, f in keys) + " |")
    for v in d["variants"]:
        cols = []
        for c, k, f in keys:
            s = spread([r[c][k] for r in v["sim"]])
            cols.append(cell(s, f) + (" ≠" if apart(lsp[f"{c}.{k}"], s) else ""))
        print(f"| {v['variant']} | " + " | ".join(cols) + " |")


def options() -> None:
    p = LIVE / "cc-linux-options.json"
    if not p.exists():
        return
    d = json.loads(p.read_text())
    # the live side from the live runs' own files (the options' file may predate them)
    live = {(r["cc"], r["n"]): {k: v["live"] for k, v in r["summary"].items()}
            for r in json.loads((LIVE / "cc-compare.json").read_text())["rows"]}
    af_spread = json.loads((LIVE / "cc-af-live.json").read_text())["spread"]["live"]
    print("\n| cc | N | afsim variant | mean queue (pkt) | mean RTT (ms) | retransmissions | drops | "
          "timeouts | Jain | bytes per ACK |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    last = None
    for r in d["dumbbell"]:
        ls = live.get((r["cc"], r["n"]), {})
        if (r["cc"], r["n"]) != last and ls:
            print(f"| {r['cc']} | {r['n']} | **Linux live** | {cell(ls['mean_queue_pkt'], '.1f')} | "
                  f"{cell(ls['rtt_mean_ms'], '.1f')} | {cell(ls['retransmissions'], '.0f')} | "
                  f"{cell(ls['drops'], '.0f')} | {cell(ls.get('timeouts'), '.0f')} | "
                  f"{cell(ls['jain'], '.3f')} | {cell(ls.get('ack_acked_bytes_median'), '.0f')} |")
            last = (r["cc"], r["n"])
        sims = r["sim"]
        cols = []
        for k, fmt in (("mean_queue_pkt", ".1f"), ("rtt_mean_ms", ".1f"), ("retransmissions", ".0f"),
                       ("drops", ".0f"), ("timeouts", ".0f"), ("jain", ".3f"), ("ack_acked_bytes_median", ".0f")):
            s = spread([m.get(k) for m in sims])
            cols.append(cell(s, fmt) + (" ≠" if apart(ls.get(k), s) else ""))
        print(f"| {r['cc']} | {r['n']} | {r['variant']} | " + " | ".join(cols) + " |")
    af_ = d["af_mix"]
    lsp = af_spread
    print("\n| cc/af-mix, BBR senders | mean RoS | share of the bottleneck | retransmissions per sender |")
    print("|---|---|---|---|")
    if lsp:
        print(f"| **live** | {cell(lsp['bbr.ros'], '.3f')} | {cell(lsp['bbr.share'], '.3f')} | "
              f"{cell(lsp['bbr.retx'], '.0f')} |")
    for v in af_["sim"]:
        cols = []
        for k, fmt in (("ros", ".3f"), ("share", ".3f"), ("retx", ".0f")):
            s = spread([m["bbr"][k] for m in v["sim"]])
            cols.append(cell(s, fmt) + (" ≠" if apart(lsp.get(f"bbr.{k}"), s) else ""))
        print(f"| {v['variant']} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    compare()
    af()
    af("cc-af-live-data.json")
    af_options()
    options()
