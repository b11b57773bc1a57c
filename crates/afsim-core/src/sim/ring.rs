//! A first-in first-out ring of small `Copy` items: the drop-tail queue's FIFO and each port's
//! propagation line, four operations per packet-hop.
//!
//! Read this first: `VecDeque` does the same, but its capacity need not be a power of two, so
//! every `push_back` and `pop_front` wraps its index with a compare and a subtraction and every
//! access is bounds-checked; its operations were 6 % of all instructions on the bench
//! scenarios (issue 25). Here the capacity is 0 or a power of two, an index wraps with one
//! `and`, and the buffer is read unchecked at indices valid by construction (below). It starts
//! empty, allocating nothing (issue 28: most ports of a large network never queue a packet),
//! grows by doubling (at least 4 slots) and never shrinks, as `VecDeque`. The slots are a boxed
//! slice, not a `Vec` (whose length would only repeat its capacity): the ring is 24 bytes, and
//! a port, which holds two, 16 bytes smaller (issue 28, branch scale7).

/// A FIFO of `T`s; see the module.
#[derive(Clone, Debug, Default)]
pub struct Ring<T> {
    /// The slots; `buf.len()` is the capacity, 0 or a power of two (at most 2^31).
    buf: Box<[T]>,
    /// Positions of the first item and one past the last, counted modulo 2^32 (so
    /// `tail - head` is the length, and a position's slot is its low bits): `u32`, so that the
    /// ring is 24 bytes (issue 28).
    head: u32,
    tail: u32,
}

impl<T: Copy + Default> Ring<T> {
    pub fn new() -> Self {
        Ring {
            buf: Box::new([]),
            head: 0,
            tail: 0,
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    /// Slots allocated.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        if self.len() == self.buf.len() {
            self.grow();
        }
        let i = self.tail as usize & (self.buf.len() - 1);
        *self.slot_mut(i) = x;
        self.tail = self.tail.wrapping_add(1);
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.head == self.tail {
            return None;
        }
        let x = *self.slot(self.head as usize & (self.buf.len() - 1));
        self.head = self.head.wrapping_add(1);
        Some(x)
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.head == self.tail {
            None
        } else {
            Some(self.slot(self.head as usize & (self.buf.len() - 1)))
        }
    }

    /// The `i`-th item from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len() {
            Some(self.slot(self.at(i)))
        } else {
            None
        }
    }

    /// The items, front first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |i| self.slot(self.at(i)))
    }

    pub fn clear(&mut self) {
        self.head = self.tail;
    }

    /// The slot of the `i`-th item from the front (`i < len()`, so the ring has slots).
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        (self.head as usize).wrapping_add(i) & (self.buf.len() - 1)
    }

    /// Doubles the slots (at least 4), the items moved to the front of the new buffer in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(4);
        assert!(cap <= 1 << 31, "a ring of at most 2^31 items");
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        let len = buf.len() as u32;
        buf.resize(cap, T::default());
        self.buf = buf.into_boxed_slice();
        self.head = 0;
        self.tail = len;
    }

    // Unchecked access (issue 25). Every index passed is wrapped by `& (buf.len() - 1)` with
    // `buf.len()` a power of two, taken only while the ring holds an item or after `grow` (which
    // makes it one before the first item is stored; only `grow` changes it); so it is below
    // `buf.len()`. The debug build checks each.

    #[inline(always)]
    fn slot(&self, i: usize) -> &T {
        debug_assert!(i < self.buf.len());
        // SAFETY: `i < buf.len()` (above).
        unsafe { self.buf.get_unchecked(i) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.buf.len());
        // SAFETY: as `slot`.
        unsafe { self.buf.get_unchecked_mut(i) }
    }
}

impl<T: Copy + Default> std::ops::Index<usize> for Ring<T> {
    type Output = T;

    /// The `i`-th item from the front; panics if there are not that many.
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("ring index out of range")
    }
}

impl<T: Copy + Default> Extend<T> for Ring<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.push_back(x);
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for Ring<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut r = Ring::new();
        r.extend(items);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Against `VecDeque`, through growth and many wraps of the index.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut r = Ring::new();
        let mut v = VecDeque::new();
        let mut x = 0x9E37_79B9u32;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // phases that grow, hold and drain the queue
            let push_odds = match (step / 2000) % 3 {
                0 => 3,
                1 => 2,
                _ => 1,
            };
            if x % 4 < push_odds {
                r.push_back(step);
                v.push_back(step);
            } else {
                assert_eq!(r.pop_front(), v.pop_front(), "step {step}");
            }
            assert_eq!(r.len(), v.len());
            assert_eq!(r.is_empty(), v.is_empty());
            assert_eq!(r.front(), v.front());
            assert_eq!(r.get(1), v.get(1));
            assert!(r.capacity() == 0 || r.capacity().is_power_of_two());
            if step % 97 == 0 {
                assert!(r.iter().eq(v.iter()));
                assert!(r.iter().rev().eq(v.iter().rev()));
            }
        }
    }

    /// Positions wrap past 2^32: an empty ring whose positions are just below it.
    #[test]
    fn positions_wrap_around() {
        let mut r = Ring::new();
        r.push_back(0u32);
        r.pop_front();
        (r.head, r.tail) = (u32::MAX - 2, u32::MAX - 2);
        let mut v = VecDeque::new();
        for k in 1..=40u32 {
            r.push_back(k);
            v.push_back(k);
            if k % 3 == 0 {
                assert_eq!(r.pop_front(), v.pop_front());
            }
            assert_eq!(r.len(), v.len());
            assert!(r.iter().eq(v.iter()));
            assert_eq!(r.get(2), v.get(2));
        }
        while let Some(x) = v.pop_front() {
            assert_eq!(r.pop_front(), Some(x));
        }
        assert!(r.is_empty() && r.pop_front().is_none());
    }

    #[test]
    fn is_smaller_than_a_vecdeque() {
        // 32 bytes as a `VecDeque` until the slots became a boxed slice (branch scale7)
        assert_eq!(std::mem::size_of::<Ring<u32>>(), 24);
        assert!(std::mem::size_of::<Ring<u32>>() < std::mem::size_of::<VecDeque<u32>>());
    }

    #[test]
    fn index_extend_collect_and_clear() {
        let mut r: Ring<u32> = (10..15).collect();
        r.pop_front();
        r.extend([20, 21]);
        assert_eq!((r[0], r[3], r[5], r.len()), (11, 14, 21, 6));
        assert!(std::panic::catch_unwind(|| r[6]).is_err());
        r.clear();
        assert!(r.is_empty() && r.front().is_none());
        r.push_back(7);
        assert_eq!(r.pop_front(), Some(7));
    }

    #[test]
    fn starts_without_slots() {
        let r: Ring<u32> = Ring::new();
        assert_eq!((r.len(), r.capacity()), (0, 0));
        assert_eq!(r.front(), None);
        assert_eq!(r.iter().count(), 0);
    }
}
