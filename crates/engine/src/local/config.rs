//! How long local search searches before it gives up, and from which seed.

/// How long to search before giving up.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The seed: the same seed, problem and configuration give the same answer.
    pub seed: u64,
    /// Fresh starts before giving up ([`super::Outcome::GaveUp`]).
    pub restarts: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 1,
            restarts: 200,
        }
    }
}
