//! The SACK scoreboard: which bytes above the cumulative ACK the receiver holds.
//!
//! Read this first.
//! - Source: RFC 6675 §3 (the scoreboard and `Update()`), §4 (`IsLost`, `SetPipe`,
//!   `NextSeg`); SACK blocks as RFC 2018 §3 defines them (left edge = first byte, right edge
//!   = the byte after the last).
//! - Representation: the SACKed ranges above HighACK, sorted, disjoint, merged when they
//!   touch. Everything the sender asks is answered from these ranges in O(ranges), not byte by
//!   byte: `IsLost` is monotone in the sequence number (the lower a byte, the more is SACKed
//!   above it), so one boundary `lost_below` splits every hole into lost and not-lost parts,
//!   and `SetPipe` becomes two interval sums.
//! - Segments are the sender's: every hole starts on a segment boundary because the receiver
//!   only SACKs whole segments, and the caller passes the MSS to cut holes into segments.
//!
//! Not modelled: D-SACK (RFC 2883), reneging (SACKed data later discarded by the receiver).

/// The SACK scoreboard of one sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// SACKed byte ranges `[start, end)`, sorted and disjoint, all above the cumulative ACK.
    ranges: Vec<(u64, u64)>,
}

/// What `NextSeg()` chose to send next (RFC 6675 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit `len` bytes from `start`. `rescue` marks rule (4), which must not move
    /// HighRxt.
    Retransmit { start: u64, len: u64, rescue: bool },
    /// Rule (2): send new data.
    NewData,
    /// Rule (5): nothing to send.
    Nothing,
}

/// The sender state `NextSeg()` and `SetPipe()` read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marks {
    /// HighACK: the cumulative ACK (snd_una).
    pub high_ack: u64,
    /// HighData: one past the highest byte sent (snd_max).
    pub high_data: u64,
    /// HighRxt: one past the highest byte retransmitted in this recovery.
    pub high_rxt: u64,
    /// RescueRxt: one past the byte of the last rescue retransmission, if any.
    pub rescue_rxt: Option<u64>,
    /// RecoveryPoint: HighData when recovery began.
    pub recovery_point: u64,
    pub mss: u64,
    pub dupthresh: u32,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }

    /// RFC 6675 §3 `Update()`: records the SACK blocks of an ACK whose cumulative ACK is
    /// `high_ack`, and forgets what the cumulative ACK now covers. Returns the bytes newly
    /// SACKed (RFC 6675 §2: a duplicate ACK must SACK something new).
    pub fn update(&mut self, high_ack: u64, blocks: &[(u64, u64)]) -> u64 {
        self.prune(high_ack);
        let before = self.sacked_bytes();
        for &(l, r) in blocks {
            let l = l.max(high_ack);
            if r > l {
                self.insert(l, r);
            }
        }
        self.sacked_bytes() - before
    }

    /// Drops everything below the cumulative ACK.
    pub fn prune(&mut self, high_ack: u64) {
        self.ranges.retain(|&(_, e)| e > high_ack);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(high_ack);
        }
    }

    fn insert(&mut self, l: u64, r: u64) {
        // first range that ends at or after l (could merge)
        let i = self.ranges.partition_point(|&(_, e)| e < l);
        let mut j = i;
        let (mut nl, mut nr) = (l, r);
        while j < self.ranges.len() && self.ranges[j].0 <= r {
            nl = nl.min(self.ranges[j].0);
            nr = nr.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, std::iter::once((nl, nr)));
    }

    /// Forgets all SACK information (RFC 2018 §8 after a timeout; ns-2 `Sack1`).
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// SACKed bytes in `[from, to)`.
    pub fn sacked_between(&self, from: u64, to: u64) -> u64 {
        self.ranges
            .iter()
            .map(|&(s, e)| e.min(to).saturating_sub(s.max(from)))
            .sum()
    }

    /// One past the highest SACKed byte.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|&(_, e)| e)
    }

    /// The end of the SACKed range holding `seq`, if `seq` is SACKed.
    pub fn sacked_until(&self, seq: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges
            .get(i)
            .filter(|&&(s, _)| s <= seq)
            .map(|&(_, e)| e)
    }

    /// The first byte at or above `from` that is not SACKed and has SACKed data above it
    /// (ns-2 `ScoreBoardRQ::GetNextRetran`: a hole below the highest SACKed byte).
    pub fn next_hole(&self, from: u64) -> Option<u64> {
        let mut at = from;
        for &(s, e) in &self.ranges {
            if e <= at {
                continue;
            }
            if s > at {
                return Some(at);
            }
            at = e;
        }
        None
    }

    /// Every un-SACKed byte below the returned boundary is lost by RFC 6675's `IsLost()`:
    /// more than (DupThresh − 1)·MSS bytes SACKed above it, or DupThresh discontiguous SACKed
    /// ranges above it. 0 when nothing is lost.
    pub fn lost_below(&self, mss: u64, dupthresh: u32) -> u64 {
        let mut bytes = 0;
        for (k, &(s, e)) in self.ranges.iter().rev().enumerate() {
            bytes += e - s;
            if bytes > u64::from(dupthresh.saturating_sub(1)) * mss || k + 1 >= dupthresh as usize {
                return s;
            }
        }
        0
    }

    /// The segments RFC 6675's `IsLost()` marks between `from` and its boundary
    /// (`lost_below`): the un-SACKed bytes there in segments (a part counts one), and the
    /// boundary. An ACK's newly lost segments are those from the boundary the previous ACK
    /// left (BBR's packets_lost, draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.4).
    pub fn lost_segments_from(&self, from: u64, mss: u64, dupthresh: u32) -> (u64, u64) {
        let bound = self.lost_below(mss, dupthresh);
        let bytes: u64 = self.holes(from, bound).map(|(s, e)| e - s).sum();
        (bytes.div_ceil(mss), bound)
    }

    /// RFC 6675 §4 `IsLost(seq)`.
    pub fn is_lost(&self, seq: u64, mss: u64, dupthresh: u32) -> bool {
        seq < self.lost_below(mss, dupthresh) && self.sacked_until(seq).is_none()
    }

    /// The un-SACKed ranges ("holes") in `[from, to)`.
    pub fn holes(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut cursor = from;
        let mut it = self.ranges.iter();
        let mut done = from >= to;
        std::iter::from_fn(move || {
            while !done {
                match it.next() {
                    Some(&(s, e)) => {
                        if e <= cursor {
                            continue;
                        }
                        let hole = (cursor, s.min(to));
                        cursor = e;
                        if cursor >= to {
                            done = true;
                        }
                        if hole.1 > hole.0 {
                            return Some(hole);
                        }
                    }
                    None => {
                        done = true;
                        if cursor < to {
                            return Some((cursor, to));
                        }
                    }
                }
            }
            None
        })
    }

    /// RFC 6675 §4 `SetPipe()`: bytes between HighACK and HighData that are not SACKed count
    /// once unless lost, and once more if retransmitted (below HighRxt).
    pub fn pipe(&self, m: &Marks) -> u64 {
        let lost = self.lost_below(m.mss, m.dupthresh);
        let mut pipe = 0;
        for (s, e) in self.holes(m.high_ack, m.high_data) {
            // not lost: [max(s, lost), e)
            pipe += e.saturating_sub(s.max(lost));
            // retransmitted: [s, min(e, high_rxt))
            pipe += e.min(m.high_rxt).saturating_sub(s);
        }
        pipe
    }

    /// RFC 6675 §4 `NextSeg()`. `new_data_ok` says whether rule (2) may send new data (data
    /// is available and the receiver's window allows a segment).
    pub fn next_seg(&self, m: &Marks, new_data_ok: bool) -> NextSeg {
        let lost = self.lost_below(m.mss, m.dupthresh);
        let top = self.highest_sacked().unwrap_or(m.high_ack);
        let from = m.high_ack.max(m.high_rxt);
        // the first un-SACKed segment above HighRxt and below the highest SACKed byte
        let first = self
            .holes(from, m.high_data)
            .next()
            .filter(|&(s, _)| s < top);
        if let Some((s, e)) = first {
            // (1) ... and lost: retransmit it
            if s < lost {
                return NextSeg::Retransmit {
                    start: s,
                    len: (e - s).min(m.mss),
                    rescue: false,
                };
            }
        }
        // (2) new data
        if new_data_ok {
            return NextSeg::NewData;
        }
        // (3) an un-SACKed segment that meets (1.a) and (1.b) but is not (yet) lost
        if let Some((s, e)) = first {
            return NextSeg::Retransmit {
                start: s,
                len: (e - s).min(m.mss),
                rescue: false,
            };
        }
        // (4) rescue retransmission, once per recovery: the segment holding the highest
        // outstanding un-SACKed byte
        if !matches!(m.rescue_rxt, Some(r) if m.high_ack <= r) {
            if let Some((s, e)) = self.holes(m.high_ack, m.high_data).last() {
                let start = s.max(e.saturating_sub(m.mss));
                return NextSeg::Retransmit {
                    start,
                    len: e - start,
                    rescue: true,
                };
            }
        }
        NextSeg::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A scoreboard with the given segments (by index, MSS-sized) SACKed above `una` segment.
    fn board(una: u64, sacked: &[u64]) -> Scoreboard {
        let mut sb = Scoreboard::new();
        let blocks: Vec<_> = sacked.iter().map(|&k| (k * MSS, (k + 1) * MSS)).collect();
        sb.update(una * MSS, &blocks);
        sb
    }

    fn marks(una: u64, max: u64) -> Marks {
        Marks {
            high_ack: una * MSS,
            high_data: max * MSS,
            high_rxt: una * MSS,
            rescue_rxt: None,
            recovery_point: max * MSS,
            mss: MSS,
            dupthresh: 3,
        }
    }

    #[test]
    fn update_merges_touching_blocks_and_counts_only_new_bytes() {
        let mut sb = Scoreboard::new();
        assert_eq!(sb.update(0, &[(2000, 3000)]), 1000);
        assert_eq!(
            sb.update(0, &[(3000, 4000), (2000, 3000)]),
            1000,
            "a repeated block adds nothing"
        );
        assert_eq!(sb.ranges(), &[(2000, 4000)]);
        assert_eq!(sb.update(0, &[(6000, 7000), (1000, 2500)]), 2000);
        assert_eq!(sb.ranges(), &[(1000, 4000), (6000, 7000)]);
        assert_eq!(
            sb.update(0, &[(3500, 6500)]),
            2000,
            "a block bridging two ranges merges them"
        );
        assert_eq!(sb.ranges(), &[(1000, 7000)]);
    }

    #[test]
    fn the_next_hole_is_the_first_unsacked_byte_with_sacked_data_above_it() {
        let sb = board(0, &[2, 3, 6]);
        assert_eq!(sb.next_hole(0), Some(0));
        assert_eq!(
            sb.next_hole(2 * MSS),
            Some(4 * MSS),
            "from inside a SACKed range: its end"
        );
        assert_eq!(sb.next_hole(5 * MSS), Some(5 * MSS));
        assert_eq!(sb.next_hole(6 * MSS), None, "nothing SACKed above 7");
        assert_eq!(Scoreboard::new().next_hole(0), None);
    }

    #[test]
    fn the_cumulative_ack_prunes_what_it_covers() {
        let mut sb = board(0, &[2, 3, 6]);
        sb.update(3500, &[]);
        assert_eq!(sb.ranges(), &[(3500, 4000), (6000, 7000)]);
        sb.update(7000, &[]);
        assert!(sb.is_empty());
        assert_eq!(
            sb.update(7000, &[(5000, 6000)]),
            0,
            "blocks below the ACK are ignored"
        );
    }

    #[test]
    fn a_segment_is_lost_when_more_than_two_segments_are_sacked_above_it() {
        // RFC 6675 §4 IsLost: more than (DupThresh − 1)·MSS bytes SACKed above
        let two = board(0, &[1, 2]);
        assert!(!two.is_lost(0, MSS, 3));
        let three = board(0, &[1, 2, 3]);
        assert!(three.is_lost(0, MSS, 3));
        assert!(!three.is_lost(1000, MSS, 3), "SACKed bytes are never lost");
        assert!(!three.is_lost(4000, MSS, 3), "nothing SACKed above");
        assert_eq!(three.lost_below(MSS, 3), 1000);
    }

    #[test]
    fn an_ack_newly_marks_lost_the_holes_it_moves_below_the_boundary() {
        // segments 0 and 4 missing, 1–3 SACKed: only 0 is lost (boundary 1)
        let mut sb = board(0, &[1, 2, 3]);
        assert_eq!(sb.lost_segments_from(0, MSS, 3), (1, MSS));
        // 5 and 6 SACKed: two above 4, not yet lost; counted from the last boundary: none
        sb.update(0, &[(5 * MSS, 7 * MSS)]);
        assert_eq!(sb.lost_segments_from(MSS, MSS, 3), (0, MSS));
        // 7 SACKed (3 above 4) and 9 (8 missing): 4 is newly lost, 8 not (one above)
        sb.update(0, &[(7 * MSS, 8 * MSS), (9 * MSS, 10 * MSS)]);
        assert_eq!(sb.lost_segments_from(MSS, MSS, 3), (1, 5 * MSS));
        // 10–12 SACKed: 8 newly lost; from the boundary 5 the hole [8, 9) counts alone
        sb.update(0, &[(10 * MSS, 13 * MSS)]);
        assert_eq!(sb.lost_segments_from(5 * MSS, MSS, 3), (1, 9 * MSS));
    }

    #[test]
    fn three_discontiguous_sacked_ranges_above_also_mean_lost() {
        // ... or DupThresh discontiguous SACKed sequences above (here with a 1-byte MSS budget
        // not reached: three tiny blocks)
        let mut sb = Scoreboard::new();
        sb.update(0, &[(1000, 1010), (2000, 2010), (3000, 3010)]);
        assert!(sb.is_lost(0, MSS, 3));
        assert!(!sb.is_lost(1500, MSS, 3), "only two ranges above 1500");
    }

    #[test]
    fn holes_list_the_unsacked_ranges_between_two_marks() {
        let sb = board(0, &[2, 3, 6]);
        let h: Vec<_> = sb.holes(0, 8000).collect();
        assert_eq!(h, vec![(0, 2000), (4000, 6000), (7000, 8000)]);
        let h: Vec<_> = sb.holes(2500, 6500).collect();
        assert_eq!(h, vec![(4000, 6000)]);
        assert_eq!(
            Scoreboard::new().holes(0, 3000).collect::<Vec<_>>(),
            vec![(0, 3000)]
        );
        assert_eq!(sb.holes(5000, 5000).count(), 0);
        assert_eq!(sb.sacked_between(0, 8000), 3000);
        assert_eq!(sb.sacked_between(2500, 6500), 2000);
    }

    #[test]
    fn pipe_counts_unsacked_bytes_not_lost_plus_retransmitted_bytes() {
        // segments 0..10 outstanding; 0 and 1 lost (3 SACKed above them), 2..5 SACKed
        let sb = board(0, &[2, 3, 4]);
        let mut m = marks(0, 10);
        // holes: [0,2000) lost, [5000,10000) not lost
        assert_eq!(sb.pipe(&m), 5000);
        m.high_rxt = 1000; // segment 0 retransmitted
        assert_eq!(sb.pipe(&m), 6000);
    }

    #[test]
    fn next_seg_retransmits_the_first_lost_hole_above_high_rxt() {
        let sb = board(0, &[2, 3, 4]);
        let mut m = marks(0, 10);
        assert_eq!(
            sb.next_seg(&m, true),
            NextSeg::Retransmit {
                start: 0,
                len: 1000,
                rescue: false
            }
        );
        m.high_rxt = 1000;
        assert_eq!(
            sb.next_seg(&m, true),
            NextSeg::Retransmit {
                start: 1000,
                len: 1000,
                rescue: false
            }
        );
    }

    #[test]
    fn next_seg_sends_new_data_when_no_hole_is_lost() {
        let sb = board(0, &[2, 3, 4]);
        let m = Marks {
            high_rxt: 2000,
            ..marks(0, 10)
        };
        assert_eq!(sb.next_seg(&m, true), NextSeg::NewData);
    }

    #[test]
    fn next_seg_retransmits_a_hole_not_yet_lost_when_there_is_no_new_data() {
        // rule (3): segment 5 is un-SACKed below the highest SACKed byte but not lost
        let sb = board(0, &[2, 3, 4, 6]);
        let m = Marks {
            high_rxt: 2000,
            ..marks(0, 8)
        };
        assert_eq!(
            sb.next_seg(&m, false),
            NextSeg::Retransmit {
                start: 5000,
                len: 1000,
                rescue: false
            }
        );
    }

    #[test]
    fn next_seg_makes_one_rescue_retransmission_of_the_highest_unsacked_segment() {
        // rule (4): no lost hole, no new data, no hole below the top SACK: the tail [7, 8)
        let sb = board(0, &[2, 3, 4, 5, 6]);
        let mut m = Marks {
            high_rxt: 2000,
            high_ack: 0,
            ..marks(0, 8)
        };
        m.rescue_rxt = None;
        assert_eq!(
            sb.next_seg(&m, false),
            NextSeg::Retransmit {
                start: 7000,
                len: 1000,
                rescue: true
            }
        );
        m.rescue_rxt = Some(8000);
        assert_eq!(
            sb.next_seg(&m, false),
            NextSeg::Nothing,
            "one rescue per recovery"
        );
    }
}
