"""Network namespaces and veth pairs of a live run, and their removal.

Read this first: every object a live run creates carries its run's prefix ``afl<6 hex>-``:
the namespaces ``afl1a2b3c-fwd`` (the forwarder's: every router-side veth end) and
``afl1a2b3c-<node>`` (one per host), and the interfaces ``afl1a2b3c-hK`` / ``afl1a2b3c-rK``
(host side / router side of host K's link). Interfaces are created directly inside those
namespaces (``ip -n <ns> link add … peer … netns <ns>``): nothing is ever created in, moved
through, or changed in the root namespace, and no address or route outside them is touched.
Deleting a namespace deletes its interfaces, and a veth dies with its peer.

``cleanup()`` removes what any run left (a SIGKILLed one): the processes inside namespaces
named with afsim's prefix pattern, then those namespaces, and nothing else. A run in progress is
not debris: each run records its owner (``/run/afsim-live/<prefix>.owner``: the controlling
process's pid and start time) before it creates anything, and ``cleanup()`` leaves the namespaces
of a run whose owner still lives (two runs, or a run and a cleanup, can share one host).
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import time
from pathlib import Path

#: Every name a live run creates starts with this pattern (``afl`` + 6 hex digits + ``-``).
PREFIX_RE = re.compile(r"^afl[0-9a-f]{6}-")
NETNS_DIR = Path("/run/netns")
#: Where each run records its owner process (tmpfs: gone at reboot, as the namespaces are).
OWNER_DIR = Path("/run/afsim-live")
#: Environment variable that makes the privilege check fail as for an unprivileged user (tests).
FAKE_NONROOT_ENV = "AFSIM_LIVE_FAKE_NONROOT"

CAP_NET_ADMIN = 12
CAP_SYS_ADMIN = 21


class LivePermissionError(Exception):
    """The live mode needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN): nothing was created."""


class LiveSetupError(Exception):
    """A namespace, link or process of a live run could not be set up."""


def new_prefix() -> str:
    return f"afl{secrets.token_hex(3)}-"


def check_privileges() -> None:
    """Raises LivePermissionError unless this process can create namespaces and links."""
    why = None
    if os.environ.get(FAKE_NONROOT_ENV):
        why = f"running as if unprivileged ({FAKE_NONROOT_ENV} is set)"
    else:
        caps = 0
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("CapEff:"):
                    caps = int(line.split()[1], 16)
        except OSError:
            pass
        missing = [n for n, b in (("CAP_NET_ADMIN", CAP_NET_ADMIN), ("CAP_SYS_ADMIN", CAP_SYS_ADMIN))
                   if not caps >> b & 1]
        if missing:
            why = f"this process lacks {' and '.join(missing)} (effective uid {os.geteuid()})"
    if why is None and not _which("ip"):
        raise LiveSetupError("the 'ip' command (iproute2) is not installed")
    if why is not None:
        raise LivePermissionError(
            "afsim live creates network namespaces and veth links, which needs root "
            f"(CAP_NET_ADMIN and CAP_SYS_ADMIN): {why}. Nothing was created; run it as root, "
            "e.g. with sudo.")


def _which(cmd: str) -> bool:
    return any(os.access(os.path.join(d, cmd), os.X_OK)
               for d in os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":") + ["/usr/sbin", "/sbin"])


def ip(*args: str, input: str | None = None) -> None:
    r = subprocess.run(["ip", *args], input=input, capture_output=True, text=True)
    if r.returncode != 0:
        raise LiveSetupError(f"ip {' '.join(args[:6])}…: {r.stderr.strip()}")


def safe_name(node: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", node)[:40]


def list_namespaces() -> list[str]:
    """Namespaces whose names carry afsim live's prefix."""
    try:
        return sorted(p.name for p in NETNS_DIR.iterdir() if PREFIX_RE.match(p.name))
    except FileNotFoundError:
        return []


def namespace_pids(ns: str) -> list[int]:
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(x) for x in r.stdout.split()] if r.returncode == 0 else []


def delete_namespaces(names: list[str]) -> list[str]:
    """Kills the processes inside, then deletes the namespaces; returns those left."""
    names = [n for n in names if PREFIX_RE.match(n)]  # never anything but ours
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = [p for n in names for p in namespace_pids(n)]
        if not pids:
            break
        for p in pids:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and any(namespace_pids(n) for n in names):
            time.sleep(0.02)
    for n in names:
        subprocess.run(["ip", "netns", "delete", n], capture_output=True)
    return [n for n in names if (NETNS_DIR / n).exists()]


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), which
    tells a live owner from a later process that reused its pid; None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _owner_file(prefix: str) -> Path:
    return OWNER_DIR / f"{prefix.rstrip('-')}.owner"


def claim(prefix: str) -> None:
    """Records this process as the owner of run ``prefix`` (before anything is created)."""
    OWNER_DIR.mkdir(mode=0o755, exist_ok=True)
    _owner_file(prefix).write_text(f"{os.getpid()} {_start_time(os.getpid())}\n")


def release(prefix: str) -> None:
    """Forgets run ``prefix``'s owner record (after its namespaces are gone)."""
    try:
        _owner_file(prefix).unlink()
    except FileNotFoundError:
        pass


def owner_alive(prefix: str) -> bool:
    """Whether the process that created run ``prefix`` still runs (no record: not alive)."""
    try:
        pid_text, start = _owner_file(prefix).read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    return _start_time(pid) == start


def run_prefix(name: str) -> str:
    """The run prefix (``afl1a2b3c-``) of one of its namespace names."""
    m = PREFIX_RE.match(name)
    assert m, name
    return m.group(0)


def cleanup(prefix: str | None = None, force: bool = False
            ) -> tuple[list[str], list[str], list[str]]:
    """Removes the namespaces (and so links) of one run (``prefix``) or of every run whose owner
    has died (with ``force``: of every run): (removed, left, skipped because their run is in
    progress)."""
    names = [n for n in list_namespaces() if prefix is None or n.startswith(prefix)]
    running = {run_prefix(n) for n in names if not force and owner_alive(run_prefix(n))}
    skipped = [n for n in names if run_prefix(n) in running]
    names = [n for n in names if run_prefix(n) not in running]
    left = delete_namespaces(names)
    for p in {run_prefix(n) for n in names} - {run_prefix(n) for n in left}:
        release(p)
    return [n for n in names if n not in left], left, skipped


class Topology:
    """The namespaces and veth pairs of one run (``create``/``destroy``)."""

    def __init__(self, prefix: str, plan: dict) -> None:
        self.prefix = prefix
        self.plan = plan
        self.fwd = f"{prefix}fwd"
        nodes = plan["nodes"]
        self.hosts = [i for i, n in enumerate(nodes) if n["host"]]
        if len(self.hosts) > 250:
            raise LiveSetupError(f"{len(self.hosts)} hosts: afsim live handles up to 250")
        self.ns_of: dict[int, str] = {}
        used = set()
        for i in self.hosts:
            name = f"{prefix}{safe_name(nodes[i]['name'])}"
            if name in used or name == self.fwd:
                name = f"{prefix}n{i}"
            used.add(name)
            self.ns_of[i] = name
        self.created: list[str] = []

    def host_info(self, k: int) -> dict:
        """Addresses of the k-th host (10.200.k.2/24, its gateway 10.200.k.1, MACs)."""
        return {
            "node": self.hosts[k],
            "ns": self.ns_of[self.hosts[k]],
            "ip": f"10.200.{k}.2",
            "gw": f"10.200.{k}.1",
            "mac": f"02:af:01:00:{k >> 8:02x}:{k & 0xff:02x}",
            "router_mac": f"02:af:02:00:{k >> 8:02x}:{k & 0xff:02x}",
            "iface": f"{self.prefix}h{k}",
            "router_iface": f"{self.prefix}r{k}",
        }

    def create(self) -> None:
        names = [self.fwd] + [self.ns_of[i] for i in self.hosts]
        for n in names:
            ip("netns", "add", n)
            self.created.append(n)
        fwd_cmds = ["link set lo up"]
        for k in range(len(self.hosts)):
            h = self.host_info(k)
            # created inside the forwarder's namespace, its peer straight into the host's
            fwd_cmds.append(
                f"link add {h['router_iface']} address {h['router_mac']} txqueuelen 32 type veth "
                f"peer name {h['iface']} address {h['mac']} txqueuelen 32 netns {h['ns']}")
            fwd_cmds.append(f"link set {h['router_iface']} addrgenmode none")
            fwd_cmds.append(f"link set {h['router_iface']} up")
        ip("-n", self.fwd, "-batch", "-", input="\n".join(fwd_cmds) + "\n")
        for k in range(len(self.hosts)):
            h = self.host_info(k)
            cmds = [
                "link set lo up",
                f"link set {h['iface']} addrgenmode none",
                f"addr add {h['ip']}/24 dev {h['iface']}",
                f"link set {h['iface']} up",
                f"route add default via {h['gw']} dev {h['iface']}",
                f"neigh replace {h['gw']} lladdr {h['router_mac']} dev {h['iface']} nud permanent",
            ]
            ip("-n", h["ns"], "-batch", "-", input="\n".join(cmds) + "\n")

    def destroy(self) -> list[str]:
        left = delete_namespaces(self.created)
        self.created = left
        return left
