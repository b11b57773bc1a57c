//! Quantities with units, as scenario files write them: rates, times, sizes, queue limits.
//!
//! Read this first: every function here is pure and exact. A quantity is a non-negative decimal
//! number (digits, optional `_` between digits as in TOML, optional `.` fraction), optional
//! whitespace, then a unit. The number is never turned into a float: integer and fraction
//! digits are scaled by the unit in integer arithmetic, so "0.1Mbps" is exactly 100 000 bps and
//! "1.5ms" exactly 1 500 000 ns. A value that does not land on a whole base unit (1.5bps,
//! 0.5ns, 1.5B) is an error rather than being rounded.
//!
//! Units (case-sensitive where case carries meaning: `m` is milli, `M` mega, `b` bit, `B` byte):
//! - rate → bits per second: bps, b/s, kbps, kb/s, Kbps, Kb/s, Mbps, Mb/s, Gbps, Gb/s
//!   (decimal prefixes, k = K = 10³, M = 10⁶, G = 10⁹). Byte rates (MBps, MB/s, ...) are
//!   rejected with a hint to write bits.
//! - time → nanoseconds: ns, us, µs (micro sign) or μs (Greek mu), ms, s, min.
//! - size → bytes: B, kB = KB = 10³, KiB = 2¹⁰, MB = 10⁶, MiB = 2²⁰, GB = 10⁹, GiB = 2³⁰.
//! - limit → `Limit::Packets` for pkt, pkts, p, packet, packets; otherwise a size in bytes.
//! - amount → the same units as a limit, for other things counted in packets or bytes (a TCP
//!   window, a token bucket's depth, a shaper's buffer); only the wording of errors differs.
//!
//! Not accepted: bare numbers (a unit is always required), signs, exponents ("1e6bps"),
//! fractions without leading or trailing digits (".5ms", "5.ms").

use super::spec::Limit;
use std::fmt;

/// What kind of quantity was being read; used to word errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Rate,
    Time,
    Size,
    Limit,
    /// Packets or bytes, for something that is not a queue limit (a window, a bucket depth).
    Amount,
}

impl Quantity {
    /// "a rate with a unit, like '10Mbps'" — the phrase errors use.
    pub fn expected(self) -> &'static str {
        match self {
            Quantity::Rate => "a rate with a unit, like '10Mbps'",
            Quantity::Time => "a time with a unit, like '10ms'",
            Quantity::Size => "a size with a unit, like '1500B'",
            Quantity::Limit => "a queue limit with a unit, like '50pkt' or '64KB'",
            Quantity::Amount => "a number of packets or a size, like '20pkt' or '64KB'",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Quantity::Rate => "rate",
            Quantity::Time => "time",
            Quantity::Size => "size",
            Quantity::Limit => "queue limit",
            Quantity::Amount => "size",
        }
    }

    fn units(self) -> &'static str {
        match self {
            Quantity::Rate => "bps, kbps, Mbps, Gbps (or b/s, kb/s, Mb/s, Gb/s)",
            Quantity::Time => "ns, us, µs, ms, s, min",
            Quantity::Size => "B, kB, KB, KiB, MB, MiB, GB, GiB",
            Quantity::Limit | Quantity::Amount => {
                "pkt, packets, p, or a size: B, KB, KiB, MB, MiB, GB, GiB"
            }
        }
    }
}

/// Why a quantity could not be read. `Display` gives the message a user sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitError {
    /// The text is empty or only whitespace.
    Empty(Quantity),
    /// The text does not start with a number.
    NotANumber { quantity: Quantity, text: String },
    /// A leading minus sign.
    Negative(Quantity),
    /// A number with no unit after it.
    MissingUnit(Quantity),
    /// A unit that is not one of this quantity's units; `hint` suggests the likely intent.
    UnknownUnit {
        quantity: Quantity,
        unit: String,
        hint: Option<String>,
    },
    /// A rate in bytes per second ("MBps").
    ByteRate { unit: String },
    /// The value is not a whole number of the base unit (bit/s, ns, byte, packet).
    Inexact { quantity: Quantity, text: String },
    /// The value does not fit (u64 for rates, times and sizes; u32 for packet limits).
    TooLarge { quantity: Quantity, text: String },
    /// A rate of zero bits per second.
    ZeroRate,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnitError::Empty(q) => write!(f, "expected {}, found an empty string", q.expected()),
            UnitError::NotANumber { quantity, text } => {
                write!(f, "expected {}, found '{text}'", quantity.expected())
            }
            UnitError::Negative(q) => write!(f, "a {} cannot be negative", q.noun()),
            UnitError::MissingUnit(q) => write!(f, "expected {}", q.expected()),
            UnitError::UnknownUnit {
                quantity,
                unit,
                hint,
            } => {
                write!(f, "unknown {} unit '{unit}'", quantity.noun())?;
                if let Some(h) = hint {
                    write!(f, " ({h})")?;
                }
                write!(f, "; the units are {}", quantity.units())
            }
            UnitError::ByteRate { unit } => write!(
                f,
                "'{unit}' is a rate in bytes per second; rates are written in bits per second \
                 (bps, kbps, Mbps, Gbps): 1 byte = 8 bits"
            ),
            UnitError::Inexact { quantity, text } => {
                let base = match quantity {
                    Quantity::Rate => "bits per second",
                    Quantity::Time => "nanoseconds",
                    Quantity::Size => "bytes",
                    Quantity::Limit | Quantity::Amount => "packets or bytes",
                };
                write!(f, "'{text}' is not a whole number of {base}")
            }
            UnitError::TooLarge { quantity, text } => {
                write!(f, "the {} '{text}' is too large", quantity.noun())
            }
            UnitError::ZeroRate => write!(f, "a rate must be at least 1bps"),
        }
    }
}

impl std::error::Error for UnitError {}

/// A rate in bits per second, at least 1. "30.792Mbps" → 30 792 000.
pub fn parse_rate_bps(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Rate;
    let (num, unit) = split(text, q)?;
    let mult: u64 = match unit {
        "bps" | "b/s" => 1,
        "kbps" | "kb/s" | "Kbps" | "Kb/s" => 1_000,
        "Mbps" | "Mb/s" => 1_000_000,
        "Gbps" | "Gb/s" => 1_000_000_000,
        _ => {
            // "MBps", "KB/s", "Bps": a capital B before "ps" or "/s" is bytes.
            let stem = unit.strip_suffix("ps").or_else(|| unit.strip_suffix("/s"));
            if let Some(stem) = stem {
                if stem.ends_with('B') && stem.len() <= 2 {
                    return Err(UnitError::ByteRate {
                        unit: unit.to_string(),
                    });
                }
            }
            return Err(unknown(
                q,
                unit,
                &["bps", "b/s", "kbps", "kb/s", "Mbps", "Mb/s", "Gbps", "Gb/s"],
            ));
        }
    };
    let v = num.scale(mult, q, text)?;
    if v == 0 {
        return Err(UnitError::ZeroRate);
    }
    Ok(v)
}

/// A time in nanoseconds. "1.5ms" → 1 500 000; "0s" is allowed.
pub fn parse_time_ns(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Time;
    let (num, unit) = split(text, q)?;
    let mult: u64 = match unit {
        "ns" => 1,
        // U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU both appear in the wild.
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "m" => {
            return Err(UnitError::UnknownUnit {
                quantity: q,
                unit: unit.to_string(),
                hint: Some("write 'min' for minutes or 'ms' for milliseconds".into()),
            })
        }
        _ => return Err(unknown(q, unit, &["ns", "us", "ms", "s", "min"])),
    };
    num.scale(mult, q, text)
}

/// A size in bytes. "1.5KB" → 1500, "64KiB" → 65 536.
pub fn parse_size_bytes(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Size;
    let (num, unit) = split(text, q)?;
    let mult = size_multiplier(unit).ok_or_else(|| size_unit_error(q, unit))?;
    num.scale(mult, q, text)
}

/// A queue limit: packets ("50pkt", "50 packets", "50p") or a size in bytes ("64KB").
pub fn parse_limit(text: &str) -> Result<Limit, UnitError> {
    packets_or_bytes(text, Quantity::Limit)
}

/// Packets or bytes, as a limit, for what is not a queue limit: a TCP window ("20pkt"), a
/// bucket depth ("10KB"), a shaper buffer ("100pkt").
pub fn parse_amount(text: &str) -> Result<Limit, UnitError> {
    packets_or_bytes(text, Quantity::Amount)
}

fn packets_or_bytes(text: &str, q: Quantity) -> Result<Limit, UnitError> {
    let (num, unit) = split(text, q)?;
    match unit {
        "pkt" | "pkts" | "p" | "packet" | "packets" => {
            let n = num.scale(1, q, text)?;
            let n = u32::try_from(n).map_err(|_| UnitError::TooLarge {
                quantity: q,
                text: text.trim().to_string(),
            })?;
            Ok(Limit::Packets(n))
        }
        _ => match size_multiplier(unit) {
            Some(mult) => Ok(Limit::Bytes(num.scale(mult, q, text)?)),
            None => Err(size_unit_error(q, unit)),
        },
    }
}

fn size_multiplier(unit: &str) -> Option<u64> {
    Some(match unit {
        "B" => 1,
        "kB" | "KB" => 1_000,
        "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        _ => return None,
    })
}

fn size_unit_error(q: Quantity, unit: &str) -> UnitError {
    let mut known = vec!["B", "kB", "KB", "KiB", "MB", "MiB", "GB", "GiB"];
    if matches!(q, Quantity::Limit | Quantity::Amount) {
        known.extend(["pkt", "pkts", "packet", "packets"]);
    }
    // A lowercase 'b' is a bit, never a byte: "64Kb" is almost surely meant as bytes.
    if unit.ends_with('b') && unit.len() <= 3 {
        let mut hint = String::from("sizes are in bytes, written with a capital 'B'");
        if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(unit)) {
            hint += &format!("; did you mean '{k}'?");
        }
        return UnitError::UnknownUnit {
            quantity: q,
            unit: unit.to_string(),
            hint: Some(hint),
        };
    }
    unknown(q, unit, &known)
}

/// An unknown unit, with a "did you mean" when only letter case differs.
fn unknown(q: Quantity, unit: &str, known: &[&str]) -> UnitError {
    let hint = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(unit))
        .map(|k| {
            format!("did you mean '{k}'? case matters: m = milli, M = mega, b = bit, B = byte")
        });
    UnitError::UnknownUnit {
        quantity: q,
        unit: unit.to_string(),
        hint,
    }
}

/// The digits of a non-negative decimal: integer part and fraction part, underscores removed,
/// leading zeros of the integer and trailing zeros of the fraction dropped.
#[derive(Debug)]
struct Decimal {
    int: String,
    frac: String,
}

impl Decimal {
    /// `self × mult`, exactly, as a u64.
    fn scale(&self, mult: u64, q: Quantity, text: &str) -> Result<u64, UnitError> {
        let too_large = || UnitError::TooLarge {
            quantity: q,
            text: text.trim().to_string(),
        };
        let inexact = || UnitError::Inexact {
            quantity: q,
            text: text.trim().to_string(),
        };
        // u64::MAX has 20 digits; anything longer overflows whatever the multiplier.
        if self.int.len() > 20 {
            return Err(too_large());
        }
        let int: u128 = if self.int.is_empty() {
            0
        } else {
            self.int.parse().map_err(|_| too_large())?
        };
        let whole = int * mult as u128;
        let part = if self.frac.is_empty() {
            0
        } else {
            // frac / 10^f × mult must be an integer. The multipliers here have at most 2^30
            // and 5^10 as factors, so more than 30 significant fraction digits can never
            // cancel; stopping at 36 keeps 10^f inside u128.
            let f = self.frac.len() as u32;
            if f > 36 {
                return Err(inexact());
            }
            let frac: u128 = self.frac.parse().map_err(|_| inexact())?;
            let den = 10u128.pow(f);
            let g = gcd(mult as u128, den);
            let (m, d) = (mult as u128 / g, den / g);
            if !frac.is_multiple_of(d) {
                return Err(inexact());
            }
            (frac / d) * m
        };
        let v = whole.checked_add(part).ok_or_else(too_large)?;
        u64::try_from(v).map_err(|_| too_large())
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Splits "1_000.5 Mbps" into the decimal 1000.5 and the unit "Mbps".
fn split(text: &str, q: Quantity) -> Result<(Decimal, &str), UnitError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(UnitError::Empty(q));
    }
    if t.starts_with('-') {
        return Err(UnitError::Negative(q));
    }
    let not_a_number = || UnitError::NotANumber {
        quantity: q,
        text: t.to_string(),
    };
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    let (number, rest) = t.split_at(end);
    if number.is_empty() {
        return Err(not_a_number());
    }
    let (int, frac) = match number.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (number, None),
    };
    // TOML's rule for numbers: each underscore sits between two digits; a '.' has digits on
    // both sides.
    let digits = |s: &str| -> Option<String> {
        let b = s.as_bytes();
        if b.is_empty() || !b[0].is_ascii_digit() || !b[b.len() - 1].is_ascii_digit() {
            return None;
        }
        if s.contains("__") || s.contains('.') {
            return None;
        }
        Some(s.replace('_', ""))
    };
    let int = digits(int).ok_or_else(not_a_number)?;
    let frac = match frac {
        Some(f) => digits(f).ok_or_else(not_a_number)?,
        None => String::new(),
    };
    let unit = rest.trim_start();
    if unit.is_empty() {
        return Err(UnitError::MissingUnit(q));
    }
    let dec = Decimal {
        int: int.trim_start_matches('0').to_string(),
        frac: frac.trim_end_matches('0').to_string(),
    };
    Ok((dec, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(s: &str) -> Result<u64, UnitError> {
        parse_rate_bps(s)
    }
    fn time(s: &str) -> Result<u64, UnitError> {
        parse_time_ns(s)
    }
    fn size(s: &str) -> Result<u64, UnitError> {
        parse_size_bytes(s)
    }

    #[test]
    fn every_rate_unit_scales_by_its_decimal_prefix() {
        for (s, v) in [
            ("1bps", 1),
            ("1b/s", 1),
            ("1kbps", 1_000),
            ("1kb/s", 1_000),
            ("1Kbps", 1_000),
            ("1Kb/s", 1_000),
            ("1Mbps", 1_000_000),
            ("1Mb/s", 1_000_000),
            ("1Gbps", 1_000_000_000),
            ("1Gb/s", 1_000_000_000),
        ] {
            assert_eq!(rate(s), Ok(v), "{s}");
        }
    }

    #[test]
    fn decimal_rates_are_exact_without_float_rounding() {
        assert_eq!(rate("30.792Mbps"), Ok(30_792_000));
        assert_eq!(rate("0.1Mbps"), Ok(100_000));
        assert_eq!(rate("0.3Mbps"), Ok(300_000));
        assert_eq!(rate("2.5Gbps"), Ok(2_500_000_000));
        assert_eq!(rate("0.000001Mbps"), Ok(1));
        assert_eq!(rate("1.000000000000000000000000Gbps"), Ok(1_000_000_000));
    }

    #[test]
    fn a_rate_that_is_not_a_whole_number_of_bits_per_second_is_rejected() {
        assert!(matches!(rate("1.5bps"), Err(UnitError::Inexact { .. })));
        assert!(matches!(
            rate("0.0000001Mbps"),
            Err(UnitError::Inexact { .. })
        ));
        assert!(matches!(rate("0.0001kbps"), Err(UnitError::Inexact { .. })));
    }

    #[test]
    fn inexact_messages_name_the_base_unit_in_the_plural() {
        assert_eq!(
            rate("1.5bps").unwrap_err().to_string(),
            "'1.5bps' is not a whole number of bits per second"
        );
        assert_eq!(
            parse_limit("0.5p").unwrap_err().to_string(),
            "'0.5p' is not a whole number of packets or bytes"
        );
    }

    #[test]
    fn a_zero_rate_is_rejected() {
        assert_eq!(rate("0bps"), Err(UnitError::ZeroRate));
        assert_eq!(rate("0.0Mbps"), Err(UnitError::ZeroRate));
        assert_eq!(rate("0_0Gbps"), Err(UnitError::ZeroRate));
    }

    #[test]
    fn byte_rates_are_rejected_with_a_hint_to_use_bits() {
        for s in ["1MBps", "1MB/s", "1Bps", "1B/s", "1KBps", "1kBps", "1GB/s"] {
            let e = rate(s).unwrap_err();
            assert!(matches!(e, UnitError::ByteRate { .. }), "{s}: {e:?}");
            assert!(e.to_string().contains("bits per second"), "{e}");
        }
    }

    #[test]
    fn rate_prefixes_are_case_sensitive_with_a_did_you_mean() {
        for (s, want) in [
            ("1mbps", "Mbps"),
            ("1gbps", "Gbps"),
            ("1MBPS", "Mbps"),
            ("1BPS", "bps"),
        ] {
            let e = rate(s).unwrap_err();
            assert!(
                e.to_string().contains(&format!("did you mean '{want}'")),
                "{s}: {e}"
            );
        }
        let e = rate("1Tbps").unwrap_err();
        assert!(
            matches!(e, UnitError::UnknownUnit { hint: None, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("the units are bps"), "{e}");
    }

    #[test]
    fn a_bare_number_needs_a_unit() {
        assert_eq!(rate("10"), Err(UnitError::MissingUnit(Quantity::Rate)));
        assert_eq!(
            rate("10").unwrap_err().to_string(),
            "expected a rate with a unit, like '10Mbps'"
        );
        assert_eq!(time("5"), Err(UnitError::MissingUnit(Quantity::Time)));
        assert_eq!(size("5 "), Err(UnitError::MissingUnit(Quantity::Size)));
        assert_eq!(
            parse_limit("50"),
            Err(UnitError::MissingUnit(Quantity::Limit))
        );
    }

    #[test]
    fn whitespace_between_number_and_unit_and_around_is_allowed() {
        assert_eq!(rate("10 Mbps"), Ok(10_000_000));
        assert_eq!(rate("  10\tMbps "), Ok(10_000_000));
        assert_eq!(time("1.5 ms"), Ok(1_500_000));
        assert_eq!(parse_limit("50 packets"), Ok(Limit::Packets(50)));
    }

    #[test]
    fn underscores_between_digits_are_allowed_as_in_toml() {
        assert_eq!(rate("1_000bps"), Ok(1_000));
        assert_eq!(rate("1_000.000_5Mbps"), Ok(1_000_000_500));
        assert_eq!(size("1_500B"), Ok(1_500));
        assert_eq!(time("0.000_001s"), Ok(1_000));
        for s in ["_1bps", "1_bps", "1__0bps", "1._5Mbps", "1_.5Mbps"] {
            assert!(
                matches!(rate(s), Err(UnitError::NotANumber { .. })),
                "{s}: {:?}",
                rate(s)
            );
        }
    }

    #[test]
    fn malformed_numbers_are_rejected() {
        for s in [
            ".5ms", "5.ms", "1.2.3ms", "ms", "+5ms", "1e6ms", "one ms", ".",
        ] {
            let e = time(s).unwrap_err();
            assert!(
                matches!(
                    e,
                    UnitError::NotANumber { .. } | UnitError::UnknownUnit { .. }
                ),
                "{s}: {e:?}"
            );
        }
        assert_eq!(time(""), Err(UnitError::Empty(Quantity::Time)));
        assert_eq!(time("   "), Err(UnitError::Empty(Quantity::Time)));
    }

    #[test]
    fn negative_values_are_rejected() {
        assert_eq!(rate("-1Mbps"), Err(UnitError::Negative(Quantity::Rate)));
        assert_eq!(time("-0s"), Err(UnitError::Negative(Quantity::Time)));
        assert_eq!(size(" -5B"), Err(UnitError::Negative(Quantity::Size)));
        assert_eq!(
            parse_limit("-5pkt"),
            Err(UnitError::Negative(Quantity::Limit))
        );
    }

    #[test]
    fn every_time_unit_scales_to_nanoseconds() {
        for (s, v) in [
            ("1ns", 1),
            ("1us", 1_000),
            ("1µs", 1_000),
            ("1μs", 1_000),
            ("1ms", 1_000_000),
            ("1s", 1_000_000_000),
            ("1min", 60_000_000_000),
            ("0s", 0),
            ("0ms", 0),
        ] {
            assert_eq!(time(s), Ok(v), "{s}");
        }
    }

    #[test]
    fn fractional_times_are_exact_and_sub_nanosecond_remainders_are_rejected() {
        assert_eq!(time("1.5ms"), Ok(1_500_000));
        assert_eq!(time("0.001us"), Ok(1));
        assert_eq!(time("2.5min"), Ok(150_000_000_000));
        assert_eq!(time("0.1s"), Ok(100_000_000));
        assert_eq!(time("1.000000001s"), Ok(1_000_000_001));
        assert!(matches!(time("0.5ns"), Err(UnitError::Inexact { .. })));
        assert!(matches!(
            time("1.0000000001s"),
            Err(UnitError::Inexact { .. })
        ));
        assert!(time("0.5ns")
            .unwrap_err()
            .to_string()
            .contains("whole number of nanoseconds"));
    }

    #[test]
    fn time_units_are_case_sensitive_and_m_is_ambiguous() {
        let e = time("5m").unwrap_err();
        assert!(e.to_string().contains("'min' for minutes"), "{e}");
        let e = time("5MS").unwrap_err();
        assert!(e.to_string().contains("did you mean 'ms'"), "{e}");
        let e = time("5S").unwrap_err();
        assert!(e.to_string().contains("did you mean 's'"), "{e}");
        assert!(matches!(time("5h"), Err(UnitError::UnknownUnit { .. })));
    }

    #[test]
    fn every_size_unit_scales_to_bytes() {
        for (s, v) in [
            ("1B", 1),
            ("1kB", 1_000),
            ("1KB", 1_000),
            ("1KiB", 1_024),
            ("1MB", 1_000_000),
            ("1MiB", 1_048_576),
            ("1GB", 1_000_000_000),
            ("1GiB", 1_073_741_824),
            ("0B", 0),
        ] {
            assert_eq!(size(s), Ok(v), "{s}");
        }
    }

    #[test]
    fn fractional_sizes_must_be_whole_bytes() {
        assert_eq!(size("1.5KB"), Ok(1_500));
        assert_eq!(size("0.5KiB"), Ok(512));
        assert_eq!(size("1.5MiB"), Ok(1_572_864));
        // 2^-28 GiB is exactly 4 bytes: a long fraction that still cancels.
        assert_eq!(size("0.0000000037252902984619140625GiB"), Ok(4));
        assert!(matches!(size("1.5B"), Err(UnitError::Inexact { .. })));
        assert!(matches!(size("0.001KiB"), Err(UnitError::Inexact { .. })));
        assert!(matches!(
            size("0.1111111111111111111111111111111111111111GiB"),
            Err(UnitError::Inexact { .. })
        ));
    }

    #[test]
    fn a_lowercase_b_in_a_size_is_bits_and_rejected() {
        for s in ["1b", "1Kb", "1kb", "1Mb"] {
            let e = size(s).unwrap_err();
            assert!(e.to_string().contains("capital 'B'"), "{s}: {e}");
        }
        let e = size("1kib").unwrap_err();
        assert!(e.to_string().contains("did you mean 'KiB'"), "{e}");
    }

    #[test]
    fn values_beyond_u64_are_too_large_not_wrapped() {
        assert_eq!(size("18446744073709551615B"), Ok(u64::MAX));
        assert!(matches!(
            size("18446744073709551616B"),
            Err(UnitError::TooLarge { .. })
        ));
        assert!(matches!(
            size("18446744073709551615KB"),
            Err(UnitError::TooLarge { .. })
        ));
        assert!(matches!(
            rate("99999999999999999999999999Gbps"),
            Err(UnitError::TooLarge { .. })
        ));
        assert!(matches!(
            time("1000000000min"),
            Err(UnitError::TooLarge { .. })
        ));
        assert_eq!(time("00000000000000000000000000001s"), Ok(1_000_000_000));
    }

    #[test]
    fn limits_in_packets_accept_every_spelling() {
        for s in [
            "50pkt",
            "50pkts",
            "50p",
            "50packet",
            "50packets",
            "50 packets",
            "5_0 p",
        ] {
            assert_eq!(parse_limit(s), Ok(Limit::Packets(50)), "{s}");
        }
        assert_eq!(parse_limit("0pkt"), Ok(Limit::Packets(0)));
        assert_eq!(parse_limit("4294967295pkt"), Ok(Limit::Packets(u32::MAX)));
        assert!(matches!(
            parse_limit("4294967296pkt"),
            Err(UnitError::TooLarge { .. })
        ));
        assert!(matches!(
            parse_limit("1.5pkt"),
            Err(UnitError::Inexact { .. })
        ));
    }

    #[test]
    fn amounts_take_the_units_of_limits_and_word_their_errors_apart() {
        assert_eq!(parse_amount("20pkt"), Ok(Limit::Packets(20)));
        assert_eq!(parse_amount("64KiB"), Ok(Limit::Bytes(65_536)));
        assert_eq!(
            parse_amount("20").unwrap_err().to_string(),
            "expected a number of packets or a size, like '20pkt' or '64KB'"
        );
        assert!(parse_amount("5 pk")
            .unwrap_err()
            .to_string()
            .starts_with("unknown size unit 'pk'; the units are pkt"));
        assert!(parse_amount("1.5p")
            .unwrap_err()
            .to_string()
            .contains("whole number of packets or bytes"));
    }

    #[test]
    fn limits_in_bytes_take_any_size_unit() {
        assert_eq!(parse_limit("64KB"), Ok(Limit::Bytes(64_000)));
        assert_eq!(parse_limit("65536B"), Ok(Limit::Bytes(65_536)));
        assert_eq!(parse_limit("64KiB"), Ok(Limit::Bytes(65_536)));
        assert_eq!(parse_limit("1.5MB"), Ok(Limit::Bytes(1_500_000)));
        let e = parse_limit("50 pk").unwrap_err();
        assert!(e.to_string().contains("pkt"), "{e}");
        assert!(
            e.to_string().starts_with("unknown queue limit unit 'pk'"),
            "{e}"
        );
    }

    #[test]
    fn error_messages_name_the_quantity_and_the_accepted_units() {
        assert_eq!(
            rate("5 furlongs").unwrap_err().to_string(),
            "unknown rate unit 'furlongs'; the units are bps, kbps, Mbps, Gbps (or b/s, kb/s, Mb/s, Gb/s)"
        );
        assert_eq!(
            time("x").unwrap_err().to_string(),
            "expected a time with a unit, like '10ms', found 'x'"
        );
        assert_eq!(
            rate("-3Mbps").unwrap_err().to_string(),
            "a rate cannot be negative"
        );
        assert_eq!(
            rate("0bps").unwrap_err().to_string(),
            "a rate must be at least 1bps"
        );
        assert_eq!(
            size("1.5B").unwrap_err().to_string(),
            "'1.5B' is not a whole number of bytes"
        );
    }
}
