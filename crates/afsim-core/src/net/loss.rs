//! Random packet loss on one direction of a link (transmission errors).
//!
//! Read this first: a lossy port drops each packet that reaches the far end of the wire with
//! probability `p`, independently of every other packet (Bernoulli loss), drawing from the
//! port's own random stream (`link/<from>-><to>`), so adding a lossy link changes no other
//! component's numbers. The packet has used the link's capacity and its propagation delay
//! before it is lost, as a corrupted frame does: the same place as ns-2's
//! `$ns link-lossmodel` (ns-lib.tcl `Simulator::link-lossmodel`, which inserts the error model
//! after the link's delay, `SimpleLink::insert-linkloss`), not `$ns lossmodel`, which drops
//! before the queue. The world counts these drops with reason `link_loss` at the place
//! "link <from>-><to>", so packet conservation holds.
//!
//! Not modelled: correlated (Gilbert–Elliott) losses, bit errors that depend on packet size.

use crate::sim::rng::Rng;

/// A loss model, as the scenario gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// Each packet is lost with probability `p`, independently.
    Bernoulli { p: f64 },
}

impl Model {
    /// Checks the parameters once, before a run: `p` is a probability.
    pub fn validate(&self) -> Result<(), crate::param::ParamError> {
        match *self {
            Model::Bernoulli { p } if !(0.0..=1.0).contains(&p) => {
                Err(crate::param::ParamError::new(
                    "p",
                    format!("a loss probability is in [0, 1], found {p}"),
                ))
            }
            Model::Bernoulli { .. } => Ok(()),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Model::Bernoulli { .. } => "bernoulli",
        }
    }
}

/// A port's loss process: the model and its random stream.
#[derive(Clone, Debug)]
pub struct Loss {
    model: Model,
    rng: Rng,
}

impl Loss {
    pub fn new(model: Model, rng: Rng) -> Loss {
        debug_assert!(model.validate().is_ok());
        Loss { model, rng }
    }

    /// Whether the packet now reaching the end of the wire is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            Model::Bernoulli { p } => self.rng.uniform() < p,
        }
    }

    pub fn model(&self) -> Model {
        self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;

    #[test]
    fn bernoulli_loses_about_p_of_the_packets() {
        let mut l = Loss::new(Model::Bernoulli { p: 0.1 }, rng::stream(1, "link/a->b"));
        let n = 200_000;
        let lost = (0..n).filter(|_| l.lose()).count();
        // standard deviation sqrt(n p (1-p)) = 134 packets
        assert!((lost as f64 - 20_000.0).abs() < 700.0, "{lost}");
    }

    #[test]
    fn probabilities_zero_and_one_lose_nothing_and_everything() {
        let mut none = Loss::new(Model::Bernoulli { p: 0.0 }, rng::stream(1, "x"));
        let mut all = Loss::new(Model::Bernoulli { p: 1.0 }, rng::stream(1, "x"));
        assert!((0..10_000).all(|_| !none.lose()));
        assert!((0..10_000).all(|_| all.lose()));
    }

    #[test]
    fn a_probability_outside_the_unit_interval_is_refused() {
        for p in [-0.1, 1.5, f64::NAN] {
            assert_eq!(
                Model::Bernoulli { p }.validate().unwrap_err().field,
                "p",
                "{p}"
            );
        }
        assert!(Model::Bernoulli { p: 0.5 }.validate().is_ok());
    }
}
