//! `[[link]]` tables on their own: ends, rate, delay, framing, each direction's queue (read by
//! `queue`) and random loss. Part of the first pass (`raw` calls `read_link`); the ends are
//! still names, resolved and expanded by `resolve`.

use super::names::Named;
use super::params::Params;
use super::queue::{read_queue, DEFAULT_LIMIT};
use super::source::Fail;
use super::table::{Field, Rec};
use super::value::Scalar;
use crate::net::dscp::ColourTable;
use crate::net::loss::Model as LossModel;
use crate::scenario::spec::{Framing, QueueSpec};
use crate::scenario::units::{parse_rate_bps, parse_size_bytes, parse_time_ns, Quantity};
use crate::sim::time::SimDuration;

const LINK_FIELDS: [&str; 9] = [
    "between",
    "pairing",
    "rate",
    "delay",
    "framing",
    "queue",
    "reverse_queue",
    "loss",
    "reverse_loss",
];
const LOSS_KINDS: [&str; 1] = ["bernoulli"];
const FRAMINGS: [&str; 5] = ["plain", "ppp", "atm_cell_tax", "aal5", "aal5_llc"];
const FRAMING_KINDS: [&str; 6] = ["plain", "ppp", "atm_cell_tax", "aal5", "aal5_llc", "fixed"];

/// ns-2's default queue limit (`Queue set limit_ 50`, packets), used when a link says nothing.
pub(crate) const DEFAULT_QUEUE: QueueSpec = QueueSpec::DropTail {
    limit: DEFAULT_LIMIT,
};

#[derive(Debug)]
pub(crate) struct RawLink {
    pub path: String,
    pub between: [Named; 2],
    pub between_at: usize,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub framing: Framing,
    pub queue_ab: QueueSpec,
    pub queue_ba: QueueSpec,
    /// Where each direction's queue kind was written (a→b, b→a), for errors about the kind
    /// found after expansion (a CSA needs a RIO queue).
    pub queue_kind: [Spot; 2],
    /// Random loss on each direction (a→b, b→a).
    pub loss: [Option<LossModel>; 2],
    /// `pairing = "blocks"`, and where it was written: two groups of different sizes join in
    /// consecutive blocks (`resolve::expand_link`).
    pub blocks: Option<usize>,
    /// Per-member rates, delays, framings, queues and losses, one per link the table makes,
    /// when it gave per-member values (empty otherwise: every link takes the fields above).
    pub members: Vec<LinkMember>,
    /// Where the first per-member array is, and its field.
    pub members_at: Option<(usize, String)>,
}

/// What may differ between the links of one `[[link]]` group (everything but `between` and
/// `pairing`, which make the group).
#[derive(Clone, Debug)]
pub(crate) struct LinkMember {
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub framing: Framing,
    pub queue_ab: QueueSpec,
    pub queue_ba: QueueSpec,
    pub loss: [Option<LossModel>; 2],
}

impl LinkMember {
    fn of(l: &RawLink) -> LinkMember {
        LinkMember {
            rate_bps: l.rate_bps,
            delay: l.delay,
            framing: l.framing,
            queue_ab: l.queue_ab.clone(),
            queue_ba: l.queue_ba.clone(),
            loss: l.loss,
        }
    }
}

/// `pairing`'s values: member i with member i, or in blocks.
const PAIRINGS: [&str; 2] = ["members", "blocks"];

/// A position and the field path to report there.
#[derive(Clone, Debug)]
pub(crate) struct Spot {
    pub at: usize,
    pub field: String,
}

/// A `[[link]]` table. Its rate, delay, framing, queues and losses may give per-member values
/// (`rate = ["1Mbps", "2Mbps", "4Mbps"]` for a link group of 3, or an array inside a queue
/// table): the table is then read once per member (`Params::set_member`), and
/// `resolve::expand_link` gives link i of the group the values of reading i. `between` and
/// `pairing` make the group and are one for all of it.
pub(super) fn read_link(
    rec: &Rec,
    params: &Params,
    colours: &ColourTable,
) -> Result<RawLink, Fail> {
    let read = |i: usize| {
        params.take_members();
        let r = read_one(rec, params, colours, i);
        params.set_member(None);
        r
    };
    let mut l = read(0)?;
    if let Some(m) = params.take_members() {
        let mut members = vec![LinkMember::of(&l)];
        for i in 1..m.len {
            members.push(LinkMember::of(&read(i)?));
        }
        params.take_members();
        l.members = members;
        l.members_at = Some((m.at, m.field));
    }
    Ok(l)
}

fn read_one(
    rec: &Rec,
    params: &Params,
    colours: &ColourTable,
    member: usize,
) -> Result<RawLink, Fail> {
    let mut between = None;
    let mut rate = None;
    let mut delay = None;
    let mut framing = Framing::Plain;
    let mut queue = None;
    let mut reverse = None;
    // A link without queues has drop-tail ones: an error about their kind points at the link.
    let mut kind_ab = Spot {
        at: rec.at,
        field: rec.path_of("queue"),
    };
    let mut kind_ba = None;
    let mut loss = [None, None];
    let mut blocks = None;
    for f in rec.fields() {
        // The ends and their pairing make the group; the rest may differ per member.
        let shared = matches!(f.key, "between" | "pairing");
        params.set_member(if shared { None } else { Some(member) });
        match f.key {
            "pairing" => {
                let v = rec.val(params, &f)?;
                if v.choice(&PAIRINGS, "pairing")? == "blocks" {
                    blocks = Some(f.at);
                }
            }
            "between" => {
                let ends = rec.strings(params, &f, "two node names, like [\"a\", \"b\"]")?;
                let [a, b]: [(String, usize); 2] = ends.try_into().map_err(|e: Vec<_>| {
                    Fail::new(
                        f.at,
                        rec.path_of("between"),
                        format!(
                            "expected two node names, like [\"a\", \"b\"], found {}",
                            e.len()
                        ),
                    )
                })?;
                between = Some((
                    [Named { name: a.0, at: a.1 }, Named { name: b.0, at: b.1 }],
                    f.at,
                ));
            }
            "rate" => {
                rate = Some(
                    rec.val(params, &f)?
                        .quantity(Quantity::Rate, parse_rate_bps)?,
                )
            }
            "delay" => {
                delay = Some(SimDuration(
                    rec.val(params, &f)?
                        .quantity(Quantity::Time, parse_time_ns)?,
                ))
            }
            "framing" => framing = read_framing(rec, &f, params)?,
            "queue" => {
                queue = Some(read_queue(rec, &f, params, colours)?);
                kind_ab = kind_spot(rec, &f);
            }
            "reverse_queue" => {
                reverse = Some(read_queue(rec, &f, params, colours)?);
                kind_ba = Some(kind_spot(rec, &f));
            }
            "loss" => loss[0] = Some(read_loss(rec, &f, params)?),
            "reverse_loss" => loss[1] = Some(read_loss(rec, &f, params)?),
            _ => return Err(rec.unknown(&f, &LINK_FIELDS)),
        }
    }
    let (between, between_at) = between.ok_or_else(|| rec.missing("between", "[\"a\", \"b\"]"))?;
    let rate_bps = rate.ok_or_else(|| rec.missing("rate", "\"10Mbps\""))?;
    let delay = delay.ok_or_else(|| rec.missing("delay", "\"1ms\""))?;
    // RED-family queues are checked once the link's rate, part of their parameters, is known.
    let queue_ab = match &queue {
        Some(q) => q.finish(rate_bps)?,
        None => DEFAULT_QUEUE,
    };
    // The reverse direction copies the forward queue unless it is given its own.
    let queue_ba = match &reverse {
        Some(q) => q.finish(rate_bps)?,
        None => queue_ab.clone(),
    };
    let queue_kind = [kind_ab.clone(), kind_ba.unwrap_or(kind_ab)];
    let path = rec.path.clone();
    Ok(RawLink {
        path,
        between,
        between_at,
        rate_bps,
        delay,
        framing,
        queue_ab,
        queue_ba,
        queue_kind,
        loss,
        blocks,
        members: Vec::new(),
        members_at: None,
    })
}

/// `loss = 0.01` (a Bernoulli probability) or `loss = { kind = "bernoulli", p = 0.01 }`.
fn read_loss(rec: &Rec, f: &Field, params: &Params) -> Result<LossModel, Fail> {
    if f.item.is_table_like() {
        let t = Rec::of_item(f.item, f.at, rec.path_of(f.key), f.key, "a table")?;
        let (mut kind, mut p) = (None, None);
        for g in t.fields() {
            let v = t.val(params, &g)?;
            match g.key {
                "kind" => kind = Some(v.choice(&LOSS_KINDS, "loss model")?),
                "p" => p = Some(v.number()?),
                _ => return Err(t.unknown(&g, &["kind", "p"])),
            }
        }
        kind.ok_or_else(|| t.missing("kind", "\"bernoulli\""))?;
        let model = LossModel::Bernoulli {
            p: p.ok_or_else(|| t.missing("p", "0.01"))?,
        };
        model
            .validate()
            .map_err(|e| t.spots().fail(e.field, &e.message))?;
        return Ok(model);
    }
    let v = rec.val(params, f)?;
    let p = v.number().map_err(|_| {
        v.fail(format!(
            "expected a loss probability like 0.01, or a table like {{ kind = \"bernoulli\", p = 0.01 }}, found {}",
            v.s.describe()
        ))
    })?;
    let model = LossModel::Bernoulli { p };
    model.validate().map_err(|e| v.fail(e.message))?;
    Ok(model)
}

/// Where a queue table's `kind` is written, or the table itself when `kind` is left at its
/// default (drop-tail). Only called once `read_queue` has accepted the table.
fn kind_spot(rec: &Rec, f: &Field) -> Spot {
    let path = rec.path_of(f.key);
    let field = format!("{path}.kind");
    match Rec::of_item(f.item, f.at, path, f.key, "a table") {
        Ok(t) => match t.fields().iter().find(|g| g.key == "kind") {
            Some(g) => Spot { at: g.at, field },
            None => Spot { at: t.at, field },
        },
        Err(_) => Spot { at: f.at, field },
    }
}

fn framing_of(kind: &str) -> Option<Framing> {
    Some(match kind {
        "plain" => Framing::Plain,
        // RFC 1662 HDLC-like framing: flag, address, control, 2-byte protocol, 2-byte FCS, flag.
        "ppp" => Framing::Fixed { overhead_bytes: 8 },
        "atm_cell_tax" => Framing::AtmCellTax,
        "aal5" => Framing::Aal5 { llc_snap: false },
        "aal5_llc" => Framing::Aal5 { llc_snap: true },
        _ => return None,
    })
}

/// `framing = "ppp"` or `framing = { kind = "fixed", overhead = "12B" }`.
fn read_framing(rec: &Rec, f: &Field, params: &Params) -> Result<Framing, Fail> {
    if f.item.is_table_like() {
        let t = Rec::of_item(f.item, f.at, rec.path_of(f.key), "framing", "a table")?;
        let mut kind = None;
        let mut overhead = None;
        for g in t.fields() {
            let v = t.val(params, &g)?;
            match g.key {
                "kind" => kind = Some((v.choice(&FRAMING_KINDS, "framing kind")?, v)),
                "overhead" => {
                    let bytes = v.quantity(Quantity::Size, parse_size_bytes)?;
                    let bytes = u32::try_from(bytes)
                        .map_err(|_| v.fail("a framing overhead must be below 4GiB"))?;
                    overhead = Some((bytes, v));
                }
                _ => return Err(t.unknown(&g, &["kind", "overhead"])),
            }
        }
        let (kind, kind_val) = kind.ok_or_else(|| t.missing("kind", "\"fixed\""))?;
        return match (kind, overhead) {
            ("fixed", Some((overhead_bytes, _))) => Ok(Framing::Fixed { overhead_bytes }),
            ("fixed", None) => Err(t.missing("overhead", "\"12B\"")),
            (_, Some((_, v))) => Err(v.fail(format!(
                "overhead applies only to kind = \"fixed\", not to \"{kind}\""
            ))),
            (k, None) => framing_of(k).ok_or_else(|| kind_val.fail("unreachable framing kind")),
        };
    }
    let v = rec.val(params, f)?;
    if let Scalar::Str(s) = &v.s {
        if s == "fixed" {
            return Err(v.fail("a fixed framing needs its overhead: write framing = { kind = \"fixed\", overhead = \"12B\" }"));
        }
    }
    let kind = v.choice(&FRAMINGS, "framing")?;
    Ok(framing_of(kind).expect("every listed framing has a model"))
}
