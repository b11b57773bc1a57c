//! Edge conditioners: what happens to a packet at the border of a DiffServ domain, before it
//! meets the core routers' queues.
//!
//! Read this first: RFC 2475 §2.3.3 splits a traffic conditioner into a classifier, a meter, a
//! marker, a shaper and a dropper. In afsim the pieces are small, separate models, composed by
//! the world builder:
//!
//! - `dscp`: the code points (RFC 2474 class selectors, RFC 2597 AF, RFC 3246 EF), their names,
//!   and the per-domain `ColourTable` that says which class and drop precedence a code point
//!   means. Both markers (colour-aware mode) and queues (RIO, WRED) read colours from it.
//! - Meters/markers, each returning a `Colour` for a packet of a given size at a given time:
//!   `token_bucket` (single-rate, two colours; plus the bucket arithmetic and a shaper helper the
//!   others reuse), `srtcm` (RFC 2697), `trtcm` (RFC 2698), `tsw` (RFC 2859 and Clark & Fang's
//!   two-colour TSW tagger).
//! - `sima`: the SIMA access node's marker (Laatu, Harju, Loula §2; Kilkki's SIMA draft): a drop
//!   precedence 0..7 from the measured momentary bit rate against the nominal bit rate, written
//!   into the packet as one of sixteen code points (`dscp::sima`); it marks, it has no actions.
//! - `PerColourAction` (below): what the conditioner does with a packet of each colour.
//!
//! A marker never touches the packet or the pool: it meters and returns a colour; the caller
//! applies the action (rewrite the DSCP, drop, or hold the packet until the shaper says it
//! conforms). Markers that draw random numbers (TSW) take the component's own `&mut Rng`.
//!
//! Not here: classifiers (which flow feeds which meter) live in the conditioner; the enhanced
//! token bucket and the CSA have their own files.

pub mod conditioner;
pub mod csa;
pub mod enhanced_token_bucket;
pub mod sima;
pub mod srtcm;
pub mod token_bucket;
pub mod trtcm;
pub mod tsw;

pub use crate::net::dscp;
pub use crate::param::ParamError;

use dscp::Colour;

/// What a conditioner does with a packet of one colour (RFC 2475 §2.3.3: marking, shaping,
/// dropping; and the AF practice of "downgrading" excess traffic, RFC 2597 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerColourAction {
    /// Forward the packet unchanged.
    Keep,
    /// Forward the packet with its DSCP rewritten to this code point (e.g. green → AF11,
    /// yellow → AF12). Keeping the packet's DSCP is `Mark` of the same value.
    Mark(u8),
    /// Forward the packet as best effort (DSCP 0, RFC 2474 §4.1 default PHB), as Giacomazzi's
    /// token bucket does with non-conformant packets.
    DowngradeToBestEffort,
    /// Discard the packet at the edge (policing).
    Drop,
    /// Hold the packet until the meter says it conforms (`token_bucket::TokenBucket::
    /// next_conformant`), then forward it; the holding buffer belongs to the caller.
    Shape,
}

impl PerColourAction {
    /// A `Mark` must name a 6-bit code point.
    pub fn validate(&self, field: &'static str) -> Result<(), ParamError> {
        match *self {
            PerColourAction::Mark(d) if d > dscp::MAX_DSCP => Err(ParamError::new(
                field,
                format!("DSCP {d} is not a 6-bit code point (0..=63)"),
            )),
            PerColourAction::Keep
            | PerColourAction::Mark(_)
            | PerColourAction::DowngradeToBestEffort
            | PerColourAction::Drop
            | PerColourAction::Shape => Ok(()),
        }
    }
}

/// A `PerColourAction` made ready for the per-packet path: drop the packet, or write the code
/// point `(dscp & keep) | set` (`Keep`: every bit kept; `Mark(d)`: `d`; best effort: `BE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rewrite {
    pub drop: bool,
    pub keep: u8,
    pub set: u8,
}

impl PerColourAction {
    /// This action as a `Rewrite`.
    pub fn rewrite(self) -> Rewrite {
        let (drop, keep, set) = match self {
            PerColourAction::Keep => (false, 0xff, 0),
            PerColourAction::Mark(d) => (false, 0, d),
            // RFC 2474 §4.1: the default PHB's code point is 000000
            PerColourAction::DowngradeToBestEffort => (false, 0, dscp::BE),
            PerColourAction::Drop => (true, 0xff, 0),
            // a packet that found its tokens never reaches here non-green: shaped packets are
            // held until they conform, so a Shape action on a colour means "wait", then keep
            PerColourAction::Shape => (false, 0xff, 0),
        };
        Rewrite { drop, keep, set }
    }
}

/// Packets and bytes a marker has coloured, by colour (index `Colour::index()`).
///
/// Identity: `offered_packets = sum(packets)` and `offered_bytes = sum(bytes)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkerStats {
    pub offered_packets: u64,
    pub offered_bytes: u64,
    pub packets: [u64; 3],
    pub bytes: [u64; 3],
}

impl MarkerStats {
    #[inline]
    pub fn record(&mut self, colour: Colour, size: u32) {
        self.offered_packets += 1;
        self.offered_bytes += u64::from(size);
        self.packets[colour.index()] += 1;
        self.bytes[colour.index()] += u64::from(size);
    }

    /// Checks the identity in the doc comment.
    pub fn check(&self) -> Result<(), String> {
        let p: u64 = self.packets.iter().sum();
        let b: u64 = self.bytes.iter().sum();
        if p != self.offered_packets || b != self.offered_bytes {
            return Err(format!(
                "marker counters broken: offered {} pkts / {} B, coloured {p} pkts / {b} B",
                self.offered_packets, self.offered_bytes
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mark_action_must_name_a_six_bit_code_point() {
        assert!(PerColourAction::Mark(46).validate("green").is_ok());
        let e = PerColourAction::Mark(64).validate("green").unwrap_err();
        assert_eq!(e.field, "green");
        assert!(e.to_string().contains("0..=63"));
        assert!(PerColourAction::Shape.validate("red").is_ok());
    }

    #[test]
    fn rewrite_writes_what_each_action_says() {
        let write = |a: PerColourAction, d: u8| {
            let r = a.rewrite();
            (r.drop, (d & r.keep) | r.set)
        };
        assert_eq!(write(PerColourAction::Keep, 10), (false, 10));
        assert_eq!(write(PerColourAction::Mark(12), 10), (false, 12));
        assert_eq!(write(PerColourAction::Mark(0), 46), (false, 0));
        assert_eq!(
            write(PerColourAction::DowngradeToBestEffort, 46),
            (false, dscp::BE)
        );
        assert_eq!(write(PerColourAction::Shape, 26), (false, 26));
        assert!(write(PerColourAction::Drop, 26).0);
    }

    #[test]
    fn marker_stats_identity_holds_after_recording() {
        let mut s = MarkerStats::default();
        s.record(Colour::Green, 100);
        s.record(Colour::Red, 50);
        s.record(Colour::Red, 50);
        assert_eq!(s.packets, [1, 0, 2]);
        assert_eq!(s.bytes, [100, 0, 100]);
        assert!(s.check().is_ok());
        s.offered_packets += 1;
        assert!(
            s.check().is_err(),
            "a packet counted as offered but never coloured"
        );
    }
}
