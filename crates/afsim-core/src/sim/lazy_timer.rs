//! A lazily re-armed timer kept outside its owner (issue 28; docs/performance.md, "Tenth
//! round"): a TCP sender's retransmission timer.
//!
//! The sender re-arms its timer lazily (`transport::tcp::sender`'s header): restarting it to a
//! later instant only moves the deadline, and the pending engine event, when it fires before
//! the deadline, schedules itself again at the deadline. Such an early event, or one whose
//! token is no longer the timer's (a timer stopped or armed anew since), changes nothing of the
//! sender; the sender's hook answers it from this record before it reads anything of its own
//! (`Sender::on_timer`), so at thousands of flows the sender's state, out of the caches by
//! then, is not loaded for it. The record is the flow's (`FlowStats::retx`, in the line the
//! source's side writes on every ACK), reached by the sender through `Ctx::flow`.

use crate::sim::time::SimTime;

/// Tokens of the timer's events: 1, 2, ... below `TOKENS_END` (the owner's other timers use 0
/// and the tokens from `TOKENS_END` up: the TCP sender's `TOKEN_START`, `TOKEN_RACK` and
/// `TOKEN_PACE`).
pub const TOKENS_END: u32 = u32::MAX - 1;

/// A lazily re-armed timer: a flow's TCP retransmission timer (RFC 6298 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct LazyTimer {
    /// When the timer expires (meaningful while armed).
    pub deadline: SimTime,
    /// When the pending engine event with `token` fires: at or before `deadline`.
    pub event_at: SimTime,
    /// The token of the timer's pending event, `1..TOKENS_END`; 0 when the timer is stopped.
    pub token: u32,
    /// The world may answer the owner's early and stale events itself (a TCP sender: when it
    /// records no trace, which takes a point at every event of the sender's).
    pub lazy: bool,
}

const _: () = assert!(std::mem::size_of::<LazyTimer>() == 24);

/// What becomes of a timer event (`LazyTimer::on_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Early {
    /// Nothing: the event's token is not the timer's (the sender would ignore it).
    Stale,
    /// Schedule the event again at the deadline (returned), which is later than now.
    Reschedule(SimTime),
    /// The sender's own hook: the timer expires, or the event is not one this record answers.
    Call,
}

impl LazyTimer {
    /// Whether the timer is stopped.
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.token == 0
    }

    /// When the timer expires, if it runs.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        (!self.is_idle()).then_some(self.deadline)
    }

    /// Stops the timer (its pending event, if any, becomes stale).
    #[inline(always)]
    pub fn stop(&mut self) {
        self.token = 0;
    }

    /// Whether `token` is one of this timer's (any instance's).
    #[inline(always)]
    pub const fn is_retx_token(token: u32) -> bool {
        token.wrapping_sub(1) < TOKENS_END - 1
    }

    /// The owner's timer event with `token` fires `now`: what the owner's hook would do with it
    /// when that changes nothing but this record (`fire`'s `Stale` and `Reschedule`), else
    /// `Call`: for the world, before it calls the hook (`tcp::sender::Sender::on_timer`).
    #[inline(always)]
    pub fn on_event(&mut self, token: u32, now: SimTime) -> Early {
        if !self.lazy || !Self::is_retx_token(token) {
            Early::Call
        } else {
            self.fire(token, now)
        }
    }

    /// The timer's event with `token` fires `now`: `Stale` if it is not the pending event (the
    /// timer was stopped or armed anew since); `Reschedule` at the deadline if that is later
    /// (the new event's time recorded here); else `Call`: the timer expires. The one rule,
    /// whether `on_event` answers the event or the owner's hook does.
    #[inline(always)]
    pub fn fire(&mut self, token: u32, now: SimTime) -> Early {
        if self.is_idle() || token != self.token {
            Early::Stale
        } else if self.deadline > now {
            self.event_at = self.deadline;
            Early::Reschedule(self.deadline)
        } else {
            Early::Call
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed(deadline: u64, token: u32, lazy: bool) -> LazyTimer {
        LazyTimer {
            deadline: SimTime(deadline),
            event_at: SimTime(10),
            token,
            lazy,
        }
    }

    #[test]
    fn the_timer_s_tokens_are_those_below_the_other_timers() {
        assert!(!LazyTimer::is_retx_token(0));
        assert!(LazyTimer::is_retx_token(1));
        assert!(LazyTimer::is_retx_token(TOKENS_END - 1));
        assert!(!LazyTimer::is_retx_token(TOKENS_END));
        assert!(!LazyTimer::is_retx_token(u32::MAX));
    }

    #[test]
    fn an_early_event_is_rescheduled_at_the_deadline_and_noted() {
        let mut t = armed(50, 3, true);
        assert_eq!(t.on_event(3, SimTime(10)), Early::Reschedule(SimTime(50)));
        assert_eq!(t.event_at, SimTime(50));
        assert_eq!(t.deadline(), Some(SimTime(50)));
        // at the deadline the sender's hook runs (the timeout)
        assert_eq!(t.on_event(3, SimTime(50)), Early::Call);
    }

    #[test]
    fn an_event_of_an_older_timer_or_a_stopped_one_is_stale() {
        let mut t = armed(50, 3, true);
        assert_eq!(t.on_event(2, SimTime(10)), Early::Stale);
        t.stop();
        assert!(t.is_idle());
        assert_eq!(t.deadline(), None);
        assert_eq!(t.on_event(3, SimTime(10)), Early::Stale);
    }

    #[test]
    fn the_hook_s_rule_is_the_same_for_a_traced_timer() {
        // `fire`, which the sender's hook applies, answers as `on_event` would, `lazy` or not
        for lazy in [true, false] {
            let mut t = armed(50, 3, lazy);
            assert_eq!(t.fire(2, SimTime(10)), Early::Stale);
            assert_eq!(t.fire(3, SimTime(10)), Early::Reschedule(SimTime(50)));
            assert_eq!(t.event_at, SimTime(50));
            assert_eq!(t.fire(3, SimTime(50)), Early::Call);
            t.stop();
            assert_eq!(t.fire(3, SimTime(60)), Early::Stale);
        }
    }

    #[test]
    fn other_timers_and_traced_senders_go_to_the_sender() {
        let mut t = armed(50, 3, true);
        for token in [0, TOKENS_END, u32::MAX] {
            assert_eq!(t.on_event(token, SimTime(10)), Early::Call);
        }
        let mut traced = armed(50, 3, false);
        assert_eq!(traced.on_event(3, SimTime(10)), Early::Call);
        assert_eq!(traced.on_event(2, SimTime(10)), Early::Call);
        assert_eq!(traced.event_at, SimTime(10), "untouched");
        // a record no owner wrote (another agent kind's flow) answers nothing
        assert_eq!(LazyTimer::default().on_event(1, SimTime(0)), Early::Call);
    }
}
