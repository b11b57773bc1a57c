//! A sender's time series: cwnd, ssthresh, srtt, rto and bytes in flight, one row per change.
//!
//! Read this first: the sender keeps an `Option<Box<Trace>>`, `None` unless
//! `Params::trace` is set, and offers it a `Point` after each hook; a row is appended only when
//! some value differs from the last row, so a trace has one row per change of state, not per
//! event. Columns are separate vectors (Arrow / numpy friendly) with fixed names the Python
//! plots use: `time_s`, `cwnd`, `ssthresh`, `srtt`, `rto`, `bytes_in_flight`.
//!
//! Units: `time_s`, `srtt`, `rto` in seconds (`srtt` is 0 before the first RTT sample, and
//! both are tick-rounded as the estimator holds them); `cwnd` and `ssthresh` in bytes (cwnd
//! includes fast-recovery inflation); `bytes_in_flight` is FlightSize, RFC 5681's
//! "outstanding" data: bytes sent and not cumulatively acknowledged.

use crate::sim::time::SimTime;

/// Column names, in order.
pub const FIELDS: [&str; 6] = [
    "time_s",
    "cwnd",
    "ssthresh",
    "srtt",
    "rto",
    "bytes_in_flight",
];

/// The sender's state at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: f64,
    pub rto: f64,
    pub bytes_in_flight: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub time_s: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt: Vec<f64>,
    pub rto: Vec<f64>,
    pub bytes_in_flight: Vec<u64>,
    last: Option<Point>,
}

impl Trace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a row at `now` if `p` differs from the last row.
    #[inline]
    pub fn record(&mut self, now: SimTime, p: Point) {
        if self.last == Some(p) {
            return;
        }
        self.last = Some(p);
        self.time_s.push(now.as_secs_f64());
        self.cwnd.push(p.cwnd);
        self.ssthresh.push(p.ssthresh);
        self.srtt.push(p.srtt);
        self.rto.push(p.rto);
        self.bytes_in_flight.push(p.bytes_in_flight);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::SimDuration;

    fn point(cwnd: f64) -> Point {
        Point {
            cwnd,
            ssthresh: 20_000.0,
            srtt: 0.1,
            rto: 1.0,
            bytes_in_flight: 960,
        }
    }

    #[test]
    fn a_row_is_recorded_only_when_something_changes() {
        let mut t = Trace::new();
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        t.record(at(0), point(960.0));
        t.record(at(1), point(960.0));
        t.record(at(2), point(1920.0));
        t.record(at(3), point(1920.0));
        assert_eq!(t.len(), 2);
        assert_eq!(t.time_s, vec![0.0, 0.002]);
        assert_eq!(t.cwnd, vec![960.0, 1920.0]);
        assert_eq!(t.bytes_in_flight, vec![960, 960]);
        assert_eq!(FIELDS.len(), 6);
    }
}
