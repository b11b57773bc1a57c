//! `afsim live`'s bindings: the plan of a scenario and the forwarder (crate afsim-live). The
//! forwarder runs with the GIL released; it is meant for a process of its own (the Python
//! module `afsim.live.forwarder`, started inside the forwarder's network namespace).

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::Scenario;

/// The scenario as a live run needs it (JSON text): nodes (which are hosts), links, flows.
/// ValueError if it cannot run live.
#[pyfunction]
pub fn live_plan(scenario: &Scenario) -> PyResult<String> {
    afsim_live::plan::plan(&scenario.spec)
        .map(|v| v.to_string())
        .map_err(PyValueError::new_err)
}

/// The live forwarder, sockets open: `run(t0_ns)` forwards and returns the results (JSON).
#[pyclass(module = "afsim._core", unsendable)]
pub struct LiveForwarder {
    inner: afsim_live::driver::Forwarder,
    duration_ns: u64,
}

#[pymethods]
impl LiveForwarder {
    /// Builds the models and opens a socket per router-side interface of `config_json`
    /// (hosts, ifaces, flows, duration_ns, …) in this process's network namespace.
    #[new]
    fn new(scenario: &Scenario, config_json: &str) -> PyResult<Self> {
        let cfg: afsim_live::driver::Config = serde_json::from_str(config_json)
            .map_err(|e| PyValueError::new_err(format!("live config: {e}")))?;
        let duration_ns = cfg.duration_ns;
        let inner =
            afsim_live::driver::Forwarder::open(&scenario.spec, cfg).map_err(PyOSError::new_err)?;
        Ok(LiveForwarder { inner, duration_ns })
    }

    /// Forwards from `t0_ns` (CLOCK_MONOTONIC) for the configured duration, GIL released.
    fn run(&mut self, py: Python<'_>, t0_ns: u64) -> String {
        let inner = &mut self.inner;
        let duration_ns = self.duration_ns;
        py.detach(move || {
            let stats = inner.run(t0_ns);
            let end = if stats.stopped_by_signal {
                afsim_live::driver::monotonic_ns()
                    .saturating_sub(t0_ns)
                    .min(duration_ns)
            } else {
                duration_ns
            };
            inner.results(&stats, end).to_string()
        })
    }
}

/// `CLOCK_MONOTONIC` now, in nanoseconds.
#[pyfunction]
pub fn monotonic_ns() -> u64 {
    afsim_live::driver::monotonic_ns()
}
