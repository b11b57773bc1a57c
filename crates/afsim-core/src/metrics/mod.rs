//! Counters and the checks they obey: per flow (`flow`), and the packet conservation identity
//! of a whole run (`conservation`); delay distributions (`delay`); time series on a grid
//! (`series`) and a queue's event record (`trace`), which `[[monitor]]`s ask for. Per-queue
//! counters live with the queues (`queue::QueueStats`).
pub mod conservation;
pub mod delay;
pub mod fairness;
pub mod flow;
pub mod series;
pub mod trace;
