//! What every way of signing in shares: starting a session (a new refresh-token family and its access
//! token), the user record a session answers, and the e-mailed link and six-digit code that sign-up,
//! magic links and recovery send.

use crate::common::EmailAddress;
use crate::common::secrets::digest_secret;
use crate::identity::codes::emails::{code_email, verify_link};
use crate::identity::errors::IdentityError;
use crate::identity::models::{
    ACCESS_TOKEN_TTL_SECS, Account, AuthMethod, OPAQUE_TOKEN_BYTES, OneTimeCode, OtpPurpose, RefreshToken,
};
use crate::identity::sessions::tokens::{AccessGrant, AccessTokenClaims};
use crate::identity::sessions::{IdentityService, Session, UserRecord};

impl IdentityService {
    /// Starts a new session (a new refresh-token family) for the account and records the sign-in. A session
    /// started from an e-mailed link or code ([`AuthMethod::proves_email`]) of an unproven account first
    /// hands the account to the address's owner ([`Self::prove_address`]).
    pub(in crate::identity) async fn start_session(
        &self,
        mut account: Account,
        method: AuthMethod,
    ) -> Result<Session, IdentityError> {
        if method.proves_email() {
            // Verification proves the address before it starts a session; this keeps the rule for any
            // other caller of a proving method.
            self.prove_address(&mut account, None).await?;
        }
        let now = self.clock.now();
        let secret = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let token = RefreshToken::start(digest_secret(&secret), account.id, method, now);
        self.refresh_tokens.insert(&token).await?;
        self.accounts.touch_sign_in(account.id, now).await?;
        account.last_sign_in_at = Some(now);
        let user = self.user_record(account).await?;
        self.session_for(user, &token, secret).await
    }

    pub(in crate::identity) async fn user_record(
        &self,
        account: Account,
    ) -> Result<UserRecord, IdentityError> {
        let identities = self.links.list_for_user(account.id).await?;
        let factors = self.factors_of(account.id).await?;
        Ok(UserRecord {
            account,
            identities,
            factors,
        })
    }

    pub(in crate::identity) async fn session_for(
        &self,
        user: UserRecord,
        token: &RefreshToken,
        refresh_secret: String,
    ) -> Result<Session, IdentityError> {
        let now = self.clock.now();
        let claims = AccessTokenClaims::issue(
            AccessGrant {
                user_id: user.account.id,
                email: &user.account.email,
                session_id: token.family_id,
                method: token.method,
                authenticated_at: token.family_started_at,
                providers: user.providers(),
                user_metadata: user.account.profile.clone(),
                second_step: token.second_step,
            },
            &self.config.issuer,
            now,
        );
        let access_token = self
            .signer
            .sign_access(&claims)
            .await
            .map_err(IdentityError::Signing)?;
        Ok(Session {
            access_token,
            token_type: "bearer",
            expires_in: ACCESS_TOKEN_TTL_SECS,
            expires_at: claims.exp,
            refresh_token: refresh_secret,
            session_id: token.family_id,
            user,
            choose_password: false,
        })
    }

    /// The stored digest of a typed six-digit code: keyed with the server's digest key and bound to the
    /// e-mail, since codes repeat across addresses.
    pub(in crate::identity) fn typed_code_digest(&self, email: &EmailAddress, code: &str) -> String {
        self.digest_key.typed_code(email, code)
    }

    /// Issues a link token and a six-digit code for the e-mail and puts the e-mail carrying them in the
    /// outbox, atomically (the store retires the earlier unused codes of the address and purpose).
    pub(in crate::identity) async fn send_codes(
        &self,
        purpose: OtpPurpose,
        to: &EmailAddress,
        redirect_to: Option<&str>,
        pending: Option<PendingSignUp>,
    ) -> Result<(), IdentityError> {
        let now = self.clock.now();
        let link_token = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let code = six_digit_code(&self.secrets.random_bytes(8));
        let codes = [
            OneTimeCode::issue(purpose, to.clone(), digest_secret(&link_token), now),
            OneTimeCode::issue_typed(purpose, to.clone(), self.typed_code_digest(to, &code), now),
        ]
        .map(|mut issued| {
            if let Some(pending) = &pending {
                issued.pending_password_hash = Some(pending.password_hash.clone());
                issued.browser_hash = Some(pending.browser_hash.clone());
            }
            issued
        });
        let link = verify_link(&self.config.public_url, &link_token, purpose, redirect_to);
        let email = code_email(purpose, to, &link, &code);
        self.codes.insert_with_email(&codes, &email).await?;
        Ok(())
    }
}

/// Six decimal digits from eight random bytes (the modulo bias is below 10⁻¹³).
#[must_use]
pub fn six_digit_code(bytes: &[u8]) -> String {
    let mut buffer = [0u8; 8];
    for (slot, byte) in buffer.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    format!("{:06}", u64::from_be_bytes(buffer) % 1_000_000)
}

/// What a sign-up's codes carry: the password it chose and the digest of the value it left in its browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::identity) struct PendingSignUp {
    pub password_hash: String,
    pub browser_hash: String,
}
