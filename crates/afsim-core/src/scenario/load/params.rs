//! `[params]`, `--set` overrides, and substituting parameters into values.
//!
//! Read this first: a parameter is a named TOML scalar (string, integer, float, boolean).
//! Wherever a value is written, the string `"$name"` — exactly that, nothing around it — is
//! replaced by the parameter's value *with its type* (`count = "$n"` with `n = 10` is the integer
//! 10), and inside any other string `${name}` is replaced by the parameter's text
//! (`delay = "${d}ms"` with `d = 5` is "5ms"). `$$` is a literal `$`; any other `$` is an error,
//! so a typo never silently becomes part of a name or a unit. Parameter values are literal:
//! they cannot refer to other parameters (no `$` in them). An override `--set k=v` replaces the
//! value of an existing parameter; `v` is read as a TOML integer, float or boolean if it is one,
//! as a TOML string if it is quoted, and otherwise taken as the string it is. Every parameter
//! must be used at least once, so a misspelt reference and its stale definition both fail.

use super::source::{list, suggestion, Fail};
use super::value::{Scalar, Val};
use std::cell::Cell;
use toml_edit::{Item, Table, Value};

/// One parameter, with where it was defined and whether anything used it.
pub(crate) struct Param {
    pub name: String,
    pub value: Scalar,
    /// Byte offset of the definition's value in the file.
    pub at: usize,
    /// The `--set` text that replaced the file's value, if any.
    pub set_by: Option<String>,
    pub used: Cell<bool>,
}

impl Param {
    /// "parameter 'r' = \"2MBps\"" (+ ", set with --set r=2MBps").
    fn describe(&self) -> String {
        let mut s = format!("parameter '{}' = {}", self.name, self.value.repr());
        if let Some(v) = &self.set_by {
            s += &format!(", set with --set {}={v}", self.name);
        }
        s
    }
}

pub(crate) struct Params {
    list: Vec<Param>,
}

/// `[A-Za-z_][A-Za-z0-9_-]*`: what may follow `$` or sit inside `${}`.
pub(crate) fn is_param_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

const DOLLAR_HELP: &str =
    "write \"$name\" for a parameter's value, \"${name}\" to put its text inside a string, or \"$$\" for a literal '$'";

impl Params {
    /// Reads `[params]` from the root table and applies `overrides` in order (a later `--set`
    /// of the same name wins).
    pub fn read(root: &Table, overrides: &[(String, String)]) -> Result<Params, Fail> {
        let mut defs = Vec::new();
        // Where override errors point: the [params] table, else the top of the file.
        let mut table_at = 0;
        if let Some((key, item)) = root.get_key_value("params") {
            let key_at = key.span().map_or(0, |s| s.start);
            table_at = item.span().map_or(key_at, |s| s.start);
            let Some(t) = item.as_table_like() else {
                return Err(Fail::new(
                    table_at,
                    "params",
                    format!(
                        "expected a [params] table of name = value, found {}",
                        Scalar::of_item(item).describe()
                    ),
                ));
            };
            for (name, item) in t.iter() {
                let (k, _) = t.get_key_value(name).expect("iterated key exists");
                let name_at = k.span().map_or(table_at, |s| s.start);
                let at = item.span().unwrap_or(name_at..name_at).start;
                let field = format!("params.{name}");
                if !is_param_name(name) {
                    return Err(Fail::new(
                        name_at,
                        field,
                        format!("'{name}' is not a valid parameter name: use letters, digits, '_' and '-', starting with a letter or '_'"),
                    ));
                }
                let value = match item {
                    Item::Value(v) => Scalar::of_value(v),
                    other => Scalar::of_item(other),
                };
                check_param_value(&value).map_err(|m| Fail::new(at, &field, m))?;
                defs.push(Param {
                    name: name.to_string(),
                    value,
                    at,
                    set_by: None,
                    used: Cell::new(false),
                });
            }
        }
        let mut params = Params { list: defs };
        for (k, v) in overrides {
            let k = k.trim();
            let field = format!("--set {k}");
            let names: Vec<&str> = params.list.iter().map(|p| p.name.as_str()).collect();
            let Some(i) = params.list.iter().position(|p| p.name == k) else {
                let message = if names.is_empty() {
                    format!("unknown parameter '{k}': this scenario has no [params]")
                } else {
                    format!(
                        "unknown parameter '{k}'{}; the parameters are: {}",
                        suggestion(k, names.iter().copied()),
                        list(names.iter().copied())
                    )
                };
                return Err(Fail::new(table_at, field, message));
            };
            let value = parse_override(v);
            check_param_value(&value).map_err(|m| Fail::new(table_at, &field, m))?;
            let p = &mut params.list[i];
            p.value = value;
            p.set_by = Some(v.clone());
        }
        Ok(params)
    }

    /// The parameter `name`, marked as used.
    fn lookup(&self, name: &str, at: usize, field: &str) -> Result<&Param, Fail> {
        match self.list.iter().find(|p| p.name == name) {
            Some(p) => {
                p.used.set(true);
                Ok(p)
            }
            None => {
                let names = self.list.iter().map(|p| p.name.as_str());
                let message = if self.list.is_empty() {
                    format!("undefined parameter '{name}': this scenario has no [params]")
                } else {
                    format!(
                        "undefined parameter '{name}'{}; the parameters are: {}",
                        suggestion(name, names.clone()),
                        list(names)
                    )
                };
                Err(Fail::new(at, field, message))
            }
        }
    }

    /// A value as written at byte offset `at` for `field`, with parameters substituted.
    pub fn resolve(&self, v: &Value, at: usize, field: &str) -> Result<Val, Fail> {
        let at = v.span().map_or(at, |s| s.start);
        let Value::String(s) = v else {
            return Ok(Val {
                s: Scalar::of_value(v),
                at,
                field: field.to_string(),
                note: None,
            });
        };
        let text: &str = s.value();
        if let Some(name) = text.strip_prefix('$') {
            if is_param_name(name) {
                let p = self.lookup(name, at, field)?;
                return Ok(Val {
                    s: p.value.clone(),
                    at,
                    field: field.to_string(),
                    note: Some(p.describe()),
                });
            }
        }
        if !text.contains('$') {
            return Ok(Val {
                s: Scalar::Str(text.to_string()),
                at,
                field: field.to_string(),
                note: None,
            });
        }
        let mut out = String::with_capacity(text.len());
        let mut used = Vec::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            if let Some(r) = rest.strip_prefix("$$") {
                out.push('$');
                rest = r;
            } else if let Some(r) = rest.strip_prefix("${") {
                let Some(end) = r.find('}') else {
                    return Err(Fail::new(
                        at,
                        field,
                        format!("'${{' without a closing '}}' in \"{text}\"; {DOLLAR_HELP}"),
                    ));
                };
                let name = &r[..end];
                if !is_param_name(name) {
                    return Err(Fail::new(
                        at,
                        field,
                        format!("'${{{name}}}' is not a parameter reference; {DOLLAR_HELP}"),
                    ));
                }
                let p = self.lookup(name, at, field)?;
                out.push_str(&p.value.text());
                used.push(p.describe());
                rest = &r[end + 1..];
            } else {
                return Err(Fail::new(
                    at,
                    field,
                    format!("unexpected '$' in \"{text}\"; {DOLLAR_HELP}"),
                ));
            }
        }
        out.push_str(rest);
        let note = (!used.is_empty()).then(|| used.join(", "));
        Ok(Val {
            s: Scalar::Str(out),
            at,
            field: field.to_string(),
            note,
        })
    }

    /// The first parameter nothing referred to.
    pub fn check_all_used(&self) -> Result<(), Fail> {
        match self.list.iter().find(|p| !p.used.get()) {
            Some(p) => Err(Fail::new(
                p.at,
                format!("params.{}", p.name),
                format!(
                    "parameter '{}' is never used; refer to it as \"${}\" or remove it",
                    p.name, p.name
                ),
            )),
            None => Ok(()),
        }
    }
}

fn check_param_value(v: &Scalar) -> Result<(), String> {
    match v {
        Scalar::Other(_) => Err(format!(
            "a parameter must be a single string, integer, float or boolean, found {}",
            v.describe()
        )),
        Scalar::Str(s) if s.contains('$') => Err(format!(
            "parameter values are literal and cannot refer to other parameters, found {}",
            v.repr()
        )),
        _ => Ok(()),
    }
}

/// `--set` text → a scalar: TOML integer, float or boolean if it parses as one, the content of
/// a quoted TOML string, else the text itself.
fn parse_override(v: &str) -> Scalar {
    match v.trim().parse::<Value>() {
        Ok(Value::Integer(i)) => Scalar::Int(*i.value()),
        Ok(Value::Float(f)) => Scalar::Float(*f.value()),
        Ok(Value::Boolean(b)) => Scalar::Bool(*b.value()),
        Ok(Value::String(s)) => Scalar::Str(s.value().clone()),
        _ => Scalar::Str(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toml_edit::ImDocument;

    fn params(text: &str, overrides: &[(&str, &str)]) -> Result<Params, Fail> {
        let doc = ImDocument::parse(text).unwrap();
        let ov: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Params::read(doc.as_table(), &ov)
    }

    fn resolve(p: &Params, s: &str) -> Result<Scalar, Fail> {
        let v: Value = s.parse().unwrap();
        p.resolve(&v, 0, "x").map(|v| v.s)
    }

    #[test]
    fn a_whole_reference_keeps_the_parameter_type() {
        let p = params("[params]\nn = 10\nr = \"2Mbps\"\nf = 0.5\nb = true", &[]).unwrap();
        assert_eq!(resolve(&p, "\"$n\"").unwrap(), Scalar::Int(10));
        assert_eq!(resolve(&p, "\"$r\"").unwrap(), Scalar::Str("2Mbps".into()));
        assert_eq!(resolve(&p, "\"$f\"").unwrap(), Scalar::Float(0.5));
        assert_eq!(resolve(&p, "\"$b\"").unwrap(), Scalar::Bool(true));
    }

    #[test]
    fn interpolation_inserts_the_parameter_text() {
        let p = params("[params]\nd = 5\nh = \"src\"\nf = 1.5", &[]).unwrap();
        assert_eq!(
            resolve(&p, "\"${d}ms\"").unwrap(),
            Scalar::Str("5ms".into())
        );
        assert_eq!(
            resolve(&p, "\"${h}${d}\"").unwrap(),
            Scalar::Str("src5".into())
        );
        assert_eq!(
            resolve(&p, "\"${f} ms\"").unwrap(),
            Scalar::Str("1.5 ms".into())
        );
        assert_eq!(
            resolve(&p, "\"cost $$${d}\"").unwrap(),
            Scalar::Str("cost $5".into())
        );
    }

    #[test]
    fn values_without_dollar_pass_through_unchanged() {
        let p = params("", &[]).unwrap();
        assert_eq!(resolve(&p, "\"10ms\"").unwrap(), Scalar::Str("10ms".into()));
        assert_eq!(resolve(&p, "7").unwrap(), Scalar::Int(7));
        assert_eq!(resolve(&p, "[1]").unwrap(), Scalar::Other("an array"));
    }

    #[test]
    fn an_undefined_reference_is_an_error_with_a_suggestion() {
        let p = params("[params]\nn_af = 10", &[]).unwrap();
        let e = resolve(&p, "\"$n_aff\"").unwrap_err();
        assert!(
            e.message
                .contains("undefined parameter 'n_aff' (did you mean 'n_af'?)"),
            "{}",
            e.message
        );
        let e = resolve(&p, "\"${x}ms\"").unwrap_err();
        assert!(
            e.message.contains("undefined parameter 'x'"),
            "{}",
            e.message
        );
        let none = params("", &[]).unwrap();
        assert!(resolve(&none, "\"$x\"")
            .unwrap_err()
            .message
            .contains("no [params]"));
    }

    #[test]
    fn a_stray_dollar_is_an_error() {
        let p = params("[params]\nn = 1", &[]).unwrap();
        for s in [
            "\"$\"",
            "\"$5\"",
            "\"a$n\"",
            "\"${n\"",
            "\"${}\"",
            "\"${n m}\"",
            "\"$n \"",
        ] {
            assert!(resolve(&p, s).is_err(), "{s}");
        }
    }

    #[test]
    fn unused_parameters_are_reported_at_their_definition() {
        let p = params("[params]\na = 1\nb = 2", &[]).unwrap();
        resolve(&p, "\"$a\"").unwrap();
        let e = p.check_all_used().unwrap_err();
        assert_eq!((e.at, e.field.as_str()), (19, "params.b"));
        assert!(e.message.contains("parameter 'b' is never used"));
        resolve(&p, "\"x${b}\"").unwrap();
        assert!(p.check_all_used().is_ok());
    }

    #[test]
    fn overrides_are_typed_like_toml_scalars() {
        let p = params(
            "[params]\na = 1\nb = 1\nc = 1\nd = 1\ne = 1\nf = 1",
            &[
                ("a", "10"),
                ("b", "2.5"),
                ("c", "false"),
                ("d", "2Mbps"),
                ("e", "\"10\""),
                ("f", "1_000"),
            ],
        )
        .unwrap();
        assert_eq!(resolve(&p, "\"$a\"").unwrap(), Scalar::Int(10));
        assert_eq!(resolve(&p, "\"$b\"").unwrap(), Scalar::Float(2.5));
        assert_eq!(resolve(&p, "\"$c\"").unwrap(), Scalar::Bool(false));
        assert_eq!(resolve(&p, "\"$d\"").unwrap(), Scalar::Str("2Mbps".into()));
        assert_eq!(resolve(&p, "\"$e\"").unwrap(), Scalar::Str("10".into()));
        assert_eq!(resolve(&p, "\"$f\"").unwrap(), Scalar::Int(1000));
    }

    #[test]
    fn the_last_override_of_a_name_wins() {
        let p = params("[params]\na = 1", &[("a", "2"), ("a", "3")]).unwrap();
        assert_eq!(resolve(&p, "\"$a\"").unwrap(), Scalar::Int(3));
    }

    #[test]
    fn an_override_of_an_unknown_parameter_points_at_the_params_table() {
        let e = params("# x\n[params]\nrate = 1", &[("rat", "2")])
            .err()
            .unwrap();
        assert_eq!((e.at, e.field.as_str()), (4, "--set rat"));
        assert!(
            e.message.contains(
                "unknown parameter 'rat' (did you mean 'rate'?); the parameters are: rate"
            ),
            "{}",
            e.message
        );
        let e = params("", &[("x", "2")]).err().unwrap();
        assert_eq!(e.at, 0);
        assert!(e.message.contains("no [params]"));
    }

    #[test]
    fn parameters_must_be_literal_scalars_with_valid_names() {
        assert!(params("[params]\na = [1]", &[]).is_err());
        assert!(params("[params]\na = { b = 1 }", &[]).is_err());
        assert!(params("[params]\na.b = 1", &[]).is_err());
        assert!(params("[params]\na = 1979-05-27", &[]).is_err());
        assert!(params("[params]\na = \"$b\"\nb = 1", &[]).is_err());
        assert!(params("[params]\n\"a b\" = 1", &[]).is_err());
        assert!(params("[params]\n1a = 1", &[]).is_err());
        assert!(params("params = 3", &[]).is_err());
        assert!(params("[params]\na = 1", &[("a", "$b")]).is_err());
    }
}
