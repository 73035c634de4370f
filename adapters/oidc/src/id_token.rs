//! ID-token verification (OpenID Connect Core §3.1.3.7) and the profile it gives.

use domain::identity::ProviderProfile;
use domain::identity::oauth::OidcError;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Seconds of clock difference tolerated for `exp` and `nbf`.
const LEEWAY_SECS: u64 = 60;

/// The asymmetric algorithms accepted; HMAC (a key anybody with the client secret knows) and `none` never.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// A provider's published keys (the ones this crate can use; others are skipped).
#[derive(Debug, Clone, Default)]
pub struct Jwks {
    keys: Vec<Jwk>,
}

#[derive(Deserialize)]
struct RawSet {
    keys: Vec<Value>,
}

impl Jwks {
    /// Reads a JWKS document.
    ///
    /// # Errors
    /// [`OidcError::Unavailable`] when it is not a JWKS.
    pub fn parse(body: &[u8]) -> Result<Self, OidcError> {
        let raw: RawSet = serde_json::from_slice(body)
            .map_err(|e| OidcError::Unavailable(format!("unreadable key set: {e}")))?;
        let keys = raw
            .keys
            .into_iter()
            .filter_map(|key| serde_json::from_value::<Jwk>(key).ok())
            .filter(|key| {
                matches!(
                    key.algorithm,
                    AlgorithmParameters::RSA(_)
                        | AlgorithmParameters::EllipticCurve(_)
                        | AlgorithmParameters::OctetKeyPair(_)
                )
            })
            .collect();
        Ok(Self { keys })
    }

    fn find(&self, kid: Option<&str>) -> Option<&Jwk> {
        match kid {
            Some(kid) => self.keys.iter().find(|k| k.common.key_id.as_deref() == Some(kid)),
            None if self.keys.len() == 1 => self.keys.first(),
            None => None,
        }
    }
}

/// Whether the token names a key the set does not have (the provider may have rotated its keys).
#[must_use]
pub fn needs_other_keys(token: &str, keys: &Jwks) -> bool {
    jsonwebtoken::decode_header(token).is_ok_and(|h| keys.find(h.kid.as_deref()).is_none())
}

/// What the token must say.
#[derive(Debug, Clone, Copy)]
pub struct IdTokenCheck<'a> {
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub nonce: &'a str,
}

/// Verifies the signature and the claims; answers every claim.
///
/// # Errors
/// [`OidcError::InvalidIdToken`] naming the failed check.
pub fn verify(token: &str, keys: &Jwks, check: &IdTokenCheck<'_>) -> Result<Map<String, Value>, OidcError> {
    let invalid = |what: String| OidcError::InvalidIdToken(what);
    let header = jsonwebtoken::decode_header(token).map_err(|e| invalid(format!("malformed: {e}")))?;
    if !ACCEPTED.contains(&header.alg) {
        return Err(invalid(format!("the algorithm {:?} is not accepted", header.alg)));
    }
    let jwk = keys
        .find(header.kid.as_deref())
        .ok_or_else(|| invalid("signed with a key the provider does not publish".into()))?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| invalid(format!("unusable key: {e}")))?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = LEEWAY_SECS;
    validation.validate_nbf = true;
    validation.set_issuer(&[check.issuer]);
    validation.set_audience(&[check.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
        .map_err(|e| invalid(format!("{e}")))?;
    let claims = data.claims;
    if let Some(Value::Array(audiences)) = claims.get("aud")
        && audiences.len() > 1
        && claims.get("azp").and_then(Value::as_str) != Some(check.client_id)
    {
        return Err(invalid("several audiences and azp is not this client".into()));
    }
    let nonce_ok = claims
        .get("nonce")
        .and_then(Value::as_str)
        .is_some_and(|nonce| constant_time_eq(nonce.as_bytes(), check.nonce.as_bytes()));
    if !nonce_ok {
        return Err(invalid("the nonce is not the one this sign-in sent".into()));
    }
    if claims
        .get("sub")
        .and_then(Value::as_str)
        .is_none_or(|s| s.trim().is_empty())
    {
        return Err(invalid("no subject".into()));
    }
    Ok(claims)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A claim that is `true` or the string `"true"` (Apple sends strings).
fn is_true(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// The profile of verified claims. Whether the e-mail is verified: the `email_verified` claim; for Azure,
/// whose tokens carry no such claim, only its own assertion that the domain owner verified the address
/// (`xms_edov`, an optional claim the app registration must request). Apple's `user` form field (first
/// sign-in only) gives the name when the token has none; its e-mail is never used.
#[must_use]
pub fn profile(
    provider: &str,
    issuer: &str,
    claims: Map<String, Value>,
    apple_user: Option<&str>,
) -> ProviderProfile {
    let email = claims
        .get("email")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned);
    let email_verified = email.is_some()
        && if provider == "azure" {
            is_true(claims.get("xms_edov"))
        } else {
            is_true(claims.get("email_verified"))
        };
    let mut kept = Map::new();
    for key in ["name", "picture"] {
        if let Some(Value::String(text)) = claims.get(key) {
            kept.insert(key.to_owned(), Value::String(text.clone()));
        }
    }
    if !kept.contains_key("name")
        && let Some(name) = apple_user.and_then(apple_name)
    {
        kept.insert("name".into(), Value::String(name));
    }
    ProviderProfile {
        issuer: issuer.to_owned(),
        subject: claims
            .get("sub")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        provider: provider.to_owned(),
        email,
        email_verified,
        claims: Value::Object(kept),
    }
}

/// `firstName lastName` of Apple's `user` JSON.
fn apple_name(user: &str) -> Option<String> {
    let value: Value = serde_json::from_str(user).ok()?;
    let name = value.get("name")?;
    let parts: Vec<&str> = ["firstName", "lastName"]
        .iter()
        .filter_map(|k| name.get(k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" ").chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn email_verified_may_be_a_boolean_or_apples_string() {
        let google = profile(
            "google",
            "https://g.test",
            claims(
                json!({"sub": "1", "email": "a@b.test", "email_verified": true, "name": "Ada", "hd": "x"}),
            ),
            None,
        );
        assert!(google.email_verified);
        assert_eq!(google.claims, json!({"name": "Ada"}));
        let apple = profile(
            "apple",
            "https://appleid.apple.com",
            claims(json!({"sub": "1", "email": "a@b.test", "email_verified": "true"})),
            Some(r#"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"other@evil.test"}"#),
        );
        assert!(apple.email_verified);
        assert_eq!(apple.email.as_deref(), Some("a@b.test"));
        assert_eq!(apple.claims, json!({"name": "Ada Lovelace"}));
        let unverified = profile(
            "google",
            "https://g.test",
            claims(json!({"sub": "1", "email": "a@b.test", "email_verified": "false"})),
            None,
        );
        assert!(!unverified.email_verified);
    }

    #[test]
    fn azure_addresses_count_as_verified_only_with_its_own_assertion() {
        let plain = profile(
            "azure",
            "https://login.test/t/v2.0",
            claims(json!({"sub": "1", "email": "a@b.test", "email_verified": true})),
            None,
        );
        assert!(!plain.email_verified);
        let asserted = profile(
            "azure",
            "https://login.test/t/v2.0",
            claims(json!({"sub": "1", "email": "a@b.test", "xms_edov": true})),
            None,
        );
        assert!(asserted.email_verified);
    }

    #[test]
    fn no_email_is_never_verified() {
        let none = profile(
            "google",
            "https://g.test",
            claims(json!({"sub": "1", "email_verified": true})),
            None,
        );
        assert!(none.email.is_none() && !none.email_verified);
    }

    #[test]
    fn symmetric_keys_are_dropped_from_a_key_set() {
        let set = Jwks::parse(
            br#"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"},{"kty":"weird","kid":"w"},
                {"kty":"EC","crv":"P-256","kid":"e","x":"icVt-kT6JapTtv41lZdaHjfTagpCjj7YrcRxzvdeedU","y":"fBLHg-v5IUgA6dUKSTFzCM7CRBgwBnG2iOivopz8xPs"}]}"#,
        )
        .unwrap();
        assert!(set.find(Some("h")).is_none());
        assert!(set.find(Some("e")).is_some());
        assert!(set.find(None).is_some(), "a single key needs no kid");
    }

    #[test]
    fn an_hmac_or_unsigned_token_is_refused_before_any_key_is_used() {
        let check = IdTokenCheck {
            issuer: "https://g.test",
            client_id: "c",
            nonce: "n",
        };
        // {"alg":"HS256","typ":"JWT"}.{"sub":"1"}.sig
        let hs = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2ln";
        let error = verify(hs, &Jwks::default(), &check).unwrap_err();
        assert!(error.to_string().contains("not accepted"), "{error}");
        // {"alg":"none"}.{"sub":"1"}.
        let none = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.";
        assert!(verify(none, &Jwks::default(), &check).is_err());
    }
}
