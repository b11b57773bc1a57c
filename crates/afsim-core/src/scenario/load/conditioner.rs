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
//! Not done here: which meters can shape (only the token bucket answers "when does this packet
//! conform", so only it may `shape`), and anything the world builder decides.

use super::diffserv::code_point;
use super::params::Params;
use super::raw::Named;
use super::resolve::{pair_up, size_mismatch, Def, Names, Ref};
use super::source::{list, Fail};
use super::value::{Field, Rec, Scalar, Spots, Val};
use crate::edge::srtcm::Mode;
use crate::edge::token_bucket::Depth;
use crate::edge::{dscp, srtcm, token_bucket, trtcm, tsw, ParamError, PerColourAction};
use crate::net::packet::proto;
use crate::scenario::spec::{ClassifierSpec, ConditionerSpec, Limit, LinkSpec, MeterSpec, NodeSpec};
use crate::scenario::units::{parse_amount, parse_rate_bps, parse_size_bytes, parse_time_ns, Quantity};
use crate::sim::time::SimDuration;

pub(crate) const CONDITIONER_FIELDS: [&str; 10] =
    ["name", "at", "from", "match", "per_flow", "meter", "green", "yellow", "red", "buffer"];
const MATCH_FIELDS: [&str; 5] = ["flows", "src", "dst", "protocol", "dscp"];
const METER_KINDS: [&str; 5] = ["token_bucket", "srtcm", "trtcm", "tsw2cm", "tsw3cm"];
const PROTOCOLS: [(&str, u8); 3] = [("tcp", proto::TCP), ("udp", proto::UDP), ("icmp", proto::ICMP)];
const ACTIONS: [&str; 4] = ["keep", "best_effort", "drop", "shape"];
const COLOURS: [&str; 3] = ["green", "yellow", "red"];

fn meter_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "token_bucket" => &["kind", "rate", "depth", "token_size"],
        "srtcm" => &["kind", "cir", "cbs", "ebs", "colour_aware"],
        "trtcm" => &["kind", "cir", "cbs", "pir", "pbs", "colour_aware"],
        "tsw2cm" => &["kind", "target", "window"],
        _ => &["kind", "committed", "peak", "window"],
    }
}

/// Meters with two colours (IN/OUT as green/yellow): their `red` action would never apply.
fn two_colour(kind: &str) -> bool {
    matches!(kind, "token_bucket" | "tsw2cm")
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
                meter = Some(read_meter(rec, &f, params)?);
                continue;
            }
            _ => {}
        }
        let v = rec.val(params, &f)?;
        match f.key {
            "name" => name = Some(Named { name: v.name()?, at: v.at }),
            "at" => at = Some(Named { name: v.string()?, at: v.at }),
            "from" => from = Some(Named { name: v.string()?, at: v.at }),
            "per_flow" => per_flow = v.boolean()?,
            "green" | "yellow" | "red" => {
                let i = COLOURS.iter().position(|c| *c == f.key).expect("a colour");
                actions[i] = Some((action(&v, COLOURS[i])?, v));
            }
            "buffer" => {
                let b = match v.quantity(Quantity::Amount, parse_amount)? {
                    Limit::Packets(n) => n,
                    Limit::Bytes(_) => return Err(v.fail("a shaper buffer is counted in packets, like \"100pkt\"")),
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
    let (meter, kind) =
        meter.ok_or_else(|| rec.missing("meter", "{ kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }"))?;
    if two_colour(kind) {
        if let Some((_, v)) = &actions[2] {
            return Err(v.fail(format!("a {kind} meter colours packets green or yellow only, so 'red' never applies")));
        }
    }
    let shapes = actions.iter().flatten().any(|(a, _)| *a == PerColourAction::Shape);
    if let Some((PerColourAction::Shape, v)) = &actions[0] {
        return Err(v.fail("green packets already conform to the meter's profile: shape applies to yellow or red"));
    }
    if shapes && kind != "token_bucket" {
        let (_, v) = actions.iter().flatten().find(|(a, _)| *a == PerColourAction::Shape).expect("a shape action");
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
    // RFC 2597 practice: in-profile traffic passes, excess is downgraded, and what a
    // three-colour meter calls red is policed.
    let defaults = [PerColourAction::Keep, PerColourAction::DowngradeToBestEffort, PerColourAction::Drop];
    let actions = [0, 1, 2].map(|i| actions[i].as_ref().map_or(defaults[i], |(a, _)| *a));
    Ok(RawConditioner { path: rec.path.clone(), name, at, from, classifier, meter, per_flow, actions, buffer_packets })
}

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
                m.flows =
                    Some(vals.iter().map(|v| Ok(Named { name: v.string()?, at: v.at })).collect::<Result<_, Fail>>()?);
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
                let n = Some(Named { name: v.string()?, at: v.at });
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

/// `meter = { kind = "token_bucket", ... }`, checked by the meter's `validate()`.
fn read_meter(rec: &Rec, f: &Field, params: &Params) -> Result<(MeterSpec, &'static str), Fail> {
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
    let own = meter_fields(kind);
    let mut rates: [Option<u64>; 2] = [None, None];
    let mut sizes: [Option<u64>; 2] = [None, None];
    let mut depth = None;
    let mut token_size = None;
    let mut window = None;
    let mut aware = false;
    for g in &fields {
        if !own.contains(&g.key) {
            let owners: Vec<&str> = METER_KINDS.iter().copied().filter(|k| meter_fields(k).contains(&g.key)).collect();
            if owners.is_empty() {
                return Err(t.unknown(g, own));
            }
            return Err(Fail::new(
                g.key_at,
                t.path_of(g.key),
                format!(
                    "'{}' is a field of {} meters, not of {kind} meters; the fields of a {kind} meter are: {}",
                    g.key,
                    owners.join(" and "),
                    list(own.iter().copied())
                ),
            ));
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
            other => unreachable!("'{other}' is a meter field but not read"),
        }
    }
    let need = |x: Option<u64>, key: &str, example: &str| x.ok_or_else(|| t.missing(key, example));
    let mode = if aware { Mode::ColourAware } else { Mode::ColourBlind };
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
    Ok((spec, kind))
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

/// The conditioners one `[[conditioner]]` makes: one per (at, from) pair.
pub(crate) fn expand(
    c: &RawConditioner,
    names: &Names,
    flow_names: &Names,
    cond_names: &mut Names,
    nodes: &[NodeSpec],
    links: &[LinkSpec],
) -> Result<Vec<ConditionerSpec>, Fail> {
    let at = names.get(&c.at, &format!("{}.at", c.path), "node or group")?.r;
    let from_field = format!("{}.from", c.path);
    let from = match &c.from {
        Some(n) => Some((n, names.get(n, &from_field, "node or group")?.r)),
        None => None,
    };
    let pairs: Vec<(usize, Option<usize>)> = match from {
        None => at.members().map(|x| (x, None)).collect(),
        Some((from_name, from)) => {
            let pairs = pair_up(at, from).map_err(|s| {
                Fail::new(from_name.at, &from_field, size_mismatch(&c.at, from_name, s, "a conditioner"))
            })?;
            for &(x, y) in &pairs {
                if x == y {
                    return Err(Fail::new(
                        from_name.at,
                        from_field,
                        format!("a conditioner at '{}' cannot take its input line from itself", nodes[x].name),
                    ));
                }
                if !links.iter().any(|l| (l.a, l.b) == (x, y) || (l.a, l.b) == (y, x)) {
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
            let r = flow_names.get(n, &format!("{}.match.flows[{i}]", c.path), "flow or flow group")?.r;
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
        let made =
            if name == group { String::new() } else { format!("group '{group}' names its conditioner '{name}', but ") };
        Fail::new(
            c.name.at,
            &name_field,
            format!("{made}the conditioner name '{name}' is already taken by {} ({})", old.what, old.origin),
        )
    };
    let what = if grouped { format!("conditioner group '{group}'") } else { format!("conditioner '{group}'") };
    cond_names.define(group, Def { r: Ref::Node(0), what, origin: origin.clone() }, |old| clash(group, old))?;
    // Listed flows that all expand to nothing: a conditioner that conditions nothing.
    if c.classifier.flows.is_some() && flows.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(pairs.len());
    for (i, (node, from)) in pairs.into_iter().enumerate() {
        let name = if grouped { format!("{group}{i}") } else { group.clone() };
        if grouped {
            let def = Def {
                r: Ref::Node(0),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_errors_use_the_files_field_names() {
        let spots = Spots::for_test(5, "conditioner[0].meter", &[("window", 9)]);
        let e = meter_fail(&spots, &ParamError::new("win_length", "the averaging window must be positive"));
        assert_eq!((e.at, e.field.as_str()), (9, "conditioner[0].meter.window"));
        let e = meter_fail(&spots, &ParamError::new("token_bytes", "must be positive"));
        assert_eq!(
            (e.at, e.field.as_str(), e.message.as_str()),
            (5, "conditioner[0].meter.token_size", "token_size must be positive")
        );
    }

    #[test]
    fn only_token_bucket_and_tsw2cm_are_two_colour_meters() {
        let two: Vec<&str> = METER_KINDS.iter().copied().filter(|k| two_colour(k)).collect();
        assert_eq!(two, ["token_bucket", "tsw2cm"]);
        for k in METER_KINDS {
            assert_eq!(meter_fields(k)[0], "kind", "{k}");
        }
    }
}
