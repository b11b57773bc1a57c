//! SIMA access node: each packet's drop precedence from its flow's (or aggregate's) measured
//! momentary bit rate against its nominal bit rate.
//!
//! Read this first.
//! - Sources: Laatu, Harju, Loula §2 and equation (1): `x = 4.5 − ln(MBR/NBR)/ln 2`, DP = 6 if
//!   x ≥ 6, Int(x) if 0 < x < 6, 0 if x ≤ 0; two service classes (RT, NRT) × 8 drop
//!   precedences. The paper defers the MBR measurement to its references; Kilkki's SIMA draft
//!   (draft-kalevi-simple-media-access-01) gives the same equation (§4.1: "Priority 7 is
//!   reserved for those connections that use a network service with guaranteed bandwidth",
//!   so the formula never gives 7), the NBR range (§5: 8 bit/s to 320 Tbit/s), and the
//!   measurement (§9.1), which `Estimator::Slots` implements:
//!   - eq. (2): the load `ρ_j = α + ρ_{j−1}(1 − α)^{N_j}`, an exponential moving average
//!     updated at every time slot of the user/network interface and computed at arrivals,
//!     `N_j` the slots since the previous cell; start `ρ_0 = 0`, `N_1 = C/NBR`;
//!   - eq. (3): `MBR_j = C·ln(1 − α)/ln(1 − α/ρ_j)`, exact for a constant bit rate, with C the
//!     interface's capacity; "for numerical reasons" `MBR_j = C/N_j` when `N_j > 10/α`;
//!   - eq. (4): "as an interim approach" `α = 5/K_n`, K_n the buffer, in cells, of the
//!     flow's service class (`alpha_from_buffer`).
//!
//!   The Dynamic RT/NRT PHB Group draft (draft-loukola-dynamic-00, the paper's [20]) §3: the
//!   default class is non-real time.
//! - Variant. The draft's slots are ATM cells and "a similar measuring principle can be
//!   applied with variable size packets as well". afsim's reading: time is counted in slots of
//!   `slot_bytes` at capacity C (real numbers, not whole slots), and a packet of L bytes is
//!   u = L/slot_bytes cells sent back to back, so it adds `1 − (1 − α)^u` to ρ (for u = 1 the
//!   draft's α) and eq. (3) becomes `MBR = C·u·ln(1 − α)/ln(1 − (1 − (1 − α)^u)/ρ)`, still
//!   exact for a constant bit rate of equal packets; the first packet's N is the spacing of its
//!   size at NBR.
//! - Other forms of the estimator, for the readings the sources leave open (issue 21; the
//!   evidence is in docs/assumptions.md, "SIMA"): the paper's [21] (Laine et al., ICC 2000),
//!   which describes the testbed's access node, was not available, nor the Linux 2.2.9 patch
//!   it describes (Tampere's "SIMA network node implementations", version 0.90). Neither form
//!   below is in the SIMA draft; each takes its averaging time from the same eq. (4) when the scenario
//!   gives `class_buffer` (`averaging_time`: the time constant of the draft's average, 8·K/(5·C)):
//!   - `Estimator::Tsw`: RFC 2859's time sliding window (`edge::tsw::Estimator`), started at NBR,
//!     the DiffServ rate meter of the time; its estimate relaxes towards a constant rate with
//!     time constant `window`, as the draft's average does with K/5 slots;
//!   - `Estimator::Window`: a sliding window, the bytes that arrived in the last `window` (this
//!     packet included) over `window`. Forsten, Loukola, Skyttä's hardware SIMA access node
//!     (LNCS 1718, 1999; the same SIMA project) lists a "memory window" among its subjects;
//!     how it used one was not found. An isolated packet measures its size over the window,
//!     where the draft's average measures it over the gap since the previous one.
//! - The code point is `dscp::sima(class, DP)`. For reports a packet of DP ≥ 4 is "green"
//!   (in profile): DP 4 is what a flow sending at its NBR gets (x = 4.5), the SIMA draft's
//!   "nominal connections" (§3.4).
//!
//! Not modelled: the draft's tables in place of (2)–(3) (afsim computes them exactly), NBR
//! signalling between access nodes, policing (the draft has none: §7), the access node's own
//! buffering (Laatu et al.'s border nodes also have core functions: that is a `queue::sima`
//! on their output ports).

use crate::edge::{tsw, MarkerStats};
use crate::net::dscp::{self, Colour};
use crate::param::ParamError;
use crate::sim::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The lowest and highest NBR the SIMA draft allows (§5: "from 8 to 320 Terabits per second").
pub const NBR_MIN_BPS: u64 = 8;
pub const NBR_MAX_BPS: u64 = 320_000_000_000_000;
/// Drop precedences a packet can carry (0 ..= 7); the formula gives 0 ..= 6.
pub const LEVELS: usize = dscp::SIMA_LEVELS;
/// The highest drop precedence equation (1) gives (7 is reserved, SIMA draft §4.1).
pub const DP_FORMULA_MAX: u8 = 6;
/// Drop precedences from here up are "green" in reports: at or near the NBR (see the header).
pub const DP_IN_PROFILE: u8 = 4;

pub use crate::net::dscp::ServiceClass;

/// Equation (1): the drop precedence of a packet whose flow measures `mbr_bps` against
/// `nbr_bps` (> 0). MBR = 0 (no traffic yet) gives 6. `log2(r)` is the paper's `ln r/ln 2`.
#[inline]
pub fn drop_precedence(mbr_bps: f64, nbr_bps: f64) -> u8 {
    debug_assert!(nbr_bps > 0.0 && mbr_bps >= 0.0);
    let x = 4.5 - (mbr_bps / nbr_bps).log2();
    if x >= 6.0 {
        6
    } else if x > 0.0 {
        // Int(x), the integer part: 0 < x < 6
        x as u8
    } else {
        // x ≤ 0, and NaN (never produced: MBR ≥ 0, NBR > 0)
        0
    }
}

/// The report colour of a drop precedence: green (in profile) from `DP_IN_PROFILE` up, else
/// yellow (the two-colour OUT).
#[inline]
pub fn colour(dp: u8) -> Colour {
    if dp >= DP_IN_PROFILE {
        Colour::IN
    } else {
        Colour::OUT
    }
}

/// SIMA draft eq. (4): α = 5/K_n with K_n the class's buffer in slots of `slot_bytes`.
pub fn alpha_from_buffer(slot_bytes: u32, buffer_bytes: u64) -> f64 {
    5.0 * f64::from(slot_bytes) / buffer_bytes as f64
}

/// The time constant of the SIMA draft's average (§9.1) when α comes from eq. (4), α = 5/K slots:
/// K/5 slots of C, i.e. 8·K/(5·C) seconds for a buffer of K bytes, whatever the slot. The other
/// estimators take it as their window when the scenario gives the class buffer.
pub fn averaging_time(capacity_bps: u64, buffer_bytes: u64) -> SimDuration {
    // 8·K·1e9 / (5·C) ns, rounded to the nearest nanosecond
    let ns = (8.0 * buffer_bytes as f64 * 1e9 / (5.0 * capacity_bps as f64)).round();
    SimDuration::from_nanos(ns as u64)
}

/// How the momentary bit rate is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimator {
    /// The SIMA draft's exponential moving average over time slots (§9.1, eqs. 2–3).
    Slots {
        /// C, the capacity of the user/network interface, bits/s.
        capacity_bps: u64,
        /// The slot: the time `slot_bytes` take at C (the draft's ATM cell is 53 B).
        slot_bytes: u32,
        /// α, the weight of one slot, in (0, 1).
        alpha: f64,
    },
    /// RFC 2859's time sliding window, started at NBR (`edge::tsw::Estimator`).
    Tsw { window: SimDuration },
    /// A sliding window: the bits that arrived in the last `window`, this packet's included,
    /// over `window` (see the header).
    Window { window: SimDuration },
}

impl Estimator {
    /// The scenario file's name of this form (`estimator = "..."`).
    pub fn name(&self) -> &'static str {
        match self {
            Estimator::Slots { .. } => "ewma",
            Estimator::Tsw { .. } => "tsw",
            Estimator::Window { .. } => "window",
        }
    }
}

/// A SIMA marker's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Nominal bit rate, bits/s (8 b/s … 320 Tb/s).
    pub nbr_bps: u64,
    pub class: ServiceClass,
    pub estimator: Estimator,
    /// Record (time, flow, DP, MBR) of every packet marked.
    pub trace: bool,
}

impl Params {
    /// Field names are the scenario file's.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(NBR_MIN_BPS..=NBR_MAX_BPS).contains(&self.nbr_bps) {
            return Err(ParamError::new(
                "nbr",
                format!(
                    "a nominal bit rate of {} bit/s is outside the SIMA range, 8 bit/s to 320 Tbit/s (SIMA draft §5)",
                    self.nbr_bps
                ),
            ));
        }
        match self.estimator {
            Estimator::Slots {
                capacity_bps,
                slot_bytes,
                alpha,
            } => {
                if capacity_bps == 0 {
                    return Err(ParamError::new(
                        "capacity",
                        "the interface capacity must be positive",
                    ));
                }
                if slot_bytes == 0 {
                    return Err(ParamError::new(
                        "slot",
                        "a time slot must be at least 1 byte long",
                    ));
                }
                if !(alpha > 0.0 && alpha < 1.0) {
                    return Err(ParamError::new(
                        "alpha",
                        format!("alpha = {alpha}: the weight of a slot must be in (0, 1)"),
                    ));
                }
            }
            Estimator::Tsw { window } | Estimator::Window { window } => {
                if window.as_nanos() == 0 {
                    return Err(ParamError::new(
                        "window",
                        "the averaging window must be positive",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The estimator's running state.
#[derive(Clone, Debug)]
enum State {
    Slots {
        /// ρ, the measured load (the fraction of the interface's slots in use).
        rho: f64,
        /// ln(1 − α); α itself; C in bits/s; the slot in bytes; slots per nanosecond.
        ln_keep: f64,
        alpha: f64,
        capacity_bps: f64,
        slot_bytes: f64,
        slots_per_ns: f64,
        /// The previous packet's arrival; `None` before the first.
        last: Option<SimTime>,
    },
    Tsw(tsw::Estimator),
    Window {
        /// The window, ns.
        win_ns: u64,
        /// (arrival in ns, bytes) of the packets still in the window, oldest first.
        arrivals: VecDeque<(u64, u32)>,
        /// Their bytes.
        bytes: u64,
    },
}

/// What the marker decided for one packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub dp: u8,
    pub mbr_bps: f64,
}

/// A SIMA marker: one per flow, or one for an aggregate that shares an NBR.
#[derive(Clone, Debug)]
pub struct Marker {
    params: Params,
    state: State,
    /// Colour view (`colour`): green DP ≥ 4, yellow below.
    pub stats: MarkerStats,
    /// Packets and bytes marked with each drop precedence.
    pub dp_packets: [u64; LEVELS],
    pub dp_bytes: [u64; LEVELS],
}

impl Marker {
    /// A marker that has seen nothing yet, at `now`. `params` must have passed `validate`.
    pub fn new(params: Params, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        let state = match params.estimator {
            Estimator::Slots {
                capacity_bps,
                slot_bytes,
                alpha,
            } => State::Slots {
                rho: 0.0,
                ln_keep: (-alpha).ln_1p(),
                alpha,
                capacity_bps: capacity_bps as f64,
                slot_bytes: f64::from(slot_bytes),
                slots_per_ns: capacity_bps as f64 / (8.0 * f64::from(slot_bytes) * 1e9),
                last: None,
            },
            Estimator::Tsw { window } => {
                State::Tsw(tsw::Estimator::new(window, params.nbr_bps as f64, now))
            }
            Estimator::Window { window } => State::Window {
                win_ns: window.as_nanos(),
                arrivals: VecDeque::new(),
                bytes: 0,
            },
        };
        Marker {
            params,
            state,
            stats: MarkerStats::default(),
            dp_packets: [0; LEVELS],
            dp_bytes: [0; LEVELS],
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Measures the momentary bit rate at the arrival of a packet of `size` bytes at `now`.
    #[inline]
    pub fn measure(&mut self, now: SimTime, size: u32) -> f64 {
        let nbr = self.params.nbr_bps as f64;
        match &mut self.state {
            State::Tsw(e) => e.update(now, size),
            State::Window {
                win_ns,
                arrivals,
                bytes,
            } => {
                // the window (now − W, now]: what arrived W or more ago has left it
                let t = now.as_nanos();
                while let Some(&(at, b)) = arrivals.front() {
                    if t.saturating_sub(at) < *win_ns {
                        break;
                    }
                    arrivals.pop_front();
                    *bytes -= u64::from(b);
                }
                arrivals.push_back((t, size));
                *bytes += u64::from(size);
                *bytes as f64 * 8.0 * 1e9 / *win_ns as f64
            }
            State::Slots {
                rho,
                ln_keep,
                alpha,
                capacity_bps,
                slot_bytes,
                slots_per_ns,
                last,
            } => {
                // the packet as u cells back to back (see the header)
                let u = f64::from(size) / *slot_bytes;
                // N: slots since the previous packet; the first packet's as if the flow had
                // been sending packets of its size at NBR (SIMA draft §9.1: N(i,1) = C/NBR_i)
                let n = match *last {
                    Some(t) => now.saturating_since(t).as_nanos() as f64 * *slots_per_ns,
                    None => u * *capacity_bps / nbr,
                };
                *last = Some(now);
                // eq. (2) for u cells: what this packet adds, and the decay of the rest
                let added = -(u * *ln_keep).exp_m1();
                *rho = added + *rho * (n * *ln_keep).exp();
                if n > 10.0 / *alpha {
                    // "for numerical reasons": the previous load has decayed away
                    return *capacity_bps * u / n;
                }
                // eq. (3) for u cells; ρ = added (nothing before it) measures no rate
                let q = added / *rho;
                if q >= 1.0 {
                    0.0
                } else {
                    *capacity_bps * u * *ln_keep / (-q).ln_1p()
                }
            }
        }
    }

    /// Measures a packet of `size` bytes at `now` and gives it its drop precedence (eq. 1).
    #[inline]
    pub fn mark(&mut self, now: SimTime, size: u32) -> Mark {
        let mbr_bps = self.measure(now, size);
        let dp = drop_precedence(mbr_bps, self.params.nbr_bps as f64);
        self.dp_packets[usize::from(dp)] += 1;
        self.dp_bytes[usize::from(dp)] += u64::from(size);
        self.stats.record(colour(dp), size);
        Mark { dp, mbr_bps }
    }

    /// The code point of drop precedence `dp` in this marker's class.
    #[inline]
    pub fn code_point(&self, dp: u8) -> u8 {
        dscp::sima(self.params.class.is_rt(), dp)
    }

    /// Checks that the drop-precedence counters add up to the colour counters.
    pub fn check(&self) -> Result<(), String> {
        self.stats.check()?;
        let (p, b): (u64, u64) = (self.dp_packets.iter().sum(), self.dp_bytes.iter().sum());
        if p != self.stats.offered_packets || b != self.stats.offered_bytes {
            return Err(format!(
                "SIMA marker counters broken: {} packets / {} B offered, {p} / {b} B by drop precedence",
                self.stats.offered_packets, self.stats.offered_bytes
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBR: f64 = 1_000_000.0;

    fn slots(capacity_bps: u64, slot_bytes: u32, alpha: f64) -> Params {
        Params {
            nbr_bps: 1_000_000,
            class: ServiceClass::Nrt,
            estimator: Estimator::Slots {
                capacity_bps,
                slot_bytes,
                alpha,
            },
            trace: false,
        }
    }

    /// `r` just above and just below `r0`.
    fn around(r0: f64) -> (f64, f64) {
        (r0 * (1.0 + 1e-9), r0 * (1.0 - 1e-9))
    }

    #[test]
    fn drop_precedence_follows_equation_one_by_hand() {
        // x = 4.5 − log2(MBR/NBR), worked out by hand for ratios that are powers of two
        let cases: [(f64, f64, u8); 11] = [
            (1.0, 4.5, 4), // at the NBR: DP 4 (SIMA draft §4.1)
            (2.0, 3.5, 3),
            (4.0, 2.5, 2),
            (8.0, 1.5, 1),
            (16.0, 0.5, 0),
            (32.0, -0.5, 0), // bound: x ≤ 0
            (0.5, 5.5, 5),
            (0.25, 6.5, 6), // bound: x ≥ 6
            (1.0 / 1024.0, 14.5, 6),
            (1024.0, -5.5, 0),
            (0.0, f64::INFINITY, 6), // nothing measured yet
        ];
        for (ratio, x, dp) in cases {
            assert_eq!(4.5 - ratio.log2(), x, "ratio {ratio}");
            assert_eq!(
                drop_precedence(ratio * NBR, NBR),
                dp,
                "ratio {ratio} (x = {x})"
            );
        }
    }

    #[test]
    fn drop_precedence_changes_exactly_where_x_crosses_an_integer() {
        // x = k at MBR/NBR = 2^(4.5 − k): just below the ratio x is above k, just above it below
        for k in 1..=5 {
            let (above, below) = around(2f64.powf(4.5 - f64::from(k)));
            assert_eq!(
                drop_precedence(below * NBR, NBR),
                k as u8,
                "x slightly above {k}"
            );
            assert_eq!(
                drop_precedence(above * NBR, NBR),
                k as u8 - 1,
                "x slightly below {k}"
            );
        }
        // the bounds: x ≥ 6 is 6 (ratio ≤ 2^-1.5 = 0.354), x ≤ 0 is 0 (ratio ≥ 2^4.5 = 22.6)
        let (above, below) = around(2f64.powf(-1.5));
        assert_eq!(
            (
                drop_precedence(below * NBR, NBR),
                drop_precedence(above * NBR, NBR)
            ),
            (6, 5)
        );
        let (above, below) = around(2f64.powf(4.5));
        assert_eq!(
            (
                drop_precedence(below * NBR, NBR),
                drop_precedence(above * NBR, NBR)
            ),
            (0, 0)
        );
        let (_, below) = around(2f64.powf(3.5));
        assert_eq!(drop_precedence(below * NBR, NBR), 1);
        // the formula never gives the reserved 7, nor anything for NBR's scale alone
        for e in -40..=40 {
            let r = 2f64.powf(f64::from(e) / 4.0);
            assert!(drop_precedence(r * 8.0, 8.0) <= DP_FORMULA_MAX);
            assert_eq!(
                drop_precedence(r * 8.0, 8.0),
                drop_precedence(r * 3.2e14, 3.2e14)
            );
        }
    }

    #[test]
    fn green_is_dp_four_and_above() {
        assert_eq!((0..8).map(colour).filter(|c| c.is_in()).count(), 4);
        assert_eq!(colour(4), Colour::IN);
        assert_eq!(colour(3), Colour::OUT);
    }

    #[test]
    fn alpha_is_five_over_the_class_buffer_in_slots() {
        // eq. (4): the paper's NRT buffer, 20000 B, in 53-byte cells: K = 377.36
        assert!((alpha_from_buffer(53, 20_000) - 0.01325).abs() < 1e-15);
        assert_eq!(alpha_from_buffer(1000, 10_000), 0.5);
    }

    #[test]
    fn the_slot_average_measures_a_constant_bit_rate_exactly() {
        // eq. (3) is exact for CBR: 1000 B every 4 ms is 2 Mb/s, on a 10 Mb/s interface
        for (slot, alpha) in [(53, 0.01), (1000, 0.3), (1, 0.0005)] {
            let mut m = Marker::new(slots(10_000_000, slot, alpha), SimTime::ZERO);
            let mut mbr = 0.0;
            for i in 0..2000u64 {
                mbr = m.measure(SimTime::from_nanos(i * 4_000_000), 1000);
            }
            assert!(
                (mbr / 2e6 - 1.0).abs() < 1e-9,
                "slot {slot}, alpha {alpha}: {mbr}"
            );
        }
    }

    #[test]
    fn one_cell_per_slot_is_the_drafts_equations_two_and_three() {
        // slot = packet size, so u = 1: ρ_j = α + ρ_{j−1}(1 − α)^N and MBR = C ln(1−α)/ln(1−α/ρ)
        let (c, alpha) = (1_000_000.0, 0.1);
        let mut m = Marker::new(slots(1_000_000, 100, alpha), SimTime::ZERO);
        // a slot is 100 B at 1 Mb/s = 0.8 ms; the first packet's N is its spacing at NBR (1 Mb/s):
        // 1 slot; then arrivals 2, 3 and 5 slots apart
        let arrivals = [
            (0u64, 1.0),
            (1_600_000, 2.0),
            (4_000_000, 3.0),
            (8_000_000, 5.0),
        ];
        let mut rho = 0.0;
        for (j, (t, n)) in arrivals.into_iter().enumerate() {
            let mbr = m.measure(SimTime::from_nanos(t), 100);
            rho = alpha + rho * (1.0f64 - alpha).powf(n);
            // the first: ρ = α, ln(1 − α/ρ) = ln 0: no rate measured yet
            let want = if j == 0 {
                0.0
            } else {
                c * (1.0f64 - alpha).ln() / (1.0 - alpha / rho).ln()
            };
            assert!(
                (mbr - want).abs() <= 1e-9 * want.max(1.0),
                "packet {j}: {mbr} vs {want}"
            );
        }
    }

    #[test]
    fn a_long_gap_measures_one_packet_over_the_gap() {
        // N > 10/α: MBR = C/N, i.e. the packet's bits over the time since the previous one
        let mut m = Marker::new(slots(10_000_000, 53, 0.05), SimTime::ZERO);
        m.measure(SimTime::ZERO, 1000);
        let mbr = m.measure(SimTime::from_nanos(1_000_000_000), 1000);
        assert!((mbr - 8000.0).abs() < 1e-6, "{mbr}");
    }

    #[test]
    fn the_first_packet_is_measured_at_nbr_when_its_spacing_is_long() {
        // u·C/NBR slots > 10/α: MBR = NBR, DP 4 (1500 B is 28.3 cells, spaced 283 slots at a
        // tenth of C, and 10/α = 200); a short spacing leaves ρ = what it added: MBR 0, DP 6
        let mut m = Marker::new(slots(10_000_000, 53, 0.05), SimTime::ZERO);
        let first = m.mark(SimTime::ZERO, 1500);
        assert!(
            (first.mbr_bps - NBR).abs() < 1e-6 && first.dp == 4,
            "{first:?}"
        );
        let mut fast = Marker::new(slots(1_100_000, 1500, 0.01), SimTime::ZERO);
        assert_eq!(
            fast.mark(SimTime::ZERO, 1500),
            Mark {
                dp: 6,
                mbr_bps: 0.0
            }
        );
    }

    #[test]
    fn a_burst_at_line_rate_is_marked_down_and_recovers_after_a_pause() {
        let mut m = Marker::new(slots(10_000_000, 53, 0.01325), SimTime::ZERO);
        // 20 packets of 1500 B back to back on 10 Mb/s (1.2 ms each): MBR → 10 Mb/s, ratio 10
        let mut dp = 0;
        for i in 0..20u64 {
            dp = m.mark(SimTime::from_nanos(i * 1_200_000), 1500).dp;
        }
        assert!(dp <= 1, "ten times the NBR is x ≈ 1.2: {dp}");
        // then one packet every 12 ms (1 Mb/s): the measurement settles back to DP 4
        let mut t = 20 * 1_200_000;
        for _ in 0..200 {
            t += 12_000_000;
            dp = m.mark(SimTime::from_nanos(t), 1500).dp;
        }
        assert_eq!(dp, 4);
        assert!(m.check().is_ok());
        assert_eq!(m.dp_packets.iter().sum::<u64>(), 220);
    }

    #[test]
    fn the_tsw_estimator_starts_at_nbr_and_follows_the_rate() {
        let p = Params {
            estimator: Estimator::Tsw {
                window: SimDuration::from_millis(100),
            },
            ..slots(1, 1, 0.5)
        };
        let mut m = Marker::new(p, SimTime::ZERO);
        // a packet right at the start adds its bits to a window believed to hold NBR's
        let first = m.measure(SimTime::ZERO, 1000);
        assert!((first - (NBR * 0.1 + 8000.0) / 0.1).abs() < 1e-6, "{first}");
        let mut mbr = 0.0;
        for i in 1..=1000u64 {
            mbr = m.measure(SimTime::from_nanos(i * 2_000_000), 1000); // 4 Mb/s
        }
        assert!((mbr / 4e6 - 1.0).abs() < 0.01, "{mbr}");
        assert_eq!(drop_precedence(mbr, NBR), 2);
    }

    #[test]
    fn the_averaging_time_is_the_drafts_time_constant() {
        // eq. (4) with K = 20000 B at 10 Mb/s: K/5 = 4000 B = 3.2 ms; 1 MB: 160 ms
        assert_eq!(
            averaging_time(10_000_000, 20_000),
            SimDuration::from_micros(3_200)
        );
        assert_eq!(
            averaging_time(10_000_000, 1_000_000),
            SimDuration::from_millis(160)
        );
        // the EWMA's own time constant, 1/α slots of slot × 8 / C seconds, whatever the slot
        for slot in [1u32, 53, 1500] {
            let alpha = alpha_from_buffer(slot, 20_000);
            let tau_s = f64::from(slot) * 8.0 / 10e6 / alpha;
            assert!((tau_s - 0.0032).abs() < 1e-15, "slot {slot}: {tau_s}");
        }
    }

    fn window(ms: u64) -> Params {
        Params {
            estimator: Estimator::Window {
                window: SimDuration::from_millis(ms),
            },
            ..slots(1, 1, 0.5)
        }
    }

    #[test]
    fn the_sliding_window_counts_the_bits_of_the_last_window() {
        // 1000 B every 4 ms (2 Mb/s) through a 100 ms window: 25 packets in (t − 100 ms, t]
        let mut m = Marker::new(window(100), SimTime::ZERO);
        let mut mbr = 0.0;
        for i in 0..500u64 {
            mbr = m.measure(SimTime::from_nanos(i * 4_000_000), 1000);
        }
        assert_eq!(mbr, 2e6);
        // a packet exactly one window old has left it: 100 ms later only the new one counts
        let t = 499 * 4_000_000 + 100_000_000;
        assert_eq!(m.measure(SimTime::from_nanos(t), 1000), 1000.0 * 8.0 / 0.1);
        // just under a window later the previous one still counts
        assert_eq!(
            m.measure(SimTime::from_nanos(t + 99_999_999), 1000),
            2000.0 * 8.0 / 0.1
        );
    }

    #[test]
    fn an_isolated_packet_is_its_size_over_the_window_not_over_the_gap() {
        // the two forms at the same averaging time (20000 B at 10 Mb/s: 3.2 ms) part on a lone
        // 1488-byte segment a second after the previous one: the window measures 3.72 Mb/s (DP 2
        // at NBR 1.2 Mb/s: x = 4.5 − log2 3.1 = 2.87), the draft's average the packet over the gap
        // (12 kb/s: DP 6)
        let nbr = 1_200_000;
        let tau = averaging_time(10_000_000, 20_000);
        let w = Params {
            nbr_bps: nbr,
            estimator: Estimator::Window { window: tau },
            ..slots(1, 1, 0.5)
        };
        let e = Params {
            nbr_bps: nbr,
            ..slots(10_000_000, 53, alpha_from_buffer(53, 20_000))
        };
        let (mut mw, mut me) = (Marker::new(w, SimTime::ZERO), Marker::new(e, SimTime::ZERO));
        for m in [&mut mw, &mut me] {
            m.mark(SimTime::ZERO, 1488);
        }
        let later = SimTime::from_nanos(1_000_000_000);
        let (a, b) = (mw.mark(later, 1488), me.mark(later, 1488));
        assert!(
            (a.mbr_bps - 1488.0 * 8.0 / 0.0032).abs() < 1e-6 && a.dp == 2,
            "{a:?}"
        );
        assert!(
            (b.mbr_bps - 1488.0 * 8.0).abs() < 1e-6 && b.dp == 6,
            "{b:?}"
        );
        assert_eq!((Estimator::Window { window: tau }).name(), "window");
    }

    #[test]
    fn code_points_carry_the_class() {
        let mut p = slots(10_000_000, 53, 0.01);
        assert_eq!(
            Marker::new(p, SimTime::ZERO).code_point(4),
            dscp::sima(false, 4)
        );
        p.class = ServiceClass::Rt;
        assert_eq!(
            Marker::new(p, SimTime::ZERO).code_point(4),
            dscp::sima(true, 4)
        );
    }

    #[test]
    fn impossible_parameters_name_their_field() {
        let ok = slots(10_000_000, 53, 0.01);
        assert!(ok.validate().is_ok());
        let field = |p: Params| p.validate().unwrap_err().field;
        assert_eq!(field(Params { nbr_bps: 0, ..ok }), "nbr");
        assert_eq!(field(Params { nbr_bps: 7, ..ok }), "nbr");
        assert!(Params {
            nbr_bps: NBR_MIN_BPS,
            ..ok
        }
        .validate()
        .is_ok());
        assert!(Params {
            nbr_bps: NBR_MAX_BPS,
            ..ok
        }
        .validate()
        .is_ok());
        assert_eq!(
            field(Params {
                nbr_bps: NBR_MAX_BPS + 1,
                ..ok
            }),
            "nbr"
        );
        assert_eq!(field(slots(0, 53, 0.01)), "capacity");
        assert_eq!(field(slots(10, 0, 0.01)), "slot");
        for alpha in [0.0, 1.0, -0.1, f64::NAN, 2.0] {
            assert_eq!(field(slots(10, 53, alpha)), "alpha", "{alpha}");
        }
        let tsw = Params {
            estimator: Estimator::Tsw {
                window: SimDuration::ZERO,
            },
            ..ok
        };
        assert_eq!(field(tsw), "window");
        let sliding = Params {
            estimator: Estimator::Window {
                window: SimDuration::ZERO,
            },
            ..ok
        };
        assert_eq!(field(sliding), "window");
    }
}
