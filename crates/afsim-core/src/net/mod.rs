//! Packets, links (rate, propagation delay, framing), ports and routing.
pub mod framing;
pub mod packet;
pub mod routing;
