//! Packet capture: the packets that leave a port, written as a classic pcap file that tshark
//! and Wireshark read.
//!
//! Read this first. Sources: the pcap file format (draft-ietf-opsawg-pcap, §3–§5: the
//! nanosecond-resolution magic 0xA1B23C4D, link type 101 `LINKTYPE_RAW`: each record is an IP
//! packet, no link header); IPv4 header RFC 791 §3.1 with the DS field and ECN bits of RFC 2474
//! §3 and RFC 3168 §5; checksum RFC 1071; TCP header RFC 9293 §3.1, SACK-permitted and SACK
//! options RFC 2018 §2–§3, ECE/CWR RFC 3168 §6.1; UDP header RFC 768.
//!
//! What a record holds: the IPv4 header and the TCP or UDP header (options included), not the
//! payload: afsim carries none. `orig_len` is the packet's full IP length and `incl_len` the
//! header bytes, as a capture with a short snap length records it, so tools show the true
//! lengths and mark the payload as "not captured". Checksums are computed as if the payload
//! were zeros. The timestamp is the simulated instant the packet starts transmission on the
//! port (when a tap on that interface would see it), in nanoseconds.
//!
//! The mapping from afsim's packet to header fields (documented in docs/sweeps.md too):
//! - addresses: node index `i` ↦ 10.a.b.c with a.b.c = i + 1 in base 256 (node 0 ↦ 10.0.0.1);
//! - ports: the flow's source side uses port 10000 + (flow index mod 55536), its sink side 5001;
//!   afsim's own `src_port`/`dst_port` are 0 and not used;
//! - IPv4: version 4, IHL 5, TOS = DSCP << 2 | ECN, identification 0 with Don't Fragment set
//!   (RFC 6864 §4.1: atomic datagrams), TTL 64 (afsim does not model TTL), protocol as afsim's;
//!   CSA control packets (ICMP) are recorded as their IP header only;
//! - TCP sequence numbers: the initial sequence number of both ends is 0, so the SYN (and the
//!   SYN-ACK) carries 0 and afsim's byte offset `k` (data byte k, or cumulative ACK "next byte
//!   k") is 1 + k on the wire, wrapping modulo 2³²; SACK blocks likewise. Data segments carry
//!   the ACK flag only if afsim set it (their acknowledgement field is then 1: the receiver
//!   sends no data);
//! - TCP flags: afsim's SYN, ACK, FIN, ECE and CWR bits as modelled; window 65535 (afsim does
//!   not model the advertised window as a field); options: SACK-permitted on a SYN that asks
//!   for it, and SACK blocks on ACKs that carry them, each preceded by two NOPs (so the IP
//!   total length of a SACK ACK is 4 bytes more than afsim's count of 40 + 8 per block, which
//!   follows ns-2 and leaves out the option's kind, length and padding);
//! - UDP: length = IP size − 20 (a packet smaller than its 28 bytes of headers, which a scenario
//!   may ask for, is recorded at 28).
//!
//! Cost: a port without capture pays one comparison of an index per departing packet
//! (`World::start_tx`); the writer reuses one header buffer (no allocation per packet).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::net::packet::tcp_flags as flags;
use crate::net::packet::{proto, Packet};
use crate::sim::time::SimTime;

/// `Port::capture` of a port that is not captured.
pub const NONE: u32 = u32::MAX;

/// Nanosecond-resolution pcap magic (written little-endian).
const MAGIC_NS: u32 = 0xA1B2_3C4D;
/// `LINKTYPE_RAW`: records start with the IP header.
const LINKTYPE_RAW: u32 = 101;
const SNAPLEN: u32 = 65_535;
/// Bytes of the largest header this writer makes: IPv4 20 + TCP 20 + options 4 + 3 × 8.
pub const MAX_HEADER: usize = 20 + 20 + 4 + 8 * 3;
/// The sink side's port (RFC 6335 would call it a registered port; any fixed value does).
pub const SINK_PORT: u16 = 5001;
/// TTL of every captured packet: afsim does not model TTL.
pub const TTL: u8 = 64;

/// IPv4 address of node `node`: 10.0.0.1 for node 0, in order.
pub fn address(node: u32) -> [u8; 4] {
    let n = node + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The source side's port of flow `flow`.
pub fn source_port(flow: u32) -> u16 {
    10_000 + (flow % 55_536) as u16
}

/// A 32-bit TCP sequence number on the wire for afsim's byte offset `k` (ISN 0; the SYN takes 0).
pub fn wire_seq(k: u64) -> u32 {
    (k as u32).wrapping_add(1)
}

/// RFC 1071 one's-complement sum of 16-bit big-endian words, folded.
fn sum16(mut acc: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// Writes the headers of `pkt` into `out`; returns (bytes written, the packet's IP length).
pub fn encode(pkt: &Packet, out: &mut [u8; MAX_HEADER]) -> (usize, u32) {
    let (src, dst) = (address(pkt.src), address(pkt.dst));
    let (sport, dport) = if pkt.rev {
        (SINK_PORT, source_port(pkt.flow))
    } else {
        (source_port(pkt.flow), SINK_PORT)
    };
    let (l4, total) = match pkt.protocol {
        proto::TCP => {
            let th = &pkt.th;
            let t = &mut out[20..];
            t[0..2].copy_from_slice(&sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            let syn = th.flags & flags::SYN != 0;
            let seq = if syn {
                0
            } else if pkt.rev {
                wire_seq(0) // the receiver sends no data: its next byte is always 1
            } else {
                wire_seq(th.seq)
            };
            t[4..8].copy_from_slice(&seq.to_be_bytes());
            let ack = if th.flags & flags::ACK == 0 {
                0
            } else if pkt.rev {
                wire_seq(th.ack)
            } else {
                wire_seq(0)
            };
            t[8..12].copy_from_slice(&ack.to_be_bytes());
            // options: SACK-permitted on a SYN, SACK blocks on an ACK (RFC 2018), NOP-padded
            let mut len = 20;
            if syn && th.flags & flags::SACK_PERMITTED != 0 {
                t[20..24].copy_from_slice(&[1, 1, 4, 2]);
                len = 24;
            } else if !th.sack_blocks().is_empty() {
                let n = th.sack_blocks().len();
                t[20..24].copy_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
                for (i, &(l, r)) in th.sack_blocks().iter().enumerate() {
                    t[24 + 8 * i..28 + 8 * i].copy_from_slice(&wire_seq(l).to_be_bytes());
                    t[28 + 8 * i..32 + 8 * i].copy_from_slice(&wire_seq(r).to_be_bytes());
                }
                len = 24 + 8 * n;
            }
            t[12] = ((len / 4) as u8) << 4;
            t[13] = (th.flags & 0xFF) as u8;
            t[14..16].copy_from_slice(&0xFFFFu16.to_be_bytes());
            t[16..20].fill(0); // checksum, urgent pointer
            (len, 20 + len as u32 + th.payload)
        }
        proto::UDP => {
            // a packet smaller than its headers (a scenario may say 1B) is shown at 28 bytes
            let total = pkt.size.clamp(28, 0xFFFF);
            let t = &mut out[20..];
            t[0..2].copy_from_slice(&sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            t[4..6].copy_from_slice(&((total - 20) as u16).to_be_bytes());
            t[6..8].fill(0);
            (8, total)
        }
        _ => (0, pkt.size),
    };
    let total = total.clamp(20, 0xFFFF);
    let ip = &mut out[..20];
    ip[0] = 0x45;
    ip[1] = (pkt.dscp << 2) | pkt.ecn as u8;
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[4..6].fill(0); // identification (atomic datagram)
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // Don't Fragment
    ip[8] = TTL;
    ip[9] = pkt.protocol;
    ip[10..12].fill(0);
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = fold(sum16(0, ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    if l4 > 0 {
        // pseudo-header (RFC 9293 §3.1, RFC 768) + header; the zero payload adds nothing
        let seg_len = total - 20;
        let mut acc = sum16(0, &src);
        acc = sum16(acc, &dst);
        acc += u32::from(pkt.protocol) + seg_len;
        acc = sum16(acc, &out[20..20 + l4]);
        let mut c = fold(acc);
        let at = if pkt.protocol == proto::TCP { 36 } else { 26 };
        if pkt.protocol == proto::UDP && c == 0 {
            c = 0xFFFF; // RFC 768: a computed zero is sent as all ones
        }
        out[at..at + 2].copy_from_slice(&c.to_be_bytes());
    }
    (20 + l4, total)
}

/// A pcap file being written.
#[derive(Debug)]
pub struct Writer {
    out: BufWriter<File>,
    buf: [u8; MAX_HEADER],
    /// The first write error, reported when the run ends.
    error: Option<std::io::Error>,
    pub packets: u64,
}

impl Writer {
    /// Creates (truncates) `path` and writes the file header.
    pub fn create(path: &Path) -> std::io::Result<Writer> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone, sigfigs: 0
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(Writer {
            out,
            buf: [0; MAX_HEADER],
            error: None,
            packets: 0,
        })
    }

    /// Records `pkt` leaving at `now`.
    pub fn write(&mut self, now: SimTime, pkt: &Packet) {
        if self.error.is_some() {
            return;
        }
        let (incl, orig) = encode(pkt, &mut self.buf);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((now.0 / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((now.0 % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&orig.to_le_bytes());
        let r = self
            .out
            .write_all(&rec)
            .and_then(|()| self.out.write_all(&self.buf[..incl]));
        match r {
            Ok(()) => self.packets += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Flushes the file; the first error of the whole capture, if any.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, TransportHeader};

    fn tcp_data(seq: u64, payload: u32) -> Packet {
        Packet {
            src: 0,
            dst: 2,
            protocol: proto::TCP,
            dscp: 10,
            ecn: Ecn::Ect0,
            size: payload + 40,
            flow: 3,
            th: TransportHeader {
                seq,
                payload,
                flags: flags::ACK | flags::CWR,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// RFC 1071: a header with its checksum in place sums to 0xFFFF.
    fn verifies(bytes: &[u8]) -> bool {
        fold(sum16(0, bytes)) == 0
    }

    #[test]
    fn node_addresses_count_from_10_0_0_1() {
        assert_eq!(address(0), [10, 0, 0, 1]);
        assert_eq!(address(255), [10, 0, 1, 0]);
        assert_eq!(address(65_535), [10, 1, 0, 0]);
    }

    #[test]
    fn the_tos_byte_carries_dscp_and_ecn() {
        let mut b = [0u8; MAX_HEADER];
        encode(&tcp_data(0, 960), &mut b);
        assert_eq!(b[1], (10 << 2) | 0b10, "AF11 with ECT(0)");
        let mut p = tcp_data(0, 960);
        p.ecn = Ecn::Ce;
        p.dscp = 46;
        encode(&p, &mut b);
        assert_eq!(b[1], 0xBB, "EF with CE");
    }

    #[test]
    fn an_ipv4_header_has_length_ttl_protocol_addresses_and_a_valid_checksum() {
        let mut b = [0u8; MAX_HEADER];
        let (incl, orig) = encode(&tcp_data(0, 960), &mut b);
        assert_eq!(
            (incl, orig),
            (40, 1000),
            "headers only; the IP length is the packet's"
        );
        assert_eq!(&b[..2], &[0x45, 42], "version 4, IHL 5; AF11 + ECT(0)");
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 1000);
        assert_eq!(&b[6..10], &[0x40, 0, 64, 6], "DF, TTL 64, TCP");
        assert_eq!(&b[12..20], &[10, 0, 0, 1, 10, 0, 0, 3]);
        assert!(verifies(&b[..20]));
    }

    #[test]
    fn tcp_sequence_numbers_are_one_plus_the_byte_offset() {
        let mut b = [0u8; MAX_HEADER];
        encode(&tcp_data(96_000, 960), &mut b);
        assert_eq!(
            u16::from_be_bytes([b[20], b[21]]),
            10_003,
            "source side: 10000 + flow"
        );
        assert_eq!(u16::from_be_bytes([b[22], b[23]]), SINK_PORT);
        assert_eq!(u32::from_be_bytes([b[24], b[25], b[26], b[27]]), 96_001);
        assert_eq!(
            u32::from_be_bytes([b[28], b[29], b[30], b[31]]),
            1,
            "the receiver sends no data"
        );
        assert_eq!(b[32], 5 << 4, "no options: 20-byte header");
        assert_eq!(b[33], 0x90, "ACK | CWR");
    }

    #[test]
    fn sequence_numbers_wrap_modulo_2_to_the_32() {
        assert_eq!(wire_seq(u64::from(u32::MAX)), 0);
        assert_eq!(wire_seq((1 << 32) + 5), 6);
    }

    #[test]
    fn an_ack_with_sack_blocks_carries_the_option_and_its_four_bytes() {
        let mut p = Packet {
            src: 2,
            dst: 0,
            protocol: proto::TCP,
            size: 40 + 16,
            flow: 3,
            rev: true,
            th: TransportHeader {
                ack: 1000,
                flags: flags::ACK | flags::ECE,
                ..Default::default()
            },
            ..Default::default()
        };
        p.th.set_sack(&[(3000, 4000), (5000, 6000)]);
        let mut b = [0u8; MAX_HEADER];
        let (incl, orig) = encode(&p, &mut b);
        assert_eq!((incl, orig), (20 + 20 + 4 + 16, 60));
        assert_eq!(
            u16::from_be_bytes([b[20], b[21]]),
            SINK_PORT,
            "the ACK leaves the sink side"
        );
        assert_eq!(u32::from_be_bytes([b[28], b[29], b[30], b[31]]), 1001);
        assert_eq!(b[32] >> 4, 10, "40-byte TCP header");
        assert_eq!(b[33], 0x50, "ACK | ECE");
        assert_eq!(&b[40..44], &[1, 1, 5, 18]);
        let block = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        assert_eq!(
            [block(44), block(48), block(52), block(56)],
            [3001, 4001, 5001, 6001]
        );
    }

    #[test]
    fn a_syn_has_sequence_zero_and_sack_permitted() {
        let p = Packet {
            protocol: proto::TCP,
            size: 40,
            th: TransportHeader {
                flags: flags::SYN | flags::ECE | flags::CWR | flags::SACK_PERMITTED,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut b = [0u8; MAX_HEADER];
        let (incl, orig) = encode(&p, &mut b);
        assert_eq!((incl, orig), (44, 44));
        assert_eq!(u32::from_be_bytes([b[24], b[25], b[26], b[27]]), 0);
        assert_eq!(
            b[33], 0xC2,
            "SYN | ECE | CWR; the SACK-permitted bit is an option, not a flag"
        );
        assert_eq!(&b[40..44], &[1, 1, 4, 2]);
    }

    #[test]
    fn the_tcp_checksum_covers_the_pseudo_header_and_a_zero_payload() {
        let mut b = [0u8; MAX_HEADER];
        let (incl, orig) = encode(&tcp_data(7, 100), &mut b);
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&b[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&((orig - 20) as u16).to_be_bytes());
        pseudo.extend_from_slice(&b[20..incl]);
        pseudo.extend(std::iter::repeat_n(0u8, 100));
        assert!(verifies(&pseudo));
    }

    #[test]
    fn a_udp_header_has_ports_length_and_a_valid_checksum() {
        let p = Packet {
            src: 1,
            dst: 4,
            protocol: proto::UDP,
            size: 576,
            flow: 0,
            ..Default::default()
        };
        let mut b = [0u8; MAX_HEADER];
        let (incl, orig) = encode(&p, &mut b);
        assert_eq!((incl, orig), (28, 576));
        assert_eq!(u16::from_be_bytes([b[20], b[21]]), 10_000);
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 556);
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&b[12..20]);
        pseudo.extend_from_slice(&[0, 17, 2, 44]);
        pseudo.extend_from_slice(&b[20..28]);
        pseudo.extend(std::iter::repeat_n(0u8, 548));
        assert!(verifies(&pseudo));
    }

    #[test]
    fn a_packet_smaller_than_its_headers_is_recorded_at_header_size() {
        let p = Packet {
            protocol: proto::UDP,
            size: 1,
            ..Default::default()
        };
        let mut b = [0u8; MAX_HEADER];
        assert_eq!(encode(&p, &mut b), (28, 28));
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 8);
    }

    #[test]
    fn a_file_has_the_nanosecond_header_and_one_record_per_packet() {
        let dir = std::env::temp_dir().join(format!("afsim-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcap");
        let mut w = Writer::create(&path).unwrap();
        w.write(SimTime(1_500_000_123), &tcp_data(0, 960));
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], &[0x4D, 0x3C, 0xB2, 0xA1]);
        assert_eq!(&bytes[20..24], &101u32.to_le_bytes());
        assert_eq!(&bytes[24..28], &1u32.to_le_bytes(), "seconds");
        assert_eq!(&bytes[28..32], &500_000_123u32.to_le_bytes(), "nanoseconds");
        assert_eq!(
            &bytes[32..40],
            &[40, 0, 0, 0, 0xE8, 3, 0, 0],
            "incl 40, orig 1000"
        );
        assert_eq!(bytes.len(), 24 + 16 + 40);
        assert_eq!(w.packets, 1);
        std::fs::remove_dir_all(&dir).ok();
    }
}
