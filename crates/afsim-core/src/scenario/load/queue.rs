//! A link's queues: `queue = { kind = ..., ... }` — drop-tail and the RED family (RED, RIO,
//! WRED).
//!
//! Read this first: `kind` decides the valid fields, so it is read first. The RED family shares
//! `queue::red::Common` (w_q, gentle, wait, measure, byte mode, mean packet size, limit, ECN);
//! each RED curve (`min_th`, `max_th`, `max_p`) is written as plain numbers, thresholds in
//! packets as ns-2's `thresh_` / `maxthresh_` (multiplied by the mean packet size when the
//! queue is measured in bytes). A curve is checked as soon as it is read (`Curve::validate`);
//! the rest waits for the link's rate, which the link may give after its queue, and then goes
//! through the model's `Params::validate` (`QueueDraft::finish`). Each model error is reported
//! at the field it is about, or at the queue table when that field was left at its default.
//! RIO and WRED take the domain's colour table (`[diffserv]`).
//!
//! Defaults: `limit` 50 packets for every kind (ns-2's `Queue set limit_ 50`; the RED family
//! needs max_th at most the limit, and says so when the default is too small); w_q 0.002,
//! mean packet size 500 B (ns-2 / Floyd & Jacobson); RIO coupled (Clark & Fang).

use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::value::{Field, Rec, Scalar, Spots, Val};
use crate::edge::dscp::{ColourTable, MAX_LEVELS};
use crate::edge::ParamError;
use crate::queue::ecn_mark::{Position, Strategy};
use crate::queue::red::{self, Common, Curve, Measure};
use crate::queue::{rio, wred};
use crate::scenario::spec::{Limit, QueueSpec};
use crate::scenario::units::{parse_limit, parse_size_bytes, Quantity};

pub(crate) const QUEUE_KINDS: [&str; 4] = ["droptail", "red", "rio", "wred"];
const DROPTAIL_FIELDS: [&str; 2] = ["kind", "limit"];
const RED_FIELDS: [&str; 12] = [
    "kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "measure", "byte_mode", "mean_packet_size",
    "ecn",
];
const RIO_FIELDS: [&str; 13] = [
    "kind", "limit", "in", "out", "coupling", "w_q", "gentle", "wait", "measure", "byte_mode", "mean_packet_size",
    "ecn", "out_first",
];
const WRED_FIELDS: [&str; 11] = [
    "kind", "limit", "levels", "w_q", "gentle", "wait", "measure", "byte_mode", "mean_packet_size", "ecn",
    "out_first",
];
const CURVE_FIELDS: [&str; 3] = ["min_th", "max_th", "max_p"];
const MEASURES: [&str; 2] = ["packets", "bytes"];
const ECN_CHOICES: [&str; 4] = ["none", "tail", "front", "random"];
const COUPLINGS: [&str; 2] = ["coupled", "decoupled"];

/// ns-2's default queue limit (`Queue set limit_ 50`, packets), for every kind of queue.
pub(crate) const DEFAULT_LIMIT: Limit = Limit::Packets(50);

fn fields_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "red" => &RED_FIELDS,
        "rio" => &RIO_FIELDS,
        "wred" => &WRED_FIELDS,
        _ => &DROPTAIL_FIELDS,
    }
}

/// A queue as read from the file, before the link's rate is known.
#[derive(Debug)]
pub(crate) struct QueueDraft {
    /// The queue, with `link_rate_bps` still 0 in a RED family's `Common`.
    spec: QueueSpec,
    /// Where the queue's fields were written (RED family only: drop-tail has nothing left to check).
    spots: Option<Spots>,
}

impl QueueDraft {
    pub fn droptail(limit: Limit) -> Self {
        QueueDraft { spec: QueueSpec::DropTail { limit }, spots: None }
    }

    /// The queue of a link of `link_rate_bps`, checked by its model.
    pub fn finish(&self, link_rate_bps: u64) -> Result<QueueSpec, Fail> {
        let mut spec = self.spec.clone();
        let checked = match &mut spec {
            QueueSpec::DropTail { .. } => Ok(()),
            QueueSpec::Red(p) => {
                p.common.link_rate_bps = link_rate_bps;
                p.validate()
            }
            QueueSpec::Rio(p, _) => {
                p.common.link_rate_bps = link_rate_bps;
                p.validate()
            }
            QueueSpec::Wred(p, _) => {
                p.common.link_rate_bps = link_rate_bps;
                p.validate()
            }
            QueueSpec::Scheduler(s) => {
                s.set_link_rate(link_rate_bps);
                s.validate().map_err(ParamError::from)
            }
        };
        match (checked, &self.spots) {
            (Ok(()), _) => Ok(spec),
            (Err(e), Some(spots)) => Err(common_fail(spots, &e)),
            (Err(e), None) => Err(Fail::new(0, "", e.to_string())),
        }
    }
}

/// A `Common::validate` error at its field (`mean_pkt_size` is written `mean_packet_size`).
fn common_fail(spots: &Spots, e: &ParamError) -> Fail {
    match e.field {
        "mean_pkt_size" => spots.fail("mean_packet_size", &e.message),
        "limit" if !spots.has("limit") => spots.fail(
            "limit",
            &format!("{}: the default limit is 50pkt, so give this queue a limit of at least max_th", e.message),
        ),
        field => spots.fail(field, &e.message),
    }
}

/// A `Curve::validate` error at the threshold its message names, else at the curve's table.
fn curve_fail(spots: &Spots, e: &ParamError) -> Fail {
    let first = e.message.split(' ').next().unwrap_or("");
    match CURVE_FIELDS.iter().find(|f| **f == first) {
        Some(f) => spots.fail(f, &e.message),
        None => Fail::new(spots.at, spots.path.clone(), e.message.clone()),
    }
}

/// `queue = { kind = "droptail", limit = "50pkt" }` and the RED family; `kind` defaults to
/// drop-tail.
pub(crate) fn read_queue(rec: &Rec, f: &Field, params: &Params, colours: &ColourTable) -> Result<QueueDraft, Fail> {
    let t = Rec::of_item(
        f.item,
        f.at,
        rec.path_of(f.key),
        f.key,
        "a table like { kind = \"droptail\", limit = \"50pkt\" }",
    )?;
    let fields = t.fields();
    let kind = match fields.iter().find(|g| g.key == "kind") {
        Some(g) => t.val(params, g)?.choice(&QUEUE_KINDS, "queue kind")?,
        None => "droptail",
    };
    let own = fields_of(kind);
    let mut limit = DEFAULT_LIMIT;
    let mut common = Common::new(0, DEFAULT_LIMIT);
    let mut red_curve = [None; 3];
    let (mut in_curve, mut out_curve, mut coupling) = (None, None, rio::Coupling::Coupled);
    let mut levels: Option<Vec<Curve>> = None;
    let mut position = None;
    let mut out_first: Option<(bool, Val)> = None;
    for g in &fields {
        if !own.contains(&g.key) {
            return Err(wrong_kind(&t, g, kind));
        }
        match g.key {
            "in" | "out" => {
                let curve = read_curve(&t, g, params)?;
                if g.key == "in" {
                    in_curve = Some(curve);
                } else {
                    out_curve = Some(curve);
                }
                continue;
            }
            "levels" => {
                let recs =
                    t.sub_array(g, "an array of curves, like [{ min_th = 20, max_th = 40, max_p = 0.02 }, ...]")?;
                let n = recs.len();
                let fail = |m: String| Fail::new(g.at, t.path_of("levels"), m);
                if n == 0 || n > MAX_LEVELS {
                    return Err(fail(format!("WRED takes 1 to {MAX_LEVELS} levels, found {n}")));
                }
                let curves = recs.iter().map(|r| curve_of(r, params)).collect::<Result<Vec<_>, _>>()?;
                // Levels beyond the colour table's never receive a packet.
                if n > usize::from(colours.levels()) {
                    return Err(fail(format!(
                        "{n} levels, but the domain's colour table has {} drop-precedence levels, so level {} would never be used; \
                         add levels to [diffserv] colours or remove curves",
                        colours.levels(),
                        colours.levels()
                    )));
                }
                levels = Some(curves);
                continue;
            }
            _ => {}
        }
        let v = t.val(params, g)?;
        match g.key {
            "kind" => {}
            "limit" => {
                limit = v.quantity(Quantity::Limit, parse_limit)?;
                // A queue that holds nothing drops every packet that finds the link busy:
                // almost surely a typo, never a model.
                match limit {
                    Limit::Packets(0) => return Err(v.fail("a queue limit must be at least 1 packet")),
                    Limit::Bytes(0) => return Err(v.fail("a queue limit must be at least 1 byte")),
                    _ => {}
                }
            }
            "min_th" => red_curve[0] = Some(threshold(&v)?),
            "max_th" => red_curve[1] = Some(threshold(&v)?),
            "max_p" => red_curve[2] = Some(v.number()?),
            "coupling" => {
                coupling = match v.choice(&COUPLINGS, "coupling")? {
                    "decoupled" => rio::Coupling::Decoupled,
                    _ => rio::Coupling::Coupled,
                }
            }
            "w_q" => common.w_q = v.number()?,
            "gentle" => common.gentle = v.boolean()?,
            "wait" => common.wait = v.boolean()?,
            "measure" => {
                common.measure = match v.choice(&MEASURES, "measure")? {
                    "bytes" => Measure::Bytes,
                    _ => Measure::Packets,
                }
            }
            "byte_mode" => common.byte_mode = v.boolean()?,
            "mean_packet_size" => {
                // Zero is left to validate().
                let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                if b > 65_535 {
                    return Err(
                        v.fail(format!("mean_packet_size must be at most 65535B (the largest IP packet), found {b}B"))
                    );
                }
                common.mean_pkt_size = b as u32;
            }
            "ecn" => {
                position = match v.choice(&ECN_CHOICES, "ECN marking")? {
                    "tail" => Some(Position::Tail),
                    "front" => Some(Position::Front),
                    "random" => Some(Position::Random),
                    _ => None,
                }
            }
            "out_first" => out_first = Some((v.boolean()?, v)),
            other => unreachable!("'{other}' is in a queue field list but not read"),
        }
    }
    if kind == "droptail" {
        return Ok(QueueDraft::droptail(limit));
    }
    common.limit = limit;
    let out_first = match out_first {
        Some((true, v)) if position.is_none() => {
            return Err(v.fail(
                "out_first chooses which queued packet an ECN mark goes to: it needs ecn = \"tail\", \"front\" or \"random\"",
            ))
        }
        Some((b, _)) => b,
        None => false,
    };
    common.ecn = position.map(|position| Strategy { position, out_first });
    let spots = t.spots();
    let spec = match kind {
        "red" => {
            let [min_th, max_th, max_p] = red_curve;
            let min_th = min_th.ok_or_else(|| t.missing("min_th", "5"))?;
            let max_th = max_th.ok_or_else(|| t.missing("max_th", "15"))?;
            let max_p = max_p.ok_or_else(|| t.missing("max_p", "0.1"))?;
            let curve = Curve { min_th, max_th, max_p };
            curve.validate("thresholds").map_err(|e| curve_fail(&spots, &e))?;
            QueueSpec::Red(red::Params { curve, common })
        }
        "rio" => {
            let in_curve = in_curve.ok_or_else(|| t.missing("in", "{ min_th = 40, max_th = 70, max_p = 0.02 }"))?;
            let out_curve = out_curve.ok_or_else(|| t.missing("out", "{ min_th = 10, max_th = 30, max_p = 0.2 }"))?;
            QueueSpec::Rio(rio::Params { in_curve, out_curve, coupling, common }, colours.clone())
        }
        _ => {
            let curves = levels.ok_or_else(|| t.missing("levels", "[{ min_th = 20, max_th = 40, max_p = 0.02 }]"))?;
            QueueSpec::Wred(wred::Params { curves, common }, colours.clone())
        }
    };
    Ok(QueueDraft { spec, spots: Some(spots) })
}

/// A field of another kind of queue, or of none.
fn wrong_kind(t: &Rec, g: &Field, kind: &str) -> Fail {
    let owners: Vec<&str> = QUEUE_KINDS.iter().copied().filter(|k| fields_of(k).contains(&g.key)).collect();
    let own = fields_of(kind);
    if owners.is_empty() {
        return t.unknown(g, own);
    }
    Fail::new(
        g.key_at,
        t.path_of(g.key),
        format!(
            "'{}' is a field of {} queues, not of {kind} queues; the fields of a {kind} queue are: {}",
            g.key,
            owners.join(" and "),
            list(own.iter().copied())
        ),
    )
}

/// A threshold: a plain number of packets.
fn threshold(v: &Val) -> Result<f64, Fail> {
    match &v.s {
        Scalar::Str(_) => {
            Err(v.fail(format!("thresholds are plain numbers of packets, like 5 or 2.5, found {}", v.s.describe())))
        }
        _ => v.number(),
    }
}

/// `in = { min_th = 40, max_th = 70, max_p = 0.02 }`.
fn read_curve(t: &Rec, g: &Field, params: &Params) -> Result<Curve, Fail> {
    let r =
        Rec::of_item(g.item, g.at, t.path_of(g.key), g.key, "a table like { min_th = 5, max_th = 15, max_p = 0.1 }")?;
    curve_of(&r, params)
}

/// A RED curve table, checked by `Curve::validate`.
fn curve_of(r: &Rec, params: &Params) -> Result<Curve, Fail> {
    let mut c = [None; 3];
    for g in r.fields() {
        let v = r.val(params, &g)?;
        match g.key {
            "min_th" => c[0] = Some(threshold(&v)?),
            "max_th" => c[1] = Some(threshold(&v)?),
            "max_p" => c[2] = Some(v.number()?),
            key => {
                return Err(Fail::new(
                    g.key_at,
                    r.path_of(key),
                    format!(
                        "unknown field '{key}' in {}{}; a curve has the fields: {}",
                        r.title,
                        suggestion(key, CURVE_FIELDS),
                        list(CURVE_FIELDS)
                    ),
                ))
            }
        }
    }
    let [min_th, max_th, max_p] = c;
    let curve = Curve {
        min_th: min_th.ok_or_else(|| r.missing("min_th", "5"))?,
        max_th: max_th.ok_or_else(|| r.missing("max_th", "15"))?,
        max_p: max_p.ok_or_else(|| r.missing("max_p", "0.1"))?,
    };
    curve.validate("thresholds").map_err(|e| curve_fail(&r.spots(), &e))?;
    Ok(curve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_knows_kind_and_limit_and_only_rio_and_wred_take_out_first() {
        for k in QUEUE_KINDS {
            assert!(fields_of(k).contains(&"kind") && fields_of(k).contains(&"limit"), "{k}");
        }
        let with: Vec<&str> = QUEUE_KINDS.iter().copied().filter(|k| fields_of(k).contains(&"out_first")).collect();
        assert_eq!(with, ["rio", "wred"]);
    }

    #[test]
    fn curve_errors_point_at_the_threshold_they_name() {
        let spots = Spots::for_test(10, "q", &[("min_th", 20), ("max_p", 30)]);
        let e = curve_fail(&spots, &ParamError::new("thresholds", "max_p 2 must be in (0, 1]"));
        assert_eq!((e.at, e.field.as_str()), (30, "q.max_p"));
        let e = curve_fail(&spots, &ParamError::new("thresholds", "thresholds and max_p must be finite numbers"));
        assert_eq!((e.at, e.field.as_str()), (10, "q"));
    }
}
