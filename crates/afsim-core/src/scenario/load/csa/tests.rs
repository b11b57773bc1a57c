use super::*;
use crate::edge::csa;
use crate::scenario::spec::CsaScope;
use crate::sim::time::SimDuration;

#[test]
fn the_csa_defaults_are_table_1_and_an_icmp_message_in_cs6() {
    assert_eq!(csa::Params::TABLE_1.t1, SimDuration::from_millis(30));
    // 20 B IP + 8 B ICMP + the quoted IP header and 8 bytes (RFC 792)
    assert_eq!(SIGNAL_BYTES, 20 + 8 + 28);
    assert!(SIGNAL_MIN_BYTES <= u64::from(SIGNAL_BYTES));
    assert_eq!(CSA_FIELDS.len(), 14);
    assert_eq!(
        CsaScope::default(),
        CsaScope::Shared,
        "the buffer's OUT packets drive one α"
    );
    assert_eq!(csa::Rules::default(), csa::Rules::Text);
}
