//! The one error type a scenario file produces: where (file, line, column, field) and what.
//!
//! Read this first: every problem the loader finds — TOML syntax, an unknown field, a wrong
//! unit, a name that does not exist, a route loop — becomes one `ScenarioError` that points at
//! the offending value (or at the table that lacks a required field). Its `Display` is the
//! line a user sees, in the `file:line:column` form editors and terminals make clickable:
//!
//! ```text
//! scenarios/dumbbell.toml:12:8: link[2].rate: expected a rate with a unit, like '10Mbps'
//! ```
//!
//! `line` and `column` are 1-based (the column counts characters, not bytes). Only a file that
//! cannot be read at all has line 0 and column 0.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file as the user named it (or "<builtin:name>" and the like).
    pub file: String,
    /// 1-based line; 0 only for a file that could not be read.
    pub line: usize,
    /// 1-based column in characters; 0 only for a file that could not be read.
    pub column: usize,
    /// Path of the offending field, like `link[2].rate`, `params.n_af`, `flow[0].to` or
    /// `--set x`; indices count the tables as written in the file, before group expansion.
    /// Empty when the error is not about one field (TOML syntax, unreadable file).
    pub field: String,
    /// What is wrong, in a sentence that does not repeat the location.
    pub message: String,
}

impl ScenarioError {
    /// A file that could not be read: no line or column to point at.
    pub fn read(file: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            file: file.into(),
            line: 0,
            column: 0,
            field: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_place(
            f,
            &self.file,
            self.line,
            self.column,
            &self.field,
            &self.message,
        )
    }
}

/// `file:line:column: field: message`, the field part left out when empty.
fn write_place(
    f: &mut fmt::Formatter<'_>,
    file: &str,
    line: usize,
    column: usize,
    field: &str,
    message: &str,
) -> fmt::Result {
    write!(f, "{file}:{line}:{column}: ")?;
    if !field.is_empty() {
        write!(f, "{field}: ")?;
    }
    write!(f, "{message}")
}

impl std::error::Error for ScenarioError {}

/// A setting that is valid but surely not what was meant — a flow that starts after the run
/// ends, a token bucket shallower than one packet of the flows it meters, a queue limit below
/// one packet of the flows crossing it. The run goes ahead; the report lists the warnings
/// (`Report::warnings`) and the command line prints them on stderr. Same place fields as
/// `ScenarioError`, same `Display`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub field: String,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_place(
            f,
            &self.file,
            self.line,
            self.column,
            &self.field,
            &self.message,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(field: &str) -> ScenarioError {
        ScenarioError {
            file: "dumbbell.toml".into(),
            line: 12,
            column: 8,
            field: field.into(),
            message: "expected a rate with a unit, like '10Mbps'".into(),
        }
    }

    #[test]
    fn display_is_file_line_column_field_message() {
        assert_eq!(
            err("link[2].rate").to_string(),
            "dumbbell.toml:12:8: link[2].rate: expected a rate with a unit, like '10Mbps'"
        );
    }

    #[test]
    fn display_omits_an_empty_field() {
        assert_eq!(
            err("").to_string(),
            "dumbbell.toml:12:8: expected a rate with a unit, like '10Mbps'"
        );
    }

    #[test]
    fn a_read_error_has_line_and_column_zero() {
        let e = ScenarioError::read("missing.toml", "No such file or directory (os error 2)");
        assert_eq!((e.line, e.column), (0, 0));
        assert_eq!(
            e.to_string(),
            "missing.toml:0:0: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn a_warning_displays_like_an_error() {
        let w = Warning {
            file: "d.toml".into(),
            line: 3,
            column: 1,
            field: "flow[0].start".into(),
            message: "late".into(),
        };
        assert_eq!(w.to_string(), "d.toml:3:1: flow[0].start: late");
    }

    #[test]
    fn it_is_a_std_error() {
        let e: Box<dyn std::error::Error> = Box::new(err("x"));
        assert!(e.to_string().contains("x: expected"));
    }
}
