//! Scenario files: the TOML format, its units and parameters, its errors, and the resolved
//! `Spec` a world is built from.
pub mod error;
pub mod load;
pub mod spec;
pub mod units;

pub use error::{ScenarioError, Warning};
pub use load::{load_file, load_str};
pub use spec::Spec;
