"""Parameter values with units ("10Mbps", "20ms", "1500B", "50pkt") read as numbers, so that
tables sort them and plots place them by value.

Read this first. The simulator parses units in Rust (``crates/afsim-core/src/scenario/units.rs``),
and the Python bindings (``afsim._core``) do not expose that parser, so this module is the one
Python reading of the same units, for ordering and display, and for the ns-2 twins' arguments
(``afsim.ns2``): nothing it returns is fed to afsim's simulator, which reads every value itself. Units, as the core spells them:

- rate (to bits per second): bps, b/s, kbps, kb/s, Kbps, Kb/s, Mbps, Mb/s, Gbps, Gb/s
- time (to seconds): ns, us, µs, μs, ms, s, min
- size (to bytes): B, kB, KB, KiB, MB, MiB, GB, GiB
- packets: pkt, pkts, packet, packets, p

A number is digits with optional ``_`` separators and fraction, then optional spaces, then the
unit, as in the core. ``quantity`` returns None for anything else (a plain number, a name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("bps", "b/s"), ("rate", 1.0)),
    **dict.fromkeys(("kbps", "kb/s", "Kbps", "Kb/s"), ("rate", 1000.0)),
    **dict.fromkeys(("Mbps", "Mb/s"), ("rate", 1000000.0)),
    **dict.fromkeys(("Gbps", "Gb/s"), ("rate", 1000000000.0)),
    "ns": ("time", 1e-9), "us": ("time", 1e-6), "\u00b5s": ("time", 1e-6),
    "\u03bcs": ("time", 1e-6), "ms": ("time", 1e-3), "s": ("time", 1.0), "min": ("time", 60.0),
    "B": ("size", 1.0), "kB": ("size", 1e3), "KB": ("size", 1e3), "KiB": ("size", 1024.0),
    "MB": ("size", 1e6), "MiB": ("size", 1024.0**2), "GB": ("size", 1e9),
    "GiB": ("size", 1024.0**3),
    **dict.fromkeys(("pkt", "pkts", "packet", "packets", "p"), ("packets", 1.0)),
}
_NUMBER = re.compile(r"^\s*(\d(?:_?\d)*(?:\.\d(?:_?\d)*)?)\s*(\S+)\s*$")

#: Display units per dimension, largest first: (factor from the base unit, name).
_DISPLAY = {
    "rate": ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s")),
    "time": ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")),
    "size": ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")),
    "packets": ((1.0, "packets"),),
}


@dataclass(frozen=True)
class Quantity:
    """A value in its dimension's base unit: bits per second, seconds, bytes or packets."""

    value: float
    dimension: str


def quantity(v: Any) -> Quantity | None:
    """``"1200kbps"`` → Quantity(1200000.0, "rate"); None when ``v`` is not a number with one
    of the units above."""
    if not isinstance(v, str):
        return None
    m = _NUMBER.match(v)
    if m is None or m.group(2) not in _UNITS:
        return None
    dimension, factor = _UNITS[m.group(2)]
    return Quantity(float(m.group(1).replace("_", "")) * factor, dimension)


def common_dimension(values: Any) -> str | None:
    """The dimension every value of ``values`` has, or None if any is not such a quantity or
    they differ."""
    dims = set()
    for v in values:
        q = quantity(v)
        if q is None:
            return None
        dims.add(q.dimension)
    return dims.pop() if len(dims) == 1 else None


def display_unit(dimension: str, largest: float) -> tuple[float, str]:
    """The unit to show values of ``dimension`` up to ``largest`` (base units) in: the largest
    that keeps ``largest`` at least 1. Returns (factor from the base unit, name)."""
    for factor, name in _DISPLAY[dimension]:
        if largest >= factor:
            return factor, name
    return _DISPLAY[dimension][-1]


def number_in(text: str, unit: str | None = None) -> float:
    """``text`` ("1.6Mbps", "20ms", "12") as a number of ``unit`` ("kbps", "s"; None: a plain
    number): the number itself when ``text`` is written in ``unit``, converted by the ratio of
    the two units' factors when written in another unit of the same dimension. ValueError for
    anything else (no number, an unknown unit, another dimension)."""
    t = text.strip()
    if not unit:
        return float(t)
    if unit not in _UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    if t.endswith(unit):
        try:
            return float(t[: len(t) - len(unit)])
        except ValueError:
            pass
    m = _NUMBER.match(t)
    if m is None or m.group(2) not in _UNITS:
        raise ValueError(f"not a number with a unit: {text!r}")
    (dim, factor), (want, to) = _UNITS[m.group(2)], _UNITS[unit]
    if dim != want:
        raise ValueError(f"{text!r} is a {dim}, not a {want} (in {unit})")
    return float(m.group(1).replace("_", "")) * (factor / to)
