"""tcptrace's per-connection numbers from ``afsim live --capture`` files: the RTT samples of a
TCP sender (mean and standard deviation) and its SYN instant.

Read this first. tcptrace (Ostermann; the paper reproductions' testbeds used it) takes an RTT
sample from every ACK that acknowledges a data segment sent once, exactly to its end
(Karn's rule: a retransmitted segment gives none; a cumulative ACK gives the sample of the
segment it ends); duplicate ACKs give none. Here the data segments are those of the sender's
access port (the frames leaving ``src->router``), the ACKs those of the port back
(``router->src``), each stamped with the instant the model started transmitting it; the ACK's
sample adds ``ack_delay_s(ip_len)``, the time it then takes to reach the sender (its
transmission and the link's delay), so that a sample is what the sender's own tcpdump would
see. Only standard library: pcap files of afsim's format (nanosecond magic, LINKTYPE_RAW).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

MAGIC_NS = 0xA1B23C4D
MAGIC_US = 0xA1B2C3D4


def records(path: Path) -> Iterator[tuple[float, bytes]]:
    """(time in seconds, IP packet) of every record of a LINKTYPE_RAW pcap file."""
    data = Path(path).read_bytes()
    if len(data) < 24:
        return
    magic, = struct.unpack_from("<I", data, 0)
    scale = 1e-9 if magic == MAGIC_NS else 1e-6 if magic == MAGIC_US else None
    if scale is None:
        raise ValueError(f"{path}: not a little-endian pcap file")
    at = 24
    while at + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack_from("<IIII", data, at)
        yield sec + frac * scale, data[at + 16:at + 16 + incl]
        at += 16 + incl


def _tcp(ip: bytes) -> tuple[bytes, bytes, int, int, int, int, int, int] | None:
    """(src, dst, sport, dport, seq, ack, flags, payload length) of a TCP/IPv4 packet."""
    if len(ip) < 40 or ip[0] >> 4 != 4 or ip[9] != 6:
        return None
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack_from("!H", ip, 2)[0]
    sport, dport, seq, ack = struct.unpack_from("!HHII", ip, ihl)
    off = (ip[ihl + 12] >> 4) * 4
    return ip[12:16], ip[16:20], sport, dport, seq, ack, ip[ihl + 13], total - ihl - off


def sender_rtts(data_pcap: Path, ack_pcap: Path, port: int,
                ack_delay_s: Callable[[int], float]) -> dict[str, float]:
    """tcptrace's RTT of the connection to destination port ``port``: ``rtt_mean_s``,
    ``rtt_std_s`` (population), ``rtt_samples``, and ``syn_s`` (the capture's time stamp of
    its first SYN), from the two directions' captures."""
    segs: dict[int, tuple[float, bool]] = {}  # relative end seq -> (first sent, retransmitted)
    lens: dict[int, int] = {}
    snd_max = 0
    isn = None
    syn_s = math.nan
    for t, ip in records(data_pcap):
        h = _tcp(ip)
        if h is None or h[3] != port:
            continue
        _s, _d, _sp, _dp, seq, _ack, flags, n = h
        if flags & 0x02:  # SYN
            if isn is None:
                isn, syn_s = seq, t
            continue
        if isn is None or n <= 0:
            continue
        end = (seq - isn + n) % (1 << 32)
        if end > snd_max:
            segs[end] = (t, False)
            snd_max = end
        else:
            # sent again (whatever its boundaries): every segment it overlaps gives no sample
            start = end - n
            for e in [e for e in segs if start < e and e - lens[e] < end]:
                segs[e] = (segs[e][0], True)
            segs.setdefault(end, (t, True))
            segs[end] = (segs[end][0], True)
        lens.setdefault(end, n)
    samples: list[float] = []
    top = 0
    for t, ip in records(ack_pcap):
        h = _tcp(ip)
        if h is None or h[2] != port or isn is None or not h[6] & 0x10:
            continue
        a = (h[5] - isn) % (1 << 32)
        if a <= top:
            continue  # a duplicate ACK, or older
        top = a
        seg = segs.get(a)
        if seg is not None and not seg[1]:
            samples.append(t + ack_delay_s(len(ip)) - seg[0])
    if not samples:
        return {"rtt_mean_s": math.nan, "rtt_std_s": math.nan, "rtt_samples": 0, "syn_s": syn_s}
    m = sum(samples) / len(samples)
    sd = math.sqrt(sum((x - m) ** 2 for x in samples) / len(samples))
    return {"rtt_mean_s": m, "rtt_std_s": sd, "rtt_samples": len(samples), "syn_s": syn_s}
