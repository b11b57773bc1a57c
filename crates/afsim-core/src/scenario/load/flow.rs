//! `[[flow]]` read on its own: the fields every flow has, then those of its kind.
//!
//! Read this first: `kind` decides which fields are valid, so it is read first; a field of
//! another kind gets a message saying whose field it is (`stop` and `packets` on a TCP flow
//! point to `bytes`). A TCP or TFRC flow starts from a preset — `Params::default()` (the RFCs),
//! `Params::ns2()` (ns-2.35) or, for TFRC only, `Params::ns2_28()` (ns-2.28) — and the fields
//! written override it; the result goes through
//! the model's `Params::validate`, whose error is reported at the field it names (or at the
//! `[[flow]]` when that field was left at its default). Names, groups and start staggering
//! are `resolve`'s.

use super::diffserv::code_point;
use super::names::{Named, MAX_FLOWS};
use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::table::Rec;
use super::value::{Scalar, Val};
use crate::scenario::spec::Limit;
use crate::scenario::units::{
    parse_amount, parse_rate_bps, parse_size_bytes, parse_time_ns, Quantity,
};
use crate::sim::time::SimDuration;
use crate::transport::tcp::cc::CcKind;
use crate::transport::tcp::{self, Variant, HEADER_BYTES};
use crate::transport::tfrc::{self, InitialRate};

const FLOW_KINDS: [&str; 3] = ["cbr", "tcp", "tfrc"];
const CBR_FIELDS: [&str; 13] = [
    "name",
    "from",
    "to",
    "count",
    "kind",
    "dscp",
    "rate",
    "packet_size",
    "start",
    "start_step",
    "stop",
    "packets",
    "jitter",
];
const TCP_FIELDS: [&str; 39] = [
    "name",
    "from",
    "to",
    "count",
    "kind",
    "dscp",
    "preset",
    "variant",
    "cc",
    "hystart",
    "ack_aggregation",
    "quantization_budget",
    "policer_detection",
    "tso_bursts",
    "recovery_losses",
    "rack",
    "rtt_every_ack",
    "prr",
    "byte_counting",
    "reno_friendly",
    "packet_size",
    "max_window",
    "initial_window",
    "dupack_threshold",
    "limited_transmit",
    "tick",
    "initial_rto",
    "min_rto",
    "max_rto",
    "ecn",
    "handshake",
    "delayed_ack",
    "delayed_ack_interval",
    "quick_acks",
    "bytes",
    "start",
    "start_step",
    "trace",
    "target_rate",
];
const TFRC_FIELDS: [&str; 19] = [
    "name",
    "from",
    "to",
    "count",
    "kind",
    "dscp",
    "preset",
    "packet_size",
    "header_size",
    "feedback_size",
    "initial_rate",
    "ndupack",
    "oscillation_prevention",
    "nofeedback_timer",
    "ecn",
    "target_rate",
    "start",
    "start_step",
    "trace",
];
/// TCP's presets: the RFCs, ns-2.35.
const TCP_PRESETS: [&str; 2] = ["rfc", "ns2"];
/// TFRC's presets: RFC 5348, ns-2.35, ns-2.28 (`tfrc::Rules`).
const TFRC_PRESETS: [&str; 3] = ["rfc", "ns2", "ns2_28"];
/// ns-2's `window_` default, 20 packets: the TCP window when a flow gives none.
const DEFAULT_WINDOW_SEGMENTS: u64 = 20;

/// The fields of a flow kind.
fn fields_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "cbr" => &CBR_FIELDS,
        "tcp" => &TCP_FIELDS,
        _ => &TFRC_FIELDS,
    }
}

#[derive(Debug)]
pub(crate) struct RawFlow {
    pub path: String,
    pub name: Named,
    pub from: Named,
    pub to: Named,
    pub count: u64,
    pub count_at: usize,
    /// The code point the source sets (default 0, best effort).
    pub dscp: u8,
    pub start: SimDuration,
    /// Where `start` is written (the record's position when it is not).
    pub start_at: usize,
    pub start_step: SimDuration,
    pub step_at: usize,
    pub app: RawApp,
    /// Per-member applications and code points, one per flow of the group, when the table
    /// gave per-member values (empty otherwise: every flow takes `app` and `dscp`).
    pub members: Vec<(RawApp, u8)>,
    /// Where the first per-member array is, and its field.
    pub members_at: Option<(usize, String)>,
}

#[derive(Clone, Debug)]
pub(crate) enum RawApp {
    Cbr(RawCbr),
    /// Validated parameters; `start` is set per flow when the group is expanded.
    Tcp(tcp::Params),
    /// Likewise.
    Tfrc(tfrc::Params),
}

#[derive(Clone, Debug)]
pub(crate) struct RawCbr {
    pub rate_bps: u64,
    pub packet_size: u32,
    /// The stop time and the position of `stop`.
    pub stop: Option<(SimDuration, usize)>,
    pub packets: Option<u64>,
    pub jitter: bool,
}

/// Why a field of one kind of flow is not a field of this kind, when a hint helps.
fn other_kinds_field(kind: &str, key: &str) -> Option<String> {
    let own = fields_of(kind);
    let owners: Vec<&str> = FLOW_KINDS
        .into_iter()
        .filter(|&k| k != kind && fields_of(k).contains(&key))
        .collect();
    if own.contains(&key) || owners.is_empty() {
        return None;
    }
    let hint = match (kind, key) {
        ("tcp", "stop") => {
            " (a tcp flow sends until its 'bytes' are delivered, or without 'bytes' until the scenario's duration ends)"
        }
        ("tcp", "packets") => " (a tcp transfer is counted in bytes: write bytes = \"1MB\")",
        ("cbr", "bytes") => " (a cbr transfer is counted in packets: write packets = 1000)",
        ("tfrc", "rate") => " (a tfrc flow's rate follows its congestion control; target_rate sets gTFRC's floor)",
        ("tfrc", "stop" | "packets" | "bytes") => " (a tfrc flow always has data: it sends until the scenario's duration ends)",
        _ => "",
    };
    Some(format!(
        "'{key}' is a field of {} flows, not of {kind} flows{hint}; the fields of a {kind} flow are: {}",
        owners.join(" and "),
        list(own.iter().copied())
    ))
}

/// A `[[flow]]` table. Its application's fields and `dscp` may give per-member values
/// (`rate = ["1Mbps", "2Mbps", "4Mbps"]` for a group of 3 flows): the table is then read once
/// per member (`Params::set_member`), and `resolve` gives flow i of the group the application
/// of reading i. `name`, `from`, `to`, `count`, `kind`, `preset`, `start` and `start_step`
/// make the group and are one for all of it.
pub(crate) fn read_flow(rec: &Rec, params: &Params) -> Result<RawFlow, Fail> {
    let read = |i: usize| {
        params.take_members();
        let r = read_one(rec, params, i);
        params.set_member(None);
        r
    };
    let mut f = read(0)?;
    if let Some(m) = params.take_members() {
        let mut members = Vec::with_capacity(m.len);
        for i in 1..m.len {
            let g = read(i)?;
            members.push((g.app, g.dscp));
        }
        params.take_members();
        // `app` and `dscp` stay member 0's for what reads the record as a whole
        members.insert(0, (f.app.clone(), f.dscp));
        f.members = members;
        f.members_at = Some((m.at, m.field));
    }
    Ok(f)
}

fn read_one(rec: &Rec, params: &Params, member: usize) -> Result<RawFlow, Fail> {
    let fields = rec.fields();
    let kind = match fields.iter().find(|f| f.key == "kind") {
        Some(f) => {
            let v = rec.val(params, f)?;
            let s = v.string()?;
            if !FLOW_KINDS.contains(&s.as_str()) {
                return Err(v.fail(format!(
                    "unknown flow kind '{s}'{}; the flow kinds are: {}",
                    suggestion(&s, FLOW_KINDS),
                    list(FLOW_KINDS)
                )));
            }
            s
        }
        None => return Err(rec.missing("kind", "\"cbr\"")),
    };
    // The preset is the base every other field overrides, so it is read first.
    let presets: &[&str] = if kind == "tcp" {
        &TCP_PRESETS
    } else {
        &TFRC_PRESETS
    };
    let preset = match fields.iter().find(|f| f.key == "preset" && kind != "cbr") {
        Some(f) => rec.val(params, f)?.choice(presets, "preset")?,
        None => "rfc",
    };
    let ns2 = preset == "ns2";
    let own = fields_of(&kind);
    let mut app = match kind.as_str() {
        "cbr" => Draft::Cbr(CbrDraft::default()),
        "tcp" => {
            let p = if ns2 {
                tcp::Params::ns2()
            } else {
                tcp::Params::default()
            };
            Draft::Tcp(TcpDraft {
                p,
                window: None,
                ack_interval: None,
            })
        }
        _ => Draft::Tfrc(match preset {
            "ns2" => tfrc::Params::ns2(),
            "ns2_28" => tfrc::Params::ns2_28(),
            _ => tfrc::Params::default(),
        }),
    };
    let (mut name, mut from, mut to) = (None, None, None);
    let (mut count, mut count_at, mut dscp) = (1, rec.at, 0);
    let (mut start, mut start_step, mut step_at) = (SimDuration::ZERO, SimDuration::ZERO, rec.at);
    let mut start_at = rec.at;
    for f in &fields {
        if !own.contains(&f.key) {
            return Err(match other_kinds_field(&kind, f.key) {
                Some(m) => Fail::new(f.key_at, rec.path_of(f.key), m),
                None => rec.unknown(f, own),
            });
        }
        // what makes the group is one for all of it; the rest may differ per member
        let shared = matches!(
            f.key,
            "name" | "from" | "to" | "count" | "kind" | "preset" | "start" | "start_step"
        );
        params.set_member(if shared { None } else { Some(member) });
        let v = rec.val(params, f)?;
        let time = || v.quantity(Quantity::Time, parse_time_ns).map(SimDuration);
        match f.key {
            "name" => {
                name = Some(Named {
                    name: v.name()?,
                    at: v.at,
                })
            }
            "from" => {
                from = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "to" => {
                to = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "count" => {
                count = v.int_at_least(0)?;
                count_at = v.at;
                if count > MAX_FLOWS {
                    return Err(v.fail(format!(
                        "a scenario can have at most {MAX_FLOWS} flows, found count = {count}"
                    )));
                }
            }
            "kind" => {}
            "dscp" => dscp = code_point(&v)?,
            "start" => {
                start = time()?;
                start_at = v.at;
            }
            "start_step" => {
                start_step = time()?;
                step_at = v.at;
            }
            key => match &mut app {
                Draft::Cbr(c) => c.field(key, v)?,
                Draft::Tcp(t) => t.field(key, v)?,
                Draft::Tfrc(p) => tfrc_field(p, key, v)?,
            },
        }
    }
    let name = name.ok_or_else(|| rec.missing("name", "\"af\""))?;
    let from = from.ok_or_else(|| rec.missing("from", "\"src\""))?;
    let to = to.ok_or_else(|| rec.missing("to", "\"dst\""))?;
    let app = match app {
        Draft::Cbr(c) => RawApp::Cbr(c.finish(rec, start)?),
        Draft::Tcp(t) => RawApp::Tcp(t.finish(rec)?),
        Draft::Tfrc(p) => {
            let spots = rec.spots();
            p.validate().map_err(|e| {
                // headers no smaller than the packet: blame the size that was written
                let field = if e.field == "header_size" && !spots.has("header_size") {
                    "packet_size"
                } else {
                    e.field
                };
                spots.fail(field, &e.message)
            })?;
            RawApp::Tfrc(p)
        }
    };
    Ok(RawFlow {
        path: rec.path.clone(),
        name,
        from,
        to,
        count,
        count_at,
        dscp,
        start,
        start_at,
        start_step,
        step_at,
        app,
        members: Vec::new(),
        members_at: None,
    })
}

/// The fields of a flow's kind, as they are read.
enum Draft {
    Cbr(CbrDraft),
    Tcp(TcpDraft),
    /// The preset, overridden field by field.
    Tfrc(tfrc::Params),
}

/// One field of a tfrc flow. Sizes out of range are left to `tfrc::Params::validate`, which
/// states the range.
/// A field that is off (`false`), the RFC's mechanism (`true` or the RFC's name `rfc`) or
/// Linux's (`"linux"`): `None`, `Some(false)` or `Some(true)`.
fn rfc_or_linux(v: &Val, rfc: &str, what: &str) -> Result<Option<bool>, Fail> {
    match (v.boolean(), v.string()) {
        (Ok(b), _) => Ok(b.then_some(false)),
        (_, Err(_)) => Err(v.wrong(&format!("true, false, \"{rfc}\" or \"linux\""))),
        (_, Ok(_)) => Ok(Some(v.choice(&[rfc, "linux"], what)? == "linux")),
    }
}

fn tfrc_field(p: &mut tfrc::Params, key: &str, v: Val) -> Result<(), Fail> {
    let size = || {
        v.quantity(Quantity::Size, parse_size_bytes)
            .map(|b| u32::try_from(b).unwrap_or(u32::MAX))
    };
    match key {
        "preset" => {}
        "packet_size" => p.packet_size = size()?,
        "header_size" => p.header_bytes = size()?,
        "feedback_size" => p.feedback_size = size()?,
        "initial_rate" => {
            let names: Vec<&str> = InitialRate::ALL.iter().map(|r| r.name()).collect();
            let name = v.choice(&names, "initial rate")?;
            p.initial_rate = InitialRate::from_name(name).expect("listed initial rates have names");
        }
        "ndupack" => p.ndupack = v.int_in(0, u64::from(u32::MAX))? as u32,
        "oscillation_prevention" => p.oscillation_prevention = v.boolean()?,
        "nofeedback_timer" => p.nofeedback_timer = v.boolean()?,
        "ecn" => p.ecn = v.boolean()?,
        // "none": plain TFRC (a sweep can switch gTFRC off through a parameter)
        "target_rate" => {
            p.target_rate_bps = match &v.s {
                Scalar::Str(s) if s == "none" => None,
                _ => Some(v.quantity(Quantity::Rate, parse_rate_bps)?),
            }
        }
        "trace" => p.trace = v.boolean()?,
        other => unreachable!("'{other}' is not a tfrc field of TFRC_FIELDS"),
    }
    Ok(())
}

#[derive(Default)]
struct CbrDraft {
    rate: Option<u64>,
    packet_size: Option<u32>,
    stop: Option<(SimDuration, Val)>,
    packets: Option<u64>,
    jitter: bool,
}

impl CbrDraft {
    fn field(&mut self, key: &str, v: Val) -> Result<(), Fail> {
        match key {
            "rate" => self.rate = Some(v.quantity(Quantity::Rate, parse_rate_bps)?),
            "packet_size" => {
                let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                // An IPv4 packet is 1..=65535 bytes (RFC 791 Total Length is 16 bits).
                if b == 0 {
                    return Err(v.fail("packet_size must be at least 1B"));
                }
                if b > 65_535 {
                    return Err(v.fail(format!(
                        "packet_size must be at most 65535B (the largest IP packet), found {b}B"
                    )));
                }
                self.packet_size = Some(b as u32);
            }
            "stop" => {
                self.stop = Some((SimDuration(v.quantity(Quantity::Time, parse_time_ns)?), v))
            }
            "packets" => self.packets = Some(v.int_at_least(1)?),
            "jitter" => self.jitter = v.boolean()?,
            other => unreachable!("'{other}' is not a cbr field of CBR_FIELDS"),
        }
        Ok(())
    }

    fn finish(self, rec: &Rec, start: SimDuration) -> Result<RawCbr, Fail> {
        let rate_bps = self.rate.ok_or_else(|| rec.missing("rate", "\"1Mbps\""))?;
        let packet_size = self
            .packet_size
            .ok_or_else(|| rec.missing("packet_size", "\"576B\""))?;
        let stop = match self.stop {
            Some((t, v)) if t <= start => {
                return Err(v.fail(format!("stop ({t}) must be after start ({start})")))
            }
            Some((t, v)) => Some((t, v.at)),
            None => None,
        };
        Ok(RawCbr {
            rate_bps,
            packet_size,
            stop,
            packets: self.packets,
            jitter: self.jitter,
        })
    }
}

struct TcpDraft {
    /// The preset, overridden field by field.
    p: tcp::Params,
    window: Option<Limit>,
    ack_interval: Option<Val>,
}

impl TcpDraft {
    fn field(&mut self, key: &str, v: Val) -> Result<(), Fail> {
        let p = &mut self.p;
        let time = || v.quantity(Quantity::Time, parse_time_ns).map(SimDuration);
        let int = || v.int_in(0, u64::from(u32::MAX)).map(|n| n as u32);
        match key {
            "preset" => {}
            "variant" => {
                let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                let name = v.choice(&names, "TCP variant")?;
                p.variant = Variant::from_name(name).expect("listed variants have names");
            }
            // congestion control beside the loss recovery (`tcp::cc`)
            "cc" => {
                let names: Vec<&str> = CcKind::ALL.iter().map(|c| c.name()).collect();
                let name = v.choice(&names, "congestion control")?;
                p.cc = CcKind::from_name(name).expect("listed controllers have names");
            }
            // true (or "rfc9406"): HyStart++; "linux": tcp_cubic.c's HyStart
            "hystart" => {
                let on = rfc_or_linux(&v, "rfc9406", "HyStart")?;
                (p.hystart, p.hystart_linux) = (on == Some(false), on == Some(true));
            }
            "ack_aggregation" => p.bbr_linux.ack_aggregation = v.boolean()?,
            "quantization_budget" => p.bbr_linux.quantization_budget = v.boolean()?,
            "policer_detection" => p.bbr_linux.policer_detection = v.boolean()?,
            "tso_bursts" => p.bbr_linux.tso_bursts = v.boolean()?,
            "recovery_losses" => p.bbr_linux.recovery_losses = v.boolean()?,
            // RFC 8985 RACK-TLP (`tcp::sender::rack`)
            "rack" => p.rack = v.boolean()?,
            // Linux's RTT sample from every ACK (tcp_input.c `tcp_ack_update_rtt`)
            "rtt_every_ack" => p.rtt_every_ack = v.boolean()?,
            // RFC 6937 PRR (`tcp::sender::prr`)
            // true (or "rfc6937"): RFC 6937's PRR-SSRB; "linux": Linux's tcp_cwnd_reduction
            "prr" => {
                let on = rfc_or_linux(&v, "rfc6937", "PRR")?;
                (p.prr, p.prr_linux) = (on.is_some(), on == Some(true));
            }
            // Linux's window growth by segments acknowledged (tcp_cong.c; RFC 3465 §2.1)
            "byte_counting" => p.byte_counting = v.boolean()?,
            // CUBIC's Reno-friendly region: RFC 9438 §4.3 or Linux's tcp_friendliness
            "reno_friendly" => {
                p.cubic_linux_friendly =
                    v.choice(&["rfc9438", "linux"], "Reno-friendly region")? == "linux"
            }
            // Sizes out of range are left to validate(), which states the range.
            "packet_size" => {
                p.packet_size =
                    u32::try_from(v.quantity(Quantity::Size, parse_size_bytes)?).unwrap_or(u32::MAX)
            }
            "max_window" => self.window = Some(v.quantity(Quantity::Amount, parse_amount)?),
            "initial_window" => p.initial_window_segments = int()?,
            "dupack_threshold" => p.dupack_threshold = int()?,
            "limited_transmit" => p.limited_transmit = v.boolean()?,
            "tick" => p.tick = time()?,
            "initial_rto" => p.initial_rto = time()?,
            "min_rto" => p.min_rto = time()?,
            "max_rto" => p.max_rto = time()?,
            "ecn" => p.ecn = v.boolean()?,
            "handshake" => p.handshake = v.boolean()?,
            "delayed_ack" => p.delayed_ack = v.boolean()?,
            "delayed_ack_interval" => {
                p.delayed_ack_interval = time()?;
                self.ack_interval = Some(v);
            }
            // Linux's quick-ACK mode at the start (tcp_input.c `tcp_incr_quickack`)
            "quick_acks" => p.quick_acks = int()?,
            "bytes" => {
                let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                if b == 0 {
                    return Err(v.fail("a transfer must be at least 1B"));
                }
                p.transfer_bytes = Some(b);
            }
            "trace" => p.trace = v.boolean()?,
            // Leung & Muppala's Throughput Sustaining Scheme; "none": plain TCP (a sweep can
            // switch it off through a parameter)
            "target_rate" => {
                p.target_rate_bps = match &v.s {
                    Scalar::Str(s) if s == "none" => None,
                    _ => Some(
                        std::num::NonZeroU64::new(v.quantity(Quantity::Rate, parse_rate_bps)?)
                            .ok_or_else(|| {
                                v.fail("a target rate must be positive (\"none\" for plain TCP)")
                            })?,
                    ),
                }
            }
            other => unreachable!("'{other}' is not a tcp field of TCP_FIELDS"),
        }
        Ok(())
    }

    fn finish(self, rec: &Rec) -> Result<tcp::Params, Fail> {
        let mut p = self.p;
        // A window in packets counts full segments, as ns-2's `window_` does; the sender's
        // window is in payload bytes (`Params::max_window_bytes`).
        let mss = u64::from(p.packet_size.saturating_sub(HEADER_BYTES));
        p.max_window_bytes = match self.window {
            Some(Limit::Packets(n)) => u64::from(n) * mss,
            Some(Limit::Bytes(b)) => b,
            None => DEFAULT_WINDOW_SEGMENTS * mss,
        };
        if let Some(v) = self.ack_interval {
            if !p.delayed_ack {
                return Err(v.fail("delayed_ack_interval applies only with delayed_ack = true"));
            }
        }
        p.validate()
            .map_err(|e| rec.spots().fail(e.field, &e.message))?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_of_the_other_kind_says_whose_it_is() {
        let m = other_kinds_field("tcp", "rate").unwrap();
        assert!(
            m.starts_with("'rate' is a field of cbr flows, not of tcp flows; the fields of a tcp flow are: name"),
            "{m}"
        );
        assert!(other_kinds_field("tcp", "stop")
            .unwrap()
            .contains("until its 'bytes' are delivered"));
        assert!(other_kinds_field("cbr", "bytes")
            .unwrap()
            .contains("write packets = 1000"));
        assert_eq!(other_kinds_field("cbr", "colour"), None);
        assert_eq!(other_kinds_field("cbr", "name"), None);
    }

    #[test]
    fn the_field_lists_share_the_common_fields() {
        for f in [
            "name",
            "from",
            "to",
            "count",
            "kind",
            "dscp",
            "packet_size",
            "start",
            "start_step",
        ] {
            assert!(FLOW_KINDS.iter().all(|k| fields_of(k).contains(&f)), "{f}");
        }
    }

    #[test]
    fn a_field_of_several_other_kinds_names_them_all() {
        let m = other_kinds_field("cbr", "preset").unwrap();
        assert!(
            m.starts_with("'preset' is a field of tcp and tfrc flows, not of cbr flows;"),
            "{m}"
        );
        let m = other_kinds_field("tfrc", "rate").unwrap();
        assert!(m.contains("target_rate sets gTFRC's floor"), "{m}");
        assert!(other_kinds_field("tfrc", "bytes")
            .unwrap()
            .contains("always has data"));
        assert_eq!(other_kinds_field("tfrc", "ecn"), None);
    }
}
