//! The one assurance rule (PRODUCT.md §1a): what protects an account, what a session proves, and what a
//! session at that level may do. Every caller that lets a session add, finish or remove a way in, change
//! the password or the e-mail, see or end sessions, or reach product, organization-required or staff use
//! cases asks [`AssuranceRules::check`]; nothing else decides those questions.
//!
//! - An account is *protected* when it has a verified TOTP factor, a verified WebAuthn factor or a passkey
//!   ([`Protection`]). Recovery codes never protect an account on their own.
//! - A session of a protected account below `aal2` may sign in, pass a challenge, read its own factors and
//!   sign itself out, and nothing more.
//! - Adding a way in (a factor, a passkey, recovery codes, an access token) needs a recent sign-in, whatever
//!   protects the account (sudo mode).
//! - *Recent sign-in* means a first-factor authentication (password, link, code, passkey, provider) within
//!   [`RECENT_SIGN_IN_MINUTES`]; a factor step never counts as one ([`SessionProof`]).

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::identity::models::{Aal, RefreshToken};

mod protection;
pub use protection::Protection;

/// How recent a first-factor sign-in must be to change the password without the current one, or to add
/// an account's first way in (a recovery link signs in, so it counts).
pub const RECENT_SIGN_IN_MINUTES: i64 = 10;

/// How recent a first-factor sign-in must be to finish an account's first way in: a recent sign-in began
/// it, and an unfinished factor waits [`ENROLLMENT_WINDOW_SECS`] for its first challenge.
///
/// [`ENROLLMENT_WINDOW_SECS`]: crate::identity::factors::ENROLLMENT_WINDOW_SECS
pub const FINISH_FIRST_WAY_IN_MINUTES: i64 =
    RECENT_SIGN_IN_MINUTES + crate::identity::factors::ENROLLMENT_WINDOW_SECS / 60;

/// What a credential proves: its level, when its person last gave a first factor, and where it came
/// from. A session presents the proof of its live head; a personal access token presents the proof of the
/// session that made it, recorded when it was made ([`crate::tokens::AccessToken::made_with`]). Both are
/// judged by [`AssuranceRules::check`] alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionProof {
    pub aal: Aal,
    /// When the session's first factor was given (the session's start; a factor step never moves it).
    pub first_factor_at: DateTime<Utc>,
    /// The session (refresh-token family) it belongs to or was made by; `None` with a hosted identity
    /// service. A recovery that ends the family ends what it made.
    pub family: Option<Uuid>,
    /// The way in (factor or passkey) whose step raised it to `aal2`, when one did and is known: removing
    /// that way in lowers the session and what it made.
    pub raised_by: Option<Uuid>,
}

impl SessionProof {
    /// What the live head of a session proves.
    #[must_use]
    pub const fn of(head: &RefreshToken) -> Self {
        Self {
            aal: head.aal(),
            first_factor_at: head.family_started_at,
            family: Some(head.family_id),
            raised_by: match head.second_step {
                Some(step) => step.factor_id,
                None => None,
            },
        }
    }

    /// A proof at `aal` whose first factor was given at `first_factor_at`, with no family or raising way
    /// in known.
    #[must_use]
    pub const fn at(aal: Aal, first_factor_at: DateTime<Utc>) -> Self {
        Self {
            aal,
            first_factor_at,
            family: None,
            raised_by: None,
        }
    }

    /// The same session after its person gave the current password again at `now`.
    #[must_use]
    pub const fn reconfirmed(self, now: DateTime<Utc>) -> Self {
        Self {
            first_factor_at: now,
            ..self
        }
    }

    /// Whether the first factor was given within [`RECENT_SIGN_IN_MINUTES`] of `now`.
    #[must_use]
    pub fn signed_in_recently(&self, now: DateTime<Utc>) -> bool {
        self.signed_in_within(RECENT_SIGN_IN_MINUTES, now)
    }

    fn signed_in_within(&self, minutes: i64, now: DateTime<Utc>) -> bool {
        now - self.first_factor_at <= Duration::minutes(minutes)
    }
}

/// What a session asks to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Challenge and verify one of the account's verified factors (or a recovery code).
    PassChallenge,
    /// Read the account's own factors and passkeys.
    ReadOwnWaysIn,
    /// Sign this session out.
    SignOutSelf,
    /// Enroll a factor of any type, register a passkey, make recovery codes.
    AddWayIn,
    /// Finish registering a way in that is not verified yet (a TOTP factor's first code, a WebAuthn
    /// factor's registration ceremony).
    FinishWayIn,
    /// Remove a verified factor or a passkey, or the recovery codes.
    RemoveWayIn,
    /// Set a new password.
    ChangePassword,
    /// Change (or restate) the e-mail address.
    ChangeEmail,
    /// Change the profile data.
    EditAccount,
    /// See the account's sessions.
    ListSessions,
    /// End other sessions of the account.
    EndOtherSessions,
    /// Use the product API.
    UseProduct,
    /// Act in an organization that requires a second factor.
    ActWhereTwoFactorsRequired,
    /// Use a platform staff use case.
    UseStaff,
}

impl Action {
    /// Every action, for tables and tests.
    pub const ALL: [Self; 14] = [
        Self::PassChallenge,
        Self::ReadOwnWaysIn,
        Self::SignOutSelf,
        Self::AddWayIn,
        Self::FinishWayIn,
        Self::RemoveWayIn,
        Self::ChangePassword,
        Self::ChangeEmail,
        Self::EditAccount,
        Self::ListSessions,
        Self::EndOtherSessions,
        Self::UseProduct,
        Self::ActWhereTwoFactorsRequired,
        Self::UseStaff,
    ];
}

/// Why a session may not do what it asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The account is protected and the session is below `aal2` (Supabase's `insufficient_aal`).
    InsufficientAal,
    /// The person must give a first factor again (the current password, or a new sign-in).
    ReauthenticationNeeded,
    /// The session must pass a second factor first (`MFA_REQUIRED`); `has_factor` says whether the
    /// account has one to pass, or must add one.
    SecondFactorRequired { has_factor: bool },
}

/// Whether a session at `aal` of an account protected as `protection` says passed a second factor: it is
/// `aal2` and the factor it passed is still there (`None`: a hosted token's `aal` speaks for itself).
#[must_use]
pub fn passed_second_factor(protection: Option<Protection>, aal: Aal) -> bool {
    aal >= Aal::Aal2 && protection.is_none_or(Protection::is_protected)
}

/// The assurance rule, with the one setting it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssuranceRules {
    /// Whether platform staff need `aal2` for staff use cases (`PORTAL_STAFF_MFA=required`).
    pub staff_two_factor: bool,
    /// With a hosted identity service, whether its project says its users have no second factor
    /// (`PORTAL_HOSTED_MFA=off`): then an `aal1` hosted session may add a way in (an access token);
    /// otherwise only an `aal2` one may, since this server cannot see whether the user has a factor.
    pub hosted_without_factors: bool,
}

impl Default for AssuranceRules {
    fn default() -> Self {
        Self {
            staff_two_factor: true,
            hosted_without_factors: false,
        }
    }
}

impl AssuranceRules {
    /// Whether a session proving `session`, of an account protected as `protection` says (`None`: not known
    /// here, a hosted identity service whose token's `aal` speaks for it), may do `action` at `now`.
    ///
    /// # Errors
    /// The [`Refusal`] that says what the session must do first.
    pub fn check(
        &self,
        protection: Option<Protection>,
        session: SessionProof,
        action: Action,
        now: DateTime<Utc>,
    ) -> Result<(), Refusal> {
        let protected = protection.is_some_and(Protection::is_protected);
        let aal2 = session.aal >= Aal::Aal2;
        // Below aal2, a protected account's session may only sign in, pass a challenge, read and leave.
        let held_back = protected && !aal2;
        let within = |minutes| {
            if session.signed_in_within(minutes, now) {
                Ok(())
            } else {
                Err(Refusal::ReauthenticationNeeded)
            }
        };
        let recent = || within(RECENT_SIGN_IN_MINUTES);
        let passed_second_factor = || {
            if passed_second_factor(protection, session.aal) {
                Ok(())
            } else {
                Err(Refusal::SecondFactorRequired {
                    has_factor: protected,
                })
            }
        };
        match action {
            Action::PassChallenge | Action::ReadOwnWaysIn | Action::SignOutSelf => Ok(()),
            Action::AddWayIn | Action::FinishWayIn if held_back => Err(Refusal::InsufficientAal),
            // A way in (a factor, a passkey, recovery codes, an access token) needs a fresh first factor,
            // as GitHub's sudo mode does: a stolen old session adds none, to an unprotected account or a
            // protected one (and finishes none that its owner left unfinished).
            // A hosted session's factors are not known here: below aal2 it adds nothing unless the project
            // says its users have none.
            Action::AddWayIn if protection.is_none() && !aal2 && !self.hosted_without_factors => {
                Err(Refusal::SecondFactorRequired { has_factor: true })
            }
            Action::AddWayIn => recent(),
            Action::FinishWayIn => within(FINISH_FIRST_WAY_IN_MINUTES),
            Action::RemoveWayIn | Action::ChangeEmail | Action::EditAccount if held_back => {
                Err(Refusal::InsufficientAal)
            }
            Action::RemoveWayIn | Action::ChangeEmail | Action::EditAccount => Ok(()),
            Action::ChangePassword if held_back => Err(Refusal::InsufficientAal),
            Action::ChangePassword => recent(),
            Action::ListSessions | Action::EndOtherSessions | Action::UseProduct if held_back => {
                Err(Refusal::SecondFactorRequired { has_factor: true })
            }
            Action::ListSessions | Action::EndOtherSessions | Action::UseProduct => Ok(()),
            Action::ActWhereTwoFactorsRequired => passed_second_factor(),
            Action::UseStaff if self.staff_two_factor => passed_second_factor(),
            Action::UseStaff if held_back => Err(Refusal::SecondFactorRequired { has_factor: true }),
            Action::UseStaff => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::factors::FactorType;
    use crate::testing::noon;

    const NONE: Protection = Protection {
        totp: false,
        webauthn_factor: false,
        passkey: false,
    };
    const TOTP: Protection = Protection { totp: true, ..NONE };
    const KEY: Protection = Protection {
        webauthn_factor: true,
        ..NONE
    };
    const PASSKEY: Protection = Protection {
        passkey: true,
        ..NONE
    };

    fn session(aal: Aal, signed_in_minutes_ago: i64) -> SessionProof {
        SessionProof {
            aal,
            first_factor_at: noon() - Duration::minutes(signed_in_minutes_ago),
            family: None,
            raised_by: None,
        }
    }

    /// One row of the table: what each action answers for one account and session.
    fn row(rules: AssuranceRules, protection: Option<Protection>, proof: SessionProof) -> Vec<&'static str> {
        Action::ALL
            .iter()
            .map(|action| match rules.check(protection, proof, *action, noon()) {
                Ok(()) => "ok",
                Err(Refusal::InsufficientAal) => "aal",
                Err(Refusal::ReauthenticationNeeded) => "reauth",
                Err(Refusal::SecondFactorRequired { has_factor: true }) => "mfa",
                Err(Refusal::SecondFactorRequired { has_factor: false }) => "add",
            })
            .collect()
    }

    #[test]
    fn the_table_of_account_protection_by_session_by_action() {
        let rules = AssuranceRules::default();
        // Columns: challenge, read, sign out self, add, finish, remove, password, e-mail, profile or a
        // way in's name, list sessions, end others, product, organization requiring two factors, staff.
        let cases: [(&str, Option<Protection>, SessionProof, [&str; 14]); 11] = [
            (
                "unprotected, fresh aal1",
                Some(NONE),
                session(Aal::Aal1, 1),
                [
                    "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "add", "add",
                ],
            ),
            (
                "unprotected, old aal1 (a stolen session)",
                Some(NONE),
                session(Aal::Aal1, 60),
                [
                    "ok", "ok", "ok", "reauth", "reauth", "ok", "reauth", "ok", "ok", "ok", "ok", "ok",
                    "add", "add",
                ],
            ),
            (
                "unprotected, aal1 signed in 20 minutes ago (finishing what it began)",
                Some(NONE),
                session(Aal::Aal1, 20),
                [
                    "ok", "ok", "ok", "reauth", "ok", "ok", "reauth", "ok", "ok", "ok", "ok", "ok", "add",
                    "add",
                ],
            ),
            (
                "totp, fresh aal1 (a password alone)",
                Some(TOTP),
                session(Aal::Aal1, 1),
                [
                    "ok", "ok", "ok", "aal", "aal", "aal", "aal", "aal", "aal", "mfa", "mfa", "mfa", "mfa",
                    "mfa",
                ],
            ),
            (
                "security key, fresh aal1",
                Some(KEY),
                session(Aal::Aal1, 1),
                [
                    "ok", "ok", "ok", "aal", "aal", "aal", "aal", "aal", "aal", "mfa", "mfa", "mfa", "mfa",
                    "mfa",
                ],
            ),
            (
                "passkey only, fresh aal1",
                Some(PASSKEY),
                session(Aal::Aal1, 1),
                [
                    "ok", "ok", "ok", "aal", "aal", "aal", "aal", "aal", "aal", "mfa", "mfa", "mfa", "mfa",
                    "mfa",
                ],
            ),
            (
                "totp, fresh aal2",
                Some(TOTP),
                session(Aal::Aal2, 1),
                [
                    "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok",
                ],
            ),
            (
                "passkey, old aal2 (the factor step does not renew the sign-in; sudo mode)",
                Some(PASSKEY),
                session(Aal::Aal2, 60),
                [
                    "ok", "ok", "ok", "reauth", "reauth", "ok", "reauth", "ok", "ok", "ok", "ok", "ok", "ok",
                    "ok",
                ],
            ),
            (
                "an aal2 session whose factor was removed since",
                Some(NONE),
                session(Aal::Aal2, 1),
                [
                    "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "add", "add",
                ],
            ),
            (
                "hosted, aal1",
                None,
                session(Aal::Aal1, 1),
                [
                    "ok", "ok", "ok", "mfa", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "add", "add",
                ],
            ),
            (
                "hosted, aal2",
                None,
                session(Aal::Aal2, 1),
                [
                    "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok",
                ],
            ),
        ];
        for (name, protection, proof, expected) in cases {
            assert_eq!(row(rules, protection, proof), expected, "{name}");
        }
    }

    #[test]
    fn with_staff_two_factor_optional_only_a_held_back_session_is_refused_staff_use_cases() {
        let rules = AssuranceRules {
            staff_two_factor: false,
            ..AssuranceRules::default()
        };
        let staff =
            |protection, aal| rules.check(Some(protection), session(aal, 1), Action::UseStaff, noon());
        assert_eq!(staff(NONE, Aal::Aal1), Ok(()));
        assert_eq!(staff(TOTP, Aal::Aal2), Ok(()));
        assert_eq!(
            staff(TOTP, Aal::Aal1),
            Err(Refusal::SecondFactorRequired { has_factor: true })
        );
    }

    #[test]
    fn giving_the_current_password_again_is_a_recent_sign_in() {
        let old = session(Aal::Aal1, 60);
        assert!(!old.signed_in_recently(noon()));
        assert!(old.reconfirmed(noon()).signed_in_recently(noon()));
        assert!(session(Aal::Aal1, RECENT_SIGN_IN_MINUTES).signed_in_recently(noon()));
        assert!(!session(Aal::Aal1, RECENT_SIGN_IN_MINUTES + 1).signed_in_recently(noon()));
    }

    #[test]
    fn recovery_codes_alone_do_not_protect_an_account() {
        use crate::identity::factors::FactorStatus;
        let mut factor = crate::identity::test_support::factor(FactorStatus::Verified);
        factor.factor_type = FactorType::RecoveryCode;
        assert!(!Protection::of(std::slice::from_ref(&factor), false).is_protected());
        factor.factor_type = FactorType::Totp;
        assert_eq!(Protection::of(std::slice::from_ref(&factor), false), TOTP);
        factor.status = FactorStatus::Unverified;
        assert!(!Protection::of(&[factor], false).is_protected());
        assert_eq!(Protection::of(&[], true), PASSKEY);
    }
}
