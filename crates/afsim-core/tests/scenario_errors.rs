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
    assert!(e.message.contains(fragment), "message {:?} lacks {fragment:?}", e.message);
    assert_eq!(e.file, "bad.toml");
    assert!(e.to_string().starts_with(&format!("bad.toml:{line}:{column}: ")), "{e}");
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
        let invalid = p.file_name().unwrap().to_str().unwrap().starts_with("invalid_");
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
    assert_eq!(s.links[4].queue_ba, QueueSpec::DropTail { limit: Limit::Bytes(100_000) });
    assert_eq!(s.flows.len(), 4);
    let AppSpec::Cbr(c) = &s.flows[3].app else { panic!("a cbr flow") };
    assert_eq!(c.start, SimTime::from_nanos(30_000_000));
    assert_eq!(c.stop, Some(SimTime::from_nanos(18_000_000_000)));
    assert!(c.jitter);
    let s = load_file(&p, &[("n_af".into(), "10".into()), ("t".into(), "1min".into())]).unwrap();
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
    let first = doc.split("```toml\n").nth(1).unwrap().split("```").next().unwrap();
    let set = [("n_af".to_string(), "10".to_string()), ("t".to_string(), "1min".to_string())];
    let s = load_str(first, "dumbbell.toml", &set).unwrap();
    assert_eq!((s.flows.len(), s.stop.duration), (10, Some(SimDuration::from_secs(60))));
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
    expect(&text, "rat =", 0, "link[2].rat", "unknown field 'rat' in [[link]] (did you mean 'rate'?)");
    let e = error(&text);
    assert!(e.message.contains("the fields are: between, rate, delay, framing, queue, reverse_queue"), "{e}");
}

#[test]
fn an_unknown_field_in_an_inline_table_has_the_full_path() {
    let text = BASE.replace("delay = \"1ms\"\n[[link]]", "delay = \"1ms\"\nqueue = { kind = \"droptail\", size = \"5p\" }\n[[link]]");
    expect(&text, "size", 0, "link[0].queue.size", "unknown field 'size' in queue");
}

#[test]
fn an_unknown_top_level_table_is_an_error() {
    let text = with("[[nodes]]\nname = \"x\"\n");
    expect(&text, "nodes", 0, "nodes", "unknown table 'nodes' (did you mean [[node]]?)");
}

#[test]
fn a_table_where_an_array_of_tables_belongs_is_a_wrong_type() {
    let text = "[scenario]\nduration = \"1s\"\n[node]\nname = \"x\"\n";
    expect(text, "[node]", 0, "node", "write [[node]], with double brackets");
}

#[test]
fn a_missing_required_field_points_at_its_table() {
    let text = with("[[link]]\nbetween = [\"a\", \"g0\"]\ndelay = \"1ms\"\n");
    expect(&text, "[[link]]", 2, "link[2].rate", "[[link]] lacks the required field 'rate'");
    let text = with("[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"r\"\nrate = \"1Mbps\"\npacket_size = \"1B\"\n");
    expect(&text, "[[flow]]", 0, "flow[0].kind", "lacks the required field 'kind'");
    let text = with("[[node]]\ncount = 3\n");
    expect(&text, "[[node]]", 3, "node[3].name", "lacks the required field 'name'");
}

// ---- types and units -----------------------------------------------------------------------

#[test]
fn a_value_of_the_wrong_type_says_what_was_expected() {
    let text = BASE.replace("count = 2", "count = \"two\"");
    expect(&text, "\"two\"", 0, "node[2].count", "expected a non-negative integer, found the string \"two\"");
    let text = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nseed = 1.5");
    expect(&text, "1.5", 0, "scenario.seed", "expected a non-negative integer, found the float 1.5");
    let text = format!("{}jitter = \"yes\"\n", with(FLOW));
    expect(&text, "\"yes\"", 0, "flow[0].jitter", "expected true or false");
}

#[test]
fn a_rate_without_a_unit_is_an_error() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"10\"", 1);
    expect(&text, "\"10\"", 0, "link[0].rate", "expected a rate with a unit, like '10Mbps'");
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = 10", 1);
    expect(&text, "10\n", 0, "link[0].rate", "expected a rate with a unit, like '10Mbps'");
}

#[test]
fn a_byte_rate_asks_for_bits() {
    let text = BASE.replacen("rate = \"10Mbps\"", "rate = \"10MBps\"", 2);
    expect(&text, "\"10MBps\"", 0, "link[0].rate", "rates are written in bits per second");
}

#[test]
fn an_unknown_unit_lists_the_units() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1 fortnight\"", 1);
    expect(&text, "\"1 fortnight\"", 0, "link[0].delay", "unknown time unit 'fortnight'; the units are ns, us");
}

#[test]
fn a_sub_nanosecond_time_is_rejected() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"0.5ns\"", 2);
    expect(&text, "\"0.5ns\"", 0, "link[0].delay", "not a whole number of nanoseconds");
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
    expect(&text, "\"-10Mbps\"", 0, "link[0].rate", "cannot be negative");
}

#[test]
fn packet_sizes_must_be_1_to_65535_bytes() {
    let text = format!("{BASE}{}", FLOW.replace("\"500B\"", "\"0B\""));
    expect(&text, "\"0B\"", 0, "flow[0].packet_size", "at least 1B");
    let text = format!("{BASE}{}", FLOW.replace("\"500B\"", "\"64KiB\""));
    expect(&text, "\"64KiB\"", 0, "flow[0].packet_size", "at most 65535B");
}

#[test]
fn warmup_must_end_before_duration() {
    let text = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"10s\"");
    expect(&text, "\"10s\"", 1, "scenario.warmup", "warmup (10s) must be shorter than duration (10s)");
}

#[test]
fn stop_must_come_after_start() {
    let text = format!("{}start = \"5s\"\nstop = \"5s\"\n", with(FLOW));
    expect(&text, "\"5s\"", 1, "flow[0].stop", "stop (5s) must be after start (5s)");
}

#[test]
fn a_staggered_flow_that_would_start_after_its_stop_is_rejected() {
    let text = format!("{BASE}{}count = 3\nstart_step = \"2s\"\nstop = \"3s\"\n", FLOW);
    expect(&text, "\"3s\"", 0, "flow[0].stop", "flow 'f2' would start at 4s");
}

#[test]
fn counts_must_be_non_negative_integers() {
    let text = BASE.replace("count = 2", "count = -1");
    expect(&text, "-1", 0, "node[2].count", "expected a non-negative integer, found -1");
    let text = format!("{}count = 2.0\n", with(FLOW));
    expect(&text, "2.0", 0, "flow[0].count", "found the float 2.0");
}

#[test]
fn a_zero_queue_limit_is_impossible() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nreverse_queue = { limit = \"0pkt\" }", 1);
    expect(&text, "\"0pkt\"", 0, "link[0].reverse_queue.limit", "at least 1 packet");
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
    expect(&text, "true", 0, "scenario.until_transfers_complete", "no flow is a finite transfer");
}

#[test]
fn too_many_nodes_is_an_error_before_anything_is_allocated() {
    let text = BASE.replace("count = 2", "count = 1_000_000_000");
    expect(&text, "1_000_000_000", 0, "node[2].count", "at most 4096 nodes");
    let text = with("[[node]]\nname = \"h\"\ncount = 4093\n");
    expect(&text, "4093", 0, "node[3].count", "this group would make 4097");
}

// ---- choices -------------------------------------------------------------------------------

#[test]
fn an_unknown_flow_kind_lists_the_known_kinds() {
    let text = with(&FLOW.replace("\"cbr\"", "\"tcp\""));
    expect(&text, "\"tcp\"", 0, "flow[0].kind", "unknown flow kind 'tcp'; the flow kinds are: cbr");
}

#[test]
fn an_unknown_framing_lists_the_framings() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nframing = \"atm\"", 1);
    expect(&text, "\"atm\"", 0, "link[0].framing", "the framings are: plain, ppp, atm_cell_tax, aal5, aal5_llc");
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nframing = { kind = \"fixed\" }", 1);
    expect(&text, "{ kind", 0, "link[0].framing.overhead", "framing lacks the required field 'overhead'");
}

#[test]
fn an_unknown_queue_kind_lists_the_kinds() {
    let text = BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"red\" }", 1);
    expect(&text, "\"red\"", 0, "link[0].queue.kind", "unknown queue kind 'red'; the queue kinds are: droptail");
}

// ---- names ---------------------------------------------------------------------------------

#[test]
fn an_unknown_node_in_a_link_is_an_error() {
    let text = with("[[node]]\nname = \"router\"\n[[link]]\nbetween = [\"a\", \"routr\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(&text, "\"routr\"", 0, "link[2].between[1]", "unknown node or group 'routr' (did you mean 'router'?)");
}

#[test]
fn an_unknown_node_in_a_flow_is_an_error() {
    let text = with(&FLOW.replace("from = \"a\"", "from = \"b\""));
    expect(&text, "\"b\"", 0, "flow[0].from", "unknown node or group 'b'");
}

#[test]
fn an_unknown_node_in_a_route_is_an_error() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"g7\"]\n");
    expect(&text, "\"g7\"", 0, "route[0].path[2]", "unknown node 'g7'");
}

#[test]
fn a_group_in_a_route_is_an_error() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"g\"]\n");
    expect(&text, "\"g\"", 2, "route[0].path[2]", "a route names single nodes, like 'g0'");
}

#[test]
fn a_link_from_a_node_to_itself_is_an_error() {
    let text = with("[[link]]\nbetween = [\"a\", \"a\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(&text, "\"a\"", 3, "link[2].between[1]", "a link cannot join 'a' to itself");
    let text = with("[[link]]\nbetween = [\"g\", \"g\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(&text, "\"g\"]", 0, "link[2].between[1]", "a link cannot join 'g0' to itself");
}

#[test]
fn linking_groups_of_different_sizes_is_an_error() {
    let text = with("[[node]]\nname = \"h\"\ncount = 3\n[[link]]\nbetween = [\"g\", \"h\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    expect(&text, "[\"g\", \"h\"]", 0, "link[2].between", "'g' is a group of 2 nodes and 'h' a group of 3");
}

#[test]
fn a_flow_between_groups_of_different_sizes_is_an_error() {
    let text = with(&format!(
        "[[node]]\nname = \"h\"\ncount = 3\n[[link]]\nbetween = [\"h\", \"r\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n{}",
        FLOW.replace("from = \"a\"", "from = \"g\"").replace("to = \"r\"", "to = \"h\"")
    ));
    expect(&text, "\"h\"\nkind", 0, "flow[0].to", "must be the same size");
}

#[test]
fn a_flow_to_itself_is_an_error() {
    let text = with(&FLOW.replace("to = \"r\"", "to = \"a\""));
    expect(&text, "\"a\"\nkind", 0, "flow[0].to", "a flow cannot go from 'a' to itself");
}

#[test]
fn duplicate_node_names_are_an_error_at_the_second() {
    let text = with("[[node]]\nname = \"a\"\n");
    expect(&text, "\"a\"", 2, "node[3].name", "the name 'a' is already taken by node 'a' (node[1], line 7)");
}

#[test]
fn a_group_member_colliding_with_an_earlier_node_is_an_error() {
    let text = "[scenario]\nduration = \"1s\"\n[[node]]\nname = \"src1\"\n[[node]]\nname = \"src\"\ncount = 2\n";
    expect(text, "\"src\"", 0, "node[1].name", "group 'src' names its member 1 'src1', but that name is already taken by node 'src1' (node[0], line 4)");
}

#[test]
fn a_node_colliding_with_an_earlier_group_member_is_an_error() {
    let text = with("[[node]]\nname = \"g1\"\n");
    expect(&text, "\"g1\"", 0, "node[3].name", "already taken by node 'g1' of group 'g' (node[2], line 9)");
}

#[test]
fn a_node_named_like_a_group_is_an_error() {
    let text = with("[[node]]\nname = \"g\"\n");
    expect(&text, "\"g\"\n", 1, "node[3].name", "already taken by group 'g'");
}

#[test]
fn duplicate_flow_names_are_an_error() {
    let text = format!("{BASE}{FLOW}{FLOW}");
    expect(&text, "\"f\"", 1, "flow[1].name", "the flow name 'f' is already taken by flow 'f' (flow[0], line 22)");
}

#[test]
fn a_flow_group_member_colliding_with_a_flow_is_an_error() {
    let text = format!("{BASE}{}{}count = 2\n", FLOW.replace("\"f\"", "\"f1\""), FLOW);
    expect(&text, "\"f\"", 0, "flow[1].name", "group 'f' names its flow 'f1', but the flow name 'f1' is already taken");
}

#[test]
fn an_invalid_name_is_an_error() {
    let text = BASE.replace("name = \"a\"", "name = \"1a\"");
    expect(&text, "\"1a\"", 0, "node[1].name", "\"1a\" is not a valid name");
}

// ---- routes and reachability ---------------------------------------------------------------

#[test]
fn an_unreachable_destination_is_an_error() {
    let text = with(&format!("[[node]]\nname = \"lone\"\n{}", FLOW.replace("to = \"r\"", "to = \"lone\"")));
    expect(&text, "\"lone\"", 1, "flow[0].to", "'lone' cannot be reached from 'a'");
}

#[test]
fn a_route_between_unlinked_nodes_is_not_adjacent() {
    let text = with("[[route]]\npath = [\"a\", \"g0\"]\n");
    expect(&text, "\"g0\"", 0, "route[0].path[1]", "no link joins 'a' and 'g0'");
}

#[test]
fn a_route_of_one_node_is_too_short() {
    let text = with("[[route]]\npath = [\"a\"]\n");
    expect(&text, "[\"a\"]", 0, "route[0].path", "at least two nodes, found 1");
}

#[test]
fn a_route_that_visits_a_node_twice_is_a_loop() {
    let text = with("[[route]]\npath = [\"a\", \"r\", \"a\", \"r\"]\n");
    expect(&text, "\"a\"", 3, "route[0].path[2]", "'a' appears twice in this path");
}

// ---- parameters ----------------------------------------------------------------------------

#[test]
fn an_undefined_parameter_is_an_error_at_the_reference() {
    let text = format!("[params]\nrate = \"1Mbps\"\n{}", BASE.replacen("\"10Mbps\"", "\"$rat\"", 1)).replace(
        "\"10Mbps\"",
        "\"$rate\"",
    );
    expect(&text, "\"$rat\"", 0, "link[0].rate", "undefined parameter 'rat' (did you mean 'rate'?)");
}

#[test]
fn an_undefined_parameter_inside_a_string_is_an_error() {
    let text = BASE.replacen("\"1ms\"", "\"${d}ms\"", 1);
    expect(&text, "\"${d}ms\"", 0, "link[0].delay", "undefined parameter 'd'");
}

#[test]
fn an_unused_parameter_is_an_error_at_its_definition() {
    let text = format!("[params]\nused = 2\nunused = 3\n{}", BASE.replace("count = 2", "count = \"$used\""));
    expect(&text, "3", 0, "params.unused", "parameter 'unused' is never used");
}

#[test]
fn a_parameter_of_the_wrong_type_is_reported_at_the_reference_naming_the_parameter() {
    let text = format!("[params]\nn = \"ten\"\n{}", BASE.replace("count = 2", "count = \"$n\""));
    expect(&text, "\"$n\"", 0, "node[2].count", "(from parameter 'n' = \"ten\")");
}

#[test]
fn an_override_of_an_unknown_parameter_is_an_error() {
    let text = format!("\n[params]\nn = 2\n{}", BASE.replace("count = 2", "count = \"$n\""));
    let e = load_str(&text, "bad.toml", &[("m".into(), "3".into())]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (2, 1, "--set m"));
    assert!(e.message.contains("unknown parameter 'm'; the parameters are: n"), "{e}");
    let e = load_str(BASE, "bad.toml", &[("m".into(), "3".into())]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (1, 1, "--set m"));
}

#[test]
fn an_override_of_the_wrong_type_is_reported_where_it_is_used() {
    let text = format!("[params]\nn = 2\n{}", BASE.replace("count = 2", "count = \"$n\""));
    let e = load_str(&text, "bad.toml", &[("n".into(), "many".into())]).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (pos(&text, "\"$n\"", 0).0, "node[2].count"));
    assert!(e.message.contains("set with --set n=many"), "{e}");
}

#[test]
fn a_stray_dollar_is_an_error() {
    let text = BASE.replace("name = \"a\"", "name = \"a$\"");
    expect(&text, "\"a$\"", 0, "node[1].name", "\"$$\" for a literal '$'");
}

// ---- files ---------------------------------------------------------------------------------

#[test]
fn an_unreadable_file_is_a_read_error_with_line_zero() {
    let e = load_file(Path::new("/no/such/dir/x.toml"), &[]).unwrap_err();
    assert_eq!((e.line, e.column, e.field.as_str()), (0, 0, ""));
    assert_eq!(e.file, "/no/such/dir/x.toml");
    assert!(e.to_string().starts_with("/no/such/dir/x.toml:0:0: "), "{e}");
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
    let text = with("[[link]]\nbetween = [\"a\", \"g0\"]\nrate = \"1\"\ndelay = \"1ms\"\n[[node]]\nname = 5\n");
    expect(&text, "\"1\"", 0, "link[2].rate", "expected a rate with a unit");
}
