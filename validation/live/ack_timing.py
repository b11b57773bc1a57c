"""ACK inter-arrival times at a TCP sender, from a pcap of its interface (`afsim live
--host-capture`: the kernel's time stamps in the sender's namespace) or of the port that feeds
it (`afsim run --capture r1->src0`, or `afsim live --capture r1->src0`: the model's instants).
docs/validation.md, "ACK timing at the senders", reads these numbers; validation/live/cc_compare.py
computes them for every run.

    python validation/live/ack_timing.py FILE.pcap [--skip 5] [--sender 10.200.0.2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
from pathlib import Path

#: two ACKs closer than this are one burst: a 52-byte ACK takes 4.2 µs at the access links'
#: 100 Mb/s, a 1500-byte segment 1.2 ms at the bottleneck's 10 Mb/s
BUNCH_S = 50e-6


def acks(path: Path) -> tuple[list[float], list[int], list[int], str | None]:
    """Pure ACKs (TCP, no payload) towards the capture's data sender: their time stamps (s),
    acknowledgement numbers, IP lengths (bytes) and the sender's address (the most frequent source of data
    segments; None when the file holds no data, as a port that carries only ACKs)."""
    data = path.read_bytes()
    scale = 1e-9 if struct.unpack_from("<I", data, 0)[0] == 0xA1B23C4D else 1e-6
    at = 24
    recs = []
    senders: dict[bytes, int] = {}
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, at)
        pkt = data[at + 16:at + 16 + incl]
        at += 16 + incl
        if len(pkt) < 40 or pkt[9] != 6:
            continue
        ihl = (pkt[0] & 15) * 4
        total = struct.unpack_from(">H", pkt, 2)[0]
        thl = (pkt[ihl + 12] >> 4) * 4
        payload = total - ihl - thl
        if payload > 0:
            senders[pkt[12:16]] = senders.get(pkt[12:16], 0) + 1
            continue
        if pkt[ihl + 13] & 0x02:  # SYN
            continue
        recs.append((sec + frac * scale, pkt[16:20], struct.unpack_from(">I", pkt, ihl + 8)[0], total))
    sender = max(senders, key=senders.get) if senders else None
    recs = [r for r in recs if sender is None or r[1] == sender]
    return ([r[0] for r in recs], [r[2] for r in recs], [r[3] for r in recs],
            ".".join(map(str, sender)) if sender else None)


def stats(times: list[float], ack_numbers: list[int], skip_s: float = 5.0, t0: float | None = None) -> dict:
    """Inter-arrival times of the ACKs after skip_s (from t0, else the first ACK): median and
    10th percentile (µs), the share closer than BUNCH_S, bursts (runs closer than BUNCH_S: mean
    and largest ACKs per burst), the share of ACKs that acknowledge new data, and the bytes each
    of those acknowledges (median, mean)."""
    t0 = times[0] if t0 is None and times else t0
    keep = [(t, a) for t, a in zip(times, ack_numbers) if t - t0 >= skip_s]
    if len(keep) < 3:
        return {"acks": len(keep)}
    gaps = [b[0] - a[0] for a, b in zip(keep, keep[1:])]
    bursts, size = [], 1
    for g in gaps:
        if g < BUNCH_S:
            size += 1
        else:
            bursts.append(size)
            size = 1
    bursts.append(size)
    adv = [(b[1] - a[1]) % (1 << 32) for a, b in zip(keep, keep[1:])]
    adv = [x for x in adv if x < 1 << 30]
    new = [x for x in adv if x > 0]
    q = statistics.quantiles(gaps, n=10)
    return {
        "acks": len(keep),
        "gap_median_us": round(statistics.median(gaps) * 1e6, 1),
        "gap_p10_us": round(q[0] * 1e6, 1),
        "bunched_share": round(sum(g < BUNCH_S for g in gaps) / len(gaps), 4),
        "burst_mean_acks": round(len(keep) / len(bursts), 3),
        "burst_max_acks": max(bursts),
        "new_data_share": round(len(new) / len(adv), 4) if adv else None,
        "acked_bytes_median": statistics.median(new) if new else None,
        "acked_bytes_mean": round(sum(new) / len(new), 1) if new else None,
    }


def lateness(host: tuple, model: tuple, skip_s: float = 5.0, delay_s: float = 1e-3,
             rate_bps: float = 100e6) -> dict:
    """How late the forwarder's frames reached the sender (µs): the host's receive time stamp
    minus the model's arrival instant of the same ACK (matched in order by acknowledgement
    number; the arrival: the port's departure instant, which its capture records, plus the
    link's delay_s and the ACK's serialisation at rate_bps). host and model: acks()'s lists."""
    ht, ha = host[0], host[1]
    mt, ma = model[0], [(a, n) for a, n in zip(model[1], model[2])]
    t0 = mt[0] if mt else 0.0
    by_ack: dict[int, list[float]] = {}
    for t, (a, n) in zip(mt, ma):
        by_ack.setdefault(a, []).append(t + delay_s + n * 8 / rate_bps)
    d = []
    for t, a in zip(ht, ha):
        lst = by_ack.get(a)
        if lst:
            m = lst.pop(0)
            if m - t0 >= skip_s:
                d.append(t - m)
    if not d:
        return {"matched": 0}
    q = statistics.quantiles(d, n=100)
    return {"matched": len(d), "p50_us": round(statistics.median(d) * 1e6, 1),
            "p90_us": round(q[89] * 1e6, 1), "p99_us": round(q[98] * 1e6, 1),
            "max_us": round(max(d) * 1e6, 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("pcap", type=Path, nargs="+")
    ap.add_argument("--skip", type=float, default=5.0, help="seconds from the first ACK left out")
    ap.add_argument("--model", type=Path, help="the forwarder's capture of the port feeding the host "
                    "(afsim live --capture r1->src0) beside a --host-capture file: the lateness")
    args = ap.parse_args()
    for p in args.pcap:
        t, a, _, sender = acks(p)
        print(p, sender, json.dumps(stats(t, a, args.skip)))
    if args.model:
        print("lateness", json.dumps(lateness(acks(args.pcap[0]), acks(args.model), args.skip)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
