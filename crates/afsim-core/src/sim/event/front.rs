//! The event queue's front array (issue 25): its insert, eviction and refill (the module
//! document of `sim::event` says how it fits the wheel and why the order stays exact).

use super::{time_of, Entry, Event, EventQueue, Node, FRONT, NIL, NONE, W_MASK};

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
            match self.far_first() {
                Some(key) => time_of(key),
                None => return false,
            }
        };
        if end.is_some_and(|end| first >= end) {
            return false;
        }
        let n = self.len.min(FRONT);
        let mut k = n;
        while k != 0 {
            if self.next == NONE {
                self.jump_to_far();
            }
            // (as many as end the measurement window at most: `retune` sees the state a pop
            // at a time would have left)
            let take = k.min(self.to_retune as usize);
            let taken = self.take_word(k, take);
            k -= taken;
            self.to_retune -= taken as u64;
            if self.to_retune == 0 {
                self.retune();
            }
        }
        self.front_len = n;
        true
    }

    /// Moves up to `take` of the wheel's earliest events into the front array, below entry
    /// `top`, from the first non-empty slot and the later ones of its 64-slot bitmap word;
    /// returns how many. The wheel is left as after as many pops one by one (`base`, `now`,
    /// `next`, the bitmaps, the heap's events migrated, unsorted slots sorted before they are
    /// read), but a slot's list goes to the free list in one splice, the word's bits are
    /// cleared once, and the set bits are walked in a register: no search for the next
    /// non-empty slot per event.
    #[inline(always)]
    fn take_word(&mut self, top: usize, take: usize) -> usize {
        let first = self.next;
        let i0 = first as usize & self.mask as usize;
        let (w, p0) = ((i0 >> 6) & W_MASK, i0 & 63);
        // the word's non-empty slots from the first on: slot numbers `first + (pos - p0)`
        // (within the horizon, so no wrap in the word)
        let mut bits = self.bits0[w] & (!0u64 << p0);
        // `bits` when the word's bits were last cleared: the slots emptied since are `from &
        // !bits`
        let mut from = bits;
        // (a slot's pop moves `base` to it, and from `migrate_at` on the far events before the
        // new `ring_end` come in)
        let mut migrate_from = self.migrate_at;
        let (mut k, mut taken) = (top, 0);
        loop {
            let pos = bits.trailing_zeros() as usize;
            let slot = first + (pos - p0) as u64;
            let j = (i0 & !63) | pos;
            if slot >= migrate_from {
                // They may land in this word, in a slot emptied before `pos` (its bit is
                // cleared first) or after it; they are later than every event of the old
                // horizon, so than the slots left in `bits`, and the search after the word
                // finds them.
                self.clear_word(w, from & !bits);
                from = bits;
                self.base = slot;
                self.migrate();
                migrate_from = self.migrate_at;
            }
            if self.n_dirty != 0 {
                self.sort_if_dirty(j);
            }
            let [head, tail] = *self.slot(j);
            let mut last = head;
            loop {
                k -= 1;
                self.copy_to_front(last, k);
                taken += 1;
                if taken == take || last == tail {
                    break;
                }
                last = self.node(last).next;
            }
            let Node { key, next, .. } = *self.node(last);
            self.node_mut(last).next = self.free;
            self.free = head;
            if last != tail {
                // the slot keeps its later events and stays the first non-empty one
                self.slot_mut(j)[0] = next;
                self.advance_base(slot);
                self.next = slot;
                self.now = time_of(key);
                self.clear_word(w, from & !bits);
                break;
            }
            *self.slot_mut(j) = [NIL, NIL];
            bits &= bits - 1;
            if taken == take || bits == 0 {
                self.advance_base(slot);
                self.now = time_of(key);
                self.clear_word(w, from & !bits);
                self.next = self.find_next(j);
                if self.n_dirty != 0 && self.next != NONE {
                    self.sort_if_dirty(self.next as usize & self.mask as usize);
                }
                break;
            }
        }
        self.len -= taken;
        taken
    }

    /// Clears the bits `consumed` of bitmap word `w` (slots emptied), and the word's bit in
    /// the upper levels if it is then 0.
    #[inline(always)]
    fn clear_word(&mut self, w: usize, consumed: u64) {
        let b0 = self.bits0[w] & !consumed;
        self.bits0[w] = b0;
        if b0 == 0 {
            let v = w >> 6;
            let b1 = &mut self.bits1[v];
            *b1 &= !(1 << (w & 63));
            if *b1 == 0 {
                self.bits2 &= !(1 << v);
            }
        }
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

    /// Copies node `n`'s key and event into entry `k` of the array while a refill fills it
    /// (`k < FRONT`; `front_len` is 0 then): its first 32 bytes at once, two 16-byte moves
    /// where a copy field by field took about a dozen instructions.
    #[inline(always)]
    fn copy_to_front(&mut self, n: u32, k: usize) {
        debug_assert!(k < FRONT);
        let src: *const Node = self.node(n);
        // SAFETY: PAD + k < PAD + FRONT < front.len() (above), so `dst` is an entry of the
        // array; `src` is a node of the pool (`node`). Both types are `repr(C)`, 32 bytes, an
        // entry's fields at the same offsets in a node (the assertions by their definitions):
        // the copy writes the entry's key and event, and its padding with the node's `next`.
        // The two do not overlap (the array is a field, the nodes a vector's heap buffer).
        unsafe {
            let dst: *mut Entry = self.front.as_mut_ptr().add(PAD + k);
            std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), 32);
        }
    }

    #[inline(always)]
    pub(super) fn front_entry_mut(&mut self, j: usize) -> &mut Entry {
        debug_assert!(j <= self.front_len && self.front_len <= FRONT);
        // SAFETY: as `front_entry`.
        unsafe { self.front.get_unchecked_mut(PAD + j) }
    }
}
