//! `[[conditioner]]`: edge conditioners — where they sit, which packets they take, their meter
//! and what they do with each colour (RFC 2475 §2.3.3).
//!
//! Read this first: `read_conditioner` reads one table on its own (stage 3): the meter's
//! parameters through the model's `validate()` (each error at the field it names), the three
//! per-colour actions through `PerColourAction::validate`, and the shaper buffer, which is
//! required exactly when an action shapes. `expand` (stage 4) resolves names: `at` and `from`
//! pair up like a link's ends (a group makes one conditioner per member, named `name0`,
//! `name1`, …), `from` must share a link with `at`, and the classifier's flows, flow groups and
//! nodes become indices. A conditioner whose `flows` all expand to nothing (a group of 0) would
//! condition nothing and is left out, as a link to an empty group is.
//!
//! The enhanced token bucket (Giacomazzi et al. §IV, Fig. 5) is a meter whose input buffer is
//! the conditioner's holding FIFO: its `buffer` is the meter's, not the conditioner's, and it
//! takes no `shape` (it always holds what it cannot serve) and no `red` (two colours).
//!
//! `[[csa]]` (Congestion Signaling Algorithm, §IV and §IV.A) is read here too: `read_csa`
//! (stage 3) reads its timers and steps through `csa::Params::validate`; `expand_csa` (stage 4,
//! after the conditioners) pairs `at` and `towards` like a link's ends, requires a link between
//! them whose queue in that direction is RIO (the error points at the queue's `kind`), and
//! resolves `targets` — conditioner names or group names, each an enhanced token bucket — the
//! same list for every CSA of a group. `settle_alphas` then gives each controlled bucket its
//! starting α: its CSAs' smallest max_α (a CSA starts there, and the engine runs a bucket at
//! the smallest α its CSAs announce), which a written `alpha` must equal; a bucket no CSA
//! controls keeps its written, fixed α, which it must then have.
//!
//! A SIMA meter (`kind = "sima"`, `edge::sima`) is read by `read_sima_meter`: the nominal bit
//! rate, the class, and the momentary-bit-rate estimator (`ewma`, `tsw` or `window`, which a
//! `[params]` entry may choose) with its fields, each error at its field. An `ewma` needs the
//! interface `capacity` and one of `alpha` or `class_buffer`, which gives α by the SIMA draft's
//! eq. 4. A `tsw` or `window` needs a `window`, or `class_buffer` with `capacity`, which give the
//! window as the draft's averaging time for that buffer (`sima::averaging_time`, 8·K/(5·C)), so
//! that one scenario file can switch the estimator's form and keep its averaging time (issue
//! 21); `slot` is then accepted and changes nothing (that time does not depend on it). It writes
//! the drop precedence into the code point itself, so its conditioner takes no actions and no
//! buffer.
//!
//! Not done here: which meters can shape (only the token bucket answers "when does this packet
//! conform", so only it may `shape`), whether a remote CSA's targets are reachable (`resolve`,
//! with the routing tables), and anything the world builder decides.

use super::diffserv::code_point;
use super::link::RawLink;
use super::names::Named;
use super::names::{pair_up, size_mismatch, Def, Names, Ref};
use super::params::Params;
use super::source::{list, Fail, First};
use super::table::{Field, Rec, Spots};
use super::value::{Scalar, Val};
use crate::edge::enhanced_token_bucket::TokenClock;
use crate::edge::srtcm::Mode;
use crate::edge::token_bucket::Depth;
use crate::edge::{
    csa, dscp, enhanced_token_bucket, sima, srtcm, token_bucket, trtcm, tsw, ParamError,
    PerColourAction,
};
use crate::net::packet::proto;
use crate::scenario::spec::{
    ClassifierSpec, ConditionerSpec, CsaScope, CsaSpec, Limit, LinkSpec, MeterSpec, NodeSpec,
    QueueSpec,
};
use crate::scenario::units::{
    parse_amount, parse_rate_bps, parse_size_bytes, parse_time_ns, Quantity,
};
use crate::sim::time::SimDuration;

pub(crate) const CONDITIONER_FIELDS: [&str; 10] = [
    "name", "at", "from", "match", "per_flow", "meter", "green", "yellow", "red", "buffer",
];
const MATCH_FIELDS: [&str; 5] = ["flows", "src", "dst", "protocol", "dscp"];
const METER_KINDS: [&str; 7] = [
    "token_bucket",
    "srtcm",
    "trtcm",
    "tsw2cm",
    "tsw3cm",
    "enhanced_token_bucket",
    "sima",
];
const ETB: &str = "enhanced_token_bucket";
const PROTOCOLS: [(&str, u8); 3] = [
    ("tcp", proto::TCP),
    ("udp", proto::UDP),
    ("icmp", proto::ICMP),
];
const ACTIONS: [&str; 4] = ["keep", "best_effort", "drop", "shape"];
const COLOURS: [&str; 3] = ["green", "yellow", "red"];

fn meter_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "token_bucket" => &["kind", "rate", "depth", "token_size"],
        "srtcm" => &["kind", "cir", "cbs", "ebs", "colour_aware"],
        "trtcm" => &["kind", "cir", "cbs", "pir", "pbs", "colour_aware"],
        "tsw2cm" => &["kind", "target", "window"],
        "tsw3cm" => &["kind", "committed", "peak", "window"],
        "sima" => &SIMA_FIELDS,
        _ => &[
            "kind",
            "rate",
            "b1",
            "b2",
            "token_size",
            "alpha",
            "buffer",
            "token_clock",
        ],
    }
}

const SIMA_FIELDS: [&str; 10] = [
    "kind",
    "nbr",
    "class",
    "estimator",
    "capacity",
    "slot",
    "alpha",
    "class_buffer",
    "window",
    "trace",
];
/// The SIMA estimators' names (`edge::sima::Estimator::name`).
const SIMA_ESTIMATORS: [&str; 3] = ["ewma", "tsw", "window"];
/// The fields of each SIMA estimator (besides kind, nbr, class, estimator and trace): the
/// draft's average (`ewma`), and the windowed forms (`tsw`, `window`), whose window may come from
/// the class buffer at the interface's capacity (`slot` accepted there, to no effect).
const SIMA_EWMA_FIELDS: [&str; 4] = ["capacity", "slot", "alpha", "class_buffer"];
const SIMA_WINDOW_FIELDS: [&str; 4] = ["window", "class_buffer", "capacity", "slot"];
/// The SIMA draft's slot is an ATM cell (§9.1 assumes ATM transport).
const SIMA_SLOT_BYTES: u32 = 53;

/// Meters with two colours (IN/OUT as green/yellow): their `red` action would never apply.
fn two_colour(kind: &str) -> bool {
    matches!(kind, "token_bucket" | "tsw2cm" | ETB)
}

/// The indefinite article for a meter kind: "an enhanced_token_bucket", "a srtcm".
fn a(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The file's name of a meter's kind.
fn meter_kind(m: &MeterSpec) -> &'static str {
    match m {
        MeterSpec::TokenBucket(_) => "token_bucket",
        MeterSpec::Srtcm(_) => "srtcm",
        MeterSpec::Trtcm(_) => "trtcm",
        MeterSpec::Tsw2cm(_) => "tsw2cm",
        MeterSpec::Tsw3cm(_) => "tsw3cm",
        MeterSpec::EnhancedTokenBucket(_) => ETB,
        MeterSpec::Sima(_) => "sima",
    }
}

#[derive(Debug)]
pub(crate) struct RawConditioner {
    pub path: String,
    pub name: Named,
    pub at: Named,
    pub from: Option<Named>,
    pub classifier: RawMatch,
    pub meter: MeterSpec,
    pub per_flow: bool,
    pub actions: [PerColourAction; 3],
    pub buffer_packets: u32,
    /// Where the meter table starts (an enhanced token bucket's missing `alpha` is reported
    /// there once it is known that no CSA sets it).
    pub meter_at: usize,
    /// Where an enhanced token bucket's `alpha` is written; `None` when it is left to the CSAs
    /// (the meter's α is then a placeholder until `settle_alphas`).
    pub alpha_at: Option<usize>,
}

/// A classifier with names still unresolved.
#[derive(Debug, Default)]
pub(crate) struct RawMatch {
    /// Flow or flow-group names; `None` when `flows` is absent (every flow).
    pub flows: Option<Vec<Named>>,
    pub src: Option<Named>,
    pub dst: Option<Named>,
    pub protocol: Option<u8>,
    pub dscp: Vec<u8>,
}

pub(crate) fn read_conditioner(rec: &Rec, params: &Params) -> Result<RawConditioner, Fail> {
    let (mut name, mut at, mut from) = (None, None, None);
    let mut classifier = RawMatch::default();
    let mut per_flow = false;
    let mut meter = None;
    let mut actions: [Option<(PerColourAction, Val)>; 3] = [None, None, None];
    let mut buffer = None;
    for f in rec.fields() {
        match f.key {
            "match" => {
                classifier = read_match(rec, &f, params)?;
                continue;
            }
            "meter" => {
                meter = Some((read_meter(rec, &f, params)?, f.at));
                continue;
            }
            _ => {}
        }
        let v = rec.val(params, &f)?;
        match f.key {
            "name" => {
                name = Some(Named {
                    name: v.name()?,
                    at: v.at,
                })
            }
            "at" => {
                at = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "from" => {
                from = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "per_flow" => per_flow = v.boolean()?,
            "green" | "yellow" | "red" => {
                let i = COLOURS.iter().position(|c| *c == f.key).expect("a colour");
                actions[i] = Some((action(&v, COLOURS[i])?, v));
            }
            "buffer" => {
                let b = match v.quantity(Quantity::Amount, parse_amount)? {
                    Limit::Packets(n) => n,
                    Limit::Bytes(_) => {
                        return Err(v.fail("a shaper buffer is counted in packets, like \"100pkt\""))
                    }
                };
                if b == 0 {
                    return Err(v.fail("a shaper buffer must hold at least 1 packet"));
                }
                buffer = Some((b, v));
            }
            _ => return Err(rec.unknown(&f, &CONDITIONER_FIELDS)),
        }
    }
    let name = name.ok_or_else(|| rec.missing("name", "\"edge\""))?;
    let at = at.ok_or_else(|| rec.missing("at", "\"r1\""))?;
    let ((meter, kind, alpha_at), meter_at) = meter.ok_or_else(|| {
        rec.missing(
            "meter",
            "{ kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }",
        )
    })?;
    let (actions, buffer_packets, alpha_at) =
        settle_actions(&meter, kind, alpha_at, actions, buffer, rec)?;
    Ok(RawConditioner {
        path: rec.path.clone(),
        name,
        at,
        from,
        classifier,
        meter,
        per_flow,
        actions,
        buffer_packets,
        meter_at,
        alpha_at,
    })
}

/// The conditioner's actions (defaults filled in), its holding buffer and where its enhanced
/// token bucket's `alpha` is written, once the actions and buffer written in `rec` are checked
/// against its meter: a SIMA meter takes none, a two-colour meter no `red`, only a token
/// bucket shapes (and then needs a buffer), an enhanced token bucket has its own buffer.
fn settle_actions(
    meter: &MeterSpec,
    kind: &str,
    alpha_at: Option<usize>,
    actions: [Option<(PerColourAction, Val)>; 3],
    buffer: Option<(u32, Val)>,
    rec: &Rec,
) -> Result<([PerColourAction; 3], u32, Option<usize>), Fail> {
    if let MeterSpec::Sima(_) = meter {
        if let Some((_, v)) = actions.iter().flatten().next() {
            return Err(v.fail(
                "a sima meter marks every packet itself, with the code point of its class and drop precedence \
                 (NRT0 … NRT7, RT0 … RT7): it takes no green, yellow or red action",
            ));
        }
        if let Some((_, v)) = &buffer {
            return Err(v.fail("a sima meter neither shapes nor holds packets: it takes no buffer"));
        }
        return Ok(([PerColourAction::Keep; 3], 0, None));
    }
    if two_colour(kind) {
        if let Some((_, v)) = &actions[2] {
            return Err(v.fail(format!(
                "{} {kind} meter colours packets green or yellow only, so 'red' never applies",
                a(kind)
            )));
        }
    }
    let shapes = actions
        .iter()
        .flatten()
        .any(|(a, _)| *a == PerColourAction::Shape);
    if let Some((PerColourAction::Shape, v)) = &actions[0] {
        return Err(v.fail(
            "green packets already conform to the meter's profile: shape applies to yellow or red",
        ));
    }
    let resolved = [0, 1, 2].map(|i| actions[i].as_ref().map_or(DEFAULT_ACTIONS[i], |(a, _)| *a));
    if let MeterSpec::EnhancedTokenBucket(p) = meter {
        if let Some((_, v)) = actions
            .iter()
            .flatten()
            .find(|(a, _)| *a == PerColourAction::Shape)
        {
            return Err(v.fail(
                "an enhanced_token_bucket meter already holds the packets it cannot serve, in its input buffer; \
                 its yellow packets are the excess it lets through (the paper downgrades them: \"best_effort\"), to be marked, downgraded or dropped",
            ));
        }
        if let Some((_, v)) = &buffer {
            return Err(v.fail(
                "an enhanced_token_bucket meter has its own input buffer: give it in the meter, like meter = { kind = \"enhanced_token_bucket\", ..., buffer = \"100pkt\" }",
            ));
        }
        return Ok((resolved, p.buffer_packets, alpha_at));
    }
    if shapes && kind != "token_bucket" {
        let (_, v) = actions
            .iter()
            .flatten()
            .find(|(a, _)| *a == PerColourAction::Shape)
            .expect("a shape action");
        return Err(v.fail(format!(
            "only a token_bucket meter can shape (it tells when a packet will conform); a {kind} meter can mark, downgrade or drop"
        )));
    }
    let buffer_packets = match (shapes, buffer) {
        (true, Some((b, _))) => b,
        (true, None) => {
            return Err(Fail::new(
                rec.at,
                rec.path_of("buffer"),
                "a conditioner that shapes needs a buffer for the packets it holds, like buffer = \"100pkt\"",
            ))
        }
        (false, Some((_, v))) => return Err(v.fail("buffer applies only when an action is \"shape\"")),
        (false, None) => 0,
    };
    Ok((resolved, buffer_packets, None))
}

/// The actions by default. RFC 2597 practice: in-profile traffic passes, excess is downgraded,
/// and what a three-colour meter calls red is policed. For the enhanced token bucket this is
/// the paper's: the excess is "served with Per Hop Behavior downgraded to Best Effort" (§IV).
const DEFAULT_ACTIONS: [PerColourAction; 3] = [
    PerColourAction::Keep,
    PerColourAction::DowngradeToBestEffort,
    PerColourAction::Drop,
];

/// An action: keep, best_effort, drop, shape, or a code point to mark with.
fn action(v: &Val, colour: &'static str) -> Result<PerColourAction, Fail> {
    let a = match &v.s {
        Scalar::Str(s) => match s.as_str() {
            "keep" => PerColourAction::Keep,
            "best_effort" => PerColourAction::DowngradeToBestEffort,
            "drop" => PerColourAction::Drop,
            "shape" => PerColourAction::Shape,
            _ => match dscp::parse(s) {
                Ok(d) => PerColourAction::Mark(d),
                Err(_) => {
                    let names = dscp::NAMES.iter().map(|(n, _)| *n);
                    let all: Vec<&str> = ACTIONS.iter().copied().chain(names).collect();
                    let hint = super::source::suggestion(s, all.iter().copied());
                    return Err(v.fail(format!(
                        "unknown action '{s}'{hint}; an action is {}, or a code point to mark the packet with ({}, or an integer 0..=63)",
                        list(ACTIONS),
                        list(dscp::NAMES.iter().map(|(n, _)| *n))
                    )));
                }
            },
        },
        Scalar::Int(i) => PerColourAction::Mark(
            u8::try_from(*i).map_err(|_| v.fail(format!("DSCP {i} is not a 6-bit code point (0..=63)")))?,
        ),
        _ => {
            return Err(
                v.wrong("an action: \"keep\", \"best_effort\", \"drop\", \"shape\" or a code point like \"AF11\"")
            )
        }
    };
    a.validate(colour).map_err(|e| v.fail(e.message))?;
    Ok(a)
}

/// `match = { flows = [...], src = "h0", dst = "d0", protocol = "tcp", dscp = ["AF11"] }`.
fn read_match(rec: &Rec, f: &Field, params: &Params) -> Result<RawMatch, Fail> {
    let t = Rec::of_item(
        f.item,
        f.at,
        rec.path_of(f.key),
        "match",
        "a table like { flows = [\"af\"], protocol = \"tcp\" }",
    )?;
    let mut m = RawMatch::default();
    for g in t.fields() {
        match g.key {
            "flows" => {
                let vals = t.vals(params, &g)?;
                if vals.is_empty() {
                    return Err(Fail::new(
                        g.at,
                        t.path_of("flows"),
                        "an empty list of flows would match nothing; leave 'flows' out to match every flow",
                    ));
                }
                m.flows = Some(
                    vals.iter()
                        .map(|v| {
                            Ok(Named {
                                name: v.string()?,
                                at: v.at,
                            })
                        })
                        .collect::<Result<_, Fail>>()?,
                );
            }
            "dscp" => {
                let vals = t.vals(params, &g)?;
                if vals.is_empty() {
                    return Err(Fail::new(
                        g.at,
                        t.path_of("dscp"),
                        "an empty list of code points would match nothing; leave 'dscp' out to match every code point",
                    ));
                }
                for v in &vals {
                    let d = code_point(v)?;
                    // "BE" and 0 are the same code point: listing it twice is harmless.
                    if !m.dscp.contains(&d) {
                        m.dscp.push(d);
                    }
                }
            }
            "src" | "dst" => {
                let v = t.val(params, &g)?;
                let n = Some(Named {
                    name: v.string()?,
                    at: v.at,
                });
                if g.key == "src" {
                    m.src = n;
                } else {
                    m.dst = n;
                }
            }
            "protocol" => {
                let v = t.val(params, &g)?;
                m.protocol = Some(match &v.s {
                    Scalar::Int(_) => v.int_in(0, 255)? as u8,
                    Scalar::Str(s) => match PROTOCOLS.iter().find(|(n, _)| n == s) {
                        Some(&(_, p)) => p,
                        None => {
                            return Err(v.fail(format!(
                                "unknown protocol '{s}'; the protocols are tcp, udp, icmp, or an IP protocol number 0..=255"
                            )))
                        }
                    },
                    _ => return Err(v.wrong("a protocol: \"tcp\", \"udp\", \"icmp\" or an integer 0..=255")),
                });
            }
            _ => return Err(t.unknown(&g, &MATCH_FIELDS)),
        }
    }
    Ok(m)
}

/// `meter = { kind = "token_bucket", ... }`, checked by the meter's `validate()`. Also returns
/// the kind and where an enhanced token bucket's `alpha` is written, if it is.
fn read_meter(
    rec: &Rec,
    f: &Field,
    params: &Params,
) -> Result<(MeterSpec, &'static str, Option<usize>), Fail> {
    let t = Rec::of_item(
        f.item,
        f.at,
        rec.path_of(f.key),
        "meter",
        "a table like { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }",
    )?;
    let fields = t.fields();
    let kind = match fields.iter().find(|g| g.key == "kind") {
        Some(g) => t.val(params, g)?.choice(&METER_KINDS, "meter kind")?,
        None => return Err(t.missing("kind", "\"token_bucket\"")),
    };
    if kind == "sima" {
        return Ok((read_sima_meter(&t, &fields, params)?, kind, None));
    }
    let own = meter_fields(kind);
    let mut rates: [Option<u64>; 2] = [None, None];
    let mut sizes: [Option<u64>; 2] = [None, None];
    let mut depth = None;
    let mut token_size = None;
    let mut window = None;
    let mut aware = false;
    let mut tokens: [Option<u64>; 2] = [None, None];
    let mut alpha = None;
    let mut etb_buffer = None;
    let mut clock = TokenClock::default();
    for g in &fields {
        if !own.contains(&g.key) {
            return Err(wrong_meter_field(&t, g, kind));
        }
        let v = t.val(params, g)?;
        let rate = || v.quantity(Quantity::Rate, parse_rate_bps);
        let size = || v.quantity(Quantity::Size, parse_size_bytes);
        match g.key {
            "kind" => {}
            // The first rate and size of each kind: rate / cir / target / committed; cbs.
            "rate" | "cir" | "target" | "committed" => rates[0] = Some(rate()?),
            "pir" | "peak" => rates[1] = Some(rate()?),
            "cbs" => sizes[0] = Some(size()?),
            "ebs" | "pbs" => sizes[1] = Some(size()?),
            "depth" => depth = Some((v.quantity(Quantity::Amount, parse_amount)?, v)),
            "token_size" => {
                let b = size()?;
                token_size = Some((
                    u32::try_from(b).map_err(|_| v.fail(format!("token_size must be at most 65535B, found {b}B")))?,
                    v,
                ));
            }
            "window" => window = Some(SimDuration(v.quantity(Quantity::Time, parse_time_ns)?)),
            "colour_aware" => aware = v.boolean()?,
            "b1" => tokens[0] = Some(v.int_at_least(0)?),
            "b2" => tokens[1] = Some(v.int_at_least(0)?),
            "alpha" => alpha = Some((v.number()?, v.at)),
            "token_clock" => {
                clock = match v.choice(&["continuous", "periodic", "periodic_own_phase"], "token clock")? {
                    "periodic" => TokenClock::Periodic,
                    "periodic_own_phase" => TokenClock::PeriodicOwnPhase,
                    _ => TokenClock::Continuous,
                }
            }
            "buffer" => {
                etb_buffer = Some(match v.quantity(Quantity::Amount, parse_amount)? {
                    Limit::Packets(n) => n,
                    Limit::Bytes(_) => {
                        return Err(v.fail(
                            "the input buffer of an enhanced token bucket is counted in packets, like \"100pkt\"",
                        ))
                    }
                })
            }
            other => unreachable!("'{other}' is a meter field but not read"),
        }
    }
    let need = |x: Option<u64>, key: &str, example: &str| x.ok_or_else(|| t.missing(key, example));
    let mode = if aware {
        Mode::ColourAware
    } else {
        Mode::ColourBlind
    };
    let spots = t.spots();
    let spec = match kind {
        "token_bucket" => {
            let rate_bps = need(rates[0], "rate", "\"1Mbps\"")?;
            let (depth, depth_val) = depth.ok_or_else(|| t.missing("depth", "\"10KB\""))?;
            let depth = match (depth, token_size) {
                (Limit::Bytes(b), None) => Depth::Bytes(b),
                (Limit::Bytes(_), Some((_, v))) => {
                    return Err(v.fail("token_size applies to a depth in packets (like \"10pkt\"); with a depth in bytes a packet costs its size"))
                }
                (Limit::Packets(n), Some((token_bytes, _))) => Depth::Packets { tokens: u64::from(n), token_bytes },
                (Limit::Packets(_), None) => {
                    return Err(depth_val.fail(
                        "a depth in packets needs token_size, the packet length a token stands for (for example token_size = \"576B\")",
                    ))
                }
            };
            let p = token_bucket::Params { rate_bps, depth };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            MeterSpec::TokenBucket(p)
        }
        "srtcm" => {
            let p = srtcm::Params {
                cir_bps: need(rates[0], "cir", "\"1Mbps\"")?,
                cbs_bytes: need(sizes[0], "cbs", "\"10KB\"")?,
                ebs_bytes: need(sizes[1], "ebs", "\"20KB\"")?,
                mode,
            };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            MeterSpec::Srtcm(p)
        }
        "trtcm" => {
            let p = trtcm::Params {
                cir_bps: need(rates[0], "cir", "\"1Mbps\"")?,
                cbs_bytes: need(sizes[0], "cbs", "\"10KB\"")?,
                pir_bps: need(rates[1], "pir", "\"2Mbps\"")?,
                pbs_bytes: need(sizes[1], "pbs", "\"20KB\"")?,
                mode,
            };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            MeterSpec::Trtcm(p)
        }
        "tsw2cm" => {
            let p = tsw::Tsw2cmParams {
                target_bps: need(rates[0], "target", "\"1Mbps\"")?,
                win_length: window.ok_or_else(|| t.missing("window", "\"1s\""))?,
            };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            MeterSpec::Tsw2cm(p)
        }
        ETB => {
            let p = enhanced_token_bucket::Params {
                rate_bps: need(rates[0], "rate", "\"1Mbps\"")?,
                b1_tokens: need(tokens[0], "b1", "10")?,
                b2_tokens: need(tokens[1], "b2", "1")?,
                token_bytes: token_size
                    .map(|(b, _)| b)
                    .ok_or_else(|| t.missing("token_size", "\"576B\""))?,
                // Left out: the CSAs that control this bucket set it (`settle_alphas`); 0 is a
                // stand-in that passes `validate`.
                alpha: alpha.map_or(0.0, |(a, _)| a),
                buffer_packets: etb_buffer.ok_or_else(|| t.missing("buffer", "\"100pkt\""))?,
                clock,
            };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            return Ok((
                MeterSpec::EnhancedTokenBucket(p),
                kind,
                alpha.map(|(_, at)| at),
            ));
        }
        _ => {
            let p = tsw::Tsw3cmParams {
                ctr_bps: need(rates[0], "committed", "\"1Mbps\"")?,
                ptr_bps: need(rates[1], "peak", "\"2Mbps\"")?,
                win_length: window.ok_or_else(|| t.missing("window", "\"1s\""))?,
            };
            p.validate().map_err(|e| meter_fail(&spots, &e))?;
            MeterSpec::Tsw3cm(p)
        }
    };
    Ok((spec, kind, None))
}

/// `meter = { kind = "sima", nbr = "1.2Mbps", capacity = "10Mbps", class_buffer = "20000B" }`:
/// `t` is the meter table, `fields` its fields.
fn read_sima_meter(t: &Rec, fields: &[Field], params: &Params) -> Result<MeterSpec, Fail> {
    let estimator = match fields.iter().find(|g| g.key == "estimator") {
        Some(g) => t
            .val(params, g)?
            .choice(&SIMA_ESTIMATORS, "momentary bit rate estimator")?,
        None => "ewma",
    };
    let windowed = estimator != "ewma";
    let (own, other): (&[&str], &[&str]) = if windowed {
        (&SIMA_WINDOW_FIELDS, &SIMA_EWMA_FIELDS)
    } else {
        (&SIMA_EWMA_FIELDS, &SIMA_WINDOW_FIELDS)
    };
    let mut nbr = None;
    let mut class = sima::ServiceClass::Nrt;
    let mut capacity = None;
    let mut slot = SIMA_SLOT_BYTES;
    let mut alpha: Option<(f64, Val)> = None;
    let mut class_buffer: Option<(u64, Val)> = None;
    let mut window = None;
    let mut trace = false;
    for g in fields {
        if !SIMA_FIELDS.contains(&g.key) {
            return Err(wrong_meter_field(t, g, "sima"));
        }
        let v = t.val(params, g)?;
        if other.contains(&g.key) && !own.contains(&g.key) {
            let needs = if windowed {
                "estimator = \"ewma\" (the default)"
            } else {
                "estimator = \"tsw\" or \"window\""
            };
            return Err(v.fail(format!(
                "'{}' belongs to {needs}; this meter's estimator is \"{estimator}\", whose fields are: {}",
                g.key,
                list(own.iter().copied())
            )));
        }
        match g.key {
            "kind" | "estimator" => {}
            "nbr" => nbr = Some(v.quantity(Quantity::Rate, parse_rate_bps)?),
            "class" => {
                class = match v.choice(&["nrt", "rt"], "SIMA service class")? {
                    "rt" => sima::ServiceClass::Rt,
                    _ => sima::ServiceClass::Nrt,
                }
            }
            "capacity" => capacity = Some(v.quantity(Quantity::Rate, parse_rate_bps)?),
            "slot" => {
                // zero is left to validate()
                let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                if b > 65_535 {
                    return Err(v.fail(format!(
                        "a slot must be at most 65535B (the largest IP packet), found {b}B"
                    )));
                }
                slot = b as u32;
            }
            "alpha" => alpha = Some((v.number()?, v)),
            "class_buffer" => {
                class_buffer = Some((v.quantity(Quantity::Size, parse_size_bytes)?, v))
            }
            "window" => window = Some(SimDuration(v.quantity(Quantity::Time, parse_time_ns)?)),
            "trace" => trace = v.boolean()?,
            other => unreachable!("'{other}' is a sima meter field but not read"),
        }
    }
    let nbr_bps = nbr.ok_or_else(|| t.missing("nbr", "\"1.2Mbps\""))?;
    let spots = t.spots();
    let estimator = if windowed {
        // the window, given or from eq. (4)'s averaging time for the class buffer
        if capacity.is_some() && class_buffer.is_none() && window.is_some() {
            let g = fields
                .iter()
                .find(|g| g.key == "capacity")
                .expect("capacity was read");
            return Err(t.val(params, g)?.fail(format!(
                "under estimator = \"{estimator}\" capacity only converts class_buffer into a window; with window given, \
                 leave it out"
            )));
        }
        let window = match (window, class_buffer.as_ref(), capacity) {
            (Some(_), Some((_, v)), _) => {
                return Err(v.fail(format!(
                    "give window or class_buffer, not both: under estimator = \"{estimator}\" class_buffer sets the \
                     window to 8 × class_buffer / (5 × capacity), the SIMA draft's averaging time (eq. 4)"
                )))
            }
            (Some(w), None, _) => w,
            (None, Some((b, v)), Some(c)) => {
                let w = sima::averaging_time(c, *b);
                if w.as_nanos() == 0 {
                    return Err(v.fail(format!(
                        "a class buffer of {b}B at {c} bit/s averages over less than a nanosecond"
                    )));
                }
                w
            }
            (None, Some(_), None) => return Err(t.missing("capacity", "\"10Mbps\"")),
            (None, None, _) => {
                return Err(Fail::new(
                    t.at,
                    t.path_of("window"),
                    format!(
                        "{} lacks its averaging time: give window (for example window = \"100ms\") or class_buffer \
                         with capacity, for a window of 8 × class_buffer / (5 × capacity) (the SIMA draft's eq. 4)",
                        t.title
                    ),
                ))
            }
        };
        if estimator == "tsw" {
            sima::Estimator::Tsw { window }
        } else {
            sima::Estimator::Window { window }
        }
    } else {
        let capacity_bps = capacity.ok_or_else(|| t.missing("capacity", "\"10Mbps\""))?;
        let alpha = match (alpha, class_buffer) {
            (Some(_), Some((_, v))) => {
                return Err(v.fail(
                    "give alpha or class_buffer, not both: class_buffer sets alpha = 5 × slot / class_buffer (SIMA draft eq. 4)",
                ))
            }
            (Some((a, _)), None) => a,
            (None, Some((b, v))) => {
                let a = sima::alpha_from_buffer(slot, b);
                if !(a > 0.0 && a < 1.0) {
                    return Err(v.fail(format!(
                        "a class buffer of {b}B holds {:.2} slots of {slot}B, so alpha = 5 / slots = {a}: the SIMA draft's \
                         eq. 4 needs more than 5 slots (alpha below 1)",
                        b as f64 / f64::from(slot)
                    )));
                }
                a
            }
            (None, None) => {
                return Err(Fail::new(
                    t.at,
                    t.path_of("alpha"),
                    format!(
                        "{} lacks the weight of the moving average: give alpha (for example alpha = 0.01) or class_buffer, \
                         the buffer of the flow's class, for alpha = 5 × slot / class_buffer (SIMA draft eq. 4; for \
                         example class_buffer = \"20000B\")",
                        t.title
                    ),
                ))
            }
        };
        sima::Estimator::Slots {
            capacity_bps,
            slot_bytes: slot,
            alpha,
        }
    };
    let p = sima::Params {
        nbr_bps,
        class,
        estimator,
        trace,
    };
    p.validate().map_err(|e| spots.fail(e.field, &e.message))?;
    Ok(MeterSpec::Sima(p))
}

/// A field that is not one of a `kind` meter's: whose it is, or unknown.
fn wrong_meter_field(t: &Rec, g: &Field, kind: &str) -> Fail {
    let own = meter_fields(kind);
    let owners: Vec<&str> = METER_KINDS
        .iter()
        .copied()
        .filter(|k| meter_fields(k).contains(&g.key))
        .collect();
    if owners.is_empty() {
        return t.unknown(g, own);
    }
    Fail::new(
        g.key_at,
        t.path_of(g.key),
        format!(
            "'{}' is a field of {} meters, not of {kind} meters; the fields of {} {kind} meter are: {}",
            g.key,
            owners.join(" and "),
            a(kind),
            list(own.iter().copied())
        ),
    )
}

/// A meter's `validate()` error at the field it names, in the file's words.
fn meter_fail(spots: &Spots, e: &ParamError) -> Fail {
    let field = match e.field {
        "token_bytes" => "token_size",
        "win_length" => "window",
        "ctr" => "committed",
        "ptr" => "peak",
        f => f,
    };
    spots.fail(field, &e.message)
}

/// The conditioners one `[[conditioner]]` makes: one per (at, from) pair. `before` conditioners
/// were made by the tables above it; a conditioner name refers to the indices it made (a
/// group's name to all of them), which is how CSAs name their targets.
pub(crate) fn expand(
    c: &RawConditioner,
    names: &Names,
    flow_names: &Names,
    cond_names: &mut Names,
    nodes: &[NodeSpec],
    links: &[LinkSpec],
    before: usize,
) -> Result<Vec<ConditionerSpec>, Fail> {
    let at = names
        .get(&c.at, &format!("{}.at", c.path), "node or group")?
        .r;
    let from_field = format!("{}.from", c.path);
    let from = match &c.from {
        Some(n) => Some((n, names.get(n, &from_field, "node or group")?.r)),
        None => None,
    };
    let pairs: Vec<(usize, Option<usize>)> = match from {
        None => at.members().map(|x| (x, None)).collect(),
        Some((from_name, from)) => {
            let pairs = pair_up(at, from).map_err(|s| {
                Fail::new(
                    from_name.at,
                    &from_field,
                    size_mismatch(&c.at, from_name, s, "a conditioner"),
                )
            })?;
            for &(x, y) in &pairs {
                if x == y {
                    return Err(Fail::new(
                        from_name.at,
                        from_field,
                        format!(
                            "a conditioner at '{}' cannot take its input line from itself",
                            nodes[x].name
                        ),
                    ));
                }
                if !links
                    .iter()
                    .any(|l| (l.a, l.b) == (x, y) || (l.a, l.b) == (y, x))
                {
                    return Err(Fail::new(
                        from_name.at,
                        from_field,
                        format!(
                            "no link joins '{}' and '{}': 'from' names the neighbour at the other end of one of '{}''s links",
                            nodes[x].name, nodes[y].name, nodes[x].name
                        ),
                    ));
                }
            }
            pairs.into_iter().map(|(x, y)| (x, Some(y))).collect()
        }
    };
    let single = |n: &Option<Named>, key: &str| -> Result<Option<usize>, Fail> {
        let Some(n) = n else { return Ok(None) };
        let field = format!("{}.match.{key}", c.path);
        match names.get(n, &field, "node")?.r {
            Ref::Node(x) => Ok(Some(x)),
            Ref::Group { len, .. } => Err(Fail::new(
                n.at,
                field,
                format!(
                    "'{}' is a group of {len} nodes; a classifier's {key} names a single node, like '{}0'",
                    n.name, n.name
                ),
            )),
        }
    };
    let src = single(&c.classifier.src, "src")?;
    let dst = single(&c.classifier.dst, "dst")?;
    let mut flows: Vec<usize> = Vec::new();
    if let Some(listed) = &c.classifier.flows {
        for (i, n) in listed.iter().enumerate() {
            let r = flow_names
                .get(
                    n,
                    &format!("{}.match.flows[{i}]", c.path),
                    "flow or flow group",
                )?
                .r;
            for x in r.members() {
                if !flows.contains(&x) {
                    flows.push(x);
                }
            }
        }
    }
    // Conditioner names: like flows, exact for one, suffixed for a group; the group name is
    // reserved either way.
    let group = &c.name.name;
    let grouped = matches!(at, Ref::Group { .. }) || matches!(from, Some((_, Ref::Group { .. })));
    let origin = cond_names.origin(&c.path, c.name.at);
    let name_field = format!("{}.name", c.path);
    let clash = |name: &str, old: &Def| {
        let made = if name == group {
            String::new()
        } else {
            format!("group '{group}' names its conditioner '{name}', but ")
        };
        Fail::new(
            c.name.at,
            &name_field,
            format!(
                "{made}the conditioner name '{name}' is already taken by {} ({})",
                old.what, old.origin
            ),
        )
    };
    let what = if grouped {
        format!("conditioner group '{group}'")
    } else {
        format!("conditioner '{group}'")
    };
    // Listed flows that all expand to nothing: a conditioner that conditions nothing.
    let left_out = c.classifier.flows.is_some() && flows.is_empty();
    let r = Ref::Group {
        first: before,
        len: if left_out { 0 } else { pairs.len() },
    };
    cond_names.define(
        group,
        Def {
            r,
            what,
            origin: origin.clone(),
        },
        |old| clash(group, old),
    )?;
    if left_out {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(pairs.len());
    for (i, (node, from)) in pairs.into_iter().enumerate() {
        let name = if grouped {
            format!("{group}{i}")
        } else {
            group.clone()
        };
        if grouped {
            let def = Def {
                r: Ref::Node(before + i),
                what: format!("conditioner '{name}' of group '{group}'"),
                origin: origin.clone(),
            };
            cond_names.define(&name, def, |old| clash(&name, old))?;
        }
        out.push(ConditionerSpec {
            name,
            node,
            from,
            classifier: ClassifierSpec {
                flows: flows.clone(),
                src,
                dst,
                protocol: c.classifier.protocol,
                dscp: c.classifier.dscp.clone(),
            },
            meter: c.meter.clone(),
            per_flow: c.per_flow,
            actions: c.actions,
            buffer_packets: c.buffer_packets,
        });
    }
    Ok(out)
}

// ---- [[csa]] --------------------------------------------------------------------------------

pub(crate) const CSA_FIELDS: [&str; 14] = [
    "name",
    "at",
    "towards",
    "targets",
    "t1",
    "t2",
    "delta_alpha",
    "min_alpha",
    "max_alpha",
    "rules",
    "scope",
    "trace",
    "signal_size",
    "signal_dscp",
];
const CSA_RULES: [&str; 2] = ["text", "per_period"];
const CSA_SCOPES: [&str; 2] = ["shared", "per_bucket"];
/// A control packet by default: an ICMP message, 20 B of IP header, 8 B of ICMP header and the
/// 28 B (IP header + 8 B) of the datagram it is about (RFC 792), as Giacomazzi §IV.A suggests.
const SIGNAL_BYTES: u32 = 56;
/// The smallest control packet: an IP header and an ICMP header.
const SIGNAL_MIN_BYTES: u64 = 28;

/// A `[[csa]]` with names still unresolved.
#[derive(Debug)]
pub(crate) struct RawCsa {
    pub path: String,
    pub name: Named,
    pub at: Named,
    pub towards: Named,
    /// Conditioner or conditioner-group names.
    pub targets: Vec<Named>,
    pub params: csa::Params,
    pub signal_bytes: u32,
    pub signal_dscp: u8,
    pub scope: CsaScope,
    pub trace: bool,
}

/// Reads one `[[csa]]` on its own: names, timers and steps (defaults Table I), checked by
/// `csa::Params::validate` at the field it names, and the control packets' size and code point.
pub(crate) fn read_csa(rec: &Rec, params: &Params) -> Result<RawCsa, Fail> {
    let (mut name, mut at, mut towards, mut targets) = (None, None, None, None);
    let mut p = csa::Params::TABLE_1;
    let mut signal_bytes = SIGNAL_BYTES;
    let mut signal_dscp = dscp::CS6;
    let mut scope = CsaScope::default();
    let mut trace = false;
    for f in rec.fields() {
        if f.key == "targets" {
            let vals = rec.vals(params, &f)?;
            if vals.is_empty() {
                return Err(Fail::new(
                    f.at,
                    rec.path_of("targets"),
                    "an empty list of targets: a CSA with no enhanced token bucket to set would change nothing",
                ));
            }
            targets = Some(
                vals.iter()
                    .map(|v| {
                        Ok(Named {
                            name: v.string()?,
                            at: v.at,
                        })
                    })
                    .collect::<Result<Vec<_>, Fail>>()?,
            );
            continue;
        }
        let v = rec.val(params, &f)?;
        match f.key {
            "name" => {
                name = Some(Named {
                    name: v.name()?,
                    at: v.at,
                })
            }
            "at" => {
                at = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "towards" => {
                towards = Some(Named {
                    name: v.string()?,
                    at: v.at,
                })
            }
            "t1" => p.t1 = SimDuration(v.quantity(Quantity::Time, parse_time_ns)?),
            "t2" => p.t2 = SimDuration(v.quantity(Quantity::Time, parse_time_ns)?),
            "delta_alpha" => p.delta_alpha = v.number()?,
            "min_alpha" => p.min_alpha = v.number()?,
            "max_alpha" => p.max_alpha = v.number()?,
            "rules" => {
                p.rules = match v.choice(&CSA_RULES, "CSA rule set")? {
                    "text" => csa::Rules::Text,
                    _ => csa::Rules::PerPeriod,
                }
            }
            "scope" => {
                scope = match v.choice(&CSA_SCOPES, "CSA scope")? {
                    "per_bucket" => CsaScope::PerBucket,
                    _ => CsaScope::Shared,
                }
            }
            "trace" => trace = v.boolean()?,
            "signal_size" => {
                let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                if !(SIGNAL_MIN_BYTES..=65_535).contains(&b) {
                    return Err(v.fail(format!(
                        "a control packet is an IP packet of {SIGNAL_MIN_BYTES}B (IP and ICMP headers) to 65535B, found {b}B"
                    )));
                }
                signal_bytes = b as u32;
            }
            "signal_dscp" => signal_dscp = code_point(&v)?,
            _ => return Err(rec.unknown(&f, &CSA_FIELDS)),
        }
    }
    let name = name.ok_or_else(|| rec.missing("name", "\"border1\""))?;
    let at = at.ok_or_else(|| rec.missing("at", "\"r1\""))?;
    let towards = towards.ok_or_else(|| rec.missing("towards", "\"r2\""))?;
    let targets = targets.ok_or_else(|| rec.missing("targets", "[\"edge\"]"))?;
    p.validate()
        .map_err(|e| rec.spots().fail(e.field, &e.message))?;
    Ok(RawCsa {
        path: rec.path.clone(),
        name,
        at,
        towards,
        targets,
        params: p,
        signal_bytes,
        signal_dscp,
        scope,
        trace,
    })
}

/// One CSA made by a `[[csa]]`, with, for each of its targets, the index in the table's
/// `targets` that named it (for errors found later).
pub(crate) struct MadeCsa {
    pub spec: CsaSpec,
    pub via: Vec<usize>,
}

/// What `expand_csa` looks things up in.
pub(crate) struct CsaWorld<'a> {
    pub names: &'a Names<'a>,
    pub cond_names: &'a Names<'a>,
    pub nodes: &'a [NodeSpec],
    pub links: &'a [LinkSpec],
    /// The `[[link]]` each expanded link came from.
    pub link_origin: &'a [&'a RawLink],
    pub conditioners: &'a [ConditionerSpec],
}

/// The CSAs one `[[csa]]` makes: one per (at, towards) pair, paired like a link's ends, each
/// watching `at`'s RIO queue towards `towards` and setting α of the same targets. `before` CSAs
/// were made by the tables above it.
pub(crate) fn expand_csa(
    c: &RawCsa,
    w: &CsaWorld,
    csa_names: &mut Names,
    before: usize,
) -> Result<Vec<MadeCsa>, Fail> {
    let at = w
        .names
        .get(&c.at, &format!("{}.at", c.path), "node or group")?
        .r;
    let towards_field = format!("{}.towards", c.path);
    let towards = w.names.get(&c.towards, &towards_field, "node or group")?.r;
    let pairs = pair_up(at, towards).map_err(|s| {
        Fail::new(
            c.towards.at,
            &towards_field,
            size_mismatch(&c.at, &c.towards, s, "a CSA"),
        )
    })?;
    let origin = csa_names.origin(&c.path, c.name.at);
    let group = &c.name.name;
    let grouped = matches!(at, Ref::Group { .. }) || matches!(towards, Ref::Group { .. });
    for (i, &(x, y)) in pairs.iter().enumerate() {
        let (nx, ny) = (&w.nodes[x].name, &w.nodes[y].name);
        if x == y {
            return Err(Fail::new(
                c.towards.at,
                &towards_field,
                format!(
                    "a CSA at '{nx}' watches one of its output queues: 'towards' names a neighbour, not '{nx}' itself"
                ),
            ));
        }
        // Routing uses the first of several links between two nodes, so the CSA watches it.
        let Some(j) = w
            .links
            .iter()
            .position(|l| (l.a, l.b) == (x, y) || (l.a, l.b) == (y, x))
        else {
            return Err(Fail::new(
                c.towards.at,
                &towards_field,
                format!(
                    "no link joins '{nx}' and '{ny}': a CSA watches the output queue of 'at' towards 'towards', so they must be neighbours"
                ),
            ));
        };
        let l = &w.links[j];
        let (queue, dir) = if l.a == x {
            (&l.queue_ab, 0)
        } else {
            (&l.queue_ba, 1)
        };
        let kind = match queue {
            QueueSpec::Rio(..) => continue,
            QueueSpec::DropTail { .. } => "droptail",
            QueueSpec::Red(_) => "red",
            QueueSpec::Wred(..) => "wred",
            QueueSpec::Scheduler(_) => "scheduler",
            QueueSpec::Sima(_) => "sima",
        };
        let spot = &w.link_origin[j].queue_kind[dir];
        let who = if grouped {
            format!("csa '{group}{i}' of group '{group}'")
        } else {
            format!("csa '{group}'")
        };
        return Err(Fail::new(
            spot.at,
            spot.field.clone(),
            format!(
                "{who} ({origin}) watches the queue at '{nx}' towards '{ny}', which is a {kind} queue: \
                 the Congestion Signaling Algorithm watches a RIO buffer, so this queue must be kind = \"rio\""
            ),
        ));
    }
    let mut targets: Vec<usize> = Vec::new();
    let mut via = Vec::new();
    for (i, n) in c.targets.iter().enumerate() {
        let field = format!("{}.targets[{i}]", c.path);
        let r = w
            .cond_names
            .get(n, &field, "conditioner or conditioner group")?
            .r;
        for m in r.members() {
            let cond = &w.conditioners[m];
            if !matches!(cond.meter, MeterSpec::EnhancedTokenBucket(_)) {
                let whose = if cond.name == n.name {
                    format!("conditioner '{}'", cond.name)
                } else {
                    format!("conditioner '{}' of group '{}'", cond.name, n.name)
                };
                return Err(Fail::new(
                    n.at,
                    field,
                    format!(
                        "{whose} has a {} meter; a CSA sets the alpha of enhanced_token_bucket meters only",
                        meter_kind(&cond.meter)
                    ),
                ));
            }
            // A conditioner named twice (as itself and in its group) is controlled once.
            if !targets.contains(&m) {
                targets.push(m);
                via.push(i);
            }
        }
    }
    // CSA names: like conditioners, exact for one, suffixed for a group; the group name is
    // reserved either way.
    let name_field = format!("{}.name", c.path);
    let clash = |name: &str, old: &Def| {
        let made = if name == group {
            String::new()
        } else {
            format!("group '{group}' names its CSA '{name}', but ")
        };
        Fail::new(
            c.name.at,
            &name_field,
            format!(
                "{made}the CSA name '{name}' is already taken by {} ({})",
                old.what, old.origin
            ),
        )
    };
    let what = if grouped {
        format!("CSA group '{group}'")
    } else {
        format!("csa '{group}'")
    };
    let r = Ref::Group {
        first: before,
        len: pairs.len(),
    };
    csa_names.define(
        group,
        Def {
            r,
            what,
            origin: origin.clone(),
        },
        |old| clash(group, old),
    )?;
    let mut out = Vec::with_capacity(pairs.len());
    for (i, (node, towards)) in pairs.into_iter().enumerate() {
        let name = if grouped {
            format!("{group}{i}")
        } else {
            group.clone()
        };
        if grouped {
            let def = Def {
                r: Ref::Node(before + i),
                what: format!("csa '{name}' of group '{group}'"),
                origin: origin.clone(),
            };
            csa_names.define(&name, def, |old| clash(&name, old))?;
        }
        let spec = CsaSpec {
            name,
            node,
            towards,
            params: c.params,
            targets: targets.clone(),
            signal_bytes: c.signal_bytes,
            signal_dscp: c.signal_dscp,
            scope: c.scope,
            trace: c.trace,
        };
        out.push(MadeCsa {
            spec,
            via: via.clone(),
        });
    }
    Ok(out)
}

/// Gives every enhanced token bucket its starting α. One that CSAs control starts at their
/// max_α — the smallest, if several control it: the engine runs a bucket at the smallest α its
/// CSAs announce, and each announces its max_α at the start (`csa::Csa::new`); a written
/// `alpha` would be overridden, so it must equal that. One that no CSA controls keeps its
/// written, fixed α, and must have one. `cond_origin[m]` is the `[[conditioner]]` conditioner
/// m came from; `csas` pairs each CSA with its `[[csa]]`. Of several errors, the earliest in
/// the file.
pub(crate) fn settle_alphas(
    conditioners: &mut [ConditionerSpec],
    cond_origin: &[&RawConditioner],
    csas: &[(MadeCsa, &RawCsa)],
    csa_names: &Names,
) -> Result<(), Fail> {
    // The starting α of each conditioner, and the CSA that sets it.
    let mut start: Vec<Option<(f64, String)>> = vec![None; conditioners.len()];
    for (made, raw) in csas {
        let max = made.spec.params.max_alpha;
        for &m in &made.spec.targets {
            if start[m].as_ref().is_none_or(|(a, _)| max < *a) {
                let who = format!(
                    "csa '{}' ({})",
                    made.spec.name,
                    csa_names.origin(&raw.path, raw.name.at)
                );
                start[m] = Some((max, who));
            }
        }
    }
    let mut first = First::default();
    for (m, cond) in conditioners.iter_mut().enumerate() {
        let origin = cond_origin[m];
        let MeterSpec::EnhancedTokenBucket(p) = &mut cond.meter else {
            continue;
        };
        match (origin.alpha_at, &start[m]) {
            (Some(at), Some((a, who))) if p.alpha != *a => first.push(Fail::new(
                at,
                format!("{}.meter.alpha", origin.path),
                format!(
                    "{who} controls conditioner '{}' and starts its alpha at max_alpha {a}, so alpha = {} would never apply: \
                     leave alpha out (the CSAs set it) or make it {a}",
                    cond.name, p.alpha
                ),
            )),
            (Some(_), _) => {}
            (None, Some((a, _))) => p.alpha = *a,
            (None, None) => first.push(Fail::new(
                origin.meter_at,
                format!("{}.meter.alpha", origin.path),
                format!(
                    "meter lacks the required field 'alpha' (for example alpha = 0.4): no [[csa]] controls conditioner '{}', \
                     so its alpha is fixed and must be given",
                    cond.name
                ),
            )),
        }
    }
    first.finish()
}

#[cfg(test)]
mod tests;
