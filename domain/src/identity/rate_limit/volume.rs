//! The volume limits of the identity use cases a client may ask for without proving anything: signing up,
//! asking for a link or code by e-mail, using one, starting a passkey or provider sign-in. Each of those use
//! cases asks [`VolumeLimits::admit`] first, with the client's rate-limit subject (the address, IPv6 by
//! /64, as the adapter that knows where the request came from reads it); no handler decides it.

use std::sync::Arc;

use super::{AuthAction, RateDecision, RateLimiter};
use crate::identity::errors::IdentityError;

/// The limiter, as the use cases that admit a client's request hold it.
#[derive(Clone)]
pub struct VolumeLimits(Arc<RateLimiter>);

impl VolumeLimits {
    #[must_use]
    pub const fn new(limiter: Arc<RateLimiter>) -> Self {
        Self(limiter)
    }

    /// Counts one request of `action` from `client` (and to `email`, for the actions that name an address)
    /// or refuses it.
    ///
    /// # Errors
    /// [`IdentityError::EmailRateLimited`] for an action that sends e-mail, [`IdentityError::RateLimited`]
    /// for the others, when a limit is reached; [`IdentityError::Repo`] when the counters cannot be read.
    pub async fn admit(
        &self,
        action: AuthAction,
        client: &str,
        email: Option<&str>,
    ) -> Result<(), IdentityError> {
        match self.0.check(action, client, email).await? {
            RateDecision::Allowed { .. } => Ok(()),
            RateDecision::Limited { retry_after_secs } if action.sends_email() => {
                Err(IdentityError::EmailRateLimited { retry_after_secs })
            }
            RateDecision::Limited { retry_after_secs } => {
                Err(IdentityError::RateLimited { retry_after_secs })
            }
        }
    }
}
