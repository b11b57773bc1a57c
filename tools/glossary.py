#!/usr/bin/env python3
"""Writes docs/glossary.md, every output column of a run, from the code that defines them.

Read this first. The columns of ``afsim run``'s tables (``Results.flows``, ``.queues``, … and
the CSV/Parquet files of ``--out``) are the fields of the row structs in
crates/afsim-core/src/report.rs, serialized as they are; this script reads that file — each
struct's fields in order, their types and their doc comments — and the docstring of
``afsim.store.metrics.default_metrics`` (the store's scalars), and writes one table per output
table: column, unit, interval, meaning. So the glossary cannot drift from the code:
python/tests/test_glossary.py regenerates it and compares it with the committed file, and
checks that every column a run produces is in it.

- **Meaning** is the field's doc comment, verbatim (the struct's doc comment heads its table).
- **Unit** is read from the name, as the code's naming rule writes units in names
  (``_kbps`` kb/s, ``_bps`` bit/s, ``_s`` seconds, ``bytes`` bytes, ``packets`` and the packet
  counters packets), or from the type (text, true/false); see ``unit``.
- **Interval**: "after warm-up" when the doc comment says the measured interval
  (``[warmup, end]``), "whole run" when it says so, "at the end" for end states, "instant" for
  times of events; otherwise the table's rule (``DEFAULT_INTERVAL``: the engine's counters run
  from time 0 — only the throughputs, goodputs and conformant rates start at the warm-up).

Usage: ``python3 tools/glossary.py`` (writes docs/glossary.md), ``--check`` (exit 1 if the
committed file differs).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT_RS = ROOT / "crates/afsim-core/src/report.rs"
RED_COMMON_RS = ROOT / "crates/afsim-core/src/queue/red/common.rs"
METRICS_PY = ROOT / "python/afsim/store/metrics.py"
RESULTS_PY = ROOT / "python/afsim/results.py"
OUT = ROOT / "docs/glossary.md"

#: Output table → its row struct, in the order the report lists them.
TABLES = [
    ("flows", "FlowRow"),
    ("queues", "QueueRow"),
    ("colours", "ColourRow"),
    ("code_points", "CodePointRow"),
    ("conditioners", "ConditionerRow"),
    ("groups", "GroupRow"),
    ("csas", "CsaRow"),
    ("sima_queues", "SimaQueueRow"),
    ("sima_levels", "SimaLevelRow"),
    ("delay_classes", "DelayClassRow"),
]

#: What a column covers when its doc comment does not say: every counter of the engine counts
#: from time 0 (the warm-up only starts the rates: world/report.rs); a group's columns are its
#: flows' throughputs, over the measured interval.
DEFAULT_INTERVAL = {"groups": "after warm-up"}

#: Counters of packets (the others count events: timeouts, CSA periods, …).
_PACKETS = ("packets", "arrivals", "departures", "drops", "marks", "matched", "forwarded",
            "dropped", "held_end", "max_held", "queued", "ce_received", "signals", "losses")
_RATIOS = ("ratio", "utilization", "respect_of_service", "_ros", "jain", "fieb", "rate",
           "share", "alpha", "weight", "dpa", "avg_")
#: Settings rather than measurements: no interval.
_SETTINGS = ("dscp", "level", "dp", "finite", "rate_bps", "committed_rate_bps", "contract_kbps",
             "rt_limit_bytes", "nrt_limit_bytes", "rt_weight", "nrt_weight", "dpa_offset",
             "dpa_slope", "flows")


def unit(table: str, name: str, rust: str) -> str:
    """A column's unit, from its name (units are written in names) or its type."""
    if re.search(r"_kbps(_|$)", name):
        return "kb/s (10³ bit/s)"
    if re.search(r"_bps(_|$)", name):
        return "bit/s"
    if re.search(r"_s(_|$)", name):
        return "s"
    if "bytes" in name:
        return "bytes"
    base = rust.removeprefix("Option<").removesuffix(">")
    if base in ("String", "&'static str") or rust.startswith(("Arc<str>", "Cow<'static, str>")):
        return "text"
    if base == "bool":
        return "true/false"
    if name == "dscp":
        return "code point (0–63)"
    if name in ("level", "dp", "dpa_end", "dpa_max"):
        return "level"
    if base.startswith("Vec<"):
        return "list of ratios"
    packets = ("arrivals", "signals") if table == "csas" else _PACKETS
    if base in ("u64", "u32") and any(k in name for k in packets):
        return "packets"
    if base in ("u64", "u32", "u8"):
        return "count"
    if name.endswith("_packets") or "len_packets" in name:
        return "packets"
    if any(k in name for k in _RATIOS):
        return "ratio"
    return "number"


def interval(table: str, name: str, doc: str, u: str) -> str:
    text = doc.lower()
    if u == "text" or name in _SETTINGS:
        return "—"
    if "measured interval" in text or "[warmup" in text or "after the warm-up" in text:
        return "after warm-up"
    if name.startswith(("first_", "last_", "completion_")):
        return "instant"
    if "whole run" in text or "from time 0" in text or "over the run" in text:
        return "whole run"
    if name.endswith("_end") or "when the run stopped" in text or "at the end" in text:
        return "at the end"
    return DEFAULT_INTERVAL.get(table, "whole run")


def structs(text: str) -> dict[str, tuple[str, list[tuple[str, str, str, bool]]]]:
    """Every ``pub struct`` of ``text``: its doc comment and its fields (name, type, doc,
    flattened)."""
    out: dict[str, tuple[str, list[tuple[str, str, str, bool]]]] = {}
    lines = text.splitlines()
    doc: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = re.match(r"pub struct (\w+) \{", line)
        if line.startswith("///"):
            doc.append(line[3:].strip())
        elif m:
            sdoc = " ".join(doc)
            doc = []
            fields = []
            flatten = False
            i += 1
            while not lines[i].strip().startswith("}"):
                f = lines[i].strip()
                if f.startswith("///"):
                    doc.append(f[3:].strip())
                elif f.startswith("#[serde(flatten)]"):
                    flatten = True
                else:
                    fm = re.match(r"pub (\w+): (.+),$", f)
                    if fm:
                        fields.append((fm.group(1), fm.group(2), " ".join(doc), flatten))
                    doc, flatten = [], False
                i += 1
            out[m.group(1)] = (sdoc, fields)
        elif not line.startswith("#["):
            doc = []
        i += 1
    return out


def columns(all_structs: dict, struct: str) -> list[tuple[str, str, str]]:
    """The output columns of a row struct: (column, type, doc), flattened structs spread and
    the queues' ``drops`` (a map by reason, ``QueueDrops``) as ``drops_<reason>``."""
    cols = []
    for name, rust, doc, flatten in all_structs[struct][1]:
        if flatten:
            inner = re.sub(r"[^\w].*", "", rust)
            cols.extend((n, t, d or doc) for n, t, d, _ in all_structs[inner][1])
        elif rust.startswith("std::collections::BTreeMap") or rust == "QueueDrops":
            # QueueDrops: two (reason, count) pairs, written as the map it replaced
            cols.append((f"{name}_<reason>", "u64", doc + " One column per reason "
                         "(`drops_overflow`, `drops_early`, …)."))
        else:
            cols.append((name, rust, doc))
    return cols


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    text = REPORT_RS.read_text(encoding="utf-8")
    all_structs = structs(text)
    mean_pkt = re.search(r"mean_pkt_size: (\d+),", RED_COMMON_RS.read_text(encoding="utf-8"))
    metrics_doc = re.search(r'def default_metrics.*?"""(.*?)"""', METRICS_PY.read_text(
        encoding="utf-8"), re.S)
    out = [
        "# Glossary of output columns",
        "",
        "<!-- Generated by tools/glossary.py from crates/afsim-core/src/report.rs and",
        "     python/afsim/store/metrics.py; do not edit: python3 tools/glossary.py rewrites it,",
        "     python/tests/test_glossary.py checks it. -->",
        "",
        "Every column of the tables `afsim run` prints and writes (`--out`: CSV and Parquet) and",
        "`afsim.Results` holds, one section per table. **Interval**: *after warm-up* covers the",
        "measured interval [warmup, end]; *whole run* counts from time 0 (the warm-up does not",
        "reset it); *at the end* is the state when the run stopped; *instant* is a time in seconds",
        "from the start. **Unit** kb/s is 1000 bit/s; sizes are IP bytes unless a meaning says",
        "otherwise. An empty cell (JSON `null`, pandas NaN) is a column that does not apply to",
        "that row (a TCP column of a CBR flow).",
        "",
    ]
    if mean_pkt:
        out += [
            f"RED-family queues (`red`, `rio`, `wred`) use `mean_packet_size` (default "
            f"{mean_pkt.group(1)} B, `queue::red::Common`) as the packet size of the idle-time",
            "decay of the average and of thresholds in bytes; it changes `drops_early`,",
            "`drops_forced` and `ecn_marks` of those queues whenever a scenario leaves it unset.",
            "",
        ]
    for table, struct in TABLES:
        if struct not in all_structs:
            continue
        sdoc = all_structs[struct][0]
        out += [f"## {table}", "", f"`{struct}`: {sdoc}" if sdoc else f"`{struct}`.", "",
                "| column | unit | interval | meaning |", "|---|---|---|---|"]
        for name, rust, doc in columns(all_structs, struct):
            u = unit(table, name, rust)
            out.append(f"| `{name}` | {u} | {interval(table, name, doc, u)} | "
                       f"{_cell(doc) or '—'} |")
        out.append("")
    out += series_sections()
    if metrics_doc:
        body = "\n".join(line.strip() for line in metrics_doc.group(1).strip().splitlines())
        out += ["## Store scalars (`afsim sweep`, `afsim results`)", "",
                "Computed from a run's report by `afsim.store.metrics.default_metrics`, whose "
                "docstring reads:", "", body, ""]
    return "\n".join(out)


def series_glossary() -> dict[str, tuple[str, dict[str, str]]]:
    """``afsim.results.SERIES_GLOSSARY``, read as a literal (no import of afsim)."""
    import ast

    tree = ast.parse(RESULTS_PY.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "SERIES_GLOSSARY" for t in targets):
                assert node.value is not None
                return ast.literal_eval(node.value)
    return {}


def series_sections() -> list[str]:
    """A section per ``[[monitor]]`` count series: the interval of every count is the row's."""
    out = []
    for table, (what, cols) in series_glossary().items():
        out += [f"## {table}", "", f"Time series (`Results.{table}`, `{table}.parquet`, the "
                f"store's `{table}` table): {what}", "",
                "| column | unit | interval | meaning |", "|---|---|---|---|"]
        for name, doc in cols.items():
            rust = "String" if name in ("queue", "direction", "code_point") else "u64"
            u = "s" if name == "time_s" else unit(table, name, rust)
            span = "—" if u == "text" or name in _SETTINGS else (
                "instant" if name == "time_s" else "per interval")
            out.append(f"| `{name}` | {u} | {span} | {_cell(doc)} |")
        out.append("")
    return out


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python3 tools/glossary.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
