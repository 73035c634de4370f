//! Supabase Auth's MFA endpoints (auth-js `mfa.enroll`, `mfa.challenge`, `mfa.verify`, `mfa.unenroll`;
//! `mfa.listFactors` reads `GET /user`): `POST /factors`, `POST /factors/{id}/challenge`,
//! `POST /factors/{id}/verify`, `DELETE /factors/{id}`: TOTP factors, and `webauthn` factors (auth-js
//! `mfa.webauthn.register` and `mfa.webauthn.authenticate`) when passkeys are on.
//!
//! Challenges and verifications go through the attempt guard (`domain::identity::attempts`): per client
//! address, failures per (account, client address), three wrong answers per challenge, and a ceiling of
//! wrong answers per account from every client.

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::{
    ChallengeStarted, EnrollRequest, Enrollment, FactorAnswer, Proof, RelyingPartyClaim, WebAuthnAnswer,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{AuthApiError, AuthJson, IdentityApi, access_claims};

#[derive(Debug, Deserialize)]
pub struct EnrollBody {
    pub factor_type: Option<String>,
    pub friendly_name: Option<String>,
    pub issuer: Option<String>,
}

impl EnrollBody {
    /// What to enroll (a missing `factor_type` is empty, refused by the service).
    fn request(&self) -> EnrollRequest<'_> {
        EnrollRequest {
            factor_type: self.factor_type.as_deref().unwrap_or_default(),
            friendly_name: self.friendly_name.as_deref(),
            issuer: self.issuer.as_deref(),
        }
    }
}

#[derive(Debug, Serialize)]
struct TotpObject {
    /// The QR code of `uri`, an SVG document (auth-js turns it into a `data:` URI).
    qr_code: String,
    secret: String,
    uri: String,
}

#[derive(Debug, Serialize)]
struct EnrollAnswer {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    friendly_name: String,
    /// Absent for a `webauthn` factor (its credential comes with its first challenge).
    #[serde(skip_serializing_if = "Option::is_none")]
    totp: Option<TotpObject>,
}

impl EnrollAnswer {
    /// The enrolled factor; a TOTP factor's secret, URI and QR code come with it (once, here).
    fn new(enrolled: Enrollment) -> Result<Self, AuthApiError> {
        let factor = enrolled.factor();
        let answer = Self {
            id: factor.id.to_string(),
            factor_type: factor.factor_type.code(),
            friendly_name: factor.friendly_name.clone().unwrap_or_default(),
            totp: None,
        };
        Ok(match enrolled {
            Enrollment::Totp(totp) => Self {
                totp: Some(TotpObject {
                    qr_code: qr_svg(&totp.uri)?,
                    secret: totp.secret,
                    uri: totp.uri,
                }),
                ..answer
            },
            Enrollment::WebAuthn(_) => answer,
        })
    }
}

/// The QR code of an `otpauth://` URI as SVG, drawn with named colours (the SVG goes into a `data:` URI
/// unescaped, where `#` would end it).
fn qr_svg(uri: &str) -> Result<String, AuthApiError> {
    use qrcode::render::svg;
    let code = qrcode::QrCode::with_error_correction_level(uri, qrcode::EcLevel::M)
        .map_err(|error| AuthApiError::internal(format!("drawing the QR code: {error}")))?;
    Ok(code
        .render::<svg::Color<'_>>()
        .dark_color(svg::Color("black"))
        .light_color(svg::Color("white"))
        .min_dimensions(200, 200)
        .build())
}

/// `POST /factors`: enrolls a TOTP factor (answers its id and, once, its secret, URI and QR code) or a
/// `webauthn` factor (its id).
///
/// # Errors
/// 400 `validation_failed` (`factor_type`, `friendly_name`, `issuer`); 422
/// `mfa_webauthn_enroll_not_enabled` / `mfa_phone_enroll_not_enabled`; 422 `mfa_factor_name_conflict`;
/// 422 `too_many_enrolled_mfa_factors`; 403 `insufficient_aal`; 401/403 as `GET /user`.
pub async fn enroll(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<EnrollBody>,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let enrolled = api
        .services
        .factors
        .enroll_factor(&claims, body.request())
        .await?;
    let factor = enrolled.factor();
    tracing::info!(user_id = %claims.sub, factor_id = %factor.id, factor_type = factor.factor_type.code(), "second factor enrolled (unverified)");
    Ok(HttpResponse::Ok().json(EnrollAnswer::new(enrolled)?))
}

/// The factor id of the path: 404 `validation_failed` when it is not a UUID (as Supabase Auth).
fn factor_id(path: &str) -> Result<Uuid, AuthApiError> {
    Uuid::parse_str(path.trim()).map_err(|_| {
        AuthApiError::new(
            actix_web::http::StatusCode::NOT_FOUND,
            "validation_failed",
            "factor_id must be an UUID",
        )
    })
}

/// The client address a challenge is bound to.
pub(super) fn client_ip(api: &IdentityApi, request: &HttpRequest) -> String {
    api.proxies
        .client_address(request)
        .map_or_else(|| "unknown".to_owned(), |ip| ip.to_string())
}

/// The relying party a client names (auth-js: `webauthn: {rpId, rpOrigins}`, camelCase).
#[derive(Debug, Default, Deserialize)]
pub struct RelyingPartyBody {
    #[serde(rename = "rpId")]
    pub rp_id: Option<String>,
    #[serde(rename = "rpOrigins")]
    pub rp_origins: Option<Vec<String>>,
}

impl RelyingPartyBody {
    fn claim(&self) -> RelyingPartyClaim {
        RelyingPartyClaim {
            rp_id: self.rp_id.clone(),
            rp_origins: self.rp_origins.clone(),
        }
    }
}

/// `POST /factors/{id}/challenge`'s body (auth-js sends `{factorId, webauthn?}`; all optional).
#[derive(Debug, Default, Deserialize)]
pub struct ChallengeBody {
    pub webauthn: Option<RelyingPartyBody>,
}

impl ChallengeBody {
    /// The relying party the client names, if any (the body is optional).
    fn relying_party(body: Option<AuthJson<Self>>) -> RelyingPartyClaim {
        body.and_then(|b| b.into_inner().webauthn)
            .unwrap_or_default()
            .claim()
    }
}

#[derive(Debug, Serialize)]
struct CredentialOptions {
    #[serde(rename = "publicKey")]
    public_key: serde_json::Value,
}

#[derive(Debug, Serialize)]
struct WebAuthnChallengeObject {
    /// `create` (registration) or `request` (assertion).
    #[serde(rename = "type")]
    kind: &'static str,
    credential_options: CredentialOptions,
}

#[derive(Debug, Serialize)]
struct ChallengeAnswer {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    expires_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    webauthn: Option<WebAuthnChallengeObject>,
}

impl From<ChallengeStarted> for ChallengeAnswer {
    fn from(started: ChallengeStarted) -> Self {
        Self {
            id: started.challenge.id.to_string(),
            factor_type: started.factor.factor_type.code(),
            expires_at: started.challenge.expires_at().timestamp(),
            webauthn: started.webauthn.map(|(kind, options)| WebAuthnChallengeObject {
                kind: kind.code(),
                credential_options: CredentialOptions { public_key: options },
            }),
        }
    }
}

/// `POST /factors/{id}/challenge`: a challenge to verify within five minutes from this client address;
/// for a `webauthn` factor with the options of its ceremony (`credential_options.publicKey`).
///
/// # Errors
/// 404 `mfa_factor_not_found`; 400 `validation_failed` for another relying party (`webauthn.rpId`,
/// `webauthn.rpOrigins`); 422 `mfa_webauthn_verify_not_enabled` (passkeys off); 429
/// `over_request_rate_limit`; 401/403 as `GET /user`.
pub async fn challenge(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    path: web::Path<String>,
    body: Option<AuthJson<ChallengeBody>>,
) -> Result<HttpResponse, AuthApiError> {
    let id = factor_id(&path)?;
    let relying_party = ChallengeBody::relying_party(body);
    let claims = access_claims(&api, &request).await?;
    let ip = client_ip(&api, &request);
    let factors = &api.services.factors;
    let proof = Proof::SecondFactorChallenge;
    let started = api
        .second_factor(&request, claims.email.as_str(), proof, |guarded| {
            factors.challenge_factor(guarded, &claims, id, &ip, &relying_party)
        })
        .await?;
    Ok(HttpResponse::Ok().json(ChallengeAnswer::from(started)))
}

/// A `webauthn` factor's answer (auth-js: `webauthn: {type, rpId, rpOrigins, credential_response}`).
#[derive(Debug, Deserialize)]
pub struct WebAuthnVerifyBody {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(flatten)]
    pub relying_party: RelyingPartyBody,
    pub credential_response: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct VerifyBody {
    pub challenge_id: Option<String>,
    pub code: Option<String>,
    pub webauthn: Option<WebAuthnVerifyBody>,
}

impl VerifyBody {
    /// The relying party a `webauthn` answer names (none for a code).
    fn relying_party(&self) -> RelyingPartyClaim {
        self.webauthn
            .as_ref()
            .map(|w| w.relying_party.claim())
            .unwrap_or_default()
    }

    /// The challenge answered and the answer: a code, or a WebAuthn ceremony's answer naming
    /// `relying_party` (400 `validation_failed` for no code or `credential_response`, or a challenge id that
    /// is not a UUID).
    fn answer<'a>(
        &'a self,
        relying_party: &'a RelyingPartyClaim,
    ) -> Result<(Uuid, FactorAnswer<'a>), AuthApiError> {
        let code = self.code.as_deref().map(str::trim).unwrap_or_default();
        let answer = match &self.webauthn {
            None if code.is_empty() => return Err(AuthApiError::validation("Code needs to be non-empty")),
            None => FactorAnswer::Code(code),
            Some(webauthn) => FactorAnswer::WebAuthn(WebAuthnAnswer {
                kind: webauthn.kind.as_deref().unwrap_or_default(),
                relying_party,
                credential: webauthn
                    .credential_response
                    .as_ref()
                    .filter(|c| c.is_object())
                    .ok_or_else(|| AuthApiError::validation("credential_response required"))?,
            }),
        };
        let challenge_id = self
            .challenge_id
            .as_deref()
            .and_then(|c| Uuid::parse_str(c.trim()).ok())
            .ok_or_else(|| AuthApiError::validation("challenge_id must be an UUID"))?;
        Ok((challenge_id, answer))
    }
}

/// `POST /factors/{id}/verify`: a right code (or WebAuthn answer) verifies the factor and answers a new
/// session at `aal2`.
///
/// # Errors
/// 400 `validation_failed` (no code or `credential_response`, a challenge id that is not a UUID, another
/// relying party, a `webauthn.type` that is not the challenge's); 404 `mfa_factor_not_found`;
/// 422 `mfa_factor_not_found` (no such challenge, or a WebAuthn one used), `mfa_ip_address_mismatch`,
/// `mfa_challenge_expired`, `mfa_verification_failed`, `mfa_webauthn_verify_not_enabled`; 400
/// `webauthn_verification_failed`; 429; 401/403 as `GET /user`.
pub async fn verify(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    path: web::Path<String>,
    body: AuthJson<VerifyBody>,
) -> Result<HttpResponse, AuthApiError> {
    let id = factor_id(&path)?;
    let relying_party = body.relying_party();
    let (challenge_id, answer) = body.answer(&relying_party)?;
    let claims = access_claims(&api, &request).await?;
    let ip = client_ip(&api, &request);
    let factors = &api.services.factors;
    let proof = Proof::SecondFactor {
        challenge: Some(challenge_id),
    };
    let session = api
        .second_factor(&request, claims.email.as_str(), proof, |guarded| {
            factors.verify_factor(guarded, &claims, id, challenge_id, answer, &ip)
        })
        .await?;
    tracing::info!(user_id = %claims.sub, factor_id = %id, "second factor verified; session at aal2");
    Ok(api.answer_session(&request, &session).await)
}

#[derive(Debug, Serialize)]
struct UnenrollAnswer {
    id: String,
}

/// `DELETE /factors/{id}`.
///
/// # Errors
/// 404 `mfa_factor_not_found`; 422 `insufficient_aal` for a verified factor from an `aal1` session;
/// 401/403 as `GET /user`.
pub async fn unenroll(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthApiError> {
    let id = factor_id(&path)?;
    let claims = access_claims(&api, &request).await?;
    let removed = api.services.factors.unenroll_factor(&claims, id).await?;
    tracing::info!(user_id = %claims.sub, factor_id = %removed, "second factor removed");
    Ok(HttpResponse::Ok().json(UnenrollAnswer {
        id: removed.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_is_an_svg_without_a_hash_sign() {
        let svg =
            qr_svg("otpauth://totp/portal.test:dev%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=portal.test")
                .unwrap();
        assert!(svg.contains("<svg"), "{svg}");
        assert!(!svg.contains('#'), "{svg}");
    }

    #[test]
    fn an_answer_needs_a_code_or_a_credential_then_a_uuid_challenge() {
        let body =
            |code: Option<&str>, webauthn: Option<serde_json::Value>, challenge: Option<&str>| VerifyBody {
                challenge_id: challenge.map(str::to_owned),
                code: code.map(str::to_owned),
                webauthn: webauthn.map(|w| serde_json::from_value(w).unwrap()),
            };
        let refused = |b: VerifyBody| {
            let relying_party = b.relying_party();
            b.answer(&relying_party).map(|_| ()).unwrap_err().msg
        };
        assert_eq!(
            refused(body(Some(" "), None, Some("nope"))),
            "Code needs to be non-empty"
        );
        let no_credential = serde_json::json!({"type": "request", "rpId": "portal.test"});
        assert_eq!(
            refused(body(None, Some(no_credential), Some("nope"))),
            "credential_response required"
        );
        assert_eq!(
            refused(body(Some("123456"), None, Some("nope"))),
            "challenge_id must be an UUID"
        );
        let id = Uuid::new_v4();
        let webauthn =
            serde_json::json!({"type": "request", "rpId": "portal.test", "credential_response": {}});
        let answered = body(None, Some(webauthn), Some(&format!(" {id} ")));
        let relying_party = answered.relying_party();
        assert_eq!(relying_party.rp_id.as_deref(), Some("portal.test"));
        let (challenge, answer) = answered.answer(&relying_party).unwrap();
        assert_eq!(challenge, id);
        assert!(matches!(answer, FactorAnswer::WebAuthn(a) if a.kind == "request"));
        let coded = body(Some(" 123456 "), None, Some(&id.to_string()));
        let none = coded.relying_party();
        let (_, answer) = coded.answer(&none).unwrap();
        assert!(matches!(answer, FactorAnswer::Code("123456")));
    }

    #[test]
    fn a_factor_id_that_is_not_a_uuid_is_not_found() {
        let refused = factor_id("nope").unwrap_err();
        assert_eq!(
            (refused.status.as_u16(), refused.code),
            (404, "validation_failed")
        );
    }
}
