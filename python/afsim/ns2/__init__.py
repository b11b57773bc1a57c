"""ns-2 2.35 twins: the papers' own simulator run on the same values as an afsim scenario.

Read this first. Two of the four papers were made with ns-2 (Leung & Muppala; Jourjon et al.,
ns-2.28 with the Nortel DiffServ module), and ns-2 2.35 installs from Debian (``apt-get install
ns2``). A *twin* is a Tcl script in this folder that builds one paper's network in ns-2 with the
values of the afsim scenario it mirrors: the reproduction passes the same parameters to both
(``afsim.reproduce.twin``). A twin prints its counters on stdout in a few tagged lines; ``run``
reads them into afsim's own table shapes (``Ns2Results``: ``flows``, ``colours``), so that the
paper's metrics function — the one that reduces an afsim run — reduces the ns-2 run too, unchanged.
A column ns-2 cannot measure is NaN, never a number from elsewhere.

What a twin does not do: model what ns-2 lacks. A point that needs such a mechanism (mark-front,
the Throughput Sustaining Scheme, gTFRC's floor, the enhanced token bucket, ATM framing) is
refused by the reproduction before anything runs, and reported as "not in ns-2".

The scripts share ``common.tcl`` with the validation scripts (``validation/ns2``, which link to
it).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

HERE = Path(__file__).parent
#: The shared Tcl procedures every twin sources.
COMMON = HERE / "common.tcl"


class Ns2Error(RuntimeError):
    """ns-2 could not run a twin (not installed, a Tcl error, output it cannot read)."""


def executable() -> str | None:
    """The ``ns`` program on PATH, or None."""
    return shutil.which("ns")


def script(name: str) -> Path:
    path = HERE / name
    if not path.is_file():
        raise FileNotFoundError(f"no ns-2 twin script {name!r} in {HERE}")
    return path


@cache
def digest(name: str) -> str:
    """A hash of a twin script and the common procedures it sources: results made by other
    Tcl are never taken for this script's."""
    h = hashlib.sha256()
    for p in (script(name), COMMON):
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


@dataclass(frozen=True)
class Run:
    """One ns-2 run: a twin script and its ``key=value`` arguments (the seed among them)."""

    script: str
    args: tuple[str, ...]

    @property
    def key(self) -> str:
        """Identifies the run: the script's digest and its arguments."""
        text = json.dumps([self.script, digest(self.script), list(self.args)])
        return hashlib.sha256(text.encode()).hexdigest()[:20]


def run(r: Run, *, timeout_s: float = 3600.0) -> dict[str, Any]:
    """Runs one twin with ns-2 and returns its raw output as a JSON-able dict (the ``NS2``
    object with the tagged lines added: ``delivered``, ``timeouts``, …). Raises ``Ns2Error``."""
    ns = executable()
    if ns is None:
        raise Ns2Error("ns-2 is not installed (`apt-get install ns2` installs ns-2 2.35)")
    start = time.monotonic()
    try:
        p = subprocess.run([ns, str(script(r.script)), *r.args], capture_output=True, text=True,
                           timeout=timeout_s, check=False, cwd=HERE)
    except subprocess.TimeoutExpired as e:
        raise Ns2Error(f"ns {r.script} {' '.join(r.args)}: no answer in {timeout_s:g} s") from e
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        raise Ns2Error(f"ns {r.script} {' '.join(r.args)} exited {p.returncode}: {' | '.join(tail)}")
    out = parse(p.stdout, f"ns {r.script} {' '.join(r.args)}")
    out["process_s"] = time.monotonic() - start
    return out


def parse(stdout: str, what: str = "ns-2") -> dict[str, Any]:
    """A twin's stdout: the ``NS2 {json}`` line, ``TAG n0 n1 …`` lines as lists of numbers
    under the tag's lower-case name, and ``TAGROW …`` lines as a list of rows."""
    out: dict[str, Any] | None = None
    lists: dict[str, Any] = {}
    for line in stdout.splitlines():
        tag, _, rest = line.partition(" ")
        if tag == "NS2":
            out = json.loads(rest)
        elif tag.isupper() and tag.isalpha():
            try:
                numbers = [float(x) for x in rest.split()]
            except ValueError:
                continue
            if tag.endswith("ROW"):
                # one row of a table per line ("XROW flow t x p")
                lists.setdefault(tag.lower(), []).append(numbers)
            else:
                lists[tag.lower()] = numbers
    if out is None:
        raise Ns2Error(f"{what}: no NS2 line in its output")
    out.update(lists)
    return out


@dataclass
class Ns2Results:
    """An ns-2 run in afsim's table shapes, for a metrics function written for
    ``afsim.Results``: ``flows`` (name, throughput_kbps, goodput_kbps, timeouts, …),
    ``colours`` (queue, level, arrivals, drops), ``end_time_s`` and ``summary``. Tables the
    twin does not fill are empty; columns it cannot measure are NaN."""

    flows: pd.DataFrame
    colours: pd.DataFrame = field(default_factory=pd.DataFrame)
    queues: pd.DataFrame = field(default_factory=pd.DataFrame)
    conditioners: pd.DataFrame = field(default_factory=pd.DataFrame)
    tfrc_traces: dict[str, pd.DataFrame] = field(default_factory=dict)
    end_time_s: float = math.nan
    summary: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)


def flows_table(names: Sequence[str], span_s: float, *, delivered_bytes: Sequence[float],
                total_delivered_bytes: Sequence[float] | None = None,
                goodput_bytes: Sequence[float] | None = None,
                timeouts: Sequence[float] | None = None,
                extra: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """afsim's ``flows`` table from per-flow ns-2 counts: ``delivered_bytes`` (IP bytes) over
    the measured interval of ``span_s`` seconds give ``throughput_kbps`` (kb = 1000 bits);
    ``total_delivered_bytes`` (the whole run; default the same) ``bytes_delivered``."""
    nan = [math.nan] * len(names)
    cols: dict[str, Any] = {
        "name": list(names),
        "throughput_kbps": [8.0 * b / span_s / 1000.0 for b in delivered_bytes],
        "bytes_delivered": list(total_delivered_bytes if total_delivered_bytes is not None
                                else delivered_bytes),
        "goodput_kbps": ([8.0 * b / span_s / 1000.0 for b in goodput_bytes]
                         if goodput_bytes is not None else nan),
        "timeouts": list(timeouts) if timeouts is not None else nan,
        "ce_received": nan,
    }
    for k, v in (extra or {}).items():
        cols[k] = list(v)
    return pd.DataFrame(cols)


# ---------------------------------------------------------------------------------------------
# afsim's parameter values as ns-2 arguments, read by afsim.units (the one Python reading of
# the core's units)


def _value(text: str, dimension: str) -> float:
    from afsim.units import quantity

    q = quantity(text)
    if q is None or q.dimension != dimension:
        raise ValueError(f"not a {dimension} with a unit: {text!r}")
    return q.value


#: ns-2's bandwidth suffixes (``bw_parse``) for afsim's.
_NS2_RATE = (("Gbps", 1e9, "Gb"), ("Mbps", 1e6, "Mb"), ("kbps", 1e3, "kb"))


def rate(text: str) -> str:
    """An afsim rate ("16Mbps", "1200kbps") as an ns-2 bandwidth in the same unit ("16Mb",
    "1200kb"; bit/s otherwise)."""
    bps = _value(text, "rate")
    for unit, factor, ns_unit in _NS2_RATE:
        if text.strip().endswith(unit):
            return f"{bps / factor:g}{ns_unit}"
    return f"{bps:g}"


def bits_per_second(text: str) -> float:
    """An afsim rate in bit/s."""
    return _value(text, "rate")


def seconds(text: str) -> float:
    """An afsim time ("10ms", "1s") in seconds."""
    return _value(text, "time")


def packets(text: str) -> int:
    """An afsim packet count ("500pkt")."""
    return int(_value(text, "packets"))


def scenario_params(path: Path, overrides: Mapping[str, str]) -> dict[str, str]:
    """A scenario file's ``[params]`` defaults with ``overrides`` applied, as text: the values
    the afsim run of the same point uses."""
    import tomllib

    with open(path, "rb") as f:
        doc = tomllib.load(f)
    params = {k: (str(v).lower() if isinstance(v, bool) else str(v))
              for k, v in doc.get("params", {}).items()}
    params.update({k: str(v) for k, v in overrides.items()})
    return params
