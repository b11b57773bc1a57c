use super::*;
use crate::param::ParamError;
use crate::scenario::load::table::Spots;

#[test]
fn meter_errors_use_the_files_field_names() {
    let spots = Spots::for_test(5, "conditioner[0].meter", &[("window", 9)]);
    let e = meter_fail(
        &spots,
        &ParamError::new("win_length", "the averaging window must be positive"),
    );
    assert_eq!((e.at, e.field.as_str()), (9, "conditioner[0].meter.window"));
    let e = meter_fail(&spots, &ParamError::new("token_bytes", "must be positive"));
    assert_eq!(
        (e.at, e.field.as_str(), e.message.as_str()),
        (
            5,
            "conditioner[0].meter.token_size",
            "token_size must be positive"
        )
    );
}

#[test]
fn token_buckets_and_tsw2cm_are_the_two_colour_meters() {
    let two: Vec<&str> = METER_KINDS
        .iter()
        .copied()
        .filter(|k| two_colour(k))
        .collect();
    assert_eq!(two, ["token_bucket", "tsw2cm", "enhanced_token_bucket"]);
    for k in METER_KINDS {
        assert_eq!(meter_fields(k)[0], "kind", "{k}");
    }
}
