//! Ethernet II + IPv4 frames: the few header fields the forwarder reads and rewrites.
//!
//! Read this first: the models see a packet's addresses, protocol, ports, DSCP, ECN and IP
//! length (RFC 791, RFC 2474 §3, RFC 3168 §5); the forwarder writes back the DS field the
//! conditioners and queues may have changed (re-marked DSCP, CE), fixes the header checksum
//! (RFC 1071) and sets the Ethernet addresses of the link the frame leaves on.

pub const ETH_HLEN: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;

/// The IPv4 fields the models use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    pub tos: u8,
    pub total_len: u16,
    pub protocol: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// TCP/UDP ports (0 for other protocols and non-first fragments).
    pub src_port: u16,
    pub dst_port: u16,
}

/// Parses an Ethernet frame carrying IPv4; `None` for anything else or a truncated header.
pub fn parse(f: &[u8]) -> Option<Ipv4> {
    if f.len() < ETH_HLEN + 20 || u16::from_be_bytes([f[12], f[13]]) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &f[ETH_HLEN..];
    if ip[0] >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    let total_len = u16::from_be_bytes([ip[2], ip[3]]);
    if ihl < 20 || usize::from(total_len) < ihl || usize::from(total_len) > ip.len() {
        return None;
    }
    let protocol = ip[9];
    let frag_offset = u16::from_be_bytes([ip[6], ip[7]]) & 0x1fff;
    let (mut src_port, mut dst_port) = (0, 0);
    if (protocol == 6 || protocol == 17) && frag_offset == 0 && usize::from(total_len) >= ihl + 4 {
        src_port = u16::from_be_bytes([ip[ihl], ip[ihl + 1]]);
        dst_port = u16::from_be_bytes([ip[ihl + 2], ip[ihl + 3]]);
    }
    Some(Ipv4 {
        tos: ip[1],
        total_len,
        protocol,
        src: [ip[12], ip[13], ip[14], ip[15]],
        dst: [ip[16], ip[17], ip[18], ip[19]],
        src_port,
        dst_port,
    })
}

/// RFC 1071 checksum of an IPv4 header (with its checksum field taken as zero).
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, pair) in header.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field
        }
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Readdresses a parsed frame to `dst_mac` from `src_mac`, writes the DS field `tos` and the
/// header checksum.
pub fn rewrite(f: &mut [u8], dst_mac: [u8; 6], src_mac: [u8; 6], tos: u8) {
    f[0..6].copy_from_slice(&dst_mac);
    f[6..12].copy_from_slice(&src_mac);
    let ihl = usize::from(f[ETH_HLEN] & 0x0f) * 4;
    if f[ETH_HLEN + 1] != tos {
        f[ETH_HLEN + 1] = tos;
        let c = ipv4_checksum(&f[ETH_HLEN..ETH_HLEN + ihl]);
        f[ETH_HLEN + 10..ETH_HLEN + 12].copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
pub(crate) fn test_frame(
    src: [u8; 4],
    dst: [u8; 4],
    protocol: u8,
    sport: u16,
    dport: u16,
    ip_len: u16,
    tos: u8,
) -> Vec<u8> {
    let mut f = vec![0u8; ETH_HLEN + usize::from(ip_len)];
    f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    let ip = &mut f[ETH_HLEN..];
    ip[0] = 0x45;
    ip[1] = tos;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[8] = 64;
    ip[9] = protocol;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    ip[20..22].copy_from_slice(&sport.to_be_bytes());
    ip[22..24].copy_from_slice(&dport.to_be_bytes());
    let c = ipv4_checksum(&ip[..20]);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_rewrite_keep_a_valid_checksum() {
        let mut f = test_frame([10, 0, 0, 2], [10, 0, 1, 2], 6, 40000, 5001, 1000, 0x28);
        let ip = parse(&f).unwrap();
        assert_eq!(
            (ip.tos, ip.total_len, ip.protocol, ip.src_port, ip.dst_port),
            (0x28, 1000, 6, 40000, 5001)
        );
        rewrite(&mut f, [2; 6], [4; 6], (12 << 2) | 3);
        assert_eq!(&f[0..6], &[2; 6]);
        assert_eq!(f[ETH_HLEN + 1], (12 << 2) | 3);
        // the checksum over the whole header, its own field included, folds to 0xffff
        let mut sum: u32 = f[ETH_HLEN..ETH_HLEN + 20]
            .chunks(2)
            .map(|p| u32::from(u16::from_be_bytes([p[0], p[1]])))
            .sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
    }

    #[test]
    fn not_ipv4_is_refused() {
        let mut f = test_frame([10, 0, 0, 2], [10, 0, 1, 2], 6, 1, 2, 60, 0);
        f[12] = 0x86;
        f[13] = 0xdd;
        assert!(parse(&f).is_none());
        assert!(parse(&[0u8; 20]).is_none());
    }
}
