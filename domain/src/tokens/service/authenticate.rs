//! A request that presents a personal access token: the token checked and its use written down, and the
//! port through which the product's authentication asks for it.

use super::{AccessTokenService, TokenRefusal};
use crate::common::secrets::digests_match;
use crate::common::{OrgId, RepoError, TokenUse};
use crate::identity::core_token::{AccessTokenCheck, CheckedToken, StandingInOrg};
use crate::tokens::format::{self, FormatError};
use crate::tokens::models::{TokenRead, TokenStatus};

impl AccessTokenService {
    /// Authenticates a request that presents `bearer` (which starts with [`format::PREFIX`]), naming
    /// `org` when it does: the mistyped ones are refused before anything is read; then the stored digest
    /// must match, and the token must be neither revoked nor expired. A use is written down now and then
    /// ([`AccessToken::use_worth_recording`]).
    ///
    /// [`AccessToken::use_worth_recording`]: crate::tokens::models::AccessToken::use_worth_recording
    ///
    /// # Errors
    /// `Ok(Err(refusal))` when the token does not authenticate; a store failure.
    pub async fn authenticate(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<Result<TokenRead, TokenRefusal>, RepoError> {
        let presented = match format::read(bearer) {
            Ok(presented) => presented,
            Err(FormatError::Mistyped | FormatError::NotAnAccessToken) => {
                return Ok(Err(TokenRefusal::Mistyped));
            }
        };
        let Some(read) = self.tokens.read_for_request(presented.id, org).await? else {
            return Ok(Err(TokenRefusal::Unknown));
        };
        if !digests_match(&read.secret_digest, &self.key.access_token(bearer)) {
            return Ok(Err(TokenRefusal::Unknown));
        }
        let now = self.clock.now();
        if read.made_before_the_proof() {
            return Ok(Err(TokenRefusal::Revoked));
        }
        match read.token.status(now) {
            TokenStatus::Revoked => return Ok(Err(TokenRefusal::Revoked)),
            TokenStatus::Expired => return Ok(Err(TokenRefusal::Expired)),
            TokenStatus::Active => {}
        }
        if read.token.use_worth_recording(now, client_ip) {
            self.tokens
                .record_use(read.token.id, now, client_ip.map(str::to_owned))
                .await?;
        }
        Ok(Ok(read))
    }
}

/// The product's authentication checks personal access tokens through this port (it does not know this
/// context): the token read as the request needs it.
#[async_trait::async_trait]
impl AccessTokenCheck for AccessTokenService {
    async fn check(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<Result<CheckedToken, TokenRefusal>, RepoError> {
        Ok(self.authenticate(bearer, org, client_ip).await?.map(|read| {
            let token = read.token;
            CheckedToken {
                used: TokenUse {
                    id: token.id,
                    name: token.name,
                    org: token.org_id,
                    scopes: token.scopes,
                },
                owner: token.user_id,
                owner_email: read.owner_email,
                made_with: token.made_with,
                protection: read.protection,
                org: read.org.map(|standing| StandingInOrg {
                    org: standing.org,
                    role: standing.role,
                    requires_two_factor: standing.requires_two_factor,
                    apps_revision: standing.apps_revision,
                }),
            }
        }))
    }
}
