"""The one table writer: a comparison as Markdown (| metric | ns-2.35 | afsim | afsim − ns-2 |
z |), the text of its cells, and the JSON files the scripts write."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ns2kit.compare import compare

__all__ = ["dump_json", "fmt", "pct_text", "table", "write_text", "z_text"]


def pct_text(rel: float | None) -> str:
    """A relative difference as "+1.2%" ("-" for none)."""
    return "-" if rel is None else f"{100 * rel:+.1f}%"


def z_text(z: float | None) -> str:
    """A z as "+1.2" ("-" for none, "∞" for an infinite one)."""
    if z is None:
        return "-"
    return "∞" if math.isinf(z) else f"{z:+.1f}"


def fmt(s: Mapping[str, float] | None, f: str) -> str:
    """"mean ± sd" in the format ``f`` ("{:.1f}"), "n/a" for nothing."""
    return "n/a" if not s else f"{f.format(s['mean'])} ± {f.format(s['sd'])}"


def table(ns: Mapping[str, Any], af: Mapping[str, Any], rows: Iterable[tuple[str, str, str]], *,
          head: tuple[str, str] = ("ns-2.35", "afsim"), skip_empty: bool = False) -> list[str]:
    """The comparison as Markdown lines, one row per (metric key, label, format): each side's
    mean ± sd, afsim − ns-2 in % of ns-2's mean, and Welch's z. ``head`` names the two sides'
    columns; ``skip_empty`` leaves out a metric neither side has."""
    lines = [f"| metric | {head[0]} | {head[1]} | afsim − ns-2 | z |", "|---|---:|---:|---:|---:|"]
    for key, label, f in rows:
        a, b = ns.get(key), af.get(key)
        if skip_empty and a is None and b is None:
            continue
        d = compare(a, b)
        lines.append(f"| {label} | {fmt(a, f)} | {fmt(b, f)} | {pct_text(d.rel)} | {z_text(d.z)} |")
    return lines


def dump_json(result: Mapping[str, Any], *, one_line: str | None = None) -> str:
    """``result`` as indented JSON and a final newline; with ``one_line``, the list under that
    key is written one element per line (a run per line keeps big files readable)."""
    if one_line is None:
        return json.dumps(result, indent=1) + "\n"
    head = json.dumps({k: v for k, v in result.items() if k != one_line}, indent=1)
    rows = ",\n  ".join(json.dumps(r, separators=(",", ":")) for r in result[one_line])
    return head[:-2] + f',\n "{one_line}": [\n  {rows}\n ]\n}}\n'


def write_text(path: Path, text: str) -> Path:
    """Writes ``text`` (UTF-8) to ``path``; returns the path."""
    path.write_text(text, encoding="utf-8")
    return path
