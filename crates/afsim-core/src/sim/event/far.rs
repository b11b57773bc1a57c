//! The wheel's far level (issue 28): the events beyond the ring, in coarse buckets of
//! unsorted lists, and beyond those in a binary heap.
//!
//! A bucket is `2^bshift` slots wide, a `RING_BUCKETS`-th of the ring (`bshift` =
//! log2(ring size) - `RING_BUCKETS_LOG2`); bucket number `c` holds the events of slot numbers
//! `c << bshift` to `((c + 1) << bshift) - 1`. The ring holds the slot numbers from `base` up
//! to `ring_end` = `base + span`, at most the start of the bucket `RING_BUCKETS - 1` after
//! `base`'s (a refill moves `base` and leaves `ring_end`; it moves up when an event lands
//! between it and that bound, or at a migration): every ring event is earlier than every far
//! one, and `ring_end - base` is at most 7/8 of the ring (so no two slot numbers in the ring
//! share a ring slot). Of the events at or beyond
//! `ring_end`, those in the next `BUCKETS` buckets are pushed onto their bucket's list (a node
//! of the pool, linked at the head: a few stores, where a heap push sifted up and its pop
//! sifted down about twelve levels at a few thousand pending timers), later ones onto the
//! heap. When `base` moves so that `ring_end` would pass a bucket, the bucket's events are
//! linked into their slots: those slots lie beyond every ring event and few share one, so
//! nearly every link is into an empty slot or an append (the others go in by the ring's rule
//! for out-of-order schedules); the heap's events before `ring_end` move as before.
//!
//! This is the hierarchical timing wheel's overflow level (G. Varghese and T. Lauck, "Hashed
//! and hierarchical timing wheels", SOSP 1987, scheme 7: a coarser wheel whose slots are
//! emptied into the finer one when time reaches them), its buckets filled unsorted as the
//! ladder queue's (W. T. Tang, R. S. M. Goh, I. L.-J. Thng, ACM TOMACS 15(3), 2005); one
//! coarse level, and the heap beyond it.
//!
//! *Why the order stays exact*: a far event enters the ring before `base` can reach its slot
//! (`migrate_at`, the first `base` whose `ring_end` passes the earliest far event's bucket,
//! is tested before each slot a refill takes, as the heap's migration was), and it is then
//! later than every ring event, so the ring's order is the keys' order as before. The
//! differential tests against a binary heap cover it (`far_buckets_and_the_heap_stay_exact`).

use super::{time_of, Entry, Event, EventQueue, NIL, NONE};

/// Buckets a ring holds (log2): the ring holds the events of 7 to 8 of them, `ring_end - base`
/// between 3/4 and 7/8 of its slots.
pub(super) const RING_BUCKETS_LOG2: u32 = 3;
const RING_BUCKETS: u64 = 1 << RING_BUCKETS_LOG2;
/// Buckets beyond the ring (a power of two): 32 rings' worth.
pub(super) const BUCKETS: usize = 256;

impl EventQueue {
    /// Moves `base`, and `ring_end` with it to the start of the bucket `RING_BUCKETS - 1` after
    /// `base`'s.
    #[inline(always)]
    pub(super) fn set_base(&mut self, base: u64) {
        self.base = base;
        self.ring_end = ((base >> self.bshift) + RING_BUCKETS - 1) << self.bshift;
        self.span = self.ring_end - base;
    }

    /// Moves `base` forward, before `ring_end`, leaving `ring_end` where it is (a refill's
    /// word: a sub and a store, where `set_base` takes three more). `ring_end` may then lag
    /// behind `base`'s: the ring holds fewer slot numbers than it could, which is exact (every
    /// far event is still at or beyond it); `schedule_outside` and `migrate` move it up.
    #[inline(always)]
    pub(super) fn advance_base(&mut self, base: u64) {
        debug_assert!(base < self.ring_end);
        self.base = base;
        self.span = self.ring_end - base;
    }

    /// Whether `ring_end` lags behind the one for `base` and `slot` is before the latter:
    /// then `ring_end` moves up and `slot` goes into the ring (no far event is before it:
    /// `base` is before `migrate_at`, checked at each slot a refill takes).
    #[inline(always)]
    pub(super) fn ring_end_moves_past(&mut self, slot: u64) -> bool {
        let end = ((self.base >> self.bshift) + RING_BUCKETS - 1) << self.bshift;
        if slot < end {
            debug_assert!(self.base < self.migrate_at);
            self.set_base(self.base);
            true
        } else {
            false
        }
    }

    /// Files an event (not before `base`) whose slot number is at or beyond `ring_end`'s bound
    /// for `base` (the start of the bucket `RING_BUCKETS - 1` after `base`'s) into its bucket,
    /// if it is one of the next `BUCKETS`; returns false (and files nothing) otherwise.
    #[inline(always)]
    pub(super) fn push_bucket(&mut self, slot: u64, key: u128, event: Event) -> bool {
        let c = slot >> self.bshift;
        let first = (self.base >> self.bshift) + RING_BUCKETS - 1;
        // (c < first, before the bound, wraps to a large difference)
        if c.wrapping_sub(first) >= BUCKETS as u64 {
            return false;
        }
        debug_assert!(slot >= self.ring_end);
        let n = self.alloc(key, event);
        let b = c as usize & (BUCKETS - 1);
        self.node_mut(n).next = self.buckets[b];
        self.buckets[b] = n;
        self.bucket_bits[b >> 6] |= 1 << (b & 63);
        if c < self.bucket_min {
            self.bucket_min = c;
            self.update_migrate_at();
        }
        true
    }

    /// `schedule_outside` for what `push_bucket` does not take: an event before `ring_end`'s
    /// bound into the ring (`ring_end` lagged behind it), one beyond the buckets into the heap.
    #[cold]
    #[inline(never)]
    pub(super) fn schedule_rest(&mut self, slot: u64, key: u128, event: Event) {
        if self.ring_end_moves_past(slot) {
            self.insert_ring(slot, key, event);
        } else {
            debug_assert!(slot >= self.ring_end);
            self.far.push(Entry { key, event });
            if slot < self.far_slot {
                self.far_slot = slot;
                self.update_migrate_at();
            }
        }
    }

    /// `migrate_at`: the first `base` at which a far event's slot is before `ring_end` (`NONE`
    /// with no far event).
    fn update_migrate_at(&mut self) {
        let heap = if self.far_slot == NONE {
            NONE
        } else {
            self.far_slot >> self.bshift
        };
        let c = self.bucket_min.min(heap);
        // (c >= first bucket beyond the ring >= RING_BUCKETS - 1: no underflow)
        self.migrate_at = if c == NONE {
            NONE
        } else {
            (c + 2 - RING_BUCKETS) << self.bshift
        };
    }

    /// `base` has moved (to `migrate_at` or beyond): sets `ring_end` and moves the far events
    /// before it into the ring, the buckets' sorted, the heap's in key order.
    #[cold]
    #[inline(never)]
    pub(super) fn migrate(&mut self) {
        self.set_base(self.base);
        let ring_end = self.ring_end;
        let limit = ring_end >> self.bshift;
        while self.bucket_min < limit {
            let c = self.bucket_min;
            self.migrate_bucket(c);
            self.bucket_min = self.first_bucket_from(c + 1);
        }
        while let Some(e) = self.far.peek() {
            let slot = time_of(e.key) >> self.shift;
            if slot >= ring_end {
                self.far_slot = slot;
                self.update_migrate_at();
                return;
            }
            let e = self.far.pop().expect("peeked");
            self.insert_ring(slot, e.key, e.event);
        }
        self.far_slot = NONE;
        self.update_migrate_at();
    }

    /// Links bucket `c`'s events into the ring and empties the bucket. Their slots are beyond
    /// every ring event's and few share one, so nearly every link is into an empty slot or an
    /// append; the others go in by the ring's rule (a short walk, else the slot is sorted when
    /// it becomes the first), exact whatever their order.
    fn migrate_bucket(&mut self, c: u64) {
        let b = c as usize & (BUCKETS - 1);
        let mut n = std::mem::replace(&mut self.buckets[b], NIL);
        self.bucket_bits[b >> 6] &= !(1 << (b & 63));
        while n != NIL {
            let node = self.node_mut(n);
            let (key, next) = (node.key, node.next);
            node.next = NIL;
            self.link(time_of(key) >> self.shift, n, key);
            n = next;
        }
    }

    /// The first non-empty bucket at or after bucket number `c`, `NONE` if none (the non-empty
    /// buckets lie within `BUCKETS` of `c`, so their indices are distinct).
    fn first_bucket_from(&self, c: u64) -> u64 {
        let i = c as usize & (BUCKETS - 1);
        for k in 0..=BUCKETS / 64 {
            let w = ((i >> 6) + k) & (BUCKETS / 64 - 1);
            let mut bits = self.bucket_bits[w];
            if k == 0 {
                bits &= !0u64 << (i & 63);
            } else if k == BUCKETS / 64 {
                bits &= !(!0u64 << (i & 63));
            }
            if bits != 0 {
                let j = (w << 6) | bits.trailing_zeros() as usize;
                return c + (j.wrapping_sub(i) & (BUCKETS - 1)) as u64;
            }
        }
        NONE
    }

    /// The earliest far event's key (`None` if there is none): the heap's top or the least key
    /// of the first non-empty bucket (a walk of its list; only when the ring is empty).
    pub(super) fn far_first(&self) -> Option<u128> {
        let mut first = self.far.peek().map(|e| e.key);
        if self.bucket_min != NONE {
            let mut n = self.buckets[self.bucket_min as usize & (BUCKETS - 1)];
            while n != NIL {
                let node = self.node(n);
                first = Some(first.map_or(node.key, |f| f.min(node.key)));
                n = node.next;
            }
        }
        first
    }

    /// The ring is empty: moves the horizon to the earliest far event. The idle gap is left
    /// out of the spacing measurement (it says nothing about how close events are).
    #[cold]
    #[inline(never)]
    pub(super) fn jump_to_far(&mut self) {
        let t = time_of(self.far_first().expect("far events"));
        self.window_start = self.window_start.saturating_add(t.saturating_sub(self.now));
        self.base = t >> self.shift;
        self.migrate();
    }

    /// Takes every far event out (for a rebuild), in key order, after those in `scratch`.
    pub(super) fn drain_far(&mut self) {
        let start = self.scratch.len();
        for b in 0..BUCKETS {
            let mut n = std::mem::replace(&mut self.buckets[b], NIL);
            while n != NIL {
                let node = *self.node(n);
                self.scratch.push(Entry {
                    key: node.key,
                    event: node.event,
                });
                n = node.next;
            }
        }
        self.bucket_bits = [0; BUCKETS / 64];
        self.bucket_min = NONE;
        let mut far = std::mem::take(&mut self.far).into_vec();
        self.scratch.extend_from_slice(&far);
        far.clear();
        self.far = std::collections::BinaryHeap::from(far);
        self.far_slot = NONE;
        self.migrate_at = NONE;
        self.steps_sorted += (self.scratch.len() - start) as u64;
        self.scratch[start..].sort_unstable_by_key(|e| e.key);
    }
}
