"""The results of one run: the parsed report and its per-flow and per-queue tables.

Read this first: nothing here computes a result. The report (``RunResult.summary_json()``) is
afsim-core's; the tables are its rows as columns, built in Rust and handed over as numpy arrays
(one column per field, ``drops_<reason>`` per drop reason, NaN for "none"). ``write`` stores the
deterministic JSON text unchanged, so a stored ``summary.json`` compares byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from afsim._core import RunResult

#: The files ``Results.write`` produces, in the order it writes them.
OUTPUT_FILES = (
    "summary.json",
    "flows.csv",
    "queues.csv",
    "colours.csv",
    "code_points.csv",
    "conditioners.csv",
    "groups.csv",
    "csas.csv",
    "sima_queues.csv",
    "sima_levels.csv",
    "flows.parquet",
    "queues.parquet",
    "colours.parquet",
    "code_points.parquet",
    "conditioners.parquet",
    "groups.parquet",
    "csas.parquet",
    "sima_queues.parquet",
    "sima_levels.parquet",
)

#: Columns of a TFRC trace (afsim-core `transport::tfrc::trace::FIELDS`).
TFRC_TRACE_COLUMNS = ("time_s", "x_kbps", "x_recv_kbps", "p", "rtt_s")

#: Columns of a queue's time series (afsim-core `metrics::series::QueueSeries`).
MONITOR_COLUMNS = ("time_s", "len_packets", "len_bytes", "avg", "avg_in")

#: The report's small tables, built from its JSON rows (a handful of rows each).
SMALL_TABLES = ("colours", "code_points", "conditioners", "groups", "csas", "sima_queues",
                "sima_levels")


@dataclass(frozen=True)
class Results:
    """One run: the report (``summary``), its tables, and how long it took on this machine."""

    scenario: str
    seed: int
    #: The parsed report: scenario, seed, end_time_s, stop_reason, warmup_s, flows, queues,
    #: conservation, engine.
    summary: dict[str, Any]
    #: One row per flow; columns are the report's flow fields.
    flows: pd.DataFrame
    #: One row per output queue; the ``drops`` map is spread over ``drops_<reason>`` columns.
    queues: pd.DataFrame
    #: One row per (queue, drop-precedence level) that saw packets: arrivals, departures,
    #: drops by reason, ECN marks, loss ratio.
    colours: pd.DataFrame
    #: One row per (queue, direction, code point) that saw packets: ``colours`` split so that
    #: AF13, best effort and ACKs sharing a level stay apart.
    code_points: pd.DataFrame
    #: One row per edge conditioner: packets by colour, drops, Respect of Service.
    conditioners: pd.DataFrame
    #: One row per flow group: total, spread, Jain's index and FIEB of throughputs.
    groups: pd.DataFrame
    #: One row per Congestion Signaling Algorithm: final and lowest α, decreases, increases.
    csas: pd.DataFrame
    #: One row per SIMA core queue: parameters, averaged occupancies, the allowed drop
    #: precedence DP_a at the end, its maximum, time-weighted mean and time share per value.
    sima_queues: pd.DataFrame
    #: One row per (SIMA core queue, class, drop precedence) that saw packets: arrivals,
    #: departures, drops below DP_a and overflow drops, loss ratio.
    sima_levels: pd.DataFrame
    #: α of each CSA over time (csa, time_s, alpha), one row per change. Empty if none.
    alpha: pd.DataFrame
    #: TCP sender time series (flows with ``trace = true``), one row per change of state:
    #: flow, time_s, cwnd, ssthresh (bytes), srtt, rto (s), bytes_in_flight. Empty if none.
    traces: pd.DataFrame
    #: Every packet SIMA conditioners with ``trace = true`` marked: conditioner, time_s, flow,
    #: dp, mbr_bps (the measured momentary bit rate). Empty if none.
    dp_trace: pd.DataFrame
    #: TFRC sender time series (flows with ``trace = true``), one row per change of state:
    #: flow, time_s, x_kbps, x_recv_kbps (kb/s of segment bytes), p, rtt_s. Empty if none.
    tfrc_traces: pd.DataFrame
    #: Queues sampled on a time grid (``[[monitor]]``, ``--monitor``): queue, time_s,
    #: len_packets, len_bytes, avg and avg_in (the discipline's averages as last computed: RED's
    #: and WRED's avg, RIO's avg_total and avg_in; NaN where it keeps none). Empty if none.
    monitor: pd.DataFrame
    conservation: dict[str, Any]
    #: Wall-clock seconds of the core run (not part of the report: it differs between runs).
    wall_seconds: float
    events: int
    packet_hops: int
    #: The report exactly as afsim-core wrote it (deterministic bytes).
    summary_json: str = field(repr=False)

    @classmethod
    def from_run(cls, result: RunResult) -> Results:
        """Builds the tables from a finished run's columns (no loop over rows in Python)."""
        # pandas is imported here, not at the top: `import afsim` stays light for the bench
        # workers, whose peak memory should be the simulator's.
        import pandas as pd

        text = result.summary_json()
        summary = json.loads(text)
        return cls(
            scenario=summary["scenario"],
            seed=summary["seed"],
            summary=summary,
            flows=pd.DataFrame(result.flows_columns()),
            queues=pd.DataFrame(result.queues_columns()),
            # a live report (afsim live) has no code_points table
            **{t: pd.DataFrame.from_records(summary.get(t, [])) for t in SMALL_TABLES},
            traces=_traces(result.traces()),
            tfrc_traces=_long("flow", result.tfrc_traces(), list(TFRC_TRACE_COLUMNS)),
            alpha=_long("csa", result.alpha_traces(), ["time_s", "alpha"]),
            dp_trace=_long("conditioner", result.dp_traces(), ["time_s", "flow", "dp", "mbr_bps"]),
            monitor=_long("queue", result.queue_series(), list(MONITOR_COLUMNS)),
            conservation=summary["conservation"],
            wall_seconds=result.wall_seconds,
            events=result.events,
            packet_hops=result.packet_hops,
            summary_json=text,
        )

    @property
    def end_time_s(self) -> float:
        """Simulated time at which the run ended, in seconds."""
        return float(self.summary["end_time_s"])

    @property
    def sim_seconds_per_wall_second(self) -> float:
        """How much faster than real time the run went (inf for an instant run)."""
        if self.wall_seconds <= 0.0:
            return float("inf")
        return self.end_time_s / self.wall_seconds

    def write(self, out_dir: str | Path) -> list[Path]:
        """Writes ``OUTPUT_FILES`` into ``out_dir`` (created if needed): summary.json (the
        report's exact bytes) and each table (flows, queues, colours, code points, conditioners,
        groups, CSAs,
        SIMA queues and levels) as CSV and Parquet, plus the time series that exist (traces,
        tfrc_traces, alpha, dp_trace, monitor) as Parquet. Returns their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / name for name in OUTPUT_FILES]
        if len(self.traces):
            paths.append(out / "traces.parquet")
        if len(self.tfrc_traces):
            paths.append(out / "tfrc_traces.parquet")
        if len(self.alpha):
            paths.append(out / "alpha.parquet")
        if len(self.dp_trace):
            paths.append(out / "dp_trace.parquet")
        if len(self.monitor):
            paths.append(out / "monitor.parquet")
        for path in paths:
            if path.name == "summary.json":
                path.write_text(self.summary_json, encoding="utf-8")
                continue
            table: pd.DataFrame = getattr(self, path.stem)
            if path.suffix == ".csv":
                table.to_csv(path, index=False)
            else:
                table.to_parquet(path, index=False, engine="pyarrow")
        return paths


def _long(key: str, columns: dict[str, dict[str, Any]], names: list[str]) -> pd.DataFrame:
    """One long table from per-name column dicts (concatenated numpy arrays), the name in
    column ``key``."""
    import pandas as pd

    frames = [pd.DataFrame({key: name, **cols}) for name, cols in columns.items()]
    if not frames:
        return pd.DataFrame(columns=[key, *names])
    return pd.concat(frames, ignore_index=True)


def _traces(columns: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """TCP sender traces as one long table."""
    return _long("flow", columns, ["time_s", "cwnd", "ssthresh", "srtt", "rto", "bytes_in_flight"])
