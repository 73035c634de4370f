//! The one attempt guard: every answer to "prove it's you" — a password, a passkey, a TOTP code, a
//! WebAuthn factor's ceremony, a recovery code — goes through [`AttemptGuard::attempt`]: check the limits,
//! wait the delay, run the attempt, record the failure or the success (PRODUCT.md §1, §1a).
//!
//! - First factors (password, passkey): the client address's attempts and the (account, client) pair's
//!   failures may refuse; the account's failures from every client only slow it down, so nobody locks the
//!   owner out.
//! - Second factors: the same per client, then a challenge dies after
//!   [`WRONG_ANSWERS_PER_CHALLENGE`](crate::identity::rate_limit::WRONG_ANSWERS_PER_CHALLENGE) wrong
//!   answers, and the account meets a ceiling from every client together
//!   ([`SECOND_FACTOR_ACCOUNT_CEILING`](crate::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING)): the
//!   answer that reaches it ends the account's `aal1` sessions and tells the owner; later answers are
//!   refused until the hour has passed. Only someone who has the password can cause them, and the owner's
//!   password sign-in is never refused by it.

use async_trait::async_trait;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

use crate::identity::errors::IdentityError;
use crate::identity::factors::FactorService;
use crate::identity::rate_limit::{AuthAction, Held, RateLimiter, Reservation, SignInGate};
use crate::identity::sessions::SessionService;

mod guarded;
pub use guarded::Guarded;

/// Waits (the runtime's timer; a port, so that the domain names no runtime).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Pause: Send + Sync {
    /// Returns after `delay`.
    async fn pause(&self, delay: Duration);
}

/// What kind of proof an attempt answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// A first factor: a password (at sign-in, or the current one given again) or a passkey.
    FirstFactor,
    /// Starting a second factor's challenge: limited as an answer is, counting nothing of the account's.
    SecondFactorChallenge,
    /// A second factor's answer: a TOTP code, a WebAuthn factor's ceremony, a recovery code.
    SecondFactor {
        /// The challenge answered (recovery codes have none).
        challenge: Option<Uuid>,
    },
}

/// One attempt: what it proves, from which client (its rate-limit subject: the address, IPv6 by /64),
/// for which account (its e-mail address as typed or as known).
#[derive(Debug, Clone, Copy)]
pub struct Attempt<'a> {
    pub proof: Proof,
    pub client: &'a str,
    pub account: &'a str,
}

impl Attempt<'_> {
    const fn action(&self) -> AuthAction {
        match self.proof {
            Proof::FirstFactor => AuthAction::SignIn,
            Proof::SecondFactorChallenge | Proof::SecondFactor { .. } => AuthAction::SecondFactor,
        }
    }
}

/// Whether an error is a wrong answer (counted as a failure), rather than a refusal for another reason.
const fn is_wrong_answer(error: &IdentityError) -> bool {
    matches!(
        error,
        IdentityError::InvalidCredentials
            | IdentityError::TotpCodeInvalid
            | IdentityError::WebAuthnVerificationFailed
            | IdentityError::RecoveryCodeInvalid
    )
}

/// A second factor's answer's reservation: its challenge, whether it took the account's last unit and the
/// challenge's last, and the account's unit.
type AccountUnit = (Option<Uuid>, bool, bool, Held);

/// The attempt guard.
pub struct AttemptGuard {
    limiter: Arc<RateLimiter>,
    pause: Arc<dyn Pause>,
    /// Ends the `aal1` sessions of an account whose second-factor answers reached the ceiling.
    sessions: Arc<SessionService>,
    /// Retires a challenge that took as many wrong answers as it may.
    factors: Arc<FactorService>,
}

impl AttemptGuard {
    #[must_use]
    pub fn new(
        limiter: Arc<RateLimiter>,
        pause: Arc<dyn Pause>,
        sessions: Arc<SessionService>,
        factors: Arc<FactorService>,
    ) -> Self {
        Self {
            limiter,
            pause,
            sessions,
            factors,
        }
    }

    /// Runs `run` as `attempt` when the limits let it, after the delay they impose, and records how it
    /// went; `run` is handed the [`Guarded`] leave the methods that check an answer ask for. Every limit that refuses before an answer is known to be wrong takes its unit before `run`
    /// starts, in one conditional write; a wrong answer keeps it, any other outcome gives it back.
    ///
    /// # Errors
    /// [`IdentityError::RateLimited`] when a limit refuses the attempt; whatever `run` answers; a port
    /// failure of the counters.
    pub async fn attempt<T, F, Step>(&self, attempt: Attempt<'_>, run: F) -> Result<T, IdentityError>
    where
        F: FnOnce(Guarded) -> Step + Send,
        Step: Future<Output = Result<T, IdentityError>> + Send,
    {
        let action = attempt.action();
        // The (account, client) pair's unit is taken before the attempt runs: a failure keeps it.
        let pair = match self
            .limiter
            .reserve_failure(action, attempt.client, attempt.account)
            .await?
        {
            SignInGate::Limited { retry_after_secs } => {
                return Err(IdentityError::RateLimited { retry_after_secs });
            }
            SignInGate::Go { delay, held } => {
                if !delay.is_zero() {
                    self.pause.pause(delay).await;
                }
                held
            }
        };
        let reserved = match self.reserve_account_unit(attempt).await {
            Ok(reserved) => reserved,
            Err(refused) => {
                self.limiter.give_back(&pair).await?;
                return Err(refused);
            }
        };
        let outcome = run(Guarded::new()).await;
        match (&outcome, reserved) {
            (Err(error), reserved) if is_wrong_answer(error) => {
                self.limiter.failed(action, attempt.account).await?;
                if let Some((challenge, last_for_account, last_for_challenge, _)) = reserved {
                    self.wrong_second_factor(attempt, challenge, last_for_account, last_for_challenge)
                        .await?;
                }
            }
            // Only a wrong answer keeps its units: a right one, or one refused for another reason (an
            // expired challenge, another factor's, a session that ended meanwhile), gives them back.
            (_, reserved) => {
                self.limiter.give_back(&pair).await?;
                if let Some((_, _, _, held)) = reserved {
                    self.limiter.give_back(&held).await?;
                }
                if outcome.is_ok() && attempt.proof == Proof::FirstFactor {
                    // Remembered for the e-mail ceiling; a failure is only logged: the sign-in succeeded.
                    if let Err(error) = self.limiter.signed_in(attempt.client, attempt.account).await {
                        tracing::warn!(%error, "could not remember the client of a sign-in");
                    }
                }
            }
        }
        outcome
    }

    /// The account's unit a second factor's answer takes before it is checked (its challenge's too), or
    /// why the answer is refused; `None` for a proof that takes none.
    async fn reserve_account_unit(&self, attempt: Attempt<'_>) -> Result<Option<AccountUnit>, IdentityError> {
        match attempt.proof {
            Proof::FirstFactor => Ok(None),
            Proof::SecondFactorChallenge => {
                if let Some(retry_after_secs) = self.limiter.second_factor_ceiling(attempt.account).await? {
                    return Err(IdentityError::RateLimited { retry_after_secs });
                }
                Ok(None)
            }
            Proof::SecondFactor { challenge } => {
                match self
                    .limiter
                    .reserve_second_factor_answer(attempt.account, challenge)
                    .await?
                {
                    Reservation::Refused { retry_after_secs } => {
                        Err(IdentityError::RateLimited { retry_after_secs })
                    }
                    Reservation::ChallengeUsedUp => {
                        if let Some(challenge) = challenge {
                            self.factors.retire_challenge(challenge).await?;
                        }
                        Err(IdentityError::ChallengeNotFound)
                    }
                    Reservation::Reserved {
                        last_for_account,
                        last_for_challenge,
                        held,
                    } => Ok(Some((challenge, last_for_account, last_for_challenge, held))),
                }
            }
        }
    }

    /// A wrong second-factor answer that took the last unit of its challenge removes the challenge; one
    /// that took the account's last unit ends the account's `aal1` sessions and tells the owner.
    async fn wrong_second_factor(
        &self,
        attempt: Attempt<'_>,
        challenge: Option<Uuid>,
        last_for_account: bool,
        last_for_challenge: bool,
    ) -> Result<(), IdentityError> {
        if let Some(challenge) = challenge.filter(|_| last_for_challenge) {
            self.factors.retire_challenge(challenge).await?;
        }
        if last_for_account {
            tracing::warn!("second-factor answers reached the account's ceiling; its aal1 sessions end");
            self.sessions.stop_second_factor_guessing(attempt.account).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
