//! The packet conservation identity every run ends with.
//!
//! Read this first: `sent = delivered + dropped + in_flight` over every packet the run created
//! (data and control alike), where `in_flight` is the number of packets still alive in the
//! pool; and that number must equal what a walk over every queue, transmitter and propagation
//! line finds. Each queue must also satisfy `arrivals = departures + drops + length`. A run
//! that breaks any of these is reported as failed (`RunError::Conservation`), never silently.

use std::collections::BTreeMap;

/// The counts the identity is made of.
pub struct Counts {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: BTreeMap<String, BTreeMap<String, u64>>,
    pub in_flight: u64,
    pub in_flight_walked: u64,
    /// Names of queues whose own identity fails.
    pub broken_queues: Vec<String>,
}

/// Evaluates the identity.
pub fn check(c: Counts) -> Conservation {
    let dropped_total: u64 = c.dropped.values().flat_map(|m| m.values()).sum();
    let balanced = c.sent == c.delivered + dropped_total + c.in_flight;
    let walked = c.in_flight == c.in_flight_walked;
    let holds = balanced && walked && c.broken_queues.is_empty();
    let mut identity = format!(
        "sent = delivered + dropped + in flight: {} {} {} + {} + {}",
        c.sent,
        if balanced { "=" } else { "≠" },
        c.delivered,
        dropped_total,
        c.in_flight
    );
    if !walked {
        identity.push_str(&format!(
            "; {} packets alive but {} found in queues, transmitters and links",
            c.in_flight, c.in_flight_walked
        ));
    }
    for q in &c.broken_queues {
        identity.push_str(&format!(
            "; queue {q}: arrivals ≠ departures + drops + length"
        ));
    }
    Conservation {
        sent: c.sent,
        delivered: c.delivered,
        dropped: c.dropped,
        dropped_total,
        in_flight: c.in_flight,
        in_flight_walked: c.in_flight_walked,
        holds,
        identity,
    }
}

/// The packet conservation identity of the whole run:
/// `sent = delivered + dropped + in_flight`, and `in_flight` equals what a walk over every
/// queue, transmitter and link finds.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    /// Drops by place ("queue r1->r2", "node r1") and reason.
    pub dropped: std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>,
    pub dropped_total: u64,
    /// Packets alive in the pool at the end.
    pub in_flight: u64,
    /// Packets found by walking queues, transmitters and links at the end.
    pub in_flight_walked: u64,
    pub holds: bool,
    /// Human-readable form of the identity with the numbers filled in.
    pub identity: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(sent: u64, delivered: u64, dropped: u64, live: u64, walked: u64) -> Counts {
        let mut d = BTreeMap::new();
        d.insert(
            "queue a->b".to_string(),
            BTreeMap::from([("overflow".to_string(), dropped)]),
        );
        Counts {
            sent,
            delivered,
            dropped: d,
            in_flight: live,
            in_flight_walked: walked,
            broken_queues: vec![],
        }
    }

    #[test]
    fn balanced_counts_hold() {
        let c = check(counts(10, 7, 2, 1, 1));
        assert!(c.holds, "{}", c.identity);
        assert_eq!(
            c.identity,
            "sent = delivered + dropped + in flight: 10 = 7 + 2 + 1"
        );
    }

    #[test]
    fn a_missing_packet_breaks_the_identity() {
        let c = check(counts(10, 7, 2, 0, 0));
        assert!(!c.holds);
        assert!(c.identity.contains('≠'));
    }

    #[test]
    fn a_packet_alive_but_nowhere_breaks_the_identity() {
        let c = check(counts(10, 7, 2, 1, 0));
        assert!(!c.holds);
    }

    #[test]
    fn a_broken_queue_breaks_the_identity() {
        let mut k = counts(10, 7, 2, 1, 1);
        k.broken_queues.push("a->b".into());
        assert!(!check(k).holds);
    }
}
