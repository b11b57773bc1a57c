//! A TFRC sender's time series: X, X_recv, p and R, one row per change.
//!
//! Read this first: the sender keeps an `Option<Box<Trace>>`, `None` unless `Params::trace` is
//! set, and offers it a `Point` whenever its state may have changed (a feedback packet, a
//! no-feedback expiry, the start); a row is appended only when some value differs from the
//! last row. Columns are separate vectors with fixed names the Python side uses: `time_s`,
//! `x_kbps`, `x_recv_kbps`, `p`, `rtt_s`.
//!
//! Units: `x_kbps` is the allowed sending rate X and `x_recv_kbps` the receive rate of the
//! last feedback, both in kb/s (1 kb = 1000 bits) of segment bytes s, headers excluded, as
//! RFC 5348 counts them; `p` is the loss event rate of the last feedback; `rtt_s` the sender's
//! RTT estimate R in seconds (0 before the first feedback).

use crate::sim::time::SimTime;

/// Column names, in order.
pub const FIELDS: [&str; 5] = ["time_s", "x_kbps", "x_recv_kbps", "p", "rtt_s"];

/// The sender's state at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x_kbps: f64,
    pub x_recv_kbps: f64,
    pub p: f64,
    pub rtt_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub time_s: Vec<f64>,
    pub x_kbps: Vec<f64>,
    pub x_recv_kbps: Vec<f64>,
    pub p: Vec<f64>,
    pub rtt_s: Vec<f64>,
    last: Option<Point>,
}

impl Trace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a row at `now` if `point` differs from the last row.
    pub fn record(&mut self, now: SimTime, point: Point) {
        if self.last == Some(point) {
            return;
        }
        self.last = Some(point);
        self.time_s.push(now.as_secs_f64());
        self.x_kbps.push(point.x_kbps);
        self.x_recv_kbps.push(point.x_recv_kbps);
        self.p.push(point.p);
        self.rtt_s.push(point.rtt_s);
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

    #[test]
    fn a_row_is_recorded_only_when_something_changes() {
        let mut t = Trace::new();
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        let a = Point {
            x_kbps: 8.0,
            x_recv_kbps: 0.0,
            p: 0.0,
            rtt_s: 0.0,
        };
        let b = Point {
            x_kbps: 320.0,
            rtt_s: 0.1,
            ..a
        };
        t.record(at(0), a);
        t.record(at(50), a);
        t.record(at(100), b);
        assert_eq!(t.len(), 2);
        assert_eq!(t.time_s, vec![0.0, 0.1]);
        assert_eq!(t.x_kbps, vec![8.0, 320.0]);
        assert_eq!(t.rtt_s, vec![0.0, 0.1]);
        assert_eq!(FIELDS.len(), 5);
    }
}
