//! # afsim._core: the Python bindings of afsim-core
//!
//! Read this first: this crate is a wrapper and nothing else. It holds
//! - two wrapper types: `Scenario` (a loaded `Spec`) and `RunResult` (a `Report` plus the wall
//!   time the run took),
//! - the conversions of a report's rows into columns (numpy arrays, lists of names),
//! - and the one place (`scenario_error`, `run_error`) where core errors become Python
//!   exceptions.
//!
//! No model logic lives here: what a run computes, and what the report says, is afsim-core's.
//! The GIL is released while the core runs; it is taken back only for the progress callback and
//! for `check_signals`, so Ctrl-C stops a run within one progress interval.

use std::path::PathBuf;
use std::time::Instant;

use afsim_core::report::Report;
use afsim_core::scenario::spec::MonitorKind;
use afsim_core::world::Progress;
use afsim_core::{RunError, ScenarioError as CoreScenarioError, Spec, World};
use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping};

/// On Linux, everything this library allocates (the world: ports, agents, packets, the event
/// queue, the report) comes from jemalloc, not the C library's malloc (issue 28), configured
/// (`JEMALLOC_CONF` below) to ask for transparent huge pages on all its memory (`thp:always`:
/// `madvise(MADV_HUGEPAGE)` on each extent, which is what a kernel in THP's `madvise` mode, the
/// common default, needs). A run at thousands of flows then keeps its per-flow state on 2 MiB
/// pages: the packet path's cache misses no longer each cost a page walk as well. Results do
/// not depend on the allocator (nothing reads an address); only time and peak memory do, both
/// measured in docs/performance.md ("Ninth round merged").
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read by it at its start (the symbol is its `malloc_conf`, a C string
/// pointer, under the prefix tikv-jemallocator gives jemalloc's names): huge pages for its extents
/// (`thp:always`) and for its own metadata once it grows (`metadata_thp:auto`).
#[cfg(target_os = "linux")]
#[export_name = "_rjem_malloc_conf"]
pub static JEMALLOC_CONF: &[u8; 29] = b"thp:always,metadata_thp:auto\0";

#[cfg(target_os = "linux")]
mod columns;
mod live;
mod pieces;
use columns::{count_columns, flow_columns, queue_columns};
use pieces::Pieces;

pyo3::create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario could not be loaded. Attributes: file, line, column, field, message \
     (line and column are 1-based; 0 when the error belongs to no place in the file)."
);
pyo3::create_exception!(
    _core,
    ConservationError,
    PyRuntimeError,
    "A run broke the packet conservation identity (sent = delivered + dropped + in flight). \
     Attribute report_json: the report of the failed run, as Report::to_json() gives it."
);

// ---------------------------------------------------------------------------------------------
// Errors: the one place where core errors become Python exceptions.

fn scenario_error(py: Python<'_>, e: &CoreScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let set = || -> PyResult<()> {
        let v = err.value(py);
        v.setattr("file", &e.file)?;
        v.setattr("line", e.line)?;
        v.setattr("column", e.column)?;
        v.setattr("field", &e.field)?;
        v.setattr("message", &e.message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// Maps a failed run to an exception. `Interrupted` only comes from our own progress closure,
/// which keeps the Python exception that caused it (`pending`).
fn run_error(py: Python<'_>, spec: &Spec, e: RunError, pending: Option<PyErr>) -> PyErr {
    match e {
        // A capture file that cannot be created or written: its own place in the file.
        RunError::Spec(afsim_core::scenario::spec::SpecError::Capture(place)) => {
            scenario_error(py, &place)
        }
        RunError::Capture(place) => scenario_error(py, &place),
        // A spec that passed the loader but not the world builder's structural check: still the
        // user's input, so a ScenarioError, named after the scenario (no file position known).
        RunError::Spec(se) => scenario_error(
            py,
            &CoreScenarioError {
                file: spec.name.clone(),
                line: 0,
                column: 0,
                field: String::new(),
                message: se.to_string(),
            },
        ),
        RunError::Conservation(report) => {
            let err = ConservationError::new_err(format!(
                "packet conservation violated: {}",
                report.conservation.identity
            ));
            match err.value(py).setattr("report_json", report.to_json()) {
                Ok(()) => err,
                Err(other) => other,
            }
        }
        RunError::Interrupted => pending
            .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("run interrupted")),
    }
}

// ---------------------------------------------------------------------------------------------
// Scenario

/// A loaded, validated scenario (immutable). Make one with `load_scenario`.
#[pyclass(frozen, module = "afsim._core")]
pub struct Scenario {
    pub(crate) spec: Spec,
}

#[pymethods]
impl Scenario {
    #[getter]
    fn name(&self) -> &str {
        &self.spec.name
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.spec.seed
    }
    #[getter]
    fn n_nodes(&self) -> usize {
        self.spec.nodes.len()
    }
    #[getter]
    fn n_links(&self) -> usize {
        self.spec.links.len()
    }
    #[getter]
    fn n_flows(&self) -> usize {
        self.spec.flows.len()
    }
    /// Simulated duration in seconds, or None when the run stops on another condition.
    #[getter]
    fn duration_s(&self) -> Option<f64> {
        self.spec.stop.duration.map(|d| d.as_secs_f64())
    }
    /// The same scenario with another seed.
    fn with_seed(&self, seed: u64) -> Scenario {
        let mut spec = self.spec.clone();
        spec.seed = seed;
        Scenario { spec }
    }
    /// Valid but surely unmeant settings the loader found: dicts with file, line, column,
    /// field and message (the report's `warnings`).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for w in &self.spec.warnings {
            let d = PyDict::new(py);
            d.set_item("file", &w.file)?;
            d.set_item("line", w.line)?;
            d.set_item("column", w.column)?;
            d.set_item("field", &w.field)?;
            d.set_item("message", &w.message)?;
            out.append(d)?;
        }
        Ok(out)
    }
    /// Every port's name (`from->to`, as queues are named), in port order.
    fn port_names(&self) -> Vec<String> {
        self.spec.port_names()
    }
    /// Paths of the pcap files this scenario writes (`[[capture]]` and `with_capture`).
    #[getter]
    fn captures(&self) -> Vec<PathBuf> {
        self.spec.captures.iter().map(|c| c.path.clone()).collect()
    }
    /// The same scenario also capturing the packets that leave port `port` (`from->to`) into
    /// `path`; `origin` names the request in errors. ValueError for an unknown port.
    #[pyo3(signature = (port, path, origin="--capture"))]
    fn with_capture(&self, port: &str, path: PathBuf, origin: &str) -> PyResult<Scenario> {
        let mut spec = self.spec.clone();
        spec.add_capture(port, path, origin)
            .map_err(PyValueError::new_err)?;
        Ok(Scenario { spec })
    }
    /// What this scenario samples over time (`[[monitor]]` and `with_monitor`): the queue's
    /// name for a queue's series, `"flows"` or `"conditioners"`, each with its sampling
    /// interval in seconds (event traces: `traced_queues`).
    #[getter]
    fn monitors(&self) -> Vec<(String, f64)> {
        self.spec
            .monitors
            .iter()
            .filter(|m| m.kind != MonitorKind::Events)
            .map(|m| {
                let target = match m.kind {
                    MonitorKind::Queue => self.spec.port_name(m.port),
                    k => k.name().to_string(),
                };
                (target, m.interval.as_secs_f64())
            })
            .collect()
    }
    /// Queues whose every event this scenario records (`[[monitor]] kind = "events"`,
    /// `with_queue_trace`).
    #[getter]
    fn traced_queues(&self) -> Vec<String> {
        self.spec
            .monitors
            .iter()
            .filter(|m| m.kind == MonitorKind::Events)
            .map(|m| self.spec.port_name(m.port))
            .collect()
    }
    /// The same scenario also sampling, every `interval` (a time with its unit, like "1ms"),
    /// `target`: a queue by its port (`from->to`: length, averages, per-level counts, queueing
    /// delays), `"flows"` (every flow's deliveries and drops) or `"conditioners"` (every
    /// conditioner's colours). ValueError for an unknown or already monitored target or an
    /// interval that is not a positive time.
    #[pyo3(signature = (target, interval="10ms"))]
    fn with_monitor(&self, target: &str, interval: &str) -> PyResult<Scenario> {
        let ns = afsim_core::scenario::units::parse_time_ns(interval)
            .map_err(|e| PyValueError::new_err(format!("interval {interval:?}: {e}")))?;
        let kind = match target {
            "flows" => MonitorKind::Flows,
            "conditioners" => MonitorKind::Conditioners,
            _ => MonitorKind::Queue,
        };
        let mut spec = self.spec.clone();
        spec.add_monitor(kind, target, afsim_core::sim::time::SimDuration(ns))
            .map_err(PyValueError::new_err)?;
        Ok(Scenario { spec })
    }
    /// The same scenario also recording every event (enqueue, mark, drop, dequeue) of the
    /// queue of port `port` (`from->to`). ValueError for an unknown or already traced port.
    fn with_queue_trace(&self, port: &str) -> PyResult<Scenario> {
        let mut spec = self.spec.clone();
        spec.add_monitor(
            MonitorKind::Events,
            port,
            afsim_core::sim::time::SimDuration(1),
        )
        .map_err(PyValueError::new_err)?;
        Ok(Scenario { spec })
    }
    /// The same scenario without packet captures (sweeps run many copies at once).
    fn without_captures(&self) -> Scenario {
        let mut spec = self.spec.clone();
        spec.captures.clear();
        Scenario { spec }
    }
    /// The fully resolved scenario as text (parameters substituted, groups expanded, units
    /// parsed; captures and warnings left out): what a results store hashes into a run key.
    /// Stable for one afsim version, not across versions.
    fn resolved(&self) -> String {
        let mut spec = self.spec.clone();
        spec.captures.clear();
        spec.monitors.clear();
        spec.warnings.clear();
        format!("{spec:?}")
    }
    fn __repr__(&self) -> String {
        format!(
            "Scenario(name={:?}, seed={}, nodes={}, links={}, flows={})",
            self.spec.name,
            self.spec.seed,
            self.spec.nodes.len(),
            self.spec.links.len(),
            self.spec.flows.len()
        )
    }
}

/// Loads a scenario from a file (`path`) or from a string (`text`, reported as `name` in
/// errors). `overrides` sets parameters as `--set key=value` does.
#[pyfunction]
#[pyo3(signature = (path=None, *, text=None, name="<string>", overrides=None))]
fn load_scenario(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<&str>,
    name: &str,
    overrides: Option<&Bound<'_, PyMapping>>,
) -> PyResult<Scenario> {
    let overrides: Vec<(String, String)> = match overrides {
        Some(m) => m
            .items()?
            .iter()
            .map(|kv| kv.extract())
            .collect::<PyResult<_>>()?,
        None => Vec::new(),
    };
    let loaded = match (path, text) {
        (Some(p), None) => afsim_core::load_file(&p, &overrides),
        (None, Some(t)) => afsim_core::load_str(t, name, &overrides),
        _ => {
            return Err(PyTypeError::new_err(
                "load_scenario takes exactly one of path or text",
            ))
        }
    };
    loaded
        .map(|spec| Scenario { spec })
        .map_err(|e| scenario_error(py, &e))
}

// ---------------------------------------------------------------------------------------------
// Run

/// Runs a scenario to its end. `progress(sim_time_s, fraction_or_None, events)` is called
/// about every 65,536 events; an exception it raises (or a signal such as Ctrl-C) stops the
/// run and is raised here.
#[pyfunction]
#[pyo3(signature = (scenario, *, seed=None, progress=None))]
fn run(
    py: Python<'_>,
    scenario: &Scenario,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<RunResult> {
    let reseeded;
    let spec = match seed {
        Some(s) => {
            reseeded = scenario.with_seed(s);
            &reseeded.spec
        }
        None => &scenario.spec,
    };

    let mut pending: Option<PyErr> = None;
    let (outcome, wall_seconds) = py.detach(|| {
        let mut on_progress = |p: &Progress| -> bool {
            Python::attach(|py| {
                let step = py.check_signals().and_then(|()| match &progress {
                    Some(cb) => cb.call1(py, (p.sim_time_s, p.fraction, p.events)).map(drop),
                    None => Ok(()),
                });
                match step {
                    Ok(()) => true,
                    Err(e) => {
                        pending = Some(e);
                        false
                    }
                }
            })
        };
        // afsim_core::run, with the building of the world timed apart
        let start = Instant::now();
        let mut timing = [0.0; 2];
        let outcome = World::build(spec)
            .map_err(RunError::Spec)
            .and_then(|mut world| {
                timing[0] = start.elapsed().as_secs_f64();
                world.run(Some(&mut on_progress))?;
                world.finish_captures()?;
                timing[1] = start.elapsed().as_secs_f64();
                let report = world.into_report();
                if report.conservation.holds {
                    Ok(report)
                } else {
                    Err(RunError::Conservation(Box::new(report)))
                }
            });
        (
            outcome,
            [timing[0], timing[1], start.elapsed().as_secs_f64()],
        )
    });

    match outcome {
        Ok(report) => Ok(RunResult {
            report,
            wall_seconds: wall_seconds[2],
            build_seconds: wall_seconds[0],
            report_seconds: wall_seconds[2] - wall_seconds[1],
        }),
        Err(e) => Err(run_error(py, spec, e, pending)),
    }
}

// ---------------------------------------------------------------------------------------------
// Results

/// The outcome of a run: the report (deterministic) and the wall time it took (not).
#[pyclass(frozen, module = "afsim._core")]
pub struct RunResult {
    report: Report,
    wall_seconds: f64,
    build_seconds: f64,
    report_seconds: f64,
}

#[pymethods]
impl RunResult {
    /// The report as deterministic pretty JSON (same scenario and seed → same bytes).
    fn summary_json(&self) -> String {
        self.report.to_json()
    }
    /// `summary_json()` without its `flows` and `queues` rows (compact JSON): what `Results`
    /// reads besides the two tables it takes from `flows_columns` and `queues_columns`.
    fn summary_head_json(&self) -> String {
        self.report.head_json()
    }
    /// `summary_json()`'s UTF-8 bytes handed to `sink` (a callable taking `bytes`) in pieces of
    /// `chunk_bytes` (the last shorter) as they are made, without the whole text in memory (more
    /// than 2 GiB at a million flows; issue 28). An exception `sink` raises stops the writing
    /// and is raised here.
    #[pyo3(signature = (sink, chunk_bytes=1 << 20))]
    fn write_summary(&self, sink: Bound<'_, PyAny>, chunk_bytes: usize) -> PyResult<()> {
        let mut out = Pieces {
            sink,
            buf: Vec::with_capacity(chunk_bytes.max(1)),
            chunk: chunk_bytes.max(1),
            failed: None,
        };
        let written = self
            .report
            .write_json(&mut out)
            .and_then(|()| out.hand_over());
        match (written, out.failed) {
            (_, Some(e)) => Err(e),
            (Err(e), None) => Err(PyRuntimeError::new_err(format!("writing the report: {e}"))),
            (Ok(()), None) => Ok(()),
        }
    }
    /// Per-flow rows as columns: one entry per field of the report's flow rows.
    fn flows_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        flow_columns(py, &self.report.flows)
    }
    /// Per-queue rows as columns; the `drops` map becomes one column per reason, `drops_<reason>`.
    fn queues_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        queue_columns(py, &self.report.queues)
    }
    /// TCP sender traces, by flow name: each a dict of columns `time_s`, `cwnd`, `ssthresh`,
    /// `srtt`, `rto` (float64) and `bytes_in_flight` (uint64). Only flows with `trace = true`.
    fn traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (flow, t) in &self.report.traces {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &t.time_s))?;
            d.set_item("cwnd", PyArray1::from_slice(py, &t.cwnd))?;
            d.set_item("ssthresh", PyArray1::from_slice(py, &t.ssthresh))?;
            d.set_item("srtt", PyArray1::from_slice(py, &t.srtt))?;
            d.set_item("rto", PyArray1::from_slice(py, &t.rto))?;
            d.set_item(
                "bytes_in_flight",
                PyArray1::from_slice(py, &t.bytes_in_flight),
            )?;
            out.set_item(flow, d)?;
        }
        Ok(out)
    }
    /// TFRC sender traces, by flow name: each a dict of float64 columns `time_s`, `x_kbps`,
    /// `x_recv_kbps`, `p`, `rtt_s`. Only flows with `trace = true`.
    fn tfrc_traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (flow, t) in &self.report.tfrc_traces {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &t.time_s))?;
            d.set_item("x_kbps", PyArray1::from_slice(py, &t.x_kbps))?;
            d.set_item("x_recv_kbps", PyArray1::from_slice(py, &t.x_recv_kbps))?;
            d.set_item("p", PyArray1::from_slice(py, &t.p))?;
            d.set_item("rtt_s", PyArray1::from_slice(py, &t.rtt_s))?;
            out.set_item(flow, d)?;
        }
        Ok(out)
    }
    /// α over time of each Congestion Signaling Algorithm, by CSA name: columns `time_s` and
    /// `alpha` (float64), one row per change, the starting value first.
    fn alpha_traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, points) in &self.report.alpha_traces {
            let d = PyDict::new(py);
            d.set_item(
                "time_s",
                PyArray1::from_vec(py, points.iter().map(|p| p.0).collect()),
            )?;
            d.set_item(
                "alpha",
                PyArray1::from_vec(py, points.iter().map(|p| p.1).collect()),
            )?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// The sampled queues (`[[monitor]]`), by queue name: columns `time_s`, `len_packets`
    /// (uint32), `len_bytes` (uint64), `avg` and `avg_in` (float64, NaN where the discipline
    /// keeps no such average), one row per grid instant.
    fn queue_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, s) in &self.report.queue_series {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &s.time_s))?;
            d.set_item("len_packets", PyArray1::from_slice(py, &s.len_packets))?;
            d.set_item("len_bytes", PyArray1::from_slice(py, &s.len_bytes))?;
            d.set_item("avg", PyArray1::from_slice(py, &s.avg))?;
            d.set_item("avg_in", PyArray1::from_slice(py, &s.avg_in))?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Every flow's forward packets and bytes delivered and packets dropped per interval
    /// (`[[monitor]] kind = "flows"`): columns `time_s` (the interval's end), `flow` (names),
    /// `delivered_packets`, `delivered_bytes`, `dropped_packets` (uint64); None without such a
    /// monitor.
    fn flow_series<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = &self.report.flow_series else {
            return Ok(None);
        };
        let names: Vec<&str> = self.report.flows.iter().map(|f| f.name.as_str()).collect();
        let d = count_columns(
            py,
            s,
            "flow",
            &names,
            ["delivered_packets", "delivered_bytes", "dropped_packets"],
        )?;
        Ok(Some(d))
    }
    /// Every conditioner's packets and bytes by colour and its drops per interval (`[[monitor]]
    /// kind = "conditioners"`): columns `time_s`, `conditioner`, `green_packets`,
    /// `yellow_packets`, `red_packets`, `green_bytes`, `yellow_bytes`, `red_bytes`, `dropped`;
    /// None without such a monitor.
    fn conditioner_series<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = &self.report.conditioner_series else {
            return Ok(None);
        };
        let names: Vec<&str> = self
            .report
            .conditioners
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let cols = [
            "green_packets",
            "yellow_packets",
            "red_packets",
            "green_bytes",
            "yellow_bytes",
            "red_bytes",
            "dropped",
        ];
        Ok(Some(count_columns(py, s, "conditioner", &names, cols)?))
    }
    /// Each sampled queue's arrivals, departures, drops and ECN marks per drop-precedence
    /// level and interval, by queue name: columns `time_s`, `level` (uint32), `arrivals`,
    /// `departures`, `drops`, `ecn_marks` (uint64).
    fn level_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, s) in &self.report.level_series {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &s.time_s))?;
            d.set_item("level", PyArray1::from_slice(py, &s.entity))?;
            for (col, v) in ["arrivals", "departures", "drops", "ecn_marks"]
                .iter()
                .zip(&s.counts)
            {
                d.set_item(*col, PyArray1::from_slice(py, v))?;
            }
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Each sampled queue's arrivals, overflow drops, early drops and ECN marks per
    /// (direction, code point) it has seen and interval, by queue name: columns `time_s`,
    /// `direction` ("forward", "reverse"), `dscp` (uint8), `code_point` (its name),
    /// `arrivals`, `drops_overflow`, `drops_early`, `ecn_marks` (uint64).
    fn code_point_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use afsim_core::net::dscp;
        let out = PyDict::new(py);
        for (name, s) in &self.report.code_point_series {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &s.time_s))?;
            let dirs = s
                .key
                .iter()
                .map(|&k| if k >= 64 { "reverse" } else { "forward" });
            d.set_item("direction", PyList::new(py, dirs)?)?;
            let dscps: Vec<u8> = s.key.iter().map(|&k| k & 63).collect();
            let names: Vec<String> = dscps
                .iter()
                .map(|&c| dscp::name(c).map_or(format!("DSCP {c}"), str::to_string))
                .collect();
            d.set_item("dscp", PyArray1::from_vec(py, dscps))?;
            d.set_item("code_point", PyList::new(py, names)?)?;
            for (col, v) in ["arrivals", "drops_overflow", "drops_early", "ecn_marks"]
                .iter()
                .zip(&s.counts)
            {
                d.set_item(*col, PyArray1::from_slice(py, v))?;
            }
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Each sampled queue's queueing delays (enqueue to the start of transmission), by queue
    /// name: `count`, `mean_s`, `p50_s`, `p90_s`, `p99_s`, `max_s` (HDR histogram, 3
    /// significant digits; None without departures) and the histogram as `bin_upper_s` and
    /// `bin_count` arrays (bins a factor 1.1 wide, those that hold samples).
    fn queue_delays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, dist) in &self.report.queue_delays {
            let d = PyDict::new(py);
            let q = dist.quantiles;
            d.set_item("count", q.map_or(0, |q| q.count))?;
            d.set_item("mean_s", q.map(|q| q.mean_s))?;
            d.set_item("p50_s", q.map(|q| q.p50_s))?;
            d.set_item("p90_s", q.map(|q| q.p90_s))?;
            d.set_item("p99_s", q.map(|q| q.p99_s))?;
            d.set_item("max_s", q.map(|q| q.max_s))?;
            let upper: Vec<f64> = dist.bins.iter().map(|b| b.0 as f64 * 1e-9).collect();
            let count: Vec<u64> = dist.bins.iter().map(|b| b.1).collect();
            d.set_item("bin_upper_s", PyArray1::from_vec(py, upper))?;
            d.set_item("bin_count", PyArray1::from_vec(py, count))?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Every event of each traced queue (`[[monitor]] kind = "events"`), by queue name:
    /// columns `time_s` (float64), `event` ("enqueue", "mark", "drop", "dequeue"), `flow`
    /// (names), `dscp`, `level` (uint8), `size_bytes`, `len_packets` (uint32; the queue's
    /// length after the event) and `reason` (a drop's reason, "" otherwise).
    fn queue_traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use afsim_core::metrics::trace::QueueEvent;
        use afsim_core::queue::DropReason;
        let out = PyDict::new(py);
        let names: Vec<&str> = self.report.flows.iter().map(|f| f.name.as_str()).collect();
        for (name, t) in &self.report.queue_traces {
            let d = PyDict::new(py);
            let time: Vec<f64> = t.time_ns.iter().map(|&n| n as f64 * 1e-9).collect();
            d.set_item("time_s", PyArray1::from_vec(py, time))?;
            let events = t.event.iter().map(|&e| QueueEvent::NAMES[e as usize]);
            d.set_item("event", PyList::new(py, events)?)?;
            let flows = t
                .flow
                .iter()
                .map(|&f| names.get(f as usize).copied().unwrap_or("?"));
            d.set_item("flow", PyList::new(py, flows)?)?;
            d.set_item("dscp", PyArray1::from_slice(py, &t.dscp))?;
            d.set_item("level", PyArray1::from_slice(py, &t.level))?;
            d.set_item("size_bytes", PyArray1::from_slice(py, &t.size_bytes))?;
            d.set_item("len_packets", PyArray1::from_slice(py, &t.len_packets))?;
            let reasons = t
                .reason
                .iter()
                .map(|&r| DropReason::ALL.get(usize::from(r)).map_or("", |x| x.name()));
            d.set_item("reason", PyList::new(py, reasons)?)?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Every packet each SIMA conditioner with `trace = true` marked, by conditioner name:
    /// columns `time_s`, `mbr_bps` (float64), `dp` (uint8) and `flow` (flow names).
    fn dp_traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let names: Vec<&str> = self.report.flows.iter().map(|f| f.name.as_str()).collect();
        for (name, t) in &self.report.dp_traces {
            let d = PyDict::new(py);
            d.set_item("time_s", PyArray1::from_slice(py, &t.time_s))?;
            let flows = t
                .flow
                .iter()
                .map(|&f| names.get(f as usize).copied().unwrap_or("?"));
            d.set_item("flow", PyList::new(py, flows)?)?;
            d.set_item("dp", PyArray1::from_slice(py, &t.dp))?;
            d.set_item("mbr_bps", PyArray1::from_slice(py, &t.mbr_bps))?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }
    /// Of `wall_seconds`, the part spent building the world (ports, tables, agents).
    #[getter]
    fn build_seconds(&self) -> f64 {
        self.build_seconds
    }
    /// Of `wall_seconds`, the part spent assembling the report after the run.
    #[getter]
    fn report_seconds(&self) -> f64 {
        self.report_seconds
    }
    /// Wall-clock seconds the core run took, building and report included (not part of the
    /// report).
    #[getter]
    fn wall_seconds(&self) -> f64 {
        self.wall_seconds
    }
    #[getter]
    fn events(&self) -> u64 {
        self.report.engine.events
    }
    #[getter]
    fn packet_hops(&self) -> u64 {
        self.report.engine.packet_hops
    }
    #[getter]
    fn conservation_holds(&self) -> bool {
        self.report.conservation.holds
    }
    fn __repr__(&self) -> String {
        format!(
            "RunResult(scenario={:?}, seed={}, events={}, packet_hops={}, wall_seconds={:.3})",
            self.report.scenario,
            self.report.seed,
            self.report.engine.events,
            self.report.engine.packet_hops,
            self.wall_seconds
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Module

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the version and a hash of the simulator's sources (build.rs): runs of different model
    // code never share a results-store key, even at the same version
    m.add(
        "__build__",
        concat!(env!("CARGO_PKG_VERSION"), "+", env!("AFSIM_SOURCE_HASH")),
    )?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("ConservationError", py.get_type::<ConservationError>())?;
    m.add_class::<Scenario>()?;
    m.add_class::<RunResult>()?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    #[cfg(target_os = "linux")]
    {
        m.add_function(wrap_pyfunction!(live::live_plan, m)?)?;
        m.add_function(wrap_pyfunction!(live::monotonic_ns, m)?)?;
        m.add_class::<live::LiveForwarder>()?;
    }
    Ok(())
}
