//! Packets, links (rate, propagation delay, framing, random loss), ports and routing.
pub mod framing;
pub mod loss;
pub mod packet;
pub mod routing;
