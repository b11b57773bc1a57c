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
//! The meters' own tables are read by `meter`; `[[csa]]` tables by `csa`.
//!
//! Not done here: which meters can shape (only the token bucket answers "when does this packet
//! conform", so only it may `shape`), whether a remote CSA's targets are reachable (`resolve`,
//! with the routing tables), and anything the world builder decides.

use std::collections::HashSet;

use super::meter::{a, read_meter, two_colour};

use super::diffserv::code_point;
use super::names::Named;
use super::names::{pair_up, size_mismatch, Def, Group, Names, Ref};
use super::params::Params;
use super::source::{list, Fail};
use super::table::{Field, Rec};
use super::value::{Scalar, Val};
use crate::edge::{dscp, PerColourAction};
use crate::net::packet::proto;
use crate::scenario::spec::{ClassifierSpec, ConditionerSpec, Limit, MeterSpec, NodeSpec};
use crate::scenario::units::{parse_amount, Quantity};
use std::rc::Rc;

const PROTOCOLS: [(&str, u8); 3] = [
    ("tcp", proto::TCP),
    ("udp", proto::UDP),
    ("icmp", proto::ICMP),
];
const ACTIONS: [&str; 4] = ["keep", "best_effort", "drop", "shape"];
const COLOURS: [&str; 3] = ["green", "yellow", "red"];

pub(crate) const CONDITIONER_FIELDS: [&str; 10] = [
    "name", "at", "from", "match", "per_flow", "meter", "green", "yellow", "red", "buffer",
];
const MATCH_FIELDS: [&str; 5] = ["flows", "src", "dst", "protocol", "dscp"];
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
    /// Which colours' actions were left to the defaults (green, yellow, red).
    pub defaulted: [bool; 3],
    pub buffer_packets: u32,
    /// Where the meter table starts (an enhanced token bucket's missing `alpha` is reported
    /// there once it is known that no CSA sets it).
    pub meter_at: usize,
    /// Where an enhanced token bucket's `alpha` is written; `None` when it is left to the CSAs
    /// (the meter's α is then a placeholder until `settle_alphas`).
    pub alpha_at: Option<usize>,
    /// Per-member meters and actions, one per member, when the table gave per-member values
    /// (empty otherwise: every member takes the fields above).
    pub members: Vec<Member>,
    /// Where the first per-member array is, and its field.
    pub members_at: Option<(usize, String)>,
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

/// A `[[conditioner]]` table. Its meter's fields, its colour actions, `buffer` and
/// `per_flow` may give per-member values (`meter = { cir = ["1Mbps", "2Mbps", "4Mbps"], … }`
/// for a group of 3): the table is then read once per member (`Params::set_member`), and
/// `expand` gives member i the meter and actions of reading i.
pub(crate) fn read_conditioner(rec: &Rec, params: &Params) -> Result<RawConditioner, Fail> {
    let read = |i: usize| {
        params.take_members();
        let r = read_one(rec, params, i);
        params.set_member(None);
        r
    };
    let mut c = read(0)?;
    if let Some(m) = params.take_members() {
        let mut members = vec![Member::of(&c)];
        for i in 1..m.len {
            members.push(Member::of(&read(i)?));
        }
        params.take_members();
        c.members = members;
        c.members_at = Some((m.at, m.field));
    }
    Ok(c)
}

/// What may differ between the members of a conditioner group.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    pub meter: MeterSpec,
    pub actions: [PerColourAction; 3],
    pub buffer_packets: u32,
    pub per_flow: bool,
}

impl Member {
    fn of(c: &RawConditioner) -> Member {
        Member {
            meter: c.meter.clone(),
            actions: c.actions,
            buffer_packets: c.buffer_packets,
            per_flow: c.per_flow,
        }
    }
}

fn read_one(rec: &Rec, params: &Params, member: usize) -> Result<RawConditioner, Fail> {
    let (mut name, mut at, mut from) = (None, None, None);
    let mut classifier = RawMatch::default();
    let mut per_flow = false;
    let mut meter = None;
    let mut actions: [Option<(PerColourAction, Val)>; 3] = [None, None, None];
    let mut buffer = None;
    for f in rec.fields() {
        // Where, which packets and the name are one for the whole group.
        let shared = matches!(f.key, "name" | "at" | "from" | "match");
        params.set_member(if shared { None } else { Some(member) });
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
    let defaulted = [0, 1, 2].map(|i| actions[i].is_none());
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
        defaulted,
        buffer_packets,
        meter_at,
        alpha_at,
        members: Vec::new(),
        members_at: None,
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

/// The most conditioners a scenario may have (after expansion): 2²¹, one on every host of a
/// dumbbell at the flow limit (a million flows, two hosts each). A conditioner's per-flow
/// counters are sized by the flows that pass it (`edge::conditioner::classify::FlowMap`: a
/// table of one `u32` a flow only while the scenario has at most `DENSE_FLOWS` flows, 4 KiB),
/// so memory is a few hundred bytes a conditioner plus what its flows use; until issue 28's
/// fourth round the limit was 2²⁴ (conditioner, flow) pairs, each conditioner keeping counters
/// for every flow.
pub const MAX_CONDITIONERS: u64 = 1 << 21;

/// The conditioners one `[[conditioner]]` makes: one per (at, from) pair. `before` conditioners
/// were made by the tables above it; a conditioner name refers to the indices it made (a
/// group's name to all of them), which is how CSAs name their targets.
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand(
    c: &RawConditioner,
    names: &Names,
    flow_names: &Names,
    cond_names: &mut Names,
    nodes: &[NodeSpec],
    joined: &HashSet<(usize, usize)>,
    before: usize,
    n_flows: usize,
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
                if !joined.contains(&(x.min(y), x.max(y))) {
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
    // bounded, as the nodes are (the conditioners' memory is linear in their count and in the
    // flows that pass them, `MAX_CONDITIONERS`)
    let n_conds = (before + pairs.len()) as u64;
    if n_conds > MAX_CONDITIONERS {
        return Err(Fail::new(
            c.at.at,
            format!("{}.at", c.path),
            format!("{n_conds} conditioners; a scenario can have at most {MAX_CONDITIONERS}"),
        ));
    }
    let mut flows: Vec<usize> = Vec::new();
    let mut listed_already = vec![
        false;
        if c.classifier.flows.is_some() {
            n_flows
        } else {
            0
        }
    ];
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
                if !std::mem::replace(&mut listed_already[x], true) {
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
                old.what(name),
                old.origin()
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
    cond_names.define(group, Def::new(r, what.clone(), origin.clone()), |old| {
        clash(group, old)
    })?;
    if left_out {
        return Ok(Vec::new());
    }
    if let Some((at, field)) = &c.members_at {
        if c.members.len() != pairs.len() {
            return Err(Fail::new(
                *at,
                field,
                format!(
                    "{} per-member values for {what}, which has {} member{}",
                    c.members.len(),
                    pairs.len(),
                    if pairs.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    // one list for the table's conditioners (`ClassifierSpec::flows`)
    let flows: std::sync::Arc<[usize]> = flows.into();
    let member_of = Rc::new(Group {
        kind: "conditioner",
        name: group.clone(),
        origin,
    });
    let mut out = Vec::with_capacity(pairs.len());
    for (i, (node, from)) in pairs.into_iter().enumerate() {
        let name = if grouped {
            format!("{group}{i}")
        } else {
            group.clone()
        };
        if grouped {
            let def = Def::member(Ref::Node(before + i), &member_of);
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
            meter: c.members.get(i).map_or(&c.meter, |m| &m.meter).clone(),
            per_flow: c.members.get(i).map_or(c.per_flow, |m| m.per_flow),
            actions: c.members.get(i).map_or(c.actions, |m| m.actions),
            buffer_packets: c
                .members
                .get(i)
                .map_or(c.buffer_packets, |m| m.buffer_packets),
        });
    }
    Ok(out)
}
