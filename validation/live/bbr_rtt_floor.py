"""Where Linux BBR's min_rtt comes from in the live dumbbell: the fabric's round trip against
the model's path, the receiver's turnaround, and what Linux itself reports (docs/validation.md,
"BBR with four flows: the min_rtt floor"; issue 26).

    python validation/live/bbr_rtt_floor.py [--n 1 4] [--repeats 5] [--duration 20s]
        [--out validation/live/bbr-rtt-floor.json]        # root: live runs, about 5 min
    python validation/live/bbr_rtt_floor.py --sim         # the simulator's loop, 5 seeds each

Each run is `afsim live` of scenarios/examples/cc-dumbbell.toml with N BBR flows and four
records of flow 0 (src0 -> dst0):
- `--capture src0->r1`: each data segment as the forwarder took it from the sender (its
  model instant, i.e. when the forwarder read it);
- `--host-capture dst0`: each data segment as it reached the receiver's stack (kernel time
  stamps in dst0's namespace);
- `--capture dst0->r2`: each ACK as the forwarder took it from the receiver;
- `--host-capture src0`: each ACK as it reached the sender's stack;
and `ss -tin` in every sender's namespace every 0.25 s (Linux BBR's `mrtt`, its min_rtt).
Per ACK of new data after --skip s, for the segment it acknowledges last (its end sequence
number; segments sent once only):
- loop = ACK at src0's stack − that segment at the forwarder's ingress: the round trip the
  fabric gives, with the receiver in it but not the sender's own stack;
- turnaround = ACK at the forwarder's ingress − that segment at dst0's stack: the receiver's
  share (its stack, its delayed-ACK decision, the forwarder's read);
- the model's floor for the same segment: 44 ms of propagation and the serialisations of the
  segment (1500 B: 0.12 + 1.2 + 0.12 ms) and of its ACK on the three links.
- forward = that segment at dst0's stack − at the forwarder's ingress, less its 22 ms and
  serialisations; reverse = the ACK at src0's stack − at the forwarder's ingress, likewise.
Reported per run: the minimum, 1st and 10th percentiles and median of loop − floor and of
turnaround (ms), and each flow's last `mrtt` − the floor of a full segment (ms); the 1-minute
load before and after, and whether the forwarder ran under SCHED_FIFO.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCEN = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
sys.path.insert(0, str(HERE))
from bbr_state_live import namespaces, sample

NS_RE = re.compile(r"^(afl[0-9a-f]{6}-)src0\b")
PROP_S = 2 * (1e-3 + 20e-3 + 1e-3)
RATES = (100e6, 10e6, 100e6)


LINUX = ["delayed_ack = true", "ack_aggregation = true", "quantization_budget = true",
         "policer_detection = true"]
SIM_VARIANTS = [("draft-00", []), ("delayed ACKs + the three Linux options", LINUX),
                ("delayed ACKs + the three Linux options + tso_bursts", LINUX + ["tso_bursts = true"])]


def floor_s(data_bytes: int, ack_bytes: int) -> float:
    """The model's round trip without queueing for a segment of data_bytes and its ACK."""
    return PROP_S + sum(8 * (data_bytes + ack_bytes) / r for r in RATES)


def tcp_records(path: Path) -> list[tuple[float, int, int, int, int]]:
    """(time s, seq, end seq, ack, IP length) of every TCP packet in a pcap (ns or µs stamps)."""
    data = path.read_bytes()
    scale = 1e-9 if struct.unpack_from("<I", data, 0)[0] == 0xA1B23C4D else 1e-6
    at, out = 24, []
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, at)
        pkt = data[at + 16:at + 16 + incl]
        at += 16 + incl
        if len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            continue
        ihl = (pkt[0] & 15) * 4
        total = struct.unpack_from(">H", pkt, 2)[0]
        thl = (pkt[ihl + 12] >> 4) * 4
        seq, ack = struct.unpack_from(">II", pkt, ihl + 4)
        payload = total - ihl - thl
        out.append((sec + frac * scale, seq, seq + payload, ack if pkt[ihl + 13] & 0x10 else -1, total))
    return out


def q(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def summary(xs: list[float]) -> dict:
    return {"n": len(xs), "min": min(xs), "p01": q(xs, 0.01), "p10": q(xs, 0.10),
            "median": statistics.median(xs)} if xs else {"n": 0}


def analyse(d: Path, skip: float) -> dict:
    ingress = tcp_records(d / "s2r.pcap")
    at_dst = tcp_records(d / "dst0.pcap")
    ack_out = tcp_records(d / "d2r.pcap")
    at_src = tcp_records(d / "src0.pcap")
    t0 = ingress[0][0]
    data_in: dict[int, tuple[float, int]] = {}
    seen: dict[int, int] = {}
    for t, s, e, _, ln in ingress:
        if e > s:
            seen[e] = seen.get(e, 0) + 1
            data_in.setdefault(e, (t, ln))
    once = {e for e, k in seen.items() if k == 1}
    dst_in = {e: t for t, s, e, _, _ in at_dst if e > s and e in once}
    ack_fwd: dict[int, tuple[float, int]] = {}
    for t, s, e, a, ln in ack_out:
        if e == s and a >= 0:
            ack_fwd.setdefault(a, (t, ln))
    loop, turn, fwd, rev = [], [], [], []
    for t, s, e, a, ln in at_src:
        if e != s or a not in once or t - t0 < skip:
            continue
        sent, dlen = data_in[a]
        loop.append((t - sent - floor_s(dlen, ln)) * 1e3)
        if a in ack_fwd:
            # the ACK's way back: forwarder ingress at dst0 -> src0's stack, less 22 ms and its
            # serialisations
            rev.append((t - ack_fwd[a][0] - PROP_S / 2 - sum(8 * ln / r for r in RATES)) * 1e3)
    for a, (t, _) in ack_fwd.items():
        if a in dst_in and dst_in[a] - t0 >= skip:
            turn.append((t - dst_in[a]) * 1e3)
            sent, dlen = data_in[a]
            # the data's way: forwarder ingress at src0 -> dst0's stack, less 22 ms and its
            # serialisations
            fwd.append((dst_in[a] - sent - PROP_S / 2 - sum(8 * dlen / r for r in RATES)) * 1e3)
    return {"loop_minus_floor_ms": summary(loop), "turnaround_ms": summary(turn),
            "forward_minus_floor_ms": summary(fwd), "reverse_minus_floor_ms": summary(rev)}


def sim_loop(n: int, fields: list[str], seed: int, duration: str, skip: float) -> dict:
    """The same loop in `afsim run` (the model's instants): each data segment at src0->r1's
    departure, its ACK's arrival at src0 (r1->src0's departure + 1 ms + its serialisation),
    for the segments ACKs acknowledge last (dst0->r2's ACK numbers); less the floor."""
    from cc_compare import afsim

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        scen = d / "scen.toml"
        scen.write_text(SCEN.read_text() + "".join(f"{x}\n" for x in fields))
        afsim("run", str(scen), "--set", "cc=bbr", "--set", f"n={n}", "--set", f"duration={duration}",
              "--seed", str(seed), "--capture", f"src0->r1={d / 's2r.pcap'}",
              "--capture", f"r1->src0={d / 'r2s.pcap'}")
        ingress = tcp_records(d / "s2r.pcap")
        t0 = ingress[0][0]
        seen: dict[int, int] = {}
        data_in: dict[int, tuple[float, int]] = {}
        for t, s0, e, _, ln in ingress:
            if e > s0:
                seen[e] = seen.get(e, 0) + 1
                data_in.setdefault(e, (t, ln))
        loop = []
        for t, s0, e, a, ln in tcp_records(d / "r2s.pcap"):
            if e == s0 and seen.get(a) == 1 and t - t0 >= skip:
                arrive = t + 1e-3 + 8 * ln / RATES[0]
                sent, dlen = data_in[a]
                loop.append((arrive - sent - floor_s(dlen, ln)) * 1e3)
        return summary(loop)


def one_run(n: int, duration: str, skip: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        before = namespaces()
        load0 = os.getloadavg()
        cmd = [sys.executable, "-m", "afsim", "live", str(SCEN), "--set", "cc=bbr", "--set", f"n={n}",
               "--set", f"duration={duration}", "--cc", "bbr", "--format", "json",
               "--capture", f"src0->r1={d / 's2r.pcap'}", "--capture", f"dst0->r2={d / 'd2r.pcap'}",
               "--host-capture", f"dst0={d / 'dst0.pcap'}", "--host-capture", f"src0={d / 'src0.pcap'}"]
        run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        prefix = None
        while prefix is None and run.poll() is None:
            for ns in namespaces() - before:
                m = NS_RE.match(ns)
                if m:
                    prefix = m.group(1)
            time.sleep(0.02)
        mrtt: dict[int, list] = {k: [] for k in range(n)}

        def poll() -> None:
            while run.poll() is None:
                for k in range(n):
                    smp = sample(f"{prefix}src{k}")
                    if smp:
                        mrtt[k].append(smp["mrtt_ms"])
                time.sleep(0.25)

        th = threading.Thread(target=poll, daemon=True)
        th.start()
        out, err = run.communicate()
        th.join(timeout=5)
        if run.returncode != 0:
            raise SystemExit(f"afsim live failed: {err}")
        s = json.loads(out)
        full = floor_s(1500, 52) * 1e3
        res = {"n": n, "load_before": load0, "load_after": os.getloadavg(),
               "forwarder_realtime": s["live"]["forwarder"]["realtime"],
               "mean_queue_pkt": next(x for x in s["queues"] if x["name"] == "r1->r2")["mean_len_packets"],
               "floor_ms": full,
               "mrtt_last_minus_floor_ms": [round(v[-1] - full, 3) if v else None for v in mrtt.values()],
               **analyse(d, skip)}
        return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--duration", default="20s")
    ap.add_argument("--skip", type=float, default=5.0)
    ap.add_argument("--out", type=Path, default=HERE / "bbr-rtt-floor.json")
    ap.add_argument("--sim", action="store_true",
                    help="the simulator only (SIM_VARIANTS, 5 seeds each), added to --out's JSON")
    args = ap.parse_args()
    if args.sim:
        res = json.loads(args.out.read_text()) if args.out.exists() else {}
        res["sim"] = []
        for n in args.n:
            for name, fields in SIM_VARIANTS:
                per_seed = [sim_loop(n, fields, k, args.duration, args.skip) for k in range(1, 6)]
                row = {"n": n, "variant": name, "fields": fields, "seeds": per_seed}
                res["sim"].append(row)
                print(n, name, [round(x["min"], 3) for x in per_seed], flush=True)
        args.out.write_text(json.dumps(res, indent=1) + "\n")
        return 0
    runs = []
    for _ in range(args.repeats):
        for n in args.n:
            r = one_run(n, args.duration, args.skip)
            runs.append(r)
            print(json.dumps(r), flush=True)
    old = json.loads(args.out.read_text()) if args.out.exists() else {}
    args.out.write_text(json.dumps({"scenario": str(SCEN.relative_to(ROOT)), "duration": args.duration,
                                    "skip_s": args.skip, "runs": runs, "sim": old.get("sim", [])},
                                   indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
