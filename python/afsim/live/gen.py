"""afsim live's traffic generator: one process per host namespace, standard library only.

Read this first: ``afsim live`` starts this file as ``ip netns exec <host ns> python gen.py
CONFIG`` (no afsim import: it starts in tens of milliseconds). It sets the namespace up (IPv6
off, ECN as the host's flows ask, the interface's offloads off), opens its listeners, prints
``ready``, reads the run's time zero (CLOCK_MONOTONIC nanoseconds, shared by every namespace)
from stdin, runs its roles (TCP or UDP senders and receivers, one thread each), and prints its
results as one JSON line. With ``capture`` (``afsim live --host-capture``) a thread records
every IP packet the host's interface receives, headers only, with the kernel's
receive time stamps (SO_TIMESTAMPNS on an AF_PACKET socket: when the packet reached the
host's stack, after the forwarder's send and the veth), into a pcap file. TCP senders read TCP_INFO every 100 ms (RTT, cwnd; kept from the
start as the report's ``live.series``: time, cwnd, RTT, bytes acknowledged, retransmissions) and at the measured
interval's ends (bytes acknowledged, retransmissions).

Stopping early (``until_transfers_complete``): a finite TCP sender prints ``done FLOW T`` the
moment TCP_INFO shows every byte acknowledged (polled every millisecond; T in seconds since
time zero); the orchestrator answers, once every transfer is done, with ``stop`` on stdin,
which ends the run here at once (every role's end moves to now).
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import math
import os
import random
import select
import signal
import socket
import struct
import sys
import threading
import time

TCP_CONGESTION = 13
TCP_MAXSEG = 2
TCP_WINDOW_CLAMP = 10
TCP_INFO = 11
SIOCETHTOOL = 0x8946
#: legacy ethtool "set" commands: tso, gso, gro, sg, tx checksum, rx checksum
ETHTOOL_OFF = ((0x1F, "tso"), (0x24, "gso"), (0x2B, "gro"), (0x19, "sg"), (0x17, "tx"), (0x15, "rx"))
#: IP + TCP headers with the timestamp option Linux sends by default
TCP_IP_HEADERS = 52


def mono() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def sysctl(name: str, value: str) -> None:
    try:
        with open("/proc/sys/" + name.replace(".", "/"), "w") as f:
            f.write(value)
    except OSError:
        pass


def offloads_off(iface: str) -> list[str]:
    """``ethtool -K iface tso off gso off gro off sg off tx off rx off``; the names that failed."""
    failed = []
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for cmd, name in ETHTOOL_OFF:
            buf = ctypes.create_string_buffer(struct.pack("II", cmd, 0))
            ifreq = struct.pack("16sP", iface.encode(), ctypes.addressof(buf)) + b"\0" * 16
            try:
                fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifreq)
            except OSError:
                failed.append(name)
    finally:
        s.close()
    return failed


ETH_P_IP = 0x0800
SO_TIMESTAMPNS = 35
#: bytes kept of each packet: IPv4 (20) + TCP with options (up to 60)
CAPTURE_SNAPLEN = 80


def host_capture(run: Run, sock: socket.socket, path: str, out: dict) -> None:
    """Every IP packet the interface receives until the run ends, into ``path`` (pcap,
    nanosecond time stamps of CLOCK_REALTIME, LINKTYPE_RAW, the first CAPTURE_SNAPLEN bytes):
    the kernel's time stamp of each, taken as it entered the packet taps, not when this thread
    read it."""
    n = 0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, CAPTURE_SNAPLEN, 101))
        while mono() < run.end + 0.5:
            try:
                data, anc, _, _ = sock.recvmsg(CAPTURE_SNAPLEN, 64)
            except (TimeoutError, BlockingIOError):
                continue
            except OSError as e:
                out["capture_error"] = str(e)
                break
            ts = next((struct.unpack("qq", d[:16]) for lvl, typ, d in anc
                       if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS), None)
            if ts is None:
                continue
            orig = struct.unpack_from(">H", data, 2)[0] if len(data) >= 4 else len(data)
            f.write(struct.pack("<IIII", ts[0], ts[1], len(data), orig) + data)
            n += 1
    out["capture_packets"] = n


def open_capture(iface: str) -> socket.socket:
    """An AF_PACKET socket of the IP packets ``iface`` receives, with kernel time stamps (a
    socket bound to one protocol sees incoming packets only: outgoing ones reach ETH_P_ALL
    taps alone)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    s.bind((iface, ETH_P_IP))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.settimeout(0.1)
    return s


def tcp_info(s: socket.socket) -> dict[str, float]:
    b = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 232)
    b = b + b"\0" * (232 - len(b))
    u32 = lambda off: struct.unpack_from("I", b, off)[0]  # noqa: E731
    u64 = lambda off: struct.unpack_from("Q", b, off)[0]  # noqa: E731
    return {
        "rtt_us": u32(68), "snd_cwnd": u32(80), "total_retrans": u32(100),
        "bytes_acked": u64(120), "min_rtt_us": u32(148), "delivered_ce": u32(196),
        "bytes_sent": u64(200), "bytes_retrans": u64(208), "segs_out": u32(136),
        "snd_mss": u32(16),
    }


def netstat() -> dict[str, int]:
    """TcpExt counters of this namespace (/proc/net/netstat)."""
    out: dict[str, int] = {}
    try:
        lines = open("/proc/net/netstat").read().splitlines()
    except OSError:
        return out
    for head, vals in zip(lines[0::2], lines[1::2]):
        if head.startswith("TcpExt:"):
            out.update(zip(head.split()[1:], map(int, vals.split()[1:])))
    return out


class Run:
    def __init__(self, cfg: dict, t0: float) -> None:
        self.cfg = cfg
        self.t0 = t0
        self.end = t0 + cfg["duration_s"]
        self.warm = t0 + cfg["warmup_s"]
        self.span = cfg["duration_s"] - cfg["warmup_s"]

    def sleep_until(self, t: float) -> None:
        while True:
            d = min(t, self.end) - mono()
            if d <= 0:
                return
            time.sleep(min(d, 0.05))

    def stop_now(self) -> None:
        self.end = min(self.end, mono())


_print_lock = threading.Lock()


def say(line: str) -> None:
    with _print_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def tcp_sender(run: Run, r: dict, out: dict) -> None:
    s = r["sock"]
    run.sleep_until(run.t0 + r["start_s"])
    if mono() >= run.end:
        return
    s.settimeout(max(0.1, run.end - mono()))
    out["connect_s"] = mono() - run.t0  # the SYN leaves now
    try:
        s.connect((r["peer"], r["port"]))
    except OSError as e:
        out["error"] = f"connect: {e}"
        return
    s.setblocking(False)
    samples: list[tuple[float, float]] = []
    # every 100 ms from the start: (time since t0 s, cwnd segments, RTT s, bytes acked,
    # segments retransmitted)
    series: list[tuple[float, int, float, int, int]] = []
    snap: dict[str, dict] = {}
    stop = threading.Event()

    def sampler() -> None:
        nxt = mono()
        while not stop.is_set():
            now = mono()
            try:
                ti = tcp_info(s)
            except OSError:
                return
            series.append((round(now - run.t0, 4), ti["snd_cwnd"], ti["rtt_us"] * 1e-6,
                           ti["bytes_acked"], ti["total_retrans"]))
            if now >= run.warm and "warm" not in snap:
                snap["warm"] = ti
            if now >= run.warm:
                samples.append((ti["rtt_us"] * 1e-6, ti["snd_cwnd"]))
            nxt += 0.1
            stop.wait(max(0.0, min(nxt, run.end) - mono()))
            if mono() >= run.end:
                return

    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    total = r.get("transfer_bytes")
    chunk = b"\0" * 65536
    sent = 0
    while True:
        now = mono()
        if now >= run.end or (total is not None and sent >= total):
            break
        _, w, _ = select.select([], [s], [], min(0.05, run.end - now))
        if not w:
            continue
        n = len(chunk) if total is None else min(len(chunk), total - sent)
        try:
            sent += s.send(chunk[:n])
        except BlockingIOError:
            continue
        except OSError as e:
            out["error"] = f"send: {e}"
            break
    if total is not None and sent >= total:
        s.shutdown(socket.SHUT_WR)
        out["source_done_s"] = mono() - run.t0
        # wait for the data to be acknowledged (or the run to end); Linux's bytes_acked counts
        # the SYN's sequence number (1 once connected; the FIN adds another), so all the data
        # is acknowledged at total + 1
        while mono() < run.end and tcp_info(s)["bytes_acked"] < total + 1:
            time.sleep(0.001)
        if tcp_info(s)["bytes_acked"] >= total + 1:
            out["acked_all_s"] = mono() - run.t0
            say(f"done {r['flow']} {out['acked_all_s']:.6f}")
    stop.set()
    th.join()
    end = tcp_info(s)
    warm = snap.get("warm", {"bytes_acked": 0, "total_retrans": 0})
    out.update(
        app_bytes_sent=sent,
        bytes_acked=end["bytes_acked"],
        acked_measured=end["bytes_acked"] - warm["bytes_acked"],
        retransmitted_packets=end["total_retrans"],
        retransmitted_bytes=end["bytes_retrans"],
        segs_out=end["segs_out"],
        snd_mss=end["snd_mss"],
        delivered_ce=end["delivered_ce"],
        min_rtt_s=end["min_rtt_us"] * 1e-6 if end["min_rtt_us"] else None,
        rtt_end_s=end["rtt_us"] * 1e-6,
        cwnd_end_segments=end["snd_cwnd"],
        series=series,
    )
    if samples:
        rtts = [x for x, _ in samples]
        m = sum(rtts) / len(rtts)
        out["rtt_mean_s"] = m
        out["rtt_std_s"] = math.sqrt(sum((x - m) ** 2 for x in rtts) / len(rtts))
        out["cwnd_mean_segments"] = sum(c for _, c in samples) / len(samples)
        out["rtt_samples"] = len(samples)
    s.close()


def tcp_receiver(run: Run, r: dict, out: dict) -> None:
    ls = r["sock"]
    ls.settimeout(max(0.1, run.end - mono()))
    try:
        c, _ = ls.accept()
    except (TimeoutError, OSError):
        out.update(goodput_bytes=0, measured_bytes=0)
        return
    c.settimeout(0.05)
    total = measured = 0
    buf = bytearray(262144)
    while True:
        now = mono()
        if now >= run.end:
            break
        try:
            n = c.recv_into(buf)
        except TimeoutError:
            continue
        except OSError:
            break
        if n == 0:
            out["completion_time_s"] = mono() - run.t0
            break
        total += n
        if mono() >= run.warm:
            measured += n
    out.update(goodput_bytes=total, measured_bytes=measured)
    c.close()


def udp_sender(run: Run, r: dict, out: dict) -> None:
    s = r["sock"]
    size = r["packet_size"]
    payload = b"\0" * max(0, size - 28)
    interval = size * 8 / r["rate_bps"]
    rng = random.Random(r["seed"])
    t = run.t0 + r["start_s"]
    stop = math.inf if r.get("stop_s") is None else run.t0 + r["stop_s"]
    limit = r.get("max_packets")
    n = errors = 0
    while t < min(stop, run.end) and (limit is None or n < limit):
        run.sleep_until(t)
        if mono() >= run.end:
            break
        try:
            s.sendto(payload, (r["peer"], r["port"]))
            n += 1
        except OSError:
            errors += 1
        t += interval * (rng.uniform(0.5, 1.5) if r["jitter"] else 1.0)
    out.update(packets_sent=n, send_errors=errors)


def udp_receiver(run: Run, r: dict, out: dict) -> None:
    s = r["sock"]
    s.settimeout(0.05)
    n = total = measured = 0
    while mono() < run.end:
        try:
            k = len(s.recv(65536))
        except TimeoutError:
            continue
        n += 1
        total += k + 28
        if mono() >= run.warm:
            measured += k + 28
    out.update(packets_received=n, bytes_received=total, measured_bytes=measured)


ROLES = {"tcp-sender": tcp_sender, "tcp-receiver": tcp_receiver,
         "udp-sender": udp_sender, "udp-receiver": udp_receiver}


def prepare(cfg: dict) -> list[str]:
    """Namespace settings and sockets, before the start."""
    sysctl("net.ipv6.conf.all.disable_ipv6", "1")
    sysctl("net.ipv6.conf.default.disable_ipv6", "1")
    sysctl("net.ipv4.tcp_no_metrics_save", "1")
    # RFC 3168 for the flows that ask (a namespace-wide setting: 1 requests ECN, 2 accepts it)
    sysctl("net.ipv4.tcp_ecn", "1" if cfg.get("ecn") else "2")
    failed = offloads_off(cfg["iface"])
    if cfg.get("capture"):
        cfg["capture_sock"] = open_capture(cfg["iface"])
    for r in cfg["roles"]:
        tos = r["dscp"] << 2
        if r["role"].startswith("tcp"):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
            s.setsockopt(socket.IPPROTO_TCP, TCP_MAXSEG, max(88, r["packet_size"] - 40))
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, r["cc"].encode())
            if r["role"] == "tcp-receiver":
                s.setsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP, int(r["max_window_bytes"]))
                s.bind(("0.0.0.0", r["port"]))
                s.listen(4)
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
            if r["role"] == "udp-receiver":
                s.bind(("0.0.0.0", r["port"]))
        r["sock"] = s
    return failed


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the orchestrator stops us (SIGTERM)
    cfg = json.load(open(sys.argv[1]))
    try:
        failed = prepare(cfg)
    except OSError as e:
        print(json.dumps({"error": f"setup: {e}"}), flush=True)
        return 1
    before = netstat()
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return 1
    run = Run(cfg, int(line) * 1e-9)
    if cfg.get("realtime_priority"):
        # under the forwarder's priority, above everything else on the machine: a host's
        # application must not starve either (its threads inherit the policy)
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(cfg["realtime_priority"]))
        except OSError:
            pass
    results = [{"flow": r["flow"], "role": r["role"]} for r in cfg["roles"]]
    threads = [threading.Thread(target=ROLES[r["role"]], args=(run, r, o), daemon=True)
               for r, o in zip(cfg["roles"], results)]
    cap_out: dict = {}
    if cfg.get("capture_sock"):
        threads.append(threading.Thread(target=host_capture, daemon=True,
                                        args=(run, cfg["capture_sock"], cfg["capture"], cap_out)))
    for t in threads:
        t.start()

    def listen() -> None:
        # the orchestrator's "stop" (every transfer is done): end the run now
        for cmd in sys.stdin:
            if cmd.strip() == "stop":
                run.stop_now()
                return

    threading.Thread(target=listen, daemon=True).start()
    for t in threads:
        while t.is_alive() and mono() < run.end + 5.0:
            t.join(timeout=0.05)
    after = netstat()
    # every TcpExt counter that moved (the four the report reads first; the rest name how the
    # host's TCP recovered: fast or slow-start retransmissions, HyStart's exits, undos, D-SACKs)
    keys = ("TCPTimeouts", "TCPSackRecovery", "TCPRenoRecovery", "TCPLossProbes")
    diff = {k: after.get(k, 0) - before.get(k, 0) for k in keys}
    diff.update({k: v - before.get(k, 0) for k, v in after.items()
                 if k not in keys and v != before.get(k, 0)})
    print(json.dumps({"host": cfg["host"], "roles": results, "netstat": diff,
                      "offloads_left_on": failed, **cap_out}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
