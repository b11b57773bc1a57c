//! Where things are in a scenario file: byte offsets, lines and columns, and the loader's
//! internal error before it gets its line and column.
//!
//! Read this first: the loader works with byte offsets (what toml_edit's spans give) and turns
//! one into a 1-based line and character column only when an error leaves the loader. `First`
//! keeps the earliest of several independent errors, so that of two bad records the user hears
//! about the one nearer the top of the file (reading order).

use crate::scenario::ScenarioError;

/// A scenario's text, with its line starts indexed.
pub(crate) struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            file,
            text,
            line_starts,
        }
    }

    /// 1-based line and character column of byte offset `at` (clamped into the text).
    pub fn line_col(&self, at: usize) -> (usize, usize) {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= at);
        let start = self.line_starts[line - 1];
        (line, self.text[start..at].chars().count() + 1)
    }

    /// 1-based line of byte offset `at`.
    pub fn line(&self, at: usize) -> usize {
        self.line_col(at).0
    }

    pub fn error(&self, f: Fail) -> ScenarioError {
        let (line, column) = self.line_col(f.at);
        ScenarioError {
            file: self.file.to_string(),
            line,
            column,
            field: f.field,
            message: f.message,
        }
    }
}

/// An error at byte offset `at`, with its field path and message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fail {
    pub at: usize,
    pub field: String,
    pub message: String,
}

impl Fail {
    pub fn new(at: usize, field: impl Into<String>, message: impl Into<String>) -> Self {
        Fail {
            at,
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The earliest (lowest byte offset) of the errors offered to it; ties keep the first offered.
#[derive(Default)]
pub(crate) struct First(Option<Fail>);

impl First {
    pub fn push(&mut self, f: Fail) {
        match &self.0 {
            Some(best) if best.at <= f.at => {}
            _ => self.0 = Some(f),
        }
    }

    /// The value of `r`, or `None` after keeping its error.
    pub fn take<T>(&mut self, r: Result<T, Fail>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(f) => {
                self.push(f);
                None
            }
        }
    }

    pub fn finish(self) -> Result<(), Fail> {
        match self.0 {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }
}

/// "a, b, c" — for "the fields are ..." messages.
pub(crate) fn list<'s>(items: impl IntoIterator<Item = &'s str>) -> String {
    items.into_iter().collect::<Vec<_>>().join(", ")
}

/// The candidate closest to `word` if it is a plausible typo of it (edit distance at most one
/// per three letters; only a change of case for shorter words); ties go to the first candidate.
pub(crate) fn did_you_mean<'s>(
    word: &str,
    candidates: impl IntoIterator<Item = &'s str>,
) -> Option<&'s str> {
    // One- and two-letter names are too short for a typo to be told from another name.
    let len = word.chars().count();
    let budget = if len < 3 { 0 } else { (len / 3).max(1) };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        let better = match best {
            Some((bd, _)) => d < bd,
            None => true,
        };
        if d <= budget && better {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over characters, case-insensitive (a case slip counts as half a typo
/// would be too clever; it counts as none).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len().abs_diff(b.len()) > 3 || a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// " (did you mean 'x'?)" or "".
pub(crate) fn suggestion<'s>(word: &str, candidates: impl IntoIterator<Item = &'s str>) -> String {
    match did_you_mean(word, candidates) {
        Some(c) => format!(" (did you mean '{c}'?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based() {
        let s = Source::new("f", "ab\ncd\n\nx");
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(1), (1, 2));
        assert_eq!(s.line_col(2), (1, 3)); // the newline itself
        assert_eq!(s.line_col(3), (2, 1));
        assert_eq!(s.line_col(6), (3, 1));
        assert_eq!(s.line_col(7), (4, 1));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let s = Source::new("f", "é = \"µs\"");
        assert_eq!(s.line_col(5), (1, 5)); // the opening quote, after a 2-byte é
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_character_are_clamped() {
        let s = Source::new("f", "aé");
        assert_eq!(s.line_col(2), (1, 2)); // inside é → its start
        assert_eq!(s.line_col(99), (1, 3));
        assert_eq!(Source::new("f", "").line_col(0), (1, 1));
    }

    #[test]
    fn first_keeps_the_earliest_error_and_the_first_of_a_tie() {
        let mut first = First::default();
        first.push(Fail::new(10, "b", "later"));
        first.push(Fail::new(3, "a", "earlier"));
        first.push(Fail::new(3, "c", "tie"));
        first.push(Fail::new(7, "d", "middle"));
        assert_eq!(first.finish().unwrap_err().field, "a");
        assert!(First::default().finish().is_ok());
    }

    #[test]
    fn typos_get_a_suggestion_and_unrelated_words_do_not() {
        let names = ["rate", "delay", "between", "framing"];
        assert_eq!(did_you_mean("rat", names), Some("rate"));
        assert_eq!(did_you_mean("betwen", names), Some("between"));
        assert_eq!(did_you_mean("Delay", names), Some("delay"));
        assert_eq!(did_you_mean("colour", names), None);
        assert_eq!(suggestion("framin", names), " (did you mean 'framing'?)");
        assert_eq!(suggestion("zzz", names), "");
        assert_eq!(did_you_mean("m", ["n"]), None);
        assert_eq!(did_you_mean("N", ["n"]), Some("n"));
    }
}
