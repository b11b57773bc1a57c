//! `[params]`, `--set` overrides, and substituting parameters into values.
//!
//! Read this first: a parameter is a named TOML scalar (string, integer, float, boolean).
//! Wherever a value is written, the string `"$name"` — exactly that, nothing around it — is
//! replaced by the parameter's value *with its type* (`count = "$n"` with `n = 10` is the integer
//! 10), and inside any other string `${name}` is replaced by the parameter's text
//! (`delay = "${d}ms"` with `d = 5` is "5ms"). A whole string `"$( … )"` is an expression
//! (`expr`): `rate = "$(2 * $cir)"`, `kind = "$(if $ecn then 'red' else 'droptail')"`, typed
//! like the value it evaluates to. `$$` is a literal `$`; any other `$` is an error, so a typo
//! never silently becomes part of a name or a unit.
//!
//! A parameter's own value may refer to other parameters in the same three ways
//! (`pir = "$(2 * $cir)"`); every parameter is resolved once, when the file is read, in
//! dependency order, and a cycle is an error naming it. An override `--set k=v` replaces the
//! value of an existing parameter (a derived one too, which then no longer follows its
//! sources); `v` is read as a TOML integer, float or boolean if it is one, as a TOML string if it
//! is quoted, and otherwise taken as the string it is. Every parameter must be used at least
//! once (a parameter used only by another parameter counts), so a misspelt reference and its
//! stale definition both fail. Errors in a value that came from parameters name the chain:
//! "(from parameter 'pir' = \"$(2 * $cir)\" = \"2000000bps\", from parameter 'cir' = \"1Mbps\",
//! set with --set cir=1Mbps)".

use super::expr::{self, is_param_name};
use super::source::{list, suggestion, Fail};
use super::value::{Scalar, Val};
use std::cell::{Cell, RefCell};
use toml_edit::{Item, Table, Value};

#[derive(Clone, Copy, PartialEq)]
enum State {
    Fresh,
    Resolving,
    Done,
}

/// One parameter, with where it was defined and whether anything used it.
pub(crate) struct Param {
    pub name: String,
    /// The value as written in the file or by `--set`.
    pub written: Scalar,
    /// Byte offset of the definition's value in the file.
    pub at: usize,
    /// The `--set` text that replaced the file's value, if any.
    pub set_by: Option<String>,
    pub used: Cell<bool>,
    state: Cell<State>,
    /// The value once parameters in it are substituted.
    value: RefCell<Scalar>,
    /// The parameters the value came from, described.
    from: RefCell<Option<String>>,
}

impl Param {
    /// "parameter 'r' = \"2MBps\"" (+ " = \"…\"" when derived, + ", set with --set r=2MBps",
    /// + ", from parameter …" for the parameters it was derived from).
    fn describe(&self) -> String {
        let mut s = format!("parameter '{}' = {}", self.name, self.written.repr());
        let value = self.value.borrow();
        if *value != self.written {
            s += &format!(" = {}", value.repr());
        }
        if let Some(v) = &self.set_by {
            s += &format!(", set with --set {}={v}", self.name);
        }
        if let Some(f) = &*self.from.borrow() {
            s += &format!(", from {f}");
        }
        s
    }

    fn field(&self) -> String {
        match &self.set_by {
            Some(_) => format!("--set {}", self.name),
            None => format!("params.{}", self.name),
        }
    }
}

/// The first per-member array met while reading a table member by member: its length and
/// where it is, so every other array of the table must match it.
pub(crate) struct Members {
    pub len: usize,
    pub at: usize,
    pub field: String,
}

pub(crate) struct Params {
    list: Vec<Param>,
    /// While a table that takes per-member values is read for member i: Some(i).
    member: Cell<Option<usize>>,
    members: RefCell<Option<Members>>,
    /// Where `--set` errors point: the [params] table, else the top of the file.
    table_at: usize,
    /// The parameters being resolved, outermost first (to name a cycle).
    stack: RefCell<Vec<String>>,
}

const DOLLAR_HELP: &str =
    "write \"$name\" for a parameter's value, \"${name}\" to put its text inside a string, \"$( … )\" for an expression, or \"$$\" for a literal '$'";

impl Params {
    /// Reads `[params]` from the root table, applies `overrides` in order (a later `--set`
    /// of the same name wins), and resolves every parameter's references.
    pub fn read(root: &Table, overrides: &[(String, String)]) -> Result<Params, Fail> {
        let mut defs = Vec::new();
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
                    value: RefCell::new(value.clone()),
                    written: value,
                    at,
                    set_by: None,
                    used: Cell::new(false),
                    state: Cell::new(State::Fresh),
                    from: RefCell::new(None),
                });
            }
        }
        let mut params = Params {
            list: defs,
            member: Cell::new(None),
            members: RefCell::new(None),
            table_at,
            stack: RefCell::new(Vec::new()),
        };
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
            p.value = RefCell::new(value.clone());
            p.written = value;
            p.set_by = Some(v.clone());
        }
        for p in &params.list {
            params.ensure(p)?;
        }
        Ok(params)
    }

    /// Substitutes the parameters in `p`'s own value, once.
    fn ensure(&self, p: &Param) -> Result<(), Fail> {
        match p.state.get() {
            State::Done => return Ok(()),
            State::Resolving => {
                let stack = self.stack.borrow();
                let from = stack.iter().position(|n| *n == p.name).unwrap_or(0);
                let mut cycle: Vec<&str> = stack[from..].iter().map(String::as_str).collect();
                cycle.push(&p.name);
                return Err(Fail::new(
                    if p.set_by.is_some() {
                        self.table_at
                    } else {
                        p.at
                    },
                    p.field(),
                    format!(
                        "parameter '{}' refers to itself: {}",
                        p.name,
                        cycle.join(" → ")
                    ),
                ));
            }
            State::Fresh => {}
        }
        if let Scalar::Str(text) = &p.written {
            if text.contains('$') {
                p.state.set(State::Resolving);
                self.stack.borrow_mut().push(p.name.clone());
                let at = if p.set_by.is_some() {
                    self.table_at
                } else {
                    p.at
                };
                let r = self.substitute(text, at, &p.field());
                self.stack.borrow_mut().pop();
                let (value, from) = r?;
                *p.value.borrow_mut() = value;
                *p.from.borrow_mut() = from;
            }
        }
        p.state.set(State::Done);
        Ok(())
    }

    /// The parameter `name`, resolved and marked as used.
    fn lookup(&self, name: &str, at: usize, field: &str) -> Result<&Param, Fail> {
        match self.list.iter().find(|p| p.name == name) {
            Some(p) => {
                p.used.set(true);
                self.ensure(p)?;
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
        let (s, note) = self.substitute(s.value(), at, field)?;
        Ok(Val {
            s,
            at,
            field: field.to_string(),
            note,
        })
    }

    /// `text` with its parameter references substituted, and the parameters it used.
    fn substitute(
        &self,
        text: &str,
        at: usize,
        field: &str,
    ) -> Result<(Scalar, Option<String>), Fail> {
        if let Some(name) = text.strip_prefix('$') {
            if is_param_name(name) {
                let p = self.lookup(name, at, field)?;
                return Ok((p.value.borrow().clone(), Some(p.describe())));
            }
        }
        if let Some(src) = expr::body(text) {
            return self.expression(text, src, at, field);
        }
        if !text.contains('$') {
            return Ok((Scalar::Str(text.to_string()), None));
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
                out.push_str(&p.value.borrow().text());
                used.push(p.describe());
                rest = &r[end + 1..];
            } else {
                let hint = if rest.starts_with("$(") {
                    " (an expression \"$( … )\" must be the whole string)"
                } else {
                    ""
                };
                return Err(Fail::new(
                    at,
                    field,
                    format!("unexpected '$' in \"{text}\"{hint}; {DOLLAR_HELP}"),
                ));
            }
        }
        out.push_str(rest);
        let note = (!used.is_empty()).then(|| used.join(", "));
        Ok((Scalar::Str(out), note))
    }

    /// The value of the expression `src` (written as `text`), and the parameters it used.
    fn expression(
        &self,
        text: &str,
        src: &str,
        at: usize,
        field: &str,
    ) -> Result<(Scalar, Option<String>), Fail> {
        let fail = |m: String| Fail::new(at, field, format!("in the expression \"{text}\": {m}"));
        // Every parameter either branch names is used; each is resolved before evaluation.
        let mut used = Vec::new();
        for name in expr::names(src).map_err(fail)? {
            used.push(self.lookup(&name, at, field)?);
        }
        let get = |name: &str| -> Result<Scalar, String> {
            used.iter()
                .find(|p| p.name == name)
                .map(|p| p.value.borrow().clone())
                .ok_or_else(|| format!("undefined parameter '{name}'"))
        };
        let note = (!used.is_empty()).then(|| {
            used.iter()
                .map(|p| p.describe())
                .collect::<Vec<_>>()
                .join(", ")
        });
        let value = expr::evaluate(src, &get).map_err(|m| {
            let mut f = fail(m);
            if let Some(n) = &note {
                f.message += &format!(" (from {n})");
            }
            f
        })?;
        Ok((value, note))
    }

    /// Reads the values that follow as member `m`'s (None: per-member arrays are not taken);
    /// returns the previous setting.
    pub fn set_member(&self, m: Option<usize>) -> Option<usize> {
        self.member.replace(m)
    }

    /// The per-member array met since the last call, if any.
    pub fn take_members(&self) -> Option<Members> {
        self.members.borrow_mut().take()
    }

    /// An array written where one value is expected: while reading member i, its i-th value
    /// (every such array of a table must have the same length); otherwise None.
    pub fn member_value(
        &self,
        a: &toml_edit::Array,
        at: usize,
        field: &str,
    ) -> Result<Option<Val>, Fail> {
        let Some(i) = self.member.get() else {
            return Ok(None);
        };
        if a.is_empty() {
            return Err(Fail::new(
                at,
                field,
                "an empty array: per-member values give one value per member of the group",
            ));
        }
        {
            let mut m = self.members.borrow_mut();
            match &*m {
                None => {
                    *m = Some(Members {
                        len: a.len(),
                        at,
                        field: field.to_string(),
                    })
                }
                Some(first) if first.len != a.len() => {
                    return Err(Fail::new(
                        at,
                        field,
                        format!(
                            "{} per-member values, but {} has {}: every per-member array of a table gives one value per member",
                            a.len(),
                            first.field,
                            first.len
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let Some(v) = a.get(i) else {
            return Err(Fail::new(at, field, format!("no value for member {i}")));
        };
        self.resolve(v, at, &format!("{field}[{i}]")).map(Some)
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
        assert!(params("[params]\n\"a b\" = 1", &[]).is_err());
        assert!(params("[params]\n1a = 1", &[]).is_err());
        assert!(params("params = 3", &[]).is_err());
        assert!(params("[params]\na = 1", &[("a", "$b")]).is_err());
        assert!(params("[params]\na = 1\nb = 2", &[("a", "$b")]).is_ok());
    }

    #[test]
    fn parameters_derive_from_others_and_follow_their_overrides() {
        let text = "[params]\npir = \"$(2 * $cir)\"\ncir = \"1Mbps\"\nname = \"c-${cir}\"\nalias = \"$cir\"";
        let p = params(text, &[]).unwrap();
        assert_eq!(
            resolve(&p, "\"$pir\"").unwrap(),
            Scalar::Str("2000000bps".into())
        );
        assert_eq!(
            resolve(&p, "\"$name\"").unwrap(),
            Scalar::Str("c-1Mbps".into())
        );
        assert_eq!(
            resolve(&p, "\"$alias\"").unwrap(),
            Scalar::Str("1Mbps".into())
        );
        let p = params(text, &[("cir", "3Mbps")]).unwrap();
        assert_eq!(
            resolve(&p, "\"$pir\"").unwrap(),
            Scalar::Str("6000000bps".into())
        );
        let p = params(text, &[("pir", "5Mbps")]).unwrap();
        assert_eq!(
            resolve(&p, "\"$pir\"").unwrap(),
            Scalar::Str("5Mbps".into())
        );
        // cir is used by pir, pir by nothing: only pir is reported as unused.
        let p = params(text, &[]).unwrap();
        resolve(&p, "\"$name\"").unwrap();
        resolve(&p, "\"$alias\"").unwrap();
        assert_eq!(p.check_all_used().unwrap_err().field, "params.pir");
    }

    #[test]
    fn an_error_from_a_derived_parameter_names_the_whole_chain() {
        let text = "[params]\ncir = \"1Mbps\"\npir = \"$(2 * $cir + 1Mbps)\"";
        let p = params(text, &[("cir", "8")]).err().unwrap();
        assert_eq!(p.field, "params.pir");
        assert!(
            p.message
                .contains("dimension error: cannot add a number and a rate"),
            "{}",
            p.message
        );
        let p = params(text, &[("cir", "2Mbps")]).unwrap();
        let doc: Value = "\"$(1s * $pir)\"".parse().unwrap();
        let v = p.resolve(&doc, 0, "x").unwrap();
        let e = v.int_at_least(0).unwrap_err();
        assert!(
            e.message.contains(
                "(from parameter 'pir' = \"$(2 * $cir + 1Mbps)\" = \"5000000bps\", from parameter 'cir' = \"2Mbps\", set with --set cir=2Mbps)"
            ),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_cycle_of_parameters_is_an_error_naming_it() {
        let e = params(
            "[params]\na = \"$(1 + $b)\"\nb = \"$c\"\nc = \"x${a}\"",
            &[],
        )
        .err()
        .unwrap();
        assert_eq!(e.field, "params.a");
        assert!(
            e.message
                .contains("parameter 'a' refers to itself: a → b → c → a"),
            "{}",
            e.message
        );
        assert!(params("[params]\na = \"$a\"", &[]).is_err());
    }

    #[test]
    fn an_expression_must_be_the_whole_string() {
        let p = params("[params]\nn = 1", &[]).unwrap();
        let e = resolve(&p, "\"x$(1 + $n)\"").unwrap_err();
        assert!(
            e.message.contains("must be the whole string"),
            "{}",
            e.message
        );
        assert_eq!(resolve(&p, "\"$(1 + $n)\"").unwrap(), Scalar::Int(2));
        let e = resolve(&p, "\"$(1 + )\"").unwrap_err();
        assert!(
            e.message.starts_with("in the expression \"$(1 + )\""),
            "{}",
            e.message
        );
    }
}
