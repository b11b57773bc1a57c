//! Packets, their DiffServ code points (`dscp`), links (rate, propagation delay, framing,
//! random loss), ports and routing; pcap capture of a port's departures.
pub mod dscp;
pub mod framing;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod routing;
