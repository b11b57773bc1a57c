//! The CSA's side of the event loop (Giacomazzi et al.): an OUT arrival at a watched RIO
//! buffer, a controller's T2 timer, the α it spreads (`announce_alpha`, or a control packet,
//! `send_signal`).

use crate::net::packet::{proto, Packet, TransportHeader};
use crate::queue::AnyQueue;
use crate::scenario::spec::CsaScope;
use crate::sim::event::Event;
use crate::world::{World, CONTROL};

impl World<'_> {
    /// An OUT packet of `flow` reached the buffer CSA `k` watches: its controller counts it
    /// (a shared controller every OUT packet; a per-bucket one those its bucket marked).
    pub(super) fn csa_out_arrival(&mut self, k: usize, flow: usize) {
        let run = &self.csas[k];
        let ctl = match run.scope {
            CsaScope::Shared => 0,
            CsaScope::PerBucket => match self.flow_cond[flow] {
                u32::MAX => return,
                c => match run.ctl_of_cond[c as usize] {
                    u32::MAX => return,
                    t => t as usize,
                },
            },
        };
        let (congested, period) = match &self.ports[run.port as usize].queue {
            AnyQueue::Rio(q) => (q.out_congested(), q.congestion_periods()),
            _ => (false, 0),
        };
        let changed = self.csas[k].ctls[ctl]
            .csa
            .on_out_arrival(self.now, congested, period);
        self.after_csa(k, ctl, changed);
    }

    /// A CSA controller's timer (T2) fires.
    pub(super) fn csa_timer(&mut self, k: usize, ctl: usize) {
        if self.csas[k].ctls[ctl].timer_at != Some(self.now) {
            return; // superseded
        }
        self.csas[k].ctls[ctl].timer_at = None;
        let port = self.csas[k].port as usize;
        // "when T2 expires …, if the RIO buffer is not congested": the average as an arrival
        // now would find it, idle decay included
        let congested = match &self.ports[port].queue {
            AnyQueue::Rio(q) => q.out_congested_at(self.now),
            _ => false,
        };
        let changed = self.csas[k].ctls[ctl].csa.on_t2_expiry(self.now, congested);
        self.after_csa(k, ctl, changed);
    }

    /// After a controller call: spread a new α to the buckets it sets, and keep one timer event
    /// at its deadline.
    fn after_csa(&mut self, k: usize, ctl: usize, changed: Option<f64>) {
        if let Some(alpha) = changed {
            let targets = match self.csas[k].scope {
                CsaScope::Shared => 0..self.csas[k].targets.len(),
                CsaScope::PerBucket => ctl..ctl + 1,
            };
            for t in targets {
                let (c, flow) = self.csas[k].targets[t];
                if flow == u32::MAX {
                    self.announce_alpha(c as usize, k as u32, alpha);
                } else {
                    self.send_signal(k, c, flow, alpha);
                }
            }
        }
        let run = &mut self.csas[k].ctls[ctl];
        if let Some(t) = run.csa.next_deadline() {
            if run.timer_at != Some(t) {
                run.timer_at = Some(t);
                self.events.schedule(
                    t,
                    Event::CsaTimer {
                        csa: k as u32,
                        ctl: ctl as u32,
                    },
                );
            }
        }
    }

    /// Sends a control packet (ICMP-like, RFC 792) carrying α from CSA `k` to conditioner `c`.
    fn send_signal(&mut self, k: usize, c: u32, flow: u32, alpha: f64) {
        let run = &self.csas[k];
        let (node, dst) = (run.node, self.conditioners[c as usize].node);
        let id = self.pool.alloc(Packet {
            src: node,
            dst,
            protocol: proto::ICMP,
            dscp: run.signal_dscp,
            size: run.signal_bytes,
            flow,
            dst_agent: CONTROL,
            created: self.now,
            th: TransportHeader {
                src_port: k as u16,
                seq: u64::from(c),
                ack: alpha.to_bits(),
                ..Default::default()
            },
            ..Default::default()
        });
        self.generated += 1;
        let f = &mut self.flows[flow as usize];
        f.packets_sent += 1;
        f.bytes_sent += u64::from(run.signal_bytes);
        // (a rare path: observers tested at run time)
        self.forward::<true>(node, id);
    }

    /// Conditioner `c` learns α from CSA `k`; its buckets run at the smallest α announced.
    pub(in crate::world) fn announce_alpha(&mut self, c: usize, k: u32, alpha: f64) {
        let sources = &mut self.cond_alpha[c];
        match sources.iter_mut().find(|(s, _)| *s == k) {
            Some(entry) => entry.1 = alpha,
            None => sources.push((k, alpha)),
        }
        let effective = sources
            .iter()
            .map(|&(_, a)| a)
            .fold(f64::INFINITY, f64::min);
        if self.conditioners[c].set_alpha(self.now, effective) {
            self.schedule_wake(c);
        }
    }
}
