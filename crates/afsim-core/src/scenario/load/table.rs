//! Reading one table of a scenario file (`[[link]]`, an inline `queue = { ... }`): its fields in
//! file order with their positions (`Rec`, `Field`), each value read with parameters
//! substituted (`Rec::val`), and where each field was written (`Spots`), so a model's own
//! `validate()` error points at the field it names.

use super::params::Params;
use super::source::{list, suggestion, Fail};
use super::value::{Scalar, Val};
use toml_edit::{Item, TableLike, Value};

/// One field of a table, in file order.
pub(crate) struct Field<'a> {
    pub key: &'a str,
    pub item: &'a Item,
    pub key_at: usize,
    /// The value's own position (its first byte), or the key's if the value has no span.
    pub at: usize,
}

/// A table (standard or inline) being read, with its position and path.
pub(crate) struct Rec<'a> {
    pub t: &'a dyn TableLike,
    /// Where the table starts: its `[header]`, or its `{` when inline.
    pub at: usize,
    /// Field path prefix: `link[2]`, `link[2].queue`, `scenario`.
    pub path: String,
    /// How the user writes this table in messages: `[[link]]`, `queue`.
    pub title: String,
}

impl<'a> Rec<'a> {
    /// The table in `item`, or a wrong-type error naming `expected`.
    pub fn of_item(
        item: &'a Item,
        at: usize,
        path: String,
        title: &str,
        expected: &str,
    ) -> Result<Rec<'a>, Fail> {
        let at = item.span().map_or(at, |s| s.start);
        match item.as_table_like() {
            Some(t) => Ok(Rec {
                t,
                at,
                path,
                title: title.to_string(),
            }),
            None => Err(Fail::new(
                at,
                path,
                format!(
                    "expected {expected}, found {}",
                    Scalar::of_item(item).describe()
                ),
            )),
        }
    }

    /// The records of an array of tables `[[node]]`, also written `node = [{...}, {...}]`.
    pub fn array(item: &'a Item, key_at: usize, key: &str) -> Result<Vec<Rec<'a>>, Fail> {
        let title = format!("[[{key}]]");
        let expected = format!("{title} tables");
        match item {
            Item::ArrayOfTables(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, t)| Rec {
                    t,
                    at: t.span().map_or(key_at, |s| s.start),
                    path: format!("{key}[{i}]"),
                    title: title.clone(),
                })
                .collect()),
            Item::Value(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let at = v.span().map_or(key_at, |s| s.start);
                    match v {
                        Value::InlineTable(t) => Ok(Rec {
                            t,
                            at,
                            path: format!("{key}[{i}]"),
                            title: title.clone(),
                        }),
                        other => Err(Fail::new(
                            at,
                            format!("{key}[{i}]"),
                            format!(
                                "expected a table, found {}",
                                Scalar::of_value(other).describe()
                            ),
                        )),
                    }
                })
                .collect(),
            other => {
                let at = other.span().map_or(key_at, |s| s.start);
                Err(Fail::new(
                    at,
                    key,
                    format!(
                        "expected {expected} (write [[{key}]], with double brackets), found {}",
                        Scalar::of_item(other).describe()
                    ),
                ))
            }
        }
    }

    pub fn fields(&self) -> Vec<Field<'a>> {
        let t: &'a dyn TableLike = self.t;
        t.iter()
            .map(|(key, item)| {
                let key_at = t
                    .get_key_value(key)
                    .and_then(|(k, _)| k.span())
                    .map_or(self.at, |s| s.start);
                let at = item.span().map_or(key_at, |s| s.start);
                Field {
                    key,
                    item,
                    key_at,
                    at,
                }
            })
            .collect()
    }

    pub fn path_of(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// "unknown field 'x' in [[link]]; the fields are: ...".
    pub fn unknown(&self, f: &Field, known: &[&str]) -> Fail {
        Fail::new(
            f.key_at,
            self.path_of(f.key),
            format!(
                "unknown field '{}' in {}{}; the fields are: {}",
                f.key,
                self.title,
                suggestion(f.key, known.iter().copied()),
                list(known.iter().copied())
            ),
        )
    }

    /// A required field that is absent: the error points at the table.
    pub fn missing(&self, key: &str, example: &str) -> Fail {
        Fail::new(
            self.at,
            self.path_of(key),
            format!(
                "{} lacks the required field '{key}' (for example {key} = {example})",
                self.title
            ),
        )
    }

    /// The value of field `f`, parameters substituted; while a table is read member by member
    /// (`Params::set_member`), an array is the members' values, one each.
    pub fn val(&self, params: &Params, f: &Field) -> Result<Val, Fail> {
        let field = self.path_of(f.key);
        match f.item {
            Item::Value(Value::Array(a)) => match params.member_value(a, f.at, &field)? {
                Some(v) => Ok(v),
                None => Ok(Val {
                    s: Scalar::Other("an array"),
                    at: a.span().map_or(f.at, |s| s.start),
                    field,
                    note: None,
                }),
            },
            Item::Value(v) => params.resolve(v, f.at, &field),
            other => Ok(Val {
                s: Scalar::of_item(other),
                at: f.at,
                field,
                note: None,
            }),
        }
    }

    /// The records of an array of tables inside this one (`levels = [{...}, {...}]` or
    /// `[[link.queue.levels]]`), with paths `{path}.{key}[i]`.
    pub fn sub_array(&self, f: &Field<'a>, expected: &str) -> Result<Vec<Rec<'a>>, Fail> {
        let path = self.path_of(f.key);
        let rec = |t: &'a dyn TableLike, at: usize, i: usize| Rec {
            t,
            at,
            path: format!("{path}[{i}]"),
            title: format!("{}[{i}]", f.key),
        };
        match f.item {
            Item::ArrayOfTables(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, t)| rec(t, t.span().map_or(f.at, |s| s.start), i))
                .collect()),
            Item::Value(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let at = v.span().map_or(f.at, |s| s.start);
                    match v {
                        Value::InlineTable(t) => Ok(rec(t, at, i)),
                        other => Err(Fail::new(
                            at,
                            format!("{path}[{i}]"),
                            format!(
                                "expected a table, found {}",
                                Scalar::of_value(other).describe()
                            ),
                        )),
                    }
                })
                .collect(),
            other => Err(Fail::new(
                f.at,
                path,
                format!(
                    "expected {expected}, found {}",
                    Scalar::of_item(other).describe()
                ),
            )),
        }
    }

    /// Where each field of this table was written (see `Spots`).
    pub fn spots(&self) -> Spots {
        Spots {
            at: self.at,
            path: self.path.clone(),
            fields: self
                .fields()
                .iter()
                .map(|f| (f.key.to_string(), f.at))
                .collect(),
        }
    }

    /// A field holding one value or an array of them (`flows = "af"`, `flows = ["af", "be"]`),
    /// each with its own position and path (`match.flows[1]`).
    pub fn vals(&self, params: &Params, f: &Field) -> Result<Vec<Val>, Fail> {
        let field = self.path_of(f.key);
        match f.item {
            Item::Value(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| params.resolve(v, f.at, &format!("{field}[{i}]")))
                .collect(),
            _ => Ok(vec![self.val(params, f)?]),
        }
    }

    /// A field holding an array of strings (node names): each with its position.
    pub fn strings(
        &self,
        params: &Params,
        f: &Field,
        expected: &str,
    ) -> Result<Vec<(String, usize)>, Fail> {
        let field = self.path_of(f.key);
        let Item::Value(Value::Array(a)) = f.item else {
            return Err(Fail::new(
                f.at,
                field,
                format!(
                    "expected {expected}, found {}",
                    Scalar::of_item(f.item).describe()
                ),
            ));
        };
        a.iter()
            .enumerate()
            .map(|(i, v)| {
                let val = params.resolve(v, f.at, &format!("{field}[{i}]"))?;
                Ok((val.string()?, val.at))
            })
            .collect()
    }
}

/// Where the fields of one table were written, so that a model's `validate()` error — which
/// names a field but knows nothing of files — points at that field's value, or at the table
/// when the field was left at its default.
#[derive(Clone, Debug)]
pub(crate) struct Spots {
    pub at: usize,
    pub path: String,
    fields: Vec<(String, usize)>,
}

impl Spots {
    #[cfg(test)]
    pub fn for_test(at: usize, path: &str, fields: &[(&str, usize)]) -> Spots {
        Spots {
            at,
            path: path.to_string(),
            fields: fields.iter().map(|&(k, a)| (k.to_string(), a)).collect(),
        }
    }

    /// Whether `field` was written.
    pub fn has(&self, field: &str) -> bool {
        self.fields.iter().any(|(k, _)| k == field)
    }

    /// An error about `field` of this table. A model message that starts with "must" ("must be
    /// positive") gets the field's name in front, so it reads as a sentence.
    pub fn fail(&self, field: &str, message: &str) -> Fail {
        let at = self
            .fields
            .iter()
            .find(|(k, _)| k == field)
            .map_or(self.at, |&(_, at)| at);
        let message = if message.starts_with("must ") {
            format!("{field} {message}")
        } else {
            message.to_string()
        };
        Fail::new(at, format!("{}.{field}", self.path), message)
    }
}
