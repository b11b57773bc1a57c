//! Large networks (issue 28): links in blocks, more nodes than the old 4,096-node cap, and the
//! loader's errors for them.

use afsim_core::{load_str, run};

const TREE: &str = r#"
[scenario]
duration = "$d"
[params]
hosts = 6
access = 2
d = "1s"
[[node]]
name = "h"
count = "$hosts"
[[node]]
name = "a"
count = "$access"
[[node]]
name = "r"
[[link]]
between = ["h", "a"]
pairing = "blocks"
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["r", "a"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
name = "f"
from = "h"
to = "r"
kind = "cbr"
rate = "100kbps"
packet_size = "500B"
"#;

#[test]
fn blocks_pair_consecutive_members_with_one_node_each() {
    let s = load_str(TREE, "tree.toml", &[]).unwrap();
    let name = |i: usize| s.nodes[i].name.as_str();
    let pairs: Vec<(&str, &str)> = s.links[..6]
        .iter()
        .map(|l| (name(l.a), name(l.b)))
        .collect();
    assert_eq!(
        pairs,
        [
            ("h0", "a0"),
            ("h1", "a0"),
            ("h2", "a0"),
            ("h3", "a1"),
            ("h4", "a1"),
            ("h5", "a1")
        ]
    );
    // the smaller group first: the same pairs, each the other way round
    let flipped = TREE.replace(r#"between = ["h", "a"]"#, r#"between = ["a", "h"]"#);
    let s2 = load_str(&flipped, "tree.toml", &[]).unwrap();
    for (l, k) in s.links[..6].iter().zip(&s2.links[..6]) {
        assert_eq!((l.a, l.b), (k.b, k.a));
    }
    // every host's packets arrive
    let r = run(&s, None).unwrap();
    assert!(r.flows.iter().all(|f| f.packets_delivered > 0));
}

#[test]
fn blocks_need_sizes_that_divide() {
    let e = load_str(TREE, "tree.toml", &[("hosts".into(), "7".into())]).unwrap_err();
    assert_eq!(e.field, "link[0].pairing");
    let line = TREE.lines().position(|l| l.starts_with("pairing")).unwrap() + 1;
    assert_eq!(e.line, line);
    assert!(
        e.message
            .contains("'h' is a group of 7 and 'a' a group of 2"),
        "{}",
        e.message
    );
    let bad = TREE.replace(r#"pairing = "blocks""#, r#"pairing = "block""#);
    let e = load_str(&bad, "tree.toml", &[]).unwrap_err();
    assert_eq!(e.field, "link[0].pairing");
    assert!(
        e.message.contains("unknown pairing 'block'"),
        "{}",
        e.message
    );
}

#[test]
fn a_dumbbell_beyond_the_old_node_cap_runs() {
    // 2,500 flows: 5,002 nodes, more than the 4,096 the dense n × n tables allowed
    let text = TREE
        .replace("hosts = 6", "hosts = 2500")
        .replace("access = 2", "access = 1")
        .replace(r#"d = "1s""#, r#"d = "200ms""#)
        .replace(r#"to = "r""#, r#"to = "g""#)
        .replace(
            "[[flow]]",
            "[[node]]\nname = \"g\"\ncount = \"$hosts\"\n[[link]]\nbetween = [\"r\", \"g\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n[[flow]]",
        )
        // room for every flow's packets: each one is delivered
        .replace("rate = \"10Mbps\"", "rate = \"1Gbps\"")
        .replace(
            "delay = \"1ms\"",
            "delay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"100000pkt\" }",
        );
    let s = load_str(&text, "big.toml", &[]).unwrap();
    assert_eq!(s.nodes.len(), 5_002);
    let r = run(&s, None).unwrap();
    assert!(r.conservation.holds);
    assert_eq!(r.flows.len(), 2_500);
    assert!(r.flows.iter().all(|f| f.packets_delivered > 0));
}
