//! Authenticating a product request's bearer: a core token, an identity access token, or a personal
//! access token, with the caller's membership read with the session when the request names an organization.

use super::CoreTokenService;
use super::session::{Session, claimed_proof};
use crate::common::{ACCESS_TOKEN_PREFIX, Caller, EmailAddress, OrgId, UserId};
use crate::identity::assurance::SessionProof;
use crate::identity::core_token::{AuthError, Authenticated, TokenRefusal};
use crate::identity::sessions::tokens::TokenError;
use crate::membership::MembershipRead;

impl CoreTokenService {
    /// Authenticates a product request's bearer — a core token, an identity access token, or a personal
    /// access token — for a request naming the organization `org` when it does, from the client address
    /// `client_ip` (a token's last use is recorded with it). See [`Self::authenticate_in_org`].
    ///
    /// # Errors
    /// As [`Self::authenticate_at_level`]; [`AuthError::AccessToken`] and
    /// [`AuthError::TokenOutsideItsOrg`] for a personal access token.
    pub async fn authenticate_request(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let bearer = bearer.trim();
        if bearer.starts_with(ACCESS_TOKEN_PREFIX) {
            return self.authenticate_access_token(bearer, org, client_ip).await;
        }
        self.authenticate_in(bearer, org).await
    }

    /// A personal access token acts as its owner with the proof it recorded when it was made: the same
    /// rule as a session's decides what that proof may do against the owner's protection now (a token
    /// made by a password-only session of an account that has a second factor since is held back, as
    /// that session would be); never a platform role (staff use cases never take a token); the owner's
    /// membership is read with it.
    async fn authenticate_access_token(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let Some(tokens) = &self.access_tokens else {
            return Err(AuthError::AccessToken(TokenRefusal::Unknown));
        };
        let read = tokens
            .check(bearer, org, client_ip)
            .await?
            .map_err(AuthError::AccessToken)?;
        if let (Some(bound), Some(named)) = (read.used.org, org)
            && bound != named
        {
            return Err(AuthError::TokenOutsideItsOrg);
        }
        // A hosted account's factors are the project's, not known here (its local row has none): the
        // token's recorded level speaks for itself, as a hosted session's `aal` does.
        let protection = self.hosted.is_none().then_some(read.protection);
        let (platform_role, withheld_role) = self
            .admit(protection, read.made_with, None)
            .map_err(|_| AuthError::AccessToken(TokenRefusal::BelowAccountLevel))?;
        let membership = read.org.map(|standing| {
            MembershipRead::new(
                read.owner,
                standing.org,
                standing.role,
                standing.requires_two_factor,
                standing.apps_revision,
            )
        });
        let authenticated = Authenticated {
            caller: Caller {
                user_id: read.owner,
                email: read.owner_email,
                platform_role,
                origin: crate::common::ClientOrigin {
                    via_token: Some(read.used),
                    ..crate::common::ClientOrigin::default()
                },
            },
            proof: read.made_with,
            session_id: None,
            protection,
            withheld_role,
        };
        Ok((authenticated, membership))
    }

    /// Resolves the caller of a product request from its bearer token: a core token, else an identity
    /// access token. The platform role is the one bound to the account id: never read from the e-mail, so
    /// a role waiting for an address, or bound to an account that had the address before, is not the
    /// caller's.
    ///
    /// # Errors
    /// [`AuthError::Unauthenticated`] (expired when either kind said so); [`AuthError::EmailInUse`] as
    /// [`Self::exchange`]; [`AuthError::Repo`].
    pub async fn authenticate(&self, bearer: &str) -> Result<Caller, AuthError> {
        self.authenticate_at_level(bearer).await.map(|found| found.caller)
    }

    /// As [`Self::authenticate`], with the session's assurance level: the built-in service's live session
    /// says it (so a factor removed since the token was issued counts at once); a hosted service's token
    /// claims it.
    ///
    /// # Errors
    /// As [`Self::authenticate`], and [`AuthError::MfaRequired`] for an `aal1` session of an account that
    /// has a verified second factor.
    pub async fn authenticate_at_level(&self, bearer: &str) -> Result<Authenticated, AuthError> {
        self.authenticate_in(bearer, None).await.map(|(found, _)| found)
    }

    /// As [`Self::authenticate_at_level`] for a request that names the organization `org`: the caller's
    /// role in it and the revision of its apps are read in the same statement as the session
    /// ([`RefreshTokenRepository::current_of_family_in_org`]), so that the whole request's authorization
    /// is one round trip. `None` for the membership when sessions are not known here (a hosted identity
    /// service): the member directory is then to be asked.
    ///
    /// [`RefreshTokenRepository::current_of_family_in_org`]:
    ///     crate::identity::ports::RefreshTokenRepository::current_of_family_in_org
    ///
    /// # Errors
    /// As [`Self::authenticate_at_level`].
    pub async fn authenticate_in_org(
        &self,
        bearer: &str,
        org: OrgId,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        self.authenticate_in(bearer, Some(org)).await
    }

    async fn authenticate_in(
        &self,
        bearer: &str,
        org: Option<OrgId>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let token = bearer.trim();
        if token.is_empty() {
            return Err(AuthError::Unauthenticated(TokenError::Invalid));
        }
        let (user_id, email, session, claimed) = self.verify_either(token, org).await?;
        // Read with the session when there is one (one round trip for both), on its own otherwise.
        let (role, proof, protection, membership) = match session {
            Session::Live {
                role,
                proof,
                protection,
                membership,
            } => (role, proof, Some(protection), membership),
            Session::NotKnownHere => (self.admins.role_of(user_id).await?, claimed, None, None),
        };
        let (platform_role, withheld_role) = self
            .admit(protection, proof, role)
            .map_err(|_| AuthError::MfaRequired)?;
        let authenticated = Authenticated {
            caller: Caller {
                user_id,
                email,
                platform_role,
                origin: crate::common::ClientOrigin::default(),
            },
            proof,
            session_id: proof.family,
            protection,
            withheld_role,
        };
        Ok((authenticated, membership))
    }

    /// The token's user, e-mail, session and what the token itself claims it proves.
    async fn verify_either(
        &self,
        token: &str,
        org: Option<OrgId>,
    ) -> Result<(UserId, EmailAddress, Session, SessionProof), AuthError> {
        let now = self.clock.now();
        let core = self
            .signer
            .verify_core(token, now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims));
        let core_error = match core {
            Ok(claims) => {
                // Signed out, revoked or taken over: the core token dies with its session.
                let Some(session) = self.core_session(&claims, now, org).await? else {
                    return Err(AuthError::Unauthenticated(TokenError::Invalid));
                };
                let claimed = claimed_proof(&claims.aal, claims.auth_time);
                return Ok((claims.sub, claims.email, session, claimed));
            }
            Err(error) => error,
        };
        let access = self
            .signer
            .verify_access(token, now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims));
        match access {
            Ok(claims) => {
                // An access token is accepted only while its session lives (signed out means out).
                let Some(session) = self.session_of(&claims, now, org).await? else {
                    return Err(AuthError::Unauthenticated(TokenError::Invalid));
                };
                if let Some(hosted) = &self.hosted {
                    hosted.ensure(&claims).await?;
                }
                let claimed = claimed_proof(&claims.aal, claims.first_factor_at().map(|at| at.timestamp()));
                Ok((claims.sub, claims.email, session, claimed))
            }
            Err(access_error) => {
                let expired = core_error == TokenError::Expired || access_error == TokenError::Expired;
                let error = if expired {
                    TokenError::Expired
                } else {
                    TokenError::Invalid
                };
                Err(AuthError::Unauthenticated(error))
            }
        }
    }
}
