//! The wall-clock driver: AF_PACKET sockets on the router side of every host's veth, and the
//! loop that runs the `Fabric` against `CLOCK_MONOTONIC`.
//!
//! Read this first: one process, one thread, inside the forwarder's network namespace (which
//! holds every router-side veth end; routers and router-router links exist only as models).
//! Each turn of the loop: run the events due now (frames whose instant has come go out),
//! drain every socket a bounded batch at a time, round robin (so one direction's burst never
//! starves the other's ACKs), then sleep in `ppoll` with a nanosecond timeout until the next
//! event or a frame. The thread's timer slack is set to 1 ns (`PR_SET_TIMERSLACK`), so the
//! kernel's hrtimer wakes it within microseconds, not the default 50 µs; `spin_ns` optionally
//! busy-waits the last stretch before a deadline.
//!
//! Sockets: `PACKET_IGNORE_OUTGOING` (the forwarder never reads its own transmissions back),
//! receive buffers of `rcvbuf` bytes (what was not read in time is counted by the kernel and
//! reported: `PACKET_STATISTICS`), offloads off on every router-side end (`SIOCETHTOOL`: no
//! partial checksums, no frames above the MTU).

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

use afsim_core::sim::time::SimTime;
use serde::{Deserialize, Serialize};

use crate::fabric::{Fabric, FlowMatch, Host};

/// What the Python side hands the forwarder (JSON).
#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub hosts: Vec<Host>,
    /// Router-side interface of each host's link, parallel to `hosts`.
    pub ifaces: Vec<String>,
    pub flows: Vec<FlowMatch>,
    /// How long to forward after the start instant, ns.
    pub duration_ns: u64,
    #[serde(default)]
    pub spin_ns: u64,
    #[serde(default = "default_rcvbuf")]
    pub rcvbuf: i32,
    /// Stop on SIGTERM/SIGINT (a dedicated forwarder process); off in tests that share a
    /// process with Python.
    #[serde(default)]
    pub stop_on_signals: bool,
    /// Run the forwarding thread under SCHED_FIFO (priority `realtime_priority`), so that other
    /// processes on the machine (the hosts' own generators among them) do not delay its
    /// wake-ups; the kernel's RT throttling still leaves 5 % of every second to the others.
    #[serde(default)]
    pub realtime: bool,
    #[serde(default = "default_priority")]
    pub realtime_priority: i32,
    /// Write the queue trace (`Fabric::enable_queue_trace`) to this CSV file at the end.
    #[serde(default)]
    pub queue_trace: Option<String>,
}

fn default_priority() -> i32 {
    20
}

fn default_rcvbuf() -> i32 {
    1 << 20
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// `CLOCK_MONOTONIC` in nanoseconds (the clock Python's `time.monotonic_ns` reads).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec pointer
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Per-socket kernel counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SocketStats {
    pub iface: String,
    /// Frames the kernel queued for the socket, and those it dropped for lack of buffer.
    pub kernel_packets: u64,
    pub kernel_drops: u64,
    /// Frames `send` refused (counted; lost outside the models).
    pub send_errors: u64,
    /// Offloads that could not be switched off (names).
    pub offloads_left_on: Vec<String>,
}

struct Sock {
    fd: libc::c_int,
    stats: SocketStats,
}

impl Drop for Sock {
    fn drop(&mut self) {
        // SAFETY: our own descriptor
        unsafe { libc::close(self.fd) };
    }
}

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

const SIOCETHTOOL: libc::c_ulong = 0x8946;

/// Switches off checksum, segmentation and receive offloads of `iface` (as
/// `ethtool -K iface tx off sg off tso off gso off gro off`); returns those that failed.
pub fn disable_offloads(fd: libc::c_int, iface: &str) -> Vec<String> {
    // legacy ethtool "set" commands (linux/ethtool.h)
    const CMDS: &[(u32, &str)] = &[
        (0x1f, "tso"),
        (0x24, "gso"),
        (0x2b, "gro"),
        (0x19, "sg"),
        (0x17, "tx-checksum"),
        (0x15, "rx-checksum"),
    ];
    let mut failed = Vec::new();
    for &(cmd, name) in CMDS {
        let mut v = EthtoolValue { cmd, data: 0 };
        let mut ifr = IfreqData {
            name: [0; libc::IFNAMSIZ],
            data: &mut v as *mut _ as *mut libc::c_void,
            _pad: [0; 16],
        };
        for (d, s) in ifr
            .name
            .iter_mut()
            .zip(iface.bytes().take(libc::IFNAMSIZ - 1))
        {
            *d = s as libc::c_char;
        }
        // SAFETY: ifr points at a live ethtool_value for the duration of the call
        let r = unsafe { libc::ioctl(fd, SIOCETHTOOL as _, &mut ifr) };
        if r < 0 {
            failed.push(name.to_string());
        }
    }
    failed
}

fn open_socket(iface: &str, rcvbuf: i32) -> Result<Sock, String> {
    let proto = (libc::ETH_P_ALL as u16).to_be() as libc::c_int;
    // SAFETY: plain syscalls on values we own
    unsafe {
        let fd = libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            proto,
        );
        if fd < 0 {
            return Err(format!("socket(AF_PACKET) for {iface}: {}", errno()));
        }
        let sock = Sock {
            fd,
            stats: SocketStats {
                iface: iface.to_string(),
                ..Default::default()
            },
        };
        let cname = CString::new(iface).map_err(|_| format!("bad interface name {iface:?}"))?;
        let ifindex = libc::if_nametoindex(cname.as_ptr());
        if ifindex == 0 {
            return Err(format!(
                "no interface {iface} in the forwarder's namespace: {}",
                errno()
            ));
        }
        let one: libc::c_int = 1;
        const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
        if libc::setsockopt(
            fd,
            libc::SOL_PACKET,
            PACKET_IGNORE_OUTGOING,
            &one as *const _ as *const _,
            4,
        ) < 0
        {
            return Err(format!("PACKET_IGNORE_OUTGOING on {iface}: {}", errno()));
        }
        // force: beyond rmem_max as root (CAP_NET_ADMIN)
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &rcvbuf as *const _ as *const _,
            4,
        );
        let mut sll: libc::sockaddr_ll = std::mem::zeroed();
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = proto as u16;
        sll.sll_ifindex = ifindex as i32;
        if libc::bind(
            fd,
            &sll as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_ll>() as u32,
        ) < 0
        {
            return Err(format!("bind to {iface}: {}", errno()));
        }
        let mut sock = sock;
        sock.stats.offloads_left_on = disable_offloads(fd, iface);
        // frames that arrived before the run starts are stale: drop them
        let mut buf = [0u8; 2048];
        while libc::recv(
            fd,
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            libc::MSG_DONTWAIT,
        ) > 0
        {}
        Ok(sock)
    }
}

fn kernel_stats(s: &mut Sock) {
    #[repr(C)]
    struct TpacketStats {
        packets: u32,
        drops: u32,
    }
    let mut st = TpacketStats {
        packets: 0,
        drops: 0,
    };
    let mut len = std::mem::size_of::<TpacketStats>() as libc::socklen_t;
    const PACKET_STATISTICS: libc::c_int = 6;
    // SAFETY: st is a tpacket_stats-sized buffer
    if unsafe {
        libc::getsockopt(
            s.fd,
            libc::SOL_PACKET,
            PACKET_STATISTICS,
            &mut st as *mut _ as *mut _,
            &mut len,
        )
    } == 0
    {
        // (reading resets the kernel's counters: accumulate)
        s.stats.kernel_packets += u64::from(st.packets);
        s.stats.kernel_drops += u64::from(st.drops);
    }
}

fn cpu_seconds() -> (f64, f64) {
    // SAFETY: a valid rusage pointer
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    (t(ru.ru_utime), t(ru.ru_stime))
}

/// The forwarder: its fabric and sockets, opened and ready; `run` forwards.
pub struct Forwarder {
    pub fabric: Fabric,
    socks: Vec<Sock>,
    cfg: Config,
}

/// What a run measured about itself.
#[derive(Clone, Debug, Serialize)]
pub struct DriverStats {
    pub wall_s: f64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub loop_turns: u64,
    pub sleeps: u64,
    pub sockets: Vec<SocketStats>,
    pub stopped_by_signal: bool,
    /// Whether SCHED_FIFO was asked for and granted.
    pub realtime: bool,
}

impl Forwarder {
    /// Builds the fabric and opens a socket per router-side interface (in the calling
    /// process's network namespace).
    pub fn open(spec: &afsim_core::Spec, cfg: Config) -> Result<Forwarder, String> {
        if cfg.ifaces.len() != cfg.hosts.len() {
            return Err("one interface per host".into());
        }
        let mut fabric =
            Fabric::build(spec, cfg.hosts.clone(), &cfg.flows).map_err(|e| e.to_string())?;
        if cfg.queue_trace.is_some() {
            fabric.enable_queue_trace();
        }
        let socks = cfg
            .ifaces
            .iter()
            .map(|i| open_socket(i, cfg.rcvbuf))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Forwarder { fabric, socks, cfg })
    }

    /// Forwards from `t0_ns` (`CLOCK_MONOTONIC`, the run's time zero) for the configured
    /// duration, or until SIGTERM/SIGINT when asked to stop on them.
    pub fn run(&mut self, t0_ns: u64) -> DriverStats {
        // SAFETY: prctl and sigaction with valid arguments
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
            if self.cfg.stop_on_signals {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as usize;
                libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
                libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
            }
        }
        STOP.store(false, Ordering::Relaxed);
        let mut realtime = false;
        if self.cfg.realtime {
            let p = libc::sched_param {
                sched_priority: self.cfg.realtime_priority,
            };
            // SAFETY: valid sched_param; this thread only
            realtime = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } == 0;
        }
        let (u0, s0) = cpu_seconds();
        let wall0 = monotonic_ns();
        let end = SimTime(self.cfg.duration_ns);
        let clock = || SimTime(monotonic_ns().saturating_sub(t0_ns));
        let mut pfds: Vec<libc::pollfd> = self
            .socks
            .iter()
            .map(|s| libc::pollfd {
                fd: s.fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let mut buf = vec![0u8; 65536];
        let (mut turns, mut sleeps) = (0u64, 0u64);
        // wait for the start instant
        loop {
            let now = monotonic_ns();
            if now >= t0_ns || STOP.load(Ordering::Relaxed) {
                break;
            }
            let d = t0_ns - now;
            let ts = libc::timespec {
                tv_sec: (d / 1_000_000_000) as i64,
                tv_nsec: (d % 1_000_000_000) as i64,
            };
            // SAFETY: valid timespec
            unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &ts, std::ptr::null_mut()) };
        }
        // the wall clock of the run's time zero, for the captures' time stamps
        let mut rt = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid timespec pointer
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut rt) };
        let realtime_now = rt.tv_sec as u64 * 1_000_000_000 + rt.tv_nsec as u64;
        self.fabric
            .set_wall_epoch((realtime_now + t0_ns).saturating_sub(monotonic_ns()));
        let Forwarder { fabric, socks, cfg } = self;
        let fds: Vec<libc::c_int> = socks.iter().map(|s| s.fd).collect();
        let mut send_errors = vec![0u64; socks.len()];
        let mut emit = |h: usize, f: &[u8]| {
            // SAFETY: sending our buffer on our socket
            let r =
                unsafe { libc::send(fds[h], f.as_ptr() as *const _, f.len(), libc::MSG_DONTWAIT) };
            if r < 0 {
                send_errors[h] += 1;
            }
        };
        while !STOP.load(Ordering::Relaxed) {
            turns += 1;
            let now = clock();
            if now >= end {
                break;
            }
            fabric.advance(now, &mut emit);
            let mut got = false;
            for (h, s) in socks.iter().enumerate() {
                for _ in 0..32 {
                    // SAFETY: our buffer, our socket
                    let n = unsafe {
                        libc::recv(
                            s.fd,
                            buf.as_mut_ptr() as *mut _,
                            buf.len(),
                            libc::MSG_DONTWAIT,
                        )
                    };
                    if n <= 0 {
                        break;
                    }
                    got = true;
                    let t = clock();
                    fabric.advance(t, &mut emit);
                    fabric.ingress(t, h, &buf[..n as usize]);
                }
            }
            fabric.advance(clock(), &mut emit);
            if got {
                continue;
            }
            let now = clock();
            let deadline = fabric.next_deadline().unwrap_or(end).min(end);
            if deadline <= now {
                continue;
            }
            let wait = deadline.0 - now.0;
            if wait <= cfg.spin_ns {
                std::hint::spin_loop();
                continue;
            }
            let wait = (wait - cfg.spin_ns).min(100_000_000);
            let ts = libc::timespec {
                tv_sec: (wait / 1_000_000_000) as i64,
                tv_nsec: (wait % 1_000_000_000) as i64,
            };
            sleeps += 1;
            // SAFETY: pfds is a valid array of pollfd
            unsafe {
                libc::ppoll(
                    pfds.as_mut_ptr(),
                    pfds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
        }
        let stopped_by_signal = STOP.load(Ordering::Relaxed);
        let wall1 = monotonic_ns();
        let (u1, s1) = cpu_seconds();
        for (s, e) in socks.iter_mut().zip(&send_errors) {
            kernel_stats(s);
            s.stats.send_errors = *e;
        }
        DriverStats {
            wall_s: (wall1 - wall0) as f64 * 1e-9,
            cpu_user_s: u1 - u0,
            cpu_sys_s: s1 - s0,
            loop_turns: turns,
            sleeps,
            sockets: socks.iter().map(|s| s.stats.clone()).collect(),
            stopped_by_signal,
            realtime,
        }
    }

    /// The run's results as JSON: the report's queue, colour and conditioner rows, the
    /// network's per-flow counters, and the forwarder's own measurements.
    /// Flushes the captures and writes the queue trace first (their outcome is in the JSON:
    /// `captures`, `queue_trace`).
    pub fn results(&mut self, stats: &DriverStats, end_ns: u64) -> serde_json::Value {
        let captures: Vec<serde_json::Value> = self
            .fabric
            .finish_captures()
            .into_iter()
            .map(|(port, path, frames, error)| serde_json::json!({"port": port, "path": path, "frames": frames, "error": error}))
            .collect();
        let trace = self.cfg.queue_trace.as_ref().map(|path| {
            match self.fabric.write_queue_trace(std::path::Path::new(path)) {
                Ok(rows) => serde_json::json!({"path": path, "rows": rows, "error": null}),
                Err(e) => {
                    serde_json::json!({"path": path, "rows": 0, "error": format!("{path}: {e}")})
                }
            }
        });
        let mut v = report_json(&mut self.fabric, Some(stats), end_ns);
        v["captures"] = serde_json::Value::Array(captures);
        v["queue_trace"] = trace.unwrap_or(serde_json::Value::Null);
        v
    }
}

/// The fabric's counters as JSON (also used by the tests with made-up time).
pub fn report_json(
    fabric: &mut Fabric,
    stats: Option<&DriverStats>,
    end_ns: u64,
) -> serde_json::Value {
    let end = SimTime(end_ns);
    let warmup = fabric.spec().warmup;
    let span = end.saturating_since(SimTime::ZERO + warmup).as_secs_f64();
    let (queues, colours, conditioners) = fabric.rows(end, span);
    let n = fabric.spec().flows.len();
    let flows: Vec<serde_json::Value> = fabric
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let contract = if i < n { fabric.contract(i, span) } else { None };
            serde_json::json!({
                "name": if i < n { fabric.spec().flows[i].name.clone() } else { "other".to_string() },
                "packets_sent": f.packets_sent,
                "bytes_sent": f.bytes_sent,
                "packets_delivered": f.packets_delivered,
                "bytes_delivered": f.bytes_delivered,
                "packets_dropped": f.packets_dropped,
                "packets_in_flight": f.packets_sent - f.packets_delivered - f.packets_dropped,
                "throughput_kbps": if span > 0.0 { f.bytes_measured as f64 * 8.0 / span / 1e3 } else { 0.0 },
                "first_delivery_s": f.first_delivery().map(|t| t.as_secs_f64()),
                "last_delivery_s": f.last_delivery().map(|t| t.as_secs_f64()),
                "mean_delay_s": (f.packets_delivered > 0).then(|| f.delay_sum_ns as f64 * 1e-9 / f.packets_delivered as f64),
                "rev_sent": f.rev_sent,
                "rev_delivered": f.rev_delivered,
                "rev_dropped": f.rev_dropped,
                "contract_kbps": contract.map(|c| c.0),
                "conformant_kbps": contract.map(|c| c.1),
            })
        })
        .collect();
    let (sent, delivered, dropped, inside) = fabric.totals();
    let lat = &fabric.lateness;
    let q = |x: f64| lat.quantile_us(x);
    serde_json::json!({
        "queues": queues,
        "colours": colours,
        "conditioners": conditioners,
        "flows": flows,
        "other_drops": fabric.other_drops(),
        "totals": {"sent": sent, "delivered": delivered, "dropped": dropped, "in_flight": inside,
                   "holds": sent == delivered + dropped + inside},
        // the instant the run ended (its duration, or when it was stopped), s since time zero
        "end_s": end_ns as f64 * 1e-9,
        "frames": fabric.counters,
        "lateness_us": {"count": lat.count, "p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "p999": q(0.999),
                        "max": lat.max_ns as f64 / 1e3,
                        "mean": if lat.count > 0 { lat.sum_ns as f64 / lat.count as f64 / 1e3 } else { 0.0 }},
        "driver": stats,
    })
}
