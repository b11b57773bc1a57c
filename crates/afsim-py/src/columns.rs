//! Report tables and time series as columns of numpy arrays: the Python side's
//! `RunResult.flows`, `.queues` and the monitors' series (pandas/pyarrow build frames from them).

use std::collections::BTreeSet;

use afsim_core::metrics::series::CountSeries;
use afsim_core::report::{FlowRow, QueueRow};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A `CountSeries` as columns: `time_s`, the entity's name under `entity`, one column per
/// counter under `cols`.
pub(crate) fn count_columns<'py, const N: usize>(
    py: Python<'py>,
    s: &CountSeries<N>,
    entity: &str,
    names: &[&str],
    cols: [&str; N],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_s", PyArray1::from_slice(py, &s.time_s))?;
    let who = s
        .entity
        .iter()
        .map(|&e| names.get(e as usize).copied().unwrap_or("?"));
    d.set_item(entity, PyList::new(py, who)?)?;
    for (col, v) in cols.iter().zip(&s.counts) {
        d.set_item(*col, PyArray1::from_slice(py, v))?;
    }
    Ok(d)
}

/// Sets one column of `dict` from a field of every row: `str` fields become a list of str,
/// numbers and booleans a numpy array of their Rust type, `opt` (Option<f64>) and `optu`
/// (Option<u64>, a count that does not apply to every row) fields a float64 array with NaN for
/// None, as pandas represents missing numbers. The column is named after the field, as in the report's JSON.
macro_rules! column {
    ($dict:ident, $rows:ident, str $field:ident) => {
        $dict.set_item(
            stringify!($field),
            PyList::new(
                $dict.py(),
                $rows.iter().map(|r| AsRef::<str>::as_ref(&r.$field)),
            )?,
        )?
    };
    ($dict:ident, $rows:ident, num $field:ident) => {
        $dict.set_item(
            stringify!($field),
            PyArray1::from_vec($dict.py(), $rows.iter().map(|r| r.$field).collect()),
        )?
    };
    ($dict:ident, $rows:ident, optu $field:ident) => {
        $dict.set_item(
            stringify!($field),
            PyArray1::from_vec(
                $dict.py(),
                $rows
                    .iter()
                    .map(|r| r.$field.map_or(f64::NAN, |v| v as f64))
                    .collect(),
            ),
        )?
    };
    ($dict:ident, $rows:ident, opt $field:ident) => {
        $dict.set_item(
            stringify!($field),
            PyArray1::from_vec(
                $dict.py(),
                $rows.iter().map(|r| r.$field.unwrap_or(f64::NAN)).collect(),
            ),
        )?
    };
}

/// Every field of `FlowRow`, in its order. python/tests/test_api.py checks that these columns
/// are exactly the keys of the JSON flow rows, so a field added to the report fails a test here
/// until it gets its column.
pub(crate) fn flow_columns<'py>(py: Python<'py>, rows: &[FlowRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, str name);
    column!(d, rows, str group);
    column!(d, rows, str kind);
    column!(d, rows, str src);
    column!(d, rows, str dst);
    column!(d, rows, num packets_sent);
    column!(d, rows, num bytes_sent);
    column!(d, rows, num packets_delivered);
    column!(d, rows, num bytes_delivered);
    column!(d, rows, num packets_dropped);
    column!(d, rows, num packets_in_flight);
    column!(d, rows, num throughput_kbps);
    column!(d, rows, opt first_delivery_s);
    column!(d, rows, opt last_delivery_s);
    column!(d, rows, num finite);
    column!(d, rows, num completed);
    column!(d, rows, opt completion_time_s);
    column!(d, rows, opt mean_delay_s);
    column!(d, rows, opt delay_p50_s);
    column!(d, rows, opt delay_p90_s);
    column!(d, rows, opt delay_p99_s);
    column!(d, rows, opt delay_max_s);
    d.set_item(
        "dscp",
        PyArray1::from_vec(py, rows.iter().map(|r| u64::from(r.dscp)).collect()),
    )?;
    column!(d, rows, opt goodput_kbps);
    column!(d, rows, optu goodput_bytes);
    column!(d, rows, optu retransmitted_packets);
    column!(d, rows, optu retransmitted_bytes);
    column!(d, rows, optu timeouts);
    column!(d, rows, optu fast_recoveries);
    column!(d, rows, optu ecn_reductions);
    column!(d, rows, optu ce_received);
    column!(d, rows, opt rtt_mean_s);
    column!(d, rows, opt rtt_std_s);
    column!(d, rows, opt x_kbps);
    column!(d, rows, opt x_recv_kbps);
    column!(d, rows, opt loss_event_rate);
    column!(d, rows, optu loss_events);
    column!(d, rows, optu feedback_packets);
    column!(d, rows, optu nofeedback_expiries);
    column!(d, rows, opt contract_kbps);
    column!(d, rows, opt conformant_kbps);
    column!(d, rows, opt respect_of_service);
    column!(d, rows, opt excess_kbps);
    // the flattened SIMA drop-precedence counts, dp0_packets … dp7_packets
    for dp in 0..8 {
        let counts = rows
            .iter()
            .map(|r| r.dp.get(dp).map_or(f64::NAN, |v| v as f64))
            .collect();
        d.set_item(format!("dp{dp}_packets"), PyArray1::from_vec(py, counts))?;
    }
    Ok(d)
}

/// Every field of `QueueRow`, in its order; the `drops` map becomes one column per reason
/// (`drops_<reason>`, reasons in the map's order; a reason absent from a row counts zero).
pub(crate) fn queue_columns<'py>(
    py: Python<'py>,
    rows: &[QueueRow],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, str name);
    column!(d, rows, str node);
    column!(d, rows, str to);
    column!(d, rows, str discipline);
    column!(d, rows, num rate_bps);
    column!(d, rows, num arrivals);
    column!(d, rows, num arrival_bytes);
    column!(d, rows, num departures);
    column!(d, rows, num departure_bytes);
    let reasons: BTreeSet<&str> = rows.iter().flat_map(|r| r.drops.keys()).collect();
    for reason in reasons {
        let counts: Vec<u64> = rows
            .iter()
            .map(|r| r.drops.get(reason).unwrap_or(0))
            .collect();
        d.set_item(format!("drops_{reason}"), PyArray1::from_vec(py, counts))?;
    }
    column!(d, rows, num drops_total);
    column!(d, rows, optu drops_forced);
    column!(d, rows, optu ecn_marks);
    column!(d, rows, num len_packets_end);
    column!(d, rows, num max_len_packets);
    column!(d, rows, num mean_len_packets);
    column!(d, rows, num utilization);
    column!(d, rows, num link_losses);
    Ok(d)
}
