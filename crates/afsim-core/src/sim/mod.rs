//! Simulated time, the event queue and seeded random streams.
pub mod event;
pub mod lazy_timer;
pub mod ring;
pub mod rng;
pub mod time;
