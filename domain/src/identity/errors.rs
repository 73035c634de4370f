//! The errors of the identity use cases, with the HTTP status and the Supabase `error_code` each means.

use crate::common::RepoError;
use crate::identity::ports::PasswordHashError;
use crate::identity::sessions::tokens::TokenError;

pub use crate::common::FieldErrors;

/// Message of a wrong e-mail or password (identical whether or not the e-mail has an account).
pub const INVALID_CREDENTIALS: &str = "Invalid login credentials";
pub const EMAIL_NOT_CONFIRMED: &str = "Email not confirmed";
pub const USER_ALREADY_EXISTS: &str = "User already registered";
pub const CODE_INVALID: &str = "Token has expired or is invalid";

/// What an identity use case can fail with. Each variant's doc names its HTTP status; [`error_code`]
/// gives the Supabase Auth `error_code`.
///
/// [`error_code`]: IdentityError::error_code
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// 422: an invalid e-mail address or a password the policy refuses (`fields` says which).
    #[error("{}", .0.joined(" "))]
    Validation(FieldErrors),
    /// 400: wrong e-mail or password, or no such account, or no password on it.
    #[error("{}", INVALID_CREDENTIALS)]
    InvalidCredentials,
    /// 400: right password, but the e-mail address is not confirmed yet.
    #[error("{}", EMAIL_NOT_CONFIRMED)]
    EmailNotConfirmed,
    /// 422: sign-up of a taken address when accounts are confirmed at once (then no uniform answer is
    /// possible: the other answer is a session).
    #[error("{}", USER_ALREADY_EXISTS)]
    UserAlreadyExists,
    /// 422: sign-up is turned off on this server.
    #[error("Signups not allowed for this instance")]
    SignupsDisabled,
    /// 400: no such refresh token.
    #[error("Invalid Refresh Token: Refresh Token Not Found")]
    RefreshTokenNotFound,
    /// 400: the refresh token was already used; the whole session has been revoked.
    #[error("Invalid Refresh Token: Already Used")]
    RefreshTokenReused,
    /// 400: the session was signed out, idle for 7 days or started 30 days ago.
    #[error("Invalid Refresh Token: Session Expired")]
    SessionExpired,
    /// 403: the e-mail code or link is unknown, used or expired.
    #[error("{}", CODE_INVALID)]
    InvalidCode,
    /// 401: the bearer is not a valid identity access token.
    #[error("Invalid or expired access token")]
    InvalidAccessToken(#[source] TokenError),
    /// 403: the access token's session was signed out, revoked or has expired (the token itself is still
    /// well signed and unexpired).
    #[error("Session from session_id claim in JWT does not exist")]
    SessionNotFound,
    /// 404: the token's account no longer exists.
    #[error("User not found")]
    UserNotFound,
    /// 422: the sign-in provider shared no e-mail address, or one it has not verified.
    #[error("The sign-in provider did not share a verified email address")]
    ProviderEmailMissing,
    /// 409: an account with the provider's e-mail exists, but the provider did not verify the address or
    /// the account has not confirmed it, so they are not joined.
    #[error(
        "An account with this email address already exists. Sign in with it first, or confirm its email address."
    )]
    AccountNotLinkable,
    /// 400: changing the password needs the current password (`current_password`) unless the session
    /// signed in within the last [`RECENT_SIGN_IN_MINUTES`](crate::identity::account::RECENT_SIGN_IN_MINUTES) minutes
    /// (which covers a password-recovery link); a wrong current password is [`IdentityError::InvalidCredentials`].
    #[error("Enter your current password to set a new one.")]
    ReauthenticationNeeded,
    /// 400: adding or finishing an account's first way in needs a first-factor sign-in within the last
    /// [`RECENT_SIGN_IN_MINUTES`](crate::identity::assurance::RECENT_SIGN_IN_MINUTES) minutes (a factor
    /// step does not count): sign in again.
    #[error("Sign in again to continue: adding a second factor needs a sign-in within the last 10 minutes.")]
    RecentSignInNeeded,
    /// 403: the account has a second factor, so changing its password or e-mail needs an `aal2` session.
    #[error("AAL2 session is required to update email or password when MFA is enabled.")]
    Aal2RequiredToUpdateUser,
    /// 403: the account has a second factor, so ending its other sessions needs an `aal2` session.
    #[error("AAL2 session is required to sign out other sessions when MFA is enabled.")]
    Aal2RequiredToSignOutOthers,
    /// 429: too many attempts; try again after `retry_after_secs`.
    #[error("Request rate limit reached")]
    RateLimited { retry_after_secs: u64 },
    /// 429: too many e-mails asked for; try again after `retry_after_secs`.
    #[error("email rate limit exceeded")]
    EmailRateLimited { retry_after_secs: u64 },
    /// 422: changing the e-mail address is not offered.
    #[error("Changing the email address is not supported")]
    EmailChangeUnsupported,
    /// 404: no factor of the account has this id.
    #[error("Factor not found")]
    FactorNotFound,
    /// 422: the factor has no challenge of this id.
    #[error("MFA factor with the provided challenge ID not found")]
    ChallengeNotFound,
    /// 422: the challenge was asked for from another client address, or already verified.
    #[error("Challenge and verify IP addresses mismatch.")]
    ChallengeIpMismatch,
    /// 422: the challenge is older than five minutes.
    #[error("MFA challenge {0} has expired, verify against another challenge or create a new challenge.")]
    ChallengeExpired(uuid::Uuid),
    /// 422: the code is not the factor's code now, or was used already.
    #[error("Invalid TOTP code entered")]
    TotpCodeInvalid,
    /// 403: the account has a verified factor, so a new one needs an `aal2` session.
    #[error("AAL2 required to enroll a new factor")]
    Aal2RequiredToEnroll,
    /// 422: removing a verified factor needs an `aal2` session.
    #[error("AAL2 required to unenroll verified factor")]
    Aal2RequiredToUnenroll,
    /// 422: the account has a factor of this friendly name.
    #[error("A factor with the friendly name \"{0}\" for this user already exists")]
    FactorNameConflict(String),
    /// 422: the account holds as many factors as allowed.
    #[error("Maximum number of verified factors reached, unenroll to continue")]
    TooManyFactors,
    /// 422: this kind of factor (`phone`, `webauthn`) is not offered.
    #[error("MFA enroll is disabled for {}", factor_type_title(.0))]
    FactorTypeNotEnabled(&'static str),
    /// 422: a `webauthn` factor is challenged or verified while the server has no relying party.
    #[error("MFA verification is disabled for WebAuthn")]
    FactorVerifyNotEnabled,
    /// 422: the recovery code is wrong or was used already.
    #[error("Invalid recovery code entered")]
    RecoveryCodeInvalid,
    /// 422: the account already has a set of recovery codes (regenerate it instead).
    #[error("A set of recovery codes already exists for this user; regenerate it instead")]
    RecoveryCodesExist,
    /// 422: recovery codes need another verified factor next to them.
    #[error("Recovery codes cannot be the only factor: verify another factor first")]
    RecoveryCodesSoleFactor,
    /// 422: the recovery-code factor is verified with `POST /factors/recovery-codes/verify`, never challenged.
    #[error("Recovery codes are verified with /factors/recovery-codes/verify")]
    RecoveryCodesNotChallenged,
    /// 400: no passkey ceremony of this id is waiting (unknown, another account's, or used).
    #[error("Challenge not found or already used")]
    WebAuthnChallengeNotFound,
    /// 400: the passkey ceremony is older than five minutes.
    #[error("Challenge has expired")]
    WebAuthnChallengeExpired,
    /// 400: the browser's WebAuthn answer does not verify (or names no passkey of this service).
    #[error("Credential verification failed")]
    WebAuthnVerificationFailed,
    /// 422: this credential is registered already.
    #[error("This passkey is already registered")]
    WebAuthnCredentialExists,
    /// 422: the account holds as many passkeys as allowed.
    #[error("Maximum number of passkeys reached")]
    TooManyPasskeys,
    /// 404: the account has no passkey of this id.
    #[error("Passkey not found")]
    PasskeyNotFound,
    /// 403: adding a passkey to an account with a second factor, or removing one, needs an `aal2` session.
    #[error("AAL2 required to manage passkeys")]
    Aal2RequiredForPasskeys,
    /// 500: the password hasher failed.
    #[error(transparent)]
    Hasher(#[from] PasswordHashError),
    /// 500: a token could not be signed.
    #[error("could not sign a token")]
    Signing(#[source] TokenError),
    /// 500 (or as mapped): the store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl IdentityError {
    /// The Supabase Auth `error_code` of this error.
    #[must_use]
    pub fn error_code(&self) -> &'static str {
        match self {
            Self::Validation(fields) if fields.get("password").is_some() && fields.get("email").is_none() => {
                "weak_password"
            }
            Self::Validation(fields) if fields.get("email").is_some() => "email_address_invalid",
            Self::Validation(_) => "validation_failed",
            Self::InvalidCredentials => "invalid_credentials",
            Self::EmailNotConfirmed => "email_not_confirmed",
            Self::UserAlreadyExists => "user_already_exists",
            Self::SignupsDisabled => "signup_disabled",
            Self::RefreshTokenNotFound => "refresh_token_not_found",
            Self::RefreshTokenReused => "refresh_token_already_used",
            Self::SessionExpired => "session_expired",
            Self::InvalidCode => "otp_expired",
            Self::InvalidAccessToken(_) => "bad_jwt",
            Self::SessionNotFound => "session_not_found",
            Self::UserNotFound => "user_not_found",
            Self::ProviderEmailMissing => "provider_email_needs_verification",
            Self::AccountNotLinkable => "identity_already_exists",
            Self::EmailChangeUnsupported => "feature_not_supported",
            Self::ReauthenticationNeeded | Self::RecentSignInNeeded => "reauthentication_needed",
            Self::Aal2RequiredToUpdateUser | Self::Aal2RequiredToSignOutOthers => "insufficient_aal",
            Self::RateLimited { .. } => "over_request_rate_limit",
            Self::EmailRateLimited { .. } => "over_email_send_rate_limit",
            Self::FactorNotFound | Self::ChallengeNotFound => "mfa_factor_not_found",
            Self::ChallengeIpMismatch => "mfa_ip_address_mismatch",
            Self::ChallengeExpired(_) => "mfa_challenge_expired",
            Self::TotpCodeInvalid => "mfa_verification_failed",
            Self::Aal2RequiredToEnroll | Self::Aal2RequiredToUnenroll => "insufficient_aal",
            Self::FactorNameConflict(_) => "mfa_factor_name_conflict",
            Self::TooManyFactors => "too_many_enrolled_mfa_factors",
            Self::FactorTypeNotEnabled("phone") => "mfa_phone_enroll_not_enabled",
            Self::FactorTypeNotEnabled(_) => "mfa_webauthn_enroll_not_enabled",
            Self::FactorVerifyNotEnabled => "mfa_webauthn_verify_not_enabled",
            Self::RecoveryCodeInvalid => "mfa_verification_failed",
            Self::RecoveryCodesExist => "mfa_verified_factor_exists",
            Self::RecoveryCodesSoleFactor => "mfa_recovery_codes_sole_factor",
            Self::RecoveryCodesNotChallenged => "validation_failed",
            Self::WebAuthnChallengeNotFound => "webauthn_challenge_not_found",
            Self::WebAuthnChallengeExpired => "webauthn_challenge_expired",
            Self::WebAuthnVerificationFailed => "webauthn_verification_failed",
            Self::WebAuthnCredentialExists => "webauthn_credential_exists",
            Self::TooManyPasskeys => "too_many_passkeys",
            Self::PasskeyNotFound => "validation_failed",
            Self::Aal2RequiredForPasskeys => "insufficient_aal",
            Self::Hasher(_) | Self::Signing(_) | Self::Repo(_) => "unexpected_failure",
        }
    }

    /// The field messages of a validation error.
    #[must_use]
    pub fn fields(&self) -> Option<&FieldErrors> {
        match self {
            Self::Validation(fields) => Some(fields),
            _ => None,
        }
    }
}

fn factor_type_title(factor_type: &str) -> &'static str {
    if factor_type == "phone" {
        "Phone"
    } else {
        "WebAuthn"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_validation_error_reads_every_message_in_the_order_found() {
        let mut fields = FieldErrors::single("email", "Please enter a valid email address");
        fields.add("password", "Password is required");
        assert_eq!(
            IdentityError::Validation(fields).to_string(),
            "Please enter a valid email address Password is required"
        );
    }

    #[test]
    fn a_password_only_validation_error_is_a_weak_password() {
        let weak = IdentityError::Validation(FieldErrors::single("password", "too short"));
        assert_eq!(weak.error_code(), "weak_password");
        let bad_email = IdentityError::Validation(FieldErrors::single("email", "bad"));
        assert_eq!(bad_email.error_code(), "email_address_invalid");
        assert_eq!(bad_email.fields().and_then(|f| f.get("email")), Some("bad"));
    }

    #[test]
    fn the_credential_messages_are_the_supabase_ones() {
        assert_eq!(
            IdentityError::InvalidCredentials.to_string(),
            "Invalid login credentials"
        );
        assert_eq!(
            IdentityError::EmailNotConfirmed.to_string(),
            "Email not confirmed"
        );
        assert_eq!(
            IdentityError::InvalidCode.to_string(),
            "Token has expired or is invalid"
        );
    }
}
