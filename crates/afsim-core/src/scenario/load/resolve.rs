//! Second pass: names resolved, groups expanded, routes and reachability checked, `Spec` built.
//!
//! Read this first: node groups expand in place (`src` with count 3 becomes src0, src1, src2,
//! always suffixed), and every name — single node, group, group member — lives in one
//! namespace, so `src1` cannot be both a node and a member of `src`. A link or flow between a
//! group of k and a single node makes k of them (member i with the node); between two groups
//! of k, k of them pairing member i with member i; groups of different sizes are an error.
//! Flows are named like their `[[flow]]` when one pair and one copy result, else suffixed
//! 0..n in pair-major order, and share one namespace the same way. Routes are applied with
//! `net::routing::Tables`, which also decides reachability: a flow whose packets would not
//! arrive is an error, not a silent zero. A flow name refers to the flow indices it made (a
//! group's name to all of them), which is how conditioners' classifiers name flows; a
//! conditioner name likewise refers to the conditioners it made, which is how CSAs name their
//! targets. CSAs come last (`csa::expand_csa`, then `settle_alphas`), and a CSA's
//! control packets must be able to reach every target at another node.

use super::conditioner::{self, RawConditioner};
use super::csa::{self, CsaWorld};
use super::flow::{RawApp, RawFlow};
use super::link::RawLink;
use super::names::{pair_up, size_mismatch, Def, Group, Names, Ref, MAX_FLOWS, MAX_NODES};
use super::raw::{Raw, RawCapture, RawMonitor, RawRoute};
use super::source::{suggestion, Fail, First, Source};
use super::warn;
use crate::net::routing::{RouteError, Tables};
use crate::scenario::spec::{
    AppSpec, CaptureSpec, CbrSpec, FlowSpec, LinkSpec, MonitorSpec, NodeSpec, RouteSpec, Spec, Stop,
};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::{tcp, tfrc};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

/// Builds the spec from checked records. `default_name` is used when `[scenario]` has none.
pub(crate) fn build(raw: Raw, src: &Source, default_name: &str) -> Result<Spec, Fail> {
    let (nodes, names) = expand_nodes(&raw, src)?;
    let mut first = First::default();
    let mut links = Vec::new();
    // The [[link]] each expanded link came from (CSAs point at its queue's kind).
    let mut link_origin: Vec<&RawLink> = Vec::new();
    for l in &raw.links {
        if let Some(mut ls) = first.take(expand_link(l, &names, &nodes)) {
            link_origin.extend((0..ls.len()).map(|_| l));
            links.append(&mut ls);
        }
    }
    let mut routes = Vec::new();
    for r in &raw.routes {
        routes.extend(first.take(resolve_route(r, &names)));
    }
    let mut flows = Vec::new();
    let mut flow_names = Names::new(src);
    // The [[flow]] each expanded flow came from, for errors found after expansion.
    let mut flow_origin: Vec<&RawFlow> = Vec::new();
    for f in &raw.flows {
        if let Some(mut fs) =
            first.take(expand_flow(f, &names, &mut flow_names, &nodes, flows.len()))
        {
            flow_origin.extend((0..fs.len()).map(|_| f));
            flows.append(&mut fs);
        }
    }
    first.finish()?;
    // Conditioners refer to nodes, links and flows, so they are resolved once those are sound.
    let mut first = First::default();
    let mut conditioners = Vec::new();
    let mut cond_names = Names::new(src);
    let mut cond_origin: Vec<&RawConditioner> = Vec::new();
    // the pairs of nodes a link joins (smaller index first), for conditioners' `from`
    let joined: HashSet<(usize, usize)> = if raw.conditioners.is_empty() {
        HashSet::new()
    } else {
        links.iter().map(|l| (l.a.min(l.b), l.a.max(l.b))).collect()
    };
    for c in &raw.conditioners {
        let made = conditioner::expand(
            c,
            &names,
            &flow_names,
            &mut cond_names,
            &nodes,
            &joined,
            conditioners.len(),
            flows.len(),
        );
        if let Some(mut cs) = first.take(made) {
            cond_origin.extend((0..cs.len()).map(|_| c));
            conditioners.append(&mut cs);
        }
    }
    first.finish()?;
    // CSAs watch links' queues and set conditioners' meters.
    let mut first = First::default();
    let mut csas = Vec::new();
    let mut csa_names = Names::new(src);
    let world = CsaWorld {
        names: &names,
        cond_names: &cond_names,
        nodes: &nodes,
        links: &links,
        link_origin: &link_origin,
        conditioners: &conditioners,
    };
    for c in &raw.csas {
        if let Some(made) = first.take(csa::expand_csa(c, &world, &mut csa_names, csas.len())) {
            csas.extend(made.into_iter().map(|m| (m, c)));
        }
    }
    first.finish()?;
    csa::settle_alphas(&mut conditioners, &cond_origin, &csas, &csa_names)?;

    // routing: explicit routes over shortest paths; NotAdjacent / TooShort / Loop → errors.
    let pairs: Vec<(usize, usize)> = links.iter().map(|l: &LinkSpec| (l.a, l.b)).collect();
    let paths: Vec<&[usize]> = routes
        .iter()
        .map(|r: &RouteSpec| r.path.as_slice())
        .collect();
    // packets go to flows' ends (data and ACKs) and to the conditioners CSAs signal
    let dsts = flows.iter().flat_map(|f| [f.src, f.dst]).chain(
        csas.iter()
            .flat_map(|(m, _)| m.spec.targets.iter().map(|&c| conditioners[c].node)),
    );
    let tables = Tables::compute(nodes.len(), &pairs, &paths, dsts)
        .map_err(|e| route_error(e, &raw, &nodes))?;
    for (f, spec) in flow_origin.iter().zip(&flows) {
        if !tables.reaches(&pairs, spec.src, spec.dst) {
            let how = if routes.is_empty() {
                "no chain of links joins them"
            } else {
                "no chain of links and routes leads there"
            };
            return Err(Fail::new(
                f.to.at,
                format!("{}.to", f.path),
                format!(
                    "flow '{}': '{}' cannot be reached from '{}': {how}",
                    spec.name, nodes[spec.dst].name, nodes[spec.src].name
                ),
            ));
        }
    }
    // A remote CSA (at an internal router) signals α to its targets in control packets.
    let how = if routes.is_empty() {
        "no chain of links joins them"
    } else {
        "no chain of links and routes leads there"
    };
    for (made, c) in &csas {
        for (&m, &i) in made.spec.targets.iter().zip(&made.via) {
            let (from, to) = (made.spec.node, conditioners[m].node);
            if from != to && !tables.reaches(&pairs, from, to) {
                return Err(Fail::new(
                    c.targets[i].at,
                    format!("{}.targets[{i}]", c.path),
                    format!(
                        "csa '{}': its control packets cannot reach conditioner '{}' at '{}' from '{}': {how}",
                        made.spec.name, conditioners[m].name, nodes[to].name, nodes[from].name
                    ),
                ));
            }
        }
    }

    let s = &raw.scenario;
    let finite = flows.iter().any(|f| match &f.app {
        AppSpec::Cbr(c) => c.max_packets.is_some(),
        AppSpec::Tcp(t) => t.transfer_bytes.is_some(),
        AppSpec::Tfrc(_) => false,
    });
    if s.until_transfers_complete
        && s.duration.is_none()
        && s.max_packets.is_none()
        && s.max_data_packets.is_none()
        && !finite
    {
        return Err(Fail::new(
            s.until_at,
            "scenario.until_transfers_complete",
            "until_transfers_complete is the only stop condition, but no flow is a finite transfer: \
             give a flow 'packets' (cbr) or 'bytes' (tcp), or set duration or max_packets",
        ));
    }
    let mut spec = Spec {
        name: s.name.clone().unwrap_or_else(|| default_name.to_string()),
        seed: s.seed,
        stop: Stop {
            duration: s.duration,
            max_packets: s.max_packets,
            max_data_packets: s.max_data_packets,
            transfers_complete: s.until_transfers_complete,
        },
        warmup: s.warmup,
        nodes,
        links,
        routes,
        flows,
        colours: raw.colours.clone(),
        conditioners,
        csas: csas.into_iter().map(|(m, _)| m.spec).collect(),
        captures: Vec::new(),
        monitors: Vec::new(),
        warnings: Vec::new(),
    };
    spec.captures = resolve_captures(&raw.captures, &spec, src)?;
    spec.monitors = resolve_monitors(&raw.monitors, &spec)?;
    let origins = warn::Origins {
        flows: &flow_origin,
        links: &link_origin,
        conditioners: &cond_origin,
    };
    spec.warnings = warn::find(&spec, &origins, src, &tables);
    // The last line of defence: everything it checks was reported above with a position.
    spec.check()
        .map_err(|e| Fail::new(0, "", format!("internal check failed: {e}")))?;
    Ok(spec)
}

/// `[[capture]]` ports resolved (`from->to`, as queues are named), one capture per port and
/// per file.
fn resolve_captures(
    raw: &[RawCapture],
    spec: &Spec,
    src: &Source,
) -> Result<Vec<CaptureSpec>, Fail> {
    let mut out: Vec<CaptureSpec> = Vec::with_capacity(raw.len());
    for (i, c) in raw.iter().enumerate() {
        let field = format!("{}.port", c.path);
        let Some(port) = spec.port_index(&c.port.name) else {
            let names = spec.port_names();
            return Err(Fail::new(
                c.port.at,
                field,
                format!(
                    "no port '{}'{}; a port is a link direction, named \"from->to\" like the report's queues",
                    c.port.name,
                    suggestion(&c.port.name, names.iter().map(String::as_str))
                ),
            ));
        };
        if let Some(j) = raw[..i]
            .iter()
            .position(|d| spec.port_index(&d.port.name) == Some(port))
        {
            return Err(Fail::new(
                c.port.at,
                field,
                format!("port '{}' is already captured by capture[{j}]", c.port.name),
            ));
        }
        if let Some(j) = raw[..i].iter().position(|d| d.file.name == c.file.name) {
            return Err(Fail::new(
                c.file.at,
                format!("{}.file", c.path),
                format!("capture[{j}] already writes '{}'", c.file.name),
            ));
        }
        let place = src.error(Fail::new(c.file.at, format!("{}.file", c.path), ""));
        out.push(CaptureSpec {
            port,
            path: c.file.name.clone().into(),
            place,
        });
    }
    Ok(out)
}

/// `[[monitor]]`s resolved: a queue kind's queue (`from->to`, as queues are named) to its
/// port; one monitor per kind and queue.
fn resolve_monitors(raw: &[RawMonitor], spec: &Spec) -> Result<Vec<MonitorSpec>, Fail> {
    let mut out: Vec<MonitorSpec> = Vec::with_capacity(raw.len());
    for m in raw {
        let field = format!("{}.queue", m.path);
        let (port, at) = match &m.port {
            Some(named) => {
                let Some(port) = spec.port_index(&named.name) else {
                    let names = spec.port_names();
                    return Err(Fail::new(
                        named.at,
                        field,
                        format!(
                            "no queue '{}'{}; a queue is named by its link direction \"from->to\", as in the report",
                            named.name,
                            suggestion(&named.name, names.iter().map(String::as_str))
                        ),
                    ));
                };
                (port, Some(named))
            }
            None => (0, None),
        };
        if let Some(j) = out.iter().position(|d| d.kind == m.kind && d.port == port) {
            let what = at.map_or(String::new(), |n| format!(" of queue '{}'", n.name));
            return Err(Fail::new(
                at.map_or(m.at, |n| n.at),
                at.map_or(format!("{}.kind", m.path), |_| field),
                format!(
                    "a '{}' monitor{what} is already asked for by monitor[{j}]",
                    m.kind.name()
                ),
            ));
        }
        out.push(MonitorSpec {
            kind: m.kind,
            port,
            interval: m.interval,
        });
    }
    Ok(out)
}

fn expand_nodes<'s>(raw: &Raw, src: &'s Source<'s>) -> Result<(Vec<NodeSpec>, Names<'s>), Fail> {
    let mut nodes: Vec<NodeSpec> = Vec::new();
    let mut names = Names::new(src);
    for n in &raw.nodes {
        let name = &n.name.name;
        let origin = names.origin(&n.path, n.name.at);
        let taken = |old: &Def| {
            Fail::new(
                n.name.at,
                format!("{}.name", n.path),
                format!(
                    "the name '{name}' is already taken by {} ({})",
                    old.what(name),
                    old.origin()
                ),
            )
        };
        match n.count {
            None => {
                let def = Def::new(Ref::Node(nodes.len()), format!("node '{name}'"), origin);
                names.define(name, def, taken)?;
                nodes.push(NodeSpec { name: name.clone() });
            }
            Some((k, count_at)) => {
                if nodes.len() as u64 + k > MAX_NODES {
                    return Err(Fail::new(
                        count_at,
                        format!("{}.count", n.path),
                        format!("a scenario can have at most {MAX_NODES} nodes; this group would make {}", nodes.len() as u64 + k),
                    ));
                }
                let first = nodes.len();
                let len = k as usize;
                let def = Def::new(
                    Ref::Group { first, len },
                    format!("group '{name}'"),
                    origin.clone(),
                );
                names.define(name, def, taken)?;
                let member_of = Rc::new(Group {
                    kind: "node",
                    name: name.clone(),
                    origin,
                });
                for i in 0..len {
                    let member = format!("{name}{i}");
                    let def = Def::member(Ref::Node(nodes.len()), &member_of);
                    names.define(&member, def, |old| {
                        Fail::new(
                            n.name.at,
                            format!("{}.name", n.path),
                            format!(
                                "group '{name}' names its member {i} '{member}', but that name is already taken by {} ({})",
                                old.what(&member), old.origin()
                            ),
                        )
                    })?;
                    nodes.push(NodeSpec { name: member });
                }
            }
        }
    }
    Ok((nodes, names))
}

fn expand_link(l: &RawLink, names: &Names, nodes: &[NodeSpec]) -> Result<Vec<LinkSpec>, Fail> {
    let [a, b] = &l.between;
    let ra = names
        .get(a, &format!("{}.between[0]", l.path), "node or group")?
        .r;
    let rb = names
        .get(b, &format!("{}.between[1]", l.path), "node or group")?
        .r;
    let pairs = match l.blocks {
        None => pair_up(ra, rb).map_err(|s| {
            Fail::new(
                l.between_at,
                format!("{}.between", l.path),
                size_mismatch(a, b, s, "a link"),
            )
        })?,
        Some(at) => in_blocks(ra, rb).ok_or_else(|| {
            let size = |r: Ref| match r {
                Ref::Group { len, .. } => format!("a group of {len}"),
                Ref::Node(_) => "a single node".to_string(),
            };
            Fail::new(
                at,
                format!("{}.pairing", l.path),
                format!(
                    "pairing = \"blocks\" joins two non-empty groups, one's size a multiple of the other's; '{}' is {} and '{}' {}",
                    a.name, size(ra), b.name, size(rb)
                ),
            )
        })?,
    };
    if let Some((at, field)) = &l.members_at {
        if l.members.len() != pairs.len() {
            return Err(Fail::new(
                *at,
                field,
                format!(
                    "{} per-member values for {} (between '{}' and '{}'), which makes {} link{}",
                    l.members.len(),
                    l.path,
                    a.name,
                    b.name,
                    pairs.len(),
                    if pairs.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    let mut out = Vec::with_capacity(pairs.len());
    // the links of one [[link]] share its queue specs, unless it gave per-member values
    let (queue_ab, queue_ba) = (Arc::new(l.queue_ab.clone()), Arc::new(l.queue_ba.clone()));
    for (i, (x, y)) in pairs.into_iter().enumerate() {
        if x == y {
            return Err(Fail::new(
                b.at,
                format!("{}.between[1]", l.path),
                format!("a link cannot join '{}' to itself", nodes[x].name),
            ));
        }
        let spec = match l.members.get(i) {
            Some(m) => LinkSpec {
                a: x,
                b: y,
                rate_bps: m.rate_bps,
                delay: m.delay,
                framing: m.framing,
                queue_ab: Arc::new(m.queue_ab.clone()),
                queue_ba: Arc::new(m.queue_ba.clone()),
                loss_ab: m.loss[0],
                loss_ba: m.loss[1],
            },
            None => LinkSpec {
                a: x,
                b: y,
                rate_bps: l.rate_bps,
                delay: l.delay,
                framing: l.framing,
                queue_ab: Arc::clone(&queue_ab),
                queue_ba: Arc::clone(&queue_ba),
                loss_ab: l.loss[0],
                loss_ba: l.loss[1],
            },
        };
        out.push(spec);
    }
    Ok(out)
}

/// `pairing = "blocks"`: a group of k·m members with a group of m (in either order), member
/// i of the larger with member ⌊i / k⌋ of the smaller, so that each of the m serves k
/// consecutive members (the hosts behind an access router, the access routers behind an
/// aggregation router).
fn in_blocks(a: Ref, b: Ref) -> Option<Vec<(usize, usize)>> {
    let (Ref::Group { len: ka, .. }, Ref::Group { len: kb, .. }) = (a, b) else {
        return None;
    };
    if ka == 0 || kb == 0 || ka.max(kb) % ka.min(kb) != 0 {
        return None;
    }
    let (am, bm) = (a.members(), b.members());
    Some(if ka >= kb {
        let k = ka / kb;
        am.enumerate().map(|(i, x)| (x, bm.start + i / k)).collect()
    } else {
        let k = kb / ka;
        bm.enumerate().map(|(i, y)| (am.start + i / k, y)).collect()
    })
}

fn resolve_route(r: &RawRoute, names: &Names) -> Result<RouteSpec, Fail> {
    let mut path: Vec<usize> = Vec::with_capacity(r.path.len());
    for (i, n) in r.path.iter().enumerate() {
        let field = format!("{}[{i}]", r.path_field);
        match names.get(n, &field, "node")?.r {
            Ref::Node(x) => {
                if path.contains(&x) {
                    return Err(Fail::new(
                        n.at,
                        field,
                        format!(
                            "'{}' appears twice in this path: a route cannot visit a node twice",
                            n.name
                        ),
                    ));
                }
                path.push(x);
            }
            Ref::Group { len, .. } => {
                return Err(Fail::new(
                    n.at,
                    field,
                    format!(
                        "'{}' is a group of {len} nodes; a route names single nodes, like '{}0'",
                        n.name, n.name
                    ),
                ))
            }
        }
    }
    Ok(RouteSpec { path })
}

fn route_error(e: RouteError, raw: &Raw, nodes: &[NodeSpec]) -> Fail {
    let routes = &raw.routes;
    match e {
        RouteError::TooLarge { .. } => {
            // a property of the whole network: shown at its first link
            let (at, field) = raw.links.first().map_or((0, String::new()), |l| {
                (l.between_at, format!("{}.between", l.path))
            });
            Fail::new(at, field, e.to_string())
        }
        RouteError::TooShort { route } => {
            let r = &routes[route];
            Fail::new(r.path_at, r.path_field.clone(), e.to_string())
        }
        RouteError::NotAdjacent { route, hop } => {
            let r = &routes[route];
            let (u, v) = (&r.path[hop], &r.path[hop + 1]);
            Fail::new(
                v.at,
                format!("{}[{}]", r.path_field, hop + 1),
                format!(
                    "no link joins '{}' and '{}' (hops {hop} and {} of the path)",
                    u.name,
                    v.name,
                    hop + 1
                ),
            )
        }
        RouteError::Loop { route, from, .. } => {
            // resolve_route rejects a repeated node first; this maps routing's own check.
            let r = &routes[route];
            let again = r
                .path
                .iter()
                .enumerate()
                .filter(|(_, n)| n.name == nodes[from].name)
                .nth(1);
            let (at, field) = match again {
                Some((i, n)) => (n.at, format!("{}[{i}]", r.path_field)),
                None => (r.path_at, r.path_field.clone()),
            };
            Fail::new(
                at,
                field,
                format!(
                    "'{}' appears twice in this path: a route cannot visit a node twice",
                    nodes[from].name
                ),
            )
        }
    }
}

fn expand_flow(
    f: &RawFlow,
    names: &Names,
    flow_names: &mut Names,
    nodes: &[NodeSpec],
    before: usize,
) -> Result<Vec<FlowSpec>, Fail> {
    let from = names.get(&f.from, &format!("{}.from", f.path), "node or group")?;
    let to = names.get(&f.to, &format!("{}.to", f.path), "node or group")?;
    let to_field = format!("{}.to", f.path);
    if f.from.name == f.to.name {
        return Err(Fail::new(
            f.to.at,
            to_field,
            format!("a flow cannot go from '{}' to itself", f.to.name),
        ));
    }
    let pairs = pair_up(from.r, to.r).map_err(|s| {
        Fail::new(
            f.to.at,
            &to_field,
            size_mismatch(&f.from, &f.to, s, "a flow"),
        )
    })?;
    if let Some(&(x, _)) = pairs.iter().find(|(x, y)| x == y) {
        return Err(Fail::new(
            f.to.at,
            to_field,
            format!("a flow cannot go from '{}' to itself", nodes[x].name),
        ));
    }
    let total = pairs.len() as u64 * f.count;
    if before as u64 + total > MAX_FLOWS {
        return Err(Fail::new(
            f.count_at,
            format!("{}.count", f.path),
            format!(
                "a scenario can have at most {MAX_FLOWS} flows; this [[flow]] would make {}",
                before as u64 + total
            ),
        ));
    }
    let group = &f.name.name;
    let grouped =
        matches!(from.r, Ref::Group { .. }) || matches!(to.r, Ref::Group { .. }) || f.count > 1;
    let name_field = format!("{}.name", f.path);
    let origin = flow_names.origin(&f.path, f.name.at);
    let clash = |name: &str, old: &Def| {
        let made = if name == group {
            String::new()
        } else {
            format!("group '{group}' names its flow '{name}', but ")
        };
        let msg = format!(
            "{made}the flow name '{name}' is already taken by {} ({})",
            old.what(name),
            old.origin()
        );
        Fail::new(f.name.at, &name_field, msg)
    };
    // The group name is reserved even when it expands to nothing or to suffixed names.
    let what = if grouped {
        format!("flow group '{group}'")
    } else {
        format!("flow '{group}'")
    };
    // A flow name refers to the flow indices it made: all of a group's, or the one flow's.
    let r = Ref::Group {
        first: before,
        len: total as usize,
    };
    flow_names.define(group, Def::new(r, what, origin.clone()), |old| {
        clash(group, old)
    })?;
    if let Some((at, field)) = &f.members_at {
        if f.members.len() as u64 != total {
            return Err(Fail::new(
                *at,
                field,
                format!(
                    "{} per-member values for flow group '{group}', which has {total} flows",
                    f.members.len()
                ),
            ));
        }
    }
    let member_of = Rc::new(Group {
        kind: "flow",
        name: group.clone(),
        origin,
    });
    let group_shared: std::sync::Arc<str> = group.as_str().into();
    let mut out = Vec::with_capacity(total as usize);
    for (x, y) in pairs {
        for _ in 0..f.count {
            let i = out.len();
            // per-member values (flow.rs), else the table's own
            let (raw_app, dscp) = f.members.get(i).map_or((&f.app, f.dscp), |m| (&m.0, m.1));
            let name = if grouped {
                format!("{group}{i}")
            } else {
                group.clone()
            };
            if grouped {
                let def = Def::member(Ref::Node(before + i), &member_of);
                flow_names.define(&name, def, |old| clash(&name, old))?;
            }
            // Flow i of the group starts start_step after flow i-1.
            let offset = f
                .start_step
                .0
                .checked_mul(i as u64)
                .and_then(|o| o.checked_add(f.start.0));
            let Some(start) = offset else {
                return Err(Fail::new(
                    f.step_at,
                    format!("{}.start_step", f.path),
                    "start + i × start_step overflows",
                ));
            };
            let app = match raw_app {
                RawApp::Cbr(c) => {
                    if let Some((stop, stop_at)) = c.stop {
                        if start >= stop.0 {
                            return Err(Fail::new(
                                stop_at,
                                format!("{}.stop", f.path),
                                format!(
                                    "flow '{name}' would start at {} (start + {i} × start_step), not before its stop at {stop}",
                                    SimDuration(start)
                                ),
                            ));
                        }
                    }
                    AppSpec::Cbr(CbrSpec {
                        rate_bps: c.rate_bps,
                        packet_size: c.packet_size,
                        start: SimTime(start),
                        stop: c.stop.map(|(t, _)| SimTime(t.0)),
                        max_packets: c.packets,
                        jitter: c.jitter,
                    })
                }
                RawApp::Tcp(p) => AppSpec::Tcp(tcp::Params {
                    start: SimTime(start),
                    ..*p
                }),
                RawApp::Tfrc(p) => AppSpec::Tfrc(tfrc::Params {
                    start: SimTime(start),
                    ..*p
                }),
            };
            out.push(FlowSpec {
                name,
                dscp,
                group: std::sync::Arc::clone(&group_shared),
                src: x,
                dst: y,
                app,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;

    fn group(first: usize, len: usize) -> Ref {
        Ref::Group { first, len }
    }

    #[test]
    fn a_group_and_a_node_pair_every_member_with_the_node_in_either_order() {
        assert_eq!(
            pair_up(group(0, 3), Ref::Node(9)),
            Ok(vec![(0, 9), (1, 9), (2, 9)])
        );
        assert_eq!(pair_up(Ref::Node(9), group(0, 2)), Ok(vec![(9, 0), (9, 1)]));
        assert_eq!(pair_up(Ref::Node(1), Ref::Node(2)), Ok(vec![(1, 2)]));
    }

    #[test]
    fn two_groups_pair_member_i_with_member_i_and_must_be_the_same_size() {
        assert_eq!(pair_up(group(0, 2), group(5, 2)), Ok(vec![(0, 5), (1, 6)]));
        assert_eq!(pair_up(group(0, 2), group(5, 3)), Err((2, 3)));
        assert_eq!(pair_up(group(0, 0), group(5, 0)), Ok(vec![]));
        assert_eq!(pair_up(group(0, 0), Ref::Node(4)), Ok(vec![]));
        assert_eq!(pair_up(group(0, 0), group(5, 1)), Err((0, 1)));
    }

    const NET: &str = "[scenario]\nduration = \"1s\"\n\
        [[node]]\nname = \"s\"\ncount = 2\n[[node]]\nname = \"r\"\n[[node]]\nname = \"d\"\ncount = 2\n\
        [[link]]\nbetween = [\"s\", \"r\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [[link]]\nbetween = [\"r\", \"d\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";

    fn flows(extra: &str) -> Vec<(String, String, usize, usize)> {
        let s = load_str(&format!("{NET}{extra}"), "t.toml", &[]).unwrap();
        s.flows
            .into_iter()
            .map(|f| (f.name, f.group.to_string(), f.src, f.dst))
            .collect()
    }

    fn flow(from: &str, to: &str, count: u32) -> String {
        format!(
            "[[flow]]\nname = \"f\"\nfrom = \"{from}\"\nto = \"{to}\"\ncount = {count}\nkind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = \"100B\"\n"
        )
    }

    #[test]
    fn flow_copies_are_numbered_pair_by_pair() {
        // nodes: s0 s1 r d0 d1
        let got = flows(&flow("s", "r", 2));
        let want = [("f0", 0, 2), ("f1", 0, 2), ("f2", 1, 2), ("f3", 1, 2)];
        assert_eq!(got.len(), 4);
        for ((name, group, src, dst), (wn, ws, wd)) in got.iter().zip(want) {
            assert_eq!(
                (name.as_str(), group.as_str(), *src, *dst),
                (wn, "f", ws, wd)
            );
        }
    }

    #[test]
    fn a_flow_between_two_single_nodes_keeps_its_exact_name() {
        assert_eq!(
            flows(&flow("s0", "d1", 1)),
            [("f".to_string(), "f".to_string(), 0, 4)]
        );
    }

    #[test]
    fn a_flow_from_a_node_to_a_group_is_suffixed() {
        let got = flows(&flow("r", "d", 1));
        assert_eq!(
            got.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
            ["f0", "f1"]
        );
    }

    #[test]
    fn a_flow_count_of_zero_makes_no_flows_but_reserves_the_name() {
        assert!(flows(&flow("s", "d", 0)).is_empty());
        let twice = format!("{}{}", flow("s", "d", 0), flow("s0", "d0", 1));
        let e = load_str(&format!("{NET}{twice}"), "t.toml", &[]).unwrap_err();
        assert!(e.message.contains("already taken by flow group 'f'"), "{e}");
    }

    #[test]
    fn links_from_a_group_to_a_node_come_in_member_order() {
        let s = load_str(NET, "t.toml", &[]).unwrap();
        let ends: Vec<(usize, usize)> = s.links.iter().map(|l| (l.a, l.b)).collect();
        assert_eq!(ends, [(0, 2), (1, 2), (2, 3), (2, 4)]);
    }
}
