//! `[diffserv]`, the domain's colour table, and code points as a scenario writes them.
//!
//! Read this first: a DiffServ domain decides which drop-precedence level each code point means
//! (`edge::dscp::ColourTable`). RIO and WRED queues and colour-aware meters read it. Without
//! `[diffserv]`, or with `colours = "rfc2597"`, it is `ColourTable::rfc2597()`: AFx1 level 0,
//! AFx2 level 1, AFx3 level 2, EF and CS1..CS7 level 0, best effort and everything unlisted
//! level 2. `colours = "sima"` is `ColourTable::sima()`: SIMA's sixteen code points at level
//! 7 − DP, everything else non-real time DP 0 (level 7). A table of one's own lists code points and levels; what it does not list gets
//! `default_level`, which defaults to the highest level listed (as RFC 2597's table puts
//! unlisted traffic with the packets dropped first). The table has as many levels as the
//! highest level it uses, plus one.
//!
//! Code points are written as a name of `edge::dscp::NAMES` in any case ("AF11", "ef", "cs1") or
//! as an integer 0..=63, in `[diffserv]`, in a flow's `dscp`, in a conditioner's actions and in
//! its classifier.

use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::table::Rec;
use super::value::{Scalar, Val};
use crate::net::dscp::{self, Class, ColourTable, Marking, MAX_DSCP, MAX_LEVELS};

pub(crate) const DIFFSERV_FIELDS: [&str; 2] = ["colours", "default_level"];
const NAMED_TABLES: [&str; 2] = ["rfc2597", "sima"];

/// A code point: a name of `edge::dscp` in any case, or an integer 0..=63.
pub(crate) fn code_point(v: &Val) -> Result<u8, Fail> {
    match &v.s {
        Scalar::Int(i) if (0..=i64::from(MAX_DSCP)).contains(i) => Ok(*i as u8),
        Scalar::Int(i) => Err(v.fail(format!("DSCP {i} is not a 6-bit code point (0..=63)"))),
        Scalar::Str(s) => dscp::parse(s).map_err(|_| v.fail(unknown_code_point(s))),
        _ => Err(v.wrong("a code point name like \"AF11\" or an integer 0..=63")),
    }
}

/// "unknown code point 'AF14' (did you mean 'AF11'?); the code points are ...".
pub(crate) fn unknown_code_point(s: &str) -> String {
    let names = dscp::NAMES.iter().map(|(n, _)| *n);
    format!(
        "unknown code point '{s}'{}; the code points are {}, or an integer 0..=63",
        suggestion(s, names.clone()),
        list(names)
    )
}

/// The class a code point selects in the standard tables (RFC 2474 §4, RFC 2597 §6, RFC 3246);
/// any other code point is the domain's own (`Class::Local`). Queues read only the level.
fn class_of(d: u8) -> Class {
    match d {
        dscp::BE => Class::BestEffort,
        dscp::EF => Class::Ef,
        d if d % 8 == 0 => Class::ClassSelector(d / 8),
        d if (1..=4).contains(&(d / 8)) && matches!(d % 8, 2 | 4 | 6) => Class::Af(d / 8),
        d if dscp::sima_decode(d).is_some_and(|(rt, _)| rt) => dscp::SIMA_RT,
        d if dscp::sima_decode(d).is_some() => dscp::SIMA_NRT,
        _ => Class::Local(0),
    }
}

/// Reads `[diffserv]`.
pub(crate) fn read_diffserv(rec: &Rec, params: &Params) -> Result<ColourTable, Fail> {
    let mut own: Option<(Vec<(u8, u8)>, usize)> = None;
    let mut named = None;
    let mut default_level = None;
    for f in rec.fields() {
        match f.key {
            "colours" if f.item.is_table_like() => {
                let t = Rec::of_item(f.item, f.at, rec.path_of("colours"), "colours", "a table")?;
                let mut entries: Vec<(u8, u8)> = Vec::new();
                for g in t.fields() {
                    // Keys are code points: "AF11" or "46" (TOML keys are strings; they cannot be parameters).
                    let d = match g.key.parse::<u64>() {
                        Ok(n) if n <= u64::from(MAX_DSCP) => n as u8,
                        Ok(n) => {
                            return Err(Fail::new(
                                g.key_at,
                                t.path_of(g.key),
                                format!("DSCP {n} is not a 6-bit code point (0..=63)"),
                            ))
                        }
                        Err(_) => dscp::parse(g.key).map_err(|_| {
                            Fail::new(g.key_at, t.path_of(g.key), unknown_code_point(g.key))
                        })?,
                    };
                    if entries.iter().any(|&(e, _)| e == d) {
                        let name = dscp::name(d).map_or(String::new(), |n| format!(" ({n})"));
                        return Err(Fail::new(
                            g.key_at,
                            t.path_of(g.key),
                            format!("code point {d}{name} is listed twice"),
                        ));
                    }
                    let level = t.val(params, &g)?.int_in(0, MAX_LEVELS as u64 - 1)?;
                    entries.push((d, level as u8));
                }
                if entries.is_empty() {
                    return Err(Fail::new(
                        t.at,
                        t.path.clone(),
                        "an empty colour table: list code points and their levels, like { AF11 = 0, AF12 = 1, AF13 = 2 }",
                    ));
                }
                own = Some((entries, t.at));
            }
            "colours" => {
                let v = rec.val(params, &f)?;
                named = Some(v.choice(&NAMED_TABLES, "colour table")?);
            }
            "default_level" => {
                let v = rec.val(params, &f)?;
                default_level = Some((v.int_in(0, MAX_LEVELS as u64 - 1)? as u8, v));
            }
            _ => return Err(rec.unknown(&f, &DIFFSERV_FIELDS)),
        }
    }
    let Some((entries, _)) = own else {
        if let Some((_, v)) = default_level {
            let why = match named {
                Some("sima") => "sima puts unlisted code points at DP 0, level 7",
                Some(_) => "rfc2597 puts unlisted code points at level 2",
                None => "the default table is rfc2597",
            };
            return Err(v.fail(format!(
                "default_level applies to a colours table of your own, like colours = {{ AF11 = 0, AF12 = 1 }}; {why}"
            )));
        }
        return Ok(if named == Some("sima") {
            ColourTable::sima()
        } else {
            ColourTable::rfc2597()
        });
    };
    let highest = entries.iter().map(|&(_, l)| l).max().unwrap_or(0);
    let default = default_level.as_ref().map_or(highest, |(l, _)| *l);
    let levels = highest.max(default) + 1;
    let spots = rec.spots();
    let mut table = ColourTable::new(
        levels,
        Marking {
            class: Class::BestEffort,
            level: default,
        },
    )
    .map_err(|e| spots.fail("default_level", &e.message))?;
    for (d, level) in entries {
        table
            .set(
                d,
                Marking {
                    class: class_of(d),
                    level,
                },
            )
            .map_err(|e| spots.fail("colours", &e.message))?;
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_code_points_keep_their_class_and_others_are_local() {
        assert_eq!(class_of(0), Class::BestEffort);
        assert_eq!(class_of(dscp::AF23), Class::Af(2));
        assert_eq!(class_of(dscp::CS5), Class::ClassSelector(5));
        assert_eq!(class_of(dscp::EF), Class::Ef);
        assert_eq!(class_of(1), Class::Local(0));
        assert_eq!(class_of(42), Class::Local(0));
        assert_eq!(class_of(dscp::sima(false, 4)), dscp::SIMA_NRT);
        assert_eq!(class_of(dscp::sima(true, 0)), dscp::SIMA_RT);
    }

    #[test]
    fn unknown_names_get_a_suggestion_and_the_list() {
        let m = unknown_code_point("AF14");
        assert!(
            m.starts_with(
                "unknown code point 'AF14' (did you mean 'AF11'?); the code points are BE, CS0"
            ),
            "{m}"
        );
        assert!(m.ends_with("EF, NRT0, NRT1, NRT2, NRT3, NRT4, NRT5, NRT6, NRT7, RT0, RT1, RT2, RT3, RT4, RT5, RT6, RT7, or an integer 0..=63"), "{m}");
    }
}
