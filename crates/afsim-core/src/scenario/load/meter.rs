//! A `[[conditioner]]`'s `meter` table: its kind and that model's parameters, each checked by
//! the model's own `validate()` with the error at the field it names.
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

use super::params::Params;
use super::source::{list, Fail};
use super::table::{Field, Rec, Spots};
use super::value::Val;
use crate::edge::enhanced_token_bucket::TokenClock;
use crate::edge::srtcm::Mode;
use crate::edge::token_bucket::Depth;
use crate::edge::{enhanced_token_bucket, sima, srtcm, token_bucket, trtcm, tsw, ParamError};
use crate::scenario::spec::{Limit, MeterSpec};
use crate::scenario::units::{
    parse_amount, parse_rate_bps, parse_size_bytes, parse_time_ns, Quantity,
};
use crate::sim::time::SimDuration;

pub(super) const METER_KINDS: [&str; 7] = [
    "token_bucket",
    "srtcm",
    "trtcm",
    "tsw2cm",
    "tsw3cm",
    "enhanced_token_bucket",
    "sima",
];
pub(super) const ETB: &str = "enhanced_token_bucket";
pub(super) fn meter_fields(kind: &str) -> &'static [&'static str] {
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

pub(super) const SIMA_FIELDS: [&str; 10] = [
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
pub(super) const SIMA_ESTIMATORS: [&str; 3] = ["ewma", "tsw", "window"];
/// The fields of each SIMA estimator (besides kind, nbr, class, estimator and trace): the
/// draft's average (`ewma`), and the windowed forms (`tsw`, `window`), whose window may come from
/// the class buffer at the interface's capacity (`slot` accepted there, to no effect).
pub(super) const SIMA_EWMA_FIELDS: [&str; 4] = ["capacity", "slot", "alpha", "class_buffer"];
pub(super) const SIMA_WINDOW_FIELDS: [&str; 4] = ["window", "class_buffer", "capacity", "slot"];
/// The SIMA draft's slot is an ATM cell (§9.1 assumes ATM transport).
pub(super) const SIMA_SLOT_BYTES: u32 = 53;

/// Meters with two colours (IN/OUT as green/yellow): their `red` action would never apply.
pub(super) fn two_colour(kind: &str) -> bool {
    matches!(kind, "token_bucket" | "tsw2cm" | ETB)
}

/// The indefinite article for a meter kind: "an enhanced_token_bucket", "a srtcm".
pub(super) fn a(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The file's name of a meter's kind.
pub(super) fn meter_kind(m: &MeterSpec) -> &'static str {
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

/// `meter = { kind = "token_bucket", ... }`, checked by the meter's `validate()`. Also returns
/// the kind and where an enhanced token bucket's `alpha` is written, if it is.
pub(super) fn read_meter(
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
pub(super) fn read_sima_meter(
    t: &Rec,
    fields: &[Field],
    params: &Params,
) -> Result<MeterSpec, Fail> {
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
pub(super) fn wrong_meter_field(t: &Rec, g: &Field, kind: &str) -> Fail {
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
pub(super) fn meter_fail(spots: &Spots, e: &ParamError) -> Fail {
    let field = match e.field {
        "token_bytes" => "token_size",
        "win_length" => "window",
        "ctr" => "committed",
        "ptr" => "peak",
        f => f,
    };
    spots.fail(field, &e.message)
}

#[cfg(test)]
mod tests;
