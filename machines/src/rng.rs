//! The deterministic CSPRNG a machine draws from, seeded by the runtime.
//!
//! Machines never ask the operating system for entropy. The runtime reads 32 bytes of OS
//! randomness once and passes them as a seed; tests pass fixed seeds and get reproducible runs.

pub use chacha20::ChaCha20Rng as MachineRng;
use rand_core::SeedableRng as _;

/// A machine RNG from a 32-byte seed.
#[must_use]
pub fn from_seed(seed: [u8; 32]) -> MachineRng {
    MachineRng::from_seed(seed)
}
