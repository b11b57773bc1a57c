//! Reading one value or one table of a scenario file, with its position and field path.
//!
//! Read this first: `Rec` is a table being read (`[[link]]`, an inline `queue = { ... }`): its
//! fields in file order, each with its byte offset. `Val` is one value after parameter
//! substitution, carrying where it was written and which field it fills, so every conversion
//! (`count`, `quantity`, `name`, ...) fails with an error that already points at the right place.
//! When the value came from a parameter, the error says so, since the text the user sees at
//! that position is only `"$name"`.

use super::source::{list, suggestion, Fail};
use crate::scenario::units::{Quantity, UnitError};
use toml_edit::{Item, Value};

/// A value as the loader sees it once parameters are substituted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Scalar {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Anything that is not a scalar, as "an array", "a table", "a datetime".
    Other(&'static str),
}

impl Scalar {
    pub fn of_value(v: &Value) -> Scalar {
        match v {
            Value::String(s) => Scalar::Str(s.value().clone()),
            Value::Integer(i) => Scalar::Int(*i.value()),
            Value::Float(f) => Scalar::Float(*f.value()),
            Value::Boolean(b) => Scalar::Bool(*b.value()),
            Value::Datetime(_) => Scalar::Other("a datetime"),
            Value::Array(_) => Scalar::Other("an array"),
            Value::InlineTable(_) => Scalar::Other("a table"),
        }
    }

    pub fn of_item(item: &Item) -> Scalar {
        match item {
            Item::Value(v) => Scalar::of_value(v),
            Item::Table(_) => Scalar::Other("a table"),
            Item::ArrayOfTables(_) => Scalar::Other("an array of tables"),
            Item::None => Scalar::Other("nothing"),
        }
    }

    /// The value as TOML would write it, shortened if long: `"2Mbps"`, `10`, `true`.
    pub fn repr(&self) -> String {
        match self {
            Scalar::Str(s) if s.chars().count() > 40 => {
                let short: String = s.chars().take(40).collect();
                format!("{:?}…", short)
            }
            Scalar::Str(s) => format!("{s:?}"),
            Scalar::Int(i) => i.to_string(),
            // Debug keeps the ".0" of a whole float, as TOML writes it.
            Scalar::Float(f) => format!("{f:?}"),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Other(d) => d.to_string(),
        }
    }

    /// "the string \"x\"", "the integer 10", "an array".
    pub fn describe(&self) -> String {
        match self {
            Scalar::Str(_) => format!("the string {}", self.repr()),
            Scalar::Int(_) => format!("the integer {}", self.repr()),
            Scalar::Float(_) => format!("the float {}", self.repr()),
            Scalar::Bool(_) => format!("the boolean {}", self.repr()),
            Scalar::Other(d) => d.to_string(),
        }
    }

    /// The text `${name}` inserts.
    pub fn text(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Other(d) => d.to_string(),
        }
    }
}

/// A value with parameters substituted, where it was written, and the field it fills.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub s: Scalar,
    pub at: usize,
    pub field: String,
    /// The parameters the value came from, for error messages.
    pub note: Option<String>,
}

/// `[A-Za-z_][A-Za-z0-9_.-]*`: node, group and flow names.
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

impl Val {
    /// An error at this value; names the parameter it came from, if any.
    pub fn fail(&self, message: impl Into<String>) -> Fail {
        let mut message = message.into();
        if let Some(n) = &self.note {
            message += &format!(" (from {n})");
        }
        Fail::new(self.at, &self.field, message)
    }

    /// "expected {expected}, found {what it is}".
    pub fn wrong(&self, expected: &str) -> Fail {
        self.fail(format!("expected {expected}, found {}", self.s.describe()))
    }

    pub fn string(&self) -> Result<String, Fail> {
        match &self.s {
            Scalar::Str(s) => Ok(s.clone()),
            _ => Err(self.wrong("a string")),
        }
    }

    /// A node, group or flow name.
    pub fn name(&self) -> Result<String, Fail> {
        let s = self.string()?;
        if !is_name(&s) {
            return Err(self.fail(format!(
                "{} is not a valid name: use letters, digits, '_', '.' and '-', starting with a letter or '_'",
                self.s.repr()
            )));
        }
        Ok(s)
    }

    pub fn boolean(&self) -> Result<bool, Fail> {
        match self.s {
            Scalar::Bool(b) => Ok(b),
            _ => Err(self.wrong("true or false")),
        }
    }

    /// An integer of at least `min` (0 or 1 here).
    pub fn int_at_least(&self, min: u64) -> Result<u64, Fail> {
        let expected = if min == 0 {
            "a non-negative integer"
        } else {
            "a positive integer"
        };
        match self.s {
            Scalar::Int(i) if i >= 0 && i as u64 >= min => Ok(i as u64),
            Scalar::Int(i) => Err(self.fail(format!("expected {expected}, found {i}"))),
            _ => Err(self.wrong(expected)),
        }
    }

    /// An integer in `min..=max`, for fields a model keeps in a narrower type than i64.
    pub fn int_in(&self, min: u64, max: u64) -> Result<u64, Fail> {
        let n = self.int_at_least(min)?;
        if n > max {
            return Err(self.fail(format!(
                "expected an integer from {min} to {max}, found {n}"
            )));
        }
        Ok(n)
    }

    /// A plain number, integer or float, finite (thresholds, probabilities, weights).
    pub fn number(&self) -> Result<f64, Fail> {
        match self.s {
            Scalar::Int(i) => Ok(i as f64),
            Scalar::Float(f) if f.is_finite() => Ok(f),
            Scalar::Float(_) => {
                Err(self.fail(format!("expected a finite number, found {}", self.s.repr())))
            }
            _ => Err(self.wrong("a number")),
        }
    }

    /// A quantity with a unit, read by one of `units`' parsers.
    pub fn quantity<T>(
        &self,
        q: Quantity,
        parse: fn(&str) -> Result<T, UnitError>,
    ) -> Result<T, Fail> {
        match &self.s {
            Scalar::Str(s) => parse(s).map_err(|e| self.fail(e.to_string())),
            Scalar::Int(_) | Scalar::Float(_) => Err(self.fail(format!(
                "expected {}, found the bare number {}",
                q.expected(),
                self.s.repr()
            ))),
            _ => Err(self.wrong(q.expected())),
        }
    }

    /// One of `choices`, or an error listing them.
    pub fn choice<'c>(&self, choices: &[&'c str], what: &str) -> Result<&'c str, Fail> {
        let s = self.string()?;
        match choices.iter().find(|c| **c == s) {
            Some(c) => Ok(c),
            None => Err(self.fail(format!(
                "unknown {what} '{s}'{}; the {what}s are: {}",
                suggestion(&s, choices.iter().copied()),
                list(choices.iter().copied())
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::Spots;
    use super::*;

    fn val(s: Scalar) -> Val {
        Val {
            s,
            at: 3,
            field: "f".into(),
            note: None,
        }
    }

    #[test]
    fn names_start_with_a_letter_or_underscore() {
        for ok in ["r1", "_x", "src.a-b_2", "A"] {
            assert!(is_name(ok), "{ok}");
        }
        for bad in ["", "1r", "-a", ".a", "a b", "a$", "é"] {
            assert!(!is_name(bad), "{bad}");
        }
    }

    #[test]
    fn wrong_types_say_what_was_expected_and_what_was_found() {
        let e = val(Scalar::Str("10".into())).int_at_least(0).unwrap_err();
        assert_eq!(
            e.message,
            "expected a non-negative integer, found the string \"10\""
        );
        let e = val(Scalar::Int(-2)).int_at_least(0).unwrap_err();
        assert_eq!(e.message, "expected a non-negative integer, found -2");
        let e = val(Scalar::Int(0)).int_at_least(1).unwrap_err();
        assert_eq!(e.message, "expected a positive integer, found 0");
        let e = val(Scalar::Other("an array")).boolean().unwrap_err();
        assert_eq!(e.message, "expected true or false, found an array");
        assert_eq!(e.at, 3);
    }

    #[test]
    fn a_bare_number_for_a_quantity_asks_for_a_unit() {
        use crate::scenario::units::parse_rate_bps;
        let e = val(Scalar::Int(10))
            .quantity(Quantity::Rate, parse_rate_bps)
            .unwrap_err();
        assert!(
            e.message
                .starts_with("expected a rate with a unit, like '10Mbps'"),
            "{}",
            e.message
        );
    }

    #[test]
    fn errors_from_parameters_name_the_parameter() {
        let mut v = val(Scalar::Str("x".into()));
        v.note = Some("parameter 'n' = \"x\"".into());
        let e = v.int_at_least(0).unwrap_err();
        assert!(
            e.message.ends_with("(from parameter 'n' = \"x\")"),
            "{}",
            e.message
        );
    }

    #[test]
    fn choices_list_the_alternatives_and_suggest_the_closest() {
        let e = val(Scalar::Str("ppp2".into()))
            .choice(&["plain", "ppp"], "framing")
            .unwrap_err();
        assert_eq!(
            e.message,
            "unknown framing 'ppp2' (did you mean 'ppp'?); the framings are: plain, ppp"
        );
        assert_eq!(
            val(Scalar::Str("ppp".into()))
                .choice(&["plain", "ppp"], "framing")
                .unwrap(),
            "ppp"
        );
    }

    #[test]
    fn narrow_integers_and_plain_numbers_say_their_range() {
        assert_eq!(val(Scalar::Int(7)).int_in(0, 7).unwrap(), 7);
        assert_eq!(
            val(Scalar::Int(8)).int_in(0, 7).unwrap_err().message,
            "expected an integer from 0 to 7, found 8"
        );
        assert_eq!(val(Scalar::Int(2)).number().unwrap(), 2.0);
        assert_eq!(val(Scalar::Float(0.5)).number().unwrap(), 0.5);
        assert_eq!(
            val(Scalar::Float(f64::INFINITY))
                .number()
                .unwrap_err()
                .message,
            "expected a finite number, found inf"
        );
        assert_eq!(
            val(Scalar::Str("5".into())).number().unwrap_err().message,
            "expected a number, found the string \"5\""
        );
    }

    #[test]
    fn a_model_error_points_at_its_field_or_else_at_the_table() {
        let spots = Spots::for_test(4, "link[0].queue", &[("w_q", 20)]);
        let e = spots.fail("w_q", "w_q 0 must be in (0, 1]");
        assert_eq!(
            (e.at, e.field.as_str(), e.message.as_str()),
            (20, "link[0].queue.w_q", "w_q 0 must be in (0, 1]")
        );
        let e = spots.fail("limit", "must be positive");
        assert_eq!(
            (e.at, e.field.as_str(), e.message.as_str()),
            (4, "link[0].queue.limit", "limit must be positive")
        );
        assert!(spots.has("w_q") && !spots.has("limit"));
    }

    #[test]
    fn long_strings_are_shortened_in_messages() {
        let s = Scalar::Str("x".repeat(100));
        assert!(s.repr().chars().count() < 50);
    }
}
