//! The guard's leave to check an answer, in a file of its own: the services that take one name it without
//! naming the guard that holds them.

/// The guard's leave to check an answer: only [`AttemptGuard::attempt`](super::AttemptGuard::attempt) makes one, and hands it to the step
/// it runs. Every method that checks an answer to "prove it's you" (a password, a passkey, a second factor's
/// challenge or answer, a recovery code) takes one by value, so none of them is reachable around the guard's
/// limits, delay and counting.
#[derive(Debug)]
pub struct Guarded(());

impl Guarded {
    /// Made by the guard alone (this module's parent).
    pub(super) const fn new() -> Self {
        Self(())
    }
}

#[cfg(test)]
impl Guarded {
    /// For the unit tests of the methods that take one (what they check, apart from the guard's limits).
    pub(crate) const fn for_tests() -> Self {
        Self(())
    }
}
