//! The event queue: a timing wheel whose slot width and size tune themselves, coarse buckets
//! and a heap for far events.
//!
//! Read this first: events scheduled for the same instant leave in the order they were
//! scheduled (the sequence number breaks ties, first-in first-out), so a run is a pure function
//! of its scenario and seed. Events are a small `Copy` enum; what they refer to (a port, an
//! agent) is an index into the world, and packets travel as pool indices, so scheduling
//! allocates nothing once the queue has grown to its working size. Cancelling is lazy: a timer
//! event carries a token its owner compares with its current one.
//!
//! # Structure
//!
//! Every event has the key `(time << 64) | seq`, one `u128`, and the queue hands events out in
//! increasing key order: the order of the binary heap on that key it replaced, exactly. The
//! keys live in three places:
//!
//! * a *ring* of `R` slots (a power of two), each `2^shift` ns wide. An event's slot number is
//!   `time >> shift`; the ring holds the events whose slot number is in `[base, ring_end)`,
//!   within the *horizon* `[base, base + R)`, where `base` is the slot number of the last
//!   event popped and `ring_end` a bucket boundary (below) 3/4 to 7/8 of `R` ahead. Ring slot
//!   `slot % R` holds that slot's events as a singly linked list with head and tail indices;
//!   nodes live in a pool with a free list. The first non-empty slot's list is always sorted
//!   by key; a later slot's list is sorted unless its bit in `dirty` is set (below). A three-level bitmap of non-empty
//!   slots (a bit per slot, per 64 slots, per 4096 slots) finds the next non-empty slot with at
//!   most three `trailing_zeros`; `next` caches the first one, so `peek_time` is two loads;
//! * the *far level* (`far.rs`, issue 28) for the events at or beyond `ring_end` (on the
//!   dumbbells: the retransmission timers): `BUCKETS` coarse buckets, each an eighth of the ring
//!   wide, of unsorted lists of pool nodes, and a `BinaryHeap` (`far`) beyond them. Whenever
//!   `base` advances so that `ring_end` would pass a bucket or the heap's earliest event, they
//!   move into the ring (`migrate`), so every far event is later than every ring event.
//!
//! This is a timing wheel (G. Varghese and T. Lauck, "Hashed and hierarchical timing wheels",
//! SOSP 1987: scheme 4, timers beyond the wheel's range waiting in an overflow structure, here
//! a heap; each slot's list sorted as in their scheme 5). Equivalently, a calendar queue
//! (R. Brown, "Calendar queues: a fast O(1) priority queue implementation for the simulation
//! event set problem", CACM 31(10), 1988; ns-2's scheduler) holding a single "year", with later
//! years in a heap instead of in the buckets, and a bitmap instead of Brown's bucket-by-bucket
//! scan. As in Brown's queue, the bucket width follows the measured event spacing and the
//! number of buckets follows the number of events.
//!
//! *Crowded slots, and bursts.* An out-of-order schedule into a sorted slot that is not the
//! first walks at most `SHORT_WALK` list steps from its head; beyond that (a crowded slot) it
//! is appended at the tail and the slot marked unsorted, and the slot is sorted once, when it
//! becomes the first non-empty slot. This is the ladder queue's rule (W. T. Tang, R. S. M. Goh,
//! I. L.-J. Thng, "Ladder queue: an O(1) priority queue structure for large-scale discrete
//! event simulation", ACM TOMACS 15(3), 2005: events go unsorted into buckets, a bucket is
//! sorted when dequeuing reaches it), applied to the slots of the wheel: a crowded slot costs
//! one sort, O(log k) an event, instead of a walk of O(k) steps at each schedule, which made a
//! burst of schedules before the first pop (a million flows starting) quadratic. Only the
//! first slot is kept sorted at every schedule (it is the one `pop` and `peek_time` read); if
//! schedules walk it too long (`WALK_BUDGET_PER_POP` × max(`WINDOW`, pending) steps), the
//! slots are narrowed 16× at once (`narrow`), in `schedule`, not at the next pop.
//!
//! *Why it is exact.* The ring's events lie in `R` consecutive slot numbers, so each ring slot
//! holds the events of one slot number only; the first non-empty one is sorted by the full key
//! (a slot is sorted before it becomes the first); slot numbers are monotone in time, so the
//! head of the first non-empty slot is the smallest key in the ring, and every far key is
//! larger still. So `pop` returns the minimum key, ties in scheduling order. Width
//! and size decide only where an event is stored, never the order events leave in; the tests
//! check the queue against a binary heap, step by step, over random schedules.
//!
//! *Why it is fast.* A `schedule` is nearly always an append at a slot's tail (its key is the
//! largest there) and a `pop` takes a slot's head: O(1), a few cache lines, where the heap did
//! O(log n) compare-and-move steps with unpredictable branches. That needs slots holding O(1)
//! events near the head whatever the link rates, delays and number of flows, so the geometry
//! adapts with no parameter. Every window of `max(WINDOW, pending)` pops the queue measures the
//! mean spacing of the events it popped (idle gaps with an empty ring left out) and picks:
//! `R` ≈ 2 to 16 × the pending count (at least `MIN_SLOTS`), and the width as the larger of
//! spacing / 2^`SPREAD_LOG2` and what makes the horizon `REACH` mean stays long (a stay, from
//! scheduling to popping, is pending × spacing by Little's law), rounded to a power of two. It
//! rebuilds (O(pending + R), so O(1) per pop of the window) when the width is off by 4× or
//! more or the size by more than the band. The first window starts at the first pop (the time
//! before it is no spacing). A rebuild takes the far events out with one sort instead of a
//! heap pop each, and re-files them. At 10⁶ pending re-armed
//! timers the ring is at its largest (`MAX_SLOTS`) with about 16 events a slot: crowded
//! slots, sorted once each. On the bench dumbbells (about 20 to 250 pending) `R` = 4096
//! and the horizon is 1024 spacings, 8 ms (tcp-dumbbell-100) to 67 ms (tcp-dumbbell-10): only
//! timers and arrivals over idle long-delay lines go to the far level, and such an event costs
//! a bucket's push and its move into the ring. No allocation in steady state: the pool, the
//! heap and the rebuild and sort scratch stop growing at the largest number of pending events.
//!
//! *The front array (issue 25).* In front of the wheel, a sorted array holds up to `FRONT`
//! (40) of the earliest events, in decreasing key order, so that a pop is its last entry and
//! nothing else: no node, slot or bitmap. When it runs empty it is refilled with the wheel's
//! `FRONT` earliest events (as many wheel pops, taken a bitmap word's slots at a time); a schedule earlier than its latest entry goes into it
//! (walking from the earliest entry up, moving the entries it passes `GROUP` (4) at a time
//! while a whole group is earlier, then one at a time; on the bench scenarios most schedules
//! fall a few events from now: a transmission time ahead), one beyond `FRONT` sending the
//! latest entry back to the wheel. Every front event is earlier than every wheel event
//! (refills take the wheel's earliest, inserts are earlier than the front's latest, an evicted
//! event is the front's latest), so the order is the heap's, exactly; the comparisons with a
//! binary heap cover it.
//!
//! `schedule` earlier than the wheel's last pop happens when a front event goes back to the
//! wheel, and in test harnesses that re-queue events; such an event is filed into the first
//! slot of the horizon (`base`), whose list is sorted, in key order: exact (`schedule_outside`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::sim::time::SimTime;

/// Everything that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of `port` finished putting its packet on the wire.
    TxDone { port: u32 },
    /// The packet at the head of `port`'s propagation line reaches the far node.
    Arrive { port: u32 },
    /// A timer set by an agent; `token` lets the agent ignore timers it has since re-armed.
    Timer { agent: u32, token: u32 },
    /// The measured interval begins (counters that need a snapshot take it).
    Warmup,
    /// Edge conditioner `cond` may release the packet it holds at the head of its FIFO.
    Wake { cond: u32 },
    /// The T2 timer of controller `ctl` of Congestion Signaling Algorithm `csa` is due.
    CsaTimer { csa: u32, ctl: u32 },
}

impl Event {
    /// The kinds' names, in declaration order: `kind` indexes it.
    pub const KINDS: [&'static str; 6] =
        ["TxDone", "Arrive", "Timer", "Warmup", "Wake", "CsaTimer"];

    /// This event's kind, as an index into `KINDS`.
    pub fn kind(&self) -> usize {
        match self {
            Event::TxDone { .. } => 0,
            Event::Arrive { .. } => 1,
            Event::Timer { .. } => 2,
            Event::Warmup => 3,
            Event::Wake { .. } => 4,
            Event::CsaTimer { .. } => 5,
        }
    }
}

/// Ring sizes: powers of two from `MIN_SLOTS` to `MAX_SLOTS` = 64³ (the three-level bitmap).
const MIN_SLOTS: u64 = 4096;
const MAX_SLOTS: u64 = 1 << 18;
/// Masks a `bits0` index.
const W_MASK: usize = (MAX_SLOTS / 64) as usize - 1;
/// Pops between two measurements of the event spacing (or as many as are pending, if more).
const WINDOW: u64 = 4096;
/// Slot width at least the mean event spacing / 2^SPREAD_LOG2 (a power of two, rounded down)…
const SPREAD_LOG2: u32 = 2;
/// …and at least what makes the horizon this many mean stays long (rounded up). (8 since the
/// far level, issue 28: 4 before; a horizon twice as long keeps more of thousands of flows'
/// timers in the ring, with fewer events a slot to walk than 16 or 32 would; chosen by the
/// instructions of the scale dumbbell at 2,000 and 10,000 flows, docs/performance.md, "Ninth
/// round (branch scale9e)"; the bench scenarios' slots are set by their spacing, unchanged.)
const REACH: u64 = 8;
/// List steps walked by out-of-order inserts into the first slot, per event pending (at least
/// per `WINDOW`), beyond which the slots are narrowed.
const WALK_BUDGET_PER_POP: u64 = 8;
/// List steps an out-of-order schedule into a sorted slot, not the first, may walk before it
/// appends instead (and the slot is sorted when reached).
const SHORT_WALK: u64 = 4;
/// Width before the first measurement: 2^16 ns = 65.5 µs (horizon 268 ms).
const INITIAL_SHIFT: u32 = 16;

/// Events held in the front array (at most; one more while an insert evicts the latest).
const FRONT: usize = 40;

const NIL: u32 = u32::MAX;
const NONE: u64 = u64::MAX;

/// (`repr(C)`, as `Node`: a node's first 32 bytes are an entry, so a refill copies them whole.)
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Entry {
    /// time in the high 64 bits, sequence number in the low 64: one integer comparison.
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the earliest key must compare greatest.
        other.key.cmp(&self.key)
    }
}

/// A ring event, and the pool index of the next one in its slot (`NIL`: none).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Node {
    key: u128,
    event: Event,
    next: u32,
}

// A node begins with an entry's fields at an entry's offsets, and both are 32 bytes (the
// entry's last 4 are padding): `front::copy_to_front` copies a node's first 32 bytes into an
// entry.
const _: () = {
    assert!(std::mem::size_of::<Entry>() == 32 && std::mem::size_of::<Node>() == 32);
    assert!(std::mem::offset_of!(Entry, key) == std::mem::offset_of!(Node, key));
    assert!(std::mem::offset_of!(Entry, event) == std::mem::offset_of!(Node, event));
};

#[inline]
fn time_of(key: u128) -> u64 {
    (key >> 64) as u64
}

/// Pending events in (time, scheduling order).
#[derive(Debug)]
pub struct EventQueue {
    /// The front array: the `front_len` earliest pending events, in decreasing key order
    /// (`front[front_len - 1]` is the earliest), every one earlier than every event of the
    /// wheel (ring and heap). Pops take its last entry; a schedule earlier than its latest entry
    /// goes into it; it is refilled from the wheel, up to `FRONT` events, when it runs empty.
    /// (`PAD` sentinel entries, time `u64::MAX`, lie below the array: `front_entry` adds
    /// `PAD` to its index.)
    front: [Entry; PAD + FRONT + 1],
    front_len: usize,
    /// Node pool; free nodes are chained through `next` from `free`.
    nodes: Vec<Node>,
    free: u32,
    /// `[head, tail]` node of each ring slot, `[NIL, NIL]` when empty; `mask` = ring size - 1.
    slots: Vec<[u32; 2]>,
    mask: u64,
    /// Non-empty ring slots: bit `i % 64` of `bits0[i / 64]` for slot `i`; bit `w % 64` of
    /// `bits1[w / 64]` when `bits0[w] != 0`; bit `v` of `bits2` when `bits1[v] != 0`.
    /// (Sized for the largest ring, so that indexing them needs no bounds check.)
    bits0: Box<[u64; (MAX_SLOTS / 64) as usize]>,
    bits1: Box<[u64; (MAX_SLOTS / 4096) as usize]>,
    bits2: u64,
    /// log2 of the slot width in ns.
    shift: u32,
    /// Slot number of `now`: the horizon is `[base, base + mask]`.
    base: u64,
    /// Slot number of the first non-empty ring slot, `NONE` if the ring is empty.
    next: u64,
    /// The far level (`far.rs`): the ring holds slot numbers `[base, ring_end)`, `span` =
    /// `ring_end - base`; the events at or beyond `ring_end` are in `buckets` (bucket number
    /// `slot >> bshift`, the head of an unsorted list of nodes, `NIL` when empty; `bucket_bits`
    /// its non-empty ones) or, beyond the buckets, in the heap `far`.
    ring_end: u64,
    span: u64,
    bshift: u32,
    buckets: Box<[u32; BUCKETS]>,
    bucket_bits: [u64; BUCKETS / 64],
    /// The first non-empty bucket's number, `NONE` if none.
    bucket_min: u64,
    far: BinaryHeap<Entry>,
    /// Slot number of `far`'s earliest event, `NONE` if `far` is empty.
    far_slot: u64,
    /// The first `base` whose `ring_end` passes a far event (`NONE`: no far event): a refill
    /// reaching it migrates.
    migrate_at: u64,
    /// Events in the wheel (ring and heap), the front array's not counted.
    len: usize,
    seq: u64,
    /// Time of the last pop from the wheel (of the event scheduled in the past, after one).
    now: u64,
    /// The current measurement window is `window_pops` pops long (0 before the first pop),
    /// began at time `window_start`, and ends in `to_retune` pops (one counter per pop).
    window_pops: u64,
    window_start: u64,
    to_retune: u64,
    /// List steps walked by out-of-order inserts into the first slot since the last rebuild or
    /// window, and the most allowed before the slots are narrowed (at once, in `schedule`).
    walked: u64,
    walk_budget: u64,
    /// Whether slots were narrowed for crowding in the current window (`retune` then does not
    /// widen them again).
    narrowed: bool,
    /// Ring slots whose list is not sorted (bit `i % 64` of `dirty[i / 64]`): out-of-order
    /// events scheduled into a slot other than the first are appended, and the slot is sorted
    /// when it becomes the first. (Sized for the largest ring, as `bits0`.)
    dirty: Box<[u64; (MAX_SLOTS / 64) as usize]>,
    /// Bits set in `dirty`: while 0 (nearly always on the bench scenarios), `pop` skips the
    /// test of the next slot's bit.
    n_dirty: u64,
    /// Work counters (they never decide anything): list steps walked by out-of-order inserts
    /// into the first slot, and events in slots sorted. The tests bound them.
    steps_walked: u64,
    steps_sorted: u64,
    /// Reused by rebuilds and slot sorts.
    scratch: Vec<Entry>,
    sort_buf: Vec<(u128, u32)>,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self {
            front: [Entry {
                key: u128::MAX,
                event: Event::Warmup,
            }; PAD + FRONT + 1],
            front_len: 0,
            nodes: Vec::new(),
            free: NIL,
            slots: vec![[NIL, NIL]; MIN_SLOTS as usize],
            mask: MIN_SLOTS - 1,
            bits0: vec![0; (MAX_SLOTS / 64) as usize]
                .into_boxed_slice()
                .try_into()
                .expect("bits0"),
            bits1: Box::new([0; (MAX_SLOTS / 4096) as usize]),
            bits2: 0,
            shift: INITIAL_SHIFT,
            base: 0,
            next: NONE,
            ring_end: ((1 << RING_BUCKETS_LOG2) - 1)
                << (MIN_SLOTS.trailing_zeros() - RING_BUCKETS_LOG2),
            span: ((1 << RING_BUCKETS_LOG2) - 1)
                << (MIN_SLOTS.trailing_zeros() - RING_BUCKETS_LOG2),
            bshift: MIN_SLOTS.trailing_zeros() - RING_BUCKETS_LOG2,
            buckets: Box::new([NIL; BUCKETS]),
            bucket_bits: [0; BUCKETS / 64],
            bucket_min: NONE,
            far: BinaryHeap::new(),
            far_slot: NONE,
            migrate_at: NONE,
            len: 0,
            seq: 0,
            now: 0,
            window_pops: 0,
            window_start: 0,
            to_retune: 1,
            walked: 0,
            walk_budget: WALK_BUDGET_PER_POP * WINDOW,
            narrowed: false,
            dirty: vec![0; (MAX_SLOTS / 64) as usize]
                .into_boxed_slice()
                .try_into()
                .expect("dirty"),
            n_dirty: 0,
            steps_walked: 0,
            steps_sorted: 0,
            scratch: Vec::new(),
            sort_buf: Vec::new(),
        }
    }

    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        let key = (u128::from(at.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        // (a new key is the latest of its time: earlier than an entry's iff its time is)
        if self.front_len != 0 && at.0 < time_of(self.front_entry(0).key) {
            self.insert_front(at.0, key, event);
        } else {
            self.schedule_wheel(key, event);
        }
    }

    /// Files an event in the wheel: the ring if its slot number is in `[base, ring_end)`, else
    /// the far level (`schedule_outside`).
    #[inline(always)]
    fn schedule_wheel(&mut self, key: u128, event: Event) {
        self.len += 1;
        let slot = time_of(key) >> self.shift;
        if slot.wrapping_sub(self.base) < self.span {
            self.insert_ring(slot, key, event);
        } else {
            self.schedule_outside(slot, key, event);
        }
    }

    /// `schedule` at or beyond `ring_end` (into the far level), or before `base`: into the
    /// ring's first slot number, `base`. An event whose slot number is before `base` (earlier
    /// than the last pop from the wheel: a front-array event going back, or a test harness
    /// re-queueing) is earlier than every event in a later slot, and slot `base`'s list, when it
    /// has events, is the first non-empty one, so sorted by key: filed there in key order it
    /// leaves first, exactly.
    #[inline(never)]
    fn schedule_outside(&mut self, slot: u64, key: u128, event: Event) {
        if slot < self.base {
            self.insert_ring(self.base, key, event);
        } else if !self.push_bucket(slot, key, event) {
            self.schedule_rest(slot, key, event);
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if self.front_len == 0 && !self.refill(None) {
            return None;
        }
        self.front_len -= 1;
        let e = *self.front_entry(self.front_len);
        Some((SimTime(time_of(e.key)), e.event))
    }

    /// Removes and returns the earliest event if it is earlier than `end`, else leaves the
    /// queue as it is: the event loop's one call per event, `peek_time` and `pop` in one.
    #[inline(always)]
    pub fn pop_before(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        if self.front_len == 0 && !self.refill(Some(end.0)) {
            return None;
        }
        let e = *self.front_entry(self.front_len - 1);
        if time_of(e.key) >= end.0 {
            return None;
        }
        self.front_len -= 1;
        Some((SimTime(time_of(e.key)), e.event))
    }

    /// Sorts ring slot `i`, the first non-empty one after a pop emptied the one before it, if
    /// its list is unsorted (`dirty`).
    #[inline(always)]
    fn sort_if_dirty(&mut self, i: usize) {
        if self.dirty[(i >> 6) & W_MASK] & (1 << (i & 63)) != 0 {
            self.sort_slot(i);
        }
    }

    // Unchecked access on the hot path (issue 25: bounds checks were a tenth of all
    // instructions). Both indices are valid by construction: a ring index is a slot number
    // masked by `mask`, and `slots.len() == mask + 1` always (`new` and `rebuild` set them
    // together); a node index comes from a slot's list or the free list, which hold only
    // indices `insert_ring` handed out of `nodes`, and `nodes` shrinks only in `rebuild`, which
    // empties both. The debug build checks each.

    #[inline(always)]
    fn slot(&self, i: usize) -> &[u32; 2] {
        debug_assert!(i < self.slots.len() && self.slots.len() as u64 == self.mask + 1);
        // SAFETY: `i` is masked by `mask` and `slots.len() == mask + 1` (above).
        unsafe { self.slots.get_unchecked(i) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, i: usize) -> &mut [u32; 2] {
        debug_assert!(i < self.slots.len() && self.slots.len() as u64 == self.mask + 1);
        // SAFETY: as `slot`.
        unsafe { self.slots.get_unchecked_mut(i) }
    }

    #[inline(always)]
    fn node(&self, n: u32) -> &Node {
        debug_assert!((n as usize) < self.nodes.len());
        // SAFETY: `n` is a linked or free node, an index into `nodes` (above).
        unsafe { self.nodes.get_unchecked(n as usize) }
    }

    #[inline(always)]
    fn node_mut(&mut self, n: u32) -> &mut Node {
        debug_assert!((n as usize) < self.nodes.len());
        // SAFETY: as `node`.
        unsafe { self.nodes.get_unchecked_mut(n as usize) }
    }

    /// Time of the earliest event, without removing it.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        if self.front_len != 0 {
            Some(SimTime(time_of(self.front_entry(self.front_len - 1).key)))
        } else if self.next != NONE {
            let head = self.slot(self.next as usize & self.mask as usize)[0];
            Some(SimTime(time_of(self.node(head).key)))
        } else {
            self.far_first().map(|key| SimTime(time_of(key)))
        }
    }

    pub fn len(&self) -> usize {
        self.len + self.front_len
    }

    pub fn is_empty(&self) -> bool {
        self.len + self.front_len == 0
    }

    // ---------------------------------------------------------------- ring

    /// Links an event into the list of `slot`, which must be in the horizon.
    #[inline(always)]
    fn insert_ring(&mut self, slot: u64, key: u128, event: Event) {
        let n = self.alloc(key, event);
        self.link(slot, n, key);
    }

    /// A node of the pool holding `key` and `event`, its `next` `NIL`.
    #[inline(always)]
    fn alloc(&mut self, key: u128, event: Event) -> u32 {
        if self.free != NIL {
            let n = self.free;
            let node = self.node_mut(n);
            let next_free = node.next;
            *node = Node {
                key,
                event,
                next: NIL,
            };
            self.free = next_free;
            n
        } else {
            self.nodes.push(Node {
                key,
                event,
                next: NIL,
            });
            u32::try_from(self.nodes.len() - 1).expect("fewer than 2^32 pending events")
        }
    }

    /// Links node `n` (key `key`, `next` `NIL`) into the list of `slot`, which must be in the
    /// horizon.
    #[inline(always)]
    fn link(&mut self, slot: u64, n: u32, key: u128) {
        let i = slot as usize & self.mask as usize;
        let [head, tail] = *self.slot(i);
        if tail == NIL {
            *self.slot_mut(i) = [n, n];
            let w = (i >> 6) & W_MASK;
            let b0 = &mut self.bits0[w];
            if *b0 == 0 {
                self.bits1[w >> 6] |= 1 << (w & 63);
                self.bits2 |= 1 << (w >> 6);
            }
            self.bits0[w] |= 1 << (i & 63);
            if slot < self.next {
                self.next = slot;
            }
        } else if self.node(tail).key < key {
            // the usual case: later than everything in the slot
            self.node_mut(tail).next = n;
            self.slot_mut(i)[1] = n;
        } else if slot != self.next {
            self.insert_not_first(i, head, tail, n, key);
        } else {
            self.insert_before_tail(i, head, n, key);
        }
    }

    /// Links node `n` (key `key`) into ring slot `i`, not the first non-empty one, whose tail is
    /// later: into its place if the slot is sorted and that place is within `SHORT_WALK` steps
    /// of the head, else at the tail, the slot then sorted when it becomes the first (so a
    /// crowded slot costs a sort, O(log) per event, never a walk per schedule).
    #[inline(never)]
    fn insert_not_first(&mut self, i: usize, head: u32, tail: u32, n: u32, key: u128) {
        let (w, bit) = ((i >> 6) & W_MASK, 1u64 << (i & 63));
        if self.dirty[w] & bit == 0 {
            if key < self.nodes[head as usize].key {
                self.nodes[n as usize].next = head;
                self.slots[i][0] = n;
                return;
            }
            let mut p = head;
            for steps in 1..=SHORT_WALK {
                let q = self.nodes[p as usize].next;
                // (q is not NIL: the tail is later than `key`)
                if key < self.nodes[q as usize].key {
                    self.nodes[n as usize].next = q;
                    self.nodes[p as usize].next = n;
                    self.steps_walked += steps;
                    return;
                }
                p = q;
            }
            self.steps_walked += SHORT_WALK;
            self.dirty[w] |= bit;
            self.n_dirty += 1;
        }
        self.nodes[tail as usize].next = n;
        self.slots[i][1] = n;
    }

    /// Sorts the list of ring slot `i` by key (it becomes the first non-empty slot).
    #[cold]
    #[inline(never)]
    fn sort_slot(&mut self, i: usize) {
        self.dirty[(i >> 6) & W_MASK] &= !(1 << (i & 63));
        self.n_dirty -= 1;
        let mut buf = std::mem::take(&mut self.sort_buf);
        let mut n = self.slots[i][0];
        while n != NIL {
            buf.push((self.nodes[n as usize].key, n));
            n = self.nodes[n as usize].next;
        }
        self.steps_sorted += buf.len() as u64;
        // (keys are distinct: the sequence number is in them)
        buf.sort_unstable_by_key(|&(key, _)| key);
        for w in buf.windows(2) {
            self.nodes[w[0].1 as usize].next = w[1].1;
        }
        let (first, last) = (buf[0].1, buf[buf.len() - 1].1);
        self.nodes[last as usize].next = NIL;
        self.slots[i] = [first, last];
        buf.clear();
        self.sort_buf = buf;
    }

    /// Links node `n` (key `key`) into the first non-empty ring slot `i`, whose tail is later.
    /// If such walks grow long (a burst of events into the first slot, as when a million flows
    /// start before the first pop), the slots are narrowed at once.
    #[inline(never)]
    fn insert_before_tail(&mut self, i: usize, head: u32, n: u32, key: u128) {
        if key < self.nodes[head as usize].key {
            self.nodes[n as usize].next = head;
            self.slots[i][0] = n;
            return;
        }
        let mut p = head;
        let mut steps = 1;
        loop {
            let q = self.nodes[p as usize].next;
            if key < self.nodes[q as usize].key {
                self.nodes[n as usize].next = q;
                self.nodes[p as usize].next = n;
                break;
            }
            p = q;
            steps += 1;
        }
        self.walked += steps;
        self.steps_walked += steps;
        if self.walked > self.walk_budget {
            self.narrow();
        }
    }

    /// The first slot is crowded: rebuilds with slots 16 times narrower and a ring sized to the
    /// events pending, so that a burst of schedules costs O(pending) list steps per rebuild, and
    /// at most 16 rebuilds. (The next window's `retune` does not widen them again.)
    #[cold]
    #[inline(never)]
    fn narrow(&mut self) {
        let pending = self.len as u64;
        let ring = ring_for(pending, self.mask + 1);
        self.rebuild(self.shift.saturating_sub(4), ring);
        self.narrowed = true;
        self.walked = 0;
        self.walk_budget = WALK_BUDGET_PER_POP * WINDOW.max(pending);
    }

    /// Slot number of the first non-empty slot at or after ring slot `i` (which is slot number
    /// `self.base`), going round the ring; `NONE` if the ring is empty.
    #[inline]
    fn find_next(&self, i: usize) -> u64 {
        let w = (i >> 6) & W_MASK;
        let m0 = self.bits0[w] & (!0u64 << (i & 63));
        let j = if m0 != 0 {
            (w << 6) | m0.trailing_zeros() as usize
        } else {
            // the next non-empty word of bits0 in this group of 64, else in a later group, else
            // (round the ring) the first one
            let v = w >> 6;
            let m1 = if w & 63 == 63 {
                0
            } else {
                self.bits1[v] & (!0u64 << ((w & 63) + 1))
            };
            let w2 = if m1 != 0 {
                (v << 6) | m1.trailing_zeros() as usize
            } else {
                let m2 = if v == 63 {
                    0
                } else {
                    self.bits2 & (!0u64 << (v + 1))
                };
                let s = if m2 != 0 { m2 } else { self.bits2 };
                if s == 0 {
                    return NONE;
                }
                let v2 = s.trailing_zeros() as usize;
                (v2 << 6) | self.bits1[v2 & 63].trailing_zeros() as usize
            };
            (w2 << 6) | self.bits0[w2 & W_MASK].trailing_zeros() as usize
        };
        self.base + ((j as u64).wrapping_sub(i as u64) & self.mask)
    }

    /// End of a measurement window: re-derive the ring's size from the number of events pending,
    /// and the slot width from it and the mean spacing of the events popped in the window.
    #[cold]
    #[inline(never)]
    fn retune(&mut self) {
        if self.window_pops == 0 {
            // the first window starts at the first pop: the time before it (when a run's
            // events start, or a burst of timers set at 0 falls due) is no spacing
            self.window_pops = WINDOW;
            self.window_start = self.now;
            self.to_retune = WINDOW;
            return;
        }
        let spacing = self.now.saturating_sub(self.window_start) / self.window_pops;
        let pending = self.len as u64;
        let size = self.mask + 1;
        let ring = ring_for(pending, size);
        // slots a fraction of the spacing wide...
        let by_spacing = (63 - spacing.max(1).leading_zeros()).saturating_sub(SPREAD_LOG2);
        // ...but a horizon of at least REACH mean stays (pending × spacing, by Little's law)
        let reach = pending.saturating_mul(spacing).saturating_mul(REACH) / ring;
        let by_reach = 64 - reach.saturating_sub(1).leading_zeros();
        let mut shift = by_spacing.max(by_reach).min(63);
        if self.narrowed {
            shift = shift.min(self.shift);
        }
        if ring != size || shift.abs_diff(self.shift) >= 2 {
            self.rebuild(shift, ring);
        }
        self.narrowed = false;
        // windows of at least as many pops as events pending keep rebuilds O(1) per pop
        let window = WINDOW.max(pending);
        self.window_pops = window;
        self.window_start = self.now;
        self.to_retune = window;
        self.walk_budget = WALK_BUDGET_PER_POP * window;
        self.walked = 0;
    }

    /// Re-files every pending event (after those in `scratch`, which must be earlier) in a ring
    /// of `ring` slots `2^shift` ns wide, its horizon starting at the slot of `self.now`, which
    /// no event may precede. O(pending + ring size), plus a sort of the unsorted slots and of
    /// the far events: the events are re-filed in key order, so every insert appends (and every
    /// heap push is a leaf).
    fn rebuild(&mut self, shift: u32, ring: u64) {
        let first = self.base & self.mask;
        for k in 0..=self.mask {
            let i = ((first + k) & self.mask) as usize;
            let start = self.scratch.len();
            let mut n = self.slots[i][0];
            while n != NIL {
                let node = self.nodes[n as usize];
                self.scratch.push(Entry {
                    key: node.key,
                    event: node.event,
                });
                n = node.next;
            }
            if self.dirty[(i >> 6) & W_MASK] & (1 << (i & 63)) != 0 {
                self.steps_sorted += (self.scratch.len() - start) as u64;
                self.scratch[start..].sort_unstable_by_key(|e| e.key);
            }
        }
        // The far events too (all later than the ring's), by one sort of a vector instead of a
        // heap pop each (a burst of timers before the first pop lands in the heap); re-filed
        // below into the ring, buckets or heap of the new geometry.
        self.drain_far();
        debug_assert!(self.scratch.windows(2).all(|w| w[0].key < w[1].key));
        self.dirty[..(self.mask + 1) as usize / 64].fill(0);
        self.n_dirty = 0;
        self.nodes.clear();
        self.free = NIL;
        // (bits beyond the ring stay 0)
        self.bits0[..(self.mask + 1) as usize / 64].fill(0);
        if ring == self.mask + 1 {
            self.slots.fill([NIL, NIL]);
        } else {
            debug_assert!(ring.is_power_of_two() && (MIN_SLOTS..=MAX_SLOTS).contains(&ring));
            self.slots = vec![[NIL, NIL]; ring as usize];
            self.mask = ring - 1;
        }
        self.bits1.fill(0);
        self.bits2 = 0;
        self.shift = shift;
        self.bshift = ring.trailing_zeros() - RING_BUCKETS_LOG2;
        self.set_base(self.now >> shift);
        self.next = NONE;
        let mut scratch = std::mem::take(&mut self.scratch);
        for e in scratch.drain(..) {
            // (an event earlier than `now`'s slot: into the first slot, as `schedule_outside`)
            let slot = time_of(e.key) >> shift;
            if slot.wrapping_sub(self.base) < self.span {
                self.insert_ring(slot, e.key, e.event);
            } else {
                self.schedule_outside(slot, e.key, e.event);
            }
        }
        self.scratch = scratch;
    }
}

/// The ring size for `pending` events, now `size`: kept while within 2 to 16 slots an event,
/// else about 4 (a power of two from `MIN_SLOTS` to `MAX_SLOTS`).
fn ring_for(pending: u64, size: u64) -> u64 {
    if 2 * pending > size || 16 * pending < size {
        (4 * pending)
            .next_power_of_two()
            .clamp(MIN_SLOTS, MAX_SLOTS)
    } else {
        size
    }
}

mod far;
mod front;
use far::{BUCKETS, RING_BUCKETS_LOG2};
use front::PAD;
#[cfg(test)]
mod tests;
