//! `[[csa]]` tables (Congestion Signaling Algorithm, Giacomazzi et al. §IV and §IV.A): `read_csa`
//! (stage 3) reads its timers and steps through `csa::Params::validate`; `expand_csa` (stage 4,
//! after the conditioners) pairs `at` and `towards` like a link's ends, requires a link between
//! them whose queue in that direction is RIO (the error points at the queue's `kind`), and
//! resolves `targets` — conditioner names or group names, each an enhanced token bucket — the
//! same list for every CSA of a group. `settle_alphas` then gives each controlled bucket its
//! starting α: its CSAs' smallest max_α (a CSA starts there, and the engine runs a bucket at
//! the smallest α its CSAs announce), which a written `alpha` must equal; a bucket no CSA
//! controls keeps its written, fixed α, which it must then have.
//!

use super::conditioner::RawConditioner;
use super::diffserv::code_point;
use super::link::RawLink;
use super::meter::meter_kind;
use super::names::Named;
use super::names::{pair_up, size_mismatch, Def, Group, Names, Ref};
use super::params::Params;
use super::source::{Fail, First};
use super::table::Rec;
use crate::edge::{csa, dscp};
use crate::scenario::spec::{
    ConditionerSpec, CsaScope, CsaSpec, LinkSpec, MeterSpec, NodeSpec, QueueSpec,
};
use crate::scenario::units::{parse_size_bytes, parse_time_ns, Quantity};
use crate::sim::time::SimDuration;
use std::rc::Rc;

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
        let kind = match &**queue {
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
                old.what(name),
                old.origin()
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
    csa_names.define(group, Def::new(r, what, origin.clone()), |old| {
        clash(group, old)
    })?;
    let member_of = Rc::new(Group {
        kind: "csa",
        name: group.clone(),
        origin,
    });
    let mut out = Vec::with_capacity(pairs.len());
    for (i, (node, towards)) in pairs.into_iter().enumerate() {
        let name = if grouped {
            format!("{group}{i}")
        } else {
            group.clone()
        };
        if grouped {
            let def = Def::member(Ref::Node(before + i), &member_of);
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
