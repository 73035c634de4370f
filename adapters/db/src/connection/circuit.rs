//! The circuit that remembers a database outage, so that requests answer 503 at once while it lasts.

use super::RETRY_AFTER;
use diesel::r2d2::{HandleError, HandleEvent};
use domain::common::RepoError;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Remembers that the database cannot be reached, so that while it is down every call answers
/// [`RepoError::Unavailable`] at once instead of waiting for a connection that will not come; and logs the
/// cause once when the outage begins and once when it ends.
///
/// The pool opens it (its error handler sees every failed attempt to connect) and closes it (its event
/// handler sees every connection opened): while it is open, the pool keeps trying to connect in the
/// background, so the first connection that succeeds ends the outage without a restart.
#[derive(Debug, Default)]
pub(super) struct Circuit {
    open_since: Mutex<Option<Instant>>,
}

impl Circuit {
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.open_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn is_open(&self) -> bool {
        self.state().is_some()
    }

    pub(super) fn trip(&self, cause: &dyn std::fmt::Display) {
        let mut state = self.state();
        if state.is_none() {
            *state = Some(Instant::now());
            drop(state);
            tracing::error!(
                cause = %cause,
                "the database cannot be reached; requests answer 503 until it can (retrying in the background)"
            );
        }
    }

    pub(super) fn reset(&self) {
        if let Some(since) = self.state().take() {
            tracing::warn!(
                outage_secs = since.elapsed().as_secs(),
                "the database can be reached again"
            );
        }
    }

    pub(super) fn unavailable() -> RepoError {
        RepoError::Unavailable {
            retry_after: RETRY_AFTER,
        }
    }
}

/// Failed attempts to connect open the circuit (instead of r2d2's default, a log line per attempt).
#[derive(Debug)]
pub(super) struct TripOnError(pub(super) Arc<Circuit>);

impl HandleError<diesel::r2d2::Error> for TripOnError {
    fn handle_error(&self, error: diesel::r2d2::Error) {
        self.0.trip(&error);
    }
}

/// A connection opened closes the circuit.
#[derive(Debug)]
pub(super) struct ResetOnConnect(pub(super) Arc<Circuit>);

impl HandleEvent for ResetOnConnect {
    fn handle_acquire(&self, _event: diesel::r2d2::event::AcquireEvent) {
        self.0.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_circuit_remembers_an_outage_until_a_connection_succeeds() {
        let circuit = Circuit::default();
        assert!(!circuit.is_open());
        circuit.trip(&"connection refused");
        let first = circuit.state().expect("open");
        circuit.trip(&"connection refused");
        assert_eq!(
            circuit.state().expect("still open"),
            first,
            "an outage begins once"
        );
        circuit.reset();
        assert!(!circuit.is_open());
    }
}
