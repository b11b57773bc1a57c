//! Warnings: settings a scenario may legally have but surely does not mean.
//!
//! Read this first: these run after the spec is built and never stop a load. Each points at the
//! field to change, like an error, and says what the run will do with it. Three are found:
//!
//! - a flow that starts at or after the end of the run (`duration`): it sends nothing;
//! - a token bucket (or an srTCM/trTCM committed bucket) shallower than one packet of a flow it
//!   meters: that flow's packets can never be green (RFC 2697 §3.2: a packet is green only if
//!   the bucket holds at least its size in bytes);
//! - a queue whose byte limit is below one packet of a flow that crosses it: every such packet
//!   is refused at the hard limit.
//!
//! - a conditioner that leaves the action of a colour its meter produces to the default, when
//!   that default drops the packet or sends it as best effort (yellow → best effort, red →
//!   drop): it polices where the file may read as a marker (issue 27). Written explicitly, the
//!   same actions raise nothing.
//!
//! Packet sizes are the IP sizes the sources send: a CBR flow's `packet_size`, a TCP flow's
//! full data segment forward and its largest ACK (40 bytes, plus 3 SACK blocks of 8 bytes for
//! a SACK flow, as ns-2 counts them) backward. Paths follow the forwarding tables.
//!
//! Not looked at: limits in packets (any limit of one packet or more holds one), meters whose
//! buckets count packets rather than bytes (Giacomazzi's), time-sliding windows (no bucket).

use super::conditioner::RawConditioner;
use super::flow::RawFlow;
use super::link::RawLink;
use super::source::{Fail, Source};
use crate::net::routing::{far_end, Tables, NO_ROUTE};
use crate::scenario::spec::{AppSpec, ClassifierSpec, Limit, MeterSpec, QueueSpec, Spec};
use crate::scenario::Warning;
use crate::transport::tcp::{self, HEADER_BYTES, MAX_SACK_BLOCKS, SACK_BLOCK_BYTES};

/// Where each expanded record of the spec came from in the file.
pub(super) struct Origins<'a> {
    pub flows: &'a [&'a RawFlow],
    pub links: &'a [&'a RawLink],
    pub conditioners: &'a [&'a RawConditioner],
}

/// Every warning for `spec`, in file order of the records they point at.
pub(super) fn find(spec: &Spec, origins: &Origins, src: &Source, tables: &Tables) -> Vec<Warning> {
    let mut out: Vec<Fail> = Vec::new();
    late_flows(spec, origins, &mut out);
    shallow_buckets(spec, origins, &mut out);
    silent_policing(spec, origins, &mut out);
    small_queues(spec, origins, tables, &mut out);
    out.sort_by_key(|f| f.at);
    out.into_iter()
        .map(|f| {
            let e = src.error(f);
            Warning {
                file: e.file,
                line: e.line,
                column: e.column,
                field: e.field,
                message: e.message,
            }
        })
        .collect()
}

/// The largest IP packet flow `f` sends forward (data) and backward (ACKs; 0 for none).
fn packet_sizes(f: &AppSpec) -> (u32, u32) {
    match f {
        AppSpec::Cbr(c) => (c.packet_size, 0),
        AppSpec::Tcp(p) => {
            let sack = if p.variant == tcp::Variant::Sack {
                SACK_BLOCK_BYTES * MAX_SACK_BLOCKS as u32
            } else {
                0
            };
            (p.packet_size, HEADER_BYTES + sack)
        }
        AppSpec::Tfrc(p) => (p.packet_size, p.feedback_size),
    }
}

fn late_flows(spec: &Spec, origins: &Origins, out: &mut Vec<Fail>) {
    let Some(duration) = spec.stop.duration else {
        return;
    };
    let end = crate::sim::time::SimTime::ZERO + duration;
    for (f, raw) in spec.flows.iter().zip(origins.flows) {
        let start = match &f.app {
            AppSpec::Cbr(c) => c.start,
            AppSpec::Tcp(p) => p.start,
            AppSpec::Tfrc(p) => p.start,
        };
        if start >= end {
            // the first member starts in time: the step pushed this one out
            let by_step = raw.start < duration;
            let (at, field) = if by_step {
                (raw.step_at, "start_step")
            } else {
                (raw.start_at, "start")
            };
            out.push(Fail::new(
                at,
                format!("{}.{field}", raw.path),
                format!(
                    "flow '{}' starts at {}, not before the run ends ({duration}): it sends nothing",
                    f.name,
                    crate::sim::time::SimDuration(start.0)
                ),
            ));
        }
    }
}

/// The bucket of a meter that must hold a whole packet for it to be green, in bytes, and the
/// name of its field.
fn committed_bucket(m: &MeterSpec) -> Option<(u64, &'static str)> {
    match m {
        MeterSpec::TokenBucket(p) => match p.depth {
            crate::edge::token_bucket::Depth::Bytes(b) => Some((b, "depth")),
            crate::edge::token_bucket::Depth::Packets { .. } => None,
        },
        MeterSpec::Srtcm(p) => Some((p.cbs_bytes, "cbs")),
        MeterSpec::Trtcm(p) => Some((p.cbs_bytes, "cbs")),
        MeterSpec::Tsw2cm(_)
        | MeterSpec::Tsw3cm(_)
        | MeterSpec::EnhancedTokenBucket(_)
        | MeterSpec::Sima(_) => None,
    }
}

/// The colours a meter produces (green, yellow, red): a two-colour meter never says red, the
/// SIMA marker has no colour actions at all.
fn colours_of(m: &MeterSpec) -> [bool; 3] {
    match m {
        MeterSpec::TokenBucket(_) | MeterSpec::Tsw2cm(_) | MeterSpec::EnhancedTokenBucket(_) => {
            [true, true, false]
        }
        MeterSpec::Srtcm(_) | MeterSpec::Trtcm(_) | MeterSpec::Tsw3cm(_) => [true; 3],
        MeterSpec::Sima(_) => [false; 3],
    }
}

fn silent_policing(spec: &Spec, origins: &Origins, out: &mut Vec<Fail>) {
    use crate::edge::PerColourAction as A;
    let mut seen: Vec<&str> = Vec::new();
    for (c, raw) in spec.conditioners.iter().zip(origins.conditioners) {
        // One warning per [[conditioner]] table, not per member of its group.
        if seen.contains(&raw.path.as_str()) {
            continue;
        }
        seen.push(&raw.path);
        let produced = colours_of(&c.meter);
        let mut said = Vec::new();
        let mut first = None;
        for (i, colour) in ["green", "yellow", "red"].iter().enumerate() {
            if !(produced[i] && raw.defaulted[i]) {
                continue;
            }
            let fate = match c.actions[i] {
                A::Drop => "dropped",
                A::DowngradeToBestEffort => "sent as best effort",
                _ => continue,
            };
            first.get_or_insert(*colour);
            said.push(format!("its {colour} packets are {fate}"));
        }
        let Some(colour) = first else { continue };
        out.push(Fail::new(
            raw.name.at,
            format!("{}.{colour}", raw.path),
            format!(
                "conditioner '{}' polices by default: {} (no action written); write the action (\"best_effort\", \"drop\", \"keep\" or a code point such as \"AF12\") to choose it",
                raw.name.name,
                said.join(" and ")
            ),
        ));
    }
}

fn shallow_buckets(spec: &Spec, origins: &Origins, out: &mut Vec<Fail>) {
    type Found<'a> = Option<(u32, &'a str)>;
    let mut last: Option<(&ClassifierSpec, u64, Found)> = None;
    for (c, raw) in spec.conditioners.iter().zip(origins.conditioners) {
        let Some((depth, field)) = committed_bucket(&c.meter) else {
            continue;
        };
        let k = &c.classifier;
        // the conditioners of one table share their flow list (`ClassifierSpec::flows`): the
        // same list, criteria and depth give the same answer, found once, not once a
        // conditioner (one a host made conditioners × flows; issue 28)
        let same = |(pk, pd, _): &(&ClassifierSpec, u64, _)| {
            !k.flows.is_empty()
                && std::sync::Arc::ptr_eq(&pk.flows, &k.flows)
                && (pk.src, pk.dst, pk.protocol, *pd) == (k.src, k.dst, k.protocol, depth)
                && pk.dscp == k.dscp
        };
        let found = match last.as_ref().filter(|l| same(l)) {
            Some(l) => l.2,
            None => {
                let found = too_big(spec, k, depth);
                last = Some((k, depth, found));
                found
            }
        };
        let Some((size, name)) = found else {
            continue;
        };
        out.push(Fail::new(
            raw.meter_at,
            format!("{}.meter.{field}", raw.path),
            format!(
                "conditioner '{}': the bucket holds {depth} B, less than one {size}-byte packet of flow '{name}': \
                 none of its packets can be green",
                c.name
            ),
        ));
    }
}

/// The largest packet over `depth` bytes of the flows classifier `k` meters, with its flow's
/// name (`shallow_buckets`).
fn too_big<'a>(spec: &'a Spec, k: &ClassifierSpec, depth: u64) -> Option<(u32, &'a str)> {
    // the flows it lists, in flow order (every flow if none is listed): a scan of the
    // list, not a look-up per flow, which made conditioners × flows² (issue 28)
    let listed: Vec<usize> = if k.flows.is_empty() {
        (0..spec.flows.len()).collect()
    } else {
        let mut v = k.flows.to_vec();
        v.sort_unstable();
        v
    };
    // the flows whose data packets this classifier takes (forward direction)
    let metered = listed.iter().map(|&i| &spec.flows[i]).filter(|f| {
        let proto = match f.app {
            AppSpec::Cbr(_) => crate::net::packet::proto::UDP,
            AppSpec::Tcp(_) => crate::net::packet::proto::TCP,
            AppSpec::Tfrc(_) => crate::net::packet::proto::DCCP,
        };
        k.src.is_none_or(|s| s == f.src)
            && k.dst.is_none_or(|d| d == f.dst)
            && k.protocol.is_none_or(|p| p == proto)
            && (k.dscp.is_empty() || k.dscp.contains(&f.dscp))
    });
    metered
        .map(|f| (packet_sizes(&f.app).0, f.name.as_str()))
        .filter(|&(size, _)| u64::from(size) > depth)
        .max_by_key(|&(size, _)| size)
}

/// The byte limit a packet of code point `dscp` meets in queue `q`, if it is in bytes.
fn byte_limit(q: &QueueSpec, dscp: u8) -> Option<u64> {
    let limit = match q {
        QueueSpec::DropTail { limit } => *limit,
        QueueSpec::Red(p) => p.common.limit,
        QueueSpec::Rio(p, _) => p.common.limit,
        QueueSpec::Wred(p, _) => p.common.limit,
        // the SIMA core node's buffer of the packet's service class (RT or NRT)
        QueueSpec::Sima(p) => match crate::queue::sima::classify(dscp).0 {
            crate::edge::sima::ServiceClass::Rt => Limit::Bytes(p.rt_limit_bytes),
            crate::edge::sima::ServiceClass::Nrt => Limit::Bytes(p.nrt_limit_bytes),
        },
        QueueSpec::Scheduler(s) => {
            let class = s
                .classes
                .iter()
                .find(|c| c.dscp.contains(&dscp))
                .or_else(|| s.classes.iter().find(|c| c.default))?;
            return byte_limit(&class.queue, dscp);
        }
    };
    match limit {
        Limit::Bytes(b) => Some(b),
        Limit::Packets(_) => None,
    }
}

fn small_queues(spec: &Spec, origins: &Origins, tables: &Tables, out: &mut Vec<Fail>) {
    let pairs: Vec<(usize, usize)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
    // per port: the largest packet over its limit, with its flow
    let mut worst: Vec<Option<(u32, &str, u64)>> = vec![None; 2 * spec.links.len()];
    for f in &spec.flows {
        let (data, ack) = packet_sizes(&f.app);
        for (from, to, size) in [(f.src, f.dst, data), (f.dst, f.src, ack)] {
            if size == 0 {
                continue;
            }
            let mut node = from;
            for _ in 0..spec.nodes.len() {
                let port = tables.next_port(node, to);
                if port == NO_ROUTE {
                    break;
                }
                let link = &spec.links[port as usize / 2];
                let q = if port.is_multiple_of(2) {
                    &link.queue_ab
                } else {
                    &link.queue_ba
                };
                if let Some(limit) = byte_limit(q, f.dscp) {
                    let slot = &mut worst[port as usize];
                    if u64::from(size) > limit && slot.is_none_or(|(s, _, _)| size > s) {
                        *slot = Some((size, &f.name, limit));
                    }
                }
                node = far_end(&pairs, port);
                if node == to {
                    break;
                }
            }
        }
    }
    // a port's name is formatted only for a warning (every port's name on every load was a
    // string a port; issue 28)
    for (port, w) in worst.iter().enumerate() {
        let Some((size, flow, limit)) = w else {
            continue;
        };
        let spot = &origins.links[port / 2].queue_kind[port % 2];
        // the spot is the queue's kind (or the link, for a default queue): name the queue
        let field = spot.field.strip_suffix(".kind").unwrap_or(&spot.field);
        out.push(Fail::new(
            spot.at,
            field,
            format!(
                "queue {}: its limit of {limit} B is less than one {size}-byte packet of flow '{flow}', \
                 which crosses it: every such packet is dropped",
                spec.port_name(port)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::load_str;

    const NET: &str = "[scenario]\nduration = \"1s\"\n\
        [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
        [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";

    fn warnings(extra: &str) -> Vec<String> {
        let s = load_str(&format!("{NET}{extra}"), "w.toml", &[]).unwrap();
        s.warnings.iter().map(|w| w.to_string()).collect()
    }

    const CBR: &str = "[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\nrate = \"100kbps\"\npacket_size = \"1000B\"\n";

    #[test]
    fn a_sound_scenario_has_no_warning() {
        assert!(warnings(CBR).is_empty());
    }

    #[test]
    fn a_flow_starting_at_or_after_the_end_is_warned_about_at_its_start() {
        let w = warnings(&format!("{CBR}start = \"1s\"\n"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "w.toml:18:9: flow[0].start: flow 'f' starts at 1s, not before the run ends (1s)"
            ),
            "{}",
            w[0]
        );
        assert!(warnings(&format!("{CBR}start = \"999ms\"\n")).is_empty());
    }

    #[test]
    fn a_group_member_pushed_past_the_end_by_start_step_points_at_start_step() {
        let w = warnings(&CBR.replace(
            "name = \"f\"\n",
            "name = \"f\"\ncount = 3\nstart_step = \"600ms\"\n",
        ));
        assert_eq!(w.len(), 1, "flow f2 starts at 1.2 s: {w:?}");
        assert!(
            w[0].contains("flow[0].start_step: flow 'f2' starts at 1200ms"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn a_token_bucket_shallower_than_a_packet_is_warned_about() {
        let cond = "[[conditioner]]\nname = \"m\"\nat = \"b\"\nfrom = \"a\"\n\
                    meter = { kind = \"token_bucket\", rate = \"50kbps\", depth = \"DEPTH\" }\nyellow = \"best_effort\"\n";
        let w = warnings(&format!("{CBR}{}", cond.replace("DEPTH", "999B")));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("conditioner[0].meter.depth: conditioner 'm': the bucket holds 999 B, less than one 1000-byte packet of flow 'f'"), "{}", w[0]);
        assert!(warnings(&format!("{CBR}{}", cond.replace("DEPTH", "1000B"))).is_empty());
    }

    #[test]
    fn a_byte_limit_below_a_crossing_packet_is_warned_about_at_the_queue() {
        let small = NET.replace(
            "delay = \"1ms\"\n",
            "delay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"999B\" }\n",
        );
        let s = load_str(&format!("{small}{CBR}"), "w.toml", &[]).unwrap();
        let w: Vec<String> = s.warnings.iter().map(|w| w.to_string()).collect();
        // a->b carries the CBR packets; b->a (a copy of the queue) carries nothing
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("link[0].queue: queue a->b: its limit of 999 B is less than one 1000-byte packet of flow 'f'"), "{}", w[0]);
        let tcp = "[[flow]]\nname = \"t\"\nfrom = \"a\"\nto = \"b\"\nkind = \"tcp\"\npacket_size = \"500B\"\n";
        let s = load_str(&format!("{small}{tcp}"), "w.toml", &[]).unwrap();
        assert!(
            s.warnings.is_empty(),
            "500-byte segments and 40-byte ACKs fit: {:?}",
            s.warnings
        );
        // the reverse direction's queue, named b->a, refuses the ACKs
        let reverse = NET.replace(
            "delay = \"1ms\"\n",
            "delay = \"1ms\"\nreverse_queue = { kind = \"droptail\", limit = \"39B\" }\n",
        );
        let s = load_str(&format!("{reverse}{tcp}"), "w.toml", &[]).unwrap();
        let w: Vec<String> = s.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains(
                "queue b->a: its limit of 39 B is less than one 40-byte packet of flow 't'"
            ),
            "{}",
            w[0]
        );
    }

    #[test]
    fn a_conditioner_that_polices_by_default_says_so_once_per_table() {
        let cond = "[[conditioner]]\nname = \"m\"\nat = \"b\"\nfrom = \"a\"\n\
                    meter = { kind = \"trtcm\", cir = \"50kbps\", cbs = \"2KB\", pir = \"100kbps\", pbs = \"2KB\" }\ngreen = \"AF11\"\n";
        let w = warnings(&format!("{CBR}{cond}"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("conditioner[0].yellow: conditioner 'm' polices by default: its yellow packets are sent as best effort and its red packets are dropped (no action written)"),
            "{}",
            w[0]
        );
        let w = warnings(&format!("{CBR}{cond}yellow = \"AF12\"\n"));
        assert!(w[0].contains("conditioner[0].red: conditioner 'm' polices by default: its red packets are dropped"), "{w:?}");
        let explicit = format!("{CBR}{cond}yellow = \"best_effort\"\nred = \"drop\"\n");
        assert!(warnings(&explicit).is_empty());
        // A two-colour meter never produces red: only yellow is named.
        let tb = "[[conditioner]]\nname = \"t\"\nat = \"b\"\nfrom = \"a\"\n\
                  meter = { kind = \"token_bucket\", rate = \"50kbps\", depth = \"2KB\" }\n";
        let w = warnings(&format!("{CBR}{tb}"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("its yellow packets are sent as best effort (no action"),
            "{}",
            w[0]
        );
    }
}
