//! Expressions in scenario values: `"$(2 * $cir)"`, `"$(if $ecn then 'mark' else 'drop')"`.
//!
//! Read this first: a value written `"$( … )"` — the whole string, nothing around it — is an
//! expression, evaluated once at load time to a typed value: a number (integer or float), a
//! quantity (a rate, a time, a size or a count of packets), a string or a boolean. It is then
//! read by the field exactly as if the user had written that value, so `count = "$(2 * $n)"`
//! is the integer, `rate = "$(2 * $cir)"` the rate "2000000bps" and
//! `queue.ecn = "$(not $drop)"` the boolean. `$name` refers to a parameter (a string parameter
//! that reads as a quantity, such as "1Mbps", is that quantity).
//!
//! Grammar (lowest precedence first):
//!
//! ```text
//! expr    = "if" expr "then" expr "else" expr | or
//! or      = and ("or" and)*          and = not ("and" not)*       not = "not" not | cmp
//! cmp     = sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
//! sum     = product (("+" | "-") product)*
//! product = unary (("*" | "/") unary)*          unary = "-" unary | atom
//! atom    = NUMBER | NUMBER UNIT | 'string' | true | false | $name | "(" expr ")"
//!         | ("min" | "max" | "round" | "floor" | "ceil") "(" expr ("," expr)* ")"
//! ```
//!
//! Units are those of `units` (a unit is written right after its number: `1.5Mbps`, `10ms`,
//! `1500B`, `20pkt`). Arithmetic is unit-aware: quantities carry a dimension in bits, seconds
//! and packets, so a rate times a time is a size, a size over a rate a time, a rate over a rate
//! a plain number; adding a rate to a time, or a number to a rate, is a dimension error. The
//! result must be a number, a rate, a time, a size or packets. Quantities are computed in
//! floating point and must land on a whole base unit (bit/s, ns, byte, packet), as `units`
//! demands of written values: within a relative 1e-9 of one (float noise), else an error that
//! suggests `round( … )`, which rounds a quantity to whole base units. Integers stay integers
//! under `+`, `-`, `*`, `min`, `max`; `/` gives a float. Only the branch `if` takes is
//! evaluated, but every parameter either branch names counts as used.
//!
//! Not here: where a value comes from (`params`), or what the field does with it (`value`).

use super::value::Scalar;
use crate::scenario::spec::Limit;
use crate::scenario::units::{parse_limit, parse_rate_bps, parse_size_bytes, parse_time_ns};

/// `[A-Za-z_][A-Za-z0-9_-]*`: what may follow `$` or sit inside `${}`.
pub(crate) fn is_param_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Exponents of bit, second and packet.
type Dim = [i8; 3];
const NUM: Dim = [0, 0, 0];
const RATE: Dim = [1, -1, 0];
const TIME: Dim = [0, 1, 0];
const SIZE: Dim = [1, 0, 0];
const PKTS: Dim = [0, 0, 1];

/// A value during evaluation.
#[derive(Clone, Debug, PartialEq)]
enum V {
    /// A plain number; `int` while only integers and `+ - *` made it.
    Num(f64, bool),
    /// A quantity in bits, seconds and packets.
    Q(f64, Dim),
    Str(String),
    Bool(bool),
}

fn dim_name(d: Dim) -> String {
    match d {
        NUM => "a number".into(),
        RATE => "a rate".into(),
        TIME => "a time".into(),
        SIZE => "a size".into(),
        PKTS => "packets".into(),
        _ => {
            let mut parts = Vec::new();
            for (e, u) in d.iter().zip(["bit", "s", "pkt"]) {
                match e {
                    0 => {}
                    1 => parts.push(u.to_string()),
                    e => parts.push(format!("{u}^{e}")),
                }
            }
            format!("a quantity in {}", parts.join("·"))
        }
    }
}

impl V {
    fn describe(&self) -> String {
        match self {
            V::Num(..) => "a number".into(),
            V::Q(_, d) => dim_name(*d),
            V::Str(_) => "a string".into(),
            V::Bool(_) => "a boolean".into(),
        }
    }

    /// The number and dimension of a number or quantity.
    fn qty(&self) -> Option<(f64, Dim)> {
        match self {
            V::Num(x, _) => Some((*x, NUM)),
            V::Q(x, d) => Some((*x, *d)),
            _ => None,
        }
    }
}

fn of_qty(x: f64, d: Dim, int: bool) -> V {
    if d == NUM {
        V::Num(x, int)
    } else {
        V::Q(x, d)
    }
}

/// A written quantity ("1.5Mbps", "10ms") as a value, by whichever of `units`' parsers reads it.
fn quantity(text: &str) -> Option<V> {
    if let Ok(b) = parse_rate_bps(text) {
        return Some(V::Q(b as f64, RATE));
    }
    if let Ok(ns) = parse_time_ns(text) {
        return Some(V::Q(ns as f64 * 1e-9, TIME));
    }
    if let Ok(b) = parse_size_bytes(text) {
        return Some(V::Q(b as f64 * 8.0, SIZE));
    }
    if let Ok(Limit::Packets(p)) = parse_limit(text) {
        return Some(V::Q(p as f64, PKTS));
    }
    None
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A number, with or without a unit: its text.
    Num(String),
    Str(String),
    Ref(String),
    Word(String),
    Op(&'static str),
}

const OPS: [&str; 13] = [
    "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "(", ")", ",",
];

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '_' || cs[i] == '.') {
                i += 1;
            }
            // A unit is written right after its number: letters, µ/μ, and "/s" of "Mb/s".
            while i < cs.len() && (cs[i].is_alphabetic() || cs[i] == '%') {
                i += 1;
                if i + 1 < cs.len()
                    && cs[i] == '/'
                    && cs[i + 1] == 's'
                    && !cs.get(i + 2).is_some_and(|c| c.is_alphanumeric())
                {
                    i += 2;
                }
            }
            out.push(Tok::Num(cs[start..i].iter().collect()));
        } else if c == '\'' {
            let start = i + 1;
            i += 1;
            while i < cs.len() && cs[i] != '\'' {
                i += 1;
            }
            if i == cs.len() {
                return Err("a string opened with ' is not closed".into());
            }
            out.push(Tok::Str(cs[start..i].iter().collect()));
            i += 1;
        } else if c == '$' {
            let start = i + 1;
            i += 1;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_' || cs[i] == '-') {
                i += 1;
            }
            let name: String = cs[start..i].iter().collect();
            if !is_param_name(&name) {
                return Err(format!(
                    "'$' must be followed by a parameter name, found '${name}'"
                ));
            }
            out.push(Tok::Ref(name));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Word(cs[start..i].iter().collect()));
        } else {
            let rest: String = cs[i..cs.len().min(i + 2)].iter().collect();
            match OPS.iter().find(|op| rest.starts_with(**op)) {
                Some(op) => {
                    out.push(Tok::Op(op));
                    i += op.chars().count();
                }
                None => return Err(format!("unexpected character '{c}'")),
            }
        }
    }
    Ok(out)
}

/// The parsed expression.
#[derive(Clone, Debug)]
enum E {
    Lit(V),
    Ref(String),
    Neg(Box<E>),
    Not(Box<E>),
    Bin(&'static str, Box<E>, Box<E>),
    If(Box<E>, Box<E>, Box<E>),
    Call(String, Vec<E>),
}

const FUNCS: [&str; 5] = ["min", "max", "round", "floor", "ceil"];
/// Nesting deeper than this is refused, so no input can exhaust the stack.
const MAX_DEPTH: usize = 64;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    fn is_op(&self, o: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(x)) if *x == o)
    }

    fn expect_word(&mut self, w: &str) -> Result<(), String> {
        if self.is_word(w) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{w}', found {}", self.found()))
        }
    }

    fn expect_op(&mut self, o: &str) -> Result<(), String> {
        if self.is_op(o) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{o}', found {}", self.found()))
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the expression".into(),
            Some(Tok::Num(s)) => format!("'{s}'"),
            Some(Tok::Str(s)) => format!("the string '{s}'"),
            Some(Tok::Ref(s)) => format!("'${s}'"),
            Some(Tok::Word(s)) => format!("'{s}'"),
            Some(Tok::Op(s)) => format!("'{s}'"),
        }
    }

    fn expr(&mut self) -> Result<E, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_DEPTH} levels"
            ));
        }
        let e = if self.is_word("if") {
            self.pos += 1;
            let c = self.expr()?;
            self.expect_word("then")?;
            let a = self.expr()?;
            self.expect_word("else")?;
            let b = self.expr()?;
            E::If(Box::new(c), Box::new(a), Box::new(b))
        } else {
            self.or()?
        };
        self.depth -= 1;
        Ok(e)
    }

    fn or(&mut self) -> Result<E, String> {
        let mut e = self.and()?;
        while self.is_word("or") {
            self.pos += 1;
            e = E::Bin("or", Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<E, String> {
        let mut e = self.not()?;
        while self.is_word("and") {
            self.pos += 1;
            e = E::Bin("and", Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<E, String> {
        if self.is_word("not") {
            self.pos += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!(
                    "the expression nests deeper than {MAX_DEPTH} levels"
                ));
            }
            let e = E::Not(Box::new(self.not()?));
            self.depth -= 1;
            return Ok(e);
        }
        self.cmp()
    }

    fn cmp(&mut self) -> Result<E, String> {
        let a = self.sum()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.is_op(op) {
                self.pos += 1;
                let b = self.sum()?;
                return Ok(E::Bin(op, Box::new(a), Box::new(b)));
            }
        }
        Ok(a)
    }

    fn sum(&mut self) -> Result<E, String> {
        let mut e = self.product()?;
        loop {
            let op = if self.is_op("+") {
                "+"
            } else if self.is_op("-") {
                "-"
            } else {
                return Ok(e);
            };
            self.pos += 1;
            e = E::Bin(op, Box::new(e), Box::new(self.product()?));
        }
    }

    fn product(&mut self) -> Result<E, String> {
        let mut e = self.unary()?;
        loop {
            let op = if self.is_op("*") {
                "*"
            } else if self.is_op("/") {
                "/"
            } else {
                return Ok(e);
            };
            self.pos += 1;
            e = E::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<E, String> {
        if self.is_op("-") {
            self.pos += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!(
                    "the expression nests deeper than {MAX_DEPTH} levels"
                ));
            }
            let e = E::Neg(Box::new(self.unary()?));
            self.depth -= 1;
            return Ok(e);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<E, String> {
        let Some(t) = self.peek().cloned() else {
            return Err("the expression ends where a value was expected".into());
        };
        self.pos += 1;
        match t {
            Tok::Num(text) => number(&text).map(E::Lit),
            Tok::Str(s) => Ok(E::Lit(V::Str(s))),
            Tok::Ref(name) => Ok(E::Ref(name)),
            Tok::Word(w) if w == "true" => Ok(E::Lit(V::Bool(true))),
            Tok::Word(w) if w == "false" => Ok(E::Lit(V::Bool(false))),
            Tok::Word(w) if FUNCS.contains(&w.as_str()) => {
                self.expect_op("(")?;
                let mut args = vec![self.expr()?];
                while self.is_op(",") {
                    self.pos += 1;
                    args.push(self.expr()?);
                }
                self.expect_op(")")?;
                Ok(E::Call(w, args))
            }
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect_op(")")?;
                Ok(e)
            }
            Tok::Word(w) => Err(format!(
                "unexpected word '{w}': refer to a parameter as '${w}', write a string as '{w}' in single quotes; the functions are {}",
                FUNCS.join(", ")
            )),
            other => {
                self.pos -= 1;
                let _ = other;
                Err(format!("expected a value, found {}", self.found()))
            }
        }
    }
}

/// A number literal, with or without a unit.
fn number(text: &str) -> Result<V, String> {
    let digits = text.trim_end_matches(|c: char| !(c.is_ascii_digit() || c == '_' || c == '.'));
    if digits.len() == text.len() {
        let clean = text.replace('_', "");
        if !clean.contains('.') {
            if let Ok(i) = clean.parse::<i64>() {
                return Ok(V::Num(i as f64, true));
            }
        }
        return match clean.parse::<f64>() {
            Ok(x) if x.is_finite() && !text.starts_with('.') && !text.ends_with('.') => {
                Ok(V::Num(x, false))
            }
            _ => Err(format!("'{text}' is not a number")),
        };
    }
    quantity(text).ok_or_else(|| {
        format!(
            "'{text}' is not a quantity: the units are bps, kbps, Mbps, Gbps; ns, us, ms, s, min; \
             B, KB, KiB, MB, MiB, GB, GiB; pkt"
        )
    })
}

/// Every parameter the expression names, in order (both branches of an `if`).
fn refs(e: &E, out: &mut Vec<String>) {
    match e {
        E::Lit(_) => {}
        E::Ref(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        E::Neg(a) | E::Not(a) => refs(a, out),
        E::Bin(_, a, b) => {
            refs(a, out);
            refs(b, out);
        }
        E::If(c, a, b) => {
            refs(c, out);
            refs(a, out);
            refs(b, out);
        }
        E::Call(_, args) => args.iter().for_each(|a| refs(a, out)),
    }
}

/// What a reference to a parameter reads as.
fn of_scalar(s: &Scalar, name: &str) -> Result<V, String> {
    match s {
        Scalar::Int(i) => Ok(V::Num(*i as f64, true)),
        Scalar::Float(f) => Ok(V::Num(*f, false)),
        Scalar::Bool(b) => Ok(V::Bool(*b)),
        Scalar::Str(t) => Ok(quantity(t).unwrap_or_else(|| V::Str(t.clone()))),
        Scalar::Other(d) => Err(format!("parameter '{name}' is {d}")),
    }
}

fn eval(e: &E, get: &dyn Fn(&str) -> Result<Scalar, String>) -> Result<V, String> {
    Ok(match e {
        E::Lit(v) => v.clone(),
        E::Ref(n) => of_scalar(&get(n)?, n)?,
        E::Neg(a) => match eval(a, get)? {
            V::Num(x, i) => V::Num(-x, i),
            V::Q(x, d) => V::Q(-x, d),
            v => return Err(format!("cannot negate {}", v.describe())),
        },
        E::Not(a) => match eval(a, get)? {
            V::Bool(b) => V::Bool(!b),
            v => return Err(format!("'not' needs a boolean, found {}", v.describe())),
        },
        E::If(c, a, b) => match eval(c, get)? {
            V::Bool(true) => eval(a, get)?,
            V::Bool(false) => eval(b, get)?,
            v => return Err(format!("'if' needs a boolean, found {}", v.describe())),
        },
        E::Bin(op, a, b) => {
            let (a, b) = (eval(a, get)?, eval(b, get)?);
            binary(op, a, b)?
        }
        E::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, get))
                .collect::<Result<Vec<_>, _>>()?;
            call(f, vals)?
        }
    })
}

fn binary(op: &str, a: V, b: V) -> Result<V, String> {
    if op == "and" || op == "or" {
        return match (&a, &b) {
            (V::Bool(x), V::Bool(y)) => Ok(V::Bool(if op == "and" { *x && *y } else { *x || *y })),
            _ => Err(format!(
                "'{op}' needs booleans, found {} and {}",
                a.describe(),
                b.describe()
            )),
        };
    }
    if op == "==" || op == "!=" {
        let eq = match (&a, &b) {
            (V::Str(x), V::Str(y)) => x == y,
            (V::Bool(x), V::Bool(y)) => x == y,
            _ => match (a.qty(), b.qty()) {
                (Some((x, d)), Some((y, e))) if d == e => x == y,
                _ => {
                    return Err(format!(
                        "cannot compare {} with {}",
                        a.describe(),
                        b.describe()
                    ))
                }
            },
        };
        return Ok(V::Bool(if op == "==" { eq } else { !eq }));
    }
    if op == "+" {
        if let (V::Str(x), V::Str(y)) = (&a, &b) {
            return Ok(V::Str(format!("{x}{y}")));
        }
    }
    let int = matches!((&a, &b), (V::Num(_, true), V::Num(_, true)));
    let ((x, d), (y, e)) = match (a.qty(), b.qty()) {
        (Some(p), Some(q)) => (p, q),
        _ => {
            return Err(format!(
                "'{op}' needs numbers or quantities, found {} and {}",
                a.describe(),
                b.describe()
            ))
        }
    };
    let same = |r: f64| -> Result<V, String> {
        if d != e {
            return Err(format!(
                "dimension error: cannot {} {} and {}",
                match op {
                    "+" => "add",
                    "-" => "subtract",
                    _ => "compare",
                },
                dim_name(d),
                dim_name(e)
            ));
        }
        Ok(of_qty(r, d, int))
    };
    match op {
        "+" => same(x + y),
        "-" => same(x - y),
        "<" | "<=" | ">" | ">=" => {
            same(0.0)?;
            Ok(V::Bool(match op {
                "<" => x < y,
                "<=" => x <= y,
                ">" => x > y,
                _ => x >= y,
            }))
        }
        "*" => Ok(of_qty(x * y, add(d, e, 1), int)),
        "/" => {
            if y == 0.0 {
                return Err("division by zero".into());
            }
            Ok(of_qty(x / y, add(d, e, -1), false))
        }
        _ => Err(format!("unknown operator '{op}'")),
    }
}

fn add(d: Dim, e: Dim, sign: i8) -> Dim {
    [
        d[0].saturating_add(sign.saturating_mul(e[0])),
        d[1].saturating_add(sign.saturating_mul(e[1])),
        d[2].saturating_add(sign.saturating_mul(e[2])),
    ]
}

fn call(f: &str, args: Vec<V>) -> Result<V, String> {
    let q: Vec<(f64, Dim, bool)> = args
        .iter()
        .map(|v| match v {
            V::Num(x, i) => Ok((*x, NUM, *i)),
            V::Q(x, d) => Ok((*x, *d, false)),
            v => Err(format!(
                "{f}() needs numbers or quantities, found {}",
                v.describe()
            )),
        })
        .collect::<Result<_, _>>()?;
    match f {
        "min" | "max" => {
            let d = q[0].1;
            if let Some(o) = q.iter().find(|a| a.1 != d) {
                return Err(format!(
                    "dimension error: {f}() of {} and {}",
                    dim_name(d),
                    dim_name(o.1)
                ));
            }
            let int = q.iter().all(|a| a.2);
            let pick =
                q.iter().map(|a| a.0).fold(
                    q[0].0,
                    |m, x| {
                        if (f == "min") == (x < m) {
                            x
                        } else {
                            m
                        }
                    },
                );
            Ok(of_qty(pick, d, int))
        }
        _ => {
            if q.len() != 1 {
                return Err(format!("{f}() takes one argument, found {}", q.len()));
            }
            let (x, d, int) = q[0];
            // A quantity rounds to whole base units (bit/s, ns, bytes, packets).
            let scale = base_scale(d).unwrap_or(1.0);
            let r = |x: f64| match f {
                "round" => x.round(),
                "floor" => x.floor(),
                _ => x.ceil(),
            };
            Ok(match d {
                NUM => V::Num(r(x), true),
                _ => {
                    let _ = int;
                    V::Q(r(x * scale) / scale, d)
                }
            })
        }
    }
}

/// Base units per unit of evaluation: 1 bit/s, 1e9 ns per s, 1/8 byte per bit, 1 packet.
fn base_scale(d: Dim) -> Option<f64> {
    match d {
        RATE | PKTS => Some(1.0),
        TIME => Some(1e9),
        SIZE => Some(0.125),
        _ => None,
    }
}

/// `x` as a whole count of base units, or an error naming them.
fn whole(x: f64, unit: &str) -> Result<i128, String> {
    if !x.is_finite() {
        return Err("the result is not a finite number".into());
    }
    let r = x.round();
    if (x - r).abs() > 1e-9 * r.abs().max(1.0) {
        return Err(format!(
            "the result {x} is not a whole number of {unit}; wrap the expression in round( … )"
        ));
    }
    if r < 0.0 {
        return Err(format!("the result {r} {unit} is negative"));
    }
    if r > u64::MAX as f64 {
        return Err(format!("the result {r} {unit} is too large"));
    }
    Ok(r as i128)
}

fn to_scalar(v: V) -> Result<Scalar, String> {
    Ok(match v {
        V::Bool(b) => Scalar::Bool(b),
        V::Str(s) => Scalar::Str(s),
        V::Num(x, true) if x.abs() < 9.0e15 => Scalar::Int(x as i64),
        V::Num(x, _) if x.is_finite() => Scalar::Float(x),
        V::Num(..) => return Err("the result is not a finite number".into()),
        V::Q(x, d) => {
            let scale = base_scale(d).ok_or_else(|| {
                format!(
                    "dimension error: the result is {}, not a number, rate, time, size or packets",
                    dim_name(d)
                )
            })?;
            let (unit, suffix) = match d {
                RATE => ("bits per second", "bps"),
                TIME => ("nanoseconds", "ns"),
                SIZE => ("bytes", "B"),
                _ => ("packets", "pkt"),
            };
            Scalar::Str(format!("{}{suffix}", whole(x * scale, unit)?))
        }
    })
}

/// The expression inside `"$( … )"`, if `text` is one.
pub(crate) fn body(text: &str) -> Option<&str> {
    text.strip_prefix("$(")?.strip_suffix(')')
}

/// Parses `src` (the text inside `$( … )`) and returns the parameters it names, in order.
pub(crate) fn names(src: &str) -> Result<Vec<String>, String> {
    let e = parse(src)?;
    let mut out = Vec::new();
    refs(&e, &mut out);
    Ok(out)
}

fn parse(src: &str) -> Result<E, String> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        depth: 0,
    };
    if p.toks.is_empty() {
        return Err("the expression is empty".into());
    }
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return Err(format!("unexpected {} after the expression", p.found()));
    }
    Ok(e)
}

/// Evaluates `src`, reading parameters through `get`.
pub(crate) fn evaluate(
    src: &str,
    get: &dyn Fn(&str) -> Result<Scalar, String>,
) -> Result<Scalar, String> {
    to_scalar(eval(&parse(src)?, get)?)
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
