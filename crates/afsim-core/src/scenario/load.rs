//! The scenario loader: a TOML file (plus `--set` overrides) in, a checked `Spec` out.
//!
//! Read this first: the format is documented for users in docs/scenario-format.md; this module
//! implements exactly that page. Loading runs in stages, and the first stage that finds a
//! problem reports it — one error, pointing at the file, line, column and field:
//!
//! 1. TOML syntax (toml_edit's own error position);
//! 2. `[params]` and the `--set` overrides (`params`);
//! 3. every table and field on its own, with parameters substituted: unknown tables and
//!    fields, types, units, ranges (`raw`, with `flow`, `queue`, `diffserv` and `conditioner`
//!    for those tables), and each model's own `validate()` — TCP, RED/RIO/WRED, meters,
//!    actions — whose error is reported at the field it names (`value::Spots`); of several
//!    bad records, the earliest in the file; then the stop condition, then parameters nobody
//!    used;
//! 4. everything that relates tables: names, groups, links, routes, flows, reachability
//!    (`resolve`), again earliest first where records are independent; conditioners
//!    (`conditioner::expand`), since they refer to links and flows, and then congestion
//!    signalling algorithms (`csa::expand_csa`), which refer to conditioners and to a
//!    RIO queue;
//! 5. `Spec::check`, which cannot fail on what the stages above accept.
//!
//! Then, on a spec that loaded, `warn` looks for settings that are valid but surely not meant
//! (`Spec::warnings`); they never stop a load.
//!
//! Not done here: anything a world builder decides (ports, agents, random streams). The
//! loader never panics on any input; tests/loader_fuzz.rs holds it to that.

mod conditioner;
mod csa;
mod curve;
mod diffserv;
mod expr;
mod flow;
mod link;
mod meter;
mod names;
mod params;
mod queue;
mod raw;
mod resolve;
mod source;
mod table;
mod value;
mod warn;

use super::{ScenarioError, Spec};
use source::{Fail, Source};
use std::path::Path;
use toml_edit::ImDocument;

/// Loads a scenario from its text. `file` names it in errors and gives the default scenario
/// name: "dir/dumbbell.toml" → "dumbbell", "<builtin:dumbbell>" → "dumbbell".
/// `overrides` are `--set name=value` pairs, applied in order.
pub fn load_str(
    text: &str,
    file: &str,
    overrides: &[(String, String)],
) -> Result<Spec, ScenarioError> {
    let src = Source::new(file, text);
    load(&src, overrides).map_err(|f| src.error(f))
}

/// Reads and loads a scenario file. A file that cannot be read is an error with line and
/// column 0 and the system's message; a file that is not UTF-8 points at its first bad byte.
pub fn load_file(path: &Path, overrides: &[(String, String)]) -> Result<Spec, ScenarioError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ScenarioError::read(&file, e.to_string()))?;
    match String::from_utf8(bytes) {
        Ok(text) => load_str(&text, &file, overrides),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let text = std::str::from_utf8(&bytes[..valid]).expect("valid_up_to is valid");
            let src = Source::new(&file, text);
            Err(src.error(Fail::new(
                valid,
                "",
                "the file is not valid UTF-8 text (TOML files must be UTF-8)",
            )))
        }
    }
}

fn load(src: &Source, overrides: &[(String, String)]) -> Result<Spec, Fail> {
    let doc = ImDocument::parse(src.text).map_err(|e| {
        let message = e.message().trim().replace('\n', "; ");
        let message = if message.is_empty() {
            "invalid TOML".to_string()
        } else {
            format!("invalid TOML: {message}")
        };
        Fail::new(e.span().map_or(0, |s| s.start), "", message)
    })?;
    let root = doc.as_table();
    let params = params::Params::read(root, overrides)?;
    let raw = raw::read(root, &params)?;
    params.check_all_used()?;
    resolve::build(raw, src, &default_name(src.file))
}

/// The scenario name a file gives when `[scenario] name` is absent: its stem.
fn default_name(file: &str) -> String {
    let base = match file.strip_prefix('<').and_then(|f| f.strip_suffix('>')) {
        // "<builtin:dumbbell.toml>" → "dumbbell.toml"
        Some(inner) => inner.rsplit(':').next().unwrap_or(inner),
        None => file.rsplit(['/', '\\']).next().unwrap_or(file),
    };
    let stem = base.strip_suffix(".toml").unwrap_or(base);
    if stem.is_empty() {
        "scenario".to_string()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::spec::{AppSpec, Framing, Limit, QueueSpec};
    use crate::sim::time::{SimDuration, SimTime};

    fn load(text: &str) -> Result<Spec, ScenarioError> {
        load_str(text, "t.toml", &[])
    }

    fn load_set(text: &str, set: &[(&str, &str)]) -> Result<Spec, ScenarioError> {
        let ov: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load_str(text, "t.toml", &ov)
    }

    const DUMBBELL: &str = r#"
[scenario]
duration = "20s"
warmup = "2s"

[params]
n = 3
access = "2Mbps"

[[node]]
name = "src"
count = "$n"
[[node]]
name = "r1"
[[node]]
name = "r2"
[[node]]
name = "dst"
count = "$n"

[[link]]
between = ["src", "r1"]
rate = "$access"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "1.5Mbps"
delay = "10ms"
framing = "aal5_llc"
queue = { kind = "droptail", limit = "20pkt" }
reverse_queue = { limit = "64KiB" }
[[link]]
between = ["r2", "dst"]
rate = "$access"
delay = "1ms"

[[flow]]
name = "af"
from = "src"
to = "dst"
kind = "cbr"
rate = "500kbps"
packet_size = "576B"
start_step = "10ms"
"#;

    #[test]
    fn a_dumbbell_expands_groups_in_place_and_in_order() {
        let s = load(DUMBBELL).unwrap();
        let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            ["src0", "src1", "src2", "r1", "r2", "dst0", "dst1", "dst2"]
        );
        assert_eq!(s.links.len(), 7);
        assert_eq!((s.links[0].a, s.links[0].b), (0, 3));
        assert_eq!((s.links[2].a, s.links[2].b), (2, 3));
        assert_eq!((s.links[4].a, s.links[4].b), (4, 5));
        assert_eq!(s.links[0].rate_bps, 2_000_000);
        assert_eq!(s.links[3].framing, Framing::Aal5 { llc_snap: true });
        assert_eq!(
            *s.links[3].queue_ab,
            QueueSpec::DropTail {
                limit: Limit::Packets(20)
            }
        );
        assert_eq!(
            *s.links[3].queue_ba,
            QueueSpec::DropTail {
                limit: Limit::Bytes(65_536)
            }
        );
        assert_eq!(s.name, "t");
        assert_eq!(s.seed, 1);
        assert_eq!(s.stop.duration, Some(SimDuration::from_secs(20)));
        assert_eq!(s.warmup, SimDuration::from_secs(2));
    }

    #[test]
    fn flows_between_groups_pair_members_and_stagger_their_starts() {
        let s = load(DUMBBELL).unwrap();
        let f: Vec<(&str, &str, usize, usize)> = s
            .flows
            .iter()
            .map(|f| (f.name.as_str(), &*f.group, f.src, f.dst))
            .collect();
        assert_eq!(
            f,
            [
                ("af0", "af", 0, 5),
                ("af1", "af", 1, 6),
                ("af2", "af", 2, 7)
            ]
        );
        let AppSpec::Cbr(c) = &s.flows[2].app else {
            panic!("a cbr flow")
        };
        assert_eq!(c.start, SimTime::from_nanos(20_000_000));
        assert_eq!(c.rate_bps, 500_000);
        assert_eq!(c.packet_size, 576);
        assert_eq!((c.stop, c.max_packets, c.jitter), (None, None, false));
    }

    #[test]
    fn overrides_change_group_sizes() {
        let s = load_set(DUMBBELL, &[("n", "1")]).unwrap();
        assert_eq!(s.nodes.len(), 4);
        assert_eq!(s.nodes[0].name, "src0"); // a group is suffixed even with one member
        assert_eq!(s.flows[0].name, "af0");
        let s = load_set(DUMBBELL, &[("n", "0")]).unwrap();
        assert_eq!((s.nodes.len(), s.links.len(), s.flows.len()), (2, 1, 0));
    }

    #[test]
    fn a_single_flow_keeps_its_name_and_count_makes_copies() {
        let base = "[scenario]\nuntil_transfers_complete = true\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
                    [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"0ms\"\n\
                    [[flow]]\nname = \"x\"\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = \"1000B\"\npackets = 10\n";
        let s = load(base).unwrap();
        assert_eq!(s.flows.len(), 1);
        assert_eq!((s.flows[0].name.as_str(), &*s.flows[0].group), ("x", "x"));
        assert!(s.stop.transfers_complete);
        let s = load(&format!("{base}count = 3\n")).unwrap();
        let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["x0", "x1", "x2"]);
        assert!(s.flows.iter().all(|f| (f.src, f.dst) == (0, 1)));
    }

    #[test]
    fn the_default_name_is_the_file_stem() {
        assert_eq!(default_name("x.toml"), "x");
        assert_eq!(default_name("scenarios/giacomazzi/fig3.toml"), "fig3");
        assert_eq!(default_name("C:\\s\\fig3.toml"), "fig3");
        assert_eq!(default_name("<builtin:dumbbell.toml>"), "dumbbell");
        assert_eq!(default_name("<builtin:dumbbell>"), "dumbbell");
        assert_eq!(default_name("noext"), "noext");
        assert_eq!(default_name(""), "scenario");
        assert_eq!(default_name("<stdin>"), "stdin");
    }

    #[test]
    fn the_scenario_table_name_wins_over_the_file_stem() {
        let s = load(&DUMBBELL.replace("[scenario]\n", "[scenario]\nname = \"db\"\n")).unwrap();
        assert_eq!(s.name, "db");
    }

    #[test]
    fn syntax_errors_carry_toml_edits_position() {
        let e = load("[scenario]\nduration = \"20s\nseed = 1\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, ""));
        assert!(e.message.starts_with("invalid TOML"), "{}", e.message);
        let e = load("a = ").unwrap_err();
        assert_eq!((e.line, e.column), (1, 5));
    }

    #[test]
    fn a_missing_file_is_a_read_error_at_line_zero() {
        let e = load_file(Path::new("/nonexistent/afsim/x.toml"), &[]).unwrap_err();
        assert_eq!((e.line, e.column), (0, 0));
        assert_eq!(e.file, "/nonexistent/afsim/x.toml");
        assert!(!e.message.is_empty());
    }

    #[test]
    fn a_file_that_is_not_utf8_points_at_the_first_bad_byte() {
        let dir = std::env::temp_dir().join(format!("afsim-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("bad.toml");
        std::fs::write(&p, b"[scenario]\nname = \"a\xffb\"\n").unwrap();
        let e = load_file(&p, &[]).unwrap_err();
        assert_eq!((e.line, e.column), (2, 10));
        assert!(e.message.contains("UTF-8"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn load_file_names_the_scenario_after_the_file() {
        let dir = std::env::temp_dir().join(format!("afsim-load-ok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("dumbbell.toml");
        std::fs::write(&p, DUMBBELL).unwrap();
        assert_eq!(load_file(&p, &[]).unwrap().name, "dumbbell");
        std::fs::remove_dir_all(&dir).ok();
    }
}
