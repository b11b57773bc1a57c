//! What of a Rust source file the build's identity hashes (`build.rs`): its code without
//! comments, without `#[cfg(test)]` items and with every run of whitespace outside literals
//! dropped (but between two words), so that editing a comment, a doc comment, a unit test or the layout
//! (`cargo fmt`) keeps `afsim._core.__build__`, and every results store with it, while
//! editing code that computes changes it.
//!
//! Standard library only: `build.rs` includes this file, and python/tests/test_build_hash.rs
//! compiles it alone with `rustc --test` to run the tests at its end.

/// The canonical text of one source file (see the module header), and the names of the
/// modules it declares under `#[cfg(test)]` without a body (`#[cfg(test)] mod tests;`), whose
/// files the caller leaves out.
pub fn canonical(src: &str) -> (String, Vec<String>) {
    let tokens = strip_comments(src);
    remove_test_items(&tokens)
}

/// `src` without comments (line, block, nested block, doc), string, byte-string, raw-string
/// and char literals kept verbatim, and whitespace elsewhere dropped but between two words.
fn strip_comments(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let mut space = false;
    // whitespace is kept only where it separates two words (`fn f`, `as u64`): elsewhere
    // (`f (x)`, `a  +b`) no token depends on it
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let push = |out: &mut String, c: char, space: &mut bool| {
        if *space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        *space = false;
        out.push(c);
    };
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
            space = true;
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            space = true;
        } else if c.is_whitespace() {
            space = true;
            i += 1;
        } else if c == 'r' && (next == Some('"') || (next == Some('#') && raw_start(&s, i + 1))) {
            // raw string r"…" / r#"…"#: up to the closing quote and as many #
            let start = i;
            i += 1;
            let mut hashes = 0;
            while s[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1; // the opening quote
            while i < s.len() {
                if s[i] == '"' && (0..hashes).all(|k| s.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            for &ch in &s[start..i.min(s.len())] {
                push(&mut out, ch, &mut space);
            }
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < s.len() && s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            for &ch in &s[start..i.min(s.len())] {
                push(&mut out, ch, &mut space);
            }
        } else if c == '\'' {
            // a char literal ('"', '\'', '\u{1F600}') or a lifetime ('a): only a literal ends
            // with a quote within a few characters
            let end = if next == Some('\\') {
                (i + 3..s.len().min(i + 12)).find(|&k| s[k] == '\'')
            } else if s.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            let stop = end.map_or(i + 1, |e| e + 1);
            for &ch in &s[i..stop] {
                push(&mut out, ch, &mut space);
            }
            i = stop;
        } else {
            push(&mut out, c, &mut space);
            i += 1;
        }
    }
    out
}

fn raw_start(s: &[char], mut i: usize) -> bool {
    while i < s.len() && s[i] == '#' {
        i += 1;
    }
    s.get(i) == Some(&'"')
}

/// Removes every item under `#[cfg(test)]` (a module with its body, a function, an impl, a
/// `use`) from comment-free text; returns the rest and the names of body-less test modules.
fn remove_test_items(text: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let mut kept = Vec::new();
    let mut external = Vec::new();
    let mut rest = text;
    while let Some(at) = find_outside_literals(rest, ATTR) {
        kept.push(rest[..at].trim());
        let item = rest[at + ATTR.len()..].trim_start();
        let end = item_end(item);
        let head = item[..end].trim();
        if let Some(name) = head
            .strip_prefix("mod ")
            .or_else(|| head.strip_prefix("pub(crate)mod "))
            .or_else(|| head.strip_prefix("pub mod "))
            .and_then(|m| m.strip_suffix(';'))
        {
            external.push(name.trim().to_string());
        }
        rest = &item[end..];
    }
    kept.push(rest.trim());
    kept.retain(|k| !k.is_empty());
    (kept.join(" "), external)
}

/// Where the item at the start of `item` ends: after its `;` or its balanced `{…}`, whichever
/// comes first at depth 0 (literals skipped).
fn item_end(item: &str) -> usize {
    let b = item.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i
}

fn find_outside_literals(text: &str, needle: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            i = skip_string(b, i) + 1;
            continue;
        }
        if b[i..].starts_with(needle.as_bytes()) {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::canonical;

    const CODE: &str =
        "/// Doc.\npub fn rate(x: f64) -> f64 {\n    // half\n    x * 0.5 /* inline */\n}\n";

    #[test]
    fn comments_doc_comments_and_layout_do_not_count() {
        let edited = "//! A module doc.\n/// Other doc.\npub fn rate(x: f64)\n    -> f64 { x * 0.5 } // end\n";
        assert_eq!(canonical(CODE).0, canonical(edited).0);
        assert_eq!(canonical(CODE).0, "pub fn rate(x:f64)->f64{x*0.5}");
    }

    #[test]
    fn code_counts() {
        let edited = CODE.replace("0.5", "0.25");
        assert_ne!(canonical(CODE).0, canonical(&edited).0);
    }

    #[test]
    fn literals_are_kept_as_they_are() {
        let src = r####"let a = "// not a comment"; let b = r#"/* nor "this" */"#; let c = '"'; let e = '\''; let d = "x  \" y"; fn f<'a>(s: &'a str) {}"####;
        let (text, _) = canonical(src);
        assert!(text.contains("\"// not a comment\""), "{text}");
        assert!(text.contains("r#\"/* nor \"this\" */\"#"), "{text}");
        assert!(
            text.contains("'\"'") && text.contains("\"x  \\\" y\""),
            "{text}"
        );
        assert!(text.contains("fn f<'a>(s:&'a str){}"), "{text}");
        let other = src.replace("// not a comment", "// not  a comment");
        assert_ne!(text, canonical(&other).0);
    }

    #[test]
    fn test_items_do_not_count_and_test_modules_are_named() {
        let with_tests = format!(
            "{CODE}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{ assert_eq!(\"}}\", \"}}\"); }}\n}}\n#[cfg(test)]\nmod testkit;\n#[cfg(test)]\nuse std::fmt;\n"
        );
        let (text, external) = canonical(&with_tests);
        assert_eq!(text, canonical(CODE).0);
        assert_eq!(external, vec!["testkit".to_string()]);
        let edited = with_tests.replace("fn t()", "fn renamed()");
        assert_eq!(canonical(&edited).0, text);
    }
}
