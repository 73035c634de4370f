//! What protects an account beyond its first factor, in a file of its own: a live session's read carries it
//! ([`LiveSession`](crate::identity::models::LiveSession)) without naming the rules that judge it.

use crate::identity::factors::{Factor, FactorType};

/// What protects an account beyond its first factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Protection {
    /// A verified TOTP factor.
    pub totp: bool,
    /// A verified WebAuthn (security key) factor.
    pub webauthn_factor: bool,
    /// A passkey (it signs in at `aal2` and steps a session up).
    pub passkey: bool,
}

impl Protection {
    /// What the account's factors and passkeys give.
    #[must_use]
    pub fn of(factors: &[Factor], has_passkey: bool) -> Self {
        let verified = |kind: FactorType| factors.iter().any(|f| f.factor_type == kind && f.is_verified());
        Self {
            totp: verified(FactorType::Totp),
            webauthn_factor: verified(FactorType::WebAuthn),
            passkey: has_passkey,
        }
    }

    /// Whether a session of this account must reach `aal2` before it does more than sign in.
    #[must_use]
    pub const fn is_protected(self) -> bool {
        self.totp || self.webauthn_factor || self.passkey
    }
}
