//! The e-mail that carries a link and a six-digit code (sign-up, magic link, recovery), and the digests they
//! are stored as.

use crate::common::EmailAddress;
use crate::common::secrets::digest_secret;
use crate::identity::codes::EmailSignIn;
use crate::identity::codes::emails::{code_email, verify_link};
use crate::identity::errors::IdentityError;
use crate::identity::models::{OPAQUE_TOKEN_BYTES, OneTimeCode, OtpPurpose};

impl EmailSignIn {
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
        let now = self.issuer.now();
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
        let link = verify_link(
            &self.issuer.config().public_url,
            &link_token,
            purpose,
            redirect_to,
        );
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
