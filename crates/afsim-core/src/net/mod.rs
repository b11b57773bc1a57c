//! Packets, links (rate, propagation delay, framing), ports and routing; pcap capture of a
//! port's departures.
pub mod framing;
pub mod packet;
pub mod pcap;
pub mod routing;
