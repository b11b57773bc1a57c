//! The one error type of model parameters, shared by every layer that validates its own
//! parameters: the colour table (`net::dscp`), link loss (`net::loss`), the AQM queues
//! (`queue::red`, `rio`, `wred`, `sima`), the edge models and TFRC (`transport::tfrc`), so the
//! scenario loader maps one error type to its file/line/field message. It depends on nothing,
//! so any layer may use it (`edge::ParamError` re-exports it).

use std::fmt;

/// A parameter that fails validation: which field, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    pub field: &'static str,
    pub message: String,
}

impl ParamError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        ParamError {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ParamError {}
