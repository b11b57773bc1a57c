//! Reads of the world's vectors without a bounds check, for indices valid by how the world is
//! built (issue 25: these were checked at every event, hop or agent call). Each caller says
//! why its index is in bounds; the debug build checks it.

use super::Port;

/// `v[i]` without a bounds check, for an index valid by how the world is built (issue 25).
///
/// # Safety
///
/// `i < v.len()` (each caller says why).
#[inline(always)]
pub(super) unsafe fn at<T>(v: &[T], i: usize) -> &T {
    debug_assert!(i < v.len(), "index {i} of {}", v.len());
    // SAFETY: the caller's.
    unsafe { v.get_unchecked(i) }
}

/// `at`, mutable.
///
/// # Safety
///
/// As `at`.
#[inline(always)]
pub(super) unsafe fn at_mut<T>(v: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < v.len(), "index {i} of {}", v.len());
    // SAFETY: the caller's.
    unsafe { v.get_unchecked_mut(i) }
}

/// Port `port` of the world's ports, without a bounds check (issue 25: one at each event and
/// each enqueue).
///
/// # Safety
///
/// `port < ports.len()`. Callers pass a port index the world made itself: one of an event it
/// scheduled for a port (`TxDone`, `Arrive`: only `transmit`, `tx_done`, `enqueue_queued` and
/// the next arrival in `dispatch` schedule them, each for the port it is serving), or a
/// forwarding table's answer; the ports are built once (`build.rs`) and never removed.
#[inline(always)]
pub(super) unsafe fn port_mut(ports: &mut [Port], port: usize) -> &mut Port {
    debug_assert!(port < ports.len(), "port {port} of {}", ports.len());
    // SAFETY: the caller's (above).
    unsafe { ports.get_unchecked_mut(port) }
}

/// Asks the processor to bring the cache line of `p` into its caches (issue 28: a packet's
/// next stop is known a wire's delay before it gets there; see `run`'s `World::look_ahead`).
/// Only a hint: nothing is read, so any address is allowed; elsewhere than on x86-64 it does
/// nothing.
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault, whatever the address
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `prefetch` of every line of the `T` at `p` (one instruction a line: `T`'s size is a
/// constant, the loop unrolled).
#[inline(always)]
pub(super) fn prefetch_object<T>(p: *const T) {
    let (base, n) = (p.cast::<u8>(), std::mem::size_of::<T>());
    let mut off = 0;
    while off < n {
        prefetch(base.wrapping_add(off));
        off += 64;
    }
    if n % 64 != 0 {
        // (an object not a whole number of lines may reach one more)
        prefetch(base.wrapping_add(n - 1));
    }
}
