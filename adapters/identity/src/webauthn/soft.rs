//! A software authenticator for tests (feature `soft-authenticator`): a P-256 (ES256) platform
//! authenticator with resident keys and user verification, that answers the options of
//! [`super::WebAuthnRs`] as a browser's `navigator.credentials.create`/`get` would, serialized as
//! auth-js serializes them (`RegistrationResponseJSON`, `AuthenticationResponseJSON`).
//!
//! Attestation `none`; the CBOR of the attestation object and the COSE key is written by hand (a few
//! fixed shapes).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{DerSignature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// One credential the authenticator holds.
#[derive(Clone)]
pub struct SoftCredential {
    pub id: Vec<u8>,
    pub user_handle: Vec<u8>,
    key: SigningKey,
    /// The signature counter; each sign-in adds [`SoftAuthenticator::counter_step`] first.
    pub counter: u32,
}

/// A software platform authenticator bound to one origin.
pub struct SoftAuthenticator {
    origin: String,
    pub credentials: Vec<SoftCredential>,
    /// What a sign-in adds to the counter (0: an authenticator that keeps no counter).
    pub counter_step: u32,
    /// Whether the user is verified (the `UV` flag).
    pub user_verified: bool,
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn cbor_bytes_header(len: usize, out: &mut Vec<u8>) {
    // Major type 2 (bytes); lengths up to 65535 are all tests need.
    if len < 24 {
        out.push(0x40 | u8::try_from(len).unwrap_or(0));
    } else if let Ok(short) = u8::try_from(len) {
        out.extend_from_slice(&[0x58, short]);
    } else {
        let len = u16::try_from(len).unwrap_or(u16::MAX);
        out.push(0x59);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

fn cbor_text(text: &str, out: &mut Vec<u8>) {
    out.push(0x60 | u8::try_from(text.len()).unwrap_or(0));
    out.extend_from_slice(text.as_bytes());
}

impl SoftAuthenticator {
    /// An authenticator for pages of `origin` (e.g. `http://localhost:8080`) that verifies its user and
    /// counts its signatures.
    #[must_use]
    pub fn new(origin: &str) -> Self {
        Self {
            origin: origin.trim_end_matches('/').to_owned(),
            credentials: Vec::new(),
            counter_step: 1,
            user_verified: true,
        }
    }

    fn cose_key(key: &SigningKey) -> Vec<u8> {
        let point = key.verifying_key().to_encoded_point(false);
        let (x, y) = (point.x().map(|x| x.to_vec()), point.y().map(|y| y.to_vec()));
        let mut out = vec![0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21];
        cbor_bytes_header(32, &mut out);
        out.extend_from_slice(&x.unwrap_or_default());
        out.push(0x22);
        cbor_bytes_header(32, &mut out);
        out.extend_from_slice(&y.unwrap_or_default());
        out
    }

    fn flags(&self, attested: bool) -> u8 {
        // UP, UV when verified, AT for a new credential.
        let mut flags = 0x01;
        if self.user_verified {
            flags |= 0x04;
        }
        if attested {
            flags |= 0x40;
        }
        flags
    }

    fn client_data(&self, kind: &str, options: &Value) -> Vec<u8> {
        let challenge = options["challenge"].as_str().unwrap_or_default();
        serde_json::to_vec(&json!({
            "type": kind,
            "challenge": challenge,
            "origin": self.origin,
            "crossOrigin": false,
        }))
        .unwrap_or_default()
    }

    /// `navigator.credentials.create` for `options` (`PublicKeyCredentialCreationOptionsJSON`): a new
    /// resident credential for the options' user; answers the `RegistrationResponseJSON`.
    pub fn register(&mut self, options: &Value) -> Value {
        let rp_id = options["rp"]["id"].as_str().unwrap_or_default().to_owned();
        let user_handle = URL_SAFE_NO_PAD
            .decode(options["user"]["id"].as_str().unwrap_or_default())
            .unwrap_or_default();
        let mut seed = [0u8; 32];
        let _ = getrandom::fill(&mut seed);
        seed[0] = seed[0].max(1);
        let Ok(key) = SigningKey::from_slice(&seed) else {
            return Value::Null;
        };
        let mut id = [0u8; 16];
        let _ = getrandom::fill(&mut id);
        let client_data = self.client_data("webauthn.create", options);
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(self.flags(true));
        auth_data.extend_from_slice(&0u32.to_be_bytes());
        auth_data.extend_from_slice(&[0u8; 16]);
        auth_data.extend_from_slice(&u16::try_from(id.len()).unwrap_or(0).to_be_bytes());
        auth_data.extend_from_slice(&id);
        auth_data.extend_from_slice(&Self::cose_key(&key));
        let mut attestation = vec![0xA3];
        cbor_text("fmt", &mut attestation);
        cbor_text("none", &mut attestation);
        cbor_text("attStmt", &mut attestation);
        attestation.push(0xA0);
        cbor_text("authData", &mut attestation);
        cbor_bytes_header(auth_data.len(), &mut attestation);
        attestation.extend_from_slice(&auth_data);
        self.credentials.push(SoftCredential {
            id: id.to_vec(),
            user_handle,
            key,
            counter: 0,
        });
        json!({
            "id": b64(&id),
            "rawId": b64(&id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(&client_data),
                "attestationObject": b64(&attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }

    /// `navigator.credentials.get` for `options` (`PublicKeyCredentialRequestOptionsJSON`) with the
    /// credential `index`; answers the `AuthenticationResponseJSON`.
    pub fn authenticate(&mut self, options: &Value, index: usize) -> Value {
        let rp_id = options["rpId"].as_str().unwrap_or_default().to_owned();
        let client_data = self.client_data("webauthn.get", options);
        let flags = self.flags(false);
        let step = self.counter_step;
        let Some(credential) = self.credentials.get_mut(index) else {
            return Value::Null;
        };
        credential.counter += step;
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(flags);
        auth_data.extend_from_slice(&credential.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&Sha256::digest(&client_data));
        let signature: DerSignature = credential.key.sign(&signed);
        json!({
            "id": b64(&credential.id),
            "rawId": b64(&credential.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(&client_data),
                "authenticatorData": b64(&auth_data),
                "signature": b64(signature.as_bytes()),
                "userHandle": b64(&credential.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }
}
