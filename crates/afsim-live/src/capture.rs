//! `afsim live --capture`: the frames that leave a port, as a pcap file.
//!
//! Read this first. The same file format as the simulator's captures (afsim-core's
//! `net::pcap`: little-endian pcap 2.4, the nanosecond-resolution magic 0xA1B23C4D, link type
//! 101 `LINKTYPE_RAW`, each record an IP packet), so that one tshark command reads both. What
//! differs is what a record holds: here the whole IP packet as it left the port — the real
//! bytes Linux sent, payload included (`incl_len` = `orig_len`), with the DS field as the
//! models left it (a conditioner's re-marking, a queue's CE mark) and its header checksum
//! recomputed — and the timestamp is the wall clock (`CLOCK_REALTIME`, nanoseconds since
//! 1970): the run's time zero on the wall clock plus the model instant the packet started
//! transmission on the port (where a tap on that link would see it).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::frame;

const MAGIC_NS: u32 = 0xA1B2_3C4D;
const LINKTYPE_RAW: u32 = 101;
const SNAPLEN: u32 = 65_535;

/// A pcap file being written.
#[derive(Debug)]
pub struct Pcap {
    pub port: usize,
    pub path: PathBuf,
    out: BufWriter<File>,
    error: Option<std::io::Error>,
    pub frames: u64,
    buf: Vec<u8>,
}

impl Pcap {
    /// Creates (truncates) `path` and writes the file header.
    pub fn create(port: usize, path: &Path) -> std::io::Result<Pcap> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(Pcap {
            port,
            path: path.to_path_buf(),
            out,
            error: None,
            frames: 0,
            buf: Vec::with_capacity(1514),
        })
    }

    /// Records the IP packet of Ethernet frame `eth` leaving at `wall_ns` (ns since 1970), its
    /// DS field set to `tos`.
    pub fn write(&mut self, wall_ns: u64, eth: &[u8], tos: u8) {
        if self.error.is_some() || eth.len() < frame::ETH_HLEN + 20 {
            return;
        }
        let ip = &eth[frame::ETH_HLEN..];
        let total = usize::from(u16::from_be_bytes([ip[2], ip[3]])).min(ip.len());
        let ihl = (usize::from(ip[0] & 0x0f) * 4).min(total);
        self.buf.clear();
        self.buf.extend_from_slice(&ip[..total]);
        if self.buf[1] != tos {
            self.buf[1] = tos;
            let c = frame::ipv4_checksum(&self.buf[..ihl]);
            self.buf[10..12].copy_from_slice(&c.to_be_bytes());
        }
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((wall_ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((wall_ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(total as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(total as u32).to_le_bytes());
        let r = self
            .out
            .write_all(&rec)
            .and_then(|()| self.out.write_all(&self.buf));
        match r {
            Ok(()) => self.frames += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Flushes the file; the first error of the capture, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(format!("{}: {e}", self.path.display()));
        }
        self.out
            .flush()
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}
