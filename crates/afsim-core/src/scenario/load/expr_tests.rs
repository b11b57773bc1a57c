//! Tests of `expr`: values, types, dimensions, errors, and a fuzz of random token strings.

use super::*;

fn params(name: &str) -> Result<Scalar, String> {
    match name {
        "cir" => Ok(Scalar::Str("1Mbps".into())),
        "n" => Ok(Scalar::Int(3)),
        "f" => Ok(Scalar::Float(0.5)),
        "ecn" => Ok(Scalar::Bool(true)),
        "q" => Ok(Scalar::Str("wred".into())),
        _ => Err(format!("undefined parameter '{name}'")),
    }
}

fn ev(s: &str) -> Result<Scalar, String> {
    evaluate(s, &params)
}

fn st(s: &str) -> Scalar {
    Scalar::Str(s.into())
}

#[test]
fn arithmetic_on_rates_times_and_sizes_keeps_units() {
    assert_eq!(ev("2 * $cir").unwrap(), st("2000000bps"));
    assert_eq!(ev("$cir * 2 + 500kbps").unwrap(), st("2500000bps"));
    assert_eq!(ev("1.5Mbps").unwrap(), st("1500000bps"));
    assert_eq!(ev("10ms / 4").unwrap(), st("2500000ns"));
    assert_eq!(ev("$cir * 8ms").unwrap(), st("1000B"));
    assert_eq!(ev("1500B / 10ms").unwrap(), st("1200000bps"));
    assert_eq!(ev("1500B / $cir").unwrap(), st("12000000ns"));
    assert_eq!(ev("20pkt * 2").unwrap(), st("40pkt"));
    assert_eq!(ev("1Mb/s + 1Mbps").unwrap(), st("2000000bps"));
    assert!(ev("(10Mbps - 3Mbps) / 3").unwrap_err().contains("round"));
    assert_eq!(ev("round((10Mbps - 3Mbps) / 3)").unwrap(), st("2333333bps"));
    assert_eq!(ev("1.1 * 1Mbps").unwrap(), st("1100000bps"));
}

#[test]
fn numbers_keep_integer_type_until_divided() {
    assert_eq!(ev("2 * $n + 1").unwrap(), Scalar::Int(7));
    assert_eq!(ev("$n / 2").unwrap(), Scalar::Float(1.5));
    assert_eq!(ev("$f * 2").unwrap(), Scalar::Float(1.0));
    assert_eq!(ev("10Mbps / $cir").unwrap(), Scalar::Float(10.0));
    assert_eq!(ev("round(10Mbps / 3Mbps)").unwrap(), Scalar::Int(3));
    assert_eq!(ev("max($n, 5, 4)").unwrap(), Scalar::Int(5));
    assert_eq!(ev("min(2Mbps, $cir)").unwrap(), st("1000000bps"));
    assert_eq!(ev("1_000 + 1").unwrap(), Scalar::Int(1001));
    assert_eq!(ev("-2 + 3").unwrap(), Scalar::Int(1));
}

#[test]
fn one_boolean_drives_a_boolean_and_a_string() {
    assert_eq!(ev("$ecn").unwrap(), Scalar::Bool(true));
    assert_eq!(ev("not $ecn").unwrap(), Scalar::Bool(false));
    assert_eq!(ev("if $ecn then 'mark' else 'drop'").unwrap(), st("mark"));
    assert_eq!(
        ev("if not $ecn then 'mark' else 'drop'").unwrap(),
        st("drop")
    );
    assert_eq!(
        ev("if $q == 'wred' and $n >= 3 then 2 * $cir else $cir").unwrap(),
        st("2000000bps")
    );
    assert_eq!(ev("$q + '-x'").unwrap(), st("wred-x"));
    assert_eq!(ev("$cir > 500kbps or false").unwrap(), Scalar::Bool(true));
    // Only the branch taken is evaluated, so the other may hold what would fail.
    assert_eq!(
        ev("if true then 1 else 1Mbps + 1s").unwrap(),
        Scalar::Int(1)
    );
}

#[test]
fn dimension_errors_name_both_sides() {
    let e = ev("$cir + 10ms").unwrap_err();
    assert_eq!(e, "dimension error: cannot add a rate and a time");
    let e = ev("$cir + 1").unwrap_err();
    assert_eq!(e, "dimension error: cannot add a rate and a number");
    let e = ev("$cir * $cir").unwrap_err();
    assert!(
        e.starts_with("dimension error: the result is a quantity in bit^2·s^-2"),
        "{e}"
    );
    let e = ev("1 / 10ms").unwrap_err();
    assert!(e.contains("a quantity in s^-1"), "{e}");
    assert!(ev("min(1Mbps, 1s)")
        .unwrap_err()
        .starts_with("dimension error"));
    assert!(ev("$cir < 1s").unwrap_err().starts_with("dimension error"));
}

#[test]
fn type_and_syntax_errors_say_what_was_found() {
    let cases = [
        ("", "the expression is empty"),
        ("2 *", "the expression ends where a value was expected"),
        ("2 3", "unexpected '3' after the expression"),
        (
            "cir * 2",
            "unexpected word 'cir': refer to a parameter as '$cir'",
        ),
        ("$nope", "undefined parameter 'nope'"),
        ("$", "'$' must be followed by a parameter name"),
        ("'abc", "not closed"),
        ("2 # 3", "unexpected character '#'"),
        ("10parsecs", "'10parsecs' is not a quantity"),
        ("1.2.3", "'1.2.3' is not a number"),
        ("not 1", "'not' needs a boolean, found a number"),
        ("if 1 then 2 else 3", "'if' needs a boolean, found a number"),
        ("if true 2 else 3", "expected 'then', found '2'"),
        ("1 / 0", "division by zero"),
        (
            "'a' * 2",
            "'*' needs numbers or quantities, found a string and a number",
        ),
        ("1Mbps - 2Mbps", "is negative"),
        ("1s == 1", "cannot compare a time with a number"),
        ("round(1, 2)", "round() takes one argument, found 2"),
        ("(1 + 2", "expected ')', found the end of the expression"),
        ("1e6", "is not a quantity"),
    ];
    for (src, want) in cases {
        let e = ev(src).unwrap_err();
        assert!(e.contains(want), "{src:?}: {e}");
    }
}

#[test]
fn only_a_whole_string_in_dollar_parentheses_is_an_expression() {
    assert_eq!(body("$(2 * $n)"), Some("2 * $n"));
    assert_eq!(body("$(2"), None);
    assert_eq!(body("x$(2)"), None);
    assert_eq!(
        names("if $a then $b else $c + $a").unwrap(),
        ["a", "b", "c"]
    );
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(ev(&deep).unwrap_err().contains("nests deeper"));
    let nots = format!("{}true", "not ".repeat(10_000));
    assert!(ev(&nots).unwrap_err().contains("nests deeper"));
    let negs = format!("{}1", "-".repeat(10_000));
    assert!(ev(&negs).unwrap_err().contains("nests deeper"));
}

/// Random strings of expression tokens and stray characters never panic: each is evaluated
/// to a value or an error. (A small xorshift generator: the test is deterministic.)
#[test]
fn random_token_strings_never_panic() {
    let atoms = [
        "1",
        "2.5",
        "0",
        "1Mbps",
        "10ms",
        "1500B",
        "20pkt",
        "$cir",
        "$n",
        "$f",
        "$ecn",
        "$q",
        "$zz",
        "'s'",
        "true",
        "false",
        "(",
        ")",
        "+",
        "-",
        "*",
        "/",
        "==",
        "<",
        ">=",
        "and",
        "or",
        "not",
        "if",
        "then",
        "else",
        "min",
        "max",
        "round",
        ",",
        "$",
        "'",
        "1e9",
        "µs",
        "9999999999999999999999",
        "_",
        ".",
        "#",
        "ceil",
        "floor",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut ok = 0;
    for _ in 0..20_000 {
        let len = (next() % 9) as usize + 1;
        let s: Vec<&str> = (0..len)
            .map(|_| atoms[(next() % atoms.len() as u64) as usize])
            .collect();
        let sep = if next() % 2 == 0 { " " } else { "" };
        if ev(&s.join(sep)).is_ok() {
            ok += 1;
        }
    }
    // Some of them are valid expressions, so both paths are exercised.
    assert!(ok > 100, "{ok}");
}
