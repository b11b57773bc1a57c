//! One bad scenario per kind of error, each asserting the line, column and field the error
//! points at and a fragment of its message; plus the corpus: every valid file loads, every
//! `invalid_*` file fails with a located error.
//!
//! Positions are given by a `needle`: the expected line and column are those of the needle's
//! first character (the `nth` occurrence when it repeats), so a test reads as "the error points
//! at *this* text".

use afsim_core::scenario::spec::{AppSpec, Framing, Limit, QueueSpec};
use afsim_core::{load_file, load_str, ScenarioError, SimDuration, SimTime};
use std::path::{Path, PathBuf};

fn load(text: &str) -> Result<afsim_core::Spec, ScenarioError> {
    load_str(text, "bad.toml", &[])
}

fn error(text: &str) -> ScenarioError {
    match load(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// 1-based line and column of the `nth` (0-based) occurrence of `needle` in `text`.
fn pos(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("needle {needle:?} #{nth} not in text"))
        .0;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line, col)
}

/// Asserts that `text` fails at the `nth` occurrence of `needle`, in `field`, with a message
/// containing `fragment`.
#[track_caller]
fn expect(text: &str, needle: &str, nth: usize, field: &str, fragment: &str) {
    let e = error(text);
    let (line, column) = pos(text, needle, nth);
    assert_eq!(
        (e.line, e.column, e.field.as_str()),
        (line, column, field),
        "wrong place for: {e}\n--- text ---\n{text}"
    );
    assert!(
        e.message.contains(fragment),
        "message {:?} lacks {fragment:?}",
        e.message
    );
    assert_eq!(e.file, "bad.toml");
    assert!(
        e.to_string()
            .starts_with(&format!("bad.toml:{line}:{column}: ")),
        "{e}"
    );
}

/// Two single nodes and a group of two, linked to r: a valid base to break.
const BASE: &str = r#"[scenario]
duration = "10s"

[[node]]
name = "r"
[[node]]
name = "a"
[[node]]
name = "g"
count = 2

[[link]]
between = ["g", "r"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["a", "r"]
rate = "10Mbps"
delay = "1ms"
"#;

fn with(extra: &str) -> String {
    format!("{BASE}{extra}")
}

const FLOW: &str = r#"
[[flow]]
name = "f"
from = "a"
to = "r"
kind = "cbr"
rate = "1Mbps"
packet_size = "500B"
"#;

// ---- the corpus ----------------------------------------------------------------------------

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_valid_corpus_file_loads_and_every_invalid_one_fails_with_a_position() {
    let files = corpus();
    assert!(files.len() >= 8, "corpus too small: {files:?}");
    for p in files {
        let invalid = p
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("invalid_");
        match load_file(&p, &[]) {
            Ok(spec) => {
                assert!(!invalid, "{} should fail", p.display());
                assert!(spec.check().is_ok());
            }
            Err(e) => {
                assert!(invalid, "{} failed: {e}", p.display());
                assert!(e.line >= 1 && e.column >= 1, "{e}");
            }
        }
    }
}

#[test]
fn the_corpus_dumbbell_resolves_params_groups_and_flows() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/dumbbell.toml");
    let s = load_file(&p, &[]).unwrap();
    assert_eq!(s.name, "dumbbell");
    assert_eq!(s.seed, 7);
    assert_eq!(s.nodes.len(), 10);
    assert_eq!(s.links.len(), 9);
    assert_eq!(s.links[4].delay, SimDuration::from_millis(5));
    assert_eq!(
        *s.links[4].queue_ba,
        QueueSpec::DropTail {
            limit: Limit::Bytes(100_000)
        }
    );
    assert_eq!(s.flows.len(), 4);
    let AppSpec::Cbr(c) = &s.flows[3].app else {
        panic!("a cbr flow")
    };
    assert_eq!(c.start, SimTime::from_nanos(30_000_000));
    assert_eq!(c.stop, Some(SimTime::from_nanos(18_000_000_000)));
    assert!(c.jitter);
    let s = load_file(
        &p,
        &[("n_af".into(), "10".into()), ("t".into(), "1min".into())],
    )
    .unwrap();
    assert_eq!(s.flows.len(), 10);
    assert_eq!(s.stop.duration, Some(SimDuration::from_secs(60)));
}

#[test]
fn the_corpus_framing_file_covers_every_framing() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/framing.toml");
    let s = load_file(&p, &[]).unwrap();
    let f: Vec<Framing> = s.links.iter().map(|l| l.framing).collect();
    assert_eq!(
        f,
        [
            Framing::Plain,
            Framing::Fixed { overhead_bytes: 8 },
            Framing::AtmCellTax,
            Framing::Aal5 { llc_snap: false },
            Framing::Aal5 { llc_snap: true },
            Framing::Fixed { overhead_bytes: 12 },
        ]
    );
    assert_eq!(s.links[3].rate_bps, 155_520_000);
    assert_eq!(s.links[5].delay, SimDuration::from_nanos(500));
}

#[test]
fn the_corpus_routes_file_keeps_routes_in_order() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/routes.toml");
    let s = load_file(&p, &[]).unwrap();
    // src0 src1 r1 r2 r3 dst0 dst1
    assert_eq!(s.routes[0].path, [0, 2, 4, 3, 5]);
    assert_eq!(s.routes[1].path, [2, 4, 3, 6]);
    assert_eq!(s.stop.max_packets, Some(1_000_000));
}

#[test]
fn the_complete_examples_in_the_format_documentation_load() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario-format.md");
    let doc = std::fs::read_to_string(doc).unwrap();
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.contains("[scenario]"))
        .collect();
    assert!(blocks.len() >= 2, "no complete examples found");
    for b in blocks {
        if let Err(e) = load_str(b, "doc.toml", &[]) {
            panic!("documented example fails: {e}\n{b}");
        }
    }
    let first = doc
        .split("```toml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let set = [
        ("n_af".to_string(), "10".to_string()),
        ("t".to_string(), "1min".to_string()),
    ];
    let s = load_str(first, "dumbbell.toml", &set).unwrap();
    assert_eq!(
        (s.flows.len(), s.stop.duration),
        (10, Some(SimDuration::from_secs(60)))
    );
}

// ---- TOML and structure --------------------------------------------------------------------

#[test]
fn toml_syntax_errors_point_where_the_parser_stopped() {
    let text = "[scenario]\nduration = \"10s\"\nseed = = 3\n";
    expect(text, "= 3", 0, "", "invalid TOML");
}

#[test]
fn a_duplicate_toml_key_is_a_syntax_error() {
    let text = "[scenario]\nduration = \"10s\"\nduration = \"5s\"\n";
    expect(text, "duration", 1, "", "duplicate key");
}

#[test]
fn an_unknown_field_is_reported_at_its_key_with_the_valid_fields() {
    let text = with("[[link]]\nbetween = [\"a\", \"g0\"]\nrat = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(
        &text,
        "rat =",
        0,
        "link[2].rat",
        "unknown field 'rat' in [[link]] (did you mean 'rate'?)",
    );
    let e = error(&text);
    assert!(
        e.message.contains(
            "the fields are: between, pairing, rate, delay, framing, queue, reverse_queue"
        ),
        "{e}"
    );
}

#[test]
fn an_unknown_field_in_an_inline_table_has_the_full_path() {
    let text = BASE.replace(
        "delay = \"1ms\"\n[[link]]",
        "delay = \"1ms\"\nqueue = { kind = \"droptail\", size = \"5p\" }\n[[link]]",
    );
    expect(
        &text,
        "size",
        0,
        "link[0].queue.size",
        "unknown field 'size' in queue",
    );
}

#[test]
fn an_unknown_top_level_table_is_an_error() {
    let text = with("[[nodes]]\nname = \"x\"\n");
    expect(
        &text,
        "nodes",
        0,
        "nodes",
        "unknown table 'nodes' (did you mean [[node]]?)",
    );
}

#[test]
fn a_table_where_an_array_of_tables_belongs_is_a_wrong_type() {
    let text = "[scenario]\nduration = \"1s\"\n[node]\nname = \"x\"\n";
    expect(
        text,
        "[node]",
        0,
        "node",
        "write [[node]], with double brackets",
    );
}

#[test]
fn a_missing_required_field_points_at_its_table() {
    let text = with("[[link]]\nbetween = [\"a\", \"g0\"]\ndelay = \"1ms\"\n");
    expect(
        &text,
        "[[link]]",
        2,
        "link[2].rate",
        "[[link]] lacks the required field 'rate'",
    );
    let text = with("[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"r\"\nrate = \"1Mbps\"\npacket_size = \"1B\"\n");
    expect(
        &text,
        "[[flow]]",
        0,
        "flow[0].kind",
        "lacks the required field 'kind'",
    );
    let text = with("[[node]]\ncount = 3\n");
    expect(
        &text,
        "[[node]]",
        3,
        "node[3].name",
        "lacks the required field 'name'",
    );
}

// ---- types and units -----------------------------------------------------------------------

#[test]
fn a_value_of_the_wrong_type_says_what_was_expected() {
    let text = BASE.replace("count = 2", "count = \"two\"");
    expect(
        &text,
        "\"two\"",
        0,
        "node[2].count",
        "expected a non-negative integer, found the string \"two\"",
    );
    let text = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nseed = 1.5");
    expect(
        &text,
        "1.5",
        0,
        "scenario.seed",
        "expected a non-negative integer, found the float 1.5",
    );
    let text = format!("{}jitter = \"yes\"\n", with(FLOW));
    expect(
        &text,
        "\"yes\"",
        0,
        "flow[0].jitter",
        "expected true or false",
    );
}

#[test]
fn a_rate_without_a_unit_is_an_error() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"10\"", 1);
    expect(
        &text,
        "\"10\"",
        0,
        "link[0].rate",
        "expected a rate with a unit, like '10Mbps'",
    );
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = 10", 1);
    expect(
        &text,
        "10\n",
        0,
        "link[0].rate",
        "expected a rate with a unit, like '10Mbps'",
    );
}

#[test]
fn a_byte_rate_asks_for_bits() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"10MBps\"", 2);
    expect(
        &text,
        "\"10MBps\"",
        0,
        "link[0].rate",
        "rates are written in bits per second",
    );
}

#[test]
fn an_unknown_unit_lists_the_units() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1 fortnight\"", 1);
    expect(
        &text,
        "\"1 fortnight\"",
        0,
        "link[0].delay",
        "unknown time unit 'fortnight'; the units are ns, us",
    );
}

#[test]
fn a_sub_nanosecond_time_is_rejected() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"0.5ns\"", 2);
    expect(
        &text,
        "\"0.5ns\"",
        0,
        "link[0].delay",
        "not a whole number of nanoseconds",
    );
}

// ---- impossible values ---------------------------------------------------------------------

#[test]
fn a_zero_rate_is_impossible() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"0Mbps\"", 2);
    expect(&text, "\"0Mbps\"", 0, "link[0].rate", "at least 1bps");
    let text = format!("{BASE}{}", FLOW.replace("\"1Mbps\"", "\"0bps\""));
    expect(&text, "\"0bps\"", 0, "flow[0].rate", "at least 1bps");
}

#[test]
fn a_negative_rate_is_impossible() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"-10Mbps\"", 1);
    expect(
        &text,
        "\"-10Mbps\"",
        0,
        "link[0].rate",
        "cannot be negative",
    );
}

#[test]
fn packet_sizes_must_be_1_to_65535_bytes() {
    let text = format!("{BASE}{}", FLOW.replace("\"500B\"", "\"0B\""));
    expect(&text, "\"0B\"", 0, "flow[0].packet_size", "at least 1B");
    let text = format!("{BASE}{}", FLOW.replace("\"500B\"", "\"64KiB\""));
    expect(
        &text,
        "\"64KiB\"",
        0,
        "flow[0].packet_size",
        "at most 65535B",
    );
}

#[test]
fn warmup_must_end_before_duration() {
    let text = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"10s\"");
    expect(
        &text,
        "\"10s\"",
        1,
        "scenario.warmup",
        "warmup (10s) must be shorter than duration (10s)",
    );
}

#[test]
fn stop_must_come_after_start() {
    let text = format!("{}start = \"5s\"\nstop = \"5s\"\n", with(FLOW));
    expect(
        &text,
        "\"5s\"",
        1,
        "flow[0].stop",
        "stop (5s) must be after start (5s)",
    );
}

#[test]
fn a_staggered_flow_that_would_start_after_its_stop_is_rejected() {
    let text = format!(
        "{BASE}{}count = 3\nstart_step = \"2s\"\nstop = \"3s\"\n",
        FLOW
    );
    expect(
        &text,
        "\"3s\"",
        0,
        "flow[0].stop",
        "flow 'f2' would start at 4s",
    );
}

#[test]
fn counts_must_be_non_negative_integers() {
    let text = BASE.replace("count = 2", "count = -1");
    expect(
        &text,
        "-1",
        0,
        "node[2].count",
        "expected a non-negative integer, found -1",
    );
    let text = format!("{}count = 2.0\n", with(FLOW));
    expect(&text, "2.0", 0, "flow[0].count", "found the float 2.0");
}

#[test]
fn a_zero_queue_limit_is_impossible() {
    let text = BASE.replacen(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nreverse_queue = { limit = \"0pkt\" }",
        1,
    );
    expect(
        &text,
        "\"0pkt\"",
        0,
        "link[0].reverse_queue.limit",
        "at least 1 packet",
    );
}

#[test]
fn a_scenario_needs_a_stop_condition() {
    let text = BASE.replace("duration = \"10s\"", "seed = 2");
    expect(&text, "[scenario]", 0, "scenario", "no stop condition");
    let text = "[[node]]\nname = \"a\"\n";
    expect(text, "[[node]]", 0, "scenario", "no stop condition");
}

#[test]
fn waiting_for_transfers_needs_a_finite_transfer() {
    let text = with(FLOW).replace("duration = \"10s\"", "until_transfers_complete = true");
    expect(
        &text,
        "true",
        0,
        "scenario.until_transfers_complete",
        "no flow is a finite transfer",
    );
}

#[test]
fn too_many_nodes_is_an_error_before_anything_is_allocated() {
    let text = BASE.replace("count = 2", "count = 1_000_000_000");
    expect(
        &text,
        "1_000_000_000",
        0,
        "node[2].count",
        "at most 16777216 nodes",
    );
    let text = with("[[node]]\nname = \"h\"\ncount = 16_777_213\n");
    expect(
        &text,
        "16_777_213",
        0,
        "node[3].count",
        "this group would make 16777217",
    );
}

// ---- choices -------------------------------------------------------------------------------

#[test]
fn an_unknown_flow_kind_lists_the_known_kinds() {
    let text = with(&FLOW.replace("\"cbr\"", "\"dccp\""));
    expect(
        &text,
        "\"dccp\"",
        0,
        "flow[0].kind",
        "unknown flow kind 'dccp'; the flow kinds are: cbr, tcp, tfrc",
    );
}

#[test]
fn an_unknown_framing_lists_the_framings() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nframing = \"atm\"", 1);
    expect(
        &text,
        "\"atm\"",
        0,
        "link[0].framing",
        "the framings are: plain, ppp, atm_cell_tax, aal5, aal5_llc",
    );
    let text = BASE.replacen(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nframing = { kind = \"fixed\" }",
        1,
    );
    expect(
        &text,
        "{ kind",
        0,
        "link[0].framing.overhead",
        "framing lacks the required field 'overhead'",
    );
}

#[test]
fn an_unknown_queue_kind_lists_the_kinds() {
    let text = BASE.replacen(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nqueue = { kind = \"codel\" }",
        1,
    );
    expect(
        &text,
        "\"codel\"",
        0,
        "link[0].queue.kind",
        "unknown queue kind 'codel'; the queue kinds are: droptail, red, rio, wred",
    );
}

// ---- names ---------------------------------------------------------------------------------

#[test]
fn an_unknown_node_in_a_link_is_an_error() {
    let text = with("[[node]]\nname = \"router\"\n[[link]]\nbetween = [\"a\", \"routr\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(
        &text,
        "\"routr\"",
        0,
        "link[2].between[1]",
        "unknown node or group 'routr' (did you mean 'router'?)",
    );
}

#[test]
fn an_unknown_node_in_a_flow_is_an_error() {
    let text = with(&FLOW.replace("from = \"a\"", "from = \"b\""));
    expect(
        &text,
        "\"b\"",
        0,
        "flow[0].from",
        "unknown node or group 'b'",
    );
}

#[test]
fn an_unknown_node_in_a_route_is_an_error() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"g7\"]\n");
    expect(&text, "\"g7\"", 0, "route[0].path[2]", "unknown node 'g7'");
}

#[test]
fn a_group_in_a_route_is_an_error() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"g\"]\n");
    expect(
        &text,
        "\"g\"",
        2,
        "route[0].path[2]",
        "a route names single nodes, like 'g0'",
    );
}

#[test]
fn a_link_from_a_node_to_itself_is_an_error() {
    let text = with("[[link]]\nbetween = [\"a\", \"a\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(
        &text,
        "\"a\"",
        3,
        "link[2].between[1]",
        "a link cannot join 'a' to itself",
    );
    let text = with("[[link]]\nbetween = [\"g\", \"g\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(
        &text,
        "\"g\"]",
        0,
        "link[2].between[1]",
        "a link cannot join 'g0' to itself",
    );
}

#[test]
fn linking_groups_of_different_sizes_is_an_error() {
    let text = with("[[node]]\nname = \"h\"\ncount = 3\n[[link]]\nbetween = [\"g\", \"h\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(
        &text,
        "[\"g\", \"h\"]",
        0,
        "link[2].between",
        "'g' is a group of 2 nodes and 'h' a group of 3",
    );
}

#[test]
fn a_flow_between_groups_of_different_sizes_is_an_error() {
    let text = with(&format!(
        "[[node]]\nname = \"h\"\ncount = 3\n[[link]]\nbetween = [\"h\", \"r\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n{}",
        FLOW.replace("from = \"a\"", "from = \"g\"").replace("to = \"r\"", "to = \"h\"")
    ));
    expect(
        &text,
        "\"h\"\nkind",
        0,
        "flow[0].to",
        "must be the same size",
    );
}

#[test]
fn a_flow_to_itself_is_an_error() {
    let text = with(&FLOW.replace("to = \"r\"", "to = \"a\""));
    expect(
        &text,
        "\"a\"\nkind",
        0,
        "flow[0].to",
        "a flow cannot go from 'a' to itself",
    );
}

#[test]
fn duplicate_node_names_are_an_error_at_the_second() {
    let text = with("[[node]]\nname = \"a\"\n");
    expect(
        &text,
        "\"a\"",
        2,
        "node[3].name",
        "the name 'a' is already taken by node 'a' (node[1], line 7)",
    );
}

#[test]
fn a_group_member_colliding_with_an_earlier_node_is_an_error() {
    let text = "[scenario]\nduration = \"1s\"\n[[node]]\nname = \"src1\"\n[[node]]\nname = \"src\"\ncount = 2\n";
    expect(text, "\"src\"", 0, "node[1].name", "group 'src' names its member 1 'src1', but that name is already taken by node 'src1' (node[0], line 4)");
}

#[test]
fn a_node_colliding_with_an_earlier_group_member_is_an_error() {
    let text = with("[[node]]\nname = \"g1\"\n");
    expect(
        &text,
        "\"g1\"",
        0,
        "node[3].name",
        "already taken by node 'g1' of group 'g' (node[2], line 9)",
    );
}

#[test]
fn a_node_named_like_a_group_is_an_error() {
    let text = with("[[node]]\nname = \"g\"\n");
    expect(
        &text,
        "\"g\"\n",
        1,
        "node[3].name",
        "already taken by group 'g'",
    );
}

#[test]
fn duplicate_flow_names_are_an_error() {
    let text = format!("{BASE}{FLOW}{FLOW}");
    expect(
        &text,
        "\"f\"",
        1,
        "flow[1].name",
        "the flow name 'f' is already taken by flow 'f' (flow[0], line 22)",
    );
}

#[test]
fn a_flow_group_member_colliding_with_a_flow_is_an_error() {
    let text = format!(
        "{BASE}{}{}count = 2\n",
        FLOW.replace("\"f\"", "\"f1\""),
        FLOW
    );
    expect(
        &text,
        "\"f\"",
        0,
        "flow[1].name",
        "group 'f' names its flow 'f1', but the flow name 'f1' is already taken",
    );
}

#[test]
fn an_invalid_name_is_an_error() {
    let text = BASE.replace("name = \"a\"", "name = \"1a\"");
    expect(
        &text,
        "\"1a\"",
        0,
        "node[1].name",
        "\"1a\" is not a valid name",
    );
}

// ---- routes and reachability ---------------------------------------------------------------

#[test]
fn an_unreachable_destination_is_an_error() {
    let text = with(&format!(
        "[[node]]\nname = \"lone\"\n{}",
        FLOW.replace("to = \"r\"", "to = \"lone\"")
    ));
    expect(
        &text,
        "\"lone\"",
        1,
        "flow[0].to",
        "'lone' cannot be reached from 'a'",
    );
}

#[test]
fn a_route_between_unlinked_nodes_is_not_adjacent() {
    let text = with("[[route]]\npath = [\"a\", \"g0\"]\n");
    expect(
        &text,
        "\"g0\"",
        0,
        "route[0].path[1]",
        "no link joins 'a' and 'g0'",
    );
}

#[test]
fn a_route_of_one_node_is_too_short() {
    let text = with("[[route]]\npath = [\"a\"]\n");
    expect(
        &text,
        "[\"a\"]",
        0,
        "route[0].path",
        "at least two nodes, found 1",
    );
}

#[test]
fn a_route_that_visits_a_node_twice_is_a_loop() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"a\", \"r\"]\n");
    expect(
        &text,
        "\"a\"",
        3,
        "route[0].path[2]",
        "'a' appears twice in this path",
    );
}

// ---- parameters ----------------------------------------------------------------------------

#[test]
fn an_undefined_parameter_is_an_error_at_the_reference() {
    let text = format!(
        "[params]\nrate = \"1Mbps\"\n{}",
        BASE.replacen("\"10Mbps\"", "\"$rat\"", 1)
    )
    .replace("\"10Mbps\"", "\"$rate\"");
    expect(
        &text,
        "\"$rat\"",
        0,
        "link[0].rate",
        "undefined parameter 'rat' (did you mean 'rate'?)",
    );
}

#[test]
fn an_undefined_parameter_inside_a_string_is_an_error() {
    let text = BASE.replacen("\"1ms\"", "\"${d}ms\"", 1);
    expect(
        &text,
        "\"${d}ms\"",
        0,
        "link[0].delay",
        "undefined parameter 'd'",
    );
}

#[test]
fn an_unused_parameter_is_an_error_at_its_definition() {
    let text = format!(
        "[params]\nused = 2\nunused = 3\n{}",
        BASE.replace("count = 2", "count = \"$used\"")
    );
    expect(
        &text,
        "3",
        0,
        "params.unused",
        "parameter 'unused' is never used",
    );
}

#[test]
fn a_parameter_of_the_wrong_type_is_reported_at_the_reference_naming_the_parameter() {
    let text = format!(
        "[params]\nn = \"ten\"\n{}",
        BASE.replace("count = 2", "count = \"$n\"")
    );
    expect(
        &text,
        "\"$n\"",
        0,
        "node[2].count",
        "(from parameter 'n' = \"ten\")",
    );
}

#[test]
fn an_override_of_an_unknown_parameter_is_an_error() {
    let text = format!(
        "\n[params]\nn = 2\n{}",
        BASE.replace("count = 2", "count = \"$n\"")
    );
    let e = load_str(&text, "bad.toml", &[("m".into(), "3".into())]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (2, 1, "--set m"));
    assert!(
        e.message
            .contains("unknown parameter 'm'; the parameters are: n"),
        "{e}"
    );
    let e = load_str(BASE, "bad.toml", &[("m".into(), "3".into())]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (1, 1, "--set m"));
}

#[test]
fn an_override_of_the_wrong_type_is_reported_where_it_is_used() {
    let text = format!(
        "[params]\nn = 2\n{}",
        BASE.replace("count = 2", "count = \"$n\"")
    );
    let e = load_str(&text, "bad.toml", &[("n".into(), "many".into())]).unwrap_err();
    assert_eq!(
        (e.line, e.field.as_str()),
        (pos(&text, "\"$n\"", 0).0, "node[2].count")
    );
    assert!(e.message.contains("set with --set n=many"), "{e}");
}

#[test]
fn a_stray_dollar_is_an_error() {
    let text = BASE.replace("name = \"a\"", "name = \"a$\"");
    expect(
        &text,
        "\"a$\"",
        0,
        "node[1].name",
        "\"$$\" for a literal '$'",
    );
}

// ---- files ---------------------------------------------------------------------------------

#[test]
fn an_unreadable_file_is_a_read_error_with_line_zero() {
    let e = load_file(Path::new("/no/such/dir/x.toml"), &[]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (0, 0, ""));
    assert_eq!(e.file, "/no/such/dir/x.toml");
    assert!(
        e.to_string().starts_with("/no/such/dir/x.toml:0:0: "),
        "{e}"
    );
}

#[test]
fn errors_after_multibyte_characters_count_columns_in_characters() {
    let text = "[scenario]\ndescription = \"µµµ\"; duration = 1\n";
    let e = error(text);
    assert_eq!((e.line, e.column), pos(text, ";", 0));
    assert_eq!(e.column, 20);
}

#[test]
fn of_two_bad_records_the_one_earlier_in_the_file_is_reported() {
    let text = with(
        "[[link]]\nbetween = [\"a\", \"g0\"]\nrate = \"1\"\ndelay = \"1ms\"\n[[node]]\nname = 5\n",
    );
    expect(
        &text,
        "\"1\"",
        0,
        "link[2].rate",
        "expected a rate with a unit",
    );
}

// ---- DSCP and TCP flows --------------------------------------------------------------------

const TCP: &str = r#"
[[flow]]
name = "t"
from = "a"
to = "r"
kind = "tcp"
"#;

/// BASE with one TCP flow whose table ends with `extra`.
fn tcp(extra: &str) -> String {
    format!("{}{extra}", with(TCP))
}

#[test]
fn a_flow_dscp_is_a_code_point_name_or_a_six_bit_integer() {
    let text = format!("{}dscp = \"AF14\"\n", with(FLOW));
    expect(
        &text,
        "\"AF14\"",
        0,
        "flow[0].dscp",
        "unknown code point 'AF14' (did you mean 'AF11'?); the code points are BE, CS0",
    );
    let text = tcp("dscp = 64\n");
    expect(
        &text,
        "64",
        0,
        "flow[0].dscp",
        "DSCP 64 is not a 6-bit code point (0..=63)",
    );
    let text = tcp("dscp = true\n");
    expect(
        &text,
        "true",
        0,
        "flow[0].dscp",
        "expected a code point name like \"AF11\" or an integer 0..=63",
    );
}

#[test]
fn a_field_of_the_other_flow_kind_says_whose_field_it_is() {
    let text = tcp("rate = \"1Mbps\"\n");
    expect(
        &text,
        "rate =",
        2,
        "flow[0].rate",
        "'rate' is a field of cbr flows, not of tcp flows; the fields of a tcp flow are: name",
    );
    let text = format!("{}variant = \"sack\"\n", with(FLOW));
    expect(
        &text,
        "variant",
        0,
        "flow[0].variant",
        "'variant' is a field of tcp flows, not of cbr flows",
    );
    let text = format!("{}bytes = \"1MB\"\n", with(FLOW));
    expect(
        &text,
        "bytes",
        0,
        "flow[0].bytes",
        "a cbr transfer is counted in packets: write packets = 1000",
    );
    let text = tcp("colour = 1\n");
    expect(
        &text,
        "colour",
        0,
        "flow[0].colour",
        "unknown field 'colour' in [[flow]]",
    );
}

#[test]
fn a_tcp_flow_has_no_stop_and_no_packets() {
    let text = tcp("stop = \"5s\"\n");
    expect(&text, "stop", 0, "flow[0].stop", "a tcp flow sends until its 'bytes' are delivered, or without 'bytes' until the scenario's duration ends");
    let text = tcp("packets = 10\n");
    expect(
        &text,
        "packets",
        0,
        "flow[0].packets",
        "a tcp transfer is counted in bytes: write bytes = \"1MB\"",
    );
}

#[test]
fn tcp_presets_and_variants_are_choices() {
    let text = tcp("preset = \"linux\"\n");
    expect(
        &text,
        "\"linux\"",
        0,
        "flow[0].preset",
        "unknown preset 'linux'; the presets are: rfc, ns2",
    );
    let text = tcp("variant = \"vegas\"\n");
    expect(
        &text,
        "\"vegas\"",
        0,
        "flow[0].variant",
        "unknown TCP variant 'vegas'; the TCP variants are: reno, newreno, sack",
    );
}

#[test]
fn a_tcp_target_rate_is_a_positive_rate_or_none() {
    let s = load(&tcp("target_rate = \"4Mbps\"\n")).unwrap();
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert_eq!(
        p.target_rate_bps.map(std::num::NonZeroU64::get),
        Some(4_000_000)
    );
    let s = load(&tcp("target_rate = \"none\"\n")).unwrap();
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert_eq!(p.target_rate_bps, None, "\"none\" is plain TCP");
    let text = tcp("target_rate = \"0bps\"\n");
    expect(
        &text,
        "\"0bps\"",
        0,
        "flow[0].target_rate",
        "a rate must be at least 1bps",
    );
    let text = tcp("target_rate = 4\n");
    expect(&text, "4\n", 0, "flow[0].target_rate", "expected a rate");
}

#[test]
fn tcp_parameter_errors_point_at_the_field_validate_names() {
    let text = tcp("packet_size = \"40B\"\n");
    expect(
        &text,
        "\"40B\"",
        0,
        "flow[0].packet_size",
        "a data segment must be 41..=65535 bytes",
    );
    let text = tcp("max_rto = \"2s\"\nmin_rto = \"3s\"\n");
    expect(
        &text,
        "\"3s\"",
        0,
        "flow[0].min_rto",
        "min_rto must not exceed max_rto",
    );
    let text = tcp("dupack_threshold = 0\n");
    expect(
        &text,
        "0\n",
        0,
        "flow[0].dupack_threshold",
        "dupack_threshold must be at least 1",
    );
    let text = tcp("max_window = \"500B\"\n");
    expect(
        &text,
        "\"500B\"",
        0,
        "flow[0].max_window",
        "the window must hold at least one full segment",
    );
}

#[test]
fn a_tcp_parameter_left_at_its_default_is_reported_at_the_flow() {
    // The RFC preset's min_rto is 1 s: a max_rto below it breaks the pair at the unwritten field.
    let text = tcp("max_rto = \"500ms\"\n");
    expect(
        &text,
        "[[flow]]",
        0,
        "flow[0].min_rto",
        "min_rto must not exceed max_rto",
    );
}

#[test]
fn the_delayed_ack_interval_needs_delayed_acks_and_rfc_1122s_bound() {
    let text = tcp("delayed_ack_interval = \"200ms\"\n");
    expect(
        &text,
        "\"200ms\"",
        0,
        "flow[0].delayed_ack_interval",
        "applies only with delayed_ack = true",
    );
    let text = tcp("delayed_ack = true\ndelayed_ack_interval = \"600ms\"\n");
    expect(
        &text,
        "\"600ms\"",
        0,
        "flow[0].delayed_ack_interval",
        "must be in (0, 500 ms] (RFC 1122",
    );
}

#[test]
fn tcp_sizes_and_windows_take_units() {
    let text = tcp("bytes = \"0B\"\n");
    expect(
        &text,
        "\"0B\"",
        0,
        "flow[0].bytes",
        "a transfer must be at least 1B",
    );
    let text = tcp("max_window = 20\n");
    expect(
        &text,
        "20\n",
        0,
        "flow[0].max_window",
        "expected a number of packets or a size, like '20pkt' or '64KB'",
    );
    let text = tcp("initial_window = 4294967296\n");
    expect(
        &text,
        "4294967296",
        0,
        "flow[0].initial_window",
        "expected an integer from 0 to 4294967295",
    );
}

// ---- TFRC flows ----------------------------------------------------------------------------

const TFRC: &str = r#"
[[flow]]
name = "v"
from = "a"
to = "r"
kind = "tfrc"
"#;

/// BASE with one TFRC flow whose table ends with `extra`.
fn tfrc(extra: &str) -> String {
    format!("{}{extra}", with(TFRC))
}

#[test]
fn tfrc_fields_override_the_preset() {
    let s = load(&tfrc(
        "preset = \"ns2\"\npacket_size = \"1532B\"\nheader_size = \"32B\"\ninitial_rate = \"rfc3448\"\nndupack = 3\n\
         oscillation_prevention = false\nnofeedback_timer = false\necn = true\ntarget_rate = \"800kbps\"\nstart = \"2s\"\n\
         feedback_size = \"48B\"\ntrace = true\n",
    ))
    .unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!(p.rules, afsim_core::transport::tfrc::Rules::Ns2);
    assert_eq!(
        (p.packet_size, p.segment_size(), p.feedback_size, p.ndupack),
        (1532, 1500, 48, 3)
    );
    assert_eq!(
        p.initial_rate,
        afsim_core::transport::tfrc::InitialRate::Rfc3448
    );
    assert!(!p.oscillation_prevention && !p.nofeedback_timer && p.ecn && p.trace);
    assert_eq!(
        (p.target_rate_bps, p.start),
        (Some(800_000), SimTime::from_nanos(2_000_000_000))
    );
    let s = load(&with(TFRC)).unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!(*p, afsim_core::transport::tfrc::Params::default());
    let s = load(&tfrc("target_rate = \"none\"\n")).unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!(p.target_rate_bps, None, "\"none\" is plain TFRC");
}

#[test]
fn the_ns2_28_preset_loads_ns2_28_rules_and_its_fields_override_it() {
    use afsim_core::transport::tfrc::{Params, Rules};
    let s = load(&tfrc("preset = \"ns2_28\"\npacket_size = \"1500B\"\n")).unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!(p.rules, Rules::Ns2_28);
    // ns-2.28 put no header bytes on the wire: s is the whole packet unless header_size says
    assert_eq!(
        (
            p.packet_size,
            p.segment_size(),
            p.ndupack,
            p.oscillation_prevention
        ),
        (1500, 1500, 1, true)
    );
    assert_eq!(
        *p,
        Params {
            packet_size: 1500,
            ..Params::ns2_28()
        }
    );
    let s = load(&tfrc("preset = \"ns2_28\"\nheader_size = \"32B\"\n")).unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!((p.rules, p.segment_size()), (Rules::Ns2_28, 968));
    // a preset given through a [params] entry, as the gTFRC scenarios do
    let text = with(TFRC).replacen(
        "[[flow]]",
        "[params]\ntfrc_preset = \"ns2_28\"\n\n[[flow]]",
        1,
    );
    let text = format!("{text}preset = \"$tfrc_preset\"\n");
    let s = load(&text).unwrap();
    let AppSpec::Tfrc(p) = &s.flows[0].app else {
        panic!("a tfrc flow")
    };
    assert_eq!(p.rules, Rules::Ns2_28);
}

#[test]
fn impossible_tfrc_parameters_point_at_their_field() {
    let text = tfrc("packet_size = \"32B\"\n");
    expect(
        &text,
        "\"32B\"",
        0,
        "flow[0].packet_size",
        "the headers (32 B) must be smaller than the packet (32 B)",
    );
    let text = tfrc("header_size = \"2000B\"\n");
    expect(
        &text,
        "\"2000B\"",
        0,
        "flow[0].header_size",
        "must be smaller than the packet",
    );
    let text = tfrc("packet_size = \"70000B\"\n");
    expect(
        &text,
        "\"70000B\"",
        0,
        "flow[0].packet_size",
        "an IP packet is at most 65535 bytes",
    );
    let text = tfrc("ndupack = 0\n");
    expect(
        &text,
        "0\n",
        0,
        "flow[0].ndupack",
        "ndupack must be at least 1",
    );
    let text = tfrc("target_rate = \"0bps\"\n");
    expect(
        &text,
        "\"0bps\"",
        0,
        "flow[0].target_rate",
        "a rate must be at least 1bps",
    );
    let text = tfrc("feedback_size = \"8B\"\n");
    expect(
        &text,
        "\"8B\"",
        0,
        "flow[0].feedback_size",
        "a feedback packet is an IP packet of 20..=65535 bytes",
    );
    let text = tfrc("target_rate = 800000\n");
    expect(&text, "800000", 0, "flow[0].target_rate", "expected a rate");
}

#[test]
fn tfrc_choices_and_fields_of_other_kinds() {
    let text = tfrc("initial_rate = \"fast\"\n");
    expect(
        &text,
        "\"fast\"",
        0,
        "flow[0].initial_rate",
        "unknown initial rate 'fast'; the initial rates are: rfc5348, rfc3448",
    );
    let text = tfrc("preset = \"linux\"\n");
    expect(
        &text,
        "\"linux\"",
        0,
        "flow[0].preset",
        "unknown preset 'linux'; the presets are: rfc, ns2, ns2_28",
    );
    // a typo of the ns-2.28 preset is named, with the valid ones
    let text = tfrc("preset = \"ns2.28\"\n");
    expect(
        &text,
        "\"ns2.28\"",
        0,
        "flow[0].preset",
        "unknown preset 'ns2.28'",
    );
    expect(
        &text,
        "\"ns2.28\"",
        0,
        "flow[0].preset",
        "the presets are: rfc, ns2, ns2_28",
    );
    // ns2_28 is a TFRC rule set: TCP has no such preset
    let text = tcp("preset = \"ns2_28\"\n");
    expect(
        &text,
        "\"ns2_28\"",
        0,
        "flow[0].preset",
        "unknown preset 'ns2_28'; the presets are: rfc, ns2",
    );
    let text = tfrc("rate = \"1Mbps\"\n");
    expect(&text, "rate =", 2, "flow[0].rate", "'rate' is a field of cbr flows, not of tfrc flows (a tfrc flow's rate follows its congestion control; target_rate sets gTFRC's floor)");
    let text = tfrc("variant = \"sack\"\n");
    expect(
        &text,
        "variant",
        0,
        "flow[0].variant",
        "'variant' is a field of tcp flows, not of tfrc flows",
    );
    let text = tfrc("stop = \"5s\"\n");
    expect(
        &text,
        "stop",
        0,
        "flow[0].stop",
        "a tfrc flow always has data",
    );
    let text = format!("{}preset = \"ns2\"\n", with(FLOW));
    expect(
        &text,
        "preset",
        0,
        "flow[0].preset",
        "'preset' is a field of tcp and tfrc flows, not of cbr flows",
    );
    let text = format!("{}target_rate = \"1Mbps\"\n", with(FLOW));
    expect(
        &text,
        "target_rate",
        0,
        "flow[0].target_rate",
        "'target_rate' is a field of tcp and tfrc flows, not of cbr flows",
    );
}

// ---- link loss ------------------------------------------------------------------------------

/// BASE with `extra` appended to its second link (a–r).
fn lossy(extra: &str) -> String {
    format!("{BASE}{extra}")
}

#[test]
fn link_loss_is_a_probability_or_a_bernoulli_table_per_direction() {
    let s = load(&lossy(
        "loss = 0.01\nreverse_loss = { kind = \"bernoulli\", p = 0.2 }\n",
    ))
    .unwrap();
    let l = s.links.last().unwrap();
    use afsim_core::net::loss::Model;
    assert_eq!(
        (l.loss_ab, l.loss_ba),
        (
            Some(Model::Bernoulli { p: 0.01 }),
            Some(Model::Bernoulli { p: 0.2 })
        )
    );
    let s = load(&lossy("loss = 0\n")).unwrap();
    assert_eq!(
        s.links.last().unwrap().loss_ba,
        None,
        "the reverse direction has no loss unless given"
    );
    assert_eq!(
        s.links.last().unwrap().loss_ab,
        Some(Model::Bernoulli { p: 0.0 })
    );
}

#[test]
fn impossible_link_losses_point_at_the_value() {
    let text = lossy("loss = 1.5\n");
    expect(
        &text,
        "1.5",
        0,
        "link[1].loss",
        "a loss probability is in [0, 1], found 1.5",
    );
    let text = lossy("reverse_loss = { kind = \"bernoulli\", p = -0.1 }\n");
    expect(
        &text,
        "-0.1",
        0,
        "link[1].reverse_loss.p",
        "a loss probability is in [0, 1], found -0.1",
    );
    let text = lossy("loss = \"1%\"\n");
    expect(&text, "\"1%\"", 0, "link[1].loss", "expected a loss probability like 0.01, or a table like { kind = \"bernoulli\", p = 0.01 }, found the string \"1%\"");
    let text = lossy("loss = { kind = \"gilbert\", p = 0.1 }\n");
    expect(
        &text,
        "\"gilbert\"",
        0,
        "link[1].loss.kind",
        "unknown loss model 'gilbert'; the loss models are: bernoulli",
    );
    let text = lossy("loss = { p = 0.1 }\n");
    expect(
        &text,
        "{ p",
        0,
        "link[1].loss.kind",
        "lacks the required field 'kind'",
    );
    let text = lossy("loss = { kind = \"bernoulli\", rate = 0.1 }\n");
    expect(
        &text,
        "rate = 0.1",
        0,
        "link[1].loss.rate",
        "unknown field 'rate'",
    );
    let text = lossy("loss = { kind = \"bernoulli\" }\n");
    expect(
        &text,
        "{ kind",
        0,
        "link[1].loss.p",
        "lacks the required field 'p'",
    );
}

#[test]
fn tcp_fields_override_the_preset_and_a_window_in_packets_counts_full_segments() {
    let s = load(&tcp("preset = \"ns2\"\npacket_size = \"1500B\"\nmax_window = \"10pkt\"\nbytes = \"1MB\"\nstart = \"1s\"\n")).unwrap();
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert!(p.ns2_compat);
    assert_eq!(p.min_rto, SimDuration::from_millis(200));
    assert_eq!(p.max_window_bytes, 10 * 1460);
    assert_eq!(p.transfer_bytes, Some(1_000_000));
    assert_eq!(p.start, SimTime::from_nanos(1_000_000_000));
    let s = load(&tcp("packet_size = \"576B\"\n")).unwrap();
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert_eq!(
        (p.max_window_bytes, p.ns2_compat),
        (20 * 536, false),
        "the default window is 20 full segments"
    );
    assert_eq!(s.flows[0].dscp, 0);
}

#[test]
fn a_tcp_transfer_is_a_finite_transfer() {
    let text =
        tcp("bytes = \"100KB\"\n").replace("duration = \"10s\"", "until_transfers_complete = true");
    assert!(load(&text).unwrap().stop.transfers_complete);
    let text = with(TCP).replace("duration = \"10s\"", "until_transfers_complete = true");
    expect(
        &text,
        "true",
        0,
        "scenario.until_transfers_complete",
        "give a flow 'packets' (cbr) or 'bytes' (tcp)",
    );
}

// ---- [diffserv] ----------------------------------------------------------------------------

#[test]
fn a_colour_table_names_code_points_and_levels_0_to_7() {
    let text = format!("[diffserv]\ncolours = {{ AF11 = 0, AF14 = 1 }}\n{BASE}");
    expect(
        &text,
        "AF14",
        0,
        "diffserv.colours.AF14",
        "unknown code point 'AF14'",
    );
    let text = format!("[diffserv]\ncolours = {{ AF11 = 8 }}\n{BASE}");
    expect(
        &text,
        "8",
        0,
        "diffserv.colours.AF11",
        "expected an integer from 0 to 7, found 8",
    );
    let text = format!("[diffserv]\ncolours = {{ \"99\" = 1 }}\n{BASE}");
    expect(
        &text,
        "\"99\"",
        0,
        "diffserv.colours.99",
        "DSCP 99 is not a 6-bit code point",
    );
}

#[test]
fn a_code_point_listed_twice_is_an_error() {
    let text = format!("[diffserv]\ncolours = {{ AF11 = 0, af11 = 1 }}\n{BASE}");
    expect(
        &text,
        "af11",
        0,
        "diffserv.colours.af11",
        "code point 10 (AF11) is listed twice",
    );
}

#[test]
fn an_empty_colour_table_is_an_error() {
    let text = format!("[diffserv]\ncolours = {{}}\n{BASE}");
    expect(&text, "{}", 0, "diffserv.colours", "an empty colour table");
}

#[test]
fn the_named_colour_tables_are_a_choice_and_take_no_default_level() {
    let text = format!("[diffserv]\ncolours = \"rfc2598\"\n{BASE}");
    expect(
        &text,
        "\"rfc2598\"",
        0,
        "diffserv.colours",
        "unknown colour table 'rfc2598' (did you mean 'rfc2597'?)",
    );
    let text = format!("[diffserv]\ndefault_level = 1\n{BASE}");
    expect(
        &text,
        "1\n",
        0,
        "diffserv.default_level",
        "default_level applies to a colours table of your own",
    );
    let text = format!("[diffserv]\ncolour = \"rfc2597\"\n{BASE}");
    expect(
        &text,
        "colour =",
        0,
        "diffserv.colour",
        "unknown field 'colour' in [diffserv] (did you mean 'colours'?)",
    );
}

#[test]
fn a_colour_table_of_ones_own_has_its_highest_level_as_default() {
    let text = format!("[diffserv]\ncolours = {{ AF11 = 0, AF12 = 1 }}\n{BASE}");
    let s = load(&text).unwrap();
    assert_eq!(
        (
            s.colours.levels(),
            s.colours.level(10),
            s.colours.level(0),
            s.colours.level(46)
        ),
        (2, 0, 1, 1)
    );
    let text = format!("[diffserv]\ncolours = {{ AF11 = 0, AF12 = 1 }}\ndefault_level = 3\n{BASE}");
    let s = load(&text).unwrap();
    assert_eq!((s.colours.levels(), s.colours.level(46)), (4, 3));
}

// ---- RED, RIO and WRED queues ---------------------------------------------------------------

/// BASE with `queue = {q}` on link[0].
fn queue(q: &str) -> String {
    BASE.replacen(
        "delay = \"1ms\"",
        &format!("delay = \"1ms\"\nqueue = {q}"),
        1,
    )
}

#[test]
fn a_red_queue_needs_its_curve() {
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 15 }");
    expect(
        &text,
        "{ kind",
        0,
        "link[0].queue.max_p",
        "queue lacks the required field 'max_p' (for example max_p = 0.1)",
    );
}

#[test]
fn red_curve_errors_point_at_the_threshold() {
    let text = queue("{ kind = \"red\", min_th = 15, max_th = 5, max_p = 0.1 }");
    expect(
        &text,
        "15",
        0,
        "link[0].queue.min_th",
        "min_th 15 must be below max_th 5",
    );
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 1.5 }");
    expect(
        &text,
        "1.5",
        0,
        "link[0].queue.max_p",
        "max_p 1.5 must be in (0, 1]",
    );
    let text = queue("{ kind = \"red\", min_th = \"5pkt\", max_th = 15, max_p = 0.1 }");
    expect(
        &text,
        "\"5pkt\"",
        0,
        "link[0].queue.min_th",
        "thresholds are plain numbers of packets",
    );
    let text = queue("{ kind = \"red\", min_th = nan, max_th = 15, max_p = 0.1 }");
    expect(
        &text,
        "nan",
        0,
        "link[0].queue.min_th",
        "expected a finite number, found NaN",
    );
}

#[test]
fn red_common_errors_point_at_their_field() {
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, w_q = 0 }");
    expect(
        &text,
        "0 }",
        0,
        "link[0].queue.w_q",
        "w_q 0 must be in (0, 1]",
    );
    let text = queue(
        "{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, mean_packet_size = \"0B\" }",
    );
    expect(
        &text,
        "\"0B\"",
        0,
        "link[0].queue.mean_packet_size",
        "the mean packet size must be positive",
    );
    let text =
        queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, measure = \"cells\" }");
    expect(
        &text,
        "\"cells\"",
        0,
        "link[0].queue.measure",
        "unknown measure 'cells'; the measures are: packets, bytes",
    );
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, ecn = \"mark\" }");
    expect(
        &text,
        "\"mark\"",
        0,
        "link[0].queue.ecn",
        "unknown ECN marking 'mark'; the ECN markings are: none, tail, front, random",
    );
}

#[test]
fn the_limit_must_hold_max_th() {
    let text = queue("{ kind = \"red\", limit = \"10pkt\", min_th = 5, max_th = 15, max_p = 0.1 }");
    expect(
        &text,
        "\"10pkt\"",
        0,
        "link[0].queue.limit",
        "is below max_th 15",
    );
    // The default limit, 50 packets, is reported at the queue.
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 60, max_p = 0.1 }");
    expect(
        &text,
        "{ kind",
        0,
        "link[0].queue.limit",
        "the default limit is 50pkt",
    );
}

#[test]
fn a_field_of_another_queue_kind_says_whose_field_it_is() {
    let text = queue("{ kind = \"red\", in = { min_th = 5, max_th = 15, max_p = 0.1 } }");
    expect(&text, "in =", 0, "link[0].queue.in", "'in' is a field of rio queues, not of red queues; the fields of a red queue are: kind, limit");
    let text = queue("{ min_th = 5 }");
    expect(
        &text,
        "min_th",
        0,
        "link[0].queue.min_th",
        "'min_th' is a field of red queues, not of droptail queues",
    );
    let text = queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, out_first = true }");
    expect(
        &text,
        "out_first",
        0,
        "link[0].queue.out_first",
        "'out_first' is a field of rio and wred queues",
    );
}

#[test]
fn the_drop_spacing_is_red_or_dsredq_of_rio_and_wred_queues_and_dsredq_takes_none_of_reds_options()
{
    const RIO: &str = "kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 }";
    let text = queue(&format!("{{ {RIO}, spacing = \"dsred\" }}"));
    expect(
        &text,
        "\"dsred\"",
        0,
        "link[0].queue.spacing",
        "unknown drop spacing 'dsred' (did you mean 'dsredq'?); the drop spacings are: red, dsredq",
    );
    let text =
        queue("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, spacing = \"dsredq\" }");
    expect(
        &text,
        "spacing",
        0,
        "link[0].queue.spacing",
        "'spacing' is a field of rio and wred queues, not of red queues",
    );
    for (extra, what) in [
        ("gentle = true", "gentle"),
        ("wait = true", "wait"),
        ("byte_mode = true", "byte_mode"),
    ] {
        let text = queue(&format!("{{ {RIO}, spacing = \"dsredq\", {extra} }}"));
        expect(
            &text,
            "\"dsredq\"",
            0,
            "link[0].queue.spacing",
            &format!("spacing \"dsredq\" is ns-2's dsredq.cc, which has no {what}"),
        );
    }
    let text = queue("{ kind = \"wred\", levels = [{ min_th = 5, max_th = 15, max_p = 0.1 }], spacing = \"dsredq\", measure = \"bytes\" }");
    expect(
        &text,
        "\"dsredq\"",
        0,
        "link[0].queue.spacing",
        "no measure = \"bytes\"",
    );
    let text = queue(&format!("{{ {RIO}, spacing = \"dsredq\" }}"));
    let s = load(&text).unwrap();
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("rio")
    };
    assert_eq!(
        p.common.spacing,
        afsim_core::queue::red::SpacingRule::Dsredq
    );
    let QueueSpec::Rio(p, _) = &*load(&queue(&format!("{{ {RIO} }}"))).unwrap().links[0].queue_ab
    else {
        panic!("rio")
    };
    assert_eq!(
        p.common.spacing,
        afsim_core::queue::red::SpacingRule::Red,
        "the default"
    );
}

#[test]
fn dsredq_spacing_takes_ecn_tail_with_forced_marks_and_refuses_what_dsred_cannot_mark_at_its_field()
{
    const RIO: &str = "kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 }, spacing = \"dsredq\"";
    // ns-2 dsRED with `$q set ecn_ 1`: mark-tail, and dsredq.cc marks above max_th (the default)
    for extra in [
        "ecn = \"tail\"",
        "ecn = \"tail\", ecn_forced = \"mark\"",
        "ecn = \"tail\", out_first = false",
    ] {
        let s = load(&queue(&format!("{{ {RIO}, {extra} }}"))).unwrap();
        let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
            panic!("rio")
        };
        assert!(
            p.common.ecn.is_some() && p.common.ecn_forced_mark,
            "{extra}"
        );
    }
    let text = queue(&format!("{{ {RIO}, ecn = \"front\" }}"));
    expect(
        &text,
        "\"front\"",
        0,
        "link[0].queue.ecn",
        "ecn = \"front\" cannot be spacing \"dsredq\"",
    );
    let text = queue(&format!("{{ {RIO}, ecn = \"random\" }}"));
    expect(
        &text,
        "\"random\"",
        0,
        "link[0].queue.ecn",
        "marks only the arriving packet; use ecn = \"tail\", or set spacing = \"red\"",
    );
    let text = queue(&format!("{{ {RIO}, ecn = \"tail\", out_first = true }}"));
    expect(
        &text,
        "true",
        0,
        "link[0].queue.out_first",
        "out_first cannot be spacing \"dsredq\"",
    );
    let text = queue(&format!(
        "{{ {RIO}, ecn = \"tail\", ecn_forced = \"drop\" }}"
    ));
    expect(
        &text,
        "\"drop\"",
        0,
        "link[0].queue.ecn_forced",
        "ecn_forced = \"drop\" cannot be spacing \"dsredq\"",
    );
    let text = queue("{ kind = \"wred\", levels = [{ min_th = 5, max_th = 15, max_p = 0.1 }], spacing = \"dsredq\", ecn = \"random\" }");
    expect(
        &text,
        "\"random\"",
        0,
        "link[0].queue.ecn",
        "cannot be spacing \"dsredq\"",
    );
    // without ECN nothing changes: ecn_forced keeps its default
    let s = load(&queue(&format!("{{ {RIO} }}"))).unwrap();
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("rio")
    };
    assert!(p.common.ecn.is_none() && !p.common.ecn_forced_mark);
    // spacing "red" takes every position and both ecn_forced values, as before
    let red = RIO.replace("\"dsredq\"", "\"red\"");
    let s = load(&queue(&format!(
        "{{ {red}, ecn = \"front\", out_first = true }}"
    )))
    .unwrap();
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("rio")
    };
    assert!(
        !p.common.ecn_forced_mark,
        "spacing red: ns-2 red.cc's default, drop"
    );
}

#[test]
fn ecn_forced_is_drop_or_mark_and_marking_needs_ecn() {
    let rio = "{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 }";
    let text = queue(&format!("{rio}, ecn_forced = \"mark\" }}"));
    expect(
        &text,
        "\"mark\"",
        0,
        "link[0].queue.ecn_forced",
        "it needs ecn = \"tail\", \"front\" or \"random\"",
    );
    let text = queue(&format!("{rio}, ecn = \"tail\", ecn_forced = \"push\" }}"));
    expect(
        &text,
        "\"push\"",
        0,
        "link[0].queue.ecn_forced",
        "the ecn_forced values are: drop, mark",
    );
    let s = load(&queue(&format!(
        "{rio}, ecn = \"front\", out_first = true, ecn_forced = \"mark\" }}"
    )))
    .unwrap();
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("a rio queue")
    };
    assert!(p.common.ecn_forced_mark);
    let s = load(&queue(&format!(
        "{rio}, ecn = \"front\", ecn_forced = \"drop\" }}"
    )))
    .unwrap();
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("a rio queue")
    };
    assert!(!p.common.ecn_forced_mark, "ns-2 red.cc: the default");
}

#[test]
fn out_first_needs_ecn() {
    let text = queue("{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 }, out_first = true }");
    expect(
        &text,
        "true",
        0,
        "link[0].queue.out_first",
        "it needs ecn = \"tail\", \"front\" or \"random\"",
    );
}

#[test]
fn rio_needs_both_curves_and_reports_each_at_its_own_path() {
    let text = queue("{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 } }");
    expect(
        &text,
        "{ kind",
        0,
        "link[0].queue.out",
        "queue lacks the required field 'out'",
    );
    let text = queue("{ kind = \"rio\", in = { min_th = 20, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 } }");
    expect(
        &text,
        "20",
        0,
        "link[0].queue.in.min_th",
        "min_th 20 must be below max_th 15",
    );
    let text = queue("{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, maxp = 0.1 } }");
    expect(
        &text,
        "maxp",
        0,
        "link[0].queue.out.maxp",
        "unknown field 'maxp' in out (did you mean 'max_p'?)",
    );
    let text = queue("{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 }, out = { min_th = 2, max_th = 5, max_p = 0.1 }, coupling = \"loose\" }");
    expect(
        &text,
        "\"loose\"",
        0,
        "link[0].queue.coupling",
        "the couplings are: coupled, decoupled",
    );
}

#[test]
fn wred_takes_one_curve_per_level_of_the_colour_table() {
    let text = queue("{ kind = \"wred\", levels = [] }");
    expect(
        &text,
        "[]",
        0,
        "link[0].queue.levels",
        "WRED takes 1 to 8 levels, found 0",
    );
    let c = "{ min_th = 5, max_th = 15, max_p = 0.1 }";
    let text = queue(&format!(
        "{{ kind = \"wred\", levels = [{c}, {c}, {c}, {c}] }}"
    ));
    expect(&text, "[{", 0, "link[0].queue.levels", "4 levels, but the domain's colour table has 3 drop-precedence levels, so level 3 would never be used");
    let text = queue(&format!(
        "{{ kind = \"wred\", levels = [{c}, {{ min_th = 5, max_th = 15, max_p = 0 }}] }}"
    ));
    expect(
        &text,
        "0 }]",
        0,
        "link[0].queue.levels[1].max_p",
        "max_p 0 must be in (0, 1]",
    );
    let text = queue("{ kind = \"wred\" }");
    expect(
        &text,
        "{ kind",
        0,
        "link[0].queue.levels",
        "queue lacks the required field 'levels'",
    );
}

#[test]
fn red_family_queues_carry_the_link_rate_and_the_domain_colour_table() {
    let q = "{ kind = \"wred\", levels = [{ min_th = 20, max_th = 40, max_p = 0.02 }, { min_th = 5, max_th = 15, max_p = 0.1 }] }";
    let text = format!("[diffserv]\ncolours = {{ AF11 = 0, BE = 1 }}\n{}", queue(q));
    let s = load(&text).unwrap();
    let QueueSpec::Wred(p, colours) = &*s.links[0].queue_ab else {
        panic!("a wred queue")
    };
    assert_eq!(
        (p.curves.len(), p.common.link_rate_bps, colours.levels()),
        (2, 10_000_000, 2)
    );
    assert_eq!(p.common.limit, Limit::Packets(50));
    assert_eq!(
        s.links[0].queue_ba, s.links[0].queue_ab,
        "the reverse queue copies the forward one"
    );
}

// ---- conditioners ---------------------------------------------------------------------------

/// BASE, the cbr flow `f` (a → r) and a conditioner `c` at r whose table ends with `extra`.
fn cond(extra: &str) -> String {
    with(&format!(
        "{FLOW}\n[[conditioner]]\nname = \"c\"\nat = \"r\"\n{extra}"
    ))
}

const TB: &str = "meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }\n";

#[test]
fn a_conditioner_needs_a_meter_of_a_known_kind() {
    let text = cond("");
    expect(
        &text,
        "[[conditioner]]",
        0,
        "conditioner[0].meter",
        "[[conditioner]] lacks the required field 'meter'",
    );
    let text = cond("meter = { kind = \"leaky\" }\n");
    expect(
        &text,
        "\"leaky\"",
        0,
        "conditioner[0].meter.kind",
        "the meter kinds are: token_bucket, srtcm, trtcm, tsw2cm, tsw3cm, enhanced_token_bucket",
    );
    let text = cond("meter = { kind = \"srtcm\", cir = \"1Mbps\", cbs = \"10KB\" }\n");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.ebs",
        "meter lacks the required field 'ebs'",
    );
}

#[test]
fn a_field_of_another_meter_kind_says_whose_field_it_is() {
    let text = cond("meter = { kind = \"token_bucket\", cir = \"1Mbps\" }\n");
    expect(
        &text,
        "cir",
        0,
        "conditioner[0].meter.cir",
        "'cir' is a field of srtcm and trtcm meters, not of token_bucket meters",
    );
}

#[test]
fn a_token_bucket_depth_in_packets_needs_a_token_size_and_only_then() {
    let text = cond("meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10pkt\" }\n");
    expect(
        &text,
        "\"10pkt\"",
        0,
        "conditioner[0].meter.depth",
        "a depth in packets needs token_size",
    );
    let text = cond("meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\", token_size = \"576B\" }\n");
    expect(
        &text,
        "\"576B\"",
        0,
        "conditioner[0].meter.token_size",
        "token_size applies to a depth in packets",
    );
    let text = cond("meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10pkt\", token_size = \"0B\" }\n");
    expect(
        &text,
        "\"0B\"",
        0,
        "conditioner[0].meter.token_size",
        "the nominal packet size of a token must be positive",
    );
    let text = cond("meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"0B\" }\n");
    expect(
        &text,
        "\"0B\"",
        0,
        "conditioner[0].meter.depth",
        "bucket depth must be positive",
    );
}

#[test]
fn meter_parameter_errors_point_at_the_field_the_rfc_constrains() {
    let text = cond("meter = { kind = \"srtcm\", cir = \"1Mbps\", cbs = \"0B\", ebs = \"0B\" }\n");
    expect(
        &text,
        "\"0B\"",
        0,
        "conditioner[0].meter.cbs",
        "CBS and EBS cannot both be 0 (RFC 2697",
    );
    let text = cond("meter = { kind = \"trtcm\", cir = \"2Mbps\", cbs = \"1KB\", pir = \"1.5Mbps\", pbs = \"1KB\" }\n");
    expect(
        &text,
        "\"1.5Mbps\"",
        0,
        "conditioner[0].meter.pir",
        "PIR 1500000 bit/s is below CIR 2000000 bit/s (RFC 2698",
    );
    let text = cond("meter = { kind = \"tsw2cm\", target = \"1Mbps\", window = \"0s\" }\n");
    expect(
        &text,
        "\"0s\"",
        0,
        "conditioner[0].meter.window",
        "the averaging window must be positive",
    );
    let text = cond("meter = { kind = \"tsw3cm\", committed = \"2Mbps\", peak = \"1.5Mbps\", window = \"1s\" }\n");
    expect(
        &text,
        "\"1.5Mbps\"",
        0,
        "conditioner[0].meter.peak",
        "PTR 1500000 bit/s is below CTR",
    );
}

#[test]
fn an_action_is_a_keyword_or_a_code_point() {
    let text = cond(&format!("{TB}yellow = \"remark\"\n"));
    expect(
        &text,
        "\"remark\"",
        0,
        "conditioner[0].yellow",
        "unknown action 'remark'; an action is keep, best_effort, drop, shape, or a code point",
    );
    let text = cond(&format!("{TB}green = 64\n"));
    expect(
        &text,
        "64",
        0,
        "conditioner[0].green",
        "DSCP 64 is not a 6-bit code point (0..=63)",
    );
}

#[test]
fn a_two_colour_meter_has_no_red_action() {
    let text = cond(&format!("{TB}red = \"drop\"\n"));
    expect(
        &text,
        "\"drop\"",
        0,
        "conditioner[0].red",
        "a token_bucket meter colours packets green or yellow only",
    );
}

#[test]
fn shaping_needs_a_token_bucket_a_buffer_and_a_non_green_colour() {
    let text = cond(&format!("{TB}yellow = \"shape\"\n"));
    expect(
        &text,
        "[[conditioner]]",
        0,
        "conditioner[0].buffer",
        "a conditioner that shapes needs a buffer",
    );
    let text = cond(&format!("{TB}buffer = \"10pkt\"\n"));
    expect(
        &text,
        "\"10pkt\"",
        0,
        "conditioner[0].buffer",
        "buffer applies only when an action is \"shape\"",
    );
    let text = cond(&format!("{TB}yellow = \"shape\"\nbuffer = \"10kB\"\n"));
    expect(
        &text,
        "\"10kB\"",
        0,
        "conditioner[0].buffer",
        "a shaper buffer is counted in packets",
    );
    let text = cond(&format!("{TB}green = \"shape\"\nbuffer = \"10pkt\"\n"));
    expect(
        &text,
        "\"shape\"",
        0,
        "conditioner[0].green",
        "green packets already conform",
    );
    let text = cond("meter = { kind = \"srtcm\", cir = \"1Mbps\", cbs = \"1KB\", ebs = \"1KB\" }\nred = \"shape\"\nbuffer = \"10pkt\"\n");
    expect(
        &text,
        "\"shape\"",
        0,
        "conditioner[0].red",
        "only a token_bucket meter can shape",
    );
}

#[test]
fn a_conditioners_nodes_must_exist_and_its_input_line_must_be_a_link() {
    let text = with(&format!(
        "{FLOW}[[conditioner]]\nname = \"c\"\nat = \"rr\"\n{TB}"
    ));
    expect(
        &text,
        "\"rr\"",
        0,
        "conditioner[0].at",
        "unknown node or group 'rr'",
    );
    let text = cond(&format!("{TB}from = \"r\"\n"));
    expect(
        &text,
        "\"r\"\n",
        3,
        "conditioner[0].from",
        "a conditioner at 'r' cannot take its input line from itself",
    );
    let text = with(&format!(
        "{FLOW}[[conditioner]]\nname = \"c\"\nat = \"a\"\nfrom = \"g0\"\n{TB}"
    ));
    expect(
        &text,
        "\"g0\"",
        0,
        "conditioner[0].from",
        "no link joins 'a' and 'g0'",
    );
    let text = with(&format!("[[node]]\nname = \"h\"\ncount = 3\n{FLOW}[[conditioner]]\nname = \"c\"\nat = \"g\"\nfrom = \"h\"\n{TB}"));
    expect(
        &text,
        "\"h\"\n",
        1,
        "conditioner[0].from",
        "'g' is a group of 2 nodes and 'h' a group of 3",
    );
}

#[test]
fn a_classifier_names_flows_single_nodes_and_protocols() {
    let text = cond(&format!("{TB}match = {{ flows = [\"f\", \"x\"] }}\n"));
    expect(
        &text,
        "\"x\"",
        0,
        "conditioner[0].match.flows[1]",
        "unknown flow or flow group 'x'",
    );
    let text = cond(&format!("{TB}match = {{ src = \"g\" }}\n"));
    expect(
        &text,
        "\"g\" }",
        0,
        "conditioner[0].match.src",
        "'g' is a group of 2 nodes; a classifier's src names a single node, like 'g0'",
    );
    let text = cond(&format!("{TB}match = {{ protocol = \"sctp\" }}\n"));
    expect(
        &text,
        "\"sctp\"",
        0,
        "conditioner[0].match.protocol",
        "unknown protocol 'sctp'; the protocols are tcp, udp, icmp",
    );
    let text = cond(&format!("{TB}match = {{ flows = [] }}\n"));
    expect(
        &text,
        "[]",
        0,
        "conditioner[0].match.flows",
        "leave 'flows' out to match every flow",
    );
    let text = cond(&format!("{TB}match = {{ dscp = [\"AF11\", \"AF5\"] }}\n"));
    expect(
        &text,
        "\"AF5\"",
        0,
        "conditioner[0].match.dscp[1]",
        "unknown code point 'AF5'",
    );
    let text = cond(&format!("{TB}match = {{ flow = \"f\" }}\n"));
    expect(
        &text,
        "flow =",
        0,
        "conditioner[0].match.flow",
        "unknown field 'flow' in match (did you mean 'flows'?)",
    );
}

#[test]
fn conditioner_names_are_unique() {
    let text = cond(&format!(
        "{TB}[[conditioner]]\nname = \"c\"\nat = \"a\"\n{TB}"
    ));
    expect(
        &text,
        "\"c\"",
        1,
        "conditioner[1].name",
        "the conditioner name 'c' is already taken by conditioner 'c' (conditioner[0], line",
    );
}

#[test]
fn a_conditioner_per_group_member_pairs_like_a_link() {
    let text = with(&format!(
        "{FLOW}[[conditioner]]\nname = \"e\"\nat = \"r\"\nfrom = \"g\"\n{TB}green = \"AF11\"\n"
    ));
    let s = load(&text).unwrap();
    let c: Vec<(&str, usize, Option<usize>)> = s
        .conditioners
        .iter()
        .map(|c| (c.name.as_str(), c.node, c.from))
        .collect();
    assert_eq!(c, [("e0", 0, Some(2)), ("e1", 0, Some(3))]);
    use afsim_core::edge::PerColourAction::{DowngradeToBestEffort, Drop, Mark};
    assert_eq!(
        s.conditioners[0].actions,
        [Mark(10), DowngradeToBestEffort, Drop]
    );
}

#[test]
fn a_conditioner_of_flows_that_expand_to_nothing_is_left_out() {
    let text = with(&format!(
        "[params]\nk = 0\n{}[[conditioner]]\nname = \"c\"\nat = \"r\"\nmatch = {{ flows = \"f\" }}\n{TB}",
        FLOW.replace("kind = \"cbr\"", "kind = \"cbr\"\ncount = \"$k\"")
    ));
    assert!(load(&text).unwrap().conditioners.is_empty());
    let s = load_str(&text, "x.toml", &[("k".into(), "2".into())]).unwrap();
    assert_eq!(*s.conditioners[0].classifier.flows, [0, 1]);
}

// ---- the corpus of new features ---------------------------------------------------------------

fn corpus_file(name: &str) -> afsim_core::Spec {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    load_file(&p, &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_corpus_tcp_files_cover_both_presets_and_finite_transfers() {
    let s = corpus_file("tcp.toml");
    let starts: Vec<u64> = s
        .flows
        .iter()
        .map(|f| match &f.app {
            AppSpec::Tcp(p) => p.start.as_nanos(),
            AppSpec::Cbr(_) | AppSpec::Tfrc(_) => panic!("tcp flows only"),
        })
        .collect();
    assert_eq!(starts, [100_000_000, 350_000_000, 600_000_000]);
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        unreachable!()
    };
    assert_eq!(
        (
            s.flows[0].dscp,
            p.max_window_bytes,
            p.initial_window_segments
        ),
        (10, 32 * 960, 2)
    );
    assert!(p.ns2_compat && p.ecn && p.delayed_ack && p.trace && p.limited_transmit);
    let s = corpus_file("tcp_transfer.toml");
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert_eq!(
        (p.transfer_bytes, p.max_window_bytes, p.ns2_compat),
        (Some(1_500_000), 65_536, false)
    );
    assert_eq!(s.flows[2].dscp, 46);
}

#[test]
fn the_corpus_queue_files_cover_red_rio_and_wred() {
    let s = corpus_file("red.toml");
    let QueueSpec::Red(p) = &*s.links[0].queue_ab else {
        panic!("red")
    };
    assert_eq!(
        (p.curve.max_p, p.common.mean_pkt_size, p.common.limit),
        (0.1, 576, Limit::Packets(60))
    );
    assert!(p.common.gentle && p.common.wait && p.common.ecn.is_some());
    assert_eq!(
        (s.colours.levels(), s.colours.level(46), s.colours.level(0)),
        (3, 0, 2)
    );
    let s = corpus_file("rio_wred.toml");
    let QueueSpec::Rio(p, _) = &*s.links[0].queue_ab else {
        panic!("rio")
    };
    assert_eq!((p.in_curve.min_th, p.out_curve.max_p), (30.0, 0.2));
    assert!(p.common.ecn.is_some_and(|e| e.out_first));
    let QueueSpec::Wred(p, colours) = &*s.links[1].queue_ab else {
        panic!("wred")
    };
    assert_eq!((p.curves.len(), colours.levels()), (2, 3));
    assert!(matches!(*s.links[1].queue_ba, QueueSpec::Rio(..)));
}

#[test]
fn the_corpus_conditioner_files_cover_every_meter() {
    use afsim_core::scenario::spec::MeterSpec;
    let s = corpus_file("conditioners.toml");
    let names: Vec<&str> = s.conditioners.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tb0", "tb1", "sr"]);
    let c = &s.conditioners[0];
    assert_eq!((c.node, c.from, c.buffer_packets), (2, Some(0), 100));
    assert_eq!(
        (&c.classifier.flows[..], c.classifier.src, c.classifier.dst),
        (&[0, 1][..], Some(0), Some(2))
    );
    assert_eq!(
        (c.classifier.protocol, c.classifier.dscp.as_slice()),
        (Some(6), &[0, 10][..])
    );
    assert!(s.conditioners[2].per_flow);
    let s = corpus_file("meters.toml");
    let kinds: Vec<&str> = s
        .conditioners
        .iter()
        .map(|c| match c.meter {
            MeterSpec::TokenBucket(_) => "token_bucket",
            MeterSpec::Srtcm(_) => "srtcm",
            MeterSpec::Trtcm(_) => "trtcm",
            MeterSpec::Tsw2cm(_) => "tsw2cm",
            MeterSpec::Tsw3cm(_) => "tsw3cm",
            MeterSpec::EnhancedTokenBucket(_) => "enhanced_token_bucket",
            MeterSpec::Sima(_) => "sima",
        })
        .collect();
    assert_eq!(kinds, ["trtcm", "tsw2cm", "tsw2cm", "tsw3cm"]);
}

#[test]
fn the_corpus_sima_file_reads_markers_queues_and_the_sima_colour_table() {
    use afsim_core::edge::dscp;
    use afsim_core::edge::sima::{Estimator, ServiceClass};
    use afsim_core::queue::sima::{Occupancy, Params};
    use afsim_core::scenario::spec::MeterSpec;
    let s = corpus_file("sima.toml");
    assert_eq!(s.colours.level(dscp::sima(false, 4)), 3);
    assert_eq!(s.colours.level(dscp::BE), 7);
    assert_eq!(*s.links[2].queue_ab, QueueSpec::Sima(Params::LAATU));
    let QueueSpec::Sima(p) = *s.links[2].queue_ba else {
        panic!("sima")
    };
    assert_eq!(
        (p.nrt_limit_bytes, p.occupancy, p.dpa_offset, p.dpa_slope),
        (20_000, Occupancy::Sum, -1.0, 9.5)
    );
    let names: Vec<&str> = s.conditioners.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["access0", "access1", "rt"]);
    let MeterSpec::Sima(m) = s.conditioners[0].meter else {
        panic!("sima")
    };
    // eq. (4): α = 5 × 53 B / 20000 B
    assert_eq!(
        m.estimator,
        Estimator::Slots {
            capacity_bps: 10_000_000,
            slot_bytes: 53,
            alpha: 5.0 * 53.0 / 20_000.0
        }
    );
    assert_eq!(
        (m.nbr_bps, m.class, m.trace),
        (1_200_000, ServiceClass::Nrt, true)
    );
    let MeterSpec::Sima(m) = s.conditioners[2].meter else {
        panic!("sima")
    };
    assert_eq!(
        (m.class, m.estimator),
        (
            ServiceClass::Rt,
            Estimator::Tsw {
                window: SimDuration::from_millis(50)
            }
        )
    );
    assert_eq!(s.flows[2].dscp, dscp::sima(true, 6));
}

// ---- SIMA -------------------------------------------------------------------------------------

const SIMA_METER: &str =
    "meter = { kind = \"sima\", nbr = \"1Mbps\", capacity = \"10Mbps\", alpha = 0.01 }\n";

#[test]
fn an_impossible_nbr_is_reported_at_nbr() {
    let text =
        cond("meter = { kind = \"sima\", nbr = \"4bps\", capacity = \"10Mbps\", alpha = 0.01 }\n");
    expect(
        &text,
        "\"4bps\"",
        0,
        "conditioner[0].meter.nbr",
        "outside the SIMA range, 8 bit/s to 320 Tbit/s",
    );
    let text = cond(
        "meter = { kind = \"sima\", nbr = \"400000Gbps\", capacity = \"10Mbps\", alpha = 0.01 }\n",
    );
    expect(
        &text,
        "\"400000Gbps\"",
        0,
        "conditioner[0].meter.nbr",
        "a nominal bit rate of 400000000000000 bit/s",
    );
    let text = cond("meter = { kind = \"sima\", capacity = \"10Mbps\", alpha = 0.01 }\n");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.nbr",
        "meter lacks the required field 'nbr'",
    );
}

#[test]
fn the_sima_estimators_weight_and_buffer_are_checked_at_their_fields() {
    let m = |fields: &str| {
        cond(&format!(
            "meter = {{ kind = \"sima\", nbr = \"1Mbps\", {fields} }}\n"
        ))
    };
    let text = m("capacity = \"10Mbps\", alpha = 1.5");
    expect(
        &text,
        "1.5",
        0,
        "conditioner[0].meter.alpha",
        "alpha = 1.5: the weight of a slot must be in (0, 1)",
    );
    let text = m("capacity = \"10Mbps\", class_buffer = \"200B\"");
    expect(
        &text,
        "\"200B\"",
        0,
        "conditioner[0].meter.class_buffer",
        "eq. 4 needs more than 5 slots",
    );
    let text = m("capacity = \"10Mbps\", alpha = 0.1, class_buffer = \"20000B\"");
    expect(
        &text,
        "\"20000B\"",
        0,
        "conditioner[0].meter.class_buffer",
        "give alpha or class_buffer, not both",
    );
    let text = m("capacity = \"10Mbps\"");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.alpha",
        "give alpha (for example alpha = 0.01) or class_buffer",
    );
    let text = m("alpha = 0.1");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.capacity",
        "meter lacks the required field 'capacity'",
    );
    let text = m("capacity = \"0bps\", alpha = 0.1");
    expect(
        &text,
        "\"0bps\"",
        0,
        "conditioner[0].meter.capacity",
        "a rate must be at least 1bps",
    );
    let text = m("estimator = \"tsw\", window = \"1s\", capacity = \"10Mbps\"");
    expect(
        &text,
        "\"10Mbps\"",
        2,
        "conditioner[0].meter.capacity",
        "capacity only converts class_buffer into a window",
    );
    let text = m("estimator = \"window\", capacity = \"10Mbps\", alpha = 0.1");
    expect(
        &text,
        "0.1",
        0,
        "conditioner[0].meter.alpha",
        "'alpha' belongs to estimator = \"ewma\" (the default)",
    );
    let text = m(
        "estimator = \"tsw\", window = \"1s\", capacity = \"10Mbps\", class_buffer = \"20000B\"",
    );
    expect(
        &text,
        "\"20000B\"",
        0,
        "conditioner[0].meter.class_buffer",
        "give window or class_buffer, not both",
    );
    let text = m("estimator = \"window\", class_buffer = \"20000B\"");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.capacity",
        "meter lacks the required field 'capacity'",
    );
    let text = m("estimator = \"window\"");
    expect(
        &text,
        "{ kind",
        0,
        "conditioner[0].meter.window",
        "give window (for example window = \"100ms\") or class_buffer",
    );
    let text = m("capacity = \"10Mbps\", alpha = 0.1, window = \"1s\"");
    expect(
        &text,
        "\"1s\"",
        0,
        "conditioner[0].meter.window",
        "'window' belongs to estimator = \"tsw\" or \"window\"",
    );
    let text = m("estimator = \"tsw\", window = \"0s\"");
    expect(
        &text,
        "\"0s\"",
        0,
        "conditioner[0].meter.window",
        "the averaging window must be positive",
    );
    let text = m("estimator = \"kalman\"");
    expect(&text, "\"kalman\"", 0, "conditioner[0].meter.estimator",
           "unknown momentary bit rate estimator 'kalman'; the momentary bit rate estimators are: ewma, tsw, window");
    let text = m("class = \"gold\", capacity = \"10Mbps\", alpha = 0.1");
    expect(
        &text,
        "\"gold\"",
        0,
        "conditioner[0].meter.class",
        "unknown SIMA service class 'gold'",
    );
    let text = m("capacity = \"10Mbps\", alpha = 0.1, rate = \"1Mbps\"");
    expect(
        &text,
        "rate =",
        3,
        "conditioner[0].meter.rate",
        "'rate' is a field of token_bucket and enhanced_token_bucket meters, not of sima meters",
    );
}

/// One file whose `[params]` entry chooses the SIMA estimator's form (issue 21): the class buffer
/// gives the EWMA's α (eq. 4) and the windowed forms the same averaging time, 8·K/(5·C).
#[test]
fn a_parameter_switches_the_sima_estimator_and_keeps_its_averaging_time() {
    use afsim_core::edge::sima::Estimator;
    use afsim_core::scenario::spec::MeterSpec;
    let text = format!(
        "{}\n[params]\nform = \"ewma\"\n",
        cond("meter = { kind = \"sima\", nbr = \"1Mbps\", estimator = \"$form\", capacity = \"10Mbps\", slot = \"53B\", class_buffer = \"20000B\" }\n")
    );
    let meter = |form: &str| {
        let s = load_str(&text, "bad.toml", &[("form".into(), form.into())]).unwrap();
        let MeterSpec::Sima(m) = s.conditioners[0].meter else {
            panic!("sima")
        };
        m.estimator
    };
    assert_eq!(
        meter("ewma"),
        Estimator::Slots {
            capacity_bps: 10_000_000,
            slot_bytes: 53,
            alpha: 5.0 * 53.0 / 20_000.0
        }
    );
    assert_eq!(
        meter("tsw"),
        Estimator::Tsw {
            window: SimDuration::from_micros(3_200)
        }
    );
    assert_eq!(
        meter("window"),
        Estimator::Window {
            window: SimDuration::from_micros(3_200)
        }
    );
    let e = load_str(&text, "bad.toml", &[("form".into(), "slidng".into())]).unwrap_err();
    assert!(
        e.message
            .contains("unknown momentary bit rate estimator 'slidng'"),
        "{e}"
    );
    assert_eq!(e.field, "conditioner[0].meter.estimator", "{e}");
}

#[test]
fn a_sima_meter_takes_no_actions_and_no_buffer() {
    let text = cond(&format!("{SIMA_METER}green = \"AF11\"\n"));
    expect(
        &text,
        "\"AF11\"",
        0,
        "conditioner[0].green",
        "a sima meter marks every packet itself",
    );
    let text = cond(&format!("{SIMA_METER}buffer = \"10pkt\"\n"));
    expect(
        &text,
        "\"10pkt\"",
        0,
        "conditioner[0].buffer",
        "it takes no buffer",
    );
}

#[test]
fn an_impossible_sima_buffer_or_weight_is_reported_at_its_field() {
    let text = queue("{ kind = \"sima\", nrt_limit = \"10B\" }");
    expect(
        &text,
        "\"10B\"",
        0,
        "link[0].queue.nrt_limit",
        "a buffer of 10 B cannot hold any IP packet",
    );
    let text = queue("{ kind = \"sima\", rt_limit = \"20pkt\" }");
    expect(
        &text,
        "\"20pkt\"",
        0,
        "link[0].queue.rt_limit",
        "a SIMA buffer is counted in bytes",
    );
    let text = queue("{ kind = \"sima\", nrt_weight = 0 }");
    expect(
        &text,
        "0 }",
        0,
        "link[0].queue.nrt_weight",
        "nrt_weight = 0: an EWMA weight must be in (0, 1]",
    );
    let text = queue("{ kind = \"sima\", rt_weight = 1.01 }");
    expect(
        &text,
        "1.01",
        0,
        "link[0].queue.rt_weight",
        "an EWMA weight must be in (0, 1]",
    );
    let text = queue("{ kind = \"sima\", dpa_slope = -8 }");
    expect(
        &text,
        "-8",
        0,
        "link[0].queue.dpa_slope",
        "the slope must be a positive number",
    );
    let text = queue("{ kind = \"sima\", dpa_offset = 8 }");
    expect(
        &text,
        "8 }",
        0,
        "link[0].queue.dpa_offset",
        "the offset must be a number below 8",
    );
    let text = queue("{ kind = \"sima\", occupancy = \"min\" }");
    expect(
        &text,
        "\"min\"",
        0,
        "link[0].queue.occupancy",
        "unknown occupancy rule 'min'",
    );
    let text = queue("{ kind = \"sima\", limit = \"20KB\" }");
    expect(
        &text,
        "limit =",
        0,
        "link[0].queue.limit",
        "(a SIMA queue has a buffer per class: rt_limit and nrt_limit, in bytes)",
    );
}

#[test]
fn a_sima_queue_cannot_be_a_scheduler_class() {
    let text = sched(
        "priority",
        "{ name = \"s\", default = true, queue = { kind = \"sima\" } }",
    );
    expect(
        &text,
        "\"sima\"",
        0,
        "link[0].queue.classes[0].queue.kind",
        "a class queue cannot be a SIMA queue",
    );
}

#[test]
fn the_sima_colour_table_is_named_and_takes_no_default_level() {
    let text = with("[diffserv]\ncolours = \"sima\"\ndefault_level = 3\n");
    expect(
        &text,
        "3\n",
        0,
        "diffserv.default_level",
        "sima puts unlisted code points at DP 0, level 7",
    );
    let s = load(&with("[diffserv]\ncolours = \"sima\"\n")).unwrap();
    assert_eq!(s.colours.level_name(0), "DP 7");
}

// ---- schedulers -----------------------------------------------------------------------------

/// BASE with a scheduler of `policy` and `classes` (the inside of the array) on link[0].
fn sched(policy: &str, classes: &str) -> String {
    queue(&format!(
        "{{ kind = \"scheduler\", policy = \"{policy}\", classes = [{classes}] }}"
    ))
}

const BE_DRR: &str = "{ name = \"be\", default = true, quantum = \"1500B\" }";

#[test]
fn the_corpus_scheduler_file_covers_every_policy_and_every_class_queue() {
    use afsim_core::queue::scheduler::{Policy, Service};
    let s = corpus_file("scheduler.toml");
    let QueueSpec::Scheduler(drr) = &*s.links[4].queue_ab else {
        panic!("a scheduler")
    };
    assert_eq!(drr.policy, Policy::Drr);
    let c: Vec<(&str, &[u8], bool, Service)> = drr
        .classes
        .iter()
        .map(|c| (c.name.as_str(), c.dscp.as_slice(), c.default, c.service))
        .collect();
    assert_eq!(
        c,
        [
            ("ef", &[46u8][..], false, Service::Priority),
            ("af1", &[10, 12, 14][..], false, Service::Quantum(1500)),
            ("be", &[][..], true, Service::Quantum(1500)),
        ]
    );
    assert_eq!(
        drr.classes[0].queue,
        QueueSpec::DropTail {
            limit: Limit::Packets(20)
        }
    );
    let QueueSpec::Rio(p, colours) = &drr.classes[1].queue else {
        panic!("af1 runs RIO")
    };
    assert_eq!(
        (p.common.link_rate_bps, p.common.limit, colours.levels()),
        (2_000_000, Limit::Packets(100), 3)
    );
    assert_eq!(
        drr.classes[2].queue,
        QueueSpec::DropTail {
            limit: Limit::Packets(50)
        },
        "the default class queue"
    );
    let QueueSpec::Scheduler(wrr) = &*s.links[4].queue_ba else {
        panic!("a scheduler")
    };
    assert_eq!(
        (wrr.policy, wrr.classes[0].service, wrr.classes[1].service),
        (Policy::Wrr, Service::Weight(3), Service::Weight(1))
    );
    assert!(
        matches!(&wrr.classes[0].queue, QueueSpec::Wred(p, _) if p.curves.len() == 2 && p.common.link_rate_bps == 2_000_000)
    );
    assert!(matches!(&wrr.classes[1].queue, QueueSpec::Red(p) if p.common.ecn.is_some()));
    let QueueSpec::Scheduler(prio) = &*s.links[5].queue_ab else {
        panic!("a scheduler")
    };
    assert_eq!(prio.policy, Policy::Priority);
    assert!(prio.classes.iter().all(|c| c.service == Service::Priority));
    assert_eq!(
        (
            prio.classes[0].dscp.as_slice(),
            prio.classes[1].dscp.as_slice()
        ),
        (&[46, 40][..], &[10, 12, 14][..])
    );
    assert!(
        matches!(&prio.classes[1].queue, QueueSpec::Red(p) if p.common.gentle && p.common.link_rate_bps == 10_000_000)
    );
    assert_eq!(
        s.links[5].queue_ba, s.links[5].queue_ab,
        "the reverse queue copies the forward scheduler"
    );
}

#[test]
fn class_queues_take_the_domain_colour_table_and_the_link_rate() {
    let q = "{ min_th = 20, max_th = 40, max_p = 0.02 }, { min_th = 5, max_th = 15, max_p = 0.1 }";
    let classes = format!("{{ name = \"af\", dscp = [\"AF11\", \"AF12\"], queue = {{ kind = \"wred\", levels = [{q}] }} }}, {{ name = \"be\", default = true }}");
    let text = format!(
        "[diffserv]\ncolours = {{ AF11 = 0, AF12 = 1 }}\n{}",
        sched("priority", &classes)
    );
    let s = load(&text).unwrap();
    let QueueSpec::Scheduler(sch) = &*s.links[0].queue_ab else {
        panic!("a scheduler")
    };
    let QueueSpec::Wred(p, colours) = &sch.classes[0].queue else {
        panic!("wred")
    };
    assert_eq!(
        (p.common.link_rate_bps, colours.levels(), colours.level(0)),
        (10_000_000, 2, 1)
    );
    // The same three curves, beyond the two levels of this domain, are refused inside a class too.
    let classes = classes.replace(
        &format!("[{q}]"),
        &format!("[{q}, {{ min_th = 1, max_th = 2, max_p = 0.5 }}]"),
    );
    let text = format!(
        "[diffserv]\ncolours = {{ AF11 = 0, AF12 = 1 }}\n{}",
        sched("priority", &classes)
    );
    expect(
        &text,
        "[{ min",
        0,
        "link[0].queue.classes[0].queue.levels",
        "3 levels, but the domain's colour table has 2",
    );
}

#[test]
fn a_scheduler_needs_a_policy_and_classes() {
    let text = queue(&format!("{{ kind = \"scheduler\", classes = [{BE_DRR}] }}"));
    expect(
        &text,
        "{ kind",
        0,
        "link[0].queue.policy",
        "queue lacks the required field 'policy' (for example policy = \"drr\")",
    );
    let text = queue("{ kind = \"scheduler\", policy = \"wrr\" }");
    expect(&text, "{ kind", 0, "link[0].queue.classes", "queue lacks the required field 'classes' (for example classes = [{ name = \"af1\", dscp = [\"AF11\"], weight = 3 }");
    let text = sched("fifo", BE_DRR);
    expect(
        &text,
        "\"fifo\"",
        0,
        "link[0].queue.policy",
        "unknown scheduling policy 'fifo'; the policies are: priority",
    );
    let text = sched("drrr", BE_DRR);
    expect(
        &text,
        "\"drrr\"",
        0,
        "link[0].queue.policy",
        "unknown scheduling policy 'drrr' (did you mean 'drr'?)",
    );
    let text = queue("{ kind = \"scheduler\", policy = \"drr\", classes = 3 }");
    expect(
        &text,
        "3 }",
        0,
        "link[0].queue.classes",
        "expected an array of classes, like [{ name = \"ef\"",
    );
    let text = queue("{ kind = \"scheduler\", policy = \"drr\", classes = [\"be\"] }");
    expect(
        &text,
        "\"be\"",
        0,
        "link[0].queue.classes[0]",
        "expected a table, found the string \"be\"",
    );
    let text = sched("drr", "");
    expect(
        &text,
        "[]",
        0,
        "link[0].queue.classes",
        "a scheduler needs at least one class",
    );
}

#[test]
fn a_scheduler_has_no_limit_of_its_own_and_other_queues_have_no_classes() {
    let text = queue(&format!(
        "{{ kind = \"scheduler\", policy = \"drr\", limit = \"50pkt\", classes = [{BE_DRR}] }}"
    ));
    expect(
        &text,
        "limit",
        0,
        "link[0].queue.limit",
        "'limit' is a field of droptail, red, rio and wred queues, not of scheduler queues (a class's own queue takes it",
    );
    let text = queue(&format!(
        "{{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, classes = [{BE_DRR}] }}"
    ));
    expect(
        &text,
        "classes",
        0,
        "link[0].queue.classes",
        "'classes' is a field of scheduler queues, not of red queues",
    );
    let text = queue("{ policy = \"drr\" }");
    expect(
        &text,
        "policy",
        0,
        "link[0].queue.policy",
        "'policy' is a field of scheduler queues, not of droptail queues",
    );
    let text = queue("{ kind = \"scheduler\", policy = \"drr\", clases = [] }");
    expect(
        &text,
        "clases",
        0,
        "link[0].queue.clases",
        "unknown field 'clases' in queue (did you mean 'classes'?)",
    );
}

#[test]
fn a_class_has_a_name_and_known_fields() {
    let text = sched("drr", "{ default = true, quantum = \"1500B\" }");
    expect(
        &text,
        "{ default",
        0,
        "link[0].queue.classes[0].name",
        "classes[0] lacks the required field 'name' (for example name = \"be\")",
    );
    let text = sched(
        "drr",
        "{ name = \"1be\", default = true, quantum = \"1500B\" }",
    );
    expect(
        &text,
        "\"1be\"",
        0,
        "link[0].queue.classes[0].name",
        "\"1be\" is not a valid name",
    );
    let text = sched(
        "drr",
        "{ name = \"be\", default = true, quantm = \"1500B\" }",
    );
    expect(&text, "quantm", 0, "link[0].queue.classes[0].quantm", "unknown field 'quantm' in classes[0] (did you mean 'quantum'?); the fields are: name, dscp, default, priority, quantum, weight, queue");
    let text = sched(
        "drr",
        "{ name = \"be\", default = \"yes\", quantum = \"1500B\" }",
    );
    expect(
        &text,
        "\"yes\"",
        0,
        "link[0].queue.classes[0].default",
        "expected true or false, found the string \"yes\"",
    );
    let text = sched(
        "drr",
        &format!(
            "{BE_DRR}, {}",
            BE_DRR.replace("default = true, ", "dscp = [\"AF11\"], ")
        ),
    );
    expect(
        &text,
        "\"be\"",
        1,
        "link[0].queue.classes[1].name",
        "two classes are named 'be'",
    );
}

#[test]
fn class_code_points_are_names_or_integers_each_in_one_class() {
    let text = sched(
        "drr",
        &format!("{{ name = \"af\", dscp = [\"AF11\", \"AF14\"], quantum = \"1500B\" }}, {BE_DRR}"),
    );
    expect(
        &text,
        "\"AF14\"",
        0,
        "link[0].queue.classes[0].dscp[1]",
        "unknown code point 'AF14' (did you mean 'AF11'?)",
    );
    let text = sched(
        "drr",
        &format!("{{ name = \"af\", dscp = 64, quantum = \"1500B\" }}, {BE_DRR}"),
    );
    expect(
        &text,
        "64",
        0,
        "link[0].queue.classes[0].dscp",
        "DSCP 64 is not a 6-bit code point (0..=63)",
    );
    // Twice in one class is the same code point; in two classes it is an error at the second.
    let classes = "{ name = \"af1\", dscp = [\"AF11\", 10, \"AF12\"], quantum = \"1500B\" }, { name = \"af2\", dscp = [\"AF21\", \"AF12\"], quantum = \"1500B\" }";
    let text = sched("drr", &format!("{classes}, {BE_DRR}"));
    expect(
        &text,
        "[\"AF21\"",
        0,
        "link[0].queue.classes[1].dscp",
        "AF12 is already in class 'af1'",
    );
    let text = sched(
        "drr",
        &format!("{{ name = \"af\", quantum = \"1500B\" }}, {BE_DRR}"),
    );
    expect(
        &text,
        "{ name = \"af\"",
        0,
        "link[0].queue.classes[0].dscp",
        "class 'af' lists no code point and is not the default",
    );
}

#[test]
fn exactly_one_class_is_the_default() {
    let text = sched(
        "drr",
        "{ name = \"af\", dscp = \"AF11\", quantum = \"1500B\" }",
    );
    expect(
        &text,
        "[{",
        0,
        "link[0].queue.classes",
        "no class is the default; mark exactly one with default = true",
    );
    let text = sched(
        "drr",
        &format!("{}, {BE_DRR}", BE_DRR.replace("\"be\"", "\"af\"")),
    );
    expect(
        &text,
        "true",
        1,
        "link[0].queue.classes[1].default",
        "class 'af' is already the default",
    );
}

#[test]
fn a_class_is_served_one_way_that_fits_the_policy() {
    let text = sched("drr", "{ name = \"ef\", dscp = \"EF\", priority = true, quantum = \"1500B\" }, { name = \"be\", default = true, quantum = \"1500B\" }");
    expect(&text, "\"1500B\"", 0, "link[0].queue.classes[0].quantum", "a class is served one way: priority = true, a quantum (drr) or a weight (wrr); this class already has priority = true");
    let text = sched(
        "drr",
        "{ name = \"be\", default = true, quantum = \"1500B\", weight = 2 }",
    );
    expect(
        &text,
        "2 }",
        0,
        "link[0].queue.classes[0].weight",
        "this class already has a quantum",
    );
    // A drr class needs a quantum, a wrr class a weight, unless it is served first.
    let text = sched(
        "drr",
        "{ name = \"ef\", dscp = \"EF\", priority = true }, { name = \"be\", default = true }",
    );
    expect(&text, "{ name = \"be\"", 0, "link[0].queue.classes[1].quantum", "classes[1] lacks the required field 'quantum' (for example quantum = \"1500B\"); under policy \"drr\" every class has one, or priority = true");
    let text = sched("wrr", "{ name = \"be\", default = true, priority = false }");
    expect(
        &text,
        "{ name",
        0,
        "link[0].queue.classes[0].weight",
        "classes[0] lacks the required field 'weight' (for example weight = 1)",
    );
    // A service of another policy: the model says which one the policy needs.
    let text = sched("drr", "{ name = \"be\", default = true, weight = 2 }");
    expect(
        &text,
        "2 }",
        0,
        "link[0].queue.classes[0].weight",
        "policy drr shares bytes: give this class a quantum",
    );
    let text = sched("wrr", "{ name = \"ef\", dscp = \"EF\", weight = 1 }, { name = \"be\", default = true, quantum = \"1500B\" }");
    expect(
        &text,
        "\"1500B\"",
        0,
        "link[0].queue.classes[1].quantum",
        "policy wrr shares packets: give this class a weight",
    );
    let text = sched(
        "priority",
        "{ name = \"ef\", dscp = \"EF\" }, { name = \"be\", default = true, quantum = \"1500B\" }",
    );
    expect(
        &text,
        "\"1500B\"",
        0,
        "link[0].queue.classes[1].quantum",
        "a quantum needs policy drr; strict priority serves classes in list order",
    );
    let text = sched(
        "priority",
        "{ name = \"ef\", dscp = \"EF\", weight = 4 }, { name = \"be\", default = true }",
    );
    expect(
        &text,
        "4 }",
        0,
        "link[0].queue.classes[0].weight",
        "a weight needs policy wrr",
    );
    let text = sched(
        "priority",
        "{ name = \"ef\", dscp = \"EF\" }, { name = \"be\", default = true, priority = false }",
    );
    expect(&text, "false", 0, "link[0].queue.classes[1].priority", "under policy \"priority\" every class is served by strict priority, in the order of the classes: leave 'priority' out");
    // priority = true under policy priority says what the policy does anyway.
    let text = sched(
        "priority",
        "{ name = \"ef\", dscp = \"EF\", priority = true }, { name = \"be\", default = true }",
    );
    assert!(load(&text).is_ok());
}

#[test]
fn quanta_are_sizes_and_weights_counts_both_above_zero() {
    let text = sched("drr", "{ name = \"be\", default = true, quantum = \"0B\" }");
    expect(
        &text,
        "\"0B\"",
        0,
        "link[0].queue.classes[0].quantum",
        "a quantum must be greater than zero",
    );
    let text = sched("drr", "{ name = \"be\", default = true, quantum = 1500 }");
    expect(
        &text,
        "1500",
        0,
        "link[0].queue.classes[0].quantum",
        "expected a size with a unit, like '1500B', found the bare number 1500",
    );
    let text = sched(
        "drr",
        "{ name = \"be\", default = true, quantum = \"5GiB\" }",
    );
    expect(
        &text,
        "\"5GiB\"",
        0,
        "link[0].queue.classes[0].quantum",
        "a quantum must be below 4GiB, found 5368709120B",
    );
    let text = sched("wrr", "{ name = \"be\", default = true, weight = 0 }");
    expect(
        &text,
        "0 }",
        0,
        "link[0].queue.classes[0].weight",
        "a weight must be greater than zero",
    );
    let text = sched("wrr", "{ name = \"be\", default = true, weight = 1.5 }");
    expect(
        &text,
        "1.5",
        0,
        "link[0].queue.classes[0].weight",
        "expected a non-negative integer, found the float 1.5",
    );
    let text = sched(
        "wrr",
        "{ name = \"be\", default = true, weight = 5000000000 }",
    );
    expect(
        &text,
        "5000000000",
        0,
        "link[0].queue.classes[0].weight",
        "expected an integer from 0 to 4294967295",
    );
    let text = sched("drr", "{ name = \"be\", default = true, quantum = \"$q\" }")
        .replace("[scenario]", "[params]\nq = 3\n[scenario]");
    expect(
        &text,
        "\"$q\"",
        0,
        "link[0].queue.classes[0].quantum",
        "(from parameter 'q' = 3)",
    );
}

#[test]
fn schedulers_do_not_nest() {
    let inner = format!("{{ kind = \"scheduler\", policy = \"drr\", classes = [{BE_DRR}] }}");
    let text = sched(
        "drr",
        &format!("{{ name = \"be\", default = true, quantum = \"1500B\", queue = {inner} }}"),
    );
    expect(
        &text,
        "\"scheduler\"",
        1,
        "link[0].queue.classes[0].queue.kind",
        "a class queue cannot itself be a scheduler (schedulers do not nest)",
    );
}

#[test]
fn class_queue_errors_point_into_the_class_queue() {
    let class =
        |q: &str| format!("{{ name = \"be\", default = true, quantum = \"1500B\", queue = {q} }}");
    // read on their own
    let text = sched(
        "drr",
        &class("{ kind = \"red\", min_th = 15, max_th = 5, max_p = 0.1 }"),
    );
    expect(
        &text,
        "15,",
        0,
        "link[0].queue.classes[0].queue.min_th",
        "min_th 15 must be below max_th 5",
    );
    let text = sched("drr", &class("{ limit = \"0pkt\" }"));
    expect(
        &text,
        "\"0pkt\"",
        0,
        "link[0].queue.classes[0].queue.limit",
        "a queue limit must be at least 1 packet",
    );
    let text = sched("drr", &class("{ kind = \"droptail\", min_th = 5 }"));
    expect(
        &text,
        "min_th",
        0,
        "link[0].queue.classes[0].queue.min_th",
        "'min_th' is a field of red queues, not of droptail queues",
    );
    let text = sched("drr", &class("{ kind = \"codel\" }"));
    expect(
        &text,
        "\"codel\"",
        0,
        "link[0].queue.classes[0].queue.kind",
        "unknown queue kind 'codel'",
    );
    let text = sched(
        "drr",
        &class("{ kind = \"rio\", in = { min_th = 5, max_th = 15, max_p = 0.1 } }"),
    );
    expect(
        &text,
        "{ kind = \"rio\"",
        0,
        "link[0].queue.classes[0].queue.out",
        "queue lacks the required field 'out'",
    );
    // checked by the class queue's model once the link's rate is known
    let text = sched(
        "drr",
        &class("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, w_q = 0 }"),
    );
    expect(
        &text,
        "0 }",
        0,
        "link[0].queue.classes[0].queue.w_q",
        "w_q 0 must be in (0, 1]",
    );
    let text = sched(
        "drr",
        &class(
            "{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, mean_packet_size = \"0B\" }",
        ),
    );
    expect(
        &text,
        "\"0B\"",
        0,
        "link[0].queue.classes[0].queue.mean_packet_size",
        "the mean packet size must be positive",
    );
    let text = sched(
        "drr",
        &class("{ kind = \"red\", min_th = 5, max_th = 60, max_p = 0.1 }"),
    );
    expect(
        &text,
        "{ kind = \"red\"",
        0,
        "link[0].queue.classes[0].queue.limit",
        "the default limit is 50pkt",
    );
    let text = sched(
        "drr",
        &class("{ kind = \"red\", limit = \"10pkt\", min_th = 5, max_th = 15, max_p = 0.1 }"),
    );
    expect(
        &text,
        "\"10pkt\"",
        0,
        "link[0].queue.classes[0].queue.limit",
        "is below max_th 15",
    );
}

#[test]
fn classes_written_as_sub_tables_report_at_their_headers() {
    let text = BASE.replacen(
        "delay = \"1ms\"",
        "delay = \"1ms\"\n[link.queue]\nkind = \"scheduler\"\npolicy = \"wrr\"\n[[link.queue.classes]]\nname = \"af\"\ndscp = \"AF11\"\nweight = 2\n[[link.queue.classes]]\nname = \"be\"\ndefault = true\nweight = 1\n[link.queue.classes.queue]\nkind = \"red\"\nmin_th = 5\nmax_th = 15\nmax_p = 0.1\nw_q = 2.0",
        1,
    );
    expect(
        &text,
        "2.0",
        0,
        "link[0].queue.classes[1].queue.w_q",
        "w_q 2 must be in (0, 1]",
    );
    let text = text
        .replace("w_q = 2.0", "w_q = 0.5")
        .replace("weight = 2\n", "");
    expect(
        &text,
        "[[link.queue.classes]]",
        0,
        "link[0].queue.classes[0].weight",
        "classes[0] lacks the required field 'weight'",
    );
}

// ---- enhanced token buckets and CSAs (Giacomazzi et al. §IV) -------------------------------

const ETB: &str = "meter = { kind = \"enhanced_token_bucket\", rate = \"1Mbps\", b1 = 10, b2 = 1, token_size = \"576B\", alpha = 0.2, buffer = \"100pkt\" }\n";

/// An enhanced token bucket meter with `fields` (rate and kind given).
fn etb(fields: &str) -> String {
    cond(&format!(
        "meter = {{ kind = \"enhanced_token_bucket\", rate = \"1Mbps\"{fields} }}\n"
    ))
}

#[test]
fn an_enhanced_token_bucket_with_a_fixed_alpha_needs_no_csa() {
    use afsim_core::edge::PerColourAction::{DowngradeToBestEffort, Drop, Keep};
    use afsim_core::scenario::spec::MeterSpec;
    let s = load(&cond(ETB)).unwrap();
    let c = &s.conditioners[0];
    let MeterSpec::EnhancedTokenBucket(p) = &c.meter else {
        panic!("an enhanced token bucket")
    };
    assert_eq!(
        (p.rate_bps, p.b1_tokens, p.b2_tokens, p.token_bytes, p.alpha),
        (1_000_000, 10, 1, 576, 0.2)
    );
    // its input buffer is the conditioner's holding FIFO
    assert_eq!((p.buffer_packets, c.buffer_packets), (100, 100));
    // the excess is "served with Per Hop Behavior downgraded to Best Effort"
    assert_eq!(c.actions, [Keep, DowngradeToBestEffort, Drop]);
    assert!(s.csas.is_empty());
    assert_eq!(
        p.clock,
        afsim_core::edge::enhanced_token_bucket::TokenClock::Continuous,
        "the default"
    );
}

#[test]
fn an_enhanced_token_bucket_token_clock_is_continuous_or_periodic() {
    use afsim_core::edge::enhanced_token_bucket::TokenClock;
    use afsim_core::scenario::spec::MeterSpec;
    let s = load(&cond(
        &ETB.replace(" }\n", ", token_clock = \"periodic\" }\n"),
    ))
    .unwrap();
    let MeterSpec::EnhancedTokenBucket(p) = &s.conditioners[0].meter else {
        panic!("an enhanced token bucket")
    };
    assert_eq!(p.clock, TokenClock::Periodic);
    let text = cond(&ETB.replace(" }\n", ", token_clock = \"periodical\" }\n"));
    expect(&text, "\"periodical\"", 0, "conditioner[0].meter.token_clock", "unknown token clock 'periodical' (did you mean 'periodic'?); the token clocks are: continuous, periodic, periodic_own_phase");
    let text = cond(&ETB.replace(" }\n", ", token_clock = 1 }\n"));
    expect(
        &text,
        "1 }",
        0,
        "conditioner[0].meter.token_clock",
        "expected a string, found the integer 1",
    );
}

#[test]
fn enhanced_token_bucket_fields_are_required_typed_and_checked_by_its_model() {
    let text = etb(", b1 = 10, token_size = \"576B\", alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "{ kind = \"enhanced",
        0,
        "conditioner[0].meter.b2",
        "meter lacks the required field 'b2' (for example b2 = 1)",
    );
    let text = etb(", b1 = 10, b2 = 1, token_size = \"576B\", alpha = 0.2");
    expect(
        &text,
        "{ kind = \"enhanced",
        0,
        "conditioner[0].meter.buffer",
        "meter lacks the required field 'buffer'",
    );
    let text = etb(", b1 = 10, b2 = 1, alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "{ kind = \"enhanced",
        0,
        "conditioner[0].meter.token_size",
        "meter lacks the required field 'token_size'",
    );
    let text =
        etb(", b1 = \"10pkt\", b2 = 1, token_size = \"576B\", alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "\"10pkt\"",
        0,
        "conditioner[0].meter.b1",
        "expected a non-negative integer, found the string \"10pkt\"",
    );
    let text = etb(", b1 = 0, b2 = 1, token_size = \"576B\", alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "0, b2",
        0,
        "conditioner[0].meter.b1",
        "the conformant bucket must hold at least one token",
    );
    let text = etb(", b1 = 10, b2 = 0, token_size = \"576B\", alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "0, token",
        0,
        "conditioner[0].meter.b2",
        "use alpha = 0 to send no excess",
    );
    let text = etb(", b1 = 10, b2 = 1, token_size = \"0B\", alpha = 0.2, buffer = \"100pkt\"");
    expect(
        &text,
        "\"0B\"",
        0,
        "conditioner[0].meter.token_size",
        "the packet length L of a token must be positive",
    );
    let text = etb(", b1 = 10, b2 = 1, token_size = \"576B\", alpha = 1.5, buffer = \"100pkt\"");
    expect(
        &text,
        "1.5",
        0,
        "conditioner[0].meter.alpha",
        "alpha must lie in [0, 1], got 1.5",
    );
    let text = etb(", b1 = 10, b2 = 1, token_size = \"576B\", alpha = 0.2, buffer = \"0pkt\"");
    expect(
        &text,
        "\"0pkt\"",
        0,
        "conditioner[0].meter.buffer",
        "needs an input buffer of at least one packet",
    );
    let text = etb(", b1 = 10, b2 = 1, token_size = \"576B\", alpha = 0.2, buffer = \"64KB\"");
    expect(
        &text,
        "\"64KB\"",
        0,
        "conditioner[0].meter.buffer",
        "the input buffer of an enhanced token bucket is counted in packets",
    );
    let text = etb(", depth = \"10pkt\"");
    expect(&text, "depth", 0, "conditioner[0].meter.depth", "'depth' is a field of token_bucket meters, not of enhanced_token_bucket meters; the fields of an enhanced_token_bucket meter are: kind, rate, b1, b2, token_size, alpha, buffer, token_clock");
    let text =
        cond("meter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\", b1 = 10 }\n");
    expect(
        &text,
        "b1",
        0,
        "conditioner[0].meter.b1",
        "'b1' is a field of enhanced_token_bucket meters, not of token_bucket meters",
    );
}

#[test]
fn an_enhanced_token_bucket_has_its_own_buffer_and_neither_shapes_nor_colours_red() {
    let text = cond(&format!("{ETB}buffer = \"10pkt\"\n"));
    expect(
        &text,
        "\"10pkt\"",
        0,
        "conditioner[0].buffer",
        "an enhanced_token_bucket meter has its own input buffer: give it in the meter",
    );
    let text = cond(&format!("{ETB}yellow = \"shape\"\n"));
    expect(
        &text,
        "\"shape\"",
        0,
        "conditioner[0].yellow",
        "an enhanced_token_bucket meter already holds the packets it cannot serve",
    );
    let text = cond(&format!("{ETB}red = \"drop\"\n"));
    expect(
        &text,
        "\"drop\"",
        0,
        "conditioner[0].red",
        "an enhanced_token_bucket meter colours packets green or yellow only",
    );
    // yellow may be policed instead of downgraded
    let s = load(&cond(&format!("{ETB}yellow = \"drop\"\n"))).unwrap();
    assert_eq!(
        s.conditioners[0].actions[1],
        afsim_core::edge::PerColourAction::Drop
    );
}

#[test]
fn an_enhanced_token_bucket_without_alpha_needs_a_csa() {
    let text = etb(", b1 = 10, b2 = 1, token_size = \"576B\", buffer = \"100pkt\"");
    expect(
        &text,
        "{ kind = \"enhanced",
        0,
        "conditioner[0].meter.alpha",
        "meter lacks the required field 'alpha' (for example alpha = 0.4): no [[csa]] controls conditioner 'c', so its alpha is fixed",
    );
}

/// Two AF hosts behind border b1, RIO queues b1 → core and core → b2, and the enhanced token
/// buckets `etb0`, `etb1` (alpha left to the CSAs) on b1's input lines.
const CSA_NET: &str = r#"[scenario]
duration = "10s"

[[node]]
name = "h"
count = 2
[[node]]
name = "b1"
[[node]]
name = "core"
[[node]]
name = "b2"

[[link]]
between = ["h", "b1"]
rate = "2Mbps"
delay = "1ms"
[[link]]
between = ["b1", "core"]
rate = "3Mbps"
delay = "5ms"
queue = { kind = "rio", in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 5, max_th = 15, max_p = 0.2 } }
[[link]]
between = ["core", "b2"]
rate = "3Mbps"
delay = "5ms"
queue = { kind = "rio", in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 5, max_th = 15, max_p = 0.2 } }
reverse_queue = { kind = "red", min_th = 5, max_th = 15, max_p = 0.1 }

[[conditioner]]
name = "etb"
at = "b1"
from = "h"
meter = { kind = "enhanced_token_bucket", rate = "1Mbps", b1 = 10, b2 = 1, token_size = "576B", buffer = "100pkt" }
green = "AF11"
"#;

/// CSA_NET and a CSA `k` at b1 watching its queue towards core, setting `etb`, ending with `extra`.
fn csa(extra: &str) -> String {
    format!("{CSA_NET}\n[[csa]]\nname = \"k\"\nat = \"b1\"\ntowards = \"core\"\ntargets = [\"etb\"]\n{extra}")
}

#[test]
fn the_corpus_csa_file_has_a_local_and_a_remote_csa_over_per_line_buckets() {
    use afsim_core::scenario::spec::MeterSpec;
    let s = corpus_file("csa.toml");
    let node = |n: &str| s.nodes.iter().position(|x| x.name == n).unwrap();
    let names: Vec<&str> = s.conditioners.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["etb0", "etb1", "fixed"]);
    let alphas: Vec<f64> = s
        .conditioners
        .iter()
        .map(|c| match &c.meter {
            MeterSpec::EnhancedTokenBucket(p) => p.alpha,
            _ => panic!("enhanced token buckets only"),
        })
        .collect();
    // the CSAs start their buckets at max_alpha; the uncontrolled one keeps its fixed alpha
    assert_eq!(alphas, [0.4, 0.4, 0.2]);
    assert!(s.conditioners.iter().all(|c| c.buffer_packets == 100));
    let csas: Vec<(&str, usize, usize, &[usize])> = s
        .csas
        .iter()
        .map(|c| (c.name.as_str(), c.node, c.towards, c.targets.as_slice()))
        .collect();
    assert_eq!(
        csas,
        [
            ("border1", node("border1"), node("core"), &[0, 1][..]),
            ("core", node("core"), node("border2"), &[0, 1][..])
        ]
    );
    for c in &s.csas {
        assert_eq!(c.params, afsim_core::edge::csa::Params::TABLE_1);
        assert_eq!((c.signal_bytes, c.signal_dscp), (56, 48));
    }
}

#[test]
fn csa_defaults_are_table_1_and_fields_override_them() {
    use afsim_core::edge::csa::Params;
    let s = load(&csa("")).unwrap();
    let c = &s.csas[0];
    assert_eq!(
        (c.name.as_str(), c.node, c.towards, c.targets.as_slice()),
        ("k", 2, 3, &[0, 1][..])
    );
    assert_eq!(
        (c.params, c.signal_bytes, c.signal_dscp),
        (Params::TABLE_1, 56, 48)
    );
    let s = load(&csa(
        "t1 = \"50ms\"\nt2 = \"200ms\"\ndelta_alpha = 0.05\nmin_alpha = 0\nmax_alpha = 0.3\nsignal_size = \"64B\"\nsignal_dscp = 46\n",
    ))
    .unwrap();
    let c = &s.csas[0];
    let want = Params {
        t1: SimDuration::from_millis(50),
        t2: SimDuration::from_millis(200),
        delta_alpha: 0.05,
        min_alpha: 0.0,
        max_alpha: 0.3,
        rules: afsim_core::edge::csa::Rules::Text,
    };
    assert_eq!((c.params, c.signal_bytes, c.signal_dscp), (want, 64, 46));
    use afsim_core::scenario::spec::MeterSpec;
    let MeterSpec::EnhancedTokenBucket(p) = &s.conditioners[1].meter else {
        panic!()
    };
    assert_eq!(p.alpha, 0.3);
}

#[test]
fn csa_fields_are_typed_and_checked_by_its_model() {
    let text = csa("t1 = \"0s\"\n");
    expect(&text, "\"0s\"", 0, "csa[0].t1", "timer T1 must be positive");
    let text = csa("t1 = \"90ms\"\nt2 = \"90ms\"\n");
    expect(
        &text,
        "\"90ms\"",
        1,
        "csa[0].t2",
        "T2 (90ms) must be longer than T1 (90ms)",
    );
    // t2 left at its default: reported at the table, with t2's path
    let text = csa("t1 = \"100ms\"\n");
    expect(
        &text,
        "[[csa]]",
        0,
        "csa[0].t2",
        "T2 (90ms) must be longer than T1 (100ms)",
    );
    let text = csa("delta_alpha = 0\n");
    expect(
        &text,
        "0\n",
        0,
        "csa[0].delta_alpha",
        "the step must lie in (0, 1], got 0",
    );
    let text = csa("min_alpha = 0.5\n");
    expect(
        &text,
        "0.5",
        0,
        "csa[0].min_alpha",
        "min_alpha (0.5) is above max_alpha (0.4)",
    );
    let text = csa("max_alpha = 1.2\n");
    expect(
        &text,
        "1.2",
        0,
        "csa[0].max_alpha",
        "max_alpha must lie in [0, 1], got 1.2",
    );
    let text = csa("max_alpha = \"0.4\"\n");
    expect(
        &text,
        "\"0.4\"",
        0,
        "csa[0].max_alpha",
        "expected a number, found the string \"0.4\"",
    );
    let text = csa("t1 = 30\n");
    expect(&text, "30\n", 0, "csa[0].t1", "expected a time with a unit");
    let text = csa("signal_size = \"20B\"\n");
    expect(
        &text,
        "\"20B\"",
        0,
        "csa[0].signal_size",
        "a control packet is an IP packet of 28B (IP and ICMP headers) to 65535B, found 20B",
    );
    let text = csa("signal_dscp = \"CS8\"\n");
    expect(
        &text,
        "\"CS8\"",
        0,
        "csa[0].signal_dscp",
        "unknown code point 'CS8'",
    );
    let text = csa("rules = \"isup\"\n");
    expect(
        &text,
        "\"isup\"",
        0,
        "csa[0].rules",
        "unknown CSA rule set 'isup'; the CSA rule sets are: text, per_period",
    );
    let text = csa("scope = \"per_flow\"\n");
    expect(
        &text,
        "\"per_flow\"",
        0,
        "csa[0].scope",
        "unknown CSA scope 'per_flow'",
    );
    let text = csa("trace = \"yes\"\n");
    expect(
        &text,
        "\"yes\"",
        0,
        "csa[0].trace",
        "expected true or false",
    );
    let text = csa("period = \"1s\"\n");
    expect(
        &text,
        "period",
        0,
        "csa[0].period",
        "unknown field 'period' in [[csa]]; the fields are: name, at, towards, targets, t1, t2",
    );
    // the accepted values
    let s = load(&csa(
        "rules = \"per_period\"\nscope = \"per_bucket\"\ntrace = true\n",
    ))
    .unwrap();
    use afsim_core::scenario::spec::CsaScope;
    assert_eq!(
        (s.csas[0].params.rules, s.csas[0].scope, s.csas[0].trace),
        (
            afsim_core::edge::csa::Rules::PerPeriod,
            CsaScope::PerBucket,
            true
        )
    );
    let s = load(&csa("")).unwrap();
    assert_eq!(
        (s.csas[0].scope, s.csas[0].trace),
        (CsaScope::Shared, false),
        "defaults"
    );
}

#[test]
fn max_data_packets_is_a_stop_condition_of_its_own() {
    let s = load("[scenario]\nmax_data_packets = 40_000_000\n[[node]]\nname = \"a\"\n").unwrap();
    assert_eq!(
        (s.stop.max_data_packets, s.stop.max_packets, s.stop.duration),
        (Some(40_000_000), None, None)
    );
    let text = "[scenario]\nmax_data_packets = 0\n[[node]]\nname = \"a\"\n";
    expect(
        text,
        "0\n",
        0,
        "scenario.max_data_packets",
        "expected a positive integer, found 0",
    );
    let text = "[scenario]\nmax_data_packets = \"many\"\n[[node]]\nname = \"a\"\n";
    expect(
        text,
        "\"many\"",
        0,
        "scenario.max_data_packets",
        "expected a positive integer, found the string",
    );
}

#[test]
fn a_csa_needs_a_name_a_place_and_targets() {
    let text = format!("{CSA_NET}[[csa]]\nname = \"k\"\nat = \"b1\"\ntargets = [\"etb\"]\n");
    expect(
        &text,
        "[[csa]]",
        0,
        "csa[0].towards",
        "[[csa]] lacks the required field 'towards' (for example towards = \"r2\")",
    );
    let text = format!("{CSA_NET}[[csa]]\nname = \"k\"\nat = \"b1\"\ntowards = \"core\"\n");
    expect(
        &text,
        "[[csa]]",
        0,
        "csa[0].targets",
        "[[csa]] lacks the required field 'targets'",
    );
    let text =
        format!("{CSA_NET}[[csa]]\nname = \"k\"\nat = \"b1\"\ntowards = \"core\"\ntargets = []\n");
    expect(&text, "[]", 0, "csa[0].targets", "an empty list of targets");
    let text = format!(
        "{CSA_NET}[[csa]]\nname = \"1k\"\nat = \"b1\"\ntowards = \"core\"\ntargets = \"etb\"\n"
    );
    expect(&text, "\"1k\"", 0, "csa[0].name", "is not a valid name");
    let text = format!("{CSA_NET}[csa]\nname = \"k\"\n");
    expect(
        &text,
        "[csa]",
        0,
        "csa",
        "expected [[csa]] tables (write [[csa]], with double brackets)",
    );
    let text = format!("{CSA_NET}[[csas]]\nname = \"k\"\n");
    expect(
        &text,
        "csas",
        0,
        "csas",
        "unknown table 'csas' (did you mean [[csa]]?)",
    );
}

#[test]
fn a_csa_watches_the_rio_queue_of_a_link_from_at_towards_towards() {
    let text = csa("").replace("towards = \"core\"", "towards = \"cor\"");
    expect(
        &text,
        "\"cor\"",
        0,
        "csa[0].towards",
        "unknown node or group 'cor' (did you mean 'core'?)",
    );
    let text = csa("").replace("at = \"b1\"\ntowards", "at = \"bx\"\ntowards");
    expect(
        &text,
        "\"bx\"",
        0,
        "csa[0].at",
        "unknown node or group 'bx'",
    );
    let text = csa("").replace("towards = \"core\"", "towards = \"b1\"");
    expect(
        &text,
        "\"b1\"\ntargets",
        0,
        "csa[0].towards",
        "a CSA at 'b1' watches one of its output queues: 'towards' names a neighbour",
    );
    let text = csa("").replace("towards = \"core\"", "towards = \"b2\"");
    expect(
        &text,
        "\"b2\"\ntargets",
        0,
        "csa[0].towards",
        "no link joins 'b1' and 'b2': a CSA watches the output queue of 'at' towards 'towards'",
    );
    let text = csa("").replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"h\"\ntowards = \"core\"",
    );
    expect(
        &text,
        "\"core\"\ntargets",
        0,
        "csa[0].towards",
        "no link joins 'h0' and 'core'",
    );
    // the direction matters: b2 → core is RED, and reverse_queue's kind is pointed at
    let text = csa("").replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"b2\"\ntowards = \"core\"",
    );
    expect(
        &text,
        "\"red\"",
        0,
        "link[2].reverse_queue.kind",
        "csa 'k' (csa[0], line 38) watches the queue at 'b2' towards 'core', which is a red queue: the Congestion Signaling Algorithm watches a RIO buffer, so this queue must be kind = \"rio\"",
    );
    // core → b1 copies b1 → core's queue? No: without reverse_queue it copies `queue`, so it is RIO
    let text = csa("").replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"core\"\ntowards = \"b1\"",
    );
    assert_eq!(load(&text).unwrap().csas[0].node, 3);
    // a link without queues has drop-tail ones: the error points at the link
    let text = csa("").replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"b1\"\ntowards = \"h0\"",
    );
    expect(
        &text,
        "[[link]]",
        0,
        "link[0].queue",
        "which is a droptail queue",
    );
    // a queue table without kind is drop-tail: the error points at the table
    let text = csa("").replace("[[link]]\nbetween = [\"h\", \"b1\"]\nrate = \"2Mbps\"\ndelay = \"1ms\"\n", "[[link]]\nbetween = [\"h\", \"b1\"]\nrate = \"2Mbps\"\ndelay = \"1ms\"\nqueue = { limit = \"20pkt\" }\n").replace("towards = \"core\"", "towards = \"h1\"");
    expect(
        &text,
        "{ limit",
        0,
        "link[0].queue.kind",
        "which is a droptail queue",
    );
}

#[test]
fn a_csa_group_pairs_at_and_towards_like_a_link_and_shares_its_targets() {
    let text = csa("").replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"h\"\ntowards = \"b1\"",
    );
    // h_i → b1 queues are the default drop-tail
    expect(
        &text,
        "[[link]]",
        0,
        "link[0].queue",
        "csa 'k0' of group 'k' (csa[0], line 38) watches the queue at 'h0' towards 'b1'",
    );
    let rio = "queue = { kind = \"rio\", in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 5, max_th = 15, max_p = 0.2 } }\n";
    let text = csa("")
        .replacen("delay = \"1ms\"\n", &format!("delay = \"1ms\"\n{rio}"), 1)
        .replace(
            "at = \"b1\"\ntowards = \"core\"",
            "at = \"h\"\ntowards = \"b1\"",
        );
    let s = load(&text).unwrap();
    let c: Vec<(&str, usize, usize, &[usize])> = s
        .csas
        .iter()
        .map(|c| (c.name.as_str(), c.node, c.towards, c.targets.as_slice()))
        .collect();
    assert_eq!(c, [("k0", 0, 2, &[0, 1][..]), ("k1", 1, 2, &[0, 1][..])]);
    // groups of different sizes
    let text = format!("[[node]]\nname = \"x\"\ncount = 3\n{}", csa("")).replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"h\"\ntowards = \"x\"",
    );
    expect(&text, "\"x\"\ntargets", 0, "csa[0].towards", "'h' is a group of 2 nodes and 'x' a group of 3: a CSA between two groups pairs their members one to one");
}

#[test]
fn csa_targets_are_enhanced_token_bucket_conditioners_or_groups() {
    let text = csa("").replace("targets = [\"etb\"]", "targets = [\"etb\", \"etc\"]");
    expect(
        &text,
        "\"etc\"",
        0,
        "csa[0].targets[1]",
        "unknown conditioner or conditioner group 'etc' (did you mean 'etb'?)",
    );
    let text = csa("").replace("targets = [\"etb\"]", "targets = [\"etb2\"]");
    expect(
        &text,
        "\"etb2\"",
        0,
        "csa[0].targets[0]",
        "unknown conditioner or conditioner group 'etb2'",
    );
    let tb = "[[conditioner]]\nname = \"tb\"\nat = \"core\"\nmeter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }\n";
    let text = format!("{CSA_NET}{tb}[[csa]]\nname = \"k\"\nat = \"b1\"\ntowards = \"core\"\ntargets = [\"etb\", \"tb\"]\n");
    expect(&text, "\"tb\"]", 0, "csa[0].targets[1]", "conditioner 'tb' has a token_bucket meter; a CSA sets the alpha of enhanced_token_bucket meters only");
    let group = "[[conditioner]]\nname = \"tb\"\nat = \"b1\"\nfrom = \"h\"\nmeter = { kind = \"token_bucket\", rate = \"1Mbps\", depth = \"10KB\" }\n";
    let text = format!("{CSA_NET}{group}[[csa]]\nname = \"k\"\nat = \"b1\"\ntowards = \"core\"\ntargets = \"tb\"\n");
    expect(
        &text,
        "\"tb\"\n",
        1,
        "csa[0].targets[0]",
        "conditioner 'tb0' of group 'tb' has a token_bucket meter",
    );
    // a member named beside its group is controlled once, in the order first named
    let s = load(&csa("").replace("targets = [\"etb\"]", "targets = [\"etb1\", \"etb\"]")).unwrap();
    assert_eq!(s.csas[0].targets, [1, 0]);
}

#[test]
fn a_bucket_some_csa_controls_starts_at_the_smallest_max_alpha_and_a_written_alpha_must_agree() {
    use afsim_core::scenario::spec::MeterSpec;
    let alphas = |s: &afsim_core::Spec| -> Vec<f64> {
        s.conditioners
            .iter()
            .map(|c| match &c.meter {
                MeterSpec::EnhancedTokenBucket(p) => p.alpha,
                _ => panic!(),
            })
            .collect()
    };
    // one CSA for etb0 only: etb1 has no alpha and no CSA
    let text = csa("").replace("targets = [\"etb\"]", "targets = [\"etb0\"]");
    expect(
        &text,
        "{ kind = \"enhanced",
        0,
        "conditioner[0].meter.alpha",
        "no [[csa]] controls conditioner 'etb1'",
    );
    // a remote CSA with a lower ceiling: the engine runs a bucket at the smallest alpha announced
    let remote = "[[csa]]\nname = \"r\"\nat = \"core\"\ntowards = \"b2\"\ntargets = \"etb0\"\nmax_alpha = 0.3\n";
    let s = load(&csa(remote)).unwrap();
    assert_eq!(alphas(&s), [0.3, 0.4]);
    assert_eq!(
        s.csas.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["k", "r"]
    );
    // a written alpha that the CSAs would override at once
    let text = csa("").replace(
        "buffer = \"100pkt\" }",
        "alpha = 0.2, buffer = \"100pkt\" }",
    );
    expect(
        &text,
        "0.2, buffer",
        0,
        "conditioner[0].meter.alpha",
        "csa 'k' (csa[0], line 38) controls conditioner 'etb0' and starts its alpha at max_alpha 0.4, so alpha = 0.2 would never apply",
    );
    let s = load(&csa("").replace(
        "buffer = \"100pkt\" }",
        "alpha = 0.4, buffer = \"100pkt\" }",
    ))
    .unwrap();
    assert_eq!(alphas(&s), [0.4, 0.4]);
}

#[test]
fn csa_names_are_unique_and_a_group_reserves_its_name() {
    let second = "[[csa]]\nname = \"k\"\nat = \"core\"\ntowards = \"b2\"\ntargets = \"etb\"\n";
    let text = csa(second);
    expect(
        &text,
        "\"k\"",
        1,
        "csa[1].name",
        "the CSA name 'k' is already taken by csa 'k' (csa[0], line 38)",
    );
    let rio = "queue = { kind = \"rio\", in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 5, max_th = 15, max_p = 0.2 } }\n";
    let group = "[[csa]]\nname = \"k\"\nat = \"h\"\ntowards = \"b1\"\ntargets = \"etb\"\n";
    let text = csa(group)
        .replacen("delay = \"1ms\"\n", &format!("delay = \"1ms\"\n{rio}"), 1)
        .replace("name = \"k\"\nat = \"b1\"", "name = \"k0\"\nat = \"b1\"");
    expect(
        &text,
        "\"k\"",
        0,
        "csa[1].name",
        "group 'k' names its CSA 'k0', but the CSA name 'k0' is already taken by csa 'k0'",
    );
    // conditioner names are a namespace of their own
    let s = load(&csa("").replace("name = \"k\"", "name = \"etb\"")).unwrap();
    assert_eq!(s.csas[0].name, "etb");
}

#[test]
fn a_remote_csa_must_reach_its_targets() {
    let island = "[[node]]\nname = \"x\"\n[[node]]\nname = \"y\"\n[[link]]\nbetween = [\"x\", \"y\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = { kind = \"rio\", in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 5, max_th = 15, max_p = 0.2 } }\n";
    let text = format!("{island}{}", csa("")).replace(
        "at = \"b1\"\ntowards = \"core\"",
        "at = \"x\"\ntowards = \"y\"",
    );
    expect(&text, "\"etb\"", 1, "csa[0].targets[0]", "csa 'k': its control packets cannot reach conditioner 'etb0' at 'b1' from 'x': no chain of links joins them");
}

#[test]
fn a_csa_over_an_empty_group_makes_nothing_and_a_left_out_conditioner_is_no_target() {
    let text = format!("[params]\nk = 0\n{}", csa("")).replace("count = 2", "count = \"$k\"");
    let s = load(&text).unwrap();
    assert!(s.conditioners.is_empty());
    assert_eq!(s.csas.len(), 1);
    assert!(s.csas[0].targets.is_empty());
}

// ---- separate ECN marking thresholds -------------------------------------------------------

#[test]
fn marking_curves_are_read_beside_each_drop_curve() {
    let m = "mark = { min_th = 2, max_th = 6, max_p = 0.1 }";
    let text = queue(&format!(
        "{{ kind = \"red\", min_th = 10, max_th = 30, max_p = 0.1, ecn = \"tail\", {m} }}"
    ));
    let QueueSpec::Red(p) = &*load(&text).unwrap().links[0].queue_ab else {
        panic!("a red queue")
    };
    assert_eq!(
        p.common.mark[0].map(|c| (c.min_th, c.max_th)),
        Some((2.0, 6.0))
    );
    let text = queue(&format!(
        "{{ kind = \"rio\", ecn = \"front\", in = {{ min_th = 20, max_th = 40, max_p = 0.02 }}, out = {{ min_th = 10, max_th = 20, max_p = 0.1, {m} }} }}"
    ));
    let QueueSpec::Rio(p, _) = &*load(&text).unwrap().links[0].queue_ab else {
        panic!("a rio queue")
    };
    assert_eq!(
        (p.common.mark[0], p.common.mark[1].map(|c| c.max_th)),
        (None, Some(6.0))
    );
    let text = queue(&format!(
        "{{ kind = \"wred\", ecn = \"random\", levels = [{{ min_th = 20, max_th = 40, max_p = 0.02, {m} }}, {{ min_th = 10, max_th = 20, max_p = 0.1 }}] }}"
    ));
    let QueueSpec::Wred(p, _) = &*load(&text).unwrap().links[0].queue_ab else {
        panic!("a wred queue")
    };
    assert_eq!(
        (p.common.mark[0].map(|c| c.min_th), p.common.mark[1]),
        (Some(2.0), None)
    );
}

#[test]
fn mark_thresholds_need_ecn() {
    let m = "mark = { min_th = 2, max_th = 6, max_p = 0.1 }";
    let text = queue(&format!(
        "{{ kind = \"red\", min_th = 10, max_th = 30, max_p = 0.1, {m} }}"
    ));
    expect(
        &text,
        "mark =",
        0,
        "link[0].queue.mark",
        "mark thresholds need ecn",
    );
    let text = queue(&format!(
        "{{ kind = \"rio\", ecn = \"none\", in = {{ min_th = 20, max_th = 40, max_p = 0.02, {m} }}, out = {{ min_th = 10, max_th = 20, max_p = 0.1 }} }}"
    ));
    expect(
        &text,
        "mark =",
        0,
        "link[0].queue.in.mark",
        "give the queue ecn = \"tail\", \"front\" or \"random\"",
    );
    let text = queue(&format!(
        "{{ kind = \"wred\", levels = [{{ min_th = 20, max_th = 40, max_p = 0.02 }}, {{ min_th = 10, max_th = 20, max_p = 0.1, {m} }}] }}"
    ));
    expect(
        &text,
        "mark =",
        0,
        "link[0].queue.levels[1].mark",
        "mark thresholds need ecn",
    );
}

#[test]
fn marking_curve_errors_point_inside_the_marking_curve() {
    let text = queue("{ kind = \"red\", min_th = 10, max_th = 30, max_p = 0.1, ecn = \"tail\", mark = { min_th = 6, max_th = 2, max_p = 0.1 } }");
    expect(
        &text,
        "6,",
        0,
        "link[0].queue.mark.min_th",
        "min_th 6 must be below max_th 2",
    );
    let text = queue("{ kind = \"red\", min_th = 10, max_th = 30, max_p = 0.1, ecn = \"tail\", mark = { min_th = 2, max_th = 6 } }");
    expect(
        &text,
        "{ min_th = 2",
        0,
        "link[0].queue.mark.max_p",
        "mark lacks the required field 'max_p'",
    );
    let text = queue("{ kind = \"rio\", ecn = \"tail\", in = { min_th = 20, max_th = 40, max_p = 0.02, mark = { min_th = 2, max_th = 6, max_p = 0.1, mark = 1 } }, out = { min_th = 10, max_th = 20, max_p = 0.1 } }");
    expect(
        &text,
        "mark = 1",
        0,
        "link[0].queue.in.mark.mark",
        "a marking curve has no marking curve of its own",
    );
    let text = queue(
        "{ kind = \"red\", min_th = 10, max_th = 30, max_p = 0.1, ecn = \"tail\", mark = 5 }",
    );
    expect(
        &text,
        "5 }",
        0,
        "link[0].queue.mark",
        "expected a table like { min_th = 5, max_th = 15, max_p = 0.1 }",
    );
}

#[test]
fn a_rio_or_wred_marking_curve_goes_inside_its_drop_curve() {
    let text = queue("{ kind = \"rio\", ecn = \"tail\", mark = { min_th = 2, max_th = 6, max_p = 0.1 }, in = { min_th = 20, max_th = 40, max_p = 0.02 }, out = { min_th = 10, max_th = 20, max_p = 0.1 } }");
    expect(&text, "mark =", 0, "link[0].queue.mark", "'mark' is a field of red queues, not of rio queues (a rio queue's marking curves go inside its curves");
    let text = queue("{ kind = \"wred\", ecn = \"tail\", mark = { min_th = 2, max_th = 6, max_p = 0.1 }, levels = [{ min_th = 20, max_th = 40, max_p = 0.02 }] }");
    expect(
        &text,
        "mark =",
        0,
        "link[0].queue.mark",
        "inside its levels: levels = [{ ..., mark = { ... } }]",
    );
}

// ---- [[capture]] -----------------------------------------------------------------------------

#[test]
fn a_capture_of_an_unknown_port_names_the_ports_there_are() {
    let text = with("[[capture]]\nport = \"a->g0\"\nfile = \"x.pcap\"\n");
    expect(&text, "\"a->g0\"", 0, "capture[0].port", "no port 'a->g0'");
    let text = with("[[capture]]\nport = \"a-r\"\nfile = \"x.pcap\"\n");
    expect(&text, "\"a-r\"", 0, "capture[0].port", "is not a port");
}

#[test]
fn a_capture_into_a_missing_directory_or_a_directory_fails_at_its_file() {
    let text = with("[[capture]]\nport = \"a->r\"\nfile = \"/nonexistent/afsim/x.pcap\"\n");
    expect(
        &text,
        "\"/nonexistent",
        0,
        "capture[0].file",
        "the directory '/nonexistent/afsim' does not exist",
    );
    let dir = std::env::temp_dir().display().to_string();
    let text = with(&format!("[[capture]]\nport = \"a->r\"\nfile = \"{dir}\"\n"));
    expect(
        &text,
        &format!("\"{dir}\""),
        0,
        "capture[0].file",
        "is a directory, not a file",
    );
}

#[test]
fn a_port_or_a_file_captured_twice_is_an_error_at_the_second() {
    let twice = "[[capture]]\nport = \"a->r\"\nfile = \"x.pcap\"\n[[capture]]\nport = \"a->r\"\nfile = \"y.pcap\"\n";
    expect(
        &with(twice),
        "\"a->r\"",
        1,
        "capture[1].port",
        "already captured by capture[0]",
    );
    let same_file = "[[capture]]\nport = \"a->r\"\nfile = \"x.pcap\"\n[[capture]]\nport = \"r->a\"\nfile = \"x.pcap\"\n";
    expect(
        &with(same_file),
        "\"x.pcap\"",
        1,
        "capture[1].file",
        "capture[0] already writes 'x.pcap'",
    );
}

#[test]
fn a_capture_resolves_to_the_port_of_the_link_direction() {
    let text = with("[[capture]]\nport = \"r->a\"\nfile = \"x.pcap\"\n");
    let s = load(&text).unwrap();
    // g-r expands to links 0 and 1; a-r is link 2: port 4 is a->r, port 5 r->a
    assert_eq!(s.captures.len(), 1);
    assert_eq!(
        (s.captures[0].port, s.captures[0].path.to_str()),
        (5, Some("x.pcap"))
    );
    let place = &s.captures[0].place;
    assert_eq!(
        (place.line, place.column, place.field.as_str()),
        (pos(&text, "\"x.pcap\"", 0).0, 8, "capture[0].file")
    );
}

const COMPOSED: &str = "[scenario]\nduration = \"1s\"\n[params]\ncir = \"1Mbps\"\npir = \"$(2 * $cir)\"\necn = true\n\
[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"$pir\"\ndelay = \"1ms\"\n\
queue = { kind = \"red\", limit = \"50pkt\", min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, ecn = \"$(if $ecn then 'tail' else 'none')\" }\n\
[[flow]]\nname = \"t\"\nfrom = \"a\"\nto = \"b\"\nkind = \"tcp\"\necn = \"$ecn\"\n";

#[test]
fn one_boolean_parameter_drives_a_boolean_on_tcp_and_a_string_on_the_queue() {
    let s = load(COMPOSED).unwrap();
    assert_eq!(s.links[0].rate_bps, 2_000_000);
    let AppSpec::Tcp(p) = &s.flows[0].app else {
        panic!("a tcp flow")
    };
    assert!(p.ecn);
    let QueueSpec::Red(q) = &*s.links[0].queue_ab else {
        panic!("a red queue")
    };
    assert!(q.common.ecn.is_some(), "{q:?}");
    let off = load_str(COMPOSED, "bad.toml", &[("ecn".into(), "false".into())]).unwrap();
    let AppSpec::Tcp(p) = &off.flows[0].app else {
        panic!("a tcp flow")
    };
    assert!(!p.ecn);
    let QueueSpec::Red(q) = &*off.links[0].queue_ab else {
        panic!("a red queue")
    };
    assert!(q.common.ecn.is_none(), "{q:?}");
}

#[test]
fn an_error_in_a_composed_value_names_file_line_field_and_the_chain() {
    let e = load_str(COMPOSED, "bad.toml", &[("cir".into(), "10ms".into())]).unwrap_err();
    let (line, column) = pos(COMPOSED, "\"$pir\"", 0);
    assert_eq!(
        (e.line, e.column, e.field.as_str()),
        (line, column, "link[0].rate")
    );
    assert!(
        e.message.contains("unknown rate unit 'ns'")
            && e.message.contains(
                "(from parameter 'pir' = \"$(2 * $cir)\" = \"20000000ns\", from parameter 'cir' = \"10ms\", set with --set cir=10ms)"
            ),
        "{e}"
    );
    expect(
        &COMPOSED.replace("$(2 * $cir)", "$(2 * $cir + 1s)"),
        "\"$(2 * $cir + 1s)\"",
        0,
        "params.pir",
        "in the expression \"$(2 * $cir + 1s)\": dimension error: cannot add a rate and a time",
    );
}

const CUSTOMERS: &str = "[scenario]\nduration = \"1s\"\n[params]\nn = 3\n\
[[node]]\nname = \"h\"\ncount = \"$n\"\n[[node]]\nname = \"r\"\n\
[[link]]\nbetween = [\"h\", \"r\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
[[conditioner]]\nname = \"c\"\nat = \"r\"\nfrom = \"h\"\n\
meter = { kind = \"trtcm\", cir = [\"1Mbps\", \"2Mbps\", \"4Mbps\"], cbs = \"3KB\", pir = [\"2Mbps\", \"4Mbps\", \"8Mbps\"], pbs = \"3KB\" }\n\
green = \"AF11\"\nyellow = \"AF12\"\nred = [\"AF13\", \"AF13\", \"drop\"]\n";

#[test]
fn a_group_of_conditioners_takes_per_member_values() {
    use afsim_core::edge::PerColourAction;
    use afsim_core::scenario::spec::MeterSpec;
    let s = load(CUSTOMERS).unwrap();
    let cirs: Vec<u64> = s
        .conditioners
        .iter()
        .map(|c| match &c.meter {
            MeterSpec::Trtcm(p) => p.cir_bps,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(cirs, [1_000_000, 2_000_000, 4_000_000]);
    assert_eq!(s.conditioners[2].actions[2], PerColourAction::Drop);
    assert_ne!(s.conditioners[1].actions[2], PerColourAction::Drop);
    let names: Vec<&str> = s.conditioners.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["c0", "c1", "c2"]);
}

#[test]
fn per_member_values_must_match_the_group_and_each_other() {
    let text = CUSTOMERS.replace("n = 3", "n = 2");
    expect(
        &text,
        "[\"1Mbps\"",
        0,
        "conditioner[0].meter.cir",
        "3 per-member values for conditioner group 'c', which has 2 members",
    );
    let text = CUSTOMERS.replace("[\"AF13\", \"AF13\", \"drop\"]", "[\"AF13\", \"drop\"]");
    expect(
        &text,
        "[\"AF13\"",
        0,
        "conditioner[0].red",
        "2 per-member values, but conditioner[0].meter.cir has 3",
    );
    let text = CUSTOMERS.replace("at = \"r\"", "at = [\"r\"]");
    expect(
        &text,
        "[\"r\"]",
        0,
        "conditioner[0].at",
        "expected a string, found an array",
    );
}

#[test]
fn a_group_of_flows_takes_per_member_values() {
    let text = CUSTOMERS.to_string()
        + "[[node]]\nname = \"d\"\n[[link]]\nbetween = [\"r\", \"d\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
           [[flow]]\nname = \"u\"\nfrom = \"h\"\nto = \"d\"\nkind = \"cbr\"\n\
           rate = [\"1Mbps\", \"$(2 * 1Mbps)\", \"4Mbps\"]\npacket_size = \"500B\"\ndscp = [\"AF11\", \"AF21\", \"AF31\"]\n";
    let s = load(&text).unwrap();
    let rates: Vec<(u64, u8)> = s
        .flows
        .iter()
        .map(|f| match &f.app {
            AppSpec::Cbr(c) => (c.rate_bps, f.dscp),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(rates, [(1_000_000, 10), (2_000_000, 18), (4_000_000, 26)]);
    let two = text.replace("to = \"d\"\nkind", "to = \"d\"\ncount = 2\nkind");
    expect(
        &two,
        "[\"1Mbps\", \"$(2",
        0,
        "flow[0].rate",
        "3 per-member values for flow group 'u', which has 6 flows",
    );
    let bad = text.replace("to = \"d\"\nkind = \"cbr\"", "to = [\"d\"]\nkind = \"cbr\"");
    expect(
        &bad,
        "[\"d\"]",
        0,
        "flow[0].to",
        "expected a string, found an array",
    );
}

/// A host group of `n`, a flow and a conditioner per host.
fn per_host_conditioners(n: usize) -> String {
    format!(
        "[scenario]\nduration = \"1s\"\n[[node]]\nname = \"h\"\ncount = {n}\n[[node]]\nname = \"r\"\n\
         [[link]]\nbetween = [\"h\", \"r\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nname = \"f\"\nfrom = \"h\"\nto = \"r\"\nkind = \"cbr\"\nrate = \"10kbps\"\npacket_size = \"500B\"\n\
         [[conditioner]]\nname = \"tb\"\nat = \"r\"\nfrom = \"h\"\nmatch = {{ flows = \"f\" }}\n\
         meter = {{ kind = \"token_bucket\", rate = \"5kbps\", depth = \"3000B\" }}\n"
    )
}

#[test]
fn one_conditioner_a_host_shares_its_tables_flow_list() {
    // 4,097 hosts, each with a conditioner matching the group's 4,097 flows: loaded (until
    // issue 28's fourth round, more than 2²⁴ conditioners × flows were refused), with one flow
    // list for the table's conditioners, not one each
    let s = load(&per_host_conditioners(4097)).unwrap();
    assert_eq!((s.conditioners.len(), s.flows.len()), (4097, 4097));
    let first = &s.conditioners[0].classifier.flows;
    assert_eq!(first.len(), 4097);
    assert!(s
        .conditioners
        .iter()
        .all(|c| std::sync::Arc::ptr_eq(&c.classifier.flows, first)));
}

/// Three hosts on their own access links to r: one `[[link]]` with per-member values.
const ACCESS: &str = "[scenario]\nduration = \"1s\"\n\
[[node]]\nname = \"h\"\ncount = 3\n[[node]]\nname = \"r\"\n\
[[link]]\nbetween = [\"h\", \"r\"]\nrate = [\"1Mbps\", \"2Mbps\", \"$(2 * 2Mbps)\"]\n\
delay = [\"1ms\", \"2ms\", \"5ms\"]\nloss = [0.0, 0.01, 0.02]\n\
queue = { kind = \"droptail\", limit = [\"10pkt\", \"20pkt\", \"30pkt\"] }\n";

#[test]
fn a_group_of_links_takes_per_member_values() {
    use afsim_core::net::loss::Model;
    let s = load(ACCESS).unwrap();
    let got: Vec<(u64, u64)> = s.links.iter().map(|l| (l.rate_bps, l.delay.0)).collect();
    assert_eq!(
        got,
        [
            (1_000_000, 1_000_000),
            (2_000_000, 2_000_000),
            (4_000_000, 5_000_000)
        ]
    );
    let p: Vec<Option<Model>> = s.links.iter().map(|l| l.loss_ab).collect();
    assert_eq!(p[2], Some(Model::Bernoulli { p: 0.02 }));
    assert_eq!(p[1], Some(Model::Bernoulli { p: 0.01 }));
    for (l, n) in s.links.iter().zip([10, 20, 30]) {
        let want = QueueSpec::DropTail {
            limit: Limit::Packets(n),
        };
        assert_eq!(*l.queue_ab, want);
        // the reverse queue copies the forward one, member by member
        assert_eq!(*l.queue_ba, want);
    }
    // a single value still applies to every link of the group
    let one = ACCESS.replace("delay = [\"1ms\", \"2ms\", \"5ms\"]", "delay = \"3ms\"");
    let s = load(&one).unwrap();
    assert!(s.links.iter().all(|l| l.delay.0 == 3_000_000));
}

#[test]
fn per_member_values_of_links_must_match_the_group_and_each_other() {
    let two = ACCESS.replace("count = 3", "count = 2");
    expect(
        &two,
        "[\"1Mbps\"",
        0,
        "link[0].rate",
        "3 per-member values for link[0] (between 'h' and 'r'), which makes 2 links",
    );
    let short = ACCESS.replace(
        "[\"10pkt\", \"20pkt\", \"30pkt\"]",
        "[\"10pkt\", \"20pkt\"]",
    );
    expect(
        &short,
        "[\"10pkt\"",
        0,
        "link[0].queue.limit",
        "2 per-member values, but link[0].rate has 3",
    );
    // a member's own value is checked as the single value is, at its element
    let bad = ACCESS.replace("\"5ms\"]", "5]");
    expect(
        &bad,
        "5]",
        0,
        "link[0].delay[2]",
        "expected a time with a unit",
    );
    // `between` and `pairing` make the group: an array there is the usual type error
    let blocks = ACCESS.replace("between =", "pairing = [\"blocks\"]\nbetween =");
    expect(
        &blocks,
        "[\"blocks\"]",
        0,
        "link[0].pairing",
        "expected a string, found an array",
    );
}
