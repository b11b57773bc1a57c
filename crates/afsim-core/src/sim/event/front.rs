//! The event queue's front array (issue 25): its insert, eviction and refill (the module
//! document of `sim::event` says how it fits the wheel and why the order stays exact).

use super::{time_of, Entry, Event, EventQueue, FRONT, NONE};

/// An insert into the front array moves the entries it passes `GROUP` at a time while it can
/// (one test of the group's latest entry, then one fixed-size move), then one at a time.
pub(super) const GROUP: usize = 4;
/// Sentinel entries below the front array (time `u64::MAX`: later than any insert), so that
/// a group's test may read below its earliest entry.
pub(super) const PAD: usize = GROUP - 1;

impl EventQueue {
    /// Inserts a new event (time `at`, key `key`) into the front array, whose latest entry is
    /// later; if that makes `FRONT + 1` entries, the latest goes to the wheel.
    #[inline(always)]
    pub(super) fn insert_front(&mut self, at: u64, key: u128, event: Event) {
        // shift the entries earlier than the new one (those at or before `at`: their sequence
        // numbers are smaller) one place up; entry 0 is later, so the walk stops at 1. First
        // `GROUP` at a time: entry `j - GROUP` at or before `at` (the array is in decreasing
        // order) says the `GROUP` entries from it up to `j - 1` are; it is at least entry 0
        // or a sentinel below it (later than `at`) when `j <= GROUP`, so `j` stays at least 1.
        let mut j = self.front_len;
        loop {
            // (entry `j - GROUP` is `front[PAD + j - GROUP]`, `front[j - 1]`, j >= 1)
            debug_assert!((1..=FRONT).contains(&j));
            // SAFETY: j - 1 < PAD + FRONT + 1 (above)
            let g = unsafe { self.front.get_unchecked(j - 1) };
            if time_of(g.key) > at {
                break;
            }
            // SAFETY: the entries `front[j - 1..j - 1 + GROUP]` and `front[j..j + GROUP]` are
            // within the array: j + GROUP <= FRONT + GROUP = PAD + FRONT + 1 (above); a
            // move of overlapping ranges (`ptr::copy`, as memmove)
            unsafe {
                let base = self.front.as_mut_ptr();
                std::ptr::copy(base.add(j - 1), base.add(j), GROUP);
            }
            j -= GROUP;
        }
        while time_of(self.front_entry(j - 1).key) <= at {
            *self.front_entry_mut(j) = *self.front_entry(j - 1);
            j -= 1;
        }
        *self.front_entry_mut(j) = Entry { key, event };
        self.front_len += 1;
        if self.front_len > FRONT {
            self.evict_front();
        }
    }

    /// The front array holds `FRONT + 1` events: its latest goes to the wheel, where it is
    /// the earliest event.
    #[cold]
    #[inline(never)]
    fn evict_front(&mut self) {
        let e = self.front[PAD];
        self.front.copy_within(PAD + 1..=PAD + FRONT, PAD);
        self.front_len = FRONT;
        self.schedule_wheel(e.key, e.event);
    }

    /// Moves up to `FRONT` of the wheel's earliest events into the (empty) front array, if the
    /// earliest is before `end` (`None`: whatever its time); returns whether it moved any. The
    /// queue is left as it was otherwise (the heap's events not taken in for an end before
    /// them).
    #[inline(never)]
    pub(super) fn refill(&mut self, end: Option<u64>) -> bool {
        debug_assert_eq!(self.front_len, 0);
        let first = if self.next != NONE {
            let head = self.slot(self.next as usize & self.mask as usize)[0];
            time_of(self.node(head).key)
        } else {
            match self.far.peek() {
                Some(e) => time_of(e.key),
                None => return false,
            }
        };
        if end.is_some_and(|end| first >= end) {
            return false;
        }
        let n = self.len.min(FRONT);
        for k in (0..n).rev() {
            if self.next == NONE {
                self.jump_to_far();
            }
            let slot = self.next;
            let i = slot as usize & self.mask as usize;
            let [head, tail] = *self.slot(i);
            let node = *self.node(head);
            self.take_head(slot, i, head, tail, node);
            self.front[PAD + k] = Entry {
                key: node.key,
                event: node.event,
            };
        }
        self.front_len = n;
        true
    }

    // The front array: an index below `front_len + 1 <= FRONT + 1`, the array's length
    // (`insert_front` reads below `front_len` and writes at most at `front_len`, which is at
    // most `FRONT` before it; `evict_front` brings it back to `FRONT`).

    #[inline(always)]
    pub(super) fn front_entry(&self, j: usize) -> &Entry {
        debug_assert!(j <= self.front_len && self.front_len <= FRONT);
        // SAFETY: PAD + j <= PAD + front_len <= PAD + FRONT < front.len() (above).
        unsafe { self.front.get_unchecked(PAD + j) }
    }

    #[inline(always)]
    pub(super) fn front_entry_mut(&mut self, j: usize) -> &mut Entry {
        debug_assert!(j <= self.front_len && self.front_len <= FRONT);
        // SAFETY: as `front_entry`.
        unsafe { self.front.get_unchecked_mut(PAD + j) }
    }
}
