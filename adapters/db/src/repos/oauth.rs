//! OAuth sign-ins in progress (`oauth_flows`) and their auth codes (`oauth_auth_codes`), each deleted by the
//! one call that takes it.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::RepoError;
use domain::identity::ProviderProfile;
use domain::identity::oauth::{AuthCode, ChallengeMethod, CodeChallenge, OAuthFlow, OAuthFlowRepository};

use crate::Db;
use crate::convert::{backend, db_error, from_json, from_millis, parse_stored, to_json, to_millis};
use crate::schema::{oauth_auth_codes, oauth_flows};

fn parse_method(text: &str) -> Result<ChallengeMethod, &'static str> {
    ChallengeMethod::parse(text).ok_or("unknown code challenge method")
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_flows)]
struct FlowRow {
    state_hash: String,
    provider: String,
    code_challenge: String,
    code_challenge_method: String,
    redirect_to: String,
    nonce: String,
    provider_verifier: String,
    created_at: i64,
    expires_at: i64,
}

impl FlowRow {
    fn from_domain(flow: &OAuthFlow) -> Self {
        Self {
            state_hash: flow.state_hash.clone(),
            provider: flow.provider.clone(),
            code_challenge: flow.challenge.value.clone(),
            code_challenge_method: flow.challenge.method.as_str().to_owned(),
            redirect_to: flow.redirect_to.clone(),
            nonce: flow.nonce.clone(),
            provider_verifier: flow.provider_verifier.clone(),
            created_at: to_millis(flow.created_at),
            expires_at: to_millis(flow.expires_at),
        }
    }

    fn into_domain(self) -> Result<OAuthFlow, RepoError> {
        Ok(OAuthFlow {
            challenge: CodeChallenge {
                method: parse_stored(
                    "oauth_flows.code_challenge_method",
                    &self.code_challenge_method,
                    parse_method,
                )?,
                value: self.code_challenge,
            },
            state_hash: self.state_hash,
            provider: self.provider,
            redirect_to: self.redirect_to,
            nonce: self.nonce,
            provider_verifier: self.provider_verifier,
            created_at: from_millis(self.created_at)?,
            expires_at: from_millis(self.expires_at)?,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_auth_codes)]
struct CodeRow {
    code_hash: String,
    code_challenge: String,
    code_challenge_method: String,
    provider: String,
    issuer: String,
    subject: String,
    email: Option<String>,
    email_verified: bool,
    claims: String,
    created_at: i64,
    expires_at: i64,
}

impl CodeRow {
    fn from_domain(code: &AuthCode) -> Result<Self, RepoError> {
        Ok(Self {
            code_hash: code.code_hash.clone(),
            code_challenge: code.challenge.value.clone(),
            code_challenge_method: code.challenge.method.as_str().to_owned(),
            provider: code.profile.provider.clone(),
            issuer: code.profile.issuer.clone(),
            subject: code.profile.subject.clone(),
            email: code.profile.email.clone(),
            email_verified: code.profile.email_verified,
            claims: to_json(&code.profile.claims)?,
            created_at: to_millis(code.created_at),
            expires_at: to_millis(code.expires_at),
        })
    }

    fn into_domain(self) -> Result<AuthCode, RepoError> {
        Ok(AuthCode {
            challenge: CodeChallenge {
                method: parse_stored(
                    "oauth_auth_codes.code_challenge_method",
                    &self.code_challenge_method,
                    parse_method,
                )?,
                value: self.code_challenge,
            },
            profile: ProviderProfile {
                issuer: self.issuer,
                subject: self.subject,
                provider: self.provider,
                email: self.email,
                email_verified: self.email_verified,
                claims: from_json("oauth_auth_codes.claims", &self.claims)?,
            },
            code_hash: self.code_hash,
            created_at: from_millis(self.created_at)?,
            expires_at: from_millis(self.expires_at)?,
        })
    }
}

/// [`OAuthFlowRepository`] on the `oauth_flows` and `oauth_auth_codes` tables.
#[derive(Debug, Clone)]
pub struct DieselOAuthFlowRepository {
    db: Db,
}

impl DieselOAuthFlowRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl OAuthFlowRepository for DieselOAuthFlowRepository {
    async fn insert_flow(&self, flow: &OAuthFlow) -> Result<(), RepoError> {
        let row = FlowRow::from_domain(flow);
        self.db
            .write(move |conn| {
                diesel::insert_into(oauth_flows::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing an OAuth flow", "oauth_flow"))?;
                Ok(())
            })
            .await
    }

    async fn take_flow(&self, state_hash: &str) -> Result<Option<OAuthFlow>, RepoError> {
        let state_hash = state_hash.to_owned();
        let row = self
            .db
            .write(move |conn| {
                let target = oauth_flows::table.filter(oauth_flows::state_hash.eq(&state_hash));
                let Some(found) = target
                    .select(FlowRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an OAuth flow"))?
                else {
                    return Ok(None);
                };
                // Of concurrent takes, only the one whose DELETE removed the row gets it (a PostgreSQL
                // DELETE waits for the other's row lock, then finds nothing).
                let deleted = diesel::delete(target)
                    .execute(conn)
                    .map_err(backend("taking an OAuth flow"))?;
                Ok((deleted == 1).then_some(found))
            })
            .await?;
        row.map(FlowRow::into_domain).transpose()
    }

    async fn insert_code(&self, code: &AuthCode) -> Result<(), RepoError> {
        let row = CodeRow::from_domain(code)?;
        self.db
            .write(move |conn| {
                diesel::insert_into(oauth_auth_codes::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing an OAuth auth code", "oauth_auth_code"))?;
                Ok(())
            })
            .await
    }

    async fn take_code(&self, code_hash: &str) -> Result<Option<AuthCode>, RepoError> {
        let code_hash = code_hash.to_owned();
        let row = self
            .db
            .write(move |conn| {
                let target = oauth_auth_codes::table.filter(oauth_auth_codes::code_hash.eq(&code_hash));
                let Some(found) = target
                    .select(CodeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an OAuth auth code"))?
                else {
                    return Ok(None);
                };
                let deleted = diesel::delete(target)
                    .execute(conn)
                    .map_err(backend("taking an OAuth auth code"))?;
                Ok((deleted == 1).then_some(found))
            })
            .await?;
        row.map(CodeRow::into_domain).transpose()
    }

    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let at = to_millis(cutoff);
        self.db
            .write(move |conn| {
                let flows = diesel::delete(oauth_flows::table.filter(oauth_flows::expires_at.lt(at)))
                    .execute(conn)
                    .map_err(backend("pruning OAuth flows"))?;
                let codes =
                    diesel::delete(oauth_auth_codes::table.filter(oauth_auth_codes::expires_at.lt(at)))
                        .execute(conn)
                        .map_err(backend("pruning OAuth auth codes"))?;
                Ok((flows + codes) as u64)
            })
            .await
    }
}
