//! A link's queues: `queue = { kind = ..., ... }` — drop-tail, the RED family (RED, RIO,
//! WRED), and schedulers over classes that each have one of those as their own queue.
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
//! Separate marking thresholds (`queue::red`, `Common::mark`): a drop curve may carry a marking
//! curve, `mark = { min_th, max_th, max_p }` — at the top of a RED queue table, inside `in` and
//! `out` of RIO, inside each of WRED's `levels`. A marking curve is checked as it is read, takes
//! no `mark` of its own, and needs `ecn` (checked once the whole queue table is read, reported
//! at the first `mark`).
//!
//! A scheduler (`kind = "scheduler"`, `queue::scheduler`) has a `policy` and `classes`; `policy`
//! decides how a class is served, so it is read first, as `kind` is. Each class is read on its
//! own — name, code points, `default`, its service (`priority = true`, `quantum` or `weight`;
//! none under strict priority), and its queue, read by the same code as a link's queue with
//! nested schedulers refused at their `kind`. The rest (one default class, code points in one
//! class only, names unique, services fitting the policy, every class queue's own check) waits
//! for the link's rate and goes through `SchedulerSpec::validate`; each `SchedulerError` is
//! reported at the field of the class, or of the class's queue, that it names.
//!
//! A SIMA core queue (`kind = "sima"`, `queue::sima`) has its own fields — two buffers in
//! bytes, two EWMA weights and the allowed-drop-precedence rule — read and checked by
//! `sima::Params::validate` at once (it needs no link rate); its defaults are Laatu et al.'s
//! (§3.4: 9800 B and 20000 B, weights 0.01 and 0.001) and afsim's rule (`Params::LAATU`). It
//! cannot be a scheduler's class queue.
//! `spacing` (RIO and WRED only) chooses how random drops are spaced: `"red"` (the default,
//! Floyd & Jacobson as ns-2 `red.cc`) or `"dsredq"` (ns-2's DiffServ queue, `dsredq.cc`;
//! `red::SpacingRule`), which refuses gentle, wait, byte mode and bytes (`Common::validate`,
//! reported at `spacing`) and takes ECN only as ns-2's dsRED does it: `ecn = "tail"`, with
//! `ecn_forced` defaulting to `"mark"` (dsredq.cc marks above max_th; `"drop"`, `"front"`,
//! `"random"`, `out_first` and marking curves are refused at their own field).
//!
//! Defaults: `limit` 50 packets for every kind (ns-2's `Queue set limit_ 50`; the RED family
//! needs max_th at most the limit, and says so when the default is too small); w_q 0.002,
//! mean packet size 500 B (ns-2 / Floyd & Jacobson); RIO coupled (Clark & Fang); a class
//! without a queue gets drop-tail of 50 packets. A scheduler has no defaults for `policy`, a
//! class's `name`, or its `quantum` (drr) or `weight` (wrr).

use super::curve::{
    curve_fail, curve_of, marking_curve, read_curve, set_marks, threshold, DropCurve,
};
use super::diffserv::code_point;
use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::table::{Field, Rec, Spots};
use super::value::Val;
use crate::net::dscp::{ColourTable, MAX_LEVELS};
use crate::param::ParamError;
use crate::queue::ecn_mark::{Position, Strategy};
use crate::queue::red::{self, Common, Curve, Measure, SpacingRule};
use crate::queue::scheduler::{ClassSpec, SchedulerError, SchedulerSpec};
use crate::queue::scheduler::{Policy, Service};
use crate::queue::{rio, sima, wred};
use crate::queue::{Limit, QueueSpec};
use crate::scenario::units::{parse_limit, parse_size_bytes, Quantity};

pub(crate) const QUEUE_KINDS: [&str; 6] = ["droptail", "red", "rio", "wred", "scheduler", "sima"];
const DROPTAIL_FIELDS: [&str; 2] = ["kind", "limit"];
const RED_FIELDS: [&str; 14] = [
    "kind",
    "limit",
    "min_th",
    "max_th",
    "max_p",
    "mark",
    "w_q",
    "gentle",
    "wait",
    "measure",
    "byte_mode",
    "mean_packet_size",
    "ecn",
    "ecn_forced",
];
const RIO_FIELDS: [&str; 15] = [
    "kind",
    "limit",
    "in",
    "out",
    "coupling",
    "w_q",
    "gentle",
    "wait",
    "measure",
    "byte_mode",
    "mean_packet_size",
    "ecn",
    "out_first",
    "spacing",
    "ecn_forced",
];
const WRED_FIELDS: [&str; 13] = [
    "kind",
    "limit",
    "levels",
    "w_q",
    "gentle",
    "wait",
    "measure",
    "byte_mode",
    "mean_packet_size",
    "ecn",
    "out_first",
    "spacing",
    "ecn_forced",
];
const SCHEDULER_FIELDS: [&str; 3] = ["kind", "policy", "classes"];
const SIMA_FIELDS: [&str; 8] = [
    "kind",
    "rt_limit",
    "nrt_limit",
    "rt_weight",
    "nrt_weight",
    "occupancy",
    "dpa_offset",
    "dpa_slope",
];
const CLASS_FIELDS: [&str; 7] = [
    "name", "dscp", "default", "priority", "quantum", "weight", "queue",
];
const POLICIES: [&str; 3] = ["priority", "drr", "wrr"];
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
        "scheduler" => &SCHEDULER_FIELDS,
        "sima" => &SIMA_FIELDS,
        _ => &DROPTAIL_FIELDS,
    }
}

/// A queue as read from the file, before the link's rate is known.
#[derive(Debug)]
pub(crate) struct QueueDraft {
    /// The queue, with `link_rate_bps` still 0 in a RED family's `Common` (a scheduler's class
    /// queues included).
    spec: QueueSpec,
    /// Where the queue's fields were written (RED family and schedulers only: drop-tail has
    /// nothing left to check).
    spots: Option<Spots>,
    /// A scheduler's classes, in order: where each class's fields were written.
    classes: Vec<ClassSpots>,
}

/// Where one class of a scheduler was written.
#[derive(Debug)]
struct ClassSpots {
    /// The class table (`classes[i]`).
    table: Spots,
    /// The class's queue table, when it is of the RED family.
    queue: Option<Spots>,
}

impl QueueDraft {
    pub fn droptail(limit: Limit) -> Self {
        QueueDraft {
            spec: QueueSpec::DropTail { limit },
            spots: None,
            classes: Vec::new(),
        }
    }

    /// The queue of a link of `link_rate_bps`, checked by its model.
    pub fn finish(&self, link_rate_bps: u64) -> Result<QueueSpec, Fail> {
        let mut spec = self.spec.clone();
        let checked = match &mut spec {
            // a SIMA queue was checked as it was read
            QueueSpec::DropTail { .. } | QueueSpec::Sima(_) => Ok(()),
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
                return match s.validate() {
                    Ok(()) => Ok(spec),
                    Err(e) => Err(self.scheduler_fail(&e)),
                };
            }
        };
        match (checked, &self.spots) {
            (Ok(()), _) => Ok(spec),
            (Err(e), Some(spots)) => Err(common_fail(spots, &e)),
            (Err(e), None) => Err(Fail::new(0, "", e.to_string())),
        }
    }

    /// A `SchedulerSpec::validate` error at the field it names: of the scheduler table, of
    /// class `i` (`classes[i].quantum`), or of class `i`'s queue (`classes[i].queue.limit`).
    fn scheduler_fail(&self, e: &SchedulerError) -> Fail {
        let Some(spots) = &self.spots else {
            return Fail::new(0, "", e.to_string());
        };
        match e {
            SchedulerError::Scheduler { field, message } => spots.fail(field, message),
            SchedulerError::Class {
                class,
                field,
                message,
            } => match self.classes.get(*class) {
                Some(c) => c.table.fail(field, message),
                None => spots.fail("classes", &e.to_string()),
            },
            SchedulerError::Queue { class, error } => match self.classes.get(*class) {
                Some(ClassSpots { queue: Some(q), .. }) => common_fail(q, error),
                Some(c) => c.table.fail("queue", &error.to_string()),
                None => spots.fail("classes", &e.to_string()),
            },
        }
    }
}

/// A `Common::validate` error at its field (`mean_pkt_size` is written `mean_packet_size`).
fn common_fail(spots: &Spots, e: &ParamError) -> Fail {
    match e.field {
        "mean_pkt_size" => spots.fail("mean_packet_size", &e.message),
        "limit" if !spots.has("limit") => spots.fail(
            "limit",
            &format!(
                "{}: the default limit is 50pkt, so give this queue a limit of at least max_th",
                e.message
            ),
        ),
        field => spots.fail(field, &e.message),
    }
}

/// `queue = { kind = "droptail", limit = "50pkt" }`, the RED family and schedulers; `kind`
/// defaults to drop-tail.
pub(crate) fn read_queue(
    rec: &Rec,
    f: &Field,
    params: &Params,
    colours: &ColourTable,
) -> Result<QueueDraft, Fail> {
    read_any_queue(rec, f, params, colours, false)
}

/// A link's queue, or (`in_class`) the queue of a scheduler's class, which cannot be a scheduler.
fn read_any_queue(
    rec: &Rec,
    f: &Field,
    params: &Params,
    colours: &ColourTable,
    in_class: bool,
) -> Result<QueueDraft, Fail> {
    let t = Rec::of_item(
        f.item,
        f.at,
        rec.path_of(f.key),
        f.key,
        "a table like { kind = \"droptail\", limit = \"50pkt\" }",
    )?;
    let fields = t.fields();
    let kind = match fields.iter().find(|g| g.key == "kind") {
        Some(g) => {
            let v = t.val(params, g)?;
            let kind = v.choice(&QUEUE_KINDS, "queue kind")?;
            if kind == "scheduler" && in_class {
                return Err(v.fail(
                    "a class queue cannot itself be a scheduler (schedulers do not nest): give this class a droptail, \
                     red, rio or wred queue; to serve a class before a round robin, give it priority = true in a drr \
                     or wrr scheduler",
                ));
            }
            if kind == "sima" && in_class {
                return Err(v.fail(
                    "a class queue cannot be a SIMA queue: a SIMA queue serves its own two classes (real time before \
                     non-real time); give the link the SIMA queue itself",
                ));
            }
            kind
        }
        None => "droptail",
    };
    if kind == "scheduler" {
        return read_scheduler(&t, &fields, params, colours);
    }
    if kind == "sima" {
        return read_sima(&t, &fields, params);
    }
    let own = fields_of(kind);
    let mut limit = DEFAULT_LIMIT;
    let mut common = Common::new(0, DEFAULT_LIMIT);
    let mut red_curve = [None; 3];
    let mut red_mark = None;
    let (mut in_curve, mut out_curve, mut coupling) = (None, None, rio::Coupling::Coupled);
    let mut levels: Option<Vec<DropCurve>> = None;
    let mut position = None;
    let mut out_first: Option<(bool, Val)> = None;
    let mut ecn_forced: Option<(bool, Val)> = None;
    for g in &fields {
        if !own.contains(&g.key) {
            return Err(wrong_kind(&t, g, kind));
        }
        match g.key {
            "in" | "out" => {
                let curve = read_curve(&t, g, params, true)?;
                if g.key == "in" {
                    in_curve = Some(curve);
                } else {
                    out_curve = Some(curve);
                }
                continue;
            }
            "levels" => {
                let recs = t.sub_array(
                    g,
                    "an array of curves, like [{ min_th = 20, max_th = 40, max_p = 0.02 }, ...]",
                )?;
                let n = recs.len();
                let fail = |m: String| Fail::new(g.at, t.path_of("levels"), m);
                if n == 0 || n > MAX_LEVELS {
                    return Err(fail(format!(
                        "WRED takes 1 to {MAX_LEVELS} levels, found {n}"
                    )));
                }
                let curves = recs
                    .iter()
                    .map(|r| curve_of(r, params, true))
                    .collect::<Result<Vec<_>, _>>()?;
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
            "mark" => {
                red_mark = Some(marking_curve(&t, g, params)?);
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
                    Limit::Packets(0) => {
                        return Err(v.fail("a queue limit must be at least 1 packet"))
                    }
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
            "spacing" => {
                common.spacing = match v.choice(&SpacingRule::NAMES, "drop spacing")? {
                    "dsredq" => SpacingRule::Dsredq,
                    _ => SpacingRule::Red,
                }
            }
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
            // ns-2 red.cc drops beyond max_th; ns-2 dsredq.cc marks there too
            "ecn_forced" => {
                ecn_forced = Some((
                    v.choice(&["drop", "mark"], "ecn_forced value")? == "mark",
                    v,
                ))
            }
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
    common.ecn = position.map(|position| Strategy {
        position,
        out_first,
    });
    common.ecn_forced_mark = match ecn_forced {
        Some((true, v)) if position.is_none() => {
            return Err(v.fail(
                "ecn_forced = \"mark\" turns forced drops of ECN-capable packets into marks: it needs ecn = \"tail\", \"front\" or \"random\"",
            ))
        }
        Some((b, _)) => b,
        // dsredq.cc redQueue::enque marks above th_max whenever the queue does ECN: there it is
        // the only choice, so it is the default (an explicit "drop" is refused by the model)
        None => common.spacing == SpacingRule::Dsredq && position.is_some(),
    };
    let spots = t.spots();
    let spec = match kind {
        "red" => {
            let [min_th, max_th, max_p] = red_curve;
            let min_th = min_th.ok_or_else(|| t.missing("min_th", "5"))?;
            let max_th = max_th.ok_or_else(|| t.missing("max_th", "15"))?;
            let max_p = max_p.ok_or_else(|| t.missing("max_p", "0.1"))?;
            let curve = Curve {
                min_th,
                max_th,
                max_p,
            };
            curve
                .validate("thresholds")
                .map_err(|e| curve_fail(&spots, &e))?;
            set_marks(&mut common, vec![red_mark])?;
            QueueSpec::Red(red::Params { curve, common })
        }
        "rio" => {
            let in_curve = in_curve
                .ok_or_else(|| t.missing("in", "{ min_th = 40, max_th = 70, max_p = 0.02 }"))?;
            let out_curve = out_curve
                .ok_or_else(|| t.missing("out", "{ min_th = 10, max_th = 30, max_p = 0.2 }"))?;
            set_marks(&mut common, vec![in_curve.mark, out_curve.mark])?;
            QueueSpec::Rio(
                rio::Params {
                    in_curve: in_curve.curve,
                    out_curve: out_curve.curve,
                    coupling,
                    common,
                },
                colours.clone(),
            )
        }
        _ => {
            let levels = levels.ok_or_else(|| {
                t.missing("levels", "[{ min_th = 20, max_th = 40, max_p = 0.02 }]")
            })?;
            let (curves, marks): (Vec<Curve>, Vec<_>) =
                levels.into_iter().map(|c| (c.curve, c.mark)).unzip();
            set_marks(&mut common, marks)?;
            QueueSpec::Wred(wred::Params { curves, common }, colours.clone())
        }
    };
    Ok(QueueDraft {
        spec,
        spots: Some(spots),
        classes: Vec::new(),
    })
}

/// `queue = { kind = "scheduler", policy = "drr", classes = [{ ... }, ...] }`: `t` is the queue
/// table, `fields` its fields, `kind` among them.
fn read_scheduler(
    t: &Rec,
    fields: &[Field],
    params: &Params,
    colours: &ColourTable,
) -> Result<QueueDraft, Fail> {
    // The policy decides which service fields a class takes, so it is read before the classes.
    let policy = match fields.iter().find(|g| g.key == "policy") {
        Some(g) => policy_of(&t.val(params, g)?)?,
        None => return Err(t.missing("policy", "\"drr\"")),
    };
    let mut classes = None;
    for g in fields {
        match g.key {
            "kind" | "policy" => {}
            "classes" => {
                let recs = t.sub_array(
                    g,
                    "an array of classes, like [{ name = \"ef\", dscp = [\"EF\"] }, { name = \"be\", default = true }]",
                )?;
                let read = recs
                    .iter()
                    .map(|r| read_class(r, policy, params, colours))
                    .collect::<Result<Vec<_>, _>>()?;
                classes = Some(read);
            }
            _ => return Err(wrong_kind(t, g, "scheduler")),
        }
    }
    let example = match policy {
        Policy::Priority => "[{ name = \"ef\", dscp = [\"EF\"] }, { name = \"be\", default = true }]",
        Policy::Drr => "[{ name = \"af1\", dscp = [\"AF11\"], quantum = \"1500B\" }, { name = \"be\", default = true, quantum = \"1500B\" }]",
        Policy::Wrr => "[{ name = \"af1\", dscp = [\"AF11\"], weight = 3 }, { name = \"be\", default = true, weight = 1 }]",
    };
    let read = classes.ok_or_else(|| t.missing("classes", example))?;
    let (classes, spots): (Vec<ClassSpec>, Vec<ClassSpots>) = read.into_iter().unzip();
    Ok(QueueDraft {
        spec: QueueSpec::Scheduler(SchedulerSpec { policy, classes }),
        spots: Some(t.spots()),
        classes: spots,
    })
}

/// `queue = { kind = "sima", rt_limit = "9800B", nrt_limit = "20000B", ... }`: every field
/// optional, defaults `sima::Params::LAATU`, checked by `sima::Params::validate` at the field
/// it names (or the queue table, for a default).
fn read_sima(t: &Rec, fields: &[Field], params: &Params) -> Result<QueueDraft, Fail> {
    let mut p = sima::Params::LAATU;
    for g in fields {
        if !SIMA_FIELDS.contains(&g.key) {
            return Err(wrong_kind(t, g, "sima"));
        }
        let v = t.val(params, g)?;
        let bytes = || -> Result<u64, Fail> {
            match v.quantity(Quantity::Limit, parse_limit)? {
                Limit::Bytes(b) => Ok(b),
                Limit::Packets(_) => Err(v.fail(
                    "a SIMA buffer is counted in bytes, like \"20000B\" (Laatu et al. give 9800 and 20000 bytes)",
                )),
            }
        };
        match g.key {
            "kind" => {}
            "rt_limit" => p.rt_limit_bytes = bytes()?,
            "nrt_limit" => p.nrt_limit_bytes = bytes()?,
            "rt_weight" => p.rt_weight = v.number()?,
            "nrt_weight" => p.nrt_weight = v.number()?,
            "occupancy" => {
                let names = sima::Occupancy::ALL.map(sima::Occupancy::name);
                let name = v.choice(&names, "occupancy rule")?;
                p.occupancy = *sima::Occupancy::ALL
                    .iter()
                    .find(|o| o.name() == name)
                    .expect("a listed rule");
            }
            "dpa_offset" => p.dpa_offset = v.number()?,
            "dpa_slope" => p.dpa_slope = v.number()?,
            other => unreachable!("'{other}' is a sima field but not read"),
        }
    }
    let spots = t.spots();
    p.validate().map_err(|e| spots.fail(e.field, &e.message))?;
    Ok(QueueDraft {
        spec: QueueSpec::Sima(p),
        spots: Some(spots),
        classes: Vec::new(),
    })
}

/// `policy = "priority" | "drr" | "wrr"`.
fn policy_of(v: &Val) -> Result<Policy, Fail> {
    let s = v.string()?;
    match s.as_str() {
        "priority" => Ok(Policy::Priority),
        "drr" => Ok(Policy::Drr),
        "wrr" => Ok(Policy::Wrr),
        _ => Err(v.fail(format!(
            "unknown scheduling policy '{s}'{}; the policies are: priority (strict, in class order), drr \
             (deficit round robin, in bytes) and wrr (weighted round robin, in packets)",
            suggestion(&s, POLICIES)
        ))),
    }
}

/// A class's service as the file writes it, for messages.
fn service_name(s: Service) -> &'static str {
    match s {
        Service::Priority => "priority = true",
        Service::Quantum(_) => "a quantum",
        Service::Weight(_) => "a weight",
    }
}

/// One class of a scheduler: `{ name = "af1", dscp = ["AF11"], quantum = "1500B", queue = { ... } }`.
///
/// Under policy priority a class takes no service field (`priority = true` is allowed, and
/// changes nothing); under drr it needs `quantum` and under wrr `weight`, unless it has
/// `priority = true`. A service of the other round robin is left to `SchedulerSpec::validate`,
/// which says which field the policy needs.
fn read_class(
    r: &Rec,
    policy: Policy,
    params: &Params,
    colours: &ColourTable,
) -> Result<(ClassSpec, ClassSpots), Fail> {
    let mut name = None;
    let mut dscp: Vec<u8> = Vec::new();
    let mut default = false;
    let mut service: Option<Service> = None;
    let mut not_priority: Option<Val> = None;
    let mut queue: Option<QueueDraft> = None;
    for g in r.fields() {
        match g.key {
            "queue" => queue = Some(read_any_queue(r, &g, params, colours, true)?),
            "dscp" => {
                for v in r.vals(params, &g)? {
                    let d = code_point(&v)?;
                    // "BE" and 0 are the same code point: listing it twice in one class is harmless.
                    if !dscp.contains(&d) {
                        dscp.push(d);
                    }
                }
            }
            "name" => name = Some(r.val(params, &g)?.name()?),
            "default" => default = r.val(params, &g)?.boolean()?,
            "priority" | "quantum" | "weight" => {
                let v = r.val(params, &g)?;
                let s = match g.key {
                    "priority" => {
                        if !v.boolean()? {
                            not_priority = Some(v);
                            continue;
                        }
                        Service::Priority
                    }
                    "quantum" => {
                        // Zero is left to validate().
                        let b = v.quantity(Quantity::Size, parse_size_bytes)?;
                        let q = u32::try_from(b).map_err(|_| {
                            v.fail(format!("a quantum must be below 4GiB, found {b}B"))
                        })?;
                        Service::Quantum(q)
                    }
                    _ => Service::Weight(v.int_in(0, u64::from(u32::MAX))? as u32),
                };
                if let Some(before) = service {
                    return Err(v.fail(format!(
                        "a class is served one way: priority = true, a quantum (drr) or a weight (wrr); this class \
                         already has {}",
                        service_name(before)
                    )));
                }
                service = Some(s);
            }
            _ => return Err(r.unknown(&g, &CLASS_FIELDS)),
        }
    }
    let name = name.ok_or_else(|| r.missing("name", "\"be\""))?;
    if let (Policy::Priority, Some(v)) = (policy, &not_priority) {
        return Err(v.fail(
            "under policy \"priority\" every class is served by strict priority, in the order of the classes: leave \
             'priority' out",
        ));
    }
    let needs = |field: &str, example: &str| {
        Fail::new(
            r.at,
            r.path_of(field),
            format!(
                "{} lacks the required field '{field}' (for example {field} = {example}); under policy \"{}\" \
                 every class has one, or priority = true to be served before the others",
                r.title,
                policy.name()
            ),
        )
    };
    let service = match (service, policy) {
        (Some(s), _) => s,
        (None, Policy::Priority) => Service::Priority,
        (None, Policy::Drr) => return Err(needs("quantum", "\"1500B\"")),
        (None, Policy::Wrr) => return Err(needs("weight", "1")),
    };
    let (queue, queue_spots) = match queue {
        Some(d) => (d.spec, d.spots),
        None => (
            QueueSpec::DropTail {
                limit: DEFAULT_LIMIT,
            },
            None,
        ),
    };
    Ok((
        ClassSpec {
            name,
            dscp,
            default,
            service,
            queue,
        },
        ClassSpots {
            table: r.spots(),
            queue: queue_spots,
        },
    ))
}

/// A field of another kind of queue, or of none.
fn wrong_kind(t: &Rec, g: &Field, kind: &str) -> Fail {
    let owners: Vec<&str> = QUEUE_KINDS
        .iter()
        .copied()
        .filter(|k| fields_of(k).contains(&g.key))
        .collect();
    let own = fields_of(kind);
    if owners.is_empty() {
        return t.unknown(g, own);
    }
    // A scheduler's buffers and AQM are its classes' own queues.
    let hint = match (kind, g.key) {
        ("scheduler", _) => " (a class's own queue takes it: classes = [{ ..., queue = { ... } }])",
        ("rio", "mark") => " (a rio queue's marking curves go inside its curves: in = { ..., mark = { ... } })",
        ("wred", "mark") => " (a wred queue's marking curves go inside its levels: levels = [{ ..., mark = { ... } }])",
        ("sima", "limit") => " (a SIMA queue has a buffer per class: rt_limit and nrt_limit, in bytes)",
        _ => "",
    };
    let owners = match owners.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => owners.join(""),
    };
    Fail::new(
        g.key_at,
        t.path_of(g.key),
        format!(
            "'{}' is a field of {owners} queues, not of {kind} queues{hint}; the fields of a {kind} queue are: {}",
            g.key,
            list(own.iter().copied())
        ),
    )
}

#[cfg(test)]
mod tests;
