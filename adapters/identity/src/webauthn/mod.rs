//! The WebAuthn ceremonies of passkeys ([`WebAuthnCeremony`]) with `webauthn-rs` (pure-Rust crypto): the
//! relying party is the portal's public URL (its host the RP id, its origin the only origin accepted).
//!
//! Registration asks for a discoverable credential (`residentKey: required`) with user verification;
//! sign-in is discoverable (no `allowCredentials`), user verification required. The ceremony state is
//! serialized to JSON for the server-side store; the credential (its public key) too.
//!
//! A `webauthn` second factor uses `webauthn-rs`'s security-key ceremonies: a credential that need not be
//! discoverable, user verification preferred (the password was the first factor), asserted with its one
//! credential (`allowCredentials`). The options carry no `hints`, as Supabase Auth's: auth-js fills in its own
//! defaults under the server's (`hints: ["security-key"]`, a cross-platform authenticator), so a browser asks
//! for a security key or a phone.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::common::UserId;
use domain::identity::ports::{
    AssertionClaim, CeremonyError, CeremonyStart, RegisteredCredential, RelyingPartyInfo, VerifiedAssertion,
    WebAuthnCeremony,
};
use serde_json::Value;
use webauthn_rs::prelude::{
    CredentialID, DiscoverableAuthentication, Passkey, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, SecurityKey, SecurityKeyAuthentication, SecurityKeyRegistration, Url, Uuid,
    Webauthn, WebauthnBuilder,
};

/// Why the relying party could not be set up from the public URL.
#[derive(Debug, thiserror::Error)]
#[error("PORTAL_PUBLIC_URL cannot serve passkeys: {0}")]
pub struct RelyingPartyError(String);

/// [`WebAuthnCeremony`] with `webauthn-rs`.
pub struct WebAuthnRs {
    webauthn: Webauthn,
    rp: RelyingParty,
}

impl std::fmt::Debug for WebAuthnRs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebAuthnRs").finish_non_exhaustive()
    }
}

/// Where passkeys work for a public URL: the relying party's id and the one origin accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    /// The RP id (a host name).
    pub id: String,
    /// The origin a browser must show the portal at (`scheme://host[:port]`).
    pub origin: Url,
}

impl RelyingParty {
    /// The relying party of `public_url`: its host and origin (`https://portal.example.com`: RP id
    /// `portal.example.com`). Browsers refuse an IP address as an RP id, so a loopback address
    /// (`http://127.0.0.1:8080`, the default, or `http://[::1]:8080`) gives `localhost` on the same scheme and
    /// port, the same server under the name browsers accept: passkeys then work at `http://localhost:8080`.
    ///
    /// # Errors
    /// [`RelyingPartyError`] when the URL does not parse, has no host, or its host is an IP address other than
    /// a loopback one.
    pub fn of(public_url: &str) -> Result<Self, RelyingPartyError> {
        let mut origin = Url::parse(public_url).map_err(|e| RelyingPartyError(e.to_string()))?;
        let loopback = match origin.host() {
            None => return Err(RelyingPartyError("the URL has no host".to_owned())),
            Some(url::Host::Domain(_)) => false,
            Some(url::Host::Ipv4(ip)) if ip.is_loopback() => true,
            Some(url::Host::Ipv6(ip)) if ip.is_loopback() => true,
            Some(_) => {
                return Err(RelyingPartyError(
                    "browsers refuse an IP address as a passkey's site: use a host name".to_owned(),
                ));
            }
        };
        if loopback {
            origin
                .set_host(Some("localhost"))
                .map_err(|e| RelyingPartyError(e.to_string()))?;
        }
        origin.set_path("");
        origin.set_query(None);
        origin.set_fragment(None);
        let id = origin
            .host_str()
            .ok_or_else(|| RelyingPartyError("the URL has no host".to_owned()))?
            .to_owned();
        Ok(Self { id, origin })
    }

    /// The origin as a browser writes it (`http://localhost:8080`, no trailing slash).
    #[must_use]
    pub fn origin_text(&self) -> String {
        self.origin.origin().ascii_serialization()
    }
}

impl WebAuthnRs {
    /// The relying party of `public_url` ([`RelyingParty::of`]), shown to the user as `name`.
    ///
    /// # Errors
    /// [`RelyingPartyError`] as [`RelyingParty::of`], or when `webauthn-rs` refuses the pair.
    pub fn new(public_url: &str, name: &str) -> Result<Self, RelyingPartyError> {
        let rp = RelyingParty::of(public_url)?;
        let webauthn = WebauthnBuilder::new(&rp.id, &rp.origin)
            .and_then(|b| b.rp_name(name).build())
            .map_err(|e| RelyingPartyError(e.to_string()))?;
        Ok(Self { webauthn, rp })
    }
}

fn internal(error: impl std::fmt::Display) -> CeremonyError {
    CeremonyError::Internal(error.to_string())
}

fn rejected(error: impl std::fmt::Display) -> CeremonyError {
    CeremonyError::Rejected(error.to_string())
}

fn encode_id(id: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(id)
}

/// Asks the authenticator for a discoverable credential (a passkey that signs in without a user name).
fn require_resident_key(options: &mut Value) {
    if let Some(selection) = options
        .get_mut("authenticatorSelection")
        .and_then(Value::as_object_mut)
    {
        selection.insert("residentKey".to_owned(), Value::from("required"));
        selection.insert("requireResidentKey".to_owned(), Value::from(true));
        selection.insert("userVerification".to_owned(), Value::from("required"));
    }
}

/// A second factor's options: any authenticator (no `hints`), as Supabase Auth's.
fn any_authenticator(options: &mut Value) {
    if let Some(options) = options.as_object_mut() {
        options.remove("hints");
    }
}

fn decode_ids(ids: &[String]) -> Vec<CredentialID> {
    ids.iter()
        .filter_map(|id| URL_SAFE_NO_PAD.decode(id).ok())
        .collect()
}

impl WebAuthnCeremony for WebAuthnRs {
    fn start_registration(
        &self,
        user: UserId,
        email: &str,
        exclude: &[String],
    ) -> Result<CeremonyStart, CeremonyError> {
        let exclude = decode_ids(exclude);
        let (creation, state) = self
            .webauthn
            .start_passkey_registration(
                Uuid::from_bytes(*user.as_uuid().as_bytes()),
                email,
                email,
                (!exclude.is_empty()).then_some(exclude),
            )
            .map_err(internal)?;
        let mut options = serde_json::to_value(&creation.public_key).map_err(internal)?;
        require_resident_key(&mut options);
        Ok(CeremonyStart {
            options,
            state: serde_json::to_string(&state).map_err(internal)?,
        })
    }

    fn finish_registration(
        &self,
        state: &str,
        credential: &Value,
    ) -> Result<RegisteredCredential, CeremonyError> {
        let state: PasskeyRegistration = serde_json::from_str(state).map_err(internal)?;
        let answer: RegisterPublicKeyCredential =
            serde_json::from_value(credential.clone()).map_err(rejected)?;
        let passkey = self
            .webauthn
            .finish_passkey_registration(&answer, &state)
            .map_err(rejected)?;
        let sign_count = sign_count_of(&passkey)?;
        Ok(RegisteredCredential {
            credential_id: encode_id(passkey.cred_id().as_ref()),
            public_key: serde_json::to_string(&passkey).map_err(internal)?,
            sign_count,
        })
    }

    fn start_authentication(&self) -> Result<CeremonyStart, CeremonyError> {
        let (request, state) = self
            .webauthn
            .start_discoverable_authentication()
            .map_err(internal)?;
        // The options alone: the page chooses the mediation (a button, or autofill).
        Ok(CeremonyStart {
            options: serde_json::to_value(&request.public_key).map_err(internal)?,
            state: serde_json::to_string(&state).map_err(internal)?,
        })
    }

    fn claim(&self, credential: &Value) -> Result<AssertionClaim, CeremonyError> {
        let answer: PublicKeyCredential = serde_json::from_value(credential.clone()).map_err(rejected)?;
        let user = answer
            .get_user_unique_id()
            .and_then(|handle| uuid::Uuid::from_slice(handle).ok())
            .map(UserId::from);
        Ok(AssertionClaim {
            credential_id: encode_id(answer.get_credential_id()),
            user,
        })
    }

    fn finish_authentication(
        &self,
        state: &str,
        credential: &Value,
        public_key: &str,
    ) -> Result<VerifiedAssertion, CeremonyError> {
        let state: DiscoverableAuthentication = serde_json::from_str(state).map_err(internal)?;
        let passkey: Passkey = serde_json::from_str(public_key).map_err(internal)?;
        let answer: PublicKeyCredential = serde_json::from_value(credential.clone()).map_err(rejected)?;
        let result = self
            .webauthn
            .finish_discoverable_authentication_v2(&answer, state, &passkey)
            .map_err(rejected)?;
        if !result.user_verified() {
            return Err(CeremonyError::Rejected("the user was not verified".to_owned()));
        }
        Ok(VerifiedAssertion {
            sign_count: result.counter(),
        })
    }

    fn relying_party(&self) -> RelyingPartyInfo {
        RelyingPartyInfo {
            id: self.rp.id.clone(),
            origin: self.rp.origin_text(),
        }
    }

    fn start_factor_registration(
        &self,
        user: UserId,
        email: &str,
        exclude: &[String],
    ) -> Result<CeremonyStart, CeremonyError> {
        let exclude = decode_ids(exclude);
        let (creation, state) = self
            .webauthn
            .start_securitykey_registration(
                Uuid::from_bytes(*user.as_uuid().as_bytes()),
                email,
                email,
                (!exclude.is_empty()).then_some(exclude),
                None,
                None,
            )
            .map_err(internal)?;
        let mut options = serde_json::to_value(&creation.public_key).map_err(internal)?;
        any_authenticator(&mut options);
        Ok(CeremonyStart {
            options,
            state: serde_json::to_string(&state).map_err(internal)?,
        })
    }

    fn finish_factor_registration(
        &self,
        state: &str,
        credential: &Value,
    ) -> Result<RegisteredCredential, CeremonyError> {
        let state: SecurityKeyRegistration = serde_json::from_str(state).map_err(internal)?;
        let answer: RegisterPublicKeyCredential =
            serde_json::from_value(credential.clone()).map_err(rejected)?;
        let key = self
            .webauthn
            .finish_securitykey_registration(&answer, &state)
            .map_err(rejected)?;
        Ok(RegisteredCredential {
            credential_id: encode_id(key.cred_id().as_ref()),
            public_key: serde_json::to_string(&key).map_err(internal)?,
            sign_count: sign_count_of(&key)?,
        })
    }

    fn start_factor_authentication(&self, public_key: &str) -> Result<CeremonyStart, CeremonyError> {
        let key: SecurityKey = serde_json::from_str(public_key).map_err(internal)?;
        let (request, state) = self
            .webauthn
            .start_securitykey_authentication(std::slice::from_ref(&key))
            .map_err(internal)?;
        let mut options = serde_json::to_value(&request.public_key).map_err(internal)?;
        any_authenticator(&mut options);
        Ok(CeremonyStart {
            options,
            state: serde_json::to_string(&state).map_err(internal)?,
        })
    }

    fn finish_factor_authentication(
        &self,
        state: &str,
        credential: &Value,
    ) -> Result<VerifiedAssertion, CeremonyError> {
        let state: SecurityKeyAuthentication = serde_json::from_str(state).map_err(internal)?;
        let answer: PublicKeyCredential = serde_json::from_value(credential.clone()).map_err(rejected)?;
        let result = self
            .webauthn
            .finish_securitykey_authentication(&answer, &state)
            .map_err(rejected)?;
        Ok(VerifiedAssertion {
            sign_count: result.counter(),
        })
    }
}

/// The signature counter the authenticator reported at registration (kept in the credential).
fn sign_count_of(credential: &impl serde::Serialize) -> Result<u32, CeremonyError> {
    let value = serde_json::to_value(credential).map_err(internal)?;
    value
        .pointer("/cred/counter")
        .and_then(Value::as_u64)
        .and_then(|count| u32::try_from(count).ok())
        .ok_or_else(|| internal("the credential has no signature counter"))
}

#[cfg(any(test, feature = "soft-authenticator"))]
pub mod soft;

#[cfg(test)]
mod tests;
