//! `Report::head_json` is `to_json` without the `flows` and `queues` rows: the same keys in the
//! same order, the same values (issue 28: what `Results` parses besides the two tables it
//! takes as columns).

use std::path::Path;

use afsim_core::{load_file, run};

#[test]
fn the_head_is_the_report_without_its_flow_and_queue_rows() {
    for name in [
        "bench/af-reference.toml",
        "bench/sima-testbed.toml",
        "cc/af-mix.toml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/afsim/scenarios")
            .join(name);
        let over = [("duration".to_string(), "12s".to_string())];
        let report = run(&load_file(&path, &over).unwrap(), None).unwrap();
        let mut full: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let head: serde_json::Value = serde_json::from_str(&report.head_json()).unwrap();
        let map = full.as_object_mut().unwrap();
        assert!(!map["flows"].as_array().unwrap().is_empty(), "{name}");
        map.remove("flows");
        map.remove("queues");
        assert_eq!(
            map.keys().collect::<Vec<_>>(),
            head.as_object().unwrap().keys().collect::<Vec<_>>(),
            "{name}: the same keys in the same order"
        );
        assert_eq!(&full, &head, "{name}");
    }
}
