//! A product caller as authenticating its bearer found it, with the proof of its credential.

use uuid::Uuid;

use crate::common::{Caller, PlatformRole};
use crate::identity::assurance::{Protection, SessionProof, passed_second_factor};
use crate::identity::models::Aal;
use crate::membership::SecondFactor;

/// A product caller and the proof of the credential the bearer presented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub caller: Caller,
    /// What the credential proves: a session's live head (built-in), a hosted token's own claims, or the
    /// proof a personal access token recorded from the session that made it.
    pub proof: SessionProof,
    /// The built-in identity service's session (refresh-token family) the bearer belongs to; `None` with a
    /// hosted identity service and for a personal access token.
    pub session_id: Option<Uuid>,
    /// What protects the account: known with the built-in identity service (read with the session),
    /// `None` with a hosted one (only its token's `aal` speaks for it).
    pub protection: Option<Protection>,
    /// The platform role bound to the account that this session may not use yet (staff use cases need a
    /// session that passed a second factor): `caller.platform_role` is `None` meanwhile, so no staff use
    /// case is reached through any route.
    pub withheld_role: Option<PlatformRole>,
}

impl Authenticated {
    /// What the credential proves (the same at every moment: recency is the rule's to judge).
    #[must_use]
    pub const fn proof(&self) -> SessionProof {
        self.proof
    }

    /// The credential's level.
    #[must_use]
    pub const fn aal(&self) -> Aal {
        self.proof.aal
    }

    /// Whether the credential passed a second factor, for an organization that requires one: an `aal2`
    /// proof of an account whose factor is still there (built-in), or a token claiming `aal2` (hosted:
    /// the project's `aal` is honoured as the built-in one is). Costs no read.
    #[must_use]
    pub fn second_factor(&self) -> SecondFactor {
        if passed_second_factor(self.protection, self.proof.aal) {
            SecondFactor::Passed
        } else {
            SecondFactor::NotPassed
        }
    }
}
