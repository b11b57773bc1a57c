"""RACK-TLP (RFC 8985, the TCP field `rack = true`) and PRR (RFC 6937, `prr = true`) in the
simulated side of the CUBIC/BBR comparisons against Linux (docs/validation.md, "RACK-TLP in
the model", "PRR in the model"; issue 26).

    python validation/live/rack_sim.py [--seeds 5] [--out validation/live/rack-sim.json]
    python validation/live/rack_sim.py --table    # docs/validation.md's tables from the JSON

No live run: the Linux side is the committed JSON (cc-linux-options.json's four-flow CUBIC
rows, cc-compare-cubic4-recovery.json's TcpExt counters, cc-af-live.json, and
af-mix-recovery-live.json's counters). The simulator runs, with and without `rack = true` on
every TCP flow, and with `rack = true` and `prr = true` together, --seeds seeds each of
- the four-flow CUBIC dumbbell (scenarios/examples/cc-dumbbell.toml, 30 s, `hystart = linux`),
  with and without the receivers' delayed ACKs (`delayed_ack = true`), as cc_linux_options.py
  runs it;
- the AF network (cc/af-mix, 40 s), with and without delayed ACKs, as cc_af_live.py runs it.
Per run: the dumbbell's metrics (cc_compare.metrics: throughput, retransmissions, timeouts,
fast recoveries, queue, drops) and the AF network's (cc_af_live.summary, plus each
controller's mean timeouts and fast recoveries per sender); then median, minimum and maximum.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from af_mix_variants import ack_metered
from cc_af_live import summary
from cc_compare import SCEN as DUMBBELL
from cc_compare import afsim, metrics

import afsim as api

ROOT = HERE.parents[1]
KEYS = ("throughput_mbps", "jain", "retransmissions", "timeouts", "fast_recoveries", "mean_queue_pkt", "drops")


def af_summary(s: dict) -> dict:
    out = summary(s)
    for cc in ("reno", "cubic", "bbr"):
        fl = [f for f in s["flows"] if f["group"] == cc]
        out[cc]["timeouts"] = sum(f["timeouts"] or 0 for f in fl) / len(fl)
        out[cc]["fast_recoveries"] = sum(f["fast_recoveries"] or 0 for f in fl) / len(fl)
    return out


def flat(d: dict, pre: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{pre}{k}."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[f"{pre}{k}"] = v
    return out


def spread(runs: list[dict]) -> dict:
    fl = [flat(r) for r in runs]
    return {k: {"median": statistics.median(f[k] for f in fl), "min": min(f[k] for f in fl),
                "max": max(f[k] for f in fl)} for k in fl[0]}


def with_fields(text: str, anchor: str, fields: list[str]) -> str:
    """`fields` added to every flow table, after the line `anchor` each has."""
    assert anchor in text, anchor
    return text.replace(anchor, "\n".join([anchor, *fields]))


def rng(s: dict, k: str, fmt: str = ".0f") -> str:
    lo, hi = format(s[k]["min"], fmt), format(s[k]["max"], fmt)
    return lo if lo == hi else f"{lo}–{hi}"


def label(r: dict) -> str:
    return (f"afsim{', delayed ACKs' if r['delayed_ack'] else ''}{', rack' if r['rack'] else ''}"
            f"{', prr' if r.get('prr') else ''}")


# (rack, prr) per receiver setting: RFC 6675 alone, RACK-TLP, RACK-TLP with PRR
VARIANTS = ((False, False), (True, False), (True, True))


def table(path: Path) -> None:
    """Markdown tables: each simulated row's range over the seeds beside the live range."""
    d = json.loads(path.read_text())
    live = ROOT / "validation" / "live"
    opts = json.loads((live / "cc-linux-options.json").read_text())["dumbbell"]
    lv = next(r for r in opts if r["cc"] == "cubic" and r["n"] == 4
              and r["variant"] == "hystart = linux + delayed ACKs")["live_spread"]
    rec = json.loads((live / "cc-compare-cubic4-recovery.json").read_text())["rows"][0]["summary"]
    print("| four-flow CUBIC, 30 s | retransmissions | timeouts | fast recoveries | drops | Jain |")
    print("|---|---|---|---|---|---|")
    print(f"| Linux, 5 runs | {rng({'r': lv['retransmissions']}, 'r')} | – | – | {rng({'d': lv['drops']}, 'd')} "
          f"| {rng({'j': lv['jain']}, 'j', '.3f')} |")
    print(f"| Linux, 3 runs with TcpExt counters | {rng({'r': rec['retransmissions']['live']}, 'r')} "
          f"| {rng({'t': rec['timeouts']['live']}, 't')} | {rng({'f': rec['fast_recoveries']['live']}, 'f')} "
          f"| {rng({'d': rec['drops']['live']}, 'd')} | {rng({'j': rec['jain']['live']}, 'j', '.3f')} |")
    for r in d["dumbbell"]:
        s = r["spread"]
        name = label(r)
        print(f"| {name} | {rng(s, 'retransmissions')} | {rng(s, 'timeouts')} | {rng(s, 'fast_recoveries')} "
              f"| {rng(s, 'drops')} | {rng(s, 'jain', '.3f')} |")
    af = json.loads((live / "cc-af-live.json").read_text())["spread"]["live"]
    cnt = json.loads((live / "af-mix-recovery-live.json").read_text())["flows"]
    to = {cc: [f["timeouts"] for f in cnt if f["group"] == cc] for cc in ("reno", "cubic", "bbr")}
    print()
    print("| AF network, 40 s | bottleneck Mb/s | queue (pkt) | timeouts per sender: Reno, CUBIC, BBR "
          "| RoS: Reno, CUBIC, BBR | share: Reno, CUBIC, BBR | retransmissions per sender: Reno, CUBIC, BBR |")
    print("|---|---|---|---|---|---|---|")
    print(f"| Linux, 5 runs | {rng(af, 'throughput_mbps', '.2f')} | {rng(af, 'mean_queue_pkt', '.1f')} "
          f"| {', '.join(f'{min(v)}–{max(v)}' for v in to.values())} (one run) "
          f"| {', '.join(rng(af, f'{c}.ros', '.3f') for c in to)} | {', '.join(rng(af, f'{c}.share', '.3f') for c in to)} "
          f"| {', '.join(rng(af, f'{c}.retx') for c in to)} |")
    for r in d["af_mix"]:
        s = r["spread"]
        name = label(r)
        print(f"| {name} | {rng(s, 'throughput_mbps', '.2f')} | {rng(s, 'mean_queue_pkt', '.1f')} "
              f"| {', '.join(rng(s, f'{c}.timeouts') for c in to)} | {', '.join(rng(s, f'{c}.ros', '.3f') for c in to)} "
              f"| {', '.join(rng(s, f'{c}.share', '.3f') for c in to)} | {', '.join(rng(s, f'{c}.retx') for c in to)} |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "rack-sim.json")
    ap.add_argument("--table", action="store_true", help="print the tables of --out and stop")
    args = ap.parse_args()
    if args.table:
        table(args.out)
        return 0
    seeds = range(1, args.seeds + 1)
    out: dict = {"seeds": args.seeds, "dumbbell": [], "af_mix": []}
    with tempfile.TemporaryDirectory() as tmp:
        scen = Path(tmp) / "scen.toml"
        for delack in (False, True):
            for rack, prr in VARIANTS:
                fields = ((["delayed_ack = true"] if delack else []) + (["rack = true"] if rack else [])
                          + (["prr = true"] if prr else []))
                # the dumbbell's flow table is the file's last
                scen.write_text(DUMBBELL.read_text() + "".join(f"{x}\n" for x in fields))
                runs = [metrics(afsim("run", str(scen), "--set", "cc=cubic", "--set", "n=4",
                                      "--set", "hystart=linux", "--seed", str(k))) for k in seeds]
                runs = [{k: r[k] for k in KEYS} for r in runs]
                row = {"cc": "cubic", "n": 4, "hystart": "linux", "delayed_ack": delack, "rack": rack,
                       "prr": prr, "sim": runs, "spread": spread(runs)}
                out["dumbbell"].append(row)
                print("dumbbell", label(row), json.dumps(row["spread"]), flush=True)
        # the conditioner of before issue 26's fix (ACKs metered too), as the live runs compared
        af = ack_metered(api.builtin_scenario("cc/af-mix").read_text())
        for delack in (False, True):
            for rack, prr in VARIANTS:
                fields = ((["delayed_ack = true"] if delack else []) + (["rack = true"] if rack else [])
                          + (["prr = true"] if prr else []))
                scen.write_text(with_fields(af, 'start_step = "50ms"', fields))
                runs = [af_summary(afsim("run", str(scen), "--set", "duration=40s", "--seed", str(k)))
                        for k in seeds]
                row = {"delayed_ack": delack, "rack": rack, "prr": prr, "sim": runs, "spread": spread(runs)}
                out["af_mix"].append(row)
                print("af-mix", label(row), json.dumps(row["spread"]), flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
