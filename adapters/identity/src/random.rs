//! [`SecretGenerator`] over the operating system's random number generator.

use domain::common::SecretGenerator;

/// Random bytes straight from the operating system (`getrandom`): tokens, codes, salts and keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsSecretGenerator;

impl SecretGenerator for OsSecretGenerator {
    fn random_bytes(&self, len: usize) -> Vec<u8> {
        let mut bytes = vec![0u8; len];
        fill(&mut bytes);
        bytes
    }
}

/// Fills `buffer` from the operating system.
///
/// # Panics
/// When the operating system cannot give random bytes: no secret may be made from anything weaker, and no
/// request can be answered safely without one.
pub fn fill(buffer: &mut [u8]) {
    if let Err(error) = getrandom::fill(buffer) {
        panic!("the operating system's random number generator failed: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bytes_have_the_asked_length_and_differ_between_calls() {
        let generator = OsSecretGenerator;
        let (a, b) = (generator.random_bytes(32), generator.random_bytes(32));
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(generator.token_hex(16).len(), 32);
    }
}
