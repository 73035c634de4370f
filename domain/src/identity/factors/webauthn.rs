//! The `webauthn` factor (Supabase Auth's WebAuthn MFA, auth-js `mfa.webauthn.register` and
//! `mfa.webauthn.authenticate`): a WebAuthn credential as a second factor.
//!
//! - Enrolling creates an unverified factor without a credential ([`FactorService::enroll_factor`]).
//! - Its challenge starts a ceremony with the server's relying party (the passkeys' one): registration
//!   (`create`) while the factor is unverified, an assertion with its one credential (`request`) once it is
//!   verified. The ceremony's state is kept with the challenge (five minutes, once, from the same client
//!   address as a TOTP challenge). A client naming another relying party (`rpId`, `rpOrigins`) is refused.
//! - Verifying a registration stores the credential and verifies the factor; verifying an assertion
//!   checks it with the credential, and its signature counter must grow (unless the authenticator keeps
//!   none), as a passkey's. Either raises the session to `aal2` (`amr` `mfa/webauthn`), with the rules of
//!   a TOTP verification (the compare-and-set, the owner's e-mail, the other `aal1` sessions ended).

use uuid::Uuid;

use super::FactorService;
use super::{
    Factor, FactorCeremony, FactorCeremonyKind, FactorChallenge, FactorType, FactorUse, WebAuthnCredential,
};
use crate::common::{FieldErrors, RepoError};
use crate::identity::errors::IdentityError;
use crate::identity::models::SecondFactorMethod;
use crate::identity::ports::{CeremonyError, WebAuthnCeremony};
use crate::identity::sessions::Session;
use crate::identity::sessions::tokens::AccessTokenClaims;

/// The relying party a client says it uses (auth-js sends `webauthn: {rpId, rpOrigins}`, by default the
/// page's host name and origin). The server's own relying party is always the one used; another one named
/// here is refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelyingPartyClaim {
    pub rp_id: Option<String>,
    pub rp_origins: Option<Vec<String>>,
}

/// A started challenge: the factor, the challenge, and for a `webauthn` factor its ceremony's kind and
/// options (`PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`).
#[derive(Debug, Clone)]
pub struct ChallengeStarted {
    pub factor: Factor,
    pub challenge: FactorChallenge,
    pub webauthn: Option<(FactorCeremonyKind, serde_json::Value)>,
}

/// The answer to a challenge: a TOTP code, or a WebAuthn ceremony's.
#[derive(Debug, Clone, Copy)]
pub enum FactorAnswer<'a> {
    Code(&'a str),
    WebAuthn(WebAuthnAnswer<'a>),
}

/// A browser's answer to a `webauthn` factor's challenge.
#[derive(Debug, Clone, Copy)]
pub struct WebAuthnAnswer<'a> {
    /// `create` or `request`, as the challenge said.
    pub kind: &'a str,
    pub relying_party: &'a RelyingPartyClaim,
    /// `RegistrationResponseJSON` or `AuthenticationResponseJSON`, as auth-js serializes them.
    pub credential: &'a serde_json::Value,
}

/// A ceremony's failure: the browser's answer is refused as Supabase Auth refuses it (400
/// `webauthn_verification_failed`), the server's own failure is a 500.
fn ceremony_error(error: CeremonyError) -> IdentityError {
    match error {
        CeremonyError::Rejected(_) => IdentityError::WebAuthnVerificationFailed,
        CeremonyError::Internal(reason) => {
            IdentityError::Repo(RepoError::backend("a WebAuthn ceremony", reason))
        }
    }
}

/// Refuses a relying party the client names that is not the server's.
fn check_relying_party(
    ceremony: &dyn WebAuthnCeremony,
    claim: &RelyingPartyClaim,
) -> Result<(), IdentityError> {
    let ours = ceremony.relying_party();
    if claim.rp_id.as_deref().is_some_and(|id| id.trim() != ours.id) {
        return Err(IdentityError::Validation(FieldErrors::single(
            "webauthn.rpId",
            format!("rpId must be {} (open the portal at {})", ours.id, ours.origin),
        )));
    }
    if claim
        .rp_origins
        .iter()
        .flatten()
        .any(|origin| origin.trim().trim_end_matches('/') != ours.origin)
    {
        return Err(IdentityError::Validation(FieldErrors::single(
            "webauthn.rpOrigins",
            format!("rpOrigins must be [\"{}\"]", ours.origin),
        )));
    }
    Ok(())
}

impl FactorService {
    fn ceremony(&self) -> Result<&dyn WebAuthnCeremony, IdentityError> {
        self.webauthn
            .as_deref()
            .ok_or(IdentityError::FactorVerifyNotEnabled)
    }

    /// The challenge of a `webauthn` factor: a registration while it is unverified (excluding the
    /// account's other factors' credentials), an assertion with its credential once it is verified.
    ///
    /// # Errors
    /// [`IdentityError::FactorVerifyNotEnabled`] without a relying party; [`IdentityError::Validation`]
    /// (`webauthn.rpId`, `webauthn.rpOrigins`) for another relying party; a port failure.
    pub(super) async fn challenge_webauthn_factor(
        &self,
        claims: &AccessTokenClaims,
        factor: Factor,
        ip: &str,
        relying_party: &RelyingPartyClaim,
    ) -> Result<ChallengeStarted, IdentityError> {
        let ceremony = self.ceremony()?;
        check_relying_party(ceremony, relying_party)?;
        let (kind, start) = match (factor.is_verified(), factor.webauthn.as_ref()) {
            (true, Some(credential)) => (
                FactorCeremonyKind::Request,
                ceremony
                    .start_factor_authentication(&credential.public_key)
                    .map_err(ceremony_error)?,
            ),
            (true, None) => {
                return Err(IdentityError::Repo(RepoError::backend(
                    "challenging a webauthn factor",
                    "the verified factor holds no credential",
                )));
            }
            (false, _) => {
                let account = self.issuer.account(claims.sub).await?;
                let exclude: Vec<String> = self
                    .factors
                    .list_for_user(claims.sub)
                    .await?
                    .into_iter()
                    .filter(|f| f.factor_type == FactorType::WebAuthn)
                    .filter_map(|f| f.webauthn.map(|c| c.credential_id))
                    .collect();
                (
                    FactorCeremonyKind::Create,
                    ceremony
                        .start_factor_registration(account.id, account.email.as_str(), &exclude)
                        .map_err(ceremony_error)?,
                )
            }
        };
        let challenge = FactorChallenge {
            id: Uuid::new_v4(),
            factor_id: factor.id,
            created_at: self.issuer.now(),
            verified_at: None,
            ip_address: ip.to_owned(),
            webauthn: Some(FactorCeremony {
                kind,
                state: start.state,
            }),
        };
        self.factors.insert_challenge(&challenge).await?;
        Ok(ChallengeStarted {
            factor,
            challenge,
            webauthn: Some((kind, start.options)),
        })
    }

    /// Verifies the browser's answer to a `webauthn` factor's challenge: a registration stores the
    /// credential (and verifies the factor), an assertion must verify with it and its counter grow.
    ///
    /// # Errors
    /// [`IdentityError::FactorVerifyNotEnabled`]; [`IdentityError::Validation`] (another relying party,
    /// a `type` that is not the challenge's); [`IdentityError::ChallengeNotFound`] (also for one verified
    /// already, as Supabase Auth removes a used WebAuthn challenge); [`IdentityError::ChallengeIpMismatch`];
    /// [`IdentityError::ChallengeExpired`]; [`IdentityError::WebAuthnVerificationFailed`] for an answer
    /// that does not verify (another credential, another challenge, a counter that did not grow, a
    /// verification that lost a race); [`IdentityError::SessionNotFound`]; a port failure.
    pub(super) async fn verify_webauthn_factor(
        &self,
        claims: &AccessTokenClaims,
        factor: Factor,
        challenge_id: Uuid,
        answer: WebAuthnAnswer<'_>,
        ip: &str,
    ) -> Result<Session, IdentityError> {
        let ceremony = self.ceremony()?;
        check_relying_party(ceremony, answer.relying_party)?;
        let kind = FactorCeremonyKind::parse(answer.kind).ok_or_else(|| {
            IdentityError::Validation(FieldErrors::single(
                "webauthn.type",
                "WebAuthn type must be create or request",
            ))
        })?;
        let used = self
            .factors
            .find_challenge(factor.id, challenge_id)
            .await?
            .is_some_and(|c| c.verified_at.is_some());
        if used {
            return Err(IdentityError::ChallengeNotFound);
        }
        let now = self.issuer.now();
        let challenge = self.live_challenge(&factor, challenge_id, ip, now).await?;
        let Some(state) = challenge.webauthn.as_ref() else {
            return Err(IdentityError::ChallengeNotFound);
        };
        if state.kind != kind {
            return Err(IdentityError::Validation(FieldErrors::single(
                "webauthn.type",
                format!("this challenge is a {} ceremony", state.kind.code()),
            )));
        }
        let used = match (kind, factor.webauthn.as_ref()) {
            (FactorCeremonyKind::Create, None) if !factor.is_verified() => {
                let registered = ceremony
                    .finish_factor_registration(&state.state, answer.credential)
                    .map_err(ceremony_error)?;
                FactorUse::WebAuthnRegistered(WebAuthnCredential {
                    credential_id: registered.credential_id,
                    public_key: registered.public_key,
                    sign_count: i64::from(registered.sign_count),
                })
            }
            (FactorCeremonyKind::Request, Some(credential)) if factor.is_verified() => {
                let verified = ceremony
                    .finish_factor_authentication(&state.state, answer.credential)
                    .map_err(ceremony_error)?;
                if !credential.sign_count_follows(verified.sign_count) {
                    return Err(IdentityError::WebAuthnVerificationFailed);
                }
                FactorUse::WebAuthnAsserted {
                    old: credential.sign_count,
                    new: i64::from(verified.sign_count),
                }
            }
            // The factor changed since the challenge (another challenge registered it first).
            _ => return Err(IdentityError::WebAuthnVerificationFailed),
        };
        self.pass_second_factor(
            claims,
            &factor,
            &challenge,
            used,
            SecondFactorMethod::WebAuthn,
            IdentityError::WebAuthnVerificationFailed,
        )
        .await
    }
}
