//! The report's pretty JSON in fewer writes (issue 28: the JSON report is the largest part of
//! `afsim run --format json`'s fixed cost; 11.8 MB at 2,000 flows).
//!
//! The text is exactly what `serde_json::to_string_pretty` makes (serde_json's
//! `PrettyFormatter` with its default two-space indent): every value of an array and every key
//! of an object on its own line, indented two spaces a level; a closing bracket on its own line
//! at its opener's indentation unless the array or object is empty (`[]`, `{}`); `": "` between
//! a key and its value. That formatter writes a line break and then the indentation one level
//! at a time (a loop of two-space writes: 1 + depth writes before each key and each array
//! value); `Pretty` writes the comma, the line break and the whole indentation as one slice of
//! a constant. Only those structural pieces differ in how they are written; the
//! strings and numbers are serde_json's own. Tested against `to_string_pretty` below and by
//! every report of the golden test.

use std::io::{self, Write};

use serde_json::ser::Formatter;

/// Levels of indentation written in one slice; deeper ones (none in a report) two spaces at a
/// time after it.
const LEVELS: usize = 32;

/// `",\n"` and then the spaces of `LEVELS` levels: a line break before a value is a slice of
/// this, from 0 (after a value) or 1 (the first one), to 2 + 2 · level.
const BREAKS: [u8; 2 + 2 * LEVELS] = {
    let mut b = [b' '; 2 + 2 * LEVELS];
    b[0] = b',';
    b[1] = b'\n';
    b
};

/// serde_json's pretty layout (two-space indent), its line breaks written whole.
#[derive(Debug, Default)]
pub(crate) struct Pretty {
    level: usize,
    /// The array or object being closed has had a value (as serde_json's formatter keeps it:
    /// one flag, set by every value's end, cleared by every opening).
    has_value: bool,
}

impl Pretty {
    /// A line break and the current level's indentation, after a comma unless `first`.
    #[inline]
    fn line<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        let from = usize::from(first);
        if self.level <= LEVELS {
            w.write_all(&BREAKS[from..2 + 2 * self.level])
        } else {
            w.write_all(&BREAKS[from..2 + 2 * LEVELS])?;
            for _ in LEVELS..self.level {
                w.write_all(b"  ")?;
            }
            Ok(())
        }
    }

    #[inline]
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    #[inline]
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(w, true)?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Pretty {
    #[inline]
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    #[inline]
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    #[inline]
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, first)
    }

    #[inline]
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    #[inline]
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    #[inline]
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    #[inline]
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, first)
    }

    #[inline]
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    #[inline]
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn pretty<T: Serialize>(v: &T) -> String {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, Pretty::default());
        v.serialize(&mut ser).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_same_text_as_serde_jsons_pretty_printer() {
        // nesting, empty and one-element arrays and objects, strings with escapes, numbers
        let mut keyed = std::collections::BTreeMap::new();
        keyed.insert(7u64, "seven");
        keyed.insert(12u64, "a \"quoted\" value");
        let v = serde_json::json!({
            "a": [1, 2.5, -3, null, true, "x\"y\n"],
            "esc\"aped\tkey": {"\u{7}": 1},
            "numbers as keys": keyed,
            "empty_list": [],
            "empty_map": {},
            "one": [{"k": [[]]}],
            "deep": [[[[[[{"z": [{}]}]]]]]],
            "s": "ü ✓ \u{1}",
        });
        assert_eq!(pretty(&v), serde_json::to_string_pretty(&v).unwrap());
        // deeper than the constant's levels
        let mut deep = serde_json::json!(1);
        for i in 0..(LEVELS + 5) {
            deep = if i % 2 == 0 {
                serde_json::json!([deep, 2])
            } else {
                serde_json::json!({ "k": deep, "j": [] })
            };
        }
        assert_eq!(pretty(&deep), serde_json::to_string_pretty(&deep).unwrap());
    }
}
