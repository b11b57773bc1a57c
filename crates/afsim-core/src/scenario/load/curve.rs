//! RED-family drop and marking curves in a queue table (`min_th`, `max_th`, `max_p`, `mark`),
//! read for `queue` (one curve for RED, two for RIO, one per level for WRED).

use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::table::{Field, Rec, Spots};
use super::value::{Scalar, Val};
use crate::param::ParamError;
use crate::queue::red::{Common, Curve};

pub(super) const CURVE_FIELDS: [&str; 3] = ["min_th", "max_th", "max_p"];

/// A drop curve's fields: a curve's, and its marking curve.
pub(super) const DROP_CURVE_FIELDS: [&str; 4] = ["min_th", "max_th", "max_p", "mark"];

/// A `Curve::validate` error at the threshold its message names, else at the curve's table.
pub(super) fn curve_fail(spots: &Spots, e: &ParamError) -> Fail {
    let first = e.message.split(' ').next().unwrap_or("");
    match CURVE_FIELDS.iter().find(|f| **f == first) {
        Some(f) => spots.fail(f, &e.message),
        None => Fail::new(spots.at, spots.path.clone(), e.message.clone()),
    }
}

/// A threshold: a plain number of packets.
pub(super) fn threshold(v: &Val) -> Result<f64, Fail> {
    match &v.s {
        Scalar::Str(_) => Err(v.fail(format!(
            "thresholds are plain numbers of packets, like 5 or 2.5, found {}",
            v.s.describe()
        ))),
        _ => v.number(),
    }
}

/// A drop curve as read, with its marking curve and the error to give if the queue has no ECN.
pub(super) struct DropCurve {
    pub(super) curve: Curve,
    pub(super) mark: Option<(Curve, Fail)>,
}

/// `common.mark` from the marking curves, in the order of the drop curves; they need ECN.
pub(super) fn set_marks(
    common: &mut Common,
    marks: Vec<Option<(Curve, Fail)>>,
) -> Result<(), Fail> {
    for (i, m) in marks.into_iter().enumerate() {
        if let Some((curve, no_ecn)) = m {
            if common.ecn.is_none() {
                return Err(no_ecn);
            }
            common.mark[i] = Some(curve);
        }
    }
    Ok(())
}

/// `mark = { min_th = 5, max_th = 15, max_p = 0.1 }` in table `t`: the curve, and the error
/// to give at `mark` if the queue has no ECN.
pub(super) fn marking_curve(t: &Rec, g: &Field, params: &Params) -> Result<(Curve, Fail), Fail> {
    let c = read_curve(t, g, params, false)?;
    let no_ecn = Fail::new(
        g.key_at,
        t.path_of(g.key),
        "mark thresholds need ecn: a marking curve puts ECN marks on packets, so give the queue ecn = \"tail\", \
         \"front\" or \"random\"",
    );
    Ok((c.curve, no_ecn))
}

/// `in = { min_th = 40, max_th = 70, max_p = 0.02 }`; with `drop`, a drop curve, which may
/// carry a marking curve.
pub(super) fn read_curve(
    t: &Rec,
    g: &Field,
    params: &Params,
    drop: bool,
) -> Result<DropCurve, Fail> {
    let r = Rec::of_item(
        g.item,
        g.at,
        t.path_of(g.key),
        g.key,
        "a table like { min_th = 5, max_th = 15, max_p = 0.1 }",
    )?;
    curve_of(&r, params, drop)
}

/// A RED curve table, checked by `Curve::validate`; with `drop`, a drop curve, which may carry
/// a marking curve (`mark`).
pub(super) fn curve_of(r: &Rec, params: &Params, drop: bool) -> Result<DropCurve, Fail> {
    let mut c = [None; 3];
    let mut mark = None;
    let known: &[&str] = if drop {
        &DROP_CURVE_FIELDS
    } else {
        &CURVE_FIELDS
    };
    for g in r.fields() {
        if drop && g.key == "mark" {
            mark = Some(marking_curve(r, &g, params)?);
            continue;
        }
        let v = r.val(params, &g)?;
        match g.key {
            "min_th" => c[0] = Some(threshold(&v)?),
            "max_th" => c[1] = Some(threshold(&v)?),
            "max_p" => c[2] = Some(v.number()?),
            key => {
                let nested = if key == "mark" {
                    " (a marking curve has no marking curve of its own)"
                } else {
                    ""
                };
                return Err(Fail::new(
                    g.key_at,
                    r.path_of(key),
                    format!(
                        "unknown field '{key}' in {}{}{nested}; a curve has the fields: {}",
                        r.title,
                        suggestion(key, known.iter().copied()),
                        list(known.iter().copied())
                    ),
                ));
            }
        }
    }
    let [min_th, max_th, max_p] = c;
    let curve = Curve {
        min_th: min_th.ok_or_else(|| r.missing("min_th", "5"))?,
        max_th: max_th.ok_or_else(|| r.missing("max_th", "15"))?,
        max_p: max_p.ok_or_else(|| r.missing("max_p", "0.1"))?,
    };
    curve
        .validate("thresholds")
        .map_err(|e| curve_fail(&r.spots(), &e))?;
    Ok(DropCurve { curve, mark })
}
