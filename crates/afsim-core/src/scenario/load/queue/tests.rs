use super::*;

#[test]
fn every_kind_knows_kind_and_limit_and_only_rio_and_wred_take_out_first() {
    for k in QUEUE_KINDS {
        // A scheduler's limits are its classes' queues'; a SIMA queue has one per class.
        let limit = fields_of(k).contains(&"limit");
        assert!(
            fields_of(k).contains(&"kind") && limit == !matches!(k, "scheduler" | "sima"),
            "{k}"
        );
    }
    let with: Vec<&str> = QUEUE_KINDS
        .iter()
        .copied()
        .filter(|k| fields_of(k).contains(&"out_first"))
        .collect();
    assert_eq!(with, ["rio", "wred"]);
}

#[test]
fn curve_errors_point_at_the_threshold_they_name() {
    let spots = Spots::for_test(10, "q", &[("min_th", 20), ("max_p", 30)]);
    let e = curve_fail(
        &spots,
        &ParamError::new("thresholds", "max_p 2 must be in (0, 1]"),
    );
    assert_eq!((e.at, e.field.as_str()), (30, "q.max_p"));
    let e = curve_fail(
        &spots,
        &ParamError::new("thresholds", "thresholds and max_p must be finite numbers"),
    );
    assert_eq!((e.at, e.field.as_str()), (10, "q"));
}
