"""The results of one run: the parsed report and its per-flow and per-queue tables.

Read this first: nothing here computes a result. The report (``RunResult.summary_json()``) is
afsim-core's; the tables are its rows as columns, built in Rust and handed over as numpy arrays
(one column per field, ``drops_<reason>`` per drop reason, NaN for "none"). ``write`` stores the
deterministic JSON text unchanged (streamed from the run), so a stored ``summary.json`` compares
byte for byte.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.output import write_file, write_file_chunks

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
    "delay_classes.csv",
    "flows.parquet",
    "queues.parquet",
    "colours.parquet",
    "code_points.parquet",
    "conditioners.parquet",
    "groups.parquet",
    "csas.parquet",
    "sima_queues.parquet",
    "sima_levels.parquet",
    "delay_classes.parquet",
)

#: The time series and event records ``Results.write`` adds as Parquet when a run has them
#: (``[[monitor]]``), in the order it writes them.
SERIES_FILES = (
    "traces",
    "tfrc_traces",
    "alpha",
    "dp_trace",
    "monitor",
    "monitor_levels",
    "monitor_code_points",
    "monitor_flows",
    "monitor_conditioners",
    "queue_delays",
    "queue_delay_hist",
    "queue_events",
)

#: Columns of a TFRC trace (afsim-core `transport::tfrc::trace::FIELDS`).
TFRC_TRACE_COLUMNS = ("time_s", "x_kbps", "x_recv_kbps", "p", "rtt_s")

#: Columns of a queue's time series (afsim-core `metrics::series::QueueSeries`).
MONITOR_COLUMNS = ("time_s", "len_packets", "len_bytes", "avg", "avg_in")

#: The report's small tables, built from its JSON rows (a handful of rows each).
SMALL_TABLES = ("colours", "code_points", "conditioners", "groups", "csas", "sima_queues",
                "sima_levels", "delay_classes")

#: Columns of the per-interval counters (afsim-core `metrics::series::CountSeries`).
FLOW_SERIES_COLUMNS = ("time_s", "flow", "delivered_packets", "delivered_bytes",
                       "dropped_packets")
CONDITIONER_SERIES_COLUMNS = ("time_s", "conditioner", "green_packets", "yellow_packets",
                              "red_packets", "green_bytes", "yellow_bytes", "red_bytes", "dropped")
LEVEL_SERIES_COLUMNS = ("time_s", "level", "arrivals", "departures", "drops", "ecn_marks")
#: Columns of a queue's per-code-point counters (afsim-core `metrics::series::CodePointSeries`).
CODE_POINT_SERIES_COLUMNS = ("time_s", "direction", "dscp", "code_point", "arrivals",
                             "drops_overflow", "drops_early", "ecn_marks")
#: Columns of a queue's event record (afsim-core `metrics::trace::QueueTrace`).
QUEUE_EVENT_COLUMNS = ("time_s", "event", "flow", "dscp", "level", "size_bytes", "len_packets",
                       "reason")
QUEUE_DELAY_COLUMNS = ("count", "mean_s", "p50_s", "p90_s", "p99_s", "max_s")

#: The ``[[monitor]]`` count series as docs/glossary.md describes them (tools/glossary.py
#: reads this literal; python/tests/test_glossary.py checks it names every column a run
#: gives): table → (what a row is, {column: meaning}). Every count covers the row's interval
#: [time_s − interval, time_s).
SERIES_GLOSSARY = {
    "monitor_levels": (
        "One sampled queue (`kind = \"queue\"`), one drop-precedence level, one interval.",
        {"queue": "The queue (\"from->to\").",
         "time_s": "The interval's end, s; the row counts [time_s − interval, time_s).",
         "level": "Drop-precedence level in the domain's colour table.",
         "arrivals": "Packets of this level offered to the queue in the interval.",
         "departures": "Packets of this level that left for the link in the interval.",
         "drops": "Packets of this level the queue refused in the interval (overflow and "
                  "early drops together).",
         "ecn_marks": "ECN marks the queue put on this level's packets in the interval."}),
    "monitor_code_points": (
        "One sampled queue (`kind = \"queue\"`), one (direction, code point) it has seen, one "
        "interval: `monitor_levels` split so that AF13, best effort and ACKs sharing a level "
        "stay apart. A code point has rows from the first instant after its first packet on.",
        {"queue": "The queue (\"from->to\").",
         "time_s": "The interval's end, s; the row counts [time_s − interval, time_s).",
         "direction": "\"forward\" (data, from the flows' sources) or \"reverse\" (ACKs and "
                      "feedback), as in `code_points`.",
         "dscp": "The code point the packets carried on arrival at the queue.",
         "code_point": "Its name (\"AF11\", \"BE\"; \"DSCP n\" for one without a name).",
         "arrivals": "Packets of this code point offered to the queue in the interval.",
         "drops_overflow": "Of them, refused because the buffer was full.",
         "drops_early": "Of them, RED-family early and forced drops (as `drops_early` of "
                        "`code_points`).",
         "ecn_marks": "ECN marks the queue made on their arrivals, on this code point: the "
                      "arriving packet's under mark-tail (the default); under mark-front, "
                      "mark-random or OUT marking the marked packet may be a queued one "
                      "(docs/assumptions.md)."}),
}


@dataclass(frozen=True)
class Results:
    """One run: the report (``summary``), its tables, and how long it took on this machine.

    The report's flow and queue rows are the ``flows`` and ``queues`` tables, built from the
    run's columns; ``head`` is the rest of the report. ``summary`` (the whole report parsed)
    and ``summary_json`` (its text) are made when first read: at 100,000 flows the report is
    430 MB of JSON, and parsed it was most of ``afsim run``'s 1.9 GB (issue 28)."""

    scenario: str
    seed: int
    #: The report without its ``flows`` and ``queues`` rows: scenario, seed, end_time_s,
    #: stop_reason, warmup_s, colours, code_points, conditioners, groups, delay_classes, csas,
    #: sima_queues, sima_levels, conservation, engine, warnings.
    head: dict[str, Any]
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
    #: One row per code point that delivered packets (the one they carry at delivery): the
    #: one-way delay of the flows' forward packets, count, mean, p50, p90, p99 (within 0.1 %)
    #: and max, in seconds.
    delay_classes: pd.DataFrame
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
    #: Per sampled queue, drop-precedence level and interval: queue, time_s (the interval's
    #: end: counts of [time_s − interval, time_s)), level, arrivals, departures, drops,
    #: ecn_marks. Empty if none.
    monitor_levels: pd.DataFrame
    #: Per sampled queue, (direction, code point) it has seen and interval: queue, time_s (the
    #: interval's end), direction, dscp, code_point, arrivals, drops_overflow, drops_early,
    #: ecn_marks — ``monitor_levels`` split so that AF13, best effort and ACKs sharing a level
    #: stay apart. A code point has rows from its first packet on. Empty if none.
    monitor_code_points: pd.DataFrame
    #: Per flow and interval (``[[monitor]] kind = "flows"``): time_s (the interval's end),
    #: flow, delivered_packets, delivered_bytes, dropped_packets (forward direction) and
    #: rate_kbps (delivered bits / interval, kb/s). Empty if none.
    monitor_flows: pd.DataFrame
    #: Per conditioner and interval (``kind = "conditioners"``): time_s, conditioner,
    #: green/yellow/red packets and bytes, dropped. Empty if none.
    monitor_conditioners: pd.DataFrame
    #: Per sampled queue: its queueing delay (enqueue to start of transmission), count,
    #: mean_s, p50_s, p90_s, p99_s (HDR histogram, within 0.1 %) and max_s. Empty if none.
    queue_delays: pd.DataFrame
    #: The same delays as a histogram: queue, bin_upper_s (bins a factor 1.1 wide), count.
    queue_delay_hist: pd.DataFrame
    #: Every event of the traced queues (``kind = "events"``, ``--trace-queue``): queue,
    #: time_s, event (enqueue, mark, drop, dequeue), flow, dscp, level, size_bytes,
    #: len_packets (after the event), reason (a drop's). Empty if none.
    queue_events: pd.DataFrame
    conservation: dict[str, Any]
    #: Wall-clock seconds of the core run (not part of the report: it differs between runs).
    wall_seconds: float
    events: int
    packet_hops: int
    #: The run the results were made from (its report in afsim-core's memory), until the
    #: report's text is made from it; not pickled (``__getstate__``).
    _run: Any = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def summary_json(self) -> str:
        """The report exactly as afsim-core wrote it (deterministic bytes)."""
        return self._run.summary_json()

    @functools.cached_property
    def summary(self) -> dict[str, Any]:
        """The parsed report: ``head``'s keys plus ``flows`` and ``queues`` (a list of dicts each;
        the ``flows`` and ``queues`` tables hold the same rows as columns)."""
        return json.loads(self.summary_json)

    def __getstate__(self) -> dict[str, Any]:
        # the run is a handle to afsim-core's memory: a pickle carries the report's text instead
        state = dict(self.__dict__)
        state["summary_json"] = self.summary_json
        state["_run"] = None
        return state

    @classmethod
    def from_run(cls, result: RunResult) -> Results:
        """Builds the tables from a finished run's columns (no loop over rows in Python)."""
        # pandas is imported here, not at the top: `import afsim` stays light for the bench
        # workers, whose peak memory should be the simulator's.
        import pandas as pd

        head = json.loads(result.summary_head_json())
        return cls(
            scenario=head["scenario"],
            seed=head["seed"],
            head=head,
            flows=pd.DataFrame(result.flows_columns()),
            queues=pd.DataFrame(result.queues_columns()),
            # a live report (afsim live) has no code_points table
            **{t: pd.DataFrame.from_records(head.get(t, [])) for t in SMALL_TABLES},
            traces=_traces(result.traces()),
            tfrc_traces=_long("flow", result.tfrc_traces(), list(TFRC_TRACE_COLUMNS)),
            alpha=_long("csa", result.alpha_traces(), ["time_s", "alpha"]),
            dp_trace=_long("conditioner", result.dp_traces(), ["time_s", "flow", "dp", "mbr_bps"]),
            monitor=_long("queue", result.queue_series(), list(MONITOR_COLUMNS)),
            monitor_levels=_long("queue", result.level_series(), list(LEVEL_SERIES_COLUMNS)),
            monitor_code_points=_long("queue", result.code_point_series(),
                                      list(CODE_POINT_SERIES_COLUMNS)),
            monitor_flows=_with_rate(_columns(result.flow_series(), FLOW_SERIES_COLUMNS)),
            monitor_conditioners=_columns(result.conditioner_series(),
                                          CONDITIONER_SERIES_COLUMNS),
            queue_delays=_delays(result.queue_delays()),
            queue_delay_hist=_long("queue", {q: {"bin_upper_s": d["bin_upper_s"],
                                                 "count": d["bin_count"]}
                                             for q, d in result.queue_delays().items()},
                                   ["bin_upper_s", "count"]),
            queue_events=_long("queue", result.queue_traces(), list(QUEUE_EVENT_COLUMNS)),
            conservation=head["conservation"],
            wall_seconds=result.wall_seconds,
            events=result.events,
            packet_hops=result.packet_hops,
            _run=result,
        )

    @property
    def end_time_s(self) -> float:
        """Simulated time at which the run ended, in seconds."""
        return float(self.head["end_time_s"])

    @property
    def sim_seconds_per_wall_second(self) -> float:
        """How much faster than real time the run went (inf for an instant run)."""
        if self.wall_seconds <= 0.0:
            return float("inf")
        return self.end_time_s / self.wall_seconds

    def write(self, out_dir: str | Path, run: RunResult | None = None) -> list[Path]:
        """Writes ``OUTPUT_FILES`` into ``out_dir`` (created if needed): summary.json (the
        report's exact bytes; streamed from ``run``, the run these results were made from, if
        given: ``RunResult.write_summary``'s pieces, never one encoded copy of the whole
        text) and each table (flows, queues, colours, code points, conditioners,
        groups, CSAs,
        SIMA queues and levels) as CSV and Parquet, plus the time series that exist (traces,
        tfrc_traces, alpha, dp_trace and the monitors', ``SERIES_FILES``) as Parquet. Returns
        their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / name for name in OUTPUT_FILES]
        paths += [out / f"{name}.parquet" for name in SERIES_FILES if len(getattr(self, name))]
        for path in paths:
            if path.name == "summary.json":
                if run is not None:
                    # streamed a megabyte at a time, each piece written whole (afsim.output)
                    write_file_chunks(path, run.write_summary)
                else:
                    write_file(path, self.summary_json)
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


def _columns(columns: dict[str, Any] | None, names: tuple[str, ...]) -> pd.DataFrame:
    """A table from one column dict (None: the empty table with these columns)."""
    import pandas as pd

    if columns is None:
        return pd.DataFrame(columns=list(names))
    return pd.DataFrame(columns)


def _with_rate(flows: pd.DataFrame) -> pd.DataFrame:
    """Adds rate_kbps to a flows series: the interval is its first instant (the grid starts
    one interval after time 0)."""
    if not len(flows):
        return flows.assign(rate_kbps=[])
    interval_s = float(flows["time_s"].min())
    return flows.assign(rate_kbps=flows["delivered_bytes"] * 8.0 / interval_s / 1e3)


def _delays(columns: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per sampled queue: its queueing delay's count, mean and percentiles."""
    import pandas as pd

    rows = [{"queue": q, **{k: d[k] for k in QUEUE_DELAY_COLUMNS}} for q, d in columns.items()]
    return pd.DataFrame(rows, columns=["queue", *QUEUE_DELAY_COLUMNS])
