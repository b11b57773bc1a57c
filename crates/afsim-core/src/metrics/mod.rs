//! Counters and the checks they obey: per flow (`flow`), and the packet conservation identity
//! of a whole run (`conservation`). Per-queue counters live with the queues
//! (`queue::QueueStats`).
pub mod conservation;
pub mod fairness;
pub mod flow;
pub mod series;
