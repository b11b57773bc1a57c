//! First pass over a scenario file: every table and field read on its own — types, units,
//! ranges, unknown fields — with names still unresolved and groups still unexpanded.
//!
//! Read this first: each `[[node]]`, `[[link]]`, `[[route]]`, `[[flow]]` (`flow`) and
//! `[[conditioner]]` and `[[csa]]` (`conditioner`) becomes a `Raw*` record holding checked values and the
//! byte offsets later errors will point at. A record's fields are read in file order and the
//! record stops at its first error (a model's own check, once all its fields are read); records are
//! independent, so of several bad records the earliest in the file is reported (`First`).
//! `[diffserv]` (`diffserv`) is read before everything else, and its error reported first,
//! since queues take its colour table; links read their queues with `queue`.
//! Everything that needs more than one table (names, group sizes, routes, reachability) is
//! `resolve`'s job.

use super::conditioner::{read_conditioner, RawConditioner};
use super::csa::{read_csa, RawCsa};
use super::diffserv::read_diffserv;
use super::flow::{read_flow, RawFlow};
use super::link::{read_link, RawLink};
use super::names::{Named, MAX_NODES};
use super::params::Params;
use super::source::{Fail, First};
use super::table::Rec;
use crate::net::dscp::ColourTable;
use crate::scenario::spec::MonitorKind;
use crate::scenario::units::{parse_time_ns, Quantity};
use crate::sim::time::SimDuration;
use toml_edit::{Item, Table};

pub(crate) const TABLES: [&str; 11] = [
    "scenario",
    "params",
    "node",
    "link",
    "route",
    "flow",
    "diffserv",
    "conditioner",
    "csa",
    "capture",
    "monitor",
];
const SCENARIO_FIELDS: [&str; 8] = [
    "name",
    "description",
    "seed",
    "duration",
    "max_packets",
    "max_data_packets",
    "until_transfers_complete",
    "warmup",
];
const NODE_FIELDS: [&str; 2] = ["name", "count"];
const ROUTE_FIELDS: [&str; 1] = ["path"];
const CAPTURE_FIELDS: [&str; 2] = ["port", "file"];
const MONITOR_FIELDS: [&str; 3] = ["kind", "queue", "interval"];
/// A monitor's sampling interval when it names none.
pub(crate) const DEFAULT_MONITOR_INTERVAL: SimDuration = SimDuration(10_000_000);
#[derive(Debug)]
pub(crate) struct RawScenario {
    /// The `[scenario]` table's position, or 0 when there is none.
    pub at: usize,
    pub name: Option<String>,
    pub seed: u64,
    pub duration: Option<SimDuration>,
    pub max_packets: Option<u64>,
    pub max_data_packets: Option<u64>,
    pub until_transfers_complete: bool,
    pub until_at: usize,
    pub warmup: SimDuration,
}

#[derive(Debug)]
pub(crate) struct RawNode {
    pub path: String,
    pub name: Named,
    /// `Some` for a group: its size and the position of `count`.
    pub count: Option<(u64, usize)>,
}

#[derive(Debug)]
pub(crate) struct RawRoute {
    pub path_field: String,
    pub path_at: usize,
    pub path: Vec<Named>,
}

/// A `[[capture]]`: the port as written (`"r1->r2"`, resolved once nodes are known) and the
/// pcap file's path with its position.
#[derive(Debug)]
pub(crate) struct RawCapture {
    pub path: String,
    pub port: Named,
    pub file: Named,
}

/// A `[[monitor]]`: its kind, the queue's port as written (`"r1->r2"`; the queue kinds only)
/// and the sampling interval.
#[derive(Debug)]
pub(crate) struct RawMonitor {
    pub path: String,
    /// Where the table starts.
    pub at: usize,
    pub kind: MonitorKind,
    pub port: Option<Named>,
    pub interval: SimDuration,
}

#[derive(Debug)]
pub(crate) struct Raw {
    pub scenario: RawScenario,
    pub nodes: Vec<RawNode>,
    pub links: Vec<RawLink>,
    pub routes: Vec<RawRoute>,
    pub flows: Vec<RawFlow>,
    /// The domain's colour table (`[diffserv]`, else RFC 2597's).
    pub colours: ColourTable,
    pub conditioners: Vec<RawConditioner>,
    pub csas: Vec<RawCsa>,
    pub captures: Vec<RawCapture>,
    pub monitors: Vec<RawMonitor>,
}

/// Reads every table of the document except `[params]` (already read into `params`).
pub(crate) fn read(root: &Table, params: &Params) -> Result<Raw, Fail> {
    let mut first = First::default();
    let mut raw = Raw {
        scenario: RawScenario {
            at: 0,
            name: None,
            seed: 1,
            duration: None,
            max_packets: None,
            max_data_packets: None,
            until_transfers_complete: false,
            until_at: 0,
            warmup: SimDuration::ZERO,
        },
        nodes: Vec::new(),
        links: Vec::new(),
        routes: Vec::new(),
        flows: Vec::new(),
        colours: ColourTable::rfc2597(),
        conditioners: Vec::new(),
        csas: Vec::new(),
        captures: Vec::new(),
        monitors: Vec::new(),
    };
    // Queues take the domain's colour table, so [diffserv] is read first, wherever it is; if
    // it is wrong, that is the error, rather than what a queue would make of a stand-in table.
    if let Some((key, item)) = root.get_key_value("diffserv") {
        let key_at = key.span().map_or(0, |s| s.start);
        let rec = Rec::of_item(
            item,
            key_at,
            "diffserv".into(),
            "[diffserv]",
            "a [diffserv] table",
        )?;
        raw.colours = read_diffserv(&rec, params)?;
    }
    for (key, item) in root.iter() {
        let key_at = root.key(key).and_then(|k| k.span()).map_or(0, |s| s.start);
        match key {
            "params" | "diffserv" => {}
            "scenario" => {
                let rec = Rec::of_item(
                    item,
                    key_at,
                    "scenario".into(),
                    "[scenario]",
                    "a [scenario] table",
                );
                if let Some(s) = first.take(rec.and_then(|r| read_scenario(&r, params))) {
                    raw.scenario = s;
                }
            }
            "node" | "link" | "route" | "flow" | "conditioner" | "csa" | "capture" | "monitor" => {
                let Some(recs) = first.take(Rec::array(item, key_at, key)) else {
                    continue;
                };
                for r in &recs {
                    match key {
                        "node" => raw.nodes.extend(first.take(read_node(r, params))),
                        "link" => raw
                            .links
                            .extend(first.take(read_link(r, params, &raw.colours))),
                        "route" => raw.routes.extend(first.take(read_route(r, params))),
                        "flow" => raw.flows.extend(first.take(read_flow(r, params))),
                        "conditioner" => raw
                            .conditioners
                            .extend(first.take(read_conditioner(r, params))),
                        "capture" => raw.captures.extend(first.take(read_capture(r, params))),
                        "monitor" => raw.monitors.extend(first.take(read_monitor(r, params))),
                        _ => raw.csas.extend(first.take(read_csa(r, params))),
                    }
                }
            }
            other => first.push(unknown_table(other, item, key_at)),
        }
    }
    first.finish()?;
    let s = &raw.scenario;
    if s.duration.is_none()
        && s.max_packets.is_none()
        && s.max_data_packets.is_none()
        && !s.until_transfers_complete
    {
        return Err(Fail::new(
            s.at,
            "scenario",
            "no stop condition: set duration, max_packets, max_data_packets or until_transfers_complete = true in [scenario]",
        ));
    }
    Ok(raw)
}

fn unknown_table(key: &str, item: &Item, key_at: usize) -> Fail {
    if SCENARIO_FIELDS.contains(&key) {
        return Fail::new(
            key_at,
            key,
            format!("'{key}' belongs in the [scenario] table"),
        );
    }
    let shown = |t: &str| {
        if matches!(t, "scenario" | "params" | "diffserv") {
            format!("[{t}]")
        } else {
            format!("[[{t}]]")
        }
    };
    let kind = if item.is_table_like() || item.is_array_of_tables() {
        "table"
    } else {
        "top-level field"
    };
    let hint = match super::source::did_you_mean(key, TABLES) {
        Some(t) => format!(" (did you mean {}?)", shown(t)),
        None => String::new(),
    };
    Fail::new(
        key_at,
        key,
        format!(
            "unknown {kind} '{key}'{hint}; the tables are: {}",
            TABLES
                .iter()
                .map(|t| shown(t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

fn read_scenario(rec: &Rec, params: &Params) -> Result<RawScenario, Fail> {
    let mut s = RawScenario {
        at: rec.at,
        name: None,
        seed: 1,
        duration: None,
        max_packets: None,
        max_data_packets: None,
        until_transfers_complete: false,
        until_at: rec.at,
        warmup: SimDuration::ZERO,
    };
    let mut warmup_at = None;
    for f in rec.fields() {
        let v = rec.val(params, &f)?;
        match f.key {
            "name" => {
                let n = v.string()?;
                if n.trim().is_empty() {
                    return Err(v.fail("the scenario name must not be empty"));
                }
                s.name = Some(n);
            }
            "description" => {
                v.string()?;
            }
            "seed" => s.seed = v.int_at_least(0)?,
            "duration" => {
                let d = v.quantity(Quantity::Time, parse_time_ns)?;
                if d == 0 {
                    return Err(v.fail("duration must be longer than 0s"));
                }
                s.duration = Some(SimDuration(d));
            }
            "max_packets" => s.max_packets = Some(v.int_at_least(1)?),
            "max_data_packets" => s.max_data_packets = Some(v.int_at_least(1)?),
            "until_transfers_complete" => {
                s.until_transfers_complete = v.boolean()?;
                s.until_at = v.at;
            }
            "warmup" => {
                s.warmup = SimDuration(v.quantity(Quantity::Time, parse_time_ns)?);
                warmup_at = Some(v);
            }
            _ => return Err(rec.unknown(&f, &SCENARIO_FIELDS)),
        }
    }
    // Statistics are taken over [warmup, duration]: an empty interval measures nothing.
    if let (Some(d), Some(w)) = (s.duration, &warmup_at) {
        if s.warmup >= d {
            return Err(w.fail(format!(
                "warmup ({}) must be shorter than duration ({d})",
                s.warmup
            )));
        }
    }
    Ok(s)
}

fn read_node(rec: &Rec, params: &Params) -> Result<RawNode, Fail> {
    let mut name = None;
    let mut count = None;
    for f in rec.fields() {
        match f.key {
            "name" => {
                let v = rec.val(params, &f)?;
                name = Some(Named {
                    name: v.name()?,
                    at: v.at,
                });
            }
            "count" => {
                let v = rec.val(params, &f)?;
                let n = v.int_at_least(0)?;
                if n > MAX_NODES {
                    return Err(v.fail(format!(
                        "a scenario can have at most {MAX_NODES} nodes, found count = {n}"
                    )));
                }
                count = Some((n, v.at));
            }
            _ => return Err(rec.unknown(&f, &NODE_FIELDS)),
        }
    }
    let name = name.ok_or_else(|| rec.missing("name", "\"r1\""))?;
    Ok(RawNode {
        path: rec.path.clone(),
        name,
        count,
    })
}

fn read_route(rec: &Rec, params: &Params) -> Result<RawRoute, Fail> {
    let mut path = None;
    for f in rec.fields() {
        match f.key {
            "path" => {
                let nodes = rec.strings(
                    params,
                    &f,
                    "an array of node names, like [\"a\", \"r1\", \"b\"]",
                )?;
                // routing::RouteError::TooShort, checked here so it is reported in file order.
                if nodes.len() < 2 {
                    return Err(Fail::new(
                        f.at,
                        rec.path_of("path"),
                        format!(
                            "a route path needs at least two nodes, found {}",
                            nodes.len()
                        ),
                    ));
                }
                let nodes = nodes
                    .into_iter()
                    .map(|(name, at)| Named { name, at })
                    .collect();
                path = Some((nodes, f.at));
            }
            _ => return Err(rec.unknown(&f, &ROUTE_FIELDS)),
        }
    }
    let (path, path_at) = path.ok_or_else(|| rec.missing("path", "[\"a\", \"r1\", \"b\"]"))?;
    Ok(RawRoute {
        path_field: rec.path_of("path"),
        path_at,
        path,
    })
}

/// `[[capture]]`: `port = "r1->r2"`, `file = "r1-r2.pcap"`. The file's directory must exist
/// (checked here, so a typo fails before the run); the file itself is created by the world.
fn read_capture(rec: &Rec, params: &Params) -> Result<RawCapture, Fail> {
    let (mut port, mut file) = (None, None);
    for f in rec.fields() {
        let v = rec.val(params, &f)?;
        match f.key {
            "port" => {
                let name = v.string()?;
                if !name.contains("->") {
                    return Err(v.fail(format!(
                        "{} is not a port: name one as \"from->to\", like \"r1->r2\"",
                        v.s.repr()
                    )));
                }
                port = Some(Named { name, at: v.at });
            }
            "file" => {
                let name = v.string()?;
                if let Some(problem) = unwritable_file(std::path::Path::new(&name)) {
                    return Err(v.fail(problem));
                }
                file = Some(Named { name, at: v.at });
            }
            _ => return Err(rec.unknown(&f, &CAPTURE_FIELDS)),
        }
    }
    let port = port.ok_or_else(|| rec.missing("port", "\"r1->r2\""))?;
    let file = file.ok_or_else(|| rec.missing("file", "\"r1-r2.pcap\""))?;
    Ok(RawCapture {
        path: rec.path.clone(),
        port,
        file,
    })
}

/// `[[monitor]]`: `kind` ("queue", the default, "flows", "conditioners" or "events"), `queue =
/// "r1->r2"` (the queue kinds, required there and refused elsewhere), `interval = "1ms"`
/// (default 10 ms; refused for "events", which records every event and has no grid).
fn read_monitor(rec: &Rec, params: &Params) -> Result<RawMonitor, Fail> {
    let (mut kind, mut port, mut interval) = (MonitorKind::Queue, None, None);
    for f in rec.fields() {
        let v = rec.val(params, &f)?;
        match f.key {
            "kind" => {
                let name = v.string()?;
                kind = MonitorKind::ALL
                    .into_iter()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| {
                        v.fail(format!(
                            "unknown monitor kind {}; the kinds are: queue, flows, conditioners, events",
                            v.s.repr()
                        ))
                    })?;
            }
            "queue" => {
                let name = v.string()?;
                if !name.contains("->") {
                    return Err(v.fail(format!(
                        "{} is not a queue: name one by its link direction \"from->to\", like \"r1->r2\"",
                        v.s.repr()
                    )));
                }
                port = Some(Named { name, at: v.at });
            }
            "interval" => {
                let ns = v.quantity(Quantity::Time, parse_time_ns)?;
                if ns == 0 {
                    return Err(
                        v.fail("the sampling interval must be greater than zero".to_string())
                    );
                }
                interval = Some((SimDuration(ns), v.at));
            }
            _ => return Err(rec.unknown(&f, &MONITOR_FIELDS)),
        }
    }
    if kind.has_port() && port.is_none() {
        return Err(rec.missing("queue", "\"r1->r2\""));
    }
    if let (false, Some(p)) = (kind.has_port(), &port) {
        return Err(Fail::new(
            p.at,
            format!("{}.queue", rec.path),
            format!(
                "a '{}' monitor watches every {} and takes no queue; a queue's own series is kind = \"queue\"",
                kind.name(),
                if kind == MonitorKind::Flows { "flow" } else { "conditioner" }
            ),
        ));
    }
    if let (MonitorKind::Events, Some((_, at))) = (kind, interval) {
        return Err(Fail::new(
            at,
            format!("{}.interval", rec.path),
            "an 'events' monitor records every event of its queue and has no sampling interval"
                .to_string(),
        ));
    }
    Ok(RawMonitor {
        path: rec.path.clone(),
        at: rec.at,
        kind,
        port,
        interval: interval.map_or(DEFAULT_MONITOR_INTERVAL, |i| i.0),
    })
}

/// Why a file could not be created at `path` (without creating it), if it surely could not:
/// an empty path, a directory, or a parent that is missing or not a directory.
pub fn unwritable_file(path: &std::path::Path) -> Option<String> {
    if path.as_os_str().is_empty() {
        return Some("the file name is empty".into());
    }
    if path.is_dir() {
        return Some(format!("'{}' is a directory, not a file", path.display()));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !parent.exists() {
        return Some(format!(
            "the directory '{}' does not exist",
            parent.display()
        ));
    }
    if !parent.is_dir() {
        return Some(format!("'{}' is not a directory", parent.display()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::link::DEFAULT_QUEUE;
    use super::*;
    use crate::scenario::spec::Limit;
    use crate::scenario::spec::{Framing, QueueSpec};
    use toml_edit::ImDocument;

    fn read_text(text: &str) -> Result<Raw, Fail> {
        let doc = ImDocument::parse(text).unwrap();
        let params = Params::read(doc.as_table(), &[]).unwrap();
        read(doc.as_table(), &params)
    }

    const STOP: &str = "[scenario]\nduration = \"1s\"\n";

    #[test]
    fn ppp_framing_is_eight_bytes_of_hdlc_overhead() {
        let r = read_text(&format!("{STOP}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"0ms\"\nframing = \"ppp\"")).unwrap();
        assert_eq!(r.links[0].framing, Framing::Fixed { overhead_bytes: 8 });
    }

    #[test]
    fn every_framing_name_maps_to_its_model() {
        for (name, want) in [
            ("plain", Framing::Plain),
            ("atm_cell_tax", Framing::AtmCellTax),
            ("aal5", Framing::Aal5 { llc_snap: false }),
            ("aal5_llc", Framing::Aal5 { llc_snap: true }),
        ] {
            let text = format!("{STOP}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"0ms\"\nframing = \"{name}\"");
            assert_eq!(read_text(&text).unwrap().links[0].framing, want, "{name}");
            let text = format!("{STOP}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"0ms\"\nframing = {{ kind = \"{name}\" }}");
            assert_eq!(
                read_text(&text).unwrap().links[0].framing,
                want,
                "{name} as a table"
            );
        }
    }

    #[test]
    fn a_link_without_queues_gets_ns2s_50_packet_droptail_both_ways() {
        let r = read_text(&format!(
            "{STOP}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\""
        ))
        .unwrap();
        assert_eq!(r.links[0].queue_ab, DEFAULT_QUEUE);
        assert_eq!(r.links[0].queue_ba, DEFAULT_QUEUE);
    }

    #[test]
    fn the_reverse_queue_copies_the_forward_queue_unless_given() {
        let base = format!("{STOP}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = {{ limit = \"10KB\" }}\n");
        let r = read_text(&base).unwrap();
        assert_eq!(
            r.links[0].queue_ba,
            QueueSpec::DropTail {
                limit: Limit::Bytes(10_000)
            }
        );
        let r = read_text(&format!("{base}[link.reverse_queue]\nlimit = \"7p\"\n")).unwrap();
        assert_eq!(
            r.links[0].queue_ab,
            QueueSpec::DropTail {
                limit: Limit::Bytes(10_000)
            }
        );
        assert_eq!(
            r.links[0].queue_ba,
            QueueSpec::DropTail {
                limit: Limit::Packets(7)
            }
        );
    }

    #[test]
    fn records_may_also_be_written_as_arrays_of_inline_tables() {
        let r = read_text(&format!(
            "node = [{{ name = \"a\" }}, {{ name = \"b\", count = 2 }}]\n{STOP}"
        ))
        .unwrap();
        assert_eq!(r.nodes.len(), 2);
        assert_eq!(r.nodes[1].count.map(|c| c.0), Some(2));
    }

    #[test]
    fn of_two_bad_records_the_earlier_one_is_reported() {
        let text =
            format!("{STOP}[[node]]\nname = \"ok\"\n[[link]]\nbetween = 3\n[[node]]\nname = 5\n");
        let e = read_text(&text).unwrap_err();
        assert_eq!(e.field, "link[0].between");
    }

    #[test]
    fn no_stop_condition_points_at_the_scenario_table_or_the_top() {
        let e = read_text("# x\n[scenario]\nseed = 3\n").unwrap_err();
        assert_eq!((e.at, e.field.as_str()), (4, "scenario"));
        let e = read_text("[scenario]\nuntil_transfers_complete = false\n").unwrap_err();
        assert!(e.message.starts_with("no stop condition"));
        assert_eq!(read_text("").unwrap_err().at, 0);
    }

    #[test]
    fn a_scenario_field_at_the_top_level_is_pointed_to_its_table() {
        let e = read_text("duration = \"1s\"\n").unwrap_err();
        assert_eq!(e.message, "'duration' belongs in the [scenario] table");
        let e = read_text(&format!("{STOP}[[nodes]]\nname = \"a\"\n")).unwrap_err();
        assert!(
            e.message
                .contains("unknown table 'nodes' (did you mean [[node]]?)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_defaults_are_seed_1_and_no_warmup() {
        let r = read_text(STOP).unwrap();
        assert_eq!(r.scenario.seed, 1);
        assert_eq!(r.scenario.warmup, SimDuration::ZERO);
        assert_eq!(r.scenario.duration, Some(SimDuration::from_secs(1)));
    }
}
