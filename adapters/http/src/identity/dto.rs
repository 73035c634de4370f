//! The JSON shapes of `/auth/v1` (Supabase Auth's `User` and session objects), kept apart from the domain
//! types they are made from.

use chrono::{DateTime, Utc};
use domain::common::{EmailAddress, UserId};
use domain::identity::{Factor, Session, UserRecord};
use serde::Serialize;
use serde_json::{Value, json};

const AUTHENTICATED: &str = "authenticated";

#[derive(Debug, Serialize)]
pub struct AppMetadata {
    pub provider: String,
    pub providers: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct IdentityDto {
    pub identity_id: String,
    pub id: String,
    pub user_id: String,
    pub identity_data: Value,
    pub provider: String,
    pub email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sign_in_at: Option<DateTime<Utc>>,
}

/// Supabase Auth's `Factor` (in `User.factors`); the secret is never in it.
#[derive(Debug, Serialize)]
pub struct FactorDto {
    pub id: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
    pub factor_type: &'static str,
    pub last_challenged_at: Option<DateTime<Utc>>,
}

impl From<&Factor> for FactorDto {
    fn from(factor: &Factor) -> Self {
        Self {
            id: factor.id.to_string(),
            created_at: factor.created_at,
            updated_at: factor.updated_at,
            status: factor.status.code(),
            friendly_name: factor.friendly_name.clone(),
            factor_type: factor.factor_type.code(),
            last_challenged_at: factor.last_challenged_at,
        }
    }
}

/// Supabase Auth's `User`.
#[derive(Debug, Serialize)]
pub struct UserDto {
    pub id: String,
    pub aud: &'static str,
    pub role: &'static str,
    pub email: String,
    pub email_confirmed_at: Option<DateTime<Utc>>,
    pub phone: &'static str,
    pub confirmed_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub app_metadata: AppMetadata,
    pub user_metadata: Value,
    pub identities: Vec<IdentityDto>,
    /// Omitted when the account has none, as Supabase Auth does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub factors: Vec<FactorDto>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub is_anonymous: bool,
}

impl From<&UserRecord> for UserDto {
    fn from(user: &UserRecord) -> Self {
        let account = &user.account;
        let providers = user.providers();
        let mut identities = Vec::new();
        if providers.first().is_some_and(|p| p == "email") {
            identities.push(IdentityDto {
                identity_id: account.id.to_string(),
                id: account.id.to_string(),
                user_id: account.id.to_string(),
                identity_data: json!({
                    "sub": account.id.to_string(),
                    "email": account.email.as_str(),
                    "email_verified": account.is_confirmed(),
                    "phone_verified": false,
                }),
                provider: "email".into(),
                email: Some(account.email.as_str().to_owned()),
                created_at: account.created_at,
                updated_at: account.updated_at,
                last_sign_in_at: account.last_sign_in_at,
            });
        }
        for linked in &user.identities {
            identities.push(IdentityDto {
                identity_id: format!("{}:{}", linked.provider, linked.subject),
                id: linked.subject.clone(),
                user_id: account.id.to_string(),
                identity_data: json!({
                    "sub": linked.subject,
                    "iss": linked.issuer,
                    "email": linked.email.as_ref().map(EmailAddress::as_str),
                    "email_verified": linked.email_verified,
                }),
                provider: linked.provider.clone(),
                email: linked.email.as_ref().map(|e| e.as_str().to_owned()),
                created_at: linked.linked_at,
                updated_at: linked.linked_at,
                last_sign_in_at: None,
            });
        }
        Self {
            id: account.id.to_string(),
            aud: AUTHENTICATED,
            role: AUTHENTICATED,
            email: account.email.as_str().to_owned(),
            email_confirmed_at: account.email_confirmed_at,
            phone: "",
            confirmed_at: account.email_confirmed_at,
            confirmation_sent_at: None,
            last_sign_in_at: account.last_sign_in_at,
            app_metadata: AppMetadata {
                provider: providers.first().cloned().unwrap_or_else(|| "email".into()),
                providers,
            },
            user_metadata: account.profile.clone(),
            identities,
            factors: user.factors.iter().map(FactorDto::from).collect(),
            created_at: account.created_at,
            updated_at: account.updated_at,
            is_anonymous: false,
        }
    }
}

impl UserDto {
    /// The user of a sign-up that waits for its confirmation e-mail: the same shape whether or not the
    /// address already had an account (nothing but the address and an id, which is random for a taken one).
    #[must_use]
    pub fn awaiting_confirmation(user_id: UserId, email: &EmailAddress, now: DateTime<Utc>) -> Self {
        Self {
            id: user_id.to_string(),
            aud: AUTHENTICATED,
            role: AUTHENTICATED,
            email: email.as_str().to_owned(),
            email_confirmed_at: None,
            phone: "",
            confirmed_at: None,
            confirmation_sent_at: Some(now),
            last_sign_in_at: None,
            app_metadata: AppMetadata {
                provider: "email".into(),
                providers: vec!["email".into()],
            },
            user_metadata: json!({}),
            identities: Vec::new(),
            factors: Vec::new(),
            created_at: now,
            updated_at: now,
            is_anonymous: false,
        }
    }
}

/// Supabase Auth's token response (a session).
#[derive(Debug, Serialize)]
pub struct SessionDto {
    pub access_token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub expires_at: i64,
    pub refresh_token: String,
    pub user: UserDto,
    /// Present (`true`) only when this sign-in proved the address and removed a password someone had set
    /// before: the browser asks the user to choose one. Not part of Supabase's shape; auth-js keeps it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub choose_password: bool,
}

impl From<&Session> for SessionDto {
    fn from(session: &Session) -> Self {
        Self {
            access_token: session.access_token.clone(),
            token_type: session.token_type,
            expires_in: session.expires_in,
            expires_at: session.expires_at,
            refresh_token: session.refresh_token.clone(),
            user: UserDto::from(&session.user),
            choose_password: session.choose_password,
        }
    }
}
