//! DiffServ code points, their names, colours, and the per-domain colour table.
//!
//! Read this first.
//! - Sources: RFC 2474 §4.2.2 (class selector code points `xxx000`, CS0 = the default PHB's
//!   `000000`), RFC 2597 §6 (the twelve AF code points, AFxy = class x, drop precedence y) and
//!   RFC 3246 (EF, recommended code point `101110` = 46); for SIMA's sixteen PHBs (two service
//!   classes × eight drop precedences, Laatu, Harju, Loula §2), RFC 2474 §6's pool 2 (see `sima`
//!   below for which sixteen code points and why).
//! - A *colour table* is a property of a DiffServ domain: it says what class and which drop
//!   precedence level each of the 64 code points means. Markers read it in colour-aware mode;
//!   RIO and WRED read it to decide which thresholds apply. `ColourTable::rfc2597()` is the
//!   default; `ColourTable::sima()` is a SIMA domain's (eight levels); other domains build their
//!   own with `new` and `set`.
//! - Levels are numbered from 0 (the lowest drop precedence: green, IN, AFx1) upwards. A table
//!   has 1..=8 levels (`MAX_LEVELS`).
//!
//! Not modelled: the ECN bits (they are `Packet::ecn`, separate from the DSCP), experimental /
//! local-use code point pools beyond "any code point may be set in a table", and code point
//! rewriting tables between domains.

use std::fmt;

use crate::param::ParamError;

/// The largest 6-bit code point.
pub const MAX_DSCP: u8 = 63;
/// The most drop-precedence levels a table (and WRED) supports.
pub const MAX_LEVELS: usize = 8;

// RFC 2474 §4.2.2.1: class selector code points are `xxx000`.
pub const CS0: u8 = 0;
pub const CS1: u8 = 8;
pub const CS2: u8 = 16;
pub const CS3: u8 = 24;
pub const CS4: u8 = 32;
pub const CS5: u8 = 40;
pub const CS6: u8 = 48;
pub const CS7: u8 = 56;
/// RFC 2474 §4.1: the default PHB (best effort) uses `000000`.
pub const BE: u8 = CS0;
// RFC 2597 §6: AF class x, drop precedence y has code point `xxxyy0`, i.e. 8x + 2y.
pub const AF11: u8 = 10;
pub const AF12: u8 = 12;
pub const AF13: u8 = 14;
pub const AF21: u8 = 18;
pub const AF22: u8 = 20;
pub const AF23: u8 = 22;
pub const AF31: u8 = 26;
pub const AF32: u8 = 28;
pub const AF33: u8 = 30;
pub const AF41: u8 = 34;
pub const AF42: u8 = 36;
pub const AF43: u8 = 38;
/// RFC 3246: the recommended EF code point is `101110`.
pub const EF: u8 = 46;

/// The code point of a SIMA packet (Laatu, Harju, Loula §2: "16 PHBs and two service classes:
/// one class for real time (RT) and the other for non-real time (NRT) traffic, both having 8
/// priority values (DP, drop precedence)"): `dp·8 + rt·4 + 3`, i.e. `ddd r 11`.
///
/// Which sixteen and why. Kilkki's SIMA draft (draft-kalevi-simple-media-access-01 §9.4) needs
/// "at most 4 bits" per packet, in the IPv4 TOS field; the paper says the access node marks
/// the DSCP. The Dynamic RT/NRT PHB Group draft (draft-loukola-dynamic-00 §5, the paper's [20])
/// recommends twelve code points for *six* levels per class, which collide with RFC 2597's
/// final AF code points (its DRT_14..16 are AF11..13) and cannot hold the paper's eight levels.
/// RFC 2474 §6 reserves pool 2, `xxxx11`, for experimental or local use: exactly sixteen code
/// points, none of them standard. Within it the layout mirrors the TOS octet that SIMA's IPv4
/// implementations used "as priority and real-time indication field" (Forsten, Loukola,
/// Skyttä 1999; their exact bits are not known here): the drop precedence in the three
/// precedence bits (RFC 791), the class in RFC 1349's low-delay bit. NRT DP 0..7 = 3, 11, …,
/// 59; RT DP 0..7 = 7, 15, …, 63. `dp` must be 0..=7.
pub const fn sima(rt: bool, dp: u8) -> u8 {
    (dp << 3) | ((rt as u8) << 2) | 0b11
}

/// The (real time, drop precedence) a SIMA code point (`sima`) stands for; `None` for a code
/// point outside pool 2.
pub const fn sima_decode(dscp: u8) -> Option<(bool, u8)> {
    if dscp & 0b11 == 0b11 && dscp <= MAX_DSCP {
        Some((dscp & 0b100 != 0, dscp >> 3))
    } else {
        None
    }
}

/// SIMA drop precedences a packet can carry (0 ..= 7), `edge::sima::LEVELS`.
pub const SIMA_LEVELS: usize = 8;

/// The SIMA service class (DRT draft §2: class 1 non-real time, class 2 real time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ServiceClass {
    /// Non-real time, the default (DRT draft §3).
    #[default]
    Nrt,
    Rt,
}

impl ServiceClass {
    pub fn name(self) -> &'static str {
        match self {
            ServiceClass::Nrt => "nrt",
            ServiceClass::Rt => "rt",
        }
    }

    /// 0 for NRT, 1 for RT (index of per-class arrays).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            ServiceClass::Nrt => 0,
            ServiceClass::Rt => 1,
        }
    }

    #[inline]
    pub fn is_rt(self) -> bool {
        self == ServiceClass::Rt
    }
}

/// Every named code point, in the order error messages list them. `BE` is listed before
/// `CS0` so that `name(0)` is "BE".
pub const NAMES: &[(&str, u8)] = &[
    ("BE", BE),
    ("CS0", CS0),
    ("CS1", CS1),
    ("CS2", CS2),
    ("CS3", CS3),
    ("CS4", CS4),
    ("CS5", CS5),
    ("CS6", CS6),
    ("CS7", CS7),
    ("AF11", AF11),
    ("AF12", AF12),
    ("AF13", AF13),
    ("AF21", AF21),
    ("AF22", AF22),
    ("AF23", AF23),
    ("AF31", AF31),
    ("AF32", AF32),
    ("AF33", AF33),
    ("AF41", AF41),
    ("AF42", AF42),
    ("AF43", AF43),
    ("EF", EF),
    // SIMA (`sima`): the non-real-time and real-time classes at drop precedence 0..7
    ("NRT0", sima(false, 0)),
    ("NRT1", sima(false, 1)),
    ("NRT2", sima(false, 2)),
    ("NRT3", sima(false, 3)),
    ("NRT4", sima(false, 4)),
    ("NRT5", sima(false, 5)),
    ("NRT6", sima(false, 6)),
    ("NRT7", sima(false, 7)),
    ("RT0", sima(true, 0)),
    ("RT1", sima(true, 1)),
    ("RT2", sima(true, 2)),
    ("RT3", sima(true, 3)),
    ("RT4", sima(true, 4)),
    ("RT5", sima(true, 5)),
    ("RT6", sima(true, 6)),
    ("RT7", sima(true, 7)),
];

/// The AF code point of class `class` (1..=4) and drop precedence `precedence` (1..=3).
pub const fn af(class: u8, precedence: u8) -> u8 {
    8 * class + 2 * precedence
}

/// A code point name that is not one of `NAMES`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownDscpName(pub String);

impl fmt::Display for UnknownDscpName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown DSCP name {:?}; valid names are ", self.0)?;
        for (i, (n, _)) in NAMES.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownDscpName {}

/// The code point named `name`, ignoring case ("af11", "AF11", "Ef").
pub fn parse(name: &str) -> Result<u8, UnknownDscpName> {
    let trimmed = name.trim();
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(trimmed))
        .map(|&(_, v)| v)
        .ok_or_else(|| UnknownDscpName(name.to_string()))
}

/// The canonical name of a code point, if it has one ("BE" for 0).
pub fn name(dscp: u8) -> Option<&'static str> {
    NAMES.iter().find(|&&(_, v)| v == dscp).map(|&(n, _)| n)
}

/// The colour a meter gives a packet (RFC 2697/2698 green/yellow/red). Two-colour markers use
/// `IN` (green) and `OUT` (yellow): with only two drop precedences RFC 2597 §2 puts AFx1 in the
/// lower one and AFx2/AFx3 in the higher one, so OUT is the second level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Colour {
    Green,
    Yellow,
    Red,
}

impl Colour {
    /// In-profile (two-colour view).
    pub const IN: Colour = Colour::Green;
    /// Out-of-profile (two-colour view).
    pub const OUT: Colour = Colour::Yellow;
    pub const ALL: [Colour; 3] = [Colour::Green, Colour::Yellow, Colour::Red];

    /// 0, 1, 2: also the drop-precedence level of this colour.
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Colour::Green => 0,
            Colour::Yellow => 1,
            Colour::Red => 2,
        }
    }

    /// The colour of drop-precedence level `level`: 0 green, 1 yellow, 2 and above red (for a
    /// table of more than three levels, everything above the second counts as red).
    #[inline]
    pub fn from_level(level: u8) -> Colour {
        match level {
            0 => Colour::Green,
            1 => Colour::Yellow,
            _ => Colour::Red,
        }
    }

    /// True for green (the two-colour IN).
    #[inline]
    pub fn is_in(self) -> bool {
        self == Colour::Green
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Green => "green",
            Colour::Yellow => "yellow",
            Colour::Red => "red",
        }
    }
}

/// The forwarding class a code point selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Default PHB (RFC 2474 §4.1).
    BestEffort,
    /// Class selector n = 1..=7 (RFC 2474 §4.2.2).
    ClassSelector(u8),
    /// AF class 1..=4 (RFC 2597).
    Af(u8),
    /// Expedited forwarding (RFC 3246).
    Ef,
    /// A class defined by the domain's own table (SIMA's: `SIMA_NRT` and `SIMA_RT`).
    Local(u8),
}

/// SIMA's non-real-time class, numbered 1 as in the Dynamic RT/NRT PHB Group draft §2.
pub const SIMA_NRT: Class = Class::Local(1);
/// SIMA's real-time class (class number 2 of the DRT draft).
pub const SIMA_RT: Class = Class::Local(2);

/// What a code point means in a domain: its class and drop-precedence level (0 = dropped last).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Marking {
    pub class: Class,
    pub level: u8,
}

impl Marking {
    pub fn colour(self) -> Colour {
        Colour::from_level(self.level)
    }
}

/// Per-domain map from DSCP to (class, drop-precedence level). Code points the table does not
/// set map to `default` (RFC 2474 §3: a packet with an unrecognised code point is forwarded as
/// if it were marked for the default behaviour).
#[derive(Clone, Debug, PartialEq)]
pub struct ColourTable {
    levels: u8,
    /// What every byte value means: `default` unless set (6-bit code points only), indexed
    /// by the byte itself, so a lookup is one load, no bounds check and no branch.
    resolved: [Marking; 256],
    /// How reports name a level: as colours, or (SIMA) by drop precedence.
    naming: LevelNames,
}

/// How reports name the levels of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LevelNames {
    /// "green", "yellow", "red" for levels 0–2, "level N" beyond.
    Colours,
    /// SIMA: level l is drop precedence 7 − l, named "DP n".
    SimaDp,
}

impl ColourTable {
    /// An empty table of `levels` drop-precedence levels where every code point means
    /// `default`.
    pub fn new(levels: u8, default: Marking) -> Result<Self, ParamError> {
        if levels == 0 || levels as usize > MAX_LEVELS {
            return Err(ParamError::new(
                "levels",
                format!("{levels} levels; a table has 1..={MAX_LEVELS}"),
            ));
        }
        if default.level >= levels {
            return Err(ParamError::new(
                "default",
                format!(
                    "default level {} is not below the table's {levels} levels",
                    default.level
                ),
            ));
        }
        Ok(ColourTable {
            levels,
            resolved: [default; 256],
            naming: LevelNames::Colours,
        })
    }

    /// The RFC 2597 table with three levels:
    /// - AFx1 green, AFx2 yellow, AFx3 red (RFC 2597 §2: drop precedence 1 < 2 < 3);
    /// - EF green (RFC 3246: EF traffic is conditioned to its rate, not given drop precedence);
    /// - CS1..CS7 green, their class selector class (RFC 2474 §4.2.2);
    /// - BE / CS0, and every unset code point, red: in a shared AF/BE queue best effort is the
    ///   traffic dropped first, as non-conformant traffic downgraded to best effort is in
    ///   Giacomazzi et al. (RIO treats it as OUT).
    pub fn rfc2597() -> Self {
        let be = Marking {
            class: Class::BestEffort,
            level: 2,
        };
        let mut t = ColourTable::new(3, be).expect("3 levels is valid");
        for class in 1..=4u8 {
            for prec in 1..=3u8 {
                t.put(
                    af(class, prec),
                    Marking {
                        class: Class::Af(class),
                        level: prec - 1,
                    },
                );
            }
        }
        t.put(
            EF,
            Marking {
                class: Class::Ef,
                level: 0,
            },
        );
        for n in 1..=7u8 {
            t.put(
                8 * n,
                Marking {
                    class: Class::ClassSelector(n),
                    level: 0,
                },
            );
        }
        t.put(BE, be);
        t
    }

    /// A SIMA domain's table (Laatu, Harju, Loula §2): eight levels, the SIMA code points
    /// (`sima`) of both classes at level 7 − DP — SIMA's drop precedence 7 is dropped last, as
    /// level 0 is here — and every other code point, best effort included, non-real time at
    /// DP 0 (the DRT draft §3: "The default DRT class is non-real-time"; the SIMA draft §11:
    /// the lowest category "always get priority 0"). Reports name its levels "DP n".
    pub fn sima() -> Self {
        let default = Marking {
            class: SIMA_NRT,
            level: 7,
        };
        let mut t = ColourTable::new(8, default).expect("8 levels is valid");
        for dp in 0..8u8 {
            t.put(
                sima(false, dp),
                Marking {
                    class: SIMA_NRT,
                    level: 7 - dp,
                },
            );
            t.put(
                sima(true, dp),
                Marking {
                    class: SIMA_RT,
                    level: 7 - dp,
                },
            );
        }
        t.naming = LevelNames::SimaDp;
        t
    }

    /// What reports call level `level`: "green", "yellow", "red", "level N" — or, in a SIMA
    /// table, "DP n".
    pub fn level_name(&self, level: u8) -> String {
        match (self.naming, level) {
            (LevelNames::SimaDp, l) => format!("DP {}", 7u8.saturating_sub(l)),
            (LevelNames::Colours, 0..=2) => Colour::from_level(level).name().to_string(),
            (LevelNames::Colours, l) => format!("level {l}"),
        }
    }

    /// `level_name` of every level, 0 to `MAX_LEVELS` − 1, one shared string each: the report's
    /// rows share them (issue 28).
    pub fn level_names(&self) -> Vec<std::sync::Arc<str>> {
        (0..MAX_LEVELS as u8)
            .map(|l| self.level_name(l).into())
            .collect()
    }

    /// Sets what `dscp` means in this domain.
    pub fn set(&mut self, dscp: u8, marking: Marking) -> Result<(), ParamError> {
        if dscp > MAX_DSCP {
            return Err(ParamError::new(
                "dscp",
                format!("{dscp} is not a 6-bit code point (0..=63)"),
            ));
        }
        if marking.level >= self.levels {
            return Err(ParamError::new(
                "level",
                format!(
                    "level {} for DSCP {dscp}: the table has levels 0..{}",
                    marking.level, self.levels
                ),
            ));
        }
        self.put(dscp, marking);
        Ok(())
    }

    /// `dscp` (a 6-bit code point) means `marking`.
    fn put(&mut self, dscp: u8, marking: Marking) {
        self.resolved[dscp as usize] = marking;
    }

    /// Number of drop-precedence levels.
    pub fn levels(&self) -> u8 {
        self.levels
    }

    /// What `dscp` means here (the default for unset or out-of-range code points).
    #[inline]
    pub fn lookup(&self, dscp: u8) -> Marking {
        self.resolved[usize::from(dscp)]
    }

    /// The drop-precedence level of `dscp`.
    #[inline]
    pub fn level(&self, dscp: u8) -> u8 {
        self.lookup(dscp).level
    }

    /// The colour of `dscp` (see `Colour::from_level`).
    #[inline]
    pub fn colour(&self, dscp: u8) -> Colour {
        self.lookup(dscp).colour()
    }
}

impl Default for ColourTable {
    fn default() -> Self {
        ColourTable::rfc2597()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn af_code_points_are_eight_x_plus_two_y_as_rfc2597_tabulates() {
        assert_eq!(af(1, 1), AF11);
        assert_eq!(af(4, 3), AF43);
        assert_eq!([AF11, AF12, AF13], [10, 12, 14]);
        assert_eq!([AF21, AF22, AF23], [18, 20, 22]);
        assert_eq!([AF31, AF32, AF33], [26, 28, 30]);
        assert_eq!([AF41, AF42, AF43], [34, 36, 38]);
    }

    #[test]
    fn class_selectors_are_xxx000_and_ef_is_101110() {
        for (n, cs) in [CS0, CS1, CS2, CS3, CS4, CS5, CS6, CS7]
            .into_iter()
            .enumerate()
        {
            assert_eq!(cs, (n as u8) << 3);
        }
        assert_eq!(EF, 0b101110);
        assert_eq!(BE, 0);
    }

    #[test]
    fn names_parse_case_insensitively_and_round_trip() {
        assert_eq!(parse("af11"), Ok(AF11));
        assert_eq!(parse("Ef"), Ok(EF));
        assert_eq!(parse(" CS5 "), Ok(CS5));
        assert_eq!(parse("be"), Ok(0));
        for &(n, v) in NAMES {
            assert_eq!(parse(n), Ok(v));
            if n != "CS0" {
                assert_eq!(name(v), Some(n));
            }
        }
        assert_eq!(name(0), Some("BE"), "0 is named BE, CS0 being its alias");
        assert_eq!(name(1), None);
    }

    #[test]
    fn unknown_name_error_lists_the_valid_names() {
        let e = parse("AF14").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("\"AF14\""));
        for &(n, _) in NAMES {
            assert!(msg.contains(n), "{msg} should list {n}");
        }
    }

    #[test]
    fn rfc2597_table_gives_afx1_green_afx2_yellow_afx3_red() {
        let t = ColourTable::rfc2597();
        assert_eq!(t.levels(), 3);
        for class in 1..=4 {
            assert_eq!(t.colour(af(class, 1)), Colour::Green);
            assert_eq!(t.colour(af(class, 2)), Colour::Yellow);
            assert_eq!(t.colour(af(class, 3)), Colour::Red);
            assert_eq!(t.lookup(af(class, 2)).class, Class::Af(class));
        }
        assert_eq!(
            t.lookup(EF),
            Marking {
                class: Class::Ef,
                level: 0
            }
        );
        assert_eq!(t.lookup(CS6).class, Class::ClassSelector(6));
        assert_eq!(
            t.lookup(BE),
            Marking {
                class: Class::BestEffort,
                level: 2
            }
        );
    }

    #[test]
    fn unrecognised_code_points_are_treated_as_best_effort() {
        let t = ColourTable::rfc2597();
        assert_eq!(t.lookup(1), t.lookup(BE));
        assert_eq!(t.lookup(63), t.lookup(BE));
        assert_eq!(
            t.lookup(200),
            t.lookup(BE),
            "out-of-range values never panic"
        );
    }

    #[test]
    fn a_domain_can_define_eight_levels() {
        let mut t = ColourTable::new(
            8,
            Marking {
                class: Class::BestEffort,
                level: 7,
            },
        )
        .unwrap();
        for dp in 0..8u8 {
            t.set(
                dp * 2,
                Marking {
                    class: Class::Local(1),
                    level: dp,
                },
            )
            .unwrap();
        }
        assert_eq!(t.level(6), 3);
        assert_eq!(t.level(14), 7);
        assert_eq!(t.level(1), 7, "unset code points take the default");
        assert_eq!(t.colour(14), Colour::Red);
        assert!(t
            .set(
                3,
                Marking {
                    class: Class::Local(1),
                    level: 8
                }
            )
            .is_err());
        assert!(t
            .set(
                64,
                Marking {
                    class: Class::Local(1),
                    level: 0
                }
            )
            .is_err());
    }

    #[test]
    fn sima_code_points_are_pool_two_with_the_drop_precedence_in_the_precedence_bits() {
        let all: Vec<u8> = (0..8)
            .flat_map(|dp| [sima(false, dp), sima(true, dp)])
            .collect();
        assert_eq!(all.len(), 16);
        for &d in &all {
            assert_eq!(d & 0b11, 0b11, "RFC 2474 §6 pool 2 is xxxx11: {d}");
            assert!(d <= MAX_DSCP);
        }
        let mut sorted = all.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 16, "sixteen distinct code points");
        assert_eq!(
            [sima(false, 0), sima(false, 4), sima(false, 7)],
            [3, 35, 59]
        );
        assert_eq!([sima(true, 0), sima(true, 4), sima(true, 7)], [7, 39, 63]);
        for dp in 0..8 {
            assert_eq!(sima_decode(sima(false, dp)), Some((false, dp)));
            assert_eq!(sima_decode(sima(true, dp)), Some((true, dp)));
        }
        for other in [BE, AF11, AF43, EF, CS7, 1, 2, 64] {
            assert_eq!(sima_decode(other), None, "{other}");
        }
        assert_eq!(parse("nrt4"), Ok(35));
        assert_eq!(name(63), Some("RT7"));
    }

    #[test]
    fn the_sima_table_puts_dp_seven_at_level_zero_and_unmarked_traffic_at_dp_zero() {
        let t = ColourTable::sima();
        assert_eq!(t.levels(), 8);
        for dp in 0..8u8 {
            assert_eq!(
                t.lookup(sima(false, dp)),
                Marking {
                    class: SIMA_NRT,
                    level: 7 - dp
                }
            );
            assert_eq!(
                t.lookup(sima(true, dp)),
                Marking {
                    class: SIMA_RT,
                    level: 7 - dp
                }
            );
            assert_eq!(t.level_name(7 - dp), format!("DP {dp}"));
        }
        assert_eq!(
            t.lookup(BE),
            Marking {
                class: SIMA_NRT,
                level: 7
            }
        );
        assert_eq!(t.lookup(AF11), t.lookup(BE));
        let rfc = ColourTable::rfc2597();
        assert_eq!(
            [rfc.level_name(0), rfc.level_name(2), rfc.level_name(5)],
            ["green", "red", "level 5"]
        );
    }

    #[test]
    fn table_sizes_outside_one_to_eight_levels_are_rejected() {
        let be = Marking {
            class: Class::BestEffort,
            level: 0,
        };
        assert!(ColourTable::new(0, be).is_err());
        assert!(ColourTable::new(9, be).is_err());
        assert!(ColourTable::new(2, Marking { level: 2, ..be }).is_err());
    }

    #[test]
    fn two_colour_aliases_are_green_and_yellow() {
        assert!(Colour::IN.is_in());
        assert!(!Colour::OUT.is_in());
        assert_eq!(Colour::OUT.index(), 1);
        assert_eq!(Colour::from_level(5), Colour::Red);
        assert_eq!(Colour::ALL.map(Colour::index), [0, 1, 2]);
    }
}
